//! The open session's worker: a copy of the model the page shows, kept in a worker of the session
//! role for the work whose code the page leaves out of its own download (`docs/size.md`):
//! searching the session (plain text or regular expressions), finding a search's matches in a
//! row's text to highlight them, and the share dialog's redaction scan and redacted files.
//!
//! A big session's bytes are not copied to it: it reads them from the session's files, a window
//! at a time as it searches, and whole only when the session is shared. The tab holds them once
//! (issue 40: one open session costs at most 1.5 times its files).
//!
//! It starts the first time one of these is asked for (or when the search box or the share
//! dialog is opened, so it is ready by the time it is needed), taking the worker started ahead
//! of time if one is waiting. It goes when another model is loaded ([`SessionWorkers::release`]):
//! one worker, for the model shown. A worker that stops by itself fails what waits on it, and
//! the next request starts another.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::{Arc, Weak};

use sessionscope_engine::dag::Graph;

use super::handle::{Answer, Flow, WorkerError, WorkerHandle};
use super::picked::PickedFile;
use super::workers::Workers;
use crate::logic::loaded::Model;
use crate::wire::codec::model_buffer;
use crate::wire::limits::READ_AFTER_PARSE_FROM;
use crate::wire::messages::SessionRequest;
use crate::wire::{Parcel, RequestId, ToWorker, buffer_of};

/// The session worker of the model shown, started when first asked for. Clones share it.
#[derive(Clone)]
pub struct SessionWorkers {
    workers: Workers,
    current: Rc<RefCell<Option<SessionWorker>>>,
    /// The model shown, and the files (path, file) it was read from.
    files: Rc<RefCell<Option<ModelFiles>>>,
}

/// A model, and the files (path, file) it was read from.
type ModelFiles = (Weak<Model>, Vec<(String, web_sys::File)>);

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
        SessionWorkers { workers, current: Rc::default(), files: Rc::default() }
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
        // The model and the file bytes, each in a buffer the worker takes over, or for a big
        // session its files, which the worker reads itself: the first request, so every other
        // finds the model there.
        let sources = self.sources_of(model);
        // A big session's graph is not sent: a search does not need it, and the worker builds it
        // again if the session is shared (a fifth of the model, 100 MB of the worker's memory
        // for a 1.5 GB session).
        let big = sources.iter().any(Option::is_some);
        let graph = if big { &Graph::default() } else { &model.graph };
        // The worker it took is replaced by another started ahead, for the next load, unless the
        // session is big: then the next load's worker starts when files are dragged over the page
        // (`Workers::warm_spare`), and the tab holds one worker fewer meanwhile.
        if !big {
            self.workers.prepare_soon();
        }
        let encoded = model_buffer(&model.corpus, graph).map_err(|error| WorkerError::Failed(error.to_string()))?;
        let corpus = &model.corpus;
        let read_from_files =
            corpus.bytes.iter().zip(&sources).map(|(b, s)| s.as_ref().map(|_| b.len() as f64)).collect();
        let buffers = std::iter::once(encoded)
            .chain(corpus.bytes.iter().zip(&sources).filter(|(_, s)| s.is_none()).map(|(b, _)| buffer_of(b)))
            .collect();
        let request = Parcel::new(ToWorker::Session(SessionRequest::Keep { read_from_files }))
            .with_buffers(buffers)
            .with_files(sources.into_iter().flatten().collect());
        handle.send(request)?;
        let worker = SessionWorker { handle, model: Arc::downgrade(model) };
        *self.current.borrow_mut() = Some(worker.clone());
        Ok(worker)
    }

    /// The files `model` was read from, for its worker to read a big session from them rather
    /// than take a copy of its bytes. Given when the model is shown.
    pub fn read_from(&self, model: &Arc<Model>, files: &[PickedFile]) {
        let files = files.iter().map(|picked| (picked.path.clone(), picked.file.clone())).collect();
        *self.files.borrow_mut() = Some((Arc::downgrade(model), files));
    }

    /// For each file of `model`, the file its worker reads it from: all `None` (the worker takes
    /// a copy of the bytes) unless the session is big ([`READ_AFTER_PARSE_FROM`]) and every file
    /// given to its load is there, unchanged in size (a file the loader made is sent as bytes).
    fn sources_of(&self, model: &Arc<Model>) -> Vec<Option<web_sys::File>> {
        let corpus = &model.corpus;
        let none = vec![None; corpus.files.len()];
        let held: usize = corpus.bytes.iter().map(Vec::len).sum();
        let files = self.files.borrow();
        let Some((_, files)) = files.as_ref().filter(|(of, _)| std::ptr::eq(of.as_ptr(), Arc::as_ptr(model))) else {
            return none;
        };
        if held < READ_AFTER_PARSE_FROM {
            return none;
        }
        let mut sources = Vec::with_capacity(corpus.files.len());
        for (info, bytes) in corpus.files.iter().zip(&corpus.bytes) {
            if info.is_derived() {
                sources.push(None);
                continue;
            }
            // The page holds a file's first part when it is bigger than a load holds: the worker
            // reads the same first part.
            let file = files.iter().find(|(path, file)| *path == info.path && file.size() as usize >= bytes.len());
            match file {
                Some((_, file)) => sources.push(Some(file.clone())),
                None => return none,
            }
        }
        sources
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
