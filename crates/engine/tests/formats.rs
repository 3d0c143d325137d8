//! Other agents' logs: Claude Agent SDK stream-json, Codex CLI rollouts, Codex SDK thread
//! events, Ollama chat captures, Pi, Gemini CLI, Qwen Code and GitHub Copilot CLI sessions,
//! Aider chat histories, Cline / Roo Code tasks, Amp threads and Cursor CLI agent transcripts,
//! each read into the common model.
//! Hand-written fixtures in `tests/fixtures/formats/` (and the task folders in
//! `tests/fixtures/tasks/`), snapshots of their model and structure, and the facts each format
//! must give: tool pairs, errors, thinking, token totals (summed here by hand from the fixture
//! values), models, sessions, titles, subagents, interruptions.

mod common;

use std::path::Path;

use common::*;
use proptest::prelude::*;
use sessionscope_engine::Corpus;
use sessionscope_engine::dag::{ConversationKind, Graph, LinkRule, ToolCategory, ToolOp, ToolStatus, tools};
use sessionscope_engine::dump::{dump_corpus, dump_graph};
use sessionscope_engine::model::*;
use sessionscope_engine::summary::summarize;

const SDK: &str = "agent-sdk-stream.jsonl";
const ROLLOUT: &str = "rollout-2025-10-02T10-11-12-0199a213-81c0-7800-8aa1-bbab2a035a53.jsonl";
const EVENTS: &str = "codex-sdk-events.jsonl";
const OLLAMA: &str = "ollama-chat.jsonl";
const PI: &str = "pi-session.jsonl";
const PI_LEGACY: &str = "pi-legacy.jsonl";
const COPILOT: &str = "copilot-events.jsonl";
const AIDER: &str = "demo.aider.chat.history.md";
/// A legacy Gemini CLI session: one pretty-printed JSON object.
const GEMINI: &str = "session-2025-11-03T09-15-7c2e9a41.json";
/// A Gemini CLI session in JSON Lines: messages written again as they change, `$set`, `$rewindTo`.
const GEMINI_LINES: &str = "session-2026-02-10T14-00-b41c7d2e.jsonl";
/// An Amp thread: one pretty-printed JSON object.
const AMP: &str = "T-7b1e2c3d-4f5a-4b6c-8d7e-9f0a1b2c3d4e.json";
/// A Qwen Code session: records chained by uuid/parentUuid holding Gemini API Content.
const QWEN: &str = "qwen-session.jsonl";
/// A Cursor CLI agent transcript: Anthropic-style messages without timestamps.
const CURSOR: &str = "cursor-transcript.jsonl";
/// The line of the Pi fixture that is cut in the middle, on purpose.
const PI_BROKEN_LINE: u32 = 9;

fn format_fixture(name: &str) -> Vec<u8> {
    fixture(&format!("formats/{name}"))
}

fn format_fixture_names() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/formats");
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("the formats fixtures folder")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn load(name: &str) -> (Corpus, Graph) {
    let bytes = format_fixture(name);
    let corpus = load_one(name, &bytes);
    let graph = Graph::build(&corpus);
    (corpus, graph)
}

/// Every line accounted for once, and as many lines as the file has.
fn assert_accounted(corpus: &Corpus, bytes: &[u8]) {
    let counts = corpus.files[0].counts;
    assert!(counts.balanced(), "{counts:?}");
    assert_eq!(counts.lines, count_lines(bytes));
}

fn entry_at(corpus: &Corpus, line: u32) -> &Entry {
    corpus.entries.iter().find(|e| e.line == line).unwrap_or_else(|| panic!("no entry at line {line}"))
}

fn entries_at(corpus: &Corpus, line: u32) -> Vec<&Entry> {
    corpus.entries.iter().filter(|e| e.line == line).collect()
}

fn block_text(corpus: &Corpus, entry: &Entry, kind: BlockKind) -> String {
    let block = corpus.blocks_of(entry).iter().find(|b| b.kind == kind).unwrap_or_else(|| panic!("no {kind:?} block"));
    corpus.span_text(entry.file, block.body).into_owned()
}

fn ops(corpus: &Corpus, graph: &Graph) -> Vec<(String, ToolCategory, ToolStatus)> {
    graph.tool_ops.iter().map(|op| (corpus.sym(op.name).to_owned(), op.category, op.status)).collect()
}

fn op_named<'a>(corpus: &Corpus, graph: &'a Graph, name: &str) -> Vec<&'a ToolOp> {
    graph.tool_ops.iter().filter(|op| corpus.sym(op.name) == name).collect()
}

fn totals(usage: &Usage) -> (u64, u64, u64, u64) {
    (usage.input_tokens, usage.output_tokens, usage.cache_creation_input_tokens, usage.cache_read_input_tokens)
}

#[test]
fn fixtures_match_their_snapshots_and_read_the_same_in_slices() {
    let names = format_fixture_names();
    assert_eq!(names.len(), 13, "{names:?}");
    for name in names {
        let bytes = format_fixture(&name);
        let files = vec![(name.clone(), bytes.clone())];
        let corpus = load_chunked(&files, 0);
        assert_accounted(&corpus, &bytes);
        assert_ne!(corpus.files[0].format, Format::Rejected, "{name}: {:?}", corpus.diagnostics);
        let found: Vec<(u32, DiagnosticKind)> = corpus.diagnostics.iter().map(|d| (d.line, d.kind)).collect();
        let broken: &[(u32, DiagnosticKind)] =
            if name == PI { &[(PI_BROKEN_LINE, DiagnosticKind::InvalidJson)] } else { &[] };
        assert_eq!(found, broken, "{name}: {:?}", corpus.diagnostics);
        let graph = Graph::build(&corpus);
        let dump = format!("{}{}", dump_corpus(&corpus), dump_graph(&corpus, &graph));
        for chunk in [1, 7, 64] {
            let sliced = load_chunked(&files, chunk);
            let sliced_graph = Graph::build(&sliced);
            let sliced_dump = format!("{}{}", dump_corpus(&sliced), dump_graph(&sliced, &sliced_graph));
            assert_eq!(dump, sliced_dump, "{name} in slices of {chunk} bytes");
        }
        insta::assert_snapshot!(format!("formats-{name}"), dump);
    }
}

#[test]
fn agent_sdk_stream_json() {
    let bytes = format_fixture(SDK);
    let (corpus, graph) = load(SDK);
    assert_eq!(corpus.files[0].format.name(), "agent-sdk-stream-json");
    assert_accounted(&corpus, &bytes);
    let counts = corpus.files[0].counts;
    // 24 lines: a `stream_event` partial message is metadata, everything else an entry.
    assert_eq!((counts.lines, counts.entries, counts.metadata), (24, 23, 1));
    assert_eq!(corpus.entries.len(), 23);

    let session = &graph.sessions[0];
    assert_eq!(graph.sessions.len(), 1);
    assert_eq!(session.id, "5f0c8a3e-2b7d-4c1e-9a64-3d2f1b0e7c91");
    assert_eq!(session.title, "The test `parses_empty_brew` fails. Find out why and fix it.");
    let init = entry_at(&corpus, 1);
    assert_eq!((init.kind, corpus.sym(init.subtype)), (EntryKind::System, "init"));
    assert_eq!(corpus.sym(init.model), "claude-sonnet-4-5-20250929");
    let envelope = corpus.envelope(entry_at(&corpus, 5));
    assert_eq!(corpus.sym(envelope.cwd), "/home/dev/projects/brewlog");
    assert_eq!(corpus.sym(envelope.version), "2.0.28");
    assert_eq!(corpus.sym(envelope.permission_mode), "acceptEdits");

    // The messages are a chain in line order; the subagent's continue its Task call.
    assert_eq!(corpus.entry_parent_uuid(entry_at(&corpus, 4)), Some(corpus.entry_uuid(entry_at(&corpus, 2))));
    assert_eq!(corpus.entry_parent_uuid(entry_at(&corpus, 12)), Some(corpus.entry_uuid(entry_at(&corpus, 7))));
    assert_eq!(corpus.entry_parent_uuid(entry_at(&corpus, 8)), Some(corpus.entry_uuid(entry_at(&corpus, 7))));

    // Tool calls pair up, in the main thread and in the subagent (ops are stored by turn,
    // conversation by conversation).
    assert_eq!(
        ops(&corpus, &graph),
        [
            ("Bash".to_owned(), ToolCategory::Execute, ToolStatus::Ok),
            ("Task".to_owned(), ToolCategory::Agent, ToolStatus::Ok),
            ("Edit".to_owned(), ToolCategory::Edit, ToolStatus::Error),
            ("Edit".to_owned(), ToolCategory::Edit, ToolStatus::Ok),
            ("Bash".to_owned(), ToolCategory::Execute, ToolStatus::Interrupted),
            ("Grep".to_owned(), ToolCategory::Search, ToolStatus::Ok),
        ]
    );
    assert_eq!(tools::op_summary(&corpus, op_named(&corpus, &graph, "Edit")[1]), "src/parser.rs +1 -1");

    // The subagent: an agent conversation linked to its Task call by parent_tool_use_id.
    let agent = graph.conversations.iter().find(|c| c.kind == ConversationKind::Agent).expect("a subagent");
    assert_eq!(agent.entries, 4);
    assert_eq!(agent.agent_name, "toolu_01TaskX9mR4");
    assert_eq!(agent.linked_by, Some(LinkRule::ParentToolUseId));
    assert_eq!(agent.spawn_entry.index(), corpus.entries.iter().position(|e| e.line == 7).unwrap());
    assert_eq!(agent.agent_type, "Explore");
    assert!(entry_at(&corpus, 9).is_sidechain());
    assert!(graph.unlinked_agents.is_empty());

    // Errors and interruptions.
    let failed = entry_at(&corpus, 23);
    assert_eq!(corpus.sym(failed.subtype), "error_during_execution");
    assert!(failed.flags.has(EntryFlags::ERROR));
    assert!(!entry_at(&corpus, 18).flags.has(EntryFlags::ERROR), "a successful result");
    let agent_error = entry_at(&corpus, 24);
    assert_eq!(corpus.sym(agent_error.subtype), "agent_error");
    assert!(agent_error.flags.has(EntryFlags::ERROR));
    assert_eq!(corpus.first_text(agent_error).as_deref(), Some("Claude Code process exited with code 143"));
    assert!(entry_at(&corpus, 22).flags.has(EntryFlags::INTERRUPTED));

    // Tokens: the results' totals (run 1: 13/973/7860/73430, run 2: 2/57/310/15704), which
    // cover what the messages reported (deduplicated by message id).
    let messages_run_1 = [(3, 96, 2841, 11204), (1, 187, 412, 14045), (4, 58, 3120, 0), (2, 141, 240, 3120)]
        .into_iter()
        .chain([(1, 214, 655, 14457), (1, 88, 380, 15112), (1, 61, 212, 15492)]);
    let mut reported = Usage::default();
    for (i, o, cc, cr) in messages_run_1 {
        reported.add(&usage(i, o, cc, cr));
    }
    assert_eq!(totals(&reported), (13, 845, 7860, 73430), "the streamed messages under-report output");
    let mut expected = usage(13, 973, 7860, 73430);
    expected.add(&usage(2, 57, 310, 15704));
    assert_eq!(totals(&session.usage_with_agents), totals(&expected));
    // The subagent's own messages: 4/58/3120/0 and 2/141/240/3120.
    assert_eq!(totals(&agent.usage), (6, 199, 3360, 3120));
    // Cost: the logged totals, 0.0912 + 0.0061, not the price table's.
    assert!((session.cost_with_agents_usd - 0.0973).abs() < 1e-9, "{}", session.cost_with_agents_usd);
    assert!(session.unknown_models.is_empty());
    let result = &corpus.responses[entry_at(&corpus, 18).response.index()];
    assert_eq!((result.logged_cost_usd, result.duration_ms), (Some(0.0912), Some(48210)));
    let models: Vec<&str> = corpus.responses.iter().map(|r| corpus.sym(r.model)).collect();
    assert!(models.contains(&"claude-haiku-4-5-20251001") && models.contains(&"claude-sonnet-4-5-20250929"));
    // Two prompts, and the interruption notice, which Claude Code logs as a user message too.
    assert_eq!(graph.conversations[session.main.index()].turns, 3);
}

#[test]
fn codex_rollout() {
    let bytes = format_fixture(ROLLOUT);
    let (corpus, graph) = load(ROLLOUT);
    assert_eq!(corpus.files[0].format.name(), "codex-rollout");
    assert_accounted(&corpus, &bytes);
    let counts = corpus.files[0].counts;
    // 42 lines: 22 items and events that are messages; session_meta, turn_context, token counts
    // and events repeating items are metadata.
    assert_eq!((counts.lines, counts.entries, counts.metadata), (42, 22, 20));
    assert_eq!(corpus.entries.len(), 22);

    let session = &graph.sessions[0];
    assert_eq!(session.id, "0199a213-81c0-7800-8aa1-bbab2a035a53");
    assert_eq!(corpus.files[0].session_from_path.as_deref(), Some(session.id.as_str()));
    assert_eq!(session.title, "Make `brewlog stats` print the average rating too.");
    assert!(entry_at(&corpus, 2).flags.has(EntryFlags::META), "the injected environment context is no prompt");
    let envelope = corpus.envelope(entry_at(&corpus, 9));
    assert_eq!(corpus.sym(envelope.cwd), "/home/dev/projects/brewlog");
    assert_eq!(corpus.sym(envelope.version), "0.44.0");
    assert_eq!(corpus.sym(envelope.git_branch), "main");
    assert_eq!(corpus.sym(envelope.permission_mode), "on-request");
    assert_eq!(corpus.sym(entry_at(&corpus, 23).model), "gpt-5-codex");
    assert_eq!(
        corpus.entry_uuid(entry_at(&corpus, 4)),
        "rollout-2025-10-02T10-11-12-0199a213-81c0-7800-8aa1-bbab2a035a53:L4"
    );

    // Reasoning is thinking; encrypted-only reasoning is a thinking block without text.
    assert!(
        block_text(&corpus, entry_at(&corpus, 7), BlockKind::Thinking).starts_with("**Locating the stats command**")
    );
    let hidden = corpus.blocks_of(entry_at(&corpus, 12))[0];
    assert_eq!(hidden.kind, BlockKind::Thinking);
    assert_ne!(hidden.flags & Block::SIGNATURE_ONLY, 0);
    let thinking = corpus.blocks.iter().filter(|b| b.kind == BlockKind::Thinking).count();
    assert_eq!(thinking, 3);

    // Calls and outputs pair by call_id; a non-zero exit code is an error; the aborted turn's
    // call is interrupted.
    assert_eq!(
        ops(&corpus, &graph),
        [
            ("shell".to_owned(), ToolCategory::Execute, ToolStatus::Ok),
            ("shell".to_owned(), ToolCategory::Execute, ToolStatus::Error),
            ("apply_patch".to_owned(), ToolCategory::Edit, ToolStatus::Ok),
            ("shell".to_owned(), ToolCategory::Execute, ToolStatus::Ok),
            ("shell".to_owned(), ToolCategory::Execute, ToolStatus::Interrupted),
            ("shell".to_owned(), ToolCategory::Execute, ToolStatus::Ok),
        ]
    );
    let shells = op_named(&corpus, &graph, "shell");
    assert_eq!(tools::op_summary(&corpus, shells[0]), "rg -n \"fn stats\" src");
    assert_eq!(tools::op_summary(&corpus, op_named(&corpus, &graph, "apply_patch")[0]), "src/stats.rs +2 -1");
    let result = &corpus.entries[shells[0].result_entry.index()];
    let output = block_text(&corpus, result, BlockKind::ToolResult);
    assert_eq!(output, "src/stats.rs:12:pub fn stats(brews: &[Brew]) -> String {\n", "the output, unwrapped");
    let aborted = entry_at(&corpus, 32);
    assert_eq!(corpus.sym(aborted.subtype), "turn_aborted");
    assert!(aborted.flags.has(EntryFlags::INTERRUPTED));
    assert!(entry_at(&corpus, 37).flags.has(EntryFlags::API_ERROR), "stream_error");
    assert_eq!(graph.conversations[0].turns, 3);

    // Tokens: the last running total (input 48450 of which 44900 cached, output 1420); the
    // repeated token_count at line 18 is not counted twice.
    let (input, cached, output) = (48450, 44900, 1420);
    assert_eq!(totals(&session.usage_with_agents), (input - cached, output, 0, cached));
    let billed: u64 = corpus.responses.iter().map(|r| r.usage.output_tokens).sum();
    assert_eq!(billed, output);
    // gpt-5-codex: $1.25 input, $0.125 cached input, $10 output per million tokens.
    let cost = (input - cached) as f64 * 1.25e-6 + cached as f64 * 0.125e-6 + output as f64 * 10e-6;
    assert!((session.cost_with_agents_usd - cost).abs() < 1e-6, "{}", session.cost_with_agents_usd);
    assert!(session.unknown_models.is_empty());
    // The first request's usage (4120 in, 3072 cached, 188 out) is on its first item.
    let first = &corpus.responses[entry_at(&corpus, 7).response.index()];
    assert_eq!(totals(&first.usage), (4120 - 3072, 188, 0, 3072));
}

#[test]
fn codex_sdk_events() {
    let bytes = format_fixture(EVENTS);
    let (corpus, graph) = load(EVENTS);
    assert_eq!(corpus.files[0].format.name(), "codex-sdk-events");
    assert_accounted(&corpus, &bytes);
    let counts = corpus.files[0].counts;
    // thread.started ×2, turn.started ×2 and turn.completed are metadata; the lines of an item
    // are lines of its entry.
    assert_eq!((counts.lines, counts.entries, counts.metadata), (26, 21, 5));
    // Two entries (call and result) for file_change, command_execution and mcp_tool_call items
    // once completed; one for the others; items of one id are one entry.
    assert_eq!(corpus.entries.len(), 19);

    let session = &graph.sessions[0];
    assert_eq!(graph.sessions.len(), 1, "the query's orchestrator id gives way to the thread id");
    assert_eq!(session.id, "0199b0c4-5d2e-7f31-a8e9-6c1d2f3a4b5c");
    assert_eq!(session.title, "Add a --json flag to `brewlog stats` and run the tests.");
    assert_eq!(corpus.sym(entry_at(&corpus, 17).model), "gpt-5-codex", "the model the query named");

    assert_eq!(
        ops(&corpus, &graph),
        [
            ("command_execution".to_owned(), ToolCategory::Execute, ToolStatus::Ok),
            ("todo_list".to_owned(), ToolCategory::PlanTodo, ToolStatus::Ok),
            ("file_change".to_owned(), ToolCategory::Edit, ToolStatus::Ok),
            ("command_execution".to_owned(), ToolCategory::Execute, ToolStatus::Error),
            ("mcp__github__search_issues".to_owned(), ToolCategory::Mcp, ToolStatus::Ok),
            ("web_search".to_owned(), ToolCategory::Web, ToolStatus::Ok),
            ("command_execution".to_owned(), ToolCategory::Execute, ToolStatus::NoResult),
        ]
    );
    let commands = op_named(&corpus, &graph, "command_execution");
    assert_eq!(tools::op_summary(&corpus, commands[0]), "bash -lc 'rg -n \"Stats\" src/cli.rs'");
    let result = &corpus.entries[commands[0].result_entry.index()];
    assert_eq!(block_text(&corpus, result, BlockKind::ToolResult), "14:    Stats {\n15:        #[arg(long)]\n");
    assert_eq!(tools::op_summary(&corpus, op_named(&corpus, &graph, "file_change")[0]), "src/cli.rs (+1 more)");
    // The todo list's latest state wins.
    let todo = op_named(&corpus, &graph, "todo_list")[0];
    assert_eq!(tools::op_summary(&corpus, todo), "3 todos, 0 done", "the call: its first state");
    let todo_entry = &corpus.entries[todo.result_entry.index()];
    assert_eq!(block_text(&corpus, todo_entry, BlockKind::ToolResult).matches("\"completed\":true").count(), 3);
    // item_0 and item_1 of the resumed run are new items, not the first run's.
    assert_eq!(entries_at(&corpus, 23).len(), 1);
    assert!(block_text(&corpus, entry_at(&corpus, 23), BlockKind::Thinking).starts_with("**Fixing"));

    // Errors: an error item, an error line, turn.failed.
    for line in [14, 25, 26] {
        assert!(entry_at(&corpus, line).flags.has(EntryFlags::ERROR), "line {line}");
    }
    assert_eq!(corpus.sym(entry_at(&corpus, 26).subtype), "turn.failed");

    // Usage: turn.completed of the first turn (24763 in, 20352 cached, 1122 out); the failed
    // turn reports none.
    let (input, cached, output) = (24763, 20352, 1122);
    assert_eq!(totals(&session.usage_with_agents), (input - cached, output, 0, cached));
    let cost = (input - cached) as f64 * 1.25e-6 + cached as f64 * 0.125e-6 + output as f64 * 10e-6;
    assert!((session.cost_with_agents_usd - cost).abs() < 1e-6);
    assert_eq!(graph.conversations[0].turns, 2);
}

#[test]
fn ollama_chat() {
    let bytes = format_fixture(OLLAMA);
    let (corpus, graph) = load(OLLAMA);
    assert_eq!(corpus.files[0].format.name(), "ollama-chat");
    assert_accounted(&corpus, &bytes);
    let counts = corpus.files[0].counts;
    // The retried request (line 22) resends known messages only: metadata.
    assert_eq!((counts.lines, counts.entries, counts.metadata), (26, 25, 1));
    assert_eq!(corpus.entries.len(), 11);

    let session = &graph.sessions[0];
    assert_eq!(session.id, "ollama-chat", "the file is the session");
    assert_eq!(session.title, "How many brews are in brews.csv?");
    assert!(entry_at(&corpus, 1).flags.has(EntryFlags::META), "the system prompt");

    // Chunks joined into one message each.
    let first = entry_at(&corpus, 2);
    assert_eq!(corpus.sym(first.model), "qwen3:8b");
    assert_eq!(
        block_text(&corpus, first, BlockKind::Thinking),
        "The user wants the number of brews. I should read brews.csv first."
    );
    assert_eq!(block_text(&corpus, entry_at(&corpus, 7), BlockKind::Text), "There are **3 brews** in brews.csv.");
    let think = entry_at(&corpus, 12);
    assert_eq!(block_text(&corpus, think, BlockKind::Thinking), "The ratings are 4, 5 and 3; 5 is the highest.");
    assert_eq!(block_text(&corpus, think, BlockKind::Text), "The **Oatmeal Stout** (5/5).");
    assert_eq!(corpus.blocks.iter().filter(|b| b.kind == BlockKind::Thinking).count(), 2);

    // The cut stream is an interrupted message; the error line an error.
    let cut = entry_at(&corpus, 18);
    assert!(cut.flags.has(EntryFlags::INTERRUPTED));
    assert!(!cut.flags.has(EntryFlags::ERROR));
    assert_eq!(block_text(&corpus, cut, BlockKind::Text), "Your three brews span a hoppy Pale Ale, ");
    assert_eq!(cut.response, ResponseId::NONE, "no usage without the final chunk");
    let error = entry_at(&corpus, 21);
    assert!(error.flags.has(EntryFlags::ERROR));
    assert!(corpus.first_text(error).unwrap().contains("unexpected EOF"));
    assert!(!entry_at(&corpus, 23).flags.has(EntryFlags::INTERRUPTED));

    // The tool call and its result (named by tool_name in the next request).
    assert_eq!(ops(&corpus, &graph), [("read_file".to_owned(), ToolCategory::Read, ToolStatus::Ok)]);
    assert_eq!(tools::op_summary(&corpus, &graph.tool_ops[0]), "brews.csv");

    // Usage from the final chunks: prompt_eval_count 212+341+412+455, eval_count 58+19+37+41.
    assert_eq!(totals(&session.usage_with_agents), (212 + 341 + 412 + 455, 58 + 19 + 37 + 41, 0, 0));
    assert_eq!(session.cost_with_agents_usd, 0.0, "local inference is free");
    assert!(session.unknown_models.is_empty(), "{:?}", session.unknown_models);
    let response = &corpus.responses[first.response.index()];
    assert_eq!(response.duration_ms, Some(2483), "total_duration 2483910375 ns");
    assert_eq!(graph.conversations[0].turns, 3);
}

