//! Redaction: recall on a planted-secret corpus, consistency of placeholders, keep decisions,
//! dropped parts, loader round trip, real fixtures without false hits on ids, and properties.

mod common;

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use proptest::prelude::*;
use serde_json::Value;
use sessionscope_engine::Loader;
use sessionscope_engine::model::Format;
use sessionscope_engine::redact::{
    DetectOptions, Detector, DropParts, DropReason, Kind, LineOutcome, LineRef, Redactor, STRUCTURAL_KEYS,
};

const PLANTED: &str = include_str!("fixtures/redact/planted.jsonl");
const EXPECT: &str = include_str!("fixtures/redact/planted.expect");
const USER_PATTERN: &str = "(?i)project bluebird";

struct Expect {
    secrets: Vec<(String, String)>,
    decoys: Vec<String>,
}

fn expect() -> Expect {
    let mut secrets = Vec::new();
    let mut decoys = Vec::new();
    for line in EXPECT.lines().filter(|l| !l.starts_with('#') && !l.is_empty()) {
        let (kind, text) = line.split_once('\t').expect("kind<TAB>text");
        if kind == "decoy" {
            decoys.push(text.to_owned());
        } else {
            secrets.push((kind.to_owned(), text.to_owned()));
        }
    }
    Expect { secrets, decoys }
}

fn planted_lines() -> Vec<&'static [u8]> {
    PLANTED.lines().map(str::as_bytes).collect()
}

fn opts() -> DetectOptions {
    DetectOptions { user_patterns: vec![USER_PATTERN.into()], ..Default::default() }
}

fn scanned(lines: &[&[u8]]) -> Redactor {
    let mut r = Redactor::new(&opts()).expect("redactor");
    for (i, l) in lines.iter().enumerate() {
        r.scan_line(LineRef::new(0, i as u32 + 1), l);
    }
    r
}

fn kept(o: LineOutcome) -> Vec<u8> {
    match o {
        LineOutcome::Kept(b) => b,
        LineOutcome::Dropped(r) => panic!("line dropped: {r:?}"),
    }
}

fn apply_all(r: &Redactor, lines: &[&[u8]], parts: &DropParts) -> Vec<String> {
    lines.iter().map(|l| String::from_utf8(kept(r.apply_line(l, parts))).expect("utf-8")).collect()
}

/// The forms a secret can take in a JSONL line: raw, JSON-escaped, and escaped twice.
fn escaped_forms(s: &str) -> Vec<String> {
    let once = serde_json::to_string(s).unwrap();
    let once = once[1..once.len() - 1].to_owned();
    let twice = serde_json::to_string(&once).unwrap();
    let twice = twice[1..twice.len() - 1].to_owned();
    let mut v = vec![s.to_owned(), once, twice];
    v.dedup();
    v
}

fn word_at(hay: &str, i: usize, len: usize) -> bool {
    let b = hay.as_bytes();
    let before = i == 0
        || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_')
        || (i >= 2 && b[i - 2] == b'\\' && matches!(b[i - 1], b'n' | b't' | b'r'));
    let after = i + len >= b.len() || !(b[i + len].is_ascii_alphanumeric() || b[i + len] == b'_');
    before && after
}

/// Occurrences of `needle` in `hay`; for user names, only whole words (case-insensitive).
fn leaks(hay: &str, needle: &str, word: bool) -> bool {
    if !word {
        return hay.contains(needle);
    }
    let lower = hay.to_ascii_lowercase();
    let n = needle.to_ascii_lowercase();
    lower.match_indices(&n).any(|(i, _)| word_at(&lower, i, n.len()))
}

