//! The query language of a history search, one for the page, `sessionscope search` and MCP
//! `search` (issue 52): words in any order, `"quoted phrases"`, `prefix*`, `-excluded`, `OR`
//! between two terms, filters typed into the query (`agent:`, `project:`, `model:`, `tool:`,
//! `file:`, `role:`, `after:`, `before:`, `is:`, `tag:`), and a regular expression as `/…/`.
//! [`Parsed::parse`] reads a query into clauses and filters, or says in words what is wrong with
//! it ([`QueryError`]); [`words`] cuts a text into the words terms are matched against, so that
//! the query and the index cut text the same way; [`Matching`] tells whether the texts of one
//! session, given one by one, hold every clause. `docs/features.md` documents the language.

use std::fmt;

/// A query, read: every clause must hold (words in any order, anywhere in the session), and
/// every filter; or a regular expression, which replaces the clauses.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Parsed {
    pub clauses: Vec<Clause>,
    pub filters: Vec<FilterClause>,
    /// The pattern of a query written `/…/`.
    pub regex: Option<String>,
}

/// Terms of which one must be found (two or more when joined by `OR`); or, negated, none.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Clause {
    pub any_of: Vec<Term>,
    pub negated: bool,
}

/// What a clause looks for, in the words of a text ([`words`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Term {
    /// A word, whole.
    Word(String),
    /// A word that starts with this (`pars*`).
    Prefix(String),
    /// Words side by side, in this order (`"read the logs"`, or `parse_time`, whose separator
    /// makes two words).
    Phrase(Vec<String>),
}

/// A filter, and whether it is negated (`-agent:codex`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FilterClause {
    pub filter: Filter,
    pub negated: bool,
}

/// A filter typed into the query as `key:value`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Filter {
    /// The agent that wrote the session (`claude`, `codex`, …), as its name starts.
    Agent(String),
    /// The session's project folder, or a part of it.
    Project(String),
    /// A model the session used, or a part of its name.
    Model(String),
    /// A tool the session called.
    Tool(String),
    /// A path the session touched, or a part of it.
    File(String),
    /// Whose words a match is in.
    Role(Role),
    /// Sessions active at or after this time (milliseconds since the epoch).
    After(i64),
    /// Sessions that started before this time (milliseconds since the epoch).
    Before(i64),
    Is(Flag),
    /// A tag the person gave the session.
    Tag(String),
}

/// Whose words (`role:`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    User,
    Assistant,
    Tool,
}

/// A fact of a session (`is:`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flag {
    /// A tool call of the session failed.
    Failed,
    /// The person starred the session or one of its messages.
    Starred,
}

/// Why a query could not be read, in the words the person sees.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum QueryError {
    /// A `"` with no closing one.
    UnclosedQuote,
    /// `key:` with nothing after it.
    NoValue(&'static str),
    UnknownRole(String),
    UnknownFlag(String),
    /// `after:` or `before:` with neither a date nor a span of time.
    NotATime(&'static str, String),
    /// `OR` with no term on one side.
    LoneOr,
    /// A query with nothing to look for: only excluded terms, say.
    NothingToFind,
}

impl fmt::Display for QueryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QueryError::UnclosedQuote => f.write_str("a quote is not closed: end the phrase with \""),
            QueryError::NoValue(key) => write!(f, "`{key}:` needs a value, as in `{key}:{}`", example(key)),
            QueryError::UnknownRole(value) => {
                write!(f, "`role:{value}` is no role: say `role:user`, `role:assistant` or `role:tool`")
            }
            QueryError::UnknownFlag(value) => write!(f, "`is:{value}` is not known: say `is:failed` or `is:starred`"),
            QueryError::NotATime(key, value) => write!(
                f,
                "`{key}:{value}` is not a time: give a date (`{key}:2026-11-01`) or a span before now \
                 (`{key}:7d`, in hours, days, weeks or years: h, d, w, y)"
            ),
            QueryError::LoneOr => f.write_str("`OR` needs a term on each side, as in `deploy OR release`"),
            QueryError::NothingToFind => {
                f.write_str("the query has nothing to find: give a word, a phrase or a filter beside what it excludes")
            }
        }
    }
}

