//! Codex SDK thread events (`codex exec --json`, `@openai/codex-sdk`): `thread.started`
//! (session id), `turn.started`, `item.started` / `item.updated` / `item.completed`,
//! `turn.completed` (usage of the turn), `turn.failed`, `error`. The lines of one item make one
//! entry, the latest state winning; an item that is a call and its result at once
//! (`command_execution`, `file_change`, `mcp_tool_call`) makes a call entry when it starts and a
//! result entry when it completes, so tool calls pair up. `todo_list` and `web_search` are a call
//! and its result in one entry. `error` items, `turn.failed` and `error` lines are error system
//! entries. The stream names no prompt and no model: the sidecar's `query` line, when captured,
//! gives both.

use rustc_hash::FxHashMap;
use serde::Deserialize;
use serde_json::value::RawValue;

use crate::import::common::*;
use crate::import::{LineOutcome, Sink};
use crate::json::{LNum, LStr, lenient};
use crate::model::*;
use crate::span::{Span, Sym};

use super::bill;

#[derive(Deserialize, Default)]
#[serde(default)]
struct ErrorHead<'a> {
    #[serde(borrow)]
    message: Option<&'a RawValue>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct EventHead<'a> {
    #[serde(rename = "type", borrow)]
    ty: LStr<'a>,
    #[serde(borrow)]
    thread_id: LStr<'a>,
    #[serde(deserialize_with = "lenient")]
    usage: OpenAiUsage,
    #[serde(borrow, deserialize_with = "lenient")]
    error: ErrorHead<'a>,
    #[serde(borrow)]
    message: Option<&'a RawValue>,
    #[serde(borrow)]
    item: Option<&'a RawValue>,
    // The sidecar's query line.
    #[serde(borrow)]
    prompt: Option<&'a RawValue>,
    #[serde(borrow)]
    cwd: LStr<'a>,
    #[serde(borrow)]
    model: LStr<'a>,
    #[serde(borrow)]
    timestamp: LStr<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ItemHead<'a> {
    #[serde(borrow)]
    id: LStr<'a>,
    #[serde(rename = "type", borrow)]
    ty: LStr<'a>,
    #[serde(borrow)]
    item_type: LStr<'a>,
    #[serde(borrow)]
    text: Option<&'a RawValue>,
    #[serde(borrow)]
    aggregated_output: Option<&'a RawValue>,
    exit_code: LNum,
    #[serde(borrow)]
    status: Option<&'a RawValue>,
    #[serde(borrow)]
    server: LStr<'a>,
    #[serde(borrow)]
    tool: LStr<'a>,
    #[serde(borrow)]
    arguments: Option<&'a RawValue>,
    #[serde(borrow)]
    result: Option<&'a RawValue>,
    #[serde(borrow, deserialize_with = "lenient")]
    error: ErrorHead<'a>,
    #[serde(borrow)]
    message: Option<&'a RawValue>,
}

/// An item seen so far: its entry, and whether its final state is in.
#[derive(Clone)]
struct OpenItem {
    entry: EntryId,
    completed: bool,
}

/// The thread events a file is, so far.
#[derive(Clone)]
pub(crate) struct State {
    chain: Chain,
    /// Items by id (ids restart with each thread).
    items: FxHashMap<String, OpenItem>,
    /// The entry the turn's usage is anchored at: its first assistant entry, else its first.
    turn_assistant: EntryId,
    turn_first: EntryId,
}

impl State {
    pub(crate) fn new(sink: &Sink, file: FileId) -> State {
        State {
            chain: Chain::new(sink, file),
            items: FxHashMap::default(),
            turn_assistant: EntryId::NONE,
            turn_first: EntryId::NONE,
        }
    }