#[test]
fn planted_recall_is_complete_and_nothing_leaks() {
    let ex = expect();
    let lines = planted_lines();
    let r = scanned(&lines);
    let findings = r.findings();

    let mut table: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut missed = Vec::new();
    for (kind, secret) in &ex.secrets {
        let found = findings.iter().any(|f| f.kind.id() == kind && f.secret.contains(secret.as_str()));
        let e = table.entry(kind.as_str()).or_default();
        e.0 += 1;
        if found {
            e.1 += 1;
        } else {
            missed.push(format!("{kind}: {secret}"));
        }
    }
    println!("{:<22} {:>7} {:>5}", "kind", "planted", "found");
    for (k, (p, f)) in &table {
        println!("{k:<22} {p:>7} {f:>5}");
    }
    assert!(missed.is_empty(), "missed: {missed:#?}");

    // Every kind the redactor has is planted.
    for k in Kind::all() {
        assert!(table.contains_key(k.id()), "kind {} is not planted", k.id());
    }

    // Decoys: ids, hashes, versions, local addresses, code.
    let false_hits: Vec<String> = findings
        .iter()
        .filter(|f| {
            ex.decoys.iter().any(|d| {
                (d.contains(f.secret.as_str()) && f.secret.len() >= 6)
                    || (f.secret.contains(d.as_str()) && d.len() >= 6)
            })
        })
        .map(|f| format!("{}: {}", f.kind, f.secret))
        .collect();
    assert!(false_hits.is_empty(), "decoys flagged: {false_hits:#?}");

    // Nothing planted survives in the output, raw or escaped.
    let out = apply_all(&r, &lines, &DropParts::default());
    for (i, o) in out.iter().enumerate() {
        let _: Value = serde_json::from_str(o).unwrap_or_else(|e| panic!("line {}: invalid JSON {e}", i + 1));
        for (kind, secret) in &ex.secrets {
            let word = kind == "home-user" || kind == "user-name";
            for form in escaped_forms(secret) {
                assert!(!leaks(o, &form, word), "line {}: {kind} `{form}` left in clear:\n{o}", i + 1);
            }
        }
    }
    // And the decoys are all still there.
    let all_out = out.join("\n");
    for d in &ex.decoys {
        assert!(escaped_forms(d).iter().any(|f| all_out.contains(f.as_str())), "decoy {d} was changed");
    }
}

#[test]
fn no_findings_without_secrets() {
    let d = Detector::new(&DetectOptions::default()).unwrap();
    let mut hits = Vec::new();
    for text in [
        "Let me read the file and run the tests. The build passed: 42 tests, 0 failures.",
        "fn main() { let token_count = tokens.len(); println!(\"{token_count}\"); }",
        "commit 3f786850e387550fdab836ed7e6dc881de23001b\nAuthor: Claude <noreply@anthropic.com>",
        "toolu_01UeW27qA9GbyT6uKQgp2VCT msg_01XFDUDYJgAACzvnptvVoYEL req_011CUa8xYz9LmNoPqRsTuVwX",
        "258c7280-ae70-4798-800f-63464d01a85d listening on 127.0.0.1:8080 and 0.0.0.0:3000",
        "const password = process.env.DB_PASSWORD; // password: string",
    ] {
        d.find(text, &mut hits);
        assert!(hits.is_empty(), "{text}: {hits:?}");
    }
}

#[test]
fn placeholders_are_consistent() {
    let lines = planted_lines();
    let r = scanned(&lines);
    let f = r.findings();

    // Numbered per kind, in first-seen order.
    let gh: Vec<_> = f.iter().filter(|x| x.kind == Kind::Credential("github-token")).collect();
    assert!(gh.len() >= 2);
    for (i, x) in gh.iter().enumerate() {
        assert_eq!(x.placeholder, format!("[REDACTED:github-token#{}]", i + 1));
    }
    // Distinct (kind, secret) pairs and distinct placeholders.
    let mut seen = HashSet::new();
    for x in f {
        assert!(seen.insert((x.kind, x.secret.clone())), "duplicate finding {x:?}");
    }
    let ph: HashSet<_> =
        f.iter().filter(|x| !matches!(x.kind, Kind::HomeUser | Kind::UserName)).map(|x| &x.placeholder).collect();
    assert_eq!(ph.len(), f.iter().filter(|x| !matches!(x.kind, Kind::HomeUser | Kind::UserName)).count());

    let out = apply_all(&r, &lines, &DropParts::default());
    // The first GitHub token (in thinking, env output and a later message) reads the same everywhere.
    let first = &gh[0];
    assert!(first.count >= 3, "{first:?}");
    let with = out.iter().filter(|l| l.contains(&first.placeholder)).count();
    assert!(with >= 3, "placeholder in {with} lines");
    // User names: the first is [user], the second [user#2], in paths and as words.
    let alice = f.iter().find(|x| x.kind == Kind::HomeUser && x.secret == "alice").unwrap();
    let bsmith = f.iter().find(|x| x.kind == Kind::HomeUser && x.secret == "bsmith").unwrap();
    assert_eq!(alice.placeholder, "[user]");
    assert_eq!(bsmith.placeholder, "[user#2]");
    let all = out.join("\n");
    assert!(all.contains("\"cwd\":\"/home/[user]/work/acme-api\""));
    assert!(all.contains("/Users/[user#2]/.npmrc"));
    assert!(all.contains("-home-[user]-work-acme-api"));
    assert!(all.contains("C:\\\\Users\\\\[user#3]\\\\AppData"));
    assert!(all.contains("whoami says [user] and [user#2] owns"));
    // toolUseResult duplicates get the same text as the tool_result they duplicate.
    let mut dup_checked = 0;
    for l in &out {
        let v: Value = serde_json::from_str(l).unwrap();
        let (Some(stdout), Some(content)) = (
            v.pointer("/toolUseResult/stdout").and_then(Value::as_str),
            v.pointer("/message/content/0/content").and_then(Value::as_str),
        ) else {
            continue;
        };
        if !stdout.is_empty() {
            assert_eq!(stdout, content);
            if stdout.contains("[REDACTED:") {
                dup_checked += 1;
            }
        }
    }
    assert!(dup_checked >= 5, "{dup_checked}");
}

