//! The page's side of IO, with no signals: every worker through one [`handle::WorkerHandle`]
//! ([`workers`] starts them, and keeps one spare), a client per worker role (a load
//! [`load_job`], the open session's [`session_worker`], a history's [`pool`], a followed
//! session's [`follow_worker`], a history's [`insights_worker`], agents' [`databases`]), how files come in ([`intake`]: drops,
//! picks and folder handles, one walk), the folders this browser remembers ([`folders`]), the
//! bundled [`example`], and the self-contained HTML [`export`]. The states above call these and
//! turn their answers into signals.

pub mod databases;
pub mod example;
pub mod export;
pub mod folders;
pub mod follow_worker;
pub mod handle;
pub mod insights_worker;
pub mod intake;
pub mod load_job;
pub mod picked;
pub mod pool;
pub mod session_worker;
pub mod workers;
