//! Tool calls paired with their results, their categories and one-line summaries, and the
//! turns (the assistant lines answering one prompt) that group them.

use std::hash::BuildHasher;
use std::sync::LazyLock;

use hashbrown::HashTable;
use memchr::memmem::Finder;
use rustc_hash::FxBuildHasher;
use serde::{Deserialize, Serialize};

use super::tree::{is_prompt, preorder};
use super::*;
use crate::model::{Block, BlockKind, Entry, EntryKind};
use crate::small_json::{self, Value};

/// What a tool does, for icons, filters and statistics.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize, PartialOrd, Ord)]
pub enum ToolCategory {
    Read,
    Search,
    Edit,
    Execute,
    Web,
    Agent,
    PlanTodo,
    Mcp,
    Other,
}

impl ToolCategory {
    pub const ALL: [ToolCategory; 9] = [
        ToolCategory::Read,
        ToolCategory::Search,
        ToolCategory::Edit,
        ToolCategory::Execute,
        ToolCategory::Web,
        ToolCategory::Agent,
        ToolCategory::PlanTodo,
        ToolCategory::Mcp,
        ToolCategory::Other,
    ];

    pub fn of(name: &str) -> ToolCategory {
        match name {
            "Read" | "NotebookRead" | "ReadMcpResourceTool" | "ListMcpResourcesTool" => ToolCategory::Read,
            "Grep" | "Glob" | "LS" | "ToolSearch" => ToolCategory::Search,
            // Aider's SEARCH/REPLACE blocks are read as `Edit` calls, with Claude Code's input.
            "Edit" | "MultiEdit" | "Write" | "NotebookEdit" | "apply_patch" | "file_change" => ToolCategory::Edit,
            "Bash" | "BashOutput" | "KillShell" | "KillBash" | "PowerShell" | "TaskOutput" | "TaskStop" | "shell"
            | "exec_command" | "local_shell" | "shell_command" | "container.exec" | "command_execution"
            | "write_stdin" => ToolCategory::Execute,
            // Codex's experimental file tools.
            "read_file" | "view_image" => ToolCategory::Read,
            "list_dir" | "grep_files" => ToolCategory::Search,
            // Pi's built-in tools.
            "read" => ToolCategory::Read,
            "grep" | "find" | "ls" => ToolCategory::Search,
            "edit" | "write" => ToolCategory::Edit,
            "bash" => ToolCategory::Execute,
            // Gemini CLI's built-in tools (read_file is Codex's too).
            "read_many_files" => ToolCategory::Read,
            "grep_search" | "search_file_content" | "glob" | "list_directory" => ToolCategory::Search,
            "write_file" | "replace" => ToolCategory::Edit,
            "run_shell_command" => ToolCategory::Execute,
            "google_web_search" => ToolCategory::Web,
            "write_todos" => ToolCategory::PlanTodo,
            // Gemini CLI's built-in subagents, each a tool named after it (and the tool that
            // delegated to one by name).
            "codebase_investigator" | "cli_help" | "generalist" | "delegate_to_agent" => ToolCategory::Agent,
            // Cline's and Roo Code's tools (read_file is Codex's too).
            "list_files" | "search_files" | "list_code_definition_names" | "codebase_search" => ToolCategory::Search,
            "write_to_file" | "replace_in_file" | "apply_diff" | "search_and_replace" | "insert_content"
            | "edit_file" => ToolCategory::Edit,
            // Amp's (Read, Grep and Bash are named as Claude Code's; edit_file as Cline's).
            "create_file" => ToolCategory::Edit,
            "execute_command" => ToolCategory::Execute,
            "browser_action" => ToolCategory::Web,
            "new_task" => ToolCategory::Agent,
            "update_todo_list" | "plan_mode_respond" | "focus_chain" => ToolCategory::PlanTodo,
            "use_mcp_tool" | "access_mcp_resource" | "load_mcp_documentation" => ToolCategory::Mcp,
            // GitHub Copilot CLI's tools (`edit`, `bash`, `grep` as above).
            "view" => ToolCategory::Read,
            "create" | "str_replace_editor" => ToolCategory::Edit,
            "powershell" | "read_bash" | "write_bash" | "stop_bash" | "list_bash" | "read_powershell"
            | "write_powershell" | "stop_powershell" | "list_powershell" => ToolCategory::Execute,
            "task" => ToolCategory::Agent,
            // Qwen Code's (`task` in older versions).
            "agent" => ToolCategory::Agent,
            // Cursor CLI's tools (Read, Grep, Glob, LS, Write, Task as Claude Code names them;
            // newer versions spawn subagents with `task_v2`).
            "Shell" | "AwaitShell" => ToolCategory::Execute,
            "task_v2" => ToolCategory::Agent,
            "StrReplace" | "Delete" | "EditNotebook" => ToolCategory::Edit,
            // OpenCode's tools (`read`, `edit`, `write`, `bash`, `grep`, `glob`, `task` as above).
            "list" => ToolCategory::Search,
            "patch" | "multiedit" => ToolCategory::Edit,
            "webfetch" | "websearch" | "codesearch" => ToolCategory::Web,
            "todowrite" | "todoread" => ToolCategory::PlanTodo,
            // Cursor's (`read_file`, `list_dir`, `edit_file`, `grep_search`, `codebase_search`,
            // `web_search` as above).
            "run_terminal_cmd" => ToolCategory::Execute,
            "file_search" | "glob_file_search" => ToolCategory::Search,
            "search_replace" | "delete_file" => ToolCategory::Edit,
            "todo_write" => ToolCategory::PlanTodo,
            "WebFetch" | "WebSearch" | "web_search" | "web_fetch" => ToolCategory::Web,
            "Task" | "Agent" => ToolCategory::Agent,
            "TodoWrite" | "TodoRead" | "ExitPlanMode" | "EnterPlanMode" | "TaskCreate" | "TaskUpdate" | "TaskList"
            | "TaskGet" | "update_plan" | "todo_list" => ToolCategory::PlanTodo,
            _ if name.starts_with("mcp__") => ToolCategory::Mcp,
            _ => ToolCategory::Other,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            ToolCategory::Read => "read",
            ToolCategory::Search => "search",
            ToolCategory::Edit => "edit",
            ToolCategory::Execute => "execute",
            ToolCategory::Web => "web",
            ToolCategory::Agent => "agent",
            ToolCategory::PlanTodo => "plan/todo",
            ToolCategory::Mcp => "mcp",
            ToolCategory::Other => "other",
        }
    }
}

