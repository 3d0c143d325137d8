//! What the person has seen of a remembered history ([`crate::logic::seen`]): read with the
//! folder's cache, taken as a baseline after its first index, advanced as rows come on screen,
//! and kept again a moment after it changes (at once when the tab is hidden or the session
//! left). The history list reads each session's new messages from it; opening a session hands
//! the viewer its mark, for the "new since" divider.

use leptos::prelude::*;
use sessionscope_engine::history::SessionRow;

use super::HistoryState;
use crate::logic::seen::{FolderSeen, SeenMark, Unread};
use crate::platform::schedule::Burst;

/// How long after a change what was seen is kept.
const SAVE_AFTER_MS: f64 = 1000.0;

/// The history's part that knows what was seen.
#[derive(Clone, Copy)]
pub struct SeenState {
    /// The remembered folder's marks (`None` for a history of no remembered folder, or before
    /// they are read).
    folder: StoredValue<Option<FolderSeen>>,
    /// Notified when the marks change: the list's counts follow.
    pub changed: Trigger,
    /// Whether the marks changed since they were last kept.
    dirty: StoredValue<bool>,
    save: StoredValue<Burst, LocalStorage>,
}

impl SeenState {
    pub(super) fn new() -> SeenState {
        SeenState {
            folder: StoredValue::new(None),
            changed: Trigger::new(),
            dirty: StoredValue::new(false),
            save: StoredValue::new_local(Burst::default()),
        }
    }
}

impl HistoryState {
    /// Starts a remembered folder's history with what was kept of it (`None` before its first
    /// visit: its baseline is taken once it is indexed).
    pub(super) fn begin_seen(&self, kept: Option<FolderSeen>) {
        web_sys::console::debug_1(
            &format!(
                "sessionscope history: what was seen of {} sessions read",
                kept.as_ref().map_or(0, |k| k.sessions.len())
            )
            .into(),
        );
        self.seen.folder.set_value(kept);
        self.seen.dirty.set_value(false);
        self.seen.changed.notify();
    }

    /// Every session listed now is taken as seen, if nothing was kept for the folder yet.
    pub(super) fn seen_baseline(&self) {
        if self.remembered_id().is_none() || self.seen.folder.with_value(Option::is_some) {
            return;
        }
        let baseline =
            self.rows.with_value(|rows| FolderSeen::baseline(rows.iter().map(|r| &r.row), js_sys::Date::now()));
        web_sys::console::debug_1(
            &format!("sessionscope history: {} sessions taken as seen", baseline.sessions.len()).into(),
        );
        self.seen.folder.set_value(Some(baseline));
        self.seen_changed();
        self.keep_seen_now();
    }

    /// Whether the history tells new from seen (it is a remembered folder's, its marks read).
    pub fn tracks_seen(&self) -> bool {
        self.seen.changed.track();
        self.seen.folder.with_value(Option::is_some)
    }

    /// How much of a session is new to the person (tracked: the list follows).
    pub fn unread(&self, row: &SessionRow) -> Unread {
        self.seen.changed.track();
        self.seen.folder.with_value(|seen| seen.as_ref().map_or(Unread::Seen, |s| s.unread(row)))
    }

    /// What was seen of session `id`, if anything is known.
    pub fn seen_mark(&self, id: &str) -> Option<SeenMark> {
        self.seen.folder.with_value(|seen| seen.as_ref()?.sessions.get(id).cloned())
    }

    /// What came on screen of session `id`: taken as seen, where it goes further.
    pub fn saw(&self, id: &str, mark: SeenMark) {
        let advanced = self
            .seen
            .folder
            .try_update_value(|seen| seen.as_mut().is_some_and(|s| s.advance(id, mark)))
            .unwrap_or(false);
        if advanced {
            self.seen_changed();
        }
    }

    /// Takes every session listed of `project` (every project: `None`) as seen whole.
    pub fn mark_all_seen(&self, project: Option<&str>) {
        let now = js_sys::Date::now();
        let advanced = self.rows.with_value(|rows| {
            self.seen
                .folder
                .try_update_value(|seen| {
                    let Some(seen) = seen.as_mut() else { return false };
                    let mut any = false;
                    for row in rows.iter().filter(|r| project.is_none_or(|p| r.row.project == p)) {
                        any |= seen.advance(&row.row.session_id, SeenMark::of_row(&row.row, now));
                    }
                    any
                })
                .unwrap_or(false)
        });
        if advanced {
            self.seen_changed();
            self.keep_seen_now();
        }
    }

    /// The sessions of `project` (every project: `None`) with something new.
    pub fn unread_sessions(&self, project: Option<&str>) -> usize {
        self.seen.changed.track();
        self.changed.track();
        self.seen.folder.with_value(|seen| {
            let Some(seen) = seen.as_ref() else { return 0 };
            self.rows.with_value(|rows| {
                rows.iter()
                    .filter(|r| project.is_none_or(|p| r.row.project == p))
                    .filter(|r| seen.unread(&r.row) != Unread::Seen)
                    .count()
            })
        })
    }

    fn seen_changed(&self) {
        self.seen.dirty.set_value(true);
        self.seen.changed.notify();
        let state = *self;
        self.seen.save.with_value(|save| save.run_in(SAVE_AFTER_MS, move || state.keep_seen_now()));
    }

    /// Keeps the marks now, if they changed (the tab is being hidden, the session left).
    pub fn keep_seen_now(&self) {
        if !self.seen.dirty.try_get_value().unwrap_or(false) {
            return;
        }
        let Some(id) = self.remembered_id() else { return };
        let Some(seen) = self.seen.folder.get_value() else { return };
        self.seen.dirty.set_value(false);
        let folders = self.folders();
        leptos::task::spawn_local(async move {
            match folders.save_seen(&id, &seen).await {
                Ok(()) => crate::platform::probe::say(crate::platform::probe::Said::SeenKept),
                Err(error) => web_sys::console::warn_1(
                    &format!("sessionscope history: what was seen could not be kept: {error}").into(),
                ),
            }
        });
    }
}
