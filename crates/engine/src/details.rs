//! Fields the model does not keep, read again from an entry's line when a view asks: one line
//! at a time, never the whole file.

use crate::model::{Corpus, Entry};
use crate::small_json::{self, Value};

/// The rarely needed fields of an entry.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct EntryDetails {
    pub prompt_id: Option<String>,
    /// `forkedFrom`, as JSON text.
    pub forked_from: Option<String>,
    /// Number of items of `todos`.
    pub todos: Option<usize>,
    /// `thinkingMetadata.level`, or `maxThinkingTokens` as text.
    pub thinking_level: Option<String>,
    pub stop_reason: Option<String>,
    /// `durationMs` of a `turn_duration` system line.
    pub duration_ms: Option<u64>,
    pub level: Option<String>,
    /// `retryAttempt` / `maxRetries` of an `api_error` line.
    pub retry: Option<(u64, u64)>,
    /// `hookEvent`, `hookName` and `command` of a hook progress line.
    pub hook_event: Option<String>,
    pub hook_name: Option<String>,
    pub command: Option<String>,
    /// `messageData` of an extracted tool message, as JSON text.
    pub message_data: Option<String>,
}

/// A text field read leniently, as the importers read fields (`json::LStr`): a string, or an
/// integer as its digits; anything else is no text.
fn text(value: Option<&Value>) -> Option<String> {
    match value? {
        Value::String(text) => Some(text.clone()),
        Value::Number(n) if n.is_integer() => Some(n.to_string()),
        _ => None,
    }
}

/// A numeric field read leniently (`json::LNum`): a number, or a string that holds one.
fn number(value: Option<&Value>) -> Option<f64> {
    match value? {
        Value::Number(n) => n.as_f64(),
        Value::String(text) => text.trim().parse().ok(),
        _ => None,
    }
}

/// A number as a non-negative integer, saturating; negative values are 0 (`json::LNum::as_u64`).
fn whole(n: Option<f64>) -> u64 {
    crate::json::LNum(n).as_u64()
}

impl Corpus {
    /// Reads the rarely needed fields of `entry` from its line.
    pub fn entry_details(&self, entry: &Entry) -> EntryDetails {
        let Ok(Value::Object(line)) = small_json::parse(self.line_bytes(entry)) else {
            return EntryDetails::default();
        };
        // A field that is `null` is not there.
        let field = |key: &str| line.get(key).filter(|value| !value.is_null());
        // An object's field, `None` where the object is something else.
        let inner = |object: &str, key: &str| line.get(object).and_then(|o| o.as_object()).and_then(|o| o.get(key));
        let thinking_level = text(inner("thinkingMetadata", "level")).or_else(|| {
            number(inner("thinkingMetadata", "maxThinkingTokens")).map(|n| format!("{n} max thinking tokens"))
        });
        let duration = number(line.get("durationMs"));
        let retry = number(line.get("retryAttempt"));
        EntryDetails {
            prompt_id: text(line.get("promptId")),
            forked_from: field("forkedFrom").map(Value::to_json),
            todos: line.get("todos").and_then(Value::as_array).map(Vec::len),
            thinking_level,
            stop_reason: text(inner("message", "stop_reason")),
            duration_ms: duration.map(|n| whole(Some(n))),
            level: text(line.get("level")),
            retry: retry.map(|n| (whole(Some(n)), whole(number(line.get("maxRetries"))))),
            hook_event: text(inner("data", "hookEvent")),
            hook_name: text(inner("data", "hookName")),
            command: text(inner("data", "command")),
            message_data: field("messageData").map(Value::to_json),
        }
    }

    /// The entry's whole line, pretty-printed, for a raw view. Invalid JSON cannot reach here
    /// (the line was parsed), but the text is returned as it is if it fails anyway.
    pub fn raw_line_pretty(&self, entry: &Entry) -> String {
        let bytes = self.line_bytes(entry);
        match small_json::parse(bytes) {
            Ok(value) => value.to_pretty_json(),
            Err(_) => String::from_utf8_lossy(bytes).into_owned(),
        }
    }
}
