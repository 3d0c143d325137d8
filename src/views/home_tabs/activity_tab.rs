//! The Activity tab: the insights worker's drawing of when the history worked (a calendar of
//! days × hours in the browser's time zone, the days as a table behind it), usage per model and
//! project over time, and the 5-hour blocks; the page keeps what the calendar is coloured by, and
//! moves a focus through the calendar's hours with the keyboard, saying each as it goes.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use super::{Coverage, act, drawn, error_view};
use crate::logic::calendar;
use crate::state::history::use_history;
use crate::wire::insights::{CalendarMetric, InsightsRequest, UsageMeasure};

/// What the calendar is coloured by, and what the usage charts draw.
const CONTROLS: &str = r#"<div role="radiogroup" aria-labelledby="calendar-metric-label" class="radio-row"><span id="calendar-metric-label" class="muted">Calendar by</span><label><input type="radio" name="calendar-metric" value="messages" checked> Messages</label><label><input type="radio" name="calendar-metric" value="tokens"> Tokens</label><label><input type="radio" name="calendar-metric" value="cost"> Cost</label></div><div role="radiogroup" aria-labelledby="usage-measure-label" class="radio-row"><span id="usage-measure-label" class="muted">Usage as</span><label><input type="radio" name="usage-measure" value="cost" checked> Cost</label><label><input type="radio" name="usage-measure" value="tokens"> Tokens</label></div>"#;

/// Blocks listed at first, and more each time "Show more" is pressed.
const BLOCKS: u32 = 20;
/// The calendar's geometry, as the worker draws it (`worker::draw::activity_html`).
const CELL: f64 = 12.0;
const LEFT: f64 = 34.0;
const TOP: f64 = 16.0;

#[component]
pub fn ActivityTab() -> impl IntoView {
    let history = use_history();
    let metric = RwSignal::new(CalendarMetric::Messages);
    let measure = RwSignal::new(UsageMeasure::Cost);
    let blocks = RwSignal::new(BLOCKS);
    let (html, error) = drawn("activity", move || InsightsRequest::Activity {
        metric: metric.get(),
        measure: measure.get(),
        blocks: blocks.get(),
    });
    let focus = StoredValue::new(None::<(usize, usize)>);
    let on_click = move |event: web_sys::MouseEvent| {
        if let Some((action, _)) = act(history, &event)
            && action == "more-blocks"
        {
            blocks.update(|b| *b += BLOCKS * 5);
        }
    };
    let on_key = move |event: web_sys::KeyboardEvent| {
        let Some(svg) = event.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()) else { return };
        if !svg.class_list().contains("calendar") {
            return;
        }
        let number = |name: &str| svg.get_attribute(name).and_then(|v| v.parse::<i64>().ok());
        let (Some(first_day), Some(days)) = (number("data-first-day"), number("data-days")) else { return };
        let at = focus.get_value().or_else(|| busiest_of(&svg)).unwrap_or((0, 0));
        let Some(to) = calendar::step(days as usize, at, &event.key()) else { return };
        event.prevent_default();
        focus.set_value(Some(to));
        show_focus(&svg, first_day, to);
    };
    let on_focus = move |event: web_sys::FocusEvent| {
        let Some(svg) = event.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()) else { return };
        let Some(first_day) = svg.get_attribute("data-first-day").and_then(|v| v.parse::<i64>().ok()) else { return };
        let at = focus.get_value().or_else(|| busiest_of(&svg)).unwrap_or((0, 0));
        focus.set_value(Some(at));
        show_focus(&svg, first_day, at);
    };
    // A new drawing has its focus ring where the focus was.
    Effect::new(move |_| {
        html.track();
        focus.set_value(None);
    });
    // The controls are plain markup (no view code for them in the page's download): one change
    // handler reads which one changed.
    let on_change = move |event: web_sys::Event| {
        let Some(input) = event.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) else { return };
        match (input.name().as_str(), input.value().as_str()) {
            ("calendar-metric", "tokens") => metric.set(CalendarMetric::Tokens),
            ("calendar-metric", "cost") => metric.set(CalendarMetric::Cost),
            ("calendar-metric", _) => metric.set(CalendarMetric::Messages),
            ("usage-measure", "tokens") => measure.set(UsageMeasure::Tokens),
            ("usage-measure", _) => measure.set(UsageMeasure::Cost),
            _ => {}
        }
    };
    view! {
        <section class="insights" aria-label="Activity">
            <Coverage />
            <div class="history-filters" on:change=on_change inner_html=CONTROLS></div>
            {error_view(error)}
            <div
                class="insights-drawn"
                on:click=on_click
                on:keydown=on_key
                on:focusin=on_focus
                inner_html=move || html.get()
            ></div>
        </section>
    }
}

/// The busiest hour the drawing marks, `(day, hour)`.
fn busiest_of(svg: &web_sys::Element) -> Option<(usize, usize)> {
    let busiest = svg.get_attribute("data-busiest")?;
    let (day, hour) = busiest.split_once(':')?;
    Some((day.parse().ok()?, hour.parse().ok()?))
}

/// Puts the focus ring on an hour and says it in the calendar's live region.
fn show_focus(svg: &web_sys::Element, first_day: i64, (day, hour): (usize, usize)) {
    if let Ok(Some(ring)) = svg.query_selector("rect.heat-focus") {
        let _ = ring.set_attribute("x", &format!("{}", LEFT + day as f64 * CELL - 1.0));
        let _ = ring.set_attribute("y", &format!("{}", TOP + hour as f64 * CELL - 1.0));
    }
    let selector = format!("rect[data-day=\"{day}\"][data-hour=\"{hour}\"]");
    let label =
        svg.query_selector(&selector).ok().flatten().and_then(|cell| cell.get_attribute("data-label")).unwrap_or_else(
            || {
                format!(
                    "{} {hour:02}:00: no activity",
                    sessionscope_engine::insights::report::date_of_day(first_day + day as i64)
                )
            },
        );
    if let Some(live) = super::by_id("calendar-focus") {
        live.set_text_content(Some(&label));
    }
}
