//! Files as the browser gives them (`File`, `Blob`): what identifies one without reading it,
//! reading all or part of one, and files made of bytes in memory. Works on the page and in a
//! worker.

use js_sys::{Array, Uint8Array};
use sessionscope_engine::history_cache::FileStamp;
use wasm_bindgen_futures::JsFuture;

use super::errors::ReadError;

/// What identifies a file's content without reading it: its path, size and last-modified time.
pub fn stamp_of(path: &str, file: &web_sys::File) -> FileStamp {
    FileStamp { path: path.to_owned(), size: file.size() as u64, modified_ms: file.last_modified() as i64 }
}

/// Bytes `start..end` of a file, being read.
pub fn slice(file: &web_sys::Blob, start: f64, end: f64) -> Result<JsFuture, ReadError> {
    let blob = file.slice_with_f64_and_f64(start, end).map_err(|error| ReadError::from(&error))?;
    Ok(JsFuture::from(blob.array_buffer()))
}

/// A whole file, being read.
pub fn whole(file: &web_sys::Blob) -> JsFuture {
    JsFuture::from(file.array_buffer())
}

/// Bytes `start..end` of a file (up to its end), read into wasm memory; fewer than it had when
/// picked is an error ([`ReadError::shorter`]).
pub async fn read_range(file: &web_sys::Blob, start: f64, end: f64) -> Result<Vec<u8>, ReadError> {
    let buffer = slice(file, start, end)?.await.map_err(|error| ReadError::from(&error))?;
    let bytes = Uint8Array::new(&buffer);
    ReadError::check_length(f64::from(bytes.length()), end.min(file.size()) - start)?;
    Ok(bytes.to_vec())
}

/// A whole file, read into wasm memory; fewer bytes than it had when picked is an error.
pub async fn read_whole(file: &web_sys::Blob) -> Result<Vec<u8>, ReadError> {
    let buffer = whole(file).await.map_err(|error| ReadError::from(&error))?;
    let bytes = Uint8Array::new(&buffer);
    ReadError::check_length(f64::from(bytes.length()), file.size())?;
    Ok(bytes.to_vec())
}

/// The first `n` bytes of a file (all of it if it is shorter), or `None` if it cannot be read.
pub async fn first_bytes(file: &web_sys::File, n: f64) -> Option<Vec<u8>> {
    read_range(file, 0.0, n.min(file.size())).await.ok()
}

/// Bytes in memory as a `File` named `name` (the last part of a path).
pub fn file_of_bytes(name: &str, bytes: &[u8]) -> Option<web_sys::File> {
    let parts = Array::of1(&Uint8Array::from(bytes));
    web_sys::File::new_with_u8_array_sequence(&parts, name).ok()
}

/// The bytes of `file` from `start` on, as a `File` of the same name and time: the browser reads
/// them from the same place, none are copied.
pub fn file_from(file: &web_sys::File, start: f64) -> Option<web_sys::File> {
    let rest = file.slice_with_f64(start).ok()?;
    let options = web_sys::FilePropertyBag::new();
    options.set_last_modified(file.last_modified());
    web_sys::File::new_with_blob_sequence_and_options(&Array::of1(&rest), &file.name(), &options).ok()
}

/// A buffer as a `File` named `name`, last modified at `modified_ms`.
pub fn file_of_buffer(name: &str, buffer: &js_sys::ArrayBuffer, modified_ms: f64) -> Option<web_sys::File> {
    let parts = Array::of1(buffer);
    let options = web_sys::FilePropertyBag::new();
    options.set_last_modified(modified_ms);
    web_sys::File::new_with_buffer_source_sequence_and_options(&parts, name, &options).ok()
}

/// The bytes at `path` on the site the page came from, or the reason there are none.
pub async fn fetch_bytes(path: &str) -> Result<Vec<u8>, FetchError> {
    use wasm_bindgen::JsCast;
    let failed = |_| FetchError::Unreachable(path.to_owned());
    let window = web_sys::window().ok_or(FetchError::Unreachable(path.to_owned()))?;
    let response: web_sys::Response =
        JsFuture::from(window.fetch_with_str(path)).await.map_err(failed)?.dyn_into().map_err(failed)?;
    if !response.ok() {
        return Err(FetchError::Status(path.to_owned(), response.status()));
    }
    let buffer = JsFuture::from(response.array_buffer().map_err(failed)?).await.map_err(failed)?;
    Ok(Uint8Array::new(&buffer).to_vec())
}

/// Why a file of the site could not be fetched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FetchError {
    /// No answer: the path.
    Unreachable(String),
    /// An answer that is no file: the path and the HTTP status.
    Status(String, u16),
}

impl std::fmt::Display for FetchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FetchError::Unreachable(path) => write!(f, "{path} could not be fetched"),
            FetchError::Status(path, status) => write!(f, "{path}: HTTP {status}"),
        }
    }
}
