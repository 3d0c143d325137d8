//! Gemini CLI sessions (`~/.gemini/tmp/<project hash>/chats/session-*.json[l]`), read whole (a
//! document format: see `import::is_document`).
//!
//! Two shapes, told apart by their first lines (JSON Lines when one of the first two is an
//! object of its own):
//!
//! - the legacy file, one JSON object (pretty-printed: it spans many lines) rewritten on every
//!   change: `{sessionId, projectHash, startTime, lastUpdated, messages: [...], summary?, kind?,
//!   directories?}`. The lines from the top to the first message, and those after the last one,
//!   are metadata; each message holds the lines from the one it starts on to the next message.
//!   A document cut short (or broken) keeps the messages before the break; the rest is one
//!   diagnostic, with the line where it broke.
//! - the newer JSON Lines file: a first line of metadata (`{sessionId, projectHash, startTime,
//!   lastUpdated, kind}`), then message records, `{"$set": {...}}` updates of the metadata and
//!   `{"$rewindTo": id}` rewinds. A message is written again whenever it changes (its tokens,
//!   then its tool calls, come later): the last record of an id is the message, at the place of
//!   its first one; earlier records of it are ignored. A rewind takes the conversation back to
//!   before the message it names: what follows hangs from the message before it, and the
//!   rewound messages stay, as a branch. `$set.messages` (a history rewritten in memory) is
//!   metadata here.
//!
//! A message `{id, timestamp, type, content}`: `type` `user` (a prompt: `content` a string or a
//! list of Parts), `gemini` (a response: `content`, `thoughts` [{subject, description}],
//! `toolCalls` [{id, name, args, result, status, resultDisplay}], `tokens` {input, output,
//! cached, thoughts, tool, total}, `model`), or `info`, `warning`, `error` (notices of the CLI:
//! system entries; an `error` is an API error). A response's tool calls become tool uses, and
//! their results a user entry after it (status `error` an error; `cancelled` an interrupted
//! call). Entry uuids are `<sessionId>:<id>` (the results `<sessionId>:<id>:results`). A thought
//! is a thinking block, its subject on the first line. Parts are text (`thought: true` text is
//! thinking), images, and `functionCall`/`functionResponse` as tool uses and results. A
//! `summary` (in the object or a `$set`) names the session, as a Claude Code custom title does.
//!
//! Tokens: `input` (promptTokenCount) includes the `cached` part, `output` excludes the
//! `thoughts` (billed as output); `tool` is the tool-use prompt. So input = input - cached +
//! tool, cache reads = cached, output = output + thoughts.
//!
//! The files name no working directory, only a hash of it (`projectHash`): entries have no cwd.
//!
//! Subagents (`codebase_investigator`, `cli_help`, `generalist`, agents of the user's own): a
//! subagent's conversation is a JSON Lines file of its own, `chats/<session id>/<agent id>.jsonl`
//! (metadata `kind: "subagent"`, `sessionId` the agent's id), in a folder named by the session
//! that ran it. Read there, it is an agent conversation of that session, named by its id. The
//! spawning call is the one named after the agent, whose result says `Subagent '<name>'
//! finished.` (its `resultDisplay` the agent's progress, `isSubagentProgress`); it is a call of the
//! agent category. When the call's record names the agent (`agentId`), its result is an entry of
//! its own that reports the agent (`linked_agent_id`); otherwise the agent is linked by what
//! the call asked, which its first message holds (see `dag::agents`).

use rustc_hash::FxHashMap;
use serde::Deserialize;
use serde_json::value::RawValue;

use crate::import::common::*;
use crate::import::{DocRecord, Failure, LineOutcome, Sink};
use crate::json::{LList, LNum, LStr};
use crate::model::*;
use crate::span::{Locator, Span, Sym};

