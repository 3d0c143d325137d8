//! Links into the loaded files, in the URL fragment (which never leaves the browser):
//! - a deep link to a message, `#s=<session>&m=<uuid>`, kept in the address bar as you move; with
//!   `&at=<byte>.<line>` when the message is in a part of a file too big to show whole, the part
//!   that starts at that byte and line;
//! - a view-state link, `#v=1&fp=<fingerprint>&s=…&m=…&t=…&b=…&f=…`, for someone with the same
//!   files: it also carries the rows expanded or collapsed, the branch chosen at each fork, the
//!   filters and the tab, and a fingerprint of the files so a mismatch is detected.
//!
//! - a link into a history's home, `#h=<tab>&p=<project>&file=<path>`: its Files, Failures or
//!   Activity tab, and a file's page.
//!
//! Rows are named by what stays the same across loads: uuids, tool call ids, agent ids.

use sessionscope_engine::model::Start;

/// What a link names.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DeepLink {
    /// The project of a history (`p=`): the history home shows it, a session opens in it.
    pub project: Option<String>,
    pub session: Option<String>,
    pub message: Option<String>,
    /// A tab of the history home (`h=`: `files`, `failures`, `activity`), and a file's page in
    /// it (`file=`, with `p=` its project).
    pub home: Option<String>,
    pub file: Option<String>,
    /// Where the part of a big file that holds the message starts (`at=`), when it is not the
    /// file's first part.
    pub part: Option<Start>,
    /// The rest is only in view-state links.
    pub view: Option<ViewState>,
}

/// The view a view-state link restores.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ViewState {
    /// [`sessionscope_engine::share::fingerprint::fingerprint`] of the files it was made on.
    pub fingerprint: String,
    /// Rows whose collapse state differs from their default (stable row names, see
    /// `super::row_names::row_name`).
    pub toggled: Vec<String>,
    /// `(fork node uuid, alternative)` where not the active one.
    pub choices: Vec<(String, u32)>,
    /// Hidden row kinds: `u`ser, `a`ssistant, `t`ools, `s`ystem; `e`rrors only; `n`oise shown.
    pub flags: String,
    /// Only this conversation: `main` or an agent id.
    pub conversation: Option<String>,
    pub from_ms: Option<i64>,
    pub to_ms: Option<i64>,
    /// `stats` for the statistics tab.
    pub tab: Option<String>,
}

/// Parses a fragment (any part may be missing).
pub fn parse(hash: &str) -> DeepLink {
    let mut link = DeepLink::default();
    let mut view = ViewState::default();
    let mut is_view = false;
    for part in hash.trim_start_matches('#').split('&') {
        let (key, raw) = part.split_once('=').unwrap_or((part, ""));
        let value = decode(raw);
        if value.is_empty() {
            continue;
        }
        // Lists are split before decoding: their items may hold an encoded comma.
        let items = || raw.split(',').map(decode).filter(|v| !v.is_empty());
        match key {
            "p" => link.project = Some(value),
            "s" => link.session = Some(value),
            "m" => link.message = Some(value),
            "h" => link.home = Some(value),
            "file" => link.file = Some(value),
            "at" => link.part = parse_start(&value),
            "v" => is_view = value == "1",
            "fp" => view.fingerprint = value,
            "t" => view.toggled = items().collect(),
            "b" => {
                view.choices = items()
                    .filter_map(|pair| {
                        let (uuid, alt) = pair.rsplit_once('.')?;
                        Some((uuid.to_owned(), alt.parse().ok()?))
                    })
                    .collect()
            }
            "f" => view.flags = value,
            "c" => view.conversation = Some(value),
            "from" => view.from_ms = value.parse().ok(),
            "to" => view.to_ms = value.parse().ok(),
            "tab" => view.tab = Some(value),
            _ => {}
        }
    }
    if is_view {
        link.view = Some(view);
    }
    link
}

/// The fragment of a view-state link.
pub fn format_view(session: &str, message: Option<&str>, view: &ViewState) -> String {
    let mut out = format!("#v=1&fp={}&s={}", encode(&view.fingerprint), encode(session));
    if let Some(m) = message {
        out.push_str(&format!("&m={}", encode(m)));
    }
    if !view.toggled.is_empty() {
        let names: Vec<String> = view.toggled.iter().map(|t| encode(t)).collect();
        out.push_str(&format!("&t={}", names.join(",")));
    }
    if !view.choices.is_empty() {
        let pairs: Vec<String> = view.choices.iter().map(|(u, a)| format!("{}.{a}", encode(u))).collect();
        out.push_str(&format!("&b={}", pairs.join(",")));
    }
    if !view.flags.is_empty() {
        out.push_str(&format!("&f={}", encode(&view.flags)));
    }
    if let Some(c) = &view.conversation {
        out.push_str(&format!("&c={}", encode(c)));
    }
    if let Some(from) = view.from_ms {
        out.push_str(&format!("&from={from}"));
    }
    if let Some(to) = view.to_ms {
        out.push_str(&format!("&to={to}"));
    }
    if let Some(tab) = &view.tab {
        out.push_str(&format!("&tab={}", encode(tab)));
    }
    out
}

