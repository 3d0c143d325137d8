//! Loading: files dropped or picked (read by the loading worker), the example, the files of a
//! share; the preview of a big load while the rest is read; and putting the model on screen,
//! with what a deep link or the preview asks for.

use std::sync::Arc;

use leptos::prelude::*;
use sessionscope_engine::dag::SessionId;
use sessionscope_engine::model::Start;
use sessionscope_engine::share::bundle::{Bundle, BundleHeader};

use sessionscope_engine::history::FileProblem;
use sessionscope_engine::import::names::{NOT_A_LOG_NAME, may_be_database_name};

use crate::client::example::Example;
use crate::client::follow_worker::{self, GrowError, LiveSession};
use crate::client::intake::Intake;
use crate::client::load_job::{self, LoadError, LoadJob, Preview};
pub use crate::client::picked::PartTo;
use crate::client::picked::{Picked, PickedFile};
use crate::client::workers::Workers;
use crate::logic::deeplink::{self, DeepLink};
use crate::logic::load_progress::Progress;
use crate::logic::loaded::Model;
use crate::logic::outline::RowKey;
use crate::logic::seen::SeenMark;
use crate::platform::address;
use crate::platform::probe::{self, Said};
use crate::platform::schedule::{self, now_ms};
use crate::state::chrome::ChromeState;
use crate::state::session_search::SearchState;
use crate::state::viewer::{MainTab, PanelTab, ViewerState};
use crate::wire::SearchQuery;

/// What loading reads files and starts workers with.
#[derive(Clone)]
struct LoadIo {
    workers: Workers,
    intake: Intake,
    example: Example,
}

/// Why the open session could not be read again.
enum RefreshError {
    Load(LoadError),
    Grow(GrowError),
}

impl std::fmt::Display for RefreshError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RefreshError::Load(error) => error.fmt(f),
            RefreshError::Grow(error) => error.fmt(f),
        }
    }
}

/// Where loading stands.
#[derive(Clone, Debug, PartialEq)]
pub enum LoadStatus {
    Idle,
    Loading(Progress),
    Failed(String),
    Loaded,
}

/// How much of a big load is shown while the rest is read.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PreviewFacts {
    pub shown_bytes: f64,
    pub total_bytes: f64,
}

/// A preview on screen: what it replaced (given back if the load is cancelled) and the
/// session it chose by itself (a session the user picks instead is kept when the rest arrives).
struct PreviewShown {
    replaced: Option<Arc<Model>>,
    chosen_session: String,
}

/// What the user did with a preview, carried over to the whole model.
struct Carried {
    session: Option<String>,
    selected_uuid: Option<String>,
    show_noise: bool,
    filter: crate::logic::outline::RowFilter,
    main_tab: MainTab,
    panel_tab: PanelTab,
    searching: bool,
    /// The same session read again as it is now (followed while it grows): what the user did
    /// stays, even where the address names a message.
    refresh: Option<Refresh>,
}

/// What a session read again keeps beyond a preview's carry: collapsed rows and branch choices
/// by message, and which messages were there before (the others are marked new).
struct Refresh {
    toggled: Vec<String>,
    known: rustc_hash::FxHashSet<String>,
    /// The "new since" divider's row (its entry's uuid) and time, kept where it is.
    divider: Option<(String, f64)>,
}

/// Loading: what is being read and how far it got, the files behind what is shown, a drop
/// waiting for "add or replace?", and the preview of a big load. It owns putting a model on
/// screen, and drives the viewer, the search and the chrome to do it.
#[derive(Clone, Copy)]
pub struct LoadState {
    viewer: ViewerState,
    search: SearchState,
    chrome: ChromeState,
    io: StoredValue<LoadIo, LocalStorage>,
    /// The files behind the model (to load again with more files added).
    files: StoredValue<Vec<PickedFile>, LocalStorage>,
    job: StoredValue<Option<LoadJob>, LocalStorage>,
    pub status: RwSignal<LoadStatus>,
    /// Set while the first part of a big load is shown and the rest is being read.
    pub preview: RwSignal<Option<PreviewFacts>>,
    preview_shown: StoredValue<Option<PreviewShown>>,
    /// Files of dropped folders that were left out by name.
    pub skipped_by_name: RwSignal<Vec<String>>,
    /// Files left out because they could not be read (an agent database that cannot be opened),
    /// with the reason.
    pub unread: RwSignal<Vec<FileProblem>>,
    /// A drop waiting for the answer to "add or replace?".
    pending: RwSignal<Option<Picked>, LocalStorage>,
    /// The header of the share whose files are shown (a link or an exported file), for the
    /// banner.
    pub shared: RwSignal<Option<BundleHeader>>,
    /// The view to carry to the next model shown: the open session, read again.
    carry_next: StoredValue<Option<Carried>>,
    /// The query (text, regex) of a whole-history search whose hit is being opened: the session
    /// is searched for it once shown, and the hit in the linked message is gone to, expanded and
    /// highlighted, as an in-session search hit is.
    pub search_on_open: StoredValue<Option<SearchQuery>>,
    /// A refresh asked for while a load was on its way: its files and notice.
    pending_refresh: StoredValue<Option<PendingRefresh>, LocalStorage>,
    /// The session on screen as read so far, while it is followed: the next refresh reads only
    /// what its files grew by.
    live: StoredValue<Option<LiveSession>, LocalStorage>,
    /// Reads of the followed session that failed in a row.
    failed_refreshes: StoredValue<u32>,
    /// Counts loads started, so a load tried again does not replace one started since.
    load_generation: StoredValue<u64>,
}

