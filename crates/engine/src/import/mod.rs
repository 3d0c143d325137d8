//! Importers: one per log format, each turning lines into the common model. A file's format
//! is sniffed from its name and first lines, as speedscope does.
//!
//! - [`claude_code`]: Claude Code session logs (and the seed documents' older shapes);
//! - [`agent_sdk`]: Claude Agent SDK / `claude -p --output-format stream-json` messages;
//! - [`codex`]: Codex CLI session rollouts and Codex SDK (`codex exec --json`) thread events;
//! - [`ollama`]: captures of Ollama `/api/chat` streams, chunks joined into messages;
//! - [`pi`]: Pi coding-agent sessions (a tree of entries by `id`/`parentId`);
//! - [`copilot`]: GitHub Copilot CLI sessions (`session-state/<id>/events.jsonl`, a chain of
//!   events by `id`/`parentId`, subagents by `agentId`);
//! - [`aider`]: Aider chat histories (`.aider.chat.history.md`: markdown, one session per run).
//! - [`gemini`]: Gemini CLI sessions (one JSON document, or JSON Lines with updates), read whole;
//! - [`qwen`]: Qwen Code sessions (a Gemini CLI fork: records chained by `uuid`/`parentUuid`).
//! - [`cline`]: Cline and Roo Code tasks (a folder of JSON documents: the API conversation, the
//!   UI messages, the task metadata), read whole, the files of a task one session;
//! - [`amp`]: Amp threads (one JSON document per thread), read whole;
//! - [`cursor`]: Cursor CLI agent transcripts (`agent-transcripts/<id>/<id>.jsonl`, Anthropic-style
//!   messages without timestamps, subagents in `subagents/`);
//! - [`opencode`] and [`cursor_ide`]: OpenCode sessions and Cursor IDE chats, whose agents keep
//!   them in SQLite databases: read from the database's record stream ([`records`]: one JSON line
//!   per row, made by whoever opens the database), every row kept and the conversations built
//!   when the stream ends;
//! - [`opencode_storage`]: OpenCode's older JSON storage (one record per file), each file read
//!   whole into a record line, the lines of all the files loaded made into one record stream that
//!   the loader reads with [`opencode`] once every file is in.
//!
//! Layers, one way: the loader hands each complete line to `import_line` here, which picks
//! the importer of the file's format. A document format (`is_document`) is not read line by
//! line: the loader keeps its bytes (up to a bound) and hands the whole text to
//! `import_document` once the file ends; the importer says where each record begins and how it
//! ended up (`DocRecord`), and the loader counts the lines from that. Importers write into a `Sink` (`sink.rs`: the corpus being
//! built and its indexes) and say how each line ended up (`LineOutcome`); the loader counts the
//! lines and reports the failures. Nothing here uses the loader. The importers build on
//! `common.rs` (a file's conversation chain, the `Line` being read, entries and arena text) and
//! on the crate's spans, JSON pieces and model, never on each other, with two exceptions: Agent
//! SDK lines are Claude messages, which `agent_sdk` reads with the Claude Code importer; and Qwen
//! Code records hold Gemini API Parts and tokens, which `qwen` reads with `gemini`'s helpers.

pub mod agent_sdk;
pub mod aider;
pub mod amp;
pub mod claude_code;
pub mod cline;
pub mod codex;
pub(crate) mod common;
pub mod copilot;
pub mod cursor;
pub mod cursor_ide;
pub mod gemini;
pub mod names;
pub mod ollama;
pub mod opencode;
pub mod opencode_storage;
pub mod pi;
pub mod qwen;
pub mod records;
mod sink;

use std::collections::BTreeMap;

use serde::Deserialize;
use serde::de::IgnoredAny;

use crate::json::{LStr, Shape};
use crate::model::{AgentMeta, Diagnostic, DiagnosticKind, FileId, Format};

pub(crate) use sink::{DocRecord, Failure, LineOutcome, Sink, Sniff};

/// What an importer remembers of a file between its lines: the thread so far, streams and
/// items not finished yet.
#[derive(Clone)]
pub(crate) enum State {
    AgentSdk(agent_sdk::State),
    CodexRollout(codex::rollout::State),
    CodexEvents(codex::events::State),
    Ollama(ollama::State),
    Pi(pi::State),
    Copilot(copilot::State),
    Aider(aider::State),
    Qwen(qwen::State),
    OpenCode(opencode::State),
    CursorIde(cursor_ide::State),
    Cursor(cursor::State),
}

