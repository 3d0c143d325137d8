//! `sessionscope`: the engine on the command line.
//!
//!   sessionscope summary <file-or-folder>... [--json]
//!                                                the files, sessions and agents, then tokens and
//!                                                cost per model and calls per tool
//!   sessionscope index <folder>... [--json] [--marks=<file>]
//!                                                one row per session of a whole history, read
//!                                                session by session on every core, as the app's
//!                                                history home lists it; with the stars, notes and
//!                                                tags of a marks file the page exported
//!   sessionscope files <folder>... [--json] [--file=<path>] [--project=<project>]
//!                                                every file the history's tools read or changed
//!                                                (or one file's changes, in time order)
//!   sessionscope failures <folder>... [--json]   failed tool calls by tool, project, model and
//!                                                agent, and the most frequent failures grouped
//!   sessionscope activity <folder>... [--json] [--utc-offset=±HH:MM]
//!                                                messages, tokens and cost by hour, and usage in
//!                                                5-hour blocks as ccusage's `blocks` reports it
//!   sessionscope search <query> <folder>... [--regex] [--case-sensitive] [--project=<p>]
//!                   [--agent=<a>] [--since=YYYY-MM-DD] [--until=YYYY-MM-DD] [--limit=N] [--json]
//!                                                the page's whole-history search: each hit's
//!                                                session, entry time and role, and its text
//!   sessionscope resume <session-id> <folder>... the line that resumes the session in its agent
//!                                                (`cd <cwd> && claude --resume <id>`, ...)
//!   sessionscope dump <file-or-folder>...        the parsed model and its structure, as text
//!   sessionscope records <database>...          an agent's SQLite database (OpenCode's
//!                                                opencode.db, Cursor's state.vscdb) as the record
//!                                                stream the engine reads, one JSON line per row
//!   sessionscope share <file-or-folder>... [--link] [--markdown]
//!                                                redacts each session as the app's Share dialog
//!                                                does (every finding replaced) and prints the
//!                                                size of its link, or the link fragment, or the
//!                                                redacted Markdown
//!   sessionscope mcp [<folder>...] [--no-redact]
//!                                                a Model Context Protocol server over stdio: tools
//!                                                that list, search and read the history, redacted
//!   sessionscope completions <bash|zsh|fish|powershell|elvish>
//!                                                the shell's completion script
//!   sessionscope [<command>] --help | --version
//!
//! The arguments are read with clap ([`cli`]): a flag takes its value as `--flag=value` or
//! `--flag value`, flags and paths come in any order, and paths that start with `-` go after
//! `--`. Where a command reads log files, `-` is a file read from stdin. `summary --json` prints
//! all of it, as the app's Statistics view computes it. `index --marks=<file>` reads a marks file
//! ([`sessionscope_engine::marks`]): each marked session's row gets a `marks` field in `--json`,
//! and in the table a starred session's line starts with `★` and its tags follow the title as
//! `#tag`.
//!
//! Exit status: 0 when the command ran; 1 when a file or folder could not be read or a session
//! was not found; 2 when the command line is wrong (an unknown command or flag, with clap's
//! suggestion of the nearest one, a missing argument, a value of the wrong form, a marks file
//! that cannot be used). Help and errors are coloured as the terminal allows, never with
//! `NO_COLOR` set.

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::OnceLock;

use clap::{CommandFactory, FromArgMatches};
use sessionscope_engine::dag::{Graph, SessionId};
use sessionscope_engine::marks::Marks;
use sessionscope_engine::model::Corpus;
use sessionscope_engine::share::SHARE_FRAGMENT;
use sessionscope_engine::share::envelope::{MAX_LINK_CHARS, seal_plain, to_base64url};
use sessionscope_engine::share::markdown::{MarkdownOptions, files_markdown};
use sessionscope_engine::share::redacted::{ShareOptions, share_scope};
use sessionscope_engine::share::scope::{Scope, resolve};
use sessionscope_engine::summary::{Summary, summarize};
use sessionscope_engine::{Loader, dump};

use cli::{Cli, Command};

mod cli;
mod database;
mod index;
mod insights;
mod live;
mod mcp;
mod open;
mod ranked;
mod search;
mod store;

