//! OpenCode's older JSON storage: before its SQLite database (`opencode.db`), OpenCode kept the
//! same records as JSON files, one record per file, under `~/.local/share/opencode/storage/`:
//!
//! - `session/<project id>/<session id>.json`: the session (`id, projectID, parentID, title,
//!   version, directory, time {created, updated}`, ...); a child session (a subagent's) names its
//!   parent in `parentID`;
//! - `message/<session id>/<message id>.json`: a message (`id, sessionID, role, time, modelID,
//!   providerID, tokens, cost, error, ...`);
//! - `part/<message id>/<part id>.json`: a part of a message (`id, sessionID, messageID, type,
//!   ...`: text, reasoning, tool, step-start, step-finish, patch, snapshot, file, agent, ...);
//! - `project/<project id>.json`, `session_diff/<session id>.json`, `todo/<session id>.json`,
//!   `session_share/<session id>.json`: bookkeeping, no conversation.
//!
//! In older versions (0.5.x) the layout was per project: `project/<project>/storage/session/
//! info/<session id>.json`, `.../session/message/<session id>/<message id>.json` and
//! `.../session/part/<session id>/<message id>/<part id>.json`, the records of the same shapes.
//!
//! OpenCode's own migration to its database (`storage/json-migration.ts`) makes a row of each
//! file: the ids from the path, the rest of the record as the row's `data`. This module does the
//! same, into the record stream the database gives ([`crate::import::records`]): each storage file
//! is read whole (a document format: see [`crate::import::is_document`]) into one record line
//! kept in the sink, and once every file is in, [`take_stream`] sorts them as the database's
//! queries do (sessions by time, then each message by time followed by its parts by id) and the
//! loader reads them as one more file, with [`crate::import::opencode`], as it reads a database.
//! Everything downstream (raw lines, search, sharing, the history index) sees OpenCode records.
//!
//! A record line is `{"table":"message","id","session_id","time_created","data":{...},"file":
//! "message/ses_1/msg_1.json"}`: `data` is the file's JSON on one line (its keys in their order),
//! `file` the path below the storage folder. A file that is not valid JSON, not an object, or
//! neither a session, a message nor a part is a diagnostic of its own, with the reason, and makes
//! no record.

use serde::Deserialize;
use serde::de::IgnoredAny;

use rustc_hash::FxHashMap;

use crate::import::{DocRecord, Failure, LineOutcome, Sink};
use crate::json::{LNum, LStr, lenient};
use crate::model::{DiagnosticKind, FileId};

/// What a storage file holds.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    Session,
    Message,
    Part,
    /// A project's info, a session's diffs, todos or share: no conversation.
    Other,
}

/// Where a storage file lies, from its path alone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoragePath {
    /// The path up to and with the `storage` folder.
    pub root: String,
    /// The file's path below the root.
    pub below: String,
    pub kind: Kind,
    /// The project the path names: a session's folder, or in 0.5.x the `project/<project>/`
    /// folder above `storage`.
    pub project: Option<String>,
    /// The session the path names: a session file's own id, a message's folder, a part's folder
    /// in 0.5.x, a todo's or diff's file name.
    pub session: Option<String>,
    /// A part's message folder.
    pub message: Option<String>,
    /// The file's name without `.json`: the record's id.
    pub id: String,
}

/// Where a path lies in OpenCode's storage, if it is one of its record files.
pub fn place(path: &str) -> Option<StoragePath> {
    // Most paths are no storage record: told apart before the path is cut.
    if !path.ends_with(".json") || !path.contains("storage") {
        return None;
    }
    let parts: Vec<&str> = path.split(['/', '\\']).filter(|p| !p.is_empty()).collect();
    let (name, _) = parts.split_last()?;
    let id = name.strip_suffix(".json").filter(|id| !id.is_empty())?;
    let at = parts.iter().rposition(|p| *p == "storage")?;
    let below = &parts[at + 1..];
    let project_above = (at >= 2 && parts[at - 2] == "project").then(|| parts[at - 1].to_owned());
    let owned = |s: &str| Some(s.to_owned());
    let (kind, project, session, message) = match below {
        ["session", "info", _] => (Kind::Session, project_above, owned(id), None),
        ["session", "message", session, _] => (Kind::Message, project_above, owned(session), None),
        ["session", "part", session, message, _] => (Kind::Part, project_above, owned(session), owned(message)),
        ["session", project, _] if !matches!(*project, "message" | "part") => {
            (Kind::Session, owned(project), owned(id), None)
        }
        ["message", session, _] => (Kind::Message, None, owned(session), None),
        ["part", message, _] => (Kind::Part, None, None, owned(message)),
        ["session_diff" | "todo" | "session_share", _] => (Kind::Other, None, owned(id), None),
        ["project", _] => (Kind::Other, owned(id), None, None),
        _ => return None,
    };
    Some(StoragePath {
        root: parts[..=at].join("/"),
        below: below.join("/"),
        kind,
        project,
        session,
        message,
        id: id.to_owned(),
    })
}

