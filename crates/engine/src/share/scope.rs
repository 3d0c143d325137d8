//! Which lines of the loaded files a share covers: everything, one session, the active branch,
//! a subtree or a range of messages. A scope is resolved against the graph into lines of files,
//! with the agent conversations the chosen messages spawned, so a shared excerpt keeps its
//! subagents.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::dag::{ConversationId, Fork, Graph, SessionId};
use crate::model::{Corpus, EntryId, FileId, Format};

/// What to share.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Scope {
    /// Every loaded file.
    All,
    /// Every file of one session.
    Session(SessionId),
    /// The main thread of a session along one path through its forks: `choices` maps a fork
    /// node to the alternative taken; forks not named take their active alternative.
    Branch { session: SessionId, choices: Vec<(EntryId, u32)> },
    /// A message and everything below it.
    Subtree(EntryId),
    /// The messages from `from` to `to` (inclusive) along the branch `choices` picks.
    Range { from: EntryId, to: EntryId, choices: Vec<(EntryId, u32)> },
}

impl Scope {
    /// A short description for the review screen and the share header, naming the scope's
    /// session by `title` (as the share shows it: redacted, then cut).
    pub fn describe(&self, graph: &Graph, title: &str) -> String {
        match self {
            Scope::All => format!("all {} loaded sessions", graph.sessions.len()),
            Scope::Session(_) => format!("session “{title}”"),
            Scope::Branch { .. } => format!("the active branch of “{title}”"),
            Scope::Subtree(_) => "a message and what follows it".to_owned(),
            Scope::Range { .. } => "a range of messages".to_owned(),
        }
    }
}

/// One line to share.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScopeLine {
    /// 1-based line number in its file.
    pub line: u32,
    /// The line's bytes in the file (without its line ending).
    pub start: usize,
    pub end: usize,
    /// The `parentUuid` value's range in the file, when it names a message outside the scope:
    /// the shared line gets `null` there, so the excerpt starts a clean root.
    pub cut_parent: Option<(usize, usize)>,
    /// A request line that repeats the conversation so far (Ollama's `messages`): how many of
    /// its first messages precede the excerpt and are left out of the shared line.
    pub skip_messages: u32,
}

/// The lines of one file to share.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScopeFile {
    pub file: FileId,
    /// The path inside the share: the file name, under `<session>/subagents/` for agent files.
    /// Folder names above it are left out (they hold user and project names).
    pub path: String,
    /// Whether the whole file is one JSON document rather than lines (agent meta files).
    pub whole_document: bool,
    pub lines: Vec<ScopeLine>,
}

/// What a scope resolved to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ScopeLines {
    pub files: Vec<ScopeFile>,
    /// Agent conversations left out because subagents are dropped.
    pub agents_left_out: u32,
}

impl ScopeLines {
    pub fn line_count(&self) -> usize {
        self.files.iter().map(|f| f.lines.len()).sum()
    }

    pub fn byte_count(&self) -> usize {
        self.files.iter().flat_map(|f| &f.lines).map(|l| l.end - l.start).sum()
    }
}

