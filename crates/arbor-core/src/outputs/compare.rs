//! Comparing two runs (SPEC 6.3): the two delegation trees aligned root to root, then child to
//! child in order of spawn by what each agent is (its label, else its task's text); each aligned
//! pair with its deltas (duration, turns, steps, tool calls by tool name, tokens by kind, cost,
//! outcome, findings by code); sessions only on one side; totals; and the **divergence**, the
//! first item where an aligned pair's conversations differ (a prompt, a tool call's name or
//! arguments, a reply), with both places.
//!
//! Each side is a plain value here, made on a thread of its own: its report's parts for the
//! measures (without the texts a report reads back), and its records' parts read back for the
//! conversations on every core (only records that may hold a compared item,
//! `Format::may_compare`, read as `Format::compared_parts` says them), each item kept only as a
//! fingerprint (its kind, tool and print, `crate::vocab::print`: a reader may print a reply or a
//! tool call's arguments as it reads them, so that neither is copied nor read twice) until the
//! divergence is found; the parted pairs' items are read back after, each side on a core.

use std::borrow::Cow;
use std::collections::BTreeMap;

use crate::analysis::Analysis;
use crate::intern::HashMap;
use crate::report::{Outcome, Place, Usage};
use crate::transcript::{Index, PartKind};
use crate::vocab::print;

/// A measure a comparison may leave out of whether two runs are the same (`--ignore`): it is
/// still reported, but a difference in it does not make the runs differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize, ts_rs::TS)]
#[serde(rename_all = "kebab-case")]
#[ts(rename = "CompareMeasure")]
pub enum Measure {
    Duration,
    Turns,
    Steps,
    ToolCalls,
    Tokens,
    Cost,
    Outcome,
    Findings,
    /// The conversations (a divergence).
    Conversation,
    /// Sessions on one side only.
    Sessions,
}

impl Measure {
    pub const ALL: [Measure; 10] = [
        Measure::Duration,
        Measure::Turns,
        Measure::Steps,
        Measure::ToolCalls,
        Measure::Tokens,
        Measure::Cost,
        Measure::Outcome,
        Measure::Findings,
        Measure::Conversation,
        Measure::Sessions,
    ];

    /// Its name in the JSON (`differs`) and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Measure::Duration => "duration",
            Measure::Turns => "turns",
            Measure::Steps => "steps",
            Measure::ToolCalls => "tool-calls",
            Measure::Tokens => "tokens",
            Measure::Cost => "cost",
            Measure::Outcome => "outcome",
            Measure::Findings => "findings",
            Measure::Conversation => "conversation",
            Measure::Sessions => "sessions",
        }
    }
}

/// A count on both sides (`null` on a side the session is not on) and B's change over A's.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, ts_rs::TS)]
pub struct CountDelta {
    #[ts(type = "number | null")]
    pub a: Option<u64>,
    #[ts(type = "number | null")]
    pub b: Option<u64>,
    #[ts(type = "number")]
    pub change: i64,
}

impl CountDelta {
    fn of(a: Option<u64>, b: Option<u64>) -> CountDelta {
        CountDelta { a, b, change: b.unwrap_or(0) as i64 - a.unwrap_or(0) as i64 }
    }

    fn differs(&self) -> bool {
        self.change != 0
    }
}

/// An amount (seconds, dollars) on both sides, B's change over A's, and that change as a fraction
/// of A's (`0.18`: 18 % more), when both sides have one.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize, ts_rs::TS)]
pub struct AmountDelta {
    pub a: Option<f64>,
    pub b: Option<f64>,
    pub change: Option<f64>,
    pub ratio: Option<f64>,
}

impl AmountDelta {
    fn of(a: Option<f64>, b: Option<f64>) -> AmountDelta {
        let change = match (a, b) {
            (Some(x), Some(y)) => Some(y - x),
            _ => None,
        };
        let ratio = match (a, change) {
            (Some(x), Some(c)) if x != 0.0 => Some(c / x),
            _ => None,
        };
        AmountDelta { a, b, change, ratio }
    }

    fn differs(&self) -> bool {
        match (self.a, self.b) {
            (Some(x), Some(y)) => (x - y).abs() > 1e-9 * x.abs().max(y.abs()).max(1.0),
            (None, None) => false,
            _ => true,
        }
    }
}

/// Tokens by kind, each a change.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, ts_rs::TS)]
pub struct TokenDeltas {
    pub input: CountDelta,
    pub output: CountDelta,
    pub cache_read: CountDelta,
    pub cache_write: CountDelta,
}

impl TokenDeltas {
    fn differs(&self) -> bool {
        [self.input, self.output, self.cache_read, self.cache_write].iter().any(CountDelta::differs)
    }
}

/// The two outcomes (the last run's).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, ts_rs::TS)]
pub struct Outcomes {
    pub a: Option<Outcome>,
    pub b: Option<Outcome>,
}

/// What changed from A to B, measure by measure.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, ts_rs::TS)]
pub struct PairDelta {
    /// Seconds from the first to the last time the session's records carry.
    pub duration: AmountDelta,
    pub turns: CountDelta,
    pub steps: CountDelta,
    /// By tool name, every tool either side called.
    pub tool_calls: BTreeMap<String, CountDelta>,
    pub tokens: TokenDeltas,
    /// US dollars, where the prices of every model are known.
    pub cost: AmountDelta,
    pub outcome: Outcomes,
    /// By finding code, every code either side has.
    pub findings: BTreeMap<String, CountDelta>,
    /// The measures that differ (those a comparison ignores left out).
    pub differs: Vec<Measure>,
}

/// One item of a conversation, at its place.
#[derive(Debug, Clone, PartialEq, serde::Serialize, ts_rs::TS)]
pub struct ComparedItem {
    pub session: String,
    /// Its row in the session's transcript.
    pub row: u32,
    pub at: Place,
    pub kind: PartKind,
    pub tool: Option<String>,
    /// Its text, cut to `EXCERPT` characters (`cut` then).
    pub text: String,
    pub cut: bool,
}

