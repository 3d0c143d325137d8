//! The command line of `sessionscope` as clap reads it: the commands, their arguments and flags,
//! their help (a paragraph and examples each), and the parsers of the values that have a form
//! (`--utc-offset=±HH:MM`, `--since=YYYY-MM-DD`).

use std::fmt;
use std::path::PathBuf;

use clap::{Args, ColorChoice, Parser, Subcommand, ValueHint};
use clap_complete::Shell;

/// What every command's help ends with: the exit statuses.
const EXIT_STATUS: &str = "Exit status: 0 when the command ran, 1 when a file or folder could not be read or a \
                           session was not found, 2 when the command line is wrong (an unknown command or flag, a \
                           missing argument, a value of the wrong form, a marks file that cannot be used).";

/// The command line.
#[derive(Parser, Debug)]
#[command(
    name = "sessionscope",
    version,
    about = "Reads AI coding agents' session logs (Claude Code, Codex, Gemini CLI, OpenCode, Cursor and others) with \
             the same engine as the sessionscope page.",
    long_about = None,
    after_help = EXIT_STATUS,
    arg_required_else_help = true,
    propagate_version = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// The commands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// The files, sessions and agents, then tokens and cost per model and calls per tool.
    #[command(
        long_about = "Reads log files or folders as the page does and prints the files, sessions and agents, then \
                      tokens and cost per model and calls per tool. With --json it prints all of it as JSON, as \
                      the page's Statistics view computes it. `-` reads one file from stdin.",
        after_help = "Examples:\n  sessionscope summary ~/.claude/projects/-home-me-app\n  sessionscope summary \
                      --json session.jsonl\n  cat session.jsonl | sessionscope summary -"
    )]
    Summary(Logs),
    /// One row per session of a whole history, as the page's history home lists it.
    #[command(
        long_about = "Reads a whole history session by session on every core and prints one row per session, with \
                      the numbers the page's history home shows (--json: `{sessions, problems, totals}`, each \
                      session with the line that resumes it). With --marks, the stars, notes and tags of a marks \
                      file the page exported are shown too; a marks file that cannot be used is an error with exit \
                      status 2.",
        after_help = "Examples:\n  sessionscope index ~/.claude/projects\n  sessionscope index --json ~/.claude \
                      ~/.codex\n  sessionscope index ~/.claude/projects --marks=sessionscope-marks.json"
    )]
    Index(IndexArgs),
    /// Every file the history's tools read or changed, or one file's changes in time order.
    #[command(
        long_about = "Lists every path a tool call read, edited, wrote, created, moved or deleted, relative to its \
                      project, with its sessions, edits and last change. With --file, that file's changes in time \
                      order (session, time, prompt, the line of the call), narrowed to one project with --project \
                      where several have such a file.",
        after_help = "Examples:\n  sessionscope files ~/.claude/projects\n  sessionscope files ~/.claude/projects \
                      --file=src/auth.rs\n  sessionscope files --json ~/.claude --file src/auth.rs --project \
                      /home/me/app"
    )]
    Files(FilesArgs),
    /// Failed tool calls by tool, project, model and agent, and the most frequent failures grouped.
    #[command(
        long_about = "Counts failed tool results and their rate by tool, project, model and agent, then groups the \
                      failure messages (numbers, paths, ids and hashes masked), each group with its count, first \
                      and last seen. Interrupted turns and API errors are counted apart.",
        after_help = "Examples:\n  sessionscope failures ~/.claude ~/.codex\n  sessionscope failures --json \
                      ~/.claude/projects"
    )]
    Failures(Folders),
    /// Messages, tokens and cost by day and hour, and usage in 5-hour blocks.
    #[command(
        long_about = "Counts messages, tokens and cost by day and by hour of the day (in the given UTC offset, UTC \
                      without it), per model and per project by day, and the 5-hour usage blocks as ccusage's \
                      `blocks` reports them (same boundaries and totals).",
        after_help = "Examples:\n  sessionscope activity ~/.claude\n  sessionscope activity ~/.claude \
                      --utc-offset=+01:00\n  sessionscope activity --json ~/.claude --utc-offset -05:00"
    )]
    Activity(ActivityArgs),
    /// Finds the sessions of a whole history that hold some words, best first; or every match of a text or a regular expression.
    #[command(
        long_about = "Finds the sessions of a history by the words a person remembers, in the search language: \
                      words in any order, anywhere in a session (`kettle cold morning`); \"quoted phrases\"; \
                      prefix*; -excluded words; `deploy OR release`; and filters typed into the query: agent:, \
                      project:, model:, tool:, file: (a path a tool call named), role: (user, assistant, tool: \
                      whose words the others must be in), after: and before: (a date, YYYY-MM-DD, or a span \
                      before now: 36h, 7d, 2w, 1y), is:failed (a failed tool call), is:starred and tag: (with \
                      --marks). Sessions are scored with BM25F, a session's title and first prompt weighing more \
                      than its other prompts, those more than the answers, and those more than tool inputs and \
                      results; each comes with its best snippets. --sort=time lists the newest first.\n\n\
                      With --exact the query is one text, found as written (case-insensitive unless \
                      --case-sensitive), and with --regex (or a query written /…/) a regular expression: then \
                      every match is listed, newest sessions first, as the page's history search lists them, and \
                      the search stops once it has the --limit hits it prints (--limit=0: every hit, every match \
                      counted). Escapes in the logs' JSON hide no match. --project, --agent, --since and --until \
                      keep some sessions or days only, in every mode.\n\n\
                      The first search of a history reads every session once and remembers each one's rows and \
                      the three-letter sequences of its text in the user's cache folder \
                      ($SESSIONSCOPE_CACHE_DIR, else $XDG_CACHE_HOME/sessionscope, else ~/.cache/sessionscope); \
                      later searches read only the sessions whose files changed, and open only those that may \
                      hold the query's words. --no-cache neither reads nor writes it; deleting the folder \
                      forgets it.",
        after_help = "Examples:\n  sessionscope search 'flaky login test' ~/.claude/projects\n  sessionscope search \
                      '\"connection refused\" -staging after:7d' ~/.claude ~/.codex\n  sessionscope search \
                      'migration role:user agent:codex' ~/.codex --json\n  sessionscope search --regex \
                      'src/\\w+\\.rs:\\d+' ~/.claude --since=2026-01-01\n  sessionscope search --exact 'Keep the' \
                      ~/.claude --limit=10"
    )]
    Search(SearchArgs),
    /// The line that resumes a session in its agent (`cd <cwd> && claude --resume <id>`, ...).
    #[command(
        long_about = "Finds the session whose id is the one given, or starts with it, and prints the line that \
                      resumes it in its agent, in its working directory. The exit status is 1, with why, when no \
                      session or several have that id, or its agent has no such command.",
        after_help = "Examples:\n  sessionscope resume e3a1c0de ~/.claude/projects\n  eval \"$(sessionscope \
                      resume e3a1c0de-7b2f-4c59-9d41-5f0e8a6b2c17 ~/.claude)\""
    )]
    Resume(ResumeArgs),
    /// The parsed model and its structure, as text.
    #[command(
        long_about = "Prints the model the engine parses from the files and the graph of their conversations, as \
                      text: what the engine's snapshot tests compare.",
        after_help = "Examples:\n  sessionscope dump session.jsonl\n  sessionscope dump \
                      ~/.claude/projects/-home-me-app | less"
    )]
    Dump(Paths),
    /// An agent's SQLite database as the record stream the engine reads, one JSON line per row.
    #[command(
        long_about = "Reads an agent's SQLite database (OpenCode's opencode.db, Cursor's state.vscdb) and prints \
                      the record stream the engine reads from it, one JSON line per row. It reads a database \
                      another process has locked, or one over the page's 1 GB limit.",
        after_help = "Examples:\n  sessionscope records ~/.local/share/opencode/opencode.db > opencode.jsonl\n  \
                      sessionscope records state.vscdb | head"
    )]
    Records(Databases),
    /// Each session redacted as the page's Share dialog does: link sizes, links or Markdown.
    #[command(
        long_about = "Redacts each session as the page's Share dialog does, every finding replaced, and prints the \
                      size of its link (of the session and of its active branch); with --link, each session's \
                      link fragment; with --markdown, the redacted Markdown.",
        after_help = "Examples:\n  sessionscope share ~/.claude/projects/-home-me-app\n  sessionscope share \
                      session.jsonl --link\n  sessionscope share session.jsonl --markdown > session.md"
    )]
    Share(ShareArgs),
    /// Opens a session in the browser: the page's self-contained HTML file, written to a
    /// temporary file.
    #[command(
        long_about = "Opens a session in the default browser with no server, as speedscope's command line does: the \
                      session is redacted as the page's Share dialog redacts it (secrets, keys, the user's name in \
                      paths), put in the self-contained HTML file the page exports (the app inlined, no network), \
                      written to a temporary file, and opened with $BROWSER or the system's opener. The file's path \
                      is printed. Of several sessions, the one active last is opened unless --session names \
                      another. The app's built files come from --site, $SESSIONSCOPE_SITE, an install's \
                      share/sessionscope/site, or the repository's dist/ (`make dist`).",
        after_help = "Examples:\n  sessionscope open ~/.claude/projects/-home-me-app/3beb80b1-66fd-44f1-9d70-8c7e34a0a341.jsonl\n  \
                      sessionscope open ~/.claude/projects/-home-me-app --session 3beb80b1\n  \
                      sessionscope open session.jsonl --output session.html --no-browser"
    )]
    Open(OpenArgs),
    /// A Model Context Protocol server over stdio: agents list, search and read the history.
    #[command(
        long_about = "Serves the history to an agent as a Model Context Protocol server, over stdin and stdout: \
                      tools to list projects and sessions, search, read a session as Markdown and count usage, \
                      and each session as the resource sessionscope://session/<id>. The folders are read when \
                      a tool first asks (from the history `search` remembers, where its files are unchanged), \
                      kept in memory, and read again file by file as they change; nothing is ever written to \
                      them. Secrets, keys and the user's name in paths are redacted in \
                      everything the server answers, unless --no-redact. Without folders, the agents' usual \
                      places that exist (~/.claude/projects, ~/.codex/sessions, ~/.gemini/tmp, ...).",
        after_help = "Examples:\n  claude mcp add sessionscope -- sessionscope mcp\n  sessionscope mcp \
                      ~/.claude/projects ~/.codex/sessions\n  sessionscope mcp --no-redact ~/work/logs"
    )]
    Mcp(McpArgs),
    /// Prints the completion script of a shell.
    #[command(
        long_about = "Prints the script that completes sessionscope's commands, flags and paths in a shell, to \
                      source from its startup file or to save where the shell looks for completions.",
        after_help = "Examples:\n  sessionscope completions bash > ~/.local/share/bash-completion/completions/\
                      sessionscope\n  sessionscope completions zsh > ~/.zfunc/_sessionscope\n  sessionscope \
                      completions fish > ~/.config/fish/completions/sessionscope.fish"
    )]
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: Shell,
    },
}

