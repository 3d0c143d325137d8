//! OpenCode sessions, from the record stream of its database (`~/.local/share/opencode/opencode.db`,
//! see [`crate::import::records`] for the lines and the queries that make them), or of its older
//! JSON storage (the same records, one per file: [`crate::import::opencode_storage`] makes them
//! into the same stream).
//!
//! - A `session` row is metadata: its `title` names the session (as an AI title), `directory`
//!   is the working directory, `version` OpenCode's. A session with a `parent_id` is a subagent's:
//!   its messages are an agent conversation of the root session (its parent's parent, and so on),
//!   nested under the `task` tool call whose `state.metadata.sessionId` names it, or unlinked when
//!   no call does.
//! - A `message` row (`data.role` `user` or `assistant`) and its `part` rows are one message. A
//!   user message is a prompt: its `text` parts (all `synthetic`: injected, meta), `file` parts as
//!   attachments. An assistant message is one model call per step (`step-start` … `step-finish`):
//!   each step is an assistant entry (`reasoning` parts as thinking, `text`, `tool` calls), and its
//!   finished tool calls (`state.status` `completed`, or `error`: an error result) a tool-result
//!   entry after it. `data.error` is an API error (`MessageAbortedError`: interrupted).
//! - Notes: parts that are no message content are entries of their own (system entries marked
//!   `NOTE`, shown in the conversation, with no tool call), at their part's record: a `patch` (the
//!   files a step changed, and the snapshot it ends at) after its step's results, a `snapshot` (a
//!   checkpoint of the files) before the step it begins or after the one it ends, an `agent` or
//!   `subtask` asked for, a `retry`, a `compaction` asked for, and a `file` attached by reference
//!   (an image in a `data:` URL is shown in its message instead).
//! - Tokens and cost: a `step-finish` part holds its step's `tokens {input, output, reasoning,
//!   cache {read, write}}` and `cost`; the message's own `tokens` are only its last step's (OpenCode
//!   overwrites them at every step, and adds up `cost`), so they count only for a message without
//!   any `step-finish`. Input is the uncached input; reasoning counts as output. The cost OpenCode
//!   recorded is taken when positive, else the price table's (it records 0 for models it has no
//!   price for, or that a subscription pays). The model is `<providerID>/<modelID>`.
//!
//! Every row is read as it comes (a bad row is a diagnostic at its record number) and kept; the
//! conversation is built when the stream ends, once every session, message and part is known. A
//! message row counts as an entry line, and so does each of its parts (its content is in the
//! message's entries). Parts whose message row is missing form a message of their own.

use rustc_hash::{FxHashMap, FxHashSet};
use serde::Deserialize;
use serde_json::value::RawValue;

use crate::import::common::*;
use crate::import::records::Kept;
use crate::import::{Failure, LineOutcome, Sink};
use crate::json::{LBool, LNum, LStr, lenient};
use crate::model::*;
use crate::span::{Locator, Span, Sym};

/// A record line as read first: which row it is and of what.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Record<'a> {
    #[serde(borrow)]
    table: LStr<'a>,
    #[serde(borrow)]
    id: LStr<'a>,
    #[serde(borrow)]
    session_id: LStr<'a>,
    #[serde(borrow)]
    message_id: LStr<'a>,
    #[serde(borrow)]
    parent_id: LStr<'a>,
    #[serde(borrow)]
    title: LStr<'a>,
    #[serde(borrow)]
    directory: LStr<'a>,
    #[serde(borrow)]
    version: LStr<'a>,
    time_created: LNum,
    #[serde(borrow)]
    data: Option<&'a RawValue>,
}

#[derive(Deserialize, Default, Clone, Copy)]
#[serde(default)]
struct Times {
    created: LNum,
    completed: LNum,
    start: LNum,
    end: LNum,
}

#[derive(Deserialize, Default, Clone, Copy)]
#[serde(default)]
struct Cache {
    read: LNum,
    write: LNum,
}

#[derive(Deserialize, Default, Clone, Copy)]
#[serde(default)]
struct Tokens {
    input: LNum,
    output: LNum,
    reasoning: LNum,
    #[serde(deserialize_with = "lenient")]
    cache: Cache,
}

impl Tokens {
    fn present(&self) -> bool {
        self.input.0.is_some() || self.output.0.is_some()
    }

