//! The messages between the page and its workers, typed: [`ToWorker`] from the page,
//! [`FromWorker`] back. The loading worker, the history's workers and the open session's worker
//! are the same program (`src/bin/worker.rs`, see [`crate::worker`]); the page's side is in
//! [`crate::files`] (a load, and the spare worker started ahead of time), [`crate::pool`] (a
//! history's) and [`crate::session_worker`] (searching the open session, and sharing it).
//!
//! A message travels in an [`Envelope`], on the wire `{ message, files, buffers }`: `message`
//! is the typed message as a plain value (converted by `serde-wasm-bindgen`): a message without
//! fields is its name in kebab case (`"ready"`), any other an object whose one key is its name
//! and holds its fields (`{ "hits": { id, count, done, hits } }`); `files` are the `File`
//! handles and `buffers` the `ArrayBuffer`s that go beside it. (With the name outside the
//! fields, serde reads a message without buffering it first: search hits decode three times
//! faster than with a `kind` among the fields. And the page's decoder of this form is a third
//! the size of the `{ kind, body }` form's: 29 KB of code against 84 KB, `docs/size.md`.) Every buffer of an envelope is transferred, never copied: the worker's model
//! and the preview's file bytes move to the page, copies of the page's model and file bytes
//! move to the session's worker. [`Envelope::encode`] and [`Envelope::decode`] are the one way in and out; an
//! envelope that cannot be read (an unknown kind, a missing field, a value of the wrong type)
//! decodes to an error, never a panic. The worker answers such a request with
//! [`FromWorker::Error`]; the page ignores a reply it cannot read.
//!
//! A conversation: the worker says [`FromWorker::Ready`] once its code runs (anything posted
//! before is lost). A spare worker is then asked to [`ToWorker::WarmUp`]. A load is one
//! [`ToWorker::Load`], answered by [`FromWorker::Progress`] after every slice, for big loads
//! once [`FromWorker::Preview`], then [`FromWorker::Building`] and [`FromWorker::Done`] (or
//! [`FromWorker::Error`]). The open session's worker gets [`ToWorker::SearchInit`] once (the
//! page's model), then requests that name themselves by an id, answered under that id, or by
//! [`FromWorker::Failed`]: one [`ToWorker::Search`] per query, answered by [`FromWorker::Hits`]
//! until `done`; [`ToWorker::Matches`] by [`FromWorker::Matches`]; [`ToWorker::ShareScan`] by
//! [`FromWorker::ShareProgress`] and then [`FromWorker::ShareScanned`]; [`ToWorker::ShareWrite`]
//! by [`FromWorker::ShareWritten`]. A history
//! worker gets one [`ToWorker::IndexUnit`] or [`ToWorker::SearchUnit`] after another, each
//! answered by one [`FromWorker::Indexed`] or [`FromWorker::UnitHits`] (or an error). A worker
//! started to open databases gets one [`ToWorker::OpenDatabase`] after another, each answered by
//! [`FromWorker::Database`] or [`FromWorker::Error`].

use js_sys::{Array, ArrayBuffer, Uint8Array};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use sessionscope_engine::history::{HistoryHit, UnitIndex};
use sessionscope_engine::history_cache::FileStamp;
use sessionscope_engine::redact::{DetectOptions, DropParts};
use sessionscope_engine::search::Hit;
use sessionscope_engine::share::bundle::BundleHeader;
use sessionscope_engine::share::scope::Scope;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

use crate::sharing::scan::ScanReport;

