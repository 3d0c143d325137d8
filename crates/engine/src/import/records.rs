//! The record stream of an agent's SQLite database: one JSON line per row, so a database is read
//! as any other log, line by line, without SQLite in the engine.
//!
//! Whoever opens the database (the command line with `rusqlite`, the browser with
//! `@sqlite.org/sqlite-wasm`) runs the queries of [`OPENCODE_QUERIES`] or [`CURSOR_QUERIES`], one
//! after the other, and turns each row into a line with [`record_line`]: an object with the row's
//! columns as keys (NULL columns left out), the first being `"table"`. The columns named in
//! [`RecordQuery::json_columns`] hold JSON text (or a BLOB of it): a value that parses as JSON is
//! put in as it is, anything else as a string, which the importer then reports. Every line is a
//! record of the source, numbered like the lines of a file; a bad row is a diagnostic at its
//! number, and nothing else is lost.
//!
//! The lines, as the importers read them:
//!
//! - OpenCode (`opencode.db`): `{"table":"session","id","project_id","parent_id","slug",
//!   "directory","title","version","time_created","time_updated",...}` for every session (all of
//!   its columns), then `{"table":"message","id","session_id","time_created","data":{...}}` for
//!   every message in time order, each followed by its parts
//!   `{"table":"part","id","session_id","message_id","data":{...}}` in id order.
//! - Cursor (`state.vscdb`): `{"table":"cursorDiskKV","key":"composerData:<composer id>",
//!   "value":{...}}` for every chat, then `{"table":"cursorDiskKV","key":"bubbleId:<composer
//!   id>:<bubble id>","value":{...}}` for every message, in key order (so a chat's bubbles come
//!   together; their order in the chat is the chat's `fullConversationHeadersOnly`).

use crate::span::Span;

/// One query of a database kind, and which of its columns hold JSON.
#[derive(Clone, Copy, Debug)]
pub struct RecordQuery {
    /// The table the query reads, for messages.
    pub table: &'static str,
    pub sql: &'static str,
    /// Columns whose text (or BLOB) is JSON, embedded as it is in the record line.
    pub json_columns: &'static [&'static str],
}

/// The tables an OpenCode database has: a database without them is not OpenCode's.
pub const OPENCODE_TABLES: [&str; 3] = ["session", "message", "part"];

/// The table a Cursor database has: a database without it is not Cursor's.
pub const CURSOR_TABLES: [&str; 1] = ["cursorDiskKV"];

/// OpenCode's sessions (every column, so older and newer schemas both read), then its messages
/// in time order, each followed by its parts. A part whose message row is missing still comes
/// (first, its time unknown), so every row of the two tables is a line.
pub const OPENCODE_QUERIES: [RecordQuery; 2] = [
    RecordQuery {
        table: "session",
        sql: "SELECT 'session' AS \"table\", * FROM session ORDER BY time_created, id",
        json_columns: &["summary_diffs", "revert", "permission", "model", "goal"],
    },
    RecordQuery {
        table: "message, part",
        sql: "SELECT record_table AS \"table\", id, session_id, message_id, time_created, data FROM (\
              SELECT 'message' AS record_table, m.id AS id, m.session_id AS session_id, NULL AS message_id, \
              m.time_created AS time_created, m.data AS data, m.time_created AS sort_time, m.id AS sort_message, \
              0 AS sort_rank FROM message AS m \
              UNION ALL \
              SELECT 'part', p.id, p.session_id, p.message_id, NULL, p.data, m.time_created, p.message_id, 1 \
              FROM part AS p LEFT JOIN message AS m ON m.id = p.message_id\
              ) ORDER BY sort_time, sort_message, sort_rank, id",
        json_columns: &["data"],
    },
];

