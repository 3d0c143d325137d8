//! A search of the whole history: every unit searched in a pool of workers, unit by unit, never
//! holding them all; a unit whose trigram set rules the query out is not read. Hits stream in by
//! unit, and a hit opens its session at the hit.

use std::collections::HashSet;

use leptos::prelude::*;
use sessionscope_engine::history::HistoryHit;
use sessionscope_engine::search::RawText;

use super::{HistoryState, Pass, unit_failure};
use crate::client::handle::StartError;
use crate::client::pool::{Pool, PoolEvent, worker_count};
use crate::platform::schedule::{Burst, now_ms};
use crate::wire::SearchQuery;
use crate::wire::messages::{UnitReply, UnitRequest};

/// The search's part of the history's state.
#[derive(Clone, Copy)]
pub struct HistorySearch {
    pub(super) pool: StoredValue<Option<Pool>, LocalStorage>,
    /// Workers started ahead of the next search, while the history is idle: a search starts with
    /// workers whose code is ready.
    pub(super) prepared: StoredValue<Option<Pool>, LocalStorage>,
    pub results: StoredValue<SearchResults>,
    pub pass: RwSignal<Option<Pass>>,
    pub changed: RwSignal<u64>,
    /// The results' redraws, one per burst of answers.
    redraw: StoredValue<Burst, LocalStorage>,
}

impl HistorySearch {
    pub(super) fn new() -> HistorySearch {
        HistorySearch {
            pool: StoredValue::new_local(None),
            prepared: StoredValue::new_local(None),
            results: StoredValue::new(SearchResults::default()),
            pass: RwSignal::new(None),
            changed: RwSignal::new(0),
            redraw: StoredValue::new_local(Burst::default()),
        }
    }
}

/// A search of the whole history: its hits by unit, in order of arrival.
#[derive(Default)]
pub struct SearchResults {
    pub query: SearchQuery,
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
    /// Units that could not be searched (their worker stopped, three times): the counts are without
    /// them.
    pub failed_units: usize,
}

impl HistoryState {
    /// Searches every unit of the history for `query`.
    pub fn run_search(&self, query: SearchQuery) {
        self.stop_search();
        // A regular expression is checked by the workers (the page has none): one that is not
        // valid stops the search with the reason at the first answer.
        let raw = RawText::of(&query.text, query.regex);
        let (order, ruled_out) = self.units.with_value(|units| {
            let mut seen = HashSet::new();
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
            self.search.pass.set(Some(pass));
        });
        let ruled_out: HashSet<u32> = ruled_out.into_iter().collect();
        let ruled_out = self.rows.with_value(|rows| rows.iter().filter(|r| ruled_out.contains(&r.unit)).count());
        self.search.results.set_value(SearchResults { query, ruled_out, ..SearchResults::default() });
        self.search.changed.update(|n| *n += 1);
        let started = match self.search.prepared.try_update_value(Option::take).flatten() {
            Some(pool) => {
                pool.set_sizes(sizes);
                pool.push(order, Vec::new());
                pool.close();
                Ok(pool)
            }
            None => self.search_pool_of(order, sizes, false),
        };
        match started {
            Ok(pool) => self.search.pool.set_value(Some(pool)),
            Err(error) => self.search.results.update_value(|s| s.error = Some(error.to_string())),
        }
    }

    /// A pool of workers that search units for the query of [`Self::search`] (as it is when a
    /// unit is given to a worker); with `more_coming`, they wait for units.
    fn search_pool_of(&self, order: Vec<u32>, sizes: Vec<f64>, more_coming: bool) -> Result<Pool, StartError> {
        let state = *self;
        let make = move |unit: u32| {
            let query = state.search.results.with_value(|s| s.query.clone());
            state.unit_request(unit, |paths, _| UnitRequest::Search { paths, query })
        };
        let on_event = move |event: PoolEvent| state.on_search_event(event);
        Pool::start(&self.workers(), order, sizes, worker_count(), more_coming, make, on_event)
    }

