//! Reconstructing the conversation from the parsed entries: the DAG as an arena of index
//! links, its conversations (main threads, agent files, inline sidechains), real and artifact
//! forks, compactions, tool call pairs, turns, usage and validation.
//!
//! Everything is built in a few linear passes over the entries with a uuid index; nothing
//! recurses, so a 100k-entry chain is as easy as a short one.

mod agents;
pub mod tools;
mod tree;
mod usage;
mod validate;

pub mod pricing;
pub mod stats;

use serde::{Deserialize, Serialize};

pub use crate::index::{CompactionId, ConversationId, ForkId, OpId, SessionId, TurnId};
use crate::model::{BlockId, Corpus, EntryId, FileId, Usage};
use crate::span::Sym;

pub use tools::{ToolCategory, ToolStatus};
pub use tree::{TITLE_CHARS, UuidIndex, is_prompt, prompt_line, prompt_title, title_source};

/// One node per entry, same index as [`Corpus::entries`].
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub struct Node {
    /// Parent in the tree of its conversation, or `EntryId::NONE` for a root.
    pub parent: EntryId,
    pub first_child: EntryId,
    pub next_sibling: EntryId,
    pub conversation: ConversationId,
    pub flags: u16,
}

// The typed indices cost nothing: the arena items are as large as with bare `u32`s.
const _: () = assert!(std::mem::size_of::<Node>() == 20);

impl Node {
    /// The `parentUuid` names no loaded entry.
    pub const ORPHAN: u16 = 1;
    /// The parent link closed a cycle and was dropped.
    pub const CYCLE_BROKEN: u16 = 1 << 1;
    /// The entry named itself as parent.
    pub const SELF_PARENT: u16 = 1 << 2;
    /// The parent is in another conversation (the spawning side of a sidechain, or the main
    /// file for a compaction agent): this node is a root of its own conversation.
    pub const CROSS_PARENT: u16 = 1 << 3;
    /// The parent was in a nested conversation; the tree parent is the nearest ancestor of
    /// this conversation (the thread resumes after the nested sidechain).
    pub const RESUMED: u16 = 1 << 4;
    /// Re-parented under a compaction summary by `preservedSegment`.
    pub const PRESERVED: u16 = 1 << 5;
    /// The first entry of an alternative at a real fork.
    pub const ALTERNATIVE: u16 = 1 << 6;

    pub fn has(&self, flag: u16) -> bool {
        self.flags & flag != 0
    }
}

/// What kind of conversation a set of entries forms.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize, PartialOrd, Ord)]
pub enum ConversationKind {
    /// The main thread of a session.
    Main,
    /// A subagent in its own file (`agent-<id>.jsonl`), or its entries marked with `agentId`.
    Agent,
    /// A compaction agent (`agent-acompact-*`).
    CompactionAgent,
    /// A sidechain written inline in the main file (versions up to 2.0).
    InlineSidechain,
}

impl ConversationKind {
    pub fn name(self) -> &'static str {
        match self {
            ConversationKind::Main => "main",
            ConversationKind::Agent => "agent",
            ConversationKind::CompactionAgent => "compaction-agent",
            ConversationKind::InlineSidechain => "inline-sidechain",
        }
    }
}

/// Which rule linked an agent conversation to the tool call that spawned it.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub enum LinkRule {
    /// `agent-<id>.meta.json` names the tool_use id.
    MetaFile,
    /// The Task/Agent tool result's `toolUseResult.agentId`.
    ToolResultAgentId,
    /// `agent_progress` lines of the main file (`data.agentId`, `parentToolUseID`).
    AgentProgress,
    /// `agentId: <id>` in the tool result text.
    ResultText,
    /// The first prompt of the agent equals the Task prompt.
    Prompt,
    /// The sidechain's `parentUuid` names the spawning message.
    ParentUuid,
    /// The sidechain starts within 2 s of the Task call.
    Timestamp,
    /// A compaction agent, linked to its compaction by the entry its first line continues.
    Compaction,
    /// Agent SDK stream-json: the subagent's messages name the Task call (`parent_tool_use_id`).
    ParentToolUseId,
    /// Cursor CLI: the Task call's input or result names the subagent's id (its file's name).
    CallNamesAgent,
}

impl LinkRule {
    pub fn name(self) -> &'static str {
        match self {
            LinkRule::MetaFile => "meta-file",
            LinkRule::ToolResultAgentId => "tool-result-agent-id",
            LinkRule::AgentProgress => "agent-progress",
            LinkRule::ResultText => "result-text",
            LinkRule::Prompt => "prompt",
            LinkRule::ParentUuid => "parent-uuid",
            LinkRule::Timestamp => "timestamp",
            LinkRule::Compaction => "compaction",
            LinkRule::ParentToolUseId => "parent-tool-use-id",
            LinkRule::CallNamesAgent => "call-names-agent",
        }
    }
}

