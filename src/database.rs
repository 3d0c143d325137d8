//! Agents' SQLite databases (OpenCode's `opencode.db`, Cursor's `state.vscdb`) opened in the
//! browser: each becomes its record stream ([`sessionscope_engine::import::records`]), the same
//! bytes `sessionscope records` prints, and that stream is the file from then on. Nothing after
//! this knows a database was there: the loader, the raw view, search, the history and sharing
//! read the stream as any log.
//!
//! Where: a database is recognised where files come in (a drop, a pick, a walked folder, a file
//! of a remembered folder asked for again: [`opened`], [`fresh`]) by its name
//! ([`is_database_name`]) and first bytes. The page hands it to a worker (the loading worker
//! started ahead of time, or one of the same program, `src/bin/worker.rs`), which reads
//! the bytes, applies a write-ahead log given beside it, imports the official sqlite-wasm build
//! (`dist/sqlite/`, fetched then and only then: `scripts/sqlite/records.mjs` is the glue), opens the
//! bytes in memory read-only, knows the kind by its tables, runs the engine's queries and makes
//! each row a line with the engine's [`record_line`], as the command line does with rusqlite.
//! The page stays free meanwhile.
//!
//! A database that cannot be read (not SQLite's, cut short, damaged, of another schema, too big
//! for memory, a worker that stopped) is left out with its reason, in one line: the load says
//! it, the history lists it among the files not indexed. What the reader notes about a database it
//! read (a write-ahead log read, or missing) is kept by path ([`note`]) for the load summary.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Array, Reflect, Uint8Array};
use sessionscope_engine::history_cache::FileStamp;
use sessionscope_engine::import::names::is_database_name;
use sessionscope_engine::import::records::{
    HEADER_BYTES, SQLITE_MAGIC, SqlValue, TABLES_SQL, apply_wal, database_of_companion, describe_error, queries_for,
    read_header, record_line,
};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use crate::files::{Picked, PickedFile};
use crate::protocol::{self, Envelope, FromWorker, ToWorker, buffer_of};

/// Databases up to this size are opened (their bytes are held in memory, once by SQLite).
pub const MAX_BYTES: f64 = 1024.0 * 1024.0 * 1024.0;

/// The write-ahead log's name beside a database: `opencode.db-wal`.
pub fn wal_name(database: &str) -> String {
    format!("{database}-wal")
}

/// Whether a file is one SQLite keeps beside an agent database (its `-wal` write-ahead log, its
/// `-shm` or `-journal`): kept by the walks, then read with its database or left out by
/// [`opened`].
pub fn is_companion(path: &str) -> bool {
    database_of_companion(path).is_some()
}

// ---------------------------------------------------------------------------------------------
// The page's side: databases among the files that come in become their record streams.

/// A database read before: the same file (and log) as it is now gives the same stream, without
/// a worker.
struct Opened {
    /// The database's path, size and time (`files::stamp_of`), and its log's.
    stamp: FileStamp,
    wal_stamp: Option<FileStamp>,
    /// The log's handle, to ask for it again when the database is (a remembered folder).
    wal_handle: Option<web_sys::FileSystemFileHandle>,
    result: Result<web_sys::File, String>,
    note: Option<String>,
}

/// Databases kept read, the latest last.
const KEPT: usize = 16;

thread_local! {
    static OPENED: RefCell<Vec<Opened>> = const { RefCell::new(Vec::new()) };
}

/// What the reader noted about the database at `path` when it last read it: a write-ahead log
/// read, or one that was not given.
pub fn note(path: &str) -> Option<String> {
    OPENED.with(|opened| opened.borrow().iter().rev().find(|o| o.stamp.path == path).and_then(|o| o.note.clone()))
}

/// A database to read: its file, and its write-ahead log if one came with it.
struct Wanted {
    at: usize,
    wal: Option<(web_sys::File, Option<web_sys::FileSystemFileHandle>)>,
}