impl std::error::Error for QueryError {}

/// The example value a filter's key is shown with.
fn example(key: &str) -> &'static str {
    match key {
        "agent" => "codex",
        "project" => "shop",
        "model" => "opus",
        "tool" => "Bash",
        "file" => "src/main.rs",
        "role" => "user",
        "after" | "before" => "2026-11-01",
        "is" => "failed",
        _ => "deploy",
    }
}

/// The words of a text as the search matches them: runs of letters, digits and `_`, lowercased,
/// as Unicode's word boundaries cut them (UAX #29 joins `_`): an identifier such as
/// `merge_duplicates` is one word, which its own name finds, not `merge` alone. Everything else
/// (spaces, punctuation, `-`, `/`, `.`) separates words.
pub fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    word_spans(text).map(|(start, end)| text[start..end].to_lowercase())
}

/// Where each of [`words`]' words is in `text` (byte ranges), in order.
pub fn word_spans(text: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    text.split(|c: char| !c.is_alphanumeric() && c != '_')
        .map(|word| word.trim_matches('_'))
        .filter(|word| !word.is_empty())
        .map(move |word| {
            let start = word.as_ptr() as usize - text.as_ptr() as usize;
            (start, start + word.len())
        })
}

impl Parsed {
    /// Reads `query`; `now_ms` is the time relative spans (`after:7d`) count back from.
    pub fn parse(query: &str, now_ms: i64) -> Result<Parsed, QueryError> {
        let trimmed = query.trim();
        if let Some(pattern) = trimmed.strip_prefix('/').and_then(|rest| rest.strip_suffix('/'))
            && !pattern.is_empty()
        {
            return Ok(Parsed { regex: Some(pattern.to_owned()), ..Parsed::default() });
        }
        let mut parsed = Parsed::default();
        // An `OR` just read: the next clause joins the one before it.
        let mut joining = false;
        for token in tokens(trimmed)? {
            if token.text == "OR" && !token.quoted && !token.negated {
                if joining || parsed.clauses.last().is_none_or(|clause| clause.negated) {
                    return Err(QueryError::LoneOr);
                }
                joining = true;
                continue;
            }
            if !token.quoted
                && let Some((key, value)) = token.text.split_once(':')
                && let Some(key) = filter_key(key)
            {
                if joining {
                    return Err(QueryError::LoneOr);
                }
                let value = value.trim_matches('"');
                let filter = filter(key, value, now_ms)?;
                parsed.filters.push(FilterClause { filter, negated: token.negated });
                continue;
            }
            let Some(term) = term(&token) else { continue };
            if joining {
                joining = false;
                if token.negated {
                    return Err(QueryError::LoneOr);
                }
                if let Some(last) = parsed.clauses.last_mut() {
                    last.any_of.push(term);
                }
                continue;
            }
            parsed.clauses.push(Clause { any_of: vec![term], negated: token.negated });
        }
        if joining {
            return Err(QueryError::LoneOr);
        }
        let finds = parsed.clauses.iter().any(|clause| !clause.negated) || !parsed.filters.is_empty();
        if !finds && !parsed.clauses.is_empty() {
            return Err(QueryError::NothingToFind);
        }
        Ok(parsed)
    }

