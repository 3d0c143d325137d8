//! The ranked word search of a whole history (issue 52), for `sessionscope search`, MCP `search`
//! and the page's history worker: one algorithm over units that each caller keeps its own way
//! (files on disk, or the browser's `File`s), through [`RankUnit`], and runs on its own threads
//! (or none), through [`Mapper`].
//!
//! Every unit that may hold each of the query's clauses is counted, its sessions that hold them
//! all scored with BM25F ([`crate::rank`]), and the sessions listed best first (or newest first),
//! each with its best snippets. A unit whose trigram set lacks every term of a clause, or none of
//! whose rows passes the filters rows answer, is not opened. Where the query is words and filters
//! a unit's word index answers ([`word_index::answers`]), the unit is counted from its index,
//! unread, and only the sessions shown are read again, one line per clause, for their snippets.
//!
//! The collection's statistics (sessions, and those holding each clause) count the units read:
//! a unit left unread holds none of some clause, so it counts for the sessions only.

use serde::{Deserialize, Serialize};

use crate::dag::{Graph, SessionId};
use crate::history::SessionRow;
use crate::model::Corpus;
use crate::query::{Parsed, Term};
use crate::rank::{Collection, SessionStats, Snippet, Zone, best_snippets, line_snippet, unit_stats};
use crate::search::{HitSource, Query};
use crate::trigrams::TrigramSet;
use crate::word_index::{self, UnitWords, WordPlace, indexed_stats};

/// Snippets kept for a session.
pub const SNIPPETS: usize = 3;

/// `Sync` where threads exist: the command line counts units on every core; a browser's worker
/// (wasm32) has one thread, and its units hold the browser's files, which are not `Sync`.
#[cfg(not(target_arch = "wasm32"))]
pub trait MaybeSync: Sync {}
#[cfg(not(target_arch = "wasm32"))]
impl<T: Sync> MaybeSync for T {}
/// `Sync` where threads exist (see the native definition).
#[cfg(target_arch = "wasm32")]
pub trait MaybeSync {}
#[cfg(target_arch = "wasm32")]
impl<T> MaybeSync for T {}

/// `Send` where threads exist (see [`MaybeSync`]).
#[cfg(not(target_arch = "wasm32"))]
pub trait MaybeSend: Send {}
#[cfg(not(target_arch = "wasm32"))]
impl<T: Send> MaybeSend for T {}
/// `Send` where threads exist (see [`MaybeSync`]).
#[cfg(target_arch = "wasm32")]
pub trait MaybeSend {}
#[cfg(target_arch = "wasm32")]
impl<T> MaybeSend for T {}

/// Runs a step of the search over many items: on every core, or one after another.
pub trait Mapper {
    /// `map` of each item, answered in the items' order.
    fn map<I: MaybeSync, T: MaybeSend>(&self, items: &[I], map: impl Fn(&I) -> T + MaybeSync) -> Vec<T>;
}

/// The items one after another, on the caller's thread.
pub struct InOrder;

impl Mapper for InOrder {
    fn map<I: MaybeSync, T: MaybeSend>(&self, items: &[I], map: impl Fn(&I) -> T + MaybeSync) -> Vec<T> {
        items.iter().map(map).collect()
    }
}

/// A unit of a history as the search sees it: a session with its agents' files.
pub trait RankUnit: MaybeSync {
    /// Its rows, if they are known without reading it.
    fn rows(&self) -> Option<&[SessionRow]>;
    /// The project folder its rows are of.
    fn folder(&self) -> &str;
    /// Its word index, if it has one made of its files as they are.
    fn words(&self) -> Option<&UnitWords>;
    /// Its trigram set, if it has one made of its files as they are.
    fn trigrams(&self) -> Option<&TrigramSet>;
    /// Its files read into one model (the files that cannot be read left out).
    fn read(&self) -> (Corpus, Graph);
    /// The place among its files of the file named `name` (as the word index names it).
    fn file_order(&self, name: &str) -> Option<usize>;
    /// The line of the file named `name` that starts at byte `start`, with its end of line.
    fn line(&self, name: &str, start: u64) -> Option<Vec<u8>>;
}

