//! JSON in little code: text read into a [`Value`] or into any `Deserialize` type, and values or
//! `Serialize` types written compact or pretty, as serde_json reads and writes them (the same
//! texts accepted and refused, the same output byte for byte, object keys in order as its
//! `BTreeMap` keeps them).
//!
//! The page's wasm holds this instead of serde_json, whose reader is instantiated per type and
//! per input kind and came to about 90 KB of code there: what the page reads and writes as JSON
//! (tool inputs, a line's details, the marks file, a history's cached index, a share's header,
//! downloads) goes through here. The importers, which parse logs in the workers and the command
//! line, keep serde_json for its speed.
//!
//! Nothing here panics on any input: text that is not JSON is an [`Error`] that says where, and
//! nesting deeper than 128 arrays and objects is refused.

mod de;
mod number;
mod read;
mod ser;
mod value;

use std::fmt;

use serde::de::{Expected, Unexpected};

pub use de::{from_slice, from_str};
pub use number::Number;
pub use ser::{to_string, to_string_pretty, to_vec};
pub use value::{Object, Value, parse};

/// Why a text is not the JSON asked for, or a value could not be written; with the line and
/// column it was found at when reading.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    what: What,
    /// 1-based line and column of the byte where reading stopped.
    at: Option<(usize, usize)>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum What {
    Eof,
    EofString,
    EofList,
    EofObject,
    ExpectedValue,
    ExpectedColon,
    ExpectedListCommaOrEnd,
    ExpectedObjectCommaOrEnd,
    KeyMustBeAString,
    TrailingComma,
    TrailingCharacters,
    InvalidNumber,
    NumberOutOfRange,
    InvalidEscape,
    InvalidUnicode,
    LoneSurrogate,
    ControlCharacter,
    RecursionLimit,
    /// What a type's `Deserialize` or `Serialize` said.
    Custom(String),
}

impl Error {
    fn new(what: What) -> Error {
        Error { what, at: None }
    }

    /// The error with the place it was found at in `bytes` (`at`, the offset of the byte that
    /// is wrong, which counts as read), unless it has one already.
    fn placed(mut self, bytes: &[u8], at: usize) -> Error {
        if self.at.is_none() {
            let before = &bytes[..at.saturating_add(1).min(bytes.len())];
            let line_start = before.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
            let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
            self.at = Some((line, before.len() - line_start));
        }
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match &self.what {
            What::Eof => "EOF while parsing a value",
            What::EofString => "EOF while parsing a string",
            What::EofList => "EOF while parsing a list",
            What::EofObject => "EOF while parsing an object",
            What::ExpectedValue => "expected value",
            What::ExpectedColon => "expected `:`",
            What::ExpectedListCommaOrEnd => "expected `,` or `]`",
            What::ExpectedObjectCommaOrEnd => "expected `,` or `}`",
            What::KeyMustBeAString => "key must be a string",
            What::TrailingComma => "trailing comma",
            What::TrailingCharacters => "trailing characters",
            What::InvalidNumber => "invalid number",
            What::NumberOutOfRange => "number out of range",
            What::InvalidEscape => "invalid escape",
            What::InvalidUnicode => "invalid unicode code point",
            What::LoneSurrogate => "lone surrogate in hex escape",
            What::ControlCharacter => "control character (\\u0000-\\u001F) found while parsing a string",
            What::RecursionLimit => "recursion limit exceeded",
            What::Custom(message) => message,
        };
        match self.at {
            Some((line, column)) => write!(f, "{what} at line {line} column {column}"),
            None => f.write_str(what),
        }
    }
}

impl std::error::Error for Error {}

impl serde::de::Error for Error {
    fn custom<T: fmt::Display>(message: T) -> Error {
        Error::new(What::Custom(message.to_string()))
    }

    fn invalid_type(unexpected: Unexpected, expected: &dyn Expected) -> Error {
        Error::custom(format_args!("invalid type: {}, expected {expected}", Said(unexpected)))
    }

    fn invalid_value(unexpected: Unexpected, expected: &dyn Expected) -> Error {
        Error::custom(format_args!("invalid value: {}, expected {expected}", Said(unexpected)))
    }
}

/// What a value was, in an error's words: as serde says it, but `null` for a unit (as
/// serde_json says it) and a float without its digits, whose printing would take more code
/// than the rest of this module.
struct Said<'a>(Unexpected<'a>);

