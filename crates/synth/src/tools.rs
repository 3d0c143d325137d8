//! Tool calls: their `input`, the `tool_result` content the model sees and the
//! tool-specific `toolUseResult` detail that Claude Code stores beside it.

use crate::ids::{self, Uuid};
use crate::json::{Obj, array, object, push_str};
use crate::rng::Rng;
use crate::text::{Lang, Vocab, push_lone_surrogate_line, push_number};

/// The built-in tools the generator imitates (subagent spawns are handled elsewhere).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolKind {
    Bash,
    BackgroundBash,
    TaskOutput,
    Read,
    Edit,
    Write,
    Glob,
    Grep,
    TodoWrite,
    WebFetch,
}

impl ToolKind {
    pub fn name(self) -> &'static str {
        match self {
            ToolKind::Bash | ToolKind::BackgroundBash => "Bash",
            ToolKind::TaskOutput => "TaskOutput",
            ToolKind::Read => "Read",
            ToolKind::Edit => "Edit",
            ToolKind::Write => "Write",
            ToolKind::Glob => "Glob",
            ToolKind::Grep => "Grep",
            ToolKind::TodoWrite => "TodoWrite",
            ToolKind::WebFetch => "WebFetch",
        }
    }

    /// The largest output this tool plausibly produces, in bytes.
    pub fn max_output(self) -> u64 {
        match self {
            ToolKind::Bash => 10 << 20,
            ToolKind::Grep => 1 << 20,
            ToolKind::Read => 256 << 10,
            ToolKind::Edit => 96 << 10,
            ToolKind::Write => 48 << 10,
            ToolKind::WebFetch => 64 << 10,
            ToolKind::TaskOutput => 256 << 10,
            ToolKind::Glob => 8 << 10,
            ToolKind::BackgroundBash | ToolKind::TodoWrite => 1 << 10,
        }
    }

    /// How many PreToolUse and PostToolUse hook progress lines the tool gets.
    pub fn hook_counts(self, rng: &mut Rng) -> (u64, u64) {
        match self {
            ToolKind::Bash | ToolKind::BackgroundBash => (4, 2),
            ToolKind::Edit | ToolKind::Write => (2, rng.range(4, 7)),
            _ => (rng.range(0, 1), rng.range(2, 3)),
        }
    }
}

/// A fully planned tool call, its JSON pieces rendered ahead of writing.
#[derive(Debug, Clone, Default)]
pub struct ToolCall {
    pub id: String,
    pub name: &'static str,
    pub input: Vec<u8>,
    /// The `content` of the tool_result block: a JSON string or array.
    pub result_content: Vec<u8>,
    /// The `toolUseResult` value: an object, or a plain string on error.
    pub result_detail: Vec<u8>,
    pub is_error: bool,
    pub has_lone_surrogate: bool,
    /// Snapshots of partial output, one `bash_progress` line each.
    pub bash_progress: Vec<String>,
    /// Set for file edits, which add a file-history-snapshot update line.
    pub edited_file: Option<&'static str>,
    /// Set by a background command: its task id and description.
    pub started_task: Option<(String, String)>,
    /// Set by TaskOutput: the description of the task waited for.
    pub waits_for: Option<String>,
    /// The uuid of the assistant line holding the tool_use, once written.
    pub assistant_uuid: Option<Uuid>,
}

/// One entry of a TodoWrite list.
#[derive(Debug, Clone)]
pub struct Todo {
    pub content: String,
    pub status: &'static str,
}

const TODO_ITEMS: &[&str] = &[
    "Reproduce the failing test",
    "Find where the amount is rounded",
    "Write a regression test",
    "Fix the rounding helper",
    "Run the full test suite",
    "Update the changelog",
    "Check the web view totals",
    "Profile the CSV importer",
];

const COMMANDS: &[(&str, &str)] = &[
    ("cargo test -p {crate} 2>&1 | tail -n {n}", "Run the {crate} tests"),
    ("cargo build --release 2>&1", "Build in release mode"),
    ("git log --oneline -n {n}", "Show recent commits"),
    ("git diff --stat HEAD~1", "Summarise the last commit"),
    ("ls -la {cwd}/src", "List the source directory"),
    ("RUST_LOG=debug cargo run -- import fixtures/{word}.csv", "Import the sample statement"),
    ("cargo clippy --all-targets -- -D warnings", "Run clippy"),
];

