//! What the app shows: the start screen, loading progress, the load summary, the session
//! list and the conversation graph.

pub mod content;
pub mod dialog;
pub mod filters;
pub mod history;
pub mod keys;
pub mod panel;
pub mod progress;
pub mod search;
pub mod sessions;
pub mod share;
pub mod start;
pub mod stats;
pub mod summary;
pub mod tree;