/// A conversation: the main thread of a session, or one agent's exchange.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Conversation {
    pub kind: ConversationKind,
    pub session: SessionId,
    /// The agent id as interned (`agentId`); `Sym::NONE` for main threads, inline sidechains
    /// and agent files whose lines carry no `agentId`.
    pub agent_id: Sym,
    /// The agent id, from `agentId` or the file name (`agent-<id>.jsonl`); empty for main
    /// threads and inline sidechains.
    pub agent_name: String,
    /// The file of its first entry.
    pub file: FileId,
    /// Roots in entry order (several after compactions, orphans or broken cycles).
    pub roots: Vec<EntryId>,
    pub entries: u32,
    /// The entry in another conversation that a root continues, if any (the spawning message
    /// of a seed-style sidechain, the main-file entry of a compaction agent).
    pub cross_parent: EntryId,
    /// The tool_use that spawned this agent: its entry and its block (`NONE` for none).
    pub spawn_entry: EntryId,
    pub spawn_block: BlockId,
    pub linked_by: Option<LinkRule>,
    /// The conversation the spawning tool call is in, or `ConversationId::NONE`.
    pub parent: ConversationId,
    /// 0 for main threads, 1 for agents spawned by the main thread, and so on.
    pub depth: u32,
    /// `subagent_type` of the spawning call, or `agentType` of the meta file.
    pub agent_type: String,
    pub description: String,
    /// The compaction a compaction agent produced, or `CompactionId::NONE`.
    pub compaction: CompactionId,
    pub first_timestamp_ms: i64,
    pub last_timestamp_ms: i64,
    /// Responses (deduplicated) of this conversation alone.
    pub usage: Usage,
    pub cost_usd: f64,
    /// Number of prompt turns (the spawning prompt counts as the first).
    pub turns: u32,
    pub tool_calls: u32,
}

impl Conversation {
    pub fn is_agent(&self) -> bool {
        self.kind != ConversationKind::Main
    }
}

/// A node with several children whose children are real alternatives (a rewind or an edit).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Fork {
    pub node: EntryId,
    /// The first entry of each alternative, in entry order.
    pub alternatives: Vec<EntryId>,
    /// The alternative whose leaf comes last in file order (a position in `alternatives`).
    pub active: u32,
}

/// A compaction and what it links.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CompactionLink {
    /// The `compact_boundary` entry, or `EntryId::NONE` for 1.0.x files that only have the
    /// summary.
    pub boundary: EntryId,
    /// The message `logicalParentUuid` names: the last one before the compaction.
    pub logical_parent: EntryId,
    /// The `isCompactSummary` user entry.
    pub summary: EntryId,
    /// The root of the pre-compaction history that the compaction replaced.
    pub replaced_root: EntryId,
    pub trigger: Sym,
    pub pre_tokens: u64,
    pub session: SessionId,
    /// The compaction agent that wrote the summary, if its file is loaded (else `NONE`).
    pub agent: ConversationId,
}

const _: () = assert!(std::mem::size_of::<CompactionLink>() == 40);

/// A tool call and its result.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub struct ToolOp {
    /// The entry and block of the call (`NONE` for a result without a call).
    pub call_entry: EntryId,
    pub call_block: BlockId,
    pub result_entry: EntryId,
    pub result_block: BlockId,
    pub name: Sym,
    pub category: ToolCategory,
    pub status: ToolStatus,
    /// Milliseconds from the call to its result, when both have timestamps.
    pub duration_ms: i64,
    pub conversation: ConversationId,
    /// The turn of the call.
    pub turn: TurnId,
}

const _: () = assert!(std::mem::size_of::<ToolOp>() == 40);

/// The run of assistant lines answering one prompt, with the tool calls they made.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Turn {
    pub conversation: ConversationId,
    /// The prompt that opened the turn (`EntryId::NONE` for lines before any prompt).
    pub prompt: EntryId,
    /// The first assistant line of the turn.
    pub first_assistant: EntryId,
    pub last_entry: EntryId,
    /// `ops_start..ops_start + ops_len` in [`Graph::tool_ops`] (ops are stored by turn).
    pub ops_start: u32,
    pub ops_len: u32,
    pub usage: Usage,
    pub cost_usd: f64,
}

const _: () = assert!(std::mem::size_of::<Turn>() == 88);

