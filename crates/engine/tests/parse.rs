//! The parser on hand-written fixtures for each edge case, on the real logs, and on synthetic
//! broken sessions: what each line becomes, and that every line is accounted for.

mod common;

use common::*;
use sessionscope_engine::dump::dump_corpus;
use sessionscope_engine::model::*;
use sessionscope_engine::{Corpus, Loader};

fn entry<'a>(corpus: &'a Corpus, uuid: &str) -> &'a Entry {
    corpus.entries.iter().find(|e| corpus.entry_uuid(e) == uuid).unwrap_or_else(|| panic!("no entry {uuid}"))
}

fn u(n: u64) -> String {
    format!("00000000-0000-4000-8000-{n:012}")
}

fn diagnostics(corpus: &Corpus) -> Vec<(u32, DiagnosticKind)> {
    corpus.diagnostics.iter().map(|d| (d.line, d.kind)).collect()
}

fn assert_accounted(corpus: &Corpus, files: &[(String, Vec<u8>)]) {
    for (info, (_, bytes)) in corpus.files.iter().zip(files) {
        let c = info.counts;
        assert!(c.balanced(), "{}: {c:?} does not add up", info.path);
        if info.format != Format::AgentMeta {
            assert_eq!(c.lines, count_lines(bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes)), "{}", info.path);
        }
        // Every skipped or ignored line has its diagnostic.
        let file = corpus.files.iter().position(|f| std::ptr::eq(f, info)).unwrap() as FileId;
        let line_diagnostics = corpus
            .diagnostics
            .iter()
            .filter(|d| d.file == file && d.line > 0 && d.kind.severity() != Severity::Warning)
            .count() as u64;
        let file_diagnostics = corpus.diagnostics.iter().filter(|d| d.file == file && d.line == 0).count();
        if file_diagnostics == 0 {
            assert_eq!(line_diagnostics, c.skipped + c.ignored, "{}", info.path);
        }
    }
}

#[test]
fn hand_written_fixtures_match_their_snapshots() {
    for name in fixture_names() {
        let bytes = fixture(&name);
        let files = vec![(name.clone(), bytes)];
        let corpus = load_chunked(&files, 0);
        assert_accounted(&corpus, &files);
        insta::assert_snapshot!(format!("fixture-{name}"), dump_corpus(&corpus));
    }
}

#[test]
fn real_logs_match_their_snapshots() {
    let Some(real) = real_fixtures("real_logs_match_their_snapshots") else { return };
    for (name, dir) in real.folders() {
        let files = read_folder(&dir);
        let corpus = load_chunked(&files, 0);
        assert_accounted(&corpus, &files);
        assert!(
            corpus.diagnostics.iter().all(|d| d.kind.severity() != Severity::Error),
            "{name}: {:?}",
            corpus.diagnostics
        );
        insta::assert_snapshot!(format!("real-{name}"), dump_corpus(&corpus));
    }
}