/// Reads one line of a file of `format`.
pub(crate) fn import_line(
    format: Format,
    sink: &mut Sink,
    bytes: &[Vec<u8>],
    file: FileId,
    line_no: u32,
    text: &str,
    state: &mut Option<Box<State>>,
) -> LineOutcome {
    let state = match format {
        Format::AgentSdk
        | Format::CodexRollout
        | Format::CodexEvents
        | Format::Ollama
        | Format::Pi
        | Format::QwenCode
        | Format::CopilotCli
        | Format::CursorCli
        | Format::Aider
        | Format::OpenCode
        | Format::CursorIde => state.get_or_insert_with(|| {
            Box::new(match format {
                Format::AgentSdk => State::AgentSdk(agent_sdk::State::new(sink, file)),
                Format::CodexRollout => State::CodexRollout(codex::rollout::State::new(sink, file)),
                Format::CodexEvents => State::CodexEvents(codex::events::State::new(sink, file)),
                Format::Pi => State::Pi(pi::State::new(sink, file)),
                Format::QwenCode => State::Qwen(qwen::State::new(sink, file)),
                Format::CopilotCli => State::Copilot(copilot::State::new(sink, file)),
                Format::Aider => State::Aider(aider::State::new(sink, file)),
                Format::CursorCli => State::Cursor(cursor::State::new(sink, file)),
                Format::OpenCode => State::OpenCode(opencode::State::new(sink, file)),
                Format::CursorIde => State::CursorIde(cursor_ide::State::new(sink, file)),
                _ => State::Ollama(ollama::State::new(sink, file)),
            })
        }),
        _ => return claude_code::import_line(sink, bytes, file, line_no, text),
    };
    match state.as_mut() {
        State::AgentSdk(state) => agent_sdk::import_line(sink, bytes, file, line_no, text, state),
        State::CodexRollout(state) => codex::rollout::import_line(sink, bytes, file, line_no, text, state),
        State::CodexEvents(state) => codex::events::import_line(sink, bytes, file, line_no, text, state),
        State::Ollama(state) => ollama::import_line(sink, bytes, file, line_no, text, state),
        State::Pi(state) => pi::import_line(sink, bytes, file, line_no, text, state),
        State::Copilot(state) => copilot::import_line(sink, bytes, file, line_no, text, state),
        State::Aider(state) => aider::import_line(sink, bytes, file, line_no, text, state),
        State::Qwen(state) => qwen::import_line(sink, bytes, file, line_no, text, state),
        State::OpenCode(state) => opencode::import_line(sink, bytes, file, line_no, text, state),
        State::CursorIde(state) => cursor_ide::import_line(sink, bytes, file, line_no, text, state),
        State::Cursor(state) => cursor::import_line(sink, bytes, file, line_no, text, state),
    }
}

/// Whether files of `format` are one document read whole (when the file ends) rather than line
/// by line: a format whose records span lines, or that rewrites earlier records.
pub(crate) fn is_document(format: Format) -> bool {
    matches!(format, Format::GeminiCli | Format::Cline | Format::RooCode | Format::Amp | Format::OpenCodeStorage)
}

/// Whether a file of `format` is one JSON value (a legacy Gemini CLI session) rather than lines:
/// it is shared whole, not line by line.
pub(crate) fn is_one_json_value(format: Format, bytes: &[u8]) -> bool {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    format == Format::GeminiCli && std::str::from_utf8(bytes).is_ok_and(|text| !gemini::is_json_lines(text))
}

/// Reads a whole file of a document format; `begin` is where its text starts (after a BOM).
/// The records returned cover every line (see [`DocRecord`]).
pub(crate) fn import_document(
    format: Format,
    sink: &mut Sink,
    bytes: &[Vec<u8>],
    file: FileId,
    begin: usize,
) -> Vec<DocRecord> {
    let (records, what) = match format {
        Format::GeminiCli => (gemini::import_document(sink, bytes, file, begin), "a Gemini CLI session"),
        Format::Amp => (amp::import_document(sink, bytes, file, begin), "an Amp thread"),
        // One record per file, made into a record stream once every file is in.
        Format::OpenCodeStorage => return opencode_storage::import_document(sink, bytes, file, begin),
        Format::Cline | Format::RooCode => {
            let (records, kind) = cline::import_document(sink, bytes, file, begin);
            if kind != cline::Kind::History {
                // The UI messages and the metadata of a task hold no message: that is what they are.
                return records;
            }
            (records, "the API conversation of a task")
        }
        _ => return Vec::new(),
    };
    let entries = records.iter().any(|r| matches!(r.outcome, LineOutcome::Entry));
    let metadata = records.iter().filter(|r| matches!(r.outcome, LineOutcome::Metadata)).count();
    if !entries && metadata > 0 {
        sink.corpus.diagnostics.push(Diagnostic {
            file,
            line: 0,
            offset: 0,
            kind: DiagnosticKind::EmptyFile,
            message: format!("{what} without any message: only its session metadata"),
        });
    }
    records
}

