//! Minimal streaming JSON writer.
//!
//! Lines are written straight into a byte buffer, without building value trees, so
//! that hundreds of megabytes can be produced in well under a second. Keys are
//! trusted ASCII literals; values go through [`push_str`], which escapes them.

/// A private-use character that the escaper writes as the lone UTF-16 surrogate
/// escape `\ud83d`. Real logs contain such escapes (a tool output cut in the middle of
/// an emoji); Rust strings cannot hold a lone surrogate, so text marks the spot with
/// this character instead.
pub const LONE_SURROGATE: char = '\u{E000}';

/// The JSON text written in place of [`LONE_SURROGATE`].
pub const LONE_SURROGATE_ESCAPE: &str = "\\ud83d";

const LONE_SURROGATE_UTF8: [u8; 3] = [0xEE, 0x80, 0x80];

/// How each byte is written: 0 verbatim, 1 escaped, 2 possibly the surrogate marker.
const CLASS: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut byte = 0;
    while byte < 0x20 {
        table[byte] = 1;
        byte += 1;
    }
    table[b'"' as usize] = 1;
    table[b'\\' as usize] = 1;
    table[0xEE] = 2;
    table
};

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Appends `text` as a quoted, escaped JSON string.
pub fn push_str(out: &mut Vec<u8>, text: &str) {
    let bytes = text.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    let mut run_start = 0;
    let mut index = 0;
    while index < bytes.len() {
        let byte = bytes[index];
        match CLASS[byte as usize] {
            0 => {
                index += 1;
                continue;
            }
            2 => {
                if bytes[index..].starts_with(&LONE_SURROGATE_UTF8) {
                    out.extend_from_slice(&bytes[run_start..index]);
                    out.extend_from_slice(LONE_SURROGATE_ESCAPE.as_bytes());
                    index += LONE_SURROGATE_UTF8.len();
                    run_start = index;
                } else {
                    index += 1;
                }
                continue;
            }
            _ => {}
        }
        out.extend_from_slice(&bytes[run_start..index]);
        match byte {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            _ => {
                out.extend_from_slice(b"\\u00");
                out.push(HEX[(byte >> 4) as usize]);
                out.push(HEX[(byte & 0xF) as usize]);
            }
        }
        index += 1;
        run_start = index;
    }
    out.extend_from_slice(&bytes[run_start..]);
    out.push(b'"');
}

/// Appends an unsigned integer in decimal.
pub fn push_u64(out: &mut Vec<u8>, mut value: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (value % 10) as u8;
        value /= 10;
        if value == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[at..]);
}

/// Writes one JSON object; `fill` adds its members.
pub fn object(out: &mut Vec<u8>, fill: impl FnOnce(&mut Obj<'_>)) {
    out.push(b'{');
    let mut obj = Obj { out, empty: true };
    fill(&mut obj);
    obj.out.push(b'}');
}

/// Writes one JSON array; `fill` adds its elements.
pub fn array(out: &mut Vec<u8>, fill: impl FnOnce(&mut Arr<'_>)) {
    out.push(b'[');
    let mut arr = Arr { out, empty: true };
    fill(&mut arr);
    arr.out.push(b']');
}

/// The members of an object being written.
pub struct Obj<'a> {
    out: &'a mut Vec<u8>,
    empty: bool,
}

impl Obj<'_> {
    fn key(&mut self, key: &str) {
        if !self.empty {
            self.out.push(b',');
        }
        self.empty = false;
        self.out.push(b'"');
        self.out.extend_from_slice(key.as_bytes());
        self.out.extend_from_slice(b"\":");
    }

    pub fn str(&mut self, key: &str, value: &str) -> &mut Self {
        self.key(key);
        push_str(self.out, value);
        self
    }

    /// A string member, or `null` when the value is absent.
    pub fn opt_str(&mut self, key: &str, value: Option<&str>) -> &mut Self {
        match value {
            Some(text) => self.str(key, text),
            None => self.null(key),
        }
    }

    pub fn null(&mut self, key: &str) -> &mut Self {
        self.key(key);
        self.out.extend_from_slice(b"null");
        self
    }

    pub fn bool(&mut self, key: &str, value: bool) -> &mut Self {
        self.key(key);
        self.out.extend_from_slice(if value { b"true" } else { b"false" });
        self
    }

    pub fn u64(&mut self, key: &str, value: u64) -> &mut Self {
        self.key(key);
        push_u64(self.out, value);
        self
    }

    /// A member whose value is already valid JSON, held as bytes.
    pub fn raw_bytes(&mut self, key: &str, json: &[u8]) -> &mut Self {
        self.key(key);
        self.out.extend_from_slice(json);
        self
    }

    pub fn obj(&mut self, key: &str, fill: impl FnOnce(&mut Obj<'_>)) -> &mut Self {
        self.key(key);
        object(self.out, fill);
        self
    }

    pub fn arr(&mut self, key: &str, fill: impl FnOnce(&mut Arr<'_>)) -> &mut Self {
        self.key(key);
        array(self.out, fill);
        self
    }

    /// An array of strings.
    pub fn str_arr<S: AsRef<str>>(&mut self, key: &str, items: &[S]) -> &mut Self {
        self.arr(key, |arr| {
            for item in items {
                arr.str(item.as_ref());
            }
        })
    }
}

/// The elements of an array being written.
pub struct Arr<'a> {
    out: &'a mut Vec<u8>,
    empty: bool,
}

impl Arr<'_> {
    fn separator(&mut self) {
        if !self.empty {
            self.out.push(b',');
        }
        self.empty = false;
    }

    pub fn str(&mut self, value: &str) -> &mut Self {
        self.separator();
        push_str(self.out, value);
        self
    }

    pub fn obj(&mut self, fill: impl FnOnce(&mut Obj<'_>)) -> &mut Self {
        self.separator();
        object(self.out, fill);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn escaped(text: &str) -> String {
        let mut out = Vec::new();
        push_str(&mut out, text);
        String::from_utf8(out).unwrap_or_default()
    }

    #[test]
    fn escapes_specials() {
        assert_eq!(escaped("a\"b\\c\nd\te\u{1}"), r#""a\"b\\c\nd\te\u0001""#);
        assert_eq!(escaped("naïve 日本 🚀"), "\"naïve 日本 🚀\"");
    }

    #[test]
    fn writes_lone_surrogate_escape() {
        let text = format!("ok {LONE_SURROGATE} end");
        assert_eq!(escaped(&text), r#""ok \ud83d end""#);
        // Other characters that start with the same byte are kept verbatim.
        assert_eq!(escaped("\u{E001}"), "\"\u{E001}\"");
    }

    #[test]
    fn writes_nested_objects() {
        let mut out = Vec::new();
        object(&mut out, |o| {
            o.str("a", "x").u64("n", 42).null("p").bool("b", true);
            o.obj("inner", |o| {
                o.arr("list", |a| {
                    a.str("one").str("two");
                });
            });
        });
        assert_eq!(
            String::from_utf8(out).unwrap_or_default(),
            r#"{"a":"x","n":42,"p":null,"b":true,"inner":{"list":["one","two"]}}"#
        );
    }
}
