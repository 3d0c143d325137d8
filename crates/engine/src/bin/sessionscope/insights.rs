//! `sessionscope files`, `failures` and `activity`: what a whole history knows beyond its rows,
//! from the same engine code as the history home (`sessionscope_engine::insights`). The
//! history is read as `index` reads it, each unit's insights made from the model its index
//! builds.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use serde::Serialize;
use sessionscope_engine::insights::UnitInsights;
use sessionscope_engine::insights::report::{self, UnitRef};

use crate::index::{History, iso_minute, read_history};

/// What a command was asked for.
pub struct Asked<'a> {
    pub json: bool,
    /// `files --file <path>`: that file's changes (with `--project <project>` where several
    /// projects have such a file).
    pub file: Option<&'a str>,
    pub project: Option<&'a str>,
    /// `activity --utc-offset ±HH:MM`: the time the calendar is drawn in (UTC without it).
    pub utc_offset_minutes: i64,
}

/// Reads the history and runs `command` (`files`, `failures` or `activity`) on it.
pub fn run(command: &str, files: Vec<(PathBuf, String)>, asked: &Asked<'_>) -> ExitCode {
    let History { units, .. } = read_history(files, true);
    let kept: Vec<UnitInsights> = units.into_iter().map(|(_, insights)| insights.unwrap_or_default()).collect();
    let units: Vec<UnitRef<'_>> =
        kept.iter().enumerate().map(|(unit, insights)| UnitRef { unit: unit as u32, insights }).collect();
    let mut out = String::new();
    let code = answer(command, &units, asked, &mut out);
    // A reader that stops early (`| head`) closes the pipe: that is not an error worth a word.
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(out.as_bytes()).and_then(|()| stdout.flush()) {
        Err(error) if error.kind() != std::io::ErrorKind::BrokenPipe => {
            eprintln!("sessionscope: {error}");
            ExitCode::from(1)
        }
        _ => code,
    }
}

