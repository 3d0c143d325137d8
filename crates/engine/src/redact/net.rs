//! Email and IP addresses.
//!
//! Emails: `local@domain.tld` with an alphabetic TLD. Not flagged: role and robot senders
//! (`noreply@…`, `no-reply@…`, `git@…` ssh remotes, `mailer-daemon@…`, `postmaster@…`), the
//! reserved example domains (`example.com/.org/.net`, `*.example`, `*.test`, `*.invalid`,
//! `*.localhost`, `*.local`), `name@2x.png`-style file names (TLD is a file extension), and URL
//! user info (`https://user:pw@host`, handled by the connection-string rule). GitHub's
//! `123+handle@users.noreply.github.com` addresses are flagged: they name a person.
//!
//! IP addresses: IPv4 and IPv6 that route on the public internet (documentation ranges count as
//! public, so examples in a log get flagged too). Not flagged: loopback, unspecified, private
//! (10/8, 172.16/12, 192.168/16, fc00::/7), link-local, CGNAT (100.64/10), multicast and
//! reserved (224/3), addresses ending in `.0` (networks, and most `x.y.z.0` versions), and
//! dotted numbers that read as versions (after `version`, `v`, a `Product/` slash, or part of a
//! longer dotted run like `1.2.3.4.5`).

use std::net::Ipv6Addr;

use super::text::{boundary_before, is_word};

#[inline]
fn local_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'%' | b'+' | b'-')
}

#[inline]
fn domain_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'.' | b'-')
}

const ROBOT_LOCALS: &[&str] =
    &["noreply", "no-reply", "donotreply", "do-not-reply", "git", "mailer-daemon", "postmaster", "no_reply"];

const FILE_TLDS: &[&str] = &[
    "png", "jpg", "jpeg", "gif", "svg", "webp", "ico", "bmp", "js", "mjs", "cjs", "ts", "tsx", "jsx", "css", "scss",
    "json", "html", "htm", "md", "txt", "py", "rs", "go", "rb", "java", "kt", "swift", "yaml", "yml", "toml", "lock",
    "xml", "pdf", "zip", "gz", "tar", "wasm", "map", "vue", "svelte", "php", "sh", "avif", "woff", "woff2", "ttf",
];

fn reserved_domain(d: &str) -> bool {
    let d = d.to_ascii_lowercase();
    ["example.com", "example.org", "example.net"].iter().any(|e| d == *e || d.ends_with(&format!(".{e}")))
        || d.starts_with("example.")
        || [".example", ".test", ".invalid", ".localhost", ".local"].iter().any(|e| d.ends_with(e))
}

pub(crate) fn find_emails(t: &[u8], out: &mut Vec<(usize, usize)>) {
    for at in memchr::memchr_iter(b'@', t) {
        let mut s = at;
        while s > 0 && local_char(t[s - 1]) && at - s < 64 {
            s -= 1;
        }
        // `\nalice@…`: the escaped `n` is not part of the address.
        if s >= 1 && s < at && t[s - 1] == b'\\' && matches!(t[s], b'n' | b'r' | b't') {
            s += 1;
        }
        while s < at && matches!(t[s], b'.' | b'-' | b'+') {
            s += 1;
        }
        if s == at || t[at - 1] == b'.' {
            continue;
        }
        if s > 0 && (t[s - 1] == b':' || t[s - 1] == b'/' || t[s - 1] == b'@') {
            continue;
        }
        let mut e = at + 1;
        while e < t.len() && domain_char(t[e]) && e - at < 255 {
            e += 1;
        }
        while e > at + 1 && matches!(t[e - 1], b'.' | b'-') {
            e -= 1;
        }
        let domain = &t[at + 1..e];
        let Some(dot) = domain.iter().rposition(|&c| c == b'.') else { continue };
        let tld = &domain[dot + 1..];
        if tld.len() < 2 || tld.len() > 24 || !tld.iter().all(u8::is_ascii_alphabetic) {
            continue;
        }
        if domain.split(|&c| c == b'.').any(|l| l.is_empty() || l[0] == b'-') {
            continue;
        }
        let (Ok(local), Ok(dom)) = (std::str::from_utf8(&t[s..at]), std::str::from_utf8(domain)) else { continue };
        let tld_s = &dom[dot + 1..];
        if ROBOT_LOCALS.iter().any(|r| r.eq_ignore_ascii_case(local))
            || FILE_TLDS.iter().any(|f| f.eq_ignore_ascii_case(tld_s))
            || reserved_domain(dom)
        {
            continue;
        }
        out.push((s, e));
    }
}