/// How the sessions found are ordered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(not(target_arch = "wasm32"), derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum Sort {
    /// Best score first; the newer first of two that score the same.
    #[default]
    Score,
    /// Newest activity first.
    Time,
}

/// What a ranked search found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Ranked {
    /// The sessions that hold every clause and pass every filter.
    pub total: usize,
    /// The history's session units (a session with its agents' files, as `index` groups them).
    pub sessions_searched: usize,
    /// The units whose files were opened.
    pub units_read: usize,
    pub results: Vec<RankedSession>,
}

/// A session found, with its place in the order and its score.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RankedSession {
    pub rank: usize,
    pub score: f64,
    pub session_id: String,
    pub project: String,
    pub agent: String,
    pub title: String,
    pub last_ms: Option<i64>,
    /// Its unit's place in the history.
    #[serde(skip_serializing)]
    #[serde(default)]
    pub unit: usize,
    pub snippets: Vec<RankedSnippet>,
}

/// A place in a session where the query's words are.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RankedSnippet {
    /// The entry's uuid (empty for the session's title).
    pub entry_uuid: String,
    /// Where the words are: `title`, `prompt`, `answer` or `tool`.
    pub zone: Zone,
    pub snippet: String,
    /// Where the words are in `snippet` (chars).
    pub match_start: u32,
    pub match_len: u32,
    /// The whole text the snippet was cut from, with `sources` ([`search`]): the MCP server
    /// redacts it before it cuts its own.
    #[serde(skip)]
    pub source: Option<HitSource>,
}

/// One unit's part of the answer: the clauses each of its sessions that passes the filters
/// holds, and those found.
struct UnitRanked {
    read: bool,
    holding: Vec<Vec<bool>>,
    found: Vec<Found>,
}

/// A session found: its counts and row, its unit (by its place in the history), and its
/// snippets, if its unit was read (one counted from its word index has none yet).
struct Found {
    stats: SessionStats,
    row: SessionRow,
    unit: usize,
    /// Its place among its unit's word index's sessions, if counted from it.
    indexed: Option<usize>,
    snippets: Option<Vec<RankedSnippet>>,
}

