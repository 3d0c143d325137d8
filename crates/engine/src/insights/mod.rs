//! What a whole history knows beyond its sessions' rows: every file its tools read or changed
//! ([`edits`]), every failed tool call ([`failures`]), and when it worked and what that cost
//! ([`activity`]). Each unit's are made while it is indexed ([`UnitInsights::of`], from the
//! corpus and graph the index builds anyway: no second pass over the bytes), kept with its rows
//! in the cached index, and summed over the history by [`report`], the same way for the page
//! and the command line.
//!
//! A unit's insights hold no message text but failures' first lines and prompts' titles, and
//! name their strings once ([`UnitInsights::names`]): a 4 GB history's come to a few tens of
//! megabytes.

pub mod activity;
pub mod edits;
pub mod failures;
pub mod report;

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::dag::tools::{Touch, op_files, op_input};
use crate::dag::{Graph, ToolCategory, ToolOp, ToolStatus, prompt_title};
use crate::model::{Corpus, EntryFlags, EntryId, EntryKind};
use activity::{HOUR_MS, HourCount, UsageEvent};
use edits::{ChangeKind, FileEdit, edits_of};

/// One file's change by one tool call.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Change {
    /// The file (relative to its session's working directory), in [`UnitInsights::names`].
    pub path: u32,
    pub kind: ChangeKind,
    /// Where a moved file went, in the names.
    pub to: Option<u32>,
    /// Its session, in its unit's rows.
    pub session: u32,
    /// The call's time (`i64::MIN` without one), and its line's uuid (to open the session there).
    pub time_ms: i64,
    pub entry: String,
    /// The tool, and the title of the prompt that led to it, in the names.
    pub tool: u32,
    pub prompt: u32,
    pub added: u32,
    pub removed: u32,
    /// The call failed: the file may not have changed.
    pub failed: bool,
}

/// How often one session read one file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Read {
    pub path: u32,
    pub session: u32,
    pub reads: u32,
    pub last_ms: i64,
}

/// What went wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum FailureKind {
    /// A tool call whose result is an error.
    Tool,
    /// A turn the user interrupted.
    Interrupted,
    /// An API error the agent logged instead of a response.
    Api,
}

impl FailureKind {
    pub fn name(self) -> &'static str {
        match self {
            FailureKind::Tool => "tool",
            FailureKind::Interrupted => "interrupted",
            FailureKind::Api => "api",
        }
    }
}

/// One failure.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Failure {
    pub kind: FailureKind,
    pub session: u32,
    pub time_ms: i64,
    /// The line to open the session at.
    pub entry: String,
    /// The tool (for a tool's failure), and the model that called it, in the names.
    pub tool: u32,
    pub model: u32,
    /// The first line of what it said ([`failures::message_of`]).
    pub message: String,
}

/// Calls of one tool by one model in one session, and how many failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCalls {
    pub session: u32,
    pub tool: u32,
    pub model: u32,
    pub calls: u32,
    pub failed: u32,
}

/// A version of a file Claude Code kept before a change (its `file-history-snapshot` lines name
/// them): the file's text as it was, in `file-history/<session id>/<backup>` beside the projects.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Version {
    /// The file (relative to its session's working directory), and the backup's file name, in
    /// the names.
    pub path: u32,
    pub backup: u32,
    pub session: u32,
    /// Its number (`@vN`), and when it was kept (`i64::MIN` without a time).
    pub version: u32,
    pub time_ms: i64,
}

/// A session of a unit as its insights name it: enough to say where something happened and to
/// open it there.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionFacts {
    pub id: String,
    pub project: String,
    pub agent: String,
    pub title: String,
}

/// What a unit of a history knows beyond its rows.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct UnitInsights {
    /// The unit's sessions, as its rows list them (the `session` of everything below).
    pub sessions: Vec<SessionFacts>,
    /// Paths, tools, models and prompt titles, each once; the rest name them by index.
    pub names: Vec<String>,
    pub changes: Vec<Change>,
    pub reads: Vec<Read>,
    pub failures: Vec<Failure>,
    pub calls: Vec<ToolCalls>,
    pub usage: Vec<UsageEvent>,
    pub hours: Vec<HourCount>,
    pub versions: Vec<Version>,
}