/// The name a file read from stdin is known by: a log's name, so a history reads it too.
const STDIN_NAME: &str = "stdin.jsonl";

fn main() -> ExitCode {
    restore_broken_pipe();
    let command = Cli::command().color(cli::color_choice());
    let cli = match command.try_get_matches().and_then(|matches| Cli::from_arg_matches(&matches)) {
        Ok(cli) => cli,
        // Help and the version exit 0, a wrong command line 2, as clap decides.
        Err(error) => error.exit(),
    };
    run(cli.command)
}

/// Lets a write to a closed pipe end the program quietly, as other Unix tools end
/// (`sessionscope summary … | head`): Rust ignores the signal, so such a write would otherwise
/// fail, and `println!` panic.
fn restore_broken_pipe() {
    #[cfg(unix)]
    // SAFETY: called first in `main`, before any thread starts; SIG_DFL is a valid disposition.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// A marks file that cannot be used.
#[derive(Debug)]
enum MarksError {
    Unreadable(PathBuf, std::io::Error),
    NotMarks(PathBuf, sessionscope_engine::marks::MarksError),
}

impl fmt::Display for MarksError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MarksError::Unreadable(path, error) => write!(f, "{}: could not be read: {error}", path.display()),
            MarksError::NotMarks(path, error) => write!(f, "{}: {error}", path.display()),
        }
    }
}

/// Runs a command.
fn run(command: Command) -> ExitCode {
    let name = command.name();
    let paths = match &command {
        Command::Completions { shell } => {
            // Written whole to memory first: clap_complete panics on a write that fails, as one
            // to a closed pipe does.
            let mut script = Vec::new();
            clap_complete::generate(*shell, &mut Cli::command(), "sessionscope", &mut script);
            return write_stdout(&script);
        }
        Command::Summary(args) => &args.paths,
        Command::Index(args) => &args.folders.paths,
        Command::Files(args) => &args.folders.paths,
        Command::Failures(args) => &args.paths,
        Command::Activity(args) => &args.folders.paths,
        Command::Search(args) => &args.paths,
        Command::Resume(args) => &args.paths,
        Command::Dump(args) => &args.paths,
        Command::Records(args) => &args.paths,
        Command::Share(args) => &args.paths.paths,
        Command::Open(args) => &args.paths.paths,
        Command::Mcp(args) => return mcp::run(&args.folders, !args.no_redact, !args.no_cache),
    };
    if name == "records" && paths.iter().any(|path| is_stdin(path)) {
        eprintln!("sessionscope: `records` reads a database from a file, not from stdin");
        return ExitCode::from(2);
    }
    // The marks are read first: a file that is not marks stops the command before any work.
    let asked_marks = match &command {
        Command::Index(args) => args.marks.as_deref(),
        Command::Search(args) => args.marks.as_deref(),
        _ => None,
    };
    let marks = match asked_marks {
        Some(path) => match read_marks(path) {
            Ok(marks) => Some(marks),
            Err(why) => {
                eprintln!("sessionscope: {why}");
                return ExitCode::from(2);
            }
        },
        None => None,
    };
    // A search reads its history's cache while the files are listed.
    let store = match &command {
        Command::Search(args) if !args.no_cache => store::Store::of(&args.paths),
        _ => None,
    };
    if let Some(store) = &store {
        store.read_ahead(false);
    }
    let files = match files_of(paths) {
        Ok(files) => files,
        Err(code) => return code,
    };
    match &command {
        Command::Index(args) => index::run(files, args.folders.json, marks.as_ref()),
        Command::Resume(args) => index::resume(files, &args.id),
        Command::Search(args) => search::run(files, args, marks.as_ref(), store),
        Command::Files(args) => {
            let asked = insights::Asked {
                json: args.folders.json,
                file: args.file.as_deref(),
                project: args.project.as_deref(),
                utc_offset_minutes: 0,
            };
            insights::run(name, files, &asked)
        }
        Command::Failures(args) => {
            let asked = insights::Asked { json: args.json, file: None, project: None, utc_offset_minutes: 0 };
            insights::run(name, files, &asked)
        }
        Command::Activity(args) => {
            let asked = insights::Asked {
                json: args.folders.json,
                file: None,
                project: None,
                utc_offset_minutes: args.utc_offset.unwrap_or(0),
            };
            insights::run(name, files, &asked)
        }
        Command::Records(_) => records(&files),
        Command::Summary(args) => loaded(&files, |corpus, graph| print_summary(corpus, graph, args.json)),
        Command::Share(args) => loaded(&files, |corpus, graph| share(corpus, graph, args.link, args.markdown)),
        Command::Open(args) => open::run(&files, args),
        Command::Dump(_) => loaded(&files, |corpus, graph| {
            print!("{}", dump::dump_corpus(corpus));
            print!("{}", dump::dump_graph(corpus, graph));
            ExitCode::SUCCESS
        }),
        Command::Completions { .. } | Command::Mcp(_) => ExitCode::SUCCESS,
    }
}

