//! When work runs: after the next paint, when the page is idle, after a pause, or once per burst
//! of calls. The page's clock too. What works in a worker says so.

use std::cell::Cell;
use std::rc::Rc;

use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;

/// Milliseconds on the page's clock (`performance.now()`); the epoch's in a worker.
pub fn now_ms() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map_or_else(js_sys::Date::now, |p| p.now())
}

/// Waits `ms` milliseconds, other tasks meanwhile run (on the page or in a worker).
pub async fn sleep(ms: u32) {
    gloo::timers::future::TimeoutFuture::new(ms).await;
}

/// Gives other tasks and messages a turn (on the page or in a worker).
pub async fn yield_now() {
    sleep(0).await;
}

/// Runs `job` in `ms` milliseconds.
pub fn later(ms: i32, job: impl FnOnce() + 'static) {
    let Some(window) = web_sys::window() else { return };
    let job = Closure::once_into_js(job);
    let _ = window.set_timeout_with_callback_and_timeout_and_arguments_0(job.unchecked_ref(), ms);
}

/// Runs `job` once the next frame has been painted (where there are no frames, at once).
pub fn after_next_paint(job: impl FnOnce() + 'static) {
    let Some(window) = web_sys::window() else { return job() };
    let job = Closure::once_into_js(job);
    let in_frame = Closure::once_into_js(move || {
        let Some(window) = web_sys::window() else { return };
        let _ = window.set_timeout_with_callback_and_timeout_and_arguments_0(job.unchecked_ref(), 0);
    });
    let _ = window.request_animation_frame(in_frame.unchecked_ref());
}

/// Runs `job` once the page is idle, or after `at_latest_ms` at the latest; where the browser has
/// no idle callbacks, after half a second.
pub fn when_idle(job: impl FnOnce() + 'static, at_latest_ms: u32) {
    let Some(window) = web_sys::window() else { return };
    let callback = Closure::once_into_js(job);
    if super::browser::has(super::browser::Feature::IdleCallbacks) {
        let options = web_sys::IdleRequestOptions::new();
        options.set_timeout(at_latest_ms);
        if window.request_idle_callback_with_options(callback.unchecked_ref(), &options).is_ok() {
            return;
        }
    }
    let _ = window.set_timeout_with_callback_and_timeout_and_arguments_0(callback.unchecked_ref(), 500);
}

/// One run for a burst of calls: the first call of a burst schedules the job, the others join
/// it, and the job's run ends the burst. It remembers when it last ran, for callers that space
/// their runs out. Clones share the burst.
#[derive(Clone, Default)]
pub struct Burst {
    due: Rc<Cell<bool>>,
    last_ms: Rc<Cell<f64>>,
}

impl Burst {
    /// Runs `job` in `ms` milliseconds, unless a run is already due: then this call joins it.
    pub fn run_in(&self, ms: f64, job: impl FnOnce() + 'static) {
        if self.due.replace(true) {
            return;
        }
        let burst = self.clone();
        later(ms.max(0.0) as i32, move || {
            burst.due.set(false);
            job();
        });
    }

    /// Records a run now (a job run by [`Burst::run_in`], or run at once by its owner).
    pub fn ran(&self) {
        self.last_ms.set(now_ms());
    }

    /// Milliseconds since the last run recorded.
    pub fn since_last_ms(&self) -> f64 {
        now_ms() - self.last_ms.get()
    }
}
