//! sessionscope in the browser: a Leptos single-page app over the engine, compiled to wasm.
//!
//! Data flow: dropped files → [`files`] (read in slices into the engine's loader) →
//! [`model::Model`] → [`state`] (loading puts it in the viewer) → [`views`]. The state is split
//! by concern, each part its own context; calls between them go one way (see [`state`]).

pub mod app;
pub mod bench;
pub mod crypto;
pub mod database;
pub mod deeplink;
pub mod download;
pub mod example;
pub mod export;
pub mod files;
pub mod folders;
pub mod live;
pub mod model;
pub mod outline;
pub mod panel;
pub mod pool;
pub mod protocol;
pub mod queued_worker;
pub mod render;
pub mod render_module;
pub mod row_names;
pub mod search;
pub mod session_worker;
pub mod sharing;
pub mod sort;
pub mod state;
pub mod store;
pub mod theme;
pub mod views;
pub mod worker;

/// Replaces the static skeleton of `index.html` with the app.
pub fn mount() {
    console_error_panic_hook::set_once();
    let document = leptos::prelude::document();
    let Some(root) = document.get_element_by_id("app") else { return };
    root.set_inner_html("");
    let root: web_sys::HtmlElement = wasm_bindgen::JsCast::unchecked_into(root);
    leptos::mount::mount_to(root, app::App).forget();
    // The service worker's install fetches and stores the app's files again: not while the
    // page's first moments (a click on Open example, a drop) need the CPU.
    let later = wasm_bindgen::closure::Closure::once_into_js(register_service_worker);
    if let Some(window) = web_sys::window() {
        let _ = window.set_timeout_with_callback_and_timeout_and_arguments_0(
            wasm_bindgen::JsCast::unchecked_ref(&later),
            SERVICE_WORKER_AFTER_MS,
        );
    }
}

/// How long after the app starts its service worker is registered.
const SERVICE_WORKER_AFTER_MS: i32 = 3000;

/// Registers the service worker that keeps the app's own files for offline use (not in an
/// exported file or a page opened from disk, which need no server at all).
fn register_service_worker() {
    use js_sys::{Function, Reflect};
    use wasm_bindgen::JsCast;
    if files::standalone() {
        return;
    }
    let Some(window) = web_sys::window() else { return };
    let Ok(container) = Reflect::get(&window.navigator(), &"serviceWorker".into()) else { return };
    if container.is_undefined() {
        return;
    }
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