/// How a tool call ended.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize, PartialOrd, Ord)]
pub enum ToolStatus {
    Ok,
    Error,
    Interrupted,
    /// No result was logged (the session ended, or the result line is missing).
    NoResult,
    /// A result whose call is not in the loaded files.
    ResultWithoutCall,
}

impl ToolStatus {
    pub fn name(self) -> &'static str {
        match self {
            ToolStatus::Ok => "ok",
            ToolStatus::Error => "error",
            ToolStatus::Interrupted => "interrupted",
            ToolStatus::NoResult => "no result",
            ToolStatus::ResultWithoutCall => "result without a call",
        }
    }
}

const INTERRUPTED_MARK: &[u8] = b"[Request interrupted by user";

fn is_call(block: &Block) -> bool {
    matches!(block.kind, BlockKind::ToolUse | BlockKind::ServerToolUse)
}

fn is_result(block: &Block) -> bool {
    matches!(block.kind, BlockKind::ToolResult | BlockKind::ServerToolResult)
}

/// Pairs every call with its result by id (across split lines, files and sidechains).
pub(crate) fn pair_tool_calls(corpus: &Corpus, graph: &mut Graph) {
    let hasher = FxBuildHasher;
    let suppressed = extracted_duplicates(corpus, graph);
    // Calls by id: (hash, op).
    let mut calls: HashTable<(u64, OpId)> = HashTable::new();
    let mut ops: Vec<ToolOp> = Vec::new();
    for (e, entry) in corpus.entries.iter().enumerate() {
        for (b, block) in corpus.blocks_of(entry).iter().enumerate() {
            let block_index = BlockId::new(entry.blocks_start as usize + b);
            if !is_call(block) || suppressed.contains(&(EntryId::new(e), b as u32)) {
                continue;
            }
            let name = corpus.sym(block.name);
            let op = OpId::new(ops.len());
            ops.push(ToolOp {
                call_entry: EntryId::new(e),
                call_block: block_index,
                result_entry: EntryId::NONE,
                result_block: BlockId::NONE,
                name: block.name,
                category: if block.flags & Block::SPAWNS_AGENT != 0 {
                    ToolCategory::Agent
                } else {
                    ToolCategory::of(name)
                },
                status: ToolStatus::NoResult,
                duration_ms: -1,
                conversation: graph.nodes[e].conversation,
                turn: TurnId::NONE,
            });
            let id = corpus.span_bytes(entry.file, block.id);
            if !id.is_empty() {
                let hash = hasher.hash_one(id);
                let known =
                    calls.find(hash, |&(h, o)| h == hash && op_call_id(corpus, &ops[o.index()]) == id).is_some();
                if !known {
                    calls.insert_unique(hash, (hash, op), |&(h, _)| h);
                }
            }
        }
    }
    // Results, by the id they answer; older tool-call entries are answered by their child.
    for (e, entry) in corpus.entries.iter().enumerate() {
        for (b, block) in corpus.blocks_of(entry).iter().enumerate() {
            if !is_result(block) {
                continue;
            }
            let block_index = BlockId::new(entry.blocks_start as usize + b);
            let id = corpus.span_bytes(entry.file, block.id);
            let hash = hasher.hash_one(id);
            let found =
                calls.find(hash, |&(h, o)| h == hash && op_call_id(corpus, &ops[o.index()]) == id).map(|&(_, o)| o);
            match found.filter(|&o| ops[o.index()].result_entry.is_none()) {
                Some(o) => set_result(corpus, &mut ops[o.index()], EntryId::new(e), block_index, block),
                None => ops.push(ToolOp {
                    call_entry: EntryId::NONE,
                    call_block: BlockId::NONE,
                    result_entry: EntryId::new(e),
                    result_block: block_index,
                    name: Sym::NONE,
                    category: ToolCategory::Other,
                    status: ToolStatus::ResultWithoutCall,
                    duration_ms: -1,
                    conversation: graph.nodes[e].conversation,
                    turn: TurnId::NONE,
                }),
            }
        }
    }
    for op in &mut ops {
        if op.result_entry.is_some() || op.call_entry.is_none() {
            continue;
        }
        let block = corpus.blocks[op.call_block.index()];
        if block.flags & Block::LEGACY == 0 {
            continue;
        }
        // `subtype: "tool_use"` entries: the first child that is not the assistant going on.
        let answer = graph.children(op.call_entry).find(|&c| {
            let kind = corpus.entries[c.index()].kind;
            matches!(kind, EntryKind::System | EntryKind::User | EntryKind::ToolResult)
        });
        if let Some(answer) = answer {
            op.result_entry = answer;
            let entry = &corpus.entries[answer.index()];
            op.status =
                if entry.flags.has(crate::model::EntryFlags::ERROR) { ToolStatus::Error } else { ToolStatus::Ok };
            op.duration_ms = duration(&corpus.entries[op.call_entry.index()], entry);
        }
    }
    graph.tool_ops = ops;
}

fn op_call_id<'a>(corpus: &'a Corpus, op: &ToolOp) -> &'a [u8] {
    let entry = &corpus.entries[op.call_entry.index()];
    corpus.span_bytes(entry.file, corpus.blocks[op.call_block.index()].id)
}

