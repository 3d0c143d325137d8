//! The viewer of what is loaded: the model shown, the session open in it, its outline and the
//! options it is built with (noise, filter, collapse toggles, branch choices), the selection,
//! the row to bring into view, the tabs, the rows showing their raw lines, and the side
//! panel's filter and folded turns, and where the "new since" divider goes. The parsed model is kept out of the reactive graph (a
//! `StoredValue` and a `Trigger`); signals carry the small view state.

use std::sync::Arc;

use leptos::prelude::*;
use rustc_hash::FxHashSet;
use sessionscope_engine::dag::{ConversationId, ForkId, OpId, SessionId, TurnId};
use sessionscope_engine::model::EntryId;
use sessionscope_engine::share::fingerprint::fingerprint;

use crate::logic::deeplink::{self, ViewState};
use crate::logic::loaded::Model;
use crate::logic::outline::{Outline, OutlineOptions, RowFilter, RowKey};
use crate::logic::panel_rows::PanelFilter;
use crate::logic::row_names::{conversation_by_name, conversation_name, entry_uuid, row_by_name, row_name};
use crate::logic::seen::{SeenMark, first_unseen};

/// The side panel's views.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PanelTab {
    Operations,
    Files,
    Prompts,
}

/// The main area's views.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MainTab {
    Conversation,
    Statistics,
}

#[derive(Clone, Copy)]
pub struct ViewerState {
    pub model: StoredValue<Option<Arc<Model>>>,
    /// Notified whenever `model` changes.
    pub model_changed: Trigger,
    pub session: RwSignal<SessionId>,
    /// The outline of the session shown, with its options (noise, collapse toggles, branch
    /// choices). Rebuilt (and `outline_rebuilt` notified) by a structural change; collapse
    /// toggles change it in place.
    pub outline: StoredValue<Option<Outline>>,
    pub options: StoredValue<OutlineOptions>,
    pub outline_rebuilt: Trigger,
    /// Notified whenever the rows shown change: the outline was rebuilt, or a row was expanded
    /// or collapsed.
    pub visible_changed: Trigger,
    /// Whether noise lines are shown, and the graph's filter: read from the options, which
    /// change them only together with a rebuild of the outline.
    pub show_noise: Signal<bool>,
    pub filter: Signal<RowFilter>,
    pub selected: RwSignal<Option<RowKey>>,
    /// A row to bring into view (set by deep links, search, keyboard moves).
    pub reveal: RwSignal<Option<RowKey>>,
    /// Rows of the graph showing their raw source lines.
    pub raw_rows: RwSignal<FxHashSet<RowKey>>,
    pub main_tab: RwSignal<MainTab>,
    pub panel_tab: RwSignal<PanelTab>,
    pub panel_filter: RwSignal<PanelFilter>,
    /// Turns whose group is collapsed in the operations panel.
    pub panel_collapsed: RwSignal<FxHashSet<TurnId>>,
    /// Rows new since the session was read last (it is followed as it grows), marked until seen.
    pub fresh: RwSignal<FxHashSet<RowKey>>,
    /// Follow: the newest row of the session is kept in view as rows arrive.
    pub follow_newest: RwSignal<bool>,
    /// Where the "new since" divider is: the first row the person has not seen.
    pub new_since: RwSignal<Option<NewSince>>,
    /// What was seen of the session about to be shown (its id, its mark), for the divider.
    pub seen_on_open: StoredValue<Option<(String, SeenMark)>>,
    /// Since when the tab is hidden (`None` while it is shown, and a moment after): rows that
    /// arrive meanwhile get the divider. Following looks at nothing while the tab is hidden, so
    /// what was written meanwhile arrives just after it is shown again.
    hidden_since: StoredValue<Option<f64>>,
}

/// How long after the tab is shown again rows that arrive count as written while it was hidden:
/// the follow looks at once, and reading what changed takes a moment.
const AWAY_GRACE_MS: i32 = 5000;

/// The "new since" divider: above `key`, the first row not seen, saying since when.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NewSince {
    pub key: RowKey,
    /// Milliseconds since the epoch.
    pub since_ms: f64,
}

