//! Token usage as the formats count it (SPEC 4 `usage`): per session, per turn and per model.
//!
//! A format decides what counts once (one API message split over several lines, a cumulative
//! counter, a fork's copied history: SPEC 2.4, 2.5) and adds each count here exactly once. This
//! book only sums; subtree totals are made from it when the report is built. Prices are not
//! known here; a cost the log itself recorded (OpenCode's, SPEC 2.7) is summed with its tokens
//! and stands where the report prices them (`Prices::costed`).

use crate::intern::{HashMap, Interner, Sym};
use crate::report::Usage;

#[derive(Debug, Default, Clone)]
pub struct UsageBook {
    /// By turn index (`Turns::list`), with the turn's model (`MIXED` when it used several,
    /// `NO_TURN` for a turn that counted nothing): a list, since a turn is counted soon after
    /// it starts and most turns count (56 bytes a turn, where a map's entries took 90 to 180).
    /// A session's own tokens are its models' (`by_model`): no tally of its own.
    by_turn: Vec<(Tally, Sym)>,
    /// The turns that used several models: each model's share, so each is priced at its own.
    /// A list held in the bytes it has (a `Vec` grown from one share to four: a generated Gemini
    /// CLI tree's 213,000 turns of two models held 72 MB of shares, 30 now); a turn's models are
    /// few and each comes once.
    mixed: HashMap<u32, Box<[(Sym, Tally)]>>,
    /// By session and model (a model symbol of `models`).
    by_model: HashMap<(Sym, Sym), Tally>,
    models: Interner,
    /// By record: the tokens of a model call whose log gives it a line of its own (Codex,
    /// OpenCode), for the transcript's row of that line (`add_call`, `note_call`). Those added
    /// in record order (a log's, as it is read) are a list, ascending, a third of the bytes a
    /// map of `Usage`s took (a Codex log has a call in four lines); any other is in a map.
    calls: Vec<Call>,
    late_calls: HashMap<u32, Call>,
}

/// A `Usage`'s four counts and its cost in 40 bytes, where a `Usage` takes 80: the cost NaN for
/// none (a JSON number is never NaN, and a sum of them is NaN only when costs beyond ±1.8e308 of
/// both signs overflow to both infinities: such a sum, written as JSON, is `null` either way).
/// What the book's tallies and calls hold, and what a format holds of tokens until it counts
/// them (OpenCode's messages, until the store is settled).
#[derive(Debug, Clone, Copy)]
pub struct Counts {
    tokens: [u64; 4],
    cost: f64,
}

impl Default for Counts {
    fn default() -> Self {
        Counts { tokens: [0; 4], cost: f64::NAN }
    }
}

impl Counts {
    /// `u`'s counts and cost (its unpriced part aside).
    pub fn of(u: &Usage) -> Counts {
        Counts { tokens: [u.input, u.output, u.cache_read, u.cache_write], cost: u.cost.unwrap_or(f64::NAN) }
    }

    /// Its `Usage`, with no unpriced part.
    pub fn usage(&self) -> Usage {
        let [input, output, cache_read, cache_write] = self.tokens;
        let cost = (!self.cost.is_nan()).then_some(self.cost);
        Usage { input, output, cache_read, cache_write, cost, unpriced: None }
    }
}

/// A sum of `Usage`s as `Usage::add_costed` makes it, in 48 bytes where a `Usage` takes 80: a
/// book holds one a session, one a turn and one a session and model (a Gemini CLI tree of 20,000
/// sessions held 19 MB of them). An unpriced part (a log's usage has none) is boxed.
#[derive(Debug, Clone, Default)]
pub(crate) struct Tally {
    counts: Counts,
    unpriced: Option<Box<crate::report::Unpriced>>,
}

impl Tally {
    pub(crate) fn of(u: Usage) -> Tally {
        Tally { counts: Counts::of(&u), unpriced: u.unpriced.map(Box::new) }
    }

    /// `Usage::add_costed`, on the tally.
    pub(crate) fn add(&mut self, u: &Usage) {
        let mut sum = self.usage();
        sum.add_costed(u);
        *self = Tally::of(sum);
    }

