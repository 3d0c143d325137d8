//! Files of any size: a file bigger than one buffer can be (2 GiB) is read in parts and gives
//! the same sessions as if it were one; a loader that holds at most so many bytes (a browser tab)
//! reads each file up to its share, cut after a whole line, and counts the lines it left out.
//! The limits are made small here, so the files are too.

mod common;

use common::*;
use sessionscope_engine::Loader;
use sessionscope_engine::dag::Graph;
use sessionscope_engine::load::held_sizes;
use sessionscope_engine::model::{Corpus, DiagnosticKind, Start};
use sessionscope_engine::summary::summarize;
use sessionscope_engine::units::human_bytes;

/// A synthetic session of about `bytes`, with broken lines: its main file's name and bytes.
fn session(bytes: u64, seed: u64) -> (String, Vec<u8>) {
    let session = sessionscope_synth::generate(&sessionscope_synth::SynthOptions {
        target_bytes: bytes,
        seed,
        agents: false,
        broken: true,
    });
    (session.main_file_name(), session.main)
}

/// One file read by a loader that holds at most `budget` bytes, pushed whole.
fn held_one(name: &str, bytes: &[u8], budget: u64) -> Corpus {
    let mut loader = Loader::new();
    loader.hold_at_most(budget, "why");
    let id = loader.add_file(name, bytes.len() as u64);
    loader.push(id, bytes);
    loader.finish_file(id);
    loader.finish()
}

/// Every entry as (line, uuid, line's bytes), in the order read: what a reader sees of it.
fn entries(corpus: &Corpus) -> Vec<(u32, String, Vec<u8>)> {
    corpus
        .entries
        .iter()
        .map(|e| (e.line, corpus.span_text(e.file, e.uuid).into_owned(), corpus.line_bytes(e).to_vec()))
        .collect()
}

/// Every diagnostic as (line, kind, message), without the file it names (a part has its own id).
fn diagnostics(corpus: &Corpus) -> Vec<(u32, DiagnosticKind, String)> {
    corpus.diagnostics.iter().map(|d| (d.line, d.kind, d.message.clone())).collect()
}

fn read_in_parts(name: &str, bytes: &[u8], part_max: usize, chunk: usize) -> Corpus {
    let mut loader = Loader::with_part_max(part_max);
    let id = loader.add_file(name, bytes.len() as u64);
    if chunk == 0 {
        loader.push_vec(id, bytes.to_vec());
    } else {
        for piece in bytes.chunks(chunk) {
            loader.push(id, piece);
        }
    }
    loader.finish_file(id);
    loader.finish()
}

#[test]
fn a_file_bigger_than_a_part_reads_as_the_same_session() {
    let (name, bytes) = session(1 << 20, 7);
    let whole = load_one(&name, &bytes);
    let whole_graph = Graph::build(&whole);
    for chunk in [0, 4096, 100_000, 300_000] {
        let parts = read_in_parts(&name, &bytes, 200_000, chunk);
        let label = format!("1 MB in parts of 200 KB, pushed in chunks of {chunk} bytes");
        assert!(parts.files.len() >= 5, "{label}: {} part(s)", parts.files.len());
        assert!(
            parts.files.iter().skip(1).all(|f| f.is_part() && f.path == name),
            "{label}: later parts name the file"
        );
        assert!(parts.bytes.iter().all(|b| b.len() <= 200_000), "{label}: no part passes its limit");
        assert_eq!(parts.bytes.iter().map(Vec::len).sum::<usize>(), bytes.len(), "{label}: every byte is kept once");
        assert_eq!(entries(&parts), entries(&whole), "{label}: the same entries, numbered the same");
        assert_eq!(diagnostics(&parts), diagnostics(&whole), "{label}: the same diagnostics");
        let graph = Graph::build(&parts);
        let (a, b) = (summarize(&parts, &graph), summarize(&whole, &whole_graph));
        assert_eq!(
            serde_json::to_value(&a).unwrap(),
            serde_json::to_value(&b).unwrap(),
            "{label}: the same summary (one file, its lines, sessions, usage)"
        );
        assert!(parts.counts().balanced(), "{label}: every line is accounted for");
    }
}

