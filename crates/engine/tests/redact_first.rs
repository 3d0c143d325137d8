//! Redaction runs on whole texts before anything is cut, and keeps the ids the log names
//! (issue 51). A hand-written history holds a Claude Code session and an OpenCode one (its id a
//! random-looking `ses_…`, as OpenCode's are) with planted secrets: an AWS access key id and
//! secret key, a GitHub token, a 40-character bearer token, a password in a postgres connection
//! string, an e-mail address and a user name in a home path. Each is planted with words beside
//! it at the start of a long text, in its middle and at its end, at distances where a search
//! snippet's window (60 characters each side) cuts through the secret; across a title's cut
//! (100 characters), a tool summary's (120) and a tool output's (1,000).
//!
//! Over MCP `search` (for every word beside a secret), `list_sessions`, `read_session` and the
//! resources, and the command line's `share` (its table, `--link` and `--markdown`) and `open`
//! (the HTML file, and the share it embeds, read back as the page reads it): no piece of 6 or
//! more characters of any secret appears, each search still finds its word, and the sessions'
//! ids and resume commands appear whole.

mod common;

use std::path::{Path, PathBuf};

use common::TempDir;
use common::mcp::Server;
use serde_json::{Value, json};
use sessionscope_engine::share::Bundle;
use sessionscope_engine::share::envelope::{from_base64url, open, unpack};
use sessionscope_engine::share::markdown::{MarkdownOptions, files_markdown};

const AWS_KEY_ID: &str = "AKIAQ3EGUVL7XB2RT6NW";
const AWS_SECRET: &str = "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";
const GITHUB_TOKEN: &str = "ghp_R7mQ2xL9vK4tW8nB3cY6dF1hJ5sA0zE2uPqV";
const BEARER: &str = "eyX7Kq2Lm9Pz4Rt8Vw3Yb6Nc1Kd5Hj0GfQs2Ua7b";
const PG_PASSWORD: &str = "Tr0ub4dor-Pg7Zx9";
const EMAIL: &str = "marguerite.okonkwo@northwind-labs.io";
const USER: &str = "ravindra";

/// A Claude Code session's id (a uuid) and an OpenCode one (random-looking).
const CLAUDE_ID: &str = "7c1e5a2b-93d4-4f6e-8a1b-2c3d4e5f6a7b";
const OPENCODE_ID: &str = "ses_3f9a1c7e2ffeKq8Lm2Xv5Rb7Tz";
const OPENCODE_DIR: &str = "/workspace/shop";

/// Characters of context a search snippet shows on each side of its match.
const SNIPPET_CONTEXT: usize = 60;

/// A secret with the text it is recognised by around it.
struct Planted {
    secret: &'static str,
    before: &'static str,
    after: &'static str,
}

const PLANTED: [Planted; 7] = [
    Planted { secret: AWS_KEY_ID, before: "AWS_ACCESS_KEY_ID=", after: "" },
    Planted { secret: AWS_SECRET, before: "aws_secret_access_key = ", after: "" },
    Planted { secret: GITHUB_TOKEN, before: "the token ", after: "" },
    Planted { secret: BEARER, before: "Authorization: Bearer ", after: "" },
    Planted { secret: PG_PASSWORD, before: "postgres://app:", after: "@db.internal:5432/shop" },
    Planted { secret: EMAIL, before: "write to ", after: "" },
    Planted { secret: USER, before: "/home/", after: "/kettle/notes.txt" },
];

/// Where in a text a secret is planted.
const PLACES: [&str; 3] = ["start", "middle", "end"];

/// The word planted before (`"before"`) or after a secret in a place: what a search looks for.
fn word(side: &str, place: &str, secret: usize) -> String {
    format!("{side}{place}{secret}kiwi")
}

/// Plain words, `chars` characters of them between two spaces.
fn filler(chars: usize) -> String {
    let words = "and then the pot and the cups went back on the shelf by the window ".repeat(chars / 40 + 2);
    let inner: String = words.chars().take(chars.saturating_sub(2)).collect();
    format!(" {inner} ")
}

/// Prose that goes on for `chars` characters, ending with a space.
fn prose(chars: usize) -> String {
    let text = "The kettle was cold this morning, so we read the logs again. ".repeat(chars / 50 + 1);
    let mut text: String = text.chars().take(chars).collect();
    text.push(' ');
    text
}

