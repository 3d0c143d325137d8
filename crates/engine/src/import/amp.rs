//! Amp threads (`~/.local/share/amp/threads/T-<uuid>.json`, older VS Code builds
//! `globalStorage/sourcegraph.amp/threads3/`), read whole (a document format: see
//! [`crate::import::is_document`]).
//!
//! A thread is one JSON object: `{v, id: "T-<uuid>", created (ms), title?, messages: [...],
//! env?: {initial: {trees: [{uri}], ...}}, usageLedger?, ...}`, one session named by its `id`,
//! titled by its `title`, in the folder of its first tree (`file://` taken off) as its working
//! directory. The lines from the top to the first message are metadata, each message holds the
//! lines from the one it starts on to the next message, and those after the list are metadata;
//! a thread cut short (or broken) keeps the messages before the break, the rest one diagnostic.
//!
//! A message `{role, messageId, content: [...], state?: {type, stopReason}, usage?, meta?:
//! {sentAt}}` is an entry (uuid `<thread id>:<messageId>`), each the child of the one before;
//! `sentAt` is its time. Content blocks are Anthropic-style: `text`, `thinking`, `tool_use`
//! `{id, name, input}`, `image`; a result is `tool_result {toolUseID, run: {status, result?,
//! progress?, error?}}`, an error when its status is `error` or `rejected-by-user`, interrupted
//! when `cancelled`. A response whose `state.type` is `cancelled` is interrupted, `error` an API
//! error. `role: info` messages (summaries, notices) are system entries.
//!
//! Tokens: `usage {model, inputTokens, outputTokens, cacheCreationInputTokens,
//! cacheReadInputTokens}` of a response, Anthropic's disjoint counts; its model is the model.
//! Amp's `credits` are not dollars and are not read as a cost.

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::import::common::*;
use crate::import::{DocRecord, Failure, LineOutcome, Sink};
use crate::json::{LList, LNum, LStr};
use crate::model::*;
use crate::span::{Locator, Span, Sym};

/// `T-<...>.json`, the name of an Amp thread file.
pub(crate) fn is_thread_name(name: &str) -> bool {
    name.starts_with("T-") && name.ends_with(".json")
}

