//! A history's insights summed over its units, as the history home and the command line show
//! them: its files ([`files`], and one file's changes, [`changes_of`]), its failures
//! ([`failures`]) and its activity ([`activity`]). Every report names sessions by their unit and
//! their place in the unit's rows, and carries the session's id to open it.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use super::activity::{Block, HOUR_MS, UsageEvent, blocks_by, dedup};
use super::edits::ChangeKind;
use super::failures::mask;
use super::{FailureKind, SessionFacts, UnitInsights};

/// One unit of a history (its number in the history) and its insights.
#[derive(Clone, Copy)]
pub struct UnitRef<'a> {
    pub unit: u32,
    pub insights: &'a UnitInsights,
}

impl<'a> UnitRef<'a> {
    fn row(&self, session: u32) -> Option<&'a SessionFacts> {
        self.insights.sessions.get(session as usize)
    }

    fn project(&self, session: u32) -> &'a str {
        self.row(session).map_or("", |r| r.project.as_str())
    }
}

/// Where something happened: the session (its unit, its place in the unit's rows, its id) and
/// the line to open it at.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Place {
    pub unit: u32,
    pub session: u32,
    pub session_id: String,
    /// The session's title.
    #[serde(default)]
    pub title: String,
    pub project: String,
    pub agent: String,
    pub entry: String,
    pub time_ms: Option<i64>,
}

fn place(unit: &UnitRef<'_>, session: u32, entry: &str, time_ms: i64) -> Place {
    let row = unit.row(session);
    Place {
        unit: unit.unit,
        session,
        session_id: row.map(|r| r.id.clone()).unwrap_or_default(),
        title: row.map(|r| r.title.clone()).unwrap_or_default(),
        project: unit.project(session).to_owned(),
        agent: row.map(|r| r.agent.clone()).unwrap_or_default(),
        entry: entry.to_owned(),
        time_ms: (time_ms != i64::MIN).then_some(time_ms),
    }
}

/// A file of the history, with what was done to it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileSummary {
    pub project: String,
    pub path: String,
    /// Sessions that read or changed it.
    pub sessions: u32,
    pub changes: u32,
    pub reads: u32,
    pub added: u64,
    pub removed: u64,
    /// Versions of it Claude Code kept ([`versions_of`]).
    pub versions: u32,
    /// Its last change (or read, if it was never changed).
    pub last_ms: Option<i64>,
    /// Agents that changed it.
    pub agents: Vec<String>,
}

/// Every file the history read or changed, per project, the last changed first.
pub fn files(units: &[UnitRef<'_>]) -> Vec<FileSummary> {
    type Tally = (FileSummary, Vec<(u32, u32)>);
    let mut by_file: FxHashMap<(String, String), Tally> = FxHashMap::default();
    fn entry<'m>(by_file: &'m mut FxHashMap<(String, String), Tally>, project: &str, path: &str) -> &'m mut Tally {
        by_file.entry((project.to_owned(), path.to_owned())).or_insert_with(|| {
            (FileSummary { project: project.to_owned(), path: path.to_owned(), ..FileSummary::default() }, Vec::new())
        })
    }
    for unit in units {
        let insights = unit.insights;
        for change in &insights.changes {
            let (summary, sessions) = entry(&mut by_file, unit.project(change.session), insights.name(change.path));
            summary.changes += 1;
            summary.added += u64::from(change.added);
            summary.removed += u64::from(change.removed);
            if change.time_ms != i64::MIN {
                summary.last_ms = Some(summary.last_ms.map_or(change.time_ms, |l| l.max(change.time_ms)));
            }
            if let Some(agent) = unit.row(change.session).map(|r| &r.agent)
                && !summary.agents.contains(agent)
            {
                summary.agents.push(agent.clone());
            }
            sessions.push((unit.unit, change.session));
        }
        for version in &insights.versions {
            let (summary, _) = entry(&mut by_file, unit.project(version.session), insights.name(version.path));
            summary.versions += 1;
        }
        for read in &insights.reads {
            let (summary, sessions) = entry(&mut by_file, unit.project(read.session), insights.name(read.path));
            summary.reads += read.reads;
            if summary.changes == 0 && read.last_ms != i64::MIN {
                summary.last_ms = Some(summary.last_ms.map_or(read.last_ms, |l| l.max(read.last_ms)));
            }
            sessions.push((unit.unit, read.session));
        }
    }
    let mut out: Vec<FileSummary> = by_file
        .into_values()
        .map(|(mut summary, mut sessions)| {
            sessions.sort_unstable();
            sessions.dedup();
            summary.sessions = sessions.len() as u32;
            summary
        })
        .collect();
    out.sort_by(|a, b| {
        (b.changes > 0)
            .cmp(&(a.changes > 0))
            .then(b.last_ms.cmp(&a.last_ms))
            .then(a.project.cmp(&b.project))
            .then(a.path.cmp(&b.path))
    });
    out
}

