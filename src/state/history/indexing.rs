//! The index pass of a history: the walk of a drop or a folder, batch by batch, and the index of
//! its units in a pool of workers, the newest first, as the walk finds them; units a remembered
//! folder's cached index holds unchanged are answered from it.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use futures::future::LocalBoxFuture;
use leptos::prelude::*;
use sessionscope_engine::history::FileProblem;

use super::{HistoryRow, HistoryState, HistoryUnit, Pass, problems_of, stamps_of, unit_failure};
use crate::client::handle::StartError;
use crate::client::intake::Dropped;
use crate::client::picked::{Picked, PickedFile};
use crate::client::pool::{Pool, PoolEvent, worker_count};
use crate::logic::opening::{self, Opens};
use crate::logic::sort;
use crate::platform::schedule::{Burst, now_ms};
use crate::wire::limits::HOLD_MAX_BYTES;
use crate::wire::messages::UnitReply;

/// Units this big are indexed after the others.
const BIG_UNIT_BYTES: f64 = 16.0 * 1024.0 * 1024.0;
/// How many of the newest units are read smallest first, so the first rows show soon.
const LEAD_UNITS: usize = 8;

/// The index pass's part of the history's state.
#[derive(Clone, Copy)]
pub struct IndexPass {
    /// How far the index got (`None` before any).
    pub pass: RwSignal<Option<Pass>>,
    pub(super) pool: StoredValue<Option<Pool>, LocalStorage>,
    pub(super) walk: StoredValue<Walk, LocalStorage>,
    /// Index workers started when a folder was dropped or picked, loading while the folder is
    /// remembered and its cached index is read: the walk takes them.
    pub(super) prewarmed: StoredValue<Option<Pool>, LocalStorage>,
    /// The problems of each unit answered in this pass (its rows are in `rows`), for the cache.
    pub(super) answered: StoredValue<HashMap<u32, Vec<FileProblem>>>,
    /// Units listed from the cache that changed: their answer replaces their rows.
    pub(super) replacing: StoredValue<HashSet<u32>>,
    /// A session chosen before its files were found (listed from the cache), and the message.
    pub(super) pending_open: StoredValue<Option<(usize, Option<String>)>>,
    /// The home's redraws while the index runs, one per burst of answers.
    pub(super) redraw: StoredValue<Burst, LocalStorage>,
    /// Whether the last redraw drew any session.
    pub(super) rows_drawn: StoredValue<bool>,
    /// A remembered folder of one session is indexed as a history, to be followed, and its
    /// session opens once indexed: with the files its walk left out by name and could not read,
    /// for the load summary (as a folder of one session opened directly lists them).
    pub(super) open_only_session: StoredValue<Option<(Vec<String>, Vec<FileProblem>)>>,
}

impl IndexPass {
    pub(super) fn new() -> IndexPass {
        IndexPass {
            pass: RwSignal::new(None),
            pool: StoredValue::new_local(None),
            walk: StoredValue::new_local(Walk::default()),
            prewarmed: StoredValue::new_local(None),
            answered: StoredValue::new(HashMap::new()),
            replacing: StoredValue::new(HashSet::new()),
            pending_open: StoredValue::new(None),
            open_only_session: StoredValue::new(None),
            redraw: StoredValue::new_local(Burst::default()),
            rows_drawn: StoredValue::new(false),
        }
    }
}

/// A drop being walked: its batches are held until they make more than one session, then
/// indexed as they come.
#[derive(Default)]
pub(super) struct Walk {
    /// Which drop it is: a batch of an older drop (or of a cancelled one) is let go.
    pub(super) generation: u64,
    pub(super) held: Picked,
    pub(super) held_units: Vec<HistoryUnit>,
    pub(super) indexing: bool,
    /// The history was listed from its cache: the walk checks it ([`HistoryState::reconcile`]).
    pub(super) reconciling: bool,
    /// Workers started as the drop began to be walked, so they are loaded when its first
    /// sessions are found.
    pub(super) warm_pool: Option<Pool>,
}

impl HistoryState {
    /// Files picked with a file input (files, or a folder): read as [`Self::open_picked`] reads
    /// them, agent databases made their record streams first.
    pub fn open_file_list(&self, list: &web_sys::FileList) {
        // The list is read now: the input is cleared once this returns.
        let picked = crate::client::intake::from_file_list(list);
        let state = *self;
        leptos::task::spawn_local(async move {
            let picked = state.intake().picked(picked).await;
            state.open_picked(picked);
        });
    }

