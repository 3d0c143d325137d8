//! Which three-byte sequences a unit's searched text holds, kept by the history's index so that
//! a whole-history search reads only the sessions that may hold its text.
//!
//! The index pass parses every unit anyway; it also folds each sequence of three bytes of the
//! fields a search looks in (text, thinking, tool names, inputs and results, as written in the
//! file: `crate::search::trigrams_of` reads them with `each_searched_text`) into a bit of a small set ([`TrigramSet`], at most
//! 32 KB per unit). Ids, signatures and the JSON around the fields are left out: a signature's
//! random letters alone would set most bits. A plain query whose text no JSON writer escapes
//! is found in a field's raw bytes whatever its ASCII case (see
//! [`crate::search::Query::may_match_raw`]), so its every three bytes are among those of a unit
//! that holds it: a unit whose set misses one of them cannot hold a hit, and the search skips it
//! without reading it. The set only ever answers "may hold" too often, never too rarely: bytes
//! share classes (ASCII case, and every byte no such query holds), and sequences share bits.

/// Each byte's class: a letter whatever its case, a digit, each printable ASCII byte a plain
/// query may hold, and one class for all the others (`"`, `\`, `/`, `<`, `>`, `&`, controls
/// and non-ASCII bytes, which the queries the set answers for never hold).
const CLASS: [u8; 256] = {
    let mut class = [0u8; 256];
    let mut b = 0;
    while b < 26 {
        class[(b'a' + b) as usize] = 1 + b;
        class[(b'A' + b) as usize] = 1 + b;
        b += 1;
    }
    let mut d = 0;
    while d < 10 {
        class[(b'0' + d) as usize] = 27 + d;
        d += 1;
    }
    let others = b" !#$%'()*+,-.:;=?@[]^_`{|}~";
    let mut i = 0;
    while i < others.len() {
        class[others[i] as usize] = 37 + i as u8;
        i += 1;
    }
    class
};

/// Bits of a trigram: three 6-bit classes.
const TRIGRAM_BITS: u32 = 18;
const TRIGRAM_MASK: u32 = (1 << TRIGRAM_BITS) - 1;

/// The set's size in bytes, by the unit's bytes: 1 byte of set per 16 of log, a power of two
/// from 512 bytes to 32 KB (which holds every trigram of classes apart). A small unit's set is
/// fuller, so says "may hold" by chance more often, and costs little to read.
fn set_bytes(unit_bytes: u64) -> usize {
    const MIN: usize = 512;
    const MAX: usize = 1 << (TRIGRAM_BITS - 3);
    ((unit_bytes / 16) as usize).clamp(MIN, MAX).next_power_of_two().min(MAX)
}

/// The bit of a trigram in a set of `bits` bits (a power of two).
#[inline]
fn bit_of(trigram: u32, bits: usize) -> usize {
    if bits == 1 << TRIGRAM_BITS { trigram as usize } else { hashed_bit(trigram, 32 - bits.trailing_zeros()) }
}

/// The bit of a trigram in a set smaller than one bit per trigram, `32 - shift` bits wide:
/// Fibonacci hashing, whose top bits mix all three classes.
#[inline]
fn hashed_bit(trigram: u32, shift: u32) -> usize {
    (trigram.wrapping_mul(0x9E37_79B9) >> shift) as usize
}

/// The trigrams of a unit's bytes, folded into bits.
#[derive(Clone)]
pub struct TrigramSet {
    bits: Bits,
}

/// A set's bits: its own, or a part of bytes it shares with other sets (a cache file read or
/// mapped once, whose sets are never copied).
#[derive(Clone)]
enum Bits {
    Owned(Vec<u8>),
    Shared(std::sync::Arc<dyn AsRef<[u8]> + Send + Sync>, std::ops::Range<usize>),
}

impl std::fmt::Debug for TrigramSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TrigramSet({} bytes, {:.3} full)", self.as_bytes().len(), self.density())
    }
}

