//! `sessionscope mcp`: a Model Context Protocol server over stdio, on the official Rust SDK
//! (`rmcp`). Its tools list a history's projects and sessions, search it, read a session as
//! Markdown and count its usage; each session is also the resource
//! `sessionscope://session/<id>`. The history is read on the first call, kept in memory
//! ([`live::Live`]) and read again only where files changed; a session's own files are read
//! only when it is read or searched. Every text the server answers goes through the engine's
//! redaction (secrets, keys, the user's name in paths) unless `--no-redact`, whole before it is
//! cut ([`Redaction`]): a title is its session's whole title line redacted, then cut; a search
//! hit's context is cut around the match from its field's whole text redacted; a session read
//! is redacted line by line as a share is, then written as Markdown and its outputs cut. The ids
//! the answers give (sessions, entries, and in a read session every id its log names) are never
//! taken for secrets, also inside a resume command. Nothing is ever written to the folders.

use std::fmt;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResult, ContentBlock, Implementation, ListResourceTemplatesResult, ListResourcesResult,
    PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource,
    ResourceContents, ResourceTemplate, ServerCapabilities, ServerConfig,
};
use rmcp::schemars::JsonSchema;
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sessionscope_engine::dag::{SessionId, TITLE_CHARS};
use sessionscope_engine::history::SessionRow;
use sessionscope_engine::insights::report::{self, UnitRef};
use sessionscope_engine::query::Parsed;
use sessionscope_engine::redact::{DetectOptions, LineRef, Redactor};
use sessionscope_engine::search::{HitSource, Query, snippet};
use sessionscope_engine::share::markdown::{MarkdownOptions, files_session_markdown, session_markdown};
use sessionscope_engine::share::redacted::{ShareOptions, share_scope_with};
use sessionscope_engine::share::scope::Scope;

use crate::index::iso_minute;
use crate::live::{self, Live, Lookup, Unit};
use crate::search::{Filters, FoundHit};
use crate::store::Store;

/// The scheme and path of a session's resource; its id follows.
const SESSION_URI: &str = "sessionscope://session/";

/// The items a page holds when the call does not say.
const DEFAULT_LIMIT: usize = 50;

/// The messages of a session `read_session` gives when the call does not say.
const DEFAULT_MESSAGES: usize = 200;

/// Characters of a tool's output kept in a session's Markdown.
const OUTPUT_CHARS: usize = 1_000;

/// Runs the server on stdin and stdout until the client closes them.
pub fn run(folders: &[PathBuf], redact: bool, cache: bool) -> ExitCode {
    let folders = if folders.is_empty() { live::default_folders() } else { folders.to_vec() };
    if let Some(missing) = folders.iter().find(|folder| !folder.exists()) {
        eprintln!("sessionscope: {}: no such file or folder", missing.display());
        return ExitCode::from(1);
    }
    if folders.is_empty() {
        eprintln!("sessionscope: no agent's history found in the usual places; serving an empty history");
    }
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("sessionscope: {error}");
            return ExitCode::from(1);
        }
    };
    let store = if cache { Store::of(&folders) } else { None };
    let server = Server::new(Live::of_folders(folders, store), redact);
    let served = runtime.block_on(async move {
        let running = server.serve(rmcp::transport::stdio()).await?;
        running.waiting().await.map_err(|error| std::io::Error::other(error.to_string()))?;
        Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
    });
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("sessionscope: {error}");
            ExitCode::from(1)
        }
    }
}

/// Why a tool gave no answer.
#[derive(Debug, Clone, PartialEq, Eq)]
enum ToolError {
    /// A day not written `YYYY-MM-DD`.
    Day(String),
    /// A query that is not a regular expression.
    Query(String),
    /// No session has the id.
    NoSession(String),
    /// Several sessions have an id that starts with it.
    SeveralSessions(String, usize),
    /// The session's files could not be read.
    Unreadable(String),
    /// The redaction could not be set up, so nothing is answered.
    Redaction(String),
    /// The work stopped before its end.
    Stopped(String),
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToolError::Day(text) => write!(f, "`{text}` is not a day: write it YYYY-MM-DD, such as 2026-04-02"),
            ToolError::Query(why) => write!(f, "the query cannot be used: {why}"),
            ToolError::NoSession(id) => write!(f, "no session has the id `{id}` (list_sessions gives the ids)"),
            ToolError::SeveralSessions(id, count) => {
                write!(f, "{count} sessions have an id that starts with `{id}`: give more of it")
            }
            ToolError::Unreadable(why) => write!(f, "the session could not be read: {why}"),
            ToolError::Redaction(why) => write!(f, "the answer could not be redacted, so it is not given: {why}"),
            ToolError::Stopped(why) => write!(f, "the work stopped: {why}"),
        }
    }
}

impl std::error::Error for ToolError {}

/// `list_sessions`' arguments.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
struct ListSessionsArgs {
    /// Keeps the sessions of a project: its folder as list_projects gives it, or its last name.
    project: Option<String>,
    /// Keeps the sessions of an agent ("Claude Code", "Codex", "Gemini CLI", ...; any case).
    agent: Option<String>,
    /// Keeps the sessions a model answered in (any part of its name, any case).
    model: Option<String>,
    /// Keeps the sessions active on that day (UTC) or later, YYYY-MM-DD.
    since: Option<String>,
    /// Keeps the sessions started on that day (UTC) or earlier, YYYY-MM-DD.
    until: Option<String>,
    /// Keeps the sessions whose title holds this text (any case).
    title: Option<String>,
    /// Sessions skipped, for the next page (0 by default).
    offset: Option<usize>,
    /// Sessions given at most (50 by default).
    limit: Option<usize>,
}

