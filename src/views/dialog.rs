//! What every modal dialog does with the focus: it takes it when it opens (on its first
//! button, or the one given) and gives it back to where it was when it closes.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::state::AppState;

/// Remembers the focused element, to give the focus back when the dialog closes.
pub fn remember_opener(state: &AppState) {
    state.dialog_opener.set_value(document().active_element().and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok()));
}

/// Gives the focus back to where it was before the dialog opened.
pub fn restore_focus(state: &AppState) {
    if let Some(element) = state.dialog_opener.get_value() {
        let _ = element.focus();
    }
}

/// Focuses `button` once it is in the page (the `autofocus` attribute does not work on
/// elements added after the page has loaded and been used).
pub fn focus_on_open(button: NodeRef<leptos::html::Button>) {
    Effect::new(move |_| {
        if let Some(button) = button.get() {
            let _ = button.focus();
        }
    });
}
