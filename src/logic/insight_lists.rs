//! The lists of the history's Files and Activity tabs, as pure functions: the files that pass
//! the filters, sorted; and usage per day stacked by model or project, in day or week columns,
//! the biggest names apart and the rest as one.

use sessionscope_engine::insights::report::{DayUsage, FileSummary};

use crate::logic::sort;

/// How the Files tab sorts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileSort {
    LastChange,
    Changes,
    Sessions,
    Path,
}

impl FileSort {
    pub const ALL: [FileSort; 4] = [FileSort::LastChange, FileSort::Changes, FileSort::Sessions, FileSort::Path];

    pub fn label(self) -> &'static str {
        match self {
            FileSort::LastChange => "Last change",
            FileSort::Changes => "Changes",
            FileSort::Sessions => "Sessions",
            FileSort::Path => "Path",
        }
    }
}

/// What the Files tab lists.
#[derive(Clone, Debug, PartialEq)]
pub struct FileFilter {
    /// Words each in the path (any case), all of them.
    pub text: String,
    /// `None` for every project.
    pub project: Option<String>,
    /// Only files some session changed (not those only read).
    pub changed_only: bool,
    pub sort: FileSort,
}

impl Default for FileFilter {
    fn default() -> Self {
        FileFilter { text: String::new(), project: None, changed_only: false, sort: FileSort::LastChange }
    }
}

/// The files that pass `filter`, as indices into `files`, sorted.
pub fn listed_files(files: &[FileSummary], filter: &FileFilter) -> Vec<usize> {
    let words: Vec<String> = filter.text.split_whitespace().map(str::to_lowercase).collect();
    let mut out: Vec<usize> = (0..files.len())
        .filter(|&i| {
            let file = &files[i];
            if filter.project.as_deref().is_some_and(|p| p != file.project)
                || (filter.changed_only && file.changes == 0)
            {
                return false;
            }
            let path = file.path.to_lowercase();
            words.iter().all(|w| path.contains(w.as_str()))
        })
        .collect();
    sort::sort_by(&mut out, |&a, &b| {
        let (a, b) = (&files[a], &files[b]);
        let by_path = || a.path.cmp(&b.path).then_with(|| a.project.cmp(&b.project));
        match filter.sort {
            FileSort::LastChange => b.last_ms.cmp(&a.last_ms).then_with(by_path),
            FileSort::Changes => b.changes.cmp(&a.changes).then_with(by_path),
            FileSort::Sessions => b.sessions.cmp(&a.sessions).then_with(by_path),
            FileSort::Path => by_path(),
        }
    });
    out
}

/// Usage stacked by name over time: one column per day (or per week, for a long history), its
/// parts in the order of `names`.
#[derive(Clone, Debug, PartialEq)]
pub struct Stacked {
    /// The biggest names by cost (then tokens), and `other` for the rest if any.
    pub names: Vec<String>,
    /// Days a column spans (1 or 7), and the first column's first day.
    pub days_per_column: i64,
    pub first_day: i64,
    /// `columns[c][n]`: the tokens and cost of name `n` in column `c`.
    pub columns: Vec<Vec<(u64, f64)>>,
    /// Each name's totals, in the order of `names`.
    pub totals: Vec<(u64, f64)>,
}

/// The name the names past the biggest are summed under.
pub const OTHER: &str = "other";

/// Usage per day stacked by name: the `keep` biggest names apart, days as columns (weeks past
/// 120 days). `None` without usage.
pub fn stacked(usage: &[DayUsage], keep: usize) -> Option<Stacked> {
    let first = usage.iter().map(|u| u.day_number).min()?;
    let last = usage.iter().map(|u| u.day_number).max()?;
    let mut totals: Vec<(String, u64, f64)> = Vec::new();
    for u in usage {
        match totals.iter_mut().find(|(n, _, _)| *n == u.name) {
            Some(total) => {
                total.1 += u.tokens;
                total.2 += u.cost_usd;
            }
            None => totals.push((u.name.clone(), u.tokens, u.cost_usd)),
        }
    }
    sort::sort_by(&mut totals, |a, b| b.2.total_cmp(&a.2).then(b.1.cmp(&a.1)).then_with(|| a.0.cmp(&b.0)));
    let mut names: Vec<String> = totals.iter().take(keep).map(|(n, _, _)| display_name(n)).collect();
    let has_other = totals.len() > keep;
    if has_other {
        names.push(OTHER.to_owned());
    }
    let index_of = |name: &str| {
        totals.iter().position(|(n, _, _)| n == name).map(|at| at.min(keep)).unwrap_or(keep.min(names.len() - 1))
    };
    let days_per_column = if last - first + 1 > 120 { 7 } else { 1 };
    let count = ((last - first) / days_per_column + 1) as usize;
    let mut columns = vec![vec![(0u64, 0f64); names.len()]; count];
    let mut sums = vec![(0u64, 0f64); names.len()];
    for u in usage {
        let column = ((u.day_number - first) / days_per_column) as usize;
        let at = index_of(&u.name);
        for part in [&mut columns[column][at], &mut sums[at]] {
            part.0 += u.tokens;
            part.1 += u.cost_usd;
        }
    }
    Some(Stacked { names, days_per_column, first_day: first, columns, totals: sums })
}

