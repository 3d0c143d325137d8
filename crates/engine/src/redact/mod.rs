//! Redaction of secrets and personal data in session logs, for sharing them.
//!
//! Two passes over a scope (a set of JSONL lines): [`Redactor::scan_line`] on every line builds
//! the table of distinct findings (kind, secret text) with counts and context; a review screen
//! lets the user keep some ([`Redactor::set_keep`]); [`Redactor::apply_line`] then writes each
//! line back with the others replaced by typed placeholders, optionally dropping whole parts
//! ([`DropParts`]).
//!
//! Detectors only ever see decoded string values (and object keys), never raw JSON text where
//! escapes could hide a secret; they also cope with the JSON and shell text that tool outputs
//! carry inside those strings (a config printed by `cat`, escaped JSON in JSON, `\n` line
//! breaks). Replacement is consistent: the same (kind, secret) gets the same placeholder
//! (`[REDACTED:github-token#1]`, `/home/[user]/src`) in every field and line, and a secret once
//! found is also replaced where no detector would have caught it on its own.
//!
//! What is detected: see [`rules`] (credential formats), [`entropy`], [`net`] (emails, IPs),
//! [`paths`] (home directories and user names) and [`env`] (environment dumps).
//!
//! The values of structural keys ([`STRUCTURAL_KEYS`]: uuids, session, message and tool ids,
//! types, timestamps, thinking signatures) are never scanned nor changed, nor is the `data` of
//! base64 sources (images, documents): the conversation graph depends on the former and the
//! latter is binary.

mod detector;
pub mod entropy;
pub mod env;
mod ids;
pub mod json;
mod marker;
pub mod net;
mod parts;
pub mod paths;
pub mod rules;
mod text;

use std::fmt;
use std::fmt::Write as _;
use std::sync::OnceLock;

use rustc_hash::FxHashMap;

pub use detector::{Detector, warm_up};
use detector::{Extra, Known};
use ids::KeptIds;
use json::{JStr, Val};
pub use marker::{marker_around, markers};
use paths::NameMatcher;

/// What a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// A credential rule, by rule id (`github-token`, `aws-access-key`, `private-key`, `jwt`,
    /// `bearer-token`, `connection-password`, `generic-secret`, …; see [`credential_ids`]).
    Credential(&'static str),
    /// A random-looking token no rule knows.
    HighEntropy,
    Email,
    IpAddress,
    /// The user name inside a home directory path.
    HomeUser,
    /// A user name learned from a home path, found as a word elsewhere.
    UserName,
    /// The value of a secret-named environment variable.
    EnvSecret,
    /// A match of a user-supplied pattern.
    UserPattern,
}

impl Kind {
    /// Stable id, used in placeholders: `[REDACTED:<id>#<n>]`.
    pub fn id(&self) -> &'static str {
        match self {
            Kind::Credential(id) => id,
            Kind::HighEntropy => "high-entropy",
            Kind::Email => "email",
            Kind::IpAddress => "ip-address",
            Kind::HomeUser => "home-user",
            Kind::UserName => "user-name",
            Kind::EnvSecret => "env-secret",
            Kind::UserPattern => "user-pattern",
        }
    }

    /// Human label for the review screen.
    pub fn label(&self) -> &'static str {
        match self {
            Kind::Credential(id) => rules::label_of(id).unwrap_or("Credential"),
            Kind::HighEntropy => "High-entropy string",
            Kind::Email => "Email address",
            Kind::IpAddress => "IP address",
            Kind::HomeUser => "User name in a home path",
            Kind::UserName => "User name",
            Kind::EnvSecret => "Secret environment variable",
            Kind::UserPattern => "Custom pattern",
        }
    }

    /// True for credentials (as opposed to personal data and heuristics).
    pub fn is_credential(&self) -> bool {
        matches!(self, Kind::Credential(_) | Kind::EnvSecret)
    }

    /// Looks a kind up by its id.
    pub fn from_id(id: &str) -> Option<Kind> {
        Kind::all().into_iter().find(|k| k.id() == id)
    }

    /// Every kind, credentials first, in a stable order (for legends and filters).
    pub fn all() -> Vec<Kind> {
        let mut v: Vec<Kind> = credential_ids().into_iter().map(Kind::Credential).collect();
        v.extend([
            Kind::EnvSecret,
            Kind::HighEntropy,
            Kind::Email,
            Kind::IpAddress,
            Kind::HomeUser,
            Kind::UserName,
            Kind::UserPattern,
        ]);
        v
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// Ids of the credential rules, each once.
pub fn credential_ids() -> Vec<&'static str> {
    let mut ids: Vec<&'static str> = Vec::new();
    for id in rules::RULES.iter().map(|r| r.id).chain([rules::PRIVATE_KEY]) {
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    ids
}

/// Which detectors run. Credential rules always do.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DetectOptions {
    /// Regular expressions (Rust `regex` syntax); with a capture group, group 1 is replaced.
    /// To match a literal text, escape it (`regex::escape`).
    pub user_patterns: Vec<String>,
    pub entropy: bool,
    pub emails: bool,
    pub ip_addresses: bool,
    pub home_paths: bool,
    pub env_dumps: bool,
}

