//! The Files tab drawn: a window of its list's rows, and a file's page (its kept versions, and
//! every change in time order, each with a placeholder for its diff).

use sessionscope_engine::insights::edits::ChangeKind;
use sessionscope_engine::insights::report::{ChangeRef, FileSummary, VersionRef};

use super::{Html, counted, grouped, short_project, utc_minute};
use crate::logic::insight_lists::{FileFilter, FileSort};
use crate::render::units;
use crate::wire::insights::{FileOrder, FileQuery};

/// The list's filter, as the page asks for it.
pub fn filter_of(query: &FileQuery) -> FileFilter {
    FileFilter {
        text: query.text.clone(),
        project: query.project.clone(),
        changed_only: query.changed_only,
        sort: match query.order {
            FileOrder::LastChange => FileSort::LastChange,
            FileOrder::Changes => FileSort::Changes,
            FileOrder::Sessions => FileSort::Sessions,
            FileOrder::Path => FileSort::Path,
        },
    }
}

/// Rows `from..from + count` of the listed files (`order` indexes `files`), `active` selected.
/// They follow one another: the page puts the first at its place (the page's policy allows no
/// `style` attribute, so rows are not placed one by one).
pub fn rows_html(
    files: &[FileSummary],
    order: &[usize],
    from: usize,
    count: usize,
    active: Option<usize>,
    now: i64,
) -> String {
    let mut html = Html::new();
    for position in from..(from + count).min(order.len()) {
        let file = &files[order[position]];
        let last = match file.last_ms {
            Some(ms) => format!("{} ({})", utc_minute(Some(ms)), units::relative_time(ms, now)),
            None => "no time".to_owned(),
        };
        let mut facts = vec![counted(u64::from(file.sessions), "session"), counted(u64::from(file.changes), "change")];
        if file.added > 0 || file.removed > 0 {
            facts.push(format!("+{} −{}", grouped(file.added), grouped(file.removed)));
        }
        if file.reads > 0 {
            facts.push(counted(u64::from(file.reads), "read"));
        }
        if file.versions > 0 {
            facts.push(counted(u64::from(file.versions), "kept version"));
        }
        let id = format!("file-row-{position}");
        let posinset = (position + 1).to_string();
        let setsize = order.len().to_string();
        let selected = if active == Some(position) { "true" } else { "false" };
        html.open(
            "li",
            &[
                ("role", "option"),
                ("id", &id),
                ("class", "history-row file-row"),
                ("aria-selected", selected),
                ("aria-posinset", &posinset),
                ("aria-setsize", &setsize),
                ("data-action", "open-file"),
                ("data-position", &position.to_string()),
                ("data-project", &file.project),
                ("data-path", &file.path),
            ],
        );
        html.element("span", &[("class", "history-row-title file-path")], &file.path);
        html.raw(r#"<span class="history-row-facts muted">"#);
        if !file.agents.is_empty() {
            html.element("span", &[("class", "agent-badge")], &file.agents.join(", "));
            html.raw(" ");
        }
        html.text(&format!("{} · {} · last {last}", short_project(&file.project), facts.join(" · ")));
        html.raw("</span></li>");
    }
    html.finish()
}

/// A file's page: its facts, its kept versions (those whose files the page has can be compared,
/// which the page marks), and its first `shown` changes, each with a placeholder for its diff
/// (`data-diff="<unit>:<line>"`).
pub fn page_html(project: &str, path: &str, changes: &[ChangeRef], versions: &[VersionRef], shown: usize) -> String {
    let mut html = Html::new();
    html.open("section", &[("class", "insights file-page"), ("aria-label", &format!("File {path}"))]);
    html.raw(r#"<div class="file-page-head"><button type="button" class="button" data-action="back-to-files">← Files</button>"#);
    html.element("h2", &[("class", "file-path")], path);
    html.raw("</div>");
    let mut sessions: Vec<&str> = changes.iter().map(|c| c.place.session_id.as_str()).collect();
    sessions.sort_unstable();
    sessions.dedup();
    let mut agents: Vec<&str> = changes.iter().map(|c| c.place.agent.as_str()).filter(|a| !a.is_empty()).collect();
    agents.sort_unstable();
    agents.dedup();
    let agents = if agents.is_empty() { String::new() } else { format!(" · {}", agents.join(", ")) };
    html.element(
        "p",
        &[("class", "session-facts")],
        &format!(
            "{project} · {} in {}{agents}",
            counted(changes.len() as u64, "change"),
            counted(sessions.len() as u64, "session")
        ),
    );
    if !versions.is_empty() {
        versions_html(&mut html, versions);
    }
    if changes.is_empty() {
        html.element(
            "p",
            &[("class", "insights-empty"), ("role", "status")],
            "No session changed this file: it was only read.",
        );
    }
    html.raw(r#"<ol class="file-changes" aria-label="Changes">"#);
    for (index, change) in changes.iter().take(shown).enumerate() {
        change_html(&mut html, index, change);
    }
    html.raw("</ol>");
    let left = changes.len().saturating_sub(shown);
    if left > 0 {
        html.element(
            "button",
            &[("type", "button"), ("class", "button"), ("data-action", "more-changes")],
            &format!("Show more changes ({left} left)"),
        );
    }
    html.close("section");
    html.finish()
}

fn change_html(html: &mut Html, index: usize, change: &ChangeRef) {
    let kind = match change.kind {
        ChangeKind::Edit => "edited".to_owned(),
        ChangeKind::Write => "written".to_owned(),
        ChangeKind::Create => "created".to_owned(),
        ChangeKind::Delete => "deleted".to_owned(),
        ChangeKind::Move => match &change.to {
            Some(to) if *to != change.path => format!("moved to {to}"),
            _ => format!("moved from {}", change.path),
        },
    };
    let counts = if change.added > 0 || change.removed > 0 {
        format!(" · +{} −{}", change.added, change.removed)
    } else {
        String::new()
    };
    let title =
        if change.place.title.is_empty() { change.place.session_id.as_str() } else { change.place.title.as_str() };
    html.open("li", &[("class", "file-change"), ("id", &format!("file-change-{index}"))]);
    html.raw(r#"<div class="file-change-head">"#);
    html.element("span", &[("class", "file-change-when")], &utc_minute(change.place.time_ms));
    html.element("span", &[("class", "badge")], &kind);
    html.element("span", &[("class", "muted")], &format!("{}{counts}", change.tool));
    if change.failed {
        html.element("span", &[("class", "badge failure-tool")], "the call failed");
    }
    html.element("span", &[("class", "agent-badge")], &change.place.agent);
    html.raw("</div>");
    html.raw(r#"<p class="file-change-session">"#);
    html.open_place_button(&change.place, &format!("Open “{title}” at this change"));
    html.raw("</p>");
    if !change.prompt.is_empty() {
        html.raw(r#"<p class="file-change-prompt"><span class="muted">Prompt: </span>"#);
        html.text(&change.prompt);
        html.raw("</p>");
    }
    let key = format!("{}:{}", change.place.unit, change.place.entry);
    html.open("div", &[("class", "change-diff"), ("data-diff", &key)]);
    html.element("p", &[("class", "muted"), ("role", "status")], "Reading the diff…");
    html.raw("</div></li>");
}

fn versions_html(html: &mut Html, versions: &[VersionRef]) {
    let count = versions.len() as u64;
    html.raw(r#"<section class="file-versions" aria-label="Kept versions">"#);
    html.element("h3", &[("class", "insights-heading")], &format!("{} kept by Claude Code", counted(count, "version")));
    html.element(
        "p",
        &[("class", "muted")],
        "Claude Code keeps a file as it was before each change it makes, in file-history/ beside the projects.",
    );
    let label = |v: &VersionRef| {
        format!(
            "v{} · {} · {}",
            v.version,
            utc_minute(v.place.time_ms),
            v.place.session_id.chars().take(8).collect::<String>()
        )
    };
    html.raw(r#"<ul class="version-list">"#);
    for version in versions {
        html.open(
            "li",
            &[("data-version-session", &version.place.session_id), ("data-version-backup", &version.backup)],
        );
        html.text(&label(version));
        html.raw(" ");
        html.element("code", &[], &version.backup);
        html.raw("</li>");
    }
    html.raw("</ul>");
    if versions.len() > 1 {
        html.raw(r#"<div class="history-filters" role="group" aria-label="Compare versions"><label>Compare "#);
        for (name, label_text, selected) in
            [("compare-old", "Older version", versions.len() - 2), ("compare-new", "Newer version", versions.len() - 1)]
        {
            html.open("select", &[("aria-label", label_text), ("data-compare", name)]);
            for (i, version) in versions.iter().enumerate() {
                let value = i.to_string();
                if i == selected {
                    html.open("option", &[("value", &value), ("selected", "")]);
                } else {
                    html.open("option", &[("value", &value)]);
                }
                html.text(&label(version)).close("option");
            }
            html.raw("</select>");
            if name == "compare-old" {
                html.raw("</label><label> with ");
            }
        }
        html.raw(
            r#"</label><button type="button" class="button" data-action="compare-versions">Compare</button></div>"#,
        );
    }
    html.raw(r#"<div class="version-diff" data-compare-output=""></div></section>"#);
}

/// Versions' places and backups, for the page to find their files: `(session id, backup)`.
pub fn version_keys(versions: &[VersionRef]) -> Vec<(String, String)> {
    versions.iter().map(|v| (v.place.session_id.clone(), v.backup.clone())).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use sessionscope_engine::insights::report::Place;

    fn place(session: &str, entry: &str, time_ms: i64) -> Place {
        Place {
            unit: 2,
            session: 0,
            session_id: session.into(),
            project: "/w".into(),
            agent: "Pi".into(),
            entry: entry.into(),
            time_ms: Some(time_ms),
            title: String::new(),
        }
    }

    #[test]
    fn a_file_page_lists_its_changes_with_their_diffs_to_come_and_escapes_every_text() {
        let change = ChangeRef {
            place: place("s<1>", "e\"1", 0),
            path: "src/<x>.rs".into(),
            kind: ChangeKind::Edit,
            to: None,
            tool: "edit".into(),
            prompt: "<img src=x onerror=alert(1)>".into(),
            added: 2,
            removed: 1,
            failed: false,
        };
        let html = page_html("/w", "src/<x>.rs", &[change.clone(), change], &[], 1);
        assert!(!html.contains("<img") && !html.contains("<x>"), "{html}");
        assert_eq!(html.matches("class=\"file-change\"").count(), 1, "one change shown");
        assert!(html.contains("data-diff=\"2:e&quot;1\""));
        assert!(html.contains("Show more changes (1 left)"));
    }
}
