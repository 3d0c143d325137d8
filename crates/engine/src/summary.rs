//! The summary of everything loaded, as `sessionscope summary --json` prints it.

use serde::{Deserialize, Serialize};

use crate::dag::stats::{ModelStats, ToolStats, model_stats, tool_stats};
use crate::dag::{ConversationId, ConversationKind, Graph};
use crate::model::{Corpus, Usage};

#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct Summary {
    pub files: usize,
    pub lines: u64,
    pub entries: u64,
    pub metadata_lines: u64,
    /// Each file: what it was read as, its lines, and the usage of the responses it holds.
    pub per_file: Vec<FileSummary>,
    pub diagnostics: Vec<DiagnosticSummary>,
    pub sessions: Vec<SessionSummary>,
    pub unlinked_agents: Vec<UnlinkedAgent>,
    pub validation: Vec<ValidationSummary>,
    /// Tokens and cost per model, over everything loaded.
    pub per_model: Vec<ModelSummary>,
    /// Calls, errors and times per tool, over everything loaded.
    pub per_tool: Vec<ToolSummary>,
}

#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct FileSummary {
    pub path: String,
    pub format: &'static str,
    pub lines: u64,
    pub entries: u64,
    pub metadata: u64,
    pub skipped: u64,
    pub usage: UsageSummary,
    pub cost_usd: f64,
}

#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct DiagnosticSummary {
    pub file: String,
    pub line: u32,
    pub kind: &'static str,
    pub message: String,
}

#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Default)]
pub struct UsageSummary {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_creation_input_tokens: u64,
    pub cache_read_input_tokens: u64,
}

impl From<Usage> for UsageSummary {
    fn from(u: Usage) -> Self {
        UsageSummary {
            input_tokens: u.input_tokens,
            output_tokens: u.output_tokens,
            cache_creation_input_tokens: u.cache_creation_input_tokens,
            cache_read_input_tokens: u.cache_read_input_tokens,
        }
    }
}

#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct ModelSummary {
    pub model: String,
    pub responses: u32,
    pub usage: UsageSummary,
    /// `None` when no response of the model has a price or a logged cost.
    pub cost_usd: Option<f64>,
}

impl From<ModelStats> for ModelSummary {
    fn from(row: ModelStats) -> Self {
        ModelSummary {
            model: row.model,
            responses: row.responses,
            usage: row.usage.into(),
            cost_usd: row.cost_usd.map(round_cents),
        }
    }
}

#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct ToolSummary {
    pub tool: String,
    pub calls: u32,
    pub errors: u32,
    pub interrupted: u32,
    /// Calls with a duration (both ends timestamped), and their average in milliseconds.
    pub timed_calls: u32,
    pub average_ms: Option<i64>,
}

impl From<ToolStats> for ToolSummary {
    fn from(row: ToolStats) -> Self {
        ToolSummary {
            average_ms: row.average_ms(),
            tool: row.tool,
            calls: row.calls,
            errors: row.errors,
            interrupted: row.interrupted,
            timed_calls: row.timed_calls,
        }
    }
}

#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct SessionSummary {
    pub session_id: String,
    pub title: String,
    pub entries: u32,
    pub roots: usize,
    pub compactions: u32,
    pub real_forks: u32,
    pub artifact_forks: u32,
    pub tool_uses: u32,
    pub tool_results: u32,
    pub unpaired_tool_uses: u32,
    pub usage: UsageSummary,
    pub usage_with_agents: UsageSummary,
    /// The main thread alone, like `usage`.
    pub cost_usd: f64,
    pub cost_with_agents_usd: f64,
    pub unknown_models: Vec<String>,
    pub agents: Vec<AgentSummary>,
}

#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct AgentSummary {
    pub agent_id: String,
    pub kind: &'static str,
    pub agent_type: String,
    pub description: String,
    pub spawn_tool_use_id: Option<String>,
    pub linked_by: Option<&'static str>,
    pub parent_agent_id: Option<String>,
    pub depth: u32,
    pub entries: u32,
    pub usage: UsageSummary,
}

#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct UnlinkedAgent {
    pub agent_id: String,
    pub file: String,
}

#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct ValidationSummary {
    pub rule: &'static str,
    pub uuid: String,
    pub message: String,
}

/// The id an agent conversation is known by: its agent id, or for an inline sidechain
/// `inline-` and the end of its first uuid.
pub fn agent_label(corpus: &Corpus, graph: &Graph, conversation: ConversationId) -> String {
    let conv = &graph.conversations[conversation.index()];
    if !conv.agent_name.is_empty() {
        return conv.agent_name.clone();
    }
    let root = conv.roots.first().map(|&r| corpus.entry_uuid(&corpus.entries[r.index()])).unwrap_or("");
    format!("inline-{}", crate::dump::short(root))
}