    /// Files the operating system opened with the installed app: read as picked files are.
    pub fn open_launched(&self, launched: Vec<web_sys::FileSystemFileHandle>) {
        let state = *self;
        leptos::task::spawn_local(async move {
            let picked = state.intake().launched(launched).await;
            state.open_picked(picked);
        });
    }

    /// Files dropped or picked: a folder of more than one session is indexed as a history, and
    /// so are loose files of many sessions or of more than a view holds ([`opening::opens`]);
    /// anything else (a few sessions' files, a folder of one session) opens in the viewer at once.
    pub fn open_picked(&self, mut picked: Picked) {
        self.begin_walk();
        self.keep_versions(std::mem::take(&mut picked.versions));
        self.remembered.source.set_value(None);
        if !picked.from_folder && !opening::may_be_history(picked.files.len(), bytes_of(&picked.files), HOLD_MAX_BYTES)
        {
            self.loading.open(picked);
            return;
        }
        let state = *self;
        leptos::task::spawn_local(async move {
            let units = HistoryState::units_of(&picked.files).await;
            if opens_of(picked.from_folder, &units) == Opens::History {
                state.start_index(units, problems_of(picked.skipped_by_name, picked.unreadable), false);
            } else {
                state.close();
                state.loading.open(picked);
            }
        });
    }

    /// A drop starts being walked: answers its generation, for [`Self::add_walked`] and
    /// [`Self::end_walk`]. Whatever an earlier walk still sends is let go.
    pub fn begin_walk(&self) -> u64 {
        self.forget_versions();
        self.index.open_only_session.set_value(None);
        self.index.walk.update_value(|walk| {
            *walk = Walk { generation: walk.generation + 1, ..Walk::default() };
        });
        self.index.walk.with_value(|walk| walk.generation)
    }

    /// A drop starts being walked, and index workers start loading: if it is a history, they
    /// are ready when its first project is walked.
    pub fn begin_drop_walk(&self) -> u64 {
        self.remembered.source.set_value(None);
        self.begin_walk_with_workers(true)
    }

    /// A walk begins; with `warm`, index workers start loading at once (or the ones
    /// [`Self::prewarm`] started are taken).
    pub(super) fn begin_walk_with_workers(&self, warm: bool) -> u64 {
        let generation = self.begin_walk();
        let prewarmed = self.index.prewarmed.try_update_value(Option::take).flatten();
        if warm {
            let warm = prewarmed.or_else(|| self.index_pool(Vec::new(), Vec::new(), true).ok());
            self.index.walk.update_value(|walk| walk.warm_pool = warm);
        }
        generation
    }

    /// Index workers start loading now, for a folder about to be walked: fetching and compiling
    /// their code takes longer than remembering the folder and reading its cached index.
    pub fn prewarm(&self) {
        if self.index.prewarmed.with_value(Option::is_none) {
            let pool = self.index_pool(Vec::new(), Vec::new(), true).ok();
            self.index.prewarmed.set_value(pool);
        }
    }