/// Writes the answer to `command` into `out`.
fn answer(command: &str, units: &[UnitRef<'_>], asked: &Asked<'_>, out: &mut String) -> ExitCode {
    match command {
        "files" => files_command(units, asked, out),
        "failures" => {
            let failures = report::failures(units);
            if asked.json {
                return print_json(out, &failures);
            }
            let _ = writeln!(
                out,
                "{} tool calls, {} failed ({:.1}%); {} interrupted, {} API errors",
                failures.calls,
                failures.tool_failures,
                percent(failures.tool_failures, failures.calls),
                failures.interrupted,
                failures.api_errors
            );
            for (title, rates) in [
                ("tool", &failures.by_tool),
                ("project", &failures.by_project),
                ("model", &failures.by_model),
                ("agent", &failures.by_agent),
            ] {
                let _ = writeln!(out, "\nby {title}:");
                for rate in rates.iter().filter(|r| r.failed > 0).take(15) {
                    let _ = writeln!(
                        out,
                        "  {:>6} of {:>7} ({:>5.1}%)  {}",
                        rate.failed,
                        rate.calls,
                        rate.share() * 100.0,
                        rate.name
                    );
                }
            }
            let _ = writeln!(out, "\nmost frequent:");
            for group in failures.groups.iter().take(30) {
                let last = group.last_ms.map_or_else(|| "no time".to_owned(), iso_minute);
                let _ = writeln!(out, "  {:>6} × [{}] {}  (last {last})", group.count, group.kind.name(), group.key);
            }
            ExitCode::SUCCESS
        }
        _ => {
            let offset = asked.utc_offset_minutes;
            let activity = report::activity(units, &|_| offset, crate::now_ms());
            if asked.json {
                return print_json(out, &activity);
            }
            if let Some(busiest) = &activity.busiest {
                let _ = writeln!(
                    out,
                    "busiest hour: {} {:02}:00 ({} messages)",
                    busiest.day, busiest.hour, busiest.messages
                );
            }
            let _ = writeln!(out, "\n5-hour blocks (UTC):");
            for block in activity.blocks.iter().filter(|b| !b.gap) {
                let _ = writeln!(
                    out,
                    "  {}  {:>5} responses {:>12} tokens  ${:>9.2}{}",
                    iso_minute(block.start_ms),
                    block.responses,
                    block.total_tokens(),
                    block.cost_usd,
                    match (block.active, block.burn_rate()) {
                        (true, Some(rate)) => format!(
                            "  (active: {:.0} tokens/min, ${:.2}/h)",
                            rate.tokens_per_minute, rate.cost_per_hour
                        ),
                        (true, None) => "  (active)".to_owned(),
                        _ => String::new(),
                    }
                );
            }
            ExitCode::SUCCESS
        }
    }
}

fn files_command(units: &[UnitRef<'_>], asked: &Asked<'_>, out: &mut String) -> ExitCode {
    if let Some(path) = asked.file {
        let projects: Vec<String> = {
            let mut projects: Vec<String> =
                report::files(units).into_iter().filter(|f| f.path == path).map(|f| f.project).collect();
            projects.dedup();
            projects
        };
        let project = match (asked.project, projects.as_slice()) {
            (Some(project), _) => project.to_owned(),
            (None, [one]) => one.clone(),
            (None, []) => {
                eprintln!("sessionscope: no session touched {path}");
                return ExitCode::from(1);
            }
            (None, many) => {
                eprintln!("sessionscope: {path} is in {} projects: say which with --project=<project>", many.len());
                for project in many {
                    eprintln!("  {project}");
                }
                return ExitCode::from(2);
            }
        };
        let changes = report::changes_of(units, &project, path);
        let versions = report::versions_of(units, &project, path);
        if asked.json {
            #[derive(Serialize)]
            struct FileStory<'a> {
                project: &'a str,
                path: &'a str,
                changes: Vec<report::ChangeRef>,
                versions: Vec<report::VersionRef>,
            }
            return print_json(out, &FileStory { project: &project, path, changes, versions });
        }
        for change in &changes {
            let when = change.place.time_ms.map(iso_minute).unwrap_or_default();
            let _ = writeln!(
                out,
                "{when:<16}  {:<7} +{:<4} -{:<4} {:<14} {}  {}",
                change.kind.name(),
                change.added,
                change.removed,
                change.tool,
                change.place.session_id,
                change.prompt
            );
        }
        if !versions.is_empty() {
            let _ = writeln!(out, "\nversions kept by Claude Code (file-history/<session>/<backup>):");
            for version in &versions {
                let when = version.place.time_ms.map(iso_minute).unwrap_or_default();
                let _ = writeln!(
                    out,
                    "{when:<16}  v{:<4} {}/{}",
                    version.version, version.place.session_id, version.backup
                );
            }
        }
        return ExitCode::SUCCESS;
    }
    let files = report::files(units);
    if asked.json {
        return print_json(out, &files);
    }
    let _ = writeln!(
        out,
        "{:<16} {:>8} {:>7} {:>6} {:>7} {:>7}  project / path",
        "last change", "sessions", "changes", "reads", "+", "-"
    );
    for file in &files {
        let last = file.last_ms.map(iso_minute).unwrap_or_default();
        let _ = writeln!(
            out,
            "{last:<16} {:>8} {:>7} {:>6} {:>7} {:>7}  {} / {}",
            file.sessions, file.changes, file.reads, file.added, file.removed, file.project, file.path
        );
    }
    ExitCode::SUCCESS
}

fn percent(part: u64, whole: u64) -> f64 {
    if whole == 0 { 0.0 } else { part as f64 * 100.0 / whole as f64 }
}

fn print_json(out: &mut String, value: &impl Serialize) -> ExitCode {
    match serde_json::to_string_pretty(value) {
        Ok(text) => {
            let _ = writeln!(out, "{text}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("sessionscope: {error}");
            ExitCode::from(1)
        }
    }
}

/// `±HH:MM` (or `±H`, `Z`) as minutes east of UTC.
pub fn parse_offset(text: &str) -> Option<i64> {
    if text.eq_ignore_ascii_case("z") || text.eq_ignore_ascii_case("utc") {
        return Some(0);
    }
    let (sign, rest) = match text.as_bytes().first()? {
        b'+' => (1, &text[1..]),
        b'-' => (-1, &text[1..]),
        _ => (1, text),
    };
    let (hours, minutes) = rest.split_once(':').unwrap_or((rest, "0"));
    let (hours, minutes): (i64, i64) = (hours.parse().ok()?, minutes.parse().ok()?);
    (hours <= 14 && minutes < 60).then_some(sign * (hours * 60 + minutes))
}
