//! When a history worked, and what it cost: each API response's usage at its time, messages per
//! hour, and usage in 5-hour blocks as ccusage's `blocks` reports them: a block starts at the hour
//! (UTC) of its first response and takes the responses of the next five hours, unless five hours
//! pass with none, which ends it (a gap between blocks of more than five hours is a block of its
//! own, with no usage).

use serde::{Deserialize, Serialize};

use crate::model::Usage;

/// Milliseconds in an hour, and in a block.
pub const HOUR_MS: i64 = 3_600_000;
pub const BLOCK_MS: i64 = 5 * HOUR_MS;

/// One API response's usage, at the time of the line whose usage it keeps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct UsageEvent {
    /// A hash of its message id and request id (0 for a response without them): a response a
    /// resumed session copied into another file is counted once across the history.
    pub id: u64,
    pub time_ms: i64,
    /// Its session, in its unit's rows.
    pub session: u32,
    /// Its model, in its unit's names.
    pub model: u32,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_creation_input_tokens: u64,
    pub cache_read_input_tokens: u64,
    pub cost_usd: f64,
}

impl UsageEvent {
    pub fn of(id: u64, time_ms: i64, session: u32, model: u32, usage: &Usage, cost_usd: f64) -> UsageEvent {
        UsageEvent {
            id,
            time_ms,
            session,
            model,
            input_tokens: usage.input_tokens,
            output_tokens: usage.output_tokens,
            cache_creation_input_tokens: usage.cache_creation_input_tokens,
            cache_read_input_tokens: usage.cache_read_input_tokens,
            cost_usd,
        }
    }

    pub fn tokens(&self) -> u64 {
        self.input_tokens + self.output_tokens + self.cache_creation_input_tokens + self.cache_read_input_tokens
    }
}

/// Messages (user and assistant) of one session in one hour.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HourCount {
    /// Hours since the epoch (UTC).
    pub hour: i64,
    pub session: u32,
    pub messages: u32,
}

/// Tokens by kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenCounts {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_creation_input_tokens: u64,
    pub cache_read_input_tokens: u64,
}

impl TokenCounts {
    pub fn add(&mut self, event: &UsageEvent) {
        self.input_tokens += event.input_tokens;
        self.output_tokens += event.output_tokens;
        self.cache_creation_input_tokens += event.cache_creation_input_tokens;
        self.cache_read_input_tokens += event.cache_read_input_tokens;
    }

    pub fn total(&self) -> u64 {
        self.input_tokens + self.output_tokens + self.cache_creation_input_tokens + self.cache_read_input_tokens
    }
}

/// A 5-hour block of usage, or the gap between two.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Block {
    /// The hour (UTC) of its first response; a gap's starts five hours after the last one before
    /// it.
    pub start_ms: i64,
    /// Five hours after its start; a gap's is the next response's time.
    pub end_ms: i64,
    /// Its first and last responses' times (none for a gap).
    pub first_ms: Option<i64>,
    pub actual_end_ms: Option<i64>,
    pub gap: bool,
    /// Its last response is less than five hours old, and its five hours are not over.
    pub active: bool,
    pub responses: u32,
    pub tokens: TokenCounts,
    pub cost_usd: f64,
    /// Its models, in order of first use.
    pub models: Vec<String>,
}

impl Block {
    pub fn total_tokens(&self) -> u64 {
        self.tokens.total()
    }

    /// Tokens a minute and cost an hour from its first response to its last, as ccusage's burn
    /// rate counts them; none for a block of one moment.
    pub fn burn_rate(&self) -> Option<BurnRate> {
        let (first, last) = (self.first_ms?, self.actual_end_ms?);
        let minutes = (last - first) as f64 / 60_000.0;
        (minutes > 0.0).then(|| BurnRate {
            tokens_per_minute: self.total_tokens() as f64 / minutes,
            cost_per_hour: self.cost_usd / minutes * 60.0,
        })
    }
}

/// How fast a block spends.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct BurnRate {
    pub tokens_per_minute: f64,
    pub cost_per_hour: f64,
}