#[test]
fn structural_values_are_untouched() {
    let lines = planted_lines();
    let r = scanned(&lines);
    let out = apply_all(&r, &lines, &DropParts::default());
    fn collect(v: &Value, out: &mut Vec<(String, String)>) {
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    match x {
                        Value::String(s) if STRUCTURAL_KEYS.contains(&k.as_str()) || k == "signature" => {
                            out.push((k.clone(), s.clone()))
                        }
                        _ => collect(x, out),
                    }
                }
            }
            Value::Array(a) => a.iter().for_each(|x| collect(x, out)),
            _ => {}
        }
    }
    let mut n = 0;
    for (a, b) in lines.iter().zip(&out) {
        let (mut x, mut y) = (Vec::new(), Vec::new());
        collect(&serde_json::from_slice(a).unwrap(), &mut x);
        collect(&serde_json::from_str(b).unwrap(), &mut y);
        x.sort();
        y.sort();
        assert_eq!(x, y);
        n += x.len();
    }
    assert!(n > 300);
    // A line without findings is written back byte for byte (key order, numbers, escapes).
    let summary = lines.iter().zip(&out).find(|(a, _)| a.starts_with(b"{\"type\":\"summary\"")).unwrap();
    assert_eq!(summary.0, &summary.1.as_bytes());
    let odd = br#"{"z":1,"a":"x\u00e9\/\ud83d\ude00","n":-1.50e+3,"e":[],"o":{}}"#;
    assert_eq!(kept(r.apply_line(odd, &DropParts::default())), odd);
}

#[test]
fn keep_decisions() {
    let ex = expect();
    let lines = planted_lines();
    let mut r = scanned(&lines);
    let email = r.finding_index(Kind::Email, "alice.liddell@acme-corp.io").unwrap();
    let ip = r.finding_index(Kind::IpAddress, "93.184.216.34").unwrap();
    r.set_keep(email, true);
    r.set_keep(ip, true);
    let all = apply_all(&r, &lines, &DropParts::default()).join("\n");
    assert!(all.contains("alice.liddell@acme-corp.io"));
    assert!(all.contains("93.184.216.34"));
    for (kind, secret) in &ex.secrets {
        if secret == "alice.liddell@acme-corp.io"
            || secret == "93.184.216.34"
            || kind == "home-user"
            || kind == "user-name"
        {
            continue;
        }
        assert!(!all.contains(secret.as_str()), "{kind} {secret}");
    }
    assert_eq!(r.stats().kinds.iter().map(|k| k.kept).sum::<usize>(), 2);
    r.set_keep(email, false);
    let all = apply_all(&r, &lines, &DropParts::default()).join("\n");
    assert!(!all.contains("alice.liddell@acme-corp.io"));
    // Keeping a whole kind.
    r.set_keep_kind(Kind::HomeUser, true);
    let all = apply_all(&r, &lines, &DropParts::default()).join("\n");
    assert!(all.contains("\"cwd\":\"/home/alice/work/acme-api\""));
    assert!(!all.contains("whoami says alice"), "user-name findings are decided separately");
}

