//! The share dialog: choose what to share, review every finding of the redaction (grouped by
//! kind, each kept or redacted), leave out whole parts, then make a link, an HTML file or a
//! Markdown file. Nothing is sent anywhere: links carry the data in their fragment.

use std::sync::Arc;

use leptos::prelude::*;
use sessionscope_engine::dag::Graph;
use sessionscope_engine::model::{EntryId, NONE};
use sessionscope_engine::redact::{DetectOptions, DropParts, Redactor};
use sessionscope_engine::share::bundle::BundleHeader;
use sessionscope_engine::share::envelope::{self, ITERATIONS, MAX_LINK_CHARS};
use sessionscope_engine::share::markdown::{MarkdownOptions, files_markdown};
use sessionscope_engine::share::redacted::{self, Redacted};
use sessionscope_engine::share::scope::{Scope, ScopeLines, resolve};
use sessionscope_engine::share::{Cursor, SHARE_FRAGMENT};

use crate::model::Model;
use crate::outline::RowKey;
use crate::render::units::human_bytes;
use crate::sharing::use_sharing;
use crate::state::{use_chrome, use_viewer};

/// Bytes handled per slice before the page gets a frame.
const SLICE_BYTES: usize = 2 << 20;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ScopeKind {
    All,
    Session,
    Branch,
    Subtree,
    Range,
}

/// The parts that can be left out, as the form holds them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Parts {
    thinking: bool,
    tool_results: bool,
    images: bool,
    subagents: bool,
    metadata: bool,
}

impl Parts {
    fn engine(self) -> DropParts {
        DropParts {
            thinking: self.thinking,
            tool_results: self.tool_results,
            images: self.images,
            subagents: self.subagents,
            metadata: self.metadata,
        }
    }
}

/// The detectors that can be turned off (credentials are always looked for).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Detectors {
    emails: bool,
    ip_addresses: bool,
    home_paths: bool,
    entropy: bool,
    env_dumps: bool,
}

impl Default for Detectors {
    fn default() -> Self {
        Detectors { emails: true, ip_addresses: true, home_paths: true, entropy: true, env_dumps: true }
    }
}

/// One finding as the review list shows it.
#[derive(Clone, Debug, PartialEq)]
struct FindingRow {
    index: usize,
    kind: String,
    label: String,
    placeholder: String,
    secret: String,
    count: u32,
    keep: bool,
    context: String,
}

#[derive(Clone, Debug, PartialEq)]
enum ScanStatus {
    Idle,
    Scanning { done: usize, total: usize },
    Ready,
    Failed(String),
}

/// A scanned scope, ready to be written out.
struct Review {
    model: Arc<Model>,
    scope: Scope,
    lines: ScopeLines,
    redactor: Redactor,
    title: String,
}

#[derive(Clone, Debug, PartialEq)]
struct LinkInfo {
    url: String,
    chars: usize,
    encrypted: bool,
}

#[component]
pub fn ShareDialog() -> impl IntoView {
    let sharing = use_sharing();
    let chrome = use_chrome();
    // Shift+S opens the dialog from anywhere but a text field.
    let _shortcut = window_event_listener(leptos::ev::keydown, move |event| {
        if !crate::views::keys::typing_in(&event)
            && event.key() == "S"
            && event.shift_key()
            && !event.ctrl_key()
            && !event.meta_key()
            && sharing.can_share()
        {
            event.prevent_default();
            sharing.open_dialog();
        }
    });
    move || chrome.share_open.get().then(|| view! { <ShareForm /> })
}

/// A labelled checkbox of the form.
fn choice_box(
    label: &'static str,
    checked: impl Fn() -> bool + Send + Sync + 'static,
    toggle: impl Fn(bool) + 'static,
) -> impl IntoView {
    view! {
        <label class="choice">
            <input type="checkbox" prop:checked=checked on:change=move |e| toggle(event_target_checked(&e)) />
            " "{label}
        </label>
    }
}

/// The thread of the session shown, along the branches chosen in the graph, without noise.
fn branch_messages(model: &Model, session: u32, choices: &[(EntryId, u32)]) -> Vec<EntryId> {
    let Some(s) = model.graph.sessions.get(session as usize) else { return Vec::new() };
    if s.main == NONE {
        return Vec::new();
    }
    let choose = |fork: &sessionscope_engine::dag::Fork| {
        choices.iter().find(|(node, _)| *node == fork.node).map_or(fork.active, |(_, alt)| *alt)
    };
    model
        .graph
        .thread_with(s.main, &choose)
        .into_iter()
        .filter(|&e| !crate::outline::is_noise(&model.corpus, &model.corpus.entries[e as usize]))
        .collect()
}

