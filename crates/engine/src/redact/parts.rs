//! Parts of other agents' records that a share can leave out ([`DropParts`]), format by format:
//! where each keeps its thinking, the output of its tools, its images and its metadata (working
//! directory, git branch, version). A part left out is taken out of the record, or replaced by a
//! short text where the record needs the field to be read (a tool result stays a result, so its
//! call keeps it); a record that is nothing but a part left out (a Codex reasoning item, an
//! output delta) is left out whole. Claude Code's own lines (and the formats written like them)
//! are handled by `drop_parts` in the module above.

use super::json::{JStr, Val};
use super::{DropParts, IMAGE_REMOVED, METADATA_KEYS, TOOL_RESULT_REMOVED};
use crate::model::Format;

/// What a format's record becomes: kept (changed in place), or left out whole.
pub(super) enum Record {
    Keep,
    LeaveOut,
}

fn removed() -> Val<'static> {
    Val::Str(JStr::new(TOOL_RESULT_REMOVED.into()))
}

fn text(s: &str) -> Val<'static> {
    Val::Str(JStr::new(s.into()))
}

fn obj(entries: Vec<(&str, Val<'static>)>) -> Val<'static> {
    Val::Obj(entries.into_iter().map(|(k, v)| (JStr::new(k.into()), v)).collect())
}

/// Sets `key` of `v` (an object) to `value` when it is there.
fn replace(v: &mut Val, key: &str, value: Val<'static>) {
    if let Some(x) = v.get_mut(key) {
        *x = value;
    }
}

/// Replaces a string (or any non-null value) under `key` by the removal text.
fn replace_output(v: &mut Val, key: &str) {
    if let Some(x) = v.get_mut(key)
        && !matches!(x, Val::Null)
    {
        *x = removed();
    }
}

fn ty<'v>(v: &'v Val) -> Option<&'v str> {
    v.get("type").and_then(Val::as_str)
}

fn items<'v, 'a>(v: &'v mut Val<'a>) -> Option<&'v mut Vec<Val<'a>>> {
    match v {
        Val::Arr(items) => Some(items),
        _ => None,
    }
}

/// Applies the parts of a record of `format`; `None` for a format whose records this does not
/// know (Claude Code's, done by the caller).
pub(super) fn leave_out(v: &mut Val, p: &DropParts, format: Format) -> Option<Record> {
    let record = match format {
        Format::Pi => pi(v, p),
        Format::CopilotCli => copilot(v, p),
        Format::CodexRollout => codex_rollout(v, p),
        Format::CodexEvents => codex_events(v, p),
        Format::GeminiCli => gemini(v, p),
        Format::QwenCode => qwen(v, p),
        Format::Cline | Format::RooCode => task_document(v, p),
        Format::Amp => amp(v, p),
        Format::OpenCode => opencode(v, p),
        _ => return None,
    };
    Some(record)
}

/// Anthropic-style content blocks (Pi, Amp, Cline, Roo Code): thinking blocks out, images as
/// text, tool results' content replaced.
fn blocks(content: &mut Val, p: &DropParts) {
    let Some(list) = items(content) else { return };
    if p.thinking {
        list.retain(|b| !matches!(ty(b), Some("thinking" | "redacted_thinking" | "reasoning")));
    }
    for b in list.iter_mut() {
        match ty(b) {
            Some("image") if p.images => *b = obj(vec![("type", text("text")), ("text", text(IMAGE_REMOVED))]),
            Some("tool_result") if p.tool_results => match b.get_mut("content") {
                Some(c) => *c = removed(),
                None => {
                    if let Val::Obj(entries) = b {
                        entries.push((JStr::new("content".into()), removed()));
                    }
                }
            },
            _ => {}
        }
    }
}

/// Pi: `message.content` blocks (`thinking`, `image`), a `toolResult` message's content, the
/// header's `cwd` (emptied).
fn pi(v: &mut Val, p: &DropParts) -> Record {
    // The header is told by its `cwd`: emptied, not taken out.
    if p.metadata {
        replace(v, "cwd", text(""));
    }
    let Some(message) = v.get_mut("message") else { return Record::Keep };
    let tool_result = message.get("role").and_then(Val::as_str) == Some("toolResult");
    if tool_result && p.tool_results {
        replace(message, "content", Val::Arr(vec![obj(vec![("type", text("text")), ("text", removed())])]));
        message.remove_keys(&["details"]);
    }
    if let Some(content) = message.get_mut("content") {
        blocks(content, p);
    }
    Record::Keep
}