/// The end of a file: streams cut short become interrupted messages, open items are closed. A
/// file of another agent's log that holds no message at all says so (Codex writes a rollout
/// with only its `session_meta` for every session opened and left).
pub(crate) fn finish_file(sink: &mut Sink, bytes: &[Vec<u8>], file: FileId, state: Option<Box<State>>) {
    let Some(state) = state else { return };
    let (entries, what) = match *state {
        State::AgentSdk(mut state) => (agent_sdk::finish(sink, &mut state), "Claude Agent SDK output"),
        State::CodexRollout(mut state) => (codex::rollout::finish(sink, &mut state), "a Codex CLI session rollout"),
        State::CodexEvents(mut state) => (codex::events::finish(sink, &mut state), "Codex SDK thread events"),
        State::Ollama(mut state) => (ollama::finish(sink, bytes, file, &mut state), "an Ollama chat capture"),
        State::Pi(mut state) => (pi::finish(sink, &mut state), "a Pi session"),
        State::Copilot(mut state) => (copilot::finish(sink, &mut state), "a GitHub Copilot CLI session"),
        State::Aider(mut state) => (aider::finish(sink, bytes, &mut state), "an Aider chat history"),
        State::Qwen(mut state) => (qwen::finish(sink, &mut state), "a Qwen Code session"),
        State::Cursor(mut state) => (cursor::finish(sink, &mut state), "a Cursor CLI agent transcript"),
        State::OpenCode(mut state) => (opencode::finish(sink, bytes, file, &mut state), "an OpenCode database"),
        State::CursorIde(mut state) => (cursor_ide::finish(sink, bytes, file, &mut state), "a Cursor IDE database"),
    };
    let counts = sink.corpus.files.get(file as usize).map(|f| f.counts).unwrap_or_default();
    if entries == 0 && counts.metadata > 0 {
        sink.corpus.diagnostics.push(Diagnostic {
            file,
            line: 0,
            offset: 0,
            kind: DiagnosticKind::EmptyFile,
            message: format!("{what} without any message: only {} line(s) of session metadata", counts.metadata),
        });
    }
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Probe<'a> {
    #[serde(rename = "type", borrow)]
    ty: LStr<'a>,
    #[serde(borrow)]
    subtype: LStr<'a>,
    uuid: Shape,
    #[serde(rename = "parentUuid")]
    parent_uuid: Shape,
    #[serde(rename = "parent_uuid")]
    parent_uuid_snake: Shape,
    #[serde(rename = "sessionId")]
    session_id: Shape,
    #[serde(rename = "session_id")]
    session_id_snake: Shape,
    #[serde(rename = "leafUuid")]
    leaf_uuid: Shape,
    #[serde(rename = "messageId")]
    message_id: Shape,
    #[serde(rename = "parent_tool_use_id")]
    parent_tool_use_id: Shape,
    payload: Shape,
    model: Shape,
    created_at: Shape,
    done: Shape,
    message: Shape,
    response: Shape,
    thread_id: Shape,
    #[serde(borrow)]
    object: LStr<'a>,
    #[serde(borrow)]
    provider: LStr<'a>,
    contents: Shape,
    candidates: Shape,
    id: Shape,
    #[serde(rename = "parentId")]
    parent_id: Shape,
    cwd: Shape,
    version: Shape,
    #[serde(rename = "modelId")]
    model_id: Shape,
    #[serde(rename = "projectHash")]
    project_hash: Shape,
    messages: Shape,
    #[serde(rename = "$set")]
    set: Shape,
    #[serde(rename = "$rewindTo")]
    rewind_to: Shape,
    data: Shape,
    #[serde(borrow)]
    role: LStr<'a>,
    content: Shape,
    /// The table of a database's record stream (see [`records`]).
    #[serde(borrow)]
    table: LStr<'a>,
}

/// The formats this version reads, for messages.
const KNOWN: &str = "Claude Code, Claude Agent SDK stream-json, Codex CLI rollouts, Codex SDK events, Ollama chat, Pi, \
                     Gemini CLI, Qwen Code or GitHub Copilot CLI sessions, Aider chat histories, Cline or Roo \
                     Code tasks, Amp threads, Cursor CLI agent transcripts, OpenCode storage files, or the record \
                     streams of OpenCode and Cursor IDE databases";

/// `rollout-<date>-<uuid>.jsonl`, the name of a Codex CLI session file.
pub(crate) fn is_rollout_name(name: &str) -> bool {
    name.starts_with("rollout-") && name.ends_with(".jsonl")
}

