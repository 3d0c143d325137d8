//! Aider chat histories (`.aider.chat.history.md` in a project's root): markdown that Aider
//! appends to on every run, read line by line.
//!
//! - `# aider chat started at <YYYY-MM-DD HH:MM:SS>` starts a run. One file holds every run of
//!   the project, and each run is a session of its own: its id is `<file path>#<start time>`
//!   (`T` between date and time; a second run started in the same second gets `#L<line>` too),
//!   stable across loads. The header is a system entry of its session (the run's first entry,
//!   the only one with a time: Aider writes no other, and this one in local time without a zone,
//!   read as UTC), so a run that holds no conversation (Aider started and quit) is still a
//!   session, with aider's output and no message.
//! - `#### ` lines are the user's input; consecutive ones are one input of several lines
//!   (`#### <blank>` is an empty one). A user message.
//! - `> ` lines are Aider's own output (banners, questions and answers, warnings, errors, token
//!   reports, commits); consecutive ones are one system entry. A message of several lines that
//!   Aider wrote through `tool_output` has `> ` on its first line only: as every record Aider
//!   writes ends with two spaces, a `> ` line without them goes on until a line that has them
//!   (only in a file whose lines keep their trailing spaces). Lines read from it: `Aider v…`
//!   (the version), `Main model: …` or `Model: …` (the model of the replies, and the edit
//!   format after `with`; `Editor model:` in architect mode), `Tokens: … Cost: …` (the usage
//!   and cost of the reply before it), `Applied edit to <file>` (the result of the edits of that
//!   file), `The LLM did not conform to the edit format.` (the edits waiting for a result failed).
//! - Any other text is the assistant's reply (markdown), up to the next `#### `, `> ` or header
//!   line; inside a fenced code block, a header line, and `#### ` and `> ` lines without Aider's
//!   two closing spaces, are the reply's. Each SEARCH/REPLACE block in it (a file path line, a
//!   fence, `<<<<<<< SEARCH`, the old lines, `=======`, the new lines, `>>>>>>> REPLACE`)
//!   becomes an `Edit` tool call with Claude Code's input (`file_path`, `old_string`,
//!   `new_string`), so it is shown as a diff and counted as an edit of that file; the text around
//!   the blocks stays text. In the `whole` edit format, a path line then a fenced block is a
//!   `Write` call of the whole file (`file_path`, `content`). Edits wait for `Applied edit to`
//!   until the next reply or input: those never applied keep no result. A leading
//!   `<thinking-content-…>` section or `► **THINKING**` part is a thinking block.
//!
//! No working directory is set: Aider writes the file in the project's root, so the project is
//! the file's folder, the same for every run (a banner's `Git working dir:`, printed only when
//! Aider was started in a subfolder, stays in its notice).
//!
//! Blank lines separate markdown paragraphs: the loader counts them as ignored without a
//! diagnostic, and the text of a record is taken from the file between its first and last line,
//! blank lines included. Every other line belongs to an entry.

use rustc_hash::FxHashSet;

use crate::import::common::*;
use crate::import::{LineOutcome, Sink, Sniff};
use crate::model::*;
use crate::span::{Span, Sym};

/// The first line of every run.
pub(crate) const HEADER: &str = "# aider chat started at";

/// `.aider.chat.history.md`, or a name ending with it.
pub(crate) fn is_history_name(name: &str) -> bool {
    name.to_ascii_lowercase().ends_with(".aider.chat.history.md")
}

/// An Aider history starts with its header (`text` starts at the first non-blank byte). A file
/// named like one that does not is not read.
pub(crate) fn sniff(text: &[u8], name: &str) -> Option<Sniff> {
    if text.starts_with(HEADER.as_bytes()) {
        return Some(Sniff::Format(Format::Aider));
    }
    is_history_name(name).then(|| {
        Sniff::Rejected(format!("this is named like an Aider chat history, but it does not start with `{HEADER}`"))
    })
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Input,
    Reply,
    Output,
}