    /// Reads `query` as a person types it into a box that answers every key: a filter key at
    /// its very end still waiting for its value (`deploy agent:`) is left out, not an error; the
    /// box's completions offer its values meanwhile ([`completions`]). Any other fault is
    /// [`Parsed::parse`]'s.
    pub fn parse_typed(query: &str, now_ms: i64) -> Result<Parsed, QueryError> {
        match Parsed::parse(query, now_ms) {
            Err(QueryError::NoValue(key)) => {
                let trimmed = query.trim_end();
                let last = trimmed.rsplit(char::is_whitespace).next().unwrap_or_default();
                let waiting =
                    last.trim_start_matches('-').strip_suffix(':').is_some_and(|typed| filter_key(typed) == Some(key));
                match trimmed.strip_suffix(last) {
                    Some(before) if waiting => Parsed::parse(before, now_ms),
                    _ => Err(QueryError::NoValue(key)),
                }
            }
            parsed => parsed,
        }
    }

    /// Whether the query holds nothing at all (an empty box).
    pub fn is_empty(&self) -> bool {
        self.clauses.is_empty() && self.filters.is_empty() && self.regex.is_none()
    }

    /// Whether a session that holds the clauses `found` (by their index) matches: it holds every
    /// clause, and none negated.
    pub fn holds(&self, found: &[bool]) -> bool {
        self.clauses.iter().zip(found).all(|(clause, &found)| found != clause.negated)
    }

    /// A tally of which clauses the texts of one session hold.
    pub fn matching(&self) -> Matching<'_> {
        Matching { parsed: self, found: vec![false; self.clauses.len()] }
    }
}

/// One piece of a query as typed: a word or a quoted phrase, with its `-`.
struct Token {
    text: String,
    quoted: bool,
    negated: bool,
}

/// The query cut at spaces outside quotes; a `key:"a value"` stays one token.
fn tokens(query: &str) -> Result<Vec<Token>, QueryError> {
    let mut tokens = Vec::new();
    let mut chars = query.chars().peekable();
    loop {
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        let Some(&first) = chars.peek() else { break };
        let mut negated = false;
        if first == '-' {
            chars.next();
            negated = true;
        }
        let mut text = String::new();
        let mut quoted = false;
        if chars.next_if_eq(&'"').is_some() {
            quoted = true;
            loop {
                match chars.next() {
                    Some('"') => break,
                    Some(c) => text.push(c),
                    None => return Err(QueryError::UnclosedQuote),
                }
            }
        } else {
            // A word, in which a `key:"…"` value keeps its spaces.
            let mut in_quote = false;
            while let Some(&c) = chars.peek() {
                if c.is_whitespace() && !in_quote {
                    break;
                }
                if c == '"' {
                    in_quote = !in_quote;
                }
                text.push(c);
                chars.next();
            }
            if in_quote {
                return Err(QueryError::UnclosedQuote);
            }
        }
        if negated && text.is_empty() && !quoted {
            // A `-` alone is no exclusion: nothing to exclude.
            continue;
        }
        tokens.push(Token { text, quoted, negated });
    }
    Ok(tokens)
}

/// The filter key a word names, if it names one: other words with a colon (`http://…`,
/// `std::fs`) are searched for as words.
fn filter_key(key: &str) -> Option<&'static str> {
    FILTER_KEYS.into_iter().find(|known| known.eq_ignore_ascii_case(key))
}

/// The filters' keys, as they are written before their `:`.
pub const FILTER_KEYS: [&str; 10] =
    ["agent", "project", "model", "tool", "file", "role", "after", "before", "is", "tag"];

/// The values a filter takes that a history knows, for completing them as they are typed.
#[derive(Clone, Debug, Default)]
pub struct KnownValues {
    pub agents: Vec<String>,
    pub projects: Vec<String>,
    pub models: Vec<String>,
    pub tools: Vec<String>,
    pub tags: Vec<String>,
}

