//! sessionscope in the browser: a Leptos single-page app over the engine, compiled to wasm.
//!
//! Data flow: dropped files → [`files`] (read in slices into the engine's loader) →
//! [`sessionscope_engine::Corpus`] → views.

pub mod app;
pub mod bench;
pub mod deeplink;
pub mod example;
pub mod files;
pub mod outline;
pub mod panel;
pub mod render;
pub mod search;
pub mod state;
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
}
