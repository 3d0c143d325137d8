//! The activity calendar's model: a history's hours laid out as days (columns) × hours of the
//! day (rows), each valued by messages, tokens or cost, with the moves a keyboard makes across
//! it; and the same hours summed per day, for the table behind the calendar.

use sessionscope_engine::insights::report::Cell;

/// What the calendar colours its hours by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    Messages,
    Tokens,
    Cost,
}

impl Metric {
    pub const ALL: [Metric; 3] = [Metric::Messages, Metric::Tokens, Metric::Cost];

    pub fn label(self) -> &'static str {
        match self {
            Metric::Messages => "Messages",
            Metric::Tokens => "Tokens",
            Metric::Cost => "Cost",
        }
    }

    pub fn of(self, cell: &Cell) -> f64 {
        match self {
            Metric::Messages => cell.messages as f64,
            Metric::Tokens => cell.tokens as f64,
            Metric::Cost => cell.cost_usd,
        }
    }
}

/// The most days the calendar draws: a year and a week, the latest.
pub const MAX_DAYS: usize = 371;

/// The hours of a run of days, valued by one metric.
#[derive(Clone, Debug, PartialEq)]
pub struct Calendar {
    /// The first day drawn (days since 1970-01-01, in the user's time), and how many.
    pub first_day: i64,
    pub days: usize,
    /// `values[day * 24 + hour]`.
    pub values: Vec<f64>,
    pub max: f64,
    /// Days with activity before the first drawn (left out to keep the calendar readable).
    pub days_left_out: usize,
}

impl Calendar {
    /// The calendar of `cells` (hours in the user's time), from the first day with activity to
    /// the last, at most [`MAX_DAYS`] of the latest. `None` without any cell.
    pub fn of(cells: &[Cell], metric: Metric) -> Option<Calendar> {
        let first = cells.iter().map(|c| c.day_number).min()?;
        let last = cells.iter().map(|c| c.day_number).max()?;
        let first_day = first.max(last - MAX_DAYS as i64 + 1);
        let days = (last - first_day + 1) as usize;
        let mut values = vec![0.0; days * 24];
        let mut left_out = std::collections::BTreeSet::new();
        for cell in cells {
            if cell.day_number < first_day {
                left_out.insert(cell.day_number);
                continue;
            }
            let at = (cell.day_number - first_day) as usize * 24 + usize::from(cell.hour.min(23));
            values[at] += metric.of(cell);
        }
        let max = values.iter().copied().fold(0.0, f64::max);
        Some(Calendar { first_day, days, values, max, days_left_out: left_out.len() })
    }

    pub fn value(&self, day: usize, hour: usize) -> f64 {
        self.values.get(day * 24 + hour).copied().unwrap_or(0.0)
    }

    /// How dark an hour is drawn: 0 for none, else 1 to 4 by its share of the busiest hour.
    pub fn level(&self, value: f64) -> u8 {
        if value <= 0.0 || self.max <= 0.0 {
            return 0;
        }
        (1.0 + (value / self.max * 3.999).floor()).min(4.0) as u8
    }

    /// The hour with the most, the earliest of equals: `(day, hour)`.
    pub fn busiest(&self) -> Option<(usize, usize)> {
        let mut best: Option<(usize, f64)> = None;
        for (at, &value) in self.values.iter().enumerate() {
            if value > 0.0 && best.is_none_or(|(_, b)| value > b) {
                best = Some((at, value));
            }
        }
        best.map(|(at, _)| (at / 24, at % 24))
    }

    /// Where a key moves the focused hour (see [`step`]).
    pub fn step(&self, at: (usize, usize), key: &str) -> Option<(usize, usize)> {
        step(self.days, at, key)
    }
}

/// Where a key moves the focused hour `(day, hour)` of a calendar of `days` days: arrows by an
/// hour or a day, Page Up and Down by a week, Home and End to the first and last day. `None` for
/// other keys.
pub fn step(days: usize, (day, hour): (usize, usize), key: &str) -> Option<(usize, usize)> {
    let last_day = days.saturating_sub(1);
    Some(match key {
        "ArrowUp" => (day, hour.saturating_sub(1)),
        "ArrowDown" => (day, (hour + 1).min(23)),
        "ArrowLeft" => (day.saturating_sub(1), hour),
        "ArrowRight" => ((day + 1).min(last_day), hour),
        "PageUp" => (day.saturating_sub(7), hour),
        "PageDown" => ((day + 7).min(last_day), hour),
        "Home" => (0, hour),
        "End" => (last_day, hour),
        _ => return None,
    })
}

