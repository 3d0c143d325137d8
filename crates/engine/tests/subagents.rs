//! Subagents that other agents write in a file or folder of their own, nested under the tool
//! call that spawned them: Cline and Roo Code subtasks (a task folder each), Gemini CLI
//! subagents (`chats/<session>/<agent>.jsonl`) and Qwen Code background agents
//! (`subagents/<session>/agent-<id>.jsonl`). Hand-written fixtures in
//! `tests/fixtures/tasks/subtasks/` and `tests/fixtures/subagents/`; each set has a parent, its
//! subagents, and one that no call names, which stays on its own.

mod common;

use std::path::Path;

use common::*;
use sessionscope_engine::Corpus;
use sessionscope_engine::dag::{Conversation, ConversationKind, Graph, LinkRule, ToolStatus};
use sessionscope_engine::dump::{dump_corpus, dump_graph};
use sessionscope_engine::history::{self, group_into_units, index_unit, needs_hint, unit_hint};
use sessionscope_engine::model::*;

fn fixture_folder(relative: &str) -> Vec<(String, Vec<u8>)> {
    read_folder(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(relative))
}

fn totals(usage: &Usage) -> (u64, u64, u64, u64) {
    (usage.input_tokens, usage.output_tokens, usage.cache_creation_input_tokens, usage.cache_read_input_tokens)
}

fn agent<'g>(graph: &'g Graph, id: &str) -> &'g Conversation {
    graph.conversations.iter().find(|c| c.agent_name == id).unwrap_or_else(|| panic!("no agent {id}"))
}

/// The id of the call that spawned `conv`.
fn call_id(corpus: &Corpus, conv: &Conversation) -> String {
    let call = &corpus.entries[conv.spawn_entry.index()];
    corpus.span_str(call.file, corpus.blocks[conv.spawn_block.index()].id).to_owned()
}

fn dump(corpus: &Corpus) -> String {
    let graph = Graph::build(corpus);
    format!("{}{}", dump_corpus(corpus), dump_graph(corpus, &graph))
}

/// Every file read, every line accounted for once, no diagnostic; and the same model whatever
/// slices the files come in.
fn load_checked(files: &[(String, Vec<u8>)]) -> (Corpus, Graph) {
    let corpus = load_chunked(files, 0);
    assert!(corpus.diagnostics.is_empty(), "{:?}", corpus.diagnostics);
    for (info, (_, bytes)) in corpus.files.iter().zip(files) {
        assert!(info.counts.balanced(), "{}: {:?}", info.path, info.counts);
        assert_eq!(info.counts.lines, count_lines(bytes), "{}", info.path);
    }
    let whole = dump(&corpus);
    for chunk in [1, 7, 64] {
        assert_eq!(whole, dump(&load_chunked(files, chunk)), "in slices of {chunk} bytes");
    }
    let graph = Graph::build(&corpus);
    (corpus, graph)
}

/// The hints the history asks of the files that need one, as the app and the command line do.
fn hints(files: &[(String, Vec<u8>)]) -> Vec<Option<String>> {
    files
        .iter()
        .map(|(path, bytes)| needs_hint(path).then(|| unit_hint(path, &bytes[..bytes.len().min(64 << 10)])).flatten())
        .collect()
}

/// Each task folder read alone: the sum of its sessions' usage.
fn usage_alone(files: &[(String, Vec<u8>)]) -> Usage {
    let paths: Vec<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
    let mut sum = Usage::default();
    for unit in group_into_units(&paths, &[]) {
        let unit_files: Vec<(String, Vec<u8>)> = unit.files.iter().map(|&i| files[i].clone()).collect();
        let corpus = load_chunked(&unit_files, 0);
        for session in &Graph::build(&corpus).sessions {
            sum.add(&session.usage_with_agents);
        }
    }
    sum
}

const ROO_PARENT: &str = "9c0d1e2f-3a4b-4c5d-8e6f-7a8b9c0d1e2f";
const ROO_CHILD: &str = "5e1f2a3b-4c5d-4e6f-9a0b-1c2d3e4f5a6b";
const ROO_GRANDCHILD: &str = "7a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d";
const ROO_ORPHAN: &str = "d4e5f6a7-b8c9-4d0e-8f1a-2b3c4d5e6f70";

