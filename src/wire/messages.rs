//! The messages between the page and its workers, typed: [`ToWorker`] from the page,
//! [`FromWorker`] back, each travelling in a [`super::Parcel`]. Every worker is the same program
//! (`src/bin/worker.rs`, see `crate::worker`), given one role at a time, and each role has one
//! request enum and one reply enum:
//!
//! | role | requests | replies | the page's side |
//! | --- | --- | --- | --- |
//! | warm-up | [`WarmUpRequest`] | none | `client::workers` (the spare worker) |
//! | load | [`LoadRequest`] | [`LoadReply`] | `client::load_job` |
//! | session | [`SessionRequest`] | [`SessionReply`] | `client::session_worker` |
//! | unit (a history's) | [`UnitRequest`] | [`UnitReply`] | `client::pool` |
//! | database | [`DatabaseRequest`] | [`DatabaseReply`] | `client::databases` |
//! | follow | [`FollowRequest`] | [`FollowReply`] | `client::follow_worker` |
//! | insights (a history's) | [`InsightsRequest`] | [`InsightsReply`] | `client::insights_worker` |
//!
//! The conversation: the worker says [`FromWorker::Ready`] once its code runs (anything posted
//! before is lost, so the page's handle holds requests until then). Every request carries an id
//! ([`super::RequestId`]); its replies carry the same id, one or several (a load's progress, a
//! search's hits step by step), and a request that fails is answered [`FromWorker::Error`] under
//! its id. A request the worker cannot read is answered with an error too, under the id it
//! carries if that can be read, else under none. A load is answered by [`LoadReply::Progress`]
//! after every slice, for big loads once [`LoadReply::Preview`], then [`LoadReply::Building`]
//! and [`LoadReply::Done`]. The session's worker gets [`SessionRequest::Keep`] first (the page's
//! model), then searches, matches and share scans on it. A history's worker gets one unit after
//! another, each answered by one [`UnitReply`]. A worker that opens databases gets one
//! [`DatabaseRequest`] after another. A followed session's worker keeps a loader between requests.

use serde::{Deserialize, Serialize};
use sessionscope_engine::history::{HistoryHit, UnitIndex};
use sessionscope_engine::history_cache::FileStamp;
use sessionscope_engine::model::Start;
use sessionscope_engine::redact::{DetectOptions, DropParts};
use sessionscope_engine::search::Hit;
use sessionscope_engine::share::bundle::BundleHeader;
use sessionscope_engine::share::scope::Scope;

use super::insights::{ChangeDiff, InsightsReply, InsightsRequest};
use super::query::SearchQuery;
use super::share_report::ScanReport;
use super::word_search::{WordsReply, WordsRequest};

/// What the page asks of a worker: a request of one of its roles.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ToWorker {
    WarmUp(WarmUpRequest),
    Load(LoadRequest),
    Session(SessionRequest),
    Unit(UnitRequest),
    Database(DatabaseRequest),
    Follow(FollowRequest),
    Insights(InsightsRequest),
    Words(WordsRequest),
}

/// What a worker tells the page: that it runs, a reply of one of its roles, or why a request
/// failed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FromWorker {
    /// The worker's code runs and listens.
    Ready,
    Load(LoadReply),
    Session(SessionReply),
    Unit(UnitReply),
    Database(DatabaseReply),
    Follow(FollowReply),
    Insights(InsightsReply),
    Words(WordsReply),
    /// The request failed, or could not be read: why, in words for the user.
    Error {
        message: String,
    },
}

/// The spare worker, started ahead of time, while it waits for its role.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WarmUpRequest {
    /// Run the whole pipeline on the bundled example a number of times, so the browser has
    /// optimised the hot code before the first real file arrives. Any request of another role
    /// stops it.
    Start,
    /// The page is busy for about `ms` milliseconds (it opens the example itself): a warm-up
    /// running waits that long before its next round, leaving the CPU to the page.
    Rest { ms: f64 },
}

/// Read, parse and build the files of the parcel: `paths[i]` names `files[i]`. `slice`: bytes
/// read at a time; `preview`: the page shows the first part of a big load.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LoadRequest {
    pub paths: Vec<String>,
    pub slice: usize,
    pub preview: bool,
    /// Where each file's bytes start in the whole file, for a part of a file too big to show
    /// whole (the file given is that part): the lines before are left out. Empty: all from
    /// their beginning.
    #[serde(default)]
    pub starts: Vec<Start>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LoadReply {
    /// `done` of `total` bytes are read and parsed; `path` is the file being read.
    Progress { done: f64, total: f64, path: String },
    /// The first part of a big load, as a model of its own, to show while the rest loads: the
    /// parcel's buffers hold the model, then the bytes read of each file.
    Preview { timings: PreviewTimings },
    /// Every file is parsed; the graph is being built.
    Building,
    /// The model, in the parcel's first buffer, without the bytes of the files given (the page
    /// reads those itself meanwhile); the buffers after it hold the bytes of the files the loader
    /// made (the record stream of OpenCode storage files,
    /// [`sessionscope_engine::model::FileInfo::sources`]), which come after the given ones in
    /// the model.
    Done { timings: LoadTimings },
}

