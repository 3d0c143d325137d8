//! The tool-operation panel's rows: one group per assistant turn that used tools, its
//! operations in order, subagent operations nested under the Task/Agent call that spawned
//! them; filtered by category, tool, status and agent, with counts per filter; and the files
//! the operations touched. Only operations on the branch the graph shows are listed.
//!
//! Pure Rust over the engine's model and the graph's outline: built and tested natively.

use rustc_hash::{FxHashMap, FxHashSet};
use sessionscope_engine::Corpus;
use sessionscope_engine::dag::tools::Touch;
use sessionscope_engine::dag::{
    ConversationId, ConversationKind, Graph, OpId, SessionId, ToolCategory, ToolOp, ToolStatus, TurnId, tools,
};
use sessionscope_engine::model::{BlockId, EntryId, EntryKind};

use crate::logic::outline::{Outline, RowId};

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum PanelRow {
    /// A turn's header.
    Group { turn: TurnId },
    /// An operation, nested `depth` levels under Task calls.
    Op { op: OpId, depth: u16 },
}

/// Which operations to list. Empty sets mean "all".
#[derive(Clone, Default, PartialEq, Debug)]
pub struct PanelFilter {
    pub categories: FxHashSet<ToolCategory>,
    pub tool: Option<String>,
    pub status: Option<ToolStatus>,
    /// A conversation (the main thread or an agent).
    pub agent: Option<ConversationId>,
}

impl PanelFilter {
    fn accepts(&self, corpus: &Corpus, op: &ToolOp) -> bool {
        (self.categories.is_empty() || self.categories.contains(&op.category))
            && self.tool.as_deref().is_none_or(|t| op.name.is_some() && corpus.sym(op.name) == t)
            && self.status.is_none_or(|s| s == op.status)
            && self.agent.is_none_or(|a| a == op.conversation)
    }
}

/// Operations per value of each filter, over everything on the branch shown.
#[derive(Clone, Default, PartialEq, Debug)]
pub struct PanelCounts {
    pub total: u32,
    pub categories: Vec<(ToolCategory, u32)>,
    pub statuses: Vec<(ToolStatus, u32)>,
    pub tools: Vec<(String, u32)>,
    pub agents: Vec<(ConversationId, u32)>,
}

pub struct Panel {
    pub rows: Vec<PanelRow>,
    pub counts: PanelCounts,
    /// Operations listed (after filtering).
    pub listed: u32,
    /// The operations listed, in order, those under collapsed groups too: what the list is
    /// about, whatever is unfolded (the files they touched, for one).
    pub listed_ops: Vec<OpId>,
    /// Row of each listed operation.
    op_rows: FxHashMap<OpId, usize>,
}

impl Panel {
    pub fn build(
        corpus: &Corpus,
        graph: &Graph,
        outline: &Outline,
        session: SessionId,
        filter: &PanelFilter,
        collapsed: &FxHashSet<TurnId>,
    ) -> Panel {
        let Some(session) = graph.session(session) else { return Panel::empty() };
        // Turns by conversation, and the conversations each call spawned.
        let mut turns_of: FxHashMap<ConversationId, Vec<TurnId>> = FxHashMap::default();
        for (t, turn) in graph.turns.iter().enumerate() {
            if turn.ops_len > 0 {
                turns_of.entry(turn.conversation).or_default().push(TurnId::new(t));
            }
        }
        let mut spawned: FxHashMap<BlockId, Vec<ConversationId>> = FxHashMap::default();
        for (c, conv) in graph.conversations.iter().enumerate() {
            if conv.spawn_block.is_some() && conv.kind != ConversationKind::CompactionAgent {
                spawned.entry(conv.spawn_block).or_default().push(ConversationId::new(c));
            }
        }
        let shown = |op: &ToolOp| {
            let anchor = if op.call_entry.is_some() { op.call_entry } else { op.result_entry };
            outline.row_of_entry(anchor).is_some()
        };
        let mut builder = Builder {
            corpus,
            graph,
            filter,
            collapsed,
            turns_of: &turns_of,
            spawned: &spawned,
            shown: &shown,
            rows: Vec::new(),
            counts: Counter::default(),
            listed_ops: Vec::new(),
            visited: FxHashSet::default(),
        };
        let mut tops: Vec<ConversationId> = Vec::new();
        if session.main.is_some() {
            tops.push(session.main);
        }
        // Agents that no call of the session holds are listed after the main thread.
        for &agent in &session.agents {
            let conv = &graph.conversations[agent.index()];
            if conv.spawn_block.is_none() || session.main.is_none() {
                tops.push(agent);
            }
        }
        for conversation in tops {
            builder.conversation(conversation, 0, true);
        }
        let counts = builder.counts.finish(corpus);
        let op_rows = builder
            .rows
            .iter()
            .enumerate()
            .filter_map(|(i, r)| match r {
                PanelRow::Op { op, .. } => Some((*op, i)),
                _ => None,
            })
            .collect();
        let listed = builder.listed_ops.len() as u32;
        Panel { rows: builder.rows, counts, listed, listed_ops: builder.listed_ops, op_rows }
    }

