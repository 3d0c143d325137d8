//! Search across everything loaded, with the engine's `search`: on the page in small steps
//! for small sessions, in a worker for large ones (the page stays responsive). Hits stream in
//! as they are found.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use js_sys::{Array, Object, Reflect, Uint8Array};
use leptos::prelude::*;
use sessionscope_engine::search::{Hit, Query};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

use crate::model::Model;

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
            generation: StoredValue::new(0),
            worker: StoredValue::new_local(None),
        }
    }

    /// Forgets the results and the worker (a new model was loaded).
    pub fn clear(&self) {
        self.generation.update_value(|g| *g += 1);
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
        let request = Object::new();
        let _ = Reflect::set(&request, &"kind".into(), &"search".into());
        let _ = Reflect::set(&request, &"id".into(), &(generation as f64).into());
        let _ = Reflect::set(&request, &"query".into(), &text.into());
        let _ = Reflect::set(&request, &"regex".into(), &self.regex.get_untracked().into());
        self.worker.with_value(|w| {
            if let Some(w) = w {
                w.send(request.into());
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
    queue: Rc<RefCell<Vec<JsValue>>>,
    _on_message: Closure<dyn FnMut(web_sys::MessageEvent)>,
}

impl SearchWorker {
    fn start(model: &Model, search: SearchState) -> Result<SearchWorker, String> {
        let worker =
            web_sys::Worker::new("./worker_loader.js").map_err(|_| "the search worker could not start".to_owned())?;
        let encoded = crate::worker::encode_model(&model.corpus, &model.graph)?;
        let init = Object::new();
        let _ = Reflect::set(&init, &"kind".into(), &"search-init".into());
        let transfer = Array::new();
        let model_buffer = Uint8Array::from(encoded.as_slice()).buffer();
        transfer.push(&model_buffer);
        let _ = Reflect::set(&init, &"model".into(), &model_buffer);
        let files = Array::new();
        for bytes in &model.corpus.bytes {
            let buffer = Uint8Array::from(bytes.as_slice()).buffer();
            transfer.push(&buffer);
            files.push(&buffer);
        }
        let _ = Reflect::set(&init, &"files".into(), &files);
        let ready = Rc::new(RefCell::new(false));
        let queue: Rc<RefCell<Vec<JsValue>>> = Rc::new(RefCell::new(Vec::new()));
        let on_message = {
            let worker = worker.clone();
            let ready = ready.clone();
            let queue = queue.clone();
            Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |event: web_sys::MessageEvent| {
                let data = event.data();
                let get = |key: &str| Reflect::get(&data, &key.into()).unwrap_or(JsValue::UNDEFINED);
                match get("kind").as_string().as_deref() {
                    Some("ready") => {
                        let _ = worker.post_message_with_transfer(&init, &transfer);
                        *ready.borrow_mut() = true;
                        for request in queue.borrow_mut().drain(..) {
                            let _ = worker.post_message(&request);
                        }
                    }
                    Some("hits") => {
                        let generation = get("id").as_f64().unwrap_or(-1.0) as u64;
                        let hits: Vec<Hit> =
                            get("hits").as_string().and_then(|h| serde_json::from_str(&h).ok()).unwrap_or_default();
                        let count = get("count").as_f64().unwrap_or(0.0) as u64;
                        search.add(generation, hits, count);
                        if get("done").as_bool() == Some(true) {
                            search.finish(generation);
                        }
                    }
                    Some("error") => {
                        search.error.set(get("message").as_string());
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
    fn send(&self, request: JsValue) {
        if *self.ready.borrow() {
            let _ = self.worker.post_message(&request);
        } else {
            self.queue.borrow_mut().push(request);
        }
    }
}

impl Drop for SearchWorker {
    fn drop(&mut self) {
        self.worker.terminate();
    }
}
