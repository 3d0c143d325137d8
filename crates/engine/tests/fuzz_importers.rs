//! Fuzzing every importer (issue 51): for each format of the importer registry
//! (`src/import/mod.rs`), a proptest that builds files of real-shaped records of that format and
//! loads them as the command line and the page do (`Loader`, in slices of any size), then builds
//! the conversation graph and its summary.
//!
//! The records start from the format's fixtures and are mutated structurally (keys dropped,
//! duplicated, renamed or reordered; values swapped for another type, huge numbers, empty, very
//! long or random-unicode strings, deep nesting, subtrees grafted from elsewhere in the fixture)
//! and byte by byte (cut at any byte or in the middle of an escape, invalid UTF-8, a newline or
//! a carriage return inside a record, CRLF line ends, a BOM). Line formats are assembled from
//! several such lines; document formats (a Gemini CLI session, an Amp thread, the files of a
//! Cline or Roo Code task, OpenCode's storage files) have their documents mutated; an Aider chat
//! history has its markdown lines mutated.
//!
//! Every case asserts the crate's standard: no panic; every line of every file accounted for once
//! (`LineCounts::balanced`, as many lines as the file has); every skipped line a diagnostic on its
//! line (a file refused whole says so at line 0); no diagnostic nor entry past the file's end.
//!
//! Each test runs `SESSIONSCOPE_FUZZ_CASES` cases (64 by default, so `cargo test` stays fast);
//! a long run is one command, e.g.
//! `SESSIONSCOPE_FUZZ_CASES=20000 cargo test --release -p sessionscope-engine --test fuzz_importers -- --nocapture`,
//! which prints, per format, the runs made, the time taken and how many cases the sniff read as
//! the format meant (the others test the sniff and the refusal of a file).

mod common;

use common::*;
use sessionscope_engine::Loader;
use sessionscope_engine::model::Format;

// ---------------------------------------------------------------------------------------------
// What the fuzzing found, each with the smallest input that showed it.

/// A file that the sniff rejects only once the loader's budget is reached, in the chunk that
/// passes it: the line split at the budget was counted twice, once with the rejected file's lines
/// and once as left out (found by `fuzz_codex_events`).
#[test]
fn a_file_rejected_where_the_budget_cuts_it_counts_the_line_cut_once() {
    let mut bytes = b"\n".to_vec();
    for i in 0..16 {
        bytes.extend_from_slice(format!("{{\"a\":{i}}}\n").as_bytes());
    }
    let mut loader = Loader::new();
    loader.hold_at_most(127, "why");
    let id = loader.add_file("x.jsonl", bytes.len() as u64);
    loader.push(id, &bytes);
    loader.finish_file(id);
    let corpus = loader.finish();
    let counts = corpus.files[0].counts;
    assert_eq!(corpus.files[0].format, Format::Rejected);
    assert!(counts.balanced(), "{counts:?}");
    assert_eq!(counts.lines, count_lines(&bytes), "{counts:?}");
}
