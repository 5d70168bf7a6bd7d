//! `dsh-rpc`: recordings of the deepseek-harness JSON-RPC stream (SPEC 2.1). This module owns the
//! routing state of one recording: a runtime's ancestry, root turns, sessions seen before their
//! start edge. Session events go to a boundary `Checker` per session (`dsh_events`); the graph and
//! findings it writes live in `Ctx`.

use super::dsh_events::{event_kind, event_view, label_from, message_usage, Checker};
use super::{routed, FileStart, FormatInfo, HeadLine, Machine, Routed};
use crate::ctx::{Ctx, IndexList, Kind, NaiveRec, TextRef, WaitRec};
use crate::finding::{Code, Loc};
use crate::graph::Ancestry;
use crate::intern::Sym;
use crate::intern::{HashMap, HashSet};
use crate::report::{Link, Outcome, WaitOutcome};
use crate::wire::{Line, Params};
use std::borrow::Cow;

pub const FORMAT: FormatInfo = FormatInfo {
    id: "dsh-rpc",
    description: "deepseek-harness JSON-RPC recording",
    reader: &DshRpcFormat,
};

/// JSON-RPC methods only a dsh recording has.
const DSH_METHODS: &[&str] =
    &["subagent.started", "subagent.finished", "session.status", "initialize", "session/prompt", "shutdown"];

#[derive(Debug)]
struct DshRpcFormat;

/// The tokens a recording's messages record: (session, turn, model, tokens), counted once every
/// file is read, for the sessions no durable log of which is loaded.
#[derive(Debug, Default, Clone)]
struct RecordedUsage(Vec<(Sym, Option<usize>, Option<String>, crate::report::Usage)>);

impl super::Format for DshRpcFormat {
    fn id_space(&self) -> Option<&'static str> {
        Some("dsh")
    }

    /// A dsh method, or a `session.event` whose event is a dsh one (a `/` type or a `seq`) and not a
    /// Copilot envelope (a dotted type or a `timestamp`).
    fn vote(&self, head: &HeadLine) -> bool {
        let Some(line) = head.wire() else { return false };
        let Some(method) = line.method.as_str() else { return false };
        if method != "session.event" {
            return DSH_METHODS.contains(&method);
        }
        let Some(event) = line.params.0.as_ref().and_then(|p| p.event.0.as_deref()) else { return false };
        let Some(t) = event.kind.as_str() else { return false };
        !(super::copilot_like_type(t) || event.timestamp.present())
            && (super::dsh_like_type(t) || event.seq.get().is_some())
    }

    fn machine(&self, _file: &FileStart<'_>) -> Box<dyn Routed> {
        routed(Box::<DshRpc>::default())
    }

    fn settle(&self, cx: &mut Ctx) {
        let RecordedUsage(counts) = std::mem::take(cx.ext::<RecordedUsage>());
        for (s, turn, model, usage) in counts {
            if !cx.durable.contains(&s) {
                cx.usage.add(s, turn, model.as_deref(), usage);
            }
        }
    }

    fn parse_ahead(&self) -> Option<crate::formats::ParseAhead> {
        Some(crate::formats::ahead::<crate::scan::WireShape>)
    }

    fn reply_text(&self, line: &[u8]) -> String {
        crate::scan::reply_text(line)
    }

    fn transcript(&self, line: &[u8], out: &mut Vec<crate::vocab::transcript::Draft>) {
        super::wire_transcript::transcript(line, out)
    }

    fn may_compare(&self, kind: crate::ctx::Kind) -> bool {
        super::wire_transcript::may_compare(kind)
    }

    fn compared_parts(&self, line: &[u8], _kind: crate::ctx::Kind, out: &mut Vec<crate::vocab::transcript::Draft>) {
        super::wire_transcript::compared(line, out)
    }

    /// A recording's turns defer to a durable log of the same session (SPEC 2.3).
    fn defers_to_durable(&self) -> bool {
        true
    }
}

impl Machine for Box<DshRpc> {
    type Shape = crate::scan::WireShape;

    fn line(&mut self, cx: &mut Ctx, line: &Line, at: Loc, offset: u64) {
        DshRpc::line(self, cx, line, at, offset)
    }

    fn finish(&mut self, cx: &mut Ctx) {
        DshRpc::finish(self, cx)
    }

    /// `finish` without copying the sessions that have nothing open (most of them: a 1 GiB
    /// log's 61,228 took 45 ms to copy for every followed revision).
    fn finish_copy(&self, cx: &mut Ctx) {
        // The open turns in the order `finish` ends them (a copy's map iterates as its original).
        for (&root, t) in &self.open_turns {
            cx.waits.push(wait_of(root, t.clone(), None, WaitOutcome::Open));
        }
        self.report_open(cx);
    }
}