fn set_result(corpus: &Corpus, op: &mut ToolOp, entry_index: EntryId, block_index: BlockId, block: &Block) {
    let entry = &corpus.entries[entry_index.index()];
    op.result_entry = entry_index;
    op.result_block = block_index;
    let body = corpus.span_bytes(entry.file, block.body);
    let tool_use_result = corpus.span_bytes(entry.file, entry.tool_use_result);
    // Searched for in every tool result: the searchers are made once, not per result (making
    // them was 0.8% of `sessionscope index`'s profile).
    static INTERRUPTED_IN_BODY: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(INTERRUPTED_MARK));
    static INTERRUPTED_IN_RESULT: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"\"interrupted\":true"));
    let interrupted = INTERRUPTED_IN_BODY.find(body).is_some() || INTERRUPTED_IN_RESULT.find(tool_use_result).is_some();
    op.status = if block.flags & Block::IS_ERROR != 0 && !interrupted {
        ToolStatus::Error
    } else if interrupted {
        ToolStatus::Interrupted
    } else {
        ToolStatus::Ok
    };
    op.duration_ms = duration(&corpus.entries[op.call_entry.index()], entry);
}

fn duration(call: &Entry, result: &Entry) -> i64 {
    if call.has_timestamp() && result.has_timestamp() {
        result.timestamp_ms.saturating_sub(call.timestamp_ms).max(0)
    } else {
        -1
    }
}

/// An assistant tool_use that an extracted `<assistant>_tool_<n>` message repeats is counted
/// once, as the extracted message (which carries its result).
fn extracted_duplicates(corpus: &Corpus, graph: &Graph) -> Vec<(EntryId, u32)> {
    let mut out = Vec::new();
    for (e, entry) in corpus.entries.iter().enumerate() {
        if entry.kind != EntryKind::ToolUse {
            continue;
        }
        let parent = graph.nodes[e].parent;
        if parent.is_none() {
            continue;
        }
        let uuid = corpus.entry_uuid(entry);
        let Some(n) = uuid.rsplit_once("_tool_").and_then(|(_, n)| n.parse::<usize>().ok()) else { continue };
        let parent_entry = &corpus.entries[parent.index()];
        let mut seen = 0;
        for (b, block) in corpus.blocks_of(parent_entry).iter().enumerate() {
            if is_call(block) {
                if seen == n {
                    out.push((parent, b as u32));
                    break;
                }
                seen += 1;
            }
        }
    }
    out
}

/// Groups entries into turns (a prompt and the lines answering it, along the tree so each
/// branch has its own), and stores the tool ops turn by turn.
pub(crate) fn group_turns(corpus: &Corpus, graph: &mut Graph) {
    let n = graph.nodes.len();
    let mut turn_of = vec![TurnId::NONE; n];
    let mut turns: Vec<Turn> = Vec::new();
    for e in preorder(graph) {
        let entry = &corpus.entries[e.index()];
        let node = graph.nodes[e.index()];
        let starts_turn = node.parent.is_none() || is_prompt(entry);
        let turn = if starts_turn {
            turns.push(Turn {
                conversation: node.conversation,
                prompt: if is_prompt(entry) { e } else { EntryId::NONE },
                first_assistant: EntryId::NONE,
                last_entry: e,
                ops_start: 0,
                ops_len: 0,
                usage: Usage::default(),
                cost_usd: 0.0,
            });
            TurnId::new(turns.len() - 1)
        } else {
            turn_of[node.parent.index()]
        };
        turn_of[e.index()] = turn;
        let t = &mut turns[turn.index()];
        t.last_entry = t.last_entry.max(e);
        if entry.kind == EntryKind::Assistant && (t.first_assistant.is_none() || e < t.first_assistant) {
            t.first_assistant = e;
        }
    }
    // Turns in entry order of their first line, conversation by conversation.
    let mut order: Vec<usize> = (0..turns.len()).collect();
    let start_of = |t: &Turn| if t.prompt.is_some() { t.prompt } else { t.first_assistant.min(t.last_entry) };
    order.sort_by_key(|&t| (turns[t].conversation, start_of(&turns[t])));
    let mut renumber = vec![TurnId::new(0); turns.len()];
    for (new, &old) in order.iter().enumerate() {
        renumber[old] = TurnId::new(new);
    }
    let mut sorted: Vec<Turn> = order.iter().map(|&t| turns[t].clone()).collect();
    for t in &mut turn_of {
        if t.is_some() {
            *t = renumber[t.index()];
        }
    }

    let mut ops = std::mem::take(&mut graph.tool_ops);
    for op in &mut ops {
        let anchor = if op.call_entry.is_some() { op.call_entry } else { op.result_entry };
        op.turn = turn_of[anchor.index()];
    }
    ops.sort_by_key(|op| {
        let anchor = if op.call_entry.is_some() { op.call_entry } else { op.result_entry };
        (op.turn, anchor, op.call_block)
    });
    let mut op_of_entry = vec![OpId::NONE; n];
    for (i, op) in ops.iter().enumerate() {
        let turn = &mut sorted[op.turn.index()];
        if turn.ops_len == 0 {
            turn.ops_start = i as u32;
        }
        turn.ops_len += 1;
        for entry in [op.call_entry, op.result_entry] {
            if entry.is_some() && op_of_entry[entry.index()].is_none() {
                op_of_entry[entry.index()] = OpId::new(i);
            }
        }
    }
    for turn in &sorted {
        let conv = &mut graph.conversations[turn.conversation.index()];
        if turn.prompt.is_some() {
            conv.turns += 1;
        }
        conv.tool_calls += turn.ops_len;
    }
    for op in &ops {
        let conv = graph.conversations[op.conversation.index()].session.index();
        let session = &mut graph.sessions[conv];
        match op.status {
            ToolStatus::ResultWithoutCall => session.tool_results += 1,
            ToolStatus::NoResult => {
                session.tool_uses += 1;
                session.unpaired_tool_uses += 1;
            }
            _ => {
                session.tool_uses += 1;
                session.tool_results += 1;
            }
        }
    }
    graph.tool_ops = ops;
    graph.turns = sorted;
    graph.op_of_entry = op_of_entry;
    graph.turn_of_entry = turn_of;
}

