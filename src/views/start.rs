//! The start screen: drop zone, file and folder pickers, the example.

use leptos::prelude::*;
use leptos::tachys::html::attribute::custom::CustomAttribute;
use wasm_bindgen::JsCast;

use crate::platform::handles::can_keep_folders;
use crate::platform::schedule;
use crate::state::{HistoryState, LoadStatus, use_history, use_loading};

/// Reads a file input's files and clears it, so picking the same file again works.
fn on_pick(history: HistoryState, event: web_sys::Event) {
    let Some(input) = event.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) else { return };
    if let Some(list) = input.files() {
        history.open_file_list(&list);
    }
    input.set_value("");
}

/// "Choose files…" and "Choose a folder…" buttons (labels around hidden inputs). A click on
/// one means files are coming: the loading worker warms up while the picker is open.
#[component]
pub fn PickButtons() -> impl IntoView {
    let history = use_history();
    let loading = use_loading();
    let folder = view! {
        <input
            type="file"
            class="visually-hidden"
            multiple
            aria-label="Choose a project folder"
            on:click=move |_| loading.files_coming()
            on:change=move |event| on_pick(history, event)
        />
    }
    .attr("webkitdirectory", "");
    view! {
        <label class="button">
            "Choose files…"
            <input
                type="file"
                class="visually-hidden"
                multiple
                accept=".jsonl,.json,.ndjson,.log,.md,.db,.vscdb,.db-wal,.vscdb-wal,application/json"
                aria-label="Choose session log files"
                on:click=move |_| loading.files_coming()
                on:change=move |event| on_pick(history, event)
            />
        </label>
        {if can_keep_folders() {
            // The browser's folder picker gives a folder the page may keep and read again.
            view! {
                <button
                    type="button"
                    class="button"
                    title="Pick a project or a whole ~/.claude: it is remembered in this browser"
                    on:click=move |_| {
                        loading.files_coming();
                        history.choose_folder();
                    }
                >
                    "Choose a folder…"
                </button>
            }
            .into_any()
        } else {
            view! { <label class="button">"Choose a folder…" {folder}</label> }.into_any()
        }}
    }
}

/// The folders this browser remembers, each to reopen with one click or to forget.
#[component]
fn RememberedFolders() -> impl IntoView {
    let history = use_history();
    move || {
        let folders = history.remembered.list.get();
        let error = history.remembered.error.get();
        let list = (!folders.is_empty()).then(|| {
            view! {
                <section class="remembered" aria-label="Remembered folders">
                    <h2 class="remembered-title">"Remembered folders"</h2>
                    <ul>
                        {folders.into_iter().map(|folder| {
                            let reopen = folder.id.clone();
                            let forget = folder.id.clone();
                            let when = crate::render::units::iso_time(folder.opened_ms as i64);
                            view! {
                                <li>
                                    <button type="button" class="button primary" on:click=move |_| history.reopen(&reopen)>
                                        {format!("Reopen {}", folder.name)}
                                    </button>
                                    <span class="remembered-when">{format!("last opened {when}")}</span>
                                    <button
                                        type="button"
                                        class="button"
                                        aria-label=format!("Forget {}", folder.name)
                                        on:click=move |_| history.forget(forget.clone())
                                    >
                                        "Forget"
                                    </button>
                                </li>
                            }
                        }).collect_view()}
                    </ul>
                </section>
            }
        });
        view! {
            {error.map(|e| view! { <p class="history-error" role="alert">{e}</p> })}
            {list}
        }
    }
}

/// An agent whose logs are read, and where it keeps them.
struct AgentLogs {
    agent: &'static str,
    /// Where the logs are on macOS and Linux (the home folder's).
    unix: &'static str,
    /// Where they are on Windows, when it differs by more than the home folder.
    windows: Option<&'static str>,
}

/// Every agent read, in the order the start page lists them.
const AGENTS: &[AgentLogs] = &[
    AgentLogs { agent: "Claude Code", unix: "~/.claude/projects/<project>/", windows: None },
    AgentLogs { agent: "Codex CLI", unix: "~/.codex/sessions/<year>/<month>/<day>/", windows: None },
    AgentLogs { agent: "Pi", unix: "~/.pi/agent/sessions/<project>/", windows: None },
    AgentLogs { agent: "Gemini CLI", unix: "~/.gemini/tmp/<project hash>/chats/", windows: None },
    AgentLogs {
        agent: "Qwen Code",
        unix: "~/.qwen/projects/<project>/chats/ (older versions: ~/.qwen/tmp/<project hash>/chats/)",
        windows: None,
    },
    AgentLogs { agent: "GitHub Copilot CLI", unix: "~/.copilot/session-state/<session>/", windows: None },
    AgentLogs { agent: "Aider", unix: "<repository>/.aider.chat.history.md", windows: None },
    AgentLogs {
        agent: "Cline",
        unix: "~/.config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks/ (macOS: ~/Library/Application Support/Code/User/globalStorage/saoudrizwan.claude-dev/tasks/)",
        windows: Some("%APPDATA%\\Code\\User\\globalStorage\\saoudrizwan.claude-dev\\tasks\\"),
    },
    AgentLogs {
        agent: "Roo Code",
        unix: "~/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks/ (macOS: ~/Library/Application Support/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks/)",
        windows: Some("%APPDATA%\\Code\\User\\globalStorage\\rooveterinaryinc.roo-cline\\tasks\\"),
    },
    AgentLogs { agent: "Amp", unix: "~/.local/share/amp/threads/", windows: None },
    AgentLogs { agent: "Cursor CLI", unix: "~/.cursor/projects/<project>/agent-transcripts/", windows: None },
    AgentLogs {
        agent: "Cursor IDE",
        unix: "~/.config/Cursor/User/globalStorage/state.vscdb (macOS: ~/Library/Application Support/Cursor/User/globalStorage/state.vscdb)",
        windows: Some("%APPDATA%\\Cursor\\User\\globalStorage\\state.vscdb"),
    },
    AgentLogs {
        agent: "OpenCode",
        unix: "~/.local/share/opencode/opencode.db, with opencode.db-wal if it is there (before its database: ~/.local/share/opencode/storage/; 0.5.x: ~/.local/share/opencode/project/<project>/storage/)",
        windows: None,
    },
    AgentLogs {
        agent: "Claude Agent SDK, Codex SDK, Ollama",
        unix: "the JSONL a script saved (stream-json, codex exec --json, /api/chat)",
        windows: None,
    },
];

