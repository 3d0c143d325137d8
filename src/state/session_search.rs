//! Search across everything loaded, with the engine's `search`, in the session's worker
//! (`client::session_worker`): the page stays responsive, and carries no regular expressions.
//! Hits stream in as they are found. A hit gone to is highlighted in its row once the row is
//! drawn ([`SearchState::highlight`]).

use std::sync::Arc;

use leptos::prelude::*;
use sessionscope_engine::model::EntryId;
use sessionscope_engine::search::Hit;

use crate::client::handle::{Crash, Flow, WorkerError};
use crate::client::picked::PickedFile;
use crate::client::session_worker::SessionWorkers;
use crate::logic::loaded::Model;
use crate::logic::outline::RowKey;
use crate::wire::messages::{SessionReply, SessionRequest};
use crate::wire::{FromWorker, RequestId, SearchQuery};

/// How many times a search whose worker stopped on a fault is asked again of a new worker.
const FAULT_RETRIES: u32 = 1;

/// Hits kept (the count goes on).
pub const MAX_HITS: usize = 10_000;

#[derive(Clone, Copy)]
pub struct SearchState {
    sessions: StoredValue<SessionWorkers, LocalStorage>,
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
    /// The query of the last search run on this model: the hits are for it.
    ran: StoredValue<Option<SearchQuery>>,
    /// A message whose first hit is to be gone to as soon as the search finds it (a whole-history
    /// search hit being opened); the search box does it.
    pub go_to_entry_when_found: StoredValue<Option<EntryId>>,
    /// The newest search asked of the session's worker: replies to an older one are not heard.
    asked: StoredValue<Option<RequestId>>,
    /// The row whose matches of the query are to be highlighted, once it is drawn (the row
    /// does it when it sees this name it).
    pub highlight: RwSignal<Option<(RowKey, SearchQuery)>>,
}

impl SearchState {
    pub fn new(sessions: SessionWorkers) -> SearchState {
        SearchState {
            sessions: StoredValue::new_local(sessions),
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
            asked: StoredValue::new(None),
            highlight: RwSignal::new(None),
        }
    }

    /// The query in the box.
    pub fn query_untracked(&self) -> SearchQuery {
        SearchQuery::new(self.query.get_untracked(), self.regex.get_untracked())
    }

    /// Puts a query in the box.
    pub fn set_query(&self, query: SearchQuery) {
        self.query.set(query.text);
        self.regex.set(query.regex);
    }

    /// Forgets the results and the session's worker (a new model was loaded).
    pub fn clear(&self) {
        self.ran.set_value(None);
        self.go_to_entry_when_found.set_value(None);
        self.hits.set_value(Vec::new());
        self.total.set(0);
        self.done.set(true);
        self.running.set(false);
        self.current.set(None);
        self.error.set(None);
        self.highlight.set(None);
        self.hits_changed.notify();
        self.asked.set_value(None);
        self.sessions.with_value(SessionWorkers::release);
    }

    /// Starts a search of `model` for the current query, replacing the results. It runs in the
    /// session's worker, which has the regular expressions (the page does not carry them).
    pub fn run(&self, model: Option<Arc<Model>>) {
        self.error.set(None);
        self.restart();
        let query = self.query_untracked();
        self.ran.set_value(Some(query.clone()));
        if let Some(older) = self.asked.try_update_value(Option::take).flatten()
            && let Some(worker) = self.sessions.with_value(SessionWorkers::current)
        {
            worker.forget(older);
        }
        if query.is_empty() {
            self.done.set(true);
            self.running.set(false);
            return;
        }
        let Some(model) = model else { return };
        self.done.set(false);
        self.running.set(true);
        self.open.set(true);
        self.ask(model, query, FAULT_RETRIES);
    }

    /// Asks the session's worker to search `model` for `query`. A worker that stops on a fault
    /// (WebKit's engine faults now and then in a big session's memory, issue 50) is replaced and
    /// the search asked again of the new one, `retries` times, before the page says so.
    fn ask(&self, model: Arc<Model>, query: SearchQuery, retries: u32) {
        let search = *self;
        let again = (Arc::clone(&model), query.clone());
        let asked = self.sessions.with_value(|sessions| sessions.for_model(&model)).and_then(|worker| {
            worker.ask(SessionRequest::Search { query }, move |answer| match answer {
                Ok(reply) => match reply.message {
                    FromWorker::Session(SessionReply::Hits { count, done, hits }) => {
                        search.add(hits, count);
                        if done {
                            search.finish();
                            return Flow::Done;
                        }
                        Flow::More
                    }
                    _ => Flow::More,
                },
                Err(WorkerError::Stopped(Crash::Fault)) if retries > 0 => {
                    let (model, query) = again.clone();
                    web_sys::console::warn_1(
                        &"sessionscope search: the session's worker stopped on a fault; searching again in a new one"
                            .into(),
                    );
                    search.restart();
                    // Once this reply's handling is over: the stopped worker is let go first.
                    leptos::task::spawn_local(async move { search.ask(model, query, retries - 1) });
                    Flow::Done
                }
                Err(error) => {
                    search.fail(error);
                    Flow::Done
                }
            })
        });
        match asked {
            Ok(id) => self.asked.set_value(Some(id)),
            Err(error) => self.fail(error),
        }
    }

    /// Forgets the hits found so far: a new search, or one asked again from its start.
    fn restart(&self) {
        self.hits.set_value(Vec::new());
        self.total.set(0);
        self.current.set(None);
        self.hits_changed.notify();
    }

    /// The model shown and the files it was read from: a big session's worker reads them, and
    /// takes no copy of the page's bytes.
    pub fn read_from(&self, model: &Arc<Model>, files: &[PickedFile]) {
        self.sessions.with_value(|sessions| sessions.read_from(model, files));
    }

    /// Makes the session's worker ready for a search (the search box is opened).
    pub fn prepare(&self, model: Option<Arc<Model>>) {
        if let Some(model) = model {
            let _ = self.sessions.with_value(|sessions| sessions.for_model(&model));
        }
    }

    /// Whether the results are those of the query in the box (not of an earlier one, or of none).
    pub fn is_current(&self) -> bool {
        let query = self.query_untracked();
        self.ran.with_value(|ran| ran.as_ref() == Some(&query))
    }

    /// The byte ranges of `query`'s matches in each of `texts` (a drawn row's text nodes), found
    /// by the session's worker; `None` if it has none, or cannot say.
    pub async fn matches(&self, query: SearchQuery, texts: Vec<String>) -> Option<Vec<Vec<(u32, u32)>>> {
        let worker = self.sessions.try_with_value(SessionWorkers::current).flatten()?;
        match worker.answer(SessionRequest::Matches { query, texts }).await {
            Ok(reply) => match reply.message {
                FromWorker::Session(SessionReply::Matches { ranges }) => Some(ranges),
                _ => None,
            },
            Err(_) => None,
        }
    }

    /// The session's workers, for the share dialog's scans.
    pub fn session_workers(&self) -> SessionWorkers {
        self.sessions.get_value()
    }

    fn add(&self, hits: Vec<Hit>, count: u64) {
        self.hits.update_value(|all| {
            let room = MAX_HITS.saturating_sub(all.len());
            all.extend(hits.into_iter().take(room));
        });
        self.total.update(|t| *t += count);
        self.hits_changed.notify();
    }

    fn finish(&self) {
        self.done.set(true);
        self.running.set(false);
    }

    fn fail(&self, error: WorkerError) {
        self.error.set(Some(error.to_string()));
        self.finish();
    }
}

pub fn use_search() -> SearchState {
    expect_context::<SearchState>()
}
