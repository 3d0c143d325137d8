//! Text cut short for output, in one place: titles and first prompts, tool summaries, tool
//! outputs cut to so many characters, and the line of context around a search's match. A cut
//! never falls inside a redaction marker (`[REDACTED:github-token#1]`, `/home/[user]/src`,
//! [`crate::redact::marker_around`]): a marker it would split is kept whole. An output that
//! redacts redacts the whole text first and cuts the redacted text, so no cut can leave a piece
//! of a secret that the redaction no longer recognises.

use crate::redact::marker_around;

/// Where a cut at byte `at` of `text` ends a part that runs up to it: `at` itself, or the end
/// of the marker it would split (the marker is kept). `at` is moved up to a char boundary.
pub fn end_at(text: &str, at: usize) -> usize {
    let at = ceil_boundary(text, at);
    marker_around(text, at).map_or(at, |marker| marker.end)
}

/// Where a cut at byte `at` of `text` starts a part that runs from it: `at` itself, or the start
/// of the marker it would split (the marker is kept). `at` is moved down to a char boundary.
pub fn start_at(text: &str, at: usize) -> usize {
    let at = floor_boundary(text, at);
    marker_around(text, at).map_or(at, |marker| marker.start)
}

/// The byte where the first `chars` characters of `text` end.
pub fn char_end(text: &str, chars: usize) -> usize {
    text.char_indices().nth(chars).map_or(text.len(), |(at, _)| at)
}

/// The first `max_chars` characters of `text`, followed by `…` when there was more; a marker
/// the cut would split is kept whole.
pub fn prefix(text: &str, max_chars: usize) -> String {
    let end = end_at(text, char_end(text, max_chars));
    if end >= text.len() {
        return text.to_owned();
    }
    let mut out = String::with_capacity(end + '…'.len_utf8());
    out.push_str(&text[..end]);
    out.push('…');
    out
}

/// A match in a line of context: the context, and where the match is in it (in chars).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Excerpt {
    pub text: String,
    pub match_start: u32,
    pub match_len: u32,
}

/// One line of context around the match `start..end` (byte offsets of `text`): about
/// `context_chars` characters on each side, widened to keep whole any marker the window would
/// split, with `…` where the text goes on, and line breaks and tabs shown as spaces.
pub fn around(text: &str, start: usize, end: usize, context_chars: usize) -> Excerpt {
    let start = floor_boundary(text, start.min(text.len()));
    let end = ceil_boundary(text, end.clamp(start, text.len()));
    let before = text[..start].char_indices().rev().nth(context_chars.saturating_sub(1)).map_or(0, |(at, _)| at);
    let before = if context_chars == 0 { start } else { start_at(text, before) };
    let after = end_at(text, end + char_end(&text[end..], context_chars));
    let flat = |s: &str| s.replace(['\n', '\r', '\t'], " ");
    let mut context = String::new();
    if before > 0 {
        context.push('…');
    }
    context.push_str(&flat(&text[before..start]));
    let match_start = context.chars().count() as u32;
    let matched = flat(&text[start..end]);
    let match_len = matched.chars().count() as u32;
    context.push_str(&matched);
    context.push_str(&flat(&text[end..after]));
    if after < text.len() {
        context.push('…');
    }
    Excerpt { text: context, match_start, match_len }
}

/// Largest char boundary of `s` at or below `i`.
fn floor_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Smallest char boundary of `s` at or above `i`.
fn ceil_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    const MARKER: &str = "[REDACTED:bearer-token#1]";

    /// The text of an excerpt's match.
    fn matched(excerpt: &Excerpt) -> String {
        excerpt.text.chars().skip(excerpt.match_start as usize).take(excerpt.match_len as usize).collect()
    }

    #[test]
    fn a_prefix_keeps_a_marker_it_would_split_whole() {
        assert_eq!(prefix("short", 10), "short");
        assert_eq!(prefix("a longer text", 8), "a longer…");
        assert_eq!(prefix("écrit à la main", 5), "écrit…", "counted in chars");
        let text = format!("call with {MARKER} then more");
        for max in 11..10 + MARKER.len() {
            assert_eq!(prefix(&text, max), format!("call with {MARKER}…"), "cut at {max}");
        }
        assert_eq!(prefix(&text, 10), "call with …", "a cut at the marker's start splits nothing");
        let path = "/home/[user]/src/main.rs";
        assert_eq!(prefix(path, 8), "/home/[user]…");
    }

    #[test]
    fn a_window_never_splits_a_marker_and_still_marks_the_match() {
        let text = format!("{MARKER} is the token, and the kettle boils over at {MARKER} in the end");
        let at = text.find("kettle").unwrap_or_default();
        for context in 1..40 {
            let excerpt = around(&text, at, at + "kettle".len(), context);
            assert_eq!(matched(&excerpt), "kettle", "{context}: {excerpt:?}");
            for part in excerpt.text.split(['…', ' ']) {
                assert!(
                    !part.contains('[') || part.contains(MARKER),
                    "{context}: a marker was cut in {:?}",
                    excerpt.text
                );
                assert!(!part.contains(']') || part.contains(MARKER), "{context}: {:?}", excerpt.text);
            }
        }
        let whole = around(&text, at, at + 6, 200);
        assert_eq!(whole.text, text, "a window wider than the text is the text, without ellipses");
    }

    #[test]
    fn a_window_flattens_lines_and_counts_chars() {
        let excerpt = around("première ligne\nla bouilloire\tchauffe", 16, 29, 5);
        assert_eq!(excerpt.text, "…igne la bouilloire chau…");
        assert_eq!(matched(&excerpt), "la bouilloire");
        let edge = around("kettle", 0, 6, 60);
        assert_eq!((edge.text.as_str(), edge.match_start, edge.match_len), ("kettle", 0, 6));
    }

    #[test]
    fn cuts_land_on_char_boundaries_and_outside_markers() {
        let text = format!("é{MARKER}é");
        for at in 0..=text.len() + 2 {
            let end = end_at(&text, at);
            let start = start_at(&text, at);
            assert!(text.is_char_boundary(end) && text.is_char_boundary(start), "{at}");
            assert!(marker_around(&text, end).is_none() && marker_around(&text, start).is_none(), "{at}");
            assert!(start <= at.min(text.len()) && end >= at.min(text.len()), "{at}");
        }
    }
}