/// The gap, in characters, between a word and a secret at which a snippet's window around the
/// word ends (or starts) inside the secret: halfway through it, and past its 7th character (a
/// cut before the redaction would show 7 or more of its characters).
fn gap(secret: &str) -> usize {
    let chars = secret.chars().count();
    SNIPPET_CONTEXT - (chars / 2).max(7).min(chars - 1)
}

/// A text holding `planted` at `place`, with the words beside it where a snippet around them
/// cuts through it.
fn planted_text(index: usize, planted: &Planted, place: &str) -> String {
    let secret = format!("{}{}{}", planted.before, planted.secret, planted.after);
    let gap = gap(planted.secret);
    let before = format!("{}{}", word("before", place, index), filler(gap - planted.before.len()));
    let after = format!("{}{}", filler(gap - planted.after.len()), word("after", place, index));
    match place {
        "start" => format!("{secret}{after} {}", prose(400)),
        "end" => format!("{}{before}{secret}", prose(400)),
        _ => format!("{}{before}{secret}{after} {}", prose(300), prose(300)),
    }
}

/// Every planted text of secrets `which`, one per place.
fn planted_texts(which: std::ops::Range<usize>) -> Vec<String> {
    which.flat_map(|i| PLACES.iter().map(move |place| planted_text(i, &PLANTED[i], place))).collect()
}

/// One Claude Code line of the session.
fn claude_line(kind: &str, uuid: &str, parent: Option<&str>, second: u32, message: Value) -> String {
    json!({
        "type": kind, "sessionId": CLAUDE_ID, "cwd": format!("/home/{USER}/kettle"), "uuid": uuid,
        "parentUuid": parent, "timestamp": format!("2026-05-04T10:00:{second:02}.000Z"), "message": message,
        "requestId": "req_011CVqUu7tPz3Xv9LmB2Kd4R",
    })
    .to_string()
}

/// The Claude Code session: a prompt whose first line is cut inside the GitHub token for its
/// title; a Bash call whose summary is cut inside the bearer token; an output cut inside the AWS
/// secret key; the secrets planted in the prompt, the output and the answer.
fn claude_session() -> String {
    let title_line = format!("{}the token {GITHUB_TOKEN} is in the vault", prose(70));
    let prompt = format!("{title_line}\n{}", planted_texts(0..4).join("\n\n"));
    let command = format!(
        "curl -s https://api.kettle.internal/v1/deploy --data mode=full{}-H 'Authorization: Bearer {BEARER}' -o out.json",
        filler(22)
    );
    let lines: String = (0..25).map(|n| format!("step {n:02}: ok, the kettle heats up\n")).collect();
    let output = format!(
        "{lines}{}aws_secret_access_key = {AWS_SECRET}\nand so the deploy went on\n{}",
        " ".repeat(1000 - 24 - 8 - lines.chars().count()),
        planted_texts(4..7).join("\n\n")
    );
    let call = "toolu_01Kq8Lm2Xv5Rb7TzW3Yc9Nd4";
    [
        claude_line("user", "u-1", None, 0, json!({"role": "user", "content": prompt})),
        claude_line(
            "assistant",
            "a-1",
            Some("u-1"),
            2,
            json!({"id": "msg_01Kq8Lm2Xv5Rb7TzW3Yc9Nd4Pf", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
                "content": [{"type": "tool_use", "id": call, "name": "Bash", "input": {"command": command}}],
                "usage": {"input_tokens": 100, "output_tokens": 20}}),
        ),
        claude_line(
            "user",
            "r-1",
            Some("a-1"),
            3,
            json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": call, "content": output}]}),
        ),
        claude_line(
            "assistant",
            "a-2",
            Some("r-1"),
            5,
            json!({"id": "msg_01Kq8Lm2Xv5Rb7TzW3Yc9Nd5Pg", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
                "content": [{"type": "text", "text": format!("Done. {}", planted_texts(0..7).join("\n\n"))}],
                "usage": {"input_tokens": 300, "output_tokens": 40}}),
        ),
    ]
    .join("\n")
        + "\n"
}

/// Writes one JSON record of OpenCode's storage.
fn write_record(storage: &Path, path: &str, record: Value) {
    let path = storage.join(path);
    std::fs::create_dir_all(path.parent().expect("a folder")).expect("a folder");
    std::fs::write(path, serde_json::to_vec_pretty(&record).expect("JSON")).expect("written");
}