/// What the page asks of a worker.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ToWorker {
    /// Run the whole pipeline on the bundled example a number of times, so the browser has
    /// optimised the hot code before the first real file arrives. A load that arrives stops it.
    WarmUp,
    /// The page is busy for about `ms` milliseconds (it opens the example itself): a warm-up
    /// running waits that long before its next round, leaving the CPU to the page.
    Rest { ms: f64 },
    /// Read, parse and build the files of the envelope: `paths[i]` names `files[i]`. `slice`:
    /// bytes read at a time; `preview`: the page shows the first part of a big load.
    Load { paths: Vec<String>, slice: usize, preview: bool },
    /// Keep the open session's model, to search and share: the envelope's buffers hold the model (as
    /// [`crate::worker::encode_model`] makes it), then the bytes of each of its files.
    SearchInit,
    /// Search the kept model for `query` (a regular expression if `regex`), answering with
    /// [`FromWorker::Hits`] step by step. A newer search stops an older one.
    Search { id: u64, query: String, regex: bool },
    /// Read the files of one session unit of a history (`paths[i]` names the envelope's
    /// `files[i]`), answer its [`FromWorker::Indexed`] row and let the bytes go. `folder` is the
    /// unit's folder, which names the project of sessions that name no working directory.
    IndexUnit { unit: u32, folder: String, paths: Vec<String> },
    /// Search the files of one unit of a history for `query`, answering [`FromWorker::UnitHits`].
    SearchUnit { unit: u32, paths: Vec<String>, query: String, regex: bool },
    /// Open the agent database at `path` (the envelope's first file; its write-ahead log, if
    /// given, the second) and answer its record stream, [`FromWorker::Database`]
    /// (see [`crate::database`]). `looked_for_wal`: it came from a folder, where a log beside
    /// it would have come too.
    OpenDatabase { path: String, looked_for_wal: bool },
    /// Add a file to the session this worker follows (kept in a loader between requests):
    /// `path`, and its `size` when it was first seen. Files are numbered in the order added.
    FollowAdd { path: String, size: f64 },
    /// Parse the next bytes of followed file `file`: the envelope's one buffer.
    FollowPush { file: u32 },
    /// Answer the followed session as read so far ([`FromWorker::Followed`]); a last line still
    /// being written waits for its newline.
    FollowSnapshot,
    /// Find `query`'s matches in each of `texts` (the text of a row the page draws, to
    /// highlight them), answering [`FromWorker::Matches`].
    Matches { id: u64, query: String, regex: bool, texts: Vec<String> },
    /// Scan what `scope` covers of the kept model for secrets and personal data, with the
    /// detectors `options` turns on (and agents' conversations left out if `without_agents`),
    /// answering [`FromWorker::ShareProgress`] between slices, then [`FromWorker::ShareScanned`].
    /// The worker keeps the newest scan for [`ToWorker::ShareWrite`]; a newer one stops an older.
    ShareScan { id: u64, scope: Scope, without_agents: bool, options: DetectOptions },
    /// Write the kept scan's scope redacted, each finding kept visible where `keep` says so,
    /// with `parts` left out, and `selected` (a message's uuid) to show first if it is in the
    /// scope: answered by [`FromWorker::ShareWritten`], its buffer holding the share's payload,
    /// or the scope as Markdown if `markdown`.
    ShareWrite { id: u64, keep: Vec<bool>, parts: DropParts, selected: Option<String>, markdown: bool },
}

/// What a worker tells the page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FromWorker {
    /// The worker's code runs and listens.
    Ready,
    /// `done` of `total` bytes are read and parsed; `path` is the file being read.
    Progress { done: f64, total: f64, path: String },
    /// The first part of a big load, as a model of its own, to show while the rest loads: the
    /// envelope's buffers hold the model, then the bytes read of each file.
    Preview { timings: PreviewTimings },
    /// Every file is parsed; the graph is being built.
    Building,
    /// The model, in the envelope's first buffer, without the bytes of the files given (the page
    /// reads those itself meanwhile); the buffers after it hold the bytes of the files the loader
    /// made (the record stream of OpenCode storage files, [`sessionscope_engine::model::FileInfo::sources`]),
    /// which come after the given ones in the model.
    Done { timings: LoadTimings },
    /// Search `id`'s hits in the next entries: `count` matches (`hits` holds fewer when a
    /// field matches many times); `done` when the last entries were searched.
    Hits { id: u64, count: u64, done: bool, hits: Vec<Hit> },
    /// The sessions of unit `unit` of a history, and its files that hold none; `bytes` were read.
    /// When every file was read whole, the envelope's one buffer holds the unit's
    /// [`sessionscope_engine::trigrams::TrigramSet`], made from the files as `read` stamps them
    /// (a search skips the unit if its set rules the query out and its files are still those).
    Indexed { unit: u32, index: UnitIndex, bytes: f64, read: Vec<FileStamp> },
    /// The hits of a unit's search (at most [`sessionscope_engine::history::HITS_PER_UNIT`]),
    /// `count` matches counted, all of them if `complete` (the search stops at that many hits);
    /// `bytes` were read. `query_error`: the query is not a valid regular expression, and why
    /// (the page has no regular expressions to tell before it asks).
    UnitHits {
        unit: u32,
        hits: Vec<HistoryHit>,
        count: u64,
        complete: bool,
        bytes: f64,
        #[serde(default)]
        query_error: Option<String>,
    },
    /// A database's record stream, in the envelope's one buffer, and what the reader notes
    /// about it (a write-ahead log read, or missing).
    Database { notes: Vec<String> },
    /// The followed session as read so far: the envelope's buffers hold the model, then the
    /// bytes of each of its files.
    Followed,
    /// The byte ranges of the matches in each text of [`ToWorker::Matches`] `id`.
    Matches { id: u64, ranges: Vec<Vec<(u32, u32)>> },
    /// Share scan `id` has scanned `done` of the scope's `total` lines.
    ShareProgress { id: u64, done: usize, total: usize },
    /// Share scan `id` is done: its findings.
    ShareScanned { id: u64, report: ScanReport },
    /// The redacted scope of [`ToWorker::ShareWrite`] `id`, in the envelope's one buffer, and
    /// its header.
    ShareWritten { id: u64, header: BundleHeader },
    /// Request `id` failed: why.
    Failed { id: u64, message: String },
    /// A request failed, or could not be read.
    Error { message: String },
}

