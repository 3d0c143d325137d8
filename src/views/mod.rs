//! What a loaded corpus looks like on screen.

pub mod messages;
