//! `sessionscope index`: a generated history of several projects, and the real logs, indexed
//! session by session; every row equals what `summary` says of that session's own files, files
//! that are not logs or cannot be read are listed with their reason, and an older loose
//! `agent-*.jsonl` joins the session it names.

mod common;

use common::TempDir;

use std::path::{Path, PathBuf};

use serde_json::Value;
use sessionscope_synth::{SynthExtras, SynthOptions, generate_with, write_to_dir};

fn run(args: &[&str]) -> Value {
    let out = common::sessionscope().args(args).output().expect("the command line runs");
    assert_eq!(out.status.code(), Some(0), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("JSON")
}

/// Three projects of generated sessions, with subagents, beside a CSV named like a log, a file
/// that cannot be read, and notes.
fn write_history(root: &Path) -> PathBuf {
    let projects = root.join("projects");
    for (i, (project, size)) in
        [("alpha", 300_000), ("alpha", 120_000), ("beta", 500_000), ("gamma", 80_000)].iter().enumerate()
    {
        let options = SynthOptions { target_bytes: *size, seed: 100 + i as u64, agents: true, broken: i == 3 };
        let extras = SynthExtras { project_name: (*project).to_owned(), ..SynthExtras::default() };
        let session = generate_with(&options, &extras);
        write_to_dir(&session, &projects.join(format!("-home-dev-projects-{project}"))).expect("written");
    }
    let beta = projects.join("-home-dev-projects-beta");
    std::fs::write(beta.join("export.jsonl"), "name,tokens\nalpha,12\n").expect("written");
    std::fs::write(beta.join("notes.txt"), "remember the milk\n").expect("written");
    // A file gone since the folder was listed: a link to nothing.
    std::os::unix::fs::symlink(beta.join("gone.jsonl"), beta.join("moved.jsonl")).expect("a link");
    projects
}

/// `summary --json` of some files, each given by its path under `root`.
fn summary_of(root: &Path, files: &[Value]) -> Value {
    let paths: Vec<String> =
        files.iter().map(|f| root.join(f.as_str().expect("a path")).to_string_lossy().into_owned()).collect();
    let mut args = vec!["summary", "--json"];
    args.extend(paths.iter().map(String::as_str));
    run(&args)
}

#[test]
fn every_row_of_the_index_equals_the_summary_of_its_own_files() {
    let temp = TempDir::new("index-rows");
    let projects = write_history(&temp.0);
    let index = run(&["index", "--json", projects.to_str().expect("UTF-8")]);
    let rows = index["sessions"].as_array().expect("sessions");
    assert_eq!(rows.len(), 4, "one row per generated session");
    let mut projects_seen: Vec<&str> = rows.iter().map(|r| r["project"].as_str().unwrap_or("")).collect();
    projects_seen.sort();
    projects_seen.dedup();
    assert_eq!(
        projects_seen,
        ["/home/dev/projects/alpha", "/home/dev/projects/beta", "/home/dev/projects/gamma"],
        "the project is the working directory the messages name"
    );
    let mut tokens = 0u64;
    for row in rows {
        let files = row["files"].as_array().expect("files");
        assert!(files.len() > 1, "the session's subagent files are part of it: {files:?}");
        let summary = summary_of(&temp.0, files);
        let session = summary["sessions"]
            .as_array()
            .and_then(|s| s.iter().find(|s| s["session_id"] == row["session_id"]))
            .expect("the session is in its files' summary");
        assert_eq!(row["usage"], session["usage_with_agents"], "{}", row["session_id"]);
        // The same prices summed in another order may differ in the last rounded digit.
        let (row_cost, session_cost) = (row["cost_usd"].as_f64(), session["cost_with_agents_usd"].as_f64());
        assert!(
            matches!((row_cost, session_cost), (Some(a), Some(b)) if (a - b).abs() <= 2e-6),
            "{row_cost:?} {session_cost:?}"
        );
        assert_eq!(row["tool_calls"], session["tool_uses"]);
        assert_eq!(row["compactions"], session["compactions"]);
        assert_eq!(row["branches"], session["real_forks"]);
        assert_eq!(row["agents"].as_u64(), session["agents"].as_array().map(|a| a.len() as u64));
        let diagnostics = summary["diagnostics"].as_array().map_or(0, Vec::len) as u64;
        assert_eq!(row["diagnostics"].as_u64(), Some(diagnostics));
        tokens += row["usage"]["output_tokens"].as_u64().unwrap_or(0);
    }
    assert!(rows.iter().any(|r| r["diagnostics"].as_u64() > Some(0)), "the broken session's bad lines are counted");
    assert_eq!(index["totals"]["usage"]["output_tokens"].as_u64(), Some(tokens), "the totals add the rows up");
    assert_eq!(index["totals"]["projects"].as_u64(), Some(3));

    // What is not a session is listed with its reason; nothing else stopped.
    let problems = index["problems"].as_array().expect("problems");
    let reason = |name: &str| {
        problems
            .iter()
            .find(|p| p["path"].as_str().is_some_and(|path| path.ends_with(name)))
            .and_then(|p| p["reason"].as_str())
            .unwrap_or_else(|| panic!("{name} is listed: {problems:?}"))
            .to_owned()
    };
    assert!(reason("export.jsonl").contains("not a session log"), "{}", reason("export.jsonl"));
    assert!(reason("notes.txt").contains("not named like a log"));
    assert!(reason("moved.jsonl").starts_with("could not be read"), "{}", reason("moved.jsonl"));
}

#[test]
fn a_loose_agent_file_of_older_versions_joins_the_session_it_names() {
    let temp = TempDir::new("index-loose-agent");
    let project = temp.0.join("projects").join("-home-dev-projects-lamp");
    std::fs::create_dir_all(&project).expect("a folder");
    let main = concat!(
        r#"{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s-main","cwd":"/home/dev/projects/lamp","timestamp":"2025-06-01T10:00:00Z","message":{"role":"user","content":"Check the docs"}}"#,
        "\n",
        r#"{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s-main","cwd":"/home/dev/projects/lamp","timestamp":"2025-06-01T10:00:05Z","requestId":"r1","message":{"id":"m1","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"On it."}],"usage":{"input_tokens":10,"output_tokens":5}}}"#,
        "\n"
    );
    let agent = concat!(
        r#"{"type":"user","uuid":"x1","parentUuid":null,"isSidechain":true,"agentId":"abc","sessionId":"s-main","cwd":"/home/dev/projects/lamp","timestamp":"2025-06-01T10:00:06Z","message":{"role":"user","content":"Read the docs"}}"#,
        "\n",
        r#"{"type":"assistant","uuid":"x2","parentUuid":"x1","isSidechain":true,"agentId":"abc","sessionId":"s-main","cwd":"/home/dev/projects/lamp","timestamp":"2025-06-01T10:00:09Z","requestId":"r2","message":{"id":"m2","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"Done."}],"usage":{"input_tokens":100,"output_tokens":50}}}"#,
        "\n"
    );
    std::fs::write(project.join("s-main.jsonl"), main).expect("written");
    std::fs::write(project.join("agent-abc.jsonl"), agent).expect("written");
    let index = run(&["index", "--json", temp.0.join("projects").to_str().expect("UTF-8")]);
    let rows = index["sessions"].as_array().expect("sessions");
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0]["files"].as_array().map(Vec::len), Some(2));
    assert_eq!(rows[0]["usage"]["output_tokens"].as_u64(), Some(55), "the agent's tokens count with its session");
    assert_eq!(rows[0]["title"].as_str(), Some("Check the docs"));
}