/// Where the time of a load went, in the worker (logged by the page for the benchmarks).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LoadTimings {
    pub waiting_for_reads_ms: f64,
    pub parse_ms: f64,
    pub read_and_parse_ms: f64,
    pub graph_ms: f64,
    pub encode_ms: f64,
}

/// When the preview was sent, and what building it took.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PreviewTimings {
    pub read_and_parse_ms: f64,
    /// Of which waiting for the file's bytes, and parsing them.
    pub waiting_for_reads_ms: f64,
    pub parse_ms: f64,
    pub preview_ms: f64,
}

/// A message with the JS values that travel beside it.
pub struct Envelope<M> {
    pub message: M,
    pub files: Vec<web_sys::File>,
    pub buffers: Vec<ArrayBuffer>,
}

/// The envelope as it is posted.
#[derive(Serialize, Deserialize)]
struct Wire<M> {
    message: M,
    #[serde(with = "serde_wasm_bindgen::preserve")]
    files: Array,
    #[serde(with = "serde_wasm_bindgen::preserve")]
    buffers: Array,
}

impl<M> Envelope<M> {
    /// A message alone.
    pub fn new(message: M) -> Envelope<M> {
        Envelope { message, files: Vec::new(), buffers: Vec::new() }
    }

    pub fn with_files(self, files: Vec<web_sys::File>) -> Envelope<M> {
        Envelope { files, ..self }
    }

    pub fn with_buffers(self, buffers: Vec<ArrayBuffer>) -> Envelope<M> {
        Envelope { buffers, ..self }
    }
}

impl<M: Serialize> Envelope<M> {
    /// The envelope ready to post, with its buffers to transfer.
    pub fn encode(&self) -> Result<Encoded, String> {
        let files: Array = self.files.iter().collect();
        let buffers: Array = self.buffers.iter().collect();
        let wire = Wire { message: &self.message, files, buffers: buffers.clone() };
        let value = serde_wasm_bindgen::to_value(&wire).map_err(|e| format!("a message could not be encoded: {e}"))?;
        Ok(Encoded { value, transfer: buffers })
    }
}

impl<M: DeserializeOwned> Envelope<M> {
    /// The envelope of a posted message, or why it cannot be read.
    pub fn decode(data: JsValue) -> Result<Envelope<M>, String> {
        let wire: Wire<M> =
            serde_wasm_bindgen::from_value(data).map_err(|e| format!("a message could not be read: {e}"))?;
        let files = wire.files.iter().map(|f| f.dyn_into::<web_sys::File>()).collect::<Result<Vec<_>, _>>();
        let buffers = wire.buffers.iter().map(|b| b.dyn_into::<ArrayBuffer>()).collect::<Result<Vec<_>, _>>();
        match (files, buffers) {
            (Ok(files), Ok(buffers)) => Ok(Envelope { message: wire.message, files, buffers }),
            (Err(_), _) => Err("a message could not be read: its files are not all files".to_owned()),
            (_, Err(_)) => Err("a message could not be read: its buffers are not all buffers".to_owned()),
        }
    }
}

