//! The string scan of the patched serde_json (`vendor/serde_json/PATCHED.md`): it compares 16
//! bytes at a time, so these tests put quotes, escapes, control characters and multi-byte
//! characters at every place of the first blocks of a string, and at random places in long ones,
//! through the three ways a line's strings are read: decoded (`String`), borrowed (`&str`),
//! and skipped (`&RawValue`, `IgnoredAny`).

use proptest::prelude::*;
use serde::de::IgnoredAny;
use serde_json::error::Category;
use serde_json::value::RawValue;

/// Reads `literal` (a JSON string literal) every way a line's strings are read, and checks each
/// against `expected` (the decoded text, or `None` if the literal is not valid JSON).
fn check_every_read(literal: &str, expected: Option<&str>) {
    let decoded = serde_json::from_str::<String>(literal);
    assert_eq!(decoded.as_deref().ok(), expected, "decoding {literal:?}");
    if let Some(text) = expected
        && !literal[1..literal.len() - 1].contains('\\')
    {
        let borrowed: &str = serde_json::from_str(literal).expect("a string without escapes borrows");
        assert_eq!(borrowed, text);
    }
    let object = format!(r#"{{"k":{literal},"after":"x"}}"#);
    #[derive(serde::Deserialize)]
    struct Raw<'a> {
        #[serde(borrow)]
        k: &'a RawValue,
        after: String,
    }
    match serde_json::from_str::<Raw>(&object) {
        Ok(raw) => {
            assert!(expected.is_some(), "{literal:?} was skipped as a raw value though it is not JSON");
            assert_eq!(raw.k.get(), literal);
            assert_eq!(raw.after, "x");
        }
        Err(error) => {
            assert!(expected.is_none(), "{literal:?} failed as a raw value: {error}");
            assert_eq!(error.classify(), Category::Syntax);
        }
    }
    let ignored = serde_json::from_str::<IgnoredAny>(&object);
    assert_eq!(ignored.is_ok(), expected.is_some(), "skipping {literal:?}");
}

#[test]
fn every_stop_byte_is_found_at_every_place_of_the_first_blocks() {
    // `before` plain bytes, the byte under test, then `after` plain bytes: the stop falls at every
    // offset of the first three blocks of 16, and the string ends at every offset too.
    for before in 0..50 {
        for after in [0, 1, 7, 15, 16, 17, 40] {
            let pad = |n: usize| "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMN"[..n].to_string();
            let (head, tail) = (pad(before), pad(after));
            // An escape: decoded.
            check_every_read(&format!("\"{head}\\n{tail}\""), Some(&format!("{head}\n{tail}")));
            check_every_read(&format!("\"{head}\\\"{tail}\""), Some(&format!("{head}\"{tail}")));
            check_every_read(&format!("\"{head}\\u00e9{tail}\""), Some(&format!("{head}é{tail}")));
            // Bytes that are not stops: DEL, multi-byte characters.
            check_every_read(&format!("\"{head}\u{7f}{tail}\""), Some(&format!("{head}\u{7f}{tail}")));
            check_every_read(&format!("\"{head}é😀{tail}\""), Some(&format!("{head}é😀{tail}")));
            // Raw control characters are not JSON, wherever they fall.
            for control in ['\u{0}', '\u{1}', '\n', '\u{1f}'] {
                check_every_read(&format!("\"{head}{control}{tail}\""), None);
            }
            // The string ends early: the rest is not part of it.
            check_every_read(&format!("\"{head}\"{tail}\""), None);
        }
    }
}

#[test]
fn a_control_character_is_reported_where_it_is() {
    for at in 0..40 {
        let literal = format!("\"{}\u{1}tail\"", "x".repeat(at));
        let error = serde_json::from_str::<String>(&literal).expect_err("a raw control character");
        assert_eq!(error.classify(), Category::Syntax);
        // The column (1-based) is the control character's own: the opening quote, then `at` bytes.
        assert_eq!(error.column(), at + 2, "{literal:?}: {error}");
    }
}

/// One piece of a generated string.
fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-z ]{0,40}",
        1 => Just("\"".to_string()),
        1 => Just("\\".to_string()),
        1 => Just("\n".to_string()),
        1 => (0u32..0x20).prop_map(|c| char::from_u32(c).map(String::from).unwrap_or_default()),
        1 => Just("é漢😀".to_string()),
        1 => Just("\u{7f}\u{80}\u{7ff}".to_string()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Any text written by serde_json reads back the same, every way; with one raw control byte
    /// put inside its literal, it is refused every way.
    #[test]
    fn any_text_reads_back_and_a_raw_control_byte_is_refused(
        pieces in proptest::collection::vec(piece(), 0..40),
        cut in any::<prop::sample::Index>(),
        control in 0u8..0x20,
    ) {
        let text: String = pieces.concat();
        let literal = serde_json::to_string(&text).expect("a string serialises");
        check_every_read(&literal, Some(&text));

        // Put the control byte at a char boundary inside the quotes, not inside an escape.
        let inner = &literal[1..literal.len() - 1];
        let boundaries: Vec<usize> = (0..=inner.len())
            .filter(|&i| inner.is_char_boundary(i) && !inner[..i].ends_with('\\') && !ends_inside_escape(&inner[..i]))
            .collect();
        let at = boundaries[cut.index(boundaries.len())];
        let broken = format!("\"{}{}{}\"", &inner[..at], control as char, &inner[at..]);
        check_every_read(&broken, None);
    }
}

/// Whether `prefix` (the inside of a literal, cut somewhere) ends in the middle of an escape
/// sequence: a `\` that is itself not escaped, or the hex digits of a `\u`.
fn ends_inside_escape(prefix: &str) -> bool {
    let bytes = prefix.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\' {
            let length = if bytes.get(i + 1) == Some(&b'u') { 6 } else { 2 };
            if i + length > bytes.len() {
                return true;
            }
            i += length;
        } else {
            i += 1;
        }
    }
    false
}
