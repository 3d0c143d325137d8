//! Counts written as people write them: "1 session", "3 files", "2 matches", "1 entry", "4 summaries";
//! and the reasons files were left out, counted in one line ([`reasons_counted`]).
//!
//! A count names its thing in the singular and the plural is made from the last word of it, so
//! "tool call" counts as "2 tool calls". The English rules the page needs are kept: a word ending in
//! s, x, z, ch or sh takes "es", a consonant and "y" become "ies", and anything else takes "s".

/// The form of `thing` (singular, one or more words) that goes with `n`: "session" for 1, "sessions"
/// for 0 or 2 and more, "matches" for "match", "entries" for "entry". Any integer type counts (a
/// negative count takes the plural).
pub fn noun(n: impl TryInto<u64>, thing: &str) -> String {
    if n.try_into().ok() == Some(1) { thing.to_owned() } else { plural(thing) }
}

/// `n` and its thing: "1 session", "0 sessions", "3 files", "2 matches".
pub fn counted<N: TryInto<u64> + std::fmt::Display + Copy>(n: N, thing: &str) -> String {
    format!("{n} {}", noun(n, thing))
}

/// The plural of `thing`, made from its last word: "tool call" → "tool calls", "match" → "matches",
/// "entry" → "entries", "day" → "days". An empty thing stays empty.
pub fn plural(thing: &str) -> String {
    let lower = thing.to_ascii_lowercase();
    if thing.is_empty() {
        return String::new();
    }
    if ["s", "x", "z", "ch", "sh"].iter().any(|end| lower.ends_with(end)) {
        return format!("{thing}es");
    }
    let mut last_two = lower.chars().rev();
    if let (Some('y'), Some(before)) = (last_two.next(), last_two.next())
        && before.is_ascii_alphabetic()
        && !"aeiou".contains(before)
    {
        return format!("{}ies", &thing[..thing.len() - 1]);
    }
    format!("{thing}s")
}

/// Why files were left out, in one line however many they are: the reasons, each with how many
/// files it holds, the commonest first (at most `shown`, then "and N others"): "300 not named like
/// a session log; 12 could not be read". Reasons are compared as they are written.
pub fn reasons_counted<'a>(reasons: impl IntoIterator<Item = &'a str>, shown: usize) -> String {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for reason in reasons {
        match counts.iter_mut().find(|(r, _)| *r == reason) {
            Some((_, n)) => *n += 1,
            None => counts.push((reason, 1)),
        }
    }
    // Stable: reasons as common keep their first-seen order.
    crate::logic::sort::sort_by_key(&mut counts, |(_, n)| std::cmp::Reverse(*n));
    let mut said: Vec<String> = counts.iter().take(shown).map(|(r, n)| format!("{n} {r}")).collect();
    let others: usize = counts.iter().skip(shown).map(|(_, n)| n).sum();
    if others > 0 {
        said.push(format!("and {} for other reasons", counted(others, "file")));
    }
    said.join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_is_singular_and_every_other_count_plural() {
        assert_eq!(counted(1, "session"), "1 session");
        assert_eq!(counted(0, "session"), "0 sessions");
        assert_eq!(counted(3, "file"), "3 files");
        assert_eq!(counted(1_000_000, "line"), "1000000 lines");
        assert_eq!(noun(1, "file"), "file");
        assert_eq!(noun(2, "file"), "files");
        assert_eq!(counted(1usize, "file"), "1 file");
        assert_eq!(counted(1u32, "file"), "1 file");
        assert_eq!(counted(-1i64, "file"), "-1 files");
    }

    #[test]
    fn words_ending_in_a_hiss_take_es() {
        assert_eq!(counted(1, "match"), "1 match");
        assert_eq!(counted(2, "match"), "2 matches");
        assert_eq!(counted(2, "branch"), "2 branches");
        assert_eq!(counted(2, "box"), "2 boxes");
        assert_eq!(counted(2, "address"), "2 addresses");
        assert_eq!(counted(2, "crash"), "2 crashes");
    }

    #[test]
    fn a_consonant_and_y_become_ies_but_a_vowel_and_y_keep_the_y() {
        assert_eq!(counted(1, "entry"), "1 entry");
        assert_eq!(counted(2, "entry"), "2 entries");
        assert_eq!(counted(3, "summary"), "3 summaries");
        assert_eq!(counted(2, "day"), "2 days");
        assert_eq!(counted(2, "key"), "2 keys");
        assert_eq!(counted(2, "y"), "2 ys");
    }

    #[test]
    fn the_last_word_of_a_phrase_is_the_one_made_plural() {
        assert_eq!(counted(1, "agent conversation"), "1 agent conversation");
        assert_eq!(counted(0, "agent conversation"), "0 agent conversations");
        assert_eq!(counted(2, "tool call"), "2 tool calls");
        assert_eq!(counted(2, "metadata line"), "2 metadata lines");
        assert_eq!(counted(2, "API error"), "2 API errors");
    }

    #[test]
    fn odd_input_gives_no_panic() {
        assert_eq!(plural(""), "");
        assert_eq!(plural("é"), "és");
        assert_eq!(plural("ÿ"), "ÿs");
        assert_eq!(counted(u64::MAX, "token"), format!("{} tokens", u64::MAX));
    }

    #[test]
    fn reasons_are_counted_in_one_line_the_commonest_first() {
        let reasons = ["unreadable", "not a log", "not a log", "empty", "not a log", "unreadable"];
        assert_eq!(super::reasons_counted(reasons, 3), "3 not a log; 2 unreadable; 1 empty");
        assert_eq!(super::reasons_counted(reasons, 1), "3 not a log; and 3 files for other reasons");
        assert_eq!(super::reasons_counted(["one"], 3), "1 one");
        assert_eq!(super::reasons_counted([], 3), "");
    }
}
