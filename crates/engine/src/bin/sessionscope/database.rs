//! Agents' SQLite databases (OpenCode's `opencode.db`, Cursor's `state.vscdb`), turned into the
//! record stream the engine reads (`sessionscope_engine::import::records`): the engine's own
//! queries, each row made a line by the engine's own function, so the browser, which runs the
//! same queries with sqlite-wasm, reads the same lines.
//!
//! The database is opened read-only and never written. Another process writing to it holds a
//! lock: the reader waits up to [`BUSY_TIMEOUT`], then reads the file as it stands on disk
//! (`immutable`), without the rows being written. A write-ahead log beside it (`-wal`) holds rows
//! not yet in the file: read with them when SQLite can, and said either way.

use std::path::Path;
use std::time::Duration;

use rusqlite::types::ValueRef;
use rusqlite::{Connection, OpenFlags};
use sessionscope_engine::import::records::{
    HEADER_BYTES, RecordQuery, SqlValue, TABLES_SQL, describe_error, queries_for, read_header, record_line,
};

/// How long a read waits for another process's write to end.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(2);

/// The record stream of a database, and what the reader has to say about it (one line each).
pub struct Stream {
    pub bytes: Vec<u8>,
    pub notes: Vec<String>,
}

/// Reads a database into its record stream, or says in one line why it cannot.
pub fn record_stream(path: &Path) -> Result<Stream, String> {
    let mut head = Vec::with_capacity(HEADER_BYTES);
    let len = std::fs::File::open(path)
        .and_then(|file| {
            let len = file.metadata()?.len();
            std::io::Read::read_to_end(&mut std::io::Read::take(file, HEADER_BYTES as u64), &mut head)?;
            Ok(len)
        })
        .map_err(|error| format!("could not be read: {error}"))?;
    read_header(&head, len)?;
    let mut notes = Vec::new();
    let wal = wal_size(path);
    let (connection, immutable) = open(path)?;
    if immutable {
        notes.push(format!(
            "locked by another process for more than {} s: read as it stands on disk, without the rows being written",
            BUSY_TIMEOUT.as_secs()
        ));
    }
    if let Some(size) = wal {
        let read = if immutable { "were not read" } else { "were read" };
        notes.push(format!("a write-ahead log beside it holds rows not yet in the file ({size} bytes): they {read}"));
    }
    let queries = queries_for(&table_names(&connection)?)?;
    let mut bytes = Vec::new();
    for query in queries {
        run(&connection, query, &mut bytes).map_err(|error| describe(error, query.table))?;
    }
    Ok(Stream { bytes, notes })
}

/// Opens read-only, waiting for a writer; if the lock outlasts the wait, opens the file as it
/// stands (`immutable`). Says which.
fn open(path: &Path) -> Result<(Connection, bool), String> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let uri = |options: &str| format!("file:{}?{options}", uri_path(path));
    let opened = Connection::open_with_flags(uri("mode=ro"), flags).and_then(|connection| {
        connection.busy_timeout(BUSY_TIMEOUT)?;
        // The first read takes the shared lock: a writer's lock shows here.
        connection.query_row("SELECT count(*) FROM sqlite_master", [], |_| Ok(()))?;
        Ok(connection)
    });
    match opened {
        Ok(connection) => Ok((connection, false)),
        Err(error) if is_locked(&error) || is_cannot_open(&error) => {
            let connection = Connection::open_with_flags(uri("mode=ro&immutable=1"), flags)
                .map_err(|error| describe(error, "sqlite_master"))?;
            Ok((connection, true))
        }
        Err(error) => Err(describe(error, "sqlite_master")),
    }
}

fn is_locked(error: &rusqlite::Error) -> bool {
    matches!(error.sqlite_error_code(), Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked))
}

fn is_cannot_open(error: &rusqlite::Error) -> bool {
    // A database in WAL mode whose `-shm` cannot be made (a read-only folder) cannot be opened
    // read-only otherwise.
    matches!(error.sqlite_error_code(), Some(rusqlite::ErrorCode::CannotOpen))
}

/// A path in a `file:` URI: `%`, `?` and `#` escaped, so they are not read as URI syntax.
fn uri_path(path: &Path) -> String {
    let text = path.to_string_lossy();
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '%' => escaped.push_str("%25"),
            '?' => escaped.push_str("%3f"),
            '#' => escaped.push_str("%23"),
            _ => escaped.push(c),
        }
    }
    escaped
}

/// The size of a non-empty `-wal` file beside the database.
fn wal_size(path: &Path) -> Option<u64> {
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    std::fs::metadata(wal).ok().map(|m| m.len()).filter(|&size| size > 0)
}

fn table_names(connection: &Connection) -> Result<Vec<String>, String> {
    let mut statement = connection.prepare(TABLES_SQL).map_err(|error| describe(error, "sqlite_master"))?;
    let names = statement
        .query_map([], |row| row.get::<_, String>(0))
        .and_then(|rows| rows.collect::<Result<Vec<String>, _>>())
        .map_err(|error| describe(error, "sqlite_master"))?;
    Ok(names)
}

/// Runs one query, each row a line of `out`.
fn run(connection: &Connection, query: &RecordQuery, out: &mut Vec<u8>) -> rusqlite::Result<()> {
    let mut statement = connection.prepare(query.sql)?;
    let columns: Vec<String> = statement.column_names().iter().map(|c| (*c).to_owned()).collect();
    let columns: Vec<&str> = columns.iter().map(String::as_str).collect();
    let mut rows = statement.query([])?;
    while let Some(row) = rows.next()? {
        let values: Vec<SqlValue> = (0..columns.len())
            .map(|i| match row.get_ref(i) {
                Ok(ValueRef::Integer(n)) => SqlValue::Integer(n),
                Ok(ValueRef::Real(x)) => SqlValue::Real(x),
                Ok(ValueRef::Text(text)) => match std::str::from_utf8(text) {
                    Ok(text) => SqlValue::Text(text),
                    Err(_) => SqlValue::Blob(text),
                },
                Ok(ValueRef::Blob(bytes)) => SqlValue::Blob(bytes),
                Ok(ValueRef::Null) | Err(_) => SqlValue::Null,
            })
            .collect();
        out.extend_from_slice(record_line(&columns, &values, query.json_columns).as_bytes());
        out.push(b'\n');
    }
    Ok(())
}

/// One line for an SQLite error while reading `what`, in the words the browser uses too.
fn describe(error: rusqlite::Error, what: &str) -> String {
    let code = error.sqlite_error().map_or(0, |e| e.extended_code);
    describe_error(code, what, &error.to_string())
}
