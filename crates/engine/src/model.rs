//! The parsed model: every line of every file as a compact [`Entry`], a metadata line, or a
//! [`Diagnostic`]. Bulky values stay in the file bytes and are decoded on demand.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use crate::intern::Interner;
use crate::json;
use crate::span::{Span, Sym};

pub use crate::index::{BlockId, EntryId, EnvelopeId, ResponseId};

/// A loaded file: index into [`Corpus::files`] (and [`Corpus::bytes`]). Every entry, metadata
/// line and diagnostic has one, so it has no "none".
pub type FileId = u32;

/// What a conversation entry is. The raw `type` string is kept in [`Entry::type_name`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize, PartialOrd, Ord)]
#[repr(u8)]
pub enum EntryKind {
    User,
    Assistant,
    System,
    Progress,
    Attachment,
    /// A tool call extracted into a message of its own by another ingester (`type: "tool_use"`).
    ToolUse,
    /// A tool result extracted into a message of its own (`type: "tool_result"`).
    ToolResult,
    /// A line of a type this version does not know, kept so it still takes part in the DAG.
    Other,
}

impl EntryKind {
    pub fn name(self) -> &'static str {
        match self {
            EntryKind::User => "user",
            EntryKind::Assistant => "assistant",
            EntryKind::System => "system",
            EntryKind::Progress => "progress",
            EntryKind::Attachment => "attachment",
            EntryKind::ToolUse => "tool_use",
            EntryKind::ToolResult => "tool_result",
            EntryKind::Other => "other",
        }
    }
}

/// Boolean facts about an entry.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct EntryFlags(pub u32);

impl EntryFlags {
    pub const SIDECHAIN: u32 = 1;
    pub const META: u32 = 1 << 1;
    pub const COMPACT_SUMMARY: u32 = 1 << 2;
    pub const DELETED: u32 = 1 << 3;
    pub const TRANSCRIPT_ONLY: u32 = 1 << 4;
    pub const API_ERROR: u32 = 1 << 5;
    /// The message has at least one tool_use (or server_tool_use) block.
    pub const HAS_TOOL_USE: u32 = 1 << 6;
    /// The message has at least one tool_result block.
    pub const HAS_TOOL_RESULT: u32 = 1 << 7;
    /// A tool_result block has `is_error: true`.
    pub const TOOL_ERROR: u32 = 1 << 8;
    /// `message` was a plain string (the older inline-sidechain shape).
    pub const LEGACY_MESSAGE: u32 = 1 << 9;
    /// `message.content` (or `content`) is a string rather than an array of blocks.
    pub const STRING_CONTENT: u32 = 1 << 10;
    /// The entry carries the older `subtype: "tool_use"` / `toolName` shape.
    pub const LEGACY_TOOL_CALL: u32 = 1 << 11;
    /// The text says the user interrupted ("[Request interrupted by user").
    pub const INTERRUPTED: u32 = 1 << 12;
    /// Field names were snake_case (`parent_uuid`, `session_id`): an API export.
    pub const SNAKE_CASE: u32 = 1 << 13;
    /// The line had invalid UTF-8 that was replaced before parsing.
    pub const REPAIRED_UTF8: u32 = 1 << 14;
    /// `userType` was something other than "external".
    pub const INTERNAL_USER: u32 = 1 << 15;
    /// The entry has a top-level `error` (older sidechain shape) or an error `level`.
    pub const ERROR: u32 = 1 << 16;
    /// A note the agent recorded beside the conversation (the files a step changed, a
    /// checkpoint of the files): shown in the conversation, not folded away as bookkeeping.
    pub const NOTE: u32 = 1 << 17;

    pub fn has(self, flag: u32) -> bool {
        self.0 & flag != 0
    }

    pub fn set(&mut self, flag: u32, on: bool) {
        if on {
            self.0 |= flag;
        } else {
            self.0 &= !flag;
        }
    }
}

