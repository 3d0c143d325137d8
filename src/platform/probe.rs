//! What the page says of itself as it happens, for whoever listens: a `sessionscope` event on the
//! window, whose `detail` names what happened (`detail.name`) with its figures. The browser tests
//! wait for these instead of waiting a fixed time and then asserting that something did not
//! happen ("following looked and found nothing new", "the worker started ahead is ready"); on a
//! slow machine a fixed wait passes whether or not the page is right, an event does not.
//!
//! Nothing listens in normal use: saying costs one event dispatch, a few times a second at most.

use wasm_bindgen::JsValue;

/// Something that happened, as the page says it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Said {
    /// The worker started ahead of time said it runs, or a worker went back to being that one,
    /// or the page asked for one to be started ahead and found it waiting, ready.
    SpareReady,
    /// The example's files were fetched (ahead of a click or for one).
    ExampleFetched,
    /// The example is fetched and parsed ahead of a click.
    ExamplePrepared,
    /// A load ended (shown, or failed and said so).
    LoadEnded,
    /// Following a folder looked at its files. `started_ms` is when the look began on the
    /// page's clock (`performance.now()`); `units_read` how many sessions it read again (0:
    /// nothing new); `walk` whether it walked the whole folder.
    FollowLooked { started_ms: f64, units_read: u32, walk: bool },
    /// Following skipped a look: the tab is hidden (`hidden`) or an index or search runs.
    FollowSkipped { hidden: bool },
    /// The followed open session was read again and what it holds now is shown. `started_ms`
    /// is when the read began (`performance.now()`); `bytes_read` what it read.
    SessionReadAgain { started_ms: f64, bytes_read: f64 },
    /// What was seen of the history's sessions is kept in the page's storage.
    SeenKept,
    /// The moments after the tab was shown again, when rows that arrive count as written while
    /// it was hidden, are over.
    AwayOver,
}

impl Said {
    /// The event's name, in `detail.name`.
    pub fn name(&self) -> &'static str {
        match self {
            Said::SpareReady => "spare-ready",
            Said::ExampleFetched => "example-fetched",
            Said::ExamplePrepared => "example-prepared",
            Said::LoadEnded => "load-ended",
            Said::FollowLooked { .. } => "follow-looked",
            Said::FollowSkipped { .. } => "follow-skipped",
            Said::SessionReadAgain { .. } => "session-read-again",
            Said::SeenKept => "seen-kept",
            Said::AwayOver => "away-over",
        }
    }

    /// The event's figures, beside its name in `detail`.
    fn figures(&self) -> Vec<(&'static str, JsValue)> {
        match *self {
            Said::FollowLooked { started_ms, units_read, walk } => {
                vec![("startedMs", started_ms.into()), ("unitsRead", units_read.into()), ("walk", walk.into())]
            }
            Said::FollowSkipped { hidden } => vec![("hidden", hidden.into())],
            Said::SessionReadAgain { started_ms, bytes_read } => {
                vec![("startedMs", started_ms.into()), ("bytesRead", bytes_read.into())]
            }
            _ => Vec::new(),
        }
    }
}

/// Says `what` on the page's window (nothing in a worker).
pub fn say(what: Said) {
    let Some(window) = web_sys::window() else { return };
    let detail = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&detail, &"name".into(), &what.name().into());
    for (key, value) in what.figures() {
        let _ = js_sys::Reflect::set(&detail, &key.into(), &value);
    }
    let init = web_sys::CustomEventInit::new();
    init.set_detail(&detail);
    if let Ok(event) = web_sys::CustomEvent::new_with_event_init_dict("sessionscope", &init) {
        let _ = window.dispatch_event(&event);
    }
}
