//! Marks: the stars, notes and tags a person puts on sessions and on their entries.
//!
//! They live in one JSON file that the page exports and imports and the command line reads
//! (`index --marks=<file>`):
//!
//! ```json
//! {
//!   "sessionscope": "marks",
//!   "version": 1,
//!   "sessions": {
//!     "<session id>": {
//!       "starred": true, "note": "text", "tags": ["bug", "perf"], "updated_ms": 1732700000000,
//!       "entries": { "<entry uuid>": { "starred": true, "updated_ms": 1732700000000 } }
//!     }
//!   }
//! }
//! ```
//!
//! Keys this version does not know are ignored, so a file written by a later version with the
//! same `version` still reads. Nothing here panics on any input: a file that is not marks is a
//! [`MarksError`], and a note or a tag that is too long is cut.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::small_json::{self, Value};

/// The `version` this code writes, and the newest it reads.
pub const VERSION: u64 = 1;

/// The longest note kept, in chars; a longer one is cut when it is set or read.
pub const MAX_NOTE_CHARS: usize = 10_000;

/// The most tags a mark keeps.
pub const MAX_TAGS: usize = 20;

/// The longest tag kept, in chars; a longer one is cut.
pub const MAX_TAG_CHARS: usize = 40;

/// A star, a note and tags on a session or on one of its entries, and when they last changed.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct Mark {
    #[serde(default, skip_serializing_if = "is_false")]
    pub starred: bool,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub note: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// Milliseconds since the epoch of the last change; the later change wins an import.
    #[serde(default)]
    pub updated_ms: i64,
}

fn is_false(value: &bool) -> bool {
    !*value
}

impl Mark {
    /// Whether the mark says nothing: no star, no note and no tags (its time does not count).
    pub fn is_empty(&self) -> bool {
        !self.starred && self.note.is_empty() && self.tags.is_empty()
    }

    /// The mark with its note cut to [`MAX_NOTE_CHARS`] and its tags cleaned as [`tags_from`]
    /// cleans typed tags.
    fn normalized(mut self) -> Mark {
        cut_chars(&mut self.note, MAX_NOTE_CHARS);
        if !self.tags.is_empty() {
            self.tags = tags_from(&self.tags.join(","));
        }
        self
    }
}

/// A session's own mark and the marks on its entries, by entry uuid. In the file, the
/// session's mark is written in the session's object, beside `entries` (as `#[serde(flatten)]`
/// would, without the buffering of every value that it costs in code).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SessionMarks {
    pub mark: Mark,
    pub entries: BTreeMap<String, Mark>,
}

impl Serialize for SessionMarks {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let Mark { starred, note, tags, updated_ms } = &self.mark;
        let mut map = serializer.serialize_map(None)?;
        if *starred {
            map.serialize_entry("starred", starred)?;
        }
        if !note.is_empty() {
            map.serialize_entry("note", note)?;
        }
        if !tags.is_empty() {
            map.serialize_entry("tags", tags)?;
        }
        map.serialize_entry("updated_ms", updated_ms)?;
        if !self.entries.is_empty() {
            map.serialize_entry("entries", &self.entries)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for SessionMarks {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Fields;
        impl<'de> serde::de::Visitor<'de> for Fields {
            type Value = SessionMarks;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a session's marks")
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<SessionMarks, A::Error> {
                let mut marks = SessionMarks::default();
                while let Some(key) = map.next_key::<String>()? {
                    match key.as_str() {
                        "starred" => marks.mark.starred = map.next_value()?,
                        "note" => marks.mark.note = map.next_value()?,
                        "tags" => marks.mark.tags = map.next_value()?,
                        "updated_ms" => marks.mark.updated_ms = map.next_value()?,
                        "entries" => marks.entries = map.next_value()?,
                        _ => {
                            map.next_value::<serde::de::IgnoredAny>()?;
                        }
                    }
                }
                Ok(marks)
            }
        }
        deserializer.deserialize_map(Fields)
    }
}

impl SessionMarks {
    /// Whether neither the session nor any of its entries is marked.
    pub fn is_empty(&self) -> bool {
        self.mark.is_empty() && self.entries.values().all(Mark::is_empty)
    }