    pub fn empty() -> Panel {
        Panel {
            rows: Vec::new(),
            counts: PanelCounts::default(),
            listed: 0,
            listed_ops: Vec::new(),
            op_rows: FxHashMap::default(),
        }
    }

    pub fn row_of_op(&self, op: OpId) -> Option<usize> {
        self.op_rows.get(&op).copied()
    }
}

#[derive(Default)]
struct Counter {
    total: u32,
    categories: FxHashMap<ToolCategory, u32>,
    statuses: FxHashMap<ToolStatus, u32>,
    tools: FxHashMap<String, u32>,
    agents: FxHashMap<ConversationId, u32>,
}

impl Counter {
    fn add(&mut self, corpus: &Corpus, op: &ToolOp) {
        self.total += 1;
        *self.categories.entry(op.category).or_default() += 1;
        *self.statuses.entry(op.status).or_default() += 1;
        let name = if op.name.is_none() { "(no call)".to_owned() } else { corpus.sym(op.name).to_owned() };
        *self.tools.entry(name).or_default() += 1;
        *self.agents.entry(op.conversation).or_default() += 1;
    }

    fn finish(self, _corpus: &Corpus) -> PanelCounts {
        let mut categories: Vec<(ToolCategory, u32)> = self.categories.into_iter().collect();
        crate::logic::sort::sort(&mut categories);
        let mut statuses: Vec<(ToolStatus, u32)> = self.statuses.into_iter().collect();
        crate::logic::sort::sort(&mut statuses);
        let mut tools: Vec<(String, u32)> = self.tools.into_iter().collect();
        crate::logic::sort::sort_by(&mut tools, |a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let mut agents: Vec<(ConversationId, u32)> = self.agents.into_iter().collect();
        crate::logic::sort::sort(&mut agents);
        PanelCounts { total: self.total, categories, statuses, tools, agents }
    }
}

struct Builder<'a> {
    corpus: &'a Corpus,
    graph: &'a Graph,
    filter: &'a PanelFilter,
    collapsed: &'a FxHashSet<TurnId>,
    turns_of: &'a FxHashMap<ConversationId, Vec<TurnId>>,
    spawned: &'a FxHashMap<BlockId, Vec<ConversationId>>,
    shown: &'a dyn Fn(&ToolOp) -> bool,
    rows: Vec<PanelRow>,
    counts: Counter,
    listed_ops: Vec<OpId>,
    visited: FxHashSet<ConversationId>,
}

impl Builder<'_> {
    /// The operations of a conversation: grouped by turn at the top level, flat when nested.
    fn conversation(&mut self, conversation: ConversationId, depth: u16, grouped: bool) {
        if !self.visited.insert(conversation) {
            return;
        }
        let Some(turns) = self.turns_of.get(&conversation) else { return };
        for &t in turns {
            let turn = &self.graph.turns[t.index()];
            let ops = self.graph.turn_ops(turn);
            let header_at = self.rows.len();
            let mut any = false;
            let open = !self.collapsed.contains(&t);
            for (i, op) in ops.iter().enumerate() {
                let index = OpId::new(turn.ops_start as usize + i);
                if !(self.shown)(op) {
                    continue;
                }
                self.counts.add(self.corpus, op);
                let accepted = self.filter.accepts(self.corpus, op);
                if accepted {
                    self.listed_ops.push(index);
                    if !any && grouped {
                        self.rows.insert(header_at, PanelRow::Group { turn: t });
                    }
                    any = true;
                    if open || !grouped {
                        self.rows.push(PanelRow::Op { op: index, depth });
                    }
                }
                if let Some(children) = self.spawned.get(&op.call_block).cloned() {
                    for child in children {
                        if open || !grouped {
                            let before = self.rows.len();
                            self.conversation(child, depth + 1, false);
                            if self.rows.len() > before && !any && grouped {
                                self.rows.insert(header_at, PanelRow::Group { turn: t });
                                any = true;
                            }
                        } else {
                            self.count_only(child);
                        }
                    }
                }
            }
        }
    }

    /// Counts the operations of a conversation hidden under a collapsed group.
    fn count_only(&mut self, conversation: ConversationId) {
        if !self.visited.insert(conversation) {
            return;
        }
        let Some(turns) = self.turns_of.get(&conversation) else { return };
        for &t in turns {
            let turn = &self.graph.turns[t.index()];
            for (i, op) in self.graph.turn_ops(turn).iter().enumerate() {
                if (self.shown)(op) {
                    self.counts.add(self.corpus, op);
                    if self.filter.accepts(self.corpus, op) {
                        self.listed_ops.push(OpId::new(turn.ops_start as usize + i));
                    }
                }
                if let Some(children) = self.spawned.get(&op.call_block).cloned() {
                    for child in children {
                        self.count_only(child);
                    }
                }
            }
        }
    }
}