    pub(crate) fn usage(&self) -> Usage {
        Usage { unpriced: self.unpriced.as_deref().cloned(), ..self.counts.usage() }
    }

    /// `Usage::is_zero`: no tokens (whatever its cost).
    fn is_zero(&self) -> bool {
        self.counts.tokens == [0; 4]
    }
}

/// A tally for each session, by symbol (a session's symbol is its place in the analysis's
/// interner, so the list is as long as the sessions are many): what a report holds of each
/// session's own tokens and its subtree's. A tally with no tokens is none, as a report shows
/// none: 48 bytes a session where a map of `Usage`s took 90 to 180 (a quarter million Copilot
/// sessions held 90 MB in the two maps).
#[derive(Debug, Clone, Default)]
pub(crate) struct SessionTallies(Vec<Tally>);

impl SessionTallies {
    /// Room for the sessions below `n`.
    pub(crate) fn with_sessions(n: usize) -> SessionTallies {
        SessionTallies(vec![Tally::default(); n])
    }

    /// The usage of `s`, `None` when it has no tokens.
    pub(crate) fn get(&self, s: Sym) -> Option<Usage> {
        self.0.get(s.0 as usize).filter(|t| !t.is_zero()).map(Tally::usage)
    }

    /// The tally of `s`, made when `s` is beyond the list.
    pub(crate) fn entry(&mut self, s: Sym) -> &mut Tally {
        let i = s.0 as usize;
        if self.0.len() <= i {
            self.0.resize(i + 1, Tally::default());
        }
        &mut self.0[i]
    }
}

/// A model call's tokens, as `add_call` was given them (a log's usage has no `unpriced` part:
/// that is made when the report prices it), and its model (56 bytes).
#[derive(Debug, Clone)]
struct Call {
    record: u32,
    model: Sym,
    usage: Tally,
}

impl Call {
    fn of(record: u32, model: Sym, usage: Usage) -> Call {
        Call { record, model, usage: Tally::of(usage) }
    }
}

impl UsageBook {
    /// Count `usage` once for `session`, its turn `turn` (an index into `Turns::list`) when it
    /// is in one, and `model` when the log names it.
    pub fn add(&mut self, session: Sym, turn: Option<usize>, model: Option<&str>, usage: Usage) {
        if usage.is_zero() {
            return;
        }
        let m = self.models.intern(model.filter(|m| !m.is_empty()).unwrap_or(UNKNOWN_MODEL));
        if let Some(t) = turn.and_then(|t| u32::try_from(t).ok()) {
            let e = turn_entry(&mut self.by_turn, t);
            if e.1 == NO_TURN {
                e.1 = m;
            }
            if e.1 != m && e.1 != MIXED {
                // What the turn counted so far was all its first model's.
                self.mixed.insert(t, Box::new([(e.1, e.0.clone())]));
                e.1 = MIXED;
            }
            e.0.add(&usage);
            if e.1 == MIXED {
                let shares = self.mixed.entry(t).or_default();
                match shares.iter_mut().find(|(s, _)| *s == m) {
                    Some((_, u)) => u.add(&usage),
                    None => {
                        let mut share = Tally::default();
                        share.add(&usage);
                        let mut list = std::mem::take(shares).into_vec();
                        list.reserve_exact(1);
                        list.push((m, share));
                        *shares = list.into_boxed_slice();
                    }
                }
            }
        }
        self.by_model.entry((session, m)).or_default().add(&usage);
    }

    /// `add`, for a model call whose tokens are the line `record` of their own: the transcript
    /// shows them there (`call`).
    pub fn add_call(&mut self, record: u32, session: Sym, turn: Option<usize>, model: Option<&str>, usage: Usage) {
        self.add(session, turn, model, usage.clone());
        let m = self.models.intern(model.filter(|m| !m.is_empty()).unwrap_or(UNKNOWN_MODEL));
        self.put_call(Call::of(record, m, usage));
    }

    /// A model call's tokens noted at its line `record` as it is read, before what it counts
    /// for is known (an OpenCode step-finish part: its session's turn and its message's model
    /// are known once the store is settled): `count_call` counts it then, `forget_calls` takes
    /// back those that count for nothing. Held once, here, in record order.
    pub fn note_call(&mut self, record: u32, usage: Usage) {
        let m = self.models.intern(UNKNOWN_MODEL);
        self.put_call(Call::of(record, m, usage));
    }

