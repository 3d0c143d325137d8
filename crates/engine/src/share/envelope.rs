//! The share envelope: a few header bytes (format version, codec, flags, and for a passphrase
//! the key derivation's iterations, salt and IV), then the payload, all in base64url so it fits
//! a URL fragment. Old versions keep opening; unknown ones are refused with a message.
//!
//! ```text
//! byte 0      format version (1)
//! byte 1      codec: 0 stored, 1 deflate (raw)
//! byte 2      flags: bit 0 encrypted (AES-GCM, key from PBKDF2-SHA-256 of a passphrase)
//! if encrypted: 4 bytes iterations (u32 LE), 16 bytes salt, 12 bytes IV
//! then        the payload: compressed, then encrypted (ciphertext and tag) if so flagged
//! ```
//! Encryption itself happens in the browser (WebCrypto); this module packs and unpacks.

use std::fmt;

pub const VERSION: u8 = 1;
pub const CODEC_STORED: u8 = 0;
pub const CODEC_DEFLATE: u8 = 1;
pub const FLAG_ENCRYPTED: u8 = 1;
pub const SALT_LEN: usize = 16;
pub const IV_LEN: usize = 12;
/// PBKDF2 iterations for new links (OWASP's 2023 figure for PBKDF2-HMAC-SHA256).
pub const ITERATIONS: u32 = 600_000;
/// Links longer than this are refused: browsers cut URLs near 2 MB, and pasting them breaks
/// long before. Export HTML instead.
pub const MAX_LINK_CHARS: usize = 1_500_000;
/// An opened payload may not inflate beyond this (a hostile link cannot exhaust memory).
pub const MAX_PAYLOAD_BYTES: usize = 512 << 20;

/// Key derivation parameters carried by an encrypted envelope.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sealing {
    pub iterations: u32,
    pub salt: [u8; SALT_LEN],
    pub iv: [u8; IV_LEN],
}

/// An envelope read from its bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Envelope {
    pub version: u8,
    pub codec: u8,
    /// Present when the body is encrypted: decrypt it, then [`inflate`] it.
    pub sealing: Option<Sealing>,
    pub body: Vec<u8>,
}

/// Why an envelope could not be opened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EnvelopeError {
    NotBase64,
    Empty,
    Truncated,
    UnknownVersion(u8),
    UnknownCodec(u8),
    UnknownFlags(u8),
    Corrupt(String),
    TooLarge,
}

impl fmt::Display for EnvelopeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EnvelopeError::NotBase64 => {
                write!(f, "the link is damaged (it is not base64url text); copy it again in full")
            }
            EnvelopeError::Empty => write!(f, "the link holds no session"),
            EnvelopeError::Truncated => write!(f, "the link is cut short; copy it again in full"),
            EnvelopeError::UnknownVersion(v) if *v > VERSION => write!(
                f,
                "the link was made by a newer sessionscope (share format {v}); this version opens format {VERSION}"
            ),
            // No sessionscope made a format below the first: the link's first bytes are wrong.
            EnvelopeError::UnknownVersion(v) => write!(
                f,
                "the link is damaged (it starts with share format {v}, which no sessionscope makes); copy it again in full"
            ),
            EnvelopeError::UnknownCodec(c) => write!(f, "the link uses a compression this version does not know ({c})"),
            EnvelopeError::UnknownFlags(b) => {
                write!(f, "the link uses options this version does not know (flags {b:#04x})")
            }
            EnvelopeError::Corrupt(why) => write!(f, "the link is damaged: {why}"),
            EnvelopeError::TooLarge => write!(f, "the link would unpack to more than 512 MB; refused"),
        }
    }
}

impl std::error::Error for EnvelopeError {}

/// Compresses a payload and packs it unencrypted.
pub fn seal_plain(payload: &[u8]) -> Vec<u8> {
    let mut out = vec![VERSION, CODEC_DEFLATE, 0];
    out.extend_from_slice(&deflate(payload));
    out
}

/// Packs an already compressed and encrypted body with its key derivation parameters.
pub fn seal_encrypted(sealing: &Sealing, ciphertext: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(3 + 4 + SALT_LEN + IV_LEN + ciphertext.len());
    out.extend_from_slice(&[VERSION, CODEC_DEFLATE, FLAG_ENCRYPTED]);
    out.extend_from_slice(&sealing.iterations.to_le_bytes());
    out.extend_from_slice(&sealing.salt);
    out.extend_from_slice(&sealing.iv);
    out.extend_from_slice(ciphertext);
    out
}

