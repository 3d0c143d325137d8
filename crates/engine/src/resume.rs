//! The command that resumes a session in the agent that wrote it (`claude --resume <id>`,
//! `codex resume <id>`, ...), run in the session's working directory, or why there is none.
//!
//! A session's id, its working directory and its file names come from its log, which is
//! untrusted: the command line is made of shell-quoted words, so whatever the log holds, pasting
//! the line runs the agent and nothing else.

use serde::{Deserialize, Serialize};

use crate::model::Format;

/// How a session is taken up again.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Resume {
    /// The agent's command and its arguments, to run in the session's working directory. A word
    /// that starts with `~/` is the user's home folder.
    Command(Vec<String>),
    /// The agent lives in an editor (Cline, Roo Code, Cursor's editor): its sessions are taken up
    /// there, from its own history, not from a shell.
    InEditor,
    /// Aider keeps one chat history per project and no session to name:
    /// `aider --restore-chat-history` in the project's folder reads it back.
    ChatHistory,
    /// A Pi session read from outside Pi's sessions folder: Pi resumes a session by its file
    /// there, and where that is is not known.
    PiFileUnknown,
    /// The log is a capture (Ollama's API) or holds no session the agent could take up.
    #[default]
    Unavailable,
}

impl Resume {
    /// How the session written in `format`, with the agent's own `session_id`, is resumed.
    /// `main_file` is the path of its main file as the history names it (Pi resumes a file).
    pub fn of(format: Format, session_id: &str, main_file: &str) -> Resume {
        let id = session_id.trim();
        let command = |words: &[&str]| Resume::Command(words.iter().map(|w| (*w).to_owned()).collect());
        if id.is_empty() && !matches!(format, Format::Aider | Format::Cline | Format::RooCode | Format::CursorIde) {
            return Resume::Unavailable;
        }
        match format {
            Format::ClaudeCode | Format::AgentMeta | Format::AgentSdk => command(&["claude", "--resume", id]),
            Format::CodexRollout | Format::CodexEvents => command(&["codex", "resume", id]),
            Format::GeminiCli => command(&["gemini", "--resume", id]),
            Format::QwenCode => command(&["qwen", "--resume", id]),
            Format::CopilotCli => command(&["copilot", "--resume", id]),
            Format::OpenCode | Format::OpenCodeStorage => command(&["opencode", "--session", id]),
            Format::CursorCli => command(&["cursor-agent", "--resume", id]),
            Format::Amp => command(&["amp", "threads", "continue", id]),
            Format::Pi => match pi_session_file(main_file) {
                Some(file) => Resume::Command(vec!["pi".to_owned(), "--session".to_owned(), file]),
                None => Resume::PiFileUnknown,
            },
            Format::Aider => Resume::ChatHistory,
            Format::Cline | Format::RooCode | Format::CursorIde => Resume::InEditor,
            Format::Ollama | Format::Pending | Format::Rejected => Resume::Unavailable,
        }
    }

    /// The line to paste in a shell: `cd <cwd> && <command>`, every word quoted where it needs to
    /// be. `None` when there is no command.
    pub fn shell_line(&self, cwd: &str) -> Option<String> {
        let Resume::Command(words) = self else { return None };
        let command: Vec<String> = words.iter().map(|w| shell_word(w)).collect();
        let command = command.join(" ");
        // A working directory the log names as an absolute path; a folder name alone (the
        // history's fallback when no message names one) is no place to go to.
        if cwd.starts_with('/') || cwd.starts_with("~/") || is_windows_absolute(cwd) {
            Some(format!("cd {} && {command}", shell_word(cwd)))
        } else {
            Some(command)
        }
    }

    /// Why a session of `agent` offers no command, in words; `None` when it does.
    pub fn why_not(&self, agent: &str) -> Option<String> {
        match self {
            Resume::Command(_) => None,
            Resume::InEditor => Some(format!(
                "{agent} runs in an editor: open its history there to take this session up; it has no command line to resume it."
            )),
            Resume::ChatHistory => Some(
                "Aider has no command to resume a given session: `aider --restore-chat-history` in the project's folder reads its whole chat history back."
                    .to_owned(),
            ),
            Resume::PiFileUnknown => Some(
                "Pi resumes a session by its file in ~/.pi/agent/sessions/<project>/, and this file was not read from there: `pi --resume` in the project's folder lists its sessions."
                    .to_owned(),
            ),
            Resume::Unavailable if agent.is_empty() => Some("This log names no agent that could resume it.".to_owned()),
            Resume::Unavailable => Some(format!("{agent} has no command that resumes this session.")),
        }
    }
}

/// Pi resumes a session file: `~/.pi/agent/sessions/<cwd slug>/<file>`, known from the slug
/// folder (`--home-dev-app--`) and the file's name at the end of the history's path.
fn pi_session_file(path: &str) -> Option<String> {
    let mut parts = path.rsplit(['/', '\\']).filter(|p| !p.is_empty());
    let file = parts.next()?;
    let slug = parts.next()?;
    (slug.starts_with("--") && slug.ends_with("--") && file.ends_with(".jsonl"))
        .then(|| format!("~/.pi/agent/sessions/{slug}/{file}"))
}

fn is_windows_absolute(path: &str) -> bool {
    let bytes = path.as_bytes();
    bytes.len() >= 3 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':' && matches!(bytes[2], b'\\' | b'/')
}

