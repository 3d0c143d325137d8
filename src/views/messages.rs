//! A flat list of the loaded messages: type, role and first line of text.

use std::sync::Arc;

use leptos::prelude::*;
use sessionscope_engine::Corpus;
use sessionscope_engine::model::{EntryFlags, EntryKind};

/// Characters of a message's first line shown in its row.
const PREVIEW_CHARS: usize = 200;

#[component]
pub fn MessageList(corpus: Arc<Corpus>) -> impl IntoView {
    let rows: Vec<_> = corpus
        .entries
        .iter()
        .filter(|e| matches!(e.kind, EntryKind::User | EntryKind::Assistant | EntryKind::System))
        .map(|entry| {
            let role = if entry.is_sidechain() {
                match entry.kind {
                    EntryKind::User => "agent prompt",
                    _ => "subagent",
                }
            } else {
                match entry.kind {
                    EntryKind::User if entry.flags.has(EntryFlags::HAS_TOOL_RESULT) => "tool result",
                    EntryKind::User => "user",
                    EntryKind::Assistant => "assistant",
                    _ => "system",
                }
            };
            let text = corpus.first_text(entry).map(|t| first_line(&t)).unwrap_or_default();
            let kind = entry.kind.name();
            view! {
                <li class="message-row" data-kind=kind>
                    <span class="message-kind">{kind}</span>
                    <span class="message-role">{role}</span>
                    <span class="message-text">{text}</span>
                </li>
            }
        })
        .collect();
    let count = rows.len();
    view! {
        <section class="messages" aria-label="Messages">
            <p class="messages-count">{format!("{count} messages")}</p>
            <ul class="message-list">{rows}</ul>
        </section>
    }
}

fn first_line(text: &str) -> String {
    let line = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let mut out: String = line.chars().take(PREVIEW_CHARS).collect();
    if line.chars().count() > PREVIEW_CHARS {
        out.push('…');
    }
    out
}
