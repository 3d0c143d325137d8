//! The main transcript: turns, responses, tool calls, compactions, rewinds and
//! subagent spawns, written in file order the way Claude Code 2.1.3x records them.

use std::collections::BTreeMap;

use crate::agents::{self, AgentPlan, AgentRun};
use crate::ids::{self, Clock, Uuid};
use crate::json::LONE_SURROGATE;
use crate::rng::Rng;
use crate::session::{Block, Envelope, Sink, Usage, assistant_message};
use crate::text::Vocab;
use crate::tools::{self, Todo, ToolCall, ToolKind, ToolMaker};

/// Bytes kept free for the closing metadata lines.
const CLOSING_RESERVE: u64 = 1_500;
/// Below this many bytes of budget no further response is started.
const MIN_STEP_BYTES: u64 = 2_000;
/// Compactions happen about this often in big files.
const COMPACTION_INTERVAL: u64 = 40 << 20;
/// A tool output above this size makes a line of more than 1 MB (it is stored twice).
const HUGE_OUTPUT: f64 = 480_000.0;

const HOOK_COMMANDS: &[&str] = &[
    "${CLAUDE_PLUGIN_ROOT}/hooks/guard-paths.sh",
    "${CLAUDE_PLUGIN_ROOT}/scripts/log-tool-call.sh",
    "cd ${CLAUDE_PLUGIN_ROOT}/hooks && node ./dist/format-on-save.js",
    "/home/dev/.claude/hooks/notify-idle.sh clear",
];

const TITLES: &[&str] = &[
    "Fix rounding of negative amounts",
    "Speed up CSV import",
    "Stabilise report ordering",
    "Investigate locked database in CI",
];

const CONTINUATION_NOTE: &str = "This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.\n\n";

const REJECTION: &str = "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.";

/// What the generator produced, before broken lines are planted.
pub struct Generated {
    pub session_id: String,
    pub main: Sink,
    pub agents: Vec<(String, Vec<u8>)>,
    pub metas: Vec<(String, Vec<u8>)>,
    pub rewinds: Vec<(Uuid, Uuid)>,
    pub compactions: Vec<Uuid>,
    /// Indexes of main-file lines that contain a lone surrogate escape.
    pub lone_surrogate_lines: Vec<usize>,
}

/// Settings of one generation run.
pub struct Plan {
    pub target_bytes: u64,
    pub seed: u64,
    pub agent_count: usize,
    pub project_name: String,
    /// A word the first prompt ends with.
    pub marker: Option<String>,
}

struct PromptRecord {
    uuid: Uuid,
    parent: Option<Uuid>,
    text: String,
}

/// A planned call inside one response: a plain tool or a subagent spawn.
enum Planned {
    Tool(ToolCall),
    Agent(AgentRun),
}

impl Planned {
    fn call(&self) -> &ToolCall {
        match self {
            Planned::Tool(call) => call,
            Planned::Agent(run) => &run.tool,
        }
    }

    fn call_mut(&mut self) -> &mut ToolCall {
        match self {
            Planned::Tool(call) => call,
            Planned::Agent(run) => &mut run.tool,
        }
    }
}

struct TrackedFile {
    backup: String,
    version: u64,
    time: String,
}

pub struct Generator {
    rng: Rng,
    vocab: Vocab,
    env: Envelope,
    sink: Sink,
    clock: Clock,
    target: u64,
    last: Option<Uuid>,
    context_tokens: u64,
    next_compaction_at: u64,
    compaction_interval: u64,
    rewind_points: Vec<u64>,
    agent_total: usize,
    agents_spawned: usize,
    next_spawn_at: u64,
    parallel_spawn_done: bool,
    huge_outputs: u32,
    max_huge_outputs: u32,
    lone_surrogate_due_at: u64,
    interrupt_due_at: Option<u64>,
    todos: Vec<Todo>,
    background_task: Option<(String, String)>,
    prompts: Vec<PromptRecord>,
    current_prompt: Option<Uuid>,
    tracked_files: BTreeMap<&'static str, TrackedFile>,
    title: &'static str,
    title_written: bool,
    agents: Vec<(String, Vec<u8>)>,
    metas: Vec<(String, Vec<u8>)>,
    rewinds: Vec<(Uuid, Uuid)>,
    compactions: Vec<Uuid>,
    plan_marker: Option<String>,
    lone_surrogate_lines: Vec<usize>,
}