#[test]
fn roo_code_subtasks_nest_under_the_new_task_calls_whose_results_name_them() {
    let files = fixture_folder("tasks/subtasks/roo-delegation");
    assert_eq!(files.len(), 12, "four task folders of three files");
    let (corpus, graph) = load_checked(&files);
    assert!(corpus.files.iter().all(|f| f.format == Format::RooCode));
    insta::assert_snapshot!("subtasks-roo-delegation", dump(&corpus));

    // One session, the parent's: its title, its working directory, its three subtasks.
    assert_eq!(graph.sessions.len(), 1, "{:?}", graph.sessions.iter().map(|s| &s.id).collect::<Vec<_>>());
    let session = &graph.sessions[0];
    assert_eq!(session.id, ROO_PARENT);
    assert_eq!(session.title, "Add CSV import to the ledger app, with tests.");
    assert_eq!(session.agents.len(), 3);
    assert_eq!(session.files.len(), 12, "every file of the four tasks is the session's");

    // The subtask is nested under the parent's new_task call that its result names.
    let child = agent(&graph, ROO_CHILD);
    assert_eq!(child.kind, ConversationKind::Agent);
    assert_eq!(child.linked_by, Some(LinkRule::ToolResultAgentId));
    assert_eq!(call_id(&corpus, child), "call_nt1");
    assert_eq!(graph.conversations[child.parent.index()].kind, ConversationKind::Main);
    assert_eq!(child.depth, 1);
    assert_eq!(
        (child.agent_type.as_str(), child.description.as_str()),
        ("code", "Write a CSV parser for ledger entries in src/csv.ts.")
    );
    assert_eq!(child.entries, 6);
    // Its own subtask under its own call, one level deeper.
    let grandchild = agent(&graph, ROO_GRANDCHILD);
    assert_eq!(grandchild.linked_by, Some(LinkRule::ToolResultAgentId));
    assert_eq!(call_id(&corpus, grandchild), "call_nt2");
    assert_eq!(graph.conversations[grandchild.parent.index()].agent_name, ROO_CHILD);
    assert_eq!(grandchild.depth, 2);
    // A subtask that its history item says is the parent's, but that no call asked for nor
    // result names: of the session, on its own, never dropped.
    let orphan = agent(&graph, ROO_ORPHAN);
    assert_eq!((orphan.linked_by, orphan.entries), (None, 2));
    assert_eq!(graph.unlinked_agents.len(), 1);
    // The calls pair with their results; the subtasks' messages are sidechains.
    let new_tasks: Vec<_> = graph.tool_ops.iter().filter(|op| corpus.sym(op.name) == "new_task").collect();
    assert_eq!(new_tasks.len(), 2);
    assert!(new_tasks.iter().all(|op| op.status == ToolStatus::Ok));
    let parent_files: Vec<FileId> =
        (0..corpus.files.len() as FileId).filter(|&f| corpus.files[f as usize].path.contains(ROO_PARENT)).collect();
    for entry in &corpus.entries {
        assert_eq!(entry.is_sidechain(), !parent_files.contains(&entry.file), "line {} of {}", entry.line, entry.file);
    }

    // Every request of the four tasks, summed by hand from their UI messages.
    assert_eq!(totals(&session.usage_with_agents), (5700, 1050, 3700, 5000));
    assert!((session.cost_with_agents_usd - 0.0365).abs() < 1e-9, "{}", session.cost_with_agents_usd);
    assert_eq!(session.usage_with_agents, usage_alone(&files), "as the tasks read alone");

    // The history: the subtasks' history items name their parents, so the four folders are one unit,
    // the parent's conversation first, and one row with the subtasks' tokens.
    let paths: Vec<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
    let hints = hints(&files);
    assert_eq!(hints.iter().flatten().filter(|h| h.as_str() == ROO_PARENT).count(), 2);
    assert_eq!(hints.iter().flatten().filter(|h| h.as_str() == ROO_CHILD).count(), 1);
    let units = group_into_units(&paths, &hints);
    assert_eq!(units.len(), 1, "{units:?}");
    assert_eq!(units[0].files.len(), 12);
    assert!(paths[units[0].files[0]].ends_with(&format!("{ROO_PARENT}/api_conversation_history.json")));
    let rows = index_unit(&corpus, &graph, &units[0].folder).rows;
    assert_eq!(rows.len(), 1);
    let row = &rows[0];
    assert_eq!(
        (row.session_id.as_str(), row.agent.as_str(), row.project.as_str()),
        (ROO_PARENT, "Roo Code", "/home/dev/ledger")
    );
    assert_eq!((row.agents, row.messages, row.files.len()), (3, 4 + 6 + 4 + 2, 12));
    let u = &row.usage;
    assert_eq!(
        (u.input_tokens, u.output_tokens, u.cache_creation_input_tokens, u.cache_read_input_tokens),
        (5700, 1050, 3700, 5000)
    );
    assert!((row.cost_usd - 0.0365).abs() < 1e-9);
    assert!(history::file_problems(&corpus, &graph).is_empty(), "no file of a subtask is left without a session");

    // Read in any order, the tasks nest the same way.
    let mut reversed = files.clone();
    reversed.reverse();
    let corpus = load_chunked(&reversed, 0);
    let graph = Graph::build(&corpus);
    assert_eq!(graph.sessions.len(), 1);
    assert_eq!(graph.sessions[0].id, ROO_PARENT);
    assert_eq!(agent(&graph, ROO_GRANDCHILD).depth, 2);
    assert_eq!(call_id(&corpus, agent(&graph, ROO_CHILD)), "call_nt1");
}

