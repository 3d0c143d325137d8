//! The load summary: what was found, what was linked, what was skipped and why.

use leptos::prelude::*;
use sessionscope_engine::model::{DiagnosticKind, Format, Severity};

use crate::logic::words::counted;
use crate::state::{use_loading, use_viewer};
use crate::views::parts::{FileParts, Place};

#[component]
pub fn LoadSummary() -> impl IntoView {
    let loading = use_loading();
    let viewer = use_viewer();
    move || {
        // The first part of a big load, shown while the rest is read, has no summary yet.
        if loading.preview.get().is_some() {
            return None;
        }
        let model = viewer.model()?;
        let corpus = &model.corpus;
        let graph = &model.graph;
        let counts = corpus.counts();
        let agents = graph.conversations.iter().filter(|c| c.is_agent()).count();
        let unlinked = graph.unlinked_agents.len();
        let rejected: Vec<(String, String)> = corpus
            .files
            .iter()
            .enumerate()
            .filter(|(_, f)| f.format == Format::Rejected)
            .map(|(i, f)| {
                let message = corpus
                    .diagnostics
                    .iter()
                    .find(|d| d.file == i as u32 && d.line == 0)
                    .map(|d| d.message.clone())
                    .unwrap_or_default();
                (f.path.clone(), message)
            })
            .collect();
        // What the loader says of a whole file it did read (an empty file): said as loudly.
        let file_problems = corpus
            .diagnostics
            .iter()
            .filter(|d| d.line == 0 && corpus.files.get(d.file as usize).is_some_and(|f| f.format != Format::Rejected));
        let rejected: Vec<(String, String)> = rejected
            .into_iter()
            .chain(file_problems.map(|d| (corpus.files[d.file as usize].path.clone(), d.message.clone())))
            .collect();
        let skipped_names = loading.skipped_by_name.get();
        // Agent databases that could not be opened are left out, with the reason, as rejected
        // files are; what the reader noted about those it opened is said beside.
        let mut rejected = rejected;
        rejected.extend(loading.unread.get().into_iter().map(|problem| (problem.path, problem.reason)));
        let notes: Vec<(String, String)> = corpus
            .files
            .iter()
            .filter_map(|f| loading.database_note(&f.path).map(|note| (f.path.clone(), note)))
            .collect();
        let line_problems: Vec<(String, u32, &'static str, String, Severity)> = corpus
            .diagnostics
            .iter()
            .filter(|d| d.line > 0)
            .map(|d| {
                (
                    corpus.files[d.file as usize].path.clone(),
                    d.line,
                    d.kind.name(),
                    d.message.clone(),
                    d.kind.severity(),
                )
            })
            .collect();
        // `(path, format, label, lines, entries, skipped)` per file, and a count per label for the
        // headline. A record stream the loader made of OpenCode storage files is listed after them,
        // and is not a file read.
        let files_read: Vec<(String, Format, &'static str, u64, u64, u64)> = corpus
            .files
            .iter()
            .map(|f| (f.path.clone(), f.format, f.label(), f.counts.lines, f.counts.entries, f.counts.skipped))
            .collect();
        let mut per_label: Vec<(&'static str, usize)> = Vec::new();
        for (_, _, label, ..) in &files_read {
            match per_label.iter_mut().find(|(l, _)| l == label) {
                Some((_, n)) => *n += 1,
                None => per_label.push((label, 1)),
            }
        }
        let read_as = format!(
            "Read as: {}",
            per_label
                .iter()
                .map(|(label, n)| format!("{label} ({})", counted(*n, "file")))
                .collect::<Vec<_>>()
                .join(", ")
        );
        let file_count = files_read.len();
        let given = corpus.files.iter().filter(|f| !f.is_derived()).count();
        let skipped = counts.skipped;
        let headline = format!(
            "{} · {} · {} · {} linked{} · {} skipped",
            counted(graph.sessions.len(), "session"),
            counted(given, "file"),
            counted(counts.lines, "line"),
            counted(agents.saturating_sub(unlinked), "agent conversation"),
            if unlinked > 0 { format!(", {unlinked} unlinked") } else { String::new() },
            counted(skipped, "line")
        );
        // A file past what the page holds is shown in part: said first, with what to do and
        // buttons to its other parts (`FileParts`). A file of another format, which cannot be
        // read in part, is said here.
        let left_out: Vec<String> = corpus
            .diagnostics
            .iter()
            .filter(|d| d.kind == DiagnosticKind::LeftOut)
            .filter(|d| corpus.files.get(d.file as usize).is_some_and(|f| f.held.is_none()))
            .map(|d| {
                let path = corpus.files.get(d.file as usize).map_or("", |f| f.path.as_str());
                format!("{path} is not shown: {}.", d.message)
            })
            .collect();
        let headline = if counts.left_out > 0 {
            format!("{headline} · {} left out", counted(counts.left_out, "line"))
        } else {
            headline
        };
        let has_details = !line_problems.is_empty() || !rejected.is_empty() || !skipped_names.is_empty();
        let files_with_problems = rejected.len();
        let problem_count = line_problems.len();
        Some(view! {
            <section class="load-summary" aria-label="Load summary">
                <p class="load-headline" role="status">{headline}</p>
                <FileParts place=Place::Summary />
                {left_out
                    .into_iter()
                    .map(|text| view! { <p class="load-left-out" role="alert">{text}</p> })
                    .collect::<Vec<_>>()}
                <details class="files-read">
                    <summary>{read_as}</summary>
                    <table class="files-table" aria-label="Files read">
                        <thead>
                            <tr>
                                <th scope="col">"File"</th>
                                <th scope="col">"Read as"</th>
                                <th scope="col" class="number">"Lines"</th>
                                <th scope="col" class="number">"Entries"</th>
                                <th scope="col" class="number">"Skipped"</th>
                            </tr>
                        </thead>
                        <tbody>
                            {files_read
                                .into_iter()
                                .take(2000)
                                .map(|(path, format, label, lines, entries, skipped)| view! {
                                    <tr>
                                        <td>{path}</td>
                                        <td data-format=format.name()>{label}</td>
                                        <td class="number">{lines}</td>
                                        <td class="number">{entries}</td>
                                        <td class="number">{skipped}</td>
                                    </tr>
                                })
                                .collect::<Vec<_>>()}
                        </tbody>
                    </table>
                    {(file_count > 2000).then(|| view! { <p>{format!("{} not listed.", counted(file_count - 2000, "more file"))}</p> })}
                </details>
                {rejected
                    .into_iter()
                    .map(|(path, message)| {
                        view! { <p class="rejected" role="alert"><strong>{path}</strong>": "{message}</p> }
                    })
                    .collect::<Vec<_>>()}
                {notes
                    .into_iter()
                    .map(|(path, note)| view! { <p class="load-note"><strong>{path}</strong>": "{note}</p> })
                    .collect::<Vec<_>>()}
                {has_details.then(|| view! {
                    <details class="diagnostics">
                        <summary>{format!(
                            "Diagnostics ({} with a problem, {} with a problem, {} left out by name)",
                            counted(problem_count, "line"),
                            counted(files_with_problems, "file"),
                            counted(skipped_names.len(), "file")
                        )}</summary>
                        <table class="diagnostics-table">
                            <thead>
                                <tr><th scope="col">"File"</th><th scope="col">"Line"</th><th scope="col">"Kind"</th><th scope="col">"Message"</th></tr>
                            </thead>
                            <tbody>
                                {line_problems
                                    .into_iter()
                                    .take(2000)
                                    .map(|(file, line, kind, message, severity)| {
                                        let class = match severity {
                                            Severity::Error => "diag-error",
                                            Severity::Warning => "diag-warning",
                                            Severity::Info => "diag-info",
                                        };
                                        view! {
                                            <tr class=class>
                                                <td>{file}</td>
                                                <td>{line}</td>
                                                <td>{kind}</td>
                                                <td>{message}</td>
                                            </tr>
                                        }
                                    })
                                    .collect::<Vec<_>>()}
                                {skipped_names
                                    .into_iter()
                                    .take(500)
                                    .map(|path| view! {
                                        <tr class="diag-info">
                                            <td>{path}</td>
                                            <td>"-"</td>
                                            <td>"not-a-log-name"</td>
                                            <td>{format!("left out: {}", sessionscope_engine::import::names::NOT_A_LOG_NAME)}</td>
                                        </tr>
                                    })
                                    .collect::<Vec<_>>()}
                            </tbody>
                        </table>
                    </details>
                })}
            </section>
        })
    }
}