/// What a tool call did, in a line: `Read src/main.rs`, `Bash cargo test`, `Edit lib.rs +12 -3`.
pub fn op_summary(corpus: &Corpus, op: &ToolOp) -> String {
    if op.call_entry.is_none() {
        return "result without a call".into();
    }
    let (input, cwd) = op_input(corpus, op);
    summarize_input(corpus.sym(op.name), &input, cwd)
}

/// The decoded input of an operation's call (`Null` without a call), and the `cwd` it ran in.
pub fn op_input<'c>(corpus: &'c Corpus, op: &ToolOp) -> (Value, &'c str) {
    let (Some(entry), Some(block)) =
        (corpus.entries.get(op.call_entry.index()), corpus.blocks.get(op.call_block.index()).copied())
    else {
        return (Value::Null, "");
    };
    let cwd = corpus.sym(corpus.envelope(entry).cwd);
    let raw = corpus.span_bytes(entry.file, block.body);
    let input = if block.flags & Block::JSON_IN_STRING != 0 {
        let text = crate::json::decode_value(raw);
        match small_json::parse(text.as_bytes()) {
            Ok(Value::Object(call)) => call.get("input").cloned().unwrap_or_default(),
            _ => Value::Null,
        }
    } else {
        small_json::parse(raw).unwrap_or_default()
    };
    (input, cwd)
}

/// How an operation touched a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Touch {
    Read,
    Edit,
    Write,
}

/// Where a tool's input names the files it touches.
#[derive(Clone, Copy)]
enum FilesIn {
    /// `file_path` (or `notebook_path`, Pi's `path`, older Gemini CLI's `absolute_path`), touched
    /// this way.
    Path(Touch),
    /// A Codex `apply_patch` patch.
    Patch,
    /// A Codex SDK `file_change` item's `changes`.
    Changes,
    /// Copilot CLI's `str_replace_editor`: `path`, touched as its `command` says.
    Editor,
}

fn files_in(name: &str) -> Option<FilesIn> {
    Some(match name {
        "Read" | "NotebookRead" => FilesIn::Path(Touch::Read),
        "Edit" | "MultiEdit" | "NotebookEdit" => FilesIn::Path(Touch::Edit),
        "Write" => FilesIn::Path(Touch::Write),
        // Pi's built-in tools name their file `path` (Qwen Code's edit, `file_path`).
        "read" => FilesIn::Path(Touch::Read),
        "edit" => FilesIn::Path(Touch::Edit),
        "write" => FilesIn::Path(Touch::Write),
        // Gemini CLI's: `file_path` (`absolute_path` in older versions).
        "read_file" => FilesIn::Path(Touch::Read),
        "replace" => FilesIn::Path(Touch::Edit),
        "write_file" => FilesIn::Path(Touch::Write),
        // Cline's and Roo Code's: `path`, or Roo Code's `args.file[].path` (read_file, apply_diff).
        "write_to_file" | "create_file" => FilesIn::Path(Touch::Write),
        "replace_in_file" | "apply_diff" | "search_and_replace" | "insert_content" | "edit_file" => {
            FilesIn::Path(Touch::Edit)
        }
        // GitHub Copilot CLI's file tools name it `path` too.
        "view" => FilesIn::Path(Touch::Read),
        "create" => FilesIn::Path(Touch::Write),
        "str_replace_editor" => FilesIn::Editor,
        // Cursor CLI's: `path`.
        "StrReplace" | "Delete" | "EditNotebook" => FilesIn::Path(Touch::Edit),
        "apply_patch" => FilesIn::Patch,
        "file_change" => FilesIn::Changes,
        _ => return None,
    })
}

/// The files an operation's call touches; the input is only decoded for tools that name files.
pub fn op_files(corpus: &Corpus, op: &ToolOp) -> Vec<(String, Touch)> {
    let Some(how) = files_in(corpus.sym(op.name)) else { return Vec::new() };
    let (input, cwd) = op_input(corpus, op);
    files_from(how, &input, cwd)
}

/// The files an operation reads, edits or writes (paths relative to `cwd` when inside it):
/// Claude Code's Read/Edit/MultiEdit/Write/Notebook tools, Pi's read/edit/write, Gemini CLI's
/// read_file/replace/write_file, Copilot CLI's view/edit/create/str_replace_editor, Codex
/// `apply_patch` patches (every file they add, update or delete) and Codex SDK `file_change` items.
pub fn touched_files(name: &str, input: &Value, cwd: &str) -> Vec<(String, Touch)> {
    files_in(name).map_or_else(Vec::new, |how| files_from(how, input, cwd))
}

fn files_from(how: FilesIn, input: &Value, cwd: &str) -> Vec<(String, Touch)> {
    let path = |key: &str| input.get(key).and_then(|v| v.as_str());
    match how {
        FilesIn::Path(touch) => path("file_path")
            .or_else(|| path("notebook_path"))
            .or_else(|| path("path"))
            .or_else(|| path("absolute_path"))
            .map(|p| vec![(relative_path(p, cwd), touch)])
            .unwrap_or_else(|| args_files(input).into_iter().map(|p| (relative_path(p, cwd), touch)).collect()),
        FilesIn::Editor => {
            let touch = match input.get("command").and_then(|c| c.as_str()) {
                Some("view") => Touch::Read,
                Some("create") => Touch::Write,
                _ => Touch::Edit,
            };
            path("path").map(|p| vec![(relative_path(p, cwd), touch)]).unwrap_or_default()
        }
        FilesIn::Patch => {
            let patch = input.as_str().or_else(|| path("input")).unwrap_or("");
            patch.lines().filter_map(patch_file).map(|(file, touch)| (relative_path(file, cwd), touch)).collect()
        }
        FilesIn::Changes => input
            .get("changes")
            .and_then(|c| c.as_array())
            .into_iter()
            .flatten()
            .filter_map(|change| {
                let file = change.get("path")?.as_str()?;
                let touch =
                    if change.get("kind").and_then(|k| k.as_str()) == Some("add") { Touch::Write } else { Touch::Edit };
                Some((relative_path(file, cwd), touch))
            })
            .collect(),
    }
}

