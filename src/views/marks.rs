//! Bookmarks, notes and tags on screen: the session header's star and "Note & tags…", a marked
//! message's star, note and tags in the conversation, the dialog that edits a note and tags, the
//! keys that do it all (`m`/`M` star the message/session, `n`/`N` their note and tags), and the
//! export and import of the marks' file.

use leptos::prelude::*;
use sessionscope_engine::marks::{Mark, tags_from};

use crate::logic::outline::RowKey;
use crate::logic::words::counted;
use crate::state::bookmarks::MarkTarget;
use crate::state::{ChromeState, MarksState, ViewerState, use_chrome, use_marks};
use crate::views::dialog::modal_keys;

/// The id of the session shown, and the uuid of the message selected (if a message is).
fn shown(viewer: &ViewerState) -> Option<(String, Option<String>)> {
    let model = viewer.model.get_value()?;
    let session = model.graph.sessions.get(viewer.session.get_untracked().index())?.id.clone();
    let uuid = match viewer.selected.get_untracked() {
        Some(RowKey::Entry(e)) => model.corpus.entries.get(e.index()).map(|e| model.corpus.entry_uuid(e).to_owned()),
        _ => None,
    };
    Some((session, uuid.filter(|u| !u.is_empty())))
}

/// Opens the note-and-tags dialog on `target`.
pub fn edit(marks: MarksState, chrome: ChromeState, target: MarkTarget) {
    marks.editing.set(Some(target));
    chrome.open_dialog(chrome.marks_open);
}

/// The marks' keys in the conversation: `m` stars the selected message, `M` the session, `n` edits
/// the selected message's note and tags, `N` the session's. Answers whether the key was one.
pub fn mark_keys(event: &web_sys::KeyboardEvent, viewer: ViewerState, marks: MarksState, chrome: ChromeState) -> bool {
    if event.ctrl_key() || event.meta_key() || event.alt_key() {
        return false;
    }
    let key = event.key();
    if !matches!(key.as_str(), "m" | "M" | "n" | "N") {
        return false;
    }
    let Some((session, uuid)) = shown(&viewer) else { return false };
    let on_session = key == "M" || key == "N";
    let uuid = if on_session { None } else { uuid };
    if !on_session && uuid.is_none() {
        // No message is selected: nothing to mark.
        return true;
    }
    if key.eq_ignore_ascii_case("m") {
        marks.toggle_star(&session, uuid.as_deref());
    } else {
        let label = if uuid.is_some() { "this message" } else { "this session" }.to_owned();
        edit(marks, chrome, MarkTarget { session_id: session, uuid, label });
    }
    true
}

/// Stars or unstars the session shown.
pub fn star_session(viewer: ViewerState, marks: MarksState) {
    if let Some((session, _)) = shown(&viewer) {
        marks.toggle_star(&session, None);
    }
}

/// Opens the note-and-tags dialog on the session shown.
pub fn note_on_session(viewer: ViewerState, marks: MarksState, chrome: ChromeState) {
    if let Some((session, _)) = shown(&viewer) {
        edit(marks, chrome, MarkTarget { session_id: session, uuid: None, label: "this session".into() });
    }
}

/// Saves the marks' file.
pub fn export(marks: MarksState) {
    crate::platform::download::download_text("sessionscope-marks.json", "application/json", &marks.export());
}

/// A mark's note and tags, as shown under what it marks.
fn mark_details(mark: &Mark) -> Option<AnyView> {
    if mark.note.is_empty() && mark.tags.is_empty() {
        return None;
    }
    let tags = mark.tags.iter().map(|t| view! { <span class="tag">{format!("#{t}")}</span> }).collect::<Vec<_>>();
    Some(
        view! {
            <div class="mark-details">
                {(!mark.note.is_empty()).then(|| view! { <span class="mark-note">{mark.note.clone()}</span> })}
                {tags}
            </div>
        }
        .into_any(),
    )
}

/// The session header's star, "Note & tags…", and the session's note and tags.
#[component]
pub fn SessionMarkBar(session_id: String) -> impl IntoView {
    let marks = use_marks();
    let chrome = use_chrome();
    let id = StoredValue::new(session_id);
    let mark = Memo::new(move |_| id.with_value(|id| marks.mark(id, None)));
    view! {
        <div class="mark-bar" role="group" aria-label="Bookmark">
            <button
                type="button"
                class="button small star"
                aria-label="Star this session"
                aria-pressed=move || if mark.with(|m| m.starred) { "true" } else { "false" }
                aria-keyshortcuts="Shift+M"
                title="Star this session (Shift+M); starred sessions can be listed alone in the history"
                on:click=move |_| {
                    id.with_value(|id| marks.toggle_star(id, None));
                }
            >
                {move || if mark.with(|m| m.starred) { "★ Starred" } else { "☆ Star" }}
            </button>
            <button
                type="button"
                class="button small"
                aria-haspopup="dialog"
                aria-keyshortcuts="Shift+N"
                title="A note and tags on this session (Shift+N)"
                on:click=move |_| edit(marks, chrome, MarkTarget { session_id: id.get_value(), uuid: None, label: "this session".into() })
            >
                "Note & tags…"
            </button>
            {move || mark.with(mark_details)}
        </div>
    }
}

