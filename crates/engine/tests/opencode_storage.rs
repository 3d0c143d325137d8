//! OpenCode's older JSON storage, one record per file: the hand-written folder
//! `tests/fixtures/opencode/storage/` (laid out as `~/.local/share/opencode/storage/`: `session/
//! <project>/<session>.json`, `message/<session>/<message>.json`, `part/<message>/<part>.json`,
//! with a project file and a todo list) holds the sessions of the database fixture
//! (`opencode/opencode.jsonl`): a parent session whose `task` call spawned a child session, a
//! tool call with its result, a tool error, reasoning, a patch and a snapshot, an interrupted
//! message in another session; and one part file cut in the middle of its JSON. The layout
//! of 0.5.x (`project/global/storage/session/{info,message,part}/`) holds one more session.
//!
//! Snapshots of the model, the totals summed by hand, the same sessions as from the database's
//! record stream, the history's units (one per session, its child sessions in it), sharing and
//! searching a session, and the files given without their folders.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::*;
use sessionscope_engine::Corpus;
use sessionscope_engine::dag::{ConversationKind, Graph, LinkRule, ToolStatus};
use sessionscope_engine::dump::{dump_corpus, dump_graph};
use sessionscope_engine::history::{UnitSearch, group_into_units, needs_hint, unit_hint};
use sessionscope_engine::model::*;
use sessionscope_engine::summary::summarize;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/opencode")
}

/// The files of `folder` under the fixtures' `opencode/`, named as the command line names them
/// (from the folder given: `storage/part/...`).
fn storage_files(folder: &str) -> Vec<(String, Vec<u8>)> {
    let name = folder.rsplit('/').next().unwrap_or(folder);
    read_folder(&fixtures().join(folder)).into_iter().map(|(path, bytes)| (format!("{name}/{path}"), bytes)).collect()
}

fn load(files: &[(String, Vec<u8>)]) -> (Corpus, Graph) {
    let corpus = load_chunked(files, 0);
    let graph = Graph::build(&corpus);
    (corpus, graph)
}

fn entry<'c>(corpus: &'c Corpus, uuid: &str) -> &'c Entry {
    corpus.entries.iter().find(|e| corpus.entry_uuid(e) == uuid).unwrap_or_else(|| panic!("{uuid} is an entry"))
}

fn run(args: &[&str]) -> Output {
    common::sessionscope().args(args).output().expect("the command line runs")
}

const BAD_PART: &str = "storage/part/msg_a1/prt_a1_11.json";

#[test]
fn the_storage_folder_matches_its_snapshot_and_reads_the_same_in_slices() {
    let files = storage_files("storage");
    let corpus = load_chunked(&files, 0);
    // Every storage file is read as one, each line accounted for; and one more file, the record
    // stream the loader made of them, which is not counted among the lines read.
    let given = &corpus.files[..files.len()];
    for ((path, bytes), info) in files.iter().zip(given) {
        assert_eq!(info.format, Format::OpenCodeStorage, "{path}");
        assert!(info.counts.balanced(), "{path}: {:?}", info.counts);
        assert_eq!(info.counts.lines, count_lines(bytes), "{path}");
        assert!(!info.is_derived());
    }
    let stream = corpus.files.last().expect("the record stream");
    assert_eq!(corpus.files.len(), files.len() + 1);
    assert_eq!((stream.path.as_str(), stream.format), ("storage/opencode-storage.jsonl", Format::OpenCode));
    assert_eq!(stream.sources.len(), files.len(), "made from every storage file");
    assert_eq!(corpus.counts().lines, files.iter().map(|(_, b)| count_lines(b)).sum::<u64>());
    let graph = Graph::build(&corpus);
    let dump = format!("{}{}", dump_corpus(&corpus), dump_graph(&corpus, &graph));
    for chunk in [1, 7, 64] {
        let sliced = load_chunked(&files, chunk);
        let sliced_dump = format!("{}{}", dump_corpus(&sliced), dump_graph(&sliced, &Graph::build(&sliced)));
        assert_eq!(dump, sliced_dump, "in slices of {chunk} bytes");
    }
    // A file listed in another order reads the same: the records are ordered as the database's.
    let mut reversed = files.clone();
    reversed.reverse();
    let (back, back_graph) = load(&reversed);
    assert_eq!(dump_graph(&back, &back_graph), dump_graph(&corpus, &graph));
    insta::assert_snapshot!("opencode-storage", dump);
}

