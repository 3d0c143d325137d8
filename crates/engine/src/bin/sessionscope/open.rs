//! `sessionscope open`: a log opened in the browser in one command, with no server, as
//! speedscope's command line does. The session is redacted as the page's Share dialog redacts it,
//! put in the self-contained HTML file the page exports (the engine's `share::page`, with the
//! app's built files inlined), written to a temporary file and opened in the default browser.

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use sessionscope_engine::dag::{Graph, SessionId};
use sessionscope_engine::share::envelope::{seal_plain, to_base64, to_base64url};
use sessionscope_engine::share::page::{PageAssets, PartHashes, pack_wasm, page_html, page_parts};
use sessionscope_engine::share::redacted::{
    ShareOptions, header_titles, redactor_for, scan_title, scope_title, share_scope,
};
use sessionscope_engine::share::scope::Scope;
use sessionscope_engine::{Corpus, Loader};

use crate::cli::OpenArgs;

/// Why no file was written or opened.
#[derive(Debug)]
pub enum OpenError {
    /// The files hold no session.
    NoSession,
    /// No session has the id asked for, or several start with it.
    NoSuchSession(String),
    SeveralSessions(String, usize),
    /// The redaction could not be made.
    Share(String),
    /// The app's built files were not found: where they were looked for.
    NoSite(Vec<PathBuf>),
    /// A built file could not be read, or is not what the site holds.
    Site(PathBuf, String),
    /// The file could not be written.
    Write(PathBuf, std::io::Error),
    /// No browser could be started: the command, and why.
    Browser(String, String),
}

impl fmt::Display for OpenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OpenError::NoSession => write!(f, "these files hold no session"),
            OpenError::NoSuchSession(id) => write!(f, "no session has the id `{id}`"),
            OpenError::SeveralSessions(id, n) => write!(f, "{n} sessions have an id that starts with `{id}`"),
            OpenError::Share(why) => write!(f, "the session could not be redacted: {why}"),
            OpenError::NoSite(looked) => {
                let places: Vec<String> = looked.iter().map(|p| p.display().to_string()).collect();
                write!(
                    f,
                    "the app's built files were not found (looked in {}); build them with `make dist` \
                     (or `trunk build --release`), or name their folder with --site",
                    if places.is_empty() { "no folder".to_owned() } else { places.join(", ") }
                )
            }
            OpenError::Site(path, why) => write!(f, "{}: {why}", path.display()),
            OpenError::Write(path, error) => write!(f, "{}: could not be written: {error}", path.display()),
            OpenError::Browser(command, why) => {
                write!(f, "the browser could not be started with `{command}` ({why}); open the file by hand")
            }
        }
    }
}

/// Writes the file of one session of `files` and opens it, as `args` asks; prints the file's
/// path.
pub fn run(files: &[(PathBuf, String)], args: &OpenArgs) -> ExitCode {
    match open(files, args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("sessionscope: {error}");
            ExitCode::from(1)
        }
    }
}

fn open(files: &[(PathBuf, String)], args: &OpenArgs) -> Result<(), OpenError> {
    // The site is looked for first: without it there is nothing to open the session in.
    let site = site(args.site.as_deref())?;
    let mut loader = Loader::new();
    for (path, name) in files {
        match crate::read_source(path, name) {
            Ok(bytes) => {
                loader.add_vec(name, bytes);
            }
            Err(why) => eprintln!("sessionscope: {name}: {why}"),
        }
    }
    let corpus = loader.finish();
    let graph = Graph::build(&corpus);
    let session = chosen(&corpus, &graph, args.session.as_deref(), &args.redact)?;
    let (share, title) = shared(&corpus, &graph, session, &args.redact)?;
    let assets = assets(&site)?;
    let parts = page_parts(&assets);
    let hashes =
        PartHashes { script: hash(&parts.script), render_script: hash(&parts.render_script), css: hash(&parts.css) };
    let html = page_html(&assets, &parts, &hashes, &share, &title);
    let path = match &args.output {
        Some(path) => path.clone(),
        None => std::env::temp_dir().join(format!("{}-{}.sessionscope.html", file_stem(&title), std::process::id())),
    };
    std::fs::write(&path, html).map_err(|error| OpenError::Write(path.clone(), error))?;
    println!("{}", path.display());
    if !args.no_browser {
        start_browser(&path)?;
    }
    Ok(())
}

