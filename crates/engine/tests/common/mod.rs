//! Helpers shared by the engine's integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

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

/// The team's real session logs (other people's data, read in place and never copied), or
/// `None` with a note that the test was skipped.
pub fn real_fixtures(test: &str) -> Option<PathBuf> {
    let path = std::env::var_os("SESSIONSCOPE_REAL_FIXTURES")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fixtures/real"));
    if path.is_dir() {
        Some(path)
    } else {
        eprintln!("{test}: skipped, the real fixtures are not at {}", path.display());
        None
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

/// The real fixture folders (one per Claude Code version).
pub fn real_folders(root: &Path) -> Vec<(String, PathBuf)> {
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
