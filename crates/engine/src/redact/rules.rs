//! Credential rules: well-known token formats, modelled on the gitleaks rule set and written
//! from the published formats. Every regex is compiled for bytes in ASCII mode (`(?-u)`), which
//! keeps the whole set's compile time in the tens of milliseconds (it also runs in wasm), and a
//! rule only runs on a text that holds one of its keywords (Aho-Corasick pre-filter, ASCII case
//! insensitive).
//!
//! Unless a rule says otherwise, capture group 1 is the secret: only that range is replaced.

use regex::bytes::{Captures, Regex, RegexBuilder};

use super::text::{boundary_before, is_placeholder};

/// How a match is checked before it counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Check {
    /// Group 1, which must not be glued to a word on its left.
    Prefix,
    /// Group 1 as matched.
    Plain,
    /// `Prefix`, and the token mixes upper and lower case.
    PrefixMixed,
    /// `Prefix`, and the token holds a digit.
    PrefixDigit,
    /// `key = value`: group 1 = the keyword, group 2 = what follows it in the key, group 3 =
    /// the opening quote, group 4 = the value.
    Assignment,
    /// A command-line flag: group 1 = the value.
    Flag,
    /// A header or URL credential: group 1, not a placeholder.
    Credential,
    /// A bearer token: `Credential`, and it holds a digit.
    Bearer,
}

pub(crate) struct Pat {
    pub re: &'static str,
    pub check: Check,
}

impl RuleDef {
    /// Every pattern starts with its keyword at the start of a token, so a keyword glued to a
    /// word on its left (`task-…` for `sk-`) does not trigger the rule.
    pub(crate) fn prefix_keywords(&self) -> bool {
        self.pats.iter().all(|p| matches!(p.check, Check::Prefix | Check::PrefixMixed | Check::PrefixDigit))
    }
}

pub(crate) struct RuleDef {
    pub id: &'static str,
    pub label: &'static str,
    /// Lower-case keywords; a rule runs only when one occurs (ASCII case-insensitive).
    pub keywords: &'static [&'static str],
    pub pats: &'static [Pat],
    /// Lower wins when two findings overlap.
    pub rank: u8,
}

const fn p(re: &'static str, check: Check) -> Pat {
    Pat { re, check }
}

use Check::*;

