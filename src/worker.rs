//! Loading off the main thread. The page posts the dropped `File`s to a Web Worker, which
//! reads them in slices (the next slice is read while the current one is parsed), parses
//! them, builds the graph, and posts back the serialised model as a transferred buffer. The
//! page reads the same files' bytes itself meanwhile, so they never cross between threads.
//! The page stays responsive whatever the size, and Cancel is `worker.terminate()`. The same
//! program, given the open session's model, searches it and makes its shares for the page
//! ([`crate::session_worker`]): their code (regular expressions, the redaction's detectors) is
//! not in the page's download.
//!
//! The messages both ways, and the conversation they make, are typed and documented in
//! [`crate::protocol`]: a request this worker cannot read is answered with an error.

use std::collections::VecDeque;

use js_sys::Uint8Array;
use sessionscope_engine::dag::Graph;
use sessionscope_engine::history::{FileProblem, HITS_PER_UNIT, UnitSearch};
use sessionscope_engine::{Corpus, Loader};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use crate::protocol::{self, Envelope, FromWorker, LoadTimings, PreviewTimings, ToWorker, buffer_of, bytes_of};

/// Bytes read per slice.
pub const SLICE_BYTES: usize = 8 << 20;
/// Loads of at least this many bytes show a preview: the first part of the files, as soon as
/// it is read, while the rest loads. Smaller loads are done before a preview would help.
pub const PREVIEW_FROM_TOTAL: usize = 16 << 20;
/// The preview holds the first this many bytes (or a little more: whole slices).
pub const PREVIEW_BYTES: usize = 2 << 20;

/// The worker's entry point (called by `src/bin/worker.rs`).
pub fn start() {
    console_error_panic_hook::set_once();
    let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let handler = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |event: web_sys::MessageEvent| {
        let data = event.data();
        wasm_bindgen_futures::spawn_local(async move {
            let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
            let result = match Envelope::<ToWorker>::decode(data) {
                Ok(request) => answer(&scope, request).await,
                Err(message) => Err(message),
            };
            if let Err(message) = result {
                let _ = protocol::send(&scope, FromWorker::Error { message });
            }
        });
    });
    scope.set_onmessage(Some(handler.as_ref().unchecked_ref()));
    handler.forget();
    // Messages posted before the wasm was ready were dispatched to no handler: the page waits
    // for this before sending the files.
    let _ = protocol::send(&scope, FromWorker::Ready);
}

