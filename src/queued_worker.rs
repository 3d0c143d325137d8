//! A worker that takes requests before its code runs. Anything posted before a worker says
//! [`crate::protocol::FromWorker::Ready`] is lost, so requests wait in a queue until then, and
//! go in the order they were made. The worker started ahead of time is taken when one is
//! waiting (often ready already), else one is started.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use crate::protocol::Encoded;

/// The page's side of such a worker. Its owner listens to the worker's messages and calls
/// [`QueuedWorker::ready`] on its `Ready`.
#[derive(Clone)]
pub struct QueuedWorker {
    worker: web_sys::Worker,
    is_ready: Rc<Cell<bool>>,
    queue: Rc<RefCell<Vec<Encoded>>>,
}

impl QueuedWorker {
    /// Takes the worker started ahead of time, or starts one; another is started ahead for the
    /// next drop.
    pub fn start() -> Result<QueuedWorker, String> {
        let (worker, is_ready) = match crate::files::take_spare() {
            Some(spare) => {
                crate::files::prepare_worker_soon();
                spare
            }
            None => (crate::files::spawn_worker()?, false),
        };
        Ok(QueuedWorker { worker, is_ready: Rc::new(Cell::new(is_ready)), queue: Rc::default() })
    }

    pub fn worker(&self) -> &web_sys::Worker {
        &self.worker
    }

    /// Posts a request now if the worker runs, else once it does.
    pub fn post(&self, request: Encoded) -> Result<(), String> {
        if self.is_ready.get() {
            request.post_to(&self.worker)
        } else {
            self.queue.borrow_mut().push(request);
            Ok(())
        }
    }

    /// The worker said it runs: the requests waiting go, in order.
    pub fn ready(&self) {
        self.is_ready.set(true);
        for request in self.queue.borrow_mut().drain(..) {
            let _ = request.post_to(&self.worker);
        }
    }

    /// Stops the worker; a message already on its way finds no handler.
    pub fn stop(&self) {
        self.worker.set_onmessage(None);
        self.worker.set_onerror(None);
        self.worker.terminate();
    }
}
