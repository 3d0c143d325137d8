//! Fuzzing every importer (issue 51): for each format of the importer registry
//! (`src/import/mod.rs`), a proptest that builds files of real-shaped records of that format and
//! loads them as the command line and the page do (`Loader`, in slices of any size), then builds
//! the conversation graph and its summary.
//!
//! The records start from the format's fixtures and are mutated structurally (keys dropped,
//! duplicated, renamed or reordered; values swapped for another type, huge numbers, empty, very
//! long or random-unicode strings, deep nesting, subtrees grafted from elsewhere in the fixture)
//! and byte by byte (cut at any byte or in the middle of an escape, invalid UTF-8, a newline or
//! a carriage return inside a record, CRLF line ends, a BOM). Line formats are assembled from
//! several such lines; document formats (a Gemini CLI session, an Amp thread, the files of a
//! Cline or Roo Code task, OpenCode's storage files) have their documents mutated; an Aider chat
//! history has its markdown lines mutated.
//!
//! Every case asserts the crate's standard: no panic; every line of every file accounted for once
//! (`LineCounts::balanced`, as many lines as the file has); every skipped line a diagnostic on its
//! line (a file refused whole says so at line 0); no diagnostic nor entry past the file's end.
//!
//! Each test runs `SESSIONSCOPE_FUZZ_CASES` cases (64 by default, so `cargo test` stays fast);
//! a long run is one command, e.g.
//! `SESSIONSCOPE_FUZZ_CASES=20000 cargo test --release -p sessionscope-engine --test fuzz_importers -- --nocapture`,
//! which prints, per format, the runs made, the time taken and how many cases the sniff read as
//! the format meant (the others test the sniff and the refusal of a file).

mod common;

use std::collections::{BTreeSet, HashMap};
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

use common::*;
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;
use serde::Deserialize;
use serde::de::{MapAccess, SeqAccess, Visitor};
use sessionscope_engine::dag::{Graph, tools};
use sessionscope_engine::model::{Format, Severity};
use sessionscope_engine::summary::summarize;
use sessionscope_engine::{Corpus, Loader};

/// The environment variable that sets how many cases each format's test runs.
const CASES_VAR: &str = "SESSIONSCOPE_FUZZ_CASES";

fn cases() -> u32 {
    std::env::var(CASES_VAR).ok().and_then(|v| v.parse().ok()).unwrap_or(64)
}

fn config() -> ProptestConfig {
    ProptestConfig { cases: cases(), max_shrink_iters: 4096, ..ProptestConfig::default() }
}

// ---------------------------------------------------------------------------------------------
// A JSON value that keeps its keys in order, repeated keys and raw text (a number too big for
// any type, an escape that is not one, deep nesting written out).

#[derive(Clone, Debug, PartialEq)]
enum J {
    Null,
    Bool(bool),
    Num(String),
    Str(String),
    Arr(Vec<J>),
    Obj(Vec<(String, J)>),
    /// Written as it is.
    Raw(String),
}

impl<'de> Deserialize<'de> for J {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<J, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = J;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("JSON")
            }
            fn visit_unit<E>(self) -> Result<J, E> {
                Ok(J::Null)
            }
            fn visit_bool<E>(self, v: bool) -> Result<J, E> {
                Ok(J::Bool(v))
            }
            fn visit_i64<E>(self, v: i64) -> Result<J, E> {
                Ok(J::Num(v.to_string()))
            }
            fn visit_u64<E>(self, v: u64) -> Result<J, E> {
                Ok(J::Num(v.to_string()))
            }
            fn visit_f64<E>(self, v: f64) -> Result<J, E> {
                Ok(J::Num(serde_json::Number::from_f64(v).map_or_else(|| "0".into(), |n| n.to_string())))
            }
            fn visit_str<E>(self, v: &str) -> Result<J, E> {
                Ok(J::Str(v.to_owned()))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<J, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element()? {
                    items.push(item);
                }
                Ok(J::Arr(items))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<J, A::Error> {
                let mut members = Vec::new();
                while let Some((key, value)) = map.next_entry::<String, J>()? {
                    members.push((key, value));
                }
                Ok(J::Obj(members))
            }
        }
        deserializer.deserialize_any(V)
    }
}

impl J {
    fn parse(bytes: &[u8]) -> Option<J> {
        let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        serde_json::from_slice(bytes).ok()
    }

    /// Compact (`indent` None) or pretty-printed with two spaces, as Gemini CLI, Amp and Cline
    /// write their documents.
    fn write(&self, out: &mut String, indent: Option<usize>) {
        let newline = |out: &mut String, level: usize| {
            out.push('\n');
            out.extend(std::iter::repeat_n(' ', 2 * level));
        };
        match self {
            J::Null => out.push_str("null"),
            J::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            J::Num(n) | J::Raw(n) => out.push_str(n),
            J::Str(s) => out.push_str(&serde_json::to_string(s).unwrap()),
            J::Arr(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    if let Some(level) = indent {
                        newline(out, level + 1);
                    }
                    item.write(out, indent.map(|l| l + 1));
                }
                if let (Some(level), false) = (indent, items.is_empty()) {
                    newline(out, level);
                }
                out.push(']');
            }
            J::Obj(members) => {
                out.push('{');
                for (i, (key, value)) in members.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    if let Some(level) = indent {
                        newline(out, level + 1);
                    }
                    out.push_str(&serde_json::to_string(key).unwrap());
                    out.push(':');
                    if indent.is_some() {
                        out.push(' ');
                    }
                    value.write(out, indent.map(|l| l + 1));
                }
                if let (Some(level), false) = (indent, members.is_empty()) {
                    newline(out, level);
                }
                out.push('}');
            }
        }
    }

    fn to_bytes(&self, pretty: bool) -> Vec<u8> {
        let mut out = String::new();
        self.write(&mut out, pretty.then_some(0));
        out.into_bytes()
    }

    fn count(&self, pred: fn(&J) -> bool) -> usize {
        let inner = match self {
            J::Arr(items) => items.iter().map(|i| i.count(pred)).sum(),
            J::Obj(members) => members.iter().map(|(_, v)| v.count(pred)).sum(),
            _ => 0,
        };
        inner + usize::from(pred(self))
    }

    /// The `n`th node (in pre-order) for which `pred` holds.
    fn nth_mut(&mut self, pred: fn(&J) -> bool, n: &mut usize) -> Option<&mut J> {
        if pred(self) {
            if *n == 0 {
                return Some(self);
            }
            *n -= 1;
        }
        match self {
            J::Arr(items) => items.iter_mut().find_map(|item| item.nth_mut(pred, n)),
            J::Obj(members) => members.iter_mut().find_map(|(_, v)| v.nth_mut(pred, n)),
            _ => None,
        }
    }

    /// A node for which `pred` holds, picked by `rng`.
    fn pick(&mut self, pred: fn(&J) -> bool, rng: &mut Rng) -> Option<&mut J> {
        let count = self.count(pred);
        if count == 0 {
            return None;
        }
        let mut n = rng.below(count);
        self.nth_mut(pred, &mut n)
    }

    fn collect(&self, nodes: &mut Vec<J>, keys: &mut BTreeSet<String>) {
        nodes.push(self.clone());
        match self {
            J::Arr(items) => items.iter().for_each(|i| i.collect(nodes, keys)),
            J::Obj(members) => {
                for (k, v) in members {
                    keys.insert(k.clone());
                    v.collect(nodes, keys);
                }
            }
            _ => {}
        }
    }
}