/// The files under `paths`, in path order (so the result does not depend on the order the file
/// system lists files in), with the names they are known by; exit status 1 when a path does not
/// exist. `-` is the file read from stdin.
fn files_of(paths: &[PathBuf]) -> Result<Vec<(PathBuf, String)>, ExitCode> {
    let file_base = file_base(paths);
    let mut files = Vec::new();
    let mut seen = Seen::default();
    for path in paths {
        if is_stdin(path) {
            if !files.iter().any(|(file, _): &(PathBuf, String)| is_stdin(file)) {
                files.push((path.clone(), STDIN_NAME.to_owned()));
            }
            continue;
        }
        if !path.exists() {
            eprintln!("sessionscope: {}: no such file or folder", path.display());
            return Err(ExitCode::from(1));
        }
        let base = if path.is_file() { file_base.as_deref() } else { None };
        collect_tree(path, base.unwrap_or_else(|| path.parent().unwrap_or(Path::new(""))), &mut files, &mut seen);
    }
    files.sort_by(|a, b| a.1.cmp(&b.1));
    Ok(files)
}

/// Loads `files` as one corpus and answers `then` of it and its graph.
fn loaded(files: &[(PathBuf, String)], then: impl FnOnce(&Corpus, &Graph) -> ExitCode) -> ExitCode {
    let mut loader = Loader::new();
    for (file, name) in files {
        match read_source(file, name) {
            Ok(bytes) => {
                loader.add_vec(name, bytes);
            }
            Err(why) => eprintln!("sessionscope: {name}: {why}"),
        }
    }
    let corpus = loader.finish();
    let graph = Graph::build(&corpus);
    then(&corpus, &graph)
}

/// Prints `summary`'s tables, or its JSON.
fn print_summary(corpus: &Corpus, graph: &Graph, json: bool) -> ExitCode {
    let summary = summarize(corpus, graph);
    if json {
        match serde_json::to_string_pretty(&summary) {
            Ok(text) => println!("{text}"),
            Err(error) => {
                eprintln!("sessionscope: {error}");
                return ExitCode::from(1);
            }
        }
    } else {
        print_table(&summary);
    }
    ExitCode::SUCCESS
}

/// Writes `bytes` to stdout. A reader that stops early (`| head`) closes the pipe: that is not an
/// error worth a word.
fn write_stdout(bytes: &[u8]) -> ExitCode {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(bytes).and_then(|()| stdout.flush()) {
        Err(error) if error.kind() != std::io::ErrorKind::BrokenPipe => {
            eprintln!("sessionscope: {error}");
            ExitCode::from(1)
        }
        _ => ExitCode::SUCCESS,
    }
}

/// The marks file `--marks=<file>` names, or why it cannot be used.
fn read_marks(path: &Path) -> Result<Marks, MarksError> {
    let text = std::fs::read_to_string(path).map_err(|error| MarksError::Unreadable(path.to_owned(), error))?;
    Marks::from_json(&text).map_err(|error| MarksError::NotMarks(path.to_owned(), error))
}

/// Now, in milliseconds since the epoch (0 on a clock before it).
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| i64::try_from(since.as_millis()).unwrap_or(i64::MAX))
}

