//! A canonical text dump of the parsed model, for snapshot tests and debugging.
//!
//! It holds structure only (kinds, line numbers, shortened ids, sizes, tool names, models),
//! never message text: snapshots of other people's logs must not copy their content.

use std::fmt::Write;

use crate::model::*;
use crate::span::Span;

/// Shortens an id to its last 8 characters (ids share prefixes like `toolu_01`, not suffixes).
pub fn short(id: &str) -> &str {
    let count = id.chars().count();
    if count <= 12 {
        return id;
    }
    let start = id.char_indices().nth(count - 8).map(|(i, _)| i).unwrap_or(0);
    &id[start..]
}

/// One line per file, entry, metadata line and diagnostic.
pub fn dump_corpus(corpus: &Corpus) -> String {
    let mut out = String::new();
    for (file_id, file) in corpus.files.iter().enumerate() {
        let c = &file.counts;
        let _ = writeln!(
            out,
            "file {} format={} lines={} entries={} metadata={} skipped={} ignored={}",
            file.name(),
            file.format.name(),
            c.lines,
            c.entries,
            c.metadata,
            c.skipped,
            c.ignored
        );
        if let Some(meta) = &file.agent_meta {
            let _ = writeln!(out, "  agent-meta type={} tool_use={}", meta.agent_type, short(&meta.tool_use_id));
        }
        let file_id = file_id as FileId;
        let mut entries = corpus.entries.iter().filter(|e| e.file == file_id).peekable();
        let mut metas = corpus.metas.iter().filter(|m| m.file == file_id).peekable();
        let mut diagnostics = corpus.diagnostics.iter().filter(|d| d.file == file_id).peekable();
        loop {
            let next_entry = entries.peek().map(|e| e.line);
            let next_meta = metas.peek().map(|m| m.line);
            let next_diag = diagnostics.peek().map(|d| d.line);
            let Some(line) = [next_entry, next_meta, next_diag].into_iter().flatten().min() else { break };
            if next_diag == Some(line) {
                let d = diagnostics.next().unwrap_or_else(|| unreachable!());
                let _ = writeln!(out, "  L{} diagnostic {}: {}", d.line, d.kind.name(), redact_numbers(&d.message));
            } else if next_entry == Some(line) {
                let e = entries.next().unwrap_or_else(|| unreachable!());
                dump_entry(&mut out, corpus, e);
            } else {
                let m = metas.next().unwrap_or_else(|| unreachable!());
                let _ = writeln!(
                    out,
                    "  L{} meta {} text={}b target={}",
                    m.line,
                    corpus.sym(m.type_name),
                    m.text.len(),
                    short(corpus.span_str(m.file, m.target_uuid))
                );
            }
        }
    }
    let _ = write!(out, "types:");
    for (sym, count) in &corpus.type_counts {
        let _ = write!(out, " {}={}", corpus.sym(*sym), count);
    }
    out.push('\n');
    let _ = writeln!(out, "responses: {}", corpus.responses.len());
    for r in &corpus.responses {
        if r.lines > 1 || r.has_usage {
            let u = &r.usage;
            let _ = writeln!(
                out,
                "  response@L{} lines={} model={} usage={}/{}/{}/{}",
                corpus.entries[r.first_entry as usize].line,
                r.lines,
                corpus.sym(r.model),
                u.input_tokens,
                u.output_tokens,
                u.cache_creation_input_tokens,
                u.cache_read_input_tokens
            );
        }
    }
    out
}

fn dump_entry(out: &mut String, corpus: &Corpus, e: &Entry) {
    let _ = write!(out, "  L{} {}", e.line, e.kind.name());
    if e.kind == EntryKind::Other {
        let _ = write!(out, "({})", corpus.sym(e.type_name));
    }
    if e.subtype.is_some() {
        let _ = write!(out, "/{}", corpus.sym(e.subtype));
    }
    let _ = write!(out, " {}", short(corpus.entry_uuid(e)));
    match corpus.entry_parent_uuid(e) {
        Some(parent) => {
            let _ = write!(out, " <- {}", short(parent));
        }
        None => out.push_str(" root"),
    }
    if !e.logical_parent_uuid.is_empty() {
        let _ = write!(out, " logical<- {}", short(corpus.span_str(e.file, e.logical_parent_uuid)));
    }
    if e.flags.0 != 0 {
        let _ = write!(out, " [{:?}]", e.flags);
    }
    if e.agent_id.is_some() {
        let _ = write!(out, " agent={}", corpus.sym(e.agent_id));
    }
    if e.linked_agent_id.is_some() {
        let _ = write!(out, " links={}", corpus.sym(e.linked_agent_id));
    }
    if e.nesting_level > 0 {
        let _ = write!(out, " nesting={}", e.nesting_level);
    }
    if e.model.is_some() {
        let _ = write!(out, " model={}", corpus.sym(e.model));
    }
    if !e.has_timestamp() {
        out.push_str(" no-time");
    }
    if !e.content.is_empty() {
        let _ = write!(out, " content={}b", e.content.len());
    }
    if !e.tool_use_result.is_empty() {
        let _ = write!(out, " tool_use_result={}b", e.tool_use_result.len());
    }
    if !e.parent_tool_use_id.is_empty() {
        let _ = write!(out, " parent_tool={}", short(corpus.span_str(e.file, e.parent_tool_use_id)));
    }
    for block in corpus.blocks_of(e) {
        let _ = write!(out, " {}", block.kind.name());
        if block.name.is_some() {
            let _ = write!(out, ":{}", corpus.sym(block.name));
        }
        if block.id != Span::EMPTY {
            let _ = write!(out, "#{}", short(corpus.span_str(e.file, block.id)));
        }
        let _ = write!(out, "({}b", block.body.len());
        if block.flags & Block::IS_ERROR != 0 {
            out.push_str(",error");
        }
        if block.flags & Block::SIGNATURE_ONLY != 0 {
            out.push_str(",signature-only");
        }
        out.push(')');
    }
    out.push('\n');
}

/// Diagnostic messages quote uuids; they are shortened like everywhere else in the dump.
fn redact_numbers(message: &str) -> String {
    message
        .split(' ')
        .map(|word| if word.len() == 36 && word.matches('-').count() == 4 { short(word) } else { word })
        .collect::<Vec<_>>()
        .join(" ")
}