/// Whether a file is one of OpenCode's storage records: a `.json` file in the storage layout
/// ([`place`]; whatever it holds, the importer then says what is wrong with it), or anywhere
/// else an object whose `id` is an OpenCode id with the keys of its kind (`ses_` and `time`,
/// `version` or `projectID`; `msg_` with `role` and `sessionID`; `prt_` with `type` and
/// `messageID`). `text` starts at its first byte that is not whitespace.
pub(crate) fn sniff(text: &[u8], path: &str) -> bool {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    if !name.ends_with(".json") {
        return false;
    }
    if place(path).is_some() {
        return true;
    }
    if text.first() != Some(&b'{') {
        return false;
    }
    let has = |key: &[u8]| memchr::memmem::find(text, key).is_some();
    match id_prefix(text) {
        Some(b"ses_") => has(b"\"time\"") || has(b"\"version\"") || has(b"\"projectID\""),
        Some(b"msg_") => has(b"\"role\"") && has(b"\"sessionID\""),
        Some(b"prt_") => has(b"\"type\"") && has(b"\"messageID\""),
        _ => false,
    }
}

/// The first four bytes of the first `"id": "<value>"` of a JSON text.
fn id_prefix(text: &[u8]) -> Option<&[u8]> {
    let finder = memchr::memmem::Finder::new(b"\"id\"");
    for at in finder.find_iter(text) {
        let rest = &text[at + 4..];
        let rest = trim_start(rest);
        let Some(rest) = rest.strip_prefix(b":") else { continue };
        let rest = trim_start(rest);
        let Some(value) = rest.strip_prefix(b"\"") else { continue };
        return value.get(..4);
    }
    None
}

fn trim_start(mut bytes: &[u8]) -> &[u8] {
    while let [first, rest @ ..] = bytes {
        if !first.is_ascii_whitespace() {
            break;
        }
        bytes = rest;
    }
    bytes
}

/// One storage file, read: what it is, the ids that place it, and its record line (none for a
/// file of bookkeeping).
#[derive(Clone, Debug)]
pub(crate) struct Record {
    file: FileId,
    kind: Kind,
    id: String,
    /// The session it is of (a session's own id); empty when nothing names it (a part whose
    /// message says it).
    session: String,
    /// A part's message.
    message: String,
    /// A session's parent session.
    parent: String,
    /// `time.created`, in milliseconds (`i64::MAX` when absent: such records sort last).
    created: i64,
    /// The storage folder it lies in (empty for a file given alone).
    root: String,
    line: String,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Times {
    created: LNum,
    updated: LNum,
}

/// What places a record, and what a session row holds.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Head<'a> {
    #[serde(borrow)]
    id: LStr<'a>,
    #[serde(rename = "sessionID", borrow)]
    session_id: LStr<'a>,
    #[serde(rename = "messageID", borrow)]
    message_id: LStr<'a>,
    #[serde(rename = "projectID", borrow)]
    project_id: LStr<'a>,
    #[serde(rename = "parentID", borrow)]
    parent_id: LStr<'a>,
    #[serde(borrow)]
    role: LStr<'a>,
    #[serde(rename = "type", borrow)]
    ty: LStr<'a>,
    #[serde(borrow)]
    slug: LStr<'a>,
    #[serde(borrow)]
    directory: LStr<'a>,
    #[serde(borrow)]
    title: LStr<'a>,
    #[serde(borrow)]
    version: LStr<'a>,
    #[serde(deserialize_with = "lenient")]
    time: Times,
}