#[test]
fn storage_sessions_subagent_tools_thinking_notes_tokens_and_cost() {
    let (corpus, graph) = load(&storage_files("storage"));
    let ids: Vec<&str> = graph.sessions.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, ["ses_root", "ses_other"], "the child session is an agent of its root, not a session");
    let root = &graph.sessions[0];
    assert_eq!(root.title, "Fix the parser");

    // The child session, nested under the task call whose metadata names it.
    assert_eq!(root.agents.len(), 1);
    let agent = &graph.conversations[root.agents[0].index()];
    assert_eq!((agent.kind, agent.agent_name.as_str()), (ConversationKind::Agent, "ses_child"));
    assert_eq!(agent.linked_by, Some(LinkRule::ParentToolUseId));
    assert_eq!((agent.agent_type.as_str(), agent.description.as_str()), ("explore", "Find callers"));
    let spawn = &corpus.entries[agent.spawn_entry.index()];
    assert_eq!(corpus.entry_uuid(spawn), "msg_a1");
    let call = corpus.blocks[agent.spawn_block.index()];
    assert_eq!((corpus.sym(call.name), corpus.span_str(spawn.file, call.id)), ("task", "call_task"));

    // Tokens and cost, by hand from the step-finish parts (a message's own tokens are only its
    // last step's): step 1 in 100, out 50 + 20 reasoning, cache write 500, read 1000, $0.0123;
    // step 2 in 30, out 80, read 1200, $0.0045; the child: in 40 + 60, out 10 + 15, $0.0002 +
    // $0.0003. The other session has no step-finish: its message's 200 in, 100 out, priced by the
    // table (gpt-4.1: $2 in, $8 out per million: $0.0012).
    assert_eq!(graph.conversations[root.main.index()].usage, usage(100 + 30, 50 + 20 + 80, 500, 1000 + 1200));
    assert_eq!(agent.usage, usage(40 + 60, 10 + 15, 0, 0));
    assert_eq!(root.usage_with_agents, usage(230, 175, 500, 2200));
    assert!((root.cost_usd - (0.0123 + 0.0045)).abs() < 1e-9, "{}", root.cost_usd);
    assert!((root.cost_with_agents_usd - (0.0123 + 0.0045 + 0.0002 + 0.0003)).abs() < 1e-9);
    let other = &graph.sessions[1];
    assert_eq!(other.usage_with_agents, usage(200, 100, 0, 0));
    assert!((other.cost_with_agents_usd - (200.0 * 2.0 + 100.0 * 8.0) / 1e6).abs() < 1e-9);

    // Tool calls paired with their results; the failed one an error with its message.
    let ops: Vec<(&str, ToolStatus)> = graph.tool_ops.iter().map(|op| (corpus.sym(op.name), op.status)).collect();
    assert_eq!(
        ops,
        [("read", ToolStatus::Ok), ("bash", ToolStatus::Error), ("task", ToolStatus::Ok), ("grep", ToolStatus::Ok)]
    );
    let read = &graph.tool_ops[0];
    let result = &corpus.entries[read.result_entry.index()];
    assert_eq!(corpus.span_text(result.file, corpus.blocks[read.result_block.index()].body), "fn parse() {}");
    let bash = &graph.tool_ops[1];
    let block = corpus.blocks[bash.result_block.index()];
    let result = &corpus.entries[bash.result_entry.index()];
    assert_eq!(corpus.span_text(result.file, block.body), "Command failed: exit status 101");
    assert!(block.flags & Block::IS_ERROR != 0);

    // Reasoning as thinking; the interrupted message; the working directory from the session.
    let first_step = entry(&corpus, "msg_a1");
    let thinking: Vec<String> = corpus
        .blocks_of(first_step)
        .iter()
        .filter(|b| b.kind == BlockKind::Thinking)
        .map(|b| corpus.span_text(first_step.file, b.body).into_owned())
        .collect();
    assert_eq!(thinking, ["The parser drops the last line."]);
    let aborted = entry(&corpus, "msg_o2");
    assert!(aborted.flags.has(EntryFlags::INTERRUPTED));
    assert_eq!(corpus.sym(corpus.envelope(aborted).cwd), "/home/u/docs");

    // The snapshot and the patch: notes in the conversation, no tool calls.
    let snapshot = entry(&corpus, "prt_a1_07s");
    let patch = entry(&corpus, "prt_a1_10");
    assert!(snapshot.flags.has(EntryFlags::NOTE) && patch.flags.has(EntryFlags::NOTE));
    assert_eq!(corpus.entry_parent_uuid(entry(&corpus, "msg_a1#1")), Some("prt_a1_07s"));
    assert!(corpus.first_text(patch).is_some_and(|t| t.contains("`/home/u/app/src/parse.rs`")));
    assert_eq!(root.tool_uses, 4, "notes are no tool calls");
    // A note's raw line is its part's record, which names its file.
    let raw = corpus.span_text(patch.file, patch.line_span);
    assert!(raw.contains("\"file\":\"part/msg_a1/prt_a1_10.json\""), "{raw}");
}

