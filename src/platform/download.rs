//! Saving text the app made (statistics, exports) as a file, and copying it, without any
//! request: a Blob URL clicked as a download, and the clipboard.

use wasm_bindgen::JsCast;

/// Offers `text` as a download named `name`.
pub fn download_text(name: &str, mime: &str, text: &str) {
    let parts = js_sys::Array::of1(&text.into());
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let Ok(blob) = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options) else { return };
    let Ok(url) = web_sys::Url::create_object_url_with_blob(&blob) else { return };
    let Some(document) = web_sys::window().and_then(|w| w.document()) else { return };
    if let Ok(anchor) = document.create_element("a").map(|a| a.unchecked_into::<web_sys::HtmlAnchorElement>()) {
        anchor.set_href(&url);
        anchor.set_download(name);
        anchor.click();
    }
    let _ = web_sys::Url::revoke_object_url(&url);
}

/// Copies text to the clipboard; false if the browser refused, or has no clipboard for this page
/// (one that is not secure).
pub async fn copy_text(text: &str) -> bool {
    let Some(window) = web_sys::window() else { return false };
    if !super::browser::has(super::browser::Feature::Clipboard) {
        return false;
    }
    let promise = window.navigator().clipboard().write_text(text);
    wasm_bindgen_futures::JsFuture::from(promise).await.is_ok()
}

/// A file name from a title: lowercase words joined by dashes, at most 60 characters.
pub fn file_stem(title: &str) -> String {
    let mut out = String::new();
    for c in title.chars() {
        if c.is_alphanumeric() {
            out.extend(c.to_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
        if out.chars().count() >= 60 {
            break;
        }
    }
    let out = out.trim_end_matches('-').to_owned();
    if out.is_empty() { "session".to_owned() } else { out }
}

#[cfg(test)]
mod tests {
    use super::file_stem;

    #[test]
    fn file_stems_are_tame() {
        assert_eq!(file_stem("Fix the failing test in kettle/"), "fix-the-failing-test-in-kettle");
        assert_eq!(file_stem("../../etc/passwd"), "etc-passwd");
        assert_eq!(file_stem("   "), "session");
        assert_eq!(file_stem(&"a".repeat(100)).len(), 60);
    }
}