#[test]
fn every_line_type_and_block_is_understood() {
    let corpus = load_one("every-line-type.jsonl", &fixture("every-line-type.jsonl"));
    assert!(corpus.diagnostics.is_empty(), "{:?}", corpus.diagnostics);

    // One API response split over six lines is one response; its usage is the largest line's.
    let first = entry(&corpus, &u(3));
    let response = &corpus.responses[first.response.index()];
    assert_eq!(response.lines, 6);
    assert_eq!(response.usage.output_tokens, 240);
    assert_eq!(response.usage.cache_creation_5m, 1000);
    assert_eq!(response.usage.web_search_requests, 1);
    for n in 3..=8 {
        assert_eq!(entry(&corpus, &u(n)).response, first.response);
    }

    let blocks = |n| corpus.blocks_of(entry(&corpus, &u(n))).to_vec();
    assert_eq!(blocks(3)[0].kind, BlockKind::Thinking);
    assert_eq!(blocks(3)[0].flags & Block::SIGNATURE_ONLY, 0);
    assert_ne!(blocks(4)[0].flags & Block::SIGNATURE_ONLY, 0, "empty thinking with only a signature");
    assert_eq!(blocks(5)[0].kind, BlockKind::RedactedThinking);
    let kinds: Vec<BlockKind> = blocks(8).iter().map(|b| b.kind).collect();
    assert_eq!(kinds, [BlockKind::ServerToolUse, BlockKind::ServerToolResult, BlockKind::Unknown]);
    assert_eq!(corpus.sym(blocks(8)[2].name), "mystery_block");

    let calls = blocks(7);
    assert_eq!(calls.len(), 2, "parallel tool calls in one line");
    assert_eq!(corpus.sym(calls[1].name), "Bash");
    let input = corpus.span_text(entry(&corpus, &u(7)).file, calls[1].body);
    assert!(input.contains("\"command\":\"cargo test\""), "{input}");

    let result = entry(&corpus, &u(11));
    assert!(result.flags.has(EntryFlags::TOOL_ERROR));
    assert!(corpus.span_text(result.file, result.tool_use_result).contains("exit code 101"));
    let image = blocks(12)[1];
    assert_eq!((image.kind, corpus.sym(image.name)), (BlockKind::Image, "image/png"));
    assert_eq!(blocks(12)[2].kind, BlockKind::Document);

    // Strings with escapes are decoded when read, never stored decoded.
    let prompt = entry(&corpus, &u(2));
    assert!(prompt.flags.has(EntryFlags::STRING_CONTENT));
    assert_eq!(
        corpus.first_text(prompt).unwrap(),
        "Show me every block type.\nSecond line with \"quotes\" and a tab\there."
    );
    assert!(!prompt.content.is_arena(), "the span points into the file");

    let envelope = corpus.envelope(prompt);
    assert_eq!(corpus.sym(envelope.cwd), "/home/dev/projects/fixture");
    assert_eq!(corpus.sym(envelope.version), "2.1.50");
    assert_eq!(corpus.sym(envelope.git_branch), "main");
    assert_eq!(corpus.sym(envelope.slug), "brave-fixture-otter");
    assert_eq!(corpus.sym(envelope.entrypoint), "cli");
    assert_eq!(corpus.sym(envelope.permission_mode), "default");
    let details = corpus.entry_details(prompt);
    assert_eq!(details.prompt_id.as_deref(), Some("prompt-1"));
    assert_eq!(details.todos, Some(0));
    assert_eq!(details.thinking_level.as_deref(), Some("high"));

    let progress = entry(&corpus, &u(17));
    assert_eq!(corpus.sym(progress.subtype), "agent_progress");
    assert_eq!(corpus.sym(progress.linked_agent_id), "afx0001");
    assert_eq!(corpus.span_str(progress.file, progress.parent_tool_use_id), "toolu_fx_task");
    assert_eq!(corpus.entry_details(entry(&corpus, &u(1))).hook_event.as_deref(), Some("SessionStart"));

    let api_error = entry(&corpus, &u(15));
    assert!(api_error.flags.has(EntryFlags::ERROR));
    assert_eq!(corpus.entry_details(api_error).retry, Some((1, 10)));
    assert!(entry(&corpus, &u(16)).flags.has(EntryFlags::API_ERROR));
    assert!(entry(&corpus, &u(14)).flags.has(EntryFlags::META));
    assert_eq!(corpus.sym(entry(&corpus, &u(13)).subtype), "todo_reminder");

    let boundary = entry(&corpus, &u(19));
    assert_eq!(corpus.entry_parent_uuid(boundary), None);
    assert_eq!(corpus.span_str(boundary.file, boundary.logical_parent_uuid), u(18));
    let compaction = &corpus.compactions[0];
    assert_eq!((corpus.sym(compaction.trigger), compaction.pre_tokens), ("manual", 123456));
    assert_eq!(corpus.span_str(boundary.file, compaction.preserved_anchor), u(20));
    assert!(entry(&corpus, &u(20)).flags.has(EntryFlags::COMPACT_SUMMARY | EntryFlags::TRANSCRIPT_ONLY));
    assert_eq!(corpus.entry_details(entry(&corpus, &u(21))).duration_ms, Some(601000));

    // Unknown types and subtypes pass through, keep their place in the DAG, and are counted.
    assert_eq!(corpus.sym(entry(&corpus, &u(22)).subtype), "brand_new_subtype");
    let hologram = entry(&corpus, &u(23));
    assert_eq!((hologram.kind, corpus.sym(hologram.type_name)), (EntryKind::Other, "hologram"));
    assert_eq!(corpus.entry_parent_uuid(hologram), Some(u(22).as_str()));
    let count = |name: &str| corpus.type_counts.iter().find(|(s, _)| corpus.sym(*s) == name).map(|c| c.1);
    assert_eq!(count("hologram"), Some(1));
    assert_eq!(count("future-metadata"), Some(1));
    assert_eq!(count("queue-operation"), Some(2));

    let metas: Vec<&str> = corpus.metas.iter().map(|m| corpus.sym(m.type_name)).collect();
    assert_eq!(
        metas,
        [
            "file-history-snapshot",
            "queue-operation",
            "queue-operation",
            "custom-title",
            "ai-title",
            "agent-name",
            "agent-color",
            "permission-mode",
            "last-prompt",
            "pr-link",
            "summary",
            "future-metadata"
        ]
    );
    let text_of = |name: &str| {
        let m = corpus.metas.iter().find(|m| corpus.sym(m.type_name) == name).unwrap();
        corpus.span_text(m.file, m.text).into_owned()
    };
    assert_eq!(text_of("custom-title"), "Every block type");
    assert_eq!(text_of("ai-title"), "Showing all blocks");
    assert_eq!(text_of("queue-operation"), "also check\nthe docs");
    let summary = corpus.metas.iter().find(|m| corpus.sym(m.type_name) == "summary").unwrap();
    assert_eq!(corpus.span_str(summary.file, summary.target_uuid), u(22));
}

