//! A whole history: a dropped or picked folder of many sessions, indexed first and opened one
//! session at a time.
//!
//! The files are grouped into session units ([`sessionscope_engine::history::Unit`]); a pool of
//! workers ([`crate::pool`]) reads each unit, answers its rows and lets its bytes go, so the page
//! holds `File` handles and rows, never the logs. Choosing a session loads only its unit's files
//! into the viewer, through [`LoadState`], as a drop of those files would; the previous session
//! is let go. A search of the whole history runs the same way, unit by unit.

use std::collections::HashMap;
use std::sync::Arc;

use leptos::prelude::*;
use sessionscope_engine::history::{FileProblem, HistoryHit, SessionRow, group_into_units, needs_hint, unit_hint};

use sessionscope_engine::history_cache::{CachedTrigrams, CachedUnit, FileStamp, IndexCache, encode_trigrams};
use sessionscope_engine::search::RawText;
use sessionscope_engine::trigrams::TrigramSet;

use crate::files::{PickedFile, now_ms};
use crate::folders::Remembered;
use crate::pool::{Pool, PoolEvent};
use crate::protocol::{Envelope, FromWorker, ToWorker};
use crate::state::LoadState;

mod follow;
pub use follow::FollowStats;

/// The files of one session unit.
pub struct HistoryUnit {
    pub key: String,
    pub folder: String,
    pub files: Vec<PickedFile>,
    pub bytes: f64,
    /// Its trigrams, once indexed (not for a unit listed from a cached index).
    pub trigrams: Option<UnitTrigrams>,
}

/// A unit's set of trigrams (see [`sessionscope_engine::trigrams`]), and the files it was made of:
/// it answers for the unit only while the unit's files are still those.
pub struct UnitTrigrams {
    read: Vec<FileStamp>,
    set: TrigramSet,
}

impl UnitTrigrams {
    /// The set a worker sent with a unit's index (see [`FromWorker::Indexed`]), if it sent one.
    fn received(read: Vec<FileStamp>, buffers: &[js_sys::ArrayBuffer]) -> Option<UnitTrigrams> {
        let buffer = buffers.first().filter(|_| !read.is_empty())?;
        let set = TrigramSet::from_bytes(crate::protocol::bytes_of(buffer))?;
        Some(UnitTrigrams { read, set })
    }
}

impl HistoryUnit {
    /// Whether a search for the query whose raw form is `raw` must read this unit: `false` only
    /// when its trigrams, made of its files as they still are, rule the query out.
    fn may_hold(&self, raw: Option<&RawText>) -> bool {
        match (&self.trigrams, raw) {
            (Some(trigrams), Some(raw)) if trigrams.read == stamps_of(&self.files) => {
                raw.may_match_trigrams(&trigrams.set)
            }
            _ => true,
        }
    }
}

/// A session of the history, and the unit that holds it.
#[derive(Debug, PartialEq)]
pub struct HistoryRow {
    pub unit: u32,
    pub row: SessionRow,
}

/// How far the index (or a search) got.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pass {
    pub units_done: usize,
    pub units: usize,
    pub files_done: usize,
    pub files: usize,
    pub bytes_done: f64,
    pub bytes: f64,
    pub started_ms: f64,
    /// When it ended (`None` while it runs).
    pub ended_ms: Option<f64>,
    pub cancelled: bool,
    /// The dropped folder is still being walked: more files will come.
    pub walking: bool,
    /// Units answered from the cached index of a remembered folder, without reading them.
    pub from_cache: usize,
}

impl Pass {
    fn new(units: &[HistoryUnit], order: &[u32]) -> Pass {
        Pass {
            units_done: 0,
            units: order.len(),
            files_done: 0,
            files: order.iter().map(|&u| units[u as usize].files.len()).sum(),
            bytes_done: 0.0,
            bytes: order.iter().map(|&u| units[u as usize].bytes).sum(),
            started_ms: now_ms(),
            ended_ms: None,
            cancelled: false,
            walking: false,
            from_cache: 0,
        }
    }

    pub fn running(&self) -> bool {
        self.ended_ms.is_none()
    }

    pub fn seconds(&self) -> f64 {
        (self.ended_ms.unwrap_or_else(now_ms) - self.started_ms) / 1000.0
    }

    pub fn megabytes_per_second(&self) -> f64 {
        let seconds = self.seconds();
        if seconds <= 0.0 { 0.0 } else { self.bytes_done / 1e6 / seconds }
    }
}

/// The columns the sessions can be sorted by.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum SortKey {
    Start,
    Title,
    Project,
    Duration,
    Messages,
    ToolCalls,
    Tokens,
    Cost,
}

/// What the sessions list shows: kept while a session is open, so going back finds it as left.
#[derive(Clone, Debug, PartialEq)]
pub struct ListView {
    /// `None` for every project.
    pub project: Option<String>,
    pub sort: SortKey,
    pub descending: bool,
    pub text: String,
    pub model: String,
    pub agent: String,
    /// Days, `YYYY-MM-DD`, inclusive; empty for no bound.
    pub from: String,
    pub to: String,
}

impl ListView {
    /// Lists every session of the project again: no text, model, agent or days asked for. The
    /// project and the sort stay.
    pub fn clear_filters(&mut self) {
        let defaults = ListView::default();
        self.text = defaults.text;
        self.model = defaults.model;
        self.agent = defaults.agent;
        self.from = defaults.from;
        self.to = defaults.to;
    }
}

impl Default for ListView {
    fn default() -> Self {
        ListView {
            project: None,
            sort: SortKey::Start,
            descending: true,
            text: String::new(),
            model: String::new(),
            agent: String::new(),
            from: String::new(),
            to: String::new(),
        }
    }
}

/// A search of the whole history: its hits by unit, in order of arrival.
#[derive(Default)]
pub struct SearchResults {
    pub query: String,
    pub regex: bool,
    pub hits: Vec<(u32, HistoryHit)>,
    pub matches: u64,
    /// Some unit's search stopped at its hits limit: `matches` is a lower bound.
    pub more: bool,
    /// Sessions not read: the trigrams of their units rule the query out.
    pub ruled_out: usize,
    /// When the first unit's answer came, and the bytes the workers read (for the benchmarks'
    /// log).
    pub first_answer_ms: Option<f64>,
    pub bytes_read: f64,
    pub error: Option<String>,
}

