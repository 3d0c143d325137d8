//! Invented text: prompts, prose, markdown, code and command output.
//!
//! Everything here is made up for the generator. Templates hold `{placeholder}`
//! names that [`Vocab::expand`] fills with random picks from the pools below.

use crate::json::LONE_SURROGATE;
use crate::rng::Rng;

const FILES: &[&str] = &[
    "src/lib.rs",
    "src/main.rs",
    "src/ledger.rs",
    "src/ledger/entry.rs",
    "src/ledger/balance.rs",
    "src/import/csv.rs",
    "src/import/ofx.rs",
    "src/report/table.rs",
    "src/report/chart.rs",
    "src/config.rs",
    "src/store/sqlite.rs",
    "src/store/cache.rs",
    "src/cli/args.rs",
    "src/money.rs",
    "tests/import_roundtrip.rs",
    "tests/balance_props.rs",
    "benches/bulk_insert.rs",
    "web/src/App.tsx",
    "web/src/components/LedgerView.tsx",
    "web/src/hooks/useEntries.ts",
    "docs/architecture.md",
    "Cargo.toml",
    "README.md",
    "scripts/release.sh",
];

const FUNCTIONS: &[&str] = &[
    "parse_amount",
    "load_config",
    "apply_rules",
    "merge_duplicates",
    "render_row",
    "flush_pending",
    "next_token",
    "resolve_account",
    "rebuild_index",
    "import_statement",
    "round_half_even",
    "split_transaction",
    "open_store",
    "compact_journal",
    "format_currency",
    "validate_entry",
];

const TYPES: &[&str] = &[
    "Entry",
    "Ledger",
    "Amount",
    "AccountId",
    "ImportError",
    "RuleSet",
    "Journal",
    "Posting",
    "ReportRow",
    "StoreHandle",
    "Currency",
    "Settings",
];

const VARIABLES: &[&str] =
    &["entry", "total", "rows", "cursor", "amount", "rule", "ledger", "buf", "account", "pending", "posting", "index"];

const NOUNS: &[&str] = &[
    "the CSV importer",
    "the balance check",
    "the rounding helper",
    "the report renderer",
    "the journal compactor",
    "the config loader",
    "the SQLite store",
    "the duplicate detector",
    "the currency formatter",
    "the rule engine",
    "the date parser",
    "the CLI argument parser",
];

const CRATES: &[&str] =
    &["harbor-core", "harbor-import", "harbor-report", "tallyho", "quillmark", "bytewise", "ferrofmt", "nimbus-sql"];

const MODULES: &[&str] = &[
    "ledger::entry",
    "ledger::balance",
    "import::csv",
    "import::ofx",
    "report::table",
    "money",
    "store::cache",
    "config",
];

const WORDS: &[&str] = &[
    "amount", "ledger", "posting", "rounding", "cursor", "journal", "import", "balance", "row", "column", "currency",
    "rule", "cache", "index", "snapshot", "batch", "header", "offset",
];

const EMOJI: &[&str] = &["✅", "❌", "⚠️", "🚀", "🔧", "📋", "🧪", "💡", "🎉", "📦"];

const CJK: &[&str] = &[
    "残高が一致しません",
    "测试全部通过",
    "금액 형식 오류",
    "日付の解析に失敗",
    "导入完成",
    "設定ファイルを読み込み中",
];

const LATIN_EXTRA: &[&str] = &["café", "naïve", "Zürich", "São Paulo", "Ångström", "façade"];

const COMMIT_MESSAGES: &[&str] = &[
    "fix rounding of negative amounts",
    "add OFX importer skeleton",
    "speed up duplicate detection",
    "report: align currency columns",
    "store: retry on busy database",
    "bump tallyho to 0.9",
    "docs: describe rule precedence",
    "cli: add --since flag",
];

/// Word pools and the project's paths, shared by all text producers.
#[derive(Debug, Clone)]
pub struct Vocab {
    pub cwd: String,
}

impl Vocab {
    pub fn new(cwd: &str) -> Vocab {
        Vocab { cwd: cwd.to_string() }
    }

