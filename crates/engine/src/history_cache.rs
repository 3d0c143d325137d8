//! The index of a remembered history, kept between visits: each unit's rows and file problems,
//! with the path, size and last-modified time of the files they were read from; and beside it,
//! each unit's trigram set, word index and insights.
//!
//! Reopening a history looks each unit up by those stamps: a unit whose files are all unchanged
//! takes its rows from here and is not read; a new or changed one is indexed again; a unit whose
//! files are gone is not looked up and leaves with the next save. The cache holds rows (title,
//! first prompt cut to a line, counts, models, usage, cost, file paths) and problems, never
//! message text beyond those (the word indexes hold hashes of words, not words).

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::history::{FileProblem, SessionRow};
use crate::insights::UnitInsights;
use crate::small_json;
use crate::trigrams::TrigramSet;
use crate::word_index::UnitWords;

/// Bumped whenever a row's meaning or the cache's shape changes: an older cache is dropped.
/// (3: Gemini CLI, Qwen Code and GitHub Copilot CLI sessions are read, which older versions
/// listed as problems, and a `<hash>/chats/` folder names its project by the hash. 4: Cursor
/// CLI transcripts are read, `<id>/<id>.jsonl` with its `subagents/` one unit, and an
/// `agent-transcripts` folder names its project by the folder above. 5: a Roo Code subtask's
/// folder is of its parent's unit when its `history_item.json` names it, and Gemini CLI and Qwen
/// Code subagent files of their session's unit: rows count their subagents. 6: OpenCode's older JSON
/// storage is read, a session's files one unit with its child sessions', which older versions
/// listed one by one as files that are no log. 7: rows count their failed tool calls, and each
/// unit's insights are kept beside the index, [`encode_insights`].)
pub const CACHE_VERSION: u32 = 8;

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
        let version: Version = small_json::from_slice(bytes).ok()?;
        if version.version != CACHE_VERSION {
            return None;
        }
        let mut cache: IndexCache = small_json::from_slice(bytes).ok()?;
        cache.link();
        Some(cache)
    }

    pub fn encode(&self) -> Vec<u8> {
        small_json::to_vec(self).unwrap_or_default()
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

/// The trigram sets of a remembered history's units ([`crate::trigrams`]), each with the stamps of
/// the files it was made of: kept apart from the index, being bigger (up to 32 KB a unit), and
/// written only when a whole index pass ends. A set whose files changed since is not used.
pub struct CachedTrigrams {
    pub files: Vec<FileStamp>,
    pub set: TrigramSet,
}

/// The first bytes of [`encode_trigrams`]' output.
const TRIGRAMS_MAGIC: &[u8; 4] = b"SSTG";

/// The sets as bytes ([`encode_parts`]).
pub fn encode_trigrams<'a>(sets: impl IntoIterator<Item = (&'a [FileStamp], &'a TrigramSet)>) -> Vec<u8> {
    let mut out = Vec::new();
    let _ = write_trigrams(&mut out, sets);
    out
}

/// The sets, as [`encode_trigrams`] makes them, written to `out` unit by unit (a history's sets
/// are never all held twice).
pub fn write_trigrams<'a>(
    out: &mut impl std::io::Write,
    sets: impl IntoIterator<Item = (&'a [FileStamp], &'a TrigramSet)>,
) -> std::io::Result<()> {
    write_parts(out, TRIGRAMS_MAGIC, sets.into_iter().map(|(files, set)| (files, set.as_bytes())))
}

/// The sets of [`encode_trigrams`]' bytes; `None` for another version or bytes that are not
/// such sets (never trusted in part).
pub fn decode_trigrams(bytes: &[u8]) -> Option<Vec<CachedTrigrams>> {
    decode_parts(TRIGRAMS_MAGIC, bytes)?
        .into_iter()
        .map(|(files, bytes)| Some(CachedTrigrams { files, set: TrigramSet::from_bytes(bytes.to_vec())? }))
        .collect()
}

/// The sets of [`encode_trigrams`]' bytes as [`decode_trigrams`] gives them, each a part of
/// `bytes` rather than a copy (a file read or mapped once).
pub fn decode_trigrams_shared(bytes: SharedBytes) -> Option<Vec<CachedTrigrams>> {
    decode_parts_shared(TRIGRAMS_MAGIC, bytes, |files, bytes, range| {
        Some(CachedTrigrams { files, set: TrigramSet::shared(bytes, range)? })
    })
}

