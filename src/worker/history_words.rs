//! The words role: every unit's rows and word index of the history shown, as the units' workers
//! made them while indexing, and the ranked search of the history over them (issue 52). The page forwards
//! each unit's index here untouched and asks for ranked results; the engine's search
//! ([`sessionscope_engine::ranked`]) counts a unit from its index when the index answers the
//! query, and reads the unit's files here otherwise (the browser reads them synchronously, as a
//! worker may), as it reads the lines the snippets are cut from.

use std::cell::RefCell;
use std::collections::HashMap;

use sessionscope_engine::Loader;
use sessionscope_engine::dag::Graph;
use sessionscope_engine::history::SessionRow;
use sessionscope_engine::history_cache::FileStamp;
use sessionscope_engine::marks::Marks;
use sessionscope_engine::model::Corpus;
use sessionscope_engine::query::{Filter, Flag, KnownValues, Parsed, completions};
use sessionscope_engine::rank::row_passes;
use sessionscope_engine::ranked::{self, InOrder, RankUnit};
use sessionscope_engine::trigrams::TrigramSet;
use sessionscope_engine::word_index::UnitWords;

use super::{Failure, Reply};
use crate::wire::limits::{HOLD_MAX_BYTES, left_out_why};
use crate::wire::word_search::{
    UnitToRank, WordsReply, WordsRequest, decode_kept, encode_kept, read_searchable, searchable_bytes,
};
use crate::wire::{FromWorker, Parcel, bytes_of};

/// Bytes read at a time for a snippet's line, doubled until the line ends.
const LINE_SLICE: f64 = 16.0 * 1024.0;

/// Completions the box offers at most.
const COMPLETIONS: usize = 12;

/// The longest line a snippet is cut from.
const LINE_MAX: f64 = 64.0 * 1024.0 * 1024.0;

/// The history's word indexes, unit by unit, each with the stamps of the files it was made of.
#[derive(Default)]
pub struct HistoryWords {
    /// By the path of the unit's first file (a unit's files are found again by their stamps).
    units: RefCell<HashMap<String, KeptWords>>,
    /// The filters' values the kept units know, for completions: made when first asked, again
    /// once a unit changes.
    known: RefCell<Option<KnownValues>>,
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
            WordsRequest::Keep { read } => {
                self.known.replace(None);
                let Some(first) = read.first().map(|stamp| stamp.path.clone()) else { return Ok(()) };
                match buffers.first() {
                    Some(buffer) => {
                        let kept = KeptWords::read(read, &bytes_of(buffer))
                            .ok_or_else(|| Failure::from("a unit's word index could not be read"))?;
                        self.units.borrow_mut().insert(first, kept);
                    }
                    None => {
                        self.units.borrow_mut().remove(&first);
                    }
                }
                Ok(())
            }
            WordsRequest::Restore => {
                self.known.replace(None);
                let bytes = buffers.first().map(bytes_of).unwrap_or_default();
                let mut units = self.units.borrow_mut();
                for (read, part) in decode_kept(&bytes).unwrap_or_default() {
                    // A unit indexed meanwhile keeps what its worker sent.
                    if let Some(first) = read.first().map(|stamp| stamp.path.clone())
                        && !units.contains_key(&first)
                        && let Some(kept) = KeptWords::read(read, part)
                    {
                        units.insert(first, kept);
                    }
                }
                Ok(())
            }
            WordsRequest::Encode { units } => {
                let kept = self.units.borrow();
                let parts: Vec<(&[FileStamp], Vec<u8>)> = units
                    .iter()
                    .filter_map(|read| {
                        let kept = kept.get(&read.first()?.path).filter(|kept| kept.read == *read)?;
                        Some((kept.read.as_slice(), searchable_bytes(&kept.rows, &kept.words)))
                    })
                    .collect();
                let bytes = encode_kept(parts.iter().map(|(read, bytes)| (*read, bytes.as_slice())));
                let buffer = js_sys::Uint8Array::from(&bytes[..]).buffer();
                Ok(reply.post(Parcel::new(FromWorker::Words(WordsReply::Encoded)).with_buffers(vec![buffer]))?)
            }
            WordsRequest::Rank { query, sort, keep, now_ms, marks, units } => {
                let started = js_sys::Date::now();
                let marks = Marks::from_json(&marks).unwrap_or_default();
                let completions = self.completions(&query, &marks);
                let parsed = match Parsed::parse_typed(&query, now_ms as i64) {
                    Ok(parsed) => parsed,
                    Err(error) => {
                        let message = error.to_string();
                        return Ok(reply.send(FromWorker::Words(WordsReply::QueryError { message, completions }))?);
                    }
                };
                let kept = self.units.borrow();
                let mut offset = 0;
                let mut listed = Vec::with_capacity(units.len());
                for unit in &units {
                    let end = (offset + unit.paths.len()).min(files.len());
                    let unit_files = files.get(offset..end).unwrap_or_default();
                    offset = end;
                    let kept =
                        unit.read.first().and_then(|first| kept.get(&first.path)).filter(|kept| kept.read == unit.read);
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
                web_sys::console::debug_1(
                    &format!(
                        "sessionscope words worker: {} units, {indexed} with a word index, ranked in {:.0} ms; its memory {:.1} MB",
                        listed.len(),
                        js_sys::Date::now() - started,
                        crate::platform::page::page_memory_bytes() / 1e6
                    )
                    .into(),
                );
                let more = ranked.total.saturating_sub(ranked.results.len()) as u32;
                let drawn = WordsReply::Ranked { html, status, completions, more };
                Ok(reply.send(FromWorker::Words(drawn))?)
            }
        }
    }
}

impl HistoryWords {
    /// The query with its last word completed, from the values the kept units know and the
    /// person's tags.
    fn completions(&self, query: &str, marks: &Marks) -> Vec<String> {
        let mut known = self.known.borrow_mut();
        let known = known.get_or_insert_with(|| {
            let mut values = KnownValues::default();
            let add = |list: &mut Vec<String>, value: &str| {
                if !value.is_empty() && !list.iter().any(|known| known == value) {
                    list.push(value.to_owned());
                }
            };
            for kept in self.units.borrow().values() {
                for row in &kept.rows {
                    let agent = row.agent.split_whitespace().next().unwrap_or_default().to_lowercase();
                    add(&mut values.agents, &agent);
                    add(&mut values.projects, super::draw::short_project(&row.project));
                    for model in &row.models {
                        add(&mut values.models, model);
                    }
                }
                for session in kept.words.sessions() {
                    for tool in session.tools() {
                        add(&mut values.tools, tool);
                    }
                }
            }
            for list in [&mut values.agents, &mut values.projects, &mut values.models, &mut values.tools] {
                list.sort_unstable();
            }
            values
        });
        known.tags = marks.tags().into_iter().map(|(tag, _)| tag).collect();
        completions(query, known, COMPLETIONS)
    }
}

impl KeptWords {
    /// A unit's rows and word index from their bytes ([`searchable_bytes`]), made of the files
    /// `read` stamps.
    fn read(read: Vec<FileStamp>, bytes: &[u8]) -> Option<KeptWords> {
        let (rows, words) = read_searchable(bytes)?;
        Some(KeptWords { read, rows, words })
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
            if let Some(at) = bytes.iter().position(|&byte| byte == b'\n') {
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
