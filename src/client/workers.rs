//! Where the page's workers come from: the worker program's loader (`worker_loader.js`, or the
//! copy an exported file carries), and the spare worker started ahead of time, so that one is
//! loaded, and warmed up, when files arrive. One [`Workers`] per page, made by the app and shared
//! by every client that starts a worker.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use super::handle::{StartError, WorkerHandle};
use crate::platform::probe::{self, Said};
use crate::platform::{page, schedule};
use crate::wire::messages::WarmUpRequest;
use crate::wire::{Parcel, ToWorker};

/// The page's workers. Clones share them.
#[derive(Clone)]
pub struct Workers {
    shared: Rc<Shared>,
}

struct Shared {
    /// Where workers start from, or why none can.
    url: Result<String, StartError>,
    spare: RefCell<Option<Spare>>,
    /// Parses of files in memory under way, each to give its worker back as the spare
    /// ([`Workers::lend`]): meanwhile no other spare is started, to compete with it for the CPU.
    lent: Cell<u32>,
}

/// A worker started ahead of time.
struct Spare {
    handle: WorkerHandle,
    /// It was asked to warm up ([`Workers::warm_spare`]): it does once, when it runs.
    warm: Cell<bool>,
}

/// A parse that borrowed the spare worker: while it lives, no other spare is started.
pub struct Lent {
    shared: Rc<Shared>,
}

impl Drop for Lent {
    fn drop(&mut self) {
        self.shared.lent.set(self.shared.lent.get().saturating_sub(1));
    }
}

impl Workers {
    /// The page's workers: started from `worker_loader.js`, or in an exported file from the
    /// worker it carries; none in a page opened from disk.
    pub fn new() -> Workers {
        let url = if !page::standalone() {
            Ok("./worker_loader.js".to_owned())
        } else {
            super::export::worker_url().ok_or(StartError::NoWorkerHere)
        };
        Workers { shared: Rc::new(Shared { url, spare: RefCell::new(None), lent: Cell::new(0) }) }
    }

    /// Starts a new worker.
    pub fn spawn(&self) -> Result<WorkerHandle, StartError> {
        WorkerHandle::spawn(self.shared.url.as_ref().map_err(Clone::clone)?)
    }

    /// Takes the worker started ahead of time, or starts one. No other is started ahead until a
    /// caller asks ([`Self::prepare_soon`]): not while a load needs the CPU.
    pub fn take_or_spawn(&self) -> Result<WorkerHandle, StartError> {
        match self.take_spare() {
            Some(spare) => Ok(spare),
            None => self.spawn(),
        }
    }

    /// Takes the worker started ahead of time, if one waits.
    pub fn take_spare(&self) -> Option<WorkerHandle> {
        let spare = self.shared.spare.borrow_mut().take()?;
        web_sys::console::debug_1(
            &format!("sessionscope load: spare worker ready: {}", spare.handle.is_ready()).into(),
        );
        Some(spare.handle)
    }

    /// Gives a worker back as the one started ahead of time, if none is waiting: its code is
    /// compiled and warm. Answers whether it was taken (if not, the caller lets it go).
    pub fn give_back(&self, handle: &WorkerHandle) -> bool {
        let mut spare = self.shared.spare.borrow_mut();
        if spare.is_some() || page::standalone() || handle.is_stopped() {
            return false;
        }
        handle.release();
        *spare = Some(Spare { handle: handle.clone(), warm: Cell::new(false) });
        probe::say(Said::SpareReady);
        true
    }

    /// A parse borrows the spare worker: no other is started ahead until the [`Lent`] goes.
    pub fn lend(&self) -> Lent {
        self.shared.lent.set(self.shared.lent.get() + 1);
        Lent { shared: self.shared.clone() }
    }

    /// Starts a worker ahead of time, unless one is waiting already or will be given back. Says
    /// when the one waiting is ready (at once, if it is).
    pub fn prepare(&self) {
        if page::standalone() || self.shared.lent.get() > 0 {
            return;
        }
        if let Some(spare) = self.shared.spare.borrow().as_ref() {
            if spare.handle.is_ready() {
                probe::say(Said::SpareReady);
            }
            return;
        }
        if let Ok(handle) = self.spawn() {
            let started = handle.clone();
            wasm_bindgen_futures::spawn_local(async move {
                if started.ready().await {
                    probe::say(Said::SpareReady);
                }
            });
            *self.shared.spare.borrow_mut() = Some(Spare { handle, warm: Cell::new(false) });
        }
    }

    /// Starts a worker ahead of time once the page is idle (its code is fetched then, not while
    /// the page's own is), or after 2 s at the latest.
    pub fn prepare_soon(&self) {
        let workers = self.clone();
        schedule::when_idle(move || workers.prepare(), 2000);
    }

    /// Files are on their way (dragged over the page, or a picker about to open): the worker
    /// started ahead of time makes its code fast on the bundled example meanwhile, once. Not
    /// before: warming up takes a core for a second or two, which the page needs when the
    /// example is opened (a click one second after the page was ready took 550 ms instead of
    /// 130 ms).
    pub fn warm_spare(&self) {
        self.prepare();
        if let Some(spare) = self.shared.spare.borrow().as_ref()
            && !spare.warm.replace(true)
        {
            let _ = spare.handle.send(Parcel::new(ToWorker::WarmUp(WarmUpRequest::Start)));
        }
    }

    /// Asks the worker started ahead of time to leave the CPU to the page for about `ms`
    /// milliseconds: a warm-up it is running waits.
    pub fn rest_spare(&self, ms: f64) {
        if let Some(spare) = self.shared.spare.borrow().as_ref() {
            let _ = spare.handle.send(Parcel::new(ToWorker::WarmUp(WarmUpRequest::Rest { ms })));
        }
    }
}

impl Default for Workers {
    fn default() -> Self {
        Workers::new()
    }
}
