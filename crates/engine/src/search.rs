//! Searching everything loaded: prompts and answers, thinking, tool inputs and results, in
//! every conversation and on every branch. Plain text (case-insensitive) or a regular
//! expression, matched on decoded text (escapes in the JSON do not hide a match). The search
//! runs over a range of entries at a time, so a caller can stream results as they are found.

use std::borrow::Cow;
use std::sync::Arc;

use regex::{Regex, RegexBuilder};
use serde::{Deserialize, Serialize};

use crate::json;
use crate::model::{BlockId, BlockKind, Corpus, Entry, EntryFlags, EntryId, FileId};
use crate::span::Span;

/// What part of an entry a hit is in.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub enum Field {
    Text,
    Thinking,
    ToolInput,
    ToolResult,
    ToolName,
}

impl Field {
    pub fn name(self) -> &'static str {
        match self {
            Field::Text => "text",
            Field::Thinking => "thinking",
            Field::ToolInput => "tool input",
            Field::ToolResult => "tool result",
            Field::ToolName => "tool name",
        }
    }
}

/// One match.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Hit {
    pub entry: EntryId,
    pub field: Field,
    /// The block of the entry it is in, or `BlockId::NONE` for the entry's string content.
    pub block: BlockId,
    /// The text around the match, on one line, and where the match is in it (char offsets).
    pub context: String,
    pub match_start: u32,
    pub match_len: u32,
    /// The whole text the match is in, for a query made [`Query::with_sources`]: an output that
    /// redacts makes its own context from it, redacted first. Never sent anywhere.
    #[serde(skip)]
    pub source: Option<HitSource>,
}

/// The whole text of a searched field and where a match is in it (byte offsets): an output that
/// redacts redacts the whole text, then cuts the context around the match from the redacted
/// text ([`crate::redact::RedactedText::map`], [`snippet`]), so no cut leaves a piece of a
/// secret the redaction no longer recognises. The text is shared by the hits of one field.
#[derive(Clone, Debug, PartialEq)]
pub struct HitSource {
    pub text: Arc<str>,
    pub start: usize,
    pub end: usize,
}

/// A compiled query.
#[derive(Clone, Debug)]
pub struct Query {
    /// Whether hits carry their field's whole text ([`Hit::source`]).
    sources: bool,
    regex: Regex,
    /// For a plain query whose text a JSON writer never escapes (printable ASCII but `"`, `\`,
    /// `/`, which some writers escape as `\/`, and `<`, `>`, `&`, which Go's writer escapes), the
    /// same match over raw file bytes: a file or line it does not match cannot hold a hit.
    raw: Option<RawText>,
}

/// The raw form of a plain query: printable ASCII text found in bytes whatever its ASCII case.
/// Its rarest byte is looked for (both cases at once, with `memchr`), then the whole text around
/// it. Much faster than a case-insensitive regular expression in wasm, which has no vectorised
/// literal search. It needs no regular expression, so the page asks it of a history's trigram
/// sets without the code of one.
#[derive(Clone, Debug)]
pub struct RawText {
    /// The text, in lower case.
    needle: Vec<u8>,
    /// The index in `needle` of the byte looked for.
    pivot: usize,
}

impl RawText {
    /// The raw form of a query, if it has one: a plain query (not a regular expression) whose
    /// text a JSON writer never escapes (printable ASCII but `"`, `\\`, `/`, which some writers
    /// escape as `\/`, and `<`, `>`, `&`, which Go's writer escapes).
    pub fn of(text: &str, is_regex: bool) -> Option<RawText> {
        let unescaped =
            text.bytes().all(|b| (b' '..=b'~').contains(&b) && !matches!(b, b'"' | b'\\' | b'/' | b'<' | b'>' | b'&'));
        (!is_regex && unescaped && !text.is_empty()).then(|| RawText::new(text.as_bytes()))
    }

