//! The sidechain statistics of `000_a9acd4a8891233b1.txt`: uses per agent type, messages per
//! sidechain, multi-turn share, nesting, durations. And the usage tables of the Statistics view
//! and `sessionscope summary`: tokens and cost per model, calls, errors and times per tool.

use serde::Serialize;

use super::*;
use crate::model::{EntryKind, Usage};

/// Statistics over the agent conversations (subagents and inline sidechains; compaction
/// agents are left out).
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct SidechainStats {
    pub total: u32,
    /// Uses per agent type (`subagent_type`), most used first.
    pub by_agent_type: Vec<(String, u32)>,
    /// Sidechains by their number of messages: 1-2, 3-5, 6-10, 11-20, over 20.
    pub messages_distribution: [(String, u32); 5],
    /// Sidechains by nesting depth (1: spawned by the main thread).
    pub depth_distribution: Vec<(u32, u32)>,
    /// Sidechains with more than one prompt turn.
    pub multi_turn: u32,
    pub multi_turn_share: f64,
    /// Sidechains spawned by another sidechain.
    pub nested: u32,
    /// Turns that spawned two or more agents.
    pub parallel_spawns: u32,
    pub average_messages: f64,
    pub average_depth: f64,
    pub average_duration_ms: f64,
    pub median_duration_ms: i64,
    pub max_duration_ms: i64,
    pub unlinked: u32,
}

/// Statistics for one session, or for everything loaded (`None`).
pub fn sidechain_stats(corpus: &Corpus, graph: &Graph, session: Option<SessionId>) -> SidechainStats {
    let mut stats = SidechainStats {
        messages_distribution: [
            ("1-2".into(), 0),
            ("3-5".into(), 0),
            ("6-10".into(), 0),
            ("11-20".into(), 0),
            ("over 20".into(), 0),
        ],
        ..SidechainStats::default()
    };
    let mut messages = vec![0u32; graph.conversations.len()];
    for (e, entry) in corpus.entries.iter().enumerate() {
        if matches!(entry.kind, EntryKind::User | EntryKind::Assistant) {
            messages[graph.nodes[e].conversation.index()] += 1;
        }
    }
    let mut durations = Vec::new();
    let mut by_type: Vec<(String, u32)> = Vec::new();
    let mut depths: Vec<(u32, u32)> = Vec::new();
    let mut total_messages = 0u64;
    let mut total_depth = 0u64;
    let mut spawns_per_turn: rustc_hash::FxHashMap<TurnId, u32> = Default::default();
    for (c, conv) in graph.conversations.iter().enumerate() {
        if !matches!(conv.kind, ConversationKind::Agent | ConversationKind::InlineSidechain) {
            continue;
        }
        if session.is_some_and(|s| s != conv.session) {
            continue;
        }
        stats.total += 1;
        let kind = if conv.agent_type.is_empty() { "(unknown)".to_owned() } else { conv.agent_type.clone() };
        match by_type.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, n)) => *n += 1,
            None => by_type.push((kind, 1)),
        }
        let count = messages[c];
        total_messages += count as u64;
        let bucket = match count {
            0..=2 => 0,
            3..=5 => 1,
            6..=10 => 2,
            11..=20 => 3,
            _ => 4,
        };
        stats.messages_distribution[bucket].1 += 1;
        // Kept in order as they come (a few depths): no sort, whose code the page would carry.
        match depths.iter().position(|(d, _)| *d >= conv.depth) {
            Some(at) if depths[at].0 == conv.depth => depths[at].1 += 1,
            Some(at) => depths.insert(at, (conv.depth, 1)),
            None => depths.push((conv.depth, 1)),
        }
        total_depth += conv.depth as u64;
        if conv.turns > 1 {
            stats.multi_turn += 1;
        }
        if conv.depth > 1 {
            stats.nested += 1;
        }
        if conv.linked_by.is_none() {
            stats.unlinked += 1;
        }
        if conv.first_timestamp_ms != i64::MAX && conv.last_timestamp_ms != i64::MIN {
            durations.push(conv.last_timestamp_ms.saturating_sub(conv.first_timestamp_ms));
        }
        if conv.spawn_entry.is_some()
            && let Some(&turn) = graph.turn_of_entry.get(conv.spawn_entry.index())
        {
            *spawns_per_turn.entry(turn).or_insert(0) += 1;
        }
    }
    most_first(&mut by_type);
    stats.by_agent_type = by_type;
    stats.depth_distribution = depths;
    stats.parallel_spawns = spawns_per_turn.values().filter(|&&n| n >= 2).count() as u32;
    if stats.total > 0 {
        let total = stats.total as f64;
        stats.multi_turn_share = stats.multi_turn as f64 / total;
        stats.average_messages = total_messages as f64 / total;
        stats.average_depth = total_depth as f64 / total;
    }
    if !durations.is_empty() {
        durations.sort_unstable();
        stats.average_duration_ms = durations.iter().sum::<i64>() as f64 / durations.len() as f64;
        stats.median_duration_ms = durations[durations.len() / 2];
        stats.max_duration_ms = *durations.last().unwrap_or(&0);
    }
    stats
}

