//! Home directories and the user names in them.
//!
//! Recognised forms (the user name is the secret part):
//! `/home/<user>`, `/var/home/<user>`, `/Users/<user>`, `C:\Users\<user>` (any drive, `\`, `\\`
//! or `/` separators, any case of `users`), and the dash-encoded project directories Claude Code
//! writes under `~/.claude/projects/`: `-home-<user>-…`, `-Users-<user>-…`, `C--Users-<user>-…`.
//! Not user names: `Shared`, `Public`, `Default`, `All Users`, `linuxbrew`, globs.
//!
//! Learned names are then also looked for as whole words elsewhere (kind `user-name`), unless the
//! name is shorter than 3 characters, has no letter, or is one of the generic account names in
//! [`GENERIC_NAMES`] (`root`, `user`, `ubuntu`, `runner`, …), which would only add noise.

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use regex::bytes::Regex;

use super::text::{boundary_after, boundary_before, is_word};

pub(crate) const HOME_RE: &str =
    r"(?-u)(?:/home/|/Users/|[A-Za-z]:(?:\\+|/)(?i:users)(?:\\+|/)|-(?:home|Users)-|[A-Za-z]--(?i:users)-)";

pub(crate) fn home_regex() -> Regex {
    Regex::new(HOME_RE).expect("home path regex")
}

/// Account names that are not worth redacting as words outside a path.
pub const GENERIC_NAMES: &[&str] = &[
    "root",
    "user",
    "users",
    "admin",
    "administrator",
    "ubuntu",
    "runner",
    "dev",
    "developer",
    "vagrant",
    "ec2-user",
    "node",
    "app",
    "home",
    "guest",
    "test",
    "tester",
    "build",
    "builder",
    "docker",
    "default",
    "shared",
    "public",
    "local",
    "coder",
    "codespace",
    "codespaces",
    "vscode",
    "jenkins",
    "git",
    "www",
    "www-data",
    "nobody",
    "daemon",
    "sandbox",
    "workspace",
    "project",
    "projects",
    "owner",
    "centos",
    "debian",
    "fedora",
    "alpine",
    "azureuser",
    "cloud-user",
    "gitpod",
    "linuxbrew",
    "src",
    "code",
    "work",
    "main",
    "claude",
    "agent",
    "circleci",
    "travis",
    "postgres",
    "mysql",
    "redis",
    "nginx",
];

const NOT_USERS: &[&str] = &["shared", "public", "default", "all", "linuxbrew", "all users", "default user"];

/// True when a name learned from a path is also redacted where it appears as a word.
pub fn name_word_ok(name: &str) -> bool {
    name.len() >= 3
        && name.bytes().any(|c| c.is_ascii_alphabetic())
        && !GENERIC_NAMES.iter().any(|g| g.eq_ignore_ascii_case(name))
}

#[inline]
fn name_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'-')
}

/// Appends the user-name ranges of home paths in `t`.
pub(crate) fn find_home(re: &Regex, t: &[u8], out: &mut Vec<(usize, usize)>) {
    for m in re.find_iter(t) {
        let (ms, me) = (m.start(), m.end());
        let lead = t[ms];
        let dashed = lead == b'-' || t[ms + 1] == b'-';
        let windows = !dashed && lead != b'/';
        // What comes before the match must not glue it to a longer path or word.
        let ok_before = if lead == b'/' {
            ms == 0
                || !(name_char(t[ms - 1]))
                || t[..ms].ends_with(b"/var")
                || (ms >= 2 && t[ms - 2] == b'\\' && matches!(t[ms - 1], b'n' | b'r' | b't'))
        } else {
            boundary_before(t, ms)
        };
        if !ok_before {
            continue;
        }
        let mut e = me;
        if dashed {
            while e < t.len() && (t[e].is_ascii_alphanumeric() || t[e] == b'_') {
                e += 1;
            }
            if e < t.len() && t[e] != b'-' && is_word(t[e]) {
                continue;
            }
        } else {
            while e < t.len() && name_char(t[e]) {
                e += 1;
            }
            if windows && e < t.len() && t[e] == b' ' {
                // `C:\Users\John Smith\…`: spaces count when a separator follows the name.
                let mut f = e;
                while f < t.len() && (name_char(t[f]) || t[f] == b' ') && f - me < 64 {
                    f += 1;
                }
                if f < t.len() && matches!(t[f], b'\\' | b'/') {
                    e = f;
                }
            }
            while e > me && matches!(t[e - 1], b'.' | b'-' | b' ') {
                e -= 1;
            }
        }
        if e == me || e - me > 64 || !t[me].is_ascii_alphanumeric() && t[me] != b'_' {
            continue;
        }
        let name = &t[me..e];
        if NOT_USERS.iter().any(|n| n.as_bytes().eq_ignore_ascii_case(name)) {
            continue;
        }
        out.push((me, e));
    }
}

/// Whole-word, ASCII case-insensitive search of learned user names.
pub(crate) struct NameMatcher {
    ac: AhoCorasick,
}

impl NameMatcher {
    pub(crate) fn new(names: &[String]) -> Option<NameMatcher> {
        if names.is_empty() {
            return None;
        }
        let ac = AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::LeftmostLongest)
            .build(names)
            .ok()?;
        Some(NameMatcher { ac })
    }

    pub(crate) fn find(&self, t: &[u8], out: &mut Vec<(usize, usize)>) {
        for m in self.ac.find_iter(t) {
            if boundary_before(t, m.start()) && boundary_after(t, m.end()) {
                out.push((m.start(), m.end()));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(s: &str) -> Vec<&str> {
        let mut out = Vec::new();
        find_home(&home_regex(), s.as_bytes(), &mut out);
        out.into_iter().map(|(a, b)| &s[a..b]).collect()
    }

    #[test]
    fn home_forms() {
        assert_eq!(names("cd /home/alice/src && ls"), ["alice"]);
        assert_eq!(names("\"/Users/bob.smith\""), ["bob.smith"]);
        assert_eq!(names(r"C:\Users\carol\proj"), ["carol"]);
        assert_eq!(names(r"C:\\Users\\carol\\proj"), ["carol"]);
        assert_eq!(names(r"c:/users/John Smith/x"), ["John Smith"]);
        assert_eq!(names("~/.claude/projects/-home-dave-proj-x/"), ["dave"]);
        assert_eq!(names("C--Users-erin-proj"), ["erin"]);
        assert_eq!(names("/var/home/frank/x"), ["frank"]);
        assert_eq!(names("a\\n/home/gina"), ["gina"]);
        assert!(names("https://example.com/home/about /mnt/home/x work-from-home-office /Users/Shared").is_empty());
    }

    #[test]
    fn name_rule() {
        assert!(name_word_ok("alice"));
        assert!(!name_word_ok("al"));
        assert!(!name_word_ok("Ubuntu"));
        assert!(!name_word_ok("1000"));
    }
}
