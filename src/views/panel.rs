//! The side panel: what the agent did, grouped by the turn that did it, with filters and the
//! files it touched. Selecting an operation shows it in the graph; selecting a message in the
//! graph highlights its operations here.

use std::sync::Arc;

use leptos::html;
use leptos::prelude::*;
use rustc_hash::FxHashSet;
use sessionscope_engine::dag::{OpId, ToolStatus};

use crate::logic::outline::RowKey;
use crate::logic::panel_rows::{Panel, PanelFilter, PanelRow, files_touched, ops_of_row, turn_title};
use crate::logic::prompt_outline::{PromptItem, prompt_outline};
use crate::render::units;
use crate::state::{PanelTab, use_viewer};
use crate::views::tree::row::{category_icon, status_badge};

/// Height of a panel row, in pixels (rows are one line: the list can be virtualized simply).
const ROW: f64 = 28.0;
const OVERSCAN: usize = 20;

#[derive(Clone)]
pub struct PanelRef(pub Arc<Panel>);

impl PartialEq for PanelRef {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

#[component]
pub fn SidePanel() -> impl IntoView {
    let viewer = use_viewer();
    let panel = Memo::new(move |_| {
        viewer.outline_rebuilt.track();
        let session = viewer.session.get();
        let filter = viewer.panel_filter.get();
        let collapsed = viewer.panel_collapsed.get();
        let model = viewer.model.get_value();
        let panel = viewer.outline.with_value(|outline| match (model, outline) {
            (Some(model), Some(outline)) => {
                Panel::build(&model.corpus, &model.graph, outline, session, &filter, &collapsed)
            }
            _ => Panel::empty(),
        });
        PanelRef(Arc::new(panel))
    });
    let tab = viewer.panel_tab;
    let prompts = Memo::new(move |_| {
        viewer.outline_rebuilt.track();
        viewer.session.track();
        let model = viewer.model.get_value();
        viewer.outline.with_value(|outline| match (model, outline) {
            (Some(model), Some(outline)) => prompt_outline(&model.corpus, &model.graph, outline),
            _ => Vec::new(),
        })
    });
    let files_count = Memo::new(move |_| {
        let panel = panel.get();
        viewer.model.get_value().map_or(0, |m| files_touched(&m.corpus, &m.graph, &panel.0).len())
    });
    let tab_button = move |which: PanelTab, label: &'static str| {
        view! {
            <button
                type="button"
                role="tab"
                class="panel-tab"
                aria-selected=move || if tab.get() == which { "true" } else { "false" }
                on:click=move |_| tab.set(which)
            >
                {move || match which {
                    PanelTab::Operations => format!("{label} ({})", panel.get().0.counts.total),
                    PanelTab::Files => format!("{label} ({})", files_count.get()),
                    PanelTab::Prompts => format!("{label} ({})", prompts.get().len()),
                }}
            </button>
        }
    };
    // The tab's view is built again only when the tab changes, not each time it is set.
    let shown = Memo::new(move |_| tab.get());
    view! {
        <aside class="side-panel" role="complementary" aria-label="Tool operations">
            <div class="panel-tabs" role="tablist" aria-label="Side panel views">
                {tab_button(PanelTab::Operations, "Operations")}
                {tab_button(PanelTab::Files, "Files touched")}
                {tab_button(PanelTab::Prompts, "Prompts")}
            </div>
            {move || match shown.get() {
                PanelTab::Operations => view! { <Operations panel=panel /> }.into_any(),
                PanelTab::Files => view! { <FilesTouched panel=panel /> }.into_any(),
                PanelTab::Prompts => view! { <Prompts prompts=prompts /> }.into_any(),
            }}
        </aside>
    }
}