/// The OpenCode session, in OpenCode's storage layout: the user's text holds the secrets, the
/// answer names the session's id in the command that resumes it.
fn write_opencode(storage: &Path) {
    let (user, answer) = ("msg_c41b7e9d2001Xq8Lm2Vb5Nc7Kd", "msg_c41b7e9d3002Zr4Tw8Yb1Hj6Gf");
    write_record(
        storage,
        &format!("session/prj_7d2c9e1f/{OPENCODE_ID}.json"),
        json!({"id": OPENCODE_ID, "slug": "calm-otter", "version": "1.0.20", "projectID": "prj_7d2c9e1f",
            "directory": OPENCODE_DIR, "title": "Rotate the shop's database password",
            "time": {"created": 1_777_000_000_000_i64, "updated": 1_777_000_009_000_i64}}),
    );
    write_record(
        storage,
        &format!("message/{OPENCODE_ID}/{user}.json"),
        json!({"id": user, "sessionID": OPENCODE_ID, "role": "user", "time": {"created": 1_777_000_001_000_i64},
            "agent": "build", "model": {"providerID": "anthropic", "modelID": "claude-sonnet-4-20250514"}}),
    );
    write_record(
        storage,
        &format!("part/{user}/prt_c41b7e9d2001Ab3Cd5Ef7Gh9.json"),
        json!({"id": "prt_c41b7e9d2001Ab3Cd5Ef7Gh9", "messageID": user, "sessionID": OPENCODE_ID, "type": "text",
            "text": planted_texts(0..7).join("\n\n")}),
    );
    write_record(
        storage,
        &format!("message/{OPENCODE_ID}/{answer}.json"),
        json!({"id": answer, "sessionID": OPENCODE_ID, "role": "assistant",
            "time": {"created": 1_777_000_002_000_i64, "completed": 1_777_000_003_000_i64},
            "parentID": user, "modelID": "claude-sonnet-4-20250514", "providerID": "anthropic", "mode": "build",
            "path": {"cwd": OPENCODE_DIR, "root": OPENCODE_DIR}, "cost": 0.01,
            "tokens": {"input": 30, "output": 80, "reasoning": 0, "cache": {"read": 0, "write": 0}}, "finish": "stop"}),
    );
    write_record(
        storage,
        &format!("part/{answer}/prt_c41b7e9d3002Kq8Lm2Xv5Rb7.json"),
        json!({"id": "prt_c41b7e9d3002Kq8Lm2Xv5Rb7", "messageID": answer, "sessionID": OPENCODE_ID, "type": "text",
            "text": format!("Rotated. Take it up again with opencode --session {OPENCODE_ID} from {OPENCODE_DIR}.")}),
    );
}

/// The history: Claude Code's `projects/` and OpenCode's `storage/`.
fn write_history(root: &Path) -> (PathBuf, PathBuf) {
    let projects = root.join("projects");
    let folder = projects.join(format!("-home-{USER}-kettle"));
    std::fs::create_dir_all(&folder).expect("a project folder");
    std::fs::write(folder.join(format!("{CLAUDE_ID}.jsonl")), claude_session()).expect("written");
    let storage = root.join("storage");
    write_opencode(&storage);
    (projects, storage)
}

/// Panics if `text` holds a piece of 6 or more characters of a planted secret.
fn assert_no_secret(text: &str, what: &str) {
    for planted in &PLANTED {
        let chars: Vec<char> = planted.secret.chars().collect();
        for piece in chars.windows(6) {
            let piece: String = piece.iter().collect();
            assert!(!text.contains(&piece), "{what}: `{piece}` of `{}` is left in:\n{text}", planted.secret);
        }
    }
}

