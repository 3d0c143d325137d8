//! Cline and Roo Code tasks (VS Code global storage: `saoudrizwan.claude-dev/tasks/<task id>/`
//! for Cline, `rooveterinaryinc.roo-cline/tasks/<task id>/` for Roo Code), read whole (a
//! document format: see [`crate::import::is_document`]).
//!
//! A task is a folder of three files, which make ONE session, named by the folder (the task id):
//!
//! - `api_conversation_history.json`, a JSON array of Anthropic-style messages `{role,
//!   content: string | blocks, ts?}`: the conversation. Each message is an entry (uuid
//!   `<task id>:<index>`), in order, each the child of the one before. Cline writes native
//!   `tool_use` / `tool_result` / `thinking` blocks, with `modelInfo {modelId, providerId}` and
//!   `metrics {tokens {prompt, completion, cached}, cost}` on its responses. Roo Code writes its
//!   tool calls as XML-style tags in the text (`<read_file><path>x</path></read_file>`): they
//!   become tool uses (id `<uuid>:call<i>`) with their tags as parameters (nested tags an
//!   object, repeated ones a list), and `<thinking>` a thinking block; the results come back in
//!   the next user message as text blocks `[read_file for 'x'] Result:` followed by the
//!   result's text, paired with the calls by name, in order. A message with `isSummary: true`
//!   (Roo Code's condensed context) is a compaction summary. A response text that says
//!   `[Response interrupted by user]` (or `by API Error`) is an interrupted turn.
//! - `ui_messages.json`, an array of `{ts, type: say | ask, say | ask, text, partial?}`: what
//!   the panel showed. Its messages are metadata (the conversation is the history's), but
//!   `say: api_req_started` (JSON text: `tokensIn, tokensOut, cacheReads, cacheWrites, cost,
//!   apiProtocol, cancelReason`) gives each API request's tokens and cost: see `link`.
//! - `history_item.json` (newer Roo Code): the task's entry in the task history, metadata; its
//!   `parentTaskId` names the task it is a subtask of.
//! - `task_metadata.json` (Cline: `files_in_context`, `model_usage`): metadata; its
//!   `model_usage` (the model from a time on) names the model of the responses whose message has
//!   no `modelInfo` (older Cline versions). Roo Code names no model anywhere: its responses have
//!   none (the cost is the one the extension logged).
//!
//! The files of a task are read separately, in any order; what each says of the task is kept in
//! the sink (`Task`, by task id), and once both the history and the UI messages are in, the
//! requests are attributed to the responses (`link`). A task whose UI messages are loaded
//! without its history says so at the end (`finish_all`).
//!
//! Errors: a request's `cancelReason` marks its response interrupted, and an API error unless
//! the user cancelled it; the UI's own error messages (`error`, `api_req_failed`, `diff_error`)
//! stay metadata lines with their text. Subtasks: `new_task` is a call of the agent category and
//! its `[new_task completed] Result:` (or, in newer Roo Code, a `tool_result` that says `Subtask
//! <id> completed.`) its result; the subtask itself is a task folder of its own. Loaded with the
//! task that spawned it, it is an agent conversation of that task's session (see
//! `link_subtasks`): newer Roo Code versions name the parent in the subtask's
//! `history_item.json` (`parentTaskId`) and the subtask in the parent's result; older ones and
//! Cline name neither, and the subtask's first message repeats the new_task call's `message`
//! (Cline's `context`, whose task replaces the one that asked for it).
//!
//! Cline or Roo Code: the storage folder in the path says, else marks only one of them writes
//! (see `decided`); all the files of a task are read as the one any of them says.
//!
//! The working directory is the one the first environment details name (`# Current Working
//! Directory (<path>) Files`, Roo Code's `Workspace Directory`).
//!
//! Tokens of a request: `tokensIn` is the uncached input (with the `anthropic` protocol; with
//! `openai` it includes the cache reads, which are taken off), `cacheReads` and `cacheWrites`
//! the cache, `tokensOut` the output; `cost` is the cost the extension computed, kept as the
//! logged cost. Cline's per-message `metrics` are used when no UI message gives the request.
//! Roo Code's `condense_context` (`contextCondense {cost, prevContextTokens, newContextTokens}`)
//! adds the cost of condensing to the condensed summary's response (the nearest in time).

use rustc_hash::FxHashMap;
use serde::Deserialize;
use serde_json::value::RawValue;

use crate::import::common::*;
use crate::import::{DocRecord, Failure, LineOutcome, Sink};
use crate::json::{LBool, LList, LNum, LStr};
use crate::model::*;
use crate::span::{Locator, Span, Sym};

/// The file of a task a file is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Kind {
    History,
    Ui,
    Metadata,
    /// Roo Code's `history_item.json` (newer versions): the task's entry in the task history,
    /// with the task it is a subtask of (`parentTaskId`, `rootTaskId`).
    HistoryItem,
}

pub(crate) const HISTORY_NAME: &str = "api_conversation_history.json";
pub(crate) const UI_NAME: &str = "ui_messages.json";
pub(crate) const METADATA_NAME: &str = "task_metadata.json";
pub(crate) const HISTORY_ITEM_NAME: &str = "history_item.json";

/// The kind of a task file from its name.
pub(crate) fn kind_of_name(name: &str) -> Option<Kind> {
    match name {
        HISTORY_NAME => Some(Kind::History),
        UI_NAME => Some(Kind::Ui),
        METADATA_NAME => Some(Kind::Metadata),
        HISTORY_ITEM_NAME => Some(Kind::HistoryItem),
        _ => None,
    }
}

/// Whether a file is one of a Cline or Roo Code task's (named by the folder it is in, the task's
/// id): whoever names files by their path keeps that folder in the name.
pub fn is_task_file(path: &str) -> bool {
    kind_of_name(path.rsplit(['/', '\\']).next().unwrap_or(path)).is_some()
}

/// The task id of a task file: the folder it is in.
pub(crate) fn task_of_path(path: &str) -> Option<String> {
    let mut parts = path.rsplit(['/', '\\']).filter(|p| !p.is_empty());
    kind_of_name(parts.next()?)?;
    parts.next().map(str::to_owned)
}

/// Cline or Roo Code, when the path or the text says: the extension's storage folder
/// (`rooveterinaryinc.roo-cline`, `saoudrizwan.claude-dev`), else marks only one of them writes
/// (Roo Code: `isSummary`, `subtask_result`, `condense_context`, `isProtected`,
/// `<update_todo_list>`; Cline: `modelInfo`, `model_usage`, `conversationHistoryIndex`).
fn decided(text: &[u8], path: &str) -> Option<Format> {
    let lower = path.to_ascii_lowercase();
    if lower.contains("roo-cline") || lower.contains("roo-code") || lower.contains("roocode") {
        return Some(Format::RooCode);
    }
    if lower.contains("claude-dev") || lower.contains("saoudrizwan") {
        return Some(Format::Cline);
    }
    let has = |needle: &[u8]| memchr::memmem::find(text, needle).is_some();
    let roo = [
        &b"\"isSummary\""[..],
        b"\"subtask_result\"",
        b"\"condense_context\"",
        b"\"isProtected\"",
        b"<update_todo_list>",
        b"\"rootTaskId\"",
    ];
    if roo.iter().any(|mark| has(mark)) {
        return Some(Format::RooCode);
    }
    let cline = [&b"\"modelInfo\""[..], b"\"model_usage\"", b"\"conversationHistoryIndex\""];
    cline.iter().any(|mark| has(mark)).then_some(Format::Cline)
}

