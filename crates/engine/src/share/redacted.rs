//! A scope, redacted: scanned for findings, then written out line by line with the
//! placeholders the review settled on, into a [`Bundle`]. Both passes can run in slices (the
//! page does a slice per frame); [`share_scope`] runs them in one go.
//!
//! The redactor keeps the ids the model names ([`redactor_for`]): a session's id in a resume
//! command or a file name is no secret. The share's title is its session's whole title text,
//! redacted, then cut ([`header_titles`]): a cut made first could leave a piece of a secret the
//! redaction no longer recognises.

use crate::dag::{Graph, SessionId, TITLE_CHARS};
use crate::model::{Corpus, FileId};
use crate::redact::{DetectOptions, DropParts, DropReason, Finding, LineOutcome, LineRef, PatternError, Redactor};

use super::bundle::{Bundle, BundleHeader, RedactionNote};
use super::scope::{Scope, ScopeFile, ScopeLines, resolve};
use super::{Cursor, line_bytes};

/// What a share leaves out and looks for.
#[derive(Clone, Debug, Default)]
pub struct ShareOptions {
    pub detect: DetectOptions,
    pub parts: DropParts,
}

/// Scans lines from `cursor` for about `budget` bytes; true when the scope is done.
pub fn scan(corpus: &Corpus, lines: &ScopeLines, cursor: &mut Cursor, budget: usize, redactor: &mut Redactor) -> bool {
    lines.walk(cursor, budget, |index, file, line| {
        let bytes = line_bytes(corpus, file, line);
        let at = LineRef { file: index as u32, line: line.line };
        if is_text(corpus, file) {
            redactor.scan_text_line(at, &bytes);
        } else {
            redactor.scan_line(at, &bytes);
        }
    })
}

/// Whether the parts `parts` asks to leave out can be left out of a file's lines (nothing asked,
/// or a format the redactor knows the parts of).
fn can_leave_out(corpus: &Corpus, file: &ScopeFile, parts: &DropParts) -> bool {
    let asked = parts.thinking || parts.tool_results || parts.images || parts.metadata;
    !asked || corpus.files.get(file.file as usize).is_some_and(|f| f.format.share_can_leave_parts_out())
}

/// Whether a file to share is written as text, not JSON lines.
fn is_text(corpus: &Corpus, file: &ScopeFile) -> bool {
    corpus.files.get(file.file as usize).is_some_and(|f| f.format.lines_are_text())
}

/// A redactor for `options` that keeps every id the model names out of the findings
/// ([`Redactor::keep_ids`], [`model_ids`]).
pub fn redactor_for(corpus: &Corpus, graph: &Graph, options: &DetectOptions) -> Result<Redactor, PatternError> {
    let mut redactor = Redactor::new(options)?;
    redactor.keep_ids(model_ids(corpus, graph));
    Ok(redactor)
}

/// Every value the model names as an id: sessions, entries and their parents, tool calls and
/// the calls results answer, API messages and requests, agents (some more than once).
pub fn model_ids<'c>(corpus: &'c Corpus, graph: &'c Graph) -> impl Iterator<Item = &'c str> + 'c {
    let span = move |file: FileId, span| corpus.span_str(file, span);
    let entries = corpus.entries.iter().flat_map(move |entry| {
        let f = entry.file;
        let own = [
            span(f, entry.uuid),
            span(f, entry.parent_uuid),
            span(f, entry.logical_parent_uuid),
            span(f, entry.tool_use_id),
            span(f, entry.parent_tool_use_id),
            span(f, entry.source_tool_assistant),
            corpus.sym(entry.session_id),
            corpus.sym(entry.agent_id),
            corpus.sym(entry.linked_agent_id),
        ];
        own.into_iter().chain(corpus.blocks_of(entry).iter().map(move |block| span(f, block.id)))
    });
    let responses = corpus
        .responses
        .iter()
        .flat_map(move |response| [span(response.file, response.message_id), span(response.file, response.request_id)]);
    let metas = corpus.metas.iter().map(|meta| corpus.sym(meta.session_id));
    let files = corpus
        .files
        .iter()
        .flat_map(|file| file.session_from_path.as_deref().into_iter().chain(file.agent_id_from_name.as_deref()));
    let sessions = graph.sessions.iter().map(|session| session.id.as_str());
    let agents = graph.conversations.iter().map(|conversation| corpus.sym(conversation.agent_id));
    entries.chain(responses).chain(metas).chain(files).chain(sessions).chain(agents).filter(|id| !id.is_empty())
}