#[test]
fn contexts_never_show_other_secrets() {
    let ex = expect();
    let r = scanned(&planted_lines());
    for f in r.findings() {
        assert!(!f.contexts.is_empty() && f.contexts.len() <= 3, "{f:?}");
        for c in &f.contexts {
            assert!(!c.field.is_empty());
            assert!(c.before.chars().count() <= 140 && c.after.chars().count() <= 140, "{c:?}");
            for (kind, secret) in &ex.secrets {
                if kind == "home-user" || kind == "user-name" || secret.len() < 8 {
                    continue;
                }
                assert!(!c.before.contains(secret.as_str()) && !c.after.contains(secret.as_str()), "{c:?}");
            }
        }
    }
    let gh = r.findings().iter().find(|f| f.kind == Kind::Credential("github-token")).unwrap();
    assert!(gh.contexts.iter().any(|c| c.field == "message.content[0].thinking"), "{:?}", gh.contexts);
}

fn line_with<'a>(lines: &[&'a [u8]], needle: &str) -> &'a [u8] {
    lines.iter().find(|l| std::str::from_utf8(l).unwrap().contains(needle)).unwrap()
}

#[test]
fn drop_thinking() {
    let lines = planted_lines();
    let r = scanned(&lines);
    let line = line_with(&lines, "\"type\":\"thinking\"");
    let parts = DropParts { thinking: true, ..Default::default() };
    let out: Value = serde_json::from_slice(&kept(r.apply_line(line, &parts))).unwrap();
    assert_eq!(out["message"]["content"], Value::Array(vec![]));
    assert_eq!(out["type"], "assistant");
    let kept_line: Value = serde_json::from_slice(&kept(r.apply_line(line, &DropParts::default()))).unwrap();
    assert_eq!(kept_line["message"]["content"][0]["type"], "thinking");
}

#[test]
fn drop_tool_results() {
    let lines = planted_lines();
    let r = scanned(&lines);
    let parts = DropParts { tool_results: true, ..Default::default() };
    let line = line_with(&lines, "env | sort");
    let line = lines[lines.iter().position(|l| *l == line).unwrap() + 1];
    let out: Value = serde_json::from_slice(&kept(r.apply_line(line, &parts))).unwrap();
    assert_eq!(out["message"]["content"][0]["content"], "[tool result removed]");
    assert_eq!(out["message"]["content"][0]["type"], "tool_result");
    assert!(out["message"]["content"][0]["tool_use_id"].as_str().unwrap().starts_with("toolu_"));
    assert!(out.get("toolUseResult").is_none());
    let progress = line_with(&lines, "bash_progress");
    let out: Value = serde_json::from_slice(&kept(r.apply_line(progress, &parts))).unwrap();
    assert_eq!(out["data"]["output"], "[tool result removed]");
    assert_eq!(out["data"]["fullOutput"], "[tool result removed]");
    // Image tool results too.
    let img = line_with(&lines, "\"originalSize\"");
    let out = String::from_utf8(kept(r.apply_line(img, &parts))).unwrap();
    assert!(!out.contains("iVBORw0KGgo"), "{out}");
}

