//! The open session's worker: a copy of the model the page shows, kept in a worker of the session
//! role for the work whose code the page leaves out of its own download (`docs/size.md`):
//! searching the session (plain text or regular expressions), finding a search's matches in a
//! row's text to highlight them, and the share dialog's redaction scan and redacted files.
//!
//! It starts the first time one of these is asked for (or when the search box or the share
//! dialog is opened, so it is ready by the time it is needed), taking the worker started ahead
//! of time if one is waiting. It goes when another model is loaded ([`SessionWorkers::release`]):
//! one worker, for the model shown. A worker that stops by itself fails what waits on it, and
//! the next request starts another.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::{Arc, Weak};

use super::handle::{Answer, Flow, WorkerError, WorkerHandle};
use super::workers::Workers;
use crate::logic::loaded::Model;
use crate::wire::codec::encode_model;
use crate::wire::messages::SessionRequest;
use crate::wire::{Parcel, RequestId, ToWorker, buffer_of};

/// The session worker of the model shown, started when first asked for. Clones share it.
#[derive(Clone)]
pub struct SessionWorkers {
    workers: Workers,
    current: Rc<RefCell<Option<SessionWorker>>>,
}

/// A worker holding a copy of one model.
#[derive(Clone)]
pub struct SessionWorker {
    handle: WorkerHandle,
    /// The model it holds a copy of. A new load is a new `Arc`; the weak one keeps this one's
    /// place taken, so no later model is mistaken for it.
    model: Weak<Model>,
}

impl SessionWorkers {
    pub fn new(workers: Workers) -> SessionWorkers {
        SessionWorkers { workers, current: Rc::default() }
    }

    /// The worker holding `model`, started now if there is none, or if the last one stopped
    /// (the one for another model goes).
    pub fn for_model(&self, model: &Arc<Model>) -> Result<SessionWorker, WorkerError> {
        let current = self.current.borrow().clone();
        if let Some(worker) = current.filter(|w| w.holds(model) && !w.handle.is_stopped()) {
            return Ok(worker);
        }
        self.release();
        let handle = self.workers.take_or_spawn().map_err(WorkerError::CannotStart)?;
        self.workers.prepare_soon();
        // The model and the file bytes, each in a buffer the worker takes over: the first
        // request, so every other finds the model there.
        let encoded =
            encode_model(&model.corpus, &model.graph).map_err(|error| WorkerError::Failed(error.to_string()))?;
        let buffers =
            std::iter::once(buffer_of(&encoded)).chain(model.corpus.bytes.iter().map(|b| buffer_of(b))).collect();
        handle.send(Parcel::new(ToWorker::Session(SessionRequest::Keep)).with_buffers(buffers))?;
        let worker = SessionWorker { handle, model: Arc::downgrade(model) };
        *self.current.borrow_mut() = Some(worker.clone());
        Ok(worker)
    }

    /// The worker of the model shown, if one was started.
    pub fn current(&self) -> Option<SessionWorker> {
        self.current.borrow().clone()
    }

    /// Lets the worker go, and its copy of the model (another model is loaded).
    pub fn release(&self) {
        if let Some(worker) = self.current.borrow_mut().take() {
            worker.handle.stop();
        }
    }
}

impl SessionWorker {
    /// Whether it holds a copy of `model`.
    fn holds(&self, model: &Arc<Model>) -> bool {
        std::ptr::eq(self.model.as_ptr(), Arc::as_ptr(model))
    }

    /// Asks `request` (once the worker holds the model), its replies going to `listener` until
    /// it answers [`Flow::Done`]. Answers the request's id, to [`Self::forget`] it.
    pub fn ask(
        &self,
        request: SessionRequest,
        listener: impl FnMut(Answer) -> Flow + 'static,
    ) -> Result<RequestId, WorkerError> {
        self.handle.request(Parcel::new(ToWorker::Session(request)), listener)
    }

    /// Asks `request` and waits for its one reply.
    pub async fn answer(&self, request: SessionRequest) -> Answer {
        self.handle.ask(Parcel::new(ToWorker::Session(request))).await
    }

    /// Stops listening to request `id` (a newer one replaced it).
    pub fn forget(&self, id: RequestId) {
        self.handle.forget(id);
    }
}