/// Does what the page asked.
async fn answer(scope: &web_sys::DedicatedWorkerGlobalScope, request: Envelope<ToWorker>) -> Result<(), String> {
    match request.message {
        ToWorker::WarmUp => {
            // A worker given back after a small load warms up too.
            LOADING.with(|l| l.set(false));
            warm_up(scope).await;
            Ok(())
        }
        ToWorker::Rest { ms } => {
            RESTING_UNTIL.with(|r| r.set(js_sys::Date::now() + ms.clamp(0.0, 5000.0)));
            Ok(())
        }
        ToWorker::Load { paths, slice, preview } => load(scope, &paths, &request.files, slice, preview).await,
        ToWorker::SearchInit => search_init(&request.buffers),
        // The requests on the kept model answer their failures as theirs, by id.
        ToWorker::Search { id, query, regex } => {
            let searched = search(scope, id, &query, regex).await;
            answer_failure(scope, id, searched)
        }
        ToWorker::Matches { id, query, regex, texts } => {
            let matched = sessionscope_engine::search::Query::new(&query, regex).and_then(|query| {
                let ranges = texts
                    .iter()
                    .map(|text| query.matches(text).into_iter().map(|(s, e)| (s as u32, e as u32)).collect())
                    .collect();
                protocol::send(scope, FromWorker::Matches { id, ranges })
            });
            answer_failure(scope, id, matched)
        }
        ToWorker::ShareScan { id, scope: shared, without_agents, options } => {
            let scanned = share_scan(scope, id, shared, without_agents, &options).await;
            answer_failure(scope, id, scanned)
        }
        ToWorker::ShareWrite { id, keep, parts, selected, markdown } => {
            let written = kept().and_then(|kept| {
                let (header, bytes) =
                    crate::sharing::in_worker::write(&kept.0, &kept.1, &keep, &parts, selected, markdown)?;
                let reply =
                    Envelope::new(FromWorker::ShareWritten { id, header }).with_buffers(vec![buffer_of(&bytes)]);
                protocol::post(scope, &reply)
            });
            answer_failure(scope, id, written)
        }
        // A unit's failure is answered as the unit's, so the page knows which one failed.
        ToWorker::IndexUnit { unit, folder, paths } => {
            match index_unit(scope, unit, &folder, &paths, &request.files).await {
                Err(reason) => {
                    let problems = vec![FileProblem { path: paths.join(", "), reason }];
                    let index = sessionscope_engine::history::UnitIndex { rows: Vec::new(), problems };
                    protocol::send(scope, FromWorker::Indexed { unit, index, bytes: 0.0, read: Vec::new() })
                }
                done => done,
            }
        }
        // These three answer at once, with no pause: requests are handled in the order posted.
        ToWorker::FollowAdd { path, size } => {
            // A warm-up still running stops.
            LOADING.with(|l| l.set(true));
            FOLLOWED.with_borrow_mut(|f| {
                let id = f.loader.add_file(&path, size.max(0.0) as u64);
                f.files.push(id);
            });
            Ok(())
        }
        ToWorker::FollowPush { file } => {
            let bytes = request.buffers.first().map(bytes_of).unwrap_or_default();
            FOLLOWED.with_borrow_mut(|f| match f.files.get(file as usize) {
                Some(&id) => {
                    f.loader.push(id, &bytes);
                    Ok(())
                }
                None => Err(format!("no followed file {file}")),
            })
        }
        ToWorker::FollowSnapshot => {
            let corpus = FOLLOWED.with_borrow(|f| f.loader.snapshot());
            let graph = Graph::build(&corpus);
            let model = buffer_of(&encode_model(&corpus, &graph)?);
            let buffers = std::iter::once(model).chain(corpus.bytes.iter().map(|b| buffer_of(b))).collect();
            protocol::post(scope, &Envelope::new(FromWorker::Followed).with_buffers(buffers))
                .map_err(|_| "the followed session could not be sent".to_owned())
        }
        ToWorker::OpenDatabase { path, looked_for_wal } => {
            // A warm-up still running stops.
            LOADING.with(|l| l.set(true));
            crate::database::answer(scope, &path, &request.files, looked_for_wal).await
        }
        ToWorker::SearchUnit { unit, paths, query, regex } => {
            let query_error = sessionscope_engine::search::Query::new(&query, regex).err();
            let searched = match query_error {
                Some(_) => Err(String::new()),
                None => search_unit(scope, unit, &paths, &request.files, &query, regex).await,
            };
            match searched {
                Err(_) => protocol::send(
                    scope,
                    FromWorker::UnitHits { unit, hits: Vec::new(), count: 0, complete: false, bytes: 0.0, query_error },
                ),
                done => done,
            }
        }
    }
}

thread_local! {
    /// Set once files arrive: a warm-up still running stops.
    static LOADING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// Until when a warm-up waits between rounds ([`ToWorker::Rest`]).
    static RESTING_UNTIL: std::cell::Cell<f64> = const { std::cell::Cell::new(0.0) };
}

/// Runs the whole pipeline on the bundled example a number of times, so the browser's
/// compiler has optimised the hot code before the first real file arrives. The page asks for
/// this of the worker it started ahead of time when files are on their way (dragged over the
/// page, or a picker opened: `files::warm_spare`); files that arrive meanwhile stop it (it
/// pauses between rounds to let them in).
async fn warm_up(scope: &web_sys::DedicatedWorkerGlobalScope) {
    for _ in 0..48 {
        let rest = RESTING_UNTIL.with(std::cell::Cell::get) - js_sys::Date::now();
        if rest > 0.0 {
            sleep(scope, rest).await;
        }
        if LOADING.with(std::cell::Cell::get) {
            return;
        }
        let corpus = Loader::read_all(crate::example::FILES.iter().copied());
        let graph = Graph::build(&corpus);
        let _ = encode_model(&corpus, &graph);
        pause(scope).await;
    }
}

/// Gives other messages a turn.
async fn pause(scope: &web_sys::DedicatedWorkerGlobalScope) {
    sleep(scope, 0.0).await;
}

/// Waits `ms` milliseconds, other messages meanwhile answered.
async fn sleep(scope: &web_sys::DedicatedWorkerGlobalScope, ms: f64) {
    let pause = js_sys::Promise::new(&mut |resolve, _| {
        let _ = scope.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms.ceil() as i32);
    });
    let _ = JsFuture::from(pause).await;
}

