//! Byte counts and large counts in short words people read: "1.2 KB", "153 KB", "15.3k". The
//! engine's messages (what a load left out) and the app's views write sizes the same way.
//!
//! Numbers keep one decimal while they are below 100 in their unit and none above; a value that
//! rounds up to 1000 moves to the next unit ("1.0 MB", not "1000 KB").

/// A byte count in decimal units: "512 B", "1.2 KB", "3.4 MB", "1.1 GB".
pub fn human_bytes(n: u64) -> String {
    if n < 1000 {
        return format!("{n} B");
    }
    scaled(n, &[" KB", " MB", " GB", " TB", " PB", " EB"])
}

/// Formats `n` (at least 1000) with the first unit that keeps it below 1000, each unit 1000 times
/// the one before. The units must cover the whole `u64` range (six units).
pub fn scaled(n: u64, units: &[&str]) -> String {
    let mut divisor: u64 = 1;
    for unit in units {
        divisor = divisor.saturating_mul(1000);
        // The value in tenths of the unit, rounded to nearest.
        let tenths = (u128::from(n) * 10 + u128::from(divisor) / 2) / u128::from(divisor);
        if tenths < 1000 {
            return format!("{}.{}{unit}", tenths / 10, tenths % 10);
        }
        let whole = (u128::from(n) + u128::from(divisor) / 2) / u128::from(divisor);
        if whole < 1000 {
            return format!("{whole}{unit}");
        }
    }
    // Only reached if the units run out; shows the largest unit anyway.
    let last_unit = units.last().copied().unwrap_or("");
    format!("{}{last_unit}", n / divisor.max(1))
}
