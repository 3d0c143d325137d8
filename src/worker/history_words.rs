//! The words role: every unit's rows and word index of the history shown, as the units' workers
//! made them while indexing, and the ranked search of the history over them (issue 52). The page forwards
//! each unit's index here untouched and asks for ranked results; the engine's search
//! ([`sessionscope_engine::ranked`]) counts a unit from its index when the index answers the
//! query, and reads the unit's files here otherwise (the browser reads them synchronously, as a
//! worker may), as it reads the lines the snippets are cut from.

use std::cell::RefCell;

use sessionscope_engine::Loader;
use sessionscope_engine::dag::Graph;
use sessionscope_engine::history::SessionRow;
use sessionscope_engine::history_cache::FileStamp;
use sessionscope_engine::marks::Marks;
use sessionscope_engine::model::Corpus;
use sessionscope_engine::query::{Filter, Flag, Parsed};
use sessionscope_engine::rank::row_passes;
use sessionscope_engine::ranked::{self, InOrder, RankUnit};
use sessionscope_engine::trigrams::TrigramSet;
use sessionscope_engine::word_index::UnitWords;

use super::{Failure, Reply};
use crate::wire::limits::{HOLD_MAX_BYTES, left_out_why};
use crate::wire::word_search::{UnitToRank, WordsReply, WordsRequest, read_searchable};
use crate::wire::{FromWorker, bytes_of};

/// Bytes read at a time for a snippet's line, doubled until the line ends.
const LINE_SLICE: f64 = 16.0 * 1024.0;

/// The longest line a snippet is cut from.
const LINE_MAX: f64 = 64.0 * 1024.0 * 1024.0;

/// The history's word indexes, unit by unit, each with the stamps of the files it was made of.
#[derive(Default)]
pub struct HistoryWords {
    units: RefCell<Vec<Option<KeptWords>>>,
}

/// A unit's rows and word index, and the stamps of the files they were made of: it answers for the unit only
/// while the unit's files are still those.
struct KeptWords {
    read: Vec<FileStamp>,
    rows: Vec<SessionRow>,
    words: UnitWords,
}

impl HistoryWords {
    pub fn answer(
        &self,
        reply: &Reply,
        request: WordsRequest,
        buffers: &[js_sys::ArrayBuffer],
        files: &[web_sys::File],
    ) -> Result<(), Failure> {
        match request {
            WordsRequest::Keep { unit, read } => {
                let searchable = match buffers.first() {
                    Some(buffer) => Some(
                        read_searchable(bytes_of(buffer))
                            .ok_or_else(|| Failure::from("a unit's word index could not be read"))?,
                    ),
                    None => None,
                };
                let mut units = self.units.borrow_mut();
                let at = unit as usize;
                if units.len() <= at {
                    units.resize_with(at + 1, || None);
                }
                units[at] = searchable.map(|(rows, words)| KeptWords { read, rows, words });
                Ok(())
            }
            WordsRequest::Clear => {
                self.units.replace(Vec::new());
                Ok(())
            }
            WordsRequest::Rank { query, sort, keep, now_ms, marks, units } => {
                let started = js_sys::Date::now();
                let parsed = match Parsed::parse(&query, now_ms as i64) {
                    Ok(parsed) => parsed,
                    Err(error) => {
                        let message = error.to_string();
                        return Ok(reply.send(FromWorker::Words(WordsReply::QueryError { message }))?);
                    }
                };
                let marks = Marks::from_json(&marks).unwrap_or_default();
                let kept = self.units.borrow();
                let mut offset = 0;
                let mut listed = Vec::with_capacity(units.len());
                for (at, unit) in units.iter().enumerate() {
                    let end = (offset + unit.paths.len()).min(files.len());
                    let unit_files = files.get(offset..end).unwrap_or_default();
                    offset = end;
                    let kept = kept
                        .get(at)
                        .and_then(Option::as_ref)
                        .filter(|kept| !kept.read.is_empty() && kept.read == unit.read);
                    listed.push(InWorker { unit, kept, files: unit_files });
                }
                let indexed = listed.iter().filter(|unit| unit.kept.is_some()).count();
                let passes = |row: &SessionRow| {
                    row_passes(&parsed, row, |filter| match filter {
                        Filter::Is(Flag::Starred) => marks.starred(&row.session_id),
                        Filter::Tag(tag) => marks.has_tag(&row.session_id, tag),
                        _ => false,
                    })
                };
                let ranked = ranked::search(&listed, &parsed, &passes, sort, keep as usize, false, &InOrder);
                let units: Vec<u32> = ranked.results.iter().map(|session| session.unit as u32).collect();
                let html = super::draw::ranked_html::html(&ranked.results, &units);
                let status = super::draw::ranked_html::status(&ranked, listed.len() - indexed, started);
                let drawn = WordsReply::Ranked { html, status };
                Ok(reply.send(FromWorker::Words(drawn))?)
            }
        }
    }
}

/// A unit as the page listed it, with its files and the word index kept for them.
struct InWorker<'a> {
    unit: &'a UnitToRank,
    /// Its rows and word index, if made of these very files.
    kept: Option<&'a KeptWords>,
    files: &'a [web_sys::File],
}

impl InWorker<'_> {
    fn file_named(&self, name: &str) -> Option<&web_sys::File> {
        self.files.get(self.file_order(name)?)
    }
}

impl RankUnit for InWorker<'_> {
    fn rows(&self) -> Option<&[SessionRow]> {
        self.kept.map(|kept| kept.rows.as_slice())
    }

    fn folder(&self) -> &str {
        &self.unit.folder
    }

    fn words(&self) -> Option<&UnitWords> {
        self.kept.map(|kept| &kept.words)
    }

    fn trigrams(&self) -> Option<&TrigramSet> {
        None
    }

    fn read(&self) -> (Corpus, Graph) {
        let mut loader = Loader::new();
        loader.hold_at_most(HOLD_MAX_BYTES, left_out_why());
        let reader = web_sys::FileReaderSync::new().ok();
        for (path, file) in self.unit.paths.iter().zip(self.files) {
            let bytes = reader.as_ref().and_then(|reader| reader.read_as_array_buffer(file).ok());
            // A file that cannot be read now is left out; the rest of the unit still counts.
            if let Some(bytes) = bytes {
                loader.add_vec(path, bytes_of(&bytes));
            }
        }
        let corpus = loader.finish();
        let graph = Graph::build(&corpus);
        (corpus, graph)
    }

    fn file_order(&self, name: &str) -> Option<usize> {
        self.unit.paths.iter().position(|path| path == name)
    }

    fn line(&self, name: &str, start: u64) -> Option<Vec<u8>> {
        let file = self.file_named(name)?;
        let reader = web_sys::FileReaderSync::new().ok()?;
        let start = start as f64;
        let mut length = LINE_SLICE;
        loop {
            let end = (start + length).min(file.size());
            let slice = file.slice_with_f64_and_f64(start, end).ok()?;
            let bytes = bytes_of(&reader.read_as_array_buffer(&slice).ok()?);
            if let Some(at) = memchr_newline(&bytes) {
                return Some(bytes[..=at].to_vec());
            }
            if end >= file.size() {
                return Some(bytes);
            }
            if length >= LINE_MAX {
                return None;
            }
            length *= 2.0;
        }
    }
}

/// Where the first line feed is.
fn memchr_newline(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|&b| b == b'\n')
}