/// Cursor's chats (`composerData:`), then their messages (`bubbleId:`), in key order. Other keys
/// of the table (checkpoints, diffs, caches) hold no conversation and are not read.
pub const CURSOR_QUERIES: [RecordQuery; 1] = [RecordQuery {
    table: "cursorDiskKV",
    sql: "SELECT 'cursorDiskKV' AS \"table\", key, value FROM cursorDiskKV \
          WHERE key LIKE 'composerData:%' OR key LIKE 'bubbleId:%' \
          ORDER BY CASE WHEN key LIKE 'composerData:%' THEN 0 ELSE 1 END, key",
    json_columns: &["value"],
}];

/// The first 16 bytes of every SQLite database.
pub const SQLITE_MAGIC: &[u8; 16] = b"SQLite format 3\0";

/// The bytes of an SQLite database's header, read before it is opened ([`read_header`]).
pub const HEADER_BYTES: usize = 100;

/// The query that lists a database's tables, by which its kind is known ([`queries_for`]).
pub const TABLES_SQL: &str = "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name";

/// What a database's header says, read before SQLite opens it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    pub page_size: u32,
    /// The database is in write-ahead-log mode: rows written since its last checkpoint are in
    /// the `-wal` file beside it, not in the database file.
    pub wal: bool,
}

/// Reads the header of a database file of `len` bytes (`head`: its first [`HEADER_BYTES`], or
/// all of it if it is shorter), or says in one line why it is no database SQLite can read: not
/// SQLite's, or cut short (a file copied while it was written, a download that stopped), which
/// SQLite would only call malformed.
pub fn read_header(head: &[u8], len: u64) -> Result<Header, String> {
    if head.len() < SQLITE_MAGIC.len() || &head[..SQLITE_MAGIC.len()] != SQLITE_MAGIC {
        return Err("is not an SQLite database (named like one, but its first bytes are not SQLite's)".to_owned());
    }
    let cut_short = |expected: u64| {
        format!(
            "is cut short (half-written, or copied while it was being written): its header gives it {expected} \
             bytes, the file holds {len}"
        )
    };
    if head.len() < HEADER_BYTES || len < HEADER_BYTES as u64 {
        return Err(cut_short(HEADER_BYTES as u64));
    }
    let be16 = |at: usize| u16::from_be_bytes([head[at], head[at + 1]]);
    let be32 = |at: usize| u32::from_be_bytes([head[at], head[at + 1], head[at + 2], head[at + 3]]);
    let page_size = match be16(16) {
        1 => 65_536,
        size if (512..=32_768).contains(&size) && size.is_power_of_two() => u32::from(size),
        size => {
            return Err(format!("is damaged: its header gives a page size of {size} bytes, which SQLite never writes"));
        }
    };
    // The page count is to be trusted when the change counter matches the version it was
    // written by (SQLite 3.7.0 and later always write it so).
    let pages = be32(28);
    if pages > 0 && be32(24) == be32(92) {
        let expected = u64::from(pages) * u64::from(page_size);
        if len < expected {
            return Err(cut_short(expected));
        }
    }
    Ok(Header { page_size, wal: head[18] == 2 || head[19] == 2 })
}

