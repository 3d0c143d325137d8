//! The tree: parents resolved through a uuid index, conversations, children lists, cycles,
//! forks, compactions, and the per-session facts that need the whole tree.

use std::hash::BuildHasher;

use hashbrown::HashTable;
use rustc_hash::{FxBuildHasher, FxHashMap};

use super::*;
use crate::json;
use crate::model::{Entry, EntryFlags, EntryKind, MetaLine};
use crate::span::Span;

/// Entry index by uuid: 16 bytes an entry (a hash and an index, checked against the entry's own
/// uuid), not a copy of each uuid.
pub struct UuidIndex {
    table: HashTable<(u64, EntryId)>,
    hasher: FxBuildHasher,
}

impl UuidIndex {
    pub fn new(corpus: &Corpus) -> UuidIndex {
        let hasher = FxBuildHasher;
        let mut table = HashTable::with_capacity(corpus.entries.len());
        for (index, entry) in corpus.entries.iter().enumerate() {
            let uuid = corpus.span_bytes(entry.file, entry.uuid);
            let hash = hasher.hash_one(uuid);
            // Uuids are unique: the loader turned repeats into diagnostics.
            table.insert_unique(hash, (hash, EntryId::new(index)), |&(h, _)| h);
        }
        UuidIndex { table, hasher }
    }

    pub fn find(&self, corpus: &Corpus, uuid: &[u8]) -> Option<EntryId> {
        if uuid.is_empty() {
            return None;
        }
        let hash = self.hasher.hash_one(uuid);
        self.table
            .find(hash, |&(h, e)| {
                h == hash && {
                    let entry = &corpus.entries[e.index()];
                    corpus.span_bytes(entry.file, entry.uuid) == uuid
                }
            })
            .map(|&(_, e)| e)
    }

    pub fn find_span(&self, corpus: &Corpus, file: FileId, span: Span) -> Option<EntryId> {
        if span.is_empty() {
            return None;
        }
        self.find(corpus, corpus.span_bytes(file, span))
    }
}

/// Which conversation an entry belongs to, before inline sidechains are told apart by root.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum Key {
    Main(SessionId),
    Agent(SessionId, u32),
    Inline(SessionId, u8),
}

/// A user line that a person (or, in a sidechain, the spawning agent) typed: not a tool result,
/// not injected meta text, not a compaction summary.
pub fn is_prompt(entry: &Entry) -> bool {
    entry.kind == EntryKind::User
        && !entry.flags.has(EntryFlags::HAS_TOOL_RESULT)
        && !entry.flags.has(EntryFlags::META)
        && !entry.flags.has(EntryFlags::COMPACT_SUMMARY)
}

/// Entries marked `isSidechain` that form subagent conversations (extracted tool messages
/// use the flag for "auxiliary" and stay in their thread).
fn in_sidechain(entry: &Entry) -> bool {
    entry.is_sidechain() && !matches!(entry.kind, EntryKind::ToolUse | EntryKind::ToolResult)
}

/// Steps walked up a parent chain before giving up (a guard against pathological inputs).
const WALK_LIMIT: usize = 100_000;