#[test]
fn a_storage_file_cut_in_its_json_is_a_diagnostic_with_its_reason() {
    let files = storage_files("storage");
    let (corpus, graph) = load(&files);
    let found: Vec<(&str, u32, DiagnosticKind, &str)> = corpus
        .diagnostics
        .iter()
        .map(|d| (corpus.files[d.file as usize].path.as_str(), d.line, d.kind, d.message.as_str()))
        .collect();
    assert_eq!(
        found,
        [(
            BAD_PART,
            1,
            DiagnosticKind::InvalidJson,
            "an OpenCode storage file whose JSON ends early (line 6, column 35): it was cut while being written, \
             and is not read"
        )]
    );
    let bad = corpus.files.iter().find(|f| f.path == BAD_PART).expect("the cut file");
    assert_eq!((bad.counts.lines, bad.counts.skipped), (6, 6));
    // It is a problem of its session, whose message folder it lies in.
    let rows = sessionscope_engine::history::session_rows(&corpus, &graph, "storage");
    let root = rows.iter().find(|r| r.session_id == "ses_root").expect("the root's row");
    assert_eq!(root.diagnostics, 1);
    assert!(root.files.iter().any(|f| f == BAD_PART));
    // Garbage and other shapes in the storage layout say what they are; none is lost.
    let odd = [
        ("storage/part/msg_a1/prt_x1.json", &b"[1, 2]"[..], "holds a JSON array"),
        ("storage/part/msg_a1/prt_x2.json", b"\x00\x01binary", "binary"),
        ("storage/message/ses_root/msg_x.json", b"{\"role\":\"user\"", "ends early"),
        ("msg_x.json", b"{\"id\":\"msg_x\",\"role\":\"user\",\"sessionID\":\"\"}", "without its session"),
    ];
    for (path, bytes, reason) in odd {
        let corpus = load_one(path, bytes);
        let messages: Vec<&str> = corpus.diagnostics.iter().map(|d| d.message.as_str()).collect();
        assert!(messages.iter().any(|m| m.contains(reason)), "{path}: {messages:?}");
        assert!(corpus.files[0].counts.balanced());
        assert!(corpus.entries.is_empty());
    }
}

/// The same sessions from the database's record stream and from the storage files: the same
/// entries, tokens, cost, tools and agents.
#[test]
fn storage_and_database_read_as_the_same_sessions() {
    let (storage, storage_graph) = load(&storage_files("storage"));
    let (database, database_graph) = load(&[("opencode.db".to_owned(), fixture("opencode/opencode.jsonl"))]);
    let of = |corpus: &Corpus, graph: &Graph| {
        let summary = serde_json::to_value(summarize(corpus, graph)).expect("a summary");
        let agents: Vec<serde_json::Value> =
            summary["unlinked_agents"].as_array().into_iter().flatten().map(|a| a["agent_id"].clone()).collect();
        (
            summary["sessions"].clone(),
            summary["per_model"].clone(),
            summary["per_tool"].clone(),
            summary["validation"].clone(),
            agents,
        )
    };
    assert_eq!(of(&storage, &storage_graph), of(&database, &database_graph));
    let uuids = |corpus: &Corpus| corpus.entries.iter().map(|e| corpus.entry_uuid(e).to_owned()).collect::<Vec<_>>();
    assert_eq!(uuids(&storage), uuids(&database));
    // Only the storage has a file problem: its cut part.
    assert_eq!(storage.diagnostics.len(), 1);
    assert!(database.diagnostics.is_empty());
}

