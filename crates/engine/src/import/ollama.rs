//! Captures of Ollama's `/api/chat` streaming responses (NDJSON), as an agent orchestrator's
//! Ollama runner receives them (seed `003_f398b497511a5de2.txt`), with or without the requests.
//!
//! - Chunks `{model, created_at, message: {role, content, thinking?, tool_calls?}, done}` up to
//!   the one with `done: true` are one response: one assistant entry (line and raw view: its
//!   first chunk) whose text and thinking are the chunks' pieces joined (in the arena). Thinking
//!   is `message.thinking`, or a leading `<think>…</think>` in the content (Qwen3, DeepSeek-R1).
//!   `tool_calls` become tool calls. The final chunk gives usage (`prompt_eval_count` → input,
//!   `eval_count` → output) and `total_duration`; local inference costs nothing (cost 0, logged).
//!   `/api/generate` chunks (`response`, top-level `thinking`) read the same way.
//! - A stream cut before `done` (the file ends, or a request, error or stop comes first) is an
//!   interrupted response, not an error.
//! - Request lines (`{model, messages: [...]}`, or `{model, prompt}` for `/api/generate`) add
//!   the messages the conversation did not hold yet: prompts, system prompts (meta), tool results
//!   (paired with the calls they answer by `tool_call_id`, else by tool name, else in order).
//!   A request holding fewer messages than the conversation starts a new one.
//! - `{"error": "..."}` lines are error system entries; the sidecar's `query` line is a prompt
//!   (and names the session), its `stop` an interrupt.
//!
//! Line accounting: every chunk line counts as an entry line (its text is in the joined entry),
//! so `LineCounts::entries` counts lines, not entries. A request that only resends messages the
//! conversation holds (a retry) is metadata. Without a session id (the sidecar's), the session
//! is the file.

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::import::common::*;
use crate::import::{LineOutcome, Sink};
use crate::json::{LBool, LList, LNum, LStr, lenient};
use crate::model::*;
use crate::span::{Span, Sym};

#[derive(Deserialize, Default)]
#[serde(default)]
struct Function<'a> {
    #[serde(borrow)]
    name: LStr<'a>,
    #[serde(borrow)]
    arguments: Option<&'a RawValue>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ToolCall<'a> {
    #[serde(borrow)]
    id: LStr<'a>,
    #[serde(borrow, deserialize_with = "lenient")]
    function: Function<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Message<'a> {
    #[serde(borrow)]
    role: LStr<'a>,
    #[serde(borrow)]
    content: Option<&'a RawValue>,
    #[serde(borrow)]
    thinking: Option<&'a RawValue>,
    #[serde(borrow)]
    tool_calls: LList<'a, ToolCall<'a>>,
    #[serde(borrow)]
    tool_name: LStr<'a>,
    #[serde(borrow)]
    tool_call_id: LStr<'a>,
}

impl Message<'_> {
    fn present(&self) -> bool {
        self.role.is_some() || self.content.is_some() || self.thinking.is_some() || !self.tool_calls.0.is_empty()
    }
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Head<'a> {
    #[serde(rename = "type", borrow)]
    ty: LStr<'a>,
    #[serde(borrow)]
    model: LStr<'a>,
    #[serde(borrow)]
    created_at: LStr<'a>,
    #[serde(borrow, deserialize_with = "lenient")]
    message: Message<'a>,
    done: LBool,
    total_duration: LNum,
    prompt_eval_count: LNum,
    eval_count: LNum,
    // /api/generate
    #[serde(borrow)]
    response: Option<&'a RawValue>,
    #[serde(borrow)]
    thinking: Option<&'a RawValue>,
    // Requests.
    #[serde(borrow)]
    messages: Option<LList<'a, Message<'a>>>,
    #[serde(borrow)]
    prompt: Option<&'a RawValue>,
    #[serde(borrow)]
    system: Option<&'a RawValue>,
    #[serde(borrow)]
    error: Option<&'a RawValue>,
    // The sidecar's query line.
    #[serde(borrow)]
    session_id: LStr<'a>,
    #[serde(borrow)]
    cwd: LStr<'a>,
    #[serde(borrow)]
    timestamp: LStr<'a>,
}

/// A response being streamed.
#[derive(Clone)]
struct Stream {
    line: u32,
    line_span: Span,
    timestamp: i64,
    model: Sym,
    text: String,
    thinking: String,
    /// `(name, arguments, id)` of each tool call.
    calls: Vec<(Sym, Span, Span)>,
}

