//! What the importers share: the [`Line`] being read and how a line is parsed; and, for other
//! agents' logs, the conversation chain of a file (its entries in line order, with synthesised
//! uuids and parent links where the format has none), entries built with defaults, and text
//! synthesised into the arena.
//!
//! Synthesised uuids are `<file stem>:L<line>` (plus a suffix when a line holds several
//! entries): stable across loads, so deep links keep working, and unique per file. A file whose
//! name another loaded file already has uses its path instead, so two copies never collide.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::import::{Failure, LineOutcome, Sink};
use crate::json::{LStr, Shape, parse_time};
use crate::model::*;
use crate::span::{Locator, Span, Sym, push_arena};

/// The conversation a file forms, in line order.
#[derive(Clone)]
pub(crate) struct Chain {
    /// Synthesised uuids start with this.
    pub prefix: String,
    /// The uuid of the last entry of the thread, or empty: the next entry is a root.
    pub last: String,
    /// The last entry of the thread.
    pub last_entry: EntryId,
    pub session: Sym,
    /// Entries read before the session id was known; they get it when it is.
    pub unsessioned: Vec<EntryId>,
    /// cwd, version and the like as far as the log has said them.
    pub envelope: Envelope,
    pub model: Sym,
    /// Entries made from the file so far.
    pub entries: u32,
}

impl Chain {
    pub fn new(sink: &Sink, file: FileId) -> Chain {
        Chain {
            prefix: id_prefix(sink, file),
            last: String::new(),
            last_entry: EntryId::NONE,
            session: Sym::NONE,
            unsessioned: Vec::new(),
            envelope: Envelope::default(),
            model: Sym::NONE,
            entries: 0,
        }
    }

    /// The synthesised uuid of the entry read from `line` (`suffix` tells apart several entries of
    /// one line).
    pub fn id(&self, line: u32, suffix: &str) -> String {
        format!("{}:L{line}{suffix}", self.prefix)
    }

    /// Sets the session of the thread. Entries read before it was known take it; a different
    /// session than the one so far starts a new thread (a root).
    pub fn set_session(&mut self, sink: &mut Sink, session: Sym) {
        if session.is_none() || session == self.session {
            return;
        }
        for e in self.unsessioned.drain(..) {
            if let Some(entry) = sink.corpus.entries.get_mut(e.index()) {
                entry.session_id = session;
            }
        }
        if self.session.is_some() {
            self.last.clear();
        }
        self.session = session;
    }

    /// Adds `entry` to the end of the thread under `uuid`: sets its uuid, parent, session and
    /// envelope (unless already set) and indexes it. A uuid read before is a duplicate.
    pub fn push(
        &mut self,
        sink: &mut Sink,
        bytes: &[Vec<u8>],
        mut entry: Entry,
        uuid: &str,
    ) -> Result<EntryId, String> {
        if entry.parent_uuid.is_empty() && !self.last.is_empty() {
            entry.parent_uuid = arena_str(&mut sink.corpus.arena, &self.last);
        }
        let id = self.push_detached(sink, bytes, entry, uuid)?;
        self.last.clear();
        self.last.push_str(uuid);
        self.last_entry = id;
        Ok(id)
    }

    /// Adds `entry` under `uuid` with the parent it has (or none), without moving the thread on.
    pub fn push_detached(
        &mut self,
        sink: &mut Sink,
        bytes: &[Vec<u8>],
        mut entry: Entry,
        uuid: &str,
    ) -> Result<EntryId, String> {
        if let Some(first) = find_uuid(sink, bytes, uuid.as_bytes()) {
            let first = &sink.corpus.entries[first.index()];
            let where_ = if first.file == entry.file {
                format!("line {}", first.line)
            } else {
                format!("line {} of {}", first.line, sink.corpus.files[first.file as usize].name())
            };
            return Err(format!("uuid {uuid} was already read at {where_}; the first occurrence is kept"));
        }
        if entry.uuid.is_empty() {
            entry.uuid = arena_str(&mut sink.corpus.arena, uuid);
        }
        if entry.session_id.is_none() {
            entry.session_id = self.session;
        }
        if entry.envelope.is_none() {
            entry.envelope = sink.envelope(self.envelope);
        }
        let id = EntryId::new(sink.corpus.entries.len());
        if entry.session_id.is_none() {
            self.unsessioned.push(id);
        }
        let hash = sink.hash_bytes(uuid.as_bytes());
        sink.uuid_index.insert_unique(hash, (hash, id), |&(h, _)| h);
        sink.corpus.entries.push(entry);
        self.entries += 1;
        Ok(id)
    }

