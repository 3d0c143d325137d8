//! Claude Code session logs (`~/.claude/projects/<project>/<session>.jsonl` and agent files),
//! including the older shapes the seed documents describe: plain-string `message`s of inline
//! sidechains, `subtype: "tool_use"` entries with `toolName`/`toolArguments`, and tool calls
//! extracted into `type: "tool_use"`/`"tool_result"` messages with snake_case fields.
//!
//! Each line is parsed once into borrowed structs; bulky values become byte ranges.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

use crate::import::common::{Line, parse_line, time};
use crate::import::{Failure, LineOutcome, Sink};
use crate::json::{self, LBool, LNum, LStr, Shape, lenient};
use crate::model::*;
use crate::span::{Locator, Span, Sym, push_arena};

#[derive(Deserialize, Default)]
#[serde(default)]
struct LineHead<'a> {
    #[serde(rename = "type", borrow)]
    ty: LStr<'a>,
    #[serde(borrow)]
    subtype: LStr<'a>,
    #[serde(borrow)]
    uuid: LStr<'a>,
    #[serde(rename = "parentUuid", borrow)]
    parent_uuid: LStr<'a>,
    #[serde(rename = "parent_uuid", borrow)]
    parent_uuid_snake: LStr<'a>,
    #[serde(rename = "logicalParentUuid", borrow)]
    logical_parent_uuid: LStr<'a>,
    #[serde(rename = "sessionId", borrow)]
    session_id: LStr<'a>,
    #[serde(rename = "session_id", borrow)]
    session_id_snake: LStr<'a>,
    #[serde(borrow)]
    timestamp: LStr<'a>,
    #[serde(rename = "isSidechain")]
    is_sidechain: LBool,
    #[serde(rename = "is_sidechain")]
    is_sidechain_snake: LBool,
    #[serde(rename = "isMeta")]
    is_meta: LBool,
    #[serde(rename = "isCompactSummary")]
    is_compact_summary: LBool,
    #[serde(rename = "isVisibleInTranscriptOnly")]
    transcript_only: LBool,
    #[serde(rename = "isDeleted")]
    is_deleted: LBool,
    #[serde(rename = "isApiErrorMessage")]
    api_error: LBool,
    #[serde(rename = "userType", borrow)]
    user_type: LStr<'a>,
    #[serde(borrow)]
    cwd: LStr<'a>,
    #[serde(borrow)]
    version: LStr<'a>,
    #[serde(rename = "gitBranch", borrow)]
    git_branch: LStr<'a>,
    #[serde(borrow)]
    slug: LStr<'a>,
    #[serde(borrow)]
    entrypoint: LStr<'a>,
    #[serde(rename = "permissionMode", borrow)]
    permission_mode: LStr<'a>,
    #[serde(rename = "agentId", borrow)]
    agent_id: LStr<'a>,
    #[serde(rename = "requestId", borrow)]
    request_id: LStr<'a>,
    #[serde(rename = "toolUseID", borrow)]
    tool_use_id: LStr<'a>,
    #[serde(rename = "sourceToolUseID", borrow)]
    source_tool_use_id: LStr<'a>,
    #[serde(rename = "parentToolUseID", borrow)]
    parent_tool_use_id: LStr<'a>,
    /// Agent SDK messages: the Task call a subagent's message belongs to.
    #[serde(rename = "parent_tool_use_id", borrow)]
    parent_tool_use_id_snake: LStr<'a>,
    #[serde(rename = "sourceToolAssistantUUID", borrow)]
    source_tool_assistant: LStr<'a>,
    #[serde(rename = "nestingLevel")]
    nesting_level: LNum,
    #[serde(rename = "costUSD")]
    cost_usd_upper: LNum,
    #[serde(rename = "costUsd")]
    cost_usd_camel: LNum,
    #[serde(rename = "cost_usd")]
    cost_usd_snake: LNum,
    #[serde(borrow)]
    model: LStr<'a>,
    #[serde(deserialize_with = "lenient")]
    usage: UsageHead,
    #[serde(borrow)]
    message: MessageField<'a>,
    #[serde(borrow)]
    content: ContentField<'a>,
    #[serde(rename = "toolUseResult", borrow)]
    tool_use_result: Option<&'a RawValue>,
    #[serde(rename = "tool_use_result", borrow)]
    tool_use_result_snake: Option<&'a RawValue>,
    #[serde(borrow, deserialize_with = "lenient")]
    data: DataHead<'a>,
    #[serde(borrow, deserialize_with = "lenient")]
    attachment: AttachmentHead<'a>,
    #[serde(rename = "compactMetadata", borrow, deserialize_with = "lenient")]
    compact_metadata: CompactHead<'a>,
    #[serde(rename = "compact_metadata", borrow, deserialize_with = "lenient")]
    compact_metadata_snake: CompactHead<'a>,
    #[serde(rename = "toolName", borrow)]
    tool_name: LStr<'a>,
    #[serde(rename = "toolArguments", borrow)]
    tool_arguments: Option<&'a RawValue>,
    error: Shape,
    #[serde(borrow)]
    level: LStr<'a>,
    // Fields of metadata lines.
    #[serde(borrow)]
    summary: Option<&'a RawValue>,
    #[serde(rename = "leafUuid", borrow)]
    leaf_uuid: LStr<'a>,
    #[serde(rename = "messageId", borrow)]
    message_id: LStr<'a>,
    #[serde(rename = "customTitle", borrow)]
    custom_title: Option<&'a RawValue>,
    #[serde(rename = "aiTitle", borrow)]
    ai_title: Option<&'a RawValue>,
    #[serde(borrow)]
    title: Option<&'a RawValue>,
    #[serde(rename = "agentName", borrow)]
    agent_name: Option<&'a RawValue>,
    #[serde(rename = "lastPrompt", borrow)]
    last_prompt: Option<&'a RawValue>,
    #[serde(borrow)]
    operation: LStr<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct MessageHead<'a> {
    #[serde(borrow)]
    id: LStr<'a>,
    #[serde(borrow)]
    model: LStr<'a>,
    #[serde(borrow)]
    content: ContentField<'a>,
    #[serde(deserialize_with = "lenient")]
    usage: UsageHead,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(crate) struct UsageHead {
    input_tokens: LNum,
    output_tokens: LNum,
    cache_creation_input_tokens: LNum,
    cache_read_input_tokens: LNum,
    #[serde(deserialize_with = "lenient")]
    cache_creation: CacheCreationHead,
    #[serde(deserialize_with = "lenient")]
    server_tool_use: ServerToolUseHead,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct CacheCreationHead {
    ephemeral_5m_input_tokens: LNum,
    ephemeral_1h_input_tokens: LNum,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ServerToolUseHead {
    web_search_requests: LNum,
}

impl UsageHead {
    pub(crate) fn present(&self) -> bool {
        self.input_tokens.0.is_some()
            || self.output_tokens.0.is_some()
            || self.cache_creation_input_tokens.0.is_some()
            || self.cache_read_input_tokens.0.is_some()
    }

    pub(crate) fn to_usage(&self) -> Usage {
        Usage {
            input_tokens: self.input_tokens.as_u64(),
            output_tokens: self.output_tokens.as_u64(),
            cache_creation_input_tokens: self.cache_creation_input_tokens.as_u64(),
            cache_read_input_tokens: self.cache_read_input_tokens.as_u64(),
            cache_creation_5m: self.cache_creation.ephemeral_5m_input_tokens.as_u64(),
            cache_creation_1h: self.cache_creation.ephemeral_1h_input_tokens.as_u64(),
            web_search_requests: self.server_tool_use.web_search_requests.as_u64(),
        }
    }
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct DataHead<'a> {
    #[serde(rename = "type", borrow)]
    ty: LStr<'a>,
    #[serde(rename = "agentId", borrow)]
    agent_id: LStr<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct AttachmentHead<'a> {
    #[serde(rename = "type", borrow)]
    ty: LStr<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct CompactHead<'a> {
    #[serde(borrow)]
    trigger: LStr<'a>,
    #[serde(rename = "preTokens")]
    pre_tokens: LNum,
    #[serde(rename = "preservedSegment", borrow, deserialize_with = "lenient")]
    preserved: PreservedHead<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct PreservedHead<'a> {
    #[serde(rename = "headUuid", borrow)]
    head: LStr<'a>,
    #[serde(rename = "anchorUuid", borrow)]
    anchor: LStr<'a>,
    #[serde(rename = "tailUuid", borrow)]
    tail: LStr<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct BlockHead<'a> {
    #[serde(rename = "type", borrow)]
    ty: LStr<'a>,
    #[serde(borrow)]
    text: Option<&'a RawValue>,
    #[serde(borrow)]
    thinking: Option<&'a RawValue>,
    signature: Shape,
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
    #[serde(borrow, deserialize_with = "lenient")]
    source: SourceHead<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct SourceHead<'a> {
    #[serde(borrow)]
    media_type: LStr<'a>,
    #[serde(borrow)]
    data: Option<&'a RawValue>,
}

/// A content block that is not an object becomes an unknown block, not a failed line.
struct LenientBlock<'a>(BlockHead<'a>);

impl<'de: 'a, 'a> Deserialize<'de> for LenientBlock<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        lenient(deserializer).map(LenientBlock)
    }
}