/// Whether a path is `-`, the file read from stdin.
pub fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// The bytes of stdin, read once (a command may ask for them more than once); the error is one
/// line.
pub fn stdin_bytes() -> Result<&'static [u8], String> {
    static STDIN: OnceLock<Result<Vec<u8>, String>> = OnceLock::new();
    let read = STDIN.get_or_init(|| {
        use std::io::Read;
        let mut bytes = Vec::new();
        std::io::stdin().lock().read_to_end(&mut bytes).map(|_| bytes).map_err(|error| format!("{error}"))
    });
    match read {
        Ok(bytes) => Ok(bytes),
        Err(why) => Err(format!("stdin could not be read: {why}")),
    }
}

/// Prints the record stream of each database; a file that is none is an error.
fn records(files: &[(PathBuf, String)]) -> ExitCode {
    use std::io::Write;
    let mut status = ExitCode::SUCCESS;
    let mut out = std::io::stdout().lock();
    for (path, name) in files {
        let stream = database::record_stream(path);
        match stream {
            Ok(stream) => {
                for note in &stream.notes {
                    eprintln!("sessionscope: {name}: {note}");
                }
                if let Err(error) = out.write_all(&stream.bytes) {
                    eprintln!("sessionscope: {error}");
                    return ExitCode::from(1);
                }
            }
            Err(why) => {
                eprintln!("sessionscope: {name}: {why}");
                status = ExitCode::from(1);
            }
        }
    }
    status
}

/// The bytes the engine reads for a file: the file itself, or an agent's database turned into its
/// record stream (what the reader notes about it goes to stderr). The error is one line.
pub fn read_source(path: &Path, name: &str) -> Result<Vec<u8>, String> {
    if is_stdin(path) {
        return stdin_bytes().map(<[u8]>::to_vec);
    }
    // A database is known by its first bytes; its name is only a hint (a copy is named anything).
    use sessionscope_engine::import::names::{is_database_name, may_be_database};
    let database = is_database_name(name) || (may_be_database(name) && starts_like_sqlite(path));
    if !database {
        return std::fs::read(path).map_err(|error| format!("could not be read: {error}"));
    }
    let stream = database::record_stream(path)?;
    for note in &stream.notes {
        eprintln!("sessionscope: {name}: {note}");
    }
    Ok(stream.bytes)
}

/// Whether a file's first bytes are an SQLite database's.
fn starts_like_sqlite(path: &Path) -> bool {
    use std::io::Read;
    let magic = sessionscope_engine::import::records::SQLITE_MAGIC;
    let mut head = [0u8; 16];
    std::fs::File::open(path).and_then(|mut file| file.read_exact(&mut head)).is_ok() && &head == magic
}

/// What the files given one by one are named from. One file alone is named by its name, except a
/// task's file (Cline, Roo Code), whose folder is the task's id. Several files keep the layout
/// they have together, as if the folder that holds them all was given: a transcript and the
/// files of its `subagents/` folder, or a task's three files, read as they do from their folder.
fn file_base(paths: &[PathBuf]) -> Option<PathBuf> {
    let files: Vec<PathBuf> = paths
        .iter()
        .filter(|p| !is_stdin(p) && p.is_file())
        .map(|p| std::path::absolute(p).unwrap_or(p.into()))
        .collect();
    let mut common = files.first()?.parent()?.to_path_buf();
    for file in &files[1..] {
        while !file.starts_with(&common) {
            if !common.pop() {
                return None;
            }
        }
    }
    let keep_folder =
        files.len() > 1 || files.iter().any(|f| sessionscope_engine::import::cline::is_task_file(&f.to_string_lossy()));
    if keep_folder {
        common.pop();
    }
    Some(common)
}

