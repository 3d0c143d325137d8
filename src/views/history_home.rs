//! The history home: projects with their totals, a project's sessions (sortable, filterable,
//! virtualized), tokens and cost over time, a search of the whole history, the files that could
//! not be indexed, and exports for spreadsheets.

use std::sync::Arc;

use leptos::prelude::*;
use sessionscope_engine::history::SessionRow;
use sessionscope_engine::ranked::Sort;

use crate::logic::seen::Unread;
use crate::logic::words::{counted, noun, plural};
use crate::render::units;
use crate::state::history::{
    HistoryRow, HistoryState, HomeTab, IndexKept, ListView, RankedQuery, SortKey, use_history,
};
use crate::state::{MarksState, use_marks};
use crate::views::home_tabs::{ActivityTab, FailuresTab, FilesTab, HomeTabs};
use crate::views::ranked_results::{COMPLETIONS_ID, ranked_completions, ranked_list, ranked_status};
use crate::wire::SearchQuery;

/// Height of a session row in the list, in pixels (the list is virtualized on it).
const ROW_HEIGHT: f64 = 56.0;
/// Rows drawn beyond the visible ones, above and below.
const OVERSCAN: usize = 6;
const MS_PER_DAY: i64 = 86_400_000;

/// Whether a row passes the list's filters.
fn passes(row: &SessionRow, view: &ListView, text: &str) -> bool {
    if view.project.as_deref().is_some_and(|p| p != row.project) {
        return false;
    }
    if !view.agent.is_empty() && row.agent != view.agent {
        return false;
    }
    if !view.model.is_empty() && !row.models.contains(&view.model) {
        return false;
    }
    let day = row.start_ms.map(|ms| units::iso_time(ms)[..10].to_owned()).unwrap_or_default();
    if !view.from.is_empty() && (day.is_empty() || day < view.from) {
        return false;
    }
    if !view.to.is_empty() && (day.is_empty() || day > view.to) {
        return false;
    }
    text.is_empty()
        || row.title.to_lowercase().contains(text)
        || row.first_prompt.to_lowercase().contains(text)
        || row.session_id.contains(text)
}

/// The rows the list shows, as indices into the history's rows, sorted; `keep` says which pass
/// the filters the page keeps apart from the rows (unread, starred, tagged).
fn listed(rows: &[Arc<HistoryRow>], view: &ListView, keep: impl Fn(&SessionRow) -> bool) -> Vec<usize> {
    let text = view.text.trim().to_lowercase();
    let mut order: Vec<usize> =
        (0..rows.len()).filter(|&i| passes(&rows[i].row, view, &text) && keep(&rows[i].row)).collect();
    crate::logic::sort::sort_by(&mut order, |&a, &b| {
        let (a, b) = (&rows[a].row, &rows[b].row);
        let ordering = match view.sort {
            SortKey::Start => a.start_ms.cmp(&b.start_ms),
            SortKey::Title => a.title.to_lowercase().cmp(&b.title.to_lowercase()),
            SortKey::Project => a.project.cmp(&b.project),
            SortKey::Duration => units::span_ms(a.start_ms, a.end_ms).cmp(&units::span_ms(b.start_ms, b.end_ms)),
            SortKey::Messages => a.messages.cmp(&b.messages),
            SortKey::ToolCalls => a.tool_calls.cmp(&b.tool_calls),
            SortKey::FailedCalls => a.failed_tool_calls.cmp(&b.failed_tool_calls),
            SortKey::Tokens => a.tokens().cmp(&b.tokens()),
            SortKey::Cost => a.cost_usd.total_cmp(&b.cost_usd),
        }
        .then_with(|| a.session_id.cmp(&b.session_id));
        if view.descending { ordering.reverse() } else { ordering }
    });
    order
}

#[component]
pub fn HistoryHome() -> impl IntoView {
    let history = use_history();
    crate::views::dialog::take_lost_focus(".history-list");
    let rows = Memo::new(move |_| {
        history.changed.track();
        history.rows()
    });
    let marks = use_marks();
    let order = Memo::new(move |_| {
        rows.with(|rows| {
            history.view.with(|view| {
                let tag = view.tag.trim();
                marks.with(|m| {
                    listed(rows, view, |row| {
                        (!view.unread_only || history.unread(row) != Unread::Seen)
                            && (!view.starred_only || m.starred(&row.session_id))
                            && (tag.is_empty() || m.has_tag(&row.session_id, tag))
                    })
                })
            })
        })
    });
    let tab = history.insights.tab;
    // The tab's view is built again only when the tab changes, not each time it is set.
    let shown = Memo::new(move |_| tab.get());
    view! {
        <section class="history" aria-label="History">
            <HistoryHeader rows=rows order=order />
            <HomeTabs />
            <div
                id="home-tab-panel"
                role="tabpanel"
                class="home-tab-panel"
                aria-labelledby=move || format!("home-tab-{}", tab.get().slug())
            >
                {move || match shown.get() {
                    HomeTab::Sessions => view! {
                        <HistorySearch />
                        <div class="history-body">
                            <ProjectList rows=rows />
                            <SessionsPane rows=rows order=order />
                        </div>
                        <UsageChart rows=rows order=order />
                    }
                    .into_any(),
                    HomeTab::Files => view! { <FilesTab /> }.into_any(),
                    HomeTab::Failures => view! { <FailuresTab /> }.into_any(),
                    HomeTab::Activity => view! { <ActivityTab /> }.into_any(),
                }}
            </div>
            <FileProblems />
        </section>
    }
}

