//! One sort for the page's lists. The standard library's sort is copied into the wasm for every
//! element type and every comparison it is called with, 2 to 7 KB of code each; the page's two
//! dozen sorts (projects, sessions, tools, files touched, remembered folders, ...) share one copy
//! instead, with the engine's sorts the page runs: a stable sort of indices, the comparison behind
//! a reference (`sessionscope_engine::sort`, `docs/size.md`).

use std::cmp::Ordering;

/// Sorts `items` by `compare`, stably (the engine's one sort of indices,
/// `sessionscope_engine::sort`).
pub fn sort_by<T>(items: &mut Vec<T>, compare: impl Fn(&T, &T) -> Ordering) {
    sessionscope_engine::sort::sort_by(items, compare);
}

/// Sorts `items` by a key, stably.
pub fn sort_by_key<T, K: Ord>(items: &mut Vec<T>, key: impl Fn(&T) -> K) {
    sort_by(items, |a, b| key(a).cmp(&key(b)));
}

/// Sorts `items` in their order, stably.
pub fn sort<T: Ord>(items: &mut Vec<T>) {
    sort_by(items, T::cmp);
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn sorts_as_the_standard_sort_does_and_keeps_ties_in_order(items in prop::collection::vec((0u8..8, any::<u16>()), 0..200)) {
            let mut ours = items.clone();
            sort_by(&mut ours, |a, b| a.0.cmp(&b.0));
            let mut standard = items.clone();
            standard.sort_by_key(|a| a.0);
            prop_assert_eq!(ours, standard);
        }
    }

    #[test]
    fn keys_and_natural_order() {
        let mut words = vec!["pear".to_owned(), "fig".to_owned(), "apple".to_owned(), "kiwi".to_owned()];
        sort(&mut words);
        assert_eq!(words, ["apple", "fig", "kiwi", "pear"]);
        sort_by_key(&mut words, |w| std::cmp::Reverse(w.len()));
        assert_eq!(words, ["apple", "kiwi", "pear", "fig"], "longest first, ties as they were");
        let mut none: Vec<u8> = Vec::new();
        sort(&mut none);
        assert!(none.is_empty());
    }
}