/// Tokens and cost of one model's responses (each API response counted once, as for the
/// sessions' totals).
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct ModelStats {
    /// The model id as the log names it, or `(unknown)` when it names none.
    pub model: String,
    pub responses: u32,
    pub usage: Usage,
    /// The cost in dollars (a cost the log recorded, or the price table's), or `None` when no
    /// response of the model has either.
    pub cost_usd: Option<f64>,
}

/// Tokens and cost per model, in model-id order, for one session (with its agents) or for
/// everything loaded (`None`). Responses without usage and without a logged cost are left out.
pub fn model_stats(corpus: &Corpus, graph: &Graph, session: Option<SessionId>) -> Vec<ModelStats> {
    let mut rows: std::collections::BTreeMap<&str, ModelStats> = Default::default();
    for response in &corpus.responses {
        if !response.has_usage && response.logged_cost_usd.is_none() {
            continue;
        }
        let Some(node) = graph.nodes.get(response.first_entry.index()) else { continue };
        let Some(conversation) = graph.conversations.get(node.conversation.index()) else { continue };
        if session.is_some_and(|s| s != conversation.session) {
            continue;
        }
        let name = corpus.sym(response.model);
        let name = if name.is_empty() { "(unknown)" } else { name };
        let row = rows.entry(name).or_insert_with(|| ModelStats { model: name.to_owned(), ..ModelStats::default() });
        row.responses += 1;
        row.usage.add(&response.usage);
        if let Some(cost) = response.logged_cost_usd.or_else(|| pricing::cost(name, &response.usage)) {
            row.cost_usd = Some(row.cost_usd.unwrap_or(0.0) + cost);
        }
    }
    rows.into_values().collect()
}

/// How one tool's calls went.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct ToolStats {
    pub tool: String,
    pub calls: u32,
    pub errors: u32,
    pub interrupted: u32,
    /// Calls whose call and result both have a timestamp, and their summed duration.
    pub timed_calls: u32,
    pub total_ms: i64,
}

impl ToolStats {
    /// Errors per hundred calls.
    pub fn error_percent(&self) -> f64 {
        if self.calls > 0 { self.errors as f64 * 100.0 / self.calls as f64 } else { 0.0 }
    }

    /// The average duration of the timed calls, if any was timed.
    pub fn average_ms(&self) -> Option<i64> {
        (self.timed_calls > 0).then(|| self.total_ms / self.timed_calls as i64)
    }
}

/// Calls, errors, interruptions and times per tool, in tool-name order, for one session (with
/// its agents) or for everything loaded (`None`). Results without a call are left out.
pub fn tool_stats(corpus: &Corpus, graph: &Graph, session: Option<SessionId>) -> Vec<ToolStats> {
    let mut rows: std::collections::BTreeMap<&str, ToolStats> = Default::default();
    for op in &graph.tool_ops {
        if op.call_entry.is_none() {
            continue;
        }
        let Some(conversation) = graph.conversations.get(op.conversation.index()) else { continue };
        if session.is_some_and(|s| s != conversation.session) {
            continue;
        }
        let name = corpus.sym(op.name);
        let row = rows.entry(name).or_insert_with(|| ToolStats { tool: name.to_owned(), ..ToolStats::default() });
        row.calls += 1;
        match op.status {
            ToolStatus::Error => row.errors += 1,
            ToolStatus::Interrupted => row.interrupted += 1,
            _ => {}
        }
        if op.duration_ms >= 0 {
            row.total_ms += op.duration_ms;
            row.timed_calls += 1;
        }
    }
    rows.into_values().collect()
}

/// Sorts counts most first, then by name: an insertion sort of a few kinds (the standard sort's
/// code would be one more copy in the page).
fn most_first(counts: &mut Vec<(String, u32)>) {
    for at in 1..counts.len() {
        let mut to = at;
        while to > 0 && (counts[to - 1].1, &counts[at].0) < (counts[at].1, &counts[to - 1].0) {
            to -= 1;
        }
        let moved = counts.remove(at);
        counts.insert(to, moved);
    }
}

#[cfg(test)]
mod most_first_tests {
    #[test]
    fn sorts_as_the_standard_sort_does() {
        let names = ["Explore", "general-purpose", "Plan", "a", "b"];
        for seed in 0u32..200 {
            let mut counts: Vec<(String, u32)> = (0..(seed % 6) as usize)
                .map(|i| {
                    (names[(seed as usize + i * 3) % names.len()].to_owned() + &(i % 2).to_string(), (seed >> i) % 3)
                })
                .collect();
            let mut expected = counts.clone();
            expected.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
            super::most_first(&mut counts);
            assert_eq!(counts, expected, "seed {seed}");
        }
    }
}