pub(crate) fn build_tree(corpus: &Corpus, index: &UuidIndex, graph: &mut Graph) {
    let n = corpus.entries.len();
    let entries = &corpus.entries;
    let mut sessions = SessionTable::default();
    let mut agent_names: FxHashMap<String, u32> = FxHashMap::default();
    let mut agent_name_of_sym: FxHashMap<Sym, u32> = FxHashMap::default();
    let mut agent_name_list: Vec<String> = Vec::new();
    let mut file_agent_name: Vec<Option<u32>> = vec![None; corpus.files.len()];
    let intern_agent = |name: &str, names: &mut FxHashMap<String, u32>, list: &mut Vec<String>| -> u32 {
        *names.entry(name.to_owned()).or_insert_with(|| {
            list.push(name.to_owned());
            (list.len() - 1) as u32
        })
    };

    // Keys and sessions.
    let mut keys = Vec::with_capacity(n);
    let mut session_of = Vec::with_capacity(n);
    for entry in entries {
        let session = sessions.of_entry(corpus, entry);
        session_of.push(session);
        let key = if entry.agent_id.is_some() {
            let name = match agent_name_of_sym.get(&entry.agent_id) {
                Some(&name) => name,
                None => {
                    let name = intern_agent(corpus.sym(entry.agent_id), &mut agent_names, &mut agent_name_list);
                    agent_name_of_sym.insert(entry.agent_id, name);
                    name
                }
            };
            Key::Agent(session, name)
        } else if in_sidechain(entry) {
            let file = entry.file as usize;
            let from_name = match file_agent_name[file] {
                Some(name) => Some(name),
                None => corpus.files[file].agent_id_from_name.as_deref().map(|name| {
                    let id = intern_agent(name, &mut agent_names, &mut agent_name_list);
                    file_agent_name[file] = Some(id);
                    id
                }),
            };
            match from_name {
                Some(name) => Key::Agent(session, name),
                None => Key::Inline(session, entry.nesting_level.max(1)),
            }
        } else {
            Key::Main(session)
        };
        keys.push(key);
    }

    // Raw parents, then `preservedSegment` re-parenting.
    let mut nodes: Vec<Node> = vec![
        Node {
            parent: EntryId::NONE,
            first_child: EntryId::NONE,
            next_sibling: EntryId::NONE,
            conversation: ConversationId::NONE,
            flags: 0
        };
        n
    ];
    let mut raw_parent = vec![EntryId::NONE; n];
    for (i, entry) in entries.iter().enumerate() {
        if entry.parent_uuid.is_empty() {
            continue;
        }
        match index.find_span(corpus, entry.file, entry.parent_uuid) {
            None => nodes[i].flags |= Node::ORPHAN,
            Some(p) if p.index() == i => nodes[i].flags |= Node::SELF_PARENT,
            Some(p) => raw_parent[i] = p,
        }
    }
    for compaction in &corpus.compactions {
        let boundary = &entries[compaction.entry.index()];
        let head = index.find_span(corpus, boundary.file, compaction.preserved_head);
        let anchor = index.find_span(corpus, boundary.file, compaction.preserved_anchor);
        if let (Some(head), Some(anchor)) = (head, anchor)
            && head != anchor
        {
            raw_parent[head.index()] = anchor;
            nodes[head.index()].flags |= Node::PRESERVED;
        }
    }

    // Tree parents: the raw parent when it is in the same conversation; else the nearest
    // ancestor that is (the thread resumes after a nested sidechain); else a root.
    let mut cross_parent = vec![EntryId::NONE; n];
    let mut walk_stamp = vec![0u32; n];
    let mut walk = 0u32;
    for i in 0..n {
        let p = raw_parent[i];
        if p.is_none() {
            continue;
        }
        if keys[p.index()] == keys[i] {
            nodes[i].parent = p;
            continue;
        }
        walk += 1;
        let mut q = raw_parent[p.index()];
        let mut found = EntryId::NONE;
        let mut steps = 0;
        while q.is_some() && steps < WALK_LIMIT && walk_stamp[q.index()] != walk {
            walk_stamp[q.index()] = walk;
            if keys[q.index()] == keys[i] {
                found = q;
                break;
            }
            q = raw_parent[q.index()];
            steps += 1;
        }
        if found.is_some() && found.index() != i {
            nodes[i].parent = found;
            nodes[i].flags |= Node::RESUMED;
        } else {
            nodes[i].flags |= Node::CROSS_PARENT;
            cross_parent[i] = p;
        }
    }

    break_cycles(corpus, &mut nodes, &mut graph.problems);
    for (i, node) in nodes.iter().enumerate() {
        if node.has(Node::SELF_PARENT) {
            graph.problems.push(Problem {
                rule: ProblemRule::NoSelfParent,
                entry: EntryId::new(i),
                message: "the entry names itself as its parent; it is read as a root".into(),
            });
        }
    }

    // Roots, then conversations in order of their first entry.
    let root_of = roots_of(&nodes);
    let mut conversation_of_key: FxHashMap<Key, ConversationId> = FxHashMap::default();
    let mut conversation_of_inline_root: FxHashMap<EntryId, ConversationId> = FxHashMap::default();
    for i in 0..n {
        let key = keys[i];
        let existing = match key {
            Key::Inline(..) => conversation_of_inline_root.get(&root_of[i]).copied(),
            _ => conversation_of_key.get(&key).copied(),
        };
        let conversation = match existing {
            Some(c) => c,
            None => {
                let c = ConversationId::new(graph.conversations.len());
                let (kind, agent_id) = match key {
                    Key::Main(_) => (ConversationKind::Main, Sym::NONE),
                    Key::Agent(_, name) => {
                        let text = &agent_name_list[name as usize];
                        let kind = if text.starts_with("acompact") {
                            ConversationKind::CompactionAgent
                        } else {
                            ConversationKind::Agent
                        };
                        (kind, corpus.symbols.lookup(text).unwrap_or(Sym::NONE))
                    }
                    Key::Inline(..) => (ConversationKind::InlineSidechain, Sym::NONE),
                };
                let agent_name = match key {
                    Key::Agent(_, name) => agent_name_list[name as usize].clone(),
                    _ => String::new(),
                };
                graph.conversations.push(Conversation {
                    kind,
                    session: session_of[i],
                    agent_id,
                    agent_name: agent_name.clone(),
                    file: entries[i].file,
                    roots: Vec::new(),
                    entries: 0,
                    cross_parent: EntryId::NONE,
                    spawn_entry: EntryId::NONE,
                    spawn_block: BlockId::NONE,
                    linked_by: None,
                    parent: ConversationId::NONE,
                    depth: 0,
                    agent_type: String::new(),
                    description: String::new(),
                    compaction: CompactionId::NONE,
                    first_timestamp_ms: i64::MAX,
                    last_timestamp_ms: i64::MIN,
                    usage: Usage::default(),
                    cost_usd: 0.0,
                    turns: 0,
                    tool_calls: 0,
                });
                match key {
                    Key::Inline(..) => conversation_of_inline_root.insert(root_of[i], c),
                    _ => conversation_of_key.insert(key, c),
                };
                c
            }
        };
        nodes[i].conversation = conversation;
        let conv = &mut graph.conversations[conversation.index()];
        conv.entries += 1;
        let timestamp = entries[i].timestamp_ms;
        if entries[i].has_timestamp() {
            conv.first_timestamp_ms = conv.first_timestamp_ms.min(timestamp);
            conv.last_timestamp_ms = conv.last_timestamp_ms.max(timestamp);
        }
    }

    // Children lists in entry order, and roots.
    let mut last_child = vec![EntryId::NONE; n];
    for i in 0..n {
        let p = nodes[i].parent;
        if p.is_none() {
            if cross_parent[i].is_some() {
                graph.cross_links.push((EntryId::new(i), cross_parent[i]));
            }
            let conv = &mut graph.conversations[nodes[i].conversation.index()];
            conv.roots.push(EntryId::new(i));
            if conv.cross_parent.is_none() && cross_parent[i].is_some() {
                conv.cross_parent = cross_parent[i];
            }
            continue;
        }
        let p = p.index();
        if last_child[p].is_none() {
            nodes[p].first_child = EntryId::new(i);
        } else {
            nodes[last_child[p].index()].next_sibling = EntryId::new(i);
        }
        last_child[p] = EntryId::new(i);
    }

    // Sessions.
    for (index, id) in sessions.ids.into_iter().enumerate() {
        graph.sessions.push(Session {
            id,
            title: String::new(),
            title_source: TitleSource::None,
            files: Vec::new(),
            main: ConversationId::NONE,
            agents: Vec::new(),
            first_prompt: EntryId::NONE,
            first_timestamp_ms: i64::MAX,
            last_timestamp_ms: i64::MIN,
            entries: 0,
            compactions: 0,
            real_forks: 0,
            artifact_forks: 0,
            tool_uses: 0,
            tool_results: 0,
            unpaired_tool_uses: 0,
            usage: Usage::default(),
            cost_usd: 0.0,
            usage_with_agents: Usage::default(),
            cost_with_agents_usd: 0.0,
            unknown_models: Vec::new(),
        });
        let _ = index;
    }
    for (c, conv) in graph.conversations.iter().enumerate() {
        let session = &mut graph.sessions[conv.session.index()];
        if conv.kind == ConversationKind::Main {
            session.main = ConversationId::new(c);
        } else {
            session.agents.push(ConversationId::new(c));
        }
        session.entries += conv.entries;
        session.first_timestamp_ms = session.first_timestamp_ms.min(conv.first_timestamp_ms);
        session.last_timestamp_ms = session.last_timestamp_ms.max(conv.last_timestamp_ms);
    }
    for (i, entry) in entries.iter().enumerate() {
        let session = &mut graph.sessions[session_of[i].index()];
        if !session.files.contains(&entry.file) {
            session.files.push(entry.file);
        }
    }
    for (file, info) in corpus.files.iter().enumerate() {
        // Files without entries (summary-only files, agent meta files) join the session their
        // path names, if it is loaded.
        let Some(name) = info.session_from_path.as_deref() else { continue };
        if let Some(session) = graph.sessions.iter_mut().find(|s| s.id == name)
            && !session.files.contains(&(file as FileId))
        {
            session.files.push(file as FileId);
        }
    }
    graph.nodes = nodes;
}