/// Where each agent keeps its logs: a folder to drop or choose.
#[component]
fn AgentLocations() -> impl IntoView {
    view! {
        <details class="agent-locations">
            <summary>"Agents read, and where they keep their logs"</summary>
            <table>
                <caption class="visually-hidden">"Where each agent keeps its logs"</caption>
                <thead>
                    <tr><th scope="col">"Agent"</th><th scope="col">"macOS and Linux"</th><th scope="col">"Windows"</th></tr>
                </thead>
                <tbody>
                    {AGENTS.iter().map(|a| view! {
                        <tr>
                            <th scope="row">{a.agent}</th>
                            <td><code>{a.unix}</code></td>
                            <td>{match a.windows {
                                Some(path) => view! { <code>{path}</code> }.into_any(),
                                None => view! { <span>"the same, under %USERPROFILE%"</span> }.into_any(),
                            }}</td>
                        </tr>
                    }).collect_view()}
                </tbody>
            </table>
        </details>
    }
}

#[component]
pub fn StartScreen() -> impl IntoView {
    let loading = use_loading();
    // The example is what a first visit opens most: it is fetched and parsed while the page waits
    // (not when a shared view or a folder is being opened instead).
    schedule::when_idle(
        move || {
            if matches!(loading.status.get_untracked(), LoadStatus::Idle) {
                loading.prepare_example();
            }
        },
        3000,
    );
    view! {
        <section class="dropzone" aria-label="Open session logs">
            <p class="dropzone-title">"Drop coding-agent session logs or a folder of them here"</p>
            <p class="dropzone-note">"Nothing is uploaded: files are read by this page only."</p>
            <div class="dropzone-actions">
                <PickButtons />
                <button type="button" class="button" on:click=move |_| loading.open_example()>
                    "Open example"
                </button>
            </div>
            <RememberedFolders />
            {(!can_keep_folders()).then(|| view! {
                <p class="dropzone-note">
                    "This browser cannot keep a folder between visits or follow running sessions (it lacks the File System Access API of Chromium-based browsers): choose or drop the folder on each visit."
                </p>
            })}
            <p class="dropzone-hint">
                "Claude Code keeps sessions in "
                <code>"~/.claude/projects/<project>/"</code>
                ": drop a session file, the whole project folder to get its subagents too, or "
                <code>"~/.claude"</code>
                " for every project."
            </p>
            <AgentLocations />
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::AGENTS;
    use sessionscope_engine::history::agent_name;
    use sessionscope_engine::model::Format;

    /// Every format the engine reads; the match fails to compile when a format is added and
    /// not listed here.
    fn every_format() -> Vec<Format> {
        use Format::*;
        let all = vec![
            Pending,
            ClaudeCode,
            AgentSdk,
            CodexRollout,
            CodexEvents,
            Ollama,
            Pi,
            CopilotCli,
            Aider,
            GeminiCli,
            QwenCode,
            Cline,
            RooCode,
            Amp,
            CursorCli,
            OpenCode,
            OpenCodeStorage,
            CursorIde,
            AgentMeta,
            Rejected,
        ];
        for format in &all {
            match format {
                Pending | ClaudeCode | AgentSdk | CodexRollout | CodexEvents | Ollama | Pi | CopilotCli | Aider
                | GeminiCli | QwenCode | Cline | RooCode | Amp | CursorCli | OpenCode | OpenCodeStorage | CursorIde
                | AgentMeta | Rejected => {}
            }
        }
        all
    }

    #[test]
    fn the_start_page_says_where_every_agent_read_keeps_its_logs() {
        for format in every_format() {
            let agent = agent_name(format);
            if agent.is_empty() {
                continue;
            }
            let row = AGENTS.iter().find(|row| row.agent.split(", ").any(|named| named.starts_with(agent)));
            let row = row.unwrap_or_else(|| panic!("the start page does not name {agent} ({format:?})"));
            assert!(!row.unix.is_empty(), "{agent} has no location");
        }
    }
}