/// What the history holds and how far the index got, with Cancel while it runs.
#[component]
fn HistoryHeader(rows: Memo<Vec<Arc<HistoryRow>>>, order: Memo<Vec<usize>>) -> impl IntoView {
    let history = use_history();
    let totals = move || {
        rows.with(|rows| {
            let projects: std::collections::HashSet<&str> = rows.iter().map(|r| r.row.project.as_str()).collect();
            let tokens: u64 = rows.iter().map(|r| r.row.tokens()).sum();
            let cost: f64 = rows.iter().map(|r| r.row.cost_usd).sum();
            format!(
                "{} in {} · {} {} · ${cost:.2}",
                counted(rows.len(), "session"),
                counted(projects.len(), "project"),
                units::human_count(tokens),
                noun(tokens, "token")
            )
        })
    };
    let progress = move || {
        let pass = history.index.pass.get()?;
        let text = format!(
            "{} {} of {} {} ({} of {}) · {:.0} MB/s · {:.1} s",
            if pass.walking {
                "Indexing (still finding files):"
            } else if pass.running() {
                "Indexing:"
            } else if pass.cancelled {
                "Index stopped after"
            } else {
                "Indexed"
            },
            pass.files_done,
            pass.files,
            noun(pass.files, "file"),
            units::human_bytes(pass.bytes_done as u64),
            units::human_bytes(pass.bytes as u64),
            pass.megabytes_per_second(),
            pass.seconds()
        );
        let text = if pass.from_cache > 0 {
            format!("{text} · {} from the cache", counted(pass.from_cache, "unchanged session file set"))
        } else {
            text
        };
        let percent = if pass.bytes > 0.0 { pass.bytes_done / pass.bytes * 100.0 } else { 100.0 };
        Some(view! {
            <div class="history-progress" role="status" aria-live="polite">
                <span>{text}</span>
                {pass.running().then(|| view! {
                    <progress max="100" value=percent aria-label="Indexed"></progress>
                    <button type="button" class="button" on:click=move |_| history.cancel()>"Cancel"</button>
                })}
            </div>
        })
    };
    let export = move |json: bool| {
        let listed: Vec<Arc<HistoryRow>> =
            rows.with_untracked(|rows| order.with_untracked(|order| order.iter().map(|&i| rows[i].clone()).collect()));
        if json {
            let sessions: Vec<&SessionRow> = listed.iter().map(|r| &r.row).collect();
            let text = sessionscope_engine::small_json::to_string_pretty(&sessions).unwrap_or_default();
            crate::platform::download::download_text("sessionscope-history.json", "application/json", &text);
        } else {
            crate::platform::download::download_text("sessionscope-history.csv", "text/csv", &to_csv(&listed));
        }
    };
    view! {
        <div class="history-header">
            <h1 class="session-title">"History"</h1>
            <p class="session-facts">{totals}</p>
            {progress}
            <RememberedNote />
            <div class="history-actions">
                {move || {
                    history.changed.track();
                    (history.total_bytes() <= crate::state::history::OPEN_ALL_BYTES).then(|| view! {
                        <button type="button" class="button" on:click=move |_| history.open_all()>"Open all in one view"</button>
                    })
                }}
                <button type="button" class="button" on:click=move |_| export(false)>"Download CSV"</button>
                <button type="button" class="button" on:click=move |_| export(true)>"Download JSON"</button>
                <crate::views::marks::MarksFile />
            </div>
        </div>
    }
}

/// Which remembered folder the history comes from, with "Forget this folder".
#[component]
fn RememberedNote() -> impl IntoView {
    let history = use_history();
    move || {
        history.changed.track();
        let error = history.remembered.error.get();
        let folder = history.source_folder().filter(|f| !f.id.is_empty());
        view! {
            {error.map(|e| view! { <p class="history-error" role="alert">{e}</p> })}
            {folder.map(|folder| {
                let id = folder.id.clone();
                view! {
                    <p class="history-remembered">
                        "Folder "<strong>{folder.name}</strong>
                        {move || match history.remembered.index_kept.get() {
                            IndexKept::NotKept(reason) => format!(
                                ", remembered in this browser, but its index could not be kept ({reason}): next time it is read again."
                            ),
                            IndexKept::Kept => ", remembered in this browser: next time it reopens from its cached index.".to_owned(),
                            IndexKept::Keeping => ", remembered in this browser; keeping its index for the next visit…".to_owned(),
                        }}
                        {move || history.following.on.get().then_some(" Changes are followed while this tab is shown.")}
                        <button type="button" class="button" on:click=move |_| history.forget(id.clone())>
                            "Forget this folder"
                        </button>
                    </p>
                }
            })}
        }
    }
}

/// The listed sessions as CSV, one row per session.
fn to_csv(rows: &[Arc<HistoryRow>]) -> String {
    fn field(text: &str) -> String {
        // Quoted always; a leading sign that a spreadsheet would read as a formula is defused.
        let text = if text.starts_with(['=', '+', '-', '@']) { format!("'{text}") } else { text.to_owned() };
        format!("\"{}\"", text.replace('"', "\"\""))
    }
    let mut out = String::from(
        "session_id,agent,project,title,start,end,duration_s,messages,tool_calls,failed_tool_calls,models,input_tokens,output_tokens,cache_write_tokens,cache_read_tokens,cost_usd,agents,compactions,branches,diagnostics,files,bytes\n",
    );
    for row in rows {
        let r = &row.row;
        let time = |ms: Option<i64>| ms.map(units::iso_time).unwrap_or_default();
        let line = [
            field(&r.session_id),
            field(&r.agent),
            field(&r.project),
            field(&r.title),
            field(&time(r.start_ms)),
            field(&time(r.end_ms)),
            units::span_ms(r.start_ms, r.end_ms).map(|ms| (ms / 1000).to_string()).unwrap_or_default(),
            r.messages.to_string(),
            r.tool_calls.to_string(),
            r.failed_tool_calls.to_string(),
            field(&r.models.join(" ")),
            r.usage.input_tokens.to_string(),
            r.usage.output_tokens.to_string(),
            r.usage.cache_creation_input_tokens.to_string(),
            r.usage.cache_read_input_tokens.to_string(),
            format!("{:.6}", r.cost_usd),
            r.agents.to_string(),
            r.compactions.to_string(),
            r.branches.to_string(),
            r.diagnostics.to_string(),
            r.files.len().to_string(),
            r.bytes.to_string(),
        ];
        out.push_str(&line.join(","));
        out.push('\n');
    }
    out
}