/// A root turn in progress (SPEC 2.1).
#[derive(Debug, Clone)]
struct RootTurn {
    start: Loc,
    notifications: u64,
    events: u64,
    naive: u64,
    /// The records of what the naive reading drops (see `WaitRec::dropped`).
    dropped: IndexList,
    reply: Option<TextRef>,
    finish_reason: Option<String>,
}

/// The state of one `dsh-rpc` recording.
#[derive(Debug, Default, Clone)]
pub struct DshRpc {
    ancestry: Ancestry,
    /// Sessions that emitted with no start edge yet in this runtime: where they first did.
    early: HashMap<Sym, Loc>,
    /// Sessions that got a start edge in this runtime.
    edged: HashSet<Sym>,
    open_turns: HashMap<Sym, RootTurn>,
    checkers: HashMap<Sym, Checker>,
    /// Nested logs of unnamed children still open (SPEC 1.1), the innermost last.
    nests: Vec<Nest>,
    /// How many nested logs this recording has opened: the next one's ordinal less one.
    nested: u32,
}

/// A nested log: a `subagent.started` whose two ids are the same placeholder opens it, and the
/// placeholder's notifications are the child's until the `subagent.finished` with the same ids.
#[derive(Debug, Clone)]
struct Nest {
    placeholder: Sym,
    child: Sym,
}

impl DshRpc {
    fn line(&mut self, cx: &mut Ctx, line: &Line, at: Loc, offset: u64) {
        let Some(method) = line.method.as_str() else {
            let kind = if line.id.present() { Kind::Response } else { Kind::Other };
            cx.record(at, offset, None, kind, None);
            return;
        };
        if line.id.present() {
            // A request the client sent: not a notification. `initialize` starts a new runtime.
            if method == "initialize" {
                self.new_runtime(cx);
            }
            cx.record(at, offset, None, Kind::Request, None);
            return;
        }
        let empty = Params::default();
        let params = line.params.0.as_deref().unwrap_or(&empty);
        match method {
            "subagent.started" => self.started(cx, params, at, offset),
            "subagent.finished" => self.finished(cx, params, at, offset),
            _ => self.notification(cx, method, params, at, offset),
        }
    }

    fn new_runtime(&mut self, cx: &mut Ctx) {
        let open: Vec<Sym> = self.open_turns.keys().copied().collect();
        for r in open {
            self.end_open_turn(cx, r);
        }
        self.ancestry.reset();
        self.early.clear();
        self.edged.clear();
        self.nests.clear();
    }

    /// The session a placeholder's notification is from: the child of the innermost nested log
    /// open for it, else the placeholder's own session.
    #[inline]
    fn nested_as(&self, s: Sym) -> Sym {
        if self.nests.is_empty() {
            return s;
        }
        self.nests.iter().rev().find(|n| n.placeholder == s).map_or(s, |n| n.child)
    }

    fn end_open_turn(&mut self, cx: &mut Ctx, root: Sym) {
        if let Some(t) = self.open_turns.remove(&root) {
            cx.waits.push(wait_of(root, t, None, WaitOutcome::Open));
        }
    }

    /// Count a notification into its root's turn, opening one when the root has none. Its record
    /// is the last one made; one the naive reading drops is remembered for `Analysis::naive_dropped`.
    fn attribute(&mut self, cx: &mut Ctx, root: Sym, naive: bool, at: Loc) -> &mut RootTurn {
        let t = self.open_turns.entry(root).or_insert_with(|| RootTurn {
            start: at,
            notifications: 0,
            events: 0,
            naive: 0,
            dropped: IndexList::default(),
            reply: None,
            finish_reason: None,
        });
        t.notifications += 1;
        if naive {
            t.naive += 1;
        } else {
            t.dropped.push(cx.records.len().saturating_sub(1) as u32);
        }
        t
    }

