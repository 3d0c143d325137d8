//! The session list, when several sessions are loaded: sortable, with each session's agent
//! conversations nested under it.

use leptos::prelude::*;
use sessionscope_engine::dag::{ConversationId, ConversationKind, SessionId};
use sessionscope_engine::model::EntryKind;

use crate::render::units;
use crate::state::use_viewer;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum SortKey {
    Title,
    Start,
    Duration,
    Messages,
    Tokens,
    Agents,
}

#[derive(PartialEq)]
struct SessionRow {
    index: SessionId,
    title: String,
    start: i64,
    /// None when the session has fewer than two different times (an Aider run has one).
    duration: Option<i64>,
    messages: u32,
    tokens: u64,
    agents: Vec<(ConversationId, String)>,
    first_prompt: String,
}

#[component]
pub fn SessionList() -> impl IntoView {
    let viewer = use_viewer();
    let sort = RwSignal::new((SortKey::Start, true));
    let rows = Memo::new(move |_| {
        let Some(model) = viewer.model() else { return Vec::new() };
        let graph = &model.graph;
        let corpus = &model.corpus;
        let mut messages = vec![0u32; graph.sessions.len()];
        for (e, entry) in corpus.entries.iter().enumerate() {
            if matches!(entry.kind, EntryKind::User | EntryKind::Assistant) {
                let conv = graph.nodes[e].conversation.index();
                messages[graph.conversations[conv].session.index()] += 1;
            }
        }
        graph
            .sessions
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let u = s.usage_with_agents;
                let agents = s
                    .agents
                    .iter()
                    .map(|&c| {
                        let conv = &graph.conversations[c.index()];
                        let kind = match conv.kind {
                            ConversationKind::CompactionAgent => "compaction".to_owned(),
                            _ if conv.agent_type.is_empty() => "agent".to_owned(),
                            _ => conv.agent_type.clone(),
                        };
                        let indent = "  ".repeat(conv.depth.saturating_sub(1) as usize);
                        (c, format!("{indent}{kind}: {}", conv.description))
                    })
                    .collect();
                let first_prompt = (s.first_prompt.is_some())
                    .then(|| corpus.first_text(&corpus.entries[s.first_prompt.index()]))
                    .flatten()
                    .map(|t| sessionscope_engine::dag::prompt_title(&t))
                    .unwrap_or_default();
                SessionRow {
                    index: SessionId::new(i),
                    title: if s.title.is_empty() { s.id.clone() } else { s.title.clone() },
                    start: s.first_timestamp_ms,
                    duration: units::span_ms(
                        (s.first_timestamp_ms != i64::MAX).then_some(s.first_timestamp_ms),
                        (s.last_timestamp_ms != i64::MIN).then_some(s.last_timestamp_ms),
                    ),
                    messages: messages[i],
                    tokens: u.input_tokens
                        + u.output_tokens
                        + u.cache_creation_input_tokens
                        + u.cache_read_input_tokens,
                    agents,
                    first_prompt,
                }
            })
            .collect::<Vec<_>>()
            .into_iter()
            .map(std::sync::Arc::new)
            .collect::<Vec<_>>()
    });
    let header = move |key: SortKey, label: &'static str| {
        let aria = move || {
            let (current, descending) = sort.get();
            if current != key {
                "none"
            } else if descending {
                "descending"
            } else {
                "ascending"
            }
        };
        view! {
            <th scope="col" aria-sort=aria>
                <button
                    type="button"
                    class="sort"
                    on:click=move |_| sort.update(|(k, d)| {
                        if *k == key {
                            *d = !*d;
                        } else {
                            *k = key;
                            *d = key != SortKey::Title;
                        }
                    })
                >
                    {label}
                </button>
            </th>
        }
    };
    move || {
        let rows = rows.get();
        if rows.len() < 2 {
            return None;
        }
        let (key, descending) = sort.get();
        let mut order: Vec<std::sync::Arc<SessionRow>> = rows.clone();
        crate::logic::sort::sort_by(&mut order, |a, b| {
            let ordering = match key {
                SortKey::Title => a.title.to_lowercase().cmp(&b.title.to_lowercase()),
                SortKey::Start => a.start.cmp(&b.start),
                SortKey::Duration => a.duration.cmp(&b.duration),
                SortKey::Messages => a.messages.cmp(&b.messages),
                SortKey::Tokens => a.tokens.cmp(&b.tokens),
                SortKey::Agents => a.agents.len().cmp(&b.agents.len()),
            };
            if descending { ordering.reverse() } else { ordering }
        });
        let selected = viewer.session.get();
        let body: Vec<AnyView> = order
            .into_iter()
            .map(|row| {
                let index = row.index;
                let start = if row.start == i64::MAX { String::new() } else { units::iso_time(row.start) };
                let agents: Vec<AnyView> = row
                    .agents
                    .iter()
                    .map(|(conversation, label)| {
                        let conversation = *conversation;
                        let label = label.clone();
                        view! {
                            <tr class="session-agent">
                                <td colspan="7">
                                    <button type="button" class="link" on:click=move |_| viewer.reveal_agent(conversation)>
                                        {format!("↳ {label}")}
                                    </button>
                                </td>
                            </tr>
                        }
                        .into_any()
                    })
                    .collect();
                view! {
                    <tr class="session-row" class:selected=selected == index aria-selected=if selected == index { "true" } else { "false" }>
                        <td class="session-title">
                            <button type="button" class="link" on:click=move |_| viewer.select_session(index)>
                                {row.title.clone()}
                            </button>
                        </td>
                        <td>{start}</td>
                        <td>{crate::views::duration_view(row.duration)}</td>
                        <td class="number">{row.messages}</td>
                        <td class="number">{units::human_count(row.tokens)}</td>
                        <td class="number">{row.agents.len()}</td>
                        <td class="first-prompt">{row.first_prompt.clone()}</td>
                    </tr>
                    {agents}
                }
                .into_any()
            })
            .collect();
        Some(view! {
            <section class="sessions" aria-label="Sessions">
                <table class="session-table">
                    <thead>
                        <tr>
                            {header(SortKey::Title, "Session")}
                            {header(SortKey::Start, "Started")}
                            {header(SortKey::Duration, "Duration")}
                            {header(SortKey::Messages, "Messages")}
                            {header(SortKey::Tokens, "Tokens")}
                            {header(SortKey::Agents, "Agents")}
                            <th scope="col">"First prompt"</th>
                        </tr>
                    </thead>
                    <tbody>{body}</tbody>
                </table>
            </section>
        })
    }
}
