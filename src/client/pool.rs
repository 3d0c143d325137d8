//! A pool of workers of the unit role, each doing one job per session unit of a history: index
//! it, or search it.
//!
//! Each worker is given up to three small units at a time (one big one alone) and the next as
//! soon as it answers one, so that it parses one while the browser reads the others: reading
//! files is a round trip through the browser's own process, and a worker that waited for each
//! would be idle half of the time.
//! Workers live for the whole pass: a fresh worker runs its code unoptimised for its first
//! hundreds of milliseconds (the browser optimises hot code as it runs), three times slower.
//! wasm memory does not shrink: only a worker that has just read a very big unit is let go and a
//! fresh one takes its place, so that memory is given back. A worker that stops (a crash, memory
//! exhausted) is replaced by a fresh one, and its units are read again (up to twice: another
//! worker may take one, and stop too; a unit whose third worker stops is answered with the
//! reason). Dropping the pool stops every worker.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::{Rc, Weak};

use super::handle::{Flow, StartError, WorkerError, WorkerHandle};
use super::workers::Workers;
use crate::platform::address;
use crate::wire::messages::UnitReply;
use crate::wire::{FromWorker, Parcel, ToWorker};

/// A worker that has read at least this many bytes of one unit is replaced after it answers.
const FRESH_WORKER_AFTER_BYTES: f64 = 64.0 * 1024.0 * 1024.0;

/// Times a unit whose worker stopped is read again.
const RETRIES: u8 = 2;

/// Units a worker is given at once.
const IN_FLIGHT: usize = 3;

/// A worker is given a second unit only if both are smaller than this: two big units at once
/// would double the worker's memory, and a big unit keeps a worker busy long enough.
const SECOND_UNIT_BELOW_BYTES: f64 = 8.0 * 1024.0 * 1024.0;

/// A unit this big is read by one worker at a time: each may hold up to what a load holds
/// (`HOLD_MAX_BYTES`, 1.6 GB) and its model, and two at once would be more than a tab has.
const ONE_AT_A_TIME_FROM_BYTES: f64 = 256.0 * 1024.0 * 1024.0;

/// Whether a unit of `size` bytes is read by one worker at a time ([`ONE_AT_A_TIME_FROM_BYTES`]).
fn reads_alone(size: f64) -> bool {
    size >= ONE_AT_A_TIME_FROM_BYTES
}

/// Which unit of the queue (its place) a worker takes next: the first, unless it is big and
/// another worker reads a big one already ([`ONE_AT_A_TIME_FROM_BYTES`]); then the first one that
/// is not big, if any.
fn pick(queue: &VecDeque<u32>, size: impl Fn(u32) -> f64, big_elsewhere: bool) -> Option<usize> {
    if !big_elsewhere {
        return (!queue.is_empty()).then_some(0);
    }
    queue.iter().position(|&unit| !reads_alone(size(unit)))
}

/// What the pool tells its owner: a unit's answer, or that every unit has been answered.
pub enum PoolEvent {
    /// Unit `unit`'s reply (its parcel's buffers beside it), or why it has none.
    Answer {
        unit: u32,
        reply: Result<(UnitReply, Vec<js_sys::ArrayBuffer>), WorkerError>,
    },
    Finished,
}

type Make = dyn Fn(u32) -> Option<Parcel<ToWorker>>;
type Handler = dyn Fn(PoolEvent);

struct Shared {
    workers: Workers,
    queue: RefCell<VecDeque<u32>>,
    /// The size of each unit's files, to know which workers to replace.
    sizes: RefCell<Vec<f64>>,
    /// No more units will be pushed: once the queue is empty and every answer is in, the pool
    /// has finished. Until then idle workers wait for more.
    closed: Cell<bool>,
    make: Box<Make>,
    handler: Box<Handler>,
    stopped: Cell<bool>,
    slots: RefCell<Vec<Option<Slot>>>,
    /// How many times each unit whose worker stopped was queued again.
    retried: RefCell<std::collections::HashMap<u32, u8>>,
}

struct Slot {
    handle: WorkerHandle,
    /// The units this worker is reading.
    units: Rc<RefCell<Vec<u32>>>,
}

/// Workers running jobs; dropping it stops them.
pub struct Pool {
    shared: Rc<Shared>,
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.shared.stopped.set(true);
        // A message a worker posted may still be on its way: stopping takes its handlers off.
        let slots: Vec<Slot> = self.shared.slots.borrow_mut().iter_mut().filter_map(Option::take).collect();
        for slot in slots {
            slot.handle.stop();
        }
    }
}

/// How many workers to run: one per core the browser reports, at most four, at least one. A
/// page opened with `?workers=N` in its address runs N (1 to 8), for benchmarks.
pub fn worker_count() -> usize {
    let asked = address::query_value("workers").and_then(|n| n.parse::<usize>().ok()).filter(|n| (1..=8).contains(n));
    let cores = web_sys::window().map_or(2.0, |w| w.navigator().hardware_concurrency());
    asked.unwrap_or((cores as usize).clamp(1, 4))
}

