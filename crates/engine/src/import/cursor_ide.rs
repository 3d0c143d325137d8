//! Cursor IDE chats (Composer and Agent), from the record stream of its global state database
//! (`.../Cursor/User/globalStorage/state.vscdb`, table `cursorDiskKV`; see
//! [`crate::import::records`] for the lines and the query that makes them).
//!
//! - `composerData:<composer id>` is a chat, one session: `name` titles it (as an AI title),
//!   `createdAt`/`lastUpdatedAt` are milliseconds, `fullConversationHeadersOnly [{bubbleId,
//!   type}]` orders its messages. Older chats hold their messages inline, in `conversation`.
//! - `bubbleId:<composer id>:<bubble id>` is a message: `type` 1 a prompt, 2 the assistant's
//!   (`text`, `thinking.text` as thinking, `toolFormerData {name, toolCallId, params, result,
//!   status}` a tool call, answered in a tool-result entry after it: `status` `error` or
//!   `cancelled` is an error), `tokenCount {inputTokens, outputTokens}` its tokens when not zero,
//!   `modelInfo.modelName` the model (a prompt names the model it asks for, which answers it),
//!   `createdAt` an ISO time (or milliseconds). A bubble without a time takes the one before it,
//!   the chat's `createdAt` at first. Cursor records no cost: the price table prices the tokens.
//!
//! Every row is read as it comes (a bad row is a diagnostic at its record number) and kept; the
//! chats are built when the stream ends, their bubbles in the order the chat lists them, then any
//! bubble it does not list, in key order. A chat without a `composerData` row is built from its
//! bubbles alone, in key order.

use rustc_hash::FxHashMap;
use serde::Deserialize;
use serde_json::value::RawValue;

use crate::import::common::*;
use crate::import::records::Kept;
use crate::import::{Failure, LineOutcome, Sink};
use crate::json::{LList, LNum, LStr, lenient, parse_time};
use crate::model::*;
use crate::span::{Locator, Span, Sym};

