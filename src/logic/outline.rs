//! The rows the conversation graph shows, as one flat arena with index links (jless style):
//! messages, the tool calls under them, subagent conversations under their Task call,
//! compaction markers holding the history they replaced, branch switchers at real forks, and
//! (when asked for) the noise lines. Collapse state lives on the row; the visible rows are a
//! preorder walk that skips collapsed subtrees, so its cost follows what is shown.
//!
//! Pure Rust over the engine's model: built and tested natively.

use rustc_hash::{FxHashMap, FxHashSet};
use sessionscope_engine::Corpus;
use sessionscope_engine::dag::{
    CompactionId, ConversationId, ConversationKind, ForkId, Graph, Node, OpId, SessionId, ToolCategory,
};
use sessionscope_engine::model::{BlockId, BlockKind, Entry, EntryFlags, EntryId, EntryKind, ResponseId};

sessionscope_engine::index_types! {
    /// A row of an outline: index into [`Outline::rows`] (and its positions), or
    /// `RowId::NONE` for no row (above a top-level row, below a row without children).
    RowId;
}

/// What a row shows.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum RowKind {
    /// A message: one entry, or the consecutive lines of one assistant response.
    Message { first: EntryId, last: EntryId },
    /// A tool call with its result.
    ToolCall { op: OpId },
    /// A subagent conversation.
    Agent { conversation: ConversationId },
    /// A compaction marker; its children are the history it replaced.
    Compaction { link: CompactionId },
    /// The switcher of a real fork, just before the branch shown.
    Branch { fork: ForkId },
    /// A progress, hook, meta or other line folded away by default.
    Noise { entry: EntryId },
}

/// Rows a reader jumps between with the keyboard.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Landmark {
    /// A prompt a person typed (not a subagent's task, a tool result or injected text).
    Prompt,
    /// A tool call whose result is an error.
    FailedCall,
}

impl Landmark {
    pub fn is(self, corpus: &Corpus, graph: &Graph, kind: RowKind) -> bool {
        match (self, kind) {
            (Landmark::Prompt, RowKind::Message { first, .. }) => corpus
                .entries
                .get(first.index())
                .is_some_and(|entry| sessionscope_engine::dag::is_prompt(entry) && !entry.is_sidechain()),
            (Landmark::FailedCall, RowKind::ToolCall { op }) => {
                graph.op(op).is_some_and(|op| sessionscope_engine::history::call_failed(corpus, op))
            }
            _ => false,
        }
    }
}

/// A stable name for a row, kept across rebuilds (collapse toggles, selection, deep links).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum RowKey {
    Entry(EntryId),
    Op(OpId),
    Agent(ConversationId),
    Compaction(CompactionId),
    Branch(ForkId),
}

#[derive(Clone, Copy, Debug)]
pub struct Row {
    pub kind: RowKind,
    pub parent: RowId,
    pub first_child: RowId,
    pub next_sibling: RowId,
    pub collapsed: bool,
}

/// Which rows the graph shows. Rows that do not match are hidden, unless something below
/// them matches; collapsed rows open to show what matches inside.
#[derive(Clone, Default, PartialEq, Eq, Debug)]
pub struct RowFilter {
    pub hide_user: bool,
    pub hide_assistant: bool,
    pub hide_tools: bool,
    pub hide_system: bool,
    /// Only rows of this conversation (the main thread or one agent).
    pub conversation: Option<ConversationId>,
    pub errors_only: bool,
    /// Milliseconds since the epoch, inclusive.
    pub from_ms: Option<i64>,
    pub to_ms: Option<i64>,
}

impl RowFilter {
    pub fn is_active(&self) -> bool {
        *self != RowFilter::default()
    }
}

/// What the outline is built with.
#[derive(Default)]
pub struct OutlineOptions {
    pub show_noise: bool,
    pub filter: RowFilter,
    /// Rows whose collapse state differs from their default.
    pub toggled: FxHashSet<RowKey>,
    /// The alternative shown at each real fork, where it is not the active one.
    pub choices: FxHashMap<ForkId, u32>,
}

impl OutlineOptions {
    pub fn choice(&self, graph: &Graph, fork: ForkId) -> u32 {
        let active = graph.fork(fork).map_or(0, |f| f.active);
        self.choices.get(&fork).copied().unwrap_or(active)
    }
}

