//! The page's side of the render module: Markdown and diffs are made by a wasm module of their
//! own (`src/bin/render.rs`: pulldown-cmark, similar, and this folder's Markdown and diff code),
//! so the page's first download does not carry them. The page asks for it once it is
//! idle, or when a session is on its way, or drawn before that ([`load`]). On a served page
//! `render_loader.js` fetches it; an exported file starts the copy it carries as it opens
//! (`export::html`). Either way its functions are then called synchronously.
//!
//! Until it is there, and if it cannot load, each caller draws something plain that hides
//! nothing (Markdown as its text, an edit as its old lines removed and its new lines added), and
//! what was drawn so is drawn again when the module arrives.

use std::cell::{Cell, RefCell};

use leptos::prelude::{ArcTrigger, Notify, Track};
use sessionscope_engine::small_json;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};

use crate::render::diff::DiffLine;

use crate::platform::page::{RENDER_ARRIVED_EVENT as ARRIVED_EVENT, RENDER_MODULE_GLOBAL as MODULE};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Status {
    NotAsked,
    Loading,
    Ready,
    Failed,
}

// Globals, because a browser event (the module's arrival, from its loader script) fills them in,
// and any view calls the module synchronously while it draws, with no context at hand.
thread_local! {
    static STATUS: Cell<Status> = const { Cell::new(Status::NotAsked) };
    static EXPORTS: RefCell<Option<JsValue>> = const { RefCell::new(None) };
    /// Views that drew something plain while the module was loading track this.
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
    let on_arrival = Closure::<dyn FnMut()>::new(|| {
        take_module();
    });
    let _ = window.add_event_listener_with_callback(ARRIVED_EVENT, on_arrival.as_ref().unchecked_ref());
    on_arrival.forget();
    if take_module() {
        return;
    }
    let Some(document) = window.document() else { return };
    if crate::platform::page::exported() {
        return;
    }
    let Ok(script) = document.create_element("script") else { return };
    let _ = script.set_attribute("src", "./render_loader.js");
    if let Some(head) = document.head() {
        let _ = head.append_child(&script);
    }
}

/// Takes the module's functions if it has answered: `true` if it has (ready or failed).
fn take_module() -> bool {
    let Some(window) = web_sys::window() else { return false };
    let exports = js_sys::Reflect::get(&window, &MODULE.into()).unwrap_or(JsValue::UNDEFINED);
    let status = if exports.is_undefined() {
        return false;
    } else if exports.is_null() {
        web_sys::console::warn_1(
            &"The render module could not be loaded: Markdown is shown as text, edits whole.".into(),
        );
        Status::Failed
    } else {
        // wasm-bindgen's init function, which carries the exports.
        EXPORTS.set(Some(exports));
        crate::platform::schedule::when_idle(warm_up, 2000);
        Status::Ready
    };
    if STATUS.replace(status) != status {
        ARRIVED.with(|arrived| arrived.notify());
    }
    true
}

/// Markdown with what messages commonly hold, for [`warm_up`].
const WARM_UP_MARKDOWN: &str = "# Plan\n\nThe **kettle** needs a `simmer` mode, see [docs](https://example.com).\n\n\
    | Step | File |\n| --- | ---: |\n| add | brew.rs |\n\n```rust\nfn simmer() {}\n```\n\n- [x] read\n- [ ] *test*\n\n> quoted\n";

/// Runs the module's code at idle until the browser has optimised it. A wasm function is
/// compiled quickly and simply when first called, and optimised on other threads once it has run
/// enough. Both used to happen during a big session's first drawing, the first call taking
/// 25–33 ms and the optimising taking a core from it (first rows of a 100 MB drop: 705 ms against
/// 600 ms with Markdown on the page). Run 40 times here, in slices at idle, they happen before:
/// first rows 606 ms against 604 ms for the build with Markdown on the page.
fn warm_up() {
    warm_up_from(0);
}

/// Runs `from` and the next [`WARM_UP_SLICE`] of the warm-up's runs, the rest in idle moments
/// after: all at once was a task of 60–90 ms, which a click would have waited for.
fn warm_up_from(from: usize) {
    let to = (from + WARM_UP_SLICE).min(WARM_UP_RUNS);
    for run in from..to {
        let _ = markdown_to_html(WARM_UP_MARKDOWN);
        if run % 4 == 0 {
            let edit = (
                "let kettle = boil(water);\nlet tea = steep(kettle);\n".to_owned(),
                "let kettle = simmer(water);\nlet tea = steep(kettle);\n".to_owned(),
            );
            let _ = diff_edits(std::slice::from_ref(&edit));
        }
    }
    if to < WARM_UP_RUNS {
        crate::platform::schedule::when_idle(move || warm_up_from(to), 2000);
    }
}

/// How many times [`warm_up`] renders its Markdown (and diffs an edit, one time in four).
const WARM_UP_RUNS: usize = 40;
/// How many of those runs one idle moment takes.
const WARM_UP_SLICE: usize = 8;

/// Calls the module's function `name` with `argument`. `None` while the module is not there
/// (a reactive caller is then run again when it arrives), if it failed to load, or if the
/// function trapped on this input (a bug in it: the caller's plain form is shown).
fn call(name: &str, argument: &str) -> Option<String> {
    // The first call asks for the module; an exported file's copy may have arrived already,
    // before anything asked (Safari's engine starts it before the page's first rows), and is
    // taken then.
    let exports = EXPORTS.with_borrow(Clone::clone).or_else(|| {
        load();
        EXPORTS.with_borrow(Clone::clone)
    });
    let Some(exports) = exports else {
        track_arrival();
        return None;
    };
    let function = js_sys::Reflect::get(&exports, &name.into()).ok()?.dyn_into::<js_sys::Function>().ok()?;
    function.call1(&JsValue::NULL, &JsValue::from_str(argument)).ok()?.as_string()
}

/// Makes the reactive caller run again when the module arrives, if it is on its way: what was
/// drawn plain is drawn again then, and what depends on the drawing (a search's highlights) with
/// it.
pub fn track_arrival() {
    if STATUS.get() == Status::Loading {
        ARRIVED.with(|arrived| arrived.track());
    }
}

/// `text` rendered as safe HTML.
pub fn markdown_to_html(text: &str) -> Option<String> {
    call("markdownToHtml", text)
}

/// The diff of edits (`(old, new)` texts), their lines one after the other, changed words marked.
pub fn diff_edits(edits: &[(String, String)]) -> Option<Vec<DiffLine>> {
    let answer = call("diffEdits", &small_json::to_string(edits).ok()?)?;
    small_json::from_str(&answer).ok()
}

/// `lines` with their changed words marked.
pub fn mark_changed_words(lines: &[DiffLine]) -> Option<Vec<DiffLine>> {
    let answer = call("markChangedWords", &small_json::to_string(lines).ok()?)?;
    small_json::from_str(&answer).ok()
}
