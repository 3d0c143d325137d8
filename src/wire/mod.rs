//! What crosses between the page and its workers, and depends on the engine only: the parcel a
//! message travels in ([`parcel`]), one request and one reply enum per worker role
//! ([`messages`]), the history insights worker's requests ([`insights`]), the model's codec ([`codec`]), the sizes both sides agree on ([`limits`]), a
//! typed search query ([`query`]), the share scan's report ([`share_report`]) and the bundled
//! example's files ([`example_files`]).

pub mod codec;
pub mod example_files;
pub mod insights;
pub mod limits;
pub mod messages;
pub mod parcel;
pub mod query;
pub mod share_report;
pub mod word_search;

pub use messages::{FromWorker, ToWorker};
pub use parcel::{Encoded, Parcel, Port, RequestId, WireError, buffer_of, bytes_of};
pub use query::SearchQuery;
