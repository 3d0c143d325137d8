//! The example session bundled into the app, so a first visit shows a working viewer.
//! It was written for the purpose (`assets/example/`), not taken from anyone's log: a developer
//! asks the agent to fix a failing test in a small Rust crate. It has tool calls with results,
//! an Explore subagent in its own file, an auto compaction and a rewound prompt.

macro_rules! example_file {
    ($path:literal) => {
        (concat!("example/", $path), include_bytes!(concat!("../assets/example/", $path)).as_slice())
    };
}

/// `(path, bytes)` of each file of the example project folder.
pub const FILES: &[(&str, &[u8])] = &[
    example_file!("e3a1c0de-7b2f-4c59-9d41-5f0e8a6b2c17.jsonl"),
    example_file!("e3a1c0de-7b2f-4c59-9d41-5f0e8a6b2c17/subagents/agent-a7e5d21.jsonl"),
    example_file!("e3a1c0de-7b2f-4c59-9d41-5f0e8a6b2c17/subagents/agent-a7e5d21.meta.json"),
];
