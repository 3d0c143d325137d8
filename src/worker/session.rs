//! The session role: a copy of the model the page shows, kept to search it (plain text or
//! regular expressions), to find a search's matches in a row's text, and to scan and write the
//! share dialog's redacted files ([`super::redaction`]). Searches and scans go in steps, with
//! pauses between them that let newer requests in; a newer search or scan stops an older one.
//! A big session's copy holds no bytes: a search reads, for each step, the windows of its files
//! that the step's entries are in, and a share reads the files whole first.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use sessionscope_engine::Corpus;
use sessionscope_engine::dag::Graph;
use sessionscope_engine::search::{Query, Windows, searched_extents};

use super::redaction::{self, Redactions};
use super::{Failure, Reply};
use crate::platform::byte_stream::{PieceError, read_all};
use crate::platform::errors::ReadError;
use crate::platform::{files, schedule};
use crate::wire::codec::model_from_buffer;
use crate::wire::messages::{SessionReply, SessionRequest};
use crate::wire::{FromWorker, Parcel, RequestId, SearchQuery, buffer_of, bytes_of};

/// Entries searched between pauses.
const SEARCH_STEP: usize = 4000;

/// The open session's model, as the page gave it, and what is asked of it.
#[derive(Default)]
pub struct SessionCopy {
    model: RefCell<Option<Rc<(Corpus, Graph)>>>,
    /// For each file of a big session's model, the file to read its bytes from and how many of
    /// them the page holds; `None` for a file whose bytes the model holds.
    sources: RefCell<Rc<Sources>>,
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
        files: &[web_sys::File],
    ) -> Result<(), Failure> {
        match request {
            SessionRequest::Keep { read_from_files } => self.keep(buffers, files, &read_from_files),
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
                let kept = self.whole().await?;
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
                let kept = self.whole().await?;
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

    /// Takes the model of the open session and the bytes of its files (from the page, which has
    /// them), or for a big session's files the files to read them from.
    fn keep(
        &self,
        buffers: &[js_sys::ArrayBuffer],
        files: &[web_sys::File],
        read_from_files: &[Option<f64>],
    ) -> Result<(), Failure> {
        let Some((model, mut given)) = buffers.split_first() else { return Err("no model to search".into()) };
        let mut files = files.iter();
        let mut bytes = Vec::with_capacity(read_from_files.len());
        let mut sources = Vec::with_capacity(read_from_files.len());
        for held in read_from_files {
            match held {
                Some(held) => {
                    let file = files.next().ok_or("a file to read the session from is missing")?;
                    sources.push(Some((file.clone(), *held)));
                    bytes.push(Vec::new());
                }
                None => {
                    let (buffer, rest) = given.split_first().ok_or("the bytes of a file are missing")?;
                    given = rest;
                    sources.push(None);
                    bytes.push(bytes_of(buffer));
                }
            }
        }
        let encoded = model.byte_length();
        let before = crate::platform::page::page_memory_bytes();
        let model = model_from_buffer(model, bytes)?;
        let message = format!(
            "sessionscope session: model of {} kept ({} of its files read from disk); the worker's memory {} before, {} after",
            sessionscope_engine::units::human_bytes(u64::from(encoded)),
            sources.iter().flatten().count(),
            sessionscope_engine::units::human_bytes(before as u64),
            sessionscope_engine::units::human_bytes(crate::platform::page::page_memory_bytes() as u64),
        );
        web_sys::console::debug_1(&message.into());
        self.model.replace(Some(Rc::new(model)));
        self.sources.replace(Rc::new(sources));
        Ok(())
    }

    /// The open session's model with every file's bytes: a big session's files are read whole
    /// now (to share it), once, and its graph built.
    async fn whole(&self) -> Result<Rc<(Corpus, Graph)>, Failure> {
        let sources = self.sources.borrow().clone();
        if sources.iter().all(Option::is_none) {
            return self.kept();
        }
        let mut read = Vec::new();
        for (file, source) in sources.iter().enumerate() {
            if let Some((blob, held)) = source {
                let bytes = read_all(blob, *held, |_| true)
                    .await
                    .map_err(|error| Failure(format!("{} {error}", blob.name())))?;
                read.push((file, bytes.unwrap_or_default()));
            }
        }
        // The model may be taken by a search still running: then this one is a copy.
        let kept = self.model.borrow_mut().take().ok_or("the session's worker holds no session")?;
        let (mut corpus, _) = Rc::try_unwrap(kept).unwrap_or_else(|shared| (*shared).clone());
        for (file, bytes) in read {
            if let Some(slot) = corpus.bytes.get_mut(file) {
                *slot = bytes;
            }
        }
        // Such a model came without its graph (`SessionRequest::Keep`).
        let graph = Graph::build(&corpus);
        let whole = Rc::new((corpus, graph));
        self.model.replace(Some(whole.clone()));
        self.sources.replace(Rc::default());
        Ok(whole)
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
        let sources = self.sources.borrow().clone();
        let corpus = &kept.0;
        let entries = corpus.entries.len();
        let mut start = 0;
        loop {
            if self.newest_search.get() != id {
                return Ok(());
            }
            let end = (start + SEARCH_STEP).min(entries);
            let windows = read_windows(corpus, &sources, start..end).await?;
            let mut hits = Vec::new();
            let count = query.search_in(corpus, &windows, start..end, &mut |h| hits.push(h));
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

/// For each file of a model, the file to read its bytes from and how many the page holds, or
/// `None` when the model holds them.
type Sources = Vec<Option<(web_sys::File, f64)>>;

/// The windows of a big session's files that a search of entries `range` reads: each read now
/// from its file, the bytes of one step only.
async fn read_windows(corpus: &Corpus, sources: &Sources, range: std::ops::Range<usize>) -> Result<Windows, Failure> {
    let mut windows = Windows::none();
    if sources.iter().all(Option::is_none) {
        return Ok(windows);
    }
    windows.files.resize(corpus.files.len(), None);
    for (file, from, to) in searched_extents(corpus, range) {
        let Some(Some((blob, held))) = sources.get(file as usize) else { continue };
        let to = (to as f64).min(*held);
        let failed = |error: &dyn std::fmt::Display| Failure(format!("{} {error}", blob.name()));
        // As a byte stream into wasm memory: a read of a window makes no buffer of its size for
        // the garbage collector, which in an idle worker might keep hundreds of them for a while.
        let window = blob.slice_with_f64_and_f64(from as f64, to).map_err(|error| failed(&ReadError::from(&error)))?;
        let bytes = match read_all(&window, to - from as f64, |_| true).await {
            Ok(bytes) => bytes.unwrap_or_default(),
            Err(PieceError::NoByteStreams) => {
                files::read_range(blob, from as f64, to).await.map_err(|error| failed(&error))?
            }
            Err(error) => return Err(failed(&error)),
        };
        windows.files[file as usize] = Some((from, bytes));
    }
    Ok(windows)
}

/// The number of the request a reply answers (0 for one that named none).
fn reply_number(reply: &Reply) -> u64 {
    reply.id.map_or(0, |RequestId(n)| n)
}
