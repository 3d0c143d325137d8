//! Agents' SQLite databases (OpenCode's `opencode.db`, Cursor's `state.vscdb`) where files come
//! in: each becomes its record stream ([`sessionscope_engine::import::records`]), the same bytes
//! `sessionscope records` prints, and that stream is the file from then on. Nothing after this
//! knows a database was there: the loader, the raw view, search, the history and sharing read the
//! stream as any log.
//!
//! A database is recognised where files come in (a drop, a pick, a walked folder, a file of a
//! remembered folder asked for again: [`Databases::opened`], [`Databases::fresh`]) by its first
//! bytes, then its tables; its name is only a hint ([`may_be_database_name`]), and handed to a worker of the database role (the one
//! started ahead of time, or one started for the purpose), which reads it with sqlite-wasm
//! (`worker::sqlite`). The page stays free meanwhile.
//!
//! A database that cannot be read (not SQLite's, cut short, damaged, of another schema, too big
//! for memory, a worker that stopped) is left out with its reason, in one line: the load says it,
//! the history lists it among the files not indexed. What the reader notes about a database it
//! read (a write-ahead log read, or missing) is kept by path ([`Databases::note`]) for the load
//! summary.

use std::cell::RefCell;
use std::rc::Rc;

use sessionscope_engine::history::FileProblem;
use sessionscope_engine::history_cache::FileStamp;
use sessionscope_engine::import::names::{may_be_database, may_be_database_name};
use sessionscope_engine::import::records::{SQLITE_MAGIC, database_of_companion, wal_name};

use super::handle::{Crash, StartError, WorkerError, WorkerHandle};
use super::picked::{Picked, PickedFile};
use super::workers::Workers;
use crate::platform::{files, handles, page, schedule};
use crate::wire::messages::{DatabaseReply, DatabaseRequest};
use crate::wire::{FromWorker, Parcel, ToWorker};

/// Whether a file is one SQLite keeps beside an agent database (its `-wal` write-ahead log, its
/// `-shm` or `-journal`): kept by the walks, then read with its database or left out by
/// [`Databases::opened`].
pub fn is_companion(path: &str) -> bool {
    database_of_companion(path).is_some()
}

/// Why a database was left out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OpenError {
    /// This page starts no worker (an exported file, or a page opened from disk).
    NoWorkerHere,
    /// The worker could not start.
    CannotStart(StartError),
    /// The worker could not read it: why, in its words (`could not be opened: …`, `is 2 GB, …`).
    Refused(String),
    /// The worker stopped while it read it: of what, as far as the page can tell.
    Stopped(Crash),
    /// The worker answered with no records.
    NoRecords,
    /// The record stream could not be kept as a file.
    NotKept,
}

impl std::fmt::Display for OpenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OpenError::NoWorkerHere => f.write_str(
                "could not be opened: databases are read in a worker, which this page (an exported file, or a page \
                 opened from disk) cannot start",
            ),
            OpenError::CannotStart(_) => {
                f.write_str("could not be opened: the worker that reads databases could not start")
            }
            OpenError::Refused(reason) => f.write_str(reason),
            OpenError::Stopped(crash) => write!(f, "could not be opened: the worker that reads it {crash}"),
            OpenError::NoRecords => f.write_str("could not be opened: the worker sent no records"),
            OpenError::NotKept => f.write_str("its record stream could not be kept"),
        }
    }
}

impl From<WorkerError> for OpenError {
    fn from(error: WorkerError) -> OpenError {
        match error {
            WorkerError::CannotStart(error) => OpenError::CannotStart(error),
            WorkerError::Stopped(crash) => OpenError::Stopped(crash),
            WorkerError::Failed(reason) => OpenError::Refused(reason),
            other => OpenError::Refused(format!("could not be opened: {other}")),
        }
    }
}

/// A database read before: the same file (and log) as it is now gives the same stream, without
/// a worker.
struct Opened {
    /// The database's path, size and time, and its log's.
    stamp: FileStamp,
    wal_stamp: Option<FileStamp>,
    /// The log's handle, to ask for it again when the database is (a remembered folder).
    wal_handle: Option<web_sys::FileSystemFileHandle>,
    result: Result<web_sys::File, OpenError>,
    note: Option<String>,
}

/// Databases kept read, the latest last.
const KEPT: usize = 16;

/// A worker that read more than this is stopped after its batch.
const KEEP_WORKER_UNDER_BYTES: f64 = 64.0 * 1024.0 * 1024.0;