/// Where two conversations part.
#[derive(Debug, Clone, PartialEq, serde::Serialize, ts_rs::TS)]
pub struct Divergence {
    /// The pair (an index into `pairs`).
    pub pair: u32,
    /// What differs: `prompt`, `reply`, `tool` (a tool call's name), `arguments` (its
    /// arguments), `task` (a spawn's task), `kind` (one side has another kind of item there), or
    /// `ended` (one side's conversation ends there: its place is `null`).
    pub what: &'static str,
    /// The item on each side: the `n`th compared item of each conversation.
    pub a: Option<ComparedItem>,
    pub b: Option<ComparedItem>,
    /// How many items both conversations had the same before it.
    pub same_before: u32,
    /// The row each side's transcript is at there: its item's row, or on a side whose
    /// conversation ended, the row after its last compared item (where a view of it starts).
    pub row_a: u32,
    pub row_b: u32,
}

/// One aligned pair of sessions, or a session on one side alone.
#[derive(Debug, Clone, PartialEq, serde::Serialize, ts_rs::TS)]
pub struct ComparedPair {
    pub a: Option<String>,
    pub b: Option<String>,
    /// The pair its sessions are sub-agents of (an index into `pairs`).
    pub parent: Option<u32>,
    pub depth: u32,
    /// What the agent is: the label, else the beginning of its task.
    pub label: Option<String>,
    pub delta: PairDelta,
    /// Where the two conversations part (a pair of two sessions only).
    pub divergence: Option<Divergence>,
}

/// What a side of a comparison is.
#[derive(Debug, Clone, PartialEq, serde::Serialize, ts_rs::TS)]
pub struct ComparedRun {
    pub root: String,
    pub title: Option<String>,
    pub format: Option<String>,
    pub files: Vec<String>,
    pub sessions: u32,
}

/// Two runs compared (SPEC 6.3; `arbor diff --json`).
#[derive(Debug, Clone, PartialEq, serde::Serialize, ts_rs::TS)]
pub struct Comparison {
    pub a: ComparedRun,
    pub b: ComparedRun,
    /// The runs are the same by every measure not ignored.
    pub same: bool,
    /// Root first, then each pair's sub-agents after it, in order of spawn.
    pub pairs: Vec<ComparedPair>,
    /// The first divergence in `pairs`' order.
    pub divergence: Option<Divergence>,
    /// The two whole trees: durations of the roots, every other measure summed over the sessions.
    pub totals: PairDelta,
    /// The measures left out of `same` and `differs`.
    pub ignored: Vec<Measure>,
}

/// A comparison without its pairs, as the app receives it (`Comparison::into_head`): a run of
/// 235,000 sub-agents is as many pairs, ~300 MB of JSON in one answer, so the app asks for them a
/// window at a time (`PairsPage`).
#[derive(Debug, Clone, PartialEq, serde::Serialize, ts_rs::TS)]
pub struct ComparisonHead {
    pub a: ComparedRun,
    pub b: ComparedRun,
    pub same: bool,
    /// How many pairs there are.
    pub pairs: u32,
    pub divergence: Option<Divergence>,
    pub totals: PairDelta,
    pub ignored: Vec<Measure>,
    /// Every measure that differs, the totals' first, then each pair's in the pairs' order, each
    /// once (what the verdict names).
    pub differs: Vec<Measure>,
}

/// Pairs `offset..offset + rows.len()` of a comparison's `total` (the shape of the app's other
/// pages of rows; a comparison has one revision).
#[derive(Debug, Clone, PartialEq, serde::Serialize, ts_rs::TS)]
pub struct PairsPage {
    pub total: u32,
    pub offset: u32,
    pub revision: u32,
    pub rows: Vec<ComparedPair>,
}

impl Comparison {
    /// Its head, and its pairs apart (moved, not copied).
    pub fn into_head(self) -> (ComparisonHead, Vec<ComparedPair>) {
        let mut differs: Vec<Measure> = Vec::new();
        for m in self.totals.differs.iter().chain(self.pairs.iter().flat_map(|p| p.delta.differs.iter())) {
            if !differs.contains(m) {
                differs.push(*m);
            }
        }
        let head = ComparisonHead {
            a: self.a,
            b: self.b,
            same: self.same,
            pairs: u32::try_from(self.pairs.len()).unwrap_or(u32::MAX),
            divergence: self.divergence,
            totals: self.totals,
            ignored: self.ignored,
            differs,
        };
        (head, self.pairs)
    }
}

/// Pairs `offset..offset + limit` of `pairs`.
pub fn pairs_page(pairs: &[ComparedPair], offset: u32, limit: u32) -> PairsPage {
    let from = (offset as usize).min(pairs.len());
    let to = from.saturating_add(limit as usize).min(pairs.len());
    PairsPage {
        total: u32::try_from(pairs.len()).unwrap_or(u32::MAX),
        offset: from as u32,
        revision: 0,
        rows: pairs[from..to].to_vec(),
    }
}

/// Characters of an item's text a divergence shows.
pub const EXCERPT: usize = 400;

/// Records read back at a time.
const CHUNK: usize = 4096;

/// Chunks read back on every core before their items are taken.
const WINDOW: usize = 32;

/// A compared item's fingerprint: what it is and a hash of what it says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Print {
    kind: PartKind,
    /// The tool's name, a hash of it (`0`: none).
    tool: u64,
    text: u64,
    row: u32,
    part: u16,
}

/// A compared item as a worker reads it back: its print, and what the facts take of it.
struct Seen {
    /// The session's facts it is of.
    facts: u32,
    print: Print,
    /// A tool call's or spawn's tool name (`(unnamed)` when the line names none).
    tool_name: Option<String>,
    /// A prompt's or spawn's task text (`task_text`).
    task: Option<String>,
    /// The child a spawn names.
    child: Option<String>,
}

