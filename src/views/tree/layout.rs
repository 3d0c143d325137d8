//! The virtual layout of the tree: the rows shown, in order, with their depth and their
//! vertical offsets (heights estimated from the content, then measured), to find which rows
//! are in view.

use std::sync::Arc;

use leptos::prelude::*;
use rustc_hash::FxHashMap;
use sessionscope_engine::model::{BlockKind, EntryId, EntryKind};

use crate::logic::loaded::Model;
use crate::logic::outline::{Outline, RowKey, RowKind};

/// The visible rows with their offsets.
#[derive(Default)]
pub struct Layout {
    pub rows: Vec<(RowKey, u16)>,
    /// `offsets[i]` is the top of row `i`; `offsets[len]` the total height.
    pub offsets: Vec<f64>,
    pub index: FxHashMap<RowKey, usize>,
}

impl Layout {
    pub fn total(&self) -> f64 {
        self.offsets.last().copied().unwrap_or(0.0)
    }

    /// The row at a vertical position.
    pub fn index_at(&self, y: f64) -> usize {
        if self.rows.is_empty() {
            return 0;
        }
        let i = self.offsets.partition_point(|&o| o <= y);
        i.saturating_sub(1).min(self.rows.len() - 1)
    }

    pub fn depth_of(&self, key: RowKey) -> u16 {
        self.index.get(&key).map_or(0, |&i| self.rows[i].1)
    }
}

#[derive(Clone)]
pub struct LayoutRef(pub Arc<Layout>);

impl PartialEq for LayoutRef {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// A first guess at a row's height, refined once it is drawn.
fn estimate(model: &Model, kind: RowKind) -> f64 {
    match kind {
        RowKind::Message { first, last } => {
            let corpus = &model.corpus;
            let mut chars = 0usize;
            for e in (first.index()..=last.index().min(first.index() + 64)).map(EntryId::new) {
                let entry = &corpus.entries[e.index()];
                if e != first && entry.kind != EntryKind::Assistant {
                    continue;
                }
                chars += entry.content.len();
                chars += corpus
                    .blocks_of(entry)
                    .iter()
                    .filter(|b| b.kind == BlockKind::Text)
                    .map(|b| b.body.len())
                    .sum::<usize>();
            }
            (44.0 + (chars as f64 / 110.0).ceil() * 21.0).min(420.0)
        }
        RowKind::ToolCall { .. } => 32.0,
        RowKind::Agent { .. } => 40.0,
        RowKind::Compaction { .. } => 38.0,
        RowKind::Branch { .. } => 38.0,
        RowKind::Noise { .. } => 24.0,
    }
}

pub fn compute_layout(model: &Model, outline: &Outline, heights: &FxHashMap<RowKey, f64>) -> Layout {
    let visible = outline.visible();
    let mut rows = Vec::with_capacity(visible.len());
    let mut offsets = Vec::with_capacity(visible.len() + 1);
    let mut index = FxHashMap::default();
    index.reserve(visible.len());
    let mut y = 0.0;
    for (i, (row, depth)) in visible.into_iter().enumerate() {
        let kind = outline.rows[row.index()].kind;
        let key = crate::logic::outline::key_of(kind);
        offsets.push(y);
        y += heights.get(&key).copied().unwrap_or_else(|| estimate(model, kind));
        rows.push((key, depth));
        index.insert(key, i);
    }
    offsets.push(y);
    Layout { rows, offsets, index }
}

/// What the tree gives its rows: the layout (each row's depth).
#[derive(Clone, Copy)]
pub struct TreeContext {
    pub layout: Memo<LayoutRef>,
}