fn read_slice(file: &web_sys::File, start: f64, end: f64) -> Result<JsFuture, String> {
    let blob = file.slice_with_f64_and_f64(start, end).map_err(|_| "a file could not be sliced".to_owned())?;
    Ok(JsFuture::from(blob.array_buffer()))
}

async fn load(
    scope: &web_sys::DedicatedWorkerGlobalScope,
    paths: &[String],
    files: &[web_sys::File],
    slice: usize,
    preview: bool,
) -> Result<(), String> {
    LOADING.with(|l| l.set(true));
    let now = js_sys::Date::now;
    if paths.len() != files.len() {
        return Err(format!("the request names {} path(s) for {} file(s)", paths.len(), files.len()));
    }
    let slice = slice.max(1) as f64;
    let total: f64 = files.iter().map(|file| file.size()).sum();
    let wants_preview = preview && total >= PREVIEW_FROM_TOTAL as f64;
    let mut preview_sent = !wants_preview;
    let started = now();
    let (mut waiting_ms, mut parsing_ms, mut done) = (0.0, 0.0, 0.0);
    let mut loader = Loader::new();
    for (path, file) in paths.iter().zip(files) {
        let size = file.size();
        let id = loader.add_file(path, size as u64);
        // Until the preview is out, slices are small, so it is out soon.
        let next_end = |from: f64, preview_sent: bool| {
            let step = if preview_sent { slice } else { slice.min(PREVIEW_BYTES as f64) };
            (from + step).min(size)
        };
        let mut offset = 0.0;
        let mut end = next_end(0.0, preview_sent);
        let mut pending = (size > 0.0).then(|| read_slice(file, 0.0, end)).transpose()?;
        while let Some(reading) = pending.take() {
            let t0 = now();
            let buffer = reading.await.map_err(|_| format!("{path} could not be read"))?;
            let t1 = now();
            let chunk = Uint8Array::new(&buffer);
            let chunk_len = chunk.length() as usize;
            // The next slice is read while this one is parsed.
            let preview_due = !preview_sent && loader.bytes_read() + chunk_len as u64 >= PREVIEW_BYTES as u64;
            let following = next_end(end, preview_sent || preview_due);
            if end < size {
                pending = Some(read_slice(file, end, following)?);
            }
            let t2 = now();
            loader.push_with(id, chunk_len, |room| chunk.copy_to(room));
            waiting_ms += t1 - t0;
            parsing_ms += now() - t2;
            done += end - offset;
            offset = end;
            end = following;
            let _ = protocol::send(scope, FromWorker::Progress { done, total, path: path.clone() });
            if preview_due {
                preview_sent = true;
                let so_far = PreviewTimings {
                    read_and_parse_ms: now() - started,
                    waiting_for_reads_ms: waiting_ms,
                    parse_ms: parsing_ms,
                    preview_ms: 0.0,
                };
                post_preview(scope, &loader, so_far)?;
            }
        }
        loader.finish_file(id);
    }
    let read_done = now();
    let _ = protocol::send(scope, FromWorker::Building);
    let corpus = loader.finish();
    let graph = Graph::build(&corpus);
    let built = now();
    let model = encode_model(&corpus, &graph)?;
    let encoded = now();
    let timings = LoadTimings {
        waiting_for_reads_ms: waiting_ms,
        parse_ms: parsing_ms,
        read_and_parse_ms: read_done - started,
        graph_ms: built - read_done,
        encode_ms: encoded - built,
    };
    // The files the loader made are not among the page's: their bytes go with the model.
    let made = corpus.files.iter().zip(&corpus.bytes).filter(|(info, _)| info.is_derived()).map(|(_, b)| buffer_of(b));
    let buffers = std::iter::once(buffer_of(&model)).chain(made).collect();
    let reply = Envelope::new(FromWorker::Done { timings }).with_buffers(buffers);
    protocol::post(scope, &reply).map_err(|_| "the model could not be sent".to_owned())
}