impl Generator {
    pub fn new(plan: &Plan) -> Generator {
        let mut rng = Rng::new(plan.seed);
        let session_id = Uuid::random(&mut rng).to_string();
        let cwd = format!("/home/dev/projects/{}", plan.project_name);
        let slug = format!(
            "{}-{}-{}",
            rng.pick(&["quiet", "amber", "brisk", "gentle", "lucky", "mellow"]),
            rng.pick(&["folding", "humming", "drifting", "sorting", "weaving"]),
            rng.pick(&["lantern", "otter", "harbor", "meadow", "pebble", "comet"])
        );
        let env = Envelope {
            session_id,
            cwd: cwd.clone(),
            version: "2.1.39",
            git_branch: "main".to_string(),
            slug,
            agent_id: None,
            with_slug: false,
        };
        // Sessions start on a weekday morning in early 2026, shifted by the seed.
        let start = 1_767_600_000_000 + (plan.seed % 60) * 86_400_000 + rng.below(3_600_000);
        let target = plan.target_bytes;
        let compaction_interval = COMPACTION_INTERVAL.min(target / 2).max(1);
        let rewind_points = if target < 200_000 { vec![target / 2] } else { vec![target * 3 / 10, target * 13 / 20] };
        let agent_total = plan.agent_count;
        let title = rng.pick(TITLES);
        Generator {
            plan_marker: plan.marker.clone(),
            vocab: Vocab::new(&cwd),
            env,
            sink: Sink::with_capacity(target as usize + (target as usize / 20) + (64 << 10)),
            clock: Clock::starting_at(start),
            target,
            last: None,
            context_tokens: 18_000,
            next_compaction_at: compaction_interval,
            compaction_interval,
            rewind_points,
            agent_total,
            agents_spawned: 0,
            next_spawn_at: spawn_point(target, 0, agent_total),
            parallel_spawn_done: false,
            huge_outputs: 0,
            max_huge_outputs: 1 + (target / (40 << 20)) as u32,
            lone_surrogate_due_at: target / 10,
            interrupt_due_at: Some(target * 11 / 20),
            todos: Vec::new(),
            background_task: None,
            prompts: Vec::new(),
            current_prompt: None,
            tracked_files: BTreeMap::new(),
            title,
            title_written: false,
            agents: Vec::new(),
            metas: Vec::new(),
            rewinds: Vec::new(),
            compactions: Vec::new(),
            lone_surrogate_lines: Vec::new(),
            rng,
        }
    }

    pub fn run(mut self) -> Generated {
        self.session_start();
        let mut first = true;
        while first || self.budget_left() > MIN_STEP_BYTES {
            first = false;
            if self.sink.len() >= self.next_compaction_at && !self.prompts.is_empty() {
                self.compaction();
                self.turn(false);
                continue;
            }
            self.turn(true);
        }
        self.closing();
        Generated {
            session_id: self.env.session_id,
            main: self.sink,
            agents: self.agents,
            metas: self.metas,
            rewinds: self.rewinds,
            compactions: self.compactions,
            lone_surrogate_lines: self.lone_surrogate_lines,
        }
    }

    fn budget_left(&self) -> u64 {
        self.target.saturating_sub(self.sink.len() + CLOSING_RESERVE)
    }

    fn advance(&mut self, low: u64, high: u64) -> String {
        let step = self.rng.range(low, high);
        self.clock.advance(step);
        self.clock.iso()
    }

    fn session_start(&mut self) {
        let hook_id = Uuid::random(&mut self.rng);
        for _ in 0..self.rng.range(1, 3) {
            let command = self.rng.pick(HOOK_COMMANDS);
            let timestamp = self.advance(1, 40);
            let uuid = Uuid::random(&mut self.rng);
            let parent = self.last;
            let env = &self.env;
            self.sink.line("progress", Some(uuid), |o| {
                env.write(o, parent);
                o.str("type", "progress")
                    .obj("data", |o| {
                        o.str("type", "hook_progress")
                            .str("hookEvent", "SessionStart")
                            .str("hookName", "SessionStart:startup")
                            .str("command", command);
                    })
                    .str("parentToolUseID", hook_id.as_str())
                    .str("toolUseID", hook_id.as_str())
                    .str("timestamp", &timestamp)
                    .str("uuid", uuid.as_str());
            });
            self.last = Some(uuid);
        }
    }

    fn file_history_snapshot(&mut self, message_id: Uuid, is_update: bool) {
        let prompt = self.current_prompt.unwrap_or(message_id);
        let timestamp = self.clock.iso();
        let files = &self.tracked_files;
        self.sink.line("file-history-snapshot", None, |o| {
            o.str("type", "file-history-snapshot")
                .str("messageId", message_id.as_str())
                .obj("snapshot", |o| {
                    o.str("messageId", prompt.as_str())
                        .obj("trackedFileBackups", |o| {
                            for (path, file) in files {
                                o.obj(path, |o| {
                                    o.str("backupFileName", &file.backup)
                                        .u64("version", file.version)
                                        .str("backupTime", &file.time);
                                });
                            }
                        })
                        .str("timestamp", &timestamp);
                })
                .bool("isSnapshotUpdate", is_update);
        });
    }