/// `message`: an object (every current version), a plain string (older inline sidechains),
/// or absent.
#[derive(Default)]
enum MessageField<'a> {
    #[default]
    Absent,
    Object(MessageHead<'a>),
    /// A string without escapes, borrowed from the line.
    Text(&'a str),
    /// A string with escapes: its raw span is found by a second, narrow read of the line.
    EscapedText,
    Other,
}

impl<'de: 'a, 'a> Deserialize<'de> for MessageField<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = MessageField<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a message")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                MessageHead::deserialize(de::value::MapAccessDeserializer::new(map)).map(MessageField::Object)
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(MessageField::Text(v))
            }
            fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
                Ok(MessageField::EscapedText)
            }
            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(MessageField::Absent)
            }
            fn visit_none<E>(self) -> Result<Self::Value, E> {
                Ok(MessageField::Absent)
            }
            fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
                Ok(MessageField::Other)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
                Ok(MessageField::Other)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
                Ok(MessageField::Other)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
                Ok(MessageField::Other)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(MessageField::Other)
            }
        }
        deserializer.deserialize_any(V)
    }
}

/// `content`: a string or an array of blocks.
#[derive(Default)]
enum ContentField<'a> {
    #[default]
    Absent,
    Text(&'a str),
    EscapedText,
    Blocks(Vec<BlockHead<'a>>),
    Other,
}

impl<'de: 'a, 'a> Deserialize<'de> for ContentField<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ContentField<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("message content")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut blocks = Vec::with_capacity(seq.size_hint().unwrap_or(2).min(64));
                while let Some(LenientBlock(block)) = seq.next_element()? {
                    blocks.push(block);
                }
                Ok(ContentField::Blocks(blocks))
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(ContentField::Text(v))
            }
            fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
                Ok(ContentField::EscapedText)
            }
            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(ContentField::Absent)
            }
            fn visit_none<E>(self) -> Result<Self::Value, E> {
                Ok(ContentField::Absent)
            }
            fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
                Ok(ContentField::Other)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
                Ok(ContentField::Other)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
                Ok(ContentField::Other)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
                Ok(ContentField::Other)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(ContentField::Other)
            }
        }
        deserializer.deserialize_any(V)
    }
}

