//! Pi coding-agent sessions (`~/.pi/agent/sessions/<cwd slug>/<timestamp>_<uuid>.jsonl`).
//!
//! - The first line is the header `{"type": "session", "version": 3, "id", "timestamp", "cwd"}`:
//!   metadata that names the session and its working directory (older headers also give
//!   `provider`, `modelId`, `thinkingLevel`).
//! - Entries `{type, id, parentId, timestamp}` form a tree: an entry's uuid is
//!   `<session id>:<id>`, so two files never share one. Legacy (v1) files have no `id` and
//!   `parentId`: their entries are chained in file order under synthesised uuids.
//! - `message` entries hold `message.role`: `user` (a prompt), `assistant` (blocks `text`,
//!   `thinking`, `toolCall {id, name, arguments}`; `usage {input, output, cacheRead,
//!   cacheWrite, cost}` is the response's, `cost` an object with `total` or a number;
//!   `stopReason` `aborted` is an interrupted turn, `error` an API error), `toolResult`
//!   (`toolCallId`, `toolName`, `isError`, content) paired with its call by id, and
//!   `bashExecution` (a command the user ran). Other roles are system entries.
//! - `compaction` is a compaction summary, `branch_summary` a summary of an abandoned branch,
//!   `custom_message` a message extensions put in the context (`display: false`: metadata).
//! - `model_change`, `thinking_level_change`, `custom`, `label`, `session_info` are metadata
//!   (a `session_info` name is the session's title, as a custom title; a label names its target);
//!   `model_change` sets the model of the assistant messages that do not name theirs. A
//!   metadata entry stays in the tree as a link: entries below it hang from its parent.
//!
//! The tool calls of a response that was aborted (or ended in an error) never ran: each gets a
//! result in the same entry, interrupted (or an error).
//!
//! Cost: the cost Pi recorded when it is positive, else the price table's (Pi records 0 for
//! models it has no price for).

use rustc_hash::FxHashMap;
use serde::Deserialize;
use serde_json::value::RawValue;

use crate::import::common::*;
use crate::import::{LineOutcome, Sink};
use crate::json::{LBool, LList, LNum, LStr};
use crate::model::*;
use crate::span::{Span, Sym};

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
    arguments: Option<&'a RawValue>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct PiUsage {
    input: LNum,
    output: LNum,
    #[serde(rename = "cacheRead")]
    cache_read: LNum,
    #[serde(rename = "cacheWrite")]
    cache_write: LNum,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct CostObject {
    total: LNum,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Message<'a> {
    #[serde(borrow)]
    role: LStr<'a>,
    #[serde(borrow)]
    content: Option<&'a RawValue>,
    #[serde(borrow)]
    model: LStr<'a>,
    #[serde(borrow)]
    usage: Option<&'a RawValue>,
    #[serde(rename = "stopReason", borrow)]
    stop_reason: LStr<'a>,
    #[serde(rename = "errorMessage", borrow)]
    error_message: Option<&'a RawValue>,
    #[serde(rename = "toolCallId", borrow)]
    tool_call_id: LStr<'a>,
    #[serde(rename = "toolName", borrow)]
    tool_name: LStr<'a>,
    #[serde(rename = "isError")]
    is_error: LBool,
    // bashExecution
    #[serde(borrow)]
    command: Option<&'a RawValue>,
    #[serde(borrow)]
    output: Option<&'a RawValue>,
    #[serde(rename = "exitCode")]
    exit_code: LNum,
    cancelled: LBool,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Head<'a> {
    #[serde(rename = "type", borrow)]
    ty: LStr<'a>,
    #[serde(borrow)]
    id: LStr<'a>,
    #[serde(rename = "parentId", borrow)]
    parent_id: Option<&'a RawValue>,
    #[serde(borrow)]
    timestamp: LStr<'a>,
    #[serde(borrow)]
    cwd: LStr<'a>,
    #[serde(borrow)]
    version: Option<&'a RawValue>,
    #[serde(rename = "modelId", borrow)]
    model_id: LStr<'a>,
    #[serde(borrow)]
    message: Option<&'a RawValue>,
    #[serde(borrow)]
    content: Option<&'a RawValue>,
    #[serde(borrow)]
    summary: Option<&'a RawValue>,
    #[serde(rename = "customType", borrow)]
    custom_type: LStr<'a>,
    display: LBool,
    // session_info, label
    #[serde(borrow)]
    name: LStr<'a>,
    #[serde(borrow)]
    label: LStr<'a>,
    #[serde(rename = "targetId", borrow)]
    target_id: LStr<'a>,
}

