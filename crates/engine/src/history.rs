//! A whole history, indexed: which files make one session (a [`Unit`]), and what a session is in
//! one row ([`SessionRow`]) once its files are read.
//!
//! The index never holds more than one unit: each is read, summarised and let go, so memory
//! depends on the largest session, not on the history. The app's history home and
//! `sessionscope index` both build their rows here, and opening a session reads exactly its
//! unit's files, so the numbers of a row are the numbers of the opened session.

use serde::{Deserialize, Serialize};

use crate::dag::{Graph, ToolOp, ToolStatus};
use crate::import::opencode_storage::{Kind as StorageKind, StoragePath};
use crate::model::{Corpus, EntryFlags, EntryKind, Format, Usage};
use crate::summary::UsageSummary;

/// The files of one session: a main transcript with its subagent files, a Codex rollout, or any
/// other file alone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unit {
    /// The path the unit is known by: the main transcript's path without `.jsonl`, or the file's
    /// path for a file alone.
    pub key: String,
    /// The project folder the unit lies in (the folder of its main transcript), `""` at the top.
    pub folder: String,
    /// Indices into the paths given to [`group_into_units`], the main transcript first.
    pub files: Vec<usize>,
}

/// Totals over the rows of a history.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Totals {
    pub sessions: usize,
    pub projects: usize,
    pub files: usize,
    pub bytes: u64,
    pub usage: UsageSummary,
    pub cost_usd: f64,
}

impl Totals {
    pub fn of(rows: &[SessionRow]) -> Totals {
        let mut totals = Totals { sessions: rows.len(), ..Totals::default() };
        let mut projects = std::collections::HashSet::new();
        // One database holds many sessions: its file and bytes count once.
        let mut files = std::collections::HashSet::new();
        for row in rows {
            projects.insert(row.project.as_str());
            let new_files = row.files.iter().filter(|f| files.insert(f.as_str())).count();
            totals.files += new_files;
            if new_files > 0 {
                totals.bytes += row.bytes;
            }
            // Saturating: a log can state counts past any integer.
            let (sum, usage) = (&mut totals.usage, &row.usage);
            sum.input_tokens = sum.input_tokens.saturating_add(usage.input_tokens);
            sum.output_tokens = sum.output_tokens.saturating_add(usage.output_tokens);
            sum.cache_creation_input_tokens =
                sum.cache_creation_input_tokens.saturating_add(usage.cache_creation_input_tokens);
            sum.cache_read_input_tokens = sum.cache_read_input_tokens.saturating_add(usage.cache_read_input_tokens);
            totals.cost_usd += row.cost_usd;
        }
        totals.projects = projects.len();
        totals.cost_usd = (totals.cost_usd * 1e6).round() / 1e6;
        totals
    }
}

/// Where a file belongs, from its path alone.
enum Place {
    /// `<folder>/<session>.jsonl`, or a subagent file under `<folder>/<session>/subagents/`.
    Session { folder: String, session: String, main: bool },
    /// `<folder>/agent-<id>.jsonl` of older versions, beside the main transcripts: the session
    /// it belongs to is named inside it. Also a newer subagent's transcript picked without its
    /// folders (`<session>/subagents/` lost: files chosen one by one).
    LooseAgent { folder: String },
    /// `<folder>/agent-<id>.meta.json` picked without its folders: it names no session, only its
    /// agent (by its name), so it goes with the transcript `agent-<id>.jsonl` beside it.
    LooseAgentMeta { folder: String, agent: String },
    /// A Gemini CLI subagent's conversation, `<chats>/<session id>/<agent id>.jsonl`: it belongs
    /// to the session file of `<chats>` whose name ends with the session id's first 8 characters.
    GeminiAgent { chats: String, session: String },
    /// A record of OpenCode's older storage: the session it belongs to comes from its path (a
    /// message's folder, a part's message), its root from the parents that the session files
    /// name ([`unit_hint`]).
    OpenCode(StoragePath),
    /// Anything else is a unit of its own.
    Alone,
}

fn place_of(path: &str) -> Place {
    if let Some(storage) = crate::import::opencode_storage::place(path) {
        return Place::OpenCode(storage);
    }
    let parts: Vec<&str> = path.split(['/', '\\']).filter(|p| !p.is_empty()).collect();
    let Some((name, parents)) = parts.split_last() else { return Place::Alone };
    // A Qwen Code background agent's transcript (and its meta file),
    // `<project>/subagents/<session id>/agent-<id>.jsonl`: of the session `<project>/chats/<session
    // id>.jsonl`.
    if parents.len() >= 3 && parents[parents.len() - 2] == "subagents" && name.starts_with("agent-") {
        let at = parents.len() - 2;
        return Place::Session {
            folder: format!("{}/chats", parents[..at].join("/")),
            session: parents[at + 1].to_owned(),
            main: false,
        };
    }
    if let Some(at) = parents.iter().rposition(|p| *p == "subagents")
        && at >= 1
    {
        return Place::Session {
            folder: parents[..at - 1].join("/"),
            session: parents[at - 1].to_owned(),
            main: false,
        };
    }
    if crate::import::is_rollout_name(name) {
        return Place::Alone;
    }
    // The files of a Cline or Roo Code task: `<folder>/<task id>/{api_conversation_history,
    // ui_messages,task_metadata}.json`, the conversation first.
    if let Some(kind) = crate::import::cline::kind_of_name(name)
        && let Some((task, folder)) = parents.split_last()
    {
        let main = kind == crate::import::cline::Kind::History;
        return Place::Session { folder: folder.join("/"), session: (*task).to_owned(), main };
    }
    if let Some(agent) = name.strip_prefix("agent-").and_then(|n| n.strip_suffix(".meta.json")) {
        return Place::LooseAgentMeta { folder: parents.join("/"), agent: agent.to_owned() };
    }
    let Some(stem) = name.strip_suffix(".jsonl") else { return Place::Alone };
    if let Some(session) = crate::import::gemini::subagent_folder(path) {
        let chats = parents[..parents.len().saturating_sub(1)].join("/");
        return Place::GeminiAgent { chats, session: session.to_owned() };
    }
    if stem.starts_with("agent-") {
        return Place::LooseAgent { folder: parents.join("/") };
    }
    // A Cursor CLI transcript in a folder of its own name, `<folder>/<id>/<id>.jsonl`: its
    // subagents are in `<folder>/<id>/subagents/`.
    if let Some((own, folder)) = parents.split_last()
        && *own == stem
    {
        return Place::Session { folder: folder.join("/"), session: stem.to_owned(), main: true };
    }
    Place::Session { folder: parents.join("/"), session: stem.to_owned(), main: true }
}

