//! The loading worker: reads dropped files in slices, parses them and builds the graph off the
//! main thread, then hands the model and the file bytes back. See `sessionscope_web::worker`.

use sessionscope_engine::Loader;
use sessionscope_engine::dag::Graph;
use wasm_bindgen::prelude::*;

fn main() {
    sessionscope_web::worker::start();
}

/// For `tests/bench/parse-wasm.mjs`, which runs it in a worker of its own: reads `bytes` as one
/// session file in slices of `slice` bytes, builds its graph, and returns
/// JSON: `{"parse_ms", "graph_ms", "entries", "lines", "model_bytes"}`.
#[wasm_bindgen(js_name = benchmarkParse)]
pub fn benchmark_parse(bytes: &[u8], slice: usize) -> String {
    let now = js_sys::Date::now;
    let start = now();
    let mut loader = Loader::new();
    let file = loader.add_file("benchmark.jsonl", bytes.len() as u64);
    for piece in bytes.chunks(slice.max(1)) {
        loader.push(file, piece);
    }
    loader.finish_file(file);
    let corpus = loader.finish();
    let parsed = now();
    let graph = Graph::build(&corpus);
    let built = now();
    format!(
        "{{\"parse_ms\":{:.3},\"graph_ms\":{:.3},\"entries\":{},\"lines\":{},\"model_bytes\":{},\"conversations\":{}}}",
        parsed - start,
        built - parsed,
        corpus.entries.len(),
        corpus.counts().lines,
        corpus.model_heap_bytes(),
        graph.conversations.len()
    )
}