impl Default for DetectOptions {
    fn default() -> Self {
        DetectOptions {
            user_patterns: Vec::new(),
            entropy: true,
            emails: true,
            ip_addresses: true,
            home_paths: true,
            env_dumps: true,
        }
    }
}

/// A user pattern that does not compile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatternError {
    /// Position in [`DetectOptions::user_patterns`].
    pub index: usize,
    pub pattern: String,
    pub reason: String,
}

impl fmt::Display for PatternError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "pattern {} `{}`: {}", self.index + 1, self.pattern, self.reason)
    }
}

impl std::error::Error for PatternError {}

/// One detection: the byte range of exactly the secret part of the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    pub kind: Kind,
    pub range: std::ops::Range<usize>,
}

/// A line of the scope: file index and 1-based line number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct LineRef {
    pub file: u32,
    pub line: u32,
}

impl LineRef {
    /// The title of a share, scanned like a line so it gets the same placeholders: a file index
    /// no scope reaches, so it sorts after every file's lines.
    pub const TITLE: LineRef = LineRef { file: u32::MAX, line: 0 };

    pub fn new(file: u32, line: u32) -> LineRef {
        LineRef { file, line }
    }

    /// Whether this is the title's line rather than a line of a file.
    pub fn is_title(self) -> bool {
        self.file == LineRef::TITLE.file
    }
}

impl From<(u32, u32)> for LineRef {
    fn from((file, line): (u32, u32)) -> LineRef {
        LineRef { file, line }
    }
}

/// Where a finding occurs, with text around it (other secrets there shown as placeholders).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Context {
    pub line: LineRef,
    /// JSON path of the string, like `message.content[0].text`.
    pub field: String,
    /// About 40 characters before the secret.
    pub before: String,
    /// About 40 characters after the secret.
    pub after: String,
}

/// A distinct (kind, secret) of the scope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub kind: Kind,
    pub secret: String,
    /// What replaces it: `[REDACTED:<kind>#<n>]`, or `[user]`/`[user#<n>]` for user names.
    pub placeholder: String,
    /// Occurrences seen by the scan.
    pub count: u32,
    /// Leave it visible in the output.
    pub keep: bool,
    /// The first occurrences (up to [`MAX_CONTEXTS`]).
    pub contexts: Vec<Context>,
}

pub const MAX_CONTEXTS: usize = 3;
const CONTEXT_CHARS: usize = 40;

/// Parts of a Claude Code log that can be dropped whole.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DropParts {
    /// `thinking` and `redacted_thinking` content blocks.
    pub thinking: bool,
    /// Each `tool_result` block's content (replaced by a short text), `toolUseResult`, and the
    /// output carried by `bash_progress` lines.
    pub tool_results: bool,
    /// `image` blocks (replaced by a text block), also inside tool results, and `base64` fields.
    pub images: bool,
    /// Lines with `isSidechain: true`.
    pub subagents: bool,
    /// `cwd`, `gitBranch`, `version`, `userType`, `entrypoint`, `slug`.
    pub metadata: bool,
}

pub const METADATA_KEYS: &[&str] = &["cwd", "gitBranch", "version", "userType", "entrypoint", "slug"];
pub const TOOL_RESULT_REMOVED: &str = "[tool result removed]";
pub const IMAGE_REMOVED: &str = "[image removed]";

/// Keys whose string values are never scanned nor changed.
pub const STRUCTURAL_KEYS: &[&str] = &[
    "uuid",
    "parentUuid",
    "logicalParentUuid",
    "leafUuid",
    "sessionId",
    "session_id",
    "requestId",
    "messageId",
    "promptId",
    "id",
    "tool_use_id",
    "toolUseID",
    "toolUseId",
    "parentToolUseID",
    "parent_tool_use_id",
    "sourceToolUseID",
    "sourceToolAssistantUUID",
    "agentId",
    "headUuid",
    "anchorUuid",
    "tailUuid",
    "timestamp",
    "type",
    "subtype",
    "signature",
    "model",
    "stop_reason",
    "media_type",
    "role",
];