/// The `sessionId` named in the first bytes of a file, to place an older loose `agent-*.jsonl`
/// with its session. `None` when the bytes name none.
pub fn session_id_hint(first_bytes: &[u8]) -> Option<String> {
    let key = b"\"sessionId\":\"";
    let at = memchr::memmem::find(first_bytes, key)? + key.len();
    let rest = &first_bytes[at..];
    let end = memchr::memchr(b'"', rest)?;
    let id = std::str::from_utf8(&rest[..end]).ok()?;
    (!id.is_empty() && id.len() <= 128).then(|| id.to_owned())
}

/// Whether a path is a file whose unit only its content says: a loose agent file (the session
/// it names), a Roo Code task's `history_item.json` (the task it is a subtask of) or an OpenCode
/// storage session (its parent, for a child session). Ask [`unit_hint`] for it before grouping.
pub fn needs_hint(path: &str) -> bool {
    match place_of(path) {
        Place::LooseAgent { .. } => true,
        Place::OpenCode(storage) => storage.kind == StorageKind::Session,
        _ => is_history_item(path),
    }
}

/// What the first bytes of a file that [`needs_hint`] say of its unit: the session a loose agent
/// file names ([`session_id_hint`]), the task a Roo Code subtask's `history_item.json` names as
/// its parent (`parentTaskId`, else `rootTaskId`: the grouping follows parents as far as their
/// folders are there), or the parent an OpenCode storage session names (its `parentID`; none for
/// a root session).
pub fn unit_hint(path: &str, first_bytes: &[u8]) -> Option<String> {
    if is_history_item(path) {
        return ["\"parentTaskId\"", "\"rootTaskId\""].iter().find_map(|key| string_after(first_bytes, key));
    }
    match place_of(path) {
        Place::OpenCode(_) => string_after(first_bytes, "\"parentID\""),
        _ => session_id_hint(first_bytes),
    }
}

fn is_history_item(path: &str) -> bool {
    let mut parts = path.rsplit(['/', '\\']).filter(|p| !p.is_empty());
    parts.next() == Some(crate::import::cline::HISTORY_ITEM_NAME) && parts.next().is_some()
}

/// The string value after `"key"` (and a colon) in JSON bytes, when it is a plain id.
fn string_after(bytes: &[u8], key: &str) -> Option<String> {
    let at = memchr::memmem::find(bytes, key.as_bytes())? + key.len();
    let rest = &bytes[at..];
    let colon = rest.iter().position(|b| !b.is_ascii_whitespace()).filter(|&i| rest[i] == b':')?;
    let rest = &rest[colon + 1..];
    let quote = rest.iter().position(|b| !b.is_ascii_whitespace()).filter(|&i| rest[i] == b'"')?;
    let rest = &rest[quote + 1..];
    let end = memchr::memchr(b'"', rest)?;
    let id = std::str::from_utf8(&rest[..end]).ok()?;
    let plain = id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.');
    (!id.is_empty() && id.len() <= 128 && plain).then(|| id.to_owned())
}

