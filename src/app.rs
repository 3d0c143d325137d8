//! The app shell: it makes the page's clients and states (each state its own context), wires the
//! outside world (drops, files the installed app is launched with, the address bar, Back and
//! Forward) to them, and lays out the top bar, the start screen, loading, the history home and the
//! viewer.

use leptos::ev;
use leptos::prelude::*;

use crate::client::folders::Folders;
use crate::client::intake::{Dropped, Intake};
use crate::client::session_worker::SessionWorkers;
use crate::client::workers::Workers;
use crate::logic::deeplink;
use crate::logic::outline::RowKey;
use crate::logic::theme::Theme;
use crate::logic::words::{counted, noun};
use crate::platform::{address, handles, launch, schedule};
use crate::render::units;
use crate::state::session_search::SearchState;
use crate::state::sharing::{SharingState, use_sharing};
use crate::state::{
    ChromeState, HistoryState, LoadState, LoadStatus, MainTab, MarksState, ViewerState, use_chrome, use_loading,
    use_viewer,
};
use crate::views::panel::SidePanel;
use crate::views::progress::{AddOrReplace, LoadProgress};
use crate::views::search_box::SearchBox;
use crate::views::sessions::SessionList;
use crate::views::start::{PickButtons, StartScreen};
use crate::views::stats::Statistics;
use crate::views::summary::LoadSummary;
use crate::views::tree::ConversationTree;

