//! The bodies of rows: message text as safe markdown, thinking behind a toggle, images, and
//! tool calls with their input and result (diffs for edits, commands and output for Bash).
//! All log content is untrusted: text goes in as text, markdown through the sanitising
//! renderer, images only as `data:` URLs of raster types.

use std::sync::Arc;

use leptos::prelude::*;
use sessionscope_engine::dag::{OpId, ToolOp, ToolStatus, tools};
use sessionscope_engine::json::decode_value;
use sessionscope_engine::model::{Block, BlockKind, Entry, EntryFlags, EntryId, EntryKind};
use sessionscope_engine::small_json::{self, Value};

use crate::logic::loaded::Model;
use crate::render::diff::{self, DiffKind, DiffLine};
use crate::render::terminal::{StyledRun, styled_runs};

/// Results larger than this load on demand.
pub const LARGE_RESULT_BYTES: usize = 100 * 1024;
/// Images larger than this (base64) are not shown inline.
const MAX_INLINE_IMAGE: usize = 8 << 20;

/// Markdown, rendered safely by the render module; its plain text until the module is there
/// (then drawn again), or if it could not load.
pub fn markdown(text: &str) -> AnyView {
    let text = text.to_owned();
    (move || match crate::render::module::markdown_to_html(&text) {
        Some(html) => view! { <div class="markdown" inner_html=html></div> }.into_any(),
        None => view! { <div class="markdown markdown-text">{text.clone()}</div> }.into_any(),
    })
    .into_any()
}

/// The text of a prompt with the tags agents inject made readable: slash commands as chips,
/// system reminders, command output and Cline's environment details folded.
pub fn prompt_text(text: &str) -> AnyView {
    let mut parts: Vec<AnyView> = Vec::new();
    if let Some(name) = between(text, "<command-name>", "</command-name>") {
        let args = between(text, "<command-args>", "</command-args>").unwrap_or("").trim().to_owned();
        let name = name.trim().to_owned();
        parts.push(
            view! {
                <p class="command">
                    <code class="command-name">{name}</code>
                    " "
                    <span class="command-args">{args}</span>
                </p>
            }
            .into_any(),
        );
        if let Some(output) = between(text, "<local-command-stdout>", "</local-command-stdout>") {
            parts.push(folded("Command output", output));
        }
        return view! { <div class="prompt">{parts}</div> }.into_any();
    }
    let mut rest = text;
    let mut plain = String::new();
    while let Some(start) = rest.find('<') {
        let after = &rest[start + 1..];
        let tag: String = after.chars().take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_')).collect();
        let folded_name = match tag.as_str() {
            "system-reminder" => Some("System reminder"),
            "local-command-stdout" => Some("Command output"),
            "local-command-caveat" => Some("Caveat"),
            "task-notification" => Some("Task notification"),
            "bash-stdout" => Some("Shell output"),
            "bash-stderr" => Some("Shell errors"),
            // Cline and Roo Code append the editor's state to prompts, as Markdown headings.
            "environment_details" => Some("Environment details"),
            _ => None,
        };
        let close = format!("</{tag}>");
        match (folded_name, after.find(&close)) {
            (Some(name), Some(end)) => {
                plain.push_str(&rest[..start]);
                if !plain.trim().is_empty() {
                    parts.push(markdown(&std::mem::take(&mut plain)));
                }
                plain.clear();
                let inner = &after[tag.len() + 1..end];
                parts.push(folded(name, inner.trim()));
                rest = &after[end + close.len()..];
            }
            _ => {
                plain.push_str(&rest[..start + 1]);
                rest = after;
            }
        }
    }
    plain.push_str(rest);
    if !plain.trim().is_empty() {
        parts.push(markdown(&plain));
    }
    view! { <div class="prompt">{parts}</div> }.into_any()
}

fn folded(label: &'static str, output: &str) -> AnyView {
    let text = terminal_text(output);
    view! {
        <details class="folded">
            <summary>{label}</summary>
            <pre class="output">{text}</pre>
        </details>
    }
    .into_any()
}

