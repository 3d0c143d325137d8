//! How a message crosses between the page and a worker: a [`Parcel`], on the wire
//! `{ id, message, files, buffers }`. `message` is the typed message as a plain value (converted
//! by `serde-wasm-bindgen`): a message without fields is its name in kebab case (`"ready"`), any
//! other an object whose one key is its name and holds its fields (`{ "load": { "progress":
//! { done, total, path } } }`). With the name outside the fields, serde reads a message without
//! buffering it first: search hits decode three times faster than with a `kind` among the
//! fields, and the page's decoder is a third the size (`docs/size.md`). `id` names the request a
//! reply answers ([`RequestId`]); it is left out of a message that answers none (`ready`, an
//! error about a request that could not be read). `files` are the `File` handles and `buffers`
//! the `ArrayBuffer`s that go beside the message.
//!
//! Every buffer of a parcel is transferred, never copied: the worker's model and the preview's
//! file bytes move to the page, copies of the page's model and file bytes move to the session's
//! worker. [`Parcel::encode`] and [`Parcel::decode`] are the one way in and out; a parcel that
//! cannot be read (an unknown kind, a missing field, a value of the wrong type) decodes to a
//! [`WireError`], never a panic.

use js_sys::{Array, ArrayBuffer, Uint8Array};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

/// Which request a reply answers: numbered by the page, per worker.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct RequestId(pub u64);

/// Why a parcel could not be made, read or posted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WireError {
    /// The message could not be made a plain value: serde's words.
    Encode(String),
    /// A posted value is no parcel, or its message is of no known kind or shape: serde's words.
    Decode(String),
    NotAllFiles,
    NotAllBuffers,
    /// The browser refused to post it (the worker is gone, or a value cannot be cloned).
    Post,
}

impl std::fmt::Display for WireError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WireError::Encode(why) => write!(f, "a message could not be encoded: {why}"),
            WireError::Decode(why) => write!(f, "a message could not be read: {why}"),
            WireError::NotAllFiles => f.write_str("a message could not be read: its files are not all files"),
            WireError::NotAllBuffers => f.write_str("a message could not be read: its buffers are not all buffers"),
            WireError::Post => f.write_str("a message could not be posted"),
        }
    }
}

/// A message with the request it answers and the JS values that travel beside it.
pub struct Parcel<M> {
    pub id: Option<RequestId>,
    pub message: M,
    pub files: Vec<web_sys::File>,
    pub buffers: Vec<ArrayBuffer>,
}

/// The parcel as it is posted.
#[derive(Serialize, Deserialize)]
struct Wire<M> {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    id: Option<RequestId>,
    message: M,
    #[serde(with = "serde_wasm_bindgen::preserve")]
    files: Array,
    #[serde(with = "serde_wasm_bindgen::preserve")]
    buffers: Array,
}

impl<M> Parcel<M> {
    /// A message alone.
    pub fn new(message: M) -> Parcel<M> {
        Parcel { id: None, message, files: Vec::new(), buffers: Vec::new() }
    }

    /// The message as the answer to request `id`, or to none.
    pub fn answering(self, id: Option<RequestId>) -> Parcel<M> {
        Parcel { id, ..self }
    }

    pub fn with_files(self, files: Vec<web_sys::File>) -> Parcel<M> {
        Parcel { files, ..self }
    }

    pub fn with_buffers(self, buffers: Vec<ArrayBuffer>) -> Parcel<M> {
        Parcel { buffers, ..self }
    }
}

impl<M: Serialize> Parcel<M> {
    /// The parcel ready to post, with its buffers to transfer.
    pub fn encode(&self) -> Result<Encoded, WireError> {
        let files: Array = self.files.iter().collect();
        let buffers: Array = self.buffers.iter().collect();
        let wire = Wire { id: self.id, message: &self.message, files, buffers: buffers.clone() };
        let value = serde_wasm_bindgen::to_value(&wire).map_err(|e| WireError::Encode(e.to_string()))?;
        Ok(Encoded { value, transfer: buffers })
    }
}

impl<M: DeserializeOwned> Parcel<M> {
    /// The parcel of a posted value, or why it cannot be read.
    pub fn decode(data: JsValue) -> Result<Parcel<M>, WireError> {
        let wire: Wire<M> = serde_wasm_bindgen::from_value(data).map_err(|e| WireError::Decode(e.to_string()))?;
        let files = wire.files.iter().map(|f| f.dyn_into::<web_sys::File>()).collect::<Result<Vec<_>, _>>();
        let buffers = wire.buffers.iter().map(|b| b.dyn_into::<ArrayBuffer>()).collect::<Result<Vec<_>, _>>();
        match (files, buffers) {
            (Ok(files), Ok(buffers)) => Ok(Parcel { id: wire.id, message: wire.message, files, buffers }),
            (Err(_), _) => Err(WireError::NotAllFiles),
            (_, Err(_)) => Err(WireError::NotAllBuffers),
        }
    }
}

/// The request a posted value names, read without reading its message (which may be what
/// cannot be read): so a request the worker cannot read is still answered as that request's.
pub fn id_of(data: &JsValue) -> Option<RequestId> {
    let id = js_sys::Reflect::get(data, &"id".into()).ok()?.as_f64()?;
    (id >= 0.0 && id.fract() == 0.0).then_some(RequestId(id as u64))
}

/// A parcel as a JS value, and the buffers posting it transfers.
pub struct Encoded {
    value: JsValue,
    transfer: Array,
}

impl Encoded {
    pub fn post_to(&self, port: &impl Port) -> Result<(), WireError> {
        port.post(&self.value, &self.transfer).map_err(|_| WireError::Post)
    }
}

/// Where parcels go: a worker (from the page), or the worker's own scope (to the page).
pub trait Port {
    fn post(&self, value: &JsValue, transfer: &Array) -> Result<(), JsValue>;
}

impl Port for web_sys::Worker {
    fn post(&self, value: &JsValue, transfer: &Array) -> Result<(), JsValue> {
        self.post_message_with_transfer(value, transfer)
    }
}

impl Port for web_sys::DedicatedWorkerGlobalScope {
    fn post(&self, value: &JsValue, transfer: &Array) -> Result<(), JsValue> {
        self.post_message_with_transfer(value, transfer)
    }
}

/// Bytes copied into a new buffer, to transfer.
pub fn buffer_of(bytes: &[u8]) -> ArrayBuffer {
    let array = Uint8Array::new_with_length(bytes.len() as u32);
    array.copy_from(bytes);
    array.buffer()
}

/// A received buffer's bytes, copied into wasm memory.
pub fn bytes_of(buffer: &ArrayBuffer) -> Vec<u8> {
    Uint8Array::new(buffer).to_vec()
}
