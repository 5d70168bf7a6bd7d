//! The evidence that links threads across rollouts, resolved in `settle`, because a child's
//! rollout and its parent's come in any order.

use crate::ctx::{Ctx, ReceivedRec, TextRef};
use crate::finding::{Code, Loc};
use crate::graph::Ancestry;
use crate::intern::{HashMap, HashSet, Sym};
use crate::report::{Link, Outcome};


/// How long after an `entered_review_mode` a review sub-agent may start and still be its child.
pub(super) const REVIEW_WINDOW_MS: f64 = 1000.0;

/// A rollout, as its file left it for `settle`.
#[derive(Debug, Clone)]
pub(super) struct Thread {
    pub(super) session: Sym,
    /// Its first `session_meta` (the run's start), and its last record (the run's end).
    pub(super) first: Loc,
    pub(super) last: Loc,
    pub(super) start_time: Option<f64>,
    /// The parent its own `session_meta` names (`thread-spawn`), where.
    pub(super) spawn_parent: Option<Sym>,
    /// `source.subagent` is `"review"`.
    pub(super) review: bool,
    /// It says it is a sub-agent (any `source.subagent`, or `thread_source: "subagent"`).
    pub(super) subagent: bool,
    pub(super) agent_path: Option<Sym>,
    /// From its last turn; `None` when it has no turn (its parent's activities may then say).
    pub(super) outcome: Option<Outcome>,
    /// The hash of its last reply.
    pub(super) reply: Option<u64>,
}

/// A parent's `sub_agent_activity` naming a child thread.
#[derive(Debug, Clone, Copy)]
pub(super) struct Activity {
    pub(super) parent: Sym,
    pub(super) child: Sym,
    pub(super) at: Loc,
    pub(super) time: Option<f64>,
    pub(super) started: bool,
    /// What the activity says of the child's run (`completed`, `interrupted`), if anything.
    pub(super) outcome: Option<Outcome>,
    /// The child's agent path, as its parent names it (`FINAL_ANSWER`s are signed with it).
    pub(super) path: Option<Sym>,
}

/// A `sub_agent_activity` kind: whether it starts the child, and what it says of its run.
pub(super) fn activity_kind(kind: Option<&str>) -> (bool, Option<Outcome>) {
    match kind {
        None | Some("started") => (true, None),
        Some("completed") => (false, Some(Outcome::Ok)),
        Some("interrupted") => (false, Some(Outcome::Cancelled)),
        Some("errored" | "failed") => (false, Some(Outcome::Error)),
        Some(_) => (false, None),
    }
}

/// What a parent received from a child (`FINAL_ANSWER`, `<subagent_notification>`).
#[derive(Debug, Clone, Copy)]
pub(super) struct Received {
    pub(super) parent: Sym,
    /// The child's agent path (or, in older notifications, its thread id), interned.
    pub(super) author: Sym,
    pub(super) at: TextRef,
    pub(super) time: Option<f64>,
    pub(super) hash: Option<u64>,
}

/// The evidence of every rollout read, and what settling has done with it.
#[derive(Debug, Default, Clone)]
pub(super) struct Rollouts {
    pub(super) threads: Vec<Thread>,
    pub(super) activities: Vec<Activity>,
    /// `entered_review_mode`: the rollout, and when.
    pub(super) reviews: Vec<(Sym, f64, Loc)>,
    pub(super) received: Vec<Received>,
    /// Settled runs: child → (parent, link, run index), so that settling again extends them.
    pub(super) linked: HashMap<Sym, (Option<Sym>, Link, usize)>,
    pub(super) told: HashSet<(Code, Loc, Option<Sym>)>,
    pub(super) received_done: HashSet<Sym>,
    /// `received` by parent, and how many of `received` it covers.
    pub(super) received_index: (HashMap<Sym, Vec<usize>>, usize),
}

impl Rollouts {
    /// What `parent` received, through an index made on first use (and again when more came).
    pub(super) fn received_by_parent(&mut self, parent: Sym) -> impl Iterator<Item = &Received> + '_ {
        if self.received_index.1 != self.received.len() {
            let mut index: HashMap<Sym, Vec<usize>> = HashMap::default();
            for (i, r) in self.received.iter().enumerate() {
                index.entry(r.parent).or_default().push(i);
            }
            self.received_index = (index, self.received.len());
        }
        let list = self.received_index.0.get(&parent).map_or(&[][..], Vec::as_slice);
        list.iter().map(|&i| &self.received[i])
    }

    pub(super) fn tell(&mut self, cx: &mut Ctx, code: Code, at: Loc, session: Option<Sym>, message: String) {
        if self.told.insert((code, at, session)) {
            cx.findings.add(code, at, session, message);
        }
    }
}