/// The session a file is, so far.
#[derive(Clone)]
pub(crate) struct State {
    chain: Chain,
    /// The session id as read from the header, the prefix of entry uuids.
    session_id: String,
    /// Ids of metadata entries: the uuid of the entry their children hang from (empty: a root).
    links: FxHashMap<String, String>,
}

impl State {
    pub(crate) fn new(sink: &Sink, file: FileId) -> State {
        State { chain: Chain::new(sink, file), session_id: String::new(), links: FxHashMap::default() }
    }

    /// The uuid of the entry a `parentId` names, metadata entries skipped.
    fn resolve(&self, parent: &str) -> String {
        if let Some(link) = self.links.get(parent) {
            return link.clone();
        }
        self.uuid(parent)
    }

    fn uuid(&self, id: &str) -> String {
        let prefix = if self.session_id.is_empty() { &self.chain.prefix } else { &self.session_id };
        format!("{prefix}:{id}")
    }

    /// Where the entry of `head` hangs: `Some(uuid)` (empty: a root) for tree entries, `None` for
    /// entries without `parentId` (legacy), which follow the last one.
    fn parent_of(&self, head: &Head) -> Option<String> {
        let raw = head.parent_id?;
        let parent = raw_text(Some(raw));
        Some(if parent.is_empty() { String::new() } else { self.resolve(&parent) })
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
    let timestamp = time(&head.timestamp);
    let message: Message = match head.message {
        Some(raw) if ty == "message" => serde_json::from_str(raw.get()).unwrap_or_default(),
        _ => Message::default(),
    };
    let counted = match message.role.as_deref() {
        Some(role) if ty == "message" => intern(sink, &format!("message:{role}")),
        _ => intern(sink, if ty.is_empty() { "(untyped)" } else { ty }),
    };
    sink.count_type(counted);
    let type_sym = intern(sink, if ty.is_empty() { "(untyped)" } else { ty });
    let line = Line { file, line_no, span, type_name: type_sym, timestamp, at };

    match ty {
        "session" => {
            if let Some(id) = head.id.as_deref().filter(|id| !id.is_empty())
                && state.chain.entries == 0
            {
                state.session_id = id.to_owned();
                let session = intern(sink, id);
                state.chain.set_session(sink, session);
            }
            if let Some(cwd) = head.cwd.as_deref().filter(|c| !c.is_empty()) {
                state.chain.envelope.cwd = intern(sink, cwd);
            }
            if let Some(version) = head.version_text() {
                state.chain.envelope.version = intern(sink, &version);
            }
            if let Some(model) = head.model_id.as_deref().filter(|m| !m.is_empty()) {
                state.chain.model = intern(sink, model);
            }
            line.push_meta(sink, state.chain.session);
            LineOutcome::Metadata
        }
        "message" => match message.role.as_deref().unwrap_or("") {
            "user" => {
                let mut entry = line.entry(sink, EntryKind::User);
                content(sink, &line, &mut entry, message.content);
                push(sink, bytes, &line, &head, entry, state)
            }
            "assistant" => assistant(sink, bytes, &line, &head, &message, state),
            "toolResult" => {
                let mut entry = line.entry(sink, EntryKind::User);
                entry.subtype = intern(sink, "toolResult");
                let id = str_span(sink, &at, &message.tool_call_id);
                let name = intern_l(sink, &message.tool_name);
                let block = push_block(sink, &mut entry, BlockKind::ToolResult, name, id, at.raw_span(message.content));
                if message.is_error.is_true() {
                    mark_error(sink, &mut entry, block);
                }
                push(sink, bytes, &line, &head, entry, state)
            }
            "bashExecution" => {
                // A command the user ran in the prompt (`!cmd`): a call and its output.
                let mut entry = line.entry(sink, EntryKind::User);
                entry.subtype = intern(sink, "bashExecution");
                let synth = state.chain.id(line_no, "");
                let id = arena_str(&mut sink.corpus.arena, &synth);
                let name = intern(sink, "bash");
                let command = command_input(sink, message.command);
                push_block(sink, &mut entry, BlockKind::ToolUse, name, id, command);
                let block = push_block(sink, &mut entry, BlockKind::ToolResult, name, id, at.raw_span(message.output));
                if message.exit_code.0.is_some_and(|c| c != 0.0) || message.cancelled.is_true() {
                    mark_error(sink, &mut entry, block);
                }
                push(sink, bytes, &line, &head, entry, state)
            }
            role => {
                let mut entry = line.entry(sink, EntryKind::System);
                entry.subtype = intern(sink, if role.is_empty() { "(no role)" } else { role });
                entry.flags.set(EntryFlags::META, true);
                content(sink, &line, &mut entry, message.content);
                push(sink, bytes, &line, &head, entry, state)
            }
        },
        "compaction" | "branch_summary" => {
            let mut entry = line.entry(sink, EntryKind::User);
            entry.subtype = type_sym;
            entry.flags.set(EntryFlags::COMPACT_SUMMARY, ty == "compaction");
            entry.flags.set(EntryFlags::META, true);
            entry.content = at.raw_span(head.summary);
            entry.flags.set(EntryFlags::STRING_CONTENT, is_string(head.summary));
            push(sink, bytes, &line, &head, entry, state)
        }
        "custom_message" if head.display.0 != Some(false) => {
            let mut entry = line.entry(sink, EntryKind::User);
            entry.subtype = intern_l(sink, &head.custom_type);
            entry.flags.set(EntryFlags::META, true);
            content(sink, &line, &mut entry, head.content);
            push(sink, bytes, &line, &head, entry, state)
        }
        _ => {
            if ty == "model_change"
                && let Some(model) = head.model_id.as_deref().filter(|m| !m.is_empty())
            {
                state.chain.model = intern(sink, model);
            }
            // A session_info's name is the session's title, as a Claude Code custom title is.
            let meta = match ty {
                "custom_message" => intern(sink, "custom_message:hidden"),
                "session_info" if head.name.as_deref().is_some_and(|n| !n.trim().is_empty()) => {
                    intern(sink, "custom-title")
                }
                _ => counted,
            };
            Line { type_name: meta, ..line }.push_meta(sink, state.chain.session);
            if let Some(last) = sink.corpus.metas.last_mut() {
                match ty {
                    "session_info" => last.text = at.str_span(&mut sink.corpus.arena, &head.name),
                    "label" => {
                        last.text = at.str_span(&mut sink.corpus.arena, &head.label);
                        if let Some(target) = head.target_id.as_deref().filter(|t| !t.is_empty()) {
                            let uuid = state.resolve(target);
                            last.target_uuid = arena_str(&mut sink.corpus.arena, &uuid);
                        }
                    }
                    _ => {}
                }
            }
            // Entries below this one hang from its parent.
            if let Some(id) = head.id.as_deref().filter(|id| !id.is_empty()) {
                let parent = state.parent_of(&head).unwrap_or_else(|| state.chain.last.clone());
                state.links.insert(id.to_owned(), parent);
            }
            LineOutcome::Metadata
        }
    }
}

impl Head<'_> {
    /// `session v3`, from the header's `version`.
    fn version_text(&self) -> Option<String> {
        let raw = self.version?.get();
        (raw != "null").then(|| format!("session v{}", raw.trim_matches('"')))
    }
}

