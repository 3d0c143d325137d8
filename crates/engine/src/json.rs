//! Lenient JSON pieces: field types that accept whatever a log line holds without failing the
//! line, a decoder for raw JSON string literals that survives lone surrogates, and a fast
//! ISO 8601 timestamp reader.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// A string field that borrows from the line when it can. Any other JSON type becomes `None`
/// instead of an error: a wrongly typed field must never cost the whole line.
#[derive(Default, Debug, Clone, PartialEq)]
pub struct LStr<'a>(pub Option<Cow<'a, str>>);

impl<'a> LStr<'a> {
    pub fn as_deref(&self) -> Option<&str> {
        self.0.as_deref()
    }

    pub fn is_some(&self) -> bool {
        self.0.is_some()
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for LStr<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = LStr<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any value")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(LStr(Some(Cow::Borrowed(v))))
            }
            fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
                Ok(LStr(Some(Cow::Owned(v.to_owned()))))
            }
            fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
                Ok(LStr(Some(Cow::Owned(v))))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
                Ok(LStr(None))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Self::Value, E> {
                Ok(LStr(Some(Cow::Owned(v.to_string()))))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Self::Value, E> {
                Ok(LStr(Some(Cow::Owned(v.to_string()))))
            }
            fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
                Ok(LStr(None))
            }
            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(LStr(None))
            }
            fn visit_none<E>(self) -> Result<Self::Value, E> {
                Ok(LStr(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(LStr(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(LStr(None))
            }
        }
        deserializer.deserialize_any(V)
    }
}

/// A boolean field; `"true"`/`"false"` strings count, anything else is `None`.
#[derive(Default, Debug, Clone, Copy, PartialEq)]
pub struct LBool(pub Option<bool>);

impl LBool {
    pub fn is_true(self) -> bool {
        self.0 == Some(true)
    }
}

impl<'de> Deserialize<'de> for LBool {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = LBool;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any value")
            }
            fn visit_bool<E>(self, v: bool) -> Result<LBool, E> {
                Ok(LBool(Some(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<LBool, E> {
                Ok(LBool(match v {
                    "true" => Some(true),
                    "false" => Some(false),
                    _ => None,
                }))
            }
            fn visit_i64<E>(self, v: i64) -> Result<LBool, E> {
                Ok(LBool(Some(v != 0)))
            }
            fn visit_u64<E>(self, v: u64) -> Result<LBool, E> {
                Ok(LBool(Some(v != 0)))
            }
            fn visit_f64<E>(self, _: f64) -> Result<LBool, E> {
                Ok(LBool(None))
            }
            fn visit_unit<E>(self) -> Result<LBool, E> {
                Ok(LBool(None))
            }
            fn visit_none<E>(self) -> Result<LBool, E> {
                Ok(LBool(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<LBool, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(LBool(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<LBool, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(LBool(None))
            }
        }
        deserializer.deserialize_any(V)
    }
}

/// A numeric field; numeric strings count, anything else is `None`.
#[derive(Default, Debug, Clone, Copy, PartialEq)]
pub struct LNum(pub Option<f64>);

impl LNum {
    /// The value as a non-negative integer, saturating; negative and absent values are 0.
    pub fn as_u64(self) -> u64 {
        match self.0 {
            Some(v) if v.is_finite() && v > 0.0 => {
                if v >= u64::MAX as f64 {
                    u64::MAX
                } else {
                    v as u64
                }
            }
            _ => 0,
        }
    }
}

impl<'de> Deserialize<'de> for LNum {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = LNum;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any value")
            }
            fn visit_bool<E>(self, _: bool) -> Result<LNum, E> {
                Ok(LNum(None))
            }
            fn visit_str<E>(self, v: &str) -> Result<LNum, E> {
                Ok(LNum(v.trim().parse::<f64>().ok()))
            }
            fn visit_i64<E>(self, v: i64) -> Result<LNum, E> {
                Ok(LNum(Some(v as f64)))
            }
            fn visit_u64<E>(self, v: u64) -> Result<LNum, E> {
                Ok(LNum(Some(v as f64)))
            }
            fn visit_f64<E>(self, v: f64) -> Result<LNum, E> {
                Ok(LNum(Some(v)))
            }
            fn visit_unit<E>(self) -> Result<LNum, E> {
                Ok(LNum(None))
            }
            fn visit_none<E>(self) -> Result<LNum, E> {
                Ok(LNum(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<LNum, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(LNum(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<LNum, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(LNum(None))
            }
        }
        deserializer.deserialize_any(V)
    }
}

/// A field that is only inspected for its presence and JSON type: its value is skipped.
#[derive(Default, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    #[default]
    Absent,
    Null,
    Bool,
    Number,
    String,
    Array,
    Object,
}

impl Shape {
    /// The JSON type's name, as messages say it (an absent value reads as `null`).
    pub(crate) fn name(self) -> &'static str {
        match self {
            Shape::Absent | Shape::Null => "null",
            Shape::Bool => "boolean",
            Shape::Number => "number",
            Shape::String => "string",
            Shape::Array => "array",
            Shape::Object => "object",
        }
    }
}

impl<'de> Deserialize<'de> for Shape {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Shape;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any value")
            }
            fn visit_bool<E>(self, _: bool) -> Result<Shape, E> {
                Ok(Shape::Bool)
            }
            fn visit_str<E>(self, _: &str) -> Result<Shape, E> {
                Ok(Shape::String)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Shape, E> {
                Ok(Shape::Number)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Shape, E> {
                Ok(Shape::Number)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Shape, E> {
                Ok(Shape::Number)
            }
            fn visit_unit<E>(self) -> Result<Shape, E> {
                Ok(Shape::Null)
            }
            fn visit_none<E>(self) -> Result<Shape, E> {
                Ok(Shape::Null)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Shape, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Shape::Array)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Shape, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Shape::Object)
            }
        }
        deserializer.deserialize_any(V)
    }
}

/// Decodes a raw JSON value for display: a string literal is unescaped (lone UTF-16
/// surrogates and invalid UTF-8 become U+FFFD), anything else is returned as its JSON text.
pub fn decode_value(raw: &[u8]) -> Cow<'_, str> {
    match string_body(raw) {
        Some(body) => decode_string_body(body),
        None => String::from_utf8_lossy(trim_ascii(raw)),
    }
}

/// The inside of a JSON string literal (after trimming whitespace, without its quotes), if
/// `raw` is one with both its quotes: what [`decode_value`] decodes.
pub fn string_body(raw: &[u8]) -> Option<&[u8]> {
    let trimmed = trim_ascii(raw);
    let body = trimmed.strip_prefix(b"\"")?.strip_suffix(b"\"")?;
    Some(body)
}

/// True if `raw` is a JSON string literal (after trimming whitespace).
pub fn is_string_literal(raw: &[u8]) -> bool {
    trim_ascii(raw).first() == Some(&b'"')
}

fn trim_ascii(mut raw: &[u8]) -> &[u8] {
    while let [first, rest @ ..] = raw {
        if first.is_ascii_whitespace() {
            raw = rest;
        } else {
            break;
        }
    }
    while let [rest @ .., last] = raw {
        if last.is_ascii_whitespace() {
            raw = rest;
        } else {
            break;
        }
    }
    raw
}

/// Unescapes the inside of a JSON string literal (without its quotes). Never fails.
pub fn decode_string_body(body: &[u8]) -> Cow<'_, str> {
    if memchr::memchr(b'\\', body).is_none() {
        return String::from_utf8_lossy(body);
    }
    let mut out: Vec<u8> = Vec::with_capacity(body.len());
    let mut i = 0;
    while i < body.len() {
        let Some(offset) = memchr::memchr(b'\\', &body[i..]) else {
            out.extend_from_slice(&body[i..]);
            break;
        };
        out.extend_from_slice(&body[i..i + offset]);
        i += offset + 1;
        let Some(&escape) = body.get(i) else {
            break;
        };
        i += 1;
        match escape {
            b'n' => out.push(b'\n'),
            b't' => out.push(b'\t'),
            b'r' => out.push(b'\r'),
            b'b' => out.push(0x08),
            b'f' => out.push(0x0c),
            b'/' => out.push(b'/'),
            b'\\' => out.push(b'\\'),
            b'"' => out.push(b'"'),
            b'u' => {
                let Some(unit) = hex4(body.get(i..i + 4)) else {
                    push_char(&mut out, char::REPLACEMENT_CHARACTER);
                    continue;
                };
                i += 4;
                if (0xD800..0xDC00).contains(&unit) {
                    // A high surrogate must be followed by an escaped low surrogate.
                    let low = if body.get(i) == Some(&b'\\') && body.get(i + 1) == Some(&b'u') {
                        hex4(body.get(i + 2..i + 6)).filter(|low| (0xDC00..0xE000).contains(low))
                    } else {
                        None
                    };
                    match low {
                        Some(low) => {
                            i += 6;
                            let code = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                            push_char(&mut out, char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER));
                        }
                        None => push_char(&mut out, char::REPLACEMENT_CHARACTER),
                    }
                } else {
                    push_char(&mut out, char::from_u32(unit).unwrap_or(char::REPLACEMENT_CHARACTER));
                }
            }
            other => out.push(other),
        }
    }
    match String::from_utf8(out) {
        Ok(s) => Cow::Owned(s),
        Err(e) => Cow::Owned(String::from_utf8_lossy(e.as_bytes()).into_owned()),
    }
}

