//! GitHub Copilot CLI sessions (`~/.copilot/session-state/<sessionId>/events.jsonl`; older
//! versions wrote `~/.copilot/session-state/<sessionId>.jsonl`, the same events).
//!
//! One event a line: `{type, data, id, timestamp, parentId}`, plus `agentId` on the events of a
//! subagent. `parentId` names the event before it, so the events form a chain; an entry's uuid
//! is its event `id`. The JSON output of `copilot -p` (captured stdout) prints the same events
//! without `id` and `parentId`, and ends with a `result` line that names the session: its
//! entries are chained in file order under uuids made from their lines.
//!
//! - `session.start` (`sessionId`, `copilotVersion`, `context.cwd`/`branch`, `selectedModel`)
//!   and `session.resume` are metadata that name the session and its working directory;
//!   `session.model_change` (`newModel`) sets the model of the messages that do not name theirs;
//!   `session.title_changed` names the session (as an AI title).
//! - `system.message` is a system entry (the system prompt); `user.message` a prompt (`content`,
//!   what the user typed; `transformedContent`, what the model got, stays in the line).
//! - `assistant.message`: `reasoningText` (thinking; `reasoningOpaque` alone is redacted
//!   thinking), `content`, `toolRequests[] {toolCallId, name, arguments}` (tool calls);
//!   `assistant.reasoning` is thinking of its own.
//! - `tool.execution_complete` (`toolCallId`, `success`, `result.content` or `error.message`) is
//!   the result of its call; `success: false` is an error. `tool.user_requested` is a call the
//!   user made. `abort` is an interrupted system entry, where the calls still running end.
//! - Subagents: a `task` call starts one (`subagent.started {toolCallId}`); its events carry
//!   `agentId` (and the deprecated `data.parentToolCallId`, the spawning call). They form an agent
//!   conversation (sidechain) whose first entry hangs from the entry of the spawning call, as the
//!   Agent SDK's subagent messages do.
//! - `session.compaction_complete` with a `summaryContent` is a compaction summary;
//!   `session.error` an error system entry.
//! - Everything else (`assistant.turn_start/turn_end`, `tool.execution_start`, `hook.start/end`,
//!   `subagent.*`, `session.info/warning`, `session.shutdown`, `session.compaction_start`, types
//!   this version does not know) is metadata, counted by type. A metadata event stays in the
//!   chain as a link: entries after it hang from the entry before it.
//!
//! The chain: an entry hangs from the nearest entry its `parentId` leads to when that entry is in
//! its own thread (the main conversation or the same subagent); otherwise, or when the parent is
//! unknown (an excerpt, an older file without `parentId`), from the last entry of its thread, in
//! file order. (The events of a subagent and of the main agent interleave in one chain; this
//! keeps each conversation whole.)
//!
//! Tokens. Each `assistant.message` is one model call, a response with its `outputTokens`. Two
//! sources give the rest:
//! - `assistant.usage` (`inputTokens`, `outputTokens`, `cacheReadTokens`, `cacheWriteTokens`,
//!   `model`), one per call: usually ephemeral (not written to the file) but read when there; it
//!   replaces the usage of the last response of its thread that has none of its own yet (or is a
//!   response of its own). A `session.compaction_complete`'s `compactionTokensUsed` is a call too.
//! - `session.shutdown`'s `modelMetrics` (`usage {inputTokens, outputTokens, cacheReadTokens,
//!   cacheWriteTokens}` per model): the totals of the process that wrote the events since the
//!   previous shutdown. Per model, what the per-call usages above do not already cover is shared
//!   among that model's responses of the segment without per-call usage: each keeps its own
//!   `outputTokens`; the remaining input, cache reads, cache writes and output are split evenly
//!   (the remainder on the last). Session, conversation (main or agent, the models differ) and
//!   model totals are then exact; per-response figures are estimates. A model with no response
//!   to carry its share gets one of its own at the last entry of the main conversation.
//!
//! `inputTokens` counts the cached tokens too (in the real logs it is the sum of the input,
//! cache read and cache write counts of `tokenDetails`), so the uncached input is `inputTokens`
//! less `cacheReadTokens` and `cacheWriteTokens`. No cost is logged (Copilot bills premium
//! requests, not tokens): the price table prices the tokens.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;
use serde::Deserialize;
use serde_json::value::RawValue;