    fn queue_operations(&mut self, content: &str) {
        let session_id = &self.env.session_id;
        let enqueued = self.clock.iso();
        self.sink.line("queue-operation", None, |o| {
            o.str("type", "queue-operation")
                .str("operation", "enqueue")
                .str("timestamp", &enqueued)
                .str("sessionId", session_id)
                .str("content", content);
        });
        let dequeued = self.advance(5, 900);
        let session_id = &self.env.session_id;
        self.sink.line("queue-operation", None, |o| {
            o.str("type", "queue-operation")
                .str("operation", "dequeue")
                .str("timestamp", &dequeued)
                .str("sessionId", session_id);
        });
    }

    /// One user turn: a prompt (unless continuing after a compaction), a few
    /// responses with tool calls, a final answer and the end-of-turn system lines.
    fn turn(&mut self, with_prompt: bool) {
        let turn_start = self.clock.millis();
        if with_prompt {
            self.user_prompt();
        }
        let steps = self.rng.range(1, 6);
        for _ in 0..steps {
            if self.budget_left() < MIN_STEP_BYTES {
                break;
            }
            if self.response(false) {
                return;
            }
        }
        self.response(true);
        if self.rng.chance(0.3) {
            self.stop_hook_summary();
        }
        if self.rng.chance(0.85) {
            let duration = self.clock.millis() - turn_start;
            let timestamp = self.advance(10, 60);
            let uuid = Uuid::random(&mut self.rng);
            let parent = self.last;
            let env = &self.env;
            self.sink.line("system", Some(uuid), |o| {
                env.write(o, parent);
                o.str("type", "system")
                    .str("subtype", "turn_duration")
                    .u64("durationMs", duration)
                    .str("timestamp", &timestamp)
                    .str("uuid", uuid.as_str())
                    .bool("isMeta", false);
            });
            self.last = Some(uuid);
        }
        if !self.title_written {
            self.title_written = true;
            let title = self.title;
            let session_id = &self.env.session_id;
            self.sink.line("ai-title", None, |o| {
                o.str("type", "ai-title").str("aiTitle", title).str("sessionId", session_id);
            });
        }
    }

    fn user_prompt(&mut self) {
        self.advance(8_000, 240_000);
        let rewind_due =
            self.rewind_points.first().is_some_and(|&at| self.sink.len() >= at) && !self.prompts.is_empty();
        let (parent, text, replaced) = if rewind_due {
            self.rewind_points.remove(0);
            let back = self.rng.index(self.prompts.len().min(3));
            let earlier = &self.prompts[self.prompts.len() - 1 - back];
            let text = format!("{} Only touch the importer this time, leave the CLI alone.", earlier.text);
            (earlier.parent, text, Some(earlier.uuid))
        } else {
            let mut text = self.vocab.user_prompt(&mut self.rng);
            if let Some(marker) = self.plan_marker.as_deref().filter(|_| self.prompts.is_empty()) {
                text.push_str(&format!(" Keep the {marker} accounts as they are."));
            }
            (self.last, text, None)
        };
        let uuid = Uuid::random(&mut self.rng);
        if let Some(original) = replaced {
            self.rewinds.push((original, uuid));
        }
        if self.rng.chance(0.08) {
            self.queue_operations(&text);
        }
        self.current_prompt = Some(uuid);
        self.file_history_snapshot(uuid, false);
        let timestamp = self.advance(20, 200);
        let with_image = self.rng.chance(0.03);
        let image = with_image.then(|| {
            let length = self.rng.range(2_000, 24_000) as usize;
            ids::base64_blob(&mut self.rng, length)
        });
        let env = &self.env;
        self.sink.line("user", Some(uuid), |o| {
            env.write(o, parent);
            o.str("type", "user").obj("message", |o| {
                o.str("role", "user");
                match &image {
                    Some(data) => {
                        o.arr("content", |a| {
                            a.obj(|o| {
                                o.str("type", "text").str("text", &text);
                            });
                            a.obj(|o| {
                                o.str("type", "image").obj("source", |o| {
                                    o.str("type", "base64").str("media_type", "image/png").str("data", data);
                                });
                            });
                        });
                    }
                    None => {
                        o.str("content", &text);
                    }
                }
            });
            o.str("uuid", uuid.as_str())
                .str("timestamp", &timestamp)
                .obj("thinkingMetadata", |o| {
                    o.u64("maxThinkingTokens", 31_999);
                })
                .arr("todos", |_| {})
                .str("permissionMode", "bypassPermissions");
        });
        self.env.with_slug = true;
        self.prompts.push(PromptRecord { uuid, parent, text });
        self.last = Some(uuid);
    }

