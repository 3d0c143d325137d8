//! The changes a tool call makes to files, read from its input, for every agent's edit tools:
//! Claude Code's Edit, MultiEdit, Write and NotebookEdit (Aider's SEARCH/REPLACE blocks are read
//! as Edit calls), Codex `apply_patch` patches (as a tool, or run in a shell) and SDK
//! `file_change` items, Gemini CLI's and Qwen Code's replace, edit and write_file, Copilot CLI's
//! edit, create and str_replace_editor, Pi's edit and write, Cline's and Roo Code's
//! write_to_file, replace_in_file, apply_diff, search_and_replace and insert_content, OpenCode's
//! edit, multiedit, write and patch, Cursor's StrReplace, Write, Delete, search_replace,
//! edit_file and delete_file, Amp's edit_file and create_file; and the writes, moves and removals
//! a shell command makes where they can be recognised (`> file`, `>> file`, `tee`, `sed -i`,
//! `mv`, `rm`, `cp`).
//!
//! Each change names its file (relative to the session's working directory when inside it),
//! how it changed it, and the text replaced: `(old, new)` pairs, an empty old text for text
//! added whole. A shell write has no text: what it wrote is not in the log.

use crate::dag::tools::{line_delta, relative_path};
use crate::small_json::Value;

/// How a change touched its file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub enum ChangeKind {
    /// Part of it replaced.
    Edit,
    /// Written whole (over what was there, or where nothing is known of what was).
    Write,
    /// Made new.
    Create,
    /// Moved or renamed (to [`FileEdit::to`]).
    Move,
    Delete,
}

impl ChangeKind {
    pub fn name(self) -> &'static str {
        match self {
            ChangeKind::Edit => "edit",
            ChangeKind::Write => "write",
            ChangeKind::Create => "create",
            ChangeKind::Move => "move",
            ChangeKind::Delete => "delete",
        }
    }
}

/// One file's change by one tool call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileEdit {
    pub path: String,
    pub kind: ChangeKind,
    /// Where a moved file went.
    pub to: Option<String>,
    /// `(old, new)` texts, in order; empty for a change whose text the log does not hold.
    pub hunks: Vec<(String, String)>,
}

impl FileEdit {
    fn new(path: &str, kind: ChangeKind, cwd: &str) -> FileEdit {
        FileEdit { path: relative_path(path, cwd), kind, to: None, hunks: Vec::new() }
    }

    fn with(mut self, old: &str, new: &str) -> FileEdit {
        self.hunks.push((old.to_owned(), new.to_owned()));
        self
    }

    /// Lines added and removed, as a diff of its hunks counts them.
    pub fn lines(&self) -> (usize, usize) {
        self.hunks.iter().fold((0, 0), |(a, r), (old, new)| {
            let (added, removed) = line_delta(old, new);
            (a + added, r + removed)
        })
    }
}

/// The keys a file's path goes by, across the agents' tools.
const PATH_KEYS: [&str; 6] = ["file_path", "filePath", "path", "notebook_path", "absolute_path", "target_file"];
/// The keys of the text replaced, and of the text it is replaced by.
const OLD_KEYS: [&str; 6] = ["old_string", "oldString", "oldText", "old_str", "search", "old"];
const NEW_KEYS: [&str; 6] = ["new_string", "newString", "newText", "new_str", "replace", "new"];
/// The keys of a file's whole content.
const CONTENT_KEYS: [&str; 5] = ["content", "contents", "file_text", "new_source", "code_edit"];

fn text<'v>(input: &'v Value, keys: &[&str]) -> Option<&'v str> {
    keys.iter().find_map(|key| input.get(key).and_then(Value::as_str))
}

