//! What the command line remembers of a history between runs, as the page remembers a folder in
//! IndexedDB: each session unit's rows and file problems, its trigram set, word index and insights, with
//! the stamps (name, size, modification time) of the files they were read from, in the engine's
//! cache formats ([`sessionscope_engine::history_cache`]). A unit whose files are unchanged is
//! not read again; `search` skips a unit whose set cannot hold its text without opening it.
//!
//! The files live under the user's cache folder (`$SESSIONSCOPE_CACHE_DIR`, else
//! `$XDG_CACHE_HOME/sessionscope`, else `~/.cache/sessionscope`), one folder per set of history
//! folders, named by a hash of their absolute paths; the folders themselves are never written to.
//! They hold no message text beyond a session's title and first prompt (as the page's cache).
//! A cache that cannot be read is ignored and written afresh; one that cannot be written only
//! costs the next run its speed (a note on stderr says so once).

use std::collections::HashMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::UNIX_EPOCH;

use sessionscope_engine::history_cache::{
    CachedUnit, FileStamp, IndexCache, decode_insights, decode_trigrams_shared, decode_words_shared, write_insights_of,
    write_trigrams, write_words,
};
use sessionscope_engine::insights::UnitInsights;
use sessionscope_engine::trigrams::TrigramSet;
use sessionscope_engine::word_index::UnitWords;

/// The files of one history's cache.
const INDEX_FILE: &str = "index.json";
const TRIGRAMS_FILE: &str = "trigrams.bin";
const INSIGHTS_FILE: &str = "insights.bin";
const WORDS_FILE: &str = "words.bin";
/// The folders the cache is of, one per line, for a person looking in the cache folder.
const FOLDERS_FILE: &str = "folders.txt";

/// Where one history's cache is kept.
pub struct Store {
    dir: PathBuf,
    /// What the cache holds, read on a thread of its own since [`Store::read_ahead`] (with
    /// insights or not), for [`Store::load`] to take.
    ahead: std::sync::Mutex<Option<(bool, std::thread::JoinHandle<Remembered>)>>,
}

/// What a cache held: each unit as it was read, by its files' stamps.
#[derive(Default)]
pub struct Remembered {
    pub index: IndexCache,
    pub sets: HashMap<Vec<FileStamp>, TrigramSet>,
    pub words: HashMap<Vec<FileStamp>, UnitWords>,
    pub insights: HashMap<Vec<FileStamp>, UnitInsights>,
}

/// A unit to remember: its key, folder, files' stamps, and what reading it found.
pub struct ToKeep<'a> {
    pub unit: CachedUnit,
    pub set: Option<&'a TrigramSet>,
    pub words: Option<&'a UnitWords>,
    pub insights: Option<&'a UnitInsights>,
}

impl Store {
    /// The cache of the history made of `folders` (files or folders, as given), or `None` when
    /// there is no cache folder to use.
    pub fn of(folders: &[PathBuf]) -> Option<Store> {
        let root = cache_root()?;
        let mut absolute: Vec<String> = folders
            .iter()
            .map(|folder| {
                let path = std::fs::canonicalize(folder).unwrap_or_else(|_| folder.clone());
                path.to_string_lossy().into_owned()
            })
            .collect();
        absolute.sort();
        absolute.dedup();
        let key = format!("{:016x}", fnv1a(absolute.join("\n").as_bytes()));
        let store = Store { dir: root.join("histories").join(key), ahead: Default::default() };
        store.note_folders(&absolute);
        Some(store)
    }

    /// The cache's folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// What the cache holds (its insights only if asked: a search needs none); empty when it
    /// holds nothing usable (another version, damaged). The trigram sets are mapped from their
    /// file, not copied: a search reads a few bytes of each.
    pub fn load(&self, insights: bool) -> Remembered {
        let ahead = self.ahead.lock().ok().and_then(|mut ahead| ahead.take());
        if let Some((asked, reading)) = ahead
            && asked == insights
            && let Ok(remembered) = reading.join()
        {
            return remembered;
        }
        self.read(insights)
    }

    /// Starts reading what the cache holds on a thread of its own, for [`Store::load`] to take:
    /// a command that lists the history's files first (a look at each of thousands) reads its
    /// cache meanwhile, on another core.
    pub fn read_ahead(&self, insights: bool) {
        let store = Store { dir: self.dir.clone(), ahead: Default::default() };
        let reading = std::thread::spawn(move || store.read(insights));
        if let Ok(mut ahead) = self.ahead.lock() {
            *ahead = Some((insights, reading));
        }
    }

    /// [`Store::load`], here and now.
    fn read(&self, insights: bool) -> Remembered {
        // The files are read side by side: the index's rows are the longest to decode.
        std::thread::scope(|scope| {
            let index = scope.spawn(|| {
                std::fs::read(self.dir.join(INDEX_FILE))
                    .ok()
                    .and_then(|bytes| IndexCache::decode(&bytes))
                    .unwrap_or_default()
            });
            let insights = scope.spawn(move || if insights { self.insights() } else { HashMap::new() });
            let sets = map(&self.dir.join(TRIGRAMS_FILE))
                .and_then(decode_trigrams_shared)
                .map(|sets| sets.into_iter().map(|cached| (cached.files, cached.set)).collect())
                .unwrap_or_default();
            let words = map(&self.dir.join(WORDS_FILE))
                .and_then(decode_words_shared)
                .map(|units| units.into_iter().map(|cached| (cached.files, cached.words)).collect())
                .unwrap_or_default();
            let index = index.join().unwrap_or_default();
            let insights = insights.join().unwrap_or_default();
            Remembered { index, sets, words, insights }
        })
    }