impl PartialEq for TrigramSet {
    fn eq(&self, other: &Self) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl Eq for TrigramSet {}

/// Whether a set of this many bytes is one a builder makes.
fn valid_size(len: usize) -> bool {
    len.is_power_of_two() && (512..=1 << (TRIGRAM_BITS - 3)).contains(&len)
}

impl TrigramSet {
    /// A set of `bytes` as made by [`TrigramSetBuilder::finish`] (received from a worker); `None`
    /// when its size is not one a builder makes.
    pub fn from_bytes(bytes: Vec<u8>) -> Option<TrigramSet> {
        valid_size(bytes.len()).then_some(TrigramSet { bits: Bits::Owned(bytes) })
    }

    /// The set in `range` of bytes shared with other sets, not copied; `None` when the range is
    /// outside them or not of a size a builder makes.
    pub fn shared(
        bytes: std::sync::Arc<dyn AsRef<[u8]> + Send + Sync>,
        range: std::ops::Range<usize>,
    ) -> Option<TrigramSet> {
        let inside = (*bytes).as_ref().get(range.clone()).is_some();
        (inside && valid_size(range.len())).then_some(TrigramSet { bits: Bits::Shared(bytes, range) })
    }

    /// A set that may hold anything (every bit set): for a unit whose set could not be made.
    pub fn full() -> TrigramSet {
        TrigramSet { bits: Bits::Owned(vec![0xff; 512]) }
    }

    pub fn as_bytes(&self) -> &[u8] {
        match &self.bits {
            Bits::Owned(bits) => bits,
            Bits::Shared(bytes, range) => (**bytes).as_ref().get(range.clone()).unwrap_or_default(),
        }
    }

    /// Whether bytes holding `text` may have given this set: `false` only when some three bytes
    /// of `text` (ASCII case aside) are in none of its trigrams. Text under three bytes may
    /// always be there.
    pub fn may_hold(&self, text: &[u8]) -> bool {
        let set = self.as_bytes();
        let bits = set.len() * 8;
        if bits == 0 {
            return true;
        }
        let mut trigram = 0u32;
        text.iter().enumerate().all(|(i, &b)| {
            trigram = ((trigram << 6) | u32::from(CLASS[b as usize])) & TRIGRAM_MASK;
            if i < 2 {
                return true;
            }
            let bit = bit_of(trigram, bits);
            set.get(bit / 8).is_none_or(|byte| byte & (1 << (bit % 8)) != 0)
        })
    }

    /// The share of bits set, from 0 to 1 (how often the set says "may hold" by chance).
    pub fn density(&self) -> f64 {
        let bits = self.as_bytes();
        let set: u32 = bits.iter().map(|b| b.count_ones()).sum();
        f64::from(set) / (bits.len().max(1) * 8) as f64
    }
}

/// Makes a unit's set from its bytes, given in pieces (files, slices) as they are read.
pub struct TrigramSetBuilder {
    bits: Vec<u8>,
    /// The last two bytes' classes, so that a trigram across two pieces is counted.
    last_two: (u32, u32),
}

impl TrigramSetBuilder {
    /// A builder for a unit of `unit_bytes` bytes in all (its set's size depends on it).
    pub fn new(unit_bytes: u64) -> TrigramSetBuilder {
        TrigramSetBuilder { bits: vec![0; set_bytes(unit_bytes)], last_two: (0, 0) }
    }

    /// The next bytes are a text apart: no trigram spans it and the bytes before.
    pub fn start_text(&mut self) {
        self.last_two = (0, 0);
    }

    /// The next bytes of the unit. Pieces may be cut anywhere; the trigrams across a cut (two
    /// files' ends included) are added too, which only makes the set say "may hold" more.
    pub fn add(&mut self, bytes: &[u8]) {
        // The trigram is made anew from the last three classes at each byte rather than shifted
        // along: no byte waits for the one before, and the loop runs three times faster.
        let (mut first, mut second) = self.last_two;
        let bits = self.bits.as_mut_slice();
        // Sized arrays, indexed by masked values: no bounds checks in the loops.
        if let Ok(bits) = <&mut [u8; 1 << (TRIGRAM_BITS - 3)]>::try_from(&mut *bits) {
            for &b in bytes {
                let third = u32::from(CLASS[b as usize]);
                let trigram = ((first << 12) | (second << 6) | third) & TRIGRAM_MASK;
                bits[(trigram >> 3) as usize] |= 1 << (trigram & 7);
                (first, second) = (second, third);
            }
        } else {
            let shift = 32 - (bits.len() * 8).trailing_zeros();
            let last = bits.len() - 1;
            for &b in bytes {
                let third = u32::from(CLASS[b as usize]);
                let trigram = ((first << 12) | (second << 6) | third) & TRIGRAM_MASK;
                let bit = hashed_bit(trigram, shift);
                if let Some(byte) = bits.get_mut((bit >> 3) & last) {
                    *byte |= 1 << (bit & 7);
                }
                (first, second) = (second, third);
            }
        }
        self.last_two = (first, second);
    }

