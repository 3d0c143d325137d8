//! Loading progress: percent, speed, the file being read, and Cancel.

use leptos::prelude::*;

use crate::logic::load_progress::{Phase, Progress};
use crate::render::units;
use crate::state::{LoadStatus, use_loading};

/// What the progress label says.
fn label_of(p: &Progress) -> String {
    match p.phase {
        Phase::Building => "Building the conversation graph…".to_owned(),
        Phase::TakingIn => format!(
            "Taking the session into the page · {:.0}% · {} of {}",
            p.percent(),
            units::human_bytes(p.done_bytes as u64),
            units::human_bytes(p.total_bytes as u64),
        ),
        Phase::Reading => format!(
            "Reading {} · {:.0}% · {} of {} · {:.0} MB/s",
            p.path,
            p.percent(),
            units::human_bytes(p.done_bytes as u64),
            units::human_bytes(p.total_bytes as u64),
            p.megabytes_per_second()
        ),
    }
}

/// The section is drawn once per load, and only its bar and label follow the progress: a
/// section drawn anew at each slice would put a new Cancel button under the pointer many times
/// a second, and a click pressed on one and released on the next would be lost.
#[component]
pub fn LoadProgress() -> impl IntoView {
    let loading = use_loading();
    let progress = move || match loading.status.get() {
        LoadStatus::Loading(p) => Some(p),
        _ => None,
    };
    let is_loading = Memo::new(move |_| progress().is_some());
    let percent = move || progress().map_or(0.0, |p| p.percent());
    let label = move || progress().map(|p| label_of(&p)).unwrap_or_default();
    move || {
        is_loading.get().then(|| {
            view! {
                <section class="progress" aria-label="Loading">
                    <div
                        class="progress-bar"
                        role="progressbar"
                        aria-label="Loading progress"
                        aria-valuemin="0"
                        aria-valuemax="100"
                        aria-valuenow=move || format!("{:.0}", percent())
                    >
                        <div class="progress-fill" style:width=move || format!("{:.1}%", percent())></div>
                    </div>
                    <p class="progress-label" role="status">{label}</p>
                    {move || loading.preview.get().map(|p| view! {
                        <p class="progress-preview">
                            {format!(
                                "Showing the first {} of {} while the rest loads",
                                units::human_bytes(p.shown_bytes as u64),
                                units::human_bytes(p.total_bytes as u64)
                            )}
                        </p>
                    })}
                    <button type="button" class="button" on:click=move |_| loading.cancel()>
                        "Cancel"
                    </button>
                </section>
            }
        })
    }
}

/// "Add or replace?" when files are dropped while others are loaded.
#[component]
pub fn AddOrReplace() -> impl IntoView {
    let loading = use_loading();
    let add_button = NodeRef::<leptos::html::Button>::new();
    crate::views::dialog::focus_on_open(add_button);
    move || {
        loading.asking().then(|| {
            view! {
                <div class="dialog-backdrop">
                    <div
                        class="dialog"
                        role="dialog"
                        aria-modal="true"
                        aria-label="Add or replace"
                        on:keydown=move |event| crate::views::dialog::modal_keys(&event, move || loading.dismiss())
                    >
                        <p>"Add the new files to what is loaded, or replace it?"</p>
                        <div class="dialog-actions">
                            <button type="button" class="button primary" node_ref=add_button on:click=move |_| loading.answer(true)>
                                "Add"
                            </button>
                            <button type="button" class="button" on:click=move |_| loading.answer(false)>
                                "Replace"
                            </button>
                            <button type="button" class="button" on:click=move |_| loading.dismiss()>
                                "Cancel"
                            </button>
                        </div>
                    </div>
                </div>
            }
        })
    }
}