/// The files of Roo Code's multi-file form: `{"args": {"file": {"path"} | [{"path"}, ...]}}`.
fn args_files(input: &Value) -> Vec<&str> {
    let Some(file) = input.get("args").and_then(|a| a.get("file")) else { return Vec::new() };
    let files = match file.as_array() {
        Some(list) => list.iter().collect(),
        None => vec![file],
    };
    files.into_iter().filter_map(|f| f.get("path").and_then(|p| p.as_str())).collect()
}

/// The file a line of an `apply_patch` patch starts, and how: `*** Add File: <path>` writes it,
/// `*** Update File:` and `*** Delete File:` edit it.
fn patch_file(line: &str) -> Option<(&str, Touch)> {
    if let Some(file) = line.strip_prefix("*** Add File: ") {
        return Some((file.trim(), Touch::Write));
    }
    line.strip_prefix("*** Update File: ")
        .or_else(|| line.strip_prefix("*** Delete File: "))
        .map(|file| (file.trim(), Touch::Edit))
}

/// The one-line summary of a tool's input.
pub fn summarize_input(name: &str, input: &Value, cwd: &str) -> String {
    let text = |key: &str| input.get(key).and_then(|v| v.as_str()).unwrap_or("");
    let path = |key: &str| relative_path(text(key), cwd);
    let first_line = |s: &str| crate::cut::prefix(s.lines().next().unwrap_or(""), 120);
    let summary = match name {
        "Read" | "NotebookRead" => {
            // Cursor CLI's Read names its file `path`.
            let key = ["file_path", "notebook_path", "path"].into_iter().find(|k| input.get(k).is_some());
            let mut s = path(key.unwrap_or("file_path"));
            if let Some(offset) = input.get("offset").and_then(|v| v.as_u64()) {
                let limit = input.get("limit").and_then(|v| v.as_u64()).unwrap_or(0);
                s.push_str(&format!(":{}-{}", offset, offset + limit));
            }
            s
        }
        // Cursor CLI's Write names them `path` and `contents`.
        "Write" if input.get("file_path").is_none() => {
            format!("{} +{}", path("path"), text("contents").lines().count())
        }
        "Write" => {
            let lines = text("content").lines().count();
            format!("{} +{lines}", path("file_path"))
        }
        "Edit" => {
            let (added, removed) = line_delta(text("old_string"), text("new_string"));
            format!("{} +{added} -{removed}", path("file_path"))
        }
        "MultiEdit" => {
            let (mut added, mut removed) = (0, 0);
            for edit in input.get("edits").and_then(|v| v.as_array()).into_iter().flatten() {
                let old = edit.get("old_string").and_then(|v| v.as_str()).unwrap_or("");
                let new = edit.get("new_string").and_then(|v| v.as_str()).unwrap_or("");
                let (a, r) = line_delta(old, new);
                added += a;
                removed += r;
            }
            format!("{} +{added} -{removed}", path("file_path"))
        }
        "NotebookEdit" => path("notebook_path"),
        // Amp's Bash names it `cmd`.
        "Bash" | "PowerShell" => first_line(if text("command").is_empty() { text("cmd") } else { text("command") }),
        "BashOutput" | "KillShell" | "KillBash" => text("bash_id").to_owned() + text("shell_id"),
        "Grep" => {
            let within = relative_path(input.get("path").and_then(|v| v.as_str()).unwrap_or(""), cwd);
            if within.is_empty() { text("pattern").to_owned() } else { format!("{} in {within}", text("pattern")) }
        }
        "Glob" => {
            let within = relative_path(input.get("path").and_then(|v| v.as_str()).unwrap_or(""), cwd);
            if within.is_empty() { text("pattern").to_owned() } else { format!("{} in {within}", text("pattern")) }
        }
        "LS" => path("path"),
        "WebFetch" | "web_fetch" => text("url").to_owned(),
        "WebSearch" | "web_search" => text("query").to_owned(),
        "Task" | "Agent" | "task_v2" => {
            let kind = text("subagent_type");
            let description = text("description");
            if kind.is_empty() { description.to_owned() } else { format!("{description} ({kind})") }
        }
        "TodoWrite" => {
            let todos = input.get("todos").and_then(|v| v.as_array());
            let total = todos.map_or(0, |t| t.len());
            let done = todos.map_or(0, |t| {
                t.iter().filter(|t| t.get("status").and_then(|s| s.as_str()) == Some("completed")).count()
            });
            format!("{total} todos, {done} done")
        }
        "ExitPlanMode" => first_line(text("plan")),
        // Pi's built-in tools: `path`, `oldText`/`newText`.
        "read" => {
            let mut s = path("path");
            if let Some(offset) = input.get("offset").and_then(|v| v.as_u64()) {
                let limit = input.get("limit").and_then(|v| v.as_u64()).unwrap_or(0);
                s.push_str(&format!(":{}-{}", offset, offset + limit));
            }
            s
        }
        // Qwen Code's edit: `file_path`, `old_string`/`new_string`.
        "edit" if input.get("old_string").is_some() => {
            let (added, removed) = line_delta(text("old_string"), text("new_string"));
            format!("{} +{added} -{removed}", path("file_path"))
        }
        // Pi's `oldText`/`newText`, Copilot CLI's `old_str`/`new_str`.
        "edit" => {
            let old = if input.get("oldText").is_some() { text("oldText") } else { text("old_str") };
            let new = if input.get("newText").is_some() { text("newText") } else { text("new_str") };
            let (added, removed) = line_delta(old, new);
            format!("{} +{added} -{removed}", path("path"))
        }
        "write" => format!("{} +{}", path("path"), text("content").lines().count()),
        "bash" => first_line(text("command")),
        "grep" | "find" => {
            let within = path("path");
            if within.is_empty() { text("pattern").to_owned() } else { format!("{} in {within}", text("pattern")) }
        }
        "ls" => path("path"),
        // Gemini CLI's built-in tools: `file_path` (older `absolute_path`), `old_string`/`new_string`.
        "read_file" if ["file_path", "absolute_path"].iter().any(|key| input.get(key).is_some()) => {
            let mut s = path(if input.get("file_path").is_some() { "file_path" } else { "absolute_path" });
            if let Some(offset) = input.get("offset").and_then(|v| v.as_u64()) {
                let limit = input.get("limit").and_then(|v| v.as_u64()).unwrap_or(0);
                s.push_str(&format!(":{}-{}", offset, offset + limit));
            }
            s
        }
        "write_file" => format!("{} +{}", path("file_path"), text("content").lines().count()),
        "replace" => {
            let (added, removed) = line_delta(text("old_string"), text("new_string"));
            format!("{} +{added} -{removed}", path("file_path"))
        }
        "run_shell_command" => first_line(text("command")),
        "grep_search" | "search_file_content" | "glob" => {
            let within = path(if input.get("dir_path").is_some() { "dir_path" } else { "path" });
            if within.is_empty() { text("pattern").to_owned() } else { format!("{} in {within}", text("pattern")) }
        }
        "list_directory" => path(if input.get("dir_path").is_some() { "dir_path" } else { "path" }),
        "google_web_search" => text("query").to_owned(),
        // Cline's and Roo Code's tools: `path` (or Roo Code's `args.file[].path`), `command`,
        // `regex`, `server_name`/`tool_name`, `mode`/`message`.
        "read_file" | "apply_diff" if input.get("path").is_none() => {
            let files = args_files(input);
            let first = relative_path(files.first().copied().unwrap_or(""), cwd);
            if files.len() > 1 { format!("{first} (+{} more)", files.len() - 1) } else { first }
        }
        "read_file"
        | "replace_in_file"
        | "apply_diff"
        | "search_and_replace"
        | "insert_content"
        | "list_files"
        | "list_code_definition_names" => path("path"),
        "write_to_file" | "create_file" => format!("{} +{}", path("path"), text("content").lines().count()),
        "execute_command" => first_line(text("command")),
        "search_files" => {
            let within = path("path");
            if within.is_empty() { text("regex").to_owned() } else { format!("{} in {within}", text("regex")) }
        }
        "use_mcp_tool" => format!("{} {}", text("server_name"), text("tool_name")),
        // Roo Code asks with `message` (and a `mode`), Cline hands over its `context`.
        "new_task" => {
            let message = first_line(if text("message").is_empty() { text("context") } else { text("message") });
            if text("mode").is_empty() { message } else { format!("{message} ({})", text("mode")) }
        }
        // GitHub Copilot CLI's tools: `path`, `view_range`, `file_text`, `old_str`/`new_str`.
        "view" => {
            let mut s = path("path");
            let range = input.get("view_range").and_then(|v| v.as_array());
            if let Some([start, end]) = range.map(Vec::as_slice)
                && let (Some(start), Some(end)) = (start.as_i64(), end.as_i64())
            {
                s.push_str(&format!(":{start}-{end}"));
            }
            s
        }
        "create" => format!("{} +{}", path("path"), text("file_text").lines().count()),
        "str_replace_editor" => match text("command") {
            "create" => format!("{} +{}", path("path"), text("file_text").lines().count()),
            "str_replace" => {
                let (added, removed) = line_delta(text("old_str"), text("new_str"));
                format!("{} +{added} -{removed}", path("path"))
            }
            "insert" => format!("{} +{}", path("path"), text("new_str").lines().count()),
            _ => path("path"),
        },
        "powershell" => first_line(text("command")),
        // Cursor CLI's tools: `command`, `path`, `old_string`/`new_string`.
        "Shell" => first_line(text("command")),
        "StrReplace" => {
            let (added, removed) = line_delta(text("old_string"), text("new_string"));
            format!("{} +{added} -{removed}", path("path"))
        }
        "Delete" | "EditNotebook" => path("path"),
        "task" => {
            let kind = text("agent_type");
            let description = text("description");
            if kind.is_empty() { description.to_owned() } else { format!("{description} ({kind})") }
        }
        // Codex: shell calls (`command` a string or an argv), unified exec, patches, plans.
        "shell" | "local_shell" | "shell_command" | "container.exec" | "command_execution" => {
            first_line(&command_text(input.get("command").unwrap_or(&Value::Null)))
        }
        "exec_command" => {
            let cmd = input.get("cmd").or_else(|| input.get("command")).unwrap_or(&Value::Null);
            first_line(&command_text(cmd))
        }
        "apply_patch" => {
            let patch = input.as_str().or_else(|| input.get("input").and_then(|v| v.as_str())).unwrap_or("");
            patch_summary(patch, cwd)
        }
        "file_change" => {
            let changes = input.get("changes").and_then(|v| v.as_array());
            let first = changes.and_then(|c| c.first()).and_then(|c| c.get("path")).and_then(|p| p.as_str());
            let more = changes.map_or(0, |c| c.len().saturating_sub(1));
            let first = relative_path(first.unwrap_or(""), cwd);
            if more > 0 { format!("{first} (+{more} more)") } else { first }
        }
        "update_plan" | "todo_list" => {
            let (key, done_key) = if name == "update_plan" { ("plan", "status") } else { ("items", "completed") };
            let items = input.get(key).and_then(|v| v.as_array());
            let total = items.map_or(0, |t| t.len());
            let done = items.map_or(0, |t| {
                t.iter()
                    .filter(|t| {
                        let v = t.get(done_key);
                        v.and_then(|s| s.as_str()) == Some("completed") || v.and_then(|b| b.as_bool()) == Some(true)
                    })
                    .count()
            });
            if name == "update_plan" {
                format!("{total} steps, {done} done")
            } else {
                format!("{total} todos, {done} done")
            }
        }
        _ => first_string(input).map(|s| first_line(&s)).unwrap_or_default(),
    };
    summary.trim().to_owned()
}