/// A name as a legend shows it (a session without a model or project has an empty one).
fn display_name(name: &str) -> String {
    if name.is_empty() { "(none)".to_owned() } else { name.to_owned() }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(project: &str, path: &str, changes: u32, sessions: u32, last_ms: Option<i64>) -> FileSummary {
        FileSummary {
            project: project.into(),
            path: path.into(),
            changes,
            sessions,
            last_ms,
            reads: 1,
            ..FileSummary::default()
        }
    }

    #[test]
    fn files_are_filtered_by_words_project_and_changes_then_sorted() {
        let files = [
            file("/a", "src/auth/login.rs", 3, 2, Some(30)),
            file("/a", "src/lib.rs", 0, 1, Some(50)),
            file("/b", "src/Auth.ts", 1, 4, Some(10)),
        ];
        let list = |filter: FileFilter| listed_files(&files, &filter);
        assert_eq!(list(FileFilter::default()), [1, 0, 2]);
        assert_eq!(list(FileFilter { text: "AUTH".into(), ..FileFilter::default() }), [0, 2]);
        assert_eq!(list(FileFilter { text: "src login".into(), ..FileFilter::default() }), [0]);
        assert_eq!(list(FileFilter { project: Some("/b".into()), ..FileFilter::default() }), [2]);
        assert_eq!(list(FileFilter { changed_only: true, ..FileFilter::default() }), [0, 2]);
        assert_eq!(list(FileFilter { sort: FileSort::Sessions, ..FileFilter::default() }), [2, 0, 1]);
        assert_eq!(list(FileFilter { sort: FileSort::Path, ..FileFilter::default() }), [2, 0, 1]);
    }

    fn usage(day_number: i64, name: &str, tokens: u64, cost_usd: f64) -> DayUsage {
        DayUsage { day: String::new(), day_number, name: name.into(), tokens, cost_usd }
    }

    #[test]
    fn usage_is_stacked_by_the_biggest_names_and_the_rest_as_other() {
        let days = [
            usage(100, "opus", 10, 5.0),
            usage(100, "haiku", 99, 0.1),
            usage(102, "sonnet", 20, 1.0),
            usage(102, "opus", 1, 0.5),
            usage(102, "", 1, 0.01),
        ];
        let stacked = stacked(&days, 2).unwrap();
        assert_eq!(stacked.names, ["opus", "sonnet", OTHER]);
        assert_eq!((stacked.first_day, stacked.days_per_column, stacked.columns.len()), (100, 1, 3));
        assert_eq!(stacked.columns[0], [(10, 5.0), (0, 0.0), (99, 0.1)]);
        assert!(stacked.columns[1].iter().all(|&(t, _)| t == 0));
        assert_eq!(stacked.columns[2][0], (1, 0.5));
        assert_eq!(stacked.totals[0], (11, 5.5));
        assert_eq!(stacked.totals[2].0, 100);
        let all = super::stacked(&days, 8).unwrap();
        assert_eq!(all.names.len(), 4, "no `other` when every name is kept");
        assert!(all.names.contains(&"(none)".to_owned()));
        assert!(super::stacked(&[], 3).is_none());
    }

    #[test]
    fn a_long_history_is_stacked_by_week() {
        let days = [usage(0, "m", 1, 1.0), usage(6, "m", 1, 1.0), usage(7, "m", 1, 1.0), usage(200, "m", 1, 1.0)];
        let stacked = stacked(&days, 3).unwrap();
        assert_eq!(stacked.days_per_column, 7);
        assert_eq!(stacked.columns.len(), 200 / 7 + 1);
        assert_eq!((stacked.columns[0][0].0, stacked.columns[1][0].0), (2, 1));
    }
}