fn non_empty<'s>(s: &'s LStr) -> Option<&'s str> {
    s.as_deref().filter(|s| !s.is_empty())
}

fn millis(n: LNum) -> Option<i64> {
    n.0.filter(|t| t.is_finite()).map(|t| t as i64)
}

/// Reads one storage file whole (`begin`: where its text starts, after a BOM): its record is
/// kept in the sink for [`take_stream`]. One record covers the whole file.
pub(crate) fn import_document(sink: &mut Sink, bytes: &[Vec<u8>], file: FileId, begin: usize) -> Vec<DocRecord> {
    let file_bytes = bytes.get(file as usize).map(Vec::as_slice).unwrap_or_default();
    let text = file_bytes.get(begin..).and_then(|b| std::str::from_utf8(b).ok()).unwrap_or("");
    let path = sink.corpus.files.get(file as usize).map(|f| f.path.clone()).unwrap_or_default();
    let outcome = match read(text, &path, file) {
        Ok(record) => {
            let outcome = if record.kind == Kind::Message || record.kind == Kind::Part {
                LineOutcome::Entry
            } else {
                LineOutcome::Metadata
            };
            sink.opencode_storage.push(record);
            outcome
        }
        Err(failure) => {
            // A file that makes no record still belongs to the session its place names, whose
            // problems it then counts among.
            if let Some(place) = place(&path) {
                sink.opencode_storage.push(Record {
                    file,
                    kind: place.kind,
                    id: place.id,
                    session: place.session.unwrap_or_default(),
                    message: place.message.unwrap_or_default(),
                    parent: String::new(),
                    created: i64::MAX,
                    root: place.root,
                    line: String::new(),
                });
            }
            LineOutcome::Failed(failure)
        }
    };
    vec![DocRecord { offset: begin, outcome }]
}

fn failed(kind: DiagnosticKind, message: String) -> Failure {
    Failure::new(kind, message)
}

