//! The history's ranked search (issue 52): the query, in the search language, asked of the
//! history worker, which keeps every unit's word index and scores the sessions
//! (`worker::history_words`). Results update as the person types: one question is out at a
//! time, and the latest query typed meanwhile is asked when its answer comes.

use leptos::prelude::*;
use sessionscope_engine::history_cache::FileStamp;
use sessionscope_engine::ranked::Sort;

use super::{HistoryState, stamps_of};
use crate::platform::schedule::now_ms;
use crate::wire::SearchQuery;
use crate::wire::word_search::{UnitToRank, WordsReply, WordsRequest};

/// Sessions a ranked search lists at first, and how many more each "Show more" adds.
pub const RANKED_SHOWN: u32 = 20;

/// A ranked question, as the person asked it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RankedQuery {
    pub text: String,
    pub sort: Sort,
    /// The person's marks (`Marks::to_json`), for `is:starred` and `tag:`.
    pub marks: String,
    /// The sessions to list at most; [`RANKED_SHOWN`] when fewer (a query just typed).
    pub shown: u32,
}

impl RankedQuery {
    /// The sessions this question lists at most.
    pub fn keep(&self) -> u32 {
        self.shown.max(RANKED_SHOWN)
    }

    /// The same question, listing [`RANKED_SHOWN`] more sessions.
    pub fn more(&self) -> RankedQuery {
        RankedQuery { shown: self.keep().saturating_add(RANKED_SHOWN), ..self.clone() }
    }
}

/// The ranked search's part of the history's state.
#[derive(Clone, Copy)]
pub struct RankedSearch {
    pub answer: StoredValue<Option<RankedAnswer>>,
    /// Bumped when the answer changes, or a question goes out.
    pub changed: RwSignal<u64>,
    /// The question out, if one is, and the one to ask once it is answered.
    out: StoredValue<Option<RankedQuery>>,
    next: StoredValue<Option<RankedQuery>>,
    /// When the last question was asked (`now_ms`): following the folder waits while the person
    /// searches.
    pub(super) asked_ms: StoredValue<f64>,
}

impl RankedSearch {
    pub(super) fn new() -> RankedSearch {
        RankedSearch {
            answer: StoredValue::new(None),
            changed: RwSignal::new(0),
            out: StoredValue::new(None),
            next: StoredValue::new(None),
            asked_ms: StoredValue::new(f64::NEG_INFINITY),
        }
    }

    /// Whether a question is out.
    pub fn asking(&self) -> bool {
        self.changed.track();
        self.out.with_value(Option::is_some)
    }
}

/// What the history worker answered a ranked question: the sessions found, drawn, and a
/// sentence about them; or why there are none.
#[derive(Clone, Debug)]
pub struct RankedAnswer {
    pub query: RankedQuery,
    pub found: Result<(String, String), String>,
    /// The query with its last word completed, as the box offers them.
    pub completions: Vec<String>,
    /// The sessions found past those listed.
    pub more: u32,
}

impl HistoryState {
    /// Asks for the sessions that `query` finds, best first (or newest first): now if no question
    /// is out, else once the one out is answered (only the latest asked waits; the very question
    /// out, asked again, as when Search is pressed after typing, is not asked twice).
    pub fn rank(&self, query: RankedQuery) {
        self.ranked.asked_ms.set_value(now_ms());
        if let Some(again) = self.ranked.out.with_value(|out| out.as_ref().map(|out| *out == query)) {
            self.ranked.next.set_value((!again).then_some(query));
            return;
        }
        if query.text.trim().is_empty() {
            self.ranked.answer.set_value(None);
            self.ranked.changed.update(|n| *n += 1);
            return;
        }
        self.ranked.out.set_value(Some(query.clone()));
        self.ranked.changed.update(|n| *n += 1);
        let (units, files) = self.units_to_rank();
        let request = WordsRequest::Rank {
            query: query.text.clone(),
            sort: query.sort,
            keep: query.keep(),
            now_ms: now_ms(),
            marks: query.marks.clone(),
            units,
        };
        let worker = self.insights_worker();
        let state = *self;
        leptos::task::spawn_local(async move {
            let (found, completions, more) = match worker.rank(request, files).await {
                Ok(WordsReply::Ranked { html, status, completions, more }) => (Ok((html, status)), completions, more),
                Ok(WordsReply::QueryError { message, completions }) => {
                    (Err(format!("Not a query the search reads: {message}")), completions, 0)
                }
                Ok(WordsReply::Encoded) => {
                    (Err("The search could not run: the worker answered something else".to_owned()), Vec::new(), 0)
                }
                Err(error) => (Err(format!("The search could not run: {error}")), Vec::new(), 0),
            };
            let answer = RankedAnswer { query, found, completions, more };
            state.ranked.answer.set_value(Some(answer));
            state.ranked.out.set_value(None);
            state.ranked.changed.update(|n| *n += 1);
            if let Some(next) = state.ranked.next.try_update_value(Option::take).flatten() {
                state.rank(next);
            }
        });
    }

