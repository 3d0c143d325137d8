//! The session role: a copy of the model the page shows, kept to search it (plain text or
//! regular expressions), to find a search's matches in a row's text, and to scan and write the
//! share dialog's redacted files ([`super::redaction`]). Searches and scans go in steps, with
//! pauses between them that let newer requests in; a newer search or scan stops an older one.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use sessionscope_engine::Corpus;
use sessionscope_engine::dag::Graph;
use sessionscope_engine::search::Query;

use super::redaction::{self, Redactions};
use super::{Failure, Reply};
use crate::platform::schedule;
use crate::wire::codec::decode_model;
use crate::wire::messages::{SessionReply, SessionRequest};
use crate::wire::{FromWorker, Parcel, RequestId, SearchQuery, buffer_of, bytes_of};

/// Entries searched between pauses.
const SEARCH_STEP: usize = 4000;

/// The open session's model, as the page gave it, and what is asked of it.
#[derive(Default)]
pub struct SessionCopy {
    model: RefCell<Option<Rc<(Corpus, Graph)>>>,
    /// The newest search: an older one still running stops.
    newest_search: Cell<Option<RequestId>>,
    redactions: Redactions,
}

impl SessionCopy {
    /// Answers a request of the session role.
    pub async fn answer(
        &self,
        reply: &Reply,
        request: SessionRequest,
        buffers: &[js_sys::ArrayBuffer],
    ) -> Result<(), Failure> {
        match request {
            SessionRequest::Keep => self.keep(buffers),
            SessionRequest::Search { query } => self.search(reply, &query).await,
            SessionRequest::Matches { query, texts } => {
                let query = Query::new(&query.text, query.regex)?;
                let ranges = texts
                    .iter()
                    .map(|text| query.matches(text).into_iter().map(|(s, e)| (s as u32, e as u32)).collect())
                    .collect();
                Ok(reply.send(FromWorker::Session(SessionReply::Matches { ranges }))?)
            }
            SessionRequest::ShareScan { scope, without_agents, options } => {
                let kept = self.kept()?;
                let (corpus, graph) = (&kept.0, &kept.1);
                let progress = |done, total| {
                    let _ = reply.send(FromWorker::Session(SessionReply::ShareProgress { done, total }));
                };
                let id = reply_number(reply);
                let scanned = self
                    .redactions
                    .scan(
                        corpus,
                        graph,
                        id,
                        scope,
                        without_agents,
                        &options,
                        progress,
                        schedule::yield_now,
                        redaction::SLICE_BYTES,
                    )
                    .await
                    .map_err(|error| Failure(error.to_string()))?;
                match scanned {
                    Some(report) => Ok(reply.send(FromWorker::Session(SessionReply::ShareScanned { report }))?),
                    None => Ok(()),
                }
            }
            SessionRequest::ShareWrite { keep, parts, selected, markdown } => {
                let kept = self.kept()?;
                let (header, bytes) = self
                    .redactions
                    .write(&kept.0, &kept.1, &keep, &parts, selected, markdown)
                    .map_err(|error| Failure(error.to_string()))?;
                let written = Parcel::new(FromWorker::Session(SessionReply::ShareWritten { header }))
                    .with_buffers(vec![buffer_of(&bytes)]);
                Ok(reply.post(written)?)
            }
        }
    }

    /// Takes the model and the file bytes of the open session (from the page, which has them).
    fn keep(&self, buffers: &[js_sys::ArrayBuffer]) -> Result<(), Failure> {
        let Some((model, files)) = buffers.split_first() else { return Err("no model to search".into()) };
        let bytes: Vec<Vec<u8>> = files.iter().map(bytes_of).collect();
        let model = decode_model(&bytes_of(model), bytes)?;
        self.model.replace(Some(Rc::new(model)));
        Ok(())
    }

    /// The open session's model, as [`SessionRequest::Keep`] gave it.
    fn kept(&self) -> Result<Rc<(Corpus, Graph)>, Failure> {
        self.model.borrow().clone().ok_or_else(|| "the session's worker holds no session".into())
    }

    /// Searches in steps, posting the hits of each; a newer search stops an older one.
    async fn search(&self, reply: &Reply, query: &SearchQuery) -> Result<(), Failure> {
        let id = reply.id;
        self.newest_search.set(id);
        let query = Query::new(&query.text, query.regex)?;
        let kept = self.kept()?;
        let corpus = &kept.0;
        let entries = corpus.entries.len();
        let mut start = 0;
        loop {
            if self.newest_search.get() != id {
                return Ok(());
            }
            let end = (start + SEARCH_STEP).min(entries);
            let mut hits = Vec::new();
            let count = query.search(corpus, start..end, &mut |h| hits.push(h));
            let done = end >= entries;
            let _ = reply.send(FromWorker::Session(SessionReply::Hits { count, done, hits }));
            if done {
                return Ok(());
            }
            start = end;
            // Let a newer request in.
            schedule::yield_now().await;
        }
    }
}

/// The number of the request a reply answers (0 for one that named none).
fn reply_number(reply: &Reply) -> u64 {
    reply.id.map_or(0, |RequestId(n)| n)
}
