//! Loading off the main thread. The page posts the dropped `File`s to a Web Worker, which
//! reads them in slices (the next slice is read while the current one is parsed), parses
//! them, builds the graph, and posts back the serialised model as a transferred buffer. The
//! page reads the same files' bytes itself meanwhile, so they never cross between threads.
//! The page stays responsive whatever the size, and Cancel is `worker.terminate()`.
//!
//! A worker started ahead of time is asked to `{ kind: "warm-up" }` while the page is idle.
//! Messages to the worker: `{ paths: string[], files: File[], slice: number, preview: bool }`,
//! sent once it said `{ kind: "ready" }`. Messages from it: `{ kind: "progress", done, total,
//! path }`, for big loads once `{ kind: "preview", model, bytes, done }` (the first part of
//! the files, to show while the rest loads), `{ kind: "building" }`, then `{ kind: "done",
//! model: ArrayBuffer, timings }` or `{ kind: "error", message }`.

use js_sys::{Array, ArrayBuffer, Object, Reflect, Uint8Array};
use sessionscope_engine::dag::Graph;
use sessionscope_engine::{Corpus, Loader};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

/// Bytes read per slice.
pub const SLICE_BYTES: usize = 8 << 20;
/// Loads of at least this many bytes show a preview: the first part of the files, as soon as
/// it is read, while the rest loads. Smaller loads are done before a preview would help.
pub const PREVIEW_FROM_TOTAL: usize = 16 << 20;
/// The preview holds the first this many bytes (or a little more: whole slices).
pub const PREVIEW_BYTES: usize = 2 << 20;

/// The worker's entry point (called by `src/bin/worker.rs`).
pub fn start() {
    console_error_panic_hook::set_once();
    let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let handler = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |event: web_sys::MessageEvent| {
        let request = event.data();
        wasm_bindgen_futures::spawn_local(async move {
            let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
            let result = match get(&request, "kind").as_string().as_deref() {
                Some("search-init") => search_init(&request),
                Some("search") => search(&scope, &request).await,
                Some("warm-up") => {
                    warm_up(&scope).await;
                    Ok(())
                }
                _ => load(&scope, &request).await,
            };
            if let Err(message) = result {
                let reply = Object::new();
                set(&reply, "kind", &"error".into());
                set(&reply, "message", &message.into());
                let _ = scope.post_message(&reply);
            }
        });
    });
    scope.set_onmessage(Some(handler.as_ref().unchecked_ref()));
    handler.forget();
    // Messages posted before the wasm was ready were dispatched to no handler: the page waits
    // for this before sending the files.
    let ready = Object::new();
    set(&ready, "kind", &"ready".into());
    let _ = scope.post_message(&ready);
}

thread_local! {
    /// Set once files arrive: a warm-up still running stops.
    static LOADING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs the whole pipeline on the bundled example a number of times, so the browser's
/// compiler has optimised the hot code before the first real file arrives. The page asks for
/// this when it starts a worker ahead of time, while it is idle; files that arrive meanwhile
/// stop it (it pauses between rounds to let them in).
async fn warm_up(scope: &web_sys::DedicatedWorkerGlobalScope) {
    for _ in 0..48 {
        if LOADING.with(std::cell::Cell::get) {
            return;
        }
        let corpus = Loader::read_all(crate::example::FILES.iter().copied());
        let graph = Graph::build(&corpus);
        let _ = encode_model(&corpus, &graph);
        pause(scope).await;
    }
}

/// Gives other messages a turn.
async fn pause(scope: &web_sys::DedicatedWorkerGlobalScope) {
    let pause = js_sys::Promise::new(&mut |resolve, _| {
        let _ = scope.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 0);
    });
    let _ = JsFuture::from(pause).await;
}

fn set(object: &Object, key: &str, value: &JsValue) {
    let _ = Reflect::set(object, &key.into(), value);
}

fn get(object: &JsValue, key: &str) -> JsValue {
    Reflect::get(object, &key.into()).unwrap_or(JsValue::UNDEFINED)
}

fn read_slice(file: &web_sys::File, start: f64, end: f64) -> Result<JsFuture, String> {
    let blob = file.slice_with_f64_and_f64(start, end).map_err(|_| "a file could not be sliced".to_owned())?;
    Ok(JsFuture::from(blob.array_buffer()))
}

