//! A small JSON tree for rewriting log lines: keeps key order and the exact text of numbers and
//! of every string it does not change, decodes strings leniently (a lone UTF-16 surrogate
//! becomes U+FFFD for the detectors, but an unchanged string is written back byte for byte),
//! and writes compact JSON.

use std::borrow::Cow;

/// Deeper documents are refused (a line that cannot be walked cannot be redacted safely).
const MAX_DEPTH: usize = 200;

pub(crate) enum Val<'a> {
    Null,
    Bool(bool),
    Num(&'a [u8]),
    Str(JStr<'a>),
    Arr(Vec<Val<'a>>),
    Obj(Vec<(JStr<'a>, Val<'a>)>),
}

/// A string: its raw bytes between the quotes and its decoded text.
pub(crate) struct JStr<'a> {
    raw: &'a [u8],
    text: Cow<'a, str>,
    /// The raw bytes cannot be written back (changed text, raw control characters, bad UTF-8).
    dirty: bool,
}

impl<'a> JStr<'a> {
    pub(crate) fn new(text: String) -> JStr<'a> {
        JStr { raw: b"", text: Cow::Owned(text), dirty: true }
    }

    pub(crate) fn text(&self) -> &str {
        &self.text
    }

    pub(crate) fn set(&mut self, text: String) {
        self.text = Cow::Owned(text);
        self.dirty = true;
    }
}

impl<'a> Val<'a> {
    pub(crate) fn get(&self, key: &str) -> Option<&Val<'a>> {
        match self {
            Val::Obj(entries) => entries.iter().find(|(k, _)| k.text() == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub(crate) fn get_mut(&mut self, key: &str) -> Option<&mut Val<'a>> {
        match self {
            Val::Obj(entries) => entries.iter_mut().find(|(k, _)| k.text() == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            Val::Str(s) => Some(s.text()),
            _ => None,
        }
    }

    /// Removes every entry with one of these keys (objects only).
    pub(crate) fn remove_keys(&mut self, keys: &[&str]) {
        if let Val::Obj(entries) = self {
            entries.retain(|(k, _)| !keys.contains(&k.text()));
        }
    }
}

pub(crate) fn parse(bytes: &[u8]) -> Option<Val<'_>> {
    let mut p = Parser { b: bytes, i: 0 };
    p.ws();
    let v = p.value(0)?;
    p.ws();
    if p.i == bytes.len() { Some(v) } else { None }
}

struct Parser<'a> {
    b: &'a [u8],
    i: usize,
}

impl<'a> Parser<'a> {
    fn ws(&mut self) {
        while let Some(&c) = self.b.get(self.i) {
            if matches!(c, b' ' | b'\t' | b'\n' | b'\r') {
                self.i += 1;
            } else {
                break;
            }
        }
    }

    fn eat(&mut self, lit: &[u8]) -> bool {
        if self.b[self.i..].starts_with(lit) {
            self.i += lit.len();
            true
        } else {
            false
        }
    }

    fn value(&mut self, depth: usize) -> Option<Val<'a>> {
        if depth > MAX_DEPTH {
            return None;
        }
        match *self.b.get(self.i)? {
            b'{' => {
                self.i += 1;
                let mut entries = Vec::new();
                self.ws();
                if self.b.get(self.i) == Some(&b'}') {
                    self.i += 1;
                    return Some(Val::Obj(entries));
                }
                loop {
                    self.ws();
                    if self.b.get(self.i) != Some(&b'"') {
                        return None;
                    }
                    let k = self.string()?;
                    self.ws();
                    if self.b.get(self.i) != Some(&b':') {
                        return None;
                    }
                    self.i += 1;
                    self.ws();
                    let v = self.value(depth + 1)?;
                    entries.push((k, v));
                    self.ws();
                    match self.b.get(self.i)? {
                        b',' => self.i += 1,
                        b'}' => {
                            self.i += 1;
                            return Some(Val::Obj(entries));
                        }
                        _ => return None,
                    }
                }
            }
            b'[' => {
                self.i += 1;
                let mut items = Vec::new();
                self.ws();
                if self.b.get(self.i) == Some(&b']') {
                    self.i += 1;
                    return Some(Val::Arr(items));
                }
                loop {
                    self.ws();
                    items.push(self.value(depth + 1)?);
                    self.ws();
                    match self.b.get(self.i)? {
                        b',' => self.i += 1,
                        b']' => {
                            self.i += 1;
                            return Some(Val::Arr(items));
                        }
                        _ => return None,
                    }
                }
            }
            b'"' => Some(Val::Str(self.string()?)),
            b't' if self.eat(b"true") => Some(Val::Bool(true)),
            b'f' if self.eat(b"false") => Some(Val::Bool(false)),
            b'n' if self.eat(b"null") => Some(Val::Null),
            b'-' | b'0'..=b'9' => self.number(),
            _ => None,
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.i;
        while self.b.get(self.i).is_some_and(u8::is_ascii_digit) {
            self.i += 1;
        }
        self.i - start
    }