#[test]
fn drop_images() {
    let lines = planted_lines();
    let r = scanned(&lines);
    let parts = DropParts { images: true, ..Default::default() };
    let mut n = 0;
    for l in lines.iter().filter(|l| std::str::from_utf8(l).unwrap().contains("iVBORw0KGgo")) {
        let out = String::from_utf8(kept(r.apply_line(l, &parts))).unwrap();
        assert!(!out.contains("iVBORw0KGgo"), "{out}");
        let v: Value = serde_json::from_str(&out).unwrap();
        assert!(!v["message"].to_string().contains("\"image\""), "{out}");
        assert!(out.contains("{\"type\":\"text\",\"text\":\"[image removed]\"}"));
        n += 1;
    }
    assert_eq!(n, 2);
    // Without the option the image data passes untouched (it is never scanned).
    let l = line_with(&lines, "whoami");
    let out = String::from_utf8(kept(r.apply_line(l, &DropParts::default()))).unwrap();
    let png = serde_json::from_slice::<Value>(l).unwrap()["message"]["content"][1]["source"]["data"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(out.contains(&png));
}

#[test]
fn drop_subagents_and_metadata() {
    let lines = planted_lines();
    let r = scanned(&lines);
    let side = line_with(&lines, "\"isSidechain\":true");
    assert_eq!(
        r.apply_line(side, &DropParts { subagents: true, ..Default::default() }),
        LineOutcome::Dropped(DropReason::Subagent)
    );
    assert!(matches!(r.apply_line(side, &DropParts::default()), LineOutcome::Kept(_)));
    let parts = DropParts { metadata: true, ..Default::default() };
    let mut n = 0;
    for l in &lines {
        let before: Value = serde_json::from_slice(l).unwrap();
        let after: Value = serde_json::from_slice(&kept(r.apply_line(l, &parts))).unwrap();
        for k in ["cwd", "gitBranch", "version", "userType", "entrypoint", "slug"] {
            assert!(after.get(k).is_none(), "{k}");
        }
        for k in ["uuid", "parentUuid", "sessionId", "type", "timestamp", "requestId"] {
            assert_eq!(before.get(k), after.get(k), "{k}");
        }
        n += before.get("cwd").is_some() as usize;
    }
    assert!(n > 50);
}

#[test]
fn unparseable_and_blank_lines_are_dropped() {
    let r = scanned(&planted_lines());
    let line = planted_lines()[5];
    let cut = &line[..line.len() / 2];
    assert_eq!(r.apply_line(cut, &DropParts::default()), LineOutcome::Dropped(DropReason::Unparseable));
    assert_eq!(r.apply_line(b"  \r", &DropParts::default()), LineOutcome::Dropped(DropReason::Blank));
    let mut r2 = Redactor::new(&DetectOptions::default()).unwrap();
    r2.scan_line(LineRef::new(0, 1), cut);
    r2.scan_line(LineRef::new(0, 2), b"{\"a\":\"x\\ud800y\"}\r");
    let s = r2.stats();
    assert_eq!((s.lines, s.unparseable_lines), (2, 1));
    // A lone surrogate survives the round trip untouched.
    assert_eq!(kept(r2.apply_line(b"{\"a\":\"x\\ud800y\"}\r", &DropParts::default())), b"{\"a\":\"x\\ud800y\"}");
}

#[test]
fn loader_reads_redacted_lines() {
    let lines = planted_lines();
    let r = scanned(&lines);
    let load = |bytes: &[u8]| {
        let mut l = Loader::new();
        l.add_bytes("x.jsonl", bytes);
        l.finish()
    };
    let before = load(PLANTED.as_bytes());
    for parts in [
        DropParts::default(),
        DropParts { thinking: true, tool_results: true, images: true, metadata: true, subagents: false },
    ] {
        let out = apply_all(&r, &lines, &parts).join("\n") + "\n";
        let after = load(out.as_bytes());
        assert_eq!(before.entries.len(), after.entries.len(), "{parts:?}");
        assert!(before.entries.len() > 50);
    }
}

#[test]
fn bad_user_patterns_are_errors() {
    let e =
        Redactor::new(&DetectOptions { user_patterns: vec!["ok".into(), "(unclosed".into()], ..Default::default() })
            .unwrap_err();
    assert_eq!(e.index, 1);
    assert_eq!(e.pattern, "(unclosed");
    assert!(!e.reason.is_empty());
    assert!(e.to_string().contains("(unclosed"));
    let e = Detector::new(&DetectOptions { user_patterns: vec!["a*".into()], ..Default::default() }).unwrap_err();
    assert!(e.reason.contains("empty"));
    // A capture group selects the replaced part.
    let d =
        Detector::new(&DetectOptions { user_patterns: vec![r"ticket-(\d{4})".into()], ..Default::default() }).unwrap();
    let mut hits = Vec::new();
    d.find("see ticket-1234 now", &mut hits);
    assert_eq!(hits.len(), 1);
    assert_eq!(&"see ticket-1234 now"[hits[0].range.clone()], "1234");
    assert_eq!(hits[0].kind, Kind::UserPattern);
}

#[test]
fn options_switch_detectors_off() {
    let text = "mail alice@corp.io from 203.0.113.9, key Qm9Xv2LpR7tKz4NcW8bYd3Hf6JsA1eUg, /home/alice, \
                DB_PASSWORD=Xy9secretpw and ghp_0123456789abcdefghijABCDEFGHIJ012345";
    let off = DetectOptions {
        user_patterns: vec![],
        entropy: false,
        emails: false,
        ip_addresses: false,
        home_paths: false,
        env_dumps: false,
    };
    let mut hits = Vec::new();
    Detector::new(&off).unwrap().find(text, &mut hits);
    let kinds: Vec<_> = hits.iter().map(|h| h.kind.id()).collect();
    assert_eq!(kinds, ["generic-secret", "github-token"]);
    Detector::new(&DetectOptions::default()).unwrap().find(text, &mut hits);
    let kinds: Vec<_> = hits.iter().map(|h| h.kind.id()).collect();
    assert_eq!(kinds, ["email", "ip-address", "high-entropy", "home-user", "env-secret", "github-token"]);
}

fn jsonl_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<_> = rd.filter_map(Result::ok).map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            jsonl_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "jsonl") {
            out.push(p);
        }
    }
}