/// Terminal output as a terminal shows it: its escape sequences read, its colours and attributes as
/// styled spans. Output with no style is one text node, as plain text is.
fn terminal_text(output: &str) -> AnyView {
    visible_terminal_text(output).unwrap_or_else(|| String::new().into_any())
}

/// [`terminal_text`], or `None` when the output shows nothing.
fn visible_terminal_text(output: &str) -> Option<AnyView> {
    let mut runs = styled_runs(output);
    Some(match runs.as_mut_slice() {
        [] => return None,
        [only] if only.style.is_plain() => std::mem::take(&mut only.text).into_any(),
        _ => runs.into_iter().map(styled_span).collect::<Vec<_>>().into_any(),
    })
}

/// A run of terminal output: its attributes and 16 colours as classes, other colours as the custom
/// properties `--ansi-fg` and `--ansi-bg` (set through the CSS object model, which the page's
/// Content-Security-Policy allows, unlike style attributes).
fn styled_span(run: StyledRun) -> AnyView {
    if run.style.is_plain() {
        return run.text.into_any();
    }
    let (foreground, background) = run.style.color_properties();
    leptos::html::span()
        .class(run.style.classes())
        .style(foreground.map(|color| ("--ansi-fg", color)))
        .style(background.map(|color| ("--ansi-bg", color)))
        .child(run.text)
        .into_any()
}

fn between<'a>(text: &'a str, open: &str, close: &str) -> Option<&'a str> {
    let start = text.find(open)? + open.len();
    let end = text[start..].find(close)? + start;
    Some(&text[start..end])
}

/// The body of a message row: the blocks of every line of the response, in order.
/// The lines a message row shows: one, or every line of one API response.
pub fn message_lines(model: &Model, first: EntryId, last: EntryId) -> Vec<EntryId> {
    let corpus = &model.corpus;
    let Some(first_entry) = corpus.entries.get(first.index()) else { return Vec::new() };
    if first_entry.kind == EntryKind::Assistant && first_entry.response.is_some() {
        (first.index()..=last.index().min(corpus.entries.len().saturating_sub(1)))
            .map(EntryId::new)
            .filter(|&e| {
                let entry = &corpus.entries[e.index()];
                entry.kind == EntryKind::Assistant && entry.response == first_entry.response
            })
            .collect()
    } else {
        vec![first]
    }
}

/// Pretty-printed JSON of a raw line at most this long; longer lines show as they are, cut.
const RAW_PRETTY_LIMIT: usize = 256 * 1024;
/// A raw line shows at most this many bytes.
const RAW_SHOW_LIMIT: usize = 1024 * 1024;

/// The source lines behind a row, as the file has them (pretty-printed JSON), with their file
/// and line number: every field a format has, also those the viewer does not show.
pub fn raw_lines(model: &Model, entries: &[EntryId]) -> AnyView {
    let corpus = &model.corpus;
    let mut seen: Vec<(u32, u32)> = Vec::new();
    let mut parts: Vec<AnyView> = Vec::new();
    for &e in entries {
        let Some(entry) = corpus.entries.get(e.index()) else { continue };
        if seen.contains(&(entry.file, entry.line)) {
            continue;
        }
        seen.push((entry.file, entry.line));
        let path = corpus.files.get(entry.file as usize).map_or("", |f| f.path.as_str());
        let bytes = corpus.line_bytes(entry);
        let pretty = (bytes.len() <= RAW_PRETTY_LIMIT)
            .then(|| small_json::parse(bytes).ok())
            .flatten()
            .map(|v| v.to_pretty_json());
        let (text, cut) = match pretty {
            Some(text) => (text, 0),
            None => {
                let shown = &bytes[..bytes.len().min(RAW_SHOW_LIMIT)];
                (String::from_utf8_lossy(shown).into_owned(), bytes.len() - shown.len())
            }
        };
        let place = format!("{path}:{}", entry.line);
        let size = crate::logic::words::counted(bytes.len(), "byte");
        parts.push(
            view! {
                <div class="raw-line">
                    <p class="raw-where"><code>{place}</code>" · "{size}</p>
                    <pre class="raw-json">{text}</pre>
                    {(cut > 0).then(|| view! { <p class="muted">{format!("… {cut} more bytes not shown")}</p> })}
                </div>
            }
            .into_any(),
        );
    }
    view! { <div class="raw" role="group" aria-label="Raw lines">{parts}</div> }.into_any()
}

