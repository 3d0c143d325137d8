//! What a whole history knows, made unit by unit as the index makes it and summed as the page and
//! the command line sum it: 5-hour blocks equal to ccusage's, changes of a file across sessions
//! and agents in time order, failures grouped, a response a resumed session copied counted once.

mod common;

use std::path::Path;

use common::{read_folder, real_fixtures};
use sessionscope_engine::Loader;
use sessionscope_engine::dag::Graph;
use sessionscope_engine::history::{SessionRow, group_into_units, session_rows};
use sessionscope_engine::insights::edits::ChangeKind;
use sessionscope_engine::insights::report::{self, UnitRef};
use sessionscope_engine::insights::{FailureKind, UnitInsights};

/// A history read as the index reads it: files grouped into units, each unit loaded alone.
fn read_history(files: &[(String, Vec<u8>)]) -> Vec<(Vec<SessionRow>, UnitInsights)> {
    let paths: Vec<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
    let hints = vec![None; paths.len()];
    group_into_units(&paths, &hints)
        .into_iter()
        .map(|unit| {
            let corpus = Loader::read_all(unit.files.iter().map(|&i| (files[i].0.as_str(), files[i].1.as_slice())));
            let graph = Graph::build(&corpus);
            let rows = session_rows(&corpus, &graph, &unit.folder);
            let insights = UnitInsights::of(&corpus, &graph, &rows);
            (rows, insights)
        })
        .collect()
}

fn refs(units: &[(Vec<SessionRow>, UnitInsights)]) -> Vec<UnitRef<'_>> {
    units.iter().enumerate().map(|(i, (_, insights))| UnitRef { unit: i as u32, insights }).collect()
}

/// ccusage's blocks for the real Claude Code fixtures, recorded by
/// `scripts/compare-ccusage-blocks.mjs`: every block and gap, its bounds, responses and tokens.
#[test]
fn blocks_equal_ccusage_s_on_the_real_logs() {
    let Some(real) = real_fixtures("blocks_equal_ccusage_s_on_the_real_logs") else { return };
    let reference = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/reference/ccusage-blocks-real.json");
    let reference: serde_json::Value = serde_json::from_slice(&std::fs::read(reference).unwrap()).unwrap();
    let mut files = Vec::new();
    for (name, dir) in real.folders() {
        files.extend(read_folder(&dir).into_iter().map(|(path, bytes)| (format!("{name}/{path}"), bytes)));
    }
    files.sort_by(|a, b| a.0.cmp(&b.0));
    let units = read_history(&files);
    let activity = report::activity(&refs(&units), &|_| 0, 0);
    let iso = |ms: Option<i64>| {
        ms.map(|ms| {
            let date = report::date_of_day(ms.div_euclid(86_400_000));
            let rest = ms.rem_euclid(86_400_000);
            format!(
                "{date}T{:02}:{:02}:{:02}.{:03}Z",
                rest / 3_600_000,
                rest / 60_000 % 60,
                rest / 1000 % 60,
                rest % 1000
            )
        })
    };
    let ours: Vec<serde_json::Value> = activity
        .blocks
        .iter()
        .map(|b| {
            serde_json::json!({
                "start": iso(Some(b.start_ms)),
                "end": iso(Some(b.end_ms)),
                "last": iso(b.actual_end_ms),
                "gap": b.gap,
                "responses": b.responses,
                "tokens": [b.tokens.input_tokens, b.tokens.output_tokens, b.tokens.cache_creation_input_tokens, b.tokens.cache_read_input_tokens],
                "models": b.models,
            })
        })
        .collect();
    let theirs = reference["blocks"].as_array().unwrap();
    assert_eq!(theirs.len(), 15);
    assert_eq!(&ours, theirs);
}

/// A Claude Code line of a session: `uuid`, its parent, a time (minutes after 09:00 on
/// 2026-03-02) and its message.
fn line(uuid: &str, parent: Option<&str>, minute: u32, message: serde_json::Value, session: &str) -> String {
    let kind = message["role"].as_str().unwrap_or("user").to_owned();
    let mut line = serde_json::json!({
        "type": kind,
        "uuid": uuid,
        "parentUuid": parent,
        "sessionId": session,
        "cwd": "/work/app",
        "timestamp": format!("2026-03-02T{:02}:{:02}:00.000Z", 9 + minute / 60, minute % 60),
        "message": message,
    });
    if kind == "assistant" {
        line["requestId"] = serde_json::json!(format!("req-{uuid}"));
    }
    line.to_string() + "\n"
}

fn assistant(id: &str, content: serde_json::Value, output: u64) -> serde_json::Value {
    serde_json::json!({"role": "assistant", "id": id, "model": "claude-sonnet-4-5", "content": content,
        "usage": {"input_tokens": 10, "output_tokens": output, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}})
}

