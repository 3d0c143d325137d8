//! Qwen Code sessions (`~/.qwen/tmp/<project hash>/chats/<sessionId>.jsonl`). Qwen Code is a
//! fork of Gemini CLI whose records are chained like Claude Code's: every line is a record
//! `{uuid, parentUuid, sessionId, timestamp, type, subtype?, cwd, version, gitBranch?}`, appended
//! and never rewritten.
//!
//! - `type` `user` holds `message` (Gemini API Content: `{role, parts}`) typed by the person;
//!   with `subtype` `notification` or `cron` it is a notice of the CLI, and
//!   `mid_turn_user_message` a prompt typed while tools ran.
//! - `assistant`: `message.parts` (text, `thought: true` text, `functionCall {id, name, args}`),
//!   `model`, and `usageMetadata` {promptTokenCount, candidatesTokenCount,
//!   cachedContentTokenCount, thoughtsTokenCount, toolUsePromptTokenCount}: the response's usage.
//! - `tool_result`: `message.parts` of `functionResponse {id, name, response}`, paired with their
//!   call by id; `toolCallResult.status` `error` is an error, `cancelled` an interrupted call.
//! - `system`: `chat_compression` (its `systemPayload.summary` is a compaction summary, an
//!   entry) and the rest metadata: `custom_title` (`systemPayload.customTitle` names the session),
//!   `rewind` (the chain itself already hangs what follows from before the rewound turn),
//!   `slash_command`, `ui_telemetry`, `at_command`, `attribution_snapshot`, ... A metadata record
//!   stays in the tree as a link: records below it hang from its parent.
//!
//! Parts are read as Gemini CLI's ([`crate::import::gemini`]): the fork's one shared piece.
//!
//! Background agents (newer versions) write a transcript of their own,
//! `<project>/subagents/<session id>/agent-<id>.jsonl`, of the same records (`isSidechain: true`,
//! `agentId`, `sessionId` the session that launched it), beside a meta file `agent-<id>.meta.json`
//! (`agentType`, `description`, `parentSessionId`, `toolUseId`: the call that launched it, which
//! links it as a Claude Code agent's meta file does).

use rustc_hash::FxHashMap;
use serde::Deserialize;
use serde_json::value::RawValue;

use crate::import::common::*;
use crate::import::gemini::{content_blocks, usage};
use crate::import::{LineOutcome, Sink};
use crate::json::{LBool, LNum, LStr};
use crate::model::*;
use crate::span::Sym;

#[derive(Deserialize, Default)]
#[serde(default)]
struct Head<'a> {
    #[serde(borrow)]
    uuid: LStr<'a>,
    #[serde(rename = "parentUuid", borrow)]
    parent_uuid: LStr<'a>,
    #[serde(rename = "sessionId", borrow)]
    session_id: LStr<'a>,
    #[serde(borrow)]
    timestamp: LStr<'a>,
    #[serde(rename = "type", borrow)]
    ty: LStr<'a>,
    #[serde(borrow)]
    subtype: LStr<'a>,
    #[serde(borrow)]
    cwd: LStr<'a>,
    #[serde(borrow)]
    version: LStr<'a>,
    #[serde(rename = "gitBranch", borrow)]
    git_branch: LStr<'a>,
    #[serde(borrow)]
    message: Option<&'a RawValue>,
    #[serde(borrow)]
    model: LStr<'a>,
    #[serde(rename = "usageMetadata", borrow)]
    usage_metadata: Option<&'a RawValue>,
    #[serde(rename = "toolCallResult", borrow)]
    tool_call_result: Option<&'a RawValue>,
    #[serde(rename = "systemPayload", borrow)]
    system_payload: Option<&'a RawValue>,
    #[serde(rename = "isSidechain")]
    is_sidechain: LBool,
    /// The background agent a record of its transcript is of.
    #[serde(rename = "agentId", borrow)]
    agent_id: LStr<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Content<'a> {
    #[serde(borrow)]
    parts: Option<&'a RawValue>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct UsageMetadata {
    #[serde(rename = "promptTokenCount")]
    prompt: LNum,
    #[serde(rename = "candidatesTokenCount")]
    candidates: LNum,
    #[serde(rename = "cachedContentTokenCount")]
    cached: LNum,
    #[serde(rename = "thoughtsTokenCount")]
    thoughts: LNum,
    #[serde(rename = "toolUsePromptTokenCount")]
    tool: LNum,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ToolCallResult<'a> {
    #[serde(borrow)]
    status: LStr<'a>,
    #[serde(rename = "callId", borrow)]
    call_id: LStr<'a>,
    #[serde(rename = "resultDisplay", borrow)]
    result_display: Option<&'a RawValue>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Payload<'a> {
    #[serde(borrow)]
    summary: Option<&'a RawValue>,
    #[serde(rename = "customTitle", borrow)]
    custom_title: LStr<'a>,
}

/// The session a file is, so far.
#[derive(Clone)]
pub(crate) struct State {
    chain: Chain,
    /// Uuids of metadata records: the uuid of the entry their children hang from (empty: a root).
    links: FxHashMap<String, String>,
}

impl State {
    pub(crate) fn new(sink: &Sink, file: FileId) -> State {
        State { chain: Chain::new(sink, file), links: FxHashMap::default() }
    }

