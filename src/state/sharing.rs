//! Sharing in the app: opening shares (a `#share=` link or the data of an exported file) and
//! unlocking passphrase-protected ones; the share dialog's open and close (the share it prepares
//! is [`super::share_scan`]'s).

use leptos::prelude::*;
use sessionscope_engine::share::SHARE_FRAGMENT;
use sessionscope_engine::share::bundle::{Bundle, BundleHeader};
use sessionscope_engine::share::envelope::{self, Envelope};

use crate::client::session_worker::SessionWorkers;
use crate::platform::address;
use crate::state::share_scan::ShareScan;
use crate::state::{ChromeState, LoadState, ViewerState};

/// Opening shares: a passphrase-protected one waits here for its passphrase; the files of an
/// open one are handed to loading.
#[derive(Clone, Copy)]
pub struct SharingState {
    loading: LoadState,
    viewer: ViewerState,
    chrome: ChromeState,
    /// A passphrase-protected share waiting for its passphrase.
    locked: RwSignal<Option<Envelope>>,
    pub unlock_error: RwSignal<Option<String>>,
    /// The open session's worker, which scans and writes shares.
    sessions: StoredValue<SessionWorkers, LocalStorage>,
}

impl SharingState {
    pub fn new(loading: LoadState, viewer: ViewerState, chrome: ChromeState, sessions: SessionWorkers) -> SharingState {
        SharingState {
            loading,
            viewer,
            chrome,
            locked: RwSignal::new(None),
            unlock_error: RwSignal::new(None),
            sessions: StoredValue::new_local(sessions),
        }
    }

    /// The share dialog's scan of what the viewer shows (none if nothing is loaded).
    pub fn new_scan(&self) -> Option<ShareScan> {
        ShareScan::new(&self.viewer, self.sessions.get_value())
    }

    /// Looks for a share to open: the data of an exported file, or a `#share=` fragment (now
    /// and whenever the fragment changes, as when a link is pasted into this tab).
    pub fn open_shares(&self) {
        if let Some(text) = crate::client::export::embedded_share() {
            self.open_share_text(&text);
            return;
        }
        let sharing = *self;
        let from_fragment = move || {
            let hash = address::fragment();
            if let Some(text) = hash.strip_prefix(SHARE_FRAGMENT) {
                sharing.open_share_text(text);
                // The payload has done its job; it should not linger in the address bar or history.
                clear_fragment();
            }
        };
        from_fragment();
        let listener = window_event_listener(leptos::ev::hashchange, move |_| from_fragment());
        // The listener lives as long as the page.
        std::mem::forget(listener);
    }

    /// Whether a protected share waits for its passphrase, tracked.
    pub fn passphrase_needed(&self) -> bool {
        self.locked.with(Option::is_some)
    }

    /// Opens a share from its base64url text.
    pub fn open_share_text(&self, text: &str) {
        let opened = envelope::from_base64url(text).and_then(|bytes| envelope::open(&bytes));
        match opened {
            Err(error) => self.loading.fail(format!("this share link cannot be opened: {error}")),
            Ok(Envelope { sealing: Some(_), .. }) => {
                self.unlock_error.set(None);
                self.locked.set(opened.ok());
            }
            Ok(Envelope { codec, body, .. }) => match envelope::unpack(codec, &body) {
                Ok(payload) => self.open_payload(payload),
                Err(error) => self.loading.fail(format!("this share link cannot be opened: {error}")),
            },
        }
    }

    /// Tries a passphrase on the locked share.
    pub fn unlock_share(&self, passphrase: String) {
        let Some(locked) = self.locked.get_untracked() else { return };
        let Some(sealing) = locked.sealing.clone() else { return };
        let sharing = *self;
        self.unlock_error.set(None);
        leptos::task::spawn_local(async move {
            let plain = crate::platform::crypto::decrypt(&passphrase, &sealing, &locked.body).await;
            let plain = plain.map_err(|e| e.to_string());
            match plain.and_then(|p| envelope::unpack(locked.codec, &p).map_err(|e| e.to_string())) {
                Ok(payload) => {
                    sharing.locked.set(None);
                    sharing.open_payload(payload);
                }
                Err(message) => sharing.unlock_error.set(Some(message)),
            }
        });
    }

    fn open_payload(&self, payload: Vec<u8>) {
        match Bundle::decode(&payload) {
            Ok(bundle) => self.loading.open_bundle(bundle),
            Err(error) => self.loading.fail(format!("this share cannot be opened: {error}")),
        }
    }

    /// Whether there is something to share: files loaded, and all of them (not the first part
    /// of a big load, shown while the rest is read).
    pub fn can_share(&self) -> bool {
        self.viewer.model_untracked().is_some() && self.loading.preview.get_untracked().is_none()
    }

    /// Opens the share dialog (the header's button, Shift+S), if there is something to share.
    pub fn open_dialog(&self) {
        if self.can_share() {
            self.chrome.open_dialog(self.chrome.share_open);
        }
    }

    pub fn close_dialog(&self) {
        self.chrome.close_dialog(self.chrome.share_open);
    }
}

pub fn use_sharing() -> SharingState {
    expect_context::<SharingState>()
}

/// The payload has done its job; it should not linger in the address bar or history.
fn clear_fragment() {
    address::replace_fragment("");
}

/// Whether a share header's title is worth a banner line.
pub fn banner_text(header: &BundleHeader) -> String {
    let mut parts = vec![format!("Shared view, redacted: {}", header.scope)];
    let placeholders: u32 = header.redaction.kinds.iter().map(|(_, distinct, _)| distinct).sum();
    if placeholders > 0 {
        parts.push(format!("{} replaced by placeholders", crate::logic::words::counted(placeholders, "value")));
    }
    if !header.redaction.dropped_parts.is_empty() {
        parts.push(format!("left out: {}", header.redaction.dropped_parts.join(", ")));
    }
    parts.join(" · ")
}
