//! One worker, as the page sees it: every client of a worker (a load, the open session's worker,
//! a history's pool, a followed session, the databases) talks to it through a [`WorkerHandle`],
//! as Perfetto's UI talks to its engine through one proxy.
//!
//! - Requests posted before the worker says it runs wait in a queue, and go in the order they
//!   were made (anything posted before its `ready` would be lost).
//! - Each request gets a [`RequestId`]; its replies go to the listener given with it, for as long
//!   as the listener asks for more ([`Flow`]). A reply of no request still waiting is dropped.
//! - A request that fails is its listener's [`WorkerError::Failed`]; an error that names no
//!   request (one the worker could not read at all) goes to every listener waiting.
//! - A worker that stops by itself (a crash, memory exhausted) fails every request waiting with
//!   [`WorkerError::Stopped`]; one stopped by the page ([`WorkerHandle::stop`], or its last
//!   handle dropped) tells nobody: that is a cancel.
//! - Teardown is here only: the handlers are taken off before the worker is terminated, so a
//!   message already on its way finds none.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::{Rc, Weak};

use futures::channel::oneshot;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

use crate::wire::{Encoded, FromWorker, Parcel, RequestId, ToWorker, WireError};

/// Why a request got no answer, or an answer that says it failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WorkerError {
    /// No worker could be started (see [`StartError`]).
    CannotStart(StartError),
    /// The request could not be made or posted.
    Wire(WireError),
    /// The worker answered that the request failed: why, in its words.
    Failed(String),
    /// The worker stopped before it answered (a crash, memory exhausted): of what, as far as the
    /// page can tell.
    Stopped(Crash),
    /// The page stopped the worker (a cancel, another load) before it answered.
    Cancelled,
}

impl std::fmt::Display for WorkerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WorkerError::CannotStart(error) => error.fmt(f),
            WorkerError::Wire(error) => error.fmt(f),
            WorkerError::Failed(message) => f.write_str(message),
            WorkerError::Stopped(crash) => write!(f, "the worker {crash}: {}", crash.advice()),
            WorkerError::Cancelled => f.write_str("cancelled"),
        }
    }
}

impl From<WireError> for WorkerError {
    fn from(error: WireError) -> WorkerError {
        WorkerError::Wire(error)
    }
}

/// Why a worker stopped by itself, as far as the page can tell: the kind of error that stopped
/// it, which the worker's loader (`scripts/worker_loader.js`) sends by its name as the error
/// reaches the worker's top; the page stops the worker then. The browser's own words (a `TypeError`'s message, say) go to its console,
/// never to the page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Crash {
    /// A `RangeError`: a buffer or the stack could not grow.
    OutOfMemory,
    /// A `TypeError`: most often something this browser lacks, or does otherwise.
    Unsupported,
    /// Anything else (a fault of the worker's own, which stops its wasm), or an error the loader
    /// could not name.
    Fault,
}

impl Crash {
    /// The kind of an error named `name` (its constructor's `name`).
    pub fn of_error_name(name: &str) -> Crash {
        match name {
            "RangeError" => Crash::OutOfMemory,
            "TypeError" => Crash::Unsupported,
            _ => Crash::Fault,
        }
    }

    /// What a person can do about it.
    pub fn advice(self) -> &'static str {
        match self {
            Crash::OutOfMemory => {
                "open fewer or smaller files at once, or close other tabs; `sessionscope open <file>` (the command \
                 line) opens a file of any size"
            }
            Crash::Unsupported => {
                "this browser lacks something the page needs here; open the files in a current Chrome, Edge, Firefox \
                 or Safari, and please report which browser this was"
            }
            Crash::Fault => "reload the page and try again; the browser's console holds its report",
        }
    }
}

impl std::fmt::Display for Crash {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let browser = crate::platform::browser::name();
        match self {
            Crash::OutOfMemory => write!(f, "ran out of memory in {browser}"),
            Crash::Unsupported => write!(f, "stopped on something {browser} does not support"),
            Crash::Fault => write!(f, "stopped on a fault in {browser}"),
        }
    }
}

