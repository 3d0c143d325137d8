//! `sessionscope`: the engine on the command line.
//!
//!   sessionscope summary <file-or-folder>... [--json]
//!   sessionscope dump <file-or-folder>...        the parsed model and its structure, as text

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use sessionscope_engine::dag::Graph;
use sessionscope_engine::summary::{Summary, summarize};
use sessionscope_engine::{Loader, dump};

const USAGE: &str =
    "usage: sessionscope summary <file-or-folder>... [--json]\n       sessionscope dump <file-or-folder>...";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(command) = args.first() else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    let json = args.iter().any(|a| a == "--json");
    let paths: Vec<&String> = args[1..].iter().filter(|a| !a.starts_with("--")).collect();
    if paths.is_empty() || !matches!(command.as_str(), "summary" | "dump") {
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

fn print_table(summary: &Summary) {
    println!(
        "{} files, {} lines: {} entries, {} metadata lines, {} diagnostics",
        summary.files,
        summary.lines,
        summary.entries,
        summary.metadata_lines,
        summary.diagnostics.len()
    );
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