/// The second, narrow read for string values that had escapes.
#[derive(Deserialize, Default)]
#[serde(default)]
struct RawBodies<'a> {
    #[serde(borrow)]
    message: Option<&'a RawValue>,
    #[serde(borrow)]
    content: Option<&'a RawValue>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawMessageContent<'a> {
    #[serde(borrow)]
    content: Option<&'a RawValue>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ToolResultHead<'a> {
    #[serde(rename = "agentId", borrow)]
    agent_id: LStr<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ExtractedCall<'a> {
    #[serde(borrow)]
    name: LStr<'a>,
}

fn entry_kind(ty: &str) -> Option<EntryKind> {
    Some(match ty {
        "user" => EntryKind::User,
        "assistant" => EntryKind::Assistant,
        "system" => EntryKind::System,
        "progress" => EntryKind::Progress,
        "attachment" => EntryKind::Attachment,
        "tool_use" => EntryKind::ToolUse,
        "tool_result" => EntryKind::ToolResult,
        _ => return None,
    })
}

pub(crate) const INTERRUPTED_MARK: &[u8] = b"[Request interrupted by user";

/// What another importer supplies for a line in the Claude message shape that lacks it (Agent
/// SDK stream-json has no `parentUuid`, sometimes no `uuid`, and no envelope but `cwd` once).
pub(crate) struct Synth<'s> {
    /// The uuid to use when the line has none.
    pub uuid: &'s str,
    /// The parent to use when the line names none (empty: a root).
    pub parent: &'s str,
    /// `logicalParentUuid` to use when the line has none.
    pub logical_parent: &'s str,
    /// The session when the line names none.
    pub session: Sym,
    /// The agent conversation the entry belongs to, when the line names none.
    pub agent_id: Sym,
    pub sidechain: bool,
    /// Envelope fields the line does not have.
    pub envelope: Envelope,
}

/// Reads line `line_no` (`text`, borrowed from the file's bytes) into the sink.
pub(crate) fn import_line(sink: &mut Sink, bytes: &[Vec<u8>], file: FileId, line_no: u32, text: &str) -> LineOutcome {
    import_line_with(sink, bytes, file, line_no, text, None)
}