/// The key of the message a worker's loader sends when an error reaches its top, with the
/// error's name ([`CRASH_REPORTER`]).
const CRASH_KEY: &str = "sessionscopeCrash";

/// The script every worker runs first that names to the page an error reaching its top, or a
/// rejection nobody handles (the wasm code's trap inside a promise's callback: an allocation that
/// failed, say) ([`Crash`]): `scripts/worker_loader.js` holds the same line (a test compares them), and an
/// exported file's worker starts with it.
pub const CRASH_REPORTER: &str = r#"for (const type of ["error", "unhandledrejection"]) addEventListener(type, (event) => postMessage({ sessionscopeCrash: ((event.error || event.reason) && (event.error || event.reason).name) || "" }));"#;

/// Why no worker could be started.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StartError {
    /// The page was opened from disk without a web server: browsers start no worker there.
    NoWorkerHere,
    /// The browser refused to start it.
    Refused,
}

impl std::fmt::Display for StartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StartError::NoWorkerHere => f.write_str(
                "this page cannot read files: it was opened from disk without a web server, and browsers start no \
                 worker there. Serve the app's folder (see the README), or open the hosted sessionscope",
            ),
            StartError::Refused => f.write_str("the loading worker could not start"),
        }
    }
}

/// What a listener gets: a reply, or why there is none.
pub type Answer = Result<Parcel<FromWorker>, WorkerError>;

/// Whether a listener wants the request's next replies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    More,
    Done,
}

type Listener = Box<dyn FnMut(Answer) -> Flow>;

struct Inner {
    worker: web_sys::Worker,
    ready: Cell<bool>,
    /// Requests made before the worker ran.
    queue: RefCell<Vec<Encoded>>,
    /// Who waits for the worker to run.
    on_ready: RefCell<Vec<oneshot::Sender<()>>>,
    next_id: Cell<u64>,
    listeners: RefCell<HashMap<RequestId, Listener>>,
    /// Stopped by the page, or by itself: no request is posted any more.
    stopped: Cell<bool>,
    handlers: RefCell<Option<Handlers>>,
    /// What the worker's loader said stopped it, just before the page hears of the error.
    crash: Cell<Option<Crash>>,
}

struct Handlers {
    _on_message: Closure<dyn FnMut(web_sys::MessageEvent)>,
    _on_error: Closure<dyn FnMut(web_sys::ErrorEvent)>,
}

/// The page's side of one worker. Clones share it; the worker stops when the last one goes.
#[derive(Clone)]
pub struct WorkerHandle {
    inner: Rc<Inner>,
}

impl WorkerHandle {
    /// Starts a worker from `url` (the loader script of the worker program).
    pub fn spawn(url: &str) -> Result<WorkerHandle, StartError> {
        let worker = web_sys::Worker::new(url).map_err(|_| StartError::Refused)?;
        let inner = Rc::new(Inner {
            worker,
            ready: Cell::new(false),
            queue: RefCell::default(),
            on_ready: RefCell::default(),
            next_id: Cell::new(1),
            listeners: RefCell::default(),
            stopped: Cell::new(false),
            handlers: RefCell::new(None),
            crash: Cell::new(None),
        });
        let weak = Rc::downgrade(&inner);
        let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new({
            let weak = weak.clone();
            move |event: web_sys::MessageEvent| {
                if let Some(inner) = weak.upgrade() {
                    inner.received(event.data());
                }
            }
        });
        let on_error = Closure::<dyn FnMut(web_sys::ErrorEvent)>::new(move |event: web_sys::ErrorEvent| {
            event.prevent_default();
            if let Some(inner) = weak.upgrade() {
                // The browser's words are for the console; the page says what stopped it.
                web_sys::console::warn_1(&format!("sessionscope: a worker stopped: {}", event.message()).into());
                inner.crashed();
            }
        });
        inner.worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        inner.worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        *inner.handlers.borrow_mut() = Some(Handlers { _on_message: on_message, _on_error: on_error });
        Ok(WorkerHandle { inner })
    }