fn push_char(out: &mut Vec<u8>, c: char) {
    let mut buf = [0u8; 4];
    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
}

pub(crate) fn hex4(digits: Option<&[u8]>) -> Option<u32> {
    let digits = digits?;
    let mut value = 0u32;
    for &d in digits {
        value = value * 16 + (d as char).to_digit(16)?;
    }
    Some(value)
}

/// Rewrites each lone UTF-16 surrogate escape (`\ud83d` without its pair) of raw JSON text as
/// `\ufffd`, in place: same length, so byte ranges stay valid, and strict parsers accept it.
/// Returns how many were rewritten.
pub fn repair_lone_surrogates(bytes: &mut [u8]) -> usize {
    let mut repaired = 0;
    let mut i = 0;
    while i + 1 < bytes.len() {
        if bytes[i] != b'\\' {
            i += 1;
            continue;
        }
        if bytes[i + 1] != b'u' {
            i += 2;
            continue;
        }
        let Some(unit) = hex4(bytes.get(i + 2..i + 6)) else {
            i += 2;
            continue;
        };
        let lone = if (0xD800..0xDC00).contains(&unit) {
            let paired = bytes.get(i + 6) == Some(&b'\\')
                && bytes.get(i + 7) == Some(&b'u')
                && hex4(bytes.get(i + 8..i + 12)).is_some_and(|low| (0xDC00..0xE000).contains(&low));
            if paired {
                i += 12;
                continue;
            }
            true
        } else {
            (0xDC00..0xE000).contains(&unit)
        };
        if lone {
            bytes[i + 2..i + 6].copy_from_slice(b"fffd");
            repaired += 1;
        }
        i += 6;
    }
    repaired
}

