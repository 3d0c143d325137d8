//! The reconstructed structure: hand-made fixtures for each rule, the real logs, agreement
//! with ccusage's token totals, and random parent graphs.

mod common;

use std::path::Path;

use common::*;
use proptest::prelude::*;
use sessionscope_engine::Corpus;
use sessionscope_engine::dag::*;
use sessionscope_engine::dump::dump_graph;
use sessionscope_engine::model::{BlockId, EntryId};

fn dag_fixture(name: &str) -> (Corpus, Graph) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/dag").join(name);
    let corpus = load_chunked(&read_folder(&dir), 0);
    let graph = Graph::build(&corpus);
    (corpus, graph)
}

fn by_uuid(corpus: &Corpus, uuid: &str) -> EntryId {
    EntryId::new(
        corpus.entries.iter().position(|e| corpus.entry_uuid(e) == uuid).unwrap_or_else(|| panic!("no {uuid}")),
    )
}

fn node(graph: &Graph, entry: EntryId) -> &Node {
    graph.node(entry).expect("the entry has a node")
}

fn u(prefix: &str, n: u64) -> String {
    format!("{prefix}-0000-4000-8000-{n:012}")
}

fn rules(graph: &Graph) -> Vec<ProblemRule> {
    graph.problems.iter().map(|p| p.rule).collect()
}

#[test]
fn hand_made_structures_match_their_snapshots() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/dag");
    for (name, path) in subfolders(&dir) {
        let corpus = load_chunked(&read_folder(&path), 0);
        let graph = Graph::build(&corpus);
        insta::assert_snapshot!(format!("dag-{name}"), dump_graph(&corpus, &graph));
    }
}

#[test]
fn real_structures_match_their_snapshots() {
    let Some(real) = real_fixtures("real_structures_match_their_snapshots") else { return };
    for (name, dir) in real.folders() {
        let corpus = load_chunked(&read_folder(&dir), 0);
        let graph = Graph::build(&corpus);
        insta::assert_snapshot!(format!("real-dag-{name}"), dump_graph(&corpus, &graph));
    }
}

#[test]
fn a_rewind_is_a_real_fork_whose_later_branch_is_active() {
    let (corpus, graph) = dag_fixture("rewind-compaction");
    let a = |n| by_uuid(&corpus, &u("aaaa0000", n));
    assert_eq!(graph.forks.len(), 1);
    let fork = &graph.forks[0];
    assert_eq!(fork.node, a(6));
    assert_eq!(fork.alternatives, [a(7), a(11)]);
    assert_eq!(fork.alternatives[fork.active as usize], a(11), "the branch whose leaf comes last in the file");
    let session = &graph.sessions[0];
    assert_eq!((session.real_forks, session.artifact_forks), (1, 1), "the parallel Grep+Glob results are an artifact");

    let main = session.main;
    let thread = graph.thread(main);
    assert!(!thread.contains(&a(7)) && !thread.contains(&a(10)), "the abandoned branch is off the thread");
    assert!(thread.contains(&a(4)) && thread.contains(&a(5)), "artifact side children stay in the thread");
    assert!(thread.windows(2).all(|w| w[0] < w[1]), "in file order");
    // The other branch stays reachable.
    let other = graph.thread_with(main, &|_| 0);
    assert!(other.contains(&a(7)) && other.contains(&a(10)) && !other.contains(&a(11)));
    assert!(other.contains(&a(20)), "the compaction's continuation is in every branch's view");

    let link = &graph.compactions[0];
    assert_eq!((link.boundary, link.logical_parent, link.summary), (a(18), a(17), a(19)));
    assert_eq!(link.replaced_root, a(1));
    assert_eq!(link.pre_tokens, 91000);
    assert_eq!(graph.conversations[main.index()].roots, [a(1), a(18)]);
    assert_eq!(session.title, "Dark mode switch for lamp settings");
    assert_eq!(session.title_source, TitleSource::AiTitle);

    let statuses: Vec<(&str, ToolStatus)> = graph.tool_ops.iter().map(|op| (corpus.sym(op.name), op.status)).collect();
    assert_eq!(
        statuses,
        [
            ("Read", ToolStatus::Ok),
            ("Edit", ToolStatus::Ok),
            ("Grep", ToolStatus::Ok),
            ("Glob", ToolStatus::Ok),
            ("Bash", ToolStatus::Interrupted),
            ("Bash", ToolStatus::Ok)
        ]
    );
    let read = graph.tool_ops[0];
    assert_eq!((read.category, read.duration_ms), (ToolCategory::Read, 200));
    assert_eq!(tools::op_summary(&corpus, &read), "src/settings.rs");
    let edit = graph.tool_ops[1];
    assert_eq!(tools::op_summary(&corpus, &edit), "src/settings.rs +2 -1");
    // Turns follow the tree: the edit answers the abandoned prompt, the searches the new one.
    assert_eq!(graph.turns[read.turn.index()].prompt, a(1));
    assert_eq!(graph.turns[edit.turn.index()].prompt, a(7));
    assert_eq!(graph.turns[graph.tool_ops[2].turn.index()].prompt, a(11));
    // One response split over two lines counts once, with its largest usage.
    assert_eq!(graph.turns[read.turn.index()].usage.output_tokens, 40 + 20);
}