/// Groups files into units, in the order of their first file's path. `hints[i]` is what
/// [`unit_hint`] says of a file: the session a loose agent file names (a loose agent file without
/// one, or whose session has no main transcript here, stays with the other loose files of its
/// folder and session), or the task a Roo Code subtask's `history_item.json` names: the subtask's
/// files join that task's unit when its folder is beside the subtask's.
pub fn group_into_units(paths: &[&str], hints: &[Option<String>]) -> Vec<Unit> {
    use std::collections::HashMap;
    // Task folders, and the task each subtask names.
    // Each path's place, once: a history has thousands of files.
    let mut places: Vec<Option<Place>> = paths.iter().map(|path| Some(place_of(path))).collect();
    let mut tasks: std::collections::HashSet<(String, String)> = std::collections::HashSet::new();
    let mut task_parent: HashMap<(String, String), String> = HashMap::new();
    for (i, (path, place)) in paths.iter().zip(&places).enumerate() {
        if let Some(Place::Session { folder, session, .. }) = place
            && crate::import::cline::task_of_path(path).is_some()
        {
            if is_history_item(path)
                && let Some(Some(parent)) = hints.get(i)
                && parent != session
            {
                task_parent.insert((folder.clone(), session.clone()), parent.clone());
            }
            tasks.insert((folder.clone(), session.clone()));
        }
    }
    // The task at the top of a subtask's parents, as far as their folders are here.
    let root_of = |folder: &str, task: &str| -> String {
        let mut current = task.to_owned();
        for _ in 0..=task_parent.len() {
            match task_parent.get(&(folder.to_owned(), current.clone())) {
                Some(parent) if tasks.contains(&(folder.to_owned(), parent.clone())) => current = parent.clone(),
                _ => break,
            }
        }
        current
    };
    // Gemini CLI session files by their folder and the first 8 characters of their id, which end
    // their name (`session-<time>-<id prefix>.jsonl`).
    let mut gemini_sessions: HashMap<(String, String), String> = HashMap::new();
    for place in &places {
        if let Some(Place::Session { folder, session, main: true }) = place
            && session.starts_with("session-")
            && let Some((_, short)) = session.rsplit_once('-')
        {
            gemini_sessions.entry((folder.clone(), short.to_owned())).or_insert_with(|| session.clone());
        }
    }
    let storage = StorageUnits::new(paths, &places, hints);
    // The unit key of each loose agent transcript, by its folder and agent id, for its meta file.
    let loose_agent_key = |folder: &str, path: &str, hint: Option<&String>| match hint {
        Some(session) if folder.is_empty() => session.clone(),
        Some(session) => format!("{folder}/{session}"),
        None => path.to_owned(),
    };
    let mut loose_agents: HashMap<(String, String), String> = HashMap::new();
    for (i, (path, place)) in paths.iter().zip(&places).enumerate() {
        if let Some(Place::LooseAgent { folder }) = place
            && let Some(agent) =
                path.rsplit(['/', '\\']).next().and_then(|n| n.strip_prefix("agent-")?.strip_suffix(".jsonl"))
        {
            let key = loose_agent_key(folder, path, hints.get(i).and_then(Option::as_ref));
            loose_agents.insert((folder.clone(), agent.to_owned()), key);
        }
    }
    let mut units: Vec<Unit> = Vec::new();
    let mut by_key: HashMap<String, usize> = HashMap::new();
    let order = crate::sort::sorted_indices(paths.len(), &|a, b| paths[a].cmp(paths[b]));
    let mut add = |units: &mut Vec<Unit>, key: String, folder: String, file: usize, main: bool| {
        let at = *by_key.entry(key.clone()).or_insert_with(|| {
            units.push(Unit { key, folder, files: Vec::new() });
            units.len() - 1
        });
        let files = &mut units[at].files;
        if main { files.insert(0, file) } else { files.push(file) }
    };
    for &i in &order {
        let path = paths[i];
        let Some(place) = places.get_mut(i).and_then(Option::take) else { continue };
        match place {
            Place::Session { folder, session, main } => {
                // A subtask's files are its root task's.
                let (session, main) = if task_parent.is_empty() || crate::import::cline::task_of_path(path).is_none() {
                    (session, main)
                } else {
                    let root = root_of(&folder, &session);
                    let main = main && root == session;
                    (root, main)
                };
                let key = if folder.is_empty() { session } else { format!("{folder}/{session}") };
                add(&mut units, key, folder, i, main);
            }
            Place::GeminiAgent { chats, session } => {
                let short: String = session.chars().take(8).collect();
                let key = match gemini_sessions.get(&(chats.clone(), short)) {
                    Some(file) => format!("{chats}/{file}"),
                    None => format!("{chats}/{session}"),
                };
                add(&mut units, key, chats, i, false);
            }
            Place::LooseAgent { folder } => {
                let key = loose_agent_key(&folder, path, hints.get(i).and_then(Option::as_ref));
                add(&mut units, key, folder, i, false);
            }
            Place::LooseAgentMeta { folder, agent } => {
                let key = loose_agents.get(&(folder.clone(), agent)).cloned().unwrap_or_else(|| path.to_owned());
                add(&mut units, key, folder, i, false);
            }
            Place::OpenCode(place) => match storage.unit_of(&place) {
                Some((key, folder, main)) => add(&mut units, key, folder, i, main),
                None => {
                    let folder = path.rsplit_once(['/', '\\']).map(|(f, _)| f.to_owned()).unwrap_or_default();
                    add(&mut units, path.to_owned(), folder, i, true);
                }
            },
            Place::Alone => {
                let folder = path.rsplit_once(['/', '\\']).map(|(f, _)| f.to_owned()).unwrap_or_default();
                add(&mut units, path.to_owned(), folder, i, true);
            }
        }
    }
    units
}

/// The units of OpenCode storage files: every file of a session (its session file, its
/// messages, their parts, its diffs and todos) and of its child sessions, to any depth, is the
/// unit of the root session. Sessions are known by their storage folder and id. (The maps are of
/// the type [`group_into_units`] has for tasks: a new map type is code the page's download
/// carries.)
struct StorageUnits {
    /// A session's parent, from the hints of the session files.
    parents: std::collections::HashMap<(String, String), String>,
    /// A message's session, from the message files' folders.
    sessions_of_messages: std::collections::HashMap<(String, String), String>,
    /// A session file's unit key, and its folder.
    keys: std::collections::HashMap<(String, String), String>,
    folders: std::collections::HashMap<(String, String), String>,
}

impl StorageUnits {
    fn new(paths: &[&str], places: &[Option<Place>], hints: &[Option<String>]) -> StorageUnits {
        let mut units = StorageUnits {
            parents: Default::default(),
            sessions_of_messages: Default::default(),
            keys: Default::default(),
            folders: Default::default(),
        };
        for (i, (path, place)) in paths.iter().zip(places).enumerate() {
            let Some(Place::OpenCode(place)) = place else { continue };
            match place.kind {
                StorageKind::Session => {
                    let key = path.strip_suffix(".json").unwrap_or(path).to_owned();
                    // The project's folder: `session/<project id>`, or in 0.5.x `project/<project>`.
                    let folder = match place.below.strip_prefix("session/info/") {
                        Some(_) => place.root.strip_suffix("/storage").unwrap_or(&place.root).to_owned(),
                        None => path.rsplit_once(['/', '\\']).map(|(f, _)| f.to_owned()).unwrap_or_default(),
                    };
                    let id = (place.root.clone(), place.id.clone());
                    if let Some(Some(parent)) = hints.get(i) {
                        units.parents.insert(id.clone(), parent.clone());
                    }
                    units.keys.entry(id.clone()).or_insert(key);
                    units.folders.entry(id).or_insert(folder);
                }
                StorageKind::Message => {
                    if let Some(session) = &place.session {
                        units.sessions_of_messages.insert((place.root.clone(), place.id.clone()), session.clone());
                    }
                }
                _ => {}
            }
        }
        units
    }

    /// The root of a session's parents that are loaded (itself for a root); a cycle ends where it
    /// comes back (a chain is no longer than the sessions).
    fn root_of(&self, root: &str, session: &str) -> String {
        let mut current = session.to_owned();
        for _ in 0..=self.parents.len() {
            match self.parents.get(&(root.to_owned(), current.clone())) {
                Some(parent) if self.keys.contains_key(&(root.to_owned(), parent.clone())) => current = parent.clone(),
                _ => break,
            }
        }
        current
    }

