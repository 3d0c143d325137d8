//! What is loaded: the engine's corpus and graph, with the lookups the app needs (entries by
//! uuid, sessions by id). Depends on the engine only, so every part of the app can use it.

use rustc_hash::FxHashMap;
use sessionscope_engine::Corpus;
use sessionscope_engine::dag::{Graph, SessionId};
use sessionscope_engine::model::EntryId;

/// Everything loaded: the parsed files and their structure.
pub struct Model {
    pub corpus: Corpus,
    pub graph: Graph,
    /// Entry index by uuid, for deep links and search results.
    uuids: FxHashMap<String, EntryId>,
}

impl Model {
    pub fn new(corpus: Corpus, graph: Graph) -> Model {
        let uuids = corpus
            .entries
            .iter()
            .enumerate()
            .map(|(i, e)| (corpus.entry_uuid(e).to_owned(), EntryId::new(i)))
            .collect();
        Model { corpus, graph, uuids }
    }

    pub fn entry_by_uuid(&self, uuid: &str) -> Option<EntryId> {
        self.uuids.get(uuid).copied()
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