impl std::fmt::Debug for EntryFlags {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        const NAMES: [&str; 18] = [
            "sidechain",
            "meta",
            "compact_summary",
            "deleted",
            "transcript_only",
            "api_error",
            "has_tool_use",
            "has_tool_result",
            "tool_error",
            "legacy_message",
            "string_content",
            "legacy_tool_call",
            "interrupted",
            "snake_case",
            "repaired_utf8",
            "internal_user",
            "error",
            "note",
        ];
        let names: Vec<&str> =
            NAMES.iter().enumerate().filter(|(i, _)| self.0 & (1 << i) != 0).map(|(_, n)| *n).collect();
        write!(f, "{}", names.join("|"))
    }
}

/// One line of a session log that takes part in the conversation DAG.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Entry {
    pub file: FileId,
    /// 1-based line number in its file.
    pub line: u32,
    /// The whole line, for a lazy re-read of fields the model does not keep.
    pub line_span: Span,
    pub kind: EntryKind,
    /// `nestingLevel` of older inline sidechains (0 when absent).
    pub nesting_level: u8,
    pub flags: EntryFlags,
    /// The raw `type`.
    pub type_name: Sym,
    /// `subtype` for system entries, `data.type` for progress, `attachment.type` for attachments.
    pub subtype: Sym,
    pub uuid: Span,
    pub parent_uuid: Span,
    pub logical_parent_uuid: Span,
    pub session_id: Sym,
    /// `agentId`: the agent conversation this entry belongs to.
    pub agent_id: Sym,
    /// The agent this entry reports on or spawned: `data.agentId` of an agent_progress line, or
    /// `toolUseResult.agentId` of a Task/Agent result.
    pub linked_agent_id: Sym,
    /// Milliseconds since the epoch, or `i64::MIN` when absent or unreadable.
    pub timestamp_ms: i64,
    pub model: Sym,
    /// The API response of an assistant line (its lines share it), or `ResponseId::NONE`.
    pub response: ResponseId,
    /// `blocks_start..blocks_start + blocks_len` in [`Corpus::blocks`].
    pub blocks_start: u32,
    pub blocks_len: u32,
    /// `message.content` (or the legacy string `message`, or a system `content`), raw JSON.
    pub content: Span,
    /// `toolUseResult`, raw JSON.
    pub tool_use_result: Span,
    /// Envelope `toolUseID` (progress, hooks) or `sourceToolUseID`.
    pub tool_use_id: Span,
    /// Envelope `parentToolUseID`.
    pub parent_tool_use_id: Span,
    /// `sourceToolAssistantUUID`: the assistant line whose tool call this result answers.
    pub source_tool_assistant: Span,
    /// Its cwd, version, git branch and the like, shared with other entries.
    pub envelope: EnvelopeId,
}

impl Entry {
    pub fn has_timestamp(&self) -> bool {
        self.timestamp_ms != i64::MIN
    }

    pub fn is_sidechain(&self) -> bool {
        self.flags.has(EntryFlags::SIDECHAIN)
    }

    pub fn block_range(&self) -> std::ops::Range<usize> {
        self.blocks_start as usize..(self.blocks_start + self.blocks_len) as usize
    }
}

// The typed indices cost nothing: the arena items are as large as with bare `u32`s.
const _: () = assert!(std::mem::size_of::<Entry>() == 136);

/// What a content block is.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
#[repr(u8)]
pub enum BlockKind {
    Text,
    Thinking,
    RedactedThinking,
    ToolUse,
    ServerToolUse,
    ToolResult,
    /// `web_search_tool_result` and other server-side tool results.
    ServerToolResult,
    Image,
    Document,
    /// A block type this version does not know; its JSON is element `index` of the content.
    Unknown,
}

impl BlockKind {
    pub fn name(self) -> &'static str {
        match self {
            BlockKind::Text => "text",
            BlockKind::Thinking => "thinking",
            BlockKind::RedactedThinking => "redacted_thinking",
            BlockKind::ToolUse => "tool_use",
            BlockKind::ServerToolUse => "server_tool_use",
            BlockKind::ToolResult => "tool_result",
            BlockKind::ServerToolResult => "server_tool_result",
            BlockKind::Image => "image",
            BlockKind::Document => "document",
            BlockKind::Unknown => "unknown",
        }
    }
}