    /// Whether the session, or any of its entries, is starred.
    pub fn starred(&self) -> bool {
        self.mark.starred || self.entries.values().any(|m| m.starred)
    }

    /// The session's tags, then its entries' tags, each once (compared case-insensitively, the
    /// first spelling kept).
    pub fn tags(&self) -> Vec<&str> {
        let mut seen: Vec<String> = Vec::new();
        let mut tags = Vec::new();
        let all = self.mark.tags.iter().chain(self.entries.values().flat_map(|m| m.tags.iter()));
        for tag in all {
            let folded = tag.to_lowercase();
            if !seen.contains(&folded) {
                seen.push(folded);
                tags.push(tag.as_str());
            }
        }
        tags
    }

    /// The marks with empty entry marks left out and every mark normalized.
    fn normalized(self) -> SessionMarks {
        // In place: collecting into a map sorts its entries first, code the page would carry.
        let mut entries = self.entries;
        for mark in entries.values_mut() {
            *mark = std::mem::take(mark).normalized();
        }
        entries.retain(|_, mark| !mark.is_empty());
        SessionMarks { mark: self.mark.normalized(), entries }
    }
}

/// Every marked session, by session id.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Marks {
    pub sessions: BTreeMap<String, SessionMarks>,
}

/// Why a text could not be read as marks, in words a user sees.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MarksError {
    /// The text is not JSON; the parser's reason.
    NotJson(String),
    /// The JSON does not say `"sessionscope": "marks"`.
    NotMarks,
    /// The marks were written by a newer sessionscope, whose `version` this one does not read.
    Newer(u64),
    /// The JSON says it holds marks but does not have their shape; what is wrong.
    Invalid(String),
}

impl fmt::Display for MarksError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MarksError::NotJson(reason) => write!(f, "this file is not JSON: {reason}"),
            MarksError::NotMarks => {
                write!(f, "this JSON file holds no sessionscope marks (no \"sessionscope\": \"marks\")")
            }
            MarksError::Newer(version) => {
                write!(f, "these marks were written by a newer sessionscope (version {version})")
            }
            MarksError::Invalid(reason) => write!(f, "these marks cannot be read: {reason}"),
        }
    }
}

impl std::error::Error for MarksError {}

/// What a [`Marks::import`] did, counting session marks and entry marks alike.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Imported {
    /// Marks that were not there before.
    pub added: usize,
    /// Marks replaced by a later (or equally recent) imported one that differs.
    pub updated: usize,
    /// Marks left as they were: the one here is later, or the imported one is the same.
    pub kept: usize,
}

/// The file as it is read: its tag, its version and the sessions. Other keys are ignored.
#[derive(Deserialize)]
struct FileIn {
    #[serde(default)]
    sessions: BTreeMap<String, SessionMarks>,
}

/// The file as it is written.
#[derive(Serialize)]
struct FileOut<'a> {
    sessionscope: &'static str,
    version: u64,
    sessions: &'a BTreeMap<String, SessionMarks>,
}

/// What is wrong with a `version` that is not a whole number.
const VERSION_NOT_A_NUMBER: &str = "its \"version\" is missing or not a whole number";

impl Marks {
    /// Reads a marks file. Notes and tags that are too long are cut, and empty marks are left
    /// out.
    pub fn from_json(text: &str) -> Result<Marks, MarksError> {
        let value = small_json::parse(text.as_bytes()).map_err(|error| MarksError::NotJson(error.to_string()))?;
        let Some(object) = value.as_object() else { return Err(MarksError::NotMarks) };
        if object.get("sessionscope").and_then(Value::as_str) != Some("marks") {
            return Err(MarksError::NotMarks);
        }
        let Some(version) = object.get("version").and_then(Value::as_u64) else {
            return Err(MarksError::Invalid(VERSION_NOT_A_NUMBER.to_owned()));
        };
        if version > VERSION {
            return Err(MarksError::Newer(version));
        }
        if version == 0 {
            return Err(MarksError::Invalid("its \"version\" is 0".to_owned()));
        }
        let file: FileIn = small_json::from_str(text).map_err(|error| MarksError::Invalid(error.to_string()))?;
        let mut sessions = file.sessions;
        for marks in sessions.values_mut() {
            *marks = std::mem::take(marks).normalized();
        }
        sessions.retain(|_, marks| !marks.is_empty());
        Ok(Marks { sessions })
    }