/// Resolves `scope` into the lines to share. With `without_agents`, agent conversations (their
/// files and inline sidechains) are left out.
pub fn resolve(corpus: &Corpus, graph: &Graph, scope: &Scope, without_agents: bool) -> ScopeLines {
    match scope {
        Scope::All => whole_files(corpus, graph, (0..corpus.files.len() as FileId).collect(), without_agents),
        Scope::Session(session) => {
            let Some(s) = graph.sessions.get(session.index()) else { return ScopeLines::default() };
            // A markdown history holds one session per run: a session of it is its own entries,
            // not its whole file.
            if s.files.iter().any(|&f| corpus.files.get(f as usize).is_some_and(|f| f.format.lines_are_text())) {
                let conversations: FxHashSet<ConversationId> =
                    std::iter::once(s.main).chain(s.agents.iter().copied()).collect();
                let entries = (0..graph.nodes.len())
                    .filter(|&e| conversations.contains(&graph.nodes[e].conversation))
                    .map(EntryId::new)
                    .collect();
                return selected_entries(corpus, graph, entries, without_agents);
            }
            // A database's record stream holds every session of the database: a session of it is
            // its own rows (and its subagents'), never the others'.
            if s.files.iter().any(|&f| corpus.files.get(f as usize).is_some_and(|f| is_record_stream(f.format))) {
                return session_records(corpus, graph, s, without_agents);
            }
            whole_files(corpus, graph, s.files.clone(), without_agents)
        }
        Scope::Branch { session, choices } => {
            let Some(main) = graph.sessions.get(session.index()).map(|s| s.main).filter(|&m| m.is_some()) else {
                return ScopeLines::default();
            };
            let thread = graph.thread_with(main, &chooser(choices));
            selected_entries(corpus, graph, thread, without_agents)
        }
        Scope::Subtree(root) => {
            if root.index() >= corpus.entries.len() {
                return ScopeLines::default();
            }
            selected_entries(corpus, graph, graph.subtree(*root), without_agents)
        }
        Scope::Range { from, to, choices } => {
            let Some(node) = graph.nodes.get(from.index()) else { return ScopeLines::default() };
            let thread = graph.thread_with(node.conversation, &chooser(choices));
            let (a, b) = (*from.min(to), *from.max(to));
            let Some(start) = thread.iter().position(|&e| e == a) else { return ScopeLines::default() };
            let Some(end) = thread.iter().position(|&e| e == b) else { return ScopeLines::default() };
            selected_entries(corpus, graph, thread[start..=end].to_vec(), without_agents)
        }
    }
}

fn chooser(choices: &[(EntryId, u32)]) -> impl Fn(&Fork) -> u32 + '_ {
    move |fork: &Fork| choices.iter().find(|(node, _)| *node == fork.node).map_or(fork.active, |(_, alt)| *alt)
}

/// Whether files of `format` are a database's record stream, one row per line, many sessions.
fn is_record_stream(format: Format) -> bool {
    matches!(format, Format::OpenCode | Format::CursorIde)
}

/// The rows of a record stream that `session` is made of: for OpenCode its `session` row, its
/// child sessions' (subagents), and their messages and parts; for Cursor its `composerData` row
/// and its bubbles. Lines that cannot be read as records, and other sessions' rows, stay out.
/// Files of other formats in the session go whole, as they would.
fn session_records(corpus: &Corpus, graph: &Graph, session: &crate::dag::Session, without_agents: bool) -> ScopeLines {
    #[derive(serde::Deserialize)]
    struct Row<'a> {
        #[serde(borrow, default)]
        table: Option<std::borrow::Cow<'a, str>>,
        #[serde(borrow, default)]
        id: Option<std::borrow::Cow<'a, str>>,
        #[serde(borrow, default)]
        session_id: Option<std::borrow::Cow<'a, str>>,
        #[serde(borrow, default)]
        parent_id: Option<std::borrow::Cow<'a, str>>,
        #[serde(borrow, default)]
        key: Option<std::borrow::Cow<'a, str>>,
    }
    let (streams, others): (Vec<FileId>, Vec<FileId>) = session
        .files
        .iter()
        .partition(|&&f| corpus.files.get(f as usize).is_some_and(|info| is_record_stream(info.format)));
    let mut out = whole_files(corpus, graph, others, without_agents);
    for file in streams {
        let Some(info) = corpus.files.get(file as usize) else { continue };
        let bytes = corpus.bytes.get(file as usize).map(Vec::as_slice).unwrap_or_default();
        let rows: Vec<(ScopeLine, Option<Row>)> = split_lines(bytes)
            .map(|line| {
                let row =
                    std::str::from_utf8(&bytes[line.start..line.end]).ok().and_then(|t| serde_json::from_str(t).ok());
                (line, row)
            })
            .collect();
        // The session and, unless agents are left out, its subagents' sessions, to any depth.
        let mut sessions: FxHashSet<&str> = std::iter::once(session.id.as_str()).collect();
        if !without_agents {
            loop {
                let before = sessions.len();
                for (_, row) in &rows {
                    if let Some(Row { table: Some(table), id: Some(id), parent_id: Some(parent), .. }) = row
                        && table == "session"
                        && sessions.contains(parent.as_ref())
                    {
                        sessions.insert(id.as_ref());
                    }
                }
                if sessions.len() == before {
                    break;
                }
            }
        }
        let mine = |row: &Row| match row.table.as_deref() {
            Some("session") => row.id.as_deref().is_some_and(|id| sessions.contains(id)),
            Some("cursorDiskKV") => row.key.as_deref().is_some_and(|key| {
                let chat = key.strip_prefix("composerData:").or_else(|| {
                    key.strip_prefix("bubbleId:").and_then(|rest| rest.split_once(':')).map(|(chat, _)| chat)
                });
                chat.is_some_and(|chat| chat == session.id)
            }),
            _ => row.session_id.as_deref().is_some_and(|id| sessions.contains(id)),
        };
        let lines: Vec<ScopeLine> =
            rows.iter().filter(|(_, row)| row.as_ref().is_some_and(mine)).map(|(line, _)| *line).collect();
        if !lines.is_empty() {
            out.files.push(ScopeFile { file, path: share_path(&info.path), whole_document: false, lines });
        }
    }
    out
}