    fn new(text: &[u8]) -> RawText {
        let needle = text.to_ascii_lowercase();
        let pivot = (0..needle.len()).min_by_key(|&i| commonness(needle[i])).unwrap_or(0);
        RawText { needle, pivot }
    }

    /// Whether a unit whose raw bytes gave `set` may hold the text: `false` only when it cannot.
    pub fn may_match_trigrams(&self, set: &crate::trigrams::TrigramSet) -> bool {
        set.may_hold(&self.needle)
    }

    /// Where the text starts at or after `from`.
    fn find_at(&self, haystack: &[u8], from: usize) -> Option<usize> {
        let lower = *self.needle.get(self.pivot)?;
        let upper = lower.to_ascii_uppercase();
        let mut at = from + self.pivot;
        while at < haystack.len() {
            let rest = &haystack[at..];
            let found =
                at + if lower == upper { memchr::memchr(lower, rest) } else { memchr::memchr2(lower, upper, rest) }?;
            let start = found - self.pivot;
            if haystack.get(start..start + self.needle.len()).is_some_and(|w| w.eq_ignore_ascii_case(&self.needle)) {
                return Some(start);
            }
            at = found + 1;
        }
        None
    }
}

/// How common a byte is in session logs (JSON of English text and code), roughly: the finder
/// looks for the least common byte of a query.
fn commonness(byte: u8) -> u8 {
    const LETTERS_BY_FREQUENCY: &[u8] = b"etaoinsrhldcumfpgwybvkxjqz";
    match byte {
        b' ' | b'"' | b':' | b',' => 255,
        b'a'..=b'z' => {
            let rank = LETTERS_BY_FREQUENCY.iter().position(|&b| b == byte).unwrap_or(0) as u8;
            220 - rank * 8
        }
        b'0'..=b'9' => 120,
        b'_' | b'-' | b'.' | b'{' | b'}' | b'[' | b']' => 110,
        _ => 20,
    }
}

/// Characters of context on each side of a match.
const CONTEXT_CHARS: usize = 60;
/// Hits kept per searchable field (the count goes on).
const HITS_PER_FIELD: usize = 20;

impl Query {
    /// A plain-text query (case-insensitive) or a regular expression (case-insensitive unless it
    /// says otherwise with `(?-i)`). An invalid regular expression is an error message.
    pub fn new(text: &str, is_regex: bool) -> Result<Query, String> {
        Query::with_case(text, is_regex, false)
    }

    /// A query as [`Query::new`] makes it, that matches letters' case as written when
    /// `case_sensitive` (a regular expression can still say otherwise with `(?i)`). Its raw form
    /// still ignores case: it only rules out bytes that cannot hold a hit.
    pub fn with_case(text: &str, is_regex: bool, case_sensitive: bool) -> Result<Query, String> {
        if text.is_empty() {
            return Err("the query is empty".into());
        }
        let pattern = if is_regex { text.to_owned() } else { regex::escape(text) };
        let raw = RawText::of(text, is_regex);
        RegexBuilder::new(&pattern)
            .case_insensitive(!case_sensitive)
            .size_limit(1 << 22)
            .build()
            .map(|regex| Query { sources: false, regex, raw })
            .map_err(|e| format!("not a valid regular expression: {e}"))
    }

    /// The query, its hits carrying the whole text they are in ([`Hit::source`]), for an
    /// output that redacts that text before it cuts the context around a match.
    pub fn with_sources(mut self) -> Query {
        self.sources = true;
        self
    }

    /// Whether raw file bytes may hold a hit: `false` only when they cannot, so a whole-history
    /// search skips parsing a file the query's text is not in. Regular expressions and text that
    /// JSON may escape always answer `true`.
    pub fn may_match_raw(&self, bytes: &[u8]) -> bool {
        self.raw.as_ref().is_none_or(|raw| raw.find_at(bytes, 0).is_some())
    }