    fn api_error(&mut self) {
        for attempt in 1..=self.rng.range(1, 2) {
            let retry_in = self.rng.range(400, 9_000);
            let timestamp = self.clock.iso();
            self.clock.advance(retry_in);
            let uuid = Uuid::random(&mut self.rng);
            let parent = self.last;
            let env = &self.env;
            self.sink.line("system", Some(uuid), |o| {
                env.write(o, parent);
                o.str("type", "system")
                    .str("subtype", "api_error")
                    .str("level", "error")
                    .obj("cause", |o| {
                        o.str("code", "ECONNRESET")
                            .str("path", "https://api.anthropic.com/v1/messages?beta=true")
                            .u64("errno", 0);
                    })
                    .obj("error", |o| {
                        o.u64("status", 529).str("message", "Overloaded");
                    })
                    .u64("retryInMs", retry_in)
                    .u64("retryAttempt", attempt)
                    .u64("maxRetries", 10)
                    .str("timestamp", &timestamp)
                    .str("uuid", uuid.as_str());
            });
            self.last = Some(uuid);
        }
    }

    fn stop_hook_summary(&mut self) {
        let timestamp = self.advance(5, 400);
        let uuid = Uuid::random(&mut self.rng);
        let tool_use_id = Uuid::random(&mut self.rng);
        let parent = self.last;
        let env = &self.env;
        self.sink.line("system", Some(uuid), |o| {
            env.write(o, parent);
            o.str("type", "system")
                .str("subtype", "stop_hook_summary")
                .u64("hookCount", 2)
                .arr("hookInfos", |a| {
                    a.obj(|o| {
                        o.str("command", HOOK_COMMANDS[3]);
                    });
                    a.obj(|o| {
                        o.str("command", HOOK_COMMANDS[1]);
                    });
                })
                .arr("hookErrors", |_| {})
                .bool("preventedContinuation", false)
                .str("stopReason", "")
                .bool("hasOutput", true)
                .str("level", "suggestion")
                .str("timestamp", &timestamp)
                .str("uuid", uuid.as_str())
                .str("toolUseID", tool_use_id.as_str());
        });
        self.last = Some(uuid);
    }

    /// A tool output size from a heavy-tailed distribution, bounded by the tool and
    /// by what is left of the byte budget.
    fn output_size(&mut self, kind: ToolKind) -> u64 {
        let room = (self.budget_left() as f64 / 2.4).max(64.0);
        let cap = (kind.max_output() as f64).min(room);
        let mut size = self.rng.pareto(1_000.0, 1.15, cap.max(1_000.0)).min(cap);
        if size > HUGE_OUTPUT {
            if self.huge_outputs >= self.max_huge_outputs {
                size = self.rng.range(1_000, 64_000) as f64;
                size = size.min(cap);
            } else {
                self.huge_outputs += 1;
            }
        }
        size as u64
    }

    fn pick_tool(&mut self) -> ToolKind {
        let roll = self.rng.below(100);
        match roll {
            0..=29 => ToolKind::Bash,
            30..=54 => ToolKind::Read,
            55..=66 => ToolKind::Edit,
            67..=74 => ToolKind::Grep,
            75..=79 => ToolKind::Glob,
            80..=83 => ToolKind::Write,
            84..=90 => ToolKind::TodoWrite,
            91..=93 => ToolKind::WebFetch,
            94..=95 if self.background_task.is_none() => ToolKind::BackgroundBash,
            _ => ToolKind::Read,
        }
    }

    fn plan_tool(&mut self, kind: ToolKind) -> ToolCall {
        if kind == ToolKind::TodoWrite {
            let new = tools::next_todos(&mut self.rng, &self.todos);
            let mut call = ToolCall::default();
            let mut maker = ToolMaker { rng: &mut self.rng, vocab: &self.vocab };
            maker.todo_write(&mut call, &self.todos, &new);
            self.todos = new;
            return call;
        }
        let size = self.output_size(kind);
        let fail = matches!(kind, ToolKind::Bash | ToolKind::Read | ToolKind::Edit) && self.rng.chance(0.05);
        let lone_surrogate = kind == ToolKind::Bash
            && !fail
            && (self.sink.len() >= self.lone_surrogate_due_at || self.rng.chance(0.002));
        if lone_surrogate {
            self.lone_surrogate_due_at = u64::MAX;
        }
        let mut maker = ToolMaker { rng: &mut self.rng, vocab: &self.vocab };
        let call = maker.make(kind, size, fail, lone_surrogate);
        if let Some(task) = &call.started_task {
            self.background_task = Some(task.clone());
        }
        call
    }