/// Completions of `text`'s last word, at most `limit`, each the whole query completed: a filter
/// key the word starts (`ag` → `agent:`), or a value of the filter it names (`agent:co` →
/// `agent:codex`, any case; `role:` and `is:` complete their own values). A text that ends with a
/// space, or whose last word is complete, has none.
pub fn completions(text: &str, known: &KnownValues, limit: usize) -> Vec<String> {
    let start = text.rfind(char::is_whitespace).map_or(0, |at| at + 1);
    let (before, word) = text.split_at(start);
    let (sign, word) = match word.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", word),
    };
    let mut out = Vec::new();
    if word.is_empty() || word.starts_with('"') {
        return out;
    }
    let starts = |candidate: &str, typed: &str| {
        candidate.len() > typed.len()
            && candidate.get(..typed.len()).is_some_and(|head| head.eq_ignore_ascii_case(typed))
    };
    match word.split_once(':') {
        None => {
            for key in FILTER_KEYS.into_iter().filter(|key| starts(key, word)) {
                out.push(format!("{before}{sign}{key}:"));
            }
        }
        Some((key, typed)) => {
            let Some(key) = filter_key(key) else { return out };
            let fixed: &[&str] = match key {
                "role" => &["user", "assistant", "tool"],
                "is" => &["failed", "starred"],
                _ => &[],
            };
            let values: Vec<&str> = match key {
                "agent" => known.agents.iter().map(String::as_str).collect(),
                "project" => known.projects.iter().map(String::as_str).collect(),
                "model" => known.models.iter().map(String::as_str).collect(),
                "tool" => known.tools.iter().map(String::as_str).collect(),
                "tag" => known.tags.iter().map(String::as_str).collect(),
                _ => fixed.to_vec(),
            };
            for value in values {
                // A value with a space would be two words: it is not offered.
                if (typed.is_empty() || starts(value, typed)) && !value.contains(char::is_whitespace) {
                    let completed = format!("{before}{sign}{key}:{value}");
                    if !out.contains(&completed) {
                        out.push(completed);
                    }
                }
            }
        }
    }
    out.truncate(limit);
    out
}

fn filter(key: &'static str, value: &str, now_ms: i64) -> Result<Filter, QueryError> {
    if value.is_empty() {
        return Err(QueryError::NoValue(key));
    }
    let text = value.to_owned();
    Ok(match key {
        "agent" => Filter::Agent(text.to_lowercase()),
        "project" => Filter::Project(text),
        "model" => Filter::Model(text.to_lowercase()),
        "tool" => Filter::Tool(text),
        "file" => Filter::File(text),
        "tag" => Filter::Tag(text),
        "role" => Filter::Role(match value.to_lowercase().as_str() {
            "user" | "human" => Role::User,
            "assistant" | "agent" | "ai" => Role::Assistant,
            "tool" | "tools" => Role::Tool,
            _ => return Err(QueryError::UnknownRole(text)),
        }),
        "is" => Filter::Is(match value.to_lowercase().as_str() {
            "failed" | "error" => Flag::Failed,
            "starred" | "star" => Flag::Starred,
            _ => return Err(QueryError::UnknownFlag(text)),
        }),
        "after" => Filter::After(time(value, now_ms).ok_or(QueryError::NotATime(key, text))?),
        _ => Filter::Before(time(value, now_ms).ok_or(QueryError::NotATime(key, text))?),
    })
}

/// A date (`2026-11-01`, its start in UTC, or a whole timestamp) or a span before `now_ms`
/// (`36h`, `7d`, `2w`, `1y`).
fn time(value: &str, now_ms: i64) -> Option<i64> {
    const HOUR: i64 = 3_600_000;
    if let Some(unit) = value.chars().last().filter(char::is_ascii_alphabetic) {
        let count: i64 = value[..value.len() - 1].parse().ok()?;
        let per = match unit.to_ascii_lowercase() {
            'h' => HOUR,
            'd' => 24 * HOUR,
            'w' => 7 * 24 * HOUR,
            'y' => 365 * 24 * HOUR,
            _ => return crate::json::parse_timestamp_ms(value),
        };
        return now_ms.checked_sub(count.checked_mul(per)?);
    }
    crate::json::day_start_ms(value).or_else(|| crate::json::parse_timestamp_ms(value))
}