    fn pushed(&mut self, entry: EntryId, kind: EntryKind) {
        if self.turn_first.is_none() {
            self.turn_first = entry;
        }
        if kind == EntryKind::Assistant && self.turn_assistant.is_none() {
            self.turn_assistant = entry;
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
    let head: EventHead = match parse_line(text) {
        Ok(head) => head,
        Err(outcome) => return outcome,
    };
    let (at, span) = locate(bytes, file, text);
    let ty = head.ty.as_deref().unwrap_or("");
    let type_sym = intern(sink, if ty.is_empty() { "(untyped)" } else { ty });
    sink.count_type(type_sym);
    let line = Line { file, line_no, span, type_name: type_sym, timestamp: time(&head.timestamp), at };
    let new = |sink: &mut Sink, kind: EntryKind, subtype: Sym| {
        let mut entry = line.entry(sink, kind);
        entry.subtype = subtype;
        entry
    };
    match ty {
        "thread.started" => {
            let session = intern_l(sink, &head.thread_id);
            state.chain.set_session(sink, session);
            state.items.clear();
            line.push_meta(sink, state.chain.session);
            LineOutcome::Metadata
        }
        "turn.started" => {
            state.turn_assistant = EntryId::NONE;
            state.turn_first = EntryId::NONE;
            line.push_meta(sink, state.chain.session);
            LineOutcome::Metadata
        }
        "turn.completed" => {
            if head.usage.present() {
                let anchor =
                    [state.turn_assistant, state.turn_first, state.chain.last_entry].into_iter().find(|&e| e.is_some());
                if let Some(anchor) = anchor {
                    bill(sink, anchor, state.chain.model, head.usage.to_usage());
                }
            }
            state.turn_assistant = EntryId::NONE;
            state.turn_first = EntryId::NONE;
            line.push_meta(sink, state.chain.session);
            LineOutcome::Metadata
        }
        "turn.failed" | "error" => {
            let mut entry = new(sink, EntryKind::System, type_sym);
            entry.flags.set(EntryFlags::ERROR, true);
            let body = if head.error.message.is_some() { head.error.message } else { head.message };
            entry.content = at.raw_span(body);
            entry.flags.set(EntryFlags::STRING_CONTENT, is_string(body));
            push_event_entry(sink, bytes, state, entry, line_no, "")
        }
        "query" => {
            let mut entry = new(sink, EntryKind::User, Sym::NONE);
            entry.content = at.raw_span(head.prompt);
            entry.flags.set(EntryFlags::STRING_CONTENT, is_string(head.prompt));
            if let Some(model) = head.model.as_deref().filter(|m| !m.is_empty()) {
                state.chain.model = intern(sink, model);
            }
            if state.chain.envelope.cwd.is_none() {
                state.chain.envelope.cwd = intern_l(sink, &head.cwd);
            }
            push_event_entry(sink, bytes, state, entry, line_no, "")
        }
        "item.started" | "item.updated" | "item.completed" => {
            let Some(raw) = head.item else {
                line.push_meta(sink, state.chain.session);
                return LineOutcome::Metadata;
            };
            let item: ItemHead = serde_json::from_str(raw.get()).unwrap_or_default();
            item_event(sink, bytes, &line, ty == "item.completed", raw, &item, state)
        }
        _ => {
            line.push_meta(sink, state.chain.session);
            LineOutcome::Metadata
        }
    }
}

fn push_event_entry(
    sink: &mut Sink,
    bytes: &[Vec<u8>],
    state: &mut State,
    entry: Entry,
    line_no: u32,
    suffix: &str,
) -> LineOutcome {
    let kind = entry.kind;
    let outcome = state.chain.push_line(sink, bytes, entry, line_no, suffix);
    if matches!(outcome, LineOutcome::Entry) {
        let id = state.chain.last_entry;
        state.pushed(id, kind);
    }
    outcome
}

/// An `item.*` line: the item's raw JSON and its head, `completed` for `item.completed`.
fn item_event(
    sink: &mut Sink,
    bytes: &[Vec<u8>],
    line: &Line,
    completed: bool,
    raw: &RawValue,
    item: &ItemHead,
    state: &mut State,
) -> LineOutcome {
    let at = &line.at;
    let kind = item.ty.as_deref().or(item.item_type.as_deref()).unwrap_or("");
    let kind = if kind == "assistant_message" { "agent_message" } else { kind };
    let item_id = item.id.as_deref().unwrap_or("").to_owned();
    let status = raw_text(item.status);
    let done = completed || matches!(status.as_ref(), "completed" | "failed" | "declined");
    let raw_item = at.raw_span(Some(raw));
    let existing = if item_id.is_empty() { None } else { state.items.get(&item_id).map(|i| (i.entry, i.completed)) };
    if let Some((_, true)) = existing {
        // A repeat of an item whose final state is in.
        return LineOutcome::Entry;
    }
    let subtype = intern(sink, if kind.is_empty() { "(untyped)" } else { kind });
    let new = |sink: &mut Sink, kind: EntryKind| {
        let mut entry = line.entry(sink, kind);
        entry.subtype = subtype;
        entry
    };
    let remember = |state: &mut State, entry: EntryId, completed: bool| {
        if !item_id.is_empty() {
            state.items.insert(item_id.clone(), OpenItem { entry, completed });
        }
    };
    match kind {
        "agent_message" | "reasoning" => {
            let block_kind = if kind == "reasoning" { BlockKind::Thinking } else { BlockKind::Text };
            let body = at.raw_span(item.text);
            if let Some((entry, _)) = existing {
                update_block(sink, entry, 0, body);
                remember(state, entry, done);
                return LineOutcome::Entry;
            }
            let mut entry = new(sink, EntryKind::Assistant);
            entry.model = state.chain.model;
            push_block(sink, &mut entry, block_kind, Sym::NONE, Span::EMPTY, body);
            let outcome = push_event_entry(sink, bytes, state, entry, line.line_no, "");
            if matches!(outcome, LineOutcome::Entry) {
                remember(state, state.chain.last_entry, done);
            }
            outcome
        }
        "command_execution" | "file_change" | "mcp_tool_call" => {
            let call = match existing {
                Some((entry, _)) => entry,
                None => {
                    let mut entry = new(sink, EntryKind::Assistant);
                    entry.model = state.chain.model;
                    let uuid = state.chain.id(line.line_no, "");
                    let id = arena_str(&mut sink.corpus.arena, &uuid);
                    entry.uuid = id;
                    let (name, body) = match kind {
                        "mcp_tool_call" => {
                            let name = format!(
                                "mcp__{}__{}",
                                item.server.as_deref().unwrap_or(""),
                                item.tool.as_deref().unwrap_or("")
                            );
                            let body = if item.arguments.is_some() { at.raw_span(item.arguments) } else { raw_item };
                            (intern(sink, &name), body)
                        }
                        _ => (intern(sink, kind), raw_item),
                    };
                    push_block(sink, &mut entry, BlockKind::ToolUse, name, id, body);
                    match state.chain.push(sink, bytes, entry, &uuid) {
                        Ok(call) => {
                            state.pushed(call, EntryKind::Assistant);
                            call
                        }
                        Err(message) => return LineOutcome::Duplicate(message),
                    }
                }
            };
            remember(state, call, done);
            if !done {
                return LineOutcome::Entry;
            }
            // The final state: the result.
            let call_id = sink.corpus.entries[call.index()].uuid;
            let mut entry = new(sink, EntryKind::User);
            entry.tool_use_result = raw_item;
            let (body, failed) = match kind {
                "command_execution" => {
                    let code = item.exit_code.0;
                    (at.raw_span(item.aggregated_output), code.is_some_and(|c| c != 0.0))
                }
                "file_change" => (at.raw_span(item.status), false),
                _ => {
                    let error = item.error.message.is_some();
                    let body = if item.result.is_some() {
                        at.raw_span(item.result)
                    } else if item.error.message.is_some() {
                        at.raw_span(item.error.message)
                    } else {
                        Span::EMPTY
                    };
                    (body, error)
                }
            };
            let block = push_block(sink, &mut entry, BlockKind::ToolResult, Sym::NONE, call_id, body);
            if failed || matches!(status.as_ref(), "failed" | "declined") {
                mark_error(sink, &mut entry, block);
            }
            let suffix = if existing.is_none() { ".result" } else { "" };
            push_event_entry(sink, bytes, state, entry, line.line_no, suffix)
        }
        "todo_list" | "web_search" => {
            if let Some((entry, _)) = existing {
                update_block(sink, entry, 1, raw_item);
                remember(state, entry, done);
                return LineOutcome::Entry;
            }
            let mut entry = new(sink, EntryKind::Assistant);
            entry.model = state.chain.model;
            let uuid = state.chain.id(line.line_no, "");
            let id = arena_str(&mut sink.corpus.arena, &uuid);
            entry.uuid = id;
            let name = intern(sink, kind);
            let (call, result) = if kind == "web_search" {
                (BlockKind::ServerToolUse, BlockKind::ServerToolResult)
            } else {
                (BlockKind::ToolUse, BlockKind::ToolResult)
            };
            push_block(sink, &mut entry, call, name, id, raw_item);
            push_block(sink, &mut entry, result, Sym::NONE, id, raw_item);
            let outcome = match state.chain.push(sink, bytes, entry, &uuid) {
                Ok(e) => {
                    state.pushed(e, EntryKind::Assistant);
                    LineOutcome::Entry
                }
                Err(message) => LineOutcome::Duplicate(message),
            };
            if matches!(outcome, LineOutcome::Entry) {
                remember(state, state.chain.last_entry, done);
            }
            outcome
        }
        "error" => {
            if existing.is_some() {
                return LineOutcome::Entry;
            }
            let mut entry = new(sink, EntryKind::System);
            entry.flags.set(EntryFlags::ERROR, true);
            entry.content = at.raw_span(item.message);
            entry.flags.set(EntryFlags::STRING_CONTENT, is_string(item.message));
            let outcome = push_event_entry(sink, bytes, state, entry, line.line_no, "");
            if matches!(outcome, LineOutcome::Entry) {
                remember(state, state.chain.last_entry, true);
            }
            outcome
        }
        _ => {
            if existing.is_some() {
                return LineOutcome::Entry;
            }
            let entry = new(sink, EntryKind::Other);
            let outcome = push_event_entry(sink, bytes, state, entry, line.line_no, "");
            if matches!(outcome, LineOutcome::Entry) {
                remember(state, state.chain.last_entry, done);
            }
            outcome
        }
    }
}

/// Points block `index` of an entry at the item's latest state.
fn update_block(sink: &mut Sink, entry: EntryId, index: u32, body: Span) {
    let Some(e) = sink.corpus.entries.get(entry.index()) else { return };
    if index >= e.blocks_len {
        return;
    }
    let block = (e.blocks_start + index) as usize;
    if let Some(b) = sink.corpus.blocks.get_mut(block) {
        b.body = body;
    }
}

pub(crate) fn finish(sink: &mut Sink, state: &mut State) -> u32 {
    state.chain.finish(sink);
    state.chain.entries
}
