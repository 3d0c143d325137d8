//! The follow role: a followed session's loader, kept between requests, so that when its files
//! grow only the bytes they grew by are parsed; the model answered is a snapshot of the loader
//! ([`sessionscope_engine::Loader::snapshot`]), a last line still being written waiting for its
//! newline.

use std::cell::RefCell;

use sessionscope_engine::Loader;
use sessionscope_engine::dag::Graph;
use sessionscope_engine::model::FileId;

use super::{Failure, Reply};
use crate::wire::codec::model_buffer;
use crate::wire::messages::{FollowReply, FollowRequest};
use crate::wire::{FromWorker, Parcel, buffer_of, bytes_of};

/// The session a worker follows: its loader, and the loader's id of each file in the order the
/// page added them.
#[derive(Default)]
pub struct Followed {
    session: RefCell<Session>,
}

#[derive(Default)]
struct Session {
    loader: Loader,
    files: Vec<FileId>,
}

impl Followed {
    /// Answers a request of the follow role. These answer at once, with no pause: requests are
    /// handled in the order posted.
    pub fn answer(
        &self,
        reply: &Reply,
        request: FollowRequest,
        buffers: &[js_sys::ArrayBuffer],
    ) -> Result<(), Failure> {
        let mut session = self.session.borrow_mut();
        match request {
            FollowRequest::Add { path, size } => {
                let id = session.loader.add_file(&path, size.max(0.0) as u64);
                session.files.push(id);
                Ok(())
            }
            FollowRequest::Push { file } => {
                let bytes = buffers.first().map(bytes_of).unwrap_or_default();
                let Some(&id) = session.files.get(file as usize) else {
                    return Err(format!("no followed file {file}").into());
                };
                session.loader.push(id, &bytes);
                Ok(())
            }
            FollowRequest::Snapshot => {
                let corpus = session.loader.snapshot();
                drop(session);
                let graph = Graph::build(&corpus);
                let model = model_buffer(&corpus, &graph)?;
                let buffers = std::iter::once(model).chain(corpus.bytes.iter().map(|b| buffer_of(b))).collect();
                let snapshot = Parcel::new(FromWorker::Follow(FollowReply::Snapshot)).with_buffers(buffers);
                reply.post(snapshot).map_err(|_| "the followed session could not be sent".into())
            }
        }
    }
}
