//! The search box: `/` or Ctrl+F to focus, plain text or regex, Enter and Shift+Enter to step
//! through the hits, each shown in the graph (parents expanded, branch switched) and
//! highlighted.

use leptos::html;
use leptos::prelude::*;
use sessionscope_engine::dag::{OpId, ToolCategory};
use sessionscope_engine::search::{Field, Hit};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

use crate::logic::outline::RowKey;
use crate::platform::browser::{self, Feature};
use crate::state::session_search::{SearchState, use_search};
use crate::state::{ViewerState, use_viewer};
use crate::wire::SearchQuery;

/// Hits listed under the box (all are counted and can be stepped through).
const LISTED: usize = 200;

#[component]
pub fn SearchBox() -> impl IntoView {
    let viewer = use_viewer();
    let search = use_search();
    let input = NodeRef::<html::Input>::new();
    let pending = StoredValue::new(0u32);

    // `/` and Ctrl+F focus the box from anywhere.
    let _shortcut = window_event_listener(leptos::ev::keydown, move |event| {
        let typing = crate::views::shortcuts::typing_in(&event);
        let find = (event.ctrl_key() || event.meta_key()) && event.key() == "f";
        if (find || (event.key() == "/" && !typing))
            && let Some(input) = input.get_untracked()
        {
            event.prevent_default();
            let _ = input.focus();
            input.select();
        }
    });

    // Enter pressed before its query's search ran: the step it asked for, taken when hits come.
    let step_when_found = StoredValue::new(None::<i64>);
    // A whole-history search hit being opened: its message's first hit, once found.
    Effect::new(move |_| {
        search.hits_changed.track();
        let Some(entry) = search.go_to_entry_when_found.get_value() else { return };
        if let Some(index) = search.hits.with_value(|h| h.iter().position(|hit| hit.entry == entry)) {
            search.go_to_entry_when_found.set_value(None);
            go_to(&viewer, search, index);
            // The hit is on screen: the list of hits would only cover it.
            search.open.set(false);
        } else if search.done.get() {
            search.go_to_entry_when_found.set_value(None);
        }
    });
    Effect::new(move |_| {
        search.hits_changed.track();
        let Some(by) = step_when_found.get_value() else { return };
        if search.hits.with_value(|h| !h.is_empty()) {
            step_when_found.set_value(None);
            step(&viewer, search, by);
        } else if search.done.get() {
            // Nothing found: the step is forgotten, not taken by a later search.
            step_when_found.set_value(None);
        }
    });

    let schedule = move || {
        pending.update_value(|p| *p += 1);
        let ticket = pending.get_value();
        leptos::task::spawn_local(async move {
            gloo::timers::future::TimeoutFuture::new(250).await;
            if pending.try_get_value() == Some(ticket) {
                search.run(viewer.model_untracked());
            }
        });
    };
    let on_input = move |event: web_sys::Event| {
        search.query.set(event_target_value(&event));
        schedule();
    };
    let on_keydown = move |event: web_sys::KeyboardEvent| match event.key().as_str() {
        "Enter" => {
            event.prevent_default();
            let by = if event.shift_key() { -1 } else { 1 };
            if search.is_current() {
                step(&viewer, search, by);
            } else {
                // A query typed since the last search runs now, not after the typing pause, and
                // its first hit is shown as soon as it is found.
                pending.update_value(|p| *p += 1);
                step_when_found.set_value(Some(by));
                search.run(viewer.model_untracked());
            }
        }
        "Escape" => {
            search.open.set(false);
            if let Some(tree) = document()
                .query_selector("[role=tree]")
                .ok()
                .flatten()
                .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
            {
                let _ = tree.focus();
            }
        }
        _ => {}
    };
    let status = move || {
        search.hits_changed.track();
        if let Some(error) = search.error.get() {
            return error;
        }
        let total = search.total.get();
        let current = search.current.get();
        let running = !search.done.get();
        if search.query.get().is_empty() {
            String::new()
        } else if total == 0 {
            if running { "searching…".into() } else { "no match".into() }
        } else {
            let position = current.map(|c| format!("{} of ", c + 1)).unwrap_or_default();
            format!(
                "{position}{total} match{}{}",
                if total == 1 { "" } else { "es" },
                if running { " so far" } else { "" }
            )
        }
    };
    view! {
        <div
            class="search"
            role="search"
            aria-label="Search the loaded sessions"
            aria-busy=move || if search.running.get() { "true" } else { "false" }
        >
            <input
                type="search"
                node_ref=input
                class="search-input"
                placeholder="Search  ( / )"
                aria-label="Search text"
                prop:value=move || search.query.get()
                on:input=on_input
                on:keydown=on_keydown
                on:click=move |_| search.open.set(true)
                on:focus=move |_| {
                    search.open.set(true);
                    // The session's worker, which searches, gets ready while the query is typed.
                    search.prepare(viewer.model_untracked());
                }
            />
            <label class="search-option">
                <input
                    type="checkbox"
                    prop:checked=move || search.regex.get()
                    on:change=move |event| {
                        search.regex.set(event_target_checked(&event));
                        search.run(viewer.model_untracked());
                    }
                />
                " Regex"
            </label>
            <span class="search-status" role="status" aria-live="polite">{status}</span>
            <button type="button" class="button small" aria-label="Previous match" on:click=move |_| step(&viewer, search, -1)>"↑"</button>
            <button type="button" class="button small" aria-label="Next match" on:click=move |_| step(&viewer, search, 1)>"↓"</button>
            <SearchResults />
        </div>
    }
}