/// The files of a drop, a pick or a walked folder, with every agent database among them made its
/// record stream. A database's `-wal` file beside it is read with it (and is no file of its own,
/// nor are its `-shm` and `-journal`); one without its database is left out by name, as before.
/// A database that cannot be read is left out, with its reason, among the files that could not
/// be read.
pub async fn opened(mut picked: Picked) -> Picked {
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
        let database = database_of_companion(&companion.path).map(|(database, suffix)| (database.to_owned(), suffix));
        match database {
            Some((database, "-wal")) if picked.files.iter().any(|f| f.path == database) => wals.push(companion),
            // SQLite's lock files hold no rows: part of the database all the same.
            Some((database, _)) if picked.files.iter().any(|f| f.path == database) => {}
            _ => picked.skipped_by_name.push(companion.path),
        }
    }
    let mut wanted = Vec::new();
    for (at, file) in picked.files.iter().enumerate() {
        if !is_database_name(&file.path) {
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
        match open(&mut worker, file, wal, looked_for_wal).await {
            Ok(Some(stream)) => picked.files[at].file = stream,
            Ok(None) => {}
            Err(reason) => failed.push((at, reason)),
        }
    }
    // Left out, with the reason; the last first, so the indices hold.
    for (at, reason) in failed.into_iter().rev() {
        let file = picked.files.remove(at);
        picked.unreadable.push((file.path, reason));
    }
    picked
}

