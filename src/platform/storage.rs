//! The page's own storage between visits: an IndexedDB database of stores of values by key
//! ([`Store`]), and the small settings kept in `localStorage`. Nothing here leaves the machine.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::Promise;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{IdbDatabase, IdbRequest, IdbTransactionMode};

use super::errors::{DomError, DomErrorKind};

/// Why the browser's storage did not do what was asked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StorageError {
    /// This browser keeps no IndexedDB storage for this page.
    Missing,
    /// The database could not be opened.
    CannotOpen,
    /// The database has no store of this name.
    NoStore(String),
    /// A write was refused (the storage may be full).
    WriteRefused,
    /// A request failed, in the browser's words.
    Failed(String),
}

impl std::fmt::Display for StorageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StorageError::Missing => f.write_str("this browser keeps no IndexedDB storage for this page"),
            StorageError::CannotOpen => f.write_str("the page's storage could not be opened"),
            StorageError::NoStore(name) => write!(f, "the page's storage has no {name}"),
            StorageError::WriteRefused => f.write_str("the page's storage could not be written (is it full?)"),
            StorageError::Failed(message) => f.write_str(message),
        }
    }
}

/// An IndexedDB database, opened (and made, with its stores) on first use and kept open. Clones
/// share it.
#[derive(Clone)]
pub struct Store {
    name: &'static str,
    version: u32,
    stores: &'static [&'static str],
    open: Rc<RefCell<Option<IdbDatabase>>>,
}

/// Waits for an IndexedDB request; answers its result.
async fn finished(request: &IdbRequest) -> Result<JsValue, StorageError> {
    let promise = Promise::new(&mut |resolve, reject| {
        let done = request.clone();
        let ok = Closure::once_into_js(move |_: JsValue| {
            let _ = resolve.call1(&JsValue::NULL, &done.result().unwrap_or(JsValue::UNDEFINED));
        });
        let failed_request = request.clone();
        let failed = Closure::once_into_js(move |_: JsValue| {
            let error = failed_request.error().ok().flatten().map_or(JsValue::UNDEFINED, JsValue::from);
            let _ = reject.call1(&JsValue::NULL, &error);
        });
        request.set_onsuccess(Some(ok.unchecked_ref()));
        request.set_onerror(Some(failed.unchecked_ref()));
    });
    JsFuture::from(promise).await.map_err(|error| match DomError::of(&error).kind {
        DomErrorKind::QuotaExceeded => StorageError::WriteRefused,
        _ => StorageError::Failed("the browser's storage refused a request".to_owned()),
    })
}

impl Store {
    /// The database `name` at `version`, with `stores`.
    pub fn new(name: &'static str, version: u32, stores: &'static [&'static str]) -> Store {
        Store { name, version, stores, open: Rc::default() }
    }

    async fn database(&self) -> Result<IdbDatabase, StorageError> {
        if let Some(db) = self.open.borrow().clone() {
            return Ok(db);
        }
        let factory = web_sys::window().and_then(|w| w.indexed_db().ok().flatten()).ok_or(StorageError::Missing)?;
        let request = factory.open_with_u32(self.name, self.version).map_err(|_| StorageError::CannotOpen)?;
        let upgrading = request.clone();
        let stores = self.stores;
        let upgrade = Closure::once_into_js(move |_: JsValue| {
            let Ok(result) = upgrading.result() else { return };
            let db: IdbDatabase = result.unchecked_into();
            let names = db.object_store_names();
            for store in stores {
                if !names.contains(store) {
                    let _ = db.create_object_store(store);
                }
            }
        });
        request.set_onupgradeneeded(Some(upgrade.unchecked_ref()));
        let db: IdbDatabase = finished(&request).await?.unchecked_into();
        *self.open.borrow_mut() = Some(db.clone());
        Ok(db)
    }

    async fn store(&self, name: &str, mode: IdbTransactionMode) -> Result<web_sys::IdbObjectStore, StorageError> {
        self.database()
            .await?
            .transaction_with_str_and_mode(name, mode)
            .and_then(|t| t.object_store(name))
            .map_err(|_| StorageError::NoStore(name.to_owned()))
    }

    /// The value kept under `key`, `undefined` if none.
    pub async fn get(&self, name: &str, key: &str) -> Result<JsValue, StorageError> {
        let request = self
            .store(name, IdbTransactionMode::Readonly)
            .await?
            .get(&key.into())
            .map_err(|_| StorageError::Failed("the page's storage could not be read".to_owned()))?;
        finished(&request).await
    }

    /// Every value of a store, in the order of their keys.
    pub async fn all(&self, name: &str) -> Result<Vec<JsValue>, StorageError> {
        let request = self
            .store(name, IdbTransactionMode::Readonly)
            .await?
            .get_all()
            .map_err(|_| StorageError::Failed("the page's storage could not be read".to_owned()))?;
        let values = finished(&request).await?;
        Ok(values.dyn_into::<js_sys::Array>().map(|a| a.iter().collect()).unwrap_or_default())
    }

    pub async fn put(&self, name: &str, key: &str, value: &JsValue) -> Result<(), StorageError> {
        let request = self
            .store(name, IdbTransactionMode::Readwrite)
            .await?
            .put_with_key(value, &key.into())
            .map_err(|_| StorageError::WriteRefused)?;
        finished(&request).await.map(|_| ())
    }

    pub async fn delete(&self, name: &str, key: &str) -> Result<(), StorageError> {
        let request = self
            .store(name, IdbTransactionMode::Readwrite)
            .await?
            .delete(&key.into())
            .map_err(|_| StorageError::Failed("the page's storage could not be changed".to_owned()))?;
        finished(&request).await.map(|_| ())
    }
}

fn local_storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

/// A setting kept in `localStorage`.
pub fn setting(key: &str) -> Option<String> {
    local_storage()?.get_item(key).ok().flatten()
}

/// Keeps a setting (`Some`) or forgets it (`None`).
pub fn set_setting(key: &str, value: Option<&str>) {
    if let Some(storage) = local_storage() {
        let _ = match value {
            Some(value) => storage.set_item(key, value),
            None => storage.remove_item(key),
        };
    }
}