fn any_node(_: &J) -> bool {
    true
}
fn is_object(j: &J) -> bool {
    matches!(j, J::Obj(m) if !m.is_empty())
}
fn is_array(j: &J) -> bool {
    matches!(j, J::Arr(a) if !a.is_empty())
}
fn is_string(j: &J) -> bool {
    matches!(j, J::Str(_))
}
fn is_number(j: &J) -> bool {
    matches!(j, J::Num(_))
}

// ---------------------------------------------------------------------------------------------
// The mutations.

/// SplitMix64, seeded by a mutation: the same case makes the same file.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 { 0 } else { (self.next() % n as u64) as usize }
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum What {
    // Structure (a JSON record or document).
    DropKey,
    DuplicateKey,
    ReorderKeys,
    RenameKey,
    SwapType,
    Graft,
    EditString,
    EditNumber,
    EditArray,
    DeepNest,
    // Bytes.
    Truncate,
    InvalidUtf8,
    CutEscape,
    InsertUnicode,
    FlipByte,
    SplitLine,
}

const WHATS: [What; 16] = [
    What::DropKey,
    What::DuplicateKey,
    What::ReorderKeys,
    What::RenameKey,
    What::SwapType,
    What::Graft,
    What::EditString,
    What::EditNumber,
    What::EditArray,
    What::DeepNest,
    What::Truncate,
    What::InvalidUtf8,
    What::CutEscape,
    What::InsertUnicode,
    What::FlipByte,
    What::SplitLine,
];

impl What {
    fn is_structural(self) -> bool {
        !matches!(
            self,
            What::Truncate
                | What::InvalidUtf8
                | What::CutEscape
                | What::InsertUnicode
                | What::FlipByte
                | What::SplitLine
        )
    }
}

#[derive(Clone, Copy, Debug)]
struct Op {
    what: What,
    seed: u64,
}

fn op() -> impl Strategy<Value = Op> {
    (select(WHATS.to_vec()), any::<u64>()).prop_map(|(what, seed)| Op { what, seed })
}

const NUMBERS: [&str; 16] = [
    "0",
    "-1",
    "-0",
    "1.5",
    "1e999",
    "-1e999",
    "1E+2",
    "0.1e-400",
    "18446744073709551615",
    "18446744073709551616",
    "-9223372036854775809",
    "9007199254740993",
    "123456789012345678901234567890123456789",
    "4294967296",
    "2147483648",
    "1.7976931348623157e308",
];

/// JSON text that is not what a serializer writes, or not JSON at all.
const RAW: [&str; 14] = [
    "\"\\ud800\"",
    "\"\\udc00\\ud800x\"",
    "\"\\u0000\"",
    "\"\\/\\b\\f\"",
    "\"\\uDBFF\\uDFFF\"",
    "NaN",
    "Infinity",
    "undefined",
    "'single'",
    "tru",
    "\"\\x41\"",
    "\"a\tb\"",
    "[1,]",
    "{\"a\":1,}",
];

const UNICODE: [char; 16] = [
    '\u{2028}',
    '\u{2029}',
    '\u{FEFF}',
    '\u{200F}',
    '\u{0301}',
    '\u{1F600}',
    '\u{FFFD}',
    '\u{10FFFF}',
    '\u{7F}',
    '\u{0}',
    'é',
    '日',
    '\u{E000}',
    '\u{1D11E}',
    '\u{85}',
    '\u{1B}',
];

const INVALID_UTF8: [&[u8]; 8] = [
    b"\xff",
    b"\xc0\x80",
    b"\xed\xa0\x80",
    b"\xe2\x82",
    b"\xf4\x90\x80\x80",
    b"\x80",
    b"\xf0\x9f\x98",
    b"\xfe\xfe\xff",
];

/// Lengths of very long strings: around a sniff's window (64 KiB) and a line's head.
const LONG: [usize; 7] = [0, 1, 255, 4097, 16_384, 65_537, 140_000];

fn long_string(rng: &mut Rng) -> String {
    let len = *rng.pick(&LONG);
    let unit = *rng.pick(&["x", "é", "\\", "\"", "日本", "\n"]);
    unit.repeat(len / unit.len().max(1))
}

fn unicode_string(rng: &mut Rng) -> String {
    (0..rng.below(12) + 1).map(|_| *rng.pick(&UNICODE)).collect()
}

fn odd_string(rng: &mut Rng, pool: &Pool) -> String {
    match rng.below(12) {
        0 => String::new(),
        1 => long_string(rng),
        2 => unicode_string(rng),
        3 => " \n\r\t".into(),
        4 => "<think>half".into(),
        5 => "```".into(),
        6 => "../../../etc/passwd".into(),
        7 => rng.pick(NUMBERS.as_slice()).to_string(),
        8 => "{\"type\":\"text\",\"text\":\"x\"}".into(),
        9 => pool.keys.get(rng.below(pool.keys.len())).cloned().unwrap_or_default(),
        10 => match pool.strings.get(rng.below(pool.strings.len().max(1))) {
            // A string of the fixture, cut at a character.
            Some(s) => s.chars().take(rng.below(s.chars().count() + 1)).collect(),
            None => String::new(),
        },
        _ => pool.strings.get(rng.below(pool.strings.len().max(1))).cloned().unwrap_or_default(),
    }
}

fn odd_value(rng: &mut Rng, pool: &Pool) -> J {
    match rng.below(12) {
        0 => J::Null,
        1 => J::Bool(rng.below(2) == 0),
        2 => J::Num(rng.pick(&NUMBERS).to_string()),
        3 | 4 => J::Str(odd_string(rng, pool)),
        5 => J::Obj(Vec::new()),
        6 => J::Arr(Vec::new()),
        7 => J::Arr(vec![pool.node(rng)]),
        8 => J::Obj(vec![(pool.key(rng), pool.node(rng))]),
        9 => J::Raw(rng.pick(&RAW).to_string()),
        _ => pool.node(rng),
    }
}

/// What the fixtures of a format hold, to graft into the records made: their subtrees, keys
/// and strings.
#[derive(Default)]
struct Pool {
    nodes: Vec<J>,
    keys: Vec<String>,
    strings: Vec<String>,
    /// Lines of a text format (markdown).
    lines: Vec<Vec<u8>>,
}

impl Pool {
    fn node(&self, rng: &mut Rng) -> J {
        if self.nodes.is_empty() { J::Null } else { self.nodes[rng.below(self.nodes.len())].clone() }
    }
    fn key(&self, rng: &mut Rng) -> String {
        if self.keys.is_empty() { "type".into() } else { self.keys[rng.below(self.keys.len())].clone() }
    }
    fn add(&mut self, j: &J) {
        let mut nodes = Vec::new();
        let mut keys = BTreeSet::new();
        j.collect(&mut nodes, &mut keys);
        for node in &nodes {
            if let J::Str(s) = node
                && s.len() < 400
            {
                self.strings.push(s.clone());
            }
        }
        // Whole documents and big subtrees are grafted rarely: keep the small ones.
        self.nodes.extend(nodes.into_iter().filter(|n| n.to_bytes(false).len() < 4096));
        self.keys.extend(keys);
        self.keys.sort();
        self.keys.dedup();
    }
}

