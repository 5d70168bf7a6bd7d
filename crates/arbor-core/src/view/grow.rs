//! A view that grows with a followed log (SPEC 5 Follow): `View::grow` turns the view of one
//! snapshot of a `Live` into the view of a later one, keeping every row whose source did not
//! change and making only the others, so that a revision costs what the log said since, not what
//! the whole log holds. A 1 GiB log's view made again took 0.3 s (dsh-rpc) to 1.1 s (Copilot) at
//! every revision, most of it making rows that were already there: ids interned again, places
//! looked up, texts read back from the files.
//!
//! Two snapshots of one `Live` share what the first one's `Lineage` says was final: the same
//! symbols name the same ids, and the same records sit at the same lines. So a row is kept when
//! its source (a session, a turn, a reply, a wait, a finding, at the same symbol or index) has
//! the same values in both snapshots and everything it names was final in the first (what
//! finishing a copy added at a file's end, or a line still being written, may read otherwise
//! later): equal values make equal rows, whether or not they are the same item of the log (a
//! Copilot wait is made anew by every snapshot's finishing). What is derived from the whole (a
//! session's root, depth and tokens, a reply's root flag and run) is compared with the row as it
//! is. Every other row is made again from the later snapshot, as `View::of_analysis` makes it,
//! and the rows are laid out in the later snapshot's report order. The tree, the lists' orders
//! and the counts are then made again from the tables (integer passes, no texts), and the
//! timeline is laid out when first asked.
//!
//! What it cannot grow (another `Live`, files that appeared, a durable log that took over a
//! recording's sessions, tables half made of rows no longer used) is made again whole.

use super::sources::{provisional_rows, Grown};
use super::store::{At, SessionRow, Store, NONE};
use super::{Timeline, View};
use crate::analysis::Analysis;
use crate::analysis::Lineage;
use crate::finding::Loc;
use crate::intern::Sym;
use crate::report::Usage;
use crate::report_parts::{ReportParts, LOOSE};

/// Why a view cannot grow from `before` to `now`, when it cannot.
fn cannot_grow(view: &View, before: &Analysis, now: &Analysis) -> Option<&'static str> {
    let Some(source) = &view.source else { return Some("the view was not made from a followed log") };
    let (Some(b), Some(n)) = (&before.lineage, &now.lineage) else { return Some("not a followed log's snapshot") };
    if source.snapshot != b.snapshot {
        return Some("the view is not of the snapshot before");
    }
    if b.live != n.live || source.live != n.live {
        return Some("the log was read again from the start");
    }
    if before.files.len() != now.files.len()
        || before
            .files
            .iter()
            .zip(&now.files)
            .any(|(x, y)| x.display != y.display || x.format.map(|f| f.id) != y.format.map(|f| f.id))
        || (0..now.files.len() as u32).any(|f| before.cx.rank(f) != now.cx.rank(f))
    {
        return Some("files appeared");
    }
    if before.cx.durable.len() != now.cx.durable.len() {
        return Some("a durable log took over sessions");
    }
    let same_prices = match (&before.prices, &now.prices) {
        (None, None) => true,
        (Some(x), Some(y)) => std::sync::Arc::ptr_eq(x, y),
        _ => false,
    };
    if !same_prices {
        return Some("the prices changed");
    }
    let s = &view.store;
    let g = s.garbage;
    if (g.text > (1 << 20) && 2 * g.text > s.texts.bytes())
        || (g.runs > 4096 && 2 * g.runs > s.runs.len())
        || (g.steps > 4096 && 2 * g.steps > s.steps.len())
        || (g.usages > 4096 && 2 * g.usages > s.usages.len())
    {
        return Some("most of the tables were rows no longer shown");
    }
    None
}

/// Bit for bit: a cost summed in another order may differ in its last bits, and `-0.0` is not
/// written as `0.0`.
fn same_usage(a: Option<Usage>, b: Option<&Usage>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => {
            a.input == b.input
                && a.output == b.output
                && a.cache_read == b.cache_read
                && a.cache_write == b.cache_write
                && a.cost.map(f64::to_bits) == b.cost.map(f64::to_bits)
        }
        _ => false,
    }
}

