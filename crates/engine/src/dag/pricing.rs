//! A bundled price table, per million tokens, from Anthropic's and OpenAI's published prices
//! (standard tier). Costs are computed per response; cache writes are priced by their 5-minute
//! / 1-hour split when the log has it. Above 200k tokens of one kind in one response, the
//! long-context rate applies to the tokens above the threshold, as `ccusage` computes it, for the
//! models that still have one (Sonnet 4 and 4.5): Opus 4.6 and 4.7 and Sonnet 4.6 have their
//! 1M-token context at the standard rates, as ccusage 20.0.24 prices them.
//! OpenAI models have no cache-write premium and their own cached-input rate. Local models
//! (Ollama) are not priced here: their importer logs their cost as 0.
//!
//! Google's Gemini models are priced at the Gemini API's paid tier (ai.google.dev/pricing, prompts
//! up to 200k tokens; implicit caching, so no cache-write premium), Alibaba's Qwen coder models at
//! Model Studio's international list price for inputs up to 32k tokens. Both are what the same
//! tokens cost through the API: Gemini CLI's and Qwen Code's free tiers (a Google or Qwen
//! account login) cost their users nothing.

use crate::model::Usage;

/// Dollars per million tokens.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Price {
    pub input: f64,
    pub output: f64,
    pub cache_write_5m: f64,
    pub cache_write_1h: f64,
    pub cache_read: f64,
    /// Rates above 200k tokens of a kind in one response, for long-context models.
    pub above_200k: Option<[f64; 5]>,
}

const fn price(input: f64, output: f64) -> Price {
    Price {
        input,
        output,
        cache_write_5m: input * 1.25,
        cache_write_1h: input * 2.0,
        cache_read: input * 0.1,
        above_200k: None,
    }
}

const fn long_context(base: Price, input: f64, output: f64) -> Price {
    Price { above_200k: Some([input, output, input * 1.25, input * 2.0, input * 0.1]), ..base }
}

const FREE: Price = price(0.0, 0.0);

/// Model-id fragments and their prices, most specific first.
const TABLE: &[(&str, Price)] = &[
    ("<synthetic>", FREE),
    ("opus-4-7", price(5.0, 25.0)),
    ("opus-4-6", price(5.0, 25.0)),
    ("opus-4-5", price(5.0, 25.0)),
    ("opus-4-1", price(15.0, 75.0)),
    ("opus-4", price(15.0, 75.0)),
    ("3-opus", price(15.0, 75.0)),
    ("sonnet-4-6", price(3.0, 15.0)),
    ("sonnet-4-5", long_context(price(3.0, 15.0), 6.0, 22.5)),
    ("sonnet-4", long_context(price(3.0, 15.0), 6.0, 22.5)),
    ("3-7-sonnet", price(3.0, 15.0)),
    ("3-5-sonnet", price(3.0, 15.0)),
    ("haiku-4-5", price(1.0, 5.0)),
    ("3-5-haiku", price(0.8, 4.0)),
    ("3-haiku", price(0.25, 1.25)),
];

/// An OpenAI price: input, cached input and output per million tokens.
const fn openai(input: f64, cached: f64, output: f64) -> Price {
    Price { input, output, cache_write_5m: input, cache_write_1h: input, cache_read: cached, above_200k: None }
}

const GPT_5: Price = openai(1.25, 0.125, 10.0);
const GPT_5_MINI: Price = openai(0.25, 0.025, 2.0);

/// OpenAI model-id prefixes (after any `provider/`), most specific first.
const OPENAI: &[(&str, Price)] = &[
    ("gpt-5.2", openai(1.75, 0.175, 14.0)),
    ("gpt-5.1-codex-mini", GPT_5_MINI),
    ("gpt-5-codex-mini", GPT_5_MINI),
    ("gpt-5.1", GPT_5),
    ("gpt-5-mini", GPT_5_MINI),
    ("gpt-5-nano", openai(0.05, 0.005, 0.4)),
    ("gpt-5-pro", openai(15.0, 15.0, 120.0)),
    ("gpt-5", GPT_5),
    ("o3-pro", openai(20.0, 20.0, 80.0)),
    ("o3-mini", openai(1.1, 0.55, 4.4)),
    ("o3", openai(2.0, 0.5, 8.0)),
    ("o4-mini", openai(1.1, 0.275, 4.4)),
    ("o1", openai(15.0, 7.5, 60.0)),
    ("codex-mini", openai(1.5, 0.375, 6.0)),
    ("gpt-4.1-mini", openai(0.4, 0.1, 1.6)),
    ("gpt-4.1-nano", openai(0.1, 0.025, 0.4)),
    ("gpt-4.1", openai(2.0, 0.5, 8.0)),
    ("gpt-4o-mini", openai(0.15, 0.075, 0.6)),
    ("gpt-4o", openai(2.5, 1.25, 10.0)),
];

