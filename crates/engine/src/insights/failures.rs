//! Failed tool calls in words that group: the text of a tool result, its first line, and that
//! line masked (numbers, paths, ids, hashes and quoted text made placeholders), so that the same
//! failure met in other files, at other lines or with other ids is one group, and different
//! failures stay apart.

use std::borrow::Cow;

/// Bytes of a result read for its message: an error says why in its first lines.
const MESSAGE_BYTES: usize = 4096;
/// Characters of a failure's message kept.
pub const MESSAGE_CHARS: usize = 200;

/// The text of a tool result's body (raw JSON: a string, or an array of text blocks), its first
/// [`MESSAGE_BYTES`] at most.
pub fn result_text(body: &[u8]) -> String {
    if body.len() <= PARSED_BYTES
        && let Ok(value) = serde_json::from_slice::<serde_json::Value>(body)
    {
        return match value {
            serde_json::Value::String(text) => text,
            serde_json::Value::Array(blocks) => blocks
                .iter()
                .filter_map(|b| b.get("text").and_then(|t| t.as_str()).or_else(|| b.as_str()))
                .collect::<Vec<_>>()
                .join("\n"),
            other => other.to_string(),
        };
    }
    // Too big to parse here (a long output that failed): its first bytes, as text.
    let head = &body[..body.len().min(MESSAGE_BYTES)];
    String::from_utf8_lossy(head).trim_start_matches(['"', '[', '{']).replace("\\n", "\n")
}

/// Bodies up to this size are parsed to find their text.
const PARSED_BYTES: usize = 1 << 16;

/// A failure's message: the first line of its text that says something, without the tags
/// Claude Code wraps errors in, at most [`MESSAGE_CHARS`] characters.
pub fn message_of(text: &str) -> String {
    let text = text.replace("<tool_use_error>", "").replace("</tool_use_error>", "");
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.eq_ignore_ascii_case("error") && *l != "Error:")
        .unwrap_or("");
    let line = line.strip_prefix("Error: ").unwrap_or(line);
    line.chars().take(MESSAGE_CHARS).collect()
}

/// The message with what differs between occurrences of one failure made placeholders: quoted
/// text `"…"`, paths `<path>`, ids and hashes `<id>`, numbers `N`. Two messages that differ only
/// there mask the same; masking a masked message changes nothing.
pub fn mask(message: &str) -> String {
    let mut tokens = String::with_capacity(message.len());
    for (i, token) in message.split(' ').enumerate() {
        if i > 0 {
            tokens.push(' ');
        }
        tokens.push_str(&mask_token(token));
    }
    mask_quotes(&tokens).into_owned()
}

/// Quoted text (`"…"`, `'…'`, `` `…` ``) as its quotes around `…`.
fn mask_quotes(message: &str) -> Cow<'_, str> {
    if !message.contains(['"', '\'', '`']) {
        return Cow::Borrowed(message);
    }
    let mut out = String::with_capacity(message.len());
    let mut chars = message.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        let is_quote = matches!(c, '"' | '`') || (c == '\'' && opens_quote(message, at));
        if !is_quote {
            out.push(c);
            continue;
        }
        match message[at + c.len_utf8()..].find(c) {
            Some(len) => {
                out.push(c);
                out.push('…');
                out.push(c);
                let end = at + c.len_utf8() + len;
                while chars.peek().is_some_and(|&(i, _)| i <= end) {
                    chars.next();
                }
            }
            None => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Whether a `'` at `at` opens a quote, not an apostrophe (`doesn't`).
fn opens_quote(message: &str, at: usize) -> bool {
    message[..at].chars().next_back().is_none_or(|before| !before.is_alphanumeric())
}

fn mask_token(token: &str) -> Cow<'_, str> {
    // Punctuation around a token stays: `(line 12)`, `path:`.
    let starts = |c: char| c.is_alphanumeric() || matches!(c, '/' | '\\' | '.' | '~' | '<' | '…');
    let ends = |c: char| c.is_alphanumeric() || matches!(c, '/' | '\\' | '>' | '…');
    let start = token.find(starts).unwrap_or(token.len());
    let end = token.char_indices().rev().find(|&(_, c)| ends(c)).map_or(start, |(e, c)| e + c.len_utf8()).max(start);
    let (before, core, after) = (&token[..start], &token[start..end], &token[end..]);
    if core.is_empty() || core.starts_with('<') || core.contains('…') {
        return Cow::Borrowed(token);
    }
    let masked = if is_path(core) {
        "<path>"
    } else if is_id(core) {
        "<id>"
    } else if core.chars().any(|c| c.is_ascii_digit()) {
        return Cow::Owned(format!("{before}{}{after}", mask_numbers(core)));
    } else {
        return Cow::Borrowed(token);
    };
    Cow::Owned(format!("{before}{masked}{after}"))
}

