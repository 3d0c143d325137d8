//! Line diffs for the Edit, MultiEdit and Write tool calls: computed from two strings, or read from the
//! `structuredPatch` that Claude Code stores in the tool result.
//!
//! The diff is Myers' algorithm with a bounded edit cost. When two texts differ by more than that bound,
//! lines that occur exactly once on each side anchor the alignment (as in patience diff), and the bounded
//! Myers diff runs between anchors; a stretch that is still too different becomes "all removed, then all
//! added". The work is therefore at most proportional to the number of lines times the cost bound.

use std::collections::HashMap;

use serde_json::Value;

/// The largest edit cost (removed plus added lines) that one run of Myers' algorithm searches. The
/// algorithm keeps a history of about this number squared positions.
const MAX_EDIT_COST: usize = 512;

/// What a line of a diff is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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

/// A line of a unified diff.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiffLine {
    pub kind: DiffKind,
    /// The line's number in the old text (1-based), for context and removed lines.
    pub old_line: Option<u32>,
    /// The line's number in the new text (1-based), for context and added lines.
    pub new_line: Option<u32>,
    /// The line without its `+`, `-` or space prefix (or the header, for a hunk).
    pub text: String,
}

/// Computes a unified diff of two texts, line by line, with `context` unchanged lines around each change.
///
/// Line numbers start at 1 in each string. Hunks closer than twice `context` are merged. Identical texts
/// give no lines. A missing final newline is not reported as a difference.
pub fn diff_lines(old: &str, new: &str, context: usize) -> Vec<DiffLine> {
    let old_lines: Vec<&str> = old.lines().collect();
    let new_lines: Vec<&str> = new.lines().collect();
    let edits = edit_script(&old_lines, &new_lines);
    unified_hunks(&edits, &old_lines, &new_lines, context)
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
                    diff.push(DiffLine { kind: DiffKind::Added, old_line: None, new_line: Some(new_line), text });
                    new_line = new_line.saturating_add(1);
                }
                Some('-') => {
                    diff.push(DiffLine { kind: DiffKind::Removed, old_line: Some(old_line), new_line: None, text });
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

/// A step of an edit script, with 0-based line indices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Edit {
    Equal { old: usize, new: usize },
    Delete { old: usize },
    Insert { new: usize },
}

/// Computes the edits that turn `old` into `new`, with the deletions of each change before its insertions.
fn edit_script<'text>(old: &[&'text str], new: &[&'text str]) -> Vec<Edit> {
    // Lines are compared as small integers.
    let mut ids: HashMap<&'text str, u32> = HashMap::new();
    let mut intern = |line: &'text str| {
        let next_id = u32::try_from(ids.len()).unwrap_or(u32::MAX);
        *ids.entry(line).or_insert(next_id)
    };
    let old_ids: Vec<u32> = old.iter().map(|&line| intern(line)).collect();
    let new_ids: Vec<u32> = new.iter().map(|&line| intern(line)).collect();

    let mut edits = Vec::with_capacity(old.len().max(new.len()));
    diff_range(&old_ids, &new_ids, 0, 0, true, &mut edits);
    deletions_first(&mut edits);
    edits
}