/// Posts what has been read so far as a model of its own, with the bytes it points into.
fn post_preview(
    scope: &web_sys::DedicatedWorkerGlobalScope,
    loader: &Loader,
    so_far: PreviewTimings,
) -> Result<(), String> {
    let now = js_sys::Date::now;
    let started = now();
    let corpus = loader.preview();
    let graph = Graph::build(&corpus);
    let model = buffer_of(&encode_model(&corpus, &graph)?);
    let buffers = std::iter::once(model).chain(corpus.bytes.iter().map(|file| buffer_of(file))).collect();
    let timings = PreviewTimings { preview_ms: now() - started, ..so_far };
    let reply = Envelope::new(FromWorker::Preview { timings }).with_buffers(buffers);
    protocol::post(scope, &reply).map_err(|_| "the preview could not be sent".to_owned())
}

/// The session a worker follows: its loader, kept between requests, and the loader's id of
/// each file in the order the page added them.
struct Followed {
    loader: Loader,
    files: Vec<sessionscope_engine::model::FileId>,
}

thread_local! {
    static FOLLOWED: std::cell::RefCell<Followed> =
        std::cell::RefCell::new(Followed { loader: Loader::new(), files: Vec::new() });
}

thread_local! {
    /// The model of the open session's worker (`crate::session_worker`), and the id of the
    /// newest search.
    static SEARCHED: std::cell::RefCell<Option<std::rc::Rc<(Corpus, Graph)>>> = const { std::cell::RefCell::new(None) };
    static NEWEST: std::cell::Cell<Option<u64>> = const { std::cell::Cell::new(None) };
}

/// Takes the model and the file bytes of the open session (from the page, which has them).
fn search_init(buffers: &[js_sys::ArrayBuffer]) -> Result<(), String> {
    // A warm-up still running stops.
    LOADING.with(|l| l.set(true));
    let Some((model, files)) = buffers.split_first() else { return Err("no model to search".into()) };
    let bytes: Vec<Vec<u8>> = files.iter().map(bytes_of).collect();
    let model = decode_model(&bytes_of(model), bytes)?;
    SEARCHED.with(|s| *s.borrow_mut() = Some(std::rc::Rc::new(model)));
    Ok(())
}

/// The open session's model, as [`ToWorker::SearchInit`] gave it.
fn kept() -> Result<std::rc::Rc<(Corpus, Graph)>, String> {
    SEARCHED.with(|s| s.borrow().clone()).ok_or_else(|| "the session's worker holds no session".to_owned())
}

/// Answers request `id`'s failure as its own ([`FromWorker::Failed`]).
fn answer_failure(
    scope: &web_sys::DedicatedWorkerGlobalScope,
    id: u64,
    result: Result<(), String>,
) -> Result<(), String> {
    match result {
        Err(message) => protocol::send(scope, FromWorker::Failed { id, message }),
        done => done,
    }
}

/// Scans a scope of the open session for the share dialog, answering its progress between
/// slices and its findings at the end; a newer scan stops it.
async fn share_scan(
    scope: &web_sys::DedicatedWorkerGlobalScope,
    id: u64,
    shared: sessionscope_engine::share::scope::Scope,
    without_agents: bool,
    options: &sessionscope_engine::redact::DetectOptions,
) -> Result<(), String> {
    let kept = kept()?;
    let progress = |done, total| {
        let _ = protocol::send(scope, FromWorker::ShareProgress { id, done, total });
    };
    let (corpus, graph) = (&kept.0, &kept.1);
    let let_others_in = || pause(scope);
    let slice = crate::sharing::in_worker::SLICE_BYTES;
    let scanned = crate::sharing::in_worker::scan(
        corpus,
        graph,
        id,
        shared,
        without_agents,
        options,
        progress,
        let_others_in,
        slice,
    )
    .await?;
    match scanned {
        Some(report) => protocol::send(scope, FromWorker::ShareScanned { id, report }),
        None => Ok(()),
    }
}

/// Searches in steps, posting the hits of each; a newer search stops an older one.
async fn search(scope: &web_sys::DedicatedWorkerGlobalScope, id: u64, text: &str, regex: bool) -> Result<(), String> {
    const STEP: usize = 4000;
    NEWEST.with(|n| n.set(Some(id)));
    let query = sessionscope_engine::search::Query::new(text, regex)?;
    let kept = kept()?;
    let corpus = &kept.0;
    let entries = corpus.entries.len();
    let mut start = 0;
    loop {
        if NEWEST.with(|n| n.get()) != Some(id) {
            return Ok(());
        }
        let end = (start + STEP).min(entries);
        let mut hits = Vec::new();
        let count = query.search(corpus, start..end, &mut |h| hits.push(h));
        let done = end >= entries;
        let _ = protocol::send(scope, FromWorker::Hits { id, count, done, hits });
        if done {
            return Ok(());
        }
        start = end;
        // Let a newer request in.
        pause(scope).await;
    }
}