/// Reads the header of an envelope.
pub fn open(bytes: &[u8]) -> Result<Envelope, EnvelopeError> {
    let (&version, rest) = bytes.split_first().ok_or(EnvelopeError::Empty)?;
    if version != VERSION {
        return Err(EnvelopeError::UnknownVersion(version));
    }
    let [codec, flags, rest @ ..] = rest else { return Err(EnvelopeError::Truncated) };
    if *codec > CODEC_DEFLATE {
        return Err(EnvelopeError::UnknownCodec(*codec));
    }
    if flags & !FLAG_ENCRYPTED != 0 {
        return Err(EnvelopeError::UnknownFlags(*flags));
    }
    if flags & FLAG_ENCRYPTED == 0 {
        return Ok(Envelope { version, codec: *codec, sealing: None, body: rest.to_vec() });
    }
    if rest.len() < 4 + SALT_LEN + IV_LEN + 16 {
        return Err(EnvelopeError::Truncated);
    }
    let iterations = u32::from_le_bytes([rest[0], rest[1], rest[2], rest[3]]);
    let mut salt = [0; SALT_LEN];
    salt.copy_from_slice(&rest[4..4 + SALT_LEN]);
    let mut iv = [0; IV_LEN];
    iv.copy_from_slice(&rest[4 + SALT_LEN..4 + SALT_LEN + IV_LEN]);
    let body = rest[4 + SALT_LEN + IV_LEN..].to_vec();
    Ok(Envelope { version, codec: *codec, sealing: Some(Sealing { iterations, salt, iv }), body })
}

/// The payload of an unencrypted envelope, or of an encrypted one's decrypted body.
pub fn unpack(codec: u8, body: &[u8]) -> Result<Vec<u8>, EnvelopeError> {
    match codec {
        CODEC_STORED => Ok(body.to_vec()),
        CODEC_DEFLATE => inflate(body),
        other => Err(EnvelopeError::UnknownCodec(other)),
    }
}

pub fn deflate(bytes: &[u8]) -> Vec<u8> {
    miniz_oxide::deflate::compress_to_vec(bytes, 8)
}

pub fn inflate(bytes: &[u8]) -> Result<Vec<u8>, EnvelopeError> {
    inflate_limited(bytes, MAX_PAYLOAD_BYTES)
}

/// Inflates at most `limit` bytes.
pub fn inflate_limited(bytes: &[u8], limit: usize) -> Result<Vec<u8>, EnvelopeError> {
    use miniz_oxide::inflate::TINFLStatus;
    miniz_oxide::inflate::decompress_to_vec_with_limit(bytes, limit).map_err(|e| match e.status {
        TINFLStatus::HasMoreOutput => EnvelopeError::TooLarge,
        TINFLStatus::FailedCannotMakeProgress => EnvelopeError::Truncated,
        _ => EnvelopeError::Corrupt("the compressed data does not unpack".to_owned()),
    })
}

const URL_ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const STANDARD_ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// base64url without padding (RFC 4648 §5), the alphabet URL fragments keep as is.
pub fn to_base64url(bytes: &[u8]) -> String {
    encode_base64(bytes, URL_ALPHABET, false)
}

/// Standard base64 with padding (what `atob` and CSP hashes use).
pub fn to_base64(bytes: &[u8]) -> String {
    encode_base64(bytes, STANDARD_ALPHABET, true)
}

fn encode_base64(bytes: &[u8], alphabet: &[u8; 64], pad: bool) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n =
            (chunk[0] as u32) << 16 | (*chunk.get(1).unwrap_or(&0) as u32) << 8 | *chunk.get(2).unwrap_or(&0) as u32;
        let symbols = chunk.len() + 1;
        for i in 0..symbols {
            out.push(alphabet[(n >> (18 - 6 * i) & 63) as usize] as char);
        }
        if pad {
            for _ in symbols..4 {
                out.push('=');
            }
        }
    }
    out
}

