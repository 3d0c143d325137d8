//! The Markdown module: pulldown-cmark and the safe renderer of `src/render/markdown.rs`, in a
//! wasm module of their own, so the page's first download does not carry them (55 KB of
//! Brotli). The page loads it once it is idle, or when a session is on its way
//! (`sessionscope_web::markdown_module`), and calls it synchronously from then on.
//!
//! The renderer's file is compiled in here rather than through the page's library, which this
//! module does not link: it holds pulldown-cmark and nothing else.

use wasm_bindgen::prelude::*;

// The plain-text preview in that file is used by the page's native code only.
#[allow(dead_code)]
#[path = "../render/markdown.rs"]
mod markdown;

fn main() {}

/// Markdown as HTML that is safe to insert with `innerHTML` (see `markdown::markdown_to_html`).
#[wasm_bindgen(js_name = markdownToHtml)]
pub fn markdown_to_html(text: &str) -> String {
    markdown::markdown_to_html(text)
}
