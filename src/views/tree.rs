//! The conversation graph: a virtualized ARIA tree. Only the rows in view (plus a margin)
//! are in the DOM, whatever the session's size; row heights are estimated, then measured and
//! cached, and the scroll position is kept steady while they settle.

use std::sync::Arc;

use leptos::html;
use leptos::prelude::*;
use rustc_hash::FxHashMap;
use sessionscope_engine::model::{BlockKind, EntryKind, NONE};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

use crate::model::Model;
use crate::outline::{Outline, RowKey, RowKind};
use crate::state::{ViewerState, use_viewer};
use crate::views::row::RowView;

/// Pixels rendered above and below the viewport.
const OVERSCAN_PX: f64 = 600.0;
/// At most this many rows are in the DOM at once.
pub const MAX_ROWS: usize = 200;

/// The visible rows with their offsets.
#[derive(Default)]
pub struct Layout {
    pub rows: Vec<(RowKey, u16)>,
    /// `offsets[i]` is the top of row `i`; `offsets[len]` the total height.
    pub offsets: Vec<f64>,
    pub index: FxHashMap<RowKey, usize>,
}

impl Layout {
    pub fn total(&self) -> f64 {
        self.offsets.last().copied().unwrap_or(0.0)
    }

    /// The row at a vertical position.
    pub fn index_at(&self, y: f64) -> usize {
        if self.rows.is_empty() {
            return 0;
        }
        let i = self.offsets.partition_point(|&o| o <= y);
        i.saturating_sub(1).min(self.rows.len() - 1)
    }

    pub fn depth_of(&self, key: RowKey) -> u16 {
        self.index.get(&key).map_or(0, |&i| self.rows[i].1)
    }
}

#[derive(Clone)]
pub struct LayoutRef(pub Arc<Layout>);

