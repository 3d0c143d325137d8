//! Which browser the page runs in ([`name`], for the words a person reads when something fails),
//! and which of the web platform's newer APIs it has ([`has`]). Every API the page and its
//! workers use beyond what Chromium, Firefox and Safari all have is asked for here, by its
//! presence (never by the browser's name), and each has a fallback, written at its [`Feature`]
//! and listed in `docs/architecture.md`. Two are found out by trying instead, where a browser has
//! the name but not the behaviour: a file's byte stream (`byte_stream::ByteStream`) and a
//! dropped folder's handle (`handles::dropped_folder`).

use js_sys::Reflect;
use wasm_bindgen::JsValue;

/// An API the page or a worker uses where the browser has it, and does without where not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Feature {
    /// `showDirectoryPicker` (Chromium): a folder picked is read through its handle, remembered
    /// and followed. Without it, "Choose a folder…" is a folder input (`webkitdirectory`), read
    /// once as its files.
    FolderPicker,
    /// IndexedDB: remembered folders, cached indexes, marks and what was seen. Without it (some
    /// private windows), nothing is kept, and the page says so.
    IndexedDb,
    /// `window.launchQueue` (Chromium, installed app): files opened with the app. Without it,
    /// files are dropped or picked.
    LaunchQueue,
    /// `requestIdleCallback` (not in Safari): work that waits for an idle page. Without it, the
    /// work runs half a second later.
    IdleCallbacks,
    /// The CSS Custom Highlight API (`CSS.highlights`): search hits marked inside a row's text.
    /// Without it, the row that holds a hit is selected, its words not marked.
    Highlights,
    /// `navigator.clipboard` (secure pages): copying a link or a command. Without it, the page
    /// says to copy the text from its box, which is selected.
    Clipboard,
    /// Service workers: the app's files kept for offline use. Without them (a private window in
    /// Firefox), the app works online only.
    ServiceWorker,
    /// WebCrypto's `crypto.subtle` (secure pages): passphrase links. Without it, a link with a
    /// passphrase can be neither made nor opened, and the page says that it needs a secure page.
    WebCrypto,
}

impl Feature {
    /// Where the feature's object is found, from the global object: its path of names.
    fn path(self) -> &'static [&'static str] {
        match self {
            Feature::FolderPicker => &["showDirectoryPicker"],
            Feature::IndexedDb => &["indexedDB"],
            Feature::LaunchQueue => &["launchQueue"],
            Feature::IdleCallbacks => &["requestIdleCallback"],
            Feature::Highlights => &["CSS", "highlights"],
            Feature::Clipboard => &["navigator", "clipboard"],
            Feature::ServiceWorker => &["navigator", "serviceWorker"],
            Feature::WebCrypto => &["crypto", "subtle"],
        }
    }
}

/// Whether this browser (in this page or worker, as it runs now) has `feature`.
pub fn has(feature: Feature) -> bool {
    let mut at: JsValue = js_sys::global().into();
    for name in feature.path() {
        at = match Reflect::get(&at, &(*name).into()) {
            Ok(value) if !value.is_undefined() && !value.is_null() => value,
            _ => return false,
        };
    }
    true
}

/// The browser, in a person's words with its major version ("Firefox 153", "Safari 26", "Chrome
/// 156"), from its user agent; "this browser" where that says nothing known.
pub fn name() -> String {
    let agent = Reflect::get(&js_sys::global(), &"navigator".into())
        .and_then(|navigator| Reflect::get(&navigator, &"userAgent".into()))
        .ok()
        .and_then(|agent| agent.as_string())
        .unwrap_or_default();
    name_of_agent(&agent)
}

/// The browser a user agent string names ([`name`]). Edge and Opera name Chrome too, and Chrome
/// names Safari: the most particular name is looked for first.
pub fn name_of_agent(agent: &str) -> String {
    let version = |key: &str| -> Option<String> {
        let rest = &agent[agent.find(key)? + key.len()..];
        let major: String = rest.chars().take_while(char::is_ascii_digit).collect();
        (!major.is_empty()).then_some(major)
    };
    let named = |name: &str, key: &str| match version(key) {
        Some(major) => format!("{name} {major}"),
        None => name.to_owned(),
    };
    if agent.contains("Firefox/") {
        named("Firefox", "Firefox/")
    } else if agent.contains("Edg/") {
        named("Edge", "Edg/")
    } else if agent.contains("OPR/") {
        named("Opera", "OPR/")
    } else if agent.contains("Chrome/") {
        named("Chrome", "Chrome/")
    } else if agent.contains("Safari/") || agent.contains("AppleWebKit/") {
        // Safari's version is its `Version/`; WebKitGTK and other WebKit browsers say Safari too.
        named("Safari", "Version/")
    } else {
        "this browser".to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::name_of_agent;

    #[test]
    fn browsers_are_named_by_their_user_agents() {
        let firefox = "Mozilla/5.0 (X11; Linux x86_64; rv:153.0) Gecko/20100101 Firefox/153.0";
        assert_eq!(name_of_agent(firefox), "Firefox 153");
        let chrome =
            "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36";
        assert_eq!(name_of_agent(chrome), "Chrome 156");
        let edge = format!("{chrome} Edg/156.0.0.0");
        assert_eq!(name_of_agent(&edge), "Edge 156");
        let safari = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.1 Safari/605.1.15";
        assert_eq!(name_of_agent(safari), "Safari 26");
        let webkit_gtk = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/605.1.15 (KHTML, like Gecko) Safari/605.1.15";
        assert_eq!(name_of_agent(webkit_gtk), "Safari");
        assert_eq!(name_of_agent(""), "this browser");
        assert_eq!(name_of_agent("curl/8"), "this browser");
    }
}
