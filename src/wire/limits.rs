//! Sizes the page and its workers agree on.

/// Bytes a load reads per slice.
pub const SLICE_BYTES: usize = 8 << 20;

/// Loads of at least this many bytes show a preview: the first part of the files, as soon as it
/// is read, while the rest loads. Smaller loads are done before a preview would help.
pub const PREVIEW_FROM_TOTAL: usize = 16 << 20;

/// Loads of at least this many bytes are read by the page only once their worker is done and
/// stopped, not while it parses: the page and the worker would each hold the bytes at once, 2.5×
/// the files in the tab at the peak (issue 40). Reading afterwards costs about a second per GB.
pub const READ_AFTER_PARSE_FROM: usize = 256 << 20;

/// The preview holds the first this many bytes (or a little more: whole slices).
pub const PREVIEW_BYTES: usize = 2 << 20;

/// Agents' databases up to this size are opened (their bytes are held in memory, once by SQLite).
pub const DATABASE_MAX_BYTES: f64 = 1024.0 * 1024.0 * 1024.0;

/// The most bytes of log files one load holds (and one unit of a history's index): the files in
/// order, each whole while this lasts, the last one read cut after a whole line, the lines of the
/// rest counted, not read (`Loader::hold_at_most`). A page's memory is at most 4 GiB, and a
/// 32-bit buffer at most 2 GiB; the page and its worker each hold the bytes and the model, one
/// after the other ([`READ_AFTER_PARSE_FROM`]), so a 1.5 GB session is about the most either can.
pub const HOLD_MAX_BYTES: u64 = 1536 << 20;

/// What a person can do about the lines a load left out: the end of their diagnostic.
pub fn left_out_why() -> String {
    format!(
        "this page holds up to {} of log files at once; `sessionscope open <file>` (the command line) opens the whole file",
        sessionscope_engine::units::human_bytes(HOLD_MAX_BYTES)
    )
}
