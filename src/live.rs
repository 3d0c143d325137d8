//! A followed session read as it grows: its loader is kept between reads, in a worker of its
//! own, so when its files grow only the bytes they grew by are read (here) and parsed (there),
//! and the model shown is a snapshot of the loader ([`sessionscope_engine::Loader::snapshot`]).
//! A last line still being written waits for its newline. A file that shrank, or whose bytes
//! before the new ones are not what was read, was rewritten: it is read again whole.

use std::cell::RefCell;
use std::rc::Rc;

use futures::channel::oneshot;
use js_sys::Uint8Array;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use crate::files::PickedFile;
use crate::model::Model;
use crate::protocol::{Envelope, FromWorker, ToWorker, buffer_of, bytes_of};
use crate::queued_worker::QueuedWorker;

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
pub enum GrowError {
    /// A file is shorter than what was read, or not what was read: its path.
    Rewritten(String),
    /// A file was dropped from the session (the session is read again whole).
    FileGone,
    /// A file could not be read: the reason.
    Unreadable(String),
}

/// What a read found: the bytes it read.
pub struct Grown {
    pub bytes_read: f64,
}

impl LiveSession {
    /// Reads a session's files whole into a new loader.
    pub async fn read(files: &[PickedFile], cancelled: &std::cell::Cell<bool>) -> Result<LiveSession, String> {
        let mut live = LiveSession { parser: FollowWorker::start()?, files: Vec::with_capacity(files.len()) };
        for file in files {
            live.add(file);
        }
        match live.grow(files, cancelled).await {
            Ok(_) => Ok(live),
            Err(GrowError::Unreadable(message)) => Err(message),
            Err(GrowError::Rewritten(path)) => Err(format!("{path} changed while it was read")),
            Err(GrowError::FileGone) => Err("a file was dropped while it was read".into()),
        }
    }

    fn add(&mut self, file: &PickedFile) -> usize {
        self.parser.send(Envelope::new(ToWorker::FollowAdd { path: file.path.clone(), size: file.size() }));
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
                    return Err(GrowError::Unreadable("cancelled".into()));
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
                        current = crate::folders::file_now(handle).await.map_err(GrowError::Unreadable)?;
                        if current.size() < end {
                            return Err(GrowError::Rewritten(file.path.clone()));
                        }
                        read_slice(&current, &file.path, offset, end).await?
                    }
                };
                let live = &mut self.files[at];
                keep_tail(&mut live.tail, &bytes);
                live.read += bytes.len() as f64;
                let push = Envelope::new(ToWorker::FollowPush { file: at as u32 });
                self.parser.send(push.with_buffers(vec![buffer_of(&bytes)]));
                bytes_read += bytes.len() as f64;
                offset = end;
                if offset < size {
                    gloo::timers::future::TimeoutFuture::new(0).await;
                }
            }
        }
        Ok(Grown { bytes_read })
    }

    /// The session as read so far, for the viewer.
    pub async fn model(&self) -> Result<Model, String> {
        self.parser.snapshot().await
    }
}

/// Where the snapshot asked for goes; a failure goes there too.
type Answer = Rc<RefCell<Option<oneshot::Sender<Result<Model, String>>>>>;

/// The worker that keeps a followed session's loader: requests are posted in order, queued
/// until the worker runs; a snapshot is answered with the model and the files' bytes.
struct FollowWorker {
    worker: QueuedWorker,
    answer: Answer,
    _on_message: Closure<dyn FnMut(web_sys::MessageEvent)>,
    _on_error: Closure<dyn FnMut(web_sys::ErrorEvent)>,
}

impl FollowWorker {
    fn start() -> Result<FollowWorker, String> {
        let worker = QueuedWorker::start()?;
        let answer: Answer = Rc::default();
        let reply = {
            let answer = answer.clone();
            move |result: Result<Model, String>| {
                if let Some(sender) = answer.borrow_mut().take() {
                    let _ = sender.send(result);
                }
            }
        };
        let reply = Rc::new(reply);
        let on_message = {
            let (worker, reply) = (worker.clone(), reply.clone());
            Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |event: web_sys::MessageEvent| {
                let Ok(envelope) = Envelope::<FromWorker>::decode(event.data()) else { return };
                match envelope.message {
                    FromWorker::Ready => worker.ready(),
                    FromWorker::Followed => {
                        let Some((model, files)) = envelope.buffers.split_first() else {
                            return reply(Err("the worker sent no model".to_owned()));
                        };
                        let bytes = files.iter().map(bytes_of).collect();
                        let decoded = crate::worker::decode_model(&bytes_of(model), bytes);
                        reply(decoded.map(|(corpus, graph)| Model::new(corpus, graph)));
                    }
                    FromWorker::Error { message } => reply(Err(message)),
                    _ => {}
                }
            })
        };
        let on_error = Closure::<dyn FnMut(web_sys::ErrorEvent)>::new(move |event: web_sys::ErrorEvent| {
            event.prevent_default();
            reply(Err(format!("the worker following the session stopped: {}", event.message())));
        });
        worker.worker().set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.worker().set_onerror(Some(on_error.as_ref().unchecked_ref()));
        Ok(FollowWorker { worker, answer, _on_message: on_message, _on_error: on_error })
    }

    /// Posts a request, or queues it until the worker runs.
    fn send(&self, request: Envelope<ToWorker>) {
        if let Ok(encoded) = request.encode() {
            let _ = self.worker.post(encoded);
        }
    }

    async fn snapshot(&self) -> Result<Model, String> {
        let (sender, receiver) = oneshot::channel();
        *self.answer.borrow_mut() = Some(sender);
        self.send(Envelope::new(ToWorker::FollowSnapshot));
        receiver.await.unwrap_or_else(|_| Err("the followed session was closed".to_owned()))
    }
}

impl Drop for FollowWorker {
    fn drop(&mut self) {
        // A message already on its way finds no handler, not the closures dropped here.
        self.worker.stop();
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
    let blob = file
        .slice_with_f64_and_f64(start, end)
        .map_err(|_| GrowError::Unreadable(format!("{path} cannot be sliced")))?;
    let buffer = JsFuture::from(blob.array_buffer())
        .await
        .map_err(|e| GrowError::Unreadable(format!("{path} could not be read: {}", crate::folders::describe(&e))))?;
    Ok(Uint8Array::new(&buffer).to_vec())
}
