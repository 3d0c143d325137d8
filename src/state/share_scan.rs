//! The share being prepared in the share dialog: what to share (the scope, the parts left out,
//! the detectors and the user's own patterns), the redaction scan of that scope (run again,
//! after a pause, whenever one of them changes), the findings with each one's keep-or-redact
//! decision, and what is made from the reviewed scan: a link, an HTML file, a Markdown file.
//! Nothing is sent anywhere: links carry the data in their fragment.

use std::sync::Arc;

use leptos::prelude::*;

use sessionscope_engine::dag::SessionId;
use sessionscope_engine::model::EntryId;
use sessionscope_engine::redact::{DetectOptions, DropParts};
use sessionscope_engine::share::SHARE_FRAGMENT;
use sessionscope_engine::share::bundle::BundleHeader;
use sessionscope_engine::share::envelope::{self, ITERATIONS, MAX_LINK_CHARS};
use sessionscope_engine::share::scope::Scope;

use crate::client::export::ExportError;
use crate::client::handle::{Flow, WorkerError};
use crate::client::session_worker::SessionWorkers;
use crate::logic::loaded::Model;
use crate::logic::outline::RowKey;
use crate::platform::crypto::CryptoError;
use crate::platform::{address, download};
use crate::render::units::human_bytes;
use crate::state::ViewerState;
use crate::wire::messages::{SessionReply, SessionRequest};
pub use crate::wire::share_report::FindingRow;
use crate::wire::{FromWorker, bytes_of};

/// What to share, as the form offers it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScopeKind {
    All,
    Session,
    Branch,
    Subtree,
    Range,
}

/// The parts that can be left out, as the form holds them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Parts {
    pub thinking: bool,
    pub tool_results: bool,
    pub images: bool,
    pub subagents: bool,
    pub metadata: bool,
}

impl Parts {
    fn engine(self) -> DropParts {
        DropParts {
            thinking: self.thinking,
            tool_results: self.tool_results,
            images: self.images,
            subagents: self.subagents,
            metadata: self.metadata,
        }
    }
}

/// The detectors that can be turned off (credentials are always looked for).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Detectors {
    pub emails: bool,
    pub ip_addresses: bool,
    pub home_paths: bool,
    pub entropy: bool,
    pub env_dumps: bool,
}

impl Default for Detectors {
    fn default() -> Self {
        Detectors { emails: true, ip_addresses: true, home_paths: true, entropy: true, env_dumps: true }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum ScanStatus {
    Idle,
    Scanning { done: usize, total: usize },
    Ready,
    Failed(String),
}

/// Why a share could not be made from the scan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ShareError {
    /// The scan is not done (or was replaced by a newer one).
    ScanFirst,
    /// The session's worker could not do it.
    Worker(WorkerError),
    /// The worker answered with nothing written.
    NothingWritten,
    Crypto(CryptoError),
    Export(ExportError),
}

impl std::fmt::Display for ShareError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ShareError::ScanFirst => f.write_str("scan first"),
            ShareError::Worker(error) => error.fmt(f),
            ShareError::NothingWritten => f.write_str("the worker wrote nothing"),
            ShareError::Crypto(error) => error.fmt(f),
            ShareError::Export(error) => error.fmt(f),
        }
    }
}

impl From<WorkerError> for ShareError {
    fn from(error: WorkerError) -> ShareError {
        ShareError::Worker(error)
    }
}

impl From<CryptoError> for ShareError {
    fn from(error: CryptoError) -> ShareError {
        ShareError::Crypto(error)
    }
}

impl From<ExportError> for ShareError {
    fn from(error: ExportError) -> ShareError {
        ShareError::Export(error)
    }
}

/// A link that would hold more than a link may ([`MAX_LINK_CHARS`]): its length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinkTooLong {
    pub chars: usize,
}

impl std::fmt::Display for LinkTooLong {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "The link would be {} long; links over {} are refused (browsers and chat tools cut them). Leave out more \
             (tool results, subagents), share a smaller scope, or download the HTML file instead.",
            human_bytes(self.chars as u64),
            human_bytes(MAX_LINK_CHARS as u64)
        )
    }
}

/// A link made from the reviewed scan.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkInfo {
    pub url: String,
    pub chars: usize,
    pub encrypted: bool,
}

