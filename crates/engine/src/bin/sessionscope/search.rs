//! `sessionscope search`: a whole history searched. A query in the search language is ranked by
//! words ([`crate::ranked`]); an exact text (`--exact`) or a regular expression (`--regex`, or a
//! query written `/…/`) lists every match, as the page's history search does, with the engine's
//! query ([`sessionscope_engine::search::Query`]), over a [`Live`] history: each unit's rows and
//! trigram set come from the [`Store`] where its files are unchanged since the last run (else the
//! unit is read once, on every core, and remembered). A unit whose set lacks some three bytes of a
//! plain query is not opened; a Claude Code file is searched by its matching lines only
//! ([`UnitSearch`], as the page's workers search). Units are searched newest activity first, and
//! the search stops taking units once it has the hits it lists (`--limit=0`: all of them).

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde::Serialize;
use sessionscope_engine::history::{HistoryHit, SessionRow, UnitSearch};
use sessionscope_engine::marks::Marks;
use sessionscope_engine::query::{Filter, FilterClause, Parsed};
use sessionscope_engine::search::{HitSource, Query};

use crate::cli::SearchArgs;
use crate::index::{iso_minute, parallel_map};
use crate::live::{Live, Reading, Unit};
use crate::store::Store;

/// What `--json` prints.
#[derive(Serialize)]
struct Printed<'a> {
    query: &'a str,
    #[serde(flatten)]
    found: &'a Found,
}

/// What a search of a history found.
#[derive(Serialize)]
pub struct Found {
    /// The matches counted: all those of the sessions and days kept when `complete`, else those
    /// of the sessions searched before the hits were enough.
    pub total: u64,
    pub complete: bool,
    /// The history's session units (a session with its agents' files, as `index` groups them).
    pub sessions_searched: usize,
    /// The units whose files were opened (the others were ruled out by their trigram sets, their
    /// rows or the hits being enough).
    pub sessions_read: usize,
    pub hits: Vec<FoundHit>,
}

/// A hit: where it is, and the text around it.
#[derive(Serialize)]
pub struct FoundHit {
    pub session_id: String,
    pub project: String,
    pub agent: String,
    pub title: String,
    pub entry_uuid: String,
    pub role: String,
    pub time_ms: Option<i64>,
    pub snippet: String,
    /// The whole text the match is in, when the query asked for it
    /// ([`Query::with_sources`]): the MCP server redacts it before it cuts the context.
    #[serde(skip)]
    pub source: Option<HitSource>,
}

/// The sessions and days whose hits are kept.
pub struct Filters<'a> {
    pub project: Option<&'a str>,
    pub agent: Option<&'a str>,
    pub since_ms: Option<i64>,
    /// The end of `--until`'s day, excluded.
    pub until_ms: Option<i64>,
}

/// Whether a session is of the project `wanted` names: its folder, or the folder's last name.
pub fn project_named(row: &SessionRow, wanted: &str) -> bool {
    let project = row.project.trim_end_matches(['/', '\\']);
    project == wanted || project.rsplit(['/', '\\']).next() == Some(wanted)
}

impl Filters<'_> {
    /// Whether a session's hits may be kept, by its project and agent, and its times overlapping
    /// the days kept.
    fn keeps_session(&self, row: &SessionRow) -> bool {
        let project_kept = self.project.is_none_or(|wanted| project_named(row, wanted));
        let agent_kept = self.agent.is_none_or(|wanted| row.agent.eq_ignore_ascii_case(wanted));
        let (start, end) = (row.start_ms.or(row.end_ms), row.end_ms.or(row.start_ms));
        let days_kept = !self.has_days()
            || match (start, end) {
                (Some(start), Some(end)) => {
                    self.since_ms.is_none_or(|since| end >= since) && self.until_ms.is_none_or(|until| start < until)
                }
                _ => false,
            };
        project_kept && agent_kept && days_kept
    }

    /// Adds the flags' filters to a ranked query's: the agent and the days. The project is kept
    /// by its folder or the folder's last name ([`project_named`]), as the other searches keep
    /// it, not as `project:` (a part of the folder): the ranked search is given it apart.
    pub fn add_to(&self, parsed: &mut Parsed) {
        let mut add = |filter| parsed.filters.push(FilterClause { filter, negated: false });
        if let Some(agent) = self.agent {
            add(Filter::Agent(agent.to_lowercase()));
        }
        if let Some(since) = self.since_ms {
            add(Filter::After(since));
        }
        if let Some(until) = self.until_ms {
            add(Filter::Before(until));
        }
    }

    /// Whether any filter is set.
    fn any(&self) -> bool {
        self.project.is_some() || self.agent.is_some() || self.has_days()
    }

    fn has_days(&self) -> bool {
        self.since_ms.is_some() || self.until_ms.is_some()
    }

    /// Whether an entry of a given time (else its session's start) may be kept, by its day.
    fn keeps_time(&self, time_ms: Option<i64>) -> bool {
        if !self.has_days() {
            return true;
        }
        time_ms.is_some_and(|t| self.since_ms.is_none_or(|since| t >= since) && self.until_ms.is_none_or(|end| t < end))
    }
}