/// GitHub Copilot CLI: an assistant message's `reasoningText` and `reasoningOpaque`, reasoning
/// events, a tool's `result` (and partial output), the session's `context` (cwd, git root and
/// branch, repository) and versions.
fn copilot(v: &mut Val, p: &DropParts) -> Record {
    let kind = ty(v).unwrap_or("").to_owned();
    if p.thinking && kind.starts_with("assistant.reasoning") {
        return Record::LeaveOut;
    }
    if p.tool_results && kind == "tool.execution_partial_result" {
        return Record::LeaveOut;
    }
    let Some(data) = v.get_mut("data") else { return Record::Keep };
    if p.thinking {
        data.remove_keys(&["reasoningText", "reasoningOpaque", "encryptedContent"]);
    }
    if p.tool_results && kind.starts_with("tool.execution") {
        if let Some(result) = data.get_mut("result") {
            if matches!(result, Val::Obj(_)) {
                replace(result, "content", removed());
                replace(result, "detailedContent", removed());
                result.remove_keys(&["contents"]);
            } else if !matches!(result, Val::Null) {
                *result = removed();
            }
        }
        replace_output(data, "partialOutput");
    }
    if p.metadata {
        data.remove_keys(&["context", "copilotVersion"]);
    }
    Record::Keep
}

/// Codex CLI rollouts: reasoning items and events (left out whole), the output of function,
/// custom and shell calls, the output of command, patch and MCP events (deltas left out whole),
/// input images, and the session's and turns' `cwd`, git and CLI version.
fn codex_rollout(v: &mut Val, p: &DropParts) -> Record {
    let Some(payload) = v.get_mut("payload") else { return Record::Keep };
    let kind = ty(payload).unwrap_or("").to_owned();
    if p.thinking && (kind == "reasoning" || kind.starts_with("agent_reasoning")) {
        return Record::LeaveOut;
    }
    if p.tool_results {
        match kind.as_str() {
            "function_call_output" | "custom_tool_call_output" | "local_shell_call_output" => {
                replace_output(payload, "output")
            }
            "exec_command_output_delta" | "terminal_interaction" => return Record::LeaveOut,
            "exec_command_end" | "patch_apply_end" | "user_shell_command_end" => {
                for key in ["stdout", "stderr", "aggregated_output", "formatted_output", "output"] {
                    replace_output(payload, key);
                }
            }
            "mcp_tool_call_end" => replace_output(payload, "result"),
            _ => {}
        }
    }
    if p.images
        && let Some(content) = payload.get_mut("content")
        && let Some(list) = items(content)
    {
        for b in list.iter_mut() {
            if ty(b) == Some("input_image") {
                *b = obj(vec![("type", text("input_text")), ("text", text(IMAGE_REMOVED))]);
            }
        }
    }
    if p.metadata {
        payload.remove_keys(&["cwd", "git", "cli_version"]);
    }
    Record::Keep
}

/// Codex SDK thread events: reasoning items (left out whole), a command's aggregated output and
/// an MCP call's result, and the `cwd` of the query line.
fn codex_events(v: &mut Val, p: &DropParts) -> Record {
    if p.metadata {
        v.remove_keys(&["cwd"]);
    }
    let Some(item) = v.get_mut("item") else { return Record::Keep };
    if p.thinking && ty(item) == Some("reasoning") {
        return Record::LeaveOut;
    }
    if p.tool_results {
        match ty(item) {
            Some("command_execution")
                if item.get("aggregated_output").and_then(Val::as_str).is_some_and(|o| !o.is_empty()) =>
            {
                replace(item, "aggregated_output", removed());
            }
            Some("mcp_tool_call") => replace_output(item, "result"),
            _ => {}
        }
    }
    Record::Keep
}

/// Gemini API Parts (Gemini CLI, Qwen Code): `thought` parts out, a `functionResponse`'s
/// response replaced, inline images as text.
fn parts(list: &mut Val, p: &DropParts) {
    let Some(list) = items(list) else { return };
    if p.thinking {
        list.retain(|part| !matches!(part.get("thought"), Some(Val::Bool(true))));
    }
    for part in list.iter_mut() {
        if p.tool_results
            && let Some(response) = part.get_mut("functionResponse")
        {
            replace(response, "response", obj(vec![("output", removed())]));
        }
        if p.images && (part.get("inlineData").is_some() || part.get("fileData").is_some()) {
            *part = obj(vec![("text", text(IMAGE_REMOVED))]);
        }
    }
}

/// A Gemini CLI message: its `thoughts`, its content's Parts, its tool calls' results and what
/// they display.
fn gemini_message(m: &mut Val, p: &DropParts) {
    if p.thinking {
        m.remove_keys(&["thoughts"]);
    }
    if let Some(content) = m.get_mut("content") {
        parts(content, p);
    }
    if let Some(calls) = m.get_mut("toolCalls").and_then(items) {
        for call in calls.iter_mut() {
            if p.tool_results {
                replace_output(call, "resultDisplay");
            }
            if let Some(result) = call.get_mut("result") {
                parts(result, p);
            }
        }
    }
}

