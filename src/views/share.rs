//! The share dialog: choose what to share, review every finding of the redaction (grouped by
//! kind, each kept or redacted), leave out whole parts, then make a link, an HTML file or a
//! Markdown file. The scan and what is made from it are `crate::state::share_scan`'s; this is
//! the form.

use leptos::prelude::*;
use sessionscope_engine::share::envelope::MAX_LINK_CHARS;

use crate::render::units::human_bytes;
use crate::state::share_scan::{Detectors, FindingRow, LinkInfo, Parts, ScanStatus, ScopeKind, ShareError, ShareScan};
use crate::state::sharing::use_sharing;
use crate::state::{use_chrome, use_viewer};

#[component]
pub fn ShareDialog() -> impl IntoView {
    let sharing = use_sharing();
    let chrome = use_chrome();
    // Shift+S opens the dialog from anywhere but a text field.
    let _shortcut = window_event_listener(leptos::ev::keydown, move |event| {
        if !crate::views::shortcuts::typing_in(&event)
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
    let Some(scan) = sharing.new_scan() else { return ().into_any() };
    let close = move || sharing.close_dialog();
    let close_button = NodeRef::<leptos::html::Button>::new();
    crate::views::dialog::focus_on_open(close_button);
    let on_keydown = move |event: web_sys::KeyboardEvent| crate::views::dialog::modal_keys(&event, close);
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
                        <ScopeChoices scan />
                        <LeaveOut scan />
                        <LookFor scan />
                    </div>
                    <Findings scan />
                </div>
                <ShareOutput scan />
            </div>
        </div>
    }
    .into_any()
}

/// "What to share": the scope, and the range of messages when that is the scope.
#[component]
fn ScopeChoices(scan: ShareScan) -> impl IntoView {
    let message_count = scan.message_count();
    let radio = move |kind: ScopeKind, label: String, enabled: bool| {
        view! {
            <label class="choice" class:disabled=!enabled>
                <input
                    type="radio"
                    name="share-scope"
                    disabled=!enabled
                    prop:checked=move || scan.scope_kind.get() == kind
                    on:change=move |_| scan.scope_kind.set(kind)
                />
                " "{label}
            </label>
        }
    };
    view! {
        <fieldset>
            <legend>"What to share"</legend>
            {radio(ScopeKind::All, format!("All loaded sessions ({})", scan.sessions()), true)}
            {radio(ScopeKind::Session, "This session, with its subagents".to_owned(), true)}
            {radio(ScopeKind::Branch, "The branch shown (the choices made at each fork)".to_owned(), message_count > 0)}
            {radio(ScopeKind::Subtree, "The selected message and what follows it".to_owned(), scan.selected_entry.is_some())}
            {radio(ScopeKind::Range, "A range of messages of the branch shown".to_owned(), message_count > 0)}
            <div class="range-inputs" class:hidden=move || scan.scope_kind.get() != ScopeKind::Range>
                <label>
                    "From message "
                    <input type="number" min="1" max=message_count prop:value=move || scan.range_from.get().to_string()
                        on:input=move |e| scan.range_from.set(event_target_value(&e).parse().unwrap_or(1)) />
                </label>
                <label>
                    " to "
                    <input type="number" min="1" max=message_count prop:value=move || scan.range_to.get().to_string()
                        on:input=move |e| scan.range_to.set(event_target_value(&e).parse().unwrap_or(1)) />
                </label>
                {format!(" of {message_count}")}
                <p class="muted small">{move || scan.range_preview()}</p>
            </div>
        </fieldset>
    }
}

/// "Leave out": whole parts of what is shared.
#[component]
fn LeaveOut(scan: ShareScan) -> impl IntoView {
    let part_box = move |label: &'static str, get: fn(&Parts) -> bool, set: fn(&mut Parts, bool)| {
        choice_box(label, move || get(&scan.parts.get()), move |on| scan.set_part(set, on))
    };
    view! {
        <fieldset>
            <legend>"Leave out"</legend>
            {part_box("Thinking", |p| p.thinking, |p, on| p.thinking = on)}
            {part_box("Tool results", |p| p.tool_results, |p, on| p.tool_results = on)}
            {part_box("Images", |p| p.images, |p, on| p.images = on)}
            {part_box("Subagents", |p| p.subagents, |p, on| p.subagents = on)}
            {part_box("Metadata (cwd, git branch, version)", |p| p.metadata, |p, on| p.metadata = on)}
            {move || {
                let p = scan.parts.get();
                let asked = p.thinking || p.tool_results || p.images || p.metadata;
                let whole = scan.formats_left_out_whole();
                (asked && !whole.is_empty()).then(|| view! {
                    <p class="muted small" role="note">
                        {format!(
                            "Files read as {} are left out whole: these parts cannot be taken out of their lines yet.",
                            whole.join(", ")
                        )}
                    </p>
                })
            }}
        </fieldset>
    }
}

