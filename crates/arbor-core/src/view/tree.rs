//! The delegation tree as a flat pre-order list of rows with depths (as Jaeger's trace view does),
//! and which of them are collapsed: a viewer asks for the rows it shows, by their index among the
//! rows left visible, and never holds the whole tree.
//!
//! A subtree is a contiguous range `[row + 1, end)`, so collapsing a node is a skip, and the list
//! of visible rows is made again in one pass when a node opens or closes (about a millisecond for
//! 250,000 sessions). This module owns the structure and the collapse state; what a row says
//! (label, outcome, counts) is the caller's (`View` for a report, `Growing` for a log still
//! being read).

use std::collections::HashSet;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::store::NONE;
use crate::intern::{HashMap, Interner, Sym};
use crate::report::{Outcome, Place};

/// How many findings of each severity.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SeverityCounts {
    pub error: u32,
    pub warning: u32,
    pub info: u32,
}

impl SeverityCounts {
    pub fn add(&mut self, s: crate::report::Severity) {
        match s {
            crate::report::Severity::Error => self.error += 1,
            crate::report::Severity::Warning => self.warning += 1,
            crate::report::Severity::Info => self.info += 1,
        }
    }

    pub fn total(&self) -> u32 {
        self.error + self.warning + self.info
    }
}

/// One row of the tree as a viewer draws it. Fields are added as the report grows (a run's link,
/// token usage); those a tree of a log still being read does not know yet are left out.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct TreeRow {
    /// The row's index among the visible rows.
    pub index: u32,
    pub id: String,
    pub label: Option<String>,
    /// What a root session is about (its title or first prompt), read from its file for the
    /// view: not the report's `label`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub title: Option<String>,
    /// Depth in this tree (0 for a root), counted from the parent links.
    pub depth: u32,
    /// The engine's depth, when it computed one (it may differ from `depth` in a broken log).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub reported_depth: Option<u32>,
    pub parent: Option<String>,
    pub has_children: bool,
    pub collapsed: bool,
    /// How many runs (reused ids show every run); absent while the log is read.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub runs: Option<u32>,
    /// How many turns the session ran (a root has turns and no runs); absent while the log is read.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub turns: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "number")]
    pub events: Option<u64>,
    /// The outcome of the latest run; absent for a session that never ran as a sub-agent.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub outcome: Option<Outcome>,
    /// How the latest run was linked to its parent (SPEC 2: the evidence used).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub link: Option<crate::report::Link>,
    /// The session's own tokens and its subtree's, when the log counts them.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub usage: Option<crate::report::Usage>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub subtree_usage: Option<crate::report::Usage>,
    /// True when any run ended in error.
    pub any_error: bool,
    pub findings: SeverityCounts,
    /// Where choosing the session points the inspector: the start of its first run, else of its
    /// first turn.
    pub place: Option<Place>,
}

/// Rows `offset..offset + rows.len()` of the `total` visible ones, as of `revision`.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct TreePage {
    #[ts(type = "number")]
    pub revision: u64,
    pub total: u32,
    pub offset: u32,
    pub rows: Vec<TreeRow>,
}

/// Where a node is after a change of the collapse state: its visible index (`None` when hidden
/// or unknown) and how many rows are visible now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
pub struct TreeSpot {
    pub index: Option<u32>,
    pub total: u32,
}

/// How siblings follow each other in the tree: as the log made them (`wire`), by tokens, most
/// first: a session's own (`own-tokens`) or its subtree's (`subtree-tokens`), or by what its
/// subtree's priced part cost (`subtree-cost`, to the micro-dollar), or by how long it ran on
/// the log's clock, longest first: its own runs and turns (`own-duration`) or its subtree's
/// (`subtree-duration`, first start to last end). Siblings sort within their parent, so the tree
/// stays a tree; sessions without tokens (or without a cost, or a clock) come last, in wire
/// order, as do ties.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "kebab-case")]
pub enum TreeOrder {
    #[default]
    Wire,
    OwnTokens,
    SubtreeTokens,
    SubtreeCost,
    OwnDuration,
    SubtreeDuration,
}

/// The first node of each id: by the id's number while ids are a store's symbols (dense, the
/// usual case: a list is several times faster than a map for 250,000 sessions), else a map.
enum First {
    List(Vec<u32>),
    Map(HashMap<u32, u32>),
}