#[test]
fn agents_in_files_are_linked_by_each_rule_and_nest() {
    let (corpus, graph) = dag_fixture("agents");
    let find = |agent: &str| {
        graph.conversations.iter().position(|c| c.agent_name == agent).unwrap_or_else(|| panic!("no agent {agent}"))
    };
    let expect = [
        ("a00docs", LinkRule::MetaFile, "toolu_p_docs", 1, "doc-auditor"),
        ("a00test", LinkRule::AgentProgress, "toolu_p_tests", 1, "test-auditor"),
        ("a00bench", LinkRule::ResultText, "toolu_p_bench", 1, "bench-runner"),
        ("a00lint", LinkRule::Prompt, "toolu_p_lint", 1, "linter"),
        ("a00spel", LinkRule::ToolResultAgentId, "toolu_n_spell", 2, "speller"),
    ];
    for (agent, rule, tool_use, depth, kind) in expect {
        let conv = &graph.conversations[find(agent)];
        assert_eq!(conv.linked_by, Some(rule), "{agent}");
        let spawn = &corpus.entries[conv.spawn_entry.index()];
        assert_eq!(corpus.span_str(spawn.file, corpus.blocks[conv.spawn_block.index()].id), tool_use, "{agent}");
        assert_eq!(conv.depth, depth, "{agent}");
        assert_eq!(conv.agent_type, kind, "{agent}");
    }
    assert_eq!(graph.conversations[find("a00spel")].parent.index(), find("a00docs"), "nested under its spawner");
    let orphan = find("a0orphn");
    assert_eq!(graph.unlinked_agents, [ConversationId::new(orphan)]);
    assert_eq!(rules(&graph), [ProblemRule::AgentLinked]);
    let session = graph.sessions.iter().find(|s| s.id.starts_with("dddd4444")).unwrap();
    assert_eq!(session.main, ConversationId::NONE, "the orphan agent's session has no main thread loaded");
    assert_eq!(session.title, "Find the flaky test.");

    // Usage of the main thread alone and with its five agents.
    let s = &graph.sessions[0];
    assert_eq!(s.usage.output_tokens, 20 + 20, "a response split over two lines counts once");
    assert_eq!(s.usage_with_agents.output_tokens, 40 + 7 * 7, "seven agent responses");
    let stats = stats::sidechain_stats(&corpus, &graph, Some(SessionId::new(0)));
    assert_eq!(stats.total, 5);
    assert_eq!(stats.nested, 1);
    assert_eq!(stats.parallel_spawns, 1, "four spawns in one turn");
    assert_eq!(stats.depth_distribution, [(1, 4), (2, 1)]);
}