    /// As the model counts them: uncached input, output with reasoning, cache reads and writes.
    fn to_usage(self) -> Usage {
        Usage {
            input_tokens: self.input.as_u64(),
            output_tokens: self.output.as_u64().saturating_add(self.reasoning.as_u64()),
            cache_read_input_tokens: self.cache.read.as_u64(),
            cache_creation_input_tokens: self.cache.write.as_u64(),
            ..Usage::default()
        }
    }
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ModelRef<'a> {
    #[serde(rename = "providerID", borrow)]
    provider_id: LStr<'a>,
    #[serde(rename = "modelID", borrow)]
    model_id: LStr<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct PathInfo<'a> {
    #[serde(borrow)]
    cwd: LStr<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ErrorData<'a> {
    #[serde(borrow)]
    message: Option<&'a RawValue>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ErrorInfo<'a> {
    #[serde(borrow)]
    name: LStr<'a>,
    #[serde(borrow, deserialize_with = "lenient")]
    data: ErrorData<'a>,
}

/// A message row's `data`.
#[derive(Deserialize, Default)]
#[serde(default)]
struct MessageData<'a> {
    #[serde(borrow)]
    role: LStr<'a>,
    #[serde(deserialize_with = "lenient")]
    time: Times,
    #[serde(rename = "modelID", borrow)]
    model_id: LStr<'a>,
    #[serde(rename = "providerID", borrow)]
    provider_id: LStr<'a>,
    /// A user message names the model it asks for here.
    #[serde(borrow, deserialize_with = "lenient")]
    model: ModelRef<'a>,
    #[serde(borrow, deserialize_with = "lenient")]
    path: PathInfo<'a>,
    #[serde(deserialize_with = "lenient")]
    tokens: Tokens,
    cost: LNum,
    #[serde(borrow, deserialize_with = "lenient")]
    error: ErrorInfo<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ToolMetadata<'a> {
    #[serde(rename = "sessionId", borrow)]
    session_id: LStr<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ToolState<'a> {
    #[serde(borrow)]
    status: LStr<'a>,
    #[serde(borrow)]
    input: Option<&'a RawValue>,
    #[serde(borrow)]
    output: Option<&'a RawValue>,
    #[serde(borrow)]
    error: Option<&'a RawValue>,
    #[serde(borrow, deserialize_with = "lenient")]
    metadata: ToolMetadata<'a>,
    #[serde(deserialize_with = "lenient")]
    time: Times,
}

/// A part row's `data`.
#[derive(Deserialize, Default)]
#[serde(default)]
struct PartData<'a> {
    #[serde(rename = "type", borrow)]
    ty: LStr<'a>,
    #[serde(borrow)]
    text: Option<&'a RawValue>,
    synthetic: LBool,
    #[serde(rename = "callID", borrow)]
    call_id: LStr<'a>,
    #[serde(borrow)]
    tool: LStr<'a>,
    #[serde(borrow, deserialize_with = "lenient")]
    state: ToolState<'a>,
    #[serde(deserialize_with = "lenient")]
    tokens: Tokens,
    cost: LNum,
    #[serde(borrow)]
    mime: LStr<'a>,
    #[serde(deserialize_with = "lenient")]
    time: Times,
    /// A file part's `url` (a `data:` URL, or `file://`) and `filename`.
    #[serde(borrow)]
    url: LStr<'a>,
    #[serde(borrow)]
    filename: LStr<'a>,
    /// A patch part: the snapshot it ends at (`hash`) and the files it changed.
    #[serde(borrow)]
    hash: LStr<'a>,
    #[serde(borrow)]
    files: Option<&'a RawValue>,
    /// A snapshot part's snapshot.
    #[serde(borrow)]
    snapshot: LStr<'a>,
    /// An agent part's agent.
    #[serde(borrow)]
    name: LStr<'a>,
    /// A subtask part: the agent it asks for, and what for.
    #[serde(borrow)]
    agent: LStr<'a>,
    #[serde(borrow)]
    description: LStr<'a>,
    /// A retry part: its attempt and the error it follows.
    attempt: LNum,
    #[serde(borrow, deserialize_with = "lenient")]
    error: ErrorInfo<'a>,
    /// A compaction part: whether OpenCode asked for it (the context was full) or the user did.
    auto: LBool,
}

impl PartData<'_> {
    /// When the part began: its own `time.start`, or its tool call's.
    fn started(&self) -> i64 {
        let own = millis(self.time.start);
        if own != i64::MIN { own } else { millis(self.state.time.start) }
    }
}

/// The wrapper of a part line, read again when the stream ends.
#[derive(Deserialize, Default)]
#[serde(default)]
struct PartRecord<'a> {
    #[serde(borrow, deserialize_with = "lenient")]
    data: PartData<'a>,
}

