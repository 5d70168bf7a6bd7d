//! What tokens cost: a dated price table per model (SPEC 4 `usage`: a cost only where the price
//! is known, with the table's date).
//!
//! The bundled table is LiteLLM's model price list (MIT), trimmed to the chat models' four token
//! prices (`prices.json`, with its source, date and license). A user's own table (the same shape,
//! or LiteLLM's whole file) overrides it model by model. A model is found by its name as the log
//! gives it, then without a provider prefix (`anthropic/`), with dots as dashes (`claude-sonnet-4.5`)
//! and without a date suffix (`-20250929`), then by its normal form, which the table's names are
//! indexed by too (SPEC 4): no routing prefix (`bedrock/`, `us.`, `anthropic.`), no deployment
//! suffix (`-v1:0`), `@` and dots as dashes, so `claude-sonnet-4-20250514` finds
//! `anthropic.claude-sonnet-4-20250514-v1:0`. A model not found has no price (never a price of
//! zero); what a sum over models does with it is the report's business.

use crate::intern::HashMap;
use crate::report::{PriceSource, Unpriced, Usage};

/// US dollars per token.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Price {
    pub input: f64,
    pub output: f64,
    /// `None`: the model has no cached-input price; cached tokens are then priced as input.
    pub cache_read: Option<f64>,
    pub cache_write: Option<f64>,
}

impl Price {
    /// What `u` costs at this price.
    pub fn cost(&self, u: &Usage) -> f64 {
        u.input as f64 * self.input
            + u.output as f64 * self.output
            + u.cache_read as f64 * self.cache_read.unwrap_or(self.input)
            + u.cache_write as f64 * self.cache_write.unwrap_or(self.input)
    }
}

#[derive(Debug, Clone)]
pub struct PriceTable {
    prices: HashMap<String, Price>,
    pub about: PriceSource,
    /// Each name's normal form (`normal`) → the table's name it stands for: of several, the
    /// shortest, then the first in name order (the plain name before a region's copy of it).
    normals: HashMap<String, String>,
    /// The prices found for names the table has only in a near form: finding one looks at every
    /// name of the table, and a report asks for each session's models (a quarter million times
    /// for a 1 GiB Copilot log).
    near: Near,
}

/// Names looked up in a near form, and what was found (`PriceTable::price`).
#[derive(Debug, Default)]
struct Near(std::sync::Mutex<HashMap<String, Option<Price>>>);

impl Clone for Near {
    fn clone(&self) -> Self {
        Near::default()
    }
}

/// Names kept in `Near` at most (a log that names ever new models does not grow it for ever).
const NEAR_KEPT: usize = 4096;

const BUNDLED: &str = include_str!("prices.json");

fn num(v: &serde_json::Value) -> Option<f64> {
    v.as_f64().filter(|x| x.is_finite() && *x >= 0.0)
}

impl PriceTable {
    /// The table that ships with Arbor.
    pub fn bundled() -> PriceTable {
        Self::bundled_ref().clone()
    }