/// A storage file's record, or why it has none.
fn read(text: &str, path: &str, file: FileId) -> Result<Record, Failure> {
    let place = place(path);
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let below = place.as_ref().map_or_else(|| name.to_owned(), |p| p.below.clone());
    let root = place.as_ref().map(|p| p.root.clone()).unwrap_or_default();
    if let Err(error) = serde_json::from_str::<IgnoredAny>(text) {
        let where_ = format!("line {}, column {}", error.line(), error.column());
        let message = if error.classify() == serde_json::error::Category::Eof {
            format!(
                "an OpenCode storage file whose JSON ends early ({where_}): it was cut while being written, and is not read"
            )
        } else {
            let reason = error.to_string();
            let reason = reason.rfind(" at line ").map_or(reason.as_str(), |i| &reason[..i]);
            format!("an OpenCode storage file that is not valid JSON ({where_}: {reason}), not read")
        };
        return Err(failed(DiagnosticKind::InvalidJson, message));
    }
    let other = |session: String| Record {
        file,
        kind: Kind::Other,
        id: String::new(),
        session,
        message: String::new(),
        parent: String::new(),
        created: i64::MAX,
        root: root.clone(),
        line: String::new(),
    };
    if let Some(place) = &place
        && place.kind == Kind::Other
    {
        return Ok(other(place.session.clone().unwrap_or_default()));
    }
    if !text.trim_start().starts_with('{') {
        let shape = serde_json::from_str::<crate::json::Shape>(text).map(|s| s.name()).unwrap_or("value");
        return Err(failed(
            DiagnosticKind::NotAnObject,
            format!("an OpenCode storage file holds one JSON object; this one holds a JSON {shape}"),
        ));
    }
    let head: Head = serde_json::from_str(text).unwrap_or_default();
    let content_id = non_empty(&head.id).unwrap_or("");
    let kind = match &place {
        Some(place) => place.kind,
        None if content_id.starts_with("prt_") || (head.message_id.is_some() && head.ty.is_some()) => Kind::Part,
        None if content_id.starts_with("msg_") || head.role.is_some() => Kind::Message,
        None if content_id.starts_with("ses_")
            || head.title.is_some()
            || head.version.is_some()
            || head.project_id.is_some() =>
        {
            Kind::Session
        }
        None => {
            return Err(failed(
                DiagnosticKind::MissingUuid,
                "a JSON object that is neither an OpenCode session, message nor part (no ses_, msg_ or prt_ id, no \
                 role or type)"
                    .to_owned(),
            ));
        }
    };
    // The ids come from the path where it names them, as OpenCode's own migration takes them.
    let id = place.as_ref().map_or(content_id, |p| p.id.as_str()).to_owned();
    if id.is_empty() {
        return Err(failed(DiagnosticKind::MissingUuid, "an OpenCode storage record without an id".to_owned()));
    }
    let from_path = |f: fn(&StoragePath) -> &Option<String>| place.as_ref().and_then(|p| f(p).clone());
    let data = one_line(text);
    let mut line = String::with_capacity(data.len() + 160);
    let mut record = Record {
        file,
        kind,
        id: id.clone(),
        session: String::new(),
        message: String::new(),
        parent: String::new(),
        created: millis(head.time.created).unwrap_or(i64::MAX),
        root: root.clone(),
        line: String::new(),
    };
    match kind {
        Kind::Session => {
            record.session = id.clone();
            record.parent = non_empty(&head.parent_id).unwrap_or("").to_owned();
            let project = from_path(|p| &p.project).or_else(|| non_empty(&head.project_id).map(str::to_owned));
            begin(&mut line, "session");
            field(&mut line, "id", &id);
            if let Some(project) = project {
                field(&mut line, "project_id", &project);
            }
            if !record.parent.is_empty() {
                field(&mut line, "parent_id", &record.parent);
            }
            for (key, value) in [
                ("slug", &head.slug),
                ("directory", &head.directory),
                ("title", &head.title),
                ("version", &head.version),
            ] {
                if let Some(value) = value.as_deref() {
                    field(&mut line, key, value);
                }
            }
            number(&mut line, "time_created", millis(head.time.created));
            number(&mut line, "time_updated", millis(head.time.updated));
        }
        Kind::Message => {
            let Some(session) = from_path(|p| &p.session).or_else(|| non_empty(&head.session_id).map(str::to_owned))
            else {
                return Err(failed(
                    DiagnosticKind::MissingUuid,
                    "an OpenCode message without its session (no sessionID, not in a message/<session id>/ folder)"
                        .to_owned(),
                ));
            };
            record.session = session;
            begin(&mut line, "message");
            field(&mut line, "id", &id);
            field(&mut line, "session_id", &record.session);
            number(&mut line, "time_created", millis(head.time.created));
        }
        Kind::Part | Kind::Other => {
            let Some(message) = from_path(|p| &p.message).or_else(|| non_empty(&head.message_id).map(str::to_owned))
            else {
                return Err(failed(
                    DiagnosticKind::MissingUuid,
                    "an OpenCode part without its message (no messageID, not in a part/<message id>/ folder)"
                        .to_owned(),
                ));
            };
            record.kind = Kind::Part;
            record.message = message;
            record.session = non_empty(&head.session_id)
                .map(str::to_owned)
                .or_else(|| from_path(|p| &p.session))
                .unwrap_or_default();
            begin(&mut line, "part");
            field(&mut line, "id", &id);
            if !record.session.is_empty() {
                field(&mut line, "session_id", &record.session);
            }
            field(&mut line, "message_id", &record.message);
        }
    }
    line.push_str(",\"data\":");
    line.push_str(&data);
    field(&mut line, "file", &below);
    line.push('}');
    record.line = line;
    Ok(record)
}

fn begin(line: &mut String, table: &str) {
    line.push_str("{\"table\":");
    line.push_str(&quoted(table));
}

fn field(line: &mut String, key: &str, value: &str) {
    line.push(',');
    line.push_str(&quoted(key));
    line.push(':');
    line.push_str(&quoted(value));
}

fn number(line: &mut String, key: &str, value: Option<i64>) {
    if let Some(value) = value {
        line.push(',');
        line.push_str(&quoted(key));
        line.push(':');
        line.push_str(&value.to_string());
    }
}

fn quoted(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| "\"\"".to_owned())
}