/// The wrapper of a message line, read again when the stream ends.
#[derive(Deserialize, Default)]
#[serde(default)]
struct MessageRecord<'a> {
    #[serde(borrow, deserialize_with = "lenient")]
    data: MessageData<'a>,
}

#[derive(Clone)]
struct SessionRow {
    id: String,
    parent: String,
    kept: Kept,
}

#[derive(Clone)]
struct MessageRow {
    id: String,
    session: String,
    kept: Kept,
}

/// The rows of the stream so far.
#[derive(Clone)]
pub(crate) struct State {
    chain: Chain,
    sessions: Vec<SessionRow>,
    session_at: FxHashMap<String, usize>,
    messages: Vec<MessageRow>,
    message_at: FxHashMap<String, usize>,
    /// Parts by message id, in the order they came, and the message ids in the order of their
    /// first part.
    parts: FxHashMap<String, Vec<Kept>>,
    part_messages: Vec<String>,
    /// The session named by a part row, for parts whose message row is missing.
    part_session: FxHashMap<String, String>,
    part_ids: FxHashMap<String, u32>,
}

impl State {
    pub(crate) fn new(sink: &Sink, file: FileId) -> State {
        State {
            chain: Chain::new(sink, file),
            sessions: Vec::new(),
            session_at: FxHashMap::default(),
            messages: Vec::new(),
            message_at: FxHashMap::default(),
            parts: FxHashMap::default(),
            part_messages: Vec::new(),
            part_session: FxHashMap::default(),
            part_ids: FxHashMap::default(),
        }
    }
}

fn non_empty<'s>(s: &'s LStr) -> Option<&'s str> {
    s.as_deref().filter(|s| !s.is_empty())
}

fn missing(what: &str) -> LineOutcome {
    LineOutcome::Failed(Failure::new(DiagnosticKind::MissingUuid, what.to_owned()))
}

/// `data` must be an object: a row whose JSON did not parse has it as a string.
fn data_is_object(data: Option<&RawValue>) -> bool {
    data.is_some_and(|raw| raw.get().starts_with('{'))
}

fn repeated(what: &str, id: &str, first: u32) -> LineOutcome {
    LineOutcome::Duplicate(format!("{what} {id} was already read at record {first}; the first is kept"))
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
    let counted = intern(sink, if table.is_empty() { "(no table)" } else { table });
    sink.count_type(counted);
    let id = non_empty(&record.id);
    match table {
        "session" => {
            let Some(id) = id else { return missing("a session row without an id") };
            if let Some(&at) = state.session_at.get(id) {
                return repeated("session", id, state.sessions[at].kept.line_no);
            }
            let parent = non_empty(&record.parent_id).unwrap_or("").to_owned();
            state.session_at.insert(id.to_owned(), state.sessions.len());
            state.sessions.push(SessionRow { id: id.to_owned(), parent, kept });
            LineOutcome::Metadata
        }
        "message" => {
            let Some(id) = id else { return missing("a message row without an id") };
            let Some(session) = non_empty(&record.session_id) else {
                return missing("a message row without a session_id");
            };
            if !data_is_object(record.data) {
                return not_an_object("message");
            }
            if let Some(&at) = state.message_at.get(id) {
                return repeated("message", id, state.messages[at].kept.line_no);
            }
            state.message_at.insert(id.to_owned(), state.messages.len());
            state.messages.push(MessageRow { id: id.to_owned(), session: session.to_owned(), kept });
            LineOutcome::Entry
        }
        "part" => {
            let Some(id) = id else { return missing("a part row without an id") };
            let Some(message) = non_empty(&record.message_id) else {
                return missing("a part row without a message_id");
            };
            if !data_is_object(record.data) {
                return not_an_object("part");
            }
            if let Some(&first) = state.part_ids.get(id) {
                return repeated("part", id, first);
            }
            state.part_ids.insert(id.to_owned(), line_no);
            let parts = state.parts.entry(message.to_owned()).or_insert_with(|| {
                state.part_messages.push(message.to_owned());
                Vec::new()
            });
            parts.push(kept);
            if let Some(session) = non_empty(&record.session_id) {
                state.part_session.entry(message.to_owned()).or_insert_with(|| session.to_owned());
            }
            LineOutcome::Entry
        }
        "" => LineOutcome::Failed(Failure::new(
            DiagnosticKind::UnexpectedLine,
            "a record without a \"table\": not a row of OpenCode's database".to_owned(),
        )),
        other => LineOutcome::Failed(Failure::new(
            DiagnosticKind::UnexpectedLine,
            format!("a row of table \"{other}\": OpenCode's record stream has only session, message and part rows"),
        )),
    }
}