#[component]
fn Filters(panel: Memo<PanelRef>) -> impl IntoView {
    let viewer = use_viewer();
    let filter = viewer.panel_filter;
    let chips = move || {
        let counts = panel.get().0.counts.clone();
        counts
            .categories
            .iter()
            .map(|&(category, count)| {
                let pressed = move || filter.with(|f| f.categories.contains(&category));
                view! {
                    <button
                        type="button"
                        class="chip"
                        aria-pressed=move || if pressed() { "true" } else { "false" }
                        on:click=move |_| filter.update(|f| {
                            if !f.categories.remove(&category) {
                                f.categories.insert(category);
                            }
                        })
                    >
                        {category_icon(category)}" "
                        {format!("{} {count}", category.name())}
                    </button>
                }
            })
            .collect::<Vec<_>>()
    };
    let status_options = move || {
        let counts = panel.get().0.counts.clone();
        counts
            .statuses
            .iter()
            .map(|(status, count)| {
                let value = status.name().to_owned();
                let selected = filter.with_untracked(|f| f.status == Some(*status));
                view! { <option value=value selected=selected>{format!("{} ({count})", status.name())}</option> }
            })
            .collect::<Vec<_>>()
    };
    let tool_options = move || {
        let counts = panel.get().0.counts.clone();
        counts
            .tools
            .iter()
            .map(|(tool, count)| {
                let selected = filter.with_untracked(|f| f.tool.as_deref() == Some(tool.as_str()));
                view! { <option value=tool.clone() selected=selected>{format!("{tool} ({count})")}</option> }
            })
            .collect::<Vec<_>>()
    };
    let agent_options = move || {
        let counts = panel.get().0.counts.clone();
        let model = viewer.model.get_value();
        counts
            .agents
            .iter()
            .map(|&(conversation, count)| {
                let label = model.as_ref().map_or_else(String::new, |m| {
                    let conv = &m.graph.conversations[conversation.index()];
                    if conv.is_agent() {
                        let kind = if conv.agent_type.is_empty() { "agent".to_owned() } else { conv.agent_type.clone() };
                        format!("{kind}: {}", if conv.description.is_empty() { &conv.agent_name } else { &conv.description })
                    } else {
                        "main thread".to_owned()
                    }
                });
                let selected = filter.with_untracked(|f| f.agent == Some(conversation));
                view! { <option value=conversation.to_string() selected=selected>{format!("{label} ({count})")}</option> }
            })
            .collect::<Vec<_>>()
    };
    let statuses = [
        ToolStatus::Ok,
        ToolStatus::Error,
        ToolStatus::Interrupted,
        ToolStatus::NoResult,
        ToolStatus::ResultWithoutCall,
    ];
    view! {
        <div class="filters" role="group" aria-label="Filter operations">
            <div class="chips">{chips}</div>
            <div class="selects">
                <select
                    aria-label="Status"
                    on:change=move |event| {
                        let value = event_target_value(&event);
                        filter.update(|f| f.status = statuses.iter().copied().find(|s| s.name() == value));
                    }
                >
                    <option value="">"Any status"</option>
                    {status_options}
                </select>
                <select
                    aria-label="Tool"
                    on:change=move |event| {
                        let value = event_target_value(&event);
                        filter.update(|f| f.tool = (!value.is_empty()).then_some(value));
                    }
                >
                    <option value="">"Any tool"</option>
                    {tool_options}
                </select>
                <select
                    aria-label="Agent"
                    on:change=move |event| {
                        let value = event_target_value(&event);
                        filter.update(|f| f.agent = value.parse().ok());
                    }
                >
                    <option value="">"Any agent"</option>
                    {agent_options}
                </select>
                {move || {
                    (filter.get() != PanelFilter::default())
                        .then(|| view! {
                            <button type="button" class="button small" on:click=move |_| filter.set(PanelFilter::default())>
                                "Clear filters"
                            </button>
                        })
                }}
            </div>
            <p class="muted panel-count" role="status">
                {move || {
                    let panel = panel.get();
                    format!(
                        "{} of {} {}",
                        panel.0.listed,
                        panel.0.counts.total,
                        crate::logic::words::noun(panel.0.counts.total, "operation")
                    )
                }}
            </p>
        </div>
    }
}

