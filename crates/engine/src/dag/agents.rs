//! Linking every agent conversation to the tool call that spawned it.
//!
//! Agent files are linked by, in order: the meta file's `toolUseId`, the Task result's
//! `toolUseResult.agentId` (a Roo Code subtask's `Subtask <id> completed.`), `agent_progress`
//! lines, the `agentId: <id>` text of the result, a Cursor CLI call that names the agent, and
//! the prompt (a Task's `prompt`, a new_task's `message` or Cline's `context`). Inline sidechains by `parentUuid`, the prompt, then a Task call within 2 s
//! (the prompt comes before the time: parallel Task calls start their sidechains at the same
//! instant, so time alone links them to the wrong call). Compaction agents attach to their
//! compaction.

use rustc_hash::FxHashMap;

use super::tree::{block_text, is_prompt};
use super::*;
use crate::model::{BlockKind, EntryKind, Format};

const TIMESTAMP_WINDOW_MS: i64 = 2_000;

struct Spawn {
    entry: EntryId,
    block: BlockId,
    rule: LinkRule,
}

pub(crate) fn link_agents(corpus: &Corpus, graph: &mut Graph) {
    let ops = &graph.tool_ops;
    let agent_ops: Vec<OpId> = (0..ops.len())
        .filter(|&o| ops[o].category == ToolCategory::Agent && ops[o].call_entry.is_some())
        .map(OpId::new)
        .collect();
    let mut call_by_id: FxHashMap<&[u8], OpId> = FxHashMap::default();
    let mut op_by_result: FxHashMap<EntryId, Vec<OpId>> = FxHashMap::default();
    for (o, op) in ops.iter().enumerate() {
        if op.call_entry.is_some() {
            let entry = &corpus.entries[op.call_entry.index()];
            let id = corpus.span_bytes(entry.file, corpus.blocks[op.call_block.index()].id);
            if !id.is_empty() {
                call_by_id.entry(id).or_insert(OpId::new(o));
            }
        }
        if op.result_entry.is_some() {
            op_by_result.entry(op.result_entry).or_default().push(OpId::new(o));
        }
    }
    let mut meta_by_agent: FxHashMap<&str, &str> = FxHashMap::default();
    for file in &corpus.files {
        if file.format == Format::AgentMeta
            && let Some(meta) = &file.agent_meta
            && !meta.tool_use_id.is_empty()
        {
            meta_by_agent.insert(meta.agent_id.as_str(), meta.tool_use_id.as_str());
        }
    }
    let mut reports: FxHashMap<Sym, Vec<EntryId>> = FxHashMap::default();
    for (e, entry) in corpus.entries.iter().enumerate() {
        if entry.linked_agent_id.is_some() {
            reports.entry(entry.linked_agent_id).or_default().push(EntryId::new(e));
        }
    }
    // `agentId: <id>` in Task/Agent result texts, and Task prompts. Cursor CLI's calls are kept
    // whole (input and result) to look for the ids of its subagents in.
    let mut result_text_agent: FxHashMap<String, OpId> = FxHashMap::default();
    let mut prompt_of_op: FxHashMap<OpId, String> = FxHashMap::default();
    let mut cursor_call_text: Vec<(OpId, String)> = Vec::new();
    let is_format = |entry: EntryId, format: Format| {
        corpus
            .entries
            .get(entry.index())
            .and_then(|e| corpus.files.get(e.file as usize))
            .is_some_and(|f| f.format == format)
    };
    let is_cursor = |entry: EntryId| is_format(entry, Format::CursorCli);
    for &o in &agent_ops {
        let op = ops[o.index()];
        let mut result_text = String::new();
        if op.result_entry.is_some() && op.result_block.is_some() {
            let entry = &corpus.entries[op.result_entry.index()];
            result_text = block_text(corpus, entry, corpus.blocks[op.result_block.index()].body);
            if let Some(id) = agent_id_in_text(&result_text) {
                result_text_agent.entry(id).or_insert(o);
            }
        }
        if is_cursor(op.call_entry) {
            let call = &corpus.entries[op.call_entry.index()];
            let input = corpus.span_str(call.file, corpus.blocks[op.call_block.index()].body);
            cursor_call_text.push((o, format!("{input}\n{result_text}")));
        }
        let input = call_input(corpus, op.call_entry, op.call_block);
        if let Some(prompt) = spawn_prompt(&input) {
            prompt_of_op.insert(o, prompt.trim().to_owned());
        }
    }

    let mut claimed = vec![false; ops.len()];
    let mut spawns: Vec<Option<Spawn>> = Vec::with_capacity(graph.conversations.len());
    for conv in &graph.conversations {
        let spawn = match conv.kind {
            ConversationKind::Main => None,
            ConversationKind::CompactionAgent => None,
            ConversationKind::Agent => {
                let agent = conv.agent_name.as_str();
                let by_op = |o: OpId, rule| {
                    let op = ops[o.index()];
                    Some(Spawn { entry: op.call_entry, block: op.call_block, rule })
                };
                // Agent SDK output, Copilot CLI events and OpenCode child sessions name the
                // spawning call on every subagent message.
                let sdk_root = conv.roots.first().map(|&r| &corpus.entries[r.index()]).filter(|e| {
                    !e.parent_tool_use_id.is_empty()
                        && corpus.files.get(e.file as usize).is_some_and(|f| {
                            matches!(f.format, Format::AgentSdk | Format::CopilotCli | Format::OpenCode)
                        })
                });
                let by_parent_tool = sdk_root
                    .and_then(|e| call_by_id.get(corpus.span_bytes(e.file, e.parent_tool_use_id)))
                    .copied()
                    .and_then(|o| by_op(o, LinkRule::ParentToolUseId));
                let meta = meta_by_agent.get(agent).and_then(|id| call_by_id.get(id.as_bytes())).copied();
                let mut spawn = by_parent_tool.or_else(|| meta.and_then(|o| by_op(o, LinkRule::MetaFile)));
                let reported = reports.get(&conv.agent_id).map(Vec::as_slice).unwrap_or_default();
                if spawn.is_none() {
                    spawn = reported
                        .iter()
                        .filter(|&&e| corpus.entries[e.index()].kind == EntryKind::User)
                        .flat_map(|e| op_by_result.get(e).into_iter().flatten())
                        .find(|&&o| ops[o.index()].call_entry.is_some())
                        .and_then(|&o| by_op(o, LinkRule::ToolResultAgentId));
                }
                if spawn.is_none() {
                    spawn = reported
                        .iter()
                        .map(|&e| &corpus.entries[e.index()])
                        .filter(|e| e.kind == EntryKind::Progress && !e.parent_tool_use_id.is_empty())
                        .find_map(|e| call_by_id.get(corpus.span_bytes(e.file, e.parent_tool_use_id)))
                        .and_then(|&o| by_op(o, LinkRule::AgentProgress));
                }
                if spawn.is_none() {
                    spawn = result_text_agent.get(agent).and_then(|&o| by_op(o, LinkRule::ResultText));
                }
                if spawn.is_none() && !agent.is_empty() && conv.roots.first().is_some_and(|&r| is_cursor(r)) {
                    spawn = cursor_call_text
                        .iter()
                        .find(|(o, text)| !claimed[o.index()] && text.contains(agent))
                        .and_then(|&(o, _)| by_op(o, LinkRule::CallNamesAgent));
                }
                if spawn.is_none() {
                    spawn = first_prompt_text(corpus, graph, conv).and_then(|prompt| {
                        agent_ops
                            .iter()
                            .find(|&&o| !claimed[o.index()] && prompt_of_op.get(&o).is_some_and(|p| *p == prompt))
                            .and_then(|&o| by_op(o, LinkRule::Prompt))
                    });
                }
                // A Gemini CLI subagent's first message is its agent's query with what the call
                // asked filled in: the call of its session whose longest argument it holds.
                if spawn.is_none() && conv.roots.first().is_some_and(|&r| is_format(r, Format::GeminiCli)) {
                    let text = first_prompt_whole(corpus, graph, conv);
                    spawn = agent_ops
                        .iter()
                        .find(|&&o| {
                            let op = ops[o.index()];
                            !claimed[o.index()]
                                && graph.conversations[op.conversation.index()].session == conv.session
                                && is_format(op.call_entry, Format::GeminiCli)
                                && longest_argument(&call_input(corpus, op.call_entry, op.call_block))
                                    .is_some_and(|ask| text.contains(ask))
                        })
                        .and_then(|&o| by_op(o, LinkRule::Prompt));
                }
                spawn
            }
            ConversationKind::InlineSidechain => link_inline(corpus, graph, conv, &agent_ops, &prompt_of_op, &claimed),
        };
        if let Some(spawn) = &spawn
            && spawn.block.is_some()
            && let Some(o) = ops.iter().position(|op| op.call_block == spawn.block)
        {
            claimed[o] = true;
        }
        spawns.push(spawn);
    }

    for (c, spawn) in spawns.into_iter().enumerate() {
        let Some(spawn) = spawn else { continue };
        let parent = graph.nodes[spawn.entry.index()].conversation;
        let input =
            if spawn.block.is_some() { call_input(corpus, spawn.entry, spawn.block) } else { serde_json::Value::Null };
        let conv = &mut graph.conversations[c];
        conv.spawn_entry = spawn.entry;
        conv.spawn_block = spawn.block;
        conv.linked_by = Some(spawn.rule);
        conv.parent = parent;
        let text = |key: &str| input.get(key).and_then(|v| v.as_str()).unwrap_or("").to_owned();
        // Claude's Task names the agent `subagent_type`, Copilot's task `agent_type`, Roo Code's
        // new_task the `mode` the subtask runs in.
        conv.agent_type = ["subagent_type", "agent_type", "mode"]
            .iter()
            .map(|key| text(key))
            .find(|t| !t.is_empty())
            .unwrap_or_default();
        conv.description = text("description");
        // A call without a description (Cline's and Roo Code's new_task) is described by the
        // first line of what it asks.
        if conv.description.is_empty()
            && let Some(prompt) = spawn_prompt(&input)
        {
            conv.description = short_line(prompt);
        }
        // Gemini CLI names the call after the agent it runs, and asks in arguments of the
        // agent's own (`objective`, `request`, ...).
        if is_format(spawn.entry, Format::GeminiCli) && spawn.block.is_some() {
            if conv.agent_type.is_empty() {
                conv.agent_type = corpus.sym(corpus.blocks[spawn.block.index()].name).to_owned();
            }
            if conv.description.is_empty()
                && let Some(ask) = longest_argument(&input)
            {
                conv.description = short_line(ask);
            }
        }
    }

    // Meta files fill in what the spawning call does not say.
    for conv in &mut graph.conversations {
        if conv.kind != ConversationKind::Agent {
            continue;
        }
        let agent = conv.agent_name.as_str();
        let meta = corpus.files.iter().filter_map(|f| f.agent_meta.as_ref()).find(|m| m.agent_id == agent);
        if let Some(meta) = meta {
            if conv.agent_type.is_empty() {
                conv.agent_type = meta.agent_type.clone();
            }
            if conv.description.is_empty() {
                conv.description = meta.description.clone();
            }
        }
    }

    link_compaction_agents(corpus, graph);

    // Depths, along parent links (guarded against cycles of links).
    for c in 0..graph.conversations.len() {
        let mut depth = 0;
        let mut current = ConversationId::new(c);
        let mut steps = 0;
        while graph.conversations[current.index()].kind != ConversationKind::Main && steps <= graph.conversations.len()
        {
            let parent = graph.conversations[current.index()].parent;
            depth += 1;
            if parent.is_none() {
                break;
            }
            current = parent;
            steps += 1;
        }
        graph.conversations[c].depth = depth;
    }

    for (c, conv) in graph.conversations.iter().enumerate() {
        if conv.kind != ConversationKind::Main && conv.linked_by.is_none() {
            graph.unlinked_agents.push(ConversationId::new(c));
            let first = conv.roots.first().copied().unwrap_or(EntryId::NONE);
            let file = corpus.files[conv.file as usize].name();
            let what = if !conv.agent_name.is_empty() {
                format!("agent {} ({file})", conv.agent_name)
            } else {
                format!("an inline sidechain of {file}")
            };
            graph.problems.push(Problem {
                rule: ProblemRule::AgentLinked,
                entry: first,
                message: format!("{what} is not linked to any spawning tool call; it is shown on its own"),
            });
        }
    }
}

