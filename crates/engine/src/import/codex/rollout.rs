//! Codex CLI session rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-<date>-<uuid>.jsonl`):
//! lines `{timestamp, type, payload}`.
//! - `session_meta` (id, cwd, cli_version, originator, git) is a system entry and names the
//!   session; `turn_context` (model, cwd, approval policy) is metadata that sets the model.
//! - `response_item`s are the conversation: `message` (user prompt, assistant text, developer
//!   instructions; injected `<environment_context>`/`<user_instructions>` are meta), `reasoning`
//!   (summaries and raw content as thinking; encrypted only: a signature-only thinking block),
//!   `function_call` / `custom_tool_call` / `local_shell_call` (tool calls; the JSON string of
//!   `arguments` is decoded into the arena) and their `*_output` (results, paired by `call_id`;
//!   a non-zero exit code in the output is an error), `web_search_call`.
//! - `event_msg`s mostly repeat the items (`user_message`, `agent_message`, `agent_reasoning`:
//!   metadata once the file has items; an events-only file reads them as messages), or are
//!   metadata: `token_count` gives usage, `exec_command_end`/`patch_apply_end` exit codes.
//!   `turn_aborted` is an interrupted system entry that ends the turn's pending calls as
//!   interrupted; `error` and `stream_error` are error system entries.
//! - `compacted` is a compaction summary.
//! - Older rollouts (mid 2025) hold bare response items after a `{id, timestamp, instructions}`
//!   line, with `{"record_type": "state"}` lines between them.
//!
//! Usage: `token_count` events carry `total_token_usage` (the session's running total) and
//! `last_token_usage` (the last request). Each response gets the growth of the running total,
//! so repeated events count nothing twice and the session total is the last total; the last
//! request's figure is used only when there is no total or it went backwards.

use rustc_hash::{FxHashMap, FxHashSet};
use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::value::RawValue;

use crate::import::common::*;
use crate::import::{LineOutcome, Sink};
use crate::json::{self, LBool, LList, LNum, LStr, Shape, lenient};
use crate::model::*;
use crate::span::{Locator, Span, Sym};

use super::bill;

#[derive(Deserialize, Default)]
#[serde(default)]
struct TextItem<'a> {
    #[serde(rename = "type", borrow)]
    ty: LStr<'a>,
    #[serde(borrow)]
    text: Option<&'a RawValue>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Git<'a> {
    #[serde(borrow)]
    branch: LStr<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct TokenInfo {
    #[serde(deserialize_with = "lenient")]
    total_token_usage: OpenAiUsage,
    #[serde(deserialize_with = "lenient")]
    last_token_usage: OpenAiUsage,
}

/// Every payload's fields in one struct, so a line is parsed once.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Payload<'a> {
    #[serde(rename = "type", borrow)]
    ty: LStr<'a>,
    // session_meta, turn_context
    #[serde(borrow)]
    id: LStr<'a>,
    #[serde(borrow)]
    cwd: LStr<'a>,
    #[serde(borrow)]
    cli_version: LStr<'a>,
    #[serde(borrow)]
    originator: LStr<'a>,
    #[serde(borrow, deserialize_with = "lenient")]
    git: Git<'a>,
    #[serde(borrow)]
    model: LStr<'a>,
    #[serde(borrow)]
    approval_policy: LStr<'a>,
    // response items
    #[serde(borrow)]
    role: LStr<'a>,
    #[serde(borrow)]
    content: LList<'a, TextItem<'a>>,
    #[serde(borrow)]
    summary: LList<'a, TextItem<'a>>,
    encrypted_content: Shape,
    #[serde(borrow)]
    name: LStr<'a>,
    #[serde(borrow)]
    arguments: Option<&'a RawValue>,
    #[serde(borrow)]
    input: Option<&'a RawValue>,
    #[serde(borrow)]
    call_id: LStr<'a>,
    #[serde(borrow)]
    output: Option<&'a RawValue>,
    #[serde(borrow)]
    status: LStr<'a>,
    #[serde(borrow)]
    action: Option<&'a RawValue>,
    // event messages
    #[serde(borrow)]
    message: Option<&'a RawValue>,
    #[serde(borrow)]
    text: Option<&'a RawValue>,
    #[serde(deserialize_with = "lenient")]
    info: TokenInfo,
    #[serde(borrow)]
    reason: LStr<'a>,
    exit_code: LNum,
    success: LBool,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RolloutHead<'a> {
    #[serde(borrow)]
    timestamp: LStr<'a>,
    #[serde(rename = "type", borrow)]
    ty: LStr<'a>,
    #[serde(borrow, deserialize_with = "lenient")]
    payload: Payload<'a>,
    #[serde(borrow)]
    record_type: LStr<'a>,
    // The first line of older rollouts: {id, timestamp, instructions}.
    #[serde(borrow)]
    id: LStr<'a>,
    instructions: Shape,
}