fn mutate_tree(j: &mut J, what: What, rng: &mut Rng, pool: &Pool) {
    match what {
        What::DropKey => {
            if let Some(J::Obj(members)) = j.pick(is_object, rng) {
                let i = rng.below(members.len());
                members.remove(i);
            }
        }
        What::DuplicateKey => {
            if let Some(J::Obj(members)) = j.pick(is_object, rng) {
                let (key, value) = members[rng.below(members.len())].clone();
                let value = if rng.below(2) == 0 { value } else { odd_value(rng, pool) };
                let at = rng.below(members.len() + 1);
                members.insert(at, (key, value));
            }
        }
        What::ReorderKeys => {
            if let Some(J::Obj(members)) = j.pick(is_object, rng) {
                for i in (1..members.len()).rev() {
                    let k = rng.below(i + 1);
                    members.swap(i, k);
                }
            }
        }
        What::RenameKey => {
            if let Some(J::Obj(members)) = j.pick(is_object, rng) {
                let i = rng.below(members.len());
                let key = &mut members[i].0;
                *key = match rng.below(5) {
                    0 => String::new(),
                    1 => key.to_uppercase(),
                    2 => format!("{key}{}", rng.pick(&UNICODE)),
                    _ => pool.key(rng),
                };
            }
        }
        What::SwapType => {
            if let Some(node) = j.pick(any_node, rng) {
                *node = odd_value(rng, pool);
            }
        }
        What::Graft => {
            if let Some(node) = j.pick(any_node, rng) {
                // A subtree of this format's fixtures, or now and then of another format's.
                *node = if rng.below(4) == 0 { foreign().node(rng) } else { pool.node(rng) };
            }
        }
        What::EditString => {
            if let Some(J::Str(s)) = j.pick(is_string, rng) {
                *s = match rng.below(4) {
                    0 => format!("{s}{}", odd_string(rng, pool)),
                    1 => {
                        let at = rng.below(s.chars().count() + 1);
                        s.chars().take(at).collect()
                    }
                    _ => odd_string(rng, pool),
                };
            }
        }
        What::EditNumber => {
            let target = if j.count(is_number) > 0 { j.pick(is_number, rng) } else { j.pick(any_node, rng) };
            if let Some(node) = target {
                *node = J::Num(rng.pick(&NUMBERS).to_string());
            }
        }
        What::EditArray => {
            if let Some(J::Arr(items)) = j.pick(is_array, rng) {
                let i = rng.below(items.len());
                match rng.below(5) {
                    0 => {
                        items.remove(i);
                    }
                    1 => {
                        let copy = items[i].clone();
                        items.insert(rng.below(items.len() + 1), copy);
                    }
                    2 => items.reverse(),
                    3 => {
                        let k = rng.below(items.len());
                        items.swap(i, k);
                    }
                    _ => items.clear(),
                }
            }
        }
        What::DeepNest => {
            if let Some(node) = j.pick(any_node, rng) {
                let depth = *rng.pick(&[2usize, 64, 126, 127, 128, 129, 300, 5000]);
                let inner = String::from_utf8(node.to_bytes(false)).unwrap();
                let (open, close) = if rng.below(2) == 0 { ("[", "]") } else { ("{\"a\":", "}") };
                *node = J::Raw(format!("{}{inner}{}", open.repeat(depth), close.repeat(depth)));
            }
        }
        _ => mutate_bytes_of_tree(j, what, rng),
    }
}

/// A byte mutation asked of a tree: made on its text, kept raw.
fn mutate_bytes_of_tree(j: &mut J, what: What, rng: &mut Rng) {
    let mut bytes = j.to_bytes(false);
    mutate_bytes(&mut bytes, what, rng);
    *j = J::Raw(String::from_utf8_lossy(&bytes).into_owned());
}

fn mutate_bytes(bytes: &mut Vec<u8>, what: What, rng: &mut Rng) {
    let at = rng.below(bytes.len() + 1);
    match what {
        What::Truncate => bytes.truncate(at),
        What::InvalidUtf8 => {
            let bad = rng.pick(&INVALID_UTF8);
            bytes.splice(at..at, bad.iter().copied());
        }
        What::CutEscape => {
            let escapes: Vec<usize> = bytes.iter().enumerate().filter(|(_, b)| **b == b'\\').map(|(i, _)| i).collect();
            if escapes.is_empty() {
                bytes.truncate(at);
                bytes.extend_from_slice(&b"\"\\u12"[..rng.below(5) + 1]);
            } else {
                let from = *rng.pick(&escapes);
                bytes.truncate((from + 1 + rng.below(5)).min(bytes.len()));
            }
        }
        What::InsertUnicode => {
            // At a character's start (the bytes may not all be UTF-8 by now).
            let mut at = at;
            while at < bytes.len() && (0x80..0xC0).contains(&bytes[at]) {
                at += 1;
            }
            let text = unicode_string(rng);
            bytes.splice(at..at, text.bytes());
        }
        What::FlipByte if at < bytes.len() => {
            bytes[at] = match rng.below(3) {
                0 => bytes[at] ^ (1 << rng.below(8)),
                1 => *rng.pick(b"{}[]\":,\\ 0n"),
                _ => rng.next() as u8,
            };
        }
        What::SplitLine => {
            const ENDS: [&[u8]; 4] = [b"\n", b"\r\n", b"\r", b"\n\n"];
            let eol = *rng.pick(&ENDS);
            bytes.splice(at..at, eol.iter().copied());
        }
        _ => {}
    }
}