    /// The marks as a file: pretty JSON, sessions and entries in id order.
    pub fn to_json(&self) -> String {
        let file = FileOut { sessionscope: "marks", version: VERSION, sessions: &self.sessions };
        // Maps with string keys, strings, booleans and numbers always serialize; the empty
        // string is never returned in practice.
        small_json::to_string_pretty(&file).unwrap_or_default()
    }

    /// The marks of session `id`, if it has any.
    pub fn session(&self, id: &str) -> Option<&SessionMarks> {
        self.sessions.get(id)
    }

    /// The mark on the entry `uuid` of session `id`, if it has one.
    pub fn entry(&self, id: &str, uuid: &str) -> Option<&Mark> {
        self.sessions.get(id)?.entries.get(uuid)
    }

    /// Sets the session's own mark; an empty mark removes it, and a session left with no mark
    /// at all is removed.
    pub fn set_session(&mut self, id: &str, mark: Mark) {
        let mark = mark.normalized();
        if mark.is_empty() {
            if let Some(session) = self.sessions.get_mut(id) {
                session.mark = Mark::default();
                if session.is_empty() {
                    self.sessions.remove(id);
                }
            }
            return;
        }
        self.sessions.entry(id.to_owned()).or_default().mark = mark;
    }

    /// Sets the mark on entry `uuid` of session `id`; an empty mark removes it, and a session
    /// left with no mark at all is removed.
    pub fn set_entry(&mut self, id: &str, uuid: &str, mark: Mark) {
        let mark = mark.normalized();
        if mark.is_empty() {
            if let Some(session) = self.sessions.get_mut(id) {
                session.entries.remove(uuid);
                if session.is_empty() {
                    self.sessions.remove(id);
                }
            }
            return;
        }
        self.sessions.entry(id.to_owned()).or_default().entries.insert(uuid.to_owned(), mark);
    }

    /// Whether the session, or any of its entries, is starred.
    pub fn starred(&self, id: &str) -> bool {
        self.sessions.get(id).is_some_and(SessionMarks::starred)
    }

    /// Whether the session, or any of its entries, carries `tag` (compared case-insensitively;
    /// a leading `#` is ignored).
    pub fn has_tag(&self, id: &str, tag: &str) -> bool {
        let wanted = tag.trim().trim_start_matches('#').to_lowercase();
        if wanted.is_empty() {
            return false;
        }
        self.sessions.get(id).is_some_and(|s| s.tags().iter().any(|t| t.to_lowercase() == wanted))
    }

    /// Every tag, with how many sessions carry it (on the session or on one of its entries),
    /// sorted by name case-insensitively. Tags that differ only in case are one tag, spelt as
    /// the first session in id order spells it.
    pub fn tags(&self) -> Vec<(String, usize)> {
        let mut counts: BTreeMap<String, (String, usize)> = BTreeMap::new();
        for session in self.sessions.values() {
            for tag in session.tags() {
                counts.entry(tag.to_lowercase()).or_insert_with(|| (tag.to_owned(), 0)).1 += 1;
            }
        }
        counts.into_values().collect()
    }

    /// Merges `other` into these marks, mark by mark (each session's own mark and each entry's
    /// mark): the one changed later wins, the imported one on a tie. Empty imported marks are
    /// skipped.
    pub fn import(&mut self, other: Marks) -> Imported {
        let mut imported = Imported::default();
        for (id, theirs) in other.sessions {
            let theirs = theirs.normalized();
            let ours = self.sessions.entry(id.clone()).or_default();
            if !theirs.mark.is_empty() {
                merge(&mut ours.mark, theirs.mark, &mut imported);
            }
            for (uuid, mark) in theirs.entries {
                match ours.entries.get_mut(&uuid) {
                    Some(existing) => merge(existing, mark, &mut imported),
                    None => {
                        ours.entries.insert(uuid, mark);
                        imported.added += 1;
                    }
                }
            }
            if ours.is_empty() {
                self.sessions.remove(&id);
            }
        }
        imported
    }
}

