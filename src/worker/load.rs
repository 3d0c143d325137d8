//! The load role: reads the files of a drop in slices (the next slice is read while the current
//! one is parsed), parses them, builds the graph, and posts back the model as a transferred
//! buffer. A big load sends a preview first: what the first slices hold, as a model of its own.

use js_sys::Uint8Array;
use sessionscope_engine::Loader;
use sessionscope_engine::dag::Graph;

use super::{Failure, Reply};
use crate::platform::errors::ReadError;
use crate::platform::files;
use crate::wire::codec::encode_model;
use crate::wire::limits::{HOLD_MAX_BYTES, PREVIEW_BYTES, PREVIEW_FROM_TOTAL, left_out_why};
use crate::wire::messages::{LoadReply, LoadRequest, LoadTimings, PreviewTimings};
use crate::wire::{FromWorker, Parcel, buffer_of};

/// Reads, parses and builds the files of a load, answering its progress, its preview and its
/// model.
pub async fn load(reply: &Reply, request: &LoadRequest, given: &[web_sys::File]) -> Result<(), Failure> {
    let LoadRequest { paths, slice, preview } = request;
    let now = js_sys::Date::now;
    if paths.len() != given.len() {
        return Err(format!("the request names {} path(s) for {} file(s)", paths.len(), given.len()).into());
    }
    let slice = (*slice).max(1) as f64;
    let total: f64 = given.iter().map(|file| file.size()).sum();
    let wants_preview = *preview && total >= PREVIEW_FROM_TOTAL as f64;
    let mut preview_sent = !wants_preview;
    let started = now();
    let (mut waiting_ms, mut parsing_ms, mut done) = (0.0, 0.0, 0.0);
    let mut loader = Loader::new();
    // The page reads the same share of each file (`client::load_job`).
    loader.hold_at_most(HOLD_MAX_BYTES, left_out_why());
    for (path, file) in paths.iter().zip(given) {
        let size = file.size();
        let id = loader.add_file(path, size as u64);
        // Until the preview is out, slices are small, so it is out soon.
        let next_end = |from: f64, preview_sent: bool| {
            let step = if preview_sent { slice } else { slice.min(PREVIEW_BYTES as f64) };
            (from + step).min(size)
        };
        let mut offset = 0.0;
        let mut end = next_end(0.0, preview_sent);
        let mut pending = (size > 0.0).then(|| files::slice(file, 0.0, end)).transpose()?;
        while let Some(reading) = pending.take() {
            let t0 = now();
            let buffer = reading.await.map_err(|e| format!("{path} {}", ReadError::from(&e)))?;
            let t1 = now();
            let chunk = Uint8Array::new(&buffer);
            let chunk_len = chunk.length() as usize;
            // The next slice is read while this one is parsed.
            let preview_due = !preview_sent && loader.bytes_read() + chunk_len as u64 >= PREVIEW_BYTES as u64;
            let following = next_end(end, preview_sent || preview_due);
            if end < size {
                pending = Some(files::slice(file, end, following)?);
            }
            let t2 = now();
            loader.push_with(id, chunk_len, |room| chunk.copy_to_uninit(room));
            waiting_ms += t1 - t0;
            parsing_ms += now() - t2;
            done += end - offset;
            offset = end;
            end = following;
            let _ = reply.send(FromWorker::Load(LoadReply::Progress { done, total, path: path.clone() }));
            if preview_due {
                preview_sent = true;
                let so_far = PreviewTimings {
                    read_and_parse_ms: now() - started,
                    waiting_for_reads_ms: waiting_ms,
                    parse_ms: parsing_ms,
                    preview_ms: 0.0,
                };
                post_preview(reply, &loader, so_far)?;
            }
        }
        loader.finish_file(id);
    }
    let read_done = now();
    let _ = reply.send(FromWorker::Load(LoadReply::Building));
    let corpus = loader.finish();
    let graph = Graph::build(&corpus);
    let built = now();
    let model = encode_model(&corpus, &graph)?;
    let encoded = now();
    let timings = LoadTimings {
        waiting_for_reads_ms: waiting_ms,
        parse_ms: parsing_ms,
        read_and_parse_ms: read_done - started,
        graph_ms: built - read_done,
        encode_ms: encoded - built,
    };
    // The files the loader made are not among the page's: their bytes go with the model.
    let made = corpus.files.iter().zip(&corpus.bytes).filter(|(info, _)| info.is_derived()).map(|(_, b)| buffer_of(b));
    let buffers = std::iter::once(buffer_of(&model)).chain(made).collect();
    let done = Parcel::new(FromWorker::Load(LoadReply::Done { timings })).with_buffers(buffers);
    reply.post(done).map_err(|_| "the model could not be sent".into())
}

/// Posts what has been read so far as a model of its own, with the bytes it points into.
fn post_preview(reply: &Reply, loader: &Loader, so_far: PreviewTimings) -> Result<(), Failure> {
    let started = js_sys::Date::now();
    let corpus = loader.preview();
    let graph = Graph::build(&corpus);
    let model = buffer_of(&encode_model(&corpus, &graph)?);
    let buffers = std::iter::once(model).chain(corpus.bytes.iter().map(|file| buffer_of(file))).collect();
    let timings = PreviewTimings { preview_ms: js_sys::Date::now() - started, ..so_far };
    let preview = Parcel::new(FromWorker::Load(LoadReply::Preview { timings })).with_buffers(buffers);
    reply.post(preview).map_err(|_| "the preview could not be sent".into())
}
