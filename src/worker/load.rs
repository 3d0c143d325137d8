//! The load role: reads the files of a drop (a big file as a byte stream, which the browser reads
//! ahead; a small one whole: [`FileReader`], as the index reads), parses them, builds the graph,
//! and posts back the model as a transferred buffer. A big load sends a preview first: what its
//! first pieces hold, as a model of its own.

use js_sys::Uint8Array;
use sessionscope_engine::Loader;
use sessionscope_engine::dag::Graph;
use sessionscope_engine::model::{FileId, Start};

use super::readers::{FileReader, SliceReader};
use super::{Failure, Reply};
use crate::platform::byte_stream::{ByteStream, STREAM_ABOVE_BYTES};
use crate::wire::codec::model_buffer;
use crate::wire::limits::{HOLD_MAX_BYTES, PREVIEW_BYTES, PREVIEW_FROM_TOTAL, left_out_why};
use crate::wire::messages::{LoadReply, LoadRequest, LoadTimings, PreviewTimings};
use crate::wire::{FromWorker, Parcel, buffer_of};

/// What a load has done so far: its bytes, its times, and whether its preview is out.
struct Loading<'r> {
    reply: &'r Reply,
    started: f64,
    total: f64,
    /// Bytes taken in, and those when progress was last said.
    done: f64,
    said: f64,
    /// Every how many bytes progress is said.
    every: f64,
    waiting_ms: f64,
    parsing_ms: f64,
    preview_sent: bool,
}

impl Loading<'_> {
    /// Takes a piece of file `id` into the loader, after `waited` ms for it; says the progress
    /// every so often, and sends the preview once its bytes are in.
    fn take(
        &mut self,
        loader: &mut Loader,
        id: FileId,
        path: &str,
        chunk: &Uint8Array,
        waited: f64,
    ) -> Result<(), Failure> {
        let len = chunk.length() as usize;
        let preview_due = !self.preview_sent && loader.bytes_read() + len as u64 >= PREVIEW_BYTES as u64;
        let t0 = js_sys::Date::now();
        loader.push_with(id, len, |room| chunk.copy_to_uninit(room));
        self.waiting_ms += waited;
        self.parsing_ms += js_sys::Date::now() - t0;
        self.done += len as f64;
        if self.done - self.said >= self.every || self.done >= self.total {
            self.said = self.done;
            let progress = LoadReply::Progress { done: self.done, total: self.total, path: path.to_owned() };
            let _ = self.reply.send(FromWorker::Load(progress));
        }
        if preview_due {
            self.preview_sent = true;
            let so_far = PreviewTimings {
                read_and_parse_ms: js_sys::Date::now() - self.started,
                waiting_for_reads_ms: self.waiting_ms,
                parse_ms: self.parsing_ms,
                preview_ms: 0.0,
            };
            post_preview(self.reply, loader, so_far)?;
        }
        Ok(())
    }
}

/// Reads, parses and builds the files of a load, answering its progress, its preview and its
/// model. A file over a megabyte is read as a byte stream (the browser reads ahead while the
/// worker parses), a smaller one whole ([`reader_of`]).
pub async fn load(
    reply: &Reply,
    request: &LoadRequest,
    files: &[web_sys::File],
    buffers: &[js_sys::ArrayBuffer],
) -> Result<(), Failure> {
    let LoadRequest { paths, slice, preview, starts } = request;
    let now = js_sys::Date::now;
    // Files to read, or the bytes of files the page held already (`client::load_job`).
    let given: Vec<Given> = if files.is_empty() && !buffers.is_empty() {
        buffers.iter().map(|buffer| Given::Bytes(Uint8Array::new(buffer))).collect()
    } else {
        files.iter().map(Given::File).collect()
    };
    if paths.len() != given.len() {
        return Err(format!("the request names {} path(s) for {} file(s)", paths.len(), given.len()).into());
    }
    let slice = (*slice).max(1) as f64;
    let total: f64 = given.iter().map(Given::size).sum();
    let wants_preview = *preview && total >= PREVIEW_FROM_TOTAL as f64;
    let started = now();
    let mut loading = Loading {
        reply,
        started,
        total,
        done: 0.0,
        said: 0.0,
        every: slice,
        waiting_ms: 0.0,
        parsing_ms: 0.0,
        preview_sent: !wants_preview,
    };
    let mut loader = Loader::new();
    // The page reads the same share of each file (`client::load_job`).
    loader.hold_at_most(HOLD_MAX_BYTES, left_out_why());
    for (i, (path, file)) in paths.iter().zip(&given).enumerate() {
        let size = file.size();
        let start = starts.get(i).copied().unwrap_or(Start::BEGINNING);
        let id = loader.add_file_from(path, size as u64, start);
        let file = match file {
            Given::File(file) => file,
            Given::Bytes(bytes) => {
                loading.take(&mut loader, id, path, bytes, 0.0)?;
                loader.finish_file(id);
                continue;
            }
        };
        let mut reader = reader_of(file)?;
        loop {
            let asked = now();
            let Some(piece) = reader.next().await else { break };
            let piece = piece.map_err(|error| format!("{path} {error}"))?;
            loading.take(&mut loader, id, path, &piece, now() - asked)?;
        }
        loader.finish_file(id);
    }
    let Loading { waiting_ms, parsing_ms, .. } = loading;
    let read_done = now();
    let _ = reply.send(FromWorker::Load(LoadReply::Building));
    let corpus = loader.finish();
    let graph = Graph::build(&corpus);
    let built = now();
    let model = model_buffer(&corpus, &graph)?;
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
    let buffers = std::iter::once(model).chain(made).collect();
    let done = Parcel::new(FromWorker::Load(LoadReply::Done { timings })).with_buffers(buffers);
    reply.post(done).map_err(|_| "the model could not be sent".into())
}

/// A file of a load: a `File` to read, or the bytes of one the page held already.
enum Given<'f> {
    File(&'f web_sys::File),
    Bytes(Uint8Array),
}

impl Given<'_> {
    fn size(&self) -> f64 {
        match self {
            Given::File(file) => file.size(),
            Given::Bytes(bytes) => f64::from(bytes.length()),
        }
    }
}

/// How a file of a load is read: over a megabyte as a byte stream, a smaller one whole. Where the
/// browser cannot stream a file, in slices, the first small, so a preview is soon out.
fn reader_of(file: &web_sys::File) -> Result<FileReader<'_>, Failure> {
    if file.size() > STREAM_ABOVE_BYTES
        && let Ok(stream) = ByteStream::start(file)
    {
        return Ok(FileReader::Stream(stream));
    }
    Ok(FileReader::Slices(SliceReader::start_with(file, PREVIEW_BYTES as f64)?))
}

/// Posts what has been read so far as a model of its own, with the bytes it points into.
fn post_preview(reply: &Reply, loader: &Loader, so_far: PreviewTimings) -> Result<(), Failure> {
    let started = js_sys::Date::now();
    let corpus = loader.preview();
    let graph = Graph::build(&corpus);
    let model = model_buffer(&corpus, &graph)?;
    let buffers = std::iter::once(model).chain(corpus.bytes.iter().map(|file| buffer_of(file))).collect();
    let timings = PreviewTimings { preview_ms: js_sys::Date::now() - started, ..so_far };
    let preview = Parcel::new(FromWorker::Load(LoadReply::Preview { timings })).with_buffers(buffers);
    reply.post(preview).map_err(|_| "the preview could not be sent".into())
}
