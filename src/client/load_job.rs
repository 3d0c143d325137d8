//! A load: files handed to a worker of the load role, which parses them and sends the model back
//! (and, for a big load, a preview first), while the page reads the same files' bytes itself, so
//! they never cross between threads. Files already in memory (the example, a share) are parsed
//! the same way ([`parse_in_worker`]): the page holds no parser of its own (`docs/size.md`).

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use super::handle::{Answer, Flow, WorkerError, WorkerHandle};
use super::picked::PickedFile;
use super::workers::Workers;
use crate::logic::load_progress::Progress;
use crate::logic::loaded::Model;
use crate::platform::byte_stream::{PieceError, STREAM_ABOVE_BYTES, read_all};
use crate::platform::errors::ReadError;
use crate::platform::{files, schedule};
use crate::wire::codec::{CodecError, model_from_buffer};
use crate::wire::limits::{HOLD_MAX_BYTES, PREVIEW_FROM_TOTAL, READ_AFTER_PARSE_FROM, SLICE_BYTES};
use crate::wire::messages::{LoadReply, LoadRequest};
use crate::wire::{FromWorker, Parcel, ToWorker, buffer_of, bytes_of};
use sessionscope_engine::load::{append_filled, held_sizes};

/// Why a load gave no model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LoadError {
    /// It was cancelled (another load replaced it, or the user stopped it).
    Cancelled,
    /// The worker could not start, failed the load (its words), or stopped.
    Worker(WorkerError),
    /// The page could not read a file's bytes: its path, and why.
    Read(String, PieceError),
    /// The worker's model could not be read, or the files changed while they were read.
    Model(CodecError),
    /// The worker said it was done and sent no model.
    NoModel,
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LoadError::Cancelled => f.write_str("cancelled"),
            LoadError::Worker(WorkerError::Stopped(crash)) => {
                write!(f, "the loading worker {crash}: {}", crash.advice())
            }
            LoadError::Worker(error) => error.fmt(f),
            LoadError::Read(path, error) => write!(f, "{path} {error}"),
            LoadError::Model(error) => error.fmt(f),
            LoadError::NoModel => f.write_str("the loading worker sent no model"),
        }
    }
}

impl LoadError {
    /// Whether it is no failure but a cancel.
    pub fn is_cancelled(&self) -> bool {
        matches!(self, LoadError::Cancelled | LoadError::Worker(WorkerError::Cancelled))
    }
}

impl From<WorkerError> for LoadError {
    fn from(error: WorkerError) -> LoadError {
        LoadError::Worker(error)
    }
}

/// A load in progress: dropping it (or calling `cancel`) stops the worker and the reading.
pub struct LoadJob {
    /// `None` when the page reads the files itself.
    worker: Option<WorkerHandle>,
    cancelled: Rc<Cell<bool>>,
}

impl LoadJob {
    /// A job the page runs itself: it stops at its next step once `cancelled` is set.
    pub fn on_page(cancelled: Rc<Cell<bool>>) -> LoadJob {
        LoadJob { worker: None, cancelled }
    }

    /// The job's worker, its job done, for another: it no longer answers this job, and is not
    /// stopped. `None` for a job on the page.
    pub fn into_worker(mut self) -> Option<WorkerHandle> {
        let worker = self.worker.take()?;
        worker.release();
        Some(worker)
    }

    pub fn cancel(&self) {
        self.cancelled.set(true);
        if let Some(worker) = &self.worker {
            worker.stop();
        }
    }
}

impl Drop for LoadJob {
    fn drop(&mut self) {
        self.cancel();
    }
}

/// The first part of a big load, shown while the rest is read.
pub struct Preview {
    pub model: Model,
    /// Bytes the preview holds, and bytes of the whole load.
    pub shown_bytes: f64,
    pub total_bytes: f64,
}

