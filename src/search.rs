//! Search across everything loaded, with the engine's `search`: on the page in small steps
//! for small sessions, in a worker for large ones (the page stays responsive). Hits stream in
//! as they are found.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use leptos::prelude::*;
use sessionscope_engine::search::{Hit, Query};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

use crate::model::Model;
use crate::protocol::{Encoded, Envelope, FromWorker, ToWorker, buffer_of};

/// Above this many bytes loaded, the search runs in a worker.
pub const WORKER_THRESHOLD: usize = 16 << 20;
/// Entries searched per step on the page.
const STEP_ENTRIES: usize = 2000;
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
    worker: StoredValue<Option<SearchWorker>, LocalStorage>,
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
            worker: StoredValue::new_local(None),
        }
    }

    /// Forgets the results and the worker (a new model was loaded).
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
        if let Some(worker) = self.worker.try_update_value(Option::take).flatten() {
            worker.worker.terminate();
        }
    }

    /// Starts a search of `model` for the current query, replacing the results.
    pub fn run(&self, model: Option<Arc<Model>>) {
        self.generation.update_value(|g| *g += 1);
        let generation = self.generation.get_value();
        self.hits.set_value(Vec::new());
        self.total.set(0);
        self.current.set(None);
        self.error.set(None);
        self.hits_changed.notify();
        let text = self.query.get_untracked();
        self.ran.set_value(Some((text.clone(), self.regex.get_untracked())));
        if text.is_empty() {
            self.done.set(true);
            self.running.set(false);
            return;
        }
        let query = match Query::new(&text, self.regex.get_untracked()) {
            Ok(query) => query,
            Err(message) => {
                self.error.set(Some(message));
                self.done.set(true);
                self.running.set(false);
                return;
            }
        };
        let Some(model) = model else { return };
        self.done.set(false);
        self.running.set(true);
        self.open.set(true);
        let size: usize = model.corpus.bytes.iter().map(Vec::len).sum();
        if size > WORKER_THRESHOLD {
            self.run_in_worker(&model, generation, &text);
        } else {
            self.run_here(model, query, generation);
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

    /// On the page, a few thousand entries at a time, yielding in between.
    fn run_here(&self, model: Arc<Model>, query: Query, generation: u64) {
        let search = *self;
        leptos::task::spawn_local(async move {
            let entries = model.corpus.entries.len();
            let mut start = 0;
            while start < entries {
                if !search.still(generation) {
                    return;
                }
                let end = (start + STEP_ENTRIES).min(entries);
                let mut hits = Vec::new();
                let count = query.search(&model.corpus, start..end, &mut |h| hits.push(h));
                search.add(generation, hits, count);
                start = end;
                gloo::timers::future::TimeoutFuture::new(0).await;
            }
            search.finish(generation);
        });
    }

    fn run_in_worker(&self, model: &Arc<Model>, generation: u64, text: &str) {
        let exists = self.worker.with_value(Option::is_some);
        if !exists {
            match SearchWorker::start(model, *self) {
                Ok(worker) => self.worker.set_value(Some(worker)),
                Err(message) => {
                    self.error.set(Some(message));
                    self.finish(generation);
                    return;
                }
            }
        }
        let request = Envelope::new(ToWorker::Search {
            id: generation,
            query: text.to_owned(),
            regex: self.regex.get_untracked(),
        });
        let request = match request.encode() {
            Ok(request) => request,
            Err(message) => {
                self.error.set(Some(message));
                self.finish(generation);
                return;
            }
        };
        self.worker.with_value(|w| {
            if let Some(w) = w {
                w.send(request);
            }
        });
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

/// A worker holding a copy of the model for searching large sessions.
struct SearchWorker {
    worker: web_sys::Worker,
    ready: Rc<RefCell<bool>>,
    queue: Rc<RefCell<Vec<Encoded>>>,
    _on_message: Closure<dyn FnMut(web_sys::MessageEvent)>,
}

impl SearchWorker {
    fn start(model: &Model, search: SearchState) -> Result<SearchWorker, String> {
        let worker = crate::files::spawn_worker()?;
        // The model and the file bytes, each in a buffer the worker takes over.
        let encoded = crate::worker::encode_model(&model.corpus, &model.graph)?;
        let buffers =
            std::iter::once(buffer_of(&encoded)).chain(model.corpus.bytes.iter().map(|b| buffer_of(b))).collect();
        let init = Envelope::new(ToWorker::SearchInit).with_buffers(buffers).encode()?;
        let ready = Rc::new(RefCell::new(false));
        let queue: Rc<RefCell<Vec<Encoded>>> = Rc::new(RefCell::new(Vec::new()));
        let on_message = {
            let worker = worker.clone();
            let ready = ready.clone();
            let queue = queue.clone();
            Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |event: web_sys::MessageEvent| {
                // A reply that cannot be read is ignored.
                let Ok(reply) = Envelope::<FromWorker>::decode(event.data()) else { return };
                match reply.message {
                    FromWorker::Ready => {
                        let _ = init.post_to(&worker);
                        *ready.borrow_mut() = true;
                        for request in queue.borrow_mut().drain(..) {
                            let _ = request.post_to(&worker);
                        }
                    }
                    FromWorker::Hits { id, count, done, hits } => {
                        search.add(id, hits, count);
                        if done {
                            search.finish(id);
                        }
                    }
                    FromWorker::Error { message } => {
                        search.error.set(Some(message));
                        search.running.set(false);
                        search.done.set(true);
                    }
                    _ => {}
                }
            })
        };
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        Ok(SearchWorker { worker, ready, queue, _on_message: on_message })
    }

    /// Sends a request once the worker holds the model (it queues until then).
    fn send(&self, request: Encoded) {
        if *self.ready.borrow() {
            let _ = request.post_to(&self.worker);
        } else {
            self.queue.borrow_mut().push(request);
        }
    }
}

impl Drop for SearchWorker {
    fn drop(&mut self) {
        // A message already on its way finds no handler, not the closure dropped here.
        self.worker.set_onmessage(None);
        self.worker.terminate();
    }
}
