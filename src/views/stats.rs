//! Usage and statistics: tokens and cost per session, agent, model and turn (the figures of
//! `sessionscope summary`, deduplicated the same way), a chart of the session, the sidechain
//! statistics, tool usage and error rates, the validation report, and downloads.

use leptos::prelude::*;
use sessionscope_engine::dag::{ConversationKind, SessionId, stats};
use sessionscope_engine::model::Usage;
use sessionscope_engine::summary::{agent_label, summarize};

use crate::logic::loaded::Model;
use crate::logic::words::{counted, noun};
use crate::render::units;
use crate::render::units::grouped;
use crate::state::{ViewerState, use_viewer};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Scope {
    Session,
    All,
}

fn usage_cells(u: &Usage) -> impl IntoView + use<> {
    view! {
        <td class="number">{grouped(u.input_tokens)}</td>
        <td class="number">{grouped(u.output_tokens)}</td>
        <td class="number">{grouped(u.cache_creation_input_tokens)}</td>
        <td class="number">{grouped(u.cache_read_input_tokens)}</td>
    }
}

fn usage_head(first: &'static str) -> impl IntoView + use<> {
    view! {
        <tr>
            <th scope="col">{first}</th>
            <th scope="col">"Input"</th>
            <th scope="col">"Output"</th>
            <th scope="col">"Cache write"</th>
            <th scope="col">"Cache read"</th>
            <th scope="col">"Cost"</th>
        </tr>
    }
}