/// Bytes read or mapped once, shared by the parts made of them.
pub type SharedBytes = std::sync::Arc<dyn AsRef<[u8]> + Send + Sync>;

/// The parts of [`write_parts`]' bytes, each made by `make` of its stamps and its range of
/// `bytes` (shared, not copied); `None` if the bytes or any part do not read.
fn decode_parts_shared<T>(
    magic: &[u8; 4],
    bytes: SharedBytes,
    make: impl Fn(Vec<FileStamp>, SharedBytes, std::ops::Range<usize>) -> Option<T>,
) -> Option<Vec<T>> {
    let all = (*bytes).as_ref();
    let start = all.as_ptr() as usize;
    decode_parts(magic, all)?
        .into_iter()
        .map(|(files, part)| {
            let at = part.as_ptr() as usize - start;
            make(files, std::sync::Arc::clone(&bytes), at..at + part.len())
        })
        .collect()
}

/// The word indexes of a remembered history's units ([`crate::word_index`]), each with the
/// stamps of the files it was made of: kept apart from the index, as the trigram sets are, and
/// written when a whole index pass ends. An index whose files changed since is not used.
pub struct CachedWords {
    pub files: Vec<FileStamp>,
    pub words: UnitWords,
}

/// The first bytes of [`write_words`]' output. Its last byte is the version of how texts are cut
/// into words ([`crate::query::words`]) and zoned: a change there makes every kept index
/// unusable (it would count other words than a search reads), so it changes with them.
const WORDS_MAGIC: &[u8; 4] = b"SSW2";

/// The word indexes, written to `out` unit by unit.
pub fn write_words<'a>(
    out: &mut impl std::io::Write,
    units: impl IntoIterator<Item = (&'a [FileStamp], &'a UnitWords)>,
) -> std::io::Result<()> {
    write_parts(out, WORDS_MAGIC, units.into_iter().map(|(files, words)| (files, words.as_bytes())))
}

/// The word indexes of [`write_words`]' bytes, each a part of `bytes` rather than a copy; `None`
/// for another version or bytes that are not such indexes (never trusted in part).
pub fn decode_words_shared(bytes: SharedBytes) -> Option<Vec<CachedWords>> {
    decode_parts_shared(WORDS_MAGIC, bytes, |files, bytes, range| {
        Some(CachedWords { files, words: UnitWords::shared(bytes, range)? })
    })
}

/// The insights of a remembered history's units ([`crate::insights`]), each with the stamps of
/// the files they were made of: kept apart from the index, being bigger (a 4 GB history's come
/// to about 15 MB), and written when a whole index pass ends. Insights whose files changed since
/// are not used: the unit is read again.
pub struct CachedInsights {
    pub files: Vec<FileStamp>,
    pub insights: UnitInsights,
}

/// The first bytes of [`encode_insights`]' output.
const INSIGHTS_MAGIC: &[u8; 4] = b"SSIN";

/// Units' insights as bytes ([`encode_parts`]; each unit's insights as [`UnitInsights::encode`]
/// makes them).
pub fn encode_insights<'a>(units: impl IntoIterator<Item = (&'a [FileStamp], &'a [u8])>) -> Vec<u8> {
    encode_parts(INSIGHTS_MAGIC, units)
}

/// The first bytes of [`encode_insights`]' output (its magic and [`CACHE_VERSION`]), for a
/// writer or reader that puts the parts together elsewhere (a worker writes them into browser
/// memory, not its own): after them, each unit's stamps (JSON) and insights, each after its
/// length (little-endian `u32`).
pub fn insights_header() -> [u8; 8] {
    let mut header = [0; 8];
    header[..4].copy_from_slice(INSIGHTS_MAGIC);
    header[4..].copy_from_slice(&CACHE_VERSION.to_le_bytes());
    header
}

/// Units' insights as bytes, as [`encode_insights`] makes them from their encoded parts, each unit
/// encoded in turn into the output (so that the units' bytes are never all held twice).
pub fn encode_insights_of<'a>(units: impl IntoIterator<Item = (&'a [FileStamp], &'a UnitInsights)>) -> Vec<u8> {
    let mut out = Vec::new();
    let _ = write_insights_of(&mut out, units);
    out
}

