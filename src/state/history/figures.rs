//! What the history knows beyond its rows, as the home's Files, Failures and Activity tabs show
//! it. Each unit's insights are made by the worker that indexes it and forwarded, untouched, to
//! the history's insights worker (`client::insights_worker`), which keeps them (with the
//! remembered folder's cache) and draws the tabs: the page holds only which units have insights
//! and from which files. A file's page asks the units that changed the file for the diffs of
//! their changes, the earliest first; the versions of files Claude Code kept are read when two
//! are compared.

use std::collections::{HashMap, HashSet};

use leptos::prelude::*;
use sessionscope_engine::history_cache::FileStamp;
use sessionscope_engine::import::names::kept_version;

use super::HistoryState;
use crate::client::picked::LaterFile;
use crate::client::pool::{Pool, PoolEvent, worker_count};
use crate::logic::deeplink;
use crate::platform::address;
use crate::platform::schedule::now_ms;
use crate::wire::insights::{InsightsReply, InsightsRequest};
use crate::wire::messages::{UnitReply, UnitRequest};

/// The tabs of the history home.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HomeTab {
    Sessions,
    Files,
    Failures,
    Activity,
}

impl HomeTab {
    pub const ALL: [HomeTab; 4] = [HomeTab::Sessions, HomeTab::Files, HomeTab::Failures, HomeTab::Activity];

    pub fn label(self) -> &'static str {
        match self {
            HomeTab::Sessions => "Sessions",
            HomeTab::Files => "Files",
            HomeTab::Failures => "Failures",
            HomeTab::Activity => "Activity",
        }
    }

    /// Its name in a link (`#h=…`).
    pub fn slug(self) -> &'static str {
        match self {
            HomeTab::Sessions => "sessions",
            HomeTab::Files => "files",
            HomeTab::Failures => "failures",
            HomeTab::Activity => "activity",
        }
    }

    pub fn of_slug(slug: &str) -> Option<HomeTab> {
        HomeTab::ALL.into_iter().find(|t| t.slug() == slug)
    }
}

/// A file of a project, as the Files tab names it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct FileKey {
    pub project: String,
    pub path: String,
}

/// How often the tabs are drawn again at most while the index runs: summing a 4 GB history's
/// insights takes the insights worker tens of milliseconds, on the cores the index needs.
const REDRAW_WHILE_INDEXING_MS: f64 = 2000.0;

/// The insights' part of the history's state.
#[derive(Clone, Copy)]
pub struct HistoryInsights {
    /// The home's tab.
    pub tab: RwSignal<HomeTab>,
    /// Bumped when some unit's insights change (at most every [`REDRAW_WHILE_INDEXING_MS`]
    /// while the index runs).
    pub changed: RwSignal<u64>,
    last_change_ms: StoredValue<f64>,
    /// The file whose page is on screen, if any.
    pub file: RwSignal<Option<FileKey>>,
    /// The diffs of its changes read so far, by `<unit>:<line>` (empty: the log holds no text of
    /// the change); `diffs_changed` is bumped as they come.
    diffs: StoredValue<HashMap<String, String>>,
    pub diffs_changed: RwSignal<u64>,
    /// Lines of each unit still to be read for diffs, those being read (with the file page they
    /// are for), and the units queued.
    pending: StoredValue<HashMap<u32, Vec<String>>>,
    asking: StoredValue<HashMap<u32, (u64, Vec<String>)>>,
    /// Which file page the diffs are read for: a unit's answer for an earlier one is let go.
    page_number: StoredValue<u64>,
    queued: StoredValue<HashSet<u32>>,
    /// Workers that read the changes of files again: started when the Files tab shows, so that
    /// their code is loaded by the time a file is opened, and let go with the tab.
    pool: StoredValue<Option<Pool>, LocalStorage>,
    /// When the file page opened, for the benchmarks' log of its first diff.
    file_opened_ms: StoredValue<Option<f64>>,
    /// Versions of files Claude Code kept, found by the walk: by session id and backup name.
    versions: StoredValue<HashMap<(String, String), LaterFile>, LocalStorage>,
}

