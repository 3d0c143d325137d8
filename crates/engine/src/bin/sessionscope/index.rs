//! `sessionscope index`: a whole history, one row per session, as the app's history home lists
//! it. The files are grouped into session units and read unit by unit on every core; a unit's
//! bytes and model are let go before the next, so memory depends on the largest session, not on
//! the history.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde::Serialize;
use sessionscope_engine::Loader;
use sessionscope_engine::dag::Graph;
use sessionscope_engine::history::{
    FileProblem, SessionRow, Totals, Unit, UnitIndex, group_into_units, index_unit, needs_hint, title_sources,
    unit_hint,
};
use sessionscope_engine::import::names::{NOT_A_LOG_NAME, looks_like_a_log};
use sessionscope_engine::import::records::database_of_companion;
use sessionscope_engine::insights::UnitInsights;
use sessionscope_engine::marks::{Marks, SessionMarks};
use sessionscope_engine::search::trigrams_of;
use sessionscope_engine::trigrams::TrigramSet;
use sessionscope_engine::word_index::UnitWords;

/// What `--json` prints.
#[derive(Serialize)]
struct Index<'a> {
    sessions: Vec<Row<'a>>,
    problems: Vec<FileProblem>,
    totals: Totals,
}

/// A session's row as `--json` prints it: the row, the line that resumes the session in its
/// agent (or why there is none), and its marks when `--marks` gives some.
#[derive(Serialize)]
struct Row<'a> {
    #[serde(flatten)]
    row: &'a SessionRow,
    resume_command: Option<String>,
    resume_unavailable: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    marks: Option<&'a SessionMarks>,
}

impl<'a> Row<'a> {
    fn of(row: &'a SessionRow, marks: Option<&'a Marks>) -> Self {
        Row {
            row,
            resume_command: row.resume.shell_line(&row.project),
            resume_unavailable: row.resume.why_not(&row.agent),
            marks: marks.and_then(|m| m.session(&row.session_id)),
        }
    }
}

/// `sessionscope resume <session id> <folder>...`: the line that resumes the session whose id
/// is `id` (or starts with it) in its agent, run in its working directory; exit status 1, and
/// why, when no session or more than one has that id, or its agent has no such command.
pub fn resume(files: Vec<(PathBuf, String)>, id: &str) -> ExitCode {
    let History { units, .. } = read_history(files, false);
    let rows: Vec<SessionRow> = units.into_iter().flat_map(|(index, _)| index.rows).collect();
    let exact: Vec<&SessionRow> = rows.iter().filter(|r| r.session_id == id).collect();
    let found = if exact.is_empty() { rows.iter().filter(|r| r.session_id.starts_with(id)).collect() } else { exact };
    match found.as_slice() {
        [] => {
            eprintln!("sessionscope: no session has the id `{id}`");
            ExitCode::from(1)
        }
        [row] => match (row.resume.shell_line(&row.project), row.resume.why_not(&row.agent)) {
            (Some(line), _) => {
                println!("{line}");
                ExitCode::SUCCESS
            }
            (None, why) => {
                eprintln!("sessionscope: {}", why.unwrap_or_default());
                ExitCode::from(1)
            }
        },
        more => {
            eprintln!("sessionscope: {} sessions have an id that starts with `{id}`:", more.len());
            for row in more {
                eprintln!("  {} ({}, {})", row.session_id, row.agent, row.title);
            }
            ExitCode::from(1)
        }
    }
}

/// Bytes of a file read for its unit: the session a loose agent file names, the task a Roo Code
/// subtask's `history_item.json` names, the parent an OpenCode storage session names.
const HINT_BYTES: usize = 64 * 1024;

/// A history read unit by unit: each unit's index (and, if asked, its insights), in unit order,
/// and the files left out by their names.
pub struct History {
    pub units: Vec<(UnitIndex, Option<UnitInsights>)>,
    pub problems: Vec<FileProblem>,
}