fn not_an_object(what: &str) -> LineOutcome {
    LineOutcome::Failed(Failure::new(
        DiagnosticKind::NotAnObject,
        format!("the {what} row's data is not a JSON object"),
    ))
}

/// What every entry of one OpenCode session shares: the session it is shown in (the root of its
/// parents), the agent conversation it is (a child session's id, none for a root), the `task`
/// call that spawned it, and its envelope.
#[derive(Clone, Copy)]
struct Conversation {
    session: Sym,
    agent: Sym,
    spawn_call: Span,
    envelope: Envelope,
}

/// Builds every message once the stream has ended. Returns the number of entries made.
pub(crate) fn finish(sink: &mut Sink, bytes: &[Vec<u8>], file: FileId, state: &mut State) -> u32 {
    let file_bytes = bytes.get(file as usize).map(Vec::as_slice).unwrap_or_default();
    let at = Locator { file_bytes };
    let spawn_calls = task_calls(state, file_bytes);
    let mut conversations: FxHashMap<String, Conversation> = FxHashMap::default();
    for session in &state.sessions {
        let record: Record = serde_json::from_str(session.kept.text(file_bytes)).unwrap_or_default();
        let root = root_of(state, &session.id);
        let root_sym = intern(sink, &root);
        let is_root = root == session.id;
        let mut envelope = Envelope::default();
        if let Some(directory) = non_empty(&record.directory) {
            envelope.cwd = intern(sink, directory);
        }
        if let Some(version) = non_empty(&record.version) {
            envelope.version = intern(sink, version);
        }
        let spawn_call = match spawn_calls.get(session.id.as_str()) {
            Some(call) if !is_root => arena_str(&mut sink.corpus.arena, call),
            _ => Span::EMPTY,
        };
        let agent = if is_root { Sym::NONE } else { intern(sink, &session.id) };
        conversations.insert(session.id.clone(), Conversation { session: root_sym, agent, spawn_call, envelope });
        // A root session's title names it; a subagent's says what its task was, in the metadata.
        let kind = if is_root && non_empty(&record.title).is_some() { "ai-title" } else { "session" };
        let line = Line {
            file,
            line_no: session.kept.line_no,
            span: session.kept.span,
            type_name: intern(sink, kind),
            timestamp: millis(record.time_created),
            at,
        };
        line.push_meta(sink, root_sym);
        if let Some(meta) = sink.corpus.metas.last_mut() {
            meta.text = at.str_span(&mut sink.corpus.arena, &record.title);
        }
    }
    let mut last_of: FxHashMap<String, String> = FxHashMap::default();
    let messages = std::mem::take(&mut state.messages);
    for message in &messages {
        let parts = state.parts.get(&message.id).map(Vec::as_slice).unwrap_or_default();
        let conversation = conversation_of(sink, &mut conversations, &message.session);
        let built = Message { id: &message.id, kept: message.kept, parts, conversation, has_row: true };
        build_message(sink, bytes, file, at, &built, &mut last_of, &mut state.chain);
    }
    // Parts whose message row never came: a message of their own, in their session.
    let orphans: Vec<String> =
        state.part_messages.iter().filter(|m| !state.message_at.contains_key(*m)).cloned().collect();
    for message in orphans {
        let parts = state.parts.get(&message).cloned().unwrap_or_default();
        let Some(first) = parts.first().copied() else { continue };
        let session = state.part_session.get(&message).cloned().unwrap_or_default();
        let conversation = conversation_of(sink, &mut conversations, &session);
        let built = Message { id: &message, kept: first, parts: &parts, conversation, has_row: false };
        build_message(sink, bytes, file, at, &built, &mut last_of, &mut state.chain);
    }
    state.messages = messages;
    state.chain.finish(sink);
    state.chain.entries
}

/// The conversation of a session, a root of its own when no session row names it.
fn conversation_of(
    sink: &mut Sink,
    conversations: &mut FxHashMap<String, Conversation>,
    session: &str,
) -> Conversation {
    if let Some(conversation) = conversations.get(session) {
        return *conversation;
    }
    let conversation = Conversation {
        session: intern(sink, session),
        agent: Sym::NONE,
        spawn_call: Span::EMPTY,
        envelope: Envelope::default(),
    };
    conversations.insert(session.to_owned(), conversation);
    conversation
}

/// The session at the top of `session`'s parents (itself for a root, or when a parent is not in
/// the stream); a cycle of parents ends where it comes back.
fn root_of(state: &State, session: &str) -> String {
    let mut current = session;
    let mut seen: FxHashSet<&str> = FxHashSet::default();
    while seen.insert(current) {
        let Some(&at) = state.session_at.get(current) else { break };
        let parent = state.sessions[at].parent.as_str();
        if parent.is_empty() || !state.session_at.contains_key(parent) {
            break;
        }
        current = parent;
    }
    current.to_owned()
}