#[derive(Deserialize, Default)]
#[serde(default)]
struct Head<'a> {
    #[serde(rename = "sessionId", borrow)]
    session_id: LStr<'a>,
    #[serde(rename = "projectHash", borrow)]
    project_hash: LStr<'a>,
    #[serde(rename = "startTime", borrow)]
    start_time: LStr<'a>,
    #[serde(rename = "lastUpdated", borrow)]
    last_updated: LStr<'a>,
    #[serde(borrow)]
    summary: LStr<'a>,
    #[serde(borrow)]
    messages: Option<&'a RawValue>,
    #[serde(rename = "$set", borrow)]
    set: Option<&'a RawValue>,
    #[serde(rename = "$rewindTo", borrow)]
    rewind_to: LStr<'a>,
    #[serde(borrow)]
    id: LStr<'a>,
    /// `main` or `subagent`.
    #[serde(borrow)]
    kind: LStr<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Message<'a> {
    #[serde(borrow)]
    id: LStr<'a>,
    #[serde(borrow)]
    timestamp: LStr<'a>,
    #[serde(rename = "type", borrow)]
    ty: LStr<'a>,
    #[serde(borrow)]
    content: Option<&'a RawValue>,
    #[serde(borrow)]
    model: LStr<'a>,
    #[serde(borrow)]
    thoughts: LList<'a, Thought<'a>>,
    #[serde(rename = "toolCalls", borrow)]
    tool_calls: LList<'a, ToolCall<'a>>,
    #[serde(borrow)]
    tokens: Option<&'a RawValue>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Thought<'a> {
    #[serde(borrow)]
    subject: LStr<'a>,
    #[serde(borrow)]
    description: Option<&'a RawValue>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ToolCall<'a> {
    #[serde(borrow)]
    id: LStr<'a>,
    #[serde(borrow)]
    name: LStr<'a>,
    #[serde(borrow)]
    args: Option<&'a RawValue>,
    #[serde(borrow)]
    result: Option<&'a RawValue>,
    #[serde(borrow)]
    status: LStr<'a>,
    #[serde(rename = "resultDisplay", borrow)]
    result_display: Option<&'a RawValue>,
    /// The subagent the call ran, when the record names it.
    #[serde(rename = "agentId", borrow)]
    agent_id: LStr<'a>,
}

/// A Part of Gemini API content (also what Qwen Code records hold).
#[derive(Deserialize, Default)]
#[serde(default)]
struct Part<'a> {
    #[serde(borrow)]
    text: Option<&'a RawValue>,
    thought: crate::json::LBool,
    #[serde(rename = "inlineData")]
    inline_data: crate::json::Shape,
    #[serde(rename = "fileData")]
    file_data: crate::json::Shape,
    #[serde(rename = "functionCall", borrow)]
    function_call: Option<&'a RawValue>,
    #[serde(rename = "functionResponse", borrow)]
    function_response: Option<&'a RawValue>,
}

/// `functionCall {id, name, args}` and `functionResponse {id, name, response}`.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Function<'a> {
    #[serde(borrow)]
    id: LStr<'a>,
    #[serde(borrow)]
    name: LStr<'a>,
    #[serde(borrow)]
    args: Option<&'a RawValue>,
    #[serde(borrow)]
    response: Option<&'a RawValue>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Output<'a> {
    #[serde(borrow)]
    output: Option<&'a RawValue>,
    #[serde(borrow)]
    error: Option<&'a RawValue>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Tokens {
    input: LNum,
    output: LNum,
    cached: LNum,
    thoughts: LNum,
    tool: LNum,
}

/// The session a file is, as it is read.
struct State {
    chain: Chain,
    session_id: String,
    /// Where each line begins in the file.
    starts: Vec<usize>,
    /// The session whose folder the file is in (`chats/<session id>/`): the file is the
    /// conversation of one of its subagents.
    parent_session: Option<String>,
    /// The subagent the file is the conversation of, once its metadata says its id.
    agent: Sym,
}

impl State {
    fn line_of(&self, offset: usize) -> u32 {
        self.starts.partition_point(|&s| s <= offset).max(1).min(u32::MAX as usize) as u32
    }

    /// The uuid of the message with this id (a synthesised one for a message without).
    fn uuid(&self, id: &str, line_no: u32) -> String {
        if id.is_empty() {
            return self.chain.id(line_no, "");
        }
        let prefix = if self.session_id.is_empty() { &self.chain.prefix } else { &self.session_id };
        format!("{prefix}:{id}")
    }

    /// Reads the session metadata: the id, and the title a summary gives. A subagent's file (in
    /// a session's folder) is of that session, its id the agent's.
    fn head(&mut self, sink: &mut Sink, line: &Line, head: &Head) {
        if let Some(id) = head.session_id.as_deref().filter(|id| !id.is_empty())
            && self.chain.entries == 0
        {
            self.session_id = id.to_owned();
            let session = match &self.parent_session {
                Some(parent) if parent != id => {
                    self.agent = intern(sink, id);
                    intern(sink, parent)
                }
                _ => intern(sink, id),
            };
            self.chain.set_session(sink, session);
        }
        line.push_meta(sink, self.chain.session);
        self.summary(sink, line, &head.summary);
    }

