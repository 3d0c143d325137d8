//! Following a remembered folder while agents write to it: its files are looked at again through
//! their handles, and what changed is read again.
//!
//! Every second, the files of the open session and of sessions written to in the last minutes
//! are asked for (`getFile` answers their size and time without reading them). Every ten
//! seconds, or less often where walking takes long (a walk may cost a tenth of the time), and not
//! while the person is searching (a walk waits until 3 s after the last question), the
//! whole folder is walked again, for new sessions, new subagent files, files of older sessions
//! written to again and files that went away. Nothing is looked at while the tab is hidden or an index runs. A unit that changed
//! is indexed again (its rows replace the old ones, the cached index is saved); the open session,
//! if it changed, is read again and shown in place ([`crate::state::LoadState::refresh`]).

use std::collections::{HashMap, HashSet};

use futures::future::LocalBoxFuture;
use leptos::prelude::*;

use super::{HistoryState, HistoryUnit};
use crate::client::picked::{Picked, PickedFile};
use crate::client::pool::{Pool, PoolEvent, worker_count};
use crate::logic::sort;
use crate::platform::page;
use crate::platform::probe::{self, Said};
use crate::platform::schedule::now_ms;
use crate::wire::messages::UnitReply;

/// How often the open and recently written sessions are looked at.
pub const LOOK_EVERY_MS: u32 = 1000;
/// The whole folder is walked again this often at most...
const WALK_EVERY_MS: f64 = 10_000.0;
/// ...and no sooner than this many times the last walk took, so that walking a big history
/// costs at most a tenth of the time.
const WALK_SHARE: f64 = 10.0;
/// No walk begins this soon after a ranked search was asked: a walk of a big history keeps a
/// core busy for a second or two, which the answers of a person typing would wait for.
const QUIET_AFTER_SEARCH_MS: f64 = 3000.0;
/// A session written to this recently is looked at every second.
pub(super) const HOT_FOR_MS: f64 = 10.0 * 60.0 * 1000.0;

/// The following's part of the history's state.
#[derive(Clone, Copy)]
pub struct Following {
    /// The remembered folder on screen is followed: its files are looked at for changes.
    pub on: RwSignal<bool>,
    pub(super) follow: StoredValue<Option<Follow>, LocalStorage>,
    /// Units read again while following.
    pub(super) refresh_pool: StoredValue<Option<Pool>, LocalStorage>,
    /// Units to read again once the refresh pool is done.
    pub(super) read_next: StoredValue<Vec<u32>>,
}

impl Following {
    pub(super) fn new() -> Following {
        Following {
            on: RwSignal::new(false),
            follow: StoredValue::new_local(None),
            refresh_pool: StoredValue::new_local(None),
            read_next: StoredValue::new(Vec::new()),
        }
    }
}

/// A follow in progress: dropping it stops the timer. Files on disk tell no one when they change:
/// the timer is how a page learns it, at its cadence.
pub struct Follow {
    _timer: gloo::timers::callback::Interval,
    looking: bool,
    walking: bool,
    /// When the folder is walked next (the page's clock).
    next_walk_ms: f64,
    /// Units that changed while followed, and when (milliseconds since the epoch).
    changed_at: HashMap<u32, f64>,
    /// What following has cost so far, for the page's diagnostics and the benchmark.
    pub stats: FollowStats,
}

/// What following has done so far.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FollowStats {
    pub looks: u64,
    pub walks: u64,
    /// Files asked for (`getFile`), by looks and by walks.
    pub files_asked: u64,
    /// Units read again because they changed, or new.
    pub units_read: u64,
    /// Milliseconds the page spent on looks and walks (awaiting included).
    pub busy_ms: f64,
}

/// What a look or a walk found.
#[derive(Default)]
struct Changes {
    /// Units whose files changed: their index, and their files as they are now.
    changed: Vec<(u32, Vec<PickedFile>)>,
    added: Vec<HistoryUnit>,
    removed: Vec<u32>,
    files_asked: u64,
}

/// Whether a file is not what it was: another size or another time.
fn differs(before: &PickedFile, now: &PickedFile) -> bool {
    before.file.size() != now.file.size() || before.file.last_modified() != now.file.last_modified()
}

