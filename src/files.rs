//! Getting files into the engine: what the user dropped or picked (files or whole folders,
//! walked through the DataTransfer directory entries), read by the loading worker.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Array, Reflect, Uint8Array};
use sessionscope_engine::import::names::looks_like_a_log;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use crate::model::Model;
use crate::protocol::{self, Envelope, FromWorker, ToWorker, bytes_of};

/// A file to read, with the path it is known by (relative to a dropped folder).
#[derive(Clone)]
pub struct PickedFile {
    pub path: String,
    pub file: web_sys::File,
    /// The handle it came from (a remembered or followed folder), to read it again as it is now.
    pub handle: Option<web_sys::FileSystemFileHandle>,
}

impl PickedFile {
    pub fn size(&self) -> f64 {
        self.file.size()
    }
}

/// What a drop or a pick held: the files to read, and the files of dropped folders that were
/// left out because their names are not those of logs.
#[derive(Clone, Default)]
pub struct Picked {
    pub files: Vec<PickedFile>,
    pub skipped_by_name: Vec<String>,
    /// They came from a folder (picked or dropped), which may be a whole history.
    pub from_folder: bool,
    /// Files and folders that could not be read, and why.
    pub unreadable: Vec<(String, String)>,
}

/// The files of a `FileList` (a file input, or a drop without directory entries). With a
/// folder input, `webkitRelativePath` names each file's place in the folder.
pub fn from_file_list(list: &web_sys::FileList) -> Picked {
    let mut picked = Picked::default();
    for i in 0..list.length() {
        let Some(file) = list.get(i) else { continue };
        let relative = Reflect::get(&file, &"webkitRelativePath".into())
            .ok()
            .and_then(|v| v.as_string())
            .filter(|p| !p.is_empty());
        match relative {
            Some(path) if !looks_like_a_log(&path) && !crate::database::is_companion(&path) => {
                picked.from_folder = true;
                picked.skipped_by_name.push(path)
            }
            Some(path) => {
                picked.from_folder = true;
                picked.files.push(PickedFile { path, file, handle: None })
            }
            None => picked.files.push(PickedFile { path: file.name(), file, handle: None }),
        }
    }
    picked
}

/// What is done with each batch of a drop's files, as soon as it is walked.
pub type OnBatch<'a> = dyn FnMut(Picked) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()>>> + 'a;

/// What a drop holds, taken from its `DataTransfer` while the drop event lasts (its items are
/// gone afterwards): directory entries to walk, or plain files.
pub enum Dropped {
    Entries(Vec<web_sys::FileSystemEntry>),
    Files(Picked),
}

impl Dropped {
    /// Reads a drop's items. Call it in the drop event itself.
    pub fn of(data: &web_sys::DataTransfer) -> Dropped {
        let items = data.items();
        let mut entries = Vec::new();
        for i in 0..items.length() {
            let Some(item) = items.get(i) else { continue };
            if item.kind() != "file" {
                continue;
            }
            match item.webkit_get_as_entry() {
                Ok(Some(entry)) => entries.push(entry),
                _ => {
                    // Without directory entries, fall back to the plain file list.
                    if let Ok(Some(file)) = item.get_as_file() {
                        let mut picked = Picked::default();
                        picked.files.push(PickedFile { path: file.name(), file, handle: None });
                        return Dropped::Files(data.files().map(|l| from_file_list(&l)).unwrap_or(picked));
                    }
                }
            }
        }
        if entries.is_empty() {
            return Dropped::Files(data.files().map(|l| from_file_list(&l)).unwrap_or_default());
        }
        Dropped::Entries(entries)
    }

    /// The one folder a drop holds, as a handle the page may keep (Chromium), to be awaited.
    /// `None` for a drop of files, of several things, or in a browser without handles.
    pub fn folder_handle(data: &web_sys::DataTransfer) -> Option<js_sys::Promise> {
        let items = data.items();
        if items.length() != 1 {
            return None;
        }
        let item = items.get(0)?;
        let entry = item.webkit_get_as_entry().ok().flatten()?;
        if !entry.is_directory() {
            return None;
        }
        let get = Reflect::get(&item, &"getAsFileSystemHandle".into()).ok()?.dyn_into::<js_sys::Function>().ok()?;
        get.call0(&item).ok()?.dyn_into().ok()
    }
}

/// Sibling folders walked at once. Each is a few round trips to the browser (list it, ask for its
/// files, list its subfolders): walked one after another, the 30 projects of a 4 GB history took
/// 10–16 s, and the index workers waited for them.
pub const FOLDERS_WALKED_AT_ONCE: usize = 6;