/// What the page and the worker each bring to a load: the worker the model and the bytes of the
/// files the loader made (after the given ones), the page the bytes of the files given.
#[derive(Default)]
struct Parts {
    /// The model's encoding, decoded from the worker's buffer a piece at a time.
    model: Option<js_sys::ArrayBuffer>,
    made: Vec<Vec<u8>>,
    bytes: Option<Vec<Vec<u8>>>,
}

/// A job to run once, by whichever of several callers comes first.
type OnceJob = RefCell<Option<Box<dyn FnOnce()>>>;

/// Starts loading `files`: the worker parses them while the page reads their bytes.
/// `on_progress` is called after every slice the worker reads; `on_preview`, if given, once
/// with the first part of a big load as soon as it is read; `on_done` once with the model or
/// the reason it failed (not after a cancel).
pub fn start_load(
    workers: &Workers,
    files: &[PickedFile],
    on_progress: impl Fn(Progress) + 'static,
    on_preview: Option<Box<dyn Fn(Preview)>>,
    on_done: impl FnOnce(Result<Model, LoadError>) + 'static,
) -> Result<LoadJob, LoadError> {
    start_load_of(workers, files, None, on_progress, on_preview, on_done)
}

/// [`start_load`], with the files' bytes where the page holds them already (`in_memory`, in the
/// order of `files`): the worker is given those bytes, not the `File`s made of them. In the
/// worker of a page opened from disk (an exported view) Safari's engine reads no `Blob` at all
/// (`NotReadableError`), not even one made in the worker.
fn start_load_of(
    workers: &Workers,
    files: &[PickedFile],
    in_memory: Option<&[&[u8]]>,
    on_progress: impl Fn(Progress) + 'static,
    on_preview: Option<Box<dyn Fn(Preview)>>,
    on_done: impl FnOnce(Result<Model, LoadError>) + 'static,
) -> Result<LoadJob, LoadError> {
    let request = Parcel::new(ToWorker::Load(LoadRequest {
        paths: files.iter().map(|picked| picked.path.clone()).collect(),
        slice: SLICE_BYTES,
        preview: on_preview.is_some(),
        starts: files.iter().map(PickedFile::start).collect(),
    }));
    // In the worker of a page opened from disk (an exported view) Safari's engine reads no
    // `Blob` (`NotReadableError`, even one the worker made): there the page reads the files
    // first, as it does anyway, and gives the worker their bytes.
    let read_first = in_memory.is_none() && crate::platform::page::exported();
    let request = match in_memory {
        Some(held) => request.with_buffers(held.iter().map(|bytes| buffer_of(bytes)).collect()),
        None if read_first => request,
        None => request.with_files(files.iter().map(|picked| picked.file.clone()).collect()),
    };
    let worker = workers.take_or_spawn().map_err(|error| LoadError::Worker(WorkerError::CannotStart(error)))?;
    let started = schedule::now_ms();
    let cancelled = Rc::new(Cell::new(false));
    let on_done = Rc::new(RefCell::new(Some(on_done)));
    let parts = Rc::new(RefCell::new(Parts::default()));
    let finish = {
        let cancelled = cancelled.clone();
        move |result: Result<Model, LoadError>| {
            if cancelled.get() {
                return;
            }
            if let Some(done) = on_done.borrow_mut().take() {
                done(result);
            }
        }
    };
    let finish = Rc::new(finish);
    // Both halves in: decode the model and show it.
    let assemble = {
        let parts = parts.clone();
        let finish = finish.clone();
        let cancelled = cancelled.clone();
        move || {
            let ready = {
                let p = parts.borrow();
                p.model.is_some() && p.bytes.is_some()
            };
            // A cancelled load's model is not decoded: nobody is waiting for it.
            if !ready || cancelled.get() {
                return;
            }
            let (model, bytes) = {
                let mut p = parts.borrow_mut();
                let mut bytes = p.bytes.take().unwrap_or_default();
                bytes.append(&mut p.made);
                (p.model.take(), bytes)
            };
            let Some(model) = model else { return };
            let decoding = schedule::now_ms();
            let model_bytes = model.byte_length();
            let decoded = model_from_buffer(&model, bytes)
                .map(|(corpus, graph)| Model::new(corpus, graph))
                .map_err(LoadError::Model);
            let message = format!(
                "sessionscope load: model of {} decoded in {:.0} ms, {:.0} ms after the start",
                sessionscope_engine::units::human_bytes(u64::from(model_bytes)),
                schedule::now_ms() - decoding,
                schedule::now_ms() - started
            );
            web_sys::console::debug_1(&message.into());
            finish(decoded);
        }
    };
    let assemble = Rc::new(assemble);

    let total_bytes: f64 = files.iter().map(PickedFile::size).sum();
    // A big load is read by the page once its worker is done and stopped, so the tab never holds
    // its bytes twice.
    let read_after_parse = total_bytes >= READ_AFTER_PARSE_FROM as f64;
    let on_progress = Rc::new(on_progress);
    let held_total = total_bytes.min(HOLD_MAX_BYTES as f64);

    // The page reads the bytes it will show, slice by slice, while the worker parses them. When
    // a preview is coming, the page starts once the preview is on screen: reading 100 MB took the
    // page's thread and a core from the preview's first rows (0.75 s instead of 0.66 s on two
    // cores), and is still done long before the worker is.
    let start_reading = {
        let files: Vec<PickedFile> = files.to_vec();
        let stop = cancelled.clone();
        let parts = parts.clone();
        let assemble = assemble.clone();
        let finish = finish.clone();
        let on_progress = on_progress.clone();
        move || {
            wasm_bindgen_futures::spawn_local(async move {
                // A big load's bytes are read after its worker is done: the progress says so.
                let reading_started = schedule::now_ms();
                let last_said = Cell::new(0.0);
                // Said as it starts: the browser may give the whole file in one piece.
                if read_after_parse {
                    on_progress(Progress::taking_in(0.0, held_total, reading_started, reading_started));
                }
                let on_read = |done: f64| {
                    if read_after_parse && done - last_said.get() >= PROGRESS_EVERY_BYTES {
                        last_said.set(done);
                        on_progress(Progress::taking_in(done, held_total, reading_started, schedule::now_ms()));
                    }
                };
                match read_bytes(&files, &stop, &on_read).await {
                    Ok(bytes) => {
                        parts.borrow_mut().bytes = Some(bytes);
                        assemble();
                    }
                    Err(error) => finish(Err(error)),
                }
            });
        }
    };
    let start_reading: Rc<OnceJob> = Rc::new(RefCell::new(Some(Box::new(start_reading))));
    // Starts the reading once, from whichever of the places below comes first.
    let read_now = |start_reading: &OnceJob| {
        let start = start_reading.borrow_mut().take();
        if let Some(start) = start {
            start();
        }
    };
    let preview_coming = on_preview.is_some() && total_bytes >= PREVIEW_FROM_TOTAL as f64;
    let parser = worker.downgrade();

    // For a load whose request is sent after the page read its files.
    let (failed, read_into) = (finish.clone(), parts.clone());
    let listener = {
        let start_reading = start_reading.clone();
        let cancelled = cancelled.clone();
        move |answer: Answer| -> Flow {
            let reply = match answer {
                Ok(reply) => reply,
                Err(error) => {
                    finish(Err(error.into()));
                    return Flow::Done;
                }
            };
            let FromWorker::Load(message) = reply.message else { return Flow::More };
            match message {
                LoadReply::Progress { done, total, path } => {
                    on_progress(Progress::reading(done, total, path, started, schedule::now_ms()))
                }
                LoadReply::Preview { timings } if !cancelled.get() => {
                    let Some(on_preview) = &on_preview else { return Flow::More };
                    let Some((model, files)) = reply.buffers.split_first() else { return Flow::More };
                    let bytes: Vec<Vec<u8>> = files.iter().map(bytes_of).collect();
                    let shown_bytes = bytes.iter().map(Vec::len).sum::<usize>() as f64;
                    // A preview that cannot be read is no reason to stop: the whole model follows.
                    let shown = model_from_buffer(model, bytes).map(|(corpus, graph)| {
                        log_timings("preview", started, &timings);
                        on_preview(Preview { model: Model::new(corpus, graph), shown_bytes, total_bytes });
                    });
                    // Once the preview is on screen, the page reads (a big load's, once parsed).
                    if !read_after_parse {
                        let start_reading = start_reading.clone();
                        let read = move || read_now(&start_reading);
                        match shown {
                            Ok(()) => schedule::after_next_paint(read),
                            Err(_) => read(),
                        }
                    }
                }
                LoadReply::Preview { .. } => {}
                LoadReply::Building => on_progress(Progress::building(started, schedule::now_ms())),
                LoadReply::Done { timings } => {
                    log_timings("worker done", started, &timings);
                    let Some((model, made)) = reply.buffers.split_first() else {
                        finish(Err(LoadError::NoModel));
                        return Flow::Done;
                    };
                    {
                        let mut parts = parts.borrow_mut();
                        parts.model = Some(model.clone());
                        parts.made = made.iter().map(bytes_of).collect();
                    }
                    // Its answer is in: the worker's memory goes before the page reads.
                    if read_after_parse && let Some(worker) = parser.upgrade() {
                        worker.stop();
                    }
                    read_now(&start_reading);
                    assemble();
                    return Flow::Done;
                }
            }
            Flow::More
        }
    };
    if read_first {
        // The reading below is this one: taken out, the other calls find nothing to start.
        start_reading.borrow_mut().take();
        let (files, stop, parts, sender) = (files.to_vec(), cancelled.clone(), read_into, worker.clone());
        wasm_bindgen_futures::spawn_local(async move {
            let sent = match read_bytes(&files, &stop, &|_| {}).await {
                Ok(bytes) => {
                    let request = request.with_buffers(bytes.iter().map(|b| buffer_of(b)).collect());
                    parts.borrow_mut().bytes = Some(bytes);
                    sender.request(request, listener).map_err(LoadError::from)
                }
                Err(error) => Err(error),
            };
            if let Err(error) = sent {
                failed(Err(error));
            }
        });
        return Ok(LoadJob { worker: Some(worker), cancelled });
    }
    worker.request(request, listener)?;
    web_sys::console::debug_1(
        &format!("sessionscope load: asked the worker (ready: {}) to read {} file(s)", worker.is_ready(), files.len())
            .into(),
    );
    if !preview_coming && !read_after_parse {
        read_now(&start_reading);
    }
    Ok(LoadJob { worker: Some(worker), cancelled })
}

