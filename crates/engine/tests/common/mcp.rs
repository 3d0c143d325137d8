//! An MCP server started from the built command line (`sessionscope mcp`), spoken to in
//! JSON-RPC over its stdin and stdout as a client does.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use serde_json::{Value, json};

/// The server as a child process, and the lines it writes.
pub struct Server {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    next_id: u64,
    /// Every text a tool or resource answered.
    pub said: Vec<String>,
}

impl Server {
    /// The server on `folder`, started with `flags`, past its initialisation.
    pub fn start(folder: &Path, flags: &[&str]) -> Server {
        Server::start_on(&[folder], flags)
    }

    /// The server on `folders`, started with `flags`, past its initialisation.
    pub fn start_on(folders: &[&Path], flags: &[&str]) -> Server {
        let mut child = super::sessionscope()
            .arg("mcp")
            .args(flags)
            .args(folders)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the server starts");
        let stdin = child.stdin.take().expect("its stdin");
        let stdout = child.stdout.take().expect("its stdout");
        let (send, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        let mut server = Server { child, stdin, lines, next_id: 1, said: Vec::new() };
        let init = server.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "sessionscope-test", "version": "1.0.0"}}),
        );
        assert_eq!(init["serverInfo"]["name"], "sessionscope", "{init}");
        assert!(init["capabilities"]["tools"].is_object(), "{init}");
        assert!(init["capabilities"]["resources"].is_object(), "{init}");
        server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        server
    }

    pub fn send(&mut self, message: &Value) {
        writeln!(self.stdin, "{message}").expect("the server reads");
        self.stdin.flush().expect("the server reads");
    }

    /// The result of a request (or its error, as `{"error": ...}`).
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let line = self.lines.recv_timeout(Duration::from_secs(60)).expect("the server answers in time");
            let message: Value = serde_json::from_str(&line).expect("the server writes JSON lines");
            if message["id"] != json!(id) {
                continue;
            }
            if let Some(error) = message.get("error") {
                return json!({ "error": error });
            }
            return message["result"].clone();
        }
    }

    /// A tool's text answer, and whether it is an error.
    pub fn call_text(&mut self, tool: &str, arguments: Value) -> (String, bool) {
        let result = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        let text = result["content"][0]["text"].as_str().unwrap_or_else(|| panic!("{tool}: {result}")).to_owned();
        self.said.push(text.clone());
        (text, result["isError"] == json!(true))
    }

    /// A tool's JSON answer.
    pub fn call(&mut self, tool: &str, arguments: Value) -> Value {
        let (text, error) = self.call_text(tool, arguments);
        assert!(!error, "{tool}: {text}");
        serde_json::from_str(&text).unwrap_or_else(|_| panic!("{tool} answers JSON: {text}"))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