/// Whether a file holds agent conversations only: a Claude Code (or Qwen Code) agent file or
/// meta file, a Cursor CLI subagent's transcript, a Gemini CLI subagent's chat, or a file of a
/// Cline or Roo Code subtask nested in another task's session.
fn is_agent_file(corpus: &Corpus, file: FileId) -> bool {
    let info = &corpus.files[file as usize];
    let subtask = matches!(info.format, Format::Cline | Format::RooCode)
        && crate::import::cline::task_of_path(&info.path)
            .is_some_and(|task| info.session_from_path.as_ref() != Some(&task));
    info.agent_id_from_name.is_some()
        || info.format == Format::AgentMeta
        || (info.format == Format::CursorCli && crate::import::cursor::subagent_of_path(&info.path).is_some())
        || (info.format == Format::GeminiCli && crate::import::gemini::subagent_folder(&info.path).is_some())
        || subtask
}

fn whole_files(corpus: &Corpus, graph: &Graph, mut files: Vec<FileId>, without_agents: bool) -> ScopeLines {
    files.sort_unstable();
    files.dedup();
    let mut out = ScopeLines::default();
    // Inline sidechain lines of a main file are left out line by line.
    let mut sidechain_lines: FxHashSet<(FileId, u32)> = FxHashSet::default();
    if without_agents {
        for entry in &corpus.entries {
            if entry.is_sidechain() {
                sidechain_lines.insert((entry.file, entry.line));
            }
        }
        out.agents_left_out = graph
            .conversations
            .iter()
            .filter(|c| c.is_agent() && files.contains(&c.file))
            .count()
            .try_into()
            .unwrap_or(u32::MAX);
    }
    for file in files {
        let Some(info) = corpus.files.get(file as usize) else { continue };
        // OpenCode storage files are shared as the record stream made of them (a file of its own).
        if matches!(info.format, Format::Rejected | Format::OpenCodeStorage)
            || (without_agents && is_agent_file(corpus, file))
        {
            continue;
        }
        let bytes = corpus.bytes.get(file as usize).map(Vec::as_slice).unwrap_or_default();
        let one_value = crate::import::is_one_json_value(info.format, bytes);
        // A task or thread document is one JSON value over many lines: it goes whole, as a legacy
        // Gemini CLI document does (which an excerpt can cut between messages).
        let whole_document = info.format == Format::AgentMeta
            || one_value
            || matches!(info.format, Format::Cline | Format::RooCode | Format::Amp);
        // A text history is shared whole, blank lines and all: its replies are markdown.
        let lines = if one_value {
            document_line(bytes, None).into_iter().collect()
        } else if whole_document || info.format.lines_are_text() {
            vec![ScopeLine { line: 1, start: 0, end: bytes.len(), cut_parent: None, skip_messages: 0 }]
        } else {
            split_lines(bytes).filter(|l| !sidechain_lines.contains(&(file, l.line))).collect()
        };
        if !lines.is_empty() {
            out.files.push(ScopeFile { file, path: share_path(&info.path), whole_document, lines });
        }
    }
    out
}

/// In a text history an entry can lie inside another (an edit block inside its reply): each
/// byte is shared once, ranges that overlap joined.
fn without_overlaps(mut lines: Vec<ScopeLine>) -> Vec<ScopeLine> {
    lines.sort_unstable_by_key(|l| (l.start, std::cmp::Reverse(l.end)));
    let mut out: Vec<ScopeLine> = Vec::with_capacity(lines.len());
    for line in lines {
        match out.last_mut() {
            Some(last) if line.start < last.end => last.end = last.end.max(line.end),
            _ => out.push(line),
        }
    }
    out
}