/// A markdown line (an Aider chat history) mutated: its prefix, its text, or its bytes.
fn mutate_markdown(line: &mut Vec<u8>, what: What, rng: &mut Rng, pool: &Pool) {
    const HUGE: [&str; 4] = ["9", "99999999999999999999", "-1", "1e999"];
    const PREFIXES: [&str; 6] = ["#### ", "> ", "# ", "", "    ", ">"];
    const SPECIAL: [&str; 18] = [
        "# aider chat started at 2025-06-01 09:00:00",
        "# aider chat started at ",
        "# aider chat started at 9999-99-99 99:99:99",
        "# aider chat started at 2025-13-45 25:61:61",
        "> Tokens: 1.2k sent, 3 received. Cost: $0.01 message, $0.02 session.",
        "> Tokens: 99999999999999999999k sent, -3 received. Cost: $1e999 message, $ session.",
        "> Tokens: ",
        "<<<<<<< SEARCH",
        "=======",
        ">>>>>>> REPLACE",
        "```",
        "```python",
        "> ^C KeyboardInterrupt",
        "#### /run ls",
        "> Applied edit to src/x.py",
        "> Commit abc123 feat: x",
        "#### ",
        "> Add file to the chat? (Y)es/(N)o/(D)on't ask again [Yes]: y",
    ];
    let text = String::from_utf8_lossy(line).into_owned();
    let (prefix, rest) = PREFIXES[..3]
        .iter()
        .find_map(|p| text.strip_prefix(p).map(|rest| (*p, rest.to_owned())))
        .unwrap_or(("", text.clone()));
    let new = match what {
        What::DropKey => rest,
        What::DuplicateKey => format!("{prefix}{prefix}{rest}"),
        What::RenameKey => format!("{}{rest}", rng.pick(&PREFIXES)),
        What::SwapType | What::ReorderKeys => rng.pick(&SPECIAL).to_string(),
        What::Graft => match pool.lines.get(rng.below(pool.lines.len().max(1))) {
            Some(other) => String::from_utf8_lossy(other).into_owned(),
            None => text,
        },
        What::EditString => format!("{prefix}{}", odd_string(rng, pool)),
        What::EditNumber => text
            .chars()
            .map(|c| if c.is_ascii_digit() { '9' } else { c })
            .collect::<String>()
            .replace('9', HUGE[rng.below(HUGE.len())]),
        What::EditArray => rng.pick(&["", "   ", "\t", "  \u{a0}"]).to_string(),
        What::DeepNest => {
            let depth = *rng.pick(&[2usize, 64, 300, 5000]);
            format!("{}{rest}", rng.pick(&["> ", "#", "```", "    "]).repeat(depth))
        }
        _ => {
            mutate_bytes(line, what, rng);
            return;
        }
    };
    *line = new.into_bytes();
}

/// Applies `ops` to a record (a line, or a whole document): a tree while the mutations are
/// structural, its text once one is a byte's; the original bytes when no mutation touches it.
fn mutate_record(original: &[u8], ops: &[Op], pretty: bool, pool: &Pool) -> Vec<u8> {
    enum Now {
        Original,
        Tree(J),
        Bytes(Vec<u8>),
    }
    let mut now = Now::Original;
    for op in ops {
        let mut rng = Rng(op.seed);
        now = match now {
            Now::Original if op.what.is_structural() => match J::parse(original) {
                Some(mut j) => {
                    mutate_tree(&mut j, op.what, &mut rng, pool);
                    Now::Tree(j)
                }
                None => {
                    let mut bytes = original.to_vec();
                    mutate_markdown(&mut bytes, op.what, &mut rng, pool);
                    Now::Bytes(bytes)
                }
            },
            Now::Original => {
                let mut bytes = original.to_vec();
                mutate_bytes(&mut bytes, op.what, &mut rng);
                Now::Bytes(bytes)
            }
            Now::Tree(mut j) if op.what.is_structural() => {
                mutate_tree(&mut j, op.what, &mut rng, pool);
                Now::Tree(j)
            }
            Now::Tree(j) => {
                let mut bytes = j.to_bytes(pretty);
                mutate_bytes(&mut bytes, op.what, &mut rng);
                Now::Bytes(bytes)
            }
            Now::Bytes(mut bytes) if op.what.is_structural() => match J::parse(&bytes) {
                Some(mut j) => {
                    mutate_tree(&mut j, op.what, &mut rng, pool);
                    Now::Tree(j)
                }
                None => {
                    mutate_markdown(&mut bytes, op.what, &mut rng, pool);
                    Now::Bytes(bytes)
                }
            },
            Now::Bytes(mut bytes) => {
                mutate_bytes(&mut bytes, op.what, &mut rng);
                Now::Bytes(bytes)
            }
        };
    }
    match now {
        Now::Original => original.to_vec(),
        Now::Tree(j) => j.to_bytes(pretty),
        Now::Bytes(bytes) => bytes,
    }
}

/// A markdown line: its mutations are a markdown line's, never a JSON tree's.
fn mutate_text_line(original: &[u8], ops: &[Op], pool: &Pool) -> Vec<u8> {
    let mut line = original.to_vec();
    for op in ops {
        mutate_markdown(&mut line, op.what, &mut Rng(op.seed), pool);
    }
    line
}

// ---------------------------------------------------------------------------------------------
// The fixtures of each format, read once.

/// A fixture file: its path as the loader is given it, and its bytes.
struct Source {
    path: String,
    bytes: Vec<u8>,
    /// Its lines, without their ends.
    lines: Vec<Vec<u8>>,
}

struct Fixtures {
    /// Sets of files loaded together (a line format's files one by one; a task's three files).
    sets: Vec<Vec<Source>>,
    pool: Pool,
}

fn source(path: &str, fixture_path: &str) -> Source {
    let bytes = fixture(fixture_path);
    let mut lines: Vec<Vec<u8>> =
        bytes.split(|&b| b == b'\n').map(|l| l.strip_suffix(b"\r").unwrap_or(l).to_vec()).collect();
    if lines.last().is_some_and(Vec::is_empty) {
        lines.pop();
    }
    Source { path: path.to_owned(), bytes, lines }
}

fn fixtures_of(target: Target) -> &'static Fixtures {
    static ALL: OnceLock<Mutex<HashMap<&'static str, &'static Fixtures>>> = OnceLock::new();
    let mut all = ALL.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    all.entry(target.name).or_insert_with(|| {
        let sets: Vec<Vec<Source>> = (target.sets)();
        let mut pool = Pool::default();
        for source in sets.iter().flatten() {
            if let Some(j) = J::parse(&source.bytes) {
                pool.add(&j);
            }
            for line in &source.lines {
                match J::parse(line) {
                    Some(j) => pool.add(&j),
                    None => pool.lines.push(line.clone()),
                }
            }
        }
        Box::leak(Box::new(Fixtures { sets, pool }))
    })
}

/// The subtrees of every format's fixtures, to graft into another's.
fn foreign() -> &'static Pool {
    static FOREIGN: OnceLock<Pool> = OnceLock::new();
    FOREIGN.get_or_init(|| {
        let mut pool = Pool::default();
        for target in TARGETS {
            pool.nodes.extend(fixtures_of(target).pool.nodes.iter().cloned());
        }
        pool
    })
}

const TARGETS: [Target; 18] = [
    CLAUDE_CODE,
    AGENT_SDK,
    CODEX_ROLLOUT,
    CODEX_EVENTS,
    OLLAMA,
    PI,
    COPILOT,
    AIDER,
    GEMINI_DOCUMENT,
    GEMINI_LINES,
    QWEN,
    CLINE,
    ROO_CODE,
    AMP,
    CURSOR_CLI,
    OPENCODE,
    OPENCODE_STORAGE,
    CURSOR_IDE,
];

/// One format's test: its name, its fixtures, and the format its files are read as.
#[derive(Clone, Copy)]
struct Target {
    name: &'static str,
    format: Format,
    sets: fn() -> Vec<Vec<Source>>,
}

/// Each fixture its own set (a line format).
fn singles(files: &[(&str, &str)]) -> Vec<Vec<Source>> {
    files.iter().map(|(path, fixture_path)| vec![source(path, fixture_path)]).collect()
}

