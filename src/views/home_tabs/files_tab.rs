//! The Files tab: every file the history's tools read or changed, per project, as a list the
//! insights worker draws a window of at a time (filtered and sorted there, so a history's tens of
//! thousands of files cost the page one window of rows); and a file's page, whose changes' diffs
//! come in as the units that made them are read again, and whose kept versions can be compared.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use super::{Coverage, act, by_id, error_view};
use crate::logic::words::counted;
use crate::state::history::use_history;
use crate::wire::insights::{FileOrder, FileQuery, InsightsReply, InsightsRequest};

/// Height of a file's row, in pixels, as the worker places them (`worker::draw::files_html`).
const ROW_HEIGHT: f64 = 56.0;
/// Rows drawn beyond the visible ones, above and below.
const OVERSCAN: usize = 8;
/// The Files tab's filters (the projects' choices are added as the worker names them).
const FILTERS: &str = r#"<input type="search" name="file-text" placeholder="Filter by path…" aria-label="Filter by path"><select name="file-project" aria-label="Project"><option value="">Every project</option></select><label><input type="checkbox" name="file-changed"> Changed only</label><label>Sort by <select name="file-order" aria-label="Sort files by"><option value="last-change">Last change</option><option value="changes">Changes</option><option value="sessions">Sessions</option><option value="path">Path</option></select></label>"#;

/// Changes drawn at first on a file's page, and more each time "Show more" is pressed.
const CHANGES: u32 = 50;
/// The most bytes of a kept version read to compare it.
const MAX_VERSION_BYTES: f64 = 4.0 * 1024.0 * 1024.0;

#[component]
pub fn FilesTab() -> impl IntoView {
    let history = use_history();
    move || {
        if history.insights.file.with(Option::is_some) {
            view! { <FilePage /> }.into_any()
        } else {
            view! { <FileList /> }.into_any()
        }
    }
}

