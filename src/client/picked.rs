//! What came in: the files a drop, a pick or a walk found, each with the path it is known by, and
//! the files left out with why. Made by [`super::intake`], read by every client that reads files.

use std::rc::Rc;

use futures::future::LocalBoxFuture;
use sessionscope_engine::history::FileProblem;
use web_sys::FileSystemFileHandle;

use crate::platform::errors::HandleError;

/// A file to read, with the path it is known by (relative to a dropped folder).
#[derive(Clone)]
pub struct PickedFile {
    pub path: String,
    pub file: web_sys::File,
    /// The handle it came from (a remembered or followed folder), to read it again as it is now.
    pub handle: Option<FileSystemFileHandle>,
}

impl PickedFile {
    pub fn size(&self) -> f64 {
        self.file.size()
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
