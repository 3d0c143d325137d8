//! A Markdown rendering of sessions for pasting into an issue or a chat: prompts and answers as
//! text, thinking and tool calls folded in `<details>`, tool outputs cut to a few lines, agents
//! after the thread that spawned them. It is rendered from a model, so exporting a redacted
//! share renders only what the share holds.

use std::fmt::Write as _;

use serde_json::Value;

use crate::dag::{ConversationId, ConversationKind, Graph, tools::op_summary};
use crate::model::{Block, BlockId, BlockKind, Corpus, EntryFlags, EntryId, EntryKind, ResponseId};

/// How much of each part to write.
#[derive(Clone, Copy, Debug)]
pub struct MarkdownOptions {
    /// Lines of a tool's output kept before "… n more lines".
    pub output_lines: usize,
    /// Characters of a tool's output kept before "… n more characters" (after the lines are
    /// cut).
    pub output_chars: usize,
    pub thinking: bool,
}

impl Default for MarkdownOptions {
    fn default() -> Self {
        MarkdownOptions { output_lines: 30, output_chars: usize::MAX, thinking: true }
    }
}

/// Every session of the model, one after another.
pub fn corpus_markdown(corpus: &Corpus, graph: &Graph, options: &MarkdownOptions) -> String {
    let mut out = String::new();
    for session in 0..graph.sessions.len() as u32 {
        if !out.is_empty() {
            out.push_str("\n---\n\n");
        }
        out.push_str(&session_markdown(corpus, graph, session, options));
    }
    out
}

/// The Markdown of redacted files (`(path, bytes)`, as a [`super::bundle::Bundle`] holds
/// them), read back like dropped files.
pub fn files_markdown(files: &[(String, Vec<u8>)], options: &MarkdownOptions) -> String {
    let corpus = crate::Loader::read_all(files.iter().map(|(path, bytes)| (path, bytes)));
    let graph = Graph::build(&corpus);
    corpus_markdown(&corpus, &graph, options)
}

/// The session `id` of redacted files, read back as [`files_markdown`] reads them; every
/// session they hold when none has that id.
pub fn files_session_markdown(files: &[(String, Vec<u8>)], id: &str, options: &MarkdownOptions) -> String {
    let corpus = crate::Loader::read_all(files.iter().map(|(path, bytes)| (path, bytes)));
    let graph = Graph::build(&corpus);
    match graph.sessions.iter().position(|session| session.id == id) {
        Some(session) => session_markdown(&corpus, &graph, session as u32, options),
        None => corpus_markdown(&corpus, &graph, options),
    }
}

/// One session: its main thread along the active branch, each subagent's conversation quoted
/// under the tool call that started it (and its own subagents under theirs); then the agents no
/// call on that path started, each in a section.
pub fn session_markdown(corpus: &Corpus, graph: &Graph, session: u32, options: &MarkdownOptions) -> String {
    let Some(s) = graph.sessions.get(session as usize) else { return String::new() };
    let mut out = String::new();
    let title = if s.title.is_empty() { "Untitled session" } else { s.title.as_str() };
    let _ = writeln!(out, "# {}\n", inline(title));
    let mut facts = Vec::new();
    if s.first_timestamp_ms != i64::MIN {
        facts.push(crate::json::format_timestamp_ms(s.first_timestamp_ms));
    }
    facts.push(format!("{} messages", s.entries));
    if s.tool_uses > 0 {
        facts.push(format!("{} tool calls", s.tool_uses));
    }
    let tokens = s.usage_with_agents.total();
    if tokens > 0 {
        facts.push(format!("{tokens} tokens"));
    }
    if s.cost_with_agents_usd > 0.0 {
        facts.push(format!("${:.2}", s.cost_with_agents_usd));
    }
    let _ = writeln!(out, "_{}_\n", facts.join(" · "));
    let mut written = Written { session: &s.agents, done: Vec::new() };
    if s.main.is_some() {
        thread(corpus, graph, s.main, options, &mut written, &mut out);
    }
    for &agent in &s.agents {
        if written.done.contains(&agent) {
            continue;
        }
        written.done.push(agent);
        let _ = writeln!(out, "\n## {}\n", agent_heading(graph, agent));
        thread(corpus, graph, agent, options, &mut written, &mut out);
    }
    out
}

/// The agents of a session, and those already written (each is written once).
struct Written<'a> {
    session: &'a [ConversationId],
    done: Vec<ConversationId>,
}

/// An agent's kind and what its call described.
fn agent_heading(graph: &Graph, agent: ConversationId) -> String {
    let Some(conv) = graph.conversations.get(agent.index()) else { return "Subagent".to_owned() };
    let kind = match conv.kind {
        ConversationKind::CompactionAgent => "Compaction agent".to_owned(),
        _ if conv.agent_type.is_empty() => "Subagent".to_owned(),
        _ => format!("Subagent ({})", conv.agent_type),
    };
    let description = if conv.description.is_empty() { String::new() } else { format!(": {}", conv.description) };
    format!("{kind}{}", inline(&description))
}

