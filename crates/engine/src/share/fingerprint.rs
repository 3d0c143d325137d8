//! A short fingerprint of the loaded files, so a view-state link opened over other files (or
//! other versions of them) says so instead of showing the wrong messages.

use crate::model::{Corpus, Format};

/// 16 hex digits naming the set of loaded files by their names and contents.
pub fn fingerprint(corpus: &Corpus) -> String {
    let mut files: Vec<(String, u64)> = corpus
        .files
        .iter()
        .enumerate()
        .filter(|(_, f)| f.format != Format::Rejected)
        .map(|(i, f)| {
            let bytes = corpus.bytes.get(i).map(Vec::as_slice).unwrap_or_default();
            (super::scope::share_path(&f.path), hash_bytes(bytes))
        })
        .collect();
    crate::sort::sort_by(&mut files, Ord::cmp);
    let mut combined = 0x5e55_10c0_9e5c_0bedu64;
    for (name, hash) in files {
        combined = mix(combined ^ hash_bytes(name.as_bytes()));
        combined = mix(combined ^ hash);
    }
    format!("{combined:016x}")
}

/// A fast 64-bit hash of bytes (8 at a time, multiply and fold). Not cryptographic: it tells
/// files apart, it does not stand against someone forging a match.
pub fn hash_bytes(bytes: &[u8]) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut h = (bytes.len() as u64).wrapping_mul(K);
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let word = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
        h = (h ^ word).wrapping_mul(K).rotate_left(29);
    }
    let mut tail = [0u8; 8];
    tail[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
    mix(h ^ u64::from_le_bytes(tail))
}

fn mix(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Loader;

    fn corpus(files: &[(&str, &[u8])]) -> Corpus {
        Loader::read_all(files.iter().copied())
    }

    #[test]
    fn the_fingerprint_follows_names_and_contents_not_order_or_folders() {
        let a: &[u8] = br#"{"type":"user","uuid":"u1","sessionId":"s","message":{"role":"user","content":"hi"}}"#;
        let b: &[u8] = br#"{"type":"user","uuid":"u2","sessionId":"t","message":{"role":"user","content":"yo"}}"#;
        let one = fingerprint(&corpus(&[("x/a.jsonl", a), ("x/b.jsonl", b)]));
        assert_eq!(one.len(), 16);
        assert_eq!(one, fingerprint(&corpus(&[("b.jsonl", b), ("elsewhere/a.jsonl", a)])));
        assert_ne!(one, fingerprint(&corpus(&[("a.jsonl", a)])));
        assert_ne!(one, fingerprint(&corpus(&[("a.jsonl", b), ("b.jsonl", a)])));
        let mut changed = a.to_vec();
        changed[60] = b'X';
        assert_ne!(one, fingerprint(&corpus(&[("a.jsonl", &changed), ("b.jsonl", b)])));
    }

    #[test]
    fn every_byte_and_the_length_count() {
        let base = vec![7u8; 37];
        for i in 0..base.len() {
            let mut other = base.clone();
            other[i] ^= 1;
            assert_ne!(hash_bytes(&base), hash_bytes(&other), "byte {i}");
        }
        assert_ne!(hash_bytes(&[0; 8]), hash_bytes(&[0; 9]));
    }
}
