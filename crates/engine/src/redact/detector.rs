//! The detector: every detector over one decoded text, overlaps resolved by rank.

use std::cmp::Reverse;
use std::sync::OnceLock;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use regex::bytes::{Regex, RegexBuilder};

use super::paths::NameMatcher;
use super::rules::{self, Compiled, RULES};
use super::text::{boundary_after, boundary_before, is_word, snap};
use super::{DetectOptions, Hit, Kind, PatternError, entropy, env, net, paths};

/// Trigger bits beyond the regex rules (which use bit = rule index).
const PK_BIT: u32 = 62;
const HOME_BIT: u32 = 63;

/// Ranks of the non-rule detectors (rule ranks are 0 and 1, generic-secret 4).
pub(crate) const RANK_USER_PATTERN: u8 = 1;
pub(crate) const RANK_KNOWN: u8 = 2;
pub(crate) const RANK_ENV: u8 = 3;
pub(crate) const RANK_GENERIC_VALUE: u8 = 4;
pub(crate) const RANK_PII: u8 = 5;
pub(crate) const RANK_ENTROPY: u8 = 6;
pub(crate) const RANK_NAME: u8 = 7;

/// Texts shorter than this are not scanned by the built-in detectors.
const MIN_TEXT: usize = 6;

struct Builtin {
    ac: AhoCorasick,
    masks: Vec<u64>,
    /// Per keyword: counts only where a token starts.
    starts: Vec<bool>,
    /// Rules with no keyword.
    always: u64,
    compiled: Vec<Compiled>,
    home: Regex,
    pk_begin: Regex,
}

static BUILTIN: OnceLock<Builtin> = OnceLock::new();

fn builtin() -> &'static Builtin {
    BUILTIN.get_or_init(|| {
        assert!(RULES.len() < PK_BIT as usize);
        let mut words: Vec<&'static str> = Vec::new();
        let mut masks: Vec<u64> = Vec::new();
        let mut add = |w: &'static str, bit: u32| match words.iter().position(|x| *x == w) {
            Some(i) => masks[i] |= 1 << bit,
            None => {
                words.push(w);
                masks.push(1 << bit);
            }
        };
        let mut always = 0u64;
        for (i, r) in RULES.iter().enumerate() {
            if r.keywords.is_empty() {
                always |= 1 << i;
            }
            for k in r.keywords {
                add(k, i as u32);
            }
        }
        add("private key", PK_BIT);
        for k in ["/home/", "/users/", "\\users\\", "-home-", "-users-"] {
            add(k, HOME_BIT);
        }
        // Keywords that only count at the start of a token (all their rules are prefix rules).
        let starts: Vec<bool> = words
            .iter()
            .map(|w| {
                RULES.iter().filter(|r| r.keywords.contains(w)).all(|r| r.prefix_keywords())
                    && !matches!(*w, "private key" | "/home/" | "/users/" | "\\users\\" | "-home-" | "-users-")
            })
            .collect();
        // Non-overlapping (leftmost-longest) search is faster than overlapping; a keyword hidden
        // inside a longer one (`sk-` in `sk-ant-`) is covered by giving the longer one its rules.
        for i in 0..words.len() {
            for j in 0..words.len() {
                if i != j && words[i].contains(words[j]) {
                    masks[i] |= masks[j];
                }
            }
        }
        let ac = AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::LeftmostLongest)
            .build(&words)
            .expect("keyword automaton");
        Builtin {
            ac,
            masks,
            starts,
            always,
            compiled: rules::compile(),
            home: paths::home_regex(),
            pk_begin: Regex::new(r"(?-u)-----BEGIN[ A-Z0-9]{0,30}PRIVATE KEY(?: BLOCK)?-----").expect("pk regex"),
        }
    })
}

/// Compiles the built-in rules now instead of on first use (they are compiled once per process
/// and shared by every [`Detector`]).
pub fn warm_up() {
    builtin();
}

/// A candidate finding before overlaps are resolved.
#[derive(Clone, Debug)]
pub(crate) struct Cand {
    pub start: usize,
    pub end: usize,
    pub kind: Kind,
    pub rank: u8,
}

/// Literal search of secrets already found, so that a secret gets redacted wherever it appears.
pub(crate) struct Known {
    ac: AhoCorasick,
    kinds: Vec<Kind>,
}

impl Known {
    pub(crate) fn new(items: Vec<(String, Kind)>) -> Option<Known> {
        if items.is_empty() {
            return None;
        }
        let (pats, kinds): (Vec<String>, Vec<Kind>) = items.into_iter().unzip();
        let ac = AhoCorasickBuilder::new().match_kind(MatchKind::LeftmostLongest).build(&pats).ok()?;
        Some(Known { ac, kinds })
    }

    fn find(&self, t: &[u8], out: &mut Vec<Cand>) {
        for m in self.ac.find_iter(t) {
            let (s, e) = (m.start(), m.end());
            if (is_word(t[s]) && !boundary_before(t, s)) || (is_word(t[e - 1]) && !boundary_after(t, e)) {
                continue;
            }
            out.push(Cand { start: s, end: e, kind: self.kinds[m.pattern().as_usize()], rank: RANK_KNOWN });
        }
    }
}

