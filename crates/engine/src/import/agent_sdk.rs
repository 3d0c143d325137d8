//! Claude Agent SDK messages, as `claude -p --output-format stream-json --verbose` prints them
//! and as an agent orchestrator's sidecar forwards them (seed `003_f398b497511a5de2.txt`).
//!
//! - `system` (`init`: session id, model, tools, cwd; `compact_boundary`; hooks, status),
//!   `assistant` and `user` carry the Claude message shape and are read by the Claude Code
//!   importer, given the uuid (when a line has none), parent and envelope the stream lacks: the
//!   messages form a chain in line order.
//! - Messages with `parent_tool_use_id` belong to the subagent the Task (or Agent) call of that
//!   id spawned: they form an agent conversation (sidechain, agent id = the call id) whose first
//!   message continues the spawning message.
//! - `result` (subtype, `is_error`, `total_cost_usd`, `duration_ms`, `usage`) becomes a system
//!   entry, flagged as an error for `is_error` or `error_*` subtypes. Its cost is the logged cost
//!   of the run: the run's messages then count no computed cost. Its usage is the run's total:
//!   what the messages already reported is subtracted (streamed messages under-report output
//!   tokens), so the session totals equal the result's.
//! - `agent_error` (the sidecar could not start Claude) becomes an error system entry.
//! - The sidecar's own `query` (prompt) and `stop` messages become a prompt and an interrupt.
//! - `stream_event` partial deltas are metadata: the complete message follows them.

use rustc_hash::{FxHashMap, FxHashSet};
use serde::Deserialize;
use serde_json::value::RawValue;

use crate::import::claude_code::{self, Synth, UsageHead};
use crate::import::common::*;
use crate::import::{LineOutcome, Sink};
use crate::json::{LBool, LNum, LStr, lenient};
use crate::model::*;
use crate::span::Sym;

#[derive(Deserialize, Default)]
#[serde(default)]
struct Head<'a> {
    #[serde(rename = "type", borrow)]
    ty: LStr<'a>,
    #[serde(borrow)]
    subtype: LStr<'a>,
    #[serde(borrow)]
    uuid: LStr<'a>,
    #[serde(borrow)]
    session_id: LStr<'a>,
    #[serde(rename = "sessionId", borrow)]
    session_id_camel: LStr<'a>,
    #[serde(borrow)]
    parent_tool_use_id: LStr<'a>,
    is_error: LBool,
    total_cost_usd: LNum,
    cost_usd: LNum,
    duration_ms: LNum,
    #[serde(deserialize_with = "lenient")]
    usage: UsageHead,
    #[serde(borrow)]
    result: Option<&'a RawValue>,
    #[serde(borrow)]
    error: Option<&'a RawValue>,
    #[serde(borrow)]
    errors: Option<&'a RawValue>,
    #[serde(borrow)]
    model: LStr<'a>,
    #[serde(borrow)]
    cwd: LStr<'a>,
    #[serde(borrow)]
    claude_code_version: LStr<'a>,
    #[serde(rename = "permissionMode", borrow)]
    permission_mode: LStr<'a>,
    #[serde(borrow)]
    permission_mode_snake: LStr<'a>,
    #[serde(borrow)]
    prompt: Option<&'a RawValue>,
    #[serde(borrow)]
    timestamp: LStr<'a>,
}

/// What is remembered of a file between lines.
#[derive(Clone)]
pub(crate) struct State {
    chain: Chain,
    /// The last uuid of each subagent's thread, by the id of the call that spawned it.
    agents: FxHashMap<String, String>,
    /// The uuid of the message that holds each tool call, by call id.
    calls: FxHashMap<String, String>,
    /// Responses of the run so far (since the last `result`), for its totals.
    run: Vec<ResponseId>,
    run_seen: FxHashSet<ResponseId>,
}