fn id_values(v: &Value, parent: &str, out: &mut HashSet<String>) {
    const ID_KEYS: &[&str] =
        &["uuid", "parentUuid", "leafUuid", "sessionId", "requestId", "tool_use_id", "agentId", "logicalParentUuid"];
    match v {
        Value::Object(m) => {
            let is_tool_use = m.get("type").and_then(Value::as_str) == Some("tool_use");
            for (k, x) in m {
                if let Value::String(s) = x {
                    let id = ID_KEYS.contains(&k.as_str()) || (k == "id" && (parent == "message" || is_tool_use));
                    if id && !s.is_empty() {
                        out.insert(s.clone());
                    }
                }
                id_values(x, k, out);
            }
        }
        Value::Array(a) => a.iter().for_each(|x| id_values(x, parent, out)),
        _ => {}
    }
}

#[test]
fn real_fixtures_have_no_findings_on_ids() {
    let Some(real) = common::real_fixtures("real_fixtures_have_no_findings_on_ids") else { return };
    let mut files = Vec::new();
    for (_, dir) in real.folders() {
        jsonl_files(&dir, &mut files);
    }
    let mut r = Redactor::new(&DetectOptions::default()).unwrap();
    let mut ids = HashSet::new();
    let mut lines = 0;
    for (fi, f) in files.iter().enumerate() {
        let bytes = std::fs::read(f).unwrap();
        for (li, line) in bytes.split(|&c| c == b'\n').enumerate() {
            if line.trim_ascii().is_empty() {
                continue;
            }
            lines += 1;
            r.scan_line(LineRef::new(fi as u32, li as u32 + 1), line);
            if let Ok(v) = serde_json::from_slice::<Value>(line) {
                id_values(&v, "", &mut ids);
            }
        }
    }
    assert!(ids.len() > 1000, "{}", ids.len());
    let stats = r.stats();
    println!("real fixtures: {} files, {lines} lines, {} bytes of text", files.len(), stats.bytes_scanned);
    for k in &stats.kinds {
        println!("  {:<20} {:>4} distinct {:>6} occurrences", k.kind.id(), k.findings, k.occurrences);
    }
    let bad: Vec<String> = r
        .findings()
        .iter()
        .filter(|f| {
            ids.iter().any(|id| id.contains(f.secret.as_str()) && f.secret.len() >= 6 || f.secret.contains(id.as_str()))
        })
        .map(|f| format!("{}: {}", f.kind, f.secret))
        .collect();
    assert!(bad.is_empty(), "findings on ids: {bad:#?}");
    // The logs hold no credentials in clear: only personal data and heuristics may fire.
    for f in r.findings() {
        assert!(
            matches!(f.kind, Kind::HomeUser | Kind::UserName | Kind::HighEntropy | Kind::Email | Kind::IpAddress),
            "{}: {:?}",
            f.kind,
            f.contexts.first()
        );
    }
    assert_eq!(stats.unparseable_lines, 0);
}