    /// A storage file's unit (key, folder) and whether it is the unit's main file (the root
    /// session's own file); `None` for a file of no session (a project's info, a part whose
    /// message is not loaded).
    fn unit_of(&self, place: &StoragePath) -> Option<(String, String, bool)> {
        let root = place.root.as_str();
        let session = match place.kind {
            StorageKind::Session => Some(place.id.clone()),
            StorageKind::Part => place.session.clone().or_else(|| {
                let message = place.message.clone()?;
                self.sessions_of_messages.get(&(root.to_owned(), message)).cloned()
            }),
            StorageKind::Message | StorageKind::Other => place.session.clone(),
        }?;
        let top = self.root_of(root, &session);
        let main = place.kind == StorageKind::Session && place.id == top;
        let id = (root.to_owned(), top.clone());
        Some(match (self.keys.get(&id), self.folders.get(&id)) {
            (Some(key), Some(folder)) => (key.clone(), folder.clone(), main),
            _ => (format!("{root}/{top}"), root.to_owned(), main),
        })
    }
}

/// One session of a history, in one row: what the history home lists and `sessionscope index`
/// prints. Every number includes the session's subagents.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SessionRow {
    pub session_id: String,
    /// The agent that wrote it, e.g. "Claude Code".
    pub agent: String,
    /// The working directory of its first message that names one, else its folder.
    pub project: String,
    pub title: String,
    pub first_prompt: String,
    /// Milliseconds since the epoch, `None` without timestamps.
    pub start_ms: Option<i64>,
    pub end_ms: Option<i64>,
    /// User and assistant messages.
    pub messages: u32,
    pub tool_calls: u32,
    /// Tool calls whose result is an error ([`call_failed`]).
    #[serde(default)]
    pub failed_tool_calls: u32,
    /// Models that answered, in order of first answer.
    pub models: Vec<String>,
    pub usage: UsageSummary,
    pub cost_usd: f64,
    /// Subagent and compaction-agent conversations.
    pub agents: u32,
    pub compactions: u32,
    /// Places where the conversation was rewound and went another way.
    pub branches: u32,
    /// Diagnostics of the session's files (lines that could not be read as they are).
    pub diagnostics: u32,
    /// The files that hold it, main transcript first, and their bytes.
    pub files: Vec<String>,
    pub bytes: u64,
    /// How the session is taken up again in its agent ([`crate::resume::Resume::shell_line`]
    /// with the project makes the line to paste).
    #[serde(default)]
    pub resume: crate::resume::Resume,
    /// Lines of its files past what the reader held (a browser tab holds at most so many bytes),
    /// counted but not read: the row says what the rest holds. Almost always 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub left_out_lines: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl SessionRow {
    pub fn duration_ms(&self) -> i64 {
        match (self.start_ms, self.end_ms) {
            (Some(start), Some(end)) => end.saturating_sub(start),
            _ => 0,
        }
    }

    pub fn tokens(&self) -> u64 {
        let u = &self.usage;
        u.input_tokens
            .saturating_add(u.output_tokens)
            .saturating_add(u.cache_creation_input_tokens)
            .saturating_add(u.cache_read_input_tokens)
    }
}

/// A file of the history that holds no session, and why: it could not be read, is not a log,
/// or holds only metadata.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FileProblem {
    pub path: String,
    pub reason: String,
}

/// The agent a file format belongs to, as users name it.
pub fn agent_name(format: Format) -> &'static str {
    match format {
        Format::ClaudeCode | Format::AgentMeta => "Claude Code",
        Format::AgentSdk => "Claude Agent SDK",
        Format::CodexRollout | Format::CodexEvents => "Codex",
        Format::Ollama => "Ollama",
        Format::Pi => "Pi",
        Format::CopilotCli => "GitHub Copilot CLI",
        Format::Aider => "Aider",
        Format::GeminiCli => "Gemini CLI",
        Format::QwenCode => "Qwen Code",
        Format::Cline => "Cline",
        Format::RooCode => "Roo Code",
        Format::Amp => "Amp",
        Format::CursorCli => "Cursor CLI",
        Format::OpenCode | Format::OpenCodeStorage => "OpenCode",
        Format::CursorIde => "Cursor",
        Format::Pending | Format::Rejected => "",
    }
}

/// A session's files as the history knows them, and the format that names its agent. A record
/// stream the loader made is no file of the history: the storage files it was made from are
/// (they join their session by the session they name); its format still names the agent.
fn session_files<'c>(corpus: &'c Corpus, session: &crate::dag::Session) -> (Format, Vec<&'c crate::model::FileInfo>) {
    let files: Vec<&crate::model::FileInfo> =
        session.files.iter().filter_map(|&f| corpus.files.get(f as usize)).collect();
    let format = files.iter().map(|f| f.format).find(|f| !agent_name(*f).is_empty()).unwrap_or(Format::Pending);
    (format, files.into_iter().filter(|f| !f.is_derived()).collect())
}

/// How session `s` of a loaded corpus is resumed in its agent, with the working directory its
/// first message names (empty when none does) and the agent's name.
pub fn session_resume(
    corpus: &Corpus,
    graph: &Graph,
    s: usize,
) -> Option<(crate::resume::Resume, String, &'static str)> {
    let session = graph.sessions.get(s)?;
    let (format, files) = session_files(corpus, session);
    let main = files.first().map_or("", |f| f.path.as_str());
    let cwd = corpus
        .entries
        .iter()
        .enumerate()
        .filter(|(e, _)| {
            graph
                .nodes
                .get(*e)
                .and_then(|node| graph.conversations.get(node.conversation.index()))
                .is_some_and(|c| c.session.index() == s)
        })
        .map(|(_, entry)| corpus.sym(corpus.envelope(entry).cwd))
        .find(|cwd| !cwd.is_empty())
        .unwrap_or_default();
    Some((crate::resume::Resume::of(format, &session.id, main), cwd.to_owned(), agent_name(format)))
}

/// Whether a tool call never ran: its response ended in an API error (Pi then ends its calls
/// with failed results). Such a call is neither a call nor a failure of the tool: the API error
/// is counted once, as such.
pub fn never_ran(corpus: &Corpus, op: &ToolOp) -> bool {
    op.status == ToolStatus::Error
        && corpus.entries.get(op.call_entry.index()).is_some_and(|e| e.flags.has(EntryFlags::API_ERROR))
}

/// Whether a tool call failed (its result is an error), the way the session list and the
/// history's failures count it.
pub fn call_failed(corpus: &Corpus, op: &ToolOp) -> bool {
    op.status == ToolStatus::Error && !never_ran(corpus, op)
}