/// What the redactor adds to a plain [`Detector::find`].
#[derive(Default, Clone, Copy)]
pub(crate) struct Extra<'a> {
    /// The text is the value of a key that names a secret (`"password": "…"`): the whole value
    /// is a generic secret unless it is a placeholder.
    pub whole_value: bool,
    pub names: Option<&'a NameMatcher>,
    pub known: Option<&'a Known>,
}

/// Detects secrets and personal data in decoded text. Compiled once (the built-in rules are
/// shared process-wide); `Send + Sync`.
pub struct Detector {
    b: &'static Builtin,
    entropy: bool,
    emails: bool,
    ip_addresses: bool,
    home_paths: bool,
    env_dumps: bool,
    user: Vec<Regex>,
}

impl std::fmt::Debug for Detector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Detector").field("user_patterns", &self.user.len()).finish_non_exhaustive()
    }
}

impl Detector {
    /// Compiles the user patterns (regular expressions, Rust `regex` syntax; when a pattern has
    /// a capture group, group 1 is the part replaced). A pattern that does not compile, or that
    /// matches the empty string, is an error naming it.
    pub fn new(opts: &DetectOptions) -> Result<Detector, PatternError> {
        let mut user = Vec::new();
        for (index, pattern) in opts.user_patterns.iter().enumerate() {
            let err = |reason: String| PatternError { index, pattern: pattern.clone(), reason };
            if pattern.is_empty() {
                return Err(err("empty pattern".into()));
            }
            let re = RegexBuilder::new(pattern)
                .size_limit(1 << 22)
                .dfa_size_limit(1 << 22)
                .build()
                .map_err(|e| err(e.to_string()))?;
            if re.is_match(b"") {
                return Err(err("matches the empty string".into()));
            }
            user.push(re);
        }
        Ok(Detector {
            b: builtin(),
            entropy: opts.entropy,
            emails: opts.emails,
            ip_addresses: opts.ip_addresses,
            home_paths: opts.home_paths,
            env_dumps: opts.env_dumps,
            user,
        })
    }

    /// Finds secrets in `text`: `out` is cleared, then filled with non-overlapping hits sorted by
    /// start, each range on char boundaries and covering exactly the secret part.
    pub fn find(&self, text: &str, out: &mut Vec<Hit>) {
        self.find_with(text, Extra::default(), out);
    }

    pub(crate) fn find_with(&self, text: &str, extra: Extra, out: &mut Vec<Hit>) {
        out.clear();
        let mut cands = Vec::new();
        self.collect(text, extra, &mut cands);
        if cands.is_empty() {
            return;
        }
        resolve(text, cands, out);
    }

    fn collect(&self, text: &str, extra: Extra, cands: &mut Vec<Cand>) {
        let t = text.as_bytes();
        if let Some(names) = extra.names {
            let mut r = Vec::new();
            names.find(t, &mut r);
            cands.extend(r.into_iter().map(|(s, e)| Cand { start: s, end: e, kind: Kind::UserName, rank: RANK_NAME }));
        }
        if let Some(known) = extra.known {
            known.find(t, cands);
        }
        if extra.whole_value && rules::plausible_value(t, true) {
            cands.push(Cand {
                start: 0,
                end: t.len(),
                kind: Kind::Credential("generic-secret"),
                rank: RANK_GENERIC_VALUE,
            });
        }
        for re in &self.user {
            for c in re.captures_iter(t) {
                if let Some(m) = c.get(1).or_else(|| c.get(0))
                    && !m.is_empty()
                {
                    cands.push(Cand {
                        start: m.start(),
                        end: m.end(),
                        kind: Kind::UserPattern,
                        rank: RANK_USER_PATTERN,
                    });
                }
            }
        }
        if t.len() < MIN_TEXT {
            return;
        }
        let b = self.b;
        // Rules without keywords always run (their regex starts with a rare literal).
        let mut mask = b.always;
        for m in b.ac.find_iter(t) {
            let p = m.pattern().as_usize();
            if !b.starts[p] || boundary_before(t, m.start()) {
                mask |= b.masks[p];
            }
        }
        if mask & ((1u64 << PK_BIT) - 1) != 0 {
            for c in &b.compiled {
                if mask & (1 << c.rule) == 0 {
                    continue;
                }
                let def = &RULES[c.rule];
                // Most triggered rules do not match: check first, without capture slots.
                if !c.re.is_match(t) {
                    continue;
                }
                for caps in c.re.captures_iter(t) {
                    if let Some((s, e)) = rules::accept(c, t, &caps) {
                        cands.push(Cand { start: s, end: e, kind: Kind::Credential(def.id), rank: def.rank });
                    }
                }
            }
        }
        if mask & (1 << PK_BIT) != 0 {
            private_keys(&b.pk_begin, t, cands);
        }
        let mut r = Vec::new();
        if self.home_paths && mask & (1 << HOME_BIT) != 0 {
            paths::find_home(&b.home, t, &mut r);
            push(cands, &mut r, Kind::HomeUser, RANK_PII);
        }
        if self.env_dumps {
            env::find(t, &mut r);
            push(cands, &mut r, Kind::EnvSecret, RANK_ENV);
        }
        if self.emails {
            net::find_emails(t, &mut r);
            push(cands, &mut r, Kind::Email, RANK_PII);
        }
        if self.ip_addresses {
            net::find_ipv4(t, &mut r);
            net::find_ipv6(t, &mut r);
            push(cands, &mut r, Kind::IpAddress, RANK_PII);
        }
        if self.entropy && t.len() >= entropy::MIN_LEN {
            entropy::find(t, &mut r);
            push(cands, &mut r, Kind::HighEntropy, RANK_ENTROPY);
        }
    }