/// The header of a turn: the first line of its first assistant text, else of its prompt.
pub fn turn_title(corpus: &Corpus, graph: &Graph, turn: TurnId) -> String {
    let Some(t) = graph.turn(turn) else { return String::new() };
    let conversation = t.conversation;
    let start = if t.first_assistant.is_some() { t.first_assistant } else { t.prompt };
    if start.is_some() {
        for e in (start.index()..=t.last_entry.max(start).index()).map(EntryId::new) {
            let entry = &corpus.entries[e.index()];
            if entry.kind != EntryKind::Assistant || graph.nodes[e.index()].conversation != conversation {
                continue;
            }
            if let Some(text) = corpus.first_text(entry) {
                let line = sessionscope_engine::dag::prompt_title(&text);
                if !line.is_empty() {
                    return line;
                }
            }
        }
    }
    if t.prompt.is_some()
        && let Some(text) = corpus.first_text(&corpus.entries[t.prompt.index()])
    {
        return sessionscope_engine::dag::prompt_title(&text);
    }
    "(no text)".to_owned()
}

/// A file the operations touched, and how.
#[derive(Clone, Debug, PartialEq)]
pub struct TouchedFile {
    pub path: String,
    pub reads: u32,
    pub edits: u32,
    pub writes: u32,
    pub ops: Vec<OpId>,
}

/// Every file read, edited or written by the operations listed in `panel` (folded or not), most
/// touched first.
pub fn files_touched(corpus: &Corpus, graph: &Graph, panel: &Panel) -> Vec<TouchedFile> {
    let mut files: FxHashMap<String, TouchedFile> = FxHashMap::default();
    let mut order: Vec<String> = Vec::new();
    for &op in &panel.listed_ops {
        let o = &graph.tool_ops[op.index()];
        if o.call_entry.is_none() {
            continue;
        }
        for (path, touch) in tools::op_files(corpus, o) {
            let file = files.entry(path.clone()).or_insert_with(|| {
                order.push(path.clone());
                TouchedFile { path, reads: 0, edits: 0, writes: 0, ops: Vec::new() }
            });
            match touch {
                Touch::Read => file.reads += 1,
                Touch::Edit => file.edits += 1,
                Touch::Write => file.writes += 1,
            }
            if file.ops.last() != Some(&op) {
                file.ops.push(op);
            }
        }
    }
    let mut out: Vec<TouchedFile> = order.into_iter().filter_map(|p| files.remove(&p)).collect();
    crate::logic::sort::sort_by(&mut out, |a, b| {
        (b.edits + b.writes).cmp(&(a.edits + a.writes)).then(b.ops.len().cmp(&a.ops.len())).then(a.path.cmp(&b.path))
    });
    out
}

