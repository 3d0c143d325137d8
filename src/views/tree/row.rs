//! One row of the conversation graph: a message, a tool call, a subagent block, a compaction
//! marker, a branch switcher, or a noise line, with its lane rail.

use std::sync::Arc;

use leptos::prelude::*;
use leptos::tachys::html::attribute::custom::CustomAttribute;
use sessionscope_engine::dag::{
    CompactionId, ConversationId, ConversationKind, ForkId, OpId, ToolCategory, ToolStatus,
};
use sessionscope_engine::model::{EntryFlags, EntryId, EntryKind};

use crate::logic::loaded::Model;
use crate::logic::outline::{RowKey, RowKind, collapsed_by_default};
use crate::logic::words::{counted, noun};
use crate::render::units;
use crate::state::{use_search, use_viewer};
use crate::views::content;
use crate::views::tree::layout::TreeContext;

/// How long a new row stays marked once it is on screen.
const SEEN_AFTER_MS: u32 = 6000;

/// The DOM id of a row (for `aria-activedescendant`).
pub fn row_dom_id(key: RowKey) -> String {
    match key {
        RowKey::Entry(e) => format!("row-e{e}"),
        RowKey::Op(o) => format!("row-o{o}"),
        RowKey::Agent(a) => format!("row-a{a}"),
        RowKey::Compaction(c) => format!("row-c{c}"),
        RowKey::Branch(b) => format!("row-b{b}"),
    }
}

/// The row a DOM id names (for measuring drawn rows).
pub fn key_from_dom_id(id: &str) -> Option<RowKey> {
    let rest = id.strip_prefix("row-")?;
    let (tag, number) = (rest.get(..1)?, rest.get(1..)?);
    Some(match tag {
        "e" => RowKey::Entry(number.parse().ok()?),
        "o" => RowKey::Op(number.parse().ok()?),
        "a" => RowKey::Agent(number.parse().ok()?),
        "c" => RowKey::Compaction(number.parse().ok()?),
        "b" => RowKey::Branch(number.parse().ok()?),
        _ => return None,
    })
}

#[derive(Clone, Copy, PartialEq)]
struct RowInfo {
    kind: RowKind,
    collapsed: bool,
    has_children: bool,
    size: u32,
    position: u32,
}