/// Puts `theirs` (not empty) in place of `ours` if it is at least as recent, and counts it.
fn merge(ours: &mut Mark, theirs: Mark, imported: &mut Imported) {
    if ours.is_empty() {
        *ours = theirs;
        imported.added += 1;
    } else if theirs.updated_ms >= ours.updated_ms && theirs != *ours {
        *ours = theirs;
        imported.updated += 1;
    } else {
        imported.kept += 1;
    }
}

/// The tags in what a person typed: split on commas and white space, each trimmed and without
/// its leading `#`, empty ones dropped, each once (compared case-insensitively, the first
/// spelling kept), at most [`MAX_TAGS`] of at most [`MAX_TAG_CHARS`] chars.
pub fn tags_from(input: &str) -> Vec<String> {
    let mut tags: Vec<String> = Vec::new();
    for word in input.split(|c: char| c == ',' || c.is_whitespace()) {
        if tags.len() == MAX_TAGS {
            break;
        }
        let mut tag = word.trim().trim_start_matches('#').to_owned();
        cut_chars(&mut tag, MAX_TAG_CHARS);
        if tag.is_empty() {
            continue;
        }
        let folded = tag.to_lowercase();
        if !tags.iter().any(|t| t.to_lowercase() == folded) {
            tags.push(tag);
        }
    }
    tags
}