/// The state of one `View::grow`: both snapshots, and what the view knows of the earlier one.
struct Grow<'a, 'p> {
    before: &'a Analysis,
    now: &'a Analysis,
    /// The earlier snapshot's lineage: what of it was final.
    b: &'a Lineage,
    parts: &'p ReportParts<'a>,
    ids: Vec<u32>,
    files: &'a [u32],
}

impl Grow<'_, '_> {
    /// Whether engine symbol `s` names the same id in both snapshots.
    fn stable_sym(&self, s: Sym) -> bool {
        (s.0 as usize) < self.b.ids
    }

    fn final_at(&self, at: Option<Loc>) -> bool {
        at.is_none_or(|l| self.b.is_final(l))
    }

    fn final_record(&self, r: Option<u32>) -> bool {
        r.is_none_or(|r| self.b.is_final_record(r))
    }

    /// The store's symbol of engine symbol `s`, when the store has the id.
    fn sym(&mut self, store: &Store, s: Sym) -> u32 {
        let i = s.0 as usize;
        if let Some(&k) = self.ids.get(i).filter(|&&k| k != NONE) {
            return k;
        }
        let k = store.ids.get(self.now.cx.ids.name(s)).map_or(NONE, |k| k.0);
        // Only a symbol the live context had is the same id in later snapshots.
        if k != NONE && i < self.now.lineage.as_ref().map_or(0, |l| l.ids) {
            if self.ids.len() <= i {
                self.ids.resize(i + 1, NONE);
            }
            self.ids[i] = k;
        }
        k
    }

    fn at(&self, l: Loc) -> At {
        At {
            file: self.files.get(l.file as usize).copied().unwrap_or(NONE),
            line: u32::try_from(l.line).unwrap_or(u32::MAX),
        }
    }

    /// Whether session `s`'s row `row` (made from the earlier snapshot) is the row the later one
    /// makes.
    fn same_session(&mut self, store: &Store, s: Sym, row: &SessionRow) -> bool {
        if !self.stable_sym(s) {
            return false;
        }
        let (gb, gn) = (&self.before.cx.graph, &self.now.cx.graph);
        let (Some(b), Some(n)) = (gb.get(s), gn.get(s)) else { return false };
        let node_same = n.events == b.events
            && n.parent == b.parent
            && n.parent.is_none_or(|p| self.stable_sym(p))
            && n.inferred_parent == b.inferred_parent
            && n.unknown_parent == b.unknown_parent
            && n.runs.len() == b.runs.len()
            && n.runs.iter().zip(b.runs.iter()).all(|(x, y)| {
                x.parent == y.parent
                    && x.parent.is_none_or(|p| self.stable_sym(p))
                    && x.start == y.start
                    && x.end == y.end
                    && x.outcome == y.outcome
                    && x.link == y.link
                    && self.final_at(x.start)
                    && self.final_at(x.end)
            })
            && gn.label(n) == gb.label(b);
        if !node_same {
            return false;
        }
        let p = self.parts.placement(s);
        let root = p.and_then(|p| p.root);
        if root.is_some_and(|r| !self.stable_sym(r)) {
            return false;
        }
        let root = root.map_or(NONE, |r| self.sym(store, r));
        if row.root != root || row.depth != p.and_then(|p| p.depth).unwrap_or(NONE) {
            return false;
        }
        let (own, subtree) = self.parts.usage_of(s);
        if !same_usage(own, store.usages.get(row.usage as usize))
            || !same_usage(subtree, store.usages.get(row.subtree_usage as usize))
        {
            return false;
        }
        // What the parent received from each run: the same final place (its text is read from
        // there).
        store.runs_of_row(row).iter().enumerate().all(|(i, r)| match self.parts.received_index(s, i) {
            None => r.received == NONE,
            Some(k) => {
                let at = self.now.cx.received[k].at.at;
                r.received != NONE && self.b.is_final(at) && r.received_at == self.at(at)
            }
        })
    }