#[component]
pub fn RowView(key: RowKey) -> impl IntoView {
    let viewer = use_viewer();
    let tree = expect_context::<TreeContext>();
    let Some(model) = viewer.model.get_value() else { return ().into_any() };
    let info = Memo::new(move |_| {
        viewer.visible_changed.track();
        viewer.outline_rebuilt.track();
        viewer.outline.with_value(|o| {
            let o = o.as_ref()?;
            let row = o.row_of_key(key)?;
            let r = o.rows[row.index()];
            let (size, position) = o.position(row);
            Some(RowInfo {
                kind: r.kind,
                collapsed: r.collapsed,
                has_children: r.first_child.is_some(),
                size,
                position,
            })
        })
    });
    let Some(first) = info.get_untracked() else { return ().into_any() };
    let kind = first.kind;
    let depth = Memo::new(move |_| tree.layout.get().0.depth_of(key));
    let selected = Memo::new(move |_| viewer.selected.get() == Some(key));
    let expandable = move || info.get().is_some_and(|i| i.has_children || collapsed_by_default(i.kind));
    let expanded = move || info.get().is_some_and(|i| !i.collapsed);
    let aria_expanded = move || expandable().then(|| if expanded() { "true" } else { "false" });

    let toggle = move |event: web_sys::MouseEvent| {
        event.stop_propagation();
        viewer.selected.set(Some(key));
        viewer.toggle(key);
    };
    let select = move |_| {
        viewer.selected.set(Some(key));
        focus_tree();
    };

    // A search hit gone to in this row: its matches are highlighted once the row is drawn, and
    // again when it opens or closes, when the render module arrives, or when anything else draws
    // its text again (a highlight's ranges collapse when their text is replaced).
    let search = use_search();
    let highlighted = Memo::new(move |_| search.highlight.with(|h| h.as_ref().is_some_and(|(row, _)| *row == key)));
    let redrawn = Trigger::new();
    let watching = StoredValue::new_local(None::<Redraws>);
    Effect::new(move |_| {
        if !highlighted.get() {
            watching.try_set_value(None);
            return;
        }
        info.track();
        crate::render::module::track_arrival();
        redrawn.track();
        if watching.with_value(Option::is_none) {
            watching.set_value(Redraws::watch(&row_dom_id(key), move || redrawn.notify()));
        }
        let Some((_, query)) = search.highlight.get_untracked() else { return };
        leptos::task::spawn_local(async move {
            crate::views::search_box::highlight(search, &row_dom_id(key), query).await;
        });
    });
    on_cleanup(move || {
        watching.try_set_value(None);
    });

    // A row new since the session was read last is marked until it has been on screen a while.
    let fresh = Memo::new(move |_| viewer.fresh.with(|f| f.contains(&key)));
    Effect::new(move |_| {
        if fresh.get() {
            gloo::timers::callback::Timeout::new(SEEN_AFTER_MS, move || {
                let visible = web_sys::window().and_then(|w| w.document()).is_some_and(|d| !d.hidden());
                if visible {
                    viewer.fresh.update(|f| {
                        f.remove(&key);
                    });
                }
            })
            .forget();
        }
    });
    let class = move || {
        let mut class = String::from("row ");
        class.push_str(kind_class(kind));
        if selected.get() {
            class.push_str(" selected");
        }
        if fresh.get() {
            class.push_str(" fresh");
        }
        class
    };
    let body = row_body(&model, kind, Signal::derive(expanded));
    let raw_entries = raw_entries(&model, kind);
    let raw_open = Memo::new(move |_| viewer.raw_rows.with(|rows| rows.contains(&key)));
    let raw_toggle = (!raw_entries.is_empty()).then(|| {
        view! {
            <button
                type="button"
                class="raw-toggle"
                tabindex="-1"
                title="The raw lines behind this row (R)"
                aria-pressed=move || if raw_open.get() { "true" } else { "false" }
                on:click=move |event: web_sys::MouseEvent| {
                    event.stop_propagation();
                    viewer.selected.set(Some(key));
                    viewer.toggle_raw(key);
                }
            >
                "Raw"
            </button>
        }
    });
    let raw_model = model.clone();
    let raw = move || (raw_open.get() && !raw_entries.is_empty()).then(|| content::raw_lines(&raw_model, &raw_entries));
    // A message's star, note and tags.
    let message_mark = match (key, model.graph.sessions.get(viewer.session.get_untracked().index())) {
        (RowKey::Entry(e), Some(session)) => model.corpus.entries.get(e.index()).map(|entry| {
            let uuid = model.corpus.entry_uuid(entry).to_owned();
            view! { <crate::views::marks::MessageMark session_id=session.id.clone() uuid=uuid /> }
        }),
        _ => None,
    };
    // The first row not seen carries the "new since" divider.
    let divider = move || {
        let since = viewer.new_since.with(|n| n.filter(|n| n.key == key).map(|n| n.since_ms))?;
        let at = units::iso_time(since as i64);
        let today = units::iso_time(js_sys::Date::now() as i64);
        let when = if at[..10] == today[..10] { &at[11..16] } else { &at[..16] };
        let text = format!("New since {when} UTC");
        Some(view! {
            <div class="new-since" role="separator" aria-label=text.clone() title=format!("Not seen before: what came after {} UTC", &at[..16])>
                <span>{text.clone()}</span>
            </div>
        })
    };
    let element = view! {
        <div
            class=class
            role="treeitem"
            id=row_dom_id(key)
            data-row=""
            aria-expanded=aria_expanded
            aria-selected=move || if selected.get() { "true" } else { "false" }
            aria-description=move || fresh.get().then_some("new")
            aria-setsize=move || info.get().map(|i| i.size.to_string())
            aria-posinset=move || info.get().map(|i| i.position.to_string())
            on:click=select
        >
            <Rail depth=depth kind=kind />
            <span class="twisty-slot">
                {move || {
                    expandable()
                        .then(|| {
                            view! {
                                <button
                                    type="button"
                                    class="twisty"
                                    tabindex="-1"
                                    aria-hidden="true"
                                    on:click=toggle
                                >
                                    {move || if expanded() { "▾" } else { "▸" }}
                                </button>
                            }
                        })
                }}
            </span>
            <div class="row-main">{divider} {body} {message_mark} {raw}</div>
            {raw_toggle}
        </div>
    };
    // `aria-level` has no typed setter in tachys yet.
    element.attr("aria-level", move || (depth.get() + 1).to_string()).into_any()
}