#[test]
fn a_line_longer_than_a_part_is_left_out_with_its_reason() {
    let (name, mut bytes) = session(300_000, 3);
    if !bytes.ends_with(b"\n") {
        bytes.push(b'\n');
    }
    let first_lines = count_lines(&bytes);
    // A line of 300 KB, then more lines.
    bytes.extend_from_slice(b"{\"type\":\"user\",\"text\":\"");
    bytes.extend(std::iter::repeat_n(b'x', 300_000));
    bytes.extend_from_slice(b"\"}\n{\"type\":\"summary\",\"summary\":\"after\"}\n");
    let corpus = read_in_parts(&name, &bytes, 200_000, 65_536);
    let counts = corpus.counts();
    assert!(counts.balanced());
    assert_eq!(counts.lines, first_lines + 2, "every line is counted");
    assert_eq!(counts.left_out, 2, "the long line and the one after it are left out");
    let left = corpus.diagnostics.iter().find(|d| d.kind == DiagnosticKind::LeftOut).expect("a diagnostic says so");
    assert_eq!(u64::from(left.line), first_lines + 1);
    assert!(left.message.contains("longer than the 200 KB a line can be"), "{}", left.message);
}

#[test]
fn a_held_file_is_cut_after_its_last_whole_line_and_its_other_lines_are_counted() {
    let (name, bytes) = session(1 << 20, 11);
    let held = 300_000;
    let cut_at = memchr::memrchr(b'\n', &bytes[..held]).unwrap() + 1;
    let expected = load_one(&name, &bytes[..cut_at]);
    let why = "this page holds up to 300 KB; open the whole file with `sessionscope open`";
    for chunk in [0, 1000, 65_536, 299_999, 300_001] {
        let mut loader = Loader::new();
        loader.hold_at_most(held as u64, why);
        let id = loader.add_file(&name, bytes.len() as u64);
        if chunk == 0 {
            loader.push_vec(id, bytes.clone());
        } else {
            bytes.chunks(chunk).for_each(|piece| loader.push(id, piece));
        }
        loader.finish_file(id);
        let corpus = loader.finish();
        let label = format!("chunks of {chunk} bytes");
        assert_eq!(corpus.bytes[0].len(), cut_at, "{label}: kept up to the last whole line in its share");
        assert_eq!(entries(&corpus), entries(&expected), "{label}: the lines kept are read as usual");
        let counts = corpus.counts();
        assert!(counts.balanced(), "{label}: every line is accounted for");
        assert_eq!(counts.lines, count_lines(&bytes), "{label}: the lines left out are counted");
        assert_eq!(counts.left_out, count_lines(&bytes) - count_lines(&bytes[..cut_at]), "{label}");
        let left: Vec<_> = corpus.diagnostics.iter().filter(|d| d.kind == DiagnosticKind::LeftOut).collect();
        assert_eq!(left.len(), 1, "{label}: one diagnostic says what was left out");
        assert_eq!(u64::from(left[0].line), count_lines(&bytes[..cut_at]) + 1, "{label}: from the first line not read");
        assert_eq!(left[0].offset, cut_at as u64);
        assert!(left[0].message.ends_with(why), "{label}: {}", left[0].message);
        let sizes = format!(
            "({} of the file's {})",
            human_bytes((bytes.len() - cut_at) as u64),
            human_bytes(bytes.len() as u64)
        );
        assert!(left[0].message.contains(&sizes), "{label}: {} has {sizes}", left[0].message);
    }
}

/// A file read a part at a time, as a page that holds at most `budget` bytes shows it: each part
/// starts where the last one's lines left out begin. The parts, in order.
fn read_part_by_part(name: &str, bytes: &[u8], budget: u64, chunk: usize) -> Vec<Corpus> {
    let mut parts = Vec::new();
    let mut start = Start::BEGINNING;
    loop {
        let mut loader = Loader::new();
        loader.hold_at_most(budget, "why");
        let rest = &bytes[start.offset as usize..];
        let id = loader.add_file_from(name, rest.len() as u64, start);
        rest.chunks(chunk).for_each(|piece| loader.push(id, piece));
        loader.finish_file(id);
        let corpus = loader.finish();
        let next = corpus.files[0].held.and_then(|held| held.next);
        parts.push(corpus);
        match next {
            Some(next) if parts.len() < 100 => start = next,
            _ => return parts,
        }
    }
}