/// Session ids in order of first appearance; entries without one take their file's.
#[derive(Default)]
struct SessionTable {
    ids: Vec<String>,
    by_id: FxHashMap<String, SessionId>,
    by_sym: FxHashMap<Sym, SessionId>,
    by_file: FxHashMap<FileId, SessionId>,
}

impl SessionTable {
    fn of_entry(&mut self, corpus: &Corpus, entry: &Entry) -> SessionId {
        if entry.session_id.is_some() {
            if let Some(&s) = self.by_sym.get(&entry.session_id) {
                return s;
            }
            let s = self.named(corpus.sym(entry.session_id));
            self.by_sym.insert(entry.session_id, s);
            return s;
        }
        if let Some(&s) = self.by_file.get(&entry.file) {
            return s;
        }
        let info = &corpus.files[entry.file as usize];
        let name = info.session_from_path.clone().unwrap_or_else(|| info.name().to_owned());
        let s = self.named(&name);
        self.by_file.insert(entry.file, s);
        s
    }

    fn named(&mut self, id: &str) -> SessionId {
        if let Some(&s) = self.by_id.get(id) {
            return s;
        }
        let s = SessionId::new(self.ids.len());
        self.ids.push(id.to_owned());
        self.by_id.insert(id.to_owned(), s);
        s
    }
}

