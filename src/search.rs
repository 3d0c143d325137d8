//! Search across everything loaded, with the engine's `search`, in the session's worker
//! ([`crate::session_worker`]): the page stays responsive, and carries no regular expressions.
//! Hits stream in as they are found.

use std::sync::Arc;

use leptos::prelude::*;
use sessionscope_engine::search::Hit;

use crate::model::Model;
use crate::protocol::{FromWorker, ToWorker};
/// Hits kept (the count goes on).
pub const MAX_HITS: usize = 10_000;

#[derive(Clone, Copy)]
pub struct SearchState {
    pub query: RwSignal<String>,
    pub regex: RwSignal<bool>,
    pub hits: StoredValue<Vec<Hit>>,
    /// Notified when `hits` changes.
    pub hits_changed: Trigger,
    pub total: RwSignal<u64>,
    pub done: RwSignal<bool>,
    pub running: RwSignal<bool>,
    pub error: RwSignal<Option<String>>,
    pub current: RwSignal<Option<usize>>,
    pub open: RwSignal<bool>,
    /// The query (text, regex) of the last search run on this model: the hits are for it.
    ran: StoredValue<Option<(String, bool)>>,
    /// A message whose first hit is to be gone to as soon as the search finds it (a whole-history
    /// search hit being opened); the search box does it.
    pub go_to_entry_when_found: StoredValue<Option<sessionscope_engine::model::EntryId>>,
    generation: StoredValue<u64>,
    /// The id of the newest search asked of the session's worker.
    asked: StoredValue<Option<u64>>,
}

impl SearchState {
    pub fn new() -> SearchState {
        SearchState {
            query: RwSignal::new(String::new()),
            regex: RwSignal::new(false),
            hits: StoredValue::new(Vec::new()),
            hits_changed: Trigger::new(),
            total: RwSignal::new(0),
            done: RwSignal::new(true),
            running: RwSignal::new(false),
            error: RwSignal::new(None),
            current: RwSignal::new(None),
            open: RwSignal::new(false),
            ran: StoredValue::new(None),
            go_to_entry_when_found: StoredValue::new(None),
            generation: StoredValue::new(0),
            asked: StoredValue::new(None),
        }
    }

    /// Forgets the results and the session's worker (a new model was loaded).
    pub fn clear(&self) {
        self.generation.update_value(|g| *g += 1);
        self.ran.set_value(None);
        self.go_to_entry_when_found.set_value(None);
        self.hits.set_value(Vec::new());
        self.total.set(0);
        self.done.set(true);
        self.running.set(false);
        self.current.set(None);
        self.error.set(None);
        self.hits_changed.notify();
        self.asked.set_value(None);
        crate::session_worker::release();
    }

    /// Starts a search of `model` for the current query, replacing the results. It runs in the
    /// session's worker, which has the regular expressions (the page does not carry them).
    pub fn run(&self, model: Option<Arc<Model>>) {
        self.generation.update_value(|g| *g += 1);
        let generation = self.generation.get_value();
        self.hits.set_value(Vec::new());
        self.total.set(0);
        self.current.set(None);
        self.error.set(None);
        self.hits_changed.notify();
        let text = self.query.get_untracked();
        let regex = self.regex.get_untracked();
        self.ran.set_value(Some((text.clone(), regex)));
        if let Some(worker) = crate::session_worker::current()
            && let Some(older) = self.asked.try_update_value(Option::take).flatten()
        {
            worker.forget(older);
        }
        if text.is_empty() {
            self.done.set(true);
            self.running.set(false);
            return;
        }
        let Some(model) = model else { return };
        self.done.set(false);
        self.running.set(true);
        self.open.set(true);
        let search = *self;
        let asked = crate::session_worker::for_model(&model).and_then(|worker| {
            let id = worker.next_id();
            self.asked.set_value(Some(id));
            worker.ask(id, ToWorker::Search { id, query: text, regex }, move |reply, _| match reply {
                FromWorker::Hits { count, done, hits, .. } => {
                    search.add(generation, hits, count);
                    if done {
                        search.finish(generation);
                    }
                    done
                }
                FromWorker::Failed { message, .. } | FromWorker::Error { message } => {
                    search.fail(generation, message);
                    true
                }
                _ => false,
            })
        });
        if let Err(message) = asked {
            self.fail(generation, message);
        }
    }

    /// Makes the session's worker ready for a search (the search box is opened).
    pub fn prepare(&self, model: Option<Arc<Model>>) {
        if let Some(model) = model {
            let _ = crate::session_worker::for_model(&model);
        }
    }

    /// Whether the results are those of the query in the box (not of an earlier one, or of none).
    pub fn is_current(&self) -> bool {
        let query = self.query.get_untracked();
        let regex = self.regex.get_untracked();
        self.ran.with_value(|ran| ran.as_ref().is_some_and(|(text, r)| *text == query && *r == regex))
    }

    fn still(&self, generation: u64) -> bool {
        self.generation.try_get_value() == Some(generation)
    }

    fn add(&self, generation: u64, hits: Vec<Hit>, count: u64) {
        if !self.still(generation) {
            return;
        }
        self.hits.update_value(|all| {
            let room = MAX_HITS.saturating_sub(all.len());
            all.extend(hits.into_iter().take(room));
        });
        self.total.update(|t| *t += count);
        self.hits_changed.notify();
    }

    fn finish(&self, generation: u64) {
        if self.still(generation) {
            self.done.set(true);
            self.running.set(false);
        }
    }

    fn fail(&self, generation: u64, message: String) {
        if self.still(generation) {
            self.error.set(Some(message));
            self.finish(generation);
        }
    }
}

impl Default for SearchState {
    fn default() -> Self {
        SearchState::new()
    }
}

pub fn use_search() -> SearchState {
    expect_context::<SearchState>()
}