#[cfg(target_pointer_width = "64")]
const _: () = assert!(
    std::mem::size_of::<Conversation>() == 232
        && std::mem::size_of::<Fork>() == 32
        && std::mem::size_of::<Session>() == 304
        && std::mem::size_of::<Problem>() == 32
);

/// A session: its files, main thread and agent conversations, title and totals.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Session {
    pub id: String,
    pub title: String,
    pub title_source: TitleSource,
    pub files: Vec<FileId>,
    /// The main thread, or `ConversationId::NONE` when only agent files of the session are
    /// loaded.
    pub main: ConversationId,
    /// Agent conversations, in order of their first entry.
    pub agents: Vec<ConversationId>,
    pub first_prompt: EntryId,
    pub first_timestamp_ms: i64,
    pub last_timestamp_ms: i64,
    pub entries: u32,
    pub compactions: u32,
    pub real_forks: u32,
    pub artifact_forks: u32,
    pub tool_uses: u32,
    pub tool_results: u32,
    pub unpaired_tool_uses: u32,
    /// The main thread alone.
    pub usage: Usage,
    pub cost_usd: f64,
    /// The main thread and all its agents.
    pub usage_with_agents: Usage,
    pub cost_with_agents_usd: f64,
    /// Models without a price in the bundled table.
    pub unknown_models: Vec<String>,
}

/// Where a session's title came from.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub enum TitleSource {
    CustomTitle,
    AiTitle,
    Summary,
    FirstPrompt,
    None,
}

/// Something wrong with the structure, found while building or validating it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Problem {
    pub rule: ProblemRule,
    pub entry: EntryId,
    pub message: String,
}

/// The rules of the structure (`002_ddd34fd636083af8.txt` and the format note).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize, PartialOrd, Ord)]
pub enum ProblemRule {
    /// `parentUuid` must name an existing message.
    ParentExists,
    /// The parent must be in the same session.
    SameSession,
    /// No cycles of parent links.
    NoCycles,
    /// An entry may not be its own parent.
    NoSelfParent,
    /// A tool result must answer a tool_use.
    ResultHasCall,
    /// A tool_use should get its result.
    CallHasResult,
    /// Extracted tool messages are marked `isSidechain`.
    ToolMessageSidechain,
    /// Timestamps do not go back along a branch (beyond a second of clock skew).
    TimestampsInOrder,
    /// An agent conversation is linked to the call that spawned it.
    AgentLinked,
}

impl ProblemRule {
    pub fn name(self) -> &'static str {
        match self {
            ProblemRule::ParentExists => "parent-exists",
            ProblemRule::SameSession => "same-session",
            ProblemRule::NoCycles => "no-cycles",
            ProblemRule::NoSelfParent => "no-self-parent",
            ProblemRule::ResultHasCall => "result-has-call",
            ProblemRule::CallHasResult => "call-has-result",
            ProblemRule::ToolMessageSidechain => "tool-message-sidechain",
            ProblemRule::TimestampsInOrder => "timestamps-in-order",
            ProblemRule::AgentLinked => "agent-linked",
        }
    }
}

/// The reconstructed structure of everything loaded.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Graph {
    #[serde(deserialize_with = "crate::exact_vec::deserialize")]
    pub nodes: Vec<Node>,
    pub conversations: Vec<Conversation>,
    pub sessions: Vec<Session>,
    pub forks: Vec<Fork>,
    /// For each entry, the real fork it is the node of, or `ForkId::NONE`.
    pub fork_of: Vec<ForkId>,
    pub compactions: Vec<CompactionLink>,
    #[serde(deserialize_with = "crate::exact_vec::deserialize")]
    pub tool_ops: Vec<ToolOp>,
    #[serde(deserialize_with = "crate::exact_vec::deserialize")]
    pub turns: Vec<Turn>,
    pub problems: Vec<Problem>,
    /// For each entry, the tool op of the call or result it holds first, or `OpId::NONE`.
    #[serde(deserialize_with = "crate::exact_vec::deserialize")]
    pub op_of_entry: Vec<OpId>,
    /// For each entry, its turn.
    #[serde(deserialize_with = "crate::exact_vec::deserialize")]
    pub turn_of_entry: Vec<TurnId>,
    /// Agent conversations that no rule could link to a spawning call.
    pub unlinked_agents: Vec<ConversationId>,
    /// Roots whose parent is in another conversation: `(root, parent)`.
    pub cross_links: Vec<(EntryId, EntryId)>,
}