#[component]
fn SearchResults() -> impl IntoView {
    let viewer = use_viewer();
    let search = use_search();
    move || {
        search.hits_changed.track();
        if !search.open.get() || search.query.get().is_empty() || search.total.get() == 0 {
            return None;
        }
        let model = viewer.model.get_value()?;
        let current = search.current.get();
        let items: Vec<AnyView> = search.hits.with_value(|hits| {
            hits.iter()
                .take(LISTED)
                .enumerate()
                .map(|(i, hit)| {
                    let entry = &model.corpus.entries[hit.entry.index()];
                    let where_ = describe(&model, hit);
                    let chars: Vec<char> = hit.context.chars().collect();
                    let start = (hit.match_start as usize).min(chars.len());
                    let end = (start + hit.match_len as usize).min(chars.len());
                    let before: String = chars[..start].iter().collect();
                    let matched: String = chars[start..end].iter().collect();
                    let after: String = chars[end..].iter().collect();
                    let line = entry.line;
                    view! {
                        <li>
                            <button
                                type="button"
                                class="search-hit"
                                class:current=current == Some(i)
                                on:click=move |_| go_to(&viewer, search, i)
                            >
                                <span class="hit-where">{format!("{where_} · line {line}")}</span>
                                <span class="hit-context">{before}<mark>{matched}</mark>{after}</span>
                            </button>
                        </li>
                    }
                    .into_any()
                })
                .collect()
        });
        let more = search.hits.with_value(Vec::len).saturating_sub(LISTED);
        Some(view! {
            <div class="search-results">
                <ul aria-label="Search results">{items}</ul>
                {(more > 0).then(|| view! { <p class="muted">{format!("{more} more hits: step with Enter")}</p> })}
                <button type="button" class="button small" on:click=move |_| search.open.set(false)>"Close"</button>
            </div>
        })
    }
}

fn describe(model: &crate::logic::loaded::Model, hit: &Hit) -> String {
    let graph = &model.graph;
    let conv = &graph.conversations[graph.nodes[hit.entry.index()].conversation.index()];
    let who = if conv.is_agent() {
        format!("agent {}", if conv.agent_type.is_empty() { &conv.agent_name } else { &conv.agent_type })
    } else {
        "main".to_owned()
    };
    format!("{} · {who}", hit.field.name())
}

/// Moves to the next (or previous) hit and shows it.
pub fn step(viewer: &ViewerState, search: SearchState, by: i64) {
    let count = search.hits.with_value(Vec::len);
    if count == 0 {
        return;
    }
    let next = match search.current.get_untracked() {
        Some(current) => (current as i64 + by).rem_euclid(count as i64) as usize,
        None if by < 0 => count - 1,
        None => 0,
    };
    go_to(viewer, search, next);
}