/// The databases read so far, and the page's workers to read more. Clones share them.
#[derive(Clone)]
pub struct Databases {
    workers: Workers,
    opened: Rc<RefCell<Vec<Opened>>>,
}

/// A database to read: its file, and its write-ahead log if one came with it.
struct Wanted {
    at: usize,
    wal: Option<(web_sys::File, Option<web_sys::FileSystemFileHandle>)>,
}

impl Databases {
    pub fn new(workers: Workers) -> Databases {
        Databases { workers, opened: Rc::default() }
    }

    /// What the reader noted about the database at `path` when it last read it: a write-ahead
    /// log read, or one that was not given.
    pub fn note(&self, path: &str) -> Option<String> {
        self.opened.borrow().iter().rev().find(|o| o.stamp.path == path).and_then(|o| o.note.clone())
    }

    /// The files of a drop, a pick or a walked folder, with every agent database among them made
    /// its record stream. A database's `-wal` file beside it is read with it (and is no file of
    /// its own, nor are its `-shm` and `-journal`); one without its database is left out by name,
    /// as before. A database that cannot be read is left out, with its reason, among the files
    /// that could not be read.
    pub async fn opened(&self, mut picked: Picked) -> Picked {
        let mut companions: Vec<PickedFile> = Vec::new();
        picked.files.retain(|f| {
            if is_companion(&f.path) {
                companions.push(f.clone());
                false
            } else {
                true
            }
        });
        let mut wals = Vec::new();
        for companion in companions {
            let database =
                database_of_companion(&companion.path).map(|(database, suffix)| (database.to_owned(), suffix));
            match database {
                Some((database, "-wal")) if picked.files.iter().any(|f| f.path == database) => wals.push(companion),
                // SQLite's lock files hold no rows: part of the database all the same.
                Some((database, _)) if picked.files.iter().any(|f| f.path == database) => {}
                _ => picked.skipped_by_name.push(companion.path),
            }
        }
        // A database is known by its first bytes ([`Self::open`] reads them), its name only a hint:
        // a folder's files are looked at if named like a database, a file given by itself if
        // not named like a text log.
        let maybe = if picked.from_folder { may_be_database_name } else { may_be_database };
        let mut wanted = Vec::new();
        for (at, file) in picked.files.iter().enumerate() {
            if !maybe(&file.path) {
                continue;
            }
            let wal = wals.iter().position(|w| w.path == wal_name(&file.path));
            let wal = wal.map(|i| wals.remove(i)).map(|w| (w.file, w.handle));
            wanted.push(Wanted { at, wal });
        }
        if wanted.is_empty() {
            return picked;
        }
        let looked_for_wal = picked.from_folder;
        let mut worker = None;
        let mut failed = Vec::new();
        for Wanted { at, wal } in wanted {
            let file = &picked.files[at];
            match self.open(&mut worker, file, wal, looked_for_wal).await {
                Ok(Some(stream)) => picked.files[at].file = stream,
                Ok(None) => {}
                Err(reason) => failed.push((at, reason)),
            }
        }
        // Left out, with the reason; the last first, so the indices hold.
        for (at, reason) in failed.into_iter().rev() {
            let file = picked.files.remove(at);
            picked.unreadable.push(FileProblem { path: file.path, reason: reason.to_string() });
        }
        picked
    }

    /// Files asked for again (a remembered folder's, as they are now): each database among them
    /// made its record stream again, with its log (found in `root`, or by the handle it was found
    /// by before). A database that cannot be read now stays as it was read before.
    pub async fn fresh(
        &self,
        root: Option<&web_sys::FileSystemDirectoryHandle>,
        before: &[PickedFile],
        mut files: Vec<PickedFile>,
    ) -> Vec<PickedFile> {
        let mut worker = None;
        for (at, file) in files.iter_mut().enumerate() {
            if !may_be_database_name(&file.path) {
                continue;
            }
            let known = self
                .opened
                .borrow()
                .iter()
                .rev()
                .find(|o| o.stamp.path == file.path)
                .and_then(|o| o.wal_handle.clone());
            let handle = match (root, known) {
                (_, Some(handle)) => Some(handle),
                (Some(root), None) => handles::file_handle_at(root, &wal_name(&file.path)).await,
                (None, None) => None,
            };
            let wal = match handle {
                Some(handle) => handles::file_now(&handle).await.ok().map(|wal| (wal, Some(handle))),
                None => None,
            };
            match self.open(&mut worker, file, wal, true).await {
                Ok(Some(stream)) => file.file = stream,
                Ok(None) => {}
                Err(_) => {
                    if let Some(was) = before.get(at) {
                        file.file = was.file.clone();
                    }
                }
            }
        }
        files
    }

