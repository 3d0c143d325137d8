//! Bookmarks, notes and tags ([`sessionscope_engine::marks`]): on a session or on one of its
//! messages, keyed by the session's id and the message's uuid (so they survive reloads and
//! re-indexing), kept in this browser's storage, exported and imported as one JSON file (the
//! file `sessionscope index --marks=` reads). Nothing of them leaves the page unless exported.

use leptos::prelude::*;
use sessionscope_engine::marks::{Imported, Mark, Marks, MarksError, SessionMarks};

use crate::client::folders::Folders;

/// What is being marked: a session, or one of its messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MarkTarget {
    pub session_id: String,
    /// The message's uuid; `None` for the session itself.
    pub uuid: Option<String>,
    /// How the page names it in the note dialog ("this session", "this message").
    pub label: String,
}

#[derive(Clone, Copy)]
pub struct MarksState {
    marks: StoredValue<Marks>,
    /// Notified when the marks change (read, set, imported).
    pub changed: Trigger,
    /// The mark whose note and tags are being edited, if the dialog is open.
    pub editing: RwSignal<Option<MarkTarget>>,
    folders: StoredValue<Folders, LocalStorage>,
}

impl MarksState {
    pub fn new(folders: Folders) -> MarksState {
        MarksState {
            marks: StoredValue::new(Marks::default()),
            changed: Trigger::new(),
            editing: RwSignal::new(None),
            folders: StoredValue::new_local(folders),
        }
    }

    /// Reads the marks kept in this browser (at start).
    pub fn load(&self) {
        let state = *self;
        let folders = self.folders.get_value();
        leptos::task::spawn_local(async move {
            let Some(text) = folders.load_marks().await else { return };
            match Marks::from_json(&text) {
                Ok(kept) => {
                    // Marks made before they were read are kept over the stored ones.
                    state.marks.update_value(|marks| {
                        let made = std::mem::replace(marks, kept);
                        marks.import(made);
                    });
                    state.changed.notify();
                }
                Err(error) => {
                    web_sys::console::warn_1(&format!("sessionscope: the kept marks could not be read: {error}").into())
                }
            }
        });
    }

    fn keep(&self) {
        self.changed.notify();
        let text = self.marks.with_value(Marks::to_json);
        let folders = self.folders.get_value();
        leptos::task::spawn_local(async move {
            if let Err(error) = folders.save_marks(&text).await {
                web_sys::console::warn_1(&format!("sessionscope: the marks could not be kept: {error}").into());
            }
        });
    }

    /// A session's marks (tracked).
    pub fn session(&self, id: &str) -> Option<SessionMarks> {
        self.changed.track();
        self.marks.with_value(|m| m.session(id).cloned())
    }

    /// The mark on a session (`uuid: None`) or on one of its messages (tracked).
    pub fn mark(&self, id: &str, uuid: Option<&str>) -> Mark {
        self.changed.track();
        self.mark_untracked(id, uuid)
    }

    fn mark_untracked(&self, id: &str, uuid: Option<&str>) -> Mark {
        self.marks.with_value(|m| {
            match uuid {
                Some(uuid) => m.entry(id, uuid).cloned(),
                None => m.session(id).map(|s| s.mark.clone()),
            }
            .unwrap_or_default()
        })
    }

    /// Reads the marks (tracked) with `f`.
    pub fn with<T>(&self, f: impl FnOnce(&Marks) -> T) -> T {
        self.changed.track();
        self.marks.with_value(f)
    }

    /// Every tag with the sessions that carry it (tracked).
    pub fn tags(&self) -> Vec<(String, usize)> {
        self.with(Marks::tags)
    }

    /// Sets the mark on a session (`uuid: None`) or on one of its messages, stamped now.
    pub fn set(&self, id: &str, uuid: Option<&str>, mut mark: Mark) {
        mark.updated_ms = js_sys::Date::now() as i64;
        self.marks.update_value(|m| match uuid {
            Some(uuid) => m.set_entry(id, uuid, mark),
            None => m.set_session(id, mark),
        });
        self.keep();
    }

    /// Stars or unstars a session (`uuid: None`) or one of its messages; answers whether it is
    /// starred now.
    pub fn toggle_star(&self, id: &str, uuid: Option<&str>) -> bool {
        let mut mark = self.mark_untracked(id, uuid);
        mark.starred = !mark.starred;
        let starred = mark.starred;
        self.set(id, uuid, mark);
        starred
    }

    /// The marks as their export file.
    pub fn export(&self) -> String {
        self.marks.with_value(Marks::to_json)
    }

    /// Reads an exported file into the marks (the later of two marks of one thing wins).
    pub fn import(&self, text: &str) -> Result<Imported, MarksError> {
        let other = Marks::from_json(text)?;
        let imported = self.marks.try_update_value(|m| m.import(other)).unwrap_or_default();
        self.keep();
        Ok(imported)
    }
}

pub fn use_marks() -> MarksState {
    expect_context::<MarksState>()
}
