//! The session graph: identity and structure, in petgraph behind a newtype.
//!
//! Nodes are sessions (dsh) or agents (Copilot); an edge is one run of a child under a parent, and
//! is never rewritten once made (a run's parent is immutable). A session's *current* parent, which
//! routing reads, lives in `Ancestry` and changes when a child id is reused. `NodeIndex` never
//! leaves this module: callers name sessions by their interned id.

use crate::finding::Loc;
use crate::intern::Sym;
use crate::intern::{HashMap, HashSet};
use crate::report::{Link, Outcome};
use petgraph::stable_graph::{NodeIndex, StableDiGraph};

#[derive(Debug, Clone)]
pub struct RunData {
    pub parent: Option<Sym>,
    pub start: Option<Loc>,
    pub end: Option<Loc>,
    pub outcome: Outcome,
    /// How the parent was established.
    pub link: Link,
}

/// A session's runs. Almost every session runs once, so one run is kept in the node itself: a
/// `Vec` would be a heap block a session (80 bytes with its header, 244 k of them in a 1 GiB
/// Copilot log) plus its 24-byte handle. Reads as a slice.
#[derive(Debug, Clone)]
pub enum Runs {
    One(RunData),
    Many(Vec<RunData>),
}

impl Default for Runs {
    fn default() -> Self {
        Runs::Many(Vec::new())
    }
}

impl Runs {
    pub fn push(&mut self, run: RunData) {
        match self {
            Runs::Many(v) if v.is_empty() => *self = Runs::One(run),
            Runs::Many(v) => v.push(run),
            Runs::One(first) => *self = Runs::Many(vec![first.clone(), run]),
        }
    }
}

impl std::ops::Deref for Runs {
    type Target = [RunData];
    fn deref(&self) -> &[RunData] {
        match self {
            Runs::One(r) => std::slice::from_ref(r),
            Runs::Many(v) => v,
        }
    }
}

impl std::ops::DerefMut for Runs {
    fn deref_mut(&mut self) -> &mut [RunData] {
        match self {
            Runs::One(r) => std::slice::from_mut(r),
            Runs::Many(v) => v,
        }
    }
}

#[derive(Debug, Clone)]
pub struct SessionNode {
    pub id: Sym,
    /// Where it first appeared: the place of the line that made it (file, line, and its order
    /// among the sessions that line made), packed (`first_seen_key`); report order sorts by it,
    /// so that it does not depend on the order files were read in (a followed log reads them
    /// as they grow).
    pub first_seen: u64,
    /// Interned in the graph's labels (`SessionGraph::label`): a few names label every agent.
    label: Option<Sym>,
    pub runs: Runs,
    pub events: u64,
    /// The last parent this session had (the report's `parent`).
    pub parent: Option<Sym>,
    pub inferred_parent: bool,
    /// A child whose parent the log cannot name (a snapshot's child log opened alone, SPEC 1.1):
    /// no parent, and no root or depth.
    pub unknown_parent: bool,
}

/// A session's place in the final tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placement {
    pub root: Option<Sym>,
    pub depth: Option<u32>,
}

/// Every session's placement, by symbol.
#[derive(Debug, Clone, Default)]
pub struct Placements(Vec<Option<Placement>>);

impl Placements {
    pub fn get(&self, s: &Sym) -> Option<&Placement> {
        self.0.get(s.0 as usize)?.as_ref()
    }

    fn contains_key(&self, s: &Sym) -> bool {
        self.get(s).is_some()
    }

    fn insert(&mut self, s: Sym, p: Placement) {
        let i = s.0 as usize;
        if self.0.len() <= i {
            self.0.resize(i + 1, None);
        }
        self.0[i] = Some(p);
    }
}

impl std::ops::Index<&Sym> for Placements {
    type Output = Placement;
    fn index(&self, s: &Sym) -> &Placement {
        self.get(s).expect("a placed session")
    }
}

const NO_NODE: u32 = u32::MAX;

#[derive(Debug, Default, Clone)]
pub struct SessionGraph {
    graph: StableDiGraph<SessionNode, u32>,
    /// Each session's node, by symbol (`NO_NODE` for a symbol that names no session): symbols are
    /// dense, so a list costs 4 bytes a symbol where a map cost ~20 a session.
    index: Vec<u32>,
    nodes: usize,
    seen: u64,
    /// Sessions in order of first appearance, and every run edge as it was made: what a delta
    /// sends is the tail of each since the last one.
    order: Vec<Sym>,
    run_log: Vec<(Sym, Option<Sym>)>,
    labels: crate::intern::Interner,
    /// dsh-session headers' `delegationDepth` and where each was, to compare with the tree.
    header_depths: HashMap<Sym, (i64, Loc)>,
    /// The place of the line being routed (`set_place`), and how many sessions it has made.
    place: (u32, u64),
    made_here: u64,
    /// Each file's rank in reading order, where it differs from its index (`set_ranks`).
    ranks: Vec<u32>,
}