#[test]
fn the_real_logs_index_as_their_summary_counts_them() {
    let Some(real) = common::real_fixtures("the_real_logs_index_as_their_summary_counts_them") else { return };
    for (name, dir) in real.folders() {
        let index = run(&["index", "--json", dir.to_str().expect("UTF-8")]);
        let summary = run(&["summary", "--json", dir.to_str().expect("UTF-8")]);
        let mut from_index: Vec<(String, Value)> = index["sessions"]
            .as_array()
            .expect("sessions")
            .iter()
            .map(|r| (r["session_id"].as_str().unwrap_or("").to_owned(), r["usage"].clone()))
            .collect();
        let mut from_summary: Vec<(String, Value)> = summary["sessions"]
            .as_array()
            .expect("sessions")
            .iter()
            .map(|s| (s["session_id"].as_str().unwrap_or("").to_owned(), s["usage_with_agents"].clone()))
            .collect();
        from_index.sort_by(|a, b| a.0.cmp(&b.0));
        from_summary.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(from_index, from_summary, "{name}: each session's tokens, read alone and read with the rest");
    }
}

/// Every file under `dir`, as paths relative to it, in order.
fn files_under(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                folders.push(path);
            } else if let Ok(relative) = path.strip_prefix(dir) {
                found.push(relative.to_string_lossy().into_owned());
            }
        }
    }
    found.sort();
    found
}