/// Scans the title the share will carry: its session's whole title text ([`scope_title`]).
pub fn scan_title(title: &str, redactor: &mut Redactor) {
    redactor.scan_line(LineRef::TITLE, &title_line(title));
}

fn title_line(title: &str) -> Vec<u8> {
    serde_json::to_vec(&serde_json::json!({ "title": title })).unwrap_or_default()
}

/// The title (or any text shown beside the share) with the review's placeholders.
pub fn redact_title(title: &str, redactor: &Redactor) -> String {
    redactor.redact_text(title)
}

/// The share header's title and description of the scope: the whole title text
/// ([`scope_title`]) redacted, then cut to a title's length.
pub fn header_titles(graph: &Graph, scope: &Scope, title: &str, redactor: &Redactor) -> (String, String) {
    let shown = crate::cut::prefix(&redact_title(title, redactor), TITLE_CHARS);
    let described = scope.describe(graph, &shown);
    (shown, described)
}

/// Redacted files being written.
#[derive(Debug, Default)]
pub struct Redacted {
    files: Vec<(String, Vec<u8>)>,
    /// For each scope file, its index in `files` once it has a line.
    slots: Vec<Option<usize>>,
    pub dropped_lines: u32,
    pub written_lines: u32,
}

/// Writes lines from `cursor` for about `budget` bytes; true when the scope is done.
pub fn apply(
    corpus: &Corpus,
    lines: &ScopeLines,
    cursor: &mut Cursor,
    budget: usize,
    redactor: &Redactor,
    parts: &DropParts,
    out: &mut Redacted,
) -> bool {
    if out.slots.len() < lines.files.len() {
        out.slots.resize(lines.files.len(), None);
    }
    lines.walk(cursor, budget, |index, file, line| {
        let bytes = line_bytes(corpus, file, line);
        let format = corpus.files.get(file.file as usize).map_or(crate::model::Format::ClaudeCode, |f| f.format);
        let outcome = if !can_leave_out(corpus, file, parts) {
            LineOutcome::Dropped(DropReason::PartsNotSeparable)
        } else if is_text(corpus, file) {
            redactor.apply_text_record(&bytes, parts)
        } else {
            redactor.apply_record(&bytes, parts, format)
        };
        match outcome {
            LineOutcome::Kept(text) => {
                let slot = *out.slots[index].get_or_insert_with(|| {
                    out.files.push((file.path.clone(), Vec::new()));
                    out.files.len() - 1
                });
                let buffer = &mut out.files[slot].1;
                buffer.extend_from_slice(&text);
                buffer.push(b'\n');
                out.written_lines += 1;
            }
            LineOutcome::Dropped(_) => out.dropped_lines += 1,
        }
    })
}

/// What the header says about the redaction.
pub fn redaction_note(redactor: &Redactor, parts: &DropParts, dropped_lines: u32) -> RedactionNote {
    let mut kinds: Vec<(String, u32, u32)> = Vec::new();
    let mut kept = 0;
    for finding in redactor.findings() {
        if finding.keep {
            kept += 1;
            continue;
        }
        let id = finding.kind.id().to_owned();
        match kinds.iter_mut().find(|(k, _, _)| *k == id) {
            Some(entry) => {
                entry.1 += 1;
                entry.2 += finding.count;
            }
            None => kinds.push((id, 1, finding.count)),
        }
    }
    let mut dropped_parts = Vec::new();
    for (on, name) in [
        (parts.thinking, "thinking"),
        (parts.tool_results, "tool results"),
        (parts.images, "images"),
        (parts.subagents, "subagents"),
        (parts.metadata, "metadata"),
    ] {
        if on {
            dropped_parts.push(name.to_owned());
        }
    }
    RedactionNote { kinds, kept, dropped_lines, dropped_parts }
}

