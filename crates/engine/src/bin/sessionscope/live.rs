//! A history kept in memory between questions: each session unit's rows, insights, trigram
//! set and word index. A refresh takes the units whose files are unchanged from memory, or on the first refresh
//! from the [`Store`] (what the last run remembered), and reads the units that are new or whose
//! files changed (by size and modification time) for their rows only, as `index` does; the sets
//! and insights a question needs are made when it asks ([`Live::fill`]), and then remembered. `sessionscope mcp` keeps one for its whole run, `sessionscope search`
//! for one search. A history of folders is watched (the system's file events): while nothing
//! in them changed, a refresh does not list them again.

use std::collections::HashMap;
use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use sessionscope_engine::history::{FileProblem, SessionRow};
use sessionscope_engine::history_cache::{CachedUnit, FileStamp};
use sessionscope_engine::insights::UnitInsights;
use sessionscope_engine::trigrams::TrigramSet;
use sessionscope_engine::word_index::UnitWords;

use crate::index::{UnitRead, group, parallel_map, read_unit};
use crate::store::{Remembered, Store, ToKeep, stamp};

/// One session unit as it was read: its files (on disk, with the names they are known by), their
/// stamps, and what its index, insights and trigram set found.
pub struct Unit {
    key: String,
    pub folder: String,
    pub files: Vec<(PathBuf, String)>,
    /// `None` for a file that could not be looked at (or stdin): the unit is then read again by
    /// every refresh, and never remembered.
    stamps: Vec<Option<FileStamp>>,
    pub rows: Vec<SessionRow>,
    /// Whether `rows` were read (a history that reads its units [`Reading::Later`] lists them
    /// without).
    pub rows_known: bool,
    /// Its insights and trigram set, once made ([`Live::fill`]) or taken from the store.
    pub insights: Option<UnitInsights>,
    pub set: Option<TrigramSet>,
    /// Its word index, made with its trigram set.
    pub words: Option<UnitWords>,
    problems: Vec<FileProblem>,
    /// The whole lines its rows' titles were cut from, by session id: read with the rows, or
    /// when first needed for a unit the store gave ([`Unit::title_source`]).
    titles: OnceLock<HashMap<String, String>>,
}

impl Unit {
    /// A unit listed with its files, not read yet.
    fn listed(key: String, folder: String, files: Vec<(PathBuf, String)>, stamps: Vec<Option<FileStamp>>) -> Unit {
        Unit {
            key,
            folder,
            files,
            stamps,
            rows: Vec::new(),
            rows_known: false,
            insights: None,
            set: None,
            words: None,
            problems: Vec::new(),
            titles: OnceLock::new(),
        }
    }

    /// The unit with what reading it gave (the insights and set it had, if reading made none).
    fn read(self, read: UnitRead) -> Unit {
        Unit {
            rows: read.index.rows,
            rows_known: true,
            insights: read.insights.or(self.insights),
            set: read.set.or(self.set),
            words: read.words.or(self.words),
            problems: read.index.problems,
            titles: OnceLock::from(read.titles.into_iter().collect::<HashMap<_, _>>()),
            ..self
        }
    }

    /// The whole text row `row`'s title was cut from (its title itself when it was not cut): an
    /// output that redacts redacts it whole, then cuts it. A unit the store gave is read for it
    /// the first time it is asked.
    pub fn title_source<'a>(&'a self, row: &'a SessionRow) -> &'a str {
        if row.title != row.first_prompt || !row.title.ends_with('…') {
            return &row.title;
        }
        let titles = self
            .titles
            .get_or_init(|| read_unit(self.files.iter(), &self.folder, false, false).titles.into_iter().collect());
        titles.get(&row.session_id).map_or(&row.title, String::as_str)
    }

    /// Whether it lacks its trigram set or word index (`sets`) or insights (`insights`).
    fn lacks(&self, sets: bool, insights: bool) -> bool {
        (sets && (self.set.is_none() || self.words.is_none())) || (insights && self.insights.is_none())
    }

    /// The unit's last activity: its newest session's end (else start).
    pub fn last_ms(&self) -> Option<i64> {
        self.rows.iter().filter_map(|row| row.end_ms.or(row.start_ms)).max()
    }

    /// The stamps of all its files, if each could be looked at.
    fn all_stamps(&self) -> Option<Vec<FileStamp>> {
        self.stamps.iter().cloned().collect()
    }
}

/// Says when something changed in some folders, from the system's file events (inotify,
/// FSEvents, ReadDirectoryChangesW).
struct Watch {
    _watcher: notify::RecommendedWatcher,
    changed: Arc<AtomicBool>,
}

