//! Loading off the main thread. The page posts the dropped `File`s to a Web Worker, which
//! reads them in slices (the next slice is read while the current one is parsed), parses
//! them, builds the graph, and posts back the serialised model as a transferred buffer. The
//! page reads the same files' bytes itself meanwhile, so they never cross between threads.
//! The page stays responsive whatever the size, and Cancel is `worker.terminate()`.
//!
//! Messages to the worker: `{ paths: string[], files: File[], slice: number }`, sent once it
//! said `{ kind: "ready" }`. Messages from it: `{ kind: "progress", done, total, path }`,
//! `{ kind: "building" }`, then `{ kind: "done", model: ArrayBuffer, timings }` or
//! `{ kind: "error", message }`.

use js_sys::{Array, ArrayBuffer, Object, Reflect, Uint8Array};
use sessionscope_engine::dag::Graph;
use sessionscope_engine::{Corpus, Loader};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

/// Bytes read per slice.
pub const SLICE_BYTES: usize = 8 << 20;

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
    warm_up();
    // Messages posted before the wasm was ready were dispatched to no handler: the page waits
    // for this before sending the files.
    let ready = Object::new();
    set(&ready, "kind", &"ready".into());
    let _ = scope.post_message(&ready);
}

/// Runs the whole pipeline on the bundled example a number of times, so the browser's
/// compiler has optimised the hot code before the first real file arrives. The page starts
/// this worker ahead of time, while it is idle.
fn warm_up() {
    for _ in 0..48 {
        let mut loader = Loader::new();
        for (path, bytes) in crate::example::FILES {
            loader.add_bytes(path, bytes);
        }
        let corpus = loader.finish();
        let graph = Graph::build(&corpus);
        let _ = encode_model(&corpus, &graph);
    }
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
    let now = js_sys::Date::now;
    let paths: Array = get(request, "paths").dyn_into().map_err(|_| "no paths in the request")?;
    let files: Array = get(request, "files").dyn_into().map_err(|_| "no files in the request")?;
    let slice = get(request, "slice").as_f64().map(|s| s as usize).unwrap_or(SLICE_BYTES).max(1) as f64;
    let total: f64 = files.iter().map(|f| f.unchecked_into::<web_sys::File>().size()).sum();
    let started = now();
    let (mut waiting_ms, mut parsing_ms, mut done) = (0.0, 0.0, 0.0);
    let mut loader = Loader::new();
    for (path, file) in paths.iter().zip(files.iter()) {
        let path = path.as_string().unwrap_or_default();
        let file: web_sys::File = file.unchecked_into();
        let size = file.size();
        let id = loader.add_file(&path, size as u64);
        let mut offset = 0.0;
        let mut pending = (size > 0.0).then(|| read_slice(&file, 0.0, slice.min(size))).transpose()?;
        while let Some(reading) = pending.take() {
            let end = (offset + slice).min(size);
            let t0 = now();
            let buffer = reading.await.map_err(|_| format!("{path} could not be read"))?;
            // The next slice is read while this one is parsed.
            if end < size {
                pending = Some(read_slice(&file, end, (end + slice).min(size))?);
            }
            let t1 = now();
            let chunk = Uint8Array::new(&buffer).to_vec();
            loader.push(id, &chunk);
            waiting_ms += t1 - t0;
            parsing_ms += now() - t1;
            done += end - offset;
            offset = end;
            let progress = Object::new();
            set(&progress, "kind", &"progress".into());
            set(&progress, "done", &done.into());
            set(&progress, "total", &total.into());
            set(&progress, "path", &path.as_str().into());
            let _ = scope.post_message(&progress);
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
        let pause = js_sys::Promise::new(&mut |resolve, _| {
            let _ = scope.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 0);
        });
        let _ = JsFuture::from(pause).await;
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
        let mut loader = Loader::new();
        for (path, bytes) in crate::example::FILES {
            loader.add_bytes(path, bytes);
        }
        let corpus = loader.finish();
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