/// Ranks: 0 = a token format identified by its prefix; 1 = a credential identified by its
/// context (header, URL, key name); the other detectors come after (see `detector.rs`).
pub(crate) static RULES: &[RuleDef] = &[
    RuleDef {
        id: "aws-access-key",
        label: "AWS access key id",
        keywords: &["akia", "asia", "abia", "acca"],
        pats: &[p(r"((?:AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16})\b", Prefix)],
        rank: 0,
    },
    RuleDef {
        id: "aws-secret-key",
        label: "AWS secret access key",
        keywords: &["aws"],
        pats: &[p(
            r#"(?i:aws)[A-Za-z0-9_ .-]{0,25}?(?i:secret|private)[A-Za-z0-9_ .-]{0,25}?\\*["']?\s*(?:=>|:=|[:=])\s*\\*["']?([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)"#,
            Plain,
        )],
        rank: 1,
    },
    RuleDef {
        id: "gcp-api-key",
        label: "Google Cloud API key",
        keywords: &["aiza"],
        pats: &[p(r"(AIza[0-9A-Za-z_-]{35})(?:[^0-9A-Za-z_-]|$)", Prefix)],
        rank: 0,
    },
    RuleDef {
        id: "azure-key",
        label: "Azure storage key / SAS signature",
        keywords: &["accountkey", "sharedaccesskey", "sig="],
        pats: &[
            p(r"(?i:AccountKey|SharedAccessKey)\s*=\s*([A-Za-z0-9+/]{40,}={0,2})", Plain),
            p(r"[?&;]sig=([A-Za-z0-9%+/]{30,}(?:=|%3[Dd]){0,2})", Plain),
        ],
        rank: 0,
    },
    RuleDef {
        id: "github-token",
        label: "GitHub token",
        keywords: &["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
        pats: &[
            p(r"((?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,251})\b", Prefix),
            p(r"(github_pat_[A-Za-z0-9_]{60,255})\b", Prefix),
        ],
        rank: 0,
    },
    RuleDef {
        id: "gitlab-token",
        label: "GitLab token",
        keywords: &[
            "glpat-", "gldt-", "glrt-", "glptt-", "glcbt-", "glimt-", "glsoat-", "glffct-", "gloas-", "glagent-",
        ],
        pats: &[p(
            r"((?:glpat|gldt|glrt|glptt|glcbt|glimt|glsoat|glffct|gloas|glagent)-[A-Za-z0-9_-]{20,255})",
            Prefix,
        )],
        rank: 0,
    },
    RuleDef {
        id: "slack-token",
        label: "Slack token",
        keywords: &["xox", "xapp-"],
        pats: &[p(r"((?:xox[abposr]|xoxe\.xox[bp]|xoxe|xapp)-[0-9A-Za-z-]{10,250})", PrefixDigit)],
        rank: 0,
    },
    RuleDef {
        id: "slack-webhook",
        label: "Slack webhook URL",
        keywords: &["hooks.slack.com"],
        pats: &[p(r"hooks\.slack\.com/(?:services|workflows|triggers)/([A-Za-z0-9+/_-]{20,})", Plain)],
        rank: 0,
    },
    RuleDef {
        id: "discord-webhook",
        label: "Discord webhook URL",
        keywords: &["/api/webhooks/"],
        pats: &[p(r"discord(?:app)?\.com/api/webhooks/[0-9]{5,30}/([A-Za-z0-9_-]{40,})", Plain)],
        rank: 0,
    },
    RuleDef {
        id: "stripe-key",
        label: "Stripe secret key",
        keywords: &["sk_live_", "sk_test_", "rk_live_", "rk_test_", "whsec_"],
        pats: &[
            p(r"((?:sk|rk)_(?:live|test)_[0-9A-Za-z]{10,247})\b", Prefix),
            p(r"(whsec_[0-9A-Za-z+/]{24,})", Prefix),
        ],
        rank: 0,
    },
    RuleDef {
        id: "openai-key",
        label: "OpenAI API key",
        keywords: &["sk-"],
        pats: &[p(
            r"(sk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{40,}|sk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}|sk-[A-Za-z0-9]{48})(?:[^A-Za-z0-9_-]|$)",
            PrefixDigit,
        )],
        rank: 0,
    },
    RuleDef {
        id: "anthropic-key",
        label: "Anthropic API key",
        keywords: &["sk-ant-"],
        pats: &[p(r"(sk-ant-(?:api|admin|oat|ort|sid)[0-9]{2}-[A-Za-z0-9_-]{32,})", Prefix)],
        rank: 0,
    },
    RuleDef {
        id: "npm-token",
        label: "npm access token",
        keywords: &["npm_"],
        pats: &[p(r"(npm_[A-Za-z0-9]{36})\b", PrefixDigit)],
        rank: 0,
    },
    RuleDef {
        id: "pypi-token",
        label: "PyPI upload token",
        keywords: &["pypi-age"],
        pats: &[p(r"(pypi-AgE[A-Za-z0-9_-]{60,})", Prefix)],
        rank: 0,
    },
    RuleDef {
        id: "huggingface-token",
        label: "Hugging Face token",
        keywords: &["hf_", "api_org_"],
        pats: &[p(r"((?:hf|api_org)_[A-Za-z0-9]{30,40})\b", PrefixMixed)],
        rank: 0,
    },
    RuleDef {
        id: "twilio-key",
        label: "Twilio API key / auth token",
        // No keyword: "sk" is in every other word; the regex itself starts with the rare "SK".
        keywords: &[],
        pats: &[p(r"(SK[0-9a-fA-F]{32})\b", PrefixDigit)],
        rank: 0,
    },
    RuleDef {
        id: "twilio-key",
        label: "Twilio API key / auth token",
        keywords: &["twilio"],
        pats: &[p(r"(?i:twilio)[^\n]{0,40}?(?i:token|secret|auth)[^\n]{0,20}?\b([0-9a-f]{32})\b", Plain)],
        rank: 0,
    },
    RuleDef {
        id: "sendgrid-key",
        label: "SendGrid API key",
        keywords: &["sg."],
        pats: &[p(r"(SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43})(?:[^A-Za-z0-9_-]|$)", Prefix)],
        rank: 0,
    },
    RuleDef {
        id: "google-oauth",
        label: "Google OAuth token / client secret",
        keywords: &["ya29.", "gocspx-"],
        pats: &[p(r"(ya29\.[0-9A-Za-z_-]{20,})", Prefix), p(r"(GOCSPX-[A-Za-z0-9_-]{28})", Prefix)],
        rank: 0,
    },
    RuleDef {
        id: "digitalocean-token",
        label: "DigitalOcean token",
        keywords: &["dop_v1_", "doo_v1_", "dor_v1_"],
        pats: &[p(r"((?:dop|doo|dor)_v1_[a-f0-9]{64})\b", Prefix)],
        rank: 0,
    },
    RuleDef {
        id: "shopify-token",
        label: "Shopify token",
        keywords: &["shpat_", "shpss_", "shpca_", "shppa_"],
        pats: &[p(r"((?:shpat|shpss|shpca|shppa)_[a-fA-F0-9]{32})\b", Prefix)],
        rank: 0,
    },
    RuleDef {
        id: "databricks-token",
        label: "Databricks token",
        keywords: &["dapi"],
        pats: &[p(r"(dapi[a-f0-9]{32}(?:-[0-9])?)\b", PrefixDigit)],
        rank: 0,
    },
    RuleDef {
        id: "linear-key",
        label: "Linear API key",
        keywords: &["lin_api_"],
        pats: &[p(r"(lin_api_[A-Za-z0-9]{40})\b", Prefix)],
        rank: 0,
    },
    RuleDef {
        id: "postman-key",
        label: "Postman API key",
        keywords: &["pmak-"],
        pats: &[p(r"(PMAK-[a-fA-F0-9]{24}-[a-fA-F0-9]{34})\b", Prefix)],
        rank: 0,
    },
    RuleDef {
        id: "age-secret-key",
        label: "age secret key",
        keywords: &["age-secret-key-1"],
        pats: &[p(r"(AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58})", Plain)],
        rank: 0,
    },
    RuleDef {
        id: "telegram-bot-token",
        label: "Telegram bot token",
        keywords: &[":aa"],
        pats: &[p(r"\b([0-9]{8,10}:AA[0-9A-Za-z_-]{33})(?:[^0-9A-Za-z_-]|$)", Plain)],
        rank: 0,
    },
    RuleDef {
        id: "jwt",
        label: "JSON Web Token",
        keywords: &["eyj"],
        pats: &[p(r"(eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*)", Prefix)],
        rank: 0,
    },
    RuleDef {
        id: "bearer-token",
        label: "Bearer token (Authorization header)",
        keywords: &["bearer"],
        pats: &[p(r"\b(?i:bearer)\s+([A-Za-z0-9._~+/=-]{12,})", Bearer)],
        rank: 1,
    },
    RuleDef {
        id: "basic-auth",
        label: "Basic auth credentials",
        keywords: &["authorization", "-u ", "--user"],
        pats: &[
            p(r"(?i:authorization)\\*[\x22']?\s*:\s*(?i:basic)\s+([A-Za-z0-9+/]{8,}={0,2})", Credential),
            p(r#"(?:^|\s)(?:-u|--user)(?:\s+|=)\\*["']?[^\s:"'\\]{1,64}:([^\s"'\\@]{3,128})"#, Credential),
        ],
        rank: 1,
    },
    RuleDef {
        id: "connection-password",
        label: "Password in a URL / connection string",
        keywords: &["://", "pass", "pwd"],
        pats: &[
            p(r#"[A-Za-z][A-Za-z0-9+.-]{1,30}://[^\s:/@"'\\]{0,64}:([^\s@/"'\\]{1,128})@[A-Za-z0-9\[._-]"#, Credential),
            p(r#";\s*(?i:password|pwd)\s*=\s*([^;"'\s\\]{1,128})"#, Credential),
        ],
        rank: 1,
    },
    RuleDef {
        id: "generic-secret",
        label: "Secret assigned in code or config",
        // `pass` covers password, passwd and passphrase; `_key`/`-key` the `*_key` names.
        keywords: &[
            "pass",
            "secret",
            "token",
            "_key",
            "-key",
            "apikey",
            "accesskey",
            "authkey",
            "privatekey",
            "credential",
        ],
        pats: &[
            p(
                r#"((?i:password|passwd|passphrase|secret|token|api[_-]?key|access[_-]?key|auth[_-]?key|private[_-]?key|credentials?))([A-Za-z0-9_.-]{0,40})\\*["'`]?\s*(?:=>|:=|==|=|:)\s*\\*(["'`]?)([^\s"'`\\,;<>(){}\[\]]{4,256})"#,
                Assignment,
            ),
            p(
                r#"--(?i:[a-z-]{0,20}(?:password|passwd|token|secret|api-?key))(?:=|\s+)\\*["']?([^\s"'`\\;|&<>(){}]{4,256})"#,
                Flag,
            ),
        ],
        rank: 4,
    },
];

/// Label of a credential rule id.
pub(crate) fn label_of(id: &str) -> Option<&'static str> {
    RULES.iter().find(|r| r.id == id).map(|r| r.label).or(match id {
        "private-key" => Some("Private key block"),
        _ => None,
    })
}

/// Rule id of the private key detector (custom code in `detector.rs`).
pub(crate) const PRIVATE_KEY: &str = "private-key";

pub(crate) struct Compiled {
    pub rule: usize,
    pub check: Check,
    pub re: Regex,
}

pub(crate) fn compile() -> Vec<Compiled> {
    let mut out = Vec::new();
    for (rule, def) in RULES.iter().enumerate() {
        for pat in def.pats {
            let re = RegexBuilder::new(&format!("(?-u){}", pat.re))
                .unicode(false)
                .build()
                .unwrap_or_else(|e| panic!("rule {}: {e}", def.id));
            out.push(Compiled { rule, check: pat.check, re });
        }
    }
    out
}

/// Key suffixes after a keyword that name something other than a secret value
/// (`token_count`, `password_field`, `secret_name`, `tokens`, …).
fn benign_key_suffix(suffix: &[u8]) -> bool {
    let s = suffix.to_ascii_lowercase();
    // Plurals name collections or counts: `tokens`, `secrets_dir`, `passwords`.
    if s.first() == Some(&b's') && s.get(1).is_none_or(|c| matches!(c, b'_' | b'-' | b'.')) {
        return true;
    }
    const BENIGN: &[&str] = &[
        "type",
        "count",
        "limit",
        "length",
        "len",
        "url",
        "uri",
        "endpoint",
        "file",
        "path",
        "dir",
        "name",
        "id",
        "usage",
        "budget",
        "size",
        "expiry",
        "expires",
        "expires_at",
        "expires_in",
        "timeout",
        "ttl",
        "field",
        "label",
        "placeholder",
        "input",
        "prompt",
        "policy",
        "reset",
        "min",
        "max",
        "required",
        "regex",
        "pattern",
        "strength",
        "visible",
        "toggle",
        "manager",
        "store",
        "provider",
        "service",
        "validation",
        "validator",
        "hint",
        "header",
        "location",
        "ref",
        "env",
        "var",
        "kind",
        "mode",
        "format",
        "version",
        "rotation",
        "created",
        "updated",
        "used",
        "izer",
        "ize",
        "ization",
        "ized",
        "stream",
        "estimate",
    ];
    if s.is_empty() {
        return false;
    }
    let s = s.strip_prefix(b"_").or_else(|| s.strip_prefix(b"-")).or_else(|| s.strip_prefix(b".")).unwrap_or(&s);
    let first = s.split(|&c| matches!(c, b'_' | b'-' | b'.')).next().unwrap_or(s);
    let last = s.rsplit(|&c| matches!(c, b'_' | b'-' | b'.')).next().unwrap_or(s);
    BENIGN.iter().any(|b| b.as_bytes() == last || b.as_bytes() == first || b.as_bytes() == s)
}

/// Decides whether a value assigned to a secret-looking name is a secret.
pub(crate) fn plausible_value(v: &[u8], quoted: bool) -> bool {
    let Ok(s) = std::str::from_utf8(v) else { return false };
    if s.len() < 4 || s.len() > 256 || is_placeholder(s) || s.starts_with('-') {
        return false;
    }
    if v.iter().all(|c| c.is_ascii_digit() || *c == b'.' || *c == b'-') {
        return false;
    }
    if s.starts_with('/') || s.starts_with("./") || s.starts_with("~/") || s.starts_with("http") {
        return false;
    }
    let has_digit = v.iter().any(u8::is_ascii_digit);
    let has_alpha = v.iter().any(u8::is_ascii_alphabetic);
    let ident_like = v.iter().all(|&c| c.is_ascii_alphanumeric() || c == b'_' || c == b'.');
    if quoted {
        // A quoted word of plain letters is still a password; a dotted identifier is code.
        return !(ident_like && !has_digit && v.contains(&b'.'));
    }
    // Unquoted: code (`token = self.token`, `password: str`) unless it looks made up.
    if s.len() < 6 {
        return false;
    }
    if ident_like && !has_digit {
        return false;
    }
    // A dotted path of identifiers (`Base.url_encode64`, `config.api_token`) is code.
    if ident_like
        && v.contains(&b'.')
        && v.split(|&c| c == b'.').all(|p| p.first().is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_'))
    {
        return false;
    }
    has_alpha || v.iter().any(|c| !c.is_ascii_alphanumeric())
}

/// At least 8 characters mixing classes: a digit, both letter cases, or a symbol.
fn random_looking(v: &[u8]) -> bool {
    let digit = v.iter().any(u8::is_ascii_digit);
    let upper = v.iter().any(u8::is_ascii_uppercase);
    let lower = v.iter().any(u8::is_ascii_lowercase);
    let symbol = v.iter().any(|c| !c.is_ascii_alphanumeric());
    v.len() >= 8 && (digit as u8 + (upper && lower) as u8 + symbol as u8) >= 1 && (upper || lower)
}

fn credential_value(v: &[u8]) -> bool {
    let Ok(s) = std::str::from_utf8(v) else { return false };
    !is_placeholder(s) && !s.eq_ignore_ascii_case("password") && (s.len() > 5 || !v.iter().all(u8::is_ascii_digit))
}

/// The secret range of a match, if it passes its check.
pub(crate) fn accept(c: &Compiled, text: &[u8], caps: &Captures) -> Option<(usize, usize)> {
    match c.check {
        Assignment => {
            let keyword = caps.get(1)?.as_bytes().to_ascii_lowercase();
            let suffix = caps.get(2)?;
            let quote = caps.get(3).is_some_and(|m| !m.is_empty());
            let val = caps.get(4)?;
            if benign_key_suffix(suffix.as_bytes()) || !plausible_value(val.as_bytes(), quote) {
                return None;
            }
            // A call (`token = make_token(…)`) is code.
            if !quote && text.get(val.end()) == Some(&b'(') {
                return None;
            }
            // Passwords may be plain words; tokens, keys and secrets are random-looking.
            if !keyword.starts_with(b"pass") && !random_looking(val.as_bytes()) {
                return None;
            }
            Some((val.start(), val.end()))
        }
        Flag => {
            let val = caps.get(1)?;
            plausible_value(val.as_bytes(), true).then_some((val.start(), val.end()))
        }
        Credential | Bearer => {
            let m = caps.get(1)?;
            let v = m.as_bytes();
            if !credential_value(v) || (c.check == Bearer && !v.iter().any(u8::is_ascii_digit)) {
                return None;
            }
            Some((m.start(), m.end()))
        }
        Plain => caps.get(1).map(|m| (m.start(), m.end())),
        Prefix | PrefixMixed | PrefixDigit => {
            let m = caps.get(1)?;
            if !boundary_before(text, m.start()) {
                return None;
            }
            let v = m.as_bytes();
            let ok = match c.check {
                PrefixMixed => v.iter().any(u8::is_ascii_uppercase) && v.iter().any(u8::is_ascii_lowercase),
                PrefixDigit => v.iter().any(u8::is_ascii_digit),
                _ => true,
            };
            ok.then_some((m.start(), m.end()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_rules_compile_and_have_lowercase_keywords() {
        let c = compile();
        assert!(c.len() >= RULES.len());
        for r in RULES {
            for k in r.keywords {
                assert_eq!(*k, k.to_ascii_lowercase(), "{}", r.id);
            }
        }
    }

    #[test]
    fn key_suffixes() {
        assert!(benign_key_suffix(b"_count"));
        assert!(benign_key_suffix(b"s"));
        assert!(benign_key_suffix(b"_type"));
        assert!(benign_key_suffix(b"izer"));
        assert!(!benign_key_suffix(b""));
        assert!(!benign_key_suffix(b"_access"));
    }

    #[test]
    fn values() {
        assert!(plausible_value(b"hunter2xyz", true));
        assert!(plausible_value(b"hunter", true));
        assert!(!plausible_value(b"self.password", false));
        assert!(!plausible_value(b"string", true));
        assert!(!plausible_value(b"4096", false));
        assert!(plausible_value(b"Zk3pQ9vLm2", false));
        assert!(!plausible_value(b"request", false));
    }
}
