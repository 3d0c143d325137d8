//! `sessionscope`: the engine on the command line.
//!
//!   sessionscope summary <file-or-folder>... [--json]
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
//!   sessionscope --help
//!
//! `summary` prints the files, sessions and agents, then tokens and cost per model and calls
//! per tool (`--json`: all of it, as the app's Statistics view computes it). `index
//! --marks=<file>` reads a marks file ([`sessionscope_engine::marks`]): each marked session's row
//! gets a `marks` field in `--json`, and in the table a starred session's line starts with `★`
//! and its tags follow the title as `#tag`; a marks file that cannot be read is an error with
//! exit status 2. A flag the command does not take is an error: the usage goes to stderr and the
//! exit status is 2. Paths that start with `-` go after `--`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

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

mod database;
mod index;
mod insights;

const USAGE: &str = "usage: sessionscope summary <file-or-folder>... [--json]
       sessionscope index <folder>... [--json] [--marks=<file>]
       sessionscope files <folder>... [--json] [--file=<path>] [--project=<project>]
       sessionscope failures <folder>... [--json]
       sessionscope activity <folder>... [--json] [--utc-offset=±HH:MM]
       sessionscope resume <session-id> <folder>...
       sessionscope dump <file-or-folder>...
       sessionscope records <database>...
       sessionscope share <file-or-folder>... [--link] [--markdown]
       sessionscope --help";

/// The flags each command takes, or `None` for a command that does not exist.
fn flags_of(command: &str) -> Option<&'static [&'static str]> {
    match command {
        "summary" => Some(&["--json"]),
        "index" => Some(&["--json", "--marks"]),
        "files" => Some(&["--json", "--file", "--project"]),
        "failures" => Some(&["--json"]),
        "activity" => Some(&["--json", "--utc-offset"]),
        "resume" => Some(&[]),
        "dump" => Some(&[]),
        "records" => Some(&[]),
        "share" => Some(&["--link", "--markdown"]),
        _ => None,
    }
}

/// A command line that can run: the command, its paths and its flags.
struct Arguments {
    command: String,
    paths: Vec<String>,
    flags: Vec<String>,
}

impl Arguments {
    fn has(&self, flag: &str) -> bool {
        self.flags.iter().any(|f| f == flag)
    }

    /// Whether the flag is given, with a value or without.
    fn has_any(&self, flag: &str) -> bool {
        self.flags.iter().any(|f| f == flag || f.strip_prefix(flag).is_some_and(|rest| rest.starts_with('=')))
    }

    /// The value of a flag given as `--flag=value`.
    fn value(&self, flag: &str) -> Option<&str> {
        self.flags.iter().find_map(|f| f.strip_prefix(flag)?.strip_prefix('='))
    }
}

/// What the command line asks for.
enum Request {
    Help,
    Run(Arguments),
    /// A command line that cannot run, and why.
    Wrong(String),
}

