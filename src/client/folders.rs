//! Folders the browser lets the page keep (the File System Access API, in Chromium): picked with
//! the browser's folder picker or dropped, remembered in this browser's IndexedDB with their
//! cached index and trigram sets (and what was seen of them), and reopened on a later visit; and
//! the bookmarks, notes and tags of sessions, kept beside them. Walking them is
//! [`super::intake`]'s.

use js_sys::{Object, Reflect};
use sessionscope_engine::history_cache::{CachedTrigrams, FileStamp, IndexCache, decode_trigrams, insights_header};
use sessionscope_engine::small_json;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::FileSystemDirectoryHandle;

use crate::logic::seen::FolderSeen;
use crate::logic::sort;
use crate::platform::handles::{self, PickError};
use crate::platform::storage::{StorageError, Store};

/// The page's database.
const DATABASE: &str = "sessionscope";
const VERSION: u32 = 1;
/// Remembered folders, keyed by their id: `{ id, name, handle, openedMs }`.
const FOLDERS: &str = "folders";
/// Cached indexes, keyed by their folder's id: the bytes of an `IndexCache`; a folder's trigram
/// sets beside it, under `<id>#trigrams`, its units' insights under `<id>#insights`, their rows
/// and word indexes under `<id>#words`, and what
/// was seen of its sessions under `<id>#seen` (JSON of a [`FolderSeen`]). The bookmarks, notes and
/// tags of every session are kept once, under [`MARKS_KEY`] (the JSON of their export file).
const INDEXES: &str = "indexes";
/// Where the marks are kept in [`INDEXES`]: no folder's id starts with `#`.
const MARKS_KEY: &str = "#marks";

/// A folder the user asked the page to remember.
#[derive(Clone)]
pub struct Remembered {
    pub id: String,
    pub name: String,
    pub handle: FileSystemDirectoryHandle,
    /// When it was last opened, milliseconds since the epoch.
    pub opened_ms: f64,
}

/// The folders this browser remembers, and their caches. Clones share the open database.
#[derive(Clone)]
pub struct Folders {
    store: Store,
}

