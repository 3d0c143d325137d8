//! The folders this browser remembers (Chromium's File System Access API): listed on the start
//! page, reopened with one click, forgotten; the history's cached index and trigram sets kept for
//! the next visit; and a folder's walk into the history, listed from its cache first.

use std::collections::HashMap;
use std::sync::Arc;

use futures::future::LocalBoxFuture;
use leptos::prelude::*;
use sessionscope_engine::history::SessionRow;
use sessionscope_engine::history_cache::{CachedTrigrams, CachedUnit, FileStamp, IndexCache, encode_trigrams};

use super::{HistoryRow, HistoryState, HistoryUnit, Pass, UnitTrigrams, stamps_of};
use crate::client::folders::{Folders, Remembered};
use crate::client::intake::Dropped;
use crate::client::picked::Picked;
use crate::platform::handles::{self, Permission};
use crate::platform::schedule::now_ms;

/// A remembered folder, as the page lists it.
#[derive(Clone, Debug, PartialEq)]
pub struct RememberedFolder {
    pub id: String,
    pub name: String,
    pub opened_ms: f64,
}

/// The remembered folder a history comes from.
pub(super) struct Source {
    pub(super) folder: Remembered,
    pub(super) cache: Option<IndexCache>,
}

/// The remembered folders' part of the history's state.
#[derive(Clone, Copy)]
pub struct RememberedFolders {
    /// The folders this browser remembers, the last opened first, for the start page.
    pub list: RwSignal<Vec<RememberedFolder>>,
    pub(super) handles: StoredValue<Vec<Remembered>, LocalStorage>,
    /// What went wrong with a remembered folder (permission refused, moved away), shown on the page.
    pub error: RwSignal<Option<String>>,
    /// The remembered folder the history was read from, and its cached index.
    pub(super) source: StoredValue<Option<Source>, LocalStorage>,
    /// Whether the index of the pass that just ended is kept for the next visit.
    pub index_kept: RwSignal<IndexKept>,
}

/// Where the index of a remembered folder's last pass stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IndexKept {
    /// Being written: a reload before it is would read the folder again.
    Keeping,
    Kept,
    /// The storage refused it (full, or refused): why.
    NotKept(String),
}

impl RememberedFolders {
    pub(super) fn new() -> RememberedFolders {
        RememberedFolders {
            list: RwSignal::new(Vec::new()),
            handles: StoredValue::new_local(Vec::new()),
            error: RwSignal::new(None),
            source: StoredValue::new_local(None),
            // Nothing is kept until a pass has ended and its index is written.
            index_kept: RwSignal::new(IndexKept::Keeping),
        }
    }
}

impl HistoryState {
    /// The id of the remembered folder the history was read from, if it was one.
    pub(super) fn remembered_id(&self) -> Option<String> {
        self.remembered.source.with_value(|s| s.as_ref().map(|s| s.folder.id.clone())).filter(|id| !id.is_empty())
    }