/// One row per session of a loaded corpus, in the graph's session order. `folder` names the
/// project when no message names its working directory.
pub fn session_rows(corpus: &Corpus, graph: &Graph, folder: &str) -> Vec<SessionRow> {
    let sessions = graph.sessions.len();
    let mut messages = vec![0u32; sessions];
    let mut project: Vec<Option<&str>> = vec![None; sessions];
    for (e, entry) in corpus.entries.iter().enumerate() {
        let Some(node) = graph.nodes.get(e) else { continue };
        let Some(conversation) = graph.conversations.get(node.conversation.index()) else { continue };
        let s = conversation.session.index();
        if s >= sessions {
            continue;
        }
        if matches!(entry.kind, EntryKind::User | EntryKind::Assistant) {
            messages[s] += 1;
        }
        if project[s].is_none() {
            let cwd = corpus.sym(corpus.envelope(entry).cwd);
            if !cwd.is_empty() {
                project[s] = Some(cwd);
            }
        }
    }
    let mut models: Vec<Vec<&str>> = vec![Vec::new(); sessions];
    for response in &corpus.responses {
        let Some(node) = graph.nodes.get(response.first_entry.index()) else { continue };
        let Some(conversation) = graph.conversations.get(node.conversation.index()) else { continue };
        let s = conversation.session.index();
        let model = corpus.sym(response.model);
        if s < sessions && !model.is_empty() && !models[s].contains(&model) {
            models[s].push(model);
        }
    }
    let mut failed_calls = vec![0u32; sessions];
    for op in graph.tool_ops.iter().filter(|op| op.call_entry.is_some() && call_failed(corpus, op)) {
        let Some(node) = graph.nodes.get(op.call_entry.index()) else { continue };
        let Some(conversation) = graph.conversations.get(node.conversation.index()) else { continue };
        if let Some(count) = failed_calls.get_mut(conversation.session.index()) {
            *count += 1;
        }
    }
    let mut diagnostics_per_file = vec![0u32; corpus.files.len()];
    for diagnostic in &corpus.diagnostics {
        if let Some(count) = diagnostics_per_file.get_mut(diagnostic.file as usize) {
            *count += 1;
        }
    }
    graph
        .sessions
        .iter()
        .enumerate()
        .map(|(s, session)| {
            let (format, files) = session_files(corpus, session);
            let first_prompt = corpus
                .entries
                .get(session.first_prompt.index())
                .and_then(|entry| corpus.first_text(entry))
                .map(|text| crate::dag::prompt_title(&text))
                .unwrap_or_default();
            let has_time = session.first_timestamp_ms != i64::MAX && session.last_timestamp_ms != i64::MIN;
            SessionRow {
                session_id: session.id.clone(),
                agent: agent_name(format).to_owned(),
                project: project[s].map_or_else(|| folder.to_owned(), str::to_owned),
                title: if session.title.is_empty() { first_prompt.clone() } else { session.title.clone() },
                first_prompt,
                start_ms: has_time.then_some(session.first_timestamp_ms),
                end_ms: has_time.then_some(session.last_timestamp_ms),
                messages: messages[s],
                tool_calls: session.tool_uses,
                failed_tool_calls: failed_calls[s],
                models: models[s].iter().map(|m| (*m).to_owned()).collect(),
                usage: usage_summary(session.usage_with_agents),
                cost_usd: (session.cost_with_agents_usd * 1e6).round() / 1e6,
                agents: session.agents.len() as u32,
                compactions: session.compactions,
                branches: session.real_forks,
                diagnostics: session
                    .files
                    .iter()
                    .map(|&f| diagnostics_per_file.get(f as usize).copied().unwrap_or(0))
                    .sum(),
                resume: crate::resume::Resume::of(format, &session.id, files.first().map_or("", |f| f.path.as_str())),
                files: files.iter().filter(|f| !f.is_part()).map(|f| f.path.clone()).collect(),
                bytes: files.iter().map(|f| f.size).sum(),
                left_out_lines: files.iter().map(|f| f.counts.left_out).sum(),
            }
        })
        .collect()
}

/// Characters of a prompt's line [`title_sources`] keeps at most.
pub const TITLE_SOURCE_CHARS: usize = 16 << 10;

/// The whole lines the rows' titles and first prompts ([`session_rows`]) were cut from, as
/// (session id, line), for the sessions whose line is longer than a title
/// ([`crate::dag::TITLE_CHARS`]): an output that redacts redacts the whole line, then cuts it,
/// so no cut leaves a piece of a secret the redaction no longer recognises. A line is kept to
/// [`TITLE_SOURCE_CHARS`] characters, cut after a whole word (far past what a title shows).
pub fn title_sources(corpus: &Corpus, graph: &Graph) -> Vec<(String, String)> {
    graph
        .sessions
        .iter()
        .filter_map(|session| {
            let entry = corpus.entries.get(session.first_prompt.index())?;
            let line = crate::dag::prompt_line(&corpus.first_text(entry)?);
            // A line no longer than a title is the row's title whole.
            line.chars().nth(crate::dag::TITLE_CHARS)?;
            let end = crate::cut::char_end(&line, TITLE_SOURCE_CHARS);
            let end = if end < line.len() { line[..end].rfind(char::is_whitespace).unwrap_or(end) } else { end };
            Some((session.id.clone(), line[..end].to_owned()))
        })
        .collect()
}

fn usage_summary(usage: Usage) -> UsageSummary {
    usage.into()
}

/// Hits a whole-history search keeps per unit (its count goes on).
pub const HITS_PER_UNIT: usize = 50;

/// A match of a whole-history search, with what it takes to open its session at it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HistoryHit {
    pub session_id: String,
    /// The uuid of the message it is in.
    pub uuid: String,
    pub field: crate::search::Field,
    /// The kind of the entry it is in (`user`, `assistant`, `system`, …: [`crate::model::EntryKind::name`]).
    pub role: String,
    /// The entry's time in milliseconds since the epoch, if it has one.
    pub time_ms: Option<i64>,
    /// The text around the match, and where the match is in it (char offsets).
    pub context: String,
    pub match_start: u32,
    pub match_len: u32,
    /// The whole text the match is in, for a query made [`crate::search::Query::with_sources`].
    #[serde(skip)]
    pub source: Option<crate::search::HitSource>,
}