#[test]
fn broken_links_are_kept_and_reported() {
    let (corpus, graph) = dag_fixture("broken-links");
    let e = |n| by_uuid(&corpus, &u("eeee0000", n));
    assert_eq!(
        rules(&graph),
        [
            ProblemRule::ParentExists,
            ProblemRule::NoCycles,
            ProblemRule::NoSelfParent,
            ProblemRule::ResultHasCall,
            ProblemRule::CallHasResult,
            ProblemRule::TimestampsInOrder,
        ]
    );
    let main = &graph.conversations[graph.sessions[0].main.index()];
    assert_eq!(main.roots, [e(1), e(3), e(6), e(7)], "the cycle is broken at its first member");
    assert!(node(&graph, e(3)).has(Node::CYCLE_BROKEN));
    assert!(node(&graph, e(6)).has(Node::SELF_PARENT));
    assert!(node(&graph, e(7)).has(Node::ORPHAN));
    assert_eq!(node(&graph, e(5)).parent, e(4));
    assert_eq!(corpus.diagnostics.len(), 1, "the repeated uuid");
    assert_eq!(graph.subtree(e(3)), [e(3), e(4), e(5)]);
}

#[test]
fn compactions_without_a_boundary_and_preserved_segments() {
    let (corpus, graph) = dag_fixture("compaction-1.0");
    let g = |n| by_uuid(&corpus, &u("99990000", n));
    let link = &graph.compactions[0];
    assert_eq!(
        (link.boundary, link.summary, link.logical_parent, link.replaced_root),
        (EntryId::NONE, g(3), g(2), g(1))
    );

    let (corpus, graph) = dag_fixture("preserved-segment");
    let f = |n| by_uuid(&corpus, &u("ffff0000", n));
    assert_eq!(node(&graph, f(3)).parent, f(6), "the preserved head moves under the summary");
    assert!(node(&graph, f(3)).has(Node::PRESERVED));
    let link = &graph.compactions[0];
    assert_eq!((link.logical_parent, link.replaced_root), (f(4), f(1)));
    assert!(graph.problems.is_empty(), "{:?}", graph.problems);
}

#[test]
fn the_seed_documents_inline_sidechains_are_linked() {
    let corpus = load_one("seed-inline-sidechains.jsonl", &fixture("seed-inline-sidechains.jsonl"));
    let graph = Graph::build(&corpus);
    let inline: Vec<&Conversation> =
        graph.conversations.iter().filter(|c| c.kind == ConversationKind::InlineSidechain).collect();
    assert_eq!(inline.len(), 2, "the level-1 sidechain and the nested one");
    let first = inline[0];
    assert_eq!(first.linked_by, Some(LinkRule::ParentUuid));
    assert_eq!(corpus.entry_uuid(&corpus.entries[first.spawn_entry.index()]), "task-1");
    assert_eq!(first.agent_type, "bug-hunter");
    let nested = inline[1];
    assert_eq!(nested.parent, graph.nodes[by_uuid(&corpus, "3").index()].conversation);
    assert_eq!(nested.depth, 2);
    // After the nested sidechain returns, the level-1 sidechain resumes; the main thread too.
    assert!(node(&graph, by_uuid(&corpus, "7")).has(Node::RESUMED));
    assert_eq!(node(&graph, by_uuid(&corpus, "7")).conversation, node(&graph, by_uuid(&corpus, "3")).conversation);
    let ten = by_uuid(&corpus, "10");
    assert_eq!(node(&graph, ten).parent, by_uuid(&corpus, "task-1"));
    assert!(node(&graph, ten).has(Node::RESUMED));
}

