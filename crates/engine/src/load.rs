//! Reading files in chunks into a [`Corpus`].
//!
//! Bytes arrive in slices of any size (the browser reads files with `Blob.slice`). Each file's
//! bytes are appended to one buffer sized up front, and every complete line is parsed as soon
//! as its newline arrives; a line split across chunks is simply parsed once its end is in. The
//! model keeps byte ranges into these buffers, so nothing is copied.
//!
//! A document format (`import::is_document`: a legacy Gemini CLI session is one pretty-printed
//! JSON object over many lines) is not read line by line: once sniffed, its bytes are only kept
//! (up to [`DOCUMENT_MAX_BYTES`], beyond which the file is refused with a diagnostic), and when
//! the file ends the importer reads the whole text once. It answers with records
//! (`DocRecord`: where each begins, how it ended up); the records partition the lines, so each
//! line is counted once, under the outcome of the record it lies in, and a failed record is a
//! diagnostic at the line it begins on.
//!
//! A file of lines bigger than a span can reach ([`Span::MAX_LEN`], 2 GiB) is read in parts: when
//! its buffer is full, the line in progress moves to a new buffer, a file of its own in the corpus
//! ([`FileInfo::continues`]), and the lines go on being numbered where they were. A loader told to
//! hold at most so many bytes ([`Loader::hold_at_most`], a browser tab) keeps each file up to its
//! share ([`held_sizes`]), cut after the last whole line, and counts the lines of the rest: they
//! are left out, with one diagnostic that says which and why.

use std::mem::MaybeUninit;

use crate::import::{self, DocRecord, LineOutcome, Sink, Sniff};
use crate::json;
use crate::model::*;
use crate::span::{Span, Sym};
use crate::units::human_bytes;

/// Bytes of a file looked at before deciding what format it is.
const SNIFF_BYTES: usize = 64 * 1024;
/// Lines of a file looked at before deciding what format it is (fewer if they pass
/// [`SNIFF_BYTES`]).
const SNIFF_LINES: usize = 16;
/// Bytes of a document format (a file read whole, not line by line) that are read at most: its
/// text is parsed in one go, so a bigger one is refused with a diagnostic rather than parsed.
pub const DOCUMENT_MAX_BYTES: usize = 128 << 20;

/// Reads any number of files, in any number of chunks each, into one [`Corpus`].
#[derive(Clone)]
pub struct Loader {
    pub(crate) sink: Sink,
    /// File bytes, kept apart from the sink so lines can be parsed from them while the sink grows.
    pub(crate) bytes: Vec<Vec<u8>>,
    states: Vec<FileState>,
    /// What is left of the bytes the loader holds at most, and why it holds no more.
    budget: Option<Budget>,
    /// The most bytes one part of a file holds: [`Span::MAX_LEN`], less in tests.
    part_max: usize,
}

#[derive(Clone)]
struct Budget {
    remaining: u64,
    why: String,
}

/// What becomes of a chunk pushed to a file.
enum Admit {
    Nothing,
    /// A rejected file's lines are counted, not kept.
    CountOnly,
    /// A file past what it holds: its lines are counted as left out.
    LeftOut,
    Append,
    /// Only the first `room` bytes fit: the rest is left out (`cut`), or goes to a new part.
    Split {
        room: usize,
        cut: bool,
    },
}

/// Where a file was cut, and what of it was left out after.
#[derive(Clone, Default)]
struct Cut {
    /// The first line left out, and its offset.
    line: u32,
    offset: u64,
    left_out: LineTally,
    why: CutWhy,
}

/// The lines of bytes that are counted, not kept: their newlines, and whether the last bytes seen
/// end without one (one more line).
#[derive(Clone, Copy, Default)]
struct LineTally {
    newlines: u64,
    tail: bool,
}

impl LineTally {
    fn add(&mut self, bytes: &[u8]) {
        self.newlines += memchr::memchr_iter(b'\n', bytes).count() as u64;
        if let Some(&last) = bytes.last() {
            self.tail = last != b'\n';
        }
    }

    fn lines(self) -> u64 {
        self.newlines + u64::from(self.tail)
    }
}

/// Why a file was cut.
#[derive(Clone, Copy, Default)]
enum CutWhy {
    /// It passed what the loader holds ([`Loader::hold_at_most`]).
    #[default]
    Held,
    /// One of its lines is longer than a part of a file can be ([`Span::MAX_LEN`]).
    LongLine,
}

/// How many bytes of each file a loader holds when it holds at most `budget` bytes: the files in
/// order, each whole while the budget lasts. The page reads the same share of each file as its
/// loading worker keeps.
pub fn held_sizes(sizes: impl IntoIterator<Item = u64>, budget: u64) -> Vec<u64> {
    let mut remaining = budget;
    sizes.into_iter().map(|size| take_share(&mut remaining, size)).collect()
}

/// A file's share of what is left of a budget (all of it for a file of unknown size, 0).
fn take_share(remaining: &mut u64, size: u64) -> u64 {
    if size == 0 {
        return *remaining;
    }
    let share = size.min(*remaining);
    *remaining -= share;
    share
}

#[derive(Clone, Default)]
struct FileState {
    /// Offset of the first byte not yet parsed.
    parsed_upto: usize,
    /// Offset from which a newline may still be found: bytes before it (and after
    /// `parsed_upto`) are known to hold none, so a long line is never scanned twice.
    scan_from: usize,
    /// Newlines counted in the sniff window so far, and up to where.
    sniff_newlines: usize,
    sniff_scanned: usize,
    /// Number of the next line to parse (1-based).
    next_line: u32,
    finished: bool,
    /// Bytes pushed so far, kept or not.
    pushed: u64,
    /// Lines counted in a file that is rejected, whose bytes are not kept.
    rejected: LineTally,
    /// What the importer of the file's format carries from line to line (other agents' logs).
    importer: Option<Box<import::State>>,
    /// The most bytes of the file kept ([`Loader::hold_at_most`]).
    held: Option<u64>,
    /// Set once the file passed what it holds.
    cut: Option<Cut>,
    /// The file's next part, once this one is full.
    next_part: Option<FileId>,
    /// Where the read of the file began ([`Loader::add_file_from`]; the same in all its parts).
    from: Start,
    /// The offset in the file of this part's first byte.
    base: u64,
}

