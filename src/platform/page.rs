//! The page itself: whether it runs standalone (an exported file, or opened from disk), its root
//! element's attributes, the system's colour scheme, and a hook for the browser benchmarks.

use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

/// The element holding the app's wasm in an exported file, whose presence tells the app it runs
/// standalone; the render module's event and global (the engine's export writes them into the
/// file's start-up script).
pub use sessionscope_engine::share::page::{RENDER_ARRIVED_EVENT, RENDER_MODULE_GLOBAL, STANDALONE_MARKER};

/// Whether the app runs without a server: an exported HTML file, or a page opened from disk
/// (browsers do not start workers from `file://`).
pub fn standalone() -> bool {
    let Some(window) = web_sys::window() else { return true };
    let from_disk = window.location().protocol().is_ok_and(|p| p == "file:");
    let exported = window.document().and_then(|d| d.get_element_by_id(STANDALONE_MARKER)).is_some();
    from_disk || exported
}

/// Whether this page is an exported file (it carries the app's wasm).
pub fn exported() -> bool {
    web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id(STANDALONE_MARKER)).is_some()
}

/// Sets (`Some`) or removes (`None`) an attribute of the document's root element.
pub fn set_root_attribute(name: &str, value: Option<&str>) {
    let Some(root) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.document_element()) else { return };
    let _ = match value {
        Some(value) => root.set_attribute(name, value),
        None => root.remove_attribute(name),
    };
}

/// Whether the system asks for dark colours.
pub fn prefers_dark() -> bool {
    web_sys::window()
        .and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten())
        .is_some_and(|m| m.matches())
}

/// Whether the tab is hidden (in the background, minimised).
pub fn hidden() -> bool {
    web_sys::window().and_then(|w| w.document()).is_some_and(|d| d.hidden())
}

/// Bytes of this wasm instance's memory (which grows and never shrinks): the page's, what holding
/// the open session costs it, for the history's memory test and benchmark (`tests/bench/`); or a
/// worker's, for its debug messages.
#[wasm_bindgen(js_name = pageMemoryBytes)]
pub fn page_memory_bytes() -> f64 {
    wasm_bindgen::memory()
        .dyn_into::<js_sys::WebAssembly::Memory>()
        .map_or(0.0, |memory| memory.buffer().unchecked_into::<js_sys::ArrayBuffer>().byte_length() as f64)
}

/// Bytes the page's heap holds now (`heap::live_bytes`): what the memory test asks to come back
/// down once a session is let go, which the memory's size cannot say.
#[wasm_bindgen(js_name = pageHeapBytes)]
pub fn page_heap_bytes() -> f64 {
    super::heap::live_bytes() as f64
}

/// Calls `on_change` with whether the tab is hidden each time it is hidden or shown again, for
/// the page's life.
pub fn on_visibility_change(on_change: impl Fn(bool) + 'static) {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else { return };
    let closure = Closure::<dyn Fn()>::new(move || on_change(hidden()));
    let _ = document.add_event_listener_with_callback("visibilitychange", closure.as_ref().unchecked_ref());
    // The listener lives as long as the page.
    closure.forget();
}