fn focus_tree() {
    use wasm_bindgen::JsCast;
    if let Some(tree) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.query_selector("[role=tree]").ok().flatten())
        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
    {
        let _ = tree.focus();
    }
}

fn kind_class(kind: RowKind) -> &'static str {
    match kind {
        RowKind::Message { .. } => "row-message",
        RowKind::ToolCall { .. } => "row-tool",
        RowKind::Agent { .. } => "row-agent",
        RowKind::Compaction { .. } => "row-compaction",
        RowKind::Branch { .. } => "row-branch",
        RowKind::Noise { .. } => "row-noise",
    }
}

/// The lane rail: a line per level of nesting, the row's node on its own lane.
#[component]
fn Rail(depth: Memo<u16>, kind: RowKind) -> impl IntoView {
    const LANE: f64 = 14.0;
    move || {
        let d = depth.get() as f64;
        let x = d * LANE + LANE / 2.0;
        let lines: Vec<AnyView> = (0..=depth.get())
            .map(|lane| {
                let lx = lane as f64 * LANE + LANE / 2.0;
                let class = if lane == 0 { "lane lane-main" } else { "lane lane-nested" };
                view! { <line class=class x1=lx y1="0" x2=lx y2="100%" /> }.into_any()
            })
            .collect();
        let marker = match kind {
            RowKind::Branch { .. } => view! {
                <g class="fork-glyph">
                    <circle cx=x cy="14" r="4" />
                    <path d=format!("M {x} 14 C {x} 24, {} 20, {} 32", x + LANE, x + LANE) />
                </g>
            }
            .into_any(),
            RowKind::Compaction { .. } => {
                view! { <rect class="node node-compaction" x=x - 5.0 y="9" width="10" height="10" /> }.into_any()
            }
            RowKind::Noise { .. } => view! { <circle class="node node-noise" cx=x cy="12" r="2" /> }.into_any(),
            RowKind::ToolCall { .. } => view! { <circle class="node node-tool" cx=x cy="14" r="3" /> }.into_any(),
            RowKind::Agent { .. } => view! { <circle class="node node-agent" cx=x cy="16" r="5" /> }.into_any(),
            RowKind::Message { .. } => view! { <circle class="node node-message" cx=x cy="16" r="4.5" /> }.into_any(),
        };
        let width = (depth.get() as f64 + 1.0) * LANE + 4.0;
        view! {
            <span class="rail" aria-hidden="true" style:width=format!("{width}px")>
                <svg width=width height="100%">
                    {lines}
                    {marker}
                </svg>
            </span>
        }
    }
}

/// The entries whose lines a row stands for (none for rows the graph makes up).
fn raw_entries(model: &Model, kind: RowKind) -> Vec<EntryId> {
    match kind {
        RowKind::Message { first, last } => content::message_lines(model, first, last),
        RowKind::ToolCall { op } => model
            .graph
            .op(op)
            .map(|op| [op.call_entry, op.result_entry].into_iter().filter(|&e| e.is_some()).collect())
            .unwrap_or_default(),
        RowKind::Noise { entry } => vec![entry],
        RowKind::Compaction { link } => model
            .graph
            .compaction(link)
            .map(|l| [l.boundary, l.summary].into_iter().filter(|&e| e.is_some()).collect())
            .unwrap_or_default(),
        RowKind::Agent { .. } | RowKind::Branch { .. } => Vec::new(),
    }
}

fn row_body(model: &Arc<Model>, kind: RowKind, expanded: Signal<bool>) -> AnyView {
    match kind {
        RowKind::Message { first, last } => message_row(model, first, last),
        RowKind::ToolCall { op } => tool_row(model, op, expanded),
        RowKind::Agent { conversation } => agent_row(model, conversation),
        RowKind::Compaction { link } => compaction_row(model, link),
        RowKind::Branch { fork } => branch_row(model, fork),
        RowKind::Noise { entry } => noise_row(model, entry),
    }
}