    /// Adds `entry` to the end of the thread under the uuid synthesised from its line (and
    /// `suffix`): the line's outcome, a duplicate if that uuid was read before.
    pub fn push_line(
        &mut self,
        sink: &mut Sink,
        bytes: &[Vec<u8>],
        entry: Entry,
        line_no: u32,
        suffix: &str,
    ) -> LineOutcome {
        let uuid = self.id(line_no, suffix);
        match self.push(sink, bytes, entry, &uuid) {
            Ok(_) => LineOutcome::Entry,
            Err(message) => LineOutcome::Duplicate(message),
        }
    }

    /// At the end of the file: entries still without a session take the thread's.
    pub fn finish(&mut self, sink: &mut Sink) {
        let session = self.session;
        if session.is_some() {
            for e in self.unsessioned.drain(..) {
                if let Some(entry) = sink.corpus.entries.get_mut(e.index()) {
                    entry.session_id = session;
                }
            }
        }
    }
}

/// The stem of a file's name, or its path when an earlier file has the same name, or with the
/// file index when even the path repeats.
fn id_prefix(sink: &Sink, file: FileId) -> String {
    let files = &sink.corpus.files;
    let Some(info) = files.get(file as usize) else { return format!("file{file}") };
    let strip = |name: &str| -> String {
        let mut stem = name;
        for ext in [".jsonl", ".ndjson", ".json", ".log", ".txt"] {
            if let Some(s) = stem.strip_suffix(ext) {
                stem = s;
                break;
            }
        }
        stem.to_owned()
    };
    let earlier = &files[..file as usize];
    let name = info.name();
    if !earlier.iter().any(|f| f.name() == name) {
        return strip(name);
    }
    if !earlier.iter().any(|f| f.path == info.path) {
        return strip(&info.path);
    }
    format!("{}#{file}", strip(&info.path))
}

/// The entry with this uuid, if one was read.
pub(crate) fn find_uuid(sink: &Sink, bytes: &[Vec<u8>], uuid: &[u8]) -> Option<EntryId> {
    let hash = sink.hash_bytes(uuid);
    sink.uuid_index
        .find(hash, |&(h, e)| {
            h == hash && {
                let entry = &sink.corpus.entries[e.index()];
                let file_bytes = bytes.get(entry.file as usize).map(Vec::as_slice).unwrap_or_default();
                entry.uuid.bytes(file_bytes, &sink.corpus.arena) == uuid
            }
        })
        .map(|&(_, e)| e)
}

/// An entry with nothing but where it comes from; uuid, parent, session and envelope are set
/// when it joins its chain.
pub(crate) fn new_entry(
    sink: &Sink,
    file: FileId,
    line: u32,
    line_span: Span,
    kind: EntryKind,
    type_name: Sym,
) -> Entry {
    Entry {
        file,
        line,
        line_span,
        kind,
        nesting_level: 0,
        flags: EntryFlags::default(),
        type_name,
        subtype: Sym::NONE,
        uuid: Span::EMPTY,
        parent_uuid: Span::EMPTY,
        logical_parent_uuid: Span::EMPTY,
        session_id: Sym::NONE,
        agent_id: Sym::NONE,
        linked_agent_id: Sym::NONE,
        timestamp_ms: i64::MIN,
        model: Sym::NONE,
        response: ResponseId::NONE,
        blocks_start: sink.corpus.blocks.len() as u32,
        blocks_len: 0,
        content: Span::EMPTY,
        tool_use_result: Span::EMPTY,
        tool_use_id: Span::EMPTY,
        parent_tool_use_id: Span::EMPTY,
        source_tool_assistant: Span::EMPTY,
        envelope: EnvelopeId::NONE,
    }
}