#[test]
fn real_inline_sidechains_link_by_prompt_not_by_time() {
    let Some(real) = real_fixtures("real_inline_sidechains_link_by_prompt_not_by_time") else { return };
    let corpus = load_chunked(&read_folder(&real.folder("legacy-inline-sidechains-1.0.98")), 0);
    let graph = Graph::build(&corpus);
    let inline: Vec<&Conversation> =
        graph.conversations.iter().filter(|c| c.kind == ConversationKind::InlineSidechain).collect();
    assert_eq!(inline.len(), 7);
    let mut spawns: Vec<BlockId> = inline.iter().map(|c| c.spawn_block).collect();
    assert!(inline.iter().all(|c| c.linked_by == Some(LinkRule::Prompt)));
    spawns.sort_unstable();
    spawns.dedup();
    assert_eq!(spawns.len(), 7, "parallel sidechains each get their own Task call");
    for conv in inline {
        let prompt = agents_prompt(&corpus, &graph, conv);
        let input = task_prompt(&corpus, conv);
        assert_eq!(prompt, input);
    }
}

fn agents_prompt(corpus: &Corpus, _graph: &Graph, conv: &Conversation) -> String {
    corpus.first_text(&corpus.entries[conv.roots[0].index()]).unwrap().trim().to_owned()
}

fn task_prompt(corpus: &Corpus, conv: &Conversation) -> String {
    let entry = &corpus.entries[conv.spawn_entry.index()];
    let input: serde_json::Value =
        serde_json::from_slice(corpus.span_bytes(entry.file, corpus.blocks[conv.spawn_block.index()].body)).unwrap();
    input["prompt"].as_str().unwrap().trim().to_owned()
}

#[test]
fn real_agent_files_are_linked_and_compaction_agents_attach_to_their_compaction() {
    let Some(real) = real_fixtures("real_agent_files_are_linked_and_compaction_agents_attach_to_their_compaction")
    else {
        return;
    };
    for folder in ["compaction-2.1.39", "session-share-2.1.14"] {
        let corpus = load_chunked(&read_folder(&real.folder(folder)), 0);
        let graph = Graph::build(&corpus);
        assert!(graph.unlinked_agents.is_empty(), "{folder}");
        for conv in graph.conversations.iter().filter(|c| c.kind == ConversationKind::Agent) {
            assert!(conv.spawn_block.is_some(), "{folder}: {} has a spawning call", conv.agent_name);
            let op = graph.tool_ops.iter().find(|op| op.call_block == conv.spawn_block).unwrap();
            assert_eq!(op.category, ToolCategory::Agent);
        }
    }
    let corpus = load_chunked(&read_folder(&real.folder("compaction-2.1.39")), 0);
    let graph = Graph::build(&corpus);
    let compaction_agent =
        graph.conversations.iter().position(|c| c.kind == ConversationKind::CompactionAgent).unwrap();
    assert_eq!(graph.compactions[0].agent, ConversationId::new(compaction_agent));
}

