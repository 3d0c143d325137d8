//! The Activity tab drawn: the calendar of the history's hours (an SVG whose hours carry their
//! day, hour and description, for the page to move through them with the keyboard), the days as
//! a table behind it, usage per model and per project over time (stacked columns, each with a
//! table of totals), and the 5-hour blocks with the current one's burn rate.

use sessionscope_engine::insights::activity::Block;
use sessionscope_engine::insights::report::{ActivityReport, date_of_day};

use super::{Html, counted, grouped};
use crate::logic::calendar::{Calendar, Metric, days_of};
use crate::logic::insight_lists::{Stacked, stacked};
use crate::render::units;
use crate::wire::insights::{CalendarMetric, UsageMeasure};

/// The calendar's geometry: a cell, and the room for the hours' and months' labels. The page
/// moves its focus ring by the same numbers (`data-*` of the SVG).
pub const CELL: f64 = 12.0;
pub const LEFT: f64 = 34.0;
pub const TOP: f64 = 16.0;
/// Names each stacked chart keeps apart.
const NAMES_KEPT: usize = 6;

/// How the tab tells times: the user's offset from UTC at a moment, in minutes, and its label.
pub struct Zone<'a> {
    pub offset_minutes: &'a dyn Fn(i64) -> i64,
    pub label: String,
    /// Now (to project the current block to its end).
    pub now_ms: i64,
}

impl Zone<'_> {
    /// A time in the zone, to the minute.
    fn minute(&self, ms: i64) -> String {
        units::iso_time(ms + (self.offset_minutes)(ms) * 60_000)[..16].to_owned()
    }
}

/// The tab; `sessions` is how many sessions the history holds.
pub fn html(
    report: &ActivityReport,
    metric: CalendarMetric,
    measure: UsageMeasure,
    blocks: usize,
    sessions: usize,
    zone: &Zone<'_>,
) -> String {
    let mut html = Html::new();
    if report.cells.is_empty() {
        let text = if sessions == 0 {
            "No session has been indexed yet.".to_owned()
        } else {
            format!(
                "No message of the {} of this history has a time: there is no activity to draw.",
                counted(sessions as u64, "session")
            )
        };
        html.element("p", &[("class", "insights-empty"), ("role", "status")], &text);
        return html.finish();
    }
    if sessions == 1 {
        html.element(
            "p",
            &[("class", "muted"), ("role", "status")],
            "This history holds one session: the calendar shows its hours.",
        );
    }
    let metric = match metric {
        CalendarMetric::Messages => Metric::Messages,
        CalendarMetric::Tokens => Metric::Tokens,
        CalendarMetric::Cost => Metric::Cost,
    };
    calendar_html(&mut html, report, metric, zone);
    usage_html(&mut html, report, measure);
    blocks_html(&mut html, &report.blocks, blocks, zone);
    html.finish()
}

fn describe(calendar: &Calendar, metric: Metric, day: usize, hour: usize) -> String {
    let value = calendar.value(day, hour);
    let amount = match metric {
        Metric::Messages => counted(value as u64, "message"),
        Metric::Tokens => counted(value as u64, "token"),
        Metric::Cost => format!("${value:.2}"),
    };
    format!("{} {hour:02}:00: {amount}", date_of_day(calendar.first_day + day as i64))
}

