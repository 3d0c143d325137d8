//! The example session bundled with the app (`wire::example_files`), fetched from the site and parsed
//! in a worker, so a first visit shows a working viewer: ahead of a click, once the start page is
//! idle ([`Example::prepare`]), or when it is opened ([`Example::take`]).

use std::cell::RefCell;
use std::rc::Rc;

use futures::channel::oneshot;

use super::load_job::{LoadError, parse_in_worker};
use super::workers::Workers;
use crate::logic::loaded::Model;
use crate::platform::files::{FetchError, fetch_bytes};
use crate::platform::probe::{self, Said};
use crate::wire::example_files::PATHS;

/// The example's files (`(path, bytes)`) and its model.
pub type Fetched = (Vec<(String, Vec<u8>)>, Model);

/// Why the example could not be opened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExampleError {
    Fetch(FetchError),
    Load(LoadError),
}

impl std::fmt::Display for ExampleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExampleError::Fetch(error) => write!(f, "the example could not be fetched ({error})"),
            ExampleError::Load(error) => error.fmt(f),
        }
    }
}

/// Where the example fetched ahead of a click is.
enum Ahead {
    /// Not asked for, or already taken.
    Nothing,
    /// Being fetched and parsed; `waiting` is the click that wants it as soon as it is ready.
    Underway { waiting: Option<oneshot::Sender<Result<Fetched, ExampleError>>> },
    /// Fetched and parsed, not yet opened.
    Ready(Box<Fetched>),
}

/// The example, fetched ahead or on demand. Clones share it.
#[derive(Clone)]
pub struct Example {
    workers: Workers,
    ahead: Rc<RefCell<Ahead>>,
}

impl Example {
    pub fn new(workers: Workers) -> Example {
        Example { workers, ahead: Rc::new(RefCell::new(Ahead::Nothing)) }
    }

    /// Fetches and parses the example ahead of a click, unless that is under way or done. Open
    /// example is what most first visits do; prepared while the start page waits, its fetch, its
    /// parse and the first run of the parser's code are no longer between the click and the rows.
    pub fn prepare(&self) {
        let start = {
            let mut ahead = self.ahead.borrow_mut();
            match *ahead {
                Ahead::Nothing => {
                    *ahead = Ahead::Underway { waiting: None };
                    true
                }
                _ => false,
            }
        };
        if start {
            self.start_preparing();
        }
    }

    /// Fetches and parses the example into `ahead`, which says it is under way.
    fn start_preparing(&self) {
        let example = self.clone();
        wasm_bindgen_futures::spawn_local(async move {
            let fetched = example.fetch_and_parse().await;
            let earlier = std::mem::replace(&mut *example.ahead.borrow_mut(), Ahead::Nothing);
            match earlier {
                Ahead::Underway { waiting: Some(click) } => {
                    // The click that waits may have been replaced by a later one: then nobody
                    // wants it.
                    let _ = click.send(fetched);
                }
                _ => {
                    // A failure is not kept: the click fetches again and says why if it fails too.
                    if let Ok(fetched) = fetched {
                        *example.ahead.borrow_mut() = Ahead::Ready(Box::new(fetched));
                        probe::say(Said::ExamplePrepared);
                    }
                }
            }
        });
    }

    /// The example, as prepared ahead or fetched and parsed now; `None` when a later call took
    /// the wait over (a second click on Open example while the first waits: one opening is
    /// enough).
    pub async fn take(&self) -> Option<Result<Fetched, ExampleError>> {
        enum Next {
            Have(Box<Fetched>),
            Wait(oneshot::Receiver<Result<Fetched, ExampleError>>),
        }
        let mut start = false;
        let next = {
            let mut ahead = self.ahead.borrow_mut();
            match std::mem::replace(&mut *ahead, Ahead::Nothing) {
                Ahead::Ready(fetched) => Next::Have(fetched),
                // Not asked for yet: it is now, and a preparation the idle page asks for later
                // finds it under way (one parse, not two).
                earlier => {
                    start = matches!(earlier, Ahead::Nothing);
                    let (click, wait) = oneshot::channel();
                    *ahead = Ahead::Underway { waiting: Some(click) };
                    Next::Wait(wait)
                }
            }
        };
        if start {
            self.start_preparing();
        }
        match next {
            Next::Have(fetched) => Some(Ok(*fetched)),
            Next::Wait(wait) => wait.await.ok(),
        }
    }

    async fn fetch_and_parse(&self) -> Result<Fetched, ExampleError> {
        let files = fetch().await.map_err(ExampleError::Fetch)?;
        probe::say(Said::ExampleFetched);
        let model = parse_in_worker(&self.workers, &files, |_| {}).await.map_err(ExampleError::Load)?;
        Ok((files, model))
    }
}

/// The example's files, fetched from the site (they are not in the page's wasm), all at once:
/// `(path, bytes)`.
async fn fetch() -> Result<Vec<(String, Vec<u8>)>, FetchError> {
    let fetched = futures::future::join_all(PATHS.iter().map(|path| fetch_bytes(path))).await;
    PATHS.iter().zip(fetched).map(|(path, bytes)| Ok(((*path).to_owned(), bytes?))).collect()
}