    /// Gives the history worker a unit's rows and word index, as its worker sent them with the
    /// unit's index (`IndexedBuffers::words`; only a unit read whole has them).
    pub(super) fn keep_words(&self, read: &[FileStamp], words: Option<js_sys::ArrayBuffer>) {
        if let Err(error) = self.insights_worker().keep_words(read.to_vec(), words) {
            web_sys::console::warn_1(&format!("sessionscope ranked search: {error}").into());
        }
    }

    /// Keeps the units' rows and word indexes for a remembered folder, as the history worker
    /// encodes them (after a whole pass, with the trigram sets).
    pub(super) fn save_words(&self) -> impl Future<Output = ()> + 'static {
        let id = self.remembered_id();
        let units = self.units.with_value(|units| units.iter().map(|unit| stamps_of(&unit.files)).collect());
        let (worker, folders) = (self.insights_worker(), self.folders());
        async move {
            let Some(id) = id else { return };
            let started = now_ms();
            let saved = match worker.encode_words(units).await {
                Ok(buffer) => {
                    let kb = buffer.byte_length() / 1024;
                    folders.save_words(&id, &buffer).await.map(|()| kb).map_err(|e| e.to_string())
                }
                Err(error) => Err(error.to_string()),
            };
            match saved {
                Ok(kb) => web_sys::console::debug_1(
                    &format!(
                        "sessionscope history: rows and word indexes saved, {kb} KB in {:.0} ms",
                        now_ms() - started
                    )
                    .into(),
                ),
                Err(error) => {
                    web_sys::console::warn_1(&format!("sessionscope history: word indexes not saved: {error}").into())
                }
            }
        }
    }

    /// Forgets the ranked search's answer (the box was emptied, or another history is shown).
    pub fn clear_ranked(&self) {
        self.ranked.next.set_value(None);
        self.ranked.answer.set_value(None);
        self.ranked.changed.update(|n| *n += 1);
    }

    /// Every unit as a ranked search is told of it, and their files, unit after unit.
    fn units_to_rank(&self) -> (Vec<UnitToRank>, Vec<web_sys::File>) {
        self.units.with_value(|units| {
            let mut files = Vec::new();
            let listed = units
                .iter()
                .map(|unit| {
                    files.extend(unit.files.iter().map(|f| f.file.clone()));
                    UnitToRank {
                        folder: unit.folder.clone(),
                        paths: unit.files.iter().map(|f| f.path.clone()).collect(),
                        read: stamps_of(&unit.files),
                    }
                })
                .collect();
            (listed, files)
        })
    }

    /// Opens a session the ranked search found (`unit`, and the session's id), at message
    /// `entry` if one is given, with `words` searched in it (so they are marked there).
    pub fn open_ranked(&self, unit: u32, session: &str, entry: &str, words: &str) {
        let known = self.rows.with_value(|rows| rows.iter().any(|r| r.unit == unit && r.row.session_id == session));
        if known && !words.trim().is_empty() {
            self.loading.search_on_open.set_value(Some(SearchQuery::new(words, false)));
        }
        self.open_place(unit, session, entry);
    }
}
