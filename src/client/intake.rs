//! Where files come in: a file input, a drop (plain files, or folders walked through their
//! directory entries) and a folder handle (picked, dropped in Chromium, or remembered), all by
//! one walk over a [`Node`] of either kind, handed on batch by batch, with the agent databases of
//! each batch made their record streams ([`Databases`]); and the files an installed app is
//! launched with ([`Intake::launched`]). The files of a remembered folder are asked for again as
//! they are now ([`Intake::fresh`]).

use std::cell::RefCell;
use std::rc::Rc;

use futures::StreamExt;
use futures::future::LocalBoxFuture;
use futures::stream::LocalBoxStream;
use js_sys::{Array, Reflect};
use sessionscope_engine::history::FileProblem;
use sessionscope_engine::import::names::{kept_version, looks_like_a_log};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{FileSystemDirectoryHandle, FileSystemFileHandle, FileSystemHandle};

use super::databases::{Databases, is_companion};
use super::picked::{LaterFile, Picked, PickedFile};
use super::workers::Workers;
use crate::logic::sort;
use crate::platform::errors::HandleError;
use crate::platform::{handles, schedule};

/// What is done with each batch of a walk's files, as soon as it is walked.
pub type OnBatch<'a> = dyn FnMut(Picked) -> LocalBoxFuture<'static, ()> + 'a;

/// What a drop holds, taken from its `DataTransfer` while the drop event lasts (its items are
/// gone afterwards): the folders, as directory entries to walk, and the files, as the `File`s
/// the drop carries. A file is taken as its `File` rather than through its entry: Safari's
/// engine gives an entry whose `file()` fails for a file that is not on disk (one made by a
/// page), and a `File` is what every browser gives. An entry is walked only for a file that has
/// no `File`.
pub struct Dropped {
    folders: Vec<web_sys::FileSystemEntry>,
    file_entries: Vec<web_sys::FileSystemEntry>,
    files: Picked,
}

impl Dropped {
    /// Reads a drop's items. Call it in the drop event itself.
    pub fn of(data: &web_sys::DataTransfer) -> Dropped {
        let items = data.items();
        let mut dropped = Dropped { folders: Vec::new(), file_entries: Vec::new(), files: Picked::default() };
        for i in 0..items.length() {
            let Some(item) = items.get(i) else { continue };
            if item.kind() != "file" {
                continue;
            }
            let entry = item.webkit_get_as_entry().ok().flatten();
            if let Some(entry) = entry.as_ref().filter(|entry| entry.is_directory()) {
                dropped.folders.push(entry.clone());
            } else if let Ok(Some(file)) = item.get_as_file() {
                dropped.files.files.push(PickedFile { path: file.name(), file, handle: None, part: None });
            } else if let Some(entry) = entry {
                dropped.file_entries.push(entry);
            }
        }
        // A browser that gives no items (older ones) gives the plain file list.
        if items.length() == 0 {
            dropped.files = data.files().map(|l| from_file_list(&l)).unwrap_or_default();
        }
        dropped
    }
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
            Some(path) if kept_version(&path).is_some() => {
                picked.from_folder = true;
                picked.versions.push(LaterFile::of_file(path, file));
            }
            Some(path) if !looks_like_a_log(&path) && !is_companion(&path) => {
                picked.from_folder = true;
                picked.skipped_by_name.push(path)
            }
            Some(path) => {
                picked.from_folder = true;
                picked.files.push(PickedFile { path, file, handle: None, part: None })
            }
            None => picked.files.push(PickedFile { path: file.name(), file, handle: None, part: None }),
        }
    }
    picked
}

/// Sibling folders walked at once. Each is a few round trips to the browser (list it, ask for its
/// files, list its subfolders): walked one after another, the 30 projects of a 4 GB history took
/// 10–16 s, and the index workers waited for them.
pub const FOLDERS_WALKED_AT_ONCE: usize = 6;

/// The batches of sibling folders' walks: the first folder walked alone, so that its batch (the
/// first project of a history) is out soonest and the index starts on it, then the others
/// [`FOLDERS_WALKED_AT_ONCE`] at a time. Walked with five others, the first project of a 4 GB
/// history took 650 ms to walk.
fn first_alone_then_at_once(walks: Vec<Batches>) -> Batches {
    let mut walks = walks.into_iter();
    let first = futures::stream::iter(walks.next()).flatten();
    first.chain(futures::stream::iter(walks).flatten_unordered(FOLDERS_WALKED_AT_ONCE)).boxed_local()
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

/// A file or folder a walk goes through: a dropped directory entry, or a handle.
trait Node: Clone + 'static {
    fn name(&self) -> String;
    fn is_folder(&self) -> bool;
    /// A folder's entries.
    fn children(&self) -> LocalBoxFuture<'static, Result<Vec<Self>, HandleError>>;
    /// A file's `File`, and its handle if it is one.
    fn file(&self) -> LocalBoxFuture<'static, Result<PickedFile, HandleError>>;
}