impl PartialEq for LayoutRef {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// A first guess at a row's height, refined once it is drawn.
fn estimate(model: &Model, kind: RowKind) -> f64 {
    match kind {
        RowKind::Message { first, last } => {
            let corpus = &model.corpus;
            let mut chars = 0usize;
            for e in first..=last.min(first + 64) {
                let entry = &corpus.entries[e as usize];
                if e != first && entry.kind != EntryKind::Assistant {
                    continue;
                }
                chars += entry.content.len();
                chars += corpus
                    .blocks_of(entry)
                    .iter()
                    .filter(|b| b.kind == BlockKind::Text)
                    .map(|b| b.body.len())
                    .sum::<usize>();
            }
            (44.0 + (chars as f64 / 110.0).ceil() * 21.0).min(420.0)
        }
        RowKind::ToolCall { .. } => 32.0,
        RowKind::Agent { .. } => 40.0,
        RowKind::Compaction { .. } => 38.0,
        RowKind::Branch { .. } => 38.0,
        RowKind::Noise { .. } => 24.0,
    }
}

pub fn compute_layout(model: &Model, outline: &Outline, heights: &FxHashMap<RowKey, f64>) -> Layout {
    let visible = outline.visible();
    let mut rows = Vec::with_capacity(visible.len());
    let mut offsets = Vec::with_capacity(visible.len() + 1);
    let mut index = FxHashMap::default();
    index.reserve(visible.len());
    let mut y = 0.0;
    for (i, (row, depth)) in visible.into_iter().enumerate() {
        let kind = outline.rows[row as usize].kind;
        let key = crate::outline::key_of(kind);
        offsets.push(y);
        y += heights.get(&key).copied().unwrap_or_else(|| estimate(model, kind));
        rows.push((key, depth));
        index.insert(key, i);
    }
    offsets.push(y);
    Layout { rows, offsets, index }
}

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

fn key_from_dom_id(id: &str) -> Option<RowKey> {
    let rest = id.strip_prefix("row-")?;
    let (tag, number) = rest.split_at(1);
    let n: u32 = number.parse().ok()?;
    Some(match tag {
        "e" => RowKey::Entry(n),
        "o" => RowKey::Op(n),
        "a" => RowKey::Agent(n),
        "c" => RowKey::Compaction(n),
        "b" => RowKey::Branch(n),
        _ => return None,
    })
}

/// Context for rows: the layout (depths) and the ids of rows whose heights should be measured.
#[derive(Clone, Copy)]
pub struct TreeContext {
    pub layout: Memo<LayoutRef>,
}

#[component]
pub fn ConversationTree() -> impl IntoView {
    let viewer = use_viewer();
    let scroller = NodeRef::<html::Div>::new();
    let heights: StoredValue<FxHashMap<RowKey, f64>> = StoredValue::new(FxHashMap::default());
    let heights_changed = Trigger::new();
    let scroll_top = RwSignal::new(0.0f64);
    let viewport = RwSignal::new(800.0f64);

    let layout = Memo::new(move |_| {
        viewer.visible_changed.track();
        heights_changed.track();
        let model = viewer.model.get_value();
        let layout = viewer.outline.with_value(|outline| match (model, outline) {
            (Some(model), Some(outline)) => heights.with_value(|h| compute_layout(&model, outline, h)),
            _ => Layout::default(),
        });
        LayoutRef(Arc::new(layout))
    });
    provide_context(TreeContext { layout });

    let window = Memo::new(move |_| {
        let layout = layout.get();
        let layout = &layout.0;
        if layout.rows.is_empty() {
            return (0, 0);
        }
        let top = scroll_top.get();
        let start = layout.index_at((top - OVERSCAN_PX).max(0.0));
        let end = (layout.index_at(top + viewport.get() + OVERSCAN_PX) + 1).min(layout.rows.len());
        (start, end.min(start + MAX_ROWS))
    });

    // Measuring drawn rows (reading the DOM) after each change of what is drawn.
    let measure = move || {
        let Some(element) = scroller.get_untracked() else { return };
        let Ok(nodes) = element.query_selector_all("[data-row]") else { return };
        let layout = layout.get_untracked();
        let layout = &layout.0;
        let top = element.scroll_top() as f64;
        let anchor = layout.index_at(top);
        let mut shift_above = 0.0;
        let mut changed = false;
        heights.update_value(|heights| {
            for i in 0..nodes.length() {
                let Some(node) = nodes.item(i).and_then(|n| n.dyn_into::<web_sys::HtmlElement>().ok()) else {
                    continue;
                };
                let Some(key) = key_from_dom_id(&node.id()) else { continue };
                let height = node.offset_height() as f64;
                if height <= 0.0 {
                    continue;
                }
                let Some(&index) = layout.index.get(&key) else { continue };
                let old = layout.offsets[index + 1] - layout.offsets[index];
                if (old - height).abs() > 0.5 {
                    if index < anchor {
                        shift_above += height - old;
                    }
                    heights.insert(key, height);
                    changed = true;
                }
            }
        });
        if changed {
            heights_changed.notify();
            if shift_above != 0.0 {
                element.set_scroll_top((top + shift_above).round() as i32);
                scroll_top.set(element.scroll_top() as f64);
            }
        }
    };
    let measure_pending = StoredValue::new(false);
    let schedule_measure = move || {
        if measure_pending.try_get_value().unwrap_or(true) {
            return;
        }
        measure_pending.set_value(true);
        request_animation_frame(move || {
            // The tree may be gone by the next frame.
            if measure_pending.try_set_value(false).is_none() {
                measure();
            }
        });
    };
    Effect::new(move |_| {
        window.track();
        schedule_measure();
    });

    // Rows grow and shrink on their own (details opened, images loaded): measure again.
    Effect::new(move |_| {
        let Some(element) = scroller.get() else { return };
        let callback = Closure::<dyn FnMut(js_sys::Array)>::new(move |_entries: js_sys::Array| schedule_measure());
        if let Ok(observer) = web_sys::ResizeObserver::new(callback.as_ref().unchecked_ref())
            && let Ok(Some(inner)) = element.query_selector(".tree")
        {
            observer.observe(&inner);
            callback.forget();
            std::mem::forget(observer);
        }
        viewport.set(element.client_height() as f64);
    });

    let scroll_pending = StoredValue::new(false);
    let on_scroll = move |_| {
        if scroll_pending.try_get_value().unwrap_or(true) {
            return;
        }
        scroll_pending.set_value(true);
        request_animation_frame(move || {
            if scroll_pending.try_set_value(false).is_some() {
                return;
            }
            if let Some(element) = scroller.get_untracked() {
                scroll_top.set(element.scroll_top() as f64);
                viewport.set(element.client_height() as f64);
            }
        });
    };

    // Bringing a row into view: scroll to it, then again once the rows around it are measured.
    let reveal_passes = StoredValue::new(0u8);
    let scroll_to = move |key: RowKey| {
        let Some(element) = scroller.get_untracked() else { return };
        let layout = layout.get_untracked();
        let Some(&index) = layout.0.index.get(&key) else { return };
        let top = layout.0.offsets[index];
        let bottom = layout.0.offsets[index + 1];
        let view_top = element.scroll_top() as f64;
        let height = element.client_height() as f64;
        if top < view_top || bottom > view_top + height {
            let target = (top - height / 4.0).max(0.0);
            element.set_scroll_top(target.round() as i32);
            scroll_top.set(element.scroll_top() as f64);
        }
    };
    Effect::new(move |_| {
        let Some(key) = viewer.reveal.get() else { return };
        layout.track();
        scroll_to(key);
        reveal_passes.set_value(3);
        let again = move || {
            if reveal_passes.try_get_value().unwrap_or(0) > 0 {
                reveal_passes.update_value(|p| *p -= 1);
                scroll_to(key);
            }
        };
        request_animation_frame(move || {
            again();
            request_animation_frame(move || {
                again();
                viewer.reveal.try_set(None);
            });
        });
    });

    // Another session starts at the top, unless a row is being revealed.
    Effect::new(move |previous: Option<u32>| {
        let session = viewer.session.get();
        if previous.is_some_and(|p| p != session)
            && viewer.reveal.get_untracked().is_none()
            && let Some(element) = scroller.get_untracked()
        {
            element.set_scroll_top(0);
            scroll_top.set(0.0);
        }
        session
    });

    let on_keydown = move |event: web_sys::KeyboardEvent| {
        if handle_key(&viewer, layout, &event, viewport.get_untracked()) {
            event.prevent_default();
        }
    };

    let active = move || viewer.selected.get().map(row_dom_id);
    view! {
        <div class="tree-scroll" node_ref=scroller on:scroll=on_scroll>
            <div class="tree-canvas" style:height=move || format!("{}px", layout.get().0.total().ceil())>
                <div
                    class="tree"
                    role="tree"
                    aria-label="Conversation"
                    tabindex="0"
                    aria-activedescendant=active
                    on:keydown=on_keydown
                    style:transform=move || {
                        let (start, _) = window.get();
                        let layout = layout.get();
                        let top = layout.0.offsets.get(start).copied().unwrap_or(0.0);
                        format!("translateY({top}px)")
                    }
                >
                    {move || {
                        // A row of another model is another row: each model gets a list of its own.
                        viewer.model_changed.track();
                        view! {
                            <For
                                each=move || {
                                    let (start, end) = window.get();
                                    let layout = layout.get();
                                    layout.0.rows[start..end].iter().map(|(key, _)| *key).collect::<Vec<_>>()
                                }
                                key=|key| *key
                                children=move |key| view! { <RowView key=key /> }
                            />
                        }
                    }}
                </div>
            </div>
        </div>
    }
}

/// Keyboard navigation. Returns true if the key was handled.
fn handle_key(viewer: &ViewerState, layout: Memo<LayoutRef>, event: &web_sys::KeyboardEvent, viewport: f64) -> bool {
    if event.ctrl_key() || event.meta_key() || event.alt_key() {
        return false;
    }
    let layout = layout.get_untracked();
    let layout = &layout.0;
    if layout.rows.is_empty() {
        return false;
    }
    let current = viewer.selected.get_untracked().and_then(|k| layout.index.get(&k).copied());
    let select = |index: usize| {
        let index = index.min(layout.rows.len() - 1);
        let key = layout.rows[index].0;
        viewer.selected.set(Some(key));
        viewer.reveal.set(Some(key));
    };
    let page = ((viewport / 60.0) as usize).max(1);
    let key = event.key();
    match key.as_str() {
        "ArrowDown" | "j" => select(current.map_or(0, |i| i + 1)),
        "ArrowUp" | "k" => select(current.map_or(0, |i| i.saturating_sub(1))),
        "PageDown" => select(current.map_or(0, |i| i + page)),
        "PageUp" => select(current.map_or(0, |i| i.saturating_sub(page))),
        "Home" | "g" => select(0),
        "End" | "G" => select(layout.rows.len() - 1),
        "Enter" | " " => {
            if let Some(i) = current {
                let key = layout.rows[i].0;
                match key {
                    RowKey::Branch(fork) => viewer.cycle_branch(fork, 1),
                    _ => viewer.toggle(key),
                }
            } else {
                select(0);
            }
        }
        "ArrowRight" | "l" => {
            let Some(i) = current else {
                select(0);
                return true;
            };
            let key = layout.rows[i].0;
            let (collapsed, has_children) = row_state(viewer, key);
            if collapsed {
                viewer.set_collapsed(key, false);
            } else if has_children && i + 1 < layout.rows.len() {
                select(i + 1);
            }
        }
        "ArrowLeft" | "h" => {
            let Some(i) = current else { return true };
            let key = layout.rows[i].0;
            let (collapsed, has_children) = row_state(viewer, key);
            if !collapsed && (has_children || crate::outline::collapsed_by_default(kind_of(viewer, key))) {
                viewer.set_collapsed(key, true);
            } else {
                let parent = viewer.outline.with_value(|o| {
                    let o = o.as_ref()?;
                    let row = o.row_of_key(key)?;
                    let parent = o.rows[row as usize].parent;
                    (parent != NONE).then(|| o.key(parent))
                });
                if let Some(parent) = parent {
                    viewer.selected.set(Some(parent));
                    viewer.reveal.set(Some(parent));
                }
            }
        }
        "r" | "R" => {
            if let Some(i) = current {
                viewer.toggle_raw(layout.rows[i].0);
            }
        }
        "[" | "]" => {
            let step = if key == "]" { 1 } else { -1 };
            // The branch switcher at or above the selection.
            let from = current.unwrap_or(0);
            let fork = (0..=from).rev().find_map(|i| match layout.rows[i].0 {
                RowKey::Branch(fork) => Some(fork),
                _ => None,
            });
            let fork = fork.or_else(|| {
                layout.rows.iter().find_map(|(k, _)| if let RowKey::Branch(f) = k { Some(*f) } else { None })
            });
            if let Some(fork) = fork {
                viewer.cycle_branch(fork, step);
            }
        }
        _ => return false,
    }
    true
}

fn row_state(viewer: &ViewerState, key: RowKey) -> (bool, bool) {
    viewer.outline.with_value(|o| {
        o.as_ref()
            .and_then(|o| o.row_of_key(key).map(|row| (o.rows[row as usize].collapsed, o.has_children(row))))
            .unwrap_or((false, false))
    })
}

fn kind_of(viewer: &ViewerState, key: RowKey) -> RowKind {
    viewer.outline.with_value(|o| {
        o.as_ref()
            .and_then(|o| o.row_of_key(key).map(|row| o.rows[row as usize].kind))
            .unwrap_or(RowKind::Noise { entry: NONE })
    })
}

fn request_animation_frame(f: impl FnOnce() + 'static) {
    let Some(window) = web_sys::window() else { return };
    let closure = Closure::once_into_js(f);
    let _ = window.request_animation_frame(closure.unchecked_ref());
}