/// A message's star, note and tags in the conversation (nothing when it has none).
#[component]
pub fn MessageMark(session_id: String, uuid: String) -> impl IntoView {
    let marks = use_marks();
    let mark = Memo::new(move |_| marks.mark(&session_id, Some(&uuid)));
    move || {
        mark.with(|m| {
            (!m.is_empty()).then(|| {
                view! {
                    <div class="message-mark">
                        {m.starred.then(|| view! { <span class="star-mark" role="img" aria-label="Starred">"★"</span> })}
                        {mark_details(m)}
                    </div>
                }
            })
        })
    }
}

/// The dialog that edits a note and tags (of `MarksState::editing`).
#[component]
pub fn MarkDialog() -> impl IntoView {
    let marks = use_marks();
    let chrome = use_chrome();
    let note = NodeRef::<leptos::html::Textarea>::new();
    let tags = NodeRef::<leptos::html::Input>::new();
    let close = move || chrome.close_dialog(chrome.marks_open);
    // The note takes the focus when the dialog opens.
    Effect::new(move |_| {
        if chrome.marks_open.get()
            && let Some(note) = note.get()
        {
            let _ = note.focus();
        }
    });
    let save = move || {
        let Some(target) = marks.editing.get_untracked() else { return };
        let old = marks.mark(&target.session_id, target.uuid.as_deref());
        let text = note.get_untracked().map(|n| n.value()).unwrap_or_default();
        let typed = tags.get_untracked().map(|t| t.value()).unwrap_or_default();
        let mark = Mark { note: text.trim().to_owned(), tags: tags_from(&typed), ..old };
        marks.set(&target.session_id, target.uuid.as_deref(), mark);
        close();
    };
    move || {
        if !chrome.marks_open.get() {
            return None;
        }
        let target = marks.editing.get()?;
        let old = marks.mark(&target.session_id, target.uuid.as_deref());
        let heading = format!("Note and tags on {}", target.label);
        Some(view! {
            <div class="dialog-backdrop" on:click=move |e| {
                if e.target() == e.current_target() {
                    close();
                }
            }>
                <div
                    class="dialog marks-dialog"
                    role="dialog"
                    aria-modal="true"
                    aria-labelledby="marks-title"
                    on:keydown=move |event| {
                        if event.key() == "Enter" && (event.ctrl_key() || event.meta_key()) {
                            event.prevent_default();
                            save();
                        } else {
                            modal_keys(&event, close);
                        }
                    }
                >
                    <h2 id="marks-title">{heading}</h2>
                    <label class="field">
                        "Note"
                        <textarea node_ref=note rows="4" prop:value=old.note.clone()></textarea>
                    </label>
                    <label class="field">
                        "Tags (separated by commas or spaces)"
                        <input type="text" node_ref=tags prop:value=old.tags.join(", ") />
                    </label>
                    <p class="muted">"Kept in this browser only; Export marks in the history saves them to a file."</p>
                    <div class="dialog-actions">
                        <button type="button" class="button primary" on:click=move |_| save()>"Save"</button>
                        <button type="button" class="button" on:click=move |_| close()>"Cancel"</button>
                    </div>
                </div>
            </div>
        })
    }
}

/// Export and import of the marks' file, in the history's header.
#[component]
pub fn MarksFile() -> impl IntoView {
    let marks = use_marks();
    let message = RwSignal::new(None::<String>);
    let input = NodeRef::<leptos::html::Input>::new();
    let export = move |_| export(marks);
    let import = move |_: leptos::ev::Event| {
        let Some(file) = input.get_untracked().and_then(|i| i.files()).and_then(|f| f.get(0)) else { return };
        leptos::task::spawn_local(async move {
            let text = wasm_bindgen_futures::JsFuture::from(file.text()).await.ok().and_then(|t| t.as_string());
            let said = match text.map(|t| marks.import(&t)) {
                Some(Ok(done)) => format!(
                    "Marks imported: {} added, {} updated, {} kept as they were.",
                    done.added, done.updated, done.kept
                ),
                Some(Err(error)) => format!("The marks could not be imported: {error}."),
                None => "The file could not be read.".to_owned(),
            };
            message.set(Some(said));
            if let Some(input) = input.get_untracked() {
                input.set_value("");
            }
        });
    };
    let count = move || marks.with(|m| m.sessions.len());
    view! {
        <button type="button" class="button" on:click=export title=move || format!("Save the stars, notes and tags of {} to a file", counted(count(), "session"))>
            "Export marks"
        </button>
        <label class="button file-button">
            "Import marks…"
            <input type="file" accept=".json,application/json" node_ref=input class="visually-hidden" aria-label="Import marks" on:change=import />
        </label>
        {move || message.get().map(|m| view! { <span class="muted" role="status">{m}</span> })}
    }
}