impl First {
    fn of(ids: &[u32]) -> First {
        let max = ids.iter().copied().filter(|&i| i != NONE).max().map_or(0, |m| m as usize + 1);
        if max <= 4 * ids.len() + 1024 {
            let mut list = vec![NONE; max];
            for (i, &id) in ids.iter().enumerate() {
                if let Some(slot) = list.get_mut(id as usize).filter(|s| **s == NONE) {
                    *slot = i as u32;
                }
            }
            First::List(list)
        } else {
            let mut map: HashMap<u32, u32> = HashMap::default();
            for (i, &id) in ids.iter().enumerate() {
                map.entry(id).or_insert(i as u32);
            }
            First::Map(map)
        }
    }

    fn get(&self, id: u32) -> Option<u32> {
        match self {
            First::List(l) => l.get(id as usize).copied().filter(|&i| i != NONE),
            First::Map(m) => m.get(&id).copied(),
        }
    }
}

/// The flattened tree and its collapse state. Nodes are numbered by the caller (their index in
/// its list); rows are the nodes in tree order.
#[derive(Debug, Default)]
pub struct Tree {
    /// Per row: its node, its depth, one past its subtree's last row, its parent's row.
    node: Vec<u32>,
    depth: Vec<u32>,
    end: Vec<u32>,
    parent_row: Vec<u32>,
    /// Per node: its row.
    row_of: Vec<u32>,
    collapsed: HashSet<u32, ahash::RandomState>,
    /// The visible rows, ascending; `None` while nothing is collapsed (every row is visible).
    visible: Option<Vec<u32>>,
}

impl Tree {
    /// Orders nodes root first, each followed by its subtree depth first, children in the order
    /// given. `ids[n]` names node `n`; `parents[n]` is its parent's id or `NONE`. A node whose
    /// parent is not a node (or is itself) is a root; a parent cycle is broken where it closes,
    /// each node appearing exactly once; a repeated id keeps its first node.
    pub fn build(ids: &[u32], parents: &[u32]) -> Tree {
        Tree::build_by(ids, parents, None)
    }

    /// `build`, siblings (roots among them) by `key[n]`, largest first, nodes without a key
    /// last; ties and keyless nodes keep the order given.
    pub fn build_by(ids: &[u32], parents: &[u32], key: Option<&[Option<u64>]>) -> Tree {
        let n = ids.len();
        let first = First::of(ids);
        // Children lists as ranges of one array, in node order.
        let mut parent_node = vec![NONE; n];
        let mut is_first = vec![false; n];
        let mut kids = vec![0u32; n + 1];
        for i in 0..n {
            if first.get(ids[i]) != Some(i as u32) {
                continue;
            }
            is_first[i] = true;
            if parents[i] != NONE && parents[i] != ids[i] {
                if let Some(p) = first.get(parents[i]) {
                    parent_node[i] = p;
                    kids[p as usize + 1] += 1;
                }
            }
        }
        for i in 0..n {
            kids[i + 1] += kids[i];
        }
        let mut fill = kids.clone();
        let mut child = vec![0u32; kids[n] as usize];
        for (i, &p) in parent_node.iter().enumerate() {
            if p != NONE {
                child[fill[p as usize] as usize] = i as u32;
                fill[p as usize] += 1;
            }
        }
        let most_first = |c: &u32| std::cmp::Reverse(key.and_then(|k| k.get(*c as usize).copied().flatten()));
        if key.is_some() {
            for p in 0..n {
                child[kids[p] as usize..kids[p + 1] as usize].sort_by_key(most_first);
            }
        }
        let mut roots: Vec<u32> =
            (0..n as u32).filter(|&i| is_first[i as usize] && parent_node[i as usize] == NONE).collect();
        if key.is_some() {
            roots.sort_by_key(most_first);
        }
        let mut t = Tree { row_of: vec![NONE; n], ..Tree::default() };
        // Depth first, iteratively: the stack holds (node, depth, parent row), children pushed in
        // reverse so that they come out in order. A row's end is set when the walk leaves it.
        let mut stack: Vec<(u32, u32, u32)> = Vec::new();
        let mut open: Vec<u32> = Vec::new();
        let mut visit = |t: &mut Tree, start: u32| {
            if t.row_of[start as usize] != NONE {
                return;
            }
            stack.push((start, 0, NONE));
            while let Some((node, depth, parent)) = stack.pop() {
                if t.row_of[node as usize] != NONE {
                    continue;
                }
                // Close the rows this one is not inside.
                while let Some(&top) = open.last() {
                    if top == parent {
                        break;
                    }
                    t.end[top as usize] = t.node.len() as u32;
                    open.pop();
                }
                let row = t.node.len() as u32;
                t.row_of[node as usize] = row;
                t.node.push(node);
                t.depth.push(depth);
                t.end.push(row + 1);
                t.parent_row.push(parent);
                open.push(row);
                let (a, b) = (kids[node as usize] as usize, kids[node as usize + 1] as usize);
                for &c in child[a..b].iter().rev() {
                    if t.row_of[c as usize] == NONE {
                        stack.push((c, depth + 1, row));
                    }
                }
            }
            for top in open.drain(..) {
                t.end[top as usize] = t.node.len() as u32;
            }
        };
        for r in roots {
            visit(&mut t, r);
        }
        // Nodes only reachable through a cycle have no root: start from each in order.
        for (i, _) in is_first.iter().enumerate().filter(|(_, &first)| first) {
            visit(&mut t, i as u32);
        }
        t
    }

