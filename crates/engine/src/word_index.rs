//! The inverted index of a unit's words (issue 52): for each session of a unit, every word it
//! holds with its count in each of ranked search's zones ([`crate::rank::Zone`]), the words in
//! each zone, and the tools it called. It is made from the model the index pass reads anyway (no
//! second read of the files), kept in the cache beside the unit's trigram set, and lets a ranked
//! search score a session without opening its files ([`indexed_stats`]).
//!
//! A word is kept as a 32-bit hash of its text, never the text: the cache keeps no message text
//! beyond a session's title and first prompt. Two words of one session may share a hash (about
//! one chance in 400,000 for a session of 10,000 words); a search then counts the other word's
//! occurrences, and only the snippets, which are read from the files, show the difference. Words
//! longer than [`MAX_WORD_BYTES`] (hashes, encoded blobs) are not kept; a query that asks for one
//! reads the files instead ([`answers`]). A text's words are cut from its JSON as the log wrote
//! it, escapes read in place, without a decoded copy (`each_word_hash_of_written`).
//!
//! The bytes are read in place, never decoded whole: a session's words are a sorted list of
//! hashes in blocks of [`BLOCK`], with a directory of each block's first hash, so that looking a
//! word up reads one block. Every read is checked: damaged bytes answer nothing, never panic.
//!
//! ```text
//! unit:     varint sessions, then each session
//! session:  varint id length, id, 4 varint zone lengths, varint tools, each (varint length, name),
//!           varint files, each (varint length, name), varint words, varint postings' bytes, the
//!           directory (per block: u32 first hash, u32 offset of the block in the postings,
//!           little-endian), the postings
//! posting:  varint hash delta from the last (0 for a block's first), u8 zone mask, a varint
//!           count for each zone in the mask, then where the word is first in its best zone:
//!           varint 0 (in no message's line), or varint file + 1, varint line start, u8 zone
//! ```
//!
//! That place lets a search show a session's snippets by reading one line of its files for each
//! word, not the whole unit ([`crate::rank::line_snippet`]).

use std::ops::Range;
use std::sync::Arc;

use crate::dag::Graph;
use crate::dag::SessionId;
use crate::model::Corpus;
use crate::query::Filter;
use crate::query::{Parsed, Term, words};
use crate::rank::{SessionStats, ZONES, Zone, each_zoned_text, place_of, roles_of};
use crate::search::{Field, Written};

/// Words longer than this are not kept.
pub const MAX_WORD_BYTES: usize = 64;

/// Words a block of the postings holds.
const BLOCK: usize = 64;

/// A unit's word index.
#[derive(Clone)]
pub struct UnitWords {
    bytes: Bytes,
}

/// Its bytes: its own, or a part of bytes it shares with other units' (a cache file read once).
#[derive(Clone)]
enum Bytes {
    Owned(Vec<u8>),
    Shared(Arc<dyn AsRef<[u8]> + Send + Sync>, Range<usize>),
}

impl std::fmt::Debug for UnitWords {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "UnitWords({} bytes)", self.as_bytes().len())
    }
}

/// Where a word is first in its best zone: the line of a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WordPlace<'a> {
    /// The file's name, as the unit's files are named.
    pub file: &'a str,
    pub line_start: u64,
    pub zone: Zone,
}

/// One session's part of a [`UnitWords`], read in place.
#[derive(Clone, Debug)]
pub struct SessionWords<'a> {
    pub session_id: &'a str,
    /// Words in each zone.
    pub lengths: [u32; ZONES],
    tools: Vec<&'a str>,
    files: Vec<&'a str>,
    words: usize,
    directory: &'a [u8],
    postings: &'a [u8],
}

/// The hash a word is kept by: its bytes eight at a time, each with its `0x20` bit set (which
/// lowercases an ASCII letter and keeps digits, and `_` apart from them all), multiplied in, then
/// mixed and folded to 32 bits. A word is hashed lowercased ([`words`]); an ASCII word's hash is
/// the same from its bytes as they are, which lets an index be made without lowercasing it.
pub fn word_hash(word: &str) -> u32 {
    hash_folded(word.as_bytes())
}

fn hash_folded(bytes: &[u8]) -> u32 {
    hash_at(bytes, 0, bytes.len())
}

/// The hash of the word `bytes[start..end]` (ASCII): its eight-byte pieces, each with its
/// letters lowercased, the last one padded with zeros. A piece is loaded whole from `bytes`
/// when `bytes` goes on past it (the bytes after the word masked off), so a short word costs one
/// load.
fn hash_at(bytes: &[u8], start: usize, end: usize) -> u32 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    const LOWER: u64 = 0x2020_2020_2020_2020;
    let mix = |hash: u64, eight: u64| (hash.rotate_left(5) ^ (eight | LOWER)).wrapping_mul(K);
    let mut hash = end.saturating_sub(start) as u64;
    let mut at = start;
    while at + 8 <= end {
        let eight = bytes.get(at..at + 8).and_then(|eight| eight.try_into().ok()).map_or(0, u64::from_le_bytes);
        hash = mix(hash, eight);
        at += 8;
    }
    if at < end {
        let rest = end - at;
        let eight = match bytes.get(at..at + 8).and_then(|eight| <[u8; 8]>::try_from(eight).ok()) {
            Some(eight) => u64::from_le_bytes(eight) & ((1u64 << (8 * rest)) - 1),
            None => {
                let mut eight = [0u8; 8];
                if let (Some(to), Some(from)) = (eight.get_mut(..rest), bytes.get(at..end)) {
                    to.copy_from_slice(from);
                }
                u64::from_le_bytes(eight)
            }
        };
        hash = mix(hash, eight);
    }
    hash ^= hash >> 29;
    hash = hash.wrapping_mul(K);
    (hash >> 32) as u32
}

/// Whether a unit's index answers `parsed` as reading its files would: every term is a word
/// short enough to be kept, and no filter needs the texts (`file:` looks into tool inputs).
pub fn answers(parsed: &Parsed) -> bool {
    let terms_kept = parsed.clauses.iter().flat_map(|clause| &clause.any_of).all(|term| match term {
        Term::Word(word) => word.len() <= MAX_WORD_BYTES,
        Term::Prefix(_) | Term::Phrase(_) => false,
    });
    let filters_kept = parsed.filters.iter().all(|clause| !matches!(clause.filter, crate::query::Filter::File(_)));
    terms_kept && filters_kept && parsed.regex.is_none()
}