/// One change of a file, with where it was made.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChangeRef {
    pub place: Place,
    pub path: String,
    pub kind: ChangeKind,
    pub to: Option<String>,
    pub tool: String,
    /// The title of the prompt that led to it.
    pub prompt: String,
    pub added: u32,
    pub removed: u32,
    pub failed: bool,
}

/// Every change of `path` in `project` across the history, in time order (changes without a time
/// last, in the order found).
pub fn changes_of(units: &[UnitRef<'_>], project: &str, path: &str) -> Vec<ChangeRef> {
    let mut out = Vec::new();
    for unit in units {
        let insights = unit.insights;
        for change in &insights.changes {
            let moved_here = change.to.is_some_and(|to| insights.name(to) == path);
            if (insights.name(change.path) != path && !moved_here) || unit.project(change.session) != project {
                continue;
            }
            out.push(ChangeRef {
                place: place(unit, change.session, &change.entry, change.time_ms),
                path: insights.name(change.path).to_owned(),
                kind: change.kind,
                to: change.to.map(|to| insights.name(to).to_owned()),
                tool: insights.name(change.tool).to_owned(),
                prompt: insights.name(change.prompt).to_owned(),
                added: change.added,
                removed: change.removed,
                failed: change.failed,
            });
        }
    }
    out.sort_by_key(|c| c.place.time_ms.unwrap_or(i64::MAX));
    out
}

/// A version of a file Claude Code kept (see [`super::Version`]), with where it was kept: its
/// text is `file-history/<session id>/<backup>` in the folder above the projects.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct VersionRef {
    pub place: Place,
    pub backup: String,
    pub version: u32,
}

/// The versions Claude Code kept of `path` in `project`, oldest first.
pub fn versions_of(units: &[UnitRef<'_>], project: &str, path: &str) -> Vec<VersionRef> {
    let mut out = Vec::new();
    for unit in units {
        let insights = unit.insights;
        for version in &insights.versions {
            if insights.name(version.path) != path || unit.project(version.session) != project {
                continue;
            }
            out.push(VersionRef {
                place: place(unit, version.session, "", version.time_ms),
                backup: insights.name(version.backup).to_owned(),
                version: version.version,
            });
        }
    }
    out.sort_by(|a, b| {
        a.place.time_ms.unwrap_or(i64::MAX).cmp(&b.place.time_ms.unwrap_or(i64::MAX)).then(a.version.cmp(&b.version))
    });
    out
}

/// Calls and failures of one tool, project, model or agent.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rate {
    pub name: String,
    pub calls: u64,
    pub failed: u64,
}

impl Rate {
    pub fn share(&self) -> f64 {
        if self.calls == 0 { 0.0 } else { self.failed as f64 / self.calls as f64 }
    }
}

/// Occurrences a failure group keeps (its count goes on).
pub const OCCURRENCES_KEPT: usize = 100;

/// Failures that read the same once masked.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailureGroup {
    pub kind: FailureKind,
    /// The message masked ([`mask`]), and the first one met as it was.
    pub key: String,
    pub sample: String,
    pub count: u64,
    pub first_ms: Option<i64>,
    pub last_ms: Option<i64>,
    /// The tools that failed so, in order of first failure.
    pub tools: Vec<String>,
    /// Where it happened, the first [`OCCURRENCES_KEPT`] in time order.
    pub occurrences: Vec<Place>,
}

/// The failures of a history.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailureReport {
    pub calls: u64,
    pub tool_failures: u64,
    pub interrupted: u64,
    pub api_errors: u64,
    pub by_tool: Vec<Rate>,
    pub by_project: Vec<Rate>,
    pub by_model: Vec<Rate>,
    pub by_agent: Vec<Rate>,
    /// The most frequent first.
    pub groups: Vec<FailureGroup>,
}

fn rates(map: FxHashMap<String, Rate>) -> Vec<Rate> {
    let mut out: Vec<Rate> = map.into_values().collect();
    out.sort_by(|a, b| b.failed.cmp(&a.failed).then(b.calls.cmp(&a.calls)).then(a.name.cmp(&b.name)));
    out
}