/// Why a line is not in the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DropReason {
    /// Not JSON: it cannot be redacted safely, so it is never shared in clear.
    Unparseable,
    /// A subagent line, dropped on request.
    Subagent,
    /// An empty or blank line.
    Blank,
    /// Parts were asked to be left out (thinking, tool results, images, metadata) of a format whose
    /// lines the redactor cannot take them out of: the line is left out whole.
    PartsNotSeparable,
    /// The line is nothing but a part asked to be left out (a Codex reasoning item, an OpenCode
    /// reasoning part, a command's output delta).
    PartLeftOut,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LineOutcome {
    /// The redacted line (compact JSON, no trailing newline).
    Kept(Vec<u8>),
    Dropped(DropReason),
}

/// Per-kind counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KindStats {
    pub kind: Kind,
    /// Distinct secrets.
    pub findings: usize,
    /// Occurrences seen by the scan.
    pub occurrences: u64,
    /// Distinct secrets marked keep.
    pub kept: usize,
}

/// What the scan saw.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stats {
    pub lines: u64,
    pub unparseable_lines: u64,
    /// String values and keys scanned.
    pub strings: u64,
    /// Bytes of decoded text scanned.
    pub bytes_scanned: u64,
    /// In order of first finding.
    pub kinds: Vec<KindStats>,
}

/// Holds the detector, the table of distinct findings and the keep decisions.
pub struct Redactor {
    detector: Detector,
    findings: Vec<Finding>,
    index: FxHashMap<Kind, FxHashMap<String, usize>>,
    counters: FxHashMap<&'static str, u32>,
    /// Lower-cased user name → its number in `[user#n]`.
    users: FxHashMap<String, u32>,
    word_names: Vec<String>,
    names: Option<NameMatcher>,
    known: OnceLock<Option<Known>>,
    /// Values the log names as ids ([`Redactor::keep_ids`]).
    ids: KeptIds,
    lines: u64,
    unparseable: u64,
    strings: u64,
    bytes: u64,
}

impl fmt::Debug for Redactor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Redactor").field("findings", &self.findings.len()).finish_non_exhaustive()
    }
}

fn trim_line(line: &[u8]) -> &[u8] {
    let line = line.strip_prefix("\u{feff}".as_bytes()).unwrap_or(line);
    line.trim_ascii()
}

/// True when a key names a secret, so that its whole string value is one.
fn secret_key_name(k: &str) -> bool {
    if k.len() > 40 {
        return false;
    }
    let n: String = k.chars().filter(char::is_ascii_alphanumeric).map(|c| c.to_ascii_lowercase()).collect();
    const EXACT: &[&str] = &[
        "password",
        "passwd",
        "pwd",
        "secret",
        "token",
        "apikey",
        "xapikey",
        "authorization",
        "auth",
        "credential",
        "credentials",
        "cookie",
        "passphrase",
    ];
    const ENDS: &[&str] = &["password", "secret", "token", "apikey", "privatekey", "secretkey", "accesskey"];
    EXACT.contains(&n.as_str()) || ENDS.iter().any(|e| n.ends_with(e))
}

/// Calls `f` on every string value and key of `v` to be scanned, with whether its key names a
/// secret, and its JSON path.
fn walk(v: &mut Val, path: &mut String, f: &mut dyn FnMut(&mut JStr, bool, &str)) {
    match v {
        Val::Str(s) => f(s, false, path),
        Val::Arr(items) => {
            for (i, item) in items.iter_mut().enumerate() {
                let l = path.len();
                let _ = write!(path, "[{i}]");
                walk(item, path, f);
                path.truncate(l);
            }
        }
        Val::Obj(entries) => {
            let base64 = entries.iter().any(|(k, v)| k.text() == "type" && v.as_str() == Some("base64"));
            for (k, item) in entries.iter_mut() {
                let l = path.len();
                if l > 0 {
                    path.push('.');
                }
                path.push_str(k.text());
                let key = k.text();
                let skip = key == "signature"
                    || (base64 && key == "data")
                    || (matches!(item, Val::Str(_)) && STRUCTURAL_KEYS.contains(&key));
                let whole = matches!(item, Val::Str(_)) && secret_key_name(key);
                f(k, false, path);
                if !skip {
                    match item {
                        Val::Str(s) => f(s, whole, path),
                        other => walk(other, path, f),
                    }
                }
                path.truncate(l);
            }
        }
        _ => {}
    }
}

fn block_type<'v>(b: &'v Val) -> Option<&'v str> {
    b.get("type").and_then(Val::as_str)
}

fn text_block(text: &str) -> Val<'static> {
    Val::Obj(vec![
        (JStr::new("type".into()), Val::Str(JStr::new("text".into()))),
        (JStr::new("text".into()), Val::Str(JStr::new(text.into()))),
    ])
}

