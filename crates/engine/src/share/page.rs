//! The self-contained HTML file of a share: one file holding the app (its JS, CSS and
//! compressed wasm inlined) and a redacted share embedded as data, which opened from disk with
//! the network off shows the same viewer. Its Content-Security-Policy allows only its own inline
//! code (by hash) and no connection at all.
//!
//! The page makes it from its own files (`client::export`), the command line from a built site
//! (`sessionscope open`): both give the app's files as [`PageAssets`], hash the three inline
//! texts of [`PageParts`] (SHA-256, the page with WebCrypto) and write [`page_html`].

use super::envelope;

/// The element holding the app's wasm in an exported file. Its presence also tells the app it
/// runs standalone: no server, its loading worker started from the file itself.
pub const STANDALONE_MARKER: &str = "sessionscope-standalone";

/// The event the render module's loader (`scripts/render_loader.js`, or an exported file's
/// start-up script) sends when the module is ready, or could not be loaded.
pub const RENDER_ARRIVED_EVENT: &str = "sessionscope-render";

/// The global the render module's functions (its wasm-bindgen exports) are put in once it is
/// ready, or `null` if it failed.
pub const RENDER_MODULE_GLOBAL: &str = "sessionscopeRender";

/// The elements holding the loading worker's glue (text) and wasm (deflate, base64) in an
/// exported file: the page parses no logs itself, so the file carries the worker too.
pub const WORKER_GLUE: &str = "sessionscope-worker-glue";
pub const WORKER_WASM: &str = "sessionscope-worker-wasm";
/// The render module's wasm (deflate, base64), and the classic script that holds its glue and
/// starts it as the exported file opens.
pub const RENDER_WASM: &str = "sessionscope-render-wasm";
pub const RENDER_SCRIPT: &str = "sessionscope-render";
/// The element holding the embedded share (an envelope in base64url).
pub const SHARE_DATA: &str = "sessionscope-share";
pub const STYLE_ID: &str = "sessionscope-style";
/// Separates the wasm-bindgen glue from the start-up code in the exported module script.
pub const START_MARKER: &str = "\n//# sessionscope: start\n";

/// What an exported file inlines: the app's files, each wasm packed ([`pack_wasm`]).
#[derive(Clone, Debug, Default)]
pub struct PageAssets {
    /// The page's wasm-bindgen glue (an ES module) and style sheet.
    pub glue: String,
    pub css: String,
    /// The page's wasm, packed.
    pub wasm: String,
    /// The loading worker's wasm-bindgen glue (a classic script) and wasm, packed.
    pub worker_glue: String,
    pub worker_wasm: String,
    /// The render module's glue (a classic script) and wasm, packed.
    pub render_glue: String,
    pub render_wasm: String,
}

/// The inline texts of an exported file that its policy names by their SHA-256 hashes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PageParts {
    /// The module script: the page's glue, then the code that starts it from the packed wasm.
    pub script: String,
    /// The classic script that starts the render module.
    pub render_script: String,
    pub css: String,
}

/// A wasm file as an exported file carries it: deflate-compressed, in standard base64.
pub fn pack_wasm(bytes: &[u8]) -> String {
    envelope::to_base64(&envelope::deflate(bytes))
}

/// JavaScript that starts a wasm-bindgen module with `init` (its glue's init function) from its
/// wasm, packed as an exported file keeps it, in the string `packed`, a JavaScript expression.
/// Run inside an async function or a module script. The bytes go to the decompressor as a stream
/// made of them, not a `Blob`'s stream: in a worker of a file opened from disk (an opaque
/// origin), Safari's engine fails every read of a `Blob`'s stream (`NotReadableError`).
pub fn start_packed(init: &str, packed: &str) -> String {
    format!(
        "const raw = Uint8Array.from(atob({packed}), (c) => c.charCodeAt(0));\n\
         const inflated = new ReadableStream({{ start(c) {{ c.enqueue(raw); c.close(); }} }}).pipeThrough(new DecompressionStream(\"deflate-raw\"));\n\
         await {init}({{ module_or_path: await new Response(inflated).arrayBuffer() }});\n"
    )
}

/// The text of the element `id` of an exported file, as a JavaScript expression.
fn element_text(id: &str) -> String {
    format!("document.getElementById(\"{id}\").textContent.trim()")
}

/// The name the glue exports its init function as (`export { …, __wbg_init as default }`).
pub fn init_function(glue: &str) -> String {
    glue.rfind(" as default")
        .and_then(|end| {
            let start = glue[..end].rfind(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))? + 1;
            Some(glue[start..end].to_owned())
        })
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| "__wbg_init".to_owned())
}