/// Loads of files of a followed folder tried before the page says they fail.
const LOAD_ATTEMPTS: u32 = 3;

/// Reads of a followed session tried before the page says they fail, and the pause between.
const REFRESH_ATTEMPTS: u32 = 3;
const REFRESH_RETRY_MS: u32 = 500;

/// The files of a refresh that waits for a load, and its notice.
type PendingRefresh = (Vec<PickedFile>, Option<String>);

impl LoadState {
    pub fn new(
        viewer: ViewerState,
        search: SearchState,
        chrome: ChromeState,
        workers: Workers,
        intake: Intake,
    ) -> LoadState {
        let example = Example::new(workers.clone());
        LoadState {
            viewer,
            search,
            chrome,
            io: StoredValue::new_local(LoadIo { workers, intake, example }),
            files: StoredValue::new_local(Vec::new()),
            job: StoredValue::new_local(None),
            status: RwSignal::new(LoadStatus::Idle),
            preview: RwSignal::new(None),
            preview_shown: StoredValue::new(None),
            skipped_by_name: RwSignal::new(Vec::new()),
            unread: RwSignal::new(Vec::new()),
            pending: RwSignal::new_local(None),
            shared: RwSignal::new(None),
            carry_next: StoredValue::new(None),
            search_on_open: StoredValue::new(None),
            pending_refresh: StoredValue::new_local(None),
            live: StoredValue::new_local(None),
            failed_refreshes: StoredValue::new(0),
            load_generation: StoredValue::new(0),
        }
    }

    fn workers(&self) -> Workers {
        self.io.with_value(|io| io.workers.clone())
    }

    fn intake(&self) -> Intake {
        self.io.with_value(|io| io.intake.clone())
    }

    /// Files are on their way (dragged over the page, or a picker about to open): the worker
    /// that will parse them starts now, if it has not, and warms up.
    pub fn files_coming(&self) {
        self.workers().warm_spare();
    }

    /// Fetches and parses the example ahead of a click (the start page is idle).
    pub fn prepare_example(&self) {
        self.io.with_value(|io| io.example.prepare());
    }

    /// What the reader noted about the database at `path` when it last read it (a write-ahead
    /// log read, or missing), for the load summary.
    pub fn database_note(&self, path: &str) -> Option<String> {
        self.io.with_value(|io| io.intake.database_note(path))
    }

    /// Whether a drop waits for the answer to "add or replace?", tracked.
    pub fn asking(&self) -> bool {
        self.pending.with(Option::is_some)
    }

    /// Files were dropped or picked: load them, or ask whether to add them to what is loaded.
    pub fn open(&self, picked: Picked) {
        if picked.files.is_empty() {
            if !picked.unreadable.is_empty() {
                let reasons: Vec<String> =
                    picked.unreadable.iter().map(|problem| format!("{}: {}", problem.path, problem.reason)).collect();
                self.status.set(LoadStatus::Failed(reasons.join("; ")));
            } else if !picked.skipped_by_name.is_empty() {
                self.status.set(LoadStatus::Failed(match picked.skipped_by_name.len() {
                    1 => format!("the file is {NOT_A_LOG_NAME}"),
                    n => format!("none of the {n} files is {NOT_A_LOG_NAME}"),
                }));
            }
            return;
        }
        if self.viewer.model.with_value(Option::is_some) {
            self.pending.set(Some(picked));
        } else {
            self.load_as_linked(picked, false);
        }
    }

    /// Loads files in place of what is shown: those dropped on a page that shows nothing yet, or
    /// a session of a history (`running`: [`Self::open_from_history_followed`]). The address may
    /// link to a message in a later part of a big file (`at=`): when one of the files is read in
    /// parts, and its bytes there fit the link, that part is read straight away rather than the
    /// first part before it. Otherwise the files load as any do, and [`Self::show`] follows the
    /// link to its part once the first part is shown.
    fn load_as_linked(&self, picked: Picked, running: bool) {
        let link = deeplink::link_in(&address::fragment()).filter(|l| l.message.is_some());
        let Some((at, session)) = link.and_then(|l| Some((l.part?, l.session))) else {
            return self.load_attempt(picked, false, running, 0);
        };
        let big: Vec<usize> =
            picked.files.iter().enumerate().filter(|(_, f)| f.is_whole_and_too_big()).map(|(i, _)| i).collect();
        let [index] = big[..] else { return self.load_attempt(picked, false, running, 0) };
        // This load is the latest from now on: one asked for meanwhile takes its place.
        let generation = self.load_generation.get_value() + 1;
        self.load_generation.set_value(generation);
        let state = *self;
        leptos::task::spawn_local(async move {
            let mut picked = picked;
            if let Some(part) = picked.files[index].link_part(at, session.as_deref()).await {
                picked.files[index] = part;
            }
            // Unless another load started meanwhile.
            if state.load_generation.get_value() == generation {
                state.load_attempt(picked, false, running, 0);
            }
        });
    }

