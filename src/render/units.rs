//! Sizes, durations, counts and times in short human-readable form.
//!
//! Sizes and large counts are the engine's (`sessionscope_engine::units`): one decimal below 100 in
//! their unit ("1.2 KB", "15.3k"), none above ("153 KB"). Times are in UTC, so that they match the
//! timestamps of the logs.

const MS_PER_SECOND: i64 = 1000;
const MS_PER_MINUTE: i64 = 60 * MS_PER_SECOND;
const MS_PER_HOUR: i64 = 60 * MS_PER_MINUTE;
const MS_PER_DAY: i64 = 24 * MS_PER_HOUR;

/// `12,345,678`: exact and readable.
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A byte count in decimal units: "512 B", "1.2 KB", "3.4 MB", "1.1 GB" (the engine's, so its
/// messages write sizes as the views do).
pub use sessionscope_engine::units::human_bytes;
use sessionscope_engine::units::scaled;

/// A duration: "850 ms", "1.2 s", "42 s", "3 min 5 s", "2 h 04 min". Rounded to the shown precision;
/// negative durations get a minus sign.
pub fn human_duration_ms(ms: i64) -> String {
    let sign = if ms < 0 { "-" } else { "" };
    let ms = ms.unsigned_abs();
    if ms < 1000 {
        return format!("{sign}{ms} ms");
    }
    let tenths_of_second = ms.saturating_add(50) / 100;
    if tenths_of_second < 100 {
        return format!("{sign}{}.{} s", tenths_of_second / 10, tenths_of_second % 10);
    }
    let seconds = ms.saturating_add(500) / 1000;
    if seconds < 60 {
        return format!("{sign}{seconds} s");
    }
    if seconds < 3600 {
        return format!("{sign}{} min {} s", seconds / 60, seconds % 60);
    }
    let minutes = ms.saturating_add(30_000) / 60_000;
    format!("{sign}{} h {:02} min", minutes / 60, minutes % 60)
}

/// What a duration that is not known shows: a dash, never "0 ms" (an Aider run has one time, its
/// start, so how long it took is not known).
pub const UNKNOWN_DURATION: &str = "—";

/// The words a lone [`UNKNOWN_DURATION`] is labelled with for screen readers and as its title.
pub const UNKNOWN_DURATION_LABEL: &str = "unknown duration";

/// How long from a first time to a last one, if both are known and they differ: a single time (or
/// none) says when something happened, not how long it took. A session whose two times are the same
/// millisecond is so rare that it is shown as unknown too.
pub fn span_ms(first: Option<i64>, last: Option<i64>) -> Option<i64> {
    match (first, last) {
        (Some(first), Some(last)) if first != last => Some(last.saturating_sub(first)),
        _ => None,
    }
}

/// A duration that may not be known: [`human_duration_ms`], or [`UNKNOWN_DURATION`].
pub fn human_known_duration(ms: Option<i64>) -> String {
    ms.map_or_else(|| UNKNOWN_DURATION.to_owned(), human_duration_ms)
}

/// A count: "999", "1.2k", "15.3k", "153k", "1.2M", "3.4B".
pub fn human_count(n: u64) -> String {
    if n < 1000 {
        return n.to_string();
    }
    scaled(n, &["k", "M", "B", "T", "P", "E"])
}

/// How long ago a time was, or how far ahead it is: "just now", "5 min ago", "3 h ago", "1 day ago",
/// "2 days ago", "3 months ago", "2 years ago", "in 5 min". Rounds down, so "5 min ago" covers 5 to 6
/// minutes. Less than a minute either way is "just now".
pub fn relative_time(ms_since_epoch: i64, now_ms: i64) -> String {
    let difference = i128::from(now_ms) - i128::from(ms_since_epoch);
    let in_future = difference < 0;
    let elapsed = difference.unsigned_abs();
    let span = if elapsed < MS_PER_MINUTE as u128 {
        return "just now".to_owned();
    } else if elapsed < MS_PER_HOUR as u128 {
        format!("{} min", elapsed / MS_PER_MINUTE as u128)
    } else if elapsed < MS_PER_DAY as u128 {
        format!("{} h", elapsed / MS_PER_HOUR as u128)
    } else {
        let days = elapsed / MS_PER_DAY as u128;
        if days < 30 {
            plural(days, "day")
        } else if days < 365 {
            plural(days / 30, "month")
        } else {
            plural(days / 365, "year")
        }
    };
    if in_future { format!("in {span}") } else { format!("{span} ago") }
}

/// The time of day in UTC: "14:03:27".
pub fn clock_time(ms_since_epoch: i64) -> String {
    let (_, milliseconds_of_day) = split_days(ms_since_epoch);
    let seconds = milliseconds_of_day / MS_PER_SECOND;
    format!("{:02}:{:02}:{:02}", seconds / 3600, seconds / 60 % 60, seconds % 60)
}

/// The date and time in UTC: "2026-02-11 20:36:45 UTC".
pub fn iso_time(ms: i64) -> String {
    let (days, milliseconds_of_day) = split_days(ms);
    let (year, month, day) = civil_from_days(days);
    let seconds = milliseconds_of_day / MS_PER_SECOND;
    format!("{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02} UTC", seconds / 3600, seconds / 60 % 60, seconds % 60)
}

fn plural(count: u128, unit: &str) -> String {
    if count == 1 { format!("1 {unit}") } else { format!("{count} {unit}s") }
}

/// Splits a time into whole days since the epoch and milliseconds into that day (never negative).
fn split_days(ms: i64) -> (i64, i64) {
    (ms.div_euclid(MS_PER_DAY), ms.rem_euclid(MS_PER_DAY))
}

/// The proleptic Gregorian date of a day count since 1970-01-01 (Howard Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let shifted = days + 719_468;
    let era = shifted.div_euclid(146_097);
    let day_of_era = shifted.rem_euclid(146_097);
    let year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 { month_index + 3 } else { month_index - 9 };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, u32::try_from(month).unwrap_or(1), u32::try_from(day).unwrap_or(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINUTE: i64 = 60_000;
    const HOUR: i64 = 60 * MINUTE;
    const DAY: i64 = 24 * HOUR;

    #[test]
    fn a_duration_is_known_only_from_two_different_times() {
        assert_eq!(span_ms(Some(1000), Some(4000)), Some(3000));
        assert_eq!(span_ms(Some(1000), Some(1000)), None, "one time says when, not how long");
        assert_eq!(span_ms(None, Some(1000)), None);
        assert_eq!(span_ms(Some(1000), None), None);
        assert_eq!(span_ms(Some(i64::MIN), Some(i64::MAX)), Some(i64::MAX));
        assert_eq!(human_known_duration(None), "—");
        assert_eq!(human_known_duration(Some(0)), "0 ms");
        assert_eq!(human_known_duration(Some(1500)), "1.5 s");
    }

    #[test]
    fn bytes() {
        assert_eq!(human_bytes(0), "0 B");
        assert_eq!(human_bytes(512), "512 B");
        assert_eq!(human_bytes(999), "999 B");
        assert_eq!(human_bytes(1000), "1.0 KB");
        assert_eq!(human_bytes(1234), "1.2 KB");
        assert_eq!(human_bytes(1250), "1.3 KB");
        assert_eq!(human_bytes(99_949), "99.9 KB");
        assert_eq!(human_bytes(99_950), "100 KB");
        assert_eq!(human_bytes(153_400), "153 KB");
        assert_eq!(human_bytes(999_499), "999 KB");
        assert_eq!(human_bytes(999_500), "1.0 MB");
        assert_eq!(human_bytes(3_400_000), "3.4 MB");
        assert_eq!(human_bytes(1_100_000_000), "1.1 GB");
        assert_eq!(human_bytes(2_500_000_000_000), "2.5 TB");
        assert_eq!(human_bytes(u64::MAX), "18.4 EB");
    }

    #[test]
    fn durations() {
        assert_eq!(human_duration_ms(0), "0 ms");
        assert_eq!(human_duration_ms(850), "850 ms");
        assert_eq!(human_duration_ms(999), "999 ms");
        assert_eq!(human_duration_ms(1000), "1.0 s");
        assert_eq!(human_duration_ms(1234), "1.2 s");
        assert_eq!(human_duration_ms(9_949), "9.9 s");
        assert_eq!(human_duration_ms(9_950), "10 s");
        assert_eq!(human_duration_ms(42_400), "42 s");
        assert_eq!(human_duration_ms(59_499), "59 s");
        assert_eq!(human_duration_ms(59_500), "1 min 0 s");
        assert_eq!(human_duration_ms(185_000), "3 min 5 s");
        assert_eq!(human_duration_ms(3_599_499), "59 min 59 s");
        assert_eq!(human_duration_ms(3_599_500), "1 h 00 min");
        assert_eq!(human_duration_ms(2 * HOUR + 4 * MINUTE), "2 h 04 min");
        assert_eq!(human_duration_ms(2 * HOUR + 4 * MINUTE + 29_999), "2 h 04 min");
        assert_eq!(human_duration_ms(2 * HOUR + 4 * MINUTE + 30_000), "2 h 05 min");
        assert_eq!(human_duration_ms(50 * HOUR), "50 h 00 min");
    }

    #[test]
    fn negative_and_extreme_durations() {
        assert_eq!(human_duration_ms(-850), "-850 ms");
        assert_eq!(human_duration_ms(-185_000), "-3 min 5 s");
        assert!(human_duration_ms(i64::MIN).starts_with("-2562047788015 h"));
        assert!(human_duration_ms(i64::MAX).starts_with("2562047788015 h"));
    }

    #[test]
    fn counts() {
        assert_eq!(human_count(0), "0");
        assert_eq!(human_count(999), "999");
        assert_eq!(human_count(1000), "1.0k");
        assert_eq!(human_count(1234), "1.2k");
        assert_eq!(human_count(15_300), "15.3k");
        assert_eq!(human_count(153_400), "153k");
        assert_eq!(human_count(999_999), "1.0M");
        assert_eq!(human_count(1_200_000), "1.2M");
        assert_eq!(human_count(3_400_000_000), "3.4B");
        assert_eq!(human_count(u64::MAX), "18.4E");
    }

    #[test]
    fn relative_times() {
        let now = 1_770_842_205_000;
        assert_eq!(relative_time(now, now), "just now");
        assert_eq!(relative_time(now - 59_999, now), "just now");
        assert_eq!(relative_time(now + 30_000, now), "just now");
        assert_eq!(relative_time(now - MINUTE, now), "1 min ago");
        assert_eq!(relative_time(now - 5 * MINUTE - 59_000, now), "5 min ago");
        assert_eq!(relative_time(now - 3 * HOUR, now), "3 h ago");
        assert_eq!(relative_time(now - 23 * HOUR - 59 * MINUTE, now), "23 h ago");
        assert_eq!(relative_time(now - DAY, now), "1 day ago");
        assert_eq!(relative_time(now - 2 * DAY - HOUR, now), "2 days ago");
        assert_eq!(relative_time(now - 29 * DAY, now), "29 days ago");
        assert_eq!(relative_time(now - 45 * DAY, now), "1 month ago");
        assert_eq!(relative_time(now - 100 * DAY, now), "3 months ago");
        assert_eq!(relative_time(now - 365 * DAY, now), "1 year ago");
        assert_eq!(relative_time(now - 800 * DAY, now), "2 years ago");
        assert_eq!(relative_time(now + 5 * MINUTE, now), "in 5 min");
        assert_eq!(relative_time(now + 3 * HOUR + 1, now), "in 3 h");
        assert_eq!(relative_time(now + 2 * DAY, now), "in 2 days");
    }

    #[test]
    fn relative_time_extremes() {
        assert_eq!(relative_time(i64::MIN, i64::MAX), "584942417 years ago");
        assert_eq!(relative_time(i64::MAX, i64::MIN), "in 584942417 years");
        assert_eq!(relative_time(0, 0), "just now");
    }

    #[test]
    fn clock_times() {
        assert_eq!(clock_time(0), "00:00:00");
        // 2026-02-11 14:03:27.999 UTC.
        assert_eq!(clock_time(1_770_818_607_999), "14:03:27");
        assert_eq!(clock_time(DAY - 1), "23:59:59");
        // Before the epoch, times of day still count forward from midnight.
        assert_eq!(clock_time(-1), "23:59:59");
        assert_eq!(clock_time(-HOUR), "23:00:00");
        assert_eq!(clock_time(i64::MIN).len(), 8);
        assert_eq!(clock_time(i64::MAX).len(), 8);
    }

    #[test]
    fn iso_times() {
        assert_eq!(iso_time(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(iso_time(1_770_842_205_000), "2026-02-11 20:36:45 UTC");
        assert_eq!(iso_time(951_782_400_000), "2000-02-29 00:00:00 UTC");
        assert_eq!(iso_time(951_868_799_999), "2000-02-29 23:59:59 UTC");
        assert_eq!(iso_time(4_107_542_400_000), "2100-03-01 00:00:00 UTC");
        assert_eq!(iso_time(1_735_689_599_000), "2024-12-31 23:59:59 UTC");
        assert_eq!(iso_time(-1), "1969-12-31 23:59:59 UTC");
        assert_eq!(iso_time(-62_135_596_800_000), "0001-01-01 00:00:00 UTC");
        assert_eq!(iso_time(253_402_300_799_000), "9999-12-31 23:59:59 UTC");
    }

    #[test]
    fn iso_time_extremes_do_not_panic() {
        assert_eq!(iso_time(i64::MAX), "292278994-08-17 07:12:55 UTC");
        assert_eq!(iso_time(i64::MIN), "-292275055-05-16 16:47:04 UTC");
    }

    #[test]
    fn civil_dates_match_a_day_by_day_count() {
        // Walks forward day by day from 1969-01-01 to 2030, checking each date follows the previous one.
        let mut expected = (1969, 1, 1);
        for days in -365..22_000 {
            assert_eq!(civil_from_days(days), expected, "day {days}");
            let (year, month, day) = expected;
            let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
            let month_length = match month {
                2 if leap => 29,
                2 => 28,
                4 | 6 | 9 | 11 => 30,
                _ => 31,
            };
            expected = if day < month_length {
                (year, month, day + 1)
            } else if month < 12 {
                (year, month + 1, 1)
            } else {
                (year + 1, 1, 1)
            };
        }
    }
}
