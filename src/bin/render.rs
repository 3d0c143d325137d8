//! The render module: what turns a message's content into something to draw and is not needed
//! before a session is open — Markdown (pulldown-cmark, `src/render/markdown.rs`) and line and
//! word diffs (similar, `src/render/diff.rs`). A wasm module of its own, so the page's first
//! download does not carry them (about 70 KB of Brotli). The page loads it once it is idle, or
//! when a session is on its way (`sessionscope_web::render::module`), and calls it
//! synchronously from then on.
//!
//! The renderers' files are compiled in here rather than through the page's library, which this
//! module does not link: it holds them, their crates, and nothing else.

use wasm_bindgen::prelude::*;

// What else those files hold (the plain-text preview, structured patches) is the page's. Their
// tests run with the page's library (this binary's are off in Cargo.toml).
#[allow(dead_code)]
#[path = "../render/markdown.rs"]
mod markdown;

#[allow(dead_code)]
#[path = "../render/diff.rs"]
mod diff;

fn main() {}

/// Markdown as HTML that is safe to insert with `innerHTML` (see `markdown::markdown_to_html`).
#[wasm_bindgen(js_name = markdownToHtml)]
pub fn markdown_to_html(text: &str) -> String {
    markdown::markdown_to_html(text)
}

/// The diff of edits, as JSON (see `diff::diff_edits_json`).
#[wasm_bindgen(js_name = diffEdits)]
pub fn diff_edits(edits: &str) -> String {
    diff::diff_edits_json(edits)
}

/// Diff lines with their changed words marked, as JSON (see `diff::mark_changed_words_json`).
#[wasm_bindgen(js_name = markChangedWords)]
pub fn mark_changed_words(lines: &str) -> String {
    diff::mark_changed_words_json(lines)
}