/// What a capture file holds so far.
#[derive(Clone)]
pub(crate) struct State {
    chain: Chain,
    stream: Option<Stream>,
    /// Messages the conversation holds (requests' and responses'), to tell new request
    /// messages from resent ones.
    history: usize,
    /// Tool calls waiting for their result: `(name, id)`.
    pending_calls: Vec<(Sym, Span)>,
    /// The prompt of the last sidecar query, which the next request repeats.
    query_prompt: Option<String>,
}

impl State {
    pub(crate) fn new(sink: &Sink, file: FileId) -> State {
        State { chain: Chain::new(sink, file), stream: None, history: 0, pending_calls: Vec::new(), query_prompt: None }
    }
}

pub(crate) fn import_line(
    sink: &mut Sink,
    bytes: &[Vec<u8>],
    file: FileId,
    line_no: u32,
    text: &str,
    state: &mut State,
) -> LineOutcome {
    let head: Head = match parse_line(text) {
        Ok(head) => head,
        Err(outcome) => return outcome,
    };
    let (at, span) = locate(bytes, file, text);
    let ty = head.ty.as_deref().unwrap_or("");
    let chunk = ty.is_empty()
        && head.error.is_none()
        && (head.done.0.is_some() || head.response.is_some() || (head.created_at.is_some() && head.message.present()));
    let is_request = ty.is_empty() && !chunk && (head.messages.is_some() || head.prompt.is_some());
    let kind = match () {
        _ if !ty.is_empty() => ty,
        _ if head.error.is_some() => "error",
        _ if chunk && head.done.is_true() => "done",
        _ if chunk => "chunk",
        _ if is_request => "request",
        _ => "(untyped)",
    };
    let type_sym = intern(sink, kind);
    sink.count_type(type_sym);
    let timestamp = if head.created_at.is_some() { time(&head.created_at) } else { time(&head.timestamp) };
    let line = Line { file, line_no, span, type_name: type_sym, timestamp, at };

    if chunk {
        let model = intern_l(sink, &head.model);
        let stream = state.stream.get_or_insert_with(|| Stream {
            line: line_no,
            line_span: span,
            timestamp,
            model,
            text: String::new(),
            thinking: String::new(),
            calls: Vec::new(),
        });
        if stream.model.is_none() {
            stream.model = model;
        }
        stream.text.push_str(&raw_text(head.message.content.or(head.response)));
        stream.thinking.push_str(&raw_text(head.message.thinking.or(head.thinking)));
        for call in &head.message.tool_calls.0 {
            let name = intern_l(sink, &call.function.name);
            let id = str_span(sink, &at, &call.id);
            stream.calls.push((name, at.raw_span(call.function.arguments), id));
        }
        if head.done.is_true() {
            let usage = (head.prompt_eval_count.0.is_some() || head.eval_count.0.is_some()).then(|| Usage {
                input_tokens: head.prompt_eval_count.as_u64(),
                output_tokens: head.eval_count.as_u64(),
                ..Usage::default()
            });
            let duration = head.total_duration.0.map(|_| head.total_duration.as_u64() / 1_000_000);
            flush(sink, bytes, file, state, Some((usage, duration)));
        }
        return LineOutcome::Entry;
    }

    // Anything else ends a stream still open: it was cut.
    flush(sink, bytes, file, state, None);
    match kind {
        "error" => {
            let mut entry = line.entry(sink, EntryKind::System);
            entry.subtype = type_sym;
            entry.flags.set(EntryFlags::ERROR, true);
            entry.content = at.raw_span(head.error);
            entry.flags.set(EntryFlags::STRING_CONTENT, is_string(head.error));
            state.chain.push_line(sink, bytes, entry, line_no, "")
        }
        "query" => {
            if let Some(model) = head.model.as_deref().filter(|m| !m.is_empty()) {
                state.chain.model = intern(sink, model);
            }
            let session = intern_l(sink, &head.session_id);
            state.chain.set_session(sink, session);
            if state.chain.envelope.cwd.is_none() {
                state.chain.envelope.cwd = intern_l(sink, &head.cwd);
            }
            let mut entry = line.entry(sink, EntryKind::User);
            entry.content = at.raw_span(head.prompt);
            entry.flags.set(EntryFlags::STRING_CONTENT, is_string(head.prompt));
            state.query_prompt = Some(raw_text(head.prompt).into_owned());
            state.chain.push_line(sink, bytes, entry, line_no, "")
        }
        "stop" => {
            let mut entry = line.entry(sink, EntryKind::System);
            entry.subtype = type_sym;
            entry.flags.set(EntryFlags::INTERRUPTED, true);
            state.chain.push_line(sink, bytes, entry, line_no, "")
        }
        "request" => request(sink, bytes, &line, &head, state),
        _ => {
            line.push_meta(sink, state.chain.session);
            LineOutcome::Metadata
        }
    }
}