    /// The answer to "add or replace?".
    pub fn answer(&self, add: bool) {
        if let Some(picked) = self.pending.try_update(Option::take).flatten() {
            self.load(picked, add);
        }
    }

    /// Opens a session of a history: its files replace what is shown, without asking.
    pub fn open_from_history(&self, files: Vec<PickedFile>) {
        self.open_from_history_followed(files, false);
    }

    /// Opens a session of a followed history. One that is `running` is also read into a loader
    /// kept for what it will grow by, once it is shown: its first change is then read as fast
    /// as the later ones.
    pub fn open_from_history_followed(&self, files: Vec<PickedFile>, running: bool) {
        self.open_picked_from_history(Picked { files, ..Picked::default() }, running);
    }

    /// [`Self::open_from_history_followed`], with what the files came with (names left out, files
    /// that could not be read) for the load summary.
    pub fn open_picked_from_history(&self, picked: Picked, running: bool) {
        self.pending.set(None);
        self.load_as_linked(picked, running);
    }

    /// What was seen of the session about to be opened, for its "new since" divider.
    pub fn expect_seen(&self, session_id: String, mark: Option<SeenMark>) {
        self.viewer.seen_on_open.set_value(mark.map(|m| (session_id, m)));
    }

    /// Lets go of what is shown (the history home takes its place): the model and its bytes are
    /// freed, a load in progress stops.
    pub fn close_for_history(&self) {
        self.pending_refresh.set_value(None);
        self.live.set_value(None);
        self.cancel_job();
        self.forget_preview();
        self.pending.set(None);
        self.shared.set(None);
        self.files.set_value(Vec::new());
        self.skipped_by_name.set(Vec::new());
        self.unread.set(Vec::new());
        self.reset_view();
        self.viewer.show_model(None, SessionId::new(0));
        self.status.set(LoadStatus::Idle);
    }

    /// Says something about what is shown (a followed folder that went away).
    pub fn notify(&self, text: String) {
        self.chrome.notice.set(Some(text));
    }

    pub fn dismiss(&self) {
        self.pending.set(None);
    }