/// Applies a write-ahead log (the `-wal` file beside a database in WAL mode) to the database's
/// bytes, as SQLite does when it reads them both: the frames of every transaction committed in
/// the log, up to the first frame that does not check (a log being written ends there), each
/// page written over the database's, which then has the size the last commit gives it. What the
/// database holds when it is read from memory, where SQLite keeps no log. Answers the pages
/// written; a log that is not one (its header does not check) is an error in one line, and
/// leaves the database as it was.
pub fn apply_wal(database: &mut Vec<u8>, wal: &[u8]) -> Result<usize, String> {
    const MAGIC_LE: u32 = 0x377f_0682;
    const WAL_HEADER: usize = 32;
    const FRAME_HEADER: usize = 24;
    let be32 = |bytes: &[u8], at: usize| u32::from_be_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    if wal.len() < WAL_HEADER {
        return Err(format!("its write-ahead log is cut short ({} bytes, less than its header)", wal.len()));
    }
    let magic = be32(wal, 0);
    if magic & !1 != MAGIC_LE {
        return Err("its write-ahead log is not one (its first bytes are not SQLite's)".to_owned());
    }
    let big_endian = magic & 1 == 1;
    let page_size = match be32(wal, 8) {
        65_536 => 65_536usize,
        size if (512..=32_768).contains(&size) && size.is_power_of_two() => size as usize,
        size => {
            return Err(format!("its write-ahead log gives a page size of {size} bytes, which SQLite never writes"));
        }
    };
    // SQLite's checksum: pairs of 32-bit words in the order the magic names, summed on.
    let checksum = |mut sums: (u32, u32), bytes: &[u8]| {
        for pair in bytes.chunks_exact(8) {
            let word = |at: usize| {
                let b = [pair[at], pair[at + 1], pair[at + 2], pair[at + 3]];
                if big_endian { u32::from_be_bytes(b) } else { u32::from_le_bytes(b) }
            };
            sums.0 = sums.0.wrapping_add(word(0)).wrapping_add(sums.1);
            sums.1 = sums.1.wrapping_add(word(4)).wrapping_add(sums.0);
        }
        sums
    };
    let mut sums = checksum((0, 0), &wal[..24]);
    if sums != (be32(wal, 24), be32(wal, 28)) {
        return Err("its write-ahead log's header does not check (damaged, or being written)".to_owned());
    }
    if let Ok(header) = read_header(database.get(..HEADER_BYTES).unwrap_or(database), database.len() as u64)
        && header.page_size as usize != page_size
    {
        return Err(format!(
            "its write-ahead log's pages are {page_size} bytes, the database's {}: they are not of this database",
            header.page_size
        ));
    }
    let salts = (be32(wal, 16), be32(wal, 20));
    // Pages of the transactions committed so far, and the database's size after the last one.
    let mut committed: Vec<(usize, &[u8])> = Vec::new();
    let mut pending: Vec<(usize, &[u8])> = Vec::new();
    let mut size_in_pages = None;
    let mut at = WAL_HEADER;
    while let Some(frame) = wal.get(at..at + FRAME_HEADER + page_size) {
        let (header, page) = frame.split_at(FRAME_HEADER);
        if (be32(header, 8), be32(header, 12)) != salts {
            break;
        }
        sums = checksum(checksum(sums, &header[..8]), page);
        if sums != (be32(header, 16), be32(header, 20)) {
            break;
        }
        let page_no = be32(header, 0) as usize;
        if page_no == 0 {
            break;
        }
        pending.push((page_no, page));
        let commit = be32(header, 4);
        if commit > 0 {
            committed.append(&mut pending);
            size_in_pages = Some(commit as usize);
        }
        at += FRAME_HEADER + page_size;
    }
    let Some(size_in_pages) = size_in_pages else { return Ok(0) };
    let written = committed.len();
    // The database grows only by the pages the log writes.
    let len = size_in_pages.saturating_mul(page_size);
    let last_written = committed.iter().map(|&(page_no, _)| page_no.saturating_mul(page_size)).max().unwrap_or(0);
    if len > database.len().max(last_written) {
        return Err("its write-ahead log is damaged: it gives the database pages it never writes".to_owned());
    }
    database.resize(len, 0);
    for (page_no, page) in committed {
        let start = (page_no - 1).saturating_mul(page_size);
        if let Some(target) = database.get_mut(start..start + page_size) {
            target.copy_from_slice(page);
        }
    }
    Ok(written)
}

/// The files SQLite keeps beside a database (`opencode.db-wal`, `-shm`, `-journal`): part of the
/// database, not files of their own.
pub const COMPANION_SUFFIXES: [&str; 3] = ["-wal", "-shm", "-journal"];

/// The write-ahead log's name beside a database: `opencode.db` → `opencode.db-wal`.
pub fn wal_name(database: &str) -> String {
    format!("{database}-wal")
}

