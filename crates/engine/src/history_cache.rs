//! The index of a remembered history, kept between visits: each unit's rows and file problems,
//! with the path, size and last-modified time of the files they were read from.
//!
//! Reopening a history looks each unit up by those stamps: a unit whose files are all unchanged
//! takes its rows from here and is not read; a new or changed one is indexed again; a unit whose
//! files are gone is not looked up and leaves with the next save. The cache holds rows (title,
//! first prompt cut to a line, counts, models, usage, cost, file paths) and problems, never
//! message text beyond those.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::history::{FileProblem, SessionRow};

/// Bumped whenever a row's meaning or the cache's shape changes: an older cache is dropped.
/// (3: Gemini CLI, Qwen Code and GitHub Copilot CLI sessions are read, which older versions
/// listed as problems, and a `<hash>/chats/` folder names its project by the hash. 4: Cursor
/// CLI transcripts are read, `<id>/<id>.jsonl` with its `subagents/` one unit, and an
/// `agent-transcripts` folder names its project by the folder above. 5: a Roo Code subtask's
/// folder is of its parent's unit when its `history_item.json` names it, and Gemini CLI and Qwen
/// Code subagent files of their session's unit: rows count their subagents. 6: OpenCode's older JSON
/// storage is read, a session's files one unit with its child sessions', which older versions
/// listed one by one as files that are no log.)
pub const CACHE_VERSION: u32 = 6;

/// What identifies a file's content without reading it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct FileStamp {
    pub path: String,
    pub size: u64,
    /// Milliseconds since the epoch, as the browser's `File.lastModified` gives it.
    pub modified_ms: i64,
}

/// One unit of the history, as it was indexed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CachedUnit {
    /// The unit's key and project folder ([`crate::history::Unit`]).
    pub key: String,
    pub folder: String,
    /// The unit's files, main transcript first.
    pub files: Vec<FileStamp>,
    pub rows: Vec<SessionRow>,
    pub problems: Vec<FileProblem>,
}

/// The cached index of one history.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct IndexCache {
    version: u32,
    units: Vec<CachedUnit>,
    #[serde(skip)]
    by_first_path: HashMap<String, usize>,
}

impl IndexCache {
    pub fn new(units: Vec<CachedUnit>) -> IndexCache {
        let mut cache = IndexCache { version: CACHE_VERSION, units, by_first_path: HashMap::new() };
        cache.link();
        cache
    }

    /// Reads a cache written by [`Self::encode`]; `None` for another version or bytes that are
    /// not a cache (they are then indexed afresh, never trusted in part).
    pub fn decode(bytes: &[u8]) -> Option<IndexCache> {
        #[derive(Deserialize)]
        struct Version {
            version: u32,
        }
        let version: Version = serde_json::from_slice(bytes).ok()?;
        if version.version != CACHE_VERSION {
            return None;
        }
        let mut cache: IndexCache = serde_json::from_slice(bytes).ok()?;
        cache.link();
        Some(cache)
    }

    pub fn encode(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_default()
    }

    fn link(&mut self) {
        self.by_first_path = self
            .units
            .iter()
            .enumerate()
            .filter_map(|(i, unit)| unit.files.first().map(|f| (f.path.clone(), i)))
            .collect();
    }

    /// The cached unit whose files are exactly these (same paths, sizes and times, in order).
    pub fn lookup(&self, files: &[FileStamp]) -> Option<&CachedUnit> {
        let first = files.first()?;
        let unit = self.units.get(*self.by_first_path.get(&first.path)?)?;
        (unit.files == files).then_some(unit)
    }

    pub fn units(&self) -> &[CachedUnit] {
        &self.units
    }

    pub fn sessions(&self) -> usize {
        self.units.iter().map(|u| u.rows.len()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stamp(path: &str, size: u64, modified_ms: i64) -> FileStamp {
        FileStamp { path: path.to_owned(), size, modified_ms }
    }

    fn unit(files: Vec<FileStamp>, title: &str) -> CachedUnit {
        let row = SessionRow {
            title: title.to_owned(),
            files: files.iter().map(|f| f.path.clone()).collect(),
            ..SessionRow::default()
        };
        let key = files[0].path.trim_end_matches(".jsonl").to_owned();
        CachedUnit { key, folder: "p".to_owned(), files, rows: vec![row], problems: Vec::new() }
    }

    #[test]
    fn a_unit_is_found_only_while_every_file_is_unchanged() {
        let main = stamp("p/a.jsonl", 100, 5);
        let agent = stamp("p/a/subagents/agent-1.jsonl", 40, 6);
        let cache = IndexCache::decode(
            &IndexCache::new(vec![
                unit(vec![main.clone(), agent.clone()], "first"),
                unit(vec![stamp("p/b.jsonl", 7, 1)], "second"),
            ])
            .encode(),
        )
        .expect("a cache reads back");
        assert_eq!(cache.sessions(), 2);
        let found = cache.lookup(&[main.clone(), agent.clone()]).expect("unchanged files are found");
        assert_eq!(found.rows[0].title, "first");
        // The main file grew, an agent file was touched, an agent file is new or gone.
        assert!(cache.lookup(&[stamp("p/a.jsonl", 120, 5), agent.clone()]).is_none());
        assert!(cache.lookup(&[main.clone(), stamp("p/a/subagents/agent-1.jsonl", 40, 9)]).is_none());
        assert!(cache.lookup(&[main.clone(), agent.clone(), stamp("p/a/subagents/agent-2.jsonl", 1, 1)]).is_none());
        assert!(cache.lookup(std::slice::from_ref(&main)).is_none());
        assert!(cache.lookup(&[stamp("p/c.jsonl", 7, 1)]).is_none());
        assert!(cache.lookup(&[]).is_none());
    }

    #[test]
    fn another_version_or_other_bytes_are_no_cache() {
        let mut cache = IndexCache::new(vec![unit(vec![stamp("p/a.jsonl", 1, 1)], "t")]);
        cache.version = CACHE_VERSION + 1;
        assert!(IndexCache::decode(&cache.encode()).is_none());
        assert!(IndexCache::decode(b"").is_none());
        assert!(
            IndexCache::decode(format!("{{\"version\":{CACHE_VERSION},\"units\":[{{\"files\":3}}]}}").as_bytes())
                .is_none()
        );
        assert!(IndexCache::decode(b"\x00\xff not json").is_none());
    }
}