    /// A table with no prices (for a report with no tokens).
    pub fn empty_ref() -> &'static PriceTable {
        static EMPTY: std::sync::OnceLock<PriceTable> = std::sync::OnceLock::new();
        EMPTY.get_or_init(|| PriceTable {
            prices: HashMap::default(),
            about: PriceSource { source: String::new(), date: String::new() },
            normals: HashMap::default(),
            near: Near::default(),
        })
    }

    /// The table that ships with Arbor, parsed once.
    pub fn bundled_ref() -> &'static PriceTable {
        static TABLE: std::sync::OnceLock<PriceTable> = std::sync::OnceLock::new();
        TABLE.get_or_init(|| PriceTable::parse(BUNDLED).expect("the bundled price table parses"))
    }

    /// A table from JSON: Arbor's shape (`{source, date, prices: {model: [input, output,
    /// cache_read, cache_write]}}`) or LiteLLM's (`{model: {input_cost_per_token, ...}}`).
    pub fn parse(text: &str) -> Result<PriceTable, String> {
        let v: serde_json::Value = serde_json::from_str(text).map_err(|e| format!("not a JSON price table: {e}"))?;
        let obj = v.as_object().ok_or("a price table is a JSON object")?;
        let mut prices = HashMap::default();
        if let Some(list) = obj.get("prices").and_then(|p| p.as_object()) {
            for (model, p) in list {
                let Some(a) = p.as_array() else { continue };
                let (Some(input), Some(output)) = (a.first().and_then(num), a.get(1).and_then(num)) else { continue };
                let cache_read = a.get(2).and_then(num);
                let cache_write = a.get(3).and_then(num);
                prices.insert(model.clone(), Price { input, output, cache_read, cache_write });
            }
        } else {
            for (model, p) in obj {
                let field = |k: &str| p.get(k).and_then(num);
                let (Some(input), Some(output)) = (field("input_cost_per_token"), field("output_cost_per_token"))
                else {
                    continue;
                };
                prices.insert(
                    model.clone(),
                    Price {
                        input,
                        output,
                        cache_read: field("cache_read_input_token_cost"),
                        cache_write: field("cache_creation_input_token_cost"),
                    },
                );
            }
        }
        let text = |k: &str| obj.get(k).and_then(|s| s.as_str()).unwrap_or("").to_owned();
        let normals = normals(&prices);
        Ok(PriceTable {
            prices,
            about: PriceSource { source: text("source"), date: text("date") },
            normals,
            near: Near::default(),
        })
    }

    /// This table, with `other`'s prices over it; the source says both.
    pub fn overridden_by(mut self, other: PriceTable) -> PriceTable {
        let n = other.prices.len();
        self.prices.extend(other.prices);
        self.normals = normals(&self.prices);
        self.near = Near::default();
        let theirs = if other.about.source.is_empty() { "a price file".to_owned() } else { other.about.source };
        self.about.source = format!("{theirs} ({n} models), over {}", self.about.source);
        if !other.about.date.is_empty() {
            self.about.date = other.about.date;
        }
        self
    }

    pub fn len(&self) -> usize {
        self.prices.len()
    }

    pub fn is_empty(&self) -> bool {
        self.prices.is_empty()
    }

    /// `u`, one model's tokens, with what they cost at this table's price; a model it has no
    /// price for leaves them `unpriced` (never a cost of zero). Tokens that come with the cost
    /// their log recorded keep it.
    pub fn costed(&self, model: &str, mut u: Usage) -> Usage {
        // A cost the log recorded for these tokens (OpenCode's, SPEC 2.7) is what was billed.
        if u.cost.is_some() {
            u.unpriced = None;
            return u;
        }
        match self.price(model) {
            Some(p) => {
                u.cost = Some(p.cost(&u));
                u.unpriced = None;
            }
            None => {
                u.cost = None;
                u.unpriced = (!u.is_zero()).then(|| Unpriced { tokens: u.tokens(), models: vec![model.to_owned()] });
            }
        }
        u
    }

    /// The price of `model`, by its name as the log gives it or a near form of it.
    pub fn price(&self, model: &str) -> Option<Price> {
        let exact = |m: &str| self.prices.get(m).copied();
        let m = model.trim();
        if let Some(p) = exact(m) {
            return Some(p);
        }
        let mut near = self.near.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(&p) = near.get(m) {
            return p;
        }
        let found = self.near_price(m);
        if near.len() >= NEAR_KEPT {
            near.clear();
        }
        near.insert(m.to_owned(), found);
        found
    }

    /// The price of a name the table has only in a near form.
    fn near_price(&self, m: &str) -> Option<Price> {
        let exact = |m: &str| self.prices.get(m).copied();
        let bare = m.rsplit('/').next().unwrap_or(m);
        let dashed = bare.replace('.', "-");
        // A trailing date (`-20250929`, `-2025-09-29`) names a snapshot of the same model.
        let undated = {
            let b = dashed.as_str();
            let cut = b
                .rfind('-')
                .filter(|&i| b[i + 1..].len() == 8 && b[i + 1..].bytes().all(|c| c.is_ascii_digit()))
                .unwrap_or(b.len());
            b[..cut].to_owned()
        };
        let near = [bare, dashed.as_str(), undated.as_str()].into_iter().find_map(exact);
        near.or_else(|| {
            // A name the table has only under a provider (`deepseek/deepseek-v4-flash`): the first
            // such in name order, so the choice does not depend on the map's order.
            let mut under: Vec<(&String, &Price)> =
                self.prices.iter().filter(|(k, _)| k.rsplit('/').next() == Some(bare)).collect();
            under.sort_by(|x, y| x.0.cmp(y.0));
            under.first().map(|(_, p)| **p)
        })
        .or_else(|| {
            // Both sides in their normal form: a deployment's name for a plain one, or the
            // other way round; then the normal form without its date.
            let n = normal(m);
            let bare_date = without_date(&n);
            let found =
                [n.as_str(), bare_date].into_iter().find_map(|k| self.normals.get(k).and_then(|name| exact(name)));
            found
        })
    }
}

