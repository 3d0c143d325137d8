//! Helpers shared by the engine's integration tests.
#![allow(dead_code)]

pub mod mcp;

use std::io::Write;
use std::path::{Path, PathBuf};

use sessionscope_engine::model::Usage;
use sessionscope_engine::{Corpus, Loader};

/// A hand-written fixture of this crate.
pub fn fixture(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

pub fn fixture_names() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("the fixtures folder")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".jsonl"))
        .collect();
    names.sort();
    names
}

/// The environment variable that makes missing real fixtures a failure instead of a skip;
/// `.ci/run` sets it, so CI never counts an unread snapshot as passed.
pub const REQUIRE_REAL_FIXTURES: &str = "SESSIONSCOPE_REQUIRE_REAL_FIXTURES";

/// The environment variable that says where the real fixtures are, instead of
/// `../shared/fixtures/real` beside the repository.
pub const REAL_FIXTURES_PATH: &str = "SESSIONSCOPE_REAL_FIXTURES";

/// The folders of the real fixtures that the tests read: Claude Code logs, one folder per
/// Claude Code version, each with its snapshots `parse__real-<name>` and `dag__real-dag-<name>`.
/// The other folders there hold logs of other agents: `pi`, `aider`, `gemini-cli`,
/// `copilot-cli` and `roo-code`, read by `formats.rs` through [`RealFixtures::every_folder`].
pub const REAL_FOLDERS: [&str; 5] =
    ["compaction-2.1.39", "early-1.0.17", "legacy-inline-sidechains-1.0.98", "session-share-2.1.14", "thinking-2.0.24"];

/// The team's real session logs (other people's data, read in place and never copied). Only
/// [`real_fixtures`] makes one, so every test that reads them skips or fails the same way.
pub struct RealFixtures {
    root: PathBuf,
}

impl RealFixtures {
    /// The folder `name`, one of [`REAL_FOLDERS`].
    pub fn folder(&self, name: &str) -> PathBuf {
        assert!(REAL_FOLDERS.contains(&name), "{name} is not one of the real fixture folders the tests read");
        self.root.join(name)
    }

    /// Every folder of [`REAL_FOLDERS`], as (name, path), in name order.
    pub fn folders(&self) -> Vec<(String, PathBuf)> {
        REAL_FOLDERS.iter().map(|name| (name.to_string(), self.root.join(name))).collect()
    }

    /// Every folder there, as (name, path), in name order: the Claude Code folders and those
    /// of other agents' logs, for tests that hold for any file (no snapshot).
    pub fn every_folder(&self) -> Vec<(String, PathBuf)> {
        let mut folders: Vec<(String, PathBuf)> = std::fs::read_dir(&self.root)
            .into_iter()
            .flatten()
            .flatten()
            .filter(|entry| entry.path().is_dir())
            .map(|entry| (entry.file_name().to_string_lossy().into_owned(), entry.path()))
            .collect();
        folders.sort();
        folders
    }
}

/// Where the real fixtures are looked for: `$SESSIONSCOPE_REAL_FIXTURES`, or
/// `../shared/fixtures/real` beside the repository.
pub fn real_fixtures_path() -> PathBuf {
    std::env::var_os(REAL_FIXTURES_PATH).filter(|path| !path.is_empty()).map(PathBuf::from).unwrap_or_else(|| {
        // The folder that holds the repository: crates/engine's third ancestor.
        let beside = Path::new(env!("CARGO_MANIFEST_DIR")).ancestors().nth(3).unwrap_or(Path::new(".."));
        beside.join("shared/fixtures/real")
    })
}

/// Whether `.ci/run` asked for the real fixtures (the variable is set to anything but `0`).
pub fn real_fixtures_required() -> bool {
    std::env::var_os(REQUIRE_REAL_FIXTURES).is_some_and(|value| !value.is_empty() && value != "0")
}

/// The real fixtures for the test `test`. When they are not there, the test is skipped: this
/// prints a note and gives `None` (libtest has no skipped status, so the test then shows as
/// passed); with `SESSIONSCOPE_REQUIRE_REAL_FIXTURES` set, it fails instead. A fixture folder
/// that is there but lacks one of [`REAL_FOLDERS`] always fails.
pub fn real_fixtures(test: &str) -> Option<RealFixtures> {
    match locate_real_fixtures(&real_fixtures_path(), real_fixtures_required()) {
        Ok(Some(root)) => Some(RealFixtures { root }),
        Ok(None) => {
            // Straight to stderr, past libtest's capture, so the skip shows in a passing run.
            let _ = writeln!(
                std::io::stderr(),
                "{test}: skipped, the real fixtures are not at {} (set {REAL_FIXTURES_PATH} to look elsewhere)",
                real_fixtures_path().display()
            );
            None
        }
        Err(why) => panic!("{test}: {why}"),
    }
}