#[derive(Deserialize, Default)]
#[serde(default)]
struct Record<'a> {
    #[serde(borrow)]
    table: LStr<'a>,
    #[serde(borrow)]
    key: LStr<'a>,
    #[serde(borrow)]
    value: Option<&'a RawValue>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Header<'a> {
    #[serde(rename = "bubbleId", borrow)]
    bubble_id: LStr<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ModelConfig<'a> {
    #[serde(rename = "modelName", borrow)]
    model_name: LStr<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Composer<'a> {
    #[serde(borrow)]
    name: LStr<'a>,
    #[serde(rename = "createdAt")]
    created_at: LNum,
    #[serde(rename = "fullConversationHeadersOnly", borrow)]
    headers: LList<'a, Header<'a>>,
    #[serde(borrow)]
    conversation: LList<'a, Bubble<'a>>,
    #[serde(rename = "modelConfig", borrow, deserialize_with = "lenient")]
    model_config: ModelConfig<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Thinking<'a> {
    #[serde(borrow)]
    text: Option<&'a RawValue>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ToolFormer<'a> {
    #[serde(borrow)]
    name: LStr<'a>,
    #[serde(rename = "toolCallId", borrow)]
    tool_call_id: LStr<'a>,
    #[serde(borrow)]
    status: LStr<'a>,
    #[serde(borrow)]
    params: Option<&'a RawValue>,
    #[serde(rename = "rawArgs", borrow)]
    raw_args: Option<&'a RawValue>,
    #[serde(borrow)]
    result: Option<&'a RawValue>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct TokenCount {
    #[serde(rename = "inputTokens")]
    input_tokens: LNum,
    #[serde(rename = "outputTokens")]
    output_tokens: LNum,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ModelInfo<'a> {
    #[serde(rename = "modelName", borrow)]
    model_name: LStr<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Bubble<'a> {
    #[serde(rename = "type")]
    ty: LNum,
    #[serde(rename = "bubbleId", borrow)]
    bubble_id: LStr<'a>,
    #[serde(borrow)]
    text: Option<&'a RawValue>,
    #[serde(borrow, deserialize_with = "lenient")]
    thinking: Thinking<'a>,
    #[serde(rename = "toolFormerData", borrow, deserialize_with = "lenient")]
    tool: ToolFormer<'a>,
    #[serde(rename = "tokenCount", deserialize_with = "lenient")]
    token_count: TokenCount,
    #[serde(rename = "modelInfo", borrow, deserialize_with = "lenient")]
    model_info: ModelInfo<'a>,
    #[serde(rename = "createdAt", borrow)]
    created_at: Option<&'a RawValue>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ComposerRecord<'a> {
    #[serde(borrow, deserialize_with = "lenient")]
    value: Composer<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct BubbleRecord<'a> {
    #[serde(borrow, deserialize_with = "lenient")]
    value: Bubble<'a>,
}

#[derive(Clone)]
struct BubbleRow {
    bubble: String,
    kept: Kept,
}

/// A chat: its `composerData` row, if the stream has one, and its bubbles in key order.
#[derive(Clone, Default)]
struct Chat {
    id: String,
    composer: Option<Kept>,
    bubbles: Vec<BubbleRow>,
}

/// The rows of the stream so far.
#[derive(Clone)]
pub(crate) struct State {
    chain: Chain,
    chats: Vec<Chat>,
    chat_at: FxHashMap<String, usize>,
    /// The record each key was first read at.
    keys: FxHashMap<String, u32>,
}

impl State {
    pub(crate) fn new(sink: &Sink, file: FileId) -> State {
        State {
            chain: Chain::new(sink, file),
            chats: Vec::new(),
            chat_at: FxHashMap::default(),
            keys: FxHashMap::default(),
        }
    }

    fn chat(&mut self, id: &str) -> &mut Chat {
        let at = *self.chat_at.entry(id.to_owned()).or_insert_with(|| {
            self.chats.push(Chat { id: id.to_owned(), ..Chat::default() });
            self.chats.len() - 1
        });
        &mut self.chats[at]
    }
}

fn failed(kind: DiagnosticKind, message: String) -> LineOutcome {
    LineOutcome::Failed(Failure::new(kind, message))
}

pub(crate) fn import_line(
    sink: &mut Sink,
    bytes: &[Vec<u8>],
    file: FileId,
    line_no: u32,
    text: &str,
    state: &mut State,
) -> LineOutcome {
    let record: Record = match parse_line(text) {
        Ok(record) => record,
        Err(outcome) => return outcome,
    };
    let (_, span) = locate(bytes, file, text);
    let kept = Kept { line_no, span };
    let table = record.table.as_deref().unwrap_or("");
    if table != "cursorDiskKV" {
        return failed(
            DiagnosticKind::UnexpectedLine,
            format!("a row of table \"{table}\": Cursor's record stream has only cursorDiskKV rows"),
        );
    }
    let key = record.key.as_deref().unwrap_or("");
    let (kind, rest) = key.split_once(':').unwrap_or((key, ""));
    let counted = intern(sink, if kind.is_empty() { "(no key)" } else { kind });
    sink.count_type(counted);
    if !record.value.is_some_and(|raw| raw.get().starts_with('{')) {
        return failed(DiagnosticKind::NotAnObject, format!("the value of {key} is not a JSON object"));
    }
    if let Some(&first) = state.keys.get(key) {
        return LineOutcome::Duplicate(format!("{key} was already read at record {first}; the first is kept"));
    }
    match kind {
        "composerData" if !rest.is_empty() => {
            state.keys.insert(key.to_owned(), line_no);
            // Older chats hold their messages inline: the row is then the messages' line.
            let inline = serde_json::from_str::<ComposerRecord>(text).is_ok_and(|r| !r.value.conversation.0.is_empty());
            state.chat(rest).composer = Some(kept);
            if inline { LineOutcome::Entry } else { LineOutcome::Metadata }
        }
        "bubbleId" => {
            let Some((chat, bubble)) = rest.split_once(':').filter(|(c, b)| !c.is_empty() && !b.is_empty()) else {
                return failed(DiagnosticKind::MissingUuid, format!("the key {key} names no chat and bubble"));
            };
            state.keys.insert(key.to_owned(), line_no);
            state.chat(chat).bubbles.push(BubbleRow { bubble: bubble.to_owned(), kept });
            LineOutcome::Entry
        }
        _ => failed(
            DiagnosticKind::UnexpectedLine,
            format!("the key {key} is neither a chat (composerData:<id>) nor a message (bubbleId:<chat>:<id>)"),
        ),
    }
}

/// Builds every chat once the stream has ended. Returns the number of entries made.
pub(crate) fn finish(sink: &mut Sink, bytes: &[Vec<u8>], file: FileId, state: &mut State) -> u32 {
    let file_bytes = bytes.get(file as usize).map(Vec::as_slice).unwrap_or_default();
    let at = Locator { file_bytes };
    let chats = std::mem::take(&mut state.chats);
    for chat in &chats {
        build_chat(sink, bytes, file, at, chat, state);
    }
    state.chats = chats;
    state.chain.finish(sink);
    state.chain.entries
}

/// What the bubbles of one chat share while it is built.
struct ChatContext {
    file: FileId,
    session: Sym,
    type_name: Sym,
    /// The time of the bubble before, for a bubble without its own.
    time: i64,
    /// The model last named, for the answers that do not name theirs.
    model: Sym,
    last: String,
}

fn build_chat(sink: &mut Sink, bytes: &[Vec<u8>], file: FileId, at: Locator, chat: &Chat, state: &mut State) {
    let composer_text = chat.composer.map(|kept| kept.text(at.file_bytes)).unwrap_or("");
    let composer = serde_json::from_str::<ComposerRecord>(composer_text).unwrap_or_default().value;
    let session = intern(sink, &chat.id);
    let mut context = ChatContext {
        file,
        session,
        type_name: intern(sink, "bubble"),
        time: composer.created_at.0.and_then(millis).unwrap_or(i64::MIN),
        model: non_empty(&composer.model_config.model_name).map_or(Sym::NONE, |m| intern(sink, m)),
        last: String::new(),
    };
    if let Some(kept) = chat.composer {
        let kind = if non_empty(&composer.name).is_some() { "ai-title" } else { "composerData" };
        let line = Line {
            file,
            line_no: kept.line_no,
            span: kept.span,
            type_name: intern(sink, kind),
            timestamp: context.time,
            at,
        };
        line.push_meta(sink, session);
        if let Some(meta) = sink.corpus.metas.last_mut() {
            meta.text = at.str_span(&mut sink.corpus.arena, &composer.name);
        }
        for (index, bubble) in composer.conversation.0.iter().enumerate() {
            let id = non_empty(&bubble.bubble_id).map_or_else(|| format!("{}:{index}", chat.id), str::to_owned);
            build_bubble(sink, bytes, at, kept, bubble, &id, &mut context, state);
        }
    }
    // The listed order first, then the bubbles the chat does not list, in key order.
    let position: FxHashMap<&str, usize> = composer
        .headers
        .0
        .iter()
        .enumerate()
        .filter_map(|(i, h)| non_empty(&h.bubble_id).map(|id| (id, i)))
        .rev()
        .collect();
    let mut order: Vec<&BubbleRow> = chat.bubbles.iter().collect();
    order.sort_by_key(|row| position.get(row.bubble.as_str()).copied().unwrap_or(usize::MAX));
    for row in order {
        let bubble = serde_json::from_str::<BubbleRecord>(row.kept.text(at.file_bytes)).unwrap_or_default().value;
        let id = format!("{}:{}", chat.id, row.bubble);
        build_bubble(sink, bytes, at, row.kept, &bubble, &id, &mut context, state);
    }
}

fn non_empty<'s>(s: &'s LStr) -> Option<&'s str> {
    s.as_deref().filter(|s| !s.is_empty())
}