    fn started(&mut self, cx: &mut Ctx, p: &Params, at: Loc, offset: u64) {
        let (parent, child) = (p.parent_session_id.non_empty(), p.child_session_id.non_empty());
        let (Some(parent), Some(child)) = (parent, child) else {
            cx.findings.add(
                Code::InvalidStartEdge,
                at,
                None,
                "subagent.started with a missing, empty or non-string session id: no edge recorded",
            );
            cx.record(at, offset, None, Kind::SubagentStarted, None);
            return;
        };
        let (ps, cs) = if parent != child {
            (cx.sym(parent, at), cx.sym(child, at))
        } else if crate::ctx::is_placeholder(parent) {
            // A normalized snapshot of an in-process spawn: an unnamed child's log nests here.
            let p = cx.sym(parent, at);
            let outer = self.nested_as(p);
            self.nested += 1;
            let c = cx.sym(&format!("{parent}#{}", self.nested), at);
            self.nests.push(Nest { placeholder: p, child: c });
            cx.placeholder_shared(at.file, parent);
            (outer, c)
        } else {
            cx.findings.add(
                Code::InvalidStartEdge,
                at,
                None,
                format!("subagent.started names `{child}` as its own child: no edge recorded"),
            );
            cx.record(at, offset, None, Kind::SubagentStarted, None);
            return;
        };
        // Named as the report names them (a nested child by its ordinal), for the messages.
        let (parent, child): (Cow<str>, Cow<str>) = if parent != child {
            (parent.into(), child.into())
        } else {
            (cx.ids.name(ps).to_owned().into(), cx.ids.name(cs).to_owned().into())
        };
        cx.graph.session(ps);
        let reused = !cx.graph.session(cs).runs.is_empty();
        let cycle = self.ancestry.would_cycle(cs, ps);
        // A root that becomes a child ends its open root turn here.
        self.end_open_turn(cx, cs);
        if reused {
            cx.findings.add(
                Code::ChildIdReused,
                at,
                Some(cs),
                format!("child id `{child}` is started again, now under `{parent}`: a new run"),
            );
        }
        let run = cx.graph.open_run(cs, Some(ps), Some(at), Link::StartEdge) as u32;
        self.ancestry.set_parent(cs, ps);
        if reused {
            // A new run is a new session log: its checks start afresh.
            self.checkers.insert(cs, Checker::new(cs, Some(run)));
        } else if let Some(c) = self.checkers.get_mut(&cs) {
            c.set_run(Some(run));
        }
        if let Some(first) = self.early.remove(&cs) {
            cx.findings.add(Code::EventBeforeStartEdge, first, Some(cs), format!("`{child}` emitted here before its start edge (under `{parent}`, line {}): a reader at this point took it for a root", at.line));
        }
        self.edged.insert(cs);
        if cycle {
            cx.findings.add(
                Code::AncestryCycle,
                at,
                Some(cs),
                format!("this start edge makes `{child}` its own ancestor (through `{parent}`)"),
            );
        }
        cx.record(at, offset, Some(ps), Kind::SubagentStarted, None);
        match self.ancestry.root(ps) {
            Some(r) if cx.graph.contains(r) => {
                self.attribute(cx, r, r == ps, at);
            }
            Some(_) => {}
            None if cycle => {}
            None => cx.findings.add(
                Code::UnattributedNotification,
                at,
                Some(ps),
                format!("the walk from `{parent}` meets a cycle: this notification belongs to no root"),
            ),
        }
    }

    fn finished(&mut self, cx: &mut Ctx, p: &Params, at: Loc, offset: u64) {
        let outcome = match (p.status.as_str(), p.stop_reason.as_str()) {
            (Some("ok"), _) => Outcome::Ok,
            (_, Some("aborted")) => Outcome::Cancelled,
            _ => Outcome::Error,
        };
        let mut parent = p.parent_session_id.non_empty().map(|s| cx.sym(s, at));
        let mut child = p.child_session_id.non_empty().map(|s| cx.sym(s, at));
        // The end of the innermost nested log open for this placeholder: the parent's log goes
        // on where it stood.
        if let (Some(ps), Some(cs)) = (parent, child) {
            if ps == cs {
                if let Some(i) = self.nests.iter().rposition(|n| n.placeholder == ps) {
                    let nest = self.nests.remove(i);
                    parent = Some(self.nested_as(ps));
                    child = Some(nest.child);
                }
            }
        }
        let mut settled = false;
        if let (Some(ps), Some(cs)) = (parent, child) {
            if let Some(node) = cx.graph.get_mut(cs) {
                let last = node.runs.len().saturating_sub(1);
                if let Some((i, run)) =
                    node.runs.iter_mut().enumerate().find(|(_, r)| r.outcome == Outcome::Open && r.parent == Some(ps))
                {
                    run.end = Some(at);
                    run.outcome = outcome;
                    settled = true;
                    if i != last {
                        let (c, pn) = (cx.ids.name(cs).to_owned(), cx.ids.name(ps).to_owned());
                        cx.findings.add(Code::StaleRunSettled, at, Some(cs), format!("run {} of `{c}` under `{pn}` settles after the id was reused: it stays with `{pn}` and does not move `{c}` back", i + 1));
                    }
                }
            }
        }
        if !settled {
            let name = |s: Option<Sym>, cx: &Ctx| s.map_or("?".to_owned(), |s| cx.ids.name(s).to_owned());
            cx.findings.add(
                Code::FinishedWithoutStart,
                at,
                child,
                format!(
                    "subagent.finished for `{}` under `{}` has no open run under that parent",
                    name(child, cx),
                    name(parent, cx)
                ),
            );
        }
        cx.record(at, offset, parent, Kind::SubagentFinished, None);
        if let Some(ps) = parent {
            match self.ancestry.root(ps) {
                Some(r) if cx.graph.contains(r) => {
                    self.attribute(cx, r, r == ps, at);
                }
                Some(_) => {}
                None => cx.findings.add(
                    Code::UnattributedNotification,
                    at,
                    Some(ps),
                    "the walk from this notification's parent meets a cycle: it belongs to no root",
                ),
            }
        }
    }

