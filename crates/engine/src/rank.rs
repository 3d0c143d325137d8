//! Ranked word search of sessions (issue 52): a [`crate::query::Parsed`] query's clauses
//! matched anywhere in a session, in any order, and the sessions that hold them all scored with
//! BM25F. A session's words fall in zones weighted as people look for a session: its title and
//! first prompt above the person's other prompts, those above the agent's answers, and those
//! above tool inputs and results ([`Zone`]).
//!
//! Scoring is in two steps, so a history is scored unit by unit, each unit parsed once and let
//! go: [`unit_stats`] counts, for one parsed unit, each matching session's term frequencies and
//! zone lengths, and what the collection's statistics need (sessions, those holding each clause,
//! zone lengths); [`Collection`] sums those of every unit, and [`Collection::score`] scores a
//! session against the sums. Filters that a history row answers (agent, project, model, times,
//! failed calls) are checked on the row ([`row_passes`]); `tool:`, `file:` and `role:` on the
//! model, here.

use crate::dag::{Graph, SessionId};
use crate::history::SessionRow;
use crate::model::{Corpus, EntryId, EntryKind};
use crate::query::{Filter, Flag, Parsed, Role, Term, word_spans, words};
use std::sync::Arc;

use crate::search::{Field, HitSource, Written, each_decoded_text, each_written_text, snippet};

/// Where in a session words are, for their weight.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Zone {
    /// The session's title and its first prompt.
    Title,
    /// The person's other prompts.
    Prompt,
    /// The agent's answers and thinking.
    Answer,
    /// Tool names, inputs and results.
    Tool,
}

/// How many zones there are.
pub const ZONES: usize = 4;

impl Zone {
    /// Its place in a session's counts per zone.
    pub fn index(self) -> usize {
        self as usize
    }

    /// Its name, as search results give it.
    pub fn name(self) -> &'static str {
        match self {
            Zone::Title => "title",
            Zone::Prompt => "prompt",
            Zone::Answer => "answer",
            Zone::Tool => "tool",
        }
    }

    /// Whether a word made only of digits counts in the zone. In tool inputs and outputs numbers
    /// are line numbers, sizes, times and counts: noise to a ranked search (every file read
    /// numbers its lines), and the most of the distinct words a word index would keep. A person
    /// who remembers a number finds it in what was said (titles, prompts, answers), or in
    /// everything with an exact search.
    pub fn counts_numbers(self) -> bool {
        self != Zone::Tool
    }

    /// The zone's weight in BM25F.
    fn weight(self) -> f64 {
        match self {
            Zone::Title => 4.0,
            Zone::Prompt => 2.0,
            Zone::Answer => 1.0,
            Zone::Tool => 0.5,
        }
    }

    fn of(kind: EntryKind, field: Field, first_prompt: bool) -> Zone {
        match field {
            Field::ToolInput | Field::ToolResult | Field::ToolName => Zone::Tool,
            _ if first_prompt => Zone::Title,
            _ if kind == EntryKind::User => Zone::Prompt,
            _ => Zone::Answer,
        }
    }

    /// Whether `role:` lets a clause be matched in this zone.
    pub(crate) fn has_role(self, role: Role) -> bool {
        match role {
            Role::User => matches!(self, Zone::Title | Zone::Prompt),
            Role::Assistant => self == Zone::Answer,
            Role::Tool => self == Zone::Tool,
        }
    }
}

/// BM25's saturation and length normalisation.
const K1: f64 = 1.2;
const B: f64 = 0.75;

/// A place in a session where a clause of the query is found, with the text around it.
#[derive(Clone, Debug, PartialEq)]
pub struct Snippet {
    /// The entry (`EntryId::NONE` for the session's title).
    pub entry: EntryId,
    pub zone: Zone,
    pub context: String,
    /// Where the found words are in `context` (chars).
    pub match_start: u32,
    pub match_len: u32,
    /// The whole text it was cut from, when asked for ([`unit_stats`]'s `sources`): an output
    /// that redacts redacts it whole, then cuts its own context.
    pub source: Option<HitSource>,
}