impl Graph {
    /// Builds the structure of everything in `corpus`.
    pub fn build(corpus: &Corpus) -> Graph {
        let mut graph = Graph::default();
        let uuid_index = tree::UuidIndex::new(corpus);
        tree::build_tree(corpus, &uuid_index, &mut graph);
        tree::classify_forks(corpus, &mut graph);
        tree::link_compactions(corpus, &uuid_index, &mut graph);
        tools::pair_tool_calls(corpus, &mut graph);
        agents::link_agents(corpus, &mut graph);
        tools::group_turns(corpus, &mut graph);
        usage::total_usage(corpus, &mut graph);
        tree::finish_sessions(corpus, &mut graph);
        validate::validate(corpus, &mut graph);
        graph
    }

    /// The node of an entry, if `entry` names one.
    pub fn node(&self, entry: EntryId) -> Option<&Node> {
        self.nodes.get(entry.index())
    }

    pub fn conversation(&self, id: ConversationId) -> Option<&Conversation> {
        self.conversations.get(id.index())
    }

    pub fn session(&self, id: SessionId) -> Option<&Session> {
        self.sessions.get(id.index())
    }

    pub fn op(&self, id: OpId) -> Option<&ToolOp> {
        self.tool_ops.get(id.index())
    }

    pub fn turn(&self, id: TurnId) -> Option<&Turn> {
        self.turns.get(id.index())
    }

    pub fn fork(&self, id: ForkId) -> Option<&Fork> {
        self.forks.get(id.index())
    }

    pub fn compaction(&self, id: CompactionId) -> Option<&CompactionLink> {
        self.compactions.get(id.index())
    }

    /// The conversation of an entry.
    pub fn conversation_of(&self, entry: EntryId) -> Option<&Conversation> {
        self.conversation(self.node(entry)?.conversation)
    }

    /// Children of an entry, in entry order.
    pub fn children(&self, entry: EntryId) -> Children<'_> {
        let first = self.nodes.get(entry.index()).map_or(EntryId::NONE, |n| n.first_child);
        Children { graph: self, next: first }
    }

    /// The real fork at `entry`, if it is one.
    pub fn fork_at(&self, entry: EntryId) -> Option<&Fork> {
        self.fork(*self.fork_of.get(entry.index())?)
    }

    /// The entries of a conversation's thread in entry order, following the alternative that
    /// `choose` picks at each real fork (given the fork, it returns an index into its
    /// alternatives). Artifact forks are folded in: their side children are part of the thread.
    pub fn thread_with(&self, conversation: ConversationId, choose: &dyn Fn(&Fork) -> u32) -> Vec<EntryId> {
        let Some(conv) = self.conversation(conversation) else { return Vec::new() };
        let mut out = Vec::with_capacity(conv.entries as usize);
        let mut stack: Vec<EntryId> = conv.roots.iter().rev().copied().collect();
        while let Some(entry) = stack.pop() {
            out.push(entry);
            let fork = self.fork_at(entry);
            let chosen = fork.map(|f| {
                let index = choose(f).min(f.alternatives.len().saturating_sub(1) as u32);
                f.alternatives[index as usize]
            });
            let start = stack.len();
            for child in self.children(entry) {
                let skipped = fork.is_some_and(|f| f.alternatives.contains(&child)) && Some(child) != chosen;
                if !skipped {
                    stack.push(child);
                }
            }
            stack[start..].reverse();
        }
        out.sort_unstable();
        out
    }

    /// The thread with the active alternative at every fork.
    pub fn thread(&self, conversation: ConversationId) -> Vec<EntryId> {
        self.thread_with(conversation, &|fork| fork.active)
    }

    /// Every entry of a subtree, in entry order.
    pub fn subtree(&self, root: EntryId) -> Vec<EntryId> {
        let mut out = Vec::new();
        let mut stack = vec![root];
        while let Some(entry) = stack.pop() {
            out.push(entry);
            stack.extend(self.children(entry));
        }
        out.sort_unstable();
        out
    }

    /// The tool ops of a turn.
    pub fn turn_ops(&self, turn: &Turn) -> &[ToolOp] {
        let start = turn.ops_start as usize;
        self.tool_ops.get(start..start + turn.ops_len as usize).unwrap_or_default()
    }

    /// The session of an entry.
    pub fn session_of(&self, entry: EntryId) -> Option<&Session> {
        self.session(self.conversation_of(entry)?.session)
    }
}

/// Iterates the children of a node.
pub struct Children<'a> {
    graph: &'a Graph,
    next: EntryId,
}

impl Iterator for Children<'_> {
    type Item = EntryId;

    fn next(&mut self) -> Option<EntryId> {
        if self.next.is_none() {
            return None;
        }
        let current = self.next;
        self.next = self.graph.nodes[current.index()].next_sibling;
        Some(current)
    }
}