/// Cline or Roo Code as far as the first bytes say; Cline when nothing does (the importer reads
/// the whole file, and its task's other files, before it settles: see [`import_document`]).
fn flavour(text: &[u8], path: &str) -> Format {
    decided(text, path).unwrap_or(Format::Cline)
}

/// A task file, by its name and that it is JSON, or an array of API messages or UI messages by
/// its first bytes (`text` starts at its first non-blank byte).
pub(crate) fn sniff(text: &[u8], path: &str) -> Option<Format> {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    match kind_of_name(name) {
        Some(Kind::Metadata | Kind::HistoryItem) if text.first() == Some(&b'{') => return Some(flavour(text, path)),
        Some(Kind::History | Kind::Ui) if text.first() == Some(&b'[') => return Some(flavour(text, path)),
        _ => {}
    }
    (kind_of_text(text).is_some()).then(|| flavour(text, path))
}

/// An array of API messages (`role` and `content` in its first object) or of UI messages (`ts`
/// and `type` `say` or `ask`), from its first bytes.
fn kind_of_text(text: &[u8]) -> Option<Kind> {
    let rest = text.strip_prefix(b"[")?;
    let start = rest.iter().position(|b| !b.is_ascii_whitespace())?;
    let rest = &rest[start..];
    if rest.first() != Some(&b'{') {
        return None;
    }
    let head = &rest[..rest.len().min(2048)];
    let has = |needle: &[u8]| memchr::memmem::find(head, needle).is_some();
    let compact = |key: &str, value: &str| {
        has(format!("\"{key}\":\"{value}\"").as_bytes()) || has(format!("\"{key}\": \"{value}\"").as_bytes())
    };
    if has(b"\"role\"") && has(b"\"content\"") && (compact("role", "user") || compact("role", "assistant")) {
        return Some(Kind::History);
    }
    if has(b"\"ts\"") && (compact("type", "say") || compact("type", "ask")) {
        return Some(Kind::Ui);
    }
    None
}

/// What the files of a task read so far say of it, to attribute the requests' tokens.
#[derive(Clone, Default)]
pub(crate) struct Task {
    /// The responses of the history, in order: (entry, its timestamp, a condensed summary).
    responses: Vec<(EntryId, i64, bool)>,
    history: bool,
    requests: Vec<Request>,
    ui: Option<FileId>,
    linked: bool,
    /// The files of the task read so far.
    files: Vec<FileId>,
    /// Cline or Roo Code, once a file of the task says which.
    format: Option<Format>,
    /// Cline's `model_usage` of `task_metadata.json`: (from when, model), in time order.
    models: Vec<(i64, Sym)>,
    /// What the task's first message asks (what its `<task>` tags hold), trimmed: the message
    /// of the new_task call that spawned it, if it is a subtask.
    prompt: Option<String>,
    /// What the history's new_task calls ask (`message`, or Cline's `context`), trimmed.
    spawns: Vec<String>,
    /// The subtasks its new_task results name (`Subtask <id> completed.`).
    named: Vec<String>,
    /// The task `history_item.json` says this one is a subtask of (`parentTaskId`).
    parent: Option<String>,
}

/// One API request of the UI messages.
#[derive(Clone)]
struct Request {
    ts: i64,
    usage: Usage,
    cost: Option<f64>,
    cancel: Option<String>,
    /// Roo Code's `condense_context` (the call that wrote a condensed summary): a cost only.
    condense: bool,
}

/// Attributes each API request of the UI messages to a response of the history, once both are
/// in: the first response (or condensed summary) written at or after the request, when the
/// history has timestamps; else the requests in order, one per response. A request after the
/// last response goes to the last one. Several requests of one response (retries, the requests
/// of a condensed part) are summed. The response of an entry takes the requests' usage (it
/// replaces Cline's `metrics`) and their cost as logged; a request cancelled marks its response
/// interrupted (and an API error when it failed streaming or ran out of retries); an entry
/// without a timestamp takes its request's.
fn link(sink: &mut Sink, task: &str) {
    let Some(t) = sink.tasks.get_mut(task) else { return };
    if t.linked || !t.history || t.ui.is_none() || t.responses.is_empty() {
        return;
    }
    t.linked = true;
    let responses = t.responses.clone();
    let requests = std::mem::take(&mut t.requests);
    let timed = responses.iter().all(|r| r.1 != i64::MIN) && requests.iter().all(|r| r.ts != i64::MIN);
    let mut per: Vec<Vec<&Request>> = vec![Vec::new(); responses.len()];
    let last = responses.len() - 1;
    let summaries: Vec<usize> = (0..responses.len()).filter(|&i| responses[i].2).collect();
    let (condensing, calls): (Vec<&Request>, Vec<&Request>) = requests.iter().partition(|r| r.condense);
    if timed {
        for request in calls {
            let at = responses.partition_point(|r| r.1 < request.ts).min(last);
            per[at].push(request);
        }
    } else {
        let plain: Vec<usize> = (0..responses.len()).filter(|&i| !responses[i].2).collect();
        for (k, request) in calls.into_iter().enumerate() {
            let at = plain.get(k).or(plain.last()).copied().unwrap_or(last);
            per[at].push(request);
        }
    }
    // The cost of condensing goes to the summary it wrote: the nearest in time, else in order.
    for (k, request) in condensing.into_iter().enumerate() {
        let at = if timed {
            summaries.iter().copied().min_by_key(|&i| responses[i].1.abs_diff(request.ts))
        } else {
            summaries.get(k).or(summaries.last()).copied()
        };
        let at =
            at.unwrap_or_else(|| if timed { responses.partition_point(|r| r.1 < request.ts).min(last) } else { last });
        per[at].push(request);
    }
    for (i, requests) in per.iter().enumerate() {
        if requests.is_empty() {
            continue;
        }
        let entry_id = responses[i].0;
        let mut usage = Usage::default();
        let mut cost = None;
        for request in requests {
            usage.add(&request.usage);
            if let Some(c) = request.cost {
                cost = Some(cost.unwrap_or(0.0) + c);
            }
        }
        let Some(entry) = sink.corpus.entries.get_mut(entry_id.index()) else { continue };
        if entry.timestamp_ms == i64::MIN {
            entry.timestamp_ms = requests.last().map_or(i64::MIN, |r| r.ts);
        }
        for request in requests {
            if let Some(reason) = &request.cancel {
                entry.flags.set(EntryFlags::INTERRUPTED, true);
                entry.flags.set(EntryFlags::API_ERROR, reason != "user_cancelled");
            }
        }
        let (file, model, existing) = (entry.file, entry.model, entry.response);
        match sink.corpus.responses.get_mut(existing.index()) {
            Some(response) if existing.is_some() => {
                response.usage = usage;
                response.has_usage = true;
                response.logged_cost_usd = cost.or(response.logged_cost_usd);
            }
            _ => {
                let mut response = new_response(file, entry_id, model, Some(usage));
                response.logged_cost_usd = cost;
                push_response(sink, response);
            }
        }
    }
}

/// At the end of a load: subtasks are nested in the tasks that spawned them
/// ([`link_subtasks`]), and the UI messages of a task loaded without its history say that their
/// requests' tokens and cost are not counted.
pub(crate) fn finish_all(sink: &mut Sink) {
    link_subtasks(sink);
    let mut lost: Vec<(FileId, usize)> = sink
        .tasks
        .values()
        .filter(|t| !t.linked && !t.requests.is_empty())
        .filter_map(|t| t.ui.map(|file| (file, t.requests.len())))
        .collect();
    lost.sort_unstable();
    for (file, requests) in lost {
        sink.corpus.diagnostics.push(Diagnostic {
            file,
            line: 0,
            offset: 0,
            kind: DiagnosticKind::EmptyFile,
            message: format!(
                "the UI messages of a task: their {requests} API request(s) give tokens and cost to the responses of the task's {HISTORY_NAME}, which is not loaded (or has no response), so they are not counted"
            ),
        });
    }
}