/// A session of a unit that holds every clause, and its counts.
#[derive(Clone, Debug)]
pub struct SessionStats {
    pub session: SessionId,
    /// For each clause of the query, its terms' occurrences in each zone (negated clauses count
    /// nothing).
    pub frequencies: Vec<[u32; ZONES]>,
    /// Words in each zone.
    pub lengths: [u32; ZONES],
    /// Where the clauses were found, best zones first, at most the number asked for.
    pub snippets: Vec<Snippet>,
}

/// What one unit gives the collection's statistics, and its matching sessions.
#[derive(Clone, Debug, Default)]
pub struct UnitStats {
    /// For each session of the unit (by its index in the graph), which clauses it holds.
    pub holding: Vec<Vec<bool>>,
    pub matched: Vec<SessionStats>,
}

/// Counts the sessions of one parsed unit for `parsed`, keeping at most `snippets` snippets a
/// session (each with the whole text it was cut from, with `sources`). Of its filters, `tool:`,
/// `file:` and `role:` are checked here.
pub fn unit_stats(corpus: &Corpus, graph: &Graph, parsed: &Parsed, snippets: usize, sources: bool) -> UnitStats {
    let clauses = parsed.clauses.len();
    let roles = roles_of(parsed);
    let mut per_session: Vec<Counting> = (0..graph.sessions.len()).map(|_| Counting::new(clauses, sources)).collect();
    each_zoned_text(corpus, graph, |at, zone, entry, field, text| {
        let Some(counting) = per_session.get_mut(at) else { return };
        let text = &*text.decoded();
        if field == Some(Field::ToolName) {
            counting.tools.push(text.to_owned());
        }
        if field == Some(Field::ToolInput) {
            counting.inputs_with_paths(text, &parsed.filters);
        }
        counting.add(parsed, &roles, zone, entry, place_of(corpus, entry), text);
    });
    let mut stats = UnitStats::default();
    for (at, counting) in per_session.into_iter().enumerate() {
        let holds_all = parsed.holds(&counting.found);
        let passes = holds_all && counting.passes_model_filters(parsed);
        stats.holding.push(counting.found);
        if passes {
            let per_clause = counting.best.into_iter().map(|best| best.map(|(_, snippet)| (snippet.entry, snippet)));
            let snippets = best_snippets(per_clause, snippets).into_iter().map(|(_, snippet)| snippet).collect();
            stats.matched.push(SessionStats {
                session: SessionId::new(at),
                frequencies: counting.frequencies,
                lengths: counting.lengths,
                snippets,
            });
        }
    }
    stats
}

/// The roles `role:` filters ask for (none: every zone).
pub(crate) fn roles_of(parsed: &Parsed) -> Vec<Role> {
    parsed
        .filters
        .iter()
        .filter(|f| !f.negated)
        .filter_map(|f| match f.filter {
            Filter::Role(role) => Some(role),
            _ => None,
        })
        .collect()
}

/// Calls `each(session, zone, entry, field, text)` for every text of a unit's sessions, as ranked
/// search weighs them: each session's title first (`EntryId::NONE`, no field), then each entry's
/// texts as written ([`each_written_text`]) with the zone of its kind and field. `session` is the
/// session's index in the graph. The one walk both [`unit_stats`] and the word index
/// ([`crate::word_index`]) count, so that both count the same words in the same zones.
pub fn each_zoned_text(
    corpus: &Corpus,
    graph: &Graph,
    mut each: impl FnMut(usize, Zone, EntryId, Option<Field>, Written<'_>),
) {
    for (at, session) in graph.sessions.iter().enumerate() {
        each(at, Zone::Title, EntryId::NONE, None, Written::Plain(&session.title));
    }
    for (e, entry) in corpus.entries.iter().enumerate() {
        let id = EntryId::new(e);
        let Some(at) = graph.conversation_of(id).map(|c| c.session.index()) else { continue };
        let first_prompt = graph.sessions.get(at).is_some_and(|session| session.first_prompt == id);
        each_written_text(corpus, entry, |field, text| {
            each(at, Zone::of(entry.kind, field, first_prompt), id, Some(field), text);
        });
    }
}

/// Where a message's line is: its file (by its place in the unit) and the line's first byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place {
    pub file: u32,
    pub line_start: u32,
}