/// A session's counts for `parsed` from its word index, as [`crate::rank::unit_stats`] counts them from its
/// texts (without snippets): which clauses it holds, and its counts if it holds them all and
/// passes `tool:`. Only for a query the index [`answers`].
pub fn indexed_stats(
    words: &SessionWords<'_>,
    session: SessionId,
    parsed: &Parsed,
) -> (Vec<bool>, Option<SessionStats>) {
    let roles = roles_of(parsed);
    let zones = [Zone::Title, Zone::Prompt, Zone::Answer, Zone::Tool];
    let allowed: Vec<bool> =
        zones.iter().map(|&zone| roles.is_empty() || roles.iter().any(|&role| zone.has_role(role))).collect();
    let mut found = vec![false; parsed.clauses.len()];
    let mut frequencies = vec![[0u32; ZONES]; parsed.clauses.len()];
    for (c, clause) in parsed.clauses.iter().enumerate() {
        for term in &clause.any_of {
            let Term::Word(word) = term else { continue };
            let counts = words.frequencies(word);
            for (z, &count) in counts.iter().enumerate() {
                if count == 0 || !allowed[z] {
                    continue;
                }
                found[c] = true;
                if !clause.negated {
                    frequencies[c][z] += count;
                }
            }
        }
    }
    let tools_pass = parsed.filters.iter().all(|clause| match &clause.filter {
        Filter::Tool(tool) => words.has_tool(tool) != clause.negated,
        _ => true,
    });
    let matched = (parsed.holds(&found) && tools_pass).then(|| SessionStats {
        session,
        frequencies,
        lengths: words.lengths,
        snippets: Vec::new(),
    });
    (found, matched)
}

/// What one session holds while its index is made.
#[derive(Default)]
struct Building {
    lengths: [u32; ZONES],
    tools: Vec<String>,
    /// Each word's counts, and its first place in its best zone: (zone, file, line start).
    words: WordCounts,
}

/// A word's counts per zone and its best place so far, while an index is made. It is small (28
/// bytes) because a big session's table of them outgrows the processor's cache, and each word
/// read looks its own up.
#[derive(Clone, Copy)]
struct Counted {
    counts: [u32; ZONES],
    /// (zone, file, line start); [`NOWHERE`] while the word is in no message's line.
    place: (u8, u32, u32),
}

/// The place of a word in no message's line: after every place, so the smallest place is the best.
const NOWHERE: (u8, u32, u32) = (u8::MAX, 0, 0);

/// Each word's [`Counted`] by its hash ([`word_hash`]), while an index is made: a table with
/// open addressing, a word's slot found by probing on from the slot its hash names, at most half
/// the slots taken. A slot holds the hash beside the counts, so finding a word reads one place
/// of memory, where a general map reads its control bytes first; every word read looks one up.
/// The hash 0 marks an empty slot, so the word whose hash is 0 is kept beside the slots.
#[derive(Default)]
struct WordCounts {
    slots: Vec<(u32, Counted)>,
    taken: usize,
    zero: Option<Counted>,
}

