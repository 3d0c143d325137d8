//! A whole history: a dropped or picked folder of many sessions, indexed first and opened one
//! session at a time.
//!
//! The files are grouped into session units ([`sessionscope_engine::history::Unit`]); a pool of
//! workers (`client::pool`) reads each unit, answers its rows and lets its bytes go, so the page
//! holds `File` handles and rows, never the logs. Choosing a session loads only its unit's files
//! into the viewer, through [`LoadState`], as a drop of those files would; the previous session
//! is let go.
//!
//! The state is split by pass, each its own part and file: [`IndexPass`] (`indexing.rs`: the walk
//! of a drop or a folder and the index of its units), [`HistorySearch`] (`history_search.rs`: a
//! search of every unit), [`RememberedFolders`] (`remembered.rs`: folders this browser keeps, and
//! their cached indexes) and [`Following`] (`following.rs`: a remembered folder followed while
//! agents write to it). What they share is here: the units, their rows and problems, and the
//! list's view.

mod figures;
mod following;
mod history_search;
mod indexing;
mod ranked_search;
mod remembered;
mod unread;

use std::collections::HashMap;
use std::sync::Arc;

use leptos::prelude::*;
use sessionscope_engine::history::{FileProblem, SessionRow, group_into_units, needs_hint, unit_hint};
use sessionscope_engine::history_cache::FileStamp;
use sessionscope_engine::import::names::NOT_A_LOG_NAME;
use sessionscope_engine::search::RawText;
use sessionscope_engine::trigrams::TrigramSet;

use crate::client::folders::Folders;
use crate::client::handle::WorkerError;
use crate::client::insights_worker::InsightsWorker;
use crate::client::intake::Intake;
use crate::client::picked::{Picked, PickedFile};
use crate::client::workers::Workers;
use crate::logic::{deeplink, sort};
use crate::platform::schedule::{Burst, now_ms};
use crate::platform::{address, files};
use crate::state::LoadState;
use crate::wire::messages::{IndexedBuffers, UnitRequest};
use crate::wire::{Parcel, ToWorker};

pub use figures::{FileKey, HistoryInsights, HomeTab};
pub use following::{FollowStats, Following};
pub use history_search::{HistorySearch, SearchResults};
pub use indexing::IndexPass;
pub use ranked_search::{RANKED_SHOWN, RankedAnswer, RankedQuery, RankedSearch};
pub use remembered::{IndexKept, RememberedFolder, RememberedFolders};
pub use unread::SeenState;

/// The files of one session unit.
pub struct HistoryUnit {
    pub key: String,
    pub folder: String,
    pub files: Vec<PickedFile>,
    pub bytes: f64,
    /// Its trigrams, once indexed (not for a unit listed from a cached index).
    pub trigrams: Option<UnitTrigrams>,
    /// Whether the insights worker holds its insights (once indexed, or from the cache), and the
    /// files they were made of (none if a file could not be read whole).
    insights: Option<Vec<FileStamp>>,
}

/// A unit's set of trigrams (see [`sessionscope_engine::trigrams`]), and the files it was made of:
/// it answers for the unit only while the unit's files are still those.
pub struct UnitTrigrams {
    read: Vec<FileStamp>,
    set: TrigramSet,
}

impl UnitTrigrams {
    /// The set a worker sent with a unit's index ([`IndexedBuffers::trigrams`]), if it reads as one.
    fn received(read: Vec<FileStamp>, buffer: &js_sys::ArrayBuffer) -> Option<UnitTrigrams> {
        let set = TrigramSet::from_bytes(crate::wire::bytes_of(buffer))?;
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
    FailedCalls,
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
    /// Only sessions with messages not seen yet.
    pub unread_only: bool,
    /// Only sessions starred (or holding a starred message).
    pub starred_only: bool,
    /// Only sessions with this tag (on them or on one of their messages); empty for any.
    pub tag: String,
}

impl ListView {
    /// Lists every session of the project again: no text, model, agent, days, unread, star or
    /// tag asked for. The project and the sort stay.
    pub fn clear_filters(&mut self) {
        let defaults = ListView::default();
        self.text = defaults.text;
        self.model = defaults.model;
        self.agent = defaults.agent;
        self.from = defaults.from;
        self.to = defaults.to;
        self.unread_only = defaults.unread_only;
        self.starred_only = defaults.starred_only;
        self.tag = defaults.tag;
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
            unread_only: false,
            starred_only: false,
            tag: String::new(),
        }
    }
}