/// Where `entry`'s line is, if it is a line of a file as read (not of a file the loader made, nor
/// a later part of one), and `entry` is a message (not a session's title).
pub fn place_of(corpus: &Corpus, entry: EntryId) -> Option<Place> {
    let line = corpus.entries.get(entry.index())?;
    let file = corpus.files.get(line.file as usize)?;
    if file.is_derived() || file.is_part() || line.line_span.is_arena() {
        return None;
    }
    Some(Place { file: line.file, line_start: line.line_span.start })
}

/// A session's snippets from each clause's best (in the clauses' order, `None` for a clause
/// without one), each with its message (`entry`, by which two are the same): one a text, at most
/// `keep`, best zones first.
pub fn best_snippets<K: PartialEq>(
    per_clause: impl IntoIterator<Item = Option<(K, Snippet)>>,
    keep: usize,
) -> Vec<(K, Snippet)> {
    let mut snippets: Vec<(K, Snippet)> = Vec::new();
    for (entry, snippet) in per_clause.into_iter().flatten() {
        if snippets.len() >= keep {
            break;
        }
        if !snippets.iter().any(|(kept, kept_snippet)| *kept == entry && kept_snippet.context == snippet.context) {
            snippets.push((entry, snippet));
        }
    }
    snippets.sort_by_key(|(_, snippet)| snippet.zone.index());
    snippets
}

/// The snippet of `word` in one line of a log (`line`, of the file named `name`), read alone: the
/// first text of its first message that holds the word in `zone` (a first prompt's zone is the
/// title's), with the message's uuid. `None` when the line, read alone, holds no such text (a
/// format whose lines need the lines before them): the caller then reads the whole unit.
pub fn line_snippet(name: &str, line: Vec<u8>, word: &str, zone: Zone, source: bool) -> Option<(String, Snippet)> {
    let mut loader = crate::Loader::new();
    loader.add_vec(name, line);
    let corpus = loader.finish();
    for (e, entry) in corpus.entries.iter().enumerate() {
        let mut found = None;
        each_decoded_text(&corpus, entry, |field, text| {
            let here = Zone::of(entry.kind, field, zone == Zone::Title && entry.kind == EntryKind::User);
            if found.is_some() || here != zone {
                return;
            }
            if let Some(at) = words(text).position(|w| w == word) {
                found = Some(snippet_of(text, EntryId::new(e), zone, at, 1, source));
            }
        });
        if let Some(snippet) = found {
            return Some((corpus.span_str(entry.file, entry.uuid).to_owned(), snippet));
        }
    }
    None
}

/// A clause's snippet, with where its text is (zone, file, line start): the first is kept.
type ClauseSnippet = ((usize, u32, u32), Snippet);

/// One session's counts while its texts are read.
struct Counting {
    found: Vec<bool>,
    frequencies: Vec<[u32; ZONES]>,
    lengths: [u32; ZONES],
    /// For each clause, its snippet so far.
    best: Vec<Option<ClauseSnippet>>,
    tools: Vec<String>,
    /// For each `file:` filter, in order, whether a tool input names it.
    paths: Vec<bool>,
    /// Whether snippets keep their whole texts.
    sources: bool,
}

impl Counting {
    fn new(clauses: usize, sources: bool) -> Counting {
        Counting {
            found: vec![false; clauses],
            frequencies: vec![[0; ZONES]; clauses],
            lengths: [0; ZONES],
            best: vec![None; clauses],
            tools: Vec::new(),
            paths: Vec::new(),
            sources,
        }
    }

    fn add(&mut self, parsed: &Parsed, roles: &[Role], zone: Zone, entry: EntryId, place: Option<Place>, text: &str) {
        let words: Vec<String> = words(text).collect();
        self.lengths[zone.index()] += words.len() as u32;
        if !roles.is_empty() && !roles.iter().any(|&role| zone.has_role(role)) {
            return;
        }
        for (c, clause) in parsed.clauses.iter().enumerate() {
            let mut first: Option<(usize, usize)> = None;
            let mut count = 0u32;
            for term in &clause.any_of {
                if !zone.counts_numbers() && matches!(term, Term::Word(word) if is_number(word)) {
                    continue;
                }
                let (n, at) = occurrences(term, &words);
                count += n;
                first = first.or(at);
            }
            if count == 0 {
                continue;
            }
            self.found[c] = true;
            if clause.negated {
                continue;
            }
            self.frequencies[c][zone.index()] += count;
            // A clause's snippet is its first text in its best zone (a message's, not the title).
            let Some(place) = place else { continue };
            let key = (zone.index(), place.file, place.line_start);
            if let Some((at, len)) = first
                && self.best[c].as_ref().is_none_or(|(best, _)| key < *best)
            {
                self.best[c] = Some((key, snippet_of(text, entry, zone, at, len, self.sources)));
            }
        }
    }