/// The share dialog's scan. Made when the dialog opens, from what the viewer shows; it lives
/// as long as the dialog.
#[derive(Clone, Copy)]
pub struct ShareScan {
    model: StoredValue<Arc<Model>>,
    /// The session's worker, which scans and writes.
    sessions: StoredValue<SessionWorkers, LocalStorage>,
    session: SessionId,
    /// `(fork node, alternative)` at each fork where the graph shows another alternative.
    choices: StoredValue<Vec<(EntryId, u32)>>,
    /// The thread shown, along the branches chosen, without noise: what a range is taken from.
    messages: StoredValue<Vec<EntryId>>,
    /// The selected message (or the message of the selected tool call).
    pub selected_entry: Option<EntryId>,
    pub scope_kind: RwSignal<ScopeKind>,
    /// 1-based positions in `messages`.
    pub range_from: RwSignal<usize>,
    pub range_to: RwSignal<usize>,
    pub parts: RwSignal<Parts>,
    pub detectors: RwSignal<Detectors>,
    /// The user's own patterns, one regular expression per line.
    pub patterns: RwSignal<String>,
    pub status: RwSignal<ScanStatus>,
    pub findings: RwSignal<Vec<FindingRow>>,
    /// The size of the scope scanned last: `(lines, bytes)`. The scan itself is kept in the
    /// session's worker, which writes the share from it.
    scanned: StoredValue<Option<(usize, u64)>>,
    /// The newest scan asked for: replies to an older one are not heard.
    asked: StoredValue<Option<crate::wire::RequestId>>,
    /// A change of what to scan waits for a pause in typing: the newest change's number.
    typing: StoredValue<u64>,
    /// The link made from the scan as reviewed; gone when the scan or a decision changes.
    pub link: RwSignal<Option<Result<LinkInfo, LinkTooLong>>>,
}