/// `{"output": "...", "metadata": {"exit_code": N}}`, the JSON text of a shell call's output.
#[derive(Deserialize, Default)]
#[serde(default)]
struct WrappedOutput<'a> {
    #[serde(borrow)]
    output: LStr<'a>,
    #[serde(deserialize_with = "lenient")]
    metadata: OutputMetadata,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct OutputMetadata {
    exit_code: LNum,
}

/// `{"content": ..., "success": bool}`, a structured function output.
#[derive(Deserialize, Default)]
#[serde(default)]
struct StructuredOutput<'a> {
    #[serde(borrow)]
    content: Option<&'a RawValue>,
    success: LBool,
}

/// The rollout a file is, so far.
#[derive(Clone)]
pub(crate) struct State {
    chain: Chain,
    /// The first assistant entry the next token count bills, if any.
    unbilled: EntryId,
    last_assistant: EntryId,
    /// Usage reported before any entry could carry it.
    pending_usage: Option<Usage>,
    /// The last running total, as the model counts usage.
    total: Option<Usage>,
    /// Calls without an output yet, in order: `(call id, block id span)`.
    pending_calls: Vec<(String, Span)>,
    /// Result blocks by call id, and exit codes of exec events, to join whichever comes second.
    results: FxHashMap<String, (EntryId, u32)>,
    exit_codes: FxHashMap<String, bool>,
    /// A response item has been read: events that repeat items are metadata from now on.
    seen_item: bool,
    /// Texts of entries made from events (before any item), so the items repeating them are
    /// not read twice.
    event_texts: FxHashSet<u64>,
}

impl State {
    pub(crate) fn new(sink: &Sink, file: FileId) -> State {
        State {
            chain: Chain::new(sink, file),
            unbilled: EntryId::NONE,
            last_assistant: EntryId::NONE,
            pending_usage: None,
            total: None,
            pending_calls: Vec::new(),
            results: FxHashMap::default(),
            exit_codes: FxHashMap::default(),
            seen_item: false,
            event_texts: FxHashSet::default(),
        }
    }

    fn note_assistant(&mut self, sink: &mut Sink, entry: EntryId) {
        self.last_assistant = entry;
        if self.unbilled.is_none() {
            self.unbilled = entry;
        }
        if let Some(usage) = self.pending_usage.take() {
            bill(sink, entry, self.chain.model, usage);
        }
    }
}

const ITEM_TYPES: [&str; 8] = [
    "message",
    "reasoning",
    "function_call",
    "function_call_output",
    "custom_tool_call",
    "custom_tool_call_output",
    "local_shell_call",
    "web_search_call",
];