/// Searches `files` (on disk, with the names they are known by) as `args` asks: ranked by
/// words ([`crate::ranked`]), or every match of an exact text or a regular expression.
/// `store`: the history's cache, if the caller made it (to read it while it listed the files).
pub fn run(files: Vec<(PathBuf, String)>, args: &SearchArgs, marks: Option<&Marks>, store: Option<Store>) -> ExitCode {
    let mut parsed = if args.exact || args.regex {
        None
    } else {
        match Parsed::parse(&args.query, crate::now_ms()) {
            Ok(parsed) => Some(parsed),
            Err(why) => {
                eprintln!("sessionscope: {why}");
                return ExitCode::from(2);
            }
        }
    };
    // A query written /…/ is a regular expression.
    let pattern = parsed.as_mut().and_then(|parsed| parsed.regex.take());
    let (text, regex) = match &pattern {
        Some(pattern) => (pattern.as_str(), true),
        None => (args.query.as_str(), args.regex),
    };
    let filters = Filters {
        project: args.project.as_deref(),
        agent: args.agent.as_deref(),
        since_ms: args.since.map(|day| day.start_ms()),
        until_ms: args.until.map(|day| day.start_ms().saturating_add(86_400_000)),
    };
    let keep = if args.limit == 0 { usize::MAX } else { args.limit };
    let store = if args.no_cache { None } else { store.or_else(|| Store::of(&args.paths)) };
    // With a store, a unit not in it is read whole and remembered; without, a unit is read for
    // its rows only if it holds hits.
    let reading = if store.is_some() { Reading::Whole } else { Reading::Later };
    let mut live = Live::of_files(files, store, reading);
    live.refresh();
    // Units the store holds without their sets (the MCP server keeps a unit before it has
    // made its set) get them, to be remembered.
    if reading == Reading::Whole {
        live.fill(true, false);
    }
    let out = match parsed.filter(|_| pattern.is_none()) {
        Some(mut parsed) => {
            filters.add_to(&mut parsed);
            let ranked = crate::ranked::search(&live, &parsed, filters.project, args.sort, keep, marks, false);
            if args.json {
                serde_json::to_string_pretty(&PrintedRanked { query: &args.query, found: &ranked })
                    .map(|text| text + "\n")
            } else {
                Ok(crate::ranked::table(&ranked))
            }
        }
        None => {
            let query = match Query::with_case(text, regex, args.case_sensitive) {
                Ok(query) => query,
                Err(why) => {
                    eprintln!("sessionscope: {why}");
                    return ExitCode::from(2);
                }
            };
            let found = search(&live, &query, &filters, keep);
            if args.json {
                serde_json::to_string_pretty(&Printed { query: &args.query, found: &found }).map(|text| text + "\n")
            } else {
                Ok(table(&found))
            }
        }
    };
    let written = match out {
        Ok(out) => crate::write_stdout(out.as_bytes()),
        Err(error) => {
            eprintln!("sessionscope: {error}");
            ExitCode::from(1)
        }
    };
    // The history's memory goes back with the process: freeing its units one by one would cost
    // more than the search on a big history.
    std::mem::forget(live);
    written
}

/// What `--json` prints of a ranked search.
#[derive(Serialize)]
struct PrintedRanked<'a> {
    query: &'a str,
    #[serde(flatten)]
    found: &'a crate::ranked::Ranked,
}

/// Searches a history's units, newest activity first, until `keep` hits are found (on every
/// core: a unit is taken only while the hits found are fewer); the hits are the first `keep` in
/// that order.
pub fn search(live: &Live, query: &Query, filters: &Filters<'_>, keep: usize) -> Found {
    let mut order: Vec<&Unit> = live.units.iter().map(|unit| unit.as_ref()).collect();
    order.sort_by_key(|unit| std::cmp::Reverse(unit.last_ms()));
    let found_so_far = AtomicUsize::new(0);
    let units = parallel_map(&order, |unit| {
        if found_so_far.load(Ordering::Relaxed) >= keep {
            return None;
        }
        let found = search_unit(unit, query, filters, keep);
        found_so_far.fetch_add(found.hits.len(), Ordering::Relaxed);
        Some(found)
    });
    // Which units were taken beyond the one whose hits made enough depends on the threads'
    // timing: the answer keeps the units up to that one only (they are always searched), so that
    // it is the same from run to run.
    let mut hits = 0usize;
    let enough = units.iter().position(|unit| {
        hits = hits.saturating_add(unit.as_ref().map_or(0, |unit| unit.hits.len()));
        hits >= keep
    });
    let kept = enough.map_or(units.len(), |at| at + 1);
    let complete = kept == units.len() && units.iter().all(|unit| unit.as_ref().is_some_and(|unit| unit.complete));
    let units: Vec<UnitFound> = units.into_iter().take(kept).flatten().collect();
    Found {
        total: units.iter().map(|unit| unit.total).sum(),
        complete,
        sessions_searched: live.units.len(),
        sessions_read: units.iter().filter(|unit| unit.read).count(),
        hits: units.into_iter().flat_map(|unit| unit.hits).take(keep).collect(),
    }
}