/// Shows hit `index`: tool inputs and results in their expanded tool call, text in its message.
pub fn go_to(viewer: &ViewerState, search: SearchState, index: usize) {
    let Some(hit) = search.hits.with_value(|h| h.get(index).cloned()) else { return };
    let Some(model) = viewer.model.get_value() else { return };
    search.current.set(Some(index));
    // The list of hits would cover the row gone to: it closes, and opens again from the box.
    search.open.set(false);
    let op =
        matches!(hit.field, Field::ToolInput | Field::ToolResult | Field::ToolName)
            .then(|| {
                model.graph.tool_ops.iter().position(|o| {
                    o.call_block == hit.block || (o.result_block == hit.block && o.result_block.is_some())
                })
            })
            .flatten()
            .map(OpId::new);
    match op {
        Some(op) => {
            viewer.reveal_op(op);
            let o = model.graph.tool_ops[op.index()];
            // Show the input or result where the match is (agents stay folded).
            if o.category != ToolCategory::Agent || hit.field != Field::ToolName {
                viewer.set_collapsed(RowKey::Op(op), false);
            }
        }
        None => viewer.reveal_entry(hit.entry),
    }
    // The row gone to highlights the query's matches once it is drawn (`views::tree::row`).
    if let Some(key) = viewer.selected.get_untracked() {
        search.highlight.set(Some((key, search.query_untracked())));
    }
}

/// Highlights `query`'s matches inside the row drawn as `row_id` (CSS Custom Highlight API, where
/// the browser has it; the row is selected either way). The session's worker finds them, with the
/// search's own regular expression.
pub async fn highlight(search: SearchState, row_id: &str, query: SearchQuery) {
    if !browser::has(Feature::Highlights) {
        return;
    }
    let Some(window) = web_sys::window() else { return };
    let Some(document) = window.document() else { return };
    let Some(row) = document.get_element_by_id(row_id) else { return };
    let Ok(walker) = document.create_tree_walker_with_what_to_show(&row, 4) else { return };
    let mut nodes = Vec::new();
    let mut texts = Vec::new();
    while let Ok(Some(node)) = walker.next_node() {
        let Some(text) = node.text_content() else { continue };
        nodes.push(node);
        texts.push(text);
    }
    let Some(ranges) = search.matches(query, texts.clone()).await else { return };
    let found = js_sys::Array::new();
    for ((node, text), matches) in nodes.iter().zip(&texts).zip(ranges) {
        // The row was drawn again meanwhile: its old nodes are not highlighted (the row asks
        // again for its new text).
        if !node.is_connected() || node.text_content().as_deref() != Some(text.as_str()) {
            continue;
        }
        for (start, end) in matches {
            let (Some(before), Some(to_end)) = (text.get(..start as usize), text.get(..end as usize)) else { continue };
            let Ok(range) = document.create_range() else { continue };
            let utf16 = |prefix: &str| prefix.encode_utf16().count() as u32;
            if range.set_start(node, utf16(before)).is_ok() && range.set_end(node, utf16(to_end)).is_ok() {
                found.push(&range);
            }
        }
    }
    let css = js_sys::Reflect::get(&window, &"CSS".into()).unwrap_or(JsValue::UNDEFINED);
    let highlights = js_sys::Reflect::get(&css, &"highlights".into()).unwrap_or(JsValue::UNDEFINED);
    let constructor = js_sys::Reflect::get(&window, &"Highlight".into()).unwrap_or(JsValue::UNDEFINED);
    let (Some(constructor), false) = (constructor.dyn_ref::<js_sys::Function>(), highlights.is_undefined()) else {
        return;
    };
    let Ok(highlight) = js_sys::Reflect::construct(constructor, &found) else { return };
    let set = js_sys::Reflect::get(&highlights, &"set".into()).unwrap_or(JsValue::UNDEFINED);
    if let Some(set) = set.dyn_ref::<js_sys::Function>() {
        let _ = set.call2(&highlights, &"search-hit".into(), &highlight);
    }
}