/// A subtask is a task folder of its own; when the task that spawned it is loaded too, its
/// conversation becomes an agent conversation of that task's session (named by its own id), so
/// the graph nests it under the new_task call that spawned it (see `dag::agents`). A task is a
/// subtask of the task that, in order:
///
/// 1. its `history_item.json` names (`parentTaskId`, Roo Code's newer versions);
/// 2. names it in a new_task result (`Subtask <id> completed.`, Roo Code);
/// 3. asked, in a new_task call, what its first message asks (`message`, or Cline's `context`):
///    each call spawns one task, in the order the tasks were read.
///
/// A link that would make a cycle is not made. A subtask of a subtask is nested in turn; all of
/// them are of the session of the task at the top. Tasks loaded without their history, and files
/// outside a task folder, are left as they are.
fn link_subtasks(sink: &mut Sink) {
    struct Info {
        key: String,
        files: Vec<FileId>,
        prompt: Option<String>,
        spawns: Vec<String>,
        named: Vec<String>,
        parent: Option<String>,
    }
    let mut tasks: Vec<Info> = sink
        .tasks
        .iter()
        .filter(|(key, t)| t.history && !key.starts_with('#'))
        .map(|(key, t)| Info {
            key: key.clone(),
            files: t.files.clone(),
            prompt: t.prompt.clone(),
            spawns: t.spawns.clone(),
            named: t.named.clone(),
            parent: t.parent.clone(),
        })
        .collect();
    if tasks.len() < 2 {
        return;
    }
    // In the order their first files were read.
    tasks.sort_by(|a, b| (a.files.iter().min(), &a.key).cmp(&(b.files.iter().min(), &b.key)));
    let n = tasks.len();
    let index: FxHashMap<&str, usize> = tasks.iter().enumerate().map(|(i, t)| (t.key.as_str(), i)).collect();
    let mut parent: Vec<Option<usize>> = vec![None; n];
    // Whether `child` is `p` or above it already.
    let above = |parent: &[Option<usize>], child: usize, p: usize| {
        let mut current = Some(p);
        for _ in 0..=n {
            match current {
                Some(c) if c == child => return true,
                Some(c) => current = parent[c],
                None => return false,
            }
        }
        true
    };
    for c in 0..n {
        let named = tasks[c].parent.as_deref().and_then(|key| index.get(key)).copied();
        if let Some(p) = named.filter(|&p| !above(&parent, c, p)) {
            parent[c] = Some(p);
        }
    }
    for (p, task) in tasks.iter().enumerate() {
        for name in &task.named {
            if let Some(&c) = index.get(name.as_str())
                && parent[c].is_none()
                && !above(&parent, c, p)
            {
                parent[c] = Some(p);
            }
        }
    }
    // Calls are spawned once: those whose subtask is known are taken first.
    let mut taken: Vec<Vec<bool>> = tasks.iter().map(|t| vec![false; t.spawns.len()]).collect();
    for c in 0..n {
        if let (Some(p), Some(prompt)) = (parent[c], tasks[c].prompt.as_deref())
            && let Some(j) = (0..tasks[p].spawns.len()).find(|&j| !taken[p][j] && tasks[p].spawns[j] == prompt)
        {
            taken[p][j] = true;
        }
    }
    for c in 0..n {
        let Some(prompt) = tasks[c].prompt.as_deref().filter(|_| parent[c].is_none()) else { continue };
        let found = (0..n).filter(|&p| p != c).find_map(|p| {
            let j = (0..tasks[p].spawns.len()).find(|&j| !taken[p][j] && tasks[p].spawns[j] == prompt)?;
            (!above(&parent, c, p)).then_some((p, j))
        });
        if let Some((p, j)) = found {
            taken[p][j] = true;
            parent[c] = Some(p);
        }
    }
    // Each subtask's files, and the task at the top of its parents.
    let mut of_file: FxHashMap<FileId, (Sym, Sym)> = FxHashMap::default();
    let mut roots: Vec<(FileId, String)> = Vec::new();
    for c in 0..n {
        if parent[c].is_none() {
            continue;
        }
        let mut root = c;
        for _ in 0..n {
            match parent[root] {
                Some(p) => root = p,
                None => break,
            }
        }
        let session = intern(sink, &tasks[root].key);
        let agent = intern(sink, &tasks[c].key);
        for &file in &tasks[c].files {
            of_file.insert(file, (session, agent));
            roots.push((file, tasks[root].key.clone()));
        }
    }
    for entry in &mut sink.corpus.entries {
        if let Some(&(session, agent)) = of_file.get(&entry.file) {
            entry.session_id = session;
            entry.agent_id = agent;
            entry.flags.set(EntryFlags::SIDECHAIN, true);
        }
    }
    for meta in &mut sink.corpus.metas {
        if let Some(&(session, _)) = of_file.get(&meta.file) {
            meta.session_id = session;
        }
    }
    for (file, root) in roots {
        if let Some(info) = sink.corpus.files.get_mut(file as usize) {
            info.session_from_path = Some(root);
        }
    }
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct TaskMetadata<'a> {
    #[serde(borrow)]
    model_usage: LList<'a, ModelUsage<'a>>,
}