/// What the history's passes read files and start workers with.
#[derive(Clone)]
struct HistoryIo {
    workers: Workers,
    intake: Intake,
    folders: Folders,
    insights: InsightsWorker,
}

#[derive(Clone, Copy)]
pub struct HistoryState {
    loading: LoadState,
    io: StoredValue<HistoryIo, LocalStorage>,
    units: StoredValue<Vec<HistoryUnit>, LocalStorage>,
    rows: StoredValue<Vec<Arc<HistoryRow>>>,
    problems: StoredValue<Vec<FileProblem>>,
    /// Units that could not be indexed (their worker stopped, three times): their key and why. Their
    /// files may well hold sessions, so they are not among the problems.
    failed_units: StoredValue<Vec<FileProblem>>,
    /// Bumped when rows or problems change (at most every few frames while indexing).
    pub changed: RwSignal<u64>,
    /// A history is loaded (its home may be hidden behind an open session).
    pub active: RwSignal<bool>,
    /// The history home is on screen.
    pub showing: RwSignal<bool>,
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
    /// The walk and the index of the history's units.
    pub index: IndexPass,
    /// A search of every unit.
    pub search: HistorySearch,
    /// The ranked search of every session, asked of the history worker.
    pub ranked: RankedSearch,
    /// The folders this browser remembers, and the one the history comes from.
    pub remembered: RememberedFolders,
    /// The remembered folder on screen, followed.
    pub following: Following,
    /// What the history knows beyond its rows: its files, failures and activity.
    pub insights: HistoryInsights,
    /// What the person has seen of a remembered folder's sessions.
    pub seen: SeenState,
}

/// Histories up to this size can be opened all together in one view.
pub const OPEN_ALL_BYTES: f64 = 256.0 * 1024.0 * 1024.0;

/// How often a running index redraws the history home at most (see [`HistoryState::bump_soon`]).
const INDEX_REDRAW_MS: f64 = 300.0;

/// Bytes of a file's start read to find the session a loose agent file names.
const HINT_BYTES: f64 = 64.0 * 1024.0;

impl HistoryState {
    pub fn new(loading: LoadState, workers: Workers, intake: Intake, folders: Folders) -> HistoryState {
        HistoryState {
            loading,
            io: StoredValue::new_local(HistoryIo {
                insights: InsightsWorker::new(workers.clone()),
                workers,
                intake,
                folders,
            }),
            units: StoredValue::new_local(Vec::new()),
            rows: StoredValue::new(Vec::new()),
            problems: StoredValue::new(Vec::new()),
            failed_units: StoredValue::new(Vec::new()),
            changed: RwSignal::new(0),
            active: RwSignal::new(false),
            showing: RwSignal::new(false),
            view: RwSignal::new(ListView::default()),
            scroll_top: StoredValue::new(0.0),
            active_row: RwSignal::new(None),
            opened: RwSignal::new(None),
            opened_unit: StoredValue::new(None),
            pushed: StoredValue::new(false),
            index: IndexPass::new(),
            search: HistorySearch::new(),
            ranked: RankedSearch::new(),
            remembered: RememberedFolders::new(),
            following: Following::new(),
            insights: HistoryInsights::new(),
            seen: SeenState::new(),
        }
    }

    fn workers(&self) -> Workers {
        self.io.with_value(|io| io.workers.clone())
    }

    fn intake(&self) -> Intake {
        self.io.with_value(|io| io.intake.clone())
    }

    fn folders(&self) -> Folders {
        self.io.with_value(|io| io.folders.clone())
    }

    fn insights_worker(&self) -> InsightsWorker {
        self.io.with_value(|io| io.insights.clone())
    }

    /// The request that reads unit `unit` of the history (`None` if there is no such unit).
    fn unit_request(
        &self,
        unit: u32,
        request: impl FnOnce(Vec<String>, &HistoryUnit) -> UnitRequest,
    ) -> Option<Parcel<ToWorker>> {
        self.units.with_value(|units| {
            let unit = units.get(unit as usize)?;
            let paths = unit.files.iter().map(|f| f.path.clone()).collect();
            let files = unit.files.iter().map(|f| f.file.clone()).collect();
            Some(Parcel::new(ToWorker::Unit(request(paths, unit))).with_files(files))
        })
    }

