//! The model's trip between threads: the corpus and the graph in postcard, without the files'
//! bytes, which travel beside it in buffers of their own (or are read by the page itself).

use sessionscope_engine::Corpus;
use sessionscope_engine::dag::Graph;

/// Why a model could not be sent or received.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CodecError {
    Encode(String),
    Decode(String),
    /// The bytes given are not those of the model's files: they changed while they were read.
    FilesChanged,
}

impl std::fmt::Display for CodecError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CodecError::Encode(why) => write!(f, "the model could not be encoded: {why}"),
            CodecError::Decode(why) => write!(f, "the model could not be decoded: {why}"),
            CodecError::FilesChanged => f.write_str("the files changed while they were read"),
        }
    }
}

/// The model without the file bytes, for the trip from the worker to the page.
pub fn encode_model(corpus: &Corpus, graph: &Graph) -> Result<Vec<u8>, CodecError> {
    postcard::to_allocvec(&(corpus, graph)).map_err(|e| CodecError::Encode(e.to_string()))
}

/// The model back, with the file bytes put in place.
pub fn decode_model(model: &[u8], bytes: Vec<Vec<u8>>) -> Result<(Corpus, Graph), CodecError> {
    let (mut corpus, graph): (Corpus, Graph) =
        postcard::from_bytes(model).map_err(|e| CodecError::Decode(e.to_string()))?;
    if bytes.len() != corpus.files.len() {
        return Err(CodecError::FilesChanged);
    }
    corpus.symbols.rebuild_index();
    corpus.bytes = bytes;
    Ok((corpus, graph))
}

#[cfg(test)]
mod tests {
    use super::*;
    use sessionscope_engine::Loader;

    #[test]
    fn the_model_survives_the_trip_from_the_worker() {
        let corpus = Loader::read_all(crate::wire::example_files::FILES.iter().copied());
        let graph = Graph::build(&corpus);
        let encoded = encode_model(&corpus, &graph).unwrap();
        let (back, back_graph) = decode_model(&encoded, corpus.bytes.clone()).unwrap();
        assert_eq!(sessionscope_engine::dump::dump_corpus(&back), sessionscope_engine::dump::dump_corpus(&corpus));
        assert_eq!(
            sessionscope_engine::dump::dump_graph(&back, &back_graph),
            sessionscope_engine::dump::dump_graph(&corpus, &graph)
        );
        assert_eq!(back.symbols.lookup("assistant"), corpus.symbols.lookup("assistant"));
        assert!(decode_model(&encoded, Vec::new()).is_err(), "bytes for every file are required");
    }
}
