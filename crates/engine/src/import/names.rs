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
        || is_database_name(&name)
}

/// Whether a file is an agent's SQLite database, read through its record stream
/// ([`super::records`]): OpenCode's `opencode.db` (or `opencode-<channel>.db`) and
/// Cursor's `state.vscdb`.
pub fn is_database_name(path: &str) -> bool {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path).to_ascii_lowercase();
    (name.starts_with("opencode") && name.ends_with(".db")) || name.ends_with(".vscdb")
}

/// The reason given for a file of a folder that is not read by its name.
pub const NOT_A_LOG_NAME: &str = "not named like a log (.jsonl, .ndjson, .json, .log, .aider.chat.history.md)";