/// Region prefixes of cross-region deployments (`us.anthropic.claude-…`).
const REGIONS: &[&str] = &["us.", "eu.", "apac.", "au.", "jp.", "ca.", "global.", "us-gov."];
/// Vendor prefixes of hosted deployments (`anthropic.claude-…` on Bedrock).
const VENDORS: &[&str] =
    &["anthropic.", "openai.", "meta.", "amazon.", "mistral.", "cohere.", "deepseek.", "qwen.", "google."];

/// A model name in the form its deployments share: lower case, the part after the last `/`,
/// without a region and vendor prefix (`us.anthropic.`) or a version suffix (`-v1:0`, `-v2`),
/// `@` and `.` as `-` (`claude-sonnet-4@20250514` → `claude-sonnet-4-20250514`).
fn normal(name: &str) -> String {
    let lower = name.trim().to_ascii_lowercase();
    let mut s = lower.rsplit('/').next().unwrap_or(&lower);
    if let Some(r) = REGIONS.iter().find_map(|p| s.strip_prefix(p)) {
        s = r;
    }
    if let Some(r) = VENDORS.iter().find_map(|p| s.strip_prefix(p)) {
        s = r;
    }
    // `-v1:0`, `-v1`, `:0`: the deployment's version, not the model's.
    if let Some(i) = s.rfind(':').filter(|&i| s[i + 1..].bytes().all(|c| c.is_ascii_digit())) {
        s = &s[..i];
    }
    if let Some(i) = s.rfind("-v").filter(|&i| i + 2 < s.len() && s[i + 2..].bytes().all(|c| c.is_ascii_digit())) {
        s = &s[..i];
    }
    s.replace(['@', '.'], "-")
}

/// A normal name without a trailing date (`-20250514`).
fn without_date(n: &str) -> &str {
    n.rfind('-')
        .filter(|&i| n[i + 1..].len() == 8 && n[i + 1..].bytes().all(|c| c.is_ascii_digit()))
        .map_or(n, |i| &n[..i])
}

