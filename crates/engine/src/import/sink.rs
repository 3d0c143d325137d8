//! What the importers produce: the [`Sink`] every line is written into (the corpus being built
//! and its indexes), how a line ended up ([`LineOutcome`], [`Failure`]), and what the first
//! bytes of a file say about it ([`Sniff`]). The loader owns a sink and reads these outcomes;
//! the importers know nothing of the loader.

use std::hash::BuildHasher;

use hashbrown::HashTable;
use rustc_hash::{FxBuildHasher, FxHashMap};

use crate::intern::Interner;
use crate::model::{Corpus, DiagnosticKind, EntryId, Envelope, EnvelopeId, Format, ResponseId};
use crate::span::Sym;

/// Everything the importers write into.
#[derive(Clone)]
pub(crate) struct Sink {
    pub corpus: Corpus,
    pub hasher: FxBuildHasher,
    /// Entry index by uuid: `(hash of the uuid, entry)`.
    pub uuid_index: HashTable<(u64, EntryId)>,
    /// Response index by `message.id` + `requestId`: `(hash, response)`.
    pub response_index: HashTable<(u64, ResponseId)>,
    pub type_counts: FxHashMap<Sym, u64>,
    pub envelope_index: FxHashMap<Envelope, EnvelopeId>,
    /// Cline and Roo Code tasks by id: what their files read so far say (see `cline::link`).
    pub tasks: FxHashMap<String, crate::import::cline::Task>,
    /// The records of the OpenCode storage files read so far, made into one record stream once
    /// every file is in (see `opencode_storage::take_stream`).
    pub opencode_storage: Vec<crate::import::opencode_storage::Record>,
}

impl Sink {
    /// An empty corpus with its interner, and empty indexes.
    pub fn new() -> Sink {
        Sink {
            corpus: Corpus { symbols: Interner::new(), ..Corpus::default() },
            hasher: FxBuildHasher,
            uuid_index: HashTable::new(),
            response_index: HashTable::new(),
            type_counts: FxHashMap::default(),
            envelope_index: FxHashMap::default(),
            tasks: FxHashMap::default(),
            opencode_storage: Vec::new(),
        }
    }

    pub fn hash_bytes(&self, bytes: &[u8]) -> u64 {
        self.hasher.hash_one(bytes)
    }

    pub fn hash_pair(&self, a: &[u8], b: &[u8]) -> u64 {
        self.hasher.hash_one((a, b))
    }

    pub fn count_type(&mut self, sym: Sym) {
        *self.type_counts.entry(sym).or_insert(0) += 1;
    }

    /// The index of an envelope, adding it if new.
    pub fn envelope(&mut self, envelope: Envelope) -> EnvelopeId {
        let envelopes = &mut self.corpus.envelopes;
        *self.envelope_index.entry(envelope).or_insert_with(|| {
            envelopes.push(envelope);
            EnvelopeId::new(envelopes.len() - 1)
        })
    }
}

/// What the first bytes of a file say about it.
pub(crate) enum Sniff {
    Format(Format),
    /// Nothing but whitespace so far.
    Empty,
    /// Not a log this version reads; the message says what it looks like.
    Rejected(String),
}

/// How one line ended up.
pub(crate) enum LineOutcome {
    Entry,
    Metadata,
    /// A repeat of an entry already loaded; the message names the first occurrence.
    Duplicate(String),
    /// Read, but nothing of it is kept, and that is no problem (an earlier version of a message
    /// that a later record of the file replaces): counted as ignored, without a diagnostic.
    Ignored,
    Failed(Failure),
}

/// A record of a document (a file read whole, see [`crate::import::is_document`]): where it
/// begins in the file and how it ended up. The records of a document partition its lines: each
/// one holds the lines from the one it begins on to the one before the next record's, so every
/// line is accounted for once whatever the importer reports. The first record holds the lines
/// before it too; records beginning on one line count that line once (as an entry if any is).
pub(crate) struct DocRecord {
    /// Byte offset in the file.
    pub offset: usize,
    pub outcome: LineOutcome,
}

pub(crate) struct Failure {
    pub kind: DiagnosticKind,
    pub message: String,
    /// The JSON ended early: the line was cut.
    pub eof: bool,
    /// The error is a lone UTF-16 surrogate escape, which a repair can fix.
    pub lone_surrogate: bool,
}

impl Failure {
    pub fn from_json(error: &serde_json::Error) -> Failure {
        let eof = error.classify() == serde_json::error::Category::Eof;
        let text = error.to_string();
        let lone_surrogate = text.contains("surrogate") || text.contains("hex escape");
        Failure {
            kind: DiagnosticKind::InvalidJson,
            message: format!("invalid JSON at column {}: {}", error.column(), strip_position(&text)),
            eof,
            lone_surrogate,
        }
    }
}

impl Failure {
    /// A failure of another kind than invalid JSON.
    pub fn new(kind: DiagnosticKind, message: String) -> Failure {
        Failure { kind, message, eof: false, lone_surrogate: false }
    }

    /// Unreachable in practice: lines are repaired before they are read.
    pub fn invalid_utf8() -> Failure {
        Failure {
            kind: DiagnosticKind::InvalidUtf8,
            message: "invalid UTF-8".into(),
            eof: false,
            lone_surrogate: false,
        }
    }
}

/// serde_json appends " at line 1 column N" to its messages; the diagnostic says it already.
fn strip_position(text: &str) -> &str {
    match text.rfind(" at line ") {
        Some(i) => &text[..i],
        None => text,
    }
}