/// Searches `units` for `parsed` (whose `regex` is not set), keeping `keep` sessions in `sort`'s
/// order; with `sources`, each snippet keeps the whole text it was cut from. `passes` says which
/// sessions the filters that rows answer keep ([`crate::rank::row_passes`], with the person's
/// marks and any other filter of the caller's).
pub fn search<U: RankUnit>(
    units: &[U],
    parsed: &Parsed,
    passes: &(impl Fn(&SessionRow) -> bool + MaybeSync),
    sort: Sort,
    keep: usize,
    sources: bool,
    mapper: &impl Mapper,
) -> Ranked {
    let clause_probes = probes(parsed);
    let by_index = word_index::answers(parsed);
    let numbered: Vec<(usize, &U)> = units.iter().enumerate().collect();
    let ranked: Vec<UnitRanked> = mapper.map(&numbered, |&(at, unit)| {
        // A unit whose word index answers the query is counted from it, unread.
        if by_index && let (Some(rows), Some(words)) = (unit.rows(), unit.words()) {
            return rank_indexed(at, rows, words, parsed, passes);
        }
        // A unit whose set holds no clause counts its sessions that pass the filters, unread.
        if let (Some(rows), Some(set)) = (unit.rows(), unit.trigrams())
            && !clause_probes.is_empty()
            && !clause_probes.iter().any(|probes| may_hold(probes, set))
        {
            let passing = rows.iter().filter(|row| passes(row)).count();
            return UnitRanked { read: false, holding: vec![Vec::new(); passing], found: Vec::new() };
        }
        rank_unit(at, unit, parsed, passes, sources)
    });
    let mut collection = Collection::default();
    let mut units_read = 0;
    let mut found = Vec::new();
    for unit in ranked {
        units_read += usize::from(unit.read);
        for holding in &unit.holding {
            collection.count(holding);
        }
        found.extend(unit.found);
    }
    for found in &found {
        collection.count_found(&found.stats);
    }
    let mut scored: Vec<(f64, Found)> =
        found.into_iter().map(|found| (collection.score(&found.stats), found)).collect();
    let newest = |found: &Found| found.row.end_ms.or(found.row.start_ms).unwrap_or(i64::MIN);
    scored.sort_by(|a, b| {
        let by_score = b.0.total_cmp(&a.0);
        let by_time = newest(&b.1).cmp(&newest(&a.1));
        let by_id = a.1.row.session_id.cmp(&b.1.row.session_id);
        match sort {
            Sort::Score => by_score.then(by_time).then(by_id),
            Sort::Time => by_time.then(by_score).then(by_id),
        }
    });
    let total = scored.len();
    scored.truncate(keep);
    // The sessions shown that were counted from their word index: each clause's snippet is read
    // from the one line its index names; a session whose lines, read alone, do not give them
    // (another format) has its unit read.
    let from_lines: Vec<Option<Vec<RankedSnippet>>> = mapper.map(&scored, |(_, found)| match found.indexed {
        Some(session) if found.snippets.is_none() => line_snippets(&units[found.unit], session, parsed, sources),
        _ => None,
    });
    for ((_, found), snippets) in scored.iter_mut().zip(from_lines) {
        if found.snippets.is_none() {
            found.snippets = snippets;
        }
    }
    let mut to_read: Vec<usize> =
        scored.iter().filter(|(_, found)| found.snippets.is_none()).map(|(_, f)| f.unit).collect();
    to_read.sort_unstable();
    to_read.dedup();
    let read: Vec<UnitRanked> = mapper.map(&to_read, |&at| rank_unit(at, &units[at], parsed, passes, sources));
    units_read += read.len();
    let mut snippets_of: std::collections::HashMap<(usize, String), Vec<RankedSnippet>> =
        std::collections::HashMap::new();
    for found in read.into_iter().flat_map(|unit| unit.found) {
        snippets_of.insert((found.unit, found.row.session_id), found.snippets.unwrap_or_default());
    }
    let results = scored
        .into_iter()
        .enumerate()
        .map(|(at, (score, Found { row, unit, snippets, .. }))| RankedSession {
            rank: at + 1,
            // `+ 0.0` makes a filter-only query's -0.0 a plain 0.
            score: (score * 1000.0).round() / 1000.0 + 0.0,
            last_ms: row.end_ms.or(row.start_ms),
            snippets: snippets.or_else(|| snippets_of.remove(&(unit, row.session_id.clone()))).unwrap_or_default(),
            unit,
            session_id: row.session_id,
            project: row.project,
            agent: row.agent,
            title: row.title,
        })
        .collect();
    Ranked { total, sessions_searched: units.len(), units_read, results }
}

