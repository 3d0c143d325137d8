//! Deserialising a long list into a vector of exactly its length. Serde's own `Vec` grows by
//! doubling past its first megabyte, so a model of 760,000 entries decoded in a browser took
//! twice their memory, whose pages a wasm memory never gives back: 270 MB for 125 MB of model
//! (issue 40). Postcard says a list's length first; this reserves it, up to a cap that keeps a
//! wrong length from asking for more memory than any model needs.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{Deserialize, Deserializer, SeqAccess, Visitor};

/// The most bytes reserved ahead for one list: a longer one grows as it is read.
const RESERVE_AT_MOST: usize = 512 << 20;

/// A `#[serde(deserialize_with = "crate::exact_vec::deserialize")]` for a long `Vec<T>`.
pub fn deserialize<'de, D, T>(deserializer: D) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    deserializer.deserialize_seq(Exact(PhantomData))
}

struct Exact<T>(PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for Exact<T> {
    type Value = Vec<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
        let most = RESERVE_AT_MOST / std::mem::size_of::<T>().max(1);
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(most));
        while let Some(item) = seq.next_element()? {
            out.push(item);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use serde::{Deserialize, Serialize};

    #[derive(Serialize, Deserialize)]
    struct Lists {
        #[serde(deserialize_with = "super::deserialize")]
        long: Vec<(u64, u32)>,
    }

    #[test]
    fn a_list_is_read_into_a_vector_of_its_length() {
        let lists = Lists { long: (0..300_000).map(|i| (i, i as u32)).collect() };
        let encoded = postcard::to_allocvec(&lists).unwrap();
        let back: Lists = postcard::from_bytes(&encoded).unwrap();
        assert_eq!(back.long, lists.long);
        assert_eq!(back.long.capacity(), 300_000, "no room left over from growing");
        let json: Lists = serde_json::from_str(r#"{"long":[[1,2],[3,4]]}"#).unwrap();
        assert_eq!(json.long, vec![(1, 2), (3, 4)]);
        // A length that lies asks for no more than the cap, and fails as the input ends.
        let mut lying = encoded.clone();
        lying.truncate(64);
        assert!(postcard::from_bytes::<Lists>(&lying).is_err());
    }
}
