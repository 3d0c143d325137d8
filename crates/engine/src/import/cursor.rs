//! Cursor CLI agent transcripts (`~/.cursor/projects/<project slug>/agent-transcripts/<id>/<id>.jsonl`;
//! older versions wrote `agent-transcripts/<id>.jsonl`), one session a file, named by its id.
//! A subagent's conversation is `agent-transcripts/<id>/subagents/<subagent id>.jsonl`: an agent
//! conversation (sidechain) of session `<id>`, named by its own id.
//!
//! One message a line, Anthropic-style: `{"role": "user"|"assistant", "message": {"content":
//! [...]}}`, or (some versions) `role` and `content` at the top level without `message`. The
//! content is a string or blocks: `text`, `thinking`, `redacted_thinking`, `tool_use {id, name,
//! input}`, `tool_result {tool_use_id, content, is_error}` (in user messages), `image`; any other
//! block is kept as an unknown block of its type. Cursor writes hidden reasoning as a text block
//! that says `[REDACTED]`: it is redacted thinking. Most versions write no tool results at all:
//! their calls stay without one.
//!
//! A person's prompt is wrapped: `<user_query>...</user_query>`, sometimes after a
//! `<timestamp>` and before a `<context>` blob. The text shown is what the tags hold (from the
//! first opening tag to the last closing one: Cursor does not escape them inside); the raw line
//! keeps everything.
//!
//! `{"type": "turn_ended", "status": "success"|"error", "error": "..."}` ends a turn: metadata when
//! it succeeded, else an error system entry (interrupted when the user aborted it). Other lines
//! without a role are metadata of their type.
//!
//! The lines carry no timestamps, ids, model or usage: entries are chained in file order under
//! uuids made from their lines, the session has no start or end time, and without a model or
//! tokens there is no cost. A message that names its `model` or Anthropic `usage` (none seen so
//! far) is read as a response with them.

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::import::common::*;
use crate::import::{LineOutcome, Sink};
use crate::json::{LBool, LList, LNum, LStr};
use crate::model::*;
use crate::span::{Span, Sym};

#[derive(Deserialize, Default)]
#[serde(default)]
struct Head<'a> {
    #[serde(rename = "type", borrow)]
    ty: LStr<'a>,
    #[serde(borrow)]
    role: LStr<'a>,
    #[serde(borrow)]
    message: Option<&'a RawValue>,
    #[serde(borrow)]
    content: Option<&'a RawValue>,
    #[serde(borrow)]
    model: LStr<'a>,
    // turn_ended
    #[serde(borrow)]
    status: LStr<'a>,
    #[serde(borrow)]
    error: Option<&'a RawValue>,
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
    usage: Option<AnthropicUsage>,
}

/// Token counts as the Anthropic API reports them (disjoint input, cache and output counts).
#[derive(Deserialize, Default)]
#[serde(default)]
struct AnthropicUsage {
    input_tokens: LNum,
    output_tokens: LNum,
    cache_creation_input_tokens: LNum,
    cache_read_input_tokens: LNum,
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
    data: Option<&'a RawValue>,
    #[serde(borrow)]
    id: LStr<'a>,
    #[serde(borrow)]
    name: LStr<'a>,
    #[serde(borrow)]
    input: Option<&'a RawValue>,
    #[serde(borrow)]
    tool_use_id: LStr<'a>,
    #[serde(borrow)]
    content: Option<&'a RawValue>,
    is_error: LBool,
}

/// What Cursor writes in place of reasoning it does not keep.
const REDACTED_MARK: &str = "[REDACTED]";
const QUERY_OPEN: &str = "<user_query>";
const QUERY_CLOSE: &str = "</user_query>";

/// The transcript a file is, so far.
#[derive(Clone)]
pub(crate) struct State {
    chain: Chain,
    /// The subagent this file is the conversation of (its id), or `Sym::NONE` for a session's
    /// main transcript.
    agent: Sym,
}

impl State {
    pub(crate) fn new(sink: &mut Sink, file: FileId) -> State {
        let mut chain = Chain::new(sink, file);
        let (session, agent) = match sink.corpus.files.get(file as usize) {
            Some(info) => (info.session_from_path.clone(), subagent_of_path(&info.path).map(str::to_owned)),
            None => (None, None),
        };
        if let Some(session) = session.filter(|s| !s.is_empty()) {
            let session = intern(sink, &session);
            chain.set_session(sink, session);
        }
        let agent = agent.map_or(Sym::NONE, |agent| intern(sink, &agent));
        State { chain, agent }
    }
}

/// The subagent id of a file under a transcript's `subagents/` folder (its name without
/// `.jsonl`), or `None` for any other path.
pub(crate) fn subagent_of_path(path: &str) -> Option<&str> {
    let mut parts = path.rsplit(['/', '\\']).filter(|p| !p.is_empty());
    let name = parts.next()?;
    (parts.next() == Some("subagents") && parts.next().is_some()).then(|| name.strip_suffix(".jsonl").unwrap_or(name))
}

