//! Filters on the graph: by role and kind of row, agent, time range, errors only.

use leptos::prelude::*;
use sessionscope_engine::dag::ConversationId;
use sessionscope_engine::json::{format_timestamp_ms, parse_timestamp_ms};

use crate::logic::outline::RowFilter;
use crate::state::use_viewer;

#[component]
pub fn GraphFilters() -> impl IntoView {
    let viewer = use_viewer();
    let filter = viewer.filter;
    let update = move |change: &dyn Fn(&mut RowFilter)| {
        let mut next = filter.get_untracked();
        change(&mut next);
        viewer.set_filter(next);
    };
    let shown = move |pick: fn(&RowFilter) -> bool| move || !pick(&filter.get());
    let checkbox = move |label: &'static str, pick: fn(&RowFilter) -> bool, set: fn(&mut RowFilter, bool)| {
        view! {
            <label class="toggle">
                <input
                    type="checkbox"
                    prop:checked=shown(pick)
                    on:change=move |event| {
                        let show = event_target_checked(&event);
                        update(&|f| set(f, !show));
                    }
                />
                " "{label}
            </label>
        }
    };
    let agents = move || {
        let model = viewer.model()?;
        let session = model.graph.session(viewer.session.get())?;
        let current = filter.get().conversation;
        let options: Vec<AnyView> = std::iter::once(session.main)
            .filter(|&c| c.is_some())
            .chain(session.agents.iter().copied())
            .map(|c| {
                let conv = &model.graph.conversations[c.index()];
                let label = if conv.is_agent() {
                    format!(
                        "{}: {}",
                        if conv.agent_type.is_empty() { conv.kind.name() } else { &conv.agent_type },
                        conv.description
                    )
                } else {
                    "main thread".to_owned()
                };
                view! { <option value=c.to_string() selected=current == Some(c)>{label}</option> }.into_any()
            })
            .collect();
        Some(options)
    };
    // Times in UTC, as `datetime-local` values.
    let to_input = |ms: Option<i64>| ms.map(|ms| format_timestamp_ms(ms)[..19].to_owned()).unwrap_or_default();
    let from_input = |value: String| -> Option<i64> {
        let value = value.trim();
        if value.is_empty() {
            return None;
        }
        let full = if value.len() == 16 { format!("{value}:00Z") } else { format!("{value}Z") };
        parse_timestamp_ms(&full)
    };
    let matched = move || {
        viewer.outline_rebuilt.track();
        viewer.outline.with_value(|o| {
            o.as_ref()
                .filter(|o| o.is_filtering())
                .map(|o| if o.matched == 1 { "1 row matches".to_owned() } else { format!("{} rows match", o.matched) })
        })
    };
    view! {
        <details class="graph-filters">
            <summary>"Filter the graph"</summary>
            <div class="filter-controls" role="group" aria-label="Graph filters">
                {checkbox("User", |f| f.hide_user, |f, v| f.hide_user = v)}
                {checkbox("Assistant", |f| f.hide_assistant, |f, v| f.hide_assistant = v)}
                {checkbox("Tool calls", |f| f.hide_tools, |f, v| f.hide_tools = v)}
                {checkbox("System and hidden lines", |f| f.hide_system, |f, v| f.hide_system = v)}
                <label class="toggle">
                    <input
                        type="checkbox"
                        prop:checked=move || filter.get().errors_only
                        on:change=move |event| {
                            let on = event_target_checked(&event);
                            update(&|f| f.errors_only = on);
                        }
                    />
                    " Errors only"
                </label>
                <select
                    aria-label="Conversation"
                    on:change=move |event| {
                        let value = event_target_value(&event).parse::<ConversationId>().ok();
                        update(&|f| f.conversation = value);
                    }
                >
                    <option value="">"All conversations"</option>
                    {agents}
                </select>
                <label class="toggle">
                    "From (UTC) "
                    <input
                        type="datetime-local"
                        step="1"
                        prop:value=move || to_input(filter.get().from_ms)
                        on:change=move |event| {
                            let value = from_input(event_target_value(&event));
                            update(&|f| f.from_ms = value);
                        }
                    />
                </label>
                <label class="toggle">
                    "To (UTC) "
                    <input
                        type="datetime-local"
                        step="1"
                        prop:value=move || to_input(filter.get().to_ms)
                        on:change=move |event| {
                            let value = from_input(event_target_value(&event));
                            update(&|f| f.to_ms = value);
                        }
                    />
                </label>
                {move || filter.get().is_active().then(|| view! {
                    <button type="button" class="button small" on:click=move |_| viewer.set_filter(RowFilter::default())>
                        "Clear"
                    </button>
                })}
                <span class="muted" role="status">{matched}</span>
            </div>
        </details>
    }
}
