//! Folders the browser lets the page keep (the File System Access API, in Chromium): picked
//! with `showDirectoryPicker` or dropped, remembered in IndexedDB with their cached index, and
//! walked through their handles, which can be read again later (a `File` is a snapshot; a
//! handle gives the file as it is now, so a session can be followed as it grows).

use js_sys::{Function, Object, Promise, Reflect};
use sessionscope_engine::history_cache::{CachedTrigrams, IndexCache, decode_trigrams};
use sessionscope_engine::import::names::looks_like_a_log;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{FileSystemDirectoryHandle, FileSystemFileHandle, FileSystemHandle, FileSystemHandleKind};

use crate::files::{OnBatch, Picked, PickedFile, now_ms};
use crate::store;

/// A folder the user asked the page to remember.
#[derive(Clone)]
pub struct Remembered {
    pub id: String,
    pub name: String,
    pub handle: FileSystemDirectoryHandle,
    /// When it was last opened, milliseconds since the epoch.
    pub opened_ms: f64,
}

/// Whether this browser can pick a folder the page may keep (Chromium's File System Access
/// API) and keep it (IndexedDB).
pub fn can_remember() -> bool {
    web_sys::window().is_some_and(|w| {
        Reflect::has(&w, &"showDirectoryPicker".into()).unwrap_or(false) && w.indexed_db().ok().flatten().is_some()
    })
}

/// Why an operation on a folder handle failed, in words.
pub fn describe(error: &JsValue) -> String {
    let name = Reflect::get(error, &"name".into()).ok().and_then(|n| n.as_string()).unwrap_or_default();
    match name.as_str() {
        "NotFoundError" => "the folder or file is no longer there (moved or deleted)".to_owned(),
        "NotAllowedError" | "SecurityError" => "the browser's permission to read it was refused".to_owned(),
        "NotReadableError" => "it changed or could not be read while it was being read".to_owned(),
        "AbortError" => "the choice was cancelled".to_owned(),
        _ => Reflect::get(error, &"message".into())
            .ok()
            .and_then(|m| m.as_string())
            .or_else(|| error.as_string())
            .unwrap_or_else(|| "it could not be read".to_owned()),
    }
}

/// Asks the user for a folder (read only). `Ok(None)` when they cancelled.
pub async fn pick() -> Result<Option<FileSystemDirectoryHandle>, String> {
    let window = web_sys::window().ok_or("no window")?;
    let picker: Function = Reflect::get(&window, &"showDirectoryPicker".into())
        .ok()
        .and_then(|f| f.dyn_into().ok())
        .ok_or("this browser cannot pick a folder the page may keep")?;
    let options = Object::new();
    let _ = Reflect::set(&options, &"mode".into(), &"read".into());
    let _ = Reflect::set(&options, &"id".into(), &"sessionscope-history".into());
    let promise: Promise = picker.call1(&window, &options).map_err(|e| describe(&e))?.unchecked_into();
    match JsFuture::from(promise).await {
        Ok(handle) => Ok(handle.dyn_into().ok()),
        Err(error) if describe(&error) == "the choice was cancelled" => Ok(None),
        Err(error) => Err(describe(&error)),
    }
}

/// Whether the page may read the folder: `"granted"`, `"prompt"` or `"denied"`. With `ask`, the
/// browser asks the user (it must follow a click). A browser without permissions on handles (the
/// origin-private file system elsewhere) answers granted.
pub async fn permission(handle: &FileSystemDirectoryHandle, ask: bool) -> String {
    let method = if ask { "requestPermission" } else { "queryPermission" };
    let Some(call) = Reflect::get(handle, &method.into()).ok().and_then(|f| f.dyn_into::<Function>().ok()) else {
        return "granted".to_owned();
    };
    let options = Object::new();
    let _ = Reflect::set(&options, &"mode".into(), &"read".into());
    let Ok(promise) = call.call1(handle, &options) else { return "denied".to_owned() };
    match JsFuture::from(Promise::from(promise)).await {
        Ok(state) => state.as_string().unwrap_or_else(|| "denied".to_owned()),
        Err(_) => "denied".to_owned(),
    }
}