#[component]
pub fn App() -> impl IntoView {
    // The page's side of IO: its workers (one started ahead of time), the open session's worker,
    // how files come in, the folders this browser remembers.
    let workers = Workers::new();
    let sessions = SessionWorkers::new(workers.clone());
    let intake = Intake::new(workers.clone());
    // The states, each its own context. Loading drives the viewer, search and chrome; the history
    // and sharing hand files to loading.
    let chrome = ChromeState::new();
    provide_context(chrome);
    let search = SearchState::new(sessions.clone());
    provide_context(search);
    let viewer = ViewerState::new();
    provide_context(viewer);
    let loading = LoadState::new(viewer, search, chrome, workers.clone(), intake.clone());
    provide_context(loading);
    let history = HistoryState::new(loading, workers.clone(), intake, Folders::new());
    provide_context(history);
    let marks = MarksState::new(Folders::new());
    provide_context(marks);
    marks.load();
    let sharing = SharingState::new(loading, viewer, chrome, sessions);
    provide_context(sharing);
    workers.prepare_soon();
    schedule::when_idle(crate::render::module::load, 2000);
    sharing.open_shares();
    history.load_remembered();
    // Files the operating system opened with the installed app take the path a pick takes.
    launch::on_launch(move |files| history.open_launched(files));

    // A hidden tab keeps what was seen at once; rows that arrive while it is hidden get the
    // "new since" divider.
    crate::platform::page::on_visibility_change(move |hidden| {
        viewer.set_hidden(hidden);
        if hidden {
            history.keep_seen_now();
        } else {
            history.look_now();
        }
    });
    let _pagehide = window_event_listener(ev::pagehide, move |_| history.keep_seen_now());

    // The outside world: the theme attribute, the address bar, files dropped anywhere.
    Effect::new(move |_| chrome.apply_theme(chrome.theme.get()));
    Effect::new(move |_| {
        let Some(key) = viewer.selected.get() else { return };
        // A link opened with a big load waits for the whole of it, not the first part on screen.
        if loading.preview.get_untracked().is_some() {
            return;
        }
        let Some(model) = viewer.model.get_value() else { return };
        let session = viewer.session.get_untracked();
        let Some(s) = model.graph.sessions.get(session.index()) else { return };
        // The message, and the file it is in.
        let message = match key {
            RowKey::Entry(e) => model.corpus.entries.get(e.index()).map(|entry| {
                let path = model.corpus.files.get(entry.file as usize).map(|f| f.path.clone());
                (model.corpus.entry_uuid(entry).to_owned(), path)
            }),
            _ => None,
        };
        let (uuid, path) = message.unzip();
        // A session opened from a history names its project too.
        let project = history.opened.get_untracked().and_then(|row| history.row(row)).map(|r| r.row.project.clone());
        let fragment = match project {
            Some(project) => deeplink::format_in_project(&project, Some(&s.id), uuid.as_deref()),
            None => deeplink::format(&s.id, uuid.as_deref()),
        };
        // A message in a later part of a big file names that part, so the link opens it there.
        let part = path.flatten().and_then(|path| loading.shown_part(&path));
        address::replace_fragment(&deeplink::with_part(fragment, part));
    });
    let dragging = RwSignal::new(false);
    let _dragover = window_event_listener(ev::dragover, move |event| {
        event.prevent_default();
        if !dragging.get_untracked() {
            // Files are on their way: the worker that will parse them starts now, if it has not,
            // and warms up.
            loading.files_coming();
        }
        dragging.set(true);
    });
    let _dragleave = window_event_listener(ev::dragleave, move |event| {
        if event.related_target().is_none() {
            dragging.set(false);
        }
    });
    let _drop = window_event_listener(ev::drop, move |event| {
        event.prevent_default();
        dragging.set(false);
        if let Some(data) = event.data_transfer() {
            // The drop's items are read now: they are gone once the event is over.
            let dropped = Dropped::of(&data);
            // One folder, in a browser that gives a handle to it, is remembered and read
            // through its handle, as a folder picked with "Choose a folder…" is.
            if handles::can_keep_folders()
                && let Some(handle) = handles::dropped_folder(&data)
            {
                history.prewarm();
                leptos::task::spawn_local(async move {
                    match wasm_bindgen_futures::JsFuture::from(handle).await.map(wasm_bindgen::JsCast::dyn_into) {
                        Ok(Ok(handle)) => history.open_handle(handle, Some(dropped)).await,
                        _ => history.walk_dropped(dropped).await,
                    }
                });
                return;
            }
            leptos::task::spawn_local(async move { history.walk_dropped(dropped).await });
        }
    });
    // The browser's Back and Forward move between the history home and a session opened from it.
    let _popstate = window_event_listener(ev::popstate, move |_| history.on_history_entry());
    // Alt+← goes back from a session to its history, as a browser goes back.
    let _back = window_event_listener(ev::keydown, move |event| {
        if event.alt_key() && event.key() == "ArrowLeft" && history.active.get_untracked() {
            event.prevent_default();
            history.back();
        }
    });

    // A memo, so the viewer is built once per "something is loaded", not once per model.
    let loaded = Memo::new(move |_| viewer.model().is_some());
    let loaded = move || loaded.get();
    let in_history = move || history.showing.get();
    view! {
        <header class="topbar">
            <span class="brand">"sessionscope"</span>
            {move || if loaded() {
                view! { <SearchBox /> }.into_any()
            } else {
                view! { <span class="tagline">"Coding-agent session logs, read in your browser"</span> }.into_any()
            }}
            <span class="spacer"></span>
            <crate::views::history_home::BackToHistory />
            {move || (in_history() && !loaded()).then(|| view! {
                <div class="topbar-actions">
                    <PickButtons />
                    <button type="button" class="button" on:click=move |_| loading.open_example()>"Example"</button>
                </div>
            })}
            {move || loaded().then(|| view! {
                <div class="topbar-actions">
                    <button
                        type="button"
                        class="button primary"
                        aria-haspopup="dialog"
                        aria-keyshortcuts="Shift+S"
                        disabled=move || loading.preview.get().is_some()
                        title=move || loading.preview.get().map(|_| "Sharing waits until everything is loaded")
                        on:click=move |_| sharing.open_dialog()
                    >
                        "Share…"
                    </button>
                    {move || (history.following.on.get() && history.opened.get().is_some()).then(|| view! {
                        <button
                            type="button"
                            class="button"
                            aria-pressed=move || if viewer.follow_newest.get() { "true" } else { "false" }
                            title="Keep the newest row in view as the agent writes"
                            on:click=move |_| viewer.toggle_follow()
                        >
                            "Follow"
                        </button>
                    })}
                    <PickButtons />
                    <button type="button" class="button" on:click=move |_| loading.open_example()>"Example"</button>
                </div>
            })}
            <crate::views::shortcuts::KeysButton />
            <ThemeToggle />
        </header>
        <SharedBanner />
        <Notice />
        <LoadProgress />
        <AddOrReplace />
        <crate::views::share::ShareDialog />
        <crate::views::shortcuts::KeysDialog />
        <crate::views::command_palette::CommandPalette />
        <crate::views::marks::MarkDialog />
        {move || match loading.status.get() {
            LoadStatus::Failed(message) => Some(view! {
                <p class="load-error" role="alert">{format!("Could not open the files: {message}")}</p>
            }),
            _ => None,
        }}
        <main class="content" class:dragging=move || dragging.get()>
            {move || if sharing.passphrase_needed() {
                view! { <PassphrasePrompt /> }.into_any()
            } else if in_history() {
                view! { <crate::views::history_home::HistoryHome /> }.into_any()
            } else if loaded() {
                view! { <Viewer /> }.into_any()
            } else {
                view! { <StartScreen /> }.into_any()
            }}
        </main>
    }
}