    fn notification(&mut self, cx: &mut Ctx, method: &str, p: &Params, at: Loc, offset: u64) {
        let Some(sid) = p.session_id.non_empty() else {
            cx.record(at, offset, None, Kind::Other, None);
            return;
        };
        let s = self.nested_as(cx.sym(sid, at));
        cx.graph.session(s);
        let view = if method == "session.event" { p.event.0.as_deref().map(event_view) } else { None };
        let kind = match (&view, method, p.status.as_str()) {
            (Some(v), ..) => event_kind(v.kind),
            (None, "session.status", _) => Kind::Status,
            _ => Kind::Other,
        };
        cx.record(at, offset, Some(s), kind, view.as_ref().and_then(|v| v.time));
        if self.ancestry.parent_of(s).is_none() && !self.edged.contains(&s) {
            self.early.entry(s).or_insert(at);
        }
        match self.ancestry.root(s) {
            Some(r) => {
                let own = r == s;
                let t = self.attribute(cx, r, own, at);
                if own {
                    if let Some(v) = &view {
                        t.events += 1;
                        if v.kind == "assistant/message" {
                            t.reply = Some(TextRef { at, offset });
                        } else if v.kind == "turn/end" {
                            t.finish_reason = v.data.reason.0.as_ref().and_then(|r| r.kind.as_str()).map(str::to_owned);
                        }
                    }
                    if method == "session.status" && p.status.as_str() == Some("idle") {
                        let t = self.open_turns.remove(&r).expect("attributed just above");
                        cx.waits.push(wait_of(r, t, Some(at), WaitOutcome::Idle));
                    }
                }
            }
            None => cx.findings.add(
                Code::UnattributedNotification,
                at,
                Some(s),
                format!("the walk from `{sid}` meets a cycle: this notification belongs to no root"),
            ),
        }
        if let Some(v) = view {
            if let Some(label) = label_from(&v) {
                cx.graph.set_label(s, &label);
            }
            let run = cx.graph.get(s).and_then(|n| n.runs.len().checked_sub(1)).map(|r| r as u32);
            let checker = self.checkers.entry(s).or_insert_with(|| Checker::new(s, run));
            checker.event(&v, at, cx.records.len(), &mut cx.turns, &mut cx.findings);
            // A recording's tokens of a session count only when no durable log of it is loaded
            // (SPEC 2.3: the fact log is the durable one), which is known once all is read.
            if let Some((usage, model)) = message_usage(&v) {
                let turn = checker.message_turn();
                cx.ext::<RecordedUsage>().0.push((s, turn, model.map(str::to_owned), usage));
            }
        }
    }

    /// The end of the recording: open root turns end `open`; open turns and steps are reported.
    fn finish(&mut self, cx: &mut Ctx) {
        let open: Vec<Sym> = self.open_turns.keys().copied().collect();
        for r in open {
            self.end_open_turn(cx, r);
        }
        self.report_open(cx);
    }

    /// The turns and steps still open, session by session in symbol order.
    fn report_open(&self, cx: &mut Ctx) {
        let mut open: Vec<_> = self.checkers.iter().filter(|(_, c)| c.is_open()).collect();
        open.sort_by_key(|&(s, _)| *s);
        for (_, c) in open {
            c.finish(&mut cx.findings);
        }
    }
}

fn wait_of(root: Sym, mut t: RootTurn, end: Option<Loc>, outcome: WaitOutcome) -> WaitRec {
    t.dropped.shrink_to_fit();
    WaitRec {
        root,
        start: Some(t.start),
        end,
        outcome,
        reply: t.reply,
        finish_reason: t.finish_reason,
        notifications: Some(t.notifications),
        events: Some(t.events),
        naive: NaiveRec { notifications: Some(t.naive), ..NaiveRec::default() },
        dropped: t.dropped,
    }
}