/// A shell command as a line: a string as it is; an argv joined, `bash -lc <script>` as its script.
fn command_text(command: &Value) -> String {
    if let Some(text) = command.as_str() {
        return text.to_owned();
    }
    let Some(argv) = command.as_array() else { return String::new() };
    let args: Vec<&str> = argv.iter().filter_map(|a| a.as_str()).collect();
    match args.as_slice() {
        [shell, flag, script] if shell.ends_with("sh") && matches!(*flag, "-lc" | "-c") => (*script).to_owned(),
        _ => args.join(" "),
    }
}

/// `path +added -removed` of an `apply_patch` patch (its first file, and how many more).
fn patch_summary(patch: &str, cwd: &str) -> String {
    let mut files: Vec<&str> = Vec::new();
    let (mut added, mut removed) = (0, 0);
    for line in patch.lines() {
        if let Some((file, _)) = patch_file(line) {
            files.push(file);
        } else if line.starts_with('+') && !line.starts_with("+++") {
            added += 1;
        } else if line.starts_with('-') && !line.starts_with("---") {
            removed += 1;
        }
    }
    let Some(first) = files.first() else { return String::new() };
    let first = relative_path(first, cwd);
    if files.len() > 1 {
        format!("{first} (+{} more) +{added} -{removed}", files.len() - 1)
    } else {
        format!("{first} +{added} -{removed}")
    }
}