/// The open session's worker: it keeps a copy of the page's model, to search and share it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SessionRequest {
    /// Keep the open session's model: the parcel's buffers hold the model (as
    /// [`super::codec::model_buffer`] makes it), then the bytes of each of its files whose
    /// `read_from_files` is `None`. The others (a big session's) come as the parcel's files, in
    /// order, with the bytes of each the page holds (its first part, for a file bigger than a
    /// load holds): the worker reads them a window at a time as it searches, and whole only to
    /// share. Such a model comes without its graph, which the worker builds to share.
    Keep { read_from_files: Vec<Option<f64>> },
    /// Search the kept model, answering [`SessionReply::Hits`] step by step. A newer search stops
    /// an older one.
    Search { query: SearchQuery },
    /// Find the query's matches in each of `texts` (the text of a row the page draws, to
    /// highlight them), answering [`SessionReply::Matches`].
    Matches { query: SearchQuery, texts: Vec<String> },
    /// Scan what `scope` covers of the kept model for secrets and personal data, with the
    /// detectors `options` turns on (and agents' conversations left out if `without_agents`),
    /// answering [`SessionReply::ShareProgress`] between slices, then
    /// [`SessionReply::ShareScanned`]. The worker keeps the newest scan for
    /// [`SessionRequest::ShareWrite`]; a newer one stops an older.
    ShareScan { scope: Scope, without_agents: bool, options: DetectOptions },
    /// Write the kept scan's scope redacted, each finding kept visible where `keep` says so,
    /// with `parts` left out, and `selected` (a message's uuid) to show first if it is in the
    /// scope: answered by [`SessionReply::ShareWritten`], its buffer holding the share's payload,
    /// or the scope as Markdown if `markdown`.
    ShareWrite { keep: Vec<bool>, parts: DropParts, selected: Option<String>, markdown: bool },
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SessionReply {
    /// A search's hits in the next entries: `count` matches (`hits` holds fewer when a field
    /// matches many times); `done` when the last entries were searched.
    Hits { count: u64, done: bool, hits: Vec<Hit> },
    /// The byte ranges of the matches in each text of [`SessionRequest::Matches`].
    Matches { ranges: Vec<Vec<(u32, u32)>> },
    /// The scan has scanned `done` of the scope's `total` lines.
    ShareProgress { done: usize, total: usize },
    /// The scan is done: its findings.
    ShareScanned { report: ScanReport },
    /// The redacted scope, in the parcel's one buffer, and its header.
    ShareWritten { header: BundleHeader },
}

/// One session unit of a history: its files are `files[i]` of the parcel, named `paths[i]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum UnitRequest {
    /// Read the unit's files, answer its [`UnitReply::Indexed`] row and let the bytes go.
    /// `folder` is the unit's folder, which names the project of sessions that name no working
    /// directory.
    Index { folder: String, paths: Vec<String> },
    /// Search the unit's files, answering [`UnitReply::Hits`].
    Search { paths: Vec<String>, query: SearchQuery },
    /// Read the unit's files again for the diffs of the changes to `file` made by the calls on
    /// the lines `entries` (the index kept their counts only), answering
    /// [`UnitReply::ChangeDiffs`].
    ChangeDiffs { paths: Vec<String>, entries: Vec<String>, file: String },
}

/// The buffers of a [`UnitReply::Indexed`] parcel, in the one order both ends read them:
/// the unit's insights (with `insights`), then, for a unit read whole (its `read` stamps are not
/// empty), its trigram set and its rows and word index. Generic over the buffer, so the worker
/// and the page share the order without sharing a buffer type.
pub struct IndexedBuffers<T> {
    pub insights: Option<T>,
    pub trigrams: Option<T>,
    pub words: Option<T>,
}

impl<T> IndexedBuffers<T> {
    /// The parcel's buffers, in order; a unit read whole sends both its trigrams and its words.
    pub fn into_parcel(self) -> Vec<T> {
        [self.insights, self.trigrams, self.words].into_iter().flatten().collect()
    }
}