    fn inputs_with_paths(&mut self, input: &str, filters: &[crate::query::FilterClause]) {
        let files = filters.iter().filter_map(|f| match &f.filter {
            Filter::File(path) => Some(path),
            _ => None,
        });
        for (at, path) in files.enumerate() {
            if self.paths.len() <= at {
                self.paths.push(false);
            }
            self.paths[at] |= input.contains(path.as_str());
        }
    }

    /// Whether the session passes the filters the model answers (`tool:`, `file:`).
    fn passes_model_filters(&self, parsed: &Parsed) -> bool {
        let mut file_at = 0;
        parsed.filters.iter().all(|clause| {
            let holds = match &clause.filter {
                Filter::Tool(tool) => self.tools.iter().any(|name| name.eq_ignore_ascii_case(tool)),
                Filter::File(_) => {
                    let holds = self.paths.get(file_at).copied().unwrap_or(false);
                    file_at += 1;
                    holds
                }
                _ => return true,
            };
            holds != clause.negated
        })
    }
}

/// Whether `word` is made only of ASCII digits (a number, as [`Zone::counts_numbers`] means it).
pub fn is_number(word: impl AsRef<[u8]>) -> bool {
    let word = word.as_ref();
    !word.is_empty() && word.iter().all(u8::is_ascii_digit)
}

/// How many times `term` is in `words`, and where it is first (word index, words covered).
fn occurrences(term: &Term, words: &[String]) -> (u32, Option<(usize, usize)>) {
    let mut count = 0;
    let mut first = None;
    let mut from = 0;
    while let Some((at, len)) = words.get(from..).and_then(|rest| term.find(rest)) {
        count += 1;
        first = first.or(Some((from + at, len)));
        from += at + len.max(1);
    }
    (count, first)
}

/// The text around words `at..at + len` of `text` (as [`words`] cuts it), and the whole text
/// with `source`.
fn snippet_of(text: &str, entry: EntryId, zone: Zone, at: usize, len: usize, source: bool) -> Snippet {
    let spans: Vec<(usize, usize)> = word_spans(text).skip(at).take(len.max(1)).collect();
    let start = spans.first().map_or(0, |&(start, _)| start);
    let end = spans.last().map_or(start, |&(_, end)| end);
    let (context, match_start, match_len) = snippet(text, start, end);
    let source = source.then(|| HitSource { text: Arc::from(text), start, end });
    Snippet { entry, zone, context, match_start, match_len, source }
}

/// What scores are measured against: the sessions searched, those holding each clause, and the
/// zone lengths of the sessions found. Every session of the history that passes the filters
/// counts ([`Collection::count`]), whether its unit was read or ruled out (holding no clause), so
/// that a score is the same whichever units an index let the search skip; the average lengths
/// are those of the sessions found, which every search reads.
#[derive(Clone, Debug, Default)]
pub struct Collection {
    pub sessions: u64,
    pub holding: Vec<u64>,
    pub lengths: [u64; ZONES],
    pub found: u64,
}

impl Collection {
    /// Counts a session searched, with the clauses it holds (none, for one ruled out unread).
    pub fn count(&mut self, holding: &[bool]) {
        self.sessions += 1;
        if self.holding.len() < holding.len() {
            self.holding.resize(holding.len(), 0);
        }
        for (sum, holds) in self.holding.iter_mut().zip(holding) {
            *sum += u64::from(*holds);
        }
    }

    /// Counts a session found, for the average lengths.
    pub fn count_found(&mut self, session: &SessionStats) {
        self.found += 1;
        for (sum, n) in self.lengths.iter_mut().zip(&session.lengths) {
            *sum += u64::from(*n);
        }
    }