    /// Whether a unit whose raw bytes gave `set` may hold a hit: `false` only when it cannot, so a
    /// whole-history search skips reading it. Answers `true` whenever [`Query::may_match_raw`]
    /// would for those bytes.
    pub fn may_match_trigrams(&self, set: &crate::trigrams::TrigramSet) -> bool {
        self.raw.as_ref().is_none_or(|raw| raw.may_match_trigrams(set))
    }

    /// Whether raw bytes can rule lines out: a plain query whose text no JSON writer escapes.
    pub fn has_raw_form(&self) -> bool {
        self.raw.is_some()
    }

    /// The lines of `bytes` (a JSONL file) that may hold a hit, in order, each once; `None` when
    /// the query has no raw form (see [`Query::may_match_raw`]) and every line may.
    pub fn raw_lines<'b>(&self, bytes: &'b [u8]) -> Option<impl Iterator<Item = &'b [u8]> + 'b> {
        let raw = self.raw.clone()?;
        let mut from = 0;
        Some(std::iter::from_fn(move || {
            if from > bytes.len() {
                return None;
            }
            let found = raw.find_at(bytes, from)?;
            let found_end = found + raw.needle.len();
            let start = memchr::memrchr(b'\n', &bytes[..found]).map_or(0, |at| at + 1);
            let end = memchr::memchr(b'\n', &bytes[found_end..]).map_or(bytes.len(), |at| found_end + at);
            // Past the line's newline: the next match is on another line.
            from = end + 1;
            Some(&bytes[start..end])
        }))
    }

    /// Searches entries `range` of `corpus`, calling `found` for each hit. Returns the number
    /// of matches (more than the hits when a field matches many times).
    pub fn search(&self, corpus: &Corpus, range: std::ops::Range<usize>, found: &mut dyn FnMut(Hit)) -> u64 {
        self.search_in(corpus, &Windows::none(), range, found)
    }

    /// [`Query::search`] with some files' bytes given as windows: the bytes of entries `range`
    /// ([`searched_extents`]), read for them alone, where the corpus does not hold the file.
    pub fn search_in(
        &self,
        corpus: &Corpus,
        windows: &Windows,
        range: std::ops::Range<usize>,
        found: &mut dyn FnMut(Hit),
    ) -> u64 {
        let mut count = 0;
        for e in range {
            let Some(entry) = corpus.entries.get(e) else { break };
            let e = EntryId::new(e);
            each_field(corpus, entry, |field, block, text| match text {
                FieldText::Raw(span) => {
                    count += self.look(windows.span_bytes(corpus, entry.file, span), e, field, block, found)
                }
                FieldText::Name(name) => count += self.found_in(name, e, field, block, found),
            });
        }
        count
    }

    fn look(&self, raw: &[u8], entry: EntryId, field: Field, block: BlockId, found: &mut dyn FnMut(Hit)) -> u64 {
        if raw.is_empty() {
            return 0;
        }
        self.found_in(&searchable(raw), entry, field, block, found)
    }

    /// Calls `found` with a hit for each of the first matches of `text`; returns all matches.
    fn found_in(&self, text: &str, entry: EntryId, field: Field, block: BlockId, found: &mut dyn FnMut(Hit)) -> u64 {
        let mut shared: Option<Arc<str>> = None;
        self.find(text, |start, end| {
            let (context, match_start, match_len) = snippet(text, start, end);
            let source = self.sources.then(|| HitSource {
                text: Arc::clone(shared.get_or_insert_with(|| Arc::from(text))),
                start,
                end,
            });
            found(Hit { entry, field, block, context, match_start, match_len, source });
        })
    }

    /// The byte ranges of every match in `text` (for highlighting shown text).
    pub fn matches(&self, text: &str) -> Vec<(usize, usize)> {
        self.regex.find_iter(text).filter(|m| m.start() < m.end()).map(|m| (m.start(), m.end())).collect()
    }

    /// Calls `each` with the byte range of the first matches of `text`; returns all matches.
    fn find(&self, text: &str, mut each: impl FnMut(usize, usize)) -> u64 {
        let mut count = 0;
        for m in self.regex.find_iter(text) {
            if m.start() == m.end() {
                continue;
            }
            if (count as usize) < HITS_PER_FIELD {
                each(m.start(), m.end());
            }
            count += 1;
        }
        count
    }
}