/// Batches of a walk, handed on as they are walked.
type Batches = LocalBoxStream<'static, Picked>;

/// The batches of a folder below the top one (`path` names it).
fn walk_folder<N: Node>(path: String, folder: N) -> Batches {
    futures::stream::once(async move {
        let listed = folder.children().await;
        (path, listed)
    })
    .flat_map(|(path, listed)| match listed {
        Ok(listed) => walk_listed(path, listed),
        Err(reason) => {
            let unreadable = vec![FileProblem { path, reason: reason.to_string() }];
            futures::stream::iter([Picked { from_folder: true, unreadable, ..Picked::default() }]).boxed_local()
        }
    })
    .boxed_local()
}

/// The batches of a listed folder: itself whole if it holds logs, else its own files, then its
/// children's batches as they are walked.
fn walk_listed<N: Node>(path: String, listed: Vec<N>) -> Batches {
    let named = |node: N| (format!("{path}/{}", node.name()), node);
    let name = path.rsplit('/').next().unwrap_or(&path).to_owned();
    if is_walked_whole(&name, listed.iter().map(|n| (n.name(), n.is_folder()))) {
        return futures::stream::once(walk_whole(listed.into_iter().map(named).collect(), true)).boxed_local();
    }
    let (folders, files): (Vec<_>, Vec<_>) = listed.into_iter().map(named).partition(|(_, n)| n.is_folder());
    let own =
        futures::stream::once(walk_whole(files, true)).filter(|picked| std::future::ready(picked.holds_anything()));
    let below = first_alone_then_at_once(
        folders.into_iter().map(|(child_path, child)| walk_folder(child_path, child)).collect(),
    );
    own.chain(below).boxed_local()
}

/// Walks nodes (named by their paths) and everything below them, level by level: every folder
/// of a level is listed at once, and every file of it is asked for at once, so thousands of files
/// take a few round trips. `in_folder`: the nodes are in a folder, where files not named like logs
/// are left out (and listed); files dropped as such are read whatever their names.
async fn walk_whole<N: Node>(nodes: Vec<(String, N)>, in_folder: bool) -> Picked {
    let mut picked = Picked { from_folder: in_folder, ..Picked::default() };
    let mut level = nodes;
    let mut top = true;
    while !level.is_empty() {
        let (folders, files): (Vec<_>, Vec<_>) = level.into_iter().partition(|(_, n)| n.is_folder());
        picked.from_folder |= !folders.is_empty();
        let mut wanted = Vec::new();
        for (path, node) in files {
            // A database's write-ahead log is read with it, its other files left out
            // (`Databases::opened`).
            if (in_folder || !top) && kept_version(&path).is_some() {
                let node = node.clone();
                let get = move || -> LocalBoxFuture<'static, Result<web_sys::File, HandleError>> {
                    let file = node.file();
                    Box::pin(async move { file.await.map(|picked| picked.file) })
                };
                picked.versions.push(LaterFile::new(path, Rc::new(get)));
            } else if (in_folder || !top) && !looks_like_a_log(&path) && !is_companion(&path) {
                picked.skipped_by_name.push(path);
            } else {
                wanted.push((path, node));
            }
        }
        let got = futures::future::join_all(wanted.iter().map(|(_, node)| node.file())).await;
        for ((path, _), file) in wanted.into_iter().zip(got) {
            match file {
                Ok(file) => picked.files.push(PickedFile { path, ..file }),
                Err(reason) => picked.unreadable.push(FileProblem { path, reason: reason.to_string() }),
            }
        }
        let listed = futures::future::join_all(folders.iter().map(|(_, folder)| folder.children())).await;
        level = Vec::new();
        for ((path, _), children) in folders.into_iter().zip(listed) {
            match children {
                Ok(children) => level.extend(children.into_iter().map(|n| (format!("{path}/{}", n.name()), n))),
                Err(reason) => picked.unreadable.push(FileProblem { path, reason: reason.to_string() }),
            }
        }
        top = false;
    }
    sort::sort_by(&mut picked.files, |a, b| a.path.cmp(&b.path));
    picked
}

/// A folder's or file's handle (the File System Access API).
#[derive(Clone)]
struct Handle(FileSystemHandle);

