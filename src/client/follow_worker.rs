//! A followed session read as it grows: its loader is kept between reads, in a worker of the
//! follow role, so when its files grow only the bytes they grew by are read (here) and parsed
//! (there), and the model shown is a snapshot of the loader
//! ([`sessionscope_engine::Loader::snapshot`]).
//! A last line still being written waits for its newline. A file that shrank, or whose bytes
//! before the new ones are not what was read, was rewritten: it is read again whole.

use super::handle::{WorkerError, WorkerHandle};
use super::picked::PickedFile;
use super::workers::Workers;
use crate::logic::loaded::Model;
use crate::platform::errors::{HandleError, ReadError};
use crate::platform::{files, handles, schedule};
use crate::wire::codec::model_from_buffer;
use crate::wire::messages::FollowRequest;
use crate::wire::{FromWorker, Parcel, ToWorker, buffer_of, bytes_of};

/// A followed session up to this size is kept as it is read (its bytes are held twice, by the
/// loader and by the model shown); a bigger one is read again whole in a worker.
pub const MAX_BYTES: f64 = 512.0 * 1024.0 * 1024.0;

/// Bytes kept of the end of each file as it was read, compared with the file as it is now to
/// tell a file that grew from one that was rewritten.
const OVERLAP: usize = 4096;

/// Bytes read and parsed at a time, with a pause between them so the page stays responsive.
const SLICE: f64 = (8 << 20) as f64;

/// A session's files read so far, to read on from.
pub struct LiveSession {
    parser: FollowWorker,
    files: Vec<LiveFile>,
}

struct LiveFile {
    path: String,
    /// Bytes of the file read and handed to the worker.
    read: f64,
    /// The last bytes read of the file, as they were read.
    tail: Vec<u8>,
}

/// Why a session could not be read on from where it was.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GrowError {
    /// A file is shorter than what was read, or not what was read: its path.
    Rewritten(String),
    /// A file was dropped from the session (the session is read again whole).
    FileGone,
    /// A file could not be read: its path, and why.
    Unreadable(String, ReadError),
    /// A file could not be asked for again through its handle: its path, and why.
    Gone(String, HandleError),
    /// The read was cancelled.
    Cancelled,
    /// The follow worker could not start, or stopped.
    Worker(WorkerError),
}

impl std::fmt::Display for GrowError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GrowError::Rewritten(path) => write!(f, "{path} changed while it was read"),
            GrowError::FileGone => f.write_str("a file was dropped while it was read"),
            GrowError::Unreadable(path, error) => write!(f, "{path} {error}"),
            GrowError::Gone(path, error) => write!(f, "{path} could not be read: {error}"),
            GrowError::Cancelled => f.write_str("cancelled"),
            GrowError::Worker(WorkerError::Stopped(crash)) => {
                write!(f, "the worker following the session {crash}: {}", crash.advice())
            }
            GrowError::Worker(error) => error.fmt(f),
        }
    }
}

/// What a read found: the bytes it read.
pub struct Grown {
    pub bytes_read: f64,
}

impl LiveSession {
    /// Reads a session's files whole into a new loader.
    pub async fn read(
        workers: &Workers,
        files: &[PickedFile],
        cancelled: &std::cell::Cell<bool>,
    ) -> Result<LiveSession, GrowError> {
        let mut live = LiveSession { parser: FollowWorker::start(workers)?, files: Vec::with_capacity(files.len()) };
        for file in files {
            live.add(file);
        }
        live.grow(files, cancelled).await?;
        Ok(live)
    }

    fn add(&mut self, file: &PickedFile) -> usize {
        self.parser.send(FollowRequest::Add { path: file.path.clone(), size: file.size() });
        self.files.push(LiveFile { path: file.path.clone(), read: 0.0, tail: Vec::new() });
        self.files.len() - 1
    }