/// A searched field of an entry: a raw JSON value in its file (decoded before it is searched),
/// or a tool's name.
enum FieldText<'c> {
    Raw(Span),
    Name(&'c str),
}

/// Calls `each` with every field of `entry` a search looks in, in order: its string content,
/// then each block's text, thinking, tool name and input, or tool result.
fn each_field<'c>(corpus: &'c Corpus, entry: &Entry, mut each: impl FnMut(Field, BlockId, FieldText<'c>)) {
    if entry.flags.has(EntryFlags::STRING_CONTENT) && !entry.content.is_empty() {
        each(Field::Text, BlockId::NONE, FieldText::Raw(entry.content));
    }
    for (i, block) in corpus.blocks_of(entry).iter().enumerate() {
        let index = BlockId::new(entry.blocks_start as usize + i);
        let (field, span) = match block.kind {
            BlockKind::Text | BlockKind::Document => (Field::Text, block.body),
            BlockKind::Thinking => (Field::Thinking, block.body),
            BlockKind::ToolUse | BlockKind::ServerToolUse => {
                each(Field::ToolName, index, FieldText::Name(corpus.sym(block.name)));
                (Field::ToolInput, block.body)
            }
            BlockKind::ToolResult | BlockKind::ServerToolResult => (Field::ToolResult, block.body),
            _ => continue,
        };
        if !span.is_empty() {
            each(field, index, FieldText::Raw(span));
        }
    }
}

/// Windows of files a corpus does not hold: for each file, `None` (the corpus holds its bytes)
/// or where its window starts and the window's bytes. A span outside its window reads as empty.
#[derive(Default)]
pub struct Windows {
    pub files: Vec<Option<(u64, Vec<u8>)>>,
}

impl Windows {
    /// No windows: every file's bytes are the corpus'.
    pub fn none() -> Windows {
        Windows::default()
    }

    /// The bytes of `span` of `file`: from its window if it has one, else from the corpus.
    pub fn span_bytes<'a>(&'a self, corpus: &'a Corpus, file: FileId, span: Span) -> &'a [u8] {
        match self.files.get(file as usize) {
            Some(Some((start, bytes))) if !span.is_arena() => {
                let range = span.range();
                let start = usize::try_from(*start).unwrap_or(usize::MAX);
                match (range.start.checked_sub(start), range.end.checked_sub(start)) {
                    (Some(from), Some(to)) => bytes.get(from..to).unwrap_or_default(),
                    _ => &[],
                }
            }
            _ => corpus.span_bytes(file, span),
        }
    }
}

/// The bytes of each file a search of entries `range` reads: (file, start, end) for each file
/// with a field to read, in the order of the files. A worker that does not hold a big session's
/// bytes reads these windows for a step of its search ([`Query::search_in`]).
pub fn searched_extents(corpus: &Corpus, range: std::ops::Range<usize>) -> Vec<(FileId, u64, u64)> {
    let mut extents: Vec<(FileId, u64, u64)> = Vec::new();
    for entry in corpus.entries.get(range).unwrap_or_default() {
        each_field(corpus, entry, |_, _, text| {
            let FieldText::Raw(span) = text else { return };
            if span.is_arena() || span.is_empty() {
                return;
            }
            let range = span.range();
            let (start, end) = (range.start as u64, range.end as u64);
            match extents.iter_mut().find(|(file, _, _)| *file == entry.file) {
                Some(extent) => {
                    extent.1 = extent.1.min(start);
                    extent.2 = extent.2.max(end);
                }
                None => extents.push((entry.file, start, end)),
            }
        });
    }
    extents.sort_by_key(|(file, _, _)| *file);
    extents
}

