//! What runs inside a worker (`src/bin/worker.rs`): one program that the page gives one role at
//! a time (`wire::messages`). It reads and parses dropped files off the main thread, builds the
//! graph and posts back the serialised model as a transferred buffer (the page reads the same
//! files' bytes itself meanwhile, so they never cross between threads), so the page stays
//! responsive whatever the size, and Cancel is `worker.terminate()`. The same program keeps the
//! open session's model to search and share it ([`session`]): their code (regular expressions,
//! the redaction's detectors) is not in the page's download. It indexes and searches a history
//! unit by unit ([`history_units`]), keeps a history's insights and draws its home's Files,
//! Failures and Activity tabs ([`history_insights`], [`draw`]), opens agents' databases ([`sqlite`]),
//! follows a session as it grows ([`follow`]), and warms up while it waits for a role
//! ([`warm_up`]).
//!
//! Every request is answered under its id ([`Reply`]); one that fails, or cannot be read, is
//! answered [`FromWorker::Error`] with the reason.

pub mod draw;
pub mod follow;
pub mod history_insights;
pub mod history_units;
pub mod history_words;
pub mod load;
pub mod readers;
pub mod redaction;
pub mod session;
pub mod sqlite;
pub mod warm_up;

use std::rc::Rc;

use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

use crate::wire::codec::CodecError;
use crate::wire::messages::WarmUpRequest;
use crate::wire::{FromWorker, Parcel, RequestId, ToWorker, WireError};

/// Why a request failed, in words for the user: what [`FromWorker::Error`] carries to the page,
/// which shows it and never reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure(pub String);

impl From<String> for Failure {
    fn from(message: String) -> Failure {
        Failure(message)
    }
}

impl From<&str> for Failure {
    fn from(message: &str) -> Failure {
        Failure(message.to_owned())
    }
}

impl From<WireError> for Failure {
    fn from(error: WireError) -> Failure {
        Failure(error.to_string())
    }
}

impl From<CodecError> for Failure {
    fn from(error: CodecError) -> Failure {
        Failure(error.to_string())
    }
}

impl From<crate::platform::errors::ReadError> for Failure {
    fn from(error: crate::platform::errors::ReadError) -> Failure {
        Failure(error.to_string())
    }
}

/// The way back to the page for one request: every reply it posts names the request.
pub struct Reply {
    scope: web_sys::DedicatedWorkerGlobalScope,
    id: Option<RequestId>,
}

impl Reply {
    /// Posts a message that has nothing beside it.
    pub fn send(&self, message: FromWorker) -> Result<(), WireError> {
        self.post(Parcel::new(message))
    }

    /// Posts a parcel (its buffers transferred).
    pub fn post(&self, parcel: Parcel<FromWorker>) -> Result<(), WireError> {
        parcel.answering(self.id).encode()?.post_to(&self.scope)
    }

    /// Says the request failed.
    pub fn fail(&self, failure: Failure) {
        let _ = self.send(FromWorker::Error { message: failure.0 });
    }
}

/// What the worker keeps between requests, each role its own part. It lives as long as the
/// worker: the message handler (a browser callback) holds it.
#[derive(Default)]
struct Kept {
    warm_up: warm_up::WarmUp,
    session: session::SessionCopy,
    follow: follow::Followed,
    insights: history_insights::HistoryInsights,
    words: history_words::HistoryWords,
}

/// The worker's entry point (called by `src/bin/worker.rs`).
pub fn start() {
    console_error_panic_hook::set_once();
    let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let kept = Rc::new(Kept::default());
    let handler = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |event: web_sys::MessageEvent| {
        let data = event.data();
        let kept = kept.clone();
        wasm_bindgen_futures::spawn_local(async move {
            let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
            let id = crate::wire::parcel::id_of(&data);
            let reply = Reply { scope, id };
            match Parcel::<ToWorker>::decode(data) {
                Ok(request) => {
                    if let Err(failure) = dispatch(&kept, &reply, request).await {
                        reply.fail(failure);
                    }
                }
                Err(error) => reply.fail(error.into()),
            }
        });
    });
    scope.set_onmessage(Some(handler.as_ref().unchecked_ref()));
    handler.forget();
    // Messages posted before the wasm was ready were dispatched to no handler: the page holds
    // its requests until it hears this.
    let _ = Reply { scope, id: None }.send(FromWorker::Ready);
}

/// Does what the page asked, in the role the request names.
async fn dispatch(kept: &Kept, reply: &Reply, request: Parcel<ToWorker>) -> Result<(), Failure> {
    let Parcel { message, files, buffers, .. } = request;
    // A warm-up still running stops for any other role's work.
    if !matches!(message, ToWorker::WarmUp(_)) {
        kept.warm_up.stop();
    }
    match message {
        ToWorker::WarmUp(WarmUpRequest::Start) => {
            kept.warm_up.run().await;
            Ok(())
        }
        ToWorker::WarmUp(WarmUpRequest::Rest { ms }) => {
            kept.warm_up.rest(ms);
            Ok(())
        }
        ToWorker::Load(load) => load::load(reply, &load, &files, &buffers).await,
        ToWorker::Session(request) => kept.session.answer(reply, request, &buffers, &files).await,
        ToWorker::Unit(request) => history_units::answer(reply, request, &files).await,
        ToWorker::Database(request) => sqlite::answer(reply, &request, &files).await,
        ToWorker::Follow(request) => kept.follow.answer(reply, request, &buffers),
        ToWorker::Insights(request) => kept.insights.answer(reply, request, &buffers),
        ToWorker::Words(request) => kept.words.answer(reply, request, &buffers, &files),
    }
}