#[test]
fn bom_crlf_blank_lines_and_a_truncated_last_line() {
    let name = "bom-crlf-blank-truncated.jsonl";
    let bytes = fixture(name);
    let files = vec![(name.to_owned(), bytes)];
    let corpus = load_chunked(&files, 0);
    assert_accounted(&corpus, &files);
    assert_eq!(
        diagnostics(&corpus),
        [(2, DiagnosticKind::BlankLine), (4, DiagnosticKind::BlankLine), (6, DiagnosticKind::TruncatedLine)]
    );
    assert_eq!(corpus.entries.len(), 3);
    let first = &corpus.entries[0];
    assert_eq!(corpus.entry_uuid(first), u(101), "the BOM is not part of the first line");
    assert_eq!(corpus.first_text(first).unwrap(), "Line endings are CRLF here.");
    assert!(!corpus.line_bytes(first).ends_with(b"\r"), "CR is not part of the line");
    let counts = corpus.files[0].counts;
    assert_eq!((counts.lines, counts.entries, counts.skipped, counts.ignored), (6, 3, 1, 2));
}

#[test]
fn broken_lines_become_diagnostics_and_the_rest_still_loads() {
    let name = "broken-lines.jsonl";
    let files = vec![(name.to_owned(), fixture(name))];
    let corpus = load_chunked(&files, 0);
    assert_accounted(&corpus, &files);
    assert_eq!(
        diagnostics(&corpus),
        [
            (2, DiagnosticKind::InvalidJson),
            (3, DiagnosticKind::NotAnObject),
            (4, DiagnosticKind::NotAnObject),
            (5, DiagnosticKind::MissingUuid),
            (6, DiagnosticKind::DuplicateUuid),
            (11, DiagnosticKind::InvalidUtf8),
            (12, DiagnosticKind::LoneSurrogate),
        ]
    );
    let messages: Vec<&str> = corpus.diagnostics.iter().map(|d| d.message.as_str()).collect();
    assert!(messages[0].starts_with("invalid JSON at column"), "{}", messages[0]);
    assert!(messages[1].contains("JSON array"));
    assert!(messages[2].contains("JSON string"));
    assert!(messages[4].contains("already read at line 1"), "{}", messages[4]);
    assert_eq!(corpus.entries.len(), 7);
    let first = entry(&corpus, &u(201));
    assert_eq!(corpus.first_text(first).unwrap(), "first good line", "the first occurrence is kept");

    // Wrongly typed fields are read leniently; non-object blocks become unknown blocks.
    let odd = entry(&corpus, &u(203));
    assert!(odd.flags.has(EntryFlags::SIDECHAIN) && odd.flags.has(EntryFlags::META));
    assert_eq!(odd.nesting_level, 2);
    let kinds: Vec<BlockKind> = corpus.blocks_of(odd).iter().map(|b| b.kind).collect();
    assert_eq!(kinds, [BlockKind::Text, BlockKind::Unknown, BlockKind::Unknown]);

    let no_time = entry(&corpus, &u(204));
    assert!(!no_time.has_timestamp());
    assert!(no_time.flags.has(EntryFlags::LEGACY_MESSAGE));
    assert_eq!(corpus.first_text(no_time).unwrap(), "a plain string message");

    let latin = entry(&corpus, &u(206));
    assert_eq!(corpus.first_text(latin).unwrap(), "caf?? latin-1");
    let surrogate = entry(&corpus, &u(207));
    assert_eq!(corpus.first_text(surrogate).unwrap(), "lone \u{FFFD} surrogate");
}

