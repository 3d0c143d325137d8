//! The history home's tabs beyond its sessions: Files (every file the history's tools read or
//! changed, and a file's page with every change across sessions), Failures (failed tool calls,
//! interrupted turns and API errors, grouped) and Activity (a calendar of the history's hours,
//! usage per model and project, ccusage's 5-hour blocks).
//!
//! The history's insights worker draws them (`worker::draw`: SVG charts in the theme's colours,
//! each with a table behind it, every text escaped); the page shows what it drew, keeps the
//! controls (filters, the metric, the keyboard's moves) and acts on the drawing's buttons through
//! one click handler, by their `data-action`.

mod activity_tab;
mod failures_tab;
mod files_tab;

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::logic::words::counted;
use crate::platform::schedule::now_ms;
use crate::state::history::{HistoryState, HomeTab, use_history};
use crate::wire::insights::{InsightsReply, InsightsRequest};

pub use activity_tab::ActivityTab;
pub use failures_tab::FailuresTab;
pub use files_tab::FilesTab;

/// The tabs of the history home, as an ARIA tab list: the arrow keys, Home and End move between
/// them.
#[component]
pub fn HomeTabs() -> impl IntoView {
    let history = use_history();
    let tab = history.insights.tab;
    let on_key = move |event: web_sys::KeyboardEvent| {
        let all = HomeTab::ALL;
        let at = all.iter().position(|t| *t == tab.get_untracked()).unwrap_or(0);
        let to = match event.key().as_str() {
            "ArrowRight" => (at + 1) % all.len(),
            "ArrowLeft" => (at + all.len() - 1) % all.len(),
            "Home" => 0,
            "End" => all.len() - 1,
            _ => return,
        };
        event.prevent_default();
        history.choose_tab(all[to]);
        if let Some(button) = by_id(&format!("home-tab-{}", all[to].slug())) {
            let _ = button.focus();
        }
    };
    let buttons = HomeTab::ALL
        .into_iter()
        .map(|which| {
            view! {
                <button
                    type="button"
                    role="tab"
                    class="panel-tab"
                    id=format!("home-tab-{}", which.slug())
                    aria-controls="home-tab-panel"
                    aria-selected=move || if tab.get() == which { "true" } else { "false" }
                    tabindex=move || if tab.get() == which { "0" } else { "-1" }
                    on:click=move |_| history.choose_tab(which)
                >
                    {which.label()}
                </button>
            }
        })
        .collect::<Vec<_>>();
    view! {
        <div class="panel-tabs home-tabs" role="tablist" aria-label="History views" on:keydown=on_key>
            {buttons}
        </div>
    }
}

/// What a tab's figures cover: while the index runs, or where some sessions could not be read
/// whole, it says how many sessions they count.
#[component]
pub fn Coverage() -> impl IntoView {
    let history = use_history();
    move || {
        history.insights.changed.track();
        let (with, all) = history.insights_coverage();
        let running = history.index.pass.with(|p| p.as_ref().is_some_and(|p| p.running()));
        let text = if running {
            format!(
                "Indexing: these figures count the {} read so far, and grow as the index goes on.",
                counted(with, "session")
            )
        } else if with < all {
            format!("These figures count {with} of the {}: the others could not be read.", counted(all, "session"))
        } else {
            return None;
        };
        Some(view! { <p class="muted insights-coverage" role="status">{text}</p> })
    }
}

/// What the insights worker drew for a request, shown as it is, drawn again when the history's
/// insights change or the request does. `name` says what it is in the log (the benchmarks read
/// how long a tab took to show).
pub fn drawn(
    name: &'static str,
    request: impl Fn() -> InsightsRequest + 'static,
) -> (RwSignal<String>, RwSignal<Option<String>>) {
    let history = use_history();
    let html = RwSignal::new(String::new());
    let error = RwSignal::new(None::<String>);
    let generation = StoredValue::new(0u64);
    Effect::new(move |_| {
        history.insights.changed.track();
        let request = request();
        let asked = generation.try_update_value(|g| {
            *g += 1;
            *g
        });
        let started = now_ms();
        leptos::task::spawn_local(async move {
            let answer = history.draw_insights(request).await;
            // An older request answered after a newer one was made: its drawing is stale.
            if generation.try_get_value() != asked {
                return;
            }
            match answer {
                Ok(InsightsReply::Drawn { html: drawn }) => {
                    let bytes = drawn.len();
                    html.set(drawn);
                    error.set(None);
                    crate::platform::schedule::after_next_paint(move || {
                        web_sys::console::debug_1(
                            &format!(
                                "sessionscope {name}: {bytes} bytes drawn and shown in {:.0} ms",
                                now_ms() - started
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
    (html, error)
}

/// Acts on a click on a drawing's button: opening a session at a place, a file's page, or going
/// back to the files. Answers the action it did not handle (with its element), for the caller.
pub fn act(history: HistoryState, event: &web_sys::MouseEvent) -> Option<(String, web_sys::Element)> {
    let target = event.target()?.dyn_into::<web_sys::Element>().ok()?;
    let element = target.closest("[data-action]").ok()??;
    let action = element.get_attribute("data-action")?;
    let data = |name: &str| element.get_attribute(name).unwrap_or_default();
    match action.as_str() {
        "open-place" => {
            let unit = data("data-unit").parse().unwrap_or(u32::MAX);
            history.open_place(unit, &data("data-session"), &data("data-entry"));
            None
        }
        "open-file" => {
            history.open_file(&data("data-project"), &data("data-path"));
            None
        }
        "back-to-files" => {
            history.back_to_files();
            None
        }
        _ => Some((action, element)),
    }
}

/// The element of the page with this id.
pub fn by_id(id: &str) -> Option<web_sys::HtmlElement> {
    web_sys::window()?.document()?.get_element_by_id(id)?.dyn_into().ok()
}

/// A drawing's error, if the worker could not draw it.
pub fn error_view(error: RwSignal<Option<String>>) -> impl IntoView {
    move || {
        error.get().map(
            |why| view! { <p class="load-error" role="alert">{format!("This view could not be drawn: {why}.")}</p> },
        )
    }
}