pub(crate) fn import_line(
    sink: &mut Sink,
    bytes: &[Vec<u8>],
    file: FileId,
    line_no: u32,
    text: &str,
    state: &mut State,
) -> LineOutcome {
    let head: RolloutHead = match parse_line(text) {
        Ok(head) => head,
        Err(outcome) => return outcome,
    };
    let (at, span) = locate(bytes, file, text);
    let timestamp = time(&head.timestamp);
    let ty = head.ty.as_deref().unwrap_or("");
    // The line, recorded under the given type.
    let line = |type_name: Sym| Line { file, line_no, span, type_name, timestamp, at };

    // Older rollouts: bare response items, state records, and a first line without a type.
    let bare = ITEM_TYPES.contains(&ty);
    if bare {
        let Ok(payload) = serde_json::from_str::<Payload>(text) else { return LineOutcome::Metadata };
        let type_sym = intern(sink, &format!("response_item:{ty}"));
        sink.count_type(type_sym);
        let item_sym = intern(sink, "response_item");
        return response_item(sink, bytes, &line(item_sym), &payload, state);
    }
    if ty.is_empty() {
        let type_sym = intern(sink, if head.record_type.is_some() { "record_type" } else { "(untyped)" });
        sink.count_type(type_sym);
        if !head.record_type.is_some() && head.instructions != Shape::Absent && head.id.is_some() {
            let session = intern_l(sink, &head.id);
            state.chain.set_session(sink, session);
        }
        line(type_sym).push_meta(sink, state.chain.session);
        return LineOutcome::Metadata;
    }

    let payload = &head.payload;
    let inner = payload.ty.as_deref().unwrap_or("");
    let counted = if inner.is_empty() || !matches!(ty, "response_item" | "event_msg") {
        intern(sink, ty)
    } else {
        intern(sink, &format!("{ty}:{inner}"))
    };
    sink.count_type(counted);
    let type_sym = intern(sink, ty);
    match ty {
        "session_meta" => {
            let session = intern_l(sink, &payload.id);
            state.chain.set_session(sink, session);
            let symbols = &mut sink.corpus.symbols;
            let envelope = &mut state.chain.envelope;
            let mut set = |slot: &mut Sym, value: &LStr| {
                if let Some(v) = value.as_deref().filter(|v| !v.is_empty()) {
                    *slot = symbols.intern(v);
                }
            };
            set(&mut envelope.cwd, &payload.cwd);
            set(&mut envelope.version, &payload.cli_version);
            set(&mut envelope.git_branch, &payload.git.branch);
            set(&mut envelope.entrypoint, &payload.originator);
            line(type_sym).push_meta(sink, state.chain.session);
            LineOutcome::Metadata
        }
        "turn_context" => {
            let symbols = &mut sink.corpus.symbols;
            let envelope = &mut state.chain.envelope;
            let mut set = |slot: &mut Sym, value: &LStr| {
                if let Some(v) = value.as_deref().filter(|v| !v.is_empty()) {
                    *slot = symbols.intern(v);
                }
            };
            set(&mut envelope.cwd, &payload.cwd);
            set(&mut envelope.permission_mode, &payload.approval_policy);
            set(&mut state.chain.model, &payload.model);
            line(counted).push_meta(sink, state.chain.session);
            LineOutcome::Metadata
        }
        "response_item" => response_item(sink, bytes, &line(type_sym), payload, state),
        "event_msg" => event(sink, bytes, &line(type_sym), counted, payload, state),
        "compacted" => {
            let mut entry = line(type_sym).entry(sink, EntryKind::User);
            entry.flags.set(EntryFlags::COMPACT_SUMMARY, true);
            entry.content = at.raw_span(payload.message);
            entry.flags.set(EntryFlags::STRING_CONTENT, is_string(payload.message));
            state.chain.push_line(sink, bytes, entry, line_no, "")
        }
        _ => {
            line(counted).push_meta(sink, state.chain.session);
            LineOutcome::Metadata
        }
    }
}

fn text_hash(sink: &Sink, kind: u8, text: &str) -> u64 {
    sink.hash_pair(&[kind], text.as_bytes())
}

/// A tool's name as the model shows it: MCP tools (`server__tool`) as Claude names them.
fn tool_name(sink: &mut Sink, name: &str) -> Sym {
    if name.contains("__") && !name.starts_with("mcp__") {
        intern(sink, &format!("mcp__{name}"))
    } else {
        intern(sink, name)
    }
}

