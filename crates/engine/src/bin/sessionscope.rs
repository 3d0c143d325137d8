//! `sessionscope`: the engine on the command line.
//!
//!   sessionscope summary <file-or-folder>... [--json]
//!   sessionscope dump <file-or-folder>...        the parsed model and its structure, as text
//!   sessionscope share <file-or-folder>... [--link] [--markdown]
//!                                                redacts each session as the app's Share dialog
//!                                                does (every finding replaced) and prints the
//!                                                size of its link, or the link fragment, or the
//!                                                redacted Markdown

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use sessionscope_engine::dag::Graph;
use sessionscope_engine::model::Corpus;
use sessionscope_engine::share::SHARE_FRAGMENT;
use sessionscope_engine::share::envelope::{MAX_LINK_CHARS, seal_plain, to_base64url};
use sessionscope_engine::share::markdown::{MarkdownOptions, files_markdown};
use sessionscope_engine::share::redacted::{ShareOptions, share_scope};
use sessionscope_engine::share::scope::{Scope, resolve};
use sessionscope_engine::summary::{Summary, summarize};
use sessionscope_engine::{Loader, dump};

const USAGE: &str = "usage: sessionscope summary <file-or-folder>... [--json]
       sessionscope dump <file-or-folder>...
       sessionscope share <file-or-folder>... [--link] [--markdown]";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(command) = args.first() else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    let json = args.iter().any(|a| a == "--json");
    let paths: Vec<&String> = args[1..].iter().filter(|a| !a.starts_with("--")).collect();
    if paths.is_empty() || !matches!(command.as_str(), "summary" | "dump" | "share") {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    }
    let mut files = Vec::new();
    for path in &paths {
        let path = Path::new(path);
        if !path.exists() {
            eprintln!("sessionscope: {}: no such file or folder", path.display());
            return ExitCode::from(1);
        }
        collect(path, path.parent().unwrap_or(Path::new("")), &mut files);
    }
    // Path order, so the result does not depend on the order the file system lists files in.
    files.sort_by(|a, b| a.1.cmp(&b.1));
    let mut loader = Loader::new();
    for (file, name) in &files {
        match std::fs::read(file) {
            Ok(bytes) => {
                loader.add_bytes(name, &bytes);
            }
            Err(error) => eprintln!("sessionscope: {}: {error}", file.display()),
        }
    }
    let corpus = loader.finish();
    let graph = Graph::build(&corpus);
    match command.as_str() {
        "share" => {
            let link = args.iter().any(|a| a == "--link");
            let markdown = args.iter().any(|a| a == "--markdown");
            return share(&corpus, &graph, link, markdown);
        }
        "dump" => {
            print!("{}", dump::dump_corpus(&corpus));
            print!("{}", dump::dump_graph(&corpus, &graph));
        }
        _ => {
            let summary = summarize(&corpus, &graph);
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
        }
    }
    ExitCode::SUCCESS
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
    for session in 0..graph.sessions.len() as u32 {
        let id = graph.sessions[session as usize].id.as_str();
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
            u.input_tokens + u.output_tokens,
            u.cache_read_input_tokens + u.cache_creation_input_tokens,
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