/// The pseudo-file of sessions made once every file is read (`SessionGraph::settling`).
const SETTLING: u32 = (1 << 24) - 1;

/// A first-seen key: the file in the top 24 bits, the line in the next 32, the order among the
/// sessions the line made in the last 8 (each saturating).
fn first_seen_key(file: u32, line: u64, made: u64) -> u64 {
    (u64::from(file.min(SETTLING)) << 40) | (line.min(u64::from(u32::MAX)) << 8) | made.min(255)
}

impl SessionGraph {
    /// The session named `id`, made on first sight.
    pub fn session(&mut self, id: Sym) -> &mut SessionNode {
        let ix = match self.node_ix(id) {
            Some(ix) => ix,
            None => {
                self.seen += 1;
                let first_seen = first_seen_key(self.place.0, self.place.1, self.made_here);
                self.made_here += 1;
                if self.place.0 == SETTLING {
                    // Each session made while settling gets a place of its own, in making order.
                    self.place.1 += 1;
                    self.made_here = 0;
                }
                let ix = self.graph.add_node(SessionNode {
                    id,
                    first_seen,
                    label: None,
                    runs: Runs::default(),
                    events: 0,
                    parent: None,
                    inferred_parent: false,
                    unknown_parent: false,
                });
                let i = id.0 as usize;
                if self.index.len() <= i {
                    self.index.resize(i + 1, NO_NODE);
                }
                self.index[i] = ix.index() as u32;
                self.nodes += 1;
                self.order.push(id);
                ix
            }
        };
        &mut self.graph[ix]
    }

    /// The place of the line being routed: sessions made now first appeared there.
    #[inline]
    pub fn set_place(&mut self, at: Loc) {
        if self.place != (at.file, at.line) {
            self.place = (at.file, at.line);
            self.made_here = 0;
        }
    }

    /// Every file is read: sessions made from now on come after all the others, in making order.
    pub fn settling(&mut self) {
        self.place = (SETTLING, 0);
        self.made_here = 0;
    }

    /// Each file's rank in reading order (index → rank), where files were read out of that order.
    pub fn set_ranks(&mut self, ranks: Vec<u32>) {
        self.ranks = ranks;
    }

    /// The sort key of a first-seen key, by the files' ranks.
    fn first_seen_order(&self, key: u64) -> u64 {
        let file = (key >> 40) as u32;
        match self.ranks.get(file as usize) {
            Some(&rank) if file != SETTLING => (u64::from(rank) << 40) | (key & ((1 << 40) - 1)),
            _ => key,
        }
    }

    /// A session's label.
    pub fn label(&self, node: &SessionNode) -> Option<&str> {
        node.label.map(|l| self.labels.name(l))
    }

    pub fn set_label(&mut self, id: Sym, label: &str) {
        let l = self.labels.intern(label);
        self.session(id).label = Some(l);
    }

    /// Whether any header gave a `delegationDepth` (`set_header_depth`).
    pub fn has_header_depths(&self) -> bool {
        !self.header_depths.is_empty()
    }

    pub fn header_depth(&self, id: Sym) -> Option<(i64, Loc)> {
        self.header_depths.get(&id).copied()
    }

    pub fn set_header_depth(&mut self, id: Sym, depth: i64, at: Loc) {
        self.session(id);
        self.header_depths.insert(id, (depth, at));
    }

    pub fn get(&self, id: Sym) -> Option<&SessionNode> {
        self.node_ix(id).map(|ix| &self.graph[ix])
    }

    pub fn get_mut(&mut self, id: Sym) -> Option<&mut SessionNode> {
        self.node_ix(id).map(|ix| &mut self.graph[ix])
    }

    fn node_ix(&self, id: Sym) -> Option<NodeIndex> {
        self.index.get(id.0 as usize).filter(|&&ix| ix != NO_NODE).map(|&ix| NodeIndex::new(ix as usize))
    }

    pub fn contains(&self, id: Sym) -> bool {
        self.node_ix(id).is_some()
    }

    pub fn len(&self) -> usize {
        self.nodes
    }

    pub fn is_empty(&self) -> bool {
        self.nodes == 0
    }

