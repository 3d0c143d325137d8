//! Turning log content into safe display: markdown, diffs, terminal output, human units.
//! Pure functions with no web dependency, tested natively.