impl Node for Handle {
    fn name(&self) -> String {
        self.0.name()
    }

    fn is_folder(&self) -> bool {
        handles::is_folder(&self.0)
    }

    fn children(&self) -> LocalBoxFuture<'static, Result<Vec<Handle>, HandleError>> {
        let folder: FileSystemDirectoryHandle = self.0.clone().unchecked_into();
        Box::pin(async move { Ok(handles::children(&folder).await?.into_iter().map(Handle).collect()) })
    }

    fn file(&self) -> LocalBoxFuture<'static, Result<PickedFile, HandleError>> {
        let handle: FileSystemFileHandle = self.0.clone().unchecked_into();
        Box::pin(async move {
            let file = handles::file_now(&handle).await?;
            Ok(PickedFile { path: String::new(), file, handle: Some(handle), part: None })
        })
    }
}

/// A dropped folder's or file's directory entry.
#[derive(Clone)]
struct Entry(web_sys::FileSystemEntry);

impl Node for Entry {
    fn name(&self) -> String {
        self.0.name()
    }

    fn is_folder(&self) -> bool {
        self.0.is_directory()
    }

    fn children(&self) -> LocalBoxFuture<'static, Result<Vec<Entry>, HandleError>> {
        let folder: web_sys::FileSystemDirectoryEntry = self.0.clone().unchecked_into();
        Box::pin(async move { read_directory(&folder).await.map(|entries| entries.into_iter().map(Entry).collect()) })
    }

    fn file(&self) -> LocalBoxFuture<'static, Result<PickedFile, HandleError>> {
        let entry: web_sys::FileSystemFileEntry = self.0.clone().unchecked_into();
        Box::pin(async move {
            let file = entry_file(&entry).await?;
            Ok(PickedFile { path: String::new(), file, handle: None, part: None })
        })
    }
}

/// A callback API's one answer as a future: `call` is given the success and failure callbacks.
async fn answer_of(call: impl FnOnce(&js_sys::Function, &js_sys::Function)) -> Result<JsValue, HandleError> {
    // The promise's executor is an `FnMut`: `call` is handed to it through a cell, and runs once.
    let call = Rc::new(RefCell::new(Some(call)));
    let promise = js_sys::Promise::new(&mut |resolve, reject| {
        let ok = Closure::once_into_js(move |value: JsValue| {
            let _ = resolve.call1(&JsValue::NULL, &value);
        });
        let failed = Closure::once_into_js(move |error: JsValue| {
            let _ = reject.call1(&JsValue::NULL, &error);
        });
        if let Some(call) = call.borrow_mut().take() {
            call(ok.unchecked_ref(), failed.unchecked_ref());
        }
    });
    JsFuture::from(promise).await.map_err(|error| HandleError::from(&error))
}

/// All entries of a directory (`readEntries` answers them in batches until an empty one).
async fn read_directory(
    directory: &web_sys::FileSystemDirectoryEntry,
) -> Result<Vec<web_sys::FileSystemEntry>, HandleError> {
    let reader = directory.create_reader();
    let mut all = Vec::new();
    loop {
        let entries = answer_of(|ok, failed| {
            let _ = reader.read_entries_with_callback_and_callback(ok, failed);
        })
        .await?;
        let Ok(entries) = entries.dyn_into::<Array>() else { break };
        if entries.length() == 0 {
            break;
        }
        all.extend(entries.iter().map(|e| e.unchecked_into::<web_sys::FileSystemEntry>()));
    }
    Ok(all)
}

/// The `File` of a dropped file's entry.
async fn entry_file(entry: &web_sys::FileSystemFileEntry) -> Result<web_sys::File, HandleError> {
    let file = answer_of(|ok, failed| entry.file_with_callback_and_callback(ok, failed)).await?;
    file.dyn_into().map_err(|value: JsValue| HandleError::from(&value))
}

/// How files come in, with the agent databases among them made their record streams. Clones
/// share the databases read so far.
#[derive(Clone)]
pub struct Intake {
    databases: Databases,
}

impl Intake {
    pub fn new(workers: Workers) -> Intake {
        Intake { databases: Databases::new(workers) }
    }

    /// What the reader noted about the database at `path` when it last read it.
    pub fn database_note(&self, path: &str) -> Option<String> {
        self.databases.note(path)
    }

    /// Files picked with a file input ([`from_file_list`], read while the input still holds
    /// them), the agent databases among them made their record streams.
    pub async fn picked(&self, picked: Picked) -> Picked {
        self.databases.opened(picked).await
    }