/// Files under `path`, with names relative to `base` (so `subagents/` folders stay visible). A
/// folder's entries are told apart by the kind the listing gives (no look at each file), a link
/// by what it points to. Each real folder and file is taken once, however many links lead to it
/// (`seen`, by device and inode, kept across the calls of one walk): a link back to a folder above
/// is no loop, and a link to a sibling folder does not count its sessions twice.
///
/// The folders in `path` (a history's projects) are walked on every core, each with a `Seen` of
/// its own that starts as `seen` is; their files are then put together in the listing's order, a
/// file that an earlier folder took left out. So the files and the names they are taken by are
/// those of a walk of one folder after the other.
fn collect_tree(path: &Path, base: &Path, out: &mut Vec<(PathBuf, String)>, seen: &mut Seen) {
    let Some(node) = seen.first_time(path) else { return };
    if !node.is_dir {
        out.push((path.to_owned(), name_under(path, base)));
        seen.listed.push(node.identity);
        return;
    }
    let Ok(read) = std::fs::read_dir(path) else { return };
    let entries: Vec<std::fs::DirEntry> = read.flatten().collect();
    let walked = index::parallel_map(&entries, |entry| {
        // A folder's walk knows what is taken already (a link back to a folder above ends there).
        let plain_file = entry.file_type().is_ok_and(|kind| kind.is_file());
        let taken = if plain_file { Default::default() } else { seen.taken.clone() };
        let mut own = Seen { taken, ..Seen::default() };
        let mut files = Vec::new();
        collect_entry(entry, node.device, base, &mut files, &mut own);
        (files, own)
    });
    for (files, own) in walked {
        for (file, identity) in files.into_iter().zip(own.listed) {
            if seen.taken.insert(identity.clone()) {
                out.push(file);
                seen.listed.push(identity);
            }
        }
        seen.taken.extend(own.taken);
    }
}

fn collect(path: &Path, base: &Path, out: &mut Vec<(PathBuf, String)>, seen: &mut Seen) {
    let Some(node) = seen.first_time(path) else { return };
    if node.is_dir {
        collect_folder(path, node.device, base, out, seen);
    } else {
        out.push((path.to_owned(), name_under(path, base)));
        seen.listed.push(node.identity);
    }
}

/// [`collect`] of a folder on `device` (where the system says), already taken.
fn collect_folder(folder: &Path, device: Option<u64>, base: &Path, out: &mut Vec<(PathBuf, String)>, seen: &mut Seen) {
    let Ok(read) = std::fs::read_dir(folder) else { return };
    for entry in read.flatten() {
        collect_entry(&entry, device, base, out, seen);
    }
}

/// [`collect`] of an entry of a folder on `device`. A plain file is known by the folder's device
/// and the inode its listing gives (no look at it); a folder or a link by what it leads to (one
/// look, which also says whether it is a folder).
fn collect_entry(
    entry: &std::fs::DirEntry,
    device: Option<u64>,
    base: &Path,
    out: &mut Vec<(PathBuf, String)>,
    seen: &mut Seen,
) {
    let path = entry.path();
    match entry.file_type() {
        Ok(kind) if kind.is_file() => {
            if let Some(identity) = seen.first_time_listed(device, entry, &path) {
                let name = name_under(&path, base);
                out.push((path, name));
                seen.listed.push(identity);
            }
        }
        _ => collect(&path, base, out, seen),
    }
}

/// The real folders and files a walk has taken: by device and inode where the system has them,
/// else by canonical path.
#[derive(Default)]
pub struct Seen {
    taken: std::collections::HashSet<Identity>,
    /// What each file listed is, in the order of the list.
    listed: Vec<Identity>,
}

/// What a path taken by [`Seen::first_time`] leads to.
struct Node {
    is_dir: bool,
    /// Its device, where the system says.
    device: Option<u64>,
    identity: Identity,
}

/// What a folder or file is, whatever path leads to it.
#[derive(Clone, Hash, PartialEq, Eq)]
enum Identity {
    Node(u64, u64),
    Path(PathBuf),
}

impl Seen {
    /// What `path` leads to, if it is a folder or file not taken yet (then it is taken); `None`
    /// if it was taken. A path that cannot be looked at is taken as it is, as a file.
    fn first_time(&mut self, path: &Path) -> Option<Node> {
        let metadata = std::fs::metadata(path).ok();
        let is_dir = metadata.as_ref().is_some_and(std::fs::Metadata::is_dir);
        #[cfg(unix)]
        if let Some(metadata) = &metadata {
            use std::os::unix::fs::MetadataExt as _;
            let identity = self.take(Identity::Node(metadata.dev(), metadata.ino()))?;
            return Some(Node { is_dir, device: Some(metadata.dev()), identity });
        }
        let identity = self.take(Identity::Path(std::fs::canonicalize(path).unwrap_or_else(|_| path.to_owned())))?;
        Some(Node { is_dir, device: None, identity })
    }

