//! Synthetic Claude Code session logs for benchmarks and tests.
//!
//! [`generate`] produces a project folder the way Claude Code 2.1.3x writes it under
//! `~/.claude/projects/<encoded-cwd>/`: the main `<sessionId>.jsonl` transcript of
//! roughly the requested size, subagent transcripts under
//! `<sessionId>/subagents/` with their `.meta.json` files, and compaction agents.
//! Output is deterministic for a given seed; all text is invented.
//!
//! The mix follows real 2.1.3x files: `progress` lines are over half of all lines,
//! assistant responses are split into one line per content block, tool results
//! carry tool-specific `toolUseResult` details, and the file holds compactions, a
//! rewind, an interrupted tool call, tool errors, parallel tool calls and parallel
//! subagent spawns. With `broken` set, defects listed in
//! [`SynthSession::planted`] are added for parser tests.

mod agents;
mod broken;
mod generator;
mod ids;
mod json;
mod rng;
mod session;
mod text;
mod tools;

use std::io;
use std::path::Path;

pub use broken::kinds;

/// What to generate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SynthOptions {
    /// Approximate size of the main transcript in bytes (the result is within a few percent).
    pub target_bytes: u64,
    /// Seed of the pseudo-random generator; the same options give the same bytes.
    pub seed: u64,
    /// Spawn subagents (with their own files) and write compaction agent files.
    pub agents: bool,
    /// Plant malformed lines; see [`SynthSession::planted`].
    pub broken: bool,
}

impl Default for SynthOptions {
    fn default() -> Self {
        SynthOptions { target_bytes: 1 << 20, seed: 42, agents: true, broken: false }
    }
}

/// Less common settings, kept apart so that [`SynthOptions`] stays small and stable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SynthExtras {
    /// How many subagents to spawn; `None` picks a number from the size
    /// (about one per 3 MB, at least 2). Ignored when `agents` is off.
    pub agent_count: Option<usize>,
    /// The last component of the invented working directory `/home/dev/projects/<name>`.
    pub project_name: String,
    /// A word the first prompt ends with, to find this session among many (a rare word for a
    /// whole-history search).
    pub marker: Option<String>,
}

impl Default for SynthExtras {
    fn default() -> Self {
        SynthExtras { agent_count: None, project_name: "harbor-ledger".to_string(), marker: None }
    }
}