impl ViewerState {
    pub fn new() -> ViewerState {
        let options = StoredValue::new(OutlineOptions::default());
        let outline_rebuilt = Trigger::new();
        let show_noise = Signal::derive(move || {
            outline_rebuilt.track();
            options.with_value(|o| o.show_noise)
        });
        let filter = Signal::derive(move || {
            outline_rebuilt.track();
            options.with_value(|o| o.filter.clone())
        });
        ViewerState {
            model: StoredValue::new(None),
            model_changed: Trigger::new(),
            session: RwSignal::new(SessionId::new(0)),
            outline: StoredValue::new(None),
            options,
            outline_rebuilt,
            visible_changed: Trigger::new(),
            show_noise,
            filter,
            selected: RwSignal::new(None),
            reveal: RwSignal::new(None),
            raw_rows: RwSignal::new(FxHashSet::default()),
            main_tab: RwSignal::new(MainTab::Conversation),
            panel_tab: RwSignal::new(PanelTab::Operations),
            panel_filter: RwSignal::new(PanelFilter::default()),
            panel_collapsed: RwSignal::new(FxHashSet::default()),
            fresh: RwSignal::new(FxHashSet::default()),
            follow_newest: RwSignal::new(false),
            new_since: RwSignal::new(None),
            seen_on_open: StoredValue::new(None),
            hidden_since: StoredValue::new(None),
        }
    }

    /// The model, tracked: readers re-run when it changes.
    pub fn model(&self) -> Option<Arc<Model>> {
        self.model_changed.track();
        self.model.get_value()
    }

    pub fn model_untracked(&self) -> Option<Arc<Model>> {
        self.model.get_value()
    }

    /// Makes `model` the one shown, at `session`; the view state is set before.
    pub fn show_model(&self, model: Option<Arc<Model>>, session: SessionId) {
        self.model.set_value(model);
        self.session.set(session);
        self.rebuild_outline();
        self.model_changed.notify();
    }

    /// The view state a new model starts with.
    pub fn reset(&self) {
        self.options.set_value(OutlineOptions::default());
        self.panel_filter.set(PanelFilter::default());
        self.panel_collapsed.set(FxHashSet::default());
        self.raw_rows.set(FxHashSet::default());
        self.selected.set(None);
        self.main_tab.set(MainTab::Conversation);
        self.fresh.set(FxHashSet::default());
        self.new_since.set(None);
    }

    /// The tab was hidden (`true`) or shown again.
    pub fn set_hidden(&self, hidden: bool) {
        if hidden {
            self.hidden_since.set_value(Some(js_sys::Date::now()));
            return;
        }
        // Rows read in the first moments back were written while away.
        let Some(since) = self.hidden_since.get_value() else { return };
        let hidden_since = self.hidden_since;
        crate::platform::schedule::later(AWAY_GRACE_MS, move || {
            if hidden_since.try_get_value().flatten() == Some(since) && !crate::platform::page::hidden() {
                hidden_since.try_set_value(None);
                crate::platform::probe::say(crate::platform::probe::Said::AwayOver);
            }
        });
    }

    /// Places the "new since" divider of the session shown at its first row not seen, if it is
    /// the one [`Self::seen_on_open`] names, and brings that row into view. Answers whether it
    /// did.
    pub fn place_new_since(&self) -> bool {
        let Some((id, mark)) = self.seen_on_open.try_update_value(Option::take).flatten() else { return false };
        let Some(model) = self.model.get_value() else { return false };
        if model.graph.sessions.get(self.session.get_untracked().index()).is_none_or(|s| s.id != id) {
            return false;
        }
        let Some(key) = self.outline.with_value(|o| first_unseen(&model.corpus, o.as_ref()?, &mark)) else {
            return false;
        };
        self.new_since.set(Some(NewSince { key, since_ms: mark.at_ms }));
        self.selected.set(Some(key));
        self.reveal.set(Some(key));
        true
    }