/// Projects with their totals; choosing one lists its sessions.
#[component]
fn ProjectList(rows: Memo<Vec<Arc<HistoryRow>>>) -> impl IntoView {
    let history = use_history();
    let projects = Memo::new(move |_| {
        rows.track();
        history.projects()
    });
    let chosen = move || history.view.with(|v| v.project.clone());
    let choose = move |project: Option<String>| history.choose_project(project, true);
    let on_key = move |event: web_sys::KeyboardEvent| {
        let list = projects.get_untracked();
        let names: Vec<Option<String>> =
            std::iter::once(None).chain(list.iter().map(|p| Some(p.project.clone()))).collect();
        let at = names.iter().position(|n| *n == chosen()).unwrap_or(0);
        let to = match event.key().as_str() {
            "ArrowDown" => (at + 1).min(names.len() - 1),
            "ArrowUp" => at.saturating_sub(1),
            "Home" => 0,
            "End" => names.len() - 1,
            _ => return,
        };
        event.prevent_default();
        history.choose_project(names[to].clone(), false);
    };
    let option_id = |index: usize| format!("project-{index}");
    view! {
        <nav class="history-projects" aria-label="Projects">
            <ul
                role="listbox"
                aria-label="Projects"
                tabindex="0"
                class="history-project-list"
                aria-activedescendant=move || {
                    let list = projects.get();
                    let chosen = chosen();
                    chosen
                        .and_then(|c| list.iter().position(|p| p.project == c))
                        .map_or_else(|| "project-all".to_owned(), option_id)
                }
                on:keydown=on_key
            >
                <li
                    role="option"
                    id="project-all"
                    class="history-project"
                    aria-selected=move || if chosen().is_none() { "true" } else { "false" }
                    on:click=move |_| choose(None)
                >
                    <span class="project-name">"All projects"</span>
                    <span class="project-facts muted">{move || {
                        rows.with(|r| counted(r.len(), "session"))
                    }}</span>
                </li>
                <For
                    each=move || projects.get().into_iter().enumerate()
                    key=|(i, p)| (*i, p.project.clone(), p.sessions, p.tokens)
                    let:item
                >
                    {
                        let (index, totals) = item;
                        let name = totals.project.clone();
                        let selected_name = name.clone();
                        let click_name = name.clone();
                        let last = if totals.last_ms == i64::MIN { String::new() } else { units::iso_time(totals.last_ms)[..10].to_owned() };
                        let facts = format!(
                            "{} · {} {} · ${:.2} · last {last}",
                            counted(totals.sessions, "session"),
                            units::human_count(totals.tokens),
                            noun(totals.tokens, "token"),
                            totals.cost_usd
                        );
                        view! {
                            <li
                                role="option"
                                id=option_id(index)
                                class="history-project"
                                aria-selected=move || if chosen().as_deref() == Some(selected_name.as_str()) { "true" } else { "false" }
                                on:click=move |_| choose(Some(click_name.clone()))
                            >
                                <span class="project-name" title=name.clone()>{short_project(&name)}</span>
                                <span class="project-facts muted">{facts}</span>
                            </li>
                        }
                    }
                </For>
            </ul>
        </nav>
    }
}

/// A project path as the list shows it: its last two folders.
fn short_project(project: &str) -> String {
    let parts: Vec<&str> = project.split(['/', '\\']).filter(|p| !p.is_empty()).collect();
    if parts.len() <= 2 { project.to_owned() } else { parts[parts.len() - 2..].join("/") }
}