#[component]
pub fn Statistics() -> impl IntoView {
    let state = use_viewer();
    let scope = RwSignal::new(Scope::Session);
    move || {
        let model = state.model()?;
        let session = state.session.get();
        let sessions: Vec<SessionId> = match scope.get() {
            Scope::Session => vec![session],
            Scope::All => (0..model.graph.sessions.len()).map(SessionId::new).collect(),
        };
        // The engine's tables are for one session or for everything loaded (`None`).
        let in_scope = (sessions.len() == 1).then_some(session);
        let graph = &model.graph;
        let mut total = Usage::default();
        let mut cost = 0.0;
        // A session id that names none (a load with no session at all) counts nothing.
        for s in sessions.iter().filter_map(|&s| graph.session(s)) {
            total.add(&s.usage_with_agents);
            cost += s.cost_with_agents_usd;
        }
        let session_rows: Vec<AnyView> = sessions
            .iter()
            .filter_map(|&s| graph.session(s))
            .map(|session| {
                let title = if session.title.is_empty() { session.id.clone() } else { session.title.clone() };
                view! {
                    <tr>
                        <th scope="row" title=session.id.clone()>{title}</th>
                        {usage_cells(&session.usage_with_agents)}
                        <td class="number">{format!("${:.4}", session.cost_with_agents_usd)}</td>
                    </tr>
                }
                .into_any()
            })
            .collect();
        let agent_rows: Vec<AnyView> = sessions
            .iter()
            .filter_map(|&s| graph.session(s))
            .flat_map(|session| {
                std::iter::once(session.main).filter(|&c| c.is_some()).chain(session.agents.iter().copied())
            })
            .map(|c| {
                let conv = &graph.conversations[c.index()];
                let label = if conv.kind == ConversationKind::Main {
                    "main thread".to_owned()
                } else {
                    let kind =
                        if conv.agent_type.is_empty() { conv.kind.name().to_owned() } else { conv.agent_type.clone() };
                    format!("{} ({kind})", agent_label(&model.corpus, graph, c))
                };
                view! {
                    <tr>
                        <th scope="row">{label}</th>
                        {usage_cells(&conv.usage)}
                        <td class="number">{format!("${:.4}", conv.cost_usd)}</td>
                    </tr>
                }
                .into_any()
            })
            .collect();
        let model_rows: Vec<AnyView> = stats::model_stats(&model.corpus, graph, in_scope)
            .into_iter()
            .map(|row| {
                let cost = row.cost_usd.map_or_else(|| "no price".to_owned(), |cost| format!("${cost:.4}"));
                view! {
                    <tr>
                        <th scope="row">{format!("{} ({})", row.model, counted(row.responses, "response"))}</th>
                        {usage_cells(&row.usage)}
                        <td class="number">{cost}</td>
                    </tr>
                }
                .into_any()
            })
            .collect();
        let tool_rows: Vec<AnyView> = stats::tool_stats(&model.corpus, graph, in_scope)
            .into_iter()
            .map(|row| {
                let rate = row.error_percent();
                let average = crate::views::duration_view(row.average_ms());
                view! {
                    <tr>
                        <th scope="row">{row.tool}</th>
                        <td class="number">{row.calls}</td>
                        <td class="number">{row.errors}</td>
                        <td class="number">{format!("{rate:.1}%")}</td>
                        <td class="number">{row.interrupted}</td>
                        <td class="number">{average}</td>
                    </tr>
                }
                .into_any()
            })
            .collect();
        let side = stats::sidechain_stats(&model.corpus, graph, in_scope);
        let by_type = side.by_agent_type.iter().map(|(t, n)| format!("{t} {n}")).collect::<Vec<_>>().join(", ");
        let buckets =
            side.messages_distribution.iter().map(|(b, n)| format!("{b}: {n}")).collect::<Vec<_>>().join(" · ");
        let depths =
            side.depth_distribution.iter().map(|(d, n)| format!("depth {d}: {n}")).collect::<Vec<_>>().join(" · ");
        let problems: Vec<AnyView> = graph
            .problems
            .iter()
            .filter(|p| {
                p.entry.is_some()
                    && sessions
                        .contains(&graph.conversations[graph.nodes[p.entry.index()].conversation.index()].session)
            })
            .take(500)
            .map(|p| {
                let entry = p.entry;
                let line = model.corpus.entries[entry.index()].line;
                let rule = p.rule.name();
                let message = p.message.clone();
                view! {
                    <li>
                        <button type="button" class="link" on:click=move |_| state.reveal_entry(entry)>
                            {format!("{rule} · line {line}")}
                        </button>
                        " "
                        <span>{message}</span>
                    </li>
                }
                .into_any()
            })
            .collect();
        let problem_count = problems.len();
        let chart = (sessions.len() == 1).then(|| chart(&model, session));
        let scope_button = move |which: Scope, label: &'static str| {
            view! {
                <button
                    type="button"
                    role="tab"
                    class="panel-tab"
                    aria-selected=move || if scope.get() == which { "true" } else { "false" }
                    on:click=move |_| scope.set(which)
                >
                    {label}
                </button>
            }
        };
        let diagnostics = model.corpus.diagnostics.len();
        Some(view! {
            <section class="statistics" aria-label="Statistics">
                <div class="stats-bar">
                    <div role="tablist" aria-label="Statistics scope">
                        {scope_button(Scope::Session, "This session")}
                        {scope_button(Scope::All, "Everything loaded")}
                    </div>
                    <button type="button" class="button small" on:click=move |_| download_json(&state)>"Download JSON"</button>
                    <button type="button" class="button small" on:click=move |_| download_csv(&state)>"Download CSV"</button>
                </div>
                <p class="stats-total" aria-label="Total">
                    {format!(
                        "Tokens: {} input · {} output · {} cache write · {} cache read · cost ${:.4}",
                        grouped(total.input_tokens),
                        grouped(total.output_tokens),
                        grouped(total.cache_creation_input_tokens),
                        grouped(total.cache_read_input_tokens),
                        cost
                    )}
                </p>
                {chart}
                <h2>"Tokens per session (with its agents)"</h2>
                <table class="stats-table" aria-label="Tokens per session">
                    <thead>{usage_head("Session")}</thead>
                    <tbody>{session_rows}</tbody>
                </table>
                <h2>"Tokens per agent"</h2>
                <table class="stats-table" aria-label="Tokens per agent">
                    <thead>{usage_head("Conversation")}</thead>
                    <tbody>{agent_rows}</tbody>
                </table>
                <h2>"Tokens per model"</h2>
                <table class="stats-table" aria-label="Tokens per model">
                    <thead>{usage_head("Model")}</thead>
                    <tbody>{model_rows}</tbody>
                </table>
                <h2>"Tools"</h2>
                <table class="stats-table" aria-label="Tool usage">
                    <thead>
                        <tr>
                            <th scope="col">"Tool"</th>
                            <th scope="col">"Calls"</th>
                            <th scope="col">"Errors"</th>
                            <th scope="col">"Error rate"</th>
                            <th scope="col">"Interrupted"</th>
                            <th scope="col">"Average time"</th>
                        </tr>
                    </thead>
                    <tbody>{tool_rows}</tbody>
                </table>
                <h2>"Sidechains"</h2>
                <dl class="stats-list" aria-label="Sidechain statistics">
                    <dt>"Sidechains"</dt><dd>{side.total}{(side.unlinked > 0).then(|| format!(" ({} unlinked)", side.unlinked))}</dd>
                    <dt>"Uses per agent type"</dt><dd>{if by_type.is_empty() { "-".to_owned() } else { by_type }}</dd>
                    <dt>"Messages per sidechain"</dt><dd>{buckets}{format!(" · average {:.1}", side.average_messages)}</dd>
                    <dt>"Multi-turn"</dt><dd>{format!("{} ({:.0}%)", side.multi_turn, side.multi_turn_share * 100.0)}</dd>
                    <dt>"Nesting"</dt><dd>{format!("{} nested · {depths} · average depth {:.2}", side.nested, side.average_depth)}</dd>
                    <dt>"Parallel spawns"</dt><dd>{format!("{} spawned two or more agents", counted(side.parallel_spawns, "turn"))}</dd>
                    // Without a sidechain there is no duration to average: unknown, not "0 ms".
                    <dt>"Duration"</dt><dd>{if side.total == 0 {
                        crate::views::duration_view(None)
                    } else {
                        format!("average {} · median {} · longest {}", units::human_duration_ms(side.average_duration_ms as i64), units::human_duration_ms(side.median_duration_ms), units::human_duration_ms(side.max_duration_ms)).into_any()
                    }}</dd>
                </dl>
                <h2>{format!("Validation ({problem_count})")}</h2>
                <ul class="problems" aria-label="Validation report">{problems}</ul>
                <p class="muted">{format!("Load diagnostics: {diagnostics} (listed in the load summary above)")}</p>
            </section>
        })
    }
}

