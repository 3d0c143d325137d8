//! Shares that leave parts out, for every format: thinking and tool output taken out of the
//! records where each format keeps them (not only Claude Code's), so that a share carries none of
//! their bytes, reads back, and keeps its conversation. Ollama captures and Cursor IDE databases,
//! whose thinking the redactor cannot take apart, are still left out whole.

mod common;

use std::path::Path;

use common::*;
use sessionscope_engine::dag::{Graph, ToolStatus};
use sessionscope_engine::model::*;
use sessionscope_engine::redact::DropParts;
use sessionscope_engine::share::Bundle;
use sessionscope_engine::share::redacted::{ShareOptions, share_scope};
use sessionscope_engine::share::scope::Scope;
use sessionscope_engine::{Corpus, Loader};

fn share(corpus: &Corpus, parts: DropParts) -> Bundle {
    let graph = Graph::build(corpus);
    share_scope(corpus, &graph, &Scope::All, &ShareOptions { parts, ..ShareOptions::default() }, |_| true)
        .expect("a share")
}

fn text_of(bundle: &Bundle) -> String {
    bundle.files.iter().map(|(_, bytes)| String::from_utf8_lossy(bytes).into_owned()).collect::<Vec<_>>().join("\n")
}

/// What the bundle's files read back as: the corpus and its graph.
fn read_back(bundle: &Bundle) -> (Corpus, Graph) {
    let corpus = Loader::read_all(bundle.files.iter().map(|(p, b)| (p.as_str(), b.as_slice())));
    let graph = Graph::build(&corpus);
    (corpus, graph)
}

fn fixture_files(relative: &str) -> Vec<(String, Vec<u8>)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(relative);
    if path.is_dir() {
        read_folder(&path).into_iter().map(|(name, bytes)| (format!("{relative}/{name}"), bytes)).collect()
    } else {
        vec![(relative.rsplit('/').next().unwrap_or(relative).to_owned(), std::fs::read(&path).expect("a fixture"))]
    }
}

/// A format's fixture: a text of its thinking and one of its tool output, both in the fixture.
struct Case {
    fixture: &'static str,
    format: Format,
    thinking: &'static [&'static str],
    output: &'static [&'static str],
}

const CASES: &[Case] = &[
    Case {
        fixture: "formats/pi-session.jsonl",
        format: Format::Pi,
        thinking: &["I should look at the list command first."],
        output: &["cannot find value `json` in this scope"],
    },
    Case {
        fixture: "formats/pi-legacy.jsonl",
        format: Format::Pi,
        thinking: &["Three files."],
        output: &["list.rs\\nmain.rs\\nstats.rs"],
    },
    Case {
        fixture: "formats/copilot-events.jsonl",
        format: Format::CopilotCli,
        thinking: &["Let me look at the list command first.", "Search the tests folder."],
        output: &["pub fn list(brews: &[Brew]) { ... }"],
    },
    Case {
        fixture: "formats/rollout-2025-10-02T10-11-12-0199a213-81c0-7800-8aa1-bbab2a035a53.jsonl",
        format: Format::CodexRollout,
        thinking: &["Locating the stats command", "gAAAAABo3kq9-fixture-encrypted-only"],
        output: &["cannot find value `avg` in this scope", "Success. Updated the following files"],
    },
    Case {
        fixture: "formats/codex-sdk-events.jsonl",
        format: Format::CodexEvents,
        thinking: &["Planning the flag"],
        output: &["11 passed; 1 failed", "panics on brews without ingredients"],
    },
    Case {
        fixture: "formats/session-2025-11-03T09-15-7c2e9a41.json",
        format: Format::GeminiCli,
        thinking: &["The argument parser is probably in src/main.py."],
        output: &["Successfully overwrote file: src/main.py.", "Stdout: 3 passed"],
    },
    Case {
        fixture: "formats/session-2026-02-10T14-00-b41c7d2e.jsonl",
        format: Format::GeminiCli,
        thinking: &["Run the failing target."],
        output: &["Stdout: FAIL test_parse"],
    },
    Case {
        fixture: "formats/qwen-session.jsonl",
        format: Format::QwenCode,
        thinking: &["Looking for TODO comments first."],
        output: &["handle timeouts"],
    },
    Case {
        fixture: "tasks/saoudrizwan.claude-dev/tasks/1731400000000",
        format: Format::Cline,
        thinking: &["The user wants a flag. Read main.rs first."],
        output: &["test result: ok. 3 passed"],
    },
    Case {
        fixture: "tasks/rooveterinaryinc.roo-cline/tasks/3f6d2a10-8c4b-4e7a-9d21-5b0c7e9f1a42",
        format: Format::RooCode,
        thinking: &["UTC is the fix; a one-line diff.", "Read the test first."],
        output: &["expect(day(d)).toBe(2)", "Found 1 result."],
    },
    Case {
        fixture: "formats/T-7b1e2c3d-4f5a-4b6c-8d7e-9f0a1b2c3d4e.json",
        format: Format::Amp,
        thinking: &["Read the file first."],
        output: &["Config::default()"],
    },
    Case {
        fixture: "opencode/opencode.jsonl",
        format: Format::OpenCode,
        thinking: &["The parser drops the last line."],
        output: &["src/main.rs:3: parse()"],
    },
    Case {
        fixture: "formats/demo.aider.chat.history.md",
        format: Format::Aider,
        thinking: &[],
        output: &["Add file to the chat?"],
    },
];