fn link_inline(
    corpus: &Corpus,
    graph: &Graph,
    conv: &Conversation,
    agent_ops: &[OpId],
    prompt_of_op: &FxHashMap<OpId, String>,
    claimed: &[bool],
) -> Option<Spawn> {
    let ops = &graph.tool_ops;
    let by_op = |o: OpId, rule| {
        let op = ops[o.index()];
        Some(Spawn { entry: op.call_entry, block: op.call_block, rule })
    };
    if conv.cross_parent.is_some() {
        let parent = conv.cross_parent;
        let calls: Vec<OpId> = agent_ops.iter().copied().filter(|&o| ops[o.index()].call_entry == parent).collect();
        let chosen = calls.iter().find(|&&o| !claimed[o.index()]).or(calls.first());
        return match chosen {
            Some(&o) => by_op(o, LinkRule::ParentUuid),
            None => Some(Spawn { entry: parent, block: BlockId::NONE, rule: LinkRule::ParentUuid }),
        };
    }
    let start = conv.first_timestamp_ms;
    let same_session = |o: OpId| graph.conversations[ops[o.index()].conversation.index()].session == conv.session;
    let before_start = |o: OpId| {
        let call = &corpus.entries[(ops[o.index()].call_entry).index()];
        !call.has_timestamp() || call.timestamp_ms <= start.saturating_add(TIMESTAMP_WINDOW_MS)
    };
    if let Some(prompt) = first_prompt_text(corpus, graph, conv) {
        let found = agent_ops.iter().copied().find(|&o| {
            !claimed[o.index()]
                && same_session(o)
                && before_start(o)
                && prompt_of_op.get(&o).is_some_and(|p| *p == prompt)
        });
        if let Some(o) = found {
            return by_op(o, LinkRule::Prompt);
        }
    }
    agent_ops
        .iter()
        .copied()
        .filter(|&o| !claimed[o.index()] && same_session(o))
        .filter_map(|o| {
            let call = &corpus.entries[(ops[o.index()].call_entry).index()];
            let gap = start.saturating_sub(call.timestamp_ms);
            (call.has_timestamp() && (0..=TIMESTAMP_WINDOW_MS).contains(&gap)).then_some((gap, o))
        })
        .min()
        .and_then(|(_, o)| by_op(o, LinkRule::Timestamp))
}