#[test]
fn a_share_of_a_task_keeps_its_subtasks_unless_they_are_left_out() {
    use sessionscope_engine::redact::DropParts;
    use sessionscope_engine::share::redacted::{ShareOptions, share_scope};
    use sessionscope_engine::share::scope::Scope;
    let files = fixture_folder("tasks/subtasks/roo-delegation");
    let (corpus, graph) = load_checked(&files);
    let share = |subagents: bool| {
        let options =
            ShareOptions { parts: DropParts { subagents, ..DropParts::default() }, ..ShareOptions::default() };
        share_scope(&corpus, &graph, &Scope::Session(sessionscope_engine::dag::SessionId::new(0)), &options, |_| true)
            .expect("a share")
    };
    let text = |bundle: &sessionscope_engine::share::Bundle| -> String {
        bundle.files.iter().map(|(_, b)| String::from_utf8_lossy(b).into_owned()).collect()
    };
    // With its subtasks: they read back nested as they were.
    let whole = share(false);
    assert_eq!(whole.files.len(), 12);
    let back = sessionscope_engine::Loader::read_all(whole.files.iter().map(|(p, b)| (p.as_str(), b.as_slice())));
    let back_graph = Graph::build(&back);
    assert_eq!((back_graph.sessions.len(), back_graph.sessions[0].agents.len()), (1, 3));
    // Without them: none of their files, none of their words.
    let alone = share(true);
    assert_eq!(alone.files.len(), 3, "{:?}", alone.files.iter().map(|f| &f.0).collect::<Vec<_>>());
    assert!(!text(&alone).contains("export function parse"));
    assert!(!text(&alone).contains("4 passing"));
    assert_eq!(alone.header.redaction.dropped_parts, ["subagents"]);
}