impl Default for Loader {
    fn default() -> Self {
        Loader::new()
    }
}

impl Loader {
    pub fn new() -> Loader {
        Loader { sink: Sink::new(), bytes: Vec::new(), states: Vec::new(), budget: None, part_max: Span::MAX_LEN }
    }

    /// Holds at most `bytes` of the files added from now on, together ([`held_sizes`]): a file
    /// past its share is cut after its last whole line, and its other lines are counted as left
    /// out, with a diagnostic that ends with `why` (what a person can do about it).
    pub fn hold_at_most(&mut self, bytes: u64, why: impl Into<String>) {
        self.budget = Some(Budget { remaining: bytes, why: why.into() });
    }

    /// A loader whose files are read in parts of at most `bytes` (tests: parts without 2 GiB).
    #[doc(hidden)]
    pub fn with_part_max(bytes: usize) -> Loader {
        Loader { part_max: bytes.clamp(2 * SNIFF_BYTES, Span::MAX_LEN), ..Loader::new() }
    }

    /// The part of a file that bytes pushed to it now go to: the file, or its latest part.
    fn current(&self, mut file: FileId) -> FileId {
        while let Some(next) = self.states.get(file as usize).and_then(|s| s.next_part) {
            file = next;
        }
        file
    }

    /// Registers a file about to be read. `size_hint` (the file size, if known) lets the buffer
    /// be allocated once.
    pub fn add_file(&mut self, path: &str, size_hint: u64) -> FileId {
        let id = self.sink.corpus.files.len() as FileId;
        let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
        let agent_id_from_name = name
            .strip_prefix("agent-")
            .and_then(|rest| rest.strip_suffix(".jsonl").or_else(|| rest.strip_suffix(".meta.json")))
            .map(str::to_owned);
        let format = if name.ends_with(".meta.json") { Format::AgentMeta } else { Format::Pending };
        self.sink.corpus.files.push(FileInfo {
            path: path.to_owned(),
            size: size_hint,
            format,
            counts: LineCounts::default(),
            agent_id_from_name,
            agent_meta: None,
            session_from_path: session_from_path(path),
            sources: Vec::new(),
            continues: None,
            held: None,
        });
        let held = self.budget.as_mut().map(|budget| take_share(&mut budget.remaining, size_hint));
        let capacity = size_hint.min(held.unwrap_or(u64::MAX)).min(self.part_max as u64);
        self.bytes.push(Vec::with_capacity(usize::try_from(capacity).unwrap_or(0)));
        self.states.push(FileState { next_line: 1, held, ..FileState::default() });
        id
    }

    /// Registers a file whose bytes are pushed from `start` on (a part of a big file, shown a part
    /// at a time): `size_hint` is the size from there. Its lines are numbered from `start.line`,
    /// and the lines before it are counted as left out, with a diagnostic that says which.
    pub fn add_file_from(&mut self, path: &str, size_hint: u64, start: Start) -> FileId {
        let id = self.add_file(path, size_hint);
        let state = &mut self.states[id as usize];
        state.next_line = start.line.max(1);
        state.from = Start { offset: start.offset, line: start.line.max(1) };
        state.base = start.offset;
        id
    }

    /// Appends a chunk of a file and parses every line it completes.
    pub fn push(&mut self, file: FileId, chunk: &[u8]) {
        self.push_with(file, chunk.len(), |room| room.write_copy_of_slice(chunk));
    }

    /// Appends a chunk of `len` bytes that `fill` writes into the file's buffer, and parses every
    /// line it completes: bytes held elsewhere (a JavaScript buffer) are copied once, straight
    /// into place, with no zeros written first. `fill` gets the room, not yet written, and gives
    /// it back written (as `Uint8Array::copy_to_uninit` and `write_copy_of_slice` do).
    pub fn push_with(&mut self, file: FileId, len: usize, fill: impl Fill) {
        let file = self.current(file);
        match self.admit(file, len) {
            Admit::Nothing => {}
            Admit::Append => {
                append_filled(&mut self.bytes[file as usize], len, fill);
                self.parse_complete_lines(file, false);
            }
            admit => {
                let mut chunk = Vec::new();
                append_filled(&mut chunk, len, fill);
                self.take(file, admit, &chunk);
            }
        }
    }

    /// Appends a chunk given as an owned buffer: the first chunk of a file becomes its buffer, not
    /// copied.
    pub fn push_vec(&mut self, file: FileId, chunk: Vec<u8>) {
        let file = self.current(file);
        match self.admit(file, chunk.len()) {
            Admit::Nothing => {}
            Admit::Append => {
                let buffer = &mut self.bytes[file as usize];
                if buffer.is_empty() {
                    *buffer = chunk;
                } else {
                    buffer.extend_from_slice(&chunk);
                }
                self.parse_complete_lines(file, false);
            }
            // A first chunk bigger than a part keeps its first part's bytes where they are.
            Admit::Split { room, cut: false } if self.bytes[file as usize].is_empty() && room > 0 => {
                let mut chunk = chunk;
                let later = chunk.split_off(room);
                self.states[file as usize].pushed -= later.len() as u64;
                self.bytes[file as usize] = chunk;
                self.parse_complete_lines(file, false);
                self.push_vec(file, later);
            }
            admit => self.take(file, admit, &chunk),
        }
    }

    /// Takes a chunk that is not simply appended: counted (a rejected file, lines left out), or
    /// split at what the file holds (cut there, or continued in a new part).
    fn take(&mut self, file: FileId, admit: Admit, chunk: &[u8]) {
        match admit {
            Admit::Nothing | Admit::Append => {}
            Admit::CountOnly => self.count_rejected(file, chunk),
            Admit::LeftOut => self.count_left_out(file, chunk),
            Admit::Split { room, cut } => {
                let (now, later) = chunk.split_at(room.min(chunk.len()));
                self.bytes[file as usize].extend_from_slice(now);
                self.parse_complete_lines(file, false);
                // The sniff of the bytes just taken may have rejected the file: the rest of its
                // lines are counted with the others, not cut (the line split here is one line).
                if self.sink.corpus.files[file as usize].format == Format::Rejected {
                    self.count_rejected(file, later);
                    return;
                }
                // A line longer than a whole part cannot be held either.
                if cut || self.states[file as usize].parsed_upto == 0 {
                    let why = if cut { CutWhy::Held } else { CutWhy::LongLine };
                    self.cut(file, later, why);
                } else {
                    self.states[file as usize].pushed -= later.len() as u64;
                    let next = self.next_part(file);
                    self.push(next, later);
                }
            }
        }
    }