/// The compared items of a chunk of `(record, facts, row)` (in record order), fingerprinted.
fn seen_in(a: &Analysis, chunk: &[(u32, u32, u32)]) -> Vec<Seen> {
    let records: Vec<u32> = chunk.iter().map(|&(r, _, _)| r).collect();
    let mut out = Vec::new();
    for (parts, &(_, i, row)) in a.record_parts(&records).into_iter().zip(chunk) {
        for (k, p) in parts.into_iter().enumerate() {
            let kind = p.kind.unwrap_or(PartKind::Notice);
            if !compared(kind) {
                continue;
            }
            let print = Print {
                kind,
                tool: p.tool.as_ref().map_or(0, print::of),
                text: p.print.unwrap_or_else(|| text_print(kind, &p.text, p.json)),
                row,
                part: k as u16,
            };
            let task = matches!(kind, PartKind::Prompt | PartKind::Spawn).then(|| task_text(&p.text));
            // A spawn without a tool is the harness saying a child started (dsh's
            // `subagent.started`), beside the call that started it: not a call of its own.
            let called = kind == PartKind::ToolCall || (kind == PartKind::Spawn && p.tool.is_some());
            let tool_name = called.then(|| p.tool.unwrap_or_else(|| "(unnamed)".to_owned()));
            out.push(Seen {
                facts: i,
                print,
                tool_name,
                task,
                child: if kind == PartKind::Spawn { p.child } else { None },
            });
        }
    }
    out
}

/// What one session is, for the comparison.
#[derive(Debug, Default)]
struct Facts {
    id: String,
    parent: Option<usize>,
    label: Option<String>,
    /// The task it was given: its spawn's text, else its first prompt (whitespace folded, cut).
    task: Option<String>,
    /// When its parent spawned it (the spawn's row in the parent), for the order of children.
    spawned_at: Option<u32>,
    report_order: usize,
    start: Option<f64>,
    end: Option<f64>,
    turns: u64,
    steps: u64,
    tools: BTreeMap<String, u64>,
    usage: Usage,
    cost: Option<f64>,
    outcome: Option<Outcome>,
    findings: BTreeMap<String, u64>,
    prints: Vec<Print>,
    children: Vec<usize>,
}

/// One side: its analysis, its sessions' facts (the root's subtree), the files its report lists
/// (of a known format) and how many sessions it has.
struct Side<'a> {
    analysis: &'a Analysis,
    files: Vec<String>,
    sessions: usize,
    facts: Vec<Facts>,
    indexes: HashMap<&'a str, Index>,
}

/// The words of a text, whitespace folded: two runs that wrap a text otherwise say the same.
#[cfg(test)]
fn folded(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for w in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
    }
    out
}

/// A part's print from its text (`crate::vocab::print`): JSON as its value, a prompt without its
/// context blocks, any other text as its folded words.
fn text_print(kind: PartKind, text: &str, json: bool) -> u64 {
    if json {
        if let Ok(v) = serde_json::from_str::<serde_json::Value>(text) {
            return print::json(&v);
        }
    }
    let text = if kind == PartKind::Prompt { crate::formats::without_context(text) } else { text };
    print::folded(text)
}

/// Whether a part is compared: prompts, replies, tool calls (and spawns, which are tool calls).
fn compared(kind: PartKind) -> bool {
    matches!(kind, PartKind::Prompt | PartKind::Text | PartKind::ToolCall | PartKind::Spawn)
}