fn preview(model: &Model, entry: EntryId) -> String {
    let corpus = &model.corpus;
    let Some(e) = corpus.entries.get(entry as usize) else { return String::new() };
    let text = corpus.first_text(e).map(|t| t.into_owned()).unwrap_or_else(|| e.kind.name().to_owned());
    let line = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("").trim();
    let short: String = line.chars().take(60).collect();
    format!("{}: {}{}", e.kind.name(), short, if line.chars().count() > 60 { "…" } else { "" })
}

/// `ghp_…7Qa`: enough to recognise a value without showing it whole.
fn masked(secret: &str) -> String {
    let chars: Vec<char> = secret.chars().collect();
    if chars.len() <= 6 {
        return "•".repeat(chars.len());
    }
    let head: String = chars[..4.min(chars.len() / 3)].iter().collect();
    let tail: String = chars[chars.len() - 2..].iter().collect();
    format!("{head}…{tail}")
}

#[component]
fn ShareForm() -> impl IntoView {
    let sharing = use_sharing();
    let viewer = use_viewer();
    let Some(model) = viewer.model_untracked() else { return ().into_any() };
    let session = viewer.session.get_untracked();
    let graph: &Graph = &model.graph;
    let choices: Vec<(EntryId, u32)> = viewer.options.with_value(|o| {
        o.choices.iter().filter_map(|(&fork, &alt)| graph.forks.get(fork as usize).map(|f| (f.node, alt))).collect()
    });
    let messages = Arc::new(branch_messages(&model, session, &choices));
    let selected_entry: Option<EntryId> = match viewer.selected.get_untracked() {
        Some(RowKey::Entry(e)) => Some(e),
        Some(RowKey::Op(op)) => graph.tool_ops.get(op as usize).map(|o| o.call_entry).filter(|&e| e != NONE),
        _ => None,
    };
    let selected_position = selected_entry.and_then(|e| messages.iter().position(|&m| m == e));
    let sessions = graph.sessions.len();

    let scope_kind = RwSignal::new(ScopeKind::Session);
    let range_from = RwSignal::new(selected_position.map_or(1, |p| p + 1));
    let range_to = RwSignal::new(messages.len().max(1));
    let parts = RwSignal::new(Parts::default());
    let detectors = RwSignal::new(Detectors::default());
    let patterns = RwSignal::new(String::new());
    let passphrase = RwSignal::new(String::new());
    let show_values = RwSignal::new(false);
    let status = RwSignal::new(ScanStatus::Idle);
    let findings = RwSignal::new(Vec::<FindingRow>::new());
    let review = StoredValue::new_local(None::<Review>);
    let link = RwSignal::new(None::<Result<LinkInfo, String>>);
    let busy = RwSignal::new(None::<&'static str>);
    let message = RwSignal::new(None::<String>);
    let ticket = StoredValue::new(0u64);

    let scope = {
        let messages = messages.clone();
        let choices = choices.clone();
        move || -> Scope {
            match scope_kind.get() {
                ScopeKind::All => Scope::All,
                ScopeKind::Session => Scope::Session(session),
                ScopeKind::Branch => Scope::Branch { session, choices: choices.clone() },
                ScopeKind::Subtree => selected_entry.map_or(Scope::Session(session), Scope::Subtree),
                ScopeKind::Range => {
                    let at = |n: usize| messages.get(n.clamp(1, messages.len().max(1)) - 1).copied();
                    match (at(range_from.get()), at(range_to.get())) {
                        (Some(from), Some(to)) => Scope::Range { from, to, choices: choices.clone() },
                        _ => Scope::Session(session),
                    }
                }
            }
        }
    };

    // Scans again whenever the scope or the detectors change (after a pause in typing).
    {
        let model = model.clone();
        Effect::new(move |_| {
            let scope = scope();
            let d = detectors.get();
            let user_patterns: Vec<String> =
                patterns.get().lines().map(str::trim).filter(|l| !l.is_empty()).map(str::to_owned).collect();
            let without_agents = parts.get().subagents;
            ticket.update_value(|t| *t += 1);
            let mine = ticket.get_value();
            link.set(None);
            status.set(ScanStatus::Scanning { done: 0, total: 0 });
            let model = model.clone();
            leptos::task::spawn_local(async move {
                gloo::timers::future::TimeoutFuture::new(120).await;
                if ticket.try_get_value() != Some(mine) {
                    return;
                }
                let options = DetectOptions {
                    user_patterns,
                    entropy: d.entropy,
                    emails: d.emails,
                    ip_addresses: d.ip_addresses,
                    home_paths: d.home_paths,
                    env_dumps: d.env_dumps,
                };
                let mut redactor = match Redactor::new(&options) {
                    Ok(r) => r,
                    Err(error) => {
                        status.set(ScanStatus::Failed(error.to_string()));
                        return;
                    }
                };
                let lines = resolve(&model.corpus, &model.graph, &scope, without_agents);
                let title = redacted::scope_title(&model.graph, &scope);
                redacted::scan_title(&title, &mut redactor);
                let total = lines.line_count();
                let mut cursor = Cursor::default();
                loop {
                    let done = redacted::scan(&model.corpus, &lines, &mut cursor, SLICE_BYTES, &mut redactor);
                    if done {
                        break;
                    }
                    status.set(ScanStatus::Scanning { done: cursor.done, total });
                    gloo::timers::future::TimeoutFuture::new(0).await;
                    if ticket.try_get_value() != Some(mine) {
                        return;
                    }
                }
                let rows = rows_of(&redactor);
                review.set_value(Some(Review { model, scope, lines, redactor, title }));
                findings.set(rows);
                status.set(ScanStatus::Ready);
            });
        });
    }

    let set_keep = move |indices: Vec<usize>, keep: bool| {
        review.update_value(|r| {
            if let Some(r) = r {
                for &i in &indices {
                    r.redactor.set_keep(i, keep);
                }
            }
        });
        findings.update(|rows| {
            for row in rows.iter_mut().filter(|row| indices.contains(&row.index)) {
                row.keep = keep;
            }
        });
        link.set(None);
    };

    let selected_uuid = selected_entry.map(|e| model.corpus.entry_uuid(&model.corpus.entries[e as usize]).to_owned());
    let make_link = move |_| {
        let selected_uuid = selected_uuid.clone();
        run(busy, message, "Making the link…", async move {
            let (text, _) =
                sealed_share(review, parts.get_untracked(), &passphrase.get_untracked(), selected_uuid).await?;
            let location = web_sys::window().ok_or("no window")?.location();
            let url = format!(
                "{}{}{}{SHARE_FRAGMENT}{text}",
                location.origin().unwrap_or_default(),
                location.pathname().unwrap_or_default(),
                location.search().unwrap_or_default()
            );
            let chars = url.len();
            link.set(Some(if chars > MAX_LINK_CHARS {
                Err(format!(
                    "The link would be {} long; links over {} are refused (browsers and chat tools cut them). \
                     Leave out more (tool results, subagents), share a smaller scope, or download the HTML file instead.",
                    human_bytes(chars as u64),
                    human_bytes(MAX_LINK_CHARS as u64)
                ))
            } else {
                Ok(LinkInfo { url, chars, encrypted: !passphrase.get_untracked().is_empty() })
            }));
            Ok(None)
        });
    };
    let copy_link = move |_| {
        if let Some(Ok(info)) = link.get_untracked() {
            leptos::task::spawn_local(async move {
                let copied = crate::download::copy_text(&info.url).await;
                message.set(Some(
                    if copied {
                        "Link copied."
                    } else {
                        "The browser refused the clipboard: copy the link from the box."
                    }
                    .to_owned(),
                ));
            });
        }
    };
    let download_html = {
        move |_| {
            run(busy, message, "Writing the HTML file…", async move {
                let (text, header) =
                    sealed_share(review, parts.get_untracked(), &passphrase.get_untracked(), None).await?;
                let html = crate::export::html(&text, &header.title).await?;
                let name = format!("{}.sessionscope.html", crate::download::file_stem(&header.title));
                crate::download::download_text(&name, "text/html", &html);
                Ok(Some(format!("Saved {name} ({}).", human_bytes(html.len() as u64))))
            });
        }
    };
    let download_markdown = move |_| {
        run(busy, message, "Writing Markdown…", async move {
            let (bundle_files, header) = redacted_files(review, parts.get_untracked()).await?;
            let body = files_markdown(&bundle_files, &MarkdownOptions::default());
            let text = format!(
                "{body}\n---\n_Shared with sessionscope ({}); secrets and personal data replaced by placeholders such as `[REDACTED:github-token#1]`._\n",
                header.scope
            );
            let name = format!("{}.md", crate::download::file_stem(&header.title));
            crate::download::download_text(&name, "text/markdown", &text);
            Ok(Some(format!("Saved {name} ({}).", human_bytes(text.len() as u64))))
        });
    };
    let copy_view_link = move |_| {
        let Some(url) = viewer.view_link() else { return };
        leptos::task::spawn_local(async move {
            let copied = crate::download::copy_text(&url).await;
            message.set(Some(if copied {
                format!(
                    "View link copied ({}): it works for someone who has the same files.",
                    human_bytes(url.len() as u64)
                )
            } else {
                format!("View link: {url}")
            }));
        });
    };

    let close = move || sharing.close_dialog();
    let close_button = NodeRef::<leptos::html::Button>::new();
    crate::views::dialog::focus_on_open(close_button);
    let on_keydown = move |event: web_sys::KeyboardEvent| {
        if event.key() == "Escape" {
            event.prevent_default();
            close();
        }
    };
    let standalone = crate::files::standalone();
    let message_count = messages.len();
    let range_preview = {
        let model = model.clone();
        let messages = messages.clone();
        move || {
            let at = |n: usize| messages.get(n.clamp(1, messages.len().max(1)) - 1).map(|&e| preview(&model, e));
            format!(
                "from “{}” to “{}”",
                at(range_from.get()).unwrap_or_default(),
                at(range_to.get()).unwrap_or_default()
            )
        }
    };
    let scope_size = move || {
        review.with_value(|r| {
            r.as_ref().map(|r| {
                format!("{} lines, {} before redaction", r.lines.line_count(), human_bytes(r.lines.byte_count() as u64))
            })
        })
    };

    let radio = move |kind: ScopeKind, label: String, enabled: bool| {
        view! {
            <label class="choice" class:disabled=!enabled>
                <input
                    type="radio"
                    name="share-scope"
                    disabled=!enabled
                    prop:checked=move || scope_kind.get() == kind
                    on:change=move |_| scope_kind.set(kind)
                />
                " "{label}
            </label>
        }
    };
    let part_box = move |label: &'static str, get: fn(&Parts) -> bool, set: fn(&mut Parts, bool)| {
        choice_box(
            label,
            move || get(&parts.get()),
            move |on| {
                parts.update(|p| set(p, on));
                link.set(None);
            },
        )
    };
    let detector_box = move |label: &'static str, get: fn(&Detectors) -> bool, set: fn(&mut Detectors, bool)| {
        choice_box(label, move || get(&detectors.get()), move |on| detectors.update(|d| set(d, on)))
    };

    view! {
        <div class="dialog-backdrop" on:click=move |e| {
            if e.target() == e.current_target() {
                close();
            }
        }>
            <div class="dialog share-dialog" role="dialog" aria-modal="true" aria-labelledby="share-title" on:keydown=on_keydown>
                <div class="share-head">
                    <h2 id="share-title">"Share, redacted"</h2>
                    <button type="button" class="button small" aria-label="Close" node_ref=close_button on:click=move |_| close()>"Close"</button>
                </div>
                <p class="muted">
                    "Nothing is uploaded. A link carries the redacted excerpt in its fragment (the part after #, which browsers never send); "
                    "an HTML file carries the viewer and the excerpt together."
                </p>
                <div class="share-grid">
                    <div class="share-options">
                        <fieldset>
                            <legend>"What to share"</legend>
                            {radio(ScopeKind::All, format!("All loaded sessions ({sessions})"), true)}
                            {radio(ScopeKind::Session, "This session, with its subagents".to_owned(), true)}
                            {radio(ScopeKind::Branch, "The branch shown (the choices made at each fork)".to_owned(), message_count > 0)}
                            {radio(ScopeKind::Subtree, "The selected message and what follows it".to_owned(), selected_entry.is_some())}
                            {radio(ScopeKind::Range, "A range of messages of the branch shown".to_owned(), message_count > 0)}
                            <div class="range-inputs" class:hidden=move || scope_kind.get() != ScopeKind::Range>
                                <label>
                                    "From message "
                                    <input type="number" min="1" max=message_count prop:value=move || range_from.get().to_string()
                                        on:input=move |e| range_from.set(event_target_value(&e).parse().unwrap_or(1)) />
                                </label>
                                <label>
                                    " to "
                                    <input type="number" min="1" max=message_count prop:value=move || range_to.get().to_string()
                                        on:input=move |e| range_to.set(event_target_value(&e).parse().unwrap_or(1)) />
                                </label>
                                {format!(" of {message_count}")}
                                <p class="muted small">{range_preview}</p>
                            </div>
                        </fieldset>
                        <fieldset>
                            <legend>"Leave out"</legend>
                            {part_box("Thinking", |p| p.thinking, |p, on| p.thinking = on)}
                            {part_box("Tool results", |p| p.tool_results, |p, on| p.tool_results = on)}
                            {part_box("Images", |p| p.images, |p, on| p.images = on)}
                            {part_box("Subagents", |p| p.subagents, |p, on| p.subagents = on)}
                            {part_box("Metadata (cwd, git branch, version)", |p| p.metadata, |p, on| p.metadata = on)}
                        </fieldset>
                        <fieldset>
                            <legend>"Look for"</legend>
                            <p class="muted small">"Credentials (keys, tokens, private keys, passwords in URLs) are always looked for."</p>
                            {detector_box("Home folders and user names", |d| d.home_paths, |d, on| d.home_paths = on)}
                            {detector_box("Email addresses", |d| d.emails, |d, on| d.emails = on)}
                            {detector_box("IP addresses", |d| d.ip_addresses, |d, on| d.ip_addresses = on)}
                            {detector_box("Secrets in environment dumps", |d| d.env_dumps, |d, on| d.env_dumps = on)}
                            {detector_box("Other random-looking strings (high entropy)", |d| d.entropy, |d, on| d.entropy = on)}
                            <label class="stacked">
                                "Your own patterns (regular expressions, one per line)"
                                <textarea rows="2" spellcheck="false" placeholder="acme-internal-\\w+"
                                    prop:value=move || patterns.get()
                                    on:input=move |e| patterns.set(event_target_value(&e))></textarea>
                            </label>
                        </fieldset>
                    </div>
                    <section class="share-review" aria-label="Findings">
                        <div class="review-head">
                            <h3>"Review"</h3>
                            <label class="choice small">
                                <input type="checkbox" prop:checked=move || show_values.get()
                                    on:change=move |e| show_values.set(event_target_checked(&e)) />
                                " Show values"
                            </label>
                        </div>
                        <p class="muted" role="status" aria-live="polite">
                            {move || match status.get() {
                                ScanStatus::Idle => String::new(),
                                ScanStatus::Scanning { done, total } if total > 0 => format!("Scanning… {done} of {total} lines"),
                                ScanStatus::Scanning { .. } => "Scanning…".to_owned(),
                                ScanStatus::Failed(error) => format!("Cannot scan: {error}"),
                                ScanStatus::Ready => {
                                    let rows = findings.get();
                                    let redacted = rows.iter().filter(|r| !r.keep).count();
                                    format!(
                                        "{} findings: {} redacted, {} kept. {}",
                                        rows.len(),
                                        redacted,
                                        rows.len() - redacted,
                                        scope_size().unwrap_or_default()
                                    )
                                }
                            }}
                        </p>
                        <FindingGroups findings show_values set_keep />
                    </section>
                </div>
                <div class="share-output">
                    <label>
                        "Passphrase (optional) "
                        <input type="password" autocomplete="new-password" placeholder="encrypts the link and the HTML file"
                            prop:value=move || passphrase.get()
                            on:input=move |e| { passphrase.set(event_target_value(&e)); link.set(None); } />
                    </label>
                    <div class="dialog-actions">
                        <button type="button" class="button primary"
                            disabled=move || standalone || busy.get().is_some() || status.get() != ScanStatus::Ready
                            title=if standalone { "Links open the hosted app; from this file, download HTML instead" } else { "" }
                            on:click=make_link>"Create link"</button>
                        <button type="button" class="button" disabled=move || busy.get().is_some() || status.get() != ScanStatus::Ready
                            on:click=download_html>"Download HTML"</button>
                        <button type="button" class="button" disabled=move || busy.get().is_some() || status.get() != ScanStatus::Ready
                            on:click=download_markdown>"Download Markdown"</button>
                        <button type="button" class="button" on:click=copy_view_link
                            title="For someone with the same files: the selection, expanded rows, branches and filters">"Copy view link"</button>
                    </div>
                    <p class="muted" role="status">{move || busy.get().map(str::to_owned).or_else(|| message.get())}</p>
                    {move || link.get().map(|result| match result {
                        Ok(info) => view! {
                            <div class="link-out">
                                <label class="stacked">
                                    {if info.encrypted { "Share link (encrypted: send the passphrase separately)" } else { "Share link" }}
                                    <textarea readonly rows="3" aria-label="Share link" prop:value=info.url.clone()></textarea>
                                </label>
                                <div class="meter-row">
                                    <meter min="0" max=MAX_LINK_CHARS value=info.chars aria-label="Link size"></meter>
                                    <span>{format!("{} of the {} a link may hold", human_bytes(info.chars as u64), human_bytes(MAX_LINK_CHARS as u64))}</span>
                                </div>
                                <div class="dialog-actions">
                                    <button type="button" class="button" on:click=copy_link>"Copy link"</button>
                                    <a class="button" href=info.url.clone() target="_blank" rel="noopener noreferrer">"Open in a new tab"</a>
                                </div>
                            </div>
                        }.into_any(),
                        Err(error) => view! { <p class="load-error" role="alert">{error}</p> }.into_any(),
                    })}
                </div>
            </div>
        </div>
    }
    .into_any()
}

