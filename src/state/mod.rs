//! The app's state by concern, each a `Copy` struct of signals and stored values with its
//! methods, provided as its own context: the page chrome ([`ChromeState`]), the viewer of what is
//! loaded ([`ViewerState`]), loading ([`LoadState`]), the search of the session shown
//! ([`SearchState`]), sharing ([`SharingState`], and the share dialog's [`share_scan`]) and a
//! whole history ([`HistoryState`], split by pass), and the bookmarks, notes and tags
//! ([`MarksState`]). Calls go one way: history → loading →
//! viewer, search, chrome; sharing → loading. The states reach files and workers through
//! `client`, never the views; the parsed model is kept out of the reactive graph.

pub mod bookmarks;
pub mod chrome;
pub mod history;
pub mod loading;
pub mod session_search;
pub mod share_scan;
pub mod sharing;
pub mod viewer;

pub use bookmarks::{MarksState, use_marks};
pub use chrome::{ChromeState, use_chrome};
pub use history::{HistoryState, use_history};
pub use loading::{LoadState, LoadStatus, PreviewFacts, use_loading};
pub use session_search::{SearchState, use_search};
pub use sharing::{SharingState, use_sharing};
pub use viewer::{MainTab, PanelTab, ViewerState, use_viewer};