/// A generated project folder, held in memory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SynthSession {
    pub session_id: String,
    /// The main transcript, `<session_id>.jsonl`.
    pub main: Vec<u8>,
    /// Agent transcripts as (path relative to the project folder, bytes), e.g.
    /// `<session_id>/subagents/agent-a1b2c3d.jsonl`.
    pub agents: Vec<(String, Vec<u8>)>,
    /// Agent metadata files `<session_id>/subagents/agent-<id>.meta.json`.
    pub metas: Vec<(String, Vec<u8>)>,
    /// Defects planted in the main file as (1-based line number, kind from [`kinds`]),
    /// sorted by line. Empty unless `broken` was set.
    pub planted: Vec<(u32, &'static str)>,
    /// Rewinds as (uuid of the earlier prompt, uuid of the edited sibling prompt).
    pub rewinds: Vec<(String, String)>,
    /// Uuids of the `compact_boundary` entries, in file order.
    pub compactions: Vec<String>,
    /// 1-based line numbers of main-file lines holding a lone UTF-16 surrogate
    /// escape (`\ud83d`). These lines are valid for Claude Code but strict JSON
    /// parsers such as serde_json reject them.
    pub lone_surrogate_lines: Vec<u32>,
    /// Number of main-file lines per top-level `type`, planted defects excluded.
    pub line_counts: Vec<(&'static str, u64)>,
}

impl SynthSession {
    /// The file name of the main transcript.
    pub fn main_file_name(&self) -> String {
        format!("{}.jsonl", self.session_id)
    }

    /// A one-line description: files, bytes and lines per type.
    pub fn summary(&self) -> String {
        let agent_bytes: usize = self.agents.iter().map(|(_, bytes)| bytes.len()).sum();
        let lines: u64 = self.line_counts.iter().map(|(_, count)| count).sum();
        let mix: Vec<String> = self.line_counts.iter().map(|(kind, count)| format!("{kind}={count}")).collect();
        format!(
            "{} files, main {} bytes / {} lines, {} agent files {} bytes, {} planted defects; lines: {}",
            1 + self.agents.len() + self.metas.len(),
            self.main.len(),
            lines,
            self.agents.len(),
            agent_bytes,
            self.planted.len(),
            mix.join(" ")
        )
    }
}

/// Generates a session with default [`SynthExtras`].
pub fn generate(opts: &SynthOptions) -> SynthSession {
    generate_with(opts, &SynthExtras::default())
}

/// Generates a session.
pub fn generate_with(opts: &SynthOptions, extras: &SynthExtras) -> SynthSession {
    let agent_count = if opts.agents {
        extras.agent_count.unwrap_or_else(|| (opts.target_bytes / (3 << 20)).clamp(2, 40) as usize)
    } else {
        0
    };
    let plan = generator::Plan {
        target_bytes: opts.target_bytes,
        seed: opts.seed,
        agent_count,
        project_name: extras.project_name.clone(),
        marker: extras.marker.clone(),
    };
    let generated = generator::Generator::new(&plan).run();
    let line_counts = generated.main.counts.iter().map(|(kind, count)| (*kind, *count)).collect();
    let (main, planted, lone_surrogate_lines) = if opts.broken {
        let mut rng = rng::Rng::new(opts.seed ^ 0xB20C_E17E);
        let damaged = broken::plant(&generated.main, &mut rng);
        let lone = generated.lone_surrogate_lines.iter().map(|&index| damaged.new_line_numbers[index]).collect();
        (damaged.bytes, damaged.planted, lone)
    } else {
        let lone = generated.lone_surrogate_lines.iter().map(|&index| index as u32 + 1).collect();
        (generated.main.out, Vec::new(), lone)
    };
    SynthSession {
        session_id: generated.session_id,
        main,
        agents: generated.agents,
        metas: generated.metas,
        planted,
        rewinds: generated.rewinds.iter().map(|(earlier, edited)| (earlier.to_string(), edited.to_string())).collect(),
        compactions: generated.compactions.iter().map(ToString::to_string).collect(),
        lone_surrogate_lines,
        line_counts,
    }
}

/// Writes the session into `dir`, which plays the role of
/// `~/.claude/projects/<encoded-cwd>/`; directories are created as needed.
pub fn write_to_dir(session: &SynthSession, dir: &Path) -> io::Result<()> {
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join(session.main_file_name()), &session.main)?;
    for (relative, bytes) in session.agents.iter().chain(&session.metas) {
        let path = dir.join(relative);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(path, bytes)?;
    }
    Ok(())
}

/// Parses sizes like `512`, `300KB`, `10MB` or `1GB` (binary multiples, case-insensitive).
pub fn parse_size(text: &str) -> Option<u64> {
    let text = text.trim();
    let upper = text.to_ascii_uppercase();
    let (number, multiplier) = [("GB", 1u64 << 30), ("MB", 1 << 20), ("KB", 1 << 10), ("B", 1)]
        .iter()
        .find_map(|(suffix, multiplier)| {
            upper.strip_suffix(suffix).map(|number| (number.trim().to_string(), *multiplier))
        })
        .unwrap_or((upper.clone(), 1));
    let value: f64 = number.parse().ok()?;
    if !value.is_finite() || value < 0.0 {
        return None;
    }
    Some((value * multiplier as f64) as u64)
}

/// One session of a generated history: its project and what to generate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistorySession {
    pub project_name: String,
    pub options: SynthOptions,
    /// The rare word its first prompt ends with, if any: one session in [`MARKED_EVERY`].
    pub marker: Option<String>,
}

/// One session of a planned history in this many names [`HISTORY_MARKER`] in its first prompt.
pub const MARKED_EVERY: usize = 64;