impl Default for Folders {
    fn default() -> Self {
        Folders::new()
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

/// Where a remembered folder's trigram sets are kept, beside its cached index.
fn trigrams_key(id: &str) -> String {
    format!("{id}#trigrams")
}

/// Where what was seen of a remembered folder's sessions is kept, beside its cached index.
fn seen_key(id: &str) -> String {
    format!("{id}#seen")
}

/// Where a remembered folder's units' rows and word indexes are kept, beside its cached index.
fn words_key(id: &str) -> String {
    format!("{id}#words")
}

/// Where a remembered folder's units' insights are kept, beside its cached index.
fn insights_key(id: &str) -> String {
    format!("{id}#insights")
}

impl Folders {
    pub fn new() -> Folders {
        Folders { store: Store::new(DATABASE, VERSION, &[FOLDERS, INDEXES]) }
    }

    /// Whether this browser can pick and keep folders.
    pub fn supported() -> bool {
        handles::can_keep_folders()
    }

    /// Asks the user for a folder (read only). `Ok(None)` when they cancelled.
    pub async fn pick(&self) -> Result<Option<FileSystemDirectoryHandle>, PickError> {
        handles::pick_folder("sessionscope-history").await
    }

    /// The remembered folders, the last opened first.
    pub async fn remembered(&self) -> Vec<Remembered> {
        let mut folders: Vec<Remembered> =
            self.store.all(FOLDERS).await.unwrap_or_default().iter().filter_map(folder_of).collect();
        sort::sort_by(&mut folders, |a, b| b.opened_ms.total_cmp(&a.opened_ms));
        folders
    }

    /// Remembers a folder (the same folder picked again keeps its id and cached index); answers
    /// it.
    pub async fn remember(&self, handle: FileSystemDirectoryHandle) -> Result<Remembered, StorageError> {
        let mut id = None;
        for folder in self.remembered().await {
            if handles::same_entry(&folder.handle, &handle).await {
                id = Some(folder.id);
                break;
            }
        }
        let folder = Remembered {
            id: id.unwrap_or_else(|| {
                format!("{:x}-{:x}", js_sys::Date::now() as u64, (js_sys::Math::random() * 1e9) as u64)
            }),
            name: handle.name(),
            handle,
            opened_ms: js_sys::Date::now(),
        };
        self.store.put(FOLDERS, &folder.id, &record_of(&folder)).await?;
        Ok(folder)
    }

    /// Forgets a folder: its handle and its cached index.
    pub async fn forget(&self, id: &str) -> Result<(), StorageError> {
        self.store.delete(INDEXES, id).await?;
        self.store.delete(INDEXES, &trigrams_key(id)).await?;
        self.store.delete(INDEXES, &insights_key(id)).await?;
        self.store.delete(INDEXES, &words_key(id)).await?;
        self.store.delete(INDEXES, &seen_key(id)).await?;
        self.store.delete(FOLDERS, id).await
    }

    /// The cached index of a remembered folder, if it has one this version can read.
    pub async fn load_cache(&self, id: &str) -> Option<IndexCache> {
        let value = self.store.get(INDEXES, id).await.ok()?;
        let bytes = value.dyn_into::<js_sys::Uint8Array>().ok()?.to_vec();
        IndexCache::decode(&bytes)
    }

    /// Keeps a cached index's bytes ([`IndexCache::encode`]) for a remembered folder.
    pub async fn save_cache(&self, id: &str, bytes: &[u8]) -> Result<(), StorageError> {
        self.store.put(INDEXES, id, &js_sys::Uint8Array::from(bytes).into()).await
    }

    /// The trigram sets of a remembered folder's units
    /// ([`sessionscope_engine::history_cache::encode_trigrams`]), none if it has none this version
    /// can read.
    pub async fn load_trigrams(&self, id: &str) -> Vec<CachedTrigrams> {
        let Ok(value) = self.store.get(INDEXES, &trigrams_key(id)).await else { return Vec::new() };
        let Ok(bytes) = value.dyn_into::<js_sys::Uint8Array>() else { return Vec::new() };
        decode_trigrams(&bytes.to_vec()).unwrap_or_default()
    }

    /// Keeps the trigram sets' bytes for a remembered folder.
    pub async fn save_trigrams(&self, id: &str, bytes: &[u8]) -> Result<(), StorageError> {
        self.store.put(INDEXES, &trigrams_key(id), &js_sys::Uint8Array::from(bytes).into()).await
    }

    /// The insights of a remembered folder's units, each with the stamps of its files, as
    /// buffers to hand on to the insights worker untouched
    /// ([`sessionscope_engine::history_cache::encode_insights`]); none if it has none this
    /// version can read. The cache is read in place, in browser memory: only the stamps come
    /// into the page's.
    pub async fn load_insights(&self, id: &str) -> Vec<(Vec<FileStamp>, js_sys::ArrayBuffer)> {
        let Ok(value) = self.store.get(INDEXES, &insights_key(id)).await else { return Vec::new() };
        let Ok(bytes) = value.dyn_into::<js_sys::Uint8Array>() else { return Vec::new() };
        insight_parts_in(&bytes).unwrap_or_default()
    }

    /// Keeps the insights' bytes for a remembered folder.
    pub async fn save_insights(&self, id: &str, bytes: &[u8]) -> Result<(), StorageError> {
        self.store.put(INDEXES, &insights_key(id), &js_sys::Uint8Array::from(bytes).into()).await
    }

    /// The rows and word indexes of a remembered folder's units, as the history worker encoded
    /// them (`wire::word_search::encode_kept`), to hand back to it untouched: read in place, in
    /// browser memory.
    pub async fn load_words(&self, id: &str) -> Option<js_sys::ArrayBuffer> {
        let value = self.store.get(INDEXES, &words_key(id)).await.ok()?;
        Some(value.dyn_into::<js_sys::Uint8Array>().ok()?.buffer())
    }

    /// Keeps the rows and word indexes' bytes for a remembered folder, without copying them into
    /// the page's memory.
    pub async fn save_words(&self, id: &str, buffer: &js_sys::ArrayBuffer) -> Result<(), StorageError> {
        self.store.put(INDEXES, &words_key(id), &js_sys::Uint8Array::new(buffer).into()).await
    }
}

impl Folders {
    /// What was seen of a remembered folder's sessions; `None` before its first visit (or if
    /// what was kept cannot be read).
    pub async fn load_seen(&self, id: &str) -> Option<FolderSeen> {
        let text = self.store.get(INDEXES, &seen_key(id)).await.ok()?.as_string()?;
        small_json::from_str(&text).ok()
    }

    pub async fn save_seen(&self, id: &str, seen: &FolderSeen) -> Result<(), StorageError> {
        let text = small_json::to_string(seen).map_err(|e| StorageError::Failed(e.to_string()))?;
        self.store.put(INDEXES, &seen_key(id), &text.into()).await
    }

    /// The text of the marks' file as kept, if any.
    pub async fn load_marks(&self) -> Option<String> {
        self.store.get(INDEXES, MARKS_KEY).await.ok()?.as_string()
    }

    pub async fn save_marks(&self, text: &str) -> Result<(), StorageError> {
        self.store.put(INDEXES, MARKS_KEY, &text.into()).await
    }
}

/// The units of cached insights (`encode_insights`' layout: the header, then each unit's stamps
/// and insights after their lengths), read where they are: `None` for another version, or bytes
/// cut short (never trusted in part).
fn insight_parts_in(bytes: &js_sys::Uint8Array) -> Option<Vec<(Vec<FileStamp>, js_sys::ArrayBuffer)>> {
    let length = bytes.length();
    let header = insights_header();
    if length < header.len() as u32 || bytes.subarray(0, header.len() as u32).to_vec() != header {
        return None;
    }
    // The next part after `at`: where it starts and stops.
    let part = |at: u32| -> Option<(u32, u32)> {
        let end = at.checked_add(4).filter(|&end| end <= length)?;
        let mut len = [0u8; 4];
        bytes.subarray(at, end).copy_to(&mut len);
        let stop = end.checked_add(u32::from_le_bytes(len)).filter(|&stop| stop <= length)?;
        Some((end, stop))
    };
    let mut at = header.len() as u32;
    let mut units = Vec::new();
    while at < length {
        let (start, stop) = part(at)?;
        let stamps: Vec<FileStamp> = small_json::from_slice(&bytes.subarray(start, stop).to_vec()).ok()?;
        let (start, stop) = part(stop)?;
        units.push((stamps, bytes.slice(start, stop).buffer()));
        at = stop;
    }
    Some(units)
}