/// Why the browser could not read a file, in words.
pub(crate) fn read_error(error: &JsValue) -> String {
    let name = js_sys::Reflect::get(error, &"name".into()).ok().and_then(|v| v.as_string()).unwrap_or_default();
    match name.as_str() {
        "NotFoundError" => "could not be read: it was moved or deleted since it was picked".to_owned(),
        "NotReadableError" => "could not be read: it changed since it was picked, or is not readable".to_owned(),
        "SecurityError" => "could not be read: the browser does not allow it".to_owned(),
        _ => format!("could not be read ({name})"),
    }
}

/// Reads a unit's files into one corpus, file by file, each file's bytes let go once parsed.
/// Files that cannot be read are answered apart, with their reasons.
async fn read_unit(
    paths: &[String],
    files: &[web_sys::File],
) -> Result<(Corpus, Vec<FileProblem>, ReadFigures), String> {
    if paths.len() != files.len() {
        return Err(format!("the request names {} path(s) for {} file(s)", paths.len(), files.len()));
    }
    let mut loader = Loader::new();
    let mut problems = Vec::new();
    let mut figures = ReadFigures::default();
    // Every small file is asked for at once: a unit is often many small files, and each read is
    // a round trip to the browser. A big file is read as a stream when its turn comes.
    let mut small = files
        .iter()
        .map(|file| if file.size() > STREAM_ABOVE_BYTES { Ok(None) } else { SliceReader::start(file).map(Some) })
        .collect::<Result<Vec<_>, _>>()?;
    for ((path, file), small) in paths.iter().zip(files).zip(small.iter_mut()) {
        let id = loader.add_file(path, file.size() as u64);
        let mut reader = match small.take() {
            Some(reader) => FileReader::Slices(reader),
            None => ByteStream::start(file).map_or_else(|reason| FileReader::Failed(Some(reason)), FileReader::Stream),
        };
        // Piece by piece, so a unit never holds a file's bytes twice.
        loop {
            let asked = js_sys::Date::now();
            let Some(slice) = reader.next().await else { break };
            figures.waiting_ms += js_sys::Date::now() - asked;
            match slice {
                Ok(chunk) => {
                    let len = chunk.length() as usize;
                    figures.bytes += len as f64;
                    loader.push_with(id, len, |room| chunk.copy_to(room));
                }
                Err(reason) => {
                    let reason = if reader.offset() > 0.0 {
                        format!("{reason}; only its first {} bytes were read", reader.offset())
                    } else {
                        reason
                    };
                    problems.push(FileProblem { path: path.clone(), reason });
                    break;
                }
            }
        }
        loader.finish_file(id);
    }
    Ok((loader.finish(), problems, figures))
}

/// Files bigger than this are read by the index as a byte stream ([`ByteStream`]), the others
/// whole. A page that only reads the 4.4 GB benchmark history in 2 workers
/// (`tests/bench/read-files.mjs`, way `byob`) took 5.8–6.3 s and 9.3–9.8 CPU-s so, against
/// 10.4–11.2 s and 16.9–18.0 CPU-s in 8 MiB slices (`arrayBuffer`), in the same run: a slice
/// costs the browser a new pipe and a new buffer, each of whose pages is faulted in, and freed.
/// Every file read as a stream stalled that page after a few thousand files.
const STREAM_ABOVE_BYTES: f64 = STREAM_BUFFER_BYTES as f64;

/// The buffer a [`ByteStream`] reads into, again and again.
const STREAM_BUFFER_BYTES: u32 = 1 << 20;

/// A file read as slices, or as a byte stream, or one whose stream could not be started (its
/// reason, given once as the file's only piece).
enum FileReader<'f> {
    Slices(SliceReader<'f>),
    Stream(ByteStream),
    Failed(Option<String>),
}