/// The agent database a companion file's path belongs to (`…/opencode.db-wal` →
/// `…/opencode.db`), with the companion's suffix.
pub fn database_of_companion(path: &str) -> Option<(&str, &'static str)> {
    COMPANION_SUFFIXES.iter().find_map(|&suffix| {
        let database = path.strip_suffix(suffix)?;
        super::names::may_be_database_name(database).then_some((database, suffix))
    })
}

/// The queries of the database kind that has these tables (OpenCode's or Cursor's), or the one
/// line that says it is neither.
pub fn queries_for(tables: &[String]) -> Result<&'static [RecordQuery], String> {
    let has = |wanted: &[&str]| wanted.iter().all(|t| tables.iter().any(|name| name == t));
    if has(&OPENCODE_TABLES) {
        return Ok(&OPENCODE_QUERIES);
    }
    if has(&CURSOR_TABLES) {
        return Ok(&CURSOR_QUERIES);
    }
    let listed = if tables.is_empty() { "none".to_owned() } else { tables.join(", ") };
    Err(format!(
        "is an SQLite database of another schema: neither OpenCode's (tables {}) nor Cursor's (table {}); its \
         tables: {listed}",
        OPENCODE_TABLES.join(", "),
        CURSOR_TABLES.join(", ")
    ))
}

/// SQLite's primary result codes that have words of their own here.
pub mod sqlite_code {
    pub const BUSY: i32 = 5;
    pub const LOCKED: i32 = 6;
    pub const CORRUPT: i32 = 11;
    pub const CANTOPEN: i32 = 14;
    pub const NOTADB: i32 = 26;
}

/// One line for an SQLite error (its result code, extended or not, and SQLite's message) while
/// reading `what` (a table, or `sqlite_master`).
pub fn describe_error(code: i32, what: &str, detail: &str) -> String {
    match code & 0xff {
        sqlite_code::NOTADB => "is not an SQLite database (or it is encrypted)".to_owned(),
        sqlite_code::CORRUPT => format!("is damaged: SQLite could not read {what} ({detail})"),
        sqlite_code::BUSY | sqlite_code::LOCKED => {
            format!("is locked by another process: {what} could not be read ({detail})")
        }
        _ => format!("could not be read as a database ({what}): {detail}"),
    }
}

/// One column value of a row, as SQLite gives it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SqlValue<'a> {
    Null,
    Integer(i64),
    Real(f64),
    Text(&'a str),
    Blob(&'a [u8]),
}

/// The record line of one row (without its newline): `columns[i]` names `values[i]`. NULL
/// values are left out; a JSON column's value that parses is embedded, any other text is a
/// string; a BLOB is read as UTF-8 text (bytes that are not become U+FFFD); a real that is not
/// finite is `null`.
pub fn record_line(columns: &[&str], values: &[SqlValue], json_columns: &[&str]) -> String {
    let mut line = String::from("{");
    for (column, value) in columns.iter().zip(values) {
        let text = match value {
            SqlValue::Null => continue,
            SqlValue::Integer(n) => n.to_string(),
            SqlValue::Real(x) => serde_json::Number::from_f64(*x).map_or_else(|| "null".to_owned(), |n| n.to_string()),
            SqlValue::Text(text) => json_or_string(text, json_columns.contains(column)),
            SqlValue::Blob(bytes) => json_or_string(&String::from_utf8_lossy(bytes), json_columns.contains(column)),
        };
        if line.len() > 1 {
            line.push(',');
        }
        line.push_str(&quoted(column));
        line.push(':');
        line.push_str(&text);
    }
    line.push('}');
    line
}

/// JSON text kept as it is (on one line: a record is one line), or else a JSON string.
fn json_or_string(text: &str, is_json: bool) -> String {
    if is_json && serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok() {
        if !text.contains(['\n', '\r']) {
            return text.to_owned();
        }
        // Pretty-printed JSON is written again on one line (its keys then in name order).
        if let Ok(value) = serde_json::from_str::<serde_json::Value>(text) {
            return value.to_string();
        }
    }
    quoted(text)
}

fn quoted(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| "\"\"".to_owned())
}