    fn plan_calls(&mut self) -> Vec<Planned> {
        if self.agents_spawned < self.agent_total && self.sink.len() >= self.next_spawn_at {
            return self.plan_spawns();
        }
        if let Some((task_id, description)) = self.background_task.take() {
            let size = self.output_size(ToolKind::TaskOutput);
            let mut maker = ToolMaker { rng: &mut self.rng, vocab: &self.vocab };
            return vec![Planned::Tool(maker.task_output_for(&task_id, &description, size))];
        }
        let count = if self.rng.chance(0.22) { self.rng.range(2, 4) } else { 1 };
        let mut calls = Vec::with_capacity(count as usize);
        for _ in 0..count {
            let kind = self.pick_tool();
            if kind == ToolKind::BackgroundBash && self.background_task.is_some() {
                continue;
            }
            calls.push(Planned::Tool(self.plan_tool(kind)));
        }
        calls
    }

    fn plan_spawns(&mut self) -> Vec<Planned> {
        let remaining = self.agent_total - self.agents_spawned;
        let count = if !self.parallel_spawn_done && remaining >= 2 {
            self.parallel_spawn_done = true;
            self.rng.range(2, 3.min(remaining as u64)) as usize
        } else {
            1
        };
        let max_output = (self.budget_left() / 40).clamp(400, 24_000);
        // The agents start once the spawning response is fully written: each of its
        // remaining lines (a text block and the tool uses) advances the clock by at
        // most about 1.8 s.
        let start = self.clock.millis() + (count as u64 + 2) * 1_810 + 600;
        let mut runs = Vec::with_capacity(count);
        for _ in 0..count {
            let agent_tool_name = self.agents_spawned % 3 == 1;
            let plan =
                AgentPlan { main: &self.env, vocab: &self.vocab, start_millis: start, agent_tool_name, max_output };
            let mut agent_rng = self.rng.fork();
            let run = agents::run_agent(&mut agent_rng, &plan);
            self.agents_spawned += 1;
            let base = format!("{}/subagents/agent-{}", self.env.session_id, run.agent_id);
            self.agents.push((format!("{base}.jsonl"), run.file.clone()));
            self.metas.push((format!("{base}.meta.json"), run.meta.clone()));
            runs.push(Planned::Agent(run));
        }
        self.next_spawn_at = spawn_point(self.target, self.agents_spawned, self.agent_total);
        runs
    }