/// Lines read that make one entry once the record ends.
#[derive(Clone)]
struct Record {
    kind: Kind,
    first_line: u32,
    /// `(begin, end)` of each of its lines in the file, blank lines aside.
    lines: Vec<(usize, usize)>,
}

/// The run being read.
#[derive(Clone)]
pub(crate) struct State {
    chain: Chain,
    file: FileId,
    /// The file's path, which session ids start with.
    path: String,
    /// Session ids given so far.
    sessions: FxHashSet<String>,
    record: Option<Record>,
    /// The last `> ` line did not end a record: the lines after it are its.
    output_goes_on: bool,
    /// A line of Aider's ended with its two spaces: the file kept its trailing spaces.
    trailing_spaces_kept: bool,
    /// The backticks of the fence the reply is in (0: none).
    fence: usize,
    /// Edit calls waiting for their result: (file, normalised; call id).
    pending: Vec<(String, Span)>,
    /// The response of the run's last reply, which the next token report is about.
    last_response: ResponseId,
    /// The run's edit format is `whole` (or `editor-whole`): a reply gives whole files.
    whole: bool,
}

impl State {
    pub(crate) fn new(sink: &Sink, file: FileId) -> State {
        let path = sink.corpus.files.get(file as usize).map(|f| f.path.clone()).unwrap_or_default();
        State {
            chain: Chain::new(sink, file),
            file,
            path,
            sessions: FxHashSet::default(),
            record: None,
            output_goes_on: false,
            trailing_spaces_kept: false,
            fence: 0,
            pending: Vec::new(),
            last_response: ResponseId::NONE,
            whole: false,
        }
    }
}

/// `#### text` (or a bare `####`, an empty line of a longer input).
fn is_input(text: &str) -> bool {
    text == "####" || text.starts_with("#### ")
}

/// `> text` (or a bare `>`).
fn is_output(text: &str) -> bool {
    text == ">" || text.starts_with("> ")
}

pub(crate) fn import_line(
    sink: &mut Sink,
    bytes: &[Vec<u8>],
    file: FileId,
    line_no: u32,
    text: &str,
    state: &mut State,
) -> LineOutcome {
    let (_, span) = locate(bytes, file, text);
    if span.is_empty() {
        // Not a slice of the file (never, from the loader): nothing to point at.
        return LineOutcome::Metadata;
    }
    let line = (span.start as usize, span.start as usize + span.len());
    let in_reply_fence = state.fence > 0 && state.record.as_ref().is_some_and(|r| r.kind == Kind::Reply);
    if let Some(when) = text.strip_prefix(HEADER).filter(|_| !in_reply_fence) {
        count(sink, "header");
        flush(sink, bytes, state);
        return start_run(sink, bytes, line_no, span, when.trim(), state);
    }
    let structural = is_input(text) || is_output(text);
    let kept_spaces = text.ends_with("  ");
    if (is_input(text) || is_output(text)) && kept_spaces {
        state.trailing_spaces_kept = true;
    }
    if state.output_goes_on
        && !structural
        && let Some(record) = state.record.as_mut().filter(|r| r.kind == Kind::Output)
    {
        count(sink, "output");
        record.lines.push(line);
        state.output_goes_on = !kept_spaces;
        return LineOutcome::Entry;
    }
    state.output_goes_on = false;
    let reply_fenced = in_reply_fence && !kept_spaces;
    if is_input(text) && !reply_fenced {
        count(sink, "input");
        if state.record.as_ref().is_none_or(|r| r.kind != Kind::Input) {
            // Edits not applied by now never will be: the user goes on.
            state.pending.clear();
        }
        add_line(sink, bytes, state, Kind::Input, line_no, line);
        return LineOutcome::Entry;
    }
    if is_output(text) && !reply_fenced {
        count(sink, "output");
        return output_line(sink, bytes, line_no, line, text, state);
    }
    count(sink, "reply");
    if state.record.as_ref().is_none_or(|r| r.kind != Kind::Reply) {
        state.fence = 0;
    }
    add_line(sink, bytes, state, Kind::Reply, line_no, line);
    let ticks = text.trim_start().bytes().take_while(|&b| b == b'`').count();
    if state.fence == 0 && ticks >= 3 {
        state.fence = ticks;
    } else if state.fence > 0 && ticks >= state.fence && text.trim()[ticks..].is_empty() {
        state.fence = 0;
    }
    LineOutcome::Entry
}

