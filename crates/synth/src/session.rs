//! Line plumbing shared by the main transcript and agent transcripts: the common
//! envelope fields, the output buffer with its per-line bookkeeping, and writers
//! for assistant messages.

use std::collections::BTreeMap;

use crate::ids::Uuid;
use crate::json::{Obj, object};

/// Fields that every DAG line of one transcript file repeats.
#[derive(Debug, Clone)]
pub struct Envelope {
    pub session_id: String,
    pub cwd: String,
    pub version: &'static str,
    pub git_branch: String,
    pub slug: String,
    /// Set for subagent transcripts, which also mark every line as a sidechain.
    pub agent_id: Option<String>,
    /// Claude Code adds the slug once the session has one; the first lines lack it.
    pub with_slug: bool,
}

impl Envelope {
    /// Writes `parentUuid` through `slug`, in the order Claude Code 2.1.3x uses.
    pub fn write(&self, o: &mut Obj<'_>, parent: Option<Uuid>) {
        self.write_with_logical_parent(o, parent, None);
    }

    /// Same as [`Envelope::write`], adding `logicalParentUuid` right after `parentUuid`
    /// (compaction boundaries have it).
    pub fn write_with_logical_parent(&self, o: &mut Obj<'_>, parent: Option<Uuid>, logical_parent: Option<Uuid>) {
        match parent {
            Some(parent) => o.str("parentUuid", parent.as_str()),
            None => o.null("parentUuid"),
        };
        if let Some(logical) = logical_parent {
            o.str("logicalParentUuid", logical.as_str());
        }
        o.bool("isSidechain", self.agent_id.is_some())
            .str("userType", "external")
            .str("cwd", &self.cwd)
            .str("sessionId", &self.session_id)
            .str("version", self.version)
            .str("gitBranch", &self.git_branch);
        if let Some(agent_id) = &self.agent_id {
            o.str("agentId", agent_id);
        }
        if self.with_slug {
            o.str("slug", &self.slug);
        }
    }
}

/// Where one line sits in a file and what it holds.
#[derive(Debug, Clone, Copy)]
pub struct LineInfo {
    pub start: usize,
    pub uuid: Option<Uuid>,
    pub kind: &'static str,
}

/// A growing JSONL file with an index of its lines.
#[derive(Debug, Default)]
pub struct Sink {
    pub out: Vec<u8>,
    pub lines: Vec<LineInfo>,
    pub counts: BTreeMap<&'static str, u64>,
}

impl Sink {
    pub fn with_capacity(bytes: usize) -> Sink {
        Sink { out: Vec::with_capacity(bytes), ..Sink::default() }
    }

    /// Appends one line holding one JSON object; `kind` is its top-level `type`.
    pub fn line(&mut self, kind: &'static str, uuid: Option<Uuid>, fill: impl FnOnce(&mut Obj<'_>)) {
        let start = self.out.len();
        object(&mut self.out, fill);
        self.out.push(b'\n');
        self.lines.push(LineInfo { start, uuid, kind });
        *self.counts.entry(kind).or_insert(0) += 1;
    }

    pub fn len(&self) -> u64 {
        self.out.len() as u64
    }

    /// The bytes of line `index`, without its newline.
    pub fn line_bytes(&self, index: usize) -> &[u8] {
        let start = self.lines[index].start;
        let end = self.lines.get(index + 1).map_or(self.out.len(), |next| next.start);
        &self.out[start..end.saturating_sub(1).max(start)]
    }
}

/// Token counts of one API response; the same numbers repeat on each of its lines.
#[derive(Debug, Clone, Copy)]
pub struct Usage {
    pub input: u64,
    pub cache_creation: u64,
    pub cache_read: u64,
    pub output: u64,
}

impl Usage {
    pub fn write(&self, o: &mut Obj<'_>) {
        o.u64("input_tokens", self.input)
            .u64("cache_creation_input_tokens", self.cache_creation)
            .u64("cache_read_input_tokens", self.cache_read)
            .obj("cache_creation", |o| {
                o.u64("ephemeral_5m_input_tokens", 0).u64("ephemeral_1h_input_tokens", self.cache_creation);
            })
            .u64("output_tokens", self.output)
            .str("service_tier", "standard")
            .str("inference_geo", "not_available");
    }
}

/// One content block of an assistant response; each is written on its own line.
#[derive(Debug, Clone)]
pub enum Block {
    Thinking {
        text: String,
        signature: String,
    },
    Text(String),
    ToolUse {
        id: String,
        name: &'static str,
        /// The `input` object, already rendered as JSON.
        input: Vec<u8>,
    },
}

impl Block {
    pub fn write(&self, o: &mut Obj<'_>) {
        match self {
            Block::Thinking { text, signature } => {
                o.str("type", "thinking").str("thinking", text).str("signature", signature);
            }
            Block::Text(text) => {
                o.str("type", "text").str("text", text);
            }
            Block::ToolUse { id, name, input } => {
                o.str("type", "tool_use").str("id", id).str("name", name).raw_bytes("input", input).obj(
                    "caller",
                    |o| {
                        o.str("type", "direct");
                    },
                );
            }
        }
    }
}

/// Renders the `message` object of one assistant line.
pub fn assistant_message(
    model: &str,
    message_id: &str,
    block: &Block,
    stop_reason: Option<&str>,
    usage: &Usage,
) -> Vec<u8> {
    let mut out = Vec::with_capacity(512);
    object(&mut out, |o| {
        o.str("model", model)
            .str("id", message_id)
            .str("type", "message")
            .str("role", "assistant")
            .arr("content", |a| {
                a.obj(|o| block.write(o));
            })
            .opt_str("stop_reason", stop_reason)
            .null("stop_sequence")
            .obj("usage", |o| usage.write(o));
    });
    out
}
