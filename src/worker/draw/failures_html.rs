//! The Failures tab drawn: the history's tool calls and how many failed, the rates by tool,
//! project, model and agent (tables with a bar in each row), and the most frequent failure
//! messages grouped, each with its occurrences to open.

use sessionscope_engine::insights::FailureKind;
use sessionscope_engine::insights::report::{FailureGroup, FailureReport, Rate};

use super::{Html, bar, counted, grouped, short_project, utc_minute};

/// Rows of each rate table.
const RATE_ROWS: usize = 12;

/// The tab, its first `groups` groups drawn; `sessions` is how many sessions the history holds.
pub fn html(report: &FailureReport, groups: usize, sessions: usize) -> String {
    let mut html = Html::new();
    if report.calls == 0 && report.interrupted == 0 && report.api_errors == 0 {
        let text = if sessions == 0 {
            "No session has been indexed yet.".to_owned()
        } else {
            format!(
                "No tool call, interrupted turn or API error in the {} of this history.",
                counted(sessions as u64, "session")
            )
        };
        html.element("p", &[("class", "insights-empty"), ("role", "status")], &text);
        return html.finish();
    }
    let share = if report.calls == 0 { 0.0 } else { report.tool_failures as f64 / report.calls as f64 * 100.0 };
    html.element(
        "p",
        &[("class", "session-facts")],
        &format!(
            "{} of {} {} failed ({share:.1}%) · {} · {}",
            grouped(report.tool_failures),
            grouped(report.calls),
            crate::logic::words::noun(report.calls, "tool call"),
            counted(report.interrupted, "interrupted turn"),
            counted(report.api_errors, "API error")
        ),
    );
    html.raw(r#"<div class="insight-grid">"#);
    // A project is named by its folder, its whole path in the row's title.
    let whole: fn(&str) -> &str = |name| name;
    for (caption, what, rates, shown) in [
        ("Failures by tool", "Tool", &report.by_tool, whole),
        ("Failures by project", "Project", &report.by_project, short_project as fn(&str) -> &str),
        ("Failures by model", "Model", &report.by_model, whole),
        ("Failures by agent", "Agent", &report.by_agent, whole),
    ] {
        rate_table(&mut html, caption, what, rates, shown);
    }
    html.raw("</div>");
    html.element("h2", &[("class", "insights-heading")], "Most frequent failures");
    if report.groups.is_empty() {
        html.element("p", &[("class", "muted")], "No failure to group.");
    }
    html.raw(r#"<ol class="failure-groups" aria-label="Failure groups">"#);
    for group in report.groups.iter().take(groups) {
        group_html(&mut html, group);
    }
    html.raw("</ol>");
    let left = report.groups.len().saturating_sub(groups);
    if left > 0 {
        html.element(
            "button",
            &[("type", "button"), ("class", "button"), ("data-action", "more-groups")],
            &format!("Show more ({left} left)"),
        );
    }
    html.finish()
}

/// A table of failure rates, the most failed first, with a bar of each share.
fn rate_table(html: &mut Html, caption: &str, what: &str, rates: &[Rate], shown: fn(&str) -> &str) {
    let failing: Vec<&Rate> = rates.iter().filter(|r| r.failed > 0).collect();
    html.open("div", &[("class", "insight-table"), ("role", "region"), ("aria-label", caption), ("tabindex", "0")]);
    html.raw("<table>");
    html.element("caption", &[], caption);
    html.raw(r#"<thead><tr><th scope="col">"#);
    html.text(what);
    html.raw(r#"</th><th scope="col">Failed</th><th scope="col">Calls</th><th scope="col">Rate</th><th scope="col"><span class="visually-hidden">Rate as a bar</span></th></tr></thead><tbody>"#);
    for rate in failing.iter().take(RATE_ROWS) {
        let name = if rate.name.is_empty() { "(none)" } else { rate.name.as_str() };
        html.raw("<tr>");
        html.element("th", &[("scope", "row"), ("class", "name-cell"), ("title", name)], shown(name));
        html.element("td", &[("class", "number")], &grouped(rate.failed));
        html.element("td", &[("class", "number")], &grouped(rate.calls));
        html.element("td", &[("class", "number")], &format!("{:.1}%", rate.share() * 100.0));
        html.raw(r#"<td class="bar-cell">"#);
        bar(html, rate.share(), "bar-failed");
        html.raw("</td></tr>");
    }
    html.raw("</tbody></table>");
    if failing.is_empty() {
        html.element("p", &[("class", "muted")], "None failed.");
    } else if failing.len() > RATE_ROWS {
        html.element("p", &[("class", "muted")], &format!("and {} more", failing.len() - RATE_ROWS));
    }
    html.raw("</div>");
}

fn group_html(html: &mut Html, group: &FailureGroup) {
    let (kind, class) = match group.kind {
        FailureKind::Tool => ("tool failure", "badge failure-tool"),
        FailureKind::Interrupted => ("interrupted", "badge failure-interrupted"),
        FailureKind::Api => ("API error", "badge failure-api"),
    };
    let when = match (group.first_ms, group.last_ms) {
        (Some(first), Some(last)) if first != last => {
            format!("first {} · last {}", utc_minute(Some(first)), utc_minute(Some(last)))
        }
        (Some(at), _) => format!("at {}", utc_minute(Some(at))),
        _ => "no time".to_owned(),
    };
    let tools = if group.tools.is_empty() { String::new() } else { format!(" · {}", group.tools.join(", ")) };
    html.raw(r#"<li class="failure-group"><div class="failure-head">"#);
    html.element("span", &[("class", "failure-count")], &format!("{} ×", grouped(group.count)));
    html.element("span", &[("class", class)], kind);
    html.element("code", &[("class", "failure-key")], &group.key);
    html.raw("</div>");
    html.element("p", &[("class", "muted failure-facts")], &format!("{when}{tools}"));
    html.raw("<details><summary>");
    html.text(&counted(group.count, "occurrence"));
    html.raw(r#"</summary><p class="failure-sample"><span class="muted">As first seen: </span>"#);
    html.element("code", &[], &group.sample);
    html.raw(r#"</p><ul class="failure-places">"#);
    for place in &group.occurrences {
        let title = if place.title.is_empty() { place.session_id.as_str() } else { place.title.as_str() };
        html.raw("<li>");
        html.open_place_button(place, &format!("{} · {title}", utc_minute(place.time_ms)));
        html.raw("</li>");
    }
    html.raw("</ul>");
    let more = (group.count as usize).saturating_sub(group.occurrences.len());
    if more > 0 {
        html.element("p", &[("class", "muted")], &format!("and {more} more, not listed"));
    }
    html.raw("</details></li>");
}

#[cfg(test)]
mod tests {
    use super::*;
    use sessionscope_engine::insights::report::Place;

    #[test]
    fn the_tab_draws_rates_and_groups_and_says_when_nothing_failed() {
        let empty = html(&FailureReport::default(), 30, 4);
        assert!(empty.contains("No tool call, interrupted turn or API error in the 4 sessions"), "{empty}");
        let place =
            Place { unit: 1, session_id: "s1".into(), entry: "e9".into(), time_ms: Some(0), ..Place::default() };
        let report = FailureReport {
            calls: 10,
            tool_failures: 3,
            by_tool: vec![Rate { name: "Bash".into(), calls: 10, failed: 3 }],
            groups: vec![FailureGroup {
                kind: FailureKind::Tool,
                key: "cat: <path>: No such file".into(),
                sample: "cat: /tmp/a: No such file".into(),
                count: 3,
                first_ms: Some(0),
                last_ms: Some(60_000),
                tools: vec!["Bash".into()],
                occurrences: vec![place],
            }],
            ..FailureReport::default()
        };
        let drawn = html(&report, 30, 2);
        assert!(drawn.contains("3 of 10 tool calls failed (30.0%)"), "{drawn}");
        assert!(drawn.contains("cat: &lt;path&gt;: No such file"));
        assert!(drawn.contains(r#"data-action="open-place" data-unit="1" data-session="s1" data-entry="e9""#));
        assert!(drawn.contains("and 2 more, not listed"));
    }
}