    /// The uuid of the entry a `parentUuid` names, metadata records skipped.
    fn resolve(&self, parent: &str) -> String {
        match self.links.get(parent) {
            Some(link) => link.clone(),
            None => parent.to_owned(),
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
    let subtype = head.subtype.as_deref().unwrap_or("");
    let counted = if subtype.is_empty() { ty.to_owned() } else { format!("{ty}:{subtype}") };
    let counted = intern(sink, if counted.is_empty() { "(untyped)" } else { &counted });
    sink.count_type(counted);
    let type_name = intern(sink, if ty.is_empty() { "(untyped)" } else { ty });
    let line = Line { file, line_no, span, type_name, timestamp: time(&head.timestamp), at };

    if let Some(session) = head.session_id.as_deref().filter(|s| !s.is_empty()) {
        let session = intern(sink, session);
        if state.chain.session.is_none() {
            state.chain.set_session(sink, session);
        }
    }
    let envelope = &mut state.chain.envelope;
    for (field, value) in [
        (&mut envelope.cwd, &head.cwd),
        (&mut envelope.version, &head.version),
        (&mut envelope.git_branch, &head.git_branch),
    ] {
        if let Some(value) = value.as_deref().filter(|v| !v.is_empty()) {
            *field = sink.corpus.symbols.intern(value);
        }
    }
    let uuid = match head.uuid.as_deref().filter(|u| !u.is_empty()) {
        Some(uuid) => uuid.to_owned(),
        None => state.chain.id(line_no, ""),
    };
    let parts =
        head.message.and_then(|raw| serde_json::from_str::<Content>(raw.get()).ok()).and_then(|content| content.parts);
    let payload: Payload = head.system_payload.and_then(|raw| serde_json::from_str(raw.get()).ok()).unwrap_or_default();

    let mut entry = match ty {
        "user" | "tool_result" => {
            let mut entry = line.entry(sink, EntryKind::User);
            content_blocks(sink, &at, &mut entry, parts, &uuid);
            if !subtype.is_empty() {
                entry.subtype = intern(sink, subtype);
            }
            // The CLI's notices are no prompt.
            entry.flags.set(EntryFlags::META, matches!(subtype, "notification" | "cron"));
            if ty == "tool_result" {
                entry.subtype = intern(sink, "tool_result");
                let result: ToolCallResult =
                    head.tool_call_result.and_then(|raw| serde_json::from_str(raw.get()).ok()).unwrap_or_default();
                let first = entry.blocks_start as usize;
                let mut results: Vec<u32> = (first..first + entry.blocks_len as usize)
                    .filter(|&b| sink.corpus.blocks[b].kind == BlockKind::ToolResult)
                    .map(|b| b as u32)
                    .collect();
                // No function response in the message: the result the UI kept stands for it.
                if results.is_empty() && result.call_id.as_deref().is_some_and(|id| !id.is_empty()) {
                    let id = str_span(sink, &at, &result.call_id);
                    let body = at.raw_span(result.result_display);
                    results.push(push_block(sink, &mut entry, BlockKind::ToolResult, Sym::NONE, id, body));
                }
                match result.status.as_deref() {
                    Some("error") => results.iter().for_each(|&b| mark_error(sink, &mut entry, b)),
                    Some("cancelled") => {
                        entry.flags.set(EntryFlags::INTERRUPTED, true);
                        entry.tool_use_result = arena_raw(&mut sink.corpus.arena, "{\"interrupted\":true}");
                    }
                    _ => {}
                }
            }
            entry
        }
        "assistant" => {
            let mut entry = line.entry(sink, EntryKind::Assistant);
            content_blocks(sink, &at, &mut entry, parts, &uuid);
            if let Some(model) = head.model.as_deref().filter(|m| !m.is_empty()) {
                state.chain.model = intern(sink, model);
            }
            entry.model = state.chain.model;
            entry
        }
        "system" if subtype == "chat_compression" => {
            let mut entry = line.entry(sink, EntryKind::User);
            entry.subtype = intern(sink, subtype);
            entry.flags.set(EntryFlags::COMPACT_SUMMARY, true);
            entry.flags.set(EntryFlags::META, true);
            entry.content = at.raw_span(payload.summary);
            entry.flags.set(EntryFlags::STRING_CONTENT, is_string(payload.summary));
            entry
        }
        _ => {
            // Metadata; a custom title names the session, as a Claude Code one does.
            let title =
                subtype == "custom_title" && payload.custom_title.as_deref().is_some_and(|t| !t.trim().is_empty());
            let meta = if title { intern(sink, "custom-title") } else { counted };
            Line { type_name: meta, ..line }.push_meta(sink, state.chain.session);
            if title && let Some(last) = sink.corpus.metas.last_mut() {
                last.text = at.str_span(&mut sink.corpus.arena, &payload.custom_title);
            }
            let parent = head.parent_uuid.as_deref().filter(|p| !p.is_empty()).map(|p| state.resolve(p));
            state.links.insert(uuid, parent.unwrap_or_default());
            return LineOutcome::Metadata;
        }
    };
    entry.flags.set(EntryFlags::SIDECHAIN, head.is_sidechain.is_true());
    if head.is_sidechain.is_true()
        && let Some(agent) = head.agent_id.as_deref().filter(|a| !a.is_empty())
    {
        entry.agent_id = intern(sink, agent);
    }
    if let Some(parent) = head.parent_uuid.as_deref().filter(|p| !p.is_empty()) {
        let parent = state.resolve(parent);
        entry.parent_uuid = arena_str(&mut sink.corpus.arena, &parent);
    }
    let model = entry.model;
    match state.chain.push_detached(sink, bytes, entry, &uuid) {
        Ok(id) => {
            state.chain.last = uuid;
            state.chain.last_entry = id;
            if ty == "assistant"
                && let Some(raw) = head.usage_metadata.filter(|raw| raw.get().starts_with('{'))
            {
                let u: UsageMetadata = serde_json::from_str(raw.get()).unwrap_or_default();
                let usage = usage(u.prompt, u.cached, u.tool, u.candidates, u.thoughts);
                push_response(sink, new_response(file, id, model, Some(usage)));
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