/// The files of a folder of fixtures, named from `prefix` on, as one set.
fn folder_set(folder: &str, prefix: &str) -> Vec<Source> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(folder);
    read_folder(&root)
        .into_iter()
        .map(|(path, _)| source(&format!("{prefix}/{path}"), &format!("{folder}/{path}")))
        .collect()
}

const CLAUDE_CODE: Target = Target {
    name: "claude_code",
    format: Format::ClaudeCode,
    sets: || {
        singles(&[
            ("-home-dev-app/every-line-type.jsonl", "every-line-type.jsonl"),
            ("-home-dev-app/seed-inline-sidechains.jsonl", "seed-inline-sidechains.jsonl"),
            ("-home-dev-app/seed-extracted-tool-messages.jsonl", "seed-extracted-tool-messages.jsonl"),
        ])
    },
};
const AGENT_SDK: Target = Target {
    name: "agent_sdk",
    format: Format::AgentSdk,
    sets: || singles(&[("agent-sdk-stream.jsonl", "formats/agent-sdk-stream.jsonl")]),
};
const ROLLOUT_NAME: &str = "rollout-2025-10-02T10-11-12-0199a213-81c0-7800-8aa1-bbab2a035a53.jsonl";
const CODEX_ROLLOUT: Target = Target {
    name: "codex_rollout",
    format: Format::CodexRollout,
    sets: || {
        singles(&[(
            "sessions/2025/10/02/rollout-2025-10-02T10-11-12-0199a213-81c0-7800-8aa1-bbab2a035a53.jsonl",
            &format!("formats/{ROLLOUT_NAME}"),
        )])
    },
};
const CODEX_EVENTS: Target = Target {
    name: "codex_events",
    format: Format::CodexEvents,
    sets: || singles(&[("codex-sdk-events.jsonl", "formats/codex-sdk-events.jsonl")]),
};
const OLLAMA: Target = Target {
    name: "ollama",
    format: Format::Ollama,
    sets: || singles(&[("ollama-chat.jsonl", "formats/ollama-chat.jsonl")]),
};
const PI: Target = Target {
    name: "pi",
    format: Format::Pi,
    sets: || {
        singles(&[
            ("sessions/--p--/2025-01-01_5b7e.jsonl", "formats/pi-session.jsonl"),
            ("sessions/--p--/2025-01-02_9c1d.jsonl", "formats/pi-legacy.jsonl"),
        ])
    },
};
const COPILOT: Target = Target {
    name: "copilot_cli",
    format: Format::CopilotCli,
    sets: || singles(&[("session-state/3f1e/events.jsonl", "formats/copilot-events.jsonl")]),
};
const AIDER: Target = Target {
    name: "aider",
    format: Format::Aider,
    sets: || singles(&[(".aider.chat.history.md", "formats/demo.aider.chat.history.md")]),
};
const GEMINI_DOCUMENT: Target = Target {
    name: "gemini_cli_document",
    format: Format::GeminiCli,
    sets: || {
        singles(&[(
            "tmp/7c2e/chats/session-2025-11-03T09-15-7c2e9a41.json",
            "formats/session-2025-11-03T09-15-7c2e9a41.json",
        )])
    },
};
const GEMINI_LINES: Target = Target {
    name: "gemini_cli_lines",
    format: Format::GeminiCli,
    sets: || {
        singles(&[(
            "tmp/b41c/chats/session-2026-02-10T14-00-b41c7d2e.jsonl",
            "formats/session-2026-02-10T14-00-b41c7d2e.jsonl",
        )])
    },
};
const QWEN: Target = Target {
    name: "qwen_code",
    format: Format::QwenCode,
    sets: || singles(&[("tmp/h/chats/qwen-session.jsonl", "formats/qwen-session.jsonl")]),
};
const CLINE: Target = Target {
    name: "cline",
    format: Format::Cline,
    sets: || vec![folder_set("tasks/saoudrizwan.claude-dev", "saoudrizwan.claude-dev")],
};
const ROO_CODE: Target = Target {
    name: "roo_code",
    format: Format::RooCode,
    sets: || {
        vec![
            folder_set("tasks/rooveterinaryinc.roo-cline", "rooveterinaryinc.roo-cline"),
            folder_set("tasks/subtasks/roo-delegation/rooveterinaryinc.roo-cline", "rooveterinaryinc.roo-cline"),
        ]
    },
};
const AMP: Target = Target {
    name: "amp",
    format: Format::Amp,
    sets: || {
        singles(&[(
            "threads/T-7b1e2c3d-4f5a-4b6c-8d7e-9f0a1b2c3d4e.json",
            "formats/T-7b1e2c3d-4f5a-4b6c-8d7e-9f0a1b2c3d4e.json",
        )])
    },
};
const CURSOR_CLI: Target = Target {
    name: "cursor_cli",
    format: Format::CursorCli,
    sets: || {
        let mut sets = singles(&[("projects/p/agent-transcripts/c1/c1.jsonl", "formats/cursor-transcript.jsonl")]);
        let transcripts = "cursor/projects/home-dev-brewlog/agent-transcripts";
        for file in folder_set(transcripts, "projects/home-dev-brewlog/agent-transcripts") {
            sets.push(vec![file]);
        }
        sets
    },
};
const OPENCODE: Target = Target {
    name: "opencode",
    format: Format::OpenCode,
    sets: || singles(&[("opencode.db", "opencode/opencode.jsonl")]),
};
const OPENCODE_STORAGE: Target = Target {
    name: "opencode_storage",
    format: Format::OpenCodeStorage,
    sets: || vec![folder_set("opencode/storage", "storage"), folder_set("opencode/project", "project")],
};
const CURSOR_IDE: Target = Target {
    name: "cursor_ide",
    format: Format::CursorIde,
    sets: || singles(&[("state.vscdb", "cursor/state.jsonl")]),
};

// ---------------------------------------------------------------------------------------------
// The cases: recipes that make files from the fixtures.

/// A line of a file made: a fixture line (`pick`) and its mutations.
#[derive(Clone, Debug)]
struct LineEdit {
    pick: usize,
    ops: Vec<Op>,
}

/// A file of a line format, made of mutated fixture lines.
#[derive(Clone, Debug)]
struct LinesCase {
    set: usize,
    /// The fixture's first line (the header most formats open with) first, unmutated.
    keep_header: bool,
    /// The fixture's lines in their order, rather than picked.
    in_order: bool,
    lines: Vec<LineEdit>,
    /// Blank (or whitespace) lines inserted, before the line of each index.
    blanks: Vec<usize>,
    bom: bool,
    /// 0: `\n`; 1: `\r\n`; 2: `\r\n` after every other line.
    crlf: u8,
    final_newline: bool,
    feed: Feed,
}

fn chunk() -> impl Strategy<Value = usize> {
    prop_oneof![Just(0usize), 1usize..300]
}