/// Counts a line under its kind (the load summary's line types): `header`, `input`, `output`,
/// `reply`.
fn count(sink: &mut Sink, kind: &str) {
    let sym = intern(sink, kind);
    sink.count_type(sym);
}

/// Adds a line to the record of its kind, ending the record before it if that is another.
fn add_line(sink: &mut Sink, bytes: &[Vec<u8>], state: &mut State, kind: Kind, line_no: u32, line: (usize, usize)) {
    if state.record.as_ref().is_some_and(|r| r.kind != kind) {
        flush(sink, bytes, state);
    }
    let record = state.record.get_or_insert_with(|| Record { kind, first_line: line_no, lines: Vec::new() });
    record.lines.push(line);
}

/// A new run: a session of its own, its header an entry.
fn start_run(
    sink: &mut Sink,
    bytes: &[Vec<u8>],
    line_no: u32,
    span: Span,
    when: &str,
    state: &mut State,
) -> LineOutcome {
    let start = crate::json::parse_time(when).unwrap_or(i64::MIN);
    let mut id = if when.is_empty() {
        format!("{}#L{line_no}", state.path)
    } else {
        format!("{}#{}", state.path, when.replacen(' ', "T", 1))
    };
    if state.sessions.contains(&id) {
        id = format!("{id}#L{line_no}");
    }
    state.sessions.insert(id.clone());
    let session = intern(sink, &id);
    state.chain.set_session(sink, session);
    state.chain.model = Sym::NONE;
    state.chain.envelope = Envelope::default();
    state.pending.clear();
    state.last_response = ResponseId::NONE;
    state.output_goes_on = false;
    state.fence = 0;
    state.whole = false;

    let type_name = intern(sink, "aider-start");
    let mut entry = new_entry(sink, state.file, line_no, span, EntryKind::System, type_name);
    entry.subtype = type_name;
    entry.timestamp_ms = start;
    entry.flags.set(EntryFlags::META, true);
    let text = HEADER.trim_start_matches("# ");
    entry.content = arena_json(&mut sink.corpus.arena, &format!("{text} {when}"));
    entry.flags.set(EntryFlags::STRING_CONTENT, true);
    state.chain.push_line(sink, bytes, entry, line_no, "")
}

