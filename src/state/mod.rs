//! The app's state, shared by context. The parsed model is kept out of the reactive graph
//! (a `StoredValue` and a version signal); signals carry the small view state.

use std::sync::Arc;

use leptos::prelude::*;
use sessionscope_engine::model::{EntryId, NONE};

use crate::files::{self, LoadJob, Picked, PickedFile, Progress};
use crate::model::Model;
use crate::outline::{Outline, OutlineOptions, RowKey};
use crate::panel::PanelFilter;
use crate::search::SearchState;

pub mod chrome;

pub use chrome::{ChromeState, use_chrome};
use rustc_hash::FxHashSet;

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
    filter: crate::outline::RowFilter,
    main_tab: MainTab,
    panel_tab: PanelTab,
    searching: bool,
}

#[derive(Clone, Copy)]
pub struct AppState {
    pub chrome: ChromeState,
    pub model: StoredValue<Option<Arc<Model>>>,
    /// Bumped whenever `model` changes.
    pub model_version: RwSignal<u64>,
    /// The files behind the model (to load again with more files added).
    pub files: StoredValue<Vec<PickedFile>, LocalStorage>,
    pub job: StoredValue<Option<LoadJob>, LocalStorage>,
    pub status: RwSignal<LoadStatus>,
    /// Set while the first part of a big load is shown and the rest is being read.
    pub preview: RwSignal<Option<PreviewFacts>>,
    preview_shown: StoredValue<Option<PreviewShown>>,
    /// Files of dropped folders that were left out by name.
    pub skipped_by_name: RwSignal<Vec<String>>,
    /// A drop waiting for the answer to "add or replace?".
    pub pending: StoredValue<Option<Picked>, LocalStorage>,
    pub asking: RwSignal<bool>,
    pub session: RwSignal<u32>,
    /// The outline of the session shown, with its options (noise, collapse toggles, branch
    /// choices). Rebuilt when `outline_version` is bumped by a structural change; collapse
    /// toggles change it in place and bump `visible_version`.
    pub outline: StoredValue<Option<Outline>>,
    pub options: StoredValue<OutlineOptions>,
    pub outline_version: RwSignal<u64>,
    pub visible_version: RwSignal<u64>,
    pub show_noise: RwSignal<bool>,
    pub selected: RwSignal<Option<RowKey>>,
    /// A row to bring into view (set by deep links, search, keyboard moves).
    pub reveal: RwSignal<Option<RowKey>>,
    pub panel_filter: RwSignal<PanelFilter>,
    /// The graph's filter (a copy of `options.filter`, for the controls).
    pub graph_filter: RwSignal<crate::outline::RowFilter>,
    /// Turns whose group is collapsed in the operations panel.
    pub panel_collapsed: RwSignal<FxHashSet<u32>>,
    /// Rows of the graph showing their raw source lines.
    pub raw_rows: RwSignal<FxHashSet<crate::outline::RowKey>>,
    pub panel_tab: RwSignal<PanelTab>,
    pub main_tab: RwSignal<MainTab>,
    pub search: SearchState,
    /// The header of the share being shown (a link or an exported file), for the banner.
    pub shared: RwSignal<Option<sessionscope_engine::share::BundleHeader>>,
    /// A passphrase-protected share waiting for its passphrase.
    pub locked: StoredValue<Option<sessionscope_engine::share::envelope::Envelope>>,
    pub passphrase_needed: RwSignal<bool>,
    pub unlock_error: RwSignal<Option<String>>,
}

/// The side panel's views.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PanelTab {
    Operations,
    Files,
}

/// The main area's views.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MainTab {
    Conversation,
    Statistics,
}

