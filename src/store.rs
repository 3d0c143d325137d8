//! The page's own storage between visits: an IndexedDB database with the folders a user asked
//! to remember (their handles, which only this browser can use) and each one's cached index.
//! Nothing here leaves the machine; "Forget this folder" deletes both.

use std::cell::RefCell;

use js_sys::Promise;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{IdbDatabase, IdbRequest, IdbTransactionMode};

const DATABASE: &str = "sessionscope";
const VERSION: u32 = 1;
/// Remembered folders, keyed by their id: `{ id, name, handle, openedMs }`.
pub const FOLDERS: &str = "folders";
/// Cached indexes, keyed by their folder's id: the bytes of an `IndexCache`.
pub const INDEXES: &str = "indexes";

thread_local! {
    static OPEN: RefCell<Option<IdbDatabase>> = const { RefCell::new(None) };
}

/// Waits for an IndexedDB request; answers its result.
async fn finished(request: &IdbRequest) -> Result<JsValue, String> {
    let promise = Promise::new(&mut |resolve, reject| {
        let done = request.clone();
        let ok = Closure::once_into_js(move |_: JsValue| {
            let _ = resolve.call1(&JsValue::NULL, &done.result().unwrap_or(JsValue::UNDEFINED));
        });
        let failed_request = request.clone();
        let failed = Closure::once_into_js(move |_: JsValue| {
            let reason = failed_request
                .error()
                .ok()
                .flatten()
                .map_or_else(|| "the browser's storage refused".to_owned(), |e| e.message());
            let _ = reject.call1(&JsValue::NULL, &reason.into());
        });
        request.set_onsuccess(Some(ok.unchecked_ref()));
        request.set_onerror(Some(failed.unchecked_ref()));
    });
    JsFuture::from(promise)
        .await
        .map_err(|e| e.as_string().unwrap_or_else(|| "the browser's storage failed".to_owned()))
}

async fn database() -> Result<IdbDatabase, String> {
    if let Some(db) = OPEN.with(|open| open.borrow().clone()) {
        return Ok(db);
    }
    let factory = web_sys::window()
        .and_then(|w| w.indexed_db().ok().flatten())
        .ok_or("this browser keeps no IndexedDB storage for this page")?;
    let request = factory.open_with_u32(DATABASE, VERSION).map_err(|_| "the page's storage could not be opened")?;
    let upgrading = request.clone();
    let upgrade = Closure::once_into_js(move |_: JsValue| {
        let Ok(result) = upgrading.result() else { return };
        let db: IdbDatabase = result.unchecked_into();
        let names = db.object_store_names();
        for store in [FOLDERS, INDEXES] {
            if !names.contains(store) {
                let _ = db.create_object_store(store);
            }
        }
    });
    request.set_onupgradeneeded(Some(upgrade.unchecked_ref()));
    let db: IdbDatabase = finished(&request).await?.unchecked_into();
    OPEN.with(|open| *open.borrow_mut() = Some(db.clone()));
    Ok(db)
}

fn store(db: &IdbDatabase, name: &str, mode: IdbTransactionMode) -> Result<web_sys::IdbObjectStore, String> {
    db.transaction_with_str_and_mode(name, mode)
        .and_then(|t| t.object_store(name))
        .map_err(|_| format!("the page's storage has no {name}"))
}

/// The value kept under `key`, `undefined` if none.
pub async fn get(name: &str, key: &str) -> Result<JsValue, String> {
    let db = database().await?;
    let request = store(&db, name, IdbTransactionMode::Readonly)?
        .get(&key.into())
        .map_err(|_| "the page's storage could not be read")?;
    finished(&request).await
}

/// Every value of a store, in the order of their keys.
pub async fn all(name: &str) -> Result<Vec<JsValue>, String> {
    let db = database().await?;
    let request = store(&db, name, IdbTransactionMode::Readonly)?
        .get_all()
        .map_err(|_| "the page's storage could not be read")?;
    let values = finished(&request).await?;
    Ok(values.dyn_into::<js_sys::Array>().map(|a| a.iter().collect()).unwrap_or_default())
}

pub async fn put(name: &str, key: &str, value: &JsValue) -> Result<(), String> {
    let db = database().await?;
    let request = store(&db, name, IdbTransactionMode::Readwrite)?
        .put_with_key(value, &key.into())
        .map_err(|_| "the page's storage could not be written (is it full?)")?;
    finished(&request).await.map(|_| ())
}

pub async fn delete(name: &str, key: &str) -> Result<(), String> {
    let db = database().await?;
    let request = store(&db, name, IdbTransactionMode::Readwrite)?
        .delete(&key.into())
        .map_err(|_| "the page's storage could not be changed")?;
    finished(&request).await.map(|_| ())
}
