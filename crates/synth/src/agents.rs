//! Subagent transcripts: agents spawned through the Task/Agent tool, and the
//! compaction agent that writes the summary of a compacted conversation.

use crate::ids::{self, Clock, Uuid};
use crate::json::object;
use crate::rng::Rng;
use crate::session::{Block, Envelope, Sink, Usage, assistant_message};
use crate::text::Vocab;
use crate::tools::{ToolCall, ToolKind, ToolMaker, text_blocks};

/// One user or assistant entry of an agent transcript, kept so that the main
/// transcript can mirror it in an `agent_progress` line.
#[derive(Debug, Clone)]
pub struct AgentEntry {
    pub is_assistant: bool,
    pub uuid: Uuid,
    pub timestamp: String,
    pub millis: u64,
    pub message: Vec<u8>,
    pub request_id: Option<String>,
}

/// A finished subagent run, ready to be linked into the main transcript.
#[derive(Debug, Clone)]
pub struct AgentRun {
    pub agent_id: String,
    pub prompt: String,
    /// The spawning tool call (`Task` or `Agent`), its result filled in.
    pub tool: ToolCall,
    pub entries: Vec<AgentEntry>,
    pub file: Vec<u8>,
    pub meta: Vec<u8>,
    pub end_millis: u64,
}

const AGENT_TASKS: &[(&str, &str, &str)] = &[
    (
        "Explore",
        "Find all rounding call sites",
        "Search the codebase for every place where amounts are rounded or converted between floats and cents. Report file paths, line numbers and whether each one rounds half to even.",
    ),
    (
        "Explore",
        "Map the importer modules",
        "Read the import modules and describe how a CSV row becomes an Entry: which functions run, in which order, and where errors are raised.",
    ),
    (
        "general-purpose",
        "Check test coverage of {fn}",
        "Look at the tests for `{fn}` and list the input cases that are not covered yet. Do not change any file.",
    ),
    (
        "Plan",
        "Plan the OFX importer",
        "Propose a step-by-step plan for adding an OFX importer next to the CSV one, reusing `{ty}` where possible.",
    ),
    (
        "general-purpose",
        "Review the last commit",
        "Review the diff of the last commit for correctness problems and risky changes. Answer with a short list.",
    ),
];

const MAIN_MODEL: &str = "claude-opus-4-6";
const AGENT_MODEL: &str = "claude-sonnet-4-5-20250929";
const FAST_MODEL: &str = "claude-haiku-4-5-20251001";

/// The model name the main transcript uses.
pub fn main_model() -> &'static str {
    MAIN_MODEL
}

/// Inputs of one agent run.
pub struct AgentPlan<'a> {
    pub main: &'a Envelope,
    pub vocab: &'a Vocab,
    pub start_millis: u64,
    /// Uses the newer `Agent` tool name instead of `Task`.
    pub agent_tool_name: bool,
    /// Upper bound for each tool output inside the agent.
    pub max_output: u64,
}