/// The changes a call to tool `name` with `input` makes; `result` is the call's
/// `toolUseResult` when the log kept it (it tells a file Claude Code created from one it wrote
/// over). Tools that change no file give none.
pub fn edits_of(name: &str, input: &Value, result: Option<&Value>, cwd: &str) -> Vec<FileEdit> {
    let path = text(input, &PATH_KEYS);
    let at = |kind| path.map(|p| FileEdit::new(p, kind, cwd));
    let replaced = |kind| {
        at(kind).map(|edit| edit.with(text(input, &OLD_KEYS).unwrap_or(""), text(input, &NEW_KEYS).unwrap_or("")))
    };
    let whole = |kind| at(kind).map(|edit| edit.with("", text(input, &CONTENT_KEYS).unwrap_or("")));
    let one = |edit: Option<FileEdit>| edit.into_iter().collect::<Vec<_>>();
    match name {
        // Claude Code's Edit (and Aider's blocks), Gemini CLI's replace, Cursor's search_replace
        // and StrReplace, Amp's edit_file, and the `edit` of Qwen Code, Pi, Copilot CLI and
        // OpenCode.
        "Edit" | "replace" | "search_replace" | "StrReplace" | "edit" => one(replaced(ChangeKind::Edit)),
        "edit_file" if text(input, &OLD_KEYS).is_some() => one(replaced(ChangeKind::Edit)),
        // Cursor IDE's edit_file: the new code, with the rest of the file elided.
        "edit_file" => one(whole(ChangeKind::Edit)),
        "MultiEdit" | "multiedit" => {
            let Some(mut edit) = at(ChangeKind::Edit) else { return Vec::new() };
            for step in input.get("edits").and_then(Value::as_array).into_iter().flatten() {
                edit = edit.with(text(step, &OLD_KEYS).unwrap_or(""), text(step, &NEW_KEYS).unwrap_or(""));
            }
            vec![edit]
        }
        "Write" | "write" | "write_file" | "write_to_file" => {
            let created = result.and_then(|r| r.get("type")).and_then(Value::as_str) == Some("create");
            one(whole(if created { ChangeKind::Create } else { ChangeKind::Write }))
        }
        "create" | "create_file" => one(whole(ChangeKind::Create)),
        "NotebookEdit" => {
            let kind = match input.get("edit_mode").and_then(Value::as_str) {
                Some("insert") => ChangeKind::Edit,
                Some("delete") => return one(at(ChangeKind::Edit).map(|e| e.with("(a cell)", ""))),
                _ => ChangeKind::Edit,
            };
            one(whole(kind))
        }
        "str_replace_editor" => match input.get("command").and_then(Value::as_str) {
            Some("create") => one(whole(ChangeKind::Create)),
            Some("str_replace") => one(replaced(ChangeKind::Edit)),
            Some("insert") => one(at(ChangeKind::Edit).map(|e| e.with("", text(input, &NEW_KEYS).unwrap_or("")))),
            _ => Vec::new(),
        },
        "insert_content" => one(whole(ChangeKind::Edit)),
        "search_and_replace" => one(replaced(ChangeKind::Edit)),
        // Cline's replace_in_file and Roo Code's apply_diff: SEARCH/REPLACE blocks.
        "replace_in_file" | "apply_diff" => {
            let Some(mut edit) = at(ChangeKind::Edit) else { return Vec::new() };
            edit.hunks = search_replace_blocks(text(input, &["diff"]).unwrap_or(""));
            vec![edit]
        }
        "Delete" | "delete_file" => one(at(ChangeKind::Delete)),
        "apply_patch" | "patch" => {
            let patch = input.as_str().or_else(|| text(input, &["input", "patchText", "patch"])).unwrap_or("");
            patch_edits(patch, cwd)
        }
        // Codex SDK: the files a `file_change` item changed, without their text.
        "file_change" => input
            .get("changes")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|change| {
                let kind = match change.get("kind").and_then(Value::as_str) {
                    Some("add") => ChangeKind::Create,
                    Some("delete") => ChangeKind::Delete,
                    _ => ChangeKind::Edit,
                };
                Some(FileEdit::new(change.get("path")?.as_str()?, kind, cwd))
            })
            .collect(),
        _ if is_shell_tool(name) => shell_edits(&command_of(input), cwd),
        _ => Vec::new(),
    }
}