#[test]
fn a_subtask_loaded_without_the_task_that_spawned_it_is_a_session_of_its_own() {
    let files: Vec<(String, Vec<u8>)> =
        fixture_folder("tasks/subtasks/roo-delegation").into_iter().filter(|(p, _)| p.contains(ROO_CHILD)).collect();
    assert_eq!(files.len(), 3);
    let (corpus, graph) = load_checked(&files);
    assert_eq!(graph.sessions.len(), 1);
    assert_eq!(graph.sessions[0].id, ROO_CHILD);
    assert!(graph.sessions[0].agents.is_empty());
    assert!(corpus.entries.iter().all(|e| !e.is_sidechain()));
    // The history groups it alone: its root is not beside it.
    let paths: Vec<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(group_into_units(&paths, &hints(&files)).len(), 1);
    // With its own subtask, it is that one's parent.
    let with_grandchild: Vec<(String, Vec<u8>)> = fixture_folder("tasks/subtasks/roo-delegation")
        .into_iter()
        .filter(|(p, _)| p.contains(ROO_CHILD) || p.contains(ROO_GRANDCHILD))
        .collect();
    let corpus = load_chunked(&with_grandchild, 0);
    let graph = Graph::build(&corpus);
    assert_eq!((graph.sessions.len(), graph.sessions[0].id.as_str()), (1, ROO_CHILD));
    assert_eq!(agent(&graph, ROO_GRANDCHILD).depth, 1);
    let paths: Vec<&str> = with_grandchild.iter().map(|(p, _)| p.as_str()).collect();
    let units = group_into_units(&paths, &hints(&with_grandchild));
    assert_eq!(units.len(), 1, "the grandchild's root is not here; its parent is: {units:?}");
}

#[test]
fn an_older_roo_code_subtask_nests_under_the_call_that_asked_its_first_message() {
    let files = fixture_folder("tasks/subtasks/roo-xml");
    let (corpus, graph) = load_checked(&files);
    insta::assert_snapshot!("subtasks-roo-xml", dump(&corpus));
    // The parent with its subtask, and a task that is no one's subtask.
    let ids: Vec<&str> = graph.sessions.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, ["0b1c2d3e-4f5a-4b6c-9d7e-8f9a0b1c2d3e", "a9b8c7d6-e5f4-4a3b-9c2d-1e0f9a8b7c6d"]);
    let child = agent(&graph, "6c7d8e9f-0a1b-4c2d-8e3f-4a5b6c7d8e9f");
    assert_eq!(child.linked_by, Some(LinkRule::Prompt));
    // The XML call of the parent's second message (its first call).
    assert_eq!(call_id(&corpus, child), "0b1c2d3e-4f5a-4b6c-9d7e-8f9a0b1c2d3e:1:call0");
    assert_eq!((child.agent_type.as_str(), child.depth), ("architect", 1));
    assert_eq!(child.description, "Draft a README section for the ledger CLI: install, import, report.");
    let op = graph.tool_ops.iter().find(|op| corpus.sym(op.name) == "new_task").expect("the call");
    assert_eq!(op.status, ToolStatus::Ok, "[new_task completed] Result: is its result");
    assert!(graph.sessions[1].agents.is_empty());
    // The subtask's requests are in the parent's totals: as the tasks read alone.
    let parent = &graph.sessions[0];
    assert_eq!(totals(&parent.usage_with_agents), (3220, 440, 2400, 2400));
    assert!((parent.cost_with_agents_usd - 0.0198).abs() < 1e-9, "{}", parent.cost_with_agents_usd);
    let mut both = parent.usage_with_agents;
    both.add(&graph.sessions[1].usage_with_agents);
    assert_eq!(both, usage_alone(&files));
    // No file of these tasks names another task: the history, which groups by the files it reads
    // first, lists the three tasks on their own.
    let paths: Vec<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(group_into_units(&paths, &hints(&files)).len(), 3);
}

#[test]
fn a_cline_new_task_nests_the_task_it_handed_its_context_to() {
    let files = fixture_folder("tasks/subtasks/cline");
    let (corpus, graph) = load_checked(&files);
    assert!(corpus.files.iter().all(|f| f.format == Format::Cline));
    insta::assert_snapshot!("subtasks-cline", dump(&corpus));
    assert_eq!(graph.sessions.len(), 1);
    let session = &graph.sessions[0];
    assert_eq!((session.id.as_str(), session.title.as_str()), ("1767300000000", "Migrate the config loader to TOML."));
    let child = agent(&graph, "1767300090000");
    assert_eq!(child.linked_by, Some(LinkRule::Prompt));
    assert_eq!(call_id(&corpus, child), "toolu_nt");
    assert_eq!(
        (child.agent_type.as_str(), child.description.as_str()),
        ("", "Current work: moving src/config.rs from JSON to TOML.")
    );
    // Hand sums of the three UI requests (they replace the responses' metrics).
    assert_eq!(totals(&session.usage_with_agents), (3200, 230, 0, 6000));
    assert_eq!(session.usage_with_agents, usage_alone(&files));
    let rows = index_unit(&corpus, &graph, "tasks").rows;
    assert_eq!((rows.len(), rows[0].agents, rows[0].agent.as_str()), (1, 1, "Cline"));
}