pub fn message_body(model: &Arc<Model>, first: EntryId, last: EntryId) -> AnyView {
    let corpus = &model.corpus;
    let lines = message_lines(model, first, last);
    let mut parts: Vec<AnyView> = Vec::new();
    for e in lines {
        let entry = &corpus.entries[e.index()];
        if entry.flags.has(EntryFlags::STRING_CONTENT) && !entry.content.is_empty() {
            let text = corpus.span_text(entry.file, entry.content);
            parts.push(if entry.kind == EntryKind::User { prompt_text(&text) } else { markdown(&text) });
        }
        for block in corpus.blocks_of(entry) {
            if let Some(view) = block_view(model, entry, block) {
                parts.push(view);
            }
        }
    }
    if parts.is_empty() {
        let entry = &corpus.entries[first.index()];
        let what = match entry.kind {
            EntryKind::System => corpus.sym(entry.subtype).to_owned(),
            _ => String::new(),
        };
        if !what.is_empty() {
            parts.push(view! { <p class="muted">{what}</p> }.into_any());
        }
    }
    view! { <div class="message-body">{parts}</div> }.into_any()
}

fn block_view(model: &Model, entry: &Entry, block: &Block) -> Option<AnyView> {
    let corpus = &model.corpus;
    let text = || corpus.span_text(entry.file, block.body).into_owned();
    Some(match block.kind {
        BlockKind::Text => {
            let text = text();
            if entry.kind == EntryKind::User { prompt_text(&text) } else { markdown(&text) }
        }
        BlockKind::Thinking if block.flags & Block::SIGNATURE_ONLY != 0 => {
            view! { <p class="thinking-empty">"Thinking (not in the log: only its signature or encrypted form)"</p> }
                .into_any()
        }
        BlockKind::Thinking => {
            let text = text();
            let words = text.split_whitespace().count();
            let label = format!("Thinking · {}", crate::logic::words::counted(words, "word"));
            view! {
                <details class="thinking">
                    <summary>{label}</summary>
                    {markdown(&text)}
                </details>
            }
            .into_any()
        }
        BlockKind::RedactedThinking => view! { <p class="thinking-empty">"Redacted thinking"</p> }.into_any(),
        BlockKind::Image => image_view(corpus.sym(block.name), corpus.span_bytes(entry.file, block.body)),
        BlockKind::Document => {
            let media = corpus.sym(block.name).to_owned();
            let size = crate::render::units::human_bytes(block.body.len() as u64);
            let body = if media.starts_with("text/") { Some(text()) } else { None };
            view! {
                <details class="document">
                    <summary>{format!("Document · {media} · {size}")}</summary>
                    {body.map(|t| view! { <pre class="output">{t}</pre> })}
                </details>
            }
            .into_any()
        }
        BlockKind::Unknown => {
            let name = corpus.sym(block.name).to_owned();
            view! { <p class="muted">{format!("A block of type “{name}” (see the raw line)")}</p> }.into_any()
        }
        // Tool calls and results are rows of their own.
        BlockKind::ToolUse | BlockKind::ServerToolUse | BlockKind::ToolResult | BlockKind::ServerToolResult => {
            return None;
        }
    })
}

/// A base64 image block; only raster types are shown, as `data:` URLs (allowed by the CSP).
fn image_view(media_type: &str, raw: &[u8]) -> AnyView {
    let allowed = matches!(media_type, "image/png" | "image/jpeg" | "image/gif" | "image/webp");
    let data = decode_value(raw);
    let base64_ok = data.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=' | b'\n' | b'\r'));
    // A cut or damaged image (base64 that does not end on a full group) is described, not
    // handed to the browser, which would only log a load error.
    let complete = data.bytes().filter(|b| !matches!(b, b'\n' | b'\r')).count() % 4 == 0;
    if !allowed || !base64_ok || !complete || data.len() > MAX_INLINE_IMAGE {
        let size = crate::render::units::human_bytes(data.len() as u64 * 3 / 4);
        return view! { <p class="muted">{format!("Image · {media_type} · {size} (not shown)")}</p> }.into_any();
    }
    let src = format!("data:{media_type};base64,{}", data.trim());
    view! { <img class="log-image" src=src alt="Image from the log" loading="lazy" /> }.into_any()
}

