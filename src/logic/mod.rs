//! Pure view models, built and tested natively: what is loaded ([`loaded`]), where files that
//! came in together open ([`opening`]), the rows the
//! conversation graph shows ([`outline`]), the side panel's rows ([`panel_rows`]), stable names
//! for rows ([`row_names`]), links in the URL fragment ([`deeplink`]), a load's progress
//! ([`load_progress`]), the parts of files too big to show whole ([`file_parts`]), the theme's choices ([`theme`]), the one sort of the page's lists
//! ([`sort`]), the history's activity calendar ([`calendar`]), its files and usage lists
//! ([`insight_lists`]) and what of it was seen ([`seen`]), and counts written with their words in the singular or plural ([`words`]).

pub mod calendar;
pub mod deeplink;
pub mod file_parts;
pub mod insight_lists;
pub mod load_progress;
pub mod loaded;
pub mod opening;
pub mod outline;
pub mod palette;
pub mod panel_rows;
pub mod prompt_outline;
pub mod row_names;
pub mod seen;
pub mod sort;
pub mod theme;
pub mod words;