fn calendar_html(html: &mut Html, report: &ActivityReport, metric: Metric, zone: &Zone<'_>) {
    html.element("h2", &[("class", "insights-heading")], "When the history worked");
    if let Some(busiest) = &report.busiest {
        html.element(
            "p",
            &[("class", "session-facts"), ("id", "calendar-busiest")],
            &format!("Busiest hour: {} {:02}:00 ({})", busiest.day, busiest.hour, counted(busiest.messages, "message")),
        );
    }
    let Some(calendar) = Calendar::of(&report.cells, metric) else { return };
    // Room for a month's label even over a day or two.
    let width = LEFT + (calendar.days as f64 * CELL).max(48.0) + 4.0;
    let height = TOP + 24.0 * CELL + 4.0;
    let label = format!(
        "Activity calendar by {}, {} from {} ({}); the arrow keys move by an hour or a day",
        metric.label().to_lowercase(),
        counted(calendar.days as u64, "day"),
        date_of_day(calendar.first_day),
        zone.label
    );
    let busiest = calendar.busiest();
    html.raw(r#"<div class="calendar-scroll">"#);
    html.open(
        "svg",
        &[
            ("class", "calendar"),
            ("width", &format!("{width}")),
            ("height", &format!("{height}")),
            ("viewBox", &format!("0 0 {width} {height}")),
            ("role", "img"),
            ("tabindex", "0"),
            ("aria-label", &label),
            ("aria-describedby", "calendar-focus"),
            ("data-first-day", &calendar.first_day.to_string()),
            ("data-days", &calendar.days.to_string()),
            ("data-busiest", &busiest.map(|(d, h)| format!("{d}:{h}")).unwrap_or_default()),
        ],
    );
    for hour in (0..24).step_by(6) {
        html.element(
            "text",
            &[("class", "axis"), ("x", "0"), ("y", &format!("{}", TOP + hour as f64 * CELL + CELL - 2.0))],
            &format!("{hour:02}:00"),
        );
    }
    for day in 0..calendar.days {
        let date = date_of_day(calendar.first_day + day as i64);
        if day == 0 || date.ends_with("-01") {
            html.element(
                "text",
                &[("class", "axis"), ("x", &format!("{}", LEFT + day as f64 * CELL)), ("y", "11")],
                &date[..7],
            );
        }
    }
    for day in 0..calendar.days {
        for hour in 0..24 {
            let level = calendar.level(calendar.value(day, hour));
            if level == 0 {
                continue;
            }
            let class =
                if busiest == Some((day, hour)) { format!("heat-{level} busiest") } else { format!("heat-{level}") };
            let description = describe(&calendar, metric, day, hour);
            html.open(
                "rect",
                &[
                    ("class", &class),
                    ("data-day", &day.to_string()),
                    ("data-hour", &hour.to_string()),
                    ("data-label", &description),
                    ("x", &format!("{}", LEFT + day as f64 * CELL)),
                    ("y", &format!("{}", TOP + hour as f64 * CELL)),
                    ("width", &format!("{}", CELL - 1.0)),
                    ("height", &format!("{}", CELL - 1.0)),
                    ("rx", "2"),
                ],
            );
            html.element("title", &[], &description);
            html.raw("</rect>");
        }
    }
    html.raw(r#"<rect class="heat-focus" x="-100" y="-100" width="13" height="13" rx="3"></rect></svg></div>"#);
    html.raw(r#"<p class="muted" id="calendar-focus" role="status" aria-live="polite"></p>"#);
    if calendar.days_left_out > 0 {
        html.element(
            "p",
            &[("class", "muted")],
            &format!(
                "The calendar draws the latest year: {} with activity are in the table below.",
                counted(calendar.days_left_out as u64, "earlier day")
            ),
        );
    }
    let days = days_of(&report.cells);
    html.raw(r#"<details class="insight-table-details"><summary>"#);
    html.text(&format!("The {} as a table", counted(days.len() as u64, "day")));
    html.raw(r#"</summary><div class="insight-table" role="region" aria-label="Activity by day" tabindex="0"><table><caption>Activity by day, the latest first</caption><thead><tr><th scope="col">Day</th><th scope="col">Messages</th><th scope="col">Tokens</th><th scope="col">Cost</th><th scope="col">Busiest hour</th></tr></thead><tbody>"#);
    for day in &days {
        html.raw("<tr>");
        html.element("th", &[("scope", "row")], &day.day);
        html.element("td", &[("class", "number")], &grouped(day.messages));
        html.element("td", &[("class", "number")], &grouped(day.tokens));
        html.element("td", &[("class", "number")], &format!("${:.2}", day.cost_usd));
        html.element("td", &[("class", "number")], &format!("{:02}:00", day.busiest_hour));
        html.raw("</tr>");
    }
    html.raw("</tbody></table></div></details>");
}

fn usage_html(html: &mut Html, report: &ActivityReport, measure: UsageMeasure) {
    html.element("h2", &[("class", "insights-heading")], "Usage over time");
    let charts =
        [("By model", stacked(&report.by_model, NAMES_KEPT)), ("By project", stacked(&report.by_project, NAMES_KEPT))];
    if charts.iter().all(|(_, s)| s.is_none()) {
        html.element("p", &[("class", "muted")], "No response of this history logged its usage.");
        return;
    }
    html.raw(r#"<div class="insight-grid">"#);
    for (title, chart) in &charts {
        if let Some(chart) = chart {
            stacked_html(html, title, chart, measure);
        }
    }
    html.raw("</div>");
}

/// Usage stacked by name as columns, its legend a table of each name's totals.
fn stacked_html(html: &mut Html, title: &str, stacked: &Stacked, measure: UsageMeasure) {
    let value = |part: &(u64, f64)| match measure {
        UsageMeasure::Tokens => part.0 as f64,
        UsageMeasure::Cost => part.1,
    };
    let most = stacked.columns.iter().map(|c| c.iter().map(value).sum::<f64>()).fold(0.0, f64::max);
    let width = 600.0 / stacked.columns.len().max(1) as f64;
    let unit = if stacked.days_per_column == 7 { "week" } else { "day" };
    let total: f64 = stacked.totals.iter().map(value).sum();
    let label = format!(
        "{title} per {unit}: {} in all",
        match measure {
            UsageMeasure::Tokens => counted(total as u64, "token"),
            UsageMeasure::Cost => format!("${total:.2}"),
        }
    );
    html.raw(r#"<figure class="insight-chart">"#);
    html.open(
        "svg",
        &[("viewBox", "0 0 600 112"), ("preserveAspectRatio", "none"), ("role", "img"), ("aria-label", &label)],
    );
    for (c, column) in stacked.columns.iter().enumerate() {
        let mut y = 110.0;
        let day = date_of_day(stacked.first_day + c as i64 * stacked.days_per_column);
        for (n, part) in column.iter().enumerate() {
            let height = if most > 0.0 { value(part) / most * 106.0 } else { 0.0 };
            if height <= 0.0 {
                continue;
            }
            y -= height;
            html.open(
                "rect",
                &[
                    ("class", SERIES[n.min(SERIES.len() - 1)]),
                    ("x", &format!("{:.2}", c as f64 * width)),
                    ("y", &format!("{y:.2}")),
                    ("width", &format!("{:.2}", (width - 0.5).max(0.3))),
                    ("height", &format!("{height:.2}")),
                ],
            );
            html.element(
                "title",
                &[],
                &format!("{unit} of {day}, {}: {}, ${:.2}", stacked.names[n], counted(part.0, "token"), part.1),
            );
            html.raw("</rect>");
        }
    }
    html.raw("</svg>");
    html.element("figcaption", &[("class", "muted")], &label);
    let caption = format!("{title}: totals");
    html.open("div", &[("class", "insight-table"), ("role", "region"), ("aria-label", &caption), ("tabindex", "0")]);
    html.raw("<table>");
    html.element("caption", &[], &caption);
    html.raw(r#"<thead><tr><th scope="col">Name</th><th scope="col">Tokens</th><th scope="col">Cost</th></tr></thead><tbody>"#);
    for (n, (name, (tokens, cost))) in stacked.names.iter().zip(&stacked.totals).enumerate() {
        html.raw("<tr>");
        html.open("th", &[("scope", "row"), ("class", "name-cell"), ("title", name)]);
        html.open("span", &[("class", SWATCHES[n.min(SWATCHES.len() - 1)]), ("aria-hidden", "true")]).close("span");
        html.text(name).close("th");
        html.element("td", &[("class", "number")], &grouped(*tokens));
        html.element("td", &[("class", "number")], &format!("${cost:.2}"));
        html.raw("</tr>");
    }
    html.raw("</tbody></table></div></figure>");
}

/// The classes of a stacked chart's series, and of their swatches in the legend.
const SERIES: [&str; 8] =
    ["series-0", "series-1", "series-2", "series-3", "series-4", "series-5", "series-6", "series-7"];
const SWATCHES: [&str; 8] = [
    "swatch series-0",
    "swatch series-1",
    "swatch series-2",
    "swatch series-3",
    "swatch series-4",
    "swatch series-5",
    "swatch series-6",
    "swatch series-7",
];

fn blocks_html(html: &mut Html, blocks: &[Block], shown: usize, zone: &Zone<'_>) {
    let blocks: Vec<&Block> = blocks.iter().filter(|b| !b.gap).rev().collect();
    html.element("h2", &[("class", "insights-heading")], "5-hour blocks");
    html.element(
        "p",
        &[("class", "muted")],
        &format!(
            "Usage in the 5-hour windows Claude's plans count, as ccusage's blocks report them: {}. Times in {}.",
            counted(blocks.len() as u64, "block"),
            zone.label
        ),
    );
    if let Some(block) = blocks.iter().find(|b| b.active) {
        let text = match block.burn_rate() {
            Some(rate) => {
                let left_minutes = (block.end_ms - zone.now_ms).max(0) as f64 / 60_000.0;
                format!(
                    "Current block, since {}: {}, ${:.2}; burning {} a minute, ${:.2} an hour; by its end at {}, about {} and ${:.2}",
                    zone.minute(block.start_ms),
                    counted(block.total_tokens(), "token"),
                    block.cost_usd,
                    counted(rate.tokens_per_minute as u64, "token"),
                    rate.cost_per_hour,
                    zone.minute(block.end_ms),
                    counted(block.total_tokens() + (rate.tokens_per_minute * left_minutes) as u64, "token"),
                    block.cost_usd + rate.cost_per_hour * left_minutes / 60.0
                )
            }
            None => format!(
                "Current block, since {}: {}, ${:.2}",
                zone.minute(block.start_ms),
                counted(block.total_tokens(), "token"),
                block.cost_usd
            ),
        };
        html.element("p", &[("class", "block-burn"), ("role", "status")], &text);
    }
    html.raw(r#"<div class="insight-table" role="region" aria-label="5-hour blocks" tabindex="0"><table><caption>5-hour blocks, the latest first</caption><thead><tr><th scope="col">Start</th><th scope="col">Last response</th><th scope="col">Responses</th><th scope="col">Tokens</th><th scope="col">Cost</th><th scope="col">Models</th></tr></thead><tbody>"#);
    for block in blocks.iter().take(shown) {
        html.raw(if block.active { r#"<tr class="active-block">"# } else { "<tr>" });
        let start = if block.active {
            format!("{} (active)", zone.minute(block.start_ms))
        } else {
            zone.minute(block.start_ms)
        };
        html.element("th", &[("scope", "row")], &start);
        html.element("td", &[], &block.actual_end_ms.map(|t| zone.minute(t)).unwrap_or_default());
        html.element("td", &[("class", "number")], &grouped(u64::from(block.responses)));
        html.element("td", &[("class", "number")], &grouped(block.total_tokens()));
        html.element("td", &[("class", "number")], &format!("${:.2}", block.cost_usd));
        html.element("td", &[("class", "name-cell")], &block.models.join(", "));
        html.raw("</tr>");
    }
    html.raw("</tbody></table></div>");
    let left = blocks.len().saturating_sub(shown);
    if left > 0 {
        html.element(
            "button",
            &[("type", "button"), ("class", "button"), ("data-action", "more-blocks")],
            &format!("Show more blocks ({left} left)"),
        );
    }
}