    /// A project-relative file path.
    pub fn file(&self, rng: &mut Rng) -> &'static str {
        rng.pick(FILES)
    }

    /// An absolute path inside the project.
    pub fn path(&self, rng: &mut Rng) -> String {
        format!("{}/{}", self.cwd, self.file(rng))
    }

    /// Appends `template` with each `{name}` replaced by a random pick; `{{` and `}}`
    /// stand for literal braces.
    pub fn expand(&self, rng: &mut Rng, template: &str, out: &mut String) {
        let bytes = template.as_bytes();
        let mut literal_start = 0;
        let mut index = 0;
        while index < bytes.len() {
            let doubled = bytes.get(index + 1) == Some(&bytes[index]);
            match bytes[index] {
                b'{' | b'}' if doubled => {
                    out.push_str(&template[literal_start..=index]);
                    index += 2;
                    literal_start = index;
                }
                b'{' => {
                    let Some(length) = template[index + 1..].find('}') else {
                        break;
                    };
                    out.push_str(&template[literal_start..index]);
                    self.fill(rng, &template[index + 1..index + 1 + length], out);
                    index += length + 2;
                    literal_start = index;
                }
                _ => index += 1,
            }
        }
        out.push_str(&template[literal_start..]);
    }

    /// Expands one template picked at random from `templates`.
    pub fn expand_pick(&self, rng: &mut Rng, templates: &[&str], out: &mut String) {
        let template = rng.pick(templates);
        self.expand(rng, template, out);
    }

    fn fill(&self, rng: &mut Rng, name: &str, out: &mut String) {
        match name {
            "file" => out.push_str(rng.pick(FILES)),
            "path" => {
                out.push_str(&self.cwd);
                out.push('/');
                out.push_str(rng.pick(FILES));
            }
            "cwd" => out.push_str(&self.cwd),
            "fn" => out.push_str(rng.pick(FUNCTIONS)),
            "ty" => out.push_str(rng.pick(TYPES)),
            "var" => out.push_str(rng.pick(VARIABLES)),
            "noun" => out.push_str(rng.pick(NOUNS)),
            "crate" => out.push_str(rng.pick(CRATES)),
            "mod" => out.push_str(rng.pick(MODULES)),
            "word" => out.push_str(rng.pick(WORDS)),
            "emoji" => out.push_str(rng.pick(EMOJI)),
            "cjk" => out.push_str(rng.pick(CJK)),
            "latin" => out.push_str(rng.pick(LATIN_EXTRA)),
            "commit" => out.push_str(rng.pick(COMMIT_MESSAGES)),
            "n" => push_number(out, rng.range(1, 400)),
            "big" => push_number(out, rng.range(1_000, 250_000)),
            "ms" => push_number(out, rng.range(0, 999)),
            "cents" => {
                push_number(out, rng.range(1, 9_999));
                out.push('.');
                let cents = rng.below(100);
                if cents < 10 {
                    out.push('0');
                }
                push_number(out, cents);
            }
            "ver" => {
                push_number(out, rng.below(3));
                out.push('.');
                push_number(out, rng.below(30));
                out.push('.');
                push_number(out, rng.below(12));
            }
            "hex" => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                for _ in 0..7 {
                    out.push(HEX[rng.index(16)] as char);
                }
            }
            "status" => out.push_str(if rng.chance(0.97) { "ok" } else { "FAILED" }),
            other => {
                // Unknown names are kept literally, braces included.
                out.push('{');
                out.push_str(other);
                out.push('}');
            }
        }
    }

    /// Appends one sentence of assistant-style prose.
    pub fn sentence(&self, rng: &mut Rng, out: &mut String) {
        self.expand_pick(rng, SENTENCES, out);
    }

    /// Appends prose of about `approx_bytes` bytes, in paragraphs.
    pub fn prose(&self, rng: &mut Rng, approx_bytes: usize, out: &mut String) {
        let start = out.len();
        let mut in_paragraph = 0;
        while out.len() - start < approx_bytes {
            if in_paragraph > 0 {
                out.push(' ');
            }
            self.sentence(rng, out);
            in_paragraph += 1;
            if in_paragraph >= 3 && rng.chance(0.4) {
                out.push_str("\n\n");
                in_paragraph = 0;
            }
        }
    }

    /// A user prompt, sometimes with a code fence, unicode or injected markup.
    pub fn user_prompt(&self, rng: &mut Rng) -> String {
        let mut prompt = String::new();
        self.expand_pick(rng, PROMPTS, &mut prompt);
        if rng.chance(0.15) {
            prompt.push_str("\n\nThe failing output looks like this:\n\n```\n");
            self.expand(
                rng,
                "thread 'main' panicked at {file}:{n}:{n}:\nassertion `left == right` failed\n  left: \"{cents}\"\n right: \"{cents}\"",
                &mut prompt,
            );
            prompt.push_str("\n```");
        }
        if rng.chance(0.05) {
            prompt.push_str("\n\nAlso the label shows \"");
            self.expand(rng, "{cjk}", &mut prompt);
            prompt.push_str("\" on the Japanese locale, is that expected? {emoji}");
        }
        prompt
    }

    /// Markdown the way an assistant answers: headings, lists, a table or a code fence.
    pub fn markdown(&self, rng: &mut Rng, approx_bytes: usize) -> String {
        let mut text = String::with_capacity(approx_bytes + 256);
        self.sentence(rng, &mut text);
        text.push_str("\n\n");
        while text.len() < approx_bytes {
            match rng.below(6) {
                0 => {
                    self.expand(rng, "## What changed in `{file}`\n\n", &mut text);
                }
                1 => {
                    for _ in 0..rng.range(2, 5) {
                        text.push_str("- ");
                        self.expand_pick(rng, BULLETS, &mut text);
                        text.push('\n');
                    }
                    text.push('\n');
                }
                2 => {
                    text.push_str("| Test | Before | After |\n|------|--------|-------|\n");
                    for _ in 0..rng.range(2, 5) {
                        self.expand(rng, "| `{mod}::{fn}` | {n} ms | {n} ms |\n", &mut text);
                    }
                    text.push('\n');
                }
                3 => {
                    text.push_str("```rust\n");
                    let length = rng.range(120, 600) as usize;
                    self.code(rng, Lang::Rust, length, &mut text);
                    text.push_str("```\n\n");
                }
                4 => {
                    self.expand(rng, "{emoji} ", &mut text);
                    self.sentence(rng, &mut text);
                    text.push_str("\n\n");
                }
                _ => {
                    self.prose(rng, 160, &mut text);
                    text.push_str("\n\n");
                }
            }
        }
        text.truncate(text.trim_end().len());
        text
    }

    /// Appends about `approx_bytes` of source code in `lang`, one line at a time.
    pub fn code(&self, rng: &mut Rng, lang: Lang, approx_bytes: usize, out: &mut String) {
        let lines = match lang {
            Lang::Rust => RUST_LINES,
            Lang::TypeScript => TS_LINES,
            Lang::Toml => TOML_LINES,
            Lang::Markdown => DOC_LINES,
        };
        let start = out.len();
        while out.len() - start < approx_bytes {
            self.expand_pick(rng, lines, out);
            out.push('\n');
        }
    }

    /// Appends about `approx_bytes` of terminal output in one of several genres.
    pub fn command_output(&self, rng: &mut Rng, approx_bytes: usize, out: &mut String) {
        let genre = rng.pick(&[BUILD_LINES, TEST_LINES, GIT_LINES, LS_LINES, LOG_LINES]);
        let start = out.len();
        while out.len() - start < approx_bytes {
            self.expand_pick(rng, genre, out);
            out.push('\n');
            if rng.chance(0.001) {
                self.expand(rng, "note: {cjk} / {latin} {emoji}\n", out);
            }
        }
    }

    /// Appends grep-style `path:line:text` matches.
    pub fn grep_output(&self, rng: &mut Rng, approx_bytes: usize, out: &mut String) {
        let start = out.len();
        while out.len() - start < approx_bytes {
            self.expand(rng, "{file}:{n}:", out);
            self.expand_pick(rng, RUST_LINES, out);
            out.push('\n');
        }
    }

    /// Appends a fetched web page summary in markdown.
    pub fn web_page(&self, rng: &mut Rng, approx_bytes: usize, out: &mut String) {
        let start = out.len();
        out.push_str("# Fixed-point money in practice\n\n");
        while out.len() - start < approx_bytes {
            match rng.below(4) {
                0 => self.expand(rng, "## Section {n}: {word} handling\n\n", out),
                1 => {
                    out.push_str("```toml\n");
                    self.code(rng, Lang::Toml, 120, out);
                    out.push_str("```\n\n");
                }
                _ => {
                    self.prose(rng, 300, out);
                    out.push_str("\n\n");
                }
            }
        }
    }
}

