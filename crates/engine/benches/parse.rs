//! Reading and parsing a 100 MB synthetic session, fed in 8 MiB slices as the browser does.
//!
//! `cargo bench -p sessionscope-engine --bench parse` prints the throughput, and once, the
//! memory the model keeps besides the file bytes.

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use sessionscope_engine::dag::Graph;
use sessionscope_engine::{Corpus, Loader};
use sessionscope_synth::{SynthOptions, generate};

const SLICE: usize = 8 << 20;

fn synthetic_files(target_bytes: u64) -> Vec<(String, Vec<u8>)> {
    let session = generate(&SynthOptions { target_bytes, seed: 7, agents: true, broken: false });
    let mut files = vec![(format!("{}.jsonl", session.session_id), session.main)];
    files.extend(session.agents);
    files.extend(session.metas);
    files
}

fn load(files: &[(String, Vec<u8>)]) -> Corpus {
    let mut loader = Loader::new();
    for (path, bytes) in files {
        let id = loader.add_file(path, bytes.len() as u64);
        for slice in bytes.chunks(SLICE) {
            loader.push(id, slice);
        }
        loader.finish_file(id);
    }
    loader.finish()
}

fn bench_parse(c: &mut Criterion) {
    let files = synthetic_files(100 << 20);
    let total: usize = files.iter().map(|(_, b)| b.len()).sum();
    let corpus = load(&files);
    let model = corpus.model_heap_bytes();
    eprintln!(
        "100 MB synthetic: {} bytes, {} lines, {} entries; model {} bytes = {:.1}% of the file bytes",
        total,
        corpus.counts().lines,
        corpus.entries.len(),
        model,
        model as f64 * 100.0 / total as f64
    );
    drop(corpus);

    let mut group = c.benchmark_group("read+parse");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(total as u64));
    group.bench_function("synthetic 100 MB in 8 MiB slices", |b| b.iter(|| load(&files)));
    group.finish();

    // The DAG build of the same session, measured against the same bytes so the two
    // throughputs compare directly.
    let corpus = load(&files);
    let graph = Graph::build(&corpus);
    eprintln!(
        "graph: {} conversations, {} forks (real), {} tool ops, {} turns",
        graph.conversations.len(),
        graph.forks.len(),
        graph.tool_ops.len(),
        graph.turns.len()
    );
    let mut group = c.benchmark_group("search");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(total as u64));
    for (name, text, regex) in [("plain", "compile error", false), ("regex", r"src/\w+\.rs:\d+", true)] {
        let query = sessionscope_engine::search::Query::new(text, regex).expect("a valid query");
        group.bench_function(format!("{name} search of the 100 MB session"), |b| {
            b.iter(|| query.search(&corpus, 0..corpus.entries.len(), &mut |_| {}))
        });
    }
    group.finish();

    // The history's index makes each unit's trigram set as it reads it (what lets a search skip
    // the units that cannot hold its text).
    let mut group = c.benchmark_group("trigrams");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(total as u64));
    group.bench_function("the trigram set of the 100 MB session", |b| {
        b.iter(|| sessionscope_engine::search::trigrams_of(&corpus, total as u64))
    });
    group.finish();

    // The same pass makes the unit's word index, for ranked searches; the summary and insights
    // of the index pass are measured beside it, so the share of each shows.
    let graph = Graph::build(&corpus);
    let words = sessionscope_engine::word_index::UnitWords::of(&corpus, &graph);
    eprintln!(
        "word index: {} bytes = {:.2}% of the file bytes",
        words.as_bytes().len(),
        words.as_bytes().len() as f64 * 100.0 / total as f64
    );
    let mut group = c.benchmark_group("index pass");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(total as u64));
    group.bench_function("the word index of the 100 MB session", |b| {
        b.iter(|| sessionscope_engine::word_index::UnitWords::of(&corpus, &graph))
    });
    group.bench_function("the summary and insights of the 100 MB session", |b| {
        b.iter(|| {
            let index = sessionscope_engine::history::index_unit(&corpus, &graph, "bench");
            sessionscope_engine::insights::UnitInsights::of(&corpus, &graph, &index.rows).encode()
        })
    });
    group.finish();

    let mut group = c.benchmark_group("dag");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(total as u64));
    group.bench_function("build the graph of the 100 MB session", |b| b.iter(|| Graph::build(&corpus)));
    group.finish();
    drop(corpus);

    // A followed session grows by a line: read it whole again, or push the line into the loader
    // kept from the last read and take a snapshot. Both end with the graph built, as the viewer
    // needs it.
    let line = files[0].1.split_inclusive(|&b| b == b'\n').nth(10).unwrap_or_default().to_vec();
    let mut grown = files.clone();
    grown[0].1.extend_from_slice(&line);
    let mut kept = Loader::new();
    for (path, bytes) in &files {
        let id = kept.add_file(path, bytes.len() as u64);
        kept.push(id, bytes);
    }
    let mut group = c.benchmark_group("follow");
    group.sample_size(10);
    group.bench_function("a line appended to the 100 MB session: read whole again", |b| {
        b.iter(|| Graph::build(&load(&grown)))
    });
    group.bench_function("a line appended to the 100 MB session: pushed, then a snapshot", |b| {
        b.iter_batched(
            || kept.clone(),
            |mut loader| {
                loader.push(0, &line);
                Graph::build(&loader.snapshot())
            },
            BatchSize::PerIteration,
        )
    });
    group.bench_function("the copy a snapshot makes of the loader", |b| b.iter(|| kept.clone()));
    group.finish();
}

criterion_group!(benches, bench_parse);
criterion_main!(benches);