/// A compaction agent continues the last message before its compaction.
fn link_compaction_agents(corpus: &Corpus, graph: &mut Graph) {
    for c in 0..graph.conversations.len() {
        if graph.conversations[c].kind != ConversationKind::CompactionAgent {
            continue;
        }
        let conv = &graph.conversations[c];
        let crosses: Vec<EntryId> = graph
            .cross_links
            .iter()
            .filter(|(root, _)| graph.nodes[root.index()].conversation == ConversationId::new(c))
            .map(|&(_, parent)| parent)
            .collect();
        let by_parent = graph.compactions.iter().position(|link| {
            link.logical_parent.is_some() && link.agent.is_none() && crosses.contains(&link.logical_parent)
        });
        // Else the compaction of the same session that follows the agent most closely.
        let by_time = || {
            graph
                .compactions
                .iter()
                .enumerate()
                .filter(|(_, link)| link.session == conv.session && link.agent.is_none() && link.boundary.is_some())
                .filter_map(|(i, link)| {
                    let boundary = &corpus.entries[link.boundary.index()];
                    let gap = boundary.timestamp_ms.saturating_sub(conv.last_timestamp_ms);
                    (gap >= 0).then_some((gap, i))
                })
                .min()
                .map(|(_, i)| i)
        };
        let Some(index) = by_parent.or_else(by_time) else { continue };
        let link = &mut graph.compactions[index];
        link.agent = ConversationId::new(c);
        let anchor = if link.boundary.is_some() { link.boundary } else { link.summary };
        let parent = graph.nodes[anchor.index()].conversation;
        let conv = &mut graph.conversations[c];
        conv.compaction = CompactionId::new(index);
        conv.linked_by = Some(LinkRule::Compaction);
        conv.spawn_entry = anchor;
        conv.parent = parent;
        conv.agent_type = "compaction".into();
        let trigger = corpus.sym(link.trigger);
        conv.description = if trigger.is_empty() {
            "Conversation compacted".into()
        } else {
            format!("Conversation compacted ({trigger})")
        };
    }
}