pub fn summarize(corpus: &Corpus, graph: &Graph) -> Summary {
    let counts = corpus.counts();
    let file_name = |file: u32| corpus.files.get(file as usize).map(|f| f.path.clone()).unwrap_or_default();
    let sessions = graph
        .sessions
        .iter()
        .map(|session| {
            let agents = session
                .agents
                .iter()
                .map(|&c| {
                    let conv = &graph.conversations[c.index()];
                    let spawn_tool_use_id = conv.spawn_block.is_some().then(|| {
                        let entry = &corpus.entries[conv.spawn_entry.index()];
                        corpus.span_str(entry.file, corpus.blocks[conv.spawn_block.index()].id).to_owned()
                    });
                    let parent_agent_id = (conv.parent.is_some()
                        && graph.conversations[conv.parent.index()].kind != ConversationKind::Main)
                        .then(|| agent_label(corpus, graph, conv.parent));
                    AgentSummary {
                        agent_id: agent_label(corpus, graph, c),
                        kind: conv.kind.name(),
                        agent_type: conv.agent_type.clone(),
                        description: conv.description.clone(),
                        spawn_tool_use_id,
                        linked_by: conv.linked_by.map(|r| r.name()),
                        parent_agent_id,
                        depth: conv.depth,
                        entries: conv.entries,
                        usage: conv.usage.into(),
                    }
                })
                .collect();
            let roots = if session.main.is_some() { graph.conversations[session.main.index()].roots.len() } else { 0 };
            SessionSummary {
                session_id: session.id.clone(),
                title: session.title.clone(),
                entries: session.entries,
                roots,
                compactions: session.compactions,
                real_forks: session.real_forks,
                artifact_forks: session.artifact_forks,
                tool_uses: session.tool_uses,
                tool_results: session.tool_results,
                unpaired_tool_uses: session.unpaired_tool_uses,
                usage: session.usage.into(),
                usage_with_agents: session.usage_with_agents.into(),
                cost_usd: round_cents(session.cost_usd),
                cost_with_agents_usd: round_cents(session.cost_with_agents_usd),
                unknown_models: session.unknown_models.clone(),
                agents,
            }
        })
        .collect();
    let mut file_usage = vec![(Usage::default(), 0.0f64); corpus.files.len()];
    for response in &corpus.responses {
        let slot = &mut file_usage[response.file as usize];
        slot.0.add(&response.usage);
        slot.1 += response
            .logged_cost_usd
            .or_else(|| crate::dag::pricing::cost(corpus.sym(response.model), &response.usage))
            .unwrap_or(0.0);
    }
    // A file read in parts (over 2 GiB) is one file here: its parts' counts go to its first.
    let first_part = |mut file: usize| {
        while let Some(before) = corpus.files.get(file).and_then(|f| f.continues) {
            file = before as usize;
        }
        file
    };
    let mut whole: Vec<(crate::model::LineCounts, Usage, f64)> = vec![Default::default(); corpus.files.len()];
    for (file, (info, (usage, cost))) in corpus.files.iter().zip(file_usage).enumerate() {
        let slot = &mut whole[first_part(file)];
        slot.0.add(&info.counts);
        slot.1.add(&usage);
        slot.2 += cost;
    }
    let per_file = corpus
        .files
        .iter()
        .zip(whole)
        .filter(|(file, _)| !file.is_part())
        .map(|(file, (counts, usage, cost))| FileSummary {
            path: file.path.clone(),
            format: file.format.name(),
            lines: counts.lines,
            entries: counts.entries,
            metadata: counts.metadata,
            skipped: counts.skipped,
            usage: usage.into(),
            cost_usd: round_cents(cost),
        })
        .collect();
    Summary {
        // The files given: a record stream the loader made of OpenCode storage files is not one.
        files: corpus.files.iter().filter(|f| !f.is_derived() && !f.is_part()).count(),
        lines: counts.lines,
        entries: counts.entries,
        metadata_lines: counts.metadata,
        per_file,
        diagnostics: corpus
            .diagnostics
            .iter()
            .map(|d| DiagnosticSummary {
                file: file_name(d.file),
                line: d.line,
                kind: d.kind.name(),
                message: d.message.clone(),
            })
            .collect(),
        sessions,
        unlinked_agents: graph
            .unlinked_agents
            .iter()
            .map(|&c| UnlinkedAgent {
                agent_id: agent_label(corpus, graph, c),
                file: file_name(graph.conversations[c.index()].file),
            })
            .collect(),
        validation: graph
            .problems
            .iter()
            .map(|p| ValidationSummary {
                rule: p.rule.name(),
                uuid: if p.entry.is_none() {
                    String::new()
                } else {
                    corpus.entry_uuid(&corpus.entries[p.entry.index()]).to_owned()
                },
                message: p.message.clone(),
            })
            .collect(),
        per_model: model_stats(corpus, graph, None).into_iter().map(ModelSummary::from).collect(),
        per_tool: tool_stats(corpus, graph, None).into_iter().map(ToolSummary::from).collect(),
    }
}

/// Costs to a millionth of a dollar: enough to compare, free of float noise.
fn round_cents(value: f64) -> f64 {
    (value * 1e6).round() / 1e6
}