/// `search`'s arguments.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
struct SearchArgs {
    /// Words, phrases and filters in the search language (see the tool's description); the text
    /// as written with `exact`; a regular expression with `regex`, or written /…/.
    query: String,
    /// Reads the query as a regular expression (Rust syntax), and gives every match.
    regex: Option<bool>,
    /// Finds the query as one text, as written (any case), and gives every match.
    exact: Option<bool>,
    /// The order of the sessions found: `score` (best first, the default) or `time` (newest first).
    sort: Option<String>,
    /// Keeps the hits of a project: its folder as list_projects gives it, or its last name.
    project: Option<String>,
    /// Keeps the hits of an agent's sessions ("Claude Code", "Codex", ...; any case).
    agent: Option<String>,
    /// Keeps the entries of that day (UTC) or later, YYYY-MM-DD.
    since: Option<String>,
    /// Keeps the entries of that day (UTC) or earlier, YYYY-MM-DD.
    until: Option<String>,
    /// Hits skipped, for the next page (0 by default).
    offset: Option<usize>,
    /// Hits given at most (50 by default).
    limit: Option<usize>,
}

/// `read_session`'s arguments.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
struct ReadSessionArgs {
    /// The session's id (or its start), as list_sessions or search give it.
    session_id: String,
    /// Messages skipped, for the next part of a long session (0 by default).
    offset: Option<usize>,
    /// Messages given at most (200 by default).
    limit: Option<usize>,
}

/// `usage`'s arguments.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
struct UsageArgs {
    /// Counts the sessions of a project only: its folder, or its last name.
    project: Option<String>,
    /// Counts the days from this one (UTC), YYYY-MM-DD.
    since: Option<String>,
    /// Counts the days up to this one (UTC), YYYY-MM-DD.
    until: Option<String>,
}

/// The server: the history of its folders, and whether its answers are redacted.
#[derive(Clone)]
pub struct Server {
    live: Arc<Mutex<Live>>,
    /// Held while the units' sets and insights are made apart from the history.
    making: Arc<Mutex<()>>,
    redact: bool,
    /// The session read last, redacted whole: a session read in pages is read and redacted once.
    last_read: Arc<Mutex<Option<LastRead>>>,
    tool_router: ToolRouter<Server>,
}

/// A session's Markdown as `read_session` made it: of which unit (as the history held it: a
/// unit whose files changed is another), which session, redacted or not.
struct LastRead {
    unit: Arc<Unit>,
    session_id: String,
    redact: bool,
    markdown: Arc<str>,
    project: String,
}

/// A tool's answer: JSON or Markdown text, or why there is none.
type Answer = Result<String, ToolError>;

#[tool_router]
impl Server {
    fn new(live: Live, redact: bool) -> Server {
        Server {
            live: Arc::new(Mutex::new(live)),
            making: Arc::new(Mutex::new(())),
            redact,
            last_read: Arc::new(Mutex::new(None)),
            tool_router: Self::tool_router(),
        }
    }

    #[tool(
        description = "Lists the projects (working folders) of the coding-agent history with their session counts, agents, tokens, cost in USD and last activity (UTC), most recent first. Use a project's `project` to filter list_sessions, search and usage."
    )]
    async fn list_projects(&self) -> Result<CallToolResult, ErrorData> {
        let redact = self.redact;
        Ok(answer(self.with_history(ROWS, move |live| redacted_json(&list_projects(live), redact)).await))
    }

    #[tool(
        description = "Lists sessions, newest activity first, with id, agent, project, title, times (UTC), messages, tool calls, models, tokens and cost; filters by project, agent, model, days (since/until YYYY-MM-DD) and text in the title; paged by offset/limit (50 by default), with the total. Read one with read_session."
    )]
    async fn list_sessions(&self, Parameters(args): Parameters<ListSessionsArgs>) -> Result<CallToolResult, ErrorData> {
        let redact = self.redact;
        Ok(answer(self.with_history(ROWS, move |live| list_sessions(live, &args, redact)).await))
    }

    #[tool(
        description = "Finds sessions by the words a person remembers, ranked best first (BM25F: a session's title and first prompt weigh most, then its other prompts, then answers, then tool calls and results; a number counts only in titles, prompts and answers, not in tool calls and results). The query language: words in any order, anywhere in a session (flaky login test); \"quoted phrases\"; prefix*; -excluded; deploy OR release; filters typed in the query: agent:codex, project:shop, model:opus, tool:Bash, file:src/main.rs, role:user|assistant|tool (whose words the others must be in), after: and before: (YYYY-MM-DD, or 36h, 7d, 2w, 1y before now), is:failed (a failed tool call). Each result gives its rank, score, session id, agent, project, title, time (UTC) and up to 3 snippets with their entry uuid and zone (title, prompt, answer, tool); sort=time lists the newest first. With exact the query is one text, and with regex (or a query written /like this/) a regular expression: then every match is a hit with its session id, entry uuid, role, time and the text around it. Filters by project, agent and days (since/until YYYY-MM-DD) too; paged by offset/limit (50 by default), with the total."
    )]
    async fn search(&self, Parameters(args): Parameters<SearchArgs>) -> Result<CallToolResult, ErrorData> {
        let redact = self.redact;
        Ok(answer(self.with_history(SETS, move |live| search(live, &args, redact)).await))
    }

    #[tool(
        description = "Reads a session as Markdown: the user's prompts, the assistant's answers, tool calls with their results cut to about 1,000 characters, each subagent's conversation quoted under the call that started it; gives messages offset..offset+limit (200 by default) and says the range and the total, so a long session is read in parts."
    )]
    async fn read_session(&self, Parameters(args): Parameters<ReadSessionArgs>) -> Result<CallToolResult, ErrorData> {
        let (redact, last_read) = (self.redact, Arc::clone(&self.last_read));
        Ok(answer(
            self.with_history(ROWS, move |live| {
                let offset = args.offset.unwrap_or(0);
                let limit = args.limit.unwrap_or(DEFAULT_MESSAGES).max(1);
                read_session(live, &args.session_id, offset, limit, redact, &last_read)
            })
            .await,
        ))
    }

    #[tool(
        description = "Counts tokens and cost in USD by model, by project and by day (UTC) over the whole history, or a project's sessions, or some days (since/until YYYY-MM-DD); each response is counted once, as ccusage does."
    )]
    async fn usage(&self, Parameters(args): Parameters<UsageArgs>) -> Result<CallToolResult, ErrorData> {
        let redact = self.redact;
        Ok(answer(self.with_history(INSIGHTS, move |live| usage(live, &args, redact)).await))
    }
}

