//! The `sessionscope` command line: its flags (an unknown one is an error, `--help` is not),
//! and the per-model and per-tool tables of `summary`, on the bundled example.

use std::path::PathBuf;
use std::process::{Command, Output};

fn example() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../assets/example")
}

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sessionscope")).args(args).output().expect("the command line runs")
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
        assert!(stderr.contains("usage: sessionscope summary"), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?}: nothing is printed on stdout");
    }
    let stderr = text(&run(&["summary", "--bogus", example]).stderr);
    assert!(stderr.starts_with("sessionscope: `summary` has no flag `--bogus`\n"), "{stderr}");
}

#[test]
fn help_prints_the_usage_and_succeeds() {
    for args in [vec!["--help"], vec!["-h"], vec!["summary", "--help"], vec!["share", "-h", "x"]] {
        let out = run(&args);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        assert!(text(&out.stdout).starts_with("usage: sessionscope summary"), "{args:?}");
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
