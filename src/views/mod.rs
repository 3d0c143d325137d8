//! What the app shows: the start screen, loading progress, the load summary, the session
//! list and the conversation graph.

pub mod command_palette;
pub mod content;
pub mod dialog;
pub mod filters;
pub mod history_home;
pub mod home_tabs;
pub mod panel;
pub mod progress;
pub mod resume;
pub mod search_box;
pub mod sessions;
pub mod share;
pub mod shortcuts;
pub mod start;
pub mod stats;
pub mod summary;
pub mod tree;

use leptos::prelude::*;

/// A flag that turns true once the frame the calling view came in with has been painted. What a
/// view does not need in its first frame (rows below the window, a side list) waits for it, so
/// that first frame comes sooner.
pub fn painted_once() -> ReadSignal<bool> {
    let (painted, set_painted) = signal(false);
    crate::platform::schedule::after_next_paint(move || {
        set_painted.try_set(true);
    });
    painted
}