use crate::import::common::*;
use crate::import::{LineOutcome, Sink};
use crate::json::{LBool, LList, LNum, LStr, lenient};
use crate::model::*;
use crate::span::{Span, Sym};

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
    #[serde(rename = "agentId", borrow)]
    agent_id: LStr<'a>,
    #[serde(borrow, deserialize_with = "lenient")]
    data: Data<'a>,
    /// The `result` line that ends the JSON output of `copilot -p` names the session.
    #[serde(rename = "sessionId", borrow)]
    session_id: LStr<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Context<'a> {
    #[serde(borrow)]
    cwd: LStr<'a>,
    #[serde(borrow)]
    branch: LStr<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ToolRequest<'a> {
    #[serde(rename = "toolCallId", borrow)]
    tool_call_id: LStr<'a>,
    #[serde(borrow)]
    name: LStr<'a>,
    #[serde(borrow)]
    arguments: Option<&'a RawValue>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ToolResult<'a> {
    #[serde(borrow)]
    content: Option<&'a RawValue>,
    #[serde(rename = "detailedContent", borrow)]
    detailed_content: Option<&'a RawValue>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ToolError<'a> {
    #[serde(borrow)]
    message: Option<&'a RawValue>,
}

/// Token counts as `assistant.usage`, `compactionTokensUsed` and `modelMetrics.*.usage` give
/// them.
#[derive(Deserialize, Default, Clone, Copy)]
#[serde(default)]
struct CallUsage {
    #[serde(rename = "inputTokens")]
    input: LNum,
    #[serde(rename = "outputTokens")]
    output: LNum,
    #[serde(rename = "cacheReadTokens")]
    cache_read: LNum,
    #[serde(rename = "cacheWriteTokens")]
    cache_write: LNum,
}

impl CallUsage {
    fn present(&self) -> bool {
        self.input.0.is_some() || self.output.0.is_some()
    }

    /// As the model counts it: `inputTokens` includes the cache reads and writes.
    fn to_usage(self) -> Usage {
        let cache_read = self.cache_read.as_u64();
        let cache_write = self.cache_write.as_u64();
        Usage {
            input_tokens: self.input.as_u64().saturating_sub(cache_read).saturating_sub(cache_write),
            output_tokens: self.output.as_u64(),
            cache_read_input_tokens: cache_read,
            cache_creation_input_tokens: cache_write,
            ..Usage::default()
        }
    }
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ModelMetric {
    #[serde(deserialize_with = "lenient")]
    usage: CallUsage,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ModelOf<'a> {
    #[serde(borrow)]
    model: LStr<'a>,
}

/// The fields of `data` this importer reads, over all event types.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Data<'a> {
    // session.start / session.resume
    #[serde(rename = "sessionId", borrow)]
    session_id: LStr<'a>,
    #[serde(rename = "copilotVersion", borrow)]
    copilot_version: LStr<'a>,
    #[serde(rename = "selectedModel", borrow)]
    selected_model: LStr<'a>,
    #[serde(borrow, deserialize_with = "lenient")]
    context: Context<'a>,
    // session.model_change
    #[serde(rename = "newModel", borrow)]
    new_model: LStr<'a>,
    // messages
    #[serde(borrow)]
    content: Option<&'a RawValue>,
    #[serde(borrow)]
    role: LStr<'a>,
    #[serde(borrow)]
    source: LStr<'a>,
    #[serde(borrow)]
    model: LStr<'a>,
    #[serde(rename = "messageId", borrow)]
    message_id: LStr<'a>,
    #[serde(rename = "requestId", borrow)]
    request_id: LStr<'a>,
    #[serde(rename = "toolRequests", borrow)]
    tool_requests: LList<'a, ToolRequest<'a>>,
    #[serde(rename = "reasoningText", borrow)]
    reasoning_text: Option<&'a RawValue>,
    #[serde(rename = "reasoningOpaque", borrow)]
    reasoning_opaque: Option<&'a RawValue>,
    #[serde(rename = "outputTokens")]
    output_tokens: LNum,
    #[serde(rename = "parentToolCallId", borrow)]
    parent_tool_call_id: LStr<'a>,
    // tools
    #[serde(rename = "toolCallId", borrow)]
    tool_call_id: LStr<'a>,
    #[serde(rename = "toolName", borrow)]
    tool_name: LStr<'a>,
    #[serde(borrow)]
    arguments: Option<&'a RawValue>,
    success: LBool,
    #[serde(borrow)]
    result: Option<&'a RawValue>,
    #[serde(borrow)]
    error: Option<&'a RawValue>,
    // assistant.usage
    #[serde(rename = "inputTokens")]
    input_tokens: LNum,
    #[serde(rename = "cacheReadTokens")]
    cache_read_tokens: LNum,
    #[serde(rename = "cacheWriteTokens")]
    cache_write_tokens: LNum,
    // session.shutdown
    #[serde(rename = "modelMetrics", borrow)]
    model_metrics: Option<&'a RawValue>,
    // session.compaction_complete
    #[serde(rename = "summaryContent", borrow)]
    summary_content: Option<&'a RawValue>,
    #[serde(rename = "compactionTokensUsed", borrow)]
    compaction_tokens_used: Option<&'a RawValue>,
    // abort, session.error / info / warning, title
    #[serde(borrow)]
    reason: Option<&'a RawValue>,
    #[serde(borrow)]
    message: Option<&'a RawValue>,
    #[serde(borrow)]
    title: LStr<'a>,
    // hooks, subagents: what the metadata line is about
    #[serde(rename = "hookType", borrow)]
    hook_type: Option<&'a RawValue>,
    #[serde(rename = "agentName", borrow)]
    agent_name: Option<&'a RawValue>,
}

/// A response of the segment since the last shutdown, waiting for its share of the totals.
#[derive(Clone)]
struct Pending {
    response: ResponseId,
    model: Sym,
    /// Its usage came from a per-call report (`assistant.usage`, compaction tokens).
    covered: bool,
}

/// The session a file is, so far.
#[derive(Clone)]
pub(crate) struct State {
    chain: Chain,
    /// Ids of metadata events: the uuid of the nearest entry before them (empty: none).
    links: FxHashMap<String, String>,
    /// Entry uuid -> its thread (the agent id; `Sym::NONE` for the main conversation).
    thread_of: FxHashMap<String, Sym>,
    /// The last entry of each subagent thread.
    agent_last: FxHashMap<Sym, (String, EntryId)>,
    /// The tool call that spawned each subagent.
    agent_call: FxHashMap<Sym, String>,
    /// Tool call id -> (uuid of the entry that made it, tool name).
    calls: FxHashMap<String, (String, Sym)>,
    /// Calls without a result yet, in order, with their thread.
    running: Vec<(String, Sym)>,
    /// Responses since the last shutdown.
    segment: Vec<Pending>,
    /// The last response of each thread that has no per-call usage yet.
    open: FxHashMap<Sym, usize>,
}

impl State {
    pub(crate) fn new(sink: &Sink, file: FileId) -> State {
        State {
            chain: Chain::new(sink, file),
            links: FxHashMap::default(),
            thread_of: FxHashMap::default(),
            agent_last: FxHashMap::default(),
            agent_call: FxHashMap::default(),
            calls: FxHashMap::default(),
            running: Vec::new(),
            segment: Vec::new(),
            open: FxHashMap::default(),
        }
    }

    /// The last entry of a thread (empty: none yet): for a subagent that has none, the entry of
    /// the call that spawned it.
    fn last_of(&self, thread: Sym) -> String {
        if thread.is_none() {
            return self.chain.last.clone();
        }
        if let Some((uuid, _)) = self.agent_last.get(&thread) {
            return uuid.clone();
        }
        self.agent_call
            .get(&thread)
            .and_then(|call| self.calls.get(call))
            .map(|(uuid, _)| uuid.clone())
            .unwrap_or_default()
    }

    fn last_entry_of(&self, thread: Sym) -> EntryId {
        if thread.is_none() {
            return self.chain.last_entry;
        }
        self.agent_last.get(&thread).map(|(_, e)| *e).unwrap_or(EntryId::NONE)
    }

    /// The nearest entry the event's `parentId` leads to, if that event is known (empty: no entry
    /// comes before it).
    fn nearest_entry(&self, head: &Head) -> Option<String> {
        let parent = raw_text(head.parent_id);
        if parent.is_empty() {
            return None;
        }
        if let Some(link) = self.links.get(parent.as_ref()) {
            return Some(link.clone());
        }
        self.thread_of.contains_key(parent.as_ref()).then(|| parent.into_owned())
    }

    /// Where an entry of `thread` hangs (empty: a root).
    fn parent_in(&self, head: &Head, thread: Sym) -> String {
        match self.nearest_entry(head) {
            Some(uuid) if uuid.is_empty() && thread.is_none() => uuid,
            Some(uuid) if !uuid.is_empty() && self.thread_of.get(&uuid) == Some(&thread) => uuid,
            _ => self.last_of(thread),
        }
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
    let type_sym = intern(sink, if ty.is_empty() { "(untyped)" } else { ty });
    sink.count_type(type_sym);
    let line = Line { file, line_no, span, type_name: type_sym, timestamp: time(&head.timestamp), at };
    let data = &head.data;
    let thread = thread_of_event(sink, &head, state);

    match ty {
        "system.message" => {
            let mut entry = line.entry(sink, EntryKind::System);
            entry.subtype = intern(sink, data.role.as_deref().filter(|r| !r.is_empty()).unwrap_or("system"));
            entry.flags.set(EntryFlags::META, true);
            string_content(&line, &mut entry, data.content);
            push(sink, bytes, &line, &head, entry, thread, state)
        }
        "user.message" => {
            let mut entry = line.entry(sink, EntryKind::User);
            if let Some(source) = data.source.as_deref().filter(|s| !s.is_empty()) {
                entry.subtype = intern(sink, source);
            }
            string_content(&line, &mut entry, data.content);
            push(sink, bytes, &line, &head, entry, thread, state)
        }
        "assistant.message" => assistant(sink, bytes, &line, &head, thread, state),
        "assistant.reasoning" => {
            let mut entry = line.entry(sink, EntryKind::Assistant);
            entry.model = state.chain.model;
            push_block(sink, &mut entry, BlockKind::Thinking, Sym::NONE, Span::EMPTY, at.raw_span(data.content));
            push(sink, bytes, &line, &head, entry, thread, state)
        }
        "tool.execution_complete" => {
            let mut entry = line.entry(sink, EntryKind::User);
            let call = data.tool_call_id.as_deref().unwrap_or("");
            let name = state.calls.get(call).map(|(_, name)| *name).unwrap_or(Sym::NONE);
            let id = str_span(sink, &at, &data.tool_call_id);
            let block = push_block(sink, &mut entry, BlockKind::ToolResult, name, id, result_body(&line, data));
            // `success: false`, or no `success` but an error instead of a result.
            let no_result = data.result.is_none_or(|r| r.get() == "null");
            let error = data.error.is_some_and(|e| e.get() != "null");
            if data.success.0 == Some(false) || (data.success.0.is_none() && error && no_result) {
                mark_error(sink, &mut entry, block);
            }
            state.running.retain(|(c, _)| c != call);
            push(sink, bytes, &line, &head, entry, thread, state)
        }
        "tool.user_requested" => {
            // A tool the user ran: its call; `tool.execution_complete` brings the result.
            let mut entry = line.entry(sink, EntryKind::User);
            entry.subtype = type_sym;
            let name = intern_l(sink, &data.tool_name);
            let (id, call) = call_id(sink, &line, &data.tool_call_id, 0);
            push_block(sink, &mut entry, BlockKind::ToolUse, name, id, at.raw_span(data.arguments));
            let outcome = push(sink, bytes, &line, &head, entry, thread, state);
            if matches!(outcome, LineOutcome::Entry) {
                let uuid = state.last_of(thread);
                state.calls.insert(call.clone(), (uuid, name));
                state.running.push((call, thread));
            }
            outcome
        }
        "abort" => abort(sink, bytes, &line, &head, thread, state),
        "session.error" => {
            let mut entry = line.entry(sink, EntryKind::System);
            entry.subtype = type_sym;
            entry.flags.set(EntryFlags::ERROR, true);
            string_content(&line, &mut entry, data.message);
            push(sink, bytes, &line, &head, entry, thread, state)
        }
        "session.compaction_complete" => compaction(sink, bytes, &line, &head, thread, state),
        _ => {
            metadata(sink, &line, &head, thread, state);
            LineOutcome::Metadata
        }
    }
}

/// The thread an event belongs to: its `agentId` (or the call of its `parentToolCallId`), or
/// the main conversation. A subagent's spawning call is remembered.
fn thread_of_event(sink: &mut Sink, head: &Head, state: &mut State) -> Sym {
    let data = &head.data;
    let agent = head.agent_id.as_deref().filter(|a| !a.is_empty());
    let parent_call = data.parent_tool_call_id.as_deref().filter(|c| !c.is_empty());
    let Some(agent) = agent.or(parent_call) else { return Sym::NONE };
    let sym = intern(sink, agent);
    // `subagent.started` names the call; else the deprecated `parentToolCallId` does; else the
    // agent id is the call id (as in Copilot CLI 1.0).
    let started = head.ty.as_deref() == Some("subagent.started");
    state.agent_call.entry(sym).or_insert_with(|| {
        let call = match data.tool_call_id.as_deref().filter(|c| !c.is_empty()) {
            Some(call) if started => call,
            _ => parent_call.unwrap_or(agent),
        };
        call.to_owned()
    });
    sym
}

/// A string `content` (or message) as the entry's text.
fn string_content(line: &Line, entry: &mut Entry, raw: Option<&RawValue>) {
    if is_string(raw) {
        entry.content = line.at.raw_span(raw);
        entry.flags.set(EntryFlags::STRING_CONTENT, true);
    }
}

/// A tool call's id (its span and text), or one made up from the line when it has none.
fn call_id(sink: &mut Sink, line: &Line, id: &LStr, index: usize) -> (Span, String) {
    match id.as_deref().filter(|id| !id.is_empty()) {
        Some(text) => (str_span(sink, &line.at, id), text.to_owned()),
        None => {
            let synth = format!("copilot-call:{}:{}:{index}", line.file, line.line_no);
            (arena_str(&mut sink.corpus.arena, &synth), synth)
        }
    }
}

/// What a tool result says: `result.content` (else `detailedContent`, else the result itself
/// when it is a string), or the error's message.
fn result_body(line: &Line, data: &Data) -> Span {
    let result = data.result.filter(|r| r.get() != "null");
    if let Some(raw) = result {
        if is_string(Some(raw)) {
            return line.at.raw_span(Some(raw));
        }
        let result: ToolResult = serde_json::from_str(raw.get()).unwrap_or_default();
        let body = result.content.filter(|c| is_string(Some(c))).or(result.detailed_content);
        if body.is_some() {
            return line.at.raw_span(body);
        }
    }
    match data.error {
        Some(raw) if is_string(Some(raw)) => line.at.raw_span(Some(raw)),
        Some(raw) => {
            let error: ToolError = serde_json::from_str(raw.get()).unwrap_or_default();
            line.at.raw_span(error.message.or(Some(raw)))
        }
        None => Span::EMPTY,
    }
}

fn assistant(
    sink: &mut Sink,
    bytes: &[Vec<u8>],
    line: &Line,
    head: &Head,
    thread: Sym,
    state: &mut State,
) -> LineOutcome {
    let data = &head.data;
    let at = &line.at;
    let mut entry = line.entry(sink, EntryKind::Assistant);
    entry.model = match data.model.as_deref().filter(|m| !m.is_empty()) {
        Some(model) => intern(sink, model),
        None => state.chain.model,
    };
    if is_string(data.reasoning_text) && raw_text(data.reasoning_text).trim() != "" {
        push_block(sink, &mut entry, BlockKind::Thinking, Sym::NONE, Span::EMPTY, at.raw_span(data.reasoning_text));
    } else if data.reasoning_opaque.is_some_and(|r| r.get() != "null" && r.get() != "\"\"") {
        push_block(sink, &mut entry, BlockKind::RedactedThinking, Sym::NONE, Span::EMPTY, Span::EMPTY);
    }
    if is_string(data.content) && data.content.is_some_and(|c| c.get() != "\"\"") {
        push_block(sink, &mut entry, BlockKind::Text, Sym::NONE, Span::EMPTY, at.raw_span(data.content));
    }
    let mut calls = Vec::new();
    for (i, request) in data.tool_requests.0.iter().enumerate() {
        let name = intern_l(sink, &request.name);
        let (id, call) = call_id(sink, line, &request.tool_call_id, i);
        push_block(sink, &mut entry, BlockKind::ToolUse, name, id, at.raw_span(request.arguments));
        calls.push((call, name));
    }
    let model = entry.model;
    let outcome = push(sink, bytes, line, head, entry, thread, state);
    if !matches!(outcome, LineOutcome::Entry) {
        return outcome;
    }
    let uuid = state.last_of(thread);
    let anchor = state.last_entry_of(thread);
    for (call, name) in calls {
        state.calls.insert(call.clone(), (uuid.clone(), name));
        state.running.push((call, thread));
    }
    // One model call: its output tokens now, the rest from a usage report or the shutdown.
    let output = data.output_tokens;
    let usage = output.0.is_some().then(|| Usage { output_tokens: output.as_u64(), ..Usage::default() });
    let mut response = new_response(line.file, anchor, model, usage);
    response.message_id = str_span(sink, at, &data.message_id);
    response.request_id = str_span(sink, at, &data.request_id);
    let id = push_response(sink, response);
    state.open.insert(thread, state.segment.len());
    state.segment.push(Pending { response: id, model, covered: false });
    outcome
}

/// `abort`: the turn was stopped; calls still running never finish, and end here interrupted.
fn abort(sink: &mut Sink, bytes: &[Vec<u8>], line: &Line, head: &Head, thread: Sym, state: &mut State) -> LineOutcome {
    let mut entry = line.entry(sink, EntryKind::System);
    entry.subtype = line.type_name;
    entry.flags.set(EntryFlags::INTERRUPTED, true);
    string_content(line, &mut entry, head.data.reason);
    // An abort of the main agent stops its subagents too.
    let (ended, running): (Vec<_>, Vec<_>) =
        std::mem::take(&mut state.running).into_iter().partition(|(_, t)| thread.is_none() || *t == thread);
    state.running = running;
    if !ended.is_empty() {
        let body = arena_json(&mut sink.corpus.arena, "[Request interrupted by user] the turn was aborted");
        for (call, _) in &ended {
            let name = state.calls.get(call).map(|(_, name)| *name).unwrap_or(Sym::NONE);
            let id = arena_str(&mut sink.corpus.arena, call);
            push_block(sink, &mut entry, BlockKind::ToolResult, name, id, body);
        }
    }
    push(sink, bytes, line, head, entry, thread, state)
}

/// `session.compaction_complete`: its summary (when it has one) is a compaction summary entry;
/// the tokens of the compaction call are a response of their own.
fn compaction(
    sink: &mut Sink,
    bytes: &[Vec<u8>],
    line: &Line,
    head: &Head,
    thread: Sym,
    state: &mut State,
) -> LineOutcome {
    let data = &head.data;
    let outcome = if is_string(data.summary_content) {
        let mut entry = line.entry(sink, EntryKind::User);
        entry.subtype = line.type_name;
        entry.flags.set(EntryFlags::COMPACT_SUMMARY, true);
        entry.flags.set(EntryFlags::META, true);
        string_content(line, &mut entry, data.summary_content);
        push(sink, bytes, line, head, entry, thread, state)
    } else {
        metadata(sink, line, head, thread, state);
        LineOutcome::Metadata
    };
    let raw = data.compaction_tokens_used.map(RawValue::get).unwrap_or("{}");
    let usage: CallUsage = serde_json::from_str(raw).unwrap_or_default();
    let of: ModelOf = serde_json::from_str(raw).unwrap_or_default();
    let anchor = state.last_entry_of(thread);
    if usage.present() && anchor.is_some() {
        let model = match of.model.as_deref().filter(|m| !m.is_empty()) {
            Some(model) => intern(sink, model),
            None => state.chain.model,
        };
        let id = push_response(sink, new_response(line.file, anchor, model, Some(usage.to_usage())));
        state.segment.push(Pending { response: id, model, covered: true });
    }
    outcome
}

/// A line outside the conversation: recorded as metadata of its type, and kept as a link of the
/// chain. Session facts, model changes, titles, usage reports and shutdown totals are read here.
fn metadata(sink: &mut Sink, line: &Line, head: &Head, thread: Sym, state: &mut State) {
    let data = &head.data;
    let ty = head.ty.as_deref().unwrap_or("");
    let mut meta_type = line.type_name;
    match ty {
        "session.start" | "session.resume" => {
            if let Some(id) = data.session_id.as_deref().filter(|id| !id.is_empty()) {
                let session = intern(sink, id);
                state.chain.set_session(sink, session);
            }
            if let Some(cwd) = data.context.cwd.as_deref().filter(|c| !c.is_empty()) {
                state.chain.envelope.cwd = intern(sink, cwd);
            }
            if let Some(branch) = data.context.branch.as_deref().filter(|b| !b.is_empty()) {
                state.chain.envelope.git_branch = intern(sink, branch);
            }
            if let Some(version) = data.copilot_version.as_deref().filter(|v| !v.is_empty()) {
                state.chain.envelope.version = intern(sink, version);
            }
            if let Some(model) = data.selected_model.as_deref().filter(|m| !m.is_empty()) {
                state.chain.model = intern(sink, model);
            }
        }
        "result" => {
            if let Some(id) = head.session_id.as_deref().filter(|id| !id.is_empty())
                && state.chain.session.is_none()
            {
                let session = intern(sink, id);
                state.chain.set_session(sink, session);
            }
        }
        "session.model_change" => {
            if let Some(model) = data.new_model.as_deref().filter(|m| !m.is_empty()) {
                state.chain.model = intern(sink, model);
            }
        }
        "session.title_changed" if data.title.as_deref().is_some_and(|t| !t.trim().is_empty()) => {
            meta_type = intern(sink, "ai-title");
        }
        "assistant.usage" => call_usage(sink, line, data, thread, state),
        "session.shutdown" => shutdown(sink, line, data, state),
        _ => {}
    }
    Line { type_name: meta_type, ..*line }.push_meta(sink, state.chain.session);
    if let Some(last) = sink.corpus.metas.last_mut() {
        let text = match ty {
            "session.title_changed" => line.at.str_span(&mut sink.corpus.arena, &data.title),
            "session.info" | "session.warning" if is_string(data.message) => line.at.raw_span(data.message),
            "hook.start" | "hook.end" if is_string(data.hook_type) => line.at.raw_span(data.hook_type),
            _ if ty.starts_with("subagent.") && is_string(data.agent_name) => line.at.raw_span(data.agent_name),
            _ => Span::EMPTY,
        };
        last.text = text;
    }
    // Entries after this event hang from the entry before it.
    if let Some(id) = head.id.as_deref().filter(|id| !id.is_empty()) {
        let before = state.nearest_entry(head).unwrap_or_else(|| state.last_of(thread));
        state.links.insert(id.to_owned(), before);
    }
}

/// `assistant.usage`: the usage of one model call, given to the last response of its thread
/// that has none yet (or made a response of its own).
fn call_usage(sink: &mut Sink, line: &Line, data: &Data, thread: Sym, state: &mut State) {
    let reported = CallUsage {
        input: data.input_tokens,
        output: data.output_tokens,
        cache_read: data.cache_read_tokens,
        cache_write: data.cache_write_tokens,
    };
    if !reported.present() {
        return;
    }
    let usage = reported.to_usage();
    let model = data.model.as_deref().filter(|m| !m.is_empty()).map(|m| intern(sink, m));
    if let Some(index) = state.open.remove(&thread)
        && let Some(pending) = state.segment.get_mut(index)
        && let Some(response) = sink.corpus.responses.get_mut(pending.response.index())
    {
        response.usage = usage;
        response.has_usage = true;
        if let Some(model) = model {
            response.model = model;
            pending.model = model;
        }
        pending.covered = true;
        return;
    }
    let anchor = state.last_entry_of(thread);
    if anchor.is_none() {
        return;
    }
    let model = model.unwrap_or(state.chain.model);
    let id = push_response(sink, new_response(line.file, anchor, model, Some(usage)));
    state.segment.push(Pending { response: id, model, covered: true });
}

/// `session.shutdown`: the per-model totals of the segment, shared among its responses (see the
/// module documentation).
fn shutdown(sink: &mut Sink, line: &Line, data: &Data, state: &mut State) {
    let segment = std::mem::take(&mut state.segment);
    state.open.clear();
    let Some(raw) = data.model_metrics else { return };
    let Ok(metrics) = serde_json::from_str::<BTreeMap<String, Box<RawValue>>>(raw.get()) else { return };
    for (name, metric) in metrics {
        let metric: ModelMetric = serde_json::from_str(metric.get()).unwrap_or_default();
        if !metric.usage.present() {
            continue;
        }
        let model = intern(sink, &name);
        let responses = &mut sink.corpus.responses;
        let mut rest = metric.usage.to_usage();
        let mut shared: Vec<ResponseId> = Vec::new();
        for pending in segment.iter().filter(|p| p.model == model) {
            let Some(response) = responses.get(pending.response.index()) else { continue };
            if pending.covered {
                rest = usage_minus(&rest, &response.usage);
            } else {
                rest.output_tokens = rest.output_tokens.saturating_sub(response.usage.output_tokens);
                shared.push(pending.response);
            }
        }
        if rest.is_zero() {
            continue;
        }
        if shared.is_empty() {
            let anchor = state.chain.last_entry;
            if anchor.is_some() {
                push_response(sink, new_response(line.file, anchor, model, Some(rest)));
            }
            continue;
        }
        let n = shared.len() as u64;
        let share = |total: u64, i: u64| total / n + if i + 1 == n { total % n } else { 0 };
        for (i, id) in shared.iter().enumerate() {
            let Some(response) = responses.get_mut(id.index()) else { continue };
            let i = i as u64;
            let u = &mut response.usage;
            u.input_tokens = u.input_tokens.saturating_add(share(rest.input_tokens, i));
            u.output_tokens = u.output_tokens.saturating_add(share(rest.output_tokens, i));
            u.cache_read_input_tokens =
                u.cache_read_input_tokens.saturating_add(share(rest.cache_read_input_tokens, i));
            u.cache_creation_input_tokens =
                u.cache_creation_input_tokens.saturating_add(share(rest.cache_creation_input_tokens, i));
            response.has_usage = true;
        }
    }
}

/// Adds an entry to its thread (see the module documentation for where it hangs).
fn push(
    sink: &mut Sink,
    bytes: &[Vec<u8>],
    line: &Line,
    head: &Head,
    mut entry: Entry,
    thread: Sym,
    state: &mut State,
) -> LineOutcome {
    let uuid = match head.id.as_deref().filter(|id| !id.is_empty()) {
        Some(id) => id.to_owned(),
        None => state.chain.id(line.line_no, ""),
    };
    let parent = state.parent_in(head, thread);
    if !parent.is_empty() {
        entry.parent_uuid = arena_str(&mut sink.corpus.arena, &parent);
    }
    if thread.is_some() {
        entry.agent_id = thread;
        entry.flags.set(EntryFlags::SIDECHAIN, true);
        let call = state.agent_call.get(&thread).cloned().unwrap_or_default();
        entry.parent_tool_use_id = arena_str(&mut sink.corpus.arena, &call);
    }
    match state.chain.push_detached(sink, bytes, entry, &uuid) {
        Ok(id) => {
            state.thread_of.insert(uuid.clone(), thread);
            if thread.is_none() {
                state.chain.last = uuid;
                state.chain.last_entry = id;
            } else {
                state.agent_last.insert(thread, (uuid, id));
            }
            LineOutcome::Entry
        }
        Err(message) => LineOutcome::Duplicate(message),
    }
}

pub(crate) fn finish(sink: &mut Sink, state: &mut State) -> u32 {
    state.chain.finish(sink);
    state.chain.entries
}