#[test]
fn a_file_read_a_part_at_a_time_shows_every_line_once_numbered_as_in_the_whole() {
    let (name, bytes) = session(1 << 20, 5);
    let whole = load_one(&name, &bytes);
    let lines = count_lines(&bytes);
    for chunk in [4096, 65_536, 1 << 20] {
        let parts = read_part_by_part(&name, &bytes, 300_000, chunk);
        let label = format!("parts of 300 KB, pushed in chunks of {chunk} bytes");
        assert!(parts.len() >= 4, "{label}: {} part(s)", parts.len());
        // Together the parts hold every entry of the whole, in order, at the same line numbers.
        let together: Vec<_> = parts.iter().flat_map(entries).collect();
        assert_eq!(together, entries(&whole), "{label}: the same entries, once each, numbered the same");
        let mut offset = 0;
        for (i, part) in parts.iter().enumerate() {
            let counts = part.counts();
            assert!(counts.balanced(), "{label}, part {i}: every line is accounted for");
            assert_eq!(counts.lines, lines, "{label}, part {i}: every line of the file is counted");
            let held = part.files[0].held.expect("each part says what it holds");
            assert_eq!(held.from.offset, offset, "{label}, part {i}: it starts where the last one stopped");
            assert_eq!(held.file_size, bytes.len() as u64, "{label}, part {i}");
            assert_eq!(held.file_lines, lines, "{label}, part {i}");
            let kept = part.bytes[0].len() as u64;
            assert!(kept <= 300_000, "{label}, part {i}: no part holds more than the budget");
            assert_eq!(held.next.is_some(), i + 1 < parts.len(), "{label}, part {i}: only the last has no next part");
            if let Some(next) = held.next {
                assert_eq!(
                    next.offset,
                    offset + kept,
                    "{label}, part {i}: the next part starts after the last byte held"
                );
                assert_eq!(bytes[next.offset as usize - 1], b'\n', "{label}, part {i}: at the start of a line");
                let line = count_lines(&bytes[..next.offset as usize]) + 1;
                assert_eq!(u64::from(next.line), line, "{label}, part {i}: its line is numbered as in the file");
            }
            // What was left out before and after is said, once each, from its first line.
            let left: Vec<_> = part.diagnostics.iter().filter(|d| d.kind == DiagnosticKind::LeftOut).collect();
            let expected = usize::from(i > 0) + usize::from(held.next.is_some());
            assert_eq!(left.len(), expected, "{label}, part {i}: {left:?}");
            if i > 0 {
                let before = left.iter().find(|d| d.line == 1).expect("the lines before are said");
                let said = format!("lines 1–{} ({} of the file's", held.from.line - 1, human_bytes(held.from.offset));
                assert!(before.message.starts_with(&said), "{label}, part {i}: {}", before.message);
            }
            offset += kept;
        }
        assert_eq!(offset, bytes.len() as u64, "{label}: the parts cover the file");
    }
}

#[test]
fn a_preview_of_a_part_is_numbered_as_the_part() {
    let (name, bytes) = session(600_000, 9);
    let start_at = memchr::memchr(b'\n', &bytes[250_000..]).unwrap() + 250_001;
    let start = Start { offset: start_at as u64, line: count_lines(&bytes[..start_at]) as u32 + 1 };
    let mut loader = Loader::new();
    let id = loader.add_file_from(&name, (bytes.len() - start_at) as u64, start);
    loader.push(id, &bytes[start_at..start_at + 100_000]);
    let preview = loader.preview();
    assert!(!preview.entries.is_empty());
    assert!(preview.entries.iter().all(|e| e.line >= start.line), "numbered from the part's first line");
    assert!(preview.counts().balanced());
    assert_eq!(preview.counts().left_out, u64::from(start.line) - 1, "the lines before are counted as left out");
}

