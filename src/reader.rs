//! Reading files in a second thread for a worker (`scripts/reader.js`). A worker's own reads of a
//! `File` do not move while it runs wasm: the browser hands the bytes to the thread that asked,
//! between its tasks, so a worker that reads and parses does one, then the other. The reader, a
//! small worker of its own started by the index or search worker, reads the files of a unit in
//! order, a few reads at once, and posts their bytes (transferred, not copied) while the worker
//! parses the ones before.
//!
//! One reader serves every unit of its worker, in the order they were asked for. At most
//! [`WINDOW_BYTES`] are posted and not yet used: the worker says what it used, and what it throws
//! away (a search that has its hits) counts as used.

use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::rc::Rc;
use std::task::{Poll, Waker};

use js_sys::{Array, Object, Reflect, Uint8Array};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

/// Bytes posted by the reader and not yet used, at most.
const WINDOW_BYTES: f64 = 64.0 * 1024.0 * 1024.0;

/// A piece of a file, as the reader posted it.
pub enum Piece {
    /// The next bytes of a file; `last` says they are its end.
    Bytes { bytes: Vec<u8>, last: bool },
    /// The file could not be read from `offset` on: why, in words.
    Failed { reason: String, offset: f64 },
}

struct Received {
    buffer: Option<js_sys::ArrayBuffer>,
    last: bool,
    error: Option<(String, f64)>,
}

#[derive(Default)]
struct Inbox {
    pieces: HashMap<u32, VecDeque<Received>>,
    wakers: HashMap<u32, Waker>,
    /// Whether the reader started (`None` while it starts); `Some(false)` once it failed.
    running: Option<bool>,
    /// Who waits for it to start.
    starting: Vec<Waker>,
}

impl Inbox {
    fn wake_all(&mut self) {
        self.starting.drain(..).for_each(Waker::wake);
        self.wakers.drain().for_each(|(_, waker)| waker.wake());
    }
}

/// The reader of this worker.
pub struct Reader {
    worker: web_sys::Worker,
    inbox: Rc<RefCell<Inbox>>,
    next_job: std::cell::Cell<u32>,
    _on_message: Closure<dyn FnMut(web_sys::MessageEvent)>,
    _on_error: Closure<dyn FnMut(web_sys::Event)>,
}

thread_local! {
    static READER: RefCell<Option<Option<Rc<Reader>>>> = const { RefCell::new(None) };
}

impl Reader {
    /// This worker's reader, started on first use; `None` where a worker cannot start one, or
    /// it stopped (the worker then reads itself).
    pub async fn get() -> Option<Rc<Reader>> {
        let reader =
            READER.with(|reader| reader.borrow_mut().get_or_insert_with(|| Reader::start().map(Rc::new)).clone())?;
        let running = std::future::poll_fn(|context| {
            let mut inbox = reader.inbox.borrow_mut();
            match inbox.running {
                Some(running) => Poll::Ready(running),
                None => {
                    inbox.starting.push(context.waker().clone());
                    Poll::Pending
                }
            }
        })
        .await;
        running.then_some(reader)
    }