    /// A summary names the session, as a Claude Code custom title does; a subagent's (its
    /// result, cut short) does not name the session that ran it.
    fn summary(&mut self, sink: &mut Sink, line: &Line, summary: &LStr) {
        if self.agent.is_none() && summary.as_deref().is_some_and(|s| !s.trim().is_empty()) {
            let title = Line { type_name: intern(sink, "custom-title"), ..*line };
            title.push_meta(sink, self.chain.session);
            if let Some(last) = sink.corpus.metas.last_mut() {
                last.text = line.at.str_span(&mut sink.corpus.arena, summary);
            }
        }
    }
}

/// Reads a whole Gemini CLI session file; `begin` is where its text starts (after a BOM).
pub(crate) fn import_document(sink: &mut Sink, bytes: &[Vec<u8>], file: FileId, begin: usize) -> Vec<DocRecord> {
    let file_bytes = bytes.get(file as usize).map(Vec::as_slice).unwrap_or_default();
    let mut starts = vec![0usize];
    starts.extend(memchr::memchr_iter(b'\n', file_bytes).map(|i| i + 1).filter(|&i| i < file_bytes.len()));
    let path = sink.corpus.files.get(file as usize).map(|f| f.path.as_str()).unwrap_or("");
    let parent_session = subagent_folder(path).map(str::to_owned);
    let mut state =
        State { chain: Chain::new(sink, file), session_id: String::new(), starts, parent_session, agent: Sym::NONE };
    let Ok(text) = std::str::from_utf8(&file_bytes[begin.min(file_bytes.len())..]) else {
        return vec![DocRecord { offset: begin, outcome: LineOutcome::Failed(Failure::invalid_utf8()) }];
    };
    let records = if is_json_lines(text) {
        json_lines(sink, bytes, file, text, &mut state)
    } else {
        document(sink, bytes, file, text, &mut state)
    };
    state.chain.finish(sink);
    records
}

/// The session whose folder holds a subagent's file: `<session id>` of
/// `chats/<session id>/<agent id>.jsonl`, or `None` for any other path.
pub(crate) fn subagent_folder(path: &str) -> Option<&str> {
    let mut parts = path.rsplit(['/', '\\']).filter(|p| !p.is_empty());
    let (_name, folder, chats) = (parts.next()?, parts.next()?, parts.next()?);
    (chats == "chats" && folder != "chats").then_some(folder)
}

/// Whether a Gemini CLI file is the newer JSON Lines rather than one JSON object: one of its
/// first two lines is an object of its own (not a whole legacy object on one line), so a cut
/// metadata line leaves the records after it readable.
pub(crate) fn is_json_lines(text: &str) -> bool {
    text.split('\n').map(str::trim).filter(|l| !l.is_empty()).take(2).any(|line| {
        line.starts_with('{') && serde_json::from_str::<Head>(line).is_ok_and(|head| head.messages.is_none())
    })
}

/// Where each message of a legacy document starts (byte offsets in `text`), or `None` when the
/// document is not one whole JSON object with a message list.
pub(crate) fn message_offsets(text: &str) -> Option<Vec<usize>> {
    let head: Head = serde_json::from_str(text).ok()?;
    let messages: Vec<&RawValue> = serde_json::from_str(head.messages?.get()).ok()?;
    let base = text.as_ptr() as usize;
    Some(messages.iter().map(|m| m.get().as_ptr() as usize - base).collect())
}

