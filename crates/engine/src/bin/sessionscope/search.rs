//! `sessionscope search`: a whole history searched as the page's history search does, with the
//! engine's query ([`sessionscope_engine::search::Query`]). The history is read as `index` reads
//! it, unit by unit on every core. A unit none of whose files holds a plain query's text is not
//! parsed, and one whose matching lines hold no hit ([`UnitSearch`], as the page's workers search)
//! is parsed no further; a unit that holds hits is read whole, so each hit gets its session's row
//! (title, project, agent) and its entry's time and role.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::ExitCode;

use serde::Serialize;
use sessionscope_engine::Loader;
use sessionscope_engine::dag::Graph;
use sessionscope_engine::history::{SessionRow, UnitSearch, project_of_folder, session_rows};
use sessionscope_engine::search::Query;

use crate::cli::SearchArgs;
use crate::index::{each_unit, iso_minute};

/// What `--json` prints.
#[derive(Serialize)]
struct Found<'a> {
    query: &'a str,
    /// The matches of the sessions and days kept, listed or not.
    total: u64,
    /// The history's session units searched (a session with its agents' files, as `index`
    /// groups them).
    sessions_searched: usize,
    hits: Vec<FoundHit>,
}

/// A hit: where it is, and the text around it.
#[derive(Serialize)]
pub struct FoundHit {
    pub session_id: String,
    pub project: String,
    pub agent: String,
    pub title: String,
    pub entry_uuid: String,
    pub role: &'static str,
    pub time_ms: Option<i64>,
    pub snippet: String,
}

/// What searching one unit found.
#[derive(Default)]
pub struct UnitFound {
    pub total: u64,
    pub hits: Vec<FoundHit>,
}

/// The sessions and days whose hits are kept.
pub struct Filters<'a> {
    pub project: Option<&'a str>,
    pub agent: Option<&'a str>,
    pub since_ms: Option<i64>,
    /// The end of `--until`'s day, excluded.
    pub until_ms: Option<i64>,
}

impl Filters<'_> {
    /// Whether a session's hits may be kept, by its project and agent.
    pub fn keeps_session(&self, row: Option<&SessionRow>) -> bool {
        let project_kept = self.project.is_none_or(|wanted| {
            row.is_some_and(|row| {
                let project = row.project.trim_end_matches(['/', '\\']);
                project == wanted || project.rsplit(['/', '\\']).next() == Some(wanted)
            })
        });
        let agent_kept = self.agent.is_none_or(|wanted| row.is_some_and(|row| row.agent.eq_ignore_ascii_case(wanted)));
        project_kept && agent_kept
    }

    /// Whether an entry of a given time (else its session's start) may be kept, by its day.
    fn keeps_time(&self, time_ms: Option<i64>) -> bool {
        if self.since_ms.is_none() && self.until_ms.is_none() {
            return true;
        }
        time_ms.is_some_and(|t| self.since_ms.is_none_or(|since| t >= since) && self.until_ms.is_none_or(|end| t < end))
    }
}

/// Searches `files` (on disk, with the names they are known by) as `args` asks.
pub fn run(files: Vec<(PathBuf, String)>, args: &SearchArgs) -> ExitCode {
    let query = match Query::with_case(&args.query, args.regex, args.case_sensitive) {
        Ok(query) => query,
        Err(why) => {
            eprintln!("sessionscope: {why}");
            return ExitCode::from(2);
        }
    };
    let filters = Filters {
        project: args.project.as_deref(),
        agent: args.agent.as_deref(),
        since_ms: args.since.map(|day| day.start_ms()),
        until_ms: args.until.map(|day| day.start_ms().saturating_add(86_400_000)),
    };
    let keep = if args.limit == 0 { usize::MAX } else { args.limit };
    let (units, _) = each_unit(files, |unit, folder| search_unit(unit, folder, &query, &filters, keep));
    let sessions_searched = units.len();
    let total = units.iter().map(|unit| unit.total).sum();
    let hits: Vec<FoundHit> = units.into_iter().flat_map(|unit| unit.hits).take(keep).collect();
    let found = Found { query: &args.query, total, sessions_searched, hits };
    let out = if args.json {
        match serde_json::to_string_pretty(&found) {
            Ok(text) => text + "\n",
            Err(error) => {
                eprintln!("sessionscope: {error}");
                return ExitCode::from(1);
            }
        }
    } else {
        table(&found)
    };
    crate::write_stdout(out.as_bytes())
}