/// Names a unit's strings once each.
#[derive(Default)]
struct Names {
    names: Vec<String>,
    index: FxHashMap<String, u32>,
}

impl Names {
    fn of(&mut self, name: &str) -> u32 {
        if let Some(&at) = self.index.get(name) {
            return at;
        }
        let at = self.names.len() as u32;
        self.names.push(name.to_owned());
        self.index.insert(name.to_owned(), at);
        at
    }
}

/// The changes a tool call made to files, read from its input (and, for Claude Code's Write,
/// from its result, which says whether it made the file).
pub fn op_edits(corpus: &Corpus, op: &ToolOp) -> Vec<FileEdit> {
    let name = corpus.sym(op.name);
    let shell = op.category == ToolCategory::Execute && edits::is_shell_tool(name);
    if op.category != ToolCategory::Edit && !shell {
        return Vec::new();
    }
    // Most commands write no file: one that names none of the ways a command writes one is not
    // read (a quarter of a history's calls are commands, and reading each cost the index).
    if shell && !may_write(corpus, op) {
        return Vec::new();
    }
    let (input, cwd) = op_input(corpus, op);
    // Claude Code's Write says in its result whether it made the file: its `type`, first.
    let result = corpus.entries.get(op.result_entry.index()).map(|e| corpus.span_bytes(e.file, e.tool_use_result));
    let made = result.is_some_and(|r| memchr::memmem::find(&r[..r.len().min(64)], b"\"type\":\"create\"").is_some());
    let result = made.then(|| {
        crate::small_json::Value::Object(crate::small_json::Object::from_entries(vec![(
            "type".to_owned(),
            crate::small_json::Value::String("create".to_owned()),
        )]))
    });
    edits_of(name, &input, result.as_ref(), cwd)
}

/// Whether a command's call may write a file: its input names a redirection, `tee`, `sed`, `mv`,
/// `rm`, `cp`, `touch` or a patch (what [`edits::shell_edits`] recognises).
fn may_write(corpus: &Corpus, op: &ToolOp) -> bool {
    let (Some(entry), Some(block)) =
        (corpus.entries.get(op.call_entry.index()), corpus.blocks.get(op.call_block.index()))
    else {
        return true;
    };
    let raw = corpus.span_bytes(entry.file, block.body);
    raw.contains(&b'>')
        || [&b"tee"[..], b"sed", b"mv", b"rm", b"cp", b"touch", b"apply_patch", b"Begin Patch"]
            .iter()
            .any(|word| memchr::memmem::find(raw, word).is_some())
}

/// One change to a file with its texts, for a file's page: what [`Change`] counts, and the
/// `(old, new)` texts to draw its diff from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChangeText {
    /// The call's line (a [`Change::entry`]).
    pub entry: String,
    pub kind: ChangeKind,
    pub to: Option<String>,
    pub hunks: Vec<(String, String)>,
}

/// The changes to `path` (as [`Change::path`] names it) made by the calls on the lines `entries`
/// of a parsed unit: read again, on demand, so the index keeps counts and not texts.
pub fn change_texts(corpus: &Corpus, graph: &Graph, entries: &[String], path: &str) -> Vec<ChangeText> {
    let wanted: rustc_hash::FxHashSet<&str> = entries.iter().map(String::as_str).collect();
    let mut out = Vec::new();
    for op in &graph.tool_ops {
        let Some(entry) = corpus.entries.get(op.call_entry.index()).filter(|_| op.call_entry.is_some()) else {
            continue;
        };
        let uuid = corpus.entry_uuid(entry);
        if !wanted.contains(uuid) {
            continue;
        }
        for edit in op_edits(corpus, op) {
            if edit.path == path || edit.to.as_deref() == Some(path) {
                out.push(ChangeText { entry: uuid.to_owned(), kind: edit.kind, to: edit.to, hunks: edit.hunks });
            }
        }
    }
    out
}

impl UnitInsights {
    /// The name at `at`, empty if there is none.
    pub fn name(&self, at: u32) -> &str {
        self.names.get(at as usize).map_or("", String::as_str)
    }