/// Valid JSON text on one line: the whitespace between its tokens taken out, its strings (which
/// hold no raw line break) and the order of its keys kept.
fn one_line(text: &str) -> String {
    let mut out = Vec::with_capacity(text.len());
    let (mut in_string, mut escaped) = (false, false);
    for &byte in text.as_bytes() {
        if in_string {
            out.push(byte);
            if escaped {
                escaped = false;
            } else if byte == b'\\' {
                escaped = true;
            } else if byte == b'"' {
                in_string = false;
            }
        } else if byte == b'"' {
            in_string = true;
            out.push(byte);
        } else if !matches!(byte, b' ' | b'\t' | b'\n' | b'\r') {
            out.push(byte);
        }
    }
    // Only ASCII whitespace was taken out, between tokens: the bytes are still UTF-8.
    String::from_utf8(out).unwrap_or_default()
}

/// The record stream the storage files read so far make, to be read as one more file.
pub(crate) struct Stream {
    /// `<storage folder>/opencode-storage.jsonl`: a file of no folder, named for what it is.
    pub path: String,
    pub bytes: Vec<u8>,
    /// The storage files it was made from (those of bookkeeping too), in load order.
    pub sources: Vec<FileId>,
}

/// The name of the record stream made from storage files.
pub const STREAM_NAME: &str = "opencode-storage.jsonl";