fn record_of(folder: &Remembered) -> JsValue {
    let record = Object::new();
    let _ = Reflect::set(&record, &"id".into(), &folder.id.as_str().into());
    let _ = Reflect::set(&record, &"name".into(), &folder.name.as_str().into());
    let _ = Reflect::set(&record, &"handle".into(), &folder.handle);
    let _ = Reflect::set(&record, &"openedMs".into(), &folder.opened_ms.into());
    record.into()
}

fn folder_of(record: &JsValue) -> Option<Remembered> {
    let text = |key: &str| Reflect::get(record, &key.into()).ok().and_then(|v| v.as_string());
    Some(Remembered {
        id: text("id")?,
        name: text("name")?,
        handle: Reflect::get(record, &"handle".into()).ok()?.dyn_into().ok()?,
        opened_ms: Reflect::get(record, &"openedMs".into()).ok().and_then(|v| v.as_f64()).unwrap_or(0.0),
    })
}

/// The remembered folders, the last opened first.
pub async fn remembered() -> Vec<Remembered> {
    let mut folders: Vec<Remembered> =
        store::all(store::FOLDERS).await.unwrap_or_default().iter().filter_map(folder_of).collect();
    crate::sort::sort_by(&mut folders, |a, b| b.opened_ms.total_cmp(&a.opened_ms));
    folders
}

async fn same_entry(a: &FileSystemDirectoryHandle, b: &FileSystemDirectoryHandle) -> bool {
    let handle: &FileSystemHandle = a.unchecked_ref();
    JsFuture::from(handle.is_same_entry(b.unchecked_ref())).await.ok().and_then(|v| v.as_bool()).unwrap_or(false)
}

/// Remembers a folder (the same folder picked again keeps its id and cached index); answers it.
pub async fn remember(handle: FileSystemDirectoryHandle) -> Result<Remembered, String> {
    let mut id = None;
    for folder in remembered().await {
        if same_entry(&folder.handle, &handle).await {
            id = Some(folder.id);
            break;
        }
    }
    let folder = Remembered {
        id: id
            .unwrap_or_else(|| format!("{:x}-{:x}", js_sys::Date::now() as u64, (js_sys::Math::random() * 1e9) as u64)),
        name: handle.name(),
        handle,
        opened_ms: js_sys::Date::now(),
    };
    store::put(store::FOLDERS, &folder.id, &record_of(&folder)).await?;
    Ok(folder)
}

/// Forgets a folder: its handle and its cached index.
pub async fn forget(id: &str) -> Result<(), String> {
    store::delete(store::INDEXES, id).await?;
    store::delete(store::INDEXES, &trigrams_key(id)).await?;
    store::delete(store::FOLDERS, id).await
}

/// The cached index of a remembered folder, if it has one this version can read.
pub async fn load_cache(id: &str) -> Option<IndexCache> {
    let value = store::get(store::INDEXES, id).await.ok()?;
    let bytes = value.dyn_into::<js_sys::Uint8Array>().ok()?.to_vec();
    IndexCache::decode(&bytes)
}

/// Keeps a cached index's bytes ([`IndexCache::encode`]) for a remembered folder.
pub async fn save_cache(id: &str, bytes: &[u8]) -> Result<(), String> {
    store::put(store::INDEXES, id, &js_sys::Uint8Array::from(bytes).into()).await
}

/// Where a remembered folder's trigram sets are kept, beside its cached index.
fn trigrams_key(id: &str) -> String {
    format!("{id}#trigrams")
}

/// The trigram sets of a remembered folder's units ([`sessionscope_engine::history_cache::encode_trigrams`]), none if it has none
/// this version can read.
pub async fn load_trigrams(id: &str) -> Vec<CachedTrigrams> {
    let Ok(value) = store::get(store::INDEXES, &trigrams_key(id)).await else { return Vec::new() };
    let Ok(bytes) = value.dyn_into::<js_sys::Uint8Array>() else { return Vec::new() };
    decode_trigrams(&bytes.to_vec()).unwrap_or_default()
}