impl Watch {
    /// A watch on `folders` (a file's own folder for a file, so that a database's write-ahead
    /// log beside it counts), or `None` when the system cannot watch one of them (the history
    /// is then listed again by every refresh).
    fn of(folders: &[PathBuf]) -> Option<Watch> {
        use notify::{EventKind, RecursiveMode, Watcher as _};
        let changed = Arc::new(AtomicBool::new(true));
        let flag = Arc::clone(&changed);
        let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
            // Reading a file is no change; anything else, an error or a missed event included, is.
            if !matches!(&event, Ok(event) if matches!(event.kind, EventKind::Access(_))) {
                flag.store(true, Ordering::SeqCst);
            }
        })
        .ok()?;
        for folder in folders {
            let watched = if folder.is_dir() {
                watcher.watch(folder, RecursiveMode::Recursive)
            } else {
                watcher.watch(folder.parent().unwrap_or(Path::new(".")), RecursiveMode::NonRecursive)
            };
            watched.ok()?;
        }
        Some(Watch { _watcher: watcher, changed })
    }

    /// Whether something changed since the last time this was asked.
    fn take_changed(&self) -> bool {
        self.changed.swap(false, Ordering::SeqCst)
    }
}

/// A unit a refresh reads: its place among the units, the unit, its files and their stamps.
type ToRead<'a> = (usize, &'a sessionscope_engine::history::Unit, Vec<(PathBuf, String)>, Vec<Option<FileStamp>>);

/// What a refresh reads of a unit it cannot take from memory or the store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reading {
    /// Its rows only, as `index` does: the first answer comes soonest ([`Live::fill`] makes the
    /// rest).
    Rows,
    /// Its rows, trigram set and insights, in one pass: what the store keeps.
    Whole,
    /// Nothing: the unit is listed, and read by whoever needs it.
    Later,
}

/// Where a history's files come from.
enum Source {
    /// Folders listed again by each refresh.
    Folders(Vec<PathBuf>),
    /// Files listed once, by the caller.
    Files(Vec<(PathBuf, String)>),
}

/// The history of some folders, as last read.
pub struct Live {
    source: Source,
    store: Option<Store>,
    /// The folders' watch, if the system gives one.
    watch: Option<Watch>,
    /// Whether the store's insights are read (a search needs none; they are then read only to
    /// be written again).
    insights: bool,
    /// Whether the units changed since the store was last written.
    dirty: bool,
    reading: Reading,
    /// Whether the store was looked in (the first refresh does).
    loaded: bool,
    /// The units, in the order the history groups them.
    pub units: Vec<Arc<Unit>>,
    /// The files left out, by their names or because they could not be read.
    pub problems: Vec<FileProblem>,
}

impl Live {
    /// A history of `folders`, listed again by each refresh, remembered in `store`, with each
    /// unit's insights.
    pub fn of_folders(folders: Vec<PathBuf>, store: Option<Store>) -> Live {
        let watch = Watch::of(&folders);
        Live { watch, ..Live::new(Source::Folders(folders), store, true, Reading::Rows) }
    }

    /// A history of files already listed, without the insights of the units the store holds; a
    /// unit not in the store is read as `reading` says.
    pub fn of_files(files: Vec<(PathBuf, String)>, store: Option<Store>, reading: Reading) -> Live {
        Live::new(Source::Files(files), store, false, reading)
    }

    fn new(source: Source, store: Option<Store>, insights: bool, reading: Reading) -> Live {
        Live {
            source,
            store,
            watch: None,
            insights,
            dirty: false,
            reading,
            loaded: false,
            units: Vec::new(),
            problems: Vec::new(),
        }
    }