#[component]
fn Operations(panel: Memo<PanelRef>) -> impl IntoView {
    let viewer = use_viewer();
    let scroller = NodeRef::<html::Div>::new();
    let scroll_top = RwSignal::new(0.0);
    let height = RwSignal::new(600.0);
    // The operations of the row selected in the graph.
    let highlighted = Memo::new(move |_| {
        viewer.outline_rebuilt.track();
        viewer.visible_changed.track();
        let selected = viewer.selected.get();
        let model = viewer.model.get_value();
        let ops: FxHashSet<OpId> = match (selected, model) {
            (Some(key), Some(model)) => viewer.outline.with_value(|o| {
                o.as_ref()
                    .and_then(|o| o.row_of_key(key).map(|row| ops_of_row(&model.graph, &model.corpus, o, row)))
                    .unwrap_or_default()
                    .into_iter()
                    .collect()
            }),
            _ => FxHashSet::default(),
        };
        HighlightSet(Arc::new(ops))
    });
    // Scroll the first highlighted operation into view.
    Effect::new(move |_| {
        let set = highlighted.get();
        let panel = panel.get_untracked();
        let Some(first) = set.0.iter().filter_map(|&op| panel.0.row_of_op(op)).min() else { return };
        let Some(element) = scroller.get_untracked() else { return };
        let top = first as f64 * ROW;
        let view_top = element.scroll_top() as f64;
        let view_height = element.client_height() as f64;
        if top < view_top || top + ROW > view_top + view_height {
            element.set_scroll_top((top - view_height / 3.0).max(0.0) as i32);
            scroll_top.set(element.scroll_top() as f64);
        }
    });
    // The rows are drawn once the frame the panel came in with is painted: a session opens with
    // the conversation's first rows on screen sooner (the list was two fifths of the elements of
    // a big session's first drawing).
    let drawn = crate::views::painted_once();
    let window = Memo::new(move |_| {
        if !drawn.get() {
            return (0, 0);
        }
        let count = panel.get().0.rows.len();
        let first = (scroll_top.get() / ROW) as usize;
        let shown = (height.get() / ROW) as usize + 1;
        (first.saturating_sub(OVERSCAN), (first + shown + OVERSCAN).min(count))
    });
    let on_scroll = move |_| {
        if let Some(element) = scroller.get_untracked() {
            scroll_top.set(element.scroll_top() as f64);
            height.set(element.client_height() as f64);
        }
    };
    Effect::new(move |_| {
        if let Some(element) = scroller.get() {
            height.set(element.client_height() as f64);
        }
    });
    // One Tab stop for the list: the row last focused (the first at first). The arrow keys, Home,
    // End, Page Up and Page Down move the focus between rows, scrolling the row into view.
    let focus_row = RwSignal::new(0usize);
    Effect::new(move |_| {
        panel.track();
        focus_row.set(0);
    });
    let on_keydown = move |event: web_sys::KeyboardEvent| {
        let count = panel.with_untracked(|p| p.0.rows.len());
        if count == 0 {
            return;
        }
        let at = focus_row.get_untracked().min(count - 1);
        let page = ((height.get_untracked() / ROW) as usize).max(1);
        let to = match event.key().as_str() {
            "ArrowDown" => (at + 1).min(count - 1),
            "ArrowUp" => at.saturating_sub(1),
            "PageDown" => (at + page).min(count - 1),
            "PageUp" => at.saturating_sub(page),
            "Home" => 0,
            "End" => count - 1,
            _ => return,
        };
        event.prevent_default();
        focus_row.set(to);
        if let Some(element) = scroller.get_untracked() {
            let top = to as f64 * ROW;
            let view_top = element.scroll_top() as f64;
            let view_height = element.client_height() as f64;
            if top < view_top {
                element.set_scroll_top(top as i32);
            } else if top + ROW > view_top + view_height {
                element.set_scroll_top((top + ROW - view_height) as i32);
            }
            scroll_top.set(element.scroll_top() as f64);
        }
        // Now if the row is drawn (the next one most often is), else once it is.
        if !focus_panel_row(to) {
            request_animation_frame(move || {
                focus_panel_row(to);
            });
        }
    };
    view! {
        <Filters panel=panel />
        <div class="panel-scroll" node_ref=scroller on:scroll=on_scroll>
            <div
                class="panel-canvas"
                role="list"
                aria-label="Operations by turn"
                style:height=move || format!("{}px", panel.get().0.rows.len() as f64 * ROW)
                on:keydown=on_keydown
            >
                {move || {
                    // A row of another model is another row: each model gets a list of its own.
                    viewer.model_changed.track();
                    view! {
                        <For
                            each=move || {
                                let (start, end) = window.get();
                                let panel = panel.get();
                                (start..end).map(|i| (i, panel.0.rows[i])).collect::<Vec<_>>()
                            }
                            key=|item| *item
                            children=move |(index, row)| {
                                view! { <PanelRowView index=index row=row highlighted=highlighted focus_row=focus_row window=window /> }
                            }
                        />
                    }
                }}
            </div>
        </div>
    }
}

