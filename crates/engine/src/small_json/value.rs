//! A JSON value read whole ([`parse`]): what a view looks into when a text's shape is not known
//! ahead, as a tool call's input. It answers as serde_json's `Value` does (`get`, `as_str`,
//! `as_u64`, ...), and an object's keys come in order, each once (the last of a key wins).

use std::fmt;

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

use super::number::Number;
use super::read::Reader;
use super::{Error, What};

/// A JSON value.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Value {
    #[default]
    Null,
    Bool(bool),
    Number(Number),
    String(String),
    Array(Vec<Value>),
    Object(Object),
}

/// A JSON object: its keys in order, each once.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Object {
    /// Sorted by key, no key twice.
    entries: Vec<(String, Value)>,
}

impl Object {
    /// An object of these entries; of a key given twice, the last is kept.
    pub fn from_entries(mut entries: Vec<(String, Value)>) -> Object {
        if !entries.is_sorted_by(|a, b| a.0 < b.0) {
            // Stable: of equal keys, the last given stays last, and takes the place of the
            // first (which `dedup_by` keeps).
            crate::sort::sort_by(&mut entries, |a, b| a.0.cmp(&b.0));
            entries.dedup_by(|later, kept| {
                let same = later.0 == kept.0;
                if same {
                    std::mem::swap(later, kept);
                }
                same
            });
        }
        Object { entries }
    }

    pub fn get(&self, key: &str) -> Option<&Value> {
        let found = self.entries.binary_search_by(|(k, _)| k.as_str().cmp(key)).ok()?;
        self.entries.get(found).map(|(_, value)| value)
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entries, in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &Value)> {
        self.entries.iter().map(|(key, value)| (key, value))
    }

    pub fn keys(&self) -> impl Iterator<Item = &String> {
        self.entries.iter().map(|(key, _)| key)
    }

    pub fn values(&self) -> impl Iterator<Item = &Value> {
        self.entries.iter().map(|(_, value)| value)
    }
}

impl Value {
    /// The value of `key`, if this is an object that has it.
    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Object(object) => object.get(key),
            _ => None,
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_number(&self) -> Option<&Number> {
        match self {
            Value::Number(n) => Some(n),
            _ => None,
        }
    }

    pub fn as_u64(&self) -> Option<u64> {
        self.as_number()?.as_u64()
    }

    pub fn as_i64(&self) -> Option<i64> {
        self.as_number()?.as_i64()
    }

    pub fn as_f64(&self) -> Option<f64> {
        self.as_number()?.as_f64()
    }

    pub fn as_array(&self) -> Option<&Vec<Value>> {
        match self {
            Value::Array(items) => Some(items),
            _ => None,
        }
    }

    pub fn as_object(&self) -> Option<&Object> {
        match self {
            Value::Object(object) => Some(object),
            _ => None,
        }
    }

    /// The value as compact JSON (what `to_string` gives).
    pub fn to_json(&self) -> String {
        super::to_string(self).unwrap_or_default()
    }

    /// The value as pretty JSON, two spaces an indent.
    pub fn to_pretty_json(&self) -> String {
        super::to_string_pretty(self).unwrap_or_default()
    }
}

/// Compact JSON.
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_json())
    }
}

impl Serialize for Value {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Null => serializer.serialize_unit(),
            Value::Bool(b) => serializer.serialize_bool(*b),
            Value::Number(n) => n.serialize(serializer),
            Value::String(s) => serializer.serialize_str(s),
            Value::Array(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Value::Object(object) => {
                let mut map = serializer.serialize_map(Some(object.len()))?;
                for (key, value) in object.iter() {
                    map.serialize_entry(key, value)?;
                }
                map.end()
            }
        }
    }
}

/// Reads a JSON text whole; an error says what is wrong and where.
pub fn parse(bytes: &[u8]) -> Result<Value, Error> {
    let mut reader = Reader::new(bytes);
    let value = read(&mut reader, 0)?;
    reader.end()?;
    Ok(value)
}

/// One value, inside `depth` arrays and objects.
fn read(reader: &mut Reader, depth: usize) -> Result<Value, Error> {
    Ok(match reader.peek() {
        None => return Err(reader.error(What::Eof)),
        Some(b'n') => {
            reader.literal(b"null")?;
            Value::Null
        }
        Some(b't') => {
            reader.literal(b"true")?;
            Value::Bool(true)
        }
        Some(b'f') => {
            reader.literal(b"false")?;
            Value::Bool(false)
        }
        Some(b'"') => {
            reader.bump();
            Value::String(reader.string()?.into_owned())
        }
        Some(b'-' | b'0'..=b'9') => Value::Number(reader.number()?),
        Some(b'[') => {
            let depth = reader.deeper(depth)?;
            reader.bump();
            let mut items = Vec::new();
            if reader.peek() == Some(b']') {
                reader.bump();
            } else {
                loop {
                    items.push(read(reader, depth)?);
                    if !reader.more_items()? {
                        break;
                    }
                }
            }
            Value::Array(items)
        }
        Some(b'{') => {
            let depth = reader.deeper(depth)?;
            reader.bump();
            let mut entries = Vec::new();
            if reader.peek() == Some(b'}') {
                reader.bump();
            } else {
                loop {
                    let key = reader.key()?.into_owned();
                    entries.push((key, read(reader, depth)?));
                    if !reader.more_entries()? {
                        break;
                    }
                }
            }
            Value::Object(Object::from_entries(entries))
        }
        Some(_) => return Err(reader.error(What::ExpectedValue)),
    })
}
