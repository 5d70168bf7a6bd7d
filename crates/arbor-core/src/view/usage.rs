//! The usage table (the app's Usage tab): every session of the tree with its own and its
//! subtree's tokens by kind, cost, duration and turns, sorted by a column, a page at a time.
//!
//! A duration is a span of the log's clock: a session's own from the first start to the last
//! end of its runs and turns, its subtree's over every session under it as well (how long the
//! work it delegated kept going, not a sum of sub-agents that ran side by side). A log without
//! a clock has none, and a table sorted by duration lists it in the tree's order. What a row
//! says about tokens is the report's (`usage`, `subtree_usage`); nothing here is summed twice.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::store::{Store, NONE};
use super::tree::Tree;
use crate::report::Usage;

/// What the usage table is sorted by: the tree's order (`tree`), or a column, in the scope's
/// counts (a session's own or its subtree's).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "kebab-case")]
pub enum UsageColumn {
    #[default]
    Tree,
    Turns,
    Input,
    Output,
    CacheRead,
    CacheWrite,
    Tokens,
    Cost,
    Duration,
}

/// Whose counts a column sorts by: the session's own, or its subtree's.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "kebab-case")]
pub enum UsageScope {
    #[default]
    Own,
    Subtree,
}

/// A sort of the usage table. Sessions without the value sorted by (no tokens, no price, no
/// clock) come last either way; ties keep the tree's order.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
pub struct UsageSort {
    pub column: UsageColumn,
    pub scope: UsageScope,
    /// Most first (the default a click on a column gives).
    pub descending: bool,
}

/// One session of the usage table.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct UsageRow {
    /// The row's index in the sorted table.
    pub index: u32,
    pub id: String,
    pub label: Option<String>,
    /// What a root is about (as the tree names it).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub title: Option<String>,
    /// Its depth in the tree.
    pub depth: u32,
    pub turns: u32,
    pub subtree_turns: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub usage: Option<Usage>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub subtree_usage: Option<Usage>,
    /// Milliseconds on the log's clock (absent without one).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub duration: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub subtree_duration: Option<f64>,
    /// Where choosing the session points the inspector (as the tree's row says).
    pub place: Option<crate::report::Place>,
}

/// Rows `offset..offset + rows.len()` of the `total` sessions, sorted by `sort`.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct UsagePage {
    #[ts(type = "number")]
    pub revision: u64,
    pub total: u32,
    pub offset: u32,
    pub sort: UsageSort,
    pub rows: Vec<UsageRow>,
}

/// Per session (report order): its own and its subtree's spans on the clock and turns.
pub(crate) struct Spans {
    /// Milliseconds; NaN when the session (or every session of the subtree) has no time.
    pub own: Vec<f64>,
    pub subtree: Vec<f64>,
    pub subtree_turns: Vec<u32>,
    /// Its depth in the tree.
    pub depth: Vec<u32>,
}

impl Spans {
    /// From the store's runs and turns; `tree` says which sessions are under which (any order
    /// of it: a subtree is the same set), `turns` how many turns each session ran.
    pub fn of(store: &Store, tree: &Tree, turns: &[u32]) -> Spans {
        let n = store.sessions.len();
        let mut first = vec![f64::INFINITY; n];
        let mut last = vec![f64::NEG_INFINITY; n];
        let mut see = |i: usize, times: [f64; 2]| {
            for t in times.into_iter().filter(|t| t.is_finite()) {
                first[i] = first[i].min(t);
                last[i] = last[i].max(t);
            }
        };
        for (i, s) in store.sessions.iter().enumerate() {
            for r in store.runs_of_row(s) {
                see(i, [r.start_time, r.end_time]);
            }
        }
        for t in &store.turns {
            if let Some(i) = store.session_of_sym(t.session) {
                see(i as usize, [t.start_time, t.end_time]);
            }
        }
        let span = |a: f64, b: f64| if a.is_finite() && b.is_finite() { b - a } else { f64::NAN };
        let own: Vec<f64> = first.iter().zip(&last).map(|(&a, &b)| span(a, b)).collect();
        // Subtrees: each row folded into its parent's, the deepest first (rows in reverse tree
        // order come after all of their descendants).
        let rows: Vec<(u32, u32)> = tree.all().map(|(node, _, parent_row)| (node, parent_row)).collect();
        let mut depth = vec![0; n];
        for (node, d, _) in tree.all() {
            depth[node as usize] = d;
        }
        let mut sub_turns: Vec<u32> = (0..n).map(|i| turns.get(i).copied().unwrap_or(0)).collect();
        for &(node, parent_row) in rows.iter().rev() {
            if parent_row == NONE {
                continue;
            }
            let (c, p) = (node as usize, rows[parent_row as usize].0 as usize);
            first[p] = first[p].min(first[c]);
            last[p] = last[p].max(last[c]);
            sub_turns[p] += sub_turns[c];
        }
        let subtree = first.iter().zip(&last).map(|(&a, &b)| span(a, b)).collect();
        Spans { own, subtree, subtree_turns: sub_turns, depth }
    }

