//! The command palette's model: what it offers (the page's actions, with their keys, and every
//! session and project by title) and the fuzzy match that orders them for what was typed.

use sessionscope_engine::model::Start;

use super::file_parts::ShownPart;

/// What choosing an item does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    OpenExample,
    ChooseFiles,
    ChooseFolder,
    Share,
    KeyboardShortcuts,
    Search,
    SwitchTheme,
    ShowConversation,
    ShowStatistics,
    NextPrompt,
    PreviousPrompt,
    NextFailedCall,
    BackToHistory,
    StarSession,
    NoteOnSession,
    ExportMarks,
    MarkAllSeen,
    /// A session of the loaded files (its index in the graph).
    ShowSession(usize),
    /// A session of the history (its index among the history's rows).
    OpenHistorySession(usize),
    /// A project of the history, by its name.
    ShowProject(String),
    /// The next part of a file shown in part (its path), which starts there.
    NextPart(String, Start),
    /// The part of a file shown before the one shown.
    EarlierPart(String),
    /// The first part of a file shown in part.
    FirstPart(String),
}

/// One line of the palette.
#[derive(Clone, Debug, PartialEq)]
pub struct Item {
    pub label: String,
    /// What kind of item it is, or where it is ("Session · Claude Code · 2 h ago").
    pub detail: String,
    /// The key that does the same, where there is one.
    pub key: Option<&'static str>,
    pub action: Action,
}

impl Item {
    pub fn action(label: &str, key: Option<&'static str>, action: Action) -> Item {
        Item { label: label.to_owned(), detail: "Action".to_owned(), key, action }
    }
}

/// The page's actions that make sense now: with files loaded (`loaded`), in a history
/// (`in_history`, with a session of it open when both).
pub fn actions(loaded: bool, in_history: bool) -> Vec<Item> {
    let mut items = vec![
        Item::action("Open example", None, Action::OpenExample),
        Item::action("Choose files…", None, Action::ChooseFiles),
        Item::action("Choose a folder…", None, Action::ChooseFolder),
        Item::action("Keyboard shortcuts", Some("?"), Action::KeyboardShortcuts),
        Item::action("Switch between light and dark", None, Action::SwitchTheme),
        Item::action("Export marks (stars, notes, tags)", None, Action::ExportMarks),
    ];
    if loaded {
        items.extend([
            Item::action("Share…", Some("Shift+S"), Action::Share),
            Item::action("Search everything loaded", Some("/"), Action::Search),
            Item::action("Show the conversation", None, Action::ShowConversation),
            Item::action("Show the statistics", None, Action::ShowStatistics),
            Item::action("Next prompt", Some("}"), Action::NextPrompt),
            Item::action("Previous prompt", Some("{"), Action::PreviousPrompt),
            Item::action("Next failed tool call", Some("e"), Action::NextFailedCall),
            Item::action("Star or unstar this session", Some("Shift+M"), Action::StarSession),
            Item::action("Note and tags on this session…", Some("Shift+N"), Action::NoteOnSession),
        ]);
    }
    if loaded && in_history {
        items.push(Item::action("Back to the history", Some("Alt+←"), Action::BackToHistory));
    }
    if in_history {
        items.push(Item::action("Mark all seen", None, Action::MarkAllSeen));
    }
    items
}

/// The parts of files too big to show whole that can be shown instead of those shown: the next,
/// the earlier (where `earlier` says one was shown before) and the first.
pub fn part_items(parts: &[ShownPart], earlier: impl Fn(&str) -> bool) -> Vec<Item> {
    let mut items = Vec::new();
    for part in parts {
        let name = part.path.rsplit(['/', '\\']).next().unwrap_or(&part.path);
        let detail = format!("Part · lines {}–{} of {} are shown", part.first_line, part.last_line, part.file_lines);
        let item = |label: String, action: Action| Item { label, detail: detail.clone(), key: None, action };
        if let Some(next) = part.next {
            let label = format!("Show the next part of {name}, from line {}", next.line);
            items.push(item(label, Action::NextPart(part.path.clone(), next)));
        }
        if !part.is_first() {
            if earlier(&part.path) {
                items.push(item(format!("Show the earlier part of {name}"), Action::EarlierPart(part.path.clone())));
            }
            items.push(item(format!("Show the first part of {name}"), Action::FirstPart(part.path.clone())));
        }
    }
    items
}