/// Languages that [`Vocab::code`] can imitate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    Rust,
    TypeScript,
    Toml,
    Markdown,
}

impl Lang {
    /// The language a project file is written in, judged by its extension.
    pub fn of_file(path: &str) -> Lang {
        if path.ends_with(".ts") || path.ends_with(".tsx") {
            Lang::TypeScript
        } else if path.ends_with(".toml") {
            Lang::Toml
        } else if path.ends_with(".md") || path.ends_with(".sh") {
            Lang::Markdown
        } else {
            Lang::Rust
        }
    }
}

/// Appends a string that ends with a lone high surrogate, as real tool output sometimes does.
pub fn push_lone_surrogate_line(out: &mut String) {
    out.push_str("progress: ▰▰▰▱▱ ");
    out.push(LONE_SURROGATE);
    out.push('\n');
}

/// Appends an unsigned number in decimal without going through `fmt`.
pub fn push_number(out: &mut String, mut value: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (value % 10) as u8;
        value /= 10;
        if value == 0 {
            break;
        }
    }
    for digit in &digits[at..] {
        out.push(*digit as char);
    }
}

/// Invented tasks a developer might give the agent.
pub const PROMPTS: &[&str] = &[
    "The `{fn}` test in {file} fails since yesterday's merge, can you find out why?",
    "Please add a `--since` flag to the report command so I can filter entries by date.",
    "{noun} is slow on big statements (around {big} rows). Profile it and suggest a fix.",
    "Refactor {file} so that `{ty}` no longer clones the whole buffer on every call.",
    "Why does `{fn}` return a negative zero for refunds? Fix it and add a regression test.",
    "Run the test suite and fix whatever is red.",
    "Can you write a short section in docs/architecture.md explaining how {noun} works?",
    "Rename `{ty}` to `{ty}Record` everywhere, keep the public API compatible with a type alias.",
    "The CI job on the `release` branch prints \"database is locked\" sometimes. Investigate.",
    "Add property tests for `{fn}` covering amounts with 0, 1 and 3 decimal places.",
    "ok, commit that with a sensible message",
    "looks good. now do the same for {file}",
    "Hmm, that broke the web view: the totals column shows NaN. Check {file}.",
    "Use a BTreeMap instead of the HashMap in {file} so the report order is stable.",
    "Explain the difference between `{fn}` and `{fn}` before you change anything.",
    "Please review the diff of the last commit and list anything risky.",
];

