//! Diffs drawn as the session view draws them (`views::content::diff_view`: the same classes, so
//! the same look in both themes): line numbers, signs, changed words marked.

use super::Html;
use crate::render::diff::{self, CONTEXT_LINES, DiffKind, DiffLine};

/// Lines a diff draws at most (the rest are counted).
const MAX_LINES: usize = 2000;

/// The diff of edits, `(old, new)` texts, their lines one after the other, changed words marked.
pub fn edits_html(edits: &[(String, String)]) -> String {
    let mut lines: Vec<DiffLine> =
        edits.iter().flat_map(|(old, new)| diff::diff_lines(old, new, CONTEXT_LINES)).collect();
    diff::mark_changed_words(&mut lines);
    lines_html(&lines)
}

/// Diff lines as HTML.
pub fn lines_html(lines: &[DiffLine]) -> String {
    let (added, removed) = diff::count_changes(lines);
    let mut html = Html::new();
    html.open(
        "div",
        &[("class", "diff"), ("role", "group"), ("aria-label", &format!("Diff: {added} added, {removed} removed"))],
    );
    html.raw(r#"<div class="diff-stat"><span class="diff-stat-add">"#);
    html.text(&format!("+{added}"));
    html.raw(r#"</span> <span class="diff-stat-del">"#);
    html.text(&format!("-{removed}"));
    html.raw("</span></div>");
    for line in lines.iter().take(MAX_LINES) {
        let (class, sign) = match line.kind {
            DiffKind::Added => ("diff-line diff-add", "+"),
            DiffKind::Removed => ("diff-line diff-del", "-"),
            DiffKind::Hunk => ("diff-line diff-hunk", ""),
            DiffKind::Context => ("diff-line", " "),
        };
        let number = |n: Option<u32>| n.map(|n| n.to_string()).unwrap_or_default();
        html.open("div", &[("class", class)]);
        html.element("span", &[("class", "diff-no")], &number(line.old_line));
        html.element("span", &[("class", "diff-no")], &number(line.new_line));
        html.element("span", &[("class", "diff-sign")], sign);
        html.raw(r#"<span class="diff-text">"#);
        if line.words.is_empty() {
            html.text(&line.text);
        } else {
            for word in &line.words {
                match (word.changed, line.kind) {
                    (false, _) => html.text(&word.text),
                    (true, DiffKind::Added) => html.element("ins", &[("class", "diff-word-add")], &word.text),
                    (true, _) => html.element("del", &[("class", "diff-word-del")], &word.text),
                };
            }
        }
        html.raw("</span></div>");
    }
    let more = lines.len().saturating_sub(MAX_LINES);
    if more > 0 {
        html.element("p", &[("class", "muted")], &format!("… {}", super::counted(more as u64, "more line")));
    }
    html.close("div");
    html.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_edit_is_drawn_with_its_changed_words_and_its_text_escaped() {
        let html = edits_html(&[("let a = <b>1</b>;\n".into(), "let a = <b>2</b>;\n".into())]);
        assert!(html.contains(r#"aria-label="Diff: 1 added, 1 removed""#), "{html}");
        assert!(html.contains("diff-line diff-del") && html.contains("diff-line diff-add"));
        assert!(html.contains(r#"<ins class="diff-word-add">"#), "changed words are marked: {html}");
        assert!(!html.contains("<b>") && html.contains("&lt;b&gt;"));
    }
}
