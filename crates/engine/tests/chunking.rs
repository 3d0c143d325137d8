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
    let Some(real) = real_fixtures("real_logs_read_the_same_in_slices_of_1_7_and_64_bytes") else { return };
    // Every folder, other agents' logs too: how a file is sliced must not change how it is
    // read, or why it is not.
    for (name, dir) in real.every_folder() {
        assert_same_for_every_chunk_size(&name, &read_folder(&dir));
    }
}

/// A synthetic session with agents and broken lines: its main file first, then each agent's
/// file and meta file.
fn synthetic_files(target_bytes: u64, seed: u64) -> Vec<(String, Vec<u8>)> {
    let session = sessionscope_synth::generate(&sessionscope_synth::SynthOptions {
        target_bytes,
        seed,
        agents: true,
        broken: true,
    });
    let mut files = vec![(session.main_file_name(), session.main)];
    files.extend(session.agents);
    files.extend(session.metas);
    files
}

#[test]
fn a_synthetic_broken_session_reads_the_same_in_small_slices() {
    assert_same_for_every_chunk_size("synthetic", &synthetic_files(256 << 10, 5));
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

/// Feeds `files` up to `stop` bytes of file `file` (the earlier files whole), in slices of
/// `chunk` bytes, and returns the loader's preview.
fn preview_after(files: &[(String, Vec<u8>)], file: usize, stop: usize, chunk: usize) -> sessionscope_engine::Corpus {
    let mut loader = sessionscope_engine::Loader::new();
    for (index, (path, bytes)) in files.iter().enumerate().take(file + 1) {
        let id = loader.add_file(path, bytes.len() as u64);
        let end = if index == file { stop.min(bytes.len()) } else { bytes.len() };
        for piece in bytes[..end].chunks(chunk.max(1)) {
            loader.push(id, piece);
        }
        if index < file {
            loader.finish_file(id);
        }
    }
    loader.preview()
}

/// What the preview must equal: the earlier files whole, and the one being read cut after its
/// last complete line.
fn cut_after_last_line(files: &[(String, Vec<u8>)], file: usize, stop: usize) -> Vec<(String, Vec<u8>)> {
    let mut expected: Vec<(String, Vec<u8>)> = files[..file].to_vec();
    let (path, bytes) = &files[file];
    let read = &bytes[..stop.min(bytes.len())];
    let keep = read.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    expected.push((path.clone(), read[..keep].to_vec()));
    expected
}

/// A dump without its diagnostics, and the diagnostics apart. The loader mends bytes in its
/// buffer as it reads (invalid UTF-8, lone surrogates), so a preview, parsed from that buffer,
/// reports fewer problems than the files themselves; everything else is the same.
fn split_diagnostics(dump: &str) -> (String, Vec<String>) {
    let (notes, rest): (Vec<&str>, Vec<&str>) = dump.lines().partition(|l| l.contains(" diagnostic "));
    (rest.join("\n"), notes.into_iter().map(str::to_owned).collect())
}

fn assert_preview_matches(preview: &str, expected: &str) -> Result<(), TestCaseError> {
    let (preview, preview_notes) = split_diagnostics(preview);
    let (expected, expected_notes) = split_diagnostics(expected);
    prop_assert!(preview == expected, "the preview holds other entries than the cut files");
    for note in &preview_notes {
        prop_assert!(expected_notes.contains(note), "the preview reports what the cut files do not: {}", note);
    }
    Ok(())
}

#[test]
fn a_preview_of_a_big_session_holds_its_first_lines_and_builds_a_graph() {
    let files = synthetic_files(1 << 20, 11);
    let whole = load_chunked(&files, 0);
    let stop = files[0].1.len() / 4;
    let preview = preview_after(&files, 0, stop, 64 << 10);
    let expected = load_chunked(&cut_after_last_line(&files, 0, stop), 0);
    assert_preview_matches(&dump_corpus(&preview), &dump_corpus(&expected)).unwrap();
    // The preview's entries are the first entries of the whole load, the same lines.
    assert!(!preview.entries.is_empty() && preview.entries.len() < whole.entries.len());
    for (a, b) in preview.entries.iter().zip(&whole.entries) {
        assert_eq!(preview.entry_uuid(a), whole.entry_uuid(b));
        assert_eq!(a.line, b.line);
    }
    let graph = sessionscope_engine::dag::Graph::build(&preview);
    assert_eq!(graph.sessions.len(), 1, "the preview shows the session being read");
    assert!(preview.files[0].counts.balanced());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn a_preview_equals_the_files_cut_after_their_last_complete_line(file in 0usize..3, stop in 0usize..40_000, chunk in 1usize..5000) {
        let files = mixed_files();
        let preview = dump_corpus(&preview_after(&files, file, stop, chunk));
        let expected = dump_corpus(&load_chunked(&cut_after_last_line(&files, file, stop), 0));
        assert_preview_matches(&preview, &expected)?;
    }
}