impl WordCounts {
    /// The counts of the word whose hash is `hash`, `new` if it has none yet.
    fn counted(&mut self, hash: u32, new: Counted) -> &mut Counted {
        if hash == 0 {
            return self.zero.get_or_insert(new);
        }
        if (self.taken + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let at = self.find(hash);
        let slot = &mut self.slots[at];
        if slot.0 == 0 {
            *slot = (hash, new);
            self.taken += 1;
        }
        &mut slot.1
    }

    /// The slot of `hash` (a hash other than 0): its own, or the empty one it would take.
    fn find(&self, hash: u32) -> usize {
        let mask = self.slots.len() - 1;
        let mut at = hash as usize & mask;
        while let Some(&(key, _)) = self.slots.get(at)
            && key != hash
            && key != 0
        {
            at = (at + 1) & mask;
        }
        at
    }

    /// Twice the slots (16 at first), each word moved to its slot in them.
    fn grow(&mut self) {
        let empty = (0, Counted { counts: [0; ZONES], place: NOWHERE });
        let slots = (self.slots.len() * 2).max(16);
        let old = std::mem::replace(&mut self.slots, vec![empty; slots]);
        for (hash, counted) in old.into_iter().filter(|(hash, _)| *hash != 0) {
            let at = self.find(hash);
            self.slots[at] = (hash, counted);
        }
    }

    /// Each word's hash and counts, in no order.
    fn iter(&self) -> impl Iterator<Item = (u32, &Counted)> {
        let zero = self.zero.as_ref().map(|counted| (0, counted));
        zero.into_iter().chain(self.slots.iter().filter(|(hash, _)| *hash != 0).map(|(hash, counted)| (*hash, counted)))
    }
}

/// Calls `each(hash, bytes, number)` for each word of `text` as [`words`] cuts it, with
/// [`word_hash`] of the word lowercased, its length in bytes, and whether it is a number
/// ([`crate::rank::is_number`]).
fn each_word_hash(text: &str, mut each: impl FnMut(u32, usize, bool)) {
    // Without escapes to read, the whole text is cut.
    let _ = each_word_hash_in(text.as_bytes(), false, &mut each);
}

/// Calls `each` for each word of `text` as [`each_word_hash`] does for its decoded text
/// ([`Written::decoded`]), without decoding a raw JSON value when it need not: its escapes are
/// read in place. Each escape a writer uses for a character that separates words (`\n`, `\t`,
/// `\"`, `\\`, `\/`, `\r`, `\b`, `\f`) stands for a separator, so its escaped byte is one. From
/// the first block with any other escape (`\u…`, or one a strict reader refuses) on, the rest of
/// the value is decoded first. A string literal without its closing quote is not decoded (see
/// [`crate::json::decode_value`]), so it is cut as written.
fn each_word_hash_of_written(text: Written<'_>, mut each: impl FnMut(u32, usize, bool)) {
    let raw = match text {
        Written::Plain(text) => return each_word_hash(text, each),
        Written::Json(raw) => raw,
    };
    if crate::json::is_string_literal(raw) && crate::json::string_body(raw).is_none() {
        return each_word_hash(&text.decoded(), each);
    }
    if let Err(from) = each_word_hash_in(raw, true, &mut each) {
        let rest = raw.get(from..).unwrap_or_default();
        each_word_hash(&crate::json::decode_string_body(rest), each);
    }
}

/// The cut of [`each_word_hash`] over `bytes`, with a JSON value's escapes read in place when
/// `escapes` (see [`each_word_hash_of_written`]). `Err(from)` when it meets an escape it cannot
/// read in place: the words before `from` are cut, those from `from` on are not, and no word
/// and no escape spans `from`.
///
/// The text is cut into runs of bytes that may be a word's (ASCII letters, digits, `_`, and every
/// byte of a character past ASCII), 64 bytes at a time: each block's bytes are classed into
/// masks without a branch, and its runs are read off the masks. A run of ASCII letters and digits
/// (most are) is hashed in place, without a string a word; any other run is cut by
/// [`each_word_hash_of_run`]. Reading a block's runs this way spares the processor a mispredicted
/// branch at every word's start and end, which cost more than the rest of the cut.
fn each_word_hash_in(bytes: &[u8], escapes: bool, each: &mut impl FnMut(u32, usize, bool)) -> Result<(), usize> {
    let mut at = 0;
    // Whether the byte at `at` is escaped by a backslash before it.
    let mut escaped_first = false;
    while at < bytes.len() {
        let block = bytes.get(at..bytes.len().min(at + 64)).unwrap_or_default();
        let Classes { mut runs, plain, digits, backslashes } = classes(block);
        let mut escaped_next = false;
        if escapes && (backslashes != 0 || escaped_first) {
            let Some((escaped, carried)) = escaped_bytes(block, backslashes, escaped_first) else {
                // Before this block's words, from where no escape is cut in two.
                return Err(if escaped_first { at.saturating_sub(1) } else { at });
            };
            runs &= !escaped;
            escaped_next = carried;
        }
        let mut next = at + block.len();
        while runs != 0 {
            let start = runs.trailing_zeros() as usize;
            let len = (!(runs >> start)).trailing_zeros() as usize;
            let end = start + len;
            if end == block.len() && next < bytes.len() {
                // The run may go on past the block: the next block starts with it, or, when it
                // fills the block, it is read on byte by byte. A run's byte is not escaped, and
                // the byte after a run is not either.
                next = if start > 0 { at + start } else { each_word_hash_of_run(bytes, at, None, each) };
                escaped_next = false;
                break;
            }
            let mask = if len >= 64 { u64::MAX } else { (1u64 << len) - 1 };
            if (plain >> start) & mask == mask {
                each(hash_at(bytes, at + start, at + end), len, (digits >> start) & mask == mask);
            } else {
                each_word_hash_of_run(bytes, at + start, Some(at + end), each);
            }
            runs &= !(mask << start);
        }
        at = next;
        escaped_first = escaped_next;
    }
    Ok(())
}

/// The bytes of `block` (with `backslashes` its mask of `\`) that a backslash escapes, bit `i`
/// for byte `i`, and whether the byte after the block is escaped; `escaped_first` says whether
/// its first byte is. A backslash escapes the byte after it unless it is escaped itself. `None`
/// when an escaped byte is not one that [`each_word_hash_of_written`] reads in place.
fn escaped_bytes(block: &[u8], backslashes: u64, escaped_first: bool) -> Option<(u64, bool)> {
    let in_place = |at: usize| matches!(block.get(at), Some(b'n' | b't' | b'r' | b'b' | b'f' | b'/' | b'\\' | b'"'));
    if escaped_first && !in_place(0) {
        return None;
    }
    let mut escaped = u64::from(escaped_first);
    let mut carried = false;
    let mut rest = backslashes;
    while rest != 0 {
        let i = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        if (escaped >> i) & 1 == 1 {
            continue;
        }
        if i + 1 < block.len() {
            if !in_place(i + 1) {
                return None;
            }
            escaped |= 1 << (i + 1);
        } else {
            carried = true;
        }
    }
    Some((escaped, carried))
}

/// A block's bytes (at most 64) as masks, bit `i` for byte `i`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Classes {
    /// The bytes a word may be made of.
    runs: u64,
    /// ASCII letters and digits.
    plain: u64,
    /// ASCII digits.
    digits: u64,
    /// `\`.
    backslashes: u64,
}

/// The classes of a block's bytes, as [`words`] cuts at them, sixteen bytes at a time
/// ([`classes_of_sixteen`]). Past the block's end, zeros: bytes that separate words.
fn classes(block: &[u8]) -> Classes {
    let mut classes = Classes::default();
    for (k, chunk) in block.chunks(16).enumerate() {
        let sixteen = <[u8; 16]>::try_from(chunk).unwrap_or_else(|_| {
            let mut sixteen = [0u8; 16];
            if let Some(to) = sixteen.get_mut(..chunk.len()) {
                to.copy_from_slice(chunk);
            }
            sixteen
        });
        let of_sixteen = classes_of_sixteen(sixteen);
        let shift = 16 * k;
        classes.runs |= of_sixteen.runs << shift;
        classes.plain |= of_sixteen.plain << shift;
        classes.digits |= of_sixteen.digits << shift;
        classes.backslashes |= of_sixteen.backslashes << shift;
    }
    classes
}

/// The classes of sixteen bytes in the low sixteen bits of each mask, with the processor's
/// 128-bit vectors: WebAssembly's SIMD (which the page is built with) or x86-64's SSE2.
#[cfg(any(all(target_arch = "wasm32", target_feature = "simd128"), target_arch = "x86_64"))]
#[cfg_attr(target_arch = "wasm32", allow(unused_unsafe))]
fn classes_of_sixteen(sixteen: [u8; 16]) -> Classes {
    let [low, high] = [&sixteen[..8], &sixteen[8..]].map(|half| half.try_into().map_or(0, u64::from_le_bytes));
    // SAFETY: the vectors' instructions are there: SSE2 is part of every x86-64 processor, and
    // the page's WebAssembly is built with SIMD (`.cargo/config.toml`, checked by the `cfg`).
    unsafe { classes_of_vector(low, high) }
}