/// The legacy file: one JSON object.
fn document(sink: &mut Sink, bytes: &[Vec<u8>], file: FileId, text: &str, state: &mut State) -> Vec<DocRecord> {
    let at = Locator { file_bytes: bytes.get(file as usize).map(Vec::as_slice).unwrap_or_default() };
    let offset = |s: &str| at.offset_of(s.as_bytes()).unwrap_or(0);
    let start = offset(text) + text.len() - text.trim_start().len();
    let mut records = Vec::new();
    let not_object = |what: String| LineOutcome::Failed(Failure::new(DiagnosticKind::NotAnObject, what));
    if !text.trim_start().starts_with('{') {
        let outcome = match serde_json::from_str::<crate::json::Shape>(text) {
            Ok(shape) => not_object(format!("the file is a JSON {}, not a Gemini CLI session object", shape.name())),
            Err(error) => LineOutcome::Failed(Failure::from_json(&error)),
        };
        return vec![DocRecord { offset: start, outcome }];
    }
    let type_name = intern(sink, "session");
    sink.count_type(type_name);
    // The whole object, or the part before a break.
    let header_text: String;
    let (head, messages, broken): (Head, Option<&str>, Option<serde_json::Error>) =
        match serde_json::from_str::<Head>(text) {
            Ok(head) => {
                let messages = head.messages.map(RawValue::get);
                (head, messages, None)
            }
            Err(error) => {
                // The header fields come first: read them up to the messages.
                let key = memchr::memmem::find(text.as_bytes(), b"\"messages\"");
                let header = key.map_or(text, |k| &text[..k]).trim_end().trim_end_matches(',');
                header_text = format!("{header}}}");
                let head = serde_json::from_str::<Head>(&header_text).unwrap_or_default();
                let messages = key.and_then(|k| {
                    let rest = &text[k + "\"messages\"".len()..];
                    let rest = rest.trim_start().strip_prefix(':')?.trim_start();
                    rest.starts_with('[').then_some(rest)
                });
                (head, messages, Some(error))
            }
        };
    // The header's span: up to the message list (all of it without one).
    let header_end = messages.map_or(offset(text) + text.len(), |list| offset(list) + 1);
    let header_line = Line {
        file,
        line_no: state.line_of(start),
        span: Span::in_file(start, header_end.saturating_sub(start)),
        type_name,
        timestamp: time(&head.start_time),
        at,
    };
    state.head(sink, &header_line, &head);
    records.push(DocRecord { offset: start, outcome: LineOutcome::Metadata });

    // The messages, one by one, up to the end of the list or the first that cannot be read.
    let mut stop: Option<(usize, LineOutcome)> = None;
    let mut end_of_list = None;
    if let Some(list) = messages {
        let rest = list.strip_prefix('[').unwrap_or(list);
        let walk = walk_message_list(rest, offset, &LIST_WORDS, |raw, _| {
            let outcome = message(sink, bytes, file, raw, state, None);
            records.push(DocRecord { offset: offset(raw.get()), outcome });
        });
        end_of_list = walk.end_of_list;
        stop = walk.stop.map(|(at, why)| match why {
            ListStop::Failed(outcome) => (at, outcome),
            ListStop::BrokenItem(error) => (at, failed_message(&error, state.line_of(at))),
        });
    }
    // The lines after the list (its `]`, the fields after it, the closing brace): metadata, from
    // the line after the last message. A break: one failure, from where it broke.
    let tail = match stop {
        Some(stop) => Some(stop),
        None => {
            let after = end_of_list.unwrap_or(offset(text) + text.len());
            let broken = broken.map(|error| failed_tail(&error));
            broken.map(|outcome| (after, outcome)).or(Some((after, LineOutcome::Metadata)))
        }
    };
    if let Some((offset, outcome)) = tail {
        // The tail starts on the line after the one its first byte is on, unless that line holds
        // nothing but it (a `]` alone is the tail's).
        let line = state.line_of(offset);
        let line_start = state.starts[(line as usize).saturating_sub(1).min(state.starts.len() - 1)];
        let own_line = at.file_bytes.get(line_start..offset).is_some_and(|b| b.iter().all(u8::is_ascii_whitespace));
        let tail_at = if own_line { offset } else { state.starts.get(line as usize).copied().unwrap_or(usize::MAX) };
        let failed = matches!(outcome, LineOutcome::Failed(_));
        if tail_at != usize::MAX {
            records.push(DocRecord { offset: tail_at, outcome });
        } else if failed {
            // The break is on the last line, which a message holds: it is reported there.
            records.push(DocRecord { offset, outcome });
        }
    }
    records
}

/// A message that could not be read, in the message list of a document; it starts on `line`.
fn failed_message(error: &serde_json::Error, line: u32) -> LineOutcome {
    let eof = error.classify() == serde_json::error::Category::Eof;
    let mut failure = Failure::from_json(error);
    if eof {
        failure.kind = DiagnosticKind::TruncatedLine;
        failure.message = format!(
            "the document ends inside the message that starts on line {line}: the file is cut short or still being written; the messages before it are read"
        );
    } else {
        // serde counts lines from the message's start.
        let error_line = line.saturating_add(u32::try_from(error.line()).unwrap_or(1).saturating_sub(1));
        let what = failure.message.split_once(": ").map_or(failure.message.as_str(), |(_, what)| what);
        failure.message = format!(
            "the message that starts here is not valid JSON (line {error_line}: {what}); the messages before it are read"
        );
    }
    LineOutcome::Failed(failure)
}

/// How a Gemini CLI document tells the breaks of its message list.
const LIST_WORDS: ListWords = ListWords {
    cut_in_list: "the document ends inside its message list: the file is cut short or still being written",
    no_comma: "the message list goes on without a comma after this message",
};

/// What follows a message list that was read whole, in a document that is broken after it.
fn failed_tail(error: &serde_json::Error) -> LineOutcome {
    let eof = error.classify() == serde_json::error::Category::Eof;
    let mut failure = Failure::from_json(error);
    failure.message = if eof {
        "the document ends before its closing brace: the file is cut short; every message was read".into()
    } else {
        format!(
            "the document is not valid JSON after its messages (line {}: {}); every message was read",
            error.line(),
            failure.message
        )
    };
    if eof {
        failure.kind = DiagnosticKind::TruncatedLine;
    }
    LineOutcome::Failed(failure)
}