    fn start() -> Option<Reader> {
        let worker = web_sys::Worker::new("./reader.js").ok()?;
        let inbox: Rc<RefCell<Inbox>> = Rc::default();
        let on_message = {
            let inbox = inbox.clone();
            let reader = worker.clone();
            Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |event: web_sys::MessageEvent| {
                let data = event.data();
                if Reflect::get(&data, &"ready".into()).ok().is_some_and(|v| v.is_truthy()) {
                    let mut inbox = inbox.borrow_mut();
                    inbox.running.get_or_insert(true);
                    inbox.wake_all();
                    return;
                }
                let number = |key: &str| Reflect::get(&data, &key.into()).ok().and_then(|v| v.as_f64());
                let (Some(job), Some(_file)) = (number("job"), number("file")) else { return };
                let error = Reflect::get(&data, &"error".into()).ok().and_then(|v| v.as_string());
                let received = Received {
                    buffer: Reflect::get(&data, &"buffer".into()).ok().and_then(|b| b.dyn_into().ok()),
                    last: Reflect::get(&data, &"last".into()).ok().is_some_and(|v| v.is_truthy()),
                    error: error.map(|name| (name, number("offset").unwrap_or(0.0))),
                };
                let mut inbox = inbox.borrow_mut();
                let job = job as u32;
                match inbox.pieces.get_mut(&job) {
                    Some(pieces) => pieces.push_back(received),
                    // The job was let go (a search with its hits): its bytes count as used.
                    None => {
                        let bytes = received.buffer.map_or(0.0, |b| b.byte_length() as f64);
                        post_used(&reader, bytes);
                    }
                }
                if let Some(waker) = inbox.wakers.remove(&job) {
                    waker.wake();
                }
            })
        };
        // A reader that cannot load, or stops, leaves the worker to read itself; the files being
        // read fail with the reason.
        let on_error = {
            let inbox = inbox.clone();
            Closure::<dyn FnMut(web_sys::Event)>::new(move |event: web_sys::Event| {
                event.prevent_default();
                let mut inbox = inbox.borrow_mut();
                inbox.running = Some(false);
                let jobs: Vec<u32> = inbox.pieces.keys().copied().collect();
                for job in jobs {
                    let failed = Received { buffer: None, last: true, error: Some(("ReaderStopped".into(), 0.0)) };
                    inbox.pieces.entry(job).or_default().push_back(failed);
                }
                inbox.wake_all();
            })
        };
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        Some(Reader { worker, inbox, next_job: std::cell::Cell::new(0), _on_message: on_message, _on_error: on_error })
    }

    /// Asks for `files` to be read, in order.
    pub fn read(self: &Rc<Self>, files: &[web_sys::File], slice: usize) -> Option<Job> {
        if self.inbox.borrow().running != Some(true) {
            return None;
        }
        let job = self.next_job.get();
        self.next_job.set(job.wrapping_add(1));
        let message = Object::new();
        let list: Array = files.iter().collect();
        let _ = Reflect::set(&message, &"job".into(), &job.into());
        let _ = Reflect::set(&message, &"files".into(), &list);
        let _ = Reflect::set(&message, &"slice".into(), &(slice as f64).into());
        let _ = Reflect::set(&message, &"window".into(), &WINDOW_BYTES.into());
        self.inbox.borrow_mut().pieces.insert(job, VecDeque::new());
        if self.worker.post_message(&message).is_err() {
            self.inbox.borrow_mut().pieces.remove(&job);
            return None;
        }
        Some(Job { reader: self.clone(), job })
    }
}

/// Tells the reader that `bytes` it posted were used.
fn post_used(reader: &web_sys::Worker, bytes: f64) {
    if bytes > 0.0 {
        let message = Object::new();
        let _ = Reflect::set(&message, &"used".into(), &bytes.into());
        let _ = reader.post_message(&message);
    }
}

/// The reading of one unit's files: their pieces, file after file, in order.
pub struct Job {
    reader: Rc<Reader>,
    job: u32,
}

impl Job {
    /// The next piece, of the file being read (the files are read in the order given). After a
    /// piece that is `last` or `Failed` comes the next file's first.
    pub async fn next(&mut self) -> Piece {
        let received = std::future::poll_fn(|context| {
            let mut inbox = self.reader.inbox.borrow_mut();
            match inbox.pieces.get_mut(&self.job).and_then(VecDeque::pop_front) {
                Some(front) => Poll::Ready(front),
                None => {
                    inbox.wakers.insert(self.job, context.waker().clone());
                    Poll::Pending
                }
            }
        })
        .await;
        let Received { buffer, last, error, .. } = received;
        if let Some((name, offset)) = error {
            return Piece::Failed { reason: crate::worker::read_error_named(&name), offset };
        }
        let bytes = buffer.map(|buffer| Uint8Array::new(&buffer).to_vec()).unwrap_or_default();
        post_used(&self.reader.worker, bytes.len() as f64);
        Piece::Bytes { bytes, last }
    }
}

impl Drop for Job {
    /// What the reader posted for this job and was not used counts as used; it reads no more of it.
    fn drop(&mut self) {
        let left = {
            let mut inbox = self.reader.inbox.borrow_mut();
            inbox.wakers.remove(&self.job);
            inbox.pieces.remove(&self.job)
        };
        let unused: f64 = left.into_iter().flatten().filter_map(|r| r.buffer).map(|b| b.byte_length() as f64).sum();
        post_used(&self.reader.worker, unused);
        let message = Object::new();
        let _ = Reflect::set(&message, &"cancel".into(), &self.job.into());
        let _ = self.reader.worker.post_message(&message);
    }
}
