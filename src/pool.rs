//! A pool of workers that do one job per session unit of a history: index it, or search it.
//!
//! Each worker is given up to three small units at a time (one big one alone) and the next as
//! soon as it answers one, so that it parses one while the browser reads the others: reading
//! files is a round trip through the browser's own process, and a worker that waited for each
//! would be idle half of the time.
//! Workers live for the whole pass: a fresh worker runs its code unoptimised for its first
//! hundreds of milliseconds (the browser optimises hot code as it runs), three times slower.
//! wasm memory does not shrink: only a worker that has just read a very big unit is let go and a
//! fresh one takes its place, so that memory is given back. A worker that stops (a
//! crash, memory exhausted) fails only the unit it was reading; a fresh one goes on with the
//! rest. Dropping the pool stops every worker.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;

use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

use crate::protocol::{Encoded, Envelope, FromWorker};

/// A worker that has read at least this many bytes of one unit is replaced after it answers.
const FRESH_WORKER_AFTER_BYTES: f64 = 64.0 * 1024.0 * 1024.0;

/// What the pool tells its owner: a unit's answer (a worker's error included), or that every
/// unit has been answered.
pub enum PoolEvent {
    /// `buffers`: the reply envelope's own (see [`FromWorker`]).
    Answer {
        unit: u32,
        reply: FromWorker,
        buffers: Vec<js_sys::ArrayBuffer>,
    },
    Finished,
}

type Make = dyn Fn(u32) -> Result<Encoded, String>;
type Handler = dyn Fn(PoolEvent);

struct Shared {
    queue: RefCell<VecDeque<u32>>,
    /// The size of each unit's files, to know which workers to replace.
    sizes: RefCell<Vec<f64>>,
    /// No more units will be pushed: once the queue is empty and every answer is in, the pool
    /// has finished. Until then idle workers wait for more.
    closed: Cell<bool>,
    make: Box<Make>,
    handler: Box<Handler>,
    in_flight: Cell<usize>,
    stopped: Cell<bool>,
    slots: RefCell<Vec<Option<Slot>>>,
}

/// Units a worker is given at once.
const IN_FLIGHT: usize = 3;

/// A worker is given a second unit only if both are smaller than this: two big units at once
/// would double the worker's memory, and a big unit keeps a worker busy long enough.
const SECOND_UNIT_BELOW_BYTES: f64 = 8.0 * 1024.0 * 1024.0;

struct Slot {
    worker: web_sys::Worker,
    /// The units this worker is reading.
    units: Rc<RefCell<Vec<u32>>>,
    /// It has loaded and said so: it can be given units.
    ready: Rc<Cell<bool>>,
    _on_message: Closure<dyn FnMut(web_sys::MessageEvent)>,
    _on_error: Closure<dyn FnMut(web_sys::ErrorEvent)>,
}

/// Workers running jobs; dropping it stops them.
pub struct Pool {
    shared: Rc<Shared>,
}

impl Drop for Pool {
    fn drop(&mut self) {
        stop(&self.shared);
    }
}

fn stop(shared: &Shared) {
    shared.stopped.set(true);
    for slot in shared.slots.borrow_mut().iter_mut() {
        if let Some(slot) = slot.take() {
            let_go(slot);
        }
    }
}

/// Stops a slot's worker. A message it posted may still be on its way to the page: its handlers
/// are taken off before their closures are dropped, so it finds none.
fn let_go(slot: Slot) {
    slot.worker.set_onmessage(None);
    slot.worker.set_onerror(None);
    slot.worker.terminate();
}

/// How many workers to run: one per core the browser reports, at most four, at least one. A
/// page opened with `?workers=N` in its address runs N (1 to 8), for benchmarks.
pub fn worker_count() -> usize {
    let asked = web_sys::window()
        .and_then(|w| w.location().search().ok())
        .and_then(|query| {
            query
                .trim_start_matches('?')
                .split('&')
                .find_map(|pair| pair.strip_prefix("workers=")?.parse::<usize>().ok())
        })
        .filter(|n| (1..=8).contains(n));
    let cores = web_sys::window().map_or(2.0, |w| w.navigator().hardware_concurrency());
    asked.unwrap_or((cores as usize).clamp(1, 4))
}