impl fmt::Display for Said<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Unexpected::Bool(b) => write!(f, "boolean `{b}`"),
            Unexpected::Unsigned(n) => write!(f, "integer `{n}`"),
            Unexpected::Signed(n) => write!(f, "integer `{n}`"),
            Unexpected::Float(_) => f.write_str("floating point number"),
            Unexpected::Char(c) => write!(f, "character `{c}`"),
            Unexpected::Str(s) => write!(f, "string {s:?}"),
            Unexpected::Bytes(_) => f.write_str("byte array"),
            Unexpected::Unit => f.write_str("null"),
            Unexpected::Option => f.write_str("Option value"),
            Unexpected::NewtypeStruct => f.write_str("newtype struct"),
            Unexpected::Seq => f.write_str("sequence"),
            Unexpected::Map => f.write_str("map"),
            Unexpected::Enum => f.write_str("enum"),
            Unexpected::UnitVariant => f.write_str("unit variant"),
            Unexpected::NewtypeVariant => f.write_str("newtype variant"),
            Unexpected::TupleVariant => f.write_str("tuple variant"),
            Unexpected::StructVariant => f.write_str("struct variant"),
            Unexpected::Other(other) => f.write_str(other),
        }
    }
}

impl serde::ser::Error for Error {
    fn custom<T: fmt::Display>(message: T) -> Error {
        Error::new(What::Custom(message.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use proptest::prelude::*;
    use serde::{Deserialize, Serialize};

    use super::*;

    /// What serde_json makes of a text: its compact and pretty writing, or that it fails.
    fn serde_json_of(text: &[u8]) -> Option<(String, String)> {
        let value: serde_json::Value = serde_json::from_slice(text).ok()?;
        Some((serde_json::to_string(&value).unwrap(), serde_json::to_string_pretty(&value).unwrap()))
    }

    fn ours_of(text: &[u8]) -> Option<(String, String)> {
        let value = parse(text).ok()?;
        Some((value.to_json(), value.to_pretty_json()))
    }

    #[test]
    fn texts_read_and_write_as_serde_json_reads_and_writes_them() {
        let texts: &[&str] = &[
            "null",
            " true ",
            "false",
            "0",
            "-0",
            "-1",
            "18446744073709551615",
            "18446744073709551616",
            "-9223372036854775808",
            "-9223372036854775809",
            "1.50",
            "1E2",
            "1e-7",
            "2.5e-5",
            "123456789012345678901234567890",
            "0.1",
            "3.14159",
            "1e308",
            "\"\"",
            r#""a\"b\\c\/d\b\f\n\r\t""#,
            r#""\u00e9\u0001\u001f\ud83d\ude00 é ✓""#,
            "\"\u{7f}\"",
            "[]",
            "{}",
            "[[]]",
            "[{}]",
            r#"{"b":1,"a":[],"c":{},"d":[1,[2,{"e":null}]]}"#,
            r#"{"a":1,"a":2}"#,
            r#"{"z":{"y":{"x":[true,false,null,"s",-2.5]}}}"#,
            // Refused, as serde_json refuses them.
            "",
            "   ",
            "1e400",
            "-1e400",
            "01",
            "-01",
            "1.",
            ".5",
            "1e",
            "1e+",
            "-",
            "+1",
            "[1,]",
            "{\"a\":1,}",
            "[1 2]",
            "{\"a\" 1}",
            "{\"a\":1 \"b\":2}",
            "{1:2}",
            "\"\\ud800\"",
            "\"\\ud800\\u0041\"",
            "\"\\udc00\"",
            "\"\\x\"",
            "\"\\u12\"",
            "\"abc",
            "1 2",
            "nul",
            "nulL",
            "tru",
            "[",
            "{",
            "{\"a\"",
            "{\"a\":",
            "\"a\u{1}\"",
            "NaN",
            "Infinity",
        ];
        for text in texts {
            assert_eq!(ours_of(text.as_bytes()), serde_json_of(text.as_bytes()), "{text:?}");
        }
        // Bytes that are not UTF-8 inside a string are refused; outside, they are no JSON.
        for bytes in [&b"\"\xff\""[..], b"\"a\xc3\"", b"\xff", b"[\"\xe2\x9c\"]"] {
            assert_eq!(ours_of(bytes), serde_json_of(bytes), "{bytes:?}");
        }
    }

    #[test]
    fn nesting_deeper_than_128_is_refused_without_overflowing_the_stack() {
        for depth in [127, 128, 129, 100_000] {
            let text = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
            assert_eq!(parse(text.as_bytes()).is_ok(), depth <= 128, "{depth}");
            assert_eq!(from_str::<serde_json::Value>(&text).is_ok(), depth <= 128, "{depth}");
            assert_eq!(from_str::<serde::de::IgnoredAny>(&text).is_ok(), depth <= 128, "{depth}");
            let text = format!("{}{}", "{\"a\":".repeat(depth), "}".repeat(depth));
            assert!(parse(text.as_bytes()).is_err(), "an object holds a value");
        }
    }

    #[test]
    fn an_error_says_what_and_where_as_serde_json_says_it() {
        for text in
            ["[1,\n 2,]", "01", "1 2", "{\"a\" 1}", "[1 2]", "\"abc", "{1:2}", "\"\\x\"", "\"a\u{1}\"", "1e400", "x"]
        {
            let ours = parse(text.as_bytes()).unwrap_err().to_string();
            let theirs = serde_json::from_str::<serde_json::Value>(text).unwrap_err().to_string();
            assert_eq!(ours, theirs, "{text:?}");
        }
        assert_eq!(
            from_str::<u32>("\"x\"").unwrap_err().to_string(),
            serde_json::from_str::<u32>("\"x\"").unwrap_err().to_string()
        );
    }

    #[test]
    fn a_value_answers_as_serde_json_s_does() {
        let text = br#"{"s":"x","n":-3,"u":7,"f":1.5,"b":true,"a":[1,"two"],"o":{"k":null}}"#;
        let ours = parse(text).unwrap();
        let theirs: serde_json::Value = serde_json::from_slice(text).unwrap();
        for key in ["s", "n", "u", "f", "b", "a", "o", "missing"] {
            let (a, b) = (ours.get(key), theirs.get(key));
            assert_eq!(a.is_some(), b.is_some(), "{key}");
            let (Some(a), Some(b)) = (a, b) else { continue };
            assert_eq!(a.as_str(), b.as_str(), "{key}");
            assert_eq!(a.as_u64(), b.as_u64(), "{key}");
            assert_eq!(a.as_i64(), b.as_i64(), "{key}");
            assert_eq!(a.as_f64(), b.as_f64(), "{key}");
            assert_eq!(a.as_bool(), b.as_bool(), "{key}");
            assert_eq!(a.is_null(), b.is_null(), "{key}");
            assert_eq!(a.as_array().map(Vec::len), b.as_array().map(Vec::len), "{key}");
            assert_eq!(a.to_string(), b.to_string(), "{key}");
        }
        let keys: Vec<&String> = ours.as_object().unwrap().keys().collect();
        assert_eq!(keys, theirs.as_object().unwrap().keys().collect::<Vec<_>>());
        assert_eq!(ours.get("o").and_then(|o| o.get("k")), Some(&Value::Null));
        assert_eq!(Value::String("x".into()).get("x"), None);
    }

    #[test]
    fn an_object_made_of_entries_keeps_the_last_of_a_key_in_key_order() {
        let object = Object::from_entries(vec![
            ("b".into(), Value::Bool(true)),
            ("a".into(), Value::Null),
            ("b".into(), Value::Bool(false)),
        ]);
        assert_eq!(object.len(), 2);
        assert_eq!(object.get("b"), Some(&Value::Bool(false)));
        assert_eq!(Value::Object(object).to_json(), r#"{"a":null,"b":false}"#);
    }

    #[derive(Serialize, Deserialize, Debug, PartialEq, Default)]
    enum Kind {
        #[default]
        Plain,
        Named(String),
        Pair(u8, i64),
        Shaped {
            x: f64,
        },
    }

    #[derive(Serialize, Deserialize, Debug, PartialEq, Default)]
    struct Sample {
        text: String,
        count: u32,
        delta: i64,
        ratio: f64,
        small: f32,
        maybe: Option<String>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        list: Vec<(String, bool)>,
        map: BTreeMap<String, Vec<u64>>,
        numbered: BTreeMap<u32, char>,
        kinds: Vec<Kind>,
        #[serde(flatten)]
        extra: Extra,
        unit: (),
        bytes: Vec<u8>,
    }

    #[derive(Serialize, Deserialize, Debug, PartialEq, Default)]
    struct Extra {
        #[serde(default)]
        flattened: bool,
    }

    fn sample() -> Sample {
        Sample {
            text: "a \"quoted\"\nline\u{1} é".into(),
            count: 42,
            delta: -7,
            ratio: 0.1 + 0.2,
            small: 0.1,
            maybe: None,
            list: vec![("x".into(), true), (String::new(), false)],
            map: BTreeMap::from([("b".into(), vec![]), ("a".into(), vec![1, u64::MAX])]),
            numbered: BTreeMap::from([(3, 'c'), (10, 'x')]),
            kinds: vec![Kind::Plain, Kind::Named("n".into()), Kind::Pair(1, -1), Kind::Shaped { x: 1e300 }],
            extra: Extra { flattened: true },
            unit: (),
            bytes: vec![0, 255],
        }
    }

    #[test]
    fn a_type_is_written_and_read_back_as_serde_json_writes_and_reads_it() {
        let value = sample();
        assert_eq!(to_string(&value).unwrap(), serde_json::to_string(&value).unwrap());
        assert_eq!(to_string_pretty(&value).unwrap(), serde_json::to_string_pretty(&value).unwrap());
        assert_eq!(to_vec(&value).unwrap(), serde_json::to_vec(&value).unwrap());
        let text = serde_json::to_string_pretty(&value).unwrap();
        assert_eq!(from_str::<Sample>(&text).unwrap(), value);
        let empty = Sample::default();
        assert_eq!(to_string_pretty(&empty).unwrap(), serde_json::to_string_pretty(&empty).unwrap());
        assert_eq!(from_slice::<Sample>(&to_vec(&empty).unwrap()).unwrap(), empty);
        // Wrong shapes fail as they do with serde_json.
        for text in [r#"{"text":1}"#, r#"{"count":-1}"#, r#"[1]"#, r#"{"kinds":[{"Plain":null,"x":1}]}"#] {
            assert_eq!(from_str::<Sample>(text).is_ok(), serde_json::from_str::<Sample>(text).is_ok(), "{text}");
        }
        assert_eq!(from_str::<Kind>(r#"{"Plain":null}"#).unwrap(), Kind::Plain);
        assert_eq!(from_str::<Vec<Kind>>(r#"["Plain"]"#).unwrap(), [Kind::Plain]);
        // Maps keyed by something other than strings are no JSON.
        assert!(to_string(&BTreeMap::from([(vec![1], 1)])).is_err());
        assert!(serde_json::to_string(&BTreeMap::from([(vec![1], 1)])).is_err());
    }

    #[test]
    fn serde_json_s_values_cross_both_ways() {
        let text = serde_json::to_string(&sample()).unwrap();
        let theirs: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(from_str::<serde_json::Value>(&text).unwrap(), theirs);
        assert_eq!(to_string_pretty(&theirs).unwrap(), serde_json::to_string_pretty(&theirs).unwrap());
    }

    #[test]
    fn floats_are_written_as_serde_json_writes_them() {
        let floats = [
            0.0,
            -0.0,
            1.0,
            1.5,
            0.1,
            0.3,
            1e15,
            9.999999999999998e15,
            1e16,
            1.5e16,
            1e21,
            1e-5,
            1e-6,
            1.5e-7,
            2.5e-5,
            5e-324,
            f64::MAX,
            f64::MIN_POSITIVE,
            123456.789,
            -42.0,
        ];
        for f in floats {
            assert_eq!(to_string(&f).unwrap(), serde_json::to_string(&f).unwrap(), "{f:e}");
        }
        // -2197850.25 lies halfway between two shortest forms; serde_json's printer takes the even one.
        for f in [0.1f32, 1e10, 1e12, 1e13, 1.5e-6, 1.5e-7, 16777216.0, f32::MAX, f32::from_bits(3_389_400_425)] {
            assert_eq!(to_string(&f).unwrap(), serde_json::to_string(&f).unwrap(), "{f:e}");
        }
        assert_eq!(to_string(&[f64::NAN, f64::INFINITY]).unwrap(), "[null,null]");
    }

    proptest! {
        #[test]
        fn any_float_is_written_as_serde_json_writes_it(bits in any::<u64>(), small in any::<u32>()) {
            let f = f64::from_bits(bits);
            prop_assert_eq!(to_string(&f).unwrap(), serde_json::to_string(&f).unwrap());
            let f = f32::from_bits(small);
            prop_assert_eq!(to_string(&f).unwrap(), serde_json::to_string(&f).unwrap());
        }

        #[test]
        fn any_text_is_read_as_serde_json_reads_it(text in "[\\[\\]{}:,\"\\\\a-c0-9.eE+\\- ntrufls]{0,24}") {
            prop_assert_eq!(ours_of(text.as_bytes()), serde_json_of(text.as_bytes()));
            let typed = from_str::<serde_json::Value>(&text).ok();
            prop_assert_eq!(typed, serde_json::from_str::<serde_json::Value>(&text).ok());
        }

        #[test]
        fn any_string_is_written_and_read_back(text in any::<String>()) {
            let written = to_string(&text).unwrap();
            prop_assert_eq!(&written, &serde_json::to_string(&text).unwrap());
            prop_assert_eq!(from_str::<String>(&written).unwrap(), text.clone());
            prop_assert_eq!(parse(written.as_bytes()).unwrap(), Value::String(text));
        }
    }
}