/// Appends the edits between `old` and `new`, slices that start at `old_offset` and `new_offset` of the
/// whole texts. When the bounded Myers diff gives up and `use_anchors` is set, aligns unique lines first.
fn diff_range(
    old: &[u32],
    new: &[u32],
    old_offset: usize,
    new_offset: usize,
    use_anchors: bool,
    edits: &mut Vec<Edit>,
) {
    let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let old_rest = old.get(prefix..).unwrap_or_default();
    let new_rest = new.get(prefix..).unwrap_or_default();
    let suffix = old_rest.iter().rev().zip(new_rest.iter().rev()).take_while(|(a, b)| a == b).count();
    let old_middle = old_rest.get(..old_rest.len() - suffix).unwrap_or_default();
    let new_middle = new_rest.get(..new_rest.len() - suffix).unwrap_or_default();

    for index in 0..prefix {
        edits.push(Edit::Equal { old: old_offset + index, new: new_offset + index });
    }
    let middle_old_offset = old_offset + prefix;
    let middle_new_offset = new_offset + prefix;
    if old_middle.is_empty() || new_middle.is_empty() {
        replace_all(old_middle.len(), new_middle.len(), middle_old_offset, middle_new_offset, edits);
    } else if let Some(middle_edits) = bounded_myers(old_middle, new_middle, MAX_EDIT_COST) {
        edits.extend(middle_edits.into_iter().map(|edit| shift(edit, middle_old_offset, middle_new_offset)));
    } else if use_anchors {
        diff_between_anchors(old_middle, new_middle, middle_old_offset, middle_new_offset, edits);
    } else {
        replace_all(old_middle.len(), new_middle.len(), middle_old_offset, middle_new_offset, edits);
    }
    let old_suffix_start = old_offset + prefix + old_middle.len();
    let new_suffix_start = new_offset + prefix + new_middle.len();
    for index in 0..suffix {
        edits.push(Edit::Equal { old: old_suffix_start + index, new: new_suffix_start + index });
    }
}

/// Appends "all of `old` removed, then all of `new` added".
fn replace_all(old_len: usize, new_len: usize, old_offset: usize, new_offset: usize, edits: &mut Vec<Edit>) {
    edits.extend((0..old_len).map(|index| Edit::Delete { old: old_offset + index }));
    edits.extend((0..new_len).map(|index| Edit::Insert { new: new_offset + index }));
}

fn shift(edit: Edit, old_offset: usize, new_offset: usize) -> Edit {
    match edit {
        Edit::Equal { old, new } => Edit::Equal { old: old + old_offset, new: new + new_offset },
        Edit::Delete { old } => Edit::Delete { old: old + old_offset },
        Edit::Insert { new } => Edit::Insert { new: new + new_offset },
    }
}

/// Aligns the lines that occur exactly once in each text (the longest run of them in the same order), and
/// diffs the stretches between them with the bounded Myers diff.
fn diff_between_anchors(old: &[u32], new: &[u32], old_offset: usize, new_offset: usize, edits: &mut Vec<Edit>) {
    let anchors = unique_line_anchors(old, new);
    if anchors.is_empty() {
        // The texts were just found too different for the bounded diff; without anchors, nothing divides them.
        replace_all(old.len(), new.len(), old_offset, new_offset, edits);
        return;
    }
    let mut old_start = 0;
    let mut new_start = 0;
    for (old_anchor, new_anchor) in anchors.into_iter().chain(std::iter::once((old.len(), new.len()))) {
        let old_gap = old.get(old_start..old_anchor).unwrap_or_default();
        let new_gap = new.get(new_start..new_anchor).unwrap_or_default();
        diff_range(old_gap, new_gap, old_offset + old_start, new_offset + new_start, false, edits);
        if old_anchor < old.len() && new_anchor < new.len() {
            edits.push(Edit::Equal { old: old_offset + old_anchor, new: new_offset + new_anchor });
        }
        old_start = old_anchor + 1;
        new_start = new_anchor + 1;
    }
}

/// The pairs of positions of lines that occur once in `old` and once in `new`, keeping the longest
/// sequence of them that is increasing on both sides.
fn unique_line_anchors(old: &[u32], new: &[u32]) -> Vec<(usize, usize)> {
    // For each line: occurrences in old, occurrences in new, and its positions.
    let mut occurrences: HashMap<u32, (u32, u32, usize, usize)> = HashMap::new();
    for (index, id) in old.iter().enumerate() {
        let entry = occurrences.entry(*id).or_insert((0, 0, index, 0));
        entry.0 = entry.0.saturating_add(1);
    }
    for (index, id) in new.iter().enumerate() {
        if let Some(entry) = occurrences.get_mut(id) {
            entry.1 = entry.1.saturating_add(1);
            entry.3 = index;
        }
    }
    let mut pairs: Vec<(usize, usize)> = occurrences
        .values()
        .filter(|(in_old, in_new, _, _)| *in_old == 1 && *in_new == 1)
        .map(|&(_, _, old_index, new_index)| (old_index, new_index))
        .collect();
    pairs.sort_unstable();
    longest_increasing_by_new(&pairs)
}

