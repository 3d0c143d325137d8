//! Light and dark themes: the system's by default, or the user's choice, remembered.

/// Light, dark, or what the system says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Theme {
    System,
    Light,
    Dark,
}

const KEY: &str = "sessionscope.theme";

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

pub fn stored_theme() -> Theme {
    match storage().and_then(|s| s.get_item(KEY).ok().flatten()).as_deref() {
        Some("light") => Theme::Light,
        Some("dark") => Theme::Dark,
        _ => Theme::System,
    }
}

/// Sets `data-theme` on the root element and remembers the choice.
pub fn apply(theme: Theme) {
    let Some(root) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.document_element()) else { return };
    let value = match theme {
        Theme::System => None,
        Theme::Light => Some("light"),
        Theme::Dark => Some("dark"),
    };
    match value {
        Some(v) => {
            let _ = root.set_attribute("data-theme", v);
        }
        None => {
            let _ = root.remove_attribute("data-theme");
        }
    }
    if let Some(storage) = storage() {
        let _ = match value {
            Some(v) => storage.set_item(KEY, v),
            None => storage.remove_item(KEY),
        };
    }
}

/// The theme in effect, resolving "system".
pub fn is_dark(theme: Theme) -> bool {
    match theme {
        Theme::Dark => true,
        Theme::Light => false,
        Theme::System => web_sys::window()
            .and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten())
            .is_some_and(|m| m.matches()),
    }
}
