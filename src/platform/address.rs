//! The address bar's fragment (the part after `#`, which never leaves the browser): read it,
//! replace it, or add it as a new entry of the browser's history. What a fragment means is
//! `logic::deeplink`'s.

/// The fragment in the address bar, with its `#` (empty if there is none).
pub fn fragment() -> String {
    web_sys::window().and_then(|w| w.location().hash().ok()).unwrap_or_default()
}

/// Puts `fragment` in the address bar without adding a history entry.
pub fn replace_fragment(fragment: &str) {
    put(fragment, false);
}

/// Puts `fragment` in the address bar as a new entry of the browser's history, so its Back button
/// comes back to the entry before.
pub fn push_fragment(fragment: &str) {
    put(fragment, true);
}

/// The page's address without its fragment: origin, path and query.
pub fn without_fragment() -> String {
    let Some(location) = web_sys::window().map(|w| w.location()) else { return String::new() };
    format!(
        "{}{}{}",
        location.origin().unwrap_or_default(),
        location.pathname().unwrap_or_default(),
        location.search().unwrap_or_default()
    )
}

/// A value of the address's query (`?name=value`), if it has one.
pub fn query_value(name: &str) -> Option<String> {
    let query = web_sys::window()?.location().search().ok()?;
    query
        .trim_start_matches('?')
        .split('&')
        .find_map(|pair| pair.strip_prefix(name)?.strip_prefix('=').map(str::to_owned))
}

fn put(fragment: &str, new_entry: bool) {
    let Some(window) = web_sys::window() else { return };
    if window.location().hash().ok().as_deref() == Some(fragment) {
        return;
    }
    // An empty URL keeps the fragment (Chromium): no fragment is the path and query alone.
    let url = if fragment.is_empty() {
        let location = window.location();
        format!("{}{}", location.pathname().unwrap_or_default(), location.search().unwrap_or_default())
    } else {
        fragment.to_owned()
    };
    let Ok(history) = window.history() else { return };
    let _ = if new_entry {
        history.push_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url))
    } else {
        history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url))
    };
}