/// Google's and Alibaba's model-id prefixes (after any `provider/` or `models/`), most specific
/// first: input, cached input and output per million tokens, as OpenAI's.
const GOOGLE_AND_QWEN: &[(&str, Price)] = &[
    ("gemini-3-pro", openai(2.0, 0.2, 12.0)),
    ("gemini-3-flash", openai(0.5, 0.05, 3.0)),
    ("gemini-2.5-pro", openai(1.25, 0.125, 10.0)),
    ("gemini-2.5-flash-lite", openai(0.1, 0.01, 0.4)),
    ("gemini-2.5-flash", openai(0.3, 0.03, 2.5)),
    ("gemini-2.0-flash-lite", openai(0.075, 0.075, 0.3)),
    ("gemini-2.0-flash", openai(0.1, 0.025, 0.4)),
    ("qwen3-coder-plus", openai(1.0, 1.0, 5.0)),
    ("qwen3-coder-flash", openai(0.3, 0.3, 1.5)),
];

const THRESHOLD: u64 = 200_000;

/// The price of a model id, or `None` if it is not in the table. Claude versions are matched
/// with dots or dashes alike: GitHub Copilot names them `claude-sonnet-4.5`, `claude-opus-4.7`.
pub fn price_of(model: &str) -> Option<Price> {
    let model = model.to_ascii_lowercase();
    let dashed = model.replace('.', "-");
    if let Some((_, price)) = TABLE.iter().find(|(fragment, _)| dashed.contains(fragment)) {
        return Some(*price);
    }
    let id = model.rsplit('/').next().unwrap_or(&model);
    OPENAI.iter().chain(GOOGLE_AND_QWEN).find(|(prefix, _)| id.starts_with(prefix)).map(|(_, price)| *price)
}