    /// Whether a chunk of `len` bytes is appended to a file, only counted (a rejected file, lines
    /// left out), split (it passes what the file holds), or dropped (a finished file, an empty
    /// chunk).
    fn admit(&mut self, file: FileId, len: usize) -> Admit {
        let Some(state) = self.states.get_mut(file as usize) else { return Admit::Nothing };
        if state.finished || len == 0 {
            return Admit::Nothing;
        }
        state.pushed += len as u64;
        if self.sink.corpus.files[file as usize].format == Format::Rejected {
            return Admit::CountOnly;
        }
        if state.cut.is_some() {
            return Admit::LeftOut;
        }
        let kept = self.bytes[file as usize].len();
        let to_hold = usize::try_from(state.held.unwrap_or(u64::MAX)).unwrap_or(usize::MAX);
        let room_held = to_hold.saturating_sub(kept);
        let room_part = self.part_max.saturating_sub(kept);
        if len <= room_held.min(room_part) {
            Admit::Append
        } else {
            Admit::Split { room: room_held.min(room_part), cut: room_held <= room_part }
        }
    }

    /// Cuts a file after its last whole line: the bytes after it, and `rest`, are left out. A
    /// document (one JSON value) cannot be cut: it is refused.
    fn cut(&mut self, file: FileId, rest: &[u8], why: CutWhy) {
        let f = file as usize;
        let format = self.sink.corpus.files[f].format;
        if import::is_document(format) {
            let read = human_bytes(self.states[f].pushed);
            let message = format!(
                "the file is over {read} and read whole, which is more than can be held: {}",
                self.cut_reason(why)
            );
            self.reject(file, DiagnosticKind::LeftOut, message);
            self.count_rejected(file, rest);
            return;
        }
        let state = &mut self.states[f];
        let buffer = &mut self.bytes[f];
        // A file whose format is not known yet has parsed nothing: it is cut after its last
        // newline, and what is kept is read when it ends.
        let (from, line) = if format == Format::Pending {
            let from = memchr::memrchr(b'\n', buffer).map_or(0, |i| i + 1);
            (from, 1 + memchr::memchr_iter(b'\n', &buffer[..from]).count() as u32)
        } else {
            (state.parsed_upto.min(buffer.len()), state.next_line)
        };
        let partial = buffer.split_off(from);
        state.scan_from = state.scan_from.min(from);
        let mut cut = Cut { line, offset: from as u64, left_out: LineTally::default(), why };
        cut.left_out.add(&partial);
        cut.left_out.add(rest);
        state.cut = Some(cut);
    }

    /// Why a file was cut, in words that end a diagnostic.
    fn cut_reason(&self, why: CutWhy) -> String {
        match why {
            CutWhy::Held => self.budget.as_ref().map_or_else(String::new, |b| b.why.clone()),
            CutWhy::LongLine => {
                format!("a line there is longer than the {} a line can be", human_bytes(self.part_max as u64))
            }
        }
    }

    /// Counts the lines of a chunk of a file past what it holds.
    fn count_left_out(&mut self, file: FileId, chunk: &[u8]) {
        if let Some(cut) = self.states.get_mut(file as usize).and_then(|s| s.cut.as_mut()) {
            cut.left_out.add(chunk);
        }
    }

    /// Starts a file's next part, once this one is full: the line in progress moves to it, and
    /// its lines go on being numbered from there.
    fn next_part(&mut self, file: FileId) -> FileId {
        let f = file as usize;
        let next = self.sink.corpus.files.len() as FileId;
        let in_progress = {
            let state = &self.states[f];
            let from = state.parsed_upto.min(self.bytes[f].len());
            self.bytes[f].split_off(from)
        };
        let kept = self.bytes[f].len() as u64;
        let mut info = self.sink.corpus.files[f].clone();
        let size_left = info.size.saturating_sub(kept);
        info.size = size_left;
        info.counts = LineCounts::default();
        info.continues = Some(file);
        self.sink.corpus.files[f].size = kept;
        self.sink.corpus.files.push(info);
        let state = &mut self.states[f];
        state.pushed -= in_progress.len() as u64;
        state.finished = true;
        state.next_part = Some(next);
        let part = FileState {
            next_line: state.next_line,
            importer: state.importer.take(),
            held: state.held.map(|held| held.saturating_sub(kept)),
            pushed: in_progress.len() as u64,
            scan_from: in_progress.len(),
            from: state.from,
            base: state.base + kept,
            sniff_newlines: SNIFF_LINES,
            ..FileState::default()
        };
        let mut buffer = Vec::with_capacity(usize::try_from(size_left.min(self.part_max as u64)).unwrap_or(0));
        buffer.extend_from_slice(&in_progress);
        self.bytes.push(buffer);
        self.states.push(part);
        next
    }

    /// Counts the lines of a chunk of a rejected file, whose bytes are not kept.
    fn count_rejected(&mut self, file: FileId, chunk: &[u8]) {
        if let Some(state) = self.states.get_mut(file as usize) {
            state.rejected.add(chunk);
        }
    }

    /// Marks a file complete: its last line, if it has no newline, is parsed now.
    pub fn finish_file(&mut self, file: FileId) {
        let file = self.current(file);
        let Some(state) = self.states.get(file as usize) else { return };
        if state.finished {
            return;
        }
        match self.sink.corpus.files[file as usize].format {
            Format::AgentMeta => self.finish_agent_meta(file),
            Format::Rejected => {}
            _ => self.parse_complete_lines(file, true),
        }
        // A document is read now that all of it is in (the sniff may have just decided it).
        if import::is_document(self.sink.corpus.files[file as usize].format) {
            self.finish_document(file);
        }
        // Streams cut short and items never completed are closed now.
        let importer = self.states[file as usize].importer.take();
        import::finish_file(&mut self.sink, &self.bytes, file, importer);
        // A file may have been rejected just now, by the sniff of its last bytes.
        if self.sink.corpus.files[file as usize].format == Format::Rejected {
            let state = &self.states[file as usize];
            let lines = state.rejected.lines();
            let counts = &mut self.sink.corpus.files[file as usize].counts;
            counts.lines += lines;
            counts.skipped += lines;
        }
        self.account_held(file);
        let state = &mut self.states[file as usize];
        state.finished = true;
        let size = self.bytes[file as usize].len() as u64;
        let info = &mut self.sink.corpus.files[file as usize];
        if info.format != Format::Rejected {
            info.size = size;
        }
        if info.format == Format::Pending {
            // Only blank lines, or nothing at all.
            info.format = Format::ClaudeCode;
        }
        if size == 0 && info.format != Format::Rejected {
            self.sink.corpus.diagnostics.push(Diagnostic {
                file,
                line: 0,
                offset: 0,
                kind: DiagnosticKind::EmptyFile,
                message: "the file is empty".into(),
            });
        }
    }