    fn number(&mut self) -> Option<Val<'a>> {
        let start = self.i;
        if self.b[self.i] == b'-' {
            self.i += 1;
        }
        if self.digits() == 0 {
            return None;
        }
        if self.b.get(self.i) == Some(&b'.') {
            self.i += 1;
            if self.digits() == 0 {
                return None;
            }
        }
        if matches!(self.b.get(self.i), Some(b'e' | b'E')) {
            self.i += 1;
            if matches!(self.b.get(self.i), Some(b'+' | b'-')) {
                self.i += 1;
            }
            if self.digits() == 0 {
                return None;
            }
        }
        Some(Val::Num(&self.b[start..self.i]))
    }

    fn hex4(&mut self) -> Option<u32> {
        let h = self.b.get(self.i..self.i + 4)?;
        let mut v = 0u32;
        for &c in h {
            v = v * 16 + (c as char).to_digit(16)?;
        }
        self.i += 4;
        Some(v)
    }

    /// At an opening quote.
    fn string(&mut self) -> Option<JStr<'a>> {
        self.i += 1;
        let start = self.i;
        let mut out: Option<Vec<u8>> = None;
        let mut dirty = false;
        loop {
            let rest = &self.b[self.i..];
            let off = memchr::memchr2(b'"', b'\\', rest)?;
            let chunk = &rest[..off];
            if chunk.iter().any(|&c| c < 0x20) {
                dirty = true;
            }
            if let Some(o) = out.as_mut() {
                o.extend_from_slice(chunk);
            }
            self.i += off;
            if self.b[self.i] == b'"' {
                let raw = &self.b[start..self.i];
                self.i += 1;
                let text = match out {
                    None => match std::str::from_utf8(raw) {
                        Ok(s) => Cow::Borrowed(s),
                        Err(_) => {
                            dirty = true;
                            Cow::Owned(String::from_utf8_lossy(raw).into_owned())
                        }
                    },
                    Some(o) => match String::from_utf8(o) {
                        Ok(s) => Cow::Owned(s),
                        Err(e) => {
                            dirty = true;
                            Cow::Owned(String::from_utf8_lossy(e.as_bytes()).into_owned())
                        }
                    },
                };
                return Some(JStr { raw, text, dirty });
            }
            // A backslash escape.
            let o = out.get_or_insert_with(|| self.b[start..self.i].to_vec());
            self.i += 1;
            let c = *self.b.get(self.i)?;
            self.i += 1;
            match c {
                b'"' => o.push(b'"'),
                b'\\' => o.push(b'\\'),
                b'/' => o.push(b'/'),
                b'b' => o.push(8),
                b'f' => o.push(12),
                b'n' => o.push(b'\n'),
                b'r' => o.push(b'\r'),
                b't' => o.push(b'\t'),
                b'u' => {
                    let hi = self.hex4()?;
                    let ch = if (0xD800..0xDC00).contains(&hi) {
                        let save = self.i;
                        if self.b[self.i..].starts_with(b"\\u") {
                            self.i += 2;
                            match self.hex4() {
                                Some(lo) if (0xDC00..0xE000).contains(&lo) => {
                                    char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00))
                                }
                                _ => {
                                    self.i = save;
                                    None
                                }
                            }
                        } else {
                            None
                        }
                    } else {
                        char::from_u32(hi)
                    };
                    let ch = ch.unwrap_or('\u{FFFD}');
                    let mut buf = [0u8; 4];
                    o.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                }
                _ => return None,
            }
        }
    }
}

