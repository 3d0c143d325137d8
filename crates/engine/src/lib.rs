//! sessionscope's engine: reads agent session logs into a compact model and reconstructs the
//! conversation. No web dependency: it builds and is tested natively, and compiles to wasm
//! unchanged.
//!
//! Data flow: file bytes → [`load`] (chunks, lines) → [`import`] (one importer per format) →
//! [`model::Corpus`].
//!
//! The layers depend one way: [`load`] uses [`import`], which builds the [`model`]; none of them
//! uses a layer above it. Beneath all three, [`span`], [`json`], [`intern`] and [`index`] (the
//! typed indices of the model and the graph) know nothing of them. [`dag`], [`search`], [`summary`], [`details`] and [`dump`] read the finished model.
//! [`cut`] shortens text for output, never inside a redaction marker. [`query`] reads the query
//! language of a history search; it knows nothing of the model. [`rank`] scores the sessions that
//! hold a query's words (BM25F).
//! [`marks`] (a person's stars, notes and tags on sessions and entries) stands apart from all of
//! them. [`small_json`] reads and writes the JSON that the page handles (tool inputs, a line's
//! details, marks, a history's cached index, a share's header) in less code than serde_json,
//! which the importers keep for their speed.

pub mod cut;
pub mod dag;
pub mod details;
pub mod dump;
pub mod exact_vec;
pub mod history;
pub mod history_cache;
pub mod import;
pub mod index;
pub mod insights;
pub mod intern;
pub mod json;
pub mod load;
pub mod marks;
pub mod model;
pub mod query;
pub mod rank;
pub mod ranked;
pub mod redact;
pub mod resume;
pub mod search;
pub mod share;
pub mod small_json;
pub mod sort;
pub mod span;
pub mod summary;
pub mod trigrams;
pub mod units;
pub mod word_index;

pub use load::Loader;
pub use model::Corpus;