    /// Every row in tree order, visible or not: (node, depth, its parent's row or `NONE`).
    pub fn all(&self) -> impl Iterator<Item = (u32, u32, u32)> + '_ {
        (0..self.node.len()).map(|r| (self.node[r], self.depth[r], self.parent_row[r]))
    }

    /// How many rows the tree has (one per distinct id).
    pub fn len(&self) -> usize {
        self.node.len()
    }

    pub fn is_empty(&self) -> bool {
        self.node.is_empty()
    }

    /// How many rows are visible.
    pub fn visible_len(&self) -> u32 {
        self.visible.as_ref().map_or(self.node.len(), Vec::len) as u32
    }

    /// The row at a visible index.
    fn row_at(&self, index: u32) -> Option<u32> {
        match &self.visible {
            None => ((index as usize) < self.node.len()).then_some(index),
            Some(v) => v.get(index as usize).copied(),
        }
    }

    /// The visible index of a row, if it is visible.
    fn index_of_row(&self, row: u32) -> Option<u32> {
        match &self.visible {
            None => Some(row),
            Some(v) => v.binary_search(&row).ok().map(|i| i as u32),
        }
    }

    /// The visible index of a node, if it is visible.
    pub fn index_of(&self, node: u32) -> Option<u32> {
        let row = *self.row_of.get(node as usize).filter(|&&r| r != NONE)?;
        self.index_of_row(row)
    }

    /// The collapsed nodes, in no order.
    pub fn collapsed(&self) -> impl Iterator<Item = u32> + '_ {
        self.collapsed.iter().copied()
    }

    pub fn is_collapsed(&self, node: u32) -> bool {
        self.collapsed.contains(&node)
    }

    /// The rows at visible indices `offset..offset + limit`: (node, depth, has children, parent
    /// node or `NONE`), for the caller to fill.
    pub fn rows(&self, offset: u32, limit: u32) -> impl Iterator<Item = (u32, RowShape)> + '_ {
        (offset..offset.saturating_add(limit)).map_while(move |i| {
            let row = self.row_at(i)? as usize;
            let parent = self.parent_row[row];
            Some((
                i,
                RowShape {
                    node: self.node[row],
                    depth: self.depth[row],
                    has_children: self.end[row] > row as u32 + 1,
                    parent_node: if parent == NONE { NONE } else { self.node[parent as usize] },
                },
            ))
        })
    }

    /// Opens (`Some(true)`), closes (`Some(false)`) or flips (`None`) a node with children.
    pub fn set_open(&mut self, node: u32, open: Option<bool>) -> TreeSpot {
        let row = self.row_of.get(node as usize).copied().unwrap_or(NONE);
        if row != NONE && self.end[row as usize] > row + 1 {
            let now_open = !self.collapsed.contains(&node);
            let want = open.unwrap_or(!now_open);
            if want != now_open {
                if want {
                    self.collapsed.remove(&node);
                } else {
                    self.collapsed.insert(node);
                }
                self.relayout();
            }
        }
        TreeSpot { index: self.index_of(node), total: self.visible_len() }
    }

    /// Opens every collapsed ancestor of a node, so that it is visible.
    pub fn reveal(&mut self, node: u32) -> TreeSpot {
        let mut row = self.row_of.get(node as usize).copied().unwrap_or(NONE);
        let mut changed = false;
        if row != NONE {
            row = self.parent_row[row as usize];
            while row != NONE {
                changed |= self.collapsed.remove(&self.node[row as usize]);
                row = self.parent_row[row as usize];
            }
        }
        if changed {
            self.relayout();
        }
        TreeSpot { index: self.index_of(node), total: self.visible_len() }
    }

    /// Makes the visible list again: a linear skip over collapsed subtrees.
    fn relayout(&mut self) {
        if self.collapsed.is_empty() {
            self.visible = None;
            return;
        }
        let mut v = Vec::with_capacity(self.node.len());
        let mut row = 0u32;
        let n = self.node.len() as u32;
        while row < n {
            v.push(row);
            row = if self.collapsed.contains(&self.node[row as usize]) { self.end[row as usize] } else { row + 1 };
        }
        self.visible = Some(v);
    }

    /// Collapses `nodes` (those with children), laying the visible rows out once.
    pub(super) fn collapse(&mut self, nodes: impl IntoIterator<Item = u32>) {
        for node in nodes {
            let row = self.row_of.get(node as usize).copied().unwrap_or(NONE);
            if row != NONE && self.end[row as usize] > row + 1 {
                self.collapsed.insert(node);
            }
        }
        self.relayout();
    }

    /// The same collapse state on a tree built again over more nodes (the nodes keep their
    /// numbers: a tree of a log still being read only grows).
    pub(super) fn keep_collapsed(&mut self, from: &Tree) {
        self.collapsed = from.collapsed.iter().copied().filter(|&n| (n as usize) < self.row_of.len()).collect();
        self.relayout();
    }
}