    /// The units' insights the cache holds, by their files' stamps.
    pub fn insights(&self) -> HashMap<Vec<FileStamp>, UnitInsights> {
        std::fs::read(self.dir.join(INSIGHTS_FILE))
            .ok()
            .and_then(|bytes| decode_insights(&bytes))
            .map(|units| units.into_iter().map(|cached| (cached.files, cached.insights)).collect())
            .unwrap_or_default()
    }

    /// Keeps `units` as the history's cache, in place of what it held. Each file is written unit
    /// by unit beside it (a history's sets are never held twice) and then renamed over it, so
    /// that a reader never sees half of one.
    pub fn save(&self, units: &[ToKeep<'_>]) -> Result<(), std::io::Error> {
        std::fs::create_dir_all(&self.dir)?;
        let index = IndexCache::new(units.iter().map(|keep| keep.unit.clone()).collect()).encode();
        self.replace(INDEX_FILE, |out| out.write_all(&index))?;
        self.replace(TRIGRAMS_FILE, |out| {
            write_trigrams(out, units.iter().filter_map(|keep| Some((keep.unit.files.as_slice(), keep.set?))))
        })?;
        self.replace(WORDS_FILE, |out| {
            write_words(out, units.iter().filter_map(|keep| Some((keep.unit.files.as_slice(), keep.words?))))
        })?;
        self.replace(INSIGHTS_FILE, |out| {
            write_insights_of(out, units.iter().filter_map(|keep| Some((keep.unit.files.as_slice(), keep.insights?))))
        })
    }

    /// Writes the file `name` with `write`, beside it first, then renamed over it.
    fn replace(
        &self,
        name: &str,
        write: impl FnOnce(&mut std::io::BufWriter<std::fs::File>) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        let temporary = self.dir.join(format!("{name}.{}.tmp", std::process::id()));
        let written = std::fs::File::create(&temporary).and_then(|file| {
            let mut out = std::io::BufWriter::new(file);
            write(&mut out)?;
            out.flush()
        });
        let done = written.and_then(|()| std::fs::rename(&temporary, self.dir.join(name)));
        if done.is_err() {
            let _ = std::fs::remove_file(&temporary);
        }
        done
    }

    /// Writes which folders the cache is of, if it is not written yet.
    fn note_folders(&self, folders: &[String]) {
        let path = self.dir.join(FOLDERS_FILE);
        if !path.exists() && std::fs::create_dir_all(&self.dir).is_ok() {
            let _ = std::fs::write(path, folders.join("\n") + "\n");
        }
    }
}

/// The cache folder: `$SESSIONSCOPE_CACHE_DIR`, `$XDG_CACHE_HOME/sessionscope`, or the
/// system's (`~/Library/Caches/sessionscope` on macOS, `%LOCALAPPDATA%\sessionscope` on
/// Windows, `~/.cache/sessionscope` elsewhere).
fn cache_root() -> Option<PathBuf> {
    let from = |name: &str| std::env::var_os(name).filter(|value| !value.is_empty()).map(PathBuf::from);
    if let Some(dir) = from("SESSIONSCOPE_CACHE_DIR") {
        return Some(dir);
    }
    if let Some(dir) = from("XDG_CACHE_HOME") {
        return Some(dir.join("sessionscope"));
    }
    if cfg!(windows) {
        return from("LOCALAPPDATA").map(|dir| dir.join("sessionscope"));
    }
    let home = from("HOME")?;
    if cfg!(target_os = "macos") {
        return Some(home.join("Library/Caches/sessionscope"));
    }
    Some(home.join(".cache/sessionscope"))
}

/// A file's stamp as the cache keeps it, under the name it is known by; `None` when it cannot be
/// looked at (or is stdin, which is never remembered).
pub fn stamp(path: &Path, name: &str) -> Option<FileStamp> {
    if crate::is_stdin(path) {
        return None;
    }
    let meta = std::fs::metadata(path).ok()?;
    let modified_ms = meta
        .modified()
        .ok()
        .and_then(|time| time.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |since| i64::try_from(since.as_millis()).unwrap_or(i64::MAX));
    Some(FileStamp { path: name.to_owned(), size: meta.len(), modified_ms })
}

/// A file's bytes mapped into memory (read by the pages touched only). The cache's files are
/// replaced by a rename, never written in place, so a mapping stays whole.
fn map(path: &Path) -> Option<Arc<dyn AsRef<[u8]> + Send + Sync>> {
    let file = std::fs::File::open(path).ok()?;
    // SAFETY: the file is one of the cache's, which this program only ever replaces whole (see
    // `Store::save`); a mapping of the replaced file keeps its bytes.
    let mapped = unsafe { memmap2::Mmap::map(&file) }.ok()?;
    Some(Arc::new(mapped))
}

/// The 64-bit FNV-1a hash of some bytes: names a cache folder (not a secret, only a name).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}
