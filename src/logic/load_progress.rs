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
    /// Parsing is done; the graph is being built and sent back.
    pub building: bool,
}

impl Progress {
    /// `done` of `total` bytes read, `path` the file being read, at `now_ms`, in a load that
    /// started at `started_ms`.
    pub fn reading(done: f64, total: f64, path: String, started_ms: f64, now_ms: f64) -> Progress {
        Progress { done_bytes: done, total_bytes: total, path, started_ms, now_ms, building: false }
    }

    /// Every file is read; the graph is being built.
    pub fn building(started_ms: f64, now_ms: f64) -> Progress {
        Progress { done_bytes: 1.0, total_bytes: 1.0, path: String::new(), started_ms, now_ms, building: true }
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
        assert!(Progress::building(0.0, 1.0).building);
    }
}