/// One content block of a message.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub struct Block {
    pub kind: BlockKind,
    pub flags: u8,
    /// Position of the block in its message's content array.
    pub index: u16,
    /// Tool name (tool_use), media type (image, document), or the raw type name (unknown).
    pub name: Sym,
    /// Tool call id (tool_use), or the id it answers (tool_result).
    pub id: Span,
    /// Text and thinking: the raw string. tool_use: `input`. tool_result: `content`.
    /// image/document: `source.data`. Raw JSON in every case.
    pub body: Span,
}

impl Block {
    pub const IS_ERROR: u8 = 1;
    /// A thinking block with empty text and only a signature.
    pub const SIGNATURE_ONLY: u8 = 1 << 1;
    /// The body is a JSON string that itself holds JSON (extracted tool messages).
    pub const JSON_IN_STRING: u8 = 1 << 2;
    /// The body is the legacy `toolArguments` of an older tool call entry.
    pub const LEGACY: u8 = 1 << 3;
    /// A tool call that the log says ran a subagent, whatever the tool is named (Gemini CLI
    /// names the call after the agent): a call of the agent category.
    pub const SPAWNS_AGENT: u8 = 1 << 4;
}

const _: () = assert!(std::mem::size_of::<Block>() == 24);

/// Token usage as the API reports it.
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_creation_input_tokens: u64,
    pub cache_read_input_tokens: u64,
    pub cache_creation_5m: u64,
    pub cache_creation_1h: u64,
    pub web_search_requests: u64,
}

impl Usage {
    /// Saturating, as [`Usage::add`] is: a log can state counts past any integer.
    pub fn total(&self) -> u64 {
        self.input_tokens
            .saturating_add(self.output_tokens)
            .saturating_add(self.cache_creation_input_tokens)
            .saturating_add(self.cache_read_input_tokens)
    }

    /// Adds `other`, saturating: counts read from a log can be as large as `u64::MAX`, and a
    /// sum of them must not overflow.
    pub fn add(&mut self, other: &Usage) {
        self.input_tokens = self.input_tokens.saturating_add(other.input_tokens);
        self.output_tokens = self.output_tokens.saturating_add(other.output_tokens);
        self.cache_creation_input_tokens =
            self.cache_creation_input_tokens.saturating_add(other.cache_creation_input_tokens);
        self.cache_read_input_tokens = self.cache_read_input_tokens.saturating_add(other.cache_read_input_tokens);
        self.cache_creation_5m = self.cache_creation_5m.saturating_add(other.cache_creation_5m);
        self.cache_creation_1h = self.cache_creation_1h.saturating_add(other.cache_creation_1h);
        self.web_search_requests = self.web_search_requests.saturating_add(other.web_search_requests);
    }

    pub fn is_zero(&self) -> bool {
        *self == Usage::default()
    }
}

/// One API response: the assistant lines that share `message.id` (and `requestId`).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Response {
    pub file: FileId,
    pub message_id: Span,
    pub request_id: Span,
    pub first_entry: EntryId,
    /// The line whose usage it keeps (the first of those that reported the most).
    pub usage_entry: EntryId,
    pub lines: u32,
    pub model: Sym,
    /// The usage of the line that reported the most; partial early lines are not summed.
    pub usage: Usage,
    pub has_usage: bool,
    /// A cost the log itself recorded (`costUSD` of older versions, an Agent SDK result's
    /// `total_cost_usd`, 0 for local Ollama models), if any: it replaces the price table's.
    pub logged_cost_usd: Option<f64>,
    /// How long the response took, as the log states it (Ollama `total_duration`, an Agent SDK
    /// result's `duration_ms`), if it does.
    pub duration_ms: Option<u64>,
}