impl AppState {
    pub fn new(chrome: ChromeState, search: SearchState) -> AppState {
        AppState {
            chrome,
            search,
            model: StoredValue::new(None),
            model_version: RwSignal::new(0),
            files: StoredValue::new_local(Vec::new()),
            job: StoredValue::new_local(None),
            status: RwSignal::new(LoadStatus::Idle),
            preview: RwSignal::new(None),
            preview_shown: StoredValue::new(None),
            skipped_by_name: RwSignal::new(Vec::new()),
            pending: StoredValue::new_local(None),
            asking: RwSignal::new(false),
            session: RwSignal::new(0),
            outline: StoredValue::new(None),
            options: StoredValue::new(OutlineOptions::default()),
            outline_version: RwSignal::new(0),
            visible_version: RwSignal::new(0),
            show_noise: RwSignal::new(false),
            selected: RwSignal::new(None),
            reveal: RwSignal::new(None),
            panel_filter: RwSignal::new(PanelFilter::default()),
            graph_filter: RwSignal::new(Default::default()),
            panel_collapsed: RwSignal::new(FxHashSet::default()),
            raw_rows: RwSignal::new(FxHashSet::default()),
            panel_tab: RwSignal::new(PanelTab::Operations),
            main_tab: RwSignal::new(MainTab::Conversation),
            shared: RwSignal::new(None),
            locked: StoredValue::new(None),
            passphrase_needed: RwSignal::new(false),
            unlock_error: RwSignal::new(None),
        }
    }

    /// The model, tracked: readers re-run when it changes.
    pub fn model(&self) -> Option<Arc<Model>> {
        self.model_version.track();
        self.model.get_value()
    }

    pub fn model_untracked(&self) -> Option<Arc<Model>> {
        self.model.get_value()
    }

    /// Files were dropped or picked: load them, or ask whether to add them to what is loaded.
    pub fn open(&self, picked: Picked) {
        if picked.files.is_empty() {
            if !picked.skipped_by_name.is_empty() {
                self.status.set(LoadStatus::Failed(format!(
                    "none of the {} files has the name of a log (.jsonl, .json)",
                    picked.skipped_by_name.len()
                )));
            }
            return;
        }
        if self.model.with_value(Option::is_some) {
            self.pending.set_value(Some(picked));
            self.asking.set(true);
        } else {
            self.load(picked, false);
        }
    }

    /// The answer to "add or replace?".
    pub fn answer(&self, add: bool) {
        self.asking.set(false);
        if let Some(picked) = self.pending.try_update_value(Option::take).flatten() {
            self.load(picked, add);
        }
    }

    pub fn dismiss(&self) {
        self.asking.set(false);
        self.pending.set_value(None);
    }

    fn load(&self, picked: Picked, add: bool) {
        let mut all: Vec<PickedFile> = if add { self.files.get_value() } else { Vec::new() };
        for file in picked.files {
            if !all.iter().any(|f| f.path == file.path) {
                all.push(file);
            }
        }
        all.sort_by(|a, b| a.path.cmp(&b.path));
        let skipped = picked.skipped_by_name;
        self.skipped_by_name.update(|s| {
            if !add {
                s.clear();
            }
            s.extend(skipped);
        });
        self.cancel_job();
        self.drop_preview();
        self.shared.set(None);
        self.chrome.notice.set(None);
        let state = *self;
        let total: f64 = all.iter().map(PickedFile::size).sum();
        self.status.set(LoadStatus::Loading(Progress {
            done_bytes: 0.0,
            total_bytes: total,
            path: all.first().map(|f| f.path.clone()).unwrap_or_default(),
            started_ms: files::now_ms(),
            now_ms: files::now_ms(),
            building: false,
        }));
        let files_for_model = all.clone();
        // Files added to what is shown would only show less for a moment: no preview then.
        let on_preview = (!add).then(|| Box::new(move |preview| state.show_preview(preview)) as Box<dyn Fn(_)>);
        let job = files::start_load(
            &all,
            move |progress| {
                if matches!(state.status.get_untracked(), LoadStatus::Loading(_)) {
                    state.status.set(LoadStatus::Loading(progress));
                }
            },
            on_preview,
            move |result| {
                // The job's closures may be running this very callback: drop it afterwards.
                leptos::task::spawn_local(async move { state.job.set_value(None) });
                files::prepare_worker_soon();
                match result {
                    Ok(model) => {
                        state.files.set_value(files_for_model);
                        state.show(model);
                    }
                    Err(message) => {
                        state.drop_preview();
                        state.status.set(LoadStatus::Failed(message));
                    }
                }
            },
        );
        match job {
            Ok(job) => self.job.set_value(Some(job)),
            Err(message) => self.status.set(LoadStatus::Failed(message)),
        }
    }

    fn cancel_job(&self) {
        if let Some(job) = self.job.try_update_value(Option::take).flatten() {
            job.cancel();
        }
    }