/// Reads `files` (on disk, with the names they are known by) as a history, unit by unit on every
/// core; with `insights`, each unit's insights are made from the model its index builds.
pub fn read_history(files: Vec<(PathBuf, String)>, insights: bool) -> History {
    let (units, problems) = each_unit(files, |unit, folder| {
        let read = read_unit(unit.iter().copied(), folder, insights, false);
        (read.index, read.insights)
    });
    History { units, problems }
}

/// A history's files grouped into session units: the log files, the units (each naming its
/// files by their place in `logs`), and the files left out by their names.
pub struct Grouped {
    pub logs: Vec<(PathBuf, String)>,
    pub units: Vec<Unit>,
    pub problems: Vec<FileProblem>,
}

impl Grouped {
    /// The files of a unit, in name order.
    pub fn files_of(&self, unit: &Unit) -> Vec<&(PathBuf, String)> {
        unit.files.iter().filter_map(|&i| self.logs.get(i)).collect()
    }
}

/// Groups `files` (on disk, with the names they are known by) into the history's session units.
pub fn group(files: Vec<(PathBuf, String)>) -> Grouped {
    let mut problems = Vec::new();
    let (logs, others): (Vec<_>, Vec<_>) = files.into_iter().partition(|(_, name)| looks_like_a_log(name));
    // SQLite's own files beside a database (its write-ahead log) are read with it.
    let of_a_database = |name: &str| {
        database_of_companion(name).is_some_and(|(database, _)| logs.iter().any(|(_, log)| log == database))
    };
    let others: Vec<_> = others.into_iter().filter(|(_, name)| !of_a_database(name)).collect();
    problems.extend(others.into_iter().map(|(_, path)| FileProblem { path, reason: NOT_A_LOG_NAME.to_owned() }));
    let hints: Vec<Option<String>> = logs
        .iter()
        .map(|(path, name)| if needs_hint(name) { first_bytes(path).and_then(|b| unit_hint(name, &b)) } else { None })
        .collect();
    let names: Vec<&str> = logs.iter().map(|(_, name)| name.as_str()).collect();
    let units = group_into_units(&names, &hints);
    Grouped { logs, units, problems }
}

/// `map` of each item, in item order, running on every core.
pub fn parallel_map<I: Sync, T: Send>(items: &[I], map: impl Fn(&I) -> T + Sync) -> Vec<T> {
    parallel_map_in(items, (0..items.len()).collect(), map)
}

/// [`parallel_map`], the items of the largest `size` mapped first: a big session begun last would
/// keep one core busy alone while the others have nothing left (on a history with a few sessions
/// of 100 MB or more, the end of the pass ran on one core). The answers are in item order.
pub fn parallel_map_largest_first<I: Sync, T: Send>(
    items: &[I],
    size: impl Fn(&I) -> u64,
    map: impl Fn(&I) -> T + Sync,
) -> Vec<T> {
    let order = largest_first(&items.iter().map(size).collect::<Vec<_>>());
    parallel_map_in(items, order, map)
}

/// The places of `sizes`, the largest first; places of one size in their order.
fn largest_first(sizes: &[u64]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..sizes.len()).collect();
    order.sort_by(|&a, &b| sizes[b].cmp(&sizes[a]));
    order
}

/// `map` of each item, begun in the order of `order` (item places, each once), answered in item
/// order, running on every core.
fn parallel_map_in<I: Sync, T: Send>(items: &[I], order: Vec<usize>, map: impl Fn(&I) -> T + Sync) -> Vec<T> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<T>>> = Mutex::new((0..items.len()).map(|_| None).collect());
    let threads = std::thread::available_parallelism().map_or(2, usize::from).min(items.len()).max(1);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                while let Some(&at) = order.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let Some(item) = items.get(at) else { continue };
                    let answer = map(item);
                    if let Ok(mut results) = results.lock() {
                        results[at] = Some(answer);
                    }
                }
            });
        }
    });
    results.into_inner().unwrap_or_default().into_iter().flatten().collect()
}