    /// Whether turn `i` is the same in both snapshots, its records final. (Not necessarily the
    /// same turn: one that finishing a copy made may be another in the later snapshot; but a
    /// turn is its values, and equal values make equal rows.)
    fn same_turn(&self, i: usize) -> bool {
        let (tb, tn) = (&self.before.cx.turns, &self.now.cx.turns);
        let (Some(b), Some(n)) = (tb.list.get(i), tn.list.get(i)) else { return false };
        let same_id = match (b.turn, n.turn) {
            (crate::turns::TurnId::Num(x), crate::turns::TurnId::Num(y)) => x == y,
            (crate::turns::TurnId::Text(x), crate::turns::TurnId::Text(y)) => tb.id_text(x) == tn.id_text(y),
            _ => false,
        };
        let (sb, sn) = (tb.step_spans(b), tn.step_spans(n));
        same_id
            && b.session == n.session
            && self.stable_sym(n.session)
            && b.start() == n.start()
            && b.end() == n.end()
            && self.final_record(n.start())
            && self.final_record(n.end())
            && sb.len() == sn.len()
            && sb.iter().zip(sn).all(|(x, y)| {
                x.step == y.step
                    && x.start == y.start
                    && x.end() == y.end()
                    && self.final_record(Some(y.start))
                    && self.final_record(y.end())
            })
    }

    /// Whether wait `i` is the same, with the same final places, in both snapshots.
    fn same_wait(&self, i: usize) -> bool {
        let (Some(b), Some(n)) = (self.before.cx.waits.get(i), self.now.cx.waits.get(i)) else { return false };
        let text_final = |r: Option<crate::ctx::TextRef>| self.final_at(r.map(|r| r.at));
        b.root == n.root
            && self.stable_sym(n.root)
            && b.start == n.start
            && b.end == n.end
            && b.outcome == n.outcome
            && b.reply == n.reply
            && b.finish_reason == n.finish_reason
            && b.notifications == n.notifications
            && b.events == n.events
            && b.naive.end == n.naive.end
            && b.naive.outcome == n.naive.outcome
            && b.naive.reply == n.naive.reply
            && b.naive.notifications == n.naive.notifications
            && self.final_at(n.start)
            && self.final_at(n.end)
            && self.final_at(n.naive.end.flatten())
            && text_final(n.reply)
            && text_final(n.naive.reply.flatten())
    }

    /// Whether reply outside any turn `j` is the same in both snapshots, at a final place.
    fn same_loose(&self, j: usize) -> bool {
        let (Some(b), Some(n)) = (self.before.cx.loose_replies.get(j), self.now.cx.loose_replies.get(j)) else {
            return false;
        };
        b.session == n.session && b.text == n.text && self.stable_sym(n.session) && self.b.is_final(n.text.at)
    }

    /// Whether finding `i` is the same in both snapshots, at a final place.
    fn same_finding(&self, i: usize) -> bool {
        let (fb, fnow) = (&self.before.cx.findings.list, &self.now.cx.findings.list);
        let (Some(b), Some(n)) = (fb.get(i), fnow.get(i)) else { return false };
        b.code == n.code
            && b.at == n.at
            && b.session == n.session
            && n.session.is_none_or(|s| self.stable_sym(s))
            && b.message == n.message
            && self.b.is_final(n.at)
    }
}

/// Rows kept and made.
#[derive(Default)]
struct Count {
    kept: usize,
    made: usize,
}

/// Which rows of a table a view keeps as it grows: per source of the later order, the row before
/// that shows it unchanged (`NONE`: it is made again). When the rows before keep their places
/// (the sources before begin the later order: the log grew at its end), the table is changed in
/// place, where a new one would cost a page fault for every few dozen rows of a large log.
struct Plan {
    keep: Vec<u32>,
    in_place: bool,
}

impl Plan {
    /// The plan for sources `order` (each below `slots`), the rows before showing `before`;
    /// `same(row, source)` says whether row `row` shows `source` as it is now.
    fn of(before: &[u32], order: &[u32], slots: usize, same: impl FnMut(usize, u32) -> bool) -> Plan {
        Plan::of_slots(before, order, slots, |s| s as usize, same)
    }

    /// `of`, with sources numbered into `0..slots` by `slot`.
    fn of_slots(
        before: &[u32],
        order: &[u32],
        slots: usize,
        slot: impl Fn(u32) -> usize,
        mut same: impl FnMut(usize, u32) -> bool,
    ) -> Plan {
        let in_place = order.len() >= before.len() && order[..before.len()] == *before;
        let keep = if in_place {
            order
                .iter()
                .enumerate()
                .map(|(k, &s)| if k < before.len() && same(k, s) { k as u32 } else { NONE })
                .collect()
        } else {
            let mut by_slot = vec![NONE; slots];
            for (row, &s) in before.iter().enumerate() {
                if let Some(x) = by_slot.get_mut(slot(s)) {
                    *x = row as u32;
                }
            }
            order
                .iter()
                .map(|&s| match by_slot.get(slot(s)).copied().unwrap_or(NONE) {
                    NONE => NONE,
                    row if same(row as usize, s) => row,
                    _ => NONE,
                })
                .collect()
        };
        Plan { keep, in_place }
    }