fn drop_parts(v: &mut Val, p: &DropParts) {
    if p.metadata {
        v.remove_keys(METADATA_KEYS);
    }
    if p.tool_results {
        v.remove_keys(&["toolUseResult"]);
        if let Some(data) = v.get_mut("data")
            && block_type(data) == Some("bash_progress")
        {
            for k in ["output", "fullOutput"] {
                if let Some(x) = data.get_mut(k) {
                    *x = Val::Str(JStr::new(TOOL_RESULT_REMOVED.into()));
                }
            }
        }
    }
    if p.thinking || p.images || p.tool_results || p.metadata {
        nested_parts(v, p, 0);
    }
}

fn nested_parts(v: &mut Val, p: &DropParts, depth: usize) {
    if let Val::Arr(items) = v {
        if p.thinking {
            items.retain(|b| !matches!(block_type(b), Some("thinking" | "redacted_thinking")));
        }
        for b in items.iter_mut() {
            let ty = block_type(b);
            if p.images && ty == Some("image") {
                *b = text_block(IMAGE_REMOVED);
            } else if p.tool_results && ty == Some("tool_result") {
                let removed = Val::Str(JStr::new(TOOL_RESULT_REMOVED.into()));
                match b.get_mut("content") {
                    Some(c) => *c = removed,
                    None => {
                        if let Val::Obj(entries) = b {
                            entries.push((JStr::new("content".into()), removed));
                        }
                    }
                }
            }
            nested_parts(b, p, depth + 1);
        }
        return;
    }
    // A nested log entry (agent progress carries whole messages with their envelope).
    if p.metadata && depth > 0 && v.get("sessionId").is_some() && v.get("cwd").is_some() {
        v.remove_keys(METADATA_KEYS);
    }
    if let Val::Obj(entries) = v {
        for (k, x) in entries.iter_mut() {
            if p.images && k.text() == "base64" && matches!(x, Val::Str(_)) {
                *x = Val::Str(JStr::new(IMAGE_REMOVED.into()));
            } else {
                nested_parts(x, p, depth + 1);
            }
        }
    }
}

/// Replaces the `base64` strings of `v` (images and documents embedded in a record).
fn base64_parts(v: &mut Val, depth: usize) {
    if depth > 64 {
        return;
    }
    match v {
        Val::Arr(items) => items.iter_mut().for_each(|x| base64_parts(x, depth + 1)),
        Val::Obj(entries) => {
            for (k, x) in entries.iter_mut() {
                if k.text() == "base64" && matches!(x, Val::Str(_)) {
                    *x = Val::Str(JStr::new(IMAGE_REMOVED.into()));
                } else {
                    base64_parts(x, depth + 1);
                }
            }
        }
        _ => {}
    }
}

/// Replaces `hits` of `text` by `placeholder(hit)`; `None` leaves that hit as is. Each
/// replacement made is noted in `edits`.
fn replace<'h>(
    text: &str,
    hits: &'h [Hit],
    edits: &mut Vec<Edit>,
    mut placeholder: impl FnMut(&'h Hit) -> Option<String>,
) -> Option<String> {
    let mut out = String::new();
    let mut last = 0;
    let mut changed = false;
    for h in hits {
        if let Some(p) = placeholder(h) {
            out.push_str(&text[last..h.range.start]);
            let start = out.len();
            out.push_str(&p);
            edits.push(Edit { source: h.range.clone(), shown: start..out.len() });
            last = h.range.end;
            changed = true;
        }
    }
    if !changed {
        return None;
    }
    out.push_str(&text[last..]);
    Some(out)
}

/// One replacement of a redacted text: the bytes of the text before, and of the marker after.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Edit {
    source: std::ops::Range<usize>,
    shown: std::ops::Range<usize>,
}

/// A text redacted whole, with where its replacements are, so that an output that cuts it finds
/// its places in it ([`RedactedText::map`]) and cuts only the redacted text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RedactedText {
    pub text: String,
    edits: Vec<Edit>,
}

impl RedactedText {
    /// The bytes of the redacted text that show `source` (a byte range of the text before it was
    /// redacted): a replacement that `source` reaches into is taken whole, so a match inside a
    /// secret is its marker.
    pub fn map(&self, source: std::ops::Range<usize>) -> std::ops::Range<usize> {
        let (mut start, mut end) = (None, None);
        // The shift of the text after an edit: the marker's end less the secret's.
        let mut shift = 0isize;
        for edit in &self.edits {
            if start.is_none() && source.start < edit.source.end {
                start = Some(if source.start < edit.source.start {
                    source.start.saturating_add_signed(shift)
                } else {
                    edit.shown.start
                });
            }
            if source.end <= edit.source.start {
                break;
            }
            if source.end < edit.source.end {
                end = Some(edit.shown.end);
                break;
            }
            shift = edit.shown.end as isize - edit.source.end as isize;
        }
        let start = start.unwrap_or_else(|| source.start.saturating_add_signed(shift));
        let end = end.unwrap_or_else(|| source.end.saturating_add_signed(shift)).max(start);
        start.min(self.text.len())..end.min(self.text.len())
    }
}