    /// The insights of a parsed unit whose rows are `rows` (as [`crate::history::session_rows`]
    /// lists them: sessions are numbered as the graph numbers them).
    pub fn of(corpus: &Corpus, graph: &Graph, rows: &[crate::history::SessionRow]) -> UnitInsights {
        let mut names = Names::default();
        let mut out = UnitInsights {
            sessions: rows
                .iter()
                .map(|r| SessionFacts {
                    id: r.session_id.clone(),
                    project: r.project.clone(),
                    agent: r.agent.clone(),
                    title: r.title.clone(),
                })
                .collect(),
            ..UnitInsights::default()
        };
        let session_of_entry = |entry: EntryId| -> Option<u32> {
            let node = graph.nodes.get(entry.index())?;
            let conversation = graph.conversations.get(node.conversation.index())?;
            Some(conversation.session.index() as u32)
        };
        let uuid = |entry: EntryId| {
            corpus.entries.get(entry.index()).map(|e| corpus.entry_uuid(e).to_owned()).unwrap_or_default()
        };
        let time = |entry: EntryId| corpus.entries.get(entry.index()).map_or(i64::MIN, |e| e.timestamp_ms);
        let model_of = |entry: EntryId, names: &mut Names| {
            let model = corpus.entries.get(entry.index()).map_or("", |e| corpus.sym(e.model));
            names.of(model)
        };
        // Prompt titles by turn, made once each.
        let mut prompts: FxHashMap<u32, u32> = FxHashMap::default();
        let mut calls: FxHashMap<(u32, u32, u32), (u32, u32)> = FxHashMap::default();
        let mut reads: FxHashMap<(u32, u32), (u32, i64)> = FxHashMap::default();
        for op in &graph.tool_ops {
            if op.call_entry.is_none() {
                continue;
            }
            let Some(session) = session_of_entry(op.call_entry) else { continue };
            // The calls of a response that ended in an API error never ran: the API error is
            // counted once, from its line, below.
            if crate::history::never_ran(corpus, op) {
                continue;
            }
            let name = corpus.sym(op.name);
            let tool = names.of(name);
            let model = model_of(op.call_entry, &mut names);
            let failed = crate::history::call_failed(corpus, op);
            let tally = calls.entry((session, tool, model)).or_insert((0, 0));
            tally.0 += 1;
            tally.1 += u32::from(failed);
            let when = time(op.call_entry);
            if failed {
                let result = corpus.entries.get(op.result_entry.index());
                let body = result
                    .zip(corpus.blocks.get(op.result_block.index()))
                    .map(|(entry, block)| corpus.span_bytes(entry.file, block.body))
                    .unwrap_or_default();
                out.failures.push(Failure {
                    kind: FailureKind::Tool,
                    session,
                    time_ms: when,
                    entry: uuid(op.call_entry),
                    tool,
                    model,
                    message: failures::message_of(&failures::result_text(body)),
                });
            } else if op.status == ToolStatus::Interrupted {
                out.failures.push(Failure {
                    kind: FailureKind::Interrupted,
                    session,
                    time_ms: when,
                    entry: uuid(op.call_entry),
                    tool,
                    model,
                    message: format!("{name} interrupted"),
                });
            }
            if op.category == ToolCategory::Read {
                for (path, touch) in op_files(corpus, op) {
                    if touch == Touch::Read {
                        let at = names.of(&path);
                        let read = reads.entry((at, session)).or_insert((0, i64::MIN));
                        read.0 += 1;
                        read.1 = read.1.max(when);
                    }
                }
                continue;
            }
            let changed = op_edits(corpus, op);
            if changed.is_empty() {
                continue;
            }
            let turn = graph.turn_of_entry.get(op.call_entry.index()).copied().filter(|t| t.is_some());
            let prompt = match turn {
                Some(turn) => *prompts.entry(turn.index() as u32).or_insert_with(|| {
                    let entry = graph.turns.get(turn.index()).map(|t| t.prompt).filter(|p| p.is_some());
                    let title = entry
                        .and_then(|p| corpus.entries.get(p.index()))
                        .and_then(|e| corpus.first_text(e))
                        .map(|text| prompt_title(&text))
                        .unwrap_or_default();
                    names.of(&title)
                }),
                None => names.of(""),
            };
            for edit in changed {
                let (added, removed) = edit.lines();
                out.changes.push(Change {
                    path: names.of(&edit.path),
                    kind: edit.kind,
                    to: edit.to.as_deref().map(|to| names.of(to)),
                    session,
                    time_ms: when,
                    entry: uuid(op.call_entry),
                    tool,
                    prompt,
                    added: added as u32,
                    removed: removed as u32,
                    failed,
                });
            }
        }
        // Interrupted turns and API errors the agent logged as lines of their own.
        // Messages by hour and session: a session's lines mostly come in time order, so they are
        // counted in runs, and the runs summed once sorted.
        let mut runs: Vec<HourCount> = Vec::new();
        for (e, entry) in corpus.entries.iter().enumerate() {
            let id = EntryId::new(e);
            let Some(session) = session_of_entry(id) else { continue };
            if matches!(entry.kind, EntryKind::User | EntryKind::Assistant) && entry.has_timestamp() {
                let hour = entry.timestamp_ms.div_euclid(HOUR_MS);
                match runs.last_mut() {
                    Some(run) if run.hour == hour && run.session == session => run.messages += 1,
                    _ => runs.push(HourCount { hour, session, messages: 1 }),
                }
            }
            let interrupted = entry.flags.has(EntryFlags::INTERRUPTED) && entry.kind == EntryKind::User;
            let api = entry.flags.has(EntryFlags::API_ERROR);
            if !(interrupted || api) {
                continue;
            }
            let text = corpus.first_text(entry).map(|t| failures::message_of(&t)).unwrap_or_default();
            let model = model_of(id, &mut names);
            out.failures.push(Failure {
                kind: if api { FailureKind::Api } else { FailureKind::Interrupted },
                session,
                time_ms: entry.timestamp_ms,
                entry: uuid(id),
                tool: names.of(""),
                model,
                message: text,
            });
        }
        // A response's time is that of the line whose usage it keeps (as ccusage counts it, so
        // the 5-hour blocks fall where its do).
        for response in &corpus.responses {
            if !response.has_usage && response.logged_cost_usd.is_none() {
                continue;
            }
            let Some(session) = session_of_entry(response.first_entry) else { continue };
            let model = corpus.sym(response.model);
            let cost =
                response.logged_cost_usd.or_else(|| crate::dag::pricing::cost(model, &response.usage)).unwrap_or(0.0);
            let line = if response.usage_entry.is_some() { response.usage_entry } else { response.first_entry };
            let at = time(line);
            if at == i64::MIN {
                continue;
            }
            let file = corpus.bytes.get(response.file as usize).map_or(&[][..], Vec::as_slice);
            let id = activity::response_id(
                response.message_id.bytes(file, &corpus.arena),
                response.request_id.bytes(file, &corpus.arena),
            );
            out.usage.push(UsageEvent::of(id, at, session, names.of(model), &response.usage, cost));
        }
        out.versions = versions(corpus, &mut names, &|e| session_of_entry(e));
        let mut calls: Vec<ToolCalls> = calls
            .into_iter()
            .map(|((session, tool, model), (calls, failed))| ToolCalls { session, tool, model, calls, failed })
            .collect();
        calls.sort_by_key(|c| (c.session, c.tool, c.model));
        out.calls = calls;
        let mut reads: Vec<Read> = reads
            .into_iter()
            .map(|((path, session), (reads, last_ms))| Read { path, session, reads, last_ms })
            .collect();
        reads.sort_by_key(|r| (r.session, r.path));
        out.reads = reads;
        runs.sort_by_key(|h| (h.hour, h.session));
        let mut hours: Vec<HourCount> = Vec::with_capacity(runs.len());
        for run in runs {
            match hours.last_mut() {
                Some(last) if last.hour == run.hour && last.session == run.session => last.messages += run.messages,
                _ => hours.push(run),
            }
        }
        out.hours = hours;
        out.names = names.names;
        out
    }