impl FileReader<'_> {
    /// The next bytes of the file: a view to copy before the next call. `None` at its end.
    async fn next(&mut self) -> Option<Result<Uint8Array, String>> {
        match self {
            FileReader::Slices(reader) => reader.next().await,
            FileReader::Stream(stream) => stream.next().await,
            FileReader::Failed(reason) => reason.take().map(Err),
        }
    }

    /// Bytes read so far.
    fn offset(&self) -> f64 {
        match self {
            FileReader::Slices(reader) => reader.offset,
            FileReader::Stream(stream) => stream.offset,
            FileReader::Failed(_) => 0.0,
        }
    }
}

/// A file read as a byte stream into one buffer used again and again ("bring your own buffer"):
/// the browser makes one pipe for the whole file and fills it ahead while the worker parses, and
/// no new buffer is made for each read.
struct ByteStream {
    reader: web_sys::ReadableStreamByobReader,
    /// Taken while a read is out, and at the end.
    buffer: Option<js_sys::ArrayBuffer>,
    /// Bytes read so far.
    offset: f64,
}

impl ByteStream {
    fn start(file: &web_sys::File) -> Result<ByteStream, String> {
        let options = web_sys::ReadableStreamGetReaderOptions::new();
        options.set_mode(web_sys::ReadableStreamReaderMode::Byob);
        let reader = file
            .stream()
            .get_reader_with_options(&options)
            .dyn_into::<web_sys::ReadableStreamByobReader>()
            .map_err(|_| "could not be read: this browser cannot read a file as a byte stream".to_owned())?;
        Ok(ByteStream { reader, buffer: Some(js_sys::ArrayBuffer::new(STREAM_BUFFER_BYTES)), offset: 0.0 })
    }

    /// The next bytes, a view of the buffer that is good until the next call; `None` at the end.
    async fn next(&mut self) -> Option<Result<Uint8Array, String>> {
        let buffer = self.buffer.take()?;
        let read = self.reader.read_with_array_buffer_view(&Uint8Array::new(&buffer));
        let result = match JsFuture::from(read).await {
            Ok(result) => result,
            Err(error) => return Some(Err(read_error(&error))),
        };
        let field = |name: &str| js_sys::Reflect::get(&result, &name.into()).ok();
        if field("done").and_then(|done| done.as_bool()) != Some(false) {
            return None;
        }
        let Some(bytes) = field("value").and_then(|value| value.dyn_into::<Uint8Array>().ok()) else {
            return Some(Err("could not be read: the browser's stream gave no bytes".to_owned()));
        };
        self.buffer = Some(bytes.buffer());
        self.offset += f64::from(bytes.length());
        Some(Ok(bytes))
    }
}

/// What reading a unit took: its bytes, and the time spent waiting for the browser to read them.
#[derive(Default)]
struct ReadFigures {
    bytes: f64,
    waiting_ms: f64,
}

/// Indexes one unit of a history: its rows, and its files that hold no session.
async fn index_unit(
    scope: &web_sys::DedicatedWorkerGlobalScope,
    unit: u32,
    folder: &str,
    paths: &[String],
    files: &[web_sys::File],
) -> Result<(), String> {
    LOADING.with(|l| l.set(true));
    let started = js_sys::Date::now();
    let (corpus, unreadable, ReadFigures { bytes, waiting_ms }) = read_unit(paths, files).await?;
    let read = js_sys::Date::now();
    let graph = Graph::build(&corpus);
    let built = js_sys::Date::now();
    let mut index = sessionscope_engine::history::index_unit(&corpus, &graph, folder);
    // A unit read whole gets its set of trigrams, for searches to skip it.
    let (stamps, buffers) = if unreadable.is_empty() {
        let set = sessionscope_engine::search::trigrams_of(&corpus, bytes as u64);
        let stamps = paths.iter().zip(files).map(|(path, file)| crate::files::stamp_of(path, file)).collect();
        (stamps, vec![protocol::buffer_of(set.as_bytes())])
    } else {
        (Vec::new(), Vec::new())
    };
    index.problems.extend(unreadable);
    if bytes >= 8e6 {
        let message = format!(
            "sessionscope index: {:.1} MB read and parsed in {:.0} ms (waiting for reads {:.0} ms), graph {:.0} ms, summary and trigrams {:.0} ms",
            bytes / 1e6,
            read - started,
            waiting_ms,
            built - read,
            js_sys::Date::now() - built,
        );
        web_sys::console::debug_1(&message.into());
    }
    protocol::post(
        scope,
        &Envelope::new(FromWorker::Indexed { unit, index, bytes, read: stamps }).with_buffers(buffers),
    )
}