/// An envelope as a JS value, and the buffers posting it transfers.
pub struct Encoded {
    value: JsValue,
    transfer: Array,
}

impl Encoded {
    pub fn post_to(&self, port: &impl Port) -> Result<(), String> {
        port.post(&self.value, &self.transfer).map_err(|_| "a message could not be posted".to_owned())
    }
}

/// Where envelopes go: a worker (from the page), or the worker's own scope (to the page).
pub trait Port {
    fn post(&self, value: &JsValue, transfer: &Array) -> Result<(), JsValue>;
}

impl Port for web_sys::Worker {
    fn post(&self, value: &JsValue, transfer: &Array) -> Result<(), JsValue> {
        self.post_message_with_transfer(value, transfer)
    }
}

impl Port for web_sys::DedicatedWorkerGlobalScope {
    fn post(&self, value: &JsValue, transfer: &Array) -> Result<(), JsValue> {
        self.post_message_with_transfer(value, transfer)
    }
}

/// Encodes and posts an envelope.
pub fn post<M: Serialize>(port: &impl Port, envelope: &Envelope<M>) -> Result<(), String> {
    envelope.encode()?.post_to(port)
}

/// Posts a message that has nothing beside it.
pub fn send<M: Serialize>(port: &impl Port, message: M) -> Result<(), String> {
    post(port, &Envelope::new(message))
}

/// Bytes copied into a new buffer, to transfer.
pub fn buffer_of(bytes: &[u8]) -> ArrayBuffer {
    let array = Uint8Array::new_with_length(bytes.len() as u32);
    array.copy_from(bytes);
    array.buffer()
}