/// Milliseconds since the Unix epoch of a log's timestamp: ISO 8601 (see
/// [`parse_timestamp_ms`]), or an epoch number in seconds or milliseconds. `None` if it is
/// neither, or a number past any date (from the year 30000 on, as Cline's and Amp's times): a
/// duration between two times then always fits, and so does a sum of them.
pub(crate) fn parse_time(text: &str) -> Option<i64> {
    if let Some(ms) = parse_timestamp_ms(text) {
        return Some(ms);
    }
    // Epoch numbers: seconds or milliseconds.
    let value: f64 = text.parse().ok()?;
    if !value.is_finite() || value <= 0.0 || value >= 1e15 {
        return None;
    }
    Some(if value > 1e11 { value as i64 } else { (value * 1000.0) as i64 })
}

/// Milliseconds since the Unix epoch of an ISO 8601 / RFC 3339 timestamp such as
/// `2026-02-11T20:36:45.693Z` or `2025-06-08T10:47:08+02:00`. `None` if it is not one.
pub fn parse_timestamp_ms(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if b.len() < 19 || b[4] != b'-' || b[7] != b'-' || !(b[10] == b'T' || b[10] == b' ') {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let mut v = 0i64;
        for &c in b.get(r)? {
            if !c.is_ascii_digit() {
                return None;
            }
            v = v * 10 + (c - b'0') as i64;
        }
        Some(v)
    };
    let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
    if b[13] != b':' || b[16] != b':' {
        return None;
    }
    let (hour, minute, second) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) || hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    let mut i = 19;
    let mut millis = 0i64;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let mut scale = 100;
        while let Some(&c) = b.get(i) {
            if !c.is_ascii_digit() {
                break;
            }
            millis += (c - b'0') as i64 * scale;
            scale /= 10;
            i += 1;
        }
    }
    let offset_minutes = match b.get(i) {
        None | Some(b'Z') | Some(b'z') => 0,
        Some(&sign @ (b'+' | b'-')) => {
            let h = num(i + 1..i + 3)?;
            let m = match b.get(i + 3) {
                Some(b':') => num(i + 4..i + 6)?,
                Some(_) => num(i + 3..i + 5)?,
                None => 0,
            };
            let total = h * 60 + m;
            if sign == b'+' { total } else { -total }
        }
        Some(_) => return None,
    };
    let days = days_from_civil(year, month, day);
    let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset_minutes * 60;
    Some(seconds * 1000 + millis)
}

