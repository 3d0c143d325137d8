//! High-entropy tokens: random-looking strings that no format rule knows.
//!
//! A token is a maximal run of `[A-Za-z0-9+/=_-]` (a literal escape such as `\n` in front of it
//! is a separator). It is flagged when all of these hold:
//! - 20 to 1024 characters (trailing `=` padding not counted); longer runs, and runs of 64+
//!   character lines that add up to more than 1 KiB (wrapped base64, PEM certificates), are data;
//! - not hex only (git and sha hashes, with `-`/`_` separators too), not holding a uuid, not a
//!   Claude / API object id (`msg_…`, `toolu_…`, `req_…`, …), not an integrity hash
//!   (`sha512-…`), not an ssh public key body (`AAAAB3Nza…`), not after `h1:` (go.sum);
//! - at least 2 digits, and either upper + lower case + digits with lower-case runs averaging
//!   under 2.6 letters (random text switches case often; `camelCaseWords` do not), or, from 32
//!   characters, one letter case + digits with each at least a fifth of the token;
//! - not path- or identifier-like: when split on `/`, `_`, `-`, no more than one part is a long
//!   plain word;
//! - Shannon entropy of at least 0.8·log2(length), clamped to 3.4..4.6 bits per char.

pub(crate) const MIN_LEN: usize = 20;
const MAX_LEN: usize = 1024;
/// Lines of at least this length, one under another, are treated as one blob.
const BLOB_LINE: usize = 60;

const fn is_tok(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'=' | b'_' | b'-')
}

/// Prefixes of ids that appear in every log (Anthropic, OpenAI, Stripe objects, …).
const ID_PREFIXES: &[&[u8]] = &[
    b"msg_",
    b"toolu_",
    b"srvtoolu_",
    b"req_",
    b"file_",
    b"sess_",
    b"resp_",
    b"batch_",
    b"call_",
    b"chatcmpl-",
    b"run_",
    b"thread_",
    b"asst_",
    b"agent-",
    b"compact_",
    b"cus_",
    b"pi_",
    b"ch_",
    b"evt_",
    b"prod_",
    b"price_",
    b"sub_",
    b"in_",
    b"acct_",
];

fn is_uuid_at(t: &[u8], i: usize) -> bool {
    const DASHES: [usize; 4] = [8, 13, 18, 23];
    if i + 36 > t.len() {
        return false;
    }
    t[i..i + 36].iter().enumerate().all(|(k, &c)| if DASHES.contains(&k) { c == b'-' } else { c.is_ascii_hexdigit() })
}

/// Whether `t` is a uuid (36 characters, hex digits and dashes at their places).
pub(crate) fn is_uuid(t: &[u8]) -> bool {
    t.len() == 36 && is_uuid_at(t, 0)
}

fn has_uuid(t: &[u8]) -> bool {
    t.len() >= 36 && (0..=t.len() - 36).any(|i| t[i].is_ascii_hexdigit() && is_uuid_at(t, i))
}

/// A long plain word: 4+ letters in one case, or a capital followed by 3+ lower case letters.
fn wordy(part: &[u8]) -> bool {
    let letters: Vec<u8> = part.iter().copied().take_while(u8::is_ascii_alphabetic).collect();
    let rest = &part[letters.len()..];
    if letters.len() < 4 || !rest.iter().all(u8::is_ascii_digit) {
        return false;
    }
    letters[1..].iter().all(u8::is_ascii_lowercase) || letters.iter().all(u8::is_ascii_uppercase)
}

pub(crate) fn shannon(t: &[u8]) -> f32 {
    let mut counts = [0u16; 128];
    for &c in t {
        counts[(c & 127) as usize] += 1;
    }
    let n = t.len() as f32;
    let mut h = 0.0f32;
    for &c in counts.iter().filter(|&&c| c > 0) {
        let p = c as f32 / n;
        h -= p * p.log2();
    }
    h
}