/// Whether a path lies in a Cursor `agent-transcripts` folder.
pub(crate) fn is_transcript_path(path: &str) -> bool {
    path.split(['/', '\\']).any(|p| p == "agent-transcripts")
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
    // `message` is an object, or (rarely) the message's text itself.
    let nested = head.message.filter(|m| m.get().starts_with('{'));
    let message: Message = nested.and_then(|m| serde_json::from_str(m.get()).ok()).unwrap_or_default();
    let role = head.role.as_deref().or(message.role.as_deref()).unwrap_or("");
    let ty = head.ty.as_deref().unwrap_or("");
    let type_name = match (role, ty) {
        ("", "") => "(untyped)",
        ("", ty) => ty,
        (role, _) => role,
    };
    let type_sym = intern(sink, type_name);
    sink.count_type(type_sym);
    let line = Line { file, line_no, span, type_name: type_sym, timestamp: i64::MIN, at };

    if role.is_empty() {
        if ty == "turn_ended" && !matches!(head.status.as_deref(), None | Some("" | "success")) {
            return failed_turn(sink, bytes, &line, &head, state);
        }
        line.push_meta(sink, state.chain.session);
        if let Some(last) = sink.corpus.metas.last_mut() {
            last.text = at.str_span(&mut sink.corpus.arena, &head.status);
        }
        return LineOutcome::Metadata;
    }

    let mut entry = match role {
        "user" => line.entry(sink, EntryKind::User),
        "assistant" => line.entry(sink, EntryKind::Assistant),
        _ => {
            let mut entry = line.entry(sink, EntryKind::System);
            entry.subtype = type_sym;
            entry.flags.set(EntryFlags::META, true);
            entry
        }
    };
    let content = match nested {
        Some(_) => message.content,
        None => head.content.or(head.message),
    };
    read_content(sink, &line, &mut entry, content);
    let mut usage = None;
    if entry.kind == EntryKind::Assistant {
        let model = message.model.as_deref().or(head.model.as_deref()).filter(|m| !m.is_empty());
        if let Some(model) = model {
            state.chain.model = intern(sink, model);
        }
        entry.model = state.chain.model;
        usage = message.usage.as_ref().map(|u| Usage {
            input_tokens: u.input_tokens.as_u64(),
            output_tokens: u.output_tokens.as_u64(),
            cache_creation_input_tokens: u.cache_creation_input_tokens.as_u64(),
            cache_read_input_tokens: u.cache_read_input_tokens.as_u64(),
            ..Usage::default()
        });
    }
    let model = entry.model;
    let outcome = push(sink, bytes, &line, entry, state);
    // Only a message that names its model or tokens is a response: nothing is made up.
    if matches!(outcome, LineOutcome::Entry) && (model.is_some() || usage.is_some()) {
        push_response(sink, new_response(file, state.chain.last_entry, model, usage));
    }
    outcome
}

/// A `turn_ended` line whose turn did not succeed: an error system entry with the error's text,
/// interrupted when the user aborted the turn.
fn failed_turn(sink: &mut Sink, bytes: &[Vec<u8>], line: &Line, head: &Head, state: &mut State) -> LineOutcome {
    let mut entry = line.entry(sink, EntryKind::System);
    entry.subtype = line.type_name;
    let error = raw_text(head.error);
    let aborted = error.to_ascii_lowercase().contains("abort") || head.status.as_deref() == Some("aborted");
    entry.flags.set(if aborted { EntryFlags::INTERRUPTED } else { EntryFlags::API_ERROR }, true);
    if is_string(head.error) {
        entry.content = line.at.raw_span(head.error);
    } else {
        let status = head.status.as_deref().unwrap_or("");
        entry.content = arena_json(&mut sink.corpus.arena, &format!("the turn ended: {status}"));
    }
    entry.flags.set(EntryFlags::STRING_CONTENT, true);
    push(sink, bytes, line, entry, state)
}

/// Adds an entry to the end of the file's conversation, as a subagent's when the file is one.
fn push(sink: &mut Sink, bytes: &[Vec<u8>], line: &Line, mut entry: Entry, state: &mut State) -> LineOutcome {
    if state.agent.is_some() {
        entry.agent_id = state.agent;
        entry.flags.set(EntryFlags::SIDECHAIN, true);
    }
    state.chain.push_line(sink, bytes, entry, line.line_no, "")
}