/// One session that edits `src/lib.rs` (once well, once failing), reads it, and whose Bash
/// fails with a message that names a path.
fn claude_session(session: &str, start: u32, file_error: &str) -> String {
    let call = |id: &str, name: &str, input: serde_json::Value| serde_json::json!([{"type": "tool_use", "id": id, "name": name, "input": input}]);
    let result = |id: &str, text: &str, error: bool| serde_json::json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": id, "content": text, "is_error": error}]});
    let s = session;
    [
        line(&format!("{s}-1"), None, start, serde_json::json!({"role": "user", "content": "Round the totals half to even"}), s),
        line(&format!("{s}-2"), Some(&format!("{s}-1")), start + 1, assistant(&format!("m-{s}-2"), call(&format!("t-{s}-1"), "Read", serde_json::json!({"file_path": "/work/app/src/lib.rs"})), 5), s),
        line(&format!("{s}-3"), Some(&format!("{s}-2")), start + 2, result(&format!("t-{s}-1"), "fn total() {}", false), s),
        line(&format!("{s}-4"), Some(&format!("{s}-3")), start + 3, assistant(&format!("m-{s}-4"), call(&format!("t-{s}-2"), "Edit", serde_json::json!({"file_path": "/work/app/src/lib.rs", "old_string": "fn total() {}", "new_string": "fn total() -> u64 {\n    0\n}"})), 7), s),
        // Claude Code keeps the file as it was before the edit, and says so in a line of its own.
        serde_json::json!({"type": "file-history-snapshot", "messageId": format!("{s}-4"), "isSnapshotUpdate": true,
            "snapshot": {"messageId": format!("{s}-1"), "timestamp": "2026-03-02T09:00:00.000Z", "trackedFileBackups": {
                "/work/app/src/lib.rs": {"backupFileName": "3f2a9c1d@v1", "version": 1, "backupTime": format!("2026-03-02T{:02}:{:02}:30.000Z", 9 + (start + 3) / 60, (start + 3) % 60)},
                "/work/app/src/new.rs": {"backupFileName": null, "version": 1, "backupTime": "2026-03-02T09:00:00.000Z"}}}})
        .to_string() + "\n",
        line(&format!("{s}-5"), Some(&format!("{s}-4")), start + 4, result(&format!("t-{s}-2"), "The file /work/app/src/lib.rs has been updated.", false), s),
        line(&format!("{s}-6"), Some(&format!("{s}-5")), start + 5, assistant(&format!("m-{s}-6"), call(&format!("t-{s}-3"), "Bash", serde_json::json!({"command": "cat missing.txt"})), 9), s),
        line(&format!("{s}-7"), Some(&format!("{s}-6")), start + 6, result(&format!("t-{s}-3"), &format!("cat: {file_error}: No such file or directory"), true), s),
    ]
    .concat()
}

