//! What the page asks of the history worker's ranked search (issue 52), and its answers. The
//! worker keeps every unit's word index (`sessionscope_engine::word_index::UnitWords`, as the
//! unit's worker made it while indexing) and ranks the history's sessions with the engine's
//! search ([`sessionscope_engine::ranked`]): the page holds neither the indexes nor the code that
//! reads the search language, scores and draws the results.

use serde::{Deserialize, Serialize};
use sessionscope_engine::history::SessionRow;
use sessionscope_engine::history_cache::FileStamp;
use sessionscope_engine::ranked::Sort;
use sessionscope_engine::word_index::UnitWords;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WordsRequest {
    /// Keep a unit's rows and word index, in the parcel's one buffer (as [`searchable_bytes`]
    /// writes them), made of its files as `read` stamps them (the unit is known by its first
    /// file); a parcel without a buffer forgets the unit's. Not answered.
    Keep { read: Vec<FileStamp> },
    /// Every unit's rows and word index as the cache keeps them ([`encode_kept`]), for the units
    /// whose files `units` stamps (each unit's, as they are now): answered by
    /// [`WordsReply::Encoded`], its bytes in the parcel's one buffer.
    Encode { units: Vec<Vec<FileStamp>> },
    /// Keep the units of the cache's bytes ([`encode_kept`]), in the parcel's one buffer: each
    /// answers for its unit while the unit's files are those it was made of. Not answered.
    Restore,
    /// Rank the history's sessions for `query`, in the search language, keeping `keep` of them
    /// in `sort`'s order: answered by [`WordsReply::Ranked`] or [`WordsReply::QueryError`]. The
    /// parcel's files are each unit's files, unit after unit, as `units` names them; `marks` are
    /// the person's marks as `Marks::to_json` writes them (for `is:starred` and `tag:`).
    Rank { query: String, sort: Sort, keep: u32, now_ms: f64, marks: String, units: Vec<UnitToRank> },
}

/// A unit of the history as the page lists it, for a ranked search: a unit whose word index the
/// worker keeps, made of these very files, is counted from it; any other is read.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UnitToRank {
    pub folder: String,
    pub paths: Vec<String>,
    pub read: Vec<FileStamp>,
}

/// A unit's word index as it travels from the unit's worker, through the page untouched, to the
/// history worker: the unit's rows (JSON, after their length as 4 bytes, little-endian), which
/// the filters read, then the index's bytes.
pub fn searchable_bytes(rows: &[SessionRow], words: &UnitWords) -> Vec<u8> {
    let rows = serde_json::to_vec(rows).unwrap_or_else(|_| b"[]".to_vec());
    let mut out = Vec::with_capacity(4 + rows.len() + words.as_bytes().len());
    out.extend_from_slice(&(rows.len() as u32).to_le_bytes());
    out.extend_from_slice(&rows);
    out.extend_from_slice(words.as_bytes());
    out
}

/// The rows and word index of [`searchable_bytes`]' bytes; `None` if they do not read.
pub fn read_searchable(bytes: &[u8]) -> Option<(Vec<SessionRow>, UnitWords)> {
    let length = u32::from_le_bytes(bytes.get(..4)?.try_into().ok()?) as usize;
    let rows = serde_json::from_slice(bytes.get(4..4usize.checked_add(length)?)?).ok()?;
    let words = UnitWords::from_bytes(bytes.get(4 + length..)?.to_vec())?;
    Some((rows, words))
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WordsReply {
    /// The sessions found, drawn (an ordered list whose buttons open a session at a hit,
    /// `data-action="open-hit"`), and a sentence saying how many, of how many, and how many
    /// units had to be read (not counted from their word index).
    /// `completions`: the query with its last word completed (a filter's key or value), as
    /// the box offers them.
    /// `more`: the sessions found past those drawn.
    Ranked { html: String, status: String, completions: Vec<String>, more: u32 },
    /// The cache's bytes of [`WordsRequest::Encode`], in the parcel's one buffer.
    Encoded,
    /// The query is not one the language reads: why, in words for the user.
    QueryError { message: String, completions: Vec<String> },
}

/// The first bytes of [`encode_kept`]' output; another version's bytes are not read.
const KEPT_MAGIC: &[u8; 4] = b"SSWK";

/// Units' rows and word indexes as a remembered folder's cache keeps them: the magic, then for
/// each unit the stamps of its files (JSON) and its [`searchable_bytes`], each after its length
/// (4 bytes, little-endian).
pub fn encode_kept<'a>(units: impl IntoIterator<Item = (&'a [FileStamp], &'a [u8])>) -> Vec<u8> {
    let mut out = KEPT_MAGIC.to_vec();
    for (stamps, searchable) in units {
        let stamps = serde_json::to_vec(stamps).unwrap_or_else(|_| b"[]".to_vec());
        for part in [&stamps[..], searchable] {
            out.extend_from_slice(&(part.len() as u32).to_le_bytes());
            out.extend_from_slice(part);
        }
    }
    out
}

/// The units of [`encode_kept`]' bytes: each one's stamps and searchable bytes; `None` for
/// another version, or bytes cut short.
pub fn decode_kept(bytes: &[u8]) -> Option<Vec<(Vec<FileStamp>, &[u8])>> {
    let mut rest = bytes.strip_prefix(KEPT_MAGIC)?;
    let mut part = || {
        let length = u32::from_le_bytes(rest.get(..4)?.try_into().ok()?) as usize;
        let (part, after) = rest.get(4..)?.split_at_checked(length)?;
        rest = after;
        Some(part)
    };
    let mut units = Vec::new();
    while let Some(stamps) = part() {
        let stamps = serde_json::from_slice(stamps).ok()?;
        units.push((stamps, part()?));
    }
    rest.is_empty().then_some(units)
}
