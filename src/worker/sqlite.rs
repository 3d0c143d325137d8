//! The database role: an agent's SQLite database (OpenCode's `opencode.db`, Cursor's
//! `state.vscdb`) made its record stream ([`sessionscope_engine::import::records`]), the same bytes
//! `sessionscope records` prints. The worker reads the bytes, applies a write-ahead log given
//! beside it, imports the official sqlite-wasm build (`dist/sqlite/`, fetched then and only then:
//! `scripts/sqlite/records.mjs` is the glue), opens the bytes in memory read-only, knows the kind
//! by its tables, runs the engine's queries and makes each row a line with the engine's
//! [`record_line`], as the command line does with rusqlite.
//!
//! A database that cannot be read (not SQLite's, cut short, damaged, of another schema, too big
//! for memory) fails with its reason, in one line.

use js_sys::{Array, Reflect, Uint8Array};
use sessionscope_engine::import::records::{
    HEADER_BYTES, SqlValue, TABLES_SQL, apply_wal, describe_error, queries_for, read_header, record_line, wal_name,
};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::{Failure, Reply};
use crate::platform::errors::ReadError;
use crate::wire::limits::DATABASE_MAX_BYTES;
use crate::wire::messages::{DatabaseReply, DatabaseRequest};
use crate::wire::{FromWorker, Parcel, buffer_of};

/// Answers a request to open a database: its stream in the parcel's one buffer.
pub async fn answer(reply: &Reply, request: &DatabaseRequest, files: &[web_sys::File]) -> Result<(), Failure> {
    let Some(database) = files.first() else { return Err("no database to open".into()) };
    let stream = record_stream(&request.path, database, files.get(1), request.looked_for_wal).await?;
    let opened = Parcel::new(FromWorker::Database(DatabaseReply::Opened { notes: stream.notes }))
        .with_buffers(vec![buffer_of(&stream.bytes)]);
    reply.post(opened).map_err(|_| "its record stream could not be sent".into())
}

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
struct Stream {
    bytes: Vec<u8>,
    notes: Vec<String>,
}

/// Reads `database` (with its write-ahead log, if given) into its record stream, or says in one
/// line why it cannot. `looked_for_wal`: the database came from a folder, where a log beside it
/// would have come too.
async fn record_stream(
    path: &str,
    database: &web_sys::File,
    wal: Option<&web_sys::File>,
    looked_for_wal: bool,
) -> Result<Stream, Failure> {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let len = database.size();
    if len > DATABASE_MAX_BYTES {
        return Err(Failure(format!(
            "is {:.0} MB, more than the {:.0} MB this page opens in memory: `sessionscope records {name} > \
             {name}.jsonl` writes its record stream, which this page reads",
            len / 1e6,
            DATABASE_MAX_BYTES / 1e6
        )));
    }
    let buffer = JsFuture::from(database.array_buffer()).await.map_err(|e| ReadError::from(&e))?;
    let bytes = Uint8Array::new(&buffer);
    let head = bytes.subarray(0, HEADER_BYTES as u32).to_vec();
    let header = read_header(&head, len as u64).map_err(Failure)?;
    let mut notes = Vec::new();
    // A log is applied to a copy of the bytes; without one, SQLite copies them as they are.
    let mut applied = None;
    if let Some(wal) = wal.filter(|wal| wal.size() > 0.0) {
        let log = JsFuture::from(wal.array_buffer()).await.map_err(|e| ReadError::from(&e))?;
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
    let db = glue.open(&bytes).map_err(|e| Failure(sqlite_error(&e, "the database")))?;
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
fn read_records(glue: &Glue, db: f64) -> Result<Vec<u8>, Failure> {
    let mut tables = Vec::new();
    run(glue, db, TABLES_SQL, "sqlite_master", &mut |_, values| {
        if let Some(SqlValue::Text(name)) = values.first() {
            tables.push((*name).to_owned());
        }
    })?;
    let mut out = Vec::new();
    for query in queries_for(&tables).map_err(Failure)? {
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
fn run(glue: &Glue, db: f64, sql: &str, what: &str, row: &mut dyn FnMut(&[&str], &[SqlValue])) -> Result<(), Failure> {
    let statement = glue.prepare(db, sql).map_err(|e| Failure(sqlite_error(&e, what)))?;
    let columns: Vec<String> = glue.columns(statement).iter().map(|c| c.as_string().unwrap_or_default()).collect();
    let columns: Vec<&str> = columns.iter().map(String::as_str).collect();
    let result = loop {
        let batch = match glue.rows(db, statement, BATCH_BYTES) {
            Ok(batch) if batch.length() == 0 => break Ok(()),
            Ok(batch) => batch.to_vec(),
            Err(error) => break Err(Failure(sqlite_error(&error, what))),
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
    web_sys::console::warn_1(&format!("sessionscope: SQLite could not be loaded: {message}").into());
    format!("could not be opened: SQLite could not be loaded in {}", crate::platform::browser::name())
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