/// The content of a message: a string, or Anthropic-style blocks. A prompt's text is what its
/// `<user_query>` tags hold.
fn read_content(sink: &mut Sink, line: &Line, entry: &mut Entry, raw: Option<&RawValue>) {
    let Some(raw) = raw.filter(|r| r.get() != "null") else { return };
    let prompt = entry.kind == EntryKind::User;
    if is_string(Some(raw)) {
        entry.content = if prompt { prompt_text(sink, line, raw) } else { line.at.raw_span(Some(raw)) };
        entry.flags.set(EntryFlags::STRING_CONTENT, true);
        return;
    }
    let blocks: LList<Block> = serde_json::from_str(raw.get()).unwrap_or_default();
    for block in &blocks.0 {
        match block.ty.as_deref().unwrap_or("") {
            "text" => match block.text.filter(|t| is_string(Some(t))) {
                Some(text) if !prompt && raw_text(Some(text)).trim() == REDACTED_MARK => {
                    push_block(sink, entry, BlockKind::RedactedThinking, Sym::NONE, Span::EMPTY, Span::EMPTY);
                }
                Some(text) if prompt => {
                    let body = prompt_text(sink, line, text);
                    push_block(sink, entry, BlockKind::Text, Sym::NONE, Span::EMPTY, body);
                }
                text => {
                    push_block(sink, entry, BlockKind::Text, Sym::NONE, Span::EMPTY, line.at.raw_span(text));
                }
            },
            "thinking" => {
                let body = line.at.raw_span(block.thinking);
                push_block(sink, entry, BlockKind::Thinking, Sym::NONE, Span::EMPTY, body);
            }
            "redacted_thinking" | "redacted" => {
                let body = line.at.raw_span(block.data);
                push_block(sink, entry, BlockKind::RedactedThinking, Sym::NONE, Span::EMPTY, body);
            }
            "tool_use" => {
                let name = intern_l(sink, &block.name);
                let id = str_span(sink, &line.at, &block.id);
                push_block(sink, entry, BlockKind::ToolUse, name, id, line.at.raw_span(block.input));
            }
            "tool_result" => {
                let id = str_span(sink, &line.at, &block.tool_use_id);
                let body = line.at.raw_span(block.content);
                let index = push_block(sink, entry, BlockKind::ToolResult, Sym::NONE, id, body);
                if block.is_error.is_true() {
                    mark_error(sink, entry, index);
                }
            }
            "image" => {
                push_block(sink, entry, BlockKind::Image, Sym::NONE, Span::EMPTY, Span::EMPTY);
            }
            other => {
                let name = intern(sink, if other.is_empty() { "(untyped)" } else { other });
                let body = line.at.raw_span(block.text.or(block.content));
                push_block(sink, entry, BlockKind::Unknown, name, Span::EMPTY, body);
            }
        }
    }
}

/// The text of a prompt as shown: what its `<user_query>` tags hold, in the arena, or the text
/// itself (in the file) when it has no such tag.
fn prompt_text(sink: &mut Sink, line: &Line, raw: &RawValue) -> Span {
    let text = raw_text(Some(raw));
    match user_query(&text) {
        Some(query) => arena_json(&mut sink.corpus.arena, query),
        None => line.at.raw_span(Some(raw)),
    }
}

/// What a prompt's `<user_query>` tags hold, from the first opening tag to the last closing one
/// (to the end when it is not closed), without the line breaks around it. `None` without the tag.
pub(crate) fn user_query(text: &str) -> Option<&str> {
    let open = text.find(QUERY_OPEN)? + QUERY_OPEN.len();
    let close = text.rfind(QUERY_CLOSE).filter(|&close| close >= open).unwrap_or(text.len());
    Some(text[open..close].trim_matches(['\n', '\r']))
}

pub(crate) fn finish(sink: &mut Sink, state: &mut State) -> u32 {
    state.chain.finish(sink);
    state.chain.entries
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_query_is_what_its_tags_hold() {
        assert_eq!(user_query("<user_query>\nfix the test\n</user_query>"), Some("fix the test"));
        let wrapped = "<timestamp>Sunday</timestamp>\n<user_query>\nsay <user_query>x</user_query>\n</user_query>\n<context>y</context>";
        assert_eq!(user_query(wrapped), Some("say <user_query>x</user_query>"));
        assert_eq!(user_query("<user_query>cut"), Some("cut"));
        assert_eq!(user_query("plain"), None);
    }

    #[test]
    fn subagent_files_are_named_by_their_folder() {
        assert_eq!(subagent_of_path("p/agent-transcripts/s1/subagents/a1.jsonl"), Some("a1"));
        assert_eq!(subagent_of_path("s1/subagents/a1.jsonl"), Some("a1"));
        assert_eq!(subagent_of_path("subagents/a1.jsonl"), None);
        assert_eq!(subagent_of_path("p/agent-transcripts/s1/s1.jsonl"), None);
        assert!(is_transcript_path("p/agent-transcripts/s1.jsonl"));
        assert!(!is_transcript_path("p/transcripts/s1.jsonl"));
    }
}