/// Runs one invented subagent conversation and renders its transcript file.
pub fn run_agent(rng: &mut Rng, plan: &AgentPlan<'_>) -> AgentRun {
    let (agent_type, description, prompt) = rng.pick(AGENT_TASKS);
    let mut description_text = String::new();
    plan.vocab.expand(rng, description, &mut description_text);
    let mut prompt_text = String::new();
    plan.vocab.expand(rng, prompt, &mut prompt_text);
    let agent_id = format!("a{}", ids::hex(rng, 6));
    let model = if agent_type == "Explore" { FAST_MODEL } else { AGENT_MODEL };

    let mut env = plan.main.clone();
    env.agent_id = Some(agent_id.clone());
    env.with_slug = true;
    let mut sink = Sink::with_capacity(64 << 10);
    let mut clock = Clock::starting_at(plan.start_millis + rng.range(3, 9));
    let mut entries = Vec::new();
    let mut tool_uses = 0u64;
    let mut total_tokens = 0u64;

    // The prompt is the root of the agent transcript.
    let prompt_uuid = Uuid::random(rng);
    let mut message = Vec::new();
    object(&mut message, |o| {
        o.str("role", "user").str("content", &prompt_text);
    });
    let timestamp = clock.iso();
    sink.line("user", Some(prompt_uuid), |o| {
        env.write(o, None);
        o.str("type", "user")
            .raw_bytes("message", &message)
            .str("uuid", prompt_uuid.as_str())
            .str("timestamp", &timestamp);
    });
    entries.push(AgentEntry {
        is_assistant: false,
        uuid: prompt_uuid,
        timestamp,
        millis: clock.millis(),
        message,
        request_id: None,
    });
    let mut last = prompt_uuid;

    let mut report = String::new();
    let steps = rng.range(1, 4);
    for step in 0..=steps {
        let final_step = step == steps;
        clock.advance(rng.range(900, 6_000));
        let message_id = ids::message_id(rng);
        let request_id = ids::request_id(rng);
        let context = 9_000 + step * 4_000;
        let mut blocks = Vec::new();
        let mut calls = Vec::new();
        if final_step {
            let length = rng.range(600, 2_500) as usize;
            report = plan.vocab.markdown(rng, length);
            blocks.push(Block::Text(report.clone()));
        } else {
            if rng.chance(0.6) {
                let mut text = String::new();
                plan.vocab.sentence(rng, &mut text);
                blocks.push(Block::Text(text));
            }
            for _ in 0..rng.range(1, 2) {
                let kind = rng.pick(&[ToolKind::Read, ToolKind::Grep, ToolKind::Glob, ToolKind::Bash]);
                let size = rng.pareto(400.0, 1.3, plan.max_output.max(400) as f64) as u64;
                let mut maker = ToolMaker { rng, vocab: plan.vocab };
                let call = maker.make(kind, size, false, false);
                blocks.push(Block::ToolUse { id: call.id.clone(), name: call.name, input: call.input.clone() });
                calls.push(call);
            }
        }
        let full_output = rng.range(40, 900);
        total_tokens += context + full_output;
        let block_count = blocks.len();
        for (index, block) in blocks.iter().enumerate() {
            let is_last = index + 1 == block_count;
            let usage = Usage {
                input: rng.range(1, 6),
                cache_creation: rng.range(200, 3_000),
                cache_read: context,
                output: if is_last { full_output } else { rng.range(1, 12) },
            };
            let stop = (final_step && is_last).then_some("end_turn");
            let message = assistant_message(model, &message_id, block, stop, &usage);
            let uuid = Uuid::random(rng);
            let timestamp = clock.iso();
            sink.line("assistant", Some(uuid), |o| {
                env.write(o, Some(last));
                o.raw_bytes("message", &message)
                    .str("requestId", &request_id)
                    .str("type", "assistant")
                    .str("uuid", uuid.as_str())
                    .str("timestamp", &timestamp);
            });
            if let Block::ToolUse { id, .. } = block
                && let Some(call) = calls.iter_mut().find(|call| &call.id == id)
            {
                call.assistant_uuid = Some(uuid);
            }
            entries.push(AgentEntry {
                is_assistant: true,
                uuid,
                timestamp,
                millis: clock.millis(),
                message,
                request_id: Some(request_id.clone()),
            });
            last = uuid;
            clock.advance(rng.range(20, 700));
        }
        for call in &calls {
            tool_uses += 1;
            clock.advance(rng.range(30, 1_500));
            let Some(source) = call.assistant_uuid else {
                continue;
            };
            let hook_uuid = Uuid::random(rng);
            let timestamp = clock.iso();
            sink.line("progress", Some(hook_uuid), |o| {
                env.write(o, Some(last));
                o.str("type", "progress")
                    .obj("data", |o| {
                        o.str("type", "hook_progress")
                            .str("hookEvent", "PostToolUse")
                            .str("hookName", &format!("PostToolUse:{}", call.name))
                            .str("command", "${CLAUDE_PLUGIN_ROOT}/scripts/log-tool-call.sh");
                    })
                    .str("parentToolUseID", &call.id)
                    .str("toolUseID", &call.id)
                    .str("timestamp", &timestamp)
                    .str("uuid", hook_uuid.as_str());
            });
            let mut message = Vec::with_capacity(call.result_content.len() + 128);
            object(&mut message, |o| {
                o.str("role", "user").arr("content", |a| {
                    a.obj(|o| {
                        o.str("tool_use_id", &call.id)
                            .str("type", "tool_result")
                            .raw_bytes("content", &call.result_content);
                    });
                });
            });
            let uuid = Uuid::random(rng);
            let timestamp = clock.iso();
            sink.line("user", Some(uuid), |o| {
                env.write(o, Some(source));
                o.str("type", "user")
                    .raw_bytes("message", &message)
                    .str("uuid", uuid.as_str())
                    .str("timestamp", &timestamp)
                    .str("sourceToolAssistantUUID", source.as_str());
            });
            entries.push(AgentEntry {
                is_assistant: false,
                uuid,
                timestamp,
                millis: clock.millis(),
                message,
                request_id: None,
            });
            last = uuid;
        }
    }

    let duration = clock.millis() - plan.start_millis;
    let tool_name = if plan.agent_tool_name { "Agent" } else { "Task" };
    let mut tool = ToolCall { id: ids::tool_use_id(rng), name: tool_name, ..ToolCall::default() };
    let mut input = Vec::new();
    object(&mut input, |o| {
        o.str("description", &description_text).str("subagent_type", agent_type).str("prompt", &prompt_text);
    });
    tool.input = input;
    let trailer = format!(
        "agentId: {agent_id} (for resuming to continue this agent's work if needed)\n<usage>total_tokens: {total_tokens}\ntool_uses: {tool_uses}\nduration_ms: {duration}</usage>"
    );
    tool.result_content = text_blocks(&[&report, &trailer]);
    let usage = Usage {
        input: 6,
        cache_creation: rng.range(2_000, 20_000),
        cache_read: rng.range(10_000, 40_000),
        output: rng.range(300, 1_500),
    };
    let mut detail = Vec::with_capacity(report.len() + 512);
    object(&mut detail, |o| {
        o.str("status", "completed")
            .str("prompt", &prompt_text)
            .str("agentId", &agent_id)
            .raw_bytes("content", &text_blocks(&[&report]))
            .u64("totalDurationMs", duration)
            .u64("totalTokens", total_tokens)
            .u64("totalToolUseCount", tool_uses)
            .obj("usage", |o| usage.write(o));
    });
    tool.result_detail = detail;

    let mut meta = Vec::new();
    object(&mut meta, |o| {
        o.str("agentType", agent_type).str("description", &description_text).str("toolUseId", &tool.id);
    });
    meta.push(b'\n');

    AgentRun { agent_id, prompt: prompt_text, tool, entries, file: sink.out, meta, end_millis: clock.millis() }
}