#[test]
fn the_seed_extracted_tool_messages_still_read_as_claude_code() {
    let name = "seed-extracted-tool-messages.jsonl";
    let corpus = load_one(name, &fixture(name));
    assert_eq!(corpus.files[0].format, Format::ClaudeCode);
    let graph = Graph::build(&corpus);
    assert!(!graph.tool_ops.is_empty());
    assert!(graph.tool_ops.iter().all(|op| op.status == ToolStatus::Ok), "{:?}", graph.tool_ops);
}

#[test]
fn files_of_no_known_format_are_rejected_with_a_clear_message() {
    let cases: [(&str, &[u8], &str); 3] = [
        ("app.jsonl", b"{\"level\":\"info\",\"msg\":\"up\"}\n{\"level\":\"warn\",\"msg\":\"slow\"}\n", "Codex CLI rollouts"),
        (
            "openai.jsonl",
            b"{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"gpt-4o\",\"choices\":[]}\n",
            "OpenAI",
        ),
        ("gemini.jsonl", b"{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"hi\"}]}}]}\n", "Gemini"),
    ];
    for (name, bytes, says) in cases {
        let corpus = load_one(name, bytes);
        assert_eq!(corpus.files[0].format, Format::Rejected, "{name}");
        assert_eq!(corpus.diagnostics.len(), 1, "{name}: {:?}", corpus.diagnostics);
        assert!(corpus.diagnostics[0].message.contains(says), "{name}: {}", corpus.diagnostics[0].message);
        assert!(corpus.files[0].counts.balanced());
    }
    // A rollout of a session opened and left: read, and said to hold no message.
    let stub = b"{\"timestamp\":\"2025-10-02T10:00:00Z\",\"type\":\"session_meta\",\"payload\":{\"id\":\"s\",\"cwd\":\"/p\"}}\n";
    let corpus = load_one("rollout-2025-10-02T10-00-00-s.jsonl", stub);
    assert_eq!(corpus.files[0].format, Format::CodexRollout);
    assert_eq!(corpus.diagnostics.len(), 1);
    assert_eq!(corpus.diagnostics[0].kind, DiagnosticKind::EmptyFile);
    assert!(corpus.diagnostics[0].message.contains("Codex CLI session rollout without any message"));
}

#[test]
fn a_mixed_folder_loads_together_with_a_format_per_file() {
    let mut files: Vec<(String, Vec<u8>)> =
        format_fixture_names().into_iter().map(|name| (format!("mixed/{name}"), format_fixture(&name))).collect();
    files.push(("mixed/claude.jsonl".to_owned(), fixture("every-line-type.jsonl")));
    let corpus = load_chunked(&files, 0);
    let graph = Graph::build(&corpus);
    let summary = summarize(&corpus, &graph);
    let formats: Vec<(&str, &str)> = summary.per_file.iter().map(|f| (f.path.as_str(), f.format)).collect();
    assert_eq!(
        formats,
        [
            (format!("mixed/{AMP}").as_str(), "amp"),
            ("mixed/agent-sdk-stream.jsonl", "agent-sdk-stream-json"),
            ("mixed/codex-sdk-events.jsonl", "codex-sdk-events"),
            ("mixed/copilot-events.jsonl", "copilot-cli"),
            ("mixed/cursor-transcript.jsonl", "cursor-cli"),
            ("mixed/demo.aider.chat.history.md", "aider"),
            ("mixed/ollama-chat.jsonl", "ollama-chat"),
            ("mixed/pi-legacy.jsonl", "pi"),
            ("mixed/pi-session.jsonl", "pi"),
            ("mixed/qwen-session.jsonl", "qwen-code"),
            (format!("mixed/{ROLLOUT}").as_str(), "codex-rollout"),
            (format!("mixed/{GEMINI}").as_str(), "gemini-cli"),
            (format!("mixed/{GEMINI_LINES}").as_str(), "gemini-cli"),
            ("mixed/claude.jsonl", "claude-code"),
        ]
    );
    assert_eq!(summary.lines, files.iter().map(|(_, b)| count_lines(b)).sum::<u64>());
    assert!(corpus.counts().balanced());
    // Every file is its own session, and each reads as it does alone.
    for (name, session_id, input, output) in [
        (SDK, "5f0c8a3e-2b7d-4c1e-9a64-3d2f1b0e7c91", 15, 1030),
        (ROLLOUT, "0199a213-81c0-7800-8aa1-bbab2a035a53", 48450 - 44900, 1420),
        (EVENTS, "0199b0c4-5d2e-7f31-a8e9-6c1d2f3a4b5c", 24763 - 20352, 1122),
        (OLLAMA, "ollama-chat", 1420, 155),
        (PI, "5b7e0c1a-3f2d-4e8b-9a61-0d4c2b8e7f13", 1980, 212),
        (PI_LEGACY, "9e1f2a3b-4c5d-4e6f-8a7b-1c2d3e4f5a6b", 940, 55),
        (GEMINI, "7c2e9a41-5b3d-4f8e-a6c1-2d9b0e4f7a35", 4257, 345),
        (GEMINI_LINES, "b41c7d2e-9f03-4a6b-8e15-6c2d0a9f3e71", 2204, 209),
        (AMP, "T-7b1e2c3d-4f5a-4b6c-8d7e-9f0a1b2c3d4e", 36, 295),
        (QWEN, "e5a1c9d3-7b2f-4e60-9c84-1f3a5d7b9e20", 8300, 180),
        (COPILOT, "7d3f2a10-5b8c-4e61-9f27-0a1b2c3d4e5f", 13000, 520),
        (CURSOR, "cursor-transcript", 0, 0),
    ] {
        let session = summary.sessions.iter().find(|s| s.session_id == session_id).unwrap_or_else(|| panic!("{name}"));
        assert_eq!((session.usage_with_agents.input_tokens, session.usage_with_agents.output_tokens), (input, output));
        let file = summary.per_file.iter().find(|f| f.path.ends_with(name)).unwrap();
        assert_eq!(file.usage.output_tokens, output, "{name}");
        let (alone, alone_graph) = load(name);
        assert_eq!(
            alone_graph.tool_ops.len(),
            graph
                .tool_ops
                .iter()
                .filter(|op| {
                    let anchor = if op.call_entry.is_some() { op.call_entry } else { op.result_entry };
                    corpus.files[corpus.entries[anchor.index()].file as usize].path.ends_with(name)
                })
                .count()
        );
        assert_eq!(alone.entries.len() as u32, session.entries, "{name}");
    }
    // The Aider history holds three runs, each a session, as alone.
    let (alone, alone_graph) = load(AIDER);
    let runs: Vec<&str> = alone_graph.sessions.iter().map(|s| s.id.as_str()).collect();
    for (run, alone_run) in runs.iter().zip(&alone_graph.sessions) {
        let id = format!("mixed/{run}");
        let session = summary.sessions.iter().find(|s| s.session_id == id).unwrap_or_else(|| panic!("{id}"));
        assert_eq!(session.entries, alone_run.entries, "{id}");
        let usage = &session.usage_with_agents;
        let alone_usage = &alone_run.usage_with_agents;
        assert_eq!((usage.input_tokens, usage.output_tokens), (alone_usage.input_tokens, alone_usage.output_tokens));
    }
    assert_eq!(runs.len(), 3);
    assert_eq!(alone.files[0].format, Format::Aider);
    assert_eq!(
        summary.sessions.len(),
        7 + 1 + 3 + 3 + 1 + 1,
        "Copilot CLI, Gemini CLI and Qwen Code sessions, three Aider runs, an Amp thread, a Cursor CLI transcript"
    );
}

#[test]
fn agent_sdk_output_without_uuids_gets_a_chain_of_its_own() {
    // The first SDK versions: no uuid, `cost_usd` on the result (as the seed shows it).
    let text = concat!(
        "{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"old-1\",\"model\":\"claude-sonnet-4-20250514\",\"cwd\":\"/p\",\"tools\":[\"Read\"]}\n",
        "{\"type\":\"assistant\",\"message\":{\"id\":\"msg_1\",\"model\":\"claude-sonnet-4-20250514\",\"content\":[{\"type\":\"tool_use\",\"id\":\"toolu_r\",\"name\":\"Read\",\"input\":{\"file_path\":\"/p/a.rs\"}}],\"usage\":{\"input_tokens\":10,\"output_tokens\":20}},\"parent_tool_use_id\":null,\"session_id\":\"old-1\"}\n",
        "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_r\",\"content\":\"fn a() {}\"}]},\"parent_tool_use_id\":null,\"session_id\":\"old-1\"}\n",
        "{\"type\":\"result\",\"subtype\":\"success\",\"cost_usd\":0.05,\"duration_ms\":12000,\"is_error\":false,\"session_id\":\"old-1\"}\n",
    );
    let corpus = load_one("claude-output.jsonl", text.as_bytes());
    assert_eq!(corpus.files[0].format, Format::AgentSdk);
    assert_eq!(corpus.entries.len(), 4);
    let uuids: Vec<&str> = corpus.entries.iter().map(|e| corpus.entry_uuid(e)).collect();
    assert_eq!(uuids, ["claude-output:L1", "claude-output:L2", "claude-output:L3", "claude-output:L4"]);
    assert_eq!(corpus.entry_parent_uuid(&corpus.entries[2]), Some("claude-output:L2"));
    let graph = Graph::build(&corpus);
    assert_eq!(graph.tool_ops[0].status, ToolStatus::Ok);
    let session = &graph.sessions[0];
    assert_eq!(session.id, "old-1");
    assert!((session.cost_usd - 0.05).abs() < 1e-9, "the logged cost, {}", session.cost_usd);
    assert_eq!(totals(&session.usage), (10, 20, 0, 0));
}

#[test]
fn older_and_events_only_rollouts_are_read() {
    // Mid-2025 rollouts: a first line {id, timestamp, instructions}, then bare response items.
    let old = concat!(
        "{\"id\":\"0197a0b1-1111-7222-8333-944455556666\",\"timestamp\":\"2025-06-01T09:00:00.000Z\",\"instructions\":null}\n",
        "{\"record_type\":\"state\"}\n",
        "{\"type\":\"message\",\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":\"list the files\"}]}\n",
        "{\"type\":\"local_shell_call\",\"id\":\"lsh_1\",\"call_id\":\"call_ls\",\"status\":\"completed\",\"action\":{\"type\":\"exec\",\"command\":[\"ls\",\"-la\"],\"timeout_ms\":10000}}\n",
        "{\"type\":\"function_call_output\",\"call_id\":\"call_ls\",\"output\":\"{\\\"output\\\":\\\"a.rs\\\\n\\\",\\\"metadata\\\":{\\\"exit_code\\\":0,\\\"duration_seconds\\\":0.0}}\"}\n",
        "{\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":\"output_text\",\"text\":\"One file: a.rs\"}]}\n",
    );
    let name = "rollout-2025-06-01T09-00-00-0197a0b1-1111-7222-8333-944455556666.jsonl";
    let corpus = load_one(name, old.as_bytes());
    assert_eq!(corpus.files[0].format, Format::CodexRollout);
    assert!(corpus.diagnostics.is_empty(), "{:?}", corpus.diagnostics);
    assert_eq!(corpus.entries.len(), 4);
    let graph = Graph::build(&corpus);
    assert_eq!(ops(&corpus, &graph), [("local_shell".to_owned(), ToolCategory::Execute, ToolStatus::Ok)]);
    assert_eq!(tools::op_summary(&corpus, &graph.tool_ops[0]), "ls -la");
    assert_eq!(graph.sessions[0].id, "0197a0b1-1111-7222-8333-944455556666");
    assert_eq!(graph.sessions[0].title, "list the files");

    // A rollout with events only: the events are the messages.
    let events = concat!(
        "{\"timestamp\":\"2025-10-02T10:00:00Z\",\"type\":\"session_meta\",\"payload\":{\"id\":\"e1\",\"cwd\":\"/p\"}}\n",
        "{\"timestamp\":\"2025-10-02T10:00:01Z\",\"type\":\"event_msg\",\"payload\":{\"type\":\"user_message\",\"message\":\"hello\",\"images\":[]}}\n",
        "{\"timestamp\":\"2025-10-02T10:00:02Z\",\"type\":\"event_msg\",\"payload\":{\"type\":\"agent_reasoning\",\"text\":\"**Greeting**\"}}\n",
        "{\"timestamp\":\"2025-10-02T10:00:03Z\",\"type\":\"event_msg\",\"payload\":{\"type\":\"agent_message\",\"message\":\"Hi!\"}}\n",
        "{\"timestamp\":\"2025-10-02T10:00:04Z\",\"type\":\"compacted\",\"payload\":{\"message\":\"The user said hello.\"}}\n",
    );
    let corpus = load_one("rollout-2025-10-02T10-00-00-e1.jsonl", events.as_bytes());
    let kinds: Vec<EntryKind> = corpus.entries.iter().map(|e| e.kind).collect();
    assert_eq!(kinds, [EntryKind::User, EntryKind::Assistant, EntryKind::Assistant, EntryKind::User]);
    assert_eq!(corpus.first_text(&corpus.entries[2]).as_deref(), Some("Hi!"));
    assert!(corpus.entries[3].flags.has(EntryFlags::COMPACT_SUMMARY));
    let graph = Graph::build(&corpus);
    assert_eq!(graph.compactions.len(), 1, "a compaction summary");
    assert_eq!(graph.sessions[0].title, "hello");
}

