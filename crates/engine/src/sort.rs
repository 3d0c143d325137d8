//! One sort for the code the browser's page carries. The standard library's sort is copied into
//! the wasm for every element type and every comparison it is called with (2 to 7 KB of code
//! each); the engine's sorts that the page runs (grouping a history's files, a JSON object's
//! keys, a share's fingerprint) and the page's own (`logic::sort`) share this one copy: a stable
//! sort of indices, the comparison behind a reference.

use std::cmp::Ordering;

/// `0..len` in the order `compare` gives indices, stably.
#[inline(never)]
pub fn sorted_indices(len: usize, compare: &dyn Fn(usize, usize) -> Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..len).collect();
    order.sort_by(|&a, &b| compare(a, b));
    order
}

/// Sorts `items` by `compare`, stably, through [`sorted_indices`].
pub fn sort_by<T>(items: &mut Vec<T>, compare: impl Fn(&T, &T) -> Ordering) {
    if items.len() < 2 {
        return;
    }
    let order = sorted_indices(items.len(), &|a, b| compare(&items[a], &items[b]));
    let mut slots: Vec<Option<T>> = items.drain(..).map(Some).collect();
    items.extend(order.into_iter().filter_map(|i| slots.get_mut(i).and_then(Option::take)));
}

#[cfg(test)]
mod tests {
    #[test]
    fn sorts_stably_as_the_standard_sort() {
        for seed in 0u64..300 {
            let items: Vec<(u64, usize)> =
                (0..(seed % 17) as usize).map(|i| ((seed * 31 + i as u64 * 7) % 5, i)).collect();
            let mut ours = items.clone();
            super::sort_by(&mut ours, |a, b| a.0.cmp(&b.0));
            let mut theirs = items;
            theirs.sort_by_key(|item| item.0);
            assert_eq!(ours, theirs);
        }
    }
}