    /// Starts the next search's workers now, if none are waiting: their code loads while the
    /// user types.
    pub fn prepare_search(&self) {
        let idle = self.active.get_untracked() && self.index.pool.with_value(Option::is_none);
        if !idle || self.search.prepared.with_value(Option::is_some) || self.units.with_value(Vec::is_empty) {
            return;
        }
        let sizes = self.unit_sizes();
        if let Ok(pool) = self.search_pool_of(Vec::new(), sizes, true) {
            self.search.prepared.set_value(Some(pool));
        }
    }

    fn on_search_event(&self, event: PoolEvent) {
        match event {
            PoolEvent::Answer { unit, reply } => {
                let mut first_hits = false;
                let (files, bytes) =
                    self.units.with_value(|u| u.get(unit as usize).map_or((0, 0.0), |u| (u.files.len(), u.bytes)));
                match reply {
                    Ok((UnitReply::Hits { query_error: Some(error), .. }, _)) => {
                        // Every unit would say the same: the search stops.
                        self.search.results.update_value(|s| s.error = Some(error));
                        let state = *self;
                        leptos::task::spawn_local(async move {
                            state.stop_search();
                            state.search.pass.set(None);
                            state.search.changed.update(|n| *n += 1);
                        });
                    }
                    Ok((UnitReply::Hits { hits, count, complete, bytes: read, .. }, _)) => {
                        self.search.results.update_value(|s| {
                            s.first_answer_ms.get_or_insert_with(now_ms);
                            s.bytes_read += read;
                            first_hits = s.hits.is_empty() && !hits.is_empty();
                            s.matches += count;
                            s.more |= !complete;
                            s.hits.extend(hits.into_iter().map(|hit| (unit, hit)));
                        })
                    }
                    Ok(_) => {}
                    Err(error) => {
                        let key = self.unit_key(unit);
                        let message = unit_failure(error);
                        self.search.results.update_value(|s| {
                            s.failed_units += 1;
                            s.error = Some(match s.failed_units {
                                1 => format!("1 session file set could not be searched ({key}): {message}. The counts are without it; search again to try it."),
                                n => format!("{n} session file sets could not be searched ({key} and others): {message}. The counts are without them; search again to try them."),
                            });
                        });
                    }
                }
                self.search.pass.update_untracked(|pass| {
                    if let Some(pass) = pass {
                        pass.units_done += 1;
                        pass.files_done += files;
                        pass.bytes_done += bytes;
                    }
                });
                // The first hits are shown at once; later answers a few times a second.
                if first_hits {
                    self.search.pass.notify();
                    self.search.changed.update(|n| *n += 1);
                } else {
                    self.redraw_search_soon();
                }
            }
            PoolEvent::Finished => {
                self.search.pass.update(|pass| {
                    if let Some(pass) = pass {
                        pass.ended_ms = Some(now_ms());
                    }
                });
                let state = *self;
                leptos::task::spawn_local(async move {
                    state.search.pool.set_value(None);
                    state.prepare_search();
                });
                self.search.changed.update(|n| *n += 1);
                if let Some(pass) = self.search.pass.get_untracked() {
                    let (first, read) = self.search.results.with_value(|s| (s.first_answer_ms, s.bytes_read));
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
        self.search.results.set_value(SearchResults::default());
        self.search.pass.set(None);
        self.search.changed.update(|n| *n += 1);
    }

    /// Stops a search; its hits so far stay.
    pub fn stop_search(&self) {
        if self.search.pool.try_update_value(Option::take).flatten().is_some() {
            self.search.pass.update(|pass| {
                if let Some(pass) = pass
                    && pass.running()
                {
                    pass.ended_ms = Some(now_ms());
                    pass.cancelled = true;
                }
            });
            self.search.changed.update(|n| *n += 1);
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
            let query = self.search.results.with_value(|s| s.query.clone());
            self.loading.search_on_open.set_value(Some(query));
            self.open(index, Some(hit.uuid.clone()));
        }
    }

    /// Redraws the search's results at most every 250 ms: a common word answers
    /// hits from every unit, and a redraw per answer would keep the page (which hands the
    /// workers their next units) busy.
    fn redraw_search_soon(&self) {
        let state = *self;
        self.search.redraw.with_value(|redraw| {
            redraw.run_in(250.0, move || {
                state.search.pass.notify();
                state.search.changed.update(|n| *n += 1);
            })
        });
    }
}