/// A `> ` line: settings it states, a token report, an edit's result, or output.
fn output_line(
    sink: &mut Sink,
    bytes: &[Vec<u8>],
    line_no: u32,
    line: (usize, usize),
    text: &str,
    state: &mut State,
) -> LineOutcome {
    if state.record.as_ref().is_some_and(|r| r.kind != Kind::Output) {
        flush(sink, bytes, state);
    }
    let message = text.strip_prefix('>').unwrap_or(text);
    let message = message.strip_prefix(' ').unwrap_or(message).trim_end();
    if let Some(version) = message.strip_prefix("Aider v") {
        state.chain.envelope.version = intern(sink, version.trim());
    } else if let Some(model) = message.strip_prefix("Main model: ").or_else(|| message.strip_prefix("Model: ")) {
        let (model, format) = model.split_once(" with ").unwrap_or((model, ""));
        if !model.trim().is_empty() {
            state.chain.model = intern(sink, model.trim());
        }
        state.whole = is_whole(format);
    } else if let Some(editor) = message.strip_prefix("Editor model: ") {
        // Architect mode: the editor model's replies make the edits.
        state.whole |= is_whole(editor.split_once(" with ").map_or("", |(_, format)| format));
    } else if message.starts_with("Tokens: ") || message.starts_with("Cost: ") {
        report(sink, message, state);
    }
    let results = if let Some(path) = message.strip_prefix("Applied edit to ") {
        let path = normalise(path);
        let (answered, waiting) = std::mem::take(&mut state.pending).into_iter().partition(|(file, _)| *file == path);
        state.pending = waiting;
        Some((answered, false))
    } else if message.starts_with("The LLM did not conform to the edit format") {
        Some((std::mem::take(&mut state.pending), true))
    } else {
        None
    };
    if let Some((answered, failed)) = results.filter(|(answered, _)| !answered.is_empty()) {
        flush(sink, bytes, state);
        let type_name = intern(sink, if failed { "aider-edit-failed" } else { "aider-edit-applied" });
        let span = Span::in_file(line.0, line.1 - line.0);
        let mut entry = new_entry(sink, state.file, line_no, span, EntryKind::User, type_name);
        entry.subtype = type_name;
        let body = arena_json(&mut sink.corpus.arena, message);
        for (_, id) in answered {
            let block = push_block(sink, &mut entry, BlockKind::ToolResult, Sym::NONE, id, body);
            if failed {
                mark_error(sink, &mut entry, block);
            }
        }
        return state.chain.push_line(sink, bytes, entry, line_no, "");
    }
    add_line(sink, bytes, state, Kind::Output, line_no, line);
    state.output_goes_on = state.trailing_spaces_kept && !text.ends_with("  ") && !message.is_empty();
    LineOutcome::Entry
}

/// `whole edit format` or `editor-whole edit format`, after a model's name.
fn is_whole(format: &str) -> bool {
    format.starts_with("whole edit format") || format.starts_with("editor-whole edit format")
}

/// `Tokens: 12k sent, 1.2k cache write, 3.4k cache hit, 345 received. Cost: $0.01 message, $0.05
/// session.`: the usage and cost of the run's last reply (the cost may be on a line of its own).
/// `sent` counts every token sent: Aider adds the cache writes to the provider's prompt tokens,
/// which (as litellm reports them) hold the cache hits; the uncached input is what remains.
fn report(sink: &mut Sink, message: &str, state: &State) {
    let Some(response) = sink.corpus.responses.get_mut(state.last_response.index()) else { return };
    let (tokens, cost) = match message.find("Cost: ") {
        Some(at) => (&message[..at], Some(&message[at + "Cost: ".len()..])),
        None => (message, None),
    };
    if let Some(tokens) = tokens.strip_prefix("Tokens: ")
        && !response.has_usage
    {
        let mut usage = Usage::default();
        let mut any = false;
        for piece in tokens.trim().trim_end_matches('.').split(", ") {
            let Some((number, what)) = piece.trim().split_once(' ') else { continue };
            let Some(count) = token_count(number) else { continue };
            let slot = match what.trim() {
                "sent" => &mut usage.input_tokens,
                "received" => &mut usage.output_tokens,
                "cache write" => &mut usage.cache_creation_input_tokens,
                "cache hit" => &mut usage.cache_read_input_tokens,
                _ => continue,
            };
            *slot = count;
            any = true;
        }
        if any {
            let cached = usage.cache_creation_input_tokens.saturating_add(usage.cache_read_input_tokens);
            usage.input_tokens = usage.input_tokens.saturating_sub(cached);
            response.usage = usage;
            response.has_usage = true;
        }
    }
    if let Some(cost) = cost
        && response.logged_cost_usd.is_none()
    {
        // `$0.01 message`: the reply's; a logged 0 (a model Aider has no price for) is priced.
        let value = cost.trim().strip_prefix('$').and_then(|c| c.split(' ').next()).and_then(|c| c.parse::<f64>().ok());
        response.logged_cost_usd = value.filter(|c| c.is_finite() && *c > 0.0);
    }
}

