//! The values the log names as ids (sessions, messages, tool calls, requests, agents), kept out
//! of the findings ([`super::Redactor::keep_ids`]): a session's id in a resume command or a file
//! name is no secret. Only a hash of each id is kept, so that a history's millions of ids cost
//! little; uuids are not kept at all, no detector taking one for a secret (the entropy detector
//! skips a token that holds one).

use std::hash::BuildHasher;
use std::ops::Range;

use rustc_hash::{FxBuildHasher, FxHashSet};

use super::entropy;

/// Ids shorter than this are not kept (no detector takes them for a secret, but a word of a
/// text could be one).
const MIN_ID: usize = 8;
/// Ids longer than this are not kept, nor looked for.
const MAX_ID: usize = 256;

/// A byte that can be part of an id: letters, digits, `-` and `_`.
fn is_id_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-' || b == b'_'
}

fn hash(id: &[u8]) -> u64 {
    FxBuildHasher.hash_one(id)
}

/// The kept ids, by hash.
#[derive(Default)]
pub(crate) struct KeptIds {
    hashes: FxHashSet<u64>,
}

impl KeptIds {
    /// Keeps `id`, if it is one worth keeping.
    pub(crate) fn insert(&mut self, id: &str) {
        let id = id.trim().as_bytes();
        if (MIN_ID..=MAX_ID).contains(&id.len()) && id.iter().copied().all(is_id_byte) && !entropy::is_uuid(id) {
            self.hashes.insert(hash(id));
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.hashes.is_empty()
    }

    /// The kept ids of `t` around `range`: in each run of id bytes that `range` touches, every
    /// span that starts and ends at the run's ends or at a `-` or `_` inside it (an id within a
    /// file name such as `rollout-2025-…-<id>.jsonl`) and is a kept id.
    pub(crate) fn spans_near(&self, t: &[u8], range: Range<usize>) -> Vec<Range<usize>> {
        let mut found = Vec::new();
        let mut start = range.start.min(t.len());
        while start > 0 && is_id_byte(t[start - 1]) {
            start -= 1;
        }
        let mut end = range.end.min(t.len());
        while end < t.len() && is_id_byte(t[end]) {
            end += 1;
        }
        let mut at = start;
        while at < end {
            if !is_id_byte(t[at]) {
                at += 1;
                continue;
            }
            let run_end = (at..end).find(|&i| !is_id_byte(t[i])).unwrap_or(end);
            let separators = (at..run_end).filter(|&i| matches!(t[i], b'-' | b'_'));
            let starts: Vec<usize> = std::iter::once(at).chain(separators.clone().map(|i| i + 1)).collect();
            let ends: Vec<usize> = separators.chain(std::iter::once(run_end)).collect();
            for &s in &starts {
                for &e in ends.iter().filter(|&&e| e > s && e - s <= MAX_ID) {
                    if e - s >= MIN_ID && self.hashes.contains(&hash(&t[s..e])) {
                        found.push(s..e);
                    }
                }
            }
            at = run_end;
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_found_alone_and_inside_longer_names() {
        let mut kept = KeptIds::default();
        for id in ["ses_5f2a9c1e8ffeQ7hLm3Xz", "short", "0199a213-81c0-7800-8aa1-bbab2a035a53", "with space x"] {
            kept.insert(id);
        }
        assert_eq!(kept.hashes.len(), 1, "a short id, a uuid and what is no id are not kept");
        let text = b"opencode --session ses_5f2a9c1e8ffeQ7hLm3Xz; saved-ses_5f2a9c1e8ffeQ7hLm3Xz.json; ses_5f2a9c1e8ffeQ7hLm3Xzz";
        let ends = |range: Range<usize>| -> Vec<(usize, usize)> {
            kept.spans_near(text, range).into_iter().map(|id| (id.start, id.end)).collect()
        };
        assert_eq!(ends(20..30), [(19, 43)]);
        assert_eq!(ends(45..75), [(51, 75)], "inside a file name");
        assert!(kept.spans_near(text, 82..100).is_empty(), "a longer token is another value");
        assert!(kept.spans_near(text, 0..8).is_empty());
    }
}