/// Who speaks: in a sidechain the parent agent plays the user and the subagent answers.
fn speaker(model: &Model, entry: EntryId) -> (&'static str, &'static str) {
    let corpus = &model.corpus;
    let e = &corpus.entries[entry.index()];
    let conversation = &model.graph.conversations[model.graph.nodes[entry.index()].conversation.index()];
    let in_agent = conversation.kind != ConversationKind::Main;
    if e.flags.has(EntryFlags::COMPACT_SUMMARY) {
        return ("Compaction summary", "speaker-system");
    }
    if e.flags.has(EntryFlags::API_ERROR) || e.flags.has(EntryFlags::ERROR) {
        return ("Error", "speaker-error");
    }
    if e.flags.has(EntryFlags::NOTE) {
        return ("Note", "speaker-system");
    }
    match e.kind {
        EntryKind::User if in_agent => ("Parent agent", "speaker-parent"),
        EntryKind::User => ("User", "speaker-user"),
        EntryKind::Assistant if in_agent => ("Subagent", "speaker-agent"),
        EntryKind::Assistant => ("Assistant", "speaker-assistant"),
        EntryKind::ToolUse | EntryKind::ToolResult => ("Tool", "speaker-tool"),
        _ => ("System", "speaker-system"),
    }
}

fn time_view(model: &Model, entry: EntryId) -> AnyView {
    let e = &model.corpus.entries[entry.index()];
    if !e.has_timestamp() {
        return ().into_any();
    }
    let now = js_sys::Date::now() as i64;
    let title = format!("{} ({})", units::iso_time(e.timestamp_ms), units::relative_time(e.timestamp_ms, now));
    let clock = units::clock_time(e.timestamp_ms);
    let datetime = sessionscope_engine::json::format_timestamp_ms(e.timestamp_ms);
    view! { <time class="time" datetime=datetime title=title>{clock}</time> }.into_any()
}

fn message_row(model: &Arc<Model>, first: EntryId, last: EntryId) -> AnyView {
    let corpus = &model.corpus;
    let entry = &corpus.entries[first.index()];
    let (who, class) = speaker(model, first);
    let model_name = (entry.kind == EntryKind::Assistant && entry.model.is_some())
        .then(|| corpus.sym(entry.model).to_owned())
        .filter(|m| m != "<synthetic>");
    let tokens =
        entry.response.is_some().then(|| &corpus.responses[entry.response.index()]).filter(|r| r.has_usage).map(|r| {
            let u = &r.usage;
            let title = format!(
                "input {} · output {} · cache write {} · cache read {}",
                u.input_tokens, u.output_tokens, u.cache_creation_input_tokens, u.cache_read_input_tokens
            );
            let text = format!(
                "{} in · {} out",
                units::human_count(u.input_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens),
                units::human_count(u.output_tokens)
            );
            view! { <span class="tokens" title=title>{text}</span> }
        });
    let interrupted = entry.flags.has(EntryFlags::INTERRUPTED);
    let clamp_open = RwSignal::new(false);
    let body = content::message_body(model, first, last);
    view! {
        <div class="message">
            <div class="message-head">
                <span class=format!("speaker {class}")>{who}</span>
                {model_name.map(|m| view! { <span class="model">{m}</span> })}
                {tokens}
                {interrupted.then(|| view! { <span class="badge badge-warn">"interrupted"</span> })}
                {time_view(model, first)}
            </div>
            <div class="clamp" class:open=move || clamp_open.get()>{body}</div>
            <button
                type="button"
                class="show-more"
                tabindex="-1"
                on:click=move |event: web_sys::MouseEvent| {
                    event.stop_propagation();
                    clamp_open.update(|o| *o = !*o);
                }
            >
                {move || if clamp_open.get() { "Show less" } else { "Show more" }}
            </button>
        </div>
    }
    .into_any()
}