const _: () = assert!(std::mem::size_of::<Response>() == 128);

/// The envelope fields that change rarely along a session, interned together: most entries of
/// a session share one of these.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub struct Envelope {
    pub cwd: Sym,
    pub version: Sym,
    pub git_branch: Sym,
    pub slug: Sym,
    pub entrypoint: Sym,
    pub permission_mode: Sym,
    pub user_type: Sym,
}

/// What a `compact_boundary` entry says about its compaction.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Compaction {
    pub entry: EntryId,
    pub trigger: Sym,
    pub pre_tokens: u64,
    pub preserved_head: Span,
    pub preserved_anchor: Span,
    pub preserved_tail: Span,
}

const _: () = assert!(std::mem::size_of::<Compaction>() == 40);

/// A line outside the DAG: summary, titles, file-history-snapshot, queue-operation, ...
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MetaLine {
    pub file: FileId,
    pub line: u32,
    pub line_span: Span,
    pub type_name: Sym,
    pub session_id: Sym,
    pub timestamp_ms: i64,
    /// The line's main text, raw JSON: `summary`, `customTitle`/`aiTitle`/`title`, `agentName`,
    /// queue `content`, `lastPrompt`, ...
    pub text: Span,
    /// `leafUuid` of a summary, `messageId` of a file-history-snapshot.
    pub target_uuid: Span,
    /// `operation` of a queue-operation.
    pub operation: Sym,
}

/// How serious a diagnostic is.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize, PartialOrd, Ord)]
pub enum Severity {
    /// The line was skipped.
    Error,
    /// The line was loaded, with a repair or a caveat.
    Warning,
    /// Nothing was lost (a blank line, a duplicate of an entry already loaded).
    Info,
}

/// What went wrong with a line or a file.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize, PartialOrd, Ord)]
pub enum DiagnosticKind {
    InvalidJson,
    NotAnObject,
    MissingUuid,
    DuplicateUuid,
    InvalidUtf8,
    /// A lone UTF-16 surrogate escape (`\ud83d` without its pair) was read as U+FFFD.
    LoneSurrogate,
    TruncatedLine,
    BlankLine,
    /// The whole file is not a log this version can read.
    NotASessionLog,
    FileTooLarge,
    /// The lines of a file past what the loader holds were counted, not read.
    LeftOut,
    EmptyFile,
    /// The file's lines after the first are read as a different format than the first.
    UnexpectedLine,
}

impl DiagnosticKind {
    pub fn name(self) -> &'static str {
        match self {
            DiagnosticKind::InvalidJson => "invalid-json",
            DiagnosticKind::NotAnObject => "not-an-object",
            DiagnosticKind::MissingUuid => "missing-uuid",
            DiagnosticKind::DuplicateUuid => "duplicate-uuid",
            DiagnosticKind::InvalidUtf8 => "invalid-utf8",
            DiagnosticKind::LoneSurrogate => "lone-surrogate",
            DiagnosticKind::TruncatedLine => "truncated-line",
            DiagnosticKind::BlankLine => "blank-line",
            DiagnosticKind::NotASessionLog => "not-a-session-log",
            DiagnosticKind::FileTooLarge => "file-too-large",
            DiagnosticKind::LeftOut => "left-out",
            DiagnosticKind::EmptyFile => "empty-file",
            DiagnosticKind::UnexpectedLine => "unexpected-line",
        }
    }

    pub fn severity(self) -> Severity {
        match self {
            DiagnosticKind::InvalidUtf8 | DiagnosticKind::LoneSurrogate | DiagnosticKind::LeftOut => Severity::Warning,
            DiagnosticKind::DuplicateUuid | DiagnosticKind::BlankLine | DiagnosticKind::EmptyFile => Severity::Info,
            _ => Severity::Error,
        }
    }
}

/// A problem with one line (or, with `line == 0`, with a whole file).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Diagnostic {
    pub file: FileId,
    pub line: u32,
    pub offset: u64,
    pub kind: DiagnosticKind,
    pub message: String,
}

