//! The spare worker's warm-up: it runs the whole pipeline on the bundled example a number of
//! times, so the browser's compiler has optimised the hot code before the first real file
//! arrives. The page asks for it when files are on their way (dragged over the page, or a picker
//! opened: `client::workers`). Any request of another role stops it: it pauses between rounds to
//! let them in, and the dispatcher aborts it.

use std::cell::{Cell, RefCell};

use futures::future::{AbortHandle, Abortable};
use sessionscope_engine::Loader;
use sessionscope_engine::dag::Graph;

use crate::platform::schedule;
use crate::wire::codec::model_buffer;

/// Rounds of a warm-up.
const ROUNDS: usize = 48;
/// The longest rest the page may ask for.
const MAX_REST_MS: f64 = 5000.0;

/// A warm-up, running or not, and until when it rests.
#[derive(Default)]
pub struct WarmUp {
    running: RefCell<Option<AbortHandle>>,
    resting_until: Cell<f64>,
}

impl WarmUp {
    /// Runs a warm-up until its rounds are done or it is stopped.
    pub async fn run(&self) {
        let (handle, registration) = AbortHandle::new_pair();
        if let Some(earlier) = self.running.replace(Some(handle)) {
            earlier.abort();
        }
        let _ = Abortable::new(self.rounds(), registration).await;
    }

    async fn rounds(&self) {
        for _ in 0..ROUNDS {
            let rest = self.resting_until.get() - js_sys::Date::now();
            if rest > 0.0 {
                schedule::sleep(rest.ceil() as u32).await;
            }
            let corpus = Loader::read_all(crate::wire::example_files::FILES.iter().copied());
            let graph = Graph::build(&corpus);
            let _ = model_buffer(&corpus, &graph);
            // Other messages get a turn: one of them may stop this.
            schedule::yield_now().await;
        }
    }

    /// The page is busy for about `ms` milliseconds: the next round waits.
    pub fn rest(&self, ms: f64) {
        self.resting_until.set(js_sys::Date::now() + ms.clamp(0.0, MAX_REST_MS));
    }

    /// Stops a warm-up running, at its next pause.
    pub fn stop(&self) {
        if let Some(running) = self.running.take() {
            running.abort();
        }
    }
}