/// The `task` calls that created child sessions: child session id → call id, the first call
/// naming a session winning (a resumed task names it again).
fn task_calls(state: &State, file_bytes: &[u8]) -> FxHashMap<String, String> {
    let mut calls = FxHashMap::default();
    for message in &state.part_messages {
        for kept in state.parts.get(message).map(Vec::as_slice).unwrap_or_default() {
            let text = kept.text(file_bytes);
            if !text.contains("\"task\"") {
                continue;
            }
            let part = serde_json::from_str::<PartRecord>(text).unwrap_or_default().data;
            if part.tool.as_deref() != Some("task") {
                continue;
            }
            if let (Some(child), Some(call)) = (non_empty(&part.state.metadata.session_id), non_empty(&part.call_id)) {
                calls.entry(child.to_owned()).or_insert_with(|| call.to_owned());
            }
        }
    }
    calls
}

/// A message to build: its row (or its first part's, when the row is missing) and its parts.
struct Message<'m> {
    id: &'m str,
    kept: Kept,
    parts: &'m [Kept],
    conversation: Conversation,
    /// Whether its message row is in the stream (else only its parts are).
    has_row: bool,
}

/// A time in milliseconds since the epoch, or none (`i64::MIN`) for one that is no date (not
/// after 1970, or past the year 30000), as Cline's and Amp's times: a duration between two
/// times then always fits, and so does a sum of them.
fn millis(n: LNum) -> i64 {
    n.0.filter(|t| t.is_finite() && *t > 0.0 && *t < 1e15).map_or(i64::MIN, |t| t as i64)
}