/// A record line kept for when the database's rows are all in: importers of a record stream
/// build the conversation once the stream ends (a message's parts, a chat's bubbles and the
/// sessions' parents all known), reading the line again from the file.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Kept {
    pub line_no: u32,
    pub span: Span,
}

impl Kept {
    /// The text of the line in its file, if it is still there.
    pub fn text<'b>(&self, file_bytes: &'b [u8]) -> &'b str {
        file_bytes.get(self.span.range()).and_then(|bytes| std::str::from_utf8(bytes).ok()).unwrap_or("")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Headers and logs of any bytes: an answer, never a panic.
    #[test]
    fn any_bytes_as_a_header_or_a_log_are_an_answer() {
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut database = SQLITE_MAGIC.to_vec();
        database.resize(4096, 0);
        database[16] = 0x10; // 4096-byte pages
        for round in 0..2000 {
            let len = (next() % 700) as usize;
            let mut bytes: Vec<u8> = (0..len).map(|_| next() as u8).collect();
            if round % 2 == 0 && bytes.len() >= 32 {
                // A log's magic and page size, so the frames are read.
                bytes[..4].copy_from_slice(&0x377f_0682_u32.to_be_bytes());
                bytes[8..12].copy_from_slice(&512_u32.to_be_bytes());
            }
            let _ = read_header(&bytes, next() % 100_000);
            let mut target = database.clone();
            if apply_wal(&mut target, &bytes).is_err() {
                assert_eq!(target, database, "a log that is none leaves the database alone");
            }
        }
        assert!(read_header(&database, 4096).is_ok());
        database[16] = 0x03;
        assert!(read_header(&database, 4096).expect_err("a page size of 768").contains("page size"));
    }

    #[test]
    fn the_kind_is_known_by_its_tables() {
        let names = |list: &[&str]| list.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        assert_eq!(queries_for(&names(&["message", "part", "project", "session"])).map(<[_]>::len), Ok(2));
        assert_eq!(queries_for(&names(&["ItemTable", "cursorDiskKV"])).map(<[_]>::len), Ok(1));
        let other = queries_for(&names(&["notes"])).expect_err("another schema");
        assert!(other.ends_with("its tables: notes"), "{other}");
        assert!(queries_for(&[]).expect_err("no tables").ends_with("its tables: none"));
        assert_eq!(describe_error(11, "part", "malformed"), "is damaged: SQLite could not read part (malformed)");
        assert_eq!(describe_error(26 | (1 << 8), "x", "y"), "is not an SQLite database (or it is encrypted)");
    }

    #[test]
    fn rows_become_one_line_objects() {
        let columns = ["table", "id", "parent_id", "time_created", "data", "title"];
        let values = [
            SqlValue::Text("message"),
            SqlValue::Text("m\"1"),
            SqlValue::Null,
            SqlValue::Integer(1_700_000_000_000),
            SqlValue::Text("{\n  \"role\": \"user\"\n}"),
            SqlValue::Text("{not json"),
        ];
        let line = record_line(&columns, &values, &["data"]);
        assert_eq!(
            line,
            r#"{"table":"message","id":"m\"1","time_created":1700000000000,"data":{"role":"user"},"title":"{not json"}"#
        );
        let blob = record_line(&["value"], &[SqlValue::Blob(b"{\"a\":1}")], &["value"]);
        assert_eq!(blob, r#"{"value":{"a":1}}"#);
        let broken =
            record_line(&["value", "cost"], &[SqlValue::Blob(b"{\"a\":"), SqlValue::Real(f64::NAN)], &["value"]);
        assert_eq!(broken, r#"{"value":"{\"a\":","cost":null}"#);
    }
}
