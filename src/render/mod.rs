//! Turning log content into safe display: markdown, diffs, terminal output, human units.
//! Pure functions with no web dependency, tested natively.

pub mod diff;
pub mod markdown;
pub mod module;
pub mod terminal;
pub mod units;