/// A word as a POSIX shell reads it back unchanged: left bare when it holds only safe
/// characters, else in single quotes (a quote inside as `'\''`). A leading `~/` stays outside
/// the quotes, so the shell expands it.
pub fn shell_word(word: &str) -> String {
    if let Some(rest) = word.strip_prefix("~/") {
        return if rest.is_empty() { "~/".to_owned() } else { format!("~/{}", shell_word(rest)) };
    }
    let safe = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/' | ':' | '@' | '+' | '=' | ',');
    if !word.is_empty() && word.chars().all(safe) {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_agent_gets_its_own_command_in_its_folder() {
        let line = |format, id, file, cwd| Resume::of(format, id, file).shell_line(cwd);
        assert_eq!(
            line(Format::ClaudeCode, "e3a1c0de-7b2f-4c59-9d41-5f0e8a6b2c17", "p/x.jsonl", "/home/dev/app").as_deref(),
            Some("cd /home/dev/app && claude --resume e3a1c0de-7b2f-4c59-9d41-5f0e8a6b2c17")
        );
        assert_eq!(
            line(Format::CodexRollout, "0199a213-81c0", "r.jsonl", "/w").as_deref(),
            Some("cd /w && codex resume 0199a213-81c0")
        );
        assert_eq!(line(Format::GeminiCli, "g-1", "c.json", "/w").as_deref(), Some("cd /w && gemini --resume g-1"));
        assert_eq!(line(Format::QwenCode, "q-1", "c.jsonl", "/w").as_deref(), Some("cd /w && qwen --resume q-1"));
        assert_eq!(line(Format::CopilotCli, "c-1", "e.jsonl", "/w").as_deref(), Some("cd /w && copilot --resume c-1"));
        assert_eq!(line(Format::OpenCode, "ses_1", "o.db", "/w").as_deref(), Some("cd /w && opencode --session ses_1"));
        assert_eq!(line(Format::CursorCli, "k-1", "s.db", "/w").as_deref(), Some("cd /w && cursor-agent --resume k-1"));
        assert_eq!(line(Format::Amp, "T-1", "t.json", "/w").as_deref(), Some("cd /w && amp threads continue T-1"));
        assert_eq!(
            line(Format::Pi, "pi-1", "pi/--work-app--/2026-03-02T09-30-00-000Z_pi-1.jsonl", "/work/app").as_deref(),
            Some("cd /work/app && pi --session ~/.pi/agent/sessions/--work-app--/2026-03-02T09-30-00-000Z_pi-1.jsonl")
        );
    }

    #[test]
    fn agents_without_a_command_say_why() {
        for (format, agent, words) in [
            (Format::Aider, "Aider", "aider --restore-chat-history"),
            (Format::Cline, "Cline", "runs in an editor"),
            (Format::CursorIde, "Cursor", "runs in an editor"),
            (Format::Ollama, "Ollama", "Ollama has no command"),
        ] {
            let resume = Resume::of(format, "id-1", "f.jsonl");
            assert_eq!(resume.shell_line("/w"), None, "{agent}");
            assert!(
                resume.why_not(agent).is_some_and(|why| why.contains(words)),
                "{agent}: {:?}",
                resume.why_not(agent)
            );
        }
        // A Pi file not in its sessions folder, or a session with no id, cannot be named.
        assert_eq!(Resume::of(Format::Pi, "pi-1", "loose.jsonl"), Resume::PiFileUnknown);
        assert!(Resume::PiFileUnknown.why_not("Pi").is_some_and(|why| why.contains("pi --resume")));
        assert_eq!(Resume::of(Format::ClaudeCode, " ", "x.jsonl"), Resume::Unavailable);
        assert_eq!(Resume::of(Format::ClaudeCode, "x", "x.jsonl").why_not("Claude Code"), None);
    }

    #[test]
    fn what_the_log_says_is_quoted_so_the_line_runs_the_agent_and_nothing_else() {
        let resume = Resume::of(Format::ClaudeCode, "x; rm -rf ~ #", "x.jsonl");
        assert_eq!(
            resume.shell_line("/home/o'brien/my app $(touch p)").as_deref(),
            Some(r"cd '/home/o'\''brien/my app $(touch p)' && claude --resume 'x; rm -rf ~ #'")
        );
        // A folder name alone is no place to cd to.
        assert_eq!(
            Resume::of(Format::CodexRollout, "a", "r.jsonl").shell_line("projects").as_deref(),
            Some("codex resume a")
        );
        assert_eq!(
            Resume::of(Format::CodexRollout, "a", "r.jsonl").shell_line(r"C:\work\app").as_deref(),
            Some(r"cd 'C:\work\app' && codex resume a")
        );
    }

    proptest::proptest! {
        #[test]
        fn a_quoted_word_reads_back_as_itself(word in "\\PC{0,24}") {
            proptest::prop_assert_eq!(unquote(&shell_word(&word)), word.clone());
        }
    }

    /// Reads a word back as a POSIX shell would (single quotes, `'\''`, a bare `~/` left as is).
    fn unquote(text: &str) -> String {
        let mut out = String::new();
        let mut quoted = false;
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            match (c, quoted) {
                ('\'', false) => quoted = true,
                ('\'', true) => quoted = false,
                ('\\', false) => out.extend(chars.next()),
                (c, _) => out.push(c),
            }
        }
        out
    }
}
