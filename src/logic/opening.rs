//! Where files that came in together open: in one view (the conversation of a session or of a
//! few, read whole into the page), or as a history (indexed first, one session opened at a time).

/// The most sessions that files picked or dropped together open in one view. Past it they open
/// as a history, as a folder does: a person who picks the 1,638 files of a whole history (Firefox
/// and Safari give no folder handles, so their users pick files) wants its list, not one view of
/// hundreds of sessions cut at what a page holds.
pub const ONE_VIEW_MAX_SESSIONS: usize = 4;

/// Where a batch of files opens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Opens {
    /// In the viewer, all of it at once.
    View,
    /// Indexed as a history; one session is opened on demand.
    History,
}

/// Where files open that make `sessions` sessions of `bytes` bytes in all, when at most `holds`
/// bytes fit one view. A folder of more than one session is a history; so are loose files of
/// more than [`ONE_VIEW_MAX_SESSIONS`] sessions, or of more than one session and more bytes than
/// a view holds. One session opens in the viewer whatever its size (a file too big for it is
/// shown a part at a time).
pub fn opens(from_folder: bool, sessions: usize, bytes: u64, holds: u64) -> Opens {
    let many = sessions > ONE_VIEW_MAX_SESSIONS || bytes > holds;
    if sessions > 1 && (from_folder || many) { Opens::History } else { Opens::View }
}

/// Whether files of `files` count and `bytes` bytes, picked or dropped loose, may make a
/// history: if not, they open in the viewer without their sessions being counted first.
pub fn may_be_history(files: usize, bytes: u64, holds: u64) -> bool {
    files > ONE_VIEW_MAX_SESSIONS || (files > 1 && bytes > holds)
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOLDS: u64 = 1536 << 20;

    #[test]
    fn a_folder_of_two_sessions_is_a_history_and_two_picked_sessions_are_one_view() {
        assert_eq!(opens(true, 2, 1000, HOLDS), Opens::History);
        assert_eq!(opens(false, 2, 1000, HOLDS), Opens::View);
        assert_eq!(opens(false, ONE_VIEW_MAX_SESSIONS, 1000, HOLDS), Opens::View);
        assert_eq!(opens(true, 1, 1000, HOLDS), Opens::View, "a folder of one session opens it");
    }

    #[test]
    fn many_picked_sessions_or_more_than_a_view_holds_are_a_history() {
        assert_eq!(opens(false, ONE_VIEW_MAX_SESSIONS + 1, 1000, HOLDS), Opens::History);
        assert_eq!(opens(false, 911, 4_100_000_000, HOLDS), Opens::History, "a whole history picked as files");
        assert_eq!(opens(false, 2, HOLDS + 1, HOLDS), Opens::History);
        assert_eq!(opens(false, 1, 4 * HOLDS, HOLDS), Opens::View, "one big session is shown a part at a time");
    }

    #[test]
    fn only_files_that_may_make_a_history_are_grouped_first() {
        assert!(!may_be_history(1, 4 * HOLDS, HOLDS));
        assert!(!may_be_history(ONE_VIEW_MAX_SESSIONS, 1000, HOLDS));
        assert!(may_be_history(ONE_VIEW_MAX_SESSIONS + 1, 1000, HOLDS));
        assert!(may_be_history(2, HOLDS + 1, HOLDS));
        // Every file that opens as a history was grouped first.
        for files in 0..12 {
            for bytes in [0, 1000, HOLDS, HOLDS + 1] {
                for sessions in 0..=files {
                    if opens(false, sessions, bytes, HOLDS) == Opens::History {
                        assert!(
                            may_be_history(files, bytes, HOLDS),
                            "{files} files, {sessions} sessions, {bytes} bytes"
                        );
                    }
                }
            }
        }
    }
}
