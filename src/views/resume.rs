//! The open session's resume command: the line that takes the session up again in the agent
//! that wrote it, in its working directory, copied with one click; or why its agent has none.

use leptos::prelude::*;
use sessionscope_engine::history::session_resume;

use crate::state::use_viewer;

#[component]
pub fn ResumeCommand() -> impl IntoView {
    let viewer = use_viewer();
    // What the last copy said, and of which line (another session's line says nothing).
    let copied = RwSignal::new(None::<(String, &'static str)>);
    move || {
        let model = viewer.model()?;
        let (resume, cwd, agent) = session_resume(&model.corpus, &model.graph, viewer.session.get().index())?;
        let Some(line) = resume.shell_line(&cwd) else {
            let why = resume.why_not(agent).unwrap_or_default();
            return Some(view! { <p class="resume muted" role="note" aria-label="Resume">{why}</p> }.into_any());
        };
        let copy_line = line.clone();
        let shown = line.clone();
        let title = line.clone();
        let copy = move |_| {
            let line = copy_line.clone();
            leptos::task::spawn_local(async move {
                let done = crate::platform::download::copy_text(&line).await;
                let said =
                    if done { "Copied." } else { "The browser refused the clipboard: copy the line from the box." };
                copied.set(Some((line, said)));
            });
        };
        let label = format!("Copy the command that resumes this session in {agent}");
        Some(
            view! {
                <div class="resume" role="group" aria-label="Resume">
                    <span class="muted">"Resume: "</span>
                    <code class="resume-line" title=title>{line}</code>
                    <button type="button" class="button small" aria-label=label on:click=copy>"Copy"</button>
                    <span class="muted" role="status">{move || copied.with(|c| c.as_ref().filter(|(of, _)| *of == shown).map(|(_, said)| *said))}</span>
                </div>
            }
            .into_any(),
        )
    }
}