/// [`import_line`], with what another importer knows of the line's place in the conversation.
pub(crate) fn import_line_with(
    sink: &mut Sink,
    bytes: &[Vec<u8>],
    file: FileId,
    line_no: u32,
    text: &str,
    synth: Option<&Synth>,
) -> LineOutcome {
    let file_bytes = bytes[file as usize].as_slice();
    let begin = text.as_ptr() as usize - file_bytes.as_ptr() as usize;
    // From a `str`: its bytes are valid UTF-8 already, so serde_json does not check them again.
    let head: LineHead = match parse_line(text) {
        Ok(head) => head,
        Err(outcome) => return outcome,
    };
    let ty = head.ty.as_deref().unwrap_or("");
    let type_sym = sink.corpus.symbols.intern(if ty.is_empty() { "(untyped)" } else { ty });
    sink.count_type(type_sym);
    let line = Line {
        file,
        line_no,
        span: Span::in_file(begin, text.len()),
        type_name: type_sym,
        timestamp: time(&head.timestamp),
        at: Locator { file_bytes },
    };
    let at = line.at;
    let kind = entry_kind(ty);
    let line_uuid = head.uuid.as_deref().filter(|u| !u.is_empty());
    let uuid = line_uuid.or_else(|| synth.map(|s| s.uuid).filter(|u| !u.is_empty()));

    let Some(uuid) = uuid else {
        if kind.is_some() {
            return LineOutcome::Failed(Failure {
                kind: DiagnosticKind::MissingUuid,
                message: format!("a line of type `{ty}` without a uuid cannot be placed in the conversation"),
                eof: false,
                lone_surrogate: false,
            });
        }
        import_metadata(sink, &line, &head, text);
        return LineOutcome::Metadata;
    };

    let hash = sink.hash_bytes(uuid.as_bytes());
    let existing = sink.uuid_index.find(hash, |&(h, e)| {
        h == hash && {
            let entry = &sink.corpus.entries[e as usize];
            entry.uuid.bytes(&bytes[entry.file as usize], &sink.corpus.arena) == uuid.as_bytes()
        }
    });
    if let Some(&(_, first)) = existing {
        let first = &sink.corpus.entries[first as usize];
        let where_ = if first.file == file {
            format!("line {}", first.line)
        } else {
            format!("line {} of {}", first.line, sink.corpus.files[first.file as usize].name())
        };
        return LineOutcome::Duplicate(format!(
            "uuid {uuid} was already read at {where_}; the first occurrence is kept"
        ));
    }

    let kind = kind.unwrap_or(EntryKind::Other);
    let entry_index = sink.corpus.entries.len() as EntryId;
    let arena = &mut sink.corpus.arena;
    let mut flags = EntryFlags::default();
    flags.set(EntryFlags::SIDECHAIN, head.is_sidechain.is_true() || head.is_sidechain_snake.is_true());
    flags.set(EntryFlags::META, head.is_meta.is_true());
    flags.set(EntryFlags::COMPACT_SUMMARY, head.is_compact_summary.is_true());
    flags.set(EntryFlags::TRANSCRIPT_ONLY, head.transcript_only.is_true());
    flags.set(EntryFlags::DELETED, head.is_deleted.is_true());
    flags.set(EntryFlags::API_ERROR, head.api_error.is_true());
    flags.set(EntryFlags::SNAKE_CASE, head.parent_uuid_snake.is_some() || head.session_id_snake.is_some());
    flags.set(EntryFlags::INTERNAL_USER, head.user_type.as_deref().is_some_and(|t| t != "external"));
    flags.set(
        EntryFlags::ERROR,
        !matches!(head.error, Shape::Absent | Shape::Null) || head.level.as_deref() == Some("error"),
    );

    let parent = if head.parent_uuid.is_some() { &head.parent_uuid } else { &head.parent_uuid_snake };
    let session = if head.session_id.is_some() { &head.session_id } else { &head.session_id_snake };
    let tool_use_id = if head.tool_use_id.is_some() { &head.tool_use_id } else { &head.source_tool_use_id };
    let parent_tool_use_id =
        if head.parent_tool_use_id.is_some() { &head.parent_tool_use_id } else { &head.parent_tool_use_id_snake };
    let uuid_span = match (line_uuid, synth) {
        (None, Some(_)) => push_arena(arena, uuid.as_bytes()),
        _ => at.str_span(arena, &head.uuid),
    };
    let parent_span = match synth {
        Some(synth) if parent.as_deref().is_none() && !synth.parent.is_empty() => {
            push_arena(arena, synth.parent.as_bytes())
        }
        _ => at.str_span(arena, parent),
    };
    let logical_parent_span = match synth {
        Some(synth) if head.logical_parent_uuid.as_deref().is_none() && !synth.logical_parent.is_empty() => {
            push_arena(arena, synth.logical_parent.as_bytes())
        }
        _ => at.str_span(arena, &head.logical_parent_uuid),
    };
    if let Some(synth) = synth {
        flags.set(EntryFlags::SIDECHAIN, flags.has(EntryFlags::SIDECHAIN) || synth.sidechain);
    }
    let mut entry = Entry {
        file,
        line: line_no,
        line_span: line.span,
        kind,
        nesting_level: head.nesting_level.as_u64().min(255) as u8,
        flags,
        type_name: type_sym,
        subtype: Sym::NONE,
        uuid: uuid_span,
        parent_uuid: parent_span,
        logical_parent_uuid: logical_parent_span,
        session_id: Sym::NONE,
        agent_id: Sym::NONE,
        linked_agent_id: Sym::NONE,
        timestamp_ms: line.timestamp,
        model: Sym::NONE,
        response: NONE,
        blocks_start: sink.corpus.blocks.len() as u32,
        blocks_len: 0,
        content: Span::EMPTY,
        tool_use_result: at.raw_span(head.tool_use_result.or(head.tool_use_result_snake)),
        tool_use_id: at.str_span(arena, tool_use_id),
        parent_tool_use_id: at.str_span(arena, parent_tool_use_id),
        source_tool_assistant: at.str_span(arena, &head.source_tool_assistant),
        envelope: 0,
    };
    let symbols = &mut sink.corpus.symbols;
    let mut intern = |s: &LStr| symbols.intern(s.as_deref().unwrap_or(""));
    let mut envelope = Envelope {
        cwd: intern(&head.cwd),
        version: intern(&head.version),
        git_branch: intern(&head.git_branch),
        slug: intern(&head.slug),
        entrypoint: intern(&head.entrypoint),
        permission_mode: intern(&head.permission_mode),
        user_type: intern(&head.user_type),
    };
    if let Some(synth) = synth {
        let or = |line: Sym, known: Sym| if line.is_some() { line } else { known };
        let known = synth.envelope;
        envelope = Envelope {
            cwd: or(envelope.cwd, known.cwd),
            version: or(envelope.version, known.version),
            git_branch: or(envelope.git_branch, known.git_branch),
            slug: or(envelope.slug, known.slug),
            entrypoint: or(envelope.entrypoint, known.entrypoint),
            permission_mode: or(envelope.permission_mode, known.permission_mode),
            user_type: or(envelope.user_type, known.user_type),
        };
    }
    entry.envelope = sink.envelope(envelope);
    let symbols = &mut sink.corpus.symbols;
    entry.session_id = symbols.intern(session.as_deref().unwrap_or(""));
    entry.agent_id = symbols.intern(head.agent_id.as_deref().unwrap_or(""));
    if let Some(synth) = synth {
        if entry.session_id.is_none() {
            entry.session_id = synth.session;
        }
        if entry.agent_id.is_none() {
            entry.agent_id = synth.agent_id;
        }
    }

    // The message body: an object with content blocks, a legacy plain string, or a top-level
    // `content` (system lines, extracted tool messages).
    let mut message_id: Option<&str> = None;
    let mut usage_head: Option<&UsageHead> = None;
    let mut model = head.model.as_deref();
    let content = match &head.message {
        MessageField::Object(message) => {
            message_id = message.id.as_deref().filter(|id| !id.is_empty());
            if message.usage.present() {
                usage_head = Some(&message.usage);
            }
            model = message.model.as_deref().or(model);
            Some((&message.content, false))
        }
        MessageField::Text(_) | MessageField::EscapedText => {
            entry.flags.set(EntryFlags::LEGACY_MESSAGE | EntryFlags::STRING_CONTENT, true);
            None
        }
        MessageField::Absent | MessageField::Other => Some((&head.content, true)),
    };
    if usage_head.is_none() && head.usage.present() {
        usage_head = Some(&head.usage);
    }
    entry.model = sink.corpus.symbols.intern(model.unwrap_or(""));

    match &head.message {
        MessageField::Text(text) => entry.content = at.literal_span(text).unwrap_or(Span::EMPTY),
        MessageField::EscapedText => entry.content = second_read(&at, text, false),
        _ => {}
    }
    if let Some((content, top_level)) = content {
        match content {
            ContentField::Text(text) => {
                entry.flags.set(EntryFlags::STRING_CONTENT, true);
                entry.content = at.literal_span(text).unwrap_or(Span::EMPTY);
            }
            ContentField::EscapedText => {
                entry.flags.set(EntryFlags::STRING_CONTENT, true);
                entry.content = second_read(&at, text, !top_level);
            }
            ContentField::Blocks(blocks) => push_blocks(sink, &at, &mut entry, blocks),
            ContentField::Absent | ContentField::Other => {}
        }
    }

    match kind {
        EntryKind::System => entry.subtype = sink.corpus.symbols.intern(head.subtype.as_deref().unwrap_or("")),
        EntryKind::Progress => {
            entry.subtype = sink.corpus.symbols.intern(head.data.ty.as_deref().unwrap_or(""));
            entry.linked_agent_id = sink.corpus.symbols.intern(head.data.agent_id.as_deref().unwrap_or(""));
        }
        EntryKind::Attachment => {
            entry.subtype = sink.corpus.symbols.intern(head.attachment.ty.as_deref().unwrap_or(""))
        }
        EntryKind::User => {
            if let Some(raw) = head.tool_use_result
                && memchr::memmem::find(raw.get().as_bytes(), b"\"agentId\"").is_some()
                && let Ok(result) = serde_json::from_str::<ToolResultHead>(raw.get())
            {
                entry.linked_agent_id = sink.corpus.symbols.intern(result.agent_id.as_deref().unwrap_or(""));
            }
            if mentions_interruption(sink, file_bytes, &entry) {
                entry.flags.set(EntryFlags::INTERRUPTED, true);
            }
        }
        EntryKind::ToolUse | EntryKind::ToolResult => import_extracted_tool_message(sink, file_bytes, &mut entry),
        EntryKind::Assistant | EntryKind::Other => {
            entry.subtype = sink.corpus.symbols.intern(head.subtype.as_deref().unwrap_or(""));
        }
    }
    if head.subtype.as_deref() == Some("tool_use") && head.tool_name.is_some() {
        // The older shape: one entry per tool call, `toolName` + `toolArguments`.
        entry.flags.set(EntryFlags::LEGACY_TOOL_CALL | EntryFlags::HAS_TOOL_USE, true);
        let name = sink.corpus.symbols.intern(head.tool_name.as_deref().unwrap_or(""));
        sink.corpus.blocks.push(Block {
            kind: BlockKind::ToolUse,
            flags: Block::LEGACY,
            index: entry.blocks_len as u16,
            name,
            id: entry.uuid,
            body: at.raw_span(head.tool_arguments),
        });
        entry.blocks_len += 1;
    }

    if entry.kind == EntryKind::System && head.subtype.as_deref() == Some("compact_boundary") {
        let snake = &head.compact_metadata_snake;
        let compact = if !head.compact_metadata.trigger.is_some()
            && head.compact_metadata.pre_tokens.0.is_none()
            && (snake.trigger.is_some() || snake.pre_tokens.0.is_some())
        {
            snake
        } else {
            &head.compact_metadata
        };
        let arena = &mut sink.corpus.arena;
        let preserved = (
            at.str_span(arena, &compact.preserved.head),
            at.str_span(arena, &compact.preserved.anchor),
            at.str_span(arena, &compact.preserved.tail),
        );
        let trigger = sink.corpus.symbols.intern(compact.trigger.as_deref().unwrap_or(""));
        sink.corpus.compactions.push(Compaction {
            entry: entry_index,
            trigger,
            pre_tokens: compact.pre_tokens.as_u64(),
            preserved_head: preserved.0,
            preserved_anchor: preserved.1,
            preserved_tail: preserved.2,
        });
    }

    let cost = head.cost_usd_upper.0.or(head.cost_usd_camel.0).or(head.cost_usd_snake.0);
    let reports_usage = message_id.is_some() || usage_head.is_some() || cost.is_some();
    if reports_usage && matches!(kind, EntryKind::Assistant | EntryKind::ToolUse | EntryKind::ToolResult) {
        let report = ResponseReport {
            message_id,
            request_id: head.request_id.as_deref().unwrap_or(""),
            usage: usage_head,
            cost,
        };
        entry.response = record_response(sink, bytes, &at, &entry, entry_index, &report);
    }

    sink.uuid_index.insert_unique(hash, (hash, entry_index), |&(h, _)| h);
    sink.corpus.entries.push(entry);
    LineOutcome::Entry
}