/// A small monochrome icon per tool category (inline SVG: no icon font, no emoji font needed).
pub fn category_icon(category: ToolCategory) -> AnyView {
    let path = match category {
        ToolCategory::Read => "M4 2h6l3 3v9H4z M6 7h5 M6 9.5h5 M6 12h3",
        ToolCategory::Search => "M7 3a4 4 0 1 1 0 8a4 4 0 1 1 0-8z M10 10l4 4",
        ToolCategory::Edit => "M3 13l1-3 7-7 2 2-7 7z M10 4l2 2",
        ToolCategory::Execute => "M2 3h12v10H2z M4 6l2 2-2 2 M7.5 10.5h3",
        ToolCategory::Web => "M8 2a6 6 0 1 1 0 12a6 6 0 1 1 0-12z M2 8h12 M8 2c-2.5 3-2.5 9 0 12 M8 2c2.5 3 2.5 9 0 12",
        ToolCategory::Agent => "M5 3h6v5H5z M3 14c0-3 2-4.5 5-4.5s5 1.5 5 4.5 M6.5 5.5h.1 M9.5 5.5h.1",
        ToolCategory::PlanTodo => "M3 3h10v10H3z M5 8l2 2 4-4",
        ToolCategory::Mcp => "M6 2v4 M10 2v4 M4 6h8v3a4 4 0 0 1-8 0z M8 13v2",
        ToolCategory::Other => "M8 5a3 3 0 1 1 0 6a3 3 0 1 1 0-6z M8 1v2 M8 13v2 M1 8h2 M13 8h2",
    };
    view! {
        <svg class="icon" viewBox="0 0 16 16" width="14" height="14" aria-hidden="true">
            <path d=path />
        </svg>
    }
    .into_any()
}

pub fn status_badge(status: ToolStatus) -> AnyView {
    let class = match status {
        ToolStatus::Ok => "badge badge-ok",
        ToolStatus::Error | ToolStatus::ResultWithoutCall => "badge badge-error",
        ToolStatus::Interrupted | ToolStatus::NoResult => "badge badge-warn",
    };
    view! { <span class=class>{status.name()}</span> }.into_any()
}

fn tool_row(model: &Arc<Model>, op_index: OpId, expanded: Signal<bool>) -> AnyView {
    let Some(op) = model.graph.op(op_index).copied() else { return ().into_any() };
    let name = if op.name.is_none() { "Result".to_owned() } else { model.corpus.sym(op.name).to_owned() };
    let summary = content::op_summary(model, &op);
    let duration = (op.duration_ms >= 0).then(|| units::human_duration_ms(op.duration_ms));
    let icon = category_icon(op.category);
    let detail_model = model.clone();
    let error = op.status == ToolStatus::Error;
    view! {
        <div class="tool" class:tool-error=error>
            <div class="tool-head">
                <span class="tool-icon">{icon}</span>
                <span class="tool-name">{name}</span>
                <span class="tool-summary">{summary}</span>
                {status_badge(op.status)}
                {duration.map(|d| view! { <span class="duration">{d}</span> })}
            </div>
            {move || expanded.get().then(|| content::tool_detail(&detail_model, op_index))}
        </div>
    }
    .into_any()
}

fn agent_row(model: &Arc<Model>, conversation: ConversationId) -> AnyView {
    let graph = &model.graph;
    let Some(conv) = graph.conversation(conversation) else { return ().into_any() };
    let corpus = &model.corpus;
    let mut messages = 0;
    let mut tools: Vec<(String, u32)> = Vec::new();
    for (e, entry) in corpus.entries.iter().enumerate() {
        if graph.nodes[e].conversation != conversation {
            continue;
        }
        if matches!(entry.kind, EntryKind::User | EntryKind::Assistant) {
            messages += 1;
        }
    }
    for op in graph.tool_ops.iter().filter(|op| op.conversation == conversation && op.call_entry.is_some()) {
        let name = corpus.sym(op.name).to_owned();
        match tools.iter_mut().find(|(n, _)| *n == name) {
            Some((_, c)) => *c += 1,
            None => tools.push((name, 1)),
        }
    }
    crate::logic::sort::sort_by_key(&mut tools, |t| std::cmp::Reverse(t.1));
    let tools_text = tools.iter().take(4).map(|(n, c)| format!("{n} ×{c}")).collect::<Vec<_>>().join(", ");
    let kind = match conv.kind {
        ConversationKind::CompactionAgent => "Compaction agent".to_owned(),
        ConversationKind::InlineSidechain => "Sidechain".to_owned(),
        _ => "Agent".to_owned(),
    };
    let agent_type = if conv.agent_type.is_empty() { String::new() } else { conv.agent_type.clone() };
    let description = conv.description.clone();
    // An agent with fewer than two different times has no duration to show.
    let duration = units::span_ms(
        (conv.first_timestamp_ms != i64::MAX).then_some(conv.first_timestamp_ms),
        (conv.last_timestamp_ms != i64::MIN).then_some(conv.last_timestamp_ms),
    )
    .map(units::human_duration_ms);
    let u = conv.usage;
    let token_count = u.input_tokens + u.output_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens;
    let tokens = format!("{} {}", units::human_count(token_count), noun(token_count, "token"));
    let status = agent_status(model, conversation);
    let linked = match conv.linked_by {
        Some(rule) => format!("linked by {}", rule.name()),
        None => "not linked to a spawning call".to_owned(),
    };
    let label = if conv.agent_name.is_empty() { String::new() } else { format!("{} · ", conv.agent_name) };
    view! {
        <div class="agent">
            <div class="agent-head">
                <span class="agent-kind">{kind}</span>
                {(!agent_type.is_empty()).then(|| view! { <span class="agent-type">{agent_type}</span> })}
                <span class="agent-description">{description}</span>
                {status}
            </div>
            <div class="agent-stats">
                <span>{counted(messages, "message")}</span>
                {(!tools_text.is_empty()).then(|| view! { <span>{format!("tools: {tools_text}")}</span> })}
                <span>{tokens}</span>
                {duration.map(|d| view! { <span>{d}</span> })}
                <span class="muted">{format!("{label}{linked}")}</span>
            </div>
        </div>
    }
    .into_any()
}