/// Appends a block to the entry being built (its blocks must be the last ones pushed).
pub(crate) fn push_block(sink: &mut Sink, entry: &mut Entry, kind: BlockKind, name: Sym, id: Span, body: Span) -> u32 {
    let index = sink.corpus.blocks.len() as u32;
    sink.corpus.blocks.push(Block {
        kind,
        flags: 0,
        index: entry.blocks_len.min(u16::MAX as u32) as u16,
        name,
        id,
        body,
    });
    entry.blocks_len += 1;
    match kind {
        BlockKind::ToolUse | BlockKind::ServerToolUse => entry.flags.set(EntryFlags::HAS_TOOL_USE, true),
        BlockKind::ToolResult => entry.flags.set(EntryFlags::HAS_TOOL_RESULT, true),
        _ => {}
    }
    index
}

/// Marks a tool result block (and its entry) as an error.
pub(crate) fn mark_error(sink: &mut Sink, entry: &mut Entry, block: u32) {
    if let Some(b) = sink.corpus.blocks.get_mut(block as usize) {
        b.flags |= Block::IS_ERROR;
    }
    entry.flags.set(EntryFlags::TOOL_ERROR, true);
}

/// A decoded string (an id) in the arena.
pub(crate) fn arena_str(arena: &mut Vec<u8>, text: &str) -> Span {
    if text.is_empty() {
        return Span::EMPTY;
    }
    push_arena(arena, text.as_bytes())
}

/// Text as a JSON string literal in the arena (bodies are raw JSON).
pub(crate) fn arena_json(arena: &mut Vec<u8>, text: &str) -> Span {
    let start = arena.len();
    if serde_json::to_writer(&mut *arena, text).is_err() {
        arena.truncate(start);
        return Span::EMPTY;
    }
    Span::in_arena(start, arena.len() - start)
}

/// Raw JSON text in the arena.
pub(crate) fn arena_raw(arena: &mut Vec<u8>, json: &str) -> Span {
    if json.is_empty() {
        return Span::EMPTY;
    }
    push_arena(arena, json.as_bytes())
}

/// The span of a string field: in the file when it was borrowed, else in the arena.
pub(crate) fn str_span(sink: &mut Sink, at: &Locator, s: &LStr) -> Span {
    at.str_span(&mut sink.corpus.arena, s)
}

/// True if a raw value is a JSON string literal.
pub(crate) fn is_string(raw: Option<&RawValue>) -> bool {
    raw.is_some_and(|r| r.get().starts_with('"'))
}

/// The decoded text of a raw string value (empty for other values).
pub(crate) fn raw_text(raw: Option<&RawValue>) -> Cow<'_, str> {
    match raw {
        Some(raw) if raw.get().starts_with('"') => crate::json::decode_value(raw.get().as_bytes()),
        _ => Cow::Borrowed(""),
    }
}

/// Milliseconds of an ISO 8601 timestamp, or `i64::MIN`.
pub(crate) fn time(s: &LStr) -> i64 {
    s.as_deref().and_then(parse_time).unwrap_or(i64::MIN)
}

pub(crate) fn intern(sink: &mut Sink, s: &str) -> Sym {
    sink.corpus.symbols.intern(s)
}

pub(crate) fn intern_l(sink: &mut Sink, s: &LStr) -> Sym {
    sink.corpus.symbols.intern(s.as_deref().unwrap_or(""))
}

/// Where a line lies in its file's bytes: `(locator, begin, end)`.
pub(crate) fn locate<'b>(bytes: &'b [Vec<u8>], file: FileId, text: &str) -> (Locator<'b>, Span) {
    let file_bytes = bytes.get(file as usize).map(Vec::as_slice).unwrap_or_default();
    let at = Locator { file_bytes };
    let span = match at.offset_of(text.as_bytes()) {
        Some(begin) => Span::in_file(begin, text.len()),
        None => Span::EMPTY,
    };
    (at, span)
}