/// Files asked for again (a remembered folder's, as they are now): each database among them made
/// its record stream again, with its log (found in `root`, or by the handle it was found by
/// before). A database that cannot be read now stays as it was read before.
pub async fn fresh(
    root: Option<&web_sys::FileSystemDirectoryHandle>,
    before: &[PickedFile],
    mut files: Vec<PickedFile>,
) -> Vec<PickedFile> {
    let mut worker = None;
    for (at, file) in files.iter_mut().enumerate() {
        if !is_database_name(&file.path) {
            continue;
        }
        let known = OPENED.with(|opened| {
            opened.borrow().iter().rev().find(|o| o.stamp.path == file.path).and_then(|o| o.wal_handle.clone())
        });
        let handle = match (root, known) {
            (_, Some(handle)) => Some(handle),
            (Some(root), None) => crate::folders::file_handle_at(root, &wal_name(&file.path)).await,
            (None, None) => None,
        };
        let wal = match handle {
            Some(handle) => crate::folders::file_now(&handle).await.ok().map(|wal| (wal, Some(handle))),
            None => None,
        };
        match open(&mut worker, file, wal, true).await {
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

/// The worker that opens the databases of one batch: the loading worker started ahead of time
/// (its code compiled, warm), or one started for the purpose. Once the batch is done it is the
/// one started ahead of time again, for the load that follows (unless another is, or the
/// databases were big: SQLite's memory stays with it); else it stops.
struct DatabaseWorker {
    worker: web_sys::Worker,
    /// Bytes of databases it read.
    bytes: f64,
}

/// A worker that read more than this is stopped after its batch.
const KEEP_WORKER_UNDER_BYTES: f64 = 64.0 * 1024.0 * 1024.0;

impl Drop for DatabaseWorker {
    fn drop(&mut self) {
        self.worker.set_onmessage(None);
        self.worker.set_onerror(None);
        if self.bytes >= KEEP_WORKER_UNDER_BYTES || !crate::files::give_back_spare(&self.worker) {
            self.worker.terminate();
        }
    }
}

/// One database made its record stream: `Ok(None)` when the file is none (not SQLite's first
/// bytes: it is read as what it is), a stream already made for the same bytes is taken again.
async fn open(
    worker: &mut Option<DatabaseWorker>,
    picked: &PickedFile,
    wal: Option<(web_sys::File, Option<web_sys::FileSystemFileHandle>)>,
    looked_for_wal: bool,
) -> Result<Option<web_sys::File>, String> {
    let file = &picked.file;
    let head = crate::files::first_bytes(file, SQLITE_MAGIC.len() as f64).await;
    if head.as_deref() != Some(SQLITE_MAGIC.as_slice()) {
        return Ok(None);
    }
    let stamp = crate::files::stamp_of(&picked.path, file);
    let wal_stamp = wal.as_ref().map(|(w, _)| crate::files::stamp_of(&wal_name(&picked.path), w));
    let same = |o: &Opened| o.stamp == stamp && o.wal_stamp == wal_stamp;
    if let Some(result) = OPENED.with(|opened| opened.borrow().iter().find(|o| same(o)).map(|o| o.result.clone())) {
        return result.map(Some);
    }
    let started = crate::files::now_ms();
    if worker.is_none() {
        *worker = Some(start_worker().await?);
        web_sys::console::debug_1(
            &format!("sessionscope database: worker ready in {:.0} ms", crate::files::now_ms() - started).into(),
        );
    }
    let Some(running) = worker.as_mut() else { return Err("no worker".to_owned()) };
    running.bytes += file.size();
    let (wal_file, wal_handle) = match wal {
        Some((file, handle)) => (Some(file), handle),
        None => (None, None),
    };
    let request = Envelope::new(ToWorker::OpenDatabase { path: picked.path.clone(), looked_for_wal })
        .with_files(std::iter::once(file.clone()).chain(wal_file.clone()).collect());
    let answer = ask(&running.worker, &request).await;
    let (result, note) = match answer {
        Ok((stream, notes)) => {
            let modified =
                wal_file.as_ref().map_or(file.last_modified(), |w| w.last_modified().max(file.last_modified()));
            let note = (!notes.is_empty()).then(|| notes.join("; "));
            (stream_file(&stream, &file.name(), modified), note)
        }
        Err(reason) => (Err(reason), None),
    };
    web_sys::console::debug_1(
        &format!(
            "sessionscope database: {} ({:.0} bytes) read in {:.0} ms: {}",
            picked.path,
            file.size(),
            crate::files::now_ms() - started,
            match &result {
                Ok(stream) => format!("{:.0} bytes of records", stream.size()),
                Err(reason) => reason.clone(),
            }
        )
        .into(),
    );
    OPENED.with(|opened| {
        let mut opened = opened.borrow_mut();
        opened.retain(|o| o.stamp.path != picked.path);
        if opened.len() >= KEPT {
            opened.remove(0);
        }
        let result = result.clone();
        opened.push(Opened { stamp, wal_stamp, wal_handle, result, note });
    });
    result.map(Some)
}

/// The stream as a file named as the database, with its time.
fn stream_file(stream: &js_sys::ArrayBuffer, name: &str, modified: f64) -> Result<web_sys::File, String> {
    let parts = Array::of1(stream);
    let options = web_sys::FilePropertyBag::new();
    options.set_last_modified(modified);
    web_sys::File::new_with_buffer_source_sequence_and_options(&parts, name, &options)
        .map_err(|_| "its record stream could not be kept".to_owned())
}

/// Takes the worker started ahead of time, or starts one, and waits until it listens.
async fn start_worker() -> Result<DatabaseWorker, String> {
    if crate::files::standalone() {
        return Err("could not be opened: databases are read in a worker, which this page (an exported file, or a \
                    page opened from disk) cannot start"
            .to_owned());
    }
    let (worker, ready) = match crate::files::take_spare() {
        Some(spare) => spare,
        None => {
            let worker = crate::files::spawn_worker()
                .map_err(|_| "could not be opened: the worker that reads databases could not start".to_owned())?;
            (worker, false)
        }
    };
    let worker = DatabaseWorker { worker, bytes: 0.0 };
    if !ready {
        reply(&worker.worker, None).await?;
    }
    Ok(worker)
}

/// Posts a request to open a database and waits for the stream, or the reason there is none.
async fn ask(
    worker: &web_sys::Worker,
    request: &Envelope<ToWorker>,
) -> Result<(js_sys::ArrayBuffer, Vec<String>), String> {
    let encoded = request.encode()?;
    reply(worker, Some(encoded)).await.and_then(|reply| match reply.message {
        FromWorker::Database { notes } => match reply.buffers.into_iter().next() {
            Some(stream) => Ok((stream, notes)),
            None => Err("could not be opened: the worker sent no records".to_owned()),
        },
        FromWorker::Error { message } => Err(message),
        _ => Err("could not be opened: the worker answered something else".to_owned()),
    })
}

/// A worker's answer, or why there is none.
type Reply = Result<Envelope<FromWorker>, String>;

/// Posts `request` (if any) and waits for the worker's next message: with no request, its
/// [`FromWorker::Ready`]; with one, the answer. A worker that stops is an error.
async fn reply(worker: &web_sys::Worker, request: Option<protocol::Encoded>) -> Result<Envelope<FromWorker>, String> {
    let slot: Rc<RefCell<Option<Reply>>> = Rc::new(RefCell::new(None));
    let waiting = request.is_some();
    let mut handlers = None;
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let on_message = {
            let slot = slot.clone();
            let resolve = resolve.clone();
            Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |event: web_sys::MessageEvent| {
                let Ok(envelope) = Envelope::<FromWorker>::decode(event.data()) else { return };
                let ready = matches!(envelope.message, FromWorker::Ready);
                if ready == waiting {
                    // A Ready while an answer is awaited, or an answer while Ready is: not this one's.
                    return;
                }
                *slot.borrow_mut() = Some(Ok(envelope));
                let _ = resolve.call0(&JsValue::NULL);
            })
        };
        let on_error = {
            let slot = slot.clone();
            let resolve = resolve.clone();
            Closure::<dyn FnMut(web_sys::ErrorEvent)>::new(move |event: web_sys::ErrorEvent| {
                event.prevent_default();
                *slot.borrow_mut() =
                    Some(Err(format!("could not be opened: the worker that reads it stopped ({})", event.message())));
                let _ = resolve.call0(&JsValue::NULL);
            })
        };
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        handlers = Some((on_message, on_error));
    });
    if let Some(request) = &request {
        request.post_to(worker)?;
    }
    let _ = JsFuture::from(promise).await;
    worker.set_onmessage(None);
    worker.set_onerror(None);
    drop(handlers);
    slot.borrow_mut().take().unwrap_or_else(|| Err("could not be opened: the worker gave no answer".to_owned()))
}