impl<'a> Side<'a> {
    /// The side's measures, from its report's parts as the report would say them (sessions in
    /// report order, their own tokens and cost, turns, findings) without the report's copies.
    fn new(analysis: &'a Analysis, root: &str) -> Option<Side<'a>> {
        use crate::intern::Sym;
        let parts = crate::outputs::report_parts::ReportParts::for_view(analysis);
        let (cx, g) = (&analysis.cx, &analysis.cx.graph);
        // The report's sessions (those in the graph), in its order.
        let order: Vec<(Sym, &crate::graph::SessionNode)> =
            parts.session_order().iter().filter_map(|&s| Some((s, g.get(s)?))).collect();
        let by_sym: HashMap<Sym, usize> = order.iter().enumerate().map(|(i, &(s, _))| (s, i)).collect();
        let root_ix = order.iter().position(|&(s, _)| cx.ids.name(s) == root)?;
        // The root's subtree, each session once, in report order.
        let mut kids: HashMap<usize, Vec<usize>> = HashMap::default();
        for (i, (_, n)) in order.iter().enumerate() {
            if let Some(&p) = n.parent.and_then(|p| by_sym.get(&p)) {
                if p != i {
                    kids.entry(p).or_default().push(i);
                }
            }
        }
        let mut tree: Vec<(usize, Option<usize>)> = vec![(root_ix, None)];
        let mut seen = vec![false; order.len()];
        seen[root_ix] = true;
        let mut at = 0;
        while at < tree.len() {
            let (s, _) = tree[at];
            for &c in kids.get(&s).into_iter().flatten() {
                if !seen[c] {
                    seen[c] = true;
                    tree.push((c, Some(at)));
                }
            }
            at += 1;
        }
        let mut facts: Vec<Facts> = tree
            .iter()
            .map(|&(s, parent)| {
                let (sym, n) = order[s];
                let mut f = Facts {
                    id: cx.ids.name(sym).to_owned(),
                    parent,
                    label: g.label(n).filter(|l| !l.trim().is_empty()).map(str::to_owned),
                    report_order: s,
                    outcome: n.runs.last().map(|r| r.outcome),
                    ..Facts::default()
                };
                let times = n.runs.iter().flat_map(|r| [r.start, r.end]).flatten().filter_map(|l| analysis.time_at(l));
                for t in times.filter(|t| t.is_finite()) {
                    f.start = Some(f.start.map_or(t, |x: f64| x.min(t)));
                    f.end = Some(f.end.map_or(t, |x: f64| x.max(t)));
                }
                if let (Some(u), _) = parts.usage_of(sym) {
                    f.cost = u.cost.filter(|_| u.unpriced.is_none());
                    f.usage = u;
                }
                f
            })
            .collect();
        let children: Vec<(usize, usize)> =
            facts.iter().enumerate().filter_map(|(i, f)| f.parent.map(|p| (p, i))).collect();
        for (p, i) in children {
            facts[p].children.push(i);
        }
        let ix: HashMap<Sym, usize> = tree.iter().enumerate().map(|(i, &(s, _))| (order[s].0, i)).collect();
        for &t in parts.turn_order() {
            let t = &cx.turns.list[t as usize];
            if let Some(&i) = ix.get(&t.session) {
                let f = &mut facts[i];
                f.turns += 1;
                f.steps += u64::from(t.steps);
                let times = [t.start(), t.end()].into_iter().flatten().filter_map(|r| cx.time_of(r));
                for x in times.filter(|t| t.is_finite()) {
                    f.start = Some(f.start.map_or(x, |y| y.min(x)));
                    f.end = Some(f.end.map_or(x, |y| y.max(x)));
                }
            }
        }
        for d in parts.diagnostic_order() {
            let d = &cx.findings.list[d as usize];
            if let Some(&i) = d.session.and_then(|s| ix.get(&s)) {
                *facts[i].findings.entry(d.code.as_str().to_owned()).or_default() += 1;
            }
        }
        let mut files: Vec<String> = Vec::new();
        for input in parts.inputs().filter(|i| i.format != "unknown") {
            if !files.iter().any(|f| f == input.file) {
                files.push(input.file.to_owned());
            }
        }
        Some(Side { analysis, files, sessions: order.len(), facts, indexes: HashMap::default() })
    }

    /// The side under `root`: its measures, then its conversations read back.
    fn read(analysis: &'a Analysis, root: &str) -> Option<Side<'a>> {
        let mut side = Side::new(analysis, root)?;
        side.read_back();
        Some(side)
    }

    /// Reads back every session's transcript: its items' prints, tool calls, and the tasks its
    /// spawns gave (to the children they name). Every session's rows at once, in the files'
    /// order: one pass through each file, however the sessions interleave in it.
    fn read_back(&mut self) {
        let a = self.analysis;
        self.indexes = a.transcript_indexes();
        let ix: HashMap<String, usize> = self.facts.iter().enumerate().map(|(i, f)| (f.id.clone(), i)).collect();
        let may_compare = |r: u32| {
            let kind = a.cx.records.get(r as usize).map(|x| x.kind());
            let format = a.cx.file_of(r as usize).and_then(|f| a.files.get(f as usize)).and_then(|f| f.format);
            match (kind, format) {
                (Some(k), Some(f)) => f.reader.may_compare(k),
                _ => true,
            }
        };
        // (record, session's facts, row), in record order: the files' order.
        let mut all: Vec<(u32, u32, u32)> = Vec::new();
        for (i, f) in self.facts.iter().enumerate() {
            if let Some(index) = self.indexes.get(f.id.as_str()) {
                // Only the records that may hold a compared part: a tool's result is most of
                // what a log says and none of what is compared.
                let rows = index.records().iter().enumerate();
                all.extend(rows.filter(|&(_, &r)| may_compare(r)).map(|(row, &r)| (r, i as u32, row as u32)));
            }
        }
        all.sort_unstable();
        // The chunks read and fingerprinted on every core, then taken in order, a window of
        // them at a time: what the workers give is held only until it is taken.
        let chunks: Vec<&[(u32, u32, u32)]> = all.chunks(CHUNK).collect();
        let read = chunks.chunks(WINDOW).flat_map(|window| a.in_order(window, |chunk| seen_in(a, chunk)));
        let read = read.map(|r| r.unwrap_or_else(|| panic!("a comparison's read-back worker panicked")));
        let mut tasks: Vec<(usize, String, u32)> = Vec::new();
        for mut item in read.flatten() {
            let f = &mut self.facts[item.facts as usize];
            if let Some(name) = item.tool_name {
                *f.tools.entry(name).or_default() += 1;
            }
            let kind = item.print.kind;
            if kind == PartKind::Prompt && f.task.is_none() {
                f.task = item.task.take();
            }
            if kind == PartKind::Spawn {
                if let (Some(&c), Some(task)) = (item.child.as_deref().and_then(|c| ix.get(c)), item.task) {
                    tasks.push((c, task, item.print.row));
                }
            }
            f.prints.push(item.print);
        }
        // A spawn's task names what the child is better than its first prompt, which may be the
        // same text with the harness's framing around it.
        for (c, task, row) in tasks {
            if self.facts[c].spawned_at.is_none() {
                self.facts[c].task = Some(task);
                self.facts[c].spawned_at = Some(row);
            }
        }
        // Children in order of spawn: their spawns' rows in the parent, else their start, else
        // the report's order.
        for i in 0..self.facts.len() {
            let mut kids = std::mem::take(&mut self.facts[i].children);
            let facts = &self.facts;
            kids.sort_by(|&x, &y| {
                let (fx, fy) = (&facts[x], &facts[y]);
                let by_spawn = match (fx.spawned_at, fy.spawned_at) {
                    (Some(p), Some(q)) => p.cmp(&q),
                    _ => std::cmp::Ordering::Equal,
                };
                let by_start = match (fx.start, fy.start) {
                    (Some(p), Some(q)) => p.total_cmp(&q),
                    _ => std::cmp::Ordering::Equal,
                };
                by_spawn.then(by_start).then(fx.report_order.cmp(&fy.report_order))
            });
            self.facts[i].children = kids;
        }
    }

    /// The item `print` as a divergence shows it, read back from its line.
    fn item(&self, f: usize, print: &Print) -> Option<ComparedItem> {
        let facts = &self.facts[f];
        let index = self.indexes.get(facts.id.as_str())?;
        let page = self.analysis.transcript_page(index, print.row, 1, EXCERPT);
        let row = page.rows.into_iter().next()?;
        let part = row.parts.into_iter().nth(print.part as usize)?;
        Some(ComparedItem {
            session: facts.id.clone(),
            row: row.row,
            at: row.at,
            kind: part.kind,
            tool: part.tool,
            text: part.text,
            cut: part.cut,
        })
    }

    fn info(&self) -> ComparedRun {
        let root = &self.facts[0];
        let a = self.analysis;
        let first_file = self
            .indexes
            .get(root.id.as_str())
            .and_then(|i| i.record(0))
            .and_then(|r| a.cx.file_of(r))
            .and_then(|f| a.files.get(f as usize));
        let title = root
            .label
            .clone()
            .or_else(|| first_file.and_then(|info| crate::formats::about_file(&info.path, info.format)));
        let mut files = self.files.clone();
        // A folder of many sessions: only the files the subtree's rows are in.
        if self.sessions > self.facts.len() {
            let mut used: Vec<u32> = self
                .facts
                .iter()
                .filter_map(|f| self.indexes.get(f.id.as_str()))
                .flat_map(|i| (0..i.len() as u32).filter_map(|r| i.record(r)).filter_map(|r| a.cx.file_of(r)))
                .collect();
            used.sort_unstable();
            used.dedup();
            files = used.into_iter().filter_map(|f| a.files.get(f as usize)).map(|f| f.display.clone()).collect();
        }
        ComparedRun {
            root: root.id.clone(),
            title,
            format: first_file.and_then(|f| f.format).map(|f| f.id.to_owned()),
            files,
            sessions: self.facts.len() as u32,
        }
    }
}

/// A task's text as alignment compares it: whitespace folded, context blocks left out, cut.
fn task_text(text: &str) -> String {
    // `folded` cut at 600 characters, folding only the words it keeps.
    let mut out = String::new();
    let mut chars = 0;
    for w in print::words(crate::formats::without_context(text)) {
        if chars >= 600 {
            break;
        }
        if !out.is_empty() {
            out.push(' ');
            chars += 1;
            if chars >= 600 {
                break;
            }
        }
        match w.char_indices().nth(600 - chars) {
            Some((end, _)) => {
                out.push_str(&w[..end]);
                chars = 600;
            }
            None => {
                out.push_str(w);
                chars += w.chars().count();
            }
        }
    }
    out
}

/// Whether two sessions are the same agent: the same label, or the same task; two of which the
/// logs say neither (a child whose spawn and prompt were not written) pair in order.
fn same_agent(x: &Facts, y: &Facts) -> bool {
    let label = matches!((&x.label, &y.label), (Some(p), Some(q)) if p == q);
    let task = matches!((&x.task, &y.task), (Some(p), Some(q)) if !p.is_empty() && p == q);
    let unknown = |f: &Facts| f.label.is_none() && f.task.as_deref().is_none_or(str::is_empty);
    label || task || (unknown(x) && unknown(y))
}

/// The aligned children: an order-keeping alignment (longest common subsequence) of the two
/// lists by `same_agent`; what is left stands alone, in place.
fn align(xs: &[usize], ys: &[usize], same: impl Fn(usize, usize) -> bool) -> Vec<(Option<usize>, Option<usize>)> {
    let (n, m) = (xs.len(), ys.len());
    let mut out = Vec::with_capacity(n.max(m));
    if n.saturating_mul(m) > 4_000_000 {
        // Too many for the table: in order, each with the next of the other side that matches.
        let mut j = 0;
        for &x in xs {
            match ys[j..].iter().position(|&y| same(x, y)) {
                Some(k) => {
                    out.extend(ys[j..j + k].iter().map(|&y| (None, Some(y))));
                    out.push((Some(x), Some(ys[j + k])));
                    j += k + 1;
                }
                None => out.push((Some(x), None)),
            }
        }
        out.extend(ys[j..].iter().map(|&y| (None, Some(y))));
        return out;
    }
    let mut t = vec![0u32; (n + 1) * (m + 1)];
    let at = |i: usize, j: usize| i * (m + 1) + j;
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            t[at(i, j)] =
                if same(xs[i], ys[j]) { t[at(i + 1, j + 1)] + 1 } else { t[at(i + 1, j)].max(t[at(i, j + 1)]) };
        }
    }
    let (mut i, mut j) = (0, 0);
    while i < n && j < m {
        if same(xs[i], ys[j]) {
            out.push((Some(xs[i]), Some(ys[j])));
            i += 1;
            j += 1;
        } else if t[at(i + 1, j)] >= t[at(i, j + 1)] {
            out.push((Some(xs[i]), None));
            i += 1;
        } else {
            out.push((None, Some(ys[j])));
            j += 1;
        }
    }
    out.extend(xs[i..].iter().map(|&x| (Some(x), None)));
    out.extend(ys[j..].iter().map(|&y| (None, Some(y))));
    out
}