/// The longest subsequence of `pairs` (sorted by old position) whose new positions increase.
fn longest_increasing_by_new(pairs: &[(usize, usize)]) -> Vec<(usize, usize)> {
    // `tails[length - 1]` is the index in `pairs` of the smallest new position ending an increasing
    // subsequence of that length; `previous` links each pair to its predecessor in such a subsequence.
    let mut tails: Vec<usize> = Vec::new();
    let mut previous: Vec<Option<usize>> = vec![None; pairs.len()];
    for (index, &(_, new_position)) in pairs.iter().enumerate() {
        let length =
            tails.partition_point(|&tail| pairs.get(tail).is_some_and(|&(_, tail_new)| tail_new < new_position));
        if let Some(slot) = previous.get_mut(index) {
            *slot = length.checked_sub(1).and_then(|before| tails.get(before).copied());
        }
        if length < tails.len() {
            if let Some(tail) = tails.get_mut(length) {
                *tail = index;
            }
        } else {
            tails.push(index);
        }
    }
    let mut sequence = Vec::with_capacity(tails.len());
    let mut cursor = tails.last().copied();
    while let Some(index) = cursor {
        if let Some(&pair) = pairs.get(index) {
            sequence.push(pair);
        }
        cursor = previous.get(index).copied().flatten();
    }
    sequence.reverse();
    sequence
}

/// Myers' O((N+M)D) diff, giving up (`None`) when more than `max_cost` lines must be removed or added.
fn bounded_myers(old: &[u32], new: &[u32], max_cost: usize) -> Option<Vec<Edit>> {
    let old_len = isize::try_from(old.len()).ok()?;
    let new_len = isize::try_from(new.len()).ok()?;
    let max_cost = isize::try_from(max_cost.min(old.len() + new.len())).ok()?;
    // `furthest[k + offset]` is the furthest x reached on diagonal k = x - y.
    let offset = max_cost + 1;
    let mut furthest = vec![0isize; usize::try_from(2 * max_cost + 3).ok()?];
    // Before each round `cost` ≥ 1, the values of `furthest` for diagonals -(cost-1)..=(cost-1).
    let mut history: Vec<isize> = Vec::new();
    let at = |values: &[isize], diagonal: isize| -> isize {
        usize::try_from(diagonal + offset).ok().and_then(|index| values.get(index).copied()).unwrap_or(0)
    };

    for cost in 0..=max_cost {
        if cost > 0 {
            let first = usize::try_from(offset - (cost - 1)).ok()?;
            let last = usize::try_from(offset + (cost - 1)).ok()?;
            history.extend_from_slice(furthest.get(first..=last)?);
        }
        for diagonal in (-cost..=cost).step_by(2) {
            let from_above =
                diagonal == -cost || (diagonal != cost && at(&furthest, diagonal - 1) < at(&furthest, diagonal + 1));
            let mut x = if from_above { at(&furthest, diagonal + 1) } else { at(&furthest, diagonal - 1) + 1 };
            let mut y = x - diagonal;
            while x < old_len && y < new_len && same_line(old, new, x, y) {
                x += 1;
                y += 1;
            }
            *furthest.get_mut(usize::try_from(diagonal + offset).ok()?)? = x;
            if x >= old_len && y >= new_len {
                return Some(backtrack(&history, cost, old, new));
            }
        }
    }
    None
}

fn same_line(old: &[u32], new: &[u32], x: isize, y: isize) -> bool {
    let old_line = usize::try_from(x).ok().and_then(|x| old.get(x));
    let new_line = usize::try_from(y).ok().and_then(|y| new.get(y));
    old_line.is_some() && old_line == new_line
}