/// What the tree knows of a row; the caller adds what the row says.
#[derive(Debug, Clone, Copy)]
pub struct RowShape {
    pub node: u32,
    pub depth: u32,
    pub has_children: bool,
    pub parent_node: u32,
}

/// The tree of a log still being read, from the engine's deltas: sessions in order of first
/// appearance, a later run edge moving a session under its new parent. The tree is made again,
/// when asked for, after it changed.
#[derive(Debug, Default)]
pub struct Growing {
    ids: Interner,
    /// Per node: its id, parent id and label (symbols of `ids`; `NONE` for none).
    id: Vec<u32>,
    parent: Vec<u32>,
    label: Vec<u32>,
    /// Per node: its findings so far.
    findings: Vec<SeverityCounts>,
    /// Per symbol of `ids`: its node, or `NONE` (a parent not seen as a session yet).
    node_of: Vec<u32>,
    tree: Tree,
    stale: bool,
}

impl Growing {
    fn sym(&mut self, s: &str) -> u32 {
        let sym = self.ids.intern(s).0;
        if self.node_of.len() <= sym as usize {
            self.node_of.resize(sym as usize + 1, NONE);
        }
        sym
    }

    fn node(&mut self, id: &str) -> usize {
        let sym = self.sym(id);
        if self.node_of[sym as usize] == NONE {
            self.node_of[sym as usize] = self.id.len() as u32;
            self.id.push(sym);
            self.parent.push(NONE);
            self.label.push(NONE);
            self.findings.push(SeverityCounts::default());
        }
        self.node_of[sym as usize] as usize
    }

    /// A session seen (again): its parent and label as the delta gives them.
    pub fn session(&mut self, id: &str, parent: Option<&str>, label: Option<&str>) {
        let n = self.node(id);
        let p = parent.map_or(NONE, |p| self.sym(p));
        let l = label.map_or(NONE, |l| self.sym(l));
        self.parent[n] = p;
        if l != NONE {
            self.label[n] = l;
        }
        self.stale = true;
    }

    /// A finding of `session`: counted in its row's badges.
    pub fn finding(&mut self, session: &str, severity: crate::report::Severity) {
        let n = self.node(session);
        self.findings[n].add(severity);
    }

    /// A run edge: `child` now hangs under `parent`.
    pub fn edge(&mut self, child: &str, parent: Option<&str>) {
        let n = self.node(child);
        self.parent[n] = parent.map_or(NONE, |p| self.sym(p));
        self.stale = true;
    }

    pub fn len(&self) -> usize {
        self.id.len()
    }

    pub fn is_empty(&self) -> bool {
        self.id.is_empty()
    }

    fn fresh(&mut self) -> &mut Tree {
        if self.stale {
            let mut t = Tree::build(&self.id, &self.parent);
            t.keep_collapsed(&self.tree);
            self.tree = t;
            self.stale = false;
        }
        &mut self.tree
    }