/// [`classes_of_sixteen`] of the bytes `low` then `high` (little-endian). Bytes past ASCII are
/// negative as signed bytes, so no comparison with an ASCII bound takes them.
#[cfg(any(all(target_arch = "wasm32", target_feature = "simd128"), target_arch = "x86_64"))]
#[cfg_attr(target_arch = "wasm32", target_feature(enable = "simd128"))]
#[cfg_attr(target_arch = "x86_64", target_feature(enable = "sse2"))]
fn classes_of_vector(low: u64, high: u64) -> Classes {
    #[cfg(target_arch = "wasm32")]
    use core::arch::wasm32::{
        i8x16_bitmask as bitmask, i8x16_eq as eq, i8x16_gt as gt, i8x16_lt as lt, i8x16_splat as splat, u64x2 as two,
        v128_and as and, v128_or as or,
    };
    #[cfg(target_arch = "x86_64")]
    use std::arch::x86_64::{
        _mm_and_si128 as and, _mm_cmpeq_epi8 as eq, _mm_cmpgt_epi8 as gt, _mm_cmplt_epi8 as lt, _mm_movemask_epi8,
        _mm_or_si128 as or, _mm_set_epi64x, _mm_set1_epi8 as splat,
    };
    #[cfg(target_arch = "x86_64")]
    let bytes = _mm_set_epi64x(high as i64, low as i64);
    #[cfg(target_arch = "wasm32")]
    let bytes = two(low, high);
    let digit = and(gt(bytes, splat(b'0' as i8 - 1)), lt(bytes, splat(b'9' as i8 + 1)));
    let folded = or(bytes, splat(0x20));
    let letter = and(gt(folded, splat(b'a' as i8 - 1)), lt(folded, splat(b'z' as i8 + 1)));
    let plain = or(digit, letter);
    let word = or(plain, eq(bytes, splat(b'_' as i8)));
    let backslash = eq(bytes, splat(b'\\' as i8));
    #[cfg(target_arch = "x86_64")]
    let [word, high, plain, digit, backslash] =
        [word, bytes, plain, digit, backslash].map(|v| u64::from(_mm_movemask_epi8(v) as u16));
    #[cfg(target_arch = "wasm32")]
    let [word, high, plain, digit, backslash] = [word, bytes, plain, digit, backslash].map(|v| u64::from(bitmask(v)));
    Classes { runs: word | high, plain, digits: digit, backslashes: backslash }
}

#[cfg(not(any(all(target_arch = "wasm32", target_feature = "simd128"), target_arch = "x86_64")))]
fn classes_of_sixteen(sixteen: [u8; 16]) -> Classes {
    classes_of_sixteen_in_words(sixteen)
}

/// [`classes_of_sixteen`] without vectors, eight bytes at a time in one `u64` (SIMD within a
/// register): each byte's low seven bits compared with the bounds of the digits, the letters
/// (their case folded), `_` and `\`, by adding so that the byte's top bit carries the answer,
/// then the top bits gathered by one multiplication.
#[cfg_attr(any(all(target_arch = "wasm32", target_feature = "simd128"), target_arch = "x86_64"), allow(dead_code))]
fn classes_of_sixteen_in_words(sixteen: [u8; 16]) -> Classes {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const TOPS: u64 = 0x8080_8080_8080_8080;
    /// The top bit of each byte of `low` (seven bits each) that is at least `bound` (1 to 128).
    fn at_least(low: u64, bound: u64) -> u64 {
        (low + ONES * (0x80 - bound)) & TOPS
    }
    /// The top bit of each byte of `low` that is `byte`.
    fn is(low: u64, byte: u8) -> u64 {
        at_least(low, u64::from(byte)) & !at_least(low, u64::from(byte) + 1)
    }
    /// Each byte's top bit, gathered into the low eight bits.
    fn gathered(tops: u64) -> u64 {
        ((tops >> 7) & ONES).wrapping_mul(0x0102_0408_1020_4080) >> 56
    }
    let mut classes = Classes::default();
    for (k, half) in [&sixteen[..8], &sixteen[8..]].into_iter().enumerate() {
        let bytes = half.try_into().map_or(0, u64::from_le_bytes);
        let ascii = !bytes & TOPS;
        let low = bytes & !TOPS;
        let folded = low | (ONES * 0x20);
        let digit = at_least(low, u64::from(b'0')) & !at_least(low, u64::from(b'9') + 1) & ascii;
        let letter = at_least(folded, u64::from(b'a')) & !at_least(folded, u64::from(b'z') + 1) & ascii;
        let underscore = is(low, b'_') & ascii;
        let shift = 8 * k;
        classes.runs |= gathered(digit | letter | underscore | (bytes & TOPS)) << shift;
        classes.plain |= gathered(digit | letter) << shift;
        classes.digits |= gathered(digit) << shift;
        classes.backslashes |= gathered(is(low, b'\\') & ascii) << shift;
    }
    classes
}

/// Calls `each` for the words of the run of `bytes` from `start` to `end` (to the run's end
/// when `None`), as [`each_word_hash`] does; answers where the run ends. `_` inside a word is the
/// word's; before its first letter or digit or after its last it is not. A run with a character
/// past ASCII is cut as [`words`] cuts it: every ASCII byte that is no letter, digit or `_`
/// separates words there too, so cutting at them first changes nothing, and bytes that are not
/// UTF-8 read as U+FFFD, as the text a search reads has them.
fn each_word_hash_of_run(
    bytes: &[u8],
    start: usize,
    end: Option<usize>,
    each: &mut impl FnMut(u32, usize, bool),
) -> usize {
    let end = end.unwrap_or_else(|| run_end(bytes, start));
    let run = bytes.get(start..end).unwrap_or_default();
    if run.is_ascii() {
        each_word_hash_of_ascii(bytes, start, end, each);
    } else if let Ok(run) = std::str::from_utf8(run) {
        // Cut at the characters that are not a word's, then each word: one of ASCII alone is
        // hashed in place.
        let mut word_start = None;
        for (i, c) in run.char_indices().chain([(run.len(), ' ')]) {
            let of_word =
                if c.is_ascii() { c.is_ascii_alphanumeric() || c == '_' } else { !separates(c) && c.is_alphanumeric() };
            match (of_word, word_start) {
                (true, None) => word_start = Some(i),
                (false, Some(from)) => {
                    word_start = None;
                    let word = run.get(from..i).unwrap_or_default();
                    if word.is_ascii() {
                        each_word_hash_of_ascii(bytes, start + from, start + i, each);
                    } else {
                        let word = word.trim_matches('_').to_lowercase();
                        each(word_hash(&word), word.len(), crate::rank::is_number(&word));
                    }
                }
                _ => {}
            }
        }
    } else {
        for word in words(&String::from_utf8_lossy(run)) {
            each(word_hash(&word), word.len(), crate::rank::is_number(&word));
        }
    }
    end
}

/// Calls `each` for the word of the ASCII letters, digits and `_` of `bytes[start..end]`: the
/// bytes without the `_` they start or end with, if any are left.
fn each_word_hash_of_ascii(bytes: &[u8], start: usize, end: usize, each: &mut impl FnMut(u32, usize, bool)) {
    let run = bytes.get(start..end).unwrap_or_default();
    if let Some(first) = run.iter().position(|&byte| byte != b'_') {
        let last = run.iter().rposition(|&byte| byte != b'_').unwrap_or(first);
        let word = run.get(first..=last).unwrap_or_default();
        each(hash_at(bytes, start + first, start + last + 1), word.len(), crate::rank::is_number(word));
    }
}

