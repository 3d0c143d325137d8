//! What a person has seen of a remembered history's sessions, to mark what is new since: for
//! each session, how many of its messages were seen and the time of the newest seen. Kept per
//! remembered folder in the page's storage; nothing of it leaves the page.
//!
//! A folder seen for the first time takes every session as seen as it is then (its baseline):
//! from there on, a session that grew shows how many messages are new, and a session that
//! appeared is new as a whole. Opening a session places a divider at its first unseen message,
//! and what comes on screen is seen.
//!
//! Pure Rust over the engine's model: built and tested natively.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use sessionscope_engine::dag::{Graph, SessionId};
use sessionscope_engine::history::SessionRow;
use sessionscope_engine::model::{Corpus, EntryKind};

use crate::logic::outline::{Outline, RowKey, RowKind};

/// What was seen of one session.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SeenMark {
    /// Its user and assistant messages seen (as [`SessionRow::messages`] counts them).
    pub messages: u32,
    /// The time of the newest message seen, milliseconds since the epoch; `None` when none had
    /// a time.
    pub through_ms: Option<i64>,
    /// When it was seen, milliseconds since the epoch.
    pub at_ms: f64,
}

/// What was seen of a remembered folder's sessions, by session id.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FolderSeen {
    /// When the folder's sessions were first taken as seen.
    pub baseline_ms: f64,
    pub sessions: BTreeMap<String, SeenMark>,
}

/// How much of a session is new to the person.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unread {
    /// Nothing: seen as it is.
    Seen,
    /// It grew by this many messages since it was seen.
    Grew(u32),
    /// It appeared since the folder was first seen: all of its messages are new.
    New(u32),
}

impl Unread {
    /// Its new messages.
    pub fn count(self) -> u32 {
        match self {
            Unread::Seen => 0,
            Unread::Grew(n) | Unread::New(n) => n,
        }
    }
}

impl SeenMark {
    /// A session seen whole, as a history row tells it.
    pub fn of_row(row: &SessionRow, now_ms: f64) -> SeenMark {
        SeenMark { messages: row.messages, through_ms: row.end_ms, at_ms: now_ms }
    }
}

impl FolderSeen {
    /// Every session of `rows` taken as seen as it is now.
    pub fn baseline<'a>(rows: impl IntoIterator<Item = &'a SessionRow>, now_ms: f64) -> FolderSeen {
        let mut seen = FolderSeen { baseline_ms: now_ms, sessions: BTreeMap::new() };
        for row in rows {
            seen.sessions.insert(row.session_id.clone(), SeenMark::of_row(row, now_ms));
        }
        seen
    }

    /// How much of the session of `row` is new.
    pub fn unread(&self, row: &SessionRow) -> Unread {
        match self.sessions.get(&row.session_id) {
            None if row.messages > 0 => Unread::New(row.messages),
            None => Unread::Seen,
            Some(mark) if row.messages > mark.messages => Unread::Grew(row.messages - mark.messages),
            Some(_) => Unread::Seen,
        }
    }

    /// Takes `mark` as seen of session `id`, where it goes further than what was seen before
    /// (seeing an older part again takes nothing back). Answers whether anything changed.
    pub fn advance(&mut self, id: &str, mark: SeenMark) -> bool {
        match self.sessions.get_mut(id) {
            Some(old) if old.messages >= mark.messages && old.through_ms >= mark.through_ms => false,
            Some(old) => {
                old.messages = old.messages.max(mark.messages);
                old.through_ms = old.through_ms.max(mark.through_ms);
                old.at_ms = mark.at_ms;
                true
            }
            None => {
                self.sessions.insert(id.to_owned(), mark);
                true
            }
        }
    }
}

/// The time of a row's newest line: a message's last line; a tool call's result, else its call.
fn row_time(corpus: &Corpus, graph: &Graph, kind: RowKind) -> Option<i64> {
    let entry = match kind {
        RowKind::Message { last, .. } => last,
        RowKind::Noise { entry } => entry,
        RowKind::ToolCall { op } => {
            let op = graph.op(op)?;
            if op.result_entry.is_some() { op.result_entry } else { op.call_entry }
        }
        _ => return None,
    };
    corpus.entries.get(entry.index()).filter(|e| e.has_timestamp()).map(|e| e.timestamp_ms)
}

/// The newest time among the rows `on_screen`.
pub fn newest_time(corpus: &Corpus, graph: &Graph, outline: &Outline, on_screen: &[RowKey]) -> Option<i64> {
    on_screen
        .iter()
        .filter_map(|&key| outline.row_of_key(key))
        .filter_map(|row| outline.row(row))
        .filter_map(|row| row_time(corpus, graph, row.kind))
        .max()
}

/// What was seen of `session` once rows up to `through` were shown (the [`newest_time`] of the
/// rows on screen): its messages up to that time (every message, when `to_the_end`: the last
/// row was shown). `None` when the rows say nothing (no time among them, and not the end).
pub fn seen_through(
    corpus: &Corpus,
    graph: &Graph,
    session: SessionId,
    through: Option<i64>,
    to_the_end: bool,
    now_ms: f64,
) -> Option<SeenMark> {
    if through.is_none() && !to_the_end {
        return None;
    }
    let mut messages = 0u32;
    let mut newest = None;
    for (e, entry) in corpus.entries.iter().enumerate() {
        if !matches!(entry.kind, EntryKind::User | EntryKind::Assistant) {
            continue;
        }
        let Some(node) = graph.nodes.get(e) else { continue };
        if graph.conversations.get(node.conversation.index()).is_none_or(|c| c.session != session) {
            continue;
        }
        let time = entry.has_timestamp().then_some(entry.timestamp_ms);
        if to_the_end || time.is_none() || time <= through {
            messages += 1;
            newest = newest.max(time);
        }
    }
    Some(SeenMark { messages, through_ms: if to_the_end { newest.max(through) } else { through }, at_ms: now_ms })
}

