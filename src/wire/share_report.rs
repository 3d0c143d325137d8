//! What the session's worker found when it scanned a scope for a share: the findings as the
//! review list shows them, and the scope's size. Made in the worker (`worker::redaction`), shown
//! by the share dialog (`state::share_scan`).

use serde::{Deserialize, Serialize};

/// One finding as the review list shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FindingRow {
    pub index: usize,
    pub kind: String,
    pub label: String,
    pub placeholder: String,
    pub secret: String,
    pub count: u32,
    pub keep: bool,
    pub context: String,
}

/// The findings of a scan, and the scope's lines and their bytes before redaction.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScanReport {
    pub findings: Vec<FindingRow>,
    pub lines: usize,
    pub bytes: u64,
}
