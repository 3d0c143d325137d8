//! Browser helpers that know no app type: which browser this is and what it has, scheduling and
//! the page's clock, files (read whole, in
//! slices, or as byte streams) and file or folder handles (with typed errors for what the browser
//! refuses), storage, the address bar, crypto, downloads, the dialog of a page that panicked, the
//! files an installed app is launched with, the heap's live bytes, the page itself, and what the page says of itself for
//! the tests to wait on (`probe`). The layers above use the browser
//! through these, or through `web_sys` for what is theirs alone (a view's DOM, a worker's
//! messages).

pub mod address;
pub mod browser;
pub mod byte_stream;
pub mod crash;
pub mod crypto;
pub mod download;
pub mod errors;
pub mod files;
pub mod handles;
pub mod heap;
pub mod launch;
pub mod page;
pub mod probe;
pub mod schedule;
pub mod storage;