/// The batches of sibling folders' walks: the first folder walked alone, so that its batch (the
/// first project of a history) is out soonest and the index starts on it, then the others
/// [`FOLDERS_WALKED_AT_ONCE`] at a time. Walked with five others, the first project of a 4 GB
/// history took 650 ms to walk.
pub fn first_alone_then_at_once<T: 'static>(
    walks: Vec<futures::stream::LocalBoxStream<'static, T>>,
) -> futures::stream::LocalBoxStream<'static, T> {
    use futures::StreamExt;
    let mut walks = walks.into_iter();
    let first = futures::stream::iter(walks.next()).flatten();
    first.chain(futures::stream::iter(walks).flatten_unordered(FOLDERS_WALKED_AT_ONCE)).boxed_local()
}

/// The files of a drop, walking dropped folders through their directory entries, handed to
/// `on_batch` batch by batch. A folder that holds logs (a project of `~/.claude/projects`, a day
/// of `~/.codex/sessions`) is walked whole, with its subfolders (subagents), and is one batch,
/// handed on as soon as it is walked, so a history is indexed while the rest of it is walked.
/// Folders that hold no logs (`~/.claude`, `projects/`) are walked child by child, the first
/// alone, then [`FOLDERS_WALKED_AT_ONCE`] children at a time ([`first_alone_then_at_once`]).
/// Answers the number of files found.
pub async fn walk_drop(dropped: Dropped, on_batch: &mut OnBatch<'_>) -> usize {
    use futures::StreamExt;
    let entries = match dropped {
        Dropped::Files(picked) => return hand_on(on_batch, picked).await,
        Dropped::Entries(entries) => entries,
    };
    let (folders, files): (Vec<_>, Vec<_>) = entries.into_iter().partition(|e| e.is_directory());
    let mut found = 0;
    if !files.is_empty() {
        // Files dropped as such, beside any folders.
        found += hand_on(on_batch, walk_whole(files.into_iter().map(|e| (e, false)).collect(), false).await).await;
    }
    let mut batches =
        first_alone_then_at_once(folders.into_iter().map(|folder| walk_folder(folder.unchecked_into())).collect());
    while let Some(batch) = batches.next().await {
        found += hand_on(on_batch, batch).await;
    }
    found
}

/// Whether a folder named `folder` whose children are `(name, is a folder)` is walked whole (it
/// holds logs) rather than child by child. `~/.claude` and `~/.codex` hold a log or two of their
/// own (the prompt history) beside the folder of sessions: they are walked child by child all the
/// same. Some sessions lie in several folders, walked whole so that a batch holds them whole: a VS
/// Code extension's `tasks` folder (Cline, Roo Code: a subtask's folder lies beside the task that
/// spawned it), a Qwen Code project (a subagent's transcript is under `subagents/`, its
/// session's under `chats/`) and OpenCode's storage (`storage/` with `session/` and `message/`
/// folders, or in 0.5.x `storage/session/` with `info/` and `message/`: a session's files lie in
/// several of its folders, its messages' parts under `part/<message>/`).
pub fn is_walked_whole(folder: &str, children: impl Iterator<Item = (String, bool)>) -> bool {
    let (mut holds_logs, mut holds_sessions_folder, mut holds_folders) = (false, false, false);
    let (mut chats, mut subagents) = (false, false);
    let (mut sessions, mut messages) = (false, false);
    for (name, is_folder) in children {
        holds_logs |= !is_folder && looks_like_a_log(&name);
        holds_sessions_folder |= is_folder && matches!(name.as_str(), "projects" | "sessions");
        holds_folders |= is_folder;
        chats |= is_folder && name == "chats";
        subagents |= is_folder && name == "subagents";
        sessions |= is_folder && matches!(name.as_str(), "session" | "info");
        messages |= is_folder && name == "message";
    }
    (holds_logs && !holds_sessions_folder)
        || (folder == "tasks" && holds_folders)
        || (chats && subagents)
        || (sessions && messages)
}

/// The batches of a dropped folder: itself whole if it holds logs, else its own files, then its
/// children's batches as they are walked.
fn walk_folder(folder: web_sys::FileSystemDirectoryEntry) -> futures::stream::LocalBoxStream<'static, Picked> {
    use futures::StreamExt;
    let folder_name = folder.name();
    futures::stream::once(async move { read_directory(&folder).await })
        .flat_map(move |children| {
            if is_walked_whole(&folder_name, children.iter().map(|e| (e.name(), e.is_directory()))) {
                let whole = walk_whole(children.into_iter().map(|e| (e, true)).collect(), true);
                return futures::stream::once(whole).boxed_local();
            }
            let (folders, files): (Vec<_>, Vec<_>) = children.into_iter().partition(|e| e.is_directory());
            let own = futures::stream::once(walk_whole(files.into_iter().map(|e| (e, true)).collect(), true))
                .filter(|picked| std::future::ready(!picked.files.is_empty() || !picked.skipped_by_name.is_empty()));
            let below = first_alone_then_at_once(
                folders.into_iter().map(|child| walk_folder(child.unchecked_into())).collect(),
            );
            own.chain(below).boxed_local()
        })
        .boxed_local()
}