/// Every failed tool call, interrupted turn and API error of the history, grouped.
pub fn failures(units: &[UnitRef<'_>]) -> FailureReport {
    let mut report = FailureReport::default();
    let (mut tools, mut projects, mut models, mut agents): (FxHashMap<String, Rate>, _, _, _) =
        (FxHashMap::default(), FxHashMap::default(), FxHashMap::default(), FxHashMap::default());
    let add = |map: &mut FxHashMap<String, Rate>, name: &str, calls: u32, failed: u32| {
        let rate = map.entry(name.to_owned()).or_insert_with(|| Rate { name: name.to_owned(), ..Rate::default() });
        rate.calls += u64::from(calls);
        rate.failed += u64::from(failed);
    };
    // Each group with its occurrences and their times, sorted and cut to OCCURRENCES_KEPT at the end.
    type Timed = Vec<(i64, Place)>;
    let mut groups: FxHashMap<(FailureKind, String), (FailureGroup, Timed)> = FxHashMap::default();
    for unit in units {
        let insights = unit.insights;
        for calls in &insights.calls {
            report.calls += u64::from(calls.calls);
            add(&mut tools, insights.name(calls.tool), calls.calls, calls.failed);
            add(&mut projects, unit.project(calls.session), calls.calls, calls.failed);
            add(&mut models, insights.name(calls.model), calls.calls, calls.failed);
            let agent = unit.row(calls.session).map_or("", |r| r.agent.as_str());
            add(&mut agents, agent, calls.calls, calls.failed);
        }
        for failure in &insights.failures {
            match failure.kind {
                FailureKind::Tool => report.tool_failures += 1,
                FailureKind::Interrupted => report.interrupted += 1,
                FailureKind::Api => report.api_errors += 1,
            }
            let key = mask(&failure.message);
            let (group, places) = groups.entry((failure.kind, key.clone())).or_insert_with(|| {
                (
                    FailureGroup {
                        kind: failure.kind,
                        key,
                        sample: failure.message.clone(),
                        count: 0,
                        first_ms: None,
                        last_ms: None,
                        tools: Vec::new(),
                        occurrences: Vec::new(),
                    },
                    Vec::new(),
                )
            });
            group.count += 1;
            if failure.time_ms != i64::MIN {
                group.first_ms = Some(group.first_ms.map_or(failure.time_ms, |f| f.min(failure.time_ms)));
                group.last_ms = Some(group.last_ms.map_or(failure.time_ms, |l| l.max(failure.time_ms)));
            }
            let tool = insights.name(failure.tool);
            if !tool.is_empty() && !group.tools.iter().any(|t| t == tool) {
                group.tools.push(tool.to_owned());
            }
            places.push((failure.time_ms, place(unit, failure.session, &failure.entry, failure.time_ms)));
        }
    }
    report.by_tool = rates(tools);
    report.by_project = rates(projects);
    report.by_model = rates(models.into_iter().filter(|(name, _)| !name.is_empty()).collect());
    report.by_agent = rates(agents);
    let mut groups: Vec<FailureGroup> = groups
        .into_values()
        .map(|(mut group, mut places)| {
            places.sort_by_key(|(time, _)| *time);
            group.occurrences = places.into_iter().take(OCCURRENCES_KEPT).map(|(_, p)| p).collect();
            group
        })
        .collect();
    groups.sort_by(|a, b| b.count.cmp(&a.count).then(b.last_ms.cmp(&a.last_ms)).then(a.key.cmp(&b.key)));
    report.groups = groups;
    report
}

/// Failed tool calls per session: `(unit, session) → failed`.
pub fn failed_calls(units: &[UnitRef<'_>]) -> FxHashMap<(u32, u32), u32> {
    let mut out = FxHashMap::default();
    for unit in units {
        for calls in &unit.insights.calls {
            if calls.failed > 0 {
                *out.entry((unit.unit, calls.session)).or_insert(0) += calls.failed;
            }
        }
    }
    out
}

/// One hour of one day, in the user's time.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Cell {
    /// `YYYY-MM-DD`, its number (days since 1970-01-01), and the hour of the day (0–23).
    pub day: String,
    pub day_number: i64,
    pub hour: u8,
    pub messages: u64,
    pub tokens: u64,
    pub cost_usd: f64,
}

/// Tokens and cost of one model or project on one day.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DayUsage {
    pub day: String,
    /// Days since 1970-01-01.
    pub day_number: i64,
    pub name: String,
    pub tokens: u64,
    pub cost_usd: f64,
}