/// Decides what a file is from its name and first bytes (`window`; `whole_file` if that is all
/// of it).
pub(crate) fn sniff(window: &[u8], whole_file: bool, path: &str) -> Sniff {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let text = window.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(window);
    let start = text.iter().position(|b| !b.is_ascii_whitespace());
    let Some(start) = start else { return Sniff::Empty };
    let text = &text[start..];

    if let Some(kind) = binary_kind(text) {
        // An agent's database is read from its record stream, which whoever opens it makes (the
        // page with sqlite-wasm, the command line with rusqlite), never from its bytes.
        if text.starts_with(b"SQLite format 3") && names::is_database_name(name) {
            return Sniff::Rejected(format!(
                "this is {kind}, read through its record stream, not as it is (`sessionscope records {name} > \
                 {name}.jsonl` writes the stream)"
            ));
        }
        return Sniff::Rejected(format!("this is {kind}, not a session log"));
    }
    // A record of OpenCode's older storage: its place in the storage folder, or its ids, say it.
    if opencode_storage::sniff(text, path) {
        return Sniff::Format(Format::OpenCodeStorage);
    }
    // A Copilot CLI session is `session-state/<id>/events.jsonl`; its first event says so.
    if name == "events.jsonl" && starts_like_copilot(text) {
        return Sniff::Format(Format::CopilotCli);
    }
    // Markdown, not JSON Lines: its name and first line say it.
    if let Some(sniff) = aider::sniff(text, name) {
        return sniff;
    }
    if amp::sniff(text, name) {
        return Sniff::Format(Format::Amp);
    }
    if let Some(format) = cline::sniff(text, path) {
        return Sniff::Format(format);
    }
    if is_gemini_document(text, name) {
        return Sniff::Format(Format::GeminiCli);
    }
    // A Cursor CLI transcript lies in an `agent-transcripts` folder.
    let in_transcripts = cursor::is_transcript_path(path);
    let mut lines = text.split(|&b| b == b'\n').peekable();
    let mut seen = 0;
    let mut first_keys: Option<Vec<String>> = None;
    // The sidecar's `query` lines name the provider the rest of the file comes from.
    let mut provider: Option<Format> = None;
    while let Some(line) = lines.next() {
        let complete = lines.peek().is_some() || whole_file;
        if !complete {
            break;
        }
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        seen += 1;
        if seen > 16 {
            break;
        }
        let Ok(probe) = serde_json::from_slice::<Probe>(line) else { continue };
        if is_cursor_line(&probe, in_transcripts) {
            return Sniff::Format(Format::CursorCli);
        }
        if probe.uuid != Shape::Absent && is_qwen_record(line) {
            return Sniff::Format(Format::QwenCode);
        }
        if probe.ty.as_deref() == Some("query") {
            provider = provider.or(match probe.provider.as_deref() {
                Some("claude") => Some(Format::AgentSdk),
                Some("codex") => Some(Format::CodexEvents),
                Some("ollama") => Some(Format::Ollama),
                _ => None,
            });
            continue;
        }
        match classify(&probe) {
            Some(Ok(format)) => return Sniff::Format(format),
            Some(Err(message)) => return Sniff::Rejected(message),
            None => {
                if first_keys.is_none()
                    && let Ok(map) = serde_json::from_slice::<BTreeMap<String, IgnoredAny>>(line)
                {
                    first_keys = Some(map.into_keys().take(8).collect());
                }
            }
        }
    }
    if let Some(format) = provider {
        return Sniff::Format(format);
    }
    let has = |needle: &[u8]| memchr::memmem::find(text, needle).is_some();
    if is_rollout_name(name) && !has(b"\"parentUuid\"") {
        // Older rollouts hold bare response items; the name says what they are.
        return Sniff::Format(Format::CodexRollout);
    }
    if let Some(keys) = first_keys {
        return Sniff::Rejected(format!(
            "these are JSON lines, but not a session log this version knows ({KNOWN}); the first line's keys: {}",
            keys.join(", ")
        ));
    }
    match text[0] {
        b'{' => {}
        b'<' => return Sniff::Rejected("this looks like HTML or XML, not a session log (JSON Lines)".into()),
        b'[' => {
            return Sniff::Rejected("this is a JSON array; session logs are JSON Lines (one object per line)".into());
        }
        _ if seen > 1 && text.contains(&b'{') => {}
        _ => return Sniff::Rejected("this is plain text, not a session log (JSON Lines)".into()),
    }
    // No complete line parsed. A first line longer than the window is judged by its keys.
    if !whole_file && has(b"\"parentUuid\"") && has(b"\"parts\":[") {
        return Sniff::Format(Format::QwenCode);
    }
    if !whole_file && starts_like_copilot(text) {
        return Sniff::Format(Format::CopilotCli);
    }
    if !whole_file && starts_like_cursor(text, in_transcripts) {
        return Sniff::Format(Format::CursorCli);
    }
    if !whole_file && (has(b"\"parentUuid\"") || has(b"\"sessionId\"")) {
        return Sniff::Format(Format::ClaudeCode);
    }
    if !whole_file {
        let start = &text[..text.len().min(256)];
        let starts = |needle: &[u8]| memchr::memmem::find(start, needle).is_some();
        if starts(b"\"type\":\"session_meta\"") || starts(b"\"type\":\"response_item\"") {
            return Sniff::Format(Format::CodexRollout);
        }
        if start.starts_with(b"{\"type\":\"session\",") && starts(b"\"cwd\"") {
            return Sniff::Format(Format::Pi);
        }
        if starts(b"\"type\":\"system\",\"subtype\":\"init\"") {
            return Sniff::Format(Format::AgentSdk);
        }
        if starts(b"\"model\"") && (starts(b"\"messages\"") || starts(b"\"created_at\"")) {
            return Sniff::Format(Format::Ollama);
        }
    }
    if text.contains(&b'\n') && seen > 0 {
        // Several lines, none of them a JSON object: pretty-printed JSON, or something else.
        if serde_json::from_slice::<IgnoredAny>(text).is_ok() {
            return Sniff::Rejected(
                "this is one JSON document spread over several lines; session logs are JSON Lines".into(),
            );
        }
        // A Claude log whose first lines are all broken still loads, line by line, and so does
        // a Cursor transcript in its folder.
        if has(b"\"parentUuid\"") || has(b"\"sessionId\"") {
            return Sniff::Format(Format::ClaudeCode);
        }
        if in_transcripts && has(b"\"role\"") {
            return Sniff::Format(Format::CursorCli);
        }
        return Sniff::Rejected("the first lines are not valid JSON: this is not a session log".into());
    }
    // A single (maybe truncated) line: let the Claude importer report it line by line.
    Sniff::Format(Format::ClaudeCode)
}