impl Redactor {
    pub fn new(opts: &DetectOptions) -> Result<Redactor, PatternError> {
        Ok(Redactor {
            detector: Detector::new(opts)?,
            findings: Vec::new(),
            index: FxHashMap::default(),
            counters: FxHashMap::default(),
            users: FxHashMap::default(),
            word_names: Vec::new(),
            names: None,
            known: OnceLock::new(),
            ids: KeptIds::default(),
            lines: 0,
            unparseable: 0,
            strings: 0,
            bytes: 0,
        })
    }

    pub fn detector(&self) -> &Detector {
        &self.detector
    }

    /// Scans one JSONL line: every decoded string value and key except structural ones.
    pub fn scan_line(&mut self, line_no: LineRef, line: &[u8]) {
        self.lines += 1;
        let line = trim_line(line);
        if line.is_empty() {
            return;
        }
        let Some(mut v) = json::parse(line) else {
            self.unparseable += 1;
            return;
        };
        // Learn the user name of the working directory before anything else of the line.
        if let Some(cwd) = v.get("cwd").and_then(Val::as_str) {
            let names: Vec<String> = self.detector.home_names(cwd).into_iter().map(str::to_owned).collect();
            for n in names {
                self.learn_user(&n);
            }
        }
        let mut path = String::new();
        let mut hits = Vec::new();
        walk(&mut v, &mut path, &mut |s, whole, field| self.scan_text(line_no, s.text(), whole, field, &mut hits));
    }

    /// Scans one line (or block of lines) of a log written as text, not JSON (a markdown
    /// history), as one text.
    pub fn scan_text_line(&mut self, line_no: LineRef, line: &[u8]) {
        self.lines += 1;
        let Ok(text) = std::str::from_utf8(line) else {
            self.unparseable += 1;
            return;
        };
        if !text.trim().is_empty() {
            self.scan_text(line_no, text, false, "", &mut Vec::new());
        }
    }

    fn scan_text(&mut self, line: LineRef, text: &str, whole: bool, field: &str, hits: &mut Vec<Hit>) {
        self.strings += 1;
        self.bytes += text.len() as u64;
        self.detector.find_with(text, Extra { whole_value: whole, names: self.names.as_ref(), known: None }, hits);
        self.drop_kept_ids(text, hits);
        if hits.is_empty() {
            return;
        }
        let mut idx = Vec::with_capacity(hits.len());
        for h in hits.iter() {
            let secret = &text[h.range.clone()];
            if h.kind == Kind::HomeUser {
                self.learn_user(secret);
            }
            let i = self.intern(h.kind, secret);
            self.findings[i].count = self.findings[i].count.saturating_add(1);
            idx.push(i);
        }
        for (j, &i) in idx.iter().enumerate() {
            if self.findings[i].contexts.len() >= MAX_CONTEXTS {
                continue;
            }
            let (before, after) = self.context(text, hits, &idx, j);
            self.findings[i].contexts.push(Context { line, field: field.to_owned(), before, after });
        }
    }

    fn context(&self, text: &str, hits: &[Hit], idx: &[usize], j: usize) -> (String, String) {
        let h = &hits[j];
        let mut ws = text::floor_boundary(text, h.range.start.saturating_sub(CONTEXT_CHARS));
        for k in (0..j).rev() {
            if hits[k].range.end <= ws {
                break;
            }
            ws = ws.min(hits[k].range.start);
        }
        let mut we = text::ceil_boundary(text, h.range.end + CONTEXT_CHARS);
        for hit in &hits[j + 1..] {
            if hit.range.start >= we {
                break;
            }
            we = we.max(hit.range.end);
        }
        let render = |a: usize, b: usize, range: std::ops::Range<usize>| {
            let mut out = String::new();
            let mut last = a;
            for k in range {
                let r = &hits[k].range;
                if r.start >= a && r.end <= b {
                    out.push_str(&text[last..r.start]);
                    out.push_str(&self.findings[idx[k]].placeholder);
                    last = r.end;
                }
            }
            out.push_str(&text[last..b]);
            out
        };
        (render(ws, h.range.start, 0..j), render(h.range.end, we, j + 1..hits.len()))
    }

