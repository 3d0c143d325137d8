//! The share dialog's work that runs in the open session's worker (`super::session`),
//! so the page carries neither the detectors nor the regular expressions they are made of
//! (`docs/size.md`): the redaction scan of a scope, and the redacted files written from it
//! once the findings are reviewed. The worker keeps the newest scan between the two; the page
//! keeps the review (which findings stay visible) and sends it with each write.

use std::cell::{Cell, RefCell};

use sessionscope_engine::Corpus;
use sessionscope_engine::Loader;
use sessionscope_engine::dag::Graph;
use sessionscope_engine::redact::{DetectOptions, DropParts, Redactor};
use sessionscope_engine::share::bundle::BundleHeader;
use sessionscope_engine::share::markdown::{MarkdownOptions, corpus_markdown};
use sessionscope_engine::share::redacted::{self, Redacted};
use sessionscope_engine::share::scope::{Scope, ScopeLines, resolve};
use sessionscope_engine::share::{Bundle, Cursor};

use crate::wire::share_report::{FindingRow, ScanReport};

/// Bytes scanned per slice, between which newer requests are let in.
pub const SLICE_BYTES: usize = 2 << 20;

/// A scanned scope, ready to be written out.
struct Scanned {
    scope: Scope,
    lines: ScopeLines,
    redactor: Redactor,
    title: String,
}

/// The scans of one session: the newest kept, to write the share from.
#[derive(Default)]
pub struct Redactions {
    scanned: RefCell<Option<Scanned>>,
    /// The newest scan asked for: an older one still running stops.
    newest: Cell<u64>,
}

/// Why a scan or a write could not be done.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RedactionError {
    /// One of the user's patterns is not a regular expression: why.
    Pattern(String),
    /// A write asked for before any scan (or after a newer one stopped it).
    ScanFirst,
}

impl std::fmt::Display for RedactionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RedactionError::Pattern(why) => f.write_str(why),
            RedactionError::ScanFirst => f.write_str("scan first"),
        }
    }
}

impl Redactions {
    /// Scans `scope` of the model for what `options` looks for, `slice_bytes` at a time
    /// ([`SLICE_BYTES`] in the worker): `progress(done, total)` between slices, and `pause` to let
    /// newer requests in. `None` when a newer scan was asked for meanwhile.
    #[allow(clippy::too_many_arguments)]
    pub async fn scan<P: std::future::Future<Output = ()>>(
        &self,
        corpus: &Corpus,
        graph: &Graph,
        id: u64,
        scope: Scope,
        without_agents: bool,
        options: &DetectOptions,
        progress: impl Fn(usize, usize),
        pause: impl Fn() -> P,
        slice_bytes: usize,
    ) -> Result<Option<ScanReport>, RedactionError> {
        self.newest.set(id);
        self.scanned.take();
        // The ids the model names are kept: a session's id in a resume command is no secret.
        let mut redactor = redacted::redactor_for(corpus, graph, options)
            .map_err(|error| RedactionError::Pattern(error.to_string()))?;
        let lines = resolve(corpus, graph, &scope, without_agents);
        // The whole title text: redacted before it is cut to the share's title.
        let title = redacted::scope_title(corpus, graph, &scope);
        redacted::scan_title(&title, &mut redactor);
        let total = lines.line_count();
        let mut cursor = Cursor::default();
        while !redacted::scan(corpus, &lines, &mut cursor, slice_bytes, &mut redactor) {
            progress(cursor.done, total);
            pause().await;
            if self.newest.get() != id {
                return Ok(None);
            }
        }
        let report = ScanReport { findings: rows_of(&redactor), lines: total, bytes: lines.byte_count() as u64 };
        self.scanned.replace(Some(Scanned { scope, lines, redactor, title }));
        Ok(Some(report))
    }

    /// The kept scan's scope redacted, findings kept visible where `keep` says so: the share's
    /// payload, or the scope as Markdown if `markdown`, and the share's header.
    pub fn write(
        &self,
        corpus: &Corpus,
        graph: &Graph,
        keep: &[bool],
        parts: &DropParts,
        selected: Option<String>,
        markdown: bool,
    ) -> Result<(BundleHeader, Vec<u8>), RedactionError> {
        {
            let mut scanned = self.scanned.borrow_mut();
            let scanned = scanned.as_mut().ok_or(RedactionError::ScanFirst)?;
            for (index, &keep) in keep.iter().enumerate() {
                scanned.redactor.set_keep(index, keep);
            }
            let bundle = redact(corpus, graph, scanned, parts, selected);
            if !markdown {
                return Ok((bundle.header.clone(), bundle.encode()));
            }
            // The redacted files are read back, as a dropped file is, and written as Markdown.
            let shared = Loader::read_all(bundle.files.iter().map(|(path, bytes)| (path.as_str(), bytes.as_slice())));
            let shared_graph = Graph::build(&shared);
            let body = corpus_markdown(&shared, &shared_graph, &MarkdownOptions::default());
            let text = format!(
                "{body}\n---\n_Shared with sessionscope ({}); secrets and personal data replaced by placeholders such as `[REDACTED:github-token#1]`._\n",
                bundle.header.scope
            );
            Ok((bundle.header, text.into_bytes()))
        }
    }
}

