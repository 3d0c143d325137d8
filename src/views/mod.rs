//! What the app shows: the start screen, loading progress, the load summary, the session
//! list and the conversation graph.

pub mod command_palette;
pub mod content;
pub mod dialog;
pub mod filters;
pub mod history_home;
pub mod home_tabs;
pub mod marks;
pub mod panel;
pub mod parts;
pub mod progress;
pub mod ranked_results;
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

/// A duration that may not be known: its text ("1.2 s"), or a dash that says "unknown duration" to
/// screen readers and as its title, never "0 ms".
pub fn duration_view(ms: Option<i64>) -> AnyView {
    use crate::render::units;
    match ms {
        Some(ms) => units::human_duration_ms(ms).into_any(),
        None => view! {
            <span
                class="unknown-duration"
                role="img"
                aria-label=units::UNKNOWN_DURATION_LABEL
                title=units::UNKNOWN_DURATION_LABEL
            >
                {units::UNKNOWN_DURATION}
            </span>
        }
        .into_any(),
    }
}