/// Searches a unit once read, until `keep` hits are found: a common word does not cost a whole
/// search of every unit. Answers the hits, the matches counted, and whether the count is
/// complete (every entry searched).
pub fn search_unit(
    corpus: &Corpus,
    graph: &Graph,
    query: &crate::search::Query,
    keep: usize,
) -> (Vec<HistoryHit>, u64, bool) {
    /// Entries searched at a time, between looks at how many hits there are.
    const STEP: usize = 256;
    let mut hits = Vec::new();
    let mut count = 0;
    let mut start = 0;
    let entries = corpus.entries.len();
    while start < entries && hits.len() < keep {
        let end = (start + STEP).min(entries);
        count += query.search(corpus, start..end, &mut |hit| {
            if hits.len() >= keep {
                return;
            }
            let Some(entry) = corpus.entries.get(hit.entry.index()) else { return };
            let session = graph
                .nodes
                .get(hit.entry.index())
                .and_then(|node| graph.conversations.get(node.conversation.index()))
                .and_then(|conversation| graph.sessions.get(conversation.session.index()));
            hits.push(HistoryHit {
                session_id: session.map(|s| s.id.clone()).unwrap_or_default(),
                uuid: corpus.entry_uuid(entry).to_owned(),
                field: hit.field,
                role: entry.kind.name().to_owned(),
                time_ms: entry.has_timestamp().then_some(entry.timestamp_ms),
                context: hit.context,
                match_start: hit.match_start,
                match_len: hit.match_len,
                source: hit.source,
            });
        });
        start = end;
    }
    (hits, count, start >= entries)
}

/// A whole-history search of one unit, file by file, keeping only what may hold a hit.
///
/// For a plain query with a raw form ([`crate::search::Query::raw_lines`]), a Claude Code file
/// is never parsed whole: its lines stand alone (each names its uuid and session), so only the
/// lines whose raw bytes match are parsed, a batch at a time, until `keep` hits are found. Other
/// files, and every file for a regular expression, are parsed whole when their bytes may match.
/// Memory is the largest file, not the unit.
pub struct UnitSearch<'q> {
    query: &'q crate::search::Query,
    keep: usize,
    hits: Vec<HistoryHit>,
    count: u64,
    complete: bool,
    /// OpenCode storage files: one record each, read together once the unit's files are all in
    /// (their records make one record stream), if any may hold a hit.
    storage: Vec<(String, Vec<u8>)>,
    storage_may_match: bool,
}

/// A file being searched slice by slice ([`UnitSearch::start_file`]).
pub struct FileSearch {
    path: String,
    /// Searched line by line as slices come; otherwise kept whole until its end.
    by_lines: bool,
    /// An OpenCode storage file: kept for the end of the unit.
    storage: bool,
    /// The file so far (searched whole), or the start of a line the next slice ends.
    kept: Vec<u8>,
    /// Matching lines parsed in the next batch.
    batch_lines: usize,
}

/// Matching lines parsed at first, then twice as many each time until the hits are enough: a
/// common word's first lines hold its hits, and a line of tool output can be megabytes.
const FIRST_LINES_PER_BATCH: usize = 8;
/// At most this many matching lines are parsed at a time.
const LINES_PER_BATCH: usize = 256;

impl<'q> UnitSearch<'q> {
    pub fn new(query: &'q crate::search::Query, keep: usize) -> Self {
        UnitSearch {
            query,
            keep,
            hits: Vec::new(),
            count: 0,
            complete: true,
            storage: Vec::new(),
            storage_may_match: false,
        }
    }

    /// Whether enough hits are found: the files left need not be read.
    pub fn is_full(&self) -> bool {
        self.hits.len() >= self.keep
    }

    /// Says the unit's other files are not searched (the hits are enough): the count is not
    /// complete.
    pub fn skip_rest(&mut self) {
        self.complete = false;
    }

    /// Searches the next file of the unit, given whole.
    pub fn add_file(&mut self, path: &str, bytes: &[u8]) {
        let mut file = self.start_file(path, bytes, true);
        self.add_slice(&mut file, bytes);
        self.end_file(file);
    }

    /// Starts searching the next file of the unit, given slice by slice ([`Self::add_slice`],
    /// then [`Self::end_file`]): `first_slice` is its first slice, not yet added (`whole` if it
    /// is all of the file). A Claude Code file with a plain query is searched line by line as
    /// its slices come, so its reading can stop once the hits are enough ([`Self::is_full`]);
    /// any other file is kept until its end and searched whole.
    pub fn start_file(&self, path: &str, first_slice: &[u8], whole: bool) -> FileSearch {
        let name = path.rsplit('/').next().unwrap_or(path);
        let window = first_slice.get(..first_slice.len().min(64 << 10)).unwrap_or(first_slice);
        let whole_window = whole && window.len() == first_slice.len();
        let format = match crate::import::sniff(window, whole_window, name) {
            crate::import::Sniff::Format(format) => Some(format),
            _ => None,
        };
        let storage = crate::import::opencode_storage::place(path).is_some() || format == Some(Format::OpenCodeStorage);
        let lines_stand_alone = self.query.has_raw_form() && format == Some(Format::ClaudeCode) && !storage;
        FileSearch {
            path: path.to_owned(),
            by_lines: lines_stand_alone,
            storage,
            kept: Vec::new(),
            batch_lines: FIRST_LINES_PER_BATCH,
        }
    }

    /// The next slice of a file started with [`Self::start_file`].
    pub fn add_slice(&mut self, file: &mut FileSearch, slice: &[u8]) {
        if !file.by_lines {
            file.kept.extend_from_slice(slice);
            return;
        }
        // Complete lines are searched now; the start of a line the next slice ends is kept.
        let Some(last_newline) = memchr::memrchr(b'\n', slice) else {
            file.kept.extend_from_slice(slice);
            return;
        };
        let (complete, rest) = slice.split_at(last_newline + 1);
        if file.kept.is_empty() {
            self.search_lines(file, complete);
        } else {
            let mut joined = std::mem::take(&mut file.kept);
            joined.extend_from_slice(complete);
            self.search_lines(file, &joined);
        }
        file.kept.clear();
        file.kept.extend_from_slice(rest);
    }

