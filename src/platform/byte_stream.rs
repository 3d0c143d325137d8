//! Reading a file as a byte stream ([`ByteStream`]), piece by piece, in a worker or on the page:
//! into one buffer used again where the browser's file streams are byte streams, else chunk by
//! chunk as the browser gives them; or whole into wasm memory ([`read_all`]). A piece that cannot
//! be read gives the reason, as the browser gives it ([`PieceError`]).

use js_sys::Uint8Array;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use super::errors::ReadError;

/// Why a piece of a file could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PieceError {
    /// The browser refused.
    Refused(ReadError),
    /// This browser cannot read a file as a byte stream.
    NoByteStreams,
    /// The browser's stream answered a read with no bytes.
    NoBytes,
}

impl std::fmt::Display for PieceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PieceError::Refused(error) => error.fmt(f),
            PieceError::NoByteStreams => {
                f.write_str("could not be read: this browser cannot read a file as a byte stream")
            }
            PieceError::NoBytes => f.write_str("could not be read: the browser's stream gave no bytes"),
        }
    }
}

impl From<ReadError> for PieceError {
    fn from(error: ReadError) -> PieceError {
        PieceError::Refused(error)
    }
}

/// Files bigger than this are read as a byte stream (by the index, and by the page for a load) ([`ByteStream`]), the others
/// whole. A page that only reads the 4.4 GB benchmark history in 2 workers
/// (`tests/bench/read-files.mjs`, way `byob`) took 5.8–6.3 s and 9.3–9.8 CPU-s so, against
/// 10.4–11.2 s and 16.9–18.0 CPU-s in 8 MiB slices (`arrayBuffer`), in the same run: a slice
/// costs the browser a new pipe and a new buffer, each of whose pages is faulted in, and freed.
/// Every file read as a stream stalled that page after a few thousand files.
pub const STREAM_ABOVE_BYTES: f64 = STREAM_BUFFER_BYTES as f64;

/// The buffer a [`ByteStream`] reads into, again and again.
const STREAM_BUFFER_BYTES: u32 = 1 << 20;

/// A file (or any blob: a file's first part) read as a byte stream, piece by piece. Where the
/// browser's file streams are byte streams (Chromium, Firefox), into one buffer used again and
/// again ("bring your own buffer"): the browser makes one pipe for the whole file and fills it
/// ahead while its reader works, and no new buffer is made for each read. Where they are not
/// (Safari's engine: its `Blob.stream()` is a default stream, and asking it for a BYOB reader
/// throws), the browser's own chunks are read as they come ([`Reader::Chunks`]).
pub struct ByteStream {
    reader: Reader,
    /// Bytes read so far.
    offset: f64,
    /// The blob's size when the stream started: a stream that ends before it is an error (the
    /// file shrank on disk; Firefox's stream just ends there).
    size: f64,
    ended: bool,
}

/// How a [`ByteStream`] reads: which reader its browser gave.
enum Reader {
    /// Into one buffer of ours, taken while a read is out, and at the end.
    Byob { reader: web_sys::ReadableStreamByobReader, buffer: Option<js_sys::ArrayBuffer> },
    /// The browser's chunks, a new one per read; `None` at the end.
    Chunks(Option<web_sys::ReadableStreamDefaultReader>),
}

impl ByteStream {
    pub fn start(file: &web_sys::Blob) -> Result<ByteStream, PieceError> {
        let stream = file.stream();
        let reader = match byob_reader(&stream) {
            Some(reader) => Reader::Byob { reader, buffer: Some(js_sys::ArrayBuffer::new(STREAM_BUFFER_BYTES)) },
            None => {
                // A stream whose BYOB reader was refused is not locked: its default reader is had.
                let get_reader = js_sys::Reflect::get(&stream, &"getReader".into())
                    .ok()
                    .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
                    .ok_or(PieceError::NoByteStreams)?;
                let reader = get_reader.call0(&stream).map_err(|_| PieceError::NoByteStreams)?;
                Reader::Chunks(Some(reader.unchecked_into()))
            }
        };
        Ok(ByteStream { reader, offset: 0.0, size: file.size(), ended: false })
    }