pub struct Outline {
    pub rows: Vec<Row>,
    /// The first top-level row (siblings follow through `next_sibling`).
    pub first_root: RowId,
    keys: FxHashMap<RowKey, RowId>,
    /// The row that shows each entry (a merged message, the tool call a result belongs to).
    entry_rows: FxHashMap<EntryId, RowId>,
    /// Noise lines not shown.
    pub hidden_noise: u32,
    /// For each row, `(number of siblings, 1-based position among them)`.
    positions: Vec<(u32, u32)>,
    /// With a filter: rows hidden because neither they nor anything below them matches.
    hidden: Vec<bool>,
    filtering: bool,
    /// Rows the filter matched themselves.
    pub matched: u32,
}

impl Outline {
    /// The rows of a session: its main thread with everything nested in it, then agent
    /// conversations that could not be placed under a spawning call.
    pub fn build(corpus: &Corpus, graph: &Graph, session: SessionId, options: &OutlineOptions) -> Outline {
        let mut builder = Builder {
            corpus,
            graph,
            options,
            rows: Vec::new(),
            last_child: Vec::new(),
            first_root: RowId::NONE,
            last_root: RowId::NONE,
            keys: FxHashMap::default(),
            entry_rows: FxHashMap::default(),
            hidden_noise: 0,
            agents_of_call: FxHashMap::default(),
            agents_of_entry: FxHashMap::default(),
            root_memo: FxHashMap::default(),
        };
        for (c, conv) in graph.conversations.iter().enumerate() {
            if conv.kind == ConversationKind::CompactionAgent {
                continue;
            }
            if conv.spawn_block.is_some() {
                builder.agents_of_call.entry(conv.spawn_block).or_default().push(ConversationId::new(c));
            } else if conv.spawn_entry.is_some() {
                builder.agents_of_entry.entry(conv.spawn_entry).or_default().push(ConversationId::new(c));
            }
        }
        let Some(session) = graph.session(session) else { return builder.finish() };
        if session.main.is_some() {
            builder.conversation(session.main, RowId::NONE);
        }
        // Agents no spawning row could hold: unlinked ones, and all of a session whose main
        // thread is not loaded.
        for &agent in &session.agents {
            if builder.keys.contains_key(&RowKey::Agent(agent)) {
                continue;
            }
            let conv = &graph.conversations[agent.index()];
            let under_compaction = conv.kind == ConversationKind::CompactionAgent && conv.compaction.is_some();
            if session.main.is_some() && (conv.linked_by.is_some() || under_compaction) {
                // Linked, but its spawning row is on a branch not shown.
                continue;
            }
            let row = builder.push(
                RowId::NONE,
                RowKind::Agent { conversation: agent },
                RowKey::Agent(agent),
                session.main.is_some(),
            );
            builder.conversation(agent, row);
        }
        let mut outline = builder.finish();
        outline.apply_filter(corpus, graph, &options.filter);
        outline
    }

    pub fn row(&self, row: RowId) -> Option<&Row> {
        self.rows.get(row.index())
    }

    pub fn key(&self, row: RowId) -> RowKey {
        key_of(self.rows[row.index()].kind)
    }

    pub fn row_of_key(&self, key: RowKey) -> Option<RowId> {
        self.keys.get(&key).copied()
    }

    pub fn row_of_entry(&self, entry: EntryId) -> Option<RowId> {
        self.entry_rows.get(&entry).copied()
    }

    pub fn has_children(&self, row: RowId) -> bool {
        self.rows[row.index()].first_child.is_some()
    }

    /// The parents of a row, nearest first.
    pub fn ancestors(&self, row: RowId) -> Vec<RowId> {
        let mut out = Vec::new();
        let mut current = self.rows[row.index()].parent;
        while current.is_some() {
            out.push(current);
            current = self.rows[current.index()].parent;
        }
        out
    }

    /// The rows shown, in order, with their depth: a preorder walk that does not enter
    /// collapsed rows (with a filter: that skips hidden rows and opens rows with matches below).
    pub fn visible(&self) -> Vec<(RowId, u16)> {
        self.preorder(|row| self.is_open(row))
    }

    /// The rows a preorder walk meets, with their depth: rows a filter hides are skipped, and
    /// a row's children are walked when `enter` says so.
    fn preorder(&self, enter: impl Fn(RowId) -> bool) -> Vec<(RowId, u16)> {
        let mut out = Vec::new();
        let mut stack: Vec<(RowId, u16)> = Vec::new();
        let mut root = self.first_root;
        while root.is_some() {
            if !self.is_hidden(root) {
                stack.push((root, 0));
            }
            while let Some((row, depth)) = stack.pop() {
                out.push((row, depth));
                if !enter(row) {
                    continue;
                }
                let start = stack.len();
                let mut child = self.rows[row.index()].first_child;
                while child.is_some() {
                    if !self.is_hidden(child) {
                        stack.push((child, depth + 1));
                    }
                    child = self.rows[child.index()].next_sibling;
                }
                stack[start..].reverse();
            }
            root = self.rows[root.index()].next_sibling;
        }
        out
    }