/// Groups `files` (on disk, with the names they are known by) into the history's session units
/// and answers `read` of each unit (its files, in name order, and its folder), in unit order,
/// running on every core; with the files left out by their names.
pub fn each_unit<T: Send>(
    files: Vec<(PathBuf, String)>,
    read: impl Fn(&[&(PathBuf, String)], &str) -> T + Sync,
) -> (Vec<T>, Vec<FileProblem>) {
    let grouped = group(files);
    let size = |unit: &Unit| {
        grouped.files_of(unit).iter().map(|(path, _)| std::fs::metadata(path).map_or(0, |m| m.len())).sum()
    };
    let results = parallel_map_largest_first(&grouped.units, size, |unit| read(&grouped.files_of(unit), &unit.folder));
    (results, grouped.problems)
}

/// Indexes `files` (on disk, with the names they are known by), in name order, each session
/// with its `marks` if there are any.
pub fn run(files: Vec<(PathBuf, String)>, json: bool, marks: Option<&Marks>) -> ExitCode {
    let History { units, mut problems } = read_history(files, false);
    let mut sessions = Vec::new();
    for (index, _) in units {
        sessions.extend(index.rows);
        problems.extend(index.problems);
    }
    problems.sort_by(|a, b| a.path.cmp(&b.path));
    let totals = Totals::of(&sessions);
    let index = Index { sessions: sessions.iter().map(|row| Row::of(row, marks)).collect(), problems, totals };
    if json {
        match serde_json::to_string_pretty(&index) {
            Ok(text) => println!("{text}"),
            Err(error) => {
                eprintln!("sessionscope: {error}");
                return ExitCode::from(1);
            }
        }
    } else {
        print_index(&index, marks.is_some());
    }
    ExitCode::SUCCESS
}

/// What reading one unit gives: its index, and if asked its insights and trigram set.
pub struct UnitRead {
    pub index: UnitIndex,
    /// The whole lines its rows' titles were cut from, by session
    /// ([`sessionscope_engine::history::title_sources`]).
    pub titles: Vec<(String, String)>,
    pub insights: Option<UnitInsights>,
    pub set: Option<TrigramSet>,
    /// Its word index, made with its trigram set (ranked search asks it).
    pub words: Option<UnitWords>,
}

/// Reads one unit's files and indexes them; a file that cannot be read is a problem, the rest
/// of the unit is still read. With `insights` and `trigrams`, the unit's insights and the trigram
/// set and word index of its searched text are made from the model its index builds.
pub fn read_unit<'a>(
    files: impl Iterator<Item = &'a (PathBuf, String)>,
    folder: &str,
    insights: bool,
    trigrams: bool,
) -> UnitRead {
    let UnitModel { corpus, graph, bytes_read, unreadable } = read_model(files);
    let mut index = index_unit(&corpus, &graph, folder);
    index.problems.extend(unreadable);
    let insights = insights.then(|| UnitInsights::of(&corpus, &graph, &index.rows));
    let set = trigrams.then(|| trigrams_of(&corpus, bytes_read));
    let words = trigrams.then(|| UnitWords::of(&corpus, &graph));
    let titles = title_sources(&corpus, &graph);
    UnitRead { index, titles, insights, set, words }
}

/// A unit's files read into one model: the one reader of the index pass, ranked search and the
/// MCP server's `read_session`.
pub struct UnitModel {
    pub corpus: sessionscope_engine::model::Corpus,
    pub graph: Graph,
    /// The bytes of the files read.
    pub bytes_read: u64,
    /// The files that could not be read, and why (the rest are read).
    pub unreadable: Vec<FileProblem>,
}

/// Reads `files` (on disk, with the names they are known by) into one model.
pub fn read_model<'a>(files: impl Iterator<Item = &'a (PathBuf, String)>) -> UnitModel {
    let mut loader = Loader::new();
    let mut unreadable = Vec::new();
    let mut bytes_read = 0u64;
    for (path, name) in files {
        match crate::read_source(path, name) {
            Ok(bytes) => {
                bytes_read += bytes.len() as u64;
                loader.add_vec(name, bytes);
            }
            Err(reason) => unreadable.push(FileProblem { path: name.clone(), reason }),
        }
    }
    let corpus = loader.finish();
    let graph = Graph::build(&corpus);
    UnitModel { corpus, graph, bytes_read, unreadable }
}