/// "Look for": the detectors that can be turned off, and the user's own patterns.
#[component]
fn LookFor(scan: ShareScan) -> impl IntoView {
    let detectors = scan.detectors;
    let detector_box = move |label: &'static str, get: fn(&Detectors) -> bool, set: fn(&mut Detectors, bool)| {
        choice_box(label, move || get(&detectors.get()), move |on| detectors.update(|d| set(d, on)))
    };
    view! {
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
                    prop:value=move || scan.patterns.get()
                    on:input=move |e| scan.patterns.set(event_target_value(&e))></textarea>
            </label>
        </fieldset>
    }
}

/// The review: where the scan stands, and every finding to keep or redact.
#[component]
fn Findings(scan: ShareScan) -> impl IntoView {
    let show_values = RwSignal::new(false);
    let status = move || match scan.status.get() {
        ScanStatus::Idle => String::new(),
        ScanStatus::Scanning { done, total } if total > 0 => {
            format!("Scanning… {done} of {total} {}", crate::logic::words::noun(total, "line"))
        }
        ScanStatus::Scanning { .. } => "Scanning…".to_owned(),
        ScanStatus::Failed(error) => format!("Cannot scan: {error}"),
        ScanStatus::Ready => {
            let rows = scan.findings.get();
            let redacted = rows.iter().filter(|r| !r.keep).count();
            format!(
                "{}: {} redacted, {} kept. {}",
                crate::logic::words::counted(rows.len(), "finding"),
                redacted,
                rows.len() - redacted,
                scan.scope_size().unwrap_or_default()
            )
        }
    };
    view! {
        <section class="share-review" aria-label="Findings">
            <div class="review-head">
                <h3>"Review"</h3>
                <label class="choice small">
                    <input type="checkbox" prop:checked=move || show_values.get()
                        on:change=move |e| show_values.set(event_target_checked(&e)) />
                    " Show values"
                </label>
            </div>
            <p class="muted" role="status" aria-live="polite">{status}</p>
            <FindingGroups scan show_values />
        </section>
    }
}