impl HistoryState {
    /// Starts following the remembered folder on screen, unless it is followed already.
    pub(super) fn follow(&self) {
        if self.remembered.source.with_value(Option::is_none) || self.following.follow.with_value(Option::is_some) {
            return;
        }
        let state = *self;
        let timer = gloo::timers::callback::Interval::new(LOOK_EVERY_MS, move || state.look());
        self.following.follow.set_value(Some(Follow {
            _timer: timer,
            looking: false,
            walking: false,
            next_walk_ms: now_ms() + WALK_EVERY_MS,
            changed_at: HashMap::new(),
            stats: FollowStats::default(),
        }));
        self.following.on.set(true);
    }

    pub(super) fn stop_following(&self) {
        self.following.follow.set_value(None);
        self.following.on.set(false);
    }

    /// What following has cost so far.
    pub fn follow_stats(&self) -> Option<FollowStats> {
        self.following.follow.with_value(|f| f.as_ref().map(|f| f.stats))
    }

    /// The tab is shown again: what was written meanwhile is looked for at once.
    pub fn look_now(&self) {
        if self.following.on.get_untracked() {
            self.look();
        }
    }

    fn look(&self) {
        let hidden = page::hidden();
        // Following gives way to an index or a search of the history.
        let indexing = self.index.pass.get_untracked().is_some_and(|p| p.running())
            || self.search.pass.get_untracked().is_some_and(|p| p.running());
        if hidden || indexing {
            probe::say(Said::FollowSkipped { hidden });
            return;
        }
        let now = now_ms();
        let searching = now - self.ranked.asked_ms.get_value() < QUIET_AFTER_SEARCH_MS;
        let Some(Some((look, walk))) = self.following.follow.try_update_value(|f| {
            f.as_mut().map(|f| {
                let look = !f.looking;
                let walk = !f.walking && !searching && now >= f.next_walk_ms;
                f.looking |= look;
                f.walking |= walk;
                (look, walk)
            })
        }) else {
            return;
        };
        let state = *self;
        if look {
            leptos::task::spawn_local(async move {
                let started = now_ms();
                let changes = state.look_at_hot_units().await;
                state.take_changes(changes, started, false);
            });
        }
        if walk {
            leptos::task::spawn_local(async move {
                let started = now_ms();
                let changes = state.walk_again().await;
                let took = now_ms() - started;
                let stats = state.follow_stats().unwrap_or_default();
                web_sys::console::debug_1(
                    &format!(
                        "sessionscope follow: walk {} in {took:.0} ms; so far {} looks, {} walks, {} files asked, {} units read, {:.0} ms busy",
                        stats.walks + 1,
                        stats.looks,
                        stats.walks,
                        stats.files_asked,
                        stats.units_read,
                        stats.busy_ms
                    )
                    .into(),
                );
                state.take_changes(changes, started, true);
            });
        }
    }

    /// Applies what a look or a walk found, and counts what it cost.
    fn take_changes(&self, changes: Option<Changes>, started: f64, walk: bool) {
        let read = changes.as_ref().map_or(0, |c| c.changed.len() + c.added.len());
        let asked = changes.as_ref().map_or(0, |c| c.files_asked);
        if let Some(changes) = changes {
            self.apply(changes);
        }
        let took = now_ms() - started;
        probe::say(Said::FollowLooked { started_ms: started, units_read: read as u32, walk });
        self.following.follow.update_value(|f| {
            if let Some(f) = f {
                if walk {
                    f.walking = false;
                    // A walk costs at most a tenth of the time it follows.
                    f.next_walk_ms = now_ms() + (took * WALK_SHARE).max(WALK_EVERY_MS);
                    f.stats.walks += 1;
                } else {
                    f.looking = false;
                    f.stats.looks += 1;
                }
                f.stats.files_asked += asked;
                f.stats.units_read += read as u64;
                f.stats.busy_ms += took;
            }
        });
    }

    /// The units looked at every second: the open session's, those whose last message is
    /// recent (a running agent), and those that changed lately while followed.
    fn hot_units(&self) -> HashSet<u32> {
        let now = js_sys::Date::now();
        let mut hot: HashSet<u32> = self.opened_unit.get_value().into_iter().collect();
        self.rows.with_value(|rows| {
            hot.extend(
                rows.iter().filter(|r| r.row.end_ms.is_some_and(|end| now - (end as f64) < HOT_FOR_MS)).map(|r| r.unit),
            )
        });
        self.following.follow.with_value(|f| {
            if let Some(f) = f {
                hot.extend(f.changed_at.iter().filter(|(_, at)| now - **at < HOT_FOR_MS).map(|(u, _)| *u));
            }
        });
        hot
    }

