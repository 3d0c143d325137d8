//! Chunk boundaries must not matter: the same bytes fed in slices of any size give the same
//! model as the whole file at once.

mod common;

use common::*;
use proptest::prelude::*;
use sessionscope_engine::dump::{dump_corpus, dump_graph};
use sessionscope_engine::model::DiagnosticKind;

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
    fn mutated_cursor_transcripts_never_panic(which in 0usize..2, position in 0usize..4000, byte in any::<u8>(), chunk in 1usize..200) {
        // A Cursor CLI transcript and one of its subagents, in their folders: any byte changed.
        let folder = "cursor/projects/home-dev-brewlog/agent-transcripts/5d1c2b3a-4e5f-4a6b-8c7d-9e0f1a2b3c4d";
        let names = [
            format!("{folder}/5d1c2b3a-4e5f-4a6b-8c7d-9e0f1a2b3c4d.jsonl"),
            format!("{folder}/subagents/8e0f6a4b-1c2d-4e3f-9a5b-6c7d8e9f0a1b.jsonl"),
        ];
        let mut files: Vec<(String, Vec<u8>)> = names.iter().map(|name| (name.clone(), fixture(name))).collect();
        let bytes = &mut files[which].1;
        let at = position % bytes.len();
        bytes[at] = byte;
        let corpus = load_chunked(&files, chunk);
        for (info, (_, bytes)) in corpus.files.iter().zip(&files) {
            prop_assert!(info.counts.balanced());
            prop_assert_eq!(info.counts.lines, count_lines(bytes));
        }
        let graph = sessionscope_engine::dag::Graph::build(&corpus);
        let _ = sessionscope_engine::summary::summarize(&corpus, &graph);
        for entry in &corpus.entries {
            let _ = corpus.first_text(entry);
            let _ = corpus.entry_details(entry);
        }
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

/// What a snapshot of a file read up to `stop` must equal: the file cut after its last complete
/// line, or up to `stop` if what follows that line is a whole JSON value already.
fn cut_for_snapshot(bytes: &[u8], stop: usize) -> Vec<u8> {
    let read = &bytes[..stop.min(bytes.len())];
    let keep = read.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let tail_is_whole = serde_json::from_slice::<serde::de::IgnoredAny>(&read[keep..]).is_ok();
    if keep < read.len() && tail_is_whole { read.to_vec() } else { read[..keep].to_vec() }
}

/// Files read side by side put their entries in the corpus in another order than files read
/// one after the other: the graph built from them must be the same, and the corpus the same
/// lines in another order.
fn assert_same_model(
    got: &sessionscope_engine::Corpus,
    expected: &sessionscope_engine::Corpus,
    what: &str,
) -> Result<(), TestCaseError> {
    let graph_of = |c: &sessionscope_engine::Corpus| dump_graph(c, &sessionscope_engine::dag::Graph::build(c));
    let (got_graph, expected_graph) = (graph_of(got), graph_of(expected));
    let first = got_graph.lines().zip(expected_graph.lines()).find(|(a, b)| a != b);
    prop_assert!(got_graph == expected_graph, "{}: the graph differs from the files cut there: {:?}", what, first);
    let sorted = |dump: String| {
        let mut lines: Vec<String> = dump.lines().map(str::to_owned).collect();
        lines.sort_unstable();
        lines
    };
    prop_assert!(sorted(dump_corpus(got)) == sorted(dump_corpus(expected)), "{}: the corpus differs", what);
    Ok(())
}

/// Grows every file of `files` together, to each of `stops` in turn (a fraction of each file,
/// in thousandths), in slices of `chunk` bytes; after each step the snapshot must equal the
/// files cut where the snapshot cuts them, read whole. At the end the loader, finished, must
/// equal the whole files.
fn grow_and_compare(files: &[(String, Vec<u8>)], stops: &[usize], chunk: usize) -> Result<(), TestCaseError> {
    let mut loader = sessionscope_engine::Loader::new();
    let ids: Vec<_> = files.iter().map(|(path, _)| loader.add_file(path, 0)).collect();
    let mut pushed = vec![0usize; files.len()];
    let mut stops = stops.to_vec();
    stops.sort_unstable();
    stops.push(1000);
    for stop in stops {
        let mut expected = Vec::new();
        for (((path, bytes), &id), done) in files.iter().zip(&ids).zip(&mut pushed) {
            let end = (bytes.len() * stop / 1000).max(*done);
            for piece in bytes[*done..end].chunks(chunk.max(1)) {
                loader.push(id, piece);
            }
            *done = end;
            prop_assert_eq!(loader.file_len(id), end as u64);
            let cut = if path.ends_with(".meta.json") { bytes[..end].to_vec() } else { cut_for_snapshot(bytes, end) };
            expected.push((path.clone(), cut));
        }
        let expected = load_chunked(&expected, 0);
        assert_same_model(&loader.snapshot(), &expected, &format!("the snapshot at {stop}‰"))?;
    }
    assert_same_model(&loader.finish(), &load_chunked(files, 0), "the finished load")?;
    Ok(())
}

#[test]
fn a_session_that_grows_line_by_line_is_read_once_and_shows_each_line_as_it_comes() {
    let files = synthetic_files(256 << 10, 7);
    let main = &files[0].1;
    let mut loader = sessionscope_engine::Loader::new();
    let id = loader.add_file(&files[0].0, 0);
    let mut entries = 0;
    for (at, line) in main.split_inclusive(|&b| b == b'\n').enumerate().take(60) {
        // The agent writes half a line, then the rest: the half waits, and is no diagnostic.
        let half = line.len() / 2;
        loader.push(id, &line[..half]);
        let waiting = loader.snapshot();
        assert_eq!(waiting.files[0].counts.lines, at as u64, "a half-written line is not counted yet");
        assert!(
            waiting.diagnostics.iter().all(|d| d.line as usize <= at),
            "a half-written line is no diagnostic: {:?}",
            waiting.diagnostics.last()
        );
        loader.push(id, &line[half..]);
        let grown = loader.snapshot();
        assert_eq!(grown.files[0].counts.lines, at as u64 + 1);
        assert!(grown.files[0].counts.balanced());
        assert!(grown.entries.len() >= entries);
        entries = grown.entries.len();
    }
    assert!(entries > 20, "the first 60 lines hold entries ({entries})");
}

#[test]
fn a_last_line_written_whole_without_its_newline_is_shown() {
    let line = br#"{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","timestamp":"2025-01-01T00:00:00Z","message":{"role":"user","content":"hi"}}"#;
    let mut loader = sessionscope_engine::Loader::new();
    let id = loader.add_file("s.jsonl", 0);
    loader.push(id, line);
    let snapshot = loader.snapshot();
    assert_eq!(snapshot.entries.len(), 1);
    assert!(snapshot.diagnostics.is_empty(), "{:?}", snapshot.diagnostics);
    // The loader itself still waits for the newline: it comes, and nothing is read twice.
    loader.push(id, b"\n");
    let corpus = loader.finish();
    assert_eq!(corpus.entries.len(), 1);
    assert_eq!(corpus.files[0].counts.lines, 1);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn snapshots_of_growing_files_equal_the_files_cut_where_they_stand(
        stops in proptest::collection::vec(0usize..1000, 1..6),
        chunk in 1usize..3000,
    ) {
        grow_and_compare(&mixed_files(), &stops, chunk)?;
    }

    #[test]
    fn snapshots_of_a_growing_session_with_agents_equal_the_files_cut_where_they_stand(
        stops in proptest::collection::vec(0usize..1000, 1..4),
    ) {
        grow_and_compare(&synthetic_files(96 << 10, 3), &stops, 4096)?;
    }
}

/// The record streams of the agents' databases (`tests/fixtures/opencode/opencode.jsonl`,
/// `tests/fixtures/cursor/state.jsonl`), with the name the command line gives them.
fn record_streams() -> Vec<(String, Vec<u8>)> {
    vec![
        ("opencode.db".to_owned(), fixture("opencode/opencode.jsonl")),
        ("state.vscdb".to_owned(), fixture("cursor/state.jsonl")),
    ]
}

#[test]
fn record_streams_read_the_same_in_slices_and_together() {
    for (name, bytes) in record_streams() {
        assert_same_for_every_chunk_size(&name, &[(name.clone(), bytes)]);
    }
    assert_same_for_every_chunk_size("both databases", &record_streams());
}

#[test]
fn record_streams_cut_at_every_byte_never_panic_and_account_for_every_record() {
    for (name, bytes) in record_streams() {
        for cut in 0..=bytes.len() {
            let piece = &bytes[..cut];
            let corpus = load_one(&name, piece);
            let counts = corpus.files[0].counts;
            assert!(counts.balanced(), "{name} cut at {cut}: {counts:?}");
            assert_eq!(counts.lines, count_lines(piece), "{name} cut at {cut}");
            let graph = sessionscope_engine::dag::Graph::build(&corpus);
            for op in &graph.tool_ops {
                let _ = sessionscope_engine::dag::tools::op_summary(&corpus, op);
            }
        }
    }
}

#[test]
fn bad_records_are_diagnostics_at_their_number_and_the_rest_is_read() {
    let mut opencode = String::from_utf8(fixture("opencode/opencode.jsonl")).expect("UTF-8");
    // After the fixture's 30 records: broken JSON, a row of another table, rows without their
    // ids, a data that is no object, a repeated part, a part whose message is missing, a bare
    // value.
    opencode.push_str(concat!(
        "{\"table\":\"message\",\"id\":\"msg_x\",\"session_id\":\n",
        "{\"table\":\"todo\",\"session_id\":\"ses_root\"}\n",
        "{\"table\":\"message\",\"session_id\":\"ses_root\",\"data\":{}}\n",
        "{\"table\":\"part\",\"id\":\"prt_y\",\"data\":{}}\n",
        "{\"table\":\"message\",\"id\":\"msg_s\",\"session_id\":\"ses_root\",\"data\":\"{not json\"}\n",
        "{\"table\":\"part\",\"id\":\"prt_u1_01\",\"message_id\":\"msg_u1\",\"data\":{\"type\":\"text\",\"text\":\"again\"}}\n",
        "{\"table\":\"part\",\"id\":\"prt_lost\",\"message_id\":\"msg_gone\",\"session_id\":\"ses_other\",\"data\":{\"type\":\"text\",\"text\":\"lost\"}}\n",
        "42\n",
    ));
    let corpus = load_one("opencode.db", opencode.as_bytes());
    let counts = corpus.files[0].counts;
    assert!(counts.balanced(), "{counts:?}");
    assert_eq!(counts.lines, 38);
    let found: Vec<(u32, DiagnosticKind)> = corpus.diagnostics.iter().map(|d| (d.line, d.kind)).collect();
    assert_eq!(
        found,
        [
            (31, DiagnosticKind::InvalidJson),
            (32, DiagnosticKind::UnexpectedLine),
            (33, DiagnosticKind::MissingUuid),
            (34, DiagnosticKind::MissingUuid),
            (35, DiagnosticKind::NotAnObject),
            (36, DiagnosticKind::DuplicateUuid),
            (38, DiagnosticKind::NotAnObject),
        ],
        "{:?}",
        corpus.diagnostics
    );
    // The part without its message is a message of its own, in its session.
    let lost = corpus.entries.iter().find(|e| e.line == 37).expect("the lost part's entry");
    assert_eq!(corpus.sym(lost.session_id), "ses_other");

    let mut cursor = String::from_utf8(fixture("cursor/state.jsonl")).expect("UTF-8");
    cursor.push_str(concat!(
        "{\"table\":\"cursorDiskKV\",\"key\":\"bubbleId:c1\",\"value\":{}}\n",
        "{\"table\":\"cursorDiskKV\",\"key\":\"bubbleId:c1:zz1\",\"value\":{\"type\":1}}\n",
        "{\"table\":\"cursorDiskKV\",\"key\":\"checkpointId:c1:x\",\"value\":{}}\n",
        "{\"table\":\"ItemTable\",\"key\":\"x\",\"value\":{}}\n",
        "{\"table\":\"cursorDiskKV\",\"key\":\"bubbleId:c9:b1\",\"value\":\"{cut\"}\n",
        "{\"table\":\"cursorDiskKV\",\"key\":\"bubbleId:c9:b2\",\"value\":{\"type\":1,\"text\":\"a chat without its row\"}}\n",
    ));
    let corpus = load_one("state.vscdb", cursor.as_bytes());
    let counts = corpus.files[0].counts;
    assert!(counts.balanced(), "{counts:?}");
    assert_eq!(counts.lines, 12);
    let found: Vec<(u32, DiagnosticKind)> = corpus.diagnostics.iter().map(|d| (d.line, d.kind)).collect();
    assert_eq!(
        found,
        [
            (7, DiagnosticKind::MissingUuid),
            (8, DiagnosticKind::DuplicateUuid),
            (9, DiagnosticKind::UnexpectedLine),
            (10, DiagnosticKind::UnexpectedLine),
            (11, DiagnosticKind::NotAnObject),
        ],
        "{:?}",
        corpus.diagnostics
    );
    let graph = sessionscope_engine::dag::Graph::build(&corpus);
    let sessions: Vec<&str> = graph.sessions.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(sessions, ["c1", "c9"]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn mutated_record_streams_never_panic(which in 0usize..2, position in 0usize..6000, byte in any::<u8>(), chunk in 1usize..200) {
        let (name, mut bytes) = record_streams().swap_remove(which);
        let at = position % bytes.len();
        bytes[at] = byte;
        let corpus = load_chunked(&[(name, bytes.clone())], chunk);
        prop_assert!(corpus.files[0].counts.balanced());
        prop_assert_eq!(corpus.files[0].counts.lines, count_lines(&bytes));
        let graph = sessionscope_engine::dag::Graph::build(&corpus);
        for entry in &corpus.entries {
            let _ = corpus.first_text(entry);
            let _ = corpus.entry_details(entry);
        }
        let _ = graph;
    }
}

/// OpenCode's storage fixture (`tests/fixtures/opencode/storage/`), named as the command line
/// names its files.
fn opencode_storage() -> Vec<(String, Vec<u8>)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/opencode/storage");
    read_folder(&dir).into_iter().map(|(path, bytes)| (format!("storage/{path}"), bytes)).collect()
}

/// Every storage file and every line of it accounted for; the record stream made of them too.
fn assert_storage_accounted(files: &[(String, Vec<u8>)], corpus: &sessionscope_engine::Corpus) {
    for ((path, bytes), info) in files.iter().zip(&corpus.files) {
        assert!(info.counts.balanced(), "{path}: {:?}", info.counts);
        assert_eq!(info.counts.lines, count_lines(bytes), "{path}");
    }
    for info in corpus.files.iter().skip(files.len()) {
        assert!(info.is_derived() && info.counts.balanced(), "{}: {:?}", info.path, info.counts);
    }
}

#[test]
fn storage_files_cut_at_every_byte_never_panic_and_account_for_every_line() {
    let files = opencode_storage();
    for which in ["storage/part/msg_a1/prt_a1_05.json", "storage/message/ses_root/msg_a1.json"] {
        let at = files.iter().position(|(path, _)| path == which).expect("a fixture file");
        for cut in 0..=files[at].1.len() {
            let mut cut_files = files.clone();
            cut_files[at].1.truncate(cut);
            let corpus = load_chunked(&cut_files, 0);
            assert_storage_accounted(&cut_files, &corpus);
            let graph = sessionscope_engine::dag::Graph::build(&corpus);
            assert!(graph.sessions.iter().any(|s| s.id == "ses_root"), "{which} cut at {cut}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn mutated_storage_files_never_panic(which in 0usize..40, position in 0usize..2000, byte in any::<u8>(), chunk in 1usize..200) {
        let mut files = opencode_storage();
        let at = which % files.len();
        let bytes = &mut files[at].1;
        if !bytes.is_empty() {
            let position = position % bytes.len();
            bytes[position] = byte;
        }
        let corpus = load_chunked(&files, chunk);
        assert_storage_accounted(&files, &corpus);
        let _ = sessionscope_engine::dag::Graph::build(&corpus);
        for entry in &corpus.entries {
            let _ = corpus.first_text(entry);
            let _ = corpus.entry_details(entry);
        }
    }
}