/// The flagging decision for one token (see the module docs).
pub(crate) fn is_secretish(t: &[u8], before: &[u8]) -> bool {
    let mut t = t;
    while let [rest @ .., b'='] = t {
        t = rest;
    }
    let n = t.len();
    if !(MIN_LEN..=MAX_LEN).contains(&n) {
        return false;
    }
    let (mut up, mut low, mut dig) = (0usize, 0usize, 0usize);
    let mut hexonly = true;
    for &c in t {
        match c {
            b'A'..=b'Z' => up += 1,
            b'a'..=b'z' => low += 1,
            b'0'..=b'9' => dig += 1,
            _ => {}
        }
        if !(c.is_ascii_hexdigit() || c == b'-' || c == b'_') {
            hexonly = false;
        }
    }
    if hexonly || dig < 2 {
        return false;
    }
    let mixed = up >= 2 && low >= 2;
    if !mixed {
        let letters = up + low;
        if n < 32 || up > 0 && low > 0 || dig * 5 < n || letters * 5 < n {
            return false;
        }
    }
    if ID_PREFIXES.iter().any(|p| t.starts_with(p)) || before.ends_with(b"h1:") {
        return false;
    }
    if [&b"sha1-"[..], b"sha256-", b"sha384-", b"sha512-", b"AAAAB3Nza", b"AAAAC3Nza", b"AAAAE2VjZHNh"]
        .iter()
        .any(|p| t.starts_with(p))
    {
        return false;
    }
    if has_uuid(t) {
        return false;
    }
    if mixed {
        // Mean length of lower-case runs.
        let (mut runs, mut in_run) = (0usize, false);
        for &c in t {
            let l = c.is_ascii_lowercase();
            if l && !in_run {
                runs += 1;
            }
            in_run = l;
        }
        if runs > 0 && low as f32 / runs as f32 >= 2.6 {
            return false;
        }
    }
    if t.contains(&b'/') || t.contains(&b'_') || t.contains(&b'-') {
        let parts = t.split(|&c| matches!(c, b'/' | b'_' | b'-')).filter(|p| !p.is_empty());
        if parts.filter(|p| wordy(p)).count() > 1 {
            return false;
        }
    }
    let thr = (0.8 * (n as f32).log2()).clamp(3.4, 4.6);
    shannon(t) >= thr
}

static TOK: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 256 {
        t[c] = is_tok(c as u8);
        c += 1;
    }
    t
};

/// Appends the high-entropy token ranges of `t`.
pub(crate) fn find(t: &[u8], out: &mut Vec<(usize, usize)>) {
    let n = t.len();
    // Current run of long lines: (total length, out.len() at its start).
    let mut blob: Option<(usize, usize)> = None;
    let mut last_long_end = usize::MAX;
    // Invariant: `i` is 0 or follows a non-token byte, so a run can start at `i`. Runs shorter
    // than MIN_LEN are skipped by probing the byte MIN_LEN - 1 ahead.
    let mut i = 0;
    while i + MIN_LEN <= n {
        let probe = i + MIN_LEN - 1;
        if !TOK[t[probe] as usize] {
            i = probe + 1;
            continue;
        }
        let mut k = probe;
        while k > i && TOK[t[k - 1] as usize] {
            k -= 1;
        }
        if k > i {
            i = k;
            continue;
        }
        let mut e = probe + 1;
        while e < n && TOK[t[e] as usize] {
            e += 1;
        }
        let mut s = i;
        i = e + 1;
        // `\n`, `\t`, `\"`… : the escaped character is not part of the token.
        if s > 0 && t[s - 1] == b'\\' {
            s += 1;
        }
        let len = e - s;
        let joined = last_long_end != usize::MAX && {
            let gap = &t[last_long_end..s];
            gap.len() <= 4 && gap.iter().all(|&c| matches!(c, b'\n' | b'\r' | b'\\' | b'n' | b' '))
        };
        if len >= BLOB_LINE {
            if !joined {
                close_blob(&mut blob, out);
                blob = Some((0, out.len()));
            }
            if let Some(b) = blob.as_mut() {
                b.0 += len;
            }
            last_long_end = e;
        } else if blob.is_some() {
            // The short last line of a wrapped blob belongs to it.
            if joined && let Some(b) = blob.as_mut() {
                b.0 += len;
                if b.0 > MAX_LEN {
                    last_long_end = usize::MAX;
                    close_blob(&mut blob, out);
                    continue;
                }
            }
            close_blob(&mut blob, out);
            last_long_end = usize::MAX;
        }
        if len < MIN_LEN {
            continue;
        }
        let before = &t[s.saturating_sub(3)..s];
        if is_secretish(&t[s..e], before) {
            out.push((s, e));
        }
    }
    close_blob(&mut blob, out);
}