    /// Counts the lines left out of a file read in part (before where it started, after where it
    /// was cut), says which and why, and notes the part read ([`FileInfo::held`]). Called on the
    /// file's last part.
    fn account_held(&mut self, file: FileId) {
        let f = file as usize;
        let state = &self.states[f];
        let (from, base, pushed, next_line, cut) =
            (state.from, state.base, state.pushed, state.next_line, state.cut.clone());
        if from.is_beginning() && cut.is_none() {
            return;
        }
        let file_size = base + pushed;
        let kind = DiagnosticKind::LeftOut;
        let before = u64::from(from.line) - 1;
        if !from.is_beginning() {
            let counts = &mut self.sink.corpus.files[f].counts;
            counts.lines += before;
            counts.left_out += before;
            let message = format!(
                "lines 1–{before} ({} of the file's {}, before the part shown) were not read: {}",
                human_bytes(from.offset),
                human_bytes(file_size),
                self.cut_reason(CutWhy::Held)
            );
            self.sink.corpus.diagnostics.push(Diagnostic { file, line: 1, offset: 0, kind, message });
        }
        let mut next = None;
        let mut file_lines = u64::from(next_line) - 1;
        if let Some(cut) = cut {
            let lines = cut.left_out.lines();
            let counts = &mut self.sink.corpus.files[f].counts;
            counts.lines += lines;
            counts.left_out += lines;
            let last = u64::from(cut.line) + lines.saturating_sub(1);
            file_lines = last;
            let message = format!(
                "lines {}–{last} ({} of the file's {}) were not read: {}",
                cut.line,
                human_bytes(pushed.saturating_sub(cut.offset)),
                human_bytes(file_size),
                self.cut_reason(cut.why)
            );
            self.sink.corpus.diagnostics.push(Diagnostic { file, line: cut.line, offset: cut.offset, kind, message });
            // A part that held no line (one longer than it can hold) has no next part to go to.
            if lines > 0 && base + cut.offset > from.offset {
                next = Some(Start { offset: base + cut.offset, line: cut.line });
            }
        }
        self.sink.corpus.files[f].held = Some(Held { from, next, file_size, file_lines });
    }

    /// Reads whole files, given as `(path, bytes)` pairs, into one corpus.
    pub fn read_all<P: AsRef<str>, B: AsRef<[u8]>>(files: impl IntoIterator<Item = (P, B)>) -> Corpus {
        let mut loader = Loader::new();
        for (path, bytes) in files {
            loader.add_bytes(path.as_ref(), bytes.as_ref());
        }
        loader.finish()
    }

    /// Reads a whole file given as one buffer.
    pub fn add_bytes(&mut self, path: &str, bytes: &[u8]) -> FileId {
        self.add_bytes_from(path, bytes, Start::BEGINNING)
    }

    /// Reads the bytes of a file from `start` on, given as one buffer ([`Loader::add_file_from`]).
    pub fn add_bytes_from(&mut self, path: &str, bytes: &[u8], start: Start) -> FileId {
        let id = self.add_file_from(path, bytes.len() as u64, start);
        self.push(id, bytes);
        self.finish_file(id);
        id
    }

    /// Reads a whole file given as an owned buffer, which becomes the file's buffer uncopied.
    pub fn add_vec(&mut self, path: &str, bytes: Vec<u8>) -> FileId {
        let id = self.add_file(path, bytes.len() as u64);
        self.push_vec(id, bytes);
        self.finish_file(id);
        id
    }

    /// Ends loading: finishes any file left open and returns the model with the file bytes.
    pub fn finish(mut self) -> Corpus {
        for file in 0..self.states.len() {
            self.finish_file(file as FileId);
        }
        self.read_opencode_storage();
        import::cline::finish_all(&mut self.sink);
        let mut corpus = self.sink.corpus;
        let mut type_counts: Vec<(Sym, u64)> = self.sink.type_counts.into_iter().collect();
        type_counts.sort_by(|a, b| corpus.symbols.resolve(a.0).cmp(corpus.symbols.resolve(b.0)));
        corpus.type_counts = type_counts;
        corpus.bytes = self.bytes;
        corpus.entries.shrink_to_fit();
        corpus.blocks.shrink_to_fit();
        corpus.responses.shrink_to_fit();
        corpus.arena.shrink_to_fit();
        corpus
    }

    /// What has been read so far, as a corpus of its own: each file still being read is cut
    /// after its last complete line. A viewer shows this while the rest of a big file loads.
    /// The lines are parsed again into a new loader (a few milliseconds per megabyte), so the
    /// load in progress is not disturbed; its result is what the whole files cut at the same
    /// places would give, except that bytes already mended in the buffer (invalid UTF-8, lone
    /// surrogates) are not reported again.
    pub fn preview(&self) -> Corpus {
        let mut loader = Loader::new();
        for (file, info) in self.sink.corpus.files.iter().enumerate() {
            let bytes = self.bytes.get(file).map_or(&[][..], Vec::as_slice);
            let state = self.states.get(file);
            let complete = state.is_some_and(|s| s.finished);
            let keep = if complete { bytes.len() } else { memchr::memrchr(b'\n', bytes).map_or(0, |i| i + 1) };
            // A file read from its middle is numbered from there in the preview too.
            let from = state.filter(|_| info.continues.is_none()).map_or(Start::BEGINNING, |s| s.from);
            loader.add_bytes_from(&info.path, &bytes[..keep], from);
        }
        loader.finish()
    }

