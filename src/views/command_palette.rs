//! The command palette (Ctrl+K, ⌘K on a Mac): every action of the page with its key, and every
//! session and project by title, fuzzy-matched as one types; arrows choose, Enter runs, Escape
//! closes. What it offers and how it orders them is `logic::palette`.

use leptos::ev;
use leptos::prelude::*;
use sessionscope_engine::dag::SessionId;
use wasm_bindgen::JsCast;

use crate::logic::outline::Landmark;
use crate::logic::palette::{Action, Item, actions, ranked};
use crate::platform::handles::can_keep_folders;
use crate::state::loading::PartTo;
use crate::state::{MainTab, use_chrome, use_history, use_loading, use_sharing, use_viewer};

/// Items shown at most (the best matches).
const SHOWN: usize = 50;

#[component]
pub fn CommandPalette() -> impl IntoView {
    let chrome = use_chrome();
    let viewer = use_viewer();
    let history = use_history();
    let states = States {
        chrome,
        viewer,
        history,
        loading: use_loading(),
        sharing: use_sharing(),
        marks: crate::state::use_marks(),
    };
    let open = chrome.palette_open;
    let query = RwSignal::new(String::new());
    let active = RwSignal::new(0usize);
    // What the palette offers, made when it opens.
    let items = StoredValue::new(Vec::<Item>::new());
    let toggle = move || {
        if open.get_untracked() {
            chrome.close_dialog(open);
        } else {
            items.set_value(offered(viewer, history, states.loading));
            query.set(String::new());
            active.set(0);
            chrome.open_dialog(open);
        }
    };
    let _shortcut = window_event_listener(ev::keydown, move |event| {
        if (event.ctrl_key() || event.meta_key()) && !event.alt_key() && event.key().eq_ignore_ascii_case("k") {
            event.prevent_default();
            toggle();
        }
    });
    let matches = Memo::new(move |_| {
        open.track();
        let query = query.get();
        items.with_value(|items| ranked(items, &query, SHOWN))
    });
    let close = move || chrome.close_dialog(open);
    let run = move |index: usize| {
        let Some(action) = items.with_value(|items| items.get(index).map(|i| i.action.clone())) else { return };
        close();
        perform(states, action);
    };
    let input = NodeRef::<leptos::html::Input>::new();
    Effect::new(move |_| {
        if let Some(input) = input.get() {
            let _ = input.focus();
        }
    });
    let on_keydown = move |event: web_sys::KeyboardEvent| {
        let count = matches.with_untracked(Vec::len);
        match event.key().as_str() {
            "ArrowDown" => {
                event.prevent_default();
                active.update(|a| *a = if count == 0 { 0 } else { (*a + 1) % count });
            }
            "ArrowUp" => {
                event.prevent_default();
                active.update(|a| *a = if count == 0 { 0 } else { (*a + count - 1) % count });
            }
            "Enter" => {
                event.prevent_default();
                if let Some(index) = matches.with_untracked(|m| m.get(active.get_untracked()).copied()) {
                    run(index);
                }
            }
            _ => {}
        }
    };
    move || {
        open.get().then(|| {
            let options = move || {
                let chosen = active.get();
                matches
                    .get()
                    .into_iter()
                    .enumerate()
                    .map(|(position, index)| {
                        let (label, detail, key) = items.with_value(|items| {
                            items.get(index).map(|i| (i.label.clone(), i.detail.clone(), i.key)).unwrap_or_default()
                        });
                        view! {
                            <li
                                role="option"
                                id=format!("palette-option-{position}")
                                class="palette-option"
                                aria-selected=if position == chosen { "true" } else { "false" }
                                on:mousedown=move |event| event.prevent_default()
                                on:click=move |_| run(index)
                            >
                                <span class="palette-label">{label}</span>
                                <span class="palette-detail muted">{detail}</span>
                                {key.map(|key| view! { <kbd class="palette-key">{key}</kbd> })}
                            </li>
                        }
                    })
                    .collect::<Vec<_>>()
            };
            let empty = move || matches.with(Vec::is_empty);
            view! {
                <div class="dialog-backdrop palette-backdrop" on:click=move |e| {
                    if e.target() == e.current_target() {
                        close();
                    }
                }>
                    <div
                        class="dialog palette"
                        role="dialog"
                        aria-modal="true"
                        aria-label="Command palette"
                        on:keydown=move |event| crate::views::dialog::modal_keys(&event, close)
                    >
                        <input
                            type="text"
                            class="palette-input"
                            role="combobox"
                            aria-label="Command, session or project"
                            aria-expanded="true"
                            aria-controls="palette-options"
                            aria-autocomplete="list"
                            aria-activedescendant=move || {
                                (!empty()).then(|| format!("palette-option-{}", active.get()))
                            }
                            placeholder="Type a command, a session's or a project's title…"
                            autocomplete="off"
                            spellcheck="false"
                            node_ref=input
                            prop:value=move || query.get()
                            on:input=move |event| {
                                query.set(event_target_value(&event));
                                active.set(0);
                            }
                            on:keydown=on_keydown
                        />
                        <ul id="palette-options" class="palette-options" role="listbox" aria-label="Matches">
                            {options}
                        </ul>
                        {move || empty().then(|| view! { <p class="muted palette-empty" role="status">"Nothing matches."</p> })}
                        <p class="muted palette-help">"↑ ↓ choose · Enter run · Escape close · Ctrl+K or ⌘K opens this anywhere"</p>
                    </div>
                </div>
            }
        })
    }
}