impl Command {
    /// The command's name, as typed.
    pub fn name(&self) -> &'static str {
        match self {
            Command::Summary(_) => "summary",
            Command::Index(_) => "index",
            Command::Files(_) => "files",
            Command::Failures(_) => "failures",
            Command::Activity(_) => "activity",
            Command::Search(_) => "search",
            Command::Resume(_) => "resume",
            Command::Dump(_) => "dump",
            Command::Records(_) => "records",
            Command::Share(_) => "share",
            Command::Open(_) => "open",
            Command::Mcp(_) => "mcp",
            Command::Completions { .. } => "completions",
        }
    }
}

/// Log files or folders, and `--json`.
#[derive(Args, Debug)]
pub struct Logs {
    /// Log files or folders; `-` reads a file from stdin.
    #[arg(required = true, value_name = "FILE-OR-FOLDER", value_hint = ValueHint::AnyPath)]
    pub paths: Vec<PathBuf>,
    /// Prints JSON.
    #[arg(long)]
    pub json: bool,
}

/// Log files or folders, without flags.
#[derive(Args, Debug)]
pub struct Paths {
    /// Log files or folders; `-` reads a file from stdin.
    #[arg(required = true, value_name = "FILE-OR-FOLDER", value_hint = ValueHint::AnyPath)]
    pub paths: Vec<PathBuf>,
}