/// The log formats the engine reads.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub enum Format {
    /// Not decided yet (too few bytes seen).
    Pending,
    ClaudeCode,
    /// Claude Agent SDK messages, as `claude -p --output-format stream-json` prints them.
    AgentSdk,
    /// A Codex CLI session rollout (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`).
    CodexRollout,
    /// Codex SDK / `codex exec --json` thread events (`thread.started`, `item.completed`, ...).
    CodexEvents,
    /// A capture of Ollama `/api/chat` (or `/api/generate`) streaming responses, with or without
    /// the requests.
    Ollama,
    /// A Pi coding-agent session (`~/.pi/agent/sessions/<cwd slug>/<timestamp>_<uuid>.jsonl`).
    Pi,
    /// A GitHub Copilot CLI session (`~/.copilot/session-state/<sessionId>/events.jsonl`).
    CopilotCli,
    /// An Aider chat history (`.aider.chat.history.md` in a project's root): markdown, every run
    /// of Aider in the project one after the other.
    Aider,
    /// A Gemini CLI session (`~/.gemini/tmp/<project hash>/chats/session-*.json`, one JSON
    /// document, or the newer `session-*.jsonl` records), read whole.
    GeminiCli,
    /// A Qwen Code session (`~/.qwen/tmp/<project hash>/chats/<session>.jsonl`): records chained
    /// by `uuid`/`parentUuid` that hold Gemini API Content.
    QwenCode,
    /// A file of a Cline task (`saoudrizwan.claude-dev/tasks/<task id>/`:
    /// `api_conversation_history.json`, `ui_messages.json`, `task_metadata.json`), read whole.
    Cline,
    /// A file of a Roo Code task (`rooveterinaryinc.roo-cline/tasks/<task id>/`), as Cline's.
    RooCode,
    /// An Amp thread (`~/.local/share/amp/threads/T-<uuid>.json`), read whole.
    Amp,
    /// A Cursor CLI agent transcript
    /// (`~/.cursor/projects/<project slug>/agent-transcripts/<id>/<id>.jsonl`, a subagent's in
    /// `<id>/subagents/`): Anthropic-style messages without timestamps.
    CursorCli,
    /// The record stream of an OpenCode database (`~/.local/share/opencode/opencode.db`): one
    /// line per session, message and part row (see [`crate::import::records`]).
    OpenCode,
    /// A file of OpenCode's older JSON storage (`~/.local/share/opencode/storage/`: `session/<project
    /// id>/<session id>.json`, `message/<session id>/<message id>.json`, `part/<message
    /// id>/<part id>.json`; in 0.5.x, `project/<project>/storage/session/{info,message,part}/`),
    /// one record per file, read whole. The storage files loaded together are turned into one
    /// OpenCode record stream (a file of its own, [`FileInfo::sources`]), read as the database's.
    OpenCodeStorage,
    /// The record stream of Cursor's global state database (`globalStorage/state.vscdb`): one line
    /// per chat and message row of `cursorDiskKV`.
    CursorIde,
    /// A JSON file beside the logs: `agent-<id>.meta.json`.
    AgentMeta,
    /// Not a log this version reads; the file diagnostic says what it looks like.
    Rejected,
}

impl Format {
    /// Whether a share can leave thinking, tool results, images and metadata out of this
    /// format's lines: Claude Code's (and the formats written like them: the Agent SDK's,
    /// Cursor CLI's Claude-style messages) hold them as `thinking` and `tool_result` blocks,
    /// `toolUseResult` and `cwd`; the other agents' formats keep them where `redact::parts` knows
    /// to find them. Ollama captures (thinking streamed inside `<think>` chunks) and Cursor IDE
    /// bubbles are not taken apart: a share that leaves parts out leaves such files out whole
    /// rather than carry what was asked to be left out.
    pub fn share_can_leave_parts_out(self) -> bool {
        !matches!(self, Format::Ollama | Format::CursorIde | Format::Pending | Format::Rejected)
    }