    /// What has been read so far, as a corpus of its own, while the loader goes on reading (a
    /// followed session that grows). It equals what the files cut after their last complete line
    /// would give: a last line without its newline waits for the rest, unless it is a whole JSON
    /// value already, or ends a document format's file that is whole JSON (a metadata file is
    /// taken as it stands). Nothing is parsed again: the loader is copied (its bytes too, a memory
    /// copy) and the copy finished.
    pub fn snapshot(&self) -> Corpus {
        let mut copy = self.clone();
        let files = copy.sink.corpus.files.iter();
        for ((state, bytes), info) in copy.states.iter_mut().zip(&mut copy.bytes).zip(files) {
            // A metadata file is one JSON document, not lines: it is read as it stands.
            if state.finished || info.format == Format::AgentMeta {
                continue;
            }
            let parsed = state.parsed_upto.min(bytes.len());
            let cut = memchr::memrchr(b'\n', &bytes[parsed..]).map_or(parsed, |i| parsed + i + 1);
            // A document that is whole JSON already (its closing brace has no newline) stands.
            let whole_document = import::is_document(info.format) && is_whole_json(bytes);
            if cut < bytes.len() && !is_whole_json(&bytes[cut..]) && !whole_document {
                bytes.truncate(cut);
                state.scan_from = state.scan_from.min(cut);
            }
        }
        copy.finish()
    }

    /// The OpenCode storage files loaded (each one record, read whole), turned into the record
    /// stream of OpenCode's database and read as one: a file the loader makes, after the given
    /// ones, whose [`FileInfo::sources`] are the storage files. It is read with its format set,
    /// not sniffed (its first record may be longer than a sniff looks at).
    fn read_opencode_storage(&mut self) {
        let Some(stream) = import::opencode_storage::take_stream(&mut self.sink) else { return };
        let id = self.add_file(&stream.path, stream.bytes.len() as u64);
        let info = &mut self.sink.corpus.files[id as usize];
        if info.format == Format::Pending {
            info.format = Format::OpenCode;
        }
        info.session_from_path = None;
        self.push(id, &stream.bytes);
        self.finish_file(id);
        self.sink.corpus.files[id as usize].sources = stream.sources;
    }

    /// How many files were added.
    pub fn file_count(&self) -> usize {
        self.bytes.len()
    }

    /// The bytes of a file read so far (none for a file that was rejected).
    pub fn file_bytes(&self, file: FileId) -> &[u8] {
        self.bytes.get(file as usize).map_or(&[][..], Vec::as_slice)
    }

    /// How many bytes of a file were pushed, kept or not (a rejected file keeps none), over all
    /// its parts.
    pub fn file_len(&self, mut file: FileId) -> u64 {
        let mut pushed = 0;
        while let Some(state) = self.states.get(file as usize) {
            pushed += state.pushed;
            match state.next_part {
                Some(next) => file = next,
                None => break,
            }
        }
        pushed
    }

    /// Bytes read so far over all files.
    pub fn bytes_read(&self) -> u64 {
        self.bytes.iter().map(|b| b.len() as u64).sum()
    }

    fn reject(&mut self, file: FileId, kind: DiagnosticKind, message: String) {
        let info = &mut self.sink.corpus.files[file as usize];
        info.format = Format::Rejected;
        self.sink.corpus.diagnostics.push(Diagnostic { file, line: 0, offset: 0, kind, message });
        // Lines already in the buffer are counted, then the buffer is dropped.
        let state = &mut self.states[file as usize];
        let buffer = std::mem::take(&mut self.bytes[file as usize]);
        let pending = &buffer[state.parsed_upto.min(buffer.len())..];
        state.rejected.add(pending);
        // Lines parsed before the rejection (none, in practice: files are sniffed first) keep
        // their counts.
    }

    fn finish_agent_meta(&mut self, file: FileId) {
        let bytes = &self.bytes[file as usize];
        let lines = if bytes.is_empty() {
            0
        } else {
            memchr::memchr_iter(b'\n', bytes).count() as u64 + u64::from(bytes.last() != Some(&b'\n'))
        };
        let info = &mut self.sink.corpus.files[file as usize];
        info.counts.lines += lines;
        match import::parse_agent_meta(bytes, info.agent_id_from_name.as_deref()) {
            Some(meta) => {
                info.agent_meta = Some(meta);
                info.counts.metadata += lines;
            }
            None => {
                info.counts.skipped += lines;
                self.sink.corpus.diagnostics.push(Diagnostic {
                    file,
                    line: 1,
                    offset: 0,
                    kind: DiagnosticKind::InvalidJson,
                    message: "an agent .meta.json file that is not a JSON object".into(),
                });
            }
        }
    }

    /// Reads a file of a document format whole, once it is all in: invalid UTF-8 is replaced
    /// byte for byte first (one diagnostic), then the importer reads the text and says where each
    /// of its records begins and how it ended up; the lines are counted from those records.
    fn finish_document(&mut self, file: FileId) {
        let f = file as usize;
        if self.states[f].finished {
            return;
        }
        let buffer = &mut self.bytes[f];
        let begin = if buffer.starts_with(b"\xEF\xBB\xBF") { 3 } else { 0 };
        if let Err(error) = std::str::from_utf8(&buffer[begin..]) {
            let first = begin + error.valid_up_to();
            let replaced = repair_utf8(&mut buffer[begin..]);
            let line = line_of(buffer, first);
            self.sink.corpus.diagnostics.push(Diagnostic {
                file,
                line,
                offset: first as u64,
                kind: DiagnosticKind::InvalidUtf8,
                message: format!(
                    "{replaced} invalid UTF-8 byte(s) were replaced with '?' (the first on this line); the file was read"
                ),
            });
        }
        if buffer[begin..].iter().all(u8::is_ascii_whitespace) {
            // Blank lines only: counted as such, like those of any other file.
            let lines = count_lines(buffer);
            let counts = &mut self.sink.corpus.files[f].counts;
            counts.lines += lines;
            counts.ignored += lines;
            return;
        }
        let format = self.sink.corpus.files[f].format;
        let records = import::import_document(format, &mut self.sink, &self.bytes, file, begin);
        self.account_document(file, records);
    }