/// The first message shown of the outline's session that is newer than `mark`: where the
/// "new since" divider goes. `None` when nothing shown is newer, or the mark has no time.
pub fn first_unseen(corpus: &Corpus, outline: &Outline, mark: &SeenMark) -> Option<RowKey> {
    let through = mark.through_ms?;
    outline.visible().into_iter().find_map(|(row, _)| {
        let RowKind::Message { first, .. } = outline.row(row)?.kind else { return None };
        let entry = corpus.entries.get(first.index())?;
        (entry.has_timestamp() && entry.timestamp_ms > through).then(|| outline.key(row))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logic::outline::OutlineOptions;
    use sessionscope_engine::Loader;
    use sessionscope_engine::history::session_rows;

    fn example() -> (Corpus, Graph) {
        let corpus = Loader::read_all(crate::wire::example_files::FILES.iter().copied());
        let graph = Graph::build(&corpus);
        (corpus, graph)
    }

    #[test]
    fn a_baseline_takes_every_session_as_seen_and_counts_what_grows_or_appears() {
        let (corpus, graph) = example();
        let rows = session_rows(&corpus, &graph, "project");
        let mut seen = FolderSeen::baseline(&rows, 1.0);
        assert!(rows.iter().all(|r| seen.unread(r) == Unread::Seen));
        let mut grown = rows[0].clone();
        grown.messages += 3;
        assert_eq!(seen.unread(&grown), Unread::Grew(3));
        let mut other = rows[0].clone();
        other.session_id = "a-new-one".into();
        assert_eq!(seen.unread(&other), Unread::New(other.messages));
        // Seeing it whole clears it; seeing less again takes nothing back.
        assert!(seen.advance(&grown.session_id, SeenMark::of_row(&grown, 2.0)));
        assert_eq!(seen.unread(&grown), Unread::Seen);
        assert!(!seen.advance(&grown.session_id, SeenMark { messages: 1, through_ms: Some(0), at_ms: 3.0 }));
        assert_eq!(seen.sessions[&grown.session_id].messages, grown.messages);
    }

    #[test]
    fn the_divider_goes_at_the_first_message_after_what_was_seen() {
        let (corpus, graph) = example();
        let session = SessionId::new(0);
        let outline = Outline::build(&corpus, &graph, session, &OutlineOptions::default());
        let rows = session_rows(&corpus, &graph, "project");
        let row = &rows[0];
        // Everything seen: no divider.
        assert_eq!(first_unseen(&corpus, &outline, &SeenMark::of_row(row, 0.0)), None);
        // Seen up to the first prompt's time: the divider is the first message after it.
        let messages: Vec<(RowKey, i64)> = outline
            .visible()
            .into_iter()
            .filter_map(|(r, _)| match outline.row(r)?.kind {
                RowKind::Message { first, .. } => Some((outline.key(r), corpus.entries[first.index()].timestamp_ms)),
                _ => None,
            })
            .collect();
        assert!(messages.len() > 3, "{messages:?}");
        let (_, first_time) = messages[0];
        let mark = SeenMark { messages: 1, through_ms: Some(first_time), at_ms: 0.0 };
        let expected = messages.iter().find(|(_, t)| *t > first_time).map(|(k, _)| *k);
        assert_eq!(first_unseen(&corpus, &outline, &mark), expected);
        assert_ne!(expected, Some(messages[0].0));
    }

    #[test]
    fn what_comes_on_screen_is_seen_up_to_its_newest_time_and_the_end_is_everything() {
        let (corpus, graph) = example();
        let session = SessionId::new(0);
        let outline = Outline::build(&corpus, &graph, session, &OutlineOptions::default());
        let rows = session_rows(&corpus, &graph, "project");
        let keys: Vec<RowKey> = outline.visible().into_iter().map(|(r, _)| outline.key(r)).collect();
        let newest = |keys: &[RowKey]| newest_time(&corpus, &graph, &outline, keys);
        let whole = seen_through(&corpus, &graph, session, newest(&keys[keys.len() - 2..]), true, 5.0).unwrap();
        assert_eq!(whole.messages, rows[0].messages);
        assert_eq!(whole.at_ms, 5.0);
        let start = seen_through(&corpus, &graph, session, newest(&keys[..2]), false, 5.0).unwrap();
        assert!(start.messages >= 1 && start.messages < rows[0].messages, "{start:?}");
        assert!(start.through_ms < whole.through_ms);
        // The part seen leaves the rest unread, and the divider at the first row after it.
        let mut folder = FolderSeen::default();
        folder.advance(&rows[0].session_id, start.clone());
        assert_eq!(folder.unread(&rows[0]), Unread::Grew(rows[0].messages - start.messages));
        let divider = first_unseen(&corpus, &outline, &start).unwrap();
        assert!(keys.iter().position(|k| *k == divider).unwrap() >= 1);
    }

    #[test]
    fn kept_marks_read_back_as_written() {
        let mut folder = FolderSeen { baseline_ms: 12.0, sessions: BTreeMap::new() };
        folder.sessions.insert("s".into(), SeenMark { messages: 4, through_ms: Some(99), at_ms: 13.0 });
        let text = serde_json::to_string(&folder).unwrap();
        assert_eq!(serde_json::from_str::<FolderSeen>(&text).unwrap(), folder);
    }
}