/// The newer file: JSON Lines of metadata, messages, updates and rewinds.
fn json_lines(sink: &mut Sink, bytes: &[Vec<u8>], file: FileId, text: &str, state: &mut State) -> Vec<DocRecord> {
    let at = Locator { file_bytes: bytes.get(file as usize).map(Vec::as_slice).unwrap_or_default() };
    let base = at.offset_of(text.as_bytes()).unwrap_or(0);
    // (offset, line text) of every line.
    let mut lines: Vec<(usize, &str)> = Vec::new();
    let mut from = 0;
    for piece in text.split_inclusive('\n') {
        let line = piece.strip_suffix('\n').unwrap_or(piece);
        lines.push((base + from, line.strip_suffix('\r').unwrap_or(line)));
        from += piece.len();
    }
    let heads: Vec<Option<Head>> = lines
        .iter()
        .map(|(_, line)| serde_json::from_str::<Head>(line).ok().filter(|_| line.trim_start().starts_with('{')))
        .collect();
    // The first and the last record of each message id.
    let mut first_of: FxHashMap<&str, usize> = FxHashMap::default();
    let mut last_of: FxHashMap<&str, usize> = FxHashMap::default();
    for (i, head) in heads.iter().enumerate() {
        if let Some(id) = head.as_ref().and_then(message_id) {
            first_of.entry(id).or_insert(i);
            last_of.insert(id, i);
        }
    }
    // How the last record of a message read at its first one ended up.
    let mut read_at_first: FxHashMap<usize, LineOutcome> = FxHashMap::default();
    // The messages of the current path, for rewinds: (message id, uuid of its last entry).
    let mut path: Vec<(String, String)> = Vec::new();
    let mut records = Vec::with_capacity(lines.len());
    for (i, &(offset, line)) in lines.iter().enumerate() {
        let line_no = state.line_of(offset);
        if line.trim().is_empty() {
            records.push(DocRecord { offset, outcome: LineOutcome::Ignored });
            continue;
        }
        let Some(head) = &heads[i] else {
            let mut outcome = match parse_line::<Head>(line) {
                Err(outcome) => outcome,
                Ok(_) => LineOutcome::Failed(Failure::new(DiagnosticKind::InvalidJson, "unreadable line".into())),
            };
            if let LineOutcome::Failed(failure) = &mut outcome
                && failure.eof
                && i + 1 == lines.len()
                && !text.ends_with('\n')
            {
                failure.kind = DiagnosticKind::TruncatedLine;
                failure.message = format!(
                    "the last line ends without a newline in the middle of its JSON ({} bytes): the file is truncated or still being written",
                    line.len()
                );
            }
            records.push(DocRecord { offset, outcome });
            continue;
        };
        let span = Span::in_file(offset, line.len());
        let outcome = if let Some(id) = message_id(head) {
            let first = first_of.get(id).copied().unwrap_or(i);
            let last = last_of.get(id).copied().unwrap_or(i);
            if i == first {
                // The message as its last record has it, at the place of its first.
                let (last_offset, last_line) = lines[last];
                let outcome = match serde_json::from_str::<&RawValue>(last_line) {
                    Ok(raw) => message(sink, bytes, file, raw, state, Some(state.line_of(last_offset))),
                    Err(error) => LineOutcome::Failed(Failure::from_json(&error)),
                };
                if matches!(outcome, LineOutcome::Entry) {
                    path.push((id.to_owned(), state.chain.last.clone()));
                }
                if last == i {
                    outcome
                } else {
                    read_at_first.insert(last, outcome);
                    LineOutcome::Ignored
                }
            } else if i == last {
                read_at_first.remove(&i).unwrap_or(LineOutcome::Ignored)
            } else {
                // An earlier version of a message a later record replaces.
                LineOutcome::Ignored
            }
        } else if let Some(target) = head.rewind_to.as_deref() {
            let type_name = intern(sink, "$rewindTo");
            sink.count_type(type_name);
            let meta = Line { file, line_no, span, type_name, timestamp: i64::MIN, at };
            meta.push_meta(sink, state.chain.session);
            if let Some(last) = sink.corpus.metas.last_mut() {
                last.text = at.str_span(&mut sink.corpus.arena, &head.rewind_to);
            }
            // Back to before the message named: what follows hangs from the one before it.
            match path.iter().position(|(id, _)| id == target) {
                Some(p) => path.truncate(p),
                None => path.clear(),
            }
            state.chain.last = path.last().map(|(_, uuid)| uuid.clone()).unwrap_or_default();
            LineOutcome::Metadata
        } else if let Some(set) = head.set {
            let type_name = intern(sink, "$set");
            sink.count_type(type_name);
            let update: Head = serde_json::from_str(set.get()).unwrap_or_default();
            let meta = Line { file, line_no, span, type_name, timestamp: time(&update.last_updated), at };
            meta.push_meta(sink, state.chain.session);
            state.summary(sink, &meta, &update.summary);
            LineOutcome::Metadata
        } else {
            let known = head.session_id.0.is_some();
            let type_name = intern(sink, if known { "session" } else { "(untyped)" });
            sink.count_type(type_name);
            let meta = Line { file, line_no, span, type_name, timestamp: time(&head.start_time), at };
            state.head(sink, &meta, head);
            LineOutcome::Metadata
        };
        records.push(DocRecord { offset, outcome });
    }
    records
}