/// The session asked for by its id (or the start of it), else the one active last; the others
/// are named on stderr, their titles redacted as the file is (`patterns`, the user's own, too).
fn chosen(corpus: &Corpus, graph: &Graph, id: Option<&str>, patterns: &[String]) -> Result<SessionId, OpenError> {
    let sessions = &graph.sessions;
    if let Some(id) = id {
        if let Some(at) = sessions.iter().position(|s| s.id == id) {
            return Ok(SessionId::new(at));
        }
        let starting: Vec<usize> = (0..sessions.len()).filter(|&at| sessions[at].id.starts_with(id)).collect();
        return match starting.as_slice() {
            [at] => Ok(SessionId::new(*at)),
            [] => Err(OpenError::NoSuchSession(id.to_owned())),
            more => Err(OpenError::SeveralSessions(id.to_owned(), more.len())),
        };
    }
    let newest = (0..sessions.len()).max_by_key(|&at| sessions[at].last_timestamp_ms).ok_or(OpenError::NoSession)?;
    if sessions.len() > 1 {
        let titles = redacted_titles(corpus, graph, patterns)?;
        eprintln!(
            "sessionscope: {} sessions here; opening the one active last, {} ({}). Another opens with --session <id>:",
            sessions.len(),
            sessions[newest].id,
            titles[newest]
        );
        for (at, session) in sessions.iter().enumerate().filter(|&(at, _)| at != newest) {
            eprintln!("  {}  {}", session.id, titles[at]);
        }
    }
    Ok(SessionId::new(newest))
}

/// Every session's title as a share shows it: its whole text redacted (ids kept), then cut.
fn redacted_titles(corpus: &Corpus, graph: &Graph, patterns: &[String]) -> Result<Vec<String>, OpenError> {
    let mut options = ShareOptions::default();
    options.detect.user_patterns = patterns.to_vec();
    let mut redactor =
        redactor_for(corpus, graph, &options.detect).map_err(|error| OpenError::Share(error.to_string()))?;
    let scopes: Vec<(Scope, String)> = (0..graph.sessions.len())
        .map(|at| {
            let scope = Scope::Session(SessionId::new(at));
            let title = scope_title(corpus, graph, &scope);
            (scope, title)
        })
        .collect();
    for (_, title) in &scopes {
        scan_title(title, &mut redactor);
    }
    Ok(scopes.iter().map(|(scope, title)| header_titles(graph, scope, title, &redactor).0).collect())
}

/// The session redacted as the Share dialog redacts it by default, with the user's own `patterns`
/// too, sealed as a share (base64url); and its title.
fn shared(
    corpus: &Corpus,
    graph: &Graph,
    session: SessionId,
    patterns: &[String],
) -> Result<(String, String), OpenError> {
    let mut options = ShareOptions::default();
    options.detect.user_patterns = patterns.to_vec();
    let bundle = share_scope(corpus, graph, &Scope::Session(session), &options, |_| false)
        .map_err(|error| OpenError::Share(error.to_string()))?;
    let sealed = seal_plain(&bundle.encode());
    Ok((to_base64url(&sealed), bundle.header.title.clone()))
}

/// The built site's folder: `--site`, `$SESSIONSCOPE_SITE`, `share/sessionscope/site` beside the
/// program's folder (an install), or the repository's `dist/` the program was built in.
fn site(asked: Option<&Path>) -> Result<PathBuf, OpenError> {
    let mut places: Vec<PathBuf> = Vec::new();
    if let Some(asked) = asked {
        places.push(asked.to_owned());
    } else {
        if let Some(from_env) = std::env::var_os("SESSIONSCOPE_SITE").filter(|v| !v.is_empty()) {
            places.push(PathBuf::from(from_env));
        }
        if let Some(bin) = std::env::current_exe().ok().and_then(|exe| exe.parent().map(Path::to_owned)) {
            places.push(bin.join("../share/sessionscope/site"));
        }
        places.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../dist"));
    }
    places.iter().find(|place| place.join("index.html").is_file()).cloned().ok_or(OpenError::NoSite(places))
}

/// The app's files in a built site: those its `index.html` names (the page's glue, style sheet
/// and wasm, named by their hashes), and the worker's and render module's, which have fixed names.
fn assets(site: &Path) -> Result<PageAssets, OpenError> {
    let index_path = site.join("index.html");
    let read = |path: &Path| std::fs::read(path).map_err(|error| OpenError::Site(path.to_owned(), error.to_string()));
    let text = |path: &Path| read(path).map(|bytes| String::from_utf8_lossy(&bytes).into_owned());
    let index = text(&index_path)?;
    let named = |rel: &str, extra: &str| -> Result<PathBuf, OpenError> {
        link_href(&index, rel, extra)
            .map(|href| site.join(href.trim_start_matches("./")))
            .ok_or_else(|| OpenError::Site(index_path.clone(), format!("names no <link rel=\"{rel}\"> {extra}")))
    };
    Ok(PageAssets {
        glue: text(&named("modulepreload", "")?)?,
        css: text(&named("stylesheet", "")?)?,
        wasm: pack_wasm(&read(&named("preload", "application/wasm")?)?),
        worker_glue: text(&site.join("worker.js"))?,
        worker_wasm: pack_wasm(&read(&site.join("worker_bg.wasm"))?),
        render_glue: text(&site.join("render.js"))?,
        render_wasm: pack_wasm(&read(&site.join("render_bg.wasm"))?),
    })
}

