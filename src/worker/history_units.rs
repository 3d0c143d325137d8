//! The unit role: one session unit of a history at a time, read file by file and let go. Indexed,
//! it answers the unit's rows, its files that hold no session, its insights, its trigram set and its word index;
//! searched, it answers the unit's hits, parsing only what may hold the query's text; asked for
//! the texts of changes to a file, it reads the unit again for them.

use std::collections::VecDeque;

use sessionscope_engine::dag::Graph;
use sessionscope_engine::history::{FileProblem, HITS_PER_UNIT, UnitIndex, UnitSearch};
use sessionscope_engine::insights::UnitInsights;
use sessionscope_engine::search::Query;
use sessionscope_engine::{Corpus, Loader};

use super::readers::{FileReader, SliceReader};
use super::{Failure, Reply, draw};
use crate::platform::byte_stream::{ByteStream, PieceError, STREAM_ABOVE_BYTES};
use crate::platform::files::stamp_of;
use crate::wire::insights::ChangeDiff;
use crate::wire::limits::{HOLD_MAX_BYTES, left_out_why};
use crate::wire::messages::{IndexedBuffers, UnitReply, UnitRequest};
use crate::wire::{FromWorker, Parcel, SearchQuery, buffer_of};

/// Files of a unit whose reading is asked for ahead of the one being searched.
const FILES_AHEAD: usize = 4;

/// Answers a request of the unit role. A unit's failure is answered as the unit's: an index that
/// fails lists the unit's files as not read, a search that fails has no hits.
pub async fn answer(reply: &Reply, request: UnitRequest, files: &[web_sys::File]) -> Result<(), Failure> {
    match request {
        UnitRequest::Index { folder, paths } => match index_unit(reply, &folder, &paths, files).await {
            Err(Failure(reason)) => {
                let problems = vec![FileProblem { path: paths.join(", "), reason }];
                let index = UnitIndex { rows: Vec::new(), problems };
                let indexed = UnitReply::Indexed { index, bytes: 0.0, read: Vec::new(), insights: false };
                Ok(reply.send(FromWorker::Unit(indexed))?)
            }
            done => done,
        },
        UnitRequest::ChangeDiffs { paths, entries, file } => {
            // A unit that cannot be read again has no diffs to give: its changes keep their
            // counts.
            let diffs = match read_unit(&paths, files).await {
                Ok((corpus, _, _)) => {
                    let graph = Graph::build(&corpus);
                    let texts = sessionscope_engine::insights::change_texts(&corpus, &graph, &entries, &file);
                    let mut diffs: Vec<ChangeDiff> = Vec::new();
                    for text in texts {
                        let html = if text.hunks.is_empty() {
                            String::new()
                        } else {
                            draw::diff_html::edits_html(&text.hunks)
                        };
                        match diffs.iter_mut().find(|d| d.entry == text.entry) {
                            Some(diff) => diff.html.push_str(&html),
                            None => diffs.push(ChangeDiff { entry: text.entry, html }),
                        }
                    }
                    diffs
                }
                Err(_) => Vec::new(),
            };
            Ok(reply.send(FromWorker::Unit(UnitReply::ChangeDiffs { diffs }))?)
        }
        UnitRequest::Search { paths, query } => {
            let searched = match Query::new(&query.text, query.regex) {
                Err(error) => Err(Some(error)),
                Ok(_) => search_unit(reply, &paths, files, &query).await.map_err(|_| None),
            };
            match searched {
                Err(query_error) => {
                    let hits = UnitReply::Hits { hits: Vec::new(), count: 0, complete: false, bytes: 0.0, query_error };
                    Ok(reply.send(FromWorker::Unit(hits))?)
                }
                Ok(()) => Ok(()),
            }
        }
    }
}

/// What reading a unit took: its bytes, and the time spent waiting for the browser to read them.
#[derive(Default)]
struct ReadFigures {
    bytes: f64,
    waiting_ms: f64,
}