/// Hands a batch on, its agent databases made their record streams; answers how many files it
/// holds.
async fn hand_on(on_batch: &mut OnBatch<'_>, picked: Picked) -> usize {
    let found = picked.files.len();
    on_batch(crate::database::opened(picked).await).await;
    found
}

/// Walks entries and everything below them, level by level: every folder of a level is listed
/// at once, and every file of it is asked for at once, so thousands of files take a few round
/// trips. `in_folder`: the entries are in a dropped folder, where files not named like logs are
/// left out (and listed).
async fn walk_whole(entries: Vec<(web_sys::FileSystemEntry, bool)>, in_folder: bool) -> Picked {
    let mut picked = Picked { from_folder: in_folder, ..Picked::default() };
    let mut level = entries;
    while !level.is_empty() {
        let mut folders = Vec::new();
        let mut files = Vec::new();
        for (entry, in_folder) in level {
            if entry.is_directory() {
                picked.from_folder = true;
                folders.push(entry.unchecked_into::<web_sys::FileSystemDirectoryEntry>());
            } else if entry.is_file() {
                let path = entry.full_path().trim_start_matches('/').to_owned();
                // A database's write-ahead log is read with it, its other files left out (crate::database).
                if in_folder && !looks_like_a_log(&path) && !crate::database::is_companion(&path) {
                    picked.skipped_by_name.push(path);
                } else {
                    files.push((path, entry.unchecked_into::<web_sys::FileSystemFileEntry>()));
                }
            }
        }
        let got = futures::future::join_all(files.iter().map(|(_, entry)| entry_file(entry))).await;
        for ((path, _), file) in files.into_iter().zip(got) {
            if let Some(file) = file {
                picked.files.push(PickedFile { path, file, handle: None });
            }
        }
        let listed = futures::future::join_all(folders.iter().map(read_directory)).await;
        level = listed.into_iter().flatten().map(|child| (child, true)).collect();
    }
    crate::sort::sort_by(&mut picked.files, |a, b| a.path.cmp(&b.path));
    picked
}

/// All entries of a directory (`readEntries` returns them in batches until an empty one).
async fn read_directory(directory: &web_sys::FileSystemDirectoryEntry) -> Vec<web_sys::FileSystemEntry> {
    let reader = directory.create_reader();
    let mut all = Vec::new();
    loop {
        let batch = Rc::new(RefCell::new(None::<Array>));
        let promise = js_sys::Promise::new(&mut |resolve, reject| {
            let ok = Closure::once_into_js(move |entries: JsValue| {
                let _ = resolve.call1(&JsValue::NULL, &entries);
            });
            let failed = Closure::once_into_js(move |error: JsValue| {
                let _ = reject.call1(&JsValue::NULL, &error);
            });
            let _ = reader.read_entries_with_callback_and_callback(ok.unchecked_ref(), failed.unchecked_ref());
        });
        match JsFuture::from(promise).await {
            Ok(entries) => *batch.borrow_mut() = entries.dyn_into::<Array>().ok(),
            Err(_) => break,
        }
        let Some(entries) = batch.borrow_mut().take() else { break };
        if entries.length() == 0 {
            break;
        }
        all.extend(entries.iter().map(|e| e.unchecked_into::<web_sys::FileSystemEntry>()));
    }
    all
}

async fn entry_file(entry: &web_sys::FileSystemFileEntry) -> Option<web_sys::File> {
    let promise = js_sys::Promise::new(&mut |resolve, reject| {
        let ok = Closure::once_into_js(move |file: JsValue| {
            let _ = resolve.call1(&JsValue::NULL, &file);
        });
        let failed = Closure::once_into_js(move |error: JsValue| {
            let _ = reject.call1(&JsValue::NULL, &error);
        });
        entry.file_with_callback_and_callback(ok.unchecked_ref(), failed.unchecked_ref());
    });
    JsFuture::from(promise).await.ok().and_then(|f| f.dyn_into().ok())
}