/// The messages of a request that the conversation does not hold yet.
fn request(sink: &mut Sink, bytes: &[Vec<u8>], line: &Line, head: &Head, state: &mut State) -> LineOutcome {
    if let Some(model) = head.model.as_deref().filter(|m| !m.is_empty()) {
        state.chain.model = intern(sink, model);
    }
    let at = &line.at;
    let mut added = 0;
    let mut duplicate = None;
    let Some(messages) = &head.messages else {
        // /api/generate: a prompt, and maybe a system prompt.
        for (i, (body, system)) in [(head.system, true), (head.prompt, false)].into_iter().enumerate() {
            if body.is_none() {
                continue;
            }
            let mut entry = line.entry(sink, if system { EntryKind::System } else { EntryKind::User });
            if system {
                entry.subtype = intern(sink, "system");
                entry.flags.set(EntryFlags::META, true);
            }
            entry.content = at.raw_span(body);
            entry.flags.set(EntryFlags::STRING_CONTENT, is_string(body));
            match state.chain.push_line(sink, bytes, entry, line.line_no, &format!(".{i}")) {
                LineOutcome::Entry => added += 1,
                other => duplicate = Some(other),
            }
        }
        return outcome(added, duplicate, sink, line, state);
    };
    let messages = &messages.0;
    if messages.len() < state.history {
        // Fewer messages than the conversation holds: a new conversation.
        state.chain.last.clear();
        state.history = 0;
        state.pending_calls.clear();
    }
    for (i, message) in messages.iter().enumerate().skip(state.history) {
        let role = message.role.as_deref().unwrap_or("");
        let suffix = format!(".{i}");
        let mut entry = match role {
            "assistant" => line.entry(sink, EntryKind::Assistant),
            "system" => line.entry(sink, EntryKind::System),
            _ => line.entry(sink, EntryKind::User),
        };
        match role {
            "assistant" => {
                entry.model = state.chain.model;
                if message.thinking.is_some() {
                    let body = at.raw_span(message.thinking);
                    push_block(sink, &mut entry, BlockKind::Thinking, Sym::NONE, Span::EMPTY, body);
                }
                if raw_text(message.content).trim() != "" {
                    let body = at.raw_span(message.content);
                    push_block(sink, &mut entry, BlockKind::Text, Sym::NONE, Span::EMPTY, body);
                }
                let uuid = state.chain.id(line.line_no, &suffix);
                for (n, call) in message.tool_calls.0.iter().enumerate() {
                    let name = intern_l(sink, &call.function.name);
                    let id = match call.id.as_deref().filter(|i| !i.is_empty()) {
                        Some(_) => str_span(sink, at, &call.id),
                        None => arena_str(&mut sink.corpus.arena, &format!("{uuid}#{n}")),
                    };
                    push_block(sink, &mut entry, BlockKind::ToolUse, name, id, at.raw_span(call.function.arguments));
                    state.pending_calls.push((name, id));
                }
            }
            "tool" => {
                let id = answered_call(sink, bytes, line.file, message, state);
                push_block(sink, &mut entry, BlockKind::ToolResult, Sym::NONE, id, at.raw_span(message.content));
            }
            _ => {
                if role == "system" {
                    entry.subtype = intern(sink, "system");
                    entry.flags.set(EntryFlags::META, true);
                }
                if role == "user"
                    && let Some(prompt) = &state.query_prompt
                    && *prompt == raw_text(message.content)
                {
                    // The sidecar's query, already read.
                    state.query_prompt = None;
                    continue;
                }
                entry.content = at.raw_span(message.content);
                entry.flags.set(EntryFlags::STRING_CONTENT, is_string(message.content));
            }
        }
        match state.chain.push_line(sink, bytes, entry, line.line_no, &suffix) {
            LineOutcome::Entry => added += 1,
            other => duplicate = Some(other),
        }
    }
    state.history = messages.len();
    outcome(added, duplicate, sink, line, state)
}