/// Whether `c`, past ASCII, is in a block of characters none of which is a letter or a digit:
/// punctuation, arrows, mathematical and technical signs, box drawing, shapes, dingbats and
/// emoji, which logs hold often (`→` numbers every line a file read shows). It answers what
/// `!c.is_alphanumeric()` does for them, without the search of Unicode's tables.
fn separates(c: char) -> bool {
    matches!(c, '\u{2000}'..='\u{206F}' | '\u{2190}'..='\u{245F}' | '\u{2500}'..='\u{2775}' | '\u{2794}'..='\u{2BFF}' | '\u{1F300}'..='\u{1FAFF}')
}

/// Where the run of bytes a word may be made of that starts at `start` ends, read off
/// [`classes`] a block at a time.
fn run_end(bytes: &[u8], start: usize) -> usize {
    let mut at = start;
    while let Some(block) = bytes.get(at..bytes.len().min(at + 64)).filter(|block| !block.is_empty()) {
        // Past a short block's end the mask is zeros, so the run ends there at the latest.
        let len = (!classes(block).runs).trailing_zeros() as usize;
        at += len.min(block.len());
        if len < 64 {
            break;
        }
    }
    at
}

impl UnitWords {
    /// The index of a unit's sessions, from its model, in the graph's order of sessions.
    pub fn of(corpus: &Corpus, graph: &Graph) -> UnitWords {
        let mut sessions: Vec<Building> = graph.sessions.iter().map(|_| Building::default()).collect();
        each_zoned_text(corpus, graph, |at, zone, entry, field, text| {
            let Some(session) = sessions.get_mut(at) else { return };
            let place =
                place_of(corpus, entry).map_or(NOWHERE, |place| (zone.index() as u8, place.file, place.line_start));
            if field == Some(Field::ToolName) {
                let name = text.decoded().to_lowercase();
                if !session.tools.contains(&name) {
                    session.tools.push(name);
                }
            }
            let z = zone.index();
            let numbers = zone.counts_numbers();
            each_word_hash_of_written(text, |hash, len, number| {
                session.lengths[z] += 1;
                if len <= MAX_WORD_BYTES && (numbers || !number) {
                    let counted = session.words.counted(hash, Counted { counts: [0; ZONES], place });
                    counted.counts[z] += 1;
                    counted.place = counted.place.min(place);
                }
            });
        });
        let mut out = Vec::new();
        put_varint(&mut out, sessions.len() as u64);
        for (session, building) in graph.sessions.iter().zip(sessions) {
            put_str(&mut out, &session.id);
            for length in building.lengths {
                put_varint(&mut out, u64::from(length));
            }
            put_varint(&mut out, building.tools.len() as u64);
            for tool in &building.tools {
                put_str(&mut out, tool);
            }
            // The files its words' places are in, by their place in the corpus.
            let mut files: Vec<u32> = building
                .words
                .iter()
                .filter(|(_, counted)| counted.place != NOWHERE)
                .map(|(_, counted)| counted.place.1)
                .collect();
            files.sort_unstable();
            files.dedup();
            put_varint(&mut out, files.len() as u64);
            for &file in &files {
                put_str(&mut out, corpus.files.get(file as usize).map_or("", |info| info.path.as_str()));
            }
            let mut counts: Vec<(u32, Counted)> =
                building.words.iter().map(|(hash, counted)| (hash, *counted)).collect();
            counts.sort_unstable_by_key(|(hash, _)| *hash);
            let mut directory = Vec::new();
            let mut postings = Vec::new();
            for block in counts.chunks(BLOCK) {
                let first = block.first().map_or(0, |(hash, _)| *hash);
                directory.extend_from_slice(&first.to_le_bytes());
                directory.extend_from_slice(&(postings.len() as u32).to_le_bytes());
                let mut last = first;
                for (hash, Counted { counts, place }) in block {
                    put_varint(&mut postings, u64::from(hash - last));
                    last = *hash;
                    let mask = counts.iter().enumerate().fold(0u8, |mask, (z, &n)| mask | (u8::from(n > 0) << z));
                    postings.push(mask);
                    for &n in counts.iter().filter(|&&n| n > 0) {
                        put_varint(&mut postings, u64::from(n));
                    }
                    let (zone, file, line_start) = *place;
                    if *place == NOWHERE {
                        put_varint(&mut postings, 0);
                    } else {
                        let at = files.binary_search(&file).unwrap_or(0);
                        put_varint(&mut postings, at as u64 + 1);
                        put_varint(&mut postings, u64::from(line_start));
                        postings.push(zone);
                    }
                }
            }
            put_varint(&mut out, counts.len() as u64);
            put_varint(&mut out, postings.len() as u64);
            out.extend_from_slice(&directory);
            out.extend_from_slice(&postings);
        }
        UnitWords { bytes: Bytes::Owned(out) }
    }

    /// An index of `bytes` as [`UnitWords::as_bytes`] gives them; `None` when they do not read
    /// as one to the end.
    pub fn from_bytes(bytes: Vec<u8>) -> Option<UnitWords> {
        let words = UnitWords { bytes: Bytes::Owned(bytes) };
        words.valid().then_some(words)
    }

    /// The index in `range` of bytes shared with other units' indexes, not copied; `None` when
    /// the range is outside them or does not read as an index.
    pub fn shared(bytes: Arc<dyn AsRef<[u8]> + Send + Sync>, range: Range<usize>) -> Option<UnitWords> {
        let inside = (*bytes).as_ref().get(range.clone()).is_some();
        let words = UnitWords { bytes: Bytes::Shared(bytes, range) };
        (inside && words.valid()).then_some(words)
    }

    pub fn as_bytes(&self) -> &[u8] {
        match &self.bytes {
            Bytes::Owned(bytes) => bytes,
            Bytes::Shared(bytes, range) => (**bytes).as_ref().get(range.clone()).unwrap_or_default(),
        }
    }

    /// Whether the bytes read as an index to their end: each session's header, directory and
    /// postings in their places. The postings themselves are read only when a word is looked up,
    /// each read checked ([`Self::valid_throughout`] reads them all, for the tests).
    fn valid(&self) -> bool {
        let mut reader = Reader { rest: self.as_bytes() };
        let Some(count) = reader.varint() else { return false };
        for _ in 0..count {
            if reader.session().is_none() {
                return false;
            }
        }
        reader.rest.is_empty()
    }

    /// Whether every posting of every session reads too.
    pub fn valid_throughout(&self) -> bool {
        self.valid() && self.sessions().iter().all(SessionWords::postings_valid)
    }