/// When a history worked, and what it cost.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ActivityReport {
    /// Hours with messages or usage, in time order.
    pub cells: Vec<Cell>,
    /// The hour with the most messages (the earliest of equals).
    pub busiest: Option<Cell>,
    pub by_model: Vec<DayUsage>,
    pub by_project: Vec<DayUsage>,
    pub blocks: Vec<Block>,
}

/// The activity of the history, in the user's time: `offset_minutes(t)` is the user's offset
/// from UTC at time `t` (ms). `now_ms` tells the active block.
pub fn activity(units: &[UnitRef<'_>], offset_minutes: &dyn Fn(i64) -> i64, now_ms: i64) -> ActivityReport {
    // Cells by (local day number, local hour).
    let mut cells: BTreeMap<(i64, u8), Cell> = BTreeMap::new();
    let local = |time_ms: i64| time_ms + offset_minutes(time_ms) * 60_000;
    // By day and name, the names borrowed: made into rows once summed.
    let mut by_model: FxHashMap<(i64, &str), (u64, f64)> = FxHashMap::default();
    let mut by_project: FxHashMap<(i64, &str), (u64, f64)> = FxHashMap::default();
    // Each response once, with its unit (by its place in `units`: a 4 GB history has a quarter of
    // a million responses, and this is the most the report holds at once).
    let mut events: Vec<(UsageEvent, u32)> = Vec::with_capacity(units.iter().map(|u| u.insights.usage.len()).sum());
    for (at, unit) in units.iter().enumerate() {
        let insights = unit.insights;
        for hour in &insights.hours {
            cell(&mut cells, local(hour.hour * HOUR_MS)).messages += u64::from(hour.messages);
        }
        events.extend(insights.usage.iter().map(|event| (*event, at as u32)));
    }
    let mut events = dedup(events);
    let model_of = |event: &UsageEvent, at: u32| units.get(at as usize).map_or("", |u| u.insights.name(event.model));
    for (event, at) in &events {
        let (model, project) = (model_of(event, *at), units.get(*at as usize).map_or("", |u| u.project(event.session)));
        let at = local(event.time_ms);
        let cell = cell(&mut cells, at);
        cell.tokens += event.tokens();
        cell.cost_usd += event.cost_usd;
        let day = at.div_euclid(86_400_000);
        for (map, name) in [(&mut by_model, model), (&mut by_project, project)] {
            let usage = map.entry((day, name)).or_default();
            usage.0 += event.tokens();
            usage.1 += event.cost_usd;
        }
    }
    let rows = |map: FxHashMap<(i64, &str), (u64, f64)>| {
        let mut rows: Vec<DayUsage> = map
            .into_iter()
            .map(|((day, name), (tokens, cost_usd))| DayUsage {
                day: date_of_day(day),
                day_number: day,
                name: name.to_owned(),
                tokens,
                cost_usd,
            })
            .collect();
        rows.sort_by(|a, b| a.day_number.cmp(&b.day_number).then_with(|| a.name.cmp(&b.name)));
        rows
    };
    let (by_model, by_project) = (rows(by_model), rows(by_project));
    let blocks = blocks_by(&mut events, |event, at| model_of(event, *at), now_ms);
    let cells: Vec<Cell> = cells.into_values().collect();
    let busiest = cells.iter().filter(|c| c.messages > 0).fold(None::<&Cell>, |best, c| match best {
        Some(b) if b.messages >= c.messages => Some(b),
        _ => Some(c),
    });
    ActivityReport { busiest: busiest.cloned(), cells, by_model, by_project, blocks }
}

/// The cell of a local time (ms since the epoch, shifted to the user's time).
fn cell(cells: &mut BTreeMap<(i64, u8), Cell>, local_ms: i64) -> &mut Cell {
    let day = local_ms.div_euclid(86_400_000);
    let hour = (local_ms.rem_euclid(86_400_000) / HOUR_MS) as u8;
    cells.entry((day, hour)).or_insert_with(|| Cell { day: date_of_day(day), day_number: day, hour, ..Cell::default() })
}

/// The date (`YYYY-MM-DD`) of a day counted from 1970-01-01.
pub fn date_of_day(days: i64) -> String {
    let (year, month, day) = civil_from_days(days);
    format!("{year:04}-{month:02}-{day:02}")
}

/// The civil date of a day counted from 1970-01-01 (Howard Hinnant's algorithm).
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let year = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if month <= 2 { year + 1 } else { year }, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_of_days() {
        assert_eq!(date_of_day(0), "1970-01-01");
        assert_eq!(date_of_day(20_454), "2026-01-01");
        assert_eq!(date_of_day(-1), "1969-12-31");
        assert_eq!(date_of_day(11_016), "2000-02-29");
    }
}