/// Tools that run a shell command.
pub fn is_shell_tool(name: &str) -> bool {
    matches!(
        name,
        "Bash"
            | "bash"
            | "PowerShell"
            | "powershell"
            | "shell"
            | "local_shell"
            | "shell_command"
            | "container.exec"
            | "command_execution"
            | "exec_command"
            | "run_shell_command"
            | "execute_command"
            | "Shell"
            | "run_terminal_cmd"
    )
}

/// The command of a shell call: a string, or an argv (`bash -lc <script>` as its script;
/// `apply_patch <patch>` as it is).
fn command_of(input: &Value) -> String {
    let command = input.get("command").or_else(|| input.get("cmd")).unwrap_or(input);
    if let Some(text) = command.as_str() {
        return text.to_owned();
    }
    let args: Vec<&str> = command.as_array().into_iter().flatten().filter_map(Value::as_str).collect();
    match args.as_slice() {
        [shell, flag, script] if shell.ends_with("sh") && matches!(*flag, "-lc" | "-c") => (*script).to_owned(),
        ["apply_patch", patch] => format!("apply_patch <<'EOF'\n{patch}\nEOF"),
        _ => args.join(" "),
    }
}

/// The SEARCH/REPLACE blocks of a Cline or Roo Code diff, as `(old, new)` pairs. Roo Code's
/// `:start_line:` and `-------` lines are not part of the text.
pub fn search_replace_blocks(diff: &str) -> Vec<(String, String)> {
    let mut hunks = Vec::new();
    let mut lines = diff.lines();
    while let Some(line) = lines.next() {
        if !line.trim_start().starts_with("<<<<<<< SEARCH") {
            continue;
        }
        let (mut old, mut new) = (Vec::new(), Vec::new());
        let mut in_new = false;
        for line in lines.by_ref() {
            let trimmed = line.trim();
            if trimmed.starts_with(">>>>>>> REPLACE") {
                break;
            }
            if trimmed == "=======" && !in_new {
                in_new = true;
            } else if in_new {
                new.push(line);
            } else if !(trimmed.starts_with(":start_line:")
                || trimmed.starts_with(":end_line:")
                || trimmed == "-------")
            {
                old.push(line);
            }
        }
        hunks.push((old.join("\n"), new.join("\n")));
    }
    hunks
}

/// The changes of an `apply_patch` patch (Codex's, and OpenCode's `patch`): every file it adds,
/// updates, moves or deletes, with each update's hunks as `(old, new)`: context and removed
/// lines, context and added lines.
pub fn patch_edits(patch: &str, cwd: &str) -> Vec<FileEdit> {
    let mut edits: Vec<FileEdit> = Vec::new();
    let (mut old, mut new): (Vec<&str>, Vec<&str>) = (Vec::new(), Vec::new());
    let flush = |edits: &mut Vec<FileEdit>, old: &mut Vec<&str>, new: &mut Vec<&str>| {
        if let Some(edit) = edits.last_mut()
            && (!old.is_empty() || !new.is_empty())
        {
            edit.hunks.push((old.join("\n"), new.join("\n")));
        }
        old.clear();
        new.clear();
    };
    for line in patch.lines() {
        let file = |prefix: &str| line.strip_prefix(prefix).map(str::trim);
        if let Some(path) = file("*** Add File: ") {
            flush(&mut edits, &mut old, &mut new);
            edits.push(FileEdit::new(path, ChangeKind::Create, cwd));
        } else if let Some(path) = file("*** Update File: ") {
            flush(&mut edits, &mut old, &mut new);
            edits.push(FileEdit::new(path, ChangeKind::Edit, cwd));
        } else if let Some(path) = file("*** Delete File: ") {
            flush(&mut edits, &mut old, &mut new);
            edits.push(FileEdit::new(path, ChangeKind::Delete, cwd));
        } else if let Some(path) = file("*** Move to: ") {
            if let Some(edit) = edits.last_mut() {
                edit.kind = ChangeKind::Move;
                edit.to = Some(relative_path(path, cwd));
            }
        } else if line.starts_with("@@") || line.starts_with("*** End") || line.starts_with("*** Begin") {
            flush(&mut edits, &mut old, &mut new);
        } else if edits.is_empty() {
            continue;
        } else if let Some(added) = line.strip_prefix('+') {
            new.push(added);
        } else if let Some(removed) = line.strip_prefix('-') {
            old.push(removed);
        } else {
            let context = line.strip_prefix(' ').unwrap_or(line);
            old.push(context);
            new.push(context);
        }
    }
    flush(&mut edits, &mut old, &mut new);
    edits
}