impl HistoryInsights {
    pub(super) fn new() -> HistoryInsights {
        HistoryInsights {
            tab: RwSignal::new(HomeTab::Sessions),
            changed: RwSignal::new(0),
            last_change_ms: StoredValue::new(0.0),
            file: RwSignal::new(None),
            diffs: StoredValue::new(HashMap::new()),
            diffs_changed: RwSignal::new(0),
            pending: StoredValue::new(HashMap::new()),
            asking: StoredValue::new(HashMap::new()),
            page_number: StoredValue::new(0),
            queued: StoredValue::new(HashSet::new()),
            pool: StoredValue::new_local(None),
            file_opened_ms: StoredValue::new(None),
            versions: StoredValue::new_local(HashMap::new()),
        }
    }
}

impl HistoryState {
    /// A unit's insights as its index answered them (`IndexedBuffers::insights`), given to the
    /// insights worker; `read` stamps the files they were made of (none if a file could not be
    /// read whole: then they are not cached).
    pub(super) fn keep_insights(&self, unit: u32, read: &[FileStamp], buffer: Option<js_sys::ArrayBuffer>) {
        let kept = buffer.is_some();
        if let Err(error) = self.insights_worker().keep(unit, buffer) {
            web_sys::console::warn_1(&format!("sessionscope insights: {error}").into());
            return;
        }
        self.units.update_value(|units| {
            if let Some(at) = units.get_mut(unit as usize) {
                at.insights = kept.then(|| read.to_vec());
            }
        });
    }

    /// A unit's insights from the cache, as the engine encodes them (in browser memory: they go
    /// to the insights worker without coming into the page's).
    pub(super) fn keep_cached_insights(&self, unit: u32, read: Vec<FileStamp>, buffer: js_sys::ArrayBuffer) {
        if self.insights_worker().keep(unit, Some(buffer)).is_ok() {
            self.units.update_value(|units| {
                if let Some(at) = units.get_mut(unit as usize) {
                    at.insights = Some(read);
                }
            });
        }
    }

    /// Tells the tabs the insights changed: at once when no index runs, else at most every
    /// [`REDRAW_WHILE_INDEXING_MS`] (the pass's end redraws them).
    pub(super) fn insights_changed(&self, force: bool) {
        let running = self.index.pass.with_untracked(|p| p.as_ref().is_some_and(|p| p.running()));
        let since = now_ms() - self.insights.last_change_ms.get_value();
        if force || !running || since >= REDRAW_WHILE_INDEXING_MS {
            self.insights.last_change_ms.set_value(now_ms());
            self.insights.changed.update(|n| *n += 1);
        }
    }

    /// Has the insights worker sum the tabs' reports while nothing is asked: an index pass, or a
    /// followed session's reading, ended.
    pub(super) fn prepare_insights(&self) {
        if self.units.with_value(|units| units.iter().any(|u| u.insights.is_some())) {
            let _ = self.insights_worker().prepare();
        }
    }

    /// Sessions whose units have insights, and sessions in all.
    pub fn insights_coverage(&self) -> (usize, usize) {
        self.units.with_value(|units| {
            self.rows.with_value(|rows| {
                let with =
                    rows.iter().filter(|r| units.get(r.unit as usize).is_some_and(|u| u.insights.is_some())).count();
                (with, rows.len())
            })
        })
    }

    /// Asks the insights worker for a tab, drawn.
    pub async fn draw_insights(&self, request: InsightsRequest) -> Result<InsightsReply, String> {
        if self.insights_worker().lost() {
            return Err("the worker that held this history's figures stopped: open the folder again".to_owned());
        }
        self.insights_worker().ask(request).await.map(|(reply, _)| reply).map_err(|e| e.to_string())
    }