    /// Finds the home-path user names in `text` (used to learn names before a line is scanned).
    pub(crate) fn home_names<'t>(&self, text: &'t str) -> Vec<&'t str> {
        let mut r = Vec::new();
        if self.home_paths {
            paths::find_home(&self.b.home, text.as_bytes(), &mut r);
        }
        r.into_iter()
            .filter_map(|(s, e)| {
                let (s, e) = snap(text, s, e);
                text.get(s..e)
            })
            .collect()
    }
}

fn push(cands: &mut Vec<Cand>, r: &mut Vec<(usize, usize)>, kind: Kind, rank: u8) {
    cands.extend(r.drain(..).map(|(start, end)| Cand { start, end, kind, rank }));
}

/// Private key blocks: the body between the BEGIN and END lines (both kept visible), or for a
/// block cut short, the base64-looking lines after BEGIN.
fn private_keys(begin: &Regex, t: &[u8], cands: &mut Vec<Cand>) {
    let finder = memchr::memmem::Finder::new(b"-----END");
    for m in begin.find_iter(t) {
        let from = m.end();
        let end = match finder.find(&t[from..]) {
            Some(p)
                if {
                    let tail = &t[from + p..t.len().min(from + p + 60)];
                    tail.windows(11).any(|w| w == b"PRIVATE KEY")
                } =>
            {
                from + p
            }
            _ => {
                let mut e = from;
                while e < t.len() {
                    let c = t[e];
                    if c.is_ascii_alphanumeric()
                        || matches!(c, b'+' | b'/' | b'=' | b'\r' | b'\n' | b'\t' | b' ' | b':' | b',')
                        || (c == b'-' && !t[e..].starts_with(b"-----"))
                    {
                        e += 1;
                    } else if c == b'\\' {
                        let mut k = e;
                        while k < t.len() && t[k] == b'\\' {
                            k += 1;
                        }
                        if k < t.len() && matches!(t[k], b'n' | b'r' | b't') {
                            e = k + 1;
                        } else {
                            break;
                        }
                    } else {
                        break;
                    }
                }
                e
            }
        };
        let (s, e) = trim_escaped_ws(t, from, end);
        if e > s {
            cands.push(Cand { start: s, end: e, kind: Kind::Credential(rules::PRIVATE_KEY), rank: 0 });
        }
    }
}

/// Shrinks `s..e` past whitespace and literal `\n`, `\\n`, … at both ends.
fn trim_escaped_ws(t: &[u8], mut s: usize, mut e: usize) -> (usize, usize) {
    loop {
        if s < e && t[s].is_ascii_whitespace() {
            s += 1;
            continue;
        }
        let mut k = s;
        while k < e && t[k] == b'\\' {
            k += 1;
        }
        if k > s && k < e && matches!(t[k], b'n' | b'r' | b't') {
            s = k + 1;
            continue;
        }
        break;
    }
    loop {
        if e > s && t[e - 1].is_ascii_whitespace() {
            e -= 1;
            continue;
        }
        if e >= s + 2 && matches!(t[e - 1], b'n' | b'r' | b't') && t[e - 2] == b'\\' {
            e -= 1;
            while e > s && t[e - 1] == b'\\' {
                e -= 1;
            }
            continue;
        }
        break;
    }
    (s, e)
}

/// Keeps the best candidates: lower rank first, then earlier, then longer; a candidate that
/// overlaps one already kept is dropped.
pub(crate) fn resolve(text: &str, mut cands: Vec<Cand>, out: &mut Vec<Hit>) {
    for c in cands.iter_mut() {
        let (s, e) = snap(text, c.start, c.end);
        c.start = s;
        c.end = e;
    }
    cands.retain(|c| c.end > c.start);
    cands.sort_by_key(|c| (c.rank, c.start, Reverse(c.end - c.start)));
    for c in cands {
        let i = out.partition_point(|h| h.range.start < c.start);
        if i > 0 && out[i - 1].range.end > c.start {
            continue;
        }
        if i < out.len() && out[i].range.start < c.end {
            continue;
        }
        out.insert(i, Hit { kind: c.kind, range: c.start..c.end });
    }
}