/// A request line that added entries is an entry line; one that only resent known messages is
/// metadata.
fn outcome(added: u32, duplicate: Option<LineOutcome>, sink: &mut Sink, line: &Line, state: &State) -> LineOutcome {
    if added > 0 {
        return LineOutcome::Entry;
    }
    if let Some(duplicate) = duplicate {
        return duplicate;
    }
    line.push_meta(sink, state.chain.session);
    LineOutcome::Metadata
}

/// The id of the call a tool message answers: by `tool_call_id`, else the first waiting call of
/// its tool name, else the first waiting call.
fn answered_call(sink: &mut Sink, bytes: &[Vec<u8>], file: FileId, message: &Message, state: &mut State) -> Span {
    let file_bytes = bytes.get(file as usize).map(Vec::as_slice).unwrap_or_default();
    let arena = &sink.corpus.arena;
    let position = if let Some(id) = message.tool_call_id.as_deref().filter(|i| !i.is_empty()) {
        let found = state.pending_calls.iter().position(|(_, span)| span.bytes(file_bytes, arena) == id.as_bytes());
        if found.is_none() {
            return arena_str(&mut sink.corpus.arena, id);
        }
        found
    } else if let Some(name) = message.tool_name.as_deref().filter(|n| !n.is_empty()) {
        let symbols = &sink.corpus.symbols;
        state.pending_calls.iter().position(|(n, _)| symbols.resolve(*n) == name)
    } else {
        None
    };
    match position.or((!state.pending_calls.is_empty()).then_some(0)) {
        Some(p) => state.pending_calls.remove(p).1,
        None => Span::EMPTY,
    }
}

/// Makes the entry of the open stream: finished (`done` with its usage and duration) or cut.
fn flush(
    sink: &mut Sink,
    bytes: &[Vec<u8>],
    file: FileId,
    state: &mut State,
    done: Option<(Option<Usage>, Option<u64>)>,
) {
    let Some(stream) = state.stream.take() else { return };
    let type_sym = intern(sink, "chunk");
    let mut entry = new_entry(sink, file, stream.line, stream.line_span, EntryKind::Assistant, type_sym);
    entry.timestamp_ms = stream.timestamp;
    entry.model = if stream.model.is_some() { stream.model } else { state.chain.model };
    if done.is_none() {
        entry.flags.set(EntryFlags::INTERRUPTED, true);
    }
    let (mut thinking, mut text) = (stream.thinking, stream.text);
    if thinking.trim().is_empty() {
        let trimmed = text.trim_start();
        if let Some(inner) = trimmed.strip_prefix("<think>") {
            let (think, rest) = match inner.find("</think>") {
                Some(end) => (&inner[..end], &inner[end + "</think>".len()..]),
                None => (inner, ""),
            };
            thinking = think.trim().to_owned();
            text = rest.trim_start().to_owned();
        }
    }
    let arena = &mut sink.corpus.arena;
    let thinking = (!thinking.trim().is_empty()).then(|| arena_json(arena, &thinking));
    let text = (!text.is_empty() || stream.calls.is_empty()).then(|| arena_json(arena, &text));
    if let Some(body) = thinking {
        push_block(sink, &mut entry, BlockKind::Thinking, Sym::NONE, Span::EMPTY, body);
    }
    if let Some(body) = text {
        push_block(sink, &mut entry, BlockKind::Text, Sym::NONE, Span::EMPTY, body);
    }
    let uuid = state.chain.id(stream.line, "");
    for (n, (name, arguments, id)) in stream.calls.into_iter().enumerate() {
        let id = if id.is_empty() { arena_str(&mut sink.corpus.arena, &format!("{uuid}#{n}")) } else { id };
        push_block(sink, &mut entry, BlockKind::ToolUse, name, id, arguments);
        state.pending_calls.push((name, id));
    }
    let model = entry.model;
    let Ok(id) = state.chain.push(sink, bytes, entry, &uuid) else { return };
    if let Some((usage, duration)) = done {
        // A cut response is not part of the history the client resends.
        state.history += 1;
        let mut response = new_response(file, id, model, usage);
        response.logged_cost_usd = Some(0.0);
        response.duration_ms = duration;
        push_response(sink, response);
    }
}

pub(crate) fn finish(sink: &mut Sink, bytes: &[Vec<u8>], file: FileId, state: &mut State) -> u32 {
    flush(sink, bytes, file, state, None);
    state.chain.finish(sink);
    state.chain.entries
}