/// The worker's timings on the console (debug level), for the benchmarks.
fn log_timings(what: &str, started: f64, timings: &impl serde::Serialize) {
    let timings = sessionscope_engine::small_json::to_string(timings).unwrap_or_default();
    let message = format!("sessionscope load: {what} after {:.0} ms: {timings}", schedule::now_ms() - started);
    web_sys::console::debug_1(&message.into());
}

/// Every file's bytes, each in one buffer sized up front. A file past what a load holds
/// ([`HOLD_MAX_BYTES`]) is read up to its share, as the worker keeps it. A big file is read as a
/// byte stream (twice as fast as slices: one pipe, one buffer used again), a small one in slices.
async fn read_bytes(
    files: &[PickedFile],
    cancelled: &Cell<bool>,
    on_read: &dyn Fn(f64),
) -> Result<Vec<Vec<u8>>, LoadError> {
    let mut all = Vec::with_capacity(files.len());
    let shares = held_sizes(files.iter().map(|picked| picked.file.size() as u64), HOLD_MAX_BYTES);
    let mut before = 0.0;
    for (picked, share) in files.iter().zip(shares) {
        let held = share.min(picked.file.size() as u64) as f64;
        let read = |error: PieceError| LoadError::Read(picked.path.clone(), error);
        if held > STREAM_ABOVE_BYTES {
            let go_on = |done: f64| {
                on_read(before + done);
                !cancelled.get()
            };
            match read_all(&picked.file, held, go_on).await {
                Ok(Some(bytes)) => {
                    before += bytes.len() as f64;
                    all.push(bytes);
                    continue;
                }
                Ok(None) => return Err(LoadError::Cancelled),
                // A browser that cannot stream a file reads it in slices.
                Err(PieceError::NoByteStreams) => {}
                Err(error) => return Err(read(error)),
            }
        }
        let mut bytes = Vec::with_capacity(held as usize);
        let mut offset = 0.0;
        while offset < held {
            if cancelled.get() {
                return Err(LoadError::Cancelled);
            }
            let end = (offset + SLICE_BYTES as f64).min(held);
            let buffer = files::slice(&picked.file, offset, end).map_err(|e| read(e.into()))?.await;
            let buffer = buffer.map_err(|error| read(ReadError::from(&error).into()))?;
            let array = js_sys::Uint8Array::new(&buffer);
            ReadError::check_length(f64::from(array.length()), end - offset).map_err(|e| read(e.into()))?;
            append_filled(&mut bytes, array.length() as usize, |room| array.copy_to_uninit(room));
            offset = end;
            on_read(before + offset);
        }
        before += bytes.len() as f64;
        all.push(bytes);
    }
    Ok(all)
}