#[test]
fn a_share_without_thinking_and_tool_output_carries_none_of_their_bytes_in_any_format() {
    for case in CASES {
        let files = fixture_files(case.fixture);
        let corpus = load_chunked(&files, 0);
        assert!(corpus.files.iter().all(|f| f.format == case.format), "{}: {:?}", case.fixture, corpus.files);
        assert!(case.format.share_can_leave_parts_out(), "{}", case.fixture);
        let whole = text_of(&share(&corpus, DropParts::default()));
        for needle in case.thinking.iter().chain(case.output) {
            assert!(whole.contains(needle), "{}: the fixture holds {needle:?}", case.fixture);
        }
        let graph = Graph::build(&corpus);
        let calls = |graph: &Graph| graph.tool_ops.iter().filter(|op| op.call_entry.is_some()).count();

        // Without thinking: none of it, the rest of the conversation read back.
        let bundle = share(&corpus, DropParts { thinking: true, ..DropParts::default() });
        let text = text_of(&bundle);
        for needle in case.thinking {
            assert!(!text.contains(needle), "{}: {needle:?} is in the share without thinking", case.fixture);
        }
        for needle in case.output {
            assert!(text.contains(needle), "{}: {needle:?} stays in a share that keeps tool output", case.fixture);
        }
        let (back, back_graph) = read_back(&bundle);
        assert_eq!(back_graph.sessions.len(), graph.sessions.len(), "{}", case.fixture);
        let thinking_read_back = back
            .entries
            .iter()
            .flat_map(|e| back.blocks_of(e).iter().map(move |b| (e, b)))
            .filter(|(e, b)| b.kind == BlockKind::Thinking && !back.span_bytes(e.file, b.body).is_empty())
            .count();
        assert_eq!(thinking_read_back, 0, "{}: no thinking text is read back", case.fixture);

        // Without tool output: none of it; every call keeps its result (a short text).
        let bundle = share(&corpus, DropParts { tool_results: true, ..DropParts::default() });
        let text = text_of(&bundle);
        for needle in case.output {
            assert!(!text.contains(needle), "{}: {needle:?} is in the share without tool output", case.fixture);
        }
        let (back, back_graph) = read_back(&bundle);
        assert_eq!(back_graph.sessions.len(), graph.sessions.len(), "{}", case.fixture);
        assert_eq!(calls(&back_graph), calls(&graph), "{}: the calls are all there", case.fixture);
        let answered = |g: &Graph| g.tool_ops.iter().filter(|op| op.status != ToolStatus::NoResult).count();
        assert_eq!(answered(&back_graph), answered(&graph), "{}: every result is still paired", case.fixture);
        assert!(
            back.diagnostics.iter().all(|d| d.kind != DiagnosticKind::InvalidJson),
            "{}: {:?}",
            case.fixture,
            back.diagnostics
        );

        // Both, and images and metadata: still a share that reads back.
        let all = DropParts { thinking: true, tool_results: true, images: true, metadata: true, subagents: false };
        let bundle = share(&corpus, all);
        assert!(!bundle.files.is_empty(), "{}", case.fixture);
        assert_eq!(bundle.header.redaction.dropped_parts, ["thinking", "tool results", "images", "metadata"]);
        let text = text_of(&bundle);
        for needle in case.thinking.iter().chain(case.output) {
            assert!(!text.contains(needle), "{}: {needle:?}", case.fixture);
        }
        let (_, back_graph) = read_back(&bundle);
        assert_eq!(back_graph.sessions.len(), graph.sessions.len(), "{}", case.fixture);
    }
}

