//! The app's state by concern, each a `Copy` struct of signals and stored values with its
//! methods, provided as its own context: the page chrome ([`ChromeState`]), the viewer of what
//! is loaded ([`ViewerState`]), loading ([`LoadState`]); search (`crate::search`) and sharing
//! (`crate::sharing`) keep theirs beside their code. Calls go one way: sharing → loading →
//! viewer, search, chrome. The parsed model is kept out of the reactive graph.

pub mod chrome;
pub mod history;
pub mod loading;
pub mod viewer;

pub use chrome::{ChromeState, use_chrome};
pub use history::{HistoryState, use_history};
pub use loading::{LoadState, LoadStatus, PreviewFacts, use_loading};
pub use viewer::{MainTab, PanelTab, ViewerState, use_viewer};