/// The fragment of a link.
pub fn format(session: &str, message: Option<&str>) -> String {
    match message {
        Some(m) => format!("#s={}&m={}", encode(session), encode(m)),
        None => format!("#s={}", encode(session)),
    }
}

/// The fragment of a link into a history: a project, and in it a session and a message.
pub fn format_in_project(project: &str, session: Option<&str>, message: Option<&str>) -> String {
    match session {
        Some(session) => format!("#p={}&{}", encode(project), format(session, message).trim_start_matches('#')),
        None => format!("#p={}", encode(project)),
    }
}

/// `fragment` naming the part of a big file shown too (`at=`), unless it is the first part.
pub fn with_part(fragment: String, part: Option<Start>) -> String {
    match part {
        Some(start) if !start.is_beginning() => format!("{fragment}&at={}.{}", start.offset, start.line),
        _ => fragment,
    }
}

/// The fragment of the same link without its message and part, for when another part of a file
/// is shown by hand: the message it named is no longer on screen. `None` when it named neither.
pub fn without_message(fragment: &str) -> Option<String> {
    let link = parse(fragment);
    if link.message.is_none() && link.part.is_none() {
        return None;
    }
    Some(match (link.project, link.session) {
        (Some(project), session) => format_in_project(&project, session.as_deref(), None),
        (None, Some(session)) => format(&session, None),
        (None, None) => String::new(),
    })
}

/// How many bytes of a file, from the byte before a link's part, [`part_fits`] looks at.
pub const PART_CHECK_BYTES: u64 = 64 << 10;

/// Whether a link's part (`at=`) may be read straight away from a file just dropped, rather than
/// its first part and then the link's: `bytes` are the file's from the byte before the part on
/// ([`PART_CHECK_BYTES`] of them, or fewer at the file's end). The part must start a line (the
/// byte before it ends one), and when the link names a session, its id must be in the lines
/// there (every line of a Claude Code session names it, before its message). Otherwise the file
/// may be another than the one the link was made in, and the link is followed the sure way.
pub fn part_fits(bytes: &[u8], session: Option<&str>) -> bool {
    let Some((b'\n', lines)) = bytes.split_first() else { return false };
    let Some(session) = session.filter(|s| !s.is_empty()) else { return true };
    lines.windows(session.len()).any(|w| w == session.as_bytes())
}

/// `<byte>.<line>`: a part's start. A line is counted from 1, and a part after the first starts
/// past the file's first byte.
fn parse_start(value: &str) -> Option<Start> {
    let (offset, line) = value.split_once('.')?;
    let start = Start { offset: offset.parse().ok()?, line: line.parse().ok()? };
    (start.offset > 0 && start.line > 1).then_some(start)
}

/// The fragment of a link into a history home's tab (`files`, `failures`, `activity`), and a
/// file's page in it.
pub fn format_home(tab: &str, file: Option<(&str, &str)>) -> String {
    match file {
        Some((project, path)) => format!("#h={}&p={}&file={}", encode(tab), encode(project), encode(path)),
        None => format!("#h={}", encode(tab)),
    }
}

fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(hex) = text.get(i + 1..i + 3)
            && let Ok(value) = u8::from_str_radix(hex, 16)
        {
            out.push(value);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// What a fragment names, if it names anything.
pub fn link_in(fragment: &str) -> Option<DeepLink> {
    let link = parse(fragment);
    let names = link.project.is_some()
        || link.session.is_some()
        || link.message.is_some()
        || link.home.is_some()
        || link.view.is_some();
    names.then_some(link)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_round_trip() {
        let fragment = format("258c7280-ae70", Some("1a2252ee-fde8"));
        assert_eq!(fragment, "#s=258c7280-ae70&m=1a2252ee-fde8");
        assert_eq!(
            parse(&fragment),
            DeepLink {
                project: None,
                session: Some("258c7280-ae70".into()),
                message: Some("1a2252ee-fde8".into()),
                ..DeepLink::default()
            }
        );
        assert_eq!(parse(&format("a b/c", None)).session.as_deref(), Some("a b/c"));
        assert_eq!(parse("#share=xyz"), DeepLink::default());
        assert_eq!(parse("#m=%zz").message.as_deref(), Some("%zz"));
    }

    #[test]
    fn history_links_name_the_project() {
        let fragment = format_in_project("/home/dev/a b", Some("s1"), Some("m1"));
        assert_eq!(fragment, "#p=%2Fhome%2Fdev%2Fa%20b&s=s1&m=m1");
        let link = parse(&fragment);
        assert_eq!(link.project.as_deref(), Some("/home/dev/a b"));
        assert_eq!((link.session.as_deref(), link.message.as_deref()), (Some("s1"), Some("m1")));
        assert_eq!(parse(&format_in_project("x", None, None)).project.as_deref(), Some("x"));
    }

    #[test]
    fn a_link_into_a_later_part_of_a_big_file_names_where_it_starts() {
        let start = Start { offset: 1_717_986_918, line: 612_345 };
        let fragment = with_part(format("s1", Some("m1")), Some(start));
        assert_eq!(fragment, "#s=s1&m=m1&at=1717986918.612345");
        let link = parse(&fragment);
        assert_eq!((link.message.as_deref(), link.part), (Some("m1"), Some(start)));
        let in_project = parse(&with_part(format_in_project("p", Some("s1"), Some("m1")), Some(start)));
        assert_eq!((in_project.project.as_deref(), in_project.part), (Some("p"), Some(start)));
        // The first part is the file itself: nothing to name.
        assert_eq!(with_part(format("s1", Some("m1")), Some(Start::BEGINNING)), "#s=s1&m=m1");
        assert_eq!(with_part(format("s1", None), None), "#s=s1");
        // Moving to another part by hand leaves the session named, not the message.
        assert_eq!(without_message(&fragment).as_deref(), Some("#s=s1"));
        assert_eq!(
            without_message(&with_part(format_in_project("p", Some("s1"), Some("m1")), Some(start))).as_deref(),
            Some("#p=p&s=s1")
        );
        assert_eq!(without_message("#s=s1"), None);
        // What is not a part's start names none.
        for bad in ["at=12", "at=x.3", "at=0.1", "at=5.1", "at=5.-2", "at=.", "at=99999999999999999999.2"] {
            assert_eq!(parse(&format!("#s=s1&{bad}")).part, None, "{bad}");
        }
    }

    #[test]
    fn home_links_name_the_tab_and_the_file() {
        let link = link_in(&format_home("files", Some(("/work/a b", "src/lib.rs")))).expect("a link");
        assert_eq!(link.home.as_deref(), Some("files"));
        assert_eq!((link.project.as_deref(), link.file.as_deref()), (Some("/work/a b"), Some("src/lib.rs")));
        assert!(link.session.is_none());
        let tab = link_in(&format_home("activity", None)).expect("a link");
        assert_eq!((tab.home.as_deref(), tab.file), (Some("activity"), None));
    }

    #[test]
    fn view_links_round_trip_every_part() {
        let view = ViewState {
            fingerprint: "0123456789abcdef".into(),
            toggled: vec!["e:1a2252ee".into(), "o:toolu_01,x".into(), "a:a7e5d21".into()],
            choices: vec![("9f0c-11".into(), 0), ("77.aa".into(), 2)],
            flags: "tn".into(),
            conversation: Some("a7e5d21".into()),
            from_ms: Some(1_700_000_000_000),
            to_ms: Some(-5),
            tab: Some("stats".into()),
        };
        let fragment = format_view("258c7280", Some("1a2252ee"), &view);
        let link = parse(&fragment);
        assert_eq!(link.session.as_deref(), Some("258c7280"));
        assert_eq!(link.message.as_deref(), Some("1a2252ee"));
        assert_eq!(link.view, Some(view));
        assert!(parse("#s=x&m=y").view.is_none(), "a deep link is not a view link");
        let minimal = parse(&format_view("s", None, &ViewState::default()));
        assert_eq!(minimal.view, Some(ViewState::default()));
    }

    #[test]
    fn a_link_s_part_is_read_first_only_from_a_file_that_fits_it() {
        let session = "7f3c2a10-5b1e-4d2c-9a8b-0c1d2e3f4a5b";
        let line = format!(r#"{{"parentUuid":"a1","sessionId":"{session}","type":"user","message":{{}}}}"#);
        let at_line = format!("\n{line}\n{line}\n");
        assert!(part_fits(at_line.as_bytes(), Some(session)), "a line starts there, of the link's session");
        assert!(part_fits(at_line.as_bytes(), None), "a link without a session: the line is enough");
        // Another file: its lines name another session, or the part would start inside a line.
        assert!(!part_fits(at_line.replace(session, "0aa1").as_bytes(), Some(session)));
        assert!(!part_fits(format!("x{line}\n").as_bytes(), Some(session)), "inside a line");
        assert!(!part_fits(b"", Some(session)), "at or past the file's end");
        assert!(!part_fits(b"\n", Some(session)), "nothing after the byte before");
    }
}