    /// Bytes read so far.
    pub fn offset(&self) -> f64 {
        self.offset
    }

    /// The next bytes, a view that is good until the next call; `None` at the end.
    pub async fn next(&mut self) -> Option<Result<Uint8Array, PieceError>> {
        if self.ended {
            return None;
        }
        let read = match &mut self.reader {
            Reader::Byob { reader, buffer } => {
                let buffer = buffer.take()?;
                reader.read_with_array_buffer_view(&Uint8Array::new(&buffer))
            }
            Reader::Chunks(reader) => reader.as_ref()?.read(),
        };
        let result = match JsFuture::from(read).await {
            Ok(result) => result,
            Err(error) => return Some(Err(PieceError::Refused(ReadError::from(&error)))),
        };
        let field = |name: &str| js_sys::Reflect::get(&result, &name.into()).ok();
        if field("done").and_then(|done| done.as_bool()) != Some(false) {
            self.ended = true;
            return ReadError::check_length(self.offset, self.size).err().map(|shorter| Err(shorter.into()));
        }
        let Some(bytes) = field("value").and_then(|value| value.dyn_into::<Uint8Array>().ok()) else {
            return Some(Err(PieceError::NoBytes));
        };
        if let Reader::Byob { buffer, .. } = &mut self.reader {
            *buffer = Some(bytes.buffer());
        }
        self.offset += f64::from(bytes.length());
        if self.offset >= self.size {
            // Every byte of the blob is in: the stream's end is not waited for. Safari's engine
            // now and then never answers the read after a file's last chunk (a 22 MB load stood
            // at 100% for minutes, its worker waiting), and a `File` holds no more than its size.
            self.ended = true;
            self.cancel();
        }
        Some(Ok(bytes))
    }

    /// Lets the browser's stream go (its end is not read).
    fn cancel(&self) {
        let _ = match &self.reader {
            Reader::Byob { reader, .. } => reader.cancel(),
            Reader::Chunks(Some(reader)) => reader.cancel(),
            Reader::Chunks(None) => return,
        };
    }
}

/// A BYOB reader of `stream`, where the browser gives one: its streams of a file's bytes are byte
/// streams. Asked through `Reflect`, so that a browser that throws instead (Safari's engine:
/// "ReadableStreamBYOBReader needs a ReadableByteStreamController") answers `None`; a browser
/// without the class at all answers `None` too.
fn byob_reader(stream: &web_sys::ReadableStream) -> Option<web_sys::ReadableStreamByobReader> {
    let global = js_sys::global();
    if !js_sys::Reflect::has(&global, &"ReadableStreamBYOBReader".into()).unwrap_or(false) {
        return None;
    }
    let get_reader = js_sys::Reflect::get(stream, &"getReader".into()).ok()?.dyn_into::<js_sys::Function>().ok()?;
    let options = js_sys::Object::new();
    js_sys::Reflect::set(&options, &"mode".into(), &"byob".into()).ok()?;
    get_reader.call1(stream, &options).ok()?.dyn_into().ok()
}

/// The first `len` bytes of `file` (all of it if it is shorter), read as a byte stream straight
/// into one buffer of that size, no zeros written first: for a big file, about twice as fast as
/// slices, and never two copies at once. After each piece `go_on` is told the bytes read so far;
/// `None` if it said to stop.
pub async fn read_all(
    file: &web_sys::Blob,
    len: f64,
    mut go_on: impl FnMut(f64) -> bool,
) -> Result<Option<Vec<u8>>, PieceError> {
    let part = if len < file.size() {
        file.slice_with_f64_and_f64(0.0, len).map_err(|error| PieceError::Refused(ReadError::from(&error)))?
    } else {
        file.clone()
    };
    let mut bytes = Vec::with_capacity(part.size() as usize);
    let mut stream = ByteStream::start(&part)?;
    while let Some(piece) = stream.next().await {
        let piece = piece?;
        sessionscope_engine::load::append_filled(&mut bytes, piece.length() as usize, |room| {
            piece.copy_to_uninit(room)
        });
        if !go_on(bytes.len() as f64) {
            return Ok(None);
        }
    }
    Ok(Some(bytes))
}