impl<T: Clone> IndexedBuffers<T> {
    /// The buffers of a parcel that answered `Indexed { read, insights, .. }`; a buffer it
    /// should hold and does not is `None`.
    pub fn received(read: &[FileStamp], insights: bool, buffers: &[T]) -> Self {
        let mut rest = buffers.iter().cloned();
        let insights = if insights { rest.next() } else { None };
        let (trigrams, words) = if read.is_empty() { (None, None) } else { (rest.next(), rest.next()) };
        IndexedBuffers { insights, trigrams, words }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum UnitReply {
    /// The unit's sessions, and its files that hold none; `bytes` were read. Its parcel's
    /// buffers are [`IndexedBuffers`]: with `insights`, the unit's
    /// [`sessionscope_engine::insights::UnitInsights`] (as `UnitInsights::encode` makes them);
    /// when every file was read whole, its [`sessionscope_engine::trigrams::TrigramSet`], made
    /// from the files as `read` stamps them (a search skips the unit if its set rules the query
    /// out and its files are still those), and its rows and word index
    /// ([`crate::wire::word_search::searchable_bytes`]), for the ranked search.
    Indexed {
        index: UnitIndex,
        bytes: f64,
        read: Vec<FileStamp>,
        #[serde(default)]
        insights: bool,
    },
    /// The diffs of the changes asked for, drawn, in the order of the unit's calls.
    ChangeDiffs { diffs: Vec<ChangeDiff> },
    /// The unit's hits (at most [`sessionscope_engine::history::HITS_PER_UNIT`]), `count` matches
    /// counted, all of them if `complete` (the search stops at that many hits); `bytes` were
    /// read. `query_error`: the query is not a valid regular expression, and why (the page has
    /// no regular expressions to tell before it asks).
    Hits {
        hits: Vec<HistoryHit>,
        count: u64,
        complete: bool,
        bytes: f64,
        #[serde(default)]
        query_error: Option<String>,
    },
}

/// Open the agent database at `path` (the parcel's first file; its write-ahead log, if given,
/// the second) and answer its record stream. `looked_for_wal`: it came from a folder, where a log
/// beside it would have come too.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DatabaseRequest {
    pub path: String,
    pub looked_for_wal: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DatabaseReply {
    /// The database's record stream, in the parcel's one buffer, and what the reader notes about
    /// it (a write-ahead log read, or missing).
    Opened { notes: Vec<String> },
}

/// A followed session, kept in a loader between requests. These are answered in the order
/// posted.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FollowRequest {
    /// Add a file to the session: `path`, and its `size` when it was first seen. Files are
    /// numbered in the order added.
    Add { path: String, size: f64 },
    /// Parse the next bytes of file `file`: the parcel's one buffer.
    Push { file: u32 },
    /// Answer the session as read so far ([`FollowReply::Snapshot`]); a last line still being
    /// written waits for its newline.
    Snapshot,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FollowReply {
    /// The session as read so far: the parcel's buffers hold the model, then the bytes of each of
    /// its files.
    Snapshot,
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

#[cfg(test)]
mod tests {
    use super::*;
    use sessionscope_engine::model::{BlockId, EntryId};
    use sessionscope_engine::search::Field;

    /// The worker's order of an `Indexed` parcel's buffers is the order the page reads.
    #[test]
    fn an_indexed_parcel_s_buffers_read_back_in_their_order() {
        let stamp = FileStamp { path: "a.jsonl".into(), size: 3, modified_ms: 1 };
        let whole = IndexedBuffers { insights: Some("insights"), trigrams: Some("trigrams"), words: Some("words") };
        let parcel = whole.into_parcel();
        assert_eq!(parcel, ["insights", "trigrams", "words"]);
        let read = IndexedBuffers::received(std::slice::from_ref(&stamp), true, &parcel);
        assert_eq!((read.insights, read.trigrams, read.words), (Some("insights"), Some("trigrams"), Some("words")));
        // A unit not read whole sends its insights alone, and its stamps are none.
        let part = IndexedBuffers { insights: Some("insights"), trigrams: None, words: None }.into_parcel();
        let read = IndexedBuffers::received(&[], true, &part);
        assert_eq!((read.insights, read.trigrams, read.words), (Some("insights"), None, None));
        // A unit that failed sends nothing.
        let read = IndexedBuffers::<&str>::received(&[], false, &[]);
        assert_eq!((read.insights, read.trigrams, read.words), (None, None, None));
    }

    /// Every message, once.
    fn every_message() -> (Vec<ToWorker>, Vec<FromWorker>) {
        let query = SearchQuery::new("src/\\w+\\.rs", true);
        let to = vec![
            ToWorker::WarmUp(WarmUpRequest::Start),
            ToWorker::WarmUp(WarmUpRequest::Rest { ms: 800.0 }),
            ToWorker::Load(LoadRequest {
                paths: vec!["a/b.jsonl".into(), "c.jsonl".into()],
                slice: 8 << 20,
                preview: true,
                starts: vec![Start { offset: 3_000_000_000, line: 612_433 }, Start::BEGINNING],
            }),
            ToWorker::Session(SessionRequest::Keep { read_from_files: vec![Some(3e8), None] }),
            ToWorker::Session(SessionRequest::Search { query: query.clone() }),
            ToWorker::Session(SessionRequest::Matches {
                query: SearchQuery::new("cargo", false),
                texts: vec!["cargo test".into()],
            }),
            ToWorker::Session(SessionRequest::ShareScan {
                scope: Scope::Range { from: EntryId::new(1), to: EntryId::new(4), choices: vec![(EntryId::new(2), 1)] },
                without_agents: true,
                options: DetectOptions { user_patterns: vec!["acme-\\d+".into()], ..DetectOptions::default() },
            }),
            ToWorker::Session(SessionRequest::ShareWrite {
                keep: vec![true, false],
                parts: DropParts { thinking: true, ..DropParts::default() },
                selected: Some("1a2252ee".into()),
                markdown: false,
            }),
            ToWorker::Unit(UnitRequest::Index { folder: "p".into(), paths: vec!["p/s.jsonl".into()] }),
            ToWorker::Unit(UnitRequest::Search { paths: vec!["p/s.jsonl".into()], query }),
            ToWorker::Unit(UnitRequest::ChangeDiffs {
                paths: vec!["p/s.jsonl".into()],
                entries: vec!["a1".into()],
                file: "src/lib.rs".into(),
            }),
            ToWorker::Insights(InsightsRequest::Keep { unit: 3 }),
            ToWorker::Insights(InsightsRequest::Prepare),
            ToWorker::Insights(InsightsRequest::Files {
                query: crate::wire::insights::FileQuery {
                    text: "auth".into(),
                    project: Some("/work/app".into()),
                    changed_only: true,
                    order: crate::wire::insights::FileOrder::Sessions,
                },
                from: 40,
                count: 20,
                active: Some(41),
            }),
            ToWorker::Insights(InsightsRequest::Activity {
                metric: crate::wire::insights::CalendarMetric::Tokens,
                measure: crate::wire::insights::UsageMeasure::Cost,
                blocks: 20,
            }),
            ToWorker::Insights(InsightsRequest::Encode {
                units: vec![(2, vec![FileStamp { path: "p/s.jsonl".into(), size: 9, modified_ms: 1 }])],
            }),
            ToWorker::Database(DatabaseRequest { path: "opencode/opencode.db".into(), looked_for_wal: true }),
            ToWorker::Follow(FollowRequest::Add { path: "p/s.jsonl".into(), size: 2048.0 }),
            ToWorker::Follow(FollowRequest::Push { file: 1 }),
            ToWorker::Follow(FollowRequest::Snapshot),
        ];
        let hit = Hit {
            entry: EntryId::new(3),
            field: Field::ToolInput,
            block: BlockId::NONE,
            context: "… cargo test …".into(),
            match_start: 2,
            match_len: 10,
            source: None,
        };
        let from = vec![
            FromWorker::Ready,
            FromWorker::Load(LoadReply::Progress { done: 1024.0, total: 4096.0, path: "b.jsonl".into() }),
            FromWorker::Load(LoadReply::Preview {
                timings: PreviewTimings { read_and_parse_ms: 12.5, preview_ms: 3.0, ..Default::default() },
            }),
            FromWorker::Load(LoadReply::Building),
            FromWorker::Load(LoadReply::Done {
                timings: LoadTimings {
                    waiting_for_reads_ms: 1.0,
                    parse_ms: 2.0,
                    read_and_parse_ms: 3.0,
                    graph_ms: 4.0,
                    encode_ms: 5.0,
                },
            }),
            FromWorker::Session(SessionReply::Hits { count: 41, done: false, hits: vec![hit.clone(), hit] }),
            FromWorker::Session(SessionReply::Matches { ranges: vec![vec![(0, 5)], vec![]] }),
            FromWorker::Session(SessionReply::ShareProgress { done: 10, total: 40 }),
            FromWorker::Session(SessionReply::ShareScanned {
                report: ScanReport {
                    findings: vec![crate::wire::share_report::FindingRow {
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
            }),
            FromWorker::Session(SessionReply::ShareWritten {
                header: BundleHeader { title: "t".into(), ..BundleHeader::default() },
            }),
            FromWorker::Unit(UnitReply::Indexed {
                index: UnitIndex::default(),
                bytes: 10.0,
                read: Vec::new(),
                insights: true,
            }),
            FromWorker::Unit(UnitReply::ChangeDiffs {
                diffs: vec![ChangeDiff { entry: "a1".into(), html: "<div class=\"diff\"></div>".into() }],
            }),
            FromWorker::Insights(InsightsReply::FileRows {
                html: "<li></li>".into(),
                total: 1,
                all: 4,
                projects: vec!["/work/app".into()],
            }),
            FromWorker::Insights(InsightsReply::FilePage {
                html: String::new(),
                read: vec![(0, vec!["a1".into()])],
                changes: 1,
            }),
            FromWorker::Unit(UnitReply::Hits {
                hits: Vec::new(),
                count: 0,
                complete: true,
                bytes: 0.0,
                query_error: Some("not a valid regular expression".into()),
            }),
            FromWorker::Database(DatabaseReply::Opened { notes: vec!["a write-ahead log beside it was read".into()] }),
            FromWorker::Follow(FollowReply::Snapshot),
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

    /// The names of a message: its role's, then its own. A message without fields is its name;
    /// any other is an object whose one key names it and holds its fields.
    fn names(value: &serde_json::Value) -> String {
        let serde_json::Value::Object(fields) = value else {
            return value.as_str().map(str::to_owned).unwrap_or_else(|| panic!("not a message: {value}"));
        };
        assert_eq!(fields.len(), 1, "one name: {value}");
        let (role, inner) = fields.iter().next().unwrap();
        match inner {
            serde_json::Value::String(name) => format!("{role} {name}"),
            serde_json::Value::Object(inner) if inner.len() == 1 && inner.values().all(|v| v.is_object()) => {
                format!("{role} {}", inner.keys().next().unwrap())
            }
            _ => role.clone(),
        }
    }

    #[test]
    fn the_names_say_the_role_then_the_message() {
        let (to, from) = every_message();
        let to: Vec<serde_json::Value> = to.iter().map(|m| serde_json::to_value(m).unwrap()).collect();
        assert_eq!(to[2]["load"]["paths"][1], "c.jsonl", "a role of one request holds its fields");
        assert_eq!(to[4]["session"]["search"]["query"]["text"], "src/\\w+\\.rs", "the fields are under the names");
        let to: Vec<String> = to.iter().map(names).collect();
        assert_eq!(
            to,
            [
                "warm-up start",
                "warm-up rest",
                "load",
                "session keep",
                "session search",
                "session matches",
                "session share-scan",
                "session share-write",
                "unit index",
                "unit search",
                "unit change-diffs",
                "insights keep",
                "insights prepare",
                "insights files",
                "insights activity",
                "insights encode",
                "database",
                "follow add",
                "follow push",
                "follow snapshot"
            ]
        );
        let from: Vec<String> = from.iter().map(|m| names(&serde_json::to_value(m).unwrap())).collect();
        assert_eq!(
            from,
            [
                "ready",
                "load progress",
                "load preview",
                "load building",
                "load done",
                "session hits",
                "session matches",
                "session share-progress",
                "session share-scanned",
                "session share-written",
                "unit indexed",
                "unit change-diffs",
                "insights file-rows",
                "insights file-page",
                "unit hits",
                "database opened",
                "follow snapshot",
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
            r#"{"load":{"paths":["a.jsonl"],"slice":1,"preview":false},"warm-up":"start"}"#,
            r#"{"search":{"id":7,"query":"x","regex":false}}"#,
            r#"{"session":{"search":{"query":"x"}}}"#,
            r#"{"load":{"progress":{"done":"x","total":1,"path":"a"}}}"#,
            r#"42"#,
            r#"null"#,
        ] {
            assert!(serde_json::from_str::<ToWorker>(text).is_err(), "{text}");
            assert!(serde_json::from_str::<FromWorker>(text).is_err(), "{text}");
        }
        assert!(
            serde_json::from_str::<FromWorker>(r#"{"session":{"hits":{"count":1,"done":true}}}"#).is_err(),
            "a missing field"
        );
        // The names are those of the messages, in kebab case.
        assert_eq!(serde_json::from_str::<FromWorker>(r#""ready""#).unwrap(), FromWorker::Ready);
        assert!(serde_json::from_str::<ToWorker>(r#"{"warm-up":"Start"}"#).is_err());
    }
}
