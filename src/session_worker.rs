//! The open session's worker: a copy of the model the page shows, kept in a worker for the work
//! whose code the page leaves out of its own download (`docs/size.md`): searching the session
//! (plain text or regular expressions), finding a search's matches in a row's text to highlight
//! them, and the share dialog's redaction scan and redacted files.
//!
//! It starts the first time one of these is asked for (or when the search box or the share
//! dialog is opened, so it is ready by the time it is needed), taking the worker started ahead
//! of time if one is waiting. It goes when another model is loaded ([`release`]): one worker,
//! for the model shown.
//!
//! Requests carry an id from [`SessionWorker::next_id`]; a listener registered for that id gets
//! the replies that name it ([`FromWorker::Hits`], [`FromWorker::Matches`],
//! [`FromWorker::ShareProgress`], [`FromWorker::ShareScanned`], [`FromWorker::ShareWritten`],
//! [`FromWorker::Failed`]) until it says it is done. An error that names no request (the model
//! could not be read) goes to every listener.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::{Arc, Weak};

use js_sys::ArrayBuffer;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

use crate::model::Model;
use crate::protocol::{Envelope, FromWorker, ToWorker, buffer_of};
use crate::queued_worker::QueuedWorker;

/// Gets each reply to one request; answers `true` once it wants no more.
type Listener = Box<dyn FnMut(FromWorker, Vec<ArrayBuffer>) -> bool>;

pub struct SessionWorker {
    worker: QueuedWorker,
    /// The model it holds a copy of. A new load is a new `Arc`; the weak one keeps this one's
    /// place taken, so no later model is mistaken for it.
    model: Weak<Model>,
    listeners: Rc<RefCell<HashMap<u64, Listener>>>,
    next_id: Cell<u64>,
    _on_message: Closure<dyn FnMut(web_sys::MessageEvent)>,
    _on_error: Closure<dyn FnMut(web_sys::ErrorEvent)>,
}

thread_local! {
    static CURRENT: RefCell<Option<Rc<SessionWorker>>> = const { RefCell::new(None) };
}

/// The worker holding `model`, started now if there is none (the one for another model goes).
pub fn for_model(model: &Arc<Model>) -> Result<Rc<SessionWorker>, String> {
    if let Some(worker) = CURRENT.with_borrow(|c| c.clone()).filter(|w| w.holds(model)) {
        return Ok(worker);
    }
    release();
    let worker = Rc::new(SessionWorker::start(model)?);
    CURRENT.with_borrow_mut(|c| *c = Some(worker.clone()));
    Ok(worker)
}

/// The worker of the model shown, if one was started.
pub fn current() -> Option<Rc<SessionWorker>> {
    CURRENT.with_borrow(|c| c.clone())
}

/// Lets the worker go, and its copy of the model (another model is loaded).
pub fn release() {
    if let Some(worker) = CURRENT.with_borrow_mut(Option::take) {
        worker.worker.stop();
    }
}

/// Tells every listener `message`, and forgets them: none is left waiting.
fn tell_all(listeners: &RefCell<HashMap<u64, Listener>>, message: &str) {
    let waiting: Vec<Listener> = listeners.borrow_mut().drain().map(|(_, l)| l).collect();
    for mut listener in waiting {
        listener(FromWorker::Error { message: message.to_owned() }, Vec::new());
    }
}