/// Milliseconds since the epoch at the start (UTC) of a `YYYY-MM-DD` day; `None` if it is not
/// one, or not a day of the calendar (`2026-02-30`).
pub fn day_start_ms(text: &str) -> Option<i64> {
    let bytes = text.as_bytes();
    if bytes.len() != 10 || bytes[4] != b'-' || bytes[7] != b'-' {
        return None;
    }
    let number = |range: std::ops::Range<usize>| -> Option<i64> {
        let part = &text[range];
        part.bytes().all(|b| b.is_ascii_digit()).then(|| part.parse().ok()).flatten()
    };
    let (year, month, day) = (number(0..4)?, number(5..7)?, number(8..10)?);
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let days_in_month = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return None,
    };
    (1..=days_in_month).contains(&day).then(|| days_from_civil(year, month, day) * 86_400_000)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Formats milliseconds since the epoch as `YYYY-MM-DDTHH:MM:SS.mmmZ`.
pub fn format_timestamp_ms(ms: i64) -> String {
    let days = ms.div_euclid(86_400_000);
    let rem = ms.rem_euclid(86_400_000);
    let (h, m, s, milli) = (rem / 3_600_000, rem / 60_000 % 60, rem / 1000 % 60, rem % 1000);
    let z = days + 719_468;
    let era = if z >= 0 { z } else { z - 146_096 } / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}.{milli:03}Z")
}

/// An array of objects read leniently (an element of another type is its `Default`); any
/// other value is an empty list.
pub struct LList<'a, T>(pub Vec<T>, std::marker::PhantomData<&'a ()>);

impl<T> Default for LList<'_, T> {
    fn default() -> Self {
        LList(Vec::new(), std::marker::PhantomData)
    }
}

struct Lenient<T>(T);

impl<'de, T: Deserialize<'de> + Default> Deserialize<'de> for Lenient<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        lenient(deserializer).map(Lenient)
    }
}

impl<'de: 'a, 'a, T: Deserialize<'de> + Default> Deserialize<'de> for LList<'a, T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de> + Default> Visitor<'de> for V<T> {
            type Value = Vec<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a list")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut items = Vec::new();
                while let Some(Lenient(item)) = seq.next_element::<Lenient<T>>()? {
                    items.push(item);
                }
                Ok(items)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Vec::new())
            }
            fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
                Ok(Vec::new())
            }
            fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
                Ok(Vec::new())
            }
            fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
                Ok(Vec::new())
            }
            fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
                Ok(Vec::new())
            }
            fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
                Ok(Vec::new())
            }
            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(Vec::new())
            }
            fn visit_none<E>(self) -> Result<Self::Value, E> {
                Ok(Vec::new())
            }
        }
        deserializer.deserialize_any(V(std::marker::PhantomData)).map(|items| LList(items, std::marker::PhantomData))
    }
}