/// The filters, the sort and the virtualized list of sessions.
#[component]
fn SessionsPane(rows: Memo<Vec<Arc<HistoryRow>>>, order: Memo<Vec<usize>>) -> impl IntoView {
    let history = use_history();
    let marks = use_marks();
    let scroller = NodeRef::<leptos::html::Div>::new();
    let scroll_top = RwSignal::new(history.scroll_top.get_value());
    let viewport = RwSignal::new(600.0);
    // The list comes back where it was left.
    Effect::new(move |_| {
        if let Some(element) = scroller.get() {
            element.set_scroll_top(history.scroll_top.get_value() as i32);
            viewport.set(f64::from(element.client_height()).max(ROW_HEIGHT));
        }
    });
    let on_scroll = move |_| {
        if let Some(element) = scroller.get_untracked() {
            let top = f64::from(element.scroll_top());
            scroll_top.set(top);
            history.scroll_top.set_value(top);
            viewport.set(f64::from(element.client_height()).max(ROW_HEIGHT));
        }
    };
    let models = Memo::new(move |_| {
        rows.with(|rows| {
            let mut all: Vec<String> = rows.iter().flat_map(|r| r.row.models.iter().cloned()).collect();
            crate::logic::sort::sort(&mut all);
            all.dedup();
            all
        })
    });
    let agents = Memo::new(move |_| {
        rows.with(|rows| {
            let mut all: Vec<String> = rows.iter().map(|r| r.row.agent.clone()).filter(|a| !a.is_empty()).collect();
            crate::logic::sort::sort(&mut all);
            all.dedup();
            all
        })
    });
    let set = move |update: fn(&mut ListView, String), value: String| {
        history.view.update(|v| update(v, value));
        history.scroll_top.set_value(0.0);
        scroll_top.set(0.0);
        if let Some(element) = scroller.get_untracked() {
            element.set_scroll_top(0);
        }
    };
    // A filter of the list that is on or off.
    let check_box = move |label: &'static str, get: fn(&ListView) -> bool, put: fn(&mut ListView, bool)| {
        view! {
            <label class="toggle">
                <input
                    type="checkbox"
                    prop:checked=move || history.view.with(get)
                    on:change=move |e| {
                        let on = event_target_checked(&e);
                        history.view.update(|v| put(v, on));
                    }
                />
                {label}
            </label>
        }
    };
    let sort_button = move |key: SortKey, label: &'static str| {
        let aria = move || {
            history.view.with(|v| {
                if v.sort != key {
                    "none"
                } else if v.descending {
                    "descending"
                } else {
                    "ascending"
                }
            })
        };
        view! {
            <button
                type="button"
                class="sort"
                aria-sort=aria
                aria-label=move || format!("Sort by {label}")
                aria-pressed=move || if history.view.with(|v| v.sort == key) { "true" } else { "false" }
                on:click=move |_| history.view.update(|v| {
                    if v.sort == key {
                        v.descending = !v.descending;
                    } else {
                        v.sort = key;
                        v.descending = !matches!(key, SortKey::Title | SortKey::Project);
                    }
                })
            >
                {label}
                {move || history.view.with(|v| (v.sort == key).then_some(if v.descending { " ↓" } else { " ↑" }))}
            </button>
        }
    };
    let move_active = move |event: web_sys::KeyboardEvent| {
        let list = order.get_untracked();
        if list.is_empty() {
            return;
        }
        let at = history.active_row.get_untracked().and_then(|r| list.iter().position(|&i| i == r));
        let page = (viewport.get_untracked() / ROW_HEIGHT).floor().max(1.0) as usize;
        let last = list.len() - 1;
        let to = match event.key().as_str() {
            "ArrowDown" | "j" => at.map_or(0, |a| (a + 1).min(last)),
            "ArrowUp" | "k" => at.map_or(0, |a| a.saturating_sub(1)),
            "PageDown" => at.map_or(0, |a| (a + page).min(last)),
            "PageUp" => at.map_or(0, |a| a.saturating_sub(page)),
            "Home" => 0,
            "End" => last,
            "Enter" | " " => {
                event.prevent_default();
                if let Some(a) = at {
                    history.open(list[a], None);
                }
                return;
            }
            _ => return,
        };
        event.prevent_default();
        history.active_row.set(Some(list[to]));
        // The active row comes into view.
        if let Some(element) = scroller.get_untracked() {
            let top = to as f64 * ROW_HEIGHT;
            let height = f64::from(element.client_height());
            let current = f64::from(element.scroll_top());
            if top < current {
                element.set_scroll_top(top as i32);
            } else if top + ROW_HEIGHT > current + height {
                element.set_scroll_top((top + ROW_HEIGHT - height) as i32);
            }
        }
    };
    let visible = move || {
        let list = order.get();
        let first = ((scroll_top.get() / ROW_HEIGHT) as usize).saturating_sub(OVERSCAN);
        let count = (viewport.get() / ROW_HEIGHT).ceil() as usize + 2 * OVERSCAN;
        let end = (first + count).min(list.len());
        let rows = rows.get();
        (first.min(end)..end)
            .map(|position| (position, list[position], rows[list[position]].clone()))
            .collect::<Vec<_>>()
    };
    let now = js_sys::Date::now() as i64;
    view! {
        <section class="history-sessions" aria-label="Sessions">
            <div class="history-filters" role="group" aria-label="Filter sessions">
                <input
                    type="search"
                    placeholder="Filter by title…"
                    aria-label="Filter by title"
                    prop:value=move || history.view.with(|v| v.text.clone())
                    on:input=move |e| set(|v, t| v.text = t, event_target_value(&e))
                />
                <label>"From " <input type="date" aria-label="From day" prop:value=move || history.view.with(|v| v.from.clone()) on:change=move |e| set(|v, t| v.from = t, event_target_value(&e)) /></label>
                <label>"To " <input type="date" aria-label="To day" prop:value=move || history.view.with(|v| v.to.clone()) on:change=move |e| set(|v, t| v.to = t, event_target_value(&e)) /></label>
                <select
                    aria-label="Model"
                    prop:value=move || history.view.with(|v| v.model.clone())
                    on:change=move |e| set(|v, t| v.model = t, event_target_value(&e))
                >
                    <option value="">"Every model"</option>
                    {move || models.get().into_iter().map(|m| {
                        let selected = history.view.with_untracked(|v| v.model == m);
                        view! { <option value=m.clone() selected=selected>{m.clone()}</option> }
                    }).collect::<Vec<_>>()}
                </select>
                <select
                    aria-label="Agent"
                    prop:value=move || history.view.with(|v| v.agent.clone())
                    on:change=move |e| set(|v, t| v.agent = t, event_target_value(&e))
                >
                    <option value="">"Every agent"</option>
                    {move || agents.get().into_iter().map(|a| {
                        let selected = history.view.with_untracked(|v| v.agent == a);
                        view! { <option value=a.clone() selected=selected>{a.clone()}</option> }
                    }).collect::<Vec<_>>()}
                </select>
                {move || (!marks.tags().is_empty()).then(|| view! {
                    <select
                        aria-label="Tag"
                        prop:value=move || history.view.with(|v| v.tag.clone())
                        on:change=move |e| set(|v, t| v.tag = t, event_target_value(&e))
                    >
                        <option value="">"Every tag"</option>
                        {marks.tags().into_iter().map(|(tag, sessions)| {
                            let selected = history.view.with_untracked(|v| v.tag.eq_ignore_ascii_case(&tag));
                            view! { <option value=tag.clone() selected=selected>{format!("#{tag} ({sessions})")}</option> }
                        }).collect::<Vec<_>>()}
                    </select>
                })}
                {check_box(" Starred", |v| v.starred_only, |v, on| v.starred_only = on)}
                {move || history.tracks_seen().then(|| view! {
                    {check_box(" New since seen", |v| v.unread_only, |v, on| v.unread_only = on)}
                    <MarkAllSeen />
                })}
            </div>
            <div class="history-sort" role="group" aria-label="Sort sessions">
                {sort_button(SortKey::Start, "Start")}
                {sort_button(SortKey::Title, "Title")}
                {sort_button(SortKey::Project, "Project")}
                {sort_button(SortKey::Duration, "Duration")}
                {sort_button(SortKey::Messages, "Messages")}
                {sort_button(SortKey::ToolCalls, "Tool calls")}
                {sort_button(SortKey::FailedCalls, "Failed calls")}
                {sort_button(SortKey::Tokens, "Tokens")}
                {sort_button(SortKey::Cost, "Cost")}
                <span class="muted">{move || format!("{} listed", order.with(Vec::len))}</span>
            </div>
            {move || {
                let filtered_out = order.with(Vec::is_empty) && rows.with(|r| !r.is_empty());
                let hint = history.view.with(|v| {
                    if v.starred_only {
                        "No starred session here: star one with ☆ Star in its header (Shift+M), or a message with m. "
                    } else if !v.tag.is_empty() {
                        "No session here has this tag: add tags with Note & tags… in a session's header (Shift+N). "
                    } else if v.unread_only {
                        "Nothing new since you last looked. "
                    } else {
                        "No session of this list matches the filters. "
                    }
                });
                filtered_out.then(|| view! {
                    <p class="history-empty" role="status">
                        {hint}
                        <button type="button" class="button small" on:click=move |_| history.view.update(ListView::clear_filters)>
                            "Clear filters"
                        </button>
                    </p>
                })
            }}
            {move || {
                let done = history.index.pass.with(|p| p.as_ref().is_some_and(|p| !p.running()));
                (done && rows.with(Vec::is_empty)).then(|| view! {
                    <div class="history-empty" role="status">
                        <p><strong>"No session log in this folder."</strong></p>
                        <p class="muted">
                            "Claude Code keeps its logs in ~/.claude/projects, Codex in ~/.codex/sessions, Gemini CLI in ~/.gemini/tmp: choose one of those folders (Choose a folder…), or drop a .jsonl log on the page. The files that were looked at and left out are listed below."
                        </p>
                    </div>
                })
            }}
            <div class="history-scroll" node_ref=scroller on:scroll=on_scroll>
                <ul
                    role="listbox"
                    aria-label="Sessions"
                    tabindex="0"
                    class="history-list"
                    style:height=move || format!("{}px", order.with(Vec::len) as f64 * ROW_HEIGHT)
                    aria-activedescendant=move || history.active_row.get().map(|r| format!("history-row-{r}"))
                    on:keydown=move_active
                >
                    <For
                        each=visible
                        // A row read again (its session grew) is drawn again.
                        key=|(position, index, row)| (*position, *index, row.row.bytes, row.row.messages, row.row.end_ms)
                        let:item
                    >
                        {
                            let (position, index, row) = item;
                            session_option(history, marks, position, index, &row.row, order, now)
                        }
                    </For>
                </ul>
            </div>
        </section>
    }
}