/// What a tool needs of each unit beyond its rows: `search` the trigram sets, `usage` the
/// insights.
#[derive(Clone, Copy)]
struct Needs {
    sets: bool,
    insights: bool,
}

const ROWS: Needs = Needs { sets: false, insights: false };
const SETS: Needs = Needs { sets: true, insights: false };
const INSIGHTS: Needs = Needs { sets: false, insights: true };

impl Server {
    /// Runs `work` on the history, refreshed and with what it `needs` made, away from the
    /// server's thread (reading is work for every core). Once answered, what the units still
    /// lack is made while the server waits for the next call, so that the first call answers as
    /// soon as the rows are read and a later search or usage finds its sets and insights ready.
    async fn with_history(&self, needs: Needs, work: impl FnOnce(&Live) -> Answer + Send + 'static) -> Answer {
        let (live, making) = (Arc::clone(&self.live), Arc::clone(&self.making));
        let done = tokio::task::spawn_blocking(move || {
            if lock(&live).lacks(needs.sets, needs.insights) {
                // What is being made meanwhile is waited for, then what is still lacking made.
                let _made = lock(&making);
                lock(&live).fill(needs.sets, needs.insights);
            }
            let mut history = lock(&live);
            history.refresh();
            work(&history)
        })
        .await;
        // Once answered, what the units lack is made while the server waits for the next call,
        // without holding the history: the calls that need no more are answered meanwhile.
        let (live, making) = (Arc::clone(&self.live), Arc::clone(&self.making));
        tokio::task::spawn_blocking(move || {
            let Ok(_making) = making.try_lock() else { return };
            let lacking = lock(&live).lacking(true, true);
            if !lacking.is_empty() {
                let made = live::make(&lacking, true, true);
                lock(&live).take(made);
            }
        });
        done.unwrap_or_else(|error| Err(ToolError::Stopped(error.to_string())))
    }
}

/// The history, even when a thread stopped while holding it (it is then as that thread left
/// it, which a refresh repairs).
fn lock<T>(live: &Mutex<T>) -> MutexGuard<'_, T> {
    live.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A tool's result: its text, or its error as a result the agent reads.