/// Each clause's snippet for session `session` of `unit`'s word index, read from the line of a
/// message the index names for the clause's word in its best zone; `None` when a line, read alone,
/// does not give it.
fn line_snippets(unit: &impl RankUnit, session: usize, parsed: &Parsed, sources: bool) -> Option<Vec<RankedSnippet>> {
    let words = unit.words()?;
    let sessions = words.sessions();
    let session = sessions.get(session)?;
    let mut per_clause = Vec::new();
    for clause in &parsed.clauses {
        if clause.negated {
            per_clause.push(None);
            continue;
        }
        let mut best: Option<(WordPlace<'_>, &str, (usize, usize, u64))> = None;
        for term in &clause.any_of {
            let Term::Word(word) = term else { return None };
            let Some(place) = session.place(word) else { continue };
            let key = (place.zone.index(), unit.file_order(place.file)?, place.line_start);
            if best.as_ref().is_none_or(|(_, _, best)| key < *best) {
                best = Some((place, word, key));
            }
        }
        let Some((place, word, _)) = best else {
            per_clause.push(None);
            continue;
        };
        let line = unit.line(place.file, place.line_start)?;
        per_clause.push(Some(line_snippet(place.file, line, word, place.zone, sources)?));
    }
    Some(best_snippets(per_clause, SNIPPETS).into_iter().map(|(uuid, snippet)| ranked_snippet(uuid, snippet)).collect())
}

/// A snippet as the search gives it, of the message whose uuid is `entry_uuid`.
fn ranked_snippet(entry_uuid: String, snippet: Snippet) -> RankedSnippet {
    RankedSnippet {
        entry_uuid,
        zone: snippet.zone,
        snippet: snippet.context,
        match_start: snippet.match_start,
        match_len: snippet.match_len,
        source: snippet.source,
    }
}

/// Counts one unit's sessions that pass the filters from its word index, without reading it;
/// keeps those found, without snippets.
fn rank_indexed(
    at: usize,
    rows: &[SessionRow],
    words: &UnitWords,
    parsed: &Parsed,
    passes: &impl Fn(&SessionRow) -> bool,
) -> UnitRanked {
    let mut holding = Vec::new();
    let mut found = Vec::new();
    for (index, session) in words.sessions().iter().enumerate() {
        let Some(row) = rows.iter().find(|row| row.session_id == session.session_id) else { continue };
        if !passes(row) {
            continue;
        }
        let (holds, matched) = indexed_stats(session, SessionId::new(index), parsed);
        holding.push(holds);
        if let Some(stats) = matched {
            found.push(Found { stats, row: row.clone(), unit: at, indexed: Some(index), snippets: None });
        }
    }
    UnitRanked { read: false, holding, found }
}

/// Reads one unit and counts its sessions that pass the filters; keeps those found.
fn rank_unit(
    at: usize,
    unit: &impl RankUnit,
    parsed: &Parsed,
    passes: &impl Fn(&SessionRow) -> bool,
    sources: bool,
) -> UnitRanked {
    let (corpus, graph) = unit.read();
    let rows = crate::history::index_unit(&corpus, &graph, unit.folder()).rows;
    let stats = unit_stats(&corpus, &graph, parsed, SNIPPETS, sources);
    let passing: Vec<Option<&SessionRow>> = graph
        .sessions
        .iter()
        .map(|session| rows.iter().find(|row| row.session_id == session.id).filter(|row| passes(row)))
        .collect();
    let holding = stats
        .holding
        .iter()
        .zip(&passing)
        .filter(|(_, row)| row.is_some())
        .map(|(holding, _)| holding.clone())
        .collect();
    let mut found = Vec::new();
    for session in &stats.matched {
        let Some(Some(row)) = passing.get(session.session.index()) else { continue };
        let snippets = session
            .snippets
            .iter()
            .map(|snippet| {
                let uuid =
                    corpus.entries.get(snippet.entry.index()).map(|entry| corpus.span_str(entry.file, entry.uuid));
                ranked_snippet(uuid.unwrap_or_default().to_owned(), snippet.clone())
            })
            .collect();
        found.push(Found {
            stats: session.clone(),
            row: (*row).clone(),
            unit: at,
            indexed: None,
            snippets: Some(snippets),
        });
    }
    UnitRanked { read: true, holding, found }
}

/// For each clause the query looks for (not negated), a plain query of each of its terms'
/// words: a unit's trigram set may hold the clause if it may hold every word of one term.
fn probes(parsed: &Parsed) -> Vec<Vec<Vec<Query>>> {
    let plain = |word: &str| Query::new(word, false).ok();
    parsed
        .clauses
        .iter()
        .filter(|clause| !clause.negated)
        .map(|clause| {
            clause
                .any_of
                .iter()
                .map(|term| match term {
                    Term::Word(word) | Term::Prefix(word) => plain(word).into_iter().collect(),
                    Term::Phrase(words) => words.iter().filter_map(|word| plain(word)).collect(),
                })
                .collect()
        })
        .collect()
}

/// Whether `set` may hold one of a clause's terms (every word of it).
fn may_hold(terms: &[Vec<Query>], set: &TrigramSet) -> bool {
    terms.iter().any(|words| words.iter().all(|word| word.may_match_trigrams(set)))
}