fn response_item(sink: &mut Sink, bytes: &[Vec<u8>], line: &Line, payload: &Payload, state: &mut State) -> LineOutcome {
    let item = payload.ty.as_deref().unwrap_or("");
    let at = &line.at;
    state.seen_item = true;
    match item {
        "message" => {
            let role = payload.role.as_deref().unwrap_or("");
            let kind = match role {
                "user" => EntryKind::User,
                "assistant" => EntryKind::Assistant,
                _ => EntryKind::System,
            };
            let first_text = payload.content.0.iter().find_map(|i| i.text).map(|t| raw_text(Some(t)));
            if !state.event_texts.is_empty() {
                let tag = match kind {
                    EntryKind::User => b'u',
                    EntryKind::Assistant => b'a',
                    _ => b's',
                };
                let hash = text_hash(sink, tag, first_text.as_deref().unwrap_or(""));
                if state.event_texts.remove(&hash) {
                    return LineOutcome::Metadata;
                }
            }
            let mut entry = line.entry(sink, kind);
            entry.subtype = intern(sink, if kind == EntryKind::System { role } else { item });
            for part in &payload.content.0 {
                let part_type = part.ty.as_deref().unwrap_or("");
                if part_type.ends_with("text") || (part_type.is_empty() && part.text.is_some()) {
                    push_block(sink, &mut entry, BlockKind::Text, Sym::NONE, Span::EMPTY, at.raw_span(part.text));
                } else {
                    let name = intern(sink, if part_type.is_empty() { "(untyped)" } else { part_type });
                    push_block(sink, &mut entry, BlockKind::Unknown, name, Span::EMPTY, Span::EMPTY);
                }
            }
            let injected = first_text.as_deref().is_some_and(is_injected);
            if kind == EntryKind::System || (kind == EntryKind::User && injected) {
                entry.flags.set(EntryFlags::META, true);
            }
            if kind == EntryKind::Assistant {
                entry.model = state.chain.model;
            }
            if kind == EntryKind::User && !injected {
                // A new prompt: calls of earlier turns that never got an output stay without.
                state.pending_calls.clear();
            }
            if first_text.as_deref().is_some_and(|t| t.contains("[Request interrupted by user")) {
                entry.flags.set(EntryFlags::INTERRUPTED, true);
            }
            push_item(sink, bytes, line, entry, state)
        }
        "reasoning" => {
            if !state.event_texts.is_empty() {
                let first = payload.summary.0.iter().find_map(|i| i.text).map(|t| raw_text(Some(t)));
                let hash = text_hash(sink, b'r', first.as_deref().unwrap_or(""));
                if state.event_texts.remove(&hash) {
                    return LineOutcome::Metadata;
                }
            }
            let mut entry = line.entry(sink, EntryKind::Assistant);
            entry.subtype = intern(sink, item);
            entry.model = state.chain.model;
            for part in payload.summary.0.iter().chain(&payload.content.0) {
                if part.text.is_some() {
                    push_block(sink, &mut entry, BlockKind::Thinking, Sym::NONE, Span::EMPTY, at.raw_span(part.text));
                }
            }
            if entry.blocks_len == 0 {
                // Encrypted (or empty) reasoning: there, but not recorded.
                let block = push_block(sink, &mut entry, BlockKind::Thinking, Sym::NONE, Span::EMPTY, Span::EMPTY);
                sink.corpus.blocks[block as usize].flags |= Block::SIGNATURE_ONLY;
            }
            push_item(sink, bytes, line, entry, state)
        }
        "function_call" | "custom_tool_call" | "local_shell_call" | "web_search_call" => {
            let mut entry = line.entry(sink, EntryKind::Assistant);
            entry.subtype = intern(sink, item);
            entry.model = state.chain.model;
            let synth = state.chain.id(line.line_no, "");
            let call_id = payload.call_id.as_deref().filter(|c| !c.is_empty()).map(str::to_owned);
            let call_id = call_id.or_else(|| payload.id.as_deref().filter(|c| !c.is_empty()).map(str::to_owned));
            let id = match (&call_id, payload.call_id.is_some()) {
                (Some(_), true) => str_span(sink, at, &payload.call_id),
                (Some(_), false) => str_span(sink, at, &payload.id),
                (None, _) => arena_str(&mut sink.corpus.arena, &synth),
            };
            let call_id = call_id.unwrap_or(synth);
            match item {
                "function_call" => {
                    let name = tool_name(sink, payload.name.as_deref().unwrap_or(""));
                    let body = decoded_arguments(sink, at, payload.arguments);
                    push_block(sink, &mut entry, BlockKind::ToolUse, name, id, body);
                }
                "custom_tool_call" => {
                    let name = tool_name(sink, payload.name.as_deref().unwrap_or(""));
                    push_block(sink, &mut entry, BlockKind::ToolUse, name, id, at.raw_span(payload.input));
                }
                "local_shell_call" => {
                    let name = intern(sink, "local_shell");
                    push_block(sink, &mut entry, BlockKind::ToolUse, name, id, at.raw_span(payload.action));
                }
                _ => {
                    let name = intern(sink, "web_search");
                    push_block(sink, &mut entry, BlockKind::ServerToolUse, name, id, at.raw_span(payload.action));
                    let result = intern(sink, "web_search_call");
                    let block = push_block(sink, &mut entry, BlockKind::ServerToolResult, result, id, Span::EMPTY);
                    if payload.status.as_deref() == Some("failed") {
                        mark_error(sink, &mut entry, block);
                    }
                }
            }
            if item != "web_search_call" {
                state.pending_calls.push((call_id, id));
            }
            push_item(sink, bytes, line, entry, state)
        }
        "function_call_output" | "custom_tool_call_output" => {
            let mut entry = line.entry(sink, EntryKind::User);
            entry.subtype = intern(sink, item);
            let id = str_span(sink, at, &payload.call_id);
            let (body, failed) = output_body(sink, at, payload.output);
            let block = push_block(sink, &mut entry, BlockKind::ToolResult, Sym::NONE, id, body);
            let call_id = payload.call_id.as_deref().unwrap_or("");
            let exit_failed = state.exit_codes.remove(call_id);
            if failed.or(exit_failed) == Some(true) {
                mark_error(sink, &mut entry, block);
            }
            if let Some(position) = state.pending_calls.iter().position(|(c, _)| c == call_id) {
                state.pending_calls.remove(position);
            }
            let outcome = state.chain.push_line(sink, bytes, entry, line.line_no, "");
            if matches!(outcome, LineOutcome::Entry) && !call_id.is_empty() {
                state.results.insert(call_id.to_owned(), (state.chain.last_entry, block));
            }
            outcome
        }
        _ => {
            let counted = intern(sink, &format!("response_item:{item}"));
            Line { type_name: counted, ..*line }.push_meta(sink, state.chain.session);
            LineOutcome::Metadata
        }
    }
}

