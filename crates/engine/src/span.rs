//! Byte ranges into a file's bytes, and small interned symbols.
//!
//! The model never copies the bulky parts of a log. A [`Span`] points either into the bytes of
//! the file an entry came from, or (rarely: strings that had escapes, text synthesised by an
//! importer) into the corpus' side arena. What the bytes mean depends on the field: ids and
//! names are decoded strings, message bodies are raw JSON values decoded when shown.
//!
//! A `Locator` turns what a parser borrowed from a file's bytes (strings, raw JSON values)
//! back into spans of that file, and puts what it could not borrow into the arena.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::json::LStr;

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

/// Where borrowed strings and raw values of a line sit in its file's bytes.
#[derive(Clone, Copy)]
pub(crate) struct Locator<'b> {
    pub(crate) file_bytes: &'b [u8],
}

impl Locator<'_> {
    /// The offset of `part` in the file's bytes, if it lies there.
    pub(crate) fn offset_of(&self, part: &[u8]) -> Option<usize> {
        let base = self.file_bytes.as_ptr() as usize;
        let start = part.as_ptr() as usize;
        (start >= base && start + part.len() <= base + self.file_bytes.len()).then(|| start - base)
    }

    /// A span for a decoded string: in the file if it was borrowed from it, else in the arena.
    pub(crate) fn str_span(&self, arena: &mut Vec<u8>, s: &LStr) -> Span {
        match &s.0 {
            None => Span::EMPTY,
            Some(value) if value.is_empty() => Span::EMPTY,
            Some(Cow::Borrowed(text)) => match self.offset_of(text.as_bytes()) {
                Some(offset) => Span::in_file(offset, text.len()),
                None => push_arena(arena, text.as_bytes()),
            },
            Some(Cow::Owned(text)) => push_arena(arena, text.as_bytes()),
        }
    }

    /// The span of a raw JSON value borrowed from the file (empty if it was not).
    pub(crate) fn raw_span(&self, raw: Option<&RawValue>) -> Span {
        let Some(raw) = raw else { return Span::EMPTY };
        let bytes = raw.get().as_bytes();
        match self.offset_of(bytes) {
            Some(offset) => Span::in_file(offset, bytes.len()),
            None => Span::EMPTY,
        }
    }

    /// The raw span of a borrowed string's literal: the text plus its two quotes.
    pub(crate) fn literal_span(&self, text: &str) -> Option<Span> {
        let offset = self.offset_of(text.as_bytes())?;
        let quoted = offset.checked_sub(1)?..offset + text.len() + 1;
        let bytes = self.file_bytes.get(quoted.clone())?;
        (bytes.first() == Some(&b'"') && bytes.last() == Some(&b'"')).then(|| Span::in_file(quoted.start, bytes.len()))
    }
}

/// Appends bytes to the arena and returns their span.
pub(crate) fn push_arena(arena: &mut Vec<u8>, bytes: &[u8]) -> Span {
    let start = arena.len();
    arena.extend_from_slice(bytes);
    Span::in_arena(start, bytes.len())
}
