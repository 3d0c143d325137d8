//! The usage tables of the Statistics view and `sessionscope summary`: tokens and cost per
//! model, calls, errors and times per tool, on a hand-written pair of sessions whose figures
//! are worked out here line by line.

use sessionscope_engine::dag::stats::{ModelStats, ToolStats, model_stats, tool_stats};
use sessionscope_engine::dag::{Graph, SessionId};
use sessionscope_engine::model::Usage;
use sessionscope_engine::summary::{ToolSummary, summarize};
use sessionscope_engine::{Corpus, Loader};

/// One line of a log, with the fields every line of these sessions shares.
fn line(session: &str, uuid: &str, parent: Option<&str>, second: Option<u32>, rest: &str) -> String {
    let parent = parent.map_or("null".to_owned(), |p| format!("\"{p}\""));
    let time = second.map_or(String::new(), |s| format!(",\"timestamp\":\"2026-03-01T10:00:{s:02}.000Z\""));
    format!("{{\"sessionId\":\"{session}\",\"uuid\":\"{uuid}\",\"parentUuid\":{parent}{time},{rest}}}\n")
}

fn prompt(text: &str) -> String {
    format!("\"type\":\"user\",\"message\":{{\"role\":\"user\",\"content\":\"{text}\"}}")
}

/// An assistant line of response `id`: its content blocks and its usage (input, output, cache read).
fn answer(id: &str, model: Option<&str>, content: &str, usage: (u64, u64, u64)) -> String {
    let model = model.map_or(String::new(), |m| format!("\"model\":\"{m}\","));
    let (input, output, read) = usage;
    format!(
        "\"type\":\"assistant\",\"requestId\":\"req-{id}\",\"message\":{{{model}\"id\":\"{id}\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[{content}],\"usage\":{{\"input_tokens\":{input},\"output_tokens\":{output},\"cache_read_input_tokens\":{read}}}}}"
    )
}

fn call(id: &str, tool: &str) -> String {
    format!("{{\"type\":\"tool_use\",\"id\":\"{id}\",\"name\":\"{tool}\",\"input\":{{}}}}")
}

fn result(id: &str, text: &str, error: bool) -> String {
    format!(
        "\"type\":\"user\",\"message\":{{\"role\":\"user\",\"content\":[{{\"type\":\"tool_result\",\"tool_use_id\":\"{id}\",\"content\":\"{text}\",\"is_error\":{error}}}]}}"
    )
}

/// Session `one`: Sonnet answers three times (its second response logged in two lines, the
/// second reporting more), calls Bash (2 s), Read (an error, 1 s), Bash again (interrupted,
/// 4 s) and Bash once more (no result); a local model without a price answers once.
/// Session `two`: Opus calls Grep (no timestamps), and a response names no model.
fn corpus() -> Corpus {
    let s = "one";
    let one = [
        line(s, "u1", None, Some(0), &prompt("Run the tests")),
        line(
            s,
            "a1",
            Some("u1"),
            Some(1),
            &answer("msg_1", Some("claude-sonnet-4-5"), &call("t1", "Bash"), (100, 200, 1000)),
        ),
        line(s, "r1", Some("a1"), Some(3), &result("t1", "ok", false)),
        line(
            s,
            "a2",
            Some("r1"),
            Some(4),
            &answer("msg_2", Some("claude-sonnet-4-5"), "{\"type\":\"text\",\"text\":\"Reading.\"}", (10, 1, 0)),
        ),
        line(
            s,
            "a3",
            Some("a2"),
            Some(4),
            &answer("msg_2", Some("claude-sonnet-4-5"), &call("t2", "Read"), (10, 30, 0)),
        ),
        line(s, "r2", Some("a3"), Some(5), &result("t2", "no such file", true)),
        line(s, "a4", Some("r2"), Some(6), &answer("msg_3", Some("local-llama"), &call("t3", "Bash"), (5, 7, 0))),
        line(s, "r3", Some("a4"), Some(10), &result("t3", "[Request interrupted by user for tool use]", true)),
        line(
            s,
            "a5",
            Some("r3"),
            Some(11),
            &answer("msg_4", Some("claude-sonnet-4-5"), &call("t4", "Bash"), (1, 1, 0)),
        ),
    ]
    .concat();
    let s = "two";
    let two = [
        line(s, "v1", None, None, &prompt("Find uses")),
        line(s, "b1", Some("v1"), None, &answer("msg_9", Some("claude-opus-4-1"), &call("t9", "Grep"), (1000, 100, 0))),
        line(s, "w1", Some("b1"), None, &result("t9", "3 matches", false)),
        line(s, "b2", Some("w1"), None, &answer("msg_10", None, "{\"type\":\"text\",\"text\":\"Done.\"}", (2, 3, 0))),
    ]
    .concat();
    Loader::read_all([("one.jsonl", one), ("two.jsonl", two)])
}