/// The term a token looks for; `None` if it holds no word (`-`, `"!!"`).
fn term(token: &Token) -> Option<Term> {
    let prefix = !token.quoted && token.text.ends_with('*');
    let text = if prefix { token.text.trim_end_matches('*') } else { &token.text };
    let mut found: Vec<String> = words(text).collect();
    match found.len() {
        0 => None,
        1 if prefix => found.pop().map(Term::Prefix),
        1 => found.pop().map(Term::Word),
        _ => Some(Term::Phrase(found)),
    }
}

impl Term {
    /// Where this term is found in `words` (the words of one text): the index of its first
    /// word, and how many words it covers.
    pub fn find(&self, words: &[String]) -> Option<(usize, usize)> {
        match self {
            Term::Word(word) => words.iter().position(|w| w == word).map(|at| (at, 1)),
            Term::Prefix(start) => words.iter().position(|w| w.starts_with(start.as_str())).map(|at| (at, 1)),
            Term::Phrase(phrase) => {
                words.windows(phrase.len()).position(|window| window == phrase.as_slice()).map(|at| (at, phrase.len()))
            }
        }
    }
}

/// Which clauses of a query the texts of one session hold so far ([`Parsed::matching`]).
pub struct Matching<'q> {
    parsed: &'q Parsed,
    found: Vec<bool>,
}