    /// Every row in reading order (each row, then what is nested in it), collapsed rows entered
    /// too; with a filter, the rows it hides are left out.
    pub fn reading_order(&self) -> Vec<RowId> {
        self.preorder(|_| true).into_iter().map(|(row, _)| row).collect()
    }

    /// The nearest `landmark` row after `from` (before it, going back) in reading order, collapsed
    /// or not; from no row, the first (the last, going back). `None` past the last one.
    pub fn landmark(
        &self,
        corpus: &Corpus,
        graph: &Graph,
        from: Option<RowId>,
        forward: bool,
        landmark: Landmark,
    ) -> Option<RowId> {
        let order = self.reading_order();
        let at = from.and_then(|from| order.iter().position(|&r| r == from));
        let is = |row: &&RowId| landmark.is(corpus, graph, self.rows[row.index()].kind);
        if forward {
            let start = at.map_or(0, |at| at + 1);
            order.get(start..)?.iter().find(is).copied()
        } else {
            let end = at.unwrap_or(order.len());
            order.get(..end)?.iter().rev().find(is).copied()
        }
    }

    fn is_hidden(&self, row: RowId) -> bool {
        self.filtering && self.hidden.get(row.index()).copied().unwrap_or(false)
    }

    /// Whether a row shows its children: expanded, or (with a filter) holding matches.
    pub fn is_open(&self, row: RowId) -> bool {
        let r = &self.rows[row.index()];
        if r.first_child.is_none() {
            return false;
        }
        if self.filtering {
            let mut child = r.first_child;
            while child.is_some() {
                if !self.is_hidden(child) {
                    return true;
                }
                child = self.rows[child.index()].next_sibling;
            }
            return false;
        }
        !r.collapsed
    }

    pub fn is_filtering(&self) -> bool {
        self.filtering
    }

    /// Applies a filter: hides rows that neither match nor hold a match.
    fn apply_filter(&mut self, corpus: &Corpus, graph: &Graph, filter: &RowFilter) {
        self.filtering = filter.is_active();
        if !self.filtering {
            return;
        }
        let n = self.rows.len();
        let mut keep = vec![false; n];
        let mut matched = 0;
        // Children always come after their parent: one backwards pass settles every subtree.
        for row in (0..n).rev() {
            let own = row_matches(corpus, graph, filter, self.rows[row].kind);
            if own {
                matched += 1;
            }
            if own || keep[row] {
                keep[row] = true;
                let parent = self.rows[row].parent;
                if parent.is_some() {
                    keep[parent.index()] = true;
                }
            }
        }
        self.hidden = keep.into_iter().map(|k| !k).collect();
        self.matched = matched;
    }

    /// The number of siblings of a row (itself included) and its 1-based position among
    /// them, for `aria-setsize` / `aria-posinset`.
    pub fn position(&self, row: RowId) -> (u32, u32) {
        self.positions.get(row.index()).copied().unwrap_or((1, 1))
    }
}

/// Whether a row matches a filter by itself (structural rows never do: they show when
/// something below them matches).
fn row_matches(corpus: &Corpus, graph: &Graph, filter: &RowFilter, kind: RowKind) -> bool {
    let in_time = |entry: &Entry| {
        !entry.has_timestamp()
            || (filter.from_ms.is_none_or(|from| entry.timestamp_ms >= from)
                && filter.to_ms.is_none_or(|to| entry.timestamp_ms <= to))
    };
    let in_conversation = |entry: EntryId| {
        filter.conversation.is_none_or(|c| graph.nodes.get(entry.index()).is_some_and(|n| n.conversation == c))
    };
    match kind {
        RowKind::Message { first, .. } | RowKind::Noise { entry: first } => {
            let entry = &corpus.entries[first.index()];
            let hidden_kind = match kind {
                RowKind::Noise { .. } => filter.hide_system,
                _ => match entry.kind {
                    EntryKind::User if entry.flags.has(EntryFlags::COMPACT_SUMMARY) => filter.hide_system,
                    EntryKind::User => filter.hide_user,
                    EntryKind::Assistant if entry.flags.has(EntryFlags::API_ERROR) => filter.hide_system,
                    EntryKind::Assistant => filter.hide_assistant,
                    _ => filter.hide_system,
                },
            };
            let error = entry.flags.has(EntryFlags::ERROR)
                || entry.flags.has(EntryFlags::API_ERROR)
                || entry.flags.has(EntryFlags::TOOL_ERROR);
            !hidden_kind && (!filter.errors_only || error) && in_conversation(first) && in_time(entry)
        }
        RowKind::ToolCall { op } => {
            let Some(o) = graph.tool_ops.get(op.index()) else { return false };
            let anchor = if o.call_entry.is_some() { o.call_entry } else { o.result_entry };
            let error = matches!(o.status, sessionscope_engine::dag::ToolStatus::Error);
            !filter.hide_tools
                && (!filter.errors_only || error)
                && filter.conversation.is_none_or(|c| o.conversation == c)
                && in_time(&corpus.entries[anchor.index()])
        }
        RowKind::Agent { .. } | RowKind::Compaction { .. } | RowKind::Branch { .. } => false,
    }
}

