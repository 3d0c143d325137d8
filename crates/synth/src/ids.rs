//! Identifiers and timestamps in the shapes Claude Code writes them.

use crate::rng::Rng;

const HEX: &[u8; 16] = b"0123456789abcdef";
const BASE62: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const BASE64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// A random version-4 UUID in its 36-character text form, stored inline so it is `Copy`.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Uuid([u8; 36]);

impl Uuid {
    pub fn random(rng: &mut Rng) -> Uuid {
        let high = rng.next_u64();
        let low = rng.next_u64();
        let mut nibbles = [0u8; 32];
        for (index, nibble) in nibbles.iter_mut().enumerate() {
            let word = if index < 16 { high } else { low };
            *nibble = ((word >> ((index % 16) * 4)) & 0xF) as u8;
        }
        nibbles[12] = 4; // Version 4.
        nibbles[16] = 8 | (nibbles[16] & 3); // RFC 4122 variant.
        let mut text = [0u8; 36];
        let mut at = 0;
        for (index, nibble) in nibbles.iter().enumerate() {
            if matches!(index, 8 | 12 | 16 | 20) {
                text[at] = b'-';
                at += 1;
            }
            text[at] = HEX[*nibble as usize];
            at += 1;
        }
        Uuid(text)
    }

    pub fn as_str(&self) -> &str {
        // The bytes are ASCII hex digits and dashes by construction.
        std::str::from_utf8(&self.0).unwrap_or("00000000-0000-4000-8000-000000000000")
    }
}

impl std::fmt::Debug for Uuid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::fmt::Display for Uuid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

fn push_chars(rng: &mut Rng, out: &mut String, alphabet: &[u8], count: usize) {
    for _ in 0..count {
        out.push(alphabet[rng.index(alphabet.len())] as char);
    }
}

/// `prefix` followed by `count` random base-62 characters.
pub fn base62_id(rng: &mut Rng, prefix: &str, count: usize) -> String {
    let mut id = String::with_capacity(prefix.len() + count);
    id.push_str(prefix);
    push_chars(rng, &mut id, BASE62, count);
    id
}

/// An Anthropic API message id such as `msg_01AbC...`.
pub fn message_id(rng: &mut Rng) -> String {
    base62_id(rng, "msg_01", 22)
}

/// An API request id such as `req_011C...`.
pub fn request_id(rng: &mut Rng) -> String {
    base62_id(rng, "req_011C", 20)
}

/// A tool_use id such as `toolu_01...`.
pub fn tool_use_id(rng: &mut Rng) -> String {
    base62_id(rng, "toolu_01", 22)
}

/// `count` random lowercase hex digits.
pub fn hex(rng: &mut Rng, count: usize) -> String {
    let mut id = String::with_capacity(count);
    push_chars(rng, &mut id, HEX, count);
    id
}

/// An opaque thinking signature: base64 text of a realistic length.
pub fn signature(rng: &mut Rng) -> String {
    let length = (rng.range(75, 350) * 4) as usize;
    let mut sig = String::with_capacity(length);
    sig.push_str("EqQC");
    push_chars(rng, &mut sig, BASE64, length - 4);
    sig
}

/// Random base64 text of about `length` characters (for inline images).
pub fn base64_blob(rng: &mut Rng, length: usize) -> String {
    let mut blob = String::with_capacity(length + 12);
    blob.push_str("iVBORw0KGgo");
    push_chars(rng, &mut blob, BASE64, length.saturating_sub(12) / 4 * 4 + 1);
    blob.push_str("==");
    blob
}

/// Wall-clock time of the simulated session, in milliseconds since the Unix epoch.
#[derive(Debug, Clone, Copy)]
pub struct Clock {
    millis: u64,
}

impl Clock {
    pub fn starting_at(millis: u64) -> Clock {
        Clock { millis }
    }

    pub fn advance(&mut self, millis: u64) {
        self.millis += millis;
    }

    pub fn millis(&self) -> u64 {
        self.millis
    }

    /// The current time as ISO 8601 with milliseconds and a `Z`, e.g. `2026-02-11T20:36:45.618Z`.
    pub fn iso(&self) -> String {
        iso_from_millis(self.millis)
    }
}

/// Formats epoch milliseconds as `YYYY-MM-DDTHH:MM:SS.mmmZ`.
pub fn iso_from_millis(millis: u64) -> String {
    let seconds = millis / 1000;
    let (year, month, day) = civil_from_days((seconds / 86_400) as i64);
    let second_of_day = seconds % 86_400;
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        second_of_day / 3600,
        second_of_day / 60 % 60,
        second_of_day % 60,
        millis % 1000
    )
}

/// Converts days since 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = (day_of_year - (153 * month_index + 2) / 5 + 1) as u32;
    let month = if month_index < 10 { month_index + 3 } else { month_index - 9 } as u32;
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuid_looks_like_v4() {
        let mut rng = Rng::new(3);
        let id = Uuid::random(&mut rng);
        let text = id.as_str();
        assert_eq!(text.len(), 36);
        assert_eq!(&text[14..15], "4");
        assert!(matches!(&text[19..20], "8" | "9" | "a" | "b"));
        assert_eq!(text.matches('-').count(), 4);
    }

    #[test]
    fn formats_iso_timestamps() {
        assert_eq!(iso_from_millis(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso_from_millis(1_770_842_205_618), "2026-02-11T20:36:45.618Z");
        assert_eq!(iso_from_millis(951_782_400_001), "2000-02-29T00:00:00.001Z");
    }
}