    /// Counts the lines of a document from its records (see [`DocRecord`]) and reports the
    /// records that failed or repeat an entry.
    fn account_document(&mut self, file: FileId, mut records: Vec<DocRecord>) {
        let f = file as usize;
        let buffer = &self.bytes[f];
        let total = count_lines(buffer);
        if total == 0 {
            return;
        }
        records.sort_by_key(|r| r.offset);
        // Where each line begins, to number the records.
        let mut starts = vec![0usize];
        starts.extend(memchr::memchr_iter(b'\n', buffer).map(|i| i + 1).filter(|&i| i < buffer.len()));
        let line_at = |offset: usize| starts.partition_point(|&s| s <= offset).max(1) as u32;
        // (first line, outcome counted for its lines)
        let mut groups: Vec<(u32, Counted)> = Vec::new();
        for record in records {
            let line = if groups.is_empty() { 1 } else { line_at(record.offset) };
            let counted = match record.outcome {
                LineOutcome::Entry => Counted::Entry,
                LineOutcome::Metadata => Counted::Metadata,
                LineOutcome::Ignored => Counted::Ignored,
                LineOutcome::Duplicate(message) => {
                    self.sink.corpus.diagnostics.push(Diagnostic {
                        file,
                        line,
                        offset: record.offset as u64,
                        kind: DiagnosticKind::DuplicateUuid,
                        message,
                    });
                    Counted::Ignored
                }
                LineOutcome::Failed(failure) => {
                    self.sink.corpus.diagnostics.push(Diagnostic {
                        file,
                        line,
                        offset: record.offset as u64,
                        kind: failure.kind,
                        message: failure.message,
                    });
                    Counted::Skipped
                }
            };
            match groups.last_mut() {
                Some((last, outcome)) if *last == line => {
                    if counted == Counted::Entry {
                        *outcome = Counted::Entry;
                    }
                }
                _ => groups.push((line, counted)),
            }
        }
        if groups.is_empty() {
            // The importer said nothing of it: every line is skipped, and the file says why.
            groups.push((1, Counted::Skipped));
            self.sink.corpus.diagnostics.push(Diagnostic {
                file,
                line: 1,
                offset: 0,
                kind: DiagnosticKind::InvalidJson,
                message: "nothing of the document could be read".into(),
            });
        }
        let counts = &mut self.sink.corpus.files[f].counts;
        counts.lines += total;
        for (i, &(line, counted)) in groups.iter().enumerate() {
            let end = groups.get(i + 1).map_or(total + 1, |next| u64::from(next.0));
            let lines = end.saturating_sub(u64::from(line));
            match counted {
                Counted::Entry => counts.entries += lines,
                Counted::Metadata => counts.metadata += lines,
                Counted::Ignored => counts.ignored += lines,
                Counted::Skipped => counts.skipped += lines,
            }
        }
    }

    fn parse_complete_lines(&mut self, file: FileId, at_end: bool) {
        let f = file as usize;
        if self.sink.corpus.files[f].format == Format::Pending && !self.sniff(file, at_end) {
            return;
        }
        let format = self.sink.corpus.files[f].format;
        // A meta file is one JSON document (pretty-printed by Qwen Code), read when it ends.
        if matches!(format, Format::Rejected | Format::AgentMeta) {
            return;
        }
        if import::is_document(format) {
            // Kept whole until the file ends; only its size (or the size it said it has) is watched.
            let size = self.bytes[f].len().max(usize::try_from(self.sink.corpus.files[f].size).unwrap_or(usize::MAX));
            if size > DOCUMENT_MAX_BYTES {
                self.reject(
                    file,
                    DiagnosticKind::FileTooLarge,
                    format!(
                        "a {} is read whole, and this one is {size} bytes; files of this format over {DOCUMENT_MAX_BYTES} bytes are not read",
                        format.label()
                    ),
                );
            }
            return;
        }
        loop {
            let state = &self.states[f];
            let start = state.parsed_upto;
            let buffer = &self.bytes[f];
            if start >= buffer.len() {
                break;
            }
            let search_from = state.scan_from.max(start);
            let (end, next) = match memchr::memchr(b'\n', &buffer[search_from..]) {
                Some(i) => (search_from + i, search_from + i + 1),
                None if at_end => (buffer.len(), buffer.len()),
                None => {
                    self.states[f].scan_from = buffer.len();
                    break;
                }
            };
            let is_last_without_newline = next == buffer.len() && end == buffer.len();
            let line_no = state.next_line;
            self.states[f].parsed_upto = next;
            self.states[f].next_line += 1;
            self.parse_line(file, line_no, start, end, is_last_without_newline);
        }
    }

    /// Decides the format of a file from its first bytes. False while undecided.
    fn sniff(&mut self, file: FileId, at_end: bool) -> bool {
        let f = file as usize;
        let buffer = &self.bytes[f];
        // The window is the first SNIFF_LINES lines or SNIFF_BYTES bytes, whichever ends first,
        // whatever slices the bytes came in: how a file is read never changes what it is read as.
        let limit = buffer.len().min(SNIFF_BYTES);
        let state = &mut self.states[f];
        while state.sniff_newlines < SNIFF_LINES && state.sniff_scanned < limit {
            match memchr::memchr(b'\n', &buffer[state.sniff_scanned..limit]) {
                Some(i) => {
                    state.sniff_newlines += 1;
                    state.sniff_scanned += i + 1;
                }
                None => state.sniff_scanned = limit,
            }
        }
        let enough_lines = state.sniff_newlines >= SNIFF_LINES;
        let cut = if enough_lines { state.sniff_scanned } else { limit };
        if !enough_lines && limit < SNIFF_BYTES && !at_end {
            return false;
        }
        let window = &buffer[..cut];
        // The window is the whole file only when the file ended before either limit.
        let whole_file = at_end && !enough_lines && buffer.len() <= SNIFF_BYTES;
        match import::sniff(window, whole_file, &self.sink.corpus.files[f].path) {
            Sniff::Format(format) => {
                self.sink.corpus.files[f].format = format;
                true
            }
            Sniff::Empty => true,
            Sniff::Rejected(message) => {
                self.reject(file, DiagnosticKind::NotASessionLog, message);
                false
            }
        }
    }