    /// Whether the file's lines are text, not JSON (a markdown history): they are redacted as
    /// text when shared.
    pub fn lines_are_text(self) -> bool {
        matches!(self, Format::Aider)
    }

    /// Whether the format records the results of tool calls. Cursor CLI transcripts do not: a
    /// call without a result is the format there, not a problem.
    pub fn records_tool_results(self) -> bool {
        !matches!(self, Format::CursorCli)
    }

    pub fn name(self) -> &'static str {
        match self {
            Format::Pending => "pending",
            Format::ClaudeCode => "claude-code",
            Format::AgentSdk => "agent-sdk-stream-json",
            Format::CodexRollout => "codex-rollout",
            Format::CodexEvents => "codex-sdk-events",
            Format::Ollama => "ollama-chat",
            Format::Pi => "pi",
            Format::CopilotCli => "copilot-cli",
            Format::Aider => "aider",
            Format::GeminiCli => "gemini-cli",
            Format::QwenCode => "qwen-code",
            Format::Cline => "cline",
            Format::RooCode => "roo-code",
            Format::Amp => "amp",
            Format::CursorCli => "cursor-cli",
            Format::OpenCode => "opencode",
            Format::OpenCodeStorage => "opencode-storage",
            Format::CursorIde => "cursor-ide",
            Format::AgentMeta => "agent-meta",
            Format::Rejected => "rejected",
        }
    }

    /// What the load summary says a file was read as.
    pub fn label(self) -> &'static str {
        match self {
            Format::Pending => "not decided",
            Format::ClaudeCode => "Claude Code session",
            Format::AgentSdk => "Claude Agent SDK stream-json",
            Format::CodexRollout => "Codex CLI rollout",
            Format::CodexEvents => "Codex SDK events",
            Format::Ollama => "Ollama chat capture",
            Format::Pi => "Pi session",
            Format::CopilotCli => "GitHub Copilot CLI session",
            Format::Aider => "Aider chat history",
            Format::GeminiCli => "Gemini CLI session",
            Format::QwenCode => "Qwen Code session",
            Format::Cline => "Cline task file",
            Format::RooCode => "Roo Code task file",
            Format::Amp => "Amp thread",
            Format::CursorCli => "Cursor CLI agent transcript",
            Format::OpenCode => "OpenCode database",
            Format::OpenCodeStorage => "OpenCode storage file",
            Format::CursorIde => "Cursor IDE database",
            Format::AgentMeta => "agent metadata",
            Format::Rejected => "not read",
        }
    }
}

/// `agent-<id>.meta.json`: what Claude Code 2.1.2+ writes beside an agent transcript.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct AgentMeta {
    pub agent_id: String,
    pub agent_type: String,
    pub description: String,
    pub tool_use_id: String,
}

/// How each line of a file ended up.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct LineCounts {
    pub lines: u64,
    pub entries: u64,
    pub metadata: u64,
    /// Lines that became an error diagnostic and were skipped.
    pub skipped: u64,
    /// Lines that are not lost but hold nothing: blank lines, duplicates of loaded entries.
    pub ignored: u64,
    /// Lines past what the loader holds of the file (a browser tab), counted but not read.
    #[serde(default)]
    pub left_out: u64,
}

impl LineCounts {
    pub fn add(&mut self, other: &LineCounts) {
        self.lines += other.lines;
        self.entries += other.entries;
        self.metadata += other.metadata;
        self.skipped += other.skipped;
        self.ignored += other.ignored;
        self.left_out += other.left_out;
    }

    /// Every line is accounted for exactly once.
    pub fn balanced(&self) -> bool {
        self.lines == self.entries + self.metadata + self.skipped + self.ignored + self.left_out
    }
}

