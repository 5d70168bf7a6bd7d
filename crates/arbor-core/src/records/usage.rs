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
    by_session: HashMap<Sym, Usage>,
    /// By turn index (`Turns::list`), with the turn's model (`MIXED` when it used several).
    by_turn: HashMap<u32, (Usage, Sym)>,
    /// The turns that used several models: each model's share, so each is priced at its own.
    mixed: HashMap<u32, Vec<(Sym, Usage)>>,
    /// By session and model (a model symbol of `models`).
    by_model: HashMap<(Sym, Sym), Usage>,
    models: Interner,
    /// By record: the tokens of a model call whose log gives it a line of its own (Codex), with
    /// its model, for the transcript's row of that line (`add_call`).
    calls: HashMap<u32, (Usage, Sym)>,
}

impl UsageBook {
    /// Count `usage` once for `session`, its turn `turn` (an index into `Turns::list`) when it
    /// is in one, and `model` when the log names it.
    pub fn add(&mut self, session: Sym, turn: Option<usize>, model: Option<&str>, usage: Usage) {
        if usage.is_zero() {
            return;
        }
        self.by_session.entry(session).or_default().add_costed(&usage);
        let m = self.models.intern(model.filter(|m| !m.is_empty()).unwrap_or(UNKNOWN_MODEL));
        if let Some(t) = turn.and_then(|t| u32::try_from(t).ok()) {
            let e = self.by_turn.entry(t).or_insert((Usage::default(), m));
            if e.1 != m && e.1 != MIXED {
                // What the turn counted so far was all its first model's.
                self.mixed.insert(t, vec![(e.1, e.0.clone())]);
                e.1 = MIXED;
            }
            e.0.add_costed(&usage);
            if e.1 == MIXED {
                let shares = self.mixed.entry(t).or_default();
                match shares.iter_mut().find(|(s, _)| *s == m) {
                    Some((_, u)) => u.add_costed(&usage),
                    None => shares.push((m, usage.clone())),
                }
            }
        }
        self.by_model.entry((session, m)).or_default().add_costed(&usage);
    }

    /// `add`, for a model call whose tokens are the line `record` of their own: the transcript
    /// shows them there (`call`).
    pub fn add_call(&mut self, record: u32, session: Sym, turn: Option<usize>, model: Option<&str>, usage: Usage) {
        self.add(session, turn, model, usage.clone());
        let m = self.models.intern(model.filter(|m| !m.is_empty()).unwrap_or(UNKNOWN_MODEL));
        self.calls.insert(record, (usage, m));
    }

    /// The tokens a model call's line `record` counted, and the model when the log names it.
    pub fn call(&self, record: u32) -> Option<(Usage, Option<&str>)> {
        let (u, m) = self.calls.get(&record)?;
        let name = self.models.name(*m);
        Some((u.clone(), (name != UNKNOWN_MODEL).then_some(name)))
    }

    pub fn is_empty(&self) -> bool {
        self.by_session.is_empty()
    }

    pub fn session(&self, s: Sym) -> Option<Usage> {
        self.by_session.get(&s).cloned()
    }

    pub fn turn(&self, turn: usize) -> Option<Usage> {
        self.by_turn.get(&u32::try_from(turn).ok()?).map(|e| e.0.clone())
    }

    /// A turn's tokens by model, each model once, in name order (to be priced each at its own).
    pub fn turn_models(&self, turn: usize) -> Vec<(&str, Usage)> {
        let Some(t) = u32::try_from(turn).ok() else { return Vec::new() };
        let mut out: Vec<(&str, Usage)> = match (self.by_turn.get(&t), self.mixed.get(&t)) {
            (Some((u, m)), _) if *m != MIXED => vec![(self.models.name(*m), u.clone())],
            (_, Some(shares)) => shares.iter().map(|(m, u)| (self.models.name(*m), u.clone())).collect(),
            _ => Vec::new(),
        };
        out.sort_by(|a, b| a.0.cmp(b.0));
        out
    }

    /// Every (session, model, usage), in no order.
    pub fn by_model(&self) -> impl Iterator<Item = (Sym, &str, &Usage)> + '_ {
        self.by_model.iter().map(|(&(s, m), u)| (s, self.models.name(m), u))
    }
}

/// A turn whose tokens came from several models.
const MIXED: Sym = Sym(u32::MAX);

/// What a count whose log names no model is filed under.
pub const UNKNOWN_MODEL: &str = "(unknown model)";