    fn parse_line(&mut self, file: FileId, line_no: u32, start: usize, mut end: usize, last_without_newline: bool) {
        let f = file as usize;
        fn counts(sink: &mut Sink, f: usize) -> &mut LineCounts {
            &mut sink.corpus.files[f].counts
        }
        counts(&mut self.sink, f).lines += 1;
        let buffer = &self.bytes[f];
        let mut begin = start;
        if line_no == 1 && buffer[begin..end].starts_with(b"\xEF\xBB\xBF") {
            begin += 3;
        }
        if end > begin && buffer[end - 1] == b'\r' {
            end -= 1;
        }
        if buffer[begin..end].iter().all(u8::is_ascii_whitespace) {
            counts(&mut self.sink, f).ignored += 1;
            // Markdown (an Aider chat history) spaces its paragraphs with blank lines: nothing to
            // report. Its importer takes a message's text from the file, blank lines included.
            if self.sink.corpus.files[f].format == Format::Aider {
                return;
            }
            self.sink.corpus.diagnostics.push(Diagnostic {
                file,
                line: line_no,
                offset: start as u64,
                kind: DiagnosticKind::BlankLine,
                message: "blank line".into(),
            });
            return;
        }

        let mut outcome = self.import(file, line_no, begin, end);
        if let LineOutcome::Failed(failure) = &outcome
            && failure.lone_surrogate
        {
            let repaired = json::repair_lone_surrogates(&mut self.bytes[f][begin..end]);
            if repaired > 0 {
                self.sink.corpus.diagnostics.push(Diagnostic {
                    file,
                    line: line_no,
                    offset: start as u64,
                    kind: DiagnosticKind::LoneSurrogate,
                    message: format!(
                        "{repaired} lone UTF-16 surrogate escape(s) were read as U+FFFD; the line was read"
                    ),
                });
                outcome = self.import(file, line_no, begin, end);
            }
        }
        let sink = &mut self.sink;
        match outcome {
            LineOutcome::Entry => counts(sink, f).entries += 1,
            LineOutcome::Metadata => counts(sink, f).metadata += 1,
            LineOutcome::Ignored => counts(sink, f).ignored += 1,
            LineOutcome::Duplicate(message) => {
                counts(sink, f).ignored += 1;
                sink.corpus.diagnostics.push(Diagnostic {
                    file,
                    line: line_no,
                    offset: start as u64,
                    kind: DiagnosticKind::DuplicateUuid,
                    message,
                });
            }
            LineOutcome::Failed(failure) => {
                counts(sink, f).skipped += 1;
                let kind =
                    if failure.eof && last_without_newline { DiagnosticKind::TruncatedLine } else { failure.kind };
                let message = if kind == DiagnosticKind::TruncatedLine {
                    format!(
                        "the last line ends without a newline in the middle of its JSON ({} bytes): the file is truncated or still being written",
                        end - begin
                    )
                } else {
                    failure.message
                };
                sink.corpus.diagnostics.push(Diagnostic { file, line: line_no, offset: start as u64, kind, message });
            }
        }
    }
}

impl Loader {
    /// Reads one line. Invalid UTF-8 is first replaced byte for byte, so everything downstream
    /// reads valid text and every byte range stays where it was.
    fn import(&mut self, file: FileId, line_no: u32, begin: usize, end: usize) -> LineOutcome {
        let f = file as usize;
        let format = self.sink.corpus.files[f].format;
        // Nearly every line is valid UTF-8: it is checked once, here, and read as it is. The
        // check runs 16 or 32 bytes at a time (`simdutf8`); only a line that fails it is looked
        // at again, with the standard library, for where and what to repair.
        if let Ok(line) = simdutf8::basic::from_utf8(&self.bytes[f][begin..end]) {
            let importer = &mut self.states[f].importer;
            return import::import_line(format, &mut self.sink, &self.bytes, file, line_no, line, importer);
        }
        if let Err(error) = std::str::from_utf8(&self.bytes[f][begin..end]) {
            let valid = begin + error.valid_up_to();
            let replaced = repair_utf8(&mut self.bytes[f][valid..end]);
            self.sink.corpus.diagnostics.push(Diagnostic {
                file,
                line: line_no,
                offset: begin as u64,
                kind: DiagnosticKind::InvalidUtf8,
                message: format!("{replaced} invalid UTF-8 byte(s) were replaced with '?'; the line was read"),
            });
        }
        let importer = &mut self.states[f].importer;
        match std::str::from_utf8(&self.bytes[f][begin..end]) {
            Ok(line) => import::import_line(format, &mut self.sink, &self.bytes, file, line_no, line, importer),
            Err(_) => LineOutcome::Failed(import::Failure::invalid_utf8()),
        }
    }
}

/// How the lines of a document's record are counted.
#[derive(Clone, Copy, PartialEq)]
enum Counted {
    Entry,
    Metadata,
    Ignored,
    Skipped,
}

/// Lines of a file: its newlines, plus a last line without one.
fn count_lines(bytes: &[u8]) -> u64 {
    if bytes.is_empty() {
        return 0;
    }
    memchr::memchr_iter(b'\n', bytes).count() as u64 + u64::from(bytes.last() != Some(&b'\n'))
}

/// The 1-based line that holds the byte at `offset`.
fn line_of(bytes: &[u8], offset: usize) -> u32 {
    let before = &bytes[..offset.min(bytes.len())];
    (memchr::memchr_iter(b'\n', before).count() + 1).min(u32::MAX as usize) as u32
}

/// Whether bytes are one whole JSON value (a last line written whole, only without its newline).
fn is_whole_json(bytes: &[u8]) -> bool {
    serde_json::from_slice::<serde::de::IgnoredAny>(bytes).is_ok()
}

/// Replaces every byte of an invalid UTF-8 sequence with `?`; returns how many were replaced.
fn repair_utf8(bytes: &mut [u8]) -> usize {
    let mut replaced = 0;
    let mut at = 0;
    while at < bytes.len() {
        match std::str::from_utf8(&bytes[at..]) {
            Ok(_) => break,
            Err(e) => {
                let bad_start = at + e.valid_up_to();
                let bad_len = e.error_len().unwrap_or(bytes.len() - bad_start);
                for b in &mut bytes[bad_start..bad_start + bad_len] {
                    *b = b'?';
                }
                replaced += bad_len;
                at = bad_start + bad_len;
            }
        }
    }
    replaced
}