    /// Keeps the units' trigram sets for a remembered folder (after a whole pass only: they are
    /// bigger than the index, and a set whose files changed since is not used).
    pub(super) fn save_trigrams(&self) -> impl Future<Output = ()> + 'static {
        let id = self.remembered_id();
        let bytes = self.units.with_value(|units| {
            encode_trigrams(units.iter().filter_map(|u| u.trigrams.as_ref()).map(|t| (t.read.as_slice(), &t.set)))
        });
        let folders = self.folders();
        async move {
            let Some(id) = id else { return };
            let started = now_ms();
            let saved = folders.save_trigrams(&id, &bytes).await;
            web_sys::console::debug_1(
                &format!(
                    "sessionscope history: trigram sets saved, {} KB in {:.0} ms{}",
                    bytes.len() / 1024,
                    now_ms() - started,
                    saved.err().map(|e| format!(": {e}")).unwrap_or_default()
                )
                .into(),
            );
        }
    }

    /// Keeps the index of a remembered folder for its next visit: every unit answered in this
    /// pass, with the stamps of the files it was read from.
    pub(super) fn save_cache(&self) {
        self.save_cache_then(None);
    }

    /// [`Self::save_cache`], then what else is kept beside the index (`then`): the folder is said
    /// kept once all of it is, so that a reload before reads nothing again.
    pub(super) fn save_cache_then(&self, then: Option<LocalBoxFuture<'static, ()>>) {
        let Some(id) = self.remembered_id() else { return };
        let units: Vec<CachedUnit> = self.units.with_value(|units| {
            self.rows.with_value(|rows| {
                self.index.answered.with_value(|answered| {
                    let mut rows_of: HashMap<u32, Vec<SessionRow>> = HashMap::new();
                    for row in rows {
                        rows_of.entry(row.unit).or_default().push(row.row.clone());
                    }
                    answered
                        .iter()
                        .filter_map(|(&u, problems)| {
                            let unit = units.get(u as usize)?;
                            Some(CachedUnit {
                                key: unit.key.clone(),
                                folder: unit.folder.clone(),
                                files: stamps_of(&unit.files),
                                rows: rows_of.remove(&u).unwrap_or_default(),
                                problems: problems.clone(),
                            })
                        })
                        .collect()
                })
            })
        });
        let cache = IndexCache::new(units);
        let bytes = cache.encode();
        self.remembered.source.update_value(|source| {
            if let Some(source) = source {
                source.cache = Some(cache);
            }
        });
        let folders = self.folders();
        let kept = self.remembered.index_kept;
        kept.set(IndexKept::Keeping);
        leptos::task::spawn_local(async move {
            let started = now_ms();
            let saved = folders.save_cache(&id, &bytes).await;
            if let Some(then) = then {
                then.await;
            }
            kept.set(saved.as_ref().map_or_else(|reason| IndexKept::NotKept(reason.to_string()), |()| IndexKept::Kept));
            match saved {
                Ok(()) => web_sys::console::debug_1(
                    &format!(
                        "sessionscope history: cached index saved, {} KB in {:.0} ms",
                        bytes.len() / 1024,
                        now_ms() - started
                    )
                    .into(),
                ),
                Err(reason) => {
                    web_sys::console::warn_1(&format!("sessionscope: the index was not cached: {reason}").into())
                }
            }
        });
    }

    /// Lists the folders this browser remembers, for the start page.
    pub fn load_remembered(&self) {
        if !Folders::supported() {
            return;
        }
        let state = *self;
        leptos::task::spawn_local(async move {
            let folders = state.folders().remembered().await;
            state.remembered.list.set(
                folders
                    .iter()
                    .map(|f| RememberedFolder { id: f.id.clone(), name: f.name.clone(), opened_ms: f.opened_ms })
                    .collect(),
            );
            state.remembered.handles.set_value(folders);
        });
    }

    /// The remembered folder the history on screen comes from.
    pub fn source_folder(&self) -> Option<RememberedFolder> {
        self.remembered.source.with_value(|s| {
            s.as_ref().map(|s| RememberedFolder {
                id: s.folder.id.clone(),
                name: s.folder.name.clone(),
                opened_ms: s.folder.opened_ms,
            })
        })
    }

    /// Asks for a folder with the browser's folder picker, remembers it and opens it.
    pub fn choose_folder(&self) {
        let state = *self;
        self.workers().prepare();
        leptos::task::spawn_local(async move {
            match state.folders().pick().await {
                Ok(Some(handle)) => state.open_handle(handle, None).await,
                Ok(None) => {}
                Err(reason) => state.remembered.error.set(Some(format!("The folder could not be opened: {reason}."))),
            }
        });
    }

    /// Remembers a folder handle and opens it: picked, or dropped in a browser that gives
    /// handles (then `dropped` holds the drop's entries, which are walked instead).
    pub async fn open_handle(&self, handle: web_sys::FileSystemDirectoryHandle, dropped: Option<Dropped>) {
        self.prewarm();
        let started = now_ms();
        let remembered = self.folders().remember(handle.clone()).await;
        web_sys::console::debug_1(
            &format!("sessionscope history: folder remembered in {:.0} ms", now_ms() - started).into(),
        );
        match remembered {
            Ok(folder) => {
                self.load_remembered();
                self.open_remembered(folder, dropped).await
            }
            Err(reason) => {
                // It opens all the same, without being remembered.
                web_sys::console::warn_1(&format!("sessionscope: the folder is not remembered: {reason}").into());
                let name = handle.name();
                let folder =
                    Remembered { id: String::new(), name: name.clone(), handle, opened_ms: js_sys::Date::now() };
                self.open_remembered(folder, dropped).await;
                // Said once it is open (opening clears what was said before).
                if self.remembered.error.get_untracked().is_none() {
                    self.remembered.error.set(Some(format!(
                        "{name} is open, but it could not be remembered: {reason}. Next time it is chosen and read again (a private window keeps nothing)."
                    )));
                }
            }
        }
    }

    /// Opens a remembered folder again: the browser asks the user for permission to read it.
    pub fn reopen(&self, id: &str) {
        let Some(folder) = self.remembered.handles.with_value(|f| f.iter().find(|f| f.id == id).cloned()) else {
            return;
        };
        let state = *self;
        self.workers().prepare();
        leptos::task::spawn_local(async move {
            if handles::permission(&folder.handle, true).await != Permission::Granted {
                state.remembered.error.set(Some(format!(
                    "The browser's permission to read {} was not given: reopen it and allow reading, or choose it again.",
                    folder.name
                )));
                return;
            }
            state.open_handle(folder.handle, None).await;
        });
    }

    /// Forgets a remembered folder: its handle and its cached index leave this browser.
    pub fn forget(&self, id: String) {
        let state = *self;
        // What was seen of it goes with it, and is not kept again meanwhile.
        if self.remembered_id().as_deref() == Some(id.as_str()) {
            self.begin_seen(None);
        }
        leptos::task::spawn_local(async move {
            if let Err(reason) = state.folders().forget(&id).await {
                state.remembered.error.set(Some(format!("The folder could not be forgotten: {reason}.")));
            }
            let shown = state.remembered.source.with_value(|s| s.as_ref().is_some_and(|s| s.folder.id == id));
            if shown {
                state.stop_following();
                state.remembered.source.set_value(None);
            }
            state.load_remembered();
            state.bump();
        });
    }

    /// Walks a remembered folder into the history: units its cached index holds unchanged are
    /// listed at once, the others are read.
    ///
    /// A folder just dropped is walked through the drop's directory entries (the browser reads
    /// their files faster than files got through handles), else through its handle.
    async fn open_remembered(&self, folder: Remembered, dropped: Option<Dropped>) {
        self.remembered.error.set(None);
        let started = now_ms();
        // A folder just dropped is there and readable: its entries are in hand. One picked or
        // reopened may have gone away or had its permission taken back: it is looked at while
        // its cached index is read.
        let folders = self.folders();
        let cache = async { if folder.id.is_empty() { None } else { folders.load_cache(&folder.id).await } };
        let trigrams =
            async { if folder.id.is_empty() { Vec::new() } else { folders.load_trigrams(&folder.id).await } };
        let insights =
            async { if folder.id.is_empty() { Vec::new() } else { folders.load_insights(&folder.id).await } };
        let words = async { if folder.id.is_empty() { None } else { folders.load_words(&folder.id).await } };
        let seen = async { if folder.id.is_empty() { None } else { folders.load_seen(&folder.id).await } };
        let check = async {
            match dropped {
                Some(_) => Ok(()),
                None => handles::check(&folder.handle).await,
            }
        };
        let (cache, trigrams, insights, words, seen, checked) =
            futures::join!(cache, trigrams, insights, words, seen, check);
        web_sys::console::debug_1(
            &format!(
                "sessionscope history: cached index of {} sessions read in {:.0} ms",
                cache.as_ref().map_or(0, IndexCache::sessions),
                now_ms() - started
            )
            .into(),
        );
        // A folder that went away or whose permission was taken back says so before anything
        // is shown.
        if let Err(reason) = checked {
            self.index.prewarmed.set_value(None);
            self.remembered.error.set(Some(format!("{} could not be read: {reason}.", folder.name)));
            return;
        }
        // Without a cache every unit is read: workers start loading while the folder is walked.
        let warm = cache.is_none();
        self.keep_seen_now();
        self.remembered.source.set_value(Some(Source { folder: folder.clone(), cache }));
        self.begin_seen(seen);
        let generation = self.begin_walk_with_workers(warm);
        self.remembered.source.with_value(|source| {
            if let Some(cache) = source.as_ref().and_then(|s| s.cache.as_ref()) {
                self.show_cached(cache, trigrams, insights);
            }
        });
        // The history worker keeps the cached word indexes: a unit's answers while its files
        // are those it was made of.
        if let Some(words) = words {
            let _ = self.insights_worker().restore_words(words);
        }
        let state = *self;
        let mut on_batch = move |batch: Picked| -> LocalBoxFuture<'static, ()> {
            Box::pin(async move { state.add_walked(generation, batch).await })
        };
        // A dropped folder is walked through its handle too: asking for the files of handles
        // took 1.5–1.8 s for the 10,185 files of a 4 GB history, through its directory entries
        // 4.2–4.5 s. Its entries are the way left if the handle cannot be listed.
        let intake = self.intake();
        let walked = match (intake.walk_folder(&folder.handle, &mut on_batch).await, dropped) {
            (Err(_), Some(dropped)) => Ok(intake.walk_drop(dropped, &mut on_batch).await),
            (walked, _) => walked,
        };
        match walked {
            Ok(_) => self.end_walk(generation),
            Err(reason) => {
                self.begin_walk();
                self.remembered.error.set(Some(format!("{} could not be read: {reason}.", folder.name)));
            }
        }
    }

    /// A remembered folder with a cached index: its sessions are listed from the cache at once,
    /// before its files are found; the walk that follows ([`Self::reconcile`]) checks each unit
    /// against the cache, reads the changed and new ones, and drops those that are gone.
    ///
    /// A unit's trigram set saved with the last whole index comes back with it: it is used once
    /// the walk finds the unit's files unchanged.
    fn show_cached(
        &self,
        cache: &IndexCache,
        trigrams: Vec<CachedTrigrams>,
        insights: Vec<(Vec<FileStamp>, js_sys::ArrayBuffer)>,
    ) {
        let mut trigrams: HashMap<String, CachedTrigrams> =
            trigrams.into_iter().filter_map(|cached| Some((cached.files.first()?.path.clone(), cached))).collect();
        let mut insights: HashMap<String, (Vec<FileStamp>, js_sys::ArrayBuffer)> =
            insights.into_iter().filter_map(|cached| Some((cached.0.first()?.path.clone(), cached))).collect();
        let mut cached_insights = Vec::new();
        let mut rows = Vec::with_capacity(cache.sessions());
        let mut answered = HashMap::new();
        let mut problems = Vec::new();
        let units: Vec<HistoryUnit> = cache
            .units()
            .iter()
            .enumerate()
            .map(|(u, cached)| {
                let unit = u as u32;
                rows.extend(cached.rows.iter().map(|row| Arc::new(HistoryRow { unit, row: row.clone() })));
                answered.insert(unit, cached.problems.clone());
                problems.extend(cached.problems.iter().cloned());
                let trigrams = cached
                    .files
                    .first()
                    .and_then(|first| trigrams.remove(&first.path))
                    .filter(|t| t.files == cached.files)
                    .map(|t| UnitTrigrams { read: t.files, set: t.set });
                if let Some((read, bytes)) = cached
                    .files
                    .first()
                    .and_then(|first| insights.remove(&first.path))
                    .filter(|(read, _)| *read == cached.files)
                {
                    cached_insights.push((unit, read, bytes));
                }
                HistoryUnit {
                    key: cached.key.clone(),
                    folder: cached.folder.clone(),
                    files: Vec::new(),
                    bytes: 0.0,
                    trigrams,
                    insights: None,
                }
            })
            .collect();
        let pass = Pass {
            units: units.len(),
            units_done: units.len(),
            files: 0,
            files_done: 0,
            bytes_done: 0.0,
            bytes: 0.0,
            started_ms: now_ms(),
            ended_ms: None,
            cancelled: false,
            walking: true,
            from_cache: 0,
        };
        self.begin_history(units, rows, answered, problems, pass);
        // The insights worker of this history holds the cached insights from now on.
        for (unit, read, buffer) in cached_insights {
            self.keep_cached_insights(unit, read, buffer);
        }
        self.index.walk.update_value(|walk| walk.reconciling = true);
        self.bump();
        self.open_linked_session();
    }
}