/// Tokens (bars) and duration (line) of each turn of a session's main thread, in SVG.
fn chart(model: &Model, session: SessionId) -> AnyView {
    let graph = &model.graph;
    let Some(s) = graph.session(session) else { return ().into_any() };
    let turns: Vec<&sessionscope_engine::dag::Turn> =
        graph.turns.iter().filter(|t| t.conversation == s.main && !t.usage.is_zero()).collect();
    if turns.is_empty() {
        return view! { <p class="muted">"No token usage in this session."</p> }.into_any();
    }
    let corpus = &model.corpus;
    // A turn's duration is known when its first and last entries have times (an Aider run has one
    // time, its start, so its turns have none).
    let duration = |t: &sessionscope_engine::dag::Turn| {
        let start = if t.prompt.is_some() { t.prompt } else { t.first_assistant };
        if start.is_none() {
            return None;
        }
        let (a, b) = (&corpus.entries[start.index()], &corpus.entries[t.last_entry.index()]);
        (a.has_timestamp() && b.has_timestamp()).then(|| b.timestamp_ms.saturating_sub(a.timestamp_ms).max(0))
    };
    let max_tokens = turns.iter().map(|t| t.usage.total()).max().unwrap_or(1).max(1) as f64;
    let longest = turns.iter().filter_map(|t| duration(t)).max();
    let max_duration = longest.unwrap_or(1).max(1) as f64;
    let (width, height) = (800.0, 160.0);
    let step = width / turns.len() as f64;
    let bar = (step * 0.7).max(1.0);
    let mut bars = Vec::new();
    let mut points = Vec::new();
    for (i, t) in turns.iter().enumerate() {
        let x = i as f64 * step;
        let u = &t.usage;
        let cached = (u.cache_read_input_tokens + u.cache_creation_input_tokens) as f64 / max_tokens * height;
        let input = u.input_tokens as f64 / max_tokens * height;
        let output = u.output_tokens as f64 / max_tokens * height;
        let title = format!(
            "turn {}: {} {} ({} output), {}",
            i + 1,
            grouped(u.total()),
            noun(u.total(), "token"),
            grouped(u.output_tokens),
            duration(t).map_or_else(|| units::UNKNOWN_DURATION_LABEL.to_owned(), units::human_duration_ms)
        );
        bars.push(view! {
            <g>
                <title>{title}</title>
                <rect class="bar-cache" x=x y=height - cached width=bar height=cached />
                <rect class="bar-input" x=x y=height - cached - input width=bar height=input />
                <rect class="bar-output" x=x y=height - cached - input - output width=bar height=output />
            </g>
        });
        // A turn of unknown duration has no point on the line.
        if let Some(d) = duration(t) {
            points.push(format!("{:.1},{:.1}", x + bar / 2.0, height - d as f64 / max_duration * height));
        }
    }
    let label = format!(
        "Tokens per turn ({}, at most {} {}) and turn durations ({})",
        counted(turns.len(), "turn"),
        grouped(max_tokens as u64),
        noun(max_tokens as u64, "token"),
        longest.map_or_else(|| "unknown".to_owned(), |ms| format!("at most {}", units::human_duration_ms(ms)))
    );
    view! {
        <figure class="chart">
            <svg viewBox=format!("0 0 {width} {height}") preserveAspectRatio="none" role="img" aria-label=label.clone()>
                {bars}
                <polyline class="duration-line" points=points.join(" ") />
            </svg>
            <figcaption class="muted">
                {label}
                " · bars: "
                <span class="legend legend-cache">"cache"</span>" "
                <span class="legend legend-input">"input"</span>" "
                <span class="legend legend-output">"output"</span>
                " · line: duration"
            </figcaption>
        </figure>
    }
    .into_any()
}