/// One session in the list.
fn session_option(
    history: HistoryState,
    marks: MarksState,
    position: usize,
    index: usize,
    row: &SessionRow,
    order: Memo<Vec<usize>>,
    now: i64,
) -> impl IntoView + use<> {
    let when = row
        .start_ms
        .map(|ms| format!("{} ({})", &units::iso_time(ms)[..16], units::relative_time(ms, now)))
        .unwrap_or_else(|| "no time".to_owned());
    let facts = format!(
        "{} · {} · {} · {}{} · {} {} · ${:.2}{}{}{}{}",
        short_project(&row.project),
        units::human_known_duration(units::span_ms(row.start_ms, row.end_ms)),
        counted(row.messages, "message"),
        counted(row.tool_calls, "tool call"),
        if row.failed_tool_calls > 0 { format!(" ({} failed)", row.failed_tool_calls) } else { String::new() },
        units::human_count(row.tokens()),
        noun(row.tokens(), "token"),
        row.cost_usd,
        if row.agents > 0 { format!(" · {}", counted(row.agents, "agent")) } else { String::new() },
        if row.compactions > 0 { format!(" · {}", counted(row.compactions, "compaction")) } else { String::new() },
        if row.diagnostics > 0 { format!(" · {}", counted(row.diagnostics, "diagnostic")) } else { String::new() },
        // A session bigger than the page holds is listed with what was read of it.
        if row.left_out_lines > 0 {
            format!(" · partly read: {} left out", counted(row.left_out_lines, "line"))
        } else {
            String::new()
        },
    );
    let title = if row.title.is_empty() { row.session_id.clone() } else { row.title.clone() };
    let agent = row.agent.clone();
    let unread = {
        let row = row.clone();
        Memo::new(move |_| history.unread(&row))
    };
    let id = row.session_id.clone();
    let session_marks = Memo::new(move |_| marks.session(&id));
    let badge = move || {
        let (text, title) = match unread.get() {
            Unread::Seen => return None,
            Unread::Grew(n) => (format!("{n} new"), "Messages written since you last looked"),
            Unread::New(_) => ("new session".to_owned(), "A session that appeared since you last looked"),
        };
        Some(view! { <span class="unread-badge" title=title>{text}</span> })
    };
    let star = move || {
        session_marks.with(|m| m.as_ref().is_some_and(|m| m.starred())).then(|| {
            view! { <span class="star-mark" role="img" aria-label="Starred">"★ "</span> }
        })
    };
    let tags = move || {
        session_marks.with(|m| {
            m.as_ref().map(|m| {
                m.tags().into_iter().map(|t| view! { <span class="tag">{format!("#{t}")}</span> }).collect::<Vec<_>>()
            })
        })
    };
    view! {
        <li
            role="option"
            id=format!("history-row-{index}")
            class="history-row"
            class:unread=move || unread.get() != Unread::Seen
            aria-selected=move || if history.active_row.get() == Some(index) { "true" } else { "false" }
            aria-setsize=move || order.with(Vec::len)
            aria-posinset=position + 1
            style:top=format!("{}px", position as f64 * ROW_HEIGHT)
            on:click=move |_| history.open(index, None)
        >
            <span class="history-row-title">{star}{title}" "{badge}{tags}</span>
            <span class="history-row-facts muted">
                <span class="agent-badge">{agent}</span>" "{when}" · "{facts}
            </span>
        </li>
    }
}