    /// Writes one API response, one line per content block, then its tool results.
    /// Returns true when the user interrupted it.
    fn response(&mut self, final_answer: bool) -> bool {
        self.advance(1_500, 12_000);
        if self.rng.chance(0.008) {
            self.api_error();
        }
        let message_id = ids::message_id(&mut self.rng);
        let request_id = ids::request_id(&mut self.rng);
        self.context_tokens += self.rng.range(300, 5_000);

        let mut blocks = Vec::new();
        if self.rng.chance(if final_answer { 0.5 } else { 0.35 }) {
            let mut text = String::new();
            let length = self.rng.range(120, 1_600) as usize;
            self.vocab.prose(&mut self.rng, length, &mut text);
            let signature = ids::signature(&mut self.rng);
            blocks.push(Block::Thinking { text, signature });
        }
        let mut planned = Vec::new();
        if final_answer {
            let length = self.rng.range(300, 3_000) as usize;
            blocks.push(Block::Text(self.vocab.markdown(&mut self.rng, length)));
        } else {
            if self.rng.chance(0.45) {
                let mut text = String::new();
                self.vocab.sentence(&mut self.rng, &mut text);
                blocks.push(Block::Text(text));
            }
            planned = self.plan_calls();
            for call in &planned {
                let call = call.call();
                blocks.push(Block::ToolUse { id: call.id.clone(), name: call.name, input: call.input.clone() });
            }
        }
        let interrupt = !final_answer
            && planned.len() == 1
            && matches!(planned.first(), Some(Planned::Tool(_)))
            && self.interrupt_due_at.is_some_and(|at| self.sink.len() >= at);

        let full_output = self.rng.range(30, 2_500);
        let block_count = blocks.len();
        let cache_creation = self.rng.range(100, 6_000);
        let input = self.rng.range(1, 8);
        for (index, block) in blocks.iter().enumerate() {
            let is_last = index + 1 == block_count;
            let usage = Usage {
                input,
                cache_creation,
                cache_read: self.context_tokens,
                output: if is_last { full_output } else { self.rng.range(1, 30) },
            };
            let stop = (final_answer && is_last).then_some("end_turn");
            let message = assistant_message(agents::main_model(), &message_id, block, stop, &usage);
            let uuid = Uuid::random(&mut self.rng);
            let timestamp = self.clock.iso();
            let parent = self.last;
            let env = &self.env;
            self.sink.line("assistant", Some(uuid), |o| {
                env.write(o, parent);
                o.raw_bytes("message", &message)
                    .str("requestId", &request_id)
                    .str("type", "assistant")
                    .str("uuid", uuid.as_str())
                    .str("timestamp", &timestamp);
            });
            self.last = Some(uuid);
            if let Block::ToolUse { id, name, .. } = block {
                if let Some(call) = planned.iter_mut().find(|call| &call.call().id == id) {
                    call.call_mut().assistant_uuid = Some(uuid);
                }
                let pre_hooks = match tool_kind_of(name) {
                    Some(kind) => kind.hook_counts(&mut self.rng).0,
                    None => self.rng.range(0, 1),
                };
                for _ in 0..pre_hooks {
                    self.hook_progress("PreToolUse", name, id);
                }
            }
            self.advance(80, 1_800);
        }

        if interrupt {
            self.interrupt_due_at = None;
            if let Some(call) = planned.first() {
                self.interrupted(call.call());
            }
            return true;
        }
        self.agent_progress(&planned, &message_id);
        for call in &planned {
            self.tool_result(call.call());
        }
        false
    }

    fn hook_progress(&mut self, event: &str, tool_name: &str, tool_use_id: &str) {
        let command = self.rng.pick(HOOK_COMMANDS);
        let timestamp = self.advance(0, 3);
        let uuid = Uuid::random(&mut self.rng);
        let parent = self.last;
        let env = &self.env;
        self.sink.line("progress", Some(uuid), |o| {
            env.write(o, parent);
            o.str("type", "progress")
                .obj("data", |o| {
                    o.str("type", "hook_progress")
                        .str("hookEvent", event)
                        .str("hookName", &format!("{event}:{tool_name}"))
                        .str("command", command);
                })
                .str("parentToolUseID", tool_use_id)
                .str("toolUseID", tool_use_id)
                .str("timestamp", &timestamp)
                .str("uuid", uuid.as_str());
        });
        self.last = Some(uuid);
    }

    /// Mirrors the entries of the agents spawned by one response, in time order.
    fn agent_progress(&mut self, planned: &[Planned], message_id: &str) {
        let mut mirrored: Vec<(u64, usize, usize)> = Vec::new();
        let mut end = self.clock.millis();
        for (run_index, call) in planned.iter().enumerate() {
            if let Planned::Agent(run) = call {
                for (entry_index, entry) in run.entries.iter().enumerate() {
                    mirrored.push((entry.millis, run_index, entry_index));
                }
                end = end.max(run.end_millis);
            }
        }
        mirrored.sort_unstable();
        let tool_use_id = format!("agent_{message_id}");
        for (millis, run_index, entry_index) in mirrored {
            let Some(Planned::Agent(run)) = planned.get(run_index) else {
                continue;
            };
            let entry = &run.entries[entry_index];
            let timestamp = ids::iso_from_millis(millis + 1);
            let uuid = Uuid::random(&mut self.rng);
            let parent = self.last;
            let env = &self.env;
            self.sink.line("progress", Some(uuid), |o| {
                env.write(o, parent);
                o.str("type", "progress")
                    .obj("data", |o| {
                        agents::write_agent_progress_data(o, entry, &run.prompt, &run.agent_id);
                    })
                    .str("toolUseID", &tool_use_id)
                    .str("parentToolUseID", &run.tool.id)
                    .str("uuid", uuid.as_str())
                    .str("timestamp", &timestamp);
            });
            self.last = Some(uuid);
        }
        if end > self.clock.millis() {
            self.clock = Clock::starting_at(end);
        }
    }