    /// Reads the session on screen again from its files as they are now (it grew, or was
    /// rewritten, while its folder is followed) and shows it in place: the session, the selected
    /// message, collapsed rows, filters, tabs and the scroll stay; messages that are new are
    /// marked. Nothing shows that it is being read, and a failed read keeps what is shown.
    pub fn refresh(&self, files: Vec<PickedFile>, notice: Option<String>) {
        if self.job.with_value(Option::is_some) || self.preview.get_untracked().is_some() {
            // A load is on its way: this one follows it (the latest files, any notice kept).
            self.pending_refresh.update_value(|pending| {
                let notice = notice.or_else(|| pending.take().and_then(|(_, n)| n));
                *pending = Some((files, notice));
            });
            return;
        }
        let Some(model) = self.viewer.model.get_value() else { return };
        let session = model.graph.sessions.get(self.viewer.session.get_untracked().index()).map(|s| s.id.clone());
        let uuid_of = |key: &RowKey| match key {
            RowKey::Entry(e) => model.corpus.entries.get(e.index()).map(|e| model.corpus.entry_uuid(e).to_owned()),
            _ => None,
        };
        let carried = Carried {
            session,
            selected_uuid: self.viewer.selected.get_untracked().as_ref().and_then(uuid_of),
            show_noise: self.viewer.options.with_value(|o| o.show_noise),
            filter: self.viewer.options.with_value(|o| o.filter.clone()),
            main_tab: self.viewer.main_tab.get_untracked(),
            panel_tab: self.viewer.panel_tab.get_untracked(),
            searching: !self.search.query.get_untracked().is_empty(),
            refresh: Some(Refresh {
                toggled: self.viewer.options.with_value(|o| o.toggled.iter().filter_map(uuid_of).collect()),
                // Rows still marked new stay marked.
                known: {
                    let unseen: rustc_hash::FxHashSet<String> =
                        self.viewer.fresh.with_untracked(|f| f.iter().filter_map(uuid_of).collect());
                    model
                        .corpus
                        .entries
                        .iter()
                        .map(|e| model.corpus.entry_uuid(e))
                        .filter(|u| !unseen.contains(*u))
                        .map(str::to_owned)
                        .collect()
                },
                divider: self.viewer.new_since.get_untracked().and_then(|n| Some((uuid_of(&n.key)?, n.since_ms))),
            }),
        };
        let state = *self;
        let files_for_model = files.clone();
        let on_done = move |result: Result<Model, RefreshError>, notice: Option<String>| {
            leptos::task::spawn_local(async move { state.job_done() });
            state.workers().prepare_soon();
            match result {
                Ok(model) => {
                    state.failed_refreshes.set_value(0);
                    state.files.set_value(files_for_model);
                    state.carry_next.set_value(Some(carried));
                    state.show(model);
                    if notice.is_some() {
                        state.chrome.notice.set(notice);
                    }
                }
                Err(error) => {
                    web_sys::console::debug_1(&format!("sessionscope follow: read again failed: {error}").into());
                    state.refresh_failed(files_for_model, error.to_string());
                }
            }
        };
        let bytes: f64 = files.iter().map(PickedFile::size).sum();
        if bytes > follow_worker::MAX_BYTES {
            // Too big to hold twice: read again whole in a worker.
            self.live.set_value(None);
            let on_done = move |result: Result<Model, LoadError>| on_done(result.map_err(RefreshError::Load), notice);
            if let Ok(job) = load_job::start_load(&self.workers(), &files, |_| {}, None, on_done) {
                self.job.set_value(Some(job));
            }
            return;
        }
        // Read on the page, from where the last read ended: no worker to wait for, and only the
        // bytes the files grew by are parsed.
        let live = if notice.is_none() { self.live.try_update_value(Option::take).flatten() } else { None };
        let cancelled = std::rc::Rc::new(std::cell::Cell::new(false));
        let stop = cancelled.clone();
        let workers = self.workers();
        leptos::task::spawn_local(async move {
            let started = now_ms();
            // Read on from where the last read ended; a file rewritten or dropped, or no loader
            // kept, means reading the session whole.
            let mut notice = notice;
            let mut settled = None;
            if let Some(mut live) = live {
                match live.grow(&files, &stop).await {
                    Ok(grown) => settled = Some(Ok((live, grown.bytes_read, false))),
                    // A database's record stream is made again whole each time: its rows move.
                    Err(GrowError::Rewritten(path)) if may_be_database_name(&path) => {}
                    Err(GrowError::Rewritten(path)) => {
                        notice = Some(format!("{path} was rewritten since it was read: it was read again whole."))
                    }
                    Err(GrowError::FileGone) => {}
                    Err(error) => {
                        // What was read stays, to go on from at the next look.
                        if !stop.get() {
                            state.live.set_value(Some(live));
                        }
                        settled = Some(Err(error));
                    }
                }
            }
            let read = match settled {
                Some(read) => read,
                None => LiveSession::read(&workers, &files, &stop).await.map(|l| (l, bytes, true)),
            };
            if stop.get() {
                return;
            }
            match read {
                Ok((live, bytes_read, whole)) => {
                    let parsed = now_ms();
                    let model = live.model().await.map_err(RefreshError::Grow);
                    if stop.get() {
                        return;
                    }
                    state.live.set_value(Some(live));
                    let shown = model.is_ok();
                    web_sys::console::debug_1(
                        &format!(
                            "sessionscope follow: read {bytes_read:.0} of {bytes:.0} bytes{} in {:.0} ms, model in {:.0} ms",
                            if whole { " (whole)" } else { "" },
                            parsed - started,
                            now_ms() - parsed
                        )
                        .into(),
                    );
                    on_done(model, notice);
                    if shown {
                        probe::say(Said::SessionReadAgain { started_ms: started, bytes_read });
                    }
                }
                Err(error) => on_done(Err(RefreshError::Grow(error)), None),
            }
        });
        self.job.set_value(Some(LoadJob::on_page(cancelled)));
    }

    /// A read of the followed session failed: a file changed while it was read (the browser
    /// refuses to read a `File` once the file on disk changed), or could not be read. What is
    /// shown stays; the files are asked for again and read again, a few times, before the page
    /// says so.
    fn refresh_failed(&self, files: Vec<PickedFile>, message: String) {
        let attempts = self.failed_refreshes.get_value() + 1;
        self.failed_refreshes.set_value(attempts);
        if attempts >= REFRESH_ATTEMPTS || files.iter().all(|f| f.handle.is_none()) {
            self.failed_refreshes.set_value(0);
            self.chrome.notice.set(Some(format!(
                "The open session could not be read again: {message}. What is shown stays; it is read again when its files change."
            )));
            return;
        }
        let state = *self;
        leptos::task::spawn_local(async move {
            schedule::sleep(REFRESH_RETRY_MS).await;
            // Another session may have been opened meanwhile.
            let same = |shown: &Vec<PickedFile>| shown.iter().map(|f| &f.path).eq(files.iter().map(|f| &f.path));
            if !state.files.with_value(same) {
                return;
            }
            state.refresh(state.intake().fresh(None, files).await, None);
        });
    }

