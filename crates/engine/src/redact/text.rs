//! Byte helpers shared by the detectors.
//!
//! Detectors see decoded string values, but those often hold JSON or shell text of their own
//! (a config printed by `cat`, an escaped JSON string inside a tool output). Boundaries therefore
//! treat a literal escape such as `\n` or `\t` in front of a token as a separator.

/// ASCII letter, digit or underscore.
#[inline]
pub(crate) fn is_word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// True when a token starting at `i` is not glued to a word on its left. A literal escape
/// (`\n`, `\r`, `\t`) right before `i` counts as a separator.
#[inline]
pub(crate) fn boundary_before(t: &[u8], i: usize) -> bool {
    if i == 0 {
        return true;
    }
    let p = t[i - 1];
    if !is_word(p) {
        return true;
    }
    i >= 2 && t[i - 2] == b'\\' && matches!(p, b'n' | b'r' | b't')
}

/// True when a token ending at `end` (exclusive) is not glued to a word on its right.
#[inline]
pub(crate) fn boundary_after(t: &[u8], end: usize) -> bool {
    end >= t.len() || !is_word(t[end])
}

/// Widens a byte range to char boundaries of `s`.
pub(crate) fn snap(s: &str, mut start: usize, mut end: usize) -> (usize, usize) {
    start = start.min(s.len());
    end = end.clamp(start, s.len());
    while !s.is_char_boundary(start) {
        start -= 1;
    }
    while !s.is_char_boundary(end) {
        end += 1;
    }
    (start, end)
}

/// Largest char boundary of `s` at or below `i`.
pub(crate) fn floor_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Smallest char boundary of `s` at or above `i`.
pub(crate) fn ceil_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// Values that stand for a secret rather than being one: `changeme`, `<token>`, `${VAR}`,
/// `xxxx`, `****`, `your-api-key`, type names, booleans, …
pub(crate) fn is_placeholder(v: &str) -> bool {
    let b = v.as_bytes();
    if b.is_empty() {
        return true;
    }
    if b.iter().all(|&c| c == b[0]) {
        return true;
    }
    if matches!(b[0], b'$' | b'%' | b'<' | b'{' | b'[' | b'(' | b'#' | b'*' | b'&') {
        return true;
    }
    let lower = v.to_ascii_lowercase();
    const WORDS: &[&str] = &[
        "password",
        "passwd",
        "secret",
        "token",
        "null",
        "none",
        "nil",
        "true",
        "false",
        "undefined",
        "string",
        "str",
        "bool",
        "boolean",
        "int",
        "number",
        "bytes",
        "object",
        "optional",
        "required",
        "hidden",
        "empty",
        "changeme",
        "change_me",
        "redacted",
        "masked",
        "secretstr",
        "default",
        "value",
        "test",
        "testing",
        "admin",
        "username",
        "user",
        "pass",
    ];
    if WORDS.contains(&lower.as_str()) {
        return true;
    }
    const PARTS: &[&str] = &[
        "xxxx",
        "****",
        "....",
        "${",
        "{{",
        "example",
        "placeholder",
        "changeme",
        "change_me",
        "redacted",
        "your_",
        "your-",
        "yourpass",
        "yourtoken",
        "yoursecret",
        "<your",
        "process.env",
        "os.environ",
        "getenv",
        "env.",
        "env[",
        "secrets.",
        "dummy",
        "sample",
        "insert_",
        "replace_me",
        "replace-me",
        "todo",
    ];
    PARTS.iter().any(|p| lower.contains(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boundaries_treat_literal_escapes_as_separators() {
        let t = br"a\nghp_x";
        assert!(boundary_before(t, 3));
        assert!(!boundary_before(b"xghp", 1));
        assert!(boundary_before(b" ghp", 1));
        assert!(boundary_after(b"ab\\n", 2));
        assert!(!boundary_after(b"abc", 2));
    }

    #[test]
    fn placeholders() {
        for p in ["", "xxxxxxxx", "${TOKEN}", "<your-token>", "changeme", "your_api_key_here", "****", "None"] {
            assert!(is_placeholder(p), "{p}");
        }
        for s in ["hunter2xyz", "Zk3pQ9vLm2", "s3cr3t-Pa55"] {
            assert!(!is_placeholder(s), "{s}");
        }
    }
}
