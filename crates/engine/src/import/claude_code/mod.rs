//! Claude Code session logs (`~/.claude/projects/<project>/<session>.jsonl` and agent files),
//! including the older shapes the seed documents describe: plain-string `message`s of inline
//! sidechains, `subtype: "tool_use"` entries with `toolName`/`toolArguments`, and tool calls
//! extracted into `type: "tool_use"`/`"tool_result"` messages with snake_case fields.
//!
//! Each line is parsed once into borrowed structs; bulky values become byte ranges.
//!
//! This file reads a line into an entry or a metadata line; `heads.rs` is how a line is parsed,
//! `content.rs` what its message body becomes, `responses.rs` how its lines make responses.

mod content;
mod heads;
mod responses;

use crate::import::common::{Line, parse_line, time};
use crate::import::{Failure, LineOutcome, Sink};
use crate::json::{LStr, Shape};
use crate::model::*;
use crate::span::{Locator, Span, Sym, push_arena};

use content::{import_extracted_tool_message, mentions_interruption, push_blocks, second_read};
pub(crate) use heads::UsageHead;
use heads::{ContentField, LineHead, MessageField, ToolResultHead};
use responses::{ResponseReport, record_response};

/// The kind of entry a line of type `ty` makes; `None` for other types (with a uuid, an `Other`
/// entry; without one, a metadata line).
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
            let entry = &sink.corpus.entries[e.index()];
            entry.uuid.bytes(&bytes[entry.file as usize], &sink.corpus.arena) == uuid.as_bytes()
        }
    });
    if let Some(&(_, first)) = existing {
        let first = &sink.corpus.entries[first.index()];
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
    let entry_index = EntryId::new(sink.corpus.entries.len());
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
        response: ResponseId::NONE,
        blocks_start: sink.corpus.blocks.len() as u32,
        blocks_len: 0,
        content: Span::EMPTY,
        tool_use_result: at.raw_span(head.tool_use_result.or(head.tool_use_result_snake)),
        tool_use_id: at.str_span(arena, tool_use_id),
        parent_tool_use_id: at.str_span(arena, parent_tool_use_id),
        source_tool_assistant: at.str_span(arena, &head.source_tool_assistant),
        envelope: EnvelopeId::new(0),
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

/// A line outside the conversation (summaries, titles, the last prompt, ...) with the text and
/// the entry it names.
fn import_metadata(sink: &mut Sink, line: &Line, head: &LineHead, line_text: &str) {
    let at = &line.at;
    let text_raw =
        head.summary.or(head.custom_title).or(head.ai_title).or(head.title).or(head.agent_name).or(head.last_prompt);
    let body = match (text_raw, &head.content) {
        (Some(raw), _) => at.raw_span(Some(raw)),
        (None, ContentField::Text(text)) => at.literal_span(text).unwrap_or(Span::EMPTY),
        (None, ContentField::EscapedText) => second_read(at, line_text, false),
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
