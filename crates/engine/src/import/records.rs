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