/// Follows the recorded rounds of [`bounded_myers`] back from the end of both texts.
fn backtrack(history: &[isize], final_cost: isize, old: &[u32], new: &[u32]) -> Vec<Edit> {
    // The value of diagonal k before round `cost` is at (cost - 1)² + (k + cost - 1) in the history.
    let recorded = |cost: isize, diagonal: isize| -> isize {
        let index = (cost - 1) * (cost - 1) + diagonal + cost - 1;
        usize::try_from(index).ok().and_then(|index| history.get(index).copied()).unwrap_or(0)
    };
    let to_index = |value: isize| usize::try_from(value).unwrap_or(0);
    let mut edits = Vec::new();
    let mut x = isize::try_from(old.len()).unwrap_or(isize::MAX);
    let mut y = isize::try_from(new.len()).unwrap_or(isize::MAX);
    for cost in (1..=final_cost).rev() {
        let diagonal = x - y;
        let from_above =
            diagonal == -cost || (diagonal != cost && recorded(cost, diagonal - 1) < recorded(cost, diagonal + 1));
        let previous_diagonal = if from_above { diagonal + 1 } else { diagonal - 1 };
        let previous_x = recorded(cost, previous_diagonal);
        let previous_y = previous_x - previous_diagonal;
        while x > previous_x && y > previous_y && same_line(old, new, x - 1, y - 1) {
            edits.push(Edit::Equal { old: to_index(x - 1), new: to_index(y - 1) });
            x -= 1;
            y -= 1;
        }
        if from_above {
            edits.push(Edit::Insert { new: to_index(y - 1) });
        } else {
            edits.push(Edit::Delete { old: to_index(x - 1) });
        }
        x = previous_x;
        y = previous_y;
    }
    while x > 0 && y > 0 {
        edits.push(Edit::Equal { old: to_index(x - 1), new: to_index(y - 1) });
        x -= 1;
        y -= 1;
    }
    edits.reverse();
    edits
}

/// Reorders each run of changes so that its deletions come before its insertions, as in `diff -u`.
fn deletions_first(edits: &mut [Edit]) {
    let mut start = 0;
    while start < edits.len() {
        let run_length = edits
            .get(start..)
            .unwrap_or_default()
            .iter()
            .take_while(|edit| !matches!(edit, Edit::Equal { .. }))
            .count();
        if let Some(run) = edits.get_mut(start..start + run_length) {
            // A stable sort keeps each side in order.
            run.sort_by_key(|edit| matches!(edit, Edit::Insert { .. }));
        }
        start += run_length.max(1);
    }
}

/// Groups an edit script into hunks with `context` lines around changes.
fn unified_hunks(edits: &[Edit], old: &[&str], new: &[&str], context: usize) -> Vec<DiffLine> {
    let change_indices: Vec<usize> = edits
        .iter()
        .enumerate()
        .filter(|(_, edit)| !matches!(edit, Edit::Equal { .. }))
        .map(|(index, _)| index)
        .collect();
    let mut lines = Vec::new();
    // How many lines of each text the edits before `scanned` cover.
    let mut scanned = 0;
    let mut old_position = 0;
    let mut new_position = 0;
    let mut changes = change_indices.iter().copied().peekable();
    while let Some(first_change) = changes.next() {
        let mut last_change = first_change;
        while let Some(&next_change) = changes.peek() {
            if next_change - last_change - 1 > context.saturating_mul(2) {
                break;
            }
            last_change = next_change;
            changes.next();
        }
        let start = first_change.saturating_sub(context);
        let end = last_change.saturating_add(context).saturating_add(1).min(edits.len());
        for edit in edits.get(scanned..start).unwrap_or_default() {
            advance(edit, &mut old_position, &mut new_position);
        }
        let hunk = edits.get(start..end).unwrap_or_default();
        push_hunk(hunk, old_position, new_position, old, new, &mut lines);
        for edit in hunk {
            advance(edit, &mut old_position, &mut new_position);
        }
        scanned = end;
    }
    lines
}

/// Counts the lines an edit covers in each text.
fn advance(edit: &Edit, old_position: &mut usize, new_position: &mut usize) {
    match edit {
        Edit::Equal { .. } => {
            *old_position += 1;
            *new_position += 1;
        }
        Edit::Delete { .. } => *old_position += 1,
        Edit::Insert { .. } => *new_position += 1,
    }
}

