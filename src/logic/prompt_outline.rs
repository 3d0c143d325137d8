//! The open session's prompts as a compact outline to jump from: each prompt's first line, its
//! time and what its turn cost, in reading order (prompts folded away under a compaction
//! included).

use sessionscope_engine::dag::Graph;
use sessionscope_engine::model::Corpus;

use crate::logic::outline::{Landmark, Outline, RowKey, RowKind};

/// Characters of a prompt's first line that the outline shows.
const LINE_CHARS: usize = 120;

#[derive(Clone, Debug, PartialEq)]
pub struct PromptItem {
    pub key: RowKey,
    /// The prompt's first non-empty line, cut at [`LINE_CHARS`].
    pub line: String,
    /// Milliseconds since the epoch, `None` when the line has no time.
    pub time_ms: Option<i64>,
    /// What the turn the prompt opened cost: its own responses, not its subagents'.
    pub cost_usd: f64,
}

/// The prompts of the outline's session, in reading order.
pub fn prompt_outline(corpus: &Corpus, graph: &Graph, outline: &Outline) -> Vec<PromptItem> {
    outline
        .reading_order()
        .into_iter()
        .filter_map(|row| {
            let kind = outline.rows[row.index()].kind;
            if !Landmark::Prompt.is(corpus, graph, kind) {
                return None;
            }
            let RowKind::Message { first, .. } = kind else { return None };
            let entry = corpus.entries.get(first.index())?;
            let text = corpus.first_text(entry).unwrap_or_default();
            let line = text.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or_default();
            let line = match line.char_indices().nth(LINE_CHARS) {
                Some((cut, _)) => format!("{}…", &line[..cut]),
                None => line.to_owned(),
            };
            let cost_usd = graph
                .turn_of_entry
                .get(first.index())
                .filter(|turn| turn.is_some())
                .and_then(|turn| graph.turns.get(turn.index()))
                .map_or(0.0, |turn| turn.cost_usd);
            let time_ms = entry.has_timestamp().then_some(entry.timestamp_ms);
            Some(PromptItem { key: outline.key(row), line, time_ms, cost_usd })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logic::outline::OutlineOptions;
    use sessionscope_engine::Loader;
    use sessionscope_engine::dag::SessionId;

    #[test]
    fn the_example_s_prompts_come_with_their_first_line_time_and_turn_cost() {
        let corpus = Loader::read_all(crate::wire::example_files::FILES.iter().copied());
        let graph = Graph::build(&corpus);
        let outline = Outline::build(&corpus, &graph, SessionId::new(0), &OutlineOptions::default());
        let prompts = prompt_outline(&corpus, &graph, &outline);
        assert_eq!(prompts.len(), 2, "{prompts:?}");
        assert!(prompts[0].line.starts_with("The `division_rounds_toward_zero` test"), "{prompts:?}");
        assert!(!prompts[0].line.contains('\n'));
        assert!(prompts.iter().all(|p| p.time_ms.is_some()));
        assert!(prompts[0].time_ms < prompts[1].time_ms);
        // Each turn cost something, and no more than the session with its agents.
        let session = &graph.sessions[0];
        assert!(prompts.iter().all(|p| p.cost_usd > 0.0), "{prompts:?}");
        assert!(prompts.iter().map(|p| p.cost_usd).sum::<f64>() <= session.cost_with_agents_usd + 1e-9);
    }
}