    /// Stops a load; what was shown before stays.
    pub fn cancel(&self) {
        self.cancel_job();
        self.drop_preview();
        let loaded = self.model.with_value(Option::is_some);
        self.status.set(if loaded { LoadStatus::Loaded } else { LoadStatus::Idle });
    }

    pub fn open_example(&self) {
        self.cancel_job();
        self.shared.set(None);
        self.chrome.notice.set(None);
        self.files.set_value(files::example_files());
        self.skipped_by_name.set(Vec::new());
        self.forget_preview();
        self.show(files::example_model());
    }

    /// Shows the first part of a big load while the rest is read. Sharing waits for the whole.
    pub fn show_preview(&self, preview: files::Preview) {
        if !matches!(self.status.get_untracked(), LoadStatus::Loading(_)) {
            return;
        }
        let model = Arc::new(preview.model);
        let session = model.default_session();
        let chosen_session = model.graph.sessions.get(session as usize).map(|s| s.id.clone()).unwrap_or_default();
        let replaced = self.model.get_value();
        self.preview_shown.set_value(Some(PreviewShown { replaced, chosen_session }));
        self.preview.set(Some(PreviewFacts { shown_bytes: preview.shown_bytes, total_bytes: preview.total_bytes }));
        self.chrome.share_open.set(false);
        self.reset_view();
        self.put_on_screen(Some(model), session);
    }

    /// Makes `model` the one shown, at `session`; the view state is set before.
    fn put_on_screen(&self, model: Option<Arc<Model>>, session: u32) {
        self.model.set_value(model);
        self.session.set(session);
        self.rebuild_outline();
        self.model_version.update(|v| *v += 1);
    }

    /// Takes a preview off the screen (its load failed or was cancelled): what it replaced is
    /// shown again.
    fn drop_preview(&self) {
        let Some(shown) = self.preview_shown.try_update_value(Option::take).flatten() else { return };
        self.preview.set(None);
        self.reset_view();
        let session = shown.replaced.as_ref().map_or(0, |m| m.default_session());
        self.put_on_screen(shown.replaced, session);
    }

    /// Forgets a preview on screen, about to be replaced by something else.
    fn forget_preview(&self) {
        self.preview_shown.set_value(None);
        self.preview.set(None);
    }

    /// The view state a new model starts with.
    fn reset_view(&self) {
        self.options.set_value(OutlineOptions::default());
        self.graph_filter.set(Default::default());
        self.panel_filter.set(PanelFilter::default());
        self.panel_collapsed.set(FxHashSet::default());
        self.raw_rows.set(FxHashSet::default());
        self.search.clear();
        self.show_noise.set(false);
        self.selected.set(None);
        self.main_tab.set(MainTab::Conversation);
    }

    /// What the user did with the preview on screen, if one is.
    fn carried_from_preview(&self) -> Option<Carried> {
        let shown = self.preview_shown.try_update_value(Option::take).flatten()?;
        let model = self.model.get_value()?;
        let session = model.graph.sessions.get(self.session.get_untracked() as usize).map(|s| s.id.clone());
        let selected_uuid = match self.selected.get_untracked() {
            Some(RowKey::Entry(e)) => {
                model.corpus.entries.get(e as usize).map(|e| model.corpus.entry_uuid(e).to_owned())
            }
            _ => None,
        };
        Some(Carried {
            session: session.filter(|id| *id != shown.chosen_session),
            selected_uuid,
            show_noise: self.show_noise.get_untracked(),
            filter: self.options.with_value(|o| o.filter.clone()),
            main_tab: self.main_tab.get_untracked(),
            panel_tab: self.panel_tab.get_untracked(),
            searching: !self.search.query.get_untracked().is_empty(),
        })
    }