impl Pool {
    /// Runs one job per unit of `units`, in their order, on up to `workers` workers. `make` builds
    /// the request of a unit; `sizes[u]` is unit `u`'s bytes. `handler` hears every answer, then
    /// [`PoolEvent::Finished`]. With `more_coming`, units are added with [`Pool::push`] until
    /// [`Pool::close`], and the pool finishes only after that.
    pub fn start(
        units: Vec<u32>,
        sizes: Vec<f64>,
        workers: usize,
        more_coming: bool,
        make: impl Fn(u32) -> Result<Encoded, String> + 'static,
        handler: impl Fn(PoolEvent) + 'static,
    ) -> Result<Pool, String> {
        let count = if more_coming { workers.max(1) } else { workers.min(units.len()).max(1) };
        let shared = Rc::new(Shared {
            queue: RefCell::new(units.into()),
            sizes: RefCell::new(sizes),
            closed: Cell::new(!more_coming),
            make: Box::new(make),
            handler: Box::new(handler),
            in_flight: Cell::new(0),
            stopped: Cell::new(false),
            slots: RefCell::new((0..count).map(|_| None).collect()),
        });
        if shared.queue.borrow().is_empty() && !more_coming {
            (shared.handler)(PoolEvent::Finished);
            return Ok(Pool { shared });
        }
        for slot in 0..count {
            start_slot(&shared, slot)?;
        }
        Ok(Pool { shared })
    }

    /// Adds units to the end of the queue (`sizes` in the order of their ids, which follow the
    /// ones given before): idle workers take them at once.
    pub fn push(&self, units: impl IntoIterator<Item = u32>, sizes: impl IntoIterator<Item = f64>) {
        let shared = &self.shared;
        if shared.stopped.get() {
            return;
        }
        shared.queue.borrow_mut().extend(units);
        shared.sizes.borrow_mut().extend(sizes);
        let count = shared.slots.borrow().len();
        for slot in 0..count {
            let state = shared.slots.borrow().get(slot).and_then(Option::as_ref).map(|s| s.ready.get());
            match state {
                // A worker let go while the queue was empty (after a very big unit).
                None => {
                    let _ = start_slot(shared, slot);
                }
                Some(true) => fill(shared, slot),
                // It takes units once it is ready.
                Some(false) => {}
            }
        }
    }

    /// Every unit's bytes anew (`sizes[u]` for unit `u`), where units already given changed size.
    pub fn set_sizes(&self, sizes: Vec<f64>) {
        *self.shared.sizes.borrow_mut() = sizes;
    }

    /// No more units will come: the pool finishes once the queued ones are answered.
    pub fn close(&self) {
        let shared = &self.shared;
        shared.closed.set(true);
        if shared.queue.borrow().is_empty() {
            // Idle workers go now.
            for slot in shared.slots.borrow().iter().flatten() {
                if slot.units.borrow().is_empty() {
                    slot.worker.terminate();
                }
            }
            finish_if_done(shared);
        }
    }
}

/// Starts a worker in `slot`; once it is ready it takes the next unit.
fn start_slot(shared: &Rc<Shared>, slot: usize) -> Result<(), String> {
    let worker = web_sys::Worker::new("./worker_loader.js").map_err(|_| "a worker could not start".to_owned())?;
    let units: Rc<RefCell<Vec<u32>>> = Rc::new(RefCell::new(Vec::new()));
    let ready = Rc::new(Cell::new(false));
    let weak = Rc::downgrade(shared);
    let on_message = {
        let units = units.clone();
        let ready = ready.clone();
        let weak = weak.clone();
        Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |event: web_sys::MessageEvent| {
            let Some(shared) = weak.upgrade() else { return };
            if shared.stopped.get() {
                return;
            }
            let Ok(reply) = Envelope::<FromWorker>::decode(event.data()) else { return };
            let buffers = reply.buffers;
            match reply.message {
                FromWorker::Ready => {
                    ready.set(true);
                    fill(&shared, slot);
                }
                FromWorker::Progress { .. } | FromWorker::Building => {}
                message => {
                    let answered = match &message {
                        FromWorker::Indexed { unit, .. } | FromWorker::UnitHits { unit, .. } => Some(*unit),
                        _ => None,
                    };
                    // An answer names its unit; an error of another kind is the oldest one's.
                    let done = {
                        let mut units = units.borrow_mut();
                        let at = answered
                            .and_then(|u| units.iter().position(|&x| x == u))
                            .or((!units.is_empty()).then_some(0));
                        at.map(|at| units.remove(at))
                    };
                    let Some(done) = done else { return };
                    shared.in_flight.set(shared.in_flight.get().saturating_sub(1));
                    (shared.handler)(PoolEvent::Answer { unit: done, reply: message, buffers });
                    let big =
                        shared.sizes.borrow().get(done as usize).copied().unwrap_or(0.0) >= FRESH_WORKER_AFTER_BYTES;
                    let more = !shared.queue.borrow().is_empty() || !shared.closed.get();
                    if big && more && units.borrow().is_empty() {
                        replace(&shared, slot);
                    } else {
                        fill(&shared, slot);
                    }
                }
            }
        })
    };
    let on_error = {
        let units = units.clone();
        Closure::<dyn FnMut(web_sys::ErrorEvent)>::new(move |event: web_sys::ErrorEvent| {
            event.prevent_default();
            let Some(shared) = weak.upgrade() else { return };
            if shared.stopped.get() {
                return;
            }
            let message = format!("the worker reading it stopped: {}", event.message());
            let failed: Vec<u32> = units.borrow_mut().drain(..).collect();
            for failed in failed {
                shared.in_flight.set(shared.in_flight.get().saturating_sub(1));
                let reply = FromWorker::Error { message: message.clone() };
                (shared.handler)(PoolEvent::Answer { unit: failed, reply, buffers: Vec::new() });
            }
            replace(&shared, slot);
        })
    };
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    if let Some(place) = shared.slots.borrow_mut().get_mut(slot) {
        *place = Some(Slot { worker, units, ready, _on_message: on_message, _on_error: on_error });
    }
    Ok(())
}