/// A hit without the session it names, for comparing where they are.
type Place = (String, String, String, u32, u32);

/// A unit's files: each path and its bytes.
type UnitFiles = Vec<(String, Vec<u8>)>;

/// The session units of the files under `root`, each with its files.
fn units_under(root: &Path) -> Vec<(sessionscope_engine::history::Unit, UnitFiles)> {
    let paths = files_under(root);
    let path_refs: Vec<&str> = paths.iter().map(String::as_str).collect();
    let hints: Vec<Option<String>> = paths.iter().map(|_| None).collect();
    sessionscope_engine::history::group_into_units(&path_refs, &hints)
        .into_iter()
        .map(|unit| {
            let files = unit
                .files
                .iter()
                .filter_map(|&i| Some((paths[i].clone(), std::fs::read(root.join(&paths[i])).ok()?)))
                .collect();
            (unit, files)
        })
        .collect()
}

fn places(hits: &[sessionscope_engine::history::HistoryHit]) -> Vec<Place> {
    let mut places: Vec<Place> = hits
        .iter()
        .map(|h| (h.uuid.clone(), h.field.name().to_owned(), h.context.clone(), h.match_start, h.match_len))
        .collect();
    places.sort();
    places
}

#[test]
fn a_unit_searched_file_by_file_and_line_by_line_finds_what_the_whole_unit_holds() {
    use sessionscope_engine::history::{UnitSearch, search_unit};
    use sessionscope_engine::search::Query;
    let temp = TempDir::new("unit-search");
    let mut roots = vec![write_history(&temp.0)];
    if let Some(real) =
        common::real_fixtures("a_unit_searched_file_by_file_and_line_by_line_finds_what_the_whole_unit_holds")
    {
        roots.extend(real.every_folder().into_iter().map(|(_, dir)| dir));
    }
    let queries = [
        ("the", false),
        ("Function", false),
        ("read", false),
        ("src", false),
        ("q", false),
        ("zanzibar", false),
        ("fn\\s+\\w+", true),
    ];
    let mut compared = 0;
    for root in &roots {
        for (unit, files) in units_under(root) {
            let corpus = sessionscope_engine::Loader::read_all(files.iter().map(|(p, b)| (p.as_str(), b.as_slice())));
            let graph = sessionscope_engine::dag::Graph::build(&corpus);
            for (text, regex) in queries {
                let query = Query::new(text, regex).expect("a query");
                let (whole, whole_count, complete) = search_unit(&corpus, &graph, &query, usize::MAX);
                assert!(complete);
                let mut search = UnitSearch::new(&query, usize::MAX);
                for (path, bytes) in &files {
                    search.add_file(path, bytes);
                }
                let (hits, count, complete) = search.finish();
                let at = format!("{} {:?}: {text:?}", root.display(), unit.key);
                assert!(complete, "{at}");
                assert_eq!(count, whole_count, "{at}");
                assert_eq!(places(&hits), places(&whole), "{at}");
                compared += hits.len();
                // Slice by slice, as a worker reads them: slices cut lines anywhere.
                let mut sliced = UnitSearch::new(&query, usize::MAX);
                for (path, bytes) in &files {
                    let mut slices = bytes.chunks(4099 + path.len());
                    let first = slices.next().unwrap_or_default();
                    let mut file = sliced.start_file(path, first, first.len() == bytes.len());
                    sliced.add_slice(&mut file, first);
                    for slice in slices {
                        sliced.add_slice(&mut file, slice);
                    }
                    sliced.end_file(file);
                }
                let (sliced_hits, sliced_count, _) = sliced.finish();
                assert_eq!(sliced_count, whole_count, "{at}, sliced");
                assert_eq!(places(&sliced_hits), places(&whole), "{at}, sliced");
            }
        }
    }
    assert!(compared > 1000, "{compared} hits compared");
}