/// ccusage's totals for the real fixtures, recorded by `scripts/compare-ccusage.mjs`; ccusage
/// groups by session file (subagents rolled in), so the per-file usage is regrouped likewise.
#[test]
fn token_totals_agree_with_ccusage() {
    let Some(real) = real_fixtures("token_totals_agree_with_ccusage") else { return };
    let reference_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/reference/ccusage-real.json");
    let reference: serde_json::Value = serde_json::from_slice(&std::fs::read(reference_path).unwrap()).unwrap();
    let mut files = Vec::new();
    for (name, dir) in real.folders() {
        for (path, bytes) in read_folder(&dir) {
            files.push((format!("{name}/{path}"), bytes));
        }
    }
    files.sort_by(|a, b| a.0.cmp(&b.0));
    let corpus = load_chunked(&files, 0);
    let graph = Graph::build(&corpus);
    let summary = sessionscope_engine::summary::summarize(&corpus, &graph);
    let mut groups: std::collections::BTreeMap<String, [u64; 4]> = Default::default();
    let mut costs: std::collections::BTreeMap<String, f64> = Default::default();
    for file in summary.per_file.iter().filter(|f| f.path.ends_with(".jsonl")) {
        let parts: Vec<&str> = file.path.split('/').collect();
        let session = match parts.iter().position(|p| *p == "subagents") {
            Some(i) => parts[i - 1].to_owned(),
            None => parts.last().unwrap().trim_end_matches(".jsonl").to_owned(),
        };
        let key = format!("{}/{session}", parts[0]);
        let g = groups.entry(key.clone()).or_default();
        g[0] += file.usage.input_tokens;
        g[1] += file.usage.output_tokens;
        g[2] += file.usage.cache_creation_input_tokens;
        g[3] += file.usage.cache_read_input_tokens;
        *costs.entry(key).or_default() += file.cost_usd;
    }
    let sessions = reference["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 12);
    for s in sessions {
        let key = format!("{}/{}", s["project"].as_str().unwrap(), s["session"].as_str().unwrap());
        let expected = ["input", "output", "cache_creation", "cache_read"].map(|k| s[k].as_u64().unwrap());
        assert_eq!(groups.get(&key), Some(&expected), "{key}");
        let cost = s["cost"].as_f64().unwrap();
        assert!((costs[&key] - cost).abs() < 1e-5, "{key}: {} vs {cost}", costs[&key]);
    }
}

/// Random parent graphs: every entry appears exactly once among the conversation trees,
/// whatever the links (cycles, self-links, dangling, across sessions and sidechains).
fn random_session(links: &[(usize, u8, bool, u8)]) -> Vec<u8> {
    let mut out = String::new();
    let n = links.len();
    for (i, &(parent, kind, sidechain, session)) in links.iter().enumerate() {
        let parent = match parent % (n + 3) {
            p if p < n => format!("\"p{p}\""),
            p if p == n => "null".into(),
            _ => "\"missing\"".into(),
        };
        let ty = ["user", "assistant", "system", "progress"][kind as usize % 4];
        out.push_str(&format!(
            "{{\"type\":\"{ty}\",\"uuid\":\"p{i}\",\"parentUuid\":{parent},\"isSidechain\":{sidechain},\"sessionId\":\"s{}\",\"timestamp\":\"2026-01-01T00:00:{:02}.000Z\",\"message\":{{\"role\":\"{ty}\",\"content\":\"m{i}\"}}}}\n",
            session % 3,
            i % 60
        ));
    }
    out.into_bytes()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn every_entry_is_in_exactly_one_tree(links in proptest::collection::vec((0usize..60, 0u8..4, any::<bool>(), 0u8..3), 1..60)) {
        let bytes = random_session(&links);
        let corpus = load_one("random.jsonl", &bytes);
        let graph = Graph::build(&corpus);
        let mut seen = vec![0u32; corpus.entries.len()];
        for (c, conv) in graph.conversations.iter().enumerate() {
            for &root in &conv.roots {
                for e in graph.subtree(root) {
                    seen[e.index()] += 1;
                    prop_assert_eq!(graph.nodes[e.index()].conversation, ConversationId::new(c));
                }
            }
            let thread = graph.thread(ConversationId::new(c));
            prop_assert!(thread.len() <= conv.entries as usize);
        }
        prop_assert!(seen.iter().all(|&s| s == 1), "{:?}", seen);
        let _ = sessionscope_engine::summary::summarize(&corpus, &graph);
        let _ = dump_graph(&corpus, &graph);
    }
}

/// Inputs the fuzzer found crashing once (`fuzz/regressions/`), read like the fuzz target
/// reads them: the first byte picks the slice size.
#[test]
fn fuzz_regressions_load_without_panicking() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions");
    let mut count = 0;
    for entry in std::fs::read_dir(dir).expect("the regressions folder").flatten() {
        let data = std::fs::read(entry.path()).unwrap();
        let (slice, bytes) = match data.split_first() {
            Some((&first, rest)) => (first as usize % 64 + 1, rest),
            None => (1, &data[..]),
        };
        let corpus = load_chunked(&[("fuzz.jsonl".to_owned(), bytes.to_vec())], slice);
        assert!(corpus.files[0].counts.balanced());
        let graph = Graph::build(&corpus);
        let _ = sessionscope_engine::summary::summarize(&corpus, &graph);
        count += 1;
    }
    assert!(count > 0);
}