const SENTENCES: &[&str] = &[
    "Let me look at how {noun} handles this case.",
    "The failure comes from `{fn}` in {file}, which rounds before summing.",
    "I'll check the callers of `{fn}` first, since `{ty}` is shared with {noun}.",
    "That means the `{var}` passed to `{fn}` can be empty when the statement has no header row.",
    "Running the tests again should confirm the fix.",
    "The benchmark drops from {n} ms to {n} ms on a file of {big} rows.",
    "There are {n} call sites, but only the one in {file} relies on the old ordering.",
    "I need to be careful here: changing `{ty}` affects the on-disk format.",
    "The simplest fix is to normalise the sign before formatting.",
    "Both `{fn}` and `{fn}` assume UTF-8 input, so a BOM in the CSV breaks the first column.",
    "Now the {word} stays consistent across imports.",
    "The test uses a fixture with the amount \"{cents}\", which is exactly the boundary case.",
    "I'm going to update {file} and then run `cargo test -p {crate}`.",
    "This should not change any public signature.",
    "Looking at the git history, the regression arrived with \"{commit}\".",
    "The error message mentions `{ty}`, so the problem is probably in {noun}.",
];

const BULLETS: &[&str] = &[
    "`{fn}` now returns `Result<{ty}, ImportError>` instead of panicking",
    "moved the rounding into {file}",
    "added a regression test for amounts like `{cents}`",
    "{noun} no longer allocates per row",
    "kept `{ty}` as a type alias for compatibility",
    "documented the rule precedence in docs/architecture.md",
];

const RUST_LINES: &[&str] = &[
    "use crate::{mod}::{ty};",
    "pub fn {fn}({var}: &{ty}) -> Result<{ty}, ImportError> {",
    "    let mut {var} = {ty}::default();",
    "    for {var} in {var}.iter() {",
    "        if {var}.is_empty() {",
    "            return Err(ImportError::Empty {{ line: {n} }});",
    "        }",
    "    }",
    "    Ok({var})",
    "}",
    "",
    "/// Returns the {word} of the {word}, rounded half to even.",
    "#[derive(Debug, Clone, PartialEq)]",
    "pub struct {ty} {",
    "    pub {var}: u64,",
    "    {var}: Vec<{ty}>,",
    "impl {ty} {",
    "    assert_eq!({fn}(&{var}), Ok({n}));",
    "    let {var} = {fn}(\"{cents}\")?;",
    "#[test]",
    "fn {fn}_handles_{word}() {",
    "        .map(|{var}| {var}.amount)",
    "        .sum::<i64>();",
    "    // Negative zero must print as 0.00, see {file}.",
    "    match {var} {",
    "        Some({var}) => {fn}({var}),",
    "        None => return Ok(()),",
    "    tracing::debug!(rows = {n}, \"imported {word} batch\");",
];