impl State {
    pub(crate) fn new(sink: &Sink, file: FileId) -> State {
        State {
            chain: Chain::new(sink, file),
            agents: FxHashMap::default(),
            calls: FxHashMap::default(),
            run: Vec::new(),
            run_seen: FxHashSet::default(),
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
    let line = Line { file, line_no, span, type_name: type_sym, timestamp: time(&head.timestamp), at };
    let claude_shaped = matches!(ty, "user" | "assistant" | "system")
        || (ty != "stream_event" && head.uuid.as_deref().is_some_and(|u| !u.is_empty()) && !KNOWN.contains(&ty));
    if !claude_shaped {
        // The Claude Code importer counts the lines it reads.
        sink.count_type(type_sym);
    }
    let session = if head.session_id.is_some() { &head.session_id } else { &head.session_id_camel };
    if ty != "query" {
        let session = intern_l(sink, session);
        state.chain.set_session(sink, session);
    }
    let chain = &mut state.chain;
    if ty == "system" && head.subtype.as_deref() == Some("init") {
        let envelope = &mut chain.envelope;
        let symbols = &mut sink.corpus.symbols;
        let mut set = |slot: &mut Sym, value: &LStr| {
            if let Some(v) = value.as_deref().filter(|v| !v.is_empty()) {
                *slot = symbols.intern(v);
            }
        };
        set(&mut envelope.cwd, &head.cwd);
        set(&mut envelope.version, &head.claude_code_version);
        set(&mut envelope.permission_mode, &head.permission_mode);
        set(&mut envelope.permission_mode, &head.permission_mode_snake);
        set(&mut chain.model, &head.model);
        envelope.entrypoint = symbols.intern("sdk-stream-json");
    }

    match ty {
        "user" | "assistant" | "system" => import_message(sink, bytes, &line, text, &head, state),
        "result" => {
            let mut entry = line.entry(sink, EntryKind::System);
            entry.subtype = intern(sink, head.subtype.as_deref().filter(|s| !s.is_empty()).unwrap_or("result"));
            entry.model = state.chain.model;
            let failed = head.is_error.is_true() || head.subtype.as_deref().is_some_and(|s| s.starts_with("error"));
            if failed {
                entry.flags.set(EntryFlags::ERROR, true);
                let body = if head.result.is_some() { head.result } else { head.errors.or(head.error) };
                entry.content = at.raw_span(body);
                entry.flags.set(EntryFlags::STRING_CONTENT, is_string(body));
            }
            let uuid = head.uuid.as_deref().filter(|u| !u.is_empty()).map(str::to_owned);
            let uuid = uuid.unwrap_or_else(|| state.chain.id(line_no, ""));
            let id = match state.chain.push(sink, bytes, entry, &uuid) {
                Ok(id) => id,
                Err(message) => return LineOutcome::Duplicate(message),
            };
            close_run(sink, file, id, &head, state);
            LineOutcome::Entry
        }
        "agent_error" | "error" => {
            let mut entry = line.entry(sink, EntryKind::System);
            entry.subtype = type_sym;
            entry.flags.set(EntryFlags::ERROR, true);
            let body = if head.error.is_some() { head.error } else { head.result };
            entry.content = at.raw_span(body);
            entry.flags.set(EntryFlags::STRING_CONTENT, is_string(body));
            push_simple(sink, bytes, state, entry, &head, line_no)
        }
        "query" => {
            // The orchestrator's request: its session id is the orchestrator's, not Claude's.
            let mut entry = line.entry(sink, EntryKind::User);
            entry.content = at.raw_span(head.prompt);
            entry.flags.set(EntryFlags::STRING_CONTENT, is_string(head.prompt));
            if state.chain.envelope.cwd.is_none() {
                state.chain.envelope.cwd = intern_l(sink, &head.cwd);
            }
            push_simple(sink, bytes, state, entry, &head, line_no)
        }
        "stop" => {
            let mut entry = line.entry(sink, EntryKind::System);
            entry.subtype = type_sym;
            entry.flags.set(EntryFlags::INTERRUPTED, true);
            push_simple(sink, bytes, state, entry, &head, line_no)
        }
        _ if claude_shaped => {
            // A message type this version does not know, but with a place in the conversation.
            import_message(sink, bytes, &line, text, &head, state)
        }
        _ => {
            if ty != "stream_event" {
                line.push_meta(sink, state.chain.session);
            }
            LineOutcome::Metadata
        }
    }
}

/// The types read here rather than by the Claude Code importer.
const KNOWN: [&str; 5] = ["result", "agent_error", "error", "query", "stop"];

fn push_simple(
    sink: &mut Sink,
    bytes: &[Vec<u8>],
    state: &mut State,
    entry: Entry,
    head: &Head,
    line_no: u32,
) -> LineOutcome {
    let uuid = head.uuid.as_deref().filter(|u| !u.is_empty()).map(str::to_owned);
    let uuid = uuid.unwrap_or_else(|| state.chain.id(line_no, ""));
    match state.chain.push(sink, bytes, entry, &uuid) {
        Ok(_) => LineOutcome::Entry,
        Err(message) => LineOutcome::Duplicate(message),
    }
}

/// A line in the Claude message shape, read by the Claude Code importer with the ids and
/// envelope the stream does not carry.
fn import_message(
    sink: &mut Sink,
    bytes: &[Vec<u8>],
    line: &Line,
    text: &str,
    head: &Head,
    state: &mut State,
) -> LineOutcome {
    let parent_tool = head.parent_tool_use_id.as_deref().filter(|p| !p.is_empty());
    let synth_uuid = state.chain.id(line.line_no, "");
    let boundary = head.ty.as_deref() == Some("system") && head.subtype.as_deref() == Some("compact_boundary");
    let (parent, agent_id) = match parent_tool {
        Some(call) => {
            let parent = match state.agents.get(call) {
                Some(last) => last.clone(),
                None => state.calls.get(call).cloned().unwrap_or_default(),
            };
            (parent, intern(sink, call))
        }
        // A compaction starts a new root whose logical parent is the thread so far.
        None if boundary => (String::new(), Sym::NONE),
        None => (state.chain.last.clone(), Sym::NONE),
    };
    let logical_parent = if boundary { state.chain.last.clone() } else { String::new() };
    let synth = Synth {
        uuid: &synth_uuid,
        parent: &parent,
        logical_parent: &logical_parent,
        session: state.chain.session,
        agent_id,
        sidechain: parent_tool.is_some(),
        envelope: state.chain.envelope,
    };
    let outcome = claude_code::import_line_with(sink, bytes, line.file, line.line_no, text, Some(&synth));
    if !matches!(outcome, LineOutcome::Entry) {
        return outcome;
    }
    let id = EntryId::new(sink.corpus.entries.len() - 1);
    state.chain.entries += 1;
    // snake_case is this format's own spelling, not the mark of an API export; and `session_id`
    // (Claude's) wins over a `sessionId` an orchestrator added.
    let session = state.chain.session;
    let entry = &mut sink.corpus.entries[id.index()];
    entry.flags.set(EntryFlags::SNAKE_CASE, false);
    if head.session_id.is_some() && session.is_some() {
        entry.session_id = session;
    }
    let entry = &sink.corpus.entries[id.index()];
    let file_bytes = bytes.get(line.file as usize).map(Vec::as_slice).unwrap_or_default();
    let uuid = String::from_utf8_lossy(entry.uuid.bytes(file_bytes, &sink.corpus.arena)).into_owned();
    if entry.session_id.is_none() {
        state.chain.unsessioned.push(id);
    }
    if entry.model.is_some() && entry.kind == EntryKind::Assistant {
        state.chain.model = entry.model;
    }
    for block in sink.corpus.blocks_of(entry) {
        if block.kind == BlockKind::ToolUse {
            let call = String::from_utf8_lossy(block.id.bytes(file_bytes, &sink.corpus.arena)).into_owned();
            if !call.is_empty() {
                state.calls.insert(call, uuid.clone());
            }
        }
    }
    if entry.response.is_some() && state.run_seen.insert(entry.response) {
        state.run.push(entry.response);
    }
    match parent_tool {
        Some(call) => {
            state.agents.insert(call.to_owned(), uuid);
        }
        None => {
            state.chain.last = uuid;
            state.chain.last_entry = id;
        }
    }
    LineOutcome::Entry
}

/// A `result` ends a run: its logged cost replaces the computed cost of the run's messages, and
/// its usage (the run's total) adds what the messages did not report.
fn close_run(sink: &mut Sink, file: FileId, result: EntryId, head: &Head, state: &mut State) {
    let run = std::mem::take(&mut state.run);
    state.run_seen.clear();
    let cost = head.total_cost_usd.0.or(head.cost_usd.0).filter(|c| c.is_finite() && *c >= 0.0);
    let mut reported = Usage::default();
    for &r in &run {
        if let Some(response) = sink.corpus.responses.get_mut(r.index()) {
            reported.add(&response.usage);
            if cost.is_some() {
                response.logged_cost_usd = Some(0.0);
            }
        }
    }
    let usage = head.usage.present().then(|| usage_minus(&head.usage.to_usage(), &reported));
    if usage.is_none() && cost.is_none() && head.duration_ms.0.is_none() {
        return;
    }
    let mut response = new_response(file, result, state.chain.model, usage);
    response.logged_cost_usd = cost;
    response.duration_ms = head.duration_ms.0.map(|_| head.duration_ms.as_u64());
    push_response(sink, response);
}

pub(crate) fn finish(sink: &mut Sink, state: &mut State) -> u32 {
    state.chain.finish(sink);
    state.chain.entries
}
