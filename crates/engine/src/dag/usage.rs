//! Token usage per response, summed per conversation, turn and session. Responses were
//! deduplicated by the loader (`message.id` + `requestId`, keeping the largest report).

use super::*;

pub(crate) fn total_usage(corpus: &Corpus, graph: &mut Graph) {
    let mut unknown: Vec<Vec<String>> = vec![Vec::new(); graph.sessions.len()];
    for response in &corpus.responses {
        if !response.has_usage && response.logged_cost_usd.is_none() {
            continue;
        }
        let first = response.first_entry.index();
        let conversation = graph.nodes[first].conversation.index();
        let model = corpus.sym(response.model);
        let cost = match response.logged_cost_usd {
            Some(logged) => logged,
            None => pricing::cost(model, &response.usage).unwrap_or_else(|| {
                let session = graph.conversations[conversation].session.index();
                if !model.is_empty() && !unknown[session].iter().any(|m| m == model) {
                    unknown[session].push(model.to_owned());
                }
                0.0
            }),
        };
        let conv = &mut graph.conversations[conversation];
        conv.usage.add(&response.usage);
        conv.cost_usd += cost;
        if let Some(&turn) = graph.turn_of_entry.get(first)
            && turn.is_some()
        {
            let turn = &mut graph.turns[turn.index()];
            turn.usage.add(&response.usage);
            turn.cost_usd += cost;
        }
    }
    for (c, conv) in graph.conversations.iter().enumerate() {
        let session = &mut graph.sessions[conv.session.index()];
        if session.main == ConversationId::new(c) {
            session.usage = conv.usage;
            session.cost_usd = conv.cost_usd;
        }
        session.usage_with_agents.add(&conv.usage);
        session.cost_with_agents_usd += conv.cost_usd;
    }
    for (session, models) in graph.sessions.iter_mut().zip(unknown) {
        session.unknown_models = models;
    }
}