/// A session's files given alone, without the storage folders (dropped one by one): their ids and
/// keys say what they are.
#[test]
fn a_sessions_files_given_without_their_folders_are_read_by_their_ids() {
    let files: Vec<(String, Vec<u8>)> = storage_files("storage")
        .into_iter()
        .filter(|(path, _)| ["/session/", "/message/", "/part/"].iter().any(|folder| path.contains(folder)))
        .map(|(path, bytes)| (path.rsplit('/').next().unwrap_or(&path).to_owned(), bytes))
        .collect();
    let (corpus, graph) = load(&files);
    assert!(corpus.files.iter().filter(|f| !f.is_derived()).all(|f| f.format == Format::OpenCodeStorage));
    assert_eq!(corpus.files.last().map(|f| f.path.as_str()), Some("opencode-storage.jsonl"));
    let (database, database_graph) = load(&[("opencode.db".to_owned(), fixture("opencode/opencode.jsonl"))]);
    let sessions = |corpus: &Corpus, graph: &Graph| serde_json::to_value(summarize(corpus, graph).sessions).unwrap();
    assert_eq!(sessions(&corpus, &graph), sessions(&database, &database_graph));
}

#[test]
fn the_layout_of_0_5_is_read_too() {
    let files = storage_files("project");
    let (corpus, graph) = load(&files);
    assert!(corpus.diagnostics.is_empty(), "{:?}", corpus.diagnostics);
    assert_eq!(graph.sessions.len(), 1);
    let session = &graph.sessions[0];
    assert_eq!((session.id.as_str(), session.title.as_str()), ("ses_legacy", "List the TODO comments"));
    let ops: Vec<(&str, ToolStatus)> = graph.tool_ops.iter().map(|op| (corpus.sym(op.name), op.status)).collect();
    assert_eq!(ops, [("grep", ToolStatus::Ok)]);
    assert_eq!(session.usage_with_agents, usage(900, 40, 0, 0));
    let rows = sessionscope_engine::history::session_rows(&corpus, &graph, "project/global");
    assert_eq!(rows[0].project, "/home/u/notes", "the working directory its messages name");
    assert_eq!(rows[0].files.len(), files.len(), "{:?}", rows[0].files);
}

#[test]
fn a_sessions_files_and_its_child_sessions_make_one_unit() {
    let mut files = storage_files("storage");
    files.extend(storage_files("project"));
    let paths: Vec<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
    let hints: Vec<Option<String>> =
        files.iter().map(|(path, bytes)| if needs_hint(path) { unit_hint(path, bytes) } else { None }).collect();
    // Only the session files are asked about (their parent, for a child session).
    let asked: Vec<&str> = paths.iter().copied().filter(|p| needs_hint(p)).collect();
    assert_eq!(asked.len(), 4, "{asked:?}");
    assert_eq!(hints.iter().flatten().collect::<Vec<_>>(), ["ses_root"], "the child names its parent");
    let units = group_into_units(&paths, &hints);
    let summary: Vec<(&str, &str, usize, &str)> =
        units.iter().map(|u| (u.key.as_str(), u.folder.as_str(), u.files.len(), paths[u.files[0]])).collect();
    assert_eq!(
        summary,
        [
            (
                "project/global/storage/session/info/ses_legacy",
                "project/global",
                8,
                "project/global/storage/session/info/ses_legacy.json"
            ),
            ("storage/session/prj_1/ses_root", "storage/session/prj_1", 27, "storage/session/prj_1/ses_root.json"),
            ("storage/session/prj_1/ses_other", "storage/session/prj_1", 5, "storage/session/prj_1/ses_other.json"),
            ("storage/project/prj_1.json", "storage/project", 1, "storage/project/prj_1.json"),
        ]
    );
    // The root's unit: its files, its child's, the cut part and the todo list.
    let root: Vec<&str> = units[1].files.iter().map(|&i| paths[i]).collect();
    for path in ["storage/session/prj_1/ses_child.json", "storage/message/ses_child/msg_c2.json", BAD_PART] {
        assert!(root.contains(&path), "{path}");
    }
    assert!(root.contains(&"storage/part/msg_c2/prt_c2_02.json") && root.contains(&"storage/todo/ses_root.json"));
    // Each unit read alone gives its session, with everything it has.
    let read = |unit: usize| {
        let mine: Vec<(String, Vec<u8>)> = units[unit].files.iter().map(|&i| files[i].clone()).collect();
        let corpus = load_chunked(&mine, 0);
        let graph = Graph::build(&corpus);
        sessionscope_engine::history::index_unit(&corpus, &graph, &units[unit].folder)
    };
    let root = read(1);
    assert_eq!(root.rows.len(), 1);
    assert_eq!((root.rows[0].session_id.as_str(), root.rows[0].agents, root.rows[0].tool_calls), ("ses_root", 1, 4));
    assert_eq!(root.rows[0].project, "/home/u/app");
    assert!(root.problems.is_empty(), "{:?}", root.problems);
    let project = read(3);
    assert!(project.rows.is_empty());
    assert_eq!(project.problems[0].reason, "holds no conversation (only metadata)");
}