    /// [`Seen::first_time`] for a plain file (no link) listed in a folder on `device`: what it
    /// is, if it was not taken yet.
    fn first_time_listed(&mut self, device: Option<u64>, entry: &std::fs::DirEntry, path: &Path) -> Option<Identity> {
        #[cfg(unix)]
        if let Some(device) = device {
            use std::os::unix::fs::DirEntryExt as _;
            return self.take(Identity::Node(device, entry.ino()));
        }
        let _ = (device, entry);
        self.first_time(path).map(|node| node.identity)
    }

    /// Takes `identity` if it is not taken yet, and answers it then.
    fn take(&mut self, identity: Identity) -> Option<Identity> {
        self.taken.insert(identity.clone()).then_some(identity)
    }
}

/// A file's name relative to `base`, with `/` between its parts.
fn name_under(path: &Path, base: &Path) -> String {
    path.strip_prefix(base).unwrap_or(path).to_string_lossy().replace('\\', "/")
}

/// Redacts every session (and its active branch) with the default options, every finding
/// replaced, and prints what the link would weigh; or the links; or the Markdown.
fn share(corpus: &Corpus, graph: &Graph, link: bool, markdown: bool) -> ExitCode {
    if !link && !markdown {
        println!(
            "{:<38} {:<7} {:>6} {:>9} {:>9} {:>9} {:>10} {:>8}",
            "session", "scope", "lines", "bytes", "redacted", "deflated", "link chars", "findings"
        );
    }
    for (index, session) in graph.sessions.iter().enumerate() {
        let id = session.id.as_str();
        let session = SessionId::new(index);
        let scopes = [("session", Scope::Session(session)), ("branch", Scope::Branch { session, choices: Vec::new() })];
        for (name, scope) in scopes {
            if (link || markdown) && name == "branch" {
                continue;
            }
            let bundle = match share_scope(corpus, graph, &scope, &ShareOptions::default(), |_| false) {
                Ok(bundle) => bundle,
                Err(error) => {
                    eprintln!("sessionscope: {error}");
                    return ExitCode::from(1);
                }
            };
            if markdown {
                print!("{}", files_markdown(&bundle.files, &MarkdownOptions::default()));
                continue;
            }
            let payload = bundle.encode();
            let sealed = seal_plain(&payload);
            let fragment = format!("{SHARE_FRAGMENT}{}", to_base64url(&sealed));
            if link {
                println!("{id}\t{fragment}");
                continue;
            }
            let lines: u32 = bundle.header.files.iter().map(|f| f.lines).sum();
            let original = scope_bytes(corpus, graph, &scope);
            let findings: u32 = bundle.header.redaction.kinds.iter().map(|k| k.2).sum();
            let refused = if fragment.len() > MAX_LINK_CHARS { "  (too long: export HTML)" } else { "" };
            println!(
                "{id:<38} {name:<7} {lines:>6} {original:>9} {:>9} {:>9} {:>10} {findings:>8}{refused}",
                payload.len(),
                sealed.len(),
                fragment.len()
            );
        }
    }
    ExitCode::SUCCESS
}

/// The bytes of the lines a scope covers, before redaction.
fn scope_bytes(corpus: &Corpus, graph: &Graph, scope: &Scope) -> u64 {
    let lines = resolve(corpus, graph, scope, false);
    lines.files.iter().flat_map(|f| &f.lines).map(|l| (l.end - l.start) as u64).sum()
}

