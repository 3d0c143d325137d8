//! Names for rows that stay the same across loads of the same files (uuids, tool call ids,
//! agent ids), for view-state links: `e:<uuid>` a message, `o:<tool call id>` a tool call,
//! `a:<agent>` an agent conversation, `c:<uuid>` a compaction marker, `b:<uuid>` a branch
//! switcher.
//!
//! Pure Rust over the model and the outline's row keys: built and tested natively.

use sessionscope_engine::dag::{CompactionId, ConversationId, OpId};
use sessionscope_engine::model::EntryId;

use crate::logic::loaded::Model;
use crate::logic::outline::RowKey;

/// The uuid of an entry (empty if there is no such entry).
pub fn entry_uuid(model: &Model, entry: EntryId) -> String {
    model.corpus.entry(entry).map(|e| model.corpus.entry_uuid(e).to_owned()).unwrap_or_default()
}

pub fn conversation_name(model: &Model, conversation: ConversationId) -> String {
    let Some(conv) = model.graph.conversation(conversation) else { return String::new() };
    if !conv.is_agent() {
        "main".to_owned()
    } else if !conv.agent_name.is_empty() {
        conv.agent_name.clone()
    } else {
        conv.roots.first().map(|&r| format!("root:{}", entry_uuid(model, r))).unwrap_or_default()
    }
}

pub fn conversation_by_name(model: &Model, name: &str) -> Option<ConversationId> {
    model.graph.conversations.iter().enumerate().find_map(|(c, conv)| {
        let c = ConversationId::new(c);
        let named =
            if name == "main" { !conv.is_agent() } else { conv.is_agent() && conversation_name(model, c) == name };
        named.then_some(c)
    })
}

/// A name for a row that stays the same across loads of the same files.
pub fn row_name(model: &Model, key: RowKey) -> Option<String> {
    let graph = &model.graph;
    let corpus = &model.corpus;
    Some(match key {
        RowKey::Entry(e) => format!("e:{}", entry_uuid(model, e)),
        RowKey::Op(op) => {
            let o = graph.op(op)?;
            let (entry, block) =
                if o.call_entry.is_some() { (o.call_entry, o.call_block) } else { (o.result_entry, o.result_block) };
            let entry = corpus.entry(entry)?;
            let block = corpus.block(block)?;
            format!("o:{}", corpus.span_str(entry.file, block.id))
        }
        RowKey::Agent(c) => format!("a:{}", conversation_name(model, c)),
        RowKey::Compaction(i) => {
            let c = graph.compaction(i)?;
            let anchor = if c.boundary.is_some() { c.boundary } else { c.summary };
            format!("c:{}", entry_uuid(model, anchor))
        }
        RowKey::Branch(fork) => format!("b:{}", entry_uuid(model, graph.fork(fork)?.node)),
    })
}

/// The row a stable name names, in the loaded files.
pub fn row_by_name(model: &Model, name: &str) -> Option<RowKey> {
    let graph = &model.graph;
    let corpus = &model.corpus;
    let (kind, value) = name.split_once(':')?;
    match kind {
        "e" => model.entry_by_uuid(value).map(RowKey::Entry),
        "o" => graph
            .tool_ops
            .iter()
            .position(|o| {
                let (entry, block) = if o.call_entry.is_some() {
                    (o.call_entry, o.call_block)
                } else {
                    (o.result_entry, o.result_block)
                };
                let (Some(entry), Some(block)) = (corpus.entry(entry), corpus.block(block)) else {
                    return false;
                };
                corpus.span_str(entry.file, block.id) == value
            })
            .map(|i| RowKey::Op(OpId::new(i))),
        "a" => conversation_by_name(model, value).map(RowKey::Agent),
        "c" => {
            let anchor = model.entry_by_uuid(value)?;
            graph
                .compactions
                .iter()
                .position(|c| c.boundary == anchor || c.summary == anchor)
                .map(|i| RowKey::Compaction(CompactionId::new(i)))
        }
        "b" => {
            let node = model.entry_by_uuid(value)?;
            let fork = *graph.fork_of.get(node.index())?;
            fork.is_some().then_some(RowKey::Branch(fork))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logic::outline::{Outline, OutlineOptions, RowId};
    use sessionscope_engine::dag::SessionId;

    #[test]
    fn every_row_of_the_example_is_found_again_by_its_name() {
        let model = crate::logic::loaded::example_model();
        let options = OutlineOptions { show_noise: true, ..OutlineOptions::default() };
        let mut named = 0;
        for session in (0..model.graph.sessions.len()).map(SessionId::new) {
            let outline = Outline::build(&model.corpus, &model.graph, session, &options);
            for row in (0..outline.rows.len()).map(RowId::new) {
                let key = outline.key(row);
                let name = row_name(&model, key);
                assert_eq!(name.as_deref().and_then(|n| row_by_name(&model, n)), Some(key), "{name:?}");
                named += 1;
            }
        }
        assert!(named > 10);
        assert_eq!(conversation_by_name(&model, "main").map(|c| conversation_name(&model, c)).as_deref(), Some("main"));
    }
}