/// A Qwen Code record: chained like a Claude Code line (`uuid`, `parentUuid`, `sessionId`), but
/// its `message` is Gemini API Content (`parts`, not `content`), or it carries `usageMetadata`,
/// `toolCallResult` or a `systemPayload`.
fn is_qwen_record(line: &[u8]) -> bool {
    #[derive(Deserialize, Default)]
    #[serde(default)]
    struct Record<'a> {
        #[serde(borrow)]
        message: Option<&'a serde_json::value::RawValue>,
        #[serde(rename = "usageMetadata")]
        usage_metadata: Shape,
        #[serde(rename = "systemPayload")]
        system_payload: Shape,
        #[serde(rename = "toolCallResult")]
        tool_call_result: Shape,
    }
    #[derive(Deserialize, Default)]
    #[serde(default)]
    struct Content {
        parts: Shape,
        content: Shape,
    }
    let Ok(record) = serde_json::from_slice::<Record>(line) else { return false };
    let content = record.message.and_then(|raw| serde_json::from_str::<Content>(raw.get()).ok()).unwrap_or_default();
    let gemini_content = content.parts == Shape::Array && content.content == Shape::Absent;
    gemini_content
        || record.tool_call_result == Shape::Object
        || record.usage_metadata == Shape::Object
        || record.system_payload == Shape::Object
}

/// `session-*.json`, the name of a legacy Gemini CLI session file.
pub(crate) fn is_gemini_name(name: &str) -> bool {
    name.starts_with("session-") && name.ends_with(".json")
}

/// A legacy Gemini CLI session: one JSON object (pretty-printed) that opens with `sessionId`
/// and `projectHash` and holds `messages`, under its name (`session-*.json`) or not.
fn is_gemini_document(text: &[u8], name: &str) -> bool {
    let Some(first_line) = text.split(|&b| b == b'\n').next() else { return false };
    let first_line = first_line.strip_suffix(b"\r").unwrap_or(first_line);
    // A whole object on the first line is judged by its keys (see `classify`).
    if text.first() != Some(&b'{') || serde_json::from_slice::<IgnoredAny>(first_line).is_ok() {
        return false;
    }
    let start = &text[..text.len().min(4096)];
    let has = |needle: &[u8]| memchr::memmem::find(start, needle).is_some();
    has(b"\"sessionId\"") && (has(b"\"projectHash\"") || is_gemini_name(name)) && has(b"\"messages\"")
}

/// `Some(Ok)` for a format this version reads, `Some(Err)` for a known format it does not read,
/// `None` when the line says nothing.
fn classify(probe: &Probe) -> Option<Result<Format, String>> {
    let ty = probe.ty.as_deref().unwrap_or("");
    let present = |s: Shape| !matches!(s, Shape::Absent | Shape::Null);
    // A database's record stream names the table of each row.
    match probe.table.as_deref() {
        Some("session" | "message" | "part") => return Some(Ok(Format::OpenCode)),
        Some("cursorDiskKV") => return Some(Ok(Format::CursorIde)),
        _ => {}
    }
    if matches!(ty, "session_meta" | "turn_context" | "response_item" | "event_msg" | "compacted")
        && present(probe.payload)
    {
        return Some(Ok(Format::CodexRollout));
    }
    if ty.starts_with("thread.") || ty.starts_with("turn.") || ty.starts_with("item.") {
        return Some(Ok(Format::CodexEvents));
    }
    if ty.is_empty()
        && present(probe.model)
        && present(probe.created_at)
        && (present(probe.message) || present(probe.done) || present(probe.response))
    {
        return Some(Ok(Format::Ollama));
    }
    let has_parent = probe.parent_uuid != Shape::Absent || probe.parent_uuid_snake != Shape::Absent;
    if present(probe.session_id_snake)
        && !has_parent
        && (probe.parent_tool_use_id != Shape::Absent
            || matches!(ty, "result" | "stream_event")
            || probe.subtype.as_deref() == Some("init"))
    {
        return Some(Ok(Format::AgentSdk));
    }
    if ty == "agent_error" {
        return Some(Ok(Format::AgentSdk));
    }
    if let Some(gemini) = classify_gemini(probe, ty) {
        return Some(Ok(gemini));
    }
    if let Some(pi) = classify_pi(probe, ty) {
        return Some(Ok(pi));
    }
    if is_copilot_event(probe, ty) {
        return Some(Ok(Format::CopilotCli));
    }
    if let Some("chat.completion.chunk" | "chat.completion" | "response" | "text_completion") = probe.object.as_deref()
    {
        return Some(Err(format!(
            "this looks like an OpenAI API response stream, not an agent session log this version reads ({KNOWN})"
        )));
    }
    if present(probe.candidates) || (present(probe.contents) && present(probe.model)) {
        return Some(Err(format!(
            "this looks like Gemini API requests or responses, not an agent session log this version reads ({KNOWN})"
        )));
    }
    let claude_keys = has_parent
        || present(probe.session_id)
        || present(probe.session_id_snake)
        || present(probe.leaf_uuid)
        || present(probe.message_id);
    let dag_type =
        matches!(ty, "user" | "assistant" | "system" | "progress" | "attachment" | "tool_use" | "tool_result");
    if claude_keys || (dag_type && present(probe.uuid)) || ty == "summary" {
        return Some(Ok(Format::ClaudeCode));
    }
    None
}