/// Where a load stands, as the worker reports it.
#[derive(Clone, Debug, PartialEq)]
pub struct Progress {
    pub done_bytes: f64,
    pub total_bytes: f64,
    pub path: String,
    pub started_ms: f64,
    pub now_ms: f64,
    /// Parsing is done; the graph is being built and sent back.
    pub building: bool,
}

impl Progress {
    /// `done` of `total` bytes read, `path` the file being read, in a load that started at
    /// `started_ms`.
    pub fn reading(done: f64, total: f64, path: String, started_ms: f64) -> Progress {
        Progress { done_bytes: done, total_bytes: total, path, started_ms, now_ms: now_ms(), building: false }
    }

    /// Every file is read; the graph is being built.
    pub fn building(started_ms: f64) -> Progress {
        Progress {
            done_bytes: 1.0,
            total_bytes: 1.0,
            path: String::new(),
            started_ms,
            now_ms: now_ms(),
            building: true,
        }
    }

    pub fn percent(&self) -> f64 {
        if self.total_bytes <= 0.0 { 100.0 } else { (self.done_bytes / self.total_bytes * 100.0).min(100.0) }
    }

    pub fn megabytes_per_second(&self) -> f64 {
        let seconds = (self.now_ms - self.started_ms) / 1000.0;
        if seconds <= 0.0 { 0.0 } else { self.done_bytes / 1e6 / seconds }
    }
}

/// A load in progress: dropping it (or calling `cancel`) stops the worker and the reading.
pub struct LoadJob {
    /// `None` when the page reads the files itself (no worker can start).
    worker: Option<WorkerParts>,
    cancelled: Rc<std::cell::Cell<bool>>,
}

struct WorkerParts {
    worker: web_sys::Worker,
    _on_message: Closure<dyn FnMut(web_sys::MessageEvent)>,
    _on_error: Closure<dyn FnMut(web_sys::ErrorEvent)>,
}

impl LoadJob {
    /// A job the page runs itself: it stops at its next step once `cancelled` is set.
    pub fn on_page(cancelled: Rc<std::cell::Cell<bool>>) -> LoadJob {
        LoadJob { worker: None, cancelled }
    }

    /// The job's worker, its job done, for another: it no longer answers this job, and is not
    /// stopped. `None` for a job on the page.
    pub fn into_worker(mut self) -> Option<web_sys::Worker> {
        let parts = self.worker.take()?;
        parts.worker.set_onmessage(None);
        parts.worker.set_onerror(None);
        Some(parts.worker.clone())
    }

    pub fn cancel(&self) {
        self.cancelled.set(true);
        if let Some(parts) = &self.worker {
            // A message already on its way finds no handler, not a dropped closure.
            parts.worker.set_onmessage(None);
            parts.worker.set_onerror(None);
            parts.worker.terminate();
        }
    }
}

impl Drop for LoadJob {
    fn drop(&mut self) {
        self.cancel();
    }
}

pub fn now_ms() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map_or(0.0, |p| p.now())
}

/// A worker started ahead of time, so it is loaded and warmed up when files arrive.
struct Spare {
    worker: web_sys::Worker,
    ready: Rc<std::cell::Cell<bool>>,
    /// Whether it was asked to warm up ([`warm_spare`]): it does once ready, and only once.
    warm: Rc<std::cell::Cell<bool>>,
    _on_message: Closure<dyn FnMut(web_sys::MessageEvent)>,
}

thread_local! {
    static SPARE: RefCell<Option<Spare>> = const { RefCell::new(None) };
}

/// Takes the worker started ahead of time for another job than a load (an agent database to
/// open, [`crate::database`]): the worker, and whether it said it was ready. Nothing listens to
/// it any more.
pub fn take_spare() -> Option<(web_sys::Worker, bool)> {
    let spare = SPARE.with(|s| s.borrow_mut().take())?;
    spare.worker.set_onmessage(None);
    Some((spare.worker.clone(), spare.ready.get()))
}

/// Gives a ready worker back as the one started ahead of time, if none is waiting; answers
/// whether it was taken.
pub fn give_back_spare(worker: &web_sys::Worker) -> bool {
    SPARE.with(|spare| {
        if spare.borrow().is_some() || standalone() {
            return false;
        }
        let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(|_: web_sys::MessageEvent| {});
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        let ready = Rc::new(std::cell::Cell::new(true));
        let warm = Rc::new(std::cell::Cell::new(false));
        *spare.borrow_mut() = Some(Spare { worker: worker.clone(), ready, warm, _on_message: on_message });
        true
    })
}

/// What identifies a file's content without reading it: its path, size and last-modified time.
pub fn stamp_of(path: &str, file: &web_sys::File) -> sessionscope_engine::history_cache::FileStamp {
    sessionscope_engine::history_cache::FileStamp {
        path: path.to_owned(),
        size: file.size() as u64,
        modified_ms: file.last_modified() as i64,
    }
}

