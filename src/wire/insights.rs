//! What the page asks of the history's insights worker, and its answers. The worker keeps every
//! unit's insights (`sessionscope_engine::insights::UnitInsights`, as the unit's worker made them
//! while indexing, or as the cache kept them) and answers the history home's Files, Failures and
//! Activity tabs drawn: HTML whose every text is escaped, whose buttons carry `data-action` and
//! the place they open, for the page to act on. The page holds neither the insights nor the
//! code that sums and draws them.

use serde::{Deserialize, Serialize};
use sessionscope_engine::history_cache::FileStamp;

/// How the Files tab sorts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FileOrder {
    #[default]
    LastChange,
    Changes,
    Sessions,
    Path,
}

/// What the Files tab lists.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FileQuery {
    /// Words each in the path (any case), all of them.
    pub text: String,
    /// `None` for every project.
    pub project: Option<String>,
    /// Only files some session changed (not those only read).
    pub changed_only: bool,
    pub order: FileOrder,
}

/// What the activity calendar is coloured by.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CalendarMetric {
    #[default]
    Messages,
    Tokens,
    Cost,
}

/// What the usage charts draw.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum UsageMeasure {
    #[default]
    Cost,
    Tokens,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum InsightsRequest {
    /// Keep unit `unit`'s insights, in the parcel's one buffer (as `UnitInsights::encode` makes
    /// them); a parcel without a buffer forgets the unit's. Not answered.
    Keep { unit: u32 },
    /// Forget every unit's (another history is shown). Not answered.
    Clear,
    /// Sum the tabs' reports now, while nothing is asked (an index pass ended), so that a tab
    /// opened next is only drawn. Not answered.
    Prepare,
    /// Rows `from..from + count` of the files that pass `query`, `active` marked selected:
    /// answered by [`InsightsReply::FileRows`].
    Files { query: FileQuery, from: u32, count: u32, active: Option<u32> },
    /// A file's page, its first `shown` changes drawn: answered by [`InsightsReply::FilePage`].
    File { project: String, path: String, shown: u32 },
    /// The Failures tab, its first `groups` groups drawn: answered by [`InsightsReply::Drawn`].
    Failures { groups: u32 },
    /// The Activity tab in the worker's time zone (the browser's), its latest `blocks` blocks
    /// listed: answered by [`InsightsReply::Drawn`].
    Activity { metric: CalendarMetric, measure: UsageMeasure, blocks: u32 },
    /// The diff of two texts (two versions of a file Claude Code kept), headed `heading`:
    /// answered by [`InsightsReply::Drawn`].
    Compare { heading: String, old: String, new: String },
    /// Every unit's insights as the cache keeps them
    /// (`sessionscope_engine::history_cache::encode_insights`), with the stamps of the files
    /// each unit was read from: answered by [`InsightsReply::Encoded`]. Units not named are left
    /// out.
    Encode { units: Vec<(u32, Vec<FileStamp>)> },
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum InsightsReply {
    /// A tab, or a diff, drawn.
    Drawn { html: String },
    /// Rows of the Files tab: `html` holds `<li role="option">` rows placed at `from`; `total`
    /// files pass the query, of `all`; `projects` are every project with a file, for its filter.
    FileRows { html: String, total: u32, all: u32, projects: Vec<String> },
    /// A file's page: `html`, whose changes' diffs are placeholders (`data-diff="<unit>:<line>"`)
    /// until the units that made them are read again: `read` names each unit and the lines of
    /// the calls whose changes it holds (those of the changes drawn).
    FilePage { html: String, read: Vec<(u32, Vec<String>)>, changes: u32 },
    /// The cache's bytes, in the parcel's one buffer.
    Encoded,
}

/// A change's diff, drawn by the worker that read its unit again (see
/// `UnitRequest::ChangeDiffs`): the line of its call, and its HTML (empty when the log holds no
/// text of it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChangeDiff {
    pub entry: String,
    pub html: String,
}