fn answer(answer: Answer) -> CallToolResult {
    match answer {
        Ok(text) => CallToolResult::success(vec![ContentBlock::text(text)]),
        Err(error) => CallToolResult::error(vec![ContentBlock::text(error.to_string())]),
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder().enable_tools().enable_resources().build();
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("sessionscope", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "The user's coding-agent sessions (Claude Code, Codex, Gemini CLI, ...). Start with list_projects or \
                 list_sessions, find past work with search, then read_session with a session id. Times are UTC.",
            )
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let redact = self.redact;
        let listed = self
            .with_history(ROWS, move |live| {
                let rows: Vec<(&Arc<Unit>, &SessionRow)> =
                    sorted_rows(live.rows().collect()).into_iter().take(DEFAULT_LIMIT).collect();
                let mut redaction = Redaction::new(redact, rows.iter().map(|(_, row)| row.session_id.as_str()))?;
                let resources: Vec<Value> = rows
                    .iter()
                    .map(|(unit, row)| serde_json::json!({"session_id": row.session_id, "title": unit.title_source(row)}))
                    .collect();
                let resources = serde_json::to_value(resources).map_err(|error| ToolError::Stopped(error.to_string()))?;
                redaction.scan_value(&resources);
                redaction.answer(resources, &[])
            })
            .await;
        let resources: Vec<Value> = listed.ok().and_then(|text| serde_json::from_str(&text).ok()).unwrap_or_default();
        let resources = resources
            .iter()
            .filter_map(|item| {
                let id = item.get("session_id")?.as_str()?;
                let title = item.get("title")?.as_str()?;
                Some(Resource::new(format!("{SESSION_URI}{id}"), title).with_mime_type("text/markdown"))
            })
            .collect();
        Ok(ListResourcesResult::with_all_items(resources))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        let template = ResourceTemplate::new(format!("{SESSION_URI}{{session_id}}"), "session")
            .with_title("A session as Markdown")
            .with_description("The whole session as read_session gives it: prompts, answers, tool calls, subagents")
            .with_mime_type("text/markdown");
        Ok(ListResourceTemplatesResult::with_all_items(vec![template]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let uri = request.uri;
        let Some(id) = uri.strip_prefix(SESSION_URI).map(str::to_owned) else {
            return Err(ErrorData::resource_not_found(format!("no such resource: {uri}"), None));
        };
        let (redact, last_read) = (self.redact, Arc::clone(&self.last_read));
        match self.with_history(ROWS, move |live| read_session(live, &id, 0, usize::MAX, redact, &last_read)).await {
            Ok(markdown) => {
                let contents = ResourceContents::text(markdown, uri).with_mime_type("text/markdown");
                Ok(ReadResourceResult::new(vec![contents]).into())
            }
            Err(error @ (ToolError::NoSession(_) | ToolError::SeveralSessions(..))) => {
                Err(ErrorData::resource_not_found(error.to_string(), None))
            }
            Err(error) => Err(ErrorData::internal_error(error.to_string(), None)),
        }
    }
}

/// A project's line in `list_projects`.
#[derive(Serialize)]
struct ProjectItem {
    project: String,
    sessions: usize,
    agents: Vec<String>,
    tokens: u64,
    cost_usd: f64,
    last_activity: Option<String>,
    #[serde(skip)]
    last_ms: Option<i64>,
}

/// Every project of the history, most recently active first.
fn list_projects(live: &Live) -> Value {
    let mut projects: Vec<ProjectItem> = Vec::new();
    let mut at: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for (_, row) in live.rows() {
        let index = *at.entry(row.project.as_str()).or_insert_with(|| {
            projects.push(ProjectItem {
                project: row.project.clone(),
                sessions: 0,
                agents: Vec::new(),
                tokens: 0,
                cost_usd: 0.0,
                last_activity: None,
                last_ms: None,
            });
            projects.len() - 1
        });
        let Some(item) = projects.get_mut(index) else { continue };
        item.sessions += 1;
        if !item.agents.contains(&row.agent) {
            item.agents.push(row.agent.clone());
        }
        item.tokens = item.tokens.saturating_add(row.tokens());
        item.cost_usd += row.cost_usd;
        item.last_ms = item.last_ms.max(last_ms(row));
    }
    for item in &mut projects {
        item.last_activity = item.last_ms.map(iso_minute);
        item.cost_usd = cents(item.cost_usd);
    }
    projects.sort_by(|a, b| b.last_ms.cmp(&a.last_ms).then_with(|| a.project.cmp(&b.project)));
    serde_json::json!({ "total": projects.len(), "projects": projects })
}

/// A session's line in `list_sessions`.
#[derive(Serialize)]
struct SessionItem<'a> {
    session_id: &'a str,
    agent: &'a str,
    project: &'a str,
    title: &'a str,
    start: Option<String>,
    last_activity: Option<String>,
    messages: u32,
    tool_calls: u32,
    failed_tool_calls: u32,
    subagents: u32,
    models: &'a [String],
    tokens: u64,
    cost_usd: f64,
    resume_command: Option<String>,
}

impl<'a> SessionItem<'a> {
    /// The row's line, its title the whole text the row's title was cut from (the answer cuts
    /// it once redacted).
    fn of(unit: &'a Unit, row: &'a SessionRow) -> Self {
        SessionItem {
            session_id: &row.session_id,
            agent: &row.agent,
            project: &row.project,
            title: unit.title_source(row),
            start: row.start_ms.map(iso_minute),
            last_activity: last_ms(row).map(iso_minute),
            messages: row.messages,
            tool_calls: row.tool_calls,
            failed_tool_calls: row.failed_tool_calls,
            subagents: row.agents,
            models: &row.models,
            tokens: row.tokens(),
            cost_usd: cents(row.cost_usd),
            resume_command: row.resume.shell_line(&row.project),
        }
    }
}

/// The sessions `args` keeps, newest activity first, one page of them.
fn list_sessions(live: &Live, args: &ListSessionsArgs, redact: bool) -> Answer {
    let since = args.since.as_deref().map(day_start).transpose()?;
    let until = args.until.as_deref().map(day_start).transpose()?.map(|start| start.saturating_add(86_400_000));
    let model = args.model.as_deref().map(str::to_lowercase);
    let title = args.title.as_deref().map(str::to_lowercase);
    let rows: Vec<(&Arc<Unit>, &SessionRow)> = live
        .rows()
        .filter(|(_, row)| args.project.as_deref().is_none_or(|wanted| project_is(row, wanted, redact)))
        .filter(|(_, row)| args.agent.as_deref().is_none_or(|wanted| row.agent.eq_ignore_ascii_case(wanted)))
        .filter(|(_, row)| {
            model.as_deref().is_none_or(|wanted| row.models.iter().any(|m| m.to_lowercase().contains(wanted)))
        })
        .filter(|(_, row)| title.as_deref().is_none_or(|wanted| title_of(row).to_lowercase().contains(wanted)))
        .filter(|(_, row)| since.is_none_or(|since| last_ms(row).is_some_and(|last| last >= since)))
        .filter(|(_, row)| until.is_none_or(|end| row.start_ms.or(row.end_ms).is_some_and(|start| start < end)))
        .collect();
    let rows = sorted_rows(rows);
    let (offset, limit) = page(args.offset, args.limit);
    let shown: Vec<&(&Arc<Unit>, &SessionRow)> = rows.iter().skip(offset).take(limit).collect();
    let mut redaction = Redaction::new(redact, shown.iter().map(|(_, row)| row.session_id.as_str()))?;
    let sessions: Vec<SessionItem> = shown.iter().map(|(unit, row)| SessionItem::of(unit, row)).collect();
    let next = next_offset(offset, sessions.len(), rows.len());
    let listed = serde_json::json!({
        "total": rows.len(),
        "offset": offset,
        "next_offset": next,
        "sessions": sessions,
    });
    redaction.scan_value(&listed);
    redaction.answer(listed, &[])
}

/// A search's hit as `search` gives it.
#[derive(Serialize)]
struct HitItem {
    session_id: String,
    entry_uuid: String,
    role: String,
    time: Option<String>,
    project: String,
    title: String,
    snippet: String,
}

impl HitItem {
    /// The hit's line, its title the whole text its session's title was cut from, and its
    /// context left to be made once the answer is scanned ([`Redaction::snippet`]).
    fn of(hit: &FoundHit, live: &Live) -> Self {
        let title = match live.find(&hit.session_id) {
            Ok((unit, row)) if row.session_id == hit.session_id => unit.title_source(row).to_owned(),
            _ => hit.title.clone(),
        };
        HitItem {
            session_id: hit.session_id.clone(),
            entry_uuid: hit.entry_uuid.clone(),
            role: hit.role.clone(),
            time: hit.time_ms.map(crate_time),
            project: hit.project.clone(),
            title,
            snippet: String::new(),
        }
    }
}

/// The history searched as `sessionscope search` searches it, one page of the sessions found
/// (ranked, [`ranked_search`]) or of the hits (an exact text or a regular expression).
fn search(live: &Live, args: &SearchArgs, redact: bool) -> Answer {
    let mut pattern = None;
    if !args.regex.unwrap_or(false) && !args.exact.unwrap_or(false) {
        let mut parsed =
            Parsed::parse(&args.query, crate::now_ms()).map_err(|why| ToolError::Query(why.to_string()))?;
        pattern = parsed.regex.take();
        if pattern.is_none() {
            return ranked_search(live, args, parsed, redact);
        }
    }
    let (text, regex) = match &pattern {
        Some(pattern) => (pattern.as_str(), true),
        None => (args.query.as_str(), args.regex.unwrap_or(false)),
    };
    let query = Query::with_case(text, regex, false).map_err(|why| ToolError::Query(why.to_string()))?;
    // Redacted, a hit's context is made from its field's whole text, redacted first.
    let query = if redact { query.with_sources() } else { query };
    let call = filters_of(live, args, redact)?;
    let filters = call.with_agent(args.agent.as_deref());
    let (offset, limit) = page(args.offset, args.limit);
    let keep = offset.saturating_add(limit);
    let found = crate::search::search(live, &query, &filters, keep);
    let total = found.total;
    let complete = found.complete;
    let found: Vec<FoundHit> = found.hits.into_iter().skip(offset).take(limit).collect();
    let ids = found.iter().flat_map(|hit| [hit.session_id.as_str(), hit.entry_uuid.as_str()]);
    let mut redaction = Redaction::new(redact, ids)?;
    for source in found.iter().filter_map(|hit| hit.source.as_ref()) {
        redaction.scan(&source.text);
    }
    let hits: Vec<HitItem> = found.iter().map(|hit| HitItem::of(hit, live)).collect();
    let next = (hits.len() == limit && (!complete || ((offset + limit) as u64) < total)).then_some(offset + limit);
    let mut listed = serde_json::json!({
        "query": args.query,
        "total": total,
        "complete": complete,
        "offset": offset,
        "next_offset": next,
        "hits": hits,
    });
    redaction.scan_value(&listed);
    if let Some(items) = listed.get_mut("hits").and_then(Value::as_array_mut) {
        for (item, hit) in items.iter_mut().zip(&found) {
            item["snippet"] = Value::String(redaction.snippet(hit));
        }
    }
    redaction.answer(listed, &["snippet"])
}

/// A search call's filters, read: its project's real folder and its days.
struct CallFilters {
    project: Option<String>,
    since_ms: Option<i64>,
    until_ms: Option<i64>,
}

impl CallFilters {
    /// As the command line's search takes them, with the call's `agent`.
    fn with_agent<'a>(&'a self, agent: Option<&'a str>) -> Filters<'a> {
        Filters { project: self.project.as_deref(), agent, since_ms: self.since_ms, until_ms: self.until_ms }
    }
}

/// The search's filters of the call's own arguments: days checked, a project the agent names as
/// a redacted answer gave it matched by its real folder.
fn filters_of(live: &Live, args: &SearchArgs, redact: bool) -> Result<CallFilters, ToolError> {
    let since_ms = args.since.as_deref().map(day_start).transpose()?;
    let until_ms = args.until.as_deref().map(day_start).transpose()?.map(|start| start.saturating_add(86_400_000));
    let project = args.project.as_deref().map(|wanted| {
        live.rows()
            .map(|(_, row)| row)
            .find(|row| project_is(row, wanted, redact))
            .map_or_else(|| wanted.to_owned(), |row| row.project.clone())
    });
    Ok(CallFilters { project, since_ms, until_ms })
}

/// One page of the sessions that hold a query's words, best first ([`crate::ranked`]): each with
/// its rank, score, row and snippets, a snippet cut from its text redacted whole.
fn ranked_search(live: &Live, args: &SearchArgs, mut parsed: Parsed, redact: bool) -> Answer {
    let sort = match args.sort.as_deref().map(str::to_lowercase).as_deref() {
        None | Some("score") => crate::ranked::Sort::Score,
        Some("time") => crate::ranked::Sort::Time,
        Some(other) => return Err(ToolError::Query(format!("sort is `score` or `time`, not `{other}`"))),
    };
    let filters = filters_of(live, args, redact)?;
    filters.with_agent(args.agent.as_deref()).add_to(&mut parsed);
    let (offset, limit) = page(args.offset, args.limit);
    let found = crate::ranked::search(
        live,
        &parsed,
        filters.project.as_deref(),
        sort,
        offset.saturating_add(limit),
        None,
        redact,
    );
    let total = found.total;
    let sessions: Vec<&crate::ranked::RankedSession> = found.results.iter().skip(offset).take(limit).collect();
    let ids = sessions.iter().flat_map(|session| {
        std::iter::once(session.session_id.as_str()).chain(session.snippets.iter().map(|s| s.entry_uuid.as_str()))
    });
    let mut redaction = Redaction::new(redact, ids)?;
    for source in sessions.iter().flat_map(|session| &session.snippets).filter_map(|snippet| snippet.source.as_ref()) {
        redaction.scan(&source.text);
    }
    let results: Vec<Value> = sessions
        .iter()
        .map(|session| {
            let title = match live.find(&session.session_id) {
                Ok((unit, row)) if row.session_id == session.session_id => unit.title_source(row).to_owned(),
                _ => session.title.clone(),
            };
            serde_json::json!({
                "rank": session.rank,
                "score": session.score,
                "session_id": session.session_id,
                "agent": session.agent,
                "project": session.project,
                "title": title,
                "time": session.last_ms.map(crate_time),
                "snippets": session.snippets.iter().map(|snippet| serde_json::json!({
                    "entry_uuid": snippet.entry_uuid,
                    "zone": snippet.zone,
                    "snippet": "",
                })).collect::<Vec<Value>>(),
            })
        })
        .collect();
    let next = (offset + sessions.len() < total).then_some(offset + sessions.len());
    let mut listed = serde_json::json!({
        "query": args.query,
        "total": total,
        "offset": offset,
        "next_offset": next,
        "results": results,
    });
    redaction.scan_value(&listed);
    if let Some(items) = listed.get_mut("results").and_then(Value::as_array_mut) {
        for (item, session) in items.iter_mut().zip(&sessions) {
            let Some(snippets) = item.get_mut("snippets").and_then(Value::as_array_mut) else { continue };
            for (shown, snippet) in snippets.iter_mut().zip(&session.snippets) {
                shown["snippet"] = Value::String(redaction.cut(snippet.source.as_ref(), &snippet.snippet));
            }
        }
    }
    redaction.answer(listed, &["snippet"])
}

/// A session as Markdown, messages `offset..offset + limit`, with the range and the total.
fn read_session(
    live: &Live,
    id: &str,
    offset: usize,
    limit: usize,
    redact: bool,
    last_read: &Mutex<Option<LastRead>>,
) -> Answer {
    let (unit, row) = live.find(id.trim()).map_err(|lookup| match lookup {
        Lookup::None => ToolError::NoSession(id.to_owned()),
        Lookup::Several(count) => ToolError::SeveralSessions(id.to_owned(), count),
    })?;
    let mut last = lock(last_read);
    let kept = last
        .as_ref()
        .filter(|last| Arc::ptr_eq(&last.unit, unit) && last.session_id == row.session_id && last.redact == redact);
    let (markdown, project) = match kept {
        Some(last) => (Arc::clone(&last.markdown), last.project.clone()),
        None => {
            let (markdown, project) = session_of(unit, &row.session_id, &row.project, redact)?;
            let markdown: Arc<str> = Arc::from(markdown);
            *last = Some(LastRead {
                unit: Arc::clone(unit),
                session_id: row.session_id.clone(),
                redact,
                markdown: Arc::clone(&markdown),
                project: project.clone(),
            });
            (markdown, project)
        }
    };
    drop(last);
    let parts = messages(&markdown);
    let total = parts.len().saturating_sub(1);
    let from = offset.min(total);
    let to = from.saturating_add(limit).min(total);
    let mut out = String::new();
    out.push_str(parts.first().copied().unwrap_or_default());
    let range = if total == 0 {
        "No messages.".to_owned()
    } else if from == to {
        format!("No messages from {offset}: the session has {total}.")
    } else if from == 0 && to == total {
        format!("All {total} messages.")
    } else {
        format!("Messages {}–{} of {total}.", from + 1, to)
    };
    let facts = format!(
        "_Session `{}` · {} · {}. {range}_\n",
        row.session_id,
        row.agent,
        if row.project.is_empty() { "no project" } else { &project }
    );
    out.push_str(&facts);
    for part in parts.iter().skip(1 + from).take(to - from) {
        out.push_str(part);
    }
    if to < total {
        let more = total - to;
        let noun = if more == 1 { "message" } else { "messages" };
        out.push_str(&format!("\n---\n\n_{more} more {noun}: read_session with offset {to}._\n"));
    }
    Ok(out)
}

/// The Markdown of the session `id` of a unit, its files read again, and its project folder as
/// the Markdown may show it. Redacted, the session is redacted line by line as a share of it is
/// (every id its log names kept), with its project, and only then written and its outputs cut.
fn session_of(unit: &Unit, id: &str, project: &str, redact: bool) -> Result<(String, String), ToolError> {
    let crate::index::UnitModel { corpus, graph, unreadable, .. } = crate::index::read_model(unit.files.iter());
    let unread: Vec<String> =
        unreadable.iter().map(|problem| format!("{}: {}", problem.path, problem.reason)).collect();
    let Some(session) = graph.sessions.iter().position(|session| session.id.as_str() == id) else {
        return Err(if unread.is_empty() {
            ToolError::Unreadable("its files no longer hold it".to_owned())
        } else {
            ToolError::Unreadable(unread.join("; "))
        });
    };
    let options = MarkdownOptions { output_lines: 40, output_chars: OUTPUT_CHARS, thinking: false };
    if !redact {
        return Ok((session_markdown(&corpus, &graph, session as u32, &options), project.to_owned()));
    }
    let scope = Scope::Session(SessionId::new(session));
    let shared = share_scope_with(&corpus, &graph, &scope, &ShareOptions::default(), |_| false, &[project])
        .map_err(|error| ToolError::Redaction(error.reason))?;
    let markdown = files_session_markdown(&shared.bundle.files, id, &options);
    Ok((markdown, shared.redactor.redact_text(project)))
}

/// A session's Markdown cut into its head (title and facts), then its messages: each starts at a
/// `### User` or `### Assistant` heading, or a subagent's `## ` heading, outside code blocks.
fn messages(markdown: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut start = 0;
    let mut fence: Option<usize> = None;
    let mut at = 0;
    for line in markdown.split_inclusive('\n') {
        let text = line.trim_end();
        let ticks = text.len() - text.trim_start_matches('`').len();
        match fence {
            Some(open) if ticks >= open && text.trim_start_matches('`').is_empty() => fence = None,
            Some(_) => {}
            None if ticks >= 3 => fence = Some(ticks),
            None => {
                let heading = text == "### User" || text == "### Assistant" || text.starts_with("## ");
                if heading {
                    // The blank line before a heading goes with it.
                    let cut = if markdown[..at].ends_with("\n\n") { at - 1 } else { at };
                    if cut > start {
                        parts.push(&markdown[start..cut]);
                        start = cut;
                    }
                }
            }
        }
        at += line.len();
    }
    parts.push(&markdown[start..]);
    parts
}

/// The usage of the history (or of some of its sessions and days) by model, project and day.
fn usage(live: &Live, args: &UsageArgs, redact: bool) -> Answer {
    let since = args.since.as_deref().map(day_start).transpose()?.map(|ms| ms.div_euclid(86_400_000));
    let until = args.until.as_deref().map(day_start).transpose()?.map(|ms| ms.div_euclid(86_400_000));
    let kept: Vec<&Arc<Unit>> = live
        .units
        .iter()
        .filter(|unit| {
            args.project.as_deref().is_none_or(|wanted| unit.rows.iter().any(|r| project_is(r, wanted, redact)))
        })
        .collect();
    let units: Vec<UnitRef<'_>> = kept
        .iter()
        .enumerate()
        .filter_map(|(at, unit)| Some(UnitRef { unit: at as u32, insights: unit.insights.as_ref()? }))
        .collect();
    let activity = report::activity(&units, &|_| 0, crate::now_ms());
    let in_days = |day: i64| since.is_none_or(|since| day >= since) && until.is_none_or(|until| day <= until);
    let mut by_model: Vec<(String, u64, f64)> = Vec::new();
    let mut by_project: Vec<(String, u64, f64)> = Vec::new();
    let mut by_day: Vec<(String, u64, f64)> = Vec::new();
    let add = |list: &mut Vec<(String, u64, f64)>, name: &str, tokens: u64, cost: f64| match list
        .iter_mut()
        .find(|(n, ..)| n == name)
    {
        Some(entry) => {
            entry.1 = entry.1.saturating_add(tokens);
            entry.2 += cost;
        }
        None => list.push((name.to_owned(), tokens, cost)),
    };
    for day in activity.by_model.iter().filter(|day| in_days(day.day_number)) {
        add(&mut by_model, &day.name, day.tokens, day.cost_usd);
        add(&mut by_day, &day.day, day.tokens, day.cost_usd);
    }
    for day in activity.by_project.iter().filter(|day| in_days(day.day_number)) {
        add(&mut by_project, &day.name, day.tokens, day.cost_usd);
    }
    let tokens: u64 = by_day.iter().map(|d| d.1).sum();
    let cost: f64 = by_day.iter().map(|d| d.2).sum();
    by_model.sort_by(|a, b| b.2.total_cmp(&a.2).then_with(|| b.1.cmp(&a.1)));
    by_project.sort_by(|a, b| b.2.total_cmp(&a.2).then_with(|| b.1.cmp(&a.1)));
    by_day.sort_by(|a, b| a.0.cmp(&b.0));
    let rows = |list: Vec<(String, u64, f64)>, key: &str| -> Vec<Value> {
        list.into_iter()
            .map(|(name, tokens, cost)| serde_json::json!({ key: name, "tokens": tokens, "cost_usd": cents(cost) }))
            .collect()
    };
    let counted = serde_json::json!({
        "tokens": tokens,
        "cost_usd": cents(cost),
        "by_model": rows(by_model, "model"),
        "by_project": rows(by_project, "project"),
        "by_day": rows(by_day, "day"),
    });
    redacted_json(&counted, redact)
}

/// The rows with their units, newest activity first (then by id, so the order does not depend
/// on the files').
fn sorted_rows<'a>(mut rows: Vec<(&'a Arc<Unit>, &'a SessionRow)>) -> Vec<(&'a Arc<Unit>, &'a SessionRow)> {
    rows.sort_by(|(_, a), (_, b)| last_ms(b).cmp(&last_ms(a)).then_with(|| a.session_id.cmp(&b.session_id)));
    rows
}

