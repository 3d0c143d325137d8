//! The model's trip between threads: the corpus and the graph in postcard, without the files'
//! bytes, which travel beside it in buffers of their own (or are read by the page itself). The
//! encoding is written into, and read from, the buffer that crosses a piece at a time
//! ([`model_buffer`], [`model_from_buffer`]): wasm memory, which never shrinks, never holds it
//! whole.

use std::marker::PhantomData;

use js_sys::{ArrayBuffer, Uint8Array};
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

/// The model encoded straight into a buffer to hand to another thread, a piece at a time (the
/// size first, then the bytes), so wasm memory never holds the whole encoding.
pub fn model_buffer(corpus: &Corpus, graph: &Graph) -> Result<ArrayBuffer, CodecError> {
    let size = encoded_size(corpus, graph)?;
    let size32 = u32::try_from(size).map_err(|_| CodecError::Encode(format!("{size} bytes are too many")))?;
    let array = Uint8Array::new_with_length(size32);
    let mut put = |offset: usize, piece: &[u8]| {
        array.subarray(offset as u32, (offset + piece.len()) as u32).copy_from(piece);
    };
    encode_in_pieces(corpus, graph, CHUNK_BYTES, Some(&mut put))?;
    Ok(array.buffer())
}

/// A model received in a buffer, decoded a piece at a time (the buffer is not copied into wasm
/// memory whole), with the file bytes put in place.
pub fn model_from_buffer(buffer: &ArrayBuffer, bytes: Vec<Vec<u8>>) -> Result<(Corpus, Graph), CodecError> {
    let array = Uint8Array::new(buffer);
    let mut read =
        |offset: usize, out: &mut [u8]| array.subarray(offset as u32, (offset + out.len()) as u32).copy_to(out);
    decode_in_pieces(array.length() as usize, CHUNK_BYTES, &mut read, bytes)
}

/// Bytes of an encoded model handed on, or taken in, at a time: a buffer of another thread is
/// written and read in pieces of this size, so wasm memory never holds the whole encoding.
const CHUNK_BYTES: usize = 1 << 20;

/// The size of the model's encoding: counted by the same encoder as the bytes, so the page's code
/// holds one encoder of the model.
fn encoded_size(corpus: &Corpus, graph: &Graph) -> Result<usize, CodecError> {
    encode_in_pieces(corpus, graph, CHUNK_BYTES, None)
}

/// Encodes the model a piece of `chunk` bytes at a time: `put(offset, bytes)` gets each piece, in
/// order (none: the bytes are only counted), and the encoding's size comes back. Wasm memory
/// holds one piece, not the whole encoding (a big session's is 60–80 MB, which a wasm memory would
/// keep once grown). The encoder, and the decoder below, take their output and input as trait
/// objects: one copy of each in the page's code, whoever calls them.
fn encode_in_pieces(
    corpus: &Corpus,
    graph: &Graph,
    chunk: usize,
    put: Option<&mut Put<'_>>,
) -> Result<usize, CodecError> {
    let piece = if put.is_some() { Vec::with_capacity(chunk) } else { Vec::new() };
    let out = ChunkedOut { put, chunk, piece, written: 0 };
    postcard::serialize_with_flavor(&(corpus, graph), out).map_err(|e| CodecError::Encode(e.to_string()))
}

/// Decodes a model of `len` bytes a piece of `chunk` bytes at a time: `fill(offset, out)` fills
/// `out` with the encoding's bytes from `offset` on. The file bytes are put in place.
fn decode_in_pieces(
    len: usize,
    chunk: usize,
    fill: &mut dyn FnMut(usize, &mut [u8]),
    bytes: Vec<Vec<u8>>,
) -> Result<(Corpus, Graph), CodecError> {
    let input = ChunkedIn { fill, chunk, len, next: 0, piece: Vec::new(), at: 0, scratch: Vec::new(), de: PhantomData };
    let mut deserializer = postcard::Deserializer::from_flavor(input);
    let (mut corpus, graph): (Corpus, Graph) =
        serde::Deserialize::deserialize(&mut deserializer).map_err(|e| CodecError::Decode(e.to_string()))?;
    if bytes.len() != corpus.files.len() {
        return Err(CodecError::FilesChanged);
    }
    corpus.symbols.rebuild_index();
    corpus.bytes = bytes;
    Ok((corpus, graph))
}

