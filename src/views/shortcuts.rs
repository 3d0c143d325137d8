//! The keyboard shortcuts, listed in a dialog that `?` (or the header's button) opens.

use leptos::prelude::*;

use crate::state::use_chrome;
use crate::views::dialog::focus_on_open;

/// `(keys, what they do)`, grouped; the same list the README gives.
const SHORTCUTS: &[(&str, &[(&str, &str)])] = &[
    (
        "Conversation",
        &[
            ("↓ / j, ↑ / k", "next, previous row"),
            ("PageDown, PageUp", "a screen down, up"),
            ("Home / g, End / G", "first, last row"),
            ("→ / l", "open the row, or go to its first child"),
            ("← / h", "close the row, or go to its parent"),
            ("Enter, Space", "open or close the row; on a branch switcher, the next branch"),
            ("[ , ]", "previous, next branch at or above the selection"),
            ("} , {", "next, previous prompt"),
            ("e, E", "next, previous failed tool call"),
            ("r", "show or hide the raw lines behind the row"),
            ("m, Shift+M", "star or unstar the selected message, the session"),
            ("n, Shift+N", "a note and tags on the selected message, the session"),
        ],
    ),
    (
        "Search",
        &[
            ("/ or Ctrl+F", "search everything loaded"),
            ("Enter, Shift+Enter", "next, previous hit"),
            ("Escape", "back to the conversation"),
        ],
    ),
    (
        "Operations list",
        &[
            ("↓, ↑", "next, previous operation or turn"),
            ("PageDown, PageUp, Home, End", "a screen down, up; the first, the last"),
            ("Enter", "show the operation in the conversation; open or close a turn"),
        ],
    ),
    (
        "Anywhere",
        &[
            ("Ctrl+K, ⌘K", "command palette: every action, session and project"),
            ("Shift+S", "share, redacted"),
            ("?", "this list"),
            ("Escape", "close a dialog"),
        ],
    ),
];

/// Whether a key goes to a text field (where single-key shortcuts must not fire).
pub fn typing_in(event: &web_sys::KeyboardEvent) -> bool {
    event
        .target()
        .and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(t).ok())
        .is_some_and(|e| matches!(e.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT"))
}

/// The header button that opens the list.
#[component]
pub fn KeysButton() -> impl IntoView {
    let chrome = use_chrome();
    view! {
        <button
            type="button"
            class="button"
            aria-haspopup="dialog"
            aria-keyshortcuts="?"
            aria-label="Keyboard shortcuts"
            title="Keyboard shortcuts (?)"
            on:click=move |_| chrome.open_dialog(chrome.keys_open)
        >
            "?"
        </button>
    }
}

#[component]
pub fn KeysDialog() -> impl IntoView {
    let chrome = use_chrome();
    let close_button = NodeRef::<leptos::html::Button>::new();
    let close = move || chrome.close_dialog(chrome.keys_open);
    let _shortcut = window_event_listener(leptos::ev::keydown, move |event| {
        let open = chrome.keys_open.get_untracked();
        if event.key() == "?" && !event.ctrl_key() && !event.meta_key() && !typing_in(&event) {
            event.prevent_default();
            if open {
                close();
            } else {
                chrome.open_dialog(chrome.keys_open);
            }
        } else if open && event.key() == "Escape" {
            event.prevent_default();
            close();
        }
    });
    focus_on_open(close_button);
    move || {
        chrome.keys_open.get().then(|| {
            view! {
                <div class="dialog-backdrop" on:click=move |e| {
                    if e.target() == e.current_target() {
                        close();
                    }
                }>
                    <div
                        class="dialog keys-dialog"
                        role="dialog"
                        aria-modal="true"
                        aria-labelledby="keys-title"
                        on:keydown=move |event| crate::views::dialog::modal_keys(&event, close)
                    >
                        <div class="share-head">
                            <h2 id="keys-title">"Keyboard shortcuts"</h2>
                            <button type="button" class="button small" node_ref=close_button on:click=move |_| close()>"Close"</button>
                        </div>
                        {SHORTCUTS
                            .iter()
                            .map(|(group, keys)| view! {
                                <table class="keys-table" aria-label=*group>
                                    <caption>{*group}</caption>
                                    <tbody>
                                        {keys
                                            .iter()
                                            .map(|(k, what)| view! {
                                                <tr><th scope="row"><kbd>{*k}</kbd></th><td>{*what}</td></tr>
                                            })
                                            .collect::<Vec<_>>()}
                                    </tbody>
                                </table>
                            })
                            .collect::<Vec<_>>()}
                    </div>
                </div>
            }
        })
    }
}