/// The actions that make sense now, then the loaded files' sessions, the history's projects and
/// its sessions.
fn offered(
    viewer: crate::state::ViewerState,
    history: crate::state::HistoryState,
    loading: crate::state::LoadState,
) -> Vec<Item> {
    let model = viewer.model_untracked();
    let in_history = history.active.get_untracked();
    let mut items = actions(model.is_some(), in_history);
    if let Some(model) = &model {
        let parts = crate::logic::file_parts::shown_parts(&model.corpus);
        items.extend(crate::logic::palette::part_items(&parts, |path| loading.earlier_part(path).is_some()));
    }
    if let Some(model) = &model
        && model.graph.sessions.len() > 1
    {
        items.extend(model.graph.sessions.iter().enumerate().map(|(i, s)| Item {
            label: if s.title.is_empty() { s.id.clone() } else { s.title.clone() },
            detail: "Session of the loaded files".to_owned(),
            key: None,
            action: Action::ShowSession(i),
        }));
    }
    if in_history {
        items.extend(history.projects().into_iter().map(|p| Item {
            detail: format!("Project · {}", crate::logic::words::counted(p.sessions, "session")),
            label: p.project.clone(),
            key: None,
            action: Action::ShowProject(p.project),
        }));
        items.extend(history.rows().iter().enumerate().map(|(i, row)| {
            let row = &row.row;
            let project = row.project.rsplit(['/', '\\']).find(|p| !p.is_empty()).unwrap_or(&row.project);
            Item {
                label: if row.title.is_empty() { row.session_id.clone() } else { row.title.clone() },
                detail: format!("Session · {} · {project}", row.agent),
                key: None,
                action: Action::OpenHistorySession(i),
            }
        }));
    }
    items
}

/// The states an action may use, taken when the palette is made (an event handler has no
/// context to look them up in).
#[derive(Clone, Copy)]
struct States {
    chrome: crate::state::ChromeState,
    viewer: crate::state::ViewerState,
    history: crate::state::HistoryState,
    loading: crate::state::LoadState,
    sharing: crate::state::SharingState,
    marks: crate::state::MarksState,
}

/// Does what an item says, as its button or key would.
fn perform(states: States, action: Action) {
    let States { chrome, viewer, history, loading, sharing, marks } = states;
    match action {
        Action::OpenExample => loading.open_example(),
        Action::ChooseFiles => {
            loading.files_coming();
            click("input[aria-label=\"Choose session log files\"]");
        }
        Action::ChooseFolder => {
            loading.files_coming();
            if can_keep_folders() {
                history.choose_folder();
            } else {
                click("input[aria-label=\"Choose a project folder\"]");
            }
        }
        Action::Share => sharing.open_dialog(),
        Action::KeyboardShortcuts => chrome.open_dialog(chrome.keys_open),
        Action::Search => focus("input[aria-label=\"Search text\"]"),
        Action::SwitchTheme => chrome.switch_theme(),
        Action::ShowConversation => viewer.main_tab.set(MainTab::Conversation),
        Action::ShowStatistics => viewer.main_tab.set(MainTab::Statistics),
        Action::NextPrompt => landmark(viewer, Landmark::Prompt, true),
        Action::PreviousPrompt => landmark(viewer, Landmark::Prompt, false),
        Action::NextFailedCall => landmark(viewer, Landmark::FailedCall, true),
        Action::BackToHistory => history.back(),
        Action::StarSession => crate::views::marks::star_session(viewer, marks),
        Action::NoteOnSession => crate::views::marks::note_on_session(viewer, marks, chrome),
        Action::ExportMarks => crate::views::marks::export(marks),
        Action::MarkAllSeen => history.mark_all_seen(history.view.with_untracked(|v| v.project.clone()).as_deref()),
        Action::ShowSession(index) => viewer.select_session(SessionId::new(index)),
        Action::NextPart(path, start) => loading.show_part(&path, PartTo::Next(start)),
        Action::EarlierPart(path) => loading.show_part(&path, PartTo::Earlier),
        Action::FirstPart(path) => loading.show_part(&path, PartTo::First),
        Action::OpenHistorySession(index) => history.open(index, None),
        Action::ShowProject(project) => {
            if !history.showing.get_untracked() {
                history.back();
            }
            history.choose_project(Some(project), true);
        }
    }
}

/// Goes to a prompt or failed call in the conversation, and gives the tree the focus.
fn landmark(viewer: crate::state::ViewerState, landmark: Landmark, forward: bool) {
    viewer.main_tab.set(MainTab::Conversation);
    viewer.step_landmark(landmark, forward);
    focus("[role=tree]");
}

fn element(selector: &str) -> Option<web_sys::HtmlElement> {
    document().query_selector(selector).ok().flatten().and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
}

fn click(selector: &str) {
    if let Some(element) = element(selector) {
        element.click();
    }
}

fn focus(selector: &str) {
    if let Some(element) = element(selector) {
        let _ = element.focus();
    }
}