/// Finds the raw span of a string `message` (or `message.content`, or top-level `content`)
/// that had escapes, by reading only those fields of the line again.
fn second_read(at: &Locator, text: &str, in_message: bool) -> Span {
    let Ok(bodies) = serde_json::from_str::<RawBodies>(text) else {
        return Span::EMPTY;
    };
    let Some(message) = bodies.message else { return at.raw_span(bodies.content) };
    if !in_message && message.get().starts_with('"') {
        return at.raw_span(Some(message));
    }
    if !message.get().starts_with('{') {
        return at.raw_span(bodies.content);
    }
    match serde_json::from_str::<RawMessageContent>(message.get()) {
        Ok(inner) if inner.content.is_some() => at.raw_span(inner.content),
        _ => at.raw_span(bodies.content),
    }
}

fn push_blocks(sink: &mut Sink, at: &Locator, entry: &mut Entry, blocks: &[BlockHead]) {
    for (index, head) in blocks.iter().enumerate() {
        let ty = head.ty.as_deref().unwrap_or("");
        let arena = &mut sink.corpus.arena;
        let mut block = Block {
            kind: BlockKind::Unknown,
            flags: 0,
            index: index.min(u16::MAX as usize) as u16,
            name: Sym::NONE,
            id: Span::EMPTY,
            body: Span::EMPTY,
        };
        match ty {
            "text" => {
                block.kind = BlockKind::Text;
                block.body = at.raw_span(head.text);
            }
            "thinking" => {
                block.kind = BlockKind::Thinking;
                block.body = at.raw_span(head.thinking);
                let empty = head.thinking.is_none_or(|t| t.get() == "\"\"");
                if empty && head.signature != Shape::Absent {
                    block.flags |= Block::SIGNATURE_ONLY;
                }
            }
            "redacted_thinking" => {
                block.kind = BlockKind::RedactedThinking;
                block.body = at.raw_span(head.data);
            }
            "tool_use" => {
                block.kind = BlockKind::ToolUse;
                block.id = at.str_span(arena, &head.id);
                block.body = at.raw_span(head.input);
                block.name = sink.corpus.symbols.intern(head.name.as_deref().unwrap_or(""));
                entry.flags.set(EntryFlags::HAS_TOOL_USE, true);
            }
            "tool_result" => {
                block.kind = BlockKind::ToolResult;
                block.id = at.str_span(arena, &head.tool_use_id);
                block.body = at.raw_span(head.content);
                entry.flags.set(EntryFlags::HAS_TOOL_RESULT, true);
                if head.is_error.is_true() {
                    block.flags |= Block::IS_ERROR;
                    entry.flags.set(EntryFlags::TOOL_ERROR, true);
                }
            }
            "image" | "document" => {
                block.kind = if ty == "image" { BlockKind::Image } else { BlockKind::Document };
                block.body = at.raw_span(head.source.data);
                block.name = sink.corpus.symbols.intern(head.source.media_type.as_deref().unwrap_or(""));
            }
            _ if ty.ends_with("_tool_use") => {
                block.kind = BlockKind::ServerToolUse;
                block.id = at.str_span(arena, &head.id);
                block.body = at.raw_span(head.input);
                block.name = sink.corpus.symbols.intern(head.name.as_deref().unwrap_or(ty));
                entry.flags.set(EntryFlags::HAS_TOOL_USE, true);
            }
            _ if ty.ends_with("_tool_result") => {
                block.kind = BlockKind::ServerToolResult;
                block.id = at.str_span(arena, &head.tool_use_id);
                block.body = at.raw_span(head.content);
                block.name = sink.corpus.symbols.intern(ty);
            }
            _ => {
                block.name = sink.corpus.symbols.intern(if ty.is_empty() { "(untyped)" } else { ty });
            }
        }
        sink.corpus.blocks.push(block);
        entry.blocks_len += 1;
    }
}