/// The files, filtered and sorted by the worker, a window of them drawn.
#[component]
fn FileList() -> impl IntoView {
    let history = use_history();
    // The workers that read a file's changes start now: they are ready when a file is opened.
    history.prepare_diffs();
    let query = RwSignal::new(FileQuery {
        project: history.view.with_untracked(|v| v.project.clone()),
        ..FileQuery::default()
    });
    let scroll_top = RwSignal::new(0.0);
    let viewport = RwSignal::new(600.0);
    let active = RwSignal::new(None::<u32>);
    let rows = RwSignal::new(String::new());
    let total = RwSignal::new(0u32);
    let all = RwSignal::new(None::<u32>);
    let projects = RwSignal::new(Vec::<String>::new());
    let error = RwSignal::new(None::<String>);
    let scroller = NodeRef::<leptos::html::Div>::new();
    // The rows in view, and a few around them.
    let window = Memo::new(move |_| {
        let first = ((scroll_top.get() / ROW_HEIGHT) as usize).saturating_sub(OVERSCAN);
        let count = (viewport.get() / ROW_HEIGHT).ceil() as usize + 2 * OVERSCAN;
        (first as u32, count as u32)
    });
    let generation = StoredValue::new(0u64);
    Effect::new(move |_| {
        history.insights.changed.track();
        let (from, count) = window.get();
        let request = InsightsRequest::Files { query: query.get(), from, count, active: active.get() };
        let asked = generation.try_update_value(|g| {
            *g += 1;
            *g
        });
        let started = crate::platform::schedule::now_ms();
        leptos::task::spawn_local(async move {
            let answer = history.draw_insights(request).await;
            if generation.try_get_value() != asked {
                return;
            }
            match answer {
                Ok(InsightsReply::FileRows { html, total: listed, all: every, projects: names }) => {
                    rows.set(html);
                    total.set(listed);
                    all.set(Some(every));
                    if projects.with_untracked(|p| *p != names) {
                        projects.set(names);
                    }
                    error.set(None);
                    crate::platform::schedule::after_next_paint(move || {
                        web_sys::console::debug_1(
                            &format!(
                                "sessionscope files: {listed} of {every} files listed, shown in {:.0} ms",
                                crate::platform::schedule::now_ms() - started
                            )
                            .into(),
                        );
                    });
                }
                Ok(_) => {}
                Err(why) => error.set(Some(why)),
            }
        });
    });
    let on_scroll = move |_| {
        if let Some(element) = scroller.get_untracked() {
            scroll_top.set(f64::from(element.scroll_top()));
            viewport.set(f64::from(element.client_height()).max(ROW_HEIGHT));
        }
    };
    Effect::new(move |_| {
        if let Some(element) = scroller.get() {
            viewport.set(f64::from(element.client_height()).max(ROW_HEIGHT));
        }
    });
    let set = move |update: &dyn Fn(&mut FileQuery)| {
        query.update(|q| update(q));
        active.set(None);
        scroll_top.set(0.0);
        if let Some(element) = scroller.get_untracked() {
            element.set_scroll_top(0);
        }
    };
    let open_active = move || {
        let Some(at) = active.get_untracked() else { return };
        if let Some(row) = by_id(&format!("file-row-{at}")) {
            let project = row.get_attribute("data-project").unwrap_or_default();
            let path = row.get_attribute("data-path").unwrap_or_default();
            history.open_file(&project, &path);
        }
    };
    let on_key = move |event: web_sys::KeyboardEvent| {
        let len = total.get_untracked();
        if len == 0 {
            return;
        }
        let at = active.get_untracked();
        let page = (viewport.get_untracked() / ROW_HEIGHT).floor().max(1.0) as u32;
        let to = match event.key().as_str() {
            "ArrowDown" | "j" => at.map_or(0, |a| (a + 1).min(len - 1)),
            "ArrowUp" | "k" => at.map_or(0, |a| a.saturating_sub(1)),
            "PageDown" => at.map_or(0, |a| (a + page).min(len - 1)),
            "PageUp" => at.map_or(0, |a| a.saturating_sub(page)),
            "Home" => 0,
            "End" => len - 1,
            "Enter" | " " => {
                event.prevent_default();
                open_active();
                return;
            }
            _ => return,
        };
        event.prevent_default();
        active.set(Some(to));
        if let Some(element) = scroller.get_untracked() {
            let top = f64::from(to) * ROW_HEIGHT;
            let height = f64::from(element.client_height());
            let current = f64::from(element.scroll_top());
            if top < current {
                element.set_scroll_top(top as i32);
            } else if top + ROW_HEIGHT > current + height {
                element.set_scroll_top((top + ROW_HEIGHT - height) as i32);
            }
        }
    };
    let on_click = move |event: web_sys::MouseEvent| {
        let _ = act(history, &event);
    };
    // The filters are plain markup (no view code for them in the page's download): one handler
    // reads which one changed; the projects' choices are put in as the worker names them.
    let on_filter = move |event: web_sys::Event| {
        let Some(target) = event.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()) else { return };
        let name = target.get_attribute("name").unwrap_or_default();
        let value = || {
            target
                .dyn_ref::<web_sys::HtmlInputElement>()
                .map(|i| i.value())
                .or_else(|| target.dyn_ref::<web_sys::HtmlSelectElement>().map(|s| s.value()))
                .unwrap_or_default()
        };
        match name.as_str() {
            "file-text" => {
                let text = value();
                set(&|q| q.text = text.clone());
            }
            "file-project" => {
                let project = value();
                set(&|q| q.project = (!project.is_empty()).then(|| project.clone()));
            }
            "file-changed" => {
                let checked = target.dyn_ref::<web_sys::HtmlInputElement>().is_some_and(|i| i.checked());
                set(&|q| q.changed_only = checked);
            }
            "file-order" => {
                let order = match value().as_str() {
                    "changes" => FileOrder::Changes,
                    "sessions" => FileOrder::Sessions,
                    "path" => FileOrder::Path,
                    _ => FileOrder::LastChange,
                };
                set(&|q| q.order = order);
            }
            _ => {}
        }
    };
    let filters = NodeRef::<leptos::html::Div>::new();
    Effect::new(move |_| {
        let names = projects.get();
        let Some(root) = filters.get() else { return };
        let Ok(Some(select)) = root.query_selector("select[name=\"file-project\"]") else { return };
        let chosen = query.with_untracked(|q| q.project.clone());
        fill_projects(&select, &names, chosen.as_deref());
    });
    let fill_projects_in = |root: &web_sys::HtmlDivElement, names: &[String]| {
        if let Ok(Some(select)) = root.query_selector("select[name=\"file-project\"]") {
            fill_projects(&select, names, None);
        }
    };
    let empty = move || {
        let every = all.get()?;
        if every == 0 {
            let sessions = history.rows().len();
            let text = if sessions == 0 {
                "No session has been indexed yet.".to_owned()
            } else {
                format!("No tool call of the {} of this history read or changed a file.", counted(sessions, "session"))
            };
            Some(view! { <p class="insights-empty" role="status">{text}</p> }.into_any())
        } else if total.get() == 0 {
            Some(
                view! {
                    <p class="history-empty" role="status">
                        "No file matches the filters. "
                        <button type="button" class="button small" on:click=move |_| {
                            set(&|q| *q = FileQuery::default());
                            if let Some(root) = filters.get_untracked() {
                                root.set_inner_html(FILTERS);
                                fill_projects_in(&root, &projects.get_untracked());
                            }
                        }>
                            "Clear filters"
                        </button>
                    </p>
                }
                .into_any(),
            )
        } else {
            None
        }
    };
    view! {
        <section class="insights" aria-label="Files">
            <Coverage />
            <div class="history-filters" role="group" aria-label="Filter files">
                <div class="history-filters" node_ref=filters on:input=on_filter on:change=on_filter inner_html=FILTERS></div>
                <span class="muted" role="status">{move || format!("{} listed", counted(total.get(), "file"))}</span>
            </div>
            {error_view(error)}
            {empty}
            <div class="history-scroll" node_ref=scroller on:scroll=on_scroll>
                <ul
                    role="listbox"
                    aria-label="Files"
                    tabindex="0"
                    class="history-list file-list"
                    style:height=move || format!("{}px", f64::from(total.get()) * ROW_HEIGHT)
                    style:padding-top=move || format!("{}px", f64::from(window.get().0.min(total.get())) * ROW_HEIGHT)
                    aria-activedescendant=move || active.get().map(|a| format!("file-row-{a}"))
                    on:keydown=on_key
                    on:click=on_click
                    inner_html=move || rows.get()
                ></ul>
            </div>
        </section>
    }
}