    /// Reads what the files grew by since the last read (new files whole), and parses it. A
    /// failed read leaves the loader with what it read: the next one goes on from there.
    pub async fn grow(&mut self, files: &[PickedFile], cancelled: &std::cell::Cell<bool>) -> Result<Grown, GrowError> {
        if self.files.iter().any(|known| !files.iter().any(|f| f.path == known.path)) {
            return Err(GrowError::FileGone);
        }
        // Every file is checked before any is read on: a rewritten one means reading all again.
        let mut plan = Vec::with_capacity(files.len());
        for file in files {
            let size = file.size();
            match self.files.iter().position(|known| known.path == file.path) {
                Some(at) => {
                    let read = self.files[at].read;
                    let tail = &self.files[at].tail;
                    if size < read {
                        return Err(GrowError::Rewritten(file.path.clone()));
                    }
                    if size > read && !tail.is_empty() {
                        let before = read_slice(&file.file, &file.path, read - tail.len() as f64, read).await?;
                        if before != *tail {
                            return Err(GrowError::Rewritten(file.path.clone()));
                        }
                    }
                    plan.push((at, read, size));
                }
                None => plan.push((usize::MAX, 0.0, size)),
            }
        }
        let mut bytes_read = 0.0;
        for ((mut at, mut offset, size), file) in plan.into_iter().zip(files) {
            if at == usize::MAX {
                at = self.add(file);
            }
            // A file on disk that changes while it is read can no longer be read through the
            // `File` taken before: it is asked for again, and read on from where it was.
            let mut current = file.file.clone();
            while offset < size {
                if cancelled.get() {
                    return Err(GrowError::Cancelled);
                }
                let end = (offset + SLICE).min(size);
                let bytes = match read_slice(&current, &file.path, offset, end).await {
                    Ok(bytes) => bytes,
                    Err(error) => {
                        let Some(handle) = &file.handle else { return Err(error) };
                        web_sys::console::debug_1(
                            &format!("sessionscope follow: {} changed while it was read: asked for again", file.path)
                                .into(),
                        );
                        current = handles::file_now(handle)
                            .await
                            .map_err(|error| GrowError::Gone(file.path.clone(), error))?;
                        if current.size() < end {
                            return Err(GrowError::Rewritten(file.path.clone()));
                        }
                        read_slice(&current, &file.path, offset, end).await?
                    }
                };
                let live = &mut self.files[at];
                keep_tail(&mut live.tail, &bytes);
                live.read += bytes.len() as f64;
                let push = Parcel::new(ToWorker::Follow(FollowRequest::Push { file: at as u32 }));
                self.parser.send_parcel(push.with_buffers(vec![buffer_of(&bytes)]));
                bytes_read += bytes.len() as f64;
                offset = end;
                if offset < size {
                    schedule::yield_now().await;
                }
            }
        }
        Ok(Grown { bytes_read })
    }

    /// The session as read so far, for the viewer.
    pub async fn model(&self) -> Result<Model, GrowError> {
        self.parser.snapshot().await
    }
}

/// The worker that keeps a followed session's loader: requests are posted in order (held until
/// the worker runs); a snapshot is answered with the model and the files' bytes.
struct FollowWorker {
    handle: WorkerHandle,
}

impl FollowWorker {
    fn start(workers: &Workers) -> Result<FollowWorker, GrowError> {
        let handle = workers.take_or_spawn().map_err(|error| GrowError::Worker(WorkerError::CannotStart(error)))?;
        workers.prepare_soon();
        Ok(FollowWorker { handle })
    }

    /// Posts a request that wants no answer. One that fails leaves the loader without the bytes:
    /// the snapshot that follows says so, or shows less.
    fn send(&self, request: FollowRequest) {
        self.send_parcel(Parcel::new(ToWorker::Follow(request)));
    }

    fn send_parcel(&self, request: Parcel<ToWorker>) {
        let _ = self.handle.send(request);
    }

    async fn snapshot(&self) -> Result<Model, GrowError> {
        let reply = self.handle.ask(Parcel::new(ToWorker::Follow(FollowRequest::Snapshot))).await;
        let reply = reply.map_err(GrowError::Worker)?;
        let FromWorker::Follow(_) = reply.message else {
            return Err(GrowError::Worker(WorkerError::Failed("the worker answered something else".to_owned())));
        };
        let Some((model, files)) = reply.buffers.split_first() else {
            return Err(GrowError::Worker(WorkerError::Failed("the worker sent no model".to_owned())));
        };
        let bytes = files.iter().map(bytes_of).collect();
        let (corpus, graph) = model_from_buffer(model, bytes)
            .map_err(|error| GrowError::Worker(WorkerError::Failed(error.to_string())))?;
        Ok(Model::new(corpus, graph))
    }
}

impl Drop for FollowWorker {
    fn drop(&mut self) {
        self.handle.stop();
    }
}

/// Keeps the last [`OVERLAP`] bytes of what was read.
fn keep_tail(tail: &mut Vec<u8>, bytes: &[u8]) {
    tail.extend_from_slice(&bytes[bytes.len().saturating_sub(OVERLAP)..]);
    if tail.len() > OVERLAP {
        tail.drain(..tail.len() - OVERLAP);
    }
}

async fn read_slice(file: &web_sys::File, path: &str, start: f64, end: f64) -> Result<Vec<u8>, GrowError> {
    files::read_range(file, start, end).await.map_err(|error| GrowError::Unreadable(path.to_owned(), error))
}