/// Cuts `text` to at most `max` chars, on a char boundary.
fn cut_chars(text: &mut String, max: usize) {
    if let Some((at, _)) = text.char_indices().nth(max) {
        text.truncate(at);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mark(starred: bool, note: &str, tags: &[&str], updated_ms: i64) -> Mark {
        Mark { starred, note: note.to_owned(), tags: tags.iter().map(|t| (*t).to_owned()).collect(), updated_ms }
    }

    fn sample() -> Marks {
        let mut marks = Marks::default();
        marks.set_session("s1", mark(true, "look again", &["bug", "perf"], 10));
        marks.set_entry("s1", "u1", mark(false, "here", &[], 11));
        marks.set_entry("s2", "u9", mark(true, "", &["Bug"], 1_732_700_000_000));
        marks
    }

    #[test]
    fn a_file_round_trips_and_skips_what_is_unset() {
        let marks = sample();
        let text = marks.to_json();
        assert_eq!(Marks::from_json(&text), Ok(marks.clone()));
        let value: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        assert_eq!(value["sessionscope"], "marks");
        assert_eq!(value["version"], 1);
        let entry = &value["sessions"]["s1"]["entries"]["u1"];
        assert_eq!(entry, &serde_json::json!({ "note": "here", "updated_ms": 11 }), "false and empty are left out");
        assert!(value["sessions"]["s2"].get("note").is_none());
        assert!(value["sessions"]["s2"].get("starred").is_none(), "the session itself is not starred");
        assert_eq!(marks.to_json(), text, "the same marks write the same text");
    }

    #[test]
    fn a_file_is_written_and_read_as_with_a_flattened_mark() {
        // The shape `SessionMarks` had as `#[serde(flatten)] mark` beside `entries`.
        #[derive(Serialize, Deserialize, Debug, PartialEq)]
        struct Flattened {
            #[serde(flatten)]
            mark: Mark,
            #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
            entries: BTreeMap<String, Mark>,
        }
        let marks = sample();
        let flattened: BTreeMap<&String, Flattened> = marks
            .sessions
            .iter()
            .map(|(id, s)| (id, Flattened { mark: s.mark.clone(), entries: s.entries.clone() }))
            .collect();
        #[derive(Serialize)]
        struct File<'a> {
            sessionscope: &'static str,
            version: u64,
            sessions: BTreeMap<&'a String, Flattened>,
        }
        let file = File { sessionscope: "marks", version: VERSION, sessions: flattened };
        assert_eq!(marks.to_json(), serde_json::to_string_pretty(&file).unwrap());
        let read: BTreeMap<String, SessionMarks> =
            serde_json::from_str(&serde_json::to_string(&file.sessions).unwrap()).unwrap();
        assert_eq!(read, marks.sessions);
    }

    #[test]
    fn unknown_keys_are_ignored() {
        let text = r#"{
            "sessionscope": "marks", "version": 1, "exported_by": "a later page",
            "sessions": { "s1": { "starred": true, "colour": "red", "updated_ms": 5,
                "entries": { "u1": { "note": "n", "pinned": true } } } }
        }"#;
        let marks = Marks::from_json(text).expect("marks");
        assert!(marks.starred("s1"));
        assert_eq!(marks.entry("s1", "u1"), Some(&mark(false, "n", &[], 0)));
        assert_eq!(marks.session("s1").map(|s| s.mark.updated_ms), Some(5));
    }

    #[test]
    fn each_error_has_its_kind_and_its_words() {
        assert!(matches!(Marks::from_json("{ not json"), Err(MarksError::NotJson(_))));
        assert!(matches!(Marks::from_json(""), Err(MarksError::NotJson(_))));
        assert_eq!(Marks::from_json(r#"{"sessions": {}}"#), Err(MarksError::NotMarks));
        assert_eq!(Marks::from_json(r#"{"sessionscope": "share", "version": 1}"#), Err(MarksError::NotMarks));
        assert_eq!(Marks::from_json("[1, 2]"), Err(MarksError::NotMarks));
        assert_eq!(Marks::from_json(r#"{"sessionscope": "marks", "version": 7}"#), Err(MarksError::Newer(7)));
        assert!(matches!(Marks::from_json(r#"{"sessionscope": "marks"}"#), Err(MarksError::Invalid(_))));
        assert!(matches!(Marks::from_json(r#"{"sessionscope": "marks", "version": 0}"#), Err(MarksError::Invalid(_))));
        let wrong_shape = r#"{"sessionscope": "marks", "version": 1, "sessions": {"s": {"starred": "yes"}}}"#;
        assert!(matches!(Marks::from_json(wrong_shape), Err(MarksError::Invalid(_))));
        let wrong_sessions = r#"{"sessionscope": "marks", "version": 1, "sessions": [1]}"#;
        assert!(matches!(Marks::from_json(wrong_sessions), Err(MarksError::Invalid(_))));
        assert_eq!(MarksError::Newer(2).to_string(), "these marks were written by a newer sessionscope (version 2)");
        assert_eq!(
            MarksError::NotMarks.to_string(),
            "this JSON file holds no sessionscope marks (no \"sessionscope\": \"marks\")"
        );
        assert!(MarksError::NotJson("eof".to_owned()).to_string().starts_with("this file is not JSON: eof"));
    }

    #[test]
    fn an_empty_file_of_marks_reads_as_no_marks() {
        let marks = Marks::from_json(r#"{"sessionscope": "marks", "version": 1}"#).expect("marks");
        assert!(marks.sessions.is_empty());
        let empties = r#"{"sessionscope": "marks", "version": 1,
            "sessions": {"s": {"updated_ms": 3, "entries": {"u": {"note": ""}}}}}"#;
        assert!(Marks::from_json(empties).expect("marks").sessions.is_empty(), "empty marks are left out");
    }

    #[test]
    fn import_keeps_the_later_mark_and_counts() {
        let mut ours = Marks::default();
        ours.set_session("a", mark(true, "ours", &[], 100));
        ours.set_entry("a", "old", mark(true, "", &[], 50));
        ours.set_entry("a", "newer-here", mark(true, "", &[], 500));
        ours.set_session("b", mark(true, "same", &[], 7));
        let mut theirs = Marks::default();
        theirs.set_session("a", mark(false, "theirs", &["x"], 100)); // a tie: theirs wins
        theirs.set_entry("a", "old", mark(false, "later", &[], 60));
        theirs.set_entry("a", "newer-here", mark(false, "earlier", &[], 400));
        theirs.set_entry("a", "fresh", mark(true, "", &[], 1));
        theirs.set_session("b", mark(true, "same", &[], 7));
        theirs.set_session("c", mark(false, "", &["new"], 3));
        let imported = ours.import(theirs);
        assert_eq!(imported, Imported { added: 2, updated: 2, kept: 2 });
        assert_eq!(ours.session("a").map(|s| &s.mark), Some(&mark(false, "theirs", &["x"], 100)));
        assert_eq!(ours.entry("a", "old"), Some(&mark(false, "later", &[], 60)));
        assert_eq!(ours.entry("a", "newer-here"), Some(&mark(true, "", &[], 500)));
        assert_eq!(ours.entry("a", "fresh"), Some(&mark(true, "", &[], 1)));
        assert!(ours.has_tag("c", "NEW"));
        let again = ours.clone().import(ours.clone());
        assert_eq!(again, Imported { added: 0, updated: 0, kept: 6 }, "importing the same marks changes nothing");
    }

    #[test]
    fn tags_are_split_cleaned_and_deduplicated() {
        assert_eq!(tags_from("#a, A b"), ["a", "b"]);
        assert_eq!(tags_from("  ,, ## # ,"), Vec::<String>::new());
        assert_eq!(tags_from("Bug\tbug\nBUG perf,#perf"), ["Bug", "perf"]);
        assert_eq!(tags_from("Ünïcode ünÏCODE 日本語 #日本語"), ["Ünïcode", "日本語"]);
        let long = "é".repeat(50);
        let cut = tags_from(&long);
        assert_eq!(cut.len(), 1);
        assert_eq!(cut[0].chars().count(), MAX_TAG_CHARS);
        let many: Vec<String> = (0..30).map(|i| format!("t{i}")).collect();
        let kept = tags_from(&many.join(" "));
        assert_eq!(kept.len(), MAX_TAGS);
        assert_eq!(kept.last().map(String::as_str), Some("t19"));
    }

    #[test]
    fn a_session_is_starred_when_one_of_its_entries_is() {
        let marks = sample();
        assert!(marks.starred("s1"));
        assert!(marks.starred("s2"), "only its entry u9 is starred");
        assert!(!marks.starred("s3"));
        assert!(marks.has_tag("s2", "bug"), "the entry's tag counts, whatever its case");
        assert!(marks.has_tag("s1", "#PERF"));
        assert!(!marks.has_tag("s2", "perf"));
        assert!(!marks.has_tag("s1", ""));
        assert_eq!(marks.tags(), [("bug".to_owned(), 2), ("perf".to_owned(), 1)]);
    }

    #[test]
    fn setting_an_empty_mark_removes_it_and_an_empty_session() {
        let mut marks = sample();
        marks.set_entry("s2", "u9", Mark { updated_ms: 99, ..Mark::default() });
        assert!(marks.session("s2").is_none(), "s2 had nothing else");
        marks.set_session("s1", Mark::default());
        assert!(marks.session("s1").is_some(), "s1 still has its entry");
        assert!(marks.session("s1").is_some_and(|s| s.mark.is_empty()));
        marks.set_entry("s1", "u1", Mark::default());
        assert!(marks.sessions.is_empty());
        marks.set_entry("nowhere", "u", Mark::default());
        marks.set_session("nowhere", Mark::default());
        assert!(marks.sessions.is_empty(), "removing what is not there adds nothing");
    }

    #[test]
    fn a_huge_note_is_cut_on_a_char_boundary() {
        let huge = "ß🦀".repeat(MAX_NOTE_CHARS);
        let mut marks = Marks::default();
        marks.set_session("s", mark(false, &huge, &[], 1));
        let note = marks.session("s").map(|s| s.mark.note.clone()).unwrap_or_default();
        assert_eq!(note.chars().count(), MAX_NOTE_CHARS);
        assert!(huge.starts_with(&note));
        let text = format!(
            r#"{{"sessionscope": "marks", "version": 1, "sessions": {{"s": {{"entries": {{"u": {{"note": "{huge}", "tags": ["{huge}"]}}}}}}}}}}"#
        );
        let read = Marks::from_json(&text).expect("marks");
        let entry = read.entry("s", "u").cloned().unwrap_or_default();
        assert_eq!(entry.note.chars().count(), MAX_NOTE_CHARS);
        assert_eq!(entry.tags.first().map(|t| t.chars().count()), Some(MAX_TAG_CHARS));
    }
}