/// One piece of evidence for a child's parent, strongest first by `Link` rank.
#[derive(Debug, Clone, Copy)]
pub(super) struct Evidence {
    pub(super) link: Link,
    pub(super) parent: Sym,
    pub(super) at: Loc,
    pub(super) time: Option<f64>,
}

pub(super) fn rank(link: Link) -> u8 {
    match link {
        Link::ThreadSpawn => 0,
        Link::Activity => 1,
        Link::TimeWindow => 2,
        _ => 3,
    }
}

/// Once every rollout is read: link each child to its parent by the strongest evidence, report
/// what disagrees or is missing, and attach what each parent received.
pub(super) fn settle(cx: &mut Ctx) {
    let mut st = std::mem::take(cx.ext::<Rollouts>());
    settle_with(cx, &mut st);
    *cx.ext::<Rollouts>() = st;
}

pub(super) fn settle_with(cx: &mut Ctx, st: &mut Rollouts) {
    let loaded: HashMap<Sym, usize> = st.threads.iter().enumerate().map(|(i, t)| (t.session, i)).collect();
    // A name sorts the threads, so that the result does not depend on the order files came in.
    let mut order: Vec<usize> = (0..st.threads.len()).collect();
    order.sort_by(|&a, &b| cx.ids.name(st.threads[a].session).cmp(cx.ids.name(st.threads[b].session)));
    let by_name = |cx: &Ctx, s: Sym| cx.ids.name(s).to_owned();
    // Indexes, so that settling is linear in the evidence.
    let mut acts: HashMap<Sym, Vec<usize>> = HashMap::default();
    for (i, a) in st.activities.iter().enumerate() {
        acts.entry(a.child).or_default().push(i);
    }
    let mut reviews: Vec<(f64, Sym, Loc)> = st.reviews.iter().map(|&(p, ms, at)| (ms, p, at)).collect();
    reviews.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut ancestry = Ancestry::default();
    let mut missing_children: Vec<Activity> = Vec::new();
    for a in &st.activities {
        if a.started && !loaded.contains_key(&a.child) {
            missing_children.push(*a);
        }
    }
    for i in order {
        let t = st.threads[i].clone();
        let mut evidence: Vec<Evidence> = Vec::new();
        if let Some(p) = t.spawn_parent {
            evidence.push(Evidence { link: Link::ThreadSpawn, parent: p, at: t.first, time: t.start_time });
        }
        // Only a start ties a child to its parent: any thread may interact with any other (a
        // child messaging `/root` writes an activity naming the root).
        let own: Vec<Activity> = acts.get(&t.session).map_or(Vec::new(), |v| v.iter().map(|&i| st.activities[i]).collect());
        for a in own.iter().filter(|a| a.started && a.parent != t.session) {
            evidence.push(Evidence { link: Link::Activity, parent: a.parent, at: a.at, time: a.time });
        }
        let mut windowed: Vec<(Sym, f64, Loc)> = Vec::new();
        if t.review {
            if let Some(start) = t.start_time {
                let from = reviews.partition_point(|r| r.0 < start - REVIEW_WINDOW_MS);
                let to = reviews.partition_point(|r| r.0 <= start);
                for &(at_ms, p, at) in &reviews[from..to.max(from)] {
                    if p != t.session {
                        windowed.push((p, at_ms, at));
                    }
                }
            }
            let mut parents: Vec<Sym> = windowed.iter().map(|w| w.0).collect();
            parents.sort_unstable();
            parents.dedup();
            if parents.len() == 1 {
                // The last `entered_review_mode` before the child's start is the one it answers.
                let w = windowed.iter().max_by(|a, b| a.1.total_cmp(&b.1)).copied().expect("one at least");
                evidence.push(Evidence { link: Link::TimeWindow, parent: w.0, at: w.2, time: Some(w.1) });
            }
        }
        let is_child = t.subagent || !evidence.is_empty();
        if !is_child {
            continue;
        }
        // Strongest first; within a kind, the earliest, then by name: whatever the file order.
        evidence.sort_by(|a, b| {
            rank(a.link)
                .cmp(&rank(b.link))
                .then(a.time.unwrap_or(f64::INFINITY).total_cmp(&b.time.unwrap_or(f64::INFINITY)))
                .then_with(|| cx.ids.name(a.parent).cmp(cx.ids.name(b.parent)))
        });
        let child_name = by_name(cx, t.session);
        let chosen = evidence.first().copied();
        if let Some(c) = chosen {
            for e in evidence.iter().skip(1).filter(|e| e.parent != c.parent) {
                let msg = format!(
                    "{} names `{}` as the parent of `{child_name}`, but the stronger {} names `{}`: the {} stands",
                    e.link.as_str(),
                    by_name(cx, e.parent),
                    c.link.as_str(),
                    by_name(cx, c.parent),
                    c.link.as_str()
                );
                st.tell(cx, Code::SubagentLinksDisagree, e.at, Some(t.session), msg);
            }
        } else {
            let why = if windowed.is_empty() {
                "no thread-spawn parent, no parent's sub_agent_activity and no review window links it"
            } else {
                "its start lies in the review windows of several rollouts, so none is known to be its parent"
            };
            let msg = format!(
                "sub-agent `{child_name}`: {why}; it stands as its own root (a reader that pairs rollouts by time or position may pair it wrong)"
            );
            st.tell(cx, Code::SubagentLinkInferred, t.first, Some(t.session), msg);
        }
        let (parent, link) = match chosen {
            Some(c) if c.parent == t.session => {
                let msg = format!("`{child_name}` names itself as its parent");
                st.tell(cx, Code::AncestryCycle, c.at, Some(t.session), msg);
                (None, Link::Inferred)
            }
            Some(c) => {
                if ancestry.would_cycle(t.session, c.parent) {
                    let msg = format!(
                        "`{child_name}` names `{}` as its parent, which makes `{child_name}` its own ancestor",
                        by_name(cx, c.parent)
                    );
                    st.tell(cx, Code::AncestryCycle, c.at, Some(t.session), msg);
                }
                ancestry.set_parent(t.session, c.parent);
                if !loaded.contains_key(&c.parent) {
                    let msg = format!(
                        "the parent thread `{}` of `{child_name}` is not among the loaded rollouts",
                        by_name(cx, c.parent)
                    );
                    st.tell(cx, Code::MissingParentSession, c.at, Some(t.session), msg);
                }
                (Some(c.parent), c.link)
            }
            None => (None, Link::Inferred),
        };
        let run = match st.linked.get(&t.session) {
            Some(&(p, l, run)) if p == parent && l == link => run,
            _ => cx.graph.open_run(t.session, parent, Some(t.first), link),
        };
        st.linked.insert(t.session, (parent, link, run));
        // A child without turns: its parent's last activity that says how it ended, if any.
        let outcome = t.outcome.or_else(|| {
            own.iter()
                .filter(|a| Some(a.parent) == parent && a.outcome.is_some())
                .max_by(|a, b| a.time.unwrap_or(f64::NEG_INFINITY).total_cmp(&b.time.unwrap_or(f64::NEG_INFINITY)))
                .and_then(|a| a.outcome)
        });
        let node = cx.graph.session(t.session);
        if let Some(r) = node.runs.get_mut(run) {
            r.end = Some(t.last);
            r.outcome = outcome.unwrap_or(Outcome::Open);
        }
        if let Some(p) = parent {
            let mut authors: Vec<Sym> = own.iter().filter(|a| a.parent == p).filter_map(|a| a.path).collect();
            authors.extend(t.agent_path);
            authors.push(t.session);
            attach_received(cx, st, &t, p, &authors, run);
        }
    }
    for a in missing_children {
        let msg = format!(
            "`{}` started sub-agent thread `{}`, whose rollout is not loaded",
            by_name(cx, a.parent),
            by_name(cx, a.child)
        );
        st.tell(cx, Code::SubagentTranscriptMissing, a.at, Some(a.parent), msg);
    }
}

