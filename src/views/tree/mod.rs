//! The conversation graph: a virtualized ARIA tree. Only the rows in view (plus a margin)
//! are in the DOM, whatever the session's size; row heights are estimated, then measured and
//! cached, and the scroll position is kept steady while they settle. The layout, the keyboard
//! and the rows are in the modules below; none of them uses this one.

pub mod layout;
pub mod navigation;
pub mod row;

use std::sync::Arc;

use leptos::html;
use leptos::prelude::*;
use rustc_hash::FxHashMap;
use sessionscope_engine::dag::SessionId;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

use crate::logic::outline::RowKey;
use crate::state::use_viewer;
use crate::views::parts::{FileParts, Place};
use crate::views::tree::layout::{Layout, LayoutRef, TreeContext, compute_layout};
use crate::views::tree::navigation::handle_key;
use crate::views::tree::row::{RowView, key_from_dom_id, row_dom_id};

/// Pixels rendered above and below the viewport.
const OVERSCAN_PX: f64 = 600.0;
/// At most this many rows are in the DOM at once.
pub const MAX_ROWS: usize = 200;

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
    let resizing = StoredValue::new_local(None::<Resizing>);
    Effect::new(move |_| {
        let Some(element) = scroller.get() else { return };
        let callback = Closure::<dyn FnMut(js_sys::Array)>::new(move |_entries: js_sys::Array| schedule_measure());
        if let Ok(observer) = web_sys::ResizeObserver::new(callback.as_ref().unchecked_ref())
            && let Ok(Some(inner)) = element.query_selector(".tree")
        {
            observer.observe(&inner);
            resizing.set_value(Some(Resizing { observer, _callback: callback }));
        }
        viewport.set(element.client_height() as f64);
    });
    // The tree is mounted again each time the Conversation tab comes back: its observer goes
    // when it unmounts.
    on_cleanup(move || {
        resizing.try_set_value(None);
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
    Effect::new(move |previous: Option<SessionId>| {
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

    // What comes on screen of a remembered history's session is seen: the newest time among the
    // rows in view goes to the history's marks (while the tab is shown).
    let history = crate::state::history::use_history();
    let seen_so_far = StoredValue::new((String::new(), None::<i64>, false));
    Effect::new(move |_| {
        let top = scroll_top.get();
        let height = viewport.get();
        let layout = layout.get();
        let layout = &layout.0;
        if layout.rows.is_empty() || crate::platform::page::hidden() || !history.tracks_seen() {
            return;
        }
        let Some(model) = viewer.model.get_value() else { return };
        let session = viewer.session.get_untracked();
        let Some(id) = model.graph.sessions.get(session.index()).map(|s| s.id.clone()) else { return };
        let first = layout.index_at(top);
        let last = layout.index_at(top + height - 1.0).max(first);
        let on_screen: Vec<RowKey> = layout.rows[first..=last].iter().map(|(key, _)| *key).collect();
        let to_the_end = last + 1 == layout.rows.len();
        viewer.outline.with_value(|outline| {
            let Some(outline) = outline.as_ref() else { return };
            // Only what goes further than last time is handed on.
            let newest = crate::logic::seen::newest_time(&model.corpus, &model.graph, outline, &on_screen);
            let (seen_session, through, ended) = seen_so_far.get_value();
            if seen_session == id && newest <= through && (ended || !to_the_end) {
                return;
            }
            let Some(mark) = crate::logic::seen::seen_through(
                &model.corpus,
                &model.graph,
                session,
                newest,
                to_the_end,
                js_sys::Date::now(),
            ) else {
                return;
            };
            history.saw(&id, mark);
            seen_so_far.set_value((id.clone(), newest, to_the_end));
        });
    });

    let marks = crate::state::use_marks();
    let chrome = crate::state::use_chrome();
    let on_keydown = move |event: web_sys::KeyboardEvent| {
        if crate::views::marks::mark_keys(&event, viewer, marks, chrome) {
            event.prevent_default();
            return;
        }
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
            <FileParts place=Place::End />
        </div>
    }
}

/// The observer that measures the rows again when they resize, with its callback. Dropping it
/// disconnects the observer, so the callback is never called once it is gone.
struct Resizing {
    observer: web_sys::ResizeObserver,
    _callback: Closure<dyn FnMut(js_sys::Array)>,
}

impl Drop for Resizing {
    fn drop(&mut self) {
        self.observer.disconnect();
    }
}

fn request_animation_frame(f: impl FnOnce() + 'static) {
    let Some(window) = web_sys::window() else { return };
    let closure = Closure::once_into_js(f);
    let _ = window.request_animation_frame(closure.unchecked_ref());
}