pub fn key_of(kind: RowKind) -> RowKey {
    match kind {
        RowKind::Message { first, .. } => RowKey::Entry(first),
        RowKind::Noise { entry } => RowKey::Entry(entry),
        RowKind::ToolCall { op } => RowKey::Op(op),
        RowKind::Agent { conversation } => RowKey::Agent(conversation),
        RowKind::Compaction { link } => RowKey::Compaction(link),
        RowKind::Branch { fork } => RowKey::Branch(fork),
    }
}

/// Rows that start collapsed: agents, compaction markers, tool calls.
pub fn collapsed_by_default(kind: RowKind) -> bool {
    matches!(kind, RowKind::Agent { .. } | RowKind::Compaction { .. } | RowKind::ToolCall { .. })
}

/// Lines folded away by default: progress, hooks, attachments, injected meta text, deleted
/// lines, bookkeeping system lines (not the agent's notes), unknown types.
pub fn is_noise(corpus: &Corpus, entry: &Entry) -> bool {
    match entry.kind {
        EntryKind::Progress | EntryKind::Attachment | EntryKind::Other => true,
        EntryKind::System => {
            !entry.flags.has(EntryFlags::ERROR)
                && !entry.flags.has(EntryFlags::NOTE)
                && !entry.subtype_is_any(corpus, &["api_error", "compact_boundary"])
        }
        _ => entry.flags.has(EntryFlags::META) || entry.flags.has(EntryFlags::DELETED),
    }
}

trait SubtypeIs {
    fn subtype_is_any(&self, corpus: &Corpus, names: &[&str]) -> bool;
}

impl SubtypeIs for Entry {
    fn subtype_is_any(&self, corpus: &Corpus, names: &[&str]) -> bool {
        self.subtype.is_some() && names.contains(&corpus.sym(self.subtype))
    }
}

/// A user line that only carries tool results: it is shown inside the tool call rows.
fn only_results(corpus: &Corpus, entry: &Entry) -> bool {
    entry.kind == EntryKind::ToolResult
        || (entry.kind == EntryKind::User
            && entry.flags.has(EntryFlags::HAS_TOOL_RESULT)
            && corpus
                .blocks_of(entry)
                .iter()
                .all(|b| matches!(b.kind, BlockKind::ToolResult | BlockKind::ServerToolResult)))
}

struct Builder<'a> {
    corpus: &'a Corpus,
    graph: &'a Graph,
    options: &'a OutlineOptions,
    rows: Vec<Row>,
    last_child: Vec<RowId>,
    first_root: RowId,
    last_root: RowId,
    keys: FxHashMap<RowKey, RowId>,
    entry_rows: FxHashMap<EntryId, RowId>,
    hidden_noise: u32,
    agents_of_call: FxHashMap<BlockId, Vec<ConversationId>>,
    /// Sidechains linked to a message without a tool call (older inline shapes).
    agents_of_entry: FxHashMap<EntryId, Vec<ConversationId>>,
    root_memo: FxHashMap<EntryId, EntryId>,
}