fn mentions_interruption(sink: &Sink, file_bytes: &[u8], entry: &Entry) -> bool {
    let arena = &sink.corpus.arena;
    if !entry.content.is_empty() {
        return memchr::memmem::find(entry.content.bytes(file_bytes, arena), INTERRUPTED_MARK).is_some();
    }
    sink.corpus.blocks[entry.block_range()].iter().any(|b| {
        b.kind == BlockKind::Text && memchr::memmem::find(b.body.bytes(file_bytes, arena), INTERRUPTED_MARK).is_some()
    })
}

/// Extracted tool messages carry their call or result as a JSON string in `content`.
fn import_extracted_tool_message(sink: &mut Sink, file_bytes: &[u8], entry: &mut Entry) {
    if !entry.flags.has(EntryFlags::STRING_CONTENT) {
        return;
    }
    let is_call = entry.kind == EntryKind::ToolUse;
    let mut name = Sym::NONE;
    if is_call {
        let decoded = json::decode_value(entry.content.bytes(file_bytes, &sink.corpus.arena));
        if let Ok(call) = serde_json::from_str::<ExtractedCall>(&decoded) {
            name = sink.corpus.symbols.intern(call.name.as_deref().unwrap_or(""));
        }
    }
    let (kind, id, flag) = if is_call {
        (BlockKind::ToolUse, entry.uuid, EntryFlags::HAS_TOOL_USE)
    } else {
        (BlockKind::ToolResult, entry.parent_uuid, EntryFlags::HAS_TOOL_RESULT)
    };
    entry.flags.set(flag, true);
    sink.corpus.blocks.truncate(entry.blocks_start as usize);
    sink.corpus.blocks.push(Block { kind, flags: Block::JSON_IN_STRING, index: 0, name, id, body: entry.content });
    entry.blocks_len = 1;
}

