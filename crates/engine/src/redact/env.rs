//! Environment variables with secret values: `env`/`printenv` output, `export NAME=…`,
//! `.env` files, `set NAME=…`, `NAME=… command`.
//!
//! A `NAME=value` counts when NAME is UPPER_SNAKE (starts with a letter, not glued to a word on
//! its left; a literal `\n` before it is a line break of an escaped text) and names a secret:
//! one of its `_` parts contains TOKEN, SECRET, PASSWORD, PASSWD, PASSPHRASE, CREDENTIAL,
//! APIKEY, ACCESSKEY or PRIVATEKEY, or equals KEY, KEYS, PASS, PWD, CREDS, COOKIE, DSN or SALT,
//! or the last part is AUTH, SESSION, PRIVATE, SIG or SIGNATURE; unless a part is PUBLIC/PUB,
//! the name is PWD/OLDPWD, or the last part says the value is not the secret itself (FILE, PATH,
//! DIR, SOCK, HOST, PORT, URL, NAME, ID, TYPE, MODE, TIMEOUT, …).
//! The value (inside quotes when quoted) is the secret, unless it is empty, a `$VAR` reference,
//! a placeholder, a boolean or a short number.

use super::text::{boundary_before, is_placeholder};

const STRONG_PARTS: &[&str] =
    &["TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL", "APIKEY", "ACCESSKEY", "PRIVATEKEY"];
const EXACT_PARTS: &[&str] = &["KEY", "KEYS", "PASS", "PWD", "CREDS", "COOKIE", "COOKIES", "DSN", "SALT"];
const LAST_PARTS: &[&str] = &["AUTH", "SESSION", "PRIVATE", "SIG", "SIGNATURE"];
const BENIGN_LAST: &[&str] = &[
    "FILE",
    "FILES",
    "PATH",
    "DIR",
    "SOCK",
    "SOCKET",
    "HOST",
    "HOSTNAME",
    "PORT",
    "URL",
    "URI",
    "ENDPOINT",
    "NAME",
    "ID",
    "TYPE",
    "MODE",
    "TIMEOUT",
    "TTL",
    "EXPIRY",
    "EXPIRES",
    "LENGTH",
    "SIZE",
    "ENABLED",
    "DISABLED",
    "VERSION",
    "PROVIDER",
    "METHOD",
    "HEADER",
    "FORMAT",
    "ALGORITHM",
    "ALG",
    "DOMAIN",
    "USER",
    "USERNAME",
    "EMAIL",
    "REGION",
    "ADDRESS",
    "MANAGER",
    "HELPER",
    "COMMAND",
    "CMD",
    "PROGRAM",
    "COUNT",
    "LIMIT",
    "DEBUG",
    "LEVEL",
];

/// True when an environment variable of this name holds a secret.
pub fn secret_name(name: &str) -> bool {
    if name == "PWD" || name == "OLDPWD" {
        return false;
    }
    let parts: Vec<&str> = name.split('_').filter(|p| !p.is_empty()).collect();
    let Some(last) = parts.last() else { return false };
    if BENIGN_LAST.contains(last) || parts.iter().any(|p| *p == "PUBLIC" || *p == "PUB") {
        return false;
    }
    parts
        .iter()
        .any(|p| (STRONG_PARTS.iter().any(|s| p.contains(s)) && !p.contains("TOKENIZ")) || EXACT_PARTS.contains(p))
        || LAST_PARTS.contains(last)
}

pub(crate) fn find(t: &[u8], out: &mut Vec<(usize, usize)>) {
    let n = t.len();
    for eq in memchr::memchr_iter(b'=', t) {
        // The name: [A-Z0-9_]+ ending right before `=`.
        let mut s = eq;
        while s > 0 && (t[s - 1].is_ascii_uppercase() || t[s - 1].is_ascii_digit() || t[s - 1] == b'_') && eq - s < 100
        {
            s -= 1;
        }
        if s == eq || !t[s].is_ascii_uppercase() || !boundary_before(t, s) {
            continue;
        }
        if s > 0 && matches!(t[s - 1], b'.' | b'$' | b'-' | b'/') {
            continue;
        }
        let Ok(name) = std::str::from_utf8(&t[s..eq]) else { continue };
        if !secret_name(name) {
            continue;
        }
        // The value.
        let mut v = eq + 1;
        if v < n && t[v] == b'=' {
            continue;
        }
        while v < n && t[v] == b'\\' {
            v += 1;
        }
        let (vs, ve);
        if v < n && matches!(t[v], b'"' | b'\'') {
            let q = t[v];
            vs = v + 1;
            let mut e = vs;
            while e < n && t[e] != q && t[e] != b'\n' {
                if t[e] == b'\\' && e + 1 < n && t[e + 1] == q {
                    break;
                }
                e += 1;
            }
            ve = e;
        } else {
            vs = eq + 1;
            let mut e = vs;
            while e < n
                && !matches!(t[e], b' ' | b'\t' | b'\n' | b'\r' | b';' | b'&' | b'|' | b'`' | b')' | b'"' | b'\'')
            {
                if t[e] == b'\\' && e + 1 < n && matches!(t[e + 1], b'n' | b'r' | b't' | b'"' | b'\'') {
                    break;
                }
                e += 1;
            }
            ve = e;
        }
        if ve <= vs {
            continue;
        }
        let Ok(val) = std::str::from_utf8(&t[vs..ve]) else { continue };
        let short_number = val.len() <= 6 && val.bytes().all(|c| c.is_ascii_digit());
        if is_placeholder(val) || short_number || val.eq_ignore_ascii_case("yes") || val.eq_ignore_ascii_case("no") {
            continue;
        }
        out.push((vs, ve));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(s: &str) -> Vec<&str> {
        let mut out = Vec::new();
        find(s.as_bytes(), &mut out);
        out.into_iter().map(|(a, b)| &s[a..b]).collect()
    }

    #[test]
    fn names() {
        for n in ["GITHUB_TOKEN", "DB_PASSWORD", "AWS_SECRET_ACCESS_KEY", "STRIPE_KEY", "SENTRY_DSN", "APP_SESSION"] {
            assert!(secret_name(n), "{n}");
        }
        for n in [
            "PWD",
            "SSH_AUTH_SOCK",
            "KEY_PATH",
            "HOME",
            "XDG_SESSION_TYPE",
            "NEXT_PUBLIC_API_KEY",
            "MONKEY",
            "TOKENIZERS_PARALLELISM",
        ] {
            assert!(!secret_name(n), "{n}");
        }
    }

    #[test]
    fn values() {
        assert_eq!(run("HOME=/home/x\nMY_TOKEN=abc123def\nSHELL=/bin/bash"), ["abc123def"]);
        assert_eq!(run("export API_KEY=\"k-123 456\" && run"), ["k-123 456"]);
        assert_eq!(run("{\"out\":\"A=1\\nDB_PASSWORD=s3cr3tpw\\nB=2\"}"), ["s3cr3tpw"]);
        assert_eq!(run("\\\"SECRET_KEY=\\\"zz9yy8\\\"\\\""), ["zz9yy8"]);
        assert!(run("GITHUB_TOKEN=$GH_TOKEN TOKEN_COUNT=5 X_TOKEN= a==b FOO_KEY=true").is_empty());
    }
}