fn thread(
    corpus: &Corpus,
    graph: &Graph,
    conversation: ConversationId,
    options: &MarkdownOptions,
    written: &mut Written<'_>,
    out: &mut String,
) {
    let mut last_speaker = "";
    let mut last_response = ResponseId::NONE;
    for entry_id in graph.thread(conversation) {
        let entry = &corpus.entries[entry_id.index()];
        if entry.flags.has(EntryFlags::DELETED) {
            continue;
        }
        if entry.flags.has(EntryFlags::COMPACT_SUMMARY) {
            let _ = writeln!(out, "\n---\n\n*The conversation was compacted; the summary it continues from:*\n");
            quote(&corpus.first_text(entry).unwrap_or_default(), out);
            last_speaker = "";
            continue;
        }
        match entry.kind {
            EntryKind::User if !entry.flags.has(EntryFlags::META) => {
                let texts = texts(corpus, entry_id);
                if texts.is_empty() {
                    continue;
                }
                let _ = writeln!(out, "\n### User\n");
                for text in texts {
                    let _ = writeln!(out, "{}\n", text.trim_end());
                }
                last_speaker = "user";
            }
            EntryKind::Assistant => {
                let same_answer =
                    last_speaker == "assistant" && (entry.response == last_response || entry.response.is_none());
                if !same_answer {
                    let _ = writeln!(out, "\n### Assistant\n");
                }
                last_speaker = "assistant";
                last_response = entry.response;
                assistant_blocks(corpus, graph, entry_id, options, written, out);
            }
            EntryKind::System if corpus.sym(entry.subtype) == "compact_boundary" => {
                let _ = writeln!(out, "\n---\n\n*Conversation compacted.*\n");
                last_speaker = "";
            }
            EntryKind::System if entry.flags.has(EntryFlags::NOTE) => {
                let text = corpus.first_text(entry).unwrap_or_default();
                let _ = writeln!(out);
                for line in text.lines() {
                    let _ = writeln!(out, "> {line}");
                }
            }
            EntryKind::System if entry.flags.has(EntryFlags::ERROR) || corpus.sym(entry.subtype) == "api_error" => {
                let text = corpus.first_text(entry).unwrap_or_default();
                let _ = writeln!(out, "\n> **Error:** {}\n", inline(text.lines().next().unwrap_or("")));
            }
            _ => {}
        }
    }
}

/// The text blocks of a user entry (tool results are written with their calls).
fn texts(corpus: &Corpus, entry_id: EntryId) -> Vec<String> {
    let entry = &corpus.entries[entry_id.index()];
    if entry.flags.has(EntryFlags::STRING_CONTENT) {
        return corpus.first_text(entry).map(|t| vec![t.into_owned()]).unwrap_or_default();
    }
    corpus
        .blocks_of(entry)
        .iter()
        .filter(|b| b.kind == BlockKind::Text)
        .map(|b| corpus.span_text(entry.file, b.body).into_owned())
        .filter(|t| !t.trim().is_empty())
        .collect()
}

fn assistant_blocks(
    corpus: &Corpus,
    graph: &Graph,
    entry_id: EntryId,
    options: &MarkdownOptions,
    written: &mut Written<'_>,
    out: &mut String,
) {
    let entry = &corpus.entries[entry_id.index()];
    if entry.flags.has(EntryFlags::STRING_CONTENT) {
        let _ = writeln!(out, "{}\n", corpus.first_text(entry).unwrap_or_default().trim_end());
        return;
    }
    for (offset, block) in corpus.blocks_of(entry).iter().enumerate() {
        let block_index = BlockId::new(entry.blocks_start as usize + offset);
        match block.kind {
            BlockKind::Text => {
                let _ = writeln!(out, "{}\n", corpus.span_text(entry.file, block.body).trim_end());
            }
            BlockKind::Thinking if options.thinking && block.flags & Block::SIGNATURE_ONLY == 0 => {
                let _ = writeln!(out, "<details><summary>Thinking</summary>\n");
                quote(&corpus.span_text(entry.file, block.body), out);
                let _ = writeln!(out, "</details>\n");
            }
            BlockKind::ToolUse | BlockKind::ServerToolUse => {
                tool_call(corpus, graph, entry_id, block_index, options, out);
                spawned(corpus, graph, entry_id, block_index, options, written, out);
            }
            BlockKind::Image => {
                let _ = writeln!(out, "*[image]*\n");
            }
            _ => {}
        }
    }
}