/// A received buffer's bytes, copied into wasm memory.
pub fn bytes_of(buffer: &ArrayBuffer) -> Vec<u8> {
    Uint8Array::new(buffer).to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;
    use sessionscope_engine::model::{BlockId, EntryId};
    use sessionscope_engine::search::Field;

    /// Every message, once.
    fn every_message() -> (Vec<ToWorker>, Vec<FromWorker>) {
        let to = vec![
            ToWorker::WarmUp,
            ToWorker::Rest { ms: 800.0 },
            ToWorker::Load { paths: vec!["a/b.jsonl".into(), "c.jsonl".into()], slice: 8 << 20, preview: true },
            ToWorker::SearchInit,
            ToWorker::Search { id: 7, query: "src/\\w+\\.rs".into(), regex: true },
            ToWorker::OpenDatabase { path: "opencode/opencode.db".into(), looked_for_wal: true },
            ToWorker::FollowAdd { path: "p/s.jsonl".into(), size: 2048.0 },
            ToWorker::FollowPush { file: 1 },
            ToWorker::FollowSnapshot,
            ToWorker::Matches { id: 8, query: "cargo".into(), regex: false, texts: vec!["cargo test".into()] },
            ToWorker::ShareScan {
                id: 9,
                scope: Scope::Range { from: EntryId::new(1), to: EntryId::new(4), choices: vec![(EntryId::new(2), 1)] },
                without_agents: true,
                options: DetectOptions { user_patterns: vec!["acme-\\d+".into()], ..DetectOptions::default() },
            },
            ToWorker::ShareWrite {
                id: 10,
                keep: vec![true, false],
                parts: DropParts { thinking: true, ..DropParts::default() },
                selected: Some("1a2252ee".into()),
                markdown: false,
            },
        ];
        let hit = Hit {
            entry: EntryId::new(3),
            field: Field::ToolInput,
            block: BlockId::NONE,
            context: "… cargo test …".into(),
            match_start: 2,
            match_len: 10,
        };
        let from = vec![
            FromWorker::Ready,
            FromWorker::Progress { done: 1024.0, total: 4096.0, path: "b.jsonl".into() },
            FromWorker::Preview {
                timings: PreviewTimings { read_and_parse_ms: 12.5, preview_ms: 3.0, ..Default::default() },
            },
            FromWorker::Building,
            FromWorker::Done {
                timings: LoadTimings {
                    waiting_for_reads_ms: 1.0,
                    parse_ms: 2.0,
                    read_and_parse_ms: 3.0,
                    graph_ms: 4.0,
                    encode_ms: 5.0,
                },
            },
            FromWorker::Hits { id: 7, count: 41, done: false, hits: vec![hit.clone(), hit] },
            FromWorker::Database { notes: vec!["a write-ahead log beside it was read".into()] },
            FromWorker::Followed,
            FromWorker::Matches { id: 8, ranges: vec![vec![(0, 5)], vec![]] },
            FromWorker::ShareProgress { id: 9, done: 10, total: 40 },
            FromWorker::ShareScanned {
                id: 9,
                report: ScanReport {
                    findings: vec![crate::sharing::scan::FindingRow {
                        index: 0,
                        kind: "email".into(),
                        label: "Email address".into(),
                        placeholder: "[REDACTED:email#1]".into(),
                        secret: "alice@example.com".into(),
                        count: 2,
                        keep: false,
                        context: "line 3, text: …mail [REDACTED:email#1] now…".into(),
                    }],
                    lines: 40,
                    bytes: 4096,
                },
            },
            FromWorker::ShareWritten { id: 10, header: BundleHeader { title: "t".into(), ..BundleHeader::default() } },
            FromWorker::Failed { id: 8, message: "not a valid regular expression".into() },
            FromWorker::Error { message: "b.jsonl could not be read".into() },
        ];
        (to, from)
    }

    #[test]
    fn every_message_survives_the_round_trip() {
        let (to, from) = every_message();
        for message in to {
            let value = serde_json::to_value(&message).unwrap();
            assert_eq!(serde_json::from_value::<ToWorker>(value).unwrap(), message);
        }
        for message in from {
            let value = serde_json::to_value(&message).unwrap();
            assert_eq!(serde_json::from_value::<FromWorker>(value).unwrap(), message);
        }
    }

    #[test]
    fn the_kind_names_each_message() {
        let (to, from) = every_message();
        // A message without fields is its name; any other is an object whose one key names it.
        let kinds = |values: Vec<serde_json::Value>| -> Vec<String> {
            values
                .iter()
                .map(|v| match v {
                    serde_json::Value::String(name) => name.clone(),
                    serde_json::Value::Object(fields) if fields.len() == 1 => fields.keys().next().unwrap().clone(),
                    other => panic!("not a message: {other}"),
                })
                .collect()
        };
        let to: Vec<serde_json::Value> = to.iter().map(|m| serde_json::to_value(m).unwrap()).collect();
        assert_eq!(to[2]["load"]["paths"][1], "c.jsonl", "the fields are under the name");
        let to = kinds(to);
        assert_eq!(
            to,
            [
                "warm-up",
                "rest",
                "load",
                "search-init",
                "search",
                "open-database",
                "follow-add",
                "follow-push",
                "follow-snapshot",
                "matches",
                "share-scan",
                "share-write"
            ]
        );
        let from = kinds(from.iter().map(|m| serde_json::to_value(m).unwrap()).collect());
        assert_eq!(
            from,
            [
                "ready",
                "progress",
                "preview",
                "building",
                "done",
                "hits",
                "database",
                "followed",
                "matches",
                "share-progress",
                "share-scanned",
                "share-written",
                "failed",
                "error"
            ]
        );
    }

    #[test]
    fn an_unknown_or_malformed_message_is_an_error() {
        for text in [
            r#""launch""#,
            r#"{"launch":null}"#,
            r#"{"paths":["a.jsonl"],"slice":1,"preview":false}"#,
            r#""load""#,
            r#"{"load":{"paths":"a.jsonl","slice":1,"preview":false}}"#,
            r#"{"load":{"paths":["a.jsonl"],"slice":1,"preview":false},"rest":{"ms":1}}"#,
            r#"{"search":{"id":-1,"query":"x","regex":false}}"#,
            r#"{"progress":{"done":"x","total":1,"path":"a"}}"#,
            r#"42"#,
            r#"null"#,
        ] {
            assert!(serde_json::from_str::<ToWorker>(text).is_err(), "{text}");
            assert!(serde_json::from_str::<FromWorker>(text).is_err(), "{text}");
        }
        assert!(serde_json::from_str::<FromWorker>(r#"{"hits":{"id":1,"count":1,"done":true}}"#).is_err());
        // The names are those of the messages, in kebab case.
        assert_eq!(serde_json::from_str::<FromWorker>(r#""ready""#).unwrap(), FromWorker::Ready);
        assert!(serde_json::from_str::<ToWorker>(r#""WarmUp""#).is_err());
    }
}
