//! The insights role: every unit's insights of the history shown, as the units' workers made
//! them while indexing (or as the cache kept them), summed by the engine's reports and drawn for
//! the history home's Files, Failures and Activity tabs ([`super::draw`]). The page forwards
//! each unit's insights here untouched and asks for tabs; a 4 GB history's insights (about
//! 36 MB decoded) live in this worker, not in the page.
//!
//! The Files tab's list is filtered and sorted once per query and kept, so scrolling asks only
//! for a window of rows.

use std::cell::RefCell;

use sessionscope_engine::history_cache::encode_insights;
use sessionscope_engine::insights::UnitInsights;
use sessionscope_engine::insights::report::{self, FileSummary, UnitRef};

use super::draw::activity_html::Zone;
use super::draw::{self, files_html};
use super::{Failure, Reply};
use crate::logic::insight_lists::listed_files;
use crate::wire::insights::{FileQuery, InsightsReply, InsightsRequest};
use crate::wire::{FromWorker, Parcel, buffer_of, bytes_of};

/// The history's insights, unit by unit, and the Files tab's list as last asked for.
#[derive(Default)]
pub struct HistoryInsights {
    units: RefCell<Vec<Option<UnitInsights>>>,
    files: RefCell<Option<FilesList>>,
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
        let drawn = |html: String| reply.send(FromWorker::Insights(InsightsReply::Drawn { html }));
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
                self.files.replace(None);
                Ok(())
            }
            InsightsRequest::Clear => {
                self.units.replace(Vec::new());
                self.files.replace(None);
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
                let failures = self.with_units(report::failures);
                Ok(drawn(draw::failures_html::html(&failures, groups as usize, self.sessions()))?)
            }
            InsightsRequest::Activity { metric, measure, blocks } => {
                let offsets = RefCell::new(rustc_hash::FxHashMap::<i64, i64>::default());
                let offset = |time_ms: i64| -> i64 {
                    *offsets.borrow_mut().entry(time_ms.div_euclid(3_600_000)).or_insert_with(|| {
                        let date = js_sys::Date::new(&wasm_bindgen::JsValue::from_f64(time_ms as f64));
                        -(date.get_timezone_offset() as i64)
                    })
                };
                let now = js_sys::Date::now() as i64;
                let activity = self.with_units(|units| report::activity(units, &offset, now));
                let zone = Zone { offset_minutes: &offset, label: zone_label(offset(now)), now_ms: now };
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
                let kept = self.units.borrow();
                let encoded: Vec<(Vec<_>, Vec<u8>)> = units
                    .into_iter()
                    .filter_map(|(unit, stamps)| Some((stamps, kept.get(unit as usize)?.as_ref()?.encode())))
                    .collect();
                let bytes =
                    encode_insights(encoded.iter().map(|(stamps, bytes)| (stamps.as_slice(), bytes.as_slice())));
                let parcel =
                    Parcel::new(FromWorker::Insights(InsightsReply::Encoded)).with_buffers(vec![buffer_of(&bytes)]);
                Ok(reply.post(parcel)?)
            }
        }
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

/// An offset from UTC in minutes as a zone label: `UTC+05:30`.
fn zone_label(offset: i64) -> String {
    if offset == 0 {
        return "UTC".to_owned();
    }
    let sign = if offset < 0 { '-' } else { '+' };
    format!("UTC{sign}{:02}:{:02}", offset.abs() / 60, offset.abs() % 60)
}