#[derive(Clone, Copy)]
pub struct HistoryState {
    loading: LoadState,
    units: StoredValue<Vec<HistoryUnit>, LocalStorage>,
    rows: StoredValue<Vec<Arc<HistoryRow>>>,
    problems: StoredValue<Vec<FileProblem>>,
    /// Bumped when rows or problems change (at most every few frames while indexing).
    pub changed: RwSignal<u64>,
    /// A history is loaded (its home may be hidden behind an open session).
    pub active: RwSignal<bool>,
    /// The history home is on screen.
    pub showing: RwSignal<bool>,
    pub pass: RwSignal<Option<Pass>>,
    pool: StoredValue<Option<Pool>, LocalStorage>,
    pub view: RwSignal<ListView>,
    /// The list's scroll position and active row, kept while a session is open.
    pub scroll_top: StoredValue<f64>,
    pub active_row: RwSignal<Option<usize>>,
    /// The row of the session open in the viewer.
    pub opened: RwSignal<Option<usize>>,
    /// The unit of the open session: it stays while the unit's rows are read again (they may be
    /// none for a moment, while its file is rewritten).
    opened_unit: StoredValue<Option<u32>>,
    /// Whether the open session was pushed as an entry of the browser's history (opened from
    /// the home): going back to the home then goes back in the browser's history too.
    pushed: StoredValue<bool>,
    search_pool: StoredValue<Option<Pool>, LocalStorage>,
    /// Workers started ahead of the next search, while the history is idle: a search starts
    /// with workers whose code is ready.
    prepared_search: StoredValue<Option<Pool>, LocalStorage>,
    pub search: StoredValue<SearchResults>,
    pub search_pass: RwSignal<Option<Pass>>,
    pub search_changed: RwSignal<u64>,
    /// A pending redraw, so a burst of answers costs one.
    redraw_due: StoredValue<bool>,
    /// When [`Self::bump`] last redrew (ms since the epoch), and whether it drew any session.
    last_redraw_ms: StoredValue<f64>,
    rows_drawn: StoredValue<bool>,
    search_redraw_due: StoredValue<bool>,
    walk: StoredValue<Walk, LocalStorage>,
    /// The remembered folder the history was read from, and its cached index.
    source: StoredValue<Option<Source>, LocalStorage>,
    /// The problems of each unit answered in this pass (its rows are in `rows`), for the cache.
    answered: StoredValue<HashMap<u32, Vec<FileProblem>>>,
    /// The folders this browser remembers, the last opened first, for the start page.
    pub remembered: RwSignal<Vec<RememberedFolder>>,
    remembered_handles: StoredValue<Vec<Remembered>, LocalStorage>,
    /// What went wrong with a remembered folder (permission refused, moved away), shown on the page.
    pub folder_error: RwSignal<Option<String>>,
    /// The remembered folder on screen is followed: its files are looked at for changes.
    follow: StoredValue<Option<follow::Follow>, LocalStorage>,
    pub following: RwSignal<bool>,
    /// Units read again while following.
    refresh_pool: StoredValue<Option<Pool>, LocalStorage>,
    /// Units to read again once the refresh pool is done.
    read_next: StoredValue<Vec<u32>>,
    /// A session chosen before its files were found (listed from the cache), and the message.
    pending_open: StoredValue<Option<(usize, Option<String>)>>,
    /// Units listed from the cache that changed: their answer replaces their rows.
    replacing: StoredValue<std::collections::HashSet<u32>>,
    /// Index workers started when a folder was dropped or picked, loading while the folder is
    /// remembered and its cached index is read: the walk takes them.
    prewarmed: StoredValue<Option<Pool>, LocalStorage>,
}

/// A remembered folder, as the page lists it.
#[derive(Clone, Debug, PartialEq)]
pub struct RememberedFolder {
    pub id: String,
    pub name: String,
    pub opened_ms: f64,
}

/// The remembered folder a history comes from.
struct Source {
    folder: Remembered,
    cache: Option<IndexCache>,
}

/// A drop being walked: its batches are held until they make more than one session, then
/// indexed as they come.
#[derive(Default)]
struct Walk {
    /// Which drop it is: a batch of an older drop (or of a cancelled one) is let go.
    generation: u64,
    held: crate::files::Picked,
    held_units: Vec<HistoryUnit>,
    indexing: bool,
    /// The history was listed from its cache: the walk checks it ([`HistoryState::reconcile`]).
    reconciling: bool,
    /// Workers started as the drop began to be walked, so they are loaded when its first
    /// sessions are found.
    warm_pool: Option<Pool>,
}

/// Histories up to this size can be opened all together in one view.
pub const OPEN_ALL_BYTES: f64 = 256.0 * 1024.0 * 1024.0;

/// How often a running index redraws the history home at most (see [`HistoryState::bump_soon`]).
const INDEX_REDRAW_MS: f64 = 300.0;

/// Units this big are indexed after the others.
const BIG_UNIT_BYTES: f64 = 16.0 * 1024.0 * 1024.0;
/// How many of the newest units are read smallest first, so the first rows show soon.
const LEAD_UNITS: usize = 8;

/// Bytes of a file's start read to find the session a loose agent file names.
const HINT_BYTES: f64 = 64.0 * 1024.0;

impl HistoryState {
    pub fn new(loading: LoadState) -> HistoryState {
        HistoryState {
            loading,
            units: StoredValue::new_local(Vec::new()),
            rows: StoredValue::new(Vec::new()),
            problems: StoredValue::new(Vec::new()),
            changed: RwSignal::new(0),
            active: RwSignal::new(false),
            showing: RwSignal::new(false),
            pass: RwSignal::new(None),
            pool: StoredValue::new_local(None),
            view: RwSignal::new(ListView::default()),
            scroll_top: StoredValue::new(0.0),
            active_row: RwSignal::new(None),
            opened: RwSignal::new(None),
            opened_unit: StoredValue::new(None),
            pushed: StoredValue::new(false),
            search_pool: StoredValue::new_local(None),
            prepared_search: StoredValue::new_local(None),
            search: StoredValue::new(SearchResults::default()),
            search_pass: RwSignal::new(None),
            search_changed: RwSignal::new(0),
            redraw_due: StoredValue::new(false),
            last_redraw_ms: StoredValue::new(0.0),
            rows_drawn: StoredValue::new(false),
            search_redraw_due: StoredValue::new(false),
            walk: StoredValue::new_local(Walk::default()),
            source: StoredValue::new_local(None),
            answered: StoredValue::new(HashMap::new()),
            remembered: RwSignal::new(Vec::new()),
            remembered_handles: StoredValue::new_local(Vec::new()),
            folder_error: RwSignal::new(None),
            follow: StoredValue::new_local(None),
            following: RwSignal::new(false),
            refresh_pool: StoredValue::new_local(None),
            read_next: StoredValue::new(Vec::new()),
            pending_open: StoredValue::new(None),
            replacing: StoredValue::new(Default::default()),
            prewarmed: StoredValue::new_local(None),
        }
    }

    /// Every row, in order of arrival.
    pub fn rows(&self) -> Vec<Arc<HistoryRow>> {
        self.rows.get_value()
    }

    pub fn row(&self, index: usize) -> Option<Arc<HistoryRow>> {
        self.rows.with_value(|rows| rows.get(index).cloned())
    }

    pub fn problems(&self) -> Vec<FileProblem> {
        self.problems.get_value()
    }

    pub fn unit_key(&self, unit: u32) -> String {
        self.units.with_value(|units| units.get(unit as usize).map(|u| u.key.clone()).unwrap_or_default())
    }

    /// Files dropped or picked: a folder of more than one session is indexed as a history;
    /// anything else (files, a folder of one session) opens in the viewer at once, as before.
    pub fn open_picked(&self, picked: crate::files::Picked) {
        self.begin_walk();
        self.source.set_value(None);
        if !picked.from_folder {
            self.loading.open(picked);
            return;
        }
        let state = *self;
        leptos::task::spawn_local(async move {
            let units = HistoryState::units_of(&picked.files).await;
            if units.len() > 1 {
                state.index(units, problems_of(picked.skipped_by_name, picked.unreadable), false);
            } else {
                state.close();
                state.loading.open(picked);
            }
        });
    }

    /// A drop starts being walked: answers its generation, for [`Self::add_walked`] and
    /// [`Self::end_walk`]. Whatever an earlier walk still sends is let go.
    pub fn begin_walk(&self) -> u64 {
        self.walk.update_value(|walk| {
            *walk = Walk { generation: walk.generation + 1, ..Walk::default() };
        });
        self.walk.with_value(|walk| walk.generation)
    }

    /// A drop starts being walked, and index workers start loading: if it is a history, they
    /// are ready when its first project is walked.
    pub fn begin_drop_walk(&self) -> u64 {
        self.source.set_value(None);
        self.begin_walk_with_workers(true)
    }