/// An Amp thread: a JSON object under a thread's name, or whose first bytes hold an `id` that
/// starts with `T-` and a `messages` list (and no Claude or Gemini keys).
pub(crate) fn sniff(text: &[u8], name: &str) -> bool {
    if text.first() != Some(&b'{') {
        return false;
    }
    let head = &text[..text.len().min(4096)];
    let has = |needle: &[u8]| memchr::memmem::find(head, needle).is_some();
    let thread_id = has(b"\"id\":\"T-") || has(b"\"id\": \"T-");
    if has(b"\"sessionId\"") || has(b"\"parentUuid\"") {
        return false;
    }
    (is_thread_name(name) && (thread_id || has(b"\"messages\""))) || (thread_id && has(b"\"messages\""))
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Head<'a> {
    #[serde(borrow)]
    id: LStr<'a>,
    created: LNum,
    #[serde(borrow)]
    title: LStr<'a>,
    #[serde(borrow)]
    messages: Option<&'a RawValue>,
    #[serde(borrow)]
    env: Option<&'a RawValue>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Env<'a> {
    #[serde(borrow)]
    initial: Option<Initial<'a>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Initial<'a> {
    #[serde(borrow)]
    cwd: LStr<'a>,
    #[serde(borrow)]
    trees: LList<'a, Tree<'a>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Tree<'a> {
    #[serde(borrow)]
    uri: LStr<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Message<'a> {
    #[serde(borrow)]
    role: LStr<'a>,
    #[serde(rename = "messageId")]
    message_id: LNum,
    #[serde(borrow)]
    content: Option<&'a RawValue>,
    #[serde(borrow)]
    state: Option<State<'a>>,
    usage: Option<AmpUsage<'a>>,
    meta: Option<Meta>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct State<'a> {
    #[serde(rename = "type", borrow)]
    ty: LStr<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Meta {
    #[serde(rename = "sentAt")]
    sent_at: LNum,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct AmpUsage<'a> {
    #[serde(borrow)]
    model: LStr<'a>,
    #[serde(rename = "inputTokens")]
    input_tokens: LNum,
    #[serde(rename = "outputTokens")]
    output_tokens: LNum,
    #[serde(rename = "cacheCreationInputTokens")]
    cache_creation: LNum,
    #[serde(rename = "cacheReadInputTokens")]
    cache_read: LNum,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Block<'a> {
    #[serde(rename = "type", borrow)]
    ty: LStr<'a>,
    #[serde(borrow)]
    text: Option<&'a RawValue>,
    #[serde(borrow)]
    thinking: Option<&'a RawValue>,
    #[serde(borrow)]
    id: LStr<'a>,
    #[serde(borrow)]
    name: LStr<'a>,
    #[serde(borrow)]
    input: Option<&'a RawValue>,
    #[serde(rename = "toolUseID", borrow)]
    tool_use_id: LStr<'a>,
    #[serde(rename = "tool_use_id", borrow)]
    tool_use_id_snake: LStr<'a>,
    #[serde(borrow)]
    run: Option<Run<'a>>,
    #[serde(borrow)]
    content: Option<&'a RawValue>,
    #[serde(borrow)]
    summary: Option<&'a RawValue>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Summary<'a> {
    #[serde(borrow)]
    summary: Option<&'a RawValue>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Run<'a> {
    #[serde(borrow)]
    status: LStr<'a>,
    #[serde(borrow)]
    result: Option<&'a RawValue>,
    #[serde(borrow)]
    progress: Option<&'a RawValue>,
    #[serde(borrow)]
    error: Option<&'a RawValue>,
}

/// The thread being read.
struct Thread {
    chain: Chain,
    id: String,
    starts: Vec<usize>,
}

impl Thread {
    fn line_of(&self, offset: usize) -> u32 {
        self.starts.partition_point(|&s| s <= offset).max(1).min(u32::MAX as usize) as u32
    }
}

/// Reads a whole Amp thread; `begin` is where its text starts (after a BOM).
pub(crate) fn import_document(sink: &mut Sink, bytes: &[Vec<u8>], file: FileId, begin: usize) -> Vec<DocRecord> {
    let file_bytes = bytes.get(file as usize).map(Vec::as_slice).unwrap_or_default();
    let mut starts = vec![0usize];
    starts.extend(memchr::memchr_iter(b'\n', file_bytes).map(|i| i + 1).filter(|&i| i < file_bytes.len()));
    let Ok(text) = std::str::from_utf8(&file_bytes[begin.min(file_bytes.len())..]) else {
        return vec![DocRecord { offset: begin, outcome: LineOutcome::Failed(Failure::invalid_utf8()) }];
    };
    let mut thread = Thread { chain: Chain::new(sink, file), id: String::new(), starts };
    let records = document(sink, bytes, file, text, &mut thread);
    thread.chain.finish(sink);
    records
}

fn document(sink: &mut Sink, bytes: &[Vec<u8>], file: FileId, text: &str, thread: &mut Thread) -> Vec<DocRecord> {
    let at = Locator { file_bytes: bytes.get(file as usize).map(Vec::as_slice).unwrap_or_default() };
    let offset = |s: &str| at.offset_of(s.as_bytes()).unwrap_or(0);
    let body = text.trim_start();
    let start = offset(body);
    if !body.starts_with('{') {
        let outcome = match serde_json::from_str::<crate::json::Shape>(text) {
            Ok(shape) => LineOutcome::Failed(Failure::new(
                DiagnosticKind::NotAnObject,
                format!("the file is a JSON {}, not an Amp thread object", shape.name()),
            )),
            Err(error) => LineOutcome::Failed(Failure::from_json(&error)),
        };
        return vec![DocRecord { offset: start, outcome }];
    }
    let type_name = intern(sink, "thread");
    sink.count_type(type_name);
    // The whole object, or its fields before the messages when it is broken.
    let header_text: String;
    let (head, messages, broken) = match serde_json::from_str::<Head>(body) {
        Ok(head) => {
            let messages = head.messages.map(RawValue::get);
            (head, messages, None)
        }
        Err(error) => {
            let key = memchr::memmem::find(body.as_bytes(), b"\"messages\"");
            let header = key.map_or(body, |k| &body[..k]).trim_end().trim_end_matches(',');
            header_text = format!("{header}}}");
            let head = serde_json::from_str::<Head>(&header_text).unwrap_or_default();
            let messages = key.and_then(|k| {
                let rest = &body[k + "\"messages\"".len()..];
                let rest = rest.trim_start().strip_prefix(':')?.trim_start();
                rest.starts_with('[').then_some(rest)
            });
            (head, messages, Some(error))
        }
    };
    let created = match head.created.0 {
        Some(v) if v.is_finite() && v > 0.0 && v < 1e15 => v as i64,
        _ => i64::MIN,
    };
    let header = Line {
        file,
        line_no: thread.line_of(start),
        span: Span::in_file(start, body.len()),
        type_name,
        timestamp: created,
        at,
    };
    if let Some(id) = head.id.as_deref().filter(|id| !id.is_empty()) {
        thread.id = id.to_owned();
        let session = intern(sink, id);
        thread.chain.set_session(sink, session);
    }
    if let Some(cwd) = head.env.and_then(|env| working_directory(env.get())) {
        thread.chain.envelope.cwd = intern(sink, &cwd);
    }
    header.push_meta(sink, thread.chain.session);
    if head.title.as_deref().is_some_and(|t| !t.trim().is_empty()) {
        let title = Line { type_name: intern(sink, "custom-title"), ..header };
        title.push_meta(sink, thread.chain.session);
        let span = at.str_span(&mut sink.corpus.arena, &head.title);
        if let Some(last) = sink.corpus.metas.last_mut() {
            last.text = span;
        }
    }
    let mut records = vec![DocRecord { offset: start, outcome: LineOutcome::Metadata }];

    let mut stop: Option<(usize, LineOutcome)> = None;
    let mut end_of_list = None;
    if let Some(list) = messages {
        let rest = list.strip_prefix('[').unwrap_or(list);
        let walk = walk_message_list(rest, offset, &LIST_WORDS, |raw, index| {
            let outcome = message(sink, bytes, file, raw, index, thread);
            records.push(DocRecord { offset: offset(raw.get()), outcome });
        });
        end_of_list = walk.end_of_list;
        stop = walk.stop.map(|(at, why)| match why {
            ListStop::Failed(outcome) => (at, outcome),
            ListStop::BrokenItem(error) => (at, broken_message(&error, thread.line_of(at))),
        });
    }
    let (tail, outcome) = match stop {
        Some(stop) => stop,
        None => {
            let after = end_of_list.unwrap_or(offset(body) + body.len());
            let outcome = match broken {
                Some(error) => {
                    let eof = error.classify() == serde_json::error::Category::Eof;
                    let mut failure = Failure::from_json(&error);
                    failure.message = if eof {
                        "the thread ends before its closing brace: the file is cut short; every message was read".into()
                    } else {
                        format!(
                            "the thread is not valid JSON after its messages ({}); every message was read",
                            failure.message
                        )
                    };
                    if eof {
                        failure.kind = DiagnosticKind::TruncatedLine;
                    }
                    LineOutcome::Failed(failure)
                }
                None => LineOutcome::Metadata,
            };
            (after, outcome)
        }
    };
    // The tail starts on the line after the one its first byte is on, unless that line holds
    // nothing before it.
    let line = thread.line_of(tail);
    let line_start = thread.starts[(line as usize).saturating_sub(1).min(thread.starts.len() - 1)];
    let own_line = at.file_bytes.get(line_start..tail).is_some_and(|b| b.iter().all(u8::is_ascii_whitespace));
    let tail_at = if own_line { Some(tail) } else { thread.starts.get(line as usize).copied() };
    match tail_at {
        Some(tail_at) => records.push(DocRecord { offset: tail_at, outcome }),
        None if matches!(outcome, LineOutcome::Failed(_)) => records.push(DocRecord { offset: tail, outcome }),
        None => {}
    }
    records
}

/// The working directory of a thread: `env.initial.cwd`, else its first tree's `file://` URI.
fn working_directory(env: &str) -> Option<String> {
    let env: Env = serde_json::from_str(env).ok()?;
    let initial = env.initial?;
    if let Some(cwd) = initial.cwd.as_deref().filter(|c| !c.is_empty()) {
        return Some(cwd.to_owned());
    }
    let uri = initial.trees.0.iter().find_map(|t| t.uri.as_deref().filter(|u| !u.is_empty()))?;
    let path = uri.strip_prefix("file://").unwrap_or(uri);
    let path = path.strip_prefix("localhost").unwrap_or(path);
    Some(percent_decode(path))
}

/// `%xx` escapes of a URI path decoded (bytes that do not make UTF-8 are kept as they are).
fn percent_decode(path: &str) -> String {
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(hex) = path.get(i + 1..i + 3)
            && let Ok(byte) = u8::from_str_radix(hex, 16)
        {
            out.push(byte);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| path.to_owned())
}

/// Reads one message into an entry.
fn message(
    sink: &mut Sink,
    bytes: &[Vec<u8>],
    file: FileId,
    raw: &RawValue,
    index: usize,
    thread: &mut Thread,
) -> LineOutcome {
    let at = Locator { file_bytes: bytes.get(file as usize).map(Vec::as_slice).unwrap_or_default() };
    let span = at.raw_span(Some(raw));
    let line_no = thread.line_of(at.offset_of(raw.get().as_bytes()).unwrap_or(0));
    let message: Message = match parse_line(raw.get()) {
        Ok(message) => message,
        Err(outcome) => return outcome,
    };
    let role = message.role.as_deref().unwrap_or("");
    let type_name = intern(sink, if role.is_empty() { "(no role)" } else { role });
    sink.count_type(type_name);
    let sent = message.meta.as_ref().and_then(|m| m.sent_at.0).filter(|v| v.is_finite() && *v > 0.0 && *v < 1e15);
    let timestamp = sent.map_or(i64::MIN, |v| v as i64);
    let line = Line { file, line_no, span, type_name, timestamp, at };
    let prefix = if thread.id.is_empty() { thread.chain.prefix.clone() } else { thread.id.clone() };
    let uuid = match message.message_id.0 {
        Some(id) if id.is_finite() && id >= 0.0 => format!("{prefix}:{}", id as u64),
        _ => format!("{prefix}:#{index}"),
    };
    let state = message.state.as_ref().and_then(|s| s.ty.as_deref()).unwrap_or("");
    let mut entry = match role {
        "assistant" => line.entry(sink, EntryKind::Assistant),
        "user" => line.entry(sink, EntryKind::User),
        _ => {
            let mut entry = line.entry(sink, EntryKind::System);
            entry.subtype = type_name;
            entry.flags.set(EntryFlags::META, true);
            entry
        }
    };
    content(sink, &line, &mut entry, message.content);
    if entry.kind == EntryKind::Assistant {
        entry.flags.set(EntryFlags::INTERRUPTED, state == "cancelled");
        entry.flags.set(EntryFlags::API_ERROR, state == "error");
        if let Some(model) = message.usage.as_ref().and_then(|u| u.model.as_deref()).filter(|m| !m.is_empty()) {
            thread.chain.model = intern(sink, model);
        }
        entry.model = thread.chain.model;
    }
    let model = entry.model;
    let assistant = entry.kind == EntryKind::Assistant;
    let id = match thread.chain.push(sink, bytes, entry, &uuid) {
        Ok(id) => id,
        Err(message) => return LineOutcome::Duplicate(message),
    };
    if assistant && let Some(usage) = &message.usage {
        let usage = Usage {
            input_tokens: usage.input_tokens.as_u64(),
            output_tokens: usage.output_tokens.as_u64(),
            cache_creation_input_tokens: usage.cache_creation.as_u64(),
            cache_read_input_tokens: usage.cache_read.as_u64(),
            ..Usage::default()
        };
        push_response(sink, new_response(file, id, model, Some(usage)));
    }
    LineOutcome::Entry
}

/// A raw value that is there and not `null`.
fn present(raw: Option<&RawValue>) -> Option<&RawValue> {
    raw.filter(|r| r.get() != "null")
}

/// The content of a message: a string, or Anthropic-style blocks with Amp's tool results.
fn content(sink: &mut Sink, line: &Line, entry: &mut Entry, raw: Option<&RawValue>) {
    let Some(raw) = raw else { return };
    if is_string(Some(raw)) {
        entry.content = line.at.raw_span(Some(raw));
        entry.flags.set(EntryFlags::STRING_CONTENT, true);
        return;
    }
    let blocks: LList<Block> = serde_json::from_str(raw.get()).unwrap_or_default();
    for block in &blocks.0 {
        match block.ty.as_deref().unwrap_or("") {
            "text" => {
                push_block(sink, entry, BlockKind::Text, Sym::NONE, Span::EMPTY, line.at.raw_span(block.text));
            }
            "thinking" | "redacted_thinking" => {
                let body = line.at.raw_span(block.thinking);
                push_block(sink, entry, BlockKind::Thinking, Sym::NONE, Span::EMPTY, body);
            }
            "tool_use" => {
                let name = intern_l(sink, &block.name);
                let id = str_span(sink, &line.at, &block.id);
                push_block(sink, entry, BlockKind::ToolUse, name, id, line.at.raw_span(block.input));
            }
            "tool_result" => {
                let id_field = if block.tool_use_id.is_some() { &block.tool_use_id } else { &block.tool_use_id_snake };
                let id = str_span(sink, &line.at, id_field);
                let run = block.run.as_ref();
                let status = run.and_then(|r| r.status.as_deref()).unwrap_or("");
                let body = run
                    .and_then(|r| present(r.result).or(present(r.error)).or(present(r.progress)))
                    .or(present(block.content));
                let body = match body {
                    Some(body) => line.at.raw_span(Some(body)),
                    None if status == "cancelled" => {
                        arena_json(&mut sink.corpus.arena, "[Request interrupted by user] the call was cancelled")
                    }
                    None if !status.is_empty() => arena_json(&mut sink.corpus.arena, &format!("[{status}]")),
                    None => Span::EMPTY,
                };
                let b = push_block(sink, entry, BlockKind::ToolResult, Sym::NONE, id, body);
                if matches!(status, "error" | "rejected-by-user") {
                    mark_error(sink, entry, b);
                }
                if status == "cancelled" {
                    entry.flags.set(EntryFlags::INTERRUPTED, true);
                }
            }
            "image" => {
                push_block(sink, entry, BlockKind::Image, Sym::NONE, Span::EMPTY, Span::EMPTY);
            }
            "summary" => {
                // `{summary: {type: "message", summary: "..."}}`: the summary's text.
                let summary: Summary =
                    block.summary.and_then(|s| serde_json::from_str(s.get()).ok()).unwrap_or_default();
                let body = line.at.raw_span(present(summary.summary).filter(|s| is_string(Some(s))));
                push_block(sink, entry, BlockKind::Text, Sym::NONE, Span::EMPTY, body);
            }
            other => {
                let name = intern(sink, if other.is_empty() { "(untyped)" } else { other });
                push_block(sink, entry, BlockKind::Unknown, name, Span::EMPTY, line.at.raw_span(block.text));
            }
        }
    }
}

/// How an Amp thread tells the breaks of its message list.
const LIST_WORDS: ListWords = ListWords {
    cut_in_list: "the thread ends inside its message list: the file is cut short or still being written",
    no_comma: "the message list goes on without a comma after this message",
};

/// A message of the list that cannot be read, starting on `line`.
fn broken_message(error: &serde_json::Error, line: u32) -> LineOutcome {
    let mut failure = Failure::from_json(error);
    if error.classify() == serde_json::error::Category::Eof {
        failure.kind = DiagnosticKind::TruncatedLine;
        failure.message = format!(
            "the thread ends inside the message that starts on line {line}: the file is cut short or still being written; the messages before it are read"
        );
    } else {
        failure.message =
            format!("a message that is not valid JSON ({}); the messages before it are read", failure.message);
    }
    LineOutcome::Failed(failure)
}
