//! Interning of the few distinct strings that repeat on many lines: entry types, subtypes,
//! models, tool names, session and agent ids. All strings live in one buffer.

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::span::Sym;

#[derive(Default, Clone, Serialize, Deserialize)]
pub struct Interner {
    text: String,
    /// `(start, len)` of each symbol in `text`; index 0 is the empty `Sym::NONE`.
    ranges: Vec<(u32, u32)>,
    #[serde(skip)]
    index: FxHashMap<Box<str>, Sym>,
}

impl Interner {
    pub fn new() -> Interner {
        Interner { text: String::new(), ranges: vec![(0, 0)], index: FxHashMap::default() }
    }

    /// The symbol of `s`, adding it if new. The empty string is `Sym::NONE`.
    pub fn intern(&mut self, s: &str) -> Sym {
        if s.is_empty() {
            return Sym::NONE;
        }
        if let Some(&sym) = self.index.get(s) {
            return sym;
        }
        let sym = Sym(self.ranges.len() as u32);
        self.ranges.push((self.text.len() as u32, s.len() as u32));
        self.text.push_str(s);
        self.index.insert(s.into(), sym);
        sym
    }

    /// The symbol of `s` if it was interned.
    pub fn lookup(&self, s: &str) -> Option<Sym> {
        if s.is_empty() {
            return Some(Sym::NONE);
        }
        self.index.get(s).copied()
    }

    pub fn resolve(&self, sym: Sym) -> &str {
        match self.ranges.get(sym.0 as usize) {
            Some(&(start, len)) => &self.text[start as usize..(start + len) as usize],
            None => "",
        }
    }

    pub fn len(&self) -> usize {
        self.ranges.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ranges.len() <= 1
    }

    /// Rebuilds the lookup index after deserialisation (it is not serialised).
    pub fn rebuild_index(&mut self) {
        self.index.clear();
        for i in 1..self.ranges.len() {
            let (start, len) = self.ranges[i];
            let s: Box<str> = self.text[start as usize..(start + len) as usize].into();
            self.index.insert(s, Sym(i as u32));
        }
    }

    /// Bytes retained, for the memory figures.
    pub fn heap_bytes(&self) -> usize {
        self.text.capacity() + self.ranges.capacity() * 8 + self.index.capacity() * 40 + self.text.len()
    }
}

impl std::fmt::Debug for Interner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Interner({} symbols)", self.ranges.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interning_is_stable_and_survives_a_round_trip() {
        let mut interner = Interner::new();
        let a = interner.intern("assistant");
        let b = interner.intern("user");
        assert_eq!(interner.intern("assistant"), a);
        assert_ne!(a, b);
        assert_eq!(interner.intern(""), Sym::NONE);
        assert_eq!(interner.resolve(b), "user");

        let json = serde_json::to_string(&interner).unwrap();
        let mut back: Interner = serde_json::from_str(&json).unwrap();
        back.rebuild_index();
        assert_eq!(back.lookup("user"), Some(b));
        assert_eq!(back.resolve(a), "assistant");
    }
}