// ---------------------------------------------------------------------------------------------
// The worker's side: a database's bytes → sqlite-wasm → the engine's record lines.

#[wasm_bindgen]
extern "C" {
    /// The glue of `scripts/sqlite/records.mjs`, once sqlite-wasm is loaded.
    type Glue;

    /// Imports the glue (`scripts/worker_loader.js` defines it: a classic worker imports a module
    /// only so), and loads sqlite-wasm.
    #[wasm_bindgen(catch, js_name = sessionscopeSqlite)]
    fn load_glue() -> Result<js_sys::Promise, JsValue>;

    #[wasm_bindgen(method, catch)]
    fn open(this: &Glue, bytes: &Uint8Array) -> Result<f64, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn prepare(this: &Glue, db: f64, sql: &str) -> Result<f64, JsValue>;
    #[wasm_bindgen(method)]
    fn columns(this: &Glue, statement: f64) -> Array;
    #[wasm_bindgen(method, catch)]
    fn rows(this: &Glue, db: f64, statement: f64, bytes: f64) -> Result<Uint8Array, JsValue>;
    #[wasm_bindgen(method)]
    fn finalize(this: &Glue, statement: f64);
    #[wasm_bindgen(method)]
    fn close(this: &Glue, db: f64);
}

/// A database's record stream, and what the reader notes about it.
pub struct Stream {
    pub bytes: Vec<u8>,
    pub notes: Vec<String>,
}

