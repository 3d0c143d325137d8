//! The reading shared by [`super::parse`] and [`super::from_slice`]: whitespace, literals,
//! strings (borrowed from the input unless they hold escapes), numbers, and skipping a value.

use std::borrow::Cow;

use super::number::Number;
use super::{Error, What};

/// How deep arrays and objects may nest, as in serde_json.
pub(super) const MAX_DEPTH: usize = 128;

/// A place in the bytes being read.
pub(super) struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    pub(super) fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes, at: 0 }
    }

    /// `what`, placed where reading stands.
    pub(super) fn error(&self, what: What) -> Error {
        Error::new(what).placed(self.bytes, self.at)
    }

    /// An error from elsewhere (a type's `Deserialize`), placed where reading stands unless it
    /// has a place.
    pub(super) fn place(&self, error: Error) -> Error {
        error.placed(self.bytes, self.at)
    }

    /// The next byte that is not whitespace, not consumed.
    pub(super) fn peek(&mut self) -> Option<u8> {
        while let Some(&b) = self.bytes.get(self.at) {
            if !matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
                return Some(b);
            }
            self.at += 1;
        }
        None
    }

    /// Consumes the byte [`Self::peek`] saw.
    pub(super) fn bump(&mut self) {
        self.at += 1;
    }

    /// Fails unless only whitespace is left.
    pub(super) fn end(&mut self) -> Result<(), Error> {
        match self.peek() {
            None => Ok(()),
            Some(_) => Err(self.error(What::TrailingCharacters)),
        }
    }

    /// Reads `null`, `true` or `false`, whichever starts here.
    pub(super) fn literal(&mut self, word: &[u8]) -> Result<(), Error> {
        for &expected in word {
            match self.bytes.get(self.at) {
                None => return Err(self.error(What::Eof)),
                Some(&b) if b == expected => self.at += 1,
                Some(_) => return Err(self.error(What::ExpectedValue)),
            }
        }
        Ok(())
    }

    /// After an array's value: whether another follows (`,`), or the array ends (`]`, consumed).
    pub(super) fn more_items(&mut self) -> Result<bool, Error> {
        self.more(b']', What::ExpectedListCommaOrEnd, What::EofList)
    }

    /// After an object's value: whether another key follows (`,`), or the object ends (`}`,
    /// consumed).
    pub(super) fn more_entries(&mut self) -> Result<bool, Error> {
        self.more(b'}', What::ExpectedObjectCommaOrEnd, What::EofObject)
    }

    /// After a member of an array or object that ends with `close`: whether another follows (its
    /// `,` consumed), or the end (consumed); `unexpected` for anything else, `eof` at the end of
    /// the text.
    fn more(&mut self, close: u8, unexpected: What, eof: What) -> Result<bool, Error> {
        if self.peek() == Some(close) {
            self.bump();
            return Ok(false);
        }
        match self.next_member(false, close, unexpected)? {
            Some(more) => Ok(more),
            None => Err(self.error(eof)),
        }
    }

    /// Before a member of an array or object that ends with `close`, read as a deserializer asks
    /// for them: `Some(true)` if one follows (after its `,`, unless it is the `first`),
    /// `Some(false)` at the end (`close`, not consumed), `None` at the end of the text;
    /// `unexpected` for anything else, and a trailing comma is an error.
    pub(super) fn next_member(&mut self, first: bool, close: u8, unexpected: What) -> Result<Option<bool>, Error> {
        match self.peek() {
            Some(b) if b == close => Ok(Some(false)),
            Some(b',') if !first => {
                self.bump();
                match self.peek() {
                    Some(b) if b == close => Err(self.error(What::TrailingComma)),
                    _ => Ok(Some(true)),
                }
            }
            Some(_) if first => Ok(Some(true)),
            Some(_) => Err(self.error(unexpected)),
            None => Ok(None),
        }
    }

    /// An object's key, with the `:` after it.
    pub(super) fn key(&mut self) -> Result<Cow<'a, str>, Error> {
        match self.peek() {
            Some(b'"') => {
                self.bump();
                let key = self.string()?;
                self.colon()?;
                Ok(key)
            }
            Some(_) => Err(self.error(What::KeyMustBeAString)),
            None => Err(self.error(What::EofObject)),
        }
    }

    /// The `:` between a key and its value.
    pub(super) fn colon(&mut self) -> Result<(), Error> {
        match self.peek() {
            Some(b':') => {
                self.bump();
                Ok(())
            }
            Some(_) => Err(self.error(What::ExpectedColon)),
            None => Err(self.error(What::EofObject)),
        }
    }

    /// A string whose opening quote was consumed, up to and with its closing quote: borrowed
    /// from the input when it holds no escape.
    pub(super) fn string(&mut self) -> Result<Cow<'a, str>, Error> {
        let bytes = self.bytes;
        let mut owned: Option<Vec<u8>> = None;
        // The start of the bytes not yet copied to `owned`.
        let mut run = self.at;
        loop {
            let rest = &bytes[self.at.min(bytes.len())..];
            let Some(found) = memchr::memchr2(b'"', b'\\', rest) else {
                self.at = bytes.len();
                return Err(self.error(What::EofString));
            };
            // Without an early exit, the compiler checks many bytes at a time.
            if rest[..found].iter().fold(false, |any, &b| any | (b < 0x20)) {
                self.at += rest[..found].iter().position(|&b| b < 0x20).unwrap_or(0);
                return Err(self.error(What::ControlCharacter));
            }
            self.at += found;
            if rest[found] == b'"' {
                let text = match owned {
                    None => Cow::Borrowed(std::str::from_utf8(&bytes[run..self.at]).map_err(|_| self.unicode_error())?),
                    Some(mut text) => {
                        text.extend_from_slice(&bytes[run..self.at]);
                        Cow::Owned(String::from_utf8(text).map_err(|_| self.unicode_error())?)
                    }
                };
                self.at += 1;
                return Ok(text);
            }
            let text = owned.get_or_insert_with(Vec::new);
            text.extend_from_slice(&bytes[run..self.at]);
            self.at += 1;
            self.escape(text)?;
            run = self.at;
        }
    }

    fn unicode_error(&self) -> Error {
        self.error(What::InvalidUnicode)
    }

    /// The escape after a backslash, appended to `out`.
    fn escape(&mut self, out: &mut Vec<u8>) -> Result<(), Error> {
        let Some(&b) = self.bytes.get(self.at) else { return Err(self.error(What::EofString)) };
        self.at += 1;
        let plain = match b {
            b'"' => b'"',
            b'\\' => b'\\',
            b'/' => b'/',
            b'b' => 0x08,
            b'f' => 0x0c,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'u' => {
                let code = self.hex4()?;
                let code = match code {
                    0xD800..=0xDBFF => {
                        if self.bytes.get(self.at..self.at + 2) != Some(b"\\u") {
                            return Err(self.error(if self.at >= self.bytes.len() {
                                What::EofString
                            } else {
                                What::LoneSurrogate
                            }));
                        }
                        self.at += 2;
                        let low = self.hex4()?;
                        if !(0xDC00..=0xDFFF).contains(&low) {
                            return Err(self.error(What::LoneSurrogate));
                        }
                        0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    }
                    0xDC00..=0xDFFF => return Err(self.error(What::LoneSurrogate)),
                    _ => code,
                };
                let c = char::from_u32(code).ok_or_else(|| self.error(What::InvalidUnicode))?;
                out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                return Ok(());
            }
            _ => {
                self.at -= 1;
                return Err(self.error(What::InvalidEscape));
            }
        };
        out.push(plain);
        Ok(())
    }

    /// Four hex digits of a `\u` escape.
    fn hex4(&mut self) -> Result<u32, Error> {
        let mut code = 0;
        for _ in 0..4 {
            let Some(&b) = self.bytes.get(self.at) else { return Err(self.error(What::EofString)) };
            let digit = (b as char).to_digit(16).ok_or_else(|| self.error(What::InvalidEscape))?;
            code = code * 16 + digit;
            self.at += 1;
        }
        Ok(code)
    }

    /// A number, starting here (at `-` or a digit): an integer that fits 64 bits as one, any
    /// other number as a float, as serde_json reads them.
    pub(super) fn number(&mut self) -> Result<Number, Error> {
        let start = self.at;
        let negative = self.bytes.get(self.at) == Some(&b'-');
        if negative {
            self.at += 1;
        }
        match self.bytes.get(self.at) {
            Some(b'0') => {
                self.at += 1;
                if self.bytes.get(self.at).is_some_and(u8::is_ascii_digit) {
                    return Err(self.error(What::InvalidNumber));
                }
            }
            Some(b'1'..=b'9') => self.digits(),
            Some(_) => return Err(self.error(What::InvalidNumber)),
            None => return Err(self.error(What::Eof)),
        }
        let mut float = false;
        if self.bytes.get(self.at) == Some(&b'.') {
            self.at += 1;
            float = true;
            self.some_digits()?;
        }
        if matches!(self.bytes.get(self.at), Some(b'e' | b'E')) {
            self.at += 1;
            float = true;
            if matches!(self.bytes.get(self.at), Some(b'+' | b'-')) {
                self.at += 1;
            }
            self.some_digits()?;
        }
        // Only ASCII digits and signs were read.
        let text = std::str::from_utf8(&self.bytes[start..self.at]).map_err(|_| self.error(What::InvalidNumber))?;
        if !float {
            if negative {
                match text.parse::<i64>() {
                    Ok(0) => return Ok(Number::from_f64(-0.0)),
                    Ok(n) => return Ok(Number::from_i64(n)),
                    Err(_) => {}
                }
            } else if let Ok(n) = text.parse::<u64>() {
                return Ok(Number::from_u64(n));
            }
        }
        match text.parse::<f64>() {
            Ok(f) if f.is_finite() => Ok(Number::from_f64(f)),
            Ok(_) => Err(self.error(What::NumberOutOfRange)),
            Err(_) => Err(self.error(What::InvalidNumber)),
        }
    }

    fn digits(&mut self) {
        while self.bytes.get(self.at).is_some_and(u8::is_ascii_digit) {
            self.at += 1;
        }
    }

    /// At least one digit, as after a decimal point or an exponent's `e`.
    fn some_digits(&mut self) -> Result<(), Error> {
        match self.bytes.get(self.at) {
            Some(b) if b.is_ascii_digit() => {
                self.digits();
                Ok(())
            }
            Some(_) => Err(self.error(What::InvalidNumber)),
            None => Err(self.error(What::Eof)),
        }
    }

    /// Reads over one value, checking it as [`super::parse`] would, keeping nothing.
    pub(super) fn skip(&mut self, depth: usize) -> Result<(), Error> {
        match self.peek() {
            None => Err(self.error(What::Eof)),
            Some(b'n') => self.literal(b"null"),
            Some(b't') => self.literal(b"true"),
            Some(b'f') => self.literal(b"false"),
            Some(b'"') => {
                self.bump();
                self.string().map(drop)
            }
            Some(b'-' | b'0'..=b'9') => self.number().map(drop),
            Some(b'[') => {
                let depth = self.deeper(depth)?;
                self.bump();
                if self.peek() == Some(b']') {
                    self.bump();
                    return Ok(());
                }
                loop {
                    self.skip(depth)?;
                    if !self.more_items()? {
                        return Ok(());
                    }
                }
            }
            Some(b'{') => {
                let depth = self.deeper(depth)?;
                self.bump();
                if self.peek() == Some(b'}') {
                    self.bump();
                    return Ok(());
                }
                loop {
                    self.key()?;
                    self.skip(depth)?;
                    if !self.more_entries()? {
                        return Ok(());
                    }
                }
            }
            Some(_) => Err(self.error(What::ExpectedValue)),
        }
    }

    /// The depth inside an array or object opened at `depth`, if that is not too deep.
    pub(super) fn deeper(&self, depth: usize) -> Result<usize, Error> {
        if depth >= MAX_DEPTH { Err(self.error(What::RecursionLimit)) } else { Ok(depth + 1) }
    }
}
