//! Sharing in the app: opening shares (a `#share=` link or the data of an exported file),
//! unlocking passphrase-protected ones, and view-state links for someone with the same files.

use leptos::prelude::*;
use sessionscope_engine::share::bundle::{Bundle, BundleHeader};
use sessionscope_engine::share::envelope::{self, Envelope};
use sessionscope_engine::share::fingerprint::fingerprint;

use crate::deeplink::{self, ViewState};
use crate::files::{self, Progress};
use crate::model::Model;
use crate::outline::RowFilter;
use crate::row_names::{conversation_by_name, conversation_name, entry_uuid, row_by_name, row_name};
use crate::state::{AppState, LoadStatus, MainTab};

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
                        state.reveal_entry(entry);
                    }
                }
                Err(message) => state.status.set(LoadStatus::Failed(message)),
            }
        });
    }

    /// The view-state link of what is shown, as a full URL.
    pub fn view_link(&self) -> Option<String> {
        let model = self.model.get_value()?;
        let session = model.graph.sessions.get(self.session.get_untracked() as usize)?;
        let message = match self.selected.get_untracked() {
            Some(key) => row_name(&model, key),
            None => None,
        };
        let (toggled, choices, filter, noise) = self.options.with_value(|o| {
            let mut toggled: Vec<String> = o.toggled.iter().filter_map(|&k| row_name(&model, k)).collect();
            toggled.sort();
            let mut choices: Vec<(String, u32)> = o
                .choices
                .iter()
                .filter_map(|(&fork, &alt)| {
                    let f = model.graph.forks.get(fork as usize)?;
                    (alt != f.active).then(|| (entry_uuid(&model, f.node), alt))
                })
                .collect();
            choices.sort();
            (toggled, choices, o.filter.clone(), o.show_noise)
        });
        let mut flags = String::new();
        for (on, letter) in [
            (filter.hide_user, 'u'),
            (filter.hide_assistant, 'a'),
            (filter.hide_tools, 't'),
            (filter.hide_system, 's'),
            (filter.errors_only, 'e'),
            (noise, 'n'),
        ] {
            if on {
                flags.push(letter);
            }
        }
        let view = ViewState {
            fingerprint: fingerprint(&model.corpus),
            toggled,
            choices,
            flags,
            conversation: filter.conversation.map(|c| conversation_name(&model, c)),
            from_ms: filter.from_ms,
            to_ms: filter.to_ms,
            tab: (self.main_tab.get_untracked() == MainTab::Statistics).then(|| "stats".to_owned()),
        };
        // A message is named by its uuid (as in deep links); other rows by their stable names.
        let message = message.map(|m| m.strip_prefix("e:").map(str::to_owned).unwrap_or(m));
        let fragment = deeplink::format_view(&session.id, message.as_deref(), &view);
        let location = web_sys::window()?.location();
        Some(format!(
            "{}{}{}{fragment}",
            location.origin().ok()?,
            location.pathname().ok()?,
            location.search().unwrap_or_default()
        ))
    }

    /// Applies the parts of a view-state link that do not depend on the outline.
    pub(crate) fn apply_view(&self, model: &Model, view: &ViewState) {
        let here = fingerprint(&model.corpus);
        self.chrome.notice.set((view.fingerprint != here).then(|| {
            format!(
                "This view link was made on other files (or other versions of them): fingerprint {} here, {} in the link. \
                 What still matches is shown.",
                here, view.fingerprint
            )
        }));
        let conversation = view.conversation.as_deref().and_then(|name| conversation_by_name(model, name));
        let filter = RowFilter {
            hide_user: view.flags.contains('u'),
            hide_assistant: view.flags.contains('a'),
            hide_tools: view.flags.contains('t'),
            hide_system: view.flags.contains('s'),
            errors_only: view.flags.contains('e'),
            conversation,
            from_ms: view.from_ms,
            to_ms: view.to_ms,
        };
        let noise = view.flags.contains('n');
        self.options.update_value(|o| {
            o.show_noise = noise;
            o.filter = filter.clone();
            o.toggled = view.toggled.iter().filter_map(|name| row_by_name(model, name)).collect();
            o.choices = view
                .choices
                .iter()
                .filter_map(|(uuid, alt)| {
                    let node = model.entry_by_uuid(uuid)?;
                    let fork = *model.graph.fork_of.get(node as usize)?;
                    let f = model.graph.forks.get(fork as usize)?;
                    ((*alt as usize) < f.alternatives.len()).then_some((fork, *alt))
                })
                .collect();
        });
        self.show_noise.set(noise);
        self.graph_filter.set(filter);
        if view.tab.as_deref() == Some("stats") {
            self.main_tab.set(MainTab::Statistics);
        }
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