fn lines_case() -> impl Strategy<Value = LinesCase> {
    let edit = (0usize..1000, vec(op(), 0..5)).prop_map(|(pick, ops)| LineEdit { pick, ops });
    (
        0usize..16,
        proptest::bool::weighted(0.85),
        proptest::bool::weighted(0.3),
        vec(edit, 1..32),
        vec(0usize..32, 0..3),
        proptest::bool::weighted(0.1),
        0u8..3,
        proptest::bool::weighted(0.8),
        feed(),
    )
        .prop_map(|(set, keep_header, in_order, lines, blanks, bom, crlf, final_newline, feed)| LinesCase {
            set,
            keep_header,
            in_order,
            lines,
            blanks,
            bom,
            crlf,
            final_newline,
            feed,
        })
}

fn make_lines(target: Target, case: &LinesCase) -> Vec<(String, Vec<u8>)> {
    let fixtures = fixtures_of(target);
    let source = &fixtures.sets[case.set % fixtures.sets.len()][0];
    let n = source.lines.len();
    let markdown = target.format == Format::Aider;
    // The header: the first line that is not blank (an Aider history opens with a blank line),
    // and the blank lines before it.
    let header =
        if case.keep_header { source.lines.iter().position(|l| !l.is_empty()).map_or(0, |i| i + 1) } else { 0 };
    let mut lines: Vec<Vec<u8>> = source.lines[..header].to_vec();
    for (i, edit) in case.lines.iter().enumerate() {
        let index = if case.in_order { (i + header) % n } else { edit.pick % n };
        let original = &source.lines[index];
        lines.push(if markdown {
            mutate_text_line(original, &edit.ops, &fixtures.pool)
        } else {
            mutate_record(original, &edit.ops, false, &fixtures.pool)
        });
    }
    for (k, &at) in case.blanks.iter().enumerate() {
        let blank: &[u8] = [&b""[..], b"   ", b"\t"][k % 3];
        lines.insert(at.min(lines.len()), blank.to_vec());
    }
    let mut bytes = Vec::new();
    if case.bom {
        bytes.extend_from_slice(b"\xEF\xBB\xBF");
    }
    let count = lines.len();
    for (i, line) in lines.into_iter().enumerate() {
        bytes.extend_from_slice(&line);
        if i + 1 < count || case.final_newline {
            let crlf = case.crlf == 1 || (case.crlf == 2 && i % 2 == 1);
            bytes.extend_from_slice(if crlf { b"\r\n" } else { b"\n" });
        }
    }
    vec![(source.path.clone(), bytes)]
}

/// One file of a document format's set, edited.
#[derive(Clone, Debug)]
struct FileEdit {
    file: usize,
    ops: Vec<Op>,
    /// Written again pretty-printed (or compact, on one line), once mutated.
    pretty: bool,
    bom: bool,
    crlf: bool,
    /// 0: as it was; 1: without a final newline; 2: with one.
    end: u8,
}

/// Files of a document format: a set of fixture files, some of them edited, one maybe left out.
#[derive(Clone, Debug)]
struct DocsCase {
    set: usize,
    edits: Vec<FileEdit>,
    left_out: Option<usize>,
    feed: Feed,
}

fn docs_case(edits: usize) -> impl Strategy<Value = DocsCase> {
    let edit = (
        0usize..64,
        vec(op(), 1..7),
        proptest::bool::weighted(0.8),
        proptest::bool::weighted(0.1),
        proptest::bool::weighted(0.15),
        0u8..3,
    )
        .prop_map(|(file, ops, pretty, bom, crlf, end)| FileEdit { file, ops, pretty, bom, crlf, end });
    (0usize..4, vec(edit, 1..=edits), proptest::option::weighted(0.1, 0usize..64), feed())
        .prop_map(|(set, edits, left_out, feed)| DocsCase { set, edits, left_out, feed })
}

fn make_docs(target: Target, case: &DocsCase) -> Vec<(String, Vec<u8>)> {
    let fixtures = fixtures_of(target);
    let set = &fixtures.sets[case.set % fixtures.sets.len()];
    let mut files: Vec<(String, Vec<u8>)> = set.iter().map(|s| (s.path.clone(), s.bytes.clone())).collect();
    for edit in &case.edits {
        let i = edit.file % files.len();
        let mut bytes = mutate_record(&files[i].1, &edit.ops, edit.pretty, &fixtures.pool);
        if edit.crlf {
            bytes = String::from_utf8_lossy(&bytes).replace('\n', "\r\n").into_bytes();
        }
        if edit.bom {
            bytes.splice(0..0, *b"\xEF\xBB\xBF");
        }
        match edit.end {
            1 => {
                while bytes.last() == Some(&b'\n') {
                    bytes.pop();
                }
            }
            2 if bytes.last() != Some(&b'\n') => bytes.push(b'\n'),
            _ => {}
        }
        files[i].1 = bytes;
    }
    if let Some(left_out) = case.left_out
        && files.len() > 1
    {
        files.remove(left_out % files.len());
    }
    files
}

// ---------------------------------------------------------------------------------------------
// What every case must hold.

/// Runs and cases read as the format meant, per format, for the long run's report.
struct Tally {
    runs: AtomicU64,
    as_format: AtomicU64,
    start: OnceLock<Instant>,
}

fn tally(target: Target) -> &'static Tally {
    static ALL: OnceLock<Mutex<HashMap<&'static str, &'static Tally>>> = OnceLock::new();
    let mut all = ALL.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    all.entry(target.name).or_insert_with(|| {
        Box::leak(Box::new(Tally { runs: AtomicU64::new(0), as_format: AtomicU64::new(0), start: OnceLock::new() }))
    })
}

/// The bytes of a file, for a failure's message.
fn shown(bytes: &[u8]) -> String {
    let text = bytes.escape_ascii().to_string();
    if text.len() > 3000 { format!("{}… ({} bytes)", &text[..3000], bytes.len()) } else { text }
}

/// How a case's files are fed to the loader: in slices of `chunk` bytes (0: whole), a preview
/// and a snapshot taken after the slice `peek` (as the page's worker does while a file loads and
/// while it follows one), and, with `budget` (per mille of the bytes), a loader that holds only
/// so much (a browser tab).
#[derive(Clone, Copy, Debug)]
struct Feed {
    chunk: usize,
    peek: usize,
    budget: Option<u16>,
}

fn feed() -> impl Strategy<Value = Feed> {
    (chunk(), 0usize..64, proptest::option::weighted(0.1, 0u16..1000)).prop_map(|(chunk, peek, budget)| Feed {
        chunk,
        peek,
        budget,
    })
}

/// Loads `files` as `feed` says; the previews and snapshots taken on the way.
fn load(files: &[(String, Vec<u8>)], feed: Feed) -> (Corpus, Vec<Corpus>) {
    let mut loader = Loader::new();
    if let Some(permille) = feed.budget {
        let total: u64 = files.iter().map(|(_, b)| b.len() as u64).sum();
        loader.hold_at_most(total * u64::from(permille) / 1000, "(a test's budget)");
    }
    let mut peeks = Vec::new();
    let mut slices = 0;
    for (path, bytes) in files {
        let id = loader.add_file(path, bytes.len() as u64);
        let size = if feed.chunk == 0 { bytes.len().max(1) } else { feed.chunk };
        for piece in bytes.chunks(size) {
            loader.push(id, piece);
            slices += 1;
            if slices == feed.peek {
                peeks.push(loader.preview());
                peeks.push(loader.snapshot());
            }
        }
        loader.finish_file(id);
    }
    (loader.finish(), peeks)
}