    /// The file's last slice was added (or its reading stopped, the hits being enough).
    pub fn end_file(&mut self, mut file: FileSearch) {
        let kept = std::mem::take(&mut file.kept);
        if file.storage {
            self.storage_may_match |= self.query.may_match_raw(&kept);
            self.storage.push((file.path, kept));
        } else if file.by_lines {
            self.search_lines(&mut file, &kept);
        } else if self.query.may_match_raw(&kept) {
            if self.is_full() {
                self.complete = false;
            } else {
                self.search_bytes(&file.path, &kept);
            }
        }
    }

    /// Searches complete lines of a Claude Code file: only those whose raw bytes match are
    /// parsed, a batch at a time.
    fn search_lines(&mut self, file: &mut FileSearch, bytes: &[u8]) {
        let Some(mut lines) = self.query.raw_lines(bytes) else { return };
        let mut batch = Vec::new();
        loop {
            batch.clear();
            let mut taken = 0;
            for line in lines.by_ref().take(file.batch_lines) {
                batch.extend_from_slice(line);
                batch.push(b'\n');
                taken += 1;
            }
            if taken == 0 {
                break;
            }
            if self.is_full() {
                self.complete = false;
                break;
            }
            self.search_bytes(&file.path, &batch);
            file.batch_lines = (file.batch_lines * 2).min(LINES_PER_BATCH);
        }
    }

    fn search_bytes(&mut self, path: &str, bytes: &[u8]) {
        self.search_corpus(&crate::Loader::read_all([(path, bytes)]));
    }

    fn search_corpus(&mut self, corpus: &Corpus) {
        let graph = Graph::build(corpus);
        let (hits, count, complete) = search_unit(corpus, &graph, self.query, self.keep - self.hits.len());
        self.hits.extend(hits);
        self.count += count;
        self.complete &= complete;
    }

    /// The hits, the matches counted, and whether the count is complete.
    pub fn finish(mut self) -> (Vec<HistoryHit>, u64, bool) {
        let storage = std::mem::take(&mut self.storage);
        if self.storage_may_match {
            if self.is_full() {
                self.complete = false;
            } else {
                let corpus = crate::Loader::read_all(storage.iter().map(|(path, bytes)| (path.as_str(), bytes)));
                self.search_corpus(&corpus);
            }
        }
        (self.hits, self.count, self.complete)
    }
}

/// What reading one unit gives the index: its sessions and the files that hold none.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct UnitIndex {
    pub rows: Vec<SessionRow>,
    pub problems: Vec<FileProblem>,
}

/// The index of a unit once read: `folder` is the unit's folder ([`Unit::folder`]); its last
/// component names the project of sessions whose messages name no working directory (see
/// [`project_of_folder`]).
pub fn index_unit(corpus: &Corpus, graph: &Graph, folder: &str) -> UnitIndex {
    UnitIndex { rows: session_rows(corpus, graph, project_of_folder(folder)), problems: file_problems(corpus, graph) }
}

/// The project a folder names: its last component, or for a `chats` or `agent-transcripts`
/// folder the one above it. Gemini CLI keeps sessions in `~/.gemini/tmp/<project hash>/chats/`
/// (a subagent's in `chats/<parent session>/`), and its logs name no working directory, only
/// that hash (`projectHash`): the hash is the project. (Qwen Code keeps them in
/// `~/.qwen/tmp/<project hash>/chats/` too, but its records name their cwd.) Cursor CLI keeps
/// them in `~/.cursor/projects/<project slug>/agent-transcripts/`, and names no working
/// directory either: the slug (the path with `-` for `/`, which cannot be undone) is the project.
pub fn project_of_folder(folder: &str) -> &str {
    let mut parts = folder.rsplit(['/', '\\']).filter(|p| !p.is_empty());
    match (parts.next(), parts.next(), parts.next()) {
        (Some("chats" | "agent-transcripts"), Some(above), _) => above,
        (Some(_), Some("chats"), Some(above)) => above,
        (Some(last), _, _) => last,
        (None, _, _) => "",
    }
}