    /// Its sessions, in the graph's order (none past damaged bytes).
    pub fn sessions(&self) -> Vec<SessionWords<'_>> {
        let mut reader = Reader { rest: self.as_bytes() };
        let count = reader.varint().unwrap_or(0);
        let mut sessions = Vec::new();
        for _ in 0..count {
            let Some(session) = reader.session() else { break };
            sessions.push(session);
        }
        sessions
    }
}

impl<'a> SessionWords<'a> {
    /// How many times `word` (as [`words`] cuts and lowercases it) is in each zone.
    pub fn frequencies(&self, word: &str) -> [u32; ZONES] {
        self.posting(word).map_or([0; ZONES], |posting| posting.counts)
    }

    /// Where `word` is first in its best zone, if in a message's line.
    pub fn place(&self, word: &str) -> Option<WordPlace<'a>> {
        let (file, line_start, zone) = self.posting(word)?.place?;
        let zone = *ZONE_ORDER.get(usize::from(zone))?;
        Some(WordPlace { file: self.files.get(file)?, line_start, zone })
    }

    /// `word`'s posting, if the session holds it.
    fn posting(&self, word: &str) -> Option<Posting> {
        if word.len() > MAX_WORD_BYTES {
            return None;
        }
        let hash = word_hash(word);
        let blocks = self.words.div_ceil(BLOCK);
        let first_of = |block: usize| -> Option<(u32, usize)> {
            let entry = self.directory.get(block * 8..block * 8 + 8)?;
            let first = u32::from_le_bytes(entry.get(..4)?.try_into().ok()?);
            let offset = u32::from_le_bytes(entry.get(4..)?.try_into().ok()?) as usize;
            Some((first, offset))
        };
        // The last block whose first hash is at most the word's.
        let (mut low, mut high) = (0, blocks);
        while low < high {
            let middle = (low + high) / 2;
            if first_of(middle)?.0 <= hash {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        let (first, offset) = first_of(low.checked_sub(1)?)?;
        let in_block = BLOCK.min(self.words.saturating_sub((low - 1) * BLOCK));
        let mut reader = Reader { rest: self.postings.get(offset..)? };
        let mut last = first;
        for _ in 0..in_block {
            let (delta, posting) = reader.posting()?;
            last = last.wrapping_add(delta);
            if last == hash {
                return Some(posting);
            }
            if last > hash {
                return None;
            }
        }
        None
    }

    /// The tools the session called, by name.
    pub fn tools(&self) -> &[&'a str] {
        &self.tools
    }

    /// Whether the session called a tool of this name (any case).
    pub fn has_tool(&self, name: &str) -> bool {
        self.tools.iter().any(|tool| tool.eq_ignore_ascii_case(name))
    }

    /// The words it holds (distinct).
    pub fn distinct_words(&self) -> usize {
        self.words
    }

    /// Whether its postings read to their end, block by block where the directory says.
    fn postings_valid(&self) -> bool {
        let mut reader = Reader { rest: self.postings };
        for block in 0..self.words.div_ceil(BLOCK) {
            let offset = self.directory.get(block * 8 + 4..block * 8 + 8).and_then(|b| b.try_into().ok());
            if offset.map(u32::from_le_bytes) != Some((self.postings.len() - reader.rest.len()) as u32) {
                return false;
            }
            for _ in 0..BLOCK.min(self.words - block * BLOCK) {
                if reader.posting().is_none() {
                    return false;
                }
            }
        }
        reader.rest.is_empty()
    }
}

/// Reads an index's bytes, each step checked.
struct Reader<'a> {
    rest: &'a [u8],
}

impl<'a> Reader<'a> {
    fn varint(&mut self) -> Option<u64> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let (&byte, rest) = self.rest.split_first()?;
            self.rest = rest;
            value |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Some(value);
            }
        }
        None
    }

    fn take(&mut self, len: usize) -> Option<&'a [u8]> {
        let (taken, rest) = (self.rest.get(..len)?, self.rest.get(len..)?);
        self.rest = rest;
        Some(taken)
    }

    fn str(&mut self) -> Option<&'a str> {
        let len = usize::try_from(self.varint()?).ok()?;
        std::str::from_utf8(self.take(len)?).ok()
    }

    fn session(&mut self) -> Option<SessionWords<'a>> {
        let session_id = self.str()?;
        let mut lengths = [0; ZONES];
        for length in &mut lengths {
            *length = u32::try_from(self.varint()?).ok()?;
        }
        let tools_count = self.varint()?;
        let mut tools = Vec::new();
        for _ in 0..tools_count {
            tools.push(self.str()?);
        }
        let files_count = self.varint()?;
        let mut files = Vec::new();
        for _ in 0..files_count {
            files.push(self.str()?);
        }
        let words = usize::try_from(self.varint()?).ok()?;
        let postings_len = usize::try_from(self.varint()?).ok()?;
        let directory = self.take(words.div_ceil(BLOCK).checked_mul(8)?)?;
        let postings = self.take(postings_len)?;
        Some(SessionWords { session_id, lengths, tools, files, words, directory, postings })
    }

    /// A posting's hash delta, its counts per zone and its place (file, line start, zone).
    fn posting(&mut self) -> Option<(u32, Posting)> {
        let delta = u32::try_from(self.varint()?).ok()?;
        let (&mask, rest) = self.rest.split_first()?;
        self.rest = rest;
        let mut counts = [0; ZONES];
        for (z, count) in counts.iter_mut().enumerate() {
            if mask & (1 << z) != 0 {
                *count = u32::try_from(self.varint()?).ok()?;
            }
        }
        let place = match usize::try_from(self.varint()?).ok()? {
            0 => None,
            file => {
                let line_start = self.varint()?;
                let (&zone, rest) = self.rest.split_first()?;
                self.rest = rest;
                Some((file - 1, line_start, zone))
            }
        };
        Some((delta, Posting { counts, place }))
    }
}

/// A word's counts per zone, and its place (file, line start, zone) if it is in a message.
struct Posting {
    counts: [u32; ZONES],
    place: Option<(usize, u64, u8)>,
}

/// The zones by their index.
const ZONE_ORDER: [Zone; ZONES] = [Zone::Title, Zone::Prompt, Zone::Answer, Zone::Tool];