/// Folders of a history, and `--json`.
#[derive(Args, Debug)]
pub struct Folders {
    /// Folders (or files) of a history; `-` reads a file from stdin.
    #[arg(required = true, value_name = "FOLDER", value_hint = ValueHint::AnyPath)]
    pub paths: Vec<PathBuf>,
    /// Prints JSON.
    #[arg(long)]
    pub json: bool,
}

/// `index`'s arguments.
#[derive(Args, Debug)]
pub struct IndexArgs {
    #[command(flatten)]
    pub folders: Folders,
    /// A marks file the page exported: each session's stars, notes and tags.
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub marks: Option<PathBuf>,
}

/// `files`' arguments.
#[derive(Args, Debug)]
pub struct FilesArgs {
    #[command(flatten)]
    pub folders: Folders,
    /// One file's changes, in time order.
    #[arg(long, value_name = "PATH")]
    pub file: Option<String>,
    /// The project whose file `--file` names, where several projects have such a file.
    #[arg(long, value_name = "PROJECT")]
    pub project: Option<String>,
}

/// `activity`'s arguments.
#[derive(Args, Debug)]
pub struct ActivityArgs {
    #[command(flatten)]
    pub folders: Folders,
    /// The UTC offset the days and hours are counted in (UTC without it).
    #[arg(long, value_name = "±HH:MM", allow_hyphen_values = true, value_parser = parse_utc_offset)]
    pub utc_offset: Option<i64>,
}