/// Reads `database` (with its write-ahead log, if given) into its record stream, or says in one
/// line why it cannot. `looked_for_wal`: the database came from a folder, where a log beside it
/// would have come too.
pub async fn record_stream(
    path: &str,
    database: &web_sys::File,
    wal: Option<&web_sys::File>,
    looked_for_wal: bool,
) -> Result<Stream, String> {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let len = database.size();
    if len > MAX_BYTES {
        return Err(format!(
            "is {:.0} MB, more than the {:.0} MB this page opens in memory: `sessionscope records {name} > \
             {name}.jsonl` writes its record stream, which this page reads",
            len / 1e6,
            MAX_BYTES / 1e6
        ));
    }
    let buffer = JsFuture::from(database.array_buffer()).await.map_err(|e| crate::worker::read_error(&e))?;
    let bytes = Uint8Array::new(&buffer);
    let head = bytes.subarray(0, HEADER_BYTES as u32).to_vec();
    let header = read_header(&head, len as u64)?;
    let mut notes = Vec::new();
    // A log is applied to a copy of the bytes; without one, SQLite copies them as they are.
    let mut applied = None;
    if let Some(wal) = wal.filter(|wal| wal.size() > 0.0) {
        let log = JsFuture::from(wal.array_buffer()).await.map_err(|e| crate::worker::read_error(&e))?;
        let log = Uint8Array::new(&log).to_vec();
        let mut copy = bytes.to_vec();
        match apply_wal(&mut copy, &log) {
            Ok(_) => {
                notes.push(format!(
                    "a write-ahead log beside it holds rows not yet in the file ({} bytes): they were read",
                    log.len()
                ));
                applied = Some(copy);
            }
            Err(reason) => notes.push(format!(
                "{reason}: the rows written since its last checkpoint were not read ({} bytes of log)",
                log.len()
            )),
        }
    } else if header.wal && !looked_for_wal {
        notes.push(format!(
            "is in write-ahead-log mode and came without its log ({}): rows written since its last checkpoint, if \
             there are any, were not read (drop or pick the two together, or their folder)",
            wal_name(name)
        ));
    }
    let bytes = match applied {
        Some(copy) => Uint8Array::from(copy.as_slice()),
        None => bytes,
    };
    // In memory there is no log: the database is read as one in rollback mode.
    if header.wal {
        bytes.set_index(18, 1);
        bytes.set_index(19, 1);
    }
    let started = js_sys::Date::now();
    let glue: Glue = JsFuture::from(load_glue().map_err(|e| sqlite_missing(&e))?)
        .await
        .map_err(|e| sqlite_missing(&e))?
        .unchecked_into();
    let loaded = js_sys::Date::now();
    let db = glue.open(&bytes).map_err(|e| sqlite_error(&e, "the database"))?;
    drop(bytes);
    let result = read_records(&glue, db);
    glue.close(db);
    web_sys::console::debug_1(
        &format!(
            "sessionscope database: SQLite ready in {:.0} ms, records read in {:.0} ms",
            loaded - started,
            js_sys::Date::now() - loaded
        )
        .into(),
    );
    result.map(|bytes| Stream { bytes, notes })
}

/// The rows of the kind's queries as record lines.
fn read_records(glue: &Glue, db: f64) -> Result<Vec<u8>, String> {
    let mut tables = Vec::new();
    run(glue, db, TABLES_SQL, "sqlite_master", &mut |_, values| {
        if let Some(SqlValue::Text(name)) = values.first() {
            tables.push((*name).to_owned());
        }
    })?;
    let mut out = Vec::new();
    for query in queries_for(&tables)? {
        run(glue, db, query.sql, query.table, &mut |columns, values| {
            out.extend_from_slice(record_line(columns, values, query.json_columns).as_bytes());
            out.push(b'\n');
        })?;
    }
    Ok(out)
}

/// Bytes of rows the glue hands over at a time.
const BATCH_BYTES: f64 = (4 << 20) as f64;

/// Runs one query, each row handed to `row` with the columns' names.
fn run(glue: &Glue, db: f64, sql: &str, what: &str, row: &mut dyn FnMut(&[&str], &[SqlValue])) -> Result<(), String> {
    let statement = glue.prepare(db, sql).map_err(|e| sqlite_error(&e, what))?;
    let columns: Vec<String> = glue.columns(statement).iter().map(|c| c.as_string().unwrap_or_default()).collect();
    let columns: Vec<&str> = columns.iter().map(String::as_str).collect();
    let result = loop {
        let batch = match glue.rows(db, statement, BATCH_BYTES) {
            Ok(batch) if batch.length() == 0 => break Ok(()),
            Ok(batch) => batch.to_vec(),
            Err(error) => break Err(sqlite_error(&error, what)),
        };
        let mut rest = batch.as_slice();
        let mut values = Vec::with_capacity(columns.len());
        while !rest.is_empty() {
            values.clear();
            for _ in 0..columns.len().max(1) {
                match next_value(rest) {
                    Some((value, after)) => {
                        values.push(value);
                        rest = after;
                    }
                    None => {
                        rest = &[];
                        break;
                    }
                }
            }
            if values.len() == columns.len() {
                row(&columns, &values);
            }
        }
    };
    glue.finalize(statement);
    result
}

