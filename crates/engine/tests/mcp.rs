//! `sessionscope mcp`: the built binary started as an MCP server on a hand-made folder of three
//! Claude Code sessions, spoken to in JSON-RPC over its stdin and stdout as a client does. Its
//! answers are checked against `sessionscope index --json` and `search --json` on the same
//! folder; a planted AWS key, GitHub token and user name never leave it, unless `--no-redact`.

mod common;

use common::TempDir;
use common::mcp::Server;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};

const AWS_KEY: &str = "AKIAZ7Q4XW2RT6LMVBN3";
const GITHUB_TOKEN: &str = "ghp_0123456789abcdefghijABCDEFGHIJ012345";
const USER: &str = "alice";

const FIRST: &str = "aaaaaaaa-0000-4000-8000-000000000001";
const SECOND: &str = "bbbbbbbb-0000-4000-8000-000000000002";
const THIRD: &str = "cccccccc-0000-4000-8000-000000000003";

/// One Claude Code line.
fn line(kind: &str, id: &str, cwd: &str, uuid: &str, parent: Option<&str>, time: &str, message: Value) -> String {
    json!({
        "type": kind, "sessionId": id, "cwd": cwd, "uuid": uuid, "parentUuid": parent,
        "timestamp": time, "message": message
    })
    .to_string()
}

/// A session: a prompt, a Bash call and its result, and an answer.
fn session(id: &str, cwd: &str, day: &str, model: &str, prompt: &str, output: &str) -> String {
    let at = |second: u32| format!("{day}T09:00:{second:02}.000Z");
    let call = format!("toolu_{}", &id[..8]);
    [
        line("user", id, cwd, &format!("{id}-u"), None, &at(0), json!({"role": "user", "content": prompt})),
        line(
            "assistant",
            id,
            cwd,
            &format!("{id}-a1"),
            Some(&format!("{id}-u")),
            &at(2),
            json!({"id": format!("msg_{}1", &id[..8]), "role": "assistant", "model": model,
                "content": [{"type": "tool_use", "id": call, "name": "Bash", "input": {"command": "cat .env"}}],
                "usage": {"input_tokens": 100, "output_tokens": 20}}),
        ),
        line(
            "user",
            id,
            cwd,
            &format!("{id}-r"),
            Some(&format!("{id}-a1")),
            &at(3),
            json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": call, "content": output}]}),
        ),
        line(
            "assistant",
            id,
            cwd,
            &format!("{id}-a2"),
            Some(&format!("{id}-r")),
            &at(5),
            json!({"id": format!("msg_{}2", &id[..8]), "role": "assistant", "model": model,
                "content": [{"type": "text", "text": "The kettle is fixed."}],
                "usage": {"input_tokens": 300, "output_tokens": 40}}),
        ),
    ]
    .join("\n")
        + "\n"
}

/// Three sessions in two projects of the user `alice`: the first prints a `.env` with an AWS key
/// and a GitHub token, the third a long output.
fn write_history(root: &Path) -> PathBuf {
    let projects = root.join("projects");
    let kettle = projects.join("-home-alice-kettle");
    let teapot = projects.join("-home-alice-teapot");
    std::fs::create_dir_all(&kettle).expect("a project folder");
    std::fs::create_dir_all(&teapot).expect("a project folder");
    let secret = format!("AWS_ACCESS_KEY_ID={AWS_KEY}\nGITHUB_TOKEN={GITHUB_TOKEN}\nHOME=/home/{USER}");
    let files = [
        (
            &kettle,
            FIRST,
            "/home/alice/kettle",
            "2026-04-02",
            "claude-sonnet-4-5-20250929",
            "Why is the kettle cold?",
            secret,
        ),
        (
            &teapot,
            SECOND,
            "/home/alice/teapot",
            "2026-04-05",
            "claude-opus-4-1-20250805",
            "Pour the tea",
            "ok".to_owned(),
        ),
        (
            &kettle,
            THIRD,
            "/home/alice/kettle",
            "2026-04-03",
            "claude-sonnet-4-5-20250929",
            "Boil the kettle",
            "x".repeat(3000),
        ),
    ];
    for (folder, id, cwd, day, model, prompt, output) in files {
        std::fs::write(folder.join(format!("{id}.jsonl")), session(id, cwd, day, model, prompt, &output))
            .expect("written");
    }
    projects
}

/// What `sessionscope <args>` prints as JSON.
fn cli_json(args: &[&str]) -> Value {
    let out = common::sessionscope().args(args).output().expect("the command line runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("JSON")
}

fn ids(list: &Value, key: &str) -> Vec<String> {
    list[key]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|item| item["session_id"].as_str().map(str::to_owned))
        .collect()
}