/// The content of a message: a string, or blocks `text`, `thinking`, `image`, `toolCall`.
/// Gives the id spans of the tool calls.
fn content(sink: &mut Sink, line: &Line, entry: &mut Entry, raw: Option<&RawValue>) -> Vec<Span> {
    let mut calls = Vec::new();
    let Some(raw) = raw else { return calls };
    if is_string(Some(raw)) {
        entry.content = line.at.raw_span(Some(raw));
        entry.flags.set(EntryFlags::STRING_CONTENT, true);
        return calls;
    }
    let Ok(blocks) = serde_json::from_str::<LList<Block>>(raw.get()) else { return calls };
    for block in &blocks.0 {
        match block.ty.as_deref().unwrap_or("") {
            "text" => {
                push_block(sink, entry, BlockKind::Text, Sym::NONE, Span::EMPTY, line.at.raw_span(block.text));
            }
            "thinking" => {
                push_block(sink, entry, BlockKind::Thinking, Sym::NONE, Span::EMPTY, line.at.raw_span(block.thinking));
            }
            "image" => {
                push_block(sink, entry, BlockKind::Image, Sym::NONE, Span::EMPTY, Span::EMPTY);
            }
            "toolCall" => {
                let name = intern_l(sink, &block.name);
                let id = if block.id.as_deref().unwrap_or("").is_empty() {
                    let synth = format!("pi-call:{}:{}:{}", line.file, entry.line, entry.blocks_len);
                    arena_str(&mut sink.corpus.arena, &synth)
                } else {
                    str_span(sink, &line.at, &block.id)
                };
                push_block(sink, entry, BlockKind::ToolUse, name, id, line.at.raw_span(block.arguments));
                calls.push(id);
            }
            other => {
                let name = intern(sink, if other.is_empty() { "(untyped)" } else { other });
                push_block(sink, entry, BlockKind::Unknown, name, Span::EMPTY, Span::EMPTY);
            }
        }
    }
    calls
}

/// A bash command as a tool input: `{"command": ...}` in the arena.
fn command_input(sink: &mut Sink, command: Option<&RawValue>) -> Span {
    match command {
        Some(raw) if is_string(Some(raw)) => {
            arena_raw(&mut sink.corpus.arena, &format!("{{\"command\":{}}}", raw.get()))
        }
        _ => Span::EMPTY,
    }
}

