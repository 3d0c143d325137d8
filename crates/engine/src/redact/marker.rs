//! The markers that stand for findings in a redacted text, made and recognised in one place:
//! `[REDACTED:<kind>#<n>]` (or `[REDACTED:<kind>]` for a secret the scan did not number), and
//! `[user]` or `[user#<n>]` for a user name. An output that cuts a redacted text asks
//! [`marker_around`] so that a cut never splits one (`crate::cut`).

use std::ops::Range;

use super::Kind;

/// No marker is longer than this many bytes (the longest kind id is about 20 characters).
const MARKER_MAX: usize = 64;

/// The marker of a finding of `kind`, numbered `number` (a user name's first number is shown
/// as `[user]`; `None` for a secret the scan did not see).
pub(crate) fn marker(kind: Kind, number: Option<u32>) -> String {
    match (kind, number) {
        (Kind::HomeUser | Kind::UserName, Some(n)) if n > 1 => format!("[user#{n}]"),
        (Kind::HomeUser | Kind::UserName, _) => "[user]".to_owned(),
        (_, Some(n)) => format!("[REDACTED:{}#{n}]", kind.id()),
        (_, None) => format!("[REDACTED:{}]", kind.id()),
    }
}

/// The length in bytes of the marker at the start of `bytes`, if one starts there.
fn marker_len(bytes: &[u8]) -> Option<usize> {
    let name_end = if bytes.starts_with(b"[REDACTED:") {
        let id = b"[REDACTED:".len();
        let len =
            bytes[id..].iter().take_while(|&&b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-').count();
        (len > 0).then_some(id + len)?
    } else if bytes.starts_with(b"[user") {
        b"[user".len()
    } else {
        return None;
    };
    let mut end = name_end;
    if bytes.get(end) == Some(&b'#') {
        let digits = bytes[end + 1..].iter().take_while(|b| b.is_ascii_digit()).count();
        if digits == 0 {
            return None;
        }
        end += 1 + digits;
    }
    (bytes.get(end) == Some(&b']')).then_some(end + 1)
}

/// The marker that byte `at` of `text` falls strictly inside (after its first byte, before its
/// end), if any: a cut there would split it.
pub fn marker_around(text: &str, at: usize) -> Option<Range<usize>> {
    let bytes = text.as_bytes();
    if at == 0 || at >= bytes.len() {
        return None;
    }
    // A marker holds no `[` after its first byte: only the nearest one before `at` can open it.
    let from = at.saturating_sub(MARKER_MAX);
    let open = (from..at).rev().find(|&i| bytes[i] == b'[')?;
    let len = marker_len(&bytes[open..])?;
    (open + len > at).then_some(open..open + len)
}

/// Every marker of `text`, in order.
pub fn markers(text: &str) -> Vec<Range<usize>> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    let mut at = 0;
    while let Some(open) = memchr::memchr(b'[', &bytes[at..]).map(|i| at + i) {
        match marker_len(&bytes[open..]) {
            Some(len) => {
                found.push(open..open + len);
                at = open + len;
            }
            None => at = open + 1,
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_are_made_and_found_again() {
        let secret = marker(Kind::Credential("github-token"), Some(3));
        let unseen = marker(Kind::HighEntropy, None);
        let user = marker(Kind::HomeUser, Some(1));
        let second = marker(Kind::UserName, Some(2));
        assert_eq!((secret.as_str(), unseen.as_str()), ("[REDACTED:github-token#3]", "[REDACTED:high-entropy]"));
        assert_eq!((user.as_str(), second.as_str()), ("[user]", "[user#2]"));
        let text = format!("a {secret} b /home/{user}/x {unseen} [not one] [user#] {second}");
        let found: Vec<&str> = markers(&text).into_iter().map(|r| &text[r]).collect();
        assert_eq!(found, [secret.as_str(), user.as_str(), unseen.as_str(), second.as_str()]);
    }

    #[test]
    fn a_byte_inside_a_marker_is_known_as_such() {
        let text = "key [REDACTED:aws-access-key#1] and /home/[user]/src";
        let start = text.find("[REDACTED").unwrap_or_default();
        let end = start + "[REDACTED:aws-access-key#1]".len();
        assert_eq!(marker_around(text, start), None, "a cut at its start splits nothing");
        assert_eq!(marker_around(text, start + 1), Some(start..end));
        assert_eq!(marker_around(text, end - 1), Some(start..end));
        assert_eq!(marker_around(text, end), None);
        let user = text.find("[user]").unwrap_or_default();
        assert_eq!(marker_around(text, user + 3), Some(user..user + 6));
        assert_eq!(marker_around("a [b] c", 3), None);
        assert_eq!(marker_around("", 0), None);
    }
}
