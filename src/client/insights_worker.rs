//! The history's insights worker: one worker of the insights role per history shown, holding
//! every unit's insights and drawing the home's Files, Failures and Activity tabs
//! (`worker::history_insights`). The page forwards each unit's insights to it as they come (their buffer
//! moves, it is not copied) and asks it for tabs; it starts with the history's first unit and
//! goes with the history. The same worker keeps every unit's word index and answers the
//! history's ranked searches (`worker::history_words`).

use std::cell::RefCell;
use std::rc::Rc;

use super::handle::{WorkerError, WorkerHandle};
use super::workers::Workers;
use sessionscope_engine::history_cache::FileStamp;

use crate::wire::insights::{InsightsReply, InsightsRequest};
use crate::wire::word_search::{WordsReply, WordsRequest};
use crate::wire::{FromWorker, Parcel, ToWorker};

/// The insights worker of the history shown, started when first needed. Clones share it.
#[derive(Clone)]
pub struct InsightsWorker {
    workers: Workers,
    current: Rc<RefCell<Option<WorkerHandle>>>,
}

impl InsightsWorker {
    pub fn new(workers: Workers) -> InsightsWorker {
        InsightsWorker { workers, current: Rc::default() }
    }

    /// The worker, started now if there is none.
    fn handle(&self) -> Result<WorkerHandle, WorkerError> {
        if let Some(handle) = self.current.borrow().as_ref().filter(|h| !h.is_stopped()) {
            return Ok(handle.clone());
        }
        let handle = self.workers.spawn().map_err(WorkerError::CannotStart)?;
        *self.current.borrow_mut() = Some(handle.clone());
        Ok(handle)
    }

    /// Whether a worker that held insights stopped by itself (a crash): what it held is lost.
    pub fn lost(&self) -> bool {
        self.current.borrow().as_ref().is_some_and(WorkerHandle::is_stopped)
    }

    /// Gives it unit `unit`'s insights (as the engine encodes them); `None` forgets them.
    pub fn keep(&self, unit: u32, insights: Option<js_sys::ArrayBuffer>) -> Result<(), WorkerError> {
        let parcel = Parcel::new(ToWorker::Insights(InsightsRequest::Keep { unit }));
        self.handle()?.send(parcel.with_buffers(insights.into_iter().collect()))
    }

    /// Gives it a unit's rows and word index (`wire::word_search::searchable_bytes`), made of
    /// files as `read` stamps them; `None` forgets them.
    pub fn keep_words(&self, read: Vec<FileStamp>, words: Option<js_sys::ArrayBuffer>) -> Result<(), WorkerError> {
        let parcel = Parcel::new(ToWorker::Words(WordsRequest::Keep { read }));
        self.handle()?.send(parcel.with_buffers(words.into_iter().collect()))
    }

    /// Gives it the word indexes a remembered folder's cache kept (`wire::word_search::encode_kept`'s
    /// bytes, moved, not copied).
    pub fn restore_words(&self, cached: js_sys::ArrayBuffer) -> Result<(), WorkerError> {
        self.handle()?.send(Parcel::new(ToWorker::Words(WordsRequest::Restore)).with_buffers(vec![cached]))
    }

    /// Asks for the word indexes of the units whose files `units` stamps, as the cache keeps them.
    pub async fn encode_words(&self, units: Vec<Vec<FileStamp>>) -> Result<js_sys::ArrayBuffer, WorkerError> {
        let parcel = self.handle()?.ask(Parcel::new(ToWorker::Words(WordsRequest::Encode { units }))).await?;
        match (parcel.message, parcel.buffers.into_iter().next()) {
            (FromWorker::Words(WordsReply::Encoded), Some(buffer)) => Ok(buffer),
            (FromWorker::Error { message }, _) => Err(WorkerError::Failed(message)),
            _ => Err(WorkerError::Failed("the history worker answered something else".to_owned())),
        }
    }

    /// Asks for a ranked search of the history (a [`WordsRequest::Rank`], with each unit's files
    /// in order) and waits for the answer.
    pub async fn rank(&self, request: WordsRequest, files: Vec<web_sys::File>) -> Result<WordsReply, WorkerError> {
        let parcel = self.handle()?.ask(Parcel::new(ToWorker::Words(request)).with_files(files)).await?;
        match parcel.message {
            FromWorker::Words(reply) => Ok(reply),
            FromWorker::Error { message } => Err(WorkerError::Failed(message)),
            _ => Err(WorkerError::Failed("the history worker answered something else".to_owned())),
        }
    }

    /// Asks it to sum the tabs' reports now (an index pass ended), answering nothing.
    pub fn prepare(&self) -> Result<(), WorkerError> {
        self.handle()?.send(Parcel::new(ToWorker::Insights(InsightsRequest::Prepare)))
    }

    /// Lets the worker go, and every insight it held (another history is shown).
    pub fn release(&self) {
        if let Some(handle) = self.current.borrow_mut().take() {
            handle.stop();
        }
    }

    /// Asks for a tab (or a diff, or the cache's bytes) and waits for the answer, with its
    /// buffers.
    pub async fn ask(
        &self,
        request: InsightsRequest,
    ) -> Result<(InsightsReply, Vec<js_sys::ArrayBuffer>), WorkerError> {
        let parcel = self.handle()?.ask(Parcel::new(ToWorker::Insights(request))).await?;
        match parcel.message {
            FromWorker::Insights(reply) => Ok((reply, parcel.buffers)),
            FromWorker::Error { message } => Err(WorkerError::Failed(message)),
            _ => Err(WorkerError::Failed("the insights worker answered something else".to_owned())),
        }
    }
}
