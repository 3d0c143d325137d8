//! The page chrome: the theme, a notice about a link, which dialogs are open, and where the
//! focus was before one opened (to give it back when it closes).

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::theme::{self, Theme};

#[derive(Clone, Copy)]
pub struct ChromeState {
    pub theme: RwSignal<Theme>,
    /// A message for the user about a link (a view link made on other files, a bad share).
    pub notice: RwSignal<Option<String>>,
    /// The keyboard shortcuts dialog is open.
    pub keys_open: RwSignal<bool>,
    /// The share dialog is open.
    pub share_open: RwSignal<bool>,
    /// Where the focus was before a dialog opened.
    dialog_opener: StoredValue<Option<web_sys::HtmlElement>, LocalStorage>,
}

impl ChromeState {
    pub fn new() -> ChromeState {
        ChromeState {
            theme: RwSignal::new(theme::stored_theme()),
            notice: RwSignal::new(None),
            keys_open: RwSignal::new(false),
            share_open: RwSignal::new(false),
            dialog_opener: StoredValue::new_local(None),
        }
    }

    /// Opens a dialog (`keys_open`, `share_open`), remembering the focused element.
    pub fn open_dialog(&self, open: RwSignal<bool>) {
        self.dialog_opener
            .set_value(document().active_element().and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok()));
        open.set(true);
    }

    /// Closes a dialog and gives the focus back to where it was before the dialog opened.
    pub fn close_dialog(&self, open: RwSignal<bool>) {
        open.set(false);
        if let Some(element) = self.dialog_opener.get_value() {
            let _ = element.focus();
        }
    }

    /// The theme toggle: every click shows the other theme. From following the system it picks
    /// the other one; from a theme picked, it goes back to following the system when the
    /// system's theme is the other one, so the choice can be undone.
    pub fn switch_theme(&self) {
        let system_is_dark = theme::is_dark(Theme::System);
        self.theme.update(|t| *t = next_theme(*t, system_is_dark));
    }
}

/// The theme after a click of the toggle, the system's being dark or not.
fn next_theme(theme: Theme, system_is_dark: bool) -> Theme {
    let shows_dark = match theme {
        Theme::System => system_is_dark,
        Theme::Dark => true,
        Theme::Light => false,
    };
    let other_is_dark = !shows_dark;
    if theme != Theme::System && other_is_dark == system_is_dark {
        // The other theme is the system's: follow the system again.
        Theme::System
    } else if other_is_dark {
        Theme::Dark
    } else {
        Theme::Light
    }
}

impl Default for ChromeState {
    fn default() -> Self {
        ChromeState::new()
    }
}

pub fn use_chrome() -> ChromeState {
    expect_context::<ChromeState>()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_toggle_shows_the_other_theme_and_comes_back_to_the_system() {
        for system_is_dark in [false, true] {
            let mut theme = Theme::System;
            let mut shown = Vec::new();
            for _ in 0..4 {
                theme = next_theme(theme, system_is_dark);
                shown.push(theme);
            }
            let other = if system_is_dark { Theme::Light } else { Theme::Dark };
            assert_eq!(shown, [other, Theme::System, other, Theme::System], "system dark: {system_is_dark}");
        }
        // A theme picked as the system's own (the system changed since) goes to the other one.
        assert_eq!(next_theme(Theme::Dark, true), Theme::Light);
        assert_eq!(next_theme(Theme::Light, false), Theme::Dark);
    }
}
