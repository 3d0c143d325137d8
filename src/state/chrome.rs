//! The page chrome: the theme, a notice about a link, which dialogs are open, and where the
//! focus was before one opened (to give it back when it closes).

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::logic::theme::Theme;
use crate::platform::{page, storage};

/// Where the theme chosen is kept.
const THEME_KEY: &str = "sessionscope.theme";

#[derive(Clone, Copy)]
pub struct ChromeState {
    pub theme: RwSignal<Theme>,
    /// A message for the user about a link (a view link made on other files, a bad share).
    pub notice: RwSignal<Option<String>>,
    /// The keyboard shortcuts dialog is open.
    pub keys_open: RwSignal<bool>,
    /// The share dialog is open.
    pub share_open: RwSignal<bool>,
    /// The command palette is open.
    pub palette_open: RwSignal<bool>,
    /// The dialog of a note and tags is open.
    pub marks_open: RwSignal<bool>,
    /// Where the focus was before a dialog opened.
    dialog_opener: StoredValue<Option<web_sys::HtmlElement>, LocalStorage>,
}

impl ChromeState {
    pub fn new() -> ChromeState {
        ChromeState {
            theme: RwSignal::new(Theme::named(storage::setting(THEME_KEY).as_deref())),
            notice: RwSignal::new(None),
            keys_open: RwSignal::new(false),
            share_open: RwSignal::new(false),
            palette_open: RwSignal::new(false),
            marks_open: RwSignal::new(false),
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

    /// The theme toggle: every click shows the other theme ([`Theme::next`]).
    pub fn switch_theme(&self) {
        let system_is_dark = page::prefers_dark();
        self.theme.update(|t| *t = t.next(system_is_dark));
    }

    /// Sets `data-theme` on the root element and keeps the choice.
    pub fn apply_theme(&self, theme: Theme) {
        page::set_root_attribute("data-theme", theme.name());
        storage::set_setting(THEME_KEY, theme.name());
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