    /// Lists the folders again and reads the units that are new or whose files changed; the
    /// first refresh takes the units the store holds unchanged from it. Keeps what changed in the
    /// store.
    pub fn refresh(&mut self) {
        // The flag is taken before the folders are listed: a change made while they are is
        // seen by the next refresh.
        if self.watch.as_ref().is_some_and(|watch| !watch.take_changed()) {
            return;
        }
        let files = match &self.source {
            Source::Folders(folders) => list_files(folders),
            Source::Files(files) => files.clone(),
        };
        let grouped = group(files);
        let mut remembered = match (&self.store, self.loaded) {
            (Some(store), false) => store.load(self.insights),
            _ => Remembered::default(),
        };
        let first = !self.loaded;
        self.loaded = true;
        let mut old: HashMap<&[(PathBuf, String)], &Arc<Unit>> = HashMap::new();
        for unit in &self.units {
            old.insert(unit.files.as_slice(), unit);
        }
        let mut units: Vec<Option<Arc<Unit>>> = Vec::with_capacity(grouped.units.len());
        let mut to_read: Vec<ToRead<'_>> = Vec::new();
        let mut from_store = 0;
        let unit_files: Vec<Vec<(PathBuf, String)>> =
            grouped.units.iter().map(|unit| grouped.files_of(unit).into_iter().cloned().collect()).collect();
        // Each file looked at once, on every core (a history has thousands).
        let stamped = parallel_map(&unit_files, |files| {
            files.iter().map(|(path, name)| stamp(path, name)).collect::<Vec<Option<FileStamp>>>()
        });
        for ((unit, files), stamps) in grouped.units.iter().zip(unit_files).zip(stamped) {
            let complete: Option<Vec<FileStamp>> = stamps.iter().cloned().collect();
            if let (Some(kept), Some(_)) = (old.get(files.as_slice()), &complete)
                && kept.stamps == stamps
            {
                units.push(Some(Arc::clone(kept)));
                continue;
            }
            if let Some(all) = &complete
                && let Some(cached) = remembered.index.lookup(all)
            {
                units.push(Some(Arc::new(Unit {
                    rows: cached.rows.clone(),
                    rows_known: true,
                    insights: remembered.insights.remove(all),
                    set: remembered.sets.remove(all),
                    words: remembered.words.remove(all),
                    problems: cached.problems.clone(),
                    ..Unit::listed(unit.key.clone(), unit.folder.clone(), files, stamps)
                })));
                from_store += 1;
                continue;
            }
            to_read.push((units.len(), unit, files, stamps));
            units.push(None);
        }
        let remembered_units = remembered.index.units().len();
        drop(remembered);
        let reading = self.reading;
        if reading == Reading::Whole && to_read.len() > 50 && std::io::stderr().is_terminal() {
            eprintln!(
                "sessionscope: reading {} sessions once to remember them; later runs read only what changed",
                to_read.len()
            );
        }
        let read = parallel_map(&to_read, |(_, unit, files, _)| match reading {
            Reading::Later => None,
            Reading::Rows => Some(read_unit(files.iter(), &unit.folder, false, false)),
            Reading::Whole => Some(read_unit(files.iter(), &unit.folder, true, true)),
        });
        // A unit listed for later is no change to remember.
        let read_now = if reading == Reading::Later { 0 } else { to_read.len() };
        for ((at, unit, files, stamps), read) in to_read.into_iter().zip(read) {
            let listed = Unit::listed(unit.key.clone(), unit.folder.clone(), files, stamps);
            let unit = match read {
                Some(read) => listed.read(read),
                None => listed,
            };
            if let Some(slot) = units.get_mut(at) {
                *slot = Some(Arc::new(unit));
            }
        }
        let before = std::mem::take(&mut self.units);
        self.units = units.into_iter().flatten().collect();
        self.dirty |=
            read_now > 0 || (first && from_store != remembered_units) || (!first && before.len() != self.units.len());
        let mut problems = grouped.problems;
        problems.extend(self.units.iter().flat_map(|unit| unit.problems.iter().cloned()));
        problems.sort_by(|a, b| a.path.cmp(&b.path));
        self.problems = problems;
    }

    /// Whether some unit lacks its trigram set (`sets`) or insights (`insights`).
    pub fn lacks(&self, sets: bool, insights: bool) -> bool {
        self.units.iter().any(|unit| unit.lacks(sets, insights))
    }

    /// Makes the trigram sets (`sets`) and insights (`insights`) the units lack, reading their
    /// files again on every core, then keeps the history in the store if it changed.
    pub fn fill(&mut self, sets: bool, insights: bool) {
        let lacking = self.lacking(sets, insights);
        let made = make(&lacking, sets, insights);
        self.take(made);
    }

    /// The units that lack their trigram set (`sets`) or insights (`insights`), to [`make`]
    /// away from the history (it can answer meanwhile) and then [`Live::take`].
    pub fn lacking(&self, sets: bool, insights: bool) -> Vec<Arc<Unit>> {
        let lacking: Vec<Arc<Unit>> = self.units.iter().filter(|unit| unit.lacks(sets, insights)).cloned().collect();
        if lacking.len() > 50 && std::io::stderr().is_terminal() {
            eprintln!(
                "sessionscope: reading {} sessions once to remember them; later runs read only what changed",
                lacking.len()
            );
        }
        lacking
    }

