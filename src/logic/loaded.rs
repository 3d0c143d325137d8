//! What is loaded: the engine's corpus and graph, with the lookups the app needs (entries by
//! uuid, sessions by id). Depends on the engine only, so every part of the app can use it.

use sessionscope_engine::Corpus;
use sessionscope_engine::dag::{Graph, SessionId, UuidIndex};
use sessionscope_engine::model::EntryId;

/// Everything loaded: the parsed files and their structure.
pub struct Model {
    pub corpus: Corpus,
    pub graph: Graph,
    /// Entry index by uuid, for deep links and search results: a hash and an index an entry,
    /// not a copy of each uuid (60 MB less for a session of 763,000 entries).
    uuids: UuidIndex,
}

impl Model {
    pub fn new(corpus: Corpus, graph: Graph) -> Model {
        let uuids = UuidIndex::new(&corpus);
        Model { corpus, graph, uuids }
    }

    pub fn entry_by_uuid(&self, uuid: &str) -> Option<EntryId> {
        self.uuids.find(&self.corpus, uuid.as_bytes())
    }

    /// The session to show first: the one with the most entries.
    pub fn default_session(&self) -> SessionId {
        SessionId::new(self.graph.sessions.iter().enumerate().max_by_key(|(_, s)| s.entries).map_or(0, |(i, _)| i))
    }

    pub fn session_by_id(&self, id: &str) -> Option<SessionId> {
        self.graph.sessions.iter().position(|s| s.id == id).map(SessionId::new)
    }

    pub fn session_of_entry(&self, entry: EntryId) -> Option<SessionId> {
        self.graph.conversation_of(entry).map(|c| c.session)
    }
}

/// The bundled example's model, for native tests.
#[cfg(test)]
pub fn example_model() -> Model {
    let corpus = sessionscope_engine::Loader::read_all(crate::wire::example_files::FILES.iter().copied());
    let graph = sessionscope_engine::dag::Graph::build(&corpus);
    Model::new(corpus, graph)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_is_found_by_its_uuid_and_nothing_else_is() {
        let model = example_model();
        let mut found = 0;
        for (i, entry) in model.corpus.entries.iter().enumerate() {
            let uuid = model.corpus.entry_uuid(entry);
            if !uuid.is_empty() {
                assert_eq!(model.entry_by_uuid(uuid), Some(EntryId::new(i)), "{uuid}");
                found += 1;
            }
        }
        assert!(found > 20, "the example's entries have uuids ({found})");
        assert_eq!(model.entry_by_uuid(""), None);
        assert_eq!(model.entry_by_uuid("00000000-0000-4000-8000-000000000000"), None);
        let first = model.corpus.entry_uuid(&model.corpus.entries[0]);
        assert_eq!(model.entry_by_uuid(&first[..first.len() - 1]), None, "a prefix is not the uuid");
    }
}
