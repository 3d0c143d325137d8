//! What the browser says when it refuses: a `DOMException` (or any thrown value) read once into
//! [`DomError`], by its name, so code asks which kind it is instead of comparing words, and the
//! words a person reads are written in one place per context: [`ReadError`] for a file that could
//! not be read, [`HandleError`] for a file or folder handle the browser would not open or list.

use js_sys::Reflect;
use wasm_bindgen::JsValue;

/// The kinds of refusal the app tells apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DomErrorKind {
    /// The file or folder is no longer there (moved or deleted).
    NotFound,
    /// The user or the browser refused permission.
    NotAllowed,
    /// The file changed on disk since it was picked, or could not be read.
    NotReadable,
    /// The browser does not allow it here.
    Security,
    /// The user cancelled (a picker closed without a choice).
    Abort,
    /// The browser's storage for the page is full.
    QuotaExceeded,
    Other,
}

/// A refusal of the browser: its kind, and its own name and message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DomError {
    pub kind: DomErrorKind,
    pub name: String,
    pub message: String,
}

impl DomError {
    /// Reads a thrown value (a `DOMException`, an `Error`, a string, anything).
    pub fn of(error: &JsValue) -> DomError {
        let text = |key: &str| Reflect::get(error, &key.into()).ok().and_then(|v| v.as_string());
        let name = text("name").unwrap_or_default();
        let message = text("message").or_else(|| error.as_string()).unwrap_or_default();
        let kind = match name.as_str() {
            "NotFoundError" => DomErrorKind::NotFound,
            "NotAllowedError" => DomErrorKind::NotAllowed,
            "NotReadableError" => DomErrorKind::NotReadable,
            "SecurityError" => DomErrorKind::Security,
            "AbortError" => DomErrorKind::Abort,
            "QuotaExceededError" => DomErrorKind::QuotaExceeded,
            _ => DomErrorKind::Other,
        };
        // What a person reads is said by kind, in the app's words; the browser's own words are
        // kept for the console, where a bug report finds them.
        if kind == DomErrorKind::Other {
            web_sys::console::warn_1(&format!("sessionscope: the browser refused: {name}: {message}").into());
        }
        DomError { kind, name, message }
    }

    pub fn is_cancelled(&self) -> bool {
        self.kind == DomErrorKind::Abort
    }
}

/// A file (or a slice of one) the browser would not read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadError(pub DomError);

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0.kind {
            // Firefox aborts the read of a file deleted since it was picked.
            DomErrorKind::NotFound | DomErrorKind::Abort => {
                f.write_str("could not be read: it was moved or deleted since it was picked")
            }
            DomErrorKind::NotReadable => {
                f.write_str("could not be read: it changed since it was picked, or is not readable")
            }
            DomErrorKind::Security | DomErrorKind::NotAllowed => {
                f.write_str("could not be read: the browser does not allow it")
            }
            DomErrorKind::QuotaExceeded => f.write_str("could not be read: the browser's storage is full"),
            DomErrorKind::Other => f.write_str("could not be read: the browser refused it"),
        }
    }
}

impl ReadError {
    /// The file gave fewer bytes than it had when it was picked: it changed on disk since. Chromium
    /// refuses such a read (`NotReadableError`); Firefox reads what is left, and says nothing.
    pub fn shorter() -> ReadError {
        ReadError(DomError {
            kind: DomErrorKind::NotReadable,
            name: "ShorterThanPicked".to_owned(),
            message: String::new(),
        })
    }

    /// `Err(shorter())` if `got` bytes were read where `wanted` were asked for.
    pub fn check_length(got: f64, wanted: f64) -> Result<(), ReadError> {
        if got < wanted { Err(ReadError::shorter()) } else { Ok(()) }
    }
}

impl From<&JsValue> for ReadError {
    fn from(error: &JsValue) -> ReadError {
        ReadError(DomError::of(error))
    }
}

/// A file or folder handle the browser would not open, list or read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HandleError(pub DomError);

impl HandleError {
    pub fn is_cancelled(&self) -> bool {
        self.0.is_cancelled()
    }
}

impl std::fmt::Display for HandleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0.kind {
            DomErrorKind::NotFound => f.write_str("the folder or file is no longer there (moved or deleted)"),
            DomErrorKind::NotAllowed | DomErrorKind::Security => {
                f.write_str("the browser's permission to read it was refused")
            }
            DomErrorKind::NotReadable => f.write_str("it changed or could not be read while it was being read"),
            DomErrorKind::Abort => f.write_str("the choice was cancelled"),
            DomErrorKind::QuotaExceeded => f.write_str("the browser's storage is full"),
            DomErrorKind::Other => f.write_str("the browser could not open it"),
        }
    }
}

impl From<&JsValue> for HandleError {
    fn from(error: &JsValue) -> HandleError {
        HandleError(DomError::of(error))
    }
}
