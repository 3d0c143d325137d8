//! Deep links to a message: `#s=<session>&m=<uuid>`. When the same files are loaded, opening
//! the link shows the message with everything above it expanded. The fragment never leaves
//! the browser.

/// What a link names.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DeepLink {
    pub session: Option<String>,
    pub message: Option<String>,
}

/// Parses `#s=...&m=...` (either part may be missing).
pub fn parse(hash: &str) -> DeepLink {
    let mut link = DeepLink::default();
    for part in hash.trim_start_matches('#').split('&') {
        let (key, value) = part.split_once('=').unwrap_or((part, ""));
        let value = decode(value);
        if value.is_empty() {
            continue;
        }
        match key {
            "s" => link.session = Some(value),
            "m" => link.message = Some(value),
            _ => {}
        }
    }
    link
}

/// The fragment of a link.
pub fn format(session: &str, message: Option<&str>) -> String {
    match message {
        Some(m) => format!("#s={}&m={}", encode(session), encode(m)),
        None => format!("#s={}", encode(session)),
    }
}

fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(hex) = text.get(i + 1..i + 3)
            && let Ok(value) = u8::from_str_radix(hex, 16)
        {
            out.push(value);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The link in the address bar, if it names anything.
pub fn read_hash() -> Option<DeepLink> {
    let hash = web_sys::window()?.location().hash().ok()?;
    let link = parse(&hash);
    (link.session.is_some() || link.message.is_some()).then_some(link)
}

/// Puts a link in the address bar without adding a history entry.
pub fn write_hash(fragment: &str) {
    let Some(window) = web_sys::window() else { return };
    if window.location().hash().ok().as_deref() == Some(fragment) {
        return;
    }
    if let Ok(history) = window.history() {
        let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(fragment));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_round_trip() {
        let fragment = format("258c7280-ae70", Some("1a2252ee-fde8"));
        assert_eq!(fragment, "#s=258c7280-ae70&m=1a2252ee-fde8");
        assert_eq!(
            parse(&fragment),
            DeepLink { session: Some("258c7280-ae70".into()), message: Some("1a2252ee-fde8".into()) }
        );
        assert_eq!(parse(&format("a b/c", None)).session.as_deref(), Some("a b/c"));
        assert_eq!(parse("#share=xyz"), DeepLink::default());
        assert_eq!(parse("#m=%zz").message.as_deref(), Some("%zz"));
    }
}