/// Calls `each` with the raw bytes of every field a search of `corpus` looks in (each entry's
/// as [`Query::search`] reads them, before escapes are decoded): what a unit's
/// [`crate::trigrams::TrigramSet`] is made of.
pub fn each_searched_text(corpus: &Corpus, mut each: impl FnMut(&[u8])) {
    for entry in &corpus.entries {
        each_field(corpus, entry, |_, _, text| match text {
            FieldText::Raw(span) => each(corpus.span_bytes(entry.file, span)),
            FieldText::Name(name) => each(name.as_bytes()),
        });
    }
}

/// A text a search looks in, as the log wrote it: a raw JSON value, whose strings' escapes are
/// not yet decoded, or plain text (a tool's name, a session's title).
#[derive(Clone, Copy, Debug)]
pub enum Written<'a> {
    Json(&'a [u8]),
    Plain(&'a str),
}

impl<'a> Written<'a> {
    /// The text a search reads of it: a JSON value's strings decoded (`searchable`).
    pub fn decoded(self) -> Cow<'a, str> {
        match self {
            Written::Json(raw) => searchable(raw),
            Written::Plain(text) => Cow::Borrowed(text),
        }
    }
}

/// Calls `each` with every field of `entry` a search looks in, as written: what a word search
/// ([`crate::rank`]) reads, decoded or not.
pub fn each_written_text(corpus: &Corpus, entry: &Entry, mut each: impl FnMut(Field, Written<'_>)) {
    each_field(corpus, entry, |field, _, text| match text {
        FieldText::Raw(span) => each(field, Written::Json(corpus.span_bytes(entry.file, span))),
        FieldText::Name(name) => each(field, Written::Plain(name)),
    });
}

/// Calls `each` with every field of `entry` a search looks in, its text decoded.
pub fn each_decoded_text(corpus: &Corpus, entry: &Entry, mut each: impl FnMut(Field, &str)) {
    each_written_text(corpus, entry, |field, text| each(field, &text.decoded()));
}

/// The trigram set of a parsed unit (`unit_bytes` in all, which sizes the set): the trigrams of
/// every text a search looks in ([`each_searched_text`]).
pub fn trigrams_of(corpus: &Corpus, unit_bytes: u64) -> crate::trigrams::TrigramSet {
    let mut builder = crate::trigrams::TrigramSetBuilder::new(unit_bytes);
    each_searched_text(corpus, |text| {
        builder.start_text();
        builder.add(text);
    });
    builder.finish()
}

/// The text of a raw JSON value to search: a string decoded (only when it has escapes), an
/// object or array as its JSON text with its escapes decoded in place.
pub(crate) fn searchable(raw: &[u8]) -> Cow<'_, str> {
    if memchr::memchr(b'\\', raw).is_none() {
        let text = String::from_utf8_lossy(raw);
        return match text {
            Cow::Borrowed(t) => Cow::Borrowed(t.strip_prefix('"').and_then(|t| t.strip_suffix('"')).unwrap_or(t)),
            Cow::Owned(t) => Cow::Owned(t),
        };
    }
    if json::is_string_literal(raw) {
        return json::decode_value(raw);
    }
    // Objects and arrays: decode the escapes of their strings, keeping the rest as written.
    Cow::Owned(json::decode_string_body(raw).into_owned())
}

/// One line of context around `start..end` (byte offsets) of `text`: (context, match start,
/// match length) with offsets in chars ([`crate::cut::around`], which never splits a redaction
/// marker). An output that redacts gives the redacted text, and the match's place in it.
pub fn snippet(text: &str, start: usize, end: usize) -> (String, u32, u32) {
    let excerpt = crate::cut::around(text, start, end, CONTEXT_CHARS);
    (excerpt.text, excerpt.match_start, excerpt.match_len)
}

