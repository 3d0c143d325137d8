//! Sharing in the app: opening shares (a `#share=` link or the data of an exported file),
//! unlocking passphrase-protected ones, and view-state links for someone with the same files.

use leptos::prelude::*;
use sessionscope_engine::share::bundle::{Bundle, BundleHeader};
use sessionscope_engine::share::envelope::{self, Envelope};

use crate::files::{self, Progress};
use crate::state::{AppState, LoadStatus};

use sessionscope_engine::share::SHARE_FRAGMENT;

/// Looks for a share to open: the data of an exported file, or a `#share=` fragment (now and
/// whenever the fragment changes, as when a link is pasted into this tab).
pub fn open_shares(state: AppState) {
    if let Some(text) = crate::export::embedded_share() {
        state.open_share_text(&text);
        return;
    }
    let from_fragment = move || {
        let hash = web_sys::window().and_then(|w| w.location().hash().ok()).unwrap_or_default();
        if let Some(text) = hash.strip_prefix(SHARE_FRAGMENT) {
            state.open_share_text(text);
            // The payload has done its job; it should not linger in the address bar or history.
            clear_fragment();
        }
    };
    from_fragment();
    let listener = window_event_listener(leptos::ev::hashchange, move |_| from_fragment());
    // The listener lives as long as the page.
    std::mem::forget(listener);
}

fn clear_fragment() {
    let Some(window) = web_sys::window() else { return };
    let location = window.location();
    let url = format!("{}{}", location.pathname().unwrap_or_default(), location.search().unwrap_or_default());
    if let Ok(history) = window.history() {
        let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url));
    }
}

impl AppState {
    /// Opens a share from its base64url text.
    pub fn open_share_text(&self, text: &str) {
        let opened = envelope::from_base64url(text).and_then(|bytes| envelope::open(&bytes));
        match opened {
            Err(error) => self.status.set(LoadStatus::Failed(format!("this share link cannot be opened: {error}"))),
            Ok(Envelope { sealing: Some(_), .. }) => {
                self.locked.set_value(opened.ok());
                self.unlock_error.set(None);
                self.passphrase_needed.set(true);
            }
            Ok(Envelope { codec, body, .. }) => match envelope::unpack(codec, &body) {
                Ok(payload) => self.open_payload(payload),
                Err(error) => self.status.set(LoadStatus::Failed(format!("this share link cannot be opened: {error}"))),
            },
        }
    }

    /// Tries a passphrase on the locked share.
    pub fn unlock_share(&self, passphrase: String) {
        let Some(locked) = self.locked.get_value() else { return };
        let Some(sealing) = locked.sealing.clone() else { return };
        let state = *self;
        self.unlock_error.set(None);
        leptos::task::spawn_local(async move {
            let plain = crate::crypto::decrypt(&passphrase, &sealing, &locked.body).await;
            match plain.and_then(|p| envelope::unpack(locked.codec, &p).map_err(|e| e.to_string())) {
                Ok(payload) => {
                    state.passphrase_needed.set(false);
                    state.locked.set_value(None);
                    state.open_payload(payload);
                }
                Err(message) => state.unlock_error.set(Some(message)),
            }
        });
    }

    fn open_payload(&self, payload: Vec<u8>) {
        let bundle = match Bundle::decode(&payload) {
            Ok(bundle) => bundle,
            Err(error) => {
                self.status.set(LoadStatus::Failed(format!("this share cannot be opened: {error}")));
                return;
            }
        };
        let Bundle { header, files } = bundle;
        let state = *self;
        let total = files.iter().map(|(_, b)| b.len()).sum::<usize>() as f64;
        self.status.set(LoadStatus::Loading(Progress {
            done_bytes: 0.0,
            total_bytes: total,
            path: "shared view".into(),
            started_ms: files::now_ms(),
            now_ms: files::now_ms(),
            building: false,
        }));
        leptos::task::spawn_local(async move {
            let never = std::cell::Cell::new(false);
            let on_progress = move |p: Progress| state.status.set(LoadStatus::Loading(p));
            let picked = files::files_from_bytes(&files);
            match files::load_bytes_on_page(files, &never, &on_progress).await {
                Ok(model) => {
                    let selected = header.selected.as_deref().and_then(|uuid| model.entry_by_uuid(uuid));
                    state.files.set_value(picked);
                    state.skipped_by_name.set(Vec::new());
                    state.show(model);
                    state.shared.set(Some(header));
                    if let Some(entry) = selected {
                        state.viewer.reveal_entry(entry);
                    }
                }
                Err(message) => state.status.set(LoadStatus::Failed(message)),
            }
        });
    }
}

/// Whether a share header's title is worth a banner line.
pub fn banner_text(header: &BundleHeader) -> String {
    let mut parts = vec![format!("Shared view, redacted: {}", header.scope)];
    let placeholders: u32 = header.redaction.kinds.iter().map(|(_, distinct, _)| distinct).sum();
    if placeholders > 0 {
        parts.push(format!("{placeholders} values replaced by placeholders"));
    }
    if !header.redaction.dropped_parts.is_empty() {
        parts.push(format!("left out: {}", header.redaction.dropped_parts.join(", ")));
    }
    parts.join(" · ")
}
