//! Fields the model does not keep, read again from an entry's line when a view asks: one line
//! at a time, never the whole file.

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::json::{LNum, LStr, lenient};
use crate::model::{Corpus, Entry};

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

#[derive(Deserialize, Default)]
#[serde(default)]
struct DetailsHead<'a> {
    #[serde(rename = "promptId", borrow)]
    prompt_id: LStr<'a>,
    #[serde(rename = "forkedFrom", borrow)]
    forked_from: Option<&'a RawValue>,
    #[serde(borrow)]
    todos: Option<&'a RawValue>,
    #[serde(rename = "thinkingMetadata", borrow, deserialize_with = "lenient")]
    thinking: ThinkingHead<'a>,
    #[serde(borrow, deserialize_with = "lenient")]
    message: MessageTail<'a>,
    #[serde(rename = "durationMs")]
    duration_ms: LNum,
    #[serde(borrow)]
    level: LStr<'a>,
    #[serde(rename = "retryAttempt")]
    retry_attempt: LNum,
    #[serde(rename = "maxRetries")]
    max_retries: LNum,
    #[serde(borrow, deserialize_with = "lenient")]
    data: HookHead<'a>,
    #[serde(rename = "messageData", borrow)]
    message_data: Option<&'a RawValue>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ThinkingHead<'a> {
    #[serde(borrow)]
    level: LStr<'a>,
    #[serde(rename = "maxThinkingTokens")]
    max_tokens: LNum,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct MessageTail<'a> {
    #[serde(borrow)]
    stop_reason: LStr<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct HookHead<'a> {
    #[serde(rename = "hookEvent", borrow)]
    hook_event: LStr<'a>,
    #[serde(rename = "hookName", borrow)]
    hook_name: LStr<'a>,
    #[serde(borrow)]
    command: LStr<'a>,
}

fn owned(s: &LStr) -> Option<String> {
    s.as_deref().map(str::to_owned)
}

impl Corpus {
    /// Reads the rarely needed fields of `entry` from its line.
    pub fn entry_details(&self, entry: &Entry) -> EntryDetails {
        let Ok(head) = serde_json::from_slice::<DetailsHead>(self.line_bytes(entry)) else {
            return EntryDetails::default();
        };
        let todos = head
            .todos
            .and_then(|raw| serde_json::from_str::<Vec<serde::de::IgnoredAny>>(raw.get()).ok())
            .map(|items| items.len());
        let thinking_level = owned(&head.thinking.level)
            .or_else(|| head.thinking.max_tokens.0.map(|n| format!("{n} max thinking tokens")));
        EntryDetails {
            prompt_id: owned(&head.prompt_id),
            forked_from: head.forked_from.map(|raw| raw.get().to_owned()),
            todos,
            thinking_level,
            stop_reason: owned(&head.message.stop_reason),
            duration_ms: head.duration_ms.0.map(|_| head.duration_ms.as_u64()),
            level: owned(&head.level),
            retry: head.retry_attempt.0.map(|_| (head.retry_attempt.as_u64(), head.max_retries.as_u64())),
            hook_event: owned(&head.data.hook_event),
            hook_name: owned(&head.data.hook_name),
            command: owned(&head.data.command),
            message_data: head.message_data.map(|raw| raw.get().to_owned()),
        }
    }

    /// The entry's whole line, pretty-printed, for a raw view. Invalid JSON cannot reach here
    /// (the line was parsed), but the text is returned as it is if it fails anyway.
    pub fn raw_line_pretty(&self, entry: &Entry) -> String {
        let bytes = self.line_bytes(entry);
        match serde_json::from_slice::<serde_json::Value>(bytes) {
            Ok(value) => serde_json::to_string_pretty(&value).unwrap_or_default(),
            Err(_) => String::from_utf8_lossy(bytes).into_owned(),
        }
    }
}