/// What a tool call row shows when expanded: its input, then its result.
pub fn tool_detail(model: &Arc<Model>, op_index: OpId) -> AnyView {
    let Some(op) = model.graph.op(op_index).copied() else { return ().into_any() };
    let input = call_input(model, &op);
    let name = if op.name.is_none() { String::new() } else { model.corpus.sym(op.name).to_owned() };
    let tool_use_result = result_details(model, &op);
    let input_view = input_view(model, &op, &name, &input, tool_use_result.as_ref());
    let result_view = result_view(model, &op, &name, tool_use_result.as_ref());
    view! { <div class="tool-detail">{input_view}{result_view}</div> }.into_any()
}

fn call_input(model: &Model, op: &ToolOp) -> Value {
    tools::op_input(&model.corpus, op).0
}

/// `toolUseResult` of the result line, when it is small enough to read here.
fn result_details(model: &Model, op: &ToolOp) -> Option<Value> {
    if op.result_entry.is_none() {
        return None;
    }
    let entry = &model.corpus.entries[op.result_entry.index()];
    if entry.tool_use_result.is_empty() || entry.tool_use_result.len() > 4 * LARGE_RESULT_BYTES {
        return None;
    }
    small_json::parse(model.corpus.span_bytes(entry.file, entry.tool_use_result)).ok()
}

fn input_view(model: &Model, op: &ToolOp, name: &str, input: &Value, details: Option<&Value>) -> AnyView {
    let text = |key: &str| input.get(key).and_then(Value::as_str).unwrap_or("").to_owned();
    match name {
        "Bash" | "PowerShell" => {
            let description = text("description");
            view! {
                <div class="tool-input">
                    {(!description.is_empty()).then(|| view! { <p class="muted">{description}</p> })}
                    <pre class="command-line"><span class="prompt-sign">"$ "</span>{text("command")}</pre>
                </div>
            }
            .into_any()
        }
        "Edit" | "MultiEdit" | "Write" => {
            let patch = details
                .and_then(|d| d.get("structuredPatch"))
                .filter(|p| p.as_array().is_some_and(|a| !a.is_empty()))
                .and_then(diff::from_structured_patch);
            let edits: Vec<(String, String)> = match name {
                "Edit" => vec![(text("old_string"), text("new_string"))],
                "Write" => vec![(String::new(), text("content"))],
                _ => input
                    .get("edits")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .map(|edit| {
                        let text = |key: &str| edit.get(key).and_then(Value::as_str).unwrap_or("").to_owned();
                        (text("old_string"), text("new_string"))
                    })
                    .collect(),
            };
            let path = text("file_path");
            // The render module diffs and marks the changed words; until it is there (or if it
            // could not load), the log's patch unmarked, or each edit's lines removed and added whole.
            let lines = move || match &patch {
                Some(patch) => crate::render::module::mark_changed_words(patch).unwrap_or_else(|| patch.clone()),
                None => crate::render::module::diff_edits(&edits)
                    .unwrap_or_else(|| edits.iter().flat_map(|(old, new)| diff::whole_lines(old, new)).collect()),
            };
            view! {
                <div class="tool-input">
                    <p class="file-path">{path}</p>
                    {move || diff_view(&lines())}
                </div>
            }
            .into_any()
        }
        "Task" | "Agent" => {
            let prompt = text("prompt");
            let kind = text("subagent_type");
            view! {
                <div class="tool-input">
                    {(!kind.is_empty()).then(|| view! { <p class="muted">{format!("Agent type: {kind}")}</p> })}
                    <details class="folded" open>
                        <summary>"Prompt"</summary>
                        {markdown(&prompt)}
                    </details>
                </div>
            }
            .into_any()
        }
        "TodoWrite" => {
            let items: Vec<AnyView> = input
                .get("todos")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .map(|todo| {
                    let status = todo.get("status").and_then(Value::as_str).unwrap_or("pending").to_owned();
                    let content = todo.get("content").and_then(Value::as_str).unwrap_or("").to_owned();
                    let mark = match status.as_str() {
                        "completed" => "☑",
                        "in_progress" => "◐",
                        _ => "☐",
                    };
                    view! { <li class=format!("todo todo-{status}")><span aria-hidden="true">{mark}" "</span>{content}</li> }.into_any()
                })
                .collect();
            view! { <ul class="todos">{items}</ul> }.into_any()
        }
        _ => {
            if op.call_entry.is_none() {
                return ().into_any();
            }
            let _ = model;
            let pretty = input.to_pretty_json();
            let open = pretty.len() < 2000;
            view! {
                <details class="folded tool-input" open=open>
                    <summary>"Input"</summary>
                    <pre class="output">{pretty}</pre>
                </details>
            }
            .into_any()
        }
    }
}