    /// Whether the worker has said it runs.
    pub fn is_ready(&self) -> bool {
        self.inner.ready.get()
    }

    /// Waits until the worker runs (at once if it does); `false` if it stopped first.
    pub async fn ready(&self) -> bool {
        if self.inner.ready.get() {
            return true;
        }
        if self.inner.stopped.get() {
            return false;
        }
        let (sender, receiver) = oneshot::channel();
        self.inner.on_ready.borrow_mut().push(sender);
        receiver.await.is_ok()
    }

    /// Whether the worker was stopped, by the page or by itself.
    pub fn is_stopped(&self) -> bool {
        self.inner.stopped.get()
    }

    /// Posts a request whose replies go to `listener` until it answers [`Flow::Done`]. Answers the
    /// request's id, to [`Self::forget`] it.
    pub fn request(
        &self,
        request: Parcel<ToWorker>,
        listener: impl FnMut(Answer) -> Flow + 'static,
    ) -> Result<RequestId, WorkerError> {
        let id = self.inner.new_id();
        self.inner.listeners.borrow_mut().insert(id, Box::new(listener));
        if let Err(error) = self.inner.post(request.answering(Some(id))) {
            self.inner.listeners.borrow_mut().remove(&id);
            return Err(error);
        }
        Ok(id)
    }

    /// Posts a request that wants no reply (a reply it gets is dropped).
    pub fn send(&self, request: Parcel<ToWorker>) -> Result<(), WorkerError> {
        let id = self.inner.new_id();
        self.inner.post(request.answering(Some(id)))
    }

    /// Posts a request and waits for its one reply.
    pub async fn ask(&self, request: Parcel<ToWorker>) -> Answer {
        let (sender, receiver) = oneshot::channel();
        let mut sender = Some(sender);
        self.request(request, move |answer| {
            if let Some(sender) = sender.take() {
                let _ = sender.send(answer);
            }
            Flow::Done
        })?;
        receiver.await.unwrap_or(Err(WorkerError::Cancelled))
    }

    /// Stops listening to request `id` (a newer one replaced it): its replies are dropped.
    pub fn forget(&self, id: RequestId) {
        self.inner.listeners.borrow_mut().remove(&id);
    }

    /// Stops the worker: nobody waiting is told (it is a cancel), and nothing more is posted.
    pub fn stop(&self) {
        self.inner.stop();
    }

    /// Lets the requests waiting go unanswered (their listeners are dropped), keeping the worker:
    /// it is handed to another client.
    pub fn release(&self) {
        let dropped: Vec<Listener> = self.inner.listeners.borrow_mut().drain().map(|(_, l)| l).collect();
        drop(dropped);
    }

    /// Whether two handles are of one worker.
    pub fn same(&self, other: &WorkerHandle) -> bool {
        Rc::ptr_eq(&self.inner, &other.inner)
    }

    /// A handle that does not keep the worker running.
    pub fn downgrade(&self) -> WeakHandle {
        WeakHandle(Rc::downgrade(&self.inner))
    }
}

/// A handle that does not keep its worker: see [`WorkerHandle::downgrade`].
#[derive(Clone)]
pub struct WeakHandle(Weak<Inner>);

impl WeakHandle {
    pub fn upgrade(&self) -> Option<WorkerHandle> {
        self.0.upgrade().map(|inner| WorkerHandle { inner })
    }
}

impl Inner {
    fn new_id(&self) -> RequestId {
        let id = self.next_id.get();
        self.next_id.set(id + 1);
        RequestId(id)
    }

    /// Posts now if the worker runs, else once it does.
    fn post(&self, request: Parcel<ToWorker>) -> Result<(), WorkerError> {
        if self.stopped.get() {
            return Err(WorkerError::Cancelled);
        }
        let encoded = request.encode()?;
        if self.ready.get() {
            encoded.post_to(&self.worker)?;
        } else {
            self.queue.borrow_mut().push(encoded);
        }
        Ok(())
    }