/// `345`, `1.2k`, `12k`, `1.5M`: a count as Aider prints it (rounded).
fn token_count(text: &str) -> Option<u64> {
    let (digits, scale) = match text.strip_suffix(['k', 'K']) {
        Some(rest) => (rest, 1e3),
        None => match text.strip_suffix('M') {
            Some(rest) => (rest, 1e6),
            None => (text, 1.0),
        },
    };
    let value: f64 = digits.replace(',', "").parse().ok()?;
    (value.is_finite() && value >= 0.0).then(|| (value * scale).round() as u64)
}

/// A path as Aider writes it, to match an edit to its result: `/` for `\`, no leading `./`.
fn normalise(path: &str) -> String {
    let path = path.trim().replace('\\', "/");
    path.strip_prefix("./").unwrap_or(&path).to_owned()
}

/// The record read so far becomes its entry.
fn flush(sink: &mut Sink, bytes: &[Vec<u8>], state: &mut State) {
    let Some(record) = state.record.take() else { return };
    state.output_goes_on = false;
    state.fence = 0;
    let (Some(&(begin, _)), Some(&(_, end))) = (record.lines.first(), record.lines.last()) else { return };
    let file_bytes = bytes.get(state.file as usize).map(Vec::as_slice).unwrap_or_default();
    let span = Span::in_file(begin, end.saturating_sub(begin));
    let lines: Vec<&str> = record
        .lines
        .iter()
        .map(|&(b, e)| file_bytes.get(b..e).and_then(|s| std::str::from_utf8(s).ok()).unwrap_or(""))
        .collect();
    let whole = text_between(file_bytes, begin, end);
    let type_name = intern(
        sink,
        match record.kind {
            Kind::Input => "aider-input",
            Kind::Reply => "aider-reply",
            Kind::Output => "aider-output",
        },
    );
    let mut entry = new_entry(sink, state.file, record.first_line, span, EntryKind::User, type_name);
    match record.kind {
        Kind::Input => {
            let input: Vec<&str> = lines
                .iter()
                .map(|l| {
                    let l = l.strip_prefix("####").unwrap_or(l);
                    let l = l.strip_prefix(' ').unwrap_or(l).trim_end();
                    if l == "<blank>" { "" } else { l }
                })
                .collect();
            entry.content = arena_json(&mut sink.corpus.arena, input.join("\n").trim_end());
            entry.flags.set(EntryFlags::STRING_CONTENT, true);
            let _ = state.chain.push_line(sink, bytes, entry, record.first_line, "");
        }
        Kind::Output => {
            entry.kind = EntryKind::System;
            entry.subtype = type_name;
            let text: Vec<&str> = whole
                .lines()
                .map(|l| {
                    let l = l.strip_prefix('>').map(|l| l.strip_prefix(' ').unwrap_or(l)).unwrap_or(l);
                    l.trim_end()
                })
                .collect();
            let text = text.join("\n");
            let text = text.trim_matches('\n');
            if text.lines().any(is_error) {
                entry.flags.set(EntryFlags::ERROR, true);
            } else {
                entry.flags.set(EntryFlags::META, true);
            }
            if text.contains("^C KeyboardInterrupt") {
                entry.flags.set(EntryFlags::INTERRUPTED, true);
            }
            entry.content = arena_json(&mut sink.corpus.arena, text);
            entry.flags.set(EntryFlags::STRING_CONTENT, true);
            let _ = state.chain.push_line(sink, bytes, entry, record.first_line, "");
        }
        Kind::Reply => reply(sink, bytes, file_bytes, &record, &lines, entry, state),
    }
}

/// An error Aider printed: its own, the provider's, or a traceback.
fn is_error(line: &str) -> bool {
    let line = line.trim_start();
    line.starts_with("Error")
        || line.starts_with("litellm.")
        || line.starts_with("Traceback")
        || line.starts_with("The LLM did not conform")
        || line.contains("Error:")
        || line.contains("Exception")
        || line.contains("failed to match")
}