impl Pool {
    /// Runs one job per unit of `units`, in their order, on up to `workers` workers. `make` builds
    /// the request of a unit (`None` if there is no such unit); `sizes[u]` is unit `u`'s bytes.
    /// `handler` hears every answer, then [`PoolEvent::Finished`]. With `more_coming`, units are
    /// added with [`Pool::push`] until [`Pool::close`], and the pool finishes only after that.
    pub fn start(
        workers: &Workers,
        units: Vec<u32>,
        sizes: Vec<f64>,
        count: usize,
        more_coming: bool,
        make: impl Fn(u32) -> Option<Parcel<ToWorker>> + 'static,
        handler: impl Fn(PoolEvent) + 'static,
    ) -> Result<Pool, StartError> {
        let count = if more_coming { count.max(1) } else { count.min(units.len()).max(1) };
        let shared = Rc::new(Shared {
            workers: workers.clone(),
            queue: RefCell::new(units.into()),
            sizes: RefCell::new(sizes),
            closed: Cell::new(!more_coming),
            make: Box::new(make),
            handler: Box::new(handler),
            stopped: Cell::new(false),
            slots: RefCell::new((0..count).map(|_| None).collect()),
            retried: RefCell::default(),
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
            let state = shared
                .slots
                .borrow()
                .get(slot)
                .and_then(Option::as_ref)
                .map(|s| (s.handle.is_ready(), s.handle.is_stopped()));
            match state {
                // A worker let go while the queue was empty (after a very big unit), or one that
                // stopped by itself between two units.
                None | Some((_, true)) => {
                    let _ = start_slot(shared, slot);
                }
                Some((true, false)) => fill(shared, slot),
                // It takes units once it runs.
                Some((false, false)) => {}
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
            let idle: Vec<Slot> = shared
                .slots
                .borrow_mut()
                .iter_mut()
                .filter(|slot| slot.as_ref().is_some_and(|s| s.units.borrow().is_empty()))
                .filter_map(Option::take)
                .collect();
            for slot in idle {
                slot.handle.stop();
            }
            finish_if_done(shared);
        }
    }
}

/// Starts a worker in `slot`; once it runs it takes the next units.
fn start_slot(shared: &Rc<Shared>, slot: usize) -> Result<(), StartError> {
    let handle = shared.workers.spawn()?;
    let weak = Rc::downgrade(shared);
    let waiting = handle.clone();
    wasm_bindgen_futures::spawn_local(async move {
        if waiting.ready().await
            && let Some(shared) = weak.upgrade()
            && !shared.stopped.get()
        {
            fill(&shared, slot);
        }
    });
    if let Some(place) = shared.slots.borrow_mut().get_mut(slot) {
        *place = Some(Slot { handle, units: Rc::default() });
    }
    Ok(())
}

/// A unit's answer came (or its worker stopped): its owner hears it, and the worker takes the
/// next, or a fresh one takes its place.
fn answered(weak: &Weak<Shared>, slot: usize, units: &Rc<RefCell<Vec<u32>>>, unit: u32, answer: PoolEvent) {
    let Some(shared) = weak.upgrade() else { return };
    if shared.stopped.get() {
        return;
    }
    units.borrow_mut().retain(|&u| u != unit);
    let crashed = matches!(&answer, PoolEvent::Answer { reply: Err(WorkerError::Stopped(_)), .. });
    // A unit whose worker stopped is read again, up to twice: the fault may have been another
    // unit's (memory), or the browser's.
    let again = crashed && {
        let mut retried = shared.retried.borrow_mut();
        let tries = retried.entry(unit).or_default();
        *tries += 1;
        *tries <= RETRIES
    };
    if again {
        web_sys::console::warn_1(&format!("sessionscope: a worker stopped; unit {unit} is read again").into());
        shared.queue.borrow_mut().push_front(unit);
    } else {
        (shared.handler)(answer);
    }
    if shared.stopped.get() {
        return;
    }
    let big = shared.sizes.borrow().get(unit as usize).copied().unwrap_or(0.0) >= FRESH_WORKER_AFTER_BYTES;
    let more = !shared.queue.borrow().is_empty() || !shared.closed.get();
    if crashed {
        // Its other units hear the same; the last of them replaces the worker.
        if units.borrow().is_empty() {
            replace(&shared, slot);
        }
    } else if big && more && units.borrow().is_empty() {
        replace(&shared, slot);
    } else {
        fill(&shared, slot);
    }
    // A worker left waiting while a big unit was read elsewhere takes the next one now.
    let idle: Vec<usize> = shared
        .slots
        .borrow()
        .iter()
        .enumerate()
        .filter(|(other, held)| {
            *other != slot && held.as_ref().is_some_and(|held| held.handle.is_ready() && held.units.borrow().is_empty())
        })
        .map(|(other, _)| other)
        .collect();
    for other in idle {
        fill(&shared, other);
    }
}

/// Lets the worker of `slot` go and starts a fresh one, which takes the next unit when it runs.
fn replace(shared: &Rc<Shared>, slot: usize) {
    let old = shared.slots.borrow_mut().get_mut(slot).and_then(Option::take);
    if let Some(old) = old {
        old.handle.stop();
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
        let (handle, units) = {
            let slots = shared.slots.borrow();
            let Some(current) = slots.get(slot).and_then(Option::as_ref) else { return };
            (current.handle.clone(), current.units.clone())
        };
        if handle.is_stopped() {
            // It stopped by itself while it held no unit (a crash between two units, when none
            // was queued): a unit given to it would fail as cancelled, so a fresh one takes its
            // place. One that held units is replaced by the last of their answers.
            if units.borrow().is_empty() {
                replace(shared, slot);
            }
            return;
        }
        let (picked, busy_with_big) = {
            let sizes = shared.sizes.borrow();
            let size = |unit: u32| sizes.get(unit as usize).copied().unwrap_or(0.0);
            let big_elsewhere = shared.slots.borrow().iter().enumerate().any(|(other, held)| {
                other != slot
                    && held.as_ref().is_some_and(|held| held.units.borrow().iter().any(|&u| reads_alone(size(u))))
            });
            let queue = shared.queue.borrow();
            let picked = pick(&queue, size, big_elsewhere);
            let units = units.borrow();
            let busy_with_big = !units.is_empty()
                && (units.iter().any(|&u| size(u) >= SECOND_UNIT_BELOW_BYTES)
                    || picked.and_then(|i| queue.get(i)).is_some_and(|&u| size(u) >= SECOND_UNIT_BELOW_BYTES));
            (picked, busy_with_big)
        };
        if busy_with_big {
            // It takes the next unit when it answers this one.
            return;
        }
        if picked.is_none() && !shared.queue.borrow().is_empty() {
            // Only big units are left, and another worker reads one: this one waits, warm, and
            // is given the next when that one is answered.
            return;
        }
        let Some(unit) = picked.and_then(|i| shared.queue.borrow_mut().remove(i)) else {
            if !shared.closed.get() {
                // More units may come: the worker waits for them, warm.
                return;
            }
            if units.borrow().is_empty() {
                let idle = shared.slots.borrow_mut().get_mut(slot).and_then(Option::take);
                if let Some(idle) = idle {
                    idle.handle.stop();
                }
            }
            finish_if_done(shared);
            return;
        };
        let Some(request) = (shared.make)(unit) else {
            let reply = Err(WorkerError::Failed(format!("no unit {unit}")));
            (shared.handler)(PoolEvent::Answer { unit, reply });
            continue;
        };
        units.borrow_mut().push(unit);
        let weak = Rc::downgrade(shared);
        let listener_units = units.clone();
        let asked = handle.request(request, move |answer| {
            let reply = answer.and_then(|parcel| match parcel.message {
                FromWorker::Unit(reply) => Ok((reply, parcel.buffers)),
                _ => Err(WorkerError::Failed("the worker answered something else".to_owned())),
            });
            answered(&weak, slot, &listener_units, unit, PoolEvent::Answer { unit, reply });
            Flow::Done
        });
        match asked {
            Ok(_) => return,
            Err(error) => {
                units.borrow_mut().retain(|&u| u != unit);
                (shared.handler)(PoolEvent::Answer { unit, reply: Err(error) });
            }
        }
    }
}

fn finish_if_done(shared: &Shared) {
    if shared.queue.borrow().is_empty() && shared.closed.get() && !shared.stopped.get() {
        let busy = shared.slots.borrow().iter().flatten().any(|slot| !slot.units.borrow().is_empty());
        if !busy {
            shared.stopped.set(true);
            (shared.handler)(PoolEvent::Finished);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MB: f64 = 1024.0 * 1024.0;

    #[test]
    fn a_big_unit_waits_while_another_worker_reads_one() {
        let sizes = [1_600.0 * MB, 900.0 * MB, 3.0 * MB, 400.0 * MB, 1.0 * MB];
        let size = |unit: u32| sizes[unit as usize];
        let queue: VecDeque<u32> = [0, 1, 2, 3, 4].into();
        assert_eq!(pick(&queue, size, false), Some(0), "the first, when no big one is read elsewhere");
        assert_eq!(pick(&queue, size, true), Some(2), "else the first that is not big");
        let bigs: VecDeque<u32> = [1, 3].into();
        assert_eq!(pick(&bigs, size, true), None, "only big ones left: the worker waits");
        assert_eq!(pick(&bigs, size, false), Some(0));
        assert_eq!(pick(&VecDeque::new(), size, false), None);
    }
}