/// Adds an item's entry to the thread; assistant entries wait for their token count.
fn push_item(sink: &mut Sink, bytes: &[Vec<u8>], line: &Line, entry: Entry, state: &mut State) -> LineOutcome {
    let assistant = entry.kind == EntryKind::Assistant;
    let outcome = state.chain.push_line(sink, bytes, entry, line.line_no, "");
    if assistant && matches!(outcome, LineOutcome::Entry) {
        let id = state.chain.last_entry;
        state.note_assistant(sink, id);
    }
    outcome
}

/// The JSON string of a call's `arguments`, decoded: the JSON it holds (in the arena), or the
/// string itself when it holds no JSON.
fn decoded_arguments(sink: &mut Sink, at: &Locator, arguments: Option<&RawValue>) -> Span {
    let Some(raw) = arguments else { return Span::EMPTY };
    if !raw.get().starts_with('"') {
        return at.raw_span(Some(raw));
    }
    let decoded = json::decode_value(raw.get().as_bytes());
    if serde_json::from_str::<IgnoredAny>(&decoded).is_ok() {
        arena_raw(&mut sink.corpus.arena, decoded.trim())
    } else {
        at.raw_span(Some(raw))
    }
}

/// A tool output's body, and whether it says the call failed (`None`: it does not say).
fn output_body(sink: &mut Sink, at: &Locator, output: Option<&RawValue>) -> (Span, Option<bool>) {
    let Some(raw) = output else { return (Span::EMPTY, None) };
    let text = raw.get();
    if text.starts_with('"') {
        let decoded = json::decode_value(text.as_bytes());
        if decoded.trim_start().starts_with('{')
            && let Ok(wrapped) = serde_json::from_str::<WrappedOutput>(&decoded)
            && let Some(output) = wrapped.output.as_deref()
        {
            let body = arena_json(&mut sink.corpus.arena, output);
            let failed = wrapped.metadata.exit_code.0.map(|code| code != 0.0);
            return (body, failed);
        }
        return (at.raw_span(Some(raw)), failure_in_text(&decoded));
    }
    if text.starts_with('{')
        && let Ok(structured) = serde_json::from_str::<StructuredOutput>(text)
    {
        let body = if structured.content.is_some() { structured.content } else { Some(raw) };
        return (at.raw_span(body), structured.success.0.map(|ok| !ok));
    }
    (at.raw_span(Some(raw)), None)
}