/// Gemini CLI: a legacy document (one object with `messages`) or a line of the newer JSON Lines
/// (a message, or a `$set` whose `messages` rewrite the history).
fn gemini(v: &mut Val, p: &DropParts) -> Record {
    if p.metadata {
        v.remove_keys(&["directories"]);
    }
    if let Some(messages) = v.get_mut("messages").and_then(items) {
        messages.iter_mut().for_each(|m| gemini_message(m, p));
    }
    if let Some(set) = v.get_mut("$set") {
        if p.metadata {
            set.remove_keys(&["directories"]);
        }
        if let Some(messages) = set.get_mut("messages").and_then(items) {
            messages.iter_mut().for_each(|m| gemini_message(m, p));
        }
    }
    if v.get("id").is_some() {
        gemini_message(v, p);
    }
    Record::Keep
}

/// Qwen Code: a record's Parts, what a tool's result displays, its metadata keys (and the
/// compressed history a compression record keeps).
fn qwen(v: &mut Val, p: &DropParts) -> Record {
    if p.metadata {
        v.remove_keys(METADATA_KEYS);
    }
    if let Some(message) = v.get_mut("message")
        && let Some(list) = message.get_mut("parts")
    {
        parts(list, p);
    }
    if p.tool_results
        && let Some(result) = v.get_mut("toolCallResult")
    {
        replace_output(result, "resultDisplay");
        replace_output(result, "responseParts");
    }
    if let Some(history) = v.get_mut("systemPayload").and_then(|s| s.get_mut("compressedHistory")).and_then(items) {
        for content in history.iter_mut() {
            if let Some(list) = content.get_mut("parts") {
                parts(list, p);
            }
        }
    }
    Record::Keep
}

/// The text of a Roo Code response without its `<thinking>` sections.
fn without_thinking(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(open) = rest.find("<thinking>") {
        out.push_str(&rest[..open]);
        rest = match rest[open..].find("</thinking>") {
            Some(close) => &rest[open + close + "</thinking>".len()..],
            None => "",
        };
    }
    out.push_str(rest);
    out
}

/// Whether a text opens with Cline's and Roo Code's `[tool …] Result:` header.
fn result_header(s: &str) -> Option<usize> {
    let first = s.split('\n').next()?;
    (s.starts_with('[') && first.contains("] Result:")).then(|| first.find("] Result:").map_or(0, |i| i + 9))
}

/// A message of a task's API history: thinking blocks and Roo Code's `<thinking>` sections, tool
/// results (native blocks, and Roo Code's `[tool] Result:` texts with the texts after them).
fn api_message(m: &mut Val, p: &DropParts) {
    let assistant = m.get("role").and_then(Val::as_str) == Some("assistant");
    let Some(content) = m.get_mut("content") else { return };
    if let Val::Str(s) = content {
        if assistant && p.thinking && s.text().contains("<thinking>") {
            let text = without_thinking(s.text());
            s.set(text);
        } else if !assistant
            && p.tool_results
            && let Some(at) = result_header(s.text())
        {
            let text = format!("{} {TOOL_RESULT_REMOVED}", &s.text()[..at]);
            s.set(text);
        }
        return;
    }
    blocks(content, p);
    let Some(list) = items(content) else { return };
    let mut in_result = false;
    for b in list.iter_mut() {
        let Some(Val::Str(s)) = b.get_mut("text") else {
            in_result = false;
            continue;
        };
        if assistant {
            if p.thinking && s.text().contains("<thinking>") {
                let text = without_thinking(s.text());
                s.set(text);
            }
            continue;
        }
        if !p.tool_results {
            continue;
        }
        if let Some(at) = result_header(s.text()) {
            let text = format!("{} {TOOL_RESULT_REMOVED}", &s.text()[..at]);
            s.set(text);
            in_result = true;
        } else if s.text().trim_start().starts_with("<environment_details>") {
            in_result = false;
        } else if in_result {
            s.set(TOOL_RESULT_REMOVED.into());
        }
    }
}

/// A UI message of a task: reasoning left out; the output of commands, MCP servers and subtasks
/// replaced; the request an API request carries (the tool results it sent) taken out of it.
fn ui_message(m: &mut Val, p: &DropParts) -> bool {
    let what = m.get("say").or_else(|| m.get("ask")).and_then(Val::as_str).unwrap_or("").to_owned();
    if p.thinking && what == "reasoning" {
        return false;
    }
    if p.tool_results {
        match what.as_str() {
            "command_output" | "mcp_server_response" | "subtask_result" | "browser_action_result" => {
                replace_output(m, "text")
            }
            "api_req_started" => {
                if let Some(Val::Str(s)) = m.get_mut("text")
                    && let Ok(mut info) = serde_json::from_str::<serde_json::Value>(s.text())
                    && let Some(object) = info.as_object_mut()
                    && object.remove("request").is_some()
                {
                    s.set(info.to_string());
                }
            }
            _ => {}
        }
    }
    if p.images {
        m.remove_keys(&["images"]);
    }
    true
}