/// Parses a line as `T`, or says why it is not an object of that shape.
pub(crate) fn parse_line<'a, T: Deserialize<'a>>(text: &'a str) -> Result<T, LineOutcome> {
    let first = text.bytes().find(|b| !b.is_ascii_whitespace());
    if first != Some(b'{') {
        return Err(LineOutcome::Failed(match serde_json::from_str::<Shape>(text) {
            Ok(shape) => Failure {
                kind: DiagnosticKind::NotAnObject,
                message: format!("the line is a JSON {}, not an object", shape.name()),
                eof: false,
                lone_surrogate: false,
            },
            Err(error) => Failure::from_json(&error),
        }));
    }
    serde_json::from_str(text).map_err(|error| LineOutcome::Failed(Failure::from_json(&error)))
}

/// One line as an importer reads it: where it is, the type it is recorded under, and when it
/// was written. Made once per line and handed down whole, rather than field by field.
#[derive(Clone, Copy)]
pub(crate) struct Line<'b> {
    pub file: FileId,
    /// 1-based.
    pub line_no: u32,
    /// The line's bytes in its file.
    pub span: Span,
    /// The type its entries and its metadata line are recorded under.
    pub type_name: Sym,
    /// Milliseconds since the epoch, or `i64::MIN`.
    pub timestamp: i64,
    /// Where the line's borrowed strings and raw values sit in the file.
    pub at: Locator<'b>,
}

impl Line<'_> {
    /// An entry of this line, with its type and timestamp (see [`new_entry`]).
    pub fn entry(&self, sink: &Sink, kind: EntryKind) -> Entry {
        let mut entry = new_entry(sink, self.file, self.line_no, self.span, kind, self.type_name);
        entry.timestamp_ms = self.timestamp;
        entry
    }

    /// Records this line outside the conversation, as a metadata line of `session`.
    pub fn push_meta(&self, sink: &mut Sink, session: Sym) {
        sink.corpus.metas.push(MetaLine {
            file: self.file,
            line: self.line_no,
            line_span: self.span,
            type_name: self.type_name,
            session_id: session,
            timestamp_ms: self.timestamp,
            text: Span::EMPTY,
            target_uuid: Span::EMPTY,
            operation: Sym::NONE,
        });
    }
}

/// A response (one model call, or a turn's worth of them) with usage, anchored at an entry.
pub(crate) fn new_response(file: FileId, first_entry: EntryId, model: Sym, usage: Option<Usage>) -> Response {
    Response {
        file,
        message_id: Span::EMPTY,
        request_id: Span::EMPTY,
        first_entry,
        usage_entry: first_entry,
        lines: 1,
        model,
        usage: usage.unwrap_or_default(),
        has_usage: usage.is_some(),
        logged_cost_usd: None,
        duration_ms: None,
    }
}

/// Adds a response and points its anchor entry at it (unless the entry has one already).
pub(crate) fn push_response(sink: &mut Sink, response: Response) -> ResponseId {
    let index = ResponseId::new(sink.corpus.responses.len());
    if let Some(entry) = sink.corpus.entries.get_mut(response.first_entry.index())
        && entry.response.is_none()
    {
        entry.response = index;
    }
    sink.corpus.responses.push(response);
    index
}

/// Injected text that is not a person's prompt: instructions, environment context.
pub(crate) fn is_injected(text: &str) -> bool {
    let text = text.trim_start();
    [
        "<environment_context>",
        "<user_instructions>",
        "<user_shell_command>",
        "<INSTRUCTIONS>",
        "# AGENTS.md instructions",
        "<turn_aborted>",
    ]
    .iter()
    .any(|tag| text.starts_with(tag))
}

/// Usage as OpenAI reports it: input includes the cached part, output the reasoning part.
#[derive(Deserialize, Default, Clone, Copy, PartialEq, Debug)]
#[serde(default)]
pub(crate) struct OpenAiUsage {
    pub input_tokens: crate::json::LNum,
    pub cached_input_tokens: crate::json::LNum,
    pub output_tokens: crate::json::LNum,
    pub reasoning_output_tokens: crate::json::LNum,
}

impl OpenAiUsage {
    pub fn present(&self) -> bool {
        self.input_tokens.0.is_some() || self.output_tokens.0.is_some()
    }

    /// As the model counts it: uncached input, cache reads, output (reasoning included).
    pub fn to_usage(self) -> Usage {
        let input = self.input_tokens.as_u64();
        let cached = self.cached_input_tokens.as_u64().min(input);
        Usage {
            input_tokens: input - cached,
            cache_read_input_tokens: cached,
            output_tokens: self.output_tokens.as_u64(),
            ..Usage::default()
        }
    }
}