/// A path: a URL, or a token with a separator that starts like a path or has something on
/// each side of one.
fn is_path(token: &str) -> bool {
    if token.contains("://") {
        return true;
    }
    let separators = token.chars().filter(|c| matches!(c, '/' | '\\')).count();
    separators > 0 && (token.starts_with(['/', '~', '.', '\\']) || token.len() > separators)
}

/// An id or a hash: long runs of hex, uuids, or letters and digits mixed with `_` or `-` (such
/// as `toolu_01ABcd…`).
fn is_id(token: &str) -> bool {
    let letters = token.chars().filter(|c| c.is_ascii_alphabetic()).count();
    let digits = token.chars().filter(|c| c.is_ascii_digit()).count();
    let hex = token.chars().all(|c| c.is_ascii_hexdigit() || c == '-');
    (hex && token.len() >= 7 && digits > 0 && letters > 0)
        || (token.len() >= 12
            && digits >= 2
            && letters >= 2
            && token.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-')))
}

/// Every run of digits (with its decimal point) as `N`.
fn mask_numbers(token: &str) -> String {
    let mut out = String::with_capacity(token.len());
    let mut in_number = false;
    for c in token.chars() {
        if c.is_ascii_digit() || (in_number && c == '.') {
            if !in_number {
                out.push('N');
                in_number = true;
            }
        } else {
            in_number = false;
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_failure_in_other_places_masks_the_same() {
        let same = [
            ("File does not exist: /home/ann/app/src/lib.rs", "File does not exist: /srv/x/main.py"),
            ("Command failed with exit code 101", "Command failed with exit code 2"),
            ("String to replace not found in file (line 12)", "String to replace not found in file (line 480)"),
            ("No such tool: toolu_01AbCdEf23GhIjKl", "No such tool: toolu_09ZzYyXx88WwVvUu"),
            ("blob 3f9a0c7e1b2d not found", "blob a1b2c3d4e5f6 not found"),
            ("error: unexpected token 'foo' at 3:14", "error: unexpected token 'barbaz' at 120:7"),
            ("Timed out after 120.5 s", "Timed out after 30 s"),
        ];
        for (a, b) in same {
            assert_eq!(mask(a), mask(b), "{a} / {b}");
        }
        let apart = [
            ("File does not exist: a/b.rs", "Permission denied: a/b.rs"),
            ("Command failed with exit code 1", "Command timed out after 1"),
            ("error[E0308]: mismatched types", "error[E0425]: cannot find value"),
        ];
        for (a, b) in apart {
            assert_ne!(mask(a), mask(b), "{a} / {b}");
        }
        assert_eq!(mask("File does not exist: /p/src/lib.rs."), "File does not exist: <path>.");
        assert_eq!(mask("it doesn't parse"), "it doesn't parse", "an apostrophe is no quote");
    }

    #[test]
    fn a_message_is_the_first_line_that_says_something() {
        assert_eq!(message_of("<tool_use_error>File does not exist.</tool_use_error>"), "File does not exist.");
        assert_eq!(message_of("\n\nError: boom\nmore"), "boom");
        assert_eq!(message_of(&"x".repeat(500)).chars().count(), MESSAGE_CHARS);
        assert_eq!(result_text(br#""plain""#), "plain");
        assert_eq!(result_text(br#"[{"type":"text","text":"one"},{"type":"text","text":"two"}]"#), "one\ntwo");
        let huge = format!("\"{}", "y".repeat(100_000));
        assert!(result_text(huge.as_bytes()).starts_with("yyy"), "a body too big to parse gives its first bytes");
    }

    mod properties {
        use super::super::mask;
        use proptest::prelude::*;

        fn word() -> impl Strategy<Value = String> {
            "[a-z]{3,10}"
        }

        proptest! {
            #[test]
            fn masking_is_idempotent(message in "[ -~]{0,80}") {
                let once = mask(&message);
                prop_assert_eq!(mask(&once), once.clone());
            }

            #[test]
            fn numbers_paths_and_ids_do_not_part_a_group(
                words in proptest::collection::vec(word(), 1..6),
                a in 0u32..100_000, b in 0u32..100_000,
                dir_a in "[a-z]{1,8}", dir_b in "[a-z]{1,8}",
                hex_a in "[0-9a-f]{12}", hex_b in "[0-9a-f]{12}",
            ) {
                let text = words.join(" ");
                let one = format!("{text} at /{dir_a}/x.rs line {a} id 9{hex_a}f");
                let two = format!("{text} at /{dir_b}/y.rs line {b} id 9{hex_b}f");
                prop_assert_eq!(mask(&one), mask(&two));
            }

            #[test]
            fn different_words_stay_apart(a in proptest::collection::vec(word(), 1..6), b in proptest::collection::vec(word(), 1..6)) {
                prop_assume!(a != b);
                prop_assert_ne!(mask(&a.join(" ")), mask(&b.join(" ")));
            }
        }
    }
}
