//! Where the focus goes. Every modal dialog takes it when it opens (on its first button, or the
//! one given), keeps it while open (Tab and Shift+Tab go round its own controls, Escape closes
//! it), and `ChromeState::close_dialog` gives it back to where it was. A view that replaces the
//! one holding the focus takes it when it fell to the page's body (`take_lost_focus`).

use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// What Tab can reach in a dialog.
const FOCUSABLE: &str = "button:not([disabled]), [href], input:not([disabled]), select:not([disabled]), \
                         textarea:not([disabled]), summary, [tabindex]:not([tabindex='-1'])";

/// The keys of a modal dialog, on its `keydown`: Escape calls `close`; Tab from its last control
/// goes to its first, Shift+Tab from its first to its last, so the focus never leaves it for the
/// page behind (which `aria-modal` says cannot be used meanwhile).
pub fn modal_keys(event: &web_sys::KeyboardEvent, close: impl Fn()) {
    // WebKitGTK names Shift+Tab's key "Unidentified"; its code is the Tab key's all the same.
    let key = if event.code() == "Tab" { "Tab".to_owned() } else { event.key() };
    match key.as_str() {
        "Escape" => {
            event.prevent_default();
            event.stop_propagation();
            close();
        }
        "Tab" => {
            let Some(dialog) = event.current_target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()) else {
                return;
            };
            let Ok(controls) = dialog.query_selector_all(FOCUSABLE) else { return };
            let first = controls.get(0).and_then(|n| n.dyn_into::<web_sys::HtmlElement>().ok());
            let last = controls
                .get(controls.length().saturating_sub(1))
                .and_then(|n| n.dyn_into::<web_sys::HtmlElement>().ok());
            let (Some(first), Some(last)) = (first, last) else { return };
            let active = web_sys::window().and_then(|w| w.document()).and_then(|d| d.active_element());
            let at =
                |e: &web_sys::HtmlElement| active.as_ref().is_some_and(|a| a == e.unchecked_ref::<web_sys::Element>());
            let inside = active.as_ref().is_some_and(|a| dialog.contains(Some(a)));
            if event.shift_key() && (at(&first) || !inside) {
                event.prevent_default();
                let _ = last.focus();
            } else if !event.shift_key() && (at(&last) || !inside) {
                event.prevent_default();
                let _ = first.focus();
            }
        }
        _ => {}
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

/// Once the view that calls it is on the page: if the focus fell to the page's body (the button
/// that had it went away with the view it was in: Open example, a session opened from the
/// history, the way back to it), it goes to the element `selector` finds, so the keyboard goes
/// on from there instead of from the top of the page.
pub fn take_lost_focus(selector: &'static str) {
    Effect::new(move |_| {
        let Some(document) = web_sys::window().and_then(|w| w.document()) else { return };
        let lost = match (document.active_element(), document.body()) {
            (None, _) => true,
            (Some(active), Some(body)) => active == *body.unchecked_ref::<web_sys::Element>(),
            (Some(_), None) => false,
        };
        if !lost {
            return;
        }
        if let Some(target) =
            document.query_selector(selector).ok().flatten().and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
        {
            let _ = target.focus();
        }
    });
}
