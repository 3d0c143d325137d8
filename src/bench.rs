//! Hooks for the browser benchmarks and tests (`tests/bench/`, `tests/browser/`), measured with
//! the wasm build users get. The parser's throughput is measured in the worker, which holds the
//! parser (`src/bin/worker.rs`).

use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

/// Bytes of the page's wasm memory (which grows and never shrinks): what holding the open
/// session costs the page, for the history's memory test and benchmark.
#[wasm_bindgen(js_name = pageMemoryBytes)]
pub fn page_memory_bytes() -> f64 {
    wasm_bindgen::memory()
        .dyn_into::<js_sys::WebAssembly::Memory>()
        .map_or(0.0, |memory| memory.buffer().unchecked_into::<js_sys::ArrayBuffer>().byte_length() as f64)
}
