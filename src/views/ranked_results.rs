//! The ranked search's results on the history home (issue 52): a status line, and the sessions
//! found as the history worker drew them (`worker::draw::ranked_html`), best first (or newest
//! first), each with its best snippets; a session's title opens it at its first snippet, a
//! snippet at its own message, with the matched words searched there.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::state::history::{HistoryState, RANKED_SHOWN};

/// The status line of the ranked search, and why it found nothing if it could not search.
pub fn ranked_status(history: HistoryState) -> impl IntoView {
    move || {
        history.ranked.changed.track();
        let asking = history.ranked.asking();
        let (status, error) = history.ranked.answer.with_value(|answer| match answer.as_ref().map(|a| &a.found) {
            Some(Ok((_, status))) => (status.clone(), None),
            Some(Err(error)) => (String::new(), Some(error.clone())),
            None => (if asking { "Searching…".to_owned() } else { String::new() }, None),
        });
        view! {
            {error.map(|e| view! { <p class="load-error" role="alert">{e}</p> })}
            <p class="muted" role="status">{status}</p>
        }
    }
}

/// The sessions found, as drawn; a click on one of its buttons opens the session there. Past
/// the sessions listed, "Show more" lists the next [`RANKED_SHOWN`], and the first of them takes
/// the focus once drawn, so a keyboard goes on reading where the list grew.
pub fn ranked_list(history: HistoryState) -> impl IntoView {
    let html = move || {
        history.ranked.changed.track();
        history.ranked.answer.with_value(|answer| {
            answer.as_ref().and_then(|a| a.found.as_ref().ok()).map(|(html, _)| html.clone()).unwrap_or_default()
        })
    };
    let on_click = move |event: web_sys::MouseEvent| {
        let Some(target) = event.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()) else { return };
        let Some(button) = target.closest("[data-action=open-hit]").ok().flatten() else { return };
        let data = |name: &str| button.get_attribute(name).unwrap_or_default();
        let unit = data("data-unit").parse().unwrap_or(u32::MAX);
        history.open_ranked(unit, &data("data-session"), &data("data-entry"), &data("data-words"));
    };
    let drawn = NodeRef::<leptos::html::Div>::new();
    // The rank of the session to focus once the longer list is drawn.
    let focus_rank = StoredValue::new(None::<u32>);
    // The list is drawn here, not by an attribute, so that the session to focus is there when
    // it is looked for: one effect draws, then focuses, in that order in every engine.
    let shown = StoredValue::new(String::new());
    Effect::new(move |_| {
        let html = html();
        let Some(drawn) = drawn.get() else { return };
        if shown.with_value(|shown| *shown != html) {
            drawn.set_inner_html(&html);
            shown.set_value(html);
        }
        if history.ranked.asking() {
            return;
        }
        let Some(rank) = focus_rank.get_value() else { return };
        focus_rank.set_value(None);
        let selector = format!("[data-rank=\"{rank}\"] button");
        if let Ok(Some(first)) = drawn.query_selector(&selector)
            && let Ok(first) = first.dyn_into::<web_sys::HtmlElement>()
        {
            let _ = first.focus();
        }
    });
    let more = move || {
        history.ranked.changed.track();
        let (query, more) = history
            .ranked
            .answer
            .with_value(|answer| answer.as_ref().map(|a| (a.query.clone(), a.more)))
            .filter(|(_, more)| *more > 0)?;
        let label = format!("Show {} more", more.min(RANKED_SHOWN));
        let show_more = move |_| {
            focus_rank.set_value(Some(query.keep() + 1));
            history.rank(query.more());
        };
        Some(view! {
            <button type="button" class="ranked-more" on:click=show_more disabled=move || history.ranked.asking()>
                {label}
            </button>
        })
    };
    view! {
        <div class="ranked-drawn" node_ref=drawn on:click=on_click></div>
        {more}
    }
}

/// The id of the box's list of completions.
pub const COMPLETIONS_ID: &str = "ranked-completions";

/// The completions of the query typed (a filter's key or value), for the box's `list`.
pub fn ranked_completions(history: HistoryState) -> impl IntoView {
    let options = move || {
        history.ranked.changed.track();
        let completions = history.ranked.answer.with_value(|a| a.as_ref().map(|a| a.completions.clone()));
        completions
            .unwrap_or_default()
            .into_iter()
            .map(|value| view! { <option value=value></option> })
            .collect::<Vec<_>>()
    };
    // The query answered, which the completions complete.
    let answered = move || {
        history.ranked.changed.track();
        history.ranked.answer.with_value(|a| a.as_ref().map(|a| a.query.text.clone()))
    };
    view! { <datalist id=COMPLETIONS_ID data-query=answered>{options}</datalist> }
}