/// The first `n` bytes of a file (all of it if it is shorter), or `None` if it cannot be read.
pub async fn first_bytes(file: &web_sys::File, n: f64) -> Option<Vec<u8>> {
    let blob = file.slice_with_f64_and_f64(0.0, n.min(file.size())).ok()?;
    let buffer = JsFuture::from(blob.array_buffer()).await.ok()?;
    Some(Uint8Array::new(&buffer).to_vec())
}

/// Why the app's page opened from disk reads no files: logs are read by the loading worker,
/// which browsers do not start from `file://` (an exported file carries its own).
pub const NO_WORKER_HERE: &str = "this page cannot read files: it was opened from disk without a web server, and \
     browsers start no worker there. Serve the app's folder (see the README), or open the hosted sessionscope";

/// Starts a loading worker (`worker_loader.js`), unless the page cannot start one.
pub fn spawn_worker() -> Result<web_sys::Worker, String> {
    let cannot = |_| "the loading worker could not start".to_owned();
    if standalone() {
        // An exported file carries its worker; a page opened from disk has none it may start.
        let url = crate::export::worker_url().ok_or(NO_WORKER_HERE)?;
        return web_sys::Worker::new(&url).map_err(cannot);
    }
    web_sys::Worker::new("./worker_loader.js").map_err(cannot)
}

/// Whether the app runs without its worker: an exported HTML file, or a page opened from disk
/// (browsers do not start workers from `file://`).
pub fn standalone() -> bool {
    let Some(window) = web_sys::window() else { return true };
    let from_disk = window.location().protocol().is_ok_and(|p| p == "file:");
    let exported = window.document().and_then(|d| d.get_element_by_id(crate::export::STANDALONE_MARKER)).is_some();
    from_disk || exported
}

/// Asks the worker started ahead of time to leave the CPU to the page for about `ms`
/// milliseconds: a warm-up it is running waits.
pub fn rest_spare(ms: f64) {
    SPARE.with(|spare| {
        if let Some(spare) = spare.borrow().as_ref() {
            let _ = protocol::send(&spare.worker, ToWorker::Rest { ms });
        }
    });
}