    /// Rows of the tree as it stands.
    pub fn page(&mut self, revision: u64, offset: u32, limit: u32) -> TreePage {
        self.fresh();
        let t = &self.tree;
        let name = |s: u32| (s != NONE).then(|| self.ids.name(Sym(s)).to_owned());
        let rows = t
            .rows(offset, limit)
            .map(|(index, r)| TreeRow {
                index,
                id: self.ids.name(Sym(self.id[r.node as usize])).to_owned(),
                label: name(self.label[r.node as usize]),
                title: None,
                depth: r.depth,
                reported_depth: None,
                parent: name(self.parent[r.node as usize]),
                has_children: r.has_children,
                collapsed: t.is_collapsed(r.node),
                runs: None,
                turns: None,
                events: None,
                outcome: None,
                link: None,
                usage: None,
                subtree_usage: None,
                any_error: false,
                findings: self.findings[r.node as usize],
                place: None,
            })
            .collect();
        TreePage { revision, total: t.visible_len(), offset, rows }
    }

    fn node_named(&self, id: &str) -> Option<u32> {
        let sym = self.ids.get(id)?;
        self.node_of.get(sym.0 as usize).copied().filter(|&n| n != NONE)
    }

    pub fn set_open(&mut self, id: &str, open: Option<bool>) -> TreeSpot {
        let node = self.node_named(id);
        let t = self.fresh();
        match node {
            Some(n) => t.set_open(n, open),
            None => TreeSpot { index: None, total: t.visible_len() },
        }
    }