/// Turns the storage records read so far into one record stream, ordered as the database's
/// queries order their rows, and names each storage file's session (the root of its parents,
/// the session it is shown in) as its `session_from_path`, so a history row lists its files.
/// `None` when no storage file made a record.
pub(crate) fn take_stream(sink: &mut Sink) -> Option<Stream> {
    let records = std::mem::take(&mut sink.opencode_storage);
    if records.iter().all(|r| r.line.is_empty()) {
        return None;
    }
    // Maps of the types the OpenCode importer has already, and one sort: each new map or sort
    // type is code the page's download carries.
    let of_kind = |kind: Kind| records.iter().enumerate().filter(move |(_, r)| r.kind == kind);
    let parents: FxHashMap<String, String> =
        of_kind(Kind::Session).map(|(_, r)| (r.id.clone(), r.parent.clone())).collect();
    let messages: FxHashMap<String, usize> = of_kind(Kind::Message).map(|(at, r)| (r.id.clone(), at)).collect();
    let root_of = |session: &str| -> String {
        let mut current = session;
        // A chain of parents is no longer than the sessions: a cycle ends there.
        for _ in 0..=parents.len() {
            match parents.get(current) {
                Some(parent) if !parent.is_empty() && parents.contains_key(parent) => current = parent,
                _ => break,
            }
        }
        current.to_owned()
    };
    for record in &records {
        let session = match record.kind {
            Kind::Part if record.session.is_empty() => {
                messages.get(&record.message).map_or("", |&at| records[at].session.as_str())
            }
            _ => record.session.as_str(),
        };
        if session.is_empty() {
            continue;
        }
        if let Some(info) = sink.corpus.files.get_mut(record.file as usize) {
            info.session_from_path = Some(root_of(session));
        }
    }

    // The order of the database's queries: sessions by time, then each message by time followed
    // by its parts by id; then the parts whose message file is not loaded, by message and id.
    let mut order: Vec<(u8, i64, &str, u8, &str, usize)> = Vec::with_capacity(records.len());
    for (at, record) in records.iter().enumerate().filter(|(_, r)| !r.line.is_empty()) {
        let key = match record.kind {
            Kind::Session => (0, record.created, record.id.as_str(), 0, ""),
            Kind::Message => (1, record.created, record.id.as_str(), 0, ""),
            _ => match messages.get(&record.message).map(|&m| &records[m]) {
                Some(message) => (1, message.created, message.id.as_str(), 1, record.id.as_str()),
                None => (2, 0, record.message.as_str(), 1, record.id.as_str()),
            },
        };
        order.push((key.0, key.1, key.2, key.3, key.4, at));
    }
    order.sort_unstable();
    let mut bytes = Vec::new();
    for &(.., at) in &order {
        bytes.extend_from_slice(records[at].line.as_bytes());
        bytes.push(b'\n');
    }
    let root = records.iter().find(|r| !r.line.is_empty()).map(|r| r.root.as_str()).unwrap_or("");
    let path = if root.is_empty() { STREAM_NAME.to_owned() } else { format!("{root}/{STREAM_NAME}") };
    let sources = records.iter().map(|r| r.file).collect();
    Some(Stream { path, bytes, sources })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_layouts_are_placed_by_their_paths() {
        let session = place("home/.local/share/opencode/storage/session/prj_1/ses_a.json").expect("a session");
        assert_eq!((session.kind, session.project.as_deref()), (Kind::Session, Some("prj_1")));
        assert_eq!(session.root, "home/.local/share/opencode/storage");
        assert_eq!(session.below, "session/prj_1/ses_a.json");
        let part = place("storage/part/msg_1/prt_2.json").expect("a part");
        assert_eq!((part.kind, part.message.as_deref(), part.id.as_str()), (Kind::Part, Some("msg_1"), "prt_2"));
        let message = place("storage/message/ses_a/msg_1.json").expect("a message");
        assert_eq!((message.kind, message.session.as_deref()), (Kind::Message, Some("ses_a")));
        // 0.5.x: per project, with `info/`, and parts in their session's folder.
        let old = place("opencode/project/global/storage/session/info/ses_b.json").expect("an old session");
        assert_eq!(
            (old.kind, old.project.as_deref(), old.session.as_deref()),
            (Kind::Session, Some("global"), Some("ses_b"))
        );
        let old_part = place("project/global/storage/session/part/ses_b/msg_9/prt_1.json").expect("an old part");
        assert_eq!(
            (old_part.kind, old_part.session.as_deref(), old_part.message.as_deref()),
            (Kind::Part, Some("ses_b"), Some("msg_9"))
        );
        assert_eq!(place("storage/todo/ses_a.json").map(|p| p.kind), Some(Kind::Other));
        assert_eq!(place("storage/part/msg_1/prt_2.txt"), None);
        assert_eq!(place("projects/-home-u/ses_a.json"), None);
    }

    #[test]
    fn storage_files_are_known_by_their_place_or_their_ids() {
        assert!(sniff(b"not json", "x/storage/part/msg_1/prt_1.json"));
        assert!(sniff(b"{\n  \"id\": \"prt_1\",\n  \"messageID\": \"msg_1\",\n  \"type\": \"text\"", "prt_1.json"));
        assert!(sniff(b"{\"id\":\"msg_1\",\"role\":\"user\",\"sessionID\":\"ses_1\"}", "msg_1.json"));
        assert!(sniff(b"{\"id\":\"ses_1\",\"version\":\"0.5.1\",\"title\":\"t\"}", "ses_1.json"));
        // An Anthropic API message has a msg_ id, but none of OpenCode's keys.
        assert!(!sniff(b"{\"id\":\"msg_01X\",\"type\":\"message\",\"role\":\"assistant\"}", "reply.json"));
        assert!(!sniff(b"{\"id\":\"prt_1\",\"messageID\":\"m\",\"type\":\"text\"}", "prt_1.jsonl"));
    }

    #[test]
    fn a_pretty_printed_record_becomes_one_line_with_its_keys_in_order() {
        let text = "{\n  \"id\": \"prt_1\",\n  \"text\": \"a \\\"quoted\\\"  word\\n\",\n  \"n\": [1, 2]\n}\n";
        assert_eq!(one_line(text), r#"{"id":"prt_1","text":"a \"quoted\"  word\n","n":[1,2]}"#);
        let Ok(record) = read(text, "storage/part/msg_1/prt_1.json", 0) else { panic!("a record") };
        assert_eq!(
            record.line,
            r#"{"table":"part","id":"prt_1","message_id":"msg_1","data":{"id":"prt_1","text":"a \"quoted\"  word\n","n":[1,2]},"file":"part/msg_1/prt_1.json"}"#
        );
        let reason = |text: &str| read(text, "storage/part/msg_1/prt_2.json", 0).err().map(|f| f.message);
        assert!(reason("{\n  \"id\": \"prt_2\",\n  \"text\": \"cut").is_some_and(|m| m.contains("ends early (line 3")));
        assert!(reason("[1]").is_some_and(|m| m.contains("holds a JSON array")));
    }
}