/// What a plain-text output says of its exit: `Exit code: N`, `Process exited with code N`, or
/// an argument error.
fn failure_in_text(text: &str) -> Option<bool> {
    let text = text.trim_start();
    if text.starts_with("failed to parse function arguments") || text.starts_with("unsupported call") {
        return Some(true);
    }
    for line in text.lines().take(6) {
        let line = line.trim();
        let code = line.strip_prefix("Exit code:").or_else(|| line.strip_prefix("Process exited with code"));
        if let Some(code) = code {
            return code.trim().parse::<i64>().ok().map(|c| c != 0);
        }
    }
    None
}

/// An `event_msg` line; its metadata is counted under `counted` (`event_msg:<type>`).
fn event(
    sink: &mut Sink,
    bytes: &[Vec<u8>],
    line: &Line,
    counted: Sym,
    payload: &Payload,
    state: &mut State,
) -> LineOutcome {
    let at = &line.at;
    let kind = payload.ty.as_deref().unwrap_or("");
    let meta = |sink: &mut Sink, state: &State| {
        Line { type_name: counted, ..*line }.push_meta(sink, state.chain.session);
        LineOutcome::Metadata
    };
    let new = |sink: &mut Sink, kind: EntryKind, subtype: &str| {
        let mut entry = line.entry(sink, kind);
        entry.subtype = intern(sink, subtype);
        entry
    };
    match kind {
        "token_count" => {
            let info = &payload.info;
            let total = info.total_token_usage.present().then(|| info.total_token_usage.to_usage());
            let last = info.last_token_usage.present().then(|| info.last_token_usage.to_usage());
            let delta = match (total, state.total) {
                (Some(total), Some(previous)) if total == previous => None,
                (Some(total), Some(previous)) if usage_covers(&total, &previous) => {
                    Some(usage_minus(&total, &previous))
                }
                (Some(total), None) => Some(total),
                // The running total went backwards: only the last request can be trusted.
                (Some(total), Some(_)) => last.or(Some(total)),
                (None, _) => last,
            };
            if total.is_some() {
                state.total = total;
            }
            if let Some(delta) = delta.filter(|d| !d.is_zero()) {
                let anchor =
                    [state.unbilled, state.last_assistant, state.chain.last_entry].into_iter().find(|&e| e.is_some());
                match anchor {
                    Some(anchor) => bill(sink, anchor, state.chain.model, delta),
                    None => state.pending_usage.get_or_insert_with(Usage::default).add(&delta),
                }
                state.unbilled = EntryId::NONE;
            }
            meta(sink, state)
        }
        "user_message" | "agent_message" | "agent_reasoning" if !state.seen_item => {
            // An events-only rollout: the events are the conversation.
            let (entry_kind, body, tag) = match kind {
                "user_message" => (EntryKind::User, payload.message, b'u'),
                "agent_message" => (EntryKind::Assistant, payload.message, b'a'),
                _ => (EntryKind::Assistant, payload.text, b'r'),
            };
            let text = raw_text(body);
            let hash = text_hash(sink, tag, &text);
            state.event_texts.insert(hash);
            let mut entry = new(sink, entry_kind, kind);
            if kind == "agent_reasoning" {
                push_block(sink, &mut entry, BlockKind::Thinking, Sym::NONE, Span::EMPTY, at.raw_span(body));
            } else {
                entry.content = at.raw_span(body);
                entry.flags.set(EntryFlags::STRING_CONTENT, is_string(body));
            }
            if entry_kind == EntryKind::User && is_injected(&text) {
                entry.flags.set(EntryFlags::META, true);
            }
            if entry_kind == EntryKind::Assistant {
                entry.model = state.chain.model;
            }
            push_item(sink, bytes, line, entry, state)
        }
        "turn_aborted" => {
            let mut entry = new(sink, EntryKind::System, kind);
            entry.flags.set(EntryFlags::INTERRUPTED, true);
            // The calls the turn left running end here, interrupted.
            let reason = payload.reason.as_deref().unwrap_or("interrupted");
            let calls = std::mem::take(&mut state.pending_calls);
            if !calls.is_empty() {
                let text = format!("[Request interrupted by user] the turn was aborted ({reason})");
                let body = arena_json(&mut sink.corpus.arena, &text);
                for (_, id) in &calls {
                    push_block(sink, &mut entry, BlockKind::ToolResult, Sym::NONE, *id, body);
                }
            }
            state.chain.push_line(sink, bytes, entry, line.line_no, "")
        }
        "error" | "stream_error" => {
            let mut entry = new(sink, EntryKind::System, kind);
            entry.flags.set(if kind == "error" { EntryFlags::ERROR } else { EntryFlags::API_ERROR }, true);
            entry.content = at.raw_span(payload.message);
            entry.flags.set(EntryFlags::STRING_CONTENT, is_string(payload.message));
            state.chain.push_line(sink, bytes, entry, line.line_no, "")
        }
        "exec_command_end" | "patch_apply_end" => {
            let failed = if kind == "exec_command_end" {
                payload.exit_code.0.map(|code| code != 0.0)
            } else {
                payload.success.0.map(|ok| !ok)
            };
            let call_id = payload.call_id.as_deref().unwrap_or("");
            if let Some(failed) = failed
                && !call_id.is_empty()
            {
                match state.results.get(call_id) {
                    Some(&(entry, block)) if failed => {
                        if let Some(b) = sink.corpus.blocks.get_mut(block as usize) {
                            b.flags |= Block::IS_ERROR;
                        }
                        if let Some(e) = sink.corpus.entries.get_mut(entry.index()) {
                            e.flags.set(EntryFlags::TOOL_ERROR, true);
                        }
                    }
                    Some(_) => {}
                    None => {
                        state.exit_codes.insert(call_id.to_owned(), failed);
                    }
                }
            }
            meta(sink, state)
        }
        _ => meta(sink, state),
    }
}

pub(crate) fn finish(sink: &mut Sink, state: &mut State) -> u32 {
    if let Some(usage) = state.pending_usage.take()
        && state.chain.last_entry.is_some()
    {
        bill(sink, state.chain.last_entry, state.chain.model, usage);
    }
    state.chain.finish(sink);
    state.chain.entries
}