    fn bash_progress(&mut self, call: &ToolCall) {
        let mut elapsed = 0;
        let mut total_lines = 0;
        for (index, output) in call.bash_progress.iter().enumerate() {
            elapsed += self.rng.range(1, 4);
            total_lines += output.lines().count() as u64;
            let timestamp = self.advance(900, 3_000);
            let uuid = Uuid::random(&mut self.rng);
            let parent = self.last;
            let env = &self.env;
            let progress_id = format!("bash-progress-{index}");
            self.sink.line("progress", Some(uuid), |o| {
                env.write(o, parent);
                o.str("type", "progress")
                    .obj("data", |o| {
                        o.str("type", "bash_progress")
                            .str("output", output)
                            .str("fullOutput", output)
                            .u64("elapsedTimeSeconds", elapsed)
                            .u64("totalLines", total_lines)
                            .u64("timeoutMs", 120_000);
                    })
                    .str("toolUseID", &progress_id)
                    .str("parentToolUseID", &call.id)
                    .str("uuid", uuid.as_str())
                    .str("timestamp", &timestamp);
            });
            if output.contains(LONE_SURROGATE) {
                self.lone_surrogate_lines.push(self.sink.lines.len() - 1);
            }
            self.last = Some(uuid);
        }
    }

    fn waiting_for_task(&mut self, call: &ToolCall, description: &str) {
        let timestamp = self.advance(2, 10);
        let uuid = Uuid::random(&mut self.rng);
        let parent = self.last;
        let env = &self.env;
        let waiting_id = format!("task-output-waiting-{}", self.clock.millis());
        self.sink.line("progress", Some(uuid), |o| {
            env.write(o, parent);
            o.str("type", "progress")
                .obj("data", |o| {
                    o.str("type", "waiting_for_task").str("taskDescription", description).str("taskType", "local_bash");
                })
                .str("toolUseID", &waiting_id)
                .str("parentToolUseID", &call.id)
                .str("uuid", uuid.as_str())
                .str("timestamp", &timestamp);
        });
        self.last = Some(uuid);
        self.advance(5_000, 90_000);
    }

    fn tool_result(&mut self, call: &ToolCall) {
        self.advance(20, 2_500);
        self.bash_progress(call);
        if let Some(description) = &call.waits_for {
            self.waiting_for_task(call, description);
        }
        let post_hooks = match tool_kind_of(call.name) {
            Some(kind) => kind.hook_counts(&mut self.rng).1,
            None => 1,
        };
        for _ in 0..post_hooks {
            self.hook_progress("PostToolUse", call.name, &call.id);
        }
        let Some(source) = call.assistant_uuid else {
            return;
        };
        if let Some(file) = call.edited_file {
            let backup = ids::hex(&mut self.rng, 16);
            let time = self.clock.iso();
            let tracked =
                self.tracked_files.entry(file).or_insert(TrackedFile { backup, version: 0, time: String::new() });
            tracked.version += 1;
            tracked.time = time;
            self.file_history_snapshot(source, true);
        }
        let timestamp = self.clock.iso();
        let uuid = Uuid::random(&mut self.rng);
        let env = &self.env;
        self.sink.line("user", Some(uuid), |o| {
            env.write(o, Some(source));
            o.str("type", "user")
                .obj("message", |o| {
                    o.str("role", "user").arr("content", |a| {
                        a.obj(|o| {
                            o.str("tool_use_id", &call.id)
                                .str("type", "tool_result")
                                .raw_bytes("content", &call.result_content);
                            if call.is_error || call.name == "Bash" {
                                o.bool("is_error", call.is_error);
                            }
                        });
                    });
                })
                .str("uuid", uuid.as_str())
                .str("timestamp", &timestamp)
                .raw_bytes("toolUseResult", &call.result_detail)
                .str("sourceToolAssistantUUID", source.as_str());
        });
        if call.has_lone_surrogate {
            self.lone_surrogate_lines.push(self.sink.lines.len() - 1);
        }
        self.last = Some(uuid);
    }

    fn interrupted(&mut self, call: &ToolCall) {
        let Some(source) = call.assistant_uuid else {
            return;
        };
        let timestamp = self.advance(2_000, 20_000);
        let uuid = Uuid::random(&mut self.rng);
        let env = &self.env;
        self.sink.line("user", Some(uuid), |o| {
            env.write(o, Some(source));
            o.str("type", "user")
                .obj("message", |o| {
                    o.str("role", "user").arr("content", |a| {
                        a.obj(|o| {
                            o.str("type", "tool_result")
                                .str("content", REJECTION)
                                .bool("is_error", true)
                                .str("tool_use_id", &call.id);
                        });
                    });
                })
                .str("uuid", uuid.as_str())
                .str("timestamp", &timestamp)
                .str("toolUseResult", "User rejected tool use")
                .str("sourceToolAssistantUUID", source.as_str());
        });
        let note_uuid = Uuid::random(&mut self.rng);
        let note_time = self.advance(1, 5);
        let env = &self.env;
        self.sink.line("user", Some(note_uuid), |o| {
            env.write(o, Some(uuid));
            o.str("type", "user")
                .obj("message", |o| {
                    o.str("role", "user").arr("content", |a| {
                        a.obj(|o| {
                            o.str("type", "text").str("text", "[Request interrupted by user for tool use]");
                        });
                    });
                })
                .str("uuid", note_uuid.as_str())
                .str("timestamp", &note_time);
        });
        self.last = Some(note_uuid);
    }

