//! `gen-session`: writes a synthetic Claude Code project folder.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use sessionscope_synth::{SynthExtras, SynthOptions, generate_with, parse_size, write_to_dir};

const USAGE: &str =
    "usage: gen-session --out <dir> --size <N>[KB|MB|GB] [--seed S] [--agents N] [--broken] [--project-name NAME]

Writes <dir>/<sessionId>.jsonl (about N bytes) plus <dir>/<sessionId>/subagents/agent-*.jsonl
and agent-*.meta.json, like a real ~/.claude/projects/<encoded-cwd>/ folder.
  --seed S            pseudo-random seed (default 42); same seed, same bytes
  --agents N          number of subagents to spawn (default: about one per 3 MB); 0 disables agents
  --broken            plant malformed lines (invalid JSON, BOM, CRLF, truncated last line, ...)
  --project-name NAME working directory /home/dev/projects/NAME (default harbor-ledger)";

struct Args {
    out: PathBuf,
    options: SynthOptions,
    extras: SynthExtras,
}

fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Args, String> {
    let mut out = None;
    let mut options = SynthOptions::default();
    let mut extras = SynthExtras::default();
    let mut size_given = false;
    while let Some(flag) = args.next() {
        let mut value = |name: &str| args.next().ok_or_else(|| format!("{name} needs a value"));
        match flag.as_str() {
            "--out" => out = Some(PathBuf::from(value("--out")?)),
            "--size" => {
                let text = value("--size")?;
                options.target_bytes = parse_size(&text).ok_or_else(|| format!("cannot read size {text:?}"))?;
                size_given = true;
            }
            "--seed" => {
                let text = value("--seed")?;
                options.seed = text.parse().map_err(|_| format!("cannot read seed {text:?}"))?;
            }
            "--agents" => {
                let text = value("--agents")?;
                let count: usize = text.parse().map_err(|_| format!("cannot read agent count {text:?}"))?;
                options.agents = count > 0;
                extras.agent_count = Some(count);
            }
            "--broken" => options.broken = true,
            "--project-name" => extras.project_name = value("--project-name")?,
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    let out = out.ok_or("--out is required")?;
    if !size_given {
        return Err("--size is required".to_string());
    }
    Ok(Args { out, options, extras })
}

fn main() -> ExitCode {
    let args = match parse_args(std::env::args().skip(1)) {
        Ok(args) => args,
        Err(message) => {
            if !message.is_empty() {
                eprintln!("gen-session: {message}");
            }
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    let started = Instant::now();
    let session = generate_with(&args.options, &args.extras);
    let generated_in = started.elapsed();
    if let Err(error) = write_to_dir(&session, &args.out) {
        eprintln!("gen-session: cannot write {}: {error}", args.out.display());
        return ExitCode::FAILURE;
    }
    eprintln!(
        "{}: {} (generated in {:.2}s)",
        args.out.join(session.main_file_name()).display(),
        session.summary(),
        generated_in.as_secs_f64()
    );
    ExitCode::SUCCESS
}