/// "Mark all seen": every session of the project chosen (of every project) taken as seen.
#[component]
fn MarkAllSeen() -> impl IntoView {
    let history = use_history();
    let project = move || history.view.with(|v| v.project.clone());
    let unread = move || history.unread_sessions(project().as_deref());
    view! {
        <button
            type="button"
            class="button small"
            disabled=move || unread() == 0
            title=move || match project() {
                Some(p) => format!("Take every session of {} as seen", short_project(&p)),
                None => "Take every session of every project as seen".to_owned(),
            }
            on:click=move |_| history.mark_all_seen(project().as_deref())
        >
            {move || match unread() {
                0 => "All seen".to_owned(),
                n => format!("Mark all seen ({})", counted(n, "session")),
            }}
        </button>
    }
}

/// Tokens (bars) and cost per day, or per week over a long history, of the listed sessions.
#[component]
fn UsageChart(rows: Memo<Vec<Arc<HistoryRow>>>, order: Memo<Vec<usize>>) -> impl IntoView {
    move || {
        let bins = rows.with(|rows| {
            order.with(|order| {
                let mut by_day: std::collections::BTreeMap<i64, (u64, f64)> = std::collections::BTreeMap::new();
                for &i in order {
                    let row = &rows[i].row;
                    let Some(start) = row.start_ms else { continue };
                    let bin = by_day.entry(start.div_euclid(MS_PER_DAY)).or_default();
                    bin.0 += row.tokens();
                    bin.1 += row.cost_usd;
                }
                by_day
            })
        });
        let (&first, &last) = (bins.keys().next()?, bins.keys().next_back()?);
        let days = last - first + 1;
        let width_days = if days > 180 { 7 } else { 1 };
        let count = (days + width_days - 1) / width_days;
        let mut columns = vec![(0u64, 0f64); count as usize];
        for (day, (tokens, cost)) in &bins {
            let column = &mut columns[((day - first) / width_days) as usize];
            column.0 += tokens;
            column.1 += cost;
        }
        let most = columns.iter().map(|c| c.0).max().unwrap_or(0).max(1);
        let total_cost: f64 = columns.iter().map(|c| c.1).sum();
        let total_tokens: u64 = columns.iter().map(|c| c.0).sum();
        let unit = if width_days == 7 { "week" } else { "day" };
        let label = format!(
            "Tokens and cost per {unit}, {} to {}: {} {}, ${total_cost:.2} in all; at most {} {} in a {unit}",
            &units::iso_time(first * MS_PER_DAY)[..10],
            &units::iso_time(last * MS_PER_DAY)[..10],
            units::human_count(total_tokens),
            noun(total_tokens, "token"),
            units::human_count(most),
            noun(most, "token")
        );
        let bar_width = 600.0 / count as f64;
        let bars: Vec<AnyView> = columns
            .iter()
            .enumerate()
            .filter(|(_, c)| c.0 > 0 || c.1 > 0.0)
            .map(|(i, (tokens, cost))| {
                let height = (*tokens as f64 / most as f64 * 100.0).max(1.0);
                let day = &units::iso_time((first + i as i64 * width_days) * MS_PER_DAY)[..10];
                view! {
                    <rect x=i as f64 * bar_width y=110.0 - height width=(bar_width - 1.0).max(0.5) height=height class="chart-bar">
                        <title>{format!("{day}: {} {}, ${cost:.2}", units::human_count(*tokens), noun(*tokens, "token"))}</title>
                    </rect>
                }
                .into_any()
            })
            .collect();
        Some(view! {
            <figure class="history-chart">
                <svg viewBox="0 0 600 112" preserveAspectRatio="none" role="img" aria-label=label.clone()>
                    {bars}
                </svg>
                <figcaption class="muted">{label}</figcaption>
            </figure>
        })
    }
}

/// Files that hold no session, with the reason; first, said aloud, the session file sets that
/// could not be indexed at all (their worker stopped three times).
#[component]
fn FileProblems() -> impl IntoView {
    let history = use_history();
    let failed = move || {
        history.changed.track();
        let failed = history.failed_units();
        let first = failed.first()?.clone();
        let what = match failed.len() {
            1 => format!("1 session file set could not be indexed ({}): {}.", first.path, first.reason),
            n => format!("{n} session file sets could not be indexed ({} and others): {}.", first.path, first.reason),
        };
        Some(view! {
            <p class="history-error" role="alert">
                {what}" Their sessions are not listed; reopen the folder to try them again."
            </p>
        })
    };
    let problems = move || {
        history.changed.track();
        let problems = history.problems();
        if problems.is_empty() {
            return None;
        }
        // One line says how many and why, however many files there are.
        let why = crate::logic::words::reasons_counted(problems.iter().map(|p| p.reason.as_str()), 3);
        let count = problems.len();
        let items: Vec<AnyView> = problems
            .into_iter()
            .take(500)
            .map(|p| view! { <li><code>{p.path}</code>": "{p.reason}</li> }.into_any())
            .collect();
        Some(view! {
            <section class="history-problems" aria-label="Files not indexed">
                <details>
                    <summary>{match count {
                        1 => format!("1 file holds no session: {why}"),
                        n => format!("{n} files hold no session: {why}"),
                    }}</summary>
                    <ul>{items}</ul>
                </details>
            </section>
        })
    };
    view! { {failed} {problems} }
}

