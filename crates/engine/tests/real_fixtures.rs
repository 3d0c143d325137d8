//! The rules of the tests that read the team's real session logs: they find them only through
//! the shared helpers (so each of them skips, or fails when CI requires the logs, the same way),
//! each real snapshot has its fixture folder, and the helper's decision is the documented one.

mod common;

use std::path::{Path, PathBuf};

use common::*;

/// The repository's root.
fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every file under `dir` whose name ends with `suffix`.
fn sources(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    read_folder(dir).into_iter().filter(|(path, _)| path.ends_with(suffix)).map(|(path, _)| dir.join(path)).collect()
}

#[test]
fn only_the_helpers_know_where_the_real_fixtures_are() {
    let root = repository();
    // The two helpers, and this file, which names what it looks for.
    let helpers = [
        root.join("crates/engine/tests/common/mod.rs"),
        root.join("crates/engine/tests/real_fixtures.rs"),
        root.join("tests/browser/harness.mjs"),
    ];
    let mut files = Vec::new();
    for crate_dir in subfolders(&root.join("crates")) {
        files.extend(sources(&crate_dir.1.join("tests"), ".rs"));
    }
    files.extend(sources(&root.join("tests/browser"), ".mjs"));
    assert!(files.len() > 10, "the test sources were found: {files:?}");
    let mut bypasses = Vec::new();
    for file in files.iter().filter(|file| !helpers.contains(file)) {
        let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        for needle in ["fixtures/real", REAL_FIXTURES_PATH, REQUIRE_REAL_FIXTURES, "REAL_FIXTURES"] {
            if text.contains(needle) {
                bypasses.push(format!("{} names {needle}", file.strip_prefix(&root).unwrap_or(file).display()));
            }
        }
    }
    assert!(
        bypasses.is_empty(),
        "read the real fixtures through real_fixtures() (Rust) or realFixture(t, ...) (browser), which skip or \
         fail as CI asks: {bypasses:#?}"
    );
}

#[test]
fn every_real_snapshot_has_its_fixture_folder() {
    let snapshots = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots");
    let mut parse = Vec::new();
    let mut dag = Vec::new();
    for (name, _) in read_folder(&snapshots) {
        if let Some(folder) = name.strip_prefix("parse__real-").and_then(|n| n.strip_suffix(".snap")) {
            parse.push(folder.to_owned());
        } else if let Some(folder) = name.strip_prefix("dag__real-dag-").and_then(|n| n.strip_suffix(".snap")) {
            dag.push(folder.to_owned());
        }
    }
    assert_eq!(parse, REAL_FOLDERS, "parse snapshots of the real logs");
    assert_eq!(dag, REAL_FOLDERS, "dag snapshots of the real logs");
}

#[test]
fn missing_real_fixtures_are_skipped_unless_required() {
    let nowhere = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/no-such-folder");
    assert_eq!(locate_real_fixtures(&nowhere, false), Ok(None));
    let why = locate_real_fixtures(&nowhere, true).expect_err("required and missing");
    assert!(why.contains(&nowhere.display().to_string()), "{why}");
    assert!(why.contains("CI requires them"), "{why}");
    // A folder that is there but lacks the Claude Code folders fails whether or not required.
    let elsewhere = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    for required in [false, true] {
        let why = locate_real_fixtures(&elsewhere, required).expect_err("incomplete");
        assert!(why.contains("compaction-2.1.39"), "{why}");
    }
}