/// Keeps the trigram sets' bytes ([`sessionscope_engine::history_cache::encode_trigrams`]) for a remembered folder.
pub async fn save_trigrams(id: &str, bytes: &[u8]) -> Result<(), String> {
    store::put(store::INDEXES, &trigrams_key(id), &js_sys::Uint8Array::from(bytes).into()).await
}

/// Whether a folder can be listed (it is there, and the page may read it).
pub async fn check(folder: &FileSystemDirectoryHandle) -> Result<(), String> {
    let next = folder.values().next().map_err(|e| describe(&e))?;
    JsFuture::from(next).await.map(|_| ()).map_err(|e| describe(&e))
}

/// The handle of the file at `path` in `root` (a path as the walk names it: it starts with the
/// root folder's name). `None` when it is not there.
pub async fn file_handle_at(root: &FileSystemDirectoryHandle, path: &str) -> Option<FileSystemFileHandle> {
    let mut parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
    if parts.first() == Some(&root.name().as_str()) {
        parts.remove(0);
    }
    let (name, folders) = parts.split_last()?;
    let mut folder = root.clone();
    for part in folders {
        folder = JsFuture::from(folder.get_directory_handle(part)).await.ok()?.dyn_into().ok()?;
    }
    JsFuture::from(folder.get_file_handle(name)).await.ok()?.dyn_into().ok()
}

/// The entries of a folder.
async fn children(folder: &FileSystemDirectoryHandle) -> Result<Vec<FileSystemHandle>, String> {
    let entries = folder.values();
    let mut all = Vec::new();
    loop {
        let next = entries.next().map_err(|e| describe(&e))?;
        let step: js_sys::IteratorNext = JsFuture::from(next).await.map_err(|e| describe(&e))?.unchecked_into();
        if step.done() {
            return Ok(all);
        }
        all.push(step.value().unchecked_into());
    }
}

fn is_folder(handle: &FileSystemHandle) -> bool {
    handle.kind() == FileSystemHandleKind::Directory
}

/// The file a file handle names, as it is now.
pub async fn file_now(handle: &FileSystemFileHandle) -> Result<web_sys::File, String> {
    JsFuture::from(handle.get_file()).await.map_err(|e| describe(&e))?.dyn_into().map_err(|_| "not a file".to_owned())
}

/// Walks a folder handle as [`crate::files::walk_drop`] walks a dropped folder: a folder that
/// holds logs is walked whole and handed on as one batch, folders of folders child by child, the
/// first alone, then [`crate::files::FOLDERS_WALKED_AT_ONCE`] children at a time (each is a few round trips to the
/// browser, so walking them one after another left the index workers waiting). Paths start
/// with the folder's name, as a drop's do. Fails only when the folder itself cannot be listed;
/// a subfolder or file that cannot be read is listed as a problem.
pub async fn walk(folder: &FileSystemDirectoryHandle, on_batch: &mut OnBatch<'_>) -> Result<usize, String> {
    use futures::StreamExt;
    let started = now_ms();
    let top = children(folder).await?;
    let mut batches = walk_listed(folder.name(), top);
    let mut found = 0;
    while let Some(batch) = batches.next().await {
        found += batch.files.len();
        on_batch(crate::database::opened(batch).await).await;
    }
    web_sys::console::debug_1(
        &format!("sessionscope folder: {found} files walked in {:.0} ms", now_ms() - started).into(),
    );
    Ok(found)
}

/// The batches of a folder below the top one.
fn walk_folder(path: String, folder: FileSystemDirectoryHandle) -> Batches {
    use futures::StreamExt;
    futures::stream::once(
        async move { children(&folder).await.map(|listed| (path.clone(), listed)).map_err(|e| (path, e)) },
    )
    .flat_map(|listed| match listed {
        Ok((path, listed)) => walk_listed(path, listed),
        Err((path, reason)) => {
            let picked = Picked { from_folder: true, unreadable: vec![(path, reason)], ..Picked::default() };
            futures::stream::iter([picked]).boxed_local()
        }
    })
    .boxed_local()
}