/// A file that is one JSON object with a message list (a legacy Gemini CLI session) as one line
/// to share: all of it, without the messages that start before `first` (a byte offset) when
/// given. `None` when the object cannot be read.
fn document_line(bytes: &[u8], first: Option<usize>) -> Option<ScopeLine> {
    let start = if bytes.starts_with(b"\xEF\xBB\xBF") { 3 } else { 0 };
    let text = std::str::from_utf8(&bytes[start..]).ok()?;
    let offsets = crate::import::gemini::message_offsets(text)?;
    let skip = first.map_or(0, |first| offsets.iter().filter(|&&o| start + o < first).count());
    let skip_messages = u32::try_from(skip).unwrap_or(u32::MAX);
    Some(ScopeLine { line: 1, start, end: bytes.len(), cut_parent: None, skip_messages })
}

/// The non-blank lines of a file, numbered like the loader numbers them.
fn split_lines(bytes: &[u8]) -> impl Iterator<Item = ScopeLine> + '_ {
    let mut start = 0;
    let mut line = 0u32;
    std::iter::from_fn(move || {
        while start < bytes.len() {
            line += 1;
            let end = memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |i| start + i);
            let mut text_start = start;
            if line == 1 && bytes[start..end].starts_with(b"\xEF\xBB\xBF") {
                text_start += 3;
            }
            let mut text_end = end;
            if text_end > text_start && bytes[text_end - 1] == b'\r' {
                text_end -= 1;
            }
            start = end + 1;
            if bytes[text_start..text_end].iter().any(|b| !b.is_ascii_whitespace()) {
                return Some(ScopeLine { line, start: text_start, end: text_end, cut_parent: None, skip_messages: 0 });
            }
        }
        None
    })
}