fn build_message(
    sink: &mut Sink,
    bytes: &[Vec<u8>],
    file: FileId,
    at: Locator,
    message: &Message,
    last_of: &mut FxHashMap<String, String>,
    chain: &mut Chain,
) {
    let text = message.kept.text(at.file_bytes);
    let data = if message.has_row {
        serde_json::from_str::<MessageRecord>(text).unwrap_or_default().data
    } else {
        MessageData::default()
    };
    let parts: Vec<PartData> = message
        .parts
        .iter()
        .map(|kept| serde_json::from_str::<PartRecord>(kept.text(at.file_bytes)).unwrap_or_default().data)
        .collect();
    let mut conversation = message.conversation;
    if let Some(cwd) = non_empty(&data.path.cwd) {
        conversation.envelope.cwd = intern(sink, cwd);
    }
    let builder = Builder { file, kept: message.kept, conversation, type_name: intern(sink, "message") };
    let key = if conversation.agent.is_some() { sink.corpus.sym(conversation.agent).to_owned() } else { String::new() };
    let key = format!("{}|{key}", sink.corpus.sym(conversation.session));
    let created = millis(data.time.created);
    if data.role.as_deref() == Some("user") {
        let mut entry = builder.entry(sink, EntryKind::User, created);
        let mut synthetic = !parts.is_empty();
        for part in parts.iter().filter(|p| !is_note(p)) {
            synthetic &= part.ty.as_deref() != Some("text") || part.synthetic.is_true();
            content_block(sink, at, &mut entry, part);
        }
        entry.flags.set(EntryFlags::META, synthetic);
        builder.push(sink, bytes, entry, message.id, &key, last_of, chain);
        let notes = Notes { builder, parts: &parts, kept: message.parts, key: &key };
        for (p, _) in parts.iter().enumerate().filter(|(_, part)| is_note(part)) {
            notes.push(sink, bytes, at, p, created, last_of, chain);
        }
        return;
    }
    let model = model_name(sink, &data);
    let steps = steps_of(&parts);
    let has_step_usage = parts.iter().any(|p| p.ty.as_deref() == Some("step-finish"));
    for (index, step) in steps.iter().enumerate() {
        // A step begins when its first timed part does (the first step at the message's creation).
        let began = step.iter().map(|&p| parts[p].started()).find(|&t| t != i64::MIN);
        let began = if index == 0 { created } else { began.unwrap_or(created) };
        // Notes before the step's first content (a checkpoint taken as it began) come before it,
        // the others (the files it changed) after its results.
        let first_content =
            step.iter().position(|&p| !is_note(&parts[p]) && parts[p].ty.as_deref() != Some("step-start"));
        let first_content = first_content.unwrap_or(0);
        let notes_in = |range: std::ops::Range<usize>| -> Vec<usize> {
            step.get(range).unwrap_or_default().iter().copied().filter(|&p| is_note(&parts[p])).collect()
        };
        let (leading, trailing) = (notes_in(0..first_content), notes_in(first_content..step.len()));
        let notes = Notes { builder, parts: &parts, kept: message.parts, key: &key };
        for p in leading {
            notes.push(sink, bytes, at, p, began, last_of, chain);
        }
        let mut entry = builder.entry(sink, EntryKind::Assistant, began);
        entry.model = model;
        for &p in step {
            content_block(sink, at, &mut entry, &parts[p]);
        }
        let last = index + 1 == steps.len();
        if last {
            message_error(at, &mut entry, &data.error);
        }
        let uuid = if index == 0 { message.id.to_owned() } else { format!("{}#{index}", message.id) };
        let Some(anchor) = builder.push(sink, bytes, entry, &uuid, &key, last_of, chain) else { continue };
        let finish = step.iter().map(|&p| &parts[p]).find(|p| p.ty.as_deref() == Some("step-finish"));
        let (tokens, cost) = match finish {
            Some(finish) => (Some(finish.tokens), finish.cost),
            None if !has_step_usage && index == 0 => (Some(data.tokens), data.cost),
            None => (None, LNum::default()),
        };
        let cost = cost.0.filter(|c| c.is_finite() && *c > 0.0);
        let tokens = tokens.filter(Tokens::present);
        if tokens.is_some() || cost.is_some() {
            let mut response = new_response(file, anchor, model, tokens.map(Tokens::to_usage));
            response.logged_cost_usd = cost;
            push_response(sink, response);
        }
        // The step's finished calls, answered in an entry after it.
        let finished: Vec<&PartData> = step
            .iter()
            .map(|&p| &parts[p])
            .filter(|p| p.ty.as_deref() == Some("tool"))
            .filter(|p| matches!(p.state.status.as_deref(), Some("completed" | "error")))
            .collect();
        let mut ended = began;
        if !finished.is_empty() {
            let last_end = finished.iter().map(|p| millis(p.state.time.end)).max().unwrap_or(i64::MIN);
            ended = if last_end == i64::MIN { millis(data.time.completed).max(created) } else { last_end };
            let mut results = builder.entry(sink, EntryKind::User, ended);
            results.subtype = intern(sink, "tool-result");
            for part in finished {
                let id = call_id(sink, at, part, &uuid);
                let name = intern_l(sink, &part.tool);
                let error = part.state.status.as_deref() == Some("error");
                let body = if error { part.state.error } else { part.state.output };
                let block = push_block(sink, &mut results, BlockKind::ToolResult, name, id, at.raw_span(body));
                if error {
                    mark_error(sink, &mut results, block);
                }
            }
            builder.push(sink, bytes, results, &format!("{uuid}/results"), &key, last_of, chain);
        }
        for p in trailing {
            notes.push(sink, bytes, at, p, ended, last_of, chain);
        }
    }
}

/// Whether a part is shown as a note of its own rather than in its message: the files a step
/// changed (`patch`), a checkpoint of the files (`snapshot`), an agent or subtask asked for, a
/// retry, a compaction asked for, a file attached by reference (an image in a `data:` URL is shown
/// in the message).
fn is_note(part: &PartData) -> bool {
    match part.ty.as_deref() {
        Some("patch" | "snapshot" | "agent" | "subtask" | "retry" | "compaction") => true,
        Some("file") => image_data(part).is_none(),
        _ => false,
    }
}

/// The base64 data of a file part that is an image in a `data:` URL.
fn image_data<'p>(part: &'p PartData) -> Option<&'p str> {
    let mime = part.mime.as_deref().unwrap_or("");
    let url = part.url.as_deref()?;
    let (head, data) = url.strip_prefix("data:")?.split_once(',')?;
    (mime.starts_with("image/") && head.ends_with(";base64")).then_some(data)
}

