//! Line diffs for the Edit, MultiEdit and Write tool calls: computed from two strings, or read from the
//! `structuredPatch` that Claude Code stores in the tool result; and the changed words inside changed lines.
//!
//! The line diff is the `similar` crate's Myers diff, bounded by a deadline: past it, the crate gives up
//! on the stretch it is working on and reports it as removed and added lines, so the work stays bounded
//! however different two texts are. Changed words are marked by diffing the words of a run of removed
//! lines against the words of the added lines that follow it, also under a deadline, and only where the
//! run is small enough and the lines still share most of their words.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use sessionscope_engine::small_json::{self, Value};
use similar::{Algorithm, DiffOp, Instant};

/// The unchanged lines shown around each change of an edit.
pub const CONTEXT_LINES: usize = 3;

/// How long one line diff may search for the shortest edit before it settles for a longer one.
const LINE_DIFF_TIME: Duration = Duration::from_millis(500);
/// How long marking the changed words of one diff may take in all; runs left when it is over are not
/// marked.
const WORD_DIFF_TIME: Duration = Duration::from_millis(100);
/// The most bytes of removed (and, apart, of added) lines whose words are compared.
const MAX_WORD_DIFF_BYTES: usize = 16 * 1024;
/// A line's changed words are marked only when at least this share of its non-blank characters is
/// unchanged; a line that changed more than that reads better as a whole changed line.
const MIN_UNCHANGED_SHARE: f32 = 0.4;

/// What a line of a diff is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum DiffKind {
    /// A line present in both texts.
    Context,
    /// A line only in the new text.
    Added,
    /// A line only in the old text.
    Removed,
    /// The header of a hunk, `@@ -a,b +c,d @@`.
    Hunk,
}

/// A line of a unified diff. Serialized as it crosses from the render module to the page.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiffLine {
    pub kind: DiffKind,
    /// The line's number in the old text (1-based), for context and removed lines.
    pub old_line: Option<u32>,
    /// The line's number in the new text (1-based), for context and added lines.
    pub new_line: Option<u32>,
    /// The line without its `+`, `-` or space prefix (or the header, for a hunk).
    pub text: String,
    /// The line cut into changed and unchanged pieces, which together are `text`; empty when no word
    /// is marked (see [`mark_changed_words`]).
    pub words: Vec<WordSegment>,
}

/// A piece of a changed line: words that the line's counterpart also has, or words that changed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WordSegment {
    pub text: String,
    pub changed: bool,
}

/// Computes a unified diff of two texts, line by line, with `context` unchanged lines around each change.
///
/// Line numbers start at 1 in each string. Hunks closer than twice `context` are merged. Identical texts
/// give no lines. A missing final newline is not reported as a difference.
pub fn diff_lines(old: &str, new: &str, context: usize) -> Vec<DiffLine> {
    diff_lines_until(old, new, context, deadline_after(LINE_DIFF_TIME))
}

/// [`diff_lines`] with the deadline given: `None` searches for as long as it takes.
fn diff_lines_until(old: &str, new: &str, context: usize, deadline: Option<Instant>) -> Vec<DiffLine> {
    let old_lines: Vec<&str> = old.lines().collect();
    let new_lines: Vec<&str> = new.lines().collect();
    let ops = similar::capture_diff_slices_deadline(Algorithm::Myers, &old_lines, &new_lines, deadline);
    // A context as large as both texts shows them whole; the crate doubles the context it is given.
    let context = context.min(old_lines.len() + new_lines.len());
    let mut lines = Vec::new();
    for hunk in similar::group_diff_ops(ops, context) {
        push_hunk(&hunk, &old_lines, &new_lines, &mut lines);
    }
    lines
}

/// The render module's diff of edits, JSON in and out: `edits` is a JSON array of `[old, new]`
/// texts; the answer is the lines of their diffs one after the other ([`CONTEXT_LINES`] of
/// context), changed words marked. Malformed input gives no lines.
pub fn diff_edits_json(edits: &str) -> String {
    let edits: Vec<(String, String)> = small_json::from_str(edits).unwrap_or_default();
    let mut lines: Vec<DiffLine> = edits.iter().flat_map(|(old, new)| diff_lines(old, new, CONTEXT_LINES)).collect();
    mark_changed_words(&mut lines);
    small_json::to_string(&lines).unwrap_or_default()
}

/// The render module's word marking, JSON in and out: `lines` (a JSON array of diff lines, as a
/// structured patch gives them) with their changed words marked. Malformed input gives no lines.
pub fn mark_changed_words_json(lines: &str) -> String {
    let mut lines: Vec<DiffLine> = small_json::from_str(lines).unwrap_or_default();
    mark_changed_words(&mut lines);
    small_json::to_string(&lines).unwrap_or_default()
}

/// The diff of two texts without the diff engine: every old line removed, then every new line
/// added, in one hunk. The page shows it where the render module, which holds the engine, is not
/// there (yet): longer than the real diff, but it hides nothing. Identical texts give no lines,
/// as in [`diff_lines`].
pub fn whole_lines(old: &str, new: &str) -> Vec<DiffLine> {
    if old == new {
        return Vec::new();
    }
    let old_lines: Vec<&str> = old.lines().collect();
    let new_lines: Vec<&str> = new.lines().collect();
    let start = |count: usize| u64::from(count > 0);
    let mut lines = Vec::with_capacity(old_lines.len() + new_lines.len() + 1);
    lines.push(hunk_header(
        start(old_lines.len()),
        old_lines.len() as u64,
        start(new_lines.len()),
        new_lines.len() as u64,
    ));
    let numbered = |index: usize| u32::try_from(index + 1).unwrap_or(u32::MAX);
    lines.extend(old_lines.iter().enumerate().map(|(i, text)| removed_line(numbered(i), (*text).to_owned())));
    lines.extend(new_lines.iter().enumerate().map(|(i, text)| added_line(numbered(i), (*text).to_owned())));
    lines
}