/// The files of a corpus that hold no session, with the reason: the file diagnostic of a
/// rejected file, or "holds no conversation" for a log with only metadata.
pub fn file_problems(corpus: &Corpus, graph: &Graph) -> Vec<FileProblem> {
    let mut in_session = vec![false; corpus.files.len()];
    for session in &graph.sessions {
        for &f in &session.files {
            if let Some(slot) = in_session.get_mut(f as usize) {
                *slot = true;
            }
        }
    }
    corpus
        .files
        .iter()
        .enumerate()
        .filter(|(f, file)| {
            !in_session[*f] && file.format != Format::AgentMeta && !file.is_derived() && !file.is_part()
        })
        .map(|(f, file)| {
            let diagnostic = corpus.diagnostics.iter().find(|d| d.file as usize == f && d.line == 0);
            let reason = match (file.format, diagnostic) {
                (_, Some(d)) => d.message.clone(),
                (Format::Rejected, None) => "not a session log".to_owned(),
                _ if file.counts.lines == 0 => "the file is empty".to_owned(),
                _ => "holds no conversation (only metadata)".to_owned(),
            };
            FileProblem { path: file.path.clone(), reason }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gemini_chats_folder_names_its_project_hash() {
        assert_eq!(project_of_folder("/home/u/.gemini/tmp/3f9a0c7e/chats"), "3f9a0c7e");
        assert_eq!(project_of_folder(".gemini/tmp/3f9a0c7e/chats/b41c7d2e-9f03"), "3f9a0c7e", "a subagent's");
        assert_eq!(project_of_folder("projects/-home-u-app"), "-home-u-app");
        assert_eq!(project_of_folder("chats"), "chats");
        assert_eq!(project_of_folder(".cursor/projects/home-u-app/agent-transcripts"), "home-u-app");
        assert_eq!(project_of_folder(""), "");
    }

    fn units(paths: &[&str], hints: &[Option<&str>]) -> Vec<(String, Vec<&'static str>)> {
        let hints: Vec<Option<String>> = hints.iter().map(|h| h.map(str::to_owned)).collect();
        let owned: Vec<&str> = paths.to_vec();
        group_into_units(&owned, &hints)
            .into_iter()
            .map(|u| (u.key, u.files.iter().map(|&i| leak(paths[i])).collect()))
            .collect()
    }

    fn leak(s: &str) -> &'static str {
        Box::leak(s.to_owned().into_boxed_str())
    }

    #[test]
    fn a_session_is_its_main_file_with_its_subagent_files() {
        let got = units(
            &[
                "p/-home-a/s1/subagents/agent-x.jsonl",
                "p/-home-a/s1.jsonl",
                "p/-home-a/s1/subagents/agent-x.meta.json",
                "p/-home-a/s2.jsonl",
                "p/-home-b/s3.jsonl",
            ],
            &[],
        );
        assert_eq!(
            got,
            vec![
                (
                    "p/-home-a/s1".to_owned(),
                    vec![
                        "p/-home-a/s1.jsonl",
                        "p/-home-a/s1/subagents/agent-x.jsonl",
                        "p/-home-a/s1/subagents/agent-x.meta.json"
                    ]
                ),
                ("p/-home-a/s2".to_owned(), vec!["p/-home-a/s2.jsonl"]),
                ("p/-home-b/s3".to_owned(), vec!["p/-home-b/s3.jsonl"]),
            ]
        );
    }

    #[test]
    fn a_cursor_transcript_is_its_folder_with_its_subagents() {
        let got = units(
            &[
                "p/app/agent-transcripts/s1/subagents/a1.jsonl",
                "p/app/agent-transcripts/s1/s1.jsonl",
                "p/app/agent-transcripts/s0.jsonl",
            ],
            &[],
        );
        assert_eq!(
            got,
            vec![
                ("p/app/agent-transcripts/s0".to_owned(), vec!["p/app/agent-transcripts/s0.jsonl"]),
                (
                    "p/app/agent-transcripts/s1".to_owned(),
                    vec!["p/app/agent-transcripts/s1/s1.jsonl", "p/app/agent-transcripts/s1/subagents/a1.jsonl"]
                ),
            ]
        );
        let units = group_into_units(&["p/app/agent-transcripts/s1/s1.jsonl"], &[]);
        assert_eq!(project_of_folder(&units[0].folder), "app");
    }

    #[test]
    fn a_loose_agent_file_joins_the_session_it_names() {
        let got = units(
            &["proj/agent-1.jsonl", "proj/abc.jsonl", "proj/agent-2.jsonl", "proj/def.jsonl"],
            &[Some("abc"), None, None, None],
        );
        assert_eq!(
            got,
            vec![
                ("proj/abc".to_owned(), vec!["proj/abc.jsonl", "proj/agent-1.jsonl"]),
                ("proj/agent-2.jsonl".to_owned(), vec!["proj/agent-2.jsonl"]),
                ("proj/def".to_owned(), vec!["proj/def.jsonl"]),
            ]
        );
    }

    #[test]
    fn subagent_files_picked_without_their_folders_join_their_session_by_content() {
        // A newer session's files chosen one by one: the subagents' transcripts name their
        // session; each meta file goes with its transcript, by the agent's id in their names.
        let got = units(
            &[
                "agent-a1.meta.json",
                "s1.jsonl",
                "agent-a1.jsonl",
                "agent-acompact-9.jsonl",
                "agent-b2.meta.json",
                "s2.jsonl",
            ],
            &[None, None, Some("s1"), Some("s1"), None, None],
        );
        assert_eq!(
            got,
            vec![
                ("s1".to_owned(), vec!["s1.jsonl", "agent-a1.jsonl", "agent-a1.meta.json", "agent-acompact-9.jsonl"]),
                ("agent-b2.meta.json".to_owned(), vec!["agent-b2.meta.json"]),
                ("s2".to_owned(), vec!["s2.jsonl"]),
            ]
        );
    }

    #[test]
    fn rollouts_and_other_files_are_alone() {
        let rollout = "sessions/2026/01/02/rollout-2026-01-02T10-00-00-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl";
        let got = units(&[rollout, "notes/history.json"], &[]);
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].1, vec!["notes/history.json"]);
        assert_eq!(got[1].1, vec![rollout]);
    }

    #[test]
    fn a_unit_search_stops_at_its_hits_limit_and_says_so() {
        let mut log = String::new();
        let mut parent = "null".to_owned();
        for i in 0..600 {
            log.push_str(&format!(
                r#"{{"type":"user","uuid":"u{i}","parentUuid":{parent},"sessionId":"s1","timestamp":"2026-01-01T00:00:00Z","message":{{"role":"user","content":"the kettle {i}"}}}}"#
            ));
            log.push('\n');
            parent = format!("\"u{i}\"");
        }
        let corpus = crate::Loader::read_all([("s1.jsonl", log.as_bytes())]);
        let graph = Graph::build(&corpus);
        let query = crate::search::Query::new("KETTLE", false).expect("a query");
        let (hits, count, complete) = search_unit(&corpus, &graph, &query, 5);
        assert_eq!((hits.len(), complete), (5, false));
        assert!((5..600).contains(&count), "{count}");
        assert_eq!(hits[0].session_id, "s1");
        assert_eq!(hits[0].uuid, "u0");
        let (hits, count, complete) = search_unit(&corpus, &graph, &query, 1000);
        assert_eq!((hits.len(), count, complete), (600, 600, true));
        // File by file, line by line: the same first hits, and a second file not searched.
        let mut search = UnitSearch::new(&query, 5);
        search.add_file("s1.jsonl", log.as_bytes());
        assert!(search.is_full());
        search.add_file("agent-a1.jsonl", log.as_bytes());
        let (hits, count, complete) = search.finish();
        assert_eq!((hits.len(), complete), (5, false));
        assert!((5..=LINES_PER_BATCH as u64).contains(&count), "{count}");
        assert_eq!(hits[4].uuid, "u4");
    }

    #[test]
    fn the_session_id_hint_reads_the_first_line() {
        let line = br#"{"parentUuid":null,"isSidechain":true,"sessionId":"4f1c-9","agentId":"a1"}"#;
        assert_eq!(session_id_hint(line), Some("4f1c-9".to_owned()));
        assert_eq!(session_id_hint(b"{\"type\":\"summary\"}"), None);
        assert_eq!(session_id_hint(b"{\"sessionId\":\"cut"), None);
    }
}
