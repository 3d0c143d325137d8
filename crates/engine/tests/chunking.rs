//! Chunk boundaries must not matter: the same bytes fed in slices of any size give the same
//! model as the whole file at once.

mod common;

use common::*;
use proptest::prelude::*;
use sessionscope_engine::dump::dump_corpus;

fn assert_same_for_every_chunk_size(label: &str, files: &[(String, Vec<u8>)]) {
    let whole = dump_corpus(&load_chunked(files, 0));
    for chunk in [1, 7, 64, 4096] {
        let chunked = dump_corpus(&load_chunked(files, chunk));
        assert!(chunked == whole, "{label}: slices of {chunk} bytes give another model");
    }
}

#[test]
fn fixtures_read_the_same_in_slices_of_1_7_and_64_bytes() {
    for name in fixture_names() {
        let files = vec![(name.clone(), fixture(&name))];
        assert_same_for_every_chunk_size(&name, &files);
    }
}

#[test]
fn real_logs_read_the_same_in_slices_of_1_7_and_64_bytes() {
    let Some(root) = real_fixtures("real_logs_read_the_same_in_slices") else { return };
    for (name, dir) in real_folders(&root) {
        assert_same_for_every_chunk_size(&name, &read_folder(&dir));
    }
}

#[test]
fn a_synthetic_broken_session_reads_the_same_in_small_slices() {
    let session = sessionscope_synth::generate(&sessionscope_synth::SynthOptions {
        target_bytes: 256 << 10,
        seed: 5,
        agents: true,
        broken: true,
    });
    let mut files = vec![(session.main_file_name(), session.main)];
    files.extend(session.agents);
    files.extend(session.metas);
    assert_same_for_every_chunk_size("synthetic", &files);
}

fn mixed_files() -> Vec<(String, Vec<u8>)> {
    ["every-line-type.jsonl", "broken-lines.jsonl", "bom-crlf-blank-truncated.jsonl"]
        .iter()
        .map(|name| (name.to_string(), fixture(name)))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn any_chunk_boundaries_give_the_same_model(cuts in proptest::collection::vec(0usize..40_000, 0..40)) {
        let files = mixed_files();
        let whole = dump_corpus(&load_chunked(&files, 0));
        let split = dump_corpus(&load_split(&files, &cuts));
        prop_assert!(split == whole);
    }

    #[test]
    fn arbitrary_bytes_never_panic_and_every_line_is_accounted(bytes in proptest::collection::vec(any::<u8>(), 0..2048), chunk in 1usize..64) {
        let files = vec![("fuzz.jsonl".to_owned(), bytes.clone())];
        let corpus = load_chunked(&files, chunk);
        let counts = corpus.files[0].counts;
        prop_assert!(counts.balanced());
        prop_assert_eq!(counts.lines, count_lines(bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes)));
    }

    #[test]
    fn mutated_session_lines_never_panic(seed_line in 0usize..30, position in 0usize..400, byte in any::<u8>(), chunk in 1usize..200) {
        let mut bytes = fixture("every-line-type.jsonl");
        let starts: Vec<usize> = std::iter::once(0).chain(bytes.iter().enumerate().filter(|(_, b)| **b == b'\n').map(|(i, _)| i + 1)).collect();
        let at = (starts[seed_line % starts.len()] + position).min(bytes.len().saturating_sub(1));
        bytes[at] = byte;
        let files = vec![("mutated.jsonl".to_owned(), bytes.clone())];
        let corpus = load_chunked(&files, chunk);
        prop_assert!(corpus.files[0].counts.balanced());
        for entry in &corpus.entries {
            let _ = corpus.first_text(entry);
            let _ = corpus.entry_details(entry);
        }
    }
}