#[test]
fn the_older_shapes_of_the_seed_documents_are_understood() {
    let corpus = load_one("seed-inline-sidechains.jsonl", &fixture("seed-inline-sidechains.jsonl"));
    assert!(corpus.diagnostics.is_empty(), "{:?}", corpus.diagnostics);
    let prompt = entry(&corpus, "1");
    assert!(prompt.flags.has(EntryFlags::LEGACY_MESSAGE | EntryFlags::STRING_CONTENT));
    assert_eq!(corpus.first_text(prompt).unwrap(), "Can you review my Python code for bugs?");

    let task = entry(&corpus, "task-1");
    assert!(task.flags.has(EntryFlags::LEGACY_TOOL_CALL | EntryFlags::HAS_TOOL_USE));
    let call = corpus.blocks_of(task)[0];
    assert_eq!((call.kind, corpus.sym(call.name)), (BlockKind::ToolUse, "Task"));
    assert!(corpus.span_text(task.file, call.body).contains("\"subagent_type\":\"bug-hunter\""));

    let sidechain = entry(&corpus, "3");
    assert!(sidechain.is_sidechain());
    assert_eq!(entry(&corpus, "sc2-1").nesting_level, 2);
    assert!(entry(&corpus, "sc2-2").flags.has(EntryFlags::ERROR));
    assert!(entry(&corpus, "7b").flags.has(EntryFlags::DELETED), "deleted entries are kept, flagged");
    assert_eq!(corpus.first_text(entry(&corpus, "6")).unwrap(), "File contents: def main(): pass");
}

#[test]
fn extracted_tool_messages_with_snake_case_fields_are_understood() {
    let corpus = load_one("seed-extracted-tool-messages.jsonl", &fixture("seed-extracted-tool-messages.jsonl"));
    assert!(corpus.diagnostics.is_empty(), "{:?}", corpus.diagnostics);
    let user = entry(&corpus, "user-msg-123");
    assert!(user.flags.has(EntryFlags::SNAKE_CASE));
    assert_eq!(corpus.sym(user.session_id), "f1x70000-0000-4000-8000-000000000005");
    let reply = entry(&corpus, "assistant-msg-456");
    assert_eq!(corpus.entry_parent_uuid(reply), Some("user-msg-123"));
    assert_eq!(corpus.sym(reply.model), "claude-opus-4-1-20250805");
    assert_eq!(corpus.responses[reply.response.index()].logged_cost_usd, Some(0.0123));

    let call = entry(&corpus, "assistant-msg-789_tool_0");
    assert_eq!(call.kind, EntryKind::ToolUse);
    assert!(call.is_sidechain(), "kept as written; the DAG reads it as auxiliary, not as a subagent");
    let block = corpus.blocks_of(call)[0];
    assert_eq!((block.kind, corpus.sym(block.name)), (BlockKind::ToolUse, "Read"));
    assert_eq!(corpus.span_str(call.file, block.id), "assistant-msg-789_tool_0");
    assert!(corpus.entry_details(call).message_data.unwrap().contains("tool-call-001"));

    let result = entry(&corpus, "assistant-msg-789_result_0");
    let block = corpus.blocks_of(result)[0];
    assert_eq!(block.kind, BlockKind::ToolResult);
    assert_eq!(corpus.span_str(result.file, block.id), "assistant-msg-789_tool_0", "pairs with its tool_use message");
    assert!(corpus.span_text(result.file, block.body).contains("\"port\": 3000"));
}

#[test]
fn files_that_are_not_session_logs_get_one_clear_message() {
    let cases: [(&str, &[u8], &str); 9] = [
        ("page.html", b"<!doctype html>\n<html><body>hi</body></html>\n", "HTML"),
        ("archive.jsonl.gz", b"\x1f\x8b\x08\x00\x00\x00\x00\x00", "gzip"),
        ("data.bin", b"\x00\x01\x02{\n\x00\x00\n", "binary"),
        ("array.json", b"[{\"type\":\"user\"}]\n", "JSON array"),
        ("pretty.json", b"{\n  \"type\": \"user\",\n  \"uuid\": \"x\"\n}\n", "one JSON document"),
        ("notes.txt", b"hello\nworld\n", "plain text"),
        (
            "rollout-2025-01-01.jsonl",
            b"{\"timestamp\":\"2025-01-01T00:00:00Z\",\"type\":\"session_meta\",\"payload\":{\"id\":\"x\"}}\n",
            "Codex",
        ),
        (
            "other.jsonl",
            b"{\"level\":\"info\",\"msg\":\"started\"}\n{\"level\":\"info\",\"msg\":\"stopped\"}\n",
            "keys: level, msg",
        ),
        ("empty.jsonl", b"", "empty"),
    ];
    for (name, bytes, says) in cases {
        for chunk in [0, 1, 5] {
            let files = vec![(name.to_owned(), bytes.to_vec())];
            let corpus = load_chunked(&files, chunk);
            assert_eq!(corpus.diagnostics.len(), 1, "{name}: {:?}", corpus.diagnostics);
            let diagnostic = &corpus.diagnostics[0];
            assert_eq!(diagnostic.line, 0, "{name}: a message about the file, not about a line");
            assert!(diagnostic.message.contains(says), "{name}: {}", diagnostic.message);
            assert!(corpus.entries.is_empty());
            let counts = corpus.files[0].counts;
            assert_eq!(counts.lines, count_lines(bytes), "{name}");
            assert!(counts.balanced(), "{name}: {counts:?}");
        }
    }
}

