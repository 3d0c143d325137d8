//! Sizes the page and its workers agree on.

/// Bytes a load reads per slice.
pub const SLICE_BYTES: usize = 8 << 20;

/// Loads of at least this many bytes show a preview: the first part of the files, as soon as it
/// is read, while the rest loads. Smaller loads are done before a preview would help.
pub const PREVIEW_FROM_TOTAL: usize = 16 << 20;

/// The preview holds the first this many bytes (or a little more: whole slices).
pub const PREVIEW_BYTES: usize = 2 << 20;

/// Agents' databases up to this size are opened (their bytes are held in memory, once by SQLite).
pub const DATABASE_MAX_BYTES: f64 = 1024.0 * 1024.0 * 1024.0;