    /// `add` of the call noted at `record` (`note_call`), for `model`: as `add_call` would have
    /// counted it. Its tokens, or `None` when none was noted there.
    pub fn count_call(&mut self, record: u32, session: Sym, turn: Option<usize>, model: Option<&str>) -> Option<Usage> {
        let call = match self.calls.binary_search_by_key(&record, |c| c.record) {
            Ok(i) => &mut self.calls[i],
            Err(_) => self.late_calls.get_mut(&record)?,
        };
        // Interned only when a call was noted there: a record with none adds no model name.
        call.model = self.models.intern(model.filter(|m| !m.is_empty()).unwrap_or(UNKNOWN_MODEL));
        let usage = call.usage.usage();
        self.add(session, turn, model, usage.clone());
        Some(usage)
    }

    /// Take back the calls noted at `records` (ascending) that were never counted.
    pub fn forget_calls(&mut self, records: &[u32]) {
        if records.is_empty() {
            return;
        }
        self.calls.retain(|c| records.binary_search(&c.record).is_err());
        self.late_calls.retain(|r, _| records.binary_search(r).is_err());
    }

    fn put_call(&mut self, call: Call) {
        let record = call.record;
        // As a map's insert: a record's later call replaces its earlier one. A record before
        // the list's last is never after it later: the two hold no record twice.
        match self.calls.last() {
            Some(last) if last.record >= record => match self.calls.binary_search_by_key(&record, |c| c.record) {
                Ok(i) => self.calls[i] = call,
                Err(_) => {
                    self.late_calls.insert(record, call);
                }
            },
            _ => self.calls.push(call),
        }
    }

    /// The tokens a model call's line `record` counted, and the model when the log names it.
    pub fn call(&self, record: u32) -> Option<(Usage, Option<&str>)> {
        let c = match self.calls.binary_search_by_key(&record, |c| c.record) {
            Ok(i) => &self.calls[i],
            Err(_) => self.late_calls.get(&record)?,
        };
        let name = self.models.name(c.model);
        Some((c.usage.usage(), (name != UNKNOWN_MODEL).then_some(name)))
    }

    pub fn is_empty(&self) -> bool {
        self.by_model.is_empty()
    }

    /// A session's tokens: its models' summed, in model name order.
    pub fn session(&self, s: Sym) -> Option<Usage> {
        let mut models: Vec<(&str, &Tally)> =
            self.by_model_tallies().filter(|&(x, _, _)| x == s).map(|(_, m, u)| (m, u)).collect();
        models.sort_by(|a, b| a.0.cmp(b.0));
        models.into_iter().map(|(_, u)| u.usage()).reduce(|mut sum, u| {
            sum.add_costed(&u);
            sum
        })
    }

    pub fn turn(&self, turn: usize) -> Option<Usage> {
        self.counted_turn(turn).map(|e| e.0.usage())
    }

    /// Turn `turn`'s tally and model, when it counted anything.
    fn counted_turn(&self, turn: usize) -> Option<&(Tally, Sym)> {
        self.by_turn.get(turn).filter(|e| e.1 != NO_TURN)
    }

    /// A turn's tokens by model, each model once, in name order (to be priced each at its own).
    pub fn turn_models(&self, turn: usize) -> Vec<(&str, Usage)> {
        let Some(t) = u32::try_from(turn).ok() else { return Vec::new() };
        let mut out: Vec<(&str, Usage)> = match (self.counted_turn(turn), self.mixed.get(&t)) {
            (Some((u, m)), _) if *m != MIXED => vec![(self.models.name(*m), u.usage())],
            (_, Some(shares)) => shares.iter().map(|(m, u)| (self.models.name(*m), u.usage())).collect(),
            _ => Vec::new(),
        };
        out.sort_by(|a, b| a.0.cmp(b.0));
        out
    }

