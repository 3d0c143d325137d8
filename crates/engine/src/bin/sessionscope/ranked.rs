//! The ranked word search of a history, for `sessionscope search` and MCP `search` (issue 52):
//! the engine's [`sessionscope_engine::ranked`] over the history's units as the command line
//! keeps them (files on disk, with their cached rows, trigram sets and word indexes), counted on
//! every core.

use sessionscope_engine::dag::Graph;
use sessionscope_engine::history::SessionRow;
use sessionscope_engine::marks::Marks;
use sessionscope_engine::model::Corpus;
use sessionscope_engine::query::{Filter, Flag, Parsed};
use sessionscope_engine::rank::row_passes;
use sessionscope_engine::ranked::{Mapper, MaybeSend, MaybeSync, RankUnit};
pub use sessionscope_engine::ranked::{Ranked, RankedSession, Sort};
use sessionscope_engine::trigrams::TrigramSet;
use sessionscope_engine::word_index::UnitWords;

use crate::index::{UnitModel, parallel_map, read_model};
use crate::live::{Live, Unit};
use crate::search::project_named;

/// Searches `live` for `parsed` (whose `regex` is not set), keeping `keep` sessions in `sort`'s
/// order; with `sources`, each snippet keeps the whole text it was cut from. `marks` answers
/// `is:starred` and `tag:` (none given: no session passes them); `project`, if given, keeps the
/// sessions of a project by its folder or the folder's last name ([`project_named`]).
pub fn search(
    live: &Live,
    parsed: &Parsed,
    project: Option<&str>,
    sort: Sort,
    keep: usize,
    marks: Option<&Marks>,
    sources: bool,
) -> Ranked {
    let marked = |row: &SessionRow, filter: &Filter| {
        marks.is_some_and(|marks| match filter {
            Filter::Is(Flag::Starred) => marks.starred(&row.session_id),
            Filter::Tag(tag) => marks.has_tag(&row.session_id, tag),
            _ => false,
        })
    };
    let passes = |row: &SessionRow| {
        project.is_none_or(|wanted| project_named(row, wanted)) && row_passes(parsed, row, |f| marked(row, f))
    };
    let units: Vec<OnDisk<'_>> = live.units.iter().map(|unit| OnDisk(unit)).collect();
    sessionscope_engine::ranked::search(&units, parsed, &passes, sort, keep, sources, &EveryCore)
}

/// A unit of the history on disk, as the search reads it.
struct OnDisk<'a>(&'a Unit);

impl RankUnit for OnDisk<'_> {
    fn rows(&self) -> Option<&[SessionRow]> {
        self.0.rows_known.then_some(self.0.rows.as_slice())
    }

    fn folder(&self) -> &str {
        &self.0.folder
    }

    fn words(&self) -> Option<&UnitWords> {
        self.0.words.as_ref()
    }

    fn trigrams(&self) -> Option<&TrigramSet> {
        self.0.set.as_ref()
    }

    fn read(&self) -> (Corpus, Graph) {
        let UnitModel { corpus, graph, .. } = read_model(self.0.files.iter());
        (corpus, graph)
    }

    fn file_order(&self, name: &str) -> Option<usize> {
        self.0.files.iter().position(|(_, file)| file == name)
    }

    fn line(&self, name: &str, start: u64) -> Option<Vec<u8>> {
        let (path, _) = self.0.files.iter().find(|(_, file)| file == name)?;
        read_line(path, start)
    }
}

/// The search's steps on every core.
struct EveryCore;

impl Mapper for EveryCore {
    fn map<I: MaybeSync, T: MaybeSend>(&self, items: &[I], map: impl Fn(&I) -> T + MaybeSync) -> Vec<T> {
        parallel_map(items, map)
    }
}

/// The line of the file at `path` that starts at byte `start` (with its end of line).
fn read_line(path: &std::path::Path, start: u64) -> Option<Vec<u8>> {
    use std::io::{BufRead as _, Seek as _};
    if crate::is_stdin(path) {
        return None;
    }
    let mut file = std::fs::File::open(path).ok()?;
    file.seek(std::io::SeekFrom::Start(start)).ok()?;
    let mut line = Vec::new();
    std::io::BufReader::new(file).read_until(b'\n', &mut line).ok()?;
    Some(line)
}

/// The sessions as text: for each, its rank, score, time, project, title and id, then its
/// snippets; then the count.
pub fn table(ranked: &Ranked) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    for session in &ranked.results {
        let time = session.last_ms.map_or_else(|| "(no time)".to_owned(), crate::index::iso_minute);
        let title: String = session.title.chars().take(60).collect();
        let _ = writeln!(
            out,
            "{:>3}. {:>6.2}  {time:<16}  {}  {title}  ({})",
            session.rank, session.score, session.project, session.session_id
        );
        for snippet in &session.snippets {
            let _ = writeln!(out, "      {:<6} {}", snippet.zone.name(), snippet.snippet);
        }
    }
    let shown = if ranked.results.len() < ranked.total {
        format!(" ({} shown; --limit=0 lists all)", ranked.results.len())
    } else {
        String::new()
    };
    let noun = if ranked.total == 1 { "session" } else { "sessions" };
    let _ = writeln!(out, "{} {noun} found of {} searched{shown}", ranked.total, ranked.sessions_searched);
    out
}