pub fn escape_html(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// The inline texts of the file for `assets`, to hash.
pub fn page_parts(assets: &PageAssets) -> PageParts {
    let init = init_function(&assets.glue);
    let start = start_packed(&init, &element_text(STANDALONE_MARKER));
    let script = format!("{}{START_MARKER}{start}", assets.glue.replace("</script", "<\\/script"));
    // The render module starts from the bytes the file carries, and tells the page as the
    // served page's loader does (`scripts/render_loader.js`).
    let render_start = format!(
        "(async () => {{\n\
         let module = null;\n\
         try {{\n\
         {start}\
         module = wasm_bindgen;\n\
         }} catch {{}}\n\
         self.{RENDER_MODULE_GLOBAL} = module;\n\
         dispatchEvent(new Event(\"{RENDER_ARRIVED_EVENT}\"));\n\
         }})();\n",
        start = start_packed("wasm_bindgen", &element_text(RENDER_WASM)),
    );
    let render_script = format!("{}{START_MARKER}{render_start}", assets.render_glue.replace("</script", "<\\/script"));
    PageParts { script, render_script, css: assets.css.replace("</style", "<\\/style") }
}

/// The SHA-256 hashes of a file's [`PageParts`] as its policy names them (`sha256-<base64>`).
#[derive(Clone, Debug, Default)]
pub struct PartHashes {
    pub script: String,
    pub render_script: String,
    pub css: String,
}

/// The exported file for a share envelope (base64url) titled `title`.
pub fn page_html(assets: &PageAssets, parts: &PageParts, hashes: &PartHashes, share: &str, title: &str) -> String {
    let csp = format!(
        "default-src 'none'; script-src 'wasm-unsafe-eval' '{}' '{}'; style-src '{}'; \
         img-src data: blob:; worker-src blob:; connect-src 'none'; base-uri 'none'; form-action 'none'",
        hashes.script, hashes.render_script, hashes.css
    );
    let title = escape_html(title);
    format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"{csp}\">\n\
         <meta name=\"referrer\" content=\"no-referrer\">\n<meta name=\"color-scheme\" content=\"light dark\">\n\
         <meta name=\"generator\" content=\"sessionscope\">\n\
         <title>{title} · sessionscope (shared, redacted)</title>\n<link rel=\"icon\" href=\"data:,\">\n\
         <style id=\"{STYLE_ID}\">{css}</style>\n</head>\n<body>\n\
         <div id=\"app\"><p class=\"dropzone-note\">Loading the shared view… (this file needs JavaScript; nothing is loaded from the network)</p></div>\n\
         <script type=\"application/octet-stream\" id=\"{SHARE_DATA}\">{share}</script>\n\
         <script type=\"application/octet-stream\" id=\"{STANDALONE_MARKER}\">{wasm}</script>\n\
         <script type=\"text/plain\" id=\"{WORKER_GLUE}\">{worker_glue}</script>\n\
         <script type=\"application/octet-stream\" id=\"{WORKER_WASM}\">{worker_wasm}</script>\n\
         <script type=\"application/octet-stream\" id=\"{RENDER_WASM}\">{render_wasm}</script>\n\
         <script id=\"{RENDER_SCRIPT}\">{render_script}</script>\n\
         <script type=\"module\">{script}</script>\n</body>\n</html>\n",
        css = parts.css,
        script = parts.script,
        render_script = parts.render_script,
        wasm = assets.wasm,
        worker_glue = assets.worker_glue.replace("</script", "<\\/script"),
        worker_wasm = assets.worker_wasm,
        render_wasm = assets.render_wasm,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_init_function_is_found_in_the_glue() {
        assert_eq!(init_function("function a() {}\nexport { initSync, __wbg_init as default };\n"), "__wbg_init");
        assert_eq!(init_function("export { initSync, $init2 as default };"), "$init2");
        assert_eq!(init_function("no export here"), "__wbg_init");
    }

    #[test]
    fn titles_are_escaped() {
        assert_eq!(escape_html("<script>\"&"), "&lt;script&gt;&quot;&amp;");
    }

    #[test]
    fn no_inline_text_can_close_its_element_and_the_policy_names_each_by_its_hash() {
        let assets = PageAssets {
            glue: "export { x as default }; // </script><script>alert(1)</script>".into(),
            css: "a{} </style><img src=x onerror=alert(2)>".into(),
            worker_glue: "w = '</script>'".into(),
            render_glue: "var wasm_bindgen; // </script>".into(),
            ..PageAssets::default()
        };
        let parts = page_parts(&assets);
        let hashes = PartHashes { script: "sha256-A".into(), render_script: "sha256-B".into(), css: "sha256-C".into() };
        let html = page_html(&assets, &parts, &hashes, "AAAA", "A <b>title</b>");
        assert_eq!(html.matches("</script>").count(), 7, "one per script element, none from the texts");
        assert_eq!(html.matches("</style>").count(), 1);
        assert!(html.contains("script-src 'wasm-unsafe-eval' 'sha256-A' 'sha256-B'; style-src 'sha256-C'"));
        assert!(html.contains("connect-src 'none'"));
        assert!(html.contains("<title>A &lt;b&gt;title&lt;/b&gt; · sessionscope"));
        assert!(parts.script.contains(START_MARKER) && parts.script.contains("await x({"), "{}", parts.script);
    }
}