/// The files a shell command writes, moves or removes, where it says so plainly: output
/// redirected to a file (`>`, `>>`), `tee`, `sed -i`, `cp`, `mv`, `rm`, `touch`, and patches
/// applied with `apply_patch`. Anything it runs otherwise is not looked into.
pub fn shell_edits(command: &str, cwd: &str) -> Vec<FileEdit> {
    let mut edits = Vec::new();
    // A patch run in a shell (Codex: `apply_patch <<'EOF' … EOF`) is read as the patch.
    if let Some(at) = command.find("*** Begin Patch") {
        let end = command[at..].find("*** End Patch").map_or(command.len(), |e| at + e + "*** End Patch".len());
        edits.extend(patch_edits(&command[at..end], cwd));
    }
    for simple in simple_commands(command) {
        let words = words(simple);
        let mut args: Vec<&str> = Vec::new();
        let mut iter = words.iter().map(String::as_str).peekable();
        while let Some(word) = iter.next() {
            let target = match word {
                ">" | ">>" | ">|" => iter.next(),
                _ if word.starts_with(">>") && word.len() > 2 => Some(&word[2..]),
                _ if word.starts_with('>') && word.len() > 1 && !word.starts_with(">&") => Some(&word[1..]),
                _ => {
                    // File descriptors redirected (`2>&1`, `2>/dev/null`) are not files written.
                    if word.contains(">") && word.chars().next().is_some_and(|c| c.is_ascii_digit() || c == '&') {
                        if word.ends_with('>') {
                            iter.next();
                        }
                    } else {
                        args.push(word);
                    }
                    continue;
                }
            };
            if let Some(target) = target.filter(|t| is_file_word(t)) {
                edits.push(FileEdit::new(target, ChangeKind::Write, cwd));
            }
        }
        let Some((program, rest)) = args.split_first() else { continue };
        let operands: Vec<&str> = rest.iter().copied().filter(|a| !a.starts_with('-')).collect();
        let files = || operands.iter().copied().filter(|f| is_file_word(f));
        match program.rsplit('/').next().unwrap_or(program) {
            "rm" | "unlink" => edits.extend(files().map(|f| FileEdit::new(f, ChangeKind::Delete, cwd))),
            "touch" => edits.extend(files().map(|f| FileEdit::new(f, ChangeKind::Create, cwd))),
            "tee" => edits.extend(files().map(|f| FileEdit::new(f, ChangeKind::Write, cwd))),
            "sed" | "perl" if rest.iter().any(|a| a.starts_with("-i") || a.starts_with("-pi")) => {
                // The script is the first operand (unless given with -e); the rest are files.
                let scripted = rest.contains(&"-e");
                let skip = if scripted { 0 } else { 1 };
                edits.extend(files().skip(skip).map(|f| FileEdit::new(f, ChangeKind::Edit, cwd)));
            }
            "mv" if operands.len() == 2 && files().count() == 2 => {
                let mut edit = FileEdit::new(operands[0], ChangeKind::Move, cwd);
                edit.to = Some(relative_path(operands[1], cwd));
                edits.push(edit);
            }
            "cp" if operands.len() == 2 && files().count() == 2 => {
                edits.push(FileEdit::new(operands[1], ChangeKind::Write, cwd));
            }
            _ => {}
        }
    }
    edits
}

/// Whether a shell word names a file: not a device, a variable, a glob or a flag.
fn is_file_word(word: &str) -> bool {
    !word.is_empty()
        && !word.starts_with("/dev/")
        && !word.starts_with('-')
        && !word.contains(['$', '*', '?', '`', '(', ')', '{', '}', '&', '|', ';', '<'])
}