#[test]
fn a_file_s_changes_across_sessions_and_agents_come_in_time_order() {
    // Two Claude Code sessions (one hour apart) and a Pi session between them edit src/lib.rs.
    let pi = [
        serde_json::json!({"type": "session", "version": 3, "id": "pi-1", "timestamp": "2026-03-02T09:30:00.000Z", "cwd": "/work/app"}),
        serde_json::json!({"type": "message", "id": "p1", "parentId": null, "timestamp": "2026-03-02T09:30:00.000Z", "message": {"role": "user", "content": [{"type": "text", "text": "Rename total to sum"}]}}),
        serde_json::json!({"type": "message", "id": "p2", "parentId": "p1", "timestamp": "2026-03-02T09:31:00.000Z", "message": {"role": "assistant", "model": "kimi-k2.5", "content": [{"type": "toolCall", "id": "c1", "name": "edit", "arguments": {"path": "src/lib.rs", "oldText": "fn total", "newText": "fn sum"}}]}}),
        serde_json::json!({"type": "message", "id": "p3", "parentId": "p2", "timestamp": "2026-03-02T09:32:00.000Z", "message": {"role": "toolResult", "toolCallId": "c1", "toolName": "edit", "content": [{"type": "text", "text": "ok"}], "isError": false}}),
    ]
    .iter()
    .map(|l| l.to_string() + "\n")
    .collect::<String>();
    let files = vec![
        ("app/aaa.jsonl".to_owned(), claude_session("aaa", 0, "/tmp/a/missing.txt").into_bytes()),
        ("app/bbb.jsonl".to_owned(), claude_session("bbb", 60, "/home/b/missing.txt").into_bytes()),
        ("pi/2026-03-02_pi-1.jsonl".to_owned(), pi.into_bytes()),
    ];
    let read = read_history(&files);
    let units = refs(&read);
    let files_report = report::files(&units);
    let lib = files_report.iter().find(|f| f.path == "src/lib.rs").expect("src/lib.rs is listed");
    assert_eq!((lib.project.as_str(), lib.sessions, lib.changes, lib.reads), ("/work/app", 3, 3, 2));
    assert_eq!((lib.added, lib.removed), (3 + 3 + 1, 1 + 1 + 1));
    let changes = report::changes_of(&units, "/work/app", "src/lib.rs");
    let order: Vec<(&str, &str, ChangeKind)> =
        changes.iter().map(|c| (c.place.session_id.as_str(), c.tool.as_str(), c.kind)).collect();
    assert_eq!(
        order,
        [("aaa", "Edit", ChangeKind::Edit), ("pi-1", "edit", ChangeKind::Edit), ("bbb", "Edit", ChangeKind::Edit)]
    );
    assert_eq!(changes[0].place.entry, "aaa-4", "the change opens at its call");
    assert_eq!(changes[0].prompt, "Round the totals half to even");
    assert_eq!(changes[1].place.agent, "Pi");

    // The two Bash failures name other paths: one group of two; no interruption, no API error.
    let failures = report::failures(&units);
    assert_eq!(failures.tool_failures, 2);
    assert_eq!((failures.interrupted, failures.api_errors), (0, 0));
    let top = &failures.groups[0];
    assert_eq!(
        (top.kind, top.key.as_str(), top.count),
        (FailureKind::Tool, "cat: <path>: No such file or directory", 2)
    );
    assert_eq!(top.occurrences.iter().map(|p| p.session_id.as_str()).collect::<Vec<_>>(), ["aaa", "bbb"]);
    let bash = failures.by_tool.iter().find(|r| r.name == "Bash").unwrap();
    assert_eq!((bash.calls, bash.failed), (2, 2));
    // The session list counts them too.
    let failed: Vec<(&str, u32)> =
        read.iter().flat_map(|(rows, _)| rows).map(|r| (r.session_id.as_str(), r.failed_tool_calls)).collect();
    assert_eq!(failed, [("aaa", 1), ("bbb", 1), ("pi-1", 0)]);

    // The version Claude Code kept before each Claude Code edit, one per session (the file the
    // session made has none); the Pi session kept none.
    let versions = report::versions_of(&units, "/work/app", "src/lib.rs");
    let kept: Vec<(&str, &str, u32)> =
        versions.iter().map(|v| (v.place.session_id.as_str(), v.backup.as_str(), v.version)).collect();
    assert_eq!(kept, [("aaa", "3f2a9c1d@v1", 1), ("bbb", "3f2a9c1d@v1", 1)]);
    assert_eq!(lib.versions, 2);

    // A change's texts are read again on demand, by the line of its call.
    let corpus = Loader::read_all([(files[1].0.as_str(), files[1].1.as_slice())]);
    let graph = Graph::build(&corpus);
    let texts = sessionscope_engine::insights::change_texts(&corpus, &graph, &["bbb-4".to_owned()], "src/lib.rs");
    assert_eq!(texts.len(), 1);
    assert_eq!((texts[0].entry.as_str(), texts[0].kind), ("bbb-4", ChangeKind::Edit));
    assert_eq!(texts[0].hunks, [("fn total() {}".to_owned(), "fn total() -> u64 {\n    0\n}".to_owned())]);
    assert!(
        sessionscope_engine::insights::change_texts(&corpus, &graph, &["bbb-4".to_owned()], "src/other.rs").is_empty()
    );

    // The busiest hour is the first (one session of seven lines, and half of Pi's).
    let activity = report::activity(&units, &|_| 0, 0);
    let busiest = activity.busiest.unwrap();
    assert_eq!((busiest.day.as_str(), busiest.hour), ("2026-03-02", 9));
    // Shown an hour east of UTC, the same hour is 10:00.
    let east = report::activity(&units, &|_| 60, 0).busiest.unwrap();
    assert_eq!(east.hour, 10);
}

#[test]
fn a_response_a_resumed_session_copied_is_counted_once_in_the_blocks() {
    let original = claude_session("aaa", 0, "x");
    // A resumed session starts with the lines of the one it resumes, under its own id.
    let resumed = original.replace("\"sessionId\":\"aaa\"", "\"sessionId\":\"ccc\"");
    let files =
        vec![("app/aaa.jsonl".to_owned(), original.into_bytes()), ("app/ccc.jsonl".to_owned(), resumed.into_bytes())];
    let units = read_history(&files);
    assert_eq!(units.len(), 2, "two units, each with the same three responses");
    let activity = report::activity(&refs(&units), &|_| 0, 0);
    let block = &activity.blocks[0];
    assert_eq!((activity.blocks.len(), block.responses), (1, 3));
    assert_eq!(block.tokens.output_tokens, 5 + 7 + 9);
}