#[test]
fn broken_lines_get_diagnostics_with_their_line_numbers() {
    for name in [SDK, ROLLOUT, EVENTS, OLLAMA, PI_LEGACY, GEMINI_LINES, QWEN, COPILOT, CURSOR] {
        let mut text = String::from_utf8(format_fixture(name)).unwrap();
        let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
        lines.insert(2, "{\"type\": \"cut in the midd".to_owned());
        lines.insert(4, "[1, 2]".to_owned());
        text = lines.join("\n") + "\n";
        let corpus = load_one(name, text.as_bytes());
        let found: Vec<(u32, DiagnosticKind)> = corpus.diagnostics.iter().map(|d| (d.line, d.kind)).collect();
        assert_eq!(found, [(3, DiagnosticKind::InvalidJson), (5, DiagnosticKind::NotAnObject)], "{name}");
        let counts = corpus.files[0].counts;
        assert!(counts.balanced(), "{name}: {counts:?}");
        assert_eq!(counts.skipped, 2);
        assert_eq!(counts.lines, count_lines(text.as_bytes()));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Any byte of any fixture changed, fed in any slices: no panic, every line accounted for.
    #[test]
    fn mutated_fixtures_never_panic(which in 0usize..13, position in 0usize..20_000, byte in any::<u8>(), chunk in 1usize..300) {
        let name = [SDK, ROLLOUT, EVENTS, OLLAMA, PI, PI_LEGACY, AIDER, GEMINI, GEMINI_LINES, QWEN, COPILOT, AMP, CURSOR][which];
        let mut bytes = format_fixture(name);
        let at = position % bytes.len();
        bytes[at] = byte;
        let files = vec![(name.to_owned(), bytes.clone())];
        let corpus = load_chunked(&files, chunk);
        prop_assert!(corpus.files[0].counts.balanced());
        let graph = Graph::build(&corpus);
        let _ = summarize(&corpus, &graph);
        let _ = dump_graph(&corpus, &graph);
        for op in &graph.tool_ops {
            let _ = tools::op_summary(&corpus, op);
        }
    }
}

/// What a reader sees of an entry: its kind and the text of each block, in order.
/// A JSON body (a tool input) is compared as its value: a shared excerpt of a pretty-printed
/// document is written back compact.
fn readable(corpus: &Corpus, entry: &Entry) -> (EntryKind, Vec<(BlockKind, String)>) {
    let blocks = corpus.blocks_of(entry).iter().map(|b| {
        let text = corpus.span_text(entry.file, b.body).into_owned();
        let value = serde_json::from_str::<serde_json::Value>(&text).ok().filter(|v| v.is_object());
        (b.kind, value.map_or(text, |v| v.to_string()))
    });
    (entry.kind, blocks.collect())
}

#[test]
fn an_excerpt_of_a_joined_format_reads_back_into_the_same_messages() {
    use sessionscope_engine::share::redacted::{ShareOptions, share_scope};
    use sessionscope_engine::share::scope::Scope;
    // Ollama joins streamed chunks into one message; Codex SDK events update an item before
    // completing it. A share of the later part of each must carry every line of its messages.
    // (The Pi fixture with branches is left out: its later lines are not all below one prompt;
    // so is the Gemini JSON Lines one, with its rewind.) A legacy Gemini CLI document is one
    // JSON object: its excerpt is the object without the messages before the excerpt.
    for name in [OLLAMA, EVENTS, ROLLOUT, SDK, PI_LEGACY, QWEN, GEMINI, COPILOT] {
        let (corpus, graph) = load(name);
        let prompts: Vec<EntryId> = (0..corpus.entries.len())
            .map(EntryId::new)
            .filter(|&e| {
                let entry = &corpus.entries[e.index()];
                entry.kind == EntryKind::User && !entry.is_sidechain() && corpus.first_text(entry).is_some()
            })
            .collect();
        assert!(prompts.len() >= 2, "{name}: the fixture has a second prompt");
        let from = prompts[1];
        let bundle = share_scope(&corpus, &graph, &Scope::Subtree(from), &ShareOptions::default(), |_| true)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let shared = sessionscope_engine::Loader::read_all(bundle.files.iter().map(|(path, bytes)| (path, bytes)));
        assert_eq!(shared.files[0].format, corpus.files[0].format, "{name}: read back as the same format");
        assert!(
            shared.diagnostics.iter().all(|d| d.kind.severity() != Severity::Error),
            "{name}: {:?}",
            shared.diagnostics
        );

        let original: Vec<_> =
            corpus.entries[from.index()..].iter().filter(|e| !e.is_sidechain()).map(|e| readable(&corpus, e)).collect();
        let read_back: Vec<_> =
            shared.entries.iter().filter(|e| !e.is_sidechain()).map(|e| readable(&shared, e)).collect();
        assert_eq!(read_back, original, "{name}: the excerpt holds the same messages, whole");
        // Nothing from before the excerpt: not even inside a line that repeats the history.
        let earlier = corpus.first_text(&corpus.entries[prompts[0].index()]).unwrap_or_default().into_owned();
        let shared_text: String = bundle.files.iter().map(|(_, b)| String::from_utf8_lossy(b).into_owned()).collect();
        assert!(!shared_text.contains(&earlier), "{name}: the excerpt carries the earlier prompt {earlier:?}");
        let full_lines = count_lines(&format_fixture(name));
        assert!(shared.files[0].counts.lines < full_lines, "{name}: an excerpt, not the whole file");
    }
}

#[test]
fn pi_session() {
    let bytes = format_fixture(PI);
    let (corpus, graph) = load(PI);
    assert_eq!(corpus.files[0].format.name(), "pi");
    assert_accounted(&corpus, &bytes);
    let counts = corpus.files[0].counts;
    // 18 lines: 12 messages (the shown custom_message among them); the header, two model
    // changes, a thinking level change and a hidden custom_message are metadata; line 9 is cut.
    assert_eq!((counts.lines, counts.entries, counts.metadata, counts.skipped), (18, 12, 5, 1));
    let broken = &corpus.diagnostics[0];
    assert_eq!((broken.line, broken.kind), (PI_BROKEN_LINE, DiagnosticKind::InvalidJson));

    let session = &graph.sessions[0];
    let id = "5b7e0c1a-3f2d-4e8b-9a61-0d4c2b8e7f13";
    assert_eq!(session.id, id);
    assert_eq!(session.title, "Add a --json flag to `brewlog list`.");
    assert_eq!(corpus.sym(corpus.envelope(entry_at(&corpus, 4)).cwd), "/home/dev/projects/brewlog");

    // The tree: uuids are `<session>:<id>`; the first message hangs from no entry (its parents
    // are metadata), the shown custom_message from the assistant above the hidden one, and two
    // branches grow from line 10.
    assert_eq!(corpus.entry_uuid(entry_at(&corpus, 4)), format!("{id}:b0000001"));
    assert_eq!(corpus.entry_parent_uuid(entry_at(&corpus, 4)), None);
    let parent = |line: u32| corpus.entry_parent_uuid(entry_at(&corpus, line)).map(str::to_owned);
    assert_eq!(parent(12), Some(format!("{id}:b0000007")));
    assert_eq!(parent(14), Some(format!("{id}:b0000007")));
    assert_eq!(parent(17), Some(format!("{id}:b000000a")), "past the model change");
    assert_eq!(graph.conversations.len(), 1);
    let shown = entry_at(&corpus, 12);
    assert_eq!(corpus.sym(shown.subtype), "prompt-summary");
    assert!(shown.flags.has(EntryFlags::META), "extension text is no prompt");

    // Thinking, and the model: the message's own, else the last model change's.
    assert_eq!(
        block_text(&corpus, entry_at(&corpus, 5), BlockKind::Thinking),
        "I should look at the list command first."
    );
    assert_eq!(corpus.sym(entry_at(&corpus, 5).model), "claude-sonnet-4-5");
    assert_eq!(corpus.sym(entry_at(&corpus, 18).model), "gpt-5.1-codex");

    // Calls pair with results by toolCallId; isError is an error; the call of the aborted
    // response never ran and is interrupted.
    assert!(entry_at(&corpus, 15).flags.has(EntryFlags::INTERRUPTED));
    assert_eq!(
        ops(&corpus, &graph),
        [
            ("read".to_owned(), ToolCategory::Read, ToolStatus::Ok),
            ("bash".to_owned(), ToolCategory::Execute, ToolStatus::Error),
            ("edit".to_owned(), ToolCategory::Edit, ToolStatus::Interrupted),
        ]
    );
    assert_eq!(tools::op_summary(&corpus, op_named(&corpus, &graph, "bash")[0]), "cargo test list");
    assert_eq!(tools::op_summary(&corpus, op_named(&corpus, &graph, "edit")[0]), "src/list.rs +1 -1");
    let read = op_named(&corpus, &graph, "read")[0];
    assert_eq!(tools::op_files(&corpus, read), [("src/list.rs".to_owned(), tools::Touch::Read)]);
    assert!(graph.problems.is_empty(), "{:?}", graph.problems);
}

#[test]
fn pi_tokens_and_cost_sum_by_hand() {
    let (corpus, graph) = load(PI);
    let session = &graph.sessions[0];
    // (input, output, cacheWrite, cacheRead) of the five responses, as the fixture states them.
    let responses = [(1200, 80, 1000, 0), (50, 40, 0, 2200), (30, 60, 100, 2300), (300, 12, 0, 0), (400, 20, 0, 1000)];
    let sum = responses.iter().fold((0, 0, 0, 0), |a, r| (a.0 + r.0, a.1 + r.1, a.2 + r.2, a.3 + r.3));
    assert_eq!(sum, (1980, 212, 1100, 5500));
    assert_eq!(totals(&session.usage_with_agents), sum);
    let each: Vec<_> = corpus.responses.iter().map(|r| totals(&r.usage)).collect();
    assert_eq!(each, responses);
    // Cost: the logged cost.total (an object) or cost (a number) where positive; a logged 0 and a
    // missing cost are priced by the table: claude-sonnet-4-5 $3 in, $15 out, $3.75 cache write,
    // $0.30 cache read; gpt-5.1-codex $1.25 in, $0.125 cached, $10 out, per million tokens.
    let logged = 0.0123 + 0.004 + 0.0011;
    let sonnet = (30.0 * 3.0 + 60.0 * 15.0 + 100.0 * 3.75 + 2300.0 * 0.3) / 1e6;
    let codex = (400.0 * 1.25 + 1000.0 * 0.125 + 20.0 * 10.0) / 1e6;
    let logged_costs: Vec<Option<f64>> = corpus.responses.iter().map(|r| r.logged_cost_usd).collect();
    assert_eq!(logged_costs, [Some(0.0123), Some(0.004), None, Some(0.0011), None]);
    assert!(
        (session.cost_with_agents_usd - (logged + sonnet + codex)).abs() < 1e-9,
        "{}",
        session.cost_with_agents_usd
    );
    assert!(session.unknown_models.is_empty());
}

#[test]
fn pi_legacy_session_is_chained_in_file_order() {
    let bytes = format_fixture(PI_LEGACY);
    let (corpus, graph) = load(PI_LEGACY);
    assert_eq!(corpus.files[0].format, Format::Pi);
    assert_accounted(&corpus, &bytes);
    let counts = corpus.files[0].counts;
    assert_eq!((counts.lines, counts.entries, counts.metadata), (11, 8, 3));
    assert!(corpus.diagnostics.is_empty(), "{:?}", corpus.diagnostics);
    // No ids: each entry follows the one before it, past the metadata lines.
    let uuids: Vec<&str> = corpus.entries.iter().map(|e| corpus.entry_uuid(e)).collect();
    assert_eq!(uuids[..3], ["pi-legacy:L2", "pi-legacy:L3", "pi-legacy:L4"]);
    assert_eq!(corpus.entry_parent_uuid(entry_at(&corpus, 6)), Some("pi-legacy:L4"));
    assert_eq!(corpus.entry_parent_uuid(entry_at(&corpus, 10)), Some("pi-legacy:L8"));
    let session = &graph.sessions[0];
    assert_eq!(session.id, "9e1f2a3b-4c5d-4e6f-8a7b-1c2d3e4f5a6b");
    assert_eq!(graph.conversations.len(), 1);
    assert_eq!(block_text(&corpus, entry_at(&corpus, 6), BlockKind::Thinking), "Three files.");
    assert!(entry_at(&corpus, 8).flags.has(EntryFlags::INTERRUPTED), "stopReason aborted");
    let failed = entry_at(&corpus, 11);
    assert!(failed.flags.has(EntryFlags::API_ERROR), "stopReason error");
    assert_eq!(corpus.first_text(failed).as_deref(), Some("529 overloaded_error: Overloaded"));
    assert_eq!(corpus.sym(failed.model), "claude-opus-4-5");
    assert_eq!(ops(&corpus, &graph), [("bash".to_owned(), ToolCategory::Execute, ToolStatus::Ok)]);
    // Logged costs only (the zero-usage responses cost nothing).
    assert_eq!(totals(&session.usage_with_agents), (940, 55, 0, 900));
    assert!((session.cost_with_agents_usd - (0.00315 + 0.000765)).abs() < 1e-9, "{}", session.cost_with_agents_usd);
}

#[test]
fn pi_headers_are_sniffed_without_taking_other_logs() {
    let format = |bytes: &[u8]| load_one("x.jsonl", bytes).files[0].format;
    let v3 =
        b"{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"2026-01-01T00:00:00Z\",\"cwd\":\"/p\"}\n";
    assert_eq!(format(v3), Format::Pi);
    let legacy = b"{\"type\":\"session\",\"id\":\"s\",\"timestamp\":\"t\",\"cwd\":\"/p\",\"provider\":\"anthropic\",\"modelId\":\"m\"}\n";
    assert_eq!(format(legacy), Format::Pi);
    // A header cut off: the entries of the tree say it.
    let entry = b"{\"type\":\"message\",\"id\":\"a1\",\"parentId\":null,\"timestamp\":\"t\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n";
    assert_eq!(format(entry), Format::Pi);
    // A session line of some other log is not a Pi header.
    assert_eq!(format(b"{\"type\":\"session\",\"id\":\"s\"}\n"), Format::Rejected);
    // Every other fixture keeps its format.
    for name in [SDK, ROLLOUT, EVENTS, OLLAMA, COPILOT] {
        assert_ne!(load(name).0.files[0].format, Format::Pi, "{name}");
    }
}

#[test]
fn real_pi_sessions_read_as_their_lines_say() {
    let Some(real) = real_fixtures("real_pi_sessions_read_as_their_lines_say") else { return };
    let Some((_, dir)) = real.every_folder().into_iter().find(|(name, _)| name == "pi") else {
        panic!("the real fixtures have no pi folder")
    };
    // Counted in the files with jq/python: lines; entries (messages, shown custom_messages);
    // metadata (header, model and thinking level changes, custom, hidden custom_messages); tool
    // calls; results of isError; calls of aborted responses; (input, output, cacheWrite,
    // cacheRead) summed over the assistant usages; responses; thinking blocks.
    let cases = [
        ("kimchi-dev-session-v3.jsonl", (148, 128, 20), 60, 2, 0, (2665272, 8472, 0, 0), 56, 0),
        // 16 calls of the response that ended in an error never ran: errors too.
        (
            "pi-mono-large-session-legacy-v1.jsonl",
            (1019, 914, 105),
            391,
            19 + 16,
            2,
            (1049, 83156, 4296232, 43229469),
            453,
            1,
        ),
    ];
    for (name, lines, calls, errors, interrupted, usage, responses, thinking) in cases {
        let bytes = std::fs::read(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        let corpus = load_one(name, &bytes);
        assert_eq!(corpus.files[0].format, Format::Pi, "{name}");
        assert!(corpus.diagnostics.is_empty(), "{name}: {:?}", corpus.diagnostics);
        let counts = corpus.files[0].counts;
        assert!(counts.balanced(), "{name}: {counts:?}");
        assert_eq!((counts.lines, counts.entries, counts.metadata), lines, "{name}");
        let graph = Graph::build(&corpus);
        assert_eq!(graph.sessions.len(), 1, "{name}");
        assert_eq!(graph.conversations.len(), 1, "{name}: one tree");
        assert_eq!(graph.tool_ops.len(), calls, "{name}");
        let status = |s: ToolStatus| graph.tool_ops.iter().filter(|op| op.status == s).count();
        assert_eq!(status(ToolStatus::Error), errors, "{name}");
        assert_eq!(status(ToolStatus::Interrupted), interrupted, "{name}");
        assert_eq!(status(ToolStatus::NoResult) + status(ToolStatus::ResultWithoutCall), 0, "{name}");
        assert_eq!(totals(&graph.sessions[0].usage_with_agents), usage, "{name}");
        assert_eq!(corpus.responses.len(), responses, "{name}");
        assert_eq!(corpus.blocks.iter().filter(|b| b.kind == BlockKind::Thinking).count(), thinking, "{name}");
        assert!(graph.problems.is_empty(), "{name}: {:?}", &graph.problems[..graph.problems.len().min(3)]);
    }
}

#[test]
fn pi_compactions_branch_summaries_names_and_user_commands() {
    let text = concat!(
        "{\"type\":\"session\",\"version\":3,\"id\":\"s1\",\"timestamp\":\"2026-01-01T00:00:00Z\",\"cwd\":\"/p\"}\n",
        "{\"type\":\"message\",\"id\":\"u1\",\"parentId\":null,\"timestamp\":\"2026-01-01T00:00:01Z\",\"message\":{\"role\":\"user\",\"content\":\"fix the build\"}}\n",
        "{\"type\":\"message\",\"id\":\"x1\",\"parentId\":\"u1\",\"timestamp\":\"2026-01-01T00:00:02Z\",\"message\":{\"role\":\"bashExecution\",\"command\":\"make\",\"output\":\"error: no rule\",\"exitCode\":2,\"cancelled\":false,\"truncated\":false}}\n",
        "{\"type\":\"compaction\",\"id\":\"k1\",\"parentId\":\"x1\",\"timestamp\":\"2026-01-01T00:00:03Z\",\"summary\":\"The user asked to fix the build; make fails.\",\"firstKeptEntryId\":\"x1\",\"tokensBefore\":50000}\n",
        "{\"type\":\"label\",\"id\":\"l1\",\"parentId\":\"k1\",\"timestamp\":\"2026-01-01T00:00:04Z\",\"targetId\":\"u1\",\"label\":\"start\"}\n",
        "{\"type\":\"session_info\",\"id\":\"i1\",\"parentId\":\"l1\",\"timestamp\":\"2026-01-01T00:00:05Z\",\"name\":\"Build fix\"}\n",
        "{\"type\":\"branch_summary\",\"id\":\"b1\",\"parentId\":\"u1\",\"timestamp\":\"2026-01-01T00:00:06Z\",\"fromId\":\"i1\",\"summary\":\"Tried make; it failed.\"}\n",
        "{\"type\":\"message\",\"id\":\"u2\",\"parentId\":\"i1\",\"timestamp\":\"2026-01-01T00:00:07Z\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"go on\"},{\"type\":\"image\",\"data\":\"AAAA\",\"mimeType\":\"image/png\"}]}}\n",
    );
    let corpus = load_one("s1.jsonl", text.as_bytes());
    assert_eq!(corpus.files[0].format, Format::Pi);
    assert!(corpus.diagnostics.is_empty(), "{:?}", corpus.diagnostics);
    let counts = corpus.files[0].counts;
    assert_eq!((counts.lines, counts.entries, counts.metadata), (8, 5, 3));
    let graph = Graph::build(&corpus);
    let session = &graph.sessions[0];
    assert_eq!(session.title, "Build fix", "the session_info name");
    assert!(entry_at(&corpus, 4).flags.has(EntryFlags::COMPACT_SUMMARY));
    assert_eq!(graph.compactions.len(), 1);
    assert_eq!(corpus.entry_parent_uuid(entry_at(&corpus, 8)), Some("s1:k1"), "past the label and the name");
    assert_eq!(corpus.entry_parent_uuid(entry_at(&corpus, 7)), Some("s1:u1"), "a branch summary starts a branch");
    assert_eq!(ops(&corpus, &graph), [("bash".to_owned(), ToolCategory::Execute, ToolStatus::Error)]);
    assert_eq!(tools::op_summary(&corpus, &graph.tool_ops[0]), "make");
    let kinds: Vec<BlockKind> = corpus.blocks_of(entry_at(&corpus, 8)).iter().map(|b| b.kind).collect();
    assert_eq!(kinds, [BlockKind::Text, BlockKind::Image]);
}

#[test]
fn copilot_cli_session() {
    let bytes = format_fixture(COPILOT);
    let (corpus, graph) = load(COPILOT);
    assert_eq!(corpus.files[0].format.name(), "copilot-cli");
    assert_accounted(&corpus, &bytes);
    assert!(corpus.diagnostics.is_empty(), "{:?}", corpus.diagnostics);
    let counts = corpus.files[0].counts;
    // 37 events: 16 entries (the system prompt, 2 prompts, 6 assistant messages, 6 tool results,
    // the abort); turn starts and ends, tool starts, hooks, subagent events, session.start,
    // model change, info, a type this version does not know and the shutdown are metadata.
    assert_eq!((counts.lines, counts.entries, counts.metadata, counts.skipped), (37, 16, 21, 0));
    let types: Vec<(&str, u64)> = corpus.type_counts.iter().map(|&(t, n)| (corpus.sym(t), n)).collect();
    for kind in ["hook.start", "hook.end", "tool.execution_start", "session.workspace_file_changed", "abort"] {
        assert!(types.iter().any(|&(t, _)| t == kind), "{kind} counted: {types:?}");
    }

    let session = &graph.sessions[0];
    assert_eq!(session.id, "7d3f2a10-5b8c-4e61-9f27-0a1b2c3d4e5f");
    assert_eq!(session.title, "Add a --json flag to `brewlog list`.");
    let envelope = corpus.envelope(entry_at(&corpus, 4));
    assert_eq!(corpus.sym(envelope.cwd), "/home/dev/projects/brewlog");
    assert_eq!(corpus.sym(envelope.git_branch), "main");
    assert_eq!(corpus.sym(envelope.version), "1.0.40");
    assert_eq!(corpus.first_text(entry_at(&corpus, 4)).as_deref(), Some("Add a --json flag to `brewlog list`."));
    assert!(entry_at(&corpus, 3).flags.has(EntryFlags::META), "the system prompt is no prompt");

    // The chain by parentId, past metadata events; the subagent's first message hangs from the
    // call that spawned it, and the main thread resumes past the subagent's events.
    let parent = |line: u32| corpus.entry_parent_uuid(entry_at(&corpus, line));
    assert_eq!(parent(3), None);
    assert_eq!(parent(6), Some("cp-04"), "past the turn start");
    assert_eq!(parent(11), Some("cp-06"), "past the tool starts and the hook");
    assert_eq!(parent(18), Some("cp-15"), "the subagent's first message: the task call");
    assert_eq!(parent(20), Some("cp-18"));
    assert_eq!(parent(23), Some("cp-15"), "the task result: in the main thread, past the subagent");
    assert_eq!(parent(31), Some("cp-28"), "past the info");

    // The subagent: an agent conversation linked to its task call, with its own model.
    assert_eq!(graph.conversations.len(), 2);
    let agent = graph.conversations.iter().find(|c| c.kind == ConversationKind::Agent).expect("a subagent");
    assert_eq!(agent.entries, 3);
    assert_eq!(agent.linked_by, Some(LinkRule::ParentToolUseId));
    assert_eq!(agent.spawn_entry, EntryId::new(corpus.entries.iter().position(|e| e.line == 15).unwrap()));
    assert_eq!((agent.agent_type.as_str(), agent.description.as_str()), ("explore", "Find list tests"));
    let child = entry_at(&corpus, 18);
    assert!(child.is_sidechain());
    assert_eq!(corpus.sym(child.agent_id), "call_task_7");
    assert_eq!(corpus.sym(child.model), "claude-haiku-4.5");

    // Thinking (reasoningText; reasoningOpaque alone is redacted), and the model: the message's
    // own, else the last model change's.
    assert_eq!(
        block_text(&corpus, entry_at(&corpus, 6), BlockKind::Thinking),
        "Let me look at the list command first."
    );
    let kinds: Vec<BlockKind> = corpus.blocks_of(entry_at(&corpus, 15)).iter().map(|b| b.kind).collect();
    assert_eq!(kinds, [BlockKind::RedactedThinking, BlockKind::Text, BlockKind::ToolUse]);
    assert_eq!(corpus.sym(entry_at(&corpus, 6).model), "gpt-5.2");

    // Calls pair with results by toolCallId; success false is an error; the call the abort cut
    // short is interrupted.
    assert_eq!(
        ops(&corpus, &graph),
        [
            ("view".to_owned(), ToolCategory::Read, ToolStatus::Ok),
            ("glob".to_owned(), ToolCategory::Search, ToolStatus::Ok),
            ("task".to_owned(), ToolCategory::Agent, ToolStatus::Ok),
            ("edit".to_owned(), ToolCategory::Edit, ToolStatus::Ok),
            ("bash".to_owned(), ToolCategory::Execute, ToolStatus::Error),
            ("create".to_owned(), ToolCategory::Edit, ToolStatus::Interrupted),
            // The subagent's, after the main conversation's.
            ("grep".to_owned(), ToolCategory::Search, ToolStatus::Ok),
        ]
    );
    let summary = |name: &str| tools::op_summary(&corpus, op_named(&corpus, &graph, name)[0]);
    assert_eq!(summary("view"), "src/list.rs:1-40");
    assert_eq!(summary("glob"), "src/*.rs");
    assert_eq!(summary("task"), "Find list tests (explore)");
    assert_eq!(summary("grep"), "fn list in tests");
    assert_eq!(summary("edit"), "src/list.rs +1 -1");
    assert_eq!(summary("bash"), "cargo test list");
    assert_eq!(summary("create"), "CHANGELOG.md +2");
    let files = |name: &str| tools::op_files(&corpus, op_named(&corpus, &graph, name)[0]);
    assert_eq!(files("view"), [("src/list.rs".to_owned(), tools::Touch::Read)]);
    assert_eq!(files("edit"), [("src/list.rs".to_owned(), tools::Touch::Edit)]);
    assert_eq!(files("create"), [("CHANGELOG.md".to_owned(), tools::Touch::Write)]);
    assert_eq!(
        block_text(&corpus, entry_at(&corpus, 28), BlockKind::ToolResult),
        "error[E0061]: this function takes 2 arguments but 1 argument was supplied"
    );
    let abort = entry_at(&corpus, 35);
    assert_eq!(abort.kind, EntryKind::System);
    assert!(abort.flags.has(EntryFlags::INTERRUPTED));
    assert!(graph.problems.is_empty(), "{:?}", graph.problems);
}

#[test]
fn copilot_cli_tokens_sum_by_hand() {
    let (corpus, graph) = load(COPILOT);
    // The shutdown's modelMetrics, (inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens):
    // gpt-5.2 (52000, 450, 40000, 0) over 4 messages of 120, 90, 150 and 60 output tokens;
    // claude-haiku-4.5 (9000, 70, 6000, 2000) over 2 of 40 and 25. inputTokens counts the cache:
    // uncached input 52000 - 40000 = 12000 and 9000 - 6000 - 2000 = 1000. Each message keeps its
    // output; the rest (450 - 420 = 30, 70 - 65 = 5, input and cache) is split evenly, the
    // remainder on the last.
    let each: Vec<_> = corpus.responses.iter().map(|r| (corpus.sym(r.model), totals(&r.usage))).collect();
    assert_eq!(
        each,
        [
            ("gpt-5.2", (3000, 120 + 7, 0, 10000)),
            ("gpt-5.2", (3000, 90 + 7, 0, 10000)),
            ("claude-haiku-4.5", (500, 40 + 2, 1000, 3000)),
            ("claude-haiku-4.5", (500, 25 + 3, 1000, 3000)),
            ("gpt-5.2", (3000, 150 + 7, 0, 10000)),
            ("gpt-5.2", (3000, 60 + 9, 0, 10000)),
        ]
    );
    // Nothing counted twice: the totals are the shutdown's, per conversation as per model.
    let session = &graph.sessions[0];
    assert_eq!(totals(&session.usage_with_agents), (12000 + 1000, 450 + 70, 2000, 40000 + 6000));
    assert_eq!(totals(&session.usage), (12000, 450, 0, 40000));
    let agent = graph.conversations.iter().find(|c| c.kind == ConversationKind::Agent).unwrap();
    assert_eq!(totals(&agent.usage), (1000, 70, 2000, 6000));
    // No cost is logged; the table prices the tokens, per million: gpt-5.2 $1.75 in, $0.175
    // cached, $14 out; claude-haiku-4.5 (with dots, as Copilot names it) $1 in, $5 out, $1.25
    // cache write, $0.10 cache read.
    let gpt = (12000.0 * 1.75 + 40000.0 * 0.175 + 450.0 * 14.0) / 1e6;
    let haiku = (1000.0 * 1.0 + 70.0 * 5.0 + 2000.0 * 1.25 + 6000.0 * 0.1) / 1e6;
    assert!((session.cost_with_agents_usd - (gpt + haiku)).abs() < 1e-9, "{}", session.cost_with_agents_usd);
    assert!(session.unknown_models.is_empty(), "{:?}", session.unknown_models);
}

#[test]
fn copilot_cli_usage_reports_compactions_titles_errors_and_user_tools() {
    // Per-call usage (assistant.usage, compaction tokens) replaces the shutdown's share; a
    // subagent whose agentId is not its call id; a title; an error; a tool the user ran; an
    // event without parentId (file order).
    let text = concat!(
        "{\"type\":\"session.start\",\"data\":{\"sessionId\":\"s-9\",\"producer\":\"copilot-agent\",\"copilotVersion\":\"1.0.50\",\"selectedModel\":\"gpt-5.2\",\"context\":{\"cwd\":\"/p\"}},\"id\":\"a1\",\"timestamp\":\"2026-04-01T10:00:00Z\",\"parentId\":null}\n",
        "{\"type\":\"user.message\",\"data\":{\"content\":\"tidy up\"},\"id\":\"a2\",\"timestamp\":\"2026-04-01T10:00:01Z\",\"parentId\":\"a1\"}\n",
        "{\"type\":\"assistant.message\",\"data\":{\"messageId\":\"m1\",\"content\":\"\",\"toolRequests\":[{\"toolCallId\":\"t1\",\"name\":\"task\",\"arguments\":{\"agent_type\":\"general-purpose\",\"description\":\"Tidy\",\"prompt\":\"tidy\"}}],\"outputTokens\":10},\"id\":\"a3\",\"timestamp\":\"2026-04-01T10:00:02Z\",\"parentId\":\"a2\"}\n",
        "{\"type\":\"assistant.usage\",\"data\":{\"model\":\"gpt-5.2\",\"inputTokens\":1000,\"outputTokens\":10,\"cacheReadTokens\":600,\"cacheWriteTokens\":100},\"id\":\"a4\",\"timestamp\":\"2026-04-01T10:00:02Z\",\"parentId\":\"a3\",\"ephemeral\":true}\n",
        "{\"type\":\"subagent.started\",\"data\":{\"toolCallId\":\"t1\",\"agentName\":\"general-purpose\"},\"id\":\"a5\",\"timestamp\":\"2026-04-01T10:00:03Z\",\"parentId\":\"a4\",\"agentId\":\"agent-1\"}\n",
        "{\"type\":\"assistant.message\",\"data\":{\"messageId\":\"m2\",\"model\":\"claude-haiku-4.5\",\"content\":\"done\",\"outputTokens\":5},\"id\":\"a6\",\"timestamp\":\"2026-04-01T10:00:04Z\",\"parentId\":\"a5\",\"agentId\":\"agent-1\"}\n",
        "{\"type\":\"subagent.failed\",\"data\":{\"toolCallId\":\"t1\",\"error\":\"boom\"},\"id\":\"a7\",\"timestamp\":\"2026-04-01T10:00:05Z\",\"parentId\":\"a6\",\"agentId\":\"agent-1\"}\n",
        "{\"type\":\"tool.execution_complete\",\"data\":{\"toolCallId\":\"t1\",\"error\":\"subagent failed: boom\"},\"id\":\"a8\",\"timestamp\":\"2026-04-01T10:00:06Z\",\"parentId\":\"a7\"}\n",
        "{\"type\":\"session.title_changed\",\"data\":{\"title\":\"Tidying up\"},\"id\":\"a9\",\"timestamp\":\"2026-04-01T10:00:07Z\",\"parentId\":\"a8\"}\n",
        "{\"type\":\"session.compaction_complete\",\"data\":{\"success\":true,\"summaryContent\":\"The user asked to tidy up; a subagent failed.\",\"compactionTokensUsed\":{\"model\":\"gpt-5.2\",\"inputTokens\":500,\"outputTokens\":50,\"cacheReadTokens\":0,\"cacheWriteTokens\":0}},\"id\":\"a10\",\"timestamp\":\"2026-04-01T10:00:08Z\",\"parentId\":\"a9\"}\n",
        "{\"type\":\"tool.user_requested\",\"data\":{\"toolCallId\":\"u1\",\"toolName\":\"bash\",\"arguments\":{\"command\":\"git status\"}},\"id\":\"a11\",\"timestamp\":\"2026-04-01T10:00:09Z\",\"parentId\":\"a10\"}\n",
        "{\"type\":\"tool.execution_complete\",\"data\":{\"toolCallId\":\"u1\",\"success\":true,\"result\":{\"content\":\"clean\"}},\"id\":\"a12\",\"timestamp\":\"2026-04-01T10:00:10Z\"}\n",
        "{\"type\":\"session.error\",\"data\":{\"errorType\":\"rate_limit\",\"message\":\"429 Too Many Requests\"},\"id\":\"a13\",\"timestamp\":\"2026-04-01T10:00:11Z\",\"parentId\":\"a12\"}\n",
        "{\"type\":\"session.shutdown\",\"data\":{\"modelMetrics\":{\"gpt-5.2\":{\"usage\":{\"inputTokens\":3500,\"outputTokens\":100,\"cacheReadTokens\":600,\"cacheWriteTokens\":100}},\"claude-haiku-4.5\":{\"usage\":{\"inputTokens\":200,\"outputTokens\":5}}}},\"id\":\"a14\",\"timestamp\":\"2026-04-01T10:00:12Z\",\"parentId\":\"a13\"}\n",
    );
    let corpus = load_one("session-state/s-9/events.jsonl", text.as_bytes());
    assert_eq!(corpus.files[0].format, Format::CopilotCli);
    assert!(corpus.diagnostics.is_empty(), "{:?}", corpus.diagnostics);
    let counts = corpus.files[0].counts;
    assert_eq!((counts.lines, counts.entries, counts.metadata), (14, 8, 6));
    let graph = Graph::build(&corpus);
    let session = &graph.sessions[0];
    assert_eq!(session.id, "s-9");
    assert_eq!(session.title, "Tidying up", "the title_changed");
    assert_eq!(corpus.sym(entry_at(&corpus, 3).model), "gpt-5.2", "the selected model");

    // The subagent's agentId is not its call id: subagent.started names the call.
    let agent = graph.conversations.iter().find(|c| c.kind == ConversationKind::Agent).expect("a subagent");
    assert_eq!(agent.linked_by, Some(LinkRule::ParentToolUseId));
    assert_eq!(agent.agent_type, "general-purpose");
    assert_eq!(corpus.entry_parent_uuid(entry_at(&corpus, 6)), Some("a3"));
    assert_eq!(corpus.entry_parent_uuid(entry_at(&corpus, 12)), Some("a11"), "no parentId: file order");

    assert!(entry_at(&corpus, 10).flags.has(EntryFlags::COMPACT_SUMMARY));
    assert_eq!(graph.compactions.len(), 1);
    assert!(entry_at(&corpus, 13).flags.has(EntryFlags::ERROR));
    assert_eq!(corpus.first_text(entry_at(&corpus, 13)).as_deref(), Some("429 Too Many Requests"));
    assert_eq!(
        ops(&corpus, &graph),
        [
            ("task".to_owned(), ToolCategory::Agent, ToolStatus::Error),
            ("bash".to_owned(), ToolCategory::Execute, ToolStatus::Ok),
        ]
    );
    // No `success`, an error and no result: an error.
    assert_eq!(block_text(&corpus, entry_at(&corpus, 8), BlockKind::ToolResult), "subagent failed: boom");

    // gpt-5.2: the message's usage report (300 uncached + 600 read + 100 written in, 10 out) and
    // the compaction call (500, 50) are its own; the shutdown's rest (3500 - 600 - 100 = 2800
    // uncached, less 300 and 500: 2000 in; 100 - 10 - 50 = 40 out) has no response left to share
    // it and gets one of its own. Haiku: 200 in, 5 out on its message.
    let each: Vec<_> = corpus.responses.iter().map(|r| (corpus.sym(r.model), totals(&r.usage))).collect();
    assert_eq!(
        each,
        [
            ("gpt-5.2", (300, 10, 100, 600)),
            ("claude-haiku-4.5", (200, 5, 0, 0)),
            ("gpt-5.2", (500, 50, 0, 0)),
            ("gpt-5.2", (2000, 40, 0, 0)),
        ]
    );
    assert_eq!(totals(&session.usage_with_agents), (2800 + 200, 100 + 5, 100, 600));
}

#[test]
fn copilot_cli_files_are_sniffed_by_name_and_content_and_survive_garbage() {
    let format = |name: &str, bytes: &[u8]| load_one(name, bytes).files[0].format;
    let start = b"{\"type\":\"session.start\",\"data\":{\"sessionId\":\"s\",\"producer\":\"copilot-agent\"},\"id\":\"e1\",\"timestamp\":\"2026-01-01T00:00:00Z\",\"parentId\":null}\n";
    assert_eq!(format("x.jsonl", start), Format::CopilotCli);
    assert_eq!(format("session-state/s/events.jsonl", start), Format::CopilotCli);
    // An excerpt that starts later in the chain.
    let user = b"{\"type\":\"user.message\",\"data\":{\"content\":\"hi\"},\"id\":\"e2\",\"timestamp\":\"t\",\"parentId\":\"e1\"}\n";
    assert_eq!(format("x.jsonl", user), Format::CopilotCli);
    // Without its session.start, the session is named by its folder.
    let corpus = load_one("session-state/5e2f9a/events.jsonl", user);
    assert_eq!(Graph::build(&corpus).sessions[0].id, "5e2f9a");
    // A header cut short: by its name, the file is still a Copilot session whose line is broken.
    let cut = &start[..40];
    let corpus = load_one("session-state/s/events.jsonl", cut);
    assert_eq!(corpus.files[0].format, Format::CopilotCli);
    assert_eq!(corpus.diagnostics.len(), 1);
    assert_eq!(corpus.diagnostics[0].kind, DiagnosticKind::TruncatedLine);
    assert!(corpus.files[0].counts.balanced());
    // Events of another shape are not taken: no data, or Claude's keys.
    assert_eq!(format("x.jsonl", b"{\"type\":\"user.message\",\"id\":\"e\",\"parentId\":null}\n"), Format::Rejected);
    for name in [SDK, ROLLOUT, EVENTS, OLLAMA, PI, PI_LEGACY, AIDER] {
        assert_ne!(load(name).0.files[0].format, Format::CopilotCli, "{name}");
    }
    // Garbage between events, data of the wrong shape, a cut last line: no panic, every line
    // accounted for.
    let mut text = String::from_utf8(format_fixture(COPILOT)).unwrap();
    text.push_str("not json\n{\"type\":\"assistant.message\",\"data\":[1],\"id\":\"z1\",\"parentId\":7}\n");
    text.push_str("{\"type\":\"tool.execution_complete\",\"data\":{\"toolCallId\":{\"x\":1},\"result\":[],\"error\":3},\"id\":\"z2\"}\n");
    text.push_str(
        "{\"type\":\"session.shutdown\",\"data\":{\"modelMetrics\":{\"m\":{\"usage\":\"lots\"}}},\"id\":\"z3\"}\n",
    );
    text.push_str("{\"type\":\"assistant.message\",\"data\":{\"content\":\"cut");
    let corpus = load_one("session-state/s/events.jsonl", text.as_bytes());
    assert_eq!(corpus.files[0].format, Format::CopilotCli);
    assert!(corpus.files[0].counts.balanced());
    assert_eq!(corpus.files[0].counts.lines, count_lines(text.as_bytes()));
    assert_eq!(corpus.files[0].counts.skipped, 2, "{:?}", corpus.diagnostics);
    let graph = Graph::build(&corpus);
    let _ = summarize(&corpus, &graph);
    // Token counts past any integer: summed without overflow.
    let huge = concat!(
        "{\"type\":\"assistant.message\",\"data\":{\"model\":\"gpt-5.2\",\"content\":\"a\",\"outputTokens\":1e30},\"id\":\"h1\"}\n",
        "{\"type\":\"assistant.message\",\"data\":{\"model\":\"gpt-5.2\",\"content\":\"b\",\"outputTokens\":1e30},\"id\":\"h2\"}\n",
        "{\"type\":\"assistant.usage\",\"data\":{\"model\":\"gpt-5.2\",\"inputTokens\":1e30,\"outputTokens\":1e30,\"cacheReadTokens\":1e30}}\n",
        "{\"type\":\"session.shutdown\",\"data\":{\"modelMetrics\":{\"gpt-5.2\":{\"usage\":{\"inputTokens\":1e30,\"outputTokens\":1e30,\"cacheWriteTokens\":1e30}}}}}\n",
    );
    let corpus = load_one("session-state/s/events.jsonl", huge.as_bytes());
    assert_eq!(corpus.files[0].counts.entries, 2);
    let graph = Graph::build(&corpus);
    let _ = summarize(&corpus, &graph);
    let rows = sessionscope_engine::history::session_rows(&corpus, &graph, "");
    let _ = rows.iter().map(|r| r.tokens()).collect::<Vec<_>>();
    let _ = sessionscope_engine::history::Totals::of(&[rows.clone(), rows].concat());
}

#[test]
fn real_copilot_cli_session_reads_as_its_events_say() {
    let Some(real) = real_fixtures("real_copilot_cli_session_reads_as_its_events_say") else { return };
    let Some((_, dir)) = real.every_folder().into_iter().find(|(name, _)| name == "copilot-cli") else {
        panic!("the real fixtures have no copilot-cli folder")
    };
    let name = "copilot-session-viewer-session-demo-subagent.events.jsonl";
    let bytes = std::fs::read(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    // Read in place, as the CLI lays it out.
    let corpus = load_one("session-state/030f200c-c26f-4ef0-9099-6d1156c83631/events.jsonl", &bytes);
    assert_eq!(corpus.files[0].format, Format::CopilotCli);
    assert!(corpus.diagnostics.is_empty(), "{:?}", corpus.diagnostics);
    // Counted in the file with python: 34 events; 12 entries (system message, user message, 5
    // assistant messages, 5 tool.execution_complete); 22 metadata events.
    let counts = corpus.files[0].counts;
    assert!(counts.balanced(), "{counts:?}");
    assert_eq!((counts.lines, counts.entries, counts.metadata), (34, 12, 22));
    let graph = Graph::build(&corpus);
    assert_eq!(graph.sessions.len(), 1);
    let session = &graph.sessions[0];
    assert_eq!(session.id, "030f200c-c26f-4ef0-9099-6d1156c83631");
    assert_eq!(corpus.sym(corpus.envelope(&corpus.entries[0]).cwd), "/Users/testuser/workspace/demo-project");
    assert_eq!(graph.conversations.len(), 2, "the main agent and the explore subagent");
    let agent = graph.conversations.iter().find(|c| c.kind == ConversationKind::Agent).expect("a subagent");
    assert_eq!(agent.linked_by, Some(LinkRule::ParentToolUseId));
    assert_eq!(agent.agent_type, "explore");
    assert_eq!(agent.entries, 4);
    let names: Vec<(String, ToolStatus)> =
        graph.tool_ops.iter().map(|op| (corpus.sym(op.name).to_owned(), op.status)).collect();
    let ok = |name: &str| (name.to_owned(), ToolStatus::Ok);
    assert_eq!(names, [ok("view"), ok("report_intent"), ok("task"), ok("view"), ok("view")]);
    // modelMetrics: claude-opus-4.7-1m-internal (81666 in, 521 out, 54064 cache read, 27594
    // cache write), claude-haiku-4.5 (17050, 226, 13964, 3069); uncached input 8 and 17, as the
    // shutdown's tokenDetails say. The messages' outputTokens sum to the same 521 and 226.
    assert_eq!(corpus.responses.len(), 5);
    assert_eq!(totals(&session.usage_with_agents), (8 + 17, 521 + 226, 27594 + 3069, 54064 + 13964));
    assert_eq!(totals(&session.usage), (8, 521, 27594, 54064));
    assert_eq!(totals(&agent.usage), (17, 226, 3069, 13964));
    assert_eq!(corpus.blocks.iter().filter(|b| b.kind == BlockKind::Thinking).count(), 3);
    // The price table's cost is Copilot's own: the shutdown's totalNanoAiu (21255950000 for
    // Opus 4.7, 637965000 for Haiku 4.5, 21893915000 in all) is the list price in units of
    // 1e-11 dollars.
    assert!((session.cost_usd - 21255950000.0 / 1e11).abs() < 1e-9, "{}", session.cost_usd);
    assert!((session.cost_with_agents_usd - 21893915000.0 / 1e11).abs() < 1e-9, "{}", session.cost_with_agents_usd);
    assert!(graph.problems.is_empty(), "{:?}", graph.problems);
}

#[test]
fn copilot_cli_json_output_without_ids_is_chained_in_file_order() {
    // `copilot -p ... --output-format json` prints the events without id and parentId, with
    // streaming deltas, and ends with a `result` line.
    let text = concat!(
        "{\"type\":\"session.start\",\"data\":{\"sessionId\":\"copilot-ses-1\",\"selectedModel\":\"gpt-5\"}}\n",
        "{\"type\":\"assistant.turn_start\",\"data\":{}}\n",
        "{\"type\":\"assistant.message_delta\",\"data\":{\"messageId\":\"m1\",\"deltaContent\":\"ok\"}}\n",
        "{\"type\":\"assistant.message\",\"data\":{\"messageId\":\"m1\",\"content\":\"ok\",\"toolRequests\":[{\"toolCallId\":\"c1\",\"name\":\"bash\",\"arguments\":{\"command\":\"ls\"}}]}}\n",
        "{\"type\":\"assistant.usage\",\"data\":{\"model\":\"gpt-5\",\"inputTokens\":11,\"outputTokens\":5,\"cacheReadTokens\":1,\"cacheWriteTokens\":0}}\n",
        "{\"type\":\"tool.execution_complete\",\"data\":{\"toolCallId\":\"c1\",\"success\":true,\"result\":{\"content\":\"a.txt\"}}}\n",
        "{\"type\":\"result\",\"sessionId\":\"copilot-ses-1\",\"exitCode\":0}\n",
    );
    let corpus = load_one("copilot-output.jsonl", text.as_bytes());
    assert_eq!(corpus.files[0].format, Format::CopilotCli);
    assert!(corpus.diagnostics.is_empty(), "{:?}", corpus.diagnostics);
    let counts = corpus.files[0].counts;
    assert_eq!((counts.lines, counts.entries, counts.metadata), (7, 2, 5));
    let uuids: Vec<&str> = corpus.entries.iter().map(|e| corpus.entry_uuid(e)).collect();
    assert_eq!(uuids, ["copilot-output:L4", "copilot-output:L6"]);
    assert_eq!(corpus.entry_parent_uuid(entry_at(&corpus, 6)), Some("copilot-output:L4"));
    let graph = Graph::build(&corpus);
    assert_eq!(graph.sessions[0].id, "copilot-ses-1");
    assert_eq!(corpus.sym(entry_at(&corpus, 4).model), "gpt-5");
    assert_eq!(ops(&corpus, &graph), [("bash".to_owned(), ToolCategory::Execute, ToolStatus::Ok)]);
    assert_eq!(totals(&graph.sessions[0].usage_with_agents), (10, 5, 0, 1));
}

#[test]
fn copilot_cli_resumed_session_shares_each_shutdown_over_its_own_segment() {
    // Each process that resumes the session ends with its own shutdown: its totals go to the
    // responses since the shutdown before (read as per process, not cumulative).
    let text = concat!(
        "{\"type\":\"session.start\",\"data\":{\"sessionId\":\"s-r\",\"selectedModel\":\"gpt-5.2\"},\"id\":\"r1\",\"timestamp\":\"2026-04-02T10:00:00Z\",\"parentId\":null}\n",
        "{\"type\":\"user.message\",\"data\":{\"content\":\"one\"},\"id\":\"r2\",\"timestamp\":\"2026-04-02T10:00:01Z\",\"parentId\":\"r1\"}\n",
        "{\"type\":\"assistant.message\",\"data\":{\"content\":\"1\",\"outputTokens\":10},\"id\":\"r3\",\"timestamp\":\"2026-04-02T10:00:02Z\",\"parentId\":\"r2\"}\n",
        "{\"type\":\"session.shutdown\",\"data\":{\"modelMetrics\":{\"gpt-5.2\":{\"usage\":{\"inputTokens\":100,\"outputTokens\":10}}}},\"id\":\"r4\",\"timestamp\":\"2026-04-02T10:00:03Z\",\"parentId\":\"r3\"}\n",
        "{\"type\":\"session.resume\",\"data\":{\"resumeTime\":\"2026-04-02T11:00:00Z\",\"eventCount\":4},\"id\":\"r5\",\"timestamp\":\"2026-04-02T11:00:00Z\",\"parentId\":\"r4\"}\n",
        "{\"type\":\"user.message\",\"data\":{\"content\":\"two\"},\"id\":\"r6\",\"timestamp\":\"2026-04-02T11:00:01Z\",\"parentId\":\"r5\"}\n",
        "{\"type\":\"assistant.message\",\"data\":{\"content\":\"2\",\"outputTokens\":20},\"id\":\"r7\",\"timestamp\":\"2026-04-02T11:00:02Z\",\"parentId\":\"r6\"}\n",
        "{\"type\":\"session.shutdown\",\"data\":{\"modelMetrics\":{\"gpt-5.2\":{\"usage\":{\"inputTokens\":300,\"outputTokens\":20}}}},\"id\":\"r8\",\"timestamp\":\"2026-04-02T11:00:03Z\",\"parentId\":\"r7\"}\n",
    );
    let corpus = load_one("s-r.jsonl", text.as_bytes());
    assert_eq!(corpus.files[0].format, Format::CopilotCli);
    assert_eq!(corpus.entry_parent_uuid(entry_at(&corpus, 6)), Some("r3"), "past the shutdown and the resume");
    let each: Vec<_> = corpus.responses.iter().map(|r| totals(&r.usage)).collect();
    assert_eq!(each, [(100, 10, 0, 0), (300, 20, 0, 0)]);
    let graph = Graph::build(&corpus);
    assert_eq!(totals(&graph.sessions[0].usage_with_agents), (400, 30, 0, 0));
}

/// The text of an entry's string content.
fn content_text(corpus: &Corpus, entry: &Entry) -> String {
    corpus.span_text(entry.file, entry.content).into_owned()
}

#[test]
fn aider_history_runs_are_sessions() {
    let bytes = format_fixture(AIDER);
    let (corpus, graph) = load(AIDER);
    assert_eq!(corpus.files[0].format, Format::Aider);
    assert_eq!(corpus.files[0].format.label(), "Aider chat history");
    assert_accounted(&corpus, &bytes);
    let counts = corpus.files[0].counts;
    // 129 lines: 35 blank (markdown spacing, ignored without a diagnostic), every other line part
    // of an entry.
    assert_eq!((counts.lines, counts.entries, counts.metadata, counts.ignored), (129, 94, 0, 35));
    assert!(corpus.diagnostics.is_empty(), "{:?}", corpus.diagnostics);

    // Three runs, three sessions: `<file>#<start>`, the second run of the same second told apart
    // by its line. Each starts at its header, the only entry with a time.
    let ids: Vec<&str> = graph.sessions.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "demo.aider.chat.history.md#2025-06-01T09:00:00",
            "demo.aider.chat.history.md#2025-06-01T10:15:30",
            "demo.aider.chat.history.md#2025-06-01T10:15:30#L107"
        ]
    );
    let start = sessionscope_engine::json::parse_timestamp_ms("2025-06-01T10:15:30Z").unwrap();
    assert_eq!(graph.sessions[1].first_timestamp_ms, start);
    assert_eq!(entry_at(&corpus, 11).timestamp_ms, start);
    assert!(corpus.entries.iter().filter(|e| e.has_timestamp()).all(|e| corpus.sym(e.type_name) == "aider-start"));
    let entries: Vec<u32> = graph.sessions.iter().map(|s| s.entries).collect();
    assert_eq!(entries, [2, 19, 9]);
    assert_eq!(graph.conversations.len(), 3, "one thread per run");
    for (s, session) in graph.sessions.iter().enumerate() {
        let first = &corpus.entries[graph.conversations[session.main.index()].roots[0].index()];
        assert_eq!(corpus.sym(first.type_name), "aider-start", "run {s} starts at its header");
    }
    // The run without a conversation: its header and aider's output, which Ctrl-C ended.
    assert_eq!(graph.sessions[0].title, "");
    let quit = entry_at(&corpus, 4);
    assert_eq!(quit.kind, EntryKind::System);
    assert!(quit.flags.has(EntryFlags::INTERRUPTED) && quit.flags.has(EntryFlags::META));
    assert_eq!(
        content_text(&corpus, quit),
        "Aider v0.86.1\nMain model: anthropic/claude-sonnet-4-5 with diff edit format\nGit repo: .git with 12 files\n\n\n^C KeyboardInterrupt"
    );

    // Input of two lines is one message; `<blank>` is an empty one.
    assert_eq!(graph.sessions[1].title, "Add a --json flag to `brewlog list`.");
    let prompt = entry_at(&corpus, 21);
    assert_eq!(prompt.kind, EntryKind::User);
    assert_eq!(
        content_text(&corpus, prompt),
        "Add a --json flag to `brewlog list`.\nKeep the table output as the default."
    );
    assert_eq!(content_text(&corpus, entry_at(&corpus, 60)), "");
    assert_eq!(graph.sessions[2].title, "/ask what does `brewlog` do?");

    // The reply: text around two SEARCH/REPLACE blocks, each an Edit call with Claude Code's input.
    let reply = entry_at(&corpus, 26);
    assert_eq!(reply.kind, EntryKind::Assistant);
    assert_eq!(corpus.sym(reply.model), "anthropic/claude-sonnet-4-5");
    let kinds: Vec<BlockKind> = corpus.blocks_of(reply).iter().map(|b| b.kind).collect();
    assert_eq!(kinds, [BlockKind::Text, BlockKind::ToolUse, BlockKind::Text, BlockKind::ToolUse]);
    let texts: Vec<String> = corpus
        .blocks_of(reply)
        .iter()
        .filter(|b| b.kind == BlockKind::Text)
        .map(|b| corpus.span_text(reply.file, b.body).into_owned())
        .collect();
    assert_eq!(texts, ["I'll add the flag and document it.", "And the README:"]);
    let inputs: Vec<serde_json::Value> = corpus
        .blocks_of(reply)
        .iter()
        .filter(|b| b.kind == BlockKind::ToolUse)
        .map(|b| serde_json::from_slice(corpus.span_bytes(reply.file, b.body)).unwrap())
        .collect();
    assert_eq!(
        inputs[0],
        serde_json::json!({
            "file_path": "src/cli.py",
            "old_string": "def list_brews(args):\n\n    print_table(load())",
            "new_string": "def list_brews(args):\n\n    if args.json:\n        print(json.dumps(load()))\n    else:\n        print_table(load())",
        }),
        "blank lines inside a block are kept"
    );
    assert_eq!(
        inputs[1],
        serde_json::json!({
            "file_path": "README.md",
            "old_string": "",
            "new_string": "Use `brewlog list --json` for machine-readable output.",
        })
    );

    // `Applied edit to` answers the edits of its file (a Windows path too); `The LLM did not
    // conform` fails the waiting ones.
    assert_eq!(
        ops(&corpus, &graph),
        [
            ("Edit".to_owned(), ToolCategory::Edit, ToolStatus::Ok),
            ("Edit".to_owned(), ToolCategory::Edit, ToolStatus::Ok),
            ("Edit".to_owned(), ToolCategory::Edit, ToolStatus::Error),
            ("Write".to_owned(), ToolCategory::Edit, ToolStatus::Ok),
        ]
    );
    assert_eq!(tools::op_summary(&corpus, &graph.tool_ops[0]), "src/cli.py +4 -1");
    let files: Vec<String> = graph.tool_ops.iter().flat_map(|op| tools::op_files(&corpus, op)).map(|f| f.0).collect();
    assert_eq!(files, ["src/cli.py", "README.md", "src/store.py", "src/version.py"]);
    assert!(graph.problems.is_empty(), "{:?}", graph.problems);

    // A reply's thinking; `#### ` and `> ` lines inside its code fence stay its own.
    let thought = entry_at(&corpus, 62);
    assert_eq!(block_text(&corpus, thought, BlockKind::Thinking), "The user sent an empty message.");
    assert!(
        block_text(&corpus, thought, BlockKind::Text)
            .ends_with("```markdown\n#### not an input\n> not aider's output\n```")
    );

    // Aider's message of several lines (`> ` on its first line only) is one error notice, and the
    // reply after it is a reply.
    let failure = entry_at(&corpus, 90);
    assert!(failure.flags.has(EntryFlags::ERROR));
    let text = content_text(&corpus, failure);
    assert!(text.contains("\n# 1 SEARCH/REPLACE block failed to match!\n\n## SearchReplaceNoExactMatch"), "{text}");
    assert!(text.ends_with("including all white space"), "{text}");
    assert_eq!(entry_at(&corpus, 102).kind, EntryKind::Assistant);
    assert!(entry_at(&corpus, 104).flags.has(EntryFlags::ERROR), "litellm's error");

    // The version from the banner, no working directory (the project is the file's folder);
    // the model of the third run.
    let envelope = corpus.envelope(reply);
    assert_eq!(corpus.sym(envelope.cwd), "");
    assert_eq!(corpus.sym(envelope.version), "0.86.1");
    assert_eq!(corpus.sym(entry_at(&corpus, 114).model), "ollama_chat/qwen3:8b");

    // The third run's edit format is `whole`: a path line and a fenced block write the file.
    let whole = entry_at(&corpus, 120);
    let write = corpus.blocks_of(whole).iter().find(|b| b.kind == BlockKind::ToolUse).expect("a call");
    let input: serde_json::Value = serde_json::from_slice(corpus.span_bytes(whole.file, write.body)).unwrap();
    assert_eq!(
        input,
        serde_json::json!({"file_path": "src/version.py", "content": "VERSION = \"0.2.0\"\n\ndef version():\n    return VERSION"})
    );
    assert!(corpus.blocks_of(whole).iter().all(|b| b.kind == BlockKind::ToolUse), "no text around it");
}

#[test]
fn aider_tokens_and_cost_sum_by_hand() {
    let (corpus, graph) = load(AIDER);
    // (sent less the cached part, received, cache write, cache hit) of the token reports, and the
    // message costs: 6.9k sent of which 1.2k written to the cache and 4.5k read from it.
    let reports =
        [(6900 - 1200 - 4500, 345, 1200, 4500), (12000, 87, 0, 0), (1500, 40, 0, 0), (900, 25, 0, 0), (1100, 60, 0, 0)];
    let with_usage: Vec<_> = corpus
        .responses
        .iter()
        .filter(|r| r.has_usage)
        .map(|r| {
            let u = &r.usage;
            (u.input_tokens, u.output_tokens, u.cache_creation_input_tokens, u.cache_read_input_tokens)
        })
        .collect();
    assert_eq!(with_usage, reports);
    assert_eq!(corpus.responses.len(), 6, "every reply is a response; one has no token report");
    let logged: Vec<Option<f64>> = corpus.responses.iter().map(|r| r.logged_cost_usd).collect();
    assert_eq!(logged, [Some(0.02), Some(0.0031), Some(0.0051), None, None, None]);
    let run = &graph.sessions[1];
    assert_eq!(totals(&run.usage_with_agents), (1200 + 12000 + 1500, 345 + 87 + 40, 1200, 4500));
    assert!((run.cost_with_agents_usd - (0.02 + 0.0031 + 0.0051)).abs() < 1e-9, "{}", run.cost_with_agents_usd);
    // The reply after the failure has no report: no usage, and no price.
    let late = &corpus.responses[3];
    assert!(!late.has_usage);
    assert_eq!(totals(&graph.sessions[2].usage_with_agents), (900 + 1100, 25 + 60, 0, 0));
}

#[test]
fn aider_histories_are_sniffed_by_name_and_first_line() {
    let format = |name: &str, bytes: &[u8]| load_one(name, bytes).files[0].format;
    let run = b"\n# aider chat started at 2025-06-01 09:00:00\n\n#### hi  \n\nHello.\n";
    assert_eq!(format(".aider.chat.history.md", run), Format::Aider);
    assert_eq!(format("proj.aider.chat.history.md", run), Format::Aider);
    assert_eq!(format("copied-notes.md", run), Format::Aider, "the first line says it");
    // Named like one but not one: not read, and said why.
    let corpus = load_one(".aider.chat.history.md", b"# My notes\n\n# aider chat started at 2025-06-01 09:00:00\n");
    assert_eq!(corpus.files[0].format, Format::Rejected);
    assert!(corpus.diagnostics[0].message.contains("named like an Aider chat history"), "{:?}", corpus.diagnostics);
    assert!(corpus.files[0].counts.balanced());
    // Other markdown, and the other fixtures, are not Aider's.
    assert_eq!(format("README.md", b"# aider\n\nA tool.\n"), Format::Rejected);
    for name in [SDK, ROLLOUT, EVENTS, OLLAMA, PI, PI_LEGACY, COPILOT] {
        assert_ne!(load(name).0.files[0].format, Format::Aider, "{name}");
    }
    // An empty one is read as empty, not as an error.
    let empty = load_one(".aider.chat.history.md", b"");
    assert_eq!(empty.diagnostics[0].kind, DiagnosticKind::EmptyFile);
    // The folder filter takes the name.
    use sessionscope_engine::import::names::looks_like_a_log;
    assert!(looks_like_a_log("proj/.aider.chat.history.md"));
    assert!(looks_like_a_log("proj/old.aider.chat.history.md"));
    assert!(!looks_like_a_log("proj/README.md"));
}

#[test]
fn aider_histories_cut_anywhere_or_with_garbage_never_panic() {
    let bytes = format_fixture(AIDER);
    // Cut at every byte: every line accounted for, the runs so far read.
    for cut in 0..bytes.len() {
        let piece = &bytes[..cut];
        let corpus = load_one(AIDER, piece);
        assert!(corpus.files[0].counts.balanced(), "cut at {cut}");
        assert_eq!(corpus.files[0].counts.lines, count_lines(piece), "cut at {cut}");
        let graph = Graph::build(&corpus);
        for op in &graph.tool_ops {
            let _ = tools::op_summary(&corpus, op);
        }
    }
    // Garbage between the records: unterminated blocks, stray markers, binary-ish text, a header
    // without a time, CRLF line ends.
    let garbage = concat!(
        "# aider chat started at 2025-06-01 09:00:00\r\n",
        "#### edit it  \r\n",
        "src/a.rs\r\n",
        "<<<<<<< SEARCH\r\n",
        "fn a() {}\r\n",
        "=======\r\n",
        "> Tokens: k sent, ?? received. Cost: $x message\r\n",
        ">>>>>>> REPLACE\r\n",
        "=======\r\n",
        "<<<<<<< SEARCH\r\n",
        "> Applied edit to nothing\r\n",
        "> The LLM did not conform to the edit format.\r\n",
        "\u{7}\u{1}\u{fffd} ````\r\n",
        "# aider chat started at\r\n",
        "> \r\n",
        "####\r\n",
        "> Tokens: 1.2k sent, 3 received.\r\n",
    );
    let corpus = load_one(AIDER, garbage.as_bytes());
    assert_eq!(corpus.files[0].format, Format::Aider);
    assert!(corpus.files[0].counts.balanced());
    assert_eq!(corpus.files[0].counts.lines, 17);
    let graph = Graph::build(&corpus);
    assert_eq!(graph.sessions.len(), 2);
    assert_eq!(graph.sessions[1].id, "demo.aider.chat.history.md#L14", "a header without a time");
    assert!(graph.tool_ops.is_empty(), "a block cut short is text, not an edit");
    let usage: Vec<(u64, u64)> =
        corpus.responses.iter().map(|r| (r.usage.input_tokens, r.usage.output_tokens)).collect();
    assert_eq!(usage, [(0, 0)], "an unreadable report gives nothing; the second run's has no reply");
}

#[test]
fn real_aider_histories_read_as_their_lines_say() {
    let Some(real) = real_fixtures("real_aider_histories_read_as_their_lines_say") else { return };
    let Some((_, dir)) = real.every_folder().into_iter().find(|(name, _)| name == "aider") else {
        panic!("the real fixtures have no aider folder")
    };
    // Counted in the files with grep: lines; blank lines; `# aider chat started at` lines (the
    // sessions); `#### ` inputs (consecutive lines one message); `> Tokens:` reports; SEARCH
    // blocks outside Aider's failure reports (the edits); `> Applied edit to` lines and `did not
    // conform` lines; runs with no input.
    let cases = [
        ("monochromatic.aider.chat.history.md", (3732, 483), 19, 63, 39, 49 - 7, (20, 7), 6),
        ("zen-mcp-server.aider.chat.history.md", (116, 16), 4, 25, 0, 0, (0, 0), 2),
    ];
    for (name, (lines, blank), runs, input_lines, reports, edits, (applied, failed), silent) in cases {
        let bytes = std::fs::read(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        let corpus = load_one(name, &bytes);
        assert_eq!(corpus.files[0].format, Format::Aider, "{name}");
        assert!(corpus.diagnostics.is_empty(), "{name}: {:?}", corpus.diagnostics);
        let counts = corpus.files[0].counts;
        assert!(counts.balanced(), "{name}: {counts:?}");
        assert_eq!((counts.lines, counts.ignored, counts.entries), (lines, blank, lines - blank), "{name}");
        let types: std::collections::HashMap<&str, u64> =
            corpus.type_counts.iter().map(|(sym, n)| (corpus.sym(*sym), *n)).collect();
        assert_eq!(types.get("header"), Some(&(runs as u64)), "{name}");
        assert_eq!(types.get("input").copied().unwrap_or(0), input_lines, "{name}");
        let graph = Graph::build(&corpus);
        assert_eq!(graph.sessions.len(), runs, "{name}");
        assert_eq!(graph.conversations.len(), runs, "{name}");
        assert_eq!(corpus.responses.iter().filter(|r| r.has_usage).count(), reports, "{name}");
        assert_eq!(graph.tool_ops.len(), edits, "{name}");
        let status = |s: ToolStatus| graph.tool_ops.iter().filter(|op| op.status == s).count();
        let answered: usize = corpus
            .entries
            .iter()
            .filter(|e| matches!(corpus.sym(e.type_name), "aider-edit-applied" | "aider-edit-failed"))
            .count();
        assert_eq!(answered, applied + failed, "{name}");
        assert_eq!(status(ToolStatus::Ok) + status(ToolStatus::Error) + status(ToolStatus::NoResult), edits);
        assert_eq!(status(ToolStatus::ResultWithoutCall), 0, "{name}");
        let without_prompt = graph.sessions.iter().filter(|s| s.first_prompt.is_none()).count();
        assert_eq!(without_prompt, silent, "{name}: runs with no input are sessions too");
        let rows = sessionscope_engine::history::index_unit(&corpus, &graph, "projects/demo");
        assert_eq!(rows.rows.len(), runs, "{name}");
        assert!(rows.rows.iter().all(|r| r.agent == "Aider"), "{name}");
        assert!(rows.problems.is_empty(), "{name}: {:?}", rows.problems);
    }
}

#[test]
fn gemini_cli_session_document() {
    let bytes = format_fixture(GEMINI);
    let (corpus, graph) = load(GEMINI);
    assert_eq!(corpus.files[0].format.name(), "gemini-cli");
    assert_accounted(&corpus, &bytes);
    assert!(corpus.diagnostics.is_empty(), "{:?}", corpus.diagnostics);
    let counts = corpus.files[0].counts;
    // 223 lines, one JSON object: the 6 lines before the first message and the 4 after the last
    // are metadata; each of the 8 messages holds its lines up to the next one.
    assert_eq!((counts.lines, counts.entries, counts.metadata), (223, 213, 10));

    let session = &graph.sessions[0];
    let id = "7c2e9a41-5b3d-4f8e-a6c1-2d9b0e4f7a35";
    assert_eq!(session.id, id);
    assert_eq!(session.title, "Add a verbose flag to the CLI", "the summary");
    // Messages at the line of their `{`, in file order; each response's results follow it.
    let kinds: Vec<(u32, EntryKind)> = corpus.entries.iter().map(|e| (e.line, e.kind)).collect();
    assert_eq!(
        kinds,
        [
            (7, EntryKind::System),
            (13, EntryKind::User),
            (19, EntryKind::Assistant),
            (19, EntryKind::User),
            (67, EntryKind::Assistant),
            (67, EntryKind::User),
            (136, EntryKind::System),
            (142, EntryKind::User),
            (152, EntryKind::Assistant),
            (152, EntryKind::User),
            (204, EntryKind::Assistant),
        ]
    );
    assert_eq!(corpus.entry_uuid(entry_at(&corpus, 13)), format!("{id}:m-user-1"));
    assert_eq!(corpus.entry_parent_uuid(entry_at(&corpus, 13)), Some(format!("{id}:m-info-1").as_str()));
    let results = entries_at(&corpus, 67)[1];
    assert_eq!(corpus.entry_uuid(results), format!("{id}:m-gem-2:results"));
    assert_eq!(corpus.entry_parent_uuid(entry_at(&corpus, 136)), Some(format!("{id}:m-gem-2:results").as_str()));
    assert_eq!(graph.conversations.len(), 1);
    assert_eq!(
        corpus.first_text(entry_at(&corpus, 13)).as_deref(),
        Some("Add a --verbose flag to the CLI in src/main.py.")
    );
    assert_eq!(corpus.first_text(entry_at(&corpus, 142)).as_deref(), Some("try again, inside the workspace"));
    // info and error are the CLI's notices; an error is an API error.
    let info = entry_at(&corpus, 7);
    assert_eq!((corpus.sym(info.subtype), info.flags.has(EntryFlags::META)), ("info", true));
    assert!(entry_at(&corpus, 136).flags.has(EntryFlags::API_ERROR));
    // Thoughts are thinking, subject first; the model is the message's.
    assert_eq!(
        block_text(&corpus, entry_at(&corpus, 19), BlockKind::Thinking),
        "Finding the CLI\nThe argument parser is probably in src/main.py."
    );
    assert_eq!(block_text(&corpus, entry_at(&corpus, 19), BlockKind::Text), "I'll read the entry point first.");
    assert_eq!(corpus.sym(entry_at(&corpus, 204).model), "gemini-2.5-flash");

    // Calls pair with their results by id; status error is an error.
    assert_eq!(
        ops(&corpus, &graph),
        [
            ("read_file".to_owned(), ToolCategory::Read, ToolStatus::Ok),
            ("replace".to_owned(), ToolCategory::Edit, ToolStatus::Error),
            ("run_shell_command".to_owned(), ToolCategory::Execute, ToolStatus::Ok),
            ("write_file".to_owned(), ToolCategory::Edit, ToolStatus::Ok),
        ]
    );
    let shell = entries_at(&corpus, 67)[1];
    let outputs: Vec<String> =
        corpus.blocks_of(shell).iter().map(|b| corpus.span_text(shell.file, b.body).into_owned()).collect();
    assert_eq!(
        outputs,
        ["File path must be within the workspace.", "Command: python -m pytest -q\nStdout: 3 passed\nExit Code: 0"],
        "a function response's error or output"
    );
    assert_eq!(tools::op_summary(&corpus, op_named(&corpus, &graph, "run_shell_command")[0]), "python -m pytest -q");
    assert_eq!(tools::op_summary(&corpus, op_named(&corpus, &graph, "replace")[0]), "/home/dev/cli/src/main.py +1 -0");
    assert_eq!(tools::op_summary(&corpus, op_named(&corpus, &graph, "write_file")[0]), "src/main.py +3");
    let read = op_named(&corpus, &graph, "read_file")[0];
    assert_eq!(tools::op_files(&corpus, read), [("src/main.py".to_owned(), tools::Touch::Read)]);
    let write = op_named(&corpus, &graph, "write_file")[0];
    assert_eq!(tools::op_files(&corpus, write), [("src/main.py".to_owned(), tools::Touch::Write)]);
    assert!(graph.problems.is_empty(), "{:?}", graph.problems);
    // No working directory: the log only has a hash of it.
    assert!(corpus.entries.iter().all(|e| corpus.envelope(e).cwd.is_none()));
}

#[test]
fn gemini_cli_tokens_sum_by_hand() {
    let (corpus, graph) = load(GEMINI);
    // (input - cached + tool, output + thoughts, 0, cached) of the four responses, from the fixture's
    // tokens {input, output, cached, thoughts, tool}.
    let responses = [
        (2400, 40 + 120, 0, 0),
        (3100 - 2048, 60 + 30, 0, 2048),
        (3500 - 3000 + 5, 70 + 10, 0, 3000),
        (3700 - 3400, 15, 0, 3400),
    ];
    let each: Vec<_> = corpus.responses.iter().map(|r| totals(&r.usage)).collect();
    assert_eq!(each, responses);
    let sum = responses.iter().fold((0, 0, 0, 0), |a, r| (a.0 + r.0, a.1 + r.1, a.2 + r.2, a.3 + r.3));
    assert_eq!(sum, (4257, 345, 0, 8448));
    assert_eq!(totals(&graph.sessions[0].usage_with_agents), sum);
    let models: Vec<&str> = corpus.responses.iter().map(|r| corpus.sym(r.model)).collect();
    assert_eq!(models, ["gemini-2.5-pro", "gemini-2.5-pro", "gemini-2.5-pro", "gemini-2.5-flash"]);
}

#[test]
fn gemini_cli_json_lines_read_the_last_version_of_each_message() {
    let bytes = format_fixture(GEMINI_LINES);
    let (corpus, graph) = load(GEMINI_LINES);
    assert_eq!(corpus.files[0].format, Format::GeminiCli);
    assert_accounted(&corpus, &bytes);
    assert!(corpus.diagnostics.is_empty(), "{:?}", corpus.diagnostics);
    let counts = corpus.files[0].counts;
    // 14 lines: 7 messages; the metadata line, three $set and a $rewindTo; g1 is written three
    // times (then its tokens, then its call): its first two versions are ignored.
    assert_eq!((counts.lines, counts.entries, counts.metadata, counts.ignored), (14, 7, 5, 2));
    let id = "b41c7d2e-9f03-4a6b-8e15-6c2d0a9f3e71";
    let session = &graph.sessions[0];
    assert_eq!(session.id, id);
    assert_eq!(session.title, "Explain the make test failure", "the summary a $set gave");
    // g1 as its last record has it (tokens, the call), in the place of its first.
    let g1 = entry_at(&corpus, 6);
    assert_eq!(corpus.entry_uuid(g1), format!("{id}:g1"));
    assert_eq!(corpus.entry_parent_uuid(g1), Some(format!("{id}:u1").as_str()));
    assert_eq!(totals(&corpus.responses[0].usage), (5200 - 4096, 30 + 64, 0, 4096));
    // The rewind to u2 takes the conversation back to before it: u3 hangs where u2 did, and
    // u2's exchange stays as a branch.
    let parent = |line: u32| corpus.entry_parent_uuid(entry_at(&corpus, line)).map(str::to_owned);
    assert_eq!(parent(8), Some(format!("{id}:g1:results")));
    assert_eq!(parent(11), Some(format!("{id}:g1:results")));
    assert_eq!(graph.conversations.len(), 1);
    // The cancelled call is interrupted; the warning is a notice.
    assert_eq!(
        ops(&corpus, &graph),
        [
            ("run_shell_command".to_owned(), ToolCategory::Execute, ToolStatus::Ok),
            ("replace".to_owned(), ToolCategory::Edit, ToolStatus::Interrupted),
        ]
    );
    assert_eq!(corpus.sym(entry_at(&corpus, 12).subtype), "warning");
    assert_eq!(corpus.sym(entry_at(&corpus, 13).model), "gemini-3-flash-preview");
    assert_eq!(totals(&session.usage_with_agents), (1104 + 600 + 500, 94 + 80 + 35, 0, 4096 + 5000 + 5500));
    assert!(graph.problems.is_empty(), "{:?}", graph.problems);
}

#[test]
fn a_gemini_cli_document_cut_anywhere_keeps_the_messages_before_the_cut() {
    let bytes = format_fixture(GEMINI);
    let text = String::from_utf8(bytes.clone()).unwrap();
    let whole = load_one(GEMINI, &bytes);
    let messages = |corpus: &Corpus| {
        corpus.entries.iter().filter(|e| e.kind != EntryKind::User || corpus.sym(e.subtype) != "tool_result").count()
    };
    for cut in (1..bytes.len()).step_by(7) {
        let corpus = load_one(GEMINI, &bytes[..cut]);
        let counts = corpus.files[0].counts;
        assert!(counts.balanced(), "cut at {cut}: {counts:?}");
        assert_eq!(counts.lines, count_lines(&bytes[..cut]), "cut at {cut}");
        assert!(corpus.entries.len() <= whole.entries.len());
        if corpus.files[0].format == Format::GeminiCli {
            let errors: Vec<&Diagnostic> =
                corpus.diagnostics.iter().filter(|d| d.kind.severity() == Severity::Error).collect();
            assert_eq!(errors.len(), 1, "cut at {cut}: one diagnostic says where: {:?}", corpus.diagnostics);
            assert!(errors[0].line >= 1 && u64::from(errors[0].line) <= counts.lines, "cut at {cut}: {:?}", errors[0]);
        }
    }
    // Cut inside the error notice (the fifth message): the four before it are read, the rest is
    // one diagnostic at the line where the notice starts.
    let at = text.find("\"id\": \"m-err-1\"").unwrap() + 10;
    let corpus = load_one(GEMINI, &bytes[..at]);
    assert_eq!(messages(&corpus), 4);
    assert_eq!(corpus.diagnostics.len(), 1, "{:?}", corpus.diagnostics);
    assert_eq!((corpus.diagnostics[0].line, corpus.diagnostics[0].kind), (136, DiagnosticKind::TruncatedLine));
    let counts = corpus.files[0].counts;
    assert_eq!(counts.skipped, counts.lines - 135, "the lines of the cut message");
    // Garbage in the middle of a message: an error at its line; the messages before it are read.
    let broken = text.replacen("\"type\": \"error\"", "\"type\": error", 1);
    let corpus = load_one(GEMINI, broken.as_bytes());
    assert_eq!(messages(&corpus), 4);
    assert_eq!((corpus.diagnostics[0].line, corpus.diagnostics[0].kind), (136, DiagnosticKind::InvalidJson));
    assert!(corpus.diagnostics[0].message.contains("(line 139: "), "where it broke: {}", corpus.diagnostics[0].message);
    // Broken after the message list: every message is read.
    let corpus = load_one(GEMINI, text.replace("\"kind\": \"main\"", "\"kind\": ").as_bytes());
    assert_eq!(messages(&corpus), 8);
    assert_eq!(corpus.diagnostics.len(), 1, "{:?}", corpus.diagnostics);
    assert_eq!(corpus.diagnostics[0].kind, DiagnosticKind::InvalidJson);
    // A JSON Lines file whose metadata line is cut: the records after it are read.
    let lines = String::from_utf8(format_fixture(GEMINI_LINES)).unwrap();
    let cut_head = lines.replacen("\"kind\":\"main\"}", "\"kind\":\"ma", 1);
    let corpus = load_one(GEMINI_LINES, cut_head.as_bytes());
    assert_eq!(corpus.files[0].format, Format::GeminiCli);
    assert_eq!((corpus.diagnostics[0].line, corpus.diagnostics[0].kind), (1, DiagnosticKind::InvalidJson));
    assert_eq!(corpus.entries.len(), 9);
    // A cut JSON Lines file: its last line is truncated.
    let lines = format_fixture(GEMINI_LINES);
    let corpus = load_one(GEMINI_LINES, &lines[..lines.len() - 20]);
    let last = corpus.diagnostics.last().unwrap();
    assert_eq!((last.line, last.kind), (14, DiagnosticKind::TruncatedLine));
    assert!(corpus.files[0].counts.balanced());
}

#[test]
fn gemini_cli_sessions_are_sniffed_by_name_then_content() {
    let format = |name: &str, bytes: &[u8]| load_one(name, bytes).files[0].format;
    let bytes = format_fixture(GEMINI);
    assert_eq!(format("chats/session-2025-11-03T09-15-7c2e9a41.json", &bytes), Format::GeminiCli);
    assert_eq!(format("anything.json", &bytes), Format::GeminiCli, "sessionId, projectHash, messages");
    // Without projectHash, only its name says what it is.
    let bare = b"{\n  \"sessionId\": \"s\",\n  \"messages\": []\n}";
    assert_eq!(format("chats/session-1.json", bare), Format::GeminiCli);
    assert_eq!(format("notes.json", bare), Format::Rejected);
    // The same object on one line, and the metadata line of a JSON Lines file.
    let one_line = b"{\"sessionId\":\"s\",\"projectHash\":\"h\",\"messages\":[{\"id\":\"a\",\"type\":\"user\",\"content\":\"hi\"}]}";
    let corpus = load_one("x.json", one_line);
    assert_eq!(corpus.files[0].format, Format::GeminiCli);
    assert_eq!((corpus.files[0].counts.lines, corpus.files[0].counts.entries), (1, 1));
    let metadata =
        b"{\"sessionId\":\"s\",\"projectHash\":\"h\",\"startTime\":\"2026-01-01T00:00:00Z\",\"kind\":\"main\"}\n";
    let corpus = load_one("session-x.jsonl", metadata);
    assert_eq!(corpus.files[0].format, Format::GeminiCli);
    assert_eq!(corpus.diagnostics[0].kind, DiagnosticKind::EmptyFile);
    assert!(corpus.diagnostics[0].message.contains("Gemini CLI session without any message"));
    // Claude Code lines have a sessionId too, and stay Claude Code.
    assert_eq!(format("c.jsonl", &fixture("every-line-type.jsonl")), Format::ClaudeCode);
    for name in [SDK, ROLLOUT, EVENTS, OLLAMA, PI, PI_LEGACY, QWEN] {
        assert_ne!(load(name).0.files[0].format, Format::GeminiCli, "{name}");
    }
}

#[test]
fn a_gemini_cli_document_over_the_bound_is_refused_with_a_diagnostic() {
    let mut loader = sessionscope_engine::Loader::new();
    let size = sessionscope_engine::load::DOCUMENT_MAX_BYTES as u64 + 1;
    let file = loader.add_file("chats/session-big.json", size);
    let head =
        b"{\n  \"sessionId\": \"s\",\n  \"projectHash\": \"h\",\n  \"messages\": [\n    {\n      \"id\": \"a\",\n";
    loader.push(file, head);
    loader.push(file, b"      \"type\": \"user\",\n");
    loader.finish_file(file);
    let corpus = loader.finish();
    assert_eq!(corpus.files[0].format, Format::Rejected);
    assert_eq!(corpus.diagnostics[0].kind, DiagnosticKind::FileTooLarge);
    assert!(
        corpus.diagnostics[0].message.contains("Gemini CLI session is read whole"),
        "{}",
        corpus.diagnostics[0].message
    );
    let counts = corpus.files[0].counts;
    assert!(counts.balanced());
    assert_eq!(counts.lines, 7);
}

#[test]
fn real_gemini_cli_sessions_read_as_their_messages_say() {
    let Some(real) = real_fixtures("real_gemini_cli_sessions_read_as_their_messages_say") else { return };
    let Some((_, dir)) = real.every_folder().into_iter().find(|(name, _)| name == "gemini-cli") else {
        panic!("the real fixtures have no gemini-cli folder")
    };
    // Counted in the files with python: lines (metadata: before the first message and after the
    // last); entries (messages, plus a results entry per response with tool calls); tool calls;
    // status error; (input - cached + tool, output + thoughts, 0, cached) summed over the tokens;
    // responses (messages with tokens); thoughts; error messages.
    let cases = [
        ("aim-benchmark-control-flash.json", (2730, 2721, 9), 59 + 44, 44, 0, (131666, 24707, 0, 1604238), 45, 108, 3),
        ("ai-sessions-pomodoro-timer.json", (685, 677, 8), 19 + 9, 11, 1, (34028, 6223, 0, 86702), 14, 22, 0),
    ];
    for (name, lines, entries, calls, errors, usage, responses, thinking, api_errors) in cases {
        let bytes = std::fs::read(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        let corpus = load_one(&format!("chats/{name}"), &bytes);
        assert_eq!(corpus.files[0].format, Format::GeminiCli, "{name}");
        assert!(corpus.diagnostics.is_empty(), "{name}: {:?}", corpus.diagnostics);
        let counts = corpus.files[0].counts;
        assert!(counts.balanced(), "{name}: {counts:?}");
        assert_eq!((counts.lines, counts.entries, counts.metadata), lines, "{name}");
        assert_eq!(corpus.entries.len(), entries, "{name}");
        let graph = Graph::build(&corpus);
        assert_eq!(graph.sessions.len(), 1, "{name}");
        assert_eq!(graph.conversations.len(), 1, "{name}");
        assert_eq!(graph.tool_ops.len(), calls, "{name}");
        let status = |s: ToolStatus| graph.tool_ops.iter().filter(|op| op.status == s).count();
        assert_eq!(status(ToolStatus::Error), errors, "{name}");
        assert_eq!(status(ToolStatus::NoResult) + status(ToolStatus::ResultWithoutCall), 0, "{name}");
        assert_eq!(totals(&graph.sessions[0].usage_with_agents), usage, "{name}");
        assert_eq!(corpus.responses.len(), responses, "{name}");
        assert_eq!(corpus.blocks.iter().filter(|b| b.kind == BlockKind::Thinking).count(), thinking, "{name}");
        assert_eq!(corpus.entries.iter().filter(|e| e.flags.has(EntryFlags::API_ERROR)).count(), api_errors, "{name}");
        assert!(graph.problems.is_empty(), "{name}: {:?}", &graph.problems[..graph.problems.len().min(3)]);
        // Read in slices, and as a snapshot of a load not finished, it is the same.
        let sliced = load_chunked(&[(format!("chats/{name}"), bytes.clone())], 4096);
        assert_eq!(dump_corpus(&sliced), dump_corpus(&corpus), "{name}");
    }
}

/// The hand-written Cline task: native tool blocks, `modelInfo` and `metrics`, one-line UI messages.
const CLINE_TASK: &str = "saoudrizwan.claude-dev/tasks/1731400000000";
/// The hand-written Roo Code task: XML tool tags, a condensed context, a subtask.
const ROO_TASK: &str = "rooveterinaryinc.roo-cline/tasks/3f6d2a10-8c4b-4e7a-9d21-5b0c7e9f1a42";
const TASK_FILES: [&str; 3] = ["api_conversation_history.json", "task_metadata.json", "ui_messages.json"];

/// The files of a task fixture, as (path, bytes), under `<storage>/tasks/<id>/`.
fn task_files(task: &str) -> Vec<(String, Vec<u8>)> {
    TASK_FILES.iter().map(|name| (format!("{task}/{name}"), fixture(&format!("tasks/{task}/{name}")))).collect()
}

fn assert_all_accounted(corpus: &Corpus, files: &[(String, Vec<u8>)]) {
    for (path, bytes) in files {
        let info = corpus.files.iter().find(|f| &f.path == path).unwrap_or_else(|| panic!("{path}"));
        assert!(info.counts.balanced(), "{path}: {:?}", info.counts);
        assert_eq!(info.counts.lines, count_lines(bytes), "{path}");
    }
}

/// The dump of a load, to compare loads in another order or in slices.
fn dump_of(corpus: &Corpus) -> String {
    let graph = Graph::build(corpus);
    format!("{}{}", dump_corpus(corpus), dump_graph(corpus, &graph))
}

#[test]
fn a_cline_task_folder_is_one_session_with_the_requests_tokens_on_its_responses() {
    let files = task_files(CLINE_TASK);
    let corpus = load_chunked(&files, 0);
    assert_all_accounted(&corpus, &files);
    assert!(corpus.files.iter().all(|f| f.format == Format::Cline), "{:?}", corpus.files);
    assert!(corpus.diagnostics.is_empty(), "{:?}", corpus.diagnostics);
    let graph = Graph::build(&corpus);
    assert_eq!(graph.sessions.len(), 1);
    let session = &graph.sessions[0];
    assert_eq!(session.id, "1731400000000");
    assert_eq!(session.files.len(), 3, "the UI messages and the metadata join the session by their folder");
    assert_eq!(graph.conversations.len(), 1);
    assert_eq!(corpus.entries.len(), 14);
    assert_eq!(session.title, "Add a --verbose flag to the CLI in src/main.rs", "the <task> tags are taken off");
    // The working directory the environment details name.
    assert_eq!(corpus.sym(corpus.envelope(&corpus.entries[0]).cwd), "/home/dev/app");
    // Tokens and cost: the seven api_req_started of ui_messages.json, summed by hand.
    assert_eq!(totals(&session.usage_with_agents), (2560, 780, 1500, 6800));
    let logged: f64 = corpus.responses.iter().filter_map(|r| r.logged_cost_usd).sum();
    assert!((logged - 0.0322).abs() < 1e-9, "{logged}");
    assert_eq!(corpus.responses.len(), 7, "one per response of the history");
    // The first response: the first request, with the model of its modelInfo.
    let first = &corpus.responses[corpus.entries[1].response.index()];
    assert_eq!(totals(&first.usage), (1200, 80, 0, 0));
    assert_eq!(corpus.sym(first.model), "claude-3-5-sonnet-20241022");
    let models: Vec<&str> = corpus.responses.iter().map(|r| corpus.sym(r.model)).collect();
    assert_eq!(models.last(), Some(&"claude-sonnet-4-20250514"));
    // Tools: native blocks paired by id; the failed replace_in_file; attempt_completion unanswered.
    assert_eq!(
        ops(&corpus, &graph),
        [
            ("read_file".to_owned(), ToolCategory::Read, ToolStatus::Ok),
            ("replace_in_file".to_owned(), ToolCategory::Edit, ToolStatus::Error),
            ("write_to_file".to_owned(), ToolCategory::Edit, ToolStatus::Ok),
            ("execute_command".to_owned(), ToolCategory::Execute, ToolStatus::Ok),
            ("attempt_completion".to_owned(), ToolCategory::Other, ToolStatus::NoResult),
        ]
    );
    let written = tools::op_files(&corpus, op_named(&corpus, &graph, "write_to_file")[0]);
    assert_eq!(written, [("src/main.rs".to_owned(), tools::Touch::Write)]);
    assert_eq!(corpus.blocks.iter().filter(|b| b.kind == BlockKind::Thinking).count(), 1);
    // The interrupted turn (cancelled by the user) and the API error (streaming failed).
    let interrupted: Vec<usize> = corpus
        .entries
        .iter()
        .enumerate()
        .filter(|(_, e)| e.flags.has(EntryFlags::INTERRUPTED))
        .map(|(i, _)| i)
        .collect();
    assert_eq!(interrupted, [9, 11]);
    let api_errors: Vec<usize> =
        corpus.entries.iter().enumerate().filter(|(_, e)| e.flags.has(EntryFlags::API_ERROR)).map(|(i, _)| i).collect();
    assert_eq!(api_errors, [11]);
    // Any order, any slices: the same.
    let dump = dump_of(&corpus);
    let reversed: Vec<(String, Vec<u8>)> = files.iter().rev().cloned().collect();
    assert_eq!(dump_of(&load_chunked(&reversed, 0)).lines().count(), dump.lines().count());
    assert_eq!(
        totals(&Graph::build(&load_chunked(&reversed, 0)).sessions[0].usage_with_agents),
        (2560, 780, 1500, 6800)
    );
    for chunk in [1, 7, 64] {
        assert_eq!(dump_of(&load_chunked(&files, chunk)), dump, "in slices of {chunk} bytes");
    }
    insta::assert_snapshot!("formats-cline-task", dump);
}

#[test]
fn a_roo_code_task_reads_its_xml_tool_calls_condensed_context_and_subtask() {
    let files = task_files(ROO_TASK);
    let corpus = load_chunked(&files, 0);
    assert_all_accounted(&corpus, &files);
    assert!(corpus.files.iter().all(|f| f.format == Format::RooCode), "{:?}", corpus.files);
    assert!(corpus.diagnostics.is_empty(), "{:?}", corpus.diagnostics);
    let graph = Graph::build(&corpus);
    assert_eq!(graph.sessions.len(), 1);
    let session = &graph.sessions[0];
    assert_eq!(session.id, "3f6d2a10-8c4b-4e7a-9d21-5b0c7e9f1a42");
    assert_eq!(corpus.sym(corpus.envelope(&corpus.entries[15]).cwd), "/home/dev/web");
    assert_eq!(session.files.len(), 3);
    assert_eq!(corpus.entries.len(), 16);
    // The condensed context is a compaction summary.
    assert!(corpus.entries[1].flags.has(EntryFlags::COMPACT_SUMMARY));
    assert_eq!(session.compactions, 1);
    // Tokens: nine requests summed by hand (the `openai` one's cache reads taken off its input).
    assert_eq!(totals(&session.usage_with_agents), (5800, 1170, 3100, 25300));
    let logged: f64 = corpus.responses.iter().filter_map(|r| r.logged_cost_usd).sum();
    assert!((logged - (0.0447 + 0.004)).abs() < 1e-9, "{logged}: the requests and the condensing");
    // The two requests of the condensed part go to the summary, and the cost of condensing.
    let summary = &corpus.responses[corpus.entries[1].response.index()];
    assert_eq!(totals(&summary.usage), (3500, 300, 2500, 2500));
    assert!((summary.logged_cost_usd.unwrap() - (0.023 + 0.004)).abs() < 1e-9);
    assert!(corpus.responses.iter().all(|r| r.model.is_none()), "Roo Code names no model");
    // XML tool calls with their parameters, paired with the `[tool] Result:` texts.
    assert_eq!(
        ops(&corpus, &graph),
        [
            // Its call was condensed away: a result without a call (which the graph leaves unnamed).
            (String::new(), ToolCategory::Other, ToolStatus::ResultWithoutCall),
            ("apply_diff".to_owned(), ToolCategory::Edit, ToolStatus::Error),
            ("search_files".to_owned(), ToolCategory::Search, ToolStatus::Ok),
            ("write_to_file".to_owned(), ToolCategory::Edit, ToolStatus::Error),
            ("new_task".to_owned(), ToolCategory::Agent, ToolStatus::Ok),
            ("attempt_completion".to_owned(), ToolCategory::Other, ToolStatus::NoResult),
        ]
    );
    let diff = op_named(&corpus, &graph, "apply_diff")[0];
    let (input, _) = tools::op_input(&corpus, diff);
    assert_eq!(input.get("path").and_then(|p| p.as_str()), Some("src/date.ts"));
    assert!(input.get("diff").and_then(|d| d.as_str()).unwrap().starts_with("<<<<<<< SEARCH"));
    assert_eq!(tools::op_files(&corpus, diff), [("src/date.ts".to_owned(), tools::Touch::Edit)]);
    assert_eq!(tools::op_summary(&corpus, op_named(&corpus, &graph, "search_files")[0]), "getDate in src");
    let thinking = block_text(&corpus, &corpus.entries[3], BlockKind::Thinking);
    assert!(thinking.contains("UTC is the fix"), "{thinking}");
    let interrupted: Vec<usize> = corpus
        .entries
        .iter()
        .enumerate()
        .filter(|(_, e)| e.flags.has(EntryFlags::INTERRUPTED))
        .map(|(i, _)| i)
        .collect();
    assert_eq!(interrupted, [9, 13]);
    assert!(corpus.entries[13].flags.has(EntryFlags::API_ERROR));
    let dump = dump_of(&corpus);
    for chunk in [1, 7, 64] {
        assert_eq!(dump_of(&load_chunked(&files, chunk)), dump, "in slices of {chunk} bytes");
    }
    insta::assert_snapshot!("formats-roo-code-task", dump);
}

#[test]
fn the_files_of_a_task_alone_say_what_they_lack() {
    let files = task_files(CLINE_TASK);
    // The history alone: Cline's own per-message metrics give the tokens.
    let corpus = load_chunked(&files[..1], 0);
    assert!(corpus.diagnostics.is_empty(), "{:?}", corpus.diagnostics);
    let graph = Graph::build(&corpus);
    assert_eq!(totals(&graph.sessions[0].usage_with_agents), (1200 + 400, 80 + 150, 0, 1100));
    assert_eq!(corpus.responses.len(), 2);
    // The UI messages alone: metadata, and a diagnostic that their tokens are not counted.
    let corpus = load_chunked(&files[2..], 0);
    assert_all_accounted(&corpus, &files[2..]);
    assert!(corpus.entries.is_empty());
    assert_eq!(corpus.diagnostics.len(), 1, "{:?}", corpus.diagnostics);
    assert!(corpus.diagnostics[0].message.contains("7 API request(s)"), "{}", corpus.diagnostics[0].message);
    // The metadata alone: metadata.
    let corpus = load_chunked(&files[1..2], 0);
    assert_all_accounted(&corpus, &files[1..2]);
    assert!(corpus.diagnostics.is_empty(), "{:?}", corpus.diagnostics);
}

#[test]
fn a_task_file_cut_anywhere_or_broken_keeps_what_comes_before() {
    for task in [CLINE_TASK, ROO_TASK] {
        let files = task_files(task);
        for (i, (path, bytes)) in files.iter().enumerate() {
            let whole = load_chunked(&files, 0).entries.len();
            for cut in (0..bytes.len()).step_by(5) {
                let mut cut_files = files.clone();
                cut_files[i] = (path.clone(), bytes[..cut].to_vec());
                let corpus = load_chunked(&cut_files, 0);
                assert_all_accounted(&corpus, &cut_files);
                assert!(corpus.entries.len() <= whole, "{path} cut at {cut}");
                let _ = Graph::build(&corpus);
            }
            // Garbage in place of a few bytes anywhere.
            for at in (0..bytes.len()).step_by(11) {
                let mut broken = bytes.clone();
                for (k, b) in b"}]\"{\\\xff".iter().enumerate() {
                    if let Some(slot) = broken.get_mut(at + k) {
                        *slot = *b;
                    }
                }
                let mut broken_files = files.clone();
                broken_files[i] = (path.clone(), broken);
                let corpus = load_chunked(&broken_files, 0);
                for (p, b) in &broken_files {
                    let info = corpus.files.iter().find(|f| &f.path == p).unwrap();
                    assert!(info.counts.balanced(), "{p} broken at {at}: {:?}", info.counts);
                    assert_eq!(info.counts.lines, count_lines(b), "{p} broken at {at}");
                }
                let _ = Graph::build(&corpus);
            }
        }
    }
    // A history cut inside its fifth message: the four before are read, one diagnostic says where.
    let files = task_files(ROO_TASK);
    let text = String::from_utf8(files[0].1.clone()).unwrap();
    let at = text.match_indices("{\"role\"").nth(4).unwrap().0 + 30;
    let corpus = load_one(&files[0].0, &files[0].1[..at]);
    assert_eq!(corpus.entries.len(), 4);
    assert_eq!(corpus.diagnostics.len(), 1, "{:?}", corpus.diagnostics);
    assert_eq!((corpus.diagnostics[0].line, corpus.diagnostics[0].kind), (6, DiagnosticKind::TruncatedLine));
}

#[test]
fn task_files_are_sniffed_by_name_then_content() {
    let format = |name: &str, bytes: &[u8]| load_one(name, bytes).files[0].format;
    let history = b"[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]}]";
    assert_eq!(format("tasks/t1/api_conversation_history.json", history), Format::Cline);
    assert_eq!(format("rooveterinaryinc.roo-cline/tasks/t1/api_conversation_history.json", history), Format::RooCode);
    assert_eq!(format("export.json", history), Format::Cline, "an array of API messages");
    let ui = b"[{\"ts\":1,\"type\":\"say\",\"say\":\"text\",\"text\":\"hi\"}]";
    assert_eq!(format("tasks/t1/ui_messages.json", ui), Format::Cline);
    assert_eq!(format("x.json", ui), Format::Cline);
    // UI messages under another name are still UI messages: no conversation is missed in them.
    assert!(load_one("x.json", ui).diagnostics.is_empty(), "{:?}", load_one("x.json", ui).diagnostics);
    let roo_ui = b"[{\"ts\":1,\"type\":\"say\",\"say\":\"subtask_result\",\"text\":\"done\"}]";
    assert_eq!(format("tasks/t1/ui_messages.json", roo_ui), Format::RooCode);
    assert_eq!(format("tasks/t1/task_metadata.json", b"{\"files_in_context\":[]}"), Format::Cline);
    // Other arrays and objects are still not read.
    assert_eq!(format("x.json", b"[{\"a\":1}]"), Format::Rejected);
    assert_eq!(format("task_metadata.json", b"[1]"), Format::Rejected);
    assert_eq!(format("notes/task_metadata.json", b"{\n \"a\": 1\n}"), Format::Cline, "named so in a folder");
    // A history that is not an array: one diagnostic, every line counted.
    let corpus = load_one("tasks/t1/api_conversation_history.json", b"[\n1,\n\"x\"\n]\n");
    assert!(corpus.files[0].counts.balanced());
    assert_eq!(corpus.files[0].counts.lines, 4);
    for name in [SDK, ROLLOUT, EVENTS, OLLAMA, PI, PI_LEGACY, GEMINI, GEMINI_LINES] {
        assert!(!matches!(load(name).0.files[0].format, Format::Cline | Format::RooCode), "{name}");
    }
}

#[test]
fn aider_markers_inside_a_reply_fence_are_the_reply() {
    // A reply that shows an Aider history: its header, input and output lines stay its text.
    let text = concat!(
        "# aider chat started at 2025-06-01 09:00:00\n",
        "\n",
        "#### What does a history look like?  \n",
        "\n",
        "Like this:\n",
        "\n",
        "```markdown\n",
        "# aider chat started at 2025-06-01 08:00:00\n",
        "#### hello\n",
        "> Aider v0.86.1\n",
        "```\n",
        "\n",
        "> Tokens: 100 sent, 20 received.  \n",
    );
    let corpus = load_one(".aider.chat.history.md", text.as_bytes());
    let graph = Graph::build(&corpus);
    assert_eq!(graph.sessions.len(), 1);
    let kinds: Vec<EntryKind> = corpus.entries.iter().map(|e| e.kind).collect();
    assert_eq!(kinds, [EntryKind::System, EntryKind::User, EntryKind::Assistant, EntryKind::System]);
    let reply = block_text(&corpus, &corpus.entries[2], BlockKind::Text);
    assert!(reply.ends_with("#### hello\n> Aider v0.86.1\n```"), "{reply}");
    assert_eq!(totals(&graph.sessions[0].usage_with_agents), (100, 20, 0, 0));
}

#[test]
fn a_shared_aider_run_carries_that_run_only_redacted_as_text() {
    use sessionscope_engine::share::redacted::{ShareOptions, share_scope};
    use sessionscope_engine::share::scope::Scope;
    // A token planted in the second run's reply, and a home folder in its user input.
    let token = "ghp_Q3x9ZkLmN0pR7sT2vW4yB6dF8hJ1kM5nP0qS";
    let text = String::from_utf8(format_fixture(AIDER)).expect("utf-8 fixture").replacen(
        "I'll add the flag and document it.",
        &format!("I'll add the flag; CI reads {token}."),
        1,
    );
    let corpus = load_one(AIDER, text.as_bytes());
    let graph = Graph::build(&corpus);
    let (index, session) = graph
        .sessions
        .iter()
        .enumerate()
        .find(|(_, s)| s.title.starts_with("Add a --json flag"))
        .expect("the run with the edits");
    let bundle = share_scope(
        &corpus,
        &graph,
        &Scope::Session(sessionscope_engine::dag::SessionId::new(index)),
        &ShareOptions::default(),
        |_| false,
    )
    .expect("a bundle");
    let shared_text: String = bundle.files.iter().map(|(_, b)| String::from_utf8_lossy(b).into_owned()).collect();
    assert!(!shared_text.contains(token), "the token is redacted");
    assert!(shared_text.contains("[REDACTED:"), "a placeholder stands in its place");
    assert!(!shared_text.contains("/ask what does"), "the other runs stay out");

    // The share reads back as one Aider run with the same messages (the token aside).
    let shared = sessionscope_engine::Loader::read_all(bundle.files.iter().map(|(path, bytes)| (path, bytes)));
    assert_eq!(shared.files[0].format, Format::Aider);
    let shared_graph = Graph::build(&shared);
    assert_eq!(shared_graph.sessions.len(), 1);
    let back = &shared_graph.sessions[0];
    assert_eq!(
        (back.title.as_str(), back.tool_uses, back.tool_results),
        (session.title.as_str(), session.tool_uses, session.tool_results)
    );
    assert_eq!(back.usage, session.usage, "its token report comes along");
}

#[test]
fn a_whole_aider_history_shared_reads_back_run_for_run() {
    use sessionscope_engine::share::redacted::{ShareOptions, share_scope};
    use sessionscope_engine::share::scope::Scope;
    let (corpus, graph) = load(AIDER);
    let bundle = share_scope(&corpus, &graph, &Scope::All, &ShareOptions::default(), |_| false).expect("a bundle");
    let shared = sessionscope_engine::Loader::read_all(bundle.files.iter().map(|(path, bytes)| (path, bytes)));
    let shared_graph = Graph::build(&shared);
    let runs = |g: &Graph| {
        g.sessions.iter().map(|s| (s.title.clone(), s.entries, s.tool_results, s.usage)).collect::<Vec<_>>()
    };
    assert_eq!(runs(&shared_graph), runs(&graph));
    let readable_all = |c: &Corpus| c.entries.iter().map(|e| readable(c, e)).collect::<Vec<_>>();
    assert_eq!(readable_all(&shared), readable_all(&corpus), "the same messages, blank lines in replies kept");
}

#[test]
fn qwen_code_session() {
    let bytes = format_fixture(QWEN);
    let (corpus, graph) = load(QWEN);
    assert_eq!(corpus.files[0].format.name(), "qwen-code");
    assert_accounted(&corpus, &bytes);
    assert!(corpus.diagnostics.is_empty(), "{:?}", corpus.diagnostics);
    let counts = corpus.files[0].counts;
    // 14 records: 11 entries (the compression among them); ui_telemetry, rewind and
    // custom_title are metadata.
    assert_eq!((counts.lines, counts.entries, counts.metadata), (14, 11, 3));
    let session = &graph.sessions[0];
    assert_eq!(session.id, "e5a1c9d3-7b2f-4e60-9c84-1f3a5d7b9e20");
    assert_eq!(session.title, "Timeout TODO", "the custom_title");
    let envelope = corpus.envelope(entry_at(&corpus, 1));
    assert_eq!((corpus.sym(envelope.cwd), corpus.sym(envelope.version)), ("/home/dev/projects/weather", "0.2.1"));
    // The tree by uuid/parentUuid: past the ui_telemetry record; the rewind re-roots the chain
    // at the compression, so the rewound turn stays as a branch.
    let parent = |line: u32| corpus.entry_parent_uuid(entry_at(&corpus, line)).map(str::to_owned);
    assert_eq!(parent(5).as_deref(), Some("q-t1"));
    assert_eq!(parent(8).as_deref(), Some("q-c1"));
    assert_eq!(parent(12).as_deref(), Some("q-c1"));
    assert_eq!(graph.conversations.len(), 1);
    assert_eq!(graph.compactions.len(), 1);
    assert!(entry_at(&corpus, 7).flags.has(EntryFlags::COMPACT_SUMMARY));
    // Parts: thought text is thinking; calls pair with results by id.
    assert_eq!(block_text(&corpus, entry_at(&corpus, 2), BlockKind::Thinking), "Looking for TODO comments first.");
    assert_eq!(block_text(&corpus, entry_at(&corpus, 2), BlockKind::Text), "I'll search the sources.");
    assert_eq!(
        ops(&corpus, &graph),
        [
            ("grep_search".to_owned(), ToolCategory::Search, ToolStatus::Ok),
            ("edit".to_owned(), ToolCategory::Edit, ToolStatus::Error),
            ("run_shell_command".to_owned(), ToolCategory::Execute, ToolStatus::Interrupted),
        ]
    );
    assert_eq!(
        block_text(&corpus, entry_at(&corpus, 6), BlockKind::ToolResult),
        "Failed to edit, could not find the string to replace."
    );
    let edit = op_named(&corpus, &graph, "edit")[0];
    assert_eq!(tools::op_summary(&corpus, edit), "src/fetch.py +1 -1");
    assert_eq!(tools::op_files(&corpus, edit), [("src/fetch.py".to_owned(), tools::Touch::Edit)]);
    assert_eq!(tools::op_summary(&corpus, op_named(&corpus, &graph, "grep_search")[0]), "TODO in src");
    // Tokens: (prompt - cached + toolUse, candidates + thoughts, 0, cached) per response.
    let responses = [(12000 - 8000, 45 + 20, 0, 8000), (500, 60, 0, 12000), (3300, 30, 0, 0), (500, 25, 0, 3000)];
    let each: Vec<_> = corpus.responses.iter().map(|r| totals(&r.usage)).collect();
    assert_eq!(each, responses);
    assert_eq!(totals(&session.usage_with_agents), (8300, 180, 0, 23000));
    assert_eq!(corpus.sym(entry_at(&corpus, 13).model), "qwen3-coder-flash");
    assert!(graph.problems.is_empty(), "{:?}", graph.problems);
}

#[test]
fn qwen_code_records_are_sniffed_apart_from_claude_code_lines() {
    let format = |bytes: &[u8]| load_one("x.jsonl", bytes).files[0].format;
    let user = b"{\"uuid\":\"a\",\"parentUuid\":null,\"sessionId\":\"s\",\"timestamp\":\"t\",\"type\":\"user\",\"cwd\":\"/p\",\"version\":\"0.2.1\",\"message\":{\"role\":\"user\",\"parts\":[{\"text\":\"hi\"}]}}\n";
    assert_eq!(format(user), Format::QwenCode);
    let telemetry = b"{\"uuid\":\"a\",\"parentUuid\":null,\"sessionId\":\"s\",\"type\":\"system\",\"subtype\":\"ui_telemetry\",\"systemPayload\":{}}\n";
    assert_eq!(format(telemetry), Format::QwenCode);
    // A first line cut by the window: its parts say it.
    let mut long = user[..user.len() - 6].to_vec();
    long.extend(std::iter::repeat_n(b'x', 70 << 10));
    assert_eq!(format(&long), Format::QwenCode);
    // Claude Code lines, with `message.content`, stay Claude Code.
    let claude = b"{\"uuid\":\"a\",\"parentUuid\":null,\"sessionId\":\"s\",\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n";
    assert_eq!(format(claude), Format::ClaudeCode);
    assert_eq!(format(&fixture("every-line-type.jsonl")), Format::ClaudeCode);
    for name in [SDK, ROLLOUT, EVENTS, OLLAMA, PI, PI_LEGACY, GEMINI, GEMINI_LINES] {
        assert_ne!(load(name).0.files[0].format, Format::QwenCode, "{name}");
    }
}

#[test]
fn the_history_groups_the_files_of_a_task_into_one_unit() {
    use sessionscope_engine::history::group_into_units;
    let paths: Vec<String> = TASK_FILES.iter().rev().map(|name| format!("globalStorage/{ROO_TASK}/{name}")).collect();
    let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
    let units = group_into_units(&paths, &[None, None, None]);
    assert_eq!(units.len(), 1, "{units:?}");
    assert_eq!(units[0].files[0], 2, "the conversation first");
    assert_eq!(units[0].key, format!("globalStorage/{ROO_TASK}"));
}

#[test]
fn real_roo_code_task_reads_as_its_files_say() {
    let Some(real) = real_fixtures("real_roo_code_task_reads_as_its_files_say") else { return };
    let Some((_, dir)) = real.every_folder().into_iter().find(|(name, _)| name == "roo-code") else {
        panic!("the real fixtures have no roo-code folder")
    };
    let task = dir.join("roo-state-manager-task-ac8aa7b4");
    let files: Vec<(String, Vec<u8>)> = TASK_FILES
        .iter()
        .map(|name| {
            let bytes = std::fs::read(task.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
            (format!("roo-state-manager-task-ac8aa7b4/{name}"), bytes)
        })
        .collect();
    let corpus = load_chunked(&files, 0);
    assert_all_accounted(&corpus, &files);
    assert!(corpus.files.iter().all(|f| f.format == Format::RooCode), "{:?}", corpus.files);
    assert!(corpus.diagnostics.is_empty(), "{:?}", corpus.diagnostics);
    // Counted with python: 62 API messages (30 responses, one isSummary); 268 UI messages, 59
    // api_req_started whose tokens and cost sum as below, and one condense_context's cost.
    assert_eq!(corpus.entries.len(), 62);
    assert_eq!(
        corpus.metas.iter().filter(|m| corpus.files[m.file as usize].path.ends_with("ui_messages.json")).count(),
        268 + 1
    );
    let graph = Graph::build(&corpus);
    assert_eq!(graph.sessions.len(), 1);
    assert_eq!(graph.sessions[0].id, "roo-state-manager-task-ac8aa7b4");
    assert_eq!(corpus.sym(corpus.envelope(&corpus.entries[0]).cwd), "d:/dev/roo-extensions");
    assert_eq!(graph.sessions[0].compactions, 1);
    assert_eq!(corpus.entries.iter().filter(|e| e.kind == EntryKind::Assistant).count(), 29);
    let logged: f64 = corpus.responses.iter().filter_map(|r| r.logged_cost_usd).sum();
    assert!((logged - (5.9719801035 + 0.1342123125)).abs() < 1e-6, "{logged}");
    assert_eq!(totals(&graph.sessions[0].usage_with_agents), (313324, 47864, 1272896, 2078579));
    assert_eq!(graph.tool_ops.len(), 26 + 1);
    assert_eq!(corpus.entries.iter().filter(|e| e.flags.has(EntryFlags::INTERRUPTED)).count(), 3);
}

#[test]
fn an_older_cline_history_without_model_info_takes_the_models_of_its_metadata() {
    let mut files = task_files(CLINE_TASK);
    let history = String::from_utf8(files[0].1.clone()).unwrap().replace("\"modelInfo\"", "\"otherInfo\"");
    files[0].1 = history.into_bytes();
    let models = |corpus: &Corpus| -> Vec<String> {
        corpus
            .entries
            .iter()
            .filter(|e| e.kind == EntryKind::Assistant)
            .map(|e| corpus.sym(e.model).to_owned())
            .collect()
    };
    let sonnet = "claude-3-5-sonnet-20241022".to_owned();
    let expected = [vec![sonnet; 6], vec!["claude-sonnet-4-20250514".to_owned()]].concat();
    // In any order of the files; the responses made from the UI messages carry the model too.
    for order in [[0, 1, 2], [0, 2, 1], [2, 1, 0], [1, 2, 0]] {
        let ordered: Vec<(String, Vec<u8>)> = order.iter().map(|&i| files[i].clone()).collect();
        let corpus = load_chunked(&ordered, 0);
        assert_eq!(models(&corpus), expected, "{order:?}");
        assert!(corpus.responses.iter().all(|r| r.model.is_some()), "{order:?}");
    }
    // Without the metadata, no model is made up.
    let corpus = load_chunked(&[files[0].clone(), files[2].clone()], 0);
    assert!(models(&corpus).iter().all(String::is_empty));
}

#[test]
fn amp_thread() {
    let (corpus, graph) = load(AMP);
    assert_eq!(corpus.files[0].format, Format::Amp);
    assert!(corpus.diagnostics.is_empty(), "{:?}", corpus.diagnostics);
    assert_accounted(&corpus, &format_fixture(AMP));
    assert_eq!(graph.sessions.len(), 1);
    let session = &graph.sessions[0];
    assert_eq!(session.id, "T-7b1e2c3d-4f5a-4b6c-8d7e-9f0a1b2c3d4e");
    assert_eq!(session.title, "Rename the config loader");
    assert_eq!(corpus.entries.len(), 12);
    // The working directory: the first tree's file:// URI, decoded.
    assert_eq!(corpus.sym(corpus.envelope(&corpus.entries[0]).cwd), "/home/dev/amp demo");
    // Tokens summed by hand from the four usages; the model of each.
    assert_eq!(
        totals(&session.usage_with_agents),
        (12 + 8 + 10 + 6, 95 + 120 + 60 + 20, 4200 + 300, 4200 + 4500 + 4600)
    );
    assert_eq!(corpus.responses.len(), 4);
    assert!(corpus.responses.iter().all(|r| corpus.sym(r.model) == "claude-sonnet-4-5-20250929"));
    assert!(corpus.responses.iter().all(|r| r.logged_cost_usd.is_none()), "credits are not dollars");
    // Tools: the failed edit, the cancelled command; files touched relative to the tree.
    assert_eq!(
        ops(&corpus, &graph),
        [
            ("Read".to_owned(), ToolCategory::Read, ToolStatus::Ok),
            ("edit_file".to_owned(), ToolCategory::Edit, ToolStatus::Error),
            ("Bash".to_owned(), ToolCategory::Execute, ToolStatus::Interrupted),
        ]
    );
    let edit = op_named(&corpus, &graph, "edit_file")[0];
    assert_eq!(tools::op_files(&corpus, edit), [("src/config.rs".to_owned(), tools::Touch::Edit)]);
    assert_eq!(tools::op_summary(&corpus, op_named(&corpus, &graph, "Bash")[0]), "rg -n load_config");
    assert_eq!(corpus.blocks.iter().filter(|b| b.kind == BlockKind::Thinking).count(), 1);
    // The cancelled response is interrupted; the failed one an API error; the info a notice.
    assert!(corpus.entries[8].flags.has(EntryFlags::INTERRUPTED));
    assert!(corpus.entries[10].flags.has(EntryFlags::API_ERROR));
    assert_eq!(corpus.entries[11].kind, EntryKind::System);
    assert!(block_text(&corpus, &corpus.entries[11], BlockKind::Text).contains("The rename is not done"));
}

#[test]
fn an_amp_thread_cut_anywhere_keeps_the_messages_before_the_cut() {
    let bytes = format_fixture(AMP);
    let whole = load_one(AMP, &bytes).entries.len();
    for cut in (1..bytes.len()).step_by(7) {
        let corpus = load_one(AMP, &bytes[..cut]);
        let counts = corpus.files[0].counts;
        assert!(counts.balanced(), "cut at {cut}: {counts:?}");
        assert_eq!(counts.lines, count_lines(&bytes[..cut]), "cut at {cut}");
        assert!(corpus.entries.len() <= whole);
        let _ = Graph::build(&corpus);
    }
    // Cut inside the fifth message: the four before it are read, one diagnostic at its line.
    let text = String::from_utf8(bytes.clone()).unwrap();
    let at = text.find("\"messageId\": 4").unwrap();
    let corpus = load_one(AMP, &bytes[..at]);
    assert_eq!(corpus.entries.len(), 4);
    assert_eq!(corpus.diagnostics.len(), 1, "{:?}", corpus.diagnostics);
    assert_eq!(corpus.diagnostics[0].kind, DiagnosticKind::TruncatedLine);
    // Broken after the messages: every message is read, one diagnostic.
    let corpus = load_one(AMP, text.replace("\"agentMode\": \"smart\"", "\"agentMode\": smart").as_bytes());
    assert_eq!(corpus.entries.len(), 12);
    assert_eq!(corpus.diagnostics.len(), 1, "{:?}", corpus.diagnostics);
    assert!(corpus.files[0].counts.balanced());
}

#[test]
fn amp_threads_are_sniffed_by_name_then_content() {
    let format = |name: &str, bytes: &[u8]| load_one(name, bytes).files[0].format;
    let bytes = format_fixture(AMP);
    assert_eq!(format("threads/x.json", &bytes), Format::Amp, "an id T-... and messages");
    let one_line = b"{\"v\":1,\"id\":\"T-1\",\"messages\":[{\"role\":\"user\",\"messageId\":0,\"content\":\"hi\"}]}";
    let corpus = load_one("T-1.json", one_line);
    assert_eq!(corpus.files[0].format, Format::Amp);
    assert_eq!((corpus.files[0].counts.lines, corpus.files[0].counts.entries), (1, 1));
    assert_eq!(format("T-2.json", b"{\"id\":\"T-2\",\"created\":1}"), Format::Amp, "a thread without messages yet");
    assert_eq!(format("notes.json", b"{\n \"id\": \"x\"\n}"), Format::Rejected);
    for name in [SDK, ROLLOUT, EVENTS, OLLAMA, PI, PI_LEGACY, GEMINI, GEMINI_LINES] {
        assert_ne!(load(name).0.files[0].format, Format::Amp, "{name}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Any byte of any file of a task changed, the task fed in any slices: no panic, every line
    /// of every file accounted for.
    #[test]
    fn mutated_task_files_never_panic(
        task in 0usize..2,
        which in 0usize..3,
        position in 0usize..20_000,
        byte in any::<u8>(),
        chunk in 1usize..300,
    ) {
        let mut files = task_files([CLINE_TASK, ROO_TASK][task]);
        let bytes = &mut files[which].1;
        let at = position % bytes.len();
        bytes[at] = byte;
        let corpus = load_chunked(&files, chunk);
        for info in &corpus.files {
            prop_assert!(info.counts.balanced());
        }
        let graph = Graph::build(&corpus);
        let _ = summarize(&corpus, &graph);
        let _ = dump_graph(&corpus, &graph);
        for op in &graph.tool_ops {
            let _ = tools::op_summary(&corpus, op);
            let _ = tools::op_files(&corpus, op);
        }
    }
}

#[test]
fn gemini_cli_sessions_are_shared_whole_and_read_back() {
    use sessionscope_engine::share::redacted::{ShareOptions, share_scope};
    use sessionscope_engine::share::scope::Scope;
    for name in [GEMINI, GEMINI_LINES] {
        let (corpus, graph) = load(name);
        let bundle = share_scope(&corpus, &graph, &Scope::All, &ShareOptions::default(), |_| true)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let shared = sessionscope_engine::Loader::read_all(bundle.files.iter().map(|(path, bytes)| (path, bytes)));
        assert_eq!(shared.files[0].format, Format::GeminiCli, "{name}");
        assert!(shared.diagnostics.is_empty(), "{name}: {:?}", shared.diagnostics);
        let original: Vec<_> = corpus.entries.iter().map(|e| readable(&corpus, e)).collect();
        let read_back: Vec<_> = shared.entries.iter().map(|e| readable(&shared, e)).collect();
        assert_eq!(read_back, original, "{name}: every message, whole");
    }
    // The document is one object: shared as one (compact) line.
    let (corpus, graph) = load(GEMINI);
    let bundle = share_scope(&corpus, &graph, &Scope::All, &ShareOptions::default(), |_| true).unwrap();
    assert_eq!(count_lines(&bundle.files[0].1), 1);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// A Gemini CLI header followed by anything, in any slices: no panic, every line accounted
    /// for once, and a diagnostic with a line in the file for what cannot be read.
    #[test]
    fn a_gemini_cli_header_then_garbage_never_panics(tail in proptest::collection::vec(any::<u8>(), 0..600), keep in 0usize..4000, chunk in 1usize..200) {
        let fixture = format_fixture(GEMINI);
        let mut bytes = fixture[..keep.min(fixture.len())].to_vec();
        bytes.extend_from_slice(&tail);
        let files = vec![("chats/session-x.json".to_owned(), bytes.clone())];
        let corpus = load_chunked(&files, chunk);
        let counts = corpus.files[0].counts;
        prop_assert!(counts.balanced(), "{:?}", counts);
        prop_assert_eq!(counts.lines, count_lines(&bytes));
        for d in &corpus.diagnostics {
            prop_assert!(u64::from(d.line) <= counts.lines, "{:?}", d);
        }
        let graph = Graph::build(&corpus);
        let _ = summarize(&corpus, &graph);
    }
}

#[test]
fn tasks_and_threads_can_be_shared_whole_or_in_part() {
    use sessionscope_engine::share::redacted::{ShareOptions, share_scope};
    use sessionscope_engine::share::scope::Scope;
    let loads = [
        load_chunked(&task_files(CLINE_TASK), 0),
        load_chunked(&task_files(ROO_TASK), 0),
        load_chunked(&[(AMP.to_owned(), format_fixture(AMP))], 0),
    ];
    for corpus in &loads {
        let graph = Graph::build(corpus);
        let session = sessionscope_engine::dag::SessionId::new(0);
        let whole = share_scope(corpus, &graph, &Scope::Session(session), &ShareOptions::default(), |_| true);
        let bundle = whole.unwrap_or_else(|e| panic!("{}: {e}", corpus.files[0].path));
        let shared = sessionscope_engine::Loader::read_all(bundle.files.iter().map(|(path, bytes)| (path, bytes)));
        assert_eq!(shared.entries.len(), corpus.entries.len(), "{}", corpus.files[0].path);
        assert_eq!(Graph::build(&shared).sessions[0].id, graph.sessions[0].id, "{}", corpus.files[0].path);
        assert!(shared.diagnostics.is_empty(), "{}: {:?}", corpus.files[0].path, shared.diagnostics);
        // A part: from the second user message on (the result may be a refusal, never a panic).
        if let Some(second) = corpus.entries.iter().enumerate().filter(|(_, e)| e.kind == EntryKind::User).nth(1) {
            let scope = Scope::Subtree(EntryId::new(second.0));
            let _ = share_scope(corpus, &graph, &scope, &ShareOptions::default(), |_| true);
        }
    }
}

#[test]
fn a_history_without_timestamps_takes_the_requests_in_order_and_their_times() {
    let mut files = task_files(CLINE_TASK);
    let history: serde_json::Value = serde_json::from_slice(&files[0].1).unwrap();
    let mut messages = history.as_array().unwrap().clone();
    for message in &mut messages {
        message.as_object_mut().unwrap().remove("ts");
    }
    files[0].1 = serde_json::to_vec_pretty(&messages).unwrap();
    let corpus = load_chunked(&files, 0);
    assert!(corpus.diagnostics.is_empty(), "{:?}", corpus.diagnostics);
    let graph = Graph::build(&corpus);
    assert_eq!(totals(&graph.sessions[0].usage_with_agents), (2560, 780, 1500, 6800));
    // The k-th request to the k-th response: the third one failed its edit with 300 in, 420 out.
    let third = corpus.entries.iter().filter(|e| e.kind == EntryKind::Assistant).nth(2).unwrap();
    assert_eq!(totals(&corpus.responses[third.response.index()].usage), (300, 420, 1500, 0));
    // A response without a time takes its request's; prompts stay without one.
    assert_eq!(corpus.entries[1].timestamp_ms, 1731400001500);
    assert_eq!(corpus.entries[0].timestamp_ms, i64::MIN);
}

#[test]
fn a_gemini_cli_document_read_as_it_grows() {
    let bytes = format_fixture(GEMINI);
    let mut loader = sessionscope_engine::Loader::new();
    let file = loader.add_file(GEMINI, 0);
    let half = bytes.len() / 2;
    loader.push(file, &bytes[..half]);
    // Half of it: the messages in that half, and one diagnostic where it stops.
    let partial = loader.snapshot();
    assert!(partial.files[0].counts.balanced());
    assert!(!partial.entries.is_empty() && partial.entries.len() < 11, "{}", partial.entries.len());
    assert_eq!(partial.diagnostics.len(), 1, "{:?}", partial.diagnostics);
    // All of it, the file not finished yet: the document is whole JSON, read as it stands.
    loader.push(file, &bytes[half..]);
    let whole = loader.snapshot();
    assert!(whole.diagnostics.is_empty(), "{:?}", whole.diagnostics);
    assert_eq!(dump_corpus(&whole), dump_corpus(&loader.finish()));
}

#[test]
fn a_qwen_code_tool_result_without_a_function_response_pairs_by_its_call_id() {
    let text = concat!(
        "{\"uuid\":\"a\",\"parentUuid\":null,\"sessionId\":\"s\",\"timestamp\":\"2026-01-01T00:00:00Z\",\"type\":\"assistant\",\"cwd\":\"/p\",\"version\":\"0.2.1\",\"model\":\"qwen3-coder-plus\",\"message\":{\"role\":\"model\",\"parts\":[{\"functionCall\":{\"id\":\"c1\",\"name\":\"read_file\",\"args\":{\"absolute_path\":\"/p/a.txt\"}}}]}}\n",
        "{\"uuid\":\"b\",\"parentUuid\":\"a\",\"sessionId\":\"s\",\"timestamp\":\"2026-01-01T00:00:01Z\",\"type\":\"tool_result\",\"cwd\":\"/p\",\"version\":\"0.2.1\",\"toolCallResult\":{\"callId\":\"c1\",\"status\":\"error\",\"resultDisplay\":\"File not found\"}}\n",
    );
    let corpus = load_one("s.jsonl", text.as_bytes());
    assert_eq!(corpus.files[0].format, Format::QwenCode);
    assert!(corpus.diagnostics.is_empty(), "{:?}", corpus.diagnostics);
    let graph = Graph::build(&corpus);
    assert_eq!(ops(&corpus, &graph), [("read_file".to_owned(), ToolCategory::Read, ToolStatus::Error)]);
    assert_eq!(block_text(&corpus, entry_at(&corpus, 2), BlockKind::ToolResult), "File not found");
    // An older read_file names its file `absolute_path`: relative to the cwd.
    assert_eq!(tools::op_files(&corpus, &graph.tool_ops[0]), [("a.txt".to_owned(), tools::Touch::Read)]);
    assert_eq!(tools::op_summary(&corpus, &graph.tool_ops[0]), "a.txt");
}

#[test]
fn a_share_that_leaves_thinking_out_never_carries_a_format_it_cannot_take_it_out_of() {
    use sessionscope_engine::redact::DropParts;
    use sessionscope_engine::share::redacted::{ShareOptions, share_scope};
    use sessionscope_engine::share::scope::Scope;
    let options =
        ShareOptions { parts: DropParts { thinking: true, ..DropParts::default() }, ..ShareOptions::default() };
    // An Ollama capture streams its thinking in `<think>` chunks of content: the redactor does not
    // take it apart, so the file stays out of the share rather than carry its thinking.
    let (corpus, graph) = load(OLLAMA);
    let bundle = share_scope(&corpus, &graph, &Scope::All, &options, |_| true).unwrap();
    assert!(bundle.files.is_empty(), "{:?}", bundle.files.iter().map(|f| &f.0).collect::<Vec<_>>());
    assert!(bundle.header.redaction.dropped_lines > 0, "the lines left out are counted");
    let whole = share_scope(&corpus, &graph, &Scope::All, &ShareOptions::default(), |_| true).unwrap();
    assert!(!whole.files.is_empty());
    // The other formats keep their lines, their thinking taken out (see tests/shares.rs).
    for name in [SDK, ROLLOUT, EVENTS, PI, GEMINI, GEMINI_LINES, QWEN, COPILOT, AIDER, AMP] {
        let (corpus, graph) = load(name);
        let bundle = share_scope(&corpus, &graph, &Scope::All, &options, |_| true).unwrap();
        let text: String = bundle.files.iter().map(|(_, b)| String::from_utf8_lossy(b).into_owned()).collect();
        assert!(!text.is_empty() && !text.contains("\"type\":\"thinking\""), "{name}: {text}");
    }
}

/// The Cursor CLI fixture folder: a transcript with three subagents, under
/// `projects/<project slug>/agent-transcripts/<id>/`.
const CURSOR_SESSION: &str = "5d1c2b3a-4e5f-4a6b-8c7d-9e0f1a2b3c4d";

/// A Cursor CLI transcript whose subagents newer versions spawn with `task_v2`.
const CURSOR_TASK_V2_SESSION: &str = "7f6e5d4c-3b2a-4190-8a7b-6c5d4e3f2a10";

fn cursor_folder() -> Vec<(String, Vec<u8>)> {
    cursor_transcript_folder(CURSOR_SESSION)
}

fn cursor_transcript_folder(session: &str) -> Vec<(String, Vec<u8>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let folder = root.join(format!("cursor/projects/home-dev-brewlog/agent-transcripts/{session}"));
    let mut files = vec![folder.join(format!("{session}.jsonl"))];
    let mut agents: Vec<_> = std::fs::read_dir(folder.join("subagents"))
        .expect("the subagents folder")
        .flatten()
        .map(|e| e.path())
        .collect();
    agents.sort();
    files.extend(agents);
    files
        .into_iter()
        .map(|path| {
            let name = path.strip_prefix(&root).expect("under the fixtures").to_string_lossy().into_owned();
            let bytes = std::fs::read(&path).expect("a fixture");
            (name, bytes)
        })
        .collect()
}

#[test]
fn a_cursor_cli_transcript_pairs_its_calls_and_shows_prompts_without_their_tags() {
    let bytes = format_fixture(CURSOR);
    let (corpus, graph) = load(CURSOR);
    assert_eq!(corpus.files[0].format, Format::CursorCli);
    assert_accounted(&corpus, &bytes);
    let counts = corpus.files[0].counts;
    // 11 lines: the successful turn_ended is metadata, the aborted one an entry.
    assert_eq!((counts.lines, counts.entries, counts.metadata), (11, 10, 1));

    // No timestamps: entries chained in file order, the session without a start or end.
    assert!(corpus.entries.iter().all(|e| !e.has_timestamp()));
    assert_eq!(corpus.entry_parent_uuid(entry_at(&corpus, 9)), Some(corpus.entry_uuid(entry_at(&corpus, 7))));
    let session = &graph.sessions[0];
    assert_eq!(session.id, "cursor-transcript");
    assert_eq!((session.first_timestamp_ms, session.last_timestamp_ms), (i64::MAX, i64::MIN));
    let rows = sessionscope_engine::history::session_rows(&corpus, &graph, "demo");
    assert_eq!((rows[0].agent.as_str(), rows[0].start_ms, rows[0].end_ms), ("Cursor CLI", None, None));

    // The prompt without its tags, timestamp and context; the raw line keeps them.
    let prompt = entry_at(&corpus, 1);
    assert_eq!(
        corpus.first_text(prompt).as_deref(),
        Some("The test `parses_empty_brew` fails. Find out why and fix it.")
    );
    assert_eq!(session.title, "The test `parses_empty_brew` fails. Find out why and fix it.");
    let raw = corpus.span_str(prompt.file, prompt.line_span);
    assert!(raw.contains("<user_query>") && raw.contains("<context>"), "{raw}");
    assert_eq!(corpus.first_text(entry_at(&corpus, 9)).as_deref(), Some("now run the whole suite"));

    // Reasoning Cursor did not keep is redacted thinking; kept thinking is thinking.
    let kinds = |line| corpus.blocks_of(entry_at(&corpus, line)).iter().map(|b| b.kind).collect::<Vec<_>>();
    assert_eq!(kinds(2), [BlockKind::RedactedThinking, BlockKind::Text, BlockKind::ToolUse]);
    assert_eq!(block_text(&corpus, entry_at(&corpus, 4), BlockKind::Thinking).len(), 69);
    // A message with role and content at the top level reads as one inside `message`.
    assert_eq!(
        corpus.first_text(entry_at(&corpus, 7)).as_deref(),
        Some("Fixed: an empty file now parses to an empty brew.")
    );

    // Calls pair with their results, an error too; Cursor leaves most calls without one.
    assert_eq!(
        ops(&corpus, &graph),
        [
            ("Shell".to_owned(), ToolCategory::Execute, ToolStatus::Error),
            ("Read".to_owned(), ToolCategory::Read, ToolStatus::Ok),
            ("StrReplace".to_owned(), ToolCategory::Edit, ToolStatus::NoResult),
            ("Shell".to_owned(), ToolCategory::Execute, ToolStatus::NoResult),
        ]
    );
    assert_eq!(tools::op_summary(&corpus, &graph.tool_ops[0]), "cargo test parses_empty_brew");

    // The aborted turn is an interrupted system entry with Cursor's words.
    let aborted = entry_at(&corpus, 11);
    assert_eq!((aborted.kind, corpus.sym(aborted.subtype)), (EntryKind::System, "turn_ended"));
    assert!(aborted.flags.has(EntryFlags::INTERRUPTED));
    assert_eq!(corpus.first_text(aborted).as_deref(), Some("User aborted request."));

    // No model, no tokens: no response, no cost, nothing made up.
    assert!(corpus.responses.is_empty());
    assert_eq!(totals(&session.usage_with_agents), (0, 0, 0, 0));
    assert_eq!(session.cost_with_agents_usd, 0.0);
}

#[test]
fn a_cursor_cli_task_folder_nests_the_subagents_its_calls_name() {
    let files = cursor_folder();
    let corpus = load_chunked(&files, 0);
    assert!(corpus.diagnostics.is_empty(), "{:?}", corpus.diagnostics);
    assert!(corpus.files.iter().all(|f| f.format == Format::CursorCli && f.counts.balanced()));
    let graph = Graph::build(&corpus);
    assert_eq!(graph.sessions.len(), 1, "the subagents are of the transcript's session");
    let session = &graph.sessions[0];
    assert_eq!(session.id, CURSOR_SESSION);
    assert_eq!(session.agents.len(), 3);
    let agent = |id: &str| graph.conversations.iter().find(|c| c.agent_name == id).unwrap_or_else(|| panic!("{id}"));
    // Named by the Task call's result: nested under that call.
    let named = agent("8e0f6a4b-1c2d-4e3f-9a5b-6c7d8e9f0a1b");
    assert_eq!(named.kind, ConversationKind::Agent);
    assert_eq!(named.linked_by, Some(LinkRule::CallNamesAgent));
    assert_eq!((named.agent_type.as_str(), named.description.as_str()), ("explore", "Search the docs"));
    let call = &corpus.entries[named.spawn_entry.index()];
    assert_eq!(corpus.span_str(call.file, corpus.blocks[named.spawn_block.index()].id), "toolu_t1");
    // Its first prompt is the other call's prompt (the tags taken off).
    let by_prompt = agent("2b3c4d5e-6f70-4182-93a4-b5c6d7e8f901");
    assert_eq!(by_prompt.linked_by, Some(LinkRule::Prompt));
    assert_eq!(corpus.span_str(call.file, corpus.blocks[by_prompt.spawn_block.index()].id), "toolu_t2");
    assert_eq!(by_prompt.depth, 1);
    // Named by no call: an agent of the session, on its own.
    let alone = agent("c4d5e6f7-0809-4a1b-8c2d-3e4f5a6b7c8d");
    assert_eq!(alone.linked_by, None);
    assert_eq!(graph.unlinked_agents.len(), 1);
    assert!(corpus.entries.iter().filter(|e| e.file > 0).all(|e| e.is_sidechain()));
    // The subagents' calls pair in their own conversations.
    let statuses: Vec<(String, ToolStatus)> =
        graph.tool_ops.iter().map(|op| (corpus.sym(op.name).to_owned(), op.status)).collect();
    assert!(statuses.contains(&("Grep".to_owned(), ToolStatus::Ok)), "{statuses:?}");
    assert!(statuses.contains(&("Glob".to_owned(), ToolStatus::NoResult)), "{statuses:?}");

    // The history: one unit, one row of the agent, in the project its slug names.
    let paths: Vec<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
    let units = sessionscope_engine::history::group_into_units(&paths, &[]);
    assert_eq!(units.len(), 1);
    assert_eq!(units[0].files.len(), 4);
    assert_eq!(units[0].files[0], 0, "the transcript first");
    let rows = sessionscope_engine::history::index_unit(&corpus, &graph, &units[0].folder).rows;
    assert_eq!(rows.len(), 1);
    let row = &rows[0];
    assert_eq!((row.agent.as_str(), row.project.as_str()), ("Cursor CLI", "home-dev-brewlog"));
    assert_eq!((row.agents, row.start_ms, row.cost_usd), (3, None, 0.0));
    assert_eq!(row.first_prompt, "Where is the brew format documented? Check the docs and the tests in parallel.");
}

#[test]
fn a_cursor_cli_task_v2_call_nests_the_subagent_it_names_or_prompts() {
    let files = cursor_transcript_folder(CURSOR_TASK_V2_SESSION);
    let corpus = load_chunked(&files, 0);
    assert!(corpus.diagnostics.is_empty(), "{:?}", corpus.diagnostics);
    assert!(corpus.files.iter().all(|f| f.format == Format::CursorCli && f.counts.balanced()));
    let graph = Graph::build(&corpus);
    assert_eq!(graph.sessions.len(), 1, "the subagents are of the transcript's session");
    let session = &graph.sessions[0];
    assert_eq!((session.id.as_str(), session.agents.len()), (CURSOR_TASK_V2_SESSION, 3));
    // task_v2 is a call of the agent category, summarised by its description.
    let calls = op_named(&corpus, &graph, "task_v2");
    assert_eq!(calls.len(), 2);
    assert!(calls.iter().all(|op| op.category == ToolCategory::Agent));
    assert_eq!(tools::op_summary(&corpus, calls[0]), "Read the changelog (explore)");
    let call_id = |conv: &sessionscope_engine::dag::Conversation| {
        let call = &corpus.entries[conv.spawn_entry.index()];
        corpus.span_str(call.file, corpus.blocks[conv.spawn_block.index()].id).to_owned()
    };
    let agent = |id: &str| graph.conversations.iter().find(|c| c.agent_name == id).unwrap_or_else(|| panic!("{id}"));
    // Its arguments name the subagent (whose prompt says more than the call's): by the id.
    let named = agent("a1b2c3d4-5e6f-4a70-8b91-c2d3e4f5a6b7");
    assert_eq!(named.linked_by, Some(LinkRule::CallNamesAgent));
    assert_eq!(call_id(named), "toolu_v2a");
    assert_eq!(
        (named.agent_type.as_str(), named.description.as_str(), named.depth),
        ("explore", "Read the changelog", 1)
    );
    // No id in its arguments: by the prompt, which the subagent's first message repeats.
    let prompted = agent("0c1d2e3f-4a5b-4c6d-9e7f-8a9b0c1d2e3f");
    assert_eq!(prompted.linked_by, Some(LinkRule::Prompt));
    assert_eq!(call_id(prompted), "toolu_v2b");
    assert_eq!(graph.conversations[prompted.parent.index()].kind, ConversationKind::Main);
    // Named by no call: on its own, never dropped.
    let alone = agent("e9d8c7b6-a5f4-4e3d-8c2b-1a0f9e8d7c6b");
    assert_eq!((alone.linked_by, alone.entries), (None, 2));
    assert_eq!(graph.unlinked_agents.len(), 1);
    // The history: one unit, its row counts the three subagents' messages.
    let paths: Vec<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
    let units = sessionscope_engine::history::group_into_units(&paths, &[]);
    assert_eq!((units.len(), units[0].files.len()), (1, 4));
    let rows = sessionscope_engine::history::index_unit(&corpus, &graph, &units[0].folder).rows;
    assert_eq!((rows.len(), rows[0].agents, rows[0].messages), (1, 3, 13));
}

#[test]
fn cursor_cli_transcripts_are_sniffed_by_content_and_folder_and_survive_garbage() {
    let format = |name: &str, bytes: &[u8]| load_one(name, bytes).files[0].format;
    let nested = b"{\"role\":\"user\",\"message\":{\"content\":[{\"type\":\"text\",\"text\":\"<user_query>hi</user_query>\"}]}}\n";
    assert_eq!(format("x.jsonl", nested), Format::CursorCli);
    let ended = b"{\"type\":\"turn_ended\",\"status\":\"success\"}\n";
    assert_eq!(format("x.jsonl", ended), Format::CursorCli);
    // Role and content at the top level: a Cursor transcript in its folder, not elsewhere.
    let flat = b"{\"role\":\"user\",\"content\":\"<user_query>hi</user_query>\"}\n";
    assert_eq!(format("p/agent-transcripts/s1/s1.jsonl", flat), Format::CursorCli);
    assert_eq!(format("x.jsonl", flat), Format::Rejected);
    // A first line longer than the window, by its start.
    let mut long = b"{\"role\":\"user\",\"message\":{\"content\":\"".to_vec();
    long.extend(std::iter::repeat_n(b'a', 200_000));
    long.extend(b"\"}}\n");
    assert_eq!(format("x.jsonl", &long), Format::CursorCli);
    // Other formats with a role are not taken for it.
    for name in [SDK, ROLLOUT, EVENTS, OLLAMA, PI, PI_LEGACY, QWEN, COPILOT, GEMINI_LINES] {
        assert_ne!(load(name).0.files[0].format, Format::CursorCli, "{name}");
    }
    assert_ne!(load_one("claude.jsonl", &fixture("every-line-type.jsonl")).files[0].format, Format::CursorCli);

    // Cut at every byte: no panic, every line accounted for.
    let bytes = format_fixture(CURSOR);
    for cut in 0..=bytes.len() {
        let piece = &bytes[..cut];
        let corpus = load_one("p/agent-transcripts/s1/s1.jsonl", piece);
        assert!(corpus.files[0].counts.balanced(), "cut at {cut}");
        assert_eq!(corpus.files[0].counts.lines, count_lines(piece), "cut at {cut}");
        let graph = Graph::build(&corpus);
        let _ = summarize(&corpus, &graph);
    }
    // Garbage and odd shapes between messages: each a diagnostic or read leniently.
    let mut text = String::from_utf8(bytes).unwrap();
    text.push_str("not json\n[1,2]\n");
    text.push_str("{\"role\":\"assistant\",\"message\":{\"content\":[{\"type\":\"tool_use\",\"id\":7,\"input\":\"x\"},3,null]}}\n");
    text.push_str("{\"role\":\"user\",\"message\":{\"content\":{\"type\":\"text\"}}}\n");
    text.push_str("{\"role\":\"user\",\"message\":\"<user_query>a bare string</user_query>\"}\n");
    text.push_str("{\"role\":7,\"message\":[]}\n{}\n");
    text.push_str("{\"type\":\"turn_ended\",\"status\":\"error\",\"error\":{\"code\":500}}\n");
    text.push_str("{\"role\":\"assistant\",\"message\":{\"content\":\"cut");
    let corpus = load_one(CURSOR, text.as_bytes());
    assert_eq!(corpus.files[0].format, Format::CursorCli);
    let counts = corpus.files[0].counts;
    assert!(counts.balanced(), "{counts:?}");
    assert_eq!(counts.lines, count_lines(text.as_bytes()));
    let found: Vec<(u32, DiagnosticKind)> = corpus.diagnostics.iter().map(|d| (d.line, d.kind)).collect();
    assert_eq!(
        found,
        [(12, DiagnosticKind::InvalidJson), (13, DiagnosticKind::NotAnObject), (20, DiagnosticKind::TruncatedLine)]
    );
    assert_eq!(corpus.first_text(entry_at(&corpus, 16)).as_deref(), Some("a bare string"));
    let failed = entry_at(&corpus, 19);
    assert!(failed.flags.has(EntryFlags::API_ERROR));
    assert_eq!(corpus.first_text(failed).as_deref(), Some("the turn ended: error"));
    let graph = Graph::build(&corpus);
    let _ = summarize(&corpus, &graph);
    let _ = dump_graph(&corpus, &graph);
}