/// A bubble's `createdAt`: an ISO time, or milliseconds.
fn bubble_time(raw: Option<&RawValue>) -> Option<i64> {
    let raw = raw?.get();
    if raw.starts_with('"') {
        return parse_time(&crate::json::decode_value(raw.as_bytes()));
    }
    raw.parse::<f64>().ok().and_then(millis)
}

/// Milliseconds since the epoch, unless they are no date (not after 1970, or past the year
/// 30000, as the importers' time parser and Cline's and Amp's times): a duration between two
/// times then always fits.
fn millis(t: f64) -> Option<i64> {
    (t.is_finite() && t > 0.0 && t < 1e15).then_some(t as i64)
}

/// Whether a raw value holds something to show: not absent, null or an empty string.
fn has_text(raw: Option<&RawValue>) -> bool {
    raw.is_some_and(|raw| !matches!(raw.get(), "\"\"" | "null"))
}

#[allow(clippy::too_many_arguments)]
fn build_bubble(
    sink: &mut Sink,
    bytes: &[Vec<u8>],
    at: Locator,
    kept: Kept,
    bubble: &Bubble,
    uuid: &str,
    context: &mut ChatContext,
    state: &mut State,
) {
    if let Some(time) = bubble_time(bubble.created_at) {
        context.time = time;
    }
    if let Some(model) = non_empty(&bubble.model_info.model_name) {
        context.model = intern(sink, model);
    }
    let user = bubble.ty.0 == Some(1.0);
    let kind = if user { EntryKind::User } else { EntryKind::Assistant };
    let mut entry = new_entry(sink, context.file, kept.line_no, kept.span, kind, context.type_name);
    entry.timestamp_ms = context.time;
    entry.session_id = context.session;
    if has_text(bubble.thinking.text) {
        push_block(sink, &mut entry, BlockKind::Thinking, Sym::NONE, Span::EMPTY, at.raw_span(bubble.thinking.text));
    }
    if has_text(bubble.text) {
        push_block(sink, &mut entry, BlockKind::Text, Sym::NONE, Span::EMPTY, at.raw_span(bubble.text));
    }
    let tool = &bubble.tool;
    let call = non_empty(&tool.name).map(|name| {
        let id = match non_empty(&tool.tool_call_id) {
            Some(_) => str_span(sink, &at, &tool.tool_call_id),
            None => arena_str(&mut sink.corpus.arena, &format!("cursor-call:{uuid}")),
        };
        let name = intern(sink, name);
        let input = if tool.params.is_some() { tool.params } else { tool.raw_args };
        let block = push_block(sink, &mut entry, BlockKind::ToolUse, name, id, at.raw_span(input));
        json_in_string(sink, block, input);
        (name, id)
    });
    if !user {
        entry.model = context.model;
    }
    let Some(anchor) = push(sink, bytes, entry, uuid, context, state) else { return };
    let tokens = &bubble.token_count;
    if !user && (tokens.input_tokens.as_u64() > 0 || tokens.output_tokens.as_u64() > 0) {
        let usage = Usage {
            input_tokens: tokens.input_tokens.as_u64(),
            output_tokens: tokens.output_tokens.as_u64(),
            ..Usage::default()
        };
        push_response(sink, new_response(context.file, anchor, context.model, Some(usage)));
    }
    // A call that ran is answered in an entry of its own, as other agents' results are.
    let Some((name, id)) = call else { return };
    let status = tool.status.as_deref().unwrap_or("");
    let error = matches!(status, "error" | "cancelled");
    if !has_text(tool.result) && !error {
        return;
    }
    let mut result = new_entry(sink, context.file, kept.line_no, kept.span, EntryKind::User, context.type_name);
    result.subtype = intern(sink, "tool-result");
    result.timestamp_ms = context.time;
    result.session_id = context.session;
    let block = push_block(sink, &mut result, BlockKind::ToolResult, name, id, at.raw_span(tool.result));
    json_in_string(sink, block, tool.result);
    if error {
        mark_error(sink, &mut result, block);
    }
    push(sink, bytes, result, &format!("{uuid}/result"), context, state);
}

/// Cursor keeps a call's parameters and result as JSON inside a string: the block says so.
fn json_in_string(sink: &mut Sink, block: u32, raw: Option<&RawValue>) {
    let holds_json = raw.is_some_and(|raw| {
        let text = crate::json::decode_value(raw.get().as_bytes());
        raw.get().starts_with('"') && serde_json::from_str::<serde::de::IgnoredAny>(&text).is_ok()
    });
    if holds_json && let Some(b) = sink.corpus.blocks.get_mut(block as usize) {
        b.flags |= crate::model::Block::JSON_IN_STRING;
    }
}

fn push(
    sink: &mut Sink,
    bytes: &[Vec<u8>],
    mut entry: Entry,
    uuid: &str,
    context: &mut ChatContext,
    state: &mut State,
) -> Option<EntryId> {
    if !context.last.is_empty() {
        entry.parent_uuid = arena_str(&mut sink.corpus.arena, &context.last);
    }
    let id = state.chain.push_detached(sink, bytes, entry, uuid).ok()?;
    context.last = uuid.to_owned();
    Some(id)
}