/// Lets the worker of `slot` go and starts a fresh one, which takes the next unit when ready.
/// The old worker's closures are dropped later, not while one of them runs.
fn replace(shared: &Rc<Shared>, slot: usize) {
    let old = shared.slots.borrow_mut().get_mut(slot).and_then(Option::take);
    if let Some(old) = old {
        old.worker.set_onmessage(None);
        old.worker.set_onerror(None);
        old.worker.terminate();
        let keep = Closure::once_into_js(move || drop(old));
        if let Some(window) = web_sys::window() {
            let _ = window.set_timeout_with_callback_and_timeout_and_arguments_0(keep.unchecked_ref(), 0);
        }
    }
    if shared.queue.borrow().is_empty() {
        finish_if_done(shared);
        return;
    }
    if start_slot(shared, slot).is_err() {
        finish_if_done(shared);
    }
}

/// Gives the worker of `slot` units until it has [`IN_FLIGHT`] (or one big one), or none is left.
fn fill(shared: &Rc<Shared>, slot: usize) {
    let held =
        || shared.slots.borrow().get(slot).and_then(Option::as_ref).map_or(usize::MAX, |s| s.units.borrow().len());
    for _ in 0..IN_FLIGHT {
        let before = held();
        if before >= IN_FLIGHT || shared.queue.borrow().is_empty() && before > 0 {
            return;
        }
        next(shared, slot);
        if held() <= before {
            return;
        }
    }
}

/// Gives the worker of `slot` the next unit, or lets it go when none is left and it is idle.
fn next(shared: &Rc<Shared>, slot: usize) {
    loop {
        let busy_with_big = {
            let slots = shared.slots.borrow();
            let sizes = shared.sizes.borrow();
            let size = |unit: &u32| sizes.get(*unit as usize).copied().unwrap_or(0.0);
            slots.get(slot).and_then(Option::as_ref).is_some_and(|current| {
                let units = current.units.borrow();
                !units.is_empty()
                    && (units.iter().any(|u| size(u) >= SECOND_UNIT_BELOW_BYTES)
                        || shared.queue.borrow().front().is_some_and(|u| size(u) >= SECOND_UNIT_BELOW_BYTES))
            })
        };
        if busy_with_big {
            // It takes the next unit when it answers this one.
            return;
        }
        let Some(unit) = shared.queue.borrow_mut().pop_front() else {
            if !shared.closed.get() {
                // More units may come: the worker waits for them, warm.
                return;
            }
            if let Some(old) = shared.slots.borrow().get(slot).and_then(Option::as_ref)
                && old.units.borrow().is_empty()
            {
                old.worker.terminate();
            }
            finish_if_done(shared);
            return;
        };
        let posted = (shared.make)(unit).and_then(|request| {
            let slots = shared.slots.borrow();
            let Some(current) = slots.get(slot).and_then(Option::as_ref) else {
                return Err("the worker is gone".to_owned());
            };
            current.units.borrow_mut().push(unit);
            request.post_to(&current.worker).inspect_err(|_| {
                current.units.borrow_mut().retain(|&u| u != unit);
            })
        });
        match posted {
            Ok(()) => {
                shared.in_flight.set(shared.in_flight.get() + 1);
                return;
            }
            Err(message) => {
                (shared.handler)(PoolEvent::Answer { unit, reply: FromWorker::Error { message }, buffers: Vec::new() })
            }
        }
    }
}

fn finish_if_done(shared: &Shared) {
    if shared.in_flight.get() == 0 && shared.queue.borrow().is_empty() && shared.closed.get() && !shared.stopped.get() {
        let busy = shared.slots.borrow().iter().flatten().any(|slot| !slot.units.borrow().is_empty());
        if !busy {
            shared.stopped.set(true);
            (shared.handler)(PoolEvent::Finished);
        }
    }
}