#[component]
fn FindingGroups(
    findings: RwSignal<Vec<FindingRow>>,
    show_values: RwSignal<bool>,
    set_keep: impl Fn(Vec<usize>, bool) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    /// Rows listed per kind; the kind's buttons decide for the rest.
    const LISTED: usize = 100;
    move || {
        let rows = findings.get();
        let mut kinds: Vec<(String, String)> = Vec::new();
        for row in &rows {
            if !kinds.iter().any(|(k, _)| *k == row.kind) {
                kinds.push((row.kind.clone(), row.label.clone()));
            }
        }
        if kinds.is_empty() {
            return view! { <p class="muted">"Nothing found."</p> }.into_any();
        }
        kinds
            .into_iter()
            .map(|(kind, label)| {
                let of_kind: Vec<FindingRow> = rows.iter().filter(|r| r.kind == kind).cloned().collect();
                let indices: Vec<usize> = of_kind.iter().map(|r| r.index).collect();
                let places: u32 = of_kind.iter().map(|r| r.count).sum();
                let redacted = of_kind.iter().filter(|r| !r.keep).count();
                let (all_redact, all_keep) = (indices.clone(), indices);
                let more = of_kind.len().saturating_sub(LISTED);
                let heading = format!(
                    "{label}: {} value{}, {places} place{} ({redacted} redacted)",
                    of_kind.len(),
                    if of_kind.len() == 1 { "" } else { "s" },
                    if places == 1 { "" } else { "s" }
                );
                view! {
                    <details class="finding-group" open>
                        <summary>{heading}</summary>
                        <div class="group-actions">
                            <button type="button" class="button small" on:click=move |_| set_keep(all_redact.clone(), false)>"Redact all"</button>
                            <button type="button" class="button small" on:click=move |_| set_keep(all_keep.clone(), true)>"Keep all"</button>
                        </div>
                        <ul class="findings" aria-label=label.clone()>
                            {of_kind.into_iter().take(LISTED).map(|row| {
                                let index = row.index;
                                let value = if show_values.get() { row.secret.clone() } else { masked(&row.secret) };
                                let places = if row.count == 1 { "1 place".to_owned() } else { format!("{} places", row.count) };
                                view! {
                                    <li class="finding" class:kept=row.keep>
                                        <label class="choice">
                                            <input type="checkbox" prop:checked=!row.keep
                                                aria-label=format!("Redact {}", row.placeholder)
                                                on:change=move |e| set_keep(vec![index], !event_target_checked(&e)) />
                                            " "<code class="placeholder">{row.placeholder.clone()}</code>
                                        </label>
                                        <code class="secret">{value}</code>
                                        <span class="muted small">{places}</span>
                                        <div class="context muted small">{row.context.clone()}</div>
                                    </li>
                                }
                            }).collect_view()}
                        </ul>
                        {(more > 0).then(|| view! { <p class="muted small">{format!("…and {more} more of this kind (the buttons above decide for them too)")}</p> })}
                    </details>
                }
            })
            .collect_view()
            .into_any()
    }
}