/// What a line says of the response (one model call) it is part of.
struct ResponseReport<'h> {
    /// `message.id`, which the lines of one response share; none: the line is a response alone.
    message_id: Option<&'h str>,
    /// `requestId`: with the message id, what tells responses apart.
    request_id: &'h str,
    usage: Option<&'h UsageHead>,
    /// The cost the line states (`costUSD` and its other spellings).
    cost: Option<f64>,
}

/// The response entry `entry_index` belongs to: the one its message id and request id name
/// (whose usage it may better), or a new one.
fn record_response(
    sink: &mut Sink,
    bytes: &[Vec<u8>],
    at: &Locator,
    entry: &Entry,
    entry_index: EntryId,
    report: &ResponseReport,
) -> u32 {
    let ResponseReport { message_id, request_id, usage, cost } = *report;
    let usage = usage.map(UsageHead::to_usage);
    let Some(message_id) = message_id else {
        let index = sink.corpus.responses.len() as u32;
        sink.corpus.responses.push(Response {
            file: entry.file,
            message_id: Span::EMPTY,
            request_id: Span::EMPTY,
            first_entry: entry_index,
            lines: 1,
            model: entry.model,
            usage: usage.unwrap_or_default(),
            has_usage: usage.is_some(),
            logged_cost_usd: cost,
            duration_ms: None,
        });
        return index;
    };
    let hash = sink.hash_pair(message_id.as_bytes(), request_id.as_bytes());
    let arena = &sink.corpus.arena;
    let responses = &sink.corpus.responses;
    let found = sink.response_index.find(hash, |&(h, r)| {
        h == hash && {
            let response = &responses[r as usize];
            let file_bytes = &bytes[response.file as usize];
            response.message_id.bytes(file_bytes, arena) == message_id.as_bytes()
                && response.request_id.bytes(file_bytes, arena) == request_id.as_bytes()
        }
    });
    if let Some(&(_, index)) = found {
        let response = &mut sink.corpus.responses[index as usize];
        response.lines += 1;
        if response.model.is_none() {
            response.model = entry.model;
        }
        if let Some(usage) = usage {
            let better = !response.has_usage
                || (usage.output_tokens, usage.total()) > (response.usage.output_tokens, response.usage.total());
            if better {
                response.usage = usage;
                response.has_usage = true;
                if cost.is_some() {
                    response.logged_cost_usd = cost;
                }
            }
        }
        return index;
    }
    let index = sink.corpus.responses.len() as u32;
    let message_span = at.str_span(&mut sink.corpus.arena, &LStr(Some(Cow::Borrowed(message_id))));
    let request_span = at.str_span(&mut sink.corpus.arena, &LStr(Some(Cow::Borrowed(request_id))));
    sink.corpus.responses.push(Response {
        file: entry.file,
        message_id: message_span,
        request_id: request_span,
        first_entry: entry_index,
        lines: 1,
        model: entry.model,
        usage: usage.unwrap_or_default(),
        has_usage: usage.is_some(),
        logged_cost_usd: cost,
        duration_ms: None,
    });
    sink.response_index.insert_unique(hash, (hash, index), |&(h, _)| h);
    index
}