fn check_hits(text: &str, hits: &[sessionscope_engine::redact::Hit]) -> Result<(), TestCaseError> {
    let mut last = 0;
    for h in hits {
        prop_assert!(h.range.start >= last && h.range.start < h.range.end && h.range.end <= text.len());
        prop_assert!(text.is_char_boundary(h.range.start) && text.is_char_boundary(h.range.end));
        last = h.range.end;
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn find_returns_sorted_disjoint_char_ranges(text in any::<String>()) {
        let d = Detector::new(&DetectOptions::default()).unwrap();
        let mut hits = Vec::new();
        d.find(&text, &mut hits);
        check_hits(&text, &hits)?;
    }

    #[test]
    fn find_on_secretish_text(text in "[a-zA-Z0-9_+/=:@. \\-\\\\\"'\n\u{e9}\u{1F600}]{0,300}",
                              prefix in prop::sample::select(vec!["", "ghp_", "sk-ant-api03-", "password=\"", "/home/", "Bearer ", "-----BEGIN PRIVATE KEY-----\n", "postgres://u:", "eyJ", "TOKEN=", "::", "1.2.3."])) {
        let text = format!("{prefix}{text}");
        let d = Detector::new(&DetectOptions { user_patterns: vec!["a[bc]+".into()], ..Default::default() }).unwrap();
        let mut hits = Vec::new();
        d.find(&text, &mut hits);
        check_hits(&text, &hits)?;
        let r = Redactor::new(&DetectOptions { user_patterns: vec!["a[bc]+".into()], ..Default::default() }).unwrap();
        let red = r.redact_text(&text);
        prop_assert_eq!(hits.is_empty(), red == text);
    }

    #[test]
    fn apply_line_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        let mut r = Redactor::new(&DetectOptions::default()).unwrap();
        r.scan_line(LineRef::new(0, 1), &bytes);
        for parts in [DropParts::default(), DropParts { thinking: true, tool_results: true, images: true, subagents: true, metadata: true }] {
            if let LineOutcome::Kept(out) = r.apply_line(&bytes, &parts) {
                prop_assert!(serde_json::from_slice::<Value>(&out).is_ok() || std::str::from_utf8(&bytes).is_err() || bytes.windows(2).any(|w| w == b"\\u"));
            }
        }
    }

    /// Every format's parts, on any JSON shaped like its records (the keys each looks at, with
    /// values of any type): no panic, and JSON out.
    #[test]
    fn apply_record_of_any_format_never_panics_and_stays_json(
        v in json_value(),
        key in prop::sample::select(vec!["message", "data", "payload", "item", "messages", "$set", "content", "toolCalls", "parts", "run", "state", "systemPayload", "toolCallResult"]),
        ty in prop::sample::select(vec!["reasoning", "tool", "tool_result", "function_call_output", "exec_command_end", "assistant.message", "tool.execution_complete", "command_execution", "thinking", "image", "gemini", "user"]),
        format in prop::sample::select(vec![Format::Pi, Format::CopilotCli, Format::CodexRollout, Format::CodexEvents, Format::GeminiCli, Format::QwenCode, Format::Cline, Format::RooCode, Format::Amp, Format::OpenCode, Format::ClaudeCode]),
    ) {
        let record = serde_json::json!({"type": ty, "id": "x", "role": "user", key: v.clone(), "say": ty, "ts": 1});
        let r = Redactor::new(&DetectOptions::default()).unwrap();
        let all = DropParts { thinking: true, tool_results: true, images: true, subagents: true, metadata: true };
        for line in [serde_json::to_vec(&record).unwrap(), serde_json::to_vec(&serde_json::json!([record, v])).unwrap()] {
            if let LineOutcome::Kept(out) = r.apply_record(&line, &all, format) {
                prop_assert!(serde_json::from_slice::<Value>(&out).is_ok());
            }
        }
    }

    #[test]
    fn apply_line_on_json_stays_json(v in json_value(), secret in "[A-Za-z0-9]{36}") {
        let line = serde_json::to_vec(&serde_json::json!({"type": "user", "uuid": "u", "message": {"content": [v, format!("GITHUB_TOKEN=ghp_{secret}")]}})).unwrap();
        let mut r = Redactor::new(&DetectOptions::default()).unwrap();
        r.scan_line(LineRef::new(0, 1), &line);
        let out = kept(r.apply_line(&line, &DropParts::default()));
        let back: Value = serde_json::from_slice(&out).unwrap();
        prop_assert_eq!(&back["uuid"], "u");
        prop_assert!(!String::from_utf8(out).unwrap().contains(&secret));
    }
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Value::from),
        any::<String>().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map("[a-zA-Z_]{0,8}", inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}
