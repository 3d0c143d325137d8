//! The parts of a file too big to show whole: which lines are shown, and buttons to the part
//! before and after. Said in the load summary, and again below the conversation's last row,
//! where a person scrolling reaches the lines left out.

use leptos::prelude::*;
use sessionscope_engine::model::DiagnosticKind;

use crate::logic::file_parts::{ShownPart, shown_parts};
use crate::render::units::{grouped, human_bytes};
use crate::state::loading::PartTo;
use crate::state::{use_loading, use_viewer};

/// Where the part buttons are: they say the same, in words that fit the place.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// In the load summary, after what was left out and why.
    Summary,
    /// Below the conversation's last row.
    End,
}

/// What of a file is shown, in a sentence.
fn shown_words(part: &ShownPart) -> String {
    if part.last_line < part.first_line {
        return format!(
            "No line of {} is shown ({} lines, {}).",
            part.path,
            grouped(part.file_lines),
            human_bytes(part.file_size)
        );
    }
    format!(
        "Lines {}–{} of {} of {} are shown ({} of {}).",
        grouped(part.first_line),
        grouped(part.last_line),
        grouped(part.file_lines),
        part.path,
        human_bytes(part.shown_bytes),
        human_bytes(part.file_size)
    )
}

/// The parts of every file shown in part, with the buttons that show another part. Nothing when
/// every file is shown whole, or (at the end) when no file has a part after the one shown.
#[component]
pub fn FileParts(place: Place) -> impl IntoView {
    let loading = use_loading();
    let viewer = use_viewer();
    move || {
        // A preview's parts are not the load's: the buttons wait for the whole.
        if loading.preview.get().is_some() {
            return None;
        }
        let model = viewer.model()?;
        let parts: Vec<(ShownPart, String)> = shown_parts(&model.corpus)
            .into_iter()
            .filter(|part| match place {
                Place::Summary => true,
                Place::End => part.next.is_some(),
            })
            .map(|part| {
                let said: Vec<&str> = model
                    .corpus
                    .diagnostics
                    .iter()
                    .filter(|d| d.file == part.file && d.kind == DiagnosticKind::LeftOut)
                    .map(|d| d.message.as_str())
                    .collect();
                let which = if part.is_first() { "the first part" } else { "part" };
                let alert = format!("Only {which} of {} is shown: {}.", part.path, said.join("; "));
                (part, alert)
            })
            .collect();
        if parts.is_empty() {
            return None;
        }
        let views = parts
            .into_iter()
            .map(|(part, alert)| {
                let path = part.path.clone();
                let earlier = loading.earlier_part(&path);
                let show = move |to: PartTo| {
                    let path = path.clone();
                    move |_| loading.show_part(&path, to)
                };
                // Going back to the first part is a button of its own unless it is the one before.
                let first = (!part.is_first() && earlier.is_none_or(|start| !start.is_beginning())).then(|| {
                    view! { <button type="button" class="part-first" on:click=show(PartTo::First)>"First part"</button> }
                });
                let before = (!part.is_first() && earlier.is_some()).then(|| {
                    view! { <button type="button" class="part-earlier" on:click=show(PartTo::Earlier)>"Earlier part"</button> }
                });
                let next = part.next.map(|next| {
                    let label = format!("Next part, from line {}", grouped(u64::from(next.line)));
                    view! { <button type="button" class="part-next" on:click=show(PartTo::Next(next))>{label}</button> }
                });
                let label = match place {
                    Place::Summary => format!("Parts of {}", part.path),
                    Place::End => format!("Parts of {}, after the last row", part.path),
                };
                let words = shown_words(&part);
                view! {
                    <div class="file-parts" role="group" aria-label=label>
                        {(place == Place::Summary).then(|| view! { <p class="load-left-out" role="alert">{alert}</p> })}
                        <p class="parts-shown">{words}</p>
                        <div class="part-buttons">{first}{before}{next}</div>
                    </div>
                }
            })
            .collect::<Vec<_>>();
        Some(view! { <div class="file-parts-list">{views}</div> })
    }
}