/// Appends a hunk header and the lines of the hunk, which starts at the given 0-based positions.
fn push_hunk(
    hunk: &[Edit],
    old_position: usize,
    new_position: usize,
    old: &[&str],
    new: &[&str],
    lines: &mut Vec<DiffLine>,
) {
    let old_count = hunk.iter().filter(|edit| !matches!(edit, Edit::Insert { .. })).count();
    let new_count = hunk.iter().filter(|edit| !matches!(edit, Edit::Delete { .. })).count();
    // Like `diff -u`, an empty range is numbered by the line before it.
    let old_header_start = if old_count > 0 { old_position + 1 } else { old_position };
    let new_header_start = if new_count > 0 { new_position + 1 } else { new_position };
    lines.push(hunk_header(old_header_start as u64, old_count as u64, new_header_start as u64, new_count as u64));

    for edit in hunk {
        let line = match *edit {
            Edit::Equal { old: old_index, new: new_index } => context_line(
                line_number(old_index),
                line_number(new_index),
                old.get(old_index).copied().unwrap_or_default().to_owned(),
            ),
            Edit::Delete { old: old_index } => DiffLine {
                kind: DiffKind::Removed,
                old_line: Some(line_number(old_index)),
                new_line: None,
                text: old.get(old_index).copied().unwrap_or_default().to_owned(),
            },
            Edit::Insert { new: new_index } => DiffLine {
                kind: DiffKind::Added,
                old_line: None,
                new_line: Some(line_number(new_index)),
                text: new.get(new_index).copied().unwrap_or_default().to_owned(),
            },
        };
        lines.push(line);
    }
}

fn context_line(old_line: u32, new_line: u32, text: String) -> DiffLine {
    DiffLine { kind: DiffKind::Context, old_line: Some(old_line), new_line: Some(new_line), text }
}

fn hunk_header(old_start: u64, old_count: u64, new_start: u64, new_count: u64) -> DiffLine {
    DiffLine {
        kind: DiffKind::Hunk,
        old_line: None,
        new_line: None,
        text: format!("@@ -{old_start},{old_count} +{new_start},{new_count} @@"),
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
    use super::*;

    use serde_json::json;

    fn removed(old_line: u32, text: &str) -> DiffLine {
        DiffLine { kind: DiffKind::Removed, old_line: Some(old_line), new_line: None, text: text.to_owned() }
    }

    fn added(new_line: u32, text: &str) -> DiffLine {
        DiffLine { kind: DiffKind::Added, old_line: None, new_line: Some(new_line), text: text.to_owned() }
    }

    fn context(old_line: u32, new_line: u32, text: &str) -> DiffLine {
        context_line(old_line, new_line, text.to_owned())
    }

    fn hunk(text: &str) -> DiffLine {
        DiffLine { kind: DiffKind::Hunk, old_line: None, new_line: None, text: text.to_owned() }
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
    fn bounded_myers_gives_up_beyond_its_cost() {
        assert!(bounded_myers(&[1, 2, 3], &[4, 5, 6], 5).is_none());
        assert_eq!(bounded_myers(&[1, 2, 3], &[4, 5, 6], 6).map(|edits| edits.len()), Some(6));
        assert_eq!(bounded_myers(&[], &[], 0), Some(vec![]));
    }

    #[test]
    fn anchors_are_the_longest_increasing_unique_pairs() {
        // 1 and 2 are unique on both sides but swapped; 3 is unique; 9 repeats.
        let anchors = unique_line_anchors(&[1, 9, 2, 3, 9], &[2, 1, 3, 9]);
        assert_eq!(anchors.len(), 2);
        assert_eq!(anchors.last(), Some(&(3, 2)));
        assert_eq!(longest_increasing_by_new(&[(0, 5), (1, 1), (2, 2), (3, 0), (4, 3)]), vec![(1, 1), (2, 2), (4, 3)]);
        assert!(longest_increasing_by_new(&[]).is_empty());
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
}
