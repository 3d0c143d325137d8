//! What the app shows: the start screen, loading progress, the load summary, the session
//! list and the conversation graph.

pub mod content;
pub mod progress;
pub mod row;
pub mod sessions;
pub mod start;
pub mod summary;
pub mod tree;
