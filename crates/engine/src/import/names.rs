//! Which file names are logs: the names a folder walk reads (logs and agents' databases), and
//! the reason given for the others. The importers ask it too (a database is known by its name
//! before its first bytes are read), so it lives below them and knows none of them but Aider's
//! name rule.

/// Whether a file in a picked folder is read: logs are named `.jsonl`, `.ndjson`, `.json` or
/// `.log`, Aider's chat history `.aider.chat.history.md`, and the agents' databases
/// ([`is_database_name`]); anything else in a project folder
/// (`tool-results/*.txt`, editor files, other markdown) is listed as not read.
pub fn looks_like_a_log(path: &str) -> bool {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path).to_ascii_lowercase();
    name.ends_with(".jsonl")
        || name.ends_with(".ndjson")
        || name.ends_with(".json")
        || name.ends_with(".log")
        || super::aider::is_history_name(&name)
        || may_be_database_name(&name)
}

/// Whether a file is an agent's SQLite database, read through its record stream
/// ([`super::records`]): OpenCode's `opencode.db` (or `opencode-<channel>.db`) and
/// Cursor's `state.vscdb`.
pub fn is_database_name(path: &str) -> bool {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path).to_ascii_lowercase();
    (name.starts_with("opencode") && name.ends_with(".db")) || name.ends_with(".vscdb")
}

/// Whether a file may be an agent's SQLite database, to be told by its first bytes and then its
/// tables (the name is only a hint: a backup or a copy of `opencode.db` is named anything): a
/// database's name ([`is_database_name`]), or one with a database's extension anywhere in it
/// (`.db`, `.sqlite`, `.sqlite3`, `.db3`, `.vscdb`: `ledger-backup.db`, `opencode.db.bak`,
/// `state.vscdb.backup`). SQLite's own files beside a database (`-wal`, `-shm`, `-journal`) are not.
pub fn may_be_database_name(path: &str) -> bool {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path).to_ascii_lowercase();
    is_database_name(&name)
        || name.split('.').skip(1).any(|part| matches!(part, "db" | "sqlite" | "sqlite3" | "db3" | "vscdb"))
}

/// Whether a file given by itself (dropped, or named on the command line) may be an agent's
/// database whatever its name: any file but one named like a text log, whose first bytes then
/// tell.
pub fn may_be_database(path: &str) -> bool {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path).to_ascii_lowercase();
    let text_log = [".jsonl", ".ndjson", ".json", ".log", ".md", ".txt"].iter().any(|ext| name.ends_with(ext));
    may_be_database_name(&name) || !text_log
}

/// The reason given for a file of a folder that is not read by its name.
pub const NOT_A_LOG_NAME: &str =
    "not named like a log (.jsonl, .ndjson, .json, .log, .aider.chat.history.md) or a database (.db, .sqlite, .vscdb)";

/// The session and backup name of a file version Claude Code kept before changing a file:
/// `…/file-history/<session id>/<hash>@v<N>`. Such files are no log: a walk keeps them aside, to
/// be read only when a file's versions are compared (see `crate::insights::Version`).
pub fn kept_version(path: &str) -> Option<(&str, &str)> {
    let mut parts = path.rsplit(['/', '\\']);
    let (backup, session, folder) = (parts.next()?, parts.next()?, parts.next()?);
    let (hash, version) = backup.split_once("@v")?;
    let is_hex = !hash.is_empty() && hash.bytes().all(|b| b.is_ascii_hexdigit());
    let is_number = !version.is_empty() && version.bytes().all(|b| b.is_ascii_digit());
    (folder == "file-history" && !session.is_empty() && is_hex && is_number).then_some((session, backup))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_versions_are_known_by_their_place_and_name() {
        assert_eq!(
            kept_version(".claude/file-history/258c7280-ae70/9d2eb25925049f64@v2"),
            Some(("258c7280-ae70", "9d2eb25925049f64@v2"))
        );
        assert_eq!(kept_version("file-history\\s1\\ab@v10"), Some(("s1", "ab@v10")));
        for other in [
            ".claude/file-history/s1/notes.txt",
            ".claude/file-history/s1/9d2e@v",
            ".claude/file-history/s1/xyz@v1",
            ".claude/history/s1/9d2e@v1",
            "9d2e@v1",
            "file-history/9d2e@v1",
        ] {
            assert_eq!(kept_version(other), None, "{other}");
        }
    }
}