/// The command line's output, which must succeed.
fn run(args: &[&str]) -> String {
    let out = common::sessionscope().args(args).output().expect("the command line runs");
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// A share's envelope (base64url) opened: its bundle.
fn bundle_of(envelope: &str) -> Bundle {
    let sealed = from_base64url(envelope.trim()).expect("base64url");
    let envelope = open(&sealed).expect("an envelope");
    Bundle::decode(&unpack(envelope.codec, &envelope.body).expect("a payload")).expect("a bundle")
}

/// Every text a share shows: its header, its redacted files, and the Markdown the page's export
/// writes of them.
fn share_texts(bundle: &Bundle) -> Vec<String> {
    let mut texts = vec![bundle.header.title.clone(), bundle.header.scope.clone()];
    texts.extend(bundle.files.iter().map(|(path, bytes)| format!("{path}\n{}", String::from_utf8_lossy(bytes))));
    texts.push(files_markdown(&bundle.files, &MarkdownOptions::default()));
    texts
}

/// A built site as `open` reads it: an index naming its files, and the files.
fn write_site(root: &Path) -> PathBuf {
    let site = root.join("site");
    std::fs::create_dir_all(&site).expect("a folder");
    let index = r#"<!doctype html><html><head>
<link rel="stylesheet" href="./style-1.css">
<link rel="modulepreload" href="./app-1.js" crossorigin="anonymous">
<link rel="preload" href="./app-1_bg.wasm" as="fetch" type="application/wasm">
</head><body></body></html>"#;
    for (name, text) in [
        ("index.html", index),
        ("style-1.css", "body {}"),
        ("app-1.js", "export { start as default };"),
        ("app-1_bg.wasm", "\0asm"),
        ("worker.js", "var wasm_bindgen;"),
        ("worker_bg.wasm", "\0asm"),
        ("render.js", "var wasm_bindgen;"),
        ("render_bg.wasm", "\0asm"),
    ] {
        std::fs::write(site.join(name), text).expect("written");
    }
    site
}

#[test]
fn secrets_cut_through_by_snippets_titles_and_summaries_never_show_and_ids_stay_whole() {
    let temp = TempDir::new("redact-first");
    let (projects, storage) = write_history(&temp.0);
    let (projects_path, storage_path) = (projects.to_str().expect("UTF-8"), storage.to_str().expect("UTF-8"));
    let mut said: Vec<(String, String)> = Vec::new();

    let mut server = Server::start_on(&[&projects, &storage], &[]);
    // The sessions, their ids and resume commands whole.
    let sessions = server.call("list_sessions", json!({}));
    let listed = sessions.to_string();
    assert_eq!(sessions["total"], 2, "{sessions}");
    for session in sessions["sessions"].as_array().into_iter().flatten() {
        let command = session["resume_command"].as_str().unwrap_or_default();
        match session["session_id"].as_str() {
            Some(CLAUDE_ID) => {
                assert_eq!(command, format!("cd /home/[user]/kettle && claude --resume {CLAUDE_ID}"), "{session}");
                let title = session["title"].as_str().unwrap_or_default();
                assert!(title.contains("[REDACTED:github-token#") && title.ends_with('…'), "{title}");
            }
            Some(OPENCODE_ID) => {
                assert_eq!(command, format!("cd {OPENCODE_DIR} && opencode --session {OPENCODE_ID}"), "{session}")
            }
            other => panic!("an unknown session {other:?}: {sessions}"),
        }
    }
    said.push(("list_sessions".into(), listed));

    // Every word beside a secret is found, its snippet shows it, and no piece of a secret.
    for (index, planted) in PLANTED.iter().enumerate() {
        for place in PLACES {
            for side in ["before", "after"] {
                if (place, side) == ("start", "before") || (place, side) == ("end", "after") {
                    continue;
                }
                let wanted = word(side, place, index);
                // Ranked: the word's sessions, each snippet cut from its text redacted whole.
                let ranked = server.call("search", json!({"query": wanted, "limit": 50}));
                let results = ranked["results"].as_array().cloned().unwrap_or_default();
                let ranked_ids: Vec<&str> = results.iter().filter_map(|r| r["session_id"].as_str()).collect();
                assert!(ranked_ids.contains(&CLAUDE_ID) && ranked_ids.contains(&OPENCODE_ID), "{wanted}: {ranked}");
                let shown: Vec<&str> = results
                    .iter()
                    .flat_map(|r| r["snippets"].as_array().into_iter().flatten())
                    .filter_map(|s| s["snippet"].as_str())
                    .collect();
                assert!(shown.iter().any(|snippet| snippet.contains(&wanted)), "{wanted}: {ranked}");
                said.push((format!("ranked search {wanted}"), ranked.to_string()));
                // Every match, as written.
                let found = server.call("search", json!({"query": wanted, "exact": true, "limit": 50}));
                let hits = found["hits"].as_array().cloned().unwrap_or_default();
                assert!(!hits.is_empty(), "{wanted} ({}) is found: {found}", planted.secret);
                for hit in &hits {
                    let snippet = hit["snippet"].as_str().unwrap_or_default();
                    assert!(snippet.contains(&wanted), "the hit on {wanted} shows it: {snippet}");
                    assert!(snippet.contains("[REDACTED:") || snippet.contains("[user]"), "{snippet}");
                    let id = hit["session_id"].as_str().unwrap_or_default();
                    assert!(id == CLAUDE_ID || id == OPENCODE_ID, "{hit}");
                }
                let ids: Vec<&str> = hits.iter().filter_map(|hit| hit["session_id"].as_str()).collect();
                assert!(ids.contains(&CLAUDE_ID) && ids.contains(&OPENCODE_ID), "{wanted}: {found}");
                said.push((format!("search {wanted}"), found.to_string()));
            }
        }
    }

    // Each session read whole: the title, the tool's summary and its output cut after the
    // redaction; the ids in the text kept.
    for id in [CLAUDE_ID, OPENCODE_ID] {
        let (markdown, error) = server.call_text("read_session", json!({"session_id": id}));
        assert!(!error, "{markdown}");
        assert!(markdown.contains(&format!("_Session `{id}`")), "{markdown}");
        said.push((format!("read_session {id}"), markdown));
    }
    let claude = &said[said.len() - 2].1;
    assert!(claude.contains("more characters") && claude.contains("Authorization: Bearer [REDACTED:"), "{claude}");
    let opencode = &said[said.len() - 1].1;
    assert!(opencode.contains(&format!("opencode --session {OPENCODE_ID}")), "{opencode}");
    let resources = server.request("resources/list", json!({}));
    assert_eq!(resources["resources"].as_array().map_or(0, Vec::len), 2, "{resources}");
    said.push(("resources/list".into(), resources.to_string()));

    // The command line's shares: the table, the links and the Markdown.
    let table = run(&["share", projects_path, storage_path]);
    assert!(table.contains(CLAUDE_ID) && table.contains(OPENCODE_ID), "{table}");
    said.push(("share".into(), table));
    let links = run(&["share", "--link", projects_path, storage_path]);
    let mut shared = 0;
    for line in links.lines() {
        let (id, fragment) = line.split_once('\t').expect("an id and a link");
        let bundle = bundle_of(fragment.trim_start_matches("#share="));
        let texts = share_texts(&bundle);
        assert!(texts.iter().any(|text| text.contains(id)), "{id}'s share names it");
        said.extend(texts.into_iter().map(|text| (format!("share --link {id}"), text)));
        shared += 1;
    }
    assert_eq!(shared, 2, "{links}");
    let markdown = run(&["share", "--markdown", projects_path, storage_path]);
    assert!(markdown.contains(&format!("opencode --session {OPENCODE_ID}")), "{markdown}");
    said.push(("share --markdown".into(), markdown));

    // `open`: the HTML file, and the share it embeds as the page reads it.
    let site = write_site(&temp.0);
    for id in [CLAUDE_ID, OPENCODE_ID] {
        let output = temp.0.join(format!("{id}.html"));
        let site = site.to_str().expect("UTF-8");
        let out = output.to_str().expect("UTF-8");
        run(&["open", "--no-browser", "--site", site, "--output", out, "--session", id, projects_path, storage_path]);
        let html = std::fs::read_to_string(&output).expect("the file is written");
        let data = html.split("id=\"sessionscope-share\">").nth(1).and_then(|rest| rest.split("</script>").next());
        let bundle = bundle_of(data.expect("the share is embedded"));
        let texts = share_texts(&bundle);
        assert!(texts.iter().any(|text| text.contains(id)), "{id}'s file names it");
        said.extend(texts.into_iter().map(|text| (format!("open {id}"), text)));
        said.push((format!("open {id} (HTML)"), html));
    }

    // `open` with no session named opens the one active last and names the others on stderr,
    // by their titles, which are redacted as the file is.
    let output = temp.0.join("newest.html");
    let args = ["open", "--no-browser", "--site", site.to_str().expect("UTF-8"), "--output"];
    let opened = common::sessionscope()
        .args(args)
        .args([output.to_str().expect("UTF-8"), projects_path, storage_path])
        .output()
        .expect("the command line runs");
    let listed = String::from_utf8_lossy(&opened.stderr).into_owned();
    assert!(opened.status.success(), "{listed}");
    assert!(listed.contains(CLAUDE_ID) && listed.contains(OPENCODE_ID), "both sessions are named: {listed}");
    assert!(listed.contains("[REDACTED:"), "a title's secret is shown as its placeholder: {listed}");
    said.push(("open (stderr)".into(), listed));

    for (what, text) in &said {
        assert_no_secret(text, what);
    }
}