/// The id of a message record (a record with an `id`, not an update or a rewind).
fn message_id<'h>(head: &'h Head) -> Option<&'h str> {
    if head.set.is_some() || head.rewind_to.0.is_some() {
        return None;
    }
    head.id.as_deref()
}

/// Reads one message into entries; `line_at` is the line of the record read, when it is not
/// where the message is placed.
fn message(
    sink: &mut Sink,
    bytes: &[Vec<u8>],
    file: FileId,
    raw: &RawValue,
    state: &mut State,
    line_at: Option<u32>,
) -> LineOutcome {
    let at = Locator { file_bytes: bytes.get(file as usize).map(Vec::as_slice).unwrap_or_default() };
    let span = at.raw_span(Some(raw));
    let line_no = line_at.unwrap_or_else(|| state.line_of(at.offset_of(raw.get().as_bytes()).unwrap_or(0)));
    let text = raw.get();
    let message: Message = match parse_line(text) {
        Ok(message) => message,
        Err(outcome) => return outcome,
    };
    let ty = message.ty.as_deref().unwrap_or("");
    let type_name = intern(sink, if ty.is_empty() { "(untyped)" } else { ty });
    sink.count_type(type_name);
    let line = Line { file, line_no, span, type_name, timestamp: time(&message.timestamp), at };
    let id = message.id.as_deref().unwrap_or("");
    let uuid = state.uuid(id, line_no);
    match ty {
        "user" => {
            let mut entry = line.entry(sink, EntryKind::User);
            content(sink, &line, &mut entry, message.content, &uuid);
            push(sink, bytes, entry, &uuid, state)
        }
        "gemini" => gemini(sink, bytes, &line, &message, &uuid, state),
        _ => {
            // info, warning, error: what the CLI told the user.
            let mut entry = line.entry(sink, EntryKind::System);
            entry.subtype = type_name;
            entry.flags.set(EntryFlags::META, true);
            entry.flags.set(EntryFlags::API_ERROR, ty == "error");
            content(sink, &line, &mut entry, message.content, &uuid);
            push(sink, bytes, entry, &uuid, state)
        }
    }
}