    /// BM25F: for each clause, its inverse document frequency times its weighted, length
    /// normalised frequency, saturated. A zone's frequency counts as `ln(1 + tf)`: a word a tool's
    /// output says ninety times outweighs it once in a title otherwise (`tests/relevance.rs`,
    /// `bank csv`; on a generated 1 GB history, 50 queries of 1 to 4 words of a first prompt found a
    /// session of that prompt first 15 times against 5, in the top 3 22 times against 9).
    pub fn score(&self, session: &SessionStats) -> f64 {
        let n = self.sessions.max(1) as f64;
        let found = self.found.max(1) as f64;
        let zones = [Zone::Title, Zone::Prompt, Zone::Answer, Zone::Tool];
        session
            .frequencies
            .iter()
            .enumerate()
            .map(|(clause, frequencies)| {
                let holding = self.holding.get(clause).copied().unwrap_or(0) as f64;
                let idf = ((n - holding + 0.5) / (holding + 0.5) + 1.0).ln();
                let weighted: f64 = zones
                    .iter()
                    .map(|&zone| {
                        let z = zone.index();
                        let average = (self.lengths[z] as f64 / found).max(1.0);
                        let norm = 1.0 - B + B * f64::from(session.lengths[z]) / average;
                        zone.weight() * f64::from(frequencies[z]).ln_1p() / norm
                    })
                    .sum();
                idf * weighted / (K1 + weighted)
            })
            .sum()
    }
}

/// Whether a history row passes the query's filters that rows answer: `agent:` (the start of
/// its name, any case), `project:` (a part of its folder), `model:` (a part of a model's name),
/// `after:` (active at or after), `before:` (started before) and `is:failed`. `is:starred` and
/// `tag:` are the person's marks, which `marked` answers.
pub fn row_passes(parsed: &Parsed, row: &SessionRow, marked: impl Fn(&Filter) -> bool) -> bool {
    parsed.filters.iter().all(|clause| {
        let holds = match &clause.filter {
            Filter::Agent(agent) => {
                let name = row.agent.to_lowercase();
                name.starts_with(agent.as_str()) || name.replace(' ', "").starts_with(agent.as_str())
            }
            Filter::Project(project) => row.project.to_lowercase().contains(&project.to_lowercase()),
            Filter::Model(model) => row.models.iter().any(|m| m.to_lowercase().contains(model.as_str())),
            Filter::After(ms) => row.end_ms.or(row.start_ms).is_some_and(|end| end >= *ms),
            Filter::Before(ms) => row.start_ms.is_some_and(|start| start < *ms),
            Filter::Is(Flag::Failed) => row.failed_tool_calls > 0,
            Filter::Is(Flag::Starred) | Filter::Tag(_) => marked(&clause.filter),
            Filter::Tool(_) | Filter::File(_) | Filter::Role(_) => return true,
        };
        holds != clause.negated
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: i64 = 86_400_000;

    fn row() -> SessionRow {
        SessionRow {
            agent: "Claude Code".into(),
            project: "/home/dev/shop-api".into(),
            models: vec!["claude-opus-4-5-20251101".into()],
            start_ms: Some(20_000 * DAY),
            end_ms: Some(20_002 * DAY),
            failed_tool_calls: 2,
            ..SessionRow::default()
        }
    }

    fn passes(query: &str) -> bool {
        let parsed = Parsed::parse(query, 20_010 * DAY).unwrap_or_else(|error| panic!("{query}: {error}"));
        row_passes(&parsed, &row(), |filter| matches!(filter, Filter::Tag(tag) if tag == "release"))
    }

    #[test]
    fn a_row_passes_the_filters_it_answers() {
        for query in [
            "agent:claude",
            "agent:claudecode",
            "-agent:codex",
            "project:shop",
            "model:opus",
            "after:2024-10-01",
            "before:2024-10-05",
            "after:10d",
            "is:failed",
            "tag:release",
            "-is:starred",
        ] {
            assert!(passes(query), "{query}");
        }
        for query in
            ["agent:codex", "project:blog", "model:sonnet", "after:7d", "before:2024-09-01", "-is:failed", "tag:old"]
        {
            assert!(!passes(query), "{query}");
        }
    }
}
