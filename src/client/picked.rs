//! What came in: the files a drop, a pick or a walk found, each with the path it is known by, and
//! the files left out with why. Made by [`super::intake`], read by every client that reads files.

use std::rc::Rc;

use futures::future::LocalBoxFuture;
use sessionscope_engine::history::FileProblem;
use web_sys::FileSystemFileHandle;

use crate::logic::deeplink;
use crate::platform::errors::HandleError;
use crate::platform::files;
use crate::wire::limits::HOLD_MAX_BYTES;
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
    /// The part that starts here (a link's): the first part is the one to go back to.
    At(Start),
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
        let earlier = self.part.as_ref().map_or(&[][..], |part| part.earlier.as_slice());
        let (start, earlier) = move_to(self.start(), earlier, to, whole.size() as u64)?;
        // The first part is the file itself, read again from its handle as any file is.
        if start.is_beginning() {
            return Some(PickedFile { path: self.path.clone(), file: whole.clone(), handle, part: None });
        }
        let file = files::file_from(whole, start.offset as f64)?;
        let part = FilePart { whole: whole.clone(), handle, start, earlier };
        Some(PickedFile { path: self.path.clone(), file, handle: None, part: Some(part) })
    }

    /// Whether this is a whole file too big to show whole: a load of it reads its first part.
    pub fn is_whole_and_too_big(&self) -> bool {
        self.part.is_none() && self.size() as u64 > HOLD_MAX_BYTES
    }

    /// The part at `at` of this file, when the file is too big to show whole, has such a part,
    /// and its bytes there fit a link's (`at=`, of the session `session`:
    /// [`deeplink::part_fits`]); `None` otherwise. A link opened with a big file reads its part
    /// straight away with it.
    pub async fn link_part(&self, at: Start, session: Option<&str>) -> Option<PickedFile> {
        if !self.is_whole_and_too_big() {
            return None;
        }
        let part = self.with_part(PartTo::At(at))?;
        let from = at.offset.checked_sub(1)? as f64;
        let to = (from + deeplink::PART_CHECK_BYTES as f64).min(self.size());
        // A read refused now and then (Safari's engine, a 2.4 GB file just after another page
        // held 1.6 GB of it) is tried again before the link falls back to the first part.
        let mut tries = 0;
        let bytes = loop {
            match files::read_range(&self.file, from, to).await {
                Ok(bytes) => break bytes,
                Err(error) => {
                    tries += 1;
                    web_sys::console::warn_1(
                        &format!("sessionscope load: the link's part could not be checked (try {tries}): {error}")
                            .into(),
                    );
                    if tries == LINK_CHECK_TRIES {
                        return None;
                    }
                }
            }
        };
        let fits = deeplink::part_fits(&bytes, session);
        if !fits {
            web_sys::console::warn_1(
                &"sessionscope load: the file's bytes at the link's part are not its message's".into(),
            );
        }
        fits.then_some(part)
    }
}

/// How many times the bytes at a link's part are read before the link falls back to the first part.
const LINK_CHECK_TRIES: u32 = 3;

/// Where the part to show instead of the one at `start` starts, and the starts of the parts shown
/// before that one (to go back to), in a file of `size` bytes; `None` if there is no such part.
fn move_to(start: Start, earlier: &[Start], to: PartTo, size: u64) -> Option<(Start, Vec<Start>)> {
    let mut earlier = earlier.to_vec();
    let start = match to {
        PartTo::Next(next) if next.offset > start.offset && next.offset < size => {
            earlier.push(start);
            next
        }
        PartTo::Next(_) => return None,
        PartTo::Earlier => earlier.pop()?,
        PartTo::First if !start.is_beginning() => {
            earlier.clear();
            Start::BEGINNING
        }
        PartTo::First => return None,
        PartTo::At(at) if at.offset != start.offset && at.offset < size => {
            earlier.clear();
            if !at.is_beginning() {
                earlier.push(Start::BEGINNING);
            }
            at
        }
        PartTo::At(_) => return None,
    };
    Some((start, earlier))
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

#[cfg(test)]
mod tests {
    use super::*;

    const SIZE: u64 = 3_000;

    fn at(offset: u64, line: u32) -> Start {
        Start { offset, line }
    }

    #[test]
    fn parts_go_forward_back_and_to_the_first() {
        let (two, three) = (at(1_000, 101), at(2_000, 201));
        // Forward twice: each part remembers the ones before it.
        let (start, earlier) = move_to(Start::BEGINNING, &[], PartTo::Next(two), SIZE).unwrap();
        assert_eq!((start, earlier.clone()), (two, vec![Start::BEGINNING]));
        let (start, earlier) = move_to(start, &earlier, PartTo::Next(three), SIZE).unwrap();
        assert_eq!((start, earlier.clone()), (three, vec![Start::BEGINNING, two]));
        // Back one, then back to the first.
        let (back, before) = move_to(start, &earlier, PartTo::Earlier, SIZE).unwrap();
        assert_eq!((back, before.clone()), (two, vec![Start::BEGINNING]));
        assert_eq!(move_to(back, &before, PartTo::Earlier, SIZE), Some((Start::BEGINNING, vec![])));
        assert_eq!(move_to(start, &earlier, PartTo::First, SIZE), Some((Start::BEGINNING, vec![])));
    }

    #[test]
    fn a_link_s_part_is_shown_with_the_first_to_go_back_to() {
        let (two, three) = (at(1_000, 101), at(2_000, 201));
        assert_eq!(move_to(Start::BEGINNING, &[], PartTo::At(three), SIZE), Some((three, vec![Start::BEGINNING])));
        // From another part, whatever was shown before it.
        assert_eq!(move_to(two, &[Start::BEGINNING], PartTo::At(three), SIZE), Some((three, vec![Start::BEGINNING])));
        assert_eq!(
            move_to(three, &[Start::BEGINNING, two], PartTo::At(Start::BEGINNING), SIZE),
            Some((Start::BEGINNING, vec![]))
        );
        // The part shown, or one past the end, is no part to go to.
        assert_eq!(move_to(three, &[Start::BEGINNING], PartTo::At(three), SIZE), None);
        assert_eq!(move_to(Start::BEGINNING, &[], PartTo::At(at(SIZE, 301)), SIZE), None);
    }

    #[test]
    fn no_part_past_either_end() {
        assert_eq!(move_to(Start::BEGINNING, &[], PartTo::Earlier, SIZE), None, "nothing before the first");
        assert_eq!(move_to(Start::BEGINNING, &[], PartTo::First, SIZE), None, "the first is shown");
        assert_eq!(move_to(Start::BEGINNING, &[], PartTo::Next(at(SIZE, 301)), SIZE), None, "nothing at the end");
        // A next part that would not move forward (a stale answer) is no part.
        assert_eq!(move_to(at(2_000, 201), &[Start::BEGINNING], PartTo::Next(at(1_000, 101)), SIZE), None);
    }
}