async fn load(scope: &web_sys::DedicatedWorkerGlobalScope, request: &JsValue) -> Result<(), String> {
    LOADING.with(|l| l.set(true));
    let now = js_sys::Date::now;
    let paths: Array = get(request, "paths").dyn_into().map_err(|_| "no paths in the request")?;
    let files: Array = get(request, "files").dyn_into().map_err(|_| "no files in the request")?;
    let slice = get(request, "slice").as_f64().map(|s| s as usize).unwrap_or(SLICE_BYTES).max(1) as f64;
    let total: f64 = files.iter().map(|f| f.unchecked_into::<web_sys::File>().size()).sum();
    let wants_preview = get(request, "preview").as_bool().unwrap_or(false) && total >= PREVIEW_FROM_TOTAL as f64;
    let mut preview_sent = !wants_preview;
    let started = now();
    let (mut waiting_ms, mut parsing_ms, mut done) = (0.0, 0.0, 0.0);
    let mut loader = Loader::new();
    for (path, file) in paths.iter().zip(files.iter()) {
        let path = path.as_string().unwrap_or_default();
        let file: web_sys::File = file.unchecked_into();
        let size = file.size();
        let id = loader.add_file(&path, size as u64);
        // Until the preview is out, slices are small, so it is out soon.
        let next_end = |from: f64, preview_sent: bool| {
            let step = if preview_sent { slice } else { slice.min(PREVIEW_BYTES as f64) };
            (from + step).min(size)
        };
        let mut offset = 0.0;
        let mut end = next_end(0.0, preview_sent);
        let mut pending = (size > 0.0).then(|| read_slice(&file, 0.0, end)).transpose()?;
        while let Some(reading) = pending.take() {
            let t0 = now();
            let buffer = reading.await.map_err(|_| format!("{path} could not be read"))?;
            let t1 = now();
            let chunk = Uint8Array::new(&buffer).to_vec();
            // The next slice is read while this one is parsed.
            let preview_due = !preview_sent && loader.bytes_read() + chunk.len() as u64 >= PREVIEW_BYTES as u64;
            let following = next_end(end, preview_sent || preview_due);
            if end < size {
                pending = Some(read_slice(&file, end, following)?);
            }
            let t2 = now();
            loader.push(id, &chunk);
            waiting_ms += t1 - t0;
            parsing_ms += now() - t2;
            done += end - offset;
            offset = end;
            end = following;
            let progress = Object::new();
            set(&progress, "kind", &"progress".into());
            set(&progress, "done", &done.into());
            set(&progress, "total", &total.into());
            set(&progress, "path", &path.as_str().into());
            let _ = scope.post_message(&progress);
            if preview_due {
                preview_sent = true;
                post_preview(scope, &loader, done, now() - started)?;
            }
        }
        loader.finish_file(id);
    }
    let read_done = now();
    let phase = Object::new();
    set(&phase, "kind", &"building".into());
    let _ = scope.post_message(&phase);
    let corpus = loader.finish();
    let graph = Graph::build(&corpus);
    let built = now();
    let model = encode_model(&corpus, &graph)?;
    let encoded = now();

    let reply = Object::new();
    set(&reply, "kind", &"done".into());
    let model_buffer = to_buffer(&model);
    set(&reply, "model", &model_buffer);
    let timings = Object::new();
    set(&timings, "waiting_for_reads_ms", &waiting_ms.into());
    set(&timings, "parse_ms", &parsing_ms.into());
    set(&timings, "read_and_parse_ms", &(read_done - started).into());
    set(&timings, "graph_ms", &(built - read_done).into());
    set(&timings, "encode_ms", &(encoded - built).into());
    set(&reply, "timings", &timings);
    let transfer = Array::of1(&model_buffer);
    scope.post_message_with_transfer(&reply, &transfer).map_err(|_| "the model could not be sent".to_owned())
}

/// Posts what has been read so far as a model of its own, with the bytes it points into:
/// `{ kind: "preview", model, bytes: ArrayBuffer[], done, timings }`.
fn post_preview(
    scope: &web_sys::DedicatedWorkerGlobalScope,
    loader: &Loader,
    done: f64,
    elapsed_ms: f64,
) -> Result<(), String> {
    let now = js_sys::Date::now;
    let started = now();
    let corpus = loader.preview();
    let graph = Graph::build(&corpus);
    let model = to_buffer(&encode_model(&corpus, &graph)?);
    let transfer = Array::of1(&model);
    let bytes = Array::new();
    for file in &corpus.bytes {
        let buffer = to_buffer(file);
        bytes.push(&buffer);
        transfer.push(&buffer);
    }
    let reply = Object::new();
    set(&reply, "kind", &"preview".into());
    set(&reply, "model", &model);
    set(&reply, "bytes", &bytes);
    set(&reply, "done", &done.into());
    let timings = Object::new();
    set(&timings, "read_and_parse_ms", &elapsed_ms.into());
    set(&timings, "preview_ms", &(now() - started).into());
    set(&reply, "timings", &timings);
    scope.post_message_with_transfer(&reply, &transfer).map_err(|_| "the preview could not be sent".to_owned())
}