/// What `parent` received from the child `t` (its last `FINAL_ANSWER` or notification), compared
/// with the child's own last reply.
pub(super) fn attach_received(cx: &mut Ctx, st: &mut Rollouts, t: &Thread, parent: Sym, authors: &[Sym], run: usize) {
    if st.received_done.contains(&t.session) {
        return;
    }
    let got = st
        .received_by_parent(parent)
        .filter(|r| authors.contains(&r.author))
        .max_by(|a, b| a.time.unwrap_or(f64::NEG_INFINITY).total_cmp(&b.time.unwrap_or(f64::NEG_INFINITY)))
        .copied();
    let Some(got) = got else { return };
    st.received_done.insert(t.session);
    cx.received.push(ReceivedRec { session: t.session, run: run as u32, at: got.at, key: None });
    if let (Some(a), Some(b)) = (got.hash, t.reply) {
        if a != b {
            let msg = format!(
                "what `{}` received from `{}` differs from the child's own last reply",
                cx.ids.name(parent),
                cx.ids.name(t.session)
            );
            st.tell(cx, Code::SubagentReplyDiffers, got.at.at, Some(t.session), msg);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// One rollout.

pub(super) fn thread(s: Sym, at: Loc, time: Option<f64>) -> Thread {
    Thread {
        session: s,
        first: at,
        last: at,
        start_time: time,
        spawn_parent: None,
        review: false,
        subagent: false,
        agent_path: None,
        outcome: None,
        reply: None,
    }
}