#[component]
fn FindingGroups(scan: ShareScan, show_values: RwSignal<bool>) -> impl IntoView {
    /// Rows listed per kind; the kind's buttons decide for the rest.
    const LISTED: usize = 100;
    move || {
        let rows = scan.findings.get();
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
                            <button type="button" class="button small" on:click=move |_| scan.set_keep(&all_redact, false)>"Redact all"</button>
                            <button type="button" class="button small" on:click=move |_| scan.set_keep(&all_keep, true)>"Keep all"</button>
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
                                                on:change=move |e| scan.set_keep(&[index], !event_target_checked(&e)) />
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

/// The passphrase, the buttons that make something of the reviewed scan, and what they made.
#[component]
fn ShareOutput(scan: ShareScan) -> impl IntoView {
    let viewer = use_viewer();
    let passphrase = RwSignal::new(String::new());
    let busy = RwSignal::new(None::<&'static str>);
    let message = RwSignal::new(None::<String>);
    let standalone = crate::platform::page::standalone();
    let blocked = move || busy.get().is_some() || !scan.ready();
    let make_link = move |_| run(busy, message, "Making the link…", scan.make_link(passphrase.get_untracked()));
    let download_html =
        move |_| run(busy, message, "Writing the HTML file…", scan.download_html(passphrase.get_untracked()));
    let download_markdown = move |_| run(busy, message, "Writing Markdown…", scan.download_markdown());
    let copy_view_link = move |_| {
        let Some(url) = viewer.view_link() else { return };
        leptos::task::spawn_local(async move {
            let copied = crate::platform::download::copy_text(&url).await;
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
    view! {
        <div class="share-output">
            <label>
                "Passphrase (optional) "
                <input type="password" autocomplete="new-password" placeholder="encrypts the link and the HTML file"
                    prop:value=move || passphrase.get()
                    on:input=move |e| { passphrase.set(event_target_value(&e)); scan.link.set(None); } />
            </label>
            <div class="dialog-actions">
                <button type="button" class="button primary"
                    disabled=move || standalone || blocked()
                    title=if standalone { "Links open the hosted app; from this file, download HTML instead" } else { "" }
                    on:click=make_link>"Create link"</button>
                <button type="button" class="button" disabled=blocked on:click=download_html>"Download HTML"</button>
                <button type="button" class="button" disabled=blocked on:click=download_markdown>"Download Markdown"</button>
                <button type="button" class="button" on:click=copy_view_link
                    title="For someone with the same files: the selection, expanded rows, branches and filters">"Copy view link"</button>
            </div>
            <p class="muted" role="status">{move || busy.get().map(str::to_owned).or_else(|| message.get())}</p>
            {move || scan.link.get().map(|result| match result {
                Ok(info) => view! { <LinkOut info message /> }.into_any(),
                Err(error) => view! { <p class="load-error" role="alert">{error.to_string()}</p> }.into_any(),
            })}
        </div>
    }
}

/// A link made: the link itself, its size against what a link may hold, and ways to use it.
#[component]
fn LinkOut(info: LinkInfo, message: RwSignal<Option<String>>) -> impl IntoView {
    let url = info.url.clone();
    let copy_link = move |_| {
        let url = url.clone();
        leptos::task::spawn_local(async move {
            let copied = crate::platform::download::copy_text(&url).await;
            message.set(Some(
                if copied { "Link copied." } else { "The browser refused the clipboard: copy the link from the box." }
                    .to_owned(),
            ));
        });
    };
    // The link made comes into view, selected, ready to copy: it is below the review, often
    // past the window's bottom.
    let area = NodeRef::<leptos::html::Textarea>::new();
    Effect::new(move |_| {
        if let Some(area) = area.get() {
            area.scroll_into_view_with_bool(false);
            let _ = area.focus();
            area.select();
        }
    });
    view! {
        <div class="link-out">
            <label class="stacked">
                {if info.encrypted { "Share link (encrypted: send the passphrase separately)" } else { "Share link" }}
                <textarea node_ref=area readonly rows="3" aria-label="Share link" prop:value=info.url.clone()></textarea>
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
    }
}

/// Runs an action of the dialog, with a busy note and its outcome as a message.
fn run(
    busy: RwSignal<Option<&'static str>>,
    message: RwSignal<Option<String>>,
    note: &'static str,
    action: impl std::future::Future<Output = Result<Option<String>, ShareError>> + 'static,
) {
    busy.set(Some(note));
    message.set(None);
    leptos::task::spawn_local(async move {
        // Let the busy note paint before the work starts.
        crate::platform::schedule::yield_now().await;
        let outcome = action.await;
        busy.set(None);
        message.set(match outcome {
            Ok(text) => text,
            Err(error) => Some(format!("Failed: {error}")),
        });
    });
}