/// `search`'s arguments.
#[derive(Args, Debug)]
pub struct SearchArgs {
    /// What to find: words, phrases and filters in the search language (see above); the text as
    /// written with --exact; a regular expression with --regex or written /…/.
    #[arg(value_name = "QUERY")]
    pub query: String,
    /// Folders (or files) of a history; `-` reads a file from stdin.
    #[arg(required = true, value_name = "FOLDER", value_hint = ValueHint::AnyPath)]
    pub paths: Vec<PathBuf>,
    /// Reads the query as a regular expression, and lists every match.
    #[arg(long, conflicts_with = "exact")]
    pub regex: bool,
    /// Finds the query as one text, as written, and lists every match.
    #[arg(long)]
    pub exact: bool,
    /// Matches letters' case as written (with --exact or --regex).
    #[arg(long)]
    pub case_sensitive: bool,
    /// The order of the sessions found: best score first, or newest activity first.
    #[arg(long, value_enum, default_value_t = crate::ranked::Sort::Score)]
    pub sort: crate::ranked::Sort,
    /// A marks file the page exported: `is:starred` and `tag:` read it.
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub marks: Option<PathBuf>,
    /// Keeps the sessions of a project: its folder, or the folder's last name.
    #[arg(long, value_name = "PROJECT")]
    pub project: Option<String>,
    /// Keeps the sessions of an agent, as `index` names it ("Claude Code", "Codex", ...; any case).
    #[arg(long, value_name = "AGENT")]
    pub agent: Option<String>,
    /// Keeps the entries of that day (UTC) or later.
    #[arg(long, value_name = "YYYY-MM-DD", value_parser = parse_day)]
    pub since: Option<Day>,
    /// Keeps the entries of that day (UTC) or earlier.
    #[arg(long, value_name = "YYYY-MM-DD", value_parser = parse_day)]
    pub until: Option<Day>,
    /// The sessions listed at most (with --exact or --regex: the hits, newest sessions first; the
    /// search then stops once it has them); 0: all of them.
    #[arg(long, value_name = "N", default_value_t = 100)]
    pub limit: usize,
    /// Prints JSON.
    #[arg(long)]
    pub json: bool,
    /// Neither reads nor writes the remembered history (every session is read; see `--help`).
    #[arg(long)]
    pub no_cache: bool,
}

/// `resume`'s arguments.
#[derive(Args, Debug)]
pub struct ResumeArgs {
    /// The session's id, or its start.
    #[arg(value_name = "SESSION-ID")]
    pub id: String,
    /// Folders (or files) of a history; `-` reads a file from stdin.
    #[arg(required = true, value_name = "FOLDER", value_hint = ValueHint::AnyPath)]
    pub paths: Vec<PathBuf>,
}

