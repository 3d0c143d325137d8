//! The history an MCP server keeps in memory: each session unit's rows and insights, read on
//! the first call and then only again for the units whose files changed (by size and
//! modification time), or that are new.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use sessionscope_engine::history::{FileProblem, SessionRow};
use sessionscope_engine::insights::UnitInsights;

use crate::index::{group, parallel_map, read_unit};

/// A file's size and modification time, as last seen; `None` when it could not be looked at.
type Stamp = Option<(u64, Option<SystemTime>)>;

/// A unit to read: its place among the units, its folder, its files and their stamps.
type ToRead = (usize, String, Vec<(PathBuf, String)>, Vec<Stamp>);

/// One session unit as it was read: its files (on disk, with the names they are known by), their
/// stamps, and what its index and insights found.
pub struct Unit {
    pub folder: String,
    pub files: Vec<(PathBuf, String)>,
    stamps: Vec<Stamp>,
    pub rows: Vec<SessionRow>,
    pub insights: UnitInsights,
    problems: Vec<FileProblem>,
}

/// The history of some folders, as last read.
pub struct Live {
    folders: Vec<PathBuf>,
    /// The units, in the order the history groups them.
    pub units: Vec<Arc<Unit>>,
    /// The files left out, by their names or because they could not be read.
    pub problems: Vec<FileProblem>,
    /// Units read by the last refresh (the others were kept).
    pub last_read: usize,
}

impl Live {
    /// A history of `folders`, not read yet.
    pub fn new(folders: Vec<PathBuf>) -> Live {
        Live { folders, units: Vec::new(), problems: Vec::new(), last_read: 0 }
    }

    /// Lists the folders again and reads the units that are new or whose files changed.
    pub fn refresh(&mut self) {
        let grouped = group(list_files(&self.folders));
        let mut old: HashMap<&[(PathBuf, String)], &Arc<Unit>> = HashMap::new();
        for unit in &self.units {
            old.insert(unit.files.as_slice(), unit);
        }
        let mut units: Vec<Option<Arc<Unit>>> = Vec::with_capacity(grouped.units.len());
        let mut to_read: Vec<ToRead> = Vec::new();
        for unit in &grouped.units {
            let files: Vec<(PathBuf, String)> = grouped.files_of(unit).into_iter().cloned().collect();
            let stamps: Vec<Stamp> = files.iter().map(|(path, _)| stamp(path)).collect();
            match old.get(files.as_slice()) {
                Some(kept) if kept.stamps == stamps && stamps.iter().all(Option::is_some) => {
                    units.push(Some(Arc::clone(kept)));
                }
                _ => {
                    to_read.push((units.len(), unit.folder.clone(), files, stamps));
                    units.push(None);
                }
            }
        }
        let read = parallel_map(&to_read, |(_, folder, files, _)| read_unit(files.iter(), folder, true));
        self.last_read = to_read.len();
        for ((at, folder, files, stamps), (index, insights)) in to_read.into_iter().zip(read) {
            let insights = insights.unwrap_or_default();
            let unit = Unit { folder, files, stamps, rows: index.rows, insights, problems: index.problems };
            if let Some(slot) = units.get_mut(at) {
                *slot = Some(Arc::new(unit));
            }
        }
        self.units = units.into_iter().flatten().collect();
        let mut problems = grouped.problems;
        problems.extend(self.units.iter().flat_map(|unit| unit.problems.iter().cloned()));
        problems.sort_by(|a, b| a.path.cmp(&b.path));
        self.problems = problems;
    }

    /// Every session's row, with its unit.
    pub fn rows(&self) -> impl Iterator<Item = (&Arc<Unit>, &SessionRow)> {
        self.units.iter().flat_map(|unit| unit.rows.iter().map(move |row| (unit, row)))
    }

    /// The session whose id is `id`, or the only one whose id starts with it.
    pub fn find(&self, id: &str) -> Result<(&Arc<Unit>, &SessionRow), Lookup> {
        if let Some(found) = self.rows().find(|(_, row)| row.session_id == id) {
            return Ok(found);
        }
        let mut starting = self.rows().filter(|(_, row)| !id.is_empty() && row.session_id.starts_with(id));
        match (starting.next(), starting.count()) {
            (Some(found), 0) => Ok(found),
            (Some(_), more) => Err(Lookup::Several(more + 1)),
            (None, _) => Err(Lookup::None),
        }
    }
}

/// Why no session was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lookup {
    None,
    Several(usize),
}

/// A file's size and modification time.
fn stamp(path: &Path) -> Stamp {
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.len(), meta.modified().ok()))
}

/// The files under `folders` that exist, with the names they are known by (relative to each
/// folder's parent), in name order.
pub fn list_files(folders: &[PathBuf]) -> Vec<(PathBuf, String)> {
    let mut files = Vec::new();
    for folder in folders.iter().filter(|folder| folder.exists()) {
        crate::collect(folder, folder.parent().unwrap_or(Path::new("")), &mut files);
    }
    files.sort_by(|a, b| a.1.cmp(&b.1));
    files.dedup_by(|a, b| a.0 == b.0);
    files
}

/// The agents' usual places under the home folder (see docs/formats.md) that exist.
pub fn default_folders() -> Vec<PathBuf> {
    let Some(home) = std::env::var_os("HOME").or_else(|| std::env::var_os("USERPROFILE")).map(PathBuf::from) else {
        return Vec::new();
    };
    const PLACES: &[&str] = &[
        ".claude/projects",
        ".codex/sessions",
        ".gemini/tmp",
        ".qwen/projects",
        ".qwen/tmp",
        ".pi/agent/sessions",
        ".copilot/session-state",
        ".local/share/amp/threads",
        ".cursor/projects",
        ".local/share/opencode/opencode.db",
        ".local/share/opencode/storage",
        ".config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks",
        ".config/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks",
        "Library/Application Support/Code/User/globalStorage/saoudrizwan.claude-dev/tasks",
        "Library/Application Support/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks",
    ];
    PLACES.iter().map(|place| home.join(place)).filter(|path| path.exists()).collect()
}