/// A response: thoughts, text and tool calls; the results of the calls in a user entry after
/// it; its tokens as the response's usage.
fn gemini(
    sink: &mut Sink,
    bytes: &[Vec<u8>],
    line: &Line,
    message: &Message,
    uuid: &str,
    state: &mut State,
) -> LineOutcome {
    let mut entry = line.entry(sink, EntryKind::Assistant);
    for thought in &message.thoughts.0 {
        let subject = thought.subject.as_deref().unwrap_or("").trim();
        let body = if subject.is_empty() {
            line.at.raw_span(thought.description)
        } else {
            let description = raw_text(thought.description);
            arena_json(&mut sink.corpus.arena, &format!("{subject}\n{}", description.trim()))
        };
        push_block(sink, &mut entry, BlockKind::Thinking, Sym::NONE, Span::EMPTY, body);
    }
    content_blocks(sink, &line.at, &mut entry, message.content, uuid);
    entry.model = match message.model.as_deref().filter(|m| !m.is_empty()) {
        Some(model) => {
            state.chain.model = intern(sink, model);
            state.chain.model
        }
        None => state.chain.model,
    };
    let mut calls = Vec::with_capacity(message.tool_calls.0.len());
    for (i, call) in message.tool_calls.0.iter().enumerate() {
        let name = intern_l(sink, &call.name);
        let id = if call.id.as_deref().unwrap_or("").is_empty() {
            arena_str(&mut sink.corpus.arena, &format!("{uuid}:call{i}"))
        } else {
            str_span(sink, &line.at, &call.id)
        };
        let block = push_block(sink, &mut entry, BlockKind::ToolUse, name, id, line.at.raw_span(call.args));
        if runs_subagent(&line.at, call)
            && let Some(block) = sink.corpus.blocks.get_mut(block as usize)
        {
            block.flags |= Block::SPAWNS_AGENT;
        }
        calls.push((id, name, call));
    }
    let model = entry.model;
    let outcome = push(sink, bytes, entry, uuid, state);
    if !matches!(outcome, LineOutcome::Entry) {
        return outcome;
    }
    let anchor = state.chain.last_entry;
    if let Some(tokens) = message.tokens.filter(|raw| raw.get().starts_with('{')) {
        let t: Tokens = serde_json::from_str(tokens.get()).unwrap_or_default();
        let usage = usage(t.input, t.cached, t.tool, t.output, t.thoughts);
        push_response(sink, new_response(line.file, anchor, model, Some(usage)));
    }
    // The results, in one user entry after the response; the result of a call that names the
    // subagent it ran, in an entry of its own that reports it.
    type Call<'c, 'a> = &'c (Span, Sym, &'a ToolCall<'a>);
    let (named, results): (Vec<Call>, Vec<Call>) = calls
        .iter()
        .filter(|(_, _, call)| has_result(call))
        .partition(|(_, _, call)| call.agent_id.as_deref().is_some_and(|a| !a.trim().is_empty()));
    let mut groups: Vec<(Vec<Call>, String, Sym)> = Vec::new();
    if !results.is_empty() {
        groups.push((results, format!("{uuid}:results"), Sym::NONE));
    }
    for (i, named) in named.into_iter().enumerate() {
        let agent = intern(sink, named.2.agent_id.as_deref().unwrap_or("").trim());
        groups.push((vec![named], format!("{uuid}:results:{i}"), agent));
    }
    for (results, results_uuid, agent) in groups {
        let mut entry = line.entry(sink, EntryKind::User);
        entry.subtype = intern(sink, "tool_result");
        entry.linked_agent_id = agent;
        for (id, name, call) in results {
            let status = call.status.as_deref().unwrap_or("");
            let body = if status == "cancelled" && result_body(&line.at, call).is_empty() {
                arena_json(&mut sink.corpus.arena, "[Request interrupted by user] the call was cancelled")
            } else {
                result_body(&line.at, call)
            };
            let block = push_block(sink, &mut entry, BlockKind::ToolResult, *name, *id, body);
            if status == "error" {
                mark_error(sink, &mut entry, block);
            }
            if status == "cancelled" {
                // The user cancelled the calls of the response (all of them, as the CLI does).
                entry.flags.set(EntryFlags::INTERRUPTED, true);
                entry.tool_use_result = arena_raw(&mut sink.corpus.arena, "{\"interrupted\":true}");
            }
        }
        let _ = push(sink, bytes, entry, &results_uuid, state);
    }
    LineOutcome::Entry
}

/// Whether a call ran a subagent: its record names the agent, its result says the subagent
/// finished (or failed), or what it displays is the subagent's progress.
fn runs_subagent(at: &Locator, call: &ToolCall) -> bool {
    if call.agent_id.as_deref().is_some_and(|a| !a.trim().is_empty()) {
        return true;
    }
    let progress =
        call.result_display.is_some_and(|d| d.get().starts_with('{') && d.get().contains("\"isSubagentProgress\""));
    let body = result_body(at, call);
    let text = crate::json::decode_value(body.bytes(at.file_bytes, &[]));
    progress || text.trim_start().starts_with("Subagent '")
}

/// Usage from Gemini API counts: the prompt includes the cached part and the tool-use prompt is
/// apart; the candidates exclude the thoughts, billed as output.
pub(crate) fn usage(prompt: LNum, cached: LNum, tool: LNum, candidates: LNum, thoughts: LNum) -> Usage {
    let prompt = prompt.as_u64();
    let cached = cached.as_u64().min(prompt);
    Usage {
        input_tokens: (prompt - cached).saturating_add(tool.as_u64()),
        cache_read_input_tokens: cached,
        output_tokens: candidates.as_u64().saturating_add(thoughts.as_u64()),
        ..Usage::default()
    }
}

/// Whether a call ended (a result, or a status that says how).
fn has_result(call: &ToolCall) -> bool {
    let present = |raw: Option<&RawValue>| raw.is_some_and(|r| r.get() != "null");
    present(call.result)
        || present(call.result_display)
        || matches!(call.status.as_deref(), Some("success" | "error" | "cancelled"))
}

