//! The reader, the parser and the graph builder on arbitrary bytes, fed in arbitrary slices.
//! Nothing may panic, and every line must be accounted for.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sessionscope_engine::Loader;
use sessionscope_engine::dag::Graph;

fuzz_target!(|data: &[u8]| {
    // The first byte picks the slice size, so chunk boundaries are fuzzed too.
    let (slice, bytes) = match data.split_first() {
        Some((&first, rest)) => (first as usize % 64 + 1, rest),
        None => (1, data),
    };
    let mut loader = Loader::new();
    let file = loader.add_file("fuzz.jsonl", bytes.len() as u64);
    for piece in bytes.chunks(slice) {
        loader.push(file, piece);
    }
    loader.finish_file(file);
    let corpus = loader.finish();
    let counts = corpus.files[0].counts;
    assert!(counts.balanced(), "{counts:?}");
    let graph = Graph::build(&corpus);
    for entry in &corpus.entries {
        let _ = corpus.first_text(entry);
    }
    let _ = sessionscope_engine::summary::summarize(&corpus, &graph);
    let _ = sessionscope_engine::dump::dump_graph(&corpus, &graph);
});