    /// Reads the session just shown once more, on the page, into the loader kept for what it
    /// will grow by. Nothing changes on screen. It is the job meanwhile: a refresh waits for it
    /// and then reads only what the files grew by. A read that fails (a file changed meanwhile)
    /// leaves it to the refresh to read them whole.
    fn prepare_live(&self, files: Vec<PickedFile>) {
        if self.job.with_value(Option::is_some) {
            // A refresh is on its way already: it reads the session whole, into a loader.
            return;
        }
        let state = *self;
        let cancelled = std::rc::Rc::new(std::cell::Cell::new(false));
        let stop = cancelled.clone();
        let workers = self.workers();
        leptos::task::spawn_local(async move {
            let started = now_ms();
            let read = LiveSession::read(&workers, &files, &stop).await;
            if stop.get() {
                return;
            }
            if let Ok(live) = read {
                state.live.set_value(Some(live));
                web_sys::console::debug_1(
                    &format!("sessionscope follow: open session ready to grow in {:.0} ms", now_ms() - started).into(),
                );
            }
            state.job_done();
        });
        self.job.set_value(Some(LoadJob::on_page(cancelled)));
    }

    /// A load ended: a refresh that waited for it runs now.
    fn job_done(&self) {
        self.job.set_value(None);
        if let Some((files, notice)) = self.pending_refresh.try_update_value(Option::take).flatten() {
            self.refresh(files, notice);
        }
    }

    /// Shows another part of a file too big to show whole in place of the part shown: the other
    /// files, and the notes of the drop, stay.
    pub fn show_part(&self, path: &str, to: PartTo) {
        // The message the address bar names is in the part shown now, not in the one asked for.
        if let Some(fragment) = deeplink::without_message(&address::fragment()) {
            address::replace_fragment(&fragment);
        }
        self.read_part(path, to);
    }

    /// Reads the part `to` of the file at `path` in place of the one shown.
    fn read_part(&self, path: &str, to: PartTo) {
        let mut files = self.files.get_value();
        let Some(file) = files.iter_mut().find(|f| f.path == path) else { return };
        let Some(part) = file.with_part(to) else { return };
        *file = part;
        let skipped_by_name = self.skipped_by_name.get_untracked();
        let unreadable = self.unread.get_untracked();
        self.load(Picked { files, skipped_by_name, unreadable, ..Picked::default() }, false);
    }

    /// Where the part shown of the file at `path` starts, when the file is too big to show whole
    /// and the part is not its first: a deep link to a message of it names the part (`at=`).
    pub fn shown_part(&self, path: &str) -> Option<Start> {
        self.files.with_value(|files| files.iter().find(|f| f.path == path)?.part.as_ref().map(|p| p.start))
    }

    /// A file of `model` read in part that has a part at `part`, other than the one shown: the
    /// one whose part a link names, to read that part instead.
    fn file_for_part(&self, model: &Model, part: Start) -> Option<String> {
        let partly = crate::logic::file_parts::shown_parts(&model.corpus);
        self.files.with_value(|files| {
            files
                .iter()
                .filter(|f| partly.iter().any(|p| p.path == f.path))
                .find(|f| f.with_part(PartTo::At(part)).is_some())
                .map(|f| f.path.clone())
        })
    }

    /// Where the part of the file at `path` shown before the one shown starts, if one was
    /// ([`PartTo::Earlier`]).
    pub fn earlier_part(&self, path: &str) -> Option<Start> {
        self.files.with_value(|files| {
            let part = files.iter().find(|f| f.path == path)?.part.as_ref()?;
            part.earlier.last().copied()
        })
    }

    fn load(&self, picked: Picked, add: bool) {
        self.load_attempt(picked, add, false, 0);
    }

