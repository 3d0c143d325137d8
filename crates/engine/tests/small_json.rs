//! `small_json` against serde_json on logs: every line of every fixture (the engine's, the app's
//! sessions, and the team's real logs when they are there), and every value inside them (tool
//! calls' inputs among them), is read the same (or refused the same) and written the same,
//! compact and pretty; and typed reading gives what serde_json's does.

mod common;

use std::path::{Path, PathBuf};

use sessionscope_engine::small_json;

fn fixtures() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = Vec::new();
    let mut folders = vec![root.join("tests/fixtures"), root.join("../../tests/fixtures")];
    if let Some(real) = common::real_fixtures("small_json") {
        folders.extend(real.every_folder().into_iter().map(|(_, path)| path));
    }
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap_or_else(|e| panic!("{}: {e}", folder.display())) {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "json" || e == "jsonl") {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// The texts to compare: each line of a `.jsonl`, a `.json` whole.
fn texts() -> Vec<(String, Vec<u8>)> {
    let mut texts = Vec::new();
    for path in fixtures() {
        let bytes = std::fs::read(&path).unwrap();
        let name = path.display().to_string();
        if path.extension().is_some_and(|e| e == "jsonl") {
            for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
                texts.push((format!("{name}:{}", i + 1), line.to_vec()));
            }
        } else {
            texts.push((name, bytes));
        }
    }
    texts
}

/// Every value inside a value (itself first), with the keys that lead to it.
fn all_values<'v>(value: &'v serde_json::Value, path: String, out: &mut Vec<(String, &'v serde_json::Value)>) {
    out.push((path.clone(), value));
    match value {
        serde_json::Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                all_values(item, format!("{path}[{i}]"), out);
            }
        }
        serde_json::Value::Object(map) => {
            for (key, item) in map {
                all_values(item, format!("{path}.{key}"), out);
            }
        }
        _ => {}
    }
}

/// Whether two values are the same but for floats a rounding apart: serde_json reads a float
/// faster than exactly (`0.000021000000000000002` as `0.000021`), small_json exactly.
fn same(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    use serde_json::Value::*;
    match (a, b) {
        (Number(x), Number(y)) if x.is_f64() || y.is_f64() => {
            let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
            x == y || (x - y).abs() <= x.abs().max(y.abs()) * 4.0 * f64::EPSILON
        }
        (Array(x), Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y)),
        (Object(x), Object(y)) => x.len() == y.len() && x.iter().zip(y).all(|((k, x), (l, y))| k == l && same(x, y)),
        _ => a == b,
    }
}

#[test]
fn every_fixture_line_reads_and_writes_as_with_serde_json() {
    let texts = texts();
    assert!(texts.len() > 500, "the fixtures are found ({} texts)", texts.len());
    let (mut read, mut refused, mut inputs, mut rounded) = (0, 0, 0, 0);
    for (place, text) in &texts {
        let theirs = serde_json::from_slice::<serde_json::Value>(text);
        let ours = small_json::parse(text);
        assert_eq!(ours.is_ok(), theirs.is_ok(), "{place}: {:?} / {:?}", ours.err(), theirs.err());
        let (Ok(ours), Ok(theirs)) = (ours, theirs) else {
            refused += 1;
            continue;
        };
        read += 1;
        // Typed reading, here into serde_json's own value, reads what serde_json reads.
        let typed: serde_json::Value = small_json::from_slice(text).unwrap();
        assert!(same(&typed, &theirs), "{place}");
        rounded += usize::from(typed != theirs);
        // Writing what was read gives serde_json's writing of it, byte for byte.
        assert_eq!(ours.to_json(), serde_json::to_string(&typed).unwrap(), "{place}");
        assert_eq!(ours.to_pretty_json(), serde_json::to_string_pretty(&typed).unwrap(), "{place}");
        // Each value inside, as a view reads a tool call's input or a result's details.
        let mut values = Vec::new();
        all_values(&typed, String::new(), &mut values);
        for (path, value) in values {
            let text = small_json::to_vec(value).unwrap();
            assert_eq!(text, serde_json::to_vec(value).unwrap(), "{place} {path}");
            let ours = small_json::parse(&text).unwrap();
            assert_eq!(ours.to_pretty_json(), serde_json::to_string_pretty(value).unwrap(), "{place} {path}");
            assert_eq!(ours.as_str(), value.as_str(), "{place} {path}");
            assert_eq!(ours.as_u64(), value.as_u64(), "{place} {path}");
            assert_eq!(ours.as_i64(), value.as_i64(), "{place} {path}");
            assert_eq!(ours.as_f64(), value.as_f64(), "{place} {path}");
            assert_eq!(ours.as_array().map(Vec::len), value.as_array().map(Vec::len), "{place} {path}");
            if let (Some(ours), Some(theirs)) = (ours.as_object(), value.as_object()) {
                assert!(ours.keys().eq(theirs.keys()), "{place} {path}");
                assert!(theirs.keys().all(|key| ours.get(key).is_some()), "{place} {path}");
            }
            inputs += usize::from(path.ends_with(".input"));
        }
    }
    assert!(read > 500 && inputs > 50, "{read} texts read, {refused} refused, {inputs} tool inputs");
    eprintln!(
        "{read} texts read ({rounded} with a float serde_json rounds otherwise), {refused} refused, {inputs} tool inputs"
    );
}

#[test]
fn every_cut_fixture_line_is_refused_as_serde_json_refuses_it() {
    // A line cut anywhere, as a file being written is: never a panic, the same verdict.
    for (place, text) in texts().iter().filter(|(_, text)| text.len() < 4096).step_by(7) {
        for cut in (0..text.len()).step_by(3) {
            let part = &text[..cut];
            let theirs = serde_json::from_slice::<serde_json::Value>(part).is_ok();
            assert_eq!(small_json::parse(part).is_ok(), theirs, "{place} cut at {cut}");
            assert_eq!(small_json::from_slice::<serde_json::Value>(part).is_ok(), theirs, "{place} cut at {cut}");
        }
    }
}