thread_local! {
    /// Parses of files in memory under way ([`parse_in_worker`]), each to give its worker back.
    static LENT: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// Starts a worker ahead of time, unless one is waiting already or will be given back.
pub fn prepare_worker() {
    if standalone() || LENT.get() > 0 {
        return;
    }
    SPARE.with(|spare| {
        if spare.borrow().is_some() {
            return;
        }
        let Ok(worker) = spawn_worker() else { return };
        let ready = Rc::new(std::cell::Cell::new(false));
        let warm = Rc::new(std::cell::Cell::new(false));
        let (flag, wanted, ready_worker) = (ready.clone(), warm.clone(), worker.clone());
        let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |event: web_sys::MessageEvent| {
            if let Ok(Envelope { message: FromWorker::Ready, .. }) = Envelope::decode(event.data()) {
                flag.set(true);
                if wanted.get() {
                    let _ = protocol::send(&ready_worker, ToWorker::WarmUp);
                }
            }
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        *spare.borrow_mut() = Some(Spare { worker, ready, warm, _on_message: on_message });
    });
}

/// Files are on their way (dragged over the page, or a picker about to open): the worker
/// started ahead of time makes its code fast on the bundled example meanwhile, once. Not
/// before: warming up takes a core for a second or two, which the page needs when the example
/// is opened (a click one second after the page was ready took 550 ms instead of 130 ms).
pub fn warm_spare() {
    prepare_worker();
    SPARE.with_borrow(|spare| {
        let Some(spare) = spare else { return };
        if spare.warm.replace(true) {
            return;
        }
        if spare.ready.get() {
            let _ = protocol::send(&spare.worker, ToWorker::WarmUp);
        }
    });
}

/// Prepares a worker once the page is idle (its code is fetched then, not while the page's own
/// is), or after 2 s at the latest.
pub fn prepare_worker_soon() {
    when_idle(prepare_worker, 2000);
}

/// Runs `job` once the next frame has been painted (where there are no frames, at once).
pub fn after_next_paint(job: impl FnOnce() + 'static) {
    let Some(window) = web_sys::window() else { return job() };
    let job = Closure::once_into_js(job);
    let in_frame = Closure::once_into_js(move || {
        let Some(window) = web_sys::window() else { return };
        let _ = window.set_timeout_with_callback_and_timeout_and_arguments_0(job.unchecked_ref(), 0);
    });
    let _ = window.request_animation_frame(in_frame.unchecked_ref());
}

/// Runs `job` once the page is idle, or after `at_latest_ms` at the latest; where the browser has
/// no idle callbacks, after half a second.
pub fn when_idle(job: impl FnOnce() + 'static, at_latest_ms: u32) {
    let Some(window) = web_sys::window() else { return };
    let callback = Closure::once_into_js(job);
    let has_idle = js_sys::Reflect::has(&window, &"requestIdleCallback".into()).unwrap_or(false);
    if has_idle {
        let options = web_sys::IdleRequestOptions::new();
        options.set_timeout(at_latest_ms);
        if window.request_idle_callback_with_options(callback.unchecked_ref(), &options).is_ok() {
            return;
        }
    }
    let _ = window.set_timeout_with_callback_and_timeout_and_arguments_0(callback.unchecked_ref(), 500);
}

/// What the page and the worker each bring to a load: the worker the model and the bytes of the
/// files the loader made (after the given ones), the page the bytes of the files given.
#[derive(Default)]
struct Parts {
    model: Option<Vec<u8>>,
    made: Vec<Vec<u8>>,
    bytes: Option<Vec<Vec<u8>>>,
}

/// The first part of a big load, shown while the rest is read.
pub struct Preview {
    pub model: Model,
    /// Bytes the preview holds, and bytes of the whole load.
    pub shown_bytes: f64,
    pub total_bytes: f64,
}

/// Starts loading `files`: the worker parses them while the page reads their bytes.
/// `on_progress` is called after every slice the worker reads; `on_preview`, if given, once
/// with the first part of a big load as soon as it is read; `on_done` once with the model or
/// the reason it failed.
pub fn start_load(
    files: &[PickedFile],
    on_progress: impl Fn(Progress) + 'static,
    on_preview: Option<Box<dyn Fn(Preview)>>,
    on_done: impl FnOnce(Result<Model, String>) + 'static,
) -> Result<LoadJob, String> {
    // The session will be drawn soon: the render module (Markdown, diffs) comes meanwhile, if it has not.
    crate::render_module::load();
    let request = Envelope::new(ToWorker::Load {
        paths: files.iter().map(|picked| picked.path.clone()).collect(),
        slice: crate::worker::SLICE_BYTES,
        preview: on_preview.is_some(),
    })
    .with_files(files.iter().map(|picked| picked.file.clone()).collect())
    .encode()?;
    let request = Rc::new(request);
    let spare = SPARE.with(|s| s.borrow_mut().take());
    let (worker, already_ready) = match spare {
        Some(spare) => {
            web_sys::console::debug_1(&format!("sessionscope load: spare worker ready: {}", spare.ready.get()).into());
            (spare.worker, spare.ready.get())
        }
        None => match spawn_worker() {
            Ok(worker) => (worker, false),
            Err(message) => return Err(message),
        },
    };
    let started = now_ms();
    let cancelled = Rc::new(std::cell::Cell::new(false));
    let on_done = Rc::new(RefCell::new(Some(on_done)));
    let parts = Rc::new(RefCell::new(Parts::default()));
    let finish = {
        let on_done = on_done.clone();
        let cancelled = cancelled.clone();
        move |result: Result<Model, String>| {
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
                (p.model.take().unwrap_or_default(), bytes)
            };
            let decoding = now_ms();
            let decoded = crate::worker::decode_model(&model, bytes).map(|(corpus, graph)| Model::new(corpus, graph));
            let message = format!(
                "sessionscope load: model decoded in {:.0} ms, {:.0} ms after the start",
                now_ms() - decoding,
                now_ms() - started
            );
            web_sys::console::debug_1(&message.into());
            finish(decoded);
        }
    };
    let assemble = Rc::new(assemble);

    let total_bytes: f64 = files.iter().map(PickedFile::size).sum();

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
        move || {
            leptos::task::spawn_local(async move {
                match read_bytes(&files, &stop).await {
                    Ok(bytes) => {
                        parts.borrow_mut().bytes = Some(bytes);
                        assemble();
                    }
                    Err(message) => finish(Err(message)),
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
    let preview_coming = on_preview.is_some() && total_bytes >= crate::worker::PREVIEW_FROM_TOTAL as f64;

    let on_message = {
        let start_reading = start_reading.clone();
        let finish = finish.clone();
        let worker = worker.clone();
        let parts = parts.clone();
        let assemble = assemble.clone();
        let request = request.clone();
        let cancelled = cancelled.clone();
        Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |event: web_sys::MessageEvent| {
            // A reply that cannot be read is ignored, like one meant for another kind of job.
            let reply = match Envelope::<FromWorker>::decode(event.data()) {
                Ok(reply) => reply,
                Err(message) => {
                    web_sys::console::debug_1(&format!("sessionscope load: {message}").into());
                    return;
                }
            };
            match reply.message {
                FromWorker::Ready => {
                    web_sys::console::debug_1(
                        &format!("sessionscope load: worker ready {:.0} ms after the start", now_ms() - started).into(),
                    );
                    if request.post_to(&worker).is_err() {
                        finish(Err("the files could not be handed to the worker".to_owned()));
                    }
                }
                FromWorker::Progress { done, total, path } => {
                    on_progress(Progress::reading(done, total, path, started))
                }
                FromWorker::Preview { timings } if !cancelled.get() => {
                    let Some(on_preview) = &on_preview else { return };
                    let Some((model, files)) = reply.buffers.split_first() else { return };
                    let bytes: Vec<Vec<u8>> = files.iter().map(bytes_of).collect();
                    let shown_bytes = bytes.iter().map(Vec::len).sum::<usize>() as f64;
                    // A preview that cannot be read is no reason to stop: the whole model follows.
                    let shown = crate::worker::decode_model(&bytes_of(model), bytes).map(|(corpus, graph)| {
                        log_timings("preview", started, &timings);
                        on_preview(Preview { model: Model::new(corpus, graph), shown_bytes, total_bytes });
                    });
                    // Once the preview is on screen, the page reads.
                    let start_reading = start_reading.clone();
                    let read = move || read_now(&start_reading);
                    match shown {
                        Ok(()) => after_next_paint(read),
                        Err(_) => read(),
                    }
                }
                FromWorker::Building => on_progress(Progress::building(started)),
                FromWorker::Done { timings } => {
                    log_timings("worker done", started, &timings);
                    let Some((model, made)) = reply.buffers.split_first() else {
                        finish(Err("the loading worker sent no model".to_owned()));
                        return;
                    };
                    {
                        let mut parts = parts.borrow_mut();
                        parts.model = Some(bytes_of(model));
                        parts.made = made.iter().map(bytes_of).collect();
                    }
                    read_now(&start_reading);
                    assemble();
                }
                FromWorker::Error { message } => finish(Err(message)),
                _ => {}
            }
        })
    };
    let on_error = {
        let finish = finish.clone();
        Closure::<dyn FnMut(web_sys::ErrorEvent)>::new(move |event: web_sys::ErrorEvent| {
            event.prevent_default();
            finish(Err(format!("the loading worker stopped: {}", event.message())));
        })
    };
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    if already_ready && request.post_to(&worker).is_err() {
        return Err("the files could not be handed to the worker".to_owned());
    }

    if !preview_coming {
        read_now(&start_reading);
    }
    Ok(LoadJob { worker: Some(WorkerParts { worker, _on_message: on_message, _on_error: on_error }), cancelled })
}

/// A job to run once, by whichever of several callers comes first.
type OnceJob = RefCell<Option<Box<dyn FnOnce()>>>;

/// The worker's timings on the console (debug level), for the benchmarks.
fn log_timings(what: &str, started: f64, timings: &impl serde::Serialize) {
    let timings = serde_json::to_string(timings).unwrap_or_default();
    let message = format!("sessionscope load: {what} after {:.0} ms: {timings}", now_ms() - started);
    web_sys::console::debug_1(&message.into());
}

/// Every file's bytes, each in one buffer sized up front.
async fn read_bytes(files: &[PickedFile], cancelled: &std::cell::Cell<bool>) -> Result<Vec<Vec<u8>>, String> {
    let mut all = Vec::with_capacity(files.len());
    for picked in files {
        let size = picked.file.size();
        let mut bytes = Vec::with_capacity(size as usize);
        let mut offset = 0.0;
        while offset < size {
            if cancelled.get() {
                return Err("cancelled".into());
            }
            let end = (offset + crate::worker::SLICE_BYTES as f64).min(size);
            let blob = picked
                .file
                .slice_with_f64_and_f64(offset, end)
                .map_err(|_| format!("{}: cannot slice", picked.path))?;
            let buffer =
                JsFuture::from(blob.array_buffer()).await.map_err(|_| format!("{} could not be read", picked.path))?;
            let array = Uint8Array::new(&buffer);
            let at = bytes.len();
            bytes.resize(at + array.length() as usize, 0);
            array.copy_to(&mut bytes[at..]);
            offset = end;
        }
        all.push(bytes);
    }
    Ok(all)
}

/// The bundled example's model, for native tests.
#[cfg(test)]
pub fn example_model() -> Model {
    let corpus = sessionscope_engine::Loader::read_all(crate::example::FILES.iter().copied());
    let graph = sessionscope_engine::dag::Graph::build(&corpus);
    Model::new(corpus, graph)
}

/// The example's files, fetched from the site (they are not in the page's wasm), all at once:
/// `(path, bytes)`.
pub async fn fetch_example() -> Result<Vec<(String, Vec<u8>)>, String> {
    let window = web_sys::window().ok_or("no window")?;
    let fetched = futures::future::join_all(crate::example::PATHS.iter().map(|path| fetch_bytes(&window, path))).await;
    crate::example::PATHS.iter().zip(fetched).map(|(path, bytes)| Ok(((*path).to_owned(), bytes?))).collect()
}

/// The bytes at `path` on the site.
async fn fetch_bytes(window: &web_sys::Window, path: &str) -> Result<Vec<u8>, String> {
    let failed = |_| format!("the example could not be fetched ({path})");
    let response: web_sys::Response =
        JsFuture::from(window.fetch_with_str(path)).await.map_err(failed)?.dyn_into().map_err(failed)?;
    if !response.ok() {
        return Err(format!("the example could not be fetched ({path}: HTTP {})", response.status()));
    }
    let buffer = JsFuture::from(response.array_buffer().map_err(failed)?).await.map_err(failed)?;
    Ok(Uint8Array::new(&buffer).to_vec())
}

/// Parses files already in memory (the example, a share) in a worker, as dropped files are:
/// the page keeps no parser of its own (`docs/size.md`). After a small parse the worker is
/// given back as the one started ahead of time.
pub async fn parse_in_worker(
    files: &[(String, Vec<u8>)],
    on_progress: impl Fn(Progress) + 'static,
) -> Result<Model, String> {
    let (sender, receiver) = futures::channel::oneshot::channel();
    let job = start_load(&files_from_bytes(files), on_progress, None, move |result| {
        let _ = sender.send(result);
    })?;
    // Its worker (most often the one started ahead of time) comes back: meanwhile no other is
    // started ahead, to compete with it for the CPU.
    LENT.set(LENT.get() + 1);
    let result = receiver.await.unwrap_or_else(|_| Err("cancelled".to_owned()));
    LENT.set(LENT.get() - 1);
    // After a small parse the worker's memory is small and its code compiled: it waits for the
    // next load, and no new worker is fetched and compiled meanwhile. After a big one its memory
    // goes with it.
    let small = files.iter().map(|(_, bytes)| bytes.len()).sum::<usize>() < KEEP_WARM_UNDER_BYTES;
    match job.into_worker() {
        // It warms up as a new one would, when files are on their way (`warm_spare`).
        Some(worker) if small && result.is_ok() && give_back_spare(&worker) => {}
        Some(worker) => {
            worker.terminate();
            prepare_worker_soon();
        }
        None => prepare_worker_soon(),
    }
    result
}

/// A worker that parsed less than this for [`parse_in_worker`] is kept for the next load.
const KEEP_WARM_UNDER_BYTES: usize = 16 << 20;

/// Files in memory (the example, a share) as `File`s, so they can be loaded again together
/// with dropped files.
pub fn files_from_bytes(files: &[(String, Vec<u8>)]) -> Vec<PickedFile> {
    files
        .iter()
        .filter_map(|(path, bytes)| {
            let parts = Array::new();
            parts.push(&Uint8Array::from(bytes.as_slice()));
            let name = path.rsplit('/').next().unwrap_or(path);
            web_sys::File::new_with_u8_array_sequence(&parts, name).ok().map(|file| PickedFile {
                path: path.clone(),
                file,
                handle: None,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::is_walked_whole;

    fn walked_whole(children: &[(&str, bool)]) -> bool {
        is_walked_whole("storage", children.iter().map(|&(name, folder)| (name.to_owned(), folder)))
    }

    #[test]
    fn a_folder_of_logs_and_opencode_storage_are_walked_whole() {
        assert!(walked_whole(&[("a.jsonl", false), ("a", true)]));
        assert!(!walked_whole(&[("history.jsonl", false), ("projects", true)]), "~/.claude");
        // OpenCode's storage: a session's files are in several of its folders.
        assert!(walked_whole(&[("session", true), ("message", true), ("part", true), ("migration", false)]));
        assert!(walked_whole(&[("info", true), ("message", true), ("part", true)]), "0.5.x");
        assert!(!walked_whole(&[("session", true), ("notes", true)]));
        assert!(!walked_whole(&[("storage", true), ("log", true)]), "~/.local/share/opencode: its storage is");
    }
}