    /// A session's duration in whole milliseconds, for ordering the tree.
    pub fn key(ms: f64) -> Option<u64> {
        (ms.is_finite()).then(|| ms.max(0.0).round() as u64)
    }
}

/// What the table keeps between pages: the spans, and the last sort's order of sessions.
pub(crate) struct Table {
    pub spans: Spans,
    sorted: Option<(UsageSort, Vec<u32>)>,
}

impl Table {
    pub fn new(spans: Spans) -> Table {
        Table { spans, sorted: None }
    }

    /// The tree was ordered again: the table's tree order (and its ties) with it.
    pub fn forget_order(&mut self) {
        self.sorted = None;
    }

    /// The sessions (report order indices) in `sort`'s order; `tree` gives the tree's order (the
    /// sessions the tree shows, once each). Made again when the sort changes.
    pub fn order(&mut self, store: &Store, tree: &Tree, turns: &[u32], sort: UsageSort) -> &[u32] {
        if self.sorted.as_ref().is_none_or(|(s, _)| *s != sort) {
            let mut nodes: Vec<u32> = tree.all().map(|(node, _, _)| node).collect();
            if sort.column != UsageColumn::Tree {
                let keys: Vec<Option<f64>> =
                    (0..store.sessions.len() as u32).map(|i| self.value(store, turns, i, sort)).collect();
                nodes.sort_by(|&a, &b| {
                    let (x, y) = (keys[a as usize], keys[b as usize]);
                    match (x, y) {
                        (Some(x), Some(y)) if sort.descending => y.total_cmp(&x),
                        (Some(x), Some(y)) => x.total_cmp(&y),
                        (Some(_), None) => std::cmp::Ordering::Less,
                        (None, Some(_)) => std::cmp::Ordering::Greater,
                        (None, None) => std::cmp::Ordering::Equal,
                    }
                });
            }
            self.sorted = Some((sort, nodes));
        }
        self.sorted.as_ref().map_or(&[], |(_, nodes)| nodes)
    }