/// Searches one unit of a history. A unit none of whose files holds the query's text is not
/// parsed at all.
async fn search_unit(
    scope: &web_sys::DedicatedWorkerGlobalScope,
    unit: u32,
    paths: &[String],
    files: &[web_sys::File],
    text: &str,
    regex: bool,
) -> Result<(), String> {
    LOADING.with(|l| l.set(true));
    let query = sessionscope_engine::search::Query::new(text, regex)?;
    if paths.len() != files.len() {
        return Err(format!("the request names {} path(s) for {} file(s)", paths.len(), files.len()));
    }
    let started = js_sys::Date::now();
    let mut search = UnitSearch::new(&query, HITS_PER_UNIT);
    let mut bytes = 0.0;
    // The main file is read first, alone: a common word's hits are often all in it. Once it is
    // not enough, a few files' first slices are asked for ahead, so reading overlaps searching.
    let mut ahead: VecDeque<Result<SliceReader, String>> = VecDeque::new();
    let mut asked = 0;
    for (at, path) in paths.iter().enumerate() {
        let files_ahead = if at == 0 { 1 } else { FILES_AHEAD };
        while asked < files.len() && asked < at + files_ahead {
            ahead.push_back(SliceReader::start_for_search(&files[asked]));
            asked += 1;
        }
        let reader = ahead.pop_front();
        if search.is_full() {
            search.skip_rest();
            break;
        }
        // A file that cannot be read now was listed when the history was indexed.
        if let Some(Ok(reader)) = reader {
            let _ = search_file(&mut search, path, reader, &mut bytes).await;
        }
    }
    let (hits, count, complete) = search.finish();
    let took = js_sys::Date::now() - started;
    if took >= 100.0 {
        let message = format!(
            "sessionscope search: unit {unit}: {:.1} MB read in {took:.0} ms, {} hits{}",
            bytes / 1e6,
            hits.len(),
            if complete { "" } else { ", stopped at the limit" }
        );
        web_sys::console::debug_1(&message.into());
    }
    protocol::send(scope, FromWorker::UnitHits { unit, hits, count, complete, bytes, query_error: None })
}

/// Searches one file of a unit, slice by slice, reading no further once the unit's hits are
/// enough; `bytes` counts what was read.
async fn search_file(
    search: &mut UnitSearch<'_>,
    path: &str,
    mut reader: SliceReader<'_>,
    bytes: &mut f64,
) -> Result<(), String> {
    let mut searching = None;
    while let Some(slice) = reader.next().await {
        let slice = slice?.to_vec();
        *bytes += slice.len() as f64;
        let done = reader.offset >= reader.size;
        let file_search = match searching.as_mut() {
            Some(file_search) => file_search,
            // A file read in one slice is searched whole.
            None if done => {
                search.add_file(path, &slice);
                return Ok(());
            }
            None => searching.insert(search.start_file(path, &slice, false)),
        };
        search.add_slice(file_search, &slice);
        if search.is_full() && !done {
            search.skip_rest();
            break;
        }
    }
    if let Some(file_search) = searching {
        search.end_file(file_search);
    }
    Ok(())
}

/// Files of a unit whose reading is asked for ahead of the one being searched.
const FILES_AHEAD: usize = 4;

/// The first slice a search reads of a file: a common word's hits are often enough after it.
/// Each read costs the browser about as much up to a few megabytes (it makes a new pipe and
/// opens the file for it), so a word found everywhere but sparsely wants big slices, and one
/// whose hits come early small ones. On the 4.4 GB benchmark history, 3 runs each, builds
/// alternated: 256 KB gave "function" (2.7 GB read) 9.1–9.5 s (over 10 s in 6 runs of 11 that
/// day) and "the" 4.2–4.8 s; 512 KB 8.9–9.3 s and 4.6–5.2 s; 2 MiB 8.1–8.6 s and 6.2–7.0 s. The
/// slowest common word is what a person waits for, so 2 MiB.
const SEARCH_FIRST_SLICE_BYTES: usize = 2 << 20;

/// A file read slice by slice, the next slice asked for while the current one is used. A file
/// that is one slice is read as it is: a slice of it costs more. A search reads a small first
/// slice, and asks for the next only if it wants more: a common word's hits are enough after it. A slice that cannot be read
/// (the file moved, changed since it was picked, no permission) is the reason, as the browser
/// gives it.
struct SliceReader<'f> {
    file: &'f web_sys::File,
    size: f64,
    /// The size of the next slice asked for: it grows to [`SLICE_BYTES`].
    slice: f64,
    /// Bytes read so far.
    offset: f64,
    /// Where the slice asked for ends.
    asked_to: f64,
    next: Option<Result<JsFuture, String>>,
}