/// What one side says of a pair's measures (summed over sessions for the totals): a session's
/// own counts by tool and finding borrowed from its facts, a sum's made.
#[derive(Default)]
struct Sum<'f> {
    duration: Option<f64>,
    turns: u64,
    steps: u64,
    tools: Cow<'f, BTreeMap<String, u64>>,
    usage: Usage,
    cost: Option<f64>,
    /// Some session's cost is not known.
    unknown_cost: bool,
    outcome: Option<Outcome>,
    findings: Cow<'f, BTreeMap<String, u64>>,
}

impl<'f> Sum<'f> {
    fn of(f: &'f Facts) -> Sum<'f> {
        let mut s = Sum { tools: Cow::Borrowed(&f.tools), findings: Cow::Borrowed(&f.findings), ..Sum::default() };
        s.add_measures(f);
        s.duration = match (f.start, f.end) {
            (Some(a), Some(b)) => Some((b - a) / 1000.0),
            _ => None,
        };
        s.outcome = f.outcome;
        s
    }

    fn add(&mut self, f: &Facts) {
        self.add_measures(f);
        for (k, v) in &f.tools {
            *self.tools.to_mut().entry(k.clone()).or_default() += v;
        }
        for (k, v) in &f.findings {
            *self.findings.to_mut().entry(k.clone()).or_default() += v;
        }
    }

    /// `add` but for the counts by tool and finding.
    fn add_measures(&mut self, f: &Facts) {
        self.turns += f.turns;
        self.steps += f.steps;
        self.usage.input += f.usage.input;
        self.usage.output += f.usage.output;
        self.usage.cache_read += f.usage.cache_read;
        self.usage.cache_write += f.usage.cache_write;
        match f.cost {
            Some(c) => self.cost = Some(self.cost.unwrap_or(0.0) + c),
            None if !f.usage.is_zero() => self.unknown_cost = true,
            None => {}
        }
    }

    fn cost(&self) -> Option<f64> {
        self.cost.filter(|_| !self.unknown_cost)
    }
}

fn counts(a: Option<&BTreeMap<String, u64>>, b: Option<&BTreeMap<String, u64>>) -> BTreeMap<String, CountDelta> {
    let mut keys: Vec<&String> = a.into_iter().chain(b).flat_map(|m| m.keys()).collect();
    keys.sort_unstable();
    keys.dedup();
    keys.into_iter()
        .map(|k| {
            let of = |m: Option<&BTreeMap<String, u64>>| m.map(|m| m.get(k).copied().unwrap_or(0));
            (k.clone(), CountDelta::of(of(a), of(b)))
        })
        .collect()
}

fn delta(a: Option<&Sum<'_>>, b: Option<&Sum<'_>>, diverged: bool, ignored: &[Measure]) -> PairDelta {
    let n = |f: fn(&Sum) -> u64| CountDelta::of(a.map(f), b.map(f));
    let mut d = PairDelta {
        duration: AmountDelta::of(a.and_then(|s| s.duration), b.and_then(|s| s.duration)),
        turns: n(|s| s.turns),
        steps: n(|s| s.steps),
        tool_calls: counts(a.map(|s| &*s.tools), b.map(|s| &*s.tools)),
        tokens: TokenDeltas {
            input: n(|s| s.usage.input),
            output: n(|s| s.usage.output),
            cache_read: n(|s| s.usage.cache_read),
            cache_write: n(|s| s.usage.cache_write),
        },
        cost: AmountDelta::of(a.and_then(Sum::cost), b.and_then(Sum::cost)),
        outcome: Outcomes { a: a.and_then(|s| s.outcome), b: b.and_then(|s| s.outcome) },
        findings: counts(a.map(|s| &*s.findings), b.map(|s| &*s.findings)),
        differs: Vec::new(),
    };
    let differs = [
        (Measure::Duration, d.duration.differs()),
        (Measure::Turns, d.turns.differs()),
        (Measure::Steps, d.steps.differs()),
        (Measure::ToolCalls, d.tool_calls.values().any(CountDelta::differs)),
        (Measure::Tokens, d.tokens.differs()),
        (Measure::Cost, d.cost.differs()),
        (Measure::Outcome, d.outcome.a != d.outcome.b),
        (Measure::Findings, d.findings.values().any(CountDelta::differs)),
        (Measure::Conversation, diverged),
        (Measure::Sessions, a.is_none() || b.is_none()),
    ];
    d.differs = differs.into_iter().filter(|&(m, x)| x && !ignored.contains(&m)).map(|(m, _)| m).collect();
    d
}

/// The first place two conversations part, as indexes into each side's prints and what differs.
fn first_difference(xs: &[Print], ys: &[Print]) -> Option<(usize, &'static str)> {
    let n = xs.len().min(ys.len());
    for k in 0..n {
        let (x, y) = (&xs[k], &ys[k]);
        // A spawn on one side and a plain tool call on the other (a child not loaded) are the
        // same call if their tool and arguments are.
        let kind = |p: &Print| if p.kind == PartKind::Spawn { PartKind::ToolCall } else { p.kind };
        if kind(x) != kind(y) {
            return Some((k, "kind"));
        }
        let what = match x.kind {
            PartKind::Prompt => "prompt",
            PartKind::Text => "reply",
            _ if x.tool != y.tool => "tool",
            PartKind::Spawn => "task",
            _ => "arguments",
        };
        if x.tool != y.tool || x.text != y.text {
            return Some((k, what));
        }
    }
    (xs.len() != ys.len()).then_some((n, "ended"))
}

impl Analysis {
    /// The sessions a comparison may start from: the roots, and sessions whose parent was not
    /// read (a sub-agent's file alone), in report order.
    pub fn top_sessions(&self) -> Vec<&str> {
        let g = &self.cx.graph;
        let order = g.report_order();
        let listed: crate::intern::HashSet<crate::intern::Sym> = order.iter().copied().collect();
        order
            .into_iter()
            .filter(|&s| g.get(s).is_some_and(|n| n.parent.is_none_or(|p| !listed.contains(&p))))
            .map(|s| self.cx.ids.name(s))
            .collect()
    }