/// The text of the file from `begin` to `end`, `\r\n` read as `\n`.
fn text_between(file_bytes: &[u8], begin: usize, end: usize) -> String {
    let slice = file_bytes.get(begin..end).unwrap_or_default();
    String::from_utf8_lossy(slice).replace("\r\n", "\n")
}

/// One SEARCH/REPLACE block of a reply: the lines it spans (indices into the reply's lines,
/// inclusive), its file and its two texts; or, in the `whole` edit format, a file's new content
/// (`old` is `None`).
struct EditBlock {
    first: usize,
    last: usize,
    file: Option<String>,
    old: Option<String>,
    new: String,
}

fn is_search(line: &str) -> bool {
    let line = line.trim_end();
    let marks = line.bytes().take_while(|&b| b == b'<').count();
    (5..=9).contains(&marks) && matches!(&line[marks..], " SEARCH" | " SEARCH>")
}

fn is_divider(line: &str) -> bool {
    let line = line.trim_end();
    (5..=9).contains(&line.len()) && line.bytes().all(|b| b == b'=')
}

fn is_replace(line: &str) -> bool {
    let line = line.trim_end();
    let marks = line.bytes().take_while(|&b| b == b'>').count();
    (5..=9).contains(&marks) && &line[marks..] == " REPLACE"
}

fn is_fence(line: &str) -> bool {
    line.trim_start().starts_with("```")
}

/// The file a line before a block names, as Aider reads it: decorations (`#`, `*`, backticks,
/// a closing colon) aside. A line with spaces is prose, not a path.
fn path_of(line: &str) -> Option<String> {
    let name = line.trim().trim_end_matches(':').trim_start_matches('#').trim().trim_matches('`').trim_matches('*');
    (!name.is_empty() && !name.contains(char::is_whitespace) && name != "...").then(|| name.to_owned())
}

/// The SEARCH/REPLACE blocks of a reply's lines (`at[i]` is the `(begin, end)` of `lines[i]`).
fn edit_blocks(file_bytes: &[u8], lines: &[&str], at: &[(usize, usize)]) -> Vec<EditBlock> {
    let mut blocks = Vec::new();
    let mut from = 0;
    let mut i = 0;
    while i < lines.len() {
        if !is_search(lines[i]) {
            i += 1;
            continue;
        }
        let Some(divider) = (i + 1..lines.len()).find(|&j| is_divider(lines[j]) || is_search(lines[j])) else { break };
        if !is_divider(lines[divider]) {
            i = divider;
            continue;
        }
        let Some(replace) = (divider + 1..lines.len()).find(|&j| is_replace(lines[j]) || is_search(lines[j])) else {
            break;
        };
        if !is_replace(lines[replace]) {
            i = replace;
            continue;
        }
        // `path` then a fence, or a fence then `path`, or either alone, right before.
        let before = |n: usize| (i >= from + n).then(|| lines[i - n]);
        let (first, file) = match (before(1), before(2)) {
            (Some(a), b) if is_fence(a) => match b.and_then(path_of) {
                Some(path) => (i - 2, Some(path)),
                None => (i - 1, None),
            },
            (Some(a), b) => match path_of(a) {
                Some(path) if b.is_some_and(is_fence) => (i - 2, Some(path)),
                Some(path) => (i - 1, Some(path)),
                None => (i, None),
            },
            (None, _) => (i, None),
        };
        let last = if lines.get(replace + 1).is_some_and(|l| is_fence(l) && l.trim().trim_matches('`').is_empty()) {
            replace + 1
        } else {
            replace
        };
        let inner = |a: usize, b: usize| {
            // From after line a to before line b, without the line breaks at either end.
            if b == a + 1 {
                return String::new();
            }
            let text = text_between(file_bytes, at[a].1, at[b].0);
            let text = text.strip_prefix('\n').unwrap_or(&text);
            text.strip_suffix('\n').unwrap_or(text).to_owned()
        };
        blocks.push(EditBlock { first, last, file, old: Some(inner(i, divider)), new: inner(divider, replace) });
        from = last + 1;
        i = last + 1;
    }
    blocks
}