#[cfg(test)]
mod tests {
    #[test]
    fn raw_bytes_rule_out_only_files_that_cannot_match() {
        let plain = Query::new("Kettle", false).unwrap();
        assert!(plain.may_match_raw(br#"{"text":"the KETTLE boils"}"#));
        assert!(!plain.may_match_raw(br#"{"text":"the pot boils"}"#));
        // Text a writer may escape is not ruled out by raw bytes.
        let slash = Query::new("src/lib", false).unwrap();
        assert!(slash.may_match_raw(br#"{"text":"src\/lib.rs"}"#));
        let quote = Query::new("say \"hi\"", false).unwrap();
        assert!(quote.may_match_raw(b"{}"));
        let accented = Query::new("caf\u{e9}", false).unwrap();
        assert!(accented.may_match_raw(br#"{"text":"caf\u00e9"}"#));
        let regex = Query::new("k.ttle", true).unwrap();
        assert!(regex.may_match_raw(b"{}"));
    }

    use super::*;
    use crate::Loader;

    proptest::proptest! {
        #[test]
        fn the_ascii_finder_finds_what_a_case_blind_scan_finds(
            haystack in proptest::collection::vec(proptest::sample::select(b"abAB z\n\"xX".to_vec()), 0..200),
            needle in proptest::collection::vec(proptest::sample::select(b"abAB zxX".to_vec()), 1..5),
            from in 0usize..210,
        ) {
            let finder = RawText::new(&needle);
            let from = from.min(haystack.len());
            let expected = (from..haystack.len())
                .find(|&i| haystack.get(i..i + needle.len()).is_some_and(|w| w.eq_ignore_ascii_case(&needle)));
            proptest::prop_assert_eq!(finder.find_at(&haystack, from), expected);
        }
    }

    fn corpus(text: &str) -> Corpus {
        let mut loader = Loader::new();
        loader.add_bytes("s.jsonl", text.as_bytes());
        loader.finish()
    }

    fn all(query: &Query, corpus: &Corpus) -> (Vec<Hit>, u64) {
        let mut hits = Vec::new();
        let count = query.search(corpus, 0..corpus.entries.len(), &mut |h| hits.push(h));
        (hits, count)
    }

    const SESSION: &str = concat!(
        r#"{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","message":{"role":"user","content":"Why does\n\"cargo test\" FAIL?"}}"#,
        "\n",
        r#"{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s","message":{"id":"m1","content":[{"type":"thinking","thinking":"Probably the parser.","signature":"x"},{"type":"text","text":"Let me run it."},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"cargo test -- --nocapture\nexit"}}]}}"#,
        "\n",
        r#"{"type":"user","uuid":"r1","parentUuid":"a1","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"test parser::lone ... FAILED\npanicked at src/parser.rs:42"}]}}"#,
        "\n",
    );

    #[test]
    fn plain_queries_ignore_case_and_escapes() {
        let corpus = corpus(SESSION);
        let (hits, count) = all(&Query::new("\"cargo TEST\"", false).unwrap(), &corpus);
        assert_eq!(count, 1, "the escaped quotes of the prompt are decoded");
        assert_eq!(hits[0].field, Field::Text);
        let (hits, count) = all(&Query::new("parser", false).unwrap(), &corpus);
        assert_eq!(count, 3);
        let fields: Vec<Field> = hits.iter().map(|h| h.field).collect();
        assert_eq!(fields, [Field::Thinking, Field::ToolResult, Field::ToolResult]);
        let (hits, _) = all(&Query::new("nocapture\nexit", false).unwrap(), &corpus);
        assert_eq!(hits[0].field, Field::ToolInput, "a newline escaped inside a tool input matches");
        let (hits, _) = all(&Query::new("bash", false).unwrap(), &corpus);
        assert_eq!(hits[0].field, Field::ToolName);
    }

    #[test]
    fn regular_expressions_and_context() {
        let corpus = corpus(SESSION);
        let (hits, count) = all(&Query::new(r"src/\w+\.rs:\d+", true).unwrap(), &corpus);
        assert_eq!(count, 1);
        let hit = &hits[0];
        let matched: String = hit.context.chars().skip(hit.match_start as usize).take(hit.match_len as usize).collect();
        assert_eq!(matched, "src/parser.rs:42");
        assert!(!hit.context.contains('\n'));
        assert!(Query::new("(unclosed", true).is_err());
        assert!(Query::new("(unclosed", false).is_ok(), "plain text is taken literally");
    }

    #[test]
    fn a_case_sensitive_query_matches_the_case_as_written() {
        let corpus = corpus(SESSION);
        let (_, count) = all(&Query::with_case("FAIL", false, true).unwrap(), &corpus);
        assert_eq!(count, 2, "FAIL? and FAILED, not the lower-case fail");
        let (_, count) = all(&Query::with_case("fail", false, true).unwrap(), &corpus);
        assert_eq!(count, 0);
        let (_, count) = all(&Query::with_case("Pars.r", true, true).unwrap(), &corpus);
        assert_eq!(count, 0, "a regular expression too");
        assert!(Query::with_case("fail", false, true).unwrap().may_match_raw(b"FAIL"), "the raw form ignores case");
    }

    #[test]
    fn a_hit_redacted_whole_then_cut_keeps_its_match_marked() {
        use crate::redact::{DetectOptions, LineRef, Redactor};
        let token = "eyX7Kq2Lm9Pz4Rt8Vw3Yb6Nc1Kd5Hj0GfQs2Ua7b";
        // The context's window (60 characters) before the match starts inside the token.
        let text = format!("Authorization: Bearer {token} and then the pot and the cups went kettle, all fine");
        let line = serde_json::json!({"type": "user", "uuid": "u1", "parentUuid": null, "sessionId": "s",
            "message": {"role": "user", "content": text}});
        let corpus = corpus(&line.to_string());
        let (hits, _) = all(&Query::new("KETTLE", false).unwrap().with_sources(), &corpus);
        let source = hits[0].source.clone().expect("the hit carries its text");
        assert!(hits[0].context.contains(&token[20..30]), "cut first, the context shows a piece of the token");

        let mut redactor = Redactor::new(&DetectOptions::default()).unwrap();
        redactor.scan_text_line(LineRef::new(0, 1), source.text.as_bytes());
        let shown = redactor.redact_mapped(&source.text);
        let at = shown.map(source.start..source.end);
        let (context, start, len) = snippet(&shown.text, at.start, at.end);
        let matched: String = context.chars().skip(start as usize).take(len as usize).collect();
        assert_eq!(matched, "kettle");
        assert!(context.contains("[REDACTED:bearer-token#1]"), "{context}");
        let pieces: Vec<&str> = (0..=token.len() - 6).map(|at| &token[at..at + 6]).collect();
        assert!(pieces.iter().all(|piece| !context.contains(piece)), "{context}");
        // Without sources, hits carry none.
        let (plain, _) = all(&Query::new("kettle", false).unwrap(), &corpus);
        assert!(plain[0].source.is_none());
    }

    #[test]
    fn searching_in_ranges_finds_the_same_as_all_at_once() {
        let corpus = corpus(SESSION);
        let query = Query::new("t", false).unwrap();
        let (whole, total) = all(&query, &corpus);
        let mut parts = Vec::new();
        let mut counted = 0;
        for start in 0..corpus.entries.len() {
            counted += query.search(&corpus, start..start + 1, &mut |h| parts.push(h));
        }
        assert_eq!(parts, whole);
        assert_eq!(counted, total);
    }
}