    /// Bytes it takes in memory, about: what a history's page holds for it.
    pub fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        self.sessions
            .iter()
            .map(|s| {
                size_of::<SessionFacts>()
                    + s.id.capacity()
                    + s.project.capacity()
                    + s.agent.capacity()
                    + s.title.capacity()
            })
            .sum::<usize>()
            + self.names.iter().map(|n| n.capacity() + size_of::<String>()).sum::<usize>()
            + self.changes.iter().map(|c| size_of::<Change>() + c.entry.capacity()).sum::<usize>()
            + self.reads.capacity() * size_of::<Read>()
            + self
                .failures
                .iter()
                .map(|f| size_of::<Failure>() + f.entry.capacity() + f.message.capacity())
                .sum::<usize>()
            + self.calls.capacity() * size_of::<ToolCalls>()
            + self.usage.capacity() * size_of::<UsageEvent>()
            + self.hours.capacity() * size_of::<HourCount>()
            + self.versions.capacity() * size_of::<Version>()
    }

    /// Its bytes, to send from a worker or keep in a cache (postcard).
    pub fn encode(&self) -> Vec<u8> {
        postcard::to_allocvec(self).unwrap_or_default()
    }

    pub fn decode(bytes: &[u8]) -> Option<UnitInsights> {
        postcard::from_bytes(bytes).ok()
    }
}