/// A session's last activity: its end, else its start.
fn last_ms(row: &SessionRow) -> Option<i64> {
    row.end_ms.or(row.start_ms)
}

/// A session's title, or its first prompt when it has none.
fn title_of(row: &SessionRow) -> &str {
    if row.title.is_empty() { &row.first_prompt } else { &row.title }
}

/// Whether a session is of the project `wanted` names: its folder, the folder's last name, or
/// the folder as a redacted answer wrote it.
fn project_is(row: &SessionRow, wanted: &str, redact: bool) -> bool {
    let wanted = wanted.trim_end_matches(['/', '\\']);
    crate::search::project_named(row, wanted)
        || (redact
            && wanted.contains('[')
            && redacted_text(row.project.trim_end_matches(['/', '\\'])).is_ok_and(|shown| shown == wanted))
}

/// Milliseconds since the epoch at the start of a `YYYY-MM-DD` day (UTC).
fn day_start(text: &str) -> Result<i64, ToolError> {
    crate::cli::parse_day(text.trim()).map(|day| day.start_ms()).map_err(|_| ToolError::Day(text.to_owned()))
}

/// The page asked for: the items skipped, and how many are given at most.
fn page(offset: Option<usize>, limit: Option<usize>) -> (usize, usize) {
    (offset.unwrap_or(0), limit.unwrap_or(DEFAULT_LIMIT).max(1))
}

