//! Agents' SQLite databases: OpenCode's `opencode.db` and Cursor's `state.vscdb`. The databases are
//! built at test time from the SQL fixtures (`tests/fixtures/opencode/opencode.sql`,
//! `tests/fixtures/cursor/state.sql`); the command line turns them into the record streams checked
//! in beside them (`opencode.jsonl`, `state.jsonl`), which the engine reads as any log. Snapshots
//! of the model, and the facts summed by hand from the fixtures' values: tokens and cost of a
//! session with its subagent, tool calls paired with their results (an error too), thinking, the
//! subagent nested under its `task` call, the sessions `index` lists, and the one-line messages
//! for a locked database, a file that is none and a database of another schema.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::*;
use sessionscope_engine::Corpus;
use sessionscope_engine::dag::{ConversationKind, Graph, LinkRule, ToolStatus};
use sessionscope_engine::dump::{dump_corpus, dump_graph};
use sessionscope_engine::model::*;

const OPENCODE_SQL: &str = "opencode/opencode.sql";
const OPENCODE_RECORDS: &str = "opencode/opencode.jsonl";
const CURSOR_SQL: &str = "cursor/state.sql";
const CURSOR_RECORDS: &str = "cursor/state.jsonl";

/// A folder of its own for one test, emptied first.
fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sessionscope-databases-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    dir
}

/// Builds the database `name` in `dir` from a SQL fixture.
fn build_database(sql_fixture: &str, dir: &Path, name: &str) -> PathBuf {
    std::fs::create_dir_all(dir).expect("the database's folder");
    let path = dir.join(name);
    let sql = String::from_utf8(fixture(sql_fixture)).expect("SQL text");
    let connection = rusqlite::Connection::open(&path).expect("a new database");
    connection.execute_batch(&sql).expect("the fixture's SQL runs");
    path
}

fn run(args: &[&str]) -> Output {
    common::sessionscope().args(args).output().expect("the command line runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn path_str(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 path")
}

fn load(records: &str, name: &str) -> (Corpus, Graph) {
    let corpus = load_one(name, &fixture(records));
    let graph = Graph::build(&corpus);
    (corpus, graph)
}

fn block_texts(corpus: &Corpus, entry: &Entry, kind: BlockKind) -> Vec<String> {
    corpus
        .blocks_of(entry)
        .iter()
        .filter(|b| b.kind == kind)
        .map(|b| corpus.span_text(entry.file, b.body).into_owned())
        .collect()
}