/// The normal form of every name of a table → the name it stands for.
fn normals(prices: &HashMap<String, Price>) -> HashMap<String, String> {
    let mut out: HashMap<String, String> = HashMap::default();
    for name in prices.keys() {
        let n = normal(name);
        let better = |old: &String| (name.len(), name.as_str()) < (old.len(), old.as_str());
        match out.get(&n) {
            Some(old) if !better(old) => {}
            _ => {
                out.insert(n, name.clone());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundled_table_is_dated_and_prices_the_harnesses_models() {
        let t = PriceTable::bundled();
        assert!(t.len() > 1000, "{}", t.len());
        assert!(t.about.source.contains("litellm"), "{}", t.about.source);
        assert!(!t.about.date.is_empty());
        let sonnet = t.price("claude-sonnet-4-5").expect("a Claude model");
        assert_eq!(t.price("claude-sonnet-4-5-20250929"), Some(sonnet), "a dated snapshot");
        assert_eq!(t.price("anthropic/claude-sonnet-4.5"), Some(sonnet), "a provider prefix and dots");
        assert!(t.price("gpt-5-codex").is_some());
        assert_eq!(t.price("no-such-model-anywhere"), None);
    }

    #[test]
    fn names_are_matched_in_their_normal_form_both_ways() {
        let t = PriceTable::bundled();
        let bedrock = t.price("anthropic.claude-sonnet-4-20250514-v1:0").expect("in the table as written");
        assert_eq!(t.price("claude-sonnet-4-20250514"), Some(bedrock), "the plain name finds the deployment's");
        assert_eq!(t.price("claude-sonnet-4@20250514"), Some(bedrock), "a Vertex version suffix");
        assert!(
            t.price("bedrock/ca.anthropic.claude-sonnet-4-20250514-v2:0").is_some(),
            "a region and version it lacks"
        );
        assert_eq!(normal("us.anthropic.claude-sonnet-4-20250514-v1:0"), "claude-sonnet-4-20250514");
        assert_eq!(normal("vertex_ai/claude-opus-4@20250514"), "claude-opus-4-20250514");
        assert_eq!(normal("gpt-5.1-codex"), "gpt-5-1-codex");
        // An exact entry wins over a near one.
        let mine =
            PriceTable::parse(r#"{"prices":{"claude-x-20250101":[1,1],"anthropic.claude-x-20250101-v1:0":[2,2]}}"#)
                .unwrap();
        assert_eq!(mine.price("claude-x-20250101").map(|p| p.input), Some(1.0));
        assert_eq!(mine.price("anthropic.claude-x-20250101-v1:0").map(|p| p.input), Some(2.0));
        assert_eq!(
            mine.price("eu.anthropic.claude-x-20250101-v1:0").map(|p| p.input),
            Some(1.0),
            "the shortest name of a normal form"
        );
        assert_eq!(mine.price("claude-y"), None);
    }

    #[test]
    fn a_cost_counts_each_kind_of_token_at_its_price() {
        let p = Price { input: 1e-6, output: 4e-6, cache_read: Some(1e-7), cache_write: None };
        let u = Usage { input: 1000, output: 100, cache_read: 10_000, cache_write: 200, cost: None, unpriced: None };
        let want = 1000.0 * 1e-6 + 100.0 * 4e-6 + 10_000.0 * 1e-7 + 200.0 * 1e-6;
        assert!((p.cost(&u) - want).abs() < 1e-12);
    }

    #[test]
    fn a_user_table_overrides_the_bundled_one_model_by_model() {
        let mine = PriceTable::parse(r#"{"source":"my prices","date":"2026-12-01","prices":{"claude-sonnet-4-5":[1,2,null,null],"in-house":[0.5,0.5]}}"#).unwrap();
        let t = PriceTable::bundled().overridden_by(mine);
        assert_eq!(t.price("claude-sonnet-4-5").map(|p| p.input), Some(1.0));
        assert_eq!(t.price("in-house").map(|p| p.output), Some(0.5));
        assert!(t.price("gpt-5").is_some(), "the rest stays");
        assert!(t.about.source.starts_with("my prices"));
        // LiteLLM's own shape reads too.
        let litellm =
            PriceTable::parse(r#"{"m":{"input_cost_per_token":1e-6,"output_cost_per_token":2e-6,"mode":"chat"}}"#)
                .unwrap();
        assert_eq!(litellm.price("m").map(|p| p.output), Some(2e-6));
        assert!(PriceTable::parse("[1]").is_err());
    }
}