/// The paths of a request and its files, one for one.
fn check_paths(paths: &[String], files: &[web_sys::File]) -> Result<(), Failure> {
    if paths.len() != files.len() {
        return Err(format!("the request names {} path(s) for {} file(s)", paths.len(), files.len()).into());
    }
    Ok(())
}

/// Reads a unit's files into one corpus, file by file, each file's bytes let go once parsed.
/// Files that cannot be read are answered apart, with their reasons.
async fn read_unit(
    paths: &[String],
    files: &[web_sys::File],
) -> Result<(Corpus, Vec<FileProblem>, ReadFigures), Failure> {
    check_paths(paths, files)?;
    let mut loader = Loader::new();
    loader.hold_at_most(HOLD_MAX_BYTES, left_out_why());
    let mut problems = Vec::new();
    let mut figures = ReadFigures::default();
    // Every small file is asked for at once: a unit is often many small files, and each read is
    // a round trip to the browser. A big file is read as a stream when its turn comes.
    let mut small = files
        .iter()
        .map(|file| if file.size() > STREAM_ABOVE_BYTES { Ok(None) } else { SliceReader::start(file).map(Some) })
        .collect::<Result<Vec<_>, _>>()?;
    for ((path, file), small) in paths.iter().zip(files).zip(small.iter_mut()) {
        let id = loader.add_file(path, file.size() as u64);
        let mut reader = match small.take() {
            Some(reader) => FileReader::Slices(reader),
            None => ByteStream::start(file).map_or_else(|reason| FileReader::Failed(Some(reason)), FileReader::Stream),
        };
        // Piece by piece, so a unit never holds a file's bytes twice.
        loop {
            let asked = js_sys::Date::now();
            let Some(slice) = reader.next().await else { break };
            figures.waiting_ms += js_sys::Date::now() - asked;
            match slice {
                Ok(chunk) => {
                    let len = chunk.length() as usize;
                    figures.bytes += len as f64;
                    loader.push_with(id, len, |room| chunk.copy_to_uninit(room));
                }
                Err(reason) => {
                    let reason = if reader.offset() > 0.0 {
                        format!("{reason}; only its first {} bytes were read", reader.offset())
                    } else {
                        reason.to_string()
                    };
                    problems.push(FileProblem { path: path.clone(), reason });
                    break;
                }
            }
        }
        loader.finish_file(id);
    }
    Ok((loader.finish(), problems, figures))
}

/// Indexes one unit of a history: its rows, and its files that hold no session.
async fn index_unit(reply: &Reply, folder: &str, paths: &[String], files: &[web_sys::File]) -> Result<(), Failure> {
    let started = js_sys::Date::now();
    let (corpus, unreadable, ReadFigures { bytes, waiting_ms }) = read_unit(paths, files).await?;
    let read = js_sys::Date::now();
    let graph = Graph::build(&corpus);
    let built = js_sys::Date::now();
    let mut index = sessionscope_engine::history::index_unit(&corpus, &graph, folder);
    // Its files, its failures and its activity, from the same model: no second pass.
    let insights = UnitInsights::of(&corpus, &graph, &index.rows).encode();
    let mut buffers = IndexedBuffers { insights: Some(buffer_of(&insights)), trigrams: None, words: None };
    // A unit read whole gets its set of trigrams, for searches to skip it, and its word index,
    // for ranked searches to count it unread.
    let summed = js_sys::Date::now();
    let mut words_ms = 0.0;
    let stamps = if unreadable.is_empty() {
        let set = sessionscope_engine::search::trigrams_of(&corpus, bytes as u64);
        buffers.trigrams = Some(buffer_of(set.as_bytes()));
        let counting = js_sys::Date::now();
        let words = sessionscope_engine::word_index::UnitWords::of(&corpus, &graph);
        buffers.words = Some(buffer_of(&crate::wire::word_search::searchable_bytes(&index.rows, &words)));
        words_ms = js_sys::Date::now() - counting;
        paths.iter().zip(files).map(|(path, file)| stamp_of(path, file)).collect()
    } else {
        Vec::new()
    };
    index.problems.extend(unreadable);
    if bytes >= 8e6 {
        let message = format!(
            "sessionscope index: {:.1} MB read and parsed in {:.0} ms (waiting for reads {:.0} ms), graph {:.0} ms, summary and insights {:.0} ms, trigrams {:.0} ms, words {words_ms:.0} ms; the worker's memory {:.1} MB",
            bytes / 1e6,
            read - started,
            waiting_ms,
            built - read,
            summed - built,
            js_sys::Date::now() - summed - words_ms,
            crate::platform::page::page_memory_bytes() / 1e6,
        );
        web_sys::console::debug_1(&message.into());
    }
    let indexed = UnitReply::Indexed { index, bytes, read: stamps, insights: true };
    Ok(reply.post(Parcel::new(FromWorker::Unit(indexed)).with_buffers(buffers.into_parcel()))?)
}