/// Roo Code's `history_item.json`: the links of a subtask.
#[derive(Deserialize, Default)]
#[serde(default)]
struct HistoryItem<'a> {
    #[serde(rename = "parentTaskId", borrow)]
    parent_task_id: LStr<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ModelUsage<'a> {
    ts: LNum,
    #[serde(borrow)]
    model_id: LStr<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ApiMessage<'a> {
    #[serde(borrow)]
    role: LStr<'a>,
    #[serde(borrow)]
    content: Option<&'a RawValue>,
    ts: LNum,
    #[serde(rename = "isSummary")]
    is_summary: LBool,
    #[serde(rename = "modelInfo", borrow)]
    model_info: Option<&'a RawValue>,
    #[serde(borrow)]
    metrics: Option<&'a RawValue>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ModelInfo<'a> {
    #[serde(rename = "modelId", borrow)]
    model_id: LStr<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Metrics {
    tokens: Option<MetricTokens>,
    cost: LNum,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct MetricTokens {
    prompt: LNum,
    completion: LNum,
    cached: LNum,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ContentBlock<'a> {
    #[serde(rename = "type", borrow)]
    ty: LStr<'a>,
    #[serde(borrow)]
    text: Option<&'a RawValue>,
    #[serde(borrow)]
    thinking: Option<&'a RawValue>,
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
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct UiMessage<'a> {
    #[serde(rename = "contextCondense", borrow)]
    context_condense: Option<&'a RawValue>,
    ts: LNum,
    #[serde(rename = "type", borrow)]
    ty: LStr<'a>,
    #[serde(borrow)]
    say: LStr<'a>,
    #[serde(borrow)]
    ask: LStr<'a>,
    #[serde(borrow)]
    text: LStr<'a>,
}

/// Roo Code's `contextCondense` of a `condense_context` message.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Condense {
    cost: LNum,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ApiReqInfo {
    #[serde(rename = "tokensIn")]
    tokens_in: LNum,
    #[serde(rename = "tokensOut")]
    tokens_out: LNum,
    #[serde(rename = "cacheReads")]
    cache_reads: LNum,
    #[serde(rename = "cacheWrites")]
    cache_writes: LNum,
    cost: LNum,
    #[serde(rename = "apiProtocol")]
    api_protocol: Option<String>,
    #[serde(rename = "cancelReason")]
    cancel_reason: Option<serde_json::Value>,
}

/// A file of a task being read.
struct State {
    chain: Chain,
    task: String,
    /// Where each line begins in the file.
    starts: Vec<usize>,
    /// Tool calls of the last response still waiting for their result: (name, id).
    pending: Vec<(String, Span, Sym)>,
    /// The responses (and condensed summaries) read: (entry, timestamp, a summary).
    responses: Vec<(EntryId, i64, bool)>,
    /// What the first message asks, new_task calls ask, and results name (see [`Task`]).
    prompt: Option<String>,
    spawns: Vec<String>,
    named: Vec<String>,
}

impl State {
    fn line_of(&self, offset: usize) -> u32 {
        self.starts.partition_point(|&s| s <= offset).max(1).min(u32::MAX as usize) as u32
    }
}

/// Reads a whole file of a task; `begin` is where its text starts (after a BOM). Says which file
/// of a task it was read as.
pub(crate) fn import_document(
    sink: &mut Sink,
    bytes: &[Vec<u8>],
    file: FileId,
    begin: usize,
) -> (Vec<DocRecord>, Kind) {
    let file_bytes = bytes.get(file as usize).map(Vec::as_slice).unwrap_or_default();
    let mut starts = vec![0usize];
    starts.extend(memchr::memchr_iter(b'\n', file_bytes).map(|i| i + 1).filter(|&i| i < file_bytes.len()));
    let Ok(text) = std::str::from_utf8(&file_bytes[begin.min(file_bytes.len())..]) else {
        let failed = LineOutcome::Failed(Failure::invalid_utf8());
        return (vec![DocRecord { offset: begin, outcome: failed }], Kind::History);
    };
    let path = sink.corpus.files.get(file as usize).map(|f| f.path.clone()).unwrap_or_default();
    let name = path.rsplit(['/', '\\']).next().unwrap_or("");
    let trimmed = text.trim_start().as_bytes();
    let kind = kind_of_name(name).or_else(|| kind_of_text(trimmed)).unwrap_or(Kind::History);
    let task = task_of_path(&path).unwrap_or_default();
    let mut state = State {
        chain: Chain::new(sink, file),
        task: task.clone(),
        starts,
        pending: Vec::new(),
        responses: Vec::new(),
        prompt: None,
        spawns: Vec::new(),
        named: Vec::new(),
    };
    if !task.is_empty() {
        let session = intern(sink, &task);
        state.chain.set_session(sink, session);
    }
    let records = match kind {
        Kind::Metadata | Kind::HistoryItem => metadata(sink, bytes, file, text, &state, &key_of(&task, file), kind),
        Kind::History | Kind::Ui => array(sink, bytes, file, text, kind, &mut state),
    };
    state.chain.finish(sink);
    let key = key_of(&task, file);
    // Cline or Roo Code: what this file says, else what another file of the task said; all the
    // files of a task are read as one of them.
    let said = decided(text.as_bytes(), &path);
    let t = sink.tasks.entry(key.clone()).or_default();
    t.files.push(file);
    t.format = t.format.or(said);
    if let Some(format) = t.format {
        let files = t.files.clone();
        for f in files {
            if let Some(info) = sink.corpus.files.get_mut(f as usize) {
                info.format = format;
            }
        }
    }
    match kind {
        Kind::History if state.chain.entries > 0 => {
            let t = sink.tasks.entry(key.clone()).or_default();
            if !t.history {
                t.history = true;
                t.responses = std::mem::take(&mut state.responses);
                t.prompt = state.prompt.take();
                t.spawns = std::mem::take(&mut state.spawns);
                t.named = std::mem::take(&mut state.named);
            }
            apply_models(sink, &key);
            link(sink, &key);
        }
        Kind::Ui => link(sink, &key),
        Kind::Metadata => apply_models(sink, &key),
        _ => {}
    }
    (records, kind)
}

/// The key of a task in the sink: its id, or the file for a file outside a task folder.
fn key_of(task: &str, file: FileId) -> String {
    if task.is_empty() { format!("#{file}") } else { task.to_owned() }
}

/// The models of Cline's `task_metadata.json` (`model_usage`: the model from a time on) given to
/// the responses of the history that name none (older Cline versions write no `modelInfo`): the
/// last model switched to at or before the response, else the first.
fn apply_models(sink: &mut Sink, key: &str) {
    let Some(t) = sink.tasks.get(key) else { return };
    if !t.history || t.models.is_empty() {
        return;
    }
    let (responses, models) = (t.responses.clone(), t.models.clone());
    for (entry_id, ts, summary) in responses {
        if summary {
            continue;
        }
        let Some(entry) = sink.corpus.entries.get_mut(entry_id.index()) else { continue };
        if entry.model.is_some() {
            continue;
        }
        let at = models.partition_point(|(from, _)| *from <= ts);
        let model = models[at.saturating_sub(1)].1;
        entry.model = model;
        let response = entry.response;
        if let Some(response) = sink.corpus.responses.get_mut(response.index())
            && response.model.is_none()
        {
            response.model = model;
        }
    }
}

/// `task_metadata.json` or `history_item.json`: one object, metadata.
fn metadata(
    sink: &mut Sink,
    bytes: &[Vec<u8>],
    file: FileId,
    text: &str,
    state: &State,
    key: &str,
    kind: Kind,
) -> Vec<DocRecord> {
    let (at, span) = locate(bytes, file, text.trim());
    let offset = span_offset(&at, text.trim());
    if kind == Kind::HistoryItem {
        let outcome = match parse_line::<HistoryItem>(text) {
            Ok(item) => {
                let parent = item.parent_task_id.as_deref().map(str::trim).filter(|p| !p.is_empty() && *p != key);
                if let Some(parent) = parent {
                    sink.tasks.entry(key.to_owned()).or_default().parent.get_or_insert_with(|| parent.to_owned());
                }
                let type_name = intern(sink, "history_item");
                sink.count_type(type_name);
                let line = Line { file, line_no: state.line_of(offset), span, type_name, timestamp: i64::MIN, at };
                line.push_meta(sink, state.chain.session);
                LineOutcome::Metadata
            }
            Err(outcome) => outcome,
        };
        return vec![DocRecord { offset, outcome }];
    }
    let outcome = match parse_line::<TaskMetadata>(text) {
        Ok(metadata) => {
            let mut models: Vec<(i64, Sym)> = Vec::new();
            for usage in &metadata.model_usage.0 {
                if let Some(model) = usage.model_id.as_deref().filter(|m| !m.is_empty()) {
                    let model = intern(sink, model);
                    models.push((ts_of(usage.ts), model));
                }
            }
            models.sort_by_key(|(ts, _)| *ts);
            if !models.is_empty() {
                let t = sink.tasks.entry(key.to_owned()).or_default();
                if t.models.is_empty() {
                    t.models = models;
                }
            }
            let type_name = intern(sink, "task_metadata");
            sink.count_type(type_name);
            let line = Line { file, line_no: state.line_of(offset), span, type_name, timestamp: i64::MIN, at };
            line.push_meta(sink, state.chain.session);
            LineOutcome::Metadata
        }
        Err(outcome) => outcome,
    };
    vec![DocRecord { offset, outcome }]
}

fn span_offset(at: &Locator, s: &str) -> usize {
    at.offset_of(s.as_bytes()).unwrap_or(0)
}

/// A file that is one JSON array: its items one by one, up to the end of the array or the first
/// that cannot be read (the rest is one failure, from there).
fn array(
    sink: &mut Sink,
    bytes: &[Vec<u8>],
    file: FileId,
    text: &str,
    kind: Kind,
    state: &mut State,
) -> Vec<DocRecord> {
    let at = Locator { file_bytes: bytes.get(file as usize).map(Vec::as_slice).unwrap_or_default() };
    let offset = |s: &str| at.offset_of(s.as_bytes()).unwrap_or(0);
    let body = text.trim_start();
    let start = offset(body);
    let Some(list) = body.strip_prefix('[') else {
        let outcome = match serde_json::from_str::<crate::json::Shape>(text) {
            Ok(shape) => LineOutcome::Failed(Failure::new(
                DiagnosticKind::NotAnObject,
                format!("the file is a JSON {}, not the array of messages of a task", shape.name()),
            )),
            Err(error) => LineOutcome::Failed(Failure::from_json(&error)),
        };
        return vec![DocRecord { offset: start, outcome }];
    };
    let type_name = intern(sink, if kind == Kind::Ui { "ui_messages" } else { "api_conversation_history" });
    sink.count_type(type_name);
    let head =
        Line { file, line_no: state.line_of(start), span: Span::in_file(start, 1), type_name, timestamp: i64::MIN, at };
    head.push_meta(sink, state.chain.session);
    let mut records = vec![DocRecord { offset: start, outcome: LineOutcome::Metadata }];
    let walk = walk_message_list(list, offset, &LIST_WORDS, |raw, index| {
        let outcome = match kind {
            Kind::Ui => ui_message(sink, bytes, file, raw, state),
            _ => api_message(sink, bytes, file, raw, index, state),
        };
        records.push(DocRecord { offset: offset(raw.get()), outcome });
    });
    let end_of_list = walk.end_of_list;
    let stop = walk.stop.map(|(at, why)| match why {
        ListStop::Failed(outcome) => (at, outcome),
        ListStop::BrokenItem(error) => (at, broken_message(&error, state.line_of(at))),
    });
    let (tail, outcome) = match stop {
        Some(stop) => stop,
        None => {
            let end = end_of_list.unwrap_or(offset(text) + text.len());
            let after = text[end.saturating_sub(offset(text)).min(text.len())..].get(1..).unwrap_or("");
            let outcome = if after.trim().is_empty() {
                LineOutcome::Metadata
            } else {
                LineOutcome::Failed(Failure::new(
                    DiagnosticKind::InvalidJson,
                    "there is more after the end of the array of messages; it is not read".into(),
                ))
            };
            (end, outcome)
        }
    };
    // The tail starts on the line after the one its first byte is on, unless that line holds
    // nothing before it (a `]` alone is the tail's).
    let line = state.line_of(tail);
    let line_start = state.starts[(line as usize).saturating_sub(1).min(state.starts.len() - 1)];
    let own_line = at.file_bytes.get(line_start..tail).is_some_and(|b| b.iter().all(u8::is_ascii_whitespace));
    let tail_at = if own_line { Some(tail) } else { state.starts.get(line as usize).copied() };
    let failed = matches!(outcome, LineOutcome::Failed(_));
    match tail_at {
        Some(tail_at) => records.push(DocRecord { offset: tail_at, outcome }),
        None if failed => records.push(DocRecord { offset: tail, outcome }),
        None => {}
    }
    records
}

/// A UI message: metadata; an `api_req_started` gives a request to attribute.
fn ui_message(sink: &mut Sink, bytes: &[Vec<u8>], file: FileId, raw: &RawValue, state: &mut State) -> LineOutcome {
    let at = Locator { file_bytes: bytes.get(file as usize).map(Vec::as_slice).unwrap_or_default() };
    let span = at.raw_span(Some(raw));
    let line_no = state.line_of(at.offset_of(raw.get().as_bytes()).unwrap_or(0));
    let message: UiMessage = match parse_line(raw.get()) {
        Ok(message) => message,
        Err(outcome) => return outcome,
    };
    let ty = message.ty.as_deref().unwrap_or("");
    let what = match ty {
        "say" => message.say.as_deref().unwrap_or(""),
        "ask" => message.ask.as_deref().unwrap_or(""),
        _ => "",
    };
    let type_name = intern(sink, if what.is_empty() { "(untyped)" } else { what });
    sink.count_type(type_name);
    let ts = ts_of(message.ts);
    let line = Line { file, line_no, span, type_name, timestamp: ts, at };
    line.push_meta(sink, state.chain.session);
    let text_span = str_span(sink, &at, &message.text);
    if let Some(meta) = sink.corpus.metas.last_mut() {
        meta.text = text_span;
    }
    let key = if state.task.is_empty() { format!("#{file}") } else { state.task.clone() };
    let task = sink.tasks.entry(key).or_default();
    task.ui.get_or_insert(file);
    if ty == "say"
        && what == "condense_context"
        && let Some(condense) = message.context_condense
    {
        let condense: Condense = serde_json::from_str(condense.get()).unwrap_or_default();
        let cost = condense.cost.0.filter(|c| c.is_finite() && *c >= 0.0);
        if cost.is_some() {
            task.requests.push(Request { ts, usage: Usage::default(), cost, cancel: None, condense: true });
        }
    }
    if ty == "say" && what == "api_req_started" {
        let info: ApiReqInfo = message.text.as_deref().and_then(|t| serde_json::from_str(t).ok()).unwrap_or_default();
        let reads = info.cache_reads.as_u64();
        let tokens_in = info.tokens_in.as_u64();
        let input =
            if info.api_protocol.as_deref() == Some("openai") { tokens_in.saturating_sub(reads) } else { tokens_in };
        let usage = Usage {
            input_tokens: input,
            output_tokens: info.tokens_out.as_u64(),
            cache_creation_input_tokens: info.cache_writes.as_u64(),
            cache_read_input_tokens: reads,
            ..Usage::default()
        };
        let cancel = match info.cancel_reason {
            Some(serde_json::Value::String(s)) => Some(s),
            Some(serde_json::Value::Null) | None => None,
            Some(other) => Some(other.to_string()),
        };
        let cost = info.cost.0.filter(|c| c.is_finite() && *c >= 0.0);
        task.requests.push(Request { ts, usage, cost, cancel, condense: false });
    }
    LineOutcome::Metadata
}

/// Milliseconds of a `ts`, or `i64::MIN`.
fn ts_of(ts: LNum) -> i64 {
    match ts.0 {
        Some(v) if v.is_finite() && v > 0.0 && v < 1e15 => v as i64,
        _ => i64::MIN,
    }
}

/// Reads one message of the API history into an entry.
fn api_message(
    sink: &mut Sink,
    bytes: &[Vec<u8>],
    file: FileId,
    raw: &RawValue,
    index: usize,
    state: &mut State,
) -> LineOutcome {
    let at = Locator { file_bytes: bytes.get(file as usize).map(Vec::as_slice).unwrap_or_default() };
    let span = at.raw_span(Some(raw));
    let line_no = state.line_of(at.offset_of(raw.get().as_bytes()).unwrap_or(0));
    let message: ApiMessage = match parse_line(raw.get()) {
        Ok(message) => message,
        Err(outcome) => return outcome,
    };
    let role = message.role.as_deref().unwrap_or("");
    let summary = message.is_summary.is_true();
    let type_name = intern(
        sink,
        if summary {
            "isSummary"
        } else if role.is_empty() {
            "(no role)"
        } else {
            role
        },
    );
    sink.count_type(type_name);
    let line = Line { file, line_no, span, type_name, timestamp: ts_of(message.ts), at };
    let prefix = if state.task.is_empty() { state.chain.prefix.clone() } else { state.task.clone() };
    let uuid = format!("{prefix}:{index}");
    let mut entry;
    if summary {
        entry = line.entry(sink, EntryKind::User);
        entry.subtype = type_name;
        entry.flags.set(EntryFlags::COMPACT_SUMMARY, true);
        entry.flags.set(EntryFlags::META, true);
        user_content(sink, &line, &mut entry, message.content, &uuid, state);
    } else if role == "assistant" {
        entry = line.entry(sink, EntryKind::Assistant);
        state.pending.clear();
        assistant_content(sink, &line, &mut entry, message.content, &uuid, state);
        if let Some(info) = message.model_info {
            let info: ModelInfo = serde_json::from_str(info.get()).unwrap_or_default();
            if let Some(model) = info.model_id.as_deref().filter(|m| !m.is_empty()) {
                state.chain.model = intern(sink, model);
            }
        }
        entry.model = state.chain.model;
    } else if role == "user" {
        entry = line.entry(sink, EntryKind::User);
        user_content(sink, &line, &mut entry, message.content, &uuid, state);
    } else {
        entry = line.entry(sink, EntryKind::System);
        entry.subtype = type_name;
        entry.flags.set(EntryFlags::META, true);
        user_content(sink, &line, &mut entry, message.content, &uuid, state);
    }
    let model = entry.model;
    let assistant = entry.kind == EntryKind::Assistant;
    let ts = entry.timestamp_ms;
    let prompt = entry.kind == EntryKind::User && !summary && !entry.flags.has(EntryFlags::HAS_TOOL_RESULT);
    let id = match state.chain.push(sink, bytes, entry, &uuid) {
        Ok(id) => id,
        Err(message) => return LineOutcome::Duplicate(message),
    };
    // The task's first message is what it was asked: a subtask's repeats its new_task call.
    if index == 0 && prompt {
        let text = sink.corpus.entries.get(id.index()).and_then(|e| sink.corpus.first_text(e));
        state.prompt = text.map(|t| t.trim().to_owned()).filter(|t| !t.is_empty());
    }
    if assistant || summary {
        state.responses.push((id, ts, summary));
    }
    if assistant && let Some(metrics) = message.metrics {
        let metrics: Metrics = serde_json::from_str(metrics.get()).unwrap_or_default();
        if let Some(tokens) = metrics.tokens {
            let prompt = tokens.prompt.as_u64();
            let cached = tokens.cached.as_u64().min(prompt);
            let usage = Usage {
                input_tokens: prompt - cached,
                cache_read_input_tokens: cached,
                output_tokens: tokens.completion.as_u64(),
                ..Usage::default()
            };
            let mut response = new_response(file, id, model, Some(usage));
            response.logged_cost_usd = metrics.cost.0.filter(|c| c.is_finite() && *c >= 0.0);
            push_response(sink, response);
        }
    }
    LineOutcome::Entry
}

/// The content of a response: text (with Roo Code's XML tool calls and `<thinking>`), thinking
/// and native tool uses.
fn assistant_content(
    sink: &mut Sink,
    line: &Line,
    entry: &mut Entry,
    raw: Option<&RawValue>,
    uuid: &str,
    state: &mut State,
) {
    let Some(raw) = raw else { return };
    if is_string(Some(raw)) {
        assistant_text(sink, line, entry, raw, uuid, state);
        return;
    }
    let blocks: LList<ContentBlock> = serde_json::from_str(raw.get()).unwrap_or_default();
    for block in &blocks.0 {
        match block.ty.as_deref().unwrap_or("") {
            "text" => {
                if let Some(text) = block.text.filter(|t| is_string(Some(t))) {
                    assistant_text(sink, line, entry, text, uuid, state);
                }
            }
            "thinking" | "reasoning" => {
                let body = line.at.raw_span(block.thinking.or(block.text));
                push_block(sink, entry, BlockKind::Thinking, Sym::NONE, Span::EMPTY, body);
            }
            "redacted_thinking" => {
                push_block(sink, entry, BlockKind::Thinking, Sym::NONE, Span::EMPTY, Span::EMPTY);
            }
            "tool_use" => {
                let name = intern_l(sink, &block.name);
                let id = if block.id.as_deref().unwrap_or("").is_empty() {
                    arena_str(&mut sink.corpus.arena, &format!("{uuid}:call{}", entry.blocks_len))
                } else {
                    str_span(sink, &line.at, &block.id)
                };
                let input = line.at.raw_span(block.input);
                push_block(sink, entry, BlockKind::ToolUse, name, id, input);
                if block.name.as_deref() == Some("new_task")
                    && let Some(raw) = block.input
                    && let Ok(params) = serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(raw.get())
                {
                    state.spawns.extend(spawn_text(&params));
                }
                state.pending.push((block.name.as_deref().unwrap_or("").to_owned(), id, name));
            }
            "image" => {
                push_block(sink, entry, BlockKind::Image, Sym::NONE, Span::EMPTY, Span::EMPTY);
            }
            other => {
                let name = intern(sink, if other.is_empty() { "(untyped)" } else { other });
                push_block(sink, entry, BlockKind::Unknown, name, Span::EMPTY, line.at.raw_span(block.text));
            }
        }
    }
}

/// Tools of Cline and Roo Code, whose XML-style tags in a response's text are tool calls.
const TOOLS: &[&str] = &[
    "access_mcp_resource",
    "act_mode_respond",
    "apply_diff",
    "apply_patch",
    "ask_followup_question",
    "attempt_completion",
    "browser_action",
    "codebase_search",
    "condense",
    "edit_file",
    "execute_command",
    "fetch_instructions",
    "generate_image",
    "insert_content",
    "list_code_definition_names",
    "list_files",
    "load_mcp_documentation",
    "new_rule",
    "new_task",
    "plan_mode_respond",
    "read_file",
    "replace_in_file",
    "report_bug",
    "run_slash_command",
    "search_and_replace",
    "search_files",
    "summarize_task",
    "switch_mode",
    "update_todo_list",
    "use_mcp_tool",
    "web_fetch",
    "write_to_file",
];

/// A piece of a response's text.
enum Piece<'t> {
    Text(&'t str),
    Thinking(&'t str),
    /// A tool call: its name, and the text between its tags.
    Call(&'t str, &'t str),
}

/// Splits a response's text at its `<thinking>` and tool-call tags; a tag never closed (a
/// response cut short) runs to the end.
fn pieces(text: &str) -> Vec<Piece<'_>> {
    let mut out = Vec::new();
    let mut rest = text;
    let mut plain_from = 0usize;
    let mut pos = 0usize;
    while let Some(open) = rest[pos..].find('<') {
        let at = pos + open;
        let after = &rest[at + 1..];
        let name_len = after.bytes().take_while(|b| b.is_ascii_lowercase() || *b == b'_').count();
        let name = &after[..name_len];
        let is_tag = after.as_bytes().get(name_len) == Some(&b'>');
        if !is_tag || !(name == "thinking" || TOOLS.contains(&name)) {
            pos = at + 1;
            continue;
        }
        let inner_start = at + 1 + name_len + 1;
        let close = format!("</{name}>");
        let (inner, next) = match rest[inner_start..].find(&close) {
            Some(end) => (&rest[inner_start..inner_start + end], inner_start + end + close.len()),
            None => (&rest[inner_start..], rest.len()),
        };
        if at > plain_from {
            out.push(Piece::Text(&rest[plain_from..at]));
        }
        out.push(if name == "thinking" { Piece::Thinking(inner) } else { Piece::Call(name, inner) });
        rest = &rest[next..];
        plain_from = 0;
        pos = 0;
    }
    if plain_from < rest.len() {
        out.push(Piece::Text(&rest[plain_from..]));
    }
    out
}

/// The parameters of an XML-style call: each `<name>value</name>` a field; a value made of tags
/// is an object of them, a name repeated a list; text outside tags is dropped.
pub(crate) fn xml_params(inner: &str, depth: u32) -> serde_json::Map<String, serde_json::Value> {
    use serde_json::Value;
    let mut map = serde_json::Map::new();
    let mut rest = inner;
    while let Some(open) = rest.find('<') {
        let after = &rest[open + 1..];
        let name_len = after.bytes().take_while(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'-').count();
        if name_len == 0 || after.as_bytes().get(name_len) != Some(&b'>') {
            rest = &rest[open + 1..];
            continue;
        }
        let name = &after[..name_len];
        let body = &after[name_len + 1..];
        let close = format!("</{name}>");
        let (value, next) = match body.find(&close) {
            Some(end) => (&body[..end], &body[end + close.len()..]),
            None => (body, ""),
        };
        let trimmed = value.strip_prefix('\n').unwrap_or(value);
        let trimmed = trimmed.strip_suffix('\n').unwrap_or(trimmed);
        let nested = if depth < 4 && trimmed.trim_start().starts_with('<') {
            xml_params(trimmed, depth + 1)
        } else {
            Default::default()
        };
        let value = if nested.is_empty() { Value::String(trimmed.to_owned()) } else { Value::Object(nested) };
        match map.get_mut(name) {
            Some(Value::Array(list)) => list.push(value),
            Some(first) => {
                let first = std::mem::take(first);
                map.insert(name.to_owned(), Value::Array(vec![first, value]));
            }
            None => {
                map.insert(name.to_owned(), value);
            }
        }
        rest = next;
    }
    map
}

/// A text block of a response: plain text, thinking and tool calls.
fn assistant_text(sink: &mut Sink, line: &Line, entry: &mut Entry, raw: &RawValue, uuid: &str, state: &mut State) {
    let text = raw_text(Some(raw));
    if text.contains("[Response interrupted by") {
        entry.flags.set(EntryFlags::INTERRUPTED, true);
        entry.flags.set(EntryFlags::API_ERROR, text.contains("[Response interrupted by API Error"));
    }
    let pieces = pieces(&text);
    if let [Piece::Text(_)] = pieces[..] {
        push_block(sink, entry, BlockKind::Text, Sym::NONE, Span::EMPTY, line.at.raw_span(Some(raw)));
        return;
    }
    for piece in pieces {
        match piece {
            Piece::Text(t) => {
                if !t.trim().is_empty() {
                    let body = arena_json(&mut sink.corpus.arena, t.trim());
                    push_block(sink, entry, BlockKind::Text, Sym::NONE, Span::EMPTY, body);
                }
            }
            Piece::Thinking(t) => {
                let body = arena_json(&mut sink.corpus.arena, t.trim());
                push_block(sink, entry, BlockKind::Thinking, Sym::NONE, Span::EMPTY, body);
            }
            Piece::Call(name, inner) => {
                let params = xml_params(inner, 0);
                if name == "new_task" {
                    state.spawns.extend(spawn_text(&params));
                }
                let params = serde_json::Value::Object(params).to_string();
                let input = arena_raw(&mut sink.corpus.arena, &params);
                let id = format!("{uuid}:call{}", state.pending.len());
                let id_span = arena_str(&mut sink.corpus.arena, &id);
                let sym = intern(sink, name);
                push_block(sink, entry, BlockKind::ToolUse, sym, id_span, input);
                state.pending.push((name.to_owned(), id_span, sym));
            }
        }
    }
}

/// `[read_file for 'x'] Result:`: the name of the tool whose result a user text block begins.
fn result_header(text: &str) -> Option<&str> {
    let rest = text.strip_prefix('[')?;
    let head = rest.split('\n').next()?;
    if !head.contains("] Result:") && !head.trim_end().ends_with("Result:") {
        return None;
    }
    let len = rest.bytes().take_while(|b| b.is_ascii_alphanumeric() || *b == b'_').count();
    (len > 0).then(|| &rest[..len])
}

/// The text after a `[tool ...] Result:` header (on its line, or on the next ones).
fn after_result_header(text: &str) -> &str {
    let first_line = text.split('\n').next().unwrap_or("");
    match first_line.find("Result:") {
        Some(at) => &text[at + "Result:".len()..],
        None => text.split_once('\n').map_or("", |(_, rest)| rest),
    }
}

/// The working directory the environment details name: `# Current Working Directory (<path>)
/// Files` (Cline), `# Current Workspace Directory (<path>) Files` (Roo Code).
fn working_directory(text: &str) -> Option<&str> {
    let start = text.trim_start();
    if !start.starts_with("<environment_details>") {
        return None;
    }
    ["# Current Working Directory (", "# Current Workspace Directory ("].iter().find_map(|head| {
        let rest = &text[text.find(head)? + head.len()..];
        let path = &rest[..rest.find(") Files")?];
        (!path.is_empty() && !path.contains('\n')).then_some(path)
    })
}

/// The prompt of a task, without the `<task>` tags it is wrapped in.
fn task_text(text: &str) -> Option<&str> {
    let inner = text.trim().strip_prefix("<task>")?;
    Some(inner.strip_suffix("</task>").unwrap_or(inner).trim())
}

/// What a new_task call asks: Roo Code's `message`, or the `context` Cline hands over, trimmed.
fn spawn_text(params: &serde_json::Map<String, serde_json::Value>) -> Option<String> {
    ["message", "context"]
        .iter()
        .find_map(|key| params.get(*key).and_then(|v| v.as_str()))
        .map(|text| text.trim().to_owned())
        .filter(|text| !text.is_empty())
}

/// The text of a tool result's content: a string, or its text blocks joined.
fn result_text(raw: Option<&RawValue>) -> String {
    let Some(raw) = raw else { return String::new() };
    if is_string(Some(raw)) {
        return raw_text(Some(raw)).into_owned();
    }
    let blocks: LList<ContentBlock> = serde_json::from_str(raw.get()).unwrap_or_default();
    blocks.0.iter().filter_map(|b| b.text.filter(|t| is_string(Some(t)))).map(|t| raw_text(Some(t))).collect()
}

/// The subtask a result names: `Subtask <id> completed.` (or `abstained`, `failed`, `was
/// cancelled`), which Roo Code writes in the parent's history when the subtask it delegated to
/// ends.
pub(crate) fn subtask_named(text: &str) -> Option<String> {
    let rest = text.trim_start().strip_prefix("Subtask ")?;
    let len = rest.bytes().take_while(|b| b.is_ascii_alphanumeric() || *b == b'-' || *b == b'_').count();
    let (id, after) = rest.split_at(len);
    let ends = [" completed", " abstained", " failed", " was cancelled"].iter().any(|end| after.starts_with(end));
    (!id.is_empty() && ends).then(|| id.to_owned())
}

/// Whether a result's text says the call failed or was refused.
fn is_error_text(text: &str) -> bool {
    let t = text.trim_start();
    t.starts_with("<error")
        || t.starts_with("Error")
        || t.starts_with("[ERROR]")
        || t.contains("The tool execution failed")
        || t.contains("The user denied this operation")
}

/// The content of a user message: text, images and native tool results; Roo Code's
/// `[tool] Result:` texts become the results of the last response's calls.
fn user_content(
    sink: &mut Sink,
    line: &Line,
    entry: &mut Entry,
    raw: Option<&RawValue>,
    uuid: &str,
    state: &mut State,
) {
    let Some(raw) = raw else { return };
    if is_string(Some(raw)) {
        let text = raw_text(Some(raw));
        if let Some(name) = result_header(&text) {
            let body = line.at.raw_span(Some(raw));
            tool_result(sink, entry, name, body, is_error_text(after_result_header(&text)), uuid, state);
        } else {
            entry.content = match task_text(&text) {
                Some(task) => arena_json(&mut sink.corpus.arena, task),
                None => line.at.raw_span(Some(raw)),
            };
            entry.flags.set(EntryFlags::STRING_CONTENT, true);
        }
        return;
    }
    let blocks: LList<ContentBlock> = serde_json::from_str(raw.get()).unwrap_or_default();
    // A `[tool] Result:` block open: its name and the texts after it.
    let mut open: Option<(String, Vec<Span>, String)> = None;
    let close =
        |sink: &mut Sink, entry: &mut Entry, state: &mut State, open: &mut Option<(String, Vec<Span>, String)>| {
            if let Some((name, spans, text)) = open.take() {
                let body = if spans.len() == 1 { spans[0] } else { arena_json(&mut sink.corpus.arena, &text) };
                tool_result(sink, entry, &name, body, is_error_text(&text), uuid, state);
            }
        };
    for block in &blocks.0 {
        match block.ty.as_deref().unwrap_or("") {
            "text" => {
                let Some(raw_text_value) = block.text.filter(|t| is_string(Some(t))) else { continue };
                let text = raw_text(Some(raw_text_value));
                if let Some(name) = result_header(&text) {
                    close(sink, entry, state, &mut open);
                    let after_header = after_result_header(&text).trim().to_owned();
                    if after_header.is_empty() {
                        open = Some((name.to_owned(), Vec::new(), String::new()));
                    } else {
                        let span = line.at.raw_span(Some(raw_text_value));
                        open = Some((name.to_owned(), vec![span], after_header));
                    }
                    continue;
                }
                if let Some((_, spans, body)) = open.as_mut()
                    && !text.trim_start().starts_with("<environment_details>")
                {
                    spans.push(line.at.raw_span(Some(raw_text_value)));
                    if !body.is_empty() {
                        body.push('\n');
                    }
                    body.push_str(&text);
                    continue;
                }
                close(sink, entry, state, &mut open);
                // Without the new_task call it answers, the note of a subtask's end is text.
                if let Some(child) = subtask_named(&text) {
                    state.named.push(child);
                }
                if state.chain.envelope.cwd.is_none()
                    && let Some(cwd) = working_directory(&text)
                {
                    state.chain.envelope.cwd = intern(sink, cwd);
                }
                let body = match task_text(&text) {
                    Some(task) => arena_json(&mut sink.corpus.arena, task),
                    None => line.at.raw_span(Some(raw_text_value)),
                };
                push_block(sink, entry, BlockKind::Text, Sym::NONE, Span::EMPTY, body);
            }
            "tool_result" => {
                close(sink, entry, state, &mut open);
                let id = str_span(sink, &line.at, &block.tool_use_id);
                let name = state
                    .pending
                    .iter()
                    .position(|(_, pending, _)| {
                        let pending = pending.bytes(line.at.file_bytes, &sink.corpus.arena);
                        block.tool_use_id.as_deref().is_some_and(|id| id.as_bytes() == pending)
                    })
                    .map_or(Sym::NONE, |i| state.pending.remove(i).2);
                let b = push_block(sink, entry, BlockKind::ToolResult, name, id, line.at.raw_span(block.content));
                if block.is_error.is_true() {
                    mark_error(sink, entry, b);
                }
                // Roo Code's result of a delegated subtask names it: the entry reports it.
                if let Some(child) = subtask_named(&result_text(block.content)) {
                    entry.linked_agent_id = intern(sink, &child);
                    state.named.push(child);
                }
            }
            "image" => {
                close(sink, entry, state, &mut open);
                push_block(sink, entry, BlockKind::Image, Sym::NONE, Span::EMPTY, Span::EMPTY);
            }
            other => {
                close(sink, entry, state, &mut open);
                let name = intern(sink, if other.is_empty() { "(untyped)" } else { other });
                push_block(sink, entry, BlockKind::Unknown, name, Span::EMPTY, line.at.raw_span(block.text));
            }
        }
    }
    close(sink, entry, state, &mut open);
}

/// A result of one of the last response's calls, by name (the first waiting call of that name,
/// else the first waiting call); a result with no call waiting keeps an id of its own.
fn tool_result(sink: &mut Sink, entry: &mut Entry, name: &str, body: Span, error: bool, uuid: &str, state: &mut State) {
    let at = state.pending.iter().position(|(n, _, _)| n == name).or((!state.pending.is_empty()).then_some(0));
    let (id, sym) = match at {
        Some(i) => {
            let (_, id, sym) = state.pending.remove(i);
            (id, sym)
        }
        None => {
            let id = arena_str(&mut sink.corpus.arena, &format!("{uuid}:result{}", entry.blocks_len));
            (id, intern(sink, name))
        }
    };
    let block = push_block(sink, entry, BlockKind::ToolResult, sym, id, body);
    if error {
        mark_error(sink, entry, block);
    }
}

/// How a task file tells the breaks of its array of messages.
const LIST_WORDS: ListWords = ListWords {
    cut_in_list: "the file ends inside its array of messages: it is cut short or still being written; the messages before are read",
    no_comma: "the array goes on without a comma after this message",
};

/// A message of the array that cannot be read, starting on `line`.
fn broken_message(error: &serde_json::Error, line: u32) -> LineOutcome {
    let mut failure = Failure::from_json(error);
    if error.classify() == serde_json::error::Category::Eof {
        failure.kind = DiagnosticKind::TruncatedLine;
        failure.message = format!(
            "the file ends inside the message that starts on line {line}: it is cut short or still being written; the messages before it are read"
        );
    } else {
        failure.message =
            format!("a message that is not valid JSON ({}); the messages before it are read", failure.message);
    }
    LineOutcome::Failed(failure)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xml_calls_are_split_from_text() {
        let text = "Let me look.\n<thinking>why</thinking>\n<read_file>\n<args>\n<file><path>a.rs</path></file>\n<file><path>b.rs</path></file>\n</args>\n</read_file>";
        let split = pieces(text);
        assert_eq!(split.len(), 4);
        let Piece::Call(name, inner) = split[3] else { panic!("no call") };
        assert_eq!(name, "read_file");
        let params = serde_json::Value::Object(xml_params(inner, 0));
        assert_eq!(params["args"]["file"][1]["path"], "b.rs");
        // A tag never closed runs to the end; unknown tags are text.
        assert!(matches!(pieces("<div>x</div>")[..], [Piece::Text(_)]));
        assert!(matches!(pieces("<write_to_file><path>x")[..], [Piece::Call("write_to_file", _)]));
        assert!(matches!(pieces("<")[..], [Piece::Text(_)]));
        assert!(matches!(pieces("a <read_file")[..], [Piece::Text(_)]));
    }

    #[test]
    fn result_headers_name_their_tool() {
        assert_eq!(result_header("[read_file for 'x'] Result:"), Some("read_file"));
        assert_eq!(result_header("[new_task completed] Result: ok"), Some("new_task"));
        assert_eq!(result_header("[ERROR] You did not use a tool"), None);
        assert_eq!(result_header("[x"), None);
    }

    #[test]
    fn task_files_are_named_by_their_folder() {
        assert_eq!(task_of_path("tasks/abc/ui_messages.json").as_deref(), Some("abc"));
        assert_eq!(task_of_path("ui_messages.json"), None);
        assert_eq!(task_of_path("tasks/abc/other.json"), None);
    }
}