/// The text of a call's result: the `output` (or `error`) of its function response, else the
/// `resultDisplay` text, else the response as it stands.
fn result_body(at: &Locator, call: &ToolCall) -> Span {
    let parts: LList<Part> = call.result.and_then(|raw| serde_json::from_str(raw.get()).ok()).unwrap_or_default();
    for part in &parts.0 {
        let Some(response) = part.function_response else { continue };
        let response: Function = serde_json::from_str(response.get()).unwrap_or_default();
        if let Some(body) = response.response {
            return response_text(at, body);
        }
    }
    match call.result_display {
        Some(display) if display.get() != "null" => at.raw_span(Some(display)),
        _ => match call.result {
            Some(result) if result.get() != "null" => at.raw_span(Some(result)),
            _ => Span::EMPTY,
        },
    }
}

/// The text of a function response: its `output` (or `error`) string, else the response as it
/// stands.
fn response_text(at: &Locator, response: &RawValue) -> Span {
    let output: Output = serde_json::from_str(response.get()).unwrap_or_default();
    match output.output.filter(|r| is_string(Some(r))).or(output.error.filter(|r| is_string(Some(r)))) {
        Some(text) => at.raw_span(Some(text)),
        None => at.raw_span(Some(response)),
    }
}

/// The content of a prompt or a notice: a string, or Parts.
fn content(sink: &mut Sink, line: &Line, entry: &mut Entry, raw: Option<&RawValue>, synth: &str) {
    let Some(raw) = raw else { return };
    if is_string(Some(raw)) {
        entry.content = line.at.raw_span(Some(raw));
        entry.flags.set(EntryFlags::STRING_CONTENT, true);
        return;
    }
    content_blocks(sink, &line.at, entry, Some(raw), synth);
}

/// Content as blocks: a string as one text block; Parts as text, thinking (`thought: true`),
/// images, tool uses (`functionCall`) and results (`functionResponse`), the rest by their kind.
/// A call without an id is named `<synth>:call<n>`.
pub(crate) fn content_blocks(sink: &mut Sink, at: &Locator, entry: &mut Entry, raw: Option<&RawValue>, synth: &str) {
    let Some(raw) = raw else { return };
    if is_string(Some(raw)) {
        if raw.get() != "\"\"" {
            push_block(sink, entry, BlockKind::Text, Sym::NONE, Span::EMPTY, at.raw_span(Some(raw)));
        }
        return;
    }
    // One Part, or a list of them.
    let parts: Vec<Part> = if raw.get().starts_with('{') {
        serde_json::from_str(raw.get()).map(|p| vec![p]).unwrap_or_default()
    } else {
        serde_json::from_str::<LList<Part>>(raw.get()).map(|l| l.0).unwrap_or_default()
    };
    for (n, part) in parts.iter().enumerate() {
        if let Some(call) = part.function_call.or(part.function_response) {
            let function: Function = serde_json::from_str(call.get()).unwrap_or_default();
            let name = intern_l(sink, &function.name);
            let id = match function.id.as_deref() {
                Some(id) if !id.is_empty() => str_span(sink, at, &function.id),
                _ => arena_str(&mut sink.corpus.arena, &format!("{synth}:call{n}")),
            };
            if part.function_call.is_some() {
                push_block(sink, entry, BlockKind::ToolUse, name, id, at.raw_span(function.args));
            } else {
                let body = function.response.map_or(Span::EMPTY, |r| response_text(at, r));
                push_block(sink, entry, BlockKind::ToolResult, name, id, body);
            }
            continue;
        }
        let (kind, name) = if part.text.is_some() {
            (if part.thought.is_true() { BlockKind::Thinking } else { BlockKind::Text }, "")
        } else if part.inline_data != crate::json::Shape::Absent {
            (BlockKind::Image, "")
        } else if part.file_data != crate::json::Shape::Absent {
            (BlockKind::Unknown, "fileData")
        } else {
            (BlockKind::Unknown, "(untyped)")
        };
        let name = if name.is_empty() { Sym::NONE } else { intern(sink, name) };
        push_block(sink, entry, kind, name, Span::EMPTY, at.raw_span(part.text));
    }
}

/// Adds an entry after the last one of the thread (a subagent's, in a subagent's file).
fn push(sink: &mut Sink, bytes: &[Vec<u8>], mut entry: Entry, uuid: &str, state: &mut State) -> LineOutcome {
    if state.agent.is_some() {
        entry.agent_id = state.agent;
        entry.flags.set(EntryFlags::SIDECHAIN, true);
    }
    match state.chain.push(sink, bytes, entry, uuid) {
        Ok(_) => LineOutcome::Entry,
        Err(message) => LineOutcome::Duplicate(message),
    }
}