    /// The value session `i` sorts by.
    fn value(&self, store: &Store, turns: &[u32], i: u32, sort: UsageSort) -> Option<f64> {
        let row = &store.sessions[i as usize];
        let own = sort.scope == UsageScope::Own;
        let usage = || store.usages.get((if own { row.usage } else { row.subtree_usage }) as usize);
        let tokens = |f: fn(&Usage) -> u64| usage().map(|u| f(u) as f64);
        match sort.column {
            UsageColumn::Tree => None,
            UsageColumn::Turns => Some(f64::from(if own {
                turns.get(i as usize).copied().unwrap_or(0)
            } else {
                self.spans.subtree_turns[i as usize]
            })),
            UsageColumn::Input => tokens(|u| u.input),
            UsageColumn::Output => tokens(|u| u.output),
            UsageColumn::CacheRead => tokens(|u| u.cache_read),
            UsageColumn::CacheWrite => tokens(|u| u.cache_write),
            UsageColumn::Tokens => tokens(|u| u.input + u.output + u.cache_read + u.cache_write),
            UsageColumn::Cost => usage().and_then(|u| u.cost),
            UsageColumn::Duration => {
                let ms = if own { self.spans.own[i as usize] } else { self.spans.subtree[i as usize] };
                ms.is_finite().then_some(ms)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Report;
    use crate::view::tests::view_of;
    use crate::view::{TreeOrder, View};
    use serde_json::json;

    /// R (a root, turns 0-40 s and 50-100 s) ran a (10-20 s), b (30-90 s) and c (no clock); b ran
    /// b1 (40-85 s); S is a root of one turn (100-105 s). Tokens and costs as [own, subtree].
    fn report() -> Report {
        let t = |s: f64| 1_767_225_600_000.0 + s * 1000.0;
        let at = |line: u64| json!({"file": "u.jsonl", "line": line});
        let usage =
            |n: u64, cost: f64| json!({"input": n, "output": 0, "cache_read": 0, "cache_write": 0, "cost": cost});
        let run = |parent: &str, line: u64, times: Option<(f64, f64)>| {
            let mut r = json!({"parent": parent, "start": at(line), "end": at(line + 1), "outcome": "ok", "link": "start-edge"});
            if let Some((a, b)) = times {
                r["start_time"] = json!(t(a));
                r["end_time"] = json!(t(b));
            }
            r
        };
        let session = |id: &str,
                       parent: Option<&str>,
                       own: Option<(u64, f64)>,
                       sub: Option<(u64, f64)>,
                       runs: Vec<serde_json::Value>| {
            let mut s = json!({"id": id, "parent": parent, "root": null, "depth": null, "label": null, "runs": runs, "events": 1});
            if let Some((n, c)) = own {
                s["usage"] = usage(n, c);
            }
            if let Some((n, c)) = sub {
                s["subtree_usage"] = usage(n, c);
            }
            s
        };
        let turn = |s: &str, line: u64, a: f64, b: f64| json!({"session": s, "turn": 1, "start": at(line), "end": at(line + 1), "reason": "completed", "steps": 0, "start_time": t(a), "end_time": t(b)});
        serde_json::from_value(json!({
            "report_version": 1,
            "inputs": [{"file": "u.jsonl", "format": "dsh-rpc", "records": 40, "bad_lines": 0, "bytes": 1}],
            "sessions": [
                session("R", None, Some((10, 0.4)), Some((510, 4.0)), vec![]),
                session("a", Some("R"), Some((100, 1.0)), Some((100, 1.0)), vec![run("R", 3, Some((10.0, 20.0)))]),
                session("b", Some("R"), Some((5, 0.05)), Some((400, 2.6)), vec![run("R", 5, Some((30.0, 90.0)))]),
                session("b1", Some("b"), Some((395, 2.55)), Some((395, 2.55)), vec![run("b", 7, Some((40.0, 85.0)))]),
                session("c", Some("R"), None, None, vec![run("R", 9, None)]),
                session("S", None, Some((1000, 0.1)), Some((1000, 0.1)), vec![]),
            ],
            "turns": [turn("R", 1, 0.0, 40.0), turn("R", 11, 50.0, 100.0), turn("S", 21, 100.0, 105.0)],
            "replies": [], "waits": [], "diagnostics": []
        }))
        .unwrap()
    }

    fn ids(v: &mut View, column: UsageColumn, scope: UsageScope, descending: bool) -> Vec<String> {
        v.usage_page(UsageSort { column, scope, descending }, 0, 100).rows.into_iter().map(|r| r.id).collect()
    }

    #[test]
    fn the_table_sorts_every_session_by_a_column_those_without_it_last() {
        let mut v = view_of(report());
        use UsageColumn as C;
        use UsageScope::{Own, Subtree};
        assert_eq!(ids(&mut v, C::Tree, Own, false), ["R", "a", "b", "b1", "c", "S"]);
        assert_eq!(ids(&mut v, C::Cost, Own, true), ["b1", "a", "R", "S", "b", "c"]);
        assert_eq!(ids(&mut v, C::Duration, Own, true), ["R", "b", "b1", "a", "S", "c"]);
        assert_eq!(ids(&mut v, C::Tokens, Subtree, true), ["S", "R", "b", "b1", "a", "c"]);
        assert_eq!(
            ids(&mut v, C::Tokens, Subtree, false),
            ["a", "b1", "b", "R", "S", "c"],
            "least first, none still last"
        );
        assert_eq!(ids(&mut v, C::Turns, Own, true), ["R", "S", "a", "b", "b1", "c"], "ties in the tree's order");
        // A page is a slice of the sorted table, and each row says both scopes.
        let page = v.usage_page(UsageSort { column: C::Duration, scope: Subtree, descending: true }, 1, 2);
        assert_eq!((page.total, page.offset), (6, 1));
        let b = &page.rows[0];
        assert_eq!((b.id.as_str(), b.index, b.depth), ("b", 1, 1));
        assert_eq!((b.duration, b.subtree_duration), (Some(60_000.0), Some(60_000.0)), "b1 ran inside b's run");
        assert_eq!(b.usage.as_ref().map(|u| u.input), Some(5));
        assert_eq!(b.subtree_usage.as_ref().map(|u| u.input), Some(400));
        let all = v.usage_page(UsageSort::default(), 0, 100).rows;
        let r = &all[0];
        assert_eq!(
            (r.turns, r.subtree_turns, r.duration, r.subtree_duration),
            (2, 2, Some(100_000.0), Some(100_000.0))
        );
        let c = all.iter().find(|r| r.id == "c").unwrap();
        assert_eq!((c.duration, c.subtree_duration, c.usage.as_ref()), (None, None, None));
    }

    /// The tree orders siblings by their own or their subtree's duration, longest first, a
    /// session without a clock last; the table's tree order follows the tree's.
    #[test]
    fn the_tree_orders_siblings_by_duration() {
        let mut v = view_of(report());
        let rows = |v: &View| -> Vec<String> { v.tree_page(0, 100).rows.into_iter().map(|r| r.id).collect() };
        for order in [TreeOrder::OwnDuration, TreeOrder::SubtreeDuration] {
            v.set_tree_order(order);
            assert_eq!(rows(&v), ["R", "b", "b1", "a", "c", "S"], "{order:?}");
            assert_eq!(ids(&mut v, UsageColumn::Tree, UsageScope::Own, false), rows(&v));
        }
        v.set_tree_order(TreeOrder::Wire);
        assert_eq!(ids(&mut v, UsageColumn::Tree, UsageScope::Own, false), ["R", "a", "b", "b1", "c", "S"]);
    }
}