/// What takes each piece of an encoding: its offset, and its bytes.
type Put<'a> = dyn FnMut(usize, &[u8]) + 'a;

/// A postcard output that hands its bytes on a piece at a time.
struct ChunkedOut<'p, 'f> {
    /// Where the pieces go; `None` only counts the bytes.
    put: Option<&'p mut Put<'f>>,
    chunk: usize,
    piece: Vec<u8>,
    /// Bytes handed on so far.
    written: usize,
}

impl ChunkedOut<'_, '_> {
    fn hand_on(&mut self) {
        if let Some(put) = self.put.as_mut()
            && !self.piece.is_empty()
        {
            put(self.written, &self.piece);
            self.written += self.piece.len();
            self.piece.clear();
        }
    }
}

impl postcard::ser_flavors::Flavor for ChunkedOut<'_, '_> {
    type Output = usize;

    fn try_push(&mut self, byte: u8) -> postcard::Result<()> {
        if self.put.is_none() {
            self.written += 1;
            return Ok(());
        }
        self.piece.push(byte);
        if self.piece.len() >= self.chunk {
            self.hand_on();
        }
        Ok(())
    }

    fn try_extend(&mut self, mut bytes: &[u8]) -> postcard::Result<()> {
        if self.put.is_none() {
            self.written += bytes.len();
            return Ok(());
        }
        while !bytes.is_empty() {
            let room = self.chunk.max(1) - self.piece.len().min(self.chunk.max(1));
            let (now, later) = bytes.split_at(room.min(bytes.len()));
            self.piece.extend_from_slice(now);
            if self.piece.len() >= self.chunk {
                self.hand_on();
            }
            bytes = later;
        }
        Ok(())
    }

    fn finalize(mut self) -> postcard::Result<usize> {
        self.hand_on();
        Ok(self.written)
    }
}

/// A postcard input that takes its bytes in a piece at a time. The model's types own their data,
/// so nothing is borrowed from it: a value that spans pieces is put together in `scratch`.
struct ChunkedIn<'de, 'f> {
    fill: &'f mut dyn FnMut(usize, &mut [u8]),
    chunk: usize,
    len: usize,
    /// The offset of the next piece to take in.
    next: usize,
    piece: Vec<u8>,
    /// Bytes of `piece` read so far.
    at: usize,
    scratch: Vec<u8>,
    de: PhantomData<&'de ()>,
}

impl ChunkedIn<'_, '_> {
    /// Takes in the next piece; false at the end of the encoding.
    fn take_in(&mut self) -> bool {
        let n = self.chunk.max(1).min(self.len - self.next);
        if n == 0 {
            return false;
        }
        self.piece.resize(n, 0);
        (self.fill)(self.next, &mut self.piece);
        self.next += n;
        self.at = 0;
        true
    }

    fn left_in_piece(&self) -> usize {
        self.piece.len() - self.at
    }
}

impl<'de, 'f: 'de> postcard::de_flavors::Flavor<'de> for ChunkedIn<'de, 'f> {
    type Remainder = ();
    type Source = ();