#[test]
fn the_command_line_turns_each_database_into_its_record_stream() {
    let dir = scratch("records");
    for (sql, name, records) in
        [(OPENCODE_SQL, "opencode.db", OPENCODE_RECORDS), (CURSOR_SQL, "state.vscdb", CURSOR_RECORDS)]
    {
        let database = build_database(sql, &dir, name);
        let out = run(&["records", path_str(&database)]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert!(out.stderr.is_empty(), "nothing to say of a database at rest: {}", text(&out.stderr));
        assert_eq!(
            text(&out.stdout),
            text(&fixture(records)),
            "{name}: the checked-in stream is what the database gives"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn record_streams_match_their_snapshots_and_read_the_same_in_slices() {
    for (records, name) in [(OPENCODE_RECORDS, "opencode.db"), (CURSOR_RECORDS, "state.vscdb")] {
        let bytes = fixture(records);
        let files = vec![(name.to_owned(), bytes.clone())];
        let corpus = load_chunked(&files, 0);
        assert!(corpus.files[0].counts.balanced(), "{name}: {:?}", corpus.files[0].counts);
        assert_eq!(corpus.files[0].counts.lines, count_lines(&bytes), "{name}");
        assert!(corpus.diagnostics.is_empty(), "{name}: {:?}", corpus.diagnostics);
        let graph = Graph::build(&corpus);
        let dump = format!("{}{}", dump_corpus(&corpus), dump_graph(&corpus, &graph));
        for chunk in [1, 7, 64] {
            let sliced = load_chunked(&files, chunk);
            let sliced_dump = format!("{}{}", dump_corpus(&sliced), dump_graph(&sliced, &Graph::build(&sliced)));
            assert_eq!(dump, sliced_dump, "{name} in slices of {chunk} bytes");
        }
        insta::assert_snapshot!(format!("databases-{name}"), dump);
    }
}

#[test]
fn opencode_sessions_subagent_tools_thinking_tokens_and_cost() {
    let (corpus, graph) = load(OPENCODE_RECORDS, "opencode.db");
    assert_eq!(corpus.files[0].format, Format::OpenCode);
    let counts = corpus.files[0].counts;
    // 3 session rows are metadata; 6 message rows and their 21 parts make the entries.
    assert_eq!((counts.lines, counts.metadata, counts.entries), (30, 3, 27));
    let ids: Vec<&str> = graph.sessions.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, ["ses_root", "ses_other"], "the child session is an agent of its root, not a session");
    let root = &graph.sessions[0];
    assert_eq!(root.title, "Fix the parser");

    // The subagent, nested under the task call that names its session.
    assert_eq!(root.agents.len(), 1);
    let agent = &graph.conversations[root.agents[0].index()];
    assert_eq!(agent.kind, ConversationKind::Agent);
    assert_eq!(agent.agent_name, "ses_child");
    assert_eq!(agent.linked_by, Some(LinkRule::ParentToolUseId));
    assert_eq!(agent.agent_type, "explore");
    assert_eq!(agent.description, "Find callers");
    assert_eq!(agent.entries, 4, "prompt, the grep step, its result, the answer");
    let spawn = &corpus.entries[agent.spawn_entry.index()];
    assert_eq!(corpus.entry_uuid(spawn), "msg_a1");

    // Tokens, each step's from its step-finish part (the message's own are its last step's), by
    // hand: step 1 in 100, out 50 + 20 reasoning, cache write 500, read 1000, $0.0123; step 2 in 30,
    // out 80, read 1200, $0.0045. The subagent: in 40 + 60, out 10 + 15, $0.0002 + $0.0003.
    assert_eq!(graph.conversations[root.main.index()].usage, usage(130, 150, 500, 2200));
    assert_eq!(agent.usage, usage(100, 25, 0, 0));
    assert_eq!(root.usage_with_agents, usage(230, 175, 500, 2200));
    assert!((root.cost_usd - 0.0168).abs() < 1e-9, "{}", root.cost_usd);
    assert!((root.cost_with_agents_usd - 0.0173).abs() < 1e-9, "{}", root.cost_with_agents_usd);
    let logged: Vec<Option<f64>> = corpus.responses.iter().map(|r| r.logged_cost_usd).collect();
    assert_eq!(logged, [Some(0.0123), Some(0.0045), Some(0.0002), Some(0.0003), None], "a cost of 0 is no logged cost");
    let models: Vec<&str> = corpus.responses.iter().map(|r| corpus.sym(r.model)).collect();
    assert_eq!(models[0], "anthropic/claude-sonnet-4-20250514", "the provider names the model too");
    assert_eq!(models[4], "openai/gpt-4.1");
    // The other session has no step-finish: its message's tokens, priced by the table.
    assert_eq!(graph.sessions[1].usage, usage(200, 100, 0, 0));

    // Tool calls, each paired with its result; the failed one an error.
    let ops: Vec<(&str, ToolStatus)> = graph.tool_ops.iter().map(|op| (corpus.sym(op.name), op.status)).collect();
    assert_eq!(
        ops,
        [("read", ToolStatus::Ok), ("bash", ToolStatus::Error), ("task", ToolStatus::Ok), ("grep", ToolStatus::Ok)]
    );
    let bash = graph.tool_ops.iter().find(|op| corpus.sym(op.name) == "bash").expect("the bash call");
    let result = &corpus.entries[bash.result_entry.index()];
    let block = corpus.blocks[bash.result_block.index()];
    assert_eq!(corpus.span_text(result.file, block.body), "Command failed: exit status 101");
    assert!(block.flags & Block::IS_ERROR != 0);

    // Thinking, and the steps of one message as entries of their own.
    let first_step = corpus.entries.iter().find(|e| corpus.entry_uuid(e) == "msg_a1").expect("the first step");
    assert_eq!(block_texts(&corpus, first_step, BlockKind::Thinking), ["The parser drops the last line."]);
    let second_step = corpus.entries.iter().find(|e| corpus.entry_uuid(e) == "msg_a1#1").expect("the second step");
    assert_eq!(block_texts(&corpus, second_step, BlockKind::Text), ["Fixed: the last line is kept now."]);
    // The checkpoint taken as the second step began comes before it, after the first's results;
    // the files the second step changed after it. Notes, not tool calls.
    assert_eq!(corpus.entry_parent_uuid(second_step), Some("prt_a1_07s"));
    let note = |uuid: &str| corpus.entries.iter().find(|e| corpus.entry_uuid(e) == uuid).expect("a note");
    let (snapshot, patch) = (note("prt_a1_07s"), note("prt_a1_10"));
    assert_eq!(corpus.entry_parent_uuid(snapshot), Some("msg_a1/results"));
    assert_eq!(corpus.entry_parent_uuid(patch), Some("msg_a1#1"));
    for (entry, subtype, text) in [
        (snapshot, "snapshot", "Checkpoint: the files as they were here are kept as snapshot `4b825dc`"),
        (patch, "patch", "1 file changed by this step (snapshot `9c1e2f0`):\n- `/home/u/app/src/parse.rs`"),
    ] {
        assert_eq!((entry.kind, corpus.sym(entry.subtype)), (EntryKind::System, subtype));
        assert!(entry.flags.has(EntryFlags::NOTE) && !entry.flags.has(EntryFlags::HAS_TOOL_USE));
        assert_eq!(corpus.first_text(entry).as_deref(), Some(text));
    }
    // An aborted message is interrupted.
    let aborted = corpus.entries.iter().find(|e| corpus.entry_uuid(e) == "msg_o2").expect("the aborted message");
    assert!(aborted.flags.has(EntryFlags::INTERRUPTED));
    assert_eq!(corpus.sym(corpus.envelope(aborted).cwd), "/home/u/docs");
}

#[test]
fn cursor_chats_follow_their_headers_with_tools_thinking_and_tokens() {
    let (corpus, graph) = load(CURSOR_RECORDS, "state.vscdb");
    assert_eq!(corpus.files[0].format, Format::CursorIde);
    let counts = corpus.files[0].counts;
    assert_eq!((counts.lines, counts.metadata, counts.entries), (6, 2, 4));
    assert_eq!(graph.sessions.len(), 1, "the empty chat holds no conversation");
    let chat = &graph.sessions[0];
    assert_eq!((chat.id.as_str(), chat.title.as_str()), ("c1", "Rename the flag"));
    // The chat's order, not the keys': the prompt first, each call followed by its result.
    let order: Vec<&str> = corpus.entries.iter().map(|e| corpus.entry_uuid(e)).collect();
    assert_eq!(order, ["c1:zz1", "c1:aa2", "c1:aa2/result", "c1:mm3", "c1:mm3/result", "c1:bb4"]);
    let ops: Vec<(&str, ToolStatus)> = graph.tool_ops.iter().map(|op| (corpus.sym(op.name), op.status)).collect();
    assert_eq!(ops, [("read_file", ToolStatus::Ok), ("run_terminal_cmd", ToolStatus::Error)]);
    let thinking = corpus.entries.iter().find(|e| corpus.entry_uuid(e) == "c1:aa2").expect("the first answer");
    assert_eq!(block_texts(&corpus, thinking, BlockKind::Thinking), ["Find the flag first."]);
    // Tokens: 1500 + 1700 in, 40 + 30 out; the last bubble's zeros are no response.
    assert_eq!(chat.usage_with_agents, usage(3200, 70, 0, 0));
    assert_eq!(corpus.responses.len(), 2);
    assert!(corpus.responses.iter().all(|r| corpus.sym(r.model) == "claude-4-sonnet" && r.logged_cost_usd.is_none()));
    // A bubble without a time takes the one before it.
    let times: Vec<i64> = corpus.entries.iter().map(|e| e.timestamp_ms).collect();
    assert_eq!(times[3], times[1]);
}

#[test]
fn index_lists_every_session_of_a_database_in_a_folder() {
    let dir = scratch("index");
    build_database(OPENCODE_SQL, &dir.join("opencode"), "opencode.db");
    build_database(CURSOR_SQL, &dir.join("cursor"), "state.vscdb");
    std::fs::write(dir.join("notes.txt"), "not a log").expect("a note");
    let out = run(&["index", "--json", path_str(&dir)]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("--json prints JSON");
    let sessions = json["sessions"].as_array().expect("sessions");
    let row = |id: &str| sessions.iter().find(|s| s["session_id"] == id).unwrap_or_else(|| panic!("{id} is listed"));
    assert_eq!(sessions.len(), 3, "{sessions:?}");
    let root = row("ses_root");
    assert_eq!(root["agent"], "OpenCode");
    assert_eq!(root["title"], "Fix the parser");
    assert_eq!(root["project"], "/home/u/app");
    assert_eq!((root["agents"].as_u64(), root["tool_calls"].as_u64()), (Some(1), Some(4)));
    assert_eq!(root["usage"]["input_tokens"], 230);
    assert_eq!(root["usage"]["output_tokens"], 175);
    assert_eq!(root["usage"]["cache_read_input_tokens"], 2200);
    assert_eq!(root["usage"]["cache_creation_input_tokens"], 500);
    assert_eq!(root["cost_usd"], 0.0173);
    assert_eq!(
        root["models"],
        serde_json::json!(["anthropic/claude-sonnet-4-20250514", "anthropic/claude-3-5-haiku-20241022"])
    );
    assert_eq!(row("ses_other")["usage"]["input_tokens"], 200);
    let chat = row("c1");
    assert_eq!((chat["agent"].as_str(), chat["messages"].as_u64()), (Some("Cursor"), Some(6)));
    // Each database counts once in the totals, however many sessions it holds.
    assert_eq!(json["totals"]["files"], 2);
    let problems: Vec<&str> =
        json["problems"].as_array().expect("problems").iter().filter_map(|p| p["path"].as_str()).collect();
    assert!(problems.iter().any(|p| p.ends_with("notes.txt")), "{problems:?}");

    // SQLite's own files beside a database (its write-ahead log and shared memory) are part of it,
    // not files that hold no session; beside no database they are.
    let writer = rusqlite::Connection::open(dir.join("opencode").join("opencode.db")).expect("the writer");
    writer.pragma_update(None, "journal_mode", "WAL").expect("WAL mode");
    writer.pragma_update(None, "wal_autocheckpoint", 0).expect("no checkpoint");
    writer.execute_batch("UPDATE session SET title = 'Fix the parser, again' WHERE id = 'ses_root';").expect("a row");
    std::fs::write(dir.join("cursor").join("other.vscdb-wal"), b"a log without its database").expect("a stray log");
    let out = run(&["index", "--json", path_str(&dir)]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("--json prints JSON");
    let problems: Vec<&str> =
        json["problems"].as_array().expect("problems").iter().filter_map(|p| p["path"].as_str()).collect();
    assert!(!problems.iter().any(|p| p.contains("opencode.db-")), "{problems:?}");
    assert!(problems.iter().any(|p| p.ends_with("other.vscdb-wal")), "{problems:?}");
    let sessions = json["sessions"].as_array().expect("sessions");
    assert!(sessions.iter().any(|s| s["title"] == "Fix the parser, again"), "the log's rows are read");
    drop(writer);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn garbage_another_schema_and_a_locked_database_each_get_one_line() {
    let dir = scratch("problems");
    // A file named like a database that is none.
    let garbage = dir.join("opencode.db");
    std::fs::write(&garbage, b"{\"table\":\"session\"}\nnot sqlite at all").expect("a garbage file");
    let out = run(&["summary", path_str(&garbage)]);
    let stderr = text(&out.stderr);
    assert!(stderr.contains("opencode.db: is not an SQLite database"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    // A database of another schema.
    let other = dir.join("other").join("state.vscdb");
    std::fs::create_dir_all(other.parent().expect("a folder")).expect("a folder");
    rusqlite::Connection::open(&other).and_then(|c| c.execute_batch("CREATE TABLE notes (body TEXT);")).expect("a db");
    let out = run(&["records", path_str(&other)]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("state.vscdb: is an SQLite database of another schema"), "{stderr}");
    assert!(stderr.trim_end().ends_with("its tables: notes"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    // `index` lists both as problems, with the same reasons.
    let out = run(&["index", "--json", path_str(&dir)]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("--json prints JSON");
    let reasons: Vec<&str> =
        json["problems"].as_array().expect("problems").iter().filter_map(|p| p["reason"].as_str()).collect();
    assert_eq!(reasons.len(), 2, "{reasons:?}");

    // A database another process is writing: read as it stands on disk, and said so.
    let locked_dir = dir.join("locked");
    let locked = build_database(OPENCODE_SQL, &locked_dir, "opencode.db");
    let writer = rusqlite::Connection::open(&locked).expect("the writer");
    writer
        .execute_batch("BEGIN EXCLUSIVE; INSERT INTO project VALUES ('prj_2', '/tmp', 1, 1);")
        .expect("the writer holds its lock");
    let out = run(&["records", path_str(&locked)]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("locked by another process"), "{stderr}");
    assert_eq!(text(&out.stdout), text(&fixture(OPENCODE_RECORDS)), "the rows on disk are read");
    writer.execute_batch("ROLLBACK;").expect("the writer lets go");
    drop(writer);

    // A write-ahead log beside it: its rows are read, and that is said.
    let wal_dir = dir.join("wal");
    let wal = build_database(OPENCODE_SQL, &wal_dir, "opencode.db");
    let writer = rusqlite::Connection::open(&wal).expect("the writer");
    writer.pragma_update(None, "journal_mode", "WAL").expect("WAL mode");
    writer.pragma_update(None, "wal_autocheckpoint", 0).expect("no checkpoint");
    writer
        .execute_batch("UPDATE session SET title = 'Fix the parser, again' WHERE id = 'ses_root';")
        .expect("a row in the log");
    let out = run(&["records", path_str(&wal)]);
    let stderr = text(&out.stderr);
    assert!(stderr.contains("a write-ahead log beside it") && stderr.contains("they were read"), "{stderr}");
    assert!(text(&out.stdout).contains("Fix the parser, again"), "the log's rows are read");
    drop(writer);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A share of one session of a database holds its own rows (and its subagents'), never another
/// session's: a database's record stream holds every session of the database.
#[test]
fn a_share_of_one_database_session_holds_its_rows_only() {
    use sessionscope_engine::dag::SessionId;
    use sessionscope_engine::share::redacted::{ShareOptions, share_scope};
    use sessionscope_engine::share::scope::Scope;
    // Cursor: the fixture's chat, and a copy of it as a second chat with a word of its own.
    let cursor = String::from_utf8(fixture(CURSOR_RECORDS)).expect("utf-8 fixture");
    let copy = cursor
        .replace("composerData:c1", "composerData:c9")
        .replace("bubbleId:c1:", "bubbleId:c9:")
        .replace("\"composerId\":\"c1\"", "\"composerId\":\"c9\"")
        .replace("Rename the flag", "Zanzibar plans");
    let both = format!("{cursor}{copy}");
    let opencode = String::from_utf8(fixture(OPENCODE_RECORDS)).expect("utf-8 fixture");
    for (name, records, kept, other) in [
        ("state.vscdb", both.as_str(), "Rename the flag", "Zanzibar"),
        ("opencode.db", opencode.as_str(), "Fix the parser", "Add a README"),
    ] {
        let corpus = load_one(name, records.as_bytes());
        let graph = Graph::build(&corpus);
        assert!(graph.sessions.len() >= 2, "{name}: two sessions to tell apart");
        let (index, session) =
            graph.sessions.iter().enumerate().find(|(_, s)| s.title == kept).expect("the session to share");
        let scope = Scope::Session(SessionId::new(index));
        let bundle = share_scope(&corpus, &graph, &scope, &ShareOptions::default(), |_| true).expect("a bundle");
        let shared: String = bundle.files.iter().map(|(_, b)| String::from_utf8_lossy(b).into_owned()).collect();
        assert!(shared.contains(kept), "{name}: the session's own rows are shared");
        assert!(!shared.contains(other), "{name}: another session's rows stay out");
        // The share reads back as that session alone, with its entries and its subagents.
        let back = sessionscope_engine::Loader::read_all(bundle.files.iter().map(|(path, bytes)| (path, bytes)));
        let back_graph = Graph::build(&back);
        assert_eq!(back_graph.sessions.len(), 1, "{name}");
        assert_eq!(back_graph.sessions[0].id, session.id, "{name}");
        assert_eq!(back_graph.sessions[0].entries, session.entries, "{name}");
        assert_eq!(back_graph.sessions[0].agents.len(), session.agents.len(), "{name}");
        assert!(back.diagnostics.is_empty(), "{name}: {:?}", back.diagnostics);
    }
}

/// The loader reads a database's record stream, never its bytes: a database given to it as it is
/// (the page makes the stream first, so only a file it could not open) is refused with the command
/// that writes the stream, and that stream loads.
#[test]
fn a_database_given_to_the_loader_says_how_to_read_it() {
    let dir = scratch("loader");
    let database = build_database(OPENCODE_SQL, &dir, "opencode.db");
    let bytes = std::fs::read(&database).expect("the database");
    let corpus = load_one("opencode.db", &bytes);
    assert_eq!(corpus.files[0].format, Format::Rejected);
    let reasons: Vec<&str> = corpus.diagnostics.iter().map(|d| d.message.as_str()).collect();
    assert!(
        reasons.iter().any(|r| r.contains("an SQLite database, read through its record stream")
            && r.contains("sessionscope records opencode.db")),
        "{reasons:?}"
    );
    assert!(!reasons.iter().any(|r| r.contains("does not open databases")), "{reasons:?}");
    // Another SQLite file is only what it is.
    let other = load_one("notes.sqlite", &bytes);
    let reasons: Vec<&str> = other.diagnostics.iter().map(|d| d.message.as_str()).collect();
    assert!(reasons.iter().any(|r| r.contains("an SQLite database, not a session log")), "{reasons:?}");
    // What the command prints is read as OpenCode's sessions.
    let out = run(&["records", path_str(&database)]);
    let stream = load_one("opencode.db.jsonl", &out.stdout);
    assert_eq!(stream.files[0].format, Format::OpenCode);
    assert!(Graph::build(&stream).sessions.len() >= 2);
}

/// A database cut short (copied while it was written, a download that stopped) is said to be so
/// before SQLite reads it, by the browser and the command line alike; its header is what tells.
#[test]
fn a_database_cut_short_says_so() {
    use sessionscope_engine::import::records::{HEADER_BYTES, read_header};
    let dir = scratch("cut");
    let database = build_database(OPENCODE_SQL, &dir, "opencode.db");
    let bytes = std::fs::read(&database).expect("the database");
    let header = read_header(&bytes[..HEADER_BYTES], bytes.len() as u64).expect("a whole database reads");
    assert!(!header.wal);
    assert_eq!(bytes.len() % header.page_size as usize, 0);
    for cut in [0, 10, 16, 99, 100, 4096, bytes.len() / 2, bytes.len() - 1] {
        let head = &bytes[..cut.min(HEADER_BYTES)];
        let reason = read_header(head, cut as u64).expect_err("a database cut short");
        let expected = if cut < 16 { "is not an SQLite database" } else { "is cut short" };
        assert!(reason.contains(expected), "{cut}: {reason}");
    }
    let cut = dir.join("cut").join("opencode.db");
    std::fs::create_dir_all(cut.parent().expect("a folder")).expect("a folder");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).expect("half a database");
    let out = run(&["records", path_str(&cut)]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("opencode.db: is cut short (half-written"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// What the browser does with a database and its write-ahead log (SQLite in memory keeps no log):
/// the log's committed pages written over the database's bytes. The result reads as SQLite reads
/// the two files (the command line, through rusqlite): the same record stream, byte for byte. A log
/// cut in the middle of a transaction gives the transactions before it; one that is no log is an
/// error and leaves the bytes alone.
#[test]
fn a_write_ahead_log_applied_to_the_bytes_reads_as_sqlite_reads_both() {
    use sessionscope_engine::import::records::{HEADER_BYTES, apply_wal, read_header};
    let dir = scratch("wal-bytes");
    let database = build_database(OPENCODE_SQL, &dir, "opencode.db");
    let writer = rusqlite::Connection::open(&database).expect("the writer");
    writer.pragma_update(None, "journal_mode", "WAL").expect("WAL mode");
    writer.pragma_update(None, "wal_autocheckpoint", 0).expect("no checkpoint");
    writer
        .execute_batch(
            "BEGIN;
             UPDATE session SET title = 'Fix the parser, again' WHERE id = 'ses_root';
             INSERT INTO message VALUES ('msg_wal', 'ses_root', 1750000099000, 1750000099000,
               '{\"role\":\"user\",\"time\":{\"created\":1750000099000}}');
             INSERT INTO part VALUES ('prt_wal', 'msg_wal', 'ses_root', 1750000099000, 1750000099000,
               '{\"type\":\"text\",\"text\":\"And the tests, please: written to the log only\"}');
             COMMIT;",
        )
        .expect("rows in the log");
    let db_bytes = std::fs::read(&database).expect("the database file");
    let wal_bytes = std::fs::read(dir.join("opencode.db-wal")).expect("its log");
    assert!(!wal_bytes.is_empty());
    let header = read_header(&db_bytes[..HEADER_BYTES], db_bytes.len() as u64).expect("a database");
    assert!(header.wal, "the header says WAL mode");
    let sqlite_reads = run(&["records", path_str(&database)]);
    assert!(text(&sqlite_reads.stdout).contains("written to the log only"), "the command line reads the log");

    // The browser's way: the log applied to the bytes, the header set back to rollback mode.
    let as_browser = |wal: &[u8]| -> (Result<usize, String>, String) {
        let mut bytes = db_bytes.clone();
        let applied = apply_wal(&mut bytes, wal);
        bytes[18] = 1;
        bytes[19] = 1;
        let folder = dir.join(format!("browser-{}", wal.len()));
        std::fs::create_dir_all(&folder).expect("a folder");
        let path = folder.join("opencode.db");
        std::fs::write(&path, &bytes).expect("the bytes");
        let out = run(&["records", path_str(&path)]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        (applied, text(&out.stdout))
    };
    let (applied, stream) = as_browser(&wal_bytes);
    assert!(applied.expect("the log applies") > 0);
    assert_eq!(stream, text(&sqlite_reads.stdout), "the same stream as SQLite reading both files");
    // Without the log: the rows as of the last checkpoint.
    let (_, before) = as_browser(&[]);
    assert_eq!(before, text(&fixture(OPENCODE_RECORDS)));
    // A log cut anywhere: no panic, and what it holds is whole transactions (here one, so all or
    // nothing).
    for cut in [1, 31, 32, 33, 1000, wal_bytes.len() / 2, wal_bytes.len() - 1] {
        let mut bytes = db_bytes.clone();
        let applied = apply_wal(&mut bytes, &wal_bytes[..cut]);
        if cut < 32 {
            assert!(applied.is_err(), "{cut}");
            assert_eq!(bytes, db_bytes, "{cut}: left alone");
        } else {
            assert_eq!(applied, Ok(0), "{cut}: the transaction is not whole");
            assert_eq!(bytes, db_bytes, "{cut}: left alone");
        }
    }
    // Something else given as the log.
    let mut bytes = db_bytes.clone();
    let not_a_log = apply_wal(&mut bytes, &fixture(OPENCODE_RECORDS)).expect_err("not a log");
    assert!(not_a_log.contains("is not one"), "{not_a_log}");
    assert_eq!(bytes, db_bytes);
    // A log whose bytes were damaged: frames that do not check end it.
    for at in [40, 100, 5000, wal_bytes.len() - 10] {
        let mut damaged = wal_bytes.clone();
        damaged[at] ^= 0x55;
        let mut bytes = db_bytes.clone();
        let _ = apply_wal(&mut bytes, &damaged);
    }
    drop(writer);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_database_is_known_by_its_bytes_and_tables_whatever_its_name() {
    let dir = scratch("renamed");
    let original = build_database(OPENCODE_SQL, &dir.join("live"), "opencode.db");
    let cursor = build_database(CURSOR_SQL, &dir.join("live"), "state.vscdb");
    let copies = dir.join("copies");
    std::fs::create_dir_all(&copies).expect("a folder");
    for name in ["ledger-backup.db", "opencode.db.bak", "nameless"] {
        std::fs::copy(&original, copies.join(name)).expect("copied");
    }
    std::fs::copy(&cursor, copies.join("state.vscdb.backup")).expect("copied");
    // Not a database, though named like one; a text log is never taken for one.
    std::fs::write(copies.join("notes.db"), "plain words").expect("written");

    let sessions_of = |path: &Path| -> Vec<String> {
        let out = run(&["summary", "--json", path_str(path)]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("--json prints JSON");
        let mut ids: Vec<String> = json["sessions"]
            .as_array()
            .expect("sessions")
            .iter()
            .filter_map(|s| s["session_id"].as_str().map(str::to_owned))
            .collect();
        ids.sort();
        ids
    };
    let expected = sessions_of(&original);
    assert!(expected.contains(&"ses_root".to_owned()), "{expected:?}");
    for name in ["ledger-backup.db", "opencode.db.bak", "nameless"] {
        assert_eq!(sessions_of(&copies.join(name)), expected, "{name} is read as the database it is");
    }
    assert_eq!(sessions_of(&copies.join("state.vscdb.backup")), sessions_of(&cursor));

    // A folder: the files named like databases are looked at, and told apart by their bytes.
    let out = run(&["index", "--json", path_str(&copies)]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("--json prints JSON");
    let paths: Vec<&str> =
        json["sessions"].as_array().expect("sessions").iter().filter_map(|s| s["files"][0].as_str()).collect();
    for name in ["ledger-backup.db", "opencode.db.bak", "state.vscdb.backup"] {
        assert!(paths.iter().any(|p| p.ends_with(name)), "{name} is indexed: {paths:?}");
    }
    let problems: Vec<(String, String)> = json["problems"]
        .as_array()
        .expect("problems")
        .iter()
        .map(|p| (p["path"].as_str().unwrap_or("").to_owned(), p["reason"].as_str().unwrap_or("").to_owned()))
        .collect();
    let notes = problems.iter().find(|(path, _)| path.ends_with("notes.db")).expect("notes.db is listed");
    assert!(notes.1.contains("not a session log") || notes.1.contains("not an SQLite database"), "{notes:?}");
    // A file without a database's name in a folder is left by its name, as before.
    assert!(problems.iter().any(|(path, reason)| path.ends_with("nameless") && reason.contains("not named like")));
}
