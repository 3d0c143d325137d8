//! `gen-history`: writes a synthetic `~/.claude/projects` of many projects and sessions.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use sessionscope_synth::{Shape, SynthExtras, generate_with, parse_size, plan_history_shaped, write_to_dir};

const USAGE: &str =
    "usage: gen-history --out <dir> --size <N>[MB|GB] [--projects P] [--seed S] [--shape everyday|big-files]

Writes <dir>/projects/-home-dev-projects-<name>/<sessionId>.jsonl with subagent folders, for P
projects (default 30), about N bytes in all. Same seed, same bytes.
  --shape everyday   (default) log-normal session sizes (median about 1 MB), and from 1 GB on
                     one session of about 120 MB
  --shape big-files  fewer, larger sessions (median about 2.5 MB) and a long tail: from 4 GB on
                     sessions of 200, 150, 100, 80 and 60 MB (scaled down with a smaller N)";

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let (mut out, mut size, mut projects, mut seed, mut shape) = (None, None, 30usize, 42u64, Shape::Everyday);
    while let Some(flag) = args.next() {
        let value = args.next();
        let parsed = match (flag.as_str(), value) {
            ("--out", Some(v)) => {
                out = Some(PathBuf::from(v));
                true
            }
            ("--size", Some(v)) => {
                size = parse_size(&v);
                size.is_some()
            }
            ("--projects", Some(v)) => v.parse().map(|p| projects = p).is_ok(),
            ("--seed", Some(v)) => v.parse().map(|s| seed = s).is_ok(),
            ("--shape", Some(v)) => Shape::parse(&v).map(|s| shape = s).is_some(),
            _ => false,
        };
        if !parsed {
            eprintln!("gen-history: cannot read {flag}\n{USAGE}");
            return ExitCode::from(2);
        }
    }
    let (Some(out), Some(size)) = (out, size) else {
        eprintln!("gen-history: --out and --size are required\n{USAGE}");
        return ExitCode::from(2);
    };
    let started = Instant::now();
    let plan = plan_history_shaped(size, projects, seed, shape);
    let next = AtomicUsize::new(0);
    let written = Mutex::new((0usize, 0u64));
    let failed = Mutex::new(None);
    let threads = std::thread::available_parallelism().map_or(2, usize::from);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                while let Some(planned) = plan.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let extras = SynthExtras {
                        project_name: planned.project_name.clone(),
                        marker: planned.marker.clone(),
                        ..SynthExtras::default()
                    };
                    let session = generate_with(&planned.options, &extras);
                    let dir = out.join("projects").join(format!("-home-dev-projects-{}", planned.project_name));
                    if let Err(error) = write_to_dir(&session, &dir) {
                        *failed.lock().unwrap_or_else(|e| e.into_inner()) = Some(format!("{}: {error}", dir.display()));
                        return;
                    }
                    let bytes = session.main.len()
                        + session.agents.iter().chain(&session.metas).map(|(_, b)| b.len()).sum::<usize>();
                    let mut written = written.lock().unwrap_or_else(|e| e.into_inner());
                    written.0 += 1 + session.agents.len() + session.metas.len();
                    written.1 += bytes as u64;
                }
            });
        }
    });
    if let Some(error) = failed.into_inner().unwrap_or_else(|e| e.into_inner()) {
        eprintln!("gen-history: cannot write {error}");
        return ExitCode::FAILURE;
    }
    let (files, bytes) = written.into_inner().unwrap_or_else(|e| e.into_inner());
    eprintln!(
        "{}: {} projects, {} sessions, {files} files, {bytes} bytes (in {:.1} s)",
        out.join("projects").display(),
        projects.min(plan.len()),
        plan.len(),
        started.elapsed().as_secs_f64()
    );
    ExitCode::SUCCESS
}