    /// A load, tried again (`attempt` > 0) when a file changed while it was read: a session that
    /// is being written when it is opened. The preview of the last attempt stays meanwhile. A
    /// `running` session of a followed folder is, once shown, also read into a loader kept for
    /// what it grows by.
    fn load_attempt(&self, picked: Picked, add: bool, running: bool, attempt: u32) {
        let generation = self.load_generation.get_value() + 1;
        self.load_generation.set_value(generation);
        self.pending_refresh.set_value(None);
        self.live.set_value(None);
        let mut all: Vec<PickedFile> = if add { self.files.get_value() } else { Vec::new() };
        for file in picked.files {
            if !all.iter().any(|f| f.path == file.path) {
                all.push(file);
            }
        }
        crate::logic::sort::sort_by(&mut all, |a, b| a.path.cmp(&b.path));
        let skipped = picked.skipped_by_name;
        self.skipped_by_name.update(|s| {
            if !add {
                s.clear();
            }
            s.extend(skipped);
        });
        let unread = picked.unreadable;
        self.unread.update(|u| {
            if !add {
                u.clear();
            }
            u.extend(unread);
        });
        self.cancel_job();
        if attempt == 0 {
            self.drop_preview();
        }
        self.shared.set(None);
        self.chrome.notice.set(None);
        let state = *self;
        let total: f64 = all.iter().map(PickedFile::size).sum();
        let first = all.first().map(|f| f.path.clone()).unwrap_or_default();
        let now = now_ms();
        self.status.set(LoadStatus::Loading(Progress::reading(0.0, total, first, now, now)));
        let files_for_model = all.clone();
        // Files added to what is shown would only show less for a moment: no preview then.
        let on_preview = (!add).then(|| Box::new(move |preview| state.show_preview(preview)) as Box<dyn Fn(_)>);
        // The session will be drawn soon: the render module (Markdown, diffs) comes meanwhile, if it
        // has not.
        crate::render::module::load();
        let job = load_job::start_load(
            &self.workers(),
            &all,
            move |progress| {
                if matches!(state.status.get_untracked(), LoadStatus::Loading(_)) {
                    state.status.set(LoadStatus::Loading(progress));
                }
            },
            on_preview,
            move |result| {
                // The job's closures may be running this very callback: drop it afterwards,
                // unless a newer load has taken its place meanwhile (one that `show` started).
                leptos::task::spawn_local(async move {
                    if state.load_generation.get_value() == generation {
                        state.job_done();
                    }
                });
                probe::say(Said::LoadEnded);
                state.workers().prepare_soon();
                match result {
                    Ok(model) => {
                        if running {
                            // After the job is let go (the task spawned above).
                            let files = files_for_model.clone();
                            leptos::task::spawn_local(async move { state.prepare_live(files) });
                        }
                        state.files.set_value(files_for_model);
                        state.show(model);
                    }
                    Err(error) => {
                        // Files of a followed folder are asked for again and read again.
                        let again = attempt + 1 < LOAD_ATTEMPTS && files_for_model.iter().all(|f| f.handle.is_some());
                        if again && !error.is_cancelled() {
                            web_sys::console::debug_1(
                                &format!("sessionscope load: failed ({error}), read again as the files are now").into(),
                            );
                            leptos::task::spawn_local(async move {
                                schedule::sleep(REFRESH_RETRY_MS).await;
                                let files = state.intake().fresh(None, files_for_model).await;
                                if state.load_generation.get_value() == generation {
                                    let picked = Picked { files, ..Picked::default() };
                                    state.load_attempt(picked, false, running, attempt + 1);
                                }
                            });
                            return;
                        }
                        // What was shown of it stays on screen, and the message says so.
                        let message = match state.preview.get_untracked() {
                            Some(shown) => {
                                state.forget_preview();
                                format!(
                                    "{error}. The first {} of {}, read before, stay on screen",
                                    sessionscope_engine::units::human_bytes(shown.shown_bytes as u64),
                                    sessionscope_engine::units::human_bytes(shown.total_bytes as u64)
                                )
                            }
                            None => error.to_string(),
                        };
                        state.status.set(LoadStatus::Failed(message));
                    }
                }
            },
        );
        match job {
            Ok(job) => self.job.set_value(Some(job)),
            Err(error) => self.status.set(LoadStatus::Failed(error.to_string())),
        }
    }

    fn cancel_job(&self) {
        if let Some(job) = self.job.try_update_value(Option::take).flatten() {
            job.cancel();
        }
    }

    /// Loading failed, or could not start.
    pub fn fail(&self, message: String) {
        self.status.set(LoadStatus::Failed(message));
    }

    /// Stops a load; what was shown before stays.
    pub fn cancel(&self) {
        self.cancel_job();
        self.drop_preview();
        let loaded = self.viewer.model.with_value(Option::is_some);
        self.status.set(if loaded { LoadStatus::Loaded } else { LoadStatus::Idle });
    }

    /// Opens the example, fetched from the site (a few kilobytes, not in the page's wasm), most
    /// often ahead of the click (`example::prepare`).
    pub fn open_example(&self) {
        // The spare worker's warm-up would share the CPU with the example's parse and first
        // drawing, which take a few hundred milliseconds on a cold page.
        self.workers().rest_spare(1000.0);
        let state = *self;
        let example = self.io.with_value(|io| io.example.clone());
        leptos::task::spawn_local(async move {
            let Some(fetched) = example.take().await else { return };
            state.pending_refresh.set_value(None);
            state.live.set_value(None);
            state.cancel_job();
            state.shared.set(None);
            match fetched {
                Ok((example, model)) => {
                    state.chrome.notice.set(None);
                    state.files.set_value(load_job::files_from_bytes(&example));
                    state.skipped_by_name.set(Vec::new());
                    state.unread.set(Vec::new());
                    state.forget_preview();
                    state.show(model);
                }
                Err(reason) => state.chrome.notice.set(Some(format!("{reason}: is the site reachable?"))),
            }
        });
    }