#[test]
fn the_tools_answer_as_the_command_line_does_and_keep_secrets() {
    let temp = TempDir::new("mcp-tools");
    let folder = write_history(&temp.0);
    let path = folder.to_str().expect("a UTF-8 path");
    let index = cli_json(&["index", "--json", path]);
    let mut server = Server::start(&folder, &[]);

    let tools = server.request("tools/list", json!({}));
    let mut names: Vec<&str> =
        tools["tools"].as_array().into_iter().flatten().filter_map(|t| t["name"].as_str()).collect();
    names.sort_unstable();
    assert_eq!(names, ["list_projects", "list_sessions", "read_session", "search", "usage"]);
    for tool in tools["tools"].as_array().into_iter().flatten() {
        assert!(tool["description"].as_str().is_some_and(|d| d.len() > 40), "{tool}");
        assert_eq!(tool["inputSchema"]["type"], "object", "{tool}");
    }

    // Projects: the sessions of each, as `index` counts them; the user's name is redacted.
    let projects = server.call("list_projects", json!({}));
    assert_eq!(projects["total"], 2, "{projects}");
    assert_eq!(projects["projects"][0]["project"], "/home/[user]/teapot", "{projects}");
    assert_eq!(projects["projects"][1]["sessions"], 2, "{projects}");
    let tokens: u64 = projects["projects"].as_array().into_iter().flatten().filter_map(|p| p["tokens"].as_u64()).sum();
    let index_tokens: u64 = index["sessions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s["usage"]["input_tokens"].as_u64())
        .sum::<u64>()
        + index["sessions"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|s| s["usage"]["output_tokens"].as_u64())
            .sum::<u64>();
    assert_eq!(tokens, index_tokens);

    // Sessions: those of `index`, newest activity first, paged and filtered.
    let sessions = server.call("list_sessions", json!({}));
    assert_eq!(sessions["total"], index["sessions"].as_array().map_or(0, Vec::len));
    assert_eq!(ids(&sessions, "sessions"), [SECOND, THIRD, FIRST]);
    let first = &sessions["sessions"][2];
    let row = index["sessions"].as_array().into_iter().flatten().find(|s| s["session_id"] == FIRST).expect("a row");
    assert_eq!(first["messages"], row["messages"]);
    assert_eq!(first["tool_calls"], row["tool_calls"]);
    assert_eq!(first["title"], row["title"]);
    let page = server.call("list_sessions", json!({"limit": 1, "offset": 1}));
    assert_eq!(
        (ids(&page, "sessions"), page["total"].clone(), page["next_offset"].clone()),
        (vec![THIRD.to_owned()], json!(3), json!(2))
    );
    assert_eq!(ids(&server.call("list_sessions", json!({"project": "teapot"})), "sessions"), [SECOND]);
    assert_eq!(
        ids(&server.call("list_sessions", json!({"project": "/home/[user]/kettle"})), "sessions"),
        [THIRD, FIRST]
    );
    assert_eq!(ids(&server.call("list_sessions", json!({"model": "OPUS"})), "sessions"), [SECOND]);
    assert_eq!(
        ids(&server.call("list_sessions", json!({"since": "2026-04-03", "until": "2026-04-04"})), "sessions"),
        [THIRD]
    );
    assert_eq!(ids(&server.call("list_sessions", json!({"title": "boil"})), "sessions"), [THIRD]);
    assert_eq!(server.call("list_sessions", json!({"agent": "codex"}))["total"], 0);
    let (why, error) = server.call_text("list_sessions", json!({"since": "April"}));
    assert!(error && why.contains("YYYY-MM-DD"), "{why}");

    // Search, ranked: the sessions, ranks and scores of `search --json`.
    for query in ["kettle", "fixed kettle", "\"the kettle\" -boil", "kettle role:assistant"] {
        let cli = cli_json(&["search", "--json", query, path]);
        let found = server.call("search", json!({"query": query}));
        assert_eq!(found["total"], cli["total"], "{query}: {found}");
        let ranked = |v: &Value| -> Vec<(Value, Value, Value)> {
            let results = v["results"].as_array().into_iter().flatten();
            results.map(|r| (r["session_id"].clone(), r["rank"].clone(), r["score"].clone())).collect()
        };
        assert!(!ranked(&found).is_empty(), "{query}: {found}");
        assert_eq!(ranked(&found), ranked(&cli), "{query}");
    }
    let (why, error) = server.call_text("search", json!({"query": "kettle role:robot"}));
    assert!(error && why.contains("role:user"), "{why}");
    // Search, every match: the hits and total of `search --json --exact` or `--regex`.
    for (query, regex) in [("kettle", false), ("fixed", false), (r"^Pour\b", true)] {
        let args = ["search", "--json", if regex { "--regex" } else { "--exact" }, query, path];
        let cli = cli_json(&args);
        let found = server.call("search", json!({"query": query, "regex": regex, "exact": !regex}));
        assert_eq!(found["total"], cli["total"], "{query}: {found}");
        let pairs = |v: &Value| -> Vec<(Value, Value)> {
            v["hits"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|h| (h["session_id"].clone(), h["entry_uuid"].clone()))
                .collect()
        };
        assert_eq!(pairs(&found), pairs(&cli), "{query}");
    }
    let args = json!({"query": "kettle", "exact": true, "limit": 1, "offset": 1, "project": "kettle"});
    let found = server.call("search", args);
    assert_eq!(found["hits"].as_array().map_or(0, Vec::len), 1, "{found}");
    assert_eq!(found["hits"][0]["role"], "assistant", "{found}");
    assert_eq!(server.call("search", json!({"query": "kettle", "exact": true, "until": "2026-04-02"}))["total"], 2);
    let (why, error) = server.call_text("search", json!({"query": "(", "regex": true}));
    assert!(error, "{why}");
    // The planted secrets are found by what surrounds them, and not shown.
    let found = server.call("search", json!({"query": "AWS_ACCESS_KEY_ID", "exact": true}));
    assert_eq!(found["total"], 1, "{found}");
    assert!(found["hits"][0]["snippet"].as_str().is_some_and(|s| s.contains("[REDACTED")), "{found}");
    let found = server.call("search", json!({"query": "AWS_ACCESS_KEY_ID"}));
    assert_eq!(found["total"], 1, "{found}");
    let snippet = found["results"][0]["snippets"][0]["snippet"].as_str();
    assert!(snippet.is_some_and(|s| s.contains("AWS_ACCESS_KEY_ID") && s.contains("[REDACTED")), "{found}");

    // A session as Markdown, whole or in parts; a long output is cut.
    let (markdown, error) = server.call_text("read_session", json!({"session_id": FIRST}));
    assert!(!error, "{markdown}");
    assert!(markdown.contains("Why is the kettle cold?") && markdown.contains("cat .env"), "{markdown}");
    assert!(markdown.contains("The kettle is fixed.") && markdown.contains("All 3 messages."), "{markdown}");
    let (part, _) = server.call_text("read_session", json!({"session_id": &THIRD[..8], "offset": 1, "limit": 1}));
    assert!(part.contains("Messages 2–2 of 3.") && !part.contains("### User"), "{part}");
    assert!(part.contains("1 more message: read_session with offset 2"), "{part}");
    assert!(part.contains("more characters") && !part.contains(&"x".repeat(1100)), "{part}");
    let (why, error) = server.call_text("read_session", json!({"session_id": "zzz"}));
    assert!(error && why.contains("no session"), "{why}");

    // Usage: the tokens and cost `index` counts.
    let usage = server.call("usage", json!({}));
    assert_eq!(usage["tokens"], json!(index_tokens), "{usage}");
    let cost = index["totals"]["cost_usd"].as_f64().unwrap_or(0.0);
    assert!((usage["cost_usd"].as_f64().unwrap_or(-1.0) - cost).abs() < 0.001, "{usage} vs {cost}");
    assert_eq!(usage["by_day"].as_array().map_or(0, Vec::len), 3, "{usage}");
    assert_eq!(usage["by_model"].as_array().map_or(0, Vec::len), 2, "{usage}");
    let teapot = server.call("usage", json!({"project": "teapot"}));
    assert_eq!(teapot["by_project"][0]["project"], "/home/[user]/teapot", "{teapot}");
    assert_eq!(server.call("usage", json!({"since": "2026-04-04"}))["by_day"][0]["day"], "2026-04-05");

    // Resources: the template, and a session read by its address.
    let templates = server.request("resources/templates/list", json!({}));
    assert_eq!(templates["resourceTemplates"][0]["uriTemplate"], "sessionscope://session/{session_id}", "{templates}");
    let listed = server.request("resources/list", json!({}));
    assert_eq!(listed["resources"].as_array().map_or(0, Vec::len), 3, "{listed}");
    let read = server.request("resources/read", json!({"uri": format!("sessionscope://session/{FIRST}")}));
    let text = read["contents"][0]["text"].as_str().unwrap_or_default().to_owned();
    assert!(text.contains("Why is the kettle cold?"), "{read}");
    server.said.push(text);
    assert!(server.request("resources/read", json!({"uri": "sessionscope://session/nope"})).get("error").is_some());

    // A new session and a grown one are seen at the next call.
    let extra = session(
        "dddddddd-0000-4000-8000-000000000004",
        "/home/alice/teapot",
        "2026-04-06",
        "claude-opus-4-1-20250805",
        "Another cup",
        "ok",
    );
    std::fs::write(folder.join("-home-alice-teapot/dddddddd-0000-4000-8000-000000000004.jsonl"), extra)
        .expect("written");
    // The server learns of changes from the system's file events, which come within
    // milliseconds of the write (not before it returns): a call is given a moment to see them.
    let mut sessions = server.call("list_sessions", json!({}));
    for _ in 0..40 {
        if sessions["total"] == 4 {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
        sessions = server.call("list_sessions", json!({}));
    }
    assert_eq!(sessions["total"], 4, "{sessions}");
    assert_eq!(sessions["sessions"][0]["title"], "Another cup", "{sessions}");
    // The grown history is searched as it now is.
    let found = server.call("search", json!({"query": "Another cup"}));
    assert_eq!(found["total"], 1, "{found}");

    // A session read in pages is read once, and read again once its file grows.
    const NEW: &str = "dddddddd-0000-4000-8000-000000000004";
    let (first, _) = server.call_text("read_session", json!({"session_id": NEW, "offset": 0, "limit": 1}));
    assert!(first.contains("Messages 1–1 of 3."), "{first}");
    let (second, _) = server.call_text("read_session", json!({"session_id": NEW, "offset": 1, "limit": 1}));
    assert!(second.contains("Messages 2–2 of 3."), "{second}");
    let more = line(
        "user",
        NEW,
        "/home/alice/teapot",
        &format!("{NEW}-u2"),
        Some(&format!("{NEW}-a2")),
        "2026-04-06T09:01:00.000Z",
        json!({"role": "user", "content": "And a biscuit"}),
    );
    let path = folder.join(format!("-home-alice-teapot/{NEW}.jsonl"));
    let mut grown = std::fs::read_to_string(&path).expect("read");
    grown.push_str(&more);
    grown.push('\n');
    std::fs::write(&path, grown).expect("written");
    let read_last = |server: &mut common::mcp::Server| {
        server.call_text("read_session", json!({"session_id": NEW, "offset": 3, "limit": 1})).0
    };
    let mut last = read_last(&mut server);
    for _ in 0..40 {
        if last.contains("And a biscuit") {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
        last = read_last(&mut server);
    }
    assert!(last.contains("Messages 4–4 of 4.") && last.contains("And a biscuit"), "{last}");

    for said in &server.said {
        for secret in [AWS_KEY, GITHUB_TOKEN, USER] {
            assert!(!said.contains(secret), "`{secret}` left the server: {said}");
        }
    }
}

#[test]
fn without_redaction_the_text_is_as_logged() {
    let temp = TempDir::new("mcp-raw");
    let folder = write_history(&temp.0);
    let mut server = Server::start(&folder, &["--no-redact"]);
    let found = server.call("search", json!({"query": "AWS_ACCESS_KEY_ID"}));
    let snippet = found["results"][0]["snippets"][0]["snippet"].as_str();
    assert!(snippet.is_some_and(|s| s.contains(AWS_KEY)), "{found}");
    let (markdown, _) = server.call_text("read_session", json!({"session_id": FIRST}));
    assert!(markdown.contains(AWS_KEY) && markdown.contains(GITHUB_TOKEN), "{markdown}");
    let projects = server.call("list_projects", json!({}));
    assert_eq!(projects["projects"][0]["project"], "/home/alice/teapot", "{projects}");
}

#[test]
fn a_missing_folder_is_an_error() {
    let out = common::sessionscope()
        .args(["mcp", "/no/such/sessionscope/folder"])
        .stdin(Stdio::null())
        .output()
        .expect("the command line runs");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no such file or folder"));
}

/// A history whose kettle project holds a link back to the folder above it (a loop) and whose
/// teapot project holds a link to its sibling: each session is counted once, by the command line
/// and by the MCP server, and nothing is said to be left out.
#[cfg(unix)]
#[test]
fn links_back_up_and_across_count_each_session_once() {
    let temp = TempDir::new("mcp-links");
    let projects = write_history(&temp.0);
    std::os::unix::fs::symlink(&projects, projects.join("-home-alice-kettle").join("up")).expect("a link up");
    std::os::unix::fs::symlink(projects.join("-home-alice-kettle"), projects.join("-home-alice-teapot").join("kettle"))
        .expect("a link across");
    let folder = projects.to_str().expect("a UTF-8 path");

    let index = cli_json(&["index", "--json", folder]);
    let mut listed = ids(&index, "sessions");
    listed.sort();
    assert_eq!(listed, [FIRST, SECOND, THIRD], "{index}");
    assert_eq!(index["problems"].as_array().map_or(0, Vec::len), 0, "nothing left out: {}", index["problems"]);

    let mut server = Server::start(&projects, &[]);
    let sessions = server.call("list_sessions", json!({}));
    assert_eq!(sessions["total"], 3, "{sessions}");
    let mut listed = ids(&sessions, "sessions");
    listed.sort();
    assert_eq!(listed, [FIRST, SECOND, THIRD]);
}
