//! Self-contained HTML export: one file holding the app (its JS, CSS and compressed wasm
//! inlined), and a redacted share embedded as data. Opened from disk with the network off, it
//! shows the same viewer; its Content-Security-Policy allows only its own inline code and no
//! connection at all.

use js_sys::Uint8Array;
use sessionscope_engine::share::envelope;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use crate::platform::crypto::CryptoError;
use crate::platform::page::{RENDER_ARRIVED_EVENT, RENDER_MODULE_GLOBAL, STANDALONE_MARKER};

/// The elements holding the loading worker's glue (text) and wasm (deflate, base64) in an
/// exported file: the page parses no logs itself, so the file carries the worker too.
const WORKER_GLUE: &str = "sessionscope-worker-glue";
const WORKER_WASM: &str = "sessionscope-worker-wasm";
/// The render module's wasm (deflate, base64), and the classic script that holds its glue and
/// starts it as the exported file opens (`render::module` then finds it).
const RENDER_WASM: &str = "sessionscope-render-wasm";
const RENDER_SCRIPT: &str = "sessionscope-render";
/// The element holding the embedded share (an envelope in base64url).
pub const SHARE_DATA: &str = "sessionscope-share";
const STYLE_ID: &str = "sessionscope-style";
/// Separates the wasm-bindgen glue from the start-up code in the exported module script.
const START_MARKER: &str = "\n//# sessionscope: start\n";

/// Why an exported file could not be made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExportError {
    /// The page lacks a part the file carries: which.
    Missing(&'static str),
    /// A file of the app could not be had from the site: its address, and what went wrong.
    Unreadable { url: String, why: String },
    /// The policy's hashes could not be made.
    Hash(CryptoError),
}

impl std::fmt::Display for ExportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExportError::Missing(what) => write!(f, "the page has lost {what}"),
            ExportError::Unreadable { url, why } => write!(f, "{url} {why}"),
            ExportError::Hash(error) => error.fmt(f),
        }
    }
}

impl From<CryptoError> for ExportError {
    fn from(error: CryptoError) -> ExportError {
        ExportError::Hash(error)
    }
}

fn unreadable(url: &str, why: impl Into<String>) -> ExportError {
    ExportError::Unreadable { url: url.to_owned(), why: why.into() }
}

/// What an exported file inlines.
struct Assets {
    glue: String,
    css: String,
    /// The wasm, deflate-compressed, in standard base64.
    wasm: String,
    /// The loading worker's wasm-bindgen glue (a classic script) and wasm, as `wasm` is.
    worker_glue: String,
    worker_wasm: String,
    /// The render module's glue (a classic script) and wasm, as the worker's are.
    render_glue: String,
    render_wasm: String,
}

fn document() -> Result<web_sys::Document, ExportError> {
    web_sys::window().and_then(|w| w.document()).ok_or(ExportError::Missing("its document"))
}

/// The share embedded in this page, if it is an exported file.
pub fn embedded_share() -> Option<String> {
    let text = document().ok()?.get_element_by_id(SHARE_DATA)?.text_content()?;
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_owned())
}

async fn fetch(url: &str) -> Result<web_sys::Response, ExportError> {
    let window = web_sys::window().ok_or(ExportError::Missing("its window"))?;
    let response =
        JsFuture::from(window.fetch_with_str(url)).await.map_err(|_| unreadable(url, "could not be read"))?;
    let response: web_sys::Response = response.unchecked_into();
    if !response.ok() {
        return Err(unreadable(url, format!("answered HTTP {}", response.status())));
    }
    Ok(response)
}

async fn fetch_text(url: &str) -> Result<String, ExportError> {
    let promise = fetch(url).await?.text().map_err(|_| unreadable(url, "is not text"))?;
    JsFuture::from(promise).await.ok().and_then(|t| t.as_string()).ok_or_else(|| unreadable(url, "is not text"))
}

async fn fetch_bytes(url: &str) -> Result<Vec<u8>, ExportError> {
    let promise = fetch(url).await?.array_buffer().map_err(|_| unreadable(url, "could not be read"))?;
    let buffer = JsFuture::from(promise).await.map_err(|_| unreadable(url, "could not be read"))?;
    Ok(Uint8Array::new(&buffer).to_vec())
}

fn attribute_of(selector: &'static str, attribute: &str) -> Result<String, ExportError> {
    document()?
        .query_selector(selector)
        .ok()
        .flatten()
        .and_then(|e| e.get_attribute(attribute))
        .ok_or(ExportError::Missing(selector))
}