/// The session id a path names: `<sid>.jsonl`, or `<sid>/subagents/agent-x.jsonl`, or the uuid
/// at the end of a Codex `rollout-<date>-<uuid>.jsonl`, or the folder of a Copilot CLI
/// `<sid>/events.jsonl`.
fn session_from_path(path: &str) -> Option<String> {
    let parts: Vec<&str> = path.split(['/', '\\']).filter(|p| !p.is_empty()).collect();
    let name = parts.last()?;
    if let Some(task) = import::cline::task_of_path(path) {
        return Some(task);
    }
    if *name == "events.jsonl" {
        return parts.len().checked_sub(2).map(|i| parts[i].to_owned());
    }
    if import::is_rollout_name(name)
        && let Some(stem) = name.strip_suffix(".jsonl")
        && let Some(uuid) = stem.get(stem.len().saturating_sub(36)..)
        && uuid.len() == 36
        && uuid.bytes().filter(|&b| b == b'-').count() == 4
        && uuid.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-')
    {
        return Some(uuid.to_owned());
    }
    // A Qwen Code background agent's file (and its meta file) is of the session its folder
    // names: `subagents/<session id>/agent-<id>.jsonl`.
    if parts.len() >= 3 && parts[parts.len() - 3] == "subagents" && name.starts_with("agent-") {
        return Some(parts[parts.len() - 2].to_owned());
    }
    // A subagent's file (`agent-<id>.jsonl` of Claude Code, `<id>.jsonl` of Cursor CLI) is of the
    // session its `subagents` folder lies in.
    if let Some(position) = parts.iter().rposition(|p| *p == "subagents")
        && position + 2 == parts.len()
        && position >= 1
    {
        return Some(parts[position - 1].to_owned());
    }
    let stem = name.strip_suffix(".jsonl")?;
    (!stem.starts_with("agent-")).then(|| stem.to_owned())
}

/// What writes a chunk into the room [`Loader::push_with`] makes for it: given the room, not yet
/// written, it writes all of it and gives it back.
pub trait Fill: for<'a> FnOnce(&'a mut [MaybeUninit<u8>]) -> &'a mut [u8] {}

impl<F: for<'a> FnOnce(&'a mut [MaybeUninit<u8>]) -> &'a mut [u8]> Fill for F {}

/// Appends `len` bytes to `buffer`, written by `fill` straight into its spare room, with no zeros
/// written first. A fill that does not give back the whole room it was given (which only a wrong
/// caller does) leaves zeros there instead.
pub fn append_filled(buffer: &mut Vec<u8>, len: usize, fill: impl Fill) {
    buffer.reserve(len);
    let start = buffer.len();
    let room = &mut buffer.spare_capacity_mut()[..len];
    let at = room.as_ptr() as usize;
    let filled = fill(room);
    let whole = filled.as_ptr() as usize == at && filled.len() == len;
    if !whole {
        buffer.spare_capacity_mut()[..len].fill(MaybeUninit::new(0));
    }
    // SAFETY: the `len` bytes after `start` are written: either `fill` gave back a `&mut [u8]`
    // over exactly them (safe code can make one only by writing them: the room was its only
    // reference to that memory), or they were just filled with zeros.
    unsafe { buffer.set_len(start + len) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_ids_come_from_file_names_and_subagent_folders() {
        assert_eq!(session_from_path("p/abc.jsonl").as_deref(), Some("abc"));
        assert_eq!(session_from_path("p/abc/subagents/agent-a1.jsonl").as_deref(), Some("abc"));
        assert_eq!(session_from_path("agent-a1.jsonl"), None);
        assert_eq!(session_from_path("agent-transcripts/s1/s1.jsonl").as_deref(), Some("s1"));
        assert_eq!(session_from_path("agent-transcripts/s1/subagents/a1.jsonl").as_deref(), Some("s1"));
        assert_eq!(session_from_path("session-state/5e2f/events.jsonl").as_deref(), Some("5e2f"));
        assert_eq!(session_from_path("p/subagents/s1/agent-a1.jsonl").as_deref(), Some("s1"));
        assert_eq!(session_from_path("p/subagents/s1/agent-a1.meta.json").as_deref(), Some("s1"));
        assert_eq!(session_from_path("events.jsonl"), None);
        assert_eq!(
            session_from_path("2025/10/02/rollout-2025-10-02T10-11-12-0199a213-81c0-7800-8aa1-bbab2a035a53.jsonl")
                .as_deref(),
            Some("0199a213-81c0-7800-8aa1-bbab2a035a53")
        );
    }

    #[test]
    fn a_fill_writes_its_room_in_place_and_a_wrong_one_leaves_zeros() {
        let mut buffer = b"ab".to_vec();
        append_filled(&mut buffer, 3, |room| room.write_copy_of_slice(b"cde"));
        assert_eq!(buffer, b"abcde");
        // A fill that gives back other bytes than its room is not believed.
        append_filled(&mut buffer, 2, |_room| Box::leak(b"xy".to_vec().into_boxed_slice()));
        assert_eq!(buffer, b"abcde\0\0");
        append_filled(&mut buffer, 2, |room| &mut room[..1].write_copy_of_slice(b"z")[..]);
        assert_eq!(buffer, b"abcde\0\0\0\0");
    }

    #[test]
    fn what_a_file_is_read_as_does_not_depend_on_its_slices() {
        // Markdown whose first `{` comes after its eighth line: once read as "plain text" when
        // it came in small slices, and as "not valid JSON" when it came whole.
        let mut text = String::new();
        for i in 0..12 {
            text.push_str(&format!("# heading {i}\n\nsome prose\n"));
        }
        text.push_str("```json\n{\"a\": 1}\n```\n");
        let whole = Loader::read_all([("notes.md", text.as_bytes())]);
        let mut sliced = Loader::new();
        let file = sliced.add_file("notes.md", text.len() as u64);
        for byte in text.as_bytes().chunks(1) {
            sliced.push(file, byte);
        }
        let sliced = sliced.finish();
        assert_eq!(whole.files[0].format, Format::Rejected);
        assert_eq!(whole.diagnostics, sliced.diagnostics);
        assert_eq!(whole.files[0].counts, sliced.files[0].counts);
    }

    #[test]
    fn invalid_utf8_is_replaced_byte_for_byte() {
        let mut bytes = b"ok \xff\xfe and \xe2\x82".to_vec();
        assert_eq!(repair_utf8(&mut bytes), 4);
        assert_eq!(bytes, b"ok ?? and ??");
        let mut fine = "caf\u{e9}".as_bytes().to_vec();
        assert_eq!(repair_utf8(&mut fine), 0);
    }
}
