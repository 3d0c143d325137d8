//! The example session bundled into the app, so a first visit shows a working viewer.
//! It was written for the purpose (`assets/example/`), not taken from anyone's log: a developer
//! asks the agent to fix a failing test in a small Rust crate. It has tool calls with results,
//! an Explore subagent in its own file, an auto compaction and a rewound prompt.
//!
//! The page fetches it from the site (`dist/example/`, copied there by Trunk) when it is opened,
//! so it is not in the page's first download; the worker and the tests keep it built in.

macro_rules! example_file {
    ($path:literal) => {
        (concat!("example/", $path), include_bytes!(concat!("../assets/example/", $path)).as_slice())
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