/// Deserialises a value or yields `Default` if the JSON has another type, for nested structs
/// that must not fail their line.
pub fn lenient<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    // Struct fields in this crate are all lenient, so a map always deserialises; other shapes
    // are skipped by `Shape`.
    struct V<T>(std::marker::PhantomData<T>);
    impl<'de, T: Deserialize<'de> + Default> Visitor<'de> for V<T> {
        type Value = T;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
            T::deserialize(de::value::MapAccessDeserializer::new(map))
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<T, A::Error> {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            Ok(T::default())
        }
        fn visit_bool<E>(self, _: bool) -> Result<T, E> {
            Ok(T::default())
        }
        fn visit_str<E>(self, _: &str) -> Result<T, E> {
            Ok(T::default())
        }
        fn visit_i64<E>(self, _: i64) -> Result<T, E> {
            Ok(T::default())
        }
        fn visit_u64<E>(self, _: u64) -> Result<T, E> {
            Ok(T::default())
        }
        fn visit_f64<E>(self, _: f64) -> Result<T, E> {
            Ok(T::default())
        }
        fn visit_unit<E>(self) -> Result<T, E> {
            Ok(T::default())
        }
        fn visit_none<E>(self) -> Result<T, E> {
            Ok(T::default())
        }
    }
    deserializer.deserialize_any(V(std::marker::PhantomData))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_escapes_and_survives_lone_surrogates() {
        assert_eq!(decode_value(br#""a\nb\t\"c\" \u00e9""#), "a\nb\t\"c\" é");
        assert_eq!(decode_value(br#""\ud83d\ude00 ok""#), "😀 ok");
        assert_eq!(decode_value(br#""lone \ud83d here""#), "lone \u{FFFD} here");
        assert_eq!(decode_value(br#""low \ude00 first""#), "low \u{FFFD} first");
        assert_eq!(decode_value(br#""cut \u12""#), "cut \u{FFFD}12");
        assert_eq!(decode_value(b"{\"a\":1}"), "{\"a\":1}");
        assert_eq!(decode_value(b"\"bad \xff byte\""), "bad \u{FFFD} byte");
    }

    #[test]
    fn lone_surrogate_escapes_are_rewritten_in_place() {
        let mut text = br#"{"a":"x \ud83d y \ud83d\ude00 z \\ud83d \ude00"}"#.to_vec();
        let before = text.len();
        assert_eq!(repair_lone_surrogates(&mut text), 2);
        assert_eq!(text.len(), before);
        assert_eq!(text, br#"{"a":"x \ufffd y \ud83d\ude00 z \\ud83d \ufffd"}"#);
        let value: serde_json::Value = serde_json::from_slice(&text).unwrap();
        assert_eq!(value["a"], "x \u{fffd} y 😀 z \\ud83d \u{fffd}");
    }

    #[test]
    fn timestamps_round_trip() {
        let ms = parse_timestamp_ms("2026-02-11T20:36:45.693Z").unwrap();
        assert_eq!(format_timestamp_ms(ms), "2026-02-11T20:36:45.693Z");
        assert_eq!(parse_timestamp_ms("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(parse_timestamp_ms("2025-06-08T12:47:08+02:00"), parse_timestamp_ms("2025-06-08T10:47:08Z"));
        assert_eq!(parse_timestamp_ms("2025-06-08T10:47:08.123456789Z").map(|v| v % 1000), Some(123));
        assert_eq!(parse_timestamp_ms("yesterday"), None);
        assert_eq!(parse_timestamp_ms("2025-13-08T10:47:08Z"), None);
    }

    #[test]
    fn lenient_fields_accept_every_json_type() {
        #[derive(serde::Deserialize)]
        struct Probe<'a> {
            #[serde(borrow, default)]
            s: LStr<'a>,
            #[serde(default)]
            b: LBool,
            #[serde(default)]
            n: LNum,
        }
        for text in [
            r#"{"s":1,"b":"true","n":"12"}"#,
            r#"{"s":{"x":[1,2]},"b":[true],"n":{"a":1}}"#,
            r#"{"s":null,"b":null,"n":null}"#,
            r#"{}"#,
        ] {
            let probe: Probe = serde_json::from_str(text).unwrap();
            let _ = (probe.s, probe.b, probe.n);
        }
        let probe: Probe = serde_json::from_str(r#"{"s":"x\"y","b":true,"n":3.5}"#).unwrap();
        assert_eq!(probe.s.as_deref(), Some("x\"y"));
        assert!(probe.b.is_true());
        assert_eq!(probe.n.as_u64(), 3);
    }
}