/// The redacted files of the scanned scope, with their header.
fn redact(corpus: &Corpus, graph: &Graph, scanned: &Scanned, parts: &DropParts, selected: Option<String>) -> Bundle {
    let mut out = Redacted::default();
    let mut cursor = Cursor::default();
    while !redacted::apply(corpus, &scanned.lines, &mut cursor, usize::MAX, &scanned.redactor, parts, &mut out) {}
    // The message to show first, if the scope holds it.
    let selected = selected.filter(|uuid| {
        corpus.entries.iter().any(|entry| {
            corpus.entry_uuid(entry) == uuid
                && scanned
                    .lines
                    .files
                    .iter()
                    .any(|f| f.file == entry.file && f.lines.iter().any(|l| l.line == entry.line))
        })
    });
    let (title, scope) = redacted::header_titles(graph, &scanned.scope, &scanned.title, &scanned.redactor);
    let header = BundleHeader {
        title,
        scope,
        selected,
        redaction: redacted::redaction_note(
            &scanned.redactor,
            parts,
            out.dropped_lines + scanned.lines.agents_left_out,
        ),
        ..Default::default()
    };
    out.into_bundle(header)
}

/// The findings as the review list shows them.
fn rows_of(redactor: &Redactor) -> Vec<FindingRow> {
    redactor
        .findings()
        .iter()
        .enumerate()
        .map(|(index, f)| {
            let context = f
                .contexts
                .first()
                .map(|c| {
                    let place = if c.line.is_title() {
                        "title".to_owned()
                    } else {
                        format!("line {}, {}", c.line.line, c.field)
                    };
                    format!("{place}: …{}{}{}…", c.before, f.placeholder, c.after)
                })
                .unwrap_or_default();
            FindingRow {
                index,
                kind: f.kind.id().to_owned(),
                label: f.kind.label().to_owned(),
                placeholder: f.placeholder.clone(),
                secret: f.secret.clone(),
                count: f.count,
                keep: f.keep,
                context,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use sessionscope_engine::share::bundle::Bundle;

    /// Runs a future whose pauses are all ready at once.
    fn run<F: std::future::Future>(future: F) -> F::Output {
        let mut future = std::pin::pin!(future);
        let mut context = std::task::Context::from_waker(std::task::Waker::noop());
        loop {
            if let std::task::Poll::Ready(output) = future.as_mut().poll(&mut context) {
                return output;
            }
        }
    }

    #[test]
    fn a_scan_finds_what_the_detectors_look_for_and_the_write_redacts_it() {
        let model = crate::logic::loaded::example_model();
        let (corpus, graph) = (&model.corpus, &model.graph);
        let options = DetectOptions { user_patterns: vec!["cargo test".into()], ..DetectOptions::default() };
        let redactions = Redactions::default();
        let report =
            run(redactions.scan(corpus, graph, 1, Scope::All, false, &options, |_, _| {}, || async {}, SLICE_BYTES))
                .unwrap()
                .expect("no newer scan");
        assert!(report.lines > 0 && report.bytes > 0);
        let user = report.findings.iter().find(|f| f.kind == "user-pattern").expect("the user's pattern is found");
        assert!(user.count > 0 && !user.keep, "{user:?}");

        let (header, payload) = redactions.write(corpus, graph, &[], &DropParts::default(), None, false).unwrap();
        let bundle = Bundle::decode(&payload).unwrap();
        assert_eq!(bundle.header, header);
        let shared: Vec<u8> = bundle.files.iter().flat_map(|(_, bytes)| bytes.clone()).collect();
        let shared = String::from_utf8_lossy(&shared);
        assert!(shared.contains(&user.placeholder) && !shared.contains(&user.secret), "the secret is replaced");

        // Kept visible, it is written as it is.
        let keep: Vec<bool> = report.findings.iter().map(|f| f.index == user.index).collect();
        let (_, payload) = redactions.write(corpus, graph, &keep, &DropParts::default(), None, false).unwrap();
        let shared: Vec<u8> = Bundle::decode(&payload).unwrap().files.into_iter().flat_map(|(_, b)| b).collect();
        assert!(String::from_utf8_lossy(&shared).contains(&user.secret));

        // The review is sent whole with each write: redacted again, it is replaced again.
        let redact_all = vec![false; report.findings.len()];
        let (_, markdown) = redactions.write(corpus, graph, &redact_all, &DropParts::default(), None, true).unwrap();
        let markdown = String::from_utf8(markdown).unwrap();
        assert!(markdown.contains("Shared with sessionscope") && markdown.contains(&user.placeholder));
    }

    #[test]
    fn a_newer_scan_stops_an_older_and_a_write_needs_a_scan() {
        let model = crate::logic::loaded::example_model();
        let (corpus, graph) = (&model.corpus, &model.graph);
        let options = DetectOptions::default();
        let steps = Cell::new(0);
        let redactions = Redactions::default();
        // Scanned in small slices, a scan reports its progress between them.
        let done = run(redactions.scan(
            corpus,
            graph,
            5,
            Scope::All,
            false,
            &options,
            |done, total| {
                assert!(done <= total);
                steps.set(steps.get() + 1);
            },
            || async {},
            1024,
        ));
        assert!(done.unwrap().is_some() && steps.get() > 1, "{} steps", steps.get());
        // A scan whose pause lets a newer one in gives up, and keeps nothing to write from.
        let stopped = run(redactions.scan(
            corpus,
            graph,
            6,
            Scope::All,
            false,
            &options,
            |_, _| {},
            || async { redactions.newest.set(7) },
            1024,
        ));
        assert_eq!(stopped.unwrap(), None);
        assert_eq!(
            redactions.write(corpus, graph, &[], &DropParts::default(), None, false).unwrap_err(),
            RedactionError::ScanFirst
        );
        // A pattern that is not a regular expression fails the scan, with the reason.
        let bad = DetectOptions { user_patterns: vec!["(".into()], ..DetectOptions::default() };
        let error =
            run(redactions.scan(corpus, graph, 8, Scope::All, false, &bad, |_, _| {}, || async {}, SLICE_BYTES))
                .unwrap_err();
        assert!(matches!(&error, RedactionError::Pattern(why) if why.contains('(')), "{error}");
    }
}