fn selected_entries(corpus: &Corpus, graph: &Graph, entries: Vec<EntryId>, without_agents: bool) -> ScopeLines {
    let mut selected: FxHashSet<EntryId> = entries.iter().copied().collect();
    let mut out = ScopeLines::default();
    // The agents these messages spawned, and the agents those spawned, whole.
    let mut by_conversation: FxHashMap<ConversationId, Vec<EntryId>> = FxHashMap::default();
    for (entry, node) in graph.nodes.iter().enumerate() {
        if graph.conversations.get(node.conversation.index()).is_some_and(|c| c.is_agent()) {
            by_conversation.entry(node.conversation).or_default().push(EntryId::new(entry));
        }
    }
    let mut included = vec![false; graph.conversations.len()];
    loop {
        let mut grew = false;
        for (index, conv) in graph.conversations.iter().enumerate() {
            if included[index] || !conv.is_agent() {
                continue;
            }
            let spawned_here = (conv.spawn_entry.is_some() && selected.contains(&conv.spawn_entry))
                || (conv.cross_parent.is_some() && selected.contains(&conv.cross_parent));
            if !spawned_here {
                continue;
            }
            included[index] = true;
            grew = true;
            if without_agents {
                out.agents_left_out += 1;
                continue;
            }
            selected.extend(by_conversation.get(&ConversationId::new(index)).into_iter().flatten().copied());
        }
        if !grew {
            break;
        }
    }
    if without_agents {
        selected.retain(|&e| !corpus.entries[e.index()].is_sidechain());
    }

    let mut per_file: FxHashMap<FileId, Vec<ScopeLine>> = FxHashMap::default();
    let uuids_in_scope: FxHashSet<&str> =
        selected.iter().map(|&e| corpus.entry_uuid(&corpus.entries[e.index()])).collect();
    // Where the first entry in scope starts, per file (for files that are one JSON object).
    let mut first_entry: FxHashMap<FileId, usize> = FxHashMap::default();
    for &id in &selected {
        let entry = &corpus.entries[id.index()];
        if entry.line_span.is_arena() {
            continue;
        }
        let range = entry.line_span.range();
        let first = first_entry.entry(entry.file).or_insert(range.start);
        *first = (*first).min(range.start);
        let cut_parent = corpus
            .entry_parent_uuid(entry)
            .filter(|parent| !uuids_in_scope.contains(parent))
            .and_then(|_| quoted_value_range(corpus, entry.file, entry.parent_uuid, range.clone()));
        per_file.entry(entry.file).or_default().push(ScopeLine {
            line: entry.line,
            start: range.start,
            end: range.end,
            cut_parent,
            skip_messages: 0,
        });
    }
    // Titles and summaries of the files involved come along.
    for meta in &corpus.metas {
        let Some(lines) = per_file.get_mut(&meta.file) else { continue };
        let kind = corpus.sym(meta.type_name);
        let wanted = match kind {
            "custom-title" | "ai-title" | "agent-name" => true,
            "summary" => {
                meta.target_uuid.is_empty() || uuids_in_scope.contains(corpus.span_str(meta.file, meta.target_uuid))
            }
            _ => false,
        };
        if wanted && !meta.line_span.is_arena() {
            let range = meta.line_span.range();
            lines.push(ScopeLine {
                line: meta.line,
                start: range.start,
                end: range.end,
                cut_parent: None,
                skip_messages: 0,
            });
        }
    }
    add_joined_lines(corpus, &mut per_file);
    // Meta files of included agents.
    let mut files: Vec<FileId> = per_file.keys().copied().collect();
    for (file, info) in corpus.files.iter().enumerate() {
        let Some(meta) = &info.agent_meta else { continue };
        let spawned = graph.conversations.iter().enumerate().any(|(i, c)| {
            included[i] && !without_agents && (c.agent_name == meta.agent_id || corpus.sym(c.agent_id) == meta.agent_id)
        });
        if spawned && info.format == Format::AgentMeta {
            files.push(file as FileId);
        }
    }
    files.sort_unstable();
    files.dedup();
    for file in files {
        let info = &corpus.files[file as usize];
        let bytes = corpus.bytes.get(file as usize).map(Vec::as_slice).unwrap_or_default();
        if crate::import::is_one_json_value(info.format, bytes) {
            // One JSON object: shared whole but for the messages before the first in scope.
            if let Some(line) = document_line(bytes, first_entry.get(&file).copied()) {
                let path = share_path(&info.path);
                out.files.push(ScopeFile { file, path, whole_document: true, lines: vec![line] });
            }
            continue;
        }
        if info.format == Format::AgentMeta {
            let len = corpus.bytes.get(file as usize).map_or(0, Vec::len);
            out.files.push(ScopeFile {
                file,
                path: share_path(&info.path),
                whole_document: true,
                lines: vec![ScopeLine { line: 1, start: 0, end: len, cut_parent: None, skip_messages: 0 }],
            });
            continue;
        }
        let mut lines = per_file.remove(&file).unwrap_or_default();
        lines.sort_unstable_by_key(|l| l.line);
        lines.dedup_by_key(|l| l.line);
        if info.format.lines_are_text() {
            lines = without_overlaps(lines);
        }
        out.files.push(ScopeFile { file, path: share_path(&info.path), whole_document: false, lines });
    }
    out
}

/// In the formats other agents write, one entry can stand for several lines (Ollama's streamed
/// chunks, Codex's `item.started`/`item.updated` before `item.completed`) and the file opens with
/// a header (`session_meta`, `system/init`, `thread.started`, the request). An excerpt of such a
/// file keeps, after each line of an entry in scope, the lines that belong to no entry of their
/// own up to the next one, and the header lines before the first entry, so the excerpt reads
/// back into the same messages.
fn add_joined_lines(corpus: &Corpus, per_file: &mut FxHashMap<FileId, Vec<ScopeLine>>) {
    for (&file, lines) in per_file.iter_mut() {
        let Some(info) = corpus.files.get(file as usize) else { continue };
        if matches!(info.format, Format::ClaudeCode | Format::AgentMeta | Format::Rejected | Format::Pending) {
            continue;
        }
        let mut owned: FxHashSet<u32> = FxHashSet::default();
        let mut first_entry = u32::MAX;
        for entry in corpus.entries.iter().filter(|e| e.file == file) {
            owned.insert(entry.line);
            first_entry = first_entry.min(entry.line);
        }
        for meta in corpus.metas.iter().filter(|m| m.file == file) {
            owned.insert(meta.line);
        }
        if info.format == Format::Ollama {
            skip_earlier_history(corpus.bytes.get(file as usize).map(Vec::as_slice).unwrap_or_default(), lines);
        }
        let chosen: FxHashSet<u32> = lines.iter().map(|l| l.line).collect();
        let bytes = corpus.bytes.get(file as usize).map(Vec::as_slice).unwrap_or_default();
        let mut following_chosen = false;
        for line in split_lines(bytes) {
            if chosen.contains(&line.line) {
                following_chosen = true;
                continue;
            }
            let header = line.line < first_entry;
            if owned.contains(&line.line) && !header {
                following_chosen = false;
                continue;
            }
            if header || following_chosen {
                lines.push(line);
            }
        }
    }
}