/// What the model keeps about a file (not its bytes).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FileInfo {
    /// The path as given (relative to the dropped folder, or a file name).
    pub path: String,
    pub size: u64,
    pub format: Format,
    pub counts: LineCounts,
    /// `agent-<id>` from the file name, if it is an agent transcript.
    pub agent_id_from_name: Option<String>,
    pub agent_meta: Option<AgentMeta>,
    /// The session id in the file name (`<sessionId>.jsonl`, or the folder of a subagents file).
    /// An OpenCode storage file names the session it is shown in (the root of its parents).
    pub session_from_path: Option<String>,
    /// The files this one was made from, when it is not a file that was given but one the loader
    /// made: the record stream of the OpenCode storage files loaded ([`Format::OpenCodeStorage`]).
    /// Empty for every file that was given.
    #[serde(default)]
    pub sources: Vec<FileId>,
    /// The part of the same file this one continues, for a file too big for one buffer (over
    /// 2 GiB): its lines go on where that part's ended. `None` for a file's first part.
    #[serde(default)]
    pub continues: Option<FileId>,
    /// The part of the file that was read, when it was not all of it: a load that holds at most
    /// so many bytes (a browser tab) cut it, or was asked to start in its middle. `None` for a
    /// file read whole.
    #[serde(default)]
    pub held: Option<Held>,
}

/// Where reading a file starts: a byte offset at the start of a line, and that line's number
/// (1-based). A load that starts in a file's middle leaves the lines before it out, counted.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Start {
    pub offset: u64,
    pub line: u32,
}

impl Start {
    /// A file's first byte and line.
    pub const BEGINNING: Start = Start { offset: 0, line: 1 };

    pub fn is_beginning(&self) -> bool {
        self.offset == 0
    }
}

impl Default for Start {
    fn default() -> Start {
        Start::BEGINNING
    }
}

/// The part of a file a loader read when it did not read all of it.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Held {
    /// Where the part read begins (the file's beginning, or where the load was asked to start).
    pub from: Start,
    /// Where the lines left out after it begin, if any were.
    pub next: Option<Start>,
    /// The whole file's size in bytes.
    pub file_size: u64,
    /// The lines of the whole file.
    pub file_lines: u64,
}

impl FileInfo {
    pub fn name(&self) -> &str {
        self.path.rsplit(['/', '\\']).next().unwrap_or(&self.path)
    }

    /// Whether the loader made this file from others ([`FileInfo::sources`]) rather than it being
    /// given: it is not on disk, and its lines are those files' records.
    pub fn is_derived(&self) -> bool {
        !self.sources.is_empty()
    }

    /// Whether this is a later part of a file read in parts ([`FileInfo::continues`]).
    pub fn is_part(&self) -> bool {
        self.continues.is_some()
    }

    /// What the load summary says the file was read as.
    pub fn label(&self) -> &'static str {
        if self.is_derived() { "OpenCode storage, as records" } else { self.format.label() }
    }
}

/// Everything loaded: files, entries, metadata lines and diagnostics, and the strings they share.
#[derive(Clone, Serialize, Deserialize, Default)]
pub struct Corpus {
    pub files: Vec<FileInfo>,
    /// The bytes of each file, indexed like `files`. Not serialised: they travel separately.
    #[serde(skip)]
    pub bytes: Vec<Vec<u8>>,
    #[serde(deserialize_with = "crate::exact_vec::deserialize")]
    pub entries: Vec<Entry>,
    #[serde(deserialize_with = "crate::exact_vec::deserialize")]
    pub blocks: Vec<Block>,
    #[serde(deserialize_with = "crate::exact_vec::deserialize")]
    pub responses: Vec<Response>,
    pub compactions: Vec<Compaction>,
    pub envelopes: Vec<Envelope>,
    #[serde(deserialize_with = "crate::exact_vec::deserialize")]
    pub metas: Vec<MetaLine>,
    pub diagnostics: Vec<Diagnostic>,
    pub symbols: Interner,
    /// Decoded or synthesised text that has no place in a file.
    pub arena: Vec<u8>,
    /// Lines per raw `type` value, including metadata and unknown types.
    pub type_counts: Vec<(Sym, u64)>,
}