/// Reads the command line: a command, then paths and the command's flags in any order. An
/// argument starting with `-` is a flag, unless it comes after `--`.
fn parse(args: &[String]) -> Request {
    let flags_end = args.iter().position(|a| a == "--").unwrap_or(args.len());
    if args[..flags_end].iter().any(|a| a == "--help" || a == "-h") {
        return Request::Help;
    }
    let Some(command) = args.first() else { return Request::Wrong("no command given".to_owned()) };
    let Some(known) = flags_of(command) else { return Request::Wrong(format!("unknown command `{command}`")) };
    let mut arguments = Arguments { command: command.clone(), paths: Vec::new(), flags: Vec::new() };
    let mut paths_only = false;
    for arg in &args[1..] {
        if paths_only {
            arguments.paths.push(arg.clone());
        } else if arg == "--" {
            paths_only = true;
        } else if arg.len() > 1 && arg.starts_with('-') {
            let name = arg.split('=').next().unwrap_or(arg);
            if !known.contains(&name) {
                return Request::Wrong(format!("`{command}` has no flag `{arg}`"));
            }
            arguments.flags.push(arg.clone());
        } else {
            arguments.paths.push(arg.clone());
        }
    }
    if arguments.paths.is_empty() {
        return Request::Wrong(format!("`{command}` needs a file or folder"));
    }
    Request::Run(arguments)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut arguments = match parse(&args) {
        Request::Run(arguments) => arguments,
        Request::Help => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Request::Wrong(why) => {
            eprintln!("sessionscope: {why}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    // `resume` takes a session's id before its folders.
    let resume_id = (arguments.command == "resume").then(|| arguments.paths.remove(0));
    if resume_id.is_some() && arguments.paths.is_empty() {
        eprintln!("sessionscope: `resume` needs a session's id and a folder\n{USAGE}");
        return ExitCode::from(2);
    }
    // The marks are read first: a file that is not marks stops the command before any work.
    let marks = if arguments.command == "index" && arguments.has_any("--marks") {
        match read_marks(&arguments) {
            Ok(marks) => Some(marks),
            Err(why) => {
                eprintln!("sessionscope: {why}");
                return ExitCode::from(2);
            }
        }
    } else {
        None
    };
    let file_base = file_base(&arguments.paths);
    let mut files = Vec::new();
    for path in &arguments.paths {
        let path = Path::new(path);
        if !path.exists() {
            eprintln!("sessionscope: {}: no such file or folder", path.display());
            return ExitCode::from(1);
        }
        let base = if path.is_file() { file_base.as_deref() } else { None };
        collect(path, base.unwrap_or_else(|| path.parent().unwrap_or(Path::new(""))), &mut files);
    }
    // Path order, so the result does not depend on the order the file system lists files in.
    files.sort_by(|a, b| a.1.cmp(&b.1));
    if arguments.command == "index" {
        return index::run(files, arguments.has("--json"), marks.as_ref());
    }
    if let Some(id) = resume_id {
        return index::resume(files, &id);
    }
    if matches!(arguments.command.as_str(), "files" | "failures" | "activity") {
        let offset = arguments.value("--utc-offset").map(insights::parse_offset);
        if offset == Some(None) {
            eprintln!("sessionscope: --utc-offset takes ±HH:MM, such as --utc-offset=+05:30\n{USAGE}");
            return ExitCode::from(2);
        }
        let asked = insights::Asked {
            json: arguments.has("--json"),
            file: arguments.value("--file"),
            project: arguments.value("--project"),
            utc_offset_minutes: offset.flatten().unwrap_or(0),
        };
        return insights::run(&arguments.command, files, &asked);
    }
    if arguments.command == "records" {
        return records(&files);
    }
    let mut loader = Loader::new();
    for (file, name) in &files {
        match read_source(file, name) {
            Ok(bytes) => {
                loader.add_vec(name, bytes);
            }
            Err(why) => eprintln!("sessionscope: {name}: {why}"),
        }
    }
    let corpus = loader.finish();
    let graph = Graph::build(&corpus);
    match arguments.command.as_str() {
        "share" => return share(&corpus, &graph, arguments.has("--link"), arguments.has("--markdown")),
        "dump" => {
            print!("{}", dump::dump_corpus(&corpus));
            print!("{}", dump::dump_graph(&corpus, &graph));
        }
        _ => {
            let summary = summarize(&corpus, &graph);
            if arguments.has("--json") {
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
        }
    }
    ExitCode::SUCCESS
}

/// The marks file `--marks=<file>` names, or why it cannot be used (one line, without the
/// `sessionscope: ` it is printed after).
fn read_marks(arguments: &Arguments) -> Result<Marks, String> {
    let path = match arguments.value("--marks") {
        Some(path) if !path.is_empty() => path,
        _ => return Err(format!("--marks takes a file, such as --marks=marks.json\n{USAGE}")),
    };
    let text = std::fs::read_to_string(path).map_err(|error| format!("{path}: could not be read: {error}"))?;
    Marks::from_json(&text).map_err(|error| format!("{path}: {error}"))
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
    if !sessionscope_engine::import::names::is_database_name(name) {
        return std::fs::read(path).map_err(|error| format!("could not be read: {error}"));
    }
    let stream = database::record_stream(path)?;
    for note in &stream.notes {
        eprintln!("sessionscope: {name}: {note}");
    }
    Ok(stream.bytes)
}

/// What the files given one by one are named from. One file alone is named by its name, except a
/// task's file (Cline, Roo Code), whose folder is the task's id. Several files keep the layout
/// they have together, as if the folder that holds them all was given: a transcript and the
/// files of its `subagents/` folder, or a task's three files, read as they do from their folder.
fn file_base(paths: &[String]) -> Option<PathBuf> {
    let files: Vec<PathBuf> = paths
        .iter()
        .map(Path::new)
        .filter(|p| p.is_file())
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

/// Files under `path`, with names relative to `base` (so `subagents/` folders stay visible).
fn collect(path: &Path, base: &Path, out: &mut Vec<(PathBuf, String)>) {
    if path.is_dir() {
        if let Ok(read) = std::fs::read_dir(path) {
            for entry in read.flatten() {
                collect(&entry.path(), base, out);
            }
        }
    } else {
        let name = path.strip_prefix(base).unwrap_or(path).to_string_lossy().replace('\\', "/");
        out.push((path.to_owned(), name));
    }
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