const TS_LINES: &[&str] = &[
    "import {{ {ty} }} from \"../{word}\";",
    "export function {fn}({var}: {ty}[]): number {",
    "  const {var} = useMemo(() => {fn}(rows), [rows]);",
    "  return {var}.reduce((sum, row) => sum + row.amount, 0);",
    "}",
    "  if (!{var}) return null;",
    "  <td className=\"amount\">{{format({var})}}</td>",
    "// TODO: move {word} formatting to the server",
    "",
];

const TOML_LINES: &[&str] = &[
    "[package]",
    "name = \"{crate}\"",
    "version = \"{ver}\"",
    "edition = \"2021\"",
    "",
    "[dependencies]",
    "{crate} = \"{ver}\"",
    "{crate} = {{ version = \"{ver}\", features = [\"{word}\"] }}",
];

const DOC_LINES: &[&str] = &[
    "# {ty}",
    "",
    "The {word} is stored as an integer number of cents.",
    "- `{fn}`: converts a {word} to a {word}",
    "Run `cargo test -p {crate}` before sending a patch.",
    "echo \"building {crate} {ver}\"",
];

const BUILD_LINES: &[&str] = &[
    "   Compiling {crate} v{ver} ({cwd})",
    "   Compiling {crate} v{ver}",
    "warning: unused variable: `{var}`",
    "  --> {file}:{n}:{n}",
    "   |",
    "{n} |     let {var} = {fn}(&{var});",
    "    Finished `dev` profile [unoptimized + debuginfo] target(s) in {n}.{ms}s",
    "    Checking {crate} v{ver}",
];

const TEST_LINES: &[&str] = &[
    "test {mod}::tests::{fn} ... {status}",
    "test {mod}::tests::{fn}_handles_{word} ... {status}",
    "running {n} tests",
    "     Running unittests src/lib.rs (target/debug/deps/{crate}-{hex})",
    "test result: ok. {n} passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.{ms}s",
    "   Doc-tests {crate}",
];

const GIT_LINES: &[&str] = &[
    "{hex} {commit}",
    " {file} | {n} ++++++----",
    "commit {hex}{hex}{hex}",
    "Author: Dev Example <dev@example.invalid>",
    "    {commit}",
    "diff --git a/{file} b/{file}",
    "@@ -{n},{n} +{n},{n} @@ fn {fn}(",
    "-    let {var} = {fn}({var});",
    "+    let {var} = {fn}(&{var})?;",
];

const LS_LINES: &[&str] =
    &["-rw-r--r--  1 dev dev  {big} Feb 11 20:{n} {file}", "drwxr-xr-x  4 dev dev   4096 Feb 11 19:{n} src", "{path}"];

const LOG_LINES: &[&str] = &[
    "2026-02-11T20:{n}:{n}.{ms}Z INFO  {crate}::{mod}: imported {big} rows in {n} ms",
    "2026-02-11T20:{n}:{n}.{ms}Z DEBUG {crate}::{mod}: cache hit for {word} #{n}",
    "2026-02-11T20:{n}:{n}.{ms}Z WARN  {crate}::{mod}: {word} \"{cents}\" rounded to even",
    "2026-02-11T20:{n}:{n}.{ms}Z ERROR {crate}::{mod}: {cjk} (row {n})",
];

/// A project name's first word, for generated histories.
pub fn project_word(index: usize) -> &'static str {
    CRATES[index % CRATES.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expands_placeholders_and_keeps_unknown_ones() {
        let vocab = Vocab::new("/home/dev/projects/demo");
        let mut rng = Rng::new(1);
        let mut out = String::new();
        vocab.expand(&mut rng, "a {cwd} b {nope} c {{x}} {", &mut out);
        assert_eq!(out, "a /home/dev/projects/demo b {nope} c {x} {");
    }

    #[test]
    fn produces_roughly_the_requested_amount() {
        let vocab = Vocab::new("/p");
        let mut rng = Rng::new(2);
        let mut out = String::new();
        vocab.command_output(&mut rng, 10_000, &mut out);
        assert!(out.len() >= 10_000 && out.len() < 11_000);
    }
}
