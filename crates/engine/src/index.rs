//! Typed indices into the arenas of the model and the graph: an [`EntryId`] indexes
//! [`Corpus::entries`](crate::model::Corpus::entries) and nothing else, an [`OpId`]
//! [`Graph::tool_ops`](crate::dag::Graph::tool_ops), and so on. Each is a `u32` underneath, with
//! its own `NONE` (`u32::MAX`, so it sorts after every real index) for "no such item"; it
//! costs no more than the bare `u32` it replaces, serialises as that `u32` (the worker's model
//! travels unchanged), and prints as its number, with `Debug` as with `Display`.
//!
//! Getting an item: `arena.get(id.index())` or the typed accessors (`Corpus::entry`,
//! `Graph::node`, ...), which answer `None` for `NONE` as for any index past the end.
//!
//! [`index_types!`](crate::index_types) defines them; the app uses it for the rows of its
//! outline (the crate using it needs `serde`).

/// Defines index types: `u32` newtypes with `NONE`, conversions to and from `usize`, and the
/// traits an index needs (ordered, hashable, serialised as its number).
#[macro_export]
macro_rules! index_types {
    ($($(#[$doc:meta])* $name:ident;)*) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, ::serde::Serialize, ::serde::Deserialize)]
        #[serde(transparent)]
        pub struct $name(u32);

        impl $name {
            /// No item: greater than every real index.
            pub const NONE: $name = $name(u32::MAX);

            /// The id of item `index` of its arena.
            #[inline]
            pub const fn new(index: usize) -> $name {
                $name(index as u32)
            }

            /// The id whose number is `raw`, as it was written out.
            #[inline]
            pub const fn from_raw(raw: u32) -> $name {
                $name(raw)
            }

            /// The id's number.
            #[inline]
            pub const fn raw(self) -> u32 {
                self.0
            }

            /// The position in its arena, for indexing a slice (`NONE` is past the end of all).
            #[inline]
            pub const fn index(self) -> usize {
                self.0 as usize
            }

            #[inline]
            pub const fn is_none(self) -> bool {
                self.0 == $name::NONE.0
            }

            #[inline]
            pub const fn is_some(self) -> bool {
                self.0 != $name::NONE.0
            }

            /// `None` for `NONE`, else the id.
            #[inline]
            pub const fn get(self) -> Option<$name> {
                if self.is_none() { None } else { Some(self) }
            }
        }

        impl From<Option<$name>> for $name {
            #[inline]
            fn from(id: Option<$name>) -> $name {
                id.unwrap_or($name::NONE)
            }
        }

        impl ::std::fmt::Debug for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                ::std::fmt::Debug::fmt(&self.0, f)
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                ::std::fmt::Display::fmt(&self.0, f)
            }
        }

        /// Reads the number `Display` writes.
        impl ::std::str::FromStr for $name {
            type Err = ::std::num::ParseIntError;

            fn from_str(text: &str) -> Result<$name, Self::Err> {
                text.parse().map($name)
            }
        }

        const _: () = assert!(::std::mem::size_of::<$name>() == 4 && ::std::mem::align_of::<$name>() == 4);
    )*};
}

index_types! {
    /// An entry: index into `Corpus::entries` (and `Graph::nodes`, which is indexed alike).
    EntryId;
    /// A content block: index into `Corpus::blocks`.
    BlockId;
    /// An API response: index into `Corpus::responses`.
    ResponseId;
    /// A shared envelope (cwd, version, branch, ...): index into `Corpus::envelopes`.
    EnvelopeId;
    /// A tool operation (a call and its result): index into `Graph::tool_ops`.
    OpId;
    /// A conversation (a main thread or an agent's): index into `Graph::conversations`.
    ConversationId;
    /// A session: index into `Graph::sessions`.
    SessionId;
    /// A real fork: index into `Graph::forks`.
    ForkId;
    /// A compaction as the graph links it: index into `Graph::compactions`.
    CompactionId;
    /// A turn (a prompt and the lines answering it): index into `Graph::turns`.
    TurnId;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_index_is_its_number_and_none_is_last() {
        let e = EntryId::new(7);
        assert_eq!((e.index(), e.raw(), e.is_some(), e.get()), (7, 7, true, Some(e)));
        assert_eq!((EntryId::NONE.is_none(), EntryId::NONE.get()), (true, None));
        assert!(e < EntryId::NONE);
        assert_eq!(EntryId::from(None), EntryId::NONE);
        assert_eq!(format!("{e} {e:?} {:?} {:>3}", EntryId::NONE, OpId::new(4)), "7 7 4294967295   4");
        assert_eq!(serde_json::to_string(&[e, EntryId::NONE]).ok().as_deref(), Some("[7,4294967295]"));
        assert_eq!(serde_json::from_str::<SessionId>("3").ok(), Some(SessionId::new(3)));
        assert_eq!(("12".parse(), "x".parse::<TurnId>().is_err()), (Ok(TurnId::new(12)), true));
    }
}
