//! The ranked search's results, drawn (issue 52): the sessions found, in order, each with its
//! place in the order, its score and its best snippets, the query's words marked. A session's
//! title opens it at its first snippet, a snippet at its own message (`data-action="open-hit"`,
//! with the words to search for there in `data-words`).

use crate::render::terminal::match_parts;
use sessionscope_engine::ranked::{Ranked, RankedSession, RankedSnippet};

use super::{Html, counted, short_project, utc_minute};

/// The sessions found as an ordered list; `units[i]` is the history's place of result `i`'s unit.
pub fn html(results: &[RankedSession], units: &[u32]) -> String {
    let mut html = Html::new();
    if results.is_empty() {
        return String::new();
    }
    html.open("ol", &[("class", "ranked-results"), ("aria-label", "Sessions found")]);
    for (session, unit) in results.iter().zip(units) {
        let rank = session.rank.to_string();
        html.open("li", &[("class", "ranked-session"), ("data-rank", &rank)]);
        let title = if session.title.trim().is_empty() { &session.session_id } else { &session.title };
        hit_button(&mut html, session, *unit, session.snippets.first(), "link ranked-title", title);
        let meta = format!(
            " {} · {} · {} · score {:.2}",
            short_project(&session.project),
            session.agent,
            utc_minute(session.last_ms),
            session.score
        );
        html.element("span", &[("class", "muted")], &meta);
        if !session.snippets.is_empty() {
            html.open("ul", &[("aria-label", "Where the words are")]);
            for snippet in &session.snippets {
                html.open("li", &[]);
                let mut label = Html::new();
                let (before, matched, after) = match_parts(&snippet.snippet, snippet.match_start, snippet.match_len);
                label.element("span", &[("class", "muted")], &format!("{}: ", snippet.zone.name()));
                label.text(&before);
                label.element("mark", &[], &matched);
                label.text(&after);
                open_hit(&mut html, session, *unit, Some(snippet), "search-hit");
                html.append(label);
                html.close("button");
                html.close("li");
            }
            html.close("ul");
        }
        html.close("li");
    }
    html.close("ol");
    html.finish()
}

/// What a search found, in a sentence: the sessions found of those searched, those shown, how
/// long the worker took since `started_ms`, and the units it read (`unread_indexes` had no word
/// index made of their files as they are).
pub fn status(ranked: &Ranked, unread_indexes: usize, started_ms: f64) -> String {
    let shown = if ranked.results.len() < ranked.total {
        format!(" (the best {} shown)", ranked.results.len())
    } else {
        String::new()
    };
    let read = match unread_indexes {
        0 => String::new(),
        n => format!(" · {} read, not indexed yet", counted(n as u64, "session file set")),
    };
    let took = js_sys::Date::now() - started_ms;
    format!(
        "{} found of {}{shown} · {took:.0} ms{read}",
        counted(ranked.total as u64, "session"),
        ranked.sessions_searched
    )
}

/// A button that opens `session` at `snippet`'s message, labelled `label`.
fn hit_button(
    html: &mut Html,
    session: &RankedSession,
    unit: u32,
    snippet: Option<&RankedSnippet>,
    class: &'static str,
    label: &str,
) {
    open_hit(html, session, unit, snippet, class);
    html.text(label);
    html.close("button");
}

/// `<button …>` opening `session` at `snippet`'s message, with its matched words to search for.
fn open_hit(html: &mut Html, session: &RankedSession, unit: u32, snippet: Option<&RankedSnippet>, class: &'static str) {
    let unit = unit.to_string();
    let (entry, words) = match snippet {
        Some(snippet) => {
            (snippet.entry_uuid.as_str(), match_parts(&snippet.snippet, snippet.match_start, snippet.match_len).1)
        }
        None => ("", String::new()),
    };
    html.open(
        "button",
        &[
            ("type", "button"),
            ("class", class),
            ("data-action", "open-hit"),
            ("data-unit", &unit),
            ("data-session", &session.session_id),
            ("data-entry", entry),
            ("data-words", &words),
        ],
    );
}