/// Searches one unit of a history. A unit none of whose files holds the query's text is not
/// parsed at all.
async fn search_unit(
    reply: &Reply,
    paths: &[String],
    files: &[web_sys::File],
    query: &SearchQuery,
) -> Result<(), Failure> {
    let query = Query::new(&query.text, query.regex)?;
    check_paths(paths, files)?;
    let started = js_sys::Date::now();
    let mut search = UnitSearch::new(&query, HITS_PER_UNIT);
    let mut bytes = 0.0;
    // The main file is read first, alone: a common word's hits are often all in it. Once it is
    // not enough, a few files' first slices are asked for ahead, so reading overlaps searching.
    let mut ahead: VecDeque<Result<SliceReader, _>> = VecDeque::new();
    let mut asked = 0;
    for (at, path) in paths.iter().enumerate() {
        let files_ahead = if at == 0 { 1 } else { FILES_AHEAD };
        while asked < files.len() && asked < at + files_ahead {
            ahead.push_back(SliceReader::start_for_search(&files[asked]));
            asked += 1;
        }
        let reader = ahead.pop_front();
        if search.is_full() {
            search.skip_rest();
            break;
        }
        // A file that cannot be read now was listed when the history was indexed.
        if let Some(Ok(reader)) = reader {
            let _ = search_file(&mut search, path, reader, &mut bytes).await;
        }
    }
    let (hits, count, complete) = search.finish();
    let took = js_sys::Date::now() - started;
    if took >= 100.0 {
        let message = format!(
            "sessionscope search: {}: {:.1} MB read in {took:.0} ms, {} hits{}",
            paths.first().map_or("a unit", String::as_str),
            bytes / 1e6,
            hits.len(),
            if complete { "" } else { ", stopped at the limit" }
        );
        web_sys::console::debug_1(&message.into());
    }
    let hits = UnitReply::Hits { hits, count, complete, bytes, query_error: None };
    Ok(reply.send(FromWorker::Unit(hits))?)
}

/// Searches one file of a unit, slice by slice, reading no further once the unit's hits are
/// enough; `bytes` counts what was read.
async fn search_file(
    search: &mut UnitSearch<'_>,
    path: &str,
    mut reader: SliceReader<'_>,
    bytes: &mut f64,
) -> Result<(), PieceError> {
    let mut searching = None;
    while let Some(slice) = reader.next().await {
        let slice = slice?.to_vec();
        *bytes += slice.len() as f64;
        let done = reader.is_done();
        let file_search = match searching.as_mut() {
            Some(file_search) => file_search,
            // A file read in one slice is searched whole.
            None if done => {
                search.add_file(path, &slice);
                return Ok(());
            }
            None => searching.insert(search.start_file(path, &slice, false)),
        };
        search.add_slice(file_search, &slice);
        if search.is_full() && !done {
            search.skip_rest();
            break;
        }
    }
    if let Some(file_search) = searching {
        search.end_file(file_search);
    }
    Ok(())
}