/// Reads base64url (padding and standard `+/` tolerated, whitespace skipped, as when a link was
/// wrapped in an email).
pub fn from_base64url(text: &str) -> Result<Vec<u8>, EnvelopeError> {
    let mut out = Vec::with_capacity(text.len() / 4 * 3 + 3);
    let mut acc = 0u32;
    let mut bits = 0;
    for b in text.bytes() {
        let value = match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'-' | b'+' => 62,
            b'_' | b'/' => 63,
            b'=' | b' ' | b'\n' | b'\r' | b'\t' => continue,
            _ => return Err(EnvelopeError::NotBase64),
        };
        acc = acc << 6 | value as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64url_round_trips_every_length() {
        for len in 0..70 {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 37 + 11) as u8).collect();
            let text = to_base64url(&bytes);
            assert!(text.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'), "{text}");
            assert_eq!(from_base64url(&text).unwrap(), bytes);
        }
        assert_eq!(to_base64url(b"\xfb\xff"), "-_8");
        assert_eq!(to_base64(b"\xfb\xff"), "+/8=");
        assert_eq!(to_base64(b"hello"), "aGVsbG8=");
        assert_eq!(from_base64url(&to_base64(b"any bytes \x00\xff")).unwrap(), b"any bytes \x00\xff");
        assert_eq!(from_base64url("+/8=").unwrap(), b"\xfb\xff");
        assert_eq!(from_base64url("ab$c"), Err(EnvelopeError::NotBase64));
    }

    #[test]
    fn plain_envelopes_round_trip_and_compress() {
        let payload = b"{\"type\":\"user\",\"message\":{\"content\":\"hello\"}}\n".repeat(200);
        let sealed = seal_plain(&payload);
        assert!(sealed.len() * 10 < payload.len(), "deflate should shrink repetitive JSONL: {}", sealed.len());
        let envelope = open(&sealed).unwrap();
        assert_eq!((envelope.version, envelope.codec, envelope.sealing.is_none()), (1, CODEC_DEFLATE, true));
        assert_eq!(unpack(envelope.codec, &envelope.body).unwrap(), payload);
    }

    #[test]
    fn encrypted_envelopes_carry_their_key_parameters() {
        let sealing = Sealing { iterations: 1234, salt: [7; SALT_LEN], iv: [9; IV_LEN] };
        let sealed = seal_encrypted(&sealing, &[1; 40]);
        let envelope = open(&sealed).unwrap();
        assert_eq!(envelope.sealing, Some(sealing));
        assert_eq!(envelope.body, vec![1; 40]);
        assert_eq!(open(&sealed[..20]), Err(EnvelopeError::Truncated));
    }

    #[test]
    fn unknown_or_damaged_envelopes_are_refused_with_a_reason() {
        assert_eq!(open(&[]), Err(EnvelopeError::Empty));
        assert_eq!(open(&[2, 1, 0, 1, 2]), Err(EnvelopeError::UnknownVersion(2)));
        assert!(EnvelopeError::UnknownVersion(2).to_string().contains("newer sessionscope"));
        // "AAAA", a link that is not one: its first byte is 0, below every format.
        let damaged = open(&[0, 0, 0]).unwrap_err().to_string();
        assert!(damaged.contains("damaged") && !damaged.contains("newer"), "{damaged}");
        assert_eq!(open(&[1, 9, 0]), Err(EnvelopeError::UnknownCodec(9)));
        assert_eq!(open(&[1, 1, 0x80]), Err(EnvelopeError::UnknownFlags(0x80)));
        assert!(open(&[2]).unwrap_err().to_string().contains("newer sessionscope"));
        assert!(unpack(CODEC_DEFLATE, b"\xff\xff\xff\xff garbage").is_err());
        let sealed = seal_plain(&b"abc".repeat(1000));
        let envelope = open(&sealed[..sealed.len() / 2]).unwrap();
        assert!(unpack(envelope.codec, &envelope.body).is_err(), "a cut body must not unpack");
    }

    #[test]
    fn a_bomb_is_refused_instead_of_filling_memory() {
        let zeros = vec![0u8; 1 << 20];
        let sealed = deflate(&zeros);
        assert!(sealed.len() < 2048);
        assert_eq!(inflate_limited(&sealed, 64 << 10), Err(EnvelopeError::TooLarge));
        assert_eq!(inflate_limited(&sealed, 1 << 20).map(|v| v.len()), Ok(1 << 20));
    }
}