/// The `href` of the first `<link rel="<rel>" …>` of a page whose tag also holds `extra`.
fn link_href<'a>(page: &'a str, rel: &str, extra: &str) -> Option<&'a str> {
    let wanted = format!("rel=\"{rel}\"");
    page.match_indices("<link").find_map(|(at, _)| {
        let tag = &page[at..at + page[at..].find('>')?];
        if !tag.contains(&wanted) || !tag.contains(extra) {
            return None;
        }
        let start = tag.find("href=\"")? + "href=\"".len();
        Some(&tag[start..start + tag[start..].find('"')?])
    })
}

/// A text's SHA-256 as a Content-Security-Policy names it.
fn hash(text: &str) -> String {
    use sha2::Digest as _;
    format!("sha256-{}", to_base64(&sha2::Sha256::digest(text.as_bytes())))
}

/// A title as the start of a file name: letters, digits and `-`, at most 40.
fn file_stem(title: &str) -> String {
    let stem: String = title
        .chars()
        .map(|c| if c.is_alphanumeric() { c.to_ascii_lowercase() } else { '-' })
        .collect::<String>()
        .split('-')
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join("-");
    let stem: String = stem.chars().take(40).collect();
    if stem.is_empty() { "session".to_owned() } else { stem }
}

/// Opens `path` in the default browser: `$BROWSER` (a command, `%s` for the file if it names
/// where), else the system's opener (`xdg-open`, `open`, `start`).
fn start_browser(path: &Path) -> Result<(), OpenError> {
    let file = path.display().to_string();
    let (program, args): (String, Vec<String>) =
        match std::env::var("BROWSER").ok().and_then(|value| value.split(':').next().map(str::to_owned)) {
            Some(browser) if !browser.trim().is_empty() => {
                let mut words = browser.split_whitespace().map(str::to_owned);
                let program = words.next().unwrap_or_default();
                let mut args: Vec<String> = words.collect();
                if args.iter().any(|a| a.contains("%s")) {
                    args.iter_mut().for_each(|a| *a = a.replace("%s", &file));
                } else {
                    args.push(file.clone());
                }
                (program, args)
            }
            _ if cfg!(target_os = "macos") => ("open".to_owned(), vec![file.clone()]),
            _ if cfg!(windows) => ("cmd".to_owned(), vec!["/C".into(), "start".into(), String::new(), file.clone()]),
            _ => ("xdg-open".to_owned(), vec![file.clone()]),
        };
    let command = std::iter::once(program.clone()).chain(args.iter().cloned()).collect::<Vec<_>>().join(" ");
    let status = std::process::Command::new(&program)
        .args(&args)
        .stdin(std::process::Stdio::null())
        .status()
        .map_err(|error| OpenError::Browser(command.clone(), error.to_string()))?;
    if status.success() { Ok(()) } else { Err(OpenError::Browser(command, format!("it ended with {status}"))) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_are_found_by_rel_and_type() {
        let page = r#"<link rel="stylesheet" href="./main-1.css" integrity="x"/>
<link rel="modulepreload" href="./app-2.js" crossorigin="anonymous">
<link rel="preload" href="./font.woff2" as="font">
<link rel="preload" href="./app-2_bg.wasm" as="fetch" type="application/wasm">"#;
        assert_eq!(link_href(page, "stylesheet", ""), Some("./main-1.css"));
        assert_eq!(link_href(page, "modulepreload", ""), Some("./app-2.js"));
        assert_eq!(link_href(page, "preload", "application/wasm"), Some("./app-2_bg.wasm"));
        assert_eq!(link_href(page, "icon", ""), None);
    }

    #[test]
    fn titles_become_file_names() {
        assert_eq!(file_stem("Fix the `brew` rename!"), "fix-the-brew-rename");
        assert_eq!(file_stem("???"), "session");
    }

    #[test]
    fn hashes_are_as_a_policy_names_them() {
        assert_eq!(hash(""), "sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=");
    }
}