    /// One database made its record stream: `Ok(None)` when the file is none (not SQLite's first
    /// bytes: it is read as what it is); a stream already made for the same bytes is taken again.
    async fn open(
        &self,
        worker: &mut Option<DatabaseWorker>,
        picked: &PickedFile,
        wal: Option<(web_sys::File, Option<web_sys::FileSystemFileHandle>)>,
        looked_for_wal: bool,
    ) -> Result<Option<web_sys::File>, OpenError> {
        let file = &picked.file;
        let head = files::first_bytes(file, SQLITE_MAGIC.len() as f64).await;
        if head.as_deref() != Some(SQLITE_MAGIC.as_slice()) {
            return Ok(None);
        }
        let stamp = files::stamp_of(&picked.path, file);
        let wal_stamp = wal.as_ref().map(|(w, _)| files::stamp_of(&wal_name(&picked.path), w));
        let same = |o: &Opened| o.stamp == stamp && o.wal_stamp == wal_stamp;
        if let Some(result) = self.opened.borrow().iter().find(|o| same(o)).map(|o| o.result.clone()) {
            return result.map(Some);
        }
        let started = schedule::now_ms();
        if worker.is_none() {
            *worker = Some(self.start_worker()?);
        }
        let Some(running) = worker.as_mut() else { return Err(OpenError::NoWorkerHere) };
        running.bytes += file.size();
        let (wal_file, wal_handle) = match wal {
            Some((file, handle)) => (Some(file), handle),
            None => (None, None),
        };
        let request = ToWorker::Database(DatabaseRequest { path: picked.path.clone(), looked_for_wal });
        let request = Parcel::new(request).with_files(std::iter::once(file.clone()).chain(wal_file.clone()).collect());
        let (result, note) = match running.handle.ask(request).await {
            Ok(Parcel { message: FromWorker::Database(DatabaseReply::Opened { notes }), buffers, .. }) => {
                match buffers.into_iter().next() {
                    Some(stream) => {
                        let modified = wal_file
                            .as_ref()
                            .map_or(file.last_modified(), |w| w.last_modified().max(file.last_modified()));
                        let note = (!notes.is_empty()).then(|| notes.join("; "));
                        let kept = files::file_of_buffer(&file.name(), &stream, modified).ok_or(OpenError::NotKept);
                        (kept, note)
                    }
                    None => (Err(OpenError::NoRecords), None),
                }
            }
            Ok(_) => (Err(OpenError::NoRecords), None),
            Err(error) => (Err(OpenError::from(error)), None),
        };
        web_sys::console::debug_1(
            &format!(
                "sessionscope database: {} ({:.0} bytes) read in {:.0} ms: {}",
                picked.path,
                file.size(),
                schedule::now_ms() - started,
                match &result {
                    Ok(stream) => format!("{:.0} bytes of records", stream.size()),
                    Err(reason) => reason.to_string(),
                }
            )
            .into(),
        );
        let mut opened = self.opened.borrow_mut();
        opened.retain(|o| o.stamp.path != picked.path);
        if opened.len() >= KEPT {
            opened.remove(0);
        }
        opened.push(Opened { stamp, wal_stamp, wal_handle, result: result.clone(), note });
        result.map(Some)
    }

    /// Takes the worker started ahead of time, or starts one.
    fn start_worker(&self) -> Result<DatabaseWorker, OpenError> {
        if page::standalone() {
            return Err(OpenError::NoWorkerHere);
        }
        let handle = self.workers.take_or_spawn().map_err(OpenError::CannotStart)?;
        Ok(DatabaseWorker { handle, bytes: 0.0, workers: self.workers.clone() })
    }
}

/// The worker that opens the databases of one batch: the one started ahead of time (its code
/// compiled, warm), or one started for the purpose. Once the batch is done it is the one started
/// ahead of time again, for the load that follows (unless another is, or the databases were big:
/// SQLite's memory stays with it); else it stops.
struct DatabaseWorker {
    handle: WorkerHandle,
    /// Bytes of databases it read.
    bytes: f64,
    workers: Workers,
}

impl Drop for DatabaseWorker {
    fn drop(&mut self) {
        if self.bytes >= KEEP_WORKER_UNDER_BYTES || !self.workers.give_back(&self.handle) {
            self.handle.stop();
        }
    }
}