impl std::fmt::Debug for Corpus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Corpus({} files, {} entries)", self.files.len(), self.entries.len())
    }
}

impl Corpus {
    /// The bytes a span of `file` names.
    pub fn span_bytes(&self, file: FileId, span: Span) -> &[u8] {
        let file_bytes = self.bytes.get(file as usize).map(Vec::as_slice).unwrap_or_default();
        span.bytes(file_bytes, &self.arena)
    }

    /// A span that holds a decoded string (ids, names).
    pub fn span_str(&self, file: FileId, span: Span) -> &str {
        std::str::from_utf8(self.span_bytes(file, span)).unwrap_or("")
    }

    /// A span that holds raw JSON, decoded for display.
    pub fn span_text(&self, file: FileId, span: Span) -> Cow<'_, str> {
        json::decode_value(self.span_bytes(file, span))
    }

    /// An entry, if `id` names one.
    pub fn entry(&self, id: EntryId) -> Option<&Entry> {
        self.entries.get(id.index())
    }

    /// A content block, if `id` names one.
    pub fn block(&self, id: BlockId) -> Option<&Block> {
        self.blocks.get(id.index())
    }

    /// An API response, if `id` names one.
    pub fn response(&self, id: ResponseId) -> Option<&Response> {
        self.responses.get(id.index())
    }

    pub fn sym(&self, sym: Sym) -> &str {
        self.symbols.resolve(sym)
    }

    pub fn entry_uuid(&self, entry: &Entry) -> &str {
        self.span_str(entry.file, entry.uuid)
    }

    pub fn entry_parent_uuid(&self, entry: &Entry) -> Option<&str> {
        (!entry.parent_uuid.is_empty()).then(|| self.span_str(entry.file, entry.parent_uuid))
    }

    pub fn blocks_of(&self, entry: &Entry) -> &[Block] {
        self.blocks.get(entry.block_range()).unwrap_or_default()
    }

    pub fn envelope(&self, entry: &Entry) -> Envelope {
        self.envelopes.get(entry.envelope.index()).copied().unwrap_or_default()
    }

    pub fn line_bytes(&self, entry: &Entry) -> &[u8] {
        self.span_bytes(entry.file, entry.line_span)
    }

    /// The first line of readable text of an entry: its first text block, or its string content.
    pub fn first_text(&self, entry: &Entry) -> Option<Cow<'_, str>> {
        if entry.flags.has(EntryFlags::STRING_CONTENT) && !entry.content.is_empty() {
            return Some(self.span_text(entry.file, entry.content));
        }
        self.blocks_of(entry).iter().find(|b| b.kind == BlockKind::Text).map(|b| self.span_text(entry.file, b.body))
    }

    /// Total line counts over all files given (a file the loader made from others counts their
    /// lines again: it is left out).
    pub fn counts(&self) -> LineCounts {
        let mut total = LineCounts::default();
        for file in self.files.iter().filter(|f| !f.is_derived()) {
            total.add(&file.counts);
        }
        total
    }

    /// Bytes retained by the model, excluding the file bytes themselves.
    pub fn model_heap_bytes(&self) -> usize {
        use std::mem::size_of;
        self.entries.capacity() * size_of::<Entry>()
            + self.blocks.capacity() * size_of::<Block>()
            + self.responses.capacity() * size_of::<Response>()
            + self.compactions.capacity() * size_of::<Compaction>()
            + self.envelopes.capacity() * size_of::<Envelope>()
            + self.metas.capacity() * size_of::<MetaLine>()
            + self.diagnostics.iter().map(|d| size_of::<Diagnostic>() + d.message.capacity()).sum::<usize>()
            + self.symbols.heap_bytes()
            + self.arena.capacity()
            + self.type_counts.capacity() * 16
            + self.files.iter().map(|f| size_of::<FileInfo>() + f.path.capacity()).sum::<usize>()
    }
}