fn rows_of(redactor: &Redactor) -> Vec<FindingRow> {
    redactor
        .findings()
        .iter()
        .enumerate()
        .map(|(index, f)| {
            let context = f
                .contexts
                .first()
                .map(|c| {
                    let place = if c.line.file == u32::MAX {
                        "title".to_owned()
                    } else {
                        format!("line {}, {}", c.line.line, c.field)
                    };
                    format!("{place}: …{}{}{}…", c.before, f.placeholder, c.after)
                })
                .unwrap_or_default();
            FindingRow {
                index,
                kind: f.kind.id().to_owned(),
                label: f.kind.label().to_owned(),
                placeholder: f.placeholder.clone(),
                secret: f.secret.clone(),
                count: f.count,
                keep: f.keep,
                context,
            }
        })
        .collect()
}

/// Runs an action of the dialog, with a busy note and its outcome as a message.
fn run(
    busy: RwSignal<Option<&'static str>>,
    message: RwSignal<Option<String>>,
    note: &'static str,
    action: impl std::future::Future<Output = Result<Option<String>, String>> + 'static,
) {
    busy.set(Some(note));
    message.set(None);
    leptos::task::spawn_local(async move {
        // Let the busy note paint before the work starts.
        gloo::timers::future::TimeoutFuture::new(0).await;
        let outcome = action.await;
        busy.set(None);
        message.set(match outcome {
            Ok(text) => text,
            Err(error) => Some(format!("Failed: {error}")),
        });
    });
}