/// Writes an `agent_progress` data object mirroring one agent entry.
pub fn write_agent_progress_data(o: &mut crate::json::Obj<'_>, entry: &AgentEntry, prompt: &str, agent_id: &str) {
    o.obj("message", |o| {
        if entry.is_assistant {
            o.str("type", "assistant").str("timestamp", &entry.timestamp).raw_bytes("message", &entry.message);
            if let Some(request_id) = &entry.request_id {
                o.str("requestId", request_id);
            }
            o.str("uuid", entry.uuid.as_str());
        } else {
            o.str("type", "user")
                .raw_bytes("message", &entry.message)
                .str("uuid", entry.uuid.as_str())
                .str("timestamp", &entry.timestamp);
        }
    })
    .arr("normalizedMessages", |_| {})
    .str("type", "agent_progress")
    .str("prompt", prompt)
    .str("agentId", agent_id);
}

/// The compaction agent's transcript and the summary it produced.
#[derive(Debug, Clone)]
pub struct CompactionRun {
    pub agent_id: String,
    pub file: Vec<u8>,
    pub summary: String,
    pub end_millis: u64,
}

/// Writes an `agent-acompact-*` transcript whose first entry hangs off
/// `logical_parent`, the last main-file entry before the compaction.
pub fn run_compaction_agent(
    rng: &mut Rng,
    main: &Envelope,
    vocab: &Vocab,
    logical_parent: Uuid,
    start_millis: u64,
    pre_tokens: u64,
) -> CompactionRun {
    let agent_id = format!("acompact-{}", ids::hex(rng, 6));
    let mut env = main.clone();
    env.agent_id = Some(agent_id.clone());
    env.with_slug = true;
    let mut sink = Sink::with_capacity(32 << 10);
    let mut clock = Clock::starting_at(start_millis);

    let mut summary = String::from("1. Primary Request and Intent:\n   ");
    vocab.prose(rng, 400, &mut summary);
    summary.push_str("\n\n2. Key Technical Concepts:\n");
    for _ in 0..rng.range(3, 6) {
        summary.push_str("   - ");
        vocab.expand(rng, "`{fn}` in {file}", &mut summary);
        summary.push('\n');
    }
    summary.push_str("\n3. Files and Code Sections:\n");
    for _ in 0..rng.range(2, 5) {
        vocab.expand(rng, "   - {path}\n     ", &mut summary);
        vocab.sentence(rng, &mut summary);
        summary.push('\n');
    }
    summary.push_str("\n4. Pending Tasks:\n   ");
    vocab.prose(rng, 200, &mut summary);
    summary.push_str("\n\n5. Current Work:\n   ");
    vocab.prose(rng, 300, &mut summary);

    let request = "Your task is to create a detailed summary of the conversation so far, paying close attention to the user's explicit requests and your previous actions. Wrap your analysis in <analysis> tags, then write the summary in <summary> tags with these sections: Primary Request and Intent, Key Technical Concepts, Files and Code Sections, Pending Tasks, Current Work.";
    let request_uuid = Uuid::random(rng);
    let timestamp = clock.iso();
    sink.line("user", Some(request_uuid), |o| {
        env.write(o, Some(logical_parent));
        o.str("type", "user")
            .obj("message", |o| {
                o.str("role", "user").str("content", request);
            })
            .str("uuid", request_uuid.as_str())
            .str("timestamp", &timestamp);
    });

    clock.advance(rng.range(40_000, 90_000));
    let mut analysis = String::from("<analysis>\n");
    vocab.prose(rng, 1_200, &mut analysis);
    analysis.push_str("\n</analysis>\n\n<summary>\n");
    analysis.push_str(&summary);
    analysis.push_str("\n</summary>");
    let usage = Usage {
        input: 3,
        cache_creation: rng.range(1_000, 4_000),
        cache_read: pre_tokens,
        output: rng.range(2_000, 4_000),
    };
    let message_id = ids::message_id(rng);
    let message = assistant_message(MAIN_MODEL, &message_id, &Block::Text(analysis), Some("end_turn"), &usage);
    let request_id = ids::request_id(rng);
    let uuid = Uuid::random(rng);
    let timestamp = clock.iso();
    sink.line("assistant", Some(uuid), |o| {
        env.write(o, Some(request_uuid));
        o.raw_bytes("message", &message)
            .str("requestId", &request_id)
            .str("type", "assistant")
            .str("uuid", uuid.as_str())
            .str("timestamp", &timestamp);
    });

    CompactionRun { agent_id, file: sink.out, summary, end_millis: clock.millis() }
}
