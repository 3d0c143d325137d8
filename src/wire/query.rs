//! A search query as it travels: its text, and whether the text is a regular expression. The
//! page has no regular expressions; a worker makes the query (`sessionscope_engine::search::Query`)
//! and says if the text is not a valid one.

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchQuery {
    pub text: String,
    pub regex: bool,
}

impl SearchQuery {
    pub fn new(text: impl Into<String>, regex: bool) -> SearchQuery {
        SearchQuery { text: text.into(), regex }
    }

    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }
}