fn first_string(value: &Value) -> Option<String> {
    value.as_object()?.values().find_map(|v| v.as_str().map(str::to_owned))
}

/// Lines added and removed by replacing `old` with `new` (as a diff would count them).
pub fn line_delta(old: &str, new: &str) -> (usize, usize) {
    let old_lines: Vec<&str> = old.lines().collect();
    let new_lines: Vec<&str> = new.lines().collect();
    let common_prefix = old_lines.iter().zip(&new_lines).take_while(|(a, b)| a == b).count();
    let old_rest = &old_lines[common_prefix..];
    let new_rest = &new_lines[common_prefix..];
    let common_suffix = old_rest.iter().rev().zip(new_rest.iter().rev()).take_while(|(a, b)| a == b).count();
    (new_rest.len() - common_suffix, old_rest.len() - common_suffix)
}

/// `path` relative to `cwd` when it is inside it.
pub fn relative_path(path: &str, cwd: &str) -> String {
    if !cwd.is_empty() && path.trim_end_matches(['/', '\\']) == cwd.trim_end_matches(['/', '\\']) {
        return String::new();
    }
    if !cwd.is_empty()
        && let Some(rest) = path.strip_prefix(cwd)
        && let Some(rest) = rest.strip_prefix('/').or_else(|| rest.strip_prefix('\\'))
    {
        return rest.to_owned();
    }
    path.to_owned()
}