impl ShareScan {
    /// The formats of the loaded files that a share cannot take thinking, tool results, images
    /// or metadata out of (their files are left out whole when one of these is ticked), by
    /// label, each once.
    pub fn formats_left_out_whole(&self) -> Vec<&'static str> {
        let mut labels: Vec<&'static str> = self.model.with_value(|m| {
            m.corpus
                .files
                .iter()
                .map(|f| f.format)
                .filter(|f| *f != sessionscope_engine::model::Format::Rejected && !f.share_can_leave_parts_out())
                .map(|f| f.label())
                .collect()
        });
        crate::logic::sort::sort(&mut labels);
        labels.dedup();
        labels
    }

    /// The scan of what `viewer` shows (none if nothing is loaded). It scans again whenever the
    /// scope, the parts or the detectors change, for as long as the reactive owner it is made
    /// in lives.
    pub fn new(viewer: &ViewerState, sessions: SessionWorkers) -> Option<ShareScan> {
        let model = viewer.model_untracked()?;
        let session = viewer.session.get_untracked();
        let graph = &model.graph;
        let choices: Vec<(EntryId, u32)> = viewer.options.with_value(|o| {
            o.choices.iter().filter_map(|(&fork, &alt)| graph.fork(fork).map(|f| (f.node, alt))).collect()
        });
        let messages = branch_messages(&model, session, &choices);
        let selected_entry = match viewer.selected.get_untracked() {
            Some(RowKey::Entry(e)) => Some(e),
            Some(RowKey::Op(op)) => graph.op(op).map(|o| o.call_entry).filter(|&e| e.is_some()),
            _ => None,
        };
        let selected_position = selected_entry.and_then(|e| messages.iter().position(|&m| m == e));
        let scan = ShareScan {
            session,
            selected_entry,
            scope_kind: RwSignal::new(ScopeKind::Session),
            range_from: RwSignal::new(selected_position.map_or(1, |p| p + 1)),
            range_to: RwSignal::new(messages.len().max(1)),
            parts: RwSignal::new(Parts::default()),
            detectors: RwSignal::new(Detectors::default()),
            patterns: RwSignal::new(String::new()),
            status: RwSignal::new(ScanStatus::Idle),
            findings: RwSignal::new(Vec::new()),
            scanned: StoredValue::new(None),
            asked: StoredValue::new(None),
            typing: StoredValue::new(0),
            sessions: StoredValue::new_local(sessions),
            link: RwSignal::new(None),
            model: StoredValue::new(model),
            choices: StoredValue::new(choices),
            messages: StoredValue::new(messages),
        };
        // Scans again whenever the scope or the detectors change (after a pause in typing).
        Effect::new(move |_| scan.scan());
        Some(scan)
    }

    /// How many sessions are loaded (the scope "all" shares them all).
    pub fn sessions(&self) -> usize {
        self.model.with_value(|m| m.graph.sessions.len())
    }

    /// How many messages the range can be taken from.
    pub fn message_count(&self) -> usize {
        self.messages.with_value(Vec::len)
    }

    /// The message at 1-based `position` of the thread shown (clamped to it).
    fn message_at(&self, position: usize) -> Option<EntryId> {
        self.messages.with_value(|m| m.get(position.clamp(1, m.len().max(1)) - 1).copied())
    }

    /// What to share, tracked.
    pub fn scope(&self) -> Scope {
        let session = self.session;
        match self.scope_kind.get() {
            ScopeKind::All => Scope::All,
            ScopeKind::Session => Scope::Session(session),
            ScopeKind::Branch => Scope::Branch { session, choices: self.choices.get_value() },
            ScopeKind::Subtree => self.selected_entry.map_or(Scope::Session(session), Scope::Subtree),
            ScopeKind::Range => match (self.message_at(self.range_from.get()), self.message_at(self.range_to.get())) {
                (Some(from), Some(to)) => Scope::Range { from, to, choices: self.choices.get_value() },
                _ => Scope::Session(session),
            },
        }
    }

    /// "from “…” to “…”": the first words of the range's ends, tracked.
    pub fn range_preview(&self) -> String {
        let at = |position: usize| {
            self.message_at(position).map(|e| self.model.with_value(|m| preview(m, e))).unwrap_or_default()
        };
        format!("from “{}” to “{}”", at(self.range_from.get()), at(self.range_to.get()))
    }

    /// Starts a scan of the scope in the session's worker, replacing the one running; reads (and
    /// so tracks) the scope, the detectors, the patterns and the parts.
    fn scan(&self) {
        let scope = self.scope();
        let d = self.detectors.get();
        let user_patterns: Vec<String> =
            self.patterns.get().lines().map(str::trim).filter(|l| !l.is_empty()).map(str::to_owned).collect();
        let without_agents = self.parts.get().subagents;
        self.typing.update_value(|t| *t += 1);
        let mine = self.typing.get_value();
        self.link.set(None);
        self.scanned.set_value(None);
        self.status.set(ScanStatus::Scanning { done: 0, total: 0 });
        // The scan running goes unheard from now on: its worker stops it when the next begins.
        if let Some(older) = self.asked.try_update_value(Option::take).flatten()
            && let Some(worker) = self.sessions.with_value(SessionWorkers::current)
        {
            worker.forget(older);
        }
        let scan = *self;
        let model = self.model.get_value();
        leptos::task::spawn_local(async move {
            crate::platform::schedule::sleep(120).await;
            if scan.typing.try_get_value() != Some(mine) {
                return;
            }
            let options = DetectOptions {
                user_patterns,
                entropy: d.entropy,
                emails: d.emails,
                ip_addresses: d.ip_addresses,
                home_paths: d.home_paths,
                env_dumps: d.env_dumps,
            };
            let request = SessionRequest::ShareScan { scope, without_agents, options };
            let asked = scan.sessions.with_value(|sessions| sessions.for_model(&model)).and_then(|worker| {
                worker.ask(request, move |answer| {
                    let reply = match answer {
                        Ok(reply) => reply,
                        Err(error) => {
                            scan.status.set(ScanStatus::Failed(error.to_string()));
                            return Flow::Done;
                        }
                    };
                    match reply.message {
                        FromWorker::Session(SessionReply::ShareProgress { done, total }) => {
                            scan.status.set(ScanStatus::Scanning { done, total });
                            Flow::More
                        }
                        FromWorker::Session(SessionReply::ShareScanned { report }) => {
                            scan.scanned.set_value(Some((report.lines, report.bytes)));
                            scan.findings.set(report.findings);
                            scan.status.set(ScanStatus::Ready);
                            Flow::Done
                        }
                        _ => Flow::More,
                    }
                })
            });
            match asked {
                Ok(id) => scan.asked.set_value(Some(id)),
                Err(error) => scan.status.set(ScanStatus::Failed(error.to_string())),
            }
        });
    }

    /// Whether the scan is done and can be written out, tracked.
    pub fn ready(&self) -> bool {
        self.status.with(|s| *s == ScanStatus::Ready)
    }

    /// Keeps (or redacts) the findings at `indices`.
    pub fn set_keep(&self, indices: &[usize], keep: bool) {
        self.findings.update(|rows| {
            for row in rows.iter_mut().filter(|row| indices.contains(&row.index)) {
                row.keep = keep;
            }
        });
        self.link.set(None);
    }

    /// Leaves a part out, or puts it back.
    pub fn set_part(&self, set: fn(&mut Parts, bool), on: bool) {
        self.parts.update(|p| set(p, on));
        self.link.set(None);
    }

    /// The size of the scanned scope before redaction.
    pub fn scope_size(&self) -> Option<String> {
        self.scanned.get_value().map(|(lines, bytes)| {
            format!("{}, {} before redaction", crate::logic::words::counted(lines, "line"), human_bytes(bytes))
        })
    }

    /// Makes a link from the reviewed scan (sealed with `passphrase`, if one is given), or says
    /// why it would be too long.
    pub async fn make_link(self, passphrase: String) -> Result<Option<String>, ShareError> {
        let selected = self.model.with_value(|model| {
            self.selected_entry.map(|e| model.corpus.entry_uuid(&model.corpus.entries[e.index()]).to_owned())
        });
        let (text, _) = self.sealed(self.parts.get_untracked(), &passphrase, selected).await?;
        let url = format!("{}{SHARE_FRAGMENT}{text}", address::without_fragment());
        let chars = url.len();
        self.link.set(Some(if chars > MAX_LINK_CHARS {
            Err(LinkTooLong { chars })
        } else {
            Ok(LinkInfo { url, chars, encrypted: !passphrase.is_empty() })
        }));
        Ok(None)
    }

    /// Downloads the reviewed scan as an HTML file holding the viewer (sealed with
    /// `passphrase`, if one is given).
    pub async fn download_html(self, passphrase: String) -> Result<Option<String>, ShareError> {
        let (text, header) = self.sealed(self.parts.get_untracked(), &passphrase, None).await?;
        let html = crate::client::export::html(&text, &header.title).await?;
        let name = format!("{}.sessionscope.html", download::file_stem(&header.title));
        download::download_text(&name, "text/html", &html);
        Ok(Some(format!("Saved {name} ({}).", human_bytes(html.len() as u64))))
    }

    /// Downloads the reviewed scan as Markdown.
    pub async fn download_markdown(self) -> Result<Option<String>, ShareError> {
        let (header, text) = self.written(self.parts.get_untracked(), None, true).await?;
        let name = format!("{}.md", download::file_stem(&header.title));
        let text = String::from_utf8_lossy(&text);
        download::download_text(&name, "text/markdown", &text);
        Ok(Some(format!("Saved {name} ({}).", human_bytes(text.len() as u64))))
    }

    /// The reviewed scope, redacted by the session's worker: the share's payload (or the scope
    /// as Markdown, if `markdown`), and its header.
    async fn written(
        &self,
        parts: Parts,
        selected: Option<String>,
        markdown: bool,
    ) -> Result<(BundleHeader, Vec<u8>), ShareError> {
        if !self.ready() {
            return Err(ShareError::ScanFirst);
        }
        let keep = self.findings.with_untracked(|rows| {
            let mut keep = vec![false; rows.iter().map(|r| r.index + 1).max().unwrap_or(0)];
            for row in rows {
                keep[row.index] = row.keep;
            }
            keep
        });
        let model = self.model.get_value();
        let worker = self.sessions.with_value(|sessions| sessions.for_model(&model))?;
        let request = SessionRequest::ShareWrite { keep, parts: parts.engine(), selected, markdown };
        let reply = worker.answer(request).await?;
        match reply.message {
            FromWorker::Session(SessionReply::ShareWritten { header }) => {
                let bytes = reply.buffers.first().map(bytes_of).ok_or(ShareError::NothingWritten)?;
                Ok((header, bytes))
            }
            _ => Err(ShareError::NothingWritten),
        }
    }

    /// The reviewed scope as an envelope in base64url: compressed, and encrypted if a
    /// passphrase is given.
    async fn sealed(
        &self,
        parts: Parts,
        passphrase: &str,
        selected: Option<String>,
    ) -> Result<(String, BundleHeader), ShareError> {
        let (header, payload) = self.written(parts, selected, false).await?;
        let sealed = if passphrase.is_empty() {
            envelope::seal_plain(&payload)
        } else {
            let compressed = envelope::deflate(&payload);
            let (sealing, cipher) = crate::platform::crypto::encrypt(passphrase, &compressed, ITERATIONS).await?;
            envelope::seal_encrypted(&sealing, &cipher)
        };
        Ok((envelope::to_base64url(&sealed), header))
    }
}

/// The thread of the session shown, along the branches chosen in the graph, without noise.
fn branch_messages(model: &Model, session: SessionId, choices: &[(EntryId, u32)]) -> Vec<EntryId> {
    let Some(s) = model.graph.session(session) else { return Vec::new() };
    if s.main.is_none() {
        return Vec::new();
    }
    let choose = |fork: &sessionscope_engine::dag::Fork| {
        choices.iter().find(|(node, _)| *node == fork.node).map_or(fork.active, |(_, alt)| *alt)
    };
    model
        .graph
        .thread_with(s.main, &choose)
        .into_iter()
        .filter(|&e| !crate::logic::outline::is_noise(&model.corpus, &model.corpus.entries[e.index()]))
        .collect()
}

/// The kind of a message and its first words.
fn preview(model: &Model, entry: EntryId) -> String {
    let corpus = &model.corpus;
    let Some(e) = corpus.entries.get(entry.index()) else { return String::new() };
    let text = corpus.first_text(e).map(|t| t.into_owned()).unwrap_or_else(|| e.kind.name().to_owned());
    let line = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("").trim();
    let short: String = line.chars().take(60).collect();
    format!("{}: {}{}", e.kind.name(), short, if line.chars().count() > 60 { "…" } else { "" })
}