/// Drops one parent link of every cycle (the one of the member read first) and reports it.
fn break_cycles(corpus: &Corpus, nodes: &mut [Node], problems: &mut Vec<Problem>) {
    const UNSEEN: u8 = 0;
    const ON_PATH: u8 = 1;
    const DONE: u8 = 2;
    let mut state = vec![UNSEEN; nodes.len()];
    let mut path = Vec::new();
    for start in 0..nodes.len() {
        if state[start] != UNSEEN {
            continue;
        }
        path.clear();
        let mut current = EntryId::new(start);
        while current.is_some() && state[current.index()] == UNSEEN {
            state[current.index()] = ON_PATH;
            path.push(current);
            current = nodes[current.index()].parent;
        }
        if current.is_some() && state[current.index()] == ON_PATH {
            let at = path.iter().position(|&e| e == current).unwrap_or(0);
            let cycle = &path[at..];
            let first = cycle.iter().copied().min().unwrap_or(current);
            nodes[first.index()].parent = EntryId::NONE;
            nodes[first.index()].flags |= Node::CYCLE_BROKEN;
            let members: Vec<String> = cycle
                .iter()
                .map(|&e| {
                    let entry = &corpus.entries[e.index()];
                    format!("line {}", entry.line)
                })
                .collect();
            problems.push(Problem {
                rule: ProblemRule::NoCycles,
                entry: first,
                message: format!(
                    "parent links form a cycle ({}); the link of the first is dropped and it is read as a root",
                    members.join(" → ")
                ),
            });
        }
        for &e in &path {
            state[e.index()] = DONE;
        }
    }
}