    /// Open a new run of `child` under `parent`, established by `link`: the child's parent
    /// becomes `parent`, and an immutable run edge is added. Returns the run's index.
    pub fn open_run(&mut self, child: Sym, parent: Option<Sym>, start: Option<Loc>, link: Link) -> usize {
        let node = self.session(child);
        node.runs.push(RunData { parent, start, end: None, outcome: Outcome::Open, link });
        node.parent = parent;
        node.inferred_parent = link == Link::Inferred;
        let run = node.runs.len() - 1;
        self.run_log.push((child, parent));
        if let Some(p) = parent {
            if let (Some(pi), Some(ci)) = (self.node_ix(p), self.node_ix(child)) {
                self.graph.add_edge(pi, ci, run as u32);
            }
        }
        run
    }

    /// Sessions in first-appearance order, from the `from`-th on.
    pub fn order_since(&self, from: usize) -> &[Sym] {
        self.order.get(from..).unwrap_or(&[])
    }

    /// Run edges (child, parent) in the order they were made, from the `from`-th on.
    pub fn runs_since(&self, from: usize) -> &[(Sym, Option<Sym>)] {
        self.run_log.get(from..).unwrap_or(&[])
    }

    /// Sessions in first-appearance order.
    pub fn nodes(&self) -> impl Iterator<Item = &SessionNode> {
        let mut v: Vec<&SessionNode> = self.graph.node_weights().collect();
        v.sort_by_key(|n| self.first_seen_order(n.first_seen));
        v.into_iter()
    }

    /// Root and depth of every session, following the last parent each had. A session whose
    /// chain meets a cycle, a parent that is not a loaded session, or a parent that is not
    /// known, has neither.
    pub fn placements(&self) -> Placements {
        let mut out = Placements(vec![None; self.index.len()]);
        let none = Placement { root: None, depth: None };
        let mut path = Vec::new();
        // The walk each session was last on the path of (a cycle is a session met twice in one
        // walk): no set to make for each of a quarter million sessions.
        let mut on_path = vec![0u32; self.index.len()];
        let mut walk = 0u32;
        for node in self.graph.node_weights() {
            if out.contains_key(&node.id) {
                continue;
            }
            // Walk up iteratively until a placed session, a root, or a repeat.
            walk += 1;
            path.clear();
            let mut cur = node.id;
            let base = loop {
                if let Some(&p) = out.get(&cur) {
                    break p;
                }
                match on_path.get_mut(cur.0 as usize) {
                    Some(w) if *w == walk => break none,
                    Some(w) => *w = walk,
                    None => break none,
                }
                path.push(cur);
                let here = self.get(cur);
                match here.and_then(|n| n.parent) {
                    None if here.is_some_and(|n| n.unknown_parent) => break none,
                    None => {
                        path.pop();
                        break Placement { root: Some(cur), depth: Some(0) };
                    }
                    Some(p) if !self.contains(p) => break none,
                    Some(p) => cur = p,
                }
            };
            if base.root == Some(cur) && base.depth == Some(0) {
                out.insert(cur, base);
            }
            for (i, s) in path.iter().rev().enumerate() {
                let p = match base.depth {
                    Some(d) => Placement { root: base.root, depth: Some(d + i as u32 + 1) },
                    None => none,
                };
                out.insert(*s, p);
            }
        }
        out
    }

    /// Sessions in report order: each root followed by its subtree depth-first, roots and siblings
    /// in order of first appearance; then whatever hangs under no root (cycles, missing parents).
    pub fn report_order(&self) -> Vec<Sym> {
        let nodes: Vec<&SessionNode> = self.nodes().collect();
        // Each session's children, in order of first appearance: ranges of one list, by the
        // parent's symbol (a map of lists cost a list for every parent).
        let syms = self.index.len();
        let mut start = vec![0u32; syms + 1];
        let mut tops = Vec::new();
        for n in &nodes {
            match n.parent {
                Some(p) if self.contains(p) => start[p.0 as usize + 1] += 1,
                _ => tops.push(n.id),
            }
        }
        for i in 0..syms {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut kids = vec![Sym(0); start[syms] as usize];
        for n in &nodes {
            if let Some(p) = n.parent.filter(|&p| self.contains(p)) {
                kids[fill[p.0 as usize] as usize] = n.id;
                fill[p.0 as usize] += 1;
            }
        }
        let mut out = Vec::with_capacity(self.nodes);
        let mut done = vec![false; syms];
        let mut stack = Vec::new();
        let mut visit = |first: Sym, out: &mut Vec<Sym>| {
            stack.push(first);
            while let Some(s) = stack.pop() {
                let i = s.0 as usize;
                if done[i] {
                    continue;
                }
                done[i] = true;
                out.push(s);
                stack.extend(kids[start[i] as usize..start[i + 1] as usize].iter().rev());
            }
        };
        for &t in &tops {
            visit(t, &mut out);
        }
        for n in &nodes {
            visit(n.id, &mut out);
        }
        out
    }
}

/// Current parents for routing (SPEC.md 2.1): one runtime's child → parent map, with a cycle-safe
/// walk to the root. Roots are cached; a start edge for a session that has children of its own
/// (rare: a subtree moves) drops every cache, any other only that session's.
#[derive(Debug, Default, Clone)]
pub struct Ancestry {
    parent: HashMap<Sym, Sym>,
    children: HashMap<Sym, u32>,
    cache: HashMap<Sym, (u64, Option<Sym>)>,
    generation: u64,
    visited: HashSet<Sym>,
}

impl Ancestry {
    /// A new runtime process: forget every edge.
    pub fn reset(&mut self) {
        self.parent.clear();
        self.children.clear();
        self.cache.clear();
        self.generation += 1;
    }