fn tool_call(
    corpus: &Corpus,
    graph: &Graph,
    entry_id: EntryId,
    block_index: BlockId,
    options: &MarkdownOptions,
    out: &mut String,
) {
    let entry = &corpus.entries[entry_id.index()];
    let block = corpus.blocks[block_index.index()];
    let name = corpus.sym(block.name);
    let op = graph.tool_ops.iter().find(|op| op.call_entry == entry_id && op.call_block == block_index);
    let summary = op.map(|op| op_summary(corpus, op)).unwrap_or_else(|| name.to_owned());
    let status = match op {
        Some(op) if op.result_entry.is_none() => " (no result)",
        Some(op) if op.status == crate::dag::ToolStatus::Error => " (error)",
        _ => "",
    };
    let _ = writeln!(out, "<details><summary>{}: {}{}</summary>\n", html(name), html(&summary), status);
    let input: Value = serde_json::from_slice(corpus.span_bytes(entry.file, block.body)).unwrap_or(Value::Null);
    match (name, input.get("command").and_then(Value::as_str)) {
        ("Bash", Some(command)) => fenced("sh", command, usize::MAX, out),
        _ => fenced("json", &serde_json::to_string_pretty(&input).unwrap_or_default(), 60, out),
    }
    if let Some(op) = op.filter(|op| op.result_entry.is_some()) {
        let result = result_text(corpus, op.result_entry, op.result_block);
        let _ = writeln!(out, "Output:\n");
        fenced_cut("text", &result, options.output_lines, options.output_chars, out);
    }
    let _ = writeln!(out, "</details>\n");
}

/// The conversations of the agents a tool call started, each quoted under it with its heading.
fn spawned(
    corpus: &Corpus,
    graph: &Graph,
    entry_id: EntryId,
    block_index: BlockId,
    options: &MarkdownOptions,
    written: &mut Written<'_>,
    out: &mut String,
) {
    let agents: Vec<ConversationId> = written
        .session
        .iter()
        .copied()
        .filter(|agent| {
            graph
                .conversations
                .get(agent.index())
                .is_some_and(|conv| conv.spawn_entry == entry_id && conv.spawn_block == block_index)
        })
        .collect();
    for agent in agents {
        if written.done.contains(&agent) {
            continue;
        }
        written.done.push(agent);
        let mut inner = String::new();
        let _ = writeln!(inner, "**{}**\n", agent_heading(graph, agent));
        thread(corpus, graph, agent, options, written, &mut inner);
        for line in inner.trim_end().lines() {
            if line.is_empty() {
                let _ = writeln!(out, ">");
            } else {
                let _ = writeln!(out, "> {line}");
            }
        }
        let _ = writeln!(out);
    }
}

fn result_text(corpus: &Corpus, entry_id: EntryId, block_index: BlockId) -> String {
    let entry = &corpus.entries[entry_id.index()];
    if block_index.is_none() {
        return corpus.first_text(entry).map(|t| t.into_owned()).unwrap_or_default();
    }
    let block = corpus.blocks[block_index.index()];
    let raw = corpus.span_bytes(entry.file, block.body);
    if raw.first() == Some(&b'"') {
        return crate::json::decode_value(raw).into_owned();
    }
    match serde_json::from_slice::<Value>(raw) {
        Ok(Value::Array(items)) => items
            .iter()
            .map(|item| match item.get("type").and_then(Value::as_str) {
                Some("text") => item.get("text").and_then(Value::as_str).unwrap_or("").to_owned(),
                Some("image") => "[image]".to_owned(),
                _ => item.to_string(),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        Ok(other) => other.to_string(),
        Err(_) => String::new(),
    }
}

/// A code block of a tool's output, cut to `max_lines`, then to `max_chars` characters.
fn fenced_cut(language: &str, text: &str, max_lines: usize, max_chars: usize, out: &mut String) {
    let kept: usize = text.lines().take(max_lines).map(|line| line.chars().count() + 1).sum();
    // A marker the cut would split is kept whole.
    let end = crate::cut::end_at(text, crate::cut::char_end(text, max_chars));
    if kept <= max_chars || end >= text.len() {
        return fenced(language, text, max_lines, out);
    }
    let cut = &text[..end];
    fenced(language, cut, usize::MAX, out);
    let _ = writeln!(out, "*… {} more characters*\n", text[end..].chars().count());
}

/// A code block whose fence is longer than any backtick run inside, cut to `max_lines`.
fn fenced(language: &str, text: &str, max_lines: usize, out: &mut String) {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest.max(2) + 1);
    let total = text.lines().count();
    let _ = writeln!(out, "{fence}{language}");
    for line in text.lines().take(max_lines) {
        let _ = writeln!(out, "{line}");
    }
    let _ = writeln!(out, "{fence}");
    if total > max_lines {
        let _ = writeln!(out, "\n*… {} more lines*", total - max_lines);
    }
    out.push('\n');
}

fn quote(text: &str, out: &mut String) {
    for line in text.trim_end().lines() {
        let _ = writeln!(out, "> {line}");
    }
    out.push('\n');
}

/// Text inside a heading or emphasis: one line, Markdown's active characters escaped.
fn inline(text: &str) -> String {
    let line = text.lines().next().unwrap_or("");
    let mut out = String::with_capacity(line.len());
    for c in line.chars() {
        if matches!(c, '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '#' | '|') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Text inside the HTML of a `<summary>`.
fn html(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}