    fn user_placeholder(&mut self, name: &str) -> String {
        let n = self.user_number(name);
        marker::marker(Kind::HomeUser, Some(n))
    }

    fn user_number(&mut self, name: &str) -> u32 {
        let lower = name.to_ascii_lowercase();
        let next = self.users.len() as u32 + 1;
        *self.users.entry(lower).or_insert(next)
    }

    fn learn_user(&mut self, name: &str) {
        self.user_number(name);
        if paths::name_word_ok(name) && !self.word_names.iter().any(|n| n.eq_ignore_ascii_case(name)) {
            self.word_names.push(name.to_owned());
            self.names = NameMatcher::new(&self.word_names);
        }
    }

    fn intern(&mut self, kind: Kind, secret: &str) -> usize {
        if let Some(&i) = self.index.get(&kind).and_then(|m| m.get(secret)) {
            return i;
        }
        let placeholder = match kind {
            Kind::HomeUser | Kind::UserName => self.user_placeholder(secret),
            _ => {
                let n = self.counters.entry(kind.id()).or_insert(0);
                *n += 1;
                marker::marker(kind, Some(*n))
            }
        };
        let i = self.findings.len();
        self.findings.push(Finding {
            kind,
            secret: secret.to_owned(),
            placeholder,
            count: 0,
            keep: false,
            contexts: Vec::new(),
        });
        self.index.entry(kind).or_default().insert(secret.to_owned(), i);
        self.known = OnceLock::new();
        i
    }

    /// Distinct (kind, secret) in first-seen order.
    pub fn findings(&self) -> &[Finding] {
        &self.findings
    }

    /// Indices into [`Redactor::findings`] grouped by kind, kinds in order of first finding.
    pub fn findings_by_kind(&self) -> Vec<(Kind, Vec<usize>)> {
        let mut out: Vec<(Kind, Vec<usize>)> = Vec::new();
        for (i, f) in self.findings.iter().enumerate() {
            match out.iter_mut().find(|(k, _)| *k == f.kind) {
                Some((_, v)) => v.push(i),
                None => out.push((f.kind, vec![i])),
            }
        }
        out
    }

    /// The finding of this kind and secret, if the scan saw it.
    pub fn finding_index(&self, kind: Kind, secret: &str) -> Option<usize> {
        self.index.get(&kind).and_then(|m| m.get(secret)).copied()
    }

    /// `keep` = leave this finding visible in the output. Out-of-range indices are ignored.
    pub fn set_keep(&mut self, finding: usize, keep: bool) {
        if let Some(f) = self.findings.get_mut(finding)
            && f.keep != keep
        {
            f.keep = keep;
            self.known = OnceLock::new();
        }
    }

    /// Sets `keep` on every finding of a kind.
    pub fn set_keep_kind(&mut self, kind: Kind, keep: bool) {
        for i in 0..self.findings.len() {
            if self.findings[i].kind == kind {
                self.set_keep(i, keep);
            }
        }
    }

    fn known(&self) -> Option<&Known> {
        self.known
            .get_or_init(|| {
                let items: Vec<(String, Kind)> = self
                    .findings
                    .iter()
                    .filter(|f| !f.keep && f.secret.len() >= 6 && !matches!(f.kind, Kind::HomeUser | Kind::UserName))
                    .map(|f| (f.secret.clone(), f.kind))
                    .collect();
                Known::new(items)
            })
            .as_ref()
    }

    fn placeholder_of(&self, kind: Kind, secret: &str) -> Option<String> {
        match self.finding_index(kind, secret) {
            Some(i) if self.findings[i].keep => None,
            Some(i) => Some(self.findings[i].placeholder.clone()),
            None => Some(match kind {
                Kind::HomeUser | Kind::UserName => {
                    marker::marker(kind, self.users.get(&secret.to_ascii_lowercase()).copied())
                }
                _ => marker::marker(kind, None),
            }),
        }
    }

    fn redact_into(&self, text: &str, whole: bool, hits: &mut Vec<Hit>, edits: &mut Vec<Edit>) -> Option<String> {
        let extra = Extra { whole_value: whole, names: self.names.as_ref(), known: self.known() };
        self.detector.find_with(text, extra, hits);
        self.drop_kept_ids(text, hits);
        if hits.is_empty() {
            return None;
        }
        replace(text, hits, edits, |h| self.placeholder_of(h.kind, &text[h.range.clone()]))
    }

    /// Redacts a free text the way [`Redactor::apply_line`] redacts a string value.
    pub fn redact_text(&self, text: &str) -> String {
        self.redact_into(text, false, &mut Vec::new(), &mut Vec::new()).unwrap_or_else(|| text.to_owned())
    }