    /// Opens the files of a share (a link or an exported file), parsed in a worker as dropped
    /// files are (an exported file carries its worker).
    pub fn open_bundle(&self, bundle: Bundle) {
        let Bundle { header, files } = bundle;
        self.live.set_value(None);
        let state = *self;
        let total = files.iter().map(|(_, b)| b.len()).sum::<usize>() as f64;
        let now = now_ms();
        self.status.set(LoadStatus::Loading(Progress::reading(0.0, total, "shared view".into(), now, now)));
        let workers = self.workers();
        leptos::task::spawn_local(async move {
            let on_progress = move |p: Progress| state.status.set(LoadStatus::Loading(p));
            let picked = load_job::files_from_bytes(&files);
            match load_job::parse_in_worker(&workers, &files, on_progress).await {
                Ok(model) => {
                    let selected = header.selected.as_deref().and_then(|uuid| model.entry_by_uuid(uuid));
                    state.files.set_value(picked);
                    state.skipped_by_name.set(Vec::new());
                    state.unread.set(Vec::new());
                    state.show(model);
                    state.shared.set(Some(header));
                    if let Some(entry) = selected {
                        state.viewer.reveal_entry(entry);
                    }
                }
                Err(error) => state.status.set(LoadStatus::Failed(error.to_string())),
            }
        });
    }

    /// Shows the first part of a big load while the rest is read. Sharing waits for the whole.
    pub fn show_preview(&self, preview: Preview) {
        if !matches!(self.status.get_untracked(), LoadStatus::Loading(_)) {
            return;
        }
        let model = Arc::new(preview.model);
        let session = model.default_session();
        let chosen_session = model.graph.sessions.get(session.index()).map(|s| s.id.clone()).unwrap_or_default();
        // A load tried again shows its preview in place of the last attempt's: what both
        // replaced is what a cancel gives back.
        let replaced = match self.preview_shown.try_update_value(Option::take).flatten() {
            Some(earlier) => earlier.replaced,
            None => self.viewer.model.get_value(),
        };
        self.preview_shown.set_value(Some(PreviewShown { replaced, chosen_session }));
        self.preview.set(Some(PreviewFacts { shown_bytes: preview.shown_bytes, total_bytes: preview.total_bytes }));
        self.chrome.share_open.set(false);
        self.reset_view();
        self.viewer.show_model(Some(model), session);
    }

    /// Takes a preview off the screen (its load failed or was cancelled): what it replaced is
    /// shown again.
    fn drop_preview(&self) {
        let Some(shown) = self.preview_shown.try_update_value(Option::take).flatten() else { return };
        self.preview.set(None);
        self.reset_view();
        let session = shown.replaced.as_ref().map_or(SessionId::new(0), |m| m.default_session());
        self.viewer.show_model(shown.replaced, session);
    }

    /// Forgets a preview on screen, about to be replaced by something else.
    fn forget_preview(&self) {
        self.preview_shown.set_value(None);
        self.preview.set(None);
    }

    /// The view state a new model starts with.
    fn reset_view(&self) {
        self.viewer.reset();
        self.search.clear();
    }

    /// What the user did with the preview on screen, if one is.
    fn carried_from_preview(&self) -> Option<Carried> {
        let shown = self.preview_shown.try_update_value(Option::take).flatten()?;
        let model = self.viewer.model.get_value()?;
        let session = model.graph.sessions.get(self.viewer.session.get_untracked().index()).map(|s| s.id.clone());
        let selected_uuid = match self.viewer.selected.get_untracked() {
            Some(RowKey::Entry(e)) => {
                model.corpus.entries.get(e.index()).map(|e| model.corpus.entry_uuid(e).to_owned())
            }
            _ => None,
        };
        Some(Carried {
            session: session.filter(|id| *id != shown.chosen_session),
            selected_uuid,
            show_noise: self.viewer.options.with_value(|o| o.show_noise),
            filter: self.viewer.options.with_value(|o| o.filter.clone()),
            main_tab: self.viewer.main_tab.get_untracked(),
            panel_tab: self.viewer.panel_tab.get_untracked(),
            searching: !self.search.query.get_untracked().is_empty(),
            refresh: None,
        })
    }