    /// Opens the session at a place a tab names: `unit` and `session` (its id), at line `entry`.
    pub fn open_place(&self, unit: u32, session: &str, entry: &str) {
        let found =
            self.rows.with_value(|rows| rows.iter().position(|r| r.unit == unit && r.row.session_id == session));
        if let Some(index) = found {
            self.open(index, (!entry.is_empty()).then(|| entry.to_owned()));
        }
    }

    /// Shows a tab of the home (its link replaces the address; a file's page closes).
    pub fn choose_tab(&self, tab: HomeTab) {
        self.close_file();
        if tab != HomeTab::Files {
            self.stop_diffs();
        }
        self.insights.tab.set(tab);
        address::replace_fragment(&self.home_fragment());
    }

    /// The link of the home as it shows: the project of the Sessions tab, or another tab and
    /// its file page.
    pub(super) fn home_fragment(&self) -> String {
        match self.insights.tab.get_untracked() {
            HomeTab::Sessions => self
                .view
                .with_untracked(|v| v.project.as_deref().map(|p| deeplink::format_in_project(p, None, None)))
                .unwrap_or_default(),
            tab => {
                let file = self.insights.file.get_untracked();
                deeplink::format_home(tab.slug(), file.as_ref().map(|k| (k.project.as_str(), k.path.as_str())))
            }
        }
    }

    /// Shows what a link into the home names: its tab, and a file's page.
    pub(super) fn show_linked_home(&self, link: &deeplink::DeepLink) {
        let tab = link.home.as_deref().and_then(HomeTab::of_slug).unwrap_or(HomeTab::Sessions);
        self.insights.tab.set(tab);
        match (&link.project, &link.file) {
            (Some(project), Some(path)) if tab == HomeTab::Files => self.show_file(project, path),
            _ => self.close_file(),
        }
    }

    /// Opens a file's page: a new entry of the browser's history, so Back returns to the list.
    pub fn open_file(&self, project: &str, path: &str) {
        address::push_fragment(&deeplink::format_home(HomeTab::Files.slug(), Some((project, path))));
        self.insights.tab.set(HomeTab::Files);
        self.show_file(project, path);
    }

    fn show_file(&self, project: &str, path: &str) {
        let key = FileKey { project: project.to_owned(), path: path.to_owned() };
        if self.insights.file.get_untracked().as_ref() == Some(&key) {
            return;
        }
        self.reset_file_page();
        self.insights.file_opened_ms.set_value(Some(now_ms()));
        self.insights.file.set(Some(key));
    }

    fn reset_file_page(&self) {
        self.insights.page_number.update_value(|n| *n += 1);
        self.insights.diffs.set_value(HashMap::new());
        self.insights.pending.set_value(HashMap::new());
        self.insights.asking.set_value(HashMap::new());
        self.insights.queued.set_value(HashSet::new());
    }

    /// Lets the workers that read files' changes go (another history, or another tab).
    pub(super) fn stop_diffs(&self) {
        self.insights.pool.set_value(None);
    }

    /// Closes the file page (its workers stop).
    pub fn close_file(&self) {
        if self.insights.file.get_untracked().is_some() {
            self.reset_file_page();
            self.insights.file.set(None);
        }
    }

    /// Back from a file's page to the list of files.
    pub fn back_to_files(&self) {
        if address::fragment().contains("file=")
            && let Some(history) = web_sys::window().and_then(|w| w.history().ok())
            && history.back().is_ok()
        {
            return;
        }
        self.choose_tab(HomeTab::Files);
    }

    /// The diff of a change read so far, by `<unit>:<line>`.
    pub fn change_diff(&self, key: &str) -> Option<String> {
        self.insights.diffs.with_value(|diffs| diffs.get(key).cloned())
    }