fn download_json(state: &ViewerState) {
    let Some(model) = state.model.get_value() else { return };
    let summary = summarize(&model.corpus, &model.graph);
    let text = sessionscope_engine::small_json::to_string_pretty(&summary).unwrap_or_default();
    crate::platform::download::download_text("sessionscope-summary.json", "application/json", &text);
}

/// CSV of the token figures: one row per conversation (main threads and agents).
pub fn csv(model: &Model) -> String {
    let graph = &model.graph;
    let mut out = String::from(
        "session_id,conversation,kind,agent_type,input_tokens,output_tokens,cache_creation_input_tokens,cache_read_input_tokens,cost_usd\n",
    );
    let quote = |s: &str| format!("\"{}\"", s.replace('"', "\"\""));
    for session in &graph.sessions {
        let conversations =
            std::iter::once(session.main).filter(|&c| c.is_some()).chain(session.agents.iter().copied());
        for c in conversations {
            let conv = &graph.conversations[c.index()];
            let name = if conv.is_agent() { agent_label(&model.corpus, graph, c) } else { "main".to_owned() };
            let u = &conv.usage;
            out.push_str(&format!(
                "{},{},{},{},{},{},{},{},{:.6}\n",
                quote(&session.id),
                quote(&name),
                conv.kind.name(),
                quote(&conv.agent_type),
                u.input_tokens,
                u.output_tokens,
                u.cache_creation_input_tokens,
                u.cache_read_input_tokens,
                conv.cost_usd
            ));
        }
    }
    out
}

fn download_csv(state: &ViewerState) {
    let Some(model) = state.model.get_value() else { return };
    crate::platform::download::download_text("sessionscope-usage.csv", "text/csv", &csv(&model));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_grouped_exactly() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(14_972_534), "14,972,534");
    }

    #[test]
    fn the_csv_has_a_row_per_conversation_with_the_engine_figures() {
        let model = crate::logic::loaded::example_model();
        let text = csv(&model);
        let rows: Vec<&str> = text.lines().collect();
        assert_eq!(rows.len(), 1 + model.graph.conversations.len());
        let main = &model.graph.conversations[model.graph.sessions[0].main.index()];
        assert!(rows[1].contains(&format!(",{},{},", main.usage.input_tokens, main.usage.output_tokens)));
    }
}
