//! Markdown is rendered by a wasm module of its own (`src/bin/markdown.rs`: pulldown-cmark and
//! [`crate::render::markdown`]), so the page's first download does not carry it. The page asks
//! for it once it is idle, or when a session is drawn before that ([`load`]). On a served page
//! `markdown_loader.js` fetches it; an exported file starts the copy it carries as it opens
//! (`export::html`). Either way the renderer is then called synchronously ([`to_html`]).
//!
//! Until it is there, Markdown shows as its plain text, and what was drawn so is drawn again
//! when it arrives. If it cannot load, Markdown stays plain text: still readable, never HTML.

use std::cell::{Cell, RefCell};

use leptos::prelude::{ArcTrigger, Notify, Track};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};

/// The event the loader (or an exported file's start-up script) sends when the renderer is
/// ready, or could not be loaded.
pub const ARRIVED_EVENT: &str = "sessionscope-markdown";
/// Where the renderer is then: a function from Markdown to HTML, or `null` if it failed.
pub const RENDERER: &str = "sessionscopeMarkdown";

#[derive(Clone, Copy, PartialEq, Eq)]
enum Status {
    NotAsked,
    Loading,
    Ready,
    Failed,
}

thread_local! {
    static STATUS: Cell<Status> = const { Cell::new(Status::NotAsked) };
    static RENDERER_FUNCTION: RefCell<Option<js_sys::Function>> = const { RefCell::new(None) };
    /// Views that drew plain text while the module was loading track this.
    static ARRIVED: ArcTrigger = ArcTrigger::new();
}

/// Asks for the module, once: the loader script on a served page. An exported file started
/// its own copy as it opened, so there it only waits for it.
pub fn load() {
    if STATUS.get() != Status::NotAsked {
        return;
    }
    STATUS.set(Status::Loading);
    let Some(window) = web_sys::window() else { return STATUS.set(Status::Failed) };
    let on_arrival = Closure::<dyn FnMut()>::new(take_renderer);
    let _ = window.add_event_listener_with_callback(ARRIVED_EVENT, on_arrival.as_ref().unchecked_ref());
    on_arrival.forget();
    if take_renderer_now() {
        return;
    }
    let Some(document) = window.document() else { return };
    if document.get_element_by_id(crate::export::STANDALONE_MARKER).is_some() {
        return;
    }
    let Ok(script) = document.create_element("script") else { return };
    let _ = script.set_attribute("src", "./markdown_loader.js");
    if let Some(head) = document.head() {
        let _ = head.append_child(&script);
    }
}

fn take_renderer() {
    take_renderer_now();
}

/// Takes the renderer if the module has answered: `true` if it has (ready or failed).
fn take_renderer_now() -> bool {
    let Some(window) = web_sys::window() else { return false };
    let value = js_sys::Reflect::get(&window, &RENDERER.into()).unwrap_or(JsValue::UNDEFINED);
    let status = match value.dyn_into::<js_sys::Function>() {
        Ok(function) => {
            RENDERER_FUNCTION.set(Some(function));
            Status::Ready
        }
        Err(value) if value.is_null() => {
            web_sys::console::warn_1(&"The Markdown module could not be loaded: Markdown is shown as text.".into());
            Status::Failed
        }
        Err(_) => return false,
    };
    if STATUS.replace(status) != status {
        ARRIVED.with(|arrived| arrived.notify());
    }
    true
}

/// `text` rendered as safe HTML, or `None` while the module is not there (or if it failed). A
/// view that calls this in a reactive closure is drawn again when the module arrives.
pub fn to_html(text: &str) -> Option<String> {
    let rendered = RENDERER_FUNCTION
        .with_borrow(|function| function.as_ref().map(|f| f.call1(&JsValue::NULL, &JsValue::from_str(text))));
    match rendered {
        Some(Ok(html)) => html.as_string(),
        // The renderer trapped on this text (a bug in it): the text is shown as it is.
        Some(Err(_)) => None,
        None => {
            load();
            if STATUS.get() == Status::Loading {
                ARRIVED.with(|arrived| arrived.track());
            }
            None
        }
    }
}