    /// Reads the diffs of the changes a file's page shows (`read`: each unit and the lines of its
    /// calls) from the units that made them, the first unit first; lines read or asked for
    /// already are not asked again.
    pub fn read_diffs(&self, read: Vec<(u32, Vec<String>)>) {
        if self.insights.file.with_untracked(Option::is_none) {
            return;
        }
        let mut order = Vec::new();
        self.insights.diffs.with_value(|diffs| {
            self.insights.pending.update_value(|pending| {
                self.insights.queued.update_value(|queued| {
                    for (unit, entries) in read {
                        let wanted: Vec<String> =
                            entries.into_iter().filter(|e| !diffs.contains_key(&format!("{unit}:{e}"))).collect();
                        if wanted.is_empty() {
                            continue;
                        }
                        let unit_pending = pending.entry(unit).or_default();
                        for entry in wanted {
                            if !unit_pending.contains(&entry) {
                                unit_pending.push(entry);
                            }
                        }
                        if queued.insert(unit) {
                            order.push(unit);
                        }
                    }
                });
            });
        });
        // A unit listed from the cache whose files were not found cannot be read.
        let unreadable: Vec<u32> = self.units.with_value(|units| {
            order.iter().copied().filter(|&u| units.get(u as usize).is_none_or(|u| u.files.is_empty())).collect()
        });
        if !unreadable.is_empty() {
            // Their changes keep their counts: no text can be drawn.
            let page = self.insights.page_number.get_value();
            for unit in &unreadable {
                let entries = self.insights.pending.try_update_value(|p| p.remove(unit)).flatten().unwrap_or_default();
                self.insights.asking.update_value(|a| {
                    a.insert(*unit, (page, entries));
                });
                self.diffs_answered(*unit, Vec::new());
            }
            order.retain(|u| !unreadable.contains(u));
        }
        if order.is_empty() {
            return;
        }
        self.prepare_diffs();
        let sizes = self.unit_sizes();
        self.insights.pool.with_value(|pool| {
            if let Some(pool) = pool {
                pool.set_sizes(sizes);
                pool.push(order, Vec::new());
            }
        });
    }

    /// Starts the workers that read files' changes again, if none run: the Files tab shows.
    pub fn prepare_diffs(&self) {
        if self.insights.pool.with_value(Option::is_some) || self.units.with_value(Vec::is_empty) {
            return;
        }
        let state = *self;
        let make = move |unit: u32| {
            let path = state.insights.file.get_untracked()?.path;
            // A unit queued for a page since closed has nothing left to read.
            let entries = state.insights.pending.try_update_value(|p| p.remove(&unit)).flatten()?;
            let page = state.insights.page_number.get_value();
            state.insights.asking.update_value(|a| {
                a.insert(unit, (page, entries.clone()));
            });
            state.unit_request(unit, |paths, _| UnitRequest::ChangeDiffs { paths, entries, file: path })
        };
        let on_event = move |event: PoolEvent| {
            if let PoolEvent::Answer { unit, reply } = event {
                let diffs = match reply {
                    Ok((UnitReply::ChangeDiffs { diffs }, _)) => diffs.into_iter().map(|d| (d.entry, d.html)).collect(),
                    _ => Vec::new(),
                };
                state.diffs_answered(unit, diffs);
            }
        };
        match Pool::start(&self.workers(), Vec::new(), self.unit_sizes(), worker_count(), true, make, on_event) {
            Ok(pool) => self.insights.pool.set_value(Some(pool)),
            Err(error) => web_sys::console::warn_1(&format!("sessionscope files: {error}").into()),
        }
    }

    /// A unit answered the diffs of its changes: those it did not draw have no text in the log.
    fn diffs_answered(&self, unit: u32, drawn: Vec<(String, String)>) {
        self.insights.queued.update_value(|queued| {
            queued.remove(&unit);
        });
        let asked = self.insights.asking.try_update_value(|a| a.remove(&unit)).flatten();
        // An answer for the page of another file (or none asked) is let go.
        let Some((_, asked)) = asked.filter(|(page, _)| *page == self.insights.page_number.get_value()) else {
            return;
        };
        self.insights.diffs.update_value(|diffs| {
            for (entry, html) in drawn {
                diffs.insert(format!("{unit}:{entry}"), html);
            }
            // Lines asked for and not answered: the log holds no text of their change.
            for entry in asked {
                diffs.entry(format!("{unit}:{entry}")).or_default();
            }
        });
        if let Some(opened) = self.insights.file_opened_ms.try_update_value(Option::take).flatten() {
            web_sys::console::debug_1(
                &format!("sessionscope files: first diffs in {:.0} ms", now_ms() - opened).into(),
            );
        }
        self.insights.diffs_changed.update(|n| *n += 1);
    }