/// The root of every node's tree, found by walking up with memoisation.
fn roots_of(nodes: &[Node]) -> Vec<EntryId> {
    let mut root = vec![EntryId::NONE; nodes.len()];
    let mut path = Vec::new();
    for start in 0..nodes.len() {
        if root[start].is_some() {
            continue;
        }
        path.clear();
        let mut current = EntryId::new(start);
        let found = loop {
            if root[current.index()].is_some() {
                break root[current.index()];
            }
            path.push(current);
            let parent = nodes[current.index()].parent;
            if parent.is_none() {
                break current;
            }
            current = parent;
        };
        for &e in &path {
            root[e.index()] = found;
        }
    }
    root
}

/// Tells real forks (rewinds, edits) from recording artifacts at every node with several
/// children, and picks the active alternative of each real fork.
pub(crate) fn classify_forks(corpus: &Corpus, graph: &mut Graph) {
    let n = graph.nodes.len();
    graph.fork_of = vec![ForkId::NONE; n];
    // The last entry (in file order) of every subtree, from a post-order walk.
    let mut last = (0..n).map(EntryId::new).collect::<Vec<_>>();
    let order = preorder(graph);
    for &e in order.iter().rev() {
        let parent = graph.nodes[e.index()].parent;
        if parent.is_some() {
            last[parent.index()] = last[parent.index()].max(last[e.index()]);
        }
    }
    for e in (0..n).map(EntryId::new) {
        let node = graph.nodes[e.index()];
        if node.first_child.is_none() || graph.nodes[node.first_child.index()].next_sibling.is_none() {
            continue;
        }
        let prompts: Vec<EntryId> = graph.children(e).filter(|&c| is_prompt(&corpus.entries[c.index()])).collect();
        let distinct_times = {
            let mut times: Vec<i64> = prompts.iter().map(|&c| corpus.entries[c.index()].timestamp_ms).collect();
            times.sort_unstable();
            times.dedup();
            times.len()
        };
        let conv = node.conversation;
        let session = graph.conversations[conv.index()].session.index();
        if prompts.len() >= 2 && distinct_times >= 2 {
            let active =
                prompts.iter().enumerate().max_by_key(|(_, c)| last[c.index()]).map(|(i, _)| i as u32).unwrap_or(0);
            for &c in &prompts {
                graph.nodes[c.index()].flags |= Node::ALTERNATIVE;
            }
            graph.fork_of[e.index()] = ForkId::new(graph.forks.len());
            graph.forks.push(Fork { node: e, alternatives: prompts, active });
            graph.sessions[session].real_forks += 1;
        } else {
            graph.sessions[session].artifact_forks += 1;
        }
    }
}

/// Every node, parents before children, roots in entry order.
pub(crate) fn preorder(graph: &Graph) -> Vec<EntryId> {
    let mut order = Vec::with_capacity(graph.nodes.len());
    let mut stack: Vec<EntryId> = Vec::new();
    for conv in &graph.conversations {
        for &root in conv.roots.iter().rev() {
            stack.push(root);
        }
        while let Some(e) = stack.pop() {
            order.push(e);
            let start = stack.len();
            stack.extend(graph.children(e));
            stack[start..].reverse();
        }
    }
    order
}

