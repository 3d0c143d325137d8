//! Reading a file's bytes in a worker, piece by piece into the engine's loader: as slices asked
//! for ahead ([`SliceReader`], a search's small first slice then bigger ones), or as a byte stream
//! into one buffer used again ([`ByteStream`], shared with the page). A piece that cannot be read gives the reason, as
//! the browser gives it ([`ReadError`]).

use js_sys::Uint8Array;
use wasm_bindgen_futures::JsFuture;

use crate::platform::byte_stream::{ByteStream, PieceError};
use crate::platform::errors::ReadError;
use crate::platform::files;
use crate::wire::limits::SLICE_BYTES;

/// A file read as slices, or as a byte stream, or one whose stream could not be started (its
/// reason, given once as the file's only piece).
pub enum FileReader<'f> {
    Slices(SliceReader<'f>),
    Stream(ByteStream),
    Failed(Option<PieceError>),
}

impl FileReader<'_> {
    /// The next bytes of the file: a view to copy before the next call. `None` at its end.
    pub async fn next(&mut self) -> Option<Result<Uint8Array, PieceError>> {
        match self {
            FileReader::Slices(reader) => reader.next().await,
            FileReader::Stream(stream) => stream.next().await,
            FileReader::Failed(reason) => reason.take().map(Err),
        }
    }

    /// Bytes read so far.
    pub fn offset(&self) -> f64 {
        match self {
            FileReader::Slices(reader) => reader.offset,
            FileReader::Stream(stream) => stream.offset(),
            FileReader::Failed(_) => 0.0,
        }
    }
}

/// The first slice a search reads of a file: a common word's hits are often enough after it.
/// Each read costs the browser about as much up to a few megabytes (it makes a new pipe and
/// opens the file for it), so a word found everywhere but sparsely wants big slices, and one
/// whose hits come early small ones. On the 4.4 GB benchmark history, 3 runs each, builds
/// alternated: 256 KB gave "function" (2.7 GB read) 9.1–9.5 s (over 10 s in 6 runs of 11 that
/// day) and "the" 4.2–4.8 s; 512 KB 8.9–9.3 s and 4.6–5.2 s; 2 MiB 8.1–8.6 s and 6.2–7.0 s. The
/// slowest common word is what a person waits for, so 2 MiB.
const SEARCH_FIRST_SLICE_BYTES: usize = 2 << 20;

/// A file read slice by slice, the next slice asked for while the current one is used. A file
/// that is one slice is read as it is: a slice of it costs more. A search reads a small first
/// slice, and asks for the next only if it wants more: a common word's hits are enough after it. A slice that cannot be read
/// (the file moved, changed since it was picked, no permission) is the reason, as the browser
/// gives it.
pub struct SliceReader<'f> {
    file: &'f web_sys::File,
    size: f64,
    /// The size of the next slice asked for: it grows to [`SLICE_BYTES`].
    slice: f64,
    /// Bytes read so far.
    offset: f64,
    /// Where the slice asked for ends.
    asked_to: f64,
    next: Option<Result<JsFuture, ReadError>>,
}

impl<'f> SliceReader<'f> {
    /// Starts reading `file`: its first slice is asked for now.
    pub fn start(file: &'f web_sys::File) -> Result<SliceReader<'f>, ReadError> {
        SliceReader::start_with(file, SLICE_BYTES as f64)
    }

    /// Starts reading `file` for a search: a first slice of [`SEARCH_FIRST_SLICE_BYTES`], the
    /// next asked for only when the search wants it, then slices four times bigger each time.
    pub fn start_for_search(file: &'f web_sys::File) -> Result<SliceReader<'f>, ReadError> {
        SliceReader::start_with(file, SEARCH_FIRST_SLICE_BYTES as f64)
    }

    /// Starts reading `file` with a first slice of `first` bytes, then slices four times bigger
    /// each time, up to [`SLICE_BYTES`] (read ahead once past the size of a search's first).
    pub fn start_with(file: &'f web_sys::File, first: f64) -> Result<SliceReader<'f>, ReadError> {
        let size = file.size();
        let reading = if size <= 0.0 {
            None
        } else if size <= first {
            Some(files::whole(file))
        } else {
            Some(files::slice(file, 0.0, first)?)
        };
        let asked_to = size.clamp(0.0, first);
        Ok(SliceReader { file, size, slice: first, offset: 0.0, asked_to, next: reading.map(Ok) })
    }

    /// Whether every byte of the file has been read.
    pub fn is_done(&self) -> bool {
        self.offset >= self.size
    }

    /// Asks for the slice after the one asked for last.
    fn ask_next(&mut self) {
        self.slice = (self.slice * 4.0).min(SLICE_BYTES as f64);
        let start = self.asked_to;
        self.asked_to = (start + self.slice).min(self.size);
        self.next = Some(files::slice(self.file, start, self.asked_to));
    }

    /// The next slice, or `None` once the file is read.
    pub async fn next(&mut self) -> Option<Result<Uint8Array, PieceError>> {
        if self.next.is_none() && self.asked_to < self.size {
            self.ask_next();
        }
        let reading = match self.next.take()? {
            Ok(reading) => reading,
            Err(reason) => return Some(Err(reason.into())),
        };
        let buffer = match reading.await {
            Ok(buffer) => buffer,
            Err(error) => return Some(Err(PieceError::Refused(ReadError::from(&error)))),
        };
        let bytes = Uint8Array::new(&buffer);
        if let Err(shorter) = ReadError::check_length(f64::from(bytes.length()), self.asked_to - self.offset) {
            self.next = None;
            self.offset = self.size;
            return Some(Err(shorter.into()));
        }
        self.offset = self.asked_to;
        // A search's small first slice may be all that is wanted: the next is asked for only
        // when wanted. Any other is read ahead.
        if self.offset < self.size && self.slice > SEARCH_FIRST_SLICE_BYTES as f64 {
            self.ask_next();
        }
        Some(Ok(bytes))
    }
}