/// A file's page: the worker draws it, its changes' diffs fill in as their units answer.
#[component]
fn FilePage() -> impl IntoView {
    let history = use_history();
    let shown = RwSignal::new(CHANGES);
    let container = NodeRef::<leptos::html::Div>::new();
    let read = StoredValue::new(Vec::<(u32, Vec<String>)>::new());
    let html = RwSignal::new(String::new());
    let error = RwSignal::new(None::<String>);
    let generation = StoredValue::new(0u64);
    Effect::new(move |_| {
        history.insights.changed.track();
        let Some(key) = history.insights.file.get() else { return };
        let request = InsightsRequest::File { project: key.project, path: key.path, shown: shown.get() };
        let asked = generation.try_update_value(|g| {
            *g += 1;
            *g
        });
        leptos::task::spawn_local(async move {
            let answer = history.draw_insights(request).await;
            if generation.try_get_value() != asked {
                return;
            }
            match answer {
                Ok(InsightsReply::FilePage { html: page, read: units, .. }) => {
                    html.set(page);
                    read.set_value(units.clone());
                    history.read_diffs(units);
                }
                Ok(_) => {}
                Err(why) => error.set(Some(why)),
            }
        });
    });
    // Each change's diff as it comes; the versions whose files the walk found, marked.
    Effect::new(move |_| {
        html.track();
        history.insights.diffs_changed.track();
        let Some(root) = container.get() else { return };
        fill_diffs(history, &root);
        mark_versions(history, &root);
    });
    let compare = move |root: web_sys::Element| {
        let index = |name: &str| -> Option<usize> {
            let select = root.query_selector(&format!("select[data-compare=\"{name}\"]")).ok()??;
            select.dyn_into::<web_sys::HtmlSelectElement>().ok()?.value().parse().ok()
        };
        let versions = root.query_selector_all("li[data-version-session]").ok();
        let version = |at: usize| -> Option<(String, String, String)> {
            let item = versions.as_ref()?.item(at as u32)?.dyn_into::<web_sys::Element>().ok()?;
            Some((
                item.get_attribute("data-version-session")?,
                item.get_attribute("data-version-backup")?,
                item.text_content().unwrap_or_default(),
            ))
        };
        let (Some(old), Some(new)) = (index("compare-old").and_then(version), index("compare-new").and_then(version))
        else {
            return;
        };
        let output = root.query_selector("[data-compare-output]").ok().flatten();
        leptos::task::spawn_local(async move {
            let texts = futures::join!(
                history.version_text(&old.0, &old.1, MAX_VERSION_BYTES),
                history.version_text(&new.0, &new.1, MAX_VERSION_BYTES)
            );
            let drawn = match texts {
                (Ok(old_text), Ok(new_text)) => {
                    let heading = format!("{} → {}", old.1, new.1);
                    match history
                        .draw_insights(InsightsRequest::Compare { heading, old: old_text, new: new_text })
                        .await
                    {
                        Ok(InsightsReply::Drawn { html }) => Ok(html),
                        Ok(_) => Err("another answer".to_owned()),
                        Err(why) => Err(why),
                    }
                }
                (Err(why), _) | (_, Err(why)) => Err(why),
            };
            if let Some(output) = output {
                match drawn {
                    Ok(html) => output.set_inner_html(&html),
                    Err(why) => output.set_text_content(Some(&format!("The versions could not be read: {why}."))),
                }
                let _ = output.set_attribute("role", "region");
                let _ = output.set_attribute("aria-label", "Versions compared");
            }
        });
    };
    let on_click = move |event: web_sys::MouseEvent| match act(history, &event) {
        Some((action, _)) if action == "more-changes" => shown.update(|n| *n += CHANGES),
        Some((action, _)) if action == "compare-versions" => {
            if let Some(root) = container.get_untracked() {
                compare(root.into());
            }
        }
        _ => {}
    };
    view! {
        {error_view(error)}
        <div class="insights-drawn" node_ref=container on:click=on_click inner_html=move || html.get()></div>
    }
}