impl Redacted {
    pub fn into_bundle(self, header: BundleHeader) -> Bundle {
        Bundle::new(header, self.files)
    }
}

/// Redacts a scope in one go; `keep` decides which findings stay visible.
pub fn share_scope(
    corpus: &Corpus,
    graph: &Graph,
    scope: &Scope,
    options: &ShareOptions,
    keep: impl Fn(&Finding) -> bool,
) -> Result<Bundle, PatternError> {
    share_scope_with(corpus, graph, scope, options, keep, &[]).map(|shared| shared.bundle)
}

/// A scope redacted in one go, with the redactor that did it.
pub struct Shared {
    pub bundle: Bundle,
    /// Redacts another text shown beside the share with the same placeholders (texts scanned
    /// with the scope were given to [`share_scope_with`]).
    pub redactor: Redactor,
}

/// [`share_scope`], with `also` (texts shown beside the share: a project's folder) scanned with
/// the scope, and the redactor given back to redact them with the share's placeholders.
pub fn share_scope_with(
    corpus: &Corpus,
    graph: &Graph,
    scope: &Scope,
    options: &ShareOptions,
    keep: impl Fn(&Finding) -> bool,
    also: &[&str],
) -> Result<Shared, PatternError> {
    let lines = resolve(corpus, graph, scope, options.parts.subagents);
    let mut redactor = redactor_for(corpus, graph, &options.detect)?;
    let title = scope_title(corpus, graph, scope);
    scan_title(&title, &mut redactor);
    for text in also {
        redactor.scan_text_line(LineRef::TITLE, text.as_bytes());
    }
    scan(corpus, &lines, &mut Cursor::default(), usize::MAX, &mut redactor);
    let decisions: Vec<bool> = redactor.findings().iter().map(&keep).collect();
    for (index, keep) in decisions.into_iter().enumerate() {
        redactor.set_keep(index, keep);
    }
    let mut out = Redacted::default();
    apply(corpus, &lines, &mut Cursor::default(), usize::MAX, &redactor, &options.parts, &mut out);
    let (title, described) = header_titles(graph, scope, &title, &redactor);
    let header = BundleHeader {
        title,
        scope: described,
        redaction: redaction_note(&redactor, &options.parts, out.dropped_lines + lines.agents_left_out),
        ..Default::default()
    };
    Ok(Shared { bundle: out.into_bundle(header), redactor })
}