/// The backticks a fence line opens with (0: not a fence).
fn fence_ticks(line: &str) -> usize {
    let ticks = line.trim_start().bytes().take_while(|&b| b == b'`').count();
    if ticks >= 3 { ticks } else { 0 }
}

/// In the `whole` edit format, a file path line then a fenced block: the file's new content. The
/// path must look like one (a `.` or a `/`), so that a line such as `Example:` is not taken.
fn whole_files(file_bytes: &[u8], lines: &[&str], at: &[(usize, usize)]) -> Vec<EditBlock> {
    let mut blocks = Vec::new();
    let mut i = 0;
    while i + 1 < lines.len() {
        let ticks = fence_ticks(lines[i + 1]);
        let path =
            path_of(lines[i]).filter(|p| ticks > 0 && fence_ticks(lines[i]) == 0 && p.contains(['.', '/', '\\']));
        let close = (i + 2..lines.len()).find(|&j| {
            let line = lines[j].trim();
            fence_ticks(line) >= ticks && line.trim_start_matches('`').is_empty()
        });
        if let (Some(path), Some(close)) = (path, close) {
            let content = if close == i + 2 {
                String::new()
            } else {
                let text = text_between(file_bytes, at[i + 1].1, at[close].0);
                let text = text.strip_prefix('\n').unwrap_or(&text);
                text.strip_suffix('\n').unwrap_or(text).to_owned()
            };
            blocks.push(EditBlock { first: i, last: close, file: Some(path), old: None, new: content });
            i = close + 1;
            continue;
        }
        i += 1;
    }
    blocks
}

/// A reply: its text, thinking and edits.
fn reply(
    sink: &mut Sink,
    bytes: &[Vec<u8>],
    file_bytes: &[u8],
    record: &Record,
    lines: &[&str],
    mut entry: Entry,
    state: &mut State,
) {
    entry.kind = EntryKind::Assistant;
    entry.model = state.chain.model;
    let uuid = state.chain.id(record.first_line, "");
    let at = &record.lines;
    let text_of = |a: usize, b: usize| -> String {
        // Lines a..b (exclusive), blank lines between them included.
        if a >= b {
            return String::new();
        }
        text_between(file_bytes, at[a].0, at[b - 1].1).trim().to_owned()
    };
    let mut blocks = edit_blocks(file_bytes, lines, at);
    if blocks.is_empty() && state.whole {
        blocks = whole_files(file_bytes, lines, at);
    }
    let mut from = 0;
    let mut edits = Vec::new();
    let mut last_file = String::new();
    for (n, block) in blocks.iter().enumerate() {
        let text = text_of(from, block.first);
        push_text(sink, &mut entry, &text, from == 0);
        if let Some(file) = &block.file {
            last_file = file.clone();
        }
        let (tool, input) = match &block.old {
            Some(old) => {
                ("Edit", serde_json::json!({"file_path": last_file, "old_string": old, "new_string": block.new}))
            }
            None => ("Write", serde_json::json!({"file_path": last_file, "content": block.new})),
        };
        let id = arena_str(&mut sink.corpus.arena, &format!("{uuid}#edit{n}"));
        let body = arena_raw(&mut sink.corpus.arena, &input.to_string());
        let name = intern(sink, tool);
        push_block(sink, &mut entry, BlockKind::ToolUse, name, id, body);
        edits.push((normalise(&last_file), id));
        from = block.last + 1;
    }
    let text = text_of(from, lines.len());
    push_text(sink, &mut entry, &text, from == 0);
    if entry.blocks_len == 0 {
        let body = arena_json(&mut sink.corpus.arena, "");
        push_block(sink, &mut entry, BlockKind::Text, Sym::NONE, Span::EMPTY, body);
    }
    let model = entry.model;
    let Ok(id) = state.chain.push(sink, bytes, entry, &uuid) else { return };
    // Aider applies a reply's edits before anything else: those of an earlier reply that were
    // not applied by now never will be.
    state.pending = edits;
    let response = new_response(state.file, id, model, None);
    state.last_response = push_response(sink, response);
}