/// Searches one unit: its matches, and its first `keep` hits, in entry order. A file that cannot
/// be read is left out (`index` lists it).
pub fn search_unit(
    unit: &[&(PathBuf, String)],
    folder: &str,
    query: &Query,
    filters: &Filters<'_>,
    keep: usize,
) -> UnitFound {
    let files: Vec<(&str, Vec<u8>)> = unit
        .iter()
        .filter_map(|&(path, name)| crate::read_source(path, name).ok().map(|bytes| (name.as_str(), bytes)))
        .collect();
    // A plain query rules out a unit by its raw bytes, then by the lines that hold its text,
    // before the unit is parsed whole.
    if query.has_raw_form() {
        if !files.iter().any(|(_, bytes)| query.may_match_raw(bytes)) {
            return UnitFound::default();
        }
        let mut search = UnitSearch::new(query, 1);
        for (name, bytes) in &files {
            if search.is_full() {
                break;
            }
            search.add_file(name, bytes);
        }
        if search.finish().0.is_empty() {
            return UnitFound::default();
        }
    }
    let mut loader = Loader::new();
    for (name, bytes) in files {
        loader.add_vec(name, bytes);
    }
    let corpus = loader.finish();
    let graph = Graph::build(&corpus);
    let rows = session_rows(&corpus, &graph, project_of_folder(folder));
    let row_of: HashMap<&str, &SessionRow> = rows.iter().map(|row| (row.session_id.as_str(), row)).collect();
    let mut kept_sessions: HashMap<&str, bool> = HashMap::new();
    let mut found = UnitFound::default();
    for (at, entry) in corpus.entries.iter().enumerate() {
        let session_id = graph
            .nodes
            .get(at)
            .and_then(|node| graph.conversations.get(node.conversation.index()))
            .and_then(|conversation| graph.sessions.get(conversation.session.index()))
            .map_or("", |session| session.id.as_str());
        let row = row_of.get(session_id).copied();
        if !*kept_sessions.entry(session_id).or_insert_with(|| filters.keeps_session(row)) {
            continue;
        }
        let time_ms = entry.has_timestamp().then_some(entry.timestamp_ms);
        if !filters.keeps_time(time_ms.or(row.and_then(|row| row.start_ms))) {
            continue;
        }
        let hits = &mut found.hits;
        let matches = query.search(&corpus, at..at + 1, &mut |hit| {
            if hits.len() >= keep {
                return;
            }
            hits.push(FoundHit {
                session_id: session_id.to_owned(),
                project: row.map(|row| row.project.clone()).unwrap_or_default(),
                agent: row.map(|row| row.agent.clone()).unwrap_or_default(),
                title: row.map(|row| row.title.clone()).unwrap_or_default(),
                entry_uuid: corpus.entry_uuid(entry).to_owned(),
                role: entry.kind.name(),
                time_ms,
                snippet: hit.context,
            });
        });
        found.total += matches;
    }
    found
}

/// The hits as text: for each, a line with its entry's time and role, its session's project,
/// title and id, then the text around the match; then the count.
fn table(found: &Found<'_>) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    for hit in &found.hits {
        let time = hit.time_ms.map_or_else(|| "(no time)".to_owned(), iso_minute);
        let title: String = hit.title.chars().take(60).collect();
        let _ = writeln!(out, "{time:<16}  {:<11} {}  {title}  ({})", hit.role, hit.project, hit.session_id);
        let _ = writeln!(out, "    {}", hit.snippet);
    }
    let shown =
        if (found.hits.len() as u64) < found.total { format!(" ({} shown)", found.hits.len()) } else { String::new() };
    let _ = writeln!(
        out,
        "{} {} in {} sessions searched{shown}",
        found.total,
        if found.total == 1 { "match" } else { "matches" },
        found.sessions_searched
    );
    out
}