/// The decoded input of a tool call.
pub(crate) fn call_input(corpus: &Corpus, entry: EntryId, block: BlockId) -> serde_json::Value {
    if entry.is_none() || block.is_none() {
        return serde_json::Value::Null;
    }
    let entry = &corpus.entries[entry.index()];
    let block = corpus.blocks[block.index()];
    let raw = corpus.span_bytes(entry.file, block.body);
    if block.kind != BlockKind::ToolUse && block.kind != BlockKind::ServerToolUse {
        return serde_json::Value::Null;
    }
    if block.flags & crate::model::Block::JSON_IN_STRING != 0 {
        let text = crate::json::decode_value(raw);
        return serde_json::from_str::<serde_json::Value>(&text)
            .ok()
            .and_then(|v| v.get("input").cloned())
            .unwrap_or(serde_json::Value::Null);
    }
    serde_json::from_slice(raw).unwrap_or(serde_json::Value::Null)
}

/// The first prompt of a conversation, trimmed: what the spawning agent asked.
fn first_prompt_text(corpus: &Corpus, graph: &Graph, conv: &Conversation) -> Option<String> {
    let root = *conv.roots.first()?;
    let mut current = root;
    // The root, or the first prompt below it (agent files may start with hook lines).
    for _ in 0..8 {
        let entry = &corpus.entries[current.index()];
        if is_prompt(entry) {
            return corpus.first_text(entry).map(|t| t.trim().to_owned());
        }
        current = graph.nodes[current.index()].first_child;
        if current.is_none() {
            return None;
        }
    }
    None
}