/// The rare word of a planned history: in a few sessions only.
pub const HISTORY_MARKER: &str = "zanzibar";

/// What a planned history looks like.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Shape {
    /// Many small sessions (median about 1 MB), one of about 120 MB from 1 GB on: the
    /// benchmark's history (`docs/history-index.md`).
    #[default]
    Everyday,
    /// Fewer, larger sessions with a long tail, as issue 40's history: a few of 50–200 MB
    /// (200, 150, 100, 80 and 60 MB from 1 GB on, scaled down below), the others log-normal
    /// around 2.5 MB, each with its subagent files.
    BigFiles,
}

impl Shape {
    /// The shape named on a command line: `everyday` or `big-files`.
    pub fn parse(name: &str) -> Option<Shape> {
        match name {
            "everyday" => Some(Shape::Everyday),
            "big-files" => Some(Shape::BigFiles),
            _ => None,
        }
    }
}

/// Plans a whole history of about `total_bytes` over `projects` projects, like a user's
/// `~/.claude/projects` after months of use: session sizes are log-normal (median about 1 MB,
/// a long tail), and a history of 1 GB or more holds one session of about 120 MB. Every
/// session has its own seed, so its ids and start time differ.
pub fn plan_history(total_bytes: u64, projects: usize, seed: u64) -> Vec<HistorySession> {
    plan_history_shaped(total_bytes, projects, seed, Shape::Everyday)
}

/// Plans a history of the given [`Shape`] (see [`plan_history`] for the everyday one).
pub fn plan_history_shaped(total_bytes: u64, projects: usize, seed: u64, shape: Shape) -> Vec<HistorySession> {
    let (median, sigma, most) = match shape {
        Shape::Everyday => (1_000_000.0, 1.4, 80_000_000.0),
        Shape::BigFiles => (2_500_000.0, 1.1, 40_000_000.0),
    };
    let mut rng = rng::Rng::new(seed ^ 0x4857_5354);
    let projects = projects.max(1);
    let names: Vec<String> = (0..projects).map(|i| format!("{}-{i:02}", text::project_word(i))).collect();
    let mut plan = Vec::new();
    let mut planned = 0u64;
    let big: Vec<u64> = match shape {
        Shape::Everyday if total_bytes >= 1 << 30 => vec![120 << 20],
        Shape::Everyday => Vec::new(),
        // The tail scales with the history below 4 GB, so a small one has it too.
        Shape::BigFiles => {
            let scale = (total_bytes as f64 / 4e9).min(1.0);
            [200u64, 150, 100, 80, 60]
                .iter()
                .map(|mb| ((mb << 20) as f64 * scale) as u64)
                .filter(|&b| b >= 1 << 20)
                .collect()
        }
    };
    for (i, bytes) in big.into_iter().enumerate() {
        if planned + bytes > total_bytes {
            break;
        }
        plan.push(HistorySession {
            project_name: names[i % projects].clone(),
            options: SynthOptions {
                target_bytes: bytes,
                seed: seed.wrapping_mul(1_000_003).wrapping_sub(i as u64),
                ..SynthOptions::default()
            },
            marker: None,
        });
        planned += bytes;
    }
    while planned < total_bytes {
        // A standard normal deviate by Box-Muller.
        let (u, v) = (rng.unit().max(1e-12), rng.unit());
        let normal = (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos();
        let size = (median * (sigma * normal).exp()).clamp(20_000.0, most) as u64;
        let size = size.min(total_bytes - planned).max(20_000);
        let project = names[rng.index(projects)].clone();
        let session_seed = seed.wrapping_mul(1_000_003).wrapping_add(plan.len() as u64 + 1);
        plan.push(HistorySession {
            project_name: project,
            options: SynthOptions { target_bytes: size, seed: session_seed, ..SynthOptions::default() },
            marker: (plan.len() % MARKED_EVERY == 7).then(|| HISTORY_MARKER.to_owned()),
        });
        planned += size;
    }
    plan
}
