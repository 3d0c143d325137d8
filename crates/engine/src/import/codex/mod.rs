//! OpenAI Codex logs, in two shapes that share their helpers:
//!
//! - [`rollout`]: **session rollouts**
//!   (`~/.codex/sessions/YYYY/MM/DD/rollout-<date>-<uuid>.jsonl`), lines
//!   `{timestamp, type, payload}`;
//! - [`events`]: **Codex SDK thread events** (`codex exec --json`, `@openai/codex-sdk`).
//!
//! Both report usage as OpenAI counts it, cached input inside input and reasoning inside output:
//! input becomes uncached input plus `cache_read_input_tokens`, output stays whole.

pub mod events;
pub mod rollout;

use crate::import::Sink;
use crate::import::common::*;
use crate::model::*;
use crate::span::Sym;

/// Adds usage to the response anchored at `anchor` (made if it has none).
fn bill(sink: &mut Sink, anchor: EntryId, model: Sym, usage: Usage) {
    let Some(entry) = sink.corpus.entries.get(anchor.index()) else { return };
    if entry.response.is_some()
        && let Some(response) = sink.corpus.responses.get_mut(entry.response.index())
    {
        response.usage.add(&usage);
        response.has_usage = true;
        if response.model.is_none() {
            response.model = model;
        }
        return;
    }
    let file = entry.file;
    push_response(sink, new_response(file, anchor, model, Some(usage)));
}