/// A Gemini CLI session: the metadata line of a JSON Lines file (or a whole legacy object on
/// one line), `{sessionId, projectHash, ...}` with no Claude fields; a `$set` or `$rewindTo`
/// record; or a `gemini` message.
fn classify_gemini(probe: &Probe, ty: &str) -> Option<Format> {
    let present = |s: Shape| !matches!(s, Shape::Absent | Shape::Null);
    let claude = probe.uuid != Shape::Absent || probe.parent_uuid != Shape::Absent || probe.message != Shape::Absent;
    if claude {
        return None;
    }
    let metadata =
        ty.is_empty() && present(probe.session_id) && (present(probe.project_hash) || probe.messages == Shape::Array);
    let update = probe.set == Shape::Object || probe.rewind_to == Shape::String;
    let response = ty == "gemini" && present(probe.id) && probe.session_id == Shape::Absent;
    (metadata || update || response).then_some(Format::GeminiCli)
}

/// A Pi session: its header (`{"type": "session", "id", "cwd", ...}` with a `version` or the
/// legacy `modelId`), or an entry of its tree (`id` and `parentId`, a Pi entry type).
fn classify_pi(probe: &Probe, ty: &str) -> Option<Format> {
    let present = |s: Shape| !matches!(s, Shape::Absent | Shape::Null);
    let claude = probe.uuid != Shape::Absent
        || probe.parent_uuid != Shape::Absent
        || probe.session_id != Shape::Absent
        || probe.session_id_snake != Shape::Absent;
    if claude {
        return None;
    }
    if ty == "session" && present(probe.id) && present(probe.cwd) && (present(probe.version) || present(probe.model_id))
    {
        return Some(Format::Pi);
    }
    let pi_type = matches!(
        ty,
        "message" | "model_change" | "thinking_level_change" | "compaction" | "branch_summary" | "custom_message"
    );
    (pi_type && present(probe.id) && probe.parent_id != Shape::Absent).then_some(Format::Pi)
}

/// The event types a Copilot CLI session begins with or is mostly made of.
const COPILOT_TYPES: [&str; 8] = [
    "session.start",
    "session.resume",
    "session.model_change",
    "system.message",
    "user.message",
    "assistant.message",
    "assistant.turn_start",
    "tool.execution_complete",
];

/// A Copilot CLI event: `{type, data}` with a type of its own (`session.start`, `user.message`,
/// ...) and none of Claude's keys. Its `id` and `parentId` are not required: the JSON output of
/// `copilot -p` prints the same events without them.
fn is_copilot_event(probe: &Probe, ty: &str) -> bool {
    let claude = probe.uuid != Shape::Absent || probe.parent_uuid != Shape::Absent || probe.session_id != Shape::Absent;
    !claude && COPILOT_TYPES.contains(&ty) && probe.data == Shape::Object
}

/// The first bytes of a Copilot CLI session: `{"type":"session.start","data":{...` (or another
/// of its event types), however long the line.
fn starts_like_copilot(text: &[u8]) -> bool {
    let start = &text[..text.len().min(256)];
    COPILOT_TYPES.iter().any(|ty| {
        let prefix = format!("{{\"type\":\"{ty}\",\"data\":{{");
        start.starts_with(prefix.as_bytes())
    })
}

/// A line of a Cursor CLI transcript: a message with a `role` of its own (`user` or `assistant`)
/// and its `message` object, and none of the keys of Claude's, Ollama's or the Agent SDK's lines;
/// or a `turn_ended` line. In an `agent-transcripts` folder (`in_transcripts`), a message with
/// its `role` and `content` at the top level, as some versions write it, is one too.
fn is_cursor_line(probe: &Probe, in_transcripts: bool) -> bool {
    let present = |s: Shape| !matches!(s, Shape::Absent | Shape::Null);
    let others = present(probe.uuid)
        || probe.parent_uuid != Shape::Absent
        || present(probe.session_id)
        || present(probe.session_id_snake)
        || present(probe.created_at)
        || present(probe.payload)
        || present(probe.data);
    if others {
        return false;
    }
    let ty = probe.ty.as_deref().unwrap_or("");
    if ty == "turn_ended" {
        return true;
    }
    let role = matches!(probe.role.as_deref(), Some("user" | "assistant"));
    let content = probe.message == Shape::Object || (in_transcripts && present(probe.content));
    ty.is_empty() && role && content
}