const URLS: &[&str] = &[
    "https://docs.example.org/money/rounding",
    "https://blog.example.net/posts/fixed-point-ledgers",
    "https://wiki.example.com/CSV_dialects",
    "https://docs.example.org/sqlite/busy-timeout",
];

/// Everything a tool producer needs.
pub struct ToolMaker<'a> {
    pub rng: &'a mut Rng,
    pub vocab: &'a Vocab,
}

fn render(fill: impl FnOnce(&mut Obj<'_>)) -> Vec<u8> {
    let mut out = Vec::new();
    object(&mut out, fill);
    out
}

fn render_str(text: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len() + 16);
    push_str(&mut out, text);
    out
}

impl ToolMaker<'_> {
    fn expand(&mut self, template: &str) -> String {
        let mut out = String::new();
        self.vocab.expand(self.rng, template, &mut out);
        out
    }

    /// Plans one call of `kind` whose output is about `size` bytes.
    pub fn make(&mut self, kind: ToolKind, size: u64, fail: bool, lone_surrogate: bool) -> ToolCall {
        let mut call = ToolCall { id: ids::tool_use_id(self.rng), name: kind.name(), ..ToolCall::default() };
        let size = size as usize;
        match kind {
            ToolKind::Bash => self.bash(&mut call, size, fail, lone_surrogate),
            ToolKind::BackgroundBash => self.background_bash(&mut call),
            ToolKind::TaskOutput => self.task_output(&mut call, size, "Run the full test suite"),
            ToolKind::Read => self.read(&mut call, size, fail),
            ToolKind::Edit => self.edit(&mut call, size, fail),
            ToolKind::Write => self.write(&mut call, size),
            ToolKind::Glob => self.glob(&mut call, size),
            ToolKind::Grep => self.grep(&mut call, size),
            ToolKind::WebFetch => self.web_fetch(&mut call, size),
            ToolKind::TodoWrite => {
                // Lists are handled by `todo_write`, which needs the previous state.
                self.todo_write(&mut call, &[], &[]);
            }
        }
        call
    }

    fn bash(&mut self, call: &mut ToolCall, size: usize, fail: bool, lone_surrogate: bool) {
        let (command, description) = self.rng.pick(COMMANDS);
        let command = self.expand(command);
        let description = self.expand(description);
        call.input = render(|o| {
            o.str("command", &command).str("description", &description);
        });
        let mut stdout = String::with_capacity(size + 64);
        let half = size / 2;
        self.vocab.command_output(self.rng, half, &mut stdout);
        if lone_surrogate {
            push_lone_surrogate_line(&mut stdout);
            call.has_lone_surrogate = true;
        }
        self.vocab.command_output(self.rng, size.saturating_sub(stdout.len()), &mut stdout);
        stdout.truncate(stdout.trim_end_matches('\n').len());
        if self.rng.chance(0.45) {
            let steps = self.rng.range(1, 5) as usize;
            let mut shown = 0;
            for step in 0..steps {
                let upto = stdout.len() * (step + 1) / (steps + 1);
                let mut end = upto.min(shown + 2_000);
                while !stdout.is_char_boundary(end) {
                    end -= 1;
                }
                let mut start = end.saturating_sub(400).max(shown);
                while !stdout.is_char_boundary(start) {
                    start -= 1;
                }
                call.bash_progress.push(stdout[start..end].to_string());
                shown = end;
            }
        }
        if fail {
            let text = format!("Exit code 101\n{stdout}");
            call.is_error = true;
            call.result_content = render_str(&text);
            call.result_detail = render_str(&format!("Error: {text}"));
            return;
        }
        call.result_content = render_str(&stdout);
        call.result_detail = render(|o| {
            o.str("stdout", &stdout)
                .str("stderr", "")
                .bool("interrupted", false)
                .bool("isImage", false)
                .bool("noOutputExpected", false);
        });
    }

    fn background_bash(&mut self, call: &mut ToolCall) {
        let task_id = ids::hex(self.rng, 7);
        let description = "Run the full test suite".to_string();
        call.input = render(|o| {
            o.str("command", "cargo test --workspace 2>&1")
                .str("description", &description)
                .bool("run_in_background", true);
        });
        let text = format!(
            "Command running in background with ID: {task_id}. Output is being written to: /tmp/claude-1000/tasks/{task_id}.output"
        );
        call.result_content = render_str(&text);
        call.result_detail = render(|o| {
            o.str("stdout", "")
                .str("stderr", "")
                .bool("interrupted", false)
                .bool("isImage", false)
                .bool("noOutputExpected", false)
                .str("backgroundTaskId", &task_id);
        });
        call.started_task = Some((task_id, description));
    }

    /// Plans a TaskOutput call that waits for background task `task_id`.
    pub fn task_output_for(&mut self, task_id: &str, description: &str, size: u64) -> ToolCall {
        let mut call =
            ToolCall { id: ids::tool_use_id(self.rng), name: ToolKind::TaskOutput.name(), ..ToolCall::default() };
        call.input = render(|o| {
            o.str("task_id", task_id).bool("block", true).u64("timeout", 120_000);
        });
        self.task_output_result(&mut call, task_id, description, size as usize);
        call
    }

    fn task_output(&mut self, call: &mut ToolCall, size: usize, description: &str) {
        let task_id = ids::hex(self.rng, 7);
        call.input = render(|o| {
            o.str("task_id", &task_id).bool("block", true).u64("timeout", 120_000);
        });
        self.task_output_result(call, &task_id, description, size);
    }

    fn task_output_result(&mut self, call: &mut ToolCall, task_id: &str, description: &str, size: usize) {
        let mut output = String::with_capacity(size + 64);
        self.vocab.command_output(self.rng, size, &mut output);
        let text = format!(
            "<retrieval_status>success</retrieval_status>\n\n<task_id>{task_id}</task_id>\n\n<task_type>local_bash</task_type>\n\n<status>completed</status>\n\n<exit_code>0</exit_code>\n\n<output>\n{output}</output>"
        );
        call.result_content = render_str(&text);
        call.result_detail = render(|o| {
            o.str("retrieval_status", "success").obj("task", |o| {
                o.str("task_id", task_id)
                    .str("task_type", "local_bash")
                    .str("status", "completed")
                    .str("description", description)
                    .str("output", &output)
                    .u64("exitCode", 0);
            });
        });
        call.waits_for = Some(description.to_string());
    }

    fn read(&mut self, call: &mut ToolCall, size: usize, fail: bool) {
        let file = self.vocab.file(self.rng);
        let path = format!("{}/{}", self.vocab.cwd, file);
        call.input = render(|o| {
            o.str("file_path", &path);
        });
        if fail {
            let message = format!("File does not exist. Note: your current working directory is {}.", self.vocab.cwd);
            call.is_error = true;
            call.result_content = render_str(&format!("<tool_use_error>{message}</tool_use_error>"));
            call.result_detail = render_str(&format!("Error: {message}"));
            return;
        }
        let mut content = String::with_capacity(size + 64);
        self.vocab.code(self.rng, Lang::of_file(file), size, &mut content);
        let mut numbered = String::with_capacity(content.len() + content.len() / 8);
        let mut count = 0u64;
        for line in content.lines() {
            count += 1;
            let mut digits = String::new();
            push_number(&mut digits, count);
            for _ in digits.len()..6 {
                numbered.push(' ');
            }
            numbered.push_str(&digits);
            numbered.push('→');
            numbered.push_str(line);
            numbered.push('\n');
        }
        call.result_content = render_str(&numbered);
        call.result_detail = render(|o| {
            o.str("type", "text").obj("file", |o| {
                o.str("filePath", &path)
                    .str("content", &content)
                    .u64("numLines", count)
                    .u64("startLine", 1)
                    .u64("totalLines", count);
            });
        });
    }

    fn edit(&mut self, call: &mut ToolCall, size: usize, fail: bool) {
        let file = self.vocab.file(self.rng);
        let path = format!("{}/{}", self.vocab.cwd, file);
        let mut original = String::with_capacity(size + 64);
        self.vocab.code(self.rng, Lang::of_file(file), size.max(400), &mut original);
        let lines: Vec<&str> = original.lines().collect();
        let old_count = (self.rng.range(1, 4) as usize).min(lines.len());
        let at = self.rng.index(lines.len() - old_count + 1);
        let old_lines = &lines[at..at + old_count];
        let new_lines: Vec<String> = old_lines
            .iter()
            .map(|line| {
                if line.trim().is_empty() {
                    "    // Keep amounts in cents to avoid float drift.".to_string()
                } else {
                    line.replace("let ", "let checked_").replace("0.", "1.") + " // rounded half to even"
                }
            })
            .collect();
        let old_string = old_lines.join("\n");
        let new_string = new_lines.join("\n");
        call.input = render(|o| {
            o.bool("replace_all", false)
                .str("file_path", &path)
                .str("old_string", &old_string)
                .str("new_string", &new_string);
        });
        if fail {
            let message = format!("String to replace not found in file.\nString: {old_string}");
            call.is_error = true;
            call.result_content = render_str(&format!("<tool_use_error>{message}</tool_use_error>"));
            call.result_detail = render_str(&format!("Error: {message}"));
            return;
        }
        call.edited_file = Some(file);
        let context_before = at.min(3);
        let context_after = (lines.len() - at - old_count).min(3);
        let mut hunk: Vec<String> = Vec::with_capacity(old_count * 2 + 6);
        for line in &lines[at - context_before..at] {
            hunk.push(format!(" {line}"));
        }
        for line in old_lines {
            hunk.push(format!("-{line}"));
        }
        for line in &new_lines {
            hunk.push(format!("+{line}"));
        }
        for line in &lines[at + old_count..at + old_count + context_after] {
            hunk.push(format!(" {line}"));
        }
        let start = (at - context_before + 1) as u64;
        let old_total = (context_before + old_count + context_after) as u64;
        call.result_content = render_str(&format!("The file {path} has been updated successfully."));
        call.result_detail = render(|o| {
            o.str("filePath", &path)
                .str("oldString", &old_string)
                .str("newString", &new_string)
                .str("originalFile", &original)
                .arr("structuredPatch", |a| {
                    a.obj(|o| {
                        o.u64("oldStart", start)
                            .u64("oldLines", old_total)
                            .u64("newStart", start)
                            .u64("newLines", old_total)
                            .str_arr("lines", &hunk);
                    });
                })
                .bool("userModified", false)
                .bool("replaceAll", false);
        });
    }

    fn write(&mut self, call: &mut ToolCall, size: usize) {
        let file = self.vocab.file(self.rng);
        let path = format!("{}/{}", self.vocab.cwd, file);
        let mut content = String::with_capacity(size + 64);
        self.vocab.code(self.rng, Lang::of_file(file), size, &mut content);
        call.input = render(|o| {
            o.str("file_path", &path).str("content", &content);
        });
        call.edited_file = Some(file);
        call.result_content = render_str(&format!("File created successfully at: {path}"));
        call.result_detail = render(|o| {
            o.str("type", "create")
                .str("filePath", &path)
                .str("content", &content)
                .arr("structuredPatch", |_| {})
                .null("originalFile");
        });
    }

    fn glob(&mut self, call: &mut ToolCall, size: usize) {
        let pattern = self.rng.pick(&["src/**/*.rs", "**/*.toml", "tests/*.rs", "web/src/**/*.tsx"]);
        call.input = render(|o| {
            o.str("pattern", pattern);
        });
        let count = (size / 60).clamp(1, 100);
        let files: Vec<String> = (0..count).map(|_| self.vocab.path(self.rng)).collect();
        call.result_content = render_str(&files.join("\n"));
        let duration = self.rng.range(5, 400);
        call.result_detail = render(|o| {
            o.str_arr("filenames", &files)
                .u64("durationMs", duration)
                .u64("numFiles", count as u64)
                .bool("truncated", false);
        });
    }

    fn grep(&mut self, call: &mut ToolCall, size: usize) {
        let pattern = self.expand("fn {fn}|{ty}::");
        let content_mode = self.rng.chance(0.6);
        let cwd = self.vocab.cwd.clone();
        call.input = render(|o| {
            o.str("pattern", &pattern).str("path", &cwd);
            if content_mode {
                o.str("output_mode", "content").bool("-n", true);
            }
        });
        if content_mode {
            let mut content = String::with_capacity(size + 64);
            self.vocab.grep_output(self.rng, size, &mut content);
            let lines = content.lines().count() as u64;
            call.result_content = render_str(&content);
            let files = self.rng.range(1, 12);
            call.result_detail = render(|o| {
                o.str("mode", "content")
                    .u64("numFiles", files)
                    .arr("filenames", |_| {})
                    .str("content", &content)
                    .u64("numLines", lines);
            });
        } else {
            let count = (size / 60).clamp(1, 200);
            let files: Vec<String> = (0..count).map(|_| self.vocab.path(self.rng)).collect();
            call.result_content = render_str(&format!("Found {count} files\n{}", files.join("\n")));
            call.result_detail = render(|o| {
                o.str("mode", "files_with_matches").str_arr("filenames", &files).u64("numFiles", count as u64);
            });
        }
    }

    fn web_fetch(&mut self, call: &mut ToolCall, size: usize) {
        let url = self.rng.pick(URLS);
        call.input = render(|o| {
            o.str("url", url).str("prompt", "Summarise the recommended way to round currency amounts.");
        });
        let mut page = String::with_capacity(size + 64);
        self.vocab.web_page(self.rng, size, &mut page);
        call.result_content = render_str(&page);
        let bytes = (page.len() as u64) * 3;
        let duration = self.rng.range(300, 9_000);
        call.result_detail = render(|o| {
            o.u64("bytes", bytes)
                .u64("code", 200)
                .str("codeText", "OK")
                .str("result", &page)
                .u64("durationMs", duration)
                .str("url", url);
        });
    }

    /// Plans a TodoWrite call that moves the list from `old` to `new`.
    pub fn todo_write(&mut self, call: &mut ToolCall, old: &[Todo], new: &[Todo]) {
        call.id = if call.id.is_empty() { ids::tool_use_id(self.rng) } else { std::mem::take(&mut call.id) };
        call.name = ToolKind::TodoWrite.name();
        let write_list = |o: &mut Obj<'_>, key: &str, todos: &[Todo]| {
            o.arr(key, |a| {
                for todo in todos {
                    a.obj(|o| {
                        o.str("content", &todo.content)
                            .str("status", todo.status)
                            .str("activeForm", &active_form(&todo.content));
                    });
                }
            });
        };
        call.input = render(|o| write_list(o, "todos", new));
        call.result_content = render_str(
            "Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable",
        );
        call.result_detail = render(|o| {
            write_list(o, "oldTodos", old);
            write_list(o, "newTodos", new);
        });
    }
}