    /// Compares the run under `root` here (A) with the run under `other_root` in `other` (B).
    /// `None` when either root is not a session of its analysis.
    pub fn compare(&self, root: &str, other: &Analysis, other_root: &str, ignored: &[Measure]) -> Option<Comparison> {
        // A run compared with itself (one analysis, one root) is read once; else each side's
        // report and read-back on a core of its own.
        let itself = std::ptr::eq(self, other) && root == other_root;
        let (a, b) = std::thread::scope(|s| {
            let t = (!itself).then(|| s.spawn(|| Side::read(other, other_root)));
            let a = Side::read(self, root);
            (a, t.map(|t| t.join().unwrap_or_else(|e| std::panic::resume_unwind(e))))
        });
        let a_own = a?;
        let b_own = match b {
            Some(b) => Some(b?),
            None => None,
        };
        let (a, b) = (&a_own, b_own.as_ref().unwrap_or(&a_own));
        let mut ignored: Vec<Measure> = ignored.to_vec();
        ignored.sort_unstable();
        ignored.dedup();

        // The pairs, root first, each pair's children after it (depth first, in spawn order).
        let mut pairs: Vec<ComparedPair> = Vec::new();
        // Each: the sessions of A and B (their facts), the parent pair, the depth.
        type Todo = (Option<usize>, Option<usize>, Option<u32>, u32);
        let mut stack: Vec<Todo> = vec![(Some(0), Some(0), None, 0)];
        // The pairs that part, with where (each side's facts and the index of the item): their
        // items are read back after, each side on a core of its own.
        let mut parted: Vec<(u32, usize, usize, usize)> = Vec::new();
        while let Some((x, y, parent, depth)) = stack.pop() {
            let fx = x.map(|i| &a.facts[i]);
            let fy = y.map(|i| &b.facts[i]);
            let here = pairs.len() as u32;
            let div = match (x, y) {
                (Some(i), Some(j)) => first_difference(&a.facts[i].prints, &b.facts[j].prints).map(|(k, what)| {
                    parted.push((here, i, j, k));
                    Divergence {
                        pair: here,
                        what,
                        a: None,
                        b: None,
                        same_before: k as u32,
                        row_a: row_at(&a.facts[i].prints, k),
                        row_b: row_at(&b.facts[j].prints, k),
                    }
                }),
                _ => None,
            };
            // An empty task (a spawn that gave none) says nothing of the agent.
            let task = |f: &Facts| f.task.as_deref().filter(|t| !t.is_empty()).map(|t| excerpt(t, 80));
            let label = fx.or(fy).and_then(|f| f.label.clone().or_else(|| task(f)));
            let sums = (fx.map(Sum::of), fy.map(Sum::of));
            let d = delta(sums.0.as_ref(), sums.1.as_ref(), div.is_some(), &ignored);
            pairs.push(ComparedPair {
                a: fx.map(|f| f.id.clone()),
                b: fy.map(|f| f.id.clone()),
                parent,
                depth,
                label,
                delta: d,
                divergence: div,
            });
            let kids_a = fx.map(|f| f.children.as_slice()).unwrap_or_default();
            let kids_b = fy.map(|f| f.children.as_slice()).unwrap_or_default();
            let aligned = align(kids_a, kids_b, |i, j| same_agent(&a.facts[i], &b.facts[j]));
            for (ci, cj) in aligned.into_iter().rev() {
                stack.push((ci, cj, Some(here), depth + 1));
            }
        }

        // Each side's item at (its facts, the index of the item) of each parted pair.
        let items = |side: &Side, at: Vec<(usize, usize)>| -> Vec<Option<ComparedItem>> {
            at.into_iter().map(|(f, k)| side.facts[f].prints.get(k).and_then(|p| side.item(f, p))).collect()
        };
        let at_a: Vec<(usize, usize)> = parted.iter().map(|&(_, i, _, k)| (i, k)).collect();
        let at_b: Vec<(usize, usize)> = parted.iter().map(|&(_, _, j, k)| (j, k)).collect();
        let (items_a, items_b) = std::thread::scope(|s| {
            let t = s.spawn(|| items(b, at_b));
            let items_a = items(a, at_a);
            (items_a, t.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
        });
        for ((&(pair, ..), x), y) in parted.iter().zip(items_a).zip(items_b) {
            if let Some(d) = pairs[pair as usize].divergence.as_mut() {
                (d.a, d.b) = (x, y);
            }
        }
        let divergence = match ignored.contains(&Measure::Conversation) {
            true => None,
            false => parted.first().and_then(|&(pair, ..)| pairs[pair as usize].divergence.clone()),
        };
        let total = |side: &Side| {
            let mut s = Sum::default();
            side.facts.iter().for_each(|f| s.add(f));
            s.duration = Sum::of(&side.facts[0]).duration;
            s.outcome = side.facts[0].outcome;
            s
        };
        let (info_a, info_b) = (a.info(), b.info());
        // The roots are what their runs are: their titles name them.
        if let Some(root) = pairs.first_mut() {
            root.label = info_a.title.clone().or_else(|| info_b.title.clone()).or(root.label.take());
        }
        let one_sided = pairs.iter().any(|p| p.a.is_none() || p.b.is_none());
        let mut totals = delta(Some(&total(a)), Some(&total(b)), divergence.is_some(), &ignored);
        if one_sided && !ignored.contains(&Measure::Sessions) {
            totals.differs.push(Measure::Sessions);
        }
        let same = totals.differs.is_empty() && pairs.iter().all(|p| p.delta.differs.is_empty());
        // Each side's facts freed on a core of its own (a large run's are millions of items).
        std::thread::scope(|s| {
            s.spawn(move || drop(b_own));
            drop(a_own);
        });
        Some(Comparison { a: info_a, b: info_b, same, pairs, divergence, totals, ignored })
    }
}

/// The row of a conversation's `k`th compared item, or the row after its last when it has no
/// `k`th.
fn row_at(prints: &[Print], k: usize) -> u32 {
    match prints.get(k) {
        Some(p) => p.row,
        None => prints.last().map_or(0, |p| p.row + 1),
    }
}

fn excerpt(text: &str, chars: usize) -> String {
    match text.char_indices().nth(chars) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn children_align_in_order_by_what_they_are() {
        // A: x y z, B: y w z: y and z pair, x and w stand alone in place.
        let a = ["x", "y", "z"];
        let b = ["y", "w", "z"];
        let got = align(&[0, 1, 2], &[0, 1, 2], |i, j| a[i] == b[j]);
        assert_eq!(got, vec![(Some(0), None), (Some(1), Some(0)), (None, Some(1)), (Some(2), Some(2))]);
        assert_eq!(align(&[], &[0], |_, _| true), vec![(None, Some(0))]);
    }

    #[test]
    fn json_arguments_compare_whatever_the_order_of_their_keys() {
        let p = |t: &str| text_print(PartKind::ToolCall, t, true);
        assert_eq!(p(r#"{"a":1,"b":[true,"x"]}"#), p(r#"{ "b": [true, "x"], "a": 1 }"#));
        assert_ne!(p(r#"{"a":1}"#), p(r#"{"a":2}"#));
        let q = |t: &str| text_print(PartKind::Text, t, false);
        assert_eq!(q("two  words\n"), q("two words"));
        assert_ne!(q("two words"), q("two wordz"));
    }

    /// Every record a comparison does not read back (`Format::may_compare`) says nothing it
    /// compares, in every format of the corpus, the conformance cases and the hostile inputs; and
    /// every record it reads says, through `Format::compared_parts`, what a page says.
    #[test]
    fn what_a_comparison_leaves_unread_says_nothing_it_compares() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests");
        let paths = [root.join("corpus"), root.join("conformance/cases"), root.join("hostile")];
        let a = crate::analyze(&paths, &mut ());
        let (mut skipped, mut read) = (0, 0);
        for r in 0..a.cx.records.len() as u32 {
            let kind = a.cx.records.get(r as usize).map(|x| x.kind()).unwrap();
            let format = a.cx.file_of(r as usize).and_then(|f| a.files.get(f as usize)).and_then(|f| f.format);
            let Some(format) = format else { continue };
            let page = a.read_drafts(&[r]).pop().unwrap();
            // A compared part's print, and its text but for a reply's (a comparison takes only
            // a reply's print, and its reading may leave the text out).
            type Said = (Option<PartKind>, Option<(u64, Option<String>)>);
            let said = |parts: Vec<crate::transcript::Draft>| -> Vec<Said> {
                let kind = |d: &crate::transcript::Draft| d.kind.unwrap_or(PartKind::Notice);
                let print =
                    |d: &crate::transcript::Draft| d.print.unwrap_or_else(|| text_print(kind(d), &d.text, d.json));
                let text = |d: &crate::transcript::Draft| (kind(d) != PartKind::Text).then(|| d.text.clone());
                parts.iter().map(|d| (d.kind, compared(kind(d)).then(|| (print(d), text(d))))).collect()
            };
            if format.reader.may_compare(kind) {
                read += 1;
                assert_eq!(said(a.read_drafts_as(&[r], true).pop().unwrap()), said(page), "record {r}");
            } else {
                skipped += 1;
                let kinds: Vec<PartKind> = page.iter().filter_map(|d| d.kind).collect();
                assert!(!kinds.into_iter().any(compared), "record {r} ({kind:?}, {}) holds a compared part", format.id);
            }
        }
        assert!(skipped > 50 && read > 1000, "{skipped} records left unread, {read} read");
    }

    #[test]
    fn a_task_is_its_folded_text_cut_at_600_characters() {
        let old = |t: &str| {
            let t = folded(crate::formats::without_context(t));
            match t.char_indices().nth(600) {
                Some((end, _)) => t[..end].to_owned(),
                None => t,
            }
        };
        let mut texts = vec![String::new(), "  ".into(), "one".into(), " a  b\n".into()];
        for n in [598, 599, 600, 601, 602] {
            texts.push(format!("{} b c", "a".repeat(n)));
            texts.push(format!("x {} b", "é".repeat(n)));
            texts.push(format!("{}  tail", "ab ".repeat(n / 3)));
            texts.push("w ".repeat(n));
        }
        for t in &texts {
            assert_eq!(task_text(t), old(t), "{t:?}");
        }
    }

    /// dsh-rpc writes a spawn twice: the parent's `tool/call` and the harness's
    /// `subagent.started`. One call is counted, and a pair whose spawn gave no task is not
    /// labelled with an empty one (a view names it by its session).
    #[test]
    fn a_dsh_spawn_is_one_tool_call_and_an_empty_task_no_label() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/conformance/cases");
        let a = crate::analyze(&[root.join("dsh-rpc-two-level/input/run.jsonl")], &mut ());
        let c = a.compare("root", &a, "root", &[]).unwrap();
        assert!(c.same && c.divergence.is_none());
        let ids: Vec<_> = c.pairs.iter().map(|p| (p.a.as_deref(), p.label.as_deref())).collect();
        assert_eq!(ids, [(Some("root"), None), (Some("kid"), None), (Some("grand"), None)]);
        let calls = |d: &PairDelta| d.tool_calls.iter().map(|(k, v)| (k.clone(), v.a)).collect::<Vec<_>>();
        assert_eq!(calls(&c.pairs[0].delta), [("subagent".to_owned(), Some(1))]);
        assert_eq!(calls(&c.totals), [("subagent".to_owned(), Some(2))]);
    }

    /// The app's head of a comparison counts its pairs and names every measure that differs once
    /// (the totals' first, then each pair's in order); its pairs come a window at a time.
    #[test]
    fn a_head_names_what_differs_and_pairs_come_by_window() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/conformance/cases");
        let a = crate::analyze(&[root.join("dsh-rpc-two-level/input/run.jsonl")], &mut ());
        let mut c = a.compare("root", &a, "root", &[]).unwrap();
        c.totals.differs = vec![Measure::Cost];
        c.pairs[1].delta.differs = vec![Measure::Turns, Measure::Cost];
        c.pairs[2].delta.differs = vec![Measure::Duration, Measure::Turns];
        let whole = c.pairs.clone();
        let (head, pairs) = c.into_head();
        assert_eq!(head.pairs, 3);
        assert_eq!(head.differs, [Measure::Cost, Measure::Turns, Measure::Duration]);
        assert_eq!(pairs, whole);
        let page = pairs_page(&pairs, 1, 5);
        assert_eq!((page.total, page.offset, page.rows.as_slice()), (3, 1, &whole[1..]));
        let past = pairs_page(&pairs, 9, 5);
        assert_eq!((past.total, past.offset, past.rows.len()), (3, 3, 0));
    }

    #[test]
    fn the_first_difference_says_what_differs() {
        let pr = |kind, tool: u64, text: u64| Print { kind, tool, text, row: 0, part: 0 };
        let xs = [pr(PartKind::Prompt, 0, 1), pr(PartKind::ToolCall, 7, 2), pr(PartKind::Text, 0, 3)];
        assert_eq!(first_difference(&xs, &xs), None);
        let mut ys = xs;
        ys[1].text = 9;
        assert_eq!(first_difference(&xs, &ys), Some((1, "arguments")));
        ys[1].tool = 8;
        assert_eq!(first_difference(&xs, &ys), Some((1, "tool")));
        assert_eq!(first_difference(&xs, &xs[..2]), Some((2, "ended")));
        let mut zs = xs;
        zs[0].text = 5;
        assert_eq!(first_difference(&xs, &zs), Some((0, "prompt")));
        let spawn = [pr(PartKind::Prompt, 0, 1), pr(PartKind::Spawn, 7, 2), pr(PartKind::Text, 0, 3)];
        assert_eq!(first_difference(&xs, &spawn), None);
    }

    #[test]
    fn an_amount_changes_by_its_fraction() {
        let d = AmountDelta::of(Some(10.0), Some(12.5));
        assert_eq!((d.change, d.ratio), (Some(2.5), Some(0.25)));
        assert!(d.differs());
        assert!(!AmountDelta::of(Some(1.0), Some(1.0)).differs());
        assert!(AmountDelta::of(None, Some(1.0)).differs());
        assert_eq!(CountDelta::of(Some(3), None).change, -3);
    }
}
