//! The example session bundled with the app, written for the purpose (`assets/example/`), not
//! taken from anyone's log: a developer asks the agent to fix a failing test in a small Rust
//! crate. It has tool calls with results, an Explore subagent in its own file, an auto compaction
//! and a rewound prompt. The page fetches its files from the site by [`PATHS`] (they are not in
//! its download); the worker warms up on them, built in ([`FILES`]), and so do the tests.

macro_rules! example_file {
    ($path:literal) => {
        (concat!("example/", $path), include_bytes!(concat!("../../assets/example/", $path)).as_slice())
    };
}

/// The paths of the example's files, as the site serves them and as the viewer names them.
pub const PATHS: [&str; 3] = [
    "example/e3a1c0de-7b2f-4c59-9d41-5f0e8a6b2c17.jsonl",
    "example/e3a1c0de-7b2f-4c59-9d41-5f0e8a6b2c17/subagents/agent-a7e5d21.jsonl",
    "example/e3a1c0de-7b2f-4c59-9d41-5f0e8a6b2c17/subagents/agent-a7e5d21.meta.json",
];

/// `(path, bytes)` of each file of the example project folder, built in.
pub const FILES: &[(&str, &[u8])] = &[
    example_file!("e3a1c0de-7b2f-4c59-9d41-5f0e8a6b2c17.jsonl"),
    example_file!("e3a1c0de-7b2f-4c59-9d41-5f0e8a6b2c17/subagents/agent-a7e5d21.jsonl"),
    example_file!("e3a1c0de-7b2f-4c59-9d41-5f0e8a6b2c17/subagents/agent-a7e5d21.meta.json"),
];