/// The offset of the next page, if there is one.
fn next_offset(offset: usize, given: usize, total: usize) -> Option<usize> {
    let next = offset.saturating_add(given);
    (given > 0 && next < total).then_some(next)
}

/// An amount of USD rounded to the cent's hundredth, so answers are short.
fn cents(usd: f64) -> f64 {
    (usd * 10_000.0).round() / 10_000.0
}

/// A time as `YYYY-MM-DD HH:MM` (UTC).
fn crate_time(ms: i64) -> String {
    iso_minute(ms)
}

/// Keys whose values are ids an agent passes back: never redacted.
const IDS: &[&str] = &["session_id", "entry_uuid"];

/// The key of a title, whose value is its whole text until the answer cuts it once redacted.
const TITLE: &str = "title";

/// `value` as pretty JSON, every string but ids redacted unless `redact` is off.
fn redacted_json(value: &impl Serialize, redact: bool) -> Answer {
    let value = serde_json::to_value(value).map_err(|error| ToolError::Stopped(error.to_string()))?;
    let mut redaction = Redaction::new(redact, [])?;
    redaction.scan_value(&value);
    redaction.answer(value, &[])
}

/// The redaction of one answer, or none with `--no-redact`. Every text the answer shows is
/// scanned before any is redacted, so a user's name learned from one path is found in all. Each
/// text is redacted whole and only then cut: a title to a title's length, a search hit's context
/// around its match. The ids the answer gives are kept, also inside its texts (a resume command).
struct Redaction {
    redactor: Option<Redactor>,
}