/// The project filter's choices: every project, then `names`, `chosen` selected.
fn fill_projects(select: &web_sys::Element, names: &[String], chosen: Option<&str>) {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else { return };
    select.set_inner_html("");
    for (value, label) in std::iter::once(("", "Every project")).chain(names.iter().map(|n| (n.as_str(), n.as_str()))) {
        let Ok(option) = document.create_element("option") else { continue };
        let _ = option.set_attribute("value", value);
        option.set_text_content(Some(label));
        if chosen.unwrap_or("") == value {
            let _ = option.set_attribute("selected", "");
        }
        let _ = select.append_child(&option);
    }
}

/// Puts each change's diff read so far in its place (once).
fn fill_diffs(history: crate::state::history::HistoryState, root: &web_sys::HtmlDivElement) {
    let Ok(places) = root.query_selector_all("[data-diff]:not([data-filled])") else { return };
    for at in 0..places.length() {
        let Some(place) = places.item(at).and_then(|n| n.dyn_into::<web_sys::Element>().ok()) else { continue };
        let Some(key) = place.get_attribute("data-diff") else { continue };
        let Some(diff) = history.change_diff(&key) else { continue };
        if diff.is_empty() {
            place.set_inner_html("");
            let note = web_sys::window().and_then(|w| w.document()).and_then(|d| d.create_element("p").ok());
            if let Some(note) = note {
                let _ = note.set_attribute("class", "muted");
                note.set_text_content(Some("The log does not hold the text of this change."));
                let _ = place.append_child(&note);
            }
        } else {
            // Drawn by a worker, every text escaped (`worker::draw::diff_html`).
            place.set_inner_html(&diff);
        }
        let _ = place.set_attribute("data-filled", "");
    }
}

/// Marks the kept versions whose files the walk did not find, and says so where none was.
fn mark_versions(history: crate::state::history::HistoryState, root: &web_sys::HtmlDivElement) {
    let Ok(items) = root.query_selector_all("li[data-version-session]:not([data-checked])") else { return };
    if items.length() == 0 {
        return;
    }
    let mut found = 0;
    for at in 0..items.length() {
        let Some(item) = items.item(at).and_then(|n| n.dyn_into::<web_sys::Element>().ok()) else { continue };
        let session = item.get_attribute("data-version-session").unwrap_or_default();
        let backup = item.get_attribute("data-version-backup").unwrap_or_default();
        let _ = item.set_attribute("data-checked", "");
        if history.has_version_file(&session, &backup) {
            found += 1;
        } else {
            let _ = item.set_attribute("data-missing", "");
            let _ =
                item.set_attribute("title", "Its file was not found: drop the whole ~/.claude folder to compare it");
        }
    }
    if found == 0
        && let Ok(Some(controls)) = root.query_selector("[aria-label=\"Compare versions\"]")
    {
        controls.set_text_content(Some(
            "Their files were not found: drop the whole ~/.claude folder (with file-history/) to compare them.",
        ));
        let _ = controls.set_attribute("class", "muted");
    }
}