pub(crate) fn write(v: &Val, out: &mut Vec<u8>) {
    match v {
        Val::Null => out.extend_from_slice(b"null"),
        Val::Bool(true) => out.extend_from_slice(b"true"),
        Val::Bool(false) => out.extend_from_slice(b"false"),
        Val::Num(n) => out.extend_from_slice(n),
        Val::Str(s) => write_str(s, out),
        Val::Arr(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write(item, out);
            }
            out.push(b']');
        }
        Val::Obj(entries) => {
            out.push(b'{');
            for (i, (k, item)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_str(k, out);
                out.push(b':');
                write(item, out);
            }
            out.push(b'}');
        }
    }
}

fn write_str(s: &JStr, out: &mut Vec<u8>) {
    out.push(b'"');
    if s.dirty {
        escape_into(&s.text, out);
    } else {
        out.extend_from_slice(s.raw);
    }
    out.push(b'"');
}

/// JSON string escaping (without the quotes), as serde_json writes it.
pub(crate) fn escape_into(text: &str, out: &mut Vec<u8>) {
    let b = text.as_bytes();
    let mut last = 0;
    for (i, &c) in b.iter().enumerate() {
        let esc: &[u8] = match c {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            8 => b"\\b",
            12 => b"\\f",
            0..=0x1f => b"",
            _ => continue,
        };
        out.extend_from_slice(&b[last..i]);
        if esc.is_empty() {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.extend_from_slice(&[b'\\', b'u', b'0', b'0', HEX[(c >> 4) as usize], HEX[(c & 15) as usize]]);
        } else {
            out.extend_from_slice(esc);
        }
        last = i + 1;
    }
    out.extend_from_slice(&b[last..]);
}

/// The JSON-escaped form of `text` (without quotes).
pub fn escape(text: &str) -> String {
    let mut out = Vec::with_capacity(text.len() + 8);
    escape_into(text, &mut out);
    String::from_utf8(out).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roundtrip(s: &str) -> String {
        let v = parse(s.as_bytes()).expect("parses");
        let mut out = Vec::new();
        write(&v, &mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn keeps_order_numbers_and_raw_strings() {
        let s = r#"{"z":1,"a":[1.50e3,-0,true,null],"s":"x\u00e9\ud800y\/","k":{}}"#;
        assert_eq!(roundtrip(s), s);
        assert_eq!(roundtrip(" { \"a\" : [ ] } "), r#"{"a":[]}"#);
    }

    #[test]
    fn decodes_and_reencodes_changed_strings() {
        let mut v = parse(br#"{"t":"a\nb\ud83d\ude00\ud800"}"#).unwrap();
        let Val::Obj(entries) = &mut v else { panic!() };
        let Val::Str(s) = &mut entries[0].1 else { panic!() };
        assert_eq!(s.text(), "a\nb\u{1F600}\u{FFFD}");
        let t = s.text().replace('a', "\"");
        s.set(t);
        let mut out = Vec::new();
        write(&v, &mut out);
        assert_eq!(String::from_utf8(out).unwrap(), "{\"t\":\"\\\"\\nb\u{1F600}\u{FFFD}\"}");
    }

    #[test]
    fn rejects_bad_json() {
        for bad in ["{", "{\"a\":}", "[1,]", "\"abc", "01x", "{\"a\":1} x", "\"\\x\"", "-", "1.", "tru"] {
            assert!(parse(bad.as_bytes()).is_none(), "{bad}");
        }
        let deep = "[".repeat(1000) + &"]".repeat(1000);
        assert!(parse(deep.as_bytes()).is_none());
    }
}
