//! File and folder handles (the File System Access API, in Chromium): a folder picked with the
//! browser's picker or dropped, which the page may keep and read again later. A `File` is a
//! snapshot; a handle gives the file as it is now, so a session can be followed as it grows.

use js_sys::{Function, Object, Promise, Reflect};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{FileSystemDirectoryHandle, FileSystemFileHandle, FileSystemHandle, FileSystemHandleKind};

use super::browser::{self, Feature};
use super::errors::HandleError;

/// Whether this browser can pick a folder the page may keep (Chromium's File System Access
/// API) and keep it between visits (IndexedDB).
pub fn can_keep_folders() -> bool {
    browser::has(Feature::FolderPicker) && browser::has(Feature::IndexedDb)
}

/// Why no folder was picked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PickError {
    /// This browser has no folder picker whose folders the page may keep.
    Unsupported,
    Refused(HandleError),
}

impl std::fmt::Display for PickError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PickError::Unsupported => f.write_str("this browser cannot pick a folder the page may keep"),
            PickError::Refused(error) => error.fmt(f),
        }
    }
}

/// Asks the user for a folder (read only), the picker opening where it was last (`id`).
/// `Ok(None)` when they cancelled.
pub async fn pick_folder(id: &str) -> Result<Option<FileSystemDirectoryHandle>, PickError> {
    let window = web_sys::window().ok_or(PickError::Unsupported)?;
    let picker: Function = Reflect::get(&window, &"showDirectoryPicker".into())
        .ok()
        .and_then(|f| f.dyn_into().ok())
        .ok_or(PickError::Unsupported)?;
    let options = Object::new();
    let _ = Reflect::set(&options, &"mode".into(), &"read".into());
    let _ = Reflect::set(&options, &"id".into(), &id.into());
    let promise: Promise =
        picker.call1(&window, &options).map_err(|e| PickError::Refused(HandleError::from(&e)))?.unchecked_into();
    match JsFuture::from(promise).await {
        Ok(handle) => Ok(handle.dyn_into().ok()),
        Err(error) => match HandleError::from(&error) {
            cancelled if cancelled.is_cancelled() => Ok(None),
            refused => Err(PickError::Refused(refused)),
        },
    }
}

/// Whether the page may read a handle's folder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Permission {
    Granted,
    /// The browser will ask the user, after a click.
    Prompt,
    Denied,
}

/// Whether the page may read the folder. With `ask`, the browser asks the user (it must follow a
/// click). A browser without permissions on handles (the origin-private file system elsewhere)
/// answers granted.
pub async fn permission(handle: &FileSystemDirectoryHandle, ask: bool) -> Permission {
    let method = if ask { "requestPermission" } else { "queryPermission" };
    let Some(call) = Reflect::get(handle, &method.into()).ok().and_then(|f| f.dyn_into::<Function>().ok()) else {
        return Permission::Granted;
    };
    let options = Object::new();
    let _ = Reflect::set(&options, &"mode".into(), &"read".into());
    let Ok(promise) = call.call1(handle, &options) else { return Permission::Denied };
    match JsFuture::from(Promise::from(promise)).await.ok().and_then(|state| state.as_string()).as_deref() {
        Some("granted") => Permission::Granted,
        Some("prompt") => Permission::Prompt,
        _ => Permission::Denied,
    }
}

/// Whether two handles name the same folder.
pub async fn same_entry(a: &FileSystemDirectoryHandle, b: &FileSystemDirectoryHandle) -> bool {
    let handle: &FileSystemHandle = a.unchecked_ref();
    JsFuture::from(handle.is_same_entry(b.unchecked_ref())).await.ok().and_then(|v| v.as_bool()).unwrap_or(false)
}

/// Whether a folder can be listed (it is there, and the page may read it).
pub async fn check(folder: &FileSystemDirectoryHandle) -> Result<(), HandleError> {
    let next = folder.values().next().map_err(|e| HandleError::from(&e))?;
    JsFuture::from(next).await.map(|_| ()).map_err(|e| HandleError::from(&e))
}

/// The entries of a folder.
pub async fn children(folder: &FileSystemDirectoryHandle) -> Result<Vec<FileSystemHandle>, HandleError> {
    let entries = folder.values();
    let mut all = Vec::new();
    loop {
        let next = entries.next().map_err(|e| HandleError::from(&e))?;
        let step: js_sys::IteratorNext =
            JsFuture::from(next).await.map_err(|e| HandleError::from(&e))?.unchecked_into();
        if step.done() {
            return Ok(all);
        }
        all.push(step.value().unchecked_into());
    }
}

pub fn is_folder(handle: &FileSystemHandle) -> bool {
    handle.kind() == FileSystemHandleKind::Directory
}

/// The file a file handle names, as it is now.
pub async fn file_now(handle: &FileSystemFileHandle) -> Result<web_sys::File, HandleError> {
    let file = JsFuture::from(handle.get_file()).await.map_err(|e| HandleError::from(&e))?;
    file.dyn_into().map_err(|value: JsValue| HandleError::from(&value))
}

/// The handle of the file at `path` in `root` (a path as a walk names it: it starts with the
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

/// The one folder a drop holds, as a handle the page may keep (Chromium), to be awaited. `None`
/// for a drop of files, of several things, or in a browser without handles.
pub fn dropped_folder(data: &web_sys::DataTransfer) -> Option<Promise> {
    let items = data.items();
    if items.length() != 1 {
        return None;
    }
    let item = items.get(0)?;
    let entry = item.webkit_get_as_entry().ok().flatten()?;
    if !entry.is_directory() {
        return None;
    }
    let get = Reflect::get(&item, &"getAsFileSystemHandle".into()).ok()?.dyn_into::<Function>().ok()?;
    get.call0(&item).ok()?.dyn_into().ok()
}
