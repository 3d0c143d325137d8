//! A Claude Code message's body: content blocks as byte ranges, string bodies found by a
//! second narrow read when they had escapes, interruptions, and the older extracted tool
//! messages whose call or result is a JSON string.

use crate::import::Sink;
use crate::json::{self, Shape};
use crate::model::*;
use crate::span::{Locator, Span, Sym};

use super::heads::{BlockHead, ExtractedCall, RawBodies, RawMessageContent};

const INTERRUPTED_MARK: &[u8] = b"[Request interrupted by user";

/// Finds the raw span of a string `message` (or `message.content`, or top-level `content`)
/// that had escapes, by reading only those fields of the line again.
pub(super) fn second_read(at: &Locator, text: &str, in_message: bool) -> Span {
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

pub(super) fn push_blocks(sink: &mut Sink, at: &Locator, entry: &mut Entry, blocks: &[BlockHead]) {
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

pub(super) fn mentions_interruption(sink: &Sink, file_bytes: &[u8], entry: &Entry) -> bool {
    let arena = &sink.corpus.arena;
    if !entry.content.is_empty() {
        return memchr::memmem::find(entry.content.bytes(file_bytes, arena), INTERRUPTED_MARK).is_some();
    }
    sink.corpus.blocks[entry.block_range()].iter().any(|b| {
        b.kind == BlockKind::Text && memchr::memmem::find(b.body.bytes(file_bytes, arena), INTERRUPTED_MARK).is_some()
    })
}

/// Extracted tool messages carry their call or result as a JSON string in `content`.
pub(super) fn import_extracted_tool_message(sink: &mut Sink, file_bytes: &[u8], entry: &mut Entry) {
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