    /// Shows a freshly loaded model: the session a deep link names, or the largest. After a
    /// preview of the same load, what the user did with it stays: the session they picked, the
    /// selected message, the filters, the tab, the search (run again on everything).
    pub fn show(&self, model: Model) {
        let link = crate::deeplink::read_hash();
        let carried = self.carried_from_preview();
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
        let carried = carried.filter(|_| target.is_none() && view.is_none());
        let picked = carried.as_ref().and_then(|c| c.session.as_deref()).and_then(|id| model.session_by_id(id));
        let session = picked.or(target.map(|(s, _)| s)).unwrap_or_else(|| model.default_session());
        self.reset_view();
        if let Some(view) = &view {
            self.apply_view(&model, view);
        }
        let selected = carried.as_ref().and_then(|c| c.selected_uuid.as_deref()).and_then(|u| model.entry_by_uuid(u));
        if let Some(carried) = &carried {
            self.options.update_value(|o| {
                o.show_noise = carried.show_noise;
                o.filter = carried.filter.clone();
            });
            self.show_noise.set(carried.show_noise);
            self.graph_filter.set(carried.filter.clone());
            self.main_tab.set(carried.main_tab);
            self.panel_tab.set(carried.panel_tab);
        }
        self.put_on_screen(Some(Arc::new(model)), session);
        self.status.set(LoadStatus::Loaded);
        if let Some(carried) = carried {
            let row = selected.and_then(|e| {
                self.outline.with_value(|o| {
                    let o = o.as_ref()?;
                    o.row_of_entry(e).map(|r| o.key(r))
                })
            });
            self.selected.set(row);
            if carried.searching {
                self.search.run(self.model.get_value());
            }
            return;
        }
        if let Some((_, Some(entry))) = target {
            self.reveal_entry(entry);
        } else if let Some(name) = link.as_ref().and_then(|l| l.message.as_deref()).filter(|m| m.contains(':')) {
            // A view link names rows other than messages by their stable names.
            let key = self.model.get_value().and_then(|m| crate::row_names::row_by_name(&m, name));
            match key {
                Some(RowKey::Op(op)) => self.reveal_op(op),
                Some(RowKey::Agent(conversation)) => self.reveal_agent(conversation),
                Some(RowKey::Entry(entry)) => self.reveal_entry(entry),
                Some(key) => {
                    self.selected.set(Some(key));
                    self.reveal.set(Some(key));
                }
                None => {}
            }
        }
    }

    /// Shows a tool call in the graph: its message expanded, the call selected.
    pub fn reveal_op(&self, op: u32) {
        let Some(model) = self.model.get_value() else { return };
        let Some(o) = model.graph.tool_ops.get(op as usize) else { return };
        let anchor = if o.call_entry != NONE { o.call_entry } else { o.result_entry };
        self.main_tab.set(MainTab::Conversation);
        self.reveal_entry(anchor);
        let key = RowKey::Op(op);
        let ancestors = self.outline.with_value(|outline| {
            let outline = outline.as_ref()?;
            let row = outline.row_of_key(key)?;
            Some(outline.ancestors(row).into_iter().map(|a| outline.key(a)).collect::<Vec<_>>())
        });
        let Some(ancestors) = ancestors else { return };
        for ancestor in ancestors {
            self.set_collapsed(ancestor, false);
        }
        self.selected.set(Some(key));
        self.reveal.set(Some(key));
    }

    pub fn select_session(&self, session: u32) {
        self.panel_filter.set(PanelFilter::default());
        self.panel_collapsed.set(FxHashSet::default());
        self.options
            .set_value(OutlineOptions { show_noise: self.show_noise.get_untracked(), ..OutlineOptions::default() });
        self.graph_filter.set(Default::default());
        self.selected.set(None);
        self.session.set(session);
        self.rebuild_outline();
    }

    /// Rebuilds the outline of the session shown from the model and the options.
    pub fn rebuild_outline(&self) {
        let Some(model) = self.model.get_value() else {
            self.outline.set_value(None);
            self.outline_version.update(|v| *v += 1);
            return;
        };
        let session = self.session.get_untracked();
        let outline = self.options.with_value(|options| Outline::build(&model.corpus, &model.graph, session, options));
        self.outline.set_value(Some(outline));
        self.outline_version.update(|v| *v += 1);
        self.visible_version.update(|v| *v += 1);
    }

    pub fn set_filter(&self, filter: crate::outline::RowFilter) {
        self.options.update_value(|o| o.filter = filter);
        self.graph_filter.set(self.options.with_value(|o| o.filter.clone()));
        self.rebuild_outline();
    }

    pub fn set_show_noise(&self, show: bool) {
        self.show_noise.set(show);
        self.options.update_value(|o| o.show_noise = show);
        self.rebuild_outline();
    }