impl Builder<'_> {
    fn finish(self) -> Outline {
        let mut positions = vec![(1, 1); self.rows.len()];
        let mut siblings = Vec::new();
        let firsts = std::iter::once(self.first_root).chain(self.rows.iter().map(|r| r.first_child));
        for first in firsts {
            siblings.clear();
            let mut current = first;
            while current.is_some() {
                siblings.push(current);
                current = self.rows[current.index()].next_sibling;
            }
            let size = siblings.len() as u32;
            for (i, &row) in siblings.iter().enumerate() {
                positions[row.index()] = (size, i as u32 + 1);
            }
        }
        Outline {
            rows: self.rows,
            first_root: self.first_root,
            keys: self.keys,
            entry_rows: self.entry_rows,
            hidden_noise: self.hidden_noise,
            positions,
            hidden: Vec::new(),
            filtering: false,
            matched: 0,
        }
    }

    fn push(&mut self, parent: RowId, kind: RowKind, key: RowKey, collapsed_default: bool) -> RowId {
        let index = RowId::new(self.rows.len());
        let collapsed = collapsed_default != self.options.toggled.contains(&key);
        self.rows.push(Row { kind, parent, first_child: RowId::NONE, next_sibling: RowId::NONE, collapsed });
        self.last_child.push(RowId::NONE);
        if parent.is_none() {
            if self.last_root.is_none() {
                self.first_root = index;
            } else {
                self.rows[self.last_root.index()].next_sibling = index;
            }
            self.last_root = index;
        } else {
            let last = self.last_child[parent.index()];
            if last.is_none() {
                self.rows[parent.index()].first_child = index;
            } else {
                self.rows[last.index()].next_sibling = index;
            }
            self.last_child[parent.index()] = index;
        }
        self.keys.entry(key).or_insert(index);
        index
    }

    fn root_of(&mut self, entry: EntryId) -> EntryId {
        let mut path = Vec::new();
        let mut current = entry;
        let root = loop {
            if let Some(&root) = self.root_memo.get(&current) {
                break root;
            }
            path.push(current);
            let parent = self.graph.nodes[current.index()].parent;
            if parent.is_none() {
                break current;
            }
            current = parent;
        };
        for e in path {
            self.root_memo.insert(e, root);
        }
        root
    }

    /// The rows of a conversation's thread, as children of `parent`: segments split by
    /// compactions, each compaction a marker holding the history before it.
    fn conversation(&mut self, conversation: ConversationId, parent: RowId) {
        let graph = self.graph;
        let options = self.options;
        let thread = graph.thread_with(conversation, &|fork| {
            let index = graph.forks.iter().position(|f| std::ptr::eq(f, fork)).unwrap_or(0);
            options.choice(graph, ForkId::new(index))
        });
        // Segments: runs of the thread under one root, in order of their roots.
        let mut segments: Vec<(EntryId, Vec<EntryId>)> = Vec::new();
        let mut segment_of_root: FxHashMap<EntryId, usize> = FxHashMap::default();
        for &e in &thread {
            let root = self.root_of(e);
            let index = *segment_of_root.entry(root).or_insert_with(|| {
                segments.push((root, Vec::new()));
                segments.len() - 1
            });
            segments[index].1.push(e);
        }
        crate::logic::sort::sort_by_key(&mut segments, |(root, _)| *root);
        // Groups: the segments before the first compaction, then each compaction's segment
        // with the non-compaction segments that follow it.
        let compaction_of_root = |root: EntryId| {
            graph.compactions.iter().position(|link| {
                (link.boundary.is_some() && link.boundary == root) || (link.boundary.is_none() && link.summary == root)
            })
        };
        let mut groups: Vec<(Option<usize>, Vec<usize>)> = vec![(None, Vec::new())];
        for (s, (root, _)) in segments.iter().enumerate() {
            match compaction_of_root(*root) {
                Some(link) => groups.push((Some(link), vec![s])),
                None => groups.last_mut().map(|g| g.1.push(s)).unwrap_or(()),
            }
        }
        self.groups(&segments, &groups, groups.len() - 1, parent);
    }

    fn groups(
        &mut self,
        segments: &[(EntryId, Vec<EntryId>)],
        groups: &[(Option<usize>, Vec<usize>)],
        upto: usize,
        parent: RowId,
    ) {
        // Iterative over the nesting: markers are created outermost first.
        let mut parents = vec![parent; upto + 1];
        for level in (1..=upto).rev() {
            let Some(link) = groups[level].0 else { continue };
            let marker = self.push(
                parents[level],
                RowKind::Compaction { link: CompactionId::new(link) },
                RowKey::Compaction(CompactionId::new(link)),
                true,
            );
            let agent = self.graph.compactions[link].agent;
            if agent.is_some() {
                let row = self.push(marker, RowKind::Agent { conversation: agent }, RowKey::Agent(agent), true);
                self.conversation(agent, row);
            }
            for p in parents.iter_mut().take(level) {
                *p = marker;
            }
        }
        // Rows of the groups, innermost (oldest) first. Rows go under their group's parent; since
        // markers were pushed first, each marker's history precedes the segment after it.
        for (level, (_, group)) in groups.iter().enumerate().take(upto + 1) {
            for &s in group {
                self.segment(&segments[s].1, parents[level]);
            }
        }
    }

    fn segment(&mut self, entries: &[EntryId], parent: RowId) {
        let corpus = self.corpus;
        let graph = self.graph;
        let mut message: Option<(RowId, ResponseId)> = None; // (row, response)
        for &e in entries {
            let entry = &corpus.entries[e.index()];
            // The branch switcher sits just before the branch shown at a real fork.
            if graph.nodes[e.index()].has(Node::ALTERNATIVE) {
                let fork_node = graph.nodes[e.index()].parent;
                if let Some(&fork) = graph.fork_of.get(fork_node.index())
                    && fork.is_some()
                {
                    self.push(parent, RowKind::Branch { fork }, RowKey::Branch(fork), false);
                    message = None;
                }
            }
            if entry.kind == EntryKind::System
                && entry.subtype.is_some()
                && corpus.sym(entry.subtype) == "compact_boundary"
            {
                // Shown by its marker.
                message = None;
                continue;
            }
            if is_noise(corpus, entry) {
                if self.options.show_noise {
                    let row = self.push(parent, RowKind::Noise { entry: e }, RowKey::Entry(e), false);
                    self.entry_rows.insert(e, row);
                } else {
                    self.hidden_noise += 1;
                    if let Some((row, _)) = message {
                        self.entry_rows.insert(e, row);
                    }
                }
                continue;
            }
            if only_results(corpus, entry) {
                let op = graph.op_of_entry.get(e.index()).copied().unwrap_or(OpId::NONE);
                let call_row = op.is_some().then(|| self.keys.get(&RowKey::Op(op)).copied()).flatten();
                match call_row {
                    Some(row) => {
                        // Every result of the line maps to the row of its call.
                        self.entry_rows.insert(e, row);
                        continue;
                    }
                    None if op.is_some() && graph.tool_ops[op.index()].call_entry.is_none() => {
                        // A result without a call gets a row of its own.
                        let row = self.push(parent, RowKind::ToolCall { op }, RowKey::Op(op), true);
                        self.entry_rows.insert(e, row);
                        continue;
                    }
                    None => {}
                }
            }
            let response = if entry.kind == EntryKind::Assistant { entry.response } else { ResponseId::NONE };
            let row = match message {
                Some((row, current)) if response.is_some() && current == response => {
                    if let RowKind::Message { last, .. } = &mut self.rows[row.index()].kind {
                        *last = e;
                    }
                    row
                }
                _ => {
                    let row = self.push(parent, RowKind::Message { first: e, last: e }, RowKey::Entry(e), false);
                    message = Some((row, response));
                    row
                }
            };
            self.entry_rows.insert(e, row);
            if entry.kind != EntryKind::Assistant && entry.kind != EntryKind::ToolUse {
                message = None;
            }
            self.tool_calls(e, row);
            if let Some(agents) = self.agents_of_entry.get(&e).cloned() {
                for agent in agents {
                    let agent_row = self.push(row, RowKind::Agent { conversation: agent }, RowKey::Agent(agent), true);
                    self.conversation(agent, agent_row);
                }
            }
        }
    }

    /// The tool calls an entry makes, as children of its message row.
    fn tool_calls(&mut self, e: EntryId, message_row: RowId) {
        let graph = self.graph;
        let first = graph.op_of_entry.get(e.index()).copied().unwrap_or(OpId::NONE);
        if first.is_none() {
            return;
        }
        let mut o = first.index();
        while let Some(op) = graph.tool_ops.get(o) {
            if op.call_entry != e {
                if op.result_entry == e && o == first.index() {
                    o += 1;
                    continue;
                }
                break;
            }
            let row = self.push(message_row, RowKind::ToolCall { op: OpId::new(o) }, RowKey::Op(OpId::new(o)), true);
            if op.result_entry.is_some() {
                self.entry_rows.insert(op.result_entry, row);
            }
            if op.category == ToolCategory::Agent
                && let Some(agents) = self.agents_of_call.get(&op.call_block).cloned()
            {
                for agent in agents {
                    let agent_row = self.push(row, RowKind::Agent { conversation: agent }, RowKey::Agent(agent), true);
                    self.conversation(agent, agent_row);
                }
            }
            o += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sessionscope_engine::Loader;

    fn example() -> (Corpus, Graph) {
        let corpus = Loader::read_all(crate::wire::example_files::FILES.iter().copied());
        let graph = Graph::build(&corpus);
        (corpus, graph)
    }

    fn kinds(outline: &Outline) -> Vec<(u16, &'static str)> {
        outline
            .visible()
            .into_iter()
            .map(|(row, depth)| {
                let name = match outline.rows[row.index()].kind {
                    RowKind::Message { .. } => "message",
                    RowKind::ToolCall { .. } => "tool",
                    RowKind::Agent { .. } => "agent",
                    RowKind::Compaction { .. } => "compaction",
                    RowKind::Branch { .. } => "branch",
                    RowKind::Noise { .. } => "noise",
                };
                (depth, name)
            })
            .collect()
    }

    /// Every `landmark` row, stepping forward from none until there is no next, as their texts.
    fn landmarks(corpus: &Corpus, graph: &Graph, outline: &Outline, landmark: Landmark) -> Vec<RowId> {
        let mut out = Vec::new();
        let mut at = None;
        while let Some(next) = outline.landmark(corpus, graph, at, true, landmark) {
            out.push(next);
            at = Some(next);
        }
        out
    }

    #[test]
    fn prompts_and_failed_calls_are_found_in_reading_order_inside_collapsed_rows_too() {
        let (corpus, graph) = example();
        let outline = Outline::build(&corpus, &graph, SessionId::new(0), &OutlineOptions::default());
        let text = |row: RowId| match outline.rows[row.index()].kind {
            RowKind::Message { first, .. } => {
                corpus.first_text(&corpus.entries[first.index()]).map(|t| t.to_string()).unwrap_or_default()
            }
            RowKind::ToolCall { op } => graph.op(op).map(|op| corpus.sym(op.name).to_owned()).unwrap_or_default(),
            _ => String::new(),
        };
        let prompts = landmarks(&corpus, &graph, &outline, Landmark::Prompt);
        let texts: Vec<String> = prompts.iter().map(|&r| text(r)).collect();
        // The first prompt is in the history the compaction folded away (a collapsed row); the
        // compaction's summary and the subagent's task are no prompts; the branch shown has one.
        assert_eq!(texts.len(), 2, "{texts:?}");
        assert!(texts[0].starts_with("The `division_rounds_toward_zero` test"), "{texts:?}");
        assert!(texts[1].starts_with("Now make eval return"), "{texts:?}");
        assert!(
            outline.rows[outline.ancestors(prompts[0])[0].index()].collapsed,
            "the first prompt is under a folded row"
        );
        // Back from the last comes to the one before, and nothing is before the first.
        assert_eq!(outline.landmark(&corpus, &graph, Some(prompts[1]), false, Landmark::Prompt), Some(prompts[0]));
        assert_eq!(outline.landmark(&corpus, &graph, Some(prompts[0]), false, Landmark::Prompt), None);
        assert_eq!(outline.landmark(&corpus, &graph, None, false, Landmark::Prompt), Some(prompts[1]));
        // The failing `cargo test` run is the one failed call.
        let failed = landmarks(&corpus, &graph, &outline, Landmark::FailedCall);
        assert_eq!(failed.iter().map(|&r| text(r)).collect::<Vec<_>>(), ["Bash"]);
    }

    #[test]
    fn the_example_shows_a_compaction_marker_a_branch_and_folded_noise() {
        let (corpus, graph) = example();
        let outline = Outline::build(&corpus, &graph, SessionId::new(0), &OutlineOptions::default());
        let top = kinds(&outline);
        assert_eq!(top[0], (0, "compaction"), "the pre-compaction history is folded under its marker");
        assert!(top.iter().any(|&(d, k)| d == 0 && k == "branch"), "{top:?}");
        assert!(top.iter().all(|&(_, k)| k != "noise"));
        assert!(outline.hidden_noise > 0);
        // Every entry of the active thread has a row, hidden noise aside.
        let main = graph.sessions[0].main;
        for e in graph.thread(main) {
            let entry = &corpus.entries[e.index()];
            if !is_noise(&corpus, entry) && corpus.sym(entry.subtype) != "compact_boundary" {
                assert!(outline.row_of_entry(e).is_some(), "line {} has no row", entry.line);
            }
        }
    }

    #[test]
    fn expanding_reveals_the_history_and_the_subagent_under_its_task_call() {
        let (corpus, graph) = example();
        let marker = RowKey::Compaction(CompactionId::new(0));
        let agent = ConversationId::new(graph.conversations.iter().position(|c| c.agent_name == "a7e5d21").unwrap());
        let task_op = OpId::new(
            graph
                .tool_ops
                .iter()
                .position(|op| op.call_block == graph.conversations[agent.index()].spawn_block)
                .unwrap(),
        );
        let mut options = OutlineOptions::default();
        options.toggled.extend([marker, RowKey::Op(task_op), RowKey::Agent(agent)]);
        let outline = Outline::build(&corpus, &graph, SessionId::new(0), &options);
        let agent_row = outline.row_of_key(RowKey::Agent(agent)).unwrap();
        let ancestors: Vec<RowKind> =
            outline.ancestors(agent_row).iter().map(|&r| outline.rows[r.index()].kind).collect();
        assert_eq!(ancestors[0], RowKind::ToolCall { op: task_op });
        assert!(matches!(ancestors[1], RowKind::Message { .. }));
        assert_eq!(ancestors[2], RowKind::Compaction { link: CompactionId::new(0) });
        let visible = outline.visible();
        let depth_of = |row| visible.iter().find(|(r, _)| *r == row).map(|(_, d)| *d);
        assert_eq!(depth_of(agent_row), Some(3));
        let agent_children = visible.iter().filter(|(r, _)| outline.rows[r.index()].parent == agent_row).count();
        assert!(agent_children >= 2, "the subagent's messages are inside");

        let closed = Outline::build(&corpus, &graph, SessionId::new(0), &OutlineOptions::default());
        assert!(closed.visible().len() < visible.len());
    }

    #[test]
    fn switching_the_branch_shows_the_other_alternative() {
        let (corpus, graph) = example();
        let fork = &graph.forks[0];
        let active_first = fork.alternatives[fork.active as usize];
        let other_first = fork.alternatives[1 - fork.active as usize];
        let outline = Outline::build(&corpus, &graph, SessionId::new(0), &OutlineOptions::default());
        assert!(outline.row_of_entry(active_first).is_some());
        assert!(outline.row_of_entry(other_first).is_none());
        let mut options = OutlineOptions::default();
        options.choices.insert(ForkId::new(0), 1 - fork.active);
        let switched = Outline::build(&corpus, &graph, SessionId::new(0), &options);
        assert!(switched.row_of_entry(other_first).is_some());
        assert!(switched.row_of_entry(active_first).is_none());
    }

    #[test]
    fn filters_hide_what_does_not_match_and_open_what_holds_a_match() {
        let (corpus, graph) = example();
        let options = OutlineOptions {
            filter: RowFilter { errors_only: true, ..RowFilter::default() },
            ..OutlineOptions::default()
        };
        let outline = Outline::build(&corpus, &graph, SessionId::new(0), &options);
        let visible = outline.visible();
        let errors: Vec<OpId> = visible
            .iter()
            .filter_map(|(row, _)| match outline.rows[row.index()].kind {
                RowKind::ToolCall { op } => Some(op),
                _ => None,
            })
            .collect();
        assert_eq!(errors.len(), 1, "the failing cargo test, inside the collapsed history");
        assert_eq!(graph.tool_ops[errors[0].index()].status, sessionscope_engine::dag::ToolStatus::Error);
        assert!(matches!(outline.rows[visible[0].0.index()].kind, RowKind::Compaction { .. }), "its marker opens");
        assert_eq!(outline.matched, 1);

        let tools_hidden = OutlineOptions {
            filter: RowFilter { hide_tools: true, hide_system: true, ..RowFilter::default() },
            ..OutlineOptions::default()
        };
        let outline = Outline::build(&corpus, &graph, SessionId::new(0), &tools_hidden);
        // Tool calls show only to hold the subagent whose messages match.
        for (row, _) in outline.visible() {
            if matches!(outline.rows[row.index()].kind, RowKind::ToolCall { .. }) {
                assert!(outline.has_children(row));
            }
        }
    }

    #[test]
    fn noise_is_revealed_in_place() {
        let (corpus, graph) = example();
        let hidden = Outline::build(&corpus, &graph, SessionId::new(0), &OutlineOptions::default());
        let options = OutlineOptions { show_noise: true, ..OutlineOptions::default() };
        let shown = Outline::build(&corpus, &graph, SessionId::new(0), &options);
        let noise = shown.rows.iter().filter(|r| matches!(r.kind, RowKind::Noise { .. })).count();
        assert_eq!(noise as u32, hidden.hidden_noise);
        assert_eq!(shown.hidden_noise, 0);
    }
}