    /// The files the operating system opened with the installed app (`platform::launch`), read
    /// through their handles as a pick's files are; one that cannot be read is said to be.
    pub async fn launched(&self, launched: Vec<FileSystemFileHandle>) -> Picked {
        let mut picked = Picked::default();
        for handle in launched {
            let path = handle.name();
            match handles::file_now(&handle).await {
                Ok(file) => picked.files.push(PickedFile { path, file, handle: Some(handle), part: None }),
                Err(reason) => picked.unreadable.push(FileProblem { path, reason: reason.to_string() }),
            }
        }
        self.picked(picked).await
    }

    /// The files of a drop, walking dropped folders through their directory entries, handed to
    /// `on_batch` batch by batch. A folder that holds logs (a project of `~/.claude/projects`, a
    /// day of `~/.codex/sessions`) is walked whole, with its subfolders (subagents), and is one
    /// batch, handed on as soon as it is walked, so a history is indexed while the rest of it is
    /// walked. Folders that hold no logs (`~/.claude`, `projects/`) are walked child by child, the
    /// first alone, then [`FOLDERS_WALKED_AT_ONCE`] children at a time. Answers the number of
    /// files found.
    pub async fn walk_drop(&self, dropped: Dropped, on_batch: &mut OnBatch<'_>) -> usize {
        let Dropped { folders, file_entries, mut files } = dropped;
        let mut found = 0;
        if !file_entries.is_empty() {
            let entries = file_entries.into_iter().map(Entry).map(|entry| (entry.name(), entry)).collect();
            let walked = walk_whole(entries, false).await;
            files.files.extend(walked.files);
            files.unreadable.extend(walked.unreadable);
        }
        if files.holds_anything() || folders.is_empty() {
            // Files dropped as such, beside any folders.
            found += self.hand_on(on_batch, files).await;
        }
        let mut batches = first_alone_then_at_once(
            folders.into_iter().map(Entry).map(|folder| walk_folder(folder.name(), folder)).collect(),
        );
        while let Some(batch) = batches.next().await {
            found += self.hand_on(on_batch, batch).await;
        }
        found
    }

    /// Walks a folder handle as a dropped folder is walked. Paths start with the folder's name,
    /// as a drop's do. Fails only when the folder itself cannot be listed; a subfolder or file
    /// that cannot be read is listed as a problem.
    pub async fn walk_folder(
        &self,
        folder: &FileSystemDirectoryHandle,
        on_batch: &mut OnBatch<'_>,
    ) -> Result<usize, HandleError> {
        let started = schedule::now_ms();
        let top = handles::children(folder).await?.into_iter().map(Handle).collect();
        let mut batches = walk_listed(folder.name(), top);
        let mut found = 0;
        while let Some(batch) = batches.next().await {
            found += self.hand_on(on_batch, batch).await;
        }
        web_sys::console::debug_1(
            &format!("sessionscope folder: {found} files walked in {:.0} ms", schedule::now_ms() - started).into(),
        );
        Ok(found)
    }

    /// Hands a batch on, its agent databases made their record streams; answers how many files
    /// it holds.
    async fn hand_on(&self, on_batch: &mut OnBatch<'_>, picked: Picked) -> usize {
        let found = picked.files.len();
        on_batch(self.databases.opened(picked).await).await;
        found
    }

    /// The files as they are now: a file with a handle is asked for again (it may have grown
    /// since it was walked); one that can no longer be had stays as it was, and its read reports
    /// why. A file of a dropped folder has no handle of its own: it is found from the folder's
    /// (`root`), if given. An agent database is made its record stream again.
    pub async fn fresh(&self, root: Option<&FileSystemDirectoryHandle>, files: Vec<PickedFile>) -> Vec<PickedFile> {
        let before = files.clone();
        let now = fresh_handles(root, files).await;
        self.databases.fresh(root, &before, now).await
    }
}

/// The files as they are now, by their handles.
async fn fresh_handles(root: Option<&FileSystemDirectoryHandle>, files: Vec<PickedFile>) -> Vec<PickedFile> {
    let fresh = futures::future::join_all(files.iter().map(|f| async move {
        let handle = match &f.handle {
            Some(handle) => Some(handle.clone()),
            None => handles::file_handle_at(root?, &f.path).await,
        }?;
        let file = handles::file_now(&handle).await.ok()?;
        Some((file, handle))
    }))
    .await;
    files
        .into_iter()
        .zip(fresh)
        .map(|(f, now)| match now {
            Some((file, handle)) => PickedFile { file, handle: Some(handle), part: None, ..f },
            None => f,
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