/// Converts Claude Code's `toolUseResult.structuredPatch`, an array of hunks such as
/// `{ "oldStart": 10, "oldLines": 7, "newStart": 10, "newLines": 8, "lines": [" context", "-removed", "+added"] }`,
/// into diff lines, with a [`DiffKind::Hunk`] line per hunk.
///
/// Returns `None` if the value does not have that shape. An empty array gives no lines. Lines starting
/// with `\` ("\ No newline at end of file") are skipped; lines with no known prefix count as context.
pub fn from_structured_patch(patch: &Value) -> Option<Vec<DiffLine>> {
    let mut diff = Vec::new();
    for hunk in patch.as_array()? {
        let old_start = line_number_field(hunk, "oldStart")?;
        let new_start = line_number_field(hunk, "newStart")?;
        let lines = hunk.get("lines")?.as_array()?;
        let lines: Vec<&str> = lines.iter().map(Value::as_str).collect::<Option<_>>()?;
        let counted_old = lines.iter().filter(|line| !line.starts_with(['+', '\\'])).count();
        let counted_new = lines.iter().filter(|line| !line.starts_with(['-', '\\'])).count();
        let old_count = count_field(hunk, "oldLines", counted_old as u64)?;
        let new_count = count_field(hunk, "newLines", counted_new as u64)?;
        diff.push(hunk_header(u64::from(old_start), old_count, u64::from(new_start), new_count));

        let mut old_line = old_start;
        let mut new_line = new_start;
        for line in lines {
            let mut chars = line.chars();
            let prefix = chars.next();
            let text = chars.as_str().to_owned();
            match prefix {
                Some('+') => {
                    diff.push(added_line(new_line, text));
                    new_line = new_line.saturating_add(1);
                }
                Some('-') => {
                    diff.push(removed_line(old_line, text));
                    old_line = old_line.saturating_add(1);
                }
                Some('\\') => {}
                Some(' ') | None => {
                    diff.push(context_line(old_line, new_line, text));
                    old_line = old_line.saturating_add(1);
                    new_line = new_line.saturating_add(1);
                }
                Some(_) => {
                    diff.push(context_line(old_line, new_line, line.to_owned()));
                    old_line = old_line.saturating_add(1);
                    new_line = new_line.saturating_add(1);
                }
            }
        }
    }
    Some(diff)
}

/// Counts the added and removed lines of a diff, in that order.
pub fn count_changes(lines: &[DiffLine]) -> (usize, usize) {
    lines.iter().fold((0, 0), |(added, removed), line| match line.kind {
        DiffKind::Added => (added + 1, removed),
        DiffKind::Removed => (added, removed + 1),
        DiffKind::Context | DiffKind::Hunk => (added, removed),
    })
}

/// Marks the changed words of changed lines, in a diff from [`diff_lines`] or [`from_structured_patch`].
///
/// Each run of removed lines directly followed by added lines is compared word by word (a word is a run
/// of letters, digits and underscores, a run of spaces, or any other single character). A line gets
/// [`DiffLine::words`] when it has both changed and unchanged words and most of it is unchanged; other
/// lines keep no words, and show as wholly changed. Runs larger than [`MAX_WORD_DIFF_BYTES`], and runs
/// left when the time for the whole diff is over, are not marked.
pub fn mark_changed_words(lines: &mut [DiffLine]) {
    mark_changed_words_until(lines, deadline_after(WORD_DIFF_TIME));
}

/// [`mark_changed_words`] with the deadline given: runs not started by then are left unmarked.
fn mark_changed_words_until(lines: &mut [DiffLine], deadline: Option<Instant>) {
    let mut start = 0;
    while start < lines.len() {
        let removed = run_length(lines, start, DiffKind::Removed);
        let added = if removed > 0 { run_length(lines, start + removed, DiffKind::Added) } else { 0 };
        if removed > 0 && added > 0 {
            if deadline.is_some_and(|deadline| Instant::now() > deadline) {
                return;
            }
            if let Some(run) = lines.get_mut(start..start + removed + added) {
                let (old_run, new_run) = run.split_at_mut(removed);
                mark_run(old_run, new_run, deadline);
            }
        }
        start += (removed + added).max(1);
    }
}

/// The number of lines of `kind` in a row from `start`.
fn run_length(lines: &[DiffLine], start: usize, kind: DiffKind) -> usize {
    lines.get(start..).unwrap_or_default().iter().take_while(|line| line.kind == kind).count()
}

/// A word of a run of lines, and which line of the run it is in.
struct Word<'text> {
    text: &'text str,
    /// The index of the line in the run, or `None` for the line break between two lines.
    line: Option<usize>,
}

/// Compares the words of removed lines with those of the added lines after them, and marks both.
fn mark_run(old_run: &mut [DiffLine], new_run: &mut [DiffLine], deadline: Option<Instant>) {
    let old_bytes: usize = old_run.iter().map(|line| line.text.len()).sum();
    let new_bytes: usize = new_run.iter().map(|line| line.text.len()).sum();
    if old_bytes > MAX_WORD_DIFF_BYTES || new_bytes > MAX_WORD_DIFF_BYTES {
        return;
    }
    let old_words = run_words(old_run);
    let new_words = run_words(new_run);
    let old_texts: Vec<&str> = old_words.iter().map(|word| word.text).collect();
    let new_texts: Vec<&str> = new_words.iter().map(|word| word.text).collect();
    let ops = similar::capture_diff_slices_deadline(Algorithm::Myers, &old_texts, &new_texts, deadline);

    let mut old_changed = vec![false; old_words.len()];
    let mut new_changed = vec![false; new_words.len()];
    for op in &ops {
        if !matches!(op, DiffOp::Equal { .. }) {
            old_changed.get_mut(op.old_range()).unwrap_or_default().fill(true);
            new_changed.get_mut(op.new_range()).unwrap_or_default().fill(true);
        }
    }
    let old_segments = line_segments(&old_words, &old_changed, old_run.len());
    let new_segments = line_segments(&new_words, &new_changed, new_run.len());
    for (line, segments) in old_run.iter_mut().zip(old_segments).chain(new_run.iter_mut().zip(new_segments)) {
        line.words = worth_marking(&line.text, segments);
    }
}