/// The page says how far it has read a big load's bytes every this many bytes.
const PROGRESS_EVERY_BYTES: f64 = 16e6;

/// A worker that parsed less than this for [`parse_in_worker`] is kept for the next load.
const KEEP_WARM_UNDER_BYTES: usize = 16 << 20;

/// Parses files already in memory (the example, a share) in a worker, as dropped files are.
/// After a small parse the worker is given back as the one started ahead of time.
pub async fn parse_in_worker(
    workers: &Workers,
    files: &[(String, Vec<u8>)],
    on_progress: impl Fn(Progress) + 'static,
) -> Result<Model, LoadError> {
    let (sender, receiver) = futures::channel::oneshot::channel();
    let (picked, held): (Vec<PickedFile>, Vec<&[u8]>) =
        files.iter().filter_map(|(path, bytes)| Some((picked_of(path, bytes)?, bytes.as_slice()))).unzip();
    let job = start_load_of(workers, &picked, Some(&held), on_progress, None, move |result| {
        let _ = sender.send(result);
    })?;
    // Its worker (most often the one started ahead of time) comes back: meanwhile no other is
    // started ahead, to compete with it for the CPU.
    let lent = workers.lend();
    let result = receiver.await.unwrap_or(Err(LoadError::Cancelled));
    drop(lent);
    // After a small parse the worker's memory is small and its code compiled: it waits for the
    // next load, and no new worker is fetched and compiled meanwhile. After a big one its memory
    // goes with it.
    let small = files.iter().map(|(_, bytes)| bytes.len()).sum::<usize>() < KEEP_WARM_UNDER_BYTES;
    match job.into_worker() {
        // It warms up as a new one would, when files are on their way (`Workers::warm_spare`).
        Some(worker) if small && result.is_ok() && workers.give_back(&worker) => {}
        Some(worker) => {
            worker.stop();
            workers.prepare_soon();
        }
        None => workers.prepare_soon(),
    }
    result
}

/// Files in memory (the example, a share) as `File`s, so they can be loaded again together
/// with dropped files.
pub fn files_from_bytes(files: &[(String, Vec<u8>)]) -> Vec<PickedFile> {
    files.iter().filter_map(|(path, bytes)| picked_of(path, bytes)).collect()
}

/// Bytes in memory as the file `path`, or `None` if the browser could not make it.
fn picked_of(path: &str, bytes: &[u8]) -> Option<PickedFile> {
    let name = path.rsplit('/').next().unwrap_or(path);
    let file = files::file_of_bytes(name, bytes)?;
    Some(PickedFile { path: path.to_owned(), file, handle: None, part: None })
}
