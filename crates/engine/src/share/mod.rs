//! Sharing without a server: a scope of the loaded sessions ([`scope`]) is redacted line by
//! line ([`crate::redact`]), bundled with a header ([`bundle`]), compressed and packed in a
//! versioned envelope ([`envelope`]) that fits a URL fragment or an exported HTML file. The
//! recipient's viewer reads the bundle's files with the ordinary loader.

pub mod bundle;
pub mod envelope;
pub mod fingerprint;
pub mod markdown;
pub mod page;
pub mod redacted;
pub mod scope;

use std::borrow::Cow;

pub use bundle::{Bundle, BundleHeader, RedactionNote};
pub use scope::{Scope, ScopeFile, ScopeLine, ScopeLines};

use crate::model::Corpus;

/// What precedes the envelope in a share link's URL: the fragment, which browsers never send.
pub const SHARE_FRAGMENT: &str = "#share=";

/// The bytes of a line as it is shared: with `parentUuid` set to `null` when its parent is
/// outside the scope.
pub fn line_bytes<'a>(corpus: &'a Corpus, file: &ScopeFile, line: &ScopeLine) -> Cow<'a, [u8]> {
    let bytes = corpus.bytes.get(file.file as usize).map(Vec::as_slice).unwrap_or_default();
    let Some(text) = bytes.get(line.start..line.end) else { return Cow::Borrowed(&[]) };
    if line.skip_messages > 0
        && let Some(trimmed) = without_first_messages(text, line.skip_messages as usize)
    {
        return Cow::Owned(trimmed);
    }
    match line.cut_parent {
        Some((start, end)) if start >= line.start && end <= line.end && start < end => {
            let mut out = Vec::with_capacity(text.len());
            out.extend_from_slice(&bytes[line.start..start]);
            out.extend_from_slice(b"null");
            out.extend_from_slice(&bytes[end..line.end]);
            Cow::Owned(out)
        }
        _ => Cow::Borrowed(text),
    }
}

/// The line with the first `skip` entries of its `messages` array left out (compact JSON).
fn without_first_messages(text: &[u8], skip: usize) -> Option<Vec<u8>> {
    let mut value: serde_json::Value = serde_json::from_slice(text).ok()?;
    let messages = value.get_mut("messages")?.as_array_mut()?;
    messages.drain(..skip.min(messages.len()));
    serde_json::to_vec(&value).ok()
}

/// A position in a walk over the lines of a scope, so a long walk can be done in slices.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cursor {
    pub file: usize,
    pub line: usize,
    /// Lines visited so far.
    pub done: usize,
}

impl ScopeLines {
    /// Visits lines from `cursor` until about `budget_bytes` have been visited; returns whether
    /// the walk is over.
    pub fn walk(
        &self,
        cursor: &mut Cursor,
        budget_bytes: usize,
        mut visit: impl FnMut(usize, &ScopeFile, &ScopeLine),
    ) -> bool {
        let mut spent = 0;
        while let Some(file) = self.files.get(cursor.file) {
            while let Some(line) = file.lines.get(cursor.line) {
                if spent >= budget_bytes {
                    return false;
                }
                visit(cursor.file, file, line);
                spent += line.end - line.start + 1;
                cursor.line += 1;
                cursor.done += 1;
            }
            cursor.file += 1;
            cursor.line = 0;
        }
        true
    }
}