/// A Cline or Roo Code task file, read whole: the API history (an array of messages), the UI
/// messages (an array), or a metadata object (its `workspace` is the working directory).
fn task_document(v: &mut Val, p: &DropParts) -> Record {
    match v {
        Val::Arr(list) => {
            let ui = list.iter().any(|m| m.get("ts").is_some() && (m.get("say").is_some() || m.get("ask").is_some()));
            if ui {
                list.retain_mut(|m| ui_message(m, p));
            } else {
                list.iter_mut().for_each(|m| api_message(m, p));
            }
        }
        Val::Obj(_) if p.metadata => v.remove_keys(&["workspace", "cwd"]),
        _ => {}
    }
    Record::Keep
}

/// An Amp thread: its messages' blocks (a tool result's `run` keeps its status), and its
/// environment (the trees of the working directory).
fn amp(v: &mut Val, p: &DropParts) -> Record {
    if p.metadata {
        v.remove_keys(&["env"]);
    }
    let Some(messages) = v.get_mut("messages").and_then(items) else { return Record::Keep };
    for m in messages.iter_mut() {
        let Some(content) = m.get_mut("content") else { continue };
        if let Some(list) = items(content) {
            if p.thinking {
                list.retain(|b| !matches!(ty(b), Some("thinking" | "redacted_thinking")));
            }
            for b in list.iter_mut() {
                match ty(b) {
                    Some("tool_result") if p.tool_results => {
                        if let Some(run) = b.get_mut("run") {
                            for key in ["result", "progress"] {
                                replace_output(run, key);
                            }
                            if let Some(error) = run.get_mut("error") {
                                replace(error, "message", removed());
                            }
                        }
                    }
                    Some("image") if p.images => {
                        *b = obj(vec![("type", text("text")), ("text", text(IMAGE_REMOVED))]);
                    }
                    _ => {}
                }
            }
        }
    }
    Record::Keep
}

/// An OpenCode record stream: a reasoning part (left out whole), a tool part's output, a
/// session row's directory.
fn opencode(v: &mut Val, p: &DropParts) -> Record {
    let table = v.get("table").and_then(Val::as_str).unwrap_or("").to_owned();
    if p.metadata && table == "session" {
        v.remove_keys(&["directory"]);
    }
    let Some(data) = v.get_mut("data") else { return Record::Keep };
    match ty(data) {
        Some("reasoning") if p.thinking => return Record::LeaveOut,
        Some("tool") if p.tool_results => {
            if let Some(state) = data.get_mut("state") {
                replace_output(state, "output");
                state.remove_keys(&["metadata", "attachments"]);
            }
        }
        Some("file") if p.images => replace(data, "url", text(IMAGE_REMOVED)),
        _ => {}
    }
    if p.metadata
        && let Some(path) = data.get_mut("path")
    {
        path.remove_keys(&["cwd", "root"]);
    }
    Record::Keep
}

/// An Aider history's text: a reply's leading thinking (`<thinking-content-…>` or `►
/// **THINKING**` up to `► **ANSWER**`), and the output Aider printed (`> ` lines), but for the
/// lines the history is read by (token reports, applied edits, models, version, commits).
pub(super) fn aider_text(text: &str, p: &DropParts) -> String {
    let mut out = String::with_capacity(text.len());
    let mut thinking = false;
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        if p.thinking {
            if thinking {
                if body.starts_with("</thinking-content-") || body.starts_with("► **ANSWER**") {
                    thinking = false;
                }
                continue;
            }
            if body.starts_with("<thinking-content-") {
                thinking = !body.contains("</thinking-content-");
                continue;
            }
            if body.starts_with("► **THINKING**") {
                thinking = true;
                continue;
            }
        }
        if p.tool_results
            && let Some(output) = body.strip_prefix("> ")
        {
            let kept = [
                "Tokens:",
                "Applied edit to",
                "The LLM did not conform",
                "Aider v",
                "Main model:",
                "Model:",
                "Editor model:",
                "Commit ",
            ];
            if !kept.iter().any(|k| output.starts_with(k)) && !output.contains("Cost:") {
                out.push_str("> [output removed]");
                if body.ends_with("  ") {
                    out.push_str("  ");
                }
                out.push_str(&line[body.len()..]);
                continue;
            }
        }
        out.push_str(line);
    }
    out
}
