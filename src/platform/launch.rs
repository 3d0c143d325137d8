//! Files the operating system opens with the installed app: the File Handling API's
//! `window.launchQueue`, whose launches carry the handles of the files opened. Browsers without
//! it (most, and any page not installed as an app) are left alone, and nothing is said.

use js_sys::{Array, Function, Reflect};
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::prelude::*;
use web_sys::FileSystemFileHandle;

use super::browser::{self, Feature};
use super::handles;

/// Hands `on_files` the file handles of each launch that carries files (an app launched from a
/// file manager's "Open with"), for as long as the page lives. Launches without files (the app
/// started on its own) are let go, and so are folders. Does nothing where the browser has no
/// `launchQueue`.
pub fn on_launch(on_files: impl Fn(Vec<FileSystemFileHandle>) + 'static) {
    let Some(window) = web_sys::window() else { return };
    if !browser::has(Feature::LaunchQueue) {
        return;
    }
    let Ok(queue) = Reflect::get(&window, &"launchQueue".into()) else { return };
    let Ok(set_consumer) = Reflect::get(&queue, &"setConsumer".into()) else { return };
    let Some(set_consumer) = set_consumer.dyn_ref::<Function>() else { return };
    let consumer = Closure::<dyn Fn(JsValue)>::new(move |params: JsValue| {
        let files = file_handles(&params);
        if !files.is_empty() {
            on_files(files);
        }
    });
    // The consumer is called for every launch while the page lives: it is never dropped.
    if set_consumer.call1(&queue, consumer.as_ref()).is_ok() {
        consumer.forget();
    }
}

/// The file handles among a launch's `files`, in their order.
fn file_handles(params: &JsValue) -> Vec<FileSystemFileHandle> {
    let Ok(files) = Reflect::get(params, &"files".into()) else { return Vec::new() };
    let Ok(files) = files.dyn_into::<Array>() else { return Vec::new() };
    files
        .iter()
        .filter_map(|handle| handle.dyn_into::<web_sys::FileSystemHandle>().ok())
        .filter(|handle| !handles::is_folder(handle))
        .map(|handle| handle.unchecked_into::<FileSystemFileHandle>())
        .collect()
}
