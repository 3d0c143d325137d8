//! Hooks for the browser benchmarks (`tests/bench/`): the engine's throughput measured inside
//! the page, with the wasm build users get.

use sessionscope_engine::Loader;
use sessionscope_engine::dag::Graph;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

/// Reads `bytes` as one session file in slices of `slice` bytes, builds its graph, and returns
/// JSON: `{"parse_ms", "graph_ms", "entries", "lines", "model_bytes"}`.
#[wasm_bindgen(js_name = benchmarkParse)]
pub fn benchmark_parse(bytes: &[u8], slice: usize) -> String {
    let now = || web_sys::window().and_then(|w| w.performance()).map_or(0.0, |p| p.now());
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

/// Bytes of the page's wasm memory (which grows and never shrinks): what holding the open
/// session costs the page, for the history's memory test and benchmark.
#[wasm_bindgen(js_name = pageMemoryBytes)]
pub fn page_memory_bytes() -> f64 {
    wasm_bindgen::memory()
        .dyn_into::<js_sys::WebAssembly::Memory>()
        .map_or(0.0, |memory| memory.buffer().unchecked_into::<js_sys::ArrayBuffer>().byte_length() as f64)
}