    fn pop(&mut self) -> postcard::Result<u8> {
        if self.left_in_piece() == 0 && !self.take_in() {
            return Err(postcard::Error::DeserializeUnexpectedEnd);
        }
        let byte = self.piece[self.at];
        self.at += 1;
        Ok(byte)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.len - self.next + self.left_in_piece())
    }

    /// Nothing of the model borrows from its encoding, which is not kept.
    fn try_take_n(&mut self, _: usize) -> postcard::Result<&'de [u8]> {
        Err(postcard::Error::DeserializeBadEncoding)
    }

    fn try_take_n_temp<'a>(&'a mut self, ct: usize) -> postcard::Result<&'a [u8]>
    where
        'de: 'a,
    {
        if self.left_in_piece() >= ct {
            let taken = &self.piece[self.at..self.at + ct];
            self.at += ct;
            return Ok(taken);
        }
        // A length past the encoding's end is an error before anything is reserved for it.
        if ct > self.len - self.next + self.left_in_piece() {
            return Err(postcard::Error::DeserializeUnexpectedEnd);
        }
        self.scratch.clear();
        self.scratch.reserve(ct);
        while self.scratch.len() < ct {
            if self.left_in_piece() == 0 && !self.take_in() {
                return Err(postcard::Error::DeserializeUnexpectedEnd);
            }
            let n = (ct - self.scratch.len()).min(self.left_in_piece());
            self.scratch.extend_from_slice(&self.piece[self.at..self.at + n]);
            self.at += n;
        }
        Ok(&self.scratch)
    }

    fn finalize(self) -> postcard::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sessionscope_engine::Loader;

    /// The model's encoding in one buffer.
    fn encode_model(corpus: &Corpus, graph: &Graph) -> Result<Vec<u8>, CodecError> {
        postcard::to_allocvec(&(corpus, graph)).map_err(|e| CodecError::Encode(e.to_string()))
    }

    /// The model back from one buffer.
    fn decode_model(model: &[u8], bytes: Vec<Vec<u8>>) -> Result<(Corpus, Graph), CodecError> {
        let mut read = |offset: usize, out: &mut [u8]| out.copy_from_slice(&model[offset..offset + out.len()]);
        decode_in_pieces(model.len(), CHUNK_BYTES, &mut read, bytes)
    }

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

    /// The model written and read in pieces of `chunk` bytes, through the offsets given.
    fn in_pieces(corpus: &Corpus, graph: &Graph, chunk: usize) -> (Vec<u8>, Result<(Corpus, Graph), CodecError>) {
        let size = encoded_size(corpus, graph).unwrap();
        let mut out = vec![0u8; size];
        let mut pieces = 0;
        let written = encode_in_pieces(
            corpus,
            graph,
            chunk,
            Some(&mut |offset, piece| {
                assert!(piece.len() <= chunk, "no piece is over a chunk");
                out[offset..offset + piece.len()].copy_from_slice(piece);
                pieces += 1;
            }),
        )
        .unwrap();
        assert_eq!(written, size, "as many bytes as the size said");
        assert_eq!(pieces, size.div_ceil(chunk), "{size} bytes in whole pieces");
        let back = decode_in_pieces(
            size,
            chunk,
            &mut |offset, fill| fill.copy_from_slice(&out[offset..offset + fill.len()]),
            corpus.bytes.clone(),
        );
        (out, back)
    }

    #[test]
    fn the_model_survives_the_trip_in_pieces_of_any_size() {
        let corpus = Loader::read_all(crate::wire::example_files::FILES.iter().copied());
        let graph = Graph::build(&corpus);
        let whole = encode_model(&corpus, &graph).unwrap();
        for chunk in [1, 7, 4096, CHUNK_BYTES] {
            let (encoded, back) = in_pieces(&corpus, &graph, chunk);
            assert_eq!(encoded, whole, "pieces of {chunk}: the same encoding");
            let (back, back_graph) = back.unwrap();
            assert_eq!(sessionscope_engine::dump::dump_corpus(&back), sessionscope_engine::dump::dump_corpus(&corpus));
            assert_eq!(
                sessionscope_engine::dump::dump_graph(&back, &back_graph),
                sessionscope_engine::dump::dump_graph(&corpus, &graph)
            );
        }
    }

    #[test]
    fn a_model_cut_short_or_spoiled_fails_to_decode_without_a_panic() {
        let corpus = Loader::read_all(crate::wire::example_files::FILES.iter().copied());
        let graph = Graph::build(&corpus);
        let whole = encode_model(&corpus, &graph).unwrap();
        for len in [0, 1, whole.len() / 2, whole.len() - 1] {
            let mut read = |offset: usize, fill: &mut [u8]| fill.copy_from_slice(&whole[offset..offset + fill.len()]);
            let back = decode_in_pieces(len, 7, &mut read, corpus.bytes.clone());
            assert!(matches!(back, Err(CodecError::Decode(_))), "cut at {len} of {}", whole.len());
        }
        // A length near the end that says "a string of 4 GB" is an error, not a reservation.
        let mut spoiled = whole.clone();
        let n = spoiled.len();
        spoiled[n / 3..n / 3 + 5].copy_from_slice(&[0xff, 0xff, 0xff, 0xff, 0x0f]);
        let mut read = |offset: usize, fill: &mut [u8]| fill.copy_from_slice(&spoiled[offset..offset + fill.len()]);
        assert!(decode_in_pieces(n, 4096, &mut read, corpus.bytes.clone()).is_err());
    }
}
