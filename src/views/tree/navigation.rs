//! Keyboard navigation in the tree: moving the selection, opening and closing rows, switching
//! branches, showing raw lines.

use leptos::prelude::*;
use sessionscope_engine::model::EntryId;

use crate::logic::outline::{Landmark, RowKey, RowKind};
use crate::state::ViewerState;
use crate::views::tree::layout::LayoutRef;

/// Keyboard navigation. Returns true if the key was handled.
pub fn handle_key(
    viewer: &ViewerState,
    layout: Memo<LayoutRef>,
    event: &web_sys::KeyboardEvent,
    viewport: f64,
) -> bool {
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
            if !collapsed && (has_children || crate::logic::outline::collapsed_by_default(kind_of(viewer, key))) {
                viewer.set_collapsed(key, true);
            } else {
                let parent = viewer.outline.with_value(|o| {
                    let o = o.as_ref()?;
                    let row = o.row_of_key(key)?;
                    let parent = o.rows[row.index()].parent;
                    parent.is_some().then(|| o.key(parent))
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
        // Prompt to prompt, failed call to failed call, into collapsed rows too.
        "}" | "{" | "e" | "E" => {
            let landmark = if matches!(key.as_str(), "}" | "{") { Landmark::Prompt } else { Landmark::FailedCall };
            let forward = matches!(key.as_str(), "}" | "e");
            viewer.step_landmark(landmark, forward);
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
            .and_then(|o| o.row_of_key(key).map(|row| (o.rows[row.index()].collapsed, o.has_children(row))))
            .unwrap_or((false, false))
    })
}

fn kind_of(viewer: &ViewerState, key: RowKey) -> RowKind {
    viewer.outline.with_value(|o| {
        o.as_ref()
            .and_then(|o| o.row_of_key(key).map(|row| o.rows[row.index()].kind))
            .unwrap_or(RowKind::Noise { entry: EntryId::NONE })
    })
}
