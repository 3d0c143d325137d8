//! Responses of Claude Code lines: the lines of one model call (one `message.id` and
//! `requestId`, one line per content block) make one response, whose usage is the fullest one
//! its lines report: the most tokens in all, the first of equals, as ccusage counts it (its
//! session totals and 5-hour blocks are the reference).

use std::borrow::Cow;

use crate::import::Sink;
use crate::import::common::new_response;
use crate::json::LStr;
use crate::model::*;
use crate::span::Locator;

use super::heads::UsageHead;

/// What a line says of the response (one model call) it is part of.
pub(super) struct ResponseReport<'h> {
    /// `message.id`, which the lines of one response share; none: the line is a response alone.
    pub(super) message_id: Option<&'h str>,
    /// `requestId`: with the message id, what tells responses apart.
    pub(super) request_id: &'h str,
    pub(super) usage: Option<&'h UsageHead>,
    /// The cost the line states (`costUSD` and its other spellings).
    pub(super) cost: Option<f64>,
}

/// The response entry `entry_index` belongs to: the one its message id and request id name
/// (whose usage it may better), or a new one.
pub(super) fn record_response(
    sink: &mut Sink,
    bytes: &[Vec<u8>],
    at: &Locator,
    entry: &Entry,
    entry_index: EntryId,
    report: &ResponseReport,
) -> ResponseId {
    let ResponseReport { message_id, request_id, usage, cost } = *report;
    let usage = usage.map(UsageHead::to_usage);
    // The entry is not in the corpus yet: its caller points it at the response.
    let mut response = new_response(entry.file, entry_index, entry.model, usage);
    response.logged_cost_usd = cost;
    let Some(message_id) = message_id else {
        let index = ResponseId::new(sink.corpus.responses.len());
        sink.corpus.responses.push(response);
        return index;
    };
    let hash = sink.hash_pair(message_id.as_bytes(), request_id.as_bytes());
    let arena = &sink.corpus.arena;
    let responses = &sink.corpus.responses;
    let found = sink.response_index.find(hash, |&(h, r)| {
        h == hash && {
            let response = &responses[r.index()];
            let file_bytes = &bytes[response.file as usize];
            response.message_id.bytes(file_bytes, arena) == message_id.as_bytes()
                && response.request_id.bytes(file_bytes, arena) == request_id.as_bytes()
        }
    });
    if let Some(&(_, index)) = found {
        let response = &mut sink.corpus.responses[index.index()];
        response.lines += 1;
        if response.model.is_none() {
            response.model = entry.model;
        }
        if let Some(usage) = usage {
            let better = !response.has_usage || usage.total() > response.usage.total();
            if better {
                response.usage = usage;
                response.usage_entry = entry_index;
                response.has_usage = true;
                if cost.is_some() {
                    response.logged_cost_usd = cost;
                }
            }
        }
        return index;
    }
    let index = ResponseId::new(sink.corpus.responses.len());
    let message_span = at.str_span(&mut sink.corpus.arena, &LStr(Some(Cow::Borrowed(message_id))));
    let request_span = at.str_span(&mut sink.corpus.arena, &LStr(Some(Cow::Borrowed(request_id))));
    sink.corpus.responses.push(Response { message_id: message_span, request_id: request_span, ..response });
    sink.response_index.insert_unique(hash, (hash, index), |&(h, _)| h);
    index
}