/// "Shared view, redacted": what a share holds and what was taken out.
#[component]
fn SharedBanner() -> impl IntoView {
    let loading = use_loading();
    move || {
        let header = loading.shared.get()?;
        let kinds = header
            .redaction
            .kinds
            .iter()
            .map(|(kind, distinct, places)| format!("{kind}: {distinct} ({})", counted(*places, "place")))
            .collect::<Vec<_>>()
            .join(", ");
        let title = header.title.clone();
        Some(view! {
            <section class="shared-banner" role="region" aria-label="Shared view">
                <p>
                    <strong>"Shared view, redacted"</strong>
                    " · read-only: this page holds only what its author chose to share, and it came with the link, not from a server. "
                    {crate::state::sharing::banner_text(&header)}
                </p>
                {(!title.is_empty()).then(|| view! { <p class="muted">"Title: "{title}</p> })}
                {(!kinds.is_empty()).then(|| view! { <p class="muted">"Placeholders: "{kinds}</p> })}
            </section>
        })
    }
}

/// A message about a link (a view link made on other files).
#[component]
fn Notice() -> impl IntoView {
    let chrome = use_chrome();
    move || {
        let text = chrome.notice.get()?;
        Some(view! {
            <div class="notice" role="status">
                <span>{text}</span>
                <button type="button" class="button" on:click=move |_| chrome.notice.set(None)>"Dismiss"</button>
            </div>
        })
    }
}

/// Asks for the passphrase of a protected share.
#[component]
fn PassphrasePrompt() -> impl IntoView {
    let sharing = use_sharing();
    let passphrase = RwSignal::new(String::new());
    let busy = RwSignal::new(false);
    Effect::new(move |_| {
        if sharing.unlock_error.get().is_some() {
            busy.set(false);
        }
    });
    let submit = move |event: ev::SubmitEvent| {
        event.prevent_default();
        busy.set(true);
        sharing.unlock_share(passphrase.get_untracked());
    };
    view! {
        <section class="dropzone passphrase" aria-label="Protected share">
            <p class="dropzone-title">"This shared view is protected by a passphrase"</p>
            <p class="dropzone-note">"The link holds the session encrypted; it is decrypted here, in your browser."</p>
            <form on:submit=submit>
                <label>
                    "Passphrase "
                    <input
                        type="password"
                        autocomplete="off"
                        autofocus
                        prop:value=move || passphrase.get()
                        on:input=move |e| passphrase.set(event_target_value(&e))
                    />
                </label>
                " "
                <button type="submit" class="button primary" disabled=move || busy.get()>
                    {move || if busy.get() { "Opening…" } else { "Open" }}
                </button>
            </form>
            {move || sharing.unlock_error.get().map(|message| view! {
                <p class="load-error" role="alert">{format!("Could not open the share: {message}")}</p>
            })}
        </section>
    }
}

#[component]
fn ThemeToggle() -> impl IntoView {
    let chrome = use_chrome();
    let label = move || match chrome.theme.get() {
        Theme::System => "Theme: system",
        Theme::Light => "Theme: light",
        Theme::Dark => "Theme: dark",
    };
    let next = move |_| chrome.switch_theme();
    view! {
        <button type="button" class="button theme-toggle" on:click=next aria-label="Switch between light and dark">
            {label}
        </button>
    }
}

