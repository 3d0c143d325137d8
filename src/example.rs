//! The example session bundled into the app, so a first visit shows a working viewer.
//! It was written for the purpose (`assets/example/`), not taken from anyone's log: a developer
//! asks the agent to fix a failing test in a small Rust crate. It has tool calls with results,
//! an Explore subagent in its own file, an auto compaction and a rewound prompt.
//!
//! The page fetches it from the site (`dist/example/`, copied there by Trunk), so it is not in the
//! page's first download: ahead of a click, once the start page is idle ([`prepare`]), or when
//! it is opened ([`take`]). The worker and the tests keep it built in.

use std::cell::RefCell;

use futures::channel::oneshot;

use crate::model::Model;

macro_rules! example_file {
    ($path:literal) => {
        (concat!("example/", $path), include_bytes!(concat!("../assets/example/", $path)).as_slice())
    };
}

/// The paths of the example's files, as the site serves them and as the viewer names them.
pub const PATHS: [&str; 3] = [
    "example/e3a1c0de-7b2f-4c59-9d41-5f0e8a6b2c17.jsonl",
    "example/e3a1c0de-7b2f-4c59-9d41-5f0e8a6b2c17/subagents/agent-a7e5d21.jsonl",
    "example/e3a1c0de-7b2f-4c59-9d41-5f0e8a6b2c17/subagents/agent-a7e5d21.meta.json",
];

/// `(path, bytes)` of each file of the example project folder, built in.
pub const FILES: &[(&str, &[u8])] = &[
    example_file!("e3a1c0de-7b2f-4c59-9d41-5f0e8a6b2c17.jsonl"),
    example_file!("e3a1c0de-7b2f-4c59-9d41-5f0e8a6b2c17/subagents/agent-a7e5d21.jsonl"),
    example_file!("e3a1c0de-7b2f-4c59-9d41-5f0e8a6b2c17/subagents/agent-a7e5d21.meta.json"),
];

/// The example's files (`(path, bytes)`) and its model.
pub type Example = (Vec<(String, Vec<u8>)>, Model);

/// Where the example fetched ahead of a click is.
enum Ahead {
    /// Not asked for, or already taken.
    Nothing,
    /// Being fetched and parsed; `waiting` is the click that wants it as soon as it is ready.
    Underway { waiting: Option<oneshot::Sender<Result<Example, String>>> },
    /// Fetched and parsed, not yet opened.
    Ready(Box<Example>),
}

thread_local! {
    static AHEAD: RefCell<Ahead> = const { RefCell::new(Ahead::Nothing) };
}

/// Fetches and parses the example ahead of a click, unless that is under way or done. Open
/// example is what most first visits do; prepared while the start page waits, its fetch, its
/// parse and the first run of the parser's code are no longer between the click and the rows.
pub fn prepare() {
    let start = AHEAD.with_borrow_mut(|ahead| match ahead {
        Ahead::Nothing => {
            *ahead = Ahead::Underway { waiting: None };
            true
        }
        _ => false,
    });
    if start {
        start_preparing();
    }
}

/// Fetches and parses the example into [`AHEAD`], which says it is under way.
fn start_preparing() {
    leptos::task::spawn_local(async {
        let fetched = fetch_and_parse().await;
        AHEAD.with_borrow_mut(|ahead| match std::mem::replace(ahead, Ahead::Nothing) {
            Ahead::Underway { waiting: Some(click) } => {
                // The click that waits may have been replaced by a later one: then nobody wants it.
                let _ = click.send(fetched);
            }
            _ => {
                // A failure is not kept: the click fetches again and says why if it fails too.
                if let Ok(example) = fetched {
                    *ahead = Ahead::Ready(Box::new(example));
                }
            }
        });
    });
}

/// The example, as prepared ahead or fetched and parsed now; `None` when a later call took the
/// wait over (a second click on Open example while the first waits: one opening is enough).
pub async fn take() -> Option<Result<Example, String>> {
    enum Next {
        Have(Box<Example>),
        Wait(oneshot::Receiver<Result<Example, String>>),
    }
    let mut start = false;
    let next = AHEAD.with_borrow_mut(|ahead| match std::mem::replace(ahead, Ahead::Nothing) {
        Ahead::Ready(example) => Next::Have(example),
        // Not asked for yet: it is now, and a preparation the idle page asks for later finds
        // it under way (one parse, not two).
        earlier => {
            start = matches!(earlier, Ahead::Nothing);
            let (click, wait) = oneshot::channel();
            *ahead = Ahead::Underway { waiting: Some(click) };
            Next::Wait(wait)
        }
    });
    if start {
        start_preparing();
    }
    match next {
        Next::Have(example) => Some(Ok(*example)),
        Next::Wait(wait) => wait.await.ok(),
    }
}

async fn fetch_and_parse() -> Result<Example, String> {
    let files = crate::files::fetch_example().await?;
    let model = crate::files::parse_in_worker(&files, |_| {}).await?;
    Ok((files, model))
}