fn print_table(summary: &Summary) {
    println!(
        "{} files, {} lines: {} entries, {} metadata lines, {} diagnostics",
        summary.files,
        summary.lines,
        summary.entries,
        summary.metadata_lines,
        summary.diagnostics.len()
    );
    let mut formats: Vec<(&str, usize)> = Vec::new();
    for file in &summary.per_file {
        match formats.iter_mut().find(|(f, _)| *f == file.format) {
            Some((_, n)) => *n += 1,
            None => formats.push((file.format, 1)),
        }
    }
    let formats: Vec<String> = formats.iter().map(|(f, n)| format!("{f} {n}")).collect();
    println!("read as: {}", formats.join(", "));
    for d in summary.diagnostics.iter().take(20) {
        println!("  {}:{} {}: {}", d.file, d.line, d.kind, d.message);
    }
    if summary.diagnostics.len() > 20 {
        println!("  … {} more (use --json)", summary.diagnostics.len() - 20);
    }
    println!();
    println!(
        "{:<38} {:>7} {:>5} {:>6} {:>9} {:>11} {:>12} {:>12} {:>10}  title",
        "session", "entries", "roots", "agents", "forks r/a", "tools u/r/-", "in+out", "cache r+w", "cost $"
    );
    for s in &summary.sessions {
        let u = &s.usage_with_agents;
        println!(
            "{:<38} {:>7} {:>5} {:>6} {:>9} {:>11} {:>12} {:>12} {:>10.4}  {}",
            s.session_id,
            s.entries,
            s.roots,
            s.agents.len(),
            format!("{}/{}", s.real_forks, s.artifact_forks),
            format!("{}/{}/{}", s.tool_uses, s.tool_results, s.unpaired_tool_uses),
            u.input_tokens.saturating_add(u.output_tokens),
            u.cache_read_input_tokens.saturating_add(u.cache_creation_input_tokens),
            s.cost_with_agents_usd,
            s.title.chars().take(60).collect::<String>()
        );
        for a in &s.agents {
            println!(
                "  └ {:<20} {:<16} {:<22} depth {} {:>5} entries",
                a.agent_id,
                if a.agent_type.is_empty() { a.kind } else { &a.agent_type },
                a.linked_by.unwrap_or("unlinked"),
                a.depth,
                a.entries
            );
        }
    }
    if !summary.per_model.is_empty() {
        println!();
        println!(
            "{:<38} {:>9} {:>12} {:>12} {:>12} {:>12} {:>10}",
            "model", "responses", "input", "output", "cache write", "cache read", "cost $"
        );
        for m in &summary.per_model {
            let u = &m.usage;
            let cost = m.cost_usd.map_or_else(|| "no price".to_owned(), |c| format!("{c:.4}"));
            println!(
                "{:<38} {:>9} {:>12} {:>12} {:>12} {:>12} {:>10}",
                m.model,
                m.responses,
                u.input_tokens,
                u.output_tokens,
                u.cache_creation_input_tokens,
                u.cache_read_input_tokens,
                cost
            );
        }
    }
    if !summary.per_tool.is_empty() {
        println!();
        println!(
            "{:<38} {:>7} {:>7} {:>8} {:>11} {:>12}",
            "tool", "calls", "errors", "error %", "interrupted", "average ms"
        );
        for t in &summary.per_tool {
            let rate = if t.calls > 0 { t.errors as f64 * 100.0 / t.calls as f64 } else { 0.0 };
            let average = t.average_ms.map_or_else(|| "-".to_owned(), |ms| ms.to_string());
            println!(
                "{:<38} {:>7} {:>7} {:>8} {:>11} {:>12}",
                t.tool,
                t.calls,
                t.errors,
                format!("{rate:.1}"),
                t.interrupted,
                average
            );
        }
    }
    if !summary.unlinked_agents.is_empty() {
        println!("\nunlinked agents:");
        for a in &summary.unlinked_agents {
            println!("  {} ({})", a.agent_id, a.file);
        }
    }
    if !summary.validation.is_empty() {
        println!("\n{} validation findings:", summary.validation.len());
        let mut rules: Vec<(&str, usize)> = Vec::new();
        for v in &summary.validation {
            match rules.iter_mut().find(|(r, _)| *r == v.rule) {
                Some((_, n)) => *n += 1,
                None => rules.push((v.rule, 1)),
            }
        }
        for (rule, n) in rules {
            println!("  {rule}: {n}");
        }
    }
}