/// The words of the lines of a run, with a line break between lines.
fn run_words(run: &[DiffLine]) -> Vec<Word<'_>> {
    let mut words = Vec::new();
    for (index, line) in run.iter().enumerate() {
        if index > 0 {
            words.push(Word { text: "\n", line: None });
        }
        let mut start = 0;
        while let Some(rest) = line.text.get(start..).filter(|rest| !rest.is_empty()) {
            let length = word_length(rest);
            words.push(Word { text: rest.get(..length).unwrap_or(rest), line: Some(index) });
            start += length;
        }
    }
    words
}

/// The length in bytes of the word that `text` (not empty) starts with.
fn word_length(text: &str) -> usize {
    let is_word_char = |ch: char| ch.is_alphanumeric() || ch == '_';
    let mut chars = text.char_indices();
    let Some((_, first)) = chars.next() else { return 0 };
    let same_class: fn(char) -> bool = if is_word_char(first) {
        |ch| ch.is_alphanumeric() || ch == '_'
    } else if first.is_whitespace() {
        char::is_whitespace
    } else {
        return first.len_utf8();
    };
    chars.find(|&(_, ch)| !same_class(ch)).map_or(text.len(), |(index, _)| index)
}

/// Cuts each line of a run into pieces of changed and unchanged words.
fn line_segments(words: &[Word<'_>], changed: &[bool], line_count: usize) -> Vec<Vec<WordSegment>> {
    let mut segments: Vec<Vec<WordSegment>> = vec![Vec::new(); line_count];
    for (word, &is_changed) in words.iter().zip(changed) {
        let Some(line) = word.line.and_then(|line| segments.get_mut(line)) else { continue };
        match line.last_mut() {
            Some(last) if last.changed == is_changed => last.text.push_str(word.text),
            _ => line.push(WordSegment { text: word.text.to_owned(), changed: is_changed }),
        }
    }
    segments
}

/// The segments of a line worth showing: none when nothing or everything in it changed, or when too
/// little of it is unchanged. Blanks between two changed pieces count as changed, so that a change of
/// several words shows as one.
fn worth_marking(text: &str, segments: Vec<WordSegment>) -> Vec<WordSegment> {
    let mut merged: Vec<WordSegment> = Vec::with_capacity(segments.len());
    let count = segments.len();
    for (index, mut segment) in segments.into_iter().enumerate() {
        let between_changes = index > 0 && index + 1 < count && segment.text.chars().all(char::is_whitespace);
        if between_changes {
            segment.changed = true;
        }
        match merged.last_mut() {
            Some(last) if last.changed == segment.changed => last.text.push_str(&segment.text),
            _ => merged.push(segment),
        }
    }
    let non_blank = |segment: &WordSegment| segment.text.chars().filter(|ch| !ch.is_whitespace()).count();
    let unchanged: usize = merged.iter().filter(|segment| !segment.changed).map(non_blank).sum();
    let changed: usize = merged.iter().filter(|segment| segment.changed).map(non_blank).sum();
    let total = unchanged + changed;
    let mostly_unchanged = total > 0 && unchanged as f32 >= MIN_UNCHANGED_SHARE * total as f32;
    let has_both = merged.iter().any(|segment| segment.changed) && merged.iter().any(|segment| !segment.changed);
    let whole: usize = merged.iter().map(|segment| segment.text.len()).sum();
    if has_both && mostly_unchanged && whole == text.len() { merged } else { Vec::new() }
}

/// The time `duration` from now, or `None` (no deadline) where the clock cannot say.
fn deadline_after(duration: Duration) -> Option<Instant> {
    Instant::now().checked_add(duration)
}

/// Appends a hunk header and the lines of a group of operations, in which each run of changes lists its
/// removed lines before its added lines, as in `diff -u`.
fn push_hunk(hunk: &[DiffOp], old: &[&str], new: &[&str], lines: &mut Vec<DiffLine>) {
    let old_count: usize = hunk.iter().map(|op| op.old_range().len()).sum();
    let new_count: usize = hunk.iter().map(|op| op.new_range().len()).sum();
    if old_count == 0 && new_count == 0 {
        return;
    }
    let old_position = hunk.first().map_or(0, |op| op.old_range().start);
    let new_position = hunk.first().map_or(0, |op| op.new_range().start);
    // Like `diff -u`, an empty range is numbered by the line before it.
    let old_header_start = if old_count > 0 { old_position + 1 } else { old_position };
    let new_header_start = if new_count > 0 { new_position + 1 } else { new_position };
    lines.push(hunk_header(old_header_start as u64, old_count as u64, new_header_start as u64, new_count as u64));

    let mut added = Vec::new();
    for op in hunk {
        match *op {
            DiffOp::Equal { old_index, new_index, len } => {
                if len == 0 {
                    continue;
                }
                lines.append(&mut added);
                for offset in 0..len {
                    let text = old.get(old_index + offset).copied().unwrap_or_default().to_owned();
                    lines.push(context_line(line_number(old_index + offset), line_number(new_index + offset), text));
                }
            }
            _ => {
                for index in op.old_range() {
                    lines
                        .push(removed_line(line_number(index), old.get(index).copied().unwrap_or_default().to_owned()));
                }
                for index in op.new_range() {
                    added.push(added_line(line_number(index), new.get(index).copied().unwrap_or_default().to_owned()));
                }
            }
        }
    }
    lines.append(&mut added);
}

fn context_line(old_line: u32, new_line: u32, text: String) -> DiffLine {
    DiffLine { kind: DiffKind::Context, old_line: Some(old_line), new_line: Some(new_line), text, words: Vec::new() }
}

fn removed_line(old_line: u32, text: String) -> DiffLine {
    DiffLine { kind: DiffKind::Removed, old_line: Some(old_line), new_line: None, text, words: Vec::new() }
}

fn added_line(new_line: u32, text: String) -> DiffLine {
    DiffLine { kind: DiffKind::Added, old_line: None, new_line: Some(new_line), text, words: Vec::new() }
}

fn hunk_header(old_start: u64, old_count: u64, new_start: u64, new_count: u64) -> DiffLine {
    DiffLine {
        kind: DiffKind::Hunk,
        old_line: None,
        new_line: None,
        text: format!("@@ -{old_start},{old_count} +{new_start},{new_count} @@"),
        words: Vec::new(),
    }
}

/// The 1-based line number of a 0-based index.
fn line_number(index: usize) -> u32 {
    u32::try_from(index).unwrap_or(u32::MAX).saturating_add(1)
}

/// A required line number field of a structured patch hunk.
fn line_number_field(hunk: &Value, name: &str) -> Option<u32> {
    u32::try_from(hunk.get(name)?.as_u64()?).ok()
}

/// An optional count field of a structured patch hunk: `default` when absent, `None` when not a count.
fn count_field(hunk: &Value, name: &str, default: u64) -> Option<u64> {
    match hunk.get(name) {
        None | Some(Value::Null) => Some(default),
        Some(value) => value.as_u64(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn whole_lines_removes_every_old_line_and_adds_every_new_one() {
        let lines = whole_lines("keep\nboil\n", "keep\nsimmer\nwait\n");
        let shown: Vec<(DiffKind, Option<u32>, Option<u32>, &str)> =
            lines.iter().map(|l| (l.kind, l.old_line, l.new_line, l.text.as_str())).collect();
        assert_eq!(
            shown,
            [
                (DiffKind::Hunk, None, None, "@@ -1,2 +1,3 @@"),
                (DiffKind::Removed, Some(1), None, "keep"),
                (DiffKind::Removed, Some(2), None, "boil"),
                (DiffKind::Added, None, Some(1), "keep"),
                (DiffKind::Added, None, Some(2), "simmer"),
                (DiffKind::Added, None, Some(3), "wait"),
            ]
        );
        assert_eq!(count_changes(&lines), (3, 2));
    }

    #[test]
    fn whole_lines_of_a_new_file_and_of_no_change() {
        // A new file's hunk starts at line 0 of the old text, as diff_lines' does.
        let written = whole_lines("", "fn main() {}\n");
        assert_eq!(written, diff_lines("", "fn main() {}\n", CONTEXT_LINES));
        assert!(whole_lines("same\n", "same\n").is_empty());
    }

    #[test]
    fn the_page_gets_the_diff_and_marked_words_of_each_edit_in_order() {
        let edits = [("let kettle = boil(water);\n", "let kettle = simmer(water);\n"), ("", "fn main() {}\n")];
        let answer: Vec<DiffLine> =
            serde_json::from_str(&diff_edits_json(&serde_json::to_string(&edits).unwrap())).unwrap();
        let mut expected: Vec<DiffLine> =
            edits.iter().flat_map(|(old, new)| diff_lines(old, new, CONTEXT_LINES)).collect();
        mark_changed_words(&mut expected);
        assert_eq!(answer, expected);
        assert!(answer.iter().any(|line| line.words.iter().any(|w| w.changed && w.text == "simmer")));
        assert_eq!(answer.last().map(|l| l.text.as_str()), Some("fn main() {}"));
        // A structured patch's lines, marked as the page sends them.
        let unmarked: Vec<DiffLine> = edits.iter().flat_map(|(old, new)| diff_lines(old, new, CONTEXT_LINES)).collect();
        let marked: Vec<DiffLine> =
            serde_json::from_str(&mark_changed_words_json(&serde_json::to_string(&unmarked).unwrap())).unwrap();
        assert_eq!(marked, expected);
    }

    #[test]
    fn malformed_json_gives_no_lines() {
        assert_eq!(diff_edits_json("not json"), "[]");
        assert_eq!(mark_changed_words_json("{\"lines\":1}"), "[]");
    }

    #[test]
    fn diff_lines_cross_to_the_page_as_json_unchanged() {
        let mut lines = diff_lines("let kettle = boil(water);\n", "let kettle = simmer(water);\n", CONTEXT_LINES);
        mark_changed_words(&mut lines);
        assert!(lines.iter().any(|l| !l.words.is_empty()), "the test needs marked words");
        let json = serde_json::to_string(&lines).unwrap();
        assert_eq!(serde_json::from_str::<Vec<DiffLine>>(&json).unwrap(), lines);
    }

    use super::*;

    /// A value, written as in `serde_json::json!`.
    macro_rules! json {
        ($($value:tt)+) => {
            small_json::parse(&serde_json::to_vec(&serde_json::json!($($value)+)).unwrap()).unwrap()
        };
    }

    fn removed(old_line: u32, text: &str) -> DiffLine {
        removed_line(old_line, text.to_owned())
    }

    fn added(new_line: u32, text: &str) -> DiffLine {
        added_line(new_line, text.to_owned())
    }

    fn context(old_line: u32, new_line: u32, text: &str) -> DiffLine {
        context_line(old_line, new_line, text.to_owned())
    }

    fn hunk(text: &str) -> DiffLine {
        DiffLine { kind: DiffKind::Hunk, old_line: None, new_line: None, text: text.to_owned(), words: Vec::new() }
    }

    /// Writes a diff in the `diff -u` body format, to compare whole diffs at a glance.
    fn render(lines: &[DiffLine]) -> String {
        lines
            .iter()
            .map(|line| match line.kind {
                DiffKind::Hunk => format!("{}\n", line.text),
                DiffKind::Context => format!(" {}\n", line.text),
                DiffKind::Added => format!("+{}\n", line.text),
                DiffKind::Removed => format!("-{}\n", line.text),
            })
            .collect()
    }

    /// Checks a diff against its texts: every hunk's header matches its lines, line numbers follow each
    /// other, and every line's text is the text's line at that number.
    fn assert_consistent(diff: &[DiffLine], old: &str, new: &str) {
        let old_lines: Vec<&str> = old.lines().collect();
        let new_lines: Vec<&str> = new.lines().collect();
        let mut index = 0;
        while index < diff.len() {
            let header = &diff[index];
            assert_eq!(header.kind, DiffKind::Hunk, "{}", render(diff));
            let numbers: Vec<u64> = header
                .text
                .trim_matches(|ch| ch == '@' || ch == ' ')
                .split([' ', ','])
                .map(|part| part.trim_start_matches(['-', '+']).parse().unwrap())
                .collect();
            let [old_start, old_count, new_start, new_count] = numbers[..] else { panic!("{}", header.text) };
            index += 1;
            let body_end =
                diff[index..].iter().position(|line| line.kind == DiffKind::Hunk).map_or(diff.len(), |p| p + index);
            let body = &diff[index..body_end];
            let mut expected_old = if old_count == 0 { old_start + 1 } else { old_start };
            let mut expected_new = if new_count == 0 { new_start + 1 } else { new_start };
            let mut seen_old = 0;
            let mut seen_new = 0;
            for line in body {
                if let Some(number) = line.old_line {
                    assert_eq!(u64::from(number), expected_old, "{}", render(diff));
                    assert_eq!(old_lines[number as usize - 1], line.text);
                    expected_old += 1;
                    seen_old += 1;
                }
                if let Some(number) = line.new_line {
                    assert_eq!(u64::from(number), expected_new, "{}", render(diff));
                    assert_eq!(new_lines[number as usize - 1], line.text);
                    expected_new += 1;
                    seen_new += 1;
                }
            }
            assert_eq!((seen_old, seen_new), (old_count, new_count), "{}", render(diff));
            index = body_end;
        }
    }

    /// Rebuilds both texts from a diff with unlimited context.
    fn rebuild(diff: &[DiffLine]) -> (Vec<String>, Vec<String>) {
        let mut old = Vec::new();
        let mut new = Vec::new();
        for line in diff {
            match line.kind {
                DiffKind::Context => {
                    old.push(line.text.clone());
                    new.push(line.text.clone());
                }
                DiffKind::Removed => old.push(line.text.clone()),
                DiffKind::Added => new.push(line.text.clone()),
                DiffKind::Hunk => {}
            }
        }
        (old, new)
    }

    fn lcs_length(old: &[&str], new: &[&str]) -> usize {
        let mut row = vec![0usize; new.len() + 1];
        for old_line in old {
            let mut diagonal = 0;
            for (index, new_line) in new.iter().enumerate() {
                let above = row[index + 1];
                row[index + 1] = if old_line == new_line { diagonal + 1 } else { above.max(row[index]) };
                diagonal = above;
            }
        }
        row[new.len()]
    }

    /// A small deterministic pseudo-random generator.
    struct Random(u64);

    impl Random {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        fn below(&mut self, bound: usize) -> usize {
            (self.next() % bound as u64) as usize
        }
    }

    #[test]
    fn identical_texts_have_no_diff() {
        assert!(diff_lines("a\nb\nc\n", "a\nb\nc\n", 3).is_empty());
        assert!(diff_lines("", "", 3).is_empty());
        assert!(diff_lines("a\nb", "a\nb\n", 3).is_empty());
        assert!(diff_lines("a\r\nb\r\n", "a\nb\n", 3).is_empty());
    }

    #[test]
    fn one_changed_line_in_the_middle() {
        let old = "one\ntwo\nthree\nfour\nfive\nsix\nseven\n";
        let new = "one\ntwo\nthree\nFOUR\nfive\nsix\nseven\n";
        let diff = diff_lines(old, new, 2);
        assert_eq!(
            diff,
            vec![
                hunk("@@ -2,5 +2,5 @@"),
                context(2, 2, "two"),
                context(3, 3, "three"),
                removed(4, "four"),
                added(4, "FOUR"),
                context(5, 5, "five"),
                context(6, 6, "six"),
            ]
        );
        assert_eq!(count_changes(&diff), (1, 1));
    }

    #[test]
    fn edit_tool_snippet() {
        // The shape of an Edit call's old_string and new_string.
        let old = "    fn total(&self) -> u64 {\n        self.items.iter().sum()\n    }";
        let new = "    fn total(&self) -> u64 {\n        self.items.iter().map(|item| item.cost).sum()\n    }";
        let diff = diff_lines(old, new, 3);
        assert_eq!(
            render(&diff),
            "@@ -1,3 +1,3 @@\n     fn total(&self) -> u64 {\n-        self.items.iter().sum()\n\
             +        self.items.iter().map(|item| item.cost).sum()\n     }\n"
        );
        assert_consistent(&diff, old, new);
    }

    #[test]
    fn write_of_a_new_file() {
        let diff = diff_lines("", "fn main() {}\n// done\n", 3);
        assert_eq!(diff, vec![hunk("@@ -0,0 +1,2 @@"), added(1, "fn main() {}"), added(2, "// done")]);
        assert_eq!(count_changes(&diff), (2, 0));
    }

    #[test]
    fn everything_removed() {
        let diff = diff_lines("a\nb\n", "", 3);
        assert_eq!(diff, vec![hunk("@@ -1,2 +0,0 @@"), removed(1, "a"), removed(2, "b")]);
    }

    #[test]
    fn insertion_without_context_is_numbered_by_the_line_before() {
        let diff = diff_lines("a\nb\nc\n", "a\nb\nc\nd\n", 0);
        assert_eq!(diff, vec![hunk("@@ -3,0 +4,1 @@"), added(4, "d")]);
        let diff = diff_lines("a\nb\nc\n", "a\nc\n", 0);
        assert_eq!(diff, vec![hunk("@@ -2,1 +1,0 @@"), removed(2, "b")]);
        let diff = diff_lines("b\n", "a\nb\n", 0);
        assert_eq!(diff, vec![hunk("@@ -0,0 +1,1 @@"), added(1, "a")]);
    }

    #[test]
    fn distant_changes_make_separate_hunks() {
        let old: String = (1..=20).map(|n| format!("line {n}\n")).collect();
        let new = old.replace("line 3\n", "line three\n").replace("line 17\n", "line seventeen\n");
        let diff = diff_lines(&old, &new, 2);
        let headers: Vec<&str> = diff.iter().filter(|l| l.kind == DiffKind::Hunk).map(|l| l.text.as_str()).collect();
        assert_eq!(headers, ["@@ -1,5 +1,5 @@", "@@ -15,5 +15,5 @@"]);
        assert_consistent(&diff, &old, &new);
    }

    #[test]
    fn close_changes_share_a_hunk() {
        let old: String = (1..=20).map(|n| format!("line {n}\n")).collect();
        // Four unchanged lines between the changes: exactly twice the context, so one hunk.
        let new = old.replace("line 5\n", "five\n").replace("line 10\n", "ten\n");
        let diff = diff_lines(&old, &new, 2);
        assert_eq!(diff.iter().filter(|l| l.kind == DiffKind::Hunk).count(), 1, "{}", render(&diff));
        assert_eq!(diff.first().map(|l| l.text.as_str()), Some("@@ -3,10 +3,10 @@"));
        // Five unchanged lines: two hunks.
        let new = old.replace("line 5\n", "five\n").replace("line 11\n", "eleven\n");
        let diff = diff_lines(&old, &new, 2);
        assert_eq!(diff.iter().filter(|l| l.kind == DiffKind::Hunk).count(), 2, "{}", render(&diff));
    }

    #[test]
    fn zero_and_huge_context() {
        let old = "a\nb\nc\nd\n";
        let new = "a\nB\nc\nd\n";
        assert_eq!(diff_lines(old, new, 0), vec![hunk("@@ -2,1 +2,1 @@"), removed(2, "b"), added(2, "B")]);
        let diff = diff_lines(old, new, usize::MAX);
        assert_eq!(render(&diff), "@@ -1,4 +1,4 @@\n a\n-b\n+B\n c\n d\n");
    }

    #[test]
    fn deletions_come_before_insertions() {
        let diff = diff_lines("x\na\nb\ny\n", "x\nc\nd\ny\n", 1);
        assert_eq!(render(&diff), "@@ -1,4 +1,4 @@\n x\n-a\n-b\n+c\n+d\n y\n");
    }

    #[test]
    fn repeated_lines() {
        let old = "}\n}\n}\nfn a() {\n}\n";
        let new = "}\nfn b() {\n}\n}\n}\nfn a() {\n}\n";
        let diff = diff_lines(old, new, 1);
        assert_eq!(count_changes(&diff), (2, 0), "{}", render(&diff));
        assert_consistent(&diff, old, new);
    }

    #[test]
    fn lines_keep_their_whitespace_and_unicode() {
        let diff = diff_lines("\tindented  \n  ünïcode 🦀\n", "\tindented\n  ünïcode 🦀\n", 1);
        assert_eq!(
            diff,
            vec![
                hunk("@@ -1,2 +1,2 @@"),
                removed(1, "\tindented  "),
                added(1, "\tindented"),
                context(2, 2, "  ünïcode 🦀")
            ]
        );
    }

    #[test]
    fn random_edits_are_minimal_and_consistent() {
        let mut random = Random(0x2545_F491_4F6C_DD1D);
        for _ in 0..400 {
            let alphabet = 1 + random.below(6);
            let old: Vec<String> = (0..random.below(30)).map(|_| format!("l{}", random.below(alphabet))).collect();
            let new: Vec<String> = (0..random.below(30)).map(|_| format!("l{}", random.below(alphabet))).collect();
            let old_text = old.join("\n");
            let new_text = new.join("\n");
            let context_size = random.below(4);
            let diff = diff_lines(&old_text, &new_text, context_size);
            assert_consistent(&diff, &old_text, &new_text);

            let full = diff_lines(&old_text, &new_text, usize::MAX);
            if old == new {
                assert!(full.is_empty());
            } else {
                let (rebuilt_old, rebuilt_new) = rebuild(&full);
                assert_eq!(rebuilt_old, old);
                assert_eq!(rebuilt_new, new);
            }

            let old_refs: Vec<&str> = old.iter().map(String::as_str).collect();
            let new_refs: Vec<&str> = new.iter().map(String::as_str).collect();
            let common = lcs_length(&old_refs, &new_refs);
            assert_eq!(count_changes(&diff), (new.len() - common, old.len() - common), "{old:?} → {new:?}");
        }
    }

    #[test]
    fn large_similar_files_are_fast_and_exact() {
        let old: String = (0..5000).map(|n| format!("    let value_{n} = compute({n});\n")).collect();
        let mut new = old.clone();
        for n in [10, 999, 2500, 4998] {
            new = new.replace(&format!("value_{n} = compute({n});"), &format!("value_{n} = compute({n}) + 1;"));
        }
        new.push_str("// appended\n");
        let started = std::time::Instant::now();
        let diff = diff_lines(&old, &new, 3);
        assert!(started.elapsed().as_secs() < 5);
        assert_eq!(count_changes(&diff), (5, 4));
        assert_consistent(&diff, &old, &new);
    }

    #[test]
    fn large_different_files_stay_bounded() {
        let old: String = (0..5000).map(|n| format!("old line {n}\n")).collect();
        let new: String = (0..5000).map(|n| format!("new line {n}\n")).collect();
        let started = std::time::Instant::now();
        let diff = diff_lines(&old, &new, 3);
        assert!(started.elapsed().as_secs() < 5);
        assert_eq!(count_changes(&diff), (5000, 5000));
        assert_consistent(&diff, &old, &new);
        assert_eq!(diff.iter().position(|line| line.kind == DiffKind::Added), Some(5001));
    }

    #[test]
    fn large_heavily_edited_files_use_anchors() {
        // Every third line changes: far more edits than one Myers run allows, but unique lines anchor it.
        let old: String = (0..5000).map(|n| format!("line {n}\n")).collect();
        let new: String =
            (0..5000).map(|n| if n % 3 == 0 { format!("changed {n}\n") } else { format!("line {n}\n") }).collect();
        let started = std::time::Instant::now();
        let diff = diff_lines(&old, &new, 1);
        assert!(started.elapsed().as_secs() < 5);
        assert_eq!(count_changes(&diff), (1667, 1667));
        assert_consistent(&diff, &old, &new);
        let (rebuilt_old, rebuilt_new) = rebuild(&diff_lines(&old, &new, usize::MAX));
        assert_eq!(rebuilt_old.len(), 5000);
        assert_eq!(rebuilt_new, new.lines().collect::<Vec<_>>());
    }

    #[test]
    fn large_shuffled_and_repetitive_files_stay_bounded() {
        let mut random = Random(7);
        let old: Vec<String> = (0..5000).map(|_| format!("{}", random.below(50))).collect();
        let new: Vec<String> = (0..5000).map(|_| format!("{}", random.below(50))).collect();
        let (old, new) = (old.join("\n"), new.join("\n"));
        let started = std::time::Instant::now();
        let diff = diff_lines(&old, &new, 3);
        assert!(started.elapsed().as_secs() < 5);
        assert_consistent(&diff, &old, &new);
        let (rebuilt_old, rebuilt_new) = rebuild(&diff_lines(&old, &new, usize::MAX));
        assert_eq!(rebuilt_old.join("\n"), old);
        assert_eq!(rebuilt_new.join("\n"), new);
    }

    #[test]
    fn a_diff_out_of_time_is_still_a_correct_diff() {
        // Replaces a test of the hand-written Myers search giving up beyond its cost: past the deadline,
        // similar settles for a longer diff, which still rebuilds both texts.
        let old: String = (0..300).map(|n| format!("line {}\n", n % 7)).collect();
        let new: String = (0..300).map(|n| format!("line {}\n", n % 5)).collect();
        let expired = Instant::now().checked_sub(Duration::from_secs(1));
        let diff = diff_lines_until(&old, &new, 2, expired);
        assert_consistent(&diff, &old, &new);
        let (rebuilt_old, rebuilt_new) = rebuild(&diff_lines_until(&old, &new, usize::MAX, expired));
        assert_eq!(rebuilt_old, old.lines().collect::<Vec<_>>());
        assert_eq!(rebuilt_new, new.lines().collect::<Vec<_>>());
        assert_eq!(
            diff_lines_until("a\nb\n", "a\nc\n", 0, expired),
            vec![hunk("@@ -2,1 +2,1 @@"), removed(2, "b"), added(2, "c")]
        );
    }

    #[test]
    fn swapped_unique_lines_are_aligned_minimally() {
        // Replaces a test of the hand-written patience anchors (lines unique on both sides, in the
        // longest increasing order): the same texts, through the public function.
        let old = "one\nnine\ntwo\nthree\nnine\n";
        let new = "two\none\nthree\nnine\n";
        let diff = diff_lines(old, new, 1);
        assert_consistent(&diff, old, new);
        let common = lcs_length(&old.lines().collect::<Vec<_>>(), &new.lines().collect::<Vec<_>>());
        assert_eq!(common, 3);
        assert_eq!(count_changes(&diff), (4 - common, 5 - common), "{}", render(&diff));
    }

    #[test]
    fn structured_patch_from_claude_code() {
        let patch = json!([
            {
                "oldStart": 10,
                "oldLines": 4,
                "newStart": 10,
                "newLines": 5,
                "lines": [
                    "     let config = load();",
                    "-    run(config);",
                    "+    let result = run(config);",
                    "+    report(result);",
                    "     Ok(())",
                    " }"
                ]
            },
            {
                "oldStart": 40,
                "oldLines": 1,
                "newStart": 41,
                "newLines": 0,
                "lines": ["-// TODO: remove"]
            }
        ]);
        let diff = from_structured_patch(&patch).expect("a valid patch");
        assert_eq!(
            diff,
            vec![
                hunk("@@ -10,4 +10,5 @@"),
                context(10, 10, "    let config = load();"),
                removed(11, "    run(config);"),
                added(11, "    let result = run(config);"),
                added(12, "    report(result);"),
                context(12, 13, "    Ok(())"),
                context(13, 14, "}"),
                hunk("@@ -40,1 +41,0 @@"),
                removed(40, "// TODO: remove"),
            ]
        );
        assert_eq!(count_changes(&diff), (2, 2));
    }

    #[test]
    fn structured_patch_edge_cases() {
        assert_eq!(from_structured_patch(&json!([])), Some(vec![]));
        // A missing newline marker is skipped; an empty line is context; counts may be absent.
        let patch =
            json!([{ "oldStart": 1, "newStart": 1, "lines": ["-a", "\\ No newline at end of file", "+b", ""] }]);
        let diff = from_structured_patch(&patch).expect("a valid patch");
        assert_eq!(diff, vec![hunk("@@ -1,2 +1,2 @@"), removed(1, "a"), added(1, "b"), context(2, 2, "")]);
        // A line without a known prefix is kept whole as context.
        let patch = json!([{ "oldStart": 3, "newStart": 3, "lines": ["?odd"] }]);
        assert_eq!(from_structured_patch(&patch), Some(vec![hunk("@@ -3,1 +3,1 @@"), context(3, 3, "?odd")]));
    }

    #[test]
    fn malformed_structured_patches_are_refused() {
        for patch in [
            json!(null),
            json!({}),
            json!("@@ -1 +1 @@"),
            json!([1]),
            json!([{ "newStart": 1, "lines": [] }]),
            json!([{ "oldStart": -1, "newStart": 1, "lines": [] }]),
            json!([{ "oldStart": 1.5, "newStart": 1, "lines": [] }]),
            json!([{ "oldStart": 1, "newStart": 1 }]),
            json!([{ "oldStart": 1, "newStart": 1, "lines": "+a" }]),
            json!([{ "oldStart": 1, "newStart": 1, "lines": ["+a", 5] }]),
            json!([{ "oldStart": 1, "newStart": 1, "oldLines": "2", "lines": [] }]),
            json!([{ "oldStart": 5_000_000_000u64, "newStart": 1, "lines": [] }]),
        ] {
            assert_eq!(from_structured_patch(&patch), None, "{patch}");
        }
    }

    #[test]
    fn structured_patch_line_numbers_saturate() {
        let patch = json!([{ "oldStart": u32::MAX, "newStart": u32::MAX, "lines": [" a", " b"] }]);
        let diff = from_structured_patch(&patch).expect("a valid patch");
        assert_eq!(diff.last().and_then(|line| line.old_line), Some(u32::MAX));
    }

    #[test]
    fn count_changes_ignores_context_and_headers() {
        assert_eq!(count_changes(&[]), (0, 0));
        let lines = [hunk("@@ -1,1 +1,2 @@"), context(1, 1, "a"), added(2, "b"), added(3, "c"), removed(2, "d")];
        assert_eq!(count_changes(&lines), (2, 1));
    }

    /// The changed words of a marked line, or `None` when it has none.
    fn changed_words(line: &DiffLine) -> Option<Vec<&str>> {
        (!line.words.is_empty())
            .then(|| line.words.iter().filter(|word| word.changed).map(|word| word.text.as_str()).collect())
    }

    fn marked(old: &str, new: &str) -> Vec<DiffLine> {
        let mut diff = diff_lines(old, new, 3);
        mark_changed_words(&mut diff);
        diff
    }

    #[test]
    fn one_changed_word_is_marked_on_both_sides() {
        let diff =
            marked("fn main() {\n    let tea = brew(water);\n}\n", "fn main() {\n    let tea = steep(water);\n}\n");
        let removed_line = diff.iter().find(|line| line.kind == DiffKind::Removed).expect("a removed line");
        let added_line = diff.iter().find(|line| line.kind == DiffKind::Added).expect("an added line");
        assert_eq!(
            removed_line.words,
            vec![
                WordSegment { text: "    let tea = ".to_owned(), changed: false },
                WordSegment { text: "brew".to_owned(), changed: true },
                WordSegment { text: "(water);".to_owned(), changed: false },
            ]
        );
        assert_eq!(changed_words(added_line), Some(vec!["steep"]));
        // Context lines and headers never have words.
        assert!(
            diff.iter()
                .filter(|line| matches!(line.kind, DiffKind::Context | DiffKind::Hunk))
                .all(|l| l.words.is_empty())
        );
    }

    #[test]
    fn words_are_runs_of_letters_blanks_or_single_signs() {
        let diff = marked("self.items.iter().sum()\n", "self.items.iter().map(|item| item.cost).sum()\n");
        assert_eq!(changed_words(&diff[2]), Some(vec!["map(|item| item.cost)."]));
        assert_eq!(changed_words(&diff[1]), None, "nothing of the old line changed");
        let diff = marked("naïve café au lait\n", "naïve cafés au lait\n");
        assert_eq!(changed_words(&diff[1]), Some(vec!["café"]));
        assert_eq!(changed_words(&diff[2]), Some(vec!["cafés"]));
        // Several changed words with blanks between them make one piece.
        let diff = marked("let a = one two three four five;\n", "let a = uno dos three four five;\n");
        assert_eq!(changed_words(&diff[2]), Some(vec!["uno dos"]));
    }

    #[test]
    fn structured_patches_get_word_marks_too() {
        let patch = json!([{
            "oldStart": 10, "oldLines": 2, "newStart": 10, "newLines": 3,
            "lines": [" let config = load();", "-    run(config);", "+    let result = run(config);", "+    report(result);"]
        }]);
        let mut diff = from_structured_patch(&patch).expect("a valid patch");
        mark_changed_words(&mut diff);
        assert_eq!(changed_words(&diff[2]), None, "the removed line is whole in the first added line");
        assert_eq!(changed_words(&diff[3]), Some(vec!["let result = "]));
        assert_eq!(changed_words(&diff[4]), None, "a wholly new line is not cut into words");
        // A missing-newline marker between the sides does not part them.
        let patch =
            json!([{ "oldStart": 1, "newStart": 1, "lines": ["-a = 1", "\\ No newline at end of file", "+a = 2"] }]);
        let mut diff = from_structured_patch(&patch).expect("a valid patch");
        mark_changed_words(&mut diff);
        assert_eq!(changed_words(&diff[2]), Some(vec!["2"]));
    }

    #[test]
    fn unlike_lines_large_runs_and_late_runs_are_not_marked() {
        let diff = marked("one\ntwo\nthree\nfour\n", "one\ntwo\nthree\nFOUR\n");
        assert!(diff.iter().all(|line| line.words.is_empty()), "a line that changed whole has no words");
        let diff = marked("let total = items.len();\n", "fn unrelated() -> Result<(), Error> {}\n");
        assert!(diff.iter().all(|line| line.words.is_empty()), "lines that share too little are not marked");
        let long_old = format!("{}\n", "word ".repeat(5000));
        let long_new = format!("{}changed\n", "word ".repeat(5000));
        let diff = marked(&long_old, &long_new);
        assert!(diff.iter().all(|line| line.words.is_empty()), "runs past the size bound are not marked");
        let mut diff = diff_lines("a = 1\n", "a = 2\n", 3);
        mark_changed_words_until(&mut diff, Instant::now().checked_sub(Duration::from_secs(1)));
        assert!(diff.iter().all(|line| line.words.is_empty()), "runs after the deadline are not marked");
        // Blank changes are marked, as they are the only change.
        let diff = marked("\tindented  \n", "\tindented\n");
        assert_eq!(changed_words(&diff[1]), Some(vec!["  "]));
    }

    proptest::proptest! {
        #[test]
        fn words_always_rebuild_their_line(old in "[a-c \\n(é_]{0,40}", new in "[a-c \\n(é_]{0,40}") {
            let diff = marked(&old, &new);
            assert_consistent(&diff, &old, &new);
            for line in &diff {
                if !line.words.is_empty() {
                    let rebuilt: String = line.words.iter().map(|word| word.text.as_str()).collect();
                    proptest::prop_assert_eq!(&rebuilt, &line.text);
                    proptest::prop_assert!(matches!(line.kind, DiffKind::Added | DiffKind::Removed));
                    proptest::prop_assert!(line.words.iter().any(|word| word.changed));
                    proptest::prop_assert!(line.words.iter().any(|word| !word.changed));
                }
            }
        }
    }
}