/// Units' insights, as [`encode_insights_of`] makes them, written to `out` unit by unit (each
/// unit's insights encoded in turn, so that the units' bytes are never all held at once).
pub fn write_insights_of<'a>(
    out: &mut impl std::io::Write,
    units: impl IntoIterator<Item = (&'a [FileStamp], &'a UnitInsights)>,
) -> std::io::Result<()> {
    let encoded = units
        .into_iter()
        .map(|(files, insights)| (files, postcard::to_extend(insights, Vec::new()).unwrap_or_default()));
    write_parts(out, INSIGHTS_MAGIC, encoded)
}

/// The insights of [`encode_insights`]' bytes; `None` for another version or bytes that are not
/// such insights (never trusted in part).
pub fn decode_insights(bytes: &[u8]) -> Option<Vec<CachedInsights>> {
    decode_parts(INSIGHTS_MAGIC, bytes)?
        .into_iter()
        .map(|(files, bytes)| Some(CachedInsights { files, insights: UnitInsights::decode(bytes)? }))
        .collect()
}

/// Parts kept per unit, as bytes: `magic`, [`CACHE_VERSION`], then for each unit its stamps (as
/// JSON) and its part, each after its length (little-endian `u32`).
fn encode_parts<'a>(magic: &[u8; 4], parts: impl IntoIterator<Item = (&'a [FileStamp], &'a [u8])>) -> Vec<u8> {
    let mut out = Vec::new();
    let _ = write_parts(&mut out, magic, parts);
    out
}

/// The bytes of [`encode_parts`], written to `out` part by part.
fn write_parts<'a>(
    out: &mut impl std::io::Write,
    magic: &[u8; 4],
    parts: impl IntoIterator<Item = (&'a [FileStamp], impl AsRef<[u8]>)>,
) -> std::io::Result<()> {
    out.write_all(magic)?;
    out.write_all(&CACHE_VERSION.to_le_bytes())?;
    for (files, part) in parts {
        let stamps = small_json::to_vec(files).unwrap_or_default();
        for part in [stamps.as_slice(), part.as_ref()] {
            out.write_all(&(part.len() as u32).to_le_bytes())?;
            out.write_all(part)?;
        }
    }
    Ok(())
}