    /// A message from the worker. One it cannot read is ignored, as one meant for nobody.
    fn received(&self, data: JsValue) {
        // The loader's word on an error that reached the worker's top: the error's name. The
        // worker is stopped now, as its error event would stop it: Safari's engine does not pass
        // such an error on to the page at all, and the worker would go on, or hang, unheard.
        if let Some(name) = js_sys::Reflect::get(&data, &CRASH_KEY.into()).ok().and_then(|n| n.as_string()) {
            self.crash.set(Some(Crash::of_error_name(&name)));
            self.crashed();
            return;
        }
        let Ok(parcel) = Parcel::<FromWorker>::decode(data) else { return };
        if matches!(parcel.message, FromWorker::Ready) {
            self.ready.set(true);
            let waiting: Vec<Encoded> = self.queue.borrow_mut().drain(..).collect();
            for request in waiting {
                let _ = request.post_to(&self.worker);
            }
            for waiter in self.on_ready.borrow_mut().drain(..) {
                let _ = waiter.send(());
            }
            return;
        }
        let Some(id) = parcel.id else {
            // An error about a request the worker could not read, which it could not name.
            if let FromWorker::Error { message } = parcel.message {
                self.fail_all(|| WorkerError::Failed(message.clone()));
            }
            return;
        };
        // Taken out while it runs: it may make or forget requests itself.
        let Some(mut listener) = self.listeners.borrow_mut().remove(&id) else { return };
        let answer = match parcel.message {
            FromWorker::Error { message } => Err(WorkerError::Failed(message)),
            _ => Ok(parcel),
        };
        let failed = answer.is_err();
        if listener(answer) == Flow::More && !failed && !self.stopped.get() {
            self.listeners.borrow_mut().insert(id, listener);
        }
    }

    /// The worker stopped by itself: everyone waiting is told.
    fn crashed(&self) {
        let crash = self.crash.get().unwrap_or(Crash::Fault);
        let waiting: Vec<Listener> = self.listeners.borrow_mut().drain().map(|(_, l)| l).collect();
        self.stop();
        for mut listener in waiting {
            listener(Err(WorkerError::Stopped(crash)));
        }
    }

    fn fail_all(&self, error: impl Fn() -> WorkerError) {
        let waiting: Vec<Listener> = self.listeners.borrow_mut().drain().map(|(_, l)| l).collect();
        for mut listener in waiting {
            listener(Err(error()));
        }
    }

    fn stop(&self) {
        if self.stopped.replace(true) {
            return;
        }
        // A message already on its way finds no handler, not a dropped closure.
        self.worker.set_onmessage(None);
        self.worker.set_onerror(None);
        self.worker.terminate();
        self.queue.borrow_mut().clear();
        self.on_ready.borrow_mut().clear();
        // Listeners of a stopped worker are dropped unanswered; the closures go once no call of
        // theirs runs (wasm-bindgen defers freeing a closure that is running).
        let dropped: Vec<Listener> = self.listeners.borrow_mut().drain().map(|(_, l)| l).collect();
        drop(dropped);
        drop(self.handlers.borrow_mut().take());
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        self.stop();
    }
}

#[cfg(test)]
mod tests {
    use super::{CRASH_KEY, CRASH_REPORTER, Crash};

    #[test]
    fn the_loader_names_a_crash_as_the_page_reads_it() {
        assert!(CRASH_REPORTER.contains(CRASH_KEY));
        let loader = include_str!("../../scripts/worker_loader.js");
        assert!(loader.contains(CRASH_REPORTER), "scripts/worker_loader.js runs CRASH_REPORTER as it is");
        assert_eq!(Crash::of_error_name("RangeError"), Crash::OutOfMemory);
        assert_eq!(Crash::of_error_name("TypeError"), Crash::Unsupported);
        assert_eq!(Crash::of_error_name("RuntimeError"), Crash::Fault);
        assert_eq!(Crash::of_error_name(""), Crash::Fault);
    }
}