/// The title of what a scope covers: its session's whole title text (the line of its first
/// prompt uncut, [`crate::dag::title_source`]), or a count of sessions.
pub fn scope_title(corpus: &Corpus, graph: &Graph, scope: &Scope) -> String {
    let session = match scope {
        Scope::All if graph.sessions.len() == 1 => Some(SessionId::new(0)),
        Scope::All => None,
        Scope::Session(s) | Scope::Branch { session: s, .. } => Some(*s),
        Scope::Subtree(entry) | Scope::Range { from: entry, .. } => graph
            .nodes
            .get(entry.index())
            .and_then(|n| graph.conversations.get(n.conversation.index()))
            .map(|c| c.session),
    };
    match session.and_then(|s| Some((s, graph.sessions.get(s.index())?))) {
        Some((at, s)) if !s.title.is_empty() => crate::dag::title_source(corpus, graph, at),
        Some((_, s)) => s.id.clone(),
        None if graph.sessions.len() == 1 => "1 session".to_owned(),
        None => format!("{} sessions", graph.sessions.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::Loader;

    fn session() -> Vec<u8> {
        let lines = [
            r#"{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s1","timestamp":"2026-03-02T10:00:00Z","cwd":"/home/alice/work/api","message":{"role":"user","content":"I'm on alice's laptop, token ghp_4f8Qx2LmP9vR4tWn7YbC3dFhJk6sA1zE0uTq"}}"#,
            r#"{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s1","timestamp":"2026-03-02T10:00:05Z","cwd":"/home/alice/work/api","message":{"id":"m1","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"Rotate it, alice."}],"usage":{"input_tokens":10,"output_tokens":5}}}"#,
        ];
        lines.join("\n").into_bytes()
    }

    #[test]
    fn title_and_scope_carry_the_same_placeholders_as_the_lines() {
        let mut loader = Loader::new();
        loader.add_bytes("s1.jsonl", &session());
        let corpus = loader.finish();
        let graph = Graph::build(&corpus);
        let scope = Scope::Session(SessionId::new(0));
        assert!(scope_title(&corpus, &graph, &scope).contains("alice"), "the fixture's title names the user");

        let bundle = share_scope(&corpus, &graph, &scope, &ShareOptions::default(), |_| false).unwrap();
        for text in [&bundle.header.title, &bundle.header.scope] {
            assert!(!text.contains("alice") && !text.contains("ghp_"), "left in clear: {text}");
            assert!(text.contains("laptop"), "the rest of the title stays: {text}");
        }
        let (_, bytes) = &bundle.files[0];
        let text = String::from_utf8_lossy(bytes);
        assert!(!text.contains("alice") && !text.contains("ghp_4f8Q"), "{text}");
        assert_eq!(text.lines().count(), 2);

        let kept = share_scope(&corpus, &graph, &scope, &ShareOptions::default(), |_| true).unwrap();
        assert!(kept.header.title.contains("alice"), "findings the user keeps stay visible");
    }

    #[test]
    fn a_title_is_redacted_whole_before_it_is_cut_and_the_session_id_stays() {
        let token = "ghp_4f8Qx2LmP9vR4tWn7YbC3dFhJk6sA1zE0uTq";
        let id = "Zk3pQ9vLm2Xw8Rt4Yb7Nc1Kd6Hs";
        // The title's cut (100 characters) falls inside the token.
        let prompt = format!("{}use {token} to push", "word ".repeat(16));
        let lines = [
            serde_json::json!({"type": "user", "uuid": "u1", "parentUuid": null, "sessionId": id,
                "message": {"role": "user", "content": prompt}}),
            serde_json::json!({"type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": id,
                "message": {"id": "m1", "role": "assistant", "content": [{"type": "text",
                    "text": format!("Take it up again with `claude --resume {id}`.")}]}}),
        ];
        let text: Vec<String> = lines.iter().map(|line| line.to_string()).collect();
        let mut loader = Loader::new();
        loader.add_bytes("s.jsonl", text.join("\n").as_bytes());
        let corpus = loader.finish();
        let graph = Graph::build(&corpus);
        assert!(graph.sessions[0].title.contains(&token[..10]), "the model's own title holds a piece of the token");

        let bundle =
            share_scope(&corpus, &graph, &Scope::Session(SessionId::new(0)), &ShareOptions::default(), |_| false)
                .unwrap();
        let shared = String::from_utf8_lossy(&bundle.files[0].1).into_owned();
        for text in [&bundle.header.title, &bundle.header.scope, &shared] {
            for piece in (0..=token.len() - 6).map(|at| &token[at..at + 6]) {
                assert!(!text.contains(piece), "`{piece}` of the token is left in {text}");
            }
        }
        assert!(bundle.header.title.ends_with("[REDACTED:github-token#1]…"), "{}", bundle.header.title);
        assert!(shared.contains(&format!("claude --resume {id}")), "the session's id is no secret: {shared}");
    }
}