/// Words of 3 to 16 letters, digits or `_-.` in `bytes`, each once, in order.
fn words_in(bytes: &[u8]) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    bytes
        .split(|b| !(b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')))
        .filter(|w| (3..=16).contains(&w.len()))
        .filter_map(|w| std::str::from_utf8(w).ok())
        .filter(|w| seen.insert(w.to_ascii_lowercase()))
        .map(str::to_owned)
        .collect()
}

#[test]
fn a_unit_s_trigrams_never_rule_out_a_query_its_search_finds_and_rule_out_words_it_lacks() {
    use sessionscope_engine::history::UnitSearch;
    use sessionscope_engine::search::Query;
    let temp = TempDir::new("unit-trigrams");
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut roots =
        vec![write_history(&temp.0), fixtures.join("formats"), fixtures.join("subagents"), fixtures.join("opencode")];
    if let Some(real) =
        common::real_fixtures("a_unit_s_trigrams_never_rule_out_a_query_its_search_finds_and_rule_out_words_it_lacks")
    {
        roots.extend(real.every_folder().into_iter().map(|(_, dir)| dir));
    }
    let (mut found, mut ruled_out, mut units) = (0, 0, 0);
    for root in &roots {
        for (unit, files) in units_under(root) {
            let bytes: u64 = files.iter().map(|(_, b)| b.len() as u64).sum();
            let corpus = sessionscope_engine::Loader::read_all(files.iter().map(|(p, b)| (p.as_str(), b.as_slice())));
            let set = sessionscope_engine::search::trigrams_of(&corpus, bytes);
            units += 1;
            // Words of the unit's files (in every field, in ids, in the JSON around them), some
            // in upper case, and words of no file.
            let all: Vec<u8> = files.iter().flat_map(|(_, b)| b.iter().copied()).collect();
            let words = words_in(&all);
            let step = (words.len() / 16).max(1);
            let mut queries: Vec<String> = words.iter().step_by(step).cloned().collect();
            queries.extend(words.iter().skip(step / 2).step_by(step * 3).map(|w| w.to_ascii_uppercase()));
            queries.extend(["zanzibar-kettle", "quokkas", "the cat sat"].map(str::to_owned));
            for text in &queries {
                let query = Query::new(text, false).expect("a query");
                let mut search = UnitSearch::new(&query, usize::MAX);
                for (path, bytes) in &files {
                    search.add_file(path, bytes);
                }
                let (_, count, _) = search.finish();
                let may = query.may_match_trigrams(&set);
                let at = format!("{} {:?}: {text:?}", root.display(), unit.key);
                if count > 0 {
                    assert!(may, "{at}: {count} matches, but the trigrams rule it out");
                    found += 1;
                } else if !may {
                    ruled_out += 1;
                }
            }
            for absent in ["zanzibar-kettle", "quokkas"] {
                assert!(!query_may(absent, &set), "{} {:?}: {absent:?}", root.display(), unit.key);
            }
        }
    }
    // The project's own fixtures alone give 29 units and 250 queries found; the real fixtures,
    // when they are there, add more.
    assert!(units > 20 && found > 200, "{units} units, {found} queries found");
    assert!(ruled_out > 100, "{ruled_out} queries ruled out");
}

fn query_may(text: &str, set: &sessionscope_engine::trigrams::TrigramSet) -> bool {
    sessionscope_engine::search::Query::new(text, false).expect("a query").may_match_trigrams(set)
}

#[test]
fn an_aider_history_is_indexed_one_row_per_run() {
    let temp = TempDir::new("index-aider");
    let project = temp.0.join("projects").join("brewlog");
    std::fs::create_dir_all(&project).expect("a folder");
    let history = common::fixture("formats/demo.aider.chat.history.md");
    std::fs::write(project.join(".aider.chat.history.md"), history).expect("written");
    std::fs::write(project.join("README.md"), "# brewlog\n").expect("written");
    let index = run(&["index", "--json", temp.0.join("projects").to_str().expect("UTF-8")]);
    let rows = index["sessions"].as_array().expect("sessions");
    let column = |key: &str| rows.iter().map(|r| r[key].clone()).collect::<Vec<Value>>();
    assert_eq!(
        column("session_id"),
        [
            "projects/brewlog/.aider.chat.history.md#2025-06-01T09:00:00",
            "projects/brewlog/.aider.chat.history.md#2025-06-01T10:15:30",
            "projects/brewlog/.aider.chat.history.md#2025-06-01T10:15:30#L107"
        ],
        "one row per run"
    );
    assert_eq!(column("agent"), ["Aider", "Aider", "Aider"]);
    // The file's folder, for every run (the second run's banner names a git working dir).
    assert_eq!(column("project"), ["brewlog", "brewlog", "brewlog"]);
    // Prompts, replies and the edits' results; the run that was only started has none.
    assert_eq!(column("messages"), [0, 10, 5]);
    assert_eq!(column("tool_calls"), [0, 3, 1]);
    assert_eq!(rows[1]["usage"]["output_tokens"].as_u64(), Some(345 + 87 + 40));
    let problems = index["problems"].as_array().expect("problems");
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0]["path"].as_str().is_some_and(|p| p.ends_with("README.md")));
}