/// The text of a note part, as markdown (every name in it a code span: log text is shown as it
/// is, never as markup).
fn note_text(part: &PartData) -> String {
    let text = |s: &LStr| s.as_deref().unwrap_or("").to_owned();
    match part.ty.as_deref().unwrap_or("") {
        "patch" => {
            let files: Vec<String> = part
                .files
                .and_then(|raw| serde_json::from_str::<Vec<serde_json::Value>>(raw.get()).ok())
                .unwrap_or_default()
                .into_iter()
                .filter_map(|f| f.as_str().map(str::to_owned))
                .collect();
            let hash = non_empty(&part.hash).map(|h| format!(" (snapshot {})", code(h))).unwrap_or_default();
            let mut out = match files.len() {
                0 => format!("No file changed by this step{hash}"),
                1 => format!("1 file changed by this step{hash}:"),
                n => format!("{n} files changed by this step{hash}:"),
            };
            for file in files {
                out.push_str(&format!("\n- {}", code(&file)));
            }
            out
        }
        "snapshot" => match non_empty(&part.snapshot) {
            Some(snapshot) => {
                format!("Checkpoint: the files as they were here are kept as snapshot {}", code(snapshot))
            }
            None => "Checkpoint of the files".to_owned(),
        },
        "agent" => format!("Addressed to the {} agent", code(&format!("@{}", text(&part.name)))),
        "subtask" => {
            let agent = code(&format!("@{}", text(&part.agent)));
            match non_empty(&part.description) {
                Some(description) => format!("Subtask for the {agent} agent: {}", code(description)),
                None => format!("Subtask for the {agent} agent"),
            }
        }
        "retry" => {
            let attempt = part.attempt.as_u64();
            let why = raw_text(part.error.data.message);
            let why = why.lines().next().unwrap_or("");
            if why.is_empty() {
                format!("Retry {attempt} of the model call")
            } else {
                format!("Retry {attempt} of the model call, after: {}", code(why))
            }
        }
        "compaction" if part.auto.is_true() => "Compaction of the conversation (the context was full)".to_owned(),
        "compaction" => "Compaction of the conversation, asked for".to_owned(),
        "file" => {
            let name = non_empty(&part.filename).or(non_empty(&part.url)).unwrap_or("a file");
            match part.mime.as_deref().unwrap_or("") {
                "application/x-directory" => format!("Attached the folder {}", code(name)),
                "" => format!("Attached {}", code(name)),
                mime => format!("Attached {} ({mime})", code(name)),
            }
        }
        other => other.to_owned(),
    }
}

/// Text as a markdown code span, whatever backticks it holds.
fn code(text: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') { " " } else { "" };
    format!("{fence}{pad}{text}{pad}{fence}")
}

/// The notes of one message: each a system entry of its own, at its part's record.
#[derive(Clone, Copy)]
struct Notes<'n, 'a> {
    builder: Builder,
    parts: &'n [PartData<'a>],
    kept: &'n [Kept],
    key: &'n str,
}

impl Notes<'_, '_> {
    #[allow(clippy::too_many_arguments)]
    fn push(
        &self,
        sink: &mut Sink,
        bytes: &[Vec<u8>],
        at: Locator,
        part: usize,
        timestamp: i64,
        last_of: &mut FxHashMap<String, String>,
        chain: &mut Chain,
    ) {
        let (Some(data), Some(&kept)) = (self.parts.get(part), self.kept.get(part)) else { return };
        let builder = Builder { kept, type_name: intern(sink, "part"), ..self.builder };
        let mut entry = builder.entry(sink, EntryKind::System, timestamp);
        entry.subtype = intern(sink, data.ty.as_deref().unwrap_or("note"));
        entry.flags.set(EntryFlags::NOTE, true);
        entry.flags.set(EntryFlags::STRING_CONTENT, true);
        entry.content = arena_json(&mut sink.corpus.arena, &note_text(data));
        // A part's id names its note (one made from the record's place when it has none).
        let record: Record = serde_json::from_str(kept.text(at.file_bytes)).unwrap_or_default();
        let uuid = non_empty(&record.id).map_or_else(|| format!("opencode-part:{}", kept.line_no), str::to_owned);
        builder.push(sink, bytes, entry, &uuid, self.key, last_of, chain);
    }
}

/// The model of an assistant message, `<provider>/<model>` (the price table reads the last part).
fn model_name(sink: &mut Sink, data: &MessageData) -> Sym {
    let model = non_empty(&data.model_id).or(non_empty(&data.model.model_id));
    let provider = non_empty(&data.provider_id).or(non_empty(&data.model.provider_id));
    match (provider, model) {
        (Some(provider), Some(model)) => intern(sink, &format!("{provider}/{model}")),
        (None, Some(model)) => intern(sink, model),
        _ => Sym::NONE,
    }
}

/// The parts of an assistant message cut into its steps (indices into `parts`): a `step-start`
/// begins one. A message without parts is one empty step, so its tokens still have an entry.
fn steps_of(parts: &[PartData]) -> Vec<Vec<usize>> {
    let mut steps: Vec<Vec<usize>> = vec![Vec::new()];
    for (at, part) in parts.iter().enumerate() {
        let current = steps.last().map_or(0, Vec::len);
        if part.ty.as_deref() == Some("step-start") && current > 0 {
            steps.push(Vec::new());
        }
        if let Some(step) = steps.last_mut() {
            step.push(at);
        }
    }
    steps
}