/// The cost in dollars of one response's usage, or `None` for a model without a price.
pub fn cost(model: &str, usage: &Usage) -> Option<f64> {
    let price = price_of(model)?;
    let write_5m_split = usage.cache_creation_5m.min(usage.cache_creation_input_tokens);
    let write_1h = usage.cache_creation_1h.min(usage.cache_creation_input_tokens - write_5m_split);
    let write_5m = usage.cache_creation_input_tokens - write_1h;
    let tiers = price.above_200k;
    let part = |tokens: u64, base: f64, tier: usize| -> f64 {
        match tiers {
            Some(above) if tokens > THRESHOLD => {
                (THRESHOLD as f64 * base + (tokens - THRESHOLD) as f64 * above[tier]) / 1e6
            }
            _ => tokens as f64 * base / 1e6,
        }
    };
    Some(
        part(usage.input_tokens, price.input, 0)
            + part(usage.output_tokens, price.output, 1)
            + part(write_5m, price.cache_write_5m, 2)
            + part(write_1h, price.cache_write_1h, 3)
            + part(usage.cache_read_input_tokens, price.cache_read, 4),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One response of 300k input, 250k cache-write (5 minutes), 300k cache-read and 250k output
    /// tokens, as ccusage 20.0.24 prices it (`session --json --offline`) for each model.
    #[test]
    fn a_long_context_response_costs_what_ccusage_says() {
        let usage = Usage {
            input_tokens: 300_000,
            cache_creation_input_tokens: 250_000,
            cache_read_input_tokens: 300_000,
            output_tokens: 250_000,
            ..Usage::default()
        };
        for (model, ccusage) in [
            ("claude-opus-4-7", 9.4625),
            ("claude-opus-4-6", 9.4625),
            ("claude-sonnet-4-6", 5.6775),
            ("claude-sonnet-4-5-20250929", 6.57),
            ("claude-sonnet-4-20250514", 6.57),
            ("claude-opus-4-1-20250805", 28.3875),
            ("claude-haiku-4-5-20251001", 1.8925),
        ] {
            let cost = cost(model, &usage).unwrap();
            assert!((cost - ccusage).abs() < 1e-9, "{model}: {cost}, ccusage {ccusage}");
        }
    }

    #[test]
    fn gemini_and_qwen_models_have_their_list_prices() {
        assert_eq!(price_of("gemini-2.5-pro").map(|p| (p.input, p.cache_read, p.output)), Some((1.25, 0.125, 10.0)));
        assert_eq!(price_of("models/gemini-2.5-flash-lite").map(|p| p.output), Some(0.4));
        assert_eq!(price_of("gemini-2.5-flash").map(|p| p.output), Some(2.5));
        assert_eq!(price_of("gemini-3-flash-preview").map(|p| p.input), Some(0.5));
        assert_eq!(price_of("qwen3-coder-plus").map(|p| p.output), Some(5.0));
        // 1M uncached input, 1M cached and 1M output of Gemini 2.5 Pro.
        let usage = Usage {
            input_tokens: 1_000_000,
            cache_read_input_tokens: 1_000_000,
            output_tokens: 1_000_000,
            ..Usage::default()
        };
        let cost = cost("gemini-2.5-pro", &usage).unwrap();
        assert!((cost - (1.25 + 0.125 + 10.0)).abs() < 1e-9, "{cost}");
        assert_eq!(price_of("gemma-3-27b"), None, "an unknown model has no price");
    }

    #[test]
    fn one_hour_cache_writes_cost_twice_the_input_rate() {
        let usage = Usage {
            input_tokens: 15,
            output_tokens: 3,
            cache_creation_input_tokens: 42176,
            cache_read_input_tokens: 34159,
            cache_creation_1h: 42176,
            ..Usage::default()
        };
        let cost = cost("claude-sonnet-4-5-20250929", &usage).unwrap();
        assert!((cost - 0.2633937).abs() < 1e-9, "{cost}");
        assert_eq!(super::cost("gpt-unknown", &usage), None);
        assert_eq!(super::cost("<synthetic>", &usage), Some(0.0));
    }

    #[test]
    fn openai_models_have_their_own_cached_rate() {
        let usage = Usage {
            input_tokens: 1_000_000,
            cache_read_input_tokens: 1_000_000,
            output_tokens: 100_000,
            ..Usage::default()
        };
        let cost = cost("gpt-5-codex", &usage).unwrap();
        assert!((cost - (1.25 + 0.125 + 1.0)).abs() < 1e-9, "{cost}");
        assert_eq!(price_of("openai/gpt-5.1-codex-mini").map(|p| p.output), Some(2.0));
        assert_eq!(price_of("o4-mini-2025-04-16").map(|p| p.input), Some(1.1));
        assert_eq!(price_of("gpt-4.1").map(|p| p.cache_read), Some(0.5));
        assert_eq!(price_of("qwen3:8b"), None);
    }

    #[test]
    fn claude_versions_with_dots_have_their_price() {
        assert_eq!(price_of("claude-haiku-4.5"), price_of("claude-haiku-4-5"));
        assert_eq!(price_of("claude-sonnet-4.5"), price_of("claude-sonnet-4-5-20250929"));
        assert_eq!(price_of("claude-opus-4.7-1m-internal"), price_of("claude-opus-4-7"));
        assert_eq!(price_of("claude-opus-4.7").map(|p| p.input), Some(5.0), "not Opus 4's");
        assert_eq!(price_of("us.anthropic.claude-3-5-sonnet-20240620-v1:0").map(|p| p.input), Some(3.0));
        // OpenAI ids keep their dots.
        assert_eq!(price_of("gpt-5.2").map(|p| p.input), Some(1.75));
        assert_eq!(price_of("gpt-4.1").map(|p| p.cache_read), Some(0.5));
    }
}