/// The first value of a batch (see `scripts/sqlite/records.mjs`), and the bytes after it; `None`
/// for bytes that are no value. As rusqlite gives it: text that is not UTF-8 is a BLOB, which
/// `record_line` reads as text.
fn next_value(bytes: &[u8]) -> Option<(SqlValue<'_>, &[u8])> {
    let (&tag, rest) = bytes.split_first()?;
    let eight = |rest: &[u8]| rest.get(..8).and_then(|b| <[u8; 8]>::try_from(b).ok());
    match tag {
        0 => Some((SqlValue::Null, rest)),
        1 => Some((SqlValue::Integer(i64::from_le_bytes(eight(rest)?)), &rest[8..])),
        2 => Some((SqlValue::Real(f64::from_le_bytes(eight(rest)?)), &rest[8..])),
        3 => {
            let length = u32::from_le_bytes(rest.get(..4).and_then(|b| <[u8; 4]>::try_from(b).ok())?) as usize;
            let bytes = rest.get(4..4 + length)?;
            let value = match std::str::from_utf8(bytes) {
                Ok(text) => SqlValue::Text(text),
                Err(_) => SqlValue::Blob(bytes),
            };
            Some((value, &rest[4 + length..]))
        }
        _ => None,
    }
}

/// One line for an error the glue threw (`{ code, message }`), in the command line's words.
fn sqlite_error(error: &JsValue, what: &str) -> String {
    let code = Reflect::get(error, &"code".into()).ok().and_then(|c| c.as_f64()).unwrap_or(0.0) as i32;
    let message = Reflect::get(error, &"message".into()).ok().and_then(|m| m.as_string());
    let detail = message.or_else(|| error.as_string()).unwrap_or_else(|| "an unknown error".to_owned());
    describe_error(code, what, &detail)
}

/// SQLite itself could not be loaded (the site lacks `sqlite/`, or the browser refused it).
fn sqlite_missing(error: &JsValue) -> String {
    let message = Reflect::get(error, &"message".into()).ok().and_then(|m| m.as_string()).unwrap_or_default();
    format!("could not be opened: SQLite could not be loaded in this browser ({message})")
}

/// Answers a worker's request to open a database: its stream in the envelope's one buffer.
pub async fn answer(
    scope: &web_sys::DedicatedWorkerGlobalScope,
    path: &str,
    files: &[web_sys::File],
    looked_for_wal: bool,
) -> Result<(), String> {
    let Some(database) = files.first() else { return Err("no database to open".to_owned()) };
    let stream = record_stream(path, database, files.get(1), looked_for_wal).await?;
    let reply =
        Envelope::new(FromWorker::Database { notes: stream.notes }).with_buffers(vec![buffer_of(&stream.bytes)]);
    protocol::post(scope, &reply).map_err(|_| "its record stream could not be sent".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A batch as the glue writes it reads back value by value; bytes that are no value end it.
    #[test]
    fn a_batch_of_rows_reads_back_its_values() {
        let mut batch = vec![0u8];
        batch.push(1);
        batch.extend_from_slice(&(-1_750_000_000_000_i64).to_le_bytes());
        batch.push(2);
        batch.extend_from_slice(&0.0168_f64.to_le_bytes());
        for bytes in [&b"{\"role\":\"user\"}"[..], &[0xff, b'a'][..], &[][..]] {
            batch.push(3);
            batch.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
            batch.extend_from_slice(bytes);
        }
        let mut values = Vec::new();
        let mut rest = batch.as_slice();
        while let Some((value, after)) = next_value(rest) {
            values.push(value);
            rest = after;
        }
        assert_eq!(
            values,
            [
                SqlValue::Null,
                SqlValue::Integer(-1_750_000_000_000),
                SqlValue::Real(0.0168),
                SqlValue::Text("{\"role\":\"user\"}"),
                SqlValue::Blob(&[0xff, b'a']),
                SqlValue::Text(""),
            ]
        );
        assert!(rest.is_empty());
        // Cut anywhere, or a tag that is none: no value, never a panic.
        for cut in 0..batch.len() {
            let mut rest = &batch[..cut];
            while let Some((_, after)) = next_value(rest) {
                rest = after;
            }
        }
        assert!(next_value(&[9, 1, 2]).is_none());
        assert!(next_value(&[3, 255, 255, 255, 255, 0]).is_none());
    }
}