    /// Marks rows as new (the session grew); with Follow on, the newest is selected and shown.
    pub fn mark_fresh(&self, entries: FxHashSet<RowKey>) {
        if entries.is_empty() {
            return;
        }
        let rows: FxHashSet<RowKey> = self.outline.with_value(|o| {
            let Some(o) = o.as_ref() else { return FxHashSet::default() };
            entries
                .iter()
                .filter_map(|key| match key {
                    RowKey::Entry(e) => o.row_of_entry(*e).map(|r| o.key(r)),
                    _ => None,
                })
                .collect()
        });
        // Rows that came while the tab was hidden: the divider goes above the first of them,
        // once per time away.
        if let Some(hidden) = self.hidden_since.get_value()
            && self.new_since.with_untracked(|n| n.is_none_or(|n| n.since_ms != hidden))
        {
            let first = self.outline.with_value(|o| {
                let o = o.as_ref()?;
                o.visible().into_iter().map(|(r, _)| o.key(r)).find(|key| rows.contains(key))
            });
            if let Some(key) = first {
                self.new_since.set(Some(NewSince { key, since_ms: hidden }));
            }
        }
        self.fresh.update(|fresh| fresh.extend(rows));
        if self.follow_newest.get_untracked() {
            self.go_to_newest();
        }
    }

    /// Follow on or off. Turned on, it goes to the newest row at once.
    pub fn toggle_follow(&self) {
        let on = !self.follow_newest.get_untracked();
        self.follow_newest.set(on);
        if on {
            self.go_to_newest();
        }
    }

    /// Selects the last row shown, and brings it into view.
    fn go_to_newest(&self) {
        let last = self.outline.with_value(|o| o.as_ref().and_then(|o| o.visible().last().map(|&(r, _)| o.key(r))));
        if let Some(key) = last {
            self.selected.set(Some(key));
            self.reveal.set(Some(key));
        }
    }

    pub fn select_session(&self, session: SessionId) {
        self.panel_filter.set(PanelFilter::default());
        self.panel_collapsed.set(FxHashSet::default());
        self.options.update_value(|o| *o = OutlineOptions { show_noise: o.show_noise, ..OutlineOptions::default() });
        self.selected.set(None);
        self.session.set(session);
        self.rebuild_outline();
    }

    /// Rebuilds the outline of the session shown from the model and the options.
    pub fn rebuild_outline(&self) {
        let Some(model) = self.model.get_value() else {
            self.outline.set_value(None);
            self.outline_rebuilt.notify();
            return;
        };
        let session = self.session.get_untracked();
        let outline = self.options.with_value(|options| Outline::build(&model.corpus, &model.graph, session, options));
        self.outline.set_value(Some(outline));
        self.outline_rebuilt.notify();
        self.visible_changed.notify();
    }

    pub fn set_filter(&self, filter: RowFilter) {
        self.options.update_value(|o| o.filter = filter);
        self.rebuild_outline();
    }

    pub fn set_show_noise(&self, show: bool) {
        self.options.update_value(|o| o.show_noise = show);
        self.rebuild_outline();
    }

    /// Expands or collapses a row in place.
    pub fn set_collapsed(&self, key: RowKey, collapsed: bool) {
        let changed = self.outline.try_update_value(|outline| {
            let outline = outline.as_mut()?;
            let row = outline.row_of_key(key)?;
            let r = &mut outline.rows[row.index()];
            if r.collapsed == collapsed
                || r.first_child.is_none() && !crate::logic::outline::collapsed_by_default(r.kind)
            {
                return None;
            }
            r.collapsed = collapsed;
            Some(crate::logic::outline::collapsed_by_default(r.kind) != collapsed)
        });
        if let Some(Some(toggled)) = changed {
            self.options.update_value(|o| {
                if toggled {
                    o.toggled.insert(key);
                } else {
                    o.toggled.remove(&key);
                }
            });
            self.visible_changed.notify();
        }
    }

    pub fn toggle(&self, key: RowKey) {
        let collapsed = self
            .outline
            .with_value(|o| o.as_ref().and_then(|o| o.row_of_key(key).map(|row| o.rows[row.index()].collapsed)));
        if let Some(collapsed) = collapsed {
            self.set_collapsed(key, !collapsed);
        }
    }

    /// Shows or hides the raw lines of a row (the R key, or the row's Raw button).
    pub fn toggle_raw(&self, key: RowKey) {
        self.raw_rows.update(|rows| {
            if !rows.remove(&key) {
                rows.insert(key);
            }
        });
    }

    /// Shows alternative `choice` at a real fork.
    pub fn choose_branch(&self, fork: ForkId, choice: u32) {
        self.options.update_value(|o| {
            o.choices.insert(fork, choice);
        });
        self.rebuild_outline();
        self.reveal_row(RowKey::Branch(fork));
    }