    pub fn parent_of(&self, s: Sym) -> Option<Sym> {
        self.parent.get(&s).copied()
    }

    /// Would making `parent` the parent of `child` make `child` its own ancestor?
    pub fn would_cycle(&mut self, child: Sym, parent: Sym) -> bool {
        if child == parent {
            return true;
        }
        if self.children.get(&child).copied().unwrap_or(0) == 0 {
            return false;
        }
        self.visited.clear();
        let mut cur = parent;
        loop {
            if cur == child {
                return true;
            }
            if !self.visited.insert(cur) {
                return false;
            }
            match self.parent.get(&cur) {
                Some(&p) => cur = p,
                None => return false,
            }
        }
    }

    pub fn set_parent(&mut self, child: Sym, parent: Sym) {
        if let Some(old) = self.parent.insert(child, parent) {
            if let Some(c) = self.children.get_mut(&old) {
                *c = c.saturating_sub(1);
            }
        }
        *self.children.entry(parent).or_default() += 1;
        if self.children.get(&child).copied().unwrap_or(0) > 0 {
            self.generation += 1;
        } else {
            self.cache.remove(&child);
        }
    }

    /// The root reached by walking current parents from `s`, or `None` when the walk meets a cycle.
    pub fn root(&mut self, s: Sym) -> Option<Sym> {
        let mut path = Vec::new();
        self.visited.clear();
        let mut cur = s;
        let result = loop {
            if let Some(&(g, r)) = self.cache.get(&cur) {
                if g == self.generation {
                    break r;
                }
            }
            if !self.visited.insert(cur) {
                break None;
            }
            path.push(cur);
            match self.parent.get(&cur) {
                Some(&p) => cur = p,
                None => break Some(cur),
            }
        };
        for n in path {
            self.cache.insert(n, (self.generation, result));
        }
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ancestry_walks_to_the_root_and_stops_on_a_cycle() {
        let (a, b, c, d) = (Sym(0), Sym(1), Sym(2), Sym(3));
        let mut anc = Ancestry::default();
        anc.set_parent(b, a);
        anc.set_parent(c, b);
        assert_eq!(anc.root(c), Some(a));
        assert!(anc.would_cycle(a, c));
        anc.set_parent(a, c);
        assert_eq!(anc.root(c), None);
        assert_eq!(anc.root(b), None);
        anc.set_parent(d, c);
        assert_eq!(anc.root(d), None);
        anc.reset();
        assert_eq!(anc.root(d), Some(d));
    }

    #[test]
    fn moving_a_subtree_moves_its_descendants_roots() {
        let (r1, r2, w, g) = (Sym(0), Sym(1), Sym(2), Sym(3));
        let mut anc = Ancestry::default();
        anc.set_parent(w, r1);
        anc.set_parent(g, w);
        assert_eq!(anc.root(g), Some(r1));
        anc.set_parent(w, r2);
        assert_eq!(anc.root(g), Some(r2));
    }

    #[test]
    fn a_hundred_thousand_deep_chain_is_placed_without_recursion() {
        let mut g = SessionGraph::default();
        let mut anc = Ancestry::default();
        for i in 0..100_000u32 {
            g.session(Sym(i));
            if i > 0 {
                g.open_run(Sym(i), Some(Sym(i - 1)), None, Link::StartEdge);
                anc.set_parent(Sym(i), Sym(i - 1));
                assert_eq!(anc.root(Sym(i)), Some(Sym(0)));
            }
        }
        let p = g.placements();
        assert_eq!(p[&Sym(99_999)], Placement { root: Some(Sym(0)), depth: Some(99_999) });
        assert_eq!(g.report_order().len(), 100_000);
    }
}

#[cfg(test)]
mod size_tests {
    /// Every Copilot agent is a node: 244 k in a 1 GiB log.
    #[test]
    fn a_session_node_stays_small() {
        assert_eq!(std::mem::size_of::<super::SessionNode>(), 104);
    }
}