    /// A walk begins; with `warm`, index workers start loading at once (or the ones
    /// [`Self::prewarm`] started are taken).
    fn begin_walk_with_workers(&self, warm: bool) -> u64 {
        let generation = self.begin_walk();
        let prewarmed = self.prewarmed.try_update_value(Option::take).flatten();
        if warm {
            let warm = prewarmed.or_else(|| self.index_pool(Vec::new(), Vec::new(), true).ok());
            self.walk.update_value(|walk| walk.warm_pool = warm);
        }
        generation
    }

    /// Index workers start loading now, for a folder about to be walked: fetching and compiling
    /// their code takes longer than remembering the folder and reading its cached index.
    pub fn prewarm(&self) {
        if self.prewarmed.with_value(Option::is_none) {
            let pool = self.index_pool(Vec::new(), Vec::new(), true).ok();
            self.prewarmed.set_value(pool);
        }
    }

    /// Walks a drop into the history (or, for files or one session, into the viewer).
    pub async fn walk_dropped(&self, dropped: crate::files::Dropped) {
        let started = now_ms();
        let generation = self.begin_drop_walk();
        let state = *self;
        let mut on_batch =
            move |batch: crate::files::Picked| -> std::pin::Pin<Box<dyn std::future::Future<Output = ()>>> {
                Box::pin(async move { state.add_walked(generation, batch).await })
            };
        let found = crate::files::walk_drop(dropped, &mut on_batch).await;
        let message = format!("sessionscope drop: {found} files walked in {:.0} ms", now_ms() - started);
        web_sys::console::debug_1(&message.into());
        self.end_walk(generation);
    }

    fn is_current_walk(&self, generation: u64) -> bool {
        self.walk.with_value(|walk| walk.generation == generation)
    }

    /// A batch of a drop's files, walked: once the drop holds more than one session they are
    /// indexed, batch by batch as they come.
    pub async fn add_walked(&self, generation: u64, batch: crate::files::Picked) {
        if !self.is_current_walk(generation) {
            return;
        }
        let started = now_ms();
        let units = HistoryState::units_of(&batch.files).await;
        web_sys::console::debug_1(
            &format!(
                "sessionscope history: {} walked files grouped into {} units in {:.0} ms",
                batch.files.len(),
                units.len(),
                now_ms() - started
            )
            .into(),
        );
        if !self.is_current_walk(generation) {
            return;
        }
        if self.walk.with_value(|walk| walk.reconciling) {
            self.reconcile(units, problems_of(batch.skipped_by_name, batch.unreadable));
            return;
        }
        if self.walk.with_value(|walk| walk.indexing) {
            self.add_units(units, problems_of(batch.skipped_by_name, batch.unreadable));
            return;
        }
        let start = self.walk.try_update_value(|walk| {
            walk.held.from_folder |= batch.from_folder;
            walk.held.skipped_by_name.extend(batch.skipped_by_name);
            walk.held.unreadable.extend(batch.unreadable);
            walk.held.files.extend(batch.files);
            walk.held_units.extend(units);
            let start = walk.held.from_folder && walk.held_units.len() > 1;
            if start {
                walk.indexing = true;
                walk.held.files.clear();
                let problems = problems_of(
                    std::mem::take(&mut walk.held.skipped_by_name),
                    std::mem::take(&mut walk.held.unreadable),
                );
                Some((std::mem::take(&mut walk.held_units), problems))
            } else {
                None
            }
        });
        if let Some(Some((units, skipped))) = start {
            self.index(units, skipped, true);
        }
    }

    /// The drop is walked: the index finishes with the units it has, or, if the drop held one
    /// session or loose files, they open in the viewer as before.
    pub fn end_walk(&self, generation: u64) {
        if !self.is_current_walk(generation) {
            return;
        }
        if self.walk.with_value(|walk| walk.reconciling) {
            self.walk.update_value(|walk| *walk = Walk { generation: walk.generation + 1, ..Walk::default() });
            self.end_reconcile();
            return;
        }
        let walk = self.walk.try_update_value(|walk| std::mem::take(&mut walk.held)).unwrap_or_default();
        let indexing = self.walk.with_value(|walk| walk.indexing);
        self.walk.update_value(|walk| {
            walk.generation += 1;
            walk.warm_pool = None;
        });
        if indexing {
            self.pass.update(|pass| {
                if let Some(pass) = pass {
                    pass.walking = false;
                }
            });
            self.pool.with_value(|pool| {
                if let Some(pool) = pool {
                    pool.close();
                }
            });
        } else {
            self.close();
            self.loading.open(walk);
        }
    }

    /// The session units of these files.
    pub async fn units_of(files: &[PickedFile]) -> Vec<HistoryUnit> {
        let loose: Vec<usize> = (0..files.len()).filter(|&i| needs_hint(&files[i].path)).collect();
        let firsts =
            futures::future::join_all(loose.iter().map(|&i| crate::files::first_bytes(&files[i].file, HINT_BYTES)))
                .await;
        let mut hints = vec![None; files.len()];
        for (i, bytes) in loose.into_iter().zip(firsts) {
            hints[i] = bytes.and_then(|bytes| unit_hint(&files[i].path, &bytes));
        }
        let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
        group_into_units(&paths, &hints)
            .into_iter()
            .map(|unit| {
                let files: Vec<PickedFile> = unit.files.iter().map(|&i| files[i].clone()).collect();
                let bytes = files.iter().map(PickedFile::size).sum();
                HistoryUnit { key: unit.key, folder: unit.folder, files, bytes, trigrams: None }
            })
            .collect()
    }

    /// Starts indexing a history: the newest units first, so the latest sessions show at once,
    /// but the biggest last, so none holds the first rows back.
    ///
    /// With `more_coming`, [`Self::add_units`] adds units as a walk finds them, until
    /// [`Self::end_walk`].
    pub fn index(&self, units: Vec<HistoryUnit>, problems: Vec<FileProblem>, more_coming: bool) {
        web_sys::console::debug_1(&format!("sessionscope history: {} units, indexing starts", units.len()).into());
        let order = index_order(&units, 0);
        let sizes: Vec<f64> = units.iter().map(|u| u.bytes).collect();
        let pass = Pass { walking: more_coming, ..Pass::new(&units, &order) };
        self.begin_history(units, Vec::new(), HashMap::new(), problems, pass);
        let order = self.answer_from_cache(order);
        self.bump();
        // A drop's workers were started when it began to be walked.
        let warm = self.walk.try_update_value(|walk| walk.warm_pool.take()).flatten().filter(|_| more_coming);
        let started = match warm {
            Some(pool) => {
                pool.push(order, sizes);
                Ok(pool)
            }
            None => self.index_pool(order, sizes, more_coming),
        };
        match started {
            Ok(pool) => self.pool.set_value(Some(pool)),
            Err(message) => {
                self.problems.update_value(|p| p.push(FileProblem { path: String::new(), reason: message }));
                self.end_pass(false);
            }
        }
    }

    /// A history takes the screen: its units, rows and problems so far, and its pass. Whatever
    /// ran for the one before stops.
    fn begin_history(
        &self,
        units: Vec<HistoryUnit>,
        rows: Vec<Arc<HistoryRow>>,
        answered: HashMap<u32, Vec<FileProblem>>,
        problems: Vec<FileProblem>,
        pass: Pass,
    ) {
        self.stop_search();
        self.prepared_search.set_value(None);
        self.pool.set_value(None);
        self.stop_following();
        self.refresh_pool.set_value(None);
        self.read_next.set_value(Vec::new());
        self.pending_open.set_value(None);
        self.replacing.set_value(Default::default());
        self.pass.set(Some(pass));
        self.units.set_value(units);
        self.rows.set_value(rows);
        self.problems.set_value(problems);
        self.answered.set_value(answered);
        self.view.set(ListView::default());
        self.scroll_top.set_value(0.0);
        self.active_row.set(None);
        self.opened.set(None);
        self.opened_unit.set_value(None);
        self.active.set(true);
        self.showing.set(true);
        self.loading.close_for_history();
        if let Some(link) = crate::deeplink::read_hash()
            && link.project.is_some()
        {
            self.view.update(|v| v.project = link.project.clone());
        }
    }