    /// The sources made again.
    fn made<'o>(&'o self, order: &'o [u32]) -> impl Iterator<Item = u32> + 'o {
        order.iter().zip(&self.keep).filter(|(_, &k)| k == NONE).map(|(&s, _)| s)
    }

    /// The later table from `rows` (the table before): rows kept, the others made by `make` in
    /// order, and `forget` told of each row no longer shown.
    fn apply<R: Clone>(
        &self,
        mut rows: Vec<R>,
        order: &[u32],
        store: &mut Store,
        count: &mut Count,
        mut make: impl FnMut(&mut Store, u32) -> R,
        mut forget: impl FnMut(&mut Store, &R),
    ) -> Vec<R> {
        if self.in_place {
            let before = rows.len();
            for (k, (&s, &keep)) in order.iter().zip(&self.keep).enumerate() {
                if keep != NONE {
                    count.kept += 1;
                    continue;
                }
                count.made += 1;
                let row = make(store, s);
                if k < before {
                    forget(store, &rows[k]);
                    rows[k] = row;
                } else {
                    rows.push(row);
                }
            }
            return rows;
        }
        let mut used = vec![false; rows.len()];
        let mut out = Vec::with_capacity(order.len());
        for (&s, &keep) in order.iter().zip(&self.keep) {
            if keep != NONE {
                used[keep as usize] = true;
                out.push(rows[keep as usize].clone());
                count.kept += 1;
            } else {
                out.push(make(store, s));
                count.made += 1;
            }
        }
        for (row, used) in rows.iter().zip(used) {
            if !used {
                forget(store, row);
            }
        }
        out
    }
}

impl View {
    /// Grows this view of `before` (a followed log's snapshot) into the view of `now` (a later
    /// snapshot of the same `Live`) at `revision`, as `View::of_analysis_with(now, revision, …,
    /// Timeline::WhenAsked)` would make it, with the tree's order and collapsed sessions kept
    /// (`keep_collapsed`). Rows whose sources did not change are kept; the others are made
    /// again (see the module's description). When it cannot grow, the view is made again whole
    /// (`Grown::Made`), which `go_on` may stop: then this view is left as it was and `None` is
    /// answered.
    pub fn grow(
        &mut self,
        before: &Analysis,
        now: &Analysis,
        revision: u64,
        go_on: &dyn Fn() -> bool,
    ) -> Option<Grown> {
        if let Some(why) = cannot_grow(self, before, now) {
            let mut made = View::of_analysis_with(now, revision, go_on, Timeline::WhenAsked)?;
            made.keep_collapsed(self);
            *self = made;
            return Some(Grown::Made(why));
        }
        let (kept, made) = self.grow_tables(before, now);
        let collapsed: Vec<u32> = self.tree.collapsed().map(|n| self.store.sessions[n as usize].id.0).collect();
        let order = self.order;
        let store = std::mem::take(&mut self.store);
        let source = self.source.take();
        let mut view = View::of_store(store, revision, &|| true, Timeline::WhenAsked)
            .unwrap_or_else(|| unreachable!("a view that is never stopped is made"));
        view.source = source;
        view.set_tree_order(order);
        let nodes: Vec<u32> = collapsed.into_iter().filter_map(|id| view.store.session_of_sym(Sym(id))).collect();
        view.tree.collapse(nodes);
        *self = view;
        Some(Grown::Grew { kept, made })
    }

