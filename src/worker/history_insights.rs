//! The insights role: every unit's insights of the history shown, as the units' workers made
//! them while indexing (or as the cache kept them), summed by the engine's reports and drawn for
//! the history home's Files, Failures and Activity tabs ([`super::draw`]). The page forwards
//! each unit's insights here untouched and asks for tabs; a 4 GB history's insights (about
//! 36 MB decoded) live in this worker, not in the page.
//!
//! The Files tab's list is filtered and sorted once per query and kept, so scrolling asks only
//! for a window of rows.

use std::cell::RefCell;
use std::rc::Rc;

use sessionscope_engine::history_cache::{FileStamp, insights_header};
use sessionscope_engine::insights::UnitInsights;
use sessionscope_engine::insights::report::{self, ActivityReport, FailureReport, FileSummary, UnitRef};

use super::draw::activity_html::Zone;
use super::draw::{self, files_html};
use super::{Failure, Reply};
use crate::logic::insight_lists::listed_files;
use crate::wire::insights::{FileQuery, InsightsReply, InsightsRequest};
use crate::wire::{FromWorker, Parcel, bytes_of};

/// The history's insights, unit by unit, and the Files tab's list as last asked for.
#[derive(Default)]
pub struct HistoryInsights {
    units: RefCell<Vec<Option<UnitInsights>>>,
    files: RefCell<Option<FilesList>>,
    /// The reports as last summed, until a unit's insights change: showing more of a tab, or
    /// drawing it by another measure, sums nothing again.
    failures: RefCell<Option<Rc<FailureReport>>>,
    activity: RefCell<Option<Rc<ActivityReport>>>,
}

/// The files of the history and the order a query lists them in; made again when a unit's
/// insights change, or the query does.
struct FilesList {
    query: FileQuery,
    files: Vec<FileSummary>,
    order: Vec<usize>,
    projects: Vec<String>,
}

impl HistoryInsights {
    pub fn answer(
        &self,
        reply: &Reply,
        request: InsightsRequest,
        buffers: &[js_sys::ArrayBuffer],
    ) -> Result<(), Failure> {
        let drawn = |html: String| {
            web_sys::console::debug_1(
                &format!(
                    "sessionscope insights worker: {} units kept, its memory {:.1} MB",
                    self.units.borrow().iter().flatten().count(),
                    crate::platform::page::page_memory_bytes() / 1e6
                )
                .into(),
            );
            reply.send(FromWorker::Insights(InsightsReply::Drawn { html }))
        };
        match request {
            InsightsRequest::Keep { unit } => {
                let insights = match buffers.first() {
                    Some(buffer) => Some(
                        UnitInsights::decode(&bytes_of(buffer))
                            .ok_or_else(|| Failure::from("a unit's insights could not be read"))?,
                    ),
                    None => None,
                };
                let mut units = self.units.borrow_mut();
                let at = unit as usize;
                if units.len() <= at {
                    units.resize_with(at + 1, || None);
                }
                units[at] = insights;
                self.forget_reports();
                Ok(())
            }
            InsightsRequest::Clear => {
                self.units.replace(Vec::new());
                self.forget_reports();
                Ok(())
            }
            InsightsRequest::Prepare => {
                let started = js_sys::Date::now();
                self.failures_report();
                self.activity_report();
                let _ = self.file_rows(FileQuery::default(), 0, 0, None);
                web_sys::console::debug_1(
                    &format!("sessionscope insights worker: reports summed in {:.0} ms", js_sys::Date::now() - started)
                        .into(),
                );
                Ok(())
            }
            InsightsRequest::Files { query, from, count, active } => {
                let (html, total, all, projects) = self.file_rows(query, from as usize, count as usize, active);
                Ok(reply.send(FromWorker::Insights(InsightsReply::FileRows { html, total, all, projects }))?)
            }
            InsightsRequest::File { project, path, shown } => {
                let (changes, versions) = self.with_units(|units| {
                    (report::changes_of(units, &project, &path), report::versions_of(units, &project, &path))
                });
                let shown = (shown as usize).max(1);
                let mut read: Vec<(u32, Vec<String>)> = Vec::new();
                for change in changes.iter().take(shown) {
                    match read.iter_mut().find(|(unit, _)| *unit == change.place.unit) {
                        Some((_, entries)) => entries.push(change.place.entry.clone()),
                        None => read.push((change.place.unit, vec![change.place.entry.clone()])),
                    }
                }
                let html = files_html::page_html(&project, &path, &changes, &versions, shown);
                let changes = changes.len() as u32;
                Ok(reply.send(FromWorker::Insights(InsightsReply::FilePage { html, read, changes }))?)
            }
            InsightsRequest::Failures { groups } => {
                let failures = self.failures_report();
                Ok(drawn(draw::failures_html::html(&failures, groups as usize, self.sessions()))?)
            }
            InsightsRequest::Activity { metric, measure, blocks } => {
                let activity = self.activity_report();
                let now = js_sys::Date::now() as i64;
                let zone =
                    Zone { offset_minutes: &browser_offset, label: zone_label(browser_offset(now)), now_ms: now };
                Ok(drawn(draw::activity_html::html(
                    &activity,
                    metric,
                    measure,
                    blocks as usize,
                    self.sessions(),
                    &zone,
                ))?)
            }
            InsightsRequest::Compare { heading, old, new } => {
                let mut html = draw::Html::new();
                html.element("p", &[("class", "muted")], &heading);
                let diff = draw::diff_html::edits_html(&[(old, new)]);
                Ok(drawn(format!("{}{diff}", html.finish()))?)
            }
            InsightsRequest::Encode { units } => {
                let bytes = self.encode(&units);
                let parcel =
                    Parcel::new(FromWorker::Insights(InsightsReply::Encoded)).with_buffers(vec![bytes.buffer()]);
                Ok(reply.post(parcel)?)
            }
        }
    }