/// The units' stamps and parts of [`encode_parts`]' bytes; `None` for another magic or version,
/// or bytes cut short.
fn decode_parts<'b>(magic: &[u8; 4], bytes: &'b [u8]) -> Option<Vec<(Vec<FileStamp>, &'b [u8])>> {
    let rest = bytes.strip_prefix(magic.as_slice())?;
    let (version, mut rest) = rest.split_first_chunk::<4>()?;
    if u32::from_le_bytes(*version) != CACHE_VERSION {
        return None;
    }
    let part = |rest: &mut &'b [u8]| -> Option<&'b [u8]> {
        let (len, after) = rest.split_first_chunk::<4>()?;
        let len = u32::from_le_bytes(*len) as usize;
        let (part, after) = (after.get(..len)?, after.get(len..)?);
        *rest = after;
        Some(part)
    };
    let mut parts = Vec::new();
    while !rest.is_empty() {
        let files: Vec<FileStamp> = small_json::from_slice(part(&mut rest)?).ok()?;
        parts.push((files, part(&mut rest)?));
    }
    Some(parts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trigrams::TrigramSetBuilder;

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
    fn a_cache_is_written_as_serde_json_wrote_it_and_older_ones_read() {
        let mut first =
            unit(vec![stamp("p/a.jsonl", 100, 1_732_700_000_123), stamp("p/a/x.jsonl", 4, -1)], "é \"q\"\n");
        first.rows[0].cost_usd = 0.1 + 0.2;
        first.rows[0].start_ms = Some(-5);
        first.problems.push(FileProblem { path: "p/b.txt".into(), reason: "not a log".into() });
        let cache = IndexCache::new(vec![first, unit(vec![stamp("p/c.jsonl", 1, 1)], "")]);
        // Caches kept before small_json were serde_json's writing: the same bytes.
        let older = serde_json::to_vec(&cache).unwrap();
        assert_eq!(cache.encode(), older);
        let read = IndexCache::decode(&older).expect("an older cache reads");
        assert_eq!(read.units(), cache.units());
        let stamps = [stamp("p/a.jsonl", 1, 2)];
        let set = TrigramSetBuilder::new(1).finish();
        let parts = encode_trigrams([(&stamps[..], &set)]);
        assert_eq!(decode_trigrams(&parts).map(|sets| sets[0].files.clone()), Some(stamps.to_vec()));
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

    #[test]
    fn trigram_sets_come_back_as_they_were_saved_and_damaged_bytes_give_none() {
        let set_of = |text: &str| {
            let mut builder = TrigramSetBuilder::new(text.len() as u64);
            builder.add(text.as_bytes());
            builder.finish()
        };
        let a =
            (vec![stamp("p/a.jsonl", 100, 5), stamp("p/a/subagents/agent-1.jsonl", 40, 6)], set_of("the kettle boils"));
        let b = (vec![stamp("p/b.jsonl", 7, 9)], set_of("zanzibar"));
        let bytes = encode_trigrams([&a, &b].map(|(files, set)| (files.as_slice(), set)));
        let back = decode_trigrams(&bytes).expect("the sets");
        assert_eq!(back.len(), 2);
        assert_eq!((&back[0].files, &back[0].set), (&a.0, &a.1));
        assert_eq!((&back[1].files, &back[1].set), (&b.0, &b.1));
        assert!(back[1].set.may_hold(b"ZANZIBAR") && !back[1].set.may_hold(b"kettle"));
        // Read in place from shared bytes, the sets are the same, and no copy of them is made.
        let shared: std::sync::Arc<dyn AsRef<[u8]> + Send + Sync> = std::sync::Arc::new(bytes.clone());
        let in_place = decode_trigrams_shared(std::sync::Arc::clone(&shared)).expect("the sets, in place");
        assert_eq!(in_place.iter().map(|c| (&c.files, &c.set)).collect::<Vec<_>>(), vec![(&a.0, &a.1), (&b.0, &b.1)]);
        let within = (*shared).as_ref().as_ptr_range();
        assert!(in_place.iter().all(|c| within.contains(&c.set.as_bytes().as_ptr())));
        assert!(decode_trigrams_shared(std::sync::Arc::new(bytes[..bytes.len() - 1].to_vec())).is_none());
        assert_eq!(decode_trigrams(&encode_trigrams([])).map(|s| s.len()), Some(0));
        // Cut short anywhere, another version, other bytes: none of it is trusted.
        for cut in [0, 3, 7, 9, 20, bytes.len() - 1] {
            assert!(decode_trigrams(&bytes[..cut]).is_none(), "cut at {cut}");
        }
        let mut other_version = bytes.clone();
        other_version[4] ^= 0xff;
        assert!(decode_trigrams(&other_version).is_none());
        assert!(decode_trigrams(br#"{"version":6,"units":[]}"#).is_none());
    }

    #[test]
    fn insights_come_back_as_they_were_saved_and_damaged_bytes_give_none() {
        let insights = UnitInsights {
            names: vec!["src/lib.rs".to_owned(), "9d2eb259@v2".to_owned()],
            versions: vec![crate::insights::Version { path: 0, backup: 1, session: 0, version: 2, time_ms: 9 }],
            ..UnitInsights::default()
        };
        let files = vec![stamp("p/a.jsonl", 100, 5)];
        let encoded = insights.encode();
        let bytes = encode_insights([(files.as_slice(), encoded.as_slice())]);
        let back = decode_insights(&bytes).expect("the insights");
        assert_eq!(back.len(), 1);
        assert_eq!((&back[0].files, &back[0].insights), (&files, &insights));
        assert_eq!(encode_insights_of([(files.as_slice(), &insights)]), bytes, "encoded in turn, the same bytes");
        assert_eq!(&bytes[..8], insights_header().as_slice());
        for cut in [0, 3, 7, 9, bytes.len() - 1] {
            assert!(decode_insights(&bytes[..cut]).is_none(), "cut at {cut}");
        }
        // Trigram sets are not insights.
        assert!(decode_insights(&encode_trigrams([])).is_none());
    }
}