    /// The request that indexes unit `unit`.
    fn index_request(&self, unit: u32) -> Option<Parcel<ToWorker>> {
        self.unit_request(unit, |paths, unit| UnitRequest::Index { folder: unit.folder.clone(), paths })
    }

    /// The link in the address bar, if it names anything.
    fn link(&self) -> Option<deeplink::DeepLink> {
        deeplink::link_in(&address::fragment())
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

    /// The units this pass could not index, with why.
    pub fn failed_units(&self) -> Vec<FileProblem> {
        self.failed_units.get_value()
    }

    pub fn unit_key(&self, unit: u32) -> String {
        self.units.with_value(|units| units.get(unit as usize).map(|u| u.key.clone()).unwrap_or_default())
    }

    /// The session units of these files.
    pub async fn units_of(files: &[PickedFile]) -> Vec<HistoryUnit> {
        let loose: Vec<usize> = (0..files.len()).filter(|&i| needs_hint(&files[i].path)).collect();
        let firsts =
            futures::future::join_all(loose.iter().map(|&i| files::first_bytes(&files[i].file, HINT_BYTES))).await;
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
                HistoryUnit { key: unit.key, folder: unit.folder, files, bytes, trigrams: None, insights: None }
            })
            .collect()
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
        self.search.prepared.set_value(None);
        self.index.pool.set_value(None);
        self.stop_following();
        self.following.refresh_pool.set_value(None);
        self.following.read_next.set_value(Vec::new());
        self.index.pending_open.set_value(None);
        self.index.replacing.set_value(Default::default());
        self.index.pass.set(Some(pass));
        // The page says the index is kept only once this pass's is written (`save_cache`): a
        // reload before then reads the folder again.
        self.remembered.index_kept.set(remembered::IndexKept::Keeping);
        self.units.set_value(units);
        self.rows.set_value(rows);
        self.problems.set_value(problems);
        self.failed_units.set_value(Vec::new());
        self.index.answered.set_value(answered);
        if self.remembered_id().is_none() {
            self.begin_seen(None);
        }
        self.view.set(ListView::default());
        self.scroll_top.set_value(0.0);
        self.active_row.set(None);
        self.opened.set(None);
        self.opened_unit.set_value(None);
        self.active.set(true);
        self.showing.set(true);
        self.loading.close_for_history();
        self.close_file();
        self.stop_diffs();
        self.insights_worker().release();
        self.clear_ranked();
        self.insights.tab.set(HomeTab::Sessions);
        self.insights_changed(true);
        if let Some(link) = self.link() {
            if link.project.is_some() && link.home.is_none() {
                self.view.update(|v| v.project = link.project.clone());
            }
            if link.home.is_some() {
                self.show_linked_home(&link);
            }
        }
    }

    /// The bytes of each unit's files, by unit (what a pool is given to know its big units).
    fn unit_sizes(&self) -> Vec<f64> {
        self.units.with_value(|units| units.iter().map(|u| u.bytes).collect())
    }

    /// What a unit's index answered beside its rows ([`IndexedBuffers`]): its insights to the
    /// insights worker, its word index to the ranked search, its trigrams to its unit.
    fn keep_indexed(&self, unit: u32, read: Vec<FileStamp>, insights: bool, buffers: &[js_sys::ArrayBuffer]) {
        let buffers = IndexedBuffers::received(&read, insights, buffers);
        self.keep_insights(unit, &read, buffers.insights);
        self.keep_words(&read, buffers.words);
        self.keep_trigrams(unit, buffers.trigrams.and_then(|buffer| UnitTrigrams::received(read, &buffer)));
    }

    /// A unit's trigrams, as its index answered them.
    fn keep_trigrams(&self, unit: u32, trigrams: Option<UnitTrigrams>) {
        self.units.update_value(|units| {
            if let Some(at) = units.get_mut(unit as usize) {
                at.trigrams = trigrams;
            }
        });
    }

    /// Redraws the history home and its progress now.
    fn bump(&self) {
        self.insights_changed(false);
        self.index.redraw.with_value(Burst::ran);
        self.index.rows_drawn.set_value(self.rows.with_value(|rows| !rows.is_empty()));
        self.index.pass.notify();
        self.changed.update(|n| *n += 1);
    }

    /// Redraws after the current burst of answers, and then at most every
    /// [`INDEX_REDRAW_MS`]: each redraw sorts and totals every session listed, and lays out and
    /// paints the page, on the cores the index's workers and the browser's reading need. Redrawn
    /// 50 ms after every burst, the 4.4 GB benchmark history indexed in 16.3–16.9 s on 2 cores;
    /// every 300 ms, in 14.8–15.0 s (the page's main thread busy 4.8 s instead of 10.3 s).
    fn bump_soon(&self) {
        let state = *self;
        let since = self.index.redraw.with_value(Burst::since_last_ms);
        // Until sessions are on the page, every burst is drawn 50 ms after it: so a redraw due
        // when the first sessions are found is never more than 50 ms away.
        let wait =
            if !self.index.rows_drawn.get_value() || since >= INDEX_REDRAW_MS { 50.0 } else { INDEX_REDRAW_MS - since };
        self.index.redraw.with_value(|redraw| redraw.run_in(wait, move || state.bump()));
    }

    /// A link that names a session of this history opens it once its row is in.
    fn open_linked_session(&self) {
        if self.opened.get_untracked().is_some() || !self.showing.get_untracked() {
            return;
        }
        let Some(link) = self.link() else { return };
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
        let link = self.link();
        let names_session = link.as_ref().is_some_and(|l| l.session.is_some());
        let project = link.as_ref().and_then(|l| l.project.clone());
        if self.showing.get_untracked() {
            if names_session {
                self.open_linked_session();
            } else if let Some(link) = link.filter(|l| l.home.is_some()) {
                self.show_linked_home(&link);
            } else {
                if self.insights.tab.get_untracked() != HomeTab::Sessions {
                    self.close_file();
                    self.stop_diffs();
                    self.insights.tab.set(HomeTab::Sessions);
                }
                self.show_project(project);
            }
        } else if !names_session {
            self.pushed.set_value(false);
            match link.filter(|l| l.home.is_some()) {
                Some(link) => self.show_linked_home(&link),
                None => self.show_project(project),
            }
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
        let fragment = project.as_deref().map(|p| deeplink::format_in_project(p, None, None)).unwrap_or_default();
        if new_entry {
            address::push_fragment(&fragment);
        } else {
            address::replace_fragment(&fragment);
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
        if files.is_empty() && self.index.walk.with_value(|walk| walk.reconciling) {
            // Listed from the cache, its files not found yet: it opens once they are.
            self.index.pending_open.set_value(Some((index, uuid)));
            return;
        }
        let fragment = deeplink::format_in_project(&row.row.project, Some(&row.row.session_id), uuid.as_deref());
        // A link to this message in a later part of a big file keeps its part: the load reads it.
        let part = self
            .link()
            .filter(|l| uuid.is_some() && l.message == uuid && l.session.as_ref() == Some(&row.row.session_id))
            .and_then(|l| l.part);
        let fragment = deeplink::with_part(fragment, part);
        if push {
            address::push_fragment(&fragment);
            self.pushed.set_value(true);
        } else {
            address::replace_fragment(&fragment);
        }
        // What was seen of it places the "new since" divider; what was seen of the session left
        // is kept.
        self.keep_seen_now();
        let seen = self.seen_mark(&row.row.session_id).filter(|m| row.row.messages > m.messages);
        self.loading.expect_seen(row.row.session_id.clone(), seen);
        self.opened.set(Some(index));
        self.opened_unit.set_value(Some(row.unit));
        self.active_row.set(Some(index));
        self.showing.set(false);
        let root = self.remembered.source.with_value(|s| s.as_ref().map(|s| s.folder.handle.clone()));
        let Some(root) = root else {
            self.loading.open_from_history(files);
            return;
        };
        // Files of a remembered folder are read as they are now, not as they were indexed. A
        // session written lately is likely still running: it is made ready to grow.
        let running = row.row.end_ms.is_some_and(|end| js_sys::Date::now() - (end as f64) < following::HOT_FOR_MS);
        let state = *self;
        // A folder of one session, opened once indexed, lists what its walk left out.
        let (left_out, unreadable) =
            self.index.open_only_session.try_update_value(Option::take).flatten().unwrap_or_default();
        leptos::task::spawn_local(async move {
            // The unit keeps the files its row was read from: the cache pairs them.
            let files = state.intake().fresh(Some(&root), files).await;
            if state.opened.get_untracked() == Some(index) {
                let picked = Picked { files, skipped_by_name: left_out, unreadable, ..Picked::default() };
                state.loading.open_picked_from_history(picked, running);
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
        address::replace_fragment("");
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
        address::replace_fragment(&self.home_fragment());
    }

    /// Leaves the history (something else was opened).
    pub fn close(&self) {
        self.index.walk.update_value(|walk| {
            walk.generation += 1;
            walk.warm_pool = None;
        });
        self.stop_search();
        self.index.pool.set_value(None);
        self.stop_following();
        self.following.refresh_pool.set_value(None);
        self.following.read_next.set_value(Vec::new());
        self.keep_seen_now();
        self.remembered.source.set_value(None);
        self.active.set(false);
        self.showing.set(false);
        self.pushed.set_value(false);
        self.index.pass.set(None);
        self.close_file();
        self.stop_diffs();
        self.forget_versions();
        self.insights_worker().release();
        self.clear_ranked();
        self.units.set_value(Vec::new());
        self.rows.set_value(Vec::new());
        self.problems.set_value(Vec::new());
        self.failed_units.set_value(Vec::new());
        self.bump();
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
            sort::sort_by(&mut all, |a, b| b.last_ms.cmp(&a.last_ms).then_with(|| a.project.cmp(&b.project)));
            all
        })
    }

    /// Puts `rows` in place of the rows of `unit`; the open and the active session stay the
    /// same sessions, wherever their rows now are (or the unit's first session, if their id
    /// changed).
    pub(super) fn replace_rows(&self, unit: u32, rows: Vec<SessionRow>) {
        let identity =
            |index: Option<usize>| index.and_then(|i| self.row(i)).map(|r| (r.unit, r.row.session_id.clone()));
        let opened = identity(self.opened.get_untracked());
        let active = identity(self.active_row.get_untracked());
        self.rows.update_value(|all| {
            all.retain(|r| r.unit != unit);
            all.extend(rows.into_iter().map(|row| Arc::new(HistoryRow { unit, row })));
        });
        // A session read again may be known by another id (a file rewritten, or read while it
        // was written): it is still the unit's.
        let find = |who: Option<(u32, String)>| {
            let (unit, session) = who?;
            self.rows.with_value(|all| {
                all.iter()
                    .position(|r| r.unit == unit && r.row.session_id == session)
                    .or_else(|| all.iter().position(|r| r.unit == unit))
            })
        };
        // The open session's unit may have had no rows for a moment: its row comes back.
        let opened = opened.or_else(|| self.opened_unit.get_value().filter(|u| *u == unit).map(|u| (u, String::new())));
        if opened.is_some() {
            self.opened.set(find(opened));
        }
        if active.is_some() {
            self.active_row.set(find(active));
        }
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

pub fn use_history() -> HistoryState {
    expect_context::<HistoryState>()
}

/// The problems of a walked batch: files left out by their names, and files that could not be
/// read.
fn problems_of(skipped_by_name: Vec<String>, unreadable: Vec<FileProblem>) -> Vec<FileProblem> {
    skipped_by_name
        .into_iter()
        .map(|path| FileProblem { path, reason: NOT_A_LOG_NAME.to_owned() })
        .chain(unreadable)
        .collect()
}

/// What identifies each file's content, for the cached index.
fn stamps_of(files: &[PickedFile]) -> Vec<FileStamp> {
    files.iter().map(|f| files::stamp_of(&f.path, &f.file)).collect()
}

/// A unit's failure, in words: a worker that stopped is named as the one reading it.
fn unit_failure(error: WorkerError) -> String {
    match error {
        WorkerError::Stopped(crash) => format!("the worker reading it {crash}"),
        other => other.to_string(),
    }
}