    pub fn finish(self) -> TrigramSet {
        TrigramSet { bits: Bits::Owned(self.bits) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn set_of(pieces: &[&[u8]]) -> TrigramSet {
        let total = pieces.iter().map(|p| p.len() as u64).sum();
        let mut builder = TrigramSetBuilder::new(total);
        for piece in pieces {
            builder.add(piece);
        }
        builder.finish()
    }

    #[test]
    fn text_in_the_bytes_may_be_held_whatever_its_case_and_text_elsewhere_is_not() {
        let set = set_of(&[br#"{"type":"user","message":{"content":"Deploy to Zanzibar-7 now"}}"#]);
        assert!(set.may_hold(b"zanzibar"));
        assert!(set.may_hold(b"ZANZIBAR-7 NOW"));
        assert!(set.may_hold(b"to"), "under three bytes");
        assert!(!set.may_hold(b"kettle"));
        assert!(!set.may_hold(b"zanzibar-8"));
    }

    #[test]
    fn a_trigram_across_two_pieces_is_in_the_set() {
        let set = set_of(&[b"the kett", b"le boils"]);
        assert!(set.may_hold(b"kettle"));
        assert!(!set.may_hold(b"kettles"));
    }

    #[test]
    fn the_set_grows_with_the_unit_and_stays_bounded() {
        assert_eq!(TrigramSetBuilder::new(0).finish().as_bytes().len(), 512);
        assert_eq!(TrigramSetBuilder::new(100_000).finish().as_bytes().len(), 8192);
        assert_eq!(TrigramSetBuilder::new(4 << 30).finish().as_bytes().len(), 32 << 10);
        assert!(TrigramSet::from_bytes(vec![0; 1000]).is_none());
        assert!(TrigramSet::from_bytes(vec![0; 64 << 10]).is_none());
        assert!(TrigramSet::from_bytes(vec![0; 1024]).is_some());
    }

    #[test]
    fn a_big_unit_s_set_rules_out_most_words_it_does_not_hold() {
        // A megabyte of session-like text from the generator's vocabulary.
        let options = sessionscope_synth::SynthOptions { target_bytes: 1 << 20, seed: 3, agents: false, broken: false };
        let session = sessionscope_synth::generate(&options).main;
        let corpus = crate::Loader::read_all([("s.jsonl", session.as_slice())]);
        let set = crate::search::trigrams_of(&corpus, session.len() as u64);
        assert!(set.density() < 0.3, "density {}", set.density());
        for absent in ["zanzibar", "quokka", "kettle", "marmalade"] {
            assert!(!String::from_utf8_lossy(&session).to_lowercase().contains(absent));
            assert!(!set.may_hold(absent.as_bytes()), "{absent}");
        }
    }

    proptest! {
        #[test]
        fn every_piece_of_the_bytes_may_be_held(
            bytes in proptest::collection::vec(any::<u8>(), 0..2000),
            cuts in proptest::collection::vec(any::<usize>(), 0..4),
            start in any::<usize>(),
            len in 0usize..40,
            upper in any::<bool>(),
        ) {
            let mut cuts: Vec<usize> = cuts.iter().map(|c| c % (bytes.len() + 1)).collect();
            cuts.sort_unstable();
            let mut pieces = Vec::new();
            let mut from = 0;
            for cut in cuts.into_iter().chain([bytes.len()]) {
                pieces.push(&bytes[from..cut]);
                from = cut;
            }
            let set = set_of(&pieces);
            let start = start % (bytes.len() + 1);
            let end = (start + len).min(bytes.len());
            let mut text = bytes[start..end].to_vec();
            if upper {
                text.make_ascii_uppercase();
            }
            prop_assert!(set.may_hold(&text));
        }
    }
}