/// The simple commands of a command line: split at `;`, `&&`, `||`, `|` and newlines outside
/// quotes; a heredoc's body is left out.
fn simple_commands(command: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let bytes = command.as_bytes();
    let (mut start, mut i) = (0, 0);
    let mut quote: Option<u8> = None;
    let mut heredoc: Option<String> = None;
    while i < bytes.len() {
        let c = bytes[i];
        if let Some(q) = quote {
            if c == q {
                quote = None;
            } else if c == b'\\' && q == b'"' {
                i += 1;
            }
            i += 1;
            continue;
        }
        match c {
            b'\'' | b'"' => quote = Some(c),
            b'<' if bytes.get(i + 1) == Some(&b'<') => {
                // `<<'EOF'`, `<<"EOF"`, `<<-EOF`, `<<EOF`: the body runs to a line that is the word.
                let rest = &command[i + 2..];
                let rest = rest.trim_start_matches('-').trim_start();
                let word: String = rest
                    .chars()
                    .skip_while(|c| *c == '\'' || *c == '"')
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !word.is_empty() {
                    heredoc = Some(word);
                }
            }
            b'\n' | b';' | b'|' | b'&' => {
                let two = matches!((c, bytes.get(i + 1)), (b'&', Some(b'&')) | (b'|', Some(b'|')));
                // A single `&` is a redirection's (`2>&1`, `&>`) or runs in the background.
                let ends = c != b'&' || two || bytes.get(i + 1).is_none_or(|n| *n == b' ' || *n == b'\n');
                if ends && !(c == b'&' && i > 0 && bytes[i - 1] == b'>') {
                    out.push(&command[start..i]);
                    i += if two { 2 } else { 1 };
                    start = i;
                    if c == b'\n'
                        && let Some(word) = heredoc.take()
                    {
                        // Skip the heredoc's body, to the line that is its word.
                        let mut at = start;
                        loop {
                            let end = command[at..].find('\n').map_or(command.len(), |e| at + e);
                            if command[at..end].trim() == word || end >= command.len() {
                                at = (end + 1).min(command.len());
                                break;
                            }
                            at = end + 1;
                        }
                        start = at;
                        i = at;
                    }
                    continue;
                }
            }
            _ => {}
        }
        i += 1;
    }
    out.push(&command[start..]);
    out.into_iter().map(str::trim).filter(|c| !c.is_empty()).collect()
}

