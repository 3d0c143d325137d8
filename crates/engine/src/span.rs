//! Byte ranges into a file's bytes, and small interned symbols.
//!
//! The model never copies the bulky parts of a log. A [`Span`] points either into the bytes of
//! the file an entry came from, or (rarely: strings that had escapes, text synthesised by an
//! importer) into the corpus' side arena. What the bytes mean depends on the field: ids and
//! names are decoded strings, message bodies are raw JSON values decoded when shown.

use serde::{Deserialize, Serialize};

/// A byte range into a file buffer, or into the corpus arena when [`Span::in_arena`] is set.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub struct Span {
    pub start: u32,
    len_and_flag: u32,
}

impl Span {
    const ARENA: u32 = 1 << 31;
    /// The longest span a file can hold; longer values are refused when a file is opened.
    pub const MAX_LEN: usize = (Self::ARENA - 1) as usize;

    pub const EMPTY: Span = Span { start: 0, len_and_flag: 0 };

    pub fn in_file(start: usize, len: usize) -> Span {
        debug_assert!(len <= Self::MAX_LEN && start <= u32::MAX as usize);
        Span { start: start as u32, len_and_flag: len as u32 }
    }

    pub fn in_arena(start: usize, len: usize) -> Span {
        Span { start: start as u32, len_and_flag: len as u32 | Self::ARENA }
    }

    pub fn len(self) -> usize {
        (self.len_and_flag & !Self::ARENA) as usize
    }

    pub fn is_empty(self) -> bool {
        self.len() == 0
    }

    pub fn is_arena(self) -> bool {
        self.len_and_flag & Self::ARENA != 0
    }

    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.start as usize + self.len()
    }

    /// The bytes this span names, given its file's bytes and the arena.
    pub fn bytes<'a>(self, file: &'a [u8], arena: &'a [u8]) -> &'a [u8] {
        let source = if self.is_arena() { arena } else { file };
        source.get(self.range()).unwrap_or_default()
    }
}

/// An interned string: an index into the corpus' [`crate::intern::Interner`]. `Sym::NONE` is the
/// absent value, so optional symbols cost no more than present ones.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, Debug, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Sym(pub u32);

impl Sym {
    pub const NONE: Sym = Sym(0);

    pub fn is_none(self) -> bool {
        self == Sym::NONE
    }

    pub fn is_some(self) -> bool {
        self != Sym::NONE
    }
}
