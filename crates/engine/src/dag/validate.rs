//! The validation rules of `002_ddd34fd636083af8.txt` and the format note, each violation
//! listed with its entry. Cycles, self-parents and unlinked agents were reported while
//! building.

use super::*;
use crate::model::EntryKind;

/// Clock skew tolerated between a parent and its child before it counts as out of order.
const SKEW_MS: i64 = 1_000;

pub(crate) fn validate(corpus: &Corpus, graph: &mut Graph) {
    let mut problems = Vec::new();
    for (e, entry) in corpus.entries.iter().enumerate() {
        let node = graph.nodes[e];
        let e = EntryId::new(e);
        if node.has(Node::ORPHAN) {
            problems.push(Problem {
                rule: ProblemRule::ParentExists,
                entry: e,
                message: format!(
                    "parentUuid {} names no loaded entry; the entry starts a thread of its own",
                    corpus.span_str(entry.file, entry.parent_uuid)
                ),
            });
        }
        if node.parent.is_some() {
            let parent = &corpus.entries[node.parent.index()];
            if entry.session_id != parent.session_id && entry.session_id.is_some() && parent.session_id.is_some() {
                problems.push(Problem {
                    rule: ProblemRule::SameSession,
                    entry: e,
                    message: format!(
                        "the parent (line {}) belongs to session {}, this entry to {}",
                        parent.line,
                        corpus.sym(parent.session_id),
                        corpus.sym(entry.session_id)
                    ),
                });
            }
            let moved = node.has(Node::PRESERVED);
            if !moved
                && entry.has_timestamp()
                && parent.has_timestamp()
                && entry.timestamp_ms.saturating_add(SKEW_MS) < parent.timestamp_ms
            {
                problems.push(Problem {
                    rule: ProblemRule::TimestampsInOrder,
                    entry: e,
                    message: format!(
                        "the entry is {:.1} s older than its parent (line {})",
                        parent.timestamp_ms.saturating_sub(entry.timestamp_ms) as f64 / 1000.0,
                        parent.line
                    ),
                });
            }
        }
        if matches!(entry.kind, EntryKind::ToolUse | EntryKind::ToolResult) && !entry.is_sidechain() {
            problems.push(Problem {
                rule: ProblemRule::ToolMessageSidechain,
                entry: e,
                message: "an extracted tool message should be marked isSidechain".into(),
            });
        }
    }
    for op in &graph.tool_ops {
        match op.status {
            ToolStatus::ResultWithoutCall => {
                let entry = &corpus.entries[op.result_entry.index()];
                let block = corpus.blocks[op.result_block.index()];
                problems.push(Problem {
                    rule: ProblemRule::ResultHasCall,
                    entry: op.result_entry,
                    message: format!(
                        "a tool result answers {}, a tool call that is not in the loaded files",
                        corpus.span_str(entry.file, block.id)
                    ),
                });
            }
            ToolStatus::NoResult
                if !corpus.files[corpus.entries[op.call_entry.index()].file as usize].format.records_tool_results() => {
            }
            ToolStatus::NoResult => problems.push(Problem {
                rule: ProblemRule::CallHasResult,
                entry: op.call_entry,
                message: format!("the {} call has no result", corpus.sym(op.name)),
            }),
            _ => {}
        }
    }
    graph.problems.extend(problems);
    graph.problems.sort_by_key(|p| (p.rule, p.entry));
}