/// The decision of [`real_fixtures`] for the folder `root`: `Ok(Some(root))` when every folder
/// of [`REAL_FOLDERS`] is there with files in it, `Ok(None)` to skip when `root` is not there
/// and they are not required, and otherwise why the test fails.
pub fn locate_real_fixtures(root: &Path, required: bool) -> Result<Option<PathBuf>, String> {
    if !root.is_dir() {
        return if required {
            Err(format!(
                "the real fixtures are not at {}, and {REQUIRE_REAL_FIXTURES} is set: CI requires them. Put the \
                 team's fixtures at ../shared/fixtures/real beside the repository or set {REAL_FIXTURES_PATH} to \
                 their folder",
                root.display()
            ))
        } else {
            Ok(None)
        };
    }
    let has_files = |dir: PathBuf| std::fs::read_dir(dir).is_ok_and(|mut entries| entries.next().is_some());
    let missing: Vec<&str> = REAL_FOLDERS.iter().copied().filter(|name| !has_files(root.join(name))).collect();
    if missing.is_empty() {
        Ok(Some(root.to_path_buf()))
    } else {
        Err(format!("the real fixtures at {} lack the folders {missing:?} (or they are empty)", root.display()))
    }
}

/// Every file under `dir`, as (path relative to `dir`, bytes), in path order.
pub fn read_folder(dir: &Path) -> Vec<(String, Vec<u8>)> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
        let Ok(read) = std::fs::read_dir(dir) else { return };
        for entry in read.flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(root, &path, out);
            } else if let Ok(bytes) = std::fs::read(&path) {
                let relative = path.strip_prefix(root).unwrap_or(&path).to_string_lossy().replace('\\', "/");
                out.push((relative, bytes));
            }
        }
    }
    let mut files = Vec::new();
    walk(dir, dir, &mut files);
    files.sort_by(|a, b| a.0.cmp(&b.0));
    files
}

/// The subfolders of `root`, as (name, path), in name order.
pub fn subfolders(root: &Path) -> Vec<(String, PathBuf)> {
    let mut folders: Vec<(String, PathBuf)> = std::fs::read_dir(root)
        .map(|read| {
            read.flatten()
                .filter(|e| e.path().is_dir())
                .map(|e| (e.file_name().to_string_lossy().into_owned(), e.path()))
                .collect()
        })
        .unwrap_or_default();
    folders.sort();
    folders
}

/// Loads files fed in chunks of `chunk` bytes (0: each file in one piece).
pub fn load_chunked(files: &[(String, Vec<u8>)], chunk: usize) -> Corpus {
    let mut loader = Loader::new();
    for (path, bytes) in files {
        let id = loader.add_file(path, bytes.len() as u64);
        if chunk == 0 {
            loader.push(id, bytes);
        } else {
            for piece in bytes.chunks(chunk) {
                loader.push(id, piece);
            }
        }
        loader.finish_file(id);
    }
    loader.finish()
}

/// Loads files fed in pieces that end at the given offsets.
pub fn load_split(files: &[(String, Vec<u8>)], cuts: &[usize]) -> Corpus {
    let mut loader = Loader::new();
    for (path, bytes) in files {
        let id = loader.add_file(path, bytes.len() as u64);
        let mut start = 0;
        let mut ends: Vec<usize> = cuts.iter().map(|c| c % (bytes.len() + 1)).collect();
        ends.sort_unstable();
        for end in ends.into_iter().chain([bytes.len()]) {
            if end > start {
                loader.push(id, &bytes[start..end]);
                start = end;
            }
        }
        loader.finish_file(id);
    }
    loader.finish()
}

pub fn load_one(name: &str, bytes: &[u8]) -> Corpus {
    load_chunked(&[(name.to_owned(), bytes.to_vec())], 0)
}

/// Number of lines as a reader counts them: newline-terminated pieces plus a final piece
/// without newline.
pub fn count_lines(bytes: &[u8]) -> u64 {
    if bytes.is_empty() {
        return 0;
    }
    let newlines = bytes.iter().filter(|&&b| b == b'\n').count() as u64;
    newlines + u64::from(bytes.last() != Some(&b'\n'))
}

/// Token usage with the four counts the formats record: input, output, cache writes, cache reads.
pub fn usage(input: u64, output: u64, cache_write: u64, cache_read: u64) -> Usage {
    Usage {
        input_tokens: input,
        output_tokens: output,
        cache_creation_input_tokens: cache_write,
        cache_read_input_tokens: cache_read,
        ..Usage::default()
    }
}

/// A folder under the system's temporary folder, `sessionscope-<name>-<pid>`, made empty and
/// removed when the test ends.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("sessionscope-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a temporary folder");
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The command line, with its remembered histories kept in a folder of this test run (under the
/// system's temporary folder) rather than the user's cache folder.
pub fn sessionscope() -> std::process::Command {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_sessionscope"));
    let cache = std::env::temp_dir().join(format!("sessionscope-test-cache-{}", std::process::id()));
    command.env("SESSIONSCOPE_CACHE_DIR", cache);
    command
}
