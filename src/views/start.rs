//! The start screen: drop zone, file and folder pickers, the example.

use leptos::prelude::*;
use leptos::tachys::html::attribute::custom::CustomAttribute;
use wasm_bindgen::JsCast;

use crate::files;
use crate::state::{HistoryState, use_history, use_loading};

/// Reads a file input's files and clears it, so picking the same file again works.
fn on_pick(history: HistoryState, event: web_sys::Event) {
    let Some(input) = event.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) else { return };
    if let Some(list) = input.files() {
        history.open_picked(files::from_file_list(&list));
    }
    input.set_value("");
}

/// "Choose files…" and "Choose a folder…" buttons (labels around hidden inputs).
#[component]
pub fn PickButtons() -> impl IntoView {
    let history = use_history();
    let folder = view! {
        <input
            type="file"
            class="visually-hidden"
            multiple
            aria-label="Choose a project folder"
            on:change=move |event| on_pick(history, event)
        />
    }
    .attr("webkitdirectory", "");
    view! {
        <label class="button">
            "Choose files…"
            <input
                type="file"
                class="visually-hidden"
                multiple
                accept=".jsonl,.json,.ndjson,application/json"
                aria-label="Choose session log files"
                on:change=move |event| on_pick(history, event)
            />
        </label>
        <label class="button">"Choose a folder…" {folder}</label>
    }
}

#[component]
pub fn StartScreen() -> impl IntoView {
    let loading = use_loading();
    view! {
        <section class="dropzone" aria-label="Open session logs">
            <p class="dropzone-title">"Drop Claude Code session logs (.jsonl) or a project folder here"</p>
            <p class="dropzone-note">"Nothing is uploaded: files are read by this page only."</p>
            <div class="dropzone-actions">
                <PickButtons />
                <button type="button" class="button" on:click=move |_| loading.open_example()>
                    "Open example"
                </button>
            </div>
            <p class="dropzone-hint">
                "Claude Code keeps sessions in "
                <code>"~/.claude/projects/<project>/"</code>
                ": drop a session file, or the whole project folder to get its subagents too."
            </p>
        </section>
    }
}