#[test]
fn metadata_left_out_of_other_formats_takes_their_working_directory_out() {
    for (fixture, cwd) in [
        ("formats/pi-session.jsonl", "/home/dev/projects/brewlog"),
        ("formats/copilot-events.jsonl", "\"gitRoot\""),
        ("formats/rollout-2025-10-02T10-11-12-0199a213-81c0-7800-8aa1-bbab2a035a53.jsonl", "\"cwd\""),
        ("formats/qwen-session.jsonl", "\"cwd\""),
        ("formats/T-7b1e2c3d-4f5a-4b6c-8d7e-9f0a1b2c3d4e.json", "\"env\""),
    ] {
        let corpus = load_chunked(&fixture_files(fixture), 0);
        assert!(text_of(&share(&corpus, DropParts::default())).contains(cwd), "{fixture}");
        let text = text_of(&share(&corpus, DropParts { metadata: true, ..DropParts::default() }));
        assert!(!text.contains(cwd), "{fixture}: {cwd} is in the share without metadata");
    }
}

#[test]
fn an_aider_reply_shared_without_thinking_keeps_its_answer() {
    let history = "# aider chat started at 2026-01-05 10:00:00\n\n#### why is the list empty?  \n\n► **THINKING**\n\nThe loop never runs: brews is moved before.\n\n------------\n► **ANSWER**\n\nThe brews are moved before the loop.\n\n> Tokens: 1.2k sent, 80 received. Cost: $0.01 message, $0.01 session.  \n> Running ls src  \n";
    let corpus = load_one(".aider.chat.history.md", history.as_bytes());
    let parts = DropParts { thinking: true, tool_results: true, ..DropParts::default() };
    let text = text_of(&share(&corpus, parts));
    assert!(!text.contains("The loop never runs"), "{text}");
    assert!(!text.contains("Running ls src"), "{text}");
    assert!(text.contains("The brews are moved before the loop.") && text.contains("> Tokens: 1.2k sent"), "{text}");
    let back = load_one(".aider.chat.history.md", text.as_bytes());
    assert_eq!(Graph::build(&back).sessions.len(), 1);
    assert!(back.responses.iter().any(|r| r.usage.output_tokens == 80), "the token report stays");
}

#[test]
fn formats_whose_thinking_cannot_be_taken_apart_are_still_left_out_whole() {
    let files = fixture_files("formats/ollama-chat.jsonl");
    let corpus = load_chunked(&files, 0);
    assert!(!corpus.files[0].format.share_can_leave_parts_out());
    let bundle = share(&corpus, DropParts { thinking: true, ..DropParts::default() });
    assert!(bundle.files.is_empty());
    assert!(bundle.header.redaction.dropped_lines > 0);
}