/// Each Ollama request repeats the conversation so far in `messages`. An excerpt must not carry
/// what came before it: every request line of the excerpt leaves out the messages that precede
/// the first request's new ones (those after its last assistant message).
fn skip_earlier_history(bytes: &[u8], lines: &mut [ScopeLine]) {
    let history = |line: &ScopeLine| -> Option<Vec<serde_json::Value>> {
        let text = bytes.get(line.start..line.end)?;
        let mut value: serde_json::Value = serde_json::from_slice(text).ok()?;
        match value.get_mut("messages")?.take() {
            serde_json::Value::Array(messages) => Some(messages),
            _ => None,
        }
    };
    lines.sort_unstable_by_key(|l| l.line);
    let Some(first) = lines.iter().find_map(history) else { return };
    if first.is_empty() {
        return;
    }
    let skip = first
        .iter()
        .rposition(|m| m.get("role").and_then(|r| r.as_str()) == Some("assistant"))
        .map_or(0, |last_assistant| last_assistant + 1);
    // A conversation shared from its start keeps its system prompt and everything else.
    if skip == 0 {
        return;
    }
    for line in lines.iter_mut() {
        if let Some(messages) = history(line) {
            line.skip_messages = skip.min(messages.len()) as u32;
        }
    }
}

/// The range of `"<value>"` (quotes included) of a string field whose decoded value `span`
/// points at, if it lies in the line and has its quotes around it.
fn quoted_value_range(
    corpus: &Corpus,
    file: FileId,
    span: crate::span::Span,
    line: std::ops::Range<usize>,
) -> Option<(usize, usize)> {
    if span.is_arena() || span.is_empty() {
        return None;
    }
    let bytes = corpus.bytes.get(file as usize)?;
    let range = span.range();
    let (open, close) = (range.start.checked_sub(1)?, range.end);
    (open >= line.start && close < line.end && bytes.get(open) == Some(&b'"') && bytes.get(close) == Some(&b'"'))
        .then_some((open, close + 1))
}

/// The path a file gets inside a share: `<name>`, `<session>/subagents/<name>`, or a Cline or
/// Roo Code task file's `<task id>/<name>`.
pub fn share_path(path: &str) -> String {
    let parts: Vec<&str> = path.split(['/', '\\']).filter(|p| !p.is_empty()).collect();
    match parts.as_slice() {
        [.., session, "subagents", name] => format!("{session}/subagents/{name}"),
        // The files of a Cline or Roo Code task keep their task folder: it names the session.
        [.., task, name] if crate::import::cline::kind_of_name(name).is_some() => format!("{task}/{name}"),
        [.., name] => (*name).to_owned(),
        [] => "session.jsonl".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn share_paths_keep_the_subagent_layout_and_drop_folders_above() {
        assert_eq!(share_path("/home/alice/.claude/projects/-home-alice-x/abc.jsonl"), "abc.jsonl");
        assert_eq!(share_path("proj/abc/subagents/agent-a1.jsonl"), "abc/subagents/agent-a1.jsonl");
        assert_eq!(share_path("C:\\Users\\bob\\abc.jsonl"), "abc.jsonl");
        assert_eq!(share_path(""), "session.jsonl");
    }

    #[test]
    fn lines_are_numbered_like_the_loader_and_blank_ones_skipped() {
        let bytes = b"\xEF\xBB\xBF{\"a\":1}\r\n\n  \n{\"b\":2}";
        let lines: Vec<ScopeLine> = split_lines(bytes).collect();
        assert_eq!(lines.len(), 2);
        assert_eq!((lines[0].line, &bytes[lines[0].start..lines[0].end]), (1, &b"{\"a\":1}"[..]));
        assert_eq!((lines[1].line, &bytes[lines[1].start..lines[1].end]), (4, &b"{\"b\":2}"[..]));
    }
}