#[test]
fn index_and_summary_read_the_storage_folders_on_the_command_line() {
    let storage = fixtures().join("storage");
    let legacy = fixtures().join("project");
    let out = run(&["index", "--json", storage.to_str().expect("a path"), legacy.to_str().expect("a path")]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("--json prints JSON");
    let sessions = json["sessions"].as_array().expect("sessions");
    let listed: Vec<(&str, &str, &str)> = sessions
        .iter()
        .map(|s| {
            (
                s["session_id"].as_str().unwrap_or(""),
                s["agent"].as_str().unwrap_or(""),
                s["project"].as_str().unwrap_or(""),
            )
        })
        .collect();
    let mut listed = listed;
    listed.sort();
    assert_eq!(
        listed,
        [
            ("ses_legacy", "OpenCode", "/home/u/notes"),
            ("ses_other", "OpenCode", "/home/u/docs"),
            ("ses_root", "OpenCode", "/home/u/app"),
        ],
        "one row per session, the child session in its parent's"
    );
    let root = sessions.iter().find(|s| s["session_id"] == "ses_root").expect("the root");
    assert_eq!(
        (root["agents"].as_u64(), root["tool_calls"].as_u64(), root["messages"].as_u64()),
        (Some(1), Some(4), Some(8))
    );
    assert_eq!(root["usage"]["input_tokens"], 230);
    assert_eq!(root["usage"]["output_tokens"], 175);
    assert_eq!(root["usage"]["cache_creation_input_tokens"], 500);
    assert_eq!(root["usage"]["cache_read_input_tokens"], 2200);
    assert_eq!(root["cost_usd"], 0.0173);
    assert_eq!(root["diagnostics"], 1, "its cut part");
    assert!(root["files"][0].as_str().is_some_and(|f| f.ends_with("session/prj_1/ses_root.json")));
    let problems: Vec<&str> =
        json["problems"].as_array().expect("problems").iter().filter_map(|p| p["path"].as_str()).collect();
    assert_eq!(problems, ["storage/project/prj_1.json"]);
    // Every file counts once in the totals, the record streams made of them not at all.
    let files = read_folder(&storage).len() + read_folder(&legacy).len();
    assert_eq!(json["totals"]["files"], files - 1);

    let out = run(&["summary", storage.to_str().expect("a path")]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("read as: opencode-storage 33, opencode 1"), "{text}");
    assert!(text.contains("33 files"), "{text}");
}

#[test]
fn a_share_of_a_storage_session_holds_its_records_only() {
    use sessionscope_engine::dag::SessionId;
    use sessionscope_engine::share::redacted::{ShareOptions, share_scope};
    use sessionscope_engine::share::scope::Scope;
    let (corpus, graph) = load(&storage_files("storage"));
    let scope = Scope::Session(SessionId::new(0));
    let bundle = share_scope(&corpus, &graph, &scope, &ShareOptions::default(), |_| true).expect("a bundle");
    let names: Vec<&str> = bundle.files.iter().map(|(path, _)| path.as_str()).collect();
    assert_eq!(names, ["opencode-storage.jsonl"], "the records, not the storage files");
    let shared: String = bundle.files.iter().map(|(_, b)| String::from_utf8_lossy(b).into_owned()).collect();
    assert!(shared.contains("Fix the parser") && !shared.contains("Add a README"));
    let back = sessionscope_engine::Loader::read_all(bundle.files.iter().map(|(path, bytes)| (path, bytes)));
    let back_graph = Graph::build(&back);
    assert_eq!(back_graph.sessions.len(), 1);
    assert_eq!(back_graph.sessions[0].entries, graph.sessions[0].entries);
    assert_eq!(back_graph.sessions[0].agents.len(), 1);
    // Everything loaded: the record stream alone, once.
    let all = share_scope(&corpus, &graph, &Scope::All, &ShareOptions::default(), |_| true).expect("a bundle");
    assert_eq!(all.files.len(), 1);
}

#[test]
fn a_history_search_reads_a_units_storage_files_together() {
    let files = storage_files("storage");
    let query = sessionscope_engine::search::Query::new("last line is kept", false).expect("a query");
    let mut search = UnitSearch::new(&query, 50);
    for (path, bytes) in &files {
        search.add_file(path, bytes);
    }
    let (hits, count, complete) = search.finish();
    assert!(complete);
    assert_eq!(count, 1);
    assert_eq!((hits[0].session_id.as_str(), hits[0].uuid.as_str()), ("ses_root", "msg_a1#1"));
}