/// The agent's status: from its Task result's `toolUseResult.status`, else from its call.
fn agent_status(model: &Model, conversation: ConversationId) -> AnyView {
    let Some(conv) = model.graph.conversation(conversation) else { return ().into_any() };
    if conv.spawn_block.is_none() {
        return ().into_any();
    }
    let Some(op) = model.graph.tool_ops.iter().find(|op| op.call_block == conv.spawn_block) else {
        return ().into_any();
    };
    let detail = model
        .corpus
        .entry(op.result_entry)
        .filter(|e| !e.tool_use_result.is_empty() && e.tool_use_result.len() < 1 << 20)
        .and_then(|e| sessionscope_engine::small_json::parse(model.corpus.span_bytes(e.file, e.tool_use_result)).ok())
        .and_then(|v| v.get("status").and_then(|s| s.as_str()).map(str::to_owned));
    match detail {
        Some(status) => {
            let class = if status == "completed" { "badge badge-ok" } else { "badge badge-warn" };
            view! { <span class=class>{status}</span> }.into_any()
        }
        None => status_badge(op.status),
    }
}

fn compaction_row(model: &Arc<Model>, link: CompactionId) -> AnyView {
    let Some(l) = model.graph.compaction(link) else { return ().into_any() };
    let trigger = model.corpus.sym(l.trigger);
    let mut parts = vec!["Conversation compacted".to_owned()];
    if !trigger.is_empty() {
        parts.push(trigger.to_owned());
    }
    if l.pre_tokens > 0 {
        parts.push(format!("{} {}", units::human_count(l.pre_tokens), noun(l.pre_tokens, "token")));
    }
    let text = parts.join(" · ");
    let anchor = if l.boundary.is_some() { l.boundary } else { l.summary };
    view! {
        <div class="compaction">
            <span class="compaction-label">{text}</span>
            {anchor.is_some().then(|| time_view(model, anchor))}
            <span class="muted">"expand for the history it replaced"</span>
        </div>
    }
    .into_any()
}