fn session_index(graph: &Graph, id: &str) -> SessionId {
    SessionId::new(graph.sessions.iter().position(|s| s.id == id).expect("the session is loaded"))
}

fn usage(input_tokens: u64, output_tokens: u64, cache_read_input_tokens: u64) -> Usage {
    Usage { input_tokens, output_tokens, cache_read_input_tokens, ..Usage::default() }
}

fn close(a: Option<f64>, b: f64) -> bool {
    a.is_some_and(|a| (a - b).abs() < 1e-12)
}

#[test]
fn tokens_and_cost_per_model_count_each_response_once() {
    let corpus = corpus();
    let graph = Graph::build(&corpus);
    let one = model_stats(&corpus, &graph, Some(session_index(&graph, "one")));
    let names: Vec<&str> = one.iter().map(|m| m.model.as_str()).collect();
    assert_eq!(names, ["claude-sonnet-4-5", "local-llama"]);
    let sonnet = &one[0];
    assert_eq!(sonnet.responses, 3);
    assert_eq!(sonnet.usage, usage(100 + 10 + 1, 200 + 30 + 1, 1000));
    // $3 per million input tokens, $15 output, $0.30 cache read.
    assert!(close(sonnet.cost_usd, 111.0 * 3e-6 + 231.0 * 15e-6 + 1000.0 * 0.3e-6), "{:?}", sonnet.cost_usd);
    assert_eq!(one[1], ModelStats { model: "local-llama".into(), responses: 1, usage: usage(5, 7, 0), cost_usd: None });

    let all = model_stats(&corpus, &graph, None);
    let names: Vec<&str> = all.iter().map(|m| m.model.as_str()).collect();
    assert_eq!(names, ["(unknown)", "claude-opus-4-1", "claude-sonnet-4-5", "local-llama"]);
    assert_eq!(all[0], ModelStats { model: "(unknown)".into(), responses: 1, usage: usage(2, 3, 0), cost_usd: None });
    assert_eq!(all[1].usage, usage(1000, 100, 0));
    assert!(close(all[1].cost_usd, 1000.0 * 15e-6 + 100.0 * 75e-6), "{:?}", all[1].cost_usd);
    assert_eq!(all[2], *sonnet);
}

#[test]
fn calls_errors_interruptions_and_times_per_tool() {
    let corpus = corpus();
    let graph = Graph::build(&corpus);
    let one = tool_stats(&corpus, &graph, Some(session_index(&graph, "one")));
    let bash =
        ToolStats { tool: "Bash".into(), calls: 3, errors: 0, interrupted: 1, timed_calls: 2, total_ms: 2000 + 4000 };
    let read = ToolStats { tool: "Read".into(), calls: 1, errors: 1, interrupted: 0, timed_calls: 1, total_ms: 1000 };
    assert_eq!(one, [bash.clone(), read.clone()]);
    assert_eq!(bash.average_ms(), Some(3000));
    assert_eq!(bash.error_percent(), 0.0);
    assert_eq!(read.error_percent(), 100.0);

    let all = tool_stats(&corpus, &graph, None);
    let grep = ToolStats { tool: "Grep".into(), calls: 1, ..ToolStats::default() };
    assert_eq!(all, [bash, grep.clone(), read]);
    assert_eq!(grep.average_ms(), None, "a call without timestamps has no duration");
}

#[test]
fn the_summary_carries_the_tables_of_everything_loaded() {
    let corpus = corpus();
    let graph = Graph::build(&corpus);
    let summary = summarize(&corpus, &graph);
    let models: Vec<(&str, u32, Option<f64>)> =
        summary.per_model.iter().map(|m| (m.model.as_str(), m.responses, m.cost_usd)).collect();
    assert_eq!(
        models,
        [
            ("(unknown)", 1, None),
            ("claude-opus-4-1", 1, Some(0.0225)),
            ("claude-sonnet-4-5", 3, Some(0.004098)),
            ("local-llama", 1, None)
        ]
    );
    assert_eq!(summary.per_model[2].usage.output_tokens, 231);
    let tool = |tool: &str, calls, errors, interrupted, timed_calls, average_ms| ToolSummary {
        tool: tool.into(),
        calls,
        errors,
        interrupted,
        timed_calls,
        average_ms,
    };
    assert_eq!(
        summary.per_tool,
        [tool("Bash", 3, 0, 1, 2, Some(3000)), tool("Grep", 1, 0, 0, 0, None), tool("Read", 1, 1, 0, 1, Some(1000))]
    );
    let json = serde_json::to_value(&summary).expect("the summary is JSON");
    assert_eq!(json["per_model"][1]["model"], "claude-opus-4-1");
    assert_eq!(json["per_tool"][0]["average_ms"], 3000);
    assert!(json["per_model"][0]["cost_usd"].is_null());
}