    /// The files of the hot units, asked for again.
    async fn look_at_hot_units(&self) -> Option<Changes> {
        let root = self.remembered.source.with_value(|s| s.as_ref().map(|s| s.folder.handle.clone()))?;
        let hot = self.hot_units();
        let hot: Vec<(u32, Vec<PickedFile>)> = self.units.with_value(|units| {
            hot.iter()
                .filter_map(|&u| units.get(u as usize).map(|unit| (u, unit.files.clone())))
                .filter(|(_, files)| !files.is_empty())
                .collect()
        });
        let mut changes = Changes::default();
        for (unit, before) in hot {
            changes.files_asked += before.len() as u64;
            let now = self.intake().fresh(Some(&root), before.clone()).await;
            if before.iter().zip(&now).any(|(b, n)| differs(b, n)) {
                changes.changed.push((unit, now));
            } else if before.iter().zip(&now).any(|(b, n)| b.handle.is_none() && n.handle.is_some()) {
                // The files of a dropped folder keep the handles found for them.
                self.units.update_value(|units| {
                    if let Some(at) = units.get_mut(unit as usize)
                        && at.files.len() == now.len()
                    {
                        at.files = now;
                    }
                });
            }
        }
        Some(changes)
    }

    /// The whole folder walked again: new, changed and removed units.
    async fn walk_again(&self) -> Option<Changes> {
        let handle = self.remembered.source.with_value(|s| s.as_ref().map(|s| s.folder.handle.clone()))?;
        let found = std::rc::Rc::new(std::cell::RefCell::new(Vec::<PickedFile>::new()));
        let into = found.clone();
        let mut on_batch = move |batch: Picked| -> LocalBoxFuture<'static, ()> {
            into.borrow_mut().extend(batch.files);
            Box::pin(async {})
        };
        if let Err(reason) = self.intake().walk_folder(&handle, &mut on_batch).await {
            // The folder went away or its permission was taken back: what is shown stays.
            let message = format!("{} is no longer followed: {reason}. What was read stays.", handle.name());
            if self.opened.get_untracked().is_some() {
                // The session on screen says it too.
                self.loading.notify(message.clone());
            }
            self.remembered.error.set(Some(message));
            self.stop_following();
            return None;
        }
        let files = found.take();
        let mut changes = Changes { files_asked: files.len() as u64, ..Changes::default() };
        let walked = HistoryState::units_of(&files).await;
        self.units.with_value(|units| {
            let by_key: HashMap<&str, usize> = units
                .iter()
                .enumerate()
                .filter(|(_, u)| !u.files.is_empty())
                .map(|(i, u)| (u.key.as_str(), i))
                .collect();
            let mut seen = HashSet::new();
            for unit in walked {
                match by_key.get(unit.key.as_str()) {
                    Some(&at) => {
                        seen.insert(at);
                        let before = &units[at].files;
                        let same = before.len() == unit.files.len()
                            && before.iter().zip(&unit.files).all(|(b, n)| b.path == n.path && !differs(b, n));
                        if !same {
                            changes.changed.push((at as u32, unit.files));
                        }
                    }
                    None => changes.added.push(unit),
                }
            }
            changes.removed = by_key.values().filter(|at| !seen.contains(*at)).map(|&at| at as u32).collect();
        });
        Some(changes)
    }

    /// Takes what changed into the history: removed units leave, changed and new ones are read
    /// again, and the open session, if it changed, is shown as it is now.
    fn apply(&self, changes: Changes) {
        let Changes { changed, added, removed, .. } = changes;
        if changed.is_empty() && added.is_empty() && removed.is_empty() {
            return;
        }
        let opened_unit = self.opened_unit.get_value();
        let first_added = self.units.with_value(Vec::len) as u32;
        let now = js_sys::Date::now();
        self.following.follow.update_value(|f| {
            if let Some(f) = f {
                let added = (0..added.len() as u32).map(|i| first_added + i);
                f.changed_at.extend(changed.iter().map(|(u, _)| *u).chain(added).map(|u| (u, now)));
            }
        });
        let mut to_read = Vec::new();
        let mut shrank = None;
        self.units.update_value(|units| {
            for (unit, files) in changed {
                let Some(at) = units.get_mut(unit as usize) else { continue };
                // A look may have seen a newer state than a slower walk that began before it.
                let newest = |files: &[PickedFile]| files.iter().map(|f| f.file.last_modified()).fold(0.0, f64::max);
                if files.len() == at.files.len() && newest(&files) < newest(&at.files) {
                    continue;
                }
                if Some(unit) == opened_unit {
                    shrank = at
                        .files
                        .iter()
                        .zip(&files)
                        .find(|(b, n)| n.file.size() < b.file.size())
                        .map(|(b, _)| b.path.clone())
                        .or(shrank.take());
                }
                at.bytes = files.iter().map(PickedFile::size).sum();
                at.files = files;
                to_read.push(unit);
            }
            for unit in &removed {
                if let Some(at) = units.get_mut(*unit as usize) {
                    at.files.clear();
                    at.bytes = 0.0;
                }
            }
            for unit in added {
                to_read.push(units.len() as u32);
                units.push(unit);
            }
        });
        for unit in &removed {
            self.replace_rows(*unit, Vec::new());
            self.index.answered.update_value(|a| {
                a.remove(unit);
            });
        }
        if let Some(unit) = opened_unit.filter(|u| to_read.contains(u)) {
            let files = self.units.with_value(|u| u.get(unit as usize).map(|u| u.files.clone()).unwrap_or_default());
            let notice = shrank.map(|path| format!("{path} was rewritten since it was read: it was read again whole."));
            self.loading.refresh(files, notice);
        }
        self.read_again(to_read);
        self.bump();
    }

    /// Indexes units again, after the index pass, in a pool of their own.
    fn read_again(&self, order: Vec<u32>) {
        if order.is_empty() {
            self.save_cache();
            return;
        }
        if self.following.refresh_pool.with_value(Option::is_some) {
            // One pool at a time: these are read when it is done.
            self.following.read_next.update_value(|next| next.extend(order));
            return;
        }
        let sizes = self.unit_sizes();
        let state = *self;
        let make = move |unit: u32| state.index_request(unit);
        let on_event = move |event: PoolEvent| match event {
            PoolEvent::Answer { unit, reply } => {
                match reply {
                    Ok((UnitReply::Indexed { index, read, insights, .. }, buffers)) => {
                        // The unit's word index is replaced too: the ranked search counts its
                        // new words without reading it.
                        state.keep_indexed(unit, read, insights, &buffers);
                        let paths: HashSet<String> = state.units.with_value(|units| {
                            units
                                .get(unit as usize)
                                .map(|u| u.files.iter().map(|f| f.path.clone()).collect())
                                .unwrap_or_default()
                        });
                        state.problems.update_value(|p| p.retain(|p| !paths.contains(&p.path)));
                        state.problems.update_value(|p| p.extend(index.problems.iter().cloned()));
                        state.index.answered.update_value(|a| {
                            a.insert(unit, index.problems);
                        });
                        state.replace_rows(unit, index.rows);
                    }
                    Ok(_) => {}
                    Err(error) => {
                        // It may be mid-write: the next look tries again.
                        web_sys::console::debug_1(&format!("sessionscope follow: unit {unit}: {error}").into());
                    }
                }
                state.bump_soon();
            }
            PoolEvent::Finished => {
                state.save_cache();
                state.prepare_insights();
                leptos::task::spawn_local(async move {
                    state.following.refresh_pool.set_value(None);
                    let mut next = state.following.read_next.try_update_value(std::mem::take).unwrap_or_default();
                    sort::sort(&mut next);
                    next.dedup();
                    state.read_again(next);
                });
                state.bump();
            }
        };
        let count = worker_count().min(order.len());
        match Pool::start(&self.workers(), order, sizes, count, false, make, on_event) {
            Ok(pool) => self.following.refresh_pool.set_value(Some(pool)),
            Err(message) => web_sys::console::warn_1(&format!("sessionscope follow: {message}").into()),
        }
    }
}