fn close_blob(blob: &mut Option<(usize, usize)>, out: &mut Vec<(usize, usize)>) {
    if let Some((total, first)) = blob.take()
        && total > MAX_LEN
    {
        out.truncate(first);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flagged(s: &str) -> Vec<&str> {
        let mut out = Vec::new();
        find(s.as_bytes(), &mut out);
        out.into_iter().map(|(a, b)| &s[a..b]).collect()
    }

    #[test]
    fn flags_random_tokens() {
        assert_eq!(flagged("key: Zx8Kq2LmP9vR4tWn7YbC3dFh"), ["Zx8Kq2LmP9vR4tWn7YbC3dFh"]);
        assert_eq!(flagged("a\\nZx8Kq2LmP9vR4tWn7YbC3dFh"), ["Zx8Kq2LmP9vR4tWn7YbC3dFh"]);
        assert_eq!(flagged("k8s9d7f6g5h4j3k2l1m0n9b8v7c6x5z4"), ["k8s9d7f6g5h4j3k2l1m0n9b8v7c6x5z4"]);
    }

    #[test]
    fn leaves_ids_hashes_and_words() {
        for s in [
            "258c7280-ae70-4798-800f-63464d01a85d",
            "agent-258c7280-ae70-4798-800f-63464d01a85d",
            "msg_01XyZAbc9dEfGhIjKlMnOpQr",
            "toolu_01UeW27qA9GbyT6uKQgp2VCT",
            "req_011CUa8xYz9LmNoPqRsTuVwX",
            "3f786850e387550fdab836ed7e6dc881de23001b",
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            "getUserAccountSettings2Handler",
            "src/components/UserProfileCard2.tsx",
            "my_long_variable_name_2024_v2",
            "sha512-Zx8Kq2LmP9vR4tWn7YbC3dFhZx8Kq2LmP9vR4tWn7YbC3dFh",
            "SOME_CONSTANT_NAME_WITH_2_DIGITS_9",
            "h1:Zx8Kq2LmP9vR4tWn7YbC3dFh0aB1cD2eF3gH4iJ5kL=",
        ] {
            assert!(flagged(s).is_empty(), "{s}: {:?}", flagged(s));
        }
    }

    #[test]
    fn skips_wrapped_base64_blobs() {
        let line = "GTd7FguoV8FWnFbB0JxXujr4qqaaABvvLOzAxzXMcU1vsHiQMaRiNTN9Ox98whGc";
        let blob = vec![line; 30].join("\n");
        assert!(flagged(&blob).is_empty());
        let tail = format!("{blob}\\nGTd7FguoV8FWnFbB0JxXujr4qqaa==\\n\\nnext Zx8Kq2LmP9vR4tWn7YbC3dFh");
        assert_eq!(flagged(&tail), ["Zx8Kq2LmP9vR4tWn7YbC3dFh"]);
        let short = [line; 2].join("\n");
        assert_eq!(flagged(&short).len(), 2);
    }
}