/// The first bytes of a Cursor CLI transcript whose first line is longer than the window:
/// `{"role":"user"` or `{"role":"assistant"`, or any `{"role":` in an `agent-transcripts` folder.
fn starts_like_cursor(text: &[u8], in_transcripts: bool) -> bool {
    text.starts_with(b"{\"role\":\"user\",\"message\":{")
        || text.starts_with(b"{\"role\":\"assistant\",\"message\":{")
        || (in_transcripts && text.starts_with(b"{\"role\":"))
}

/// Names a binary format from its magic bytes, or says "a binary file" for NUL bytes.
fn binary_kind(text: &[u8]) -> Option<&'static str> {
    const MAGIC: [(&[u8], &str); 8] = [
        (b"\x1f\x8b", "a gzip archive"),
        (b"PK\x03\x04", "a zip archive"),
        (b"%PDF", "a PDF document"),
        (b"\x89PNG", "a PNG image"),
        (b"\xff\xd8\xff", "a JPEG image"),
        (b"SQLite format 3", "an SQLite database"),
        (b"\x7fELF", "an executable"),
        (b"\0asm", "a WebAssembly module"),
    ];
    for (magic, name) in MAGIC {
        if text.starts_with(magic) {
            return Some(name);
        }
    }
    let sample = &text[..text.len().min(4096)];
    if memchr::memchr(0, sample).is_some() {
        return Some("a binary file");
    }
    None
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct MetaFile<'a> {
    #[serde(rename = "agentType", borrow)]
    agent_type: LStr<'a>,
    #[serde(borrow)]
    description: LStr<'a>,
    #[serde(rename = "toolUseId", borrow)]
    tool_use_id: LStr<'a>,
    #[serde(rename = "agentId", borrow)]
    agent_id: LStr<'a>,
}