#[test]
fn files_share_what_is_held_in_order() {
    assert_eq!(held_sizes([100, 200, 300], 250), vec![100, 150, 0]);
    assert_eq!(held_sizes([100, 200], 1000), vec![100, 200]);
    let (a, a_bytes) = session(200_000, 1);
    let (b, b_bytes) = session(200_000, 2);
    let mut loader = Loader::new();
    loader.hold_at_most(250_000, "why");
    for (name, bytes) in [(&a, &a_bytes), (&b, &b_bytes)] {
        let id = loader.add_file(name, bytes.len() as u64);
        bytes.chunks(8192).for_each(|piece| loader.push(id, piece));
        loader.finish_file(id);
    }
    let corpus = loader.finish();
    let shares = held_sizes([a_bytes.len() as u64, b_bytes.len() as u64], 250_000);
    assert_eq!(corpus.bytes[0].len(), a_bytes.len(), "the first file is whole");
    assert!(corpus.bytes[1].len() as u64 <= shares[1] && shares[1] - (corpus.bytes[1].len() as u64) < 20_000);
    assert_eq!(corpus.files[1].counts.lines, count_lines(&b_bytes));
    assert!(corpus.files[1].counts.left_out > 0 && corpus.counts().balanced());
    // A file with no share left is counted, line by line, and read not at all.
    let corpus = held_one(&a, &a_bytes, 0);
    assert!(corpus.entries.is_empty());
    assert_eq!(corpus.files[0].counts.left_out, count_lines(&a_bytes));
    assert_eq!(corpus.diagnostics.iter().filter(|d| d.kind == DiagnosticKind::LeftOut).count(), 1);
}

#[test]
fn a_history_row_says_how_many_lines_of_its_session_were_left_out() {
    let (name, bytes) = session(600_000, 13);
    let corpus = held_one(&name, &bytes, 200_000);
    let graph = Graph::build(&corpus);
    let rows = sessionscope_engine::history::session_rows(&corpus, &graph, "p");
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].left_out_lines, corpus.files[0].counts.left_out);
    assert!(rows[0].left_out_lines > 0);
    let json = serde_json::to_value(&rows[0]).unwrap();
    assert_eq!(json["left_out_lines"], rows[0].left_out_lines);
    // A session read whole says nothing of it, and its JSON has no such field.
    let whole = load_one(&name, &bytes);
    let rows = sessionscope_engine::history::session_rows(&whole, &Graph::build(&whole), "p");
    assert_eq!(rows[0].left_out_lines, 0);
    assert!(serde_json::to_value(&rows[0]).unwrap().get("left_out_lines").is_none());
}

/// A session's worker that does not hold a big session's bytes searches it step by step, each
/// step reading only the windows of the files its entries' fields are in. It finds every hit a
/// search of the whole finds, in the same order, for plain words and a regular expression, over
/// a main file and its subagents' files.
#[test]
fn a_search_in_windows_finds_what_a_search_of_the_whole_finds() {
    use sessionscope_engine::search::{Query, Windows, searched_extents};
    let session = sessionscope_synth::generate(&sessionscope_synth::SynthOptions {
        target_bytes: 600_000,
        seed: 11,
        agents: true,
        broken: true,
    });
    assert!(!session.agents.is_empty(), "the session has subagents' files");
    let mut files = vec![(session.main_file_name(), session.main.clone())];
    files.extend(session.agents.iter().cloned());
    let corpus = load_chunked(&files, 0);
    for (text, regex) in [("the", false), ("Read", false), ("zanzibar", false), (r"fn \w+\(", true), ("é", false)] {
        let query = Query::new(text, regex).expect("a valid query");
        let mut whole = Vec::new();
        let count = query.search(&corpus, 0..corpus.entries.len(), &mut |hit| whole.push(hit));
        if text != "zanzibar" {
            assert!(!whole.is_empty(), "{text} is in the session");
        }
        let mut windowed = Vec::new();
        let mut windowed_count = 0;
        let mut widest = 0;
        for start in (0..corpus.entries.len()).step_by(37) {
            let range = start..(start + 37).min(corpus.entries.len());
            let mut windows = Windows::none();
            windows.files.resize(corpus.files.len(), None);
            for (file, from, to) in searched_extents(&corpus, range.clone()) {
                let bytes = corpus.bytes[file as usize][from as usize..to as usize].to_vec();
                widest = widest.max(bytes.len());
                windows.files[file as usize] = Some((from, bytes));
            }
            // The corpus' own bytes are not read: only the windows are.
            let mut bare = corpus.clone();
            bare.bytes.iter_mut().for_each(Vec::clear);
            windowed_count += query.search_in(&bare, &windows, range, &mut |hit| windowed.push(hit));
        }
        assert_eq!((windowed_count, windowed.len()), (count, whole.len()), "{text}: same counts");
        assert_eq!(windowed, whole, "{text}: same hits");
        assert!(widest < session.main.len() / 4, "{text}: a step reads a window, not a whole file ({widest} bytes)");
    }
}