/// The operations a graph row stands for: a message's calls, or the call itself.
pub fn ops_of_row(graph: &Graph, corpus: &Corpus, outline: &Outline, row: RowId) -> Vec<OpId> {
    use crate::logic::outline::RowKind;
    match outline.row(row).map(|r| r.kind) {
        Some(RowKind::ToolCall { op }) => vec![op],
        Some(RowKind::Message { first, last }) => {
            let mut out = Vec::new();
            for e in (first.index()..=last.index()).map(EntryId::new) {
                let entry: &sessionscope_engine::model::Entry = &corpus.entries[e.index()];
                if e != first && entry.kind != EntryKind::Assistant {
                    continue;
                }
                let mut o = graph.op_of_entry.get(e.index()).copied().unwrap_or(OpId::NONE);
                while graph.op(o).is_some_and(|op| op.call_entry == e) {
                    out.push(o);
                    o = OpId::new(o.index() + 1);
                }
            }
            out
        }
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logic::outline::OutlineOptions;
    use sessionscope_engine::Loader;

    fn load(files: &[(&str, &[u8])]) -> (Corpus, Graph) {
        let corpus = Loader::read_all(files.iter().copied());
        let graph = Graph::build(&corpus);
        (corpus, graph)
    }

    #[test]
    fn groups_follow_turns_and_subagent_ops_nest_under_their_task() {
        let (corpus, graph) = load(crate::wire::example_files::FILES);
        let outline = Outline::build(&corpus, &graph, SessionId::new(0), &OutlineOptions::default());
        let panel =
            Panel::build(&corpus, &graph, &outline, SessionId::new(0), &PanelFilter::default(), &FxHashSet::default());
        assert!(matches!(panel.rows[0], PanelRow::Group { .. }));
        let task = OpId::new(graph.tool_ops.iter().position(|op| corpus.sym(op.name) == "Task").unwrap());
        let task_row = panel.row_of_op(task).unwrap();
        let PanelRow::Op { depth: task_depth, .. } = panel.rows[task_row] else { panic!() };
        let PanelRow::Op { op: nested, depth } = panel.rows[task_row + 1] else {
            panic!("the agent's op follows its Task")
        };
        assert_eq!(depth, task_depth + 1);
        let agent_conversation = graph.tool_ops[nested.index()].conversation;
        assert_eq!(graph.conversations[agent_conversation.index()].agent_name, "a7e5d21");
        // Every op on the branch shown is listed once; the abandoned branch has none.
        let listed = panel.rows.iter().filter(|r| matches!(r, PanelRow::Op { .. })).count();
        assert_eq!(listed as u32, panel.listed);
        assert_eq!(panel.counts.total, panel.listed);
        assert_eq!(panel.counts.total as usize, graph.tool_ops.len(), "the example's ops are all on the branch shown");
    }

    #[test]
    fn filters_narrow_and_counts_stay() {
        let (corpus, graph) = load(crate::wire::example_files::FILES);
        let outline = Outline::build(&corpus, &graph, SessionId::new(0), &OutlineOptions::default());
        let all =
            Panel::build(&corpus, &graph, &outline, SessionId::new(0), &PanelFilter::default(), &FxHashSet::default());
        let errors = PanelFilter { status: Some(ToolStatus::Error), ..PanelFilter::default() };
        let panel = Panel::build(&corpus, &graph, &outline, SessionId::new(0), &errors, &FxHashSet::default());
        let error_count = all.counts.statuses.iter().find(|(s, _)| *s == ToolStatus::Error).map_or(0, |c| c.1);
        assert!(error_count >= 1);
        assert_eq!(panel.listed, error_count);
        assert_eq!(panel.counts, all.counts, "counts describe everything, not the filtered list");
        let edits = PanelFilter { categories: [ToolCategory::Edit].into_iter().collect(), ..PanelFilter::default() };
        let panel = Panel::build(&corpus, &graph, &outline, SessionId::new(0), &edits, &FxHashSet::default());
        assert!(panel.rows.iter().all(|r| match r {
            PanelRow::Op { op, .. } => graph.tool_ops[op.index()].category == ToolCategory::Edit,
            PanelRow::Group { .. } => true,
        }));
        let files = files_touched(&corpus, &graph, &all);
        let eval = files.iter().find(|f| f.path == "src/eval.rs").expect("src/eval.rs was touched");
        assert!(eval.reads >= 1 && eval.edits >= 1);
    }

    #[test]
    fn collapsed_groups_hide_their_ops_but_keep_their_header() {
        let (corpus, graph) = load(crate::wire::example_files::FILES);
        let outline = Outline::build(&corpus, &graph, SessionId::new(0), &OutlineOptions::default());
        let open =
            Panel::build(&corpus, &graph, &outline, SessionId::new(0), &PanelFilter::default(), &FxHashSet::default());
        let PanelRow::Group { turn } = open.rows[0] else { panic!() };
        let collapsed: FxHashSet<TurnId> = [turn].into_iter().collect();
        let closed = Panel::build(&corpus, &graph, &outline, SessionId::new(0), &PanelFilter::default(), &collapsed);
        assert!(closed.rows.len() < open.rows.len());
        assert_eq!(closed.rows[0], PanelRow::Group { turn });
        assert_eq!(closed.counts, open.counts);
        // Folding changes what is drawn, not what is listed: the same operations and files.
        assert_eq!(closed.listed, open.listed);
        assert_eq!(closed.listed_ops, open.listed_ops);
        assert_eq!(files_touched(&corpus, &graph, &closed), files_touched(&corpus, &graph, &open));
        let every: FxHashSet<TurnId> = open
            .rows
            .iter()
            .filter_map(|r| match r {
                PanelRow::Group { turn } => Some(*turn),
                PanelRow::Op { .. } => None,
            })
            .collect();
        let all_closed = Panel::build(&corpus, &graph, &outline, SessionId::new(0), &PanelFilter::default(), &every);
        assert!(all_closed.rows.iter().all(|r| matches!(r, PanelRow::Group { .. })));
        assert_eq!(files_touched(&corpus, &graph, &all_closed), files_touched(&corpus, &graph, &open));
        assert!(!files_touched(&corpus, &graph, &open).is_empty());
    }
}