/// Reads `agent-<id>.meta.json`.
pub(crate) fn parse_agent_meta(bytes: &[u8], agent_id_from_name: Option<&str>) -> Option<AgentMeta> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    if bytes.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
        return None;
    }
    let meta: MetaFile = serde_json::from_slice(bytes).ok()?;
    let text = |s: &LStr| s.as_deref().unwrap_or("").to_owned();
    Some(AgentMeta {
        agent_id: meta.agent_id.as_deref().or(agent_id_from_name).unwrap_or("").to_owned(),
        agent_type: text(&meta.agent_type),
        description: text(&meta.description),
        tool_use_id: text(&meta.tool_use_id),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rejected(bytes: &[u8]) -> String {
        match sniff(bytes, true, "x.jsonl") {
            Sniff::Rejected(message) => message,
            Sniff::Format(format) => panic!("read as {format:?}"),
            Sniff::Empty => panic!("empty"),
        }
    }

    #[test]
    fn other_files_are_named_not_parsed() {
        assert!(rejected(b"\x1f\x8b\x08\0").contains("gzip"));
        assert!(rejected(b"<!doctype html><html>").contains("HTML"));
        assert!(rejected(b"[{\"a\":1}]").contains("JSON array"));
        assert!(rejected(b"hello world\n").contains("plain text"));
        assert!(rejected(b"{\"object\":\"chat.completion.chunk\",\"choices\":[]}\n").contains("OpenAI"));
        assert!(rejected(b"{\"a\":1,\"b\":2}\n{\"a\":1}\n").contains("keys: a, b"));
        assert!(rejected(b"{\"a\":1,\"b\":2}\n").contains("Codex CLI rollouts"));
        assert!(rejected(b"{\n  \"a\": 1\n}\n").contains("one JSON document"));
    }

    #[test]
    fn claude_code_lines_are_recognised() {
        for line in [
            &b"{\"type\":\"summary\",\"summary\":\"x\",\"leafUuid\":\"u\"}\n"[..],
            b"{\"parentUuid\":null,\"type\":\"user\",\"uuid\":\"a\",\"sessionId\":\"s\"}\n",
            b"\xEF\xBB\xBF{\"type\":\"user\",\"uuid\":\"1\",\"message\":\"hi\"}\n",
            b"not json\n{\"type\":\"user\",\"uuid\":\"1\",\"parentUuid\":null}\n",
        ] {
            assert!(matches!(sniff(line, true, "x.jsonl"), Sniff::Format(Format::ClaudeCode)));
        }
    }

    #[test]
    fn other_agents_logs_are_recognised() {
        let format = |bytes: &[u8], name: &str| match sniff(bytes, true, name) {
            Sniff::Format(format) => format,
            Sniff::Rejected(message) => panic!("rejected: {message}"),
            Sniff::Empty => panic!("empty"),
        };
        let rollout = b"{\"timestamp\":\"x\",\"type\":\"session_meta\",\"payload\":{}}\n";
        assert_eq!(format(rollout, "x.jsonl"), Format::CodexRollout);
        let old_rollout = b"{\"id\":\"u\",\"timestamp\":\"t\",\"instructions\":null}\n{\"record_type\":\"state\"}\n";
        assert_eq!(format(old_rollout, "rollout-2025-05-01T10-00-00-u.jsonl"), Format::CodexRollout);
        assert_eq!(format(b"{\"type\":\"thread.started\",\"thread_id\":\"t\"}\n", "x.jsonl"), Format::CodexEvents);
        let chunk = b"{\"model\":\"qwen3\",\"created_at\":\"x\",\"message\":{},\"done\":false}\n";
        assert_eq!(format(chunk, "x.jsonl"), Format::Ollama);
        let init = b"{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s\",\"model\":\"m\"}\n";
        assert_eq!(format(init, "x.jsonl"), Format::AgentSdk);
        assert_eq!(format(b"{\"type\":\"agent_error\",\"error\":\"no cli\"}\n", "x.jsonl"), Format::AgentSdk);
        let query = b"{\"type\":\"query\",\"provider\":\"ollama\",\"prompt\":\"hi\"}\n{\"error\":\"x\"}\n";
        assert_eq!(format(query, "x.jsonl"), Format::Ollama);
        let pi = b"{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"t\",\"cwd\":\"/p\"}\n";
        assert_eq!(format(pi, "x.jsonl"), Format::Pi);
        // A first line longer than the window: its start says it.
        let cut = b"{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"t\",\"cwd\":\"/p/very/long";
        assert!(matches!(sniff(cut, false, "x.jsonl"), Sniff::Format(Format::Pi)));
        let copilot = b"{\"type\":\"session.start\",\"data\":{\"sessionId\":\"s\",\"producer\":\"copilot-agent\"},\"id\":\"e1\",\"timestamp\":\"t\",\"parentId\":null}\n";
        assert_eq!(format(copilot, "x.jsonl"), Format::CopilotCli);
        assert_eq!(format(copilot, "events.jsonl"), Format::CopilotCli);
        // A Copilot session.start longer than the window (it holds `sessionId`, which alone would
        // say Claude Code), or cut in a file named as Copilot names it.
        let cut = b"{\"type\":\"session.start\",\"data\":{\"sessionId\":\"s\",\"context\":{\"cwd\":\"/very/long";
        assert!(matches!(sniff(cut, false, "x.jsonl"), Sniff::Format(Format::CopilotCli)));
        assert!(matches!(sniff(cut, true, "events.jsonl"), Sniff::Format(Format::CopilotCli)));
        // Garbage named events.jsonl is not taken for a Copilot session.
        assert!(matches!(sniff(b"{\"a\":1}\n", true, "events.jsonl"), Sniff::Rejected(_)));
        // Aider's markdown: its header, whatever the name; its name without the header is not it.
        let aider = b"\n# aider chat started at 2025-06-01 09:00:00\n\n#### hi  \n";
        assert_eq!(format(aider, ".aider.chat.history.md"), Format::Aider);
        assert_eq!(format(aider, "notes.md"), Format::Aider);
        assert!(matches!(sniff(b"# notes\n", true, "x.aider.chat.history.md"), Sniff::Rejected(_)));
        // A Gemini CLI document, cut by the window; its JSON Lines metadata line and records.
        let gemini = b"{\n  \"sessionId\": \"s\",\n  \"projectHash\": \"h\",\n  \"messages\": [\n    {\n      \"content\": \"long";
        assert!(matches!(sniff(gemini, false, "x.json"), Sniff::Format(Format::GeminiCli)));
        assert!(
            matches!(sniff(&gemini[..20], false, "x.json"), Sniff::Format(Format::ClaudeCode)),
            "too little to say"
        );
        assert_eq!(
            format(b"{\"sessionId\":\"s\",\"projectHash\":\"h\",\"kind\":\"main\"}\n", "x.jsonl"),
            Format::GeminiCli
        );
        assert_eq!(format(b"{\"$rewindTo\":\"m1\"}\n", "x.jsonl"), Format::GeminiCli);
        assert_eq!(format(b"{\"id\":\"m2\",\"type\":\"gemini\",\"content\":\"hi\"}\n", "x.jsonl"), Format::GeminiCli);
    }

    #[test]
    fn agent_meta_files_are_read() {
        let meta =
            parse_agent_meta(br#"{"agentType":"Explore","description":"Find it","toolUseId":"toolu_1"}"#, Some("a12"))
                .unwrap();
        assert_eq!(meta.agent_id, "a12");
        assert_eq!(meta.tool_use_id, "toolu_1");
        assert!(parse_agent_meta(b"[1]", None).is_none());
    }
}