/// The id of a response: FNV-1a of its message id, a zero byte and its request id; 0 if it has
/// neither.
pub fn response_id(message_id: &[u8], request_id: &[u8]) -> u64 {
    if message_id.is_empty() && request_id.is_empty() {
        return 0;
    }
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &byte in message_id.iter().chain(&[0]).chain(request_id) {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash.max(1)
}

/// The responses of several units counted once each: of those with one id, the one with the most
/// tokens (the first of equals), as ccusage keeps one line of each response across every file.
/// The responses come back ordered by id (those without one first, in their order), sorted in
/// place: a 4 GB history has a quarter of a million.
pub fn dedup<T>(mut events: Vec<(UsageEvent, T)>) -> Vec<(UsageEvent, T)> {
    // Stable: equals keep their order, so the first of them is found first.
    events.sort_by_key(|(event, _)| event.id);
    let mut kept = 0;
    for at in 0..events.len() {
        let id = events[at].0.id;
        if id != 0 && kept > 0 && events[kept - 1].0.id == id {
            if events[at].0.tokens() > events[kept - 1].0.tokens() {
                events.swap(kept - 1, at);
            }
            continue;
        }
        events.swap(kept, at);
        kept += 1;
    }
    events.truncate(kept);
    events
}

/// The start of the hour (UTC) of a time.
pub fn floor_to_hour(time_ms: i64) -> i64 {
    time_ms.div_euclid(HOUR_MS) * HOUR_MS
}

/// The 5-hour blocks of these responses (with the name of each's model), in time order, with
/// the gaps between them; `now_ms` tells the active one. The responses are sorted here.
pub fn blocks(events: &mut [(UsageEvent, &str)], now_ms: i64) -> Vec<Block> {
    blocks_by(events, |_, model| model, now_ms)
}

/// [`blocks`] of responses carrying anything, `model` naming each one's model.
pub fn blocks_by<'a, T>(
    events: &mut [(UsageEvent, T)],
    model: impl Fn(&UsageEvent, &T) -> &'a str,
    now_ms: i64,
) -> Vec<Block> {
    events.sort_by_key(|(event, _)| event.time_ms);
    let mut out: Vec<Block> = Vec::new();
    let mut current: Option<(i64, Vec<usize>)> = None;
    let close = |out: &mut Vec<Block>, start: i64, members: &[usize], events: &[(UsageEvent, T)]| {
        let mut block = Block { start_ms: start, end_ms: start + BLOCK_MS, ..Block::default() };
        for &i in members {
            let (event, with) = &events[i];
            let model = model(event, with);
            block.responses += 1;
            block.tokens.add(event);
            block.cost_usd += event.cost_usd;
            if !model.is_empty() && !block.models.iter().any(|m| m == model) {
                block.models.push(model.to_owned());
            }
        }
        let last = members.last().map(|&i| events[i].0.time_ms);
        block.first_ms = members.first().map(|&i| events[i].0.time_ms);
        block.actual_end_ms = last;
        block.active = last.is_some_and(|last| now_ms - last < BLOCK_MS) && now_ms < block.end_ms;
        out.push(block);
    };
    for i in 0..events.len() {
        let time = events[i].0.time_ms;
        match &mut current {
            None => current = Some((floor_to_hour(time), vec![i])),
            Some((start, members)) => {
                let last = members.last().map_or(time, |&m| events[m].0.time_ms);
                if time - *start > BLOCK_MS || time - last > BLOCK_MS {
                    close(&mut out, *start, members, events);
                    if time - last > BLOCK_MS {
                        out.push(Block { start_ms: last + BLOCK_MS, end_ms: time, gap: true, ..Block::default() });
                    }
                    current = Some((floor_to_hour(time), vec![i]));
                } else {
                    members.push(i);
                }
            }
        }
    }
    if let Some((start, members)) = current {
        close(&mut out, start, &members, events);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const H: i64 = HOUR_MS;
    const M: i64 = 60_000;

    fn event(time_ms: i64, input: u64) -> (UsageEvent, &'static str) {
        (UsageEvent { time_ms, input_tokens: input, output_tokens: 1, cost_usd: 0.5, ..UsageEvent::default() }, "m")
    }

    /// Blocks worked out by hand for a day of usage: a block from 09:00 (first response 09:20),
    /// which a response at 14:10 (more than five hours after 09:00) closes; a response at 14:10
    /// starts a block at 14:00; then six hours of silence make a gap, and a block at 20:00 holds
    /// the last response, still active.
    #[test]
    fn blocks_start_at_the_hour_and_end_after_five_hours_or_five_hours_of_silence() {
        let day = 1_767_225_600_000; // 2026-01-01T00:00:00Z
        let mut events = vec![
            event(day + 9 * H + 20 * M, 10),
            event(day + 11 * H, 20),
            event(day + 13 * H + 59 * M, 30),
            event(day + 14 * H + 10 * M, 40),
            event(day + 20 * H + 30 * M, 50),
        ];
        events.reverse(); // Sorted by the function.
        let got = blocks(&mut events, day + 21 * H);
        let shape: Vec<(i64, i64, bool, u32, u64)> = got
            .iter()
            .map(|b| ((b.start_ms - day) / M, (b.end_ms - day) / M, b.gap, b.responses, b.tokens.input_tokens))
            .collect();
        assert_eq!(
            shape,
            [
                (9 * 60, 14 * 60, false, 3, 60),
                (14 * 60, 19 * 60, false, 1, 40),
                (19 * 60 + 10, 20 * 60 + 30, true, 0, 0),
                (20 * 60, 25 * 60, false, 1, 50),
            ]
        );
        assert_eq!(got[0].actual_end_ms, Some(day + 13 * H + 59 * M));
        assert!(!got[0].active && got[3].active, "only the last block is active, an hour after its response");
        assert_eq!(got[0].total_tokens(), 60 + 3);
        let rate = got[0].burn_rate().unwrap();
        assert!((rate.tokens_per_minute - 63.0 / 279.0).abs() < 1e-9);
        assert!(got[1].burn_rate().is_none(), "one response has no rate");
        // Exactly five hours after the block's start, or after the last response, is still in.
        let mut edge = vec![event(day, 1), event(day + 5 * H, 1)];
        assert_eq!(blocks(&mut edge, 0).len(), 1);
        assert!(blocks(&mut [], 0).is_empty());
    }

    #[test]
    fn a_response_is_counted_once_with_its_largest_usage_and_the_first_of_equals() {
        let at = |id: u64, input: u64, tag: &'static str| {
            (UsageEvent { id, input_tokens: input, ..UsageEvent::default() }, tag)
        };
        let kept =
            dedup(vec![at(7, 5, "a"), at(0, 1, "x"), at(7, 9, "b"), at(3, 2, "c"), at(7, 9, "d"), at(0, 1, "y")]);
        let tags: Vec<&str> = kept.iter().map(|(_, tag)| *tag).collect();
        assert_eq!(tags, ["x", "y", "c", "b"], "no id: each kept; id 7: its largest, the first of equals");
    }
}