/// The versions of files Claude Code kept, from a unit's `file-history-snapshot` lines: each
/// line lists every file tracked so far, so a version is listed once, from where it first shows.
fn versions(corpus: &Corpus, names: &mut Names, session_of_entry: &dyn Fn(EntryId) -> Option<u32>) -> Vec<Version> {
    #[derive(Deserialize)]
    struct Line {
        snapshot: Snapshot,
    }
    #[derive(Deserialize)]
    struct Snapshot {
        #[serde(default, rename = "trackedFileBackups")]
        tracked: FxHashMap<String, Backup>,
    }
    #[derive(Deserialize)]
    struct Backup {
        #[serde(default, rename = "backupFileName")]
        backup: Option<String>,
        #[serde(default)]
        version: u32,
        #[serde(default, rename = "backupTime")]
        time: Option<String>,
    }
    let snapshots: Vec<&crate::model::MetaLine> =
        corpus.metas.iter().filter(|m| corpus.sym(m.type_name) == "file-history-snapshot").collect();
    if snapshots.is_empty() {
        return Vec::new();
    }
    // A snapshot line names no session: it is its file's, as is the working directory its paths
    // are relative to.
    let mut of_file: FxHashMap<u32, (u32, &str)> = FxHashMap::default();
    for (e, entry) in corpus.entries.iter().enumerate() {
        if of_file.contains_key(&entry.file) {
            continue;
        }
        if let Some(session) = session_of_entry(EntryId::new(e)) {
            of_file.insert(entry.file, (session, corpus.sym(corpus.envelope(entry).cwd)));
        }
    }
    let mut seen = rustc_hash::FxHashSet::default();
    let mut out = Vec::new();
    for meta in snapshots {
        let Some(&(session, cwd)) = of_file.get(&meta.file) else { continue };
        let Ok(line) = serde_json::from_slice::<Line>(corpus.span_bytes(meta.file, meta.line_span)) else { continue };
        let mut tracked: Vec<(String, Backup)> = line.snapshot.tracked.into_iter().collect();
        tracked.sort_by(|a, b| a.0.cmp(&b.0));
        for (path, backup) in tracked {
            // A file made by the session has no version from before it.
            let Some(name) = backup.backup.filter(|b| !b.is_empty() && !b.contains(['/', '\\'])) else { continue };
            if !seen.insert((session, name.clone())) {
                continue;
            }
            let time_ms = backup.time.as_deref().and_then(crate::json::parse_timestamp_ms).unwrap_or(i64::MIN);
            out.push(Version {
                path: names.of(&crate::dag::tools::relative_path(&path, cwd)),
                backup: names.of(&name),
                session,
                version: backup.version,
                time_ms,
            });
        }
    }
    out
}
