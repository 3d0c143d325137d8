//! The app shell: the start screen (drop zone, file picker, example) and the loaded view.

use std::sync::Arc;

use leptos::prelude::*;
use sessionscope_engine::Corpus;
use wasm_bindgen::JsCast;

use crate::files::{self, PickedFile};
use crate::views::messages::MessageList;

/// Where loading stands.
#[derive(Clone, PartialEq)]
enum Status {
    Idle,
    Loading(String),
    Failed(String),
    Loaded,
}

#[component]
pub fn App() -> impl IntoView {
    // The parsed model stays out of the reactive graph; `loaded` says when it changed.
    let corpus: StoredValue<Option<Arc<Corpus>>> = StoredValue::new(None);
    let loaded = Trigger::new();
    let status = RwSignal::new(Status::Idle);
    let dragging = RwSignal::new(false);

    let show = move |result: Result<Corpus, String>| match result {
        Ok(model) => {
            corpus.set_value(Some(Arc::new(model)));
            status.set(Status::Loaded);
            loaded.notify();
        }
        Err(message) => status.set(Status::Failed(message)),
    };
    let open_files = move |picked: Vec<PickedFile>| {
        if picked.is_empty() {
            return;
        }
        status.set(Status::Loading(format!("Reading {} file(s)…", picked.len())));
        leptos::task::spawn_local(async move { show(files::read_files(picked).await) });
    };
    let open_example = move |_| show(Ok(files::read_example()));

    let on_drop = move |ev: web_sys::DragEvent| {
        ev.prevent_default();
        dragging.set(false);
        if let Some(list) = ev.data_transfer().and_then(|dt| dt.files()) {
            open_files(files::picked_files(&list));
        }
    };
    let on_pick = move |ev: web_sys::Event| {
        let input = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok());
        if let Some(list) = input.as_ref().and_then(|i| i.files()) {
            open_files(files::picked_files(&list));
        }
        if let Some(input) = input {
            input.set_value("");
        }
    };

    let summary = move || {
        loaded.track();
        corpus.with_value(|c| {
            c.as_ref().map(|c| {
                let counts = c.counts();
                format!(
                    "{} file(s), {} lines: {} entries, {} metadata, {} skipped",
                    c.files.len(),
                    counts.lines,
                    counts.entries,
                    counts.metadata,
                    counts.skipped
                )
            })
        })
    };
    let messages = move || {
        loaded.track();
        corpus.get_value().map(|c| view! { <MessageList corpus=c /> })
    };

    view! {
        <header class="topbar">
            <span class="brand">"sessionscope"</span>
            <span class="tagline">"Claude Code session logs, read in your browser"</span>
        </header>
        <main
            class="start"
            class:dragging=move || dragging.get()
            on:dragover=move |ev: web_sys::DragEvent| {
                ev.prevent_default();
                dragging.set(true);
            }
            on:dragleave=move |_| dragging.set(false)
            on:drop=on_drop
        >
            <section class="dropzone" aria-label="Open session logs">
                <p class="dropzone-title">
                    "Drop Claude Code session logs (.jsonl) or a project folder here"
                </p>
                <p class="dropzone-note">"Nothing is uploaded: files are read by this page only."</p>
                <div class="dropzone-actions">
                    <label class="button">
                        "Choose files…"
                        <input
                            type="file"
                            class="visually-hidden"
                            multiple
                            accept=".jsonl,.json,.ndjson,application/json"
                            aria-label="Choose session log files"
                            on:change=on_pick
                        />
                    </label>
                    <button type="button" class="button" on:click=open_example>
                        "Open example"
                    </button>
                </div>
                <p class="status" role="status">
                    {move || match status.get() {
                        Status::Idle => String::new(),
                        Status::Loading(text) => text,
                        Status::Failed(text) => format!("Could not read the files: {text}"),
                        Status::Loaded => summary().unwrap_or_default(),
                    }}
                </p>
            </section>
            {messages}
        </main>
    }
}