/// Links every compaction to the message it continues, its summary and the history it
/// replaced; 1.0.x files with only an `isCompactSummary` entry are recognised too.
pub(crate) fn link_compactions(corpus: &Corpus, index: &UuidIndex, graph: &mut Graph) {
    let root_of = roots_of(&graph.nodes);
    let mut summaries_seen = Vec::new();
    for compaction in &corpus.compactions {
        let boundary = compaction.entry;
        let entry = &corpus.entries[boundary.index()];
        let logical_parent = index.find_span(corpus, entry.file, entry.logical_parent_uuid).unwrap_or(EntryId::NONE);
        let summary = graph
            .children(boundary)
            .find(|&c| corpus.entries[c.index()].flags.has(EntryFlags::COMPACT_SUMMARY))
            .unwrap_or(EntryId::NONE);
        if summary.is_some() {
            summaries_seen.push(summary);
        }
        let conv = graph.nodes[boundary.index()].conversation;
        // With a preserved segment, the replaced history is the tree the segment was taken
        // from (the logical parent moved with it).
        let preserved_head = index.find_span(corpus, entry.file, compaction.preserved_head);
        let taken_from = preserved_head.filter(|&h| graph.nodes[h.index()].has(Node::PRESERVED)).and_then(|h| {
            let head = &corpus.entries[h.index()];
            index.find_span(corpus, head.file, head.parent_uuid)
        });
        let replaced_from = taken_from.unwrap_or(logical_parent);
        graph.compactions.push(CompactionLink {
            boundary,
            logical_parent,
            summary,
            replaced_root: if replaced_from.is_none() { EntryId::NONE } else { root_of[replaced_from.index()] },
            trigger: compaction.trigger,
            pre_tokens: compaction.pre_tokens,
            session: graph.conversations[conv.index()].session,
            agent: ConversationId::NONE,
        });
    }
    // Summaries without a boundary (1.0.x): the history they replaced is what came before
    // them in their conversation.
    for (i, entry) in corpus.entries.iter().enumerate() {
        let i = EntryId::new(i);
        if !entry.flags.has(EntryFlags::COMPACT_SUMMARY) || summaries_seen.contains(&i) {
            continue;
        }
        let parent = graph.nodes[i.index()].parent;
        if parent.is_some() && corpus.entries[parent.index()].subtype_is(corpus, "compact_boundary") {
            continue;
        }
        let conv = graph.nodes[i.index()].conversation;
        if graph.conversations[conv.index()].kind != ConversationKind::Main {
            continue;
        }
        let logical_parent = if parent.is_some() {
            parent
        } else {
            (0..i.index())
                .rev()
                .map(EntryId::new)
                .find(|&e| graph.nodes[e.index()].conversation == conv)
                .unwrap_or(EntryId::NONE)
        };
        graph.compactions.push(CompactionLink {
            boundary: EntryId::NONE,
            logical_parent,
            summary: i,
            replaced_root: if logical_parent.is_none() { EntryId::NONE } else { root_of[logical_parent.index()] },
            trigger: Sym::NONE,
            pre_tokens: 0,
            session: graph.conversations[conv.index()].session,
            agent: ConversationId::NONE,
        });
    }
    for link in &graph.compactions {
        graph.sessions[link.session.index()].compactions += 1;
    }
}

impl Entry {
    pub(crate) fn subtype_is(&self, corpus: &Corpus, subtype: &str) -> bool {
        self.subtype.is_some() && corpus.sym(self.subtype) == subtype
    }
}

/// Titles, first prompts and totals that need the whole structure.
pub(crate) fn finish_sessions(corpus: &Corpus, graph: &mut Graph) {
    let session_by_sym: FxHashMap<&str, SessionId> =
        graph.sessions.iter().enumerate().map(|(i, s)| (s.id.as_str(), SessionId::new(i))).collect();
    let mut titles: Vec<Option<(TitleSource, &MetaLine)>> = vec![None; graph.sessions.len()];
    let mut summaries: Vec<Option<&MetaLine>> = vec![None; graph.sessions.len()];
    let index = UuidIndex::new(corpus);
    for meta in &corpus.metas {
        let kind = corpus.sym(meta.type_name);
        let source = match kind {
            "custom-title" => TitleSource::CustomTitle,
            "ai-title" => TitleSource::AiTitle,
            "summary" => TitleSource::Summary,
            _ => continue,
        };
        if source == TitleSource::Summary {
            let Some(target) = index.find_span(corpus, meta.file, meta.target_uuid) else { continue };
            let conv = graph.nodes[target.index()].conversation;
            let session = graph.conversations[conv.index()].session.index();
            summaries[session] = Some(meta);
            continue;
        }
        let session = if meta.session_id.is_some() {
            session_by_sym.get(corpus.sym(meta.session_id)).copied()
        } else {
            corpus.files[meta.file as usize].session_from_path.as_deref().and_then(|s| session_by_sym.get(s).copied())
        };
        if let Some(session) = session {
            titles[session.index()] = Some((source, meta));
        }
    }
    let mut first_prompts = vec![EntryId::NONE; graph.conversations.len()];
    for (e, entry) in corpus.entries.iter().enumerate() {
        let conv = graph.nodes[e].conversation.index();
        if first_prompts[conv].is_none()
            && is_prompt(entry)
            && corpus.first_text(entry).is_some_and(|t| !prompt_line(&t).is_empty())
        {
            first_prompts[conv] = EntryId::new(e);
        }
    }
    for (s, session) in graph.sessions.iter_mut().enumerate() {
        // The main thread's first prompt; for a session of agent files only, the first agent's.
        let first_conversation =
            if session.main.is_some() { Some(session.main) } else { session.agents.first().copied() };
        if let Some(conv) = first_conversation {
            session.first_prompt = first_prompts[conv.index()];
        }
        let text_of = |meta: &MetaLine| corpus.span_text(meta.file, meta.text).trim().to_owned();
        if let Some((source, meta)) = titles[s] {
            session.title = text_of(meta);
            session.title_source = source;
        } else if let Some(meta) = summaries[s] {
            session.title = text_of(meta);
            session.title_source = TitleSource::Summary;
        } else if session.first_prompt.is_some() {
            let entry = &corpus.entries[session.first_prompt.index()];
            session.title = prompt_title(&corpus.first_text(entry).unwrap_or_default());
            session.title_source = TitleSource::FirstPrompt;
        }
    }
}