/// `records`' arguments.
#[derive(Args, Debug)]
pub struct Databases {
    /// Agents' SQLite databases, or folders that hold them.
    #[arg(required = true, value_name = "DATABASE", value_hint = ValueHint::AnyPath)]
    pub paths: Vec<PathBuf>,
}

/// `share`'s arguments.
#[derive(Args, Debug)]
pub struct ShareArgs {
    #[command(flatten)]
    pub paths: Paths,
    /// Prints each session's link fragment.
    #[arg(long)]
    pub link: bool,
    /// Prints each session redacted, as Markdown.
    #[arg(long)]
    pub markdown: bool,
}

/// `open`'s arguments.
#[derive(Args, Debug)]
pub struct OpenArgs {
    #[command(flatten)]
    pub paths: Paths,
    /// The session to open, by its id or the start of it (else the one active last).
    #[arg(long, value_name = "SESSION-ID")]
    pub session: Option<String>,
    /// Writes the file here instead of a temporary file.
    #[arg(long, short, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub output: Option<PathBuf>,
    /// Writes the file and prints its path, without starting a browser.
    #[arg(long)]
    pub no_browser: bool,
    /// The folder of the app's built files (`dist/`).
    #[arg(long, value_name = "FOLDER", value_hint = ValueHint::DirPath)]
    pub site: Option<PathBuf>,
    /// Also redacts what this regular expression matches (its group 1 if it has one), as the
    /// Share dialog's own patterns do; may be given more than once.
    #[arg(long, value_name = "REGEX")]
    pub redact: Vec<String>,
}

/// `mcp`'s arguments.
#[derive(Args, Debug)]
pub struct McpArgs {
    /// Folders (or files) of a history; without any, the agents' usual places that exist.
    #[arg(value_name = "FOLDER", value_hint = ValueHint::AnyPath)]
    pub folders: Vec<PathBuf>,
    /// Answers the logs' text as it is, secrets and user names included.
    #[arg(long)]
    pub no_redact: bool,
    /// Neither reads nor writes the remembered history (the first call reads every session).
    #[arg(long)]
    pub no_cache: bool,
}

/// A day of the calendar, as days since 1970-01-01 (UTC).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Day(pub i64);

impl Day {
    /// Milliseconds since the epoch at the day's start.
    pub fn start_ms(self) -> i64 {
        self.0.saturating_mul(86_400_000)
    }
}

/// A value of the wrong form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueError {
    UtcOffset,
    Day,
}

impl fmt::Display for ValueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ValueError::UtcOffset => f.write_str("takes ±HH:MM, such as --utc-offset=+05:30"),
            ValueError::Day => f.write_str("takes a day as YYYY-MM-DD, such as 2026-04-02"),
        }
    }
}

impl std::error::Error for ValueError {}

/// `--utc-offset`'s value, in minutes east of UTC.
fn parse_utc_offset(text: &str) -> Result<i64, ValueError> {
    crate::insights::parse_offset(text).ok_or(ValueError::UtcOffset)
}

/// A `YYYY-MM-DD` day, as the engine reads one (`json::day_start_ms`).
pub fn parse_day(text: &str) -> Result<Day, ValueError> {
    sessionscope_engine::json::day_start_ms(text).map(|ms| Day(ms.div_euclid(86_400_000))).ok_or(ValueError::Day)
}

/// How clap colours its help and errors: as the terminal allows (`ColorChoice::Auto`), and never
/// when `NO_COLOR` is set to anything but nothing (<https://no-color.org>).
pub fn color_choice() -> ColorChoice {
    match std::env::var_os("NO_COLOR") {
        Some(value) if !value.is_empty() => ColorChoice::Never,
        _ => ColorChoice::Auto,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_parse_as_the_calendar_has_them() {
        assert_eq!(parse_day("1970-01-01"), Ok(Day(0)));
        assert_eq!(parse_day("2000-03-01"), Ok(Day(11_017)));
        assert_eq!(parse_day("2024-02-29").map(|d| d.0 - parse_day("2024-02-28").map_or(0, |d| d.0)), Ok(1));
        for wrong in ["2023-02-29", "2026-13-01", "2026-4-02", "20260402", "2026-04-02x", ""] {
            assert_eq!(parse_day(wrong), Err(ValueError::Day), "{wrong}");
        }
    }

    #[test]
    fn the_command_line_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