pub fn diff_view(lines: &[DiffLine]) -> AnyView {
    const MAX_LINES: usize = 2000;
    let (added, removed) = diff::count_changes(lines);
    let shown: Vec<AnyView> = lines
        .iter()
        .take(MAX_LINES)
        .map(|line| {
            let (class, sign) = match line.kind {
                DiffKind::Added => ("diff-line diff-add", "+"),
                DiffKind::Removed => ("diff-line diff-del", "-"),
                DiffKind::Hunk => ("diff-line diff-hunk", ""),
                DiffKind::Context => ("diff-line", " "),
            };
            let old = line.old_line.map(|n| n.to_string()).unwrap_or_default();
            let new = line.new_line.map(|n| n.to_string()).unwrap_or_default();
            let text = diff_text(line);
            view! {
                <div class=class>
                    <span class="diff-no">{old}</span>
                    <span class="diff-no">{new}</span>
                    <span class="diff-sign">{sign}</span>
                    <span class="diff-text">{text}</span>
                </div>
            }
            .into_any()
        })
        .collect();
    let more = lines.len().saturating_sub(MAX_LINES);
    view! {
        <div class="diff" role="group" aria-label=format!("Diff: {added} added, {removed} removed")>
            <div class="diff-stat">
                <span class="diff-stat-add">{format!("+{added}")}</span>
                " "
                <span class="diff-stat-del">{format!("-{removed}")}</span>
            </div>
            {shown}
            {(more > 0).then(|| view! { <p class="muted">{format!("… {more} more lines")}</p> })}
        </div>
    }
    .into_any()
}

/// The text of a diff line, its changed words marked as insertions or deletions.
fn diff_text(line: &DiffLine) -> AnyView {
    if line.words.is_empty() {
        return line.text.clone().into_any();
    }
    line.words
        .iter()
        .map(|word| match (word.changed, line.kind) {
            (false, _) => word.text.clone().into_any(),
            (true, DiffKind::Added) => view! { <ins class="diff-word-add">{word.text.clone()}</ins> }.into_any(),
            (true, _) => view! { <del class="diff-word-del">{word.text.clone()}</del> }.into_any(),
        })
        .collect::<Vec<_>>()
        .into_any()
}

/// The text of a tool result: a string, or the text blocks of an array (images noted).
fn result_text(model: &Model, op: &ToolOp) -> (String, Vec<(String, usize)>) {
    let corpus = &model.corpus;
    let entry = &corpus.entries[op.result_entry.index()];
    if op.result_block.is_none() {
        // An older `subtype: "tool_use"` call answered by a whole entry.
        return (corpus.first_text(entry).map(|t| t.into_owned()).unwrap_or_default(), Vec::new());
    }
    let block = corpus.blocks[op.result_block.index()];
    let raw = corpus.span_bytes(entry.file, block.body);
    if block.flags & Block::JSON_IN_STRING != 0 || raw.first() == Some(&b'"') {
        return (decode_value(raw).into_owned(), Vec::new());
    }
    let mut text = String::new();
    let mut images = Vec::new();
    if let Ok(Value::Array(items)) = small_json::parse(raw) {
        for item in items {
            match item.get("type").and_then(Value::as_str) {
                Some("text") => {
                    if !text.is_empty() {
                        text.push('\n');
                    }
                    text.push_str(item.get("text").and_then(Value::as_str).unwrap_or(""));
                }
                Some("image") => {
                    let source = item.get("source");
                    let media = source.and_then(|s| s.get("media_type")).and_then(Value::as_str).unwrap_or("");
                    let data = source.and_then(|s| s.get("data")).and_then(Value::as_str).unwrap_or("");
                    images.push((media.to_owned(), data.len()));
                }
                _ => {
                    if !text.is_empty() {
                        text.push('\n');
                    }
                    text.push_str(&item.to_string());
                }
            }
        }
    } else {
        text = String::from_utf8_lossy(raw).into_owned();
    }
    (text, images)
}