fn assistant(
    sink: &mut Sink,
    bytes: &[Vec<u8>],
    line: &Line,
    head: &Head,
    message: &Message,
    state: &mut State,
) -> LineOutcome {
    let mut entry = line.entry(sink, EntryKind::Assistant);
    let calls = content(sink, line, &mut entry, message.content);
    entry.model = match message.model.as_deref().filter(|m| !m.is_empty()) {
        Some(model) => intern(sink, model),
        None => state.chain.model,
    };
    match message.stop_reason.as_deref() {
        Some("aborted") => entry.flags.set(EntryFlags::INTERRUPTED, true),
        Some("error") => {
            entry.flags.set(EntryFlags::API_ERROR, true);
            if entry.blocks_len == 0 && entry.content.is_empty() && is_string(message.error_message) {
                entry.content = line.at.raw_span(message.error_message);
                entry.flags.set(EntryFlags::STRING_CONTENT, true);
            }
        }
        _ => {}
    }
    // The calls of a response that was aborted or failed never ran: they end here, interrupted
    // (aborted) or failed (error), so no call is left waiting for a result.
    let ended = match message.stop_reason.as_deref() {
        Some("aborted") => Some("[Request interrupted by user] the response was aborted before the call ran"),
        Some("error") => Some("the response ended in an error before the call ran"),
        _ => None,
    };
    if let Some(text) = ended.filter(|_| !calls.is_empty()) {
        let body = arena_json(&mut sink.corpus.arena, text);
        let had_results = entry.flags.has(EntryFlags::HAS_TOOL_RESULT);
        for id in &calls {
            let block = push_block(sink, &mut entry, BlockKind::ToolResult, Sym::NONE, *id, body);
            if message.stop_reason.as_deref() == Some("error") {
                mark_error(sink, &mut entry, block);
            }
        }
        entry.flags.set(EntryFlags::HAS_TOOL_RESULT, had_results);
    }
    let model = entry.model;
    let outcome = push(sink, bytes, line, head, entry, state);
    if !matches!(outcome, LineOutcome::Entry) {
        return outcome;
    }
    let id = state.chain.last_entry;
    let u: PiUsage = message.usage.and_then(|raw| serde_json::from_str(raw.get()).ok()).unwrap_or_default();
    let has_usage = u.input.0.is_some() || u.output.0.is_some();
    let cost = logged_cost(message.usage);
    if has_usage || cost.is_some() {
        let usage = Usage {
            input_tokens: u.input.as_u64(),
            output_tokens: u.output.as_u64(),
            cache_read_input_tokens: u.cache_read.as_u64(),
            cache_creation_input_tokens: u.cache_write.as_u64(),
            ..Usage::default()
        };
        let mut response = new_response(line.file, id, model, has_usage.then_some(usage));
        response.logged_cost_usd = cost;
        push_response(sink, response);
    }
    outcome
}

/// `usage.cost`: `{total}` or a number; only a positive cost is taken as the log's.
fn logged_cost(usage: Option<&RawValue>) -> Option<f64> {
    #[derive(Deserialize, Default)]
    #[serde(default)]
    struct CostOf {
        cost: Option<Box<RawValue>>,
    }
    let usage = usage?;
    let cost = serde_json::from_str::<CostOf>(usage.get()).ok()?.cost?;
    let value = if cost.get().starts_with('{') {
        serde_json::from_str::<CostObject>(cost.get()).ok()?.total.0
    } else {
        serde_json::from_str::<f64>(cost.get()).ok()
    };
    value.filter(|c| c.is_finite() && *c > 0.0)
}

/// Adds an entry at its place in the tree (or after the last one, for legacy entries).
fn push(
    sink: &mut Sink,
    bytes: &[Vec<u8>],
    line: &Line,
    head: &Head,
    mut entry: Entry,
    state: &mut State,
) -> LineOutcome {
    let id = head.id.as_deref().filter(|id| !id.is_empty());
    let uuid = match id {
        Some(id) => state.uuid(id),
        None => state.chain.id(line.line_no, ""),
    };
    let parent = state.parent_of(head).unwrap_or_else(|| state.chain.last.clone());
    if !parent.is_empty() {
        entry.parent_uuid = arena_str(&mut sink.corpus.arena, &parent);
    }
    match state.chain.push_detached(sink, bytes, entry, &uuid) {
        Ok(entry) => {
            state.chain.last = uuid;
            state.chain.last_entry = entry;
            LineOutcome::Entry
        }
        Err(message) => LineOutcome::Duplicate(message),
    }
}

pub(crate) fn finish(sink: &mut Sink, state: &mut State) -> u32 {
    state.chain.finish(sink);
    state.chain.entries
}