    /// Shows the next (or previous) alternative at a fork.
    pub fn cycle_branch(&self, fork: ForkId, step: i32) {
        let Some(model) = self.model.get_value() else { return };
        let Some(f) = model.graph.fork(fork) else { return };
        let count = f.alternatives.len() as i32;
        let current = self.options.with_value(|o| o.choice(&model.graph, fork)) as i32;
        let next = (current + step).rem_euclid(count.max(1)) as u32;
        self.choose_branch(fork, next);
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
        while current.is_some() {
            let parent = graph.nodes[current.index()].parent;
            if parent.is_some()
                && let Some(fork) = graph.fork_at(parent)
                && let Some(index) = fork.alternatives.iter().position(|&a| a == current)
            {
                let fork_index = graph.fork_of[parent.index()];
                choices.push((fork_index, index as u32));
            }
            current = parent;
        }
        let noise = crate::logic::outline::is_noise(&model.corpus, &model.corpus.entries[entry.index()]);
        self.options.update_value(|o| {
            for (fork, choice) in choices {
                o.choices.insert(fork, choice);
            }
            if noise {
                o.show_noise = true;
            }
        });
        self.rebuild_outline();
        let key = self.outline.with_value(|o| o.as_ref().and_then(|o| o.row_of_entry(entry).map(|row| o.key(row))));
        if let Some(key) = key {
            self.reveal_row(key);
        }
    }

    /// Shows a tool call in the graph: its message expanded, the call selected.
    pub fn reveal_op(&self, op: OpId) {
        let Some(model) = self.model.get_value() else { return };
        let Some(o) = model.graph.op(op) else { return };
        let anchor = if o.call_entry.is_some() { o.call_entry } else { o.result_entry };
        self.main_tab.set(MainTab::Conversation);
        self.reveal_entry(anchor);
        self.reveal_row(RowKey::Op(op));
    }

    /// Shows an agent conversation: its session, its spawning call expanded, the agent row
    /// selected.
    pub fn reveal_agent(&self, conversation: ConversationId) {
        let Some(model) = self.model.get_value() else { return };
        let Some(conv) = model.graph.conversation(conversation) else { return };
        if conv.session != self.session.get_untracked() {
            self.select_session(conv.session);
        }
        if conv.spawn_entry.is_some() {
            self.reveal_entry(conv.spawn_entry);
        }
        let key = RowKey::Agent(conversation);
        self.set_collapsed(key, false);
        self.reveal_row(key);
    }

    /// Shows the row a view link names by its stable name.
    pub fn reveal_named(&self, name: &str) {
        match self.model.get_value().and_then(|m| row_by_name(&m, name)) {
            Some(RowKey::Op(op)) => self.reveal_op(op),
            Some(RowKey::Agent(conversation)) => self.reveal_agent(conversation),
            Some(RowKey::Entry(entry)) => self.reveal_entry(entry),
            Some(key) => self.reveal_row(key),
            None => {}
        }
    }

    /// Expands the rows above `key`, selects it and brings it into view; nothing if the outline
    /// has no such row. The reveals above first make the row part of the outline (its session,
    /// its branch, noise shown).
    /// Selects a row and brings it into view, opening the rows it is folded in.
    pub fn go_to_row(&self, key: RowKey) {
        self.reveal_row(key);
    }

    /// Goes to the next (or previous) prompt or failed call from the selected row, into folded
    /// rows too; past the last one, the selection stays.
    pub fn step_landmark(&self, landmark: crate::logic::outline::Landmark, forward: bool) {
        let Some(model) = self.model.get_value() else { return };
        let from = self.selected.get_untracked();
        let found = self.outline.with_value(|o| {
            let o = o.as_ref()?;
            let from = from.and_then(|key| o.row_of_key(key));
            o.landmark(&model.corpus, &model.graph, from, forward, landmark).map(|row| o.key(row))
        });
        if let Some(found) = found {
            self.reveal_row(found);
        }
    }

