//! What every modal dialog does with the focus: it takes it when it opens (on its first
//! button, or the one given); `ChromeState::close_dialog` gives it back to where it was.

use leptos::prelude::*;

/// Focuses `button` once it is in the page (the `autofocus` attribute does not work on
/// elements added after the page has loaded and been used).
pub fn focus_on_open(button: NodeRef<leptos::html::Button>) {
    Effect::new(move |_| {
        if let Some(button) = button.get() {
            let _ = button.focus();
        }
    });
}