fn is_public_v4(o: [u8; 4]) -> bool {
    !(o[0] == 0
        || o[0] == 10
        || o[0] == 127
        || o[0] >= 224
        || (o[0] == 172 && (16..32).contains(&o[1]))
        || (o[0] == 192 && o[1] == 168)
        || (o[0] == 169 && o[1] == 254)
        || (o[0] == 100 && (64..128).contains(&o[1]))
        || o[3] == 0)
}

fn versionish_before(t: &[u8], s: usize) -> bool {
    let lo = s.saturating_sub(12);
    let before = t[lo..s].to_ascii_lowercase();
    let trimmed = before.trim_ascii_end();
    let trimmed = trimmed.strip_suffix(b":").unwrap_or(trimmed).trim_ascii_end();
    if trimmed.ends_with(b"version") || trimmed.ends_with(b"ver") || trimmed.ends_with(b"release") {
        return true;
    }
    // `Chrome/120.0.0.1` but not `http://1.2.3.4`.
    s >= 2 && t[s - 1] == b'/' && t[s - 2].is_ascii_alphanumeric()
}

pub(crate) fn find_ipv4(t: &[u8], out: &mut Vec<(usize, usize)>) {
    let n = t.len();
    let mut next = 0;
    // Every address has a dot between two digits: look only there.
    for d in memchr::memchr_iter(b'.', t) {
        if d < next || d == 0 || d + 1 >= n || !t[d - 1].is_ascii_digit() || !t[d + 1].is_ascii_digit() {
            continue;
        }
        let mut s = d - 1;
        while s > 0 && t[s - 1].is_ascii_digit() && d - s < 4 {
            s -= 1;
        }
        if !(boundary_before(t, s) && (s == 0 || t[s - 1] != b'.')) {
            next = skip_dotted(t, d);
            continue;
        }
        let mut oct = [0u8; 4];
        let mut k = 0;
        let mut j = s;
        let ok = loop {
            let ds = j;
            let mut v: u32 = 0;
            while j < n && t[j].is_ascii_digit() && j - ds < 4 {
                v = v * 10 + (t[j] - b'0') as u32;
                j += 1;
            }
            let len = j - ds;
            if len == 0 || len > 3 || v > 255 || (len > 1 && t[ds] == b'0') {
                break false;
            }
            oct[k] = v as u8;
            k += 1;
            if k == 4 {
                break true;
            }
            if j < n && t[j] == b'.' {
                j += 1;
            } else {
                break false;
            }
        };
        next = skip_dotted(t, j);
        if !ok {
            continue;
        }
        let longer = j < n && (is_word(t[j]) || (t[j] == b'.' && j + 1 < n && t[j + 1].is_ascii_digit()));
        if !longer && is_public_v4(oct) && !versionish_before(t, s) {
            out.push((s, j));
        }
    }
}

/// End of the run of digits and dots at `i`.
fn skip_dotted(t: &[u8], mut i: usize) -> usize {
    while i < t.len() && (t[i].is_ascii_digit() || t[i] == b'.') {
        i += 1;
    }
    i
}

#[inline]
fn v6_char(c: u8) -> bool {
    c.is_ascii_hexdigit() || c == b':' || c == b'.'
}

fn is_public_v6(a: &Ipv6Addr) -> bool {
    let s = a.segments();
    !(a.is_unspecified()
        || a.is_loopback()
        || (s[0] & 0xfe00) == 0xfc00
        || (s[0] & 0xffc0) == 0xfe80
        || (s[0] & 0xff00) == 0xff00
        || a.to_ipv4_mapped().is_some()
        || s[..6].iter().all(|&x| x == 0))
}