    fn compaction(&mut self) {
        let Some(logical_parent) = self.last else {
            return;
        };
        let pre_tokens = self.rng.range(150_000, 175_000);
        self.advance(500, 3_000);
        let summary = if self.agent_total > 0 {
            let mut agent_rng = self.rng.fork();
            let run = agents::run_compaction_agent(
                &mut agent_rng,
                &self.env,
                &self.vocab,
                logical_parent,
                self.clock.millis(),
                pre_tokens,
            );
            self.agents.push((format!("{}/subagents/agent-{}.jsonl", self.env.session_id, run.agent_id), run.file));
            self.clock = Clock::starting_at(run.end_millis + self.rng.range(100, 600));
            run.summary
        } else {
            let mut summary = String::new();
            self.vocab.prose(&mut self.rng, 2_000, &mut summary);
            summary
        };
        let trigger = if self.rng.chance(0.8) { "auto" } else { "manual" };
        let timestamp = self.clock.iso();
        let boundary = Uuid::random(&mut self.rng);
        let env = &self.env;
        self.sink.line("system", Some(boundary), |o| {
            env.write_with_logical_parent(o, None, Some(logical_parent));
            o.str("type", "system")
                .str("subtype", "compact_boundary")
                .str("content", "Conversation compacted")
                .bool("isMeta", false)
                .str("timestamp", &timestamp)
                .str("uuid", boundary.as_str())
                .str("level", "info")
                .obj("compactMetadata", |o| {
                    o.str("trigger", trigger).u64("preTokens", pre_tokens);
                });
        });
        let content = format!(
            "{CONTINUATION_NOTE}{summary}\n\nPlease continue the conversation from where we left it off without asking the user any further questions. Continue with the last task that you were asked to work on."
        );
        let summary_uuid = Uuid::random(&mut self.rng);
        let env = &self.env;
        self.sink.line("user", Some(summary_uuid), |o| {
            env.write(o, Some(boundary));
            o.str("type", "user")
                .obj("message", |o| {
                    o.str("role", "user").str("content", &content);
                })
                .bool("isVisibleInTranscriptOnly", true)
                .bool("isCompactSummary", true)
                .str("uuid", summary_uuid.as_str())
                .str("timestamp", &timestamp);
        });
        self.last = Some(summary_uuid);
        self.compactions.push(boundary);
        self.prompts.clear();
        self.context_tokens = self.rng.range(20_000, 35_000);
        self.next_compaction_at += self.compaction_interval;
    }

    fn closing(&mut self) {
        let session_id = &self.env.session_id;
        if self.rng.chance(0.5) {
            self.sink.line("custom-title", None, |o| {
                o.str("type", "custom-title")
                    .str("customTitle", "rounding-and-import-fixes")
                    .str("sessionId", session_id);
            });
        }
        let title = self.title;
        self.sink.line("ai-title", None, |o| {
            o.str("type", "ai-title").str("aiTitle", title).str("sessionId", session_id);
        });
        if let Some(leaf) = self.last {
            self.sink.line("summary", None, |o| {
                o.str("type", "summary").str("summary", title).str("leafUuid", leaf.as_str());
            });
        }
    }
}

/// The byte offset at which spawn number `index` of `total` should happen.
fn spawn_point(target: u64, index: usize, total: usize) -> u64 {
    if total == 0 {
        return u64::MAX;
    }
    let fraction = (index as f64 + 0.4) / total as f64;
    (target as f64 * fraction) as u64
}

fn tool_kind_of(name: &str) -> Option<ToolKind> {
    Some(match name {
        "Bash" => ToolKind::Bash,
        "Read" => ToolKind::Read,
        "Edit" => ToolKind::Edit,
        "Write" => ToolKind::Write,
        "Glob" => ToolKind::Glob,
        "Grep" => ToolKind::Grep,
        "TodoWrite" => ToolKind::TodoWrite,
        "WebFetch" => ToolKind::WebFetch,
        "TaskOutput" => ToolKind::TaskOutput,
        _ => return None,
    })
}
