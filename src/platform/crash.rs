//! What the page shows when its own code panics: after a panic the app can no longer answer, so
//! the hook draws, with the DOM alone (no reactive code), a dialog that says what happened and a
//! Reload button, over whatever was on screen. Nothing is cleared: the remembered folders, the
//! marks and the cached indexes are in the browser's storage, and the reloaded page finds them.
//! The panic is also written to the console, as before.

use std::sync::atomic::{AtomicBool, Ordering};

use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;

/// The address's query that makes the page panic once it is up: how the tests see the dialog.
pub const PANIC_FOR_TESTS: &str = "debug=panic";

static SHOWN: AtomicBool = AtomicBool::new(false);

/// Installs the hook: the console's report, then the dialog (once).
pub fn install() {
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        if !SHOWN.swap(true, Ordering::SeqCst) {
            let what = info
                .payload()
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| info.payload().downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "an internal error".to_owned());
            let place = info.location().map(|l| format!(" ({}:{})", l.file(), l.line())).unwrap_or_default();
            show(&format!("{what}{place}"));
        }
    }));
}

/// Whether the address asks for a panic (tests only).
pub fn panic_asked() -> bool {
    web_sys::window().and_then(|w| w.location().search().ok()).is_some_and(|s| s.contains(PANIC_FOR_TESTS))
}

/// Draws the dialog over the page, and focuses its Reload button.
fn show(what: &str) {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else { return };
    let Some(body) = document.body() else { return };
    let element = |tag: &str, text: &str| {
        let node = document.create_element(tag).ok()?;
        node.set_text_content(Some(text));
        Some(node)
    };
    let Some(backdrop) = element("div", "") else { return };
    backdrop.set_class_name("dialog-backdrop crashed");
    let Some(dialog) = element("div", "") else { return };
    dialog.set_class_name("dialog");
    let _ = dialog.set_attribute("role", "alertdialog");
    let _ = dialog.set_attribute("aria-modal", "true");
    let _ = dialog.set_attribute("aria-labelledby", "crash-title");
    let _ = dialog.set_attribute("aria-describedby", "crash-what");
    let parts = [
        element("h2", "sessionscope stopped"),
        element(
            "p",
            "The page ran into a fault of its own and can no longer answer. Nothing left your \
             machine, and nothing was forgotten: your remembered folders, marks and cached \
             indexes are kept. Reload to start again.",
        ),
        element("pre", &format!("What happened: {what}")),
        element("button", "Reload"),
    ];
    let [Some(title), Some(words), Some(detail), Some(button)] = parts else { return };
    title.set_id("crash-title");
    words.set_id("crash-what");
    detail.set_class_name("crash-detail");
    button.set_class_name("button primary");
    let _ = button.set_attribute("type", "button");
    let reload = Closure::once_into_js(reload);
    let _ = button.add_event_listener_with_callback("click", reload.unchecked_ref());
    for part in [&title, &words, &detail, &button] {
        let _ = dialog.append_child(part);
    }
    let _ = backdrop.append_child(&dialog);
    let _ = body.append_child(&backdrop);
    if let Some(button) = button.dyn_ref::<web_sys::HtmlElement>() {
        let _ = button.focus();
    }
}

/// Loads the page again; without the tests' panic, if it was asked for.
fn reload() {
    let Some(window) = web_sys::window() else { return };
    let location = window.location();
    if panic_asked() {
        let path = location.pathname().unwrap_or_default();
        let hash = location.hash().unwrap_or_default();
        let _ = location.replace(&format!("{path}{hash}"));
    } else {
        let _ = location.reload();
    }
}
