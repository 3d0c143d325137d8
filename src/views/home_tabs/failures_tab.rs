//! The Failures tab: the insights worker's drawing of the history's failed tool calls (rates by
//! tool, project, model and agent; the most frequent failures grouped, each occurrence opening
//! its session at the call), interrupted turns and API errors.

use leptos::prelude::*;

use super::{Coverage, act, drawn, error_view};
use crate::state::history::use_history;
use crate::wire::insights::InsightsRequest;

/// Groups drawn at first, and more each time "Show more" is pressed.
const GROUPS: u32 = 30;

#[component]
pub fn FailuresTab() -> impl IntoView {
    let history = use_history();
    let groups = RwSignal::new(GROUPS);
    let (html, error) = drawn("failures", move || InsightsRequest::Failures { groups: groups.get() });
    let on_click = move |event: web_sys::MouseEvent| {
        if let Some((action, _)) = act(history, &event)
            && action == "more-groups"
        {
            groups.update(|g| *g += GROUPS);
        }
    };
    view! {
        <section class="insights" aria-label="Failures">
            <Coverage />
            {error_view(error)}
            <div class="insights-drawn" on:click=on_click inner_html=move || html.get()></div>
        </section>
    }
}
