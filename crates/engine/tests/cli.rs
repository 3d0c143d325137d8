//! The `sessionscope` command line: its flags (an unknown one is an error, `--help` is not),
//! its help, completions and suggestions, `-` for stdin, the per-model and per-tool tables of
//! `summary`, on the bundled example, `index --marks=<file>` and `search` on two hand-made
//! sessions.

mod common;

use common::TempDir;

use std::path::PathBuf;
use std::process::Output;

fn example() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../assets/example")
}

fn run(args: &[&str]) -> Output {
    common::sessionscope().args(args).output().expect("the command line runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn an_unknown_flag_is_an_error_with_the_usage() {
    let example = example();
    let example = example.to_str().expect("a UTF-8 path");
    for args in [
        vec!["summary", "--bogus", example],
        vec!["summary", example, "--jsn"],
        vec!["summary", "-x", example],
        vec!["dump", "--json", example],
        vec!["share", "--json", example],
        vec!["summary", "--link", example],
        vec!["report", example],
        vec!["summary"],
        vec![],
    ] {
        let out = run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = text(&out.stderr);
        assert!(stderr.contains("Usage: sessionscope"), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?}: nothing is printed on stdout");
    }
    let stderr = text(&run(&["summary", "--bogus", example]).stderr);
    assert!(stderr.starts_with("error: unexpected argument '--bogus' found\n"), "{stderr}");
}

#[test]
fn help_prints_the_usage_and_succeeds() {
    for args in [vec!["--help"], vec!["-h"], vec!["summary", "--help"], vec!["share", "-h", "x"]] {
        let out = run(&args);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        assert!(text(&out.stdout).contains("Usage: sessionscope"), "{args:?}");
    }
}

#[test]
fn known_flags_still_work() {
    let example = example();
    let example = example.to_str().expect("a UTF-8 path");
    // Flags before or after the paths.
    for args in [["summary", "--json", example], ["summary", example, "--json"]] {
        let out = run(&args);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("--json prints JSON");
        assert_eq!(json["sessions"][0]["session_id"], "e3a1c0de-7b2f-4c59-9d41-5f0e8a6b2c17");
    }
    let out = run(&["share", example, "--link"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).starts_with("e3a1c0de-7b2f-4c59-9d41-5f0e8a6b2c17\t"));
    let out = run(&["share", "--markdown", example]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(!out.stdout.is_empty());
    let out = run(&["dump", example]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // After `--`, everything is a path, even what looks like a flag.
    let out = run(&["summary", "--", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("--json: no such file or folder"));
}

#[test]
fn summary_prints_the_tables_per_model_and_per_tool() {
    let example = example();
    let example = example.to_str().expect("a UTF-8 path");
    let out = run(&["summary", "--json", example]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("--json prints JSON");
    let models = json["per_model"].as_array().expect("per_model is a list");
    let tools = json["per_tool"].as_array().expect("per_tool is a list");
    assert!(!models.is_empty() && !tools.is_empty());
    // The models' tokens add up to the sessions' (each response counted once).
    let sum =
        |rows: &[serde_json::Value], key: &str| rows.iter().map(|r| r["usage"][key].as_u64().unwrap_or(0)).sum::<u64>();
    let sessions = json["sessions"].as_array().expect("sessions");
    let by_sessions: u64 = sessions.iter().map(|s| s["usage_with_agents"]["output_tokens"].as_u64().unwrap_or(0)).sum();
    assert_eq!(sum(models, "output_tokens"), by_sessions);
    // The tools' calls add up to the sessions' tool uses.
    let calls: u64 = tools.iter().map(|t| t["calls"].as_u64().unwrap_or(0)).sum();
    let uses: u64 = sessions.iter().map(|s| s["tool_uses"].as_u64().unwrap_or(0)).sum();
    assert_eq!(calls, uses);

    let out = run(&["summary", example]);
    assert_eq!(out.status.code(), Some(0));
    let printed = text(&out.stdout);
    assert!(printed.contains("\nmodel "), "{printed}");
    assert!(printed.contains("\ntool "), "{printed}");
    for model in models {
        let name = model["model"].as_str().expect("a model name");
        let row = printed.lines().find(|l| l.starts_with(name)).unwrap_or_else(|| panic!("{name} is listed"));
        let responses = model["responses"].as_u64().expect("responses").to_string();
        assert!(row.split_whitespace().nth(1) == Some(responses.as_str()), "{row}");
    }
    for tool in tools {
        let name = tool["tool"].as_str().expect("a tool name");
        let row = printed.lines().find(|l| l.split_whitespace().next() == Some(name));
        let row = row.unwrap_or_else(|| panic!("{name} is listed"));
        let calls = tool["calls"].as_u64().expect("calls").to_string();
        assert!(row.split_whitespace().nth(1) == Some(calls.as_str()), "{row}");
    }
}

const MARKED: &str = "aaaaaaaa-0000-4000-8000-000000000001";
const UNMARKED: &str = "bbbbbbbb-0000-4000-8000-000000000002";

/// A project folder of two Claude Code sessions of one prompt and one answer each.
fn write_two_sessions(root: &std::path::Path) -> PathBuf {
    let project = root.join("projects").join("-home-dev-kettle");
    std::fs::create_dir_all(&project).expect("a project folder");
    for id in [MARKED, UNMARKED] {
        let user = serde_json::json!({
            "type": "user", "sessionId": id, "cwd": "/home/dev/kettle", "uuid": format!("{id}-u"),
            "parentUuid": null, "timestamp": "2026-04-02T09:00:00.000Z",
            "message": { "role": "user", "content": format!("Rename brew in {id}") }
        });
        let assistant = serde_json::json!({
            "type": "assistant", "sessionId": id, "cwd": "/home/dev/kettle", "uuid": format!("{id}-a"),
            "parentUuid": format!("{id}-u"), "timestamp": "2026-04-02T09:00:03.000Z",
            "message": { "role": "assistant", "model": "claude-sonnet-4-5-20250929",
                "content": [{ "type": "text", "text": "Done." }],
                "usage": { "input_tokens": 1, "output_tokens": 1 } }
        });
        std::fs::write(project.join(format!("{id}.jsonl")), format!("{user}\n{assistant}\n")).expect("written");
    }
    project
}

#[test]
fn index_with_marks_gives_each_marked_row_its_marks() {
    let temp = TempDir::new("cli-marks");
    let project = write_two_sessions(&temp.0);
    let marks = temp.0.join("marks.json");
    let file = serde_json::json!({
        "sessionscope": "marks", "version": 1,
        "sessions": {
            MARKED: { "note": "check the rename", "tags": ["perf", "Bug"], "updated_ms": 1_732_700_000_000_i64,
                "entries": { format!("{MARKED}-a"): { "starred": true, "updated_ms": 1_732_700_000_001_i64 } } },
            "cccccccc-0000-4000-8000-000000000003": { "starred": true, "updated_ms": 1 }
        }
    });
    std::fs::write(&marks, file.to_string()).expect("written");
    let marks_flag = format!("--marks={}", marks.display());
    let project = project.to_str().expect("a UTF-8 path");

    let out = run(&["index", "--json", &marks_flag, project]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("--json prints JSON");
    let rows = json["sessions"].as_array().expect("sessions");
    assert_eq!(rows.len(), 2, "{json}");
    let row = |id: &str| rows.iter().find(|r| r["session_id"] == id).unwrap_or_else(|| panic!("{id} is listed"));
    assert_eq!(row(MARKED)["marks"], file["sessions"][MARKED], "the session's marks as the file has them");
    assert!(row(UNMARKED).get("marks").is_none(), "a session without marks has no field");

    let out = run(&["index", project, &marks_flag]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let table = text(&out.stdout);
    let line = |id: &str| table.lines().find(|l| l.contains(id)).unwrap_or_else(|| panic!("{id}: {table}"));
    assert!(line(MARKED).starts_with("★ "), "starred through its entry: {table}");
    assert!(line(MARKED).ends_with(" #perf #Bug"), "{table}");
    assert!(!line(UNMARKED).contains('★') && !line(UNMARKED).contains('#'), "{table}");

    let out = run(&["index", project]);
    assert!(!text(&out.stdout).contains('★'), "no marks without --marks");
}

#[test]
fn a_marks_file_that_cannot_be_read_is_a_usage_error() {
    let temp = TempDir::new("cli-bad-marks");
    let project = write_two_sessions(&temp.0);
    let project = project.to_str().expect("a UTF-8 path");
    let cases = [
        ("not-json.json", "{ \"sessionscope\": ", "this file is not JSON: "),
        (
            "other.json",
            "{\"sessions\": {}}",
            "this JSON file holds no sessionscope marks (no \"sessionscope\": \"marks\")",
        ),
        (
            "newer.json",
            "{\"sessionscope\": \"marks\", \"version\": 9}",
            "these marks were written by a newer sessionscope (version 9)",
        ),
    ];
    for (name, content, says) in cases {
        let path = temp.0.join(name);
        std::fs::write(&path, content).expect("written");
        let out = run(&["index", "--json", project, &format!("--marks={}", path.display())]);
        assert_eq!(out.status.code(), Some(2), "{name}");
        assert!(out.stdout.is_empty(), "{name}: nothing is printed on stdout");
        let expected = format!("sessionscope: {}: {says}", path.display());
        assert!(text(&out.stderr).starts_with(&expected), "{name}: {}", text(&out.stderr));
    }
    let missing = temp.0.join("missing.json");
    let out = run(&["index", project, &format!("--marks={}", missing.display())]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).starts_with(&format!("sessionscope: {}: could not be read", missing.display())));
    let out = run(&["index", project, "--marks"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("a value is required for '--marks <FILE>'"), "{}", text(&out.stderr));
    let out = run(&["index", project, "--marks="]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("a value is required for '--marks <FILE>'"), "{}", text(&out.stderr));
}

/// Runs the command line with `input` on its stdin.
fn run_with_stdin(args: &[&str], input: &[u8]) -> Output {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = common::sessionscope()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the command line runs");
    child.stdin.take().expect("a stdin").write_all(input).expect("stdin written");
    child.wait_with_output().expect("the command line ends")
}

#[test]
fn each_command_has_help_with_examples_and_the_version() {
    for command in [
        "summary",
        "index",
        "files",
        "failures",
        "activity",
        "search",
        "resume",
        "dump",
        "records",
        "share",
        "completions",
    ] {
        let out = run(&[command, "--help"]);
        assert_eq!(out.status.code(), Some(0), "{command}");
        let help = text(&out.stdout);
        assert!(help.contains(&format!("Usage: sessionscope {command}")), "{command}: {help}");
        assert!(help.contains(&format!("Examples:\n  sessionscope {command} ")), "{command}: {help}");
    }
    let out = run(&["--version"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stdout), format!("sessionscope {}\n", env!("CARGO_PKG_VERSION")));
    let help = text(&run(&["--help"]).stdout);
    assert!(help.contains("Exit status: 0 when the command ran"), "{help}");
}

#[test]
fn completions_name_the_commands() {
    let out = run(&["completions", "bash"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let script = text(&out.stdout);
    assert!(script.contains("_sessionscope()"), "a bash function");
    for command in ["summary", "index", "search", "resume", "completions"] {
        assert!(script.contains(command), "{command}");
    }
    for shell in ["zsh", "fish", "powershell", "elvish"] {
        let out = run(&["completions", shell]);
        assert_eq!(out.status.code(), Some(0), "{shell}");
        assert!(text(&out.stdout).contains("search"), "{shell}");
    }
    assert_eq!(run(&["completions", "tcsh"]).status.code(), Some(2));
}

#[test]
fn a_mistyped_command_or_flag_is_an_error_with_a_suggestion() {
    let out = run(&["indx", "."]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let stderr = text(&out.stderr);
    assert!(stderr.contains("unrecognized subcommand 'indx'"), "{stderr}");
    assert!(stderr.contains("a similar subcommand exists: 'index'"), "{stderr}");
    let stderr = text(&run(&["summary", ".", "--jsn"]).stderr);
    assert!(stderr.contains("a similar argument exists: '--json'"), "{stderr}");
    let out = run(&["activity", ".", "--utc-offset=+99"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("takes ±HH:MM"), "{}", text(&out.stderr));
    let out = run(&["search", "kettle", ".", "--since=2026-02-30"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("takes a day as YYYY-MM-DD"), "{}", text(&out.stderr));
}

#[test]
fn a_dash_reads_a_file_from_stdin() {
    let example = example().join("e3a1c0de-7b2f-4c59-9d41-5f0e8a6b2c17.jsonl");
    let bytes = std::fs::read(&example).expect("the example");
    let out = run_with_stdin(&["summary", "--json", "-"], &bytes);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let from_stdin: serde_json::Value = serde_json::from_slice(&out.stdout).expect("--json prints JSON");
    assert_eq!(from_stdin["sessions"][0]["session_id"], "e3a1c0de-7b2f-4c59-9d41-5f0e8a6b2c17");
    let out = run(&["summary", "--json", example.to_str().expect("a UTF-8 path")]);
    let from_file: serde_json::Value = serde_json::from_slice(&out.stdout).expect("--json prints JSON");
    assert_eq!(from_stdin["sessions"], from_file["sessions"], "the same sessions as from the file");
    // A history reads it too.
    let out = run_with_stdin(&["search", "--json", "division", "-"], &bytes);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let found: serde_json::Value = serde_json::from_slice(&out.stdout).expect("--json prints JSON");
    assert!(found["total"].as_u64().unwrap_or(0) > 0, "{found}");
}

#[test]
fn search_finds_a_word_in_its_session() {
    let temp = TempDir::new("cli-search");
    let project = write_two_sessions(&temp.0);
    let project = project.to_str().expect("a UTF-8 path");
    // Each search is run twice: with the remembered history, and with --no-cache (the units
    // opened first, their rows read only where they hold hits or the filters need them). Both
    // answer the same, but for the units they opened.
    let search = |args: &[&str]| {
        let json = |args: &[&str]| {
            let out = run(args);
            assert_eq!(out.status.code(), Some(0), "{args:?}: {}", text(&out.stderr));
            let mut found = serde_json::from_slice::<serde_json::Value>(&out.stdout).expect("--json prints JSON");
            found.as_object_mut().map(|found| found.remove("sessions_read"));
            found
        };
        let remembered = json(args);
        let uncached = json(&[args, &["--no-cache"]].concat());
        assert_eq!(remembered, uncached, "{args:?}");
        remembered
    };
    // The prompt of one session names its own id: only that session holds it.
    let found = search(&["search", "--json", "--exact", &format!("in {MARKED}"), project]);
    assert_eq!(found["total"], 1, "{found}");
    assert_eq!(found["sessions_searched"], 2, "{found}");
    let hit = &found["hits"][0];
    assert_eq!(hit["session_id"], MARKED);
    assert_eq!(hit["role"], "user");
    assert_eq!(hit["entry_uuid"], format!("{MARKED}-u"));
    assert_eq!(hit["project"], "/home/dev/kettle");
    assert_eq!(hit["agent"], "Claude Code");
    assert_eq!(hit["time_ms"], 1_775_120_400_000_i64);
    assert!(hit["snippet"].as_str().is_some_and(|s| s.contains(MARKED)), "{hit}");

    // A regular expression, in the answers of both sessions.
    let found = search(&["search", "--json", "--regex", r"^D[a-z]+\.$", project]);
    assert_eq!(found["total"], 2, "{found}");
    let roles: Vec<&str> = found["hits"].as_array().expect("hits").iter().filter_map(|h| h["role"].as_str()).collect();
    assert_eq!(roles, ["assistant", "assistant"]);
    // As plain text, the same query is nowhere.
    assert_eq!(search(&["search", "--json", "--exact", r"^D[a-z]+\.$", project])["total"], 0);
    // Case, and the filters.
    assert_eq!(search(&["search", "--json", "--exact", "rename", project])["total"], 2);
    assert_eq!(search(&["search", "--json", "--exact", "--case-sensitive", "rename", project])["total"], 0);
    assert_eq!(search(&["search", "--json", "--exact", "brew", project, "--project", "kettle"])["total"], 2);
    assert_eq!(search(&["search", "--json", "--exact", "brew", project, "--project=teapot"])["total"], 0);
    assert_eq!(search(&["search", "--json", "--exact", "brew", project, "--agent=codex"])["total"], 0);
    assert_eq!(
        search(&["search", "--json", "--exact", "brew", project, "--since=2026-04-02", "--until=2026-04-02"])["total"],
        2
    );
    assert_eq!(search(&["search", "--json", "--exact", "brew", project, "--until=2026-04-01"])["total"], 0);
    // With one hit enough, the search stops there: its count says so; --limit=0 counts all.
    let found = search(&["search", "--json", "--exact", "brew", project, "--limit=1"]);
    assert_eq!((found["total"].as_u64(), found["hits"].as_array().map(Vec::len)), (Some(1), Some(1)), "{found}");
    assert_eq!(found["complete"], false, "{found}");
    let found = search(&["search", "--json", "--exact", "brew", project, "--limit=0"]);
    assert_eq!((found["total"].as_u64(), found["complete"].as_bool()), (Some(2), Some(true)), "{found}");
    // A word that is nowhere.
    let found = search(&["search", "--json", "--exact", "samovar", project]);
    assert_eq!(found["total"], 0);
    assert_eq!(found["hits"], serde_json::json!([]));

    // The text: each hit's line, its snippet, then the count.
    let out = run(&["search", "--exact", "brew", project]);
    let printed = text(&out.stdout);
    assert!(printed.contains("2026-04-02 09:00  user"), "{printed}");
    assert!(printed.ends_with("2 matches in 2 sessions searched\n"), "{printed}");
}

/// A Claude Code session of one prompt at `time` saying `prompt`, and an answer, in a project.
fn one_prompt_session(project: &std::path::Path, id: &str, time: &str, prompt: &str) {
    let user = serde_json::json!({
        "type": "user", "sessionId": id, "cwd": "/home/dev/kettle", "uuid": format!("{id}-u"),
        "parentUuid": null, "timestamp": time, "message": { "role": "user", "content": prompt }
    });
    let assistant = serde_json::json!({
        "type": "assistant", "sessionId": id, "cwd": "/home/dev/kettle", "uuid": format!("{id}-a"),
        "parentUuid": format!("{id}-u"), "timestamp": time,
        "message": { "role": "assistant", "model": "claude-sonnet-4-5-20250929",
            "content": [{ "type": "text", "text": "Done." }], "usage": { "input_tokens": 1, "output_tokens": 1 } }
    });
    std::fs::write(project.join(format!("{id}.jsonl")), format!("{user}\n{assistant}\n")).expect("written");
}

#[test]
fn search_remembers_the_history_and_opens_only_the_sessions_that_may_hold_the_text() {
    let temp = TempDir::new("cli-search-cache");
    let project = temp.0.join("projects").join("-home-dev-kettle");
    std::fs::create_dir_all(&project).expect("a project folder");
    let ids: Vec<String> = (0..6).map(|i| format!("dddddddd-0000-4000-8000-00000000000{i}")).collect();
    for (i, id) in ids.iter().enumerate() {
        let prompt = if i == 2 { "Descale the samovar before the rename" } else { "Rename brew to steep" };
        one_prompt_session(&project, id, &format!("2026-04-0{}T09:00:00.000Z", i + 1), prompt);
    }
    let cache = temp.0.join("cache");
    let folder = project.to_str().expect("a UTF-8 path");
    let search = |args: &[&str]| {
        let out = common::sessionscope()
            .env("SESSIONSCOPE_CACHE_DIR", &cache)
            .args(["search", "--json", "--exact"])
            .args(args)
            .output()
            .expect("the command line runs");
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", text(&out.stderr));
        serde_json::from_slice::<serde_json::Value>(&out.stdout).expect("--json prints JSON")
    };
    let hit_sessions = |found: &serde_json::Value| -> Vec<String> {
        found["hits"]
            .as_array()
            .expect("hits")
            .iter()
            .filter_map(|h| h["session_id"].as_str().map(str::to_owned))
            .collect()
    };

    // The first search reads every session and remembers them; it finds the one that holds it.
    let found = search(&["samovar", folder]);
    assert_eq!((found["total"].as_u64(), found["sessions_searched"].as_u64()), (Some(1), Some(6)), "{found}");
    assert_eq!(hit_sessions(&found), [ids[2].clone()]);
    let kept = std::fs::read_dir(cache.join("histories")).expect("a remembered history").flatten().next().expect("one");
    for file in ["index.json", "trigrams.bin", "insights.bin", "folders.txt"] {
        assert!(kept.path().join(file).is_file(), "{file} is kept");
    }
    // The next opens only that session: the others' trigram sets cannot hold the word.
    let found = search(&["samovar", folder]);
    assert_eq!((found["total"].as_u64(), found["sessions_read"].as_u64()), (Some(1), Some(1)), "{found}");
    assert_eq!(search(&["kettle-descaler", folder])["sessions_read"], 0);
    // A common word: newest session first, and the search stops at the hits it lists.
    let found = search(&["rename", folder, "--limit=2"]);
    let newest_first: Vec<String> = [5, 4].iter().map(|&i| ids[i].clone()).collect();
    assert_eq!(hit_sessions(&found), newest_first, "{found}");
    assert_eq!(found["complete"], false);
    assert!(found["sessions_read"].as_u64().is_some_and(|read| read < 6), "{found}");
    let found = search(&["rename", folder, "--limit=0"]);
    assert_eq!((found["total"].as_u64(), found["complete"].as_bool()), (Some(6), Some(true)), "{found}");

    // A session that changed is read again, not answered from what was remembered.
    let grown = project.join(format!("{}.jsonl", ids[4]));
    let mut bytes = std::fs::read(&grown).expect("read");
    let more = serde_json::json!({
        "type": "user", "sessionId": ids[4], "cwd": "/home/dev/kettle", "uuid": "late-u",
        "parentUuid": format!("{}-a", ids[4]), "timestamp": "2026-04-09T09:00:00.000Z",
        "message": { "role": "user", "content": "And the samovar too" }
    });
    bytes.extend_from_slice(format!("{more}\n").as_bytes());
    std::fs::write(&grown, bytes).expect("written");
    let found = search(&["samovar", folder]);
    assert_eq!(found["total"], 2, "{found}");
    assert_eq!(hit_sessions(&found), [ids[4].clone(), ids[2].clone()], "the grown session is now the newest");

    // Damaged remembered files are not trusted: the history is read again, and answers the same.
    for file in ["index.json", "trigrams.bin", "insights.bin"] {
        std::fs::write(kept.path().join(file), b"\x00not a cache").expect("written");
    }
    assert_eq!(search(&["samovar", folder])["total"], 2);
    assert_eq!(search(&["samovar", folder])["sessions_read"], 2, "remembered again");

    // --no-cache opens every session (their raw bytes rule most out) and keeps nothing.
    std::fs::remove_dir_all(&cache).expect("removed");
    let found = search(&["samovar", folder, "--no-cache"]);
    assert_eq!((found["total"].as_u64(), found["sessions_read"].as_u64()), (Some(2), Some(6)), "{found}");
    assert!(!cache.join("histories").exists(), "nothing kept");
}

#[test]
fn a_reader_that_stops_early_ends_the_command_quietly() {
    let example = example();
    for args in [vec!["summary"], vec!["dump"], vec!["index"]] {
        let mut child = common::sessionscope()
            .args(&args)
            .arg(&example)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("the command line runs");
        // The reader goes away before anything is written, as `| head` does after its lines.
        drop(child.stdout.take());
        let out = child.wait_with_output().expect("it ends");
        let stderr = text(&out.stderr);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(stderr.is_empty(), "{args:?} says nothing: {stderr}");
    }
}

#[test]
fn search_ranks_the_sessions_that_hold_the_words_in_any_order() {
    let temp = TempDir::new("cli-search-ranked");
    let project = temp.0.join("projects").join("-home-dev-kettle");
    std::fs::create_dir_all(&project).expect("a project folder");
    let prompts = [
        ("aaaaaaaa-0000-4000-8000-000000000001", "2026-04-01", "Fix the flaky login test in the auth service"),
        ("aaaaaaaa-0000-4000-8000-000000000002", "2026-04-02", "Write a test for the login page"),
        ("aaaaaaaa-0000-4000-8000-000000000003", "2026-04-03", "Descale the samovar"),
    ];
    for (id, day, prompt) in prompts {
        one_prompt_session(&project, id, &format!("{day}T09:00:00.000Z"), prompt);
    }
    let folder = project.to_str().expect("a UTF-8 path");
    let cache = temp.0.join("cache");
    // Each search runs with the remembered history (whose trigram sets rule units out) and
    // without it: both answer the same, but for the units they read.
    let search = |args: &[&str]| {
        let json = |flags: &[&str]| {
            let out = common::sessionscope()
                .env("SESSIONSCOPE_CACHE_DIR", &cache)
                .args([&["search", "--json"], flags, args, &[folder]].concat())
                .output()
                .expect("the command line runs");
            assert_eq!(out.status.code(), Some(0), "{args:?}: {}", text(&out.stderr));
            let mut found = serde_json::from_slice::<serde_json::Value>(&out.stdout).expect("--json prints JSON");
            found.as_object_mut().map(|found| found.remove("units_read"));
            found
        };
        let remembered = json(&[]);
        assert_eq!(remembered, json(&["--no-cache"]), "{args:?}");
        remembered
    };
    let ids = |found: &serde_json::Value| -> Vec<String> {
        let results = found["results"].as_array().expect("results");
        results.iter().filter_map(|r| r["session_id"].as_str().map(|id| id[id.len() - 1..].to_owned())).collect()
    };
    // Words in another order than the prompt's: the one session that holds them all.
    let found = search(&["test flaky login"]);
    assert_eq!(ids(&found), ["1"], "{found}");
    let first = &found["results"][0];
    assert_eq!((first["rank"].as_u64(), first["score"].as_f64().is_some_and(|s| s > 0.0)), (Some(1), true));
    let snippet = &first["snippets"][0];
    assert_eq!(snippet["zone"], "title", "{found}");
    let marked: String = snippet["snippet"]
        .as_str()
        .expect("a snippet")
        .chars()
        .skip(snippet["match_start"].as_u64().unwrap_or(0) as usize)
        .take(snippet["match_len"].as_u64().unwrap_or(0) as usize)
        .collect();
    assert!(["test", "flaky", "login"].contains(&marked.to_lowercase().as_str()), "{snippet}");
    // Both sessions that hold two words; newest first when asked.
    assert_eq!(search(&["login test", "--sort=time"]).pipe(|f| ids(&f)), ["2", "1"]);
    assert_eq!(search(&["\"login page\""]).pipe(|f| ids(&f)), ["2"]);
    assert_eq!(search(&["login -flaky"]).pipe(|f| ids(&f)), ["2"]);
    assert_eq!(search(&["login OR samovar", "--sort=time"]).pipe(|f| ids(&f)), ["3", "2", "1"]);
    assert_eq!(search(&["desc*"]).pipe(|f| ids(&f)), ["3"]);
    assert_eq!(search(&["samovar after:2026-04-03"]).pipe(|f| ids(&f)), ["3"]);
    assert_eq!(search(&["samovar before:2026-04-02"]).pipe(|f| ids(&f)), Vec::<String>::new());
    assert_eq!(search(&["login agent:claude role:user"])["total"], 2);
    assert_eq!(search(&["login role:assistant"])["total"], 0);
    assert_eq!(search(&["login", "--project=teapot"])["total"], 0);
    // `--project` names a project by its folder or the folder's last name, in every mode;
    // `project:` in the query takes a part of the folder.
    assert_eq!(search(&["login", "--project=kettle"])["total"], 2);
    assert_eq!(search(&["login", "--project=/home/dev/kettle"])["total"], 2);
    assert_eq!(search(&["login", "--project=kett"])["total"], 0);
    assert_eq!(search(&["login project:kett"])["total"], 2);
    assert_eq!(search(&["login", "--exact", "--project=kett"])["total"], 0);
    assert_eq!(search(&["login", "--limit=1"])["results"].as_array().map(Vec::len), Some(1));
    // A query written /…/ lists every match of its regular expression.
    let found = search(&["/sam.var/"]);
    assert_eq!(found["total"], 1, "{found}");
    assert!(found["hits"].is_array(), "{found}");

    // Words the remembered word indexes answer: no unit is read, only the line the index names
    // for each word of the session shown, for its snippets (which are those reading it gives, as
    // the searches above compare); without the cache (no trigram sets, no word indexes) all three
    // are read.
    let units_read = |flags: &[&str]| {
        let out = common::sessionscope()
            .env("SESSIONSCOPE_CACHE_DIR", &cache)
            .args([&["search", "--json", "login", "--limit=1"], flags, &[folder]].concat())
            .output()
            .expect("the command line runs");
        serde_json::from_slice::<serde_json::Value>(&out.stdout).expect("--json prints JSON")["units_read"].as_u64()
    };
    assert_eq!((units_read(&[]), units_read(&["--no-cache"])), (Some(0), Some(3)));

    // The text: each session's line with its rank, its snippets, then the count.
    let out = run(&["search", "--no-cache", "login test", folder]);
    let printed = text(&out.stdout);
    assert!(printed.lines().next().is_some_and(|line| line.trim_start().starts_with("1.")), "{printed}");
    assert!(printed.ends_with("2 sessions found of 3 searched\n"), "{printed}");
    // A query that cannot be read says why.
    let out = run(&["search", "--no-cache", "login role:robot", folder]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("`role:robot` is no role"), "{}", text(&out.stderr));
}

/// `value.pipe(f)`: `f(value)`, to keep a chain of asserts short.
trait Pipe: Sized {
    fn pipe<T>(self, f: impl FnOnce(Self) -> T) -> T {
        f(self)
    }
}

impl Pipe for serde_json::Value {}