/// The app's own files: read back from this page if it is an export, else from the server
/// that serves the app (its own origin).
async fn assets() -> Result<Assets, ExportError> {
    let document = document()?;
    if let Some(wasm) = document.get_element_by_id(STANDALONE_MARKER) {
        let script = document
            .query_selector("script[type=module]")
            .ok()
            .flatten()
            .and_then(|s| s.text_content())
            .ok_or(ExportError::Missing("its script"))?;
        let glue = script.split(START_MARKER).next().unwrap_or_default().to_owned();
        let css = document.get_element_by_id(STYLE_ID).and_then(|s| s.text_content()).unwrap_or_default();
        let (worker_glue, worker_wasm) = embedded_worker().ok_or(ExportError::Missing("its worker"))?;
        let text_of = |id: &str| document.get_element_by_id(id).and_then(|e| e.text_content());
        let render_glue = text_of(RENDER_SCRIPT)
            .and_then(|script| script.split(START_MARKER).next().map(str::to_owned))
            .ok_or(ExportError::Missing("its render module"))?;
        let render_wasm = text_of(RENDER_WASM).ok_or(ExportError::Missing("its render module"))?;
        return Ok(Assets {
            glue,
            css,
            wasm: wasm.text_content().unwrap_or_default().trim().to_owned(),
            worker_glue,
            worker_wasm,
            render_glue,
            render_wasm: render_wasm.trim().to_owned(),
        });
    }
    let glue = fetch_text(&attribute_of("link[rel=modulepreload]", "href")?).await?;
    let css = fetch_text(&attribute_of("link[rel=stylesheet]", "href")?).await?;
    let wasm = fetch_bytes(&attribute_of("link[rel=preload][type='application/wasm']", "href")?).await?;
    // The worker's files have fixed names (`worker_loader.js` imports them).
    let worker_glue = fetch_text("./worker.js").await?;
    let worker_wasm = fetch_bytes("./worker_bg.wasm").await?;
    let render_glue = fetch_text("./render.js").await?;
    let render_wasm = fetch_bytes("./render_bg.wasm").await?;
    Ok(Assets {
        glue,
        css,
        wasm: envelope::to_base64(&envelope::deflate(&wasm)),
        worker_glue,
        worker_wasm: envelope::to_base64(&envelope::deflate(&worker_wasm)),
        render_glue,
        render_wasm: envelope::to_base64(&envelope::deflate(&render_wasm)),
    })
}

/// The loading worker this exported page carries: its glue and its packed wasm.
fn embedded_worker() -> Option<(String, String)> {
    let document = document().ok()?;
    let glue = document.get_element_by_id(WORKER_GLUE)?.text_content()?;
    let wasm = document.get_element_by_id(WORKER_WASM)?.text_content()?;
    Some((glue, wasm.trim().to_owned()))
}

/// Where this exported page's workers start from: a `blob:` URL of the worker's glue and its
/// wasm (`client::workers` makes it once). `None` if the page is not an export (or lost its
/// worker).
pub fn worker_url() -> Option<String> {
    let (glue, wasm) = embedded_worker()?;
    let start = format!("\n;(async () => {{\n{}}})();\n", start_packed("wasm_bindgen", &format!("\"{wasm}\"")));
    let parts = js_sys::Array::of2(&glue.into(), &start.into());
    let options = web_sys::BlobPropertyBag::new();
    options.set_type("text/javascript");
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options).ok()?;
    web_sys::Url::create_object_url_with_blob(&blob).ok()
}

/// JavaScript that starts a wasm-bindgen module with `init` (its glue's init function) from its
/// wasm, packed as an exported file keeps it (deflate, base64) in the string `packed`, a
/// JavaScript expression. Run inside an async function or a module script.
fn start_packed(init: &str, packed: &str) -> String {
    format!(
        "const raw = Uint8Array.from(atob({packed}), (c) => c.charCodeAt(0));\n\
         const inflated = new Blob([raw]).stream().pipeThrough(new DecompressionStream(\"deflate-raw\"));\n\
         await {init}({{ module_or_path: await new Response(inflated).arrayBuffer() }});\n"
    )
}

/// The text of the element `id` of an exported file, as a JavaScript expression.
fn element_text(id: &str) -> String {
    format!("document.getElementById(\"{id}\").textContent.trim()")
}

/// The name the glue exports its init function as (`export { …, __wbg_init as default }`).
fn init_function(glue: &str) -> String {
    glue.rfind(" as default")
        .and_then(|end| {
            let start = glue[..end].rfind(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))? + 1;
            Some(glue[start..end].to_owned())
        })
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| "__wbg_init".to_owned())
}

fn escape_html(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// The exported file for a share envelope (base64url).
pub async fn html(share: &str, title: &str) -> Result<String, ExportError> {
    let assets = assets().await?;
    let init = init_function(&assets.glue);
    let start = start_packed(&init, &element_text(STANDALONE_MARKER));
    let script = format!("{}{START_MARKER}{start}", assets.glue.replace("</script", "<\\/script"));
    // The render module starts from the bytes this file carries, and tells the page as the
    // served page's loader does (`scripts/render_loader.js`).
    let render_start = format!(
        "(async () => {{\n\
         let module = null;\n\
         try {{\n\
         {start}\
         module = wasm_bindgen;\n\
         }} catch {{}}\n\
         self.{module_global} = module;\n\
         dispatchEvent(new Event(\"{arrived}\"));\n\
         }})();\n",
        start = start_packed("wasm_bindgen", &element_text(RENDER_WASM)),
        module_global = RENDER_MODULE_GLOBAL,
        arrived = RENDER_ARRIVED_EVENT,
    );
    let render_script = format!("{}{START_MARKER}{render_start}", assets.render_glue.replace("</script", "<\\/script"));
    let css = assets.css.replace("</style", "<\\/style");
    let script_hash = crate::platform::crypto::csp_hash(&script).await?;
    let render_hash = crate::platform::crypto::csp_hash(&render_script).await?;
    let style_hash = crate::platform::crypto::csp_hash(&css).await?;
    let csp = format!(
        "default-src 'none'; script-src 'wasm-unsafe-eval' '{script_hash}' '{render_hash}'; style-src '{style_hash}'; \
         img-src data: blob:; worker-src blob:; connect-src 'none'; base-uri 'none'; form-action 'none'"
    );
    let title = escape_html(title);
    Ok(format!(
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
        wasm = assets.wasm,
        worker_glue = assets.worker_glue.replace("</script", "<\\/script"),
        worker_wasm = assets.worker_wasm,
        render_wasm = assets.render_wasm,
    ))
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
}