/// One day's hours summed, for the table behind the calendar.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DayTotals {
    pub day: String,
    pub day_number: i64,
    pub messages: u64,
    pub tokens: u64,
    pub cost_usd: f64,
    /// Its hour with the most messages.
    pub busiest_hour: u8,
}

/// The days of `cells` (in time order), the latest first.
pub fn days_of(cells: &[Cell]) -> Vec<DayTotals> {
    let mut days: Vec<(DayTotals, u64)> = Vec::new();
    for cell in cells {
        if days.last().is_none_or(|(d, _)| d.day_number != cell.day_number) {
            days.push((DayTotals { day: cell.day.clone(), day_number: cell.day_number, ..DayTotals::default() }, 0));
        }
        let Some((day, most)) = days.last_mut() else { continue };
        day.messages += cell.messages;
        day.tokens += cell.tokens;
        day.cost_usd += cell.cost_usd;
        if cell.messages > *most {
            *most = cell.messages;
            day.busiest_hour = cell.hour;
        }
    }
    days.into_iter().rev().map(|(day, _)| day).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(day_number: i64, hour: u8, messages: u64, tokens: u64) -> Cell {
        let day = sessionscope_engine::insights::report::date_of_day(day_number);
        Cell { day, day_number, hour, messages, tokens, cost_usd: tokens as f64 / 1e6 }
    }

    #[test]
    fn hours_fall_in_their_day_and_hour_and_the_busiest_is_the_earliest_of_equals() {
        let cells = [cell(20_000, 9, 4, 100), cell(20_000, 14, 7, 50), cell(20_002, 9, 7, 900)];
        let calendar = Calendar::of(&cells, Metric::Messages).unwrap();
        assert_eq!((calendar.first_day, calendar.days), (20_000, 3));
        assert_eq!((calendar.value(0, 9), calendar.value(0, 14), calendar.value(1, 9)), (4.0, 7.0, 0.0));
        assert_eq!(calendar.busiest(), Some((0, 14)));
        assert_eq!((calendar.level(0.0), calendar.level(1.0), calendar.level(7.0)), (0, 1, 4));
        let by_tokens = Calendar::of(&cells, Metric::Tokens).unwrap();
        assert_eq!(by_tokens.busiest(), Some((2, 9)));
        assert!(Calendar::of(&[], Metric::Cost).is_none());
    }

    #[test]
    fn a_long_history_draws_its_latest_year_and_says_how_many_days_it_left_out() {
        let cells: Vec<Cell> = (0..500).step_by(10).map(|d| cell(19_000 + d, 12, 1, 1)).collect();
        let calendar = Calendar::of(&cells, Metric::Messages).unwrap();
        assert_eq!(calendar.days, MAX_DAYS);
        assert_eq!(calendar.first_day, 19_490 - MAX_DAYS as i64 + 1);
        assert_eq!(calendar.days_left_out, cells.iter().filter(|c| c.day_number < calendar.first_day).count());
        assert!(calendar.days_left_out > 0);
    }

    #[test]
    fn keys_move_within_the_calendar() {
        let calendar = Calendar::of(&[cell(1, 0, 1, 1), cell(10, 23, 1, 1)], Metric::Messages).unwrap();
        assert_eq!(calendar.step((0, 0), "ArrowUp"), Some((0, 0)));
        assert_eq!(calendar.step((0, 0), "ArrowDown"), Some((0, 1)));
        assert_eq!(calendar.step((9, 5), "ArrowRight"), Some((9, 5)));
        assert_eq!(calendar.step((2, 5), "PageDown"), Some((9, 5)));
        assert_eq!(calendar.step((8, 5), "PageUp"), Some((1, 5)));
        assert_eq!(calendar.step((4, 5), "End"), Some((9, 5)));
        assert_eq!(calendar.step((4, 5), "x"), None);
    }

    #[test]
    fn days_sum_their_hours_the_latest_first() {
        let days = days_of(&[cell(5, 9, 2, 10), cell(5, 10, 3, 20), cell(7, 1, 1, 5)]);
        assert_eq!(days.len(), 2);
        assert_eq!((days[0].day_number, days[0].messages), (7, 1));
        assert_eq!((days[1].messages, days[1].tokens, days[1].busiest_hour), (5, 30, 10));
    }
}