/// A session's hits: its unit, session id, title and hits.
type HitSession = (u32, String, String, Vec<sessionscope_engine::history::HistoryHit>);

/// Sessions whose hits a whole-history search shows.
const SESSIONS_SHOWN: usize = 100;
/// Hits shown of each session (its count says how many it has; opening it shows them all).
const HITS_SHOWN_PER_SESSION: usize = 5;

/// Searching every session of the history: hits grouped by project and session, each opens its
/// session at the hit.
#[component]
fn HistorySearch() -> impl IntoView {
    let history = use_history();
    let marks = use_marks();
    let ranked_text = history.ranked.answer.with_value(|a| a.as_ref().map(|a| a.query.text.clone()));
    let query =
        RwSignal::new(ranked_text.unwrap_or_else(|| history.search.results.with_value(|s| s.query.text.clone())));
    let regex = RwSignal::new(history.search.results.with_value(|s| s.query.regex));
    // Ranked by default; "Exact" and "Regex" list every match, as written.
    let exact = RwSignal::new(history.search.results.with_value(|s| !s.query.is_empty() && !s.query.regex));
    let sort =
        RwSignal::new(history.ranked.answer.with_value(|a| a.as_ref().map(|a| a.query.sort)).unwrap_or_default());
    let ranked = move || !exact.get() && !regex.get();
    let ranked_now = move || !exact.get_untracked() && !regex.get_untracked();
    let rank_now = move || {
        let text = query.get_untracked();
        history.rank(RankedQuery { text, sort: sort.get_untracked(), marks: marks.export(), shown: 0 });
    };
    let submit = move |event: leptos::ev::SubmitEvent| {
        event.prevent_default();
        let text = query.get_untracked();
        if ranked_now() {
            history.clear_search();
            rank_now();
        // An empty box (or only spaces) searches nothing: it clears the last search, its error too.
        } else if text.trim().is_empty() {
            history.clear_search();
        } else {
            history.clear_ranked();
            history.run_search(SearchQuery::new(text, regex.get_untracked()));
        }
    };
    // A ranked search answers from the word indexes as the person types.
    let on_input = move |event: leptos::ev::Event| {
        query.set(event_target_value(&event));
        if ranked_now() {
            rank_now();
        }
    };
    let status = move || {
        history.search.changed.track();
        let error = history.search.results.with_value(|s| s.error.clone());
        let pass = history.search.pass.get();
        let (matches, sessions) = history.search.results.with_value(|s| {
            let sessions: std::collections::HashSet<(u32, &str)> =
                s.hits.iter().map(|(u, h)| (*u, h.session_id.as_str())).collect();
            // A unit's search stops at its hits limit: the count is then at least this ("1+
            // matches").
            let word = if s.more { plural("match") } else { noun(s.matches, "match") };
            (format!("{}{} {word}", s.matches, if s.more { "+" } else { "" }), counted(sessions.len(), "session"))
        });
        let text = match pass {
            Some(pass) if pass.running() => format!(
                "Searching: {matches} in {sessions} so far, {} of {} {}",
                pass.files_done,
                pass.files,
                noun(pass.files, "file")
            ),
            Some(pass) => format!(
                "{matches} in {sessions}{} · {:.1} s{}",
                if pass.cancelled { " (stopped)" } else { "" },
                pass.seconds(),
                match history.search.results.with_value(|s| s.ruled_out) {
                    0 => String::new(),
                    1 => " · 1 session not read: the index rules it out".to_owned(),
                    n => format!(" · {n} sessions not read: the index rules them out"),
                }
            ),
            None => String::new(),
        };
        view! {
            {error.map(|e| view! { <p class="load-error" role="alert">{e}</p> })}
            <p class="muted" role="status">{text}</p>
        }
    };
    let results = move || {
        history.search.changed.track();
        let rows = history.rows();
        let by_session: std::collections::HashMap<(u32, &str), &HistoryRow> =
            rows.iter().map(|r| ((r.unit, r.row.session_id.as_str()), &**r)).collect();
        let groups = history.search.results.with_value(|s| {
            // Grouped by project, then session, in order of arrival.
            let mut groups: Vec<(String, Vec<HitSession>)> = Vec::new();
            for (unit, hit) in &s.hits {
                let row = by_session.get(&(*unit, hit.session_id.as_str()));
                let project = row.map(|r| r.row.project.clone()).unwrap_or_default();
                let title = row.map(|r| r.row.title.clone()).unwrap_or_else(|| hit.session_id.clone());
                let at = groups.iter().position(|g| g.0 == project).unwrap_or_else(|| {
                    groups.push((project.clone(), Vec::new()));
                    groups.len() - 1
                });
                let sessions = &mut groups[at].1;
                match sessions.iter_mut().find(|(u, id, _, _)| *u == *unit && *id == hit.session_id) {
                    Some(session) => session.3.push(hit.clone()),
                    None => sessions.push((*unit, hit.session_id.clone(), title, vec![hit.clone()])),
                }
            }
            groups
        });
        if groups.is_empty() {
            return None;
        }
        // A common word matches in every session: the first sessions are shown, the count says
        // how many more there are.
        let total_sessions: usize = groups.iter().map(|g| g.1.len()).sum();
        let mut budget = SESSIONS_SHOWN;
        let view_groups: Vec<AnyView> = groups
            .into_iter()
            .filter_map(|(project, sessions)| {
                if budget == 0 {
                    return None;
                }
                let shown = sessions.len().min(budget);
                budget -= shown;
                Some((project, sessions.into_iter().take(shown)))
            })
            .map(|(project, sessions)| {
                let items: Vec<AnyView> = sessions
                    .map(|(unit, _, title, hits)| {
                        let count = hits.len();
                        let hit_items: Vec<AnyView> = hits
                            .into_iter()
                            .take(HITS_SHOWN_PER_SESSION)
                            .map(|hit| {
                                let (before, matched, after) =
                                    crate::render::terminal::match_parts(&hit.context, hit.match_start, hit.match_len);
                                let field = hit.field.name();
                                view! {
                                    <li>
                                        <button type="button" class="search-hit" on:click=move |_| history.open_hit(unit, &hit)>
                                            <span class="muted">{field}": "</span>{before}<mark>{matched}</mark>{after}
                                        </button>
                                    </li>
                                }
                                .into_any()
                            })
                            .collect();
                        view! {
                            <li class="history-hit-session">
                                <span class="history-row-title">{title}</span>
                                <span class="muted">{format!(" · {}", counted(count, "hit"))}</span>
                                <ul>{hit_items}</ul>
                            </li>
                        }
                        .into_any()
                    })
                    .collect();
                view! {
                    <li class="history-hit-project">
                        <span class="project-name">{project}</span>
                        <ul>{items}</ul>
                    </li>
                }
                .into_any()
            })
            .collect();
        let more = total_sessions.saturating_sub(SESSIONS_SHOWN);
        Some(view! {
            <ul class="history-hits">{view_groups}</ul>
            {(more > 0).then(|| view! {
                <p class="muted">{format!("…and {more} more sessions with matches: a narrower search shows them.")}</p>
            })}
        })
    };
    view! {
        <section class="history-search" aria-label="Search all sessions">
            <form on:submit=submit class="history-search-form" role="search">
                <input
                    type="search"
                    placeholder="Search every session…"
                    aria-label="Search every session"
                    on:focus=move |_| history.prepare_search()
                    prop:value=move || query.get()
                    on:input=on_input
                    list=move || ranked().then_some(COMPLETIONS_ID)
                    autocomplete="off"
                />
                {ranked_completions(history)}
                <label class="toggle" title="Find the text as written, and list every match">
                    <input type="checkbox" prop:checked=move || exact.get() on:change=move |e| exact.set(event_target_checked(&e)) />
                    " Exact"
                </label>
                <label class="toggle">
                    <input type="checkbox" prop:checked=move || regex.get() on:change=move |e| regex.set(event_target_checked(&e)) />
                    " Regex"
                </label>
                {move || ranked().then(|| view! {
                    <label class="toggle">
                        "Sort "
                        <select
                            aria-label="Sort sessions found"
                            on:change=move |e| {
                                sort.set(if event_target_value(&e) == "time" { Sort::Time } else { Sort::Score });
                                rank_now();
                            }
                        >
                            <option value="score" selected=move || sort.get() == Sort::Score>"Best match"</option>
                            <option value="time" selected=move || sort.get() == Sort::Time>"Newest"</option>
                        </select>
                    </label>
                })}
                <button type="submit" class="button">"Search"</button>
                <SearchHelp />
                {move || history.search.pass.get().filter(|p| p.running()).map(|_| view! {
                    <button type="button" class="button" on:click=move |_| history.stop_search()>"Stop"</button>
                })}
            </form>
            {move || if ranked() {
                view! { {ranked_status(history)} {ranked_list(history)} }.into_any()
            } else {
                view! { {status} {results} }.into_any()
            }}
        </section>
    }
}