/// The whole text the title of session `session` is made of: the line of its first prompt
/// ([`prompt_line`]) when the title is cut from it, else the title itself (a title the log
/// gives is never cut). An output that redacts redacts this whole, then cuts it.
pub fn title_source(corpus: &Corpus, graph: &Graph, session: SessionId) -> String {
    let Some(s) = graph.sessions.get(session.index()) else { return String::new() };
    match corpus.entries.get(s.first_prompt.index()) {
        Some(entry) if s.title_source == TitleSource::FirstPrompt => {
            prompt_line(&corpus.first_text(entry).unwrap_or_default())
        }
        _ => s.title.clone(),
    }
}

/// Characters of a prompt's line kept in a title ([`prompt_title`]).
pub const TITLE_CHARS: usize = 100;

/// A one-line title from a prompt: its [`prompt_line`] cut to [`TITLE_CHARS`] characters.
pub fn prompt_title(text: &str) -> String {
    crate::cut::prefix(&prompt_line(text), TITLE_CHARS)
}

/// The line of a prompt a title is made of, whole: slash commands by name, injected tags
/// removed, the first line that is not blank. An output that redacts redacts this before it
/// cuts it to a title.
pub fn prompt_line(text: &str) -> String {
    if let Some(name) = between(text, "<command-name>", "</command-name>") {
        let args = between(text, "<command-args>", "</command-args>").unwrap_or("").trim();
        return if args.is_empty() { name.trim().to_owned() } else { format!("{} {}", name.trim(), args) };
    }
    let mut cleaned = String::with_capacity(text.len().min(1024));
    let mut rest = text;
    while let Some(start) = rest.find('<') {
        cleaned.push_str(&rest[..start]);
        let after = &rest[start + 1..];
        let tag_end = after.find(|c: char| c == '>' || c.is_whitespace()).unwrap_or(after.len());
        let tag = &after[..tag_end];
        let injected = matches!(
            tag,
            "system-reminder"
                | "local-command-caveat"
                | "local-command-stdout"
                | "command-message"
                | "task-notification"
                | "bash-stdout"
                | "bash-stderr"
        );
        if injected && let Some(close) = after.find(&format!("</{tag}>")) {
            rest = &after[close + tag.len() + 3..];
            continue;
        }
        cleaned.push('<');
        rest = after;
    }
    cleaned.push_str(rest);
    cleaned.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("").to_owned()
}

fn between<'a>(text: &'a str, open: &str, close: &str) -> Option<&'a str> {
    let start = text.find(open)? + open.len();
    let end = text[start..].find(close)? + start;
    Some(&text[start..end])
}

/// Decoded text of a block body (raw JSON string).
pub(crate) fn block_text(corpus: &Corpus, entry: &Entry, body: Span) -> String {
    json::decode_value(corpus.span_bytes(entry.file, body)).into_owned()
}