/// Text of a reply as a block (none if empty); the reply's first text may open with thinking.
fn push_text(sink: &mut Sink, entry: &mut Entry, text: &str, first: bool) {
    let (thinking, text) = if first { split_thinking(text) } else { (None, text) };
    if let Some(thinking) = thinking.filter(|t| !t.is_empty()) {
        let body = arena_json(&mut sink.corpus.arena, thinking);
        push_block(sink, entry, BlockKind::Thinking, Sym::NONE, Span::EMPTY, body);
    }
    if !text.is_empty() {
        let body = arena_json(&mut sink.corpus.arena, text);
        push_block(sink, entry, BlockKind::Text, Sym::NONE, Span::EMPTY, body);
    }
}

/// `<thinking-content-…>…</thinking-content-…>` or `► **THINKING**` … `► **ANSWER**` at the
/// start of a reply: (thinking, the rest).
fn split_thinking(text: &str) -> (Option<&str>, &str) {
    if text.starts_with("<thinking-content-")
        && let Some(open_end) = text.find('>')
        && let Some(close) = text.find("</thinking-content-")
    {
        let close_end = text[close..].find('>').map_or(text.len(), |i| close + i + 1);
        if open_end < close {
            return (Some(text[open_end + 1..close].trim()), text[close_end..].trim());
        }
    }
    if let Some(rest) = text.strip_prefix("► **THINKING**") {
        return match rest.find("► **ANSWER**") {
            Some(at) => {
                let thinking = rest[..at].trim().trim_end_matches('-').trim();
                (Some(thinking), rest[at + "► **ANSWER**".len()..].trim())
            }
            None => (Some(rest.trim()), ""),
        };
    }
    (None, text)
}

pub(crate) fn finish(sink: &mut Sink, bytes: &[Vec<u8>], state: &mut State) -> u32 {
    flush(sink, bytes, state);
    state.chain.finish(sink);
    state.chain.entries
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_counts_read_as_aider_prints_them() {
        assert_eq!(token_count("345"), Some(345));
        assert_eq!(token_count("1.2k"), Some(1200));
        assert_eq!(token_count("12k"), Some(12000));
        assert_eq!(token_count("1.5M"), Some(1_500_000));
        assert_eq!(token_count("k"), None);
        assert_eq!(token_count("-3"), None);
    }

    #[test]
    fn block_markers_and_paths() {
        assert!(is_search("<<<<<<< SEARCH"));
        assert!(!is_search("<<<<<<< SEARCHING"));
        assert!(is_divider("======="));
        assert!(is_replace(">>>>>>> REPLACE"));
        assert_eq!(path_of("`src/a.rs`:").as_deref(), Some("src/a.rs"));
        assert_eq!(path_of("Here is the block:"), None);
        assert_eq!(normalise(".\\src\\a.rs"), "src/a.rs");
    }

    #[test]
    fn thinking_is_split_from_the_answer() {
        let (thinking, rest) = split_thinking("<thinking-content-7b>\nhmm\n</thinking-content-7b>\n\nYes.");
        assert_eq!((thinking, rest), (Some("hmm"), "Yes."));
        let (thinking, rest) = split_thinking("► **THINKING**\n\nhmm\n\n------------\n\n► **ANSWER**\n\nYes.");
        assert_eq!((thinking, rest), (Some("hmm"), "Yes."));
        assert_eq!(split_thinking("plain"), (None, "plain"));
    }
}