/// `a - b` per field, never below zero.
pub(crate) fn usage_minus(a: &Usage, b: &Usage) -> Usage {
    Usage {
        input_tokens: a.input_tokens.saturating_sub(b.input_tokens),
        output_tokens: a.output_tokens.saturating_sub(b.output_tokens),
        cache_creation_input_tokens: a.cache_creation_input_tokens.saturating_sub(b.cache_creation_input_tokens),
        cache_read_input_tokens: a.cache_read_input_tokens.saturating_sub(b.cache_read_input_tokens),
        cache_creation_5m: a.cache_creation_5m.saturating_sub(b.cache_creation_5m),
        cache_creation_1h: a.cache_creation_1h.saturating_sub(b.cache_creation_1h),
        web_search_requests: a.web_search_requests.saturating_sub(b.web_search_requests),
    }
}

/// Every field of `a` at least that of `b`.
pub(crate) fn usage_covers(a: &Usage, b: &Usage) -> bool {
    a.input_tokens >= b.input_tokens
        && a.output_tokens >= b.output_tokens
        && a.cache_creation_input_tokens >= b.cache_creation_input_tokens
        && a.cache_read_input_tokens >= b.cache_read_input_tokens
}

/// How a document tells the breaks of its list of messages, in its own words.
pub(crate) struct ListWords {
    /// The document ends before the list's `]`.
    pub cut_in_list: &'static str,
    /// An item is not followed by a comma or the `]`.
    pub no_comma: &'static str,
}

/// Where walking a document's list of messages stopped.
pub(crate) enum ListStop {
    /// A break the walk tells in the document's words.
    Failed(LineOutcome),
    /// The item starting there is not JSON (or is cut short): the importer says how.
    BrokenItem(serde_json::Error),
}

/// What walking a document's list of messages came to.
pub(crate) struct ListWalk {
    /// The byte offset of the list's `]`, when the walk reached it.
    pub end_of_list: Option<usize>,
    /// Where the walk stopped before it, and why.
    pub stop: Option<(usize, ListStop)>,
}

/// Walks the items of a JSON list of messages, `rest` starting just after its `[`, one by one:
/// `each` gets every item read with its index, up to the `]` or the first break (an item that
/// is not JSON, a missing comma, the end of the text). `offset` is an item's byte offset in the
/// file. The documents read whole (Gemini CLI, Cline and Roo Code, Amp) keep what comes before
/// a break this way.
pub(crate) fn walk_message_list<'a>(
    mut rest: &'a str,
    offset: impl Fn(&str) -> usize,
    words: &ListWords,
    mut each: impl FnMut(&'a RawValue, usize),
) -> ListWalk {
    let mut index = 0usize;
    loop {
        let item = rest.trim_start();
        if item.starts_with(']') {
            return ListWalk { end_of_list: Some(offset(item)), stop: None };
        }
        if item.is_empty() {
            let failure = Failure {
                kind: DiagnosticKind::TruncatedLine,
                message: words.cut_in_list.into(),
                eof: true,
                lone_surrogate: false,
            };
            let stop = (offset(item).saturating_sub(1), ListStop::Failed(LineOutcome::Failed(failure)));
            return ListWalk { end_of_list: None, stop: Some(stop) };
        }
        let mut de = serde_json::Deserializer::from_str(item);
        let raw = match <&RawValue>::deserialize(&mut de) {
            Ok(raw) => raw,
            Err(error) => {
                return ListWalk { end_of_list: None, stop: Some((offset(item), ListStop::BrokenItem(error))) };
            }
        };
        each(raw, index);
        index += 1;
        let after = item[raw.get().len()..].trim_start();
        match after.as_bytes().first() {
            Some(b',') => rest = &after[1..],
            Some(b']') => rest = after,
            _ => {
                let failure = Failure::new(DiagnosticKind::InvalidJson, words.no_comma.into());
                let stop = (offset(after), ListStop::Failed(LineOutcome::Failed(failure)));
                return ListWalk { end_of_list: None, stop: Some(stop) };
            }
        }
    }
}