fn put_varint(out: &mut Vec<u8>, mut value: u64) {
    loop {
        let byte = (value & 0x7f) as u8;
        value >>= 7;
        if value == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

fn put_str(out: &mut Vec<u8>, text: &str) {
    put_varint(out, text.len() as u64);
    out.extend_from_slice(text.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Loader;

    /// A word as the index counts it: its hash, its length in bytes, whether it is a number.
    type Cut = (u32, usize, bool);

    /// The words of `text` as [`words`] cuts them: what every cut of the index must give.
    fn words_cut(text: &str) -> Vec<Cut> {
        words(text).map(|word| (word_hash(&word), word.len(), crate::rank::is_number(&word))).collect()
    }

    /// The words of `text` as the index cuts it.
    fn index_cut(text: Written<'_>) -> Vec<Cut> {
        let mut cut = Vec::new();
        each_word_hash_of_written(text, |hash, len, number| cut.push((hash, len, number)));
        cut
    }

    /// A session whose prompt, answer and tool call say words in known numbers; its 200 words
    /// make several blocks.
    fn unit() -> UnitWords {
        let many: Vec<String> = (0..200).map(|n| format!("word{n}")).collect();
        let lines = [
            r#"{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s1","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"Kettle kettle boils"}}"#.to_owned(),
            format!(
                r#"{{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s1","timestamp":"2026-01-01T00:00:01Z","message":{{"id":"m1","role":"assistant","content":[{{"type":"text","text":"The kettle {}"}},{{"type":"tool_use","id":"t1","name":"Bash","input":{{"command":"ls kettle"}}}}]}}}}"#,
                many.join(" ")
            ),
        ];
        let mut loader = Loader::new();
        loader.add_vec("-home-dev-x/s1.jsonl", lines.join("\n").into_bytes());
        let corpus = loader.finish();
        let graph = Graph::build(&corpus);
        UnitWords::of(&corpus, &graph)
    }

    #[test]
    fn a_session_s_words_are_counted_by_zone() {
        let index = unit();
        let sessions = index.sessions();
        let [session] = sessions.as_slice() else { panic!("{sessions:?}") };
        assert_eq!(session.session_id, "s1");
        let kettle = session.frequencies("kettle");
        // Twice in the first prompt and twice in the title made of it; once in the answer;
        // once in the tool's input.
        assert_eq!(kettle[0], 4, "{kettle:?}");
        assert_eq!(kettle[2], 1, "{kettle:?}");
        assert_eq!(kettle[3], 1, "{kettle:?}");
        for n in [0, 63, 64, 65, 127, 128, 199] {
            assert_eq!(session.frequencies(&format!("word{n}"))[2], 1, "word{n}");
        }
        assert_eq!(session.frequencies("word200"), [0; ZONES]);
        assert_eq!(session.frequencies("teapot"), [0; ZONES]);
        assert!(session.distinct_words() > 200);
        assert!(session.has_tool("bash") && !session.has_tool("edit"));
    }

    #[test]
    fn words_are_hashed_as_words_cuts_them() {
        for text in [
            "Kettle kettle boils",
            "call merge_duplicates(), not merge; __init__ x_ _y a__b ___",
            "src/main.rs:42 --flag=on CamelCase 12ab",
            "",
            "_",
            "Ünïcode wörds and ascii",
        ] {
            assert_eq!(index_cut(Written::Plain(text)), words_cut(text), "{text:?}");
        }
    }

    /// Word indexes are kept in caches: a word hashes as it always has, whether hashed alone
    /// or in place in a longer text (values from the hash as first written).
    #[test]
    fn a_word_hashes_as_it_always_has() {
        for (word, hash) in [
            ("kettle", 672_936_154),
            ("merge_duplicates", 2_132_506_410),
            ("x", 3_057_059_219),
            ("abcdefghijklmnopq", 1_663_394_896),
        ] {
            assert_eq!(word_hash(word), hash, "{word}");
            assert_eq!(word_hash(&word.to_uppercase()), hash, "{word}");
            let in_place = index_cut(Written::Plain(&format!("({word}) and more text after it")));
            assert_eq!(in_place.first().map(|&(hash, _, _)| hash), Some(hash), "{word}");
        }
    }

    proptest::proptest! {
        /// The fast cut (runs of ASCII hashed in place) and [`words`] agree on any mix of ASCII
        /// letters, `_`, separators (those next to the letters' and digits' bounds too) and
        /// characters past ASCII, letters or not.
        #[test]
        fn the_fast_cut_is_the_cut_of_words(
            chars in proptest::collection::vec(
                proptest::sample::select(vec!['a', 'z', 'A', 'Z', '0', '7', '9', '_', '@', '[', '^', '`', '{', ':', '\x7f', ' ', '-', '/', '\n', 'é', 'Ä', 'ß', '—', '→', '日', '٣', '\u{301}', '─', '✓', '🚀', 'ⁱ', '①']),
                0..300,
            ),
        ) {
            let text: String = chars.into_iter().collect();
            proptest::prop_assert_eq!(index_cut(Written::Plain(&text)), words_cut(&text));
        }

        /// Any raw JSON value, escapes and bytes that are not UTF-8 among its pieces, is cut as
        /// the text a search reads of it: read in place where its escapes allow, decoded where
        /// not.
        #[test]
        fn a_json_value_s_cut_is_the_cut_of_its_decoded_text(
            pieces in proptest::collection::vec(
                proptest::sample::select(vec![
                    &b"a"[..], b"Z", b"7", b"_", b" ", b"\"", b"\\", b"\\n", b"\\t", b"\\r", b"\\b", b"\\f",
                    b"\\\\", b"\\\"", b"\\/", b"\\u00e9", b"\\ud83d", b"\\x", b"\\1", b"{", b":", b"\n",
                    b"word", b"\xe2\x86\x92", b"\xe6\x97\xa5", b"\xc3\xa9", b"\xff", b"\xc3", b"\xe2\x94\x80",
                    b"\xe2\x81\xb1",
                ]),
                0..200,
            ),
            quoted in proptest::bool::ANY,
        ) {
            let mut raw: Vec<u8> = pieces.concat();
            if quoted {
                raw.insert(0, b'"');
                raw.push(b'"');
            }
            proptest::prop_assert_eq!(index_cut(Written::Json(&raw)), words_cut(&Written::Json(&raw).decoded()));
        }

        /// The same for values whose escapes are all read in place, which the test above
        /// seldom makes: the cut in place is the one taken, and agrees.
        #[test]
        fn escapes_read_in_place_cut_as_decoded(
            pieces in proptest::collection::vec(
                proptest::sample::select(vec![
                    &b"a"[..], b"Z", b"7", b"_", b" ", b"\\n", b"\\t", b"\\r", b"\\b", b"\\f", b"\\\\", b"\\\"",
                    b"\\/", b"{", b":", b"word", b"n", b"\xe2\x86\x92", b"\xe6\x97\xa5", b"\xc3\xa9", b"\xff",
                ]),
                0..200,
            ),
            quoted in proptest::bool::ANY,
        ) {
            let mut raw: Vec<u8> = pieces.concat();
            if quoted {
                raw.insert(0, b'"');
                raw.push(b'"');
            }
            let mut hashed = Vec::new();
            let cut_in_place = each_word_hash_in(&raw, true, &mut |hash, len, number| hashed.push((hash, len, number)));
            proptest::prop_assert_eq!(cut_in_place, Ok(()));
            proptest::prop_assert_eq!(hashed, words_cut(&Written::Json(&raw).decoded()));
        }

        /// The table of counts counts as a map does, whatever the hashes: 0, and many that
        /// name the same slot.
        #[test]
        fn words_are_counted_as_a_map_counts_them(
            hashes in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::sample::select(vec![0u32, 1, 17, 33, 1 << 20, (1 << 20) + 1, u32::MAX]),
                    0u32..64,
                    proptest::num::u32::ANY,
                ],
                0..3000,
            ),
        ) {
            let mut table = WordCounts::default();
            let mut map = std::collections::HashMap::new();
            for (n, &hash) in hashes.iter().enumerate() {
                let place = (0, 0, n as u32);
                table.counted(hash, Counted { counts: [0; ZONES], place }).counts[n % ZONES] += 1;
                map.entry(hash).or_insert(([0; ZONES], place)).0[n % ZONES] += 1;
            }
            type Row = (u32, [u32; ZONES], (u8, u32, u32));
            let mut counted: Vec<Row> =
                table.iter().map(|(hash, counted)| (hash, counted.counts, counted.place)).collect();
            counted.sort_unstable();
            let mut expected: Vec<Row> =
                map.into_iter().map(|(hash, (counts, place))| (hash, counts, place)).collect();
            expected.sort_unstable();
            proptest::prop_assert_eq!(counted, expected);
        }

        /// The same for runs longer than a block (64 bytes), which are read on past it.
        #[test]
        fn a_run_past_a_block_is_cut_as_words(
            runs in proptest::collection::vec("[a-zA-Z0-9_é日]{0,150}", 0..4),
            separator in proptest::sample::select(vec![" ", "/", "—", "\n"]),
        ) {
            let text = runs.join(separator);
            proptest::prop_assert_eq!(index_cut(Written::Plain(&text)), words_cut(&text));
        }
    }

    /// The classes of every byte, in every place of sixteen: the vectors' and those made
    /// without them agree, and with what [`words`] cuts at.
    #[test]
    fn bytes_are_classed_alike_with_vectors_or_without() {
        for byte in 0..=255u8 {
            for place in 0..16 {
                let mut sixteen = [b' '; 16];
                sixteen[place] = byte;
                sixteen[15 - place] = byte.wrapping_add(1);
                let classes = classes_of_sixteen(sixteen);
                assert_eq!(classes, classes_of_sixteen_in_words(sixteen), "{byte} at {place}");
                let bit = (classes.runs >> place) & 1 == 1;
                assert_eq!(bit, byte >= 0x80 || byte.is_ascii_alphanumeric() || byte == b'_', "{byte}");
                assert_eq!((classes.plain >> place) & 1 == 1, byte.is_ascii_alphanumeric(), "{byte}");
                assert_eq!((classes.digits >> place) & 1 == 1, byte.is_ascii_digit(), "{byte}");
                assert_eq!((classes.backslashes >> place) & 1 == 1, byte == b'\\', "{byte}");
            }
        }
    }

    /// An escape that is not read in place, in every place around a block's end (its
    /// backslash the block's last byte, its letter the next block's first): the words before
    /// it are cut in place, the rest decoded, and together they are the decoded text's.
    #[test]
    fn an_escape_at_a_block_s_end_is_decoded() {
        for pad in 0..140 {
            for escape in [r"\u00e9t\x41 word", r"\\\u0041bc", r"\x", r"\n\u0030"] {
                let raw = format!("\"{}ab {escape} after\"", " ".repeat(pad));
                let written = Written::Json(raw.as_bytes());
                assert_eq!(index_cut(written), words_cut(&written.decoded()), "{raw}");
            }
        }
    }

    /// The blocks [`separates`] answers for hold no letter or digit, every character of them.
    #[test]
    fn the_blocks_that_separate_hold_no_letter_or_digit() {
        let mut checked = 0;
        for code in 0x80..=0x10FFFF {
            let Some(c) = char::from_u32(code) else { continue };
            if separates(c) {
                assert!(!c.is_alphanumeric(), "{c:?} U+{code:04X}");
                checked += 1;
            }
        }
        assert!(checked > 4000, "{checked}");
        assert!(separates('→') && separates('─') && separates('🚀') && !separates('日') && !separates('ⁱ'));
    }

    /// A raw JSON value is cut as the text a search reads of it, whether its escapes are read
    /// in place or it is decoded first.
    #[test]
    fn a_json_value_is_cut_as_its_decoded_text() {
        for raw in [
            r#""line one\nline two\tand\\nmore""#,
            r#"{"command":"printf \"a\\nb\"","path":"C:\\temp\\new"}"#,
            r#""caf\u00e9 and \ud83d\ude80 rocket""#,
            r#""unknown \x escape""#,
            r#""ends with a backslash\"#,
            r#"  "padded\ttext"  "#,
            r#""no closing quote\n"#,
            "\"  12\u{2192}fn main() \u{2192}\u{2192} \u{65e5}\u{672c} __init__\"",
        ] {
            let written = Written::Json(raw.as_bytes());
            assert_eq!(index_cut(written), words_cut(&written.decoded()), "{raw}");
        }
    }

    #[test]
    fn damaged_bytes_are_refused_and_never_panic() {
        let bytes = unit().as_bytes().to_vec();
        assert!(UnitWords::from_bytes(bytes.clone()).is_some_and(|index| index.valid_throughout()));
        for cut in 0..bytes.len() {
            assert!(UnitWords::from_bytes(bytes[..cut].to_vec()).is_none(), "cut at {cut}");
        }
        for at in 0..bytes.len() {
            let mut flipped = bytes.clone();
            flipped[at] ^= 0x5a;
            // Either refused, or read without a panic.
            if let Some(index) = UnitWords::from_bytes(flipped) {
                let _ = index.valid_throughout();
                for session in index.sessions() {
                    for n in 0..200 {
                        let _ = session.frequencies(&format!("word{n}"));
                        let _ = session.place(&format!("word{n}"));
                    }
                    let _ = session.frequencies("kettle");
                }
            }
        }
    }
}