/// Loads `files` as `feed` says and checks the load: no panic, every line of every file
/// accounted for, every skipped line a diagnostic on its line, nothing past a file's end; the
/// same in slices as whole; then builds the graph and its summary.
fn check(target: Target, files: &[(String, Vec<u8>)], feed: Feed) -> Result<(), TestCaseError> {
    let tally = tally(target);
    tally.start.get_or_init(Instant::now);
    let (corpus, peeks) = load(files, feed);
    check_corpus(&corpus, Some(files))?;
    for peek in &peeks {
        check_corpus(peek, None)?;
    }
    if feed.chunk != 0 && feed.budget.is_none() {
        let whole = Loader::read_all(files.iter().map(|(p, b)| (p, b)));
        let outcome = |c: &Corpus| {
            let counts: Vec<_> = c.files.iter().map(|f| (f.format, f.counts)).collect();
            let diagnostics: Vec<_> = c.diagnostics.iter().map(|d| (d.file, d.line, d.kind)).collect();
            (counts, diagnostics, c.entries.len())
        };
        prop_assert_eq!(outcome(&corpus), outcome(&whole), "in slices of {} bytes as whole", feed.chunk);
    }
    let graph = Graph::build(&corpus);
    let _ = summarize(&corpus, &graph);
    for op in &graph.tool_ops {
        let _ = tools::op_summary(&corpus, op);
        let _ = tools::op_files(&corpus, op);
    }
    if files.iter().all(|(path, _)| corpus.files.iter().any(|f| &f.path == path && f.format == target.format)) {
        tally.as_format.fetch_add(1, Ordering::Relaxed);
    }
    let runs = tally.runs.fetch_add(1, Ordering::Relaxed) + 1;
    if runs == u64::from(cases()) {
        let elapsed = tally.start.get().map_or(0.0, |s| s.elapsed().as_secs_f64());
        let as_format = tally.as_format.load(Ordering::Relaxed);
        eprintln!(
            "fuzz {}: {runs} runs in {elapsed:.1} s, {as_format} ({:.0}%) read as {:?}",
            target.name,
            100.0 * as_format as f64 / runs as f64,
            target.format
        );
    }
    Ok(())
}