    pub fn reveal(&mut self, id: &str) -> TreeSpot {
        let node = self.node_named(id);
        let t = self.fresh();
        match node {
            Some(n) => t.reveal(n),
            None => TreeSpot { index: None, total: t.visible_len() },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tree from `(id, parent)` pairs, as text: one line a visible row, indented by depth.
    fn shape(t: &Tree, names: &[&str]) -> String {
        t.rows(0, u32::MAX)
            .map(|(_, r)| {
                let mark = if r.has_children {
                    if t.is_collapsed(r.node) {
                        "+"
                    } else {
                        "-"
                    }
                } else {
                    "."
                };
                format!("{}{mark}{}\n", "  ".repeat(r.depth as usize), names[r.node as usize])
            })
            .collect()
    }

    fn tree(pairs: &[(&str, Option<&str>)]) -> (Tree, Vec<&'static str>) {
        let mut syms: Vec<String> = Vec::new();
        let mut sym = |s: &str| match syms.iter().position(|x| x == s) {
            Some(i) => i as u32,
            None => {
                syms.push(s.to_owned());
                (syms.len() - 1) as u32
            }
        };
        let ids: Vec<u32> = pairs.iter().map(|(id, _)| sym(id)).collect();
        let parents: Vec<u32> = pairs.iter().map(|(_, p)| p.map_or(NONE, &mut sym)).collect();
        let names = pairs.iter().map(|(id, _)| &*Box::leak(id.to_string().into_boxed_str())).collect();
        (Tree::build(&ids, &parents), names)
    }

    #[test]
    fn roots_come_first_each_followed_by_its_subtree_in_order() {
        let (t, names) = tree(&[
            ("a", None),
            ("b", Some("a")),
            ("x", None),
            ("c", Some("b")),
            ("d", Some("a")),
            ("y", Some("x")),
            ("lost", Some("nowhere")),
        ]);
        assert_eq!(shape(&t, &names), "-a\n  -b\n    .c\n  .d\n-x\n  .y\n.lost\n");
        assert_eq!(t.len(), 7);
    }

    #[test]
    fn a_cycle_is_broken_where_it_closes_and_a_repeated_id_shows_once() {
        // p -> q -> r -> p has no root: it starts from its first node; s names itself as parent.
        let (t, names) = tree(&[("p", Some("r")), ("q", Some("p")), ("r", Some("q")), ("s", Some("s")), ("q", None)]);
        assert_eq!(shape(&t, &names), ".s\n-p\n  -q\n    .r\n");
    }

    #[test]
    fn collapsing_skips_a_subtree_and_reveal_opens_the_way_to_a_node() {
        let (mut t, names) =
            tree(&[("a", None), ("b", Some("a")), ("c", Some("b")), ("d", Some("a")), ("e", None), ("f", Some("e"))]);
        let spot = t.set_open(1, Some(false));
        assert_eq!(shape(&t, &names), "-a\n  +b\n  .d\n-e\n  .f\n");
        assert_eq!(spot, TreeSpot { index: Some(1), total: 5 });
        t.set_open(0, None);
        assert_eq!(shape(&t, &names), "+a\n-e\n  .f\n");
        assert_eq!(t.index_of(2), None, "c is hidden");
        assert_eq!(t.index_of(4), Some(1));
        // Revealing c opens a and b; d is then the fourth row.
        let spot = t.reveal(2);
        assert_eq!(spot, TreeSpot { index: Some(2), total: 6 });
        assert_eq!(shape(&t, &names), "-a\n  -b\n    .c\n  .d\n-e\n  .f\n");
        // A leaf cannot be collapsed; rows past the end are not there.
        assert_eq!(t.set_open(5, Some(false)), TreeSpot { index: Some(5), total: 6 });
        assert_eq!(t.rows(4, 10).map(|(i, r)| (i, r.node)).collect::<Vec<_>>(), [(4, 4), (5, 5)]);
        assert_eq!(t.rows(2, 2).map(|(_, r)| r.parent_node).collect::<Vec<_>>(), [1, 0]);
    }

    #[test]
    fn siblings_sort_by_their_key_within_their_parent_keyless_last() {
        let pairs = [
            ("a", None),
            ("b", Some("a")),
            ("c", Some("b")),
            ("d", Some("a")),
            ("e", Some("a")),
            ("x", None),
            ("y", Some("x")),
            ("z", None),
        ];
        let (t, names) = tree(&pairs);
        assert_eq!(shape(&t, &names), "-a\n  -b\n    .c\n  .d\n  .e\n-x\n  .y\n.z\n");
        let ids: Vec<u32> = (0..pairs.len() as u32).collect();
        let parents: Vec<u32> = [NONE, 0, 1, 0, 0, NONE, 5, NONE].to_vec();
        // x outweighs a, z has none; under a, d has more than b, e none.
        let key = [Some(5), Some(1), Some(9), Some(3), None, Some(7), Some(2), None];
        let mut sorted = Tree::build_by(&ids, &parents, Some(&key));
        assert_eq!(shape(&sorted, &names), "-x\n  .y\n-a\n  .d\n  -b\n    .c\n  .e\n.z\n");
        // Ties keep the order given.
        let tied = Tree::build_by(&ids, &parents, Some(&[Some(1); 8]));
        assert_eq!(shape(&tied, &names), shape(&t, &names));
        // What was collapsed stays collapsed in the other order.
        let mut wire = Tree::build(&ids, &parents);
        wire.set_open(1, Some(false));
        sorted.keep_collapsed(&wire);
        assert_eq!(shape(&sorted, &names), "-x\n  .y\n-a\n  .d\n  +b\n  .e\n.z\n");
    }

    #[test]
    fn a_deep_chain_does_not_recurse() {
        let n = 200_000u32;
        let ids: Vec<u32> = (0..n).collect();
        let parents: Vec<u32> = (0..n).map(|i| if i == 0 { NONE } else { i - 1 }).collect();
        let t = Tree::build(&ids, &parents);
        assert_eq!(t.rows(n - 1, 1).next().map(|(_, r)| r.depth), Some(n - 1));
        assert_eq!(t.end[0], n);
    }

    #[test]
    fn a_growing_tree_moves_a_session_under_its_new_parent_and_keeps_what_was_collapsed() {
        let mut g = Growing::default();
        g.session("root", None, None);
        g.session("kid", Some("root"), Some("task"));
        g.session("other", None, None);
        g.finding("kid", crate::report::Severity::Warning);
        let ids = |p: &TreePage| p.rows.iter().map(|r| (r.id.clone(), r.depth)).collect::<Vec<_>>();
        let page = g.page(1, 0, 10);
        assert_eq!(ids(&page), [("root".into(), 0), ("kid".into(), 1), ("other".into(), 0)]);
        assert_eq!(page.rows[1].label.as_deref(), Some("task"));
        assert_eq!(page.rows[1].findings, SeverityCounts { error: 0, warning: 1, info: 0 });
        assert_eq!(g.set_open("root", Some(false)), TreeSpot { index: Some(0), total: 2 });
        g.edge("other", Some("kid"));
        g.session("late", Some("other"), None);
        // Still collapsed after the tree is made again: only the root shows.
        let page = g.page(2, 0, 10);
        assert_eq!(ids(&page), [("root".into(), 0)]);
        assert!(page.rows[0].collapsed);
        assert_eq!(g.reveal("late"), TreeSpot { index: Some(3), total: 4 });
        let page = g.page(3, 1, 10);
        assert_eq!(ids(&page), [("kid".into(), 1), ("other".into(), 2), ("late".into(), 3)], "rows from the second on");
        assert_eq!(page.offset, 1);
        assert_eq!(page.rows[0].index, 1);
    }
}