impl Redaction {
    /// The redaction of an answer that gives `ids`.
    fn new<'a>(redact: bool, ids: impl IntoIterator<Item = &'a str>) -> Result<Redaction, ToolError> {
        if !redact {
            return Ok(Redaction { redactor: None });
        }
        let mut redactor = Redactor::new(&DetectOptions::default()).map_err(|e| ToolError::Redaction(e.reason))?;
        redactor.keep_ids(ids);
        Ok(Redaction { redactor: Some(redactor) })
    }

    /// Scans a text the answer shows, whole or in part.
    fn scan(&mut self, text: &str) {
        if let Some(redactor) = &mut self.redactor {
            redactor.scan_text_line(LineRef::new(0, 0), text.as_bytes());
        }
    }

    /// Scans every string of `value` but its ids.
    fn scan_value(&mut self, value: &Value) {
        if self.redactor.is_some() {
            each_string(value, "", &mut |key, text| {
                if !IDS.contains(&key) {
                    self.scan(text);
                }
            });
        }
    }

    /// A text, redacted whole.
    fn text(&self, text: &str) -> String {
        self.redactor.as_ref().map_or_else(|| text.to_owned(), |redactor| redactor.redact_text(text))
    }

    /// A title's whole text, redacted, then cut to a title's length.
    fn title(&self, source: &str) -> String {
        sessionscope_engine::cut::prefix(&self.text(source), TITLE_CHARS)
    }

    /// The line of context around a search's match: its field's whole text redacted, and the
    /// context cut from the redacted text around where the match is in it.
    fn snippet(&self, hit: &FoundHit) -> String {
        self.cut(hit.source.as_ref(), &hit.snippet)
    }

    /// The line of context around a match whose whole text is `source`: redacted whole, then cut
    /// around where the match is in the redacted text; `cut`, the context cut from the text as it
    /// was, is what is shown unredacted.
    fn cut(&self, source: Option<&HitSource>, cut: &str) -> String {
        match (&self.redactor, source) {
            (Some(redactor), Some(source)) => {
                let shown = redactor.redact_mapped(&source.text);
                let at = shown.map(source.start..source.end);
                snippet(&shown.text, at.start, at.end).0
            }
            // A match without its text (none is made so) can only be redacted as it was cut.
            (Some(redactor), None) => redactor.redact_text(cut),
            (None, _) => cut.to_owned(),
        }
    }

    /// `value` as pretty JSON, once scanned ([`Redaction::scan_value`]): every string redacted but
    /// ids and those of the keys `made` (made once the answer was scanned, redacted already: a
    /// search hit's context), a title redacted whole, then cut.
    fn answer(&self, mut value: Value, made: &[&str]) -> Answer {
        strings(&mut value, "", &mut |key, text| {
            if key == TITLE {
                *text = self.title(text);
            } else if !IDS.contains(&key) && !made.contains(&key) && self.redactor.is_some() {
                *text = self.text(text);
            }
        });
        serde_json::to_string_pretty(&value).map_err(|error| ToolError::Stopped(error.to_string()))
    }
}