    /// Expands or collapses a row in place.
    pub fn set_collapsed(&self, key: RowKey, collapsed: bool) {
        let changed = self.outline.try_update_value(|outline| {
            let outline = outline.as_mut()?;
            let row = outline.row_of_key(key)?;
            let r = &mut outline.rows[row as usize];
            if r.collapsed == collapsed || r.first_child == NONE && !crate::outline::collapsed_by_default(r.kind) {
                return None;
            }
            r.collapsed = collapsed;
            Some(crate::outline::collapsed_by_default(r.kind) != collapsed)
        });
        if let Some(Some(toggled)) = changed {
            self.options.update_value(|o| {
                if toggled {
                    o.toggled.insert(key);
                } else {
                    o.toggled.remove(&key);
                }
            });
            self.visible_version.update(|v| *v += 1);
        }
    }

    pub fn toggle(&self, key: RowKey) {
        let collapsed = self
            .outline
            .with_value(|o| o.as_ref().and_then(|o| o.row_of_key(key).map(|row| o.rows[row as usize].collapsed)));
        if let Some(collapsed) = collapsed {
            self.set_collapsed(key, !collapsed);
        }
    }

    /// Shows alternative `choice` at a real fork.
    pub fn choose_branch(&self, fork: u32, choice: u32) {
        self.options.update_value(|o| {
            o.choices.insert(fork, choice);
        });
        self.rebuild_outline();
        self.selected.set(Some(RowKey::Branch(fork)));
        self.reveal.set(Some(RowKey::Branch(fork)));
    }

    /// Brings an entry into view: its session, the branches that lead to it, noise if it is
    /// noise, and every collapsed row above it.
    pub fn reveal_entry(&self, entry: EntryId) {
        let Some(model) = self.model.get_value() else { return };
        if let Some(session) = model.session_of_entry(entry)
            && session != self.session.get_untracked()
        {
            self.select_session(session);
        }
        // Branch choices along the entry's ancestry.
        let graph = &model.graph;
        let mut current = entry;
        let mut choices = Vec::new();
        while current != NONE {
            let parent = graph.nodes[current as usize].parent;
            if parent != NONE
                && let Some(fork) = graph.fork_at(parent)
                && let Some(index) = fork.alternatives.iter().position(|&a| a == current)
            {
                let fork_index = graph.fork_of[parent as usize];
                choices.push((fork_index, index as u32));
            }
            current = parent;
        }
        let noise = crate::outline::is_noise(&model.corpus, &model.corpus.entries[entry as usize]);
        self.options.update_value(|o| {
            for (fork, choice) in choices {
                o.choices.insert(fork, choice);
            }
            if noise {
                o.show_noise = true;
            }
        });
        if noise {
            self.show_noise.set(true);
        }
        self.rebuild_outline();
        let Some((row_key, ancestors)) = self.outline.with_value(|o| {
            let o = o.as_ref()?;
            let row = o.row_of_entry(entry)?;
            Some((o.key(row), o.ancestors(row).into_iter().map(|a| o.key(a)).collect::<Vec<_>>()))
        }) else {
            return;
        };
        for key in ancestors {
            self.set_collapsed(key, false);
        }
        self.selected.set(Some(row_key));
        self.reveal.set(Some(row_key));
    }
}

impl AppState {
    /// Shows an agent conversation: its session, its spawning call expanded, the agent row
    /// selected.
    pub fn reveal_agent(&self, conversation: u32) {
        let Some(model) = self.model.get_value() else { return };
        let Some(conv) = model.graph.conversations.get(conversation as usize) else { return };
        if conv.session != self.session.get_untracked() {
            self.select_session(conv.session);
        }
        if conv.spawn_entry != NONE {
            self.reveal_entry(conv.spawn_entry);
        }
        let key = RowKey::Agent(conversation);
        let ancestors = self.outline.with_value(|o| {
            let o = o.as_ref()?;
            let row = o.row_of_key(key)?;
            Some(o.ancestors(row).into_iter().map(|a| o.key(a)).collect::<Vec<_>>())
        });
        for ancestor in ancestors.unwrap_or_default() {
            self.set_collapsed(ancestor, false);
        }
        self.set_collapsed(key, false);
        self.selected.set(Some(key));
        self.reveal.set(Some(key));
    }
}

pub fn use_state() -> AppState {
    expect_context::<AppState>()
}