impl Matching<'_> {
    /// Takes in one text of the session; answers whether it holds a clause the query looks for
    /// (one not negated), so the caller may keep it as a snippet.
    pub fn text(&mut self, text: &str) -> bool {
        let words: Vec<String> = words(text).collect();
        let mut holds = false;
        for (clause, found) in self.parsed.clauses.iter().zip(self.found.iter_mut()) {
            if clause.any_of.iter().any(|term| term.find(&words).is_some()) {
                *found = true;
                holds |= !clause.negated;
            }
        }
        holds
    }

    /// Whether the session matches: it holds every clause, and none negated.
    pub fn matches(&self) -> bool {
        self.parsed.holds(&self.found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: i64 = 1_795_000_000_000;

    fn parse(query: &str) -> Parsed {
        Parsed::parse(query, NOW).unwrap_or_else(|error| panic!("{query}: {error}"))
    }

    fn word(text: &str) -> Term {
        Term::Word(text.to_owned())
    }

    #[test]
    fn words_in_any_order_make_one_clause_each() {
        let parsed = parse("kettle Cold  morning");
        let terms: Vec<&Term> = parsed.clauses.iter().flat_map(|clause| &clause.any_of).collect();
        assert_eq!(terms, [&word("kettle"), &word("cold"), &word("morning")]);
        assert!(parsed.clauses.iter().all(|clause| !clause.negated));
        let mut matching = parsed.matching();
        assert!(matching.text("The morning was long."));
        assert!(!matching.matches(), "two words are not found yet");
        assert!(matching.text("A cold kettle."));
        assert!(matching.matches(), "every word, over two texts, in another order");
    }

    #[test]
    fn phrases_prefixes_exclusions_and_or() {
        let parsed = parse(r#""read the logs" deploy* -staging rollback OR revert"#);
        assert_eq!(
            parsed.clauses,
            [
                Clause { any_of: vec![Term::Phrase(vec!["read".into(), "the".into(), "logs".into()])], negated: false },
                Clause { any_of: vec![Term::Prefix("deploy".into())], negated: false },
                Clause { any_of: vec![word("staging")], negated: true },
                Clause { any_of: vec![word("rollback"), word("revert")], negated: false },
            ]
        );
        let session = |texts: &[&str]| {
            let mut matching = parsed.matching();
            for text in texts {
                matching.text(text);
            }
            matching.matches()
        };
        assert!(session(&["We read the logs, then deployed.", "Revert it."]));
        assert!(!session(&["We read logs the, then deployed.", "Revert it."]), "a phrase keeps its order");
        assert!(!session(&["We read the logs, then deployed.", "Revert staging."]), "an excluded word");
        assert!(!session(&["We read the logs, then deployed."]), "neither side of the OR");
        assert!(session(&["Read the logs; deployment; rollback."]));
    }

    #[test]
    fn a_word_with_separators_is_a_phrase_and_a_colon_not_a_filter_is_a_word() {
        let parsed = parse("parse-time std::fs _parse_time_");
        assert_eq!(parsed.clauses[0].any_of, [Term::Phrase(vec!["parse".into(), "time".into()])]);
        assert_eq!(parsed.clauses[1].any_of, [Term::Phrase(vec!["std".into(), "fs".into()])]);
        // `_` joins an identifier into one word, as Unicode's word boundaries do.
        assert_eq!(parsed.clauses[2].any_of, [word("parse_time")]);
        assert!(parsed.filters.is_empty());
        let found: Vec<String> = words("call merge_duplicates(), not merge; __init__ x_").collect();
        assert_eq!(found, ["call", "merge_duplicates", "not", "merge", "init", "x"]);
    }

    #[test]
    fn filters_are_read_with_their_values() {
        let parsed = parse(
            r#"agent:Codex project:"my shop" model:opus tool:Bash file:src/main.rs role:user is:failed -is:starred tag:release after:2026-11-01 before:7d migrate"#,
        );
        let filters: Vec<(Filter, bool)> = parsed.filters.iter().map(|f| (f.filter.clone(), f.negated)).collect();
        assert_eq!(
            filters,
            [
                (Filter::Agent("codex".into()), false),
                (Filter::Project("my shop".into()), false),
                (Filter::Model("opus".into()), false),
                (Filter::Tool("Bash".into()), false),
                (Filter::File("src/main.rs".into()), false),
                (Filter::Role(Role::User), false),
                (Filter::Is(Flag::Failed), false),
                (Filter::Is(Flag::Starred), true),
                (Filter::Tag("release".into()), false),
                (Filter::After(1_793_491_200_000), false),
                (Filter::Before(NOW - 7 * 86_400_000), false),
            ]
        );
        assert_eq!(parsed.clauses.len(), 1, "the one word beside the filters");
        assert_eq!(parse("agent:claude").clauses, [], "a filter alone is a query");
    }

    #[test]
    fn a_query_between_slashes_is_a_regular_expression() {
        assert_eq!(parse(r"/zanzibar-\d+/").regex.as_deref(), Some(r"zanzibar-\d+"));
        assert!(parse("/").regex.is_none());
    }

    #[test]
    fn a_key_typed_last_waits_for_its_value() {
        let typed = |query: &str| Parsed::parse_typed(query, NOW);
        assert_eq!(typed("deploy agent:"), Parsed::parse("deploy", NOW));
        assert_eq!(typed("deploy -Agent:  "), Parsed::parse("deploy", NOW));
        assert_eq!(typed("agent:"), Ok(Parsed::default()));
        // Only the last: a key without its value before other words is still said.
        assert_eq!(typed("agent: deploy"), Err(QueryError::NoValue("agent")));
        assert_eq!(typed("agent: deploy project:"), Err(QueryError::NoValue("agent")));
        assert_eq!(typed("role:robot"), Err(QueryError::UnknownRole("robot".into())));
    }

    #[test]
    fn what_cannot_be_read_is_said_in_words() {
        let error = |query: &str| Parsed::parse(query, NOW).expect_err(query);
        assert_eq!(error(r#""read the"#), QueryError::UnclosedQuote);
        assert_eq!(error(r#"project:"my shop"#), QueryError::UnclosedQuote);
        assert_eq!(error("agent:"), QueryError::NoValue("agent"));
        assert_eq!(error("role:robot"), QueryError::UnknownRole("robot".into()));
        assert_eq!(error("is:green"), QueryError::UnknownFlag("green".into()));
        assert_eq!(error("after:soon"), QueryError::NotATime("after", "soon".into()));
        assert_eq!(error("before:2026-02-30"), QueryError::NotATime("before", "2026-02-30".into()));
        assert_eq!(error("OR deploy"), QueryError::LoneOr);
        assert_eq!(error("deploy OR"), QueryError::LoneOr);
        assert_eq!(error("deploy OR OR revert"), QueryError::LoneOr);
        assert_eq!(error("-staging"), QueryError::NothingToFind);
        assert!(error("role:robot").to_string().contains("role:user"));
    }

    proptest::proptest! {
        /// Any text is read, or refused in words: never a panic (quotes, dashes, colons, stars).
        #[test]
        fn any_text_is_read_or_refused(query in r#"[a-z:*"/\- ORisagent]{0,40}|\PC{0,60}"#) {
            let _ = Parsed::parse(&query, NOW);
        }

        /// Words in any order, spread over several texts of a session, find it; and a session
        /// that lacks one of them is not found.
        #[test]
        fn words_are_found_in_any_order_and_any_text(
            picked in proptest::sample::subsequence(VOCABULARY.to_vec(), 1..5),
            order in proptest::collection::vec(0usize..100, 5),
            split in 1usize..4,
        ) {
            let query = picked.join(" ");
            let parsed = Parsed::parse(&query, NOW).expect("words are a query");
            let mut shuffled: Vec<(usize, &str)> = picked.iter().enumerate().map(|(i, w)| (order[i], *w)).collect();
            shuffled.sort();
            let texts: Vec<String> = shuffled
                .chunks(split)
                .map(|chunk| chunk.iter().map(|(_, w)| format!("The {}.", w.to_uppercase())).collect::<Vec<_>>().join(" "))
                .collect();
            let mut matching = parsed.matching();
            for text in &texts {
                matching.text(text);
            }
            proptest::prop_assert!(matching.matches(), "{query} in {texts:?}");
            let mut short = parsed.matching();
            for text in texts.iter().map(|text| text.replace(&picked[0].to_uppercase(), "")) {
                short.text(&text);
            }
            proptest::prop_assert!(!short.matches(), "{query} without {}", picked[0]);
        }
    }

    const VOCABULARY: [&str; 8] = ["kettle", "deploy", "zanzibar", "migration", "rollback", "cache", "tokio", "parser"];

    #[test]
    fn an_empty_query_is_empty() {
        assert!(parse("").is_empty());
        assert!(parse("  - \"\" ").is_empty());
        assert!(!parse("a").is_empty());
    }

    #[test]
    fn completes_filter_keys_and_the_values_a_history_knows() {
        let known = KnownValues {
            agents: vec!["claude".into(), "codex".into()],
            projects: vec!["kettle".into(), "garden".into()],
            models: vec!["claude-sonnet-4-5".into(), "gpt-5-codex".into()],
            tools: vec!["Bash".into(), "Read".into()],
            tags: vec!["release".into(), "two words".into()],
        };
        assert_eq!(completions("kettle ag", &known, 10), ["kettle agent:"]);
        assert_eq!(completions("-p", &known, 10), ["-project:"]);
        assert_eq!(completions("cold agent:", &known, 10), ["cold agent:claude", "cold agent:codex"]);
        assert_eq!(completions("agent:CO", &known, 10), ["agent:codex"]);
        assert_eq!(completions("tool:b", &known, 10), ["tool:Bash"]);
        assert_eq!(completions("role:a", &known, 10), ["role:assistant"]);
        assert_eq!(completions("is:", &known, 10), ["is:failed", "is:starred"]);
        // A value with a space is not offered; a complete word, or a space typed, completes nothing.
        assert_eq!(completions("tag:", &known, 10), ["tag:release"]);
        assert!(completions("agent:codex", &known, 10).is_empty());
        assert!(completions("kettle ", &known, 10).is_empty());
        assert!(completions("colour:b", &known, 10).is_empty());
        assert_eq!(completions("model:", &known, 1), ["model:claude-sonnet-4-5"]);
    }
}