#[component]
fn Viewer() -> impl IntoView {
    let viewer = use_viewer();
    crate::views::dialog::take_lost_focus("[role=tree]");
    let tab = viewer.main_tab;
    // The tab's view is built again only when the tab changes, not each time it is set.
    let shown = Memo::new(move |_| tab.get());
    let tab_button = move |which: MainTab, label: &'static str| {
        view! {
            <button
                type="button"
                role="tab"
                class="panel-tab"
                aria-selected=move || if tab.get() == which { "true" } else { "false" }
                on:click=move |_| tab.set(which)
            >
                {label}
            </button>
        }
    };
    view! {
        <div class="viewer">
            <LoadSummary />
            <SessionList />
            <div class="workspace">
                <section class="conversation" aria-label="Conversation view">
                    <SessionHeader />
                    <div class="main-tabs" role="tablist" aria-label="Views">
                        {tab_button(MainTab::Conversation, "Conversation")}
                        {tab_button(MainTab::Statistics, "Statistics")}
                    </div>
                    {move || match shown.get() {
                        MainTab::Conversation => view! { <ConversationTree /> }.into_any(),
                        MainTab::Statistics => view! { <div class="stats-scroll"><Statistics /></div> }.into_any(),
                    }}
                </section>
                <SidePanel />
            </div>
        </div>
    }
}

#[component]
fn SessionHeader() -> impl IntoView {
    let viewer = use_viewer();
    move || {
        let model = viewer.model()?;
        let session = viewer.session.get();
        let Some(s) = model.graph.sessions.get(session.index()) else {
            return Some(no_conversation(&model).into_any());
        };
        let title = if s.title.is_empty() { s.id.clone() } else { s.title.clone() };
        let u = s.usage_with_agents;
        let token_count = u.input_tokens + u.output_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens;
        let tokens = format!("{} {}", units::human_count(token_count), noun(token_count, "token"));
        let first = (s.first_timestamp_ms != i64::MAX).then_some(s.first_timestamp_ms);
        let last = (s.last_timestamp_ms != i64::MIN).then_some(s.last_timestamp_ms);
        let span = first.map(|first| {
            let duration = crate::views::duration_view(units::span_ms(Some(first), last));
            view! { " · "{units::iso_time(first)}" · "{duration} }
        });
        let facts = format!(
            "{} · {} · {} · {} · {} · {tokens} · ${:.2}",
            counted(s.entries, "entry"),
            counted(s.agents.len(), "agent"),
            counted(s.compactions, "compaction"),
            counted(s.real_forks, "branch"),
            counted(s.tool_uses, "tool call"),
            s.cost_with_agents_usd
        );
        let hidden = move || {
            viewer.outline_rebuilt.track();
            viewer.outline.with_value(|o| o.as_ref().map_or(0, |o| o.hidden_noise))
        };
        let id = s.id.clone();
        let id_for_marks = s.id.clone();
        Some(view! {
            <div class="session-header">
                <h1 class="session-title">{title}</h1>
                <p class="session-facts"><span class="session-id">{id}</span>{span}" · "{facts}</p>
                <crate::views::resume::ResumeCommand />
                <crate::views::marks::SessionMarkBar session_id=id_for_marks />
                <label class="toggle">
                    <input
                        type="checkbox"
                        prop:checked=move || viewer.show_noise.get()
                        on:change=move |event| viewer.set_show_noise(event_target_checked(&event))
                    />
                    {move || format!(" Show hidden lines (progress, hooks, meta: {})", hidden())}
                </label>
                <crate::views::filters::GraphFilters />
                <p class="keys muted">"Keys: j/k move · } { next/previous prompt · e next failed call · Enter/Space or ←/→ collapse and expand · [ ] switch branch · g/G start/end · r raw lines · m star · n note · / search · ? all keys"</p>
            </div>
        }.into_any())
    }
}

/// What the files hold when no line of them is part of a conversation (a summary-only file, a
/// session whose messages were all cut): their metadata lines and the texts they carry.
fn no_conversation(model: &crate::logic::loaded::Model) -> impl IntoView + use<> {
    let corpus = &model.corpus;
    let texts: Vec<String> = corpus
        .metas
        .iter()
        .filter(|m| !m.text.is_empty())
        .map(|m| format!("{}: {}", corpus.sym(m.type_name), corpus.span_text(m.file, m.text)))
        .take(20)
        .collect();
    view! {
        <div class="session-header" role="status">
            <h1 class="session-title">"No conversation in these files"</h1>
            <p class="session-facts">
                {format!(
                    "{} and no message: nothing to show as a conversation. The load summary above says what each file was read as.",
                    counted(corpus.metas.len(), "metadata line")
                )}
            </p>
            {(!texts.is_empty()).then(|| view! {
                <ul class="no-conversation">
                    {texts.into_iter().map(|text| view! { <li>{text}</li> }).collect::<Vec<_>>()}
                </ul>
            })}
        </div>
    }
}