#[derive(Clone)]
struct HighlightSet(Arc<FxHashSet<OpId>>);

impl PartialEq for HighlightSet {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}

/// Focuses the button of row `index` of the operations list, if it is drawn: answers whether it
/// was.
fn focus_panel_row(index: usize) -> bool {
    use wasm_bindgen::JsCast;
    let selector = format!(".panel-canvas [data-row='{index}'] button");
    if let Some(button) =
        document().query_selector(&selector).ok().flatten().and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
    {
        return button.focus().is_ok();
    }
    false
}

#[component]
fn PanelRowView(
    index: usize,
    row: PanelRow,
    highlighted: Memo<HighlightSet>,
    focus_row: RwSignal<usize>,
    window: Memo<(usize, usize)>,
) -> impl IntoView {
    let viewer = use_viewer();
    let Some(model) = viewer.model.get_value() else { return ().into_any() };
    let top = format!("{}px", index as f64 * ROW);
    // The Tab stop is the row last focused, or the first drawn when that one is scrolled away.
    let tab_index = move || {
        let (start, end) = window.get();
        let focused = focus_row.get();
        let stop = if (start..end).contains(&focused) { focused } else { start };
        if stop == index { "0" } else { "-1" }
    };
    let focused = move |_| focus_row.set(index);
    match row {
        PanelRow::Group { turn } => {
            let title = turn_title(&model.corpus, &model.graph, turn);
            let Some(t) = model.graph.turn(turn) else { return ().into_any() };
            let anchor = if t.first_assistant.is_some() { t.first_assistant } else { t.prompt };
            let time = model
                .corpus
                .entry(anchor)
                .filter(|e| e.has_timestamp())
                .map(|e| units::clock_time(e.timestamp_ms))
                .unwrap_or_default();
            let count = t.ops_len;
            let open = move || !viewer.panel_collapsed.with(|c| c.contains(&turn));
            view! {
                <div class="panel-row panel-group" role="listitem" style:top=top data-row=index>
                    <button
                        type="button"
                        class="panel-group-toggle"
                        tabindex=tab_index
                        on:focus=focused
                        aria-expanded=move || if open() { "true" } else { "false" }
                        on:click=move |_| viewer.panel_collapsed.update(|c| {
                            if !c.remove(&turn) {
                                c.insert(turn);
                            }
                        })
                    >
                        <span aria-hidden="true">{move || if open() { "▾ " } else { "▸ " }}</span>
                        <span class="group-title">{title}</span>
                    </button>
                    <span class="group-meta">{format!("{count} ops · {time}")}</span>
                </div>
            }
            .into_any()
        }
        PanelRow::Op { op, depth } => {
            let Some(o) = model.graph.op(op).copied() else { return ().into_any() };
            let name = if o.name.is_none() { "Result".to_owned() } else { model.corpus.sym(o.name).to_owned() };
            let summary = crate::views::content::op_summary(&model, &o);
            let duration = if o.duration_ms >= 0 { units::human_duration_ms(o.duration_ms) } else { String::new() };
            let indent = format!("{}px", 16 + depth as u32 * 18);
            let is_highlighted = move || highlighted.get().0.contains(&op);
            let is_selected = move || viewer.selected.get() == Some(RowKey::Op(op));
            let category = o.category;
            let label = format!("{name} {summary}, {}", o.status.name());
            view! {
                <div
                    class="panel-row panel-op"
                    class:highlighted=is_highlighted
                    class:selected=is_selected
                    class:op-error=o.status == ToolStatus::Error
                    role="listitem"
                    style:top=top
                    data-row=index
                >
                    <button
                        type="button"
                        class="panel-op-button"
                        tabindex=tab_index
                        on:focus=focused
                        style:padding-left=indent
                        aria-label=label
                        on:click=move |_| viewer.reveal_op(op)
                    >
                        <span class="tool-icon">{category_icon(category)}</span>
                        <span class="tool-name">{name}</span>
                        <span class="tool-summary">{summary}</span>
                    </button>
                    {status_badge(o.status)}
                    <span class="duration">{duration}</span>
                </div>
            }
            .into_any()
        }
    }
}