/// How well `query` matches `text`: `None` unless every character of the query appears in the
/// text in order (case aside); higher is better. Characters that follow one another, and those
/// at the start of a word, count most; a gap costs a little, a long text a little less.
pub fn fuzzy_score(query: &str, text: &str) -> Option<i32> {
    let query: Vec<char> = query.chars().filter(|c| !c.is_whitespace()).flat_map(char::to_lowercase).collect();
    if query.is_empty() {
        return Some(0);
    }
    let text: Vec<char> = text.chars().collect();
    let mut score = 0i32;
    let mut at = 0usize;
    let mut previous: Option<usize> = None;
    for &wanted in &query {
        let found = (at..text.len()).find(|&i| text[i].to_lowercase().eq(std::iter::once(wanted)))?;
        let word_start = found == 0 || !text[found - 1].is_alphanumeric();
        score += 1;
        if word_start {
            score += 8;
        }
        match previous {
            Some(p) if p + 1 == found => score += 6,
            Some(p) => score -= ((found - p - 1) as i32).min(5),
            None => score -= (found as i32).min(10),
        }
        previous = Some(found);
        at = found + 1;
    }
    Some(score - (text.len() as i32 / 40))
}

/// The items that match `query`, best first (ties keep the items' order), at most `limit`.
pub fn ranked(items: &[Item], query: &str, limit: usize) -> Vec<usize> {
    let mut scored: Vec<(i32, usize)> = items
        .iter()
        .enumerate()
        .filter_map(|(i, item)| {
            let on_label = fuzzy_score(query, &item.label);
            let on_detail = fuzzy_score(query, &format!("{} {}", item.label, item.detail)).map(|s| s - 20);
            on_label.max(on_detail).map(|score| (score, i))
        })
        .collect();
    crate::logic::sort::sort_by(&mut scored, |a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    scored.into_iter().take(limit).map(|(_, i)| i).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(path: &str, first_line: u64, next: Option<Start>) -> ShownPart {
        ShownPart {
            file: 0,
            path: path.to_owned(),
            first_line,
            last_line: next.map_or(300, |n| u64::from(n.line) - 1),
            file_lines: 300,
            shown_bytes: 1000,
            file_size: 3000,
            next,
        }
    }

    #[test]
    fn a_file_shown_in_part_offers_its_other_parts() {
        let next = Start { offset: 1000, line: 101 };
        let first = part("p/big.jsonl", 1, Some(next));
        let items = part_items(std::slice::from_ref(&first), |_| false);
        assert_eq!(items.len(), 1, "the first part offers the next only");
        assert_eq!(items[0].label, "Show the next part of big.jsonl, from line 101");
        assert_eq!(items[0].detail, "Part · lines 1–100 of 300 are shown");
        assert_eq!(items[0].action, Action::NextPart("p/big.jsonl".into(), next));
        let last = part("p/big.jsonl", 201, None);
        let labels = |earlier: bool| -> Vec<String> {
            part_items(std::slice::from_ref(&last), |path| earlier && path == "p/big.jsonl")
                .into_iter()
                .map(|i| i.label)
                .collect()
        };
        assert_eq!(labels(true), ["Show the earlier part of big.jsonl", "Show the first part of big.jsonl"]);
        assert_eq!(labels(false), ["Show the first part of big.jsonl"], "no part was shown before it");
        assert!(part_items(&[], |_| true).is_empty());
    }

    fn session(label: &str, index: usize) -> Item {
        Item {
            label: label.to_owned(),
            detail: "Session".to_owned(),
            key: None,
            action: Action::OpenHistorySession(index),
        }
    }

    #[test]
    fn letters_in_order_match_and_word_starts_win() {
        assert!(fuzzy_score("shr", "Share…").is_some());
        assert!(fuzzy_score("rhs", "Share…").is_none());
        assert!(fuzzy_score("SHARE", "share…").is_some(), "case does not matter");
        assert!(fuzzy_score("", "anything") == Some(0));
        // Word starts beat letters in the middle of words.
        assert!(fuzzy_score("np", "Next prompt") > fuzzy_score("np", "Open example"));
    }

    #[test]
    fn a_fuzzy_title_finds_its_session_first_and_an_action_by_its_name() {
        let mut items = actions(true, true);
        items.extend([
            session("Fix the flaky login test", 0),
            session("Rename kettle to teapot everywhere", 1),
            session("Investigate locked database in CI", 2),
        ]);
        let best = |query: &str| items[ranked(&items, query, 10)[0]].action.clone();
        assert_eq!(best("kettle tea"), Action::OpenHistorySession(1));
        assert_eq!(best("lockdb"), Action::OpenHistorySession(2));
        assert_eq!(best("share"), Action::Share);
        assert_eq!(best("nxt prmpt"), Action::NextPrompt);
        assert!(ranked(&items, "zzzz", 10).is_empty());
        // Nothing typed: everything, in the items' order.
        assert_eq!(ranked(&items, "", 100), (0..items.len()).collect::<Vec<_>>());
    }

    #[test]
    fn actions_follow_what_is_open() {
        let names = |items: Vec<Item>| items.into_iter().map(|i| i.action).collect::<Vec<_>>();
        assert!(!names(actions(false, false)).contains(&Action::Share));
        assert!(names(actions(true, false)).contains(&Action::Share));
        assert!(!names(actions(true, false)).contains(&Action::BackToHistory));
        assert!(names(actions(true, true)).contains(&Action::BackToHistory));
    }
}