    fn reveal_row(&self, key: RowKey) {
        let ancestors = self.outline.with_value(|o| {
            let o = o.as_ref()?;
            let row = o.row_of_key(key)?;
            Some(o.ancestors(row).into_iter().map(|a| o.key(a)).collect::<Vec<_>>())
        });
        let Some(ancestors) = ancestors else { return };
        for ancestor in ancestors {
            self.set_collapsed(ancestor, false);
        }
        self.selected.set(Some(key));
        self.reveal.set(Some(key));
    }

    /// The view-state link of what is shown, as a full URL.
    pub fn view_link(&self) -> Option<String> {
        let model = self.model.get_value()?;
        let session = model.graph.session(self.session.get_untracked())?;
        let message = match self.selected.get_untracked() {
            Some(key) => row_name(&model, key),
            None => None,
        };
        let (toggled, choices, filter, noise) = self.options.with_value(|o| {
            let mut toggled: Vec<String> = o.toggled.iter().filter_map(|&k| row_name(&model, k)).collect();
            crate::logic::sort::sort(&mut toggled);
            let mut choices: Vec<(String, u32)> = o
                .choices
                .iter()
                .filter_map(|(&fork, &alt)| {
                    let f = model.graph.fork(fork)?;
                    (alt != f.active).then(|| (entry_uuid(&model, f.node), alt))
                })
                .collect();
            crate::logic::sort::sort(&mut choices);
            (toggled, choices, o.filter.clone(), o.show_noise)
        });
        let mut flags = String::new();
        for (on, letter) in [
            (filter.hide_user, 'u'),
            (filter.hide_assistant, 'a'),
            (filter.hide_tools, 't'),
            (filter.hide_system, 's'),
            (filter.errors_only, 'e'),
            (noise, 'n'),
        ] {
            if on {
                flags.push(letter);
            }
        }
        let view = ViewState {
            fingerprint: fingerprint(&model.corpus),
            toggled,
            choices,
            flags,
            conversation: filter.conversation.map(|c| conversation_name(&model, c)),
            from_ms: filter.from_ms,
            to_ms: filter.to_ms,
            tab: (self.main_tab.get_untracked() == MainTab::Statistics).then(|| "stats".to_owned()),
        };
        // A message is named by its uuid (as in deep links); other rows by their stable names.
        let message = message.map(|m| m.strip_prefix("e:").map(str::to_owned).unwrap_or(m));
        let fragment = deeplink::format_view(&session.id, message.as_deref(), &view);
        Some(format!("{}{fragment}", crate::platform::address::without_fragment()))
    }

    /// Applies the parts of a view-state link that do not depend on the outline. Returns a
    /// notice for the user if the link was made on other files.
    pub fn apply_view_link(&self, model: &Model, view: &ViewState) -> Option<String> {
        let here = fingerprint(&model.corpus);
        let notice = (view.fingerprint != here).then(|| {
            format!(
                "This view link was made on other files (or other versions of them): fingerprint {} here, {} in the link. \
                 What still matches is shown.",
                here, view.fingerprint
            )
        });
        let conversation = view.conversation.as_deref().and_then(|name| conversation_by_name(model, name));
        let filter = RowFilter {
            hide_user: view.flags.contains('u'),
            hide_assistant: view.flags.contains('a'),
            hide_tools: view.flags.contains('t'),
            hide_system: view.flags.contains('s'),
            errors_only: view.flags.contains('e'),
            conversation,
            from_ms: view.from_ms,
            to_ms: view.to_ms,
        };
        let noise = view.flags.contains('n');
        self.options.update_value(|o| {
            o.show_noise = noise;
            o.filter = filter;
            o.toggled = view.toggled.iter().filter_map(|name| row_by_name(model, name)).collect();
            o.choices = view
                .choices
                .iter()
                .filter_map(|(uuid, alt)| {
                    let node = model.entry_by_uuid(uuid)?;
                    let fork = *model.graph.fork_of.get(node.index())?;
                    let f = model.graph.fork(fork)?;
                    ((*alt as usize) < f.alternatives.len()).then_some((fork, *alt))
                })
                .collect();
        });
        if view.tab.as_deref() == Some("stats") {
            self.main_tab.set(MainTab::Statistics);
        }
        notice
    }
}

impl Default for ViewerState {
    fn default() -> Self {
        ViewerState::new()
    }
}

pub fn use_viewer() -> ViewerState {
    expect_context::<ViewerState>()
}