impl SessionWorker {
    fn start(model: &Arc<Model>) -> Result<SessionWorker, String> {
        let worker = QueuedWorker::start()?;
        // The model and the file bytes, each in a buffer the worker takes over: the first
        // request, so every other finds the model there.
        let encoded = crate::worker::encode_model(&model.corpus, &model.graph)?;
        let buffers =
            std::iter::once(buffer_of(&encoded)).chain(model.corpus.bytes.iter().map(|b| buffer_of(b))).collect();
        worker.post(Envelope::new(ToWorker::SearchInit).with_buffers(buffers).encode()?)?;
        let listeners: Rc<RefCell<HashMap<u64, Listener>>> = Rc::new(RefCell::new(HashMap::new()));
        let on_message = {
            let (worker, listeners) = (worker.clone(), listeners.clone());
            Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |event: web_sys::MessageEvent| {
                // A reply that cannot be read is ignored.
                let Ok(reply) = Envelope::<FromWorker>::decode(event.data()) else { return };
                let id = match &reply.message {
                    FromWorker::Ready => return worker.ready(),
                    FromWorker::Error { message } => return tell_all(&listeners, message),
                    FromWorker::Hits { id, .. }
                    | FromWorker::Matches { id, .. }
                    | FromWorker::ShareProgress { id, .. }
                    | FromWorker::ShareScanned { id, .. }
                    | FromWorker::ShareWritten { id, .. }
                    | FromWorker::Failed { id, .. } => *id,
                    _ => return,
                };
                // Taken out while it runs: it may register or forget listeners itself.
                let Some(mut listener) = listeners.borrow_mut().remove(&id) else { return };
                if !listener(reply.message, reply.buffers) {
                    listeners.borrow_mut().insert(id, listener);
                }
            })
        };
        // A worker that stops (out of memory) fails what waits on it; the next request starts
        // another.
        let on_error = {
            let listeners = listeners.clone();
            let model = Arc::downgrade(model);
            Closure::<dyn FnMut(web_sys::ErrorEvent)>::new(move |event: web_sys::ErrorEvent| {
                event.prevent_default();
                tell_all(&listeners, &format!("the session's worker stopped: {}", event.message()));
                // Not from inside this handler, which goes with the worker.
                let model = model.clone();
                leptos::task::spawn_local(async move {
                    if current().is_some_and(|w| w.model.ptr_eq(&model)) {
                        release();
                    }
                });
            })
        };
        worker.worker().set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.worker().set_onerror(Some(on_error.as_ref().unchecked_ref()));
        Ok(SessionWorker {
            worker,
            model: Arc::downgrade(model),
            listeners,
            next_id: Cell::new(1),
            _on_message: on_message,
            _on_error: on_error,
        })
    }

    /// Whether it holds a copy of `model`.
    fn holds(&self, model: &Arc<Model>) -> bool {
        std::ptr::eq(self.model.as_ptr(), Arc::as_ptr(model))
    }

    /// A new request's id.
    pub fn next_id(&self) -> u64 {
        let id = self.next_id.get();
        self.next_id.set(id + 1);
        id
    }

    /// Posts `request` (once the worker holds the model), its replies going to `listener`.
    pub fn ask(
        &self,
        id: u64,
        request: ToWorker,
        listener: impl FnMut(FromWorker, Vec<ArrayBuffer>) -> bool + 'static,
    ) -> Result<(), String> {
        let encoded = Envelope::new(request).encode()?;
        self.listeners.borrow_mut().insert(id, Box::new(listener));
        self.worker.post(encoded)
    }

    /// Posts `request` and waits for its one reply (an error that names it is an `Err`).
    pub async fn answer(&self, id: u64, request: ToWorker) -> Result<(FromWorker, Vec<ArrayBuffer>), String> {
        let (sender, receiver) = futures::channel::oneshot::channel();
        let mut sender = Some(sender);
        self.ask(id, request, move |reply, buffers| {
            let result = match reply {
                FromWorker::Failed { message, .. } | FromWorker::Error { message } => Err(message),
                reply => Ok((reply, buffers)),
            };
            if let Some(sender) = sender.take() {
                let _ = sender.send(result);
            }
            true
        })?;
        receiver.await.unwrap_or_else(|_| Err("the session's worker stopped".to_owned()))
    }

    /// Stops listening to request `id` (a newer one replaced it).
    pub fn forget(&self, id: u64) {
        self.listeners.borrow_mut().remove(&id);
    }
}
