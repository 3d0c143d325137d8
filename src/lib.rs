//! sessionscope in the browser: a Leptos single-page app over the engine, compiled to wasm.
//!
//! Layers, one folder each, imports going one way (`docs/architecture.md`, checked by
//! `scripts/layers.py`): [`views`] → [`state`] → [`client`] → {[`wire`], [`platform`],
//! [`logic`]}; [`worker`] → {[`wire`], [`platform`]}; [`render`] beside [`logic`]. The page and
//! its workers are the same library: `src/main.rs` mounts the page ([`app`]), `src/bin/worker.rs`
//! runs [`worker`], and `src/bin/render.rs` is the render module's own wasm.

pub mod app;
pub mod client;
pub mod logic;
pub mod platform;
pub mod render;
pub mod state;
pub mod views;
pub mod wire;
pub mod worker;

/// Every module of the app (the page, its workers and its render module) counts its heap's live
/// bytes; the page's count is what the history's memory test asks (`pageHeapBytes`).
#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOCATOR: platform::heap::Counting = platform::heap::Counting;

/// Replaces the static skeleton of `index.html` with the app.
pub fn mount() {
    platform::crash::install();
    let document = leptos::prelude::document();
    let Some(root) = document.get_element_by_id("app") else { return };
    root.set_inner_html("");
    let root: web_sys::HtmlElement = wasm_bindgen::JsCast::unchecked_into(root);
    leptos::mount::mount_to(root, app::App).forget();
    if platform::crash::panic_asked() {
        platform::schedule::later(300, || {
            panic!("a panic asked for by the address ({})", platform::crash::PANIC_FOR_TESTS)
        });
    }
    // The service worker's install fetches and stores the app's files again: not while the
    // page's first moments (a click on Open example, a drop) need the CPU.
    platform::schedule::later(SERVICE_WORKER_AFTER_MS, register_service_worker);
}

/// How long after the app starts its service worker is registered.
const SERVICE_WORKER_AFTER_MS: i32 = 3000;

/// Registers the service worker that keeps the app's own files for offline use (not in an
/// exported file or a page opened from disk, which need no server at all).
fn register_service_worker() {
    use js_sys::{Function, Reflect};
    use wasm_bindgen::JsCast;
    if platform::page::standalone() {
        return;
    }
    let Some(window) = web_sys::window() else { return };
    if !platform::browser::has(platform::browser::Feature::ServiceWorker) {
        return;
    }
    let Ok(container) = Reflect::get(&window.navigator(), &"serviceWorker".into()) else { return };
    let Ok(register) = Reflect::get(&container, &"register".into()) else { return };
    if let Some(register) = register.dyn_ref::<Function>()
        && let Ok(promise) = register.call1(&container, &"./sw.js".into())
        && let Ok(promise) = promise.dyn_into::<js_sys::Promise>()
    {
        // A failed registration only means no offline copy.
        let ignore = wasm_bindgen::closure::Closure::<dyn FnMut(wasm_bindgen::JsValue)>::new(|_| {});
        let _ = promise.catch(&ignore);
        ignore.forget();
    }
}