    /// Takes units [`make`] made in place of those they were made from, if a refresh has not
    /// replaced those meanwhile; then keeps the history in the store if it changed.
    pub fn take(&mut self, made: Vec<(Arc<Unit>, Unit)>) {
        let at: HashMap<*const Unit, usize> =
            self.units.iter().enumerate().map(|(at, unit)| (Arc::as_ptr(unit), at)).collect();
        for (was, unit) in made {
            if let Some(&at) = at.get(&Arc::as_ptr(&was))
                && let Some(slot) = self.units.get_mut(at)
            {
                *slot = Arc::new(unit);
                self.dirty = true;
            }
        }
        if self.dirty {
            self.remember();
            self.dirty = false;
        }
    }

    /// Keeps the units whose files could all be looked at in the store (with the insights the
    /// store holds for those taken from it without theirs).
    fn remember(&self) {
        let Some(store) = &self.store else { return };
        let kept_insights =
            if self.units.iter().any(|unit| unit.insights.is_none()) { store.insights() } else { HashMap::new() };
        let keep: Vec<ToKeep<'_>> = self
            .units
            .iter()
            .filter_map(|unit| {
                if !unit.rows_known {
                    return None;
                }
                let files = unit.all_stamps()?;
                let insights = unit.insights.as_ref().or_else(|| kept_insights.get(&files));
                let cached = CachedUnit {
                    key: unit.key.clone(),
                    folder: unit.folder.clone(),
                    files,
                    rows: unit.rows.clone(),
                    problems: unit.problems.clone(),
                };
                Some(ToKeep { unit: cached, set: unit.set.as_ref(), words: unit.words.as_ref(), insights })
            })
            .collect();
        if let Err(error) = store.save(&keep) {
            eprintln!(
                "sessionscope: the history could not be remembered in {} ({error}); the next run reads it again",
                store.dir().display()
            );
        }
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

/// The units given, each with its trigram set (`sets`) and insights (`insights`) made, their
/// files read again on every core.
pub fn make(units: &[Arc<Unit>], sets: bool, insights: bool) -> Vec<(Arc<Unit>, Unit)> {
    // Units are read together only while their bytes stay under a budget: two of a history's
    // biggest sessions at once, each with its model, insights and set, would pass the memory a
    // server that answers meanwhile should hold.
    let budget = Budget::new(MAKE_BUDGET_BYTES);
    let read = parallel_map(units, |unit| {
        let bytes = unit.stamps.iter().flatten().map(|stamp| stamp.size).sum();
        let _held = budget.take(bytes);
        let has_sets = unit.set.is_some() && unit.words.is_some();
        read_unit(unit.files.iter(), &unit.folder, insights || unit.insights.is_some(), sets || has_sets)
    });
    units
        .iter()
        .zip(read)
        .map(|(was, read)| {
            let listed = Unit::listed(was.key.clone(), was.folder.clone(), was.files.clone(), was.stamps.clone());
            let unit =
                Unit { insights: was.insights.clone(), set: was.set.clone(), words: was.words.clone(), ..listed }
                    .read(read);
            (Arc::clone(was), unit)
        })
        .collect()
}

/// The bytes of units [`make`] reads at once (a bigger unit is read alone).
const MAKE_BUDGET_BYTES: u64 = 96 << 20;

/// Bytes being read, under a limit: a taker waits while others hold bytes and its own would pass
/// the limit (alone, it always goes).
struct Budget {
    used: std::sync::Mutex<u64>,
    freed: std::sync::Condvar,
    limit: u64,
}

/// Bytes taken from a [`Budget`], given back when dropped.
struct Held<'a> {
    budget: &'a Budget,
    bytes: u64,
}

impl Budget {
    fn new(limit: u64) -> Budget {
        Budget { used: std::sync::Mutex::new(0), freed: std::sync::Condvar::new(), limit }
    }

    fn take(&self, bytes: u64) -> Held<'_> {
        let mut used = self.used.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        while *used > 0 && used.saturating_add(bytes) > self.limit {
            used = self.freed.wait(used).unwrap_or_else(std::sync::PoisonError::into_inner);
        }
        *used += bytes;
        Held { budget: self, bytes }
    }
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        let mut used = self.budget.used.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        *used = used.saturating_sub(self.bytes);
        self.budget.freed.notify_all();
    }
}

/// Why no session was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lookup {
    None,
    Several(usize),
}

/// The files under `folders` that exist, with the names they are known by (relative to each
/// folder's parent), in name order.
pub fn list_files(folders: &[PathBuf]) -> Vec<(PathBuf, String)> {
    let mut files = Vec::new();
    let mut seen = crate::Seen::default();
    for folder in folders.iter().filter(|folder| folder.exists()) {
        crate::collect_tree(folder, folder.parent().unwrap_or(Path::new("")), &mut files, &mut seen);
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