    /// Shows a freshly loaded model: the session a deep link names, or the largest. After a
    /// preview of the same load, what the user did with it stays: the session they picked, the
    /// selected message, the filters, the tab, the search (run again on everything).
    pub fn show(&self, model: Model) {
        let link = deeplink::link_in(&address::fragment());
        // A link to a message in another part of a big file of its session: that part is read
        // instead, and the link followed when it is shown. It is read once this load has finished
        // answering (its job is let go first, by the task the load spawned before this one).
        if let Some(link) = &link
            && let (Some(message), Some(part)) = (link.message.as_deref(), link.part)
            && model.entry_by_uuid(message).is_none()
            && link.session.as_deref().is_none_or(|s| model.session_by_id(s).is_some())
            && let Some(path) = self.file_for_part(&model, part)
        {
            let this = *self;
            leptos::task::spawn_local(async move { this.read_part(&path, PartTo::At(part)) });
            return;
        }
        let search_on_open = self.search_on_open.try_update_value(Option::take).flatten();
        let carried = self.carried_from_preview().or_else(|| self.carry_next.try_update_value(Option::take).flatten());
        self.preview.set(None);
        let view = link.as_ref().and_then(|l| l.view.clone());
        let target = link.as_ref().and_then(|l| {
            let entry = l.message.as_deref().and_then(|m| model.entry_by_uuid(m));
            let session = entry
                .and_then(|e| model.session_of_entry(e))
                .or_else(|| l.session.as_deref().and_then(|s| model.session_by_id(s)));
            session.map(|s| (s, entry))
        });
        // A link that names something in these files wins over what was done with the preview.
        let carried = carried.filter(|c| c.refresh.is_some() || (target.is_none() && view.is_none()));
        let picked = carried.as_ref().and_then(|c| c.session.as_deref()).and_then(|id| model.session_by_id(id));
        let session = picked.or(target.map(|(s, _)| s)).unwrap_or_else(|| model.default_session());
        self.reset_view();
        if let Some(view) = &view {
            self.chrome.notice.set(self.viewer.apply_view_link(&model, view));
        }
        let selected = carried.as_ref().and_then(|c| c.selected_uuid.as_deref()).and_then(|u| model.entry_by_uuid(u));
        let mut fresh = rustc_hash::FxHashSet::default();
        if let Some(carried) = &carried {
            self.viewer.options.update_value(|o| {
                o.show_noise = carried.show_noise;
                o.filter = carried.filter.clone();
                if let Some(refresh) = &carried.refresh {
                    o.toggled =
                        refresh.toggled.iter().filter_map(|u| model.entry_by_uuid(u)).map(RowKey::Entry).collect();
                }
            });
            if let Some(refresh) = &carried.refresh {
                fresh = model
                    .corpus
                    .entries
                    .iter()
                    .enumerate()
                    .filter(|(_, e)| !refresh.known.contains(model.corpus.entry_uuid(e)))
                    .map(|(i, _)| RowKey::Entry(sessionscope_engine::model::EntryId::new(i)))
                    .collect();
            }
            self.viewer.main_tab.set(carried.main_tab);
            self.viewer.panel_tab.set(carried.panel_tab);
        }
        let model = Arc::new(model);
        self.files.with_value(|files| self.search.read_from(&model, files));
        self.viewer.show_model(Some(model), session);
        self.status.set(LoadStatus::Loaded);
        if let Some(carried) = carried {
            let row = selected.and_then(|e| {
                self.viewer.outline.with_value(|o| {
                    let o = o.as_ref()?;
                    o.row_of_entry(e).map(|r| o.key(r))
                })
            });
            self.viewer.selected.set(row);
            if let Some(refresh) = &carried.refresh {
                let divider = refresh.divider.as_ref().and_then(|(uuid, since)| {
                    let key = RowKey::Entry(model_entry(&self.viewer, uuid)?);
                    Some(crate::state::viewer::NewSince { key, since_ms: *since })
                });
                self.viewer.new_since.set(divider);
                self.viewer.mark_fresh(fresh);
            }
            if carried.searching {
                self.search.run(self.viewer.model.get_value());
            }
            return;
        }
        // A session of a remembered history opens at its first message not seen yet, unless a
        // link names a message.
        if !matches!(target, Some((_, Some(_)))) && self.viewer.place_new_since() {
            return;
        }
        if let Some((_, Some(entry))) = target {
            self.viewer.reveal_entry(entry);
            if let Some(query) = search_on_open {
                self.search.set_query(query);
                self.search.go_to_entry_when_found.set_value(Some(entry));
                self.search.run(self.viewer.model.get_value());
            }
        } else if let Some(name) = link.as_ref().and_then(|l| l.message.as_deref()).filter(|m| m.contains(':')) {
            // A view link names rows other than messages by their stable names.
            self.viewer.reveal_named(name);
        } else if let Some(missing) = link.as_ref().and_then(|l| link_not_found(l, target.is_some())) {
            self.chrome.notice.set(Some(missing));
        }
    }
}

/// The entry of the model shown with this uuid.
fn model_entry(viewer: &ViewerState, uuid: &str) -> Option<sessionscope_engine::model::EntryId> {
    viewer.model.with_value(|m| m.as_ref()?.entry_by_uuid(uuid))
}

/// What a link names that the loaded files do not hold, in words (`found_session`: the session
/// it names, or its message's, is shown).
fn link_not_found(link: &DeepLink, found_session: bool) -> Option<String> {
    let short = |id: &str| id.chars().take(13).collect::<String>();
    match (&link.message, &link.session) {
        (Some(message), _) if found_session => {
            Some(format!("The link's message {} is not in these files: its session is shown.", short(message)))
        }
        (Some(message), _) => {
            Some(format!("The link's message {} is not in these files: the largest session is shown.", short(message)))
        }
        (None, Some(session)) if !found_session => {
            Some(format!("The link's session {} is not in these files: the largest session is shown.", short(session)))
        }
        _ => None,
    }
}

pub fn use_loading() -> LoadState {
    expect_context::<LoadState>()
}