/// The search language, in a disclosure beside the box (docs/cli.md has it whole): fixed
/// markup, no log content.
const SEARCH_HELP: &str = "<dl aria-label=\"The search language\"><dt><code>kettle cold</code></dt><dd>every word, in any order, anywhere</dd><dt><code>&quot;read the logs&quot;</code></dt><dd>the words side by side</dd><dt><code>deploy*</code></dt><dd>a word that starts so</dd><dt><code>-staging</code></dt><dd>without the word</dd><dt><code>rollback OR revert</code></dt><dd>either word</dd><dt><code>agent:codex project:shop model:opus</code></dt><dd>an agent, a project, a model</dd><dt><code>tool:Bash file:src/main.rs</code></dt><dd>a tool called, a path a tool named</dd><dt><code>role:user</code></dt><dd>the words in the person&#39;s prompts (or assistant, tool)</dd><dt><code>after:7d before:2026-11-01</code></dt><dd>active since, started before</dd><dt><code>is:failed is:starred tag:release</code></dt><dd>a failed tool call; the person&#39;s marks</dd></dl><p class=\"muted\">Numbers count in what was said, not in tool output. Exact and Regex list every match of the text as written.</p>";

#[component]
fn SearchHelp() -> impl IntoView {
    view! {
        <details class="search-help">
            <summary title="The search language">"Help"</summary>
            <div inner_html=SEARCH_HELP></div>
        </details>
    }
}

/// "← History": back from a session to the history home.
#[component]
pub fn BackToHistory() -> impl IntoView {
    let history = use_history();
    move || {
        (history.active.get() && !history.showing.get()).then(|| {
            view! {
                <button
                    type="button"
                    class="button"
                    aria-keyshortcuts="Alt+ArrowLeft"
                    title="Back to the history (Alt+←)"
                    on:click=move |_| history.back()
                >
                    "← History"
                </button>
            }
        })
    }
}