fn first_bytes(path: &PathBuf) -> Option<Vec<u8>> {
    use std::io::Read;
    if crate::is_stdin(path) {
        return crate::stdin_bytes().ok().map(|bytes| bytes[..bytes.len().min(HINT_BYTES)].to_vec());
    }
    let mut bytes = Vec::with_capacity(HINT_BYTES);
    std::fs::File::open(path).ok()?.take(HINT_BYTES as u64).read_to_end(&mut bytes).ok()?;
    Some(bytes)
}

/// Prints the table; `marked` (marks were given) puts a gutter before each line, with a star
/// on a starred session's line, and the session's tags after its title.
fn print_index(index: &Index, marked: bool) {
    let gutter = if marked { "  " } else { "" };
    println!(
        "{gutter}{:<19} {:>8} {:>6} {:>6} {:>10} {:>10}  {:<28} title",
        "start (UTC)", "duration", "msgs", "tools", "tokens", "cost $", "project"
    );
    for Row { row, marks, .. } in &index.sessions {
        let start = row.start_ms.map(iso_minute).unwrap_or_default();
        let project: String = row.project.chars().rev().take(28).collect::<Vec<_>>().into_iter().rev().collect();
        let title: String = row.title.chars().take(60).collect();
        let star = if marks.is_some_and(SessionMarks::starred) { "★ " } else { gutter };
        let tags: String = marks.map(|m| m.tags().iter().map(|t| format!(" #{t}")).collect()).unwrap_or_default();
        println!(
            "{star}{start:<19} {:>8} {:>6} {:>6} {:>10} {:>10.2}  {project:<28} {title}{tags}",
            format!("{}s", row.duration_ms() / 1000),
            row.messages,
            row.tool_calls,
            row.tokens(),
            row.cost_usd,
        );
    }
    for problem in &index.problems {
        println!("not indexed: {}: {}", problem.path, problem.reason);
    }
    let t = &index.totals;
    println!(
        "{} sessions in {} projects, {} files, {} bytes; tokens: {} input, {} output, {} cache write, {} cache read; ${:.2}",
        t.sessions,
        t.projects,
        t.files,
        t.bytes,
        t.usage.input_tokens,
        t.usage.output_tokens,
        t.usage.cache_creation_input_tokens,
        t.usage.cache_read_input_tokens,
        t.cost_usd
    );
}

/// `YYYY-MM-DD HH:MM` of a time in milliseconds since the epoch (UTC).
pub fn iso_minute(ms: i64) -> String {
    let minutes = ms.rem_euclid(86_400_000) / 60_000;
    let date = sessionscope_engine::insights::report::date_of_day(ms.div_euclid(86_400_000));
    format!("{date} {:02}:{:02}", minutes / 60, minutes % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_largest_units_begin_first_and_answers_keep_item_order() {
        let sizes: Vec<u64> = vec![3, 900, 1, 5_000, 20, 900, 7];
        assert_eq!(largest_first(&sizes), vec![3, 1, 5, 4, 6, 0, 2], "by size, ties in item order");
        let mapped = Mutex::new(Vec::new());
        let answers = parallel_map_largest_first(
            &sizes,
            |&size| size,
            |&size| {
                mapped.lock().unwrap().push(size);
                size * 2
            },
        );
        assert_eq!(answers, sizes.iter().map(|s| s * 2).collect::<Vec<_>>(), "answers in item order");
        let mut mapped = mapped.into_inner().unwrap();
        mapped.sort_unstable();
        let mut expected = sizes.clone();
        expected.sort_unstable();
        assert_eq!(mapped, expected, "each item mapped once");
        assert!(parallel_map_largest_first(&Vec::<u64>::new(), |&s| s, |&s| s).is_empty());
    }
}
