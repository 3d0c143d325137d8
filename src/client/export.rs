//! Self-contained HTML export: one file holding the app (its JS, CSS and compressed wasm
//! inlined), and a redacted share embedded as data. Opened from disk with the network off, it
//! shows the same viewer; its Content-Security-Policy allows only its own inline code and no
//! connection at all. The file itself is written by the engine (`share::page`, which `sessionscope
//! open` writes too); this gathers the app's files from the page or its server, and hashes.

use js_sys::Uint8Array;
use sessionscope_engine::share::page::{
    PageAssets, PartHashes, RENDER_SCRIPT, RENDER_WASM, SHARE_DATA, START_MARKER, STYLE_ID, WORKER_GLUE, WORKER_WASM,
    pack_wasm, page_html, page_parts, start_packed,
};
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use crate::platform::crypto::CryptoError;
use crate::platform::page::STANDALONE_MARKER;

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
async fn assets() -> Result<PageAssets, ExportError> {
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
        return Ok(PageAssets {
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
    Ok(PageAssets {
        glue,
        css,
        wasm: pack_wasm(&wasm),
        worker_glue,
        worker_wasm: pack_wasm(&worker_wasm),
        render_glue,
        render_wasm: pack_wasm(&render_wasm),
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
    // It names an error that stops it to the page first, as the site's workers do.
    let start = format!(
        "\n;{}\n;(async () => {{\n{}}})();\n",
        super::handle::CRASH_REPORTER,
        start_packed("wasm_bindgen", &format!("\"{wasm}\""))
    );
    let parts = js_sys::Array::of2(&glue.into(), &start.into());
    let options = web_sys::BlobPropertyBag::new();
    options.set_type("text/javascript");
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options).ok()?;
    web_sys::Url::create_object_url_with_blob(&blob).ok()
}

/// The exported file for a share envelope (base64url) ([`page_html`]).
pub async fn html(share: &str, title: &str) -> Result<String, ExportError> {
    let assets = assets().await?;
    let parts = page_parts(&assets);
    let hashes = PartHashes {
        script: crate::platform::crypto::csp_hash(&parts.script).await?,
        render_script: crate::platform::crypto::csp_hash(&parts.render_script).await?,
        css: crate::platform::crypto::csp_hash(&parts.css).await?,
    };
    Ok(page_html(&assets, &parts, &hashes, share, title))
}