/// Copies a fixture folder (`tests/fixtures/<from>`) to `to`, file by file.
fn copy_fixture_folder(from: &str, to: &Path) {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(from);
    for relative in files_under(&source) {
        let target = to.join(&relative);
        std::fs::create_dir_all(target.parent().expect("a parent")).expect("a folder");
        std::fs::copy(source.join(&relative), &target).expect("copied");
    }
}

/// Writes the format fixture `name` at `place` under `root`.
fn place_fixture(root: &Path, fixture: &str, place: &str) {
    let target = root.join(place);
    std::fs::create_dir_all(target.parent().expect("a parent")).expect("a folder");
    std::fs::write(&target, common::fixture(fixture)).expect("written");
}

/// Every agent's logs where that agent keeps them, under one home folder: one index reads them
/// all, says which agent wrote each session, and every row equals the summary of its own files.
#[test]
fn every_agent_s_logs_in_their_own_folders_index_in_one_pass() {
    let temp = TempDir::new("index-every-agent");
    let home = temp.0.join("home");
    let at = |fixture: &str, place: &str| place_fixture(&home, fixture, place);
    at("every-line-type.jsonl", ".claude/projects/-home-dev-brewlog/every-line-type.jsonl");
    let rollout = "rollout-2025-10-02T10-11-12-0199a213-81c0-7800-8aa1-bbab2a035a53.jsonl";
    at(&format!("formats/{rollout}"), &format!(".codex/sessions/2025/10/02/{rollout}"));
    at("formats/codex-sdk-events.jsonl", "scripts/codex-sdk-events.jsonl");
    at("formats/agent-sdk-stream.jsonl", "scripts/agent-sdk-stream.jsonl");
    at("formats/ollama-chat.jsonl", "scripts/ollama-chat.jsonl");
    at("formats/pi-session.jsonl", ".pi/agent/sessions/--home-dev-brewlog--/pi-session.jsonl");
    let gemini = ".gemini/tmp/9d8c7b6a5f4e3d2c1b0a99887766554433221100ffeeddccbbaa998877665544/chats";
    at("formats/session-2025-11-03T09-15-7c2e9a41.json", &format!("{gemini}/session-2025-11-03T09-15-7c2e9a41.json"));
    at("formats/session-2026-02-10T14-00-b41c7d2e.jsonl", &format!("{gemini}/session-2026-02-10T14-00-b41c7d2e.jsonl"));
    at("formats/qwen-session.jsonl", ".qwen/projects/-home-dev-fetcher/chats/qwen-session.jsonl");
    at("formats/copilot-events.jsonl", ".copilot/session-state/0f3c2b1a/events.jsonl");
    let amp = "T-7b1e2c3d-4f5a-4b6c-8d7e-9f0a1b2c3d4e.json";
    at(&format!("formats/{amp}"), &format!(".local/share/amp/threads/{amp}"));
    at("formats/demo.aider.chat.history.md", "code/brewlog/.aider.chat.history.md");
    let storage = home.join(".config/Code/User/globalStorage");
    copy_fixture_folder("tasks/saoudrizwan.claude-dev", &storage.join("saoudrizwan.claude-dev"));
    copy_fixture_folder("tasks/rooveterinaryinc.roo-cline", &storage.join("rooveterinaryinc.roo-cline"));
    copy_fixture_folder("cursor/projects", &home.join(".cursor/projects"));
    for (sql, place) in [
        ("opencode/opencode.sql", ".local/share/opencode/opencode.db"),
        ("cursor/state.sql", ".config/Cursor/User/globalStorage/state.vscdb"),
    ] {
        let path = home.join(place);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("a folder");
        let sql = String::from_utf8(common::fixture(sql)).expect("SQL text");
        rusqlite::Connection::open(&path).and_then(|c| c.execute_batch(&sql)).expect("the fixture's database");
    }

    let index = run(&["index", "--json", home.to_str().expect("UTF-8")]);
    let rows = index["sessions"].as_array().expect("sessions");
    let mut agents: Vec<&str> = rows.iter().filter_map(|r| r["agent"].as_str()).collect();
    agents.sort();
    agents.dedup();
    assert_eq!(
        agents,
        [
            "Aider",
            "Amp",
            "Claude Agent SDK",
            "Claude Code",
            "Cline",
            "Codex",
            "Cursor",
            "Cursor CLI",
            "Gemini CLI",
            "GitHub Copilot CLI",
            "Ollama",
            "OpenCode",
            "Pi",
            "Qwen Code",
            "Roo Code",
        ],
        "every agent's sessions are found where it keeps them"
    );
    assert_eq!(index["problems"].as_array().map(Vec::len), Some(0), "{}", index["problems"]);
    for row in rows {
        let files = row["files"].as_array().expect("files");
        let summary = summary_of(&temp.0, files);
        // An Aider run is named by its file's path, which is shorter when the file is read alone.
        let id = |value: &Value| value.as_str().and_then(|id| id.rsplit('/').next()).unwrap_or("").to_owned();
        let session = summary["sessions"]
            .as_array()
            .and_then(|s| s.iter().find(|s| id(&s["session_id"]) == id(&row["session_id"])))
            .unwrap_or_else(|| panic!("{} is in its files' summary", row["session_id"]));
        assert_eq!(row["usage"], session["usage_with_agents"], "{} ({})", row["session_id"], row["agent"]);
        let (row_cost, session_cost) = (row["cost_usd"].as_f64(), session["cost_with_agents_usd"].as_f64());
        assert!(
            matches!((row_cost, session_cost), (Some(a), Some(b)) if (a - b).abs() <= 2e-6),
            "{}: {row_cost:?} {session_cost:?}",
            row["session_id"]
        );
        assert_eq!(row["tool_calls"], session["tool_uses"], "{}", row["session_id"]);
        assert_eq!(
            row["agents"].as_u64(),
            session["agents"].as_array().map(|a| a.len() as u64),
            "{}",
            row["session_id"]
        );
    }
}
