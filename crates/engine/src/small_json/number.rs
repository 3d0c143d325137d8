//! A JSON number as serde_json keeps one: an integer that fits 64 bits as itself, anything else
//! as a float.

use std::fmt;

use serde::ser::{Serialize, Serializer};

/// A JSON number: an integer that fits 64 bits, or a float (never infinite or NaN).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Number(pub(super) N);

#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum N {
    /// Zero or more.
    PosInt(u64),
    /// Less than zero.
    NegInt(i64),
    Float(f64),
}

impl Number {
    pub fn from_u64(n: u64) -> Number {
        Number(N::PosInt(n))
    }

    pub fn from_i64(n: i64) -> Number {
        if n < 0 { Number(N::NegInt(n)) } else { Number(N::PosInt(n as u64)) }
    }

    /// A float; serde_json has no infinite or NaN number, and neither is one here (they write
    /// as `null`).
    pub fn from_f64(f: f64) -> Number {
        Number(N::Float(f))
    }

    pub fn as_u64(&self) -> Option<u64> {
        match self.0 {
            N::PosInt(n) => Some(n),
            _ => None,
        }
    }

    pub fn as_i64(&self) -> Option<i64> {
        match self.0 {
            N::PosInt(n) => i64::try_from(n).ok(),
            N::NegInt(n) => Some(n),
            N::Float(_) => None,
        }
    }

    pub fn as_f64(&self) -> Option<f64> {
        Some(match self.0 {
            N::PosInt(n) => n as f64,
            N::NegInt(n) => n as f64,
            N::Float(f) => f,
        })
    }

    /// Whether the number is an integer (not read or made as a float).
    pub fn is_integer(&self) -> bool {
        !matches!(self.0, N::Float(_))
    }
}

impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&super::to_string(self).unwrap_or_default())
    }
}

impl Serialize for Number {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            N::PosInt(n) => serializer.serialize_u64(n),
            N::NegInt(n) => serializer.serialize_i64(n),
            N::Float(f) => serializer.serialize_f64(f),
        }
    }
}