    /// The tables of `now` from those of `before`: (rows kept, rows made).
    fn grow_tables(&mut self, before: &Analysis, now: &Analysis) -> (usize, usize) {
        let parts = &ReportParts::for_view(now);
        let mut source = self.source.take().expect("a view that can grow has its sources");
        let b = before.lineage.as_ref().expect("a followed log's snapshot");
        source.ids.truncate(b.ids);
        let store = &mut self.store;
        // The rows below are made from `now`'s parts (its symbols, not those rows were made
        // from before).
        store.forget_syms();
        let mut g = Grow { before, now, b, parts, ids: std::mem::take(&mut source.ids), files: &source.files };
        let mut count = Count::default();

        // Sessions, in the later report order; the texts of what parents received read back
        // together for those made again.
        let order: Vec<u32> = parts.session_order().iter().map(|s| s.0).collect();
        let rows = std::mem::take(&mut store.sessions);
        let plan = Plan::of(&source.sessions, &order, b.ids, |k, s| g.same_session(store, Sym(s), &rows[k]));
        let wanted: Vec<usize> = plan
            .made(&order)
            .filter_map(|s| now.cx.graph.get(Sym(s)).map(|n| (Sym(s), n.runs.len())))
            .flat_map(|(s, runs)| (0..runs).filter_map(move |i| parts.received_index(s, i)))
            .collect();
        let texts = now.received_texts_of(&wanted);
        let text_of: crate::intern::HashMap<usize, &str> =
            wanted.iter().copied().zip(texts.iter().map(String::as_str)).collect();
        let rows = plan.apply(
            rows,
            &order,
            store,
            &mut count,
            |store, s| {
                let received = |s: Sym, run: usize| {
                    let k = parts.received_index(s, run)?;
                    Some(parts.received_ref(k, text_of.get(&k).copied().unwrap_or("")))
                };
                // A session the order names has a node: made as `View::of_analysis` makes it.
                let session = parts.session_ref(Sym(s), received).expect("a session in report order");
                store.session_row_ref(session)
            },
            |store, row| {
                store.garbage.runs += row.run_len as usize;
                store.garbage.usages += usize::from(row.usage != NONE) + usize::from(row.subtree_usage != NONE);
                store.garbage.text += store
                    .runs_of_row(row)
                    .iter()
                    .filter(|r| r.received != NONE)
                    .map(|r| store.texts.get(r.received).len())
                    .sum::<usize>();
            },
        );
        store.set_sessions(rows);
        source.sessions = order;
        // Turns, in the later report order, and which of them are the same.
        let order = parts.turn_order().to_vec();
        let turn_count = now.cx.turns.list.len();
        let mut same_turn = vec![false; turn_count];
        let rows = std::mem::take(&mut store.turns);
        let plan = Plan::of(&source.turns, &order, turn_count, |_, i| {
            let same = g.same_turn(i as usize);
            same_turn[i as usize] = same;
            same
        });
        let rows = plan.apply(
            rows,
            &order,
            store,
            &mut count,
            |store, i| store.turn_row_ref(parts.turn_ref(i as usize)),
            |store, row| {
                store.garbage.steps += row.step_len as usize;
            },
        );
        store.turns = rows;
        source.turns = order.clone();
        // Replies: the turns' in turn order, then those outside any turn.
        let loose = parts.loose_order();
        let mut replies: Vec<u32> = order.iter().copied().filter(|&i| parts.has_turn_reply(i as usize)).collect();
        replies.extend(loose.iter().map(|&j| j | LOOSE));
        let rows = std::mem::take(&mut store.replies);
        let slots = turn_count + now.cx.loose_replies.len();
        let slot = |src: u32| if src & LOOSE != 0 { turn_count + (src & !LOOSE) as usize } else { src as usize };
        let plan = Plan::of_slots(&source.replies, &replies, slots, slot, |k, src| {
            let row = &rows[k];
            if src & LOOSE != 0 {
                let j = (src & !LOOSE) as usize;
                g.same_loose(j) && row.root == parts.is_root(now.cx.loose_replies[j].session)
            } else {
                let i = src as usize;
                let t = &now.cx.turns.list[i];
                same_turn.get(i).copied().unwrap_or(false)
                    && before.cx.turns.list.get(i).and_then(|t| t.reply()) == t.reply()
                    && g.final_record(t.reply())
                    && row.root == parts.is_root(t.session)
                    && row.run == parts.run_of(t).unwrap_or(NONE)
            }
        });
        let rows = plan.apply(
            rows,
            &replies,
            store,
            &mut count,
            |store, src| {
                let (reply, offset) = if src & LOOSE != 0 {
                    parts.loose_reply((src & !LOOSE) as usize)
                } else {
                    parts.turn_reply(src as usize).expect("a turn with a reply")
                };
                store.reply_row_ref(reply, offset)
            },
            |_, _| {},
        );
        store.replies = rows;
        source.replies = replies;
        // Waits, by where each began; the texts of those made again read back together.
        let order = parts.wait_order();
        let rows = std::mem::take(&mut store.waits);
        let plan = Plan::of(&source.waits, &order, now.cx.waits.len(), |_, i| g.same_wait(i as usize));
        let texts = now.texts_at(plan.made(&order).flat_map(|i| {
            let w = &now.cx.waits[i as usize];
            w.reply.into_iter().chain(w.naive.reply.flatten())
        }));
        let rows = plan.apply(
            rows,
            &order,
            store,
            &mut count,
            |store, i| store.wait_row(parts.wait_ref(i as usize, |t| texts.get(t)).into()),
            |store, row| {
                let naive = match row.naive_reply {
                    super::store::Maybe::Is(t) => t,
                    _ => NONE,
                };
                store.garbage.text += [row.reply, naive]
                    .into_iter()
                    .filter(|&t| t != NONE)
                    .map(|t| store.texts.get(t).len())
                    .sum::<usize>();
            },
        );
        store.waits = rows;
        source.waits = order;
        // Findings, by place; a finding finishing the copy made is kept when it is the same.
        let order = parts.diagnostic_order();
        let rows = std::mem::take(&mut store.diagnostics);
        let plan = Plan::of(&source.diagnostics, &order, now.cx.findings.list.len(), |_, i| g.same_finding(i as usize));
        let rows = plan.apply(
            rows,
            &order,
            store,
            &mut count,
            |store, i| store.diagnostic_row(parts.diagnostic_ref(i as usize).into()),
            |store, row| {
                store.garbage.text += store.texts.get(row.message).len();
            },
        );
        store.diagnostics = rows;
        store.provisional = provisional_rows(&order, now.provisional);
        source.diagnostics = order;
        store.inputs = parts.inputs().map(Into::into).collect();
        store.usage_summary = parts.usage();
        source.ids = std::mem::take(&mut g.ids);
        source.snapshot = now.lineage.as_ref().expect("a followed log's snapshot").snapshot;
        self.source = Some(source);
        (count.kept, count.made)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::live::Live;
    use crate::view::same_views;

    fn line(ty: &str, data: &str, id: u32, second: u32) -> String {
        format!(r#"{{"type":"{ty}","data":{data},"id":"e{id}","timestamp":"2026-10-01T10:00:{second:02}Z"}}"#)
    }

    fn append(path: &std::path::Path, text: &str) {
        use std::io::Write;
        std::fs::OpenOptions::new().append(true).open(path).unwrap().write_all(text.as_bytes()).unwrap();
    }

    /// Grows `view` from `before` to a new snapshot of `live`, holds it to the view made afresh,
    /// and answers the snapshot.
    fn grow_and_compare(view: &mut View, before: &Analysis, live: &Live, revision: u64) -> (Analysis, Grown) {
        let now = live.snapshot();
        let grown = view.grow(before, &now, revision, &|| true).unwrap();
        let mut made = View::of_analysis_with(&now, revision, &|| true, Timeline::WhenAsked).unwrap();
        if let Err(e) = same_views(view, &mut made) {
            panic!("grown ({grown:?}) is not made afresh: {e}");
        }
        (now, grown)
    }

    /// A last line written whole but for its newline is read into the snapshot; when more is
    /// written onto it, it may become another line (here a broken one, the turn's end moving to
    /// the next line with the same record index): a row that names it is made again.
    #[test]
    fn a_row_that_names_a_line_still_being_written_is_made_again() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("events.jsonl");
        let head = [
            line("session.start", r#"{"sessionId":"main","copilotVersion":"1.0.83"}"#, 0, 0),
            line("user.message", r#"{"content":"go"}"#, 1, 1),
            line("assistant.turn_start", r#"{"turnId":"0"}"#, 2, 2),
        ];
        std::fs::write(&path, head.join("\n") + "\n").unwrap();
        let (first, live) = Live::analyze(std::slice::from_ref(&path), &mut ());
        let mut live = live.unwrap();
        let mut view = View::of_analysis(&first, 1, &|| true).unwrap();
        // The turn's end, whole but for its newline.
        append(&path, &line("assistant.turn_end", r#"{"turnId":"0"}"#, 3, 3));
        live.update(&mut ());
        let (before, grown) = grow_and_compare(&mut view, &first, &live, 2);
        assert!(matches!(grown, Grown::Grew { .. }), "{grown:?}");
        assert_eq!(view.summary().findings.total(), 0, "the end is read from the unfinished line");
        // More written onto that line breaks it; the turn ends on the next one, at another time.
        append(&path, &format!(" x\n{}\n", line("assistant.turn_end", r#"{"turnId":"0"}"#, 4, 9)));
        live.update(&mut ());
        let (_, grown) = grow_and_compare(&mut view, &before, &live, 3);
        assert!(matches!(grown, Grown::Grew { .. }), "{grown:?}");
        assert!(view.summary().findings.total() > 0, "the broken line is a finding");
    }

    fn two_level_lines() -> Vec<String> {
        let text = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../tests/conformance/cases/dsh-rpc-two-level/input/run.jsonl"),
        )
        .unwrap();
        text.lines().map(|l| format!("{l}\n")).collect()
    }

    /// The two-level case's first `n` lines written and read to be followed: the folder, the
    /// log's path, the analysis read, its `Live` and its view.
    fn followed(n: usize) -> (tempfile::TempDir, std::path::PathBuf, Analysis, Live, View) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.jsonl");
        std::fs::write(&path, two_level_lines()[..n].concat()).unwrap();
        let (first, live) = Live::analyze(std::slice::from_ref(&path), &mut ());
        let view = View::of_analysis(&first, 1, &|| true).unwrap();
        (dir, path, first, live.unwrap(), view)
    }

    /// A grown view keeps the tree's order and what was collapsed: a session that runs on under
    /// a collapsed one stays hidden until revealed.
    #[test]
    fn a_grown_view_keeps_the_trees_order_and_what_was_collapsed() {
        let lines = two_level_lines();
        // Up to the grandchild's start.
        let (_dir, path, first, mut live, mut view) = followed(12);
        view.set_tree_order(crate::view::TreeOrder::OwnTokens);
        view.tree_set_open("kid", Some(false));
        append(&path, &lines[12..].concat());
        live.update(&mut ());
        let now = live.snapshot();
        let grown = view.grow(&first, &now, 2, &|| true).unwrap();
        assert!(matches!(grown, Grown::Grew { .. }), "{grown:?}");
        assert_eq!(view.tree_order(), crate::view::TreeOrder::OwnTokens);
        let rows: Vec<(String, bool)> = view.tree_page(0, 10).rows.into_iter().map(|r| (r.id, r.collapsed)).collect();
        assert_eq!(rows, [("root".to_owned(), false), ("kid".to_owned(), true)], "grand hides under kid");
        assert_eq!(view.tree_reveal("grand").total, 3);
        // Opened again, it answers as the view made afresh in that order.
        let mut made = View::of_analysis_with(&now, 2, &|| true, Timeline::WhenAsked).unwrap();
        made.set_tree_order(crate::view::TreeOrder::OwnTokens);
        same_views(&mut view, &mut made).unwrap();
    }

    /// A view that cannot grow is made again whole, and says why: a snapshot of another `Live`,
    /// or of the same one read again from the start.
    #[test]
    fn a_view_of_another_reading_is_made_again() {
        let lines = two_level_lines();
        let (_dir, path, first, mut live, mut view) = followed(8);
        // Another reading of the same file.
        let (_, grown) = grow_and_compare(&mut view, &first, &Live::open(std::slice::from_ref(&path), &mut ()), 2);
        assert!(matches!(grown, Grown::Made(_)), "{grown:?}");
        // Rewritten: read again from the start.
        std::fs::write(&path, lines[..6].concat()).unwrap();
        let change = live.update(&mut ());
        assert!(change.rewritten);
        let mut view = View::of_analysis(&first, 1, &|| true).unwrap();
        let (_, grown) = grow_and_compare(&mut view, &first, &live, 2);
        assert_eq!(grown, Grown::Made("the log was read again from the start"));
        // A one-shot analysis has no sources to grow from.
        let once = crate::analyze(std::slice::from_ref(&path), &mut ());
        let mut view = View::of_analysis(&once, 1, &|| true).unwrap();
        let (_, grown) = grow_and_compare(&mut view, &once, &live, 3);
        assert!(matches!(grown, Grown::Made(_)), "{grown:?}");
    }
}