impl<'f> SliceReader<'f> {
    /// Starts reading `file`: its first slice is asked for now.
    fn start(file: &'f web_sys::File) -> Result<SliceReader<'f>, String> {
        SliceReader::start_with(file, SLICE_BYTES as f64)
    }

    /// Starts reading `file` for a search: a first slice of [`SEARCH_FIRST_SLICE_BYTES`], the
    /// next asked for only when the search wants it, then slices four times bigger each time.
    fn start_for_search(file: &'f web_sys::File) -> Result<SliceReader<'f>, String> {
        SliceReader::start_with(file, SEARCH_FIRST_SLICE_BYTES as f64)
    }

    fn start_with(file: &'f web_sys::File, first: f64) -> Result<SliceReader<'f>, String> {
        let size = file.size();
        let reading = if size <= 0.0 {
            None
        } else if size <= first {
            Some(JsFuture::from(file.array_buffer()))
        } else {
            Some(read_slice(file, 0.0, first)?)
        };
        let asked_to = size.clamp(0.0, first);
        Ok(SliceReader { file, size, slice: first, offset: 0.0, asked_to, next: reading.map(Ok) })
    }

    /// Asks for the slice after the one asked for last.
    fn ask_next(&mut self) {
        self.slice = (self.slice * 4.0).min(SLICE_BYTES as f64);
        let start = self.asked_to;
        self.asked_to = (start + self.slice).min(self.size);
        self.next = Some(read_slice(self.file, start, self.asked_to));
    }

    /// The next slice, or `None` once the file is read.
    async fn next(&mut self) -> Option<Result<Uint8Array, String>> {
        if self.next.is_none() && self.asked_to < self.size {
            self.ask_next();
        }
        let reading = match self.next.take()? {
            Ok(reading) => reading,
            Err(reason) => return Some(Err(reason)),
        };
        let buffer = match reading.await {
            Ok(buffer) => buffer,
            Err(error) => return Some(Err(read_error(&error))),
        };
        self.offset = self.asked_to;
        // A search's small first slice may be all that is wanted: the next is asked for only
        // when wanted. Any other is read ahead.
        if self.offset < self.size && self.slice > SEARCH_FIRST_SLICE_BYTES as f64 {
            self.ask_next();
        }
        Some(Ok(Uint8Array::new(&buffer)))
    }
}

/// The model without the file bytes, for the trip from the worker to the page.
pub fn encode_model(corpus: &Corpus, graph: &Graph) -> Result<Vec<u8>, String> {
    postcard::to_allocvec(&(corpus, graph)).map_err(|e| format!("the model could not be encoded: {e}"))
}

/// The model back, with the file bytes put in place.
pub fn decode_model(model: &[u8], bytes: Vec<Vec<u8>>) -> Result<(Corpus, Graph), String> {
    let (mut corpus, graph): (Corpus, Graph) =
        postcard::from_bytes(model).map_err(|e| format!("the model could not be decoded: {e}"))?;
    if bytes.len() != corpus.files.len() {
        return Err("the files changed while they were read".into());
    }
    corpus.symbols.rebuild_index();
    corpus.bytes = bytes;
    Ok((corpus, graph))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_model_survives_the_trip_from_the_worker() {
        let corpus = Loader::read_all(crate::example::FILES.iter().copied());
        let graph = Graph::build(&corpus);
        let encoded = encode_model(&corpus, &graph).unwrap();
        let (back, back_graph) = decode_model(&encoded, corpus.bytes.clone()).unwrap();
        assert_eq!(sessionscope_engine::dump::dump_corpus(&back), sessionscope_engine::dump::dump_corpus(&corpus));
        assert_eq!(
            sessionscope_engine::dump::dump_graph(&back, &back_graph),
            sessionscope_engine::dump::dump_graph(&corpus, &graph)
        );
        assert_eq!(back.symbols.lookup("assistant"), corpus.symbols.lookup("assistant"));
        assert!(decode_model(&encoded, Vec::new()).is_err(), "bytes for every file are required");
    }
}