    /// Walks a drop into the history (or, for files or one session, into the viewer).
    pub async fn walk_dropped(&self, dropped: Dropped) {
        let started = now_ms();
        let generation = self.begin_drop_walk();
        let state = *self;
        let mut on_batch = move |batch: Picked| -> LocalBoxFuture<'static, ()> {
            Box::pin(async move { state.add_walked(generation, batch).await })
        };
        let found = self.intake().walk_drop(dropped, &mut on_batch).await;
        let message = format!("sessionscope drop: {found} files walked in {:.0} ms", now_ms() - started);
        web_sys::console::debug_1(&message.into());
        self.end_walk(generation);
    }

    fn is_current_walk(&self, generation: u64) -> bool {
        self.index.walk.with_value(|walk| walk.generation == generation)
    }

    /// A batch of a drop's files, walked: once the drop is a history (a folder of more than one
    /// session, or loose files of many: [`opening::opens`]) they are indexed, batch by batch as
    /// they come.
    pub async fn add_walked(&self, generation: u64, mut batch: Picked) {
        if !self.is_current_walk(generation) {
            return;
        }
        self.keep_versions(std::mem::take(&mut batch.versions));
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
        if self.index.walk.with_value(|walk| walk.reconciling) {
            self.reconcile(units, problems_of(batch.skipped_by_name, batch.unreadable));
            return;
        }
        if self.index.walk.with_value(|walk| walk.indexing) {
            self.add_units(units, problems_of(batch.skipped_by_name, batch.unreadable));
            return;
        }
        let start = self.index.walk.try_update_value(|walk| {
            walk.held.from_folder |= batch.from_folder;
            walk.held.skipped_by_name.extend(batch.skipped_by_name);
            walk.held.unreadable.extend(batch.unreadable);
            walk.held.files.extend(batch.files);
            walk.held_units.extend(units);
            let start = opens_of(walk.held.from_folder, &walk.held_units) == Opens::History;
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
            self.start_index(units, skipped, true);
        }
    }

    /// The drop is walked: the index finishes with the units it has, or, if the drop held one
    /// session or loose files, they open in the viewer as before.
    pub fn end_walk(&self, generation: u64) {
        if !self.is_current_walk(generation) {
            return;
        }
        if self.index.walk.with_value(|walk| walk.reconciling) {
            self.index.walk.update_value(|walk| *walk = Walk { generation: walk.generation + 1, ..Walk::default() });
            self.end_reconcile();
            return;
        }
        let (walk, held_units) = self
            .index
            .walk
            .try_update_value(|walk| (std::mem::take(&mut walk.held), std::mem::take(&mut walk.held_units)))
            .unwrap_or_default();
        let indexing = self.index.walk.with_value(|walk| walk.indexing);
        // A remembered folder is followed whatever it holds: one session is indexed as a
        // history too (and opens once indexed), so that it is followed as it grows.
        let remembered = self.remembered.source.with_value(Option::is_some);
        if !indexing && remembered && walk.from_folder && held_units.len() == 1 {
            self.index.walk.update_value(|w| {
                w.generation += 1;
                w.warm_pool = None;
            });
            self.index.open_only_session.set_value(Some((walk.skipped_by_name.clone(), walk.unreadable.clone())));
            self.start_index(held_units, problems_of(walk.skipped_by_name, walk.unreadable), false);
            return;
        }
        self.index.walk.update_value(|walk| {
            walk.generation += 1;
            walk.warm_pool = None;
        });
        if indexing {
            self.index.pass.update(|pass| {
                if let Some(pass) = pass {
                    pass.walking = false;
                }
            });
            self.index.pool.with_value(|pool| {
                if let Some(pool) = pool {
                    pool.close();
                }
            });
        } else {
            self.close();
            self.loading.open(walk);
        }
    }

    /// Starts indexing a history: the newest units first, so the latest sessions show at once,
    /// but the biggest last, so none holds the first rows back.
    ///
    /// With `more_coming`, [`Self::add_units`] adds units as a walk finds them, until
    /// [`Self::end_walk`].
    pub fn start_index(&self, units: Vec<HistoryUnit>, problems: Vec<FileProblem>, more_coming: bool) {
        web_sys::console::debug_1(&format!("sessionscope history: {} units, indexing starts", units.len()).into());
        let order = index_order(&units, 0);
        let sizes: Vec<f64> = units.iter().map(|u| u.bytes).collect();
        let pass = Pass { walking: more_coming, ..Pass::new(&units, &order) };
        self.begin_history(units, Vec::new(), HashMap::new(), problems, pass);
        let order = self.answer_from_cache(order);
        self.bump();
        // A drop's workers were started when it began to be walked.
        let warm = self.index.walk.try_update_value(|walk| walk.warm_pool.take()).flatten().filter(|_| more_coming);
        let started = match warm {
            Some(pool) => {
                pool.push(order, sizes);
                Ok(pool)
            }
            None => self.index_pool(order, sizes, more_coming),
        };
        match started {
            Ok(pool) => self.index.pool.set_value(Some(pool)),
            Err(message) => {
                self.problems
                    .update_value(|p| p.push(FileProblem { path: String::new(), reason: message.to_string() }));
                self.end_pass(false);
            }
        }
    }

    /// Units a walk found in a history listed from its cache: an unchanged one gets its files, a
    /// changed or new one is read.
    pub(super) fn reconcile(&self, walked: Vec<HistoryUnit>, problems: Vec<FileProblem>) {
        let mut to_read = Vec::new();
        let mut found = Vec::new();
        self.remembered.source.with_value(|source| {
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
                    let stamps = stamps_of(&unit.files);
                    // A unit is taken from the cache with its insights, or read again for them.
                    let unchanged = cache.is_some_and(|c| c.lookup(&stamps).is_some())
                        && by_key
                            .get(unit.key.as_str())
                            .is_some_and(|&at| units[at].insights.as_ref().is_some_and(|read| *read == stamps));
                    match by_key.get(unit.key.as_str()) {
                        Some(&at) => placed.push((at, unchanged, unit)),
                        None => added.push(unit),
                    }
                }
                self.index.pass.update(|pass| {
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
                        // An unchanged unit keeps the trigram set and insights the cache gave it.
                        let (trigrams, insights) = if unchanged {
                            (units[at].trigrams.take(), units[at].insights.take())
                        } else {
                            (None, None)
                        };
                        units[at] = HistoryUnit { trigrams, insights, ..unit };
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
        self.index.answered.update_value(|a| {
            for unit in &to_read {
                a.remove(unit);
            }
        });
        self.index.replacing.update_value(|r| r.extend(to_read.iter().copied()));
        self.problems.update_value(|p| p.extend(problems));
        if !to_read.is_empty() {
            self.read_in_pass(to_read);
        }
        if let Some((index, uuid)) = self.index.pending_open.get_value()
            && self.row(index).is_some_and(|r| found.contains(&(r.unit as usize)))
        {
            self.index.pending_open.set_value(None);
            self.open(index, uuid);
        }
        self.bump_soon();
    }

    /// Queues units to be read in the running pass, starting its pool if it has none.
    fn read_in_pass(&self, order: Vec<u32>) {
        let sizes = self.unit_sizes();
        let queued = self.index.pool.with_value(|pool| {
            pool.as_ref().map(|pool| {
                pool.set_sizes(sizes.clone());
                pool.push(order.clone(), Vec::new());
            })
        });
        if queued.is_none() {
            let walking = self.index.pass.get_untracked().is_some_and(|p| p.walking);
            match self.index_pool(order, sizes, walking) {
                Ok(pool) => self.index.pool.set_value(Some(pool)),
                Err(message) => self
                    .problems
                    .update_value(|p| p.push(FileProblem { path: String::new(), reason: message.to_string() })),
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
            self.index.answered.update_value(|a| {
                a.remove(unit);
            });
        }
        self.index.pass.update(|pass| {
            if let Some(pass) = pass {
                pass.walking = false;
                pass.units -= gone.len().min(pass.units);
                pass.units_done -= gone.len().min(pass.units_done);
            }
        });
        let closed = self.index.pool.with_value(|pool| pool.as_ref().map(Pool::close));
        if closed.is_none() {
            self.end_pass(false);
        }
        self.bump();
    }

    /// A pool of workers that index units of this history.
    fn index_pool(&self, order: Vec<u32>, sizes: Vec<f64>, more_coming: bool) -> Result<Pool, StartError> {
        let state = *self;
        let make = move |unit: u32| state.index_request(unit);
        let on_event = move |event: PoolEvent| state.on_index_event(event);
        Pool::start(&self.workers(), order, sizes, worker_count(), more_coming, make, on_event)
    }

    /// More units of the history being indexed, as the walk of a drop finds them.
    fn add_units(&self, units: Vec<HistoryUnit>, problems: Vec<FileProblem>) {
        if self.index.pool.with_value(Option::is_none) {
            return;
        }
        let first = self.units.with_value(Vec::len) as u32;
        let order = index_order(&units, first);
        let sizes: Vec<f64> = units.iter().map(|u| u.bytes).collect();
        let added = Pass::new(&units, &(0..units.len() as u32).collect::<Vec<_>>());
        self.index.pass.update(|pass| {
            if let Some(pass) = pass {
                pass.units += added.units;
                pass.files += added.files;
                pass.bytes += added.bytes;
            }
        });
        self.problems.update_value(|p| p.extend(problems));
        self.units.update_value(|all| all.extend(units));
        let order = self.answer_from_cache(order);
        self.index.pool.with_value(|pool| {
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
        self.remembered.source.with_value(|source| {
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
        self.index.pass.update(|pass| {
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
            self.index.answered.update_value(|a| {
                a.insert(unit, cached.problems);
            });
        }
        self.bump_soon();
        to_read
    }

    fn on_index_event(&self, event: PoolEvent) {
        match event {
            PoolEvent::Answer { unit, reply } => {
                let (files, bytes) =
                    self.units.with_value(|u| u.get(unit as usize).map_or((0, 0.0), |u| (u.files.len(), u.bytes)));
                match reply {
                    Ok((UnitReply::Indexed { index, read, insights, .. }, buffers)) => {
                        self.keep_indexed(unit, read, insights, &buffers);
                        // A unit listed from the cache and changed since has rows to replace.
                        if self.index.replacing.try_update_value(|r| r.remove(&unit)).unwrap_or(false) {
                            self.replace_rows(unit, index.rows);
                        } else {
                            self.rows.update_value(|rows| {
                                rows.extend(index.rows.into_iter().map(|row| Arc::new(HistoryRow { unit, row })))
                            });
                        }
                        self.index.answered.update_value(|a| {
                            a.insert(unit, index.problems.clone());
                        });
                        self.problems.update_value(|p| p.extend(index.problems));
                    }
                    Ok(_) => {}
                    Err(error) => {
                        let key = self.unit_key(unit);
                        let failed = FileProblem { path: key, reason: unit_failure(error) };
                        self.failed_units.update_value(|f| f.push(failed));
                    }
                }
                // Counted now, drawn with the next redraw: a redraw per answer kept the page busy
                // on the cores the workers read with.
                self.index.pass.update_untracked(|pass| {
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
        // The rows of the last answers are drawn now, with the status that says the pass ended:
        // not up to 300 ms later, under an "Indexed" headline that still counts fewer sessions.
        self.bump();
        self.index.pass.update(|pass| {
            if let Some(pass) = pass
                && pass.running()
            {
                pass.ended_ms = Some(now_ms());
                pass.cancelled = cancelled;
            }
        });
        let state = *self;
        // The pool may be running this very callback: it goes afterwards.
        leptos::task::spawn_local(async move { state.index.pool.set_value(None) });
        // After a whole pass the trigram sets, word indexes and insights are kept beside the
        // index (the tabs' reports summed first: a tab opened now waits for no cache to be
        // written).
        let beside: Option<LocalBoxFuture<'static, ()>> = (!cancelled).then(|| {
            self.prepare_insights();
            let (trigrams, words, insights) = (self.save_trigrams(), self.save_words(), self.save_insights());
            Box::pin(async move {
                trigrams.await;
                words.await;
                insights.await;
            }) as LocalBoxFuture<'static, ()>
        });
        self.save_cache_then(beside);
        if !cancelled {
            self.seen_baseline();
        }
        if !cancelled && self.index.open_only_session.with_value(Option::is_some) && self.rows.with_value(Vec::len) == 1
        {
            self.open(0, None);
        }
        if !cancelled {
            self.follow();
        }
        // Once the pool has gone.
        leptos::task::spawn_local(async move { state.prepare_search() });
        self.bump();
        web_sys::console::debug_1(
            &format!(
                "sessionscope history: indexed {} sessions in {:.0} ms; the page's memory {:.1} MB",
                self.rows.with_value(Vec::len),
                self.index.pass.get_untracked().map_or(0.0, |p| p.seconds() * 1000.0),
                crate::platform::page::page_memory_bytes() / 1e6
            )
            .into(),
        );
    }

    /// Stops the index, and the walk of its drop; the sessions indexed so far stay.
    pub fn cancel(&self) {
        self.index.walk.update_value(|walk| walk.generation += 1);
        self.index.pass.update(|pass| {
            if let Some(pass) = pass {
                pass.walking = false;
            }
        });
        self.index.pool.set_value(None);
        self.end_pass(true);
    }
}

/// The order to index units in (their ids from `first`): the newest first, so the latest
/// sessions show at once, but the biggest last, so none holds the first rows back.
fn index_order(units: &[HistoryUnit], first: u32) -> Vec<u32> {
    let mut order: Vec<u32> = (0..units.len() as u32).collect();
    let newest = |unit: &HistoryUnit| unit.files.iter().map(|f| f.file.last_modified()).fold(0.0, f64::max);
    let big = |unit: &HistoryUnit| unit.bytes >= BIG_UNIT_BYTES;
    sort::sort_by(&mut order, |&a, &b| {
        let (a, b) = (&units[a as usize], &units[b as usize]);
        big(a).cmp(&big(b)).then(newest(b).total_cmp(&newest(a)))
    });
    // The first rows wait for the first unit read: of the newest few, the smallest go first.
    let mut rest = order.split_off(order.len().min(LEAD_UNITS));
    sort::sort_by(&mut order, |&a, &b| units[a as usize].bytes.total_cmp(&units[b as usize].bytes));
    order.append(&mut rest);
    order.into_iter().map(|u| u + first).collect()
}

/// The bytes of files, as a count a limit is compared with.
fn bytes_of(files: &[PickedFile]) -> u64 {
    files.iter().map(|f| f.size() as u64).sum()
}

/// Where units of files open: as a history or in the viewer ([`opening::opens`]).
fn opens_of(from_folder: bool, units: &[HistoryUnit]) -> Opens {
    let bytes = units.iter().map(|u| u.bytes as u64).sum();
    opening::opens(from_folder, units.len(), bytes, HOLD_MAX_BYTES)
}