/// The call id of a tool part, or one made from the entry when it has none.
fn call_id(sink: &mut Sink, at: Locator, part: &PartData, uuid: &str) -> Span {
    match non_empty(&part.call_id) {
        Some(_) => str_span(sink, &at, &part.call_id),
        None => arena_str(&mut sink.corpus.arena, &format!("opencode-call:{uuid}")),
    }
}

/// The block a part adds to its message's entry, if any.
fn content_block(sink: &mut Sink, at: Locator, entry: &mut Entry, part: &PartData) {
    match part.ty.as_deref().unwrap_or("") {
        "text" => {
            push_block(sink, entry, BlockKind::Text, Sym::NONE, Span::EMPTY, at.raw_span(part.text));
        }
        "reasoning" => {
            push_block(sink, entry, BlockKind::Thinking, Sym::NONE, Span::EMPTY, at.raw_span(part.text));
        }
        "tool" => {
            let uuid = format!("{}:{}", entry.line, entry.blocks_len);
            let id = call_id(sink, at, part, &uuid);
            let name = intern_l(sink, &part.tool);
            push_block(sink, entry, BlockKind::ToolUse, name, id, at.raw_span(part.state.input));
        }
        // An image in a `data:` URL, shown (a file attached by reference is a note).
        "file" => {
            let body = image_data(part)
                .and_then(|data| at.offset_of(data.as_bytes()).map(|offset| Span::in_file(offset, data.len())))
                .unwrap_or(Span::EMPTY);
            let name = intern(sink, part.mime.as_deref().unwrap_or(""));
            push_block(sink, entry, BlockKind::Image, name, Span::EMPTY, body);
        }
        // Step marks say nothing a reader sees (their tokens are the step's response); notes
        // are entries of their own.
        "step-start" | "step-finish" | "snapshot" | "patch" | "agent" | "subtask" | "retry" | "compaction" => {}
        other => {
            let name = intern(sink, if other.is_empty() { "(untyped)" } else { other });
            push_block(sink, entry, BlockKind::Unknown, name, Span::EMPTY, Span::EMPTY);
        }
    }
}

/// An assistant message's `error`: an API error (its message the entry's text when it has none),
/// or an interruption.
fn message_error(at: Locator, entry: &mut Entry, error: &ErrorInfo) {
    let Some(name) = non_empty(&error.name) else { return };
    if name == "MessageAbortedError" {
        entry.flags.set(EntryFlags::INTERRUPTED, true);
        return;
    }
    entry.flags.set(EntryFlags::API_ERROR, true);
    if entry.blocks_len == 0 && is_string(error.data.message) {
        entry.content = at.raw_span(error.data.message);
        entry.flags.set(EntryFlags::STRING_CONTENT, true);
    }
}

/// Makes the entries of one message: where they come from and which conversation they are in.
#[derive(Clone, Copy)]
struct Builder {
    file: FileId,
    kept: Kept,
    conversation: Conversation,
    type_name: Sym,
}

impl Builder {
    fn entry(&self, sink: &Sink, kind: EntryKind, timestamp: i64) -> Entry {
        let mut entry = new_entry(sink, self.file, self.kept.line_no, self.kept.span, kind, self.type_name);
        entry.timestamp_ms = timestamp;
        entry.session_id = self.conversation.session;
        if self.conversation.agent.is_some() {
            entry.agent_id = self.conversation.agent;
            entry.flags.set(EntryFlags::SIDECHAIN, true);
            entry.parent_tool_use_id = self.conversation.spawn_call;
        }
        entry
    }

    /// Adds `entry` at the end of its conversation (`key`) under `uuid`; the entry, unless that
    /// uuid was read before.
    #[allow(clippy::too_many_arguments)]
    fn push(
        &self,
        sink: &mut Sink,
        bytes: &[Vec<u8>],
        mut entry: Entry,
        uuid: &str,
        key: &str,
        last_of: &mut FxHashMap<String, String>,
        chain: &mut Chain,
    ) -> Option<EntryId> {
        if let Some(parent) = last_of.get(key) {
            entry.parent_uuid = arena_str(&mut sink.corpus.arena, parent);
        }
        entry.envelope = sink.envelope(self.conversation.envelope);
        let id = chain.push_detached(sink, bytes, entry, uuid).ok()?;
        last_of.insert(key.to_owned(), uuid.to_owned());
        Some(id)
    }
}