/// The batches of a listed folder: itself whole if it holds logs, else its own files, then its
/// children's batches as they are walked.
fn walk_listed(path: String, listed: Vec<FileSystemHandle>) -> Batches {
    use futures::StreamExt;
    let named = |h: FileSystemHandle| (format!("{path}/{}", h.name()), h);
    let name = path.rsplit('/').next().unwrap_or(&path).to_owned();
    if crate::files::is_walked_whole(&name, listed.iter().map(|h| (h.name(), is_folder(h)))) {
        return futures::stream::once(walk_whole(listed.into_iter().map(named).collect())).boxed_local();
    }
    let (folders, files): (Vec<_>, Vec<_>) = listed.into_iter().map(named).partition(|(_, h)| is_folder(h));
    let own = futures::stream::once(walk_whole(files)).filter(|picked| {
        let any = !picked.files.is_empty() || !picked.skipped_by_name.is_empty() || !picked.unreadable.is_empty();
        std::future::ready(any)
    });
    let below = crate::files::first_alone_then_at_once(
        folders.into_iter().map(|(child_path, child)| walk_folder(child_path, child.unchecked_into())).collect(),
    );
    own.chain(below).boxed_local()
}

/// Batches of a walk, handed on as they are walked.
type Batches = futures::stream::LocalBoxStream<'static, Picked>;

/// Walks handles and everything below them, level by level, every listing and file of a level
/// asked for at once.
async fn walk_whole(handles: Vec<(String, FileSystemHandle)>) -> Picked {
    let mut picked = Picked { from_folder: true, ..Picked::default() };
    let mut level = handles;
    while !level.is_empty() {
        let (folders, files): (Vec<_>, Vec<_>) = level.into_iter().partition(|(_, h)| is_folder(h));
        let mut wanted = Vec::new();
        for (path, handle) in files {
            // A database's write-ahead log is read with it, its other files left out (crate::database).
            if looks_like_a_log(&path) || crate::database::is_companion(&path) {
                wanted.push((path, handle.unchecked_into::<FileSystemFileHandle>()));
            } else {
                picked.skipped_by_name.push(path);
            }
        }
        let got = futures::future::join_all(wanted.iter().map(|(_, handle)| file_now(handle))).await;
        for ((path, handle), file) in wanted.into_iter().zip(got) {
            match file {
                Ok(file) => picked.files.push(PickedFile { path, file, handle: Some(handle) }),
                Err(reason) => picked.unreadable.push((path, reason)),
            }
        }
        let listed = futures::future::join_all(
            folders.iter().map(|(_, folder)| children(folder.unchecked_ref::<FileSystemDirectoryHandle>())),
        )
        .await;
        level = Vec::new();
        for ((path, _), children) in folders.into_iter().zip(listed) {
            match children {
                Ok(children) => level.extend(children.into_iter().map(|h| (format!("{path}/{}", h.name()), h))),
                Err(reason) => picked.unreadable.push((path, reason)),
            }
        }
    }
    crate::sort::sort_by(&mut picked.files, |a, b| a.path.cmp(&b.path));
    picked
}

/// The files as they are now: a file with a handle is asked for again (it may have grown since it
/// was walked); one that can no longer be had stays as it was, and its read reports why.
/// A file of a dropped folder has no handle of its own: it is found from the folder's (`root`),
/// if given. An agent database is made its record stream again ([`crate::database::fresh`]).
pub async fn fresh_files(root: Option<&FileSystemDirectoryHandle>, files: Vec<PickedFile>) -> Vec<PickedFile> {
    let before = files.clone();
    let now = fresh_handles(root, files).await;
    crate::database::fresh(root, &before, now).await
}

/// The files as they are now, by their handles.
async fn fresh_handles(root: Option<&FileSystemDirectoryHandle>, files: Vec<PickedFile>) -> Vec<PickedFile> {
    let fresh = futures::future::join_all(files.iter().map(|f| async move {
        let handle = match &f.handle {
            Some(handle) => Some(handle.clone()),
            None => file_handle_at(root?, &f.path).await,
        }?;
        let file = file_now(&handle).await.ok()?;
        Some((file, handle))
    }))
    .await;
    files
        .into_iter()
        .zip(fresh)
        .map(|(f, now)| match now {
            Some((file, handle)) => PickedFile { file, handle: Some(handle), ..f },
            None => f,
        })
        .collect()
}