    /// The units' insights as the cache keeps them
    /// (`sessionscope_engine::history_cache::encode_insights`), written into browser memory:
    /// each unit is encoded on its own, and the whole put together there, so this worker's own
    /// memory never holds the whole twice.
    fn encode(&self, units: &[(u32, Vec<FileStamp>)]) -> js_sys::Uint8Array {
        let kept = self.units.borrow();
        let parts: Vec<(Vec<u8>, Vec<u8>)> = units
            .iter()
            .filter_map(|(unit, stamps)| {
                let insights = kept.get(*unit as usize)?.as_ref()?;
                Some((serde_json::to_vec(stamps).ok()?, insights.encode()))
            })
            .collect();
        let header = insights_header();
        let total = header.len() + parts.iter().map(|(a, b)| 8 + a.len() + b.len()).sum::<usize>();
        let out = js_sys::Uint8Array::new_with_length(total as u32);
        let mut at = 0u32;
        let mut write = |bytes: &[u8]| {
            out.subarray(at, at + bytes.len() as u32).copy_from(bytes);
            at += bytes.len() as u32;
        };
        write(&header);
        for (stamps, insights) in &parts {
            for part in [stamps, insights] {
                write(&(part.len() as u32).to_le_bytes());
                write(part);
            }
        }
        out
    }

    /// The failures of every unit kept, summed once until a unit's insights change.
    fn failures_report(&self) -> Rc<FailureReport> {
        if let Some(report) = self.failures.borrow().clone() {
            return report;
        }
        let made = Rc::new(self.with_units(report::failures));
        self.failures.replace(Some(made.clone()));
        made
    }

    /// The activity of every unit kept, in the browser's time zone, summed once until a unit's
    /// insights change.
    fn activity_report(&self) -> Rc<ActivityReport> {
        if let Some(report) = self.activity.borrow().clone() {
            return report;
        }
        let offsets = RefCell::new(rustc_hash::FxHashMap::<i64, i64>::default());
        // The offset of each hour, asked of the browser once.
        let offset = |time_ms: i64| -> i64 {
            *offsets.borrow_mut().entry(time_ms.div_euclid(3_600_000)).or_insert_with(|| browser_offset(time_ms))
        };
        let now = js_sys::Date::now() as i64;
        let made = Rc::new(self.with_units(|units| report::activity(units, &offset, now)));
        self.activity.replace(Some(made.clone()));
        made
    }

    /// Forgets what was summed: a unit's insights changed.
    fn forget_reports(&self) {
        self.files.replace(None);
        self.failures.replace(None);
        self.activity.replace(None);
    }

    /// Runs `f` on every unit that has insights.
    fn with_units<R>(&self, f: impl FnOnce(&[UnitRef<'_>]) -> R) -> R {
        let units = self.units.borrow();
        let refs: Vec<UnitRef<'_>> = units
            .iter()
            .enumerate()
            .filter_map(|(unit, insights)| Some(UnitRef { unit: unit as u32, insights: insights.as_ref()? }))
            .collect();
        f(&refs)
    }

    /// Sessions of the units kept.
    fn sessions(&self) -> usize {
        self.units.borrow().iter().flatten().map(|u| u.sessions.len()).sum()
    }

    /// A window of the Files tab's rows, drawn; the files listed, of all; every project.
    fn file_rows(
        &self,
        query: FileQuery,
        from: usize,
        count: usize,
        active: Option<u32>,
    ) -> (String, u32, u32, Vec<String>) {
        let mut list = self.files.borrow_mut();
        let fresh = match list.as_mut() {
            Some(list) if list.query == query => None,
            Some(list) => {
                list.order = listed_files(&list.files, &files_html::filter_of(&query));
                list.query = query;
                None
            }
            None => Some(query),
        };
        if let Some(query) = fresh {
            let files = self.with_units(report::files);
            let order = listed_files(&files, &files_html::filter_of(&query));
            let mut projects: Vec<String> = files.iter().map(|f| f.project.clone()).collect();
            crate::logic::sort::sort(&mut projects);
            projects.dedup();
            *list = Some(FilesList { query, files, order, projects });
        }
        let Some(list) = list.as_ref() else { return (String::new(), 0, 0, Vec::new()) };
        let now = js_sys::Date::now() as i64;
        let html = files_html::rows_html(&list.files, &list.order, from, count, active.map(|a| a as usize), now);
        (html, list.order.len() as u32, list.files.len() as u32, list.projects.clone())
    }
}

/// The browser's offset from UTC at a moment, in minutes (east positive).
fn browser_offset(time_ms: i64) -> i64 {
    let date = js_sys::Date::new(&wasm_bindgen::JsValue::from_f64(time_ms as f64));
    -(date.get_timezone_offset() as i64)
}

/// An offset from UTC in minutes as a zone label: `UTC+05:30`.
fn zone_label(offset: i64) -> String {
    if offset == 0 {
        return "UTC".to_owned();
    }
    let sign = if offset < 0 { '-' } else { '+' };
    format!("UTC{sign}{:02}:{:02}", offset.abs() / 60, offset.abs() % 60)
}