/// The checks of a load (`files`: the files given, when it is all of them, not a preview).
fn check_corpus(corpus: &Corpus, files: Option<&[(String, Vec<u8>)]>) -> Result<(), TestCaseError> {
    for (f, info) in corpus.files.iter().enumerate() {
        // A given file's lines are those of its bytes; a file the loader made (OpenCode's
        // storage files as one record stream) has its bytes in the corpus.
        let given = files.and_then(|files| files.iter().find(|(path, _)| path == &info.path));
        let bytes = given.map_or(&corpus.bytes[f][..], |(_, b)| &b[..]);
        let counts = info.counts;
        // (The lines of a file the loader made and then cut, by the budget, are not all in it.)
        let cut_and_made = given.is_none() && info.held.is_some();
        let lines = if files.is_some() && !cut_and_made { count_lines(bytes) } else { counts.lines };
        let what = || format!("{} ({:?}): {counts:?}\n{}", info.path, info.format, shown(bytes));
        prop_assert!(counts.balanced(), "every line once: {}", what());
        prop_assert_eq!(counts.lines, lines, "as many lines as the file has: {}", what());
        let diagnostics: Vec<_> = corpus.diagnostics.iter().filter(|d| d.file as usize == f).collect();
        for d in &diagnostics {
            prop_assert!(u64::from(d.line) <= lines, "a diagnostic past the end: {d:?} in {}", what());
        }
        if counts.skipped > 0 {
            // A file refused whole says why at line 0 (a document over what the loader holds,
            // with a warning: its lines are counted as skipped, not left out).
            let refused = info.format == Format::Rejected && diagnostics.iter().any(|d| d.line == 0);
            prop_assert!(
                refused || diagnostics.iter().any(|d| d.kind.severity() == Severity::Error),
                "lines skipped without an error that says why: {:?} in {}",
                diagnostics,
                what()
            );
        }
        // A line format: each skipped line is an error on its line (a file refused whole is
        // one error, at line 0).
        let document = matches!(
            info.format,
            Format::GeminiCli
                | Format::Cline
                | Format::RooCode
                | Format::Amp
                | Format::OpenCodeStorage
                | Format::Rejected
        );
        if !document {
            let lines_with_errors: BTreeSet<u32> = diagnostics
                .iter()
                .filter(|d| d.line > 0 && d.kind.severity() == Severity::Error)
                .map(|d| d.line)
                .collect();
            prop_assert!(
                lines_with_errors.len() as u64 >= counts.skipped,
                "{} lines skipped, errors on {:?}: {:?} in {}",
                counts.skipped,
                lines_with_errors,
                diagnostics,
                what()
            );
        }
    }
    for (i, entry) in corpus.entries.iter().enumerate() {
        let f = entry.file as usize;
        prop_assert!(f < corpus.files.len(), "entry {i} of no file");
        let lines = corpus.files[f].counts.lines;
        prop_assert!(u64::from(entry.line) <= lines, "entry {i} at line {} of {lines}", entry.line);
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// One test per format of the registry.

macro_rules! fuzz_lines {
    ($($test:ident: $target:expr;)*) => {
        proptest! {
            #![proptest_config(config())]
            $(
                #[test]
                fn $test(case in lines_case()) {
                    let files = make_lines($target, &case);
                    check($target, &files, case.feed)?;
                }
            )*
        }
    };
}

macro_rules! fuzz_docs {
    ($($test:ident: $target:expr, $edits:expr;)*) => {
        proptest! {
            #![proptest_config(config())]
            $(
                #[test]
                fn $test(case in docs_case($edits)) {
                    let files = make_docs($target, &case);
                    check($target, &files, case.feed)?;
                }
            )*
        }
    };
}

fuzz_lines! {
    fuzz_claude_code: CLAUDE_CODE;
    fuzz_agent_sdk: AGENT_SDK;
    fuzz_codex_rollout: CODEX_ROLLOUT;
    fuzz_codex_events: CODEX_EVENTS;
    fuzz_ollama: OLLAMA;
    fuzz_pi: PI;
    fuzz_copilot_cli: COPILOT;
    fuzz_aider: AIDER;
    fuzz_gemini_cli_lines: GEMINI_LINES;
    fuzz_qwen_code: QWEN;
    fuzz_cursor_cli: CURSOR_CLI;
    fuzz_opencode: OPENCODE;
    fuzz_cursor_ide: CURSOR_IDE;
}

fuzz_docs! {
    fuzz_gemini_cli_document: GEMINI_DOCUMENT, 1;
    fuzz_cline: CLINE, 3;
    fuzz_roo_code: ROO_CODE, 3;
    fuzz_amp: AMP, 1;
    fuzz_opencode_storage: OPENCODE_STORAGE, 6;
}

/// The strategies make what they say: a fixture unmutated is the fixture, and the structural
/// mutations keep JSON that parses (unless they write raw text on purpose).
#[test]
fn the_recipes_make_real_shaped_records() {
    let fixtures = fixtures_of(CODEX_EVENTS);
    let line = &fixtures.sets[0][0].lines[1];
    assert_eq!(&mutate_record(line, &[], false, &fixtures.pool), line);
    let tree = J::parse(line).unwrap();
    assert_eq!(J::parse(&tree.to_bytes(false)), Some(tree.clone()));
    assert_eq!(J::parse(&tree.to_bytes(true)), Some(tree));
    for what in [What::DropKey, What::DuplicateKey, What::ReorderKeys, What::EditArray, What::Graft] {
        for seed in 0..50 {
            let made = mutate_record(line, &[Op { what, seed }], false, &fixtures.pool);
            let value: Result<serde_json::Value, _> = serde_json::from_slice(&made);
            assert!(value.is_ok(), "{what:?} {seed}: {}", shown(&made));
        }
    }
    let case = LinesCase {
        set: 0,
        keep_header: true,
        in_order: true,
        lines: (0..fixtures.sets[0][0].lines.len() - 1).map(|pick| LineEdit { pick, ops: Vec::new() }).collect(),
        blanks: Vec::new(),
        bom: false,
        crlf: 0,
        final_newline: true,
        feed: Feed { chunk: 0, peek: 0, budget: None },
    };
    assert_eq!(make_lines(CODEX_EVENTS, &case)[0].1, fixtures.sets[0][0].bytes);
}

// ---------------------------------------------------------------------------------------------
// What the fuzzing found, each with the smallest input that showed it.

/// A file that the sniff rejects only once the loader's budget is reached, in the chunk that
/// passes it: the line split at the budget was counted twice, once with the rejected file's lines
/// and once as left out (found by `fuzz_codex_events`).
#[test]
fn a_file_rejected_where_the_budget_cuts_it_counts_the_line_cut_once() {
    let mut bytes = b"\n".to_vec();
    for i in 0..16 {
        bytes.extend_from_slice(format!("{{\"a\":{i}}}\n").as_bytes());
    }
    let mut loader = Loader::new();
    loader.hold_at_most(127, "why");
    let id = loader.add_file("x.jsonl", bytes.len() as u64);
    loader.push(id, &bytes);
    loader.finish_file(id);
    let corpus = loader.finish();
    let counts = corpus.files[0].counts;
    assert_eq!(corpus.files[0].format, Format::Rejected);
    assert!(counts.balanced(), "{counts:?}");
    assert_eq!(counts.lines, count_lines(&bytes), "{counts:?}");
}

/// An OpenCode part whose times are past any date (`1e19` ms) gave tool calls durations near
/// `i64::MAX`, whose sum in the tool statistics overflowed (a panic where overflows are checked,
/// a negative total elsewhere): such a time is now no time (found by `fuzz_opencode`).
#[test]
fn opencode_times_past_any_date_are_no_time() {
    let tool = |id: &str, time: &str| {
        format!(
            "{{\"table\":\"part\",\"id\":\"{id}\",\"session_id\":\"s\",\"message_id\":\"m\",\"data\":{{\"type\":\"tool\",\
             \"callID\":\"{id}\",\"tool\":\"bash\",\"state\":{{\"status\":\"completed\",\"input\":{{}},\"output\":\"\",\
             \"time\":{time}}}}}}}\n"
        )
    };
    let bytes = [
        "{\"table\":\"session\",\"id\":\"s\",\"time_created\":18446744073709551616}\n".to_owned(),
        "{\"table\":\"message\",\"id\":\"m\",\"session_id\":\"s\",\"time_created\":1750000002000,\"data\":{\"role\":\"assistant\",\
         \"time\":{\"created\":1750000002000,\"completed\":-1e300}}}\n"
            .to_owned(),
        tool("p1", "{\"start\":1750000002300,\"end\":18446744073709551616}"),
        tool("p2", "{\"start\":1,\"end\":1e300}"),
    ]
    .concat();
    let corpus = load_chunked(&[("opencode.db".to_owned(), bytes.clone().into_bytes())], 0);
    assert_eq!(corpus.files[0].format, Format::OpenCode);
    assert_eq!(corpus.files[0].counts.lines, 4);
    assert!(corpus.files[0].counts.balanced());
    let graph = Graph::build(&corpus);
    let _ = summarize(&corpus, &graph);
    assert!(corpus.entries.iter().all(|e| e.timestamp_ms == i64::MIN || e.timestamp_ms < 1e15 as i64));
    for op in &graph.tool_ops {
        assert!(op.duration_ms < 1e15 as i64, "{}", op.duration_ms);
    }
}

/// A Codex rollout line whose `timestamp` is a number past any date (`18446744073709551615`)
/// was read as `i64::MAX` ms: the calls it interrupted got durations near `i64::MAX`, whose sum
/// in the tool statistics overflowed. The importers' time parser (`json::parse_time`) now takes
/// such a number for no time (found by `fuzz_codex_rollout`).
#[test]
fn a_codex_timestamp_past_any_date_is_no_time() {
    let call = |id: &str| {
        format!(
            "{{\"timestamp\":\"2025-10-02T10:11:27.233Z\",\"type\":\"response_item\",\"payload\":{{\"type\":\"function_call\",\
             \"name\":\"shell\",\"arguments\":\"{{}}\",\"call_id\":\"{id}\"}}}}\n"
        )
    };
    let bytes = [
        call("c1"),
        call("c2"),
        "{\"timestamp\":18446744073709551615,\"type\":\"event_msg\",\"payload\":{\"type\":\"turn_aborted\",\"reason\":\"interrupted\"}}"
            .to_owned(),
    ]
    .concat();
    let corpus = load_chunked(&[(ROLLOUT_NAME.to_owned(), bytes.into_bytes())], 0);
    assert_eq!(corpus.files[0].format, Format::CodexRollout);
    assert!(corpus.files[0].counts.balanced());
    let graph = Graph::build(&corpus);
    let _ = summarize(&corpus, &graph);
    assert!(corpus.entries.iter().all(|e| e.timestamp_ms < 1e15 as i64), "no time past any date");
}

/// A Cursor IDE chat or bubble whose `createdAt` is a number past any date was read as
/// `i64::MAX` ms (a session of 292 million years), the times that made the OpenCode and Codex
/// durations overflow: such a time is now no time there too (seen while fuzzing `cursor_ide`).
#[test]
fn cursor_ide_times_past_any_date_are_no_time() {
    let text = String::from_utf8(fixture("cursor/state.jsonl")).unwrap();
    let text = text.replacen("\"createdAt\":1750100000000", "\"createdAt\":18446744073709551615", 1).replacen(
        "\"createdAt\":\"2025-06-16T20:00:30.000Z\"",
        "\"createdAt\":1e300",
        1,
    );
    let corpus = load_chunked(&[("state.vscdb".to_owned(), text.into_bytes())], 0);
    assert_eq!(corpus.files[0].format, Format::CursorIde);
    assert!(corpus.entries.iter().all(|e| e.timestamp_ms < 1e15 as i64), "no time past any date");
}
