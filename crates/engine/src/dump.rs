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
        if file.is_derived() {
            let _ = writeln!(out, "  made from {} files", file.sources.len());
        }
        if file.format == Format::OpenCodeStorage {
            let _ = writeln!(out, "  session={}", file.session_from_path.as_deref().unwrap_or("-"));
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
        // Other agents' logs state their cost and duration; Claude Code's rarely do.
        let other = corpus.files.get(r.file as usize).is_some_and(|f| f.format != Format::ClaudeCode);
        let stated = other && (r.logged_cost_usd.is_some() || r.duration_ms.is_some());
        if r.lines > 1 || r.has_usage || stated {
            let u = &r.usage;
            let _ = write!(
                out,
                "  response@L{} lines={} model={} usage={}/{}/{}/{}",
                corpus.entries[r.first_entry.index()].line,
                r.lines,
                corpus.sym(r.model),
                u.input_tokens,
                u.output_tokens,
                u.cache_creation_input_tokens,
                u.cache_read_input_tokens
            );
            if other {
                if let Some(cost) = r.logged_cost_usd {
                    let _ = write!(out, " logged=${cost:.6}");
                }
                if let Some(duration) = r.duration_ms {
                    let _ = write!(out, " duration={duration}ms");
                }
            }
            out.push('\n');
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

/// The reconstructed structure, one line per session, conversation, fork, compaction, turn
/// and problem. Structure only, like [`dump_corpus`]: titles and descriptions are given by
/// their length, not their text.
pub fn dump_graph(corpus: &Corpus, graph: &crate::dag::Graph) -> String {
    let mut out = String::new();
    let line = |e: EntryId| -> String {
        if e.is_none() {
            return "-".into();
        }
        let entry = &corpus.entries[e.index()];
        format!("{}:L{}", short_file(corpus, entry.file), entry.line)
    };
    for session in &graph.sessions {
        let u = &session.usage_with_agents;
        let _ = writeln!(
            out,
            "session {} title={}ch({:?}) files={} entries={} compactions={} forks={}/{} tools={}/{}/{} usage+agents={}/{}/{}/{} cost+agents=${:.6}",
            short(&session.id),
            session.title.chars().count(),
            session.title_source,
            session.files.len(),
            session.entries,
            session.compactions,
            session.real_forks,
            session.artifact_forks,
            session.tool_uses,
            session.tool_results,
            session.unpaired_tool_uses,
            u.input_tokens,
            u.output_tokens,
            u.cache_creation_input_tokens,
            u.cache_read_input_tokens,
            session.cost_with_agents_usd
        );
        let conversations =
            std::iter::once(session.main).filter(|&c| c.is_some()).chain(session.agents.iter().copied());
        for c in conversations {
            let conv = &graph.conversations[c.index()];
            let roots: Vec<String> = conv.roots.iter().map(|&r| line(r)).collect();
            let _ = write!(
                out,
                "  #{c} {} roots={} entries={} turns={} tools={}",
                conv.kind.name(),
                roots.join(","),
                conv.entries,
                conv.turns,
                conv.tool_calls
            );
            if !conv.agent_name.is_empty() {
                let _ = write!(out, " agent={}", conv.agent_name);
            }
            if conv.is_agent() {
                let _ = write!(
                    out,
                    " type={} desc={}ch linked={} spawn={} parent={} depth={}",
                    if conv.agent_type.is_empty() { "-" } else { &conv.agent_type },
                    conv.description.chars().count(),
                    conv.linked_by.map_or("-", |r| r.name()),
                    line(conv.spawn_entry),
                    if conv.parent.is_none() { "-".to_owned() } else { format!("#{}", conv.parent) },
                    conv.depth
                );
            }
            let u = &conv.usage;
            let _ = writeln!(
                out,
                " usage={}/{}/{}/{}",
                u.input_tokens, u.output_tokens, u.cache_creation_input_tokens, u.cache_read_input_tokens
            );
            let thread = graph.thread(c);
            if thread.len() != conv.entries as usize {
                let _ = writeln!(out, "    active thread: {} of {} entries", thread.len(), conv.entries);
            }
            for fork in graph.forks.iter().filter(|f| graph.nodes[f.node.index()].conversation == c) {
                let alternatives: Vec<String> = fork.alternatives.iter().map(|&a| line(a)).collect();
                let _ = writeln!(
                    out,
                    "    fork at {}: {} (active {})",
                    line(fork.node),
                    alternatives.join(" | "),
                    line(fork.alternatives[fork.active as usize])
                );
            }
            for link in graph.compactions.iter().filter(|l| {
                let anchor = if l.boundary.is_some() { l.boundary } else { l.summary };
                graph.nodes[anchor.index()].conversation == c
            }) {
                let _ = writeln!(
                    out,
                    "    compaction {} after {} summary {} replaces {} trigger={} pre={} agent={}",
                    line(link.boundary),
                    line(link.logical_parent),
                    line(link.summary),
                    line(link.replaced_root),
                    corpus.sym(link.trigger),
                    link.pre_tokens,
                    if link.agent.is_none() { "-".to_owned() } else { format!("#{}", link.agent) }
                );
            }
            for turn in graph.turns.iter().filter(|t| t.conversation == c && t.ops_len > 0) {
                let ops: Vec<String> = graph
                    .turn_ops(turn)
                    .iter()
                    .map(|op| {
                        let name = if op.name.is_none() { "?" } else { corpus.sym(op.name) };
                        format!("{name}:{}", op.status.name())
                    })
                    .collect();
                let _ = writeln!(out, "    turn {}: {}", line(turn.prompt), ops.join(" "));
            }
        }
    }
    for problem in &graph.problems {
        let _ = writeln!(
            out,
            "problem {} at {}: {}",
            problem.rule.name(),
            line(problem.entry),
            redact_numbers(&problem.message)
        );
    }
    out
}

fn short_file(corpus: &Corpus, file: FileId) -> String {
    let name = corpus.files[file as usize].name();
    let stem = name.strip_suffix(".jsonl").unwrap_or(name);
    short(stem).to_owned()
}