    /// Every (session, model, usage), in no order.
    pub fn by_model(&self) -> impl Iterator<Item = (Sym, &str, Usage)> + '_ {
        self.by_model_tallies().map(|(s, m, u)| (s, m, u.usage()))
    }

    /// `by_model`, each usage as the book holds it (32 bytes a row to sort, where a `Usage`
    /// takes 80).
    pub(crate) fn by_model_tallies(&self) -> impl Iterator<Item = (Sym, &str, &Tally)> + '_ {
        self.by_model.iter().map(|(&(s, m), u)| (s, self.models.name(m), u))
    }
}

/// A turn whose tokens came from several models.
const MIXED: Sym = Sym(u32::MAX);

/// The tally of turn `t` in `by_turn`, made (counting nothing, `NO_TURN`) when it is not yet:
/// the list grows by a quarter, not doubled, as turns come in order.
fn turn_entry(by_turn: &mut Vec<(Tally, Sym)>, t: u32) -> &mut (Tally, Sym) {
    let i = t as usize;
    if by_turn.len() <= i {
        let want = i + 1;
        if want > by_turn.capacity() {
            let cap = by_turn.capacity();
            by_turn.reserve_exact(want.max(cap + cap / 4).max(64) - by_turn.len());
        }
        by_turn.resize(want, (Tally::default(), NO_TURN));
    }
    &mut by_turn[i]
}

/// A turn that counted nothing (`by_turn`).
const NO_TURN: Sym = Sym(u32::MAX - 1);

/// What a count whose log names no model is filed under.
pub const UNKNOWN_MODEL: &str = "(unknown model)";

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(n: u64) -> Usage {
        Usage {
            input: n,
            output: 2 * n,
            cache_read: 3 * n,
            cache_write: 4 * n,
            cost: Some(n as f64 / 8.0),
            unpriced: None,
        }
    }

    /// A call is found by its record whatever order the records came in, a record's later call
    /// replaces its earlier one (as a map's insert does), and a record with no call has none.
    #[test]
    fn calls_are_found_by_record_in_any_order() {
        let mut book = UsageBook::default();
        let s = Sym(0);
        for (record, n) in [(10, 1), (20, 2), (15, 3), (5, 4), (20, 5), (30, 6)] {
            book.add_call(record, s, None, if n % 2 == 0 { Some("m-even") } else { None }, tokens(n));
        }
        assert_eq!(book.call(5), Some((tokens(4), Some("m-even"))));
        assert_eq!(book.call(10), Some((tokens(1), None)));
        assert_eq!(book.call(15), Some((tokens(3), None)));
        assert_eq!(book.call(20), Some((tokens(5), None)));
        assert_eq!(book.call(30), Some((tokens(6), Some("m-even"))));
        assert_eq!(book.call(11), None);
        assert_eq!(book.call(0), None);
        // Each call counted once in the session, the replaced one too (as `add` was called).
        assert_eq!(book.session(s).map(|u| u.input), Some(1 + 2 + 3 + 4 + 5 + 6));
    }

    /// A call noted as it is read counts when it is counted, for the model and turn given then,
    /// as `add_call` would have; one taken back is no call; a record with nothing noted counts
    /// nothing.
    #[test]
    fn noted_calls_count_when_counted() {
        let mut book = UsageBook::default();
        let s = Sym(1);
        for (record, n) in [(3, 1), (7, 2), (9, 3)] {
            book.note_call(record, tokens(n));
        }
        assert_eq!(book.call(7), Some((tokens(2), None)), "noted: its tokens, no model yet");
        assert!(book.session(s).is_none(), "noted is not counted");
        assert_eq!(book.count_call(7, s, Some(0), Some("m")), Some(tokens(2)));
        assert_eq!(book.count_call(3, s, Some(0), None), Some(tokens(1)));
        assert_eq!(book.count_call(8, s, Some(0), Some("m")), None, "nothing noted there");
        book.forget_calls(&[9]);
        assert_eq!(book.call(7), Some((tokens(2), Some("m"))));
        assert_eq!(book.call(9), None);
        let mut counted = UsageBook::default();
        counted.add_call(7, s, Some(0), Some("m"), tokens(2));
        counted.add_call(3, s, Some(0), None, tokens(1));
        assert_eq!(book.session(s), counted.session(s));
        assert_eq!(book.turn(0), counted.turn(0));
        assert_eq!(book.turn_models(0), counted.turn_models(0));
    }
}