/// The words of a simple command, quotes taken off (a heredoc's marker left out).
fn words(command: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = command.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' | '"' => {
                in_word = true;
                for inner in chars.by_ref() {
                    if inner == c {
                        break;
                    }
                    word.push(inner);
                }
            }
            '\\' => {
                if let Some(next) = chars.next() {
                    word.push(next);
                    in_word = true;
                }
            }
            ' ' | '\t' => {
                if in_word {
                    out.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            _ => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        out.push(word);
    }
    // `<<EOF` and what follows it on the line is the heredoc's, not the command's.
    if let Some(at) = out.iter().position(|w| w.starts_with("<<")) {
        out.truncate(at);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A value, written as in `serde_json::json!`.
    macro_rules! json {
        ($($value:tt)+) => {
            crate::small_json::parse(&serde_json::to_vec(&serde_json::json!($($value)+)).unwrap()).unwrap()
        };
    }

    /// A file edit as the tests write it: path, kind and (old, new) hunks.
    type Seen = (String, ChangeKind, Vec<(String, String)>);

    fn edits(name: &str, input: Value) -> Vec<Seen> {
        edits_of(name, &input, None, "/p").into_iter().map(|e| (e.path, e.kind, e.hunks)).collect()
    }

    fn pair(old: &str, new: &str) -> Vec<(String, String)> {
        vec![(old.to_owned(), new.to_owned())]
    }

    #[test]
    fn every_agent_s_edit_tools_give_their_file_and_text() {
        use ChangeKind::*;
        let p = || "src/lib.rs".to_owned();
        // Claude Code (and Aider's blocks, read as Edit calls).
        let edit = json!({"file_path": "/p/src/lib.rs", "old_string": "a", "new_string": "b"});
        assert_eq!(edits("Edit", edit), vec![(p(), Edit, pair("a", "b"))]);
        let multi = json!({"file_path": "/p/src/lib.rs", "edits": [{"old_string": "a", "new_string": "b"}, {"old_string": "c", "new_string": "d"}]});
        assert_eq!(edits("MultiEdit", multi)[0].2, vec![("a".into(), "b".into()), ("c".into(), "d".into())]);
        assert_eq!(
            edits("Write", json!({"file_path": "/p/src/lib.rs", "content": "x"})),
            vec![(p(), Write, pair("", "x"))]
        );
        let created = edits_of(
            "Write",
            &json!({"file_path": "/p/new.rs", "content": "x"}),
            Some(&json!({"type": "create"})),
            "/p",
        );
        assert_eq!(created[0].kind, Create);
        // Gemini CLI and Qwen Code.
        assert_eq!(
            edits("replace", json!({"file_path": "/p/src/lib.rs", "old_string": "a", "new_string": "b"})),
            vec![(p(), Edit, pair("a", "b"))]
        );
        assert_eq!(edits("write_file", json!({"file_path": "/p/src/lib.rs", "content": "x"}))[0].1, Write);
        // Copilot CLI.
        assert_eq!(
            edits("edit", json!({"path": "/p/src/lib.rs", "old_str": "a", "new_str": "b"})),
            vec![(p(), Edit, pair("a", "b"))]
        );
        assert_eq!(
            edits("create", json!({"path": "/p/src/lib.rs", "file_text": "x"})),
            vec![(p(), Create, pair("", "x"))]
        );
        assert_eq!(
            edits(
                "str_replace_editor",
                json!({"command": "str_replace", "path": "/p/src/lib.rs", "old_str": "a", "new_str": "b"})
            )[0]
            .2,
            pair("a", "b")
        );
        // Pi.
        assert_eq!(
            edits("edit", json!({"path": "/p/src/lib.rs", "oldText": "a", "newText": "b"}))[0].2,
            pair("a", "b")
        );
        // OpenCode.
        assert_eq!(
            edits("edit", json!({"filePath": "/p/src/lib.rs", "oldString": "a", "newString": "b"})),
            vec![(p(), Edit, pair("a", "b"))]
        );
        assert_eq!(
            edits("multiedit", json!({"filePath": "/p/src/lib.rs", "edits": [{"oldString": "a", "newString": "b"}]}))
                [0]
            .2,
            pair("a", "b")
        );
        // Cline and Roo Code.
        let diff = "<<<<<<< SEARCH\n:start_line:3\n-------\nold line\n=======\nnew line\n>>>>>>> REPLACE\n";
        assert_eq!(
            edits("apply_diff", json!({"path": "src/lib.rs", "diff": diff})),
            vec![(p(), Edit, pair("old line", "new line"))]
        );
        let cline = "<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n<<<<<<< SEARCH\nc\n=======\nd\n>>>>>>> REPLACE";
        assert_eq!(edits("replace_in_file", json!({"path": "src/lib.rs", "diff": cline}))[0].2.len(), 2);
        assert_eq!(edits("write_to_file", json!({"path": "src/lib.rs", "content": "x"}))[0].1, Write);
        // Cursor CLI and IDE, Amp.
        assert_eq!(
            edits("StrReplace", json!({"path": "/p/src/lib.rs", "old_string": "a", "new_string": "b"}))[0].2,
            pair("a", "b")
        );
        assert_eq!(edits("Delete", json!({"path": "/p/src/lib.rs"})), vec![(p(), Delete, Vec::new())]);
        assert_eq!(edits("delete_file", json!({"target_file": "src/lib.rs"}))[0].1, Delete);
        assert_eq!(
            edits("edit_file", json!({"path": "/p/src/lib.rs", "old_str": "a", "new_str": "b"}))[0].2,
            pair("a", "b")
        );
        assert_eq!(edits("create_file", json!({"path": "/p/src/lib.rs", "content": "x"}))[0].1, Create);
        // Tools that change nothing.
        assert!(edits("Read", json!({"file_path": "/p/src/lib.rs"})).is_empty());
        assert!(edits("Grep", json!({"pattern": "x"})).is_empty());
    }

    #[test]
    fn a_patch_gives_each_file_it_adds_updates_moves_or_deletes_with_its_hunks() {
        let patch = "*** Begin Patch\n*** Update File: /p/src/a.rs\n@@ fn main\n keep\n-old\n+new\n keep2\n@@\n-x\n+y\n*** Add File: src/b.rs\n+fresh\n+lines\n*** Delete File: src/c.rs\n*** Update File: src/d.rs\n*** Move to: src/e.rs\n@@\n-1\n+2\n*** End Patch";
        let got = patch_edits(patch, "/p");
        let kinds: Vec<(&str, ChangeKind)> = got.iter().map(|e| (e.path.as_str(), e.kind)).collect();
        assert_eq!(
            kinds,
            [
                ("src/a.rs", ChangeKind::Edit),
                ("src/b.rs", ChangeKind::Create),
                ("src/c.rs", ChangeKind::Delete),
                ("src/d.rs", ChangeKind::Move)
            ]
        );
        assert_eq!(
            got[0].hunks,
            vec![("keep\nold\nkeep2".into(), "keep\nnew\nkeep2".into()), ("x".into(), "y".into())]
        );
        assert_eq!(got[1].hunks, vec![(String::new(), "fresh\nlines".into())]);
        assert_eq!(got[3].to.as_deref(), Some("src/e.rs"));
        assert_eq!(got[0].lines(), (2, 2));
        // Run in a shell, as Codex does, and as a tool.
        let shell = json!({"command": ["apply_patch", patch]});
        assert_eq!(edits_of("shell", &shell, None, "/p").len(), 4);
        let heredoc = json!({"command": ["bash", "-lc", format!("apply_patch <<'EOF'\n{patch}\nEOF")]});
        assert_eq!(edits_of("shell", &heredoc, None, "/p").len(), 4);
        assert_eq!(edits_of("apply_patch", &json!({"input": patch}), None, "/p").len(), 4);
    }

    #[test]
    fn shell_writes_moves_and_removals_are_recognised_and_nothing_else() {
        let files = |command: &str| -> Vec<(String, ChangeKind, Option<String>)> {
            shell_edits(command, "/p").into_iter().map(|e| (e.path, e.kind, e.to)).collect()
        };
        use ChangeKind::*;
        assert_eq!(files("echo hi > notes.txt"), [("notes.txt".into(), Write, None)]);
        assert_eq!(files("cat >> /p/log.md <<'EOF'\nline > not.a.file\nEOF"), [("log.md".into(), Write, None)]);
        assert_eq!(files("cargo test 2>&1 | tee out.log"), [("out.log".into(), Write, None)]);
        assert_eq!(
            files("sed -i 's/a/b/' src/lib.rs src/main.rs"),
            [("src/lib.rs".into(), Edit, None), ("src/main.rs".into(), Edit, None)]
        );
        assert_eq!(
            files("mv old.rs new.rs && rm -f tmp.txt"),
            [("old.rs".into(), Move, Some("new.rs".into())), ("tmp.txt".into(), Delete, None)]
        );
        assert_eq!(
            files("touch a.txt; cp a.txt b.txt"),
            [("a.txt".into(), Create, None), ("b.txt".into(), Write, None)]
        );
        for nothing in [
            "cargo build 2>/dev/null",
            "ls -la > /dev/null",
            "echo $X > $OUT",
            "grep -r foo src",
            "git diff > *.patch",
            "echo 'a > b'",
        ] {
            assert!(files(nothing).is_empty(), "{nothing}: {:?}", files(nothing));
        }
    }
}