thread_local! {
    /// The model a search worker searches, and the id of the newest search.
    static SEARCHED: std::cell::RefCell<Option<std::rc::Rc<Corpus>>> = const { std::cell::RefCell::new(None) };
    static NEWEST: std::cell::Cell<f64> = const { std::cell::Cell::new(-1.0) };
}

/// Takes the model and the file bytes to search (from the page, which has them).
fn search_init(request: &JsValue) -> Result<(), String> {
    let model = Uint8Array::new(&get(request, "model")).to_vec();
    let files: Array = get(request, "files").dyn_into().map_err(|_| "no files to search")?;
    let bytes: Vec<Vec<u8>> = files.iter().map(|b| Uint8Array::new(&b).to_vec()).collect();
    let (corpus, _graph) = decode_model(&model, bytes)?;
    SEARCHED.with(|s| *s.borrow_mut() = Some(std::rc::Rc::new(corpus)));
    Ok(())
}

/// Searches in steps, posting the hits of each; a newer search stops an older one.
async fn search(scope: &web_sys::DedicatedWorkerGlobalScope, request: &JsValue) -> Result<(), String> {
    const STEP: usize = 4000;
    let id = get(request, "id").as_f64().unwrap_or(0.0);
    let text = get(request, "query").as_string().unwrap_or_default();
    let regex = get(request, "regex").as_bool().unwrap_or(false);
    NEWEST.with(|n| n.set(id));
    let query = sessionscope_engine::search::Query::new(&text, regex)?;
    let Some(corpus) = SEARCHED.with(|s| s.borrow().clone()) else { return Err("nothing to search".into()) };
    let entries = corpus.entries.len();
    let mut start = 0;
    loop {
        if NEWEST.with(|n| n.get()) != id {
            return Ok(());
        }
        let end = (start + STEP).min(entries);
        let mut hits = Vec::new();
        let count = query.search(&corpus, start..end, &mut |h| hits.push(h));
        let reply = Object::new();
        set(&reply, "kind", &"hits".into());
        set(&reply, "id", &id.into());
        set(&reply, "count", &(count as f64).into());
        set(&reply, "done", &(end >= entries).into());
        set(&reply, "hits", &serde_json::to_string(&hits).unwrap_or_default().into());
        let _ = scope.post_message(&reply);
        if end >= entries {
            return Ok(());
        }
        start = end;
        // Let a newer request in.
        pause(scope).await;
    }
}

fn to_buffer(bytes: &[u8]) -> ArrayBuffer {
    let array = Uint8Array::new_with_length(bytes.len() as u32);
    array.copy_from(bytes);
    array.buffer()
}

/// The model without the file bytes, for the trip from the worker to the page.
pub fn encode_model(corpus: &Corpus, graph: &Graph) -> Result<Vec<u8>, String> {
    postcard::to_allocvec(&(corpus, graph)).map_err(|e| format!("the model could not be encoded: {e}"))
}

/// The model back, with the file bytes put in place.
pub fn decode_model(model: &[u8], bytes: Vec<Vec<u8>>) -> Result<(Corpus, Graph), String> {
    let (mut corpus, graph): (Corpus, Graph) =
        postcard::from_bytes(model).map_err(|e| format!("the model could not be decoded: {e}"))?;
    if bytes.len() != corpus.files.len() {
        return Err("the files changed while they were read".into());
    }
    corpus.symbols.rebuild_index();
    corpus.bytes = bytes;
    Ok((corpus, graph))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_model_survives_the_trip_from_the_worker() {
        let corpus = Loader::read_all(crate::example::FILES.iter().copied());
        let graph = Graph::build(&corpus);
        let encoded = encode_model(&corpus, &graph).unwrap();
        let (back, back_graph) = decode_model(&encoded, corpus.bytes.clone()).unwrap();
        assert_eq!(sessionscope_engine::dump::dump_corpus(&back), sessionscope_engine::dump::dump_corpus(&corpus));
        assert_eq!(
            sessionscope_engine::dump::dump_graph(&back, &back_graph),
            sessionscope_engine::dump::dump_graph(&corpus, &graph)
        );
        assert_eq!(back.symbols.lookup("assistant"), corpus.symbols.lookup("assistant"));
        assert!(decode_model(&encoded, Vec::new()).is_err(), "bytes for every file are required");
    }
}