/// The redacted files of the reviewed scope, written in slices.
async fn redacted_files(
    review: StoredValue<Option<Review>, LocalStorage>,
    parts: Parts,
) -> Result<(Vec<(String, Vec<u8>)>, BundleHeader), String> {
    let bundle = redacted_bundle(review, parts, None).await?;
    Ok((bundle.files, bundle.header))
}

async fn redacted_bundle(
    review: StoredValue<Option<Review>, LocalStorage>,
    parts: Parts,
    selected: Option<String>,
) -> Result<sessionscope_engine::share::Bundle, String> {
    let parts = parts.engine();
    let mut out = Redacted::default();
    let mut cursor = Cursor::default();
    loop {
        let done = review
            .with_value(|r| {
                r.as_ref().map(|r| {
                    redacted::apply(&r.model.corpus, &r.lines, &mut cursor, SLICE_BYTES, &r.redactor, &parts, &mut out)
                })
            })
            .ok_or("scan first")?;
        if done {
            break;
        }
        gloo::timers::future::TimeoutFuture::new(0).await;
    }
    review
        .with_value(|r| {
            r.as_ref().map(|r| {
                let selected = selected.filter(|uuid| {
                    r.model.entry_by_uuid(uuid).is_some_and(|e| {
                        let entry = &r.model.corpus.entries[e as usize];
                        r.lines
                            .files
                            .iter()
                            .any(|f| f.file == entry.file && f.lines.iter().any(|l| l.line == entry.line))
                    })
                });
                let header = BundleHeader {
                    title: redacted::redact_title(&r.title, &r.redactor),
                    scope: redacted::redact_title(&r.scope.describe(&r.model.graph), &r.redactor),
                    selected,
                    redaction: redacted::redaction_note(
                        &r.redactor,
                        &parts,
                        out.dropped_lines + r.lines.agents_left_out,
                    ),
                    ..Default::default()
                };
                std::mem::take(&mut out).into_bundle(header)
            })
        })
        .ok_or_else(|| "scan first".to_owned())
}

/// The reviewed scope as an envelope in base64url: compressed, and encrypted if a passphrase
/// is given.
async fn sealed_share(
    review: StoredValue<Option<Review>, LocalStorage>,
    parts: Parts,
    passphrase: &str,
    selected: Option<String>,
) -> Result<(String, BundleHeader), String> {
    let bundle = redacted_bundle(review, parts, selected).await?;
    let payload = bundle.encode();
    let sealed = if passphrase.is_empty() {
        envelope::seal_plain(&payload)
    } else {
        let compressed = envelope::deflate(&payload);
        let (sealing, cipher) = crate::crypto::encrypt(passphrase, &compressed, ITERATIONS).await?;
        envelope::seal_encrypted(&sealing, &cipher)
    };
    Ok((envelope::to_base64url(&sealed), bundle.header))
}