/// What a spawning call asks its agent: `prompt` (Claude's Task, Copilot's and OpenCode's task,
/// Cursor's Task and task_v2), `message` (Roo Code's new_task) or `context` (Cline's new_task).
fn spawn_prompt(input: &serde_json::Value) -> Option<&str> {
    ["prompt", "message", "context"]
        .iter()
        .find_map(|key| input.get(key).and_then(|v| v.as_str()).filter(|p| !p.trim().is_empty()))
}

/// The longest string argument of a call (at least 8 characters, trimmed): what it asked.
fn longest_argument(input: &serde_json::Value) -> Option<&str> {
    let object = input.as_object()?;
    object.values().filter_map(|v| v.as_str()).map(str::trim).filter(|v| v.chars().count() >= 8).max_by_key(|v| v.len())
}

/// All the text of the first prompt of a conversation (every text block, not only the first).
fn first_prompt_whole(corpus: &Corpus, graph: &Graph, conv: &Conversation) -> String {
    let Some(&root) = conv.roots.first() else { return String::new() };
    let mut current = root;
    for _ in 0..8 {
        let entry = &corpus.entries[current.index()];
        if is_prompt(entry) {
            let mut text = String::new();
            if entry.flags.has(crate::model::EntryFlags::STRING_CONTENT) {
                text.push_str(&corpus.span_text(entry.file, entry.content));
            }
            for block in corpus.blocks_of(entry).iter().filter(|b| b.kind == BlockKind::Text) {
                text.push('\n');
                text.push_str(&corpus.span_text(entry.file, block.body));
            }
            return text;
        }
        current = graph.nodes[current.index()].first_child;
        if current.is_none() {
            break;
        }
    }
    String::new()
}

/// The first non-blank line of a text, cut to 80 characters.
fn short_line(text: &str) -> String {
    let line = text.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
    crate::cut::prefix(line, 80)
}

/// `agentId: a1b2c3` in a Task result text.
fn agent_id_in_text(text: &str) -> Option<String> {
    let at = text.rfind("agentId: ")? + "agentId: ".len();
    let id: String = text[at..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_').collect();
    (!id.is_empty()).then_some(id)
}

#[cfg(test)]
mod tests {
    #[test]
    fn agent_ids_are_found_in_result_texts() {
        assert_eq!(super::agent_id_in_text("done.\nagentId: a1b2c3d (use it to resume)").as_deref(), Some("a1b2c3d"));
        assert_eq!(super::agent_id_in_text("no id here"), None);
    }

    #[test]
    fn spawning_calls_ask_in_their_prompt_message_or_context() {
        let input = serde_json::json!({"mode": "code", "message": "Write the parser"});
        assert_eq!(super::spawn_prompt(&input), Some("Write the parser"));
        assert_eq!(super::spawn_prompt(&serde_json::json!({"context": "Go on"})), Some("Go on"));
        assert_eq!(super::spawn_prompt(&serde_json::json!({"prompt": " "})), None);
        assert_eq!(super::short_line("\n  first line \nsecond"), "first line");
        assert_eq!(super::short_line(&"é".repeat(90)).chars().count(), 81);
    }
}
