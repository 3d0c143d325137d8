//! The payload of a share: a JSON header line, then the (redacted) files one after another.
//! The files are session logs as the loader reads them, so a shared view is built by the same
//! code as a dropped one, and a newer engine still reads old shares.

use serde::{Deserialize, Serialize};

/// Payload format this version writes and reads.
pub const PAYLOAD_FORMAT: u32 = 1;

/// What a share says about itself.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BundleHeader {
    /// The payload format (`sessionscope_share`).
    pub sessionscope_share: u32,
    /// The title of what is shared (redacted like the rest).
    pub title: String,
    /// What part of the sessions it covers.
    pub scope: String,
    /// The message to show first (its uuid), if one was selected.
    #[serde(default)]
    pub selected: Option<String>,
    #[serde(default)]
    pub redaction: RedactionNote,
    pub files: Vec<BundleFileHeader>,
}

/// How the shared lines were redacted, for the banner of the shared view.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RedactionNote {
    /// Placeholders per kind: `(kind id, distinct values, occurrences)`.
    pub kinds: Vec<(String, u32, u32)>,
    /// Findings the author chose to leave visible.
    pub kept: u32,
    /// Lines left out (unreadable lines, subagents when dropped).
    pub dropped_lines: u32,
    /// Parts dropped as a whole (`thinking`, `tool results`, ...).
    pub dropped_parts: Vec<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BundleFileHeader {
    pub path: String,
    pub bytes: u64,
    pub lines: u32,
}

/// A share's payload, decoded.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Bundle {
    pub header: BundleHeader,
    /// `(path, bytes)` of each file, like dropped files.
    pub files: Vec<(String, Vec<u8>)>,
}

/// Why a payload could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BundleError {
    NoHeader,
    BadHeader(String),
    NewerFormat(u32),
    SizeMismatch { path: String, expected: u64, available: u64 },
}

impl std::fmt::Display for BundleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BundleError::NoHeader => write!(f, "the shared data has no header line"),
            BundleError::BadHeader(why) => write!(f, "the shared data's header is unreadable: {why}"),
            BundleError::NewerFormat(0) => write!(f, "the shared data's header names no share format; it is damaged"),
            BundleError::NewerFormat(v) => write!(
                f,
                "the share was made by a newer sessionscope (payload format {v}); this version reads format {PAYLOAD_FORMAT}"
            ),
            BundleError::SizeMismatch { path, expected, available } => {
                write!(f, "the shared data is cut short: {path} should have {expected} bytes, {available} are left")
            }
        }
    }
}

impl std::error::Error for BundleError {}

impl Bundle {
    /// Builds a bundle, filling the file entries of the header from `files`.
    pub fn new(mut header: BundleHeader, files: Vec<(String, Vec<u8>)>) -> Bundle {
        header.sessionscope_share = PAYLOAD_FORMAT;
        header.files = files
            .iter()
            .map(|(path, bytes)| BundleFileHeader {
                path: path.clone(),
                bytes: bytes.len() as u64,
                lines: bytes.split(|&b| b == b'\n').filter(|l| !l.is_empty()).count() as u32,
            })
            .collect();
        Bundle { header, files }
    }

    pub fn encode(&self) -> Vec<u8> {
        let header = crate::small_json::to_vec(&self.header).unwrap_or_default();
        let total = header.len() + 1 + self.files.iter().map(|(_, b)| b.len()).sum::<usize>();
        let mut out = Vec::with_capacity(total);
        out.extend_from_slice(&header);
        out.push(b'\n');
        for (_, bytes) in &self.files {
            out.extend_from_slice(bytes);
        }
        out
    }

    pub fn decode(payload: &[u8]) -> Result<Bundle, BundleError> {
        let end = memchr::memchr(b'\n', payload).ok_or(BundleError::NoHeader)?;
        let header: BundleHeader =
            crate::small_json::from_slice(&payload[..end]).map_err(|e| BundleError::BadHeader(e.to_string()))?;
        if header.sessionscope_share > PAYLOAD_FORMAT || header.sessionscope_share == 0 {
            return Err(BundleError::NewerFormat(header.sessionscope_share));
        }
        let mut rest = &payload[end + 1..];
        let mut files = Vec::with_capacity(header.files.len());
        for file in &header.files {
            let len = usize::try_from(file.bytes).unwrap_or(usize::MAX);
            if len > rest.len() {
                return Err(BundleError::SizeMismatch {
                    path: file.path.clone(),
                    expected: file.bytes,
                    available: rest.len() as u64,
                });
            }
            let (bytes, tail) = rest.split_at(len);
            files.push((file.path.clone(), bytes.to_vec()));
            rest = tail;
        }
        Ok(Bundle { header, files })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Bundle {
        let header = BundleHeader { title: "Fix the kettle".into(), scope: "one session".into(), ..Default::default() };
        Bundle::new(
            header,
            vec![
                ("a.jsonl".into(), b"{\"type\":\"user\"}\n{\"type\":\"assistant\"}\n".to_vec()),
                ("a/subagents/agent-x.jsonl".into(), b"{\"type\":\"user\"}\n".to_vec()),
            ],
        )
    }

    #[test]
    fn bundles_round_trip_with_counts_in_the_header() {
        let bundle = sample();
        assert_eq!(bundle.header.files[0].lines, 2);
        assert_eq!(bundle.header.files[1].bytes, 16);
        let back = Bundle::decode(&bundle.encode()).unwrap();
        assert_eq!(back, bundle);
    }

    #[test]
    fn damaged_or_newer_payloads_are_refused_with_a_reason() {
        let encoded = sample().encode();
        assert!(matches!(Bundle::decode(&encoded[..encoded.len() - 3]), Err(BundleError::SizeMismatch { .. })));
        assert_eq!(Bundle::decode(b"no newline"), Err(BundleError::NoHeader));
        assert!(matches!(Bundle::decode(b"{not json\n"), Err(BundleError::BadHeader(_))));
        let newer = b"{\"sessionscope_share\":7,\"title\":\"\",\"scope\":\"\",\"files\":[]}\n";
        let error = Bundle::decode(newer).unwrap_err();
        assert_eq!(error, BundleError::NewerFormat(7));
        assert!(error.to_string().contains("newer sessionscope"));
    }
}