/// The "-ing" form Claude Code shows while a todo is in progress.
fn active_form(content: &str) -> String {
    let (verb, rest) = content.split_once(' ').unwrap_or((content, ""));
    let stem = verb.strip_suffix('e').unwrap_or(verb);
    format!("{stem}ing {rest}")
}

/// Advances a todo list: finishes the current item and starts the next, or
/// starts a fresh list when everything is done.
pub fn next_todos(rng: &mut Rng, old: &[Todo]) -> Vec<Todo> {
    let all_done = old.iter().all(|todo| todo.status == "completed");
    if old.is_empty() || all_done {
        let count = rng.range(3, 6) as usize;
        let first = rng.index(TODO_ITEMS.len());
        return (0..count)
            .map(|offset| Todo {
                content: TODO_ITEMS[(first + offset) % TODO_ITEMS.len()].to_string(),
                status: if offset == 0 { "in_progress" } else { "pending" },
            })
            .collect();
    }
    let mut new = old.to_vec();
    if let Some(current) = new.iter().position(|todo| todo.status == "in_progress") {
        new[current].status = "completed";
    }
    if let Some(next) = new.iter().position(|todo| todo.status == "pending") {
        new[next].status = "in_progress";
    }
    new
}

/// Renders a tool_result `content` array of text blocks.
pub fn text_blocks(texts: &[&str]) -> Vec<u8> {
    let mut out = Vec::new();
    array(&mut out, |a| {
        for text in texts {
            a.obj(|o| {
                o.str("type", "text").str("text", text);
            });
        }
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn todo_lists_progress() {
        let mut rng = Rng::new(5);
        let first = next_todos(&mut rng, &[]);
        assert_eq!(first[0].status, "in_progress");
        let second = next_todos(&mut rng, &first);
        assert_eq!(second[0].status, "completed");
        assert_eq!(second[1].status, "in_progress");
        assert_eq!(active_form("Write a test"), "Writing a test");
    }
}