    /// A remembered folder with a cached index: its sessions are listed from the cache at once,
    /// before its files are found; the walk that follows ([`Self::reconcile`]) checks each unit
    /// against the cache, reads the changed and new ones, and drops those that are gone.
    ///
    /// A unit's trigram set saved with the last whole index comes back with it: it is used once
    /// the walk finds the unit's files unchanged.
    fn show_cached(&self, cache: &IndexCache, trigrams: Vec<CachedTrigrams>) {
        let mut trigrams: HashMap<String, CachedTrigrams> =
            trigrams.into_iter().filter_map(|cached| Some((cached.files.first()?.path.clone(), cached))).collect();
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
                HistoryUnit {
                    key: cached.key.clone(),
                    folder: cached.folder.clone(),
                    files: Vec::new(),
                    bytes: 0.0,
                    trigrams,
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
        self.walk.update_value(|walk| walk.reconciling = true);
        self.bump();
        self.open_linked_session();
    }

    /// Units a walk found in a history listed from its cache: an unchanged one gets its files, a
    /// changed or new one is read.
    fn reconcile(&self, walked: Vec<HistoryUnit>, problems: Vec<FileProblem>) {
        let mut to_read = Vec::new();
        let mut found = Vec::new();
        self.source.with_value(|source| {
            let cache = source.as_ref().and_then(|s| s.cache.as_ref());
            self.units.update_value(|units| {
                let by_key: HashMap<&str, usize> = units
                    .iter()
                    .enumerate()
                    .filter(|(_, u)| u.files.is_empty())
                    .map(|(i, u)| (u.key.as_str(), i))
                    .collect();
                let mut placed = Vec::new();
                let mut added = Vec::new();
                for unit in walked {
                    let unchanged = cache.is_some_and(|c| c.lookup(&stamps_of(&unit.files)).is_some());
                    match by_key.get(unit.key.as_str()) {
                        Some(&at) => placed.push((at, unchanged, unit)),
                        None => added.push(unit),
                    }
                }
                self.pass.update(|pass| {
                    let Some(pass) = pass else { return };
                    for (at, unchanged, unit) in placed {
                        pass.files += unit.files.len();
                        if unchanged {
                            pass.files_done += unit.files.len();
                            pass.from_cache += 1;
                        } else {
                            pass.bytes += unit.bytes;
                            pass.units_done -= 1;
                            to_read.push(at as u32);
                        }
                        found.push(at);
                        // An unchanged unit keeps the trigram set the cache gave it.
                        let trigrams = if unchanged { units[at].trigrams.take() } else { None };
                        units[at] = HistoryUnit { trigrams, ..unit };
                    }
                    for unit in added {
                        pass.units += 1;
                        pass.files += unit.files.len();
                        pass.bytes += unit.bytes;
                        to_read.push(units.len() as u32);
                        units.push(unit);
                    }
                });
            });
        });
        self.answered.update_value(|a| {
            for unit in &to_read {
                a.remove(unit);
            }
        });
        self.replacing.update_value(|r| r.extend(to_read.iter().copied()));
        self.problems.update_value(|p| p.extend(problems));
        if !to_read.is_empty() {
            self.read_in_pass(to_read);
        }
        if let Some((index, uuid)) = self.pending_open.get_value()
            && self.row(index).is_some_and(|r| found.contains(&(r.unit as usize)))
        {
            self.pending_open.set_value(None);
            self.open(index, uuid);
        }
        self.bump_soon();
    }

    /// Queues units to be read in the running pass, starting its pool if it has none.
    fn read_in_pass(&self, order: Vec<u32>) {
        let sizes = self.unit_sizes();
        let queued = self.pool.with_value(|pool| {
            pool.as_ref().map(|pool| {
                pool.set_sizes(sizes.clone());
                pool.push(order.clone(), Vec::new());
            })
        });
        if queued.is_none() {
            let walking = self.pass.get_untracked().is_some_and(|p| p.walking);
            match self.index_pool(order, sizes, walking) {
                Ok(pool) => self.pool.set_value(Some(pool)),
                Err(message) => {
                    self.problems.update_value(|p| p.push(FileProblem { path: String::new(), reason: message }))
                }
            }
        }
    }

    /// The walk of a history listed from its cache is over: units it did not find are gone.
    fn end_reconcile(&self) {
        let gone: Vec<u32> = self.units.with_value(|units| {
            units.iter().enumerate().filter(|(_, u)| u.files.is_empty()).map(|(i, _)| i as u32).collect()
        });
        for unit in &gone {
            self.replace_rows(*unit, Vec::new());
            self.answered.update_value(|a| {
                a.remove(unit);
            });
        }
        self.pass.update(|pass| {
            if let Some(pass) = pass {
                pass.walking = false;
                pass.units -= gone.len().min(pass.units);
                pass.units_done -= gone.len().min(pass.units_done);
            }
        });
        let closed = self.pool.with_value(|pool| pool.as_ref().map(Pool::close));
        if closed.is_none() {
            self.end_pass(false);
        }
        self.bump();
    }

    /// A pool of workers that index units of this history.
    fn index_pool(&self, order: Vec<u32>, sizes: Vec<f64>, more_coming: bool) -> Result<Pool, String> {
        let state = *self;
        let make = move |unit: u32| {
            state.units.with_value(|units| {
                let unit_files = units.get(unit as usize).ok_or_else(|| format!("no unit {unit}"))?;
                Envelope::new(ToWorker::IndexUnit {
                    unit,
                    folder: unit_files.folder.clone(),
                    paths: unit_files.files.iter().map(|f| f.path.clone()).collect(),
                })
                .with_files(unit_files.files.iter().map(|f| f.file.clone()).collect())
                .encode()
            })
        };
        let on_event = move |event: PoolEvent| state.on_index_event(event);
        Pool::start(order, sizes, crate::pool::worker_count(), more_coming, make, on_event)
    }

    /// More units of the history being indexed, as the walk of a drop finds them.
    fn add_units(&self, units: Vec<HistoryUnit>, problems: Vec<FileProblem>) {
        if self.pool.with_value(Option::is_none) {
            return;
        }
        let first = self.units.with_value(Vec::len) as u32;
        let order = index_order(&units, first);
        let sizes: Vec<f64> = units.iter().map(|u| u.bytes).collect();
        let added = Pass::new(&units, &(0..units.len() as u32).collect::<Vec<_>>());
        self.pass.update(|pass| {
            if let Some(pass) = pass {
                pass.units += added.units;
                pass.files += added.files;
                pass.bytes += added.bytes;
            }
        });
        self.problems.update_value(|p| p.extend(problems));
        self.units.update_value(|all| all.extend(units));
        let order = self.answer_from_cache(order);
        self.pool.with_value(|pool| {
            if let Some(pool) = pool {
                pool.push(order, sizes);
            }
        });
        self.bump_soon();
    }

    /// Answers the units of `order` whose files the cached index of a remembered folder holds
    /// unchanged; answers the others, to be read.
    fn answer_from_cache(&self, order: Vec<u32>) -> Vec<u32> {
        let mut to_read = Vec::with_capacity(order.len());
        let mut found = Vec::new();
        self.source.with_value(|source| {
            let Some(cache) = source.as_ref().and_then(|s| s.cache.as_ref()) else {
                to_read = order.clone();
                return;
            };
            self.units.with_value(|units| {
                for &u in &order {
                    let Some(unit) = units.get(u as usize) else { continue };
                    match cache.lookup(&stamps_of(&unit.files)) {
                        Some(cached) => found.push((u, unit.files.len(), unit.bytes, cached.clone())),
                        None => to_read.push(u),
                    }
                }
            });
        });
        if found.is_empty() {
            return to_read;
        }
        self.pass.update(|pass| {
            if let Some(pass) = pass {
                for (_, files, bytes, _) in &found {
                    pass.units_done += 1;
                    pass.from_cache += 1;
                    pass.files_done += files;
                    // Bytes not read are not counted: the rate is that of the reading.
                    pass.bytes -= bytes;
                }
            }
        });
        for (unit, _, _, cached) in found {
            self.rows.update_value(|rows| {
                rows.extend(cached.rows.into_iter().map(|row| Arc::new(HistoryRow { unit, row })))
            });
            self.problems.update_value(|p| p.extend(cached.problems.iter().cloned()));
            self.answered.update_value(|a| {
                a.insert(unit, cached.problems);
            });
        }
        self.bump_soon();
        to_read
    }

    /// The bytes of each unit's files, by unit (what a pool is given to know its big units).
    fn unit_sizes(&self) -> Vec<f64> {
        self.units.with_value(|units| units.iter().map(|u| u.bytes).collect())
    }

    /// A unit's trigrams, as its index answered them.
    fn keep_trigrams(&self, unit: u32, trigrams: Option<UnitTrigrams>) {
        self.units.update_value(|units| {
            if let Some(at) = units.get_mut(unit as usize) {
                at.trigrams = trigrams;
            }
        });
    }

    fn on_index_event(&self, event: PoolEvent) {
        match event {
            PoolEvent::Answer { unit, reply, buffers } => {
                let (files, bytes) =
                    self.units.with_value(|u| u.get(unit as usize).map_or((0, 0.0), |u| (u.files.len(), u.bytes)));
                match reply {
                    FromWorker::Indexed { index, read, .. } => {
                        self.keep_trigrams(unit, UnitTrigrams::received(read, &buffers));
                        // A unit listed from the cache and changed since has rows to replace.
                        if self.replacing.try_update_value(|r| r.remove(&unit)).unwrap_or(false) {
                            self.replace_rows(unit, index.rows);
                        } else {
                            self.rows.update_value(|rows| {
                                rows.extend(index.rows.into_iter().map(|row| Arc::new(HistoryRow { unit, row })))
                            });
                        }
                        self.answered.update_value(|a| {
                            a.insert(unit, index.problems.clone());
                        });
                        self.problems.update_value(|p| p.extend(index.problems));
                    }
                    FromWorker::Error { message } => {
                        let key = self.unit_key(unit);
                        self.problems.update_value(|p| p.push(FileProblem { path: key, reason: message }));
                    }
                    _ => {}
                }
                // Counted now, drawn with the next redraw: a redraw per answer kept the page busy
                // on the cores the workers read with.
                self.pass.update_untracked(|pass| {
                    if let Some(pass) = pass {
                        pass.units_done += 1;
                        pass.files_done += files;
                        pass.bytes_done += bytes;
                    }
                });
                self.open_linked_session();
                self.bump_soon();
            }
            PoolEvent::Finished => self.end_pass(false),
        }
    }

    /// The index ended (finished or cancelled): its workers go, what it found stays.
    fn end_pass(&self, cancelled: bool) {
        self.pass.update(|pass| {
            if let Some(pass) = pass
                && pass.running()
            {
                pass.ended_ms = Some(now_ms());
                pass.cancelled = cancelled;
            }
        });
        let state = *self;
        // The pool may be running this very callback: it goes afterwards.
        leptos::task::spawn_local(async move { state.pool.set_value(None) });
        self.save_cache();
        if !cancelled {
            self.save_trigrams();
            self.follow();
        }
        // Once the pool has gone.
        leptos::task::spawn_local(async move { state.prepare_search() });
        self.bump();
        web_sys::console::debug_1(
            &format!(
                "sessionscope history: indexed {} sessions in {:.0} ms",
                self.rows.with_value(Vec::len),
                self.pass.get_untracked().map_or(0.0, |p| p.seconds() * 1000.0)
            )
            .into(),
        );
    }

    /// Stops the index, and the walk of its drop; the sessions indexed so far stay.
    pub fn cancel(&self) {
        self.walk.update_value(|walk| walk.generation += 1);
        self.pass.update(|pass| {
            if let Some(pass) = pass {
                pass.walking = false;
            }
        });
        self.pool.set_value(None);
        self.end_pass(true);
    }

    /// Redraws the history home and its progress now.
    fn bump(&self) {
        self.last_redraw_ms.set_value(now_ms());
        self.rows_drawn.set_value(self.rows.with_value(|rows| !rows.is_empty()));
        self.pass.notify();
        self.changed.update(|n| *n += 1);
    }

    /// The id of the remembered folder the history was read from, if it was one.
    fn remembered_id(&self) -> Option<String> {
        self.source.with_value(|s| s.as_ref().map(|s| s.folder.id.clone())).filter(|id| !id.is_empty())
    }

    /// Keeps the units' trigram sets for a remembered folder (after a whole pass only: they are
    /// bigger than the index, and a set whose files changed since is not used).
    fn save_trigrams(&self) {
        let Some(id) = self.remembered_id() else { return };
        let bytes = self.units.with_value(|units| {
            encode_trigrams(units.iter().filter_map(|u| u.trigrams.as_ref()).map(|t| (t.read.as_slice(), &t.set)))
        });
        leptos::task::spawn_local(async move {
            let started = now_ms();
            let saved = crate::folders::save_trigrams(&id, &bytes).await;
            web_sys::console::debug_1(
                &format!(
                    "sessionscope history: trigram sets saved, {} KB in {:.0} ms{}",
                    bytes.len() / 1024,
                    now_ms() - started,
                    saved.err().map(|e| format!(": {e}")).unwrap_or_default()
                )
                .into(),
            );
        });
    }

    /// Keeps the index of a remembered folder for its next visit: every unit answered in this
    /// pass, with the stamps of the files it was read from.
    fn save_cache(&self) {
        let Some(id) = self.remembered_id() else { return };
        let units: Vec<CachedUnit> = self.units.with_value(|units| {
            self.rows.with_value(|rows| {
                self.answered.with_value(|answered| {
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
        self.source.update_value(|source| {
            if let Some(source) = source {
                source.cache = Some(cache);
            }
        });
        leptos::task::spawn_local(async move {
            let started = now_ms();
            match crate::folders::save_cache(&id, &bytes).await {
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
        if !crate::folders::can_remember() {
            return;
        }
        let state = *self;
        leptos::task::spawn_local(async move {
            let folders = crate::folders::remembered().await;
            state.remembered.set(
                folders
                    .iter()
                    .map(|f| RememberedFolder { id: f.id.clone(), name: f.name.clone(), opened_ms: f.opened_ms })
                    .collect(),
            );
            state.remembered_handles.set_value(folders);
        });
    }

    /// The remembered folder the history on screen comes from.
    pub fn source_folder(&self) -> Option<RememberedFolder> {
        self.source.with_value(|s| {
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
        crate::files::prepare_worker();
        leptos::task::spawn_local(async move {
            match crate::folders::pick().await {
                Ok(Some(handle)) => state.open_handle(handle, None).await,
                Ok(None) => {}
                Err(reason) => state.folder_error.set(Some(format!("The folder could not be opened: {reason}."))),
            }
        });
    }

    /// Remembers a folder handle and opens it: picked, or dropped in a browser that gives
    /// handles (then `dropped` holds the drop's entries, which are walked instead).
    pub async fn open_handle(
        &self,
        handle: web_sys::FileSystemDirectoryHandle,
        dropped: Option<crate::files::Dropped>,
    ) {
        self.prewarm();
        let started = now_ms();
        let remembered = crate::folders::remember(handle.clone()).await;
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
                let folder =
                    Remembered { id: String::new(), name: handle.name(), handle, opened_ms: js_sys::Date::now() };
                self.open_remembered(folder, dropped).await
            }
        }
    }

    /// Opens a remembered folder again: the browser asks the user for permission to read it.
    pub fn reopen(&self, id: &str) {
        let Some(folder) = self.remembered_handles.with_value(|f| f.iter().find(|f| f.id == id).cloned()) else {
            return;
        };
        let state = *self;
        crate::files::prepare_worker();
        leptos::task::spawn_local(async move {
            let permission = crate::folders::permission(&folder.handle, true).await;
            if permission != "granted" {
                state.folder_error.set(Some(format!(
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
        leptos::task::spawn_local(async move {
            if let Err(reason) = crate::folders::forget(&id).await {
                state.folder_error.set(Some(format!("The folder could not be forgotten: {reason}.")));
            }
            let shown = state.source.with_value(|s| s.as_ref().is_some_and(|s| s.folder.id == id));
            if shown {
                state.stop_following();
                state.source.set_value(None);
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
    async fn open_remembered(&self, folder: Remembered, dropped: Option<crate::files::Dropped>) {
        self.folder_error.set(None);
        let started = now_ms();
        // A folder just dropped is there and readable: its entries are in hand. One picked or
        // reopened may have gone away or had its permission taken back: it is looked at while
        // its cached index is read.
        let cache = async { if folder.id.is_empty() { None } else { crate::folders::load_cache(&folder.id).await } };
        let trigrams =
            async { if folder.id.is_empty() { Vec::new() } else { crate::folders::load_trigrams(&folder.id).await } };
        let check = async {
            match dropped {
                Some(_) => Ok(()),
                None => crate::folders::check(&folder.handle).await,
            }
        };
        let (cache, trigrams, checked) = futures::join!(cache, trigrams, check);
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
            self.prewarmed.set_value(None);
            self.folder_error.set(Some(format!("{} could not be read: {reason}.", folder.name)));
            return;
        }
        // Without a cache every unit is read: workers start loading while the folder is walked.
        let warm = cache.is_none();
        self.source.set_value(Some(Source { folder: folder.clone(), cache }));
        let generation = self.begin_walk_with_workers(warm);
        self.source.with_value(|source| {
            if let Some(cache) = source.as_ref().and_then(|s| s.cache.as_ref()) {
                self.show_cached(cache, trigrams);
            }
        });
        let state = *self;
        let mut on_batch =
            move |batch: crate::files::Picked| -> std::pin::Pin<Box<dyn std::future::Future<Output = ()>>> {
                Box::pin(async move { state.add_walked(generation, batch).await })
            };
        // A dropped folder is walked through its handle too: asking for the files of handles
        // took 1.5–1.8 s for the 10,185 files of a 4 GB history, through its directory entries
        // 4.2–4.5 s. Its entries are the way left if the handle cannot be listed.
        let walked = match (crate::folders::walk(&folder.handle, &mut on_batch).await, dropped) {
            (Err(_), Some(dropped)) => Ok(crate::files::walk_drop(dropped, &mut on_batch).await),
            (walked, _) => walked,
        };
        match walked {
            Ok(_) => self.end_walk(generation),
            Err(reason) => {
                self.begin_walk();
                self.folder_error.set(Some(format!("{} could not be read: {reason}.", folder.name)));
            }
        }
    }

    /// Redraws after the current burst of answers, and then at most every
    /// [`INDEX_REDRAW_MS`]: each redraw sorts and totals every session listed, and lays out and
    /// paints the page, on the cores the index's workers and the browser's reading need. Redrawn
    /// 50 ms after every burst, the 4.4 GB benchmark history indexed in 16.3–16.9 s on 2 cores;
    /// every 300 ms, in 14.8–15.0 s (the page's main thread busy 4.8 s instead of 10.3 s).
    fn bump_soon(&self) {
        let state = *self;
        let since = now_ms() - self.last_redraw_ms.get_value();
        // Until sessions are on the page, every burst is drawn 50 ms after it: so a redraw due
        // when the first sessions are found is never more than 50 ms away.
        let wait =
            if !self.rows_drawn.get_value() || since >= INDEX_REDRAW_MS { 50.0 } else { INDEX_REDRAW_MS - since };
        once_after(self.redraw_due, wait as i32, move || state.bump());
    }

    /// Redraws the search's results at most every 250 ms: a common word answers
    /// hits from every unit, and a redraw per answer would keep the page (which hands the
    /// workers their next units) busy.
    fn redraw_search_soon(&self) {
        let state = *self;
        once_after(self.search_redraw_due, 250, move || {
            state.search_pass.notify();
            state.search_changed.update(|n| *n += 1);
        });
    }

    /// A link that names a session of this history opens it once its row is in.
    fn open_linked_session(&self) {
        if self.opened.get_untracked().is_some() || !self.showing.get_untracked() {
            return;
        }
        let Some(link) = crate::deeplink::read_hash() else { return };
        let Some(session) = link.session else { return };
        let found = self.rows.with_value(|rows| rows.iter().position(|r| r.row.session_id == session));
        if let Some(index) = found {
            self.open_at(index, link.message, false);
        }
    }

    /// The browser's Back or Forward moved to another entry of its history: Back from a session
    /// opened from the history home shows the home again, Forward opens the session again.
    pub fn on_history_entry(&self) {
        if !self.active.get_untracked() {
            return;
        }
        let link = crate::deeplink::read_hash();
        let names_session = link.as_ref().is_some_and(|l| l.session.is_some());
        let project = link.and_then(|l| l.project);
        if self.showing.get_untracked() {
            if names_session {
                self.open_linked_session();
            } else {
                self.show_project(project);
            }
        } else if !names_session {
            self.pushed.set_value(false);
            self.show_project(project);
            self.show_home();
        }
    }

    /// Lists the sessions of `project` (every project's for `None`) from the top. Chosen with a
    /// click, it is a new entry of the browser's history, so Back returns to the project before;
    /// moving through the projects with the arrow keys replaces the entry instead.
    pub fn choose_project(&self, project: Option<String>, new_entry: bool) {
        if self.view.with_untracked(|v| v.project == project) {
            return;
        }
        let fragment =
            project.as_deref().map(|p| crate::deeplink::format_in_project(p, None, None)).unwrap_or_default();
        if new_entry {
            crate::deeplink::push_hash(&fragment);
        } else {
            crate::deeplink::write_hash(&fragment);
        }
        self.show_project(project);
    }

    /// Shows `project`'s sessions, as the address bar already says.
    fn show_project(&self, project: Option<String>) {
        if self.view.with_untracked(|v| v.project != project) {
            self.view.update(|v| v.project = project);
            self.scroll_top.set_value(0.0);
        }
    }

    /// Opens a session of the history in the viewer (at message `uuid`, if given): only its
    /// unit's files are read. Opened from the history home, it is a new entry of the browser's
    /// history, so Back returns to the home.
    pub fn open(&self, index: usize, uuid: Option<String>) {
        let from_home = self.showing.get_untracked();
        self.open_at(index, uuid, from_home);
    }

    fn open_at(&self, index: usize, uuid: Option<String>, push: bool) {
        let Some(row) = self.row(index) else { return };
        let files = self.units.with_value(|u| u.get(row.unit as usize).map(|u| u.files.clone()).unwrap_or_default());
        if files.is_empty() && self.walk.with_value(|walk| walk.reconciling) {
            // Listed from the cache, its files not found yet: it opens once they are.
            self.pending_open.set_value(Some((index, uuid)));
            return;
        }
        let fragment = crate::deeplink::format_in_project(&row.row.project, Some(&row.row.session_id), uuid.as_deref());
        if push {
            crate::deeplink::push_hash(&fragment);
            self.pushed.set_value(true);
        } else {
            crate::deeplink::write_hash(&fragment);
        }
        self.opened.set(Some(index));
        self.opened_unit.set_value(Some(row.unit));
        self.active_row.set(Some(index));
        self.showing.set(false);
        let root = self.source.with_value(|s| s.as_ref().map(|s| s.folder.handle.clone()));
        let Some(root) = root else {
            self.loading.open_from_history(files);
            return;
        };
        // Files of a remembered folder are read as they are now, not as they were indexed. A
        // session written lately is likely still running: it is made ready to grow.
        let running = row.row.end_ms.is_some_and(|end| js_sys::Date::now() - (end as f64) < follow::HOT_FOR_MS);
        let state = *self;
        leptos::task::spawn_local(async move {
            // The unit keeps the files its row was read from: the cache pairs them.
            let files = crate::folders::fresh_files(Some(&root), files).await;
            if state.opened.get_untracked() == Some(index) {
                state.loading.open_from_history_followed(files, running);
            }
        });
    }

    /// The bytes of every file of the history.
    pub fn total_bytes(&self) -> f64 {
        self.units.with_value(|units| units.iter().map(|u| u.bytes).sum())
    }

    /// Opens every session of the history together in the viewer, as a drop of all its files
    /// would (for a history small enough: [`OPEN_ALL_BYTES`]).
    pub fn open_all(&self) {
        let files: Vec<PickedFile> =
            self.units.with_value(|units| units.iter().flat_map(|u| u.files.clone()).collect());
        crate::deeplink::write_hash("");
        self.opened.set(None);
        self.opened_unit.set_value(None);
        self.showing.set(false);
        self.loading.open_from_history(files);
    }

    /// Back to the history home, as it was left. The open session is let go.
    pub fn back(&self) {
        if !self.active.get_untracked() {
            return;
        }
        // The session was a new entry of the browser's history: going back in it keeps Back and
        // Forward in step with the app (`on_history_entry` then shows the home).
        if self.pushed.try_update_value(std::mem::take).unwrap_or(false)
            && let Some(history) = web_sys::window().and_then(|w| w.history().ok())
            && history.back().is_ok()
        {
            return;
        }
        self.show_home();
    }

    /// Shows the history home in place of the open session.
    fn show_home(&self) {
        self.loading.close_for_history();
        self.opened.set(None);
        self.opened_unit.set_value(None);
        self.showing.set(true);
        let project = self.view.with_untracked(|v| v.project.clone());
        crate::deeplink::write_hash(
            &project.map(|p| crate::deeplink::format_in_project(&p, None, None)).unwrap_or_default(),
        );
    }

    /// Leaves the history (something else was opened).
    pub fn close(&self) {
        self.walk.update_value(|walk| {
            walk.generation += 1;
            walk.warm_pool = None;
        });
        self.stop_search();
        self.pool.set_value(None);
        self.stop_following();
        self.refresh_pool.set_value(None);
        self.read_next.set_value(Vec::new());
        self.source.set_value(None);
        self.active.set(false);
        self.showing.set(false);
        self.pushed.set_value(false);
        self.pass.set(None);
        self.units.set_value(Vec::new());
        self.rows.set_value(Vec::new());
        self.problems.set_value(Vec::new());
        self.bump();
    }

    /// Searches every unit of the history for `query`, a regular expression if `regex`.
    pub fn run_search(&self, query: String, regex: bool) {
        self.stop_search();
        // A regular expression is checked by the workers (the page has none): one that is not
        // valid stops the search with the reason at the first answer.
        let raw = RawText::of(&query, regex);
        let (order, ruled_out) = self.units.with_value(|units| {
            let mut seen = std::collections::HashSet::new();
            // The units of the listed rows first, in the list's order, then the rest.
            let mut order: Vec<u32> = self.rows.with_value(|rows| rows.iter().map(|r| r.unit).collect());
            order.extend(0..units.len() as u32);
            order.retain(|u| seen.insert(*u));
            // Units whose trigrams rule the query out are not read.
            order
                .into_iter()
                .partition::<Vec<u32>, _>(|&u| units.get(u as usize).is_none_or(|u| u.may_hold(raw.as_ref())))
        });
        let sizes = self.unit_sizes();
        self.units.with_value(|units| {
            let mut pass = Pass::new(units, &order);
            let skipped = Pass::new(units, &ruled_out);
            pass.units += skipped.units;
            pass.units_done += skipped.units;
            pass.files += skipped.files;
            pass.files_done += skipped.files;
            self.search_pass.set(Some(pass));
        });
        let ruled_out: std::collections::HashSet<u32> = ruled_out.into_iter().collect();
        let ruled_out = self.rows.with_value(|rows| rows.iter().filter(|r| ruled_out.contains(&r.unit)).count());
        self.search.set_value(SearchResults { query: query.clone(), regex, ruled_out, ..SearchResults::default() });
        self.search_changed.update(|n| *n += 1);
        let started = match self.prepared_search.try_update_value(Option::take).flatten() {
            Some(pool) => {
                pool.set_sizes(sizes);
                pool.push(order, Vec::new());
                pool.close();
                Ok(pool)
            }
            None => self.search_pool_of(order, sizes, false),
        };
        match started {
            Ok(pool) => self.search_pool.set_value(Some(pool)),
            Err(message) => self.search.update_value(|s| s.error = Some(message)),
        }
    }

    /// A pool of workers that search units for the query of [`Self::search`] (as it is when a
    /// unit is given to a worker); with `more_coming`, they wait for units.
    fn search_pool_of(&self, order: Vec<u32>, sizes: Vec<f64>, more_coming: bool) -> Result<Pool, String> {
        let state = *self;
        let make = move |unit: u32| {
            let (query, regex) = state.search.with_value(|s| (s.query.clone(), s.regex));
            state.units.with_value(|units| {
                let unit_files = units.get(unit as usize).ok_or_else(|| format!("no unit {unit}"))?;
                Envelope::new(ToWorker::SearchUnit {
                    unit,
                    paths: unit_files.files.iter().map(|f| f.path.clone()).collect(),
                    query,
                    regex,
                })
                .with_files(unit_files.files.iter().map(|f| f.file.clone()).collect())
                .encode()
            })
        };
        let on_event = move |event: PoolEvent| state.on_search_event(event);
        Pool::start(order, sizes, crate::pool::worker_count(), more_coming, make, on_event)
    }

    /// Starts the next search's workers now, if none are waiting: their code loads while the
    /// user types.
    pub fn prepare_search(&self) {
        let idle = self.active.get_untracked() && self.pool.with_value(Option::is_none);
        if !idle || self.prepared_search.with_value(Option::is_some) || self.units.with_value(Vec::is_empty) {
            return;
        }
        let sizes = self.unit_sizes();
        if let Ok(pool) = self.search_pool_of(Vec::new(), sizes, true) {
            self.prepared_search.set_value(Some(pool));
        }
    }

    fn on_search_event(&self, event: PoolEvent) {
        match event {
            PoolEvent::Answer { unit, reply, .. } => {
                let mut first_hits = false;
                let (files, bytes) =
                    self.units.with_value(|u| u.get(unit as usize).map_or((0, 0.0), |u| (u.files.len(), u.bytes)));
                match reply {
                    FromWorker::UnitHits { query_error: Some(error), .. } => {
                        // Every unit would say the same: the search stops.
                        self.search.update_value(|s| s.error = Some(error));
                        let state = *self;
                        leptos::task::spawn_local(async move {
                            state.stop_search();
                            state.search_pass.set(None);
                            state.search_changed.update(|n| *n += 1);
                        });
                    }
                    FromWorker::UnitHits { hits, count, complete, bytes: read, .. } => self.search.update_value(|s| {
                        s.first_answer_ms.get_or_insert_with(now_ms);
                        s.bytes_read += read;
                        first_hits = s.hits.is_empty() && !hits.is_empty();
                        s.matches += count;
                        s.more |= !complete;
                        s.hits.extend(hits.into_iter().map(|hit| (unit, hit)));
                    }),
                    FromWorker::Error { message } => {
                        let key = self.unit_key(unit);
                        self.search.update_value(|s| s.error = Some(format!("{key}: {message}")));
                    }
                    _ => {}
                }
                self.search_pass.update_untracked(|pass| {
                    if let Some(pass) = pass {
                        pass.units_done += 1;
                        pass.files_done += files;
                        pass.bytes_done += bytes;
                    }
                });
                // The first hits are shown at once; later answers a few times a second.
                if first_hits {
                    self.search_pass.notify();
                    self.search_changed.update(|n| *n += 1);
                } else {
                    self.redraw_search_soon();
                }
            }
            PoolEvent::Finished => {
                self.search_pass.update(|pass| {
                    if let Some(pass) = pass {
                        pass.ended_ms = Some(now_ms());
                    }
                });
                let state = *self;
                leptos::task::spawn_local(async move {
                    state.search_pool.set_value(None);
                    state.prepare_search();
                });
                self.search_changed.update(|n| *n += 1);
                if let Some(pass) = self.search_pass.get_untracked() {
                    let (first, read) = self.search.with_value(|s| (s.first_answer_ms, s.bytes_read));
                    web_sys::console::debug_1(
                        &format!(
                            "sessionscope history: searched {} units ({:.0} MB read) in {:.0} ms, the first answered after {:.0} ms",
                            pass.units,
                            read / 1e6,
                            pass.seconds() * 1000.0,
                            first.map_or(f64::NAN, |f| f - pass.started_ms),
                        )
                        .into(),
                    );
                }
            }
        }
    }

    /// Stops the search and forgets its results: no hits, no error, no status.
    pub fn clear_search(&self) {
        self.stop_search();
        self.search.set_value(SearchResults::default());
        self.search_pass.set(None);
        self.search_changed.update(|n| *n += 1);
    }

    /// Stops a search; its hits so far stay.
    pub fn stop_search(&self) {
        if self.search_pool.try_update_value(Option::take).flatten().is_some() {
            self.search_pass.update(|pass| {
                if let Some(pass) = pass
                    && pass.running()
                {
                    pass.ended_ms = Some(now_ms());
                    pass.cancelled = true;
                }
            });
            self.search_changed.update(|n| *n += 1);
        }
    }

    /// Opens the session of a search hit, at the hit.
    pub fn open_hit(&self, unit: u32, hit: &HistoryHit) {
        let index = self.rows.with_value(|rows| {
            rows.iter()
                .position(|r| r.unit == unit && r.row.session_id == hit.session_id)
                .or_else(|| rows.iter().position(|r| r.unit == unit))
        });
        if let Some(index) = index {
            let query = self.search.with_value(|s| (s.query.clone(), s.regex));
            self.loading.search_on_open.set_value(Some(query));
            self.open(index, Some(hit.uuid.clone()));
        }
    }

    /// Projects with their totals: sessions, tokens, cost, last activity (newest first).
    pub fn projects(&self) -> Vec<ProjectTotals> {
        self.rows.with_value(|rows| {
            let mut by_name: HashMap<&str, ProjectTotals> = HashMap::new();
            for row in rows {
                let totals = by_name
                    .entry(&row.row.project)
                    .or_insert_with(|| ProjectTotals { project: row.row.project.clone(), ..ProjectTotals::default() });
                totals.sessions += 1;
                totals.tokens += row.row.tokens();
                totals.cost_usd += row.row.cost_usd;
                totals.last_ms = totals.last_ms.max(row.row.end_ms.or(row.row.start_ms).unwrap_or(i64::MIN));
            }
            let mut all: Vec<ProjectTotals> = by_name.into_values().collect();
            crate::sort::sort_by(&mut all, |a, b| b.last_ms.cmp(&a.last_ms).then_with(|| a.project.cmp(&b.project)));
            all
        })
    }
}

/// A project's totals on the history home.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProjectTotals {
    pub project: String,
    pub sessions: usize,
    pub tokens: u64,
    pub cost_usd: f64,
    pub last_ms: i64,
}

/// Runs `then` in `ms`, unless a run is already due (`due`): a burst of calls costs one run.
fn once_after(due: StoredValue<bool>, ms: i32, then: impl FnOnce() + 'static) {
    if due.get_value() {
        return;
    }
    due.set_value(true);
    let run = wasm_bindgen::closure::Closure::once_into_js(move || {
        due.set_value(false);
        then();
    });
    if let Some(window) = web_sys::window() {
        use wasm_bindgen::JsCast;
        let _ = window.set_timeout_with_callback_and_timeout_and_arguments_0(run.unchecked_ref(), ms);
    }
}

/// The order to index units in (their ids from `first`): the newest first, so the latest
/// sessions show at once, but the biggest last, so none holds the first rows back.
fn index_order(units: &[HistoryUnit], first: u32) -> Vec<u32> {
    let mut order: Vec<u32> = (0..units.len() as u32).collect();
    let newest = |unit: &HistoryUnit| unit.files.iter().map(|f| f.file.last_modified()).fold(0.0, f64::max);
    let big = |unit: &HistoryUnit| unit.bytes >= BIG_UNIT_BYTES;
    crate::sort::sort_by(&mut order, |&a, &b| {
        let (a, b) = (&units[a as usize], &units[b as usize]);
        big(a).cmp(&big(b)).then(newest(b).total_cmp(&newest(a)))
    });
    // The first rows wait for the first unit read: of the newest few, the smallest go first.
    let mut rest = order.split_off(order.len().min(LEAD_UNITS));
    crate::sort::sort_by(&mut order, |&a, &b| units[a as usize].bytes.total_cmp(&units[b as usize].bytes));
    order.append(&mut rest);
    order.into_iter().map(|u| u + first).collect()
}

pub fn use_history() -> HistoryState {
    expect_context::<HistoryState>()
}

/// The problems of a walked batch: files left out by their names, and files that could not be
/// read.
fn problems_of(skipped_by_name: Vec<String>, unreadable: Vec<(String, String)>) -> Vec<FileProblem> {
    skipped_by_name
        .into_iter()
        .map(|path| FileProblem { path, reason: sessionscope_engine::import::names::NOT_A_LOG_NAME.to_owned() })
        .chain(unreadable.into_iter().map(|(path, reason)| FileProblem { path, reason }))
        .collect()
}

/// What identifies each file's content, for the cached index.
fn stamps_of(files: &[PickedFile]) -> Vec<FileStamp> {
    files.iter().map(|f| crate::files::stamp_of(&f.path, &f.file)).collect()
}