#[component]
fn FilesTouched(panel: Memo<PanelRef>) -> impl IntoView {
    let viewer = use_viewer();
    move || {
        let model = viewer.model()?;
        let files = files_touched(&model.corpus, &model.graph, &panel.get().0);
        let rows: Vec<AnyView> = files
            .into_iter()
            .map(|file| {
                let ops: Vec<AnyView> = file
                    .ops
                    .iter()
                    .map(|&op| {
                        let o = model.graph.tool_ops[op.index()];
                        let name = model.corpus.sym(o.name).to_owned();
                        let summary = crate::views::content::op_summary(&model, &o);
                        view! {
                            <li>
                                <button type="button" class="link" on:click=move |_| viewer.reveal_op(op)>
                                    {format!("{name} {summary}")}
                                </button>
                                " "
                                {status_badge(o.status)}
                            </li>
                        }
                        .into_any()
                    })
                    .collect();
                let counts = [("read", file.reads), ("edited", file.edits), ("written", file.writes)]
                    .iter()
                    .filter(|(_, n)| *n > 0)
                    .map(|(what, n)| format!("{what} {n}×"))
                    .collect::<Vec<_>>()
                    .join(", ");
                view! {
                    <li class="touched-file">
                        <details>
                            <summary><span class="file-path-name">{file.path.clone()}</span>" "<span class="muted">{counts}</span></summary>
                            <ul class="touched-ops">{ops}</ul>
                        </details>
                    </li>
                }
                .into_any()
            })
            .collect();
        let empty = rows.is_empty();
        Some(view! {
            <div class="files-touched">
                {empty.then(|| view! { <p class="muted">"No file was read, edited or written."</p> })}
                <ul class="touched-files" aria-label="Files touched">{rows}</ul>
            </div>
        })
    }
}

/// The session's prompts, each a button that goes to it in the conversation (`}` and `{` step
/// through them from the tree).
#[component]
fn Prompts(prompts: Memo<Vec<PromptItem>>) -> impl IntoView {
    let viewer = use_viewer();
    move || {
        let items: Vec<AnyView> = prompts
            .get()
            .into_iter()
            .map(|item| {
                let key = item.key;
                let time = item.time_ms.map(units::clock_time).unwrap_or_default();
                let current = move || viewer.selected.get() == Some(key);
                view! {
                    <li>
                        <button
                            type="button"
                            class="prompt-item"
                            aria-current=move || if current() { "true" } else { "false" }
                            on:click=move |_| viewer.go_to_row(key)
                        >
                            <span class="prompt-time muted">{time}</span>
                            <span class="prompt-line">{item.line}</span>
                            <span class="prompt-cost muted">{format!("${:.2}", item.cost_usd)}</span>
                        </button>
                    </li>
                }
                .into_any()
            })
            .collect();
        let empty = items.is_empty();
        view! {
            <div class="prompt-outline">
                {empty.then(|| view! { <p class="muted">"No prompt in this session: its messages came from an agent or a tool."</p> })}
                <ol class="prompt-list" aria-label="Prompts">{items}</ol>
            </div>
        }
    }
}