fn result_view(model: &Arc<Model>, op: &ToolOp, name: &str, details: Option<&Value>) -> AnyView {
    if op.result_entry.is_none() {
        let label = match op.status {
            ToolStatus::NoResult => "No result was logged.",
            _ => "",
        };
        return view! { <p class="muted">{label}</p> }.into_any();
    }
    let corpus = &model.corpus;
    let entry = &corpus.entries[op.result_entry.index()];
    let size =
        if op.result_block.is_none() { entry.content.len() } else { corpus.blocks[op.result_block.index()].body.len() };
    let error = op.status == ToolStatus::Error;
    let interrupted = op.status == ToolStatus::Interrupted;
    let class = if error { "tool-result tool-result-error" } else { "tool-result" };
    let label = match op.status {
        ToolStatus::Error => "Error",
        ToolStatus::Interrupted => "Interrupted",
        _ => "Result",
    };
    // Bash: stdout and stderr apart, from toolUseResult.
    if matches!(name, "Bash" | "PowerShell")
        && let Some(details) = details
        && (details.get("stdout").is_some() || details.get("stderr").is_some())
    {
        let stdout = details.get("stdout").and_then(Value::as_str).unwrap_or("");
        let stderr = details.get("stderr").and_then(Value::as_str).unwrap_or("");
        let (stdout, stderr) = (visible_terminal_text(stdout), visible_terminal_text(stderr));
        let fallback = (stdout.is_none() && stderr.is_none()).then(|| terminal_text(&result_text(model, op).0));
        return view! {
            <div class=class>
                <p class="result-label">{label}{interrupted.then_some(" · interrupted by the user")}</p>
                {stdout.map(|t| view! { <pre class="output stdout" aria-label="Standard output">{t}</pre> })}
                {stderr.map(|t| view! { <pre class="output stderr" aria-label="Standard error">{t}</pre> })}
                {fallback.map(|t| view! { <pre class="output">{t}</pre> })}
            </div>
        }
        .into_any();
    }
    let model = model.clone();
    let op = *op;
    let large = size > LARGE_RESULT_BYTES;
    let shown = RwSignal::new(!large);
    let body = move || {
        shown.get().then(|| {
            let (text, images) = result_text(&model, &op);
            let text = terminal_text(&text);
            let notes: Vec<String> = images
                .iter()
                .map(|(media, len)| {
                    format!("Image · {media} · {}", crate::render::units::human_bytes(*len as u64 * 3 / 4))
                })
                .collect();
            view! {
                <pre class="output">{text}</pre>
                {notes.into_iter().map(|n| view! { <p class="muted">{n}</p> }).collect::<Vec<_>>()}
            }
        })
    };
    let size_text = crate::render::units::human_bytes(size as u64);
    view! {
        <div class=class>
            <p class="result-label">{label}" · "{size_text.clone()}</p>
            {move || (!shown.get()).then(|| view! {
                <button type="button" class="button small" on:click=move |_| shown.set(true)>
                    {format!("Load the result ({size_text})")}
                </button>
            })}
            {body}
        </div>
    }
    .into_any()
}

/// A one-line summary of a tool call.
pub fn op_summary(model: &Model, op: &ToolOp) -> String {
    tools::op_summary(&model.corpus, op)
}
