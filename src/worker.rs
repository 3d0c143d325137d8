//! Loading off the main thread. The page posts the dropped `File`s to a Web Worker, which
//! reads them in slices, parses them, builds the graph, and posts back the serialised model
//! and the file bytes as transferred buffers (moved, not copied). The page stays responsive
//! whatever the size, and Cancel is `worker.terminate()`.
//!
//! Messages to the worker: `{ paths: string[], files: File[], slice: number }`, sent once it
//! said `{ kind: "ready" }`. Messages from it: `{ kind: "progress", done, total, path }`, then
//! `{ kind: "done", model: ArrayBuffer, files: ArrayBuffer[] }` or `{ kind: "error", message }`.

use js_sys::{Array, ArrayBuffer, Object, Reflect, Uint8Array};
use sessionscope_engine::dag::Graph;
use sessionscope_engine::{Corpus, Loader};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

/// Bytes read per slice in the worker.
pub const SLICE_BYTES: usize = 16 << 20;

/// The worker's entry point (called by `src/bin/worker.rs`).
pub fn start() {
    console_error_panic_hook::set_once();
    let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let handler = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |event: web_sys::MessageEvent| {
        let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
        if let Err(message) = load(&scope, &event.data()) {
            let reply = Object::new();
            set(&reply, "kind", &"error".into());
            set(&reply, "message", &message.into());
            let _ = scope.post_message(&reply);
        }
    });
    scope.set_onmessage(Some(handler.as_ref().unchecked_ref()));
    handler.forget();
    // Messages posted before the wasm was ready were dispatched to no handler: the page waits
    // for this before sending the files.
    let ready = Object::new();
    set(&ready, "kind", &"ready".into());
    let _ = scope.post_message(&ready);
}

fn set(object: &Object, key: &str, value: &JsValue) {
    let _ = Reflect::set(object, &key.into(), value);
}

fn get(object: &JsValue, key: &str) -> JsValue {
    Reflect::get(object, &key.into()).unwrap_or(JsValue::UNDEFINED)
}

fn load(scope: &web_sys::DedicatedWorkerGlobalScope, request: &JsValue) -> Result<(), String> {
    let paths: Array = get(request, "paths").dyn_into().map_err(|_| "no paths in the request")?;
    let files: Array = get(request, "files").dyn_into().map_err(|_| "no files in the request")?;
    let slice = get(request, "slice").as_f64().map(|s| s as usize).unwrap_or(SLICE_BYTES).max(1);
    let reader = web_sys::FileReaderSync::new().map_err(|_| "this browser cannot read files in a worker")?;
    let total: f64 = files.iter().map(|f| f.unchecked_into::<web_sys::File>().size()).sum();
    let mut done = 0.0;
    let mut loader = Loader::new();
    for (path, file) in paths.iter().zip(files.iter()) {
        let path = path.as_string().unwrap_or_default();
        let file: web_sys::File = file.unchecked_into();
        let size = file.size();
        let id = loader.add_file(&path, size as u64);
        let mut offset = 0.0;
        while offset < size {
            let end = (offset + slice as f64).min(size);
            let blob = file.slice_with_f64_and_f64(offset, end).map_err(|_| format!("{path}: cannot slice"))?;
            let buffer = reader.read_as_array_buffer(&blob).map_err(|_| format!("{path}: cannot be read"))?;
            loader.push(id, &Uint8Array::new(&buffer).to_vec());
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
    let phase = Object::new();
    set(&phase, "kind", &"building".into());
    let _ = scope.post_message(&phase);
    let corpus = loader.finish();
    let graph = Graph::build(&corpus);
    let model = encode_model(&corpus, &graph)?;

    let reply = Object::new();
    set(&reply, "kind", &"done".into());
    let transfer = Array::new();
    let model_buffer = to_buffer(&model);
    transfer.push(&model_buffer);
    set(&reply, "model", &model_buffer);
    let buffers = Array::new();
    for bytes in &corpus.bytes {
        let buffer = to_buffer(bytes);
        transfer.push(&buffer);
        buffers.push(&buffer);
    }
    set(&reply, "files", &buffers);
    scope.post_message_with_transfer(&reply, &transfer).map_err(|_| "the model could not be sent".to_owned())
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
    }
}