#[test]
fn task_links_that_loop_or_name_nothing_never_panic_nor_drop_a_task() {
    let task = |id: &str, prompt: &str, spawn: &str| -> Vec<(String, Vec<u8>)> {
        let history = format!(
            r#"[{{"role":"user","content":[{{"type":"text","text":"<task>\n{prompt}\n</task>"}}],"ts":1}},{{"role":"assistant","content":[{{"type":"tool_use","id":"c-{id}","name":"new_task","input":{{"message":"{spawn}"}}}}],"ts":2}}]"#
        );
        vec![(format!("rooveterinaryinc.roo-cline/tasks/{id}/api_conversation_history.json"), history.into_bytes())]
    };
    let item = |id: &str, parent: &str| {
        (
            format!("rooveterinaryinc.roo-cline/tasks/{id}/history_item.json"),
            format!(r#"{{"id":"{id}","parentTaskId":"{parent}","rootTaskId":"{parent}"}}"#).into_bytes(),
        )
    };
    // Each asks for the other, each names the other its parent, one names itself.
    let mut files = task("a", "do b", "do a");
    files.extend(task("b", "do a", "do b"));
    files.push(item("a", "b"));
    files.push(item("b", "a"));
    files.extend(task("c", "do c", "do c"));
    files.push(item("c", "c"));
    let corpus = load_chunked(&files, 0);
    let graph = Graph::build(&corpus);
    // a and b make one session (one of them the other's subtask), c its own; every entry is in one.
    assert_eq!(graph.sessions.len(), 2, "{:?}", graph.sessions.iter().map(|s| &s.id).collect::<Vec<_>>());
    assert_eq!(graph.nodes.len(), corpus.entries.len());
    assert_eq!(graph.sessions.iter().map(|s| s.entries).sum::<u32>(), 6);
    let paths: Vec<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
    let units = group_into_units(&paths, &hints(&files));
    assert_eq!(units.iter().map(|u| u.files.len()).sum::<usize>(), files.len(), "{units:?}");
    // Broken history items: diagnostics, no panic, the task read.
    for broken in [&b"[1,2]"[..], b"{\"parentTaskId\":", b"not json", b"{\"parentTaskId\":7}"] {
        let mut files = task("d", "x", "y");
        files.push(("rooveterinaryinc.roo-cline/tasks/d/history_item.json".to_owned(), broken.to_vec()));
        let corpus = load_chunked(&files, 0);
        let graph = Graph::build(&corpus);
        assert_eq!(graph.sessions.len(), 1);
        assert!(corpus.files.iter().all(|f| f.counts.balanced()));
        let _ = unit_hint(&files[1].0, broken);
    }
}

#[test]
fn the_real_roo_code_task_names_no_subtask_folder_its_calls_keep_their_results() {
    let Some(real) = real_fixtures("the_real_roo_code_task_names_no_subtask_folder_its_calls_keep_their_results")
    else {
        return;
    };
    let Some((_, dir)) = real.every_folder().into_iter().find(|(name, _)| name == "roo-code") else {
        panic!("the real fixtures have no roo-code folder")
    };
    let files: Vec<(String, Vec<u8>)> = read_folder(&dir);
    let corpus = load_chunked(&files, 0);
    let graph = Graph::build(&corpus);
    // 13 subtask_result messages in its UI messages; in its API history the new_task calls (one
    // refused, "a tool has already been used") and their `[new_task completed] Result:` texts.
    // No file names a subtask's id, and the subtasks' folders are not among the fixtures: the
    // calls show their results, no subtask is nested.
    let results = corpus.metas.iter().filter(|m| corpus.sym(m.type_name) == "subtask_result").count();
    assert_eq!(results, 13);
    let new_tasks: Vec<_> = graph.tool_ops.iter().filter(|op| corpus.sym(op.name) == "new_task").collect();
    assert!(!new_tasks.is_empty());
    assert!(new_tasks.iter().filter(|op| op.status == ToolStatus::Ok).count() >= 2, "{new_tasks:?}");
    assert_eq!(graph.sessions.len(), 1);
    assert!(graph.sessions[0].agents.is_empty());
    assert!(graph.unlinked_agents.is_empty());
}

const GEMINI_SESSION: &str = "4b7c9d21-6e5f-4a3b-9c8d-7e6f5a4b3c2d";

#[test]
fn gemini_cli_subagents_in_their_session_folder_nest_under_the_calls_that_ran_them() {
    let files = fixture_folder("subagents/gemini");
    assert_eq!(files.len(), 4);
    let (corpus, graph) = load_checked(&files);
    assert!(corpus.files.iter().all(|f| f.format == Format::GeminiCli), "{:?}", corpus.files);
    insta::assert_snapshot!("subagents-gemini", dump(&corpus));
    assert_eq!(graph.sessions.len(), 1, "{:?}", graph.sessions.iter().map(|s| &s.id).collect::<Vec<_>>());
    let session = &graph.sessions[0];
    assert_eq!(session.id, GEMINI_SESSION);
    // The session's summary names it; a subagent's (its result) does not.
    assert_eq!(session.title, "Empty March report");
    assert_eq!(session.agents.len(), 3);
    // The calls named after the agents are of the agent category.
    let calls: Vec<_> =
        graph.tool_ops.iter().filter(|op| op.category == sessionscope_engine::dag::ToolCategory::Agent).collect();
    assert_eq!(calls.len(), 2);
    // The call whose record names the agent: its result reports it.
    let named = agent(&graph, "k3j9x2");
    assert_eq!(named.linked_by, Some(LinkRule::ToolResultAgentId));
    assert_eq!(call_id(&corpus, named), "codebase_investigator-1");
    assert_eq!(named.depth, 1);
    // The call that names none: by what it asked, which the agent's first message holds.
    let asked = agent(&graph, "p8q2w7");
    assert_eq!(asked.linked_by, Some(LinkRule::Prompt));
    assert_eq!(call_id(&corpus, asked), "generalist-2");
    // An agent no call ran: of the session, on its own.
    let alone = agent(&graph, "z0r9t1");
    assert_eq!((alone.linked_by, alone.entries), (None, 2));
    assert_eq!(graph.unlinked_agents.len(), 1);
    assert!(corpus.entries.iter().filter(|e| e.file != 3).all(|e| e.is_sidechain()));
    // Every response's tokens, summed by hand.
    assert_eq!(totals(&session.usage_with_agents), (7300, 292, 0, 6400));

    // The history: the session's folder joins the session file whose name ends with its id.
    let paths: Vec<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
    let units = group_into_units(&paths, &hints(&files));
    assert_eq!(units.len(), 1, "{units:?}");
    assert!(paths[units[0].files[0]].ends_with("session-2026-03-04T10-00-4b7c9d21.jsonl"));
    let rows = index_unit(&corpus, &graph, &units[0].folder).rows;
    assert_eq!(rows.len(), 1);
    let hash = "7c1e4b9a2d3f5e6a8b0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d0e1f2a";
    assert_eq!((rows[0].agents, rows[0].project.as_str(), rows[0].title.as_str()), (3, hash, "Empty March report"));
    assert_eq!(rows[0].usage.input_tokens, 7300);

    // A subagent's file read without its session: a session named by the folder, no main
    // thread, nothing dropped.
    let alone: Vec<(String, Vec<u8>)> = files.iter().filter(|(p, _)| p.ends_with("k3j9x2.jsonl")).cloned().collect();
    let corpus = load_chunked(&alone, 0);
    let graph = Graph::build(&corpus);
    assert_eq!(graph.sessions.len(), 1);
    assert_eq!(graph.sessions[0].id, GEMINI_SESSION);
    assert_eq!(graph.nodes.len(), corpus.entries.len());
}

const QWEN_SESSION: &str = "0f1e2d3c-4b5a-4697-8877-665544332211";

#[test]
fn qwen_code_background_agents_nest_under_the_calls_their_meta_files_or_prompts_name() {
    let files = fixture_folder("subagents/qwen");
    assert_eq!(files.len(), 6);
    let (corpus, graph) = load_checked(&files);
    insta::assert_snapshot!("subagents-qwen", dump(&corpus));
    assert_eq!(graph.sessions.len(), 1, "{:?}", graph.sessions.iter().map(|s| &s.id).collect::<Vec<_>>());
    let session = &graph.sessions[0];
    assert_eq!((session.id.as_str(), session.agents.len()), (QWEN_SESSION, 3));
    assert_eq!(session.title, "Which importers have no tests?");
    // Its meta file names the call that launched it.
    let meta = agent(&graph, "explore-7f3c");
    assert_eq!(meta.linked_by, Some(LinkRule::MetaFile));
    assert_eq!(call_id(&corpus, meta), "call_ag1");
    assert_eq!((meta.agent_type.as_str(), meta.description.as_str()), ("explore", "List the importers"));
    // No meta file: the call whose prompt its first message is.
    let prompted = agent(&graph, "general-2b4d");
    assert_eq!(prompted.linked_by, Some(LinkRule::Prompt));
    assert_eq!(call_id(&corpus, prompted), "call_ag2");
    // A meta file that names no call, a prompt no call asked: on its own.
    let alone = agent(&graph, "general-9e8f");
    assert_eq!(alone.linked_by, None);
    assert_eq!(graph.unlinked_agents.len(), 1);
    assert_eq!(totals(&session.usage_with_agents), (9100, 201, 0, 10000));

    // The history: `subagents/<session>/` joins `chats/<session>.jsonl`, the meta files too.
    let paths: Vec<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
    let units = group_into_units(&paths, &hints(&files));
    assert_eq!(units.len(), 1, "{units:?}");
    assert_eq!(units[0].files.len(), 6);
    assert!(paths[units[0].files[0]].ends_with(&format!("chats/{QWEN_SESSION}.jsonl")));
    let rows = index_unit(&corpus, &graph, &units[0].folder).rows;
    assert_eq!(rows.len(), 1);
    assert_eq!(
        (rows[0].agents, rows[0].agent.as_str(), rows[0].project.as_str()),
        (3, "Qwen Code", "/home/dev/ledger")
    );
    assert_eq!(rows[0].usage.input_tokens, 9100);
    assert!(history::file_problems(&corpus, &graph).is_empty());
}

#[test]
fn a_session_as_markdown_quotes_each_subagent_under_the_call_that_started_it() {
    use sessionscope_engine::share::markdown::{MarkdownOptions, session_markdown};
    let (corpus, graph) = load_checked(&fixture_folder("subagents/qwen"));
    let markdown = session_markdown(&corpus, &graph, 0, &MarkdownOptions::default());
    let at = |text: &str| markdown.find(text).unwrap_or_else(|| panic!("{text:?} is not in:\n{markdown}"));
    // Each linked agent is quoted right after its call, before the main thread goes on.
    let first_call = at("<summary>agent: List the importers</summary>");
    let first_agent = at("> **Subagent (explore): List the importers**");
    let second_call = at("<details><summary>agent: List the tests</summary>");
    let second_agent = at("> **Subagent (general-purpose): List the tests**");
    let main_goes_on = at("The OFX importer has no tests.");
    assert!(first_call < first_agent && first_agent < second_call, "{markdown}");
    assert!(second_call < second_agent && second_agent < main_goes_on, "{markdown}");
    assert!(markdown[first_agent..second_call].contains("> csv.ts reads CSV, ofx.ts reads OFX."));
    // Its messages are quoted too: no heading of its own starts a line.
    assert!(markdown[first_agent..second_call].lines().all(|line| line.is_empty() || line.starts_with('>')));
    // The agent no call started comes after, in a section of its own; each agent is written once.
    let alone = at("\n## Subagent (general-purpose): Check the licence headers\n");
    assert!(alone > main_goes_on);
    assert_eq!(markdown.matches("List the importers**").count(), 1);
    assert_eq!(markdown.matches("## Subagent").count(), 1);
}