    /// Whether the diffs of unit `unit`'s changes are still being read.
    pub fn reading_diffs_of(&self, unit: u32) -> bool {
        self.insights.queued.with_value(|q| q.contains(&unit))
    }

    /// Versions of files a walk found aside (`file-history/<session>/<backup>`).
    pub(super) fn keep_versions(&self, found: Vec<LaterFile>) {
        if found.is_empty() {
            return;
        }
        self.insights.versions.update_value(|versions| {
            for file in found {
                if let Some((session, backup)) = kept_version(&file.path) {
                    versions.insert((session.to_owned(), backup.to_owned()), file);
                }
            }
        });
    }

    /// Forgets the versions found by an earlier walk.
    pub(super) fn forget_versions(&self) {
        self.insights.versions.update_value(HashMap::clear);
    }

    /// Whether the walk found the file of a kept version (`session` id, `backup` name).
    pub fn has_version_file(&self, session: &str, backup: &str) -> bool {
        self.insights.versions.with_value(|v| v.contains_key(&(session.to_owned(), backup.to_owned())))
    }

    /// The text of a kept version (at most `max_bytes`; text that is not UTF-8 is read lossily),
    /// or why it cannot be read.
    pub async fn version_text(&self, session: &str, backup: &str, max_bytes: f64) -> Result<String, String> {
        let file = self.insights.versions.with_value(|v| v.get(&(session.to_owned(), backup.to_owned())).cloned());
        let file = file.ok_or_else(|| format!("{backup} was not found by the walk"))?;
        let file = file.file().await.map_err(|e| format!("{backup}: {e}"))?;
        if file.size() > max_bytes {
            return Err(format!("{backup} is larger than {} bytes", max_bytes as u64));
        }
        let bytes = crate::platform::files::read_whole(&file).await.map_err(|e| format!("{backup}: {e}"))?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }

    /// Keeps the units' insights for a remembered folder (after a whole pass only, as the
    /// trigram sets: insights whose files changed since are not used).
    pub(super) fn save_insights(&self) -> impl Future<Output = ()> + 'static {
        let id = self.remembered_id();
        let units: Vec<(u32, Vec<FileStamp>)> = self.units.with_value(|units| {
            units
                .iter()
                .enumerate()
                .filter_map(|(u, unit)| Some((u as u32, unit.insights.clone().filter(|read| !read.is_empty())?)))
                .collect()
        });
        let state = *self;
        async move {
            let Some(id) = id else { return };
            let started = now_ms();
            let encoded = state.insights_worker().ask(InsightsRequest::Encode { units }).await;
            let saved = match encoded {
                Ok((InsightsReply::Encoded, buffers)) => match buffers.first() {
                    Some(buffer) => {
                        let bytes = crate::wire::bytes_of(buffer);
                        state
                            .folders()
                            .save_insights(&id, &bytes)
                            .await
                            .map(|()| bytes.len())
                            .map_err(|e| e.to_string())
                    }
                    None => Err("no bytes".to_owned()),
                },
                Ok(_) => Err("another answer".to_owned()),
                Err(error) => Err(error.to_string()),
            };
            let said = match saved {
                Ok(bytes) => format!("{} KB in {:.0} ms", bytes / 1024, now_ms() - started),
                Err(why) => format!("not saved: {why}"),
            };
            web_sys::console::debug_1(&format!("sessionscope history: insights {said}").into());
        }
    }
}