#[test]
fn a_20_mb_line_loads_in_small_chunks() {
    let big = "x".repeat(20 << 20);
    let line = format!(
        "{{\"parentUuid\":null,\"type\":\"user\",\"uuid\":\"big-1\",\"sessionId\":\"s\",\"message\":{{\"role\":\"user\",\"content\":[{{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_big\",\"content\":\"{big}\"}}]}},\"toolUseResult\":{{\"stdout\":\"{big}\"}}}}\n{{\"parentUuid\":\"big-1\",\"type\":\"user\",\"uuid\":\"big-2\",\"sessionId\":\"s\",\"message\":{{\"role\":\"user\",\"content\":\"after\"}}}}\n"
    );
    let files = vec![("big.jsonl".to_owned(), line.into_bytes())];
    let corpus = load_chunked(&files, 1 << 20);
    assert!(corpus.diagnostics.is_empty(), "{:?}", corpus.diagnostics);
    let first = entry(&corpus, "big-1");
    assert_eq!(corpus.blocks_of(first)[0].body.len(), (20 << 20) + 2);
    assert_eq!(first.tool_use_result.len(), (20 << 20) + 13);
    assert_eq!(corpus.first_text(entry(&corpus, "big-2")).unwrap(), "after");
    assert!(corpus.model_heap_bytes() < 64 * 1024, "nothing of the big line is copied");
}

#[test]
fn synthetic_broken_sessions_report_exactly_what_was_planted() {
    let session = sessionscope_synth::generate(&sessionscope_synth::SynthOptions {
        target_bytes: 2 << 20,
        seed: 11,
        agents: false,
        broken: true,
    });
    let files = vec![(session.main_file_name(), session.main.clone())];
    let corpus = load_chunked(&files, 4096);
    assert_accounted(&corpus, &files);
    use sessionscope_synth::kinds;
    let mut expected: Vec<(u32, DiagnosticKind)> = session
        .planted
        .iter()
        .filter_map(|&(line, kind)| {
            let diagnostic = match kind {
                kinds::INVALID_JSON => DiagnosticKind::InvalidJson,
                kinds::NOT_OBJECT => DiagnosticKind::NotAnObject,
                kinds::MISSING_UUID => DiagnosticKind::MissingUuid,
                kinds::DUPLICATE_UUID => DiagnosticKind::DuplicateUuid,
                kinds::BLANK_LINE => DiagnosticKind::BlankLine,
                kinds::INVALID_UTF8 => DiagnosticKind::InvalidUtf8,
                kinds::TRUNCATED_LAST_LINE => DiagnosticKind::TruncatedLine,
                // CRLF endings and the BOM are read without complaint.
                _ => return None,
            };
            Some((line, diagnostic))
        })
        .collect();
    expected.sort();
    let mut found = diagnostics(&corpus);
    found.sort();
    assert_eq!(found, expected);
    for line in &session.lone_surrogate_lines {
        assert!(corpus.entries.iter().any(|e| e.line == *line), "line {line} with a lone surrogate loads");
    }
}

#[test]
fn a_file_is_read_the_same_whatever_the_order_of_other_files() {
    let a = ("a.jsonl".to_owned(), fixture("every-line-type.jsonl"));
    let b = ("b.jsonl".to_owned(), fixture("broken-lines.jsonl"));
    let mut loader = Loader::new();
    // Interleaved reading of two files.
    let ia = loader.add_file(&a.0, a.1.len() as u64);
    let ib = loader.add_file(&b.0, b.1.len() as u64);
    let mut pa = a.1.chunks(100);
    let mut pb = b.1.chunks(37);
    loop {
        let (x, y) = (pa.next(), pb.next());
        if x.is_none() && y.is_none() {
            break;
        }
        if let Some(x) = x {
            loader.push(ia, x);
        }
        if let Some(y) = y {
            loader.push(ib, y);
        }
    }
    loader.finish_file(ia);
    loader.finish_file(ib);
    let interleaved = loader.finish();
    let sequential = load_chunked(&[a, b], 0);
    assert_eq!(dump_corpus(&interleaved), dump_corpus(&sequential));
}
