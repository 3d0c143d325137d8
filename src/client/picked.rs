//! What came in: the files a drop, a pick or a walk found, each with the path it is known by, and
//! the files left out with why. Made by [`super::intake`], read by every client that reads files.

use std::rc::Rc;

use futures::future::LocalBoxFuture;
use sessionscope_engine::history::FileProblem;
use web_sys::FileSystemFileHandle;

use crate::platform::errors::HandleError;
use crate::platform::files;
use sessionscope_engine::model::Start;

/// A file to read, with the path it is known by (relative to a dropped folder).
#[derive(Clone)]
pub struct PickedFile {
    pub path: String,
    pub file: web_sys::File,
    /// The handle it came from (a remembered or followed folder), to read it again as it is now.
    pub handle: Option<FileSystemFileHandle>,
    /// When `file` is a part of a file too big to show whole: which part.
    pub part: Option<FilePart>,
}

/// A part of a file too big to show whole (`wire::limits::HOLD_MAX_BYTES`): the whole file, where
/// the part starts, and where the parts shown before it started (to go back to).
#[derive(Clone)]
pub struct FilePart {
    pub whole: web_sys::File,
    /// The whole file's handle, if it came with one.
    pub handle: Option<FileSystemFileHandle>,
    pub start: Start,
    pub earlier: Vec<Start>,
}

/// Which part of a file to show instead of the one shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartTo {
    /// The part after it: its lines left out after the part shown start at `Start`.
    Next(Start),
    /// The part shown before it.
    Earlier,
    /// The file's first part.
    First,
}

impl PickedFile {
    pub fn size(&self) -> f64 {
        self.file.size()
    }

    /// Where the part of the file read starts (its beginning, for a file read whole).
    pub fn start(&self) -> Start {
        self.part.as_ref().map_or(Start::BEGINNING, |part| part.start)
    }

    /// The same file with another of its parts to read, or `None` if there is no such part (or
    /// the browser could not make it). The part is a `File` of the same bytes: none are copied.
    pub fn with_part(&self, to: PartTo) -> Option<PickedFile> {
        let whole = self.part.as_ref().map_or(&self.file, |part| &part.whole);
        let handle = self.part.as_ref().map_or(&self.handle, |part| &part.handle).clone();
        let mut earlier = self.part.as_ref().map(|part| part.earlier.clone()).unwrap_or_default();
        let start = match to {
            PartTo::Next(start) if start.offset < whole.size() as u64 => {
                earlier.push(self.start());
                start
            }
            PartTo::Next(_) => return None,
            PartTo::Earlier => earlier.pop()?,
            PartTo::First if self.part.is_some() => Start::BEGINNING,
            PartTo::First => return None,
        };
        // The first part is the file itself, read again from its handle as any file is.
        if start.is_beginning() {
            return Some(PickedFile { path: self.path.clone(), file: whole.clone(), handle, part: None });
        }
        let file = files::file_from(whole, start.offset as f64)?;
        let part = FilePart { whole: whole.clone(), handle, start, earlier };
        Some(PickedFile { path: self.path.clone(), file, handle: None, part: Some(part) })
    }
}

/// What a drop or a pick held: the files to read, and the files of dropped folders that were
/// left out because their names are not those of logs.
#[derive(Clone, Default)]
pub struct Picked {
    pub files: Vec<PickedFile>,
    pub skipped_by_name: Vec<String>,
    /// They came from a folder (picked or dropped), which may be a whole history.
    pub from_folder: bool,
    /// Files and folders that could not be read, and why.
    pub unreadable: Vec<FileProblem>,
    /// Versions of files Claude Code kept (`file-history/<session>/<hash>@vN`): no logs, kept
    /// aside unread, for a file's page to compare.
    pub versions: Vec<LaterFile>,
}

impl Picked {
    pub fn holds_anything(&self) -> bool {
        !self.files.is_empty()
            || !self.skipped_by_name.is_empty()
            || !self.unreadable.is_empty()
            || !self.versions.is_empty()
    }
}

/// What gets a [`LaterFile`]'s `File`.
type GetFile = Rc<dyn Fn() -> LocalBoxFuture<'static, Result<web_sys::File, HandleError>>>;

/// A file a walk found but did not ask for: its `File` is asked for when it is read, so that
/// thousands of them cost the walk nothing.
#[derive(Clone)]
pub struct LaterFile {
    pub path: String,
    get: GetFile,
}

impl LaterFile {
    pub fn new(path: String, get: GetFile) -> LaterFile {
        LaterFile { path, get }
    }

    /// One whose `File` is already in hand (a file input's).
    pub fn of_file(path: String, file: web_sys::File) -> LaterFile {
        LaterFile { path, get: Rc::new(move || Box::pin(std::future::ready(Ok(file.clone())))) }
    }

    pub async fn file(&self) -> Result<web_sys::File, HandleError> {
        (self.get)().await
    }
}