/// A line outside the conversation (summaries, titles, the last prompt, ...) with the text and
/// the entry it names.
fn import_metadata(sink: &mut Sink, line: &Line, head: &LineHead, text: &str) {
    let at = &line.at;
    let text_raw =
        head.summary.or(head.custom_title).or(head.ai_title).or(head.title).or(head.agent_name).or(head.last_prompt);
    let body = match (text_raw, &head.content) {
        (Some(raw), _) => at.raw_span(Some(raw)),
        (None, ContentField::Text(text)) => at.literal_span(text).unwrap_or(Span::EMPTY),
        (None, ContentField::EscapedText) => second_read(at, text, false),
        _ => Span::EMPTY,
    };
    let target = if head.leaf_uuid.is_some() { &head.leaf_uuid } else { &head.message_id };
    let arena = &mut sink.corpus.arena;
    let target_uuid = at.str_span(arena, target);
    let session = if head.session_id.is_some() { &head.session_id } else { &head.session_id_snake };
    let session_id = sink.corpus.symbols.intern(session.as_deref().unwrap_or(""));
    let operation = sink.corpus.symbols.intern(head.operation.as_deref().unwrap_or(""));
    sink.corpus.metas.push(MetaLine {
        file: line.file,
        line: line.line_no,
        line_span: line.span,
        type_name: line.type_name,
        session_id,
        timestamp_ms: line.timestamp,
        text: body,
        target_uuid,
        operation,
    });
}