pub(crate) fn find_ipv6(t: &[u8], out: &mut Vec<(usize, usize)>) {
    let n = t.len();
    let mut next = 0;
    for c in memchr::memchr_iter(b':', t) {
        if c < next {
            continue;
        }
        let mut s = c;
        while s > 0 && v6_char(t[s - 1]) {
            s -= 1;
        }
        let mut e = c;
        while e < n && v6_char(t[e]) {
            e += 1;
        }
        next = e;
        while e > s && t[e - 1] == b'.' {
            e -= 1;
        }
        while s < e && t[s] == b'.' {
            s += 1;
        }
        let cand = &t[s..e];
        if cand.len() < 6 || cand.iter().filter(|&&c| c == b':').count() < 2 {
            continue;
        }
        // Not glued to identifiers (`std::…`), escapes aside.
        if !boundary_before(t, s) || (e < n && (is_word(t[e]) || t[e] == b':')) {
            continue;
        }
        if cand.split(|&c| c == b':').filter(|g| !g.is_empty()).count() < 3 || !cand.iter().any(u8::is_ascii_digit) {
            continue;
        }
        let Ok(txt) = std::str::from_utf8(cand) else { continue };
        if let Ok(addr) = txt.parse::<Ipv6Addr>()
            && is_public_v6(&addr)
        {
            out.push((s, e));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(f: fn(&[u8], &mut Vec<(usize, usize)>), s: &str) -> Vec<String> {
        let mut out = Vec::new();
        f(s.as_bytes(), &mut out);
        out.into_iter().map(|(a, b)| s[a..b].to_string()).collect()
    }

    #[test]
    fn emails() {
        assert_eq!(run(find_emails, "mail alice.smith+x@acme-corp.io."), ["alice.smith+x@acme-corp.io"]);
        assert_eq!(run(find_emails, "a\\nbob@corp.dev"), ["bob@corp.dev"]);
        assert_eq!(run(find_emails, "1+octo@users.noreply.github.com"), ["1+octo@users.noreply.github.com"]);
        for s in [
            "git@github.com:org/repo.git",
            "Co-Authored-By: Claude <noreply@anthropic.com>",
            "icon@2x.png",
            "pkg@1.2.3",
            "dev@example.invalid",
            "a@example.com",
            "https://user:pw@host.com/x",
            "@types/node",
        ] {
            assert!(run(find_emails, s).is_empty(), "{s}");
        }
    }

    #[test]
    fn ipv4() {
        assert_eq!(run(find_ipv4, "ssh root@203.0.113.54 -p 22"), ["203.0.113.54"]);
        assert_eq!(run(find_ipv4, "x\\n8.8.4.4\\n"), ["8.8.4.4"]);
        assert_eq!(run(find_ipv4, "http://93.184.216.34/"), ["93.184.216.34"]);
        for s in [
            "127.0.0.1",
            "0.0.0.0",
            "192.168.1.20",
            "10.0.0.5",
            "172.20.0.2",
            "version 1.2.3.4",
            "v1.2.3.4",
            "Chrome/120.0.6099.109 Safari/537.36 Chrome/120.1.1.1",
            "1.2.3.4.5",
            "255.255.255.0",
            "1.2.3",
            "256.1.1.1",
            "10.10.0.0",
        ] {
            assert!(run(find_ipv4, s).is_empty(), "{s}");
        }
    }

    #[test]
    fn ipv6() {
        assert_eq!(run(find_ipv6, "addr 2001:db8:85a3::8a2e:370:7334."), ["2001:db8:85a3::8a2e:370:7334"]);
        assert_eq!(run(find_ipv6, "[2606:4700:4700::1111]:443"), ["2606:4700:4700::1111"]);
        for s in ["::1", "fe80::1ff:fe23:4567:890a", "12:34:56", "std::vec::Vec", "aa:bb:cc:dd:ee:ff", "dead::beef"] {
            assert!(run(find_ipv6, s).is_empty(), "{s}");
        }
    }
}
