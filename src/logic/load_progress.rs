//! Where a load stands, as its worker reports it: bytes read of the total, the file being read,
//! and the rate since it started.

/// Where a load stands.
#[derive(Clone, Debug, PartialEq)]
pub struct Progress {
    pub done_bytes: f64,
    pub total_bytes: f64,
    pub path: String,
    pub started_ms: f64,
    pub now_ms: f64,
    pub phase: Phase,
}

/// What a load is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Its worker reads and parses the files.
    Reading,
    /// Parsing is done; the graph is being built and sent back.
    Building,
    /// The worker is done, and the page reads the files' bytes (a big load, read after its
    /// worker so the tab does not hold them twice).
    TakingIn,
}

impl Progress {
    /// `done` of `total` bytes read, `path` the file being read, at `now_ms`, in a load that
    /// started at `started_ms`.
    pub fn reading(done: f64, total: f64, path: String, started_ms: f64, now_ms: f64) -> Progress {
        Progress { done_bytes: done, total_bytes: total, path, started_ms, now_ms, phase: Phase::Reading }
    }

    /// The page has read `done` of `total` bytes, its worker done: `now_ms` is when it started
    /// reading, for the rate.
    pub fn taking_in(done: f64, total: f64, started_ms: f64, now_ms: f64) -> Progress {
        Progress {
            done_bytes: done,
            total_bytes: total,
            path: String::new(),
            started_ms,
            now_ms,
            phase: Phase::TakingIn,
        }
    }

    /// Every file is read; the graph is being built.
    pub fn building(started_ms: f64, now_ms: f64) -> Progress {
        Progress { done_bytes: 1.0, total_bytes: 1.0, path: String::new(), started_ms, now_ms, phase: Phase::Building }
    }

    pub fn percent(&self) -> f64 {
        if self.total_bytes <= 0.0 { 100.0 } else { (self.done_bytes / self.total_bytes * 100.0).min(100.0) }
    }

    pub fn megabytes_per_second(&self) -> f64 {
        let seconds = (self.now_ms - self.started_ms) / 1000.0;
        if seconds <= 0.0 { 0.0 } else { self.done_bytes / 1e6 / seconds }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_says_how_far_and_how_fast() {
        let halfway = Progress::reading(50e6, 100e6, "a.jsonl".into(), 1000.0, 2000.0);
        assert_eq!(halfway.percent(), 50.0);
        assert_eq!(halfway.megabytes_per_second(), 50.0);
        assert_eq!(Progress::reading(0.0, 0.0, String::new(), 5.0, 5.0).percent(), 100.0, "nothing to read");
        assert_eq!(Progress::reading(1.0, 1.0, String::new(), 5.0, 5.0).megabytes_per_second(), 0.0, "no time yet");
        assert_eq!(Progress::building(0.0, 1.0).phase, Phase::Building);
        let taking_in = Progress::taking_in(300e6, 1200e6, 0.0, 1000.0);
        assert_eq!(
            (taking_in.phase, taking_in.percent(), taking_in.megabytes_per_second()),
            (Phase::TakingIn, 25.0, 300.0)
        );
    }
}