    /// Redacts a free text whole as [`Redactor::redact_text`] does, noting where each
    /// replacement is: an output that shows a part of the text (a search's match with the text
    /// around it) cuts the redacted text there ([`RedactedText::map`]).
    pub fn redact_mapped(&self, text: &str) -> RedactedText {
        let mut edits = Vec::new();
        match self.redact_into(text, false, &mut Vec::new(), &mut edits) {
            Some(redacted) => RedactedText { text: redacted, edits },
            None => RedactedText { text: text.to_owned(), edits: Vec::new() },
        }
    }

    /// Keeps the values the log names as ids (session, message, tool-call, request and agent
    /// ids) out of the findings wherever they appear, alone or inside a longer text (a resume
    /// command, a file name): a finding that lies inside one is dropped, and so is a
    /// random-looking token that holds one. Call it before scanning. A user's own pattern still
    /// applies to them; ids under 8 characters, and uuids, are not kept (see `ids`).
    pub fn keep_ids<'a>(&mut self, ids: impl IntoIterator<Item = &'a str>) {
        for id in ids {
            self.ids.insert(id);
        }
    }

    /// Drops the hits that are (or, for random-looking tokens, hold) an id kept by
    /// [`Redactor::keep_ids`].
    fn drop_kept_ids(&self, text: &str, hits: &mut Vec<Hit>) {
        if hits.is_empty() || self.ids.is_empty() {
            return;
        }
        hits.retain(|hit| {
            if hit.kind == Kind::UserPattern {
                return true;
            }
            let r = &hit.range;
            let ids = self.ids.spans_near(text.as_bytes(), r.clone());
            let inside = ids.iter().any(|id| id.start <= r.start && r.end <= id.end);
            let holds = hit.kind == Kind::HighEntropy && ids.iter().any(|id| id.start < r.end && r.start < id.end);
            !(inside || holds)
        });
    }

    /// A line (or block of lines) of a log written as text, redacted as text: its bytes as
    /// they are but for the placeholders. Bytes that are not UTF-8 cannot be scanned, so they
    /// are left out.
    pub fn apply_text_line(&self, line: &[u8]) -> LineOutcome {
        self.apply_text_record(line, &DropParts::default())
    }

    /// A block of lines of an Aider history, its parts asked to be left out taken out (see
    /// `parts::aider_text`), then redacted as text.
    pub fn apply_text_record(&self, line: &[u8], parts: &DropParts) -> LineOutcome {
        match std::str::from_utf8(line) {
            Ok(text) if parts.thinking || parts.tool_results => {
                LineOutcome::Kept(self.redact_text(&parts::aider_text(text, parts)).into_bytes())
            }
            Ok(text) => LineOutcome::Kept(self.redact_text(text).into_bytes()),
            Err(_) => LineOutcome::Dropped(DropReason::Unparseable),
        }
    }

    /// The redacted line (compact JSON, no trailing newline), or why it is left out.
    pub fn apply_line(&self, line: &[u8], parts: &DropParts) -> LineOutcome {
        self.apply_record(line, parts, crate::model::Format::ClaudeCode)
    }

    /// A record (a line, or a whole document) of a log of `format`, redacted, the parts asked
    /// to be left out taken out where that format keeps them (see `parts`).
    pub fn apply_record(&self, line: &[u8], parts: &DropParts, format: crate::model::Format) -> LineOutcome {
        let line = trim_line(line);
        if line.is_empty() {
            return LineOutcome::Dropped(DropReason::Blank);
        }
        let Some(mut v) = json::parse(line) else {
            return LineOutcome::Dropped(DropReason::Unparseable);
        };
        if parts.subagents && matches!(v.get("isSidechain"), Some(Val::Bool(true))) {
            return LineOutcome::Dropped(DropReason::Subagent);
        }
        let asked = parts.thinking || parts.tool_results || parts.images || parts.metadata;
        match asked.then(|| parts::leave_out(&mut v, parts, format)).flatten() {
            Some(parts::Record::LeaveOut) => return LineOutcome::Dropped(DropReason::PartLeftOut),
            Some(parts::Record::Keep) => {
                if parts.images {
                    base64_parts(&mut v, 0);
                }
            }
            None => drop_parts(&mut v, parts),
        }
        let mut path = String::new();
        let mut hits = Vec::new();
        walk(&mut v, &mut path, &mut |s, whole, _| {
            if let Some(new) = self.redact_into(s.text(), whole, &mut hits, &mut Vec::new()) {
                s.set(new);
            }
        });
        let mut out = Vec::with_capacity(line.len() + 64);
        json::write(&v, &mut out);
        LineOutcome::Kept(out)
    }

    pub fn stats(&self) -> Stats {
        let mut kinds: Vec<KindStats> = Vec::new();
        for f in &self.findings {
            let k = match kinds.iter_mut().position(|k| k.kind == f.kind) {
                Some(i) => &mut kinds[i],
                None => {
                    kinds.push(KindStats { kind: f.kind, findings: 0, occurrences: 0, kept: 0 });
                    kinds.last_mut().expect("just pushed")
                }
            };
            k.findings += 1;
            k.occurrences += f.count as u64;
            k.kept += f.keep as usize;
        }
        Stats {
            lines: self.lines,
            unparseable_lines: self.unparseable,
            strings: self.strings,
            bytes_scanned: self.bytes,
            kinds,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn find(text: &str) -> Vec<(&'static str, &str)> {
        let d = Detector::new(&DetectOptions::default()).unwrap();
        let mut out = Vec::new();
        d.find(text, &mut out);
        out.iter().map(|h| (h.kind.id(), &text[h.range.clone()])).collect()
    }

    #[test]
    fn credential_ranges_are_exact() {
        assert_eq!(find("password = \"hunter2xyz\""), [("generic-secret", "hunter2xyz")]);
        assert_eq!(find("postgres://app:Sup3rS3cret@db.internal:5432/x"), [("connection-password", "Sup3rS3cret")]);
        assert_eq!(
            find("-H \"Authorization: Bearer abcDEF1234567890xyzQ\""),
            [("bearer-token", "abcDEF1234567890xyzQ")]
        );
    }

    #[test]
    fn ids_the_log_names_are_kept_and_other_secrets_still_go() {
        let id = "ses_5f2a9c1e8ffeQ7hLm3Xz0WbK4r";
        let token = "Zx8Qm2Lw9Rt4Vb7Nc3Kd6Hj1Gf5Ps0Ty";
        let text = format!(
            "cd /workspace && opencode --session {id}\nsaved as {id}.json, key {token}, \
             curl -H 'Authorization: Bearer abcDEF1234567890xyzQ'"
        );
        // Taken alone, the session's id looks like a secret.
        let mut plain = Redactor::new(&DetectOptions::default()).unwrap();
        plain.scan_text_line(LineRef::new(0, 1), text.as_bytes());
        assert!(!plain.redact_text(&text).contains(id), "the detectors take the id for a secret");

        let mut redactor = Redactor::new(&DetectOptions::default()).unwrap();
        redactor.keep_ids([id, "short"]);
        redactor.scan_text_line(LineRef::new(0, 1), text.as_bytes());
        let shown = redactor.redact_text(&text);
        assert_eq!(shown.matches(id).count(), 2, "kept in the command and the file name: {shown}");
        assert!(!shown.contains(token) && !shown.contains("abcDEF1234567890xyzQ"), "{shown}");
        assert!(redactor.findings().iter().all(|f| f.secret != id));

        // A user's own pattern still applies to an id.
        let options = DetectOptions { user_patterns: vec!["ses_[0-9a-f]{8}".into()], ..DetectOptions::default() };
        let mut asked = Redactor::new(&options).unwrap();
        asked.keep_ids([id]);
        asked.scan_text_line(LineRef::new(0, 1), text.as_bytes());
        assert!(!asked.redact_text(&text).contains(id));
    }

    #[test]
    fn a_redacted_text_maps_places_of_the_text_before() {
        let text = "login with Bearer abcDEF1234567890xyzQ then look at the kettle";
        let mut redactor = Redactor::new(&DetectOptions::default()).unwrap();
        redactor.scan_text_line(LineRef::new(0, 1), text.as_bytes());
        let shown = redactor.redact_mapped(text);
        assert_eq!(shown.text, redactor.redact_text(text));
        let at = |word: &str| text.find(word).unwrap_or_default();
        for word in ["login", "kettle", "look at"] {
            let range = shown.map(at(word)..at(word) + word.len());
            assert_eq!(&shown.text[range], word);
        }
        // A range that reaches into the secret is its marker, whole.
        let secret = at("abcDEF");
        let range = shown.map(secret + 3..secret + 8);
        assert_eq!(&shown.text[range], "[REDACTED:bearer-token#1]");
        let range = shown.map(at("with")..secret + 2);
        assert_eq!(&shown.text[range], "with Bearer [REDACTED:bearer-token#1]");
        assert_eq!(shown.map(text.len()..text.len()), shown.text.len()..shown.text.len());
    }

    #[test]
    fn secret_key_names() {
        assert!(secret_key_name("password"));
        assert!(secret_key_name("GITHUB_TOKEN"));
        assert!(secret_key_name("client_secret"));
        assert!(!secret_key_name("input_tokens"));
        assert!(!secret_key_name("token_type"));
        assert!(!secret_key_name("description"));
    }
}