/// Calls `each` on every string of `value`, with the key it is the value of (or the key of the
/// array it is in).
fn strings(value: &mut Value, key: &str, each: &mut dyn FnMut(&str, &mut String)) {
    match value {
        Value::String(text) => each(key, text),
        Value::Array(items) => items.iter_mut().for_each(|item| strings(item, key, each)),
        Value::Object(map) => map.iter_mut().for_each(|(key, item)| strings(item, key, each)),
        _ => {}
    }
}

/// Calls `each` on every string of `value`, with its key as [`strings`] gives it.
fn each_string(value: &Value, key: &str, each: &mut dyn FnMut(&str, &str)) {
    match value {
        Value::String(text) => each(key, text),
        Value::Array(items) => items.iter().for_each(|item| each_string(item, key, each)),
        Value::Object(map) => map.iter().for_each(|(key, item)| each_string(item, key, each)),
        _ => {}
    }
}

/// A text with its secrets, keys and user names replaced.
fn redacted_text(text: &str) -> Answer {
    let mut redaction = Redaction::new(true, [])?;
    redaction.scan(text);
    Ok(redaction.text(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_is_cut_into_messages_outside_code_blocks() {
        let markdown = "# Title\n\n_facts_\n\n### User\n\nhi\n\n### Assistant\n\n```text\n### User\n```\n\nok\n\n## Subagent\n\n### User\n\ntask\n";
        let parts = messages(markdown);
        assert_eq!(parts.len(), 5, "{parts:?}");
        assert_eq!(parts[0], "# Title\n\n_facts_\n");
        assert!(parts[2].contains("```text\n### User\n```"));
        assert_eq!(parts.concat(), markdown);
    }

    #[test]
    fn ids_stay_and_secrets_go() {
        let value = serde_json::json!({
            "session_id": "ghp_0123456789abcdefghijABCDEFGHIJ012345",
            "snippet": "token ghp_0123456789abcdefghijABCDEFGHIJ012345 in /home/alice/src",
        });
        let text = redacted_json(&value, true).unwrap_or_default();
        assert_eq!(text.matches("ghp_0123456789abcdefghijABCDEFGHIJ012345").count(), 1, "{text}");
        assert!(!text.contains("alice"), "{text}");
    }

    #[test]
    fn days_and_pages() {
        assert_eq!(day_start("1970-01-02"), Ok(86_400_000));
        assert!(matches!(day_start("yesterday"), Err(ToolError::Day(_))));
        assert_eq!(page(None, Some(0)), (0, 1));
        assert_eq!(next_offset(0, 50, 51), Some(50));
        assert_eq!(next_offset(50, 1, 51), None);
    }
}