/// What searching one unit found.
struct UnitFound {
    total: u64,
    /// Whether every match of the unit was counted.
    complete: bool,
    /// Whether its files were opened.
    read: bool,
    hits: Vec<FoundHit>,
}

impl UnitFound {
    fn none() -> UnitFound {
        UnitFound { total: 0, complete: true, read: false, hits: Vec::new() }
    }
}

/// Searches one unit for its first `keep` hits, in entry order. A unit whose trigram set cannot
/// hold a plain query, or none of whose sessions the filters keep, is not opened. Where the
/// filters keep only some of its sessions or days, every match is looked at and only those kept
/// are counted. A unit listed without its rows is searched first, and read for its rows only if
/// it holds hits (or the filters need them). A file that cannot be read is left out (`index`
/// lists it).
fn search_unit(unit: &Unit, query: &Query, filters: &Filters<'_>, keep: usize) -> UnitFound {
    if unit.set.as_ref().is_some_and(|set| !query.may_match_trigrams(set)) {
        return UnitFound::none();
    }
    if unit.rows_known {
        return search_rows(unit, &unit.rows, query, filters, keep);
    }
    if filters.any() {
        return search_rows(unit, &rows_of(unit), query, filters, keep);
    }
    let (hits, count, complete) = hits_of(unit, query, keep);
    if hits.is_empty() {
        return UnitFound { total: count, complete, read: true, hits: Vec::new() };
    }
    let rows = rows_of(unit);
    let by_id: HashMap<&str, &SessionRow> = rows.iter().map(|row| (row.session_id.as_str(), row)).collect();
    UnitFound { total: count, complete, read: true, hits: found_hits(hits, &by_id, rows.first(), None) }
}

/// The rows of a unit listed without them, its files read.
fn rows_of(unit: &Unit) -> Vec<SessionRow> {
    crate::index::read_unit(unit.files.iter(), &unit.folder, false, false).index.rows
}

/// Searches a unit whose rows are known.
fn search_rows(unit: &Unit, rows: &[SessionRow], query: &Query, filters: &Filters<'_>, keep: usize) -> UnitFound {
    let kept: HashMap<&str, &SessionRow> =
        rows.iter().filter(|row| filters.keeps_session(row)).map(|row| (row.session_id.as_str(), row)).collect();
    if kept.is_empty() {
        return UnitFound::none();
    }
    let partial = kept.len() < rows.len() || filters.has_days();
    let (hits, count, complete) = hits_of(unit, query, if partial { usize::MAX } else { keep });
    let mut found = UnitFound { total: count, complete, read: true, hits: Vec::new() };
    if partial {
        found.hits = found_hits(hits, &kept, None, Some(filters));
        found.total = found.hits.len() as u64;
        found.hits.truncate(keep);
    } else {
        found.hits = found_hits(hits, &kept, rows.first(), None);
    }
    found
}

/// A unit's first `keep` hits (its files searched as the page's workers search them), the matches
/// counted, and whether the count is complete.
fn hits_of(unit: &Unit, query: &Query, keep: usize) -> (Vec<HistoryHit>, u64, bool) {
    let mut search = UnitSearch::new(query, keep);
    for (path, name) in &unit.files {
        if search.is_full() {
            search.skip_rest();
            break;
        }
        if let Ok(bytes) = crate::read_source(path, name) {
            search.add_file(name, &bytes);
        }
    }
    search.finish()
}

/// The hits with their sessions' rows. A hit whose session the rows do not name (its lines alone
/// made another) goes with `fallback`, or is left out without one; with `filters`, a hit of
/// another day is left out too.
fn found_hits(
    hits: Vec<HistoryHit>,
    rows: &HashMap<&str, &SessionRow>,
    fallback: Option<&SessionRow>,
    filters: Option<&Filters<'_>>,
) -> Vec<FoundHit> {
    let mut found = Vec::new();
    for hit in hits {
        let Some(row) = rows.get(hit.session_id.as_str()).copied().or(fallback) else { continue };
        if filters.is_some_and(|filters| !filters.keeps_time(hit.time_ms.or(row.start_ms))) {
            continue;
        }
        found.push(FoundHit {
            session_id: row.session_id.clone(),
            project: row.project.clone(),
            agent: row.agent.clone(),
            title: row.title.clone(),
            entry_uuid: hit.uuid,
            role: hit.role,
            time_ms: hit.time_ms,
            snippet: hit.context,
            source: hit.source,
        });
    }
    found
}

/// The hits as text: for each, a line with its entry's time and role, its session's project,
/// title and id, then the text around the match; then the count.
fn table(found: &Found) -> String {
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
    let (more, stopped) = if found.complete {
        ("", String::new())
    } else {
        ("+", "; stopped once the hits were enough (--limit=0 counts every match)".to_owned())
    };
    let _ = writeln!(
        out,
        "{}{more} {} in {} sessions searched{shown}{stopped}",
        found.total,
        if found.total == 1 && found.complete { "match" } else { "matches" },
        found.sessions_searched
    );
    out
}