fn branch_row(model: &Arc<Model>, fork: ForkId) -> AnyView {
    let viewer = use_viewer();
    let Some(f) = model.graph.fork(fork) else { return ().into_any() };
    let count = f.alternatives.len();
    let labels: Vec<String> = f
        .alternatives
        .iter()
        .enumerate()
        .map(|(i, &a)| {
            let text = model
                .corpus
                .first_text(&model.corpus.entries[a.index()])
                .map(|t| sessionscope_engine::dag::prompt_title(&t))
                .unwrap_or_default();
            let active = if i as u32 == f.active { " (latest)" } else { "" };
            format!("{}. {text}{active}", i + 1)
        })
        .collect();
    let choice = Memo::new(move |_| {
        viewer.outline_rebuilt.track();
        let model = viewer.model.get_value();
        model.map_or(0, |m| viewer.options.with_value(|o| o.choice(&m.graph, fork)))
    });
    let options: Vec<AnyView> = labels
        .iter()
        .enumerate()
        .map(|(i, label)| {
            let label = label.clone();
            view! { <option value=i.to_string() selected=move || choice.get() == i as u32>{label}</option> }.into_any()
        })
        .collect();
    view! {
        <div class="branch">
            <span class="branch-label">{move || format!("Branch {} of {count}", choice.get() + 1)}</span>
            <button
                type="button"
                class="button small"
                tabindex="-1"
                aria-label="Previous branch"
                on:click=move |event: web_sys::MouseEvent| {
                    event.stop_propagation();
                    viewer.cycle_branch(fork, -1);
                }
            >
                "◂"
            </button>
            <button
                type="button"
                class="button small"
                tabindex="-1"
                aria-label="Next branch"
                on:click=move |event: web_sys::MouseEvent| {
                    event.stop_propagation();
                    viewer.cycle_branch(fork, 1);
                }
            >
                "▸"
            </button>
            <select
                class="branch-select"
                aria-label="Branch shown"
                on:click=|event: web_sys::MouseEvent| event.stop_propagation()
                on:change=move |event| {
                    if let Ok(index) = event_target_value(&event).parse::<u32>() {
                        viewer.choose_branch(fork, index);
                    }
                }
            >
                {options}
            </select>
        </div>
    }
    .into_any()
}

fn noise_row(model: &Arc<Model>, entry: EntryId) -> AnyView {
    let corpus = &model.corpus;
    let e = &corpus.entries[entry.index()];
    let mut what = corpus.sym(e.type_name).to_owned();
    if e.subtype.is_some() {
        what.push_str(" · ");
        what.push_str(corpus.sym(e.subtype));
    }
    let details = corpus.entry_details(e);
    let extra = details
        .hook_name
        .or(details.duration_ms.map(|d| format!("turn took {}", units::human_duration_ms(d as i64))))
        .or_else(|| corpus.first_text(e).map(|t| sessionscope_engine::dag::prompt_title(&t)))
        .unwrap_or_default();
    let flags = if e.flags.has(EntryFlags::DELETED) {
        "deleted"
    } else if e.flags.has(EntryFlags::META) {
        "meta"
    } else {
        ""
    };
    view! {
        <div class="noise">
            <span class="noise-kind">{what}</span>
            {(!flags.is_empty()).then(|| view! { <span class="badge">{flags}</span> })}
            <span class="noise-text">{extra}</span>
            {time_view(model, entry)}
        </div>
    }
    .into_any()
}

/// Watches a row's text while its search matches are highlighted, and says when it is drawn
/// again. Dropping it disconnects the observer, so the callback is never called once it is gone.
struct Redraws {
    observer: web_sys::MutationObserver,
    _callback: wasm_bindgen::closure::Closure<dyn FnMut(js_sys::Array)>,
}

impl Redraws {
    fn watch(row_id: &str, on_redraw: impl Fn() + 'static) -> Option<Redraws> {
        use wasm_bindgen::JsCast;
        let row = web_sys::window()?.document()?.get_element_by_id(row_id)?;
        let callback =
            wasm_bindgen::closure::Closure::<dyn FnMut(js_sys::Array)>::new(move |_: js_sys::Array| on_redraw());
        let observer = web_sys::MutationObserver::new(callback.as_ref().unchecked_ref()).ok()?;
        let options = web_sys::MutationObserverInit::new();
        options.set_character_data(true);
        options.set_child_list(true);
        options.set_subtree(true);
        observer.observe_with_options(&row, &options).ok()?;
        Some(Redraws { observer, _callback: callback })
    }
}

impl Drop for Redraws {
    fn drop(&mut self) {
        self.observer.disconnect();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_is_found_again_by_its_dom_id() {
        for key in [
            RowKey::Entry(EntryId::new(0)),
            RowKey::Op(OpId::new(7)),
            RowKey::Agent(ConversationId::new(3)),
            RowKey::Compaction(CompactionId::new(12)),
            RowKey::Branch(ForkId::new(4_000_000)),
        ] {
            assert_eq!(key_from_dom_id(&row_dom_id(key)), Some(key));
        }
        for id in ["", "row-", "row-e", "row-x1", "row-é1", "tree"] {
            assert_eq!(key_from_dom_id(id), None, "{id}");
        }
    }
}