impl Graph {
    /// The turn of an entry (index into [`Graph::turns`]).
    pub fn turn_of(&self, entry: EntryId) -> Option<&Turn> {
        let index = *self.turn_of_entry.get(entry.index())?;
        self.turns.get(index.index())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A value, written as in `serde_json::json!`.
    macro_rules! json {
        ($($value:tt)+) => {
            small_json::parse(&serde_json::to_vec(&serde_json::json!($($value)+)).unwrap()).unwrap()
        };
    }

    #[test]
    fn line_deltas_count_changed_lines() {
        assert_eq!(line_delta("a\nb\nc", "a\nB\nc"), (1, 1));
        assert_eq!(line_delta("a", "a\nb\nc"), (2, 0));
        assert_eq!(line_delta("", "x"), (1, 0));
    }

    #[test]
    fn summaries_name_what_the_tool_touched() {
        let input = json!({"file_path": "/p/src/main.rs", "old_string": "a\nb", "new_string": "a\nc\nd"});
        assert_eq!(summarize_input("Edit", &input, "/p"), "src/main.rs +2 -1");
        let input = json!({"command": "cargo test\n--all"});
        assert_eq!(summarize_input("Bash", &input, "/p"), "cargo test");
        assert_eq!(summarize_input("Shell", &input, "/p"), "cargo test");
        assert_eq!(ToolCategory::of("Shell"), ToolCategory::Execute);
        let replace = json!({"path": "/p/src/a.rs", "old_string": "a", "new_string": "b\nc"});
        assert_eq!(summarize_input("StrReplace", &replace, "/p"), "src/a.rs +2 -1");
        assert_eq!(touched_files("StrReplace", &replace, "/p"), [("src/a.rs".to_owned(), Touch::Edit)]);
        let read = json!({"path": "/p/src/a.rs"});
        assert_eq!(summarize_input("Read", &read, "/p"), "src/a.rs");
        let input = json!({"pattern": "fn brew", "path": "/p/src"});
        assert_eq!(summarize_input("Grep", &input, "/p"), "fn brew in src");
        let input = json!({"description": "Find uses", "subagent_type": "Explore", "prompt": "..."});
        assert_eq!(summarize_input("Task", &input, "/p"), "Find uses (Explore)");
        assert_eq!(ToolCategory::of("mcp__github__create_issue"), ToolCategory::Mcp);
        assert_eq!(ToolCategory::of("Task"), ToolCategory::Agent);
        assert_eq!(ToolCategory::of("TodoWrite"), ToolCategory::PlanTodo);
    }

    #[test]
    fn codex_tools_are_summarised_and_categorised() {
        let input = json!({"command": ["bash", "-lc", "cargo test -p engine"], "workdir": "/p"});
        assert_eq!(summarize_input("shell", &input, "/p"), "cargo test -p engine");
        let input = json!({"command": ["ls", "-la"]});
        assert_eq!(summarize_input("shell", &input, "/p"), "ls -la");
        let patch = "*** Begin Patch\n*** Update File: /p/src/lib.rs\n@@\n-old\n+new\n+more\n*** End Patch";
        assert_eq!(summarize_input("apply_patch", &json!(patch), "/p"), "src/lib.rs +2 -1");
        let input = json!({"changes": [{"path": "/p/a.rs", "kind": "update"}, {"path": "/p/b.rs", "kind": "add"}]});
        assert_eq!(summarize_input("file_change", &input, "/p"), "a.rs (+1 more)");
    }

    #[test]
    fn copilot_cli_tools_are_summarised_categorised_and_touch_their_path() {
        let editor = |command: &str| json!({"command": command, "path": "/p/src/a.rs", "old_str": "x", "new_str": "y\nz", "file_text": "1\n2\n3\n"});
        assert_eq!(summarize_input("str_replace_editor", &editor("str_replace"), "/p"), "src/a.rs +2 -1");
        assert_eq!(summarize_input("str_replace_editor", &editor("create"), "/p"), "src/a.rs +3");
        assert_eq!(summarize_input("str_replace_editor", &editor("view"), "/p"), "src/a.rs");
        assert_eq!(touched_files("str_replace_editor", &editor("view"), "/p"), [("src/a.rs".to_owned(), Touch::Read)]);
        assert_eq!(
            touched_files("str_replace_editor", &editor("create"), "/p"),
            [("src/a.rs".to_owned(), Touch::Write)]
        );
        assert_eq!(
            touched_files("str_replace_editor", &editor("insert"), "/p"),
            [("src/a.rs".to_owned(), Touch::Edit)]
        );
        let view = json!({"path": "/p/README.md", "view_range": [3, 9]});
        assert_eq!(summarize_input("view", &view, "/p"), "README.md:3-9");
        assert_eq!(touched_files("view", &view, "/p"), [("README.md".to_owned(), Touch::Read)]);
        let edit = json!({"path": "/p/a.rs", "old_str": "a", "new_str": "b"});
        assert_eq!(summarize_input("edit", &edit, "/p"), "a.rs +1 -1");
        assert_eq!(summarize_input("powershell", &json!({"command": "dir\nexit"}), "/p"), "dir");
        assert_eq!(summarize_input("glob", &json!({"pattern": "**/*.rs", "path": "/p/src"}), "/p"), "**/*.rs in src");
        let task = json!({"agent_type": "explore", "description": "Find it"});
        assert_eq!(summarize_input("task", &task, "/p"), "Find it (explore)");
        for (name, category) in [
            ("view", ToolCategory::Read),
            ("glob", ToolCategory::Search),
            ("create", ToolCategory::Edit),
            ("str_replace_editor", ToolCategory::Edit),
            ("powershell", ToolCategory::Execute),
            ("read_bash", ToolCategory::Execute),
            ("task", ToolCategory::Agent),
            ("report_intent", ToolCategory::Other),
        ] {
            assert_eq!(ToolCategory::of(name), category, "{name}");
        }
    }

    #[test]
    fn the_files_an_operation_touches_whatever_the_agent() {
        let read = json!({"file_path": "/p/src/main.rs"});
        assert_eq!(touched_files("Read", &read, "/p"), [("src/main.rs".to_owned(), Touch::Read)]);
        assert_eq!(touched_files("Write", &read, "/elsewhere"), [("/p/src/main.rs".to_owned(), Touch::Write)]);
        assert_eq!(touched_files("Bash", &read, "/p"), []);
        assert!(
            ["Read", "Write", "Edit", "MultiEdit", "apply_patch", "file_change"].iter().all(|n| files_in(n).is_some())
        );
        assert!(files_in("Bash").is_none());
        let patch = "*** Begin Patch\n*** Update File: /p/src/lib.rs\n@@\n-a\n+b\n*** Add File: /p/NEW.md\n+x\n*** Delete File: old.rs\n*** End Patch";
        assert_eq!(
            touched_files("apply_patch", &json!({ "input": patch }), "/p"),
            [
                ("src/lib.rs".to_owned(), Touch::Edit),
                ("NEW.md".to_owned(), Touch::Write),
                ("old.rs".to_owned(), Touch::Edit)
            ]
        );
        let changes = json!({"changes": [{"path": "/p/a.rs", "kind": "update"}, {"path": "/p/b.rs", "kind": "add"}]});
        assert_eq!(
            touched_files("file_change", &changes, "/p"),
            [("a.rs".to_owned(), Touch::Edit), ("b.rs".to_owned(), Touch::Write)]
        );
        let input = json!({"items": [{"text": "a", "completed": true}, {"text": "b", "completed": false}]});
        assert_eq!(summarize_input("todo_list", &input, "/p"), "2 todos, 1 done");
        for (name, category) in [
            ("local_shell", ToolCategory::Execute),
            ("command_execution", ToolCategory::Execute),
            ("file_change", ToolCategory::Edit),
            ("todo_list", ToolCategory::PlanTodo),
            ("mcp__github__search_issues", ToolCategory::Mcp),
        ] {
            assert_eq!(ToolCategory::of(name), category, "{name}");
        }
    }
}
