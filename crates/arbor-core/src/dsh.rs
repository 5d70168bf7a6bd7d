//! The deepseek-harness formats: `dsh-rpc` recordings (routing, root turns, SPEC 2.1) and
//! `dsh-session` durable logs (headers and the session tree, SPEC 2.3).
//!
//! Both feed session events to a boundary `Checker` per session. This module owns the routing
//! state of one recording (a runtime's ancestry, root turns, sessions seen before their start
//! edge); the graph and findings it writes live in `Ctx`.

use crate::boundary::{Checker, EventView};
use crate::ctx::{Ctx, IndexList, Kind, NaiveRec, TextRef, WaitRec};
use crate::finding::{Code, Loc};
use crate::graph::Ancestry;
use crate::intern::Sym;
use crate::intern::{HashMap, HashSet};
use crate::report::{Outcome, WaitOutcome};
use crate::wire::{Data, Line, Params};

/// The kind of a durable event type, for the record index.
pub fn event_kind(t: &str) -> Kind {
    match t {
        "turn/start" => Kind::TurnStart,
        "turn/end" => Kind::TurnEnd,
        "step/start" => Kind::StepStart,
        "step/end" => Kind::StepEnd,
        "user/message" => Kind::UserMessage,
        "assistant/message" => Kind::AssistantMessage,
        "assistant/chunk" | "text-chunks" | "reasoning-chunks" | "tool-call-chunks" => Kind::Chunk,
        "tool/call" => Kind::ToolCall,
        "tool/result" => Kind::ToolResult,
        _ => Kind::Other,
    }
}

/// The checker's view of a durable event line.
pub fn event_view<'a>(ev: &'a Line<'a>) -> EventView<'a> {
    let kind = ev.kind.as_str().unwrap_or("");
    let data = ev.data.0.as_ref().unwrap_or(Data::empty());
    let packed = kind.ends_with("-chunks");
    let count = if packed { data.dt.0.unwrap_or(1).max(1) } else { 1 };
    EventView {
        kind,
        seq: if packed { ev.seq0.int().or(ev.seq.int()) } else { ev.seq.int() },
        count,
        time: if packed { ev.time0.get().or(ev.time.get()) } else { ev.time.get() },
        ignorable: ev.ignorable.0 == Some(true),
        data,
    }
}

fn label_from(view: &EventView) -> Option<String> {
    (view.kind == "subagent/descriptor").then(|| view.data.label.non_empty().map(str::to_owned)).flatten()
}

/// A root turn in progress (SPEC 2.1).
#[derive(Debug)]
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
#[derive(Debug, Default)]
pub struct DshRpc {
    ancestry: Ancestry,
    /// Sessions that emitted with no start edge yet in this runtime: where they first did.
    early: HashMap<Sym, Loc>,
    /// Sessions that got a start edge in this runtime.
    edged: HashSet<Sym>,
    open_turns: HashMap<Sym, RootTurn>,
    checkers: HashMap<Sym, Checker>,
}

impl DshRpc {
    pub fn line(&mut self, cx: &mut Ctx, line: &Line, at: Loc, offset: u64) {
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
        if parent == child {
            cx.findings.add(
                Code::InvalidStartEdge,
                at,
                None,
                format!("subagent.started names `{child}` as its own child: no edge recorded"),
            );
            cx.record(at, offset, None, Kind::SubagentStarted, None);
            return;
        }
        let (ps, cs) = (cx.sym(parent, at), cx.sym(child, at));
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
        let run = cx.graph.open_run(cs, Some(ps), Some(at), false) as u32;
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
        let parent = p.parent_session_id.non_empty().map(|s| cx.sym(s, at));
        let child = p.child_session_id.non_empty().map(|s| cx.sym(s, at));
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
        let s = cx.sym(sid, at);
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
        }
    }

    /// The end of the recording: open root turns end `open`; open turns and steps are reported.
    pub fn finish(&mut self, cx: &mut Ctx) {
        let open: Vec<Sym> = self.open_turns.keys().copied().collect();
        for r in open {
            self.end_open_turn(cx, r);
        }
        let mut checkers: Vec<_> = self.checkers.drain().collect();
        checkers.sort_by_key(|(s, _)| *s);
        for (_, mut c) in checkers {
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

/// The state of one `dsh-session` file.
#[derive(Debug)]
pub struct DshSession {
    session: Option<Sym>,
    checker: Option<Checker>,
    header: Option<Loc>,
    stem: String,
}

impl DshSession {
    pub fn new(stem: String) -> Self {
        DshSession { session: None, checker: None, header: None, stem }
    }

    pub fn line(&mut self, cx: &mut Ctx, line: &Line, at: Loc, offset: u64) {
        if self.session.is_none() && line.kind.as_str() == Some("session") {
            if let Some(id) = line.id.non_empty() {
                self.header_line(cx, line, id, at, offset);
                return;
            }
        }
        let s = match self.session {
            Some(s) => s,
            None => {
                // A log without a header: the file's stem names the session.
                let s = cx.sym(&self.stem.clone(), at);
                self.begin(cx, s);
                s
            }
        };
        let view = event_view(line);
        cx.record(at, offset, Some(s), event_kind(view.kind), view.time);
        if let Some(label) = label_from(&view) {
            cx.graph.set_label(s, &label);
        }
        let checker = self.checker.as_mut().expect("begun above");
        checker.event(&view, at, cx.records.len(), &mut cx.turns, &mut cx.findings);
    }

    fn begin(&mut self, cx: &mut Ctx, s: Sym) {
        cx.graph.session(s);
        cx.durable.insert(s);
        self.session = Some(s);
        self.checker = Some(Checker::new(s, None));
    }

    fn header_line(&mut self, cx: &mut Ctx, line: &Line, id: &str, at: Loc, offset: u64) {
        let s = cx.sym(id, at);
        self.begin(cx, s);
        self.header = Some(at);
        cx.record(at, offset, Some(s), Kind::Header, None);
        if let Some(d) = line.delegation_depth.int() {
            cx.graph.set_header_depth(s, d, at);
        }
        if let Some(parent) = line.parent_session.non_empty() {
            let p = cx.sym(parent, at);
            cx.header_links.push((s, p, at));
        }
    }

    /// The end of the file: report what is open, and settle the child's run from its last turn.
    pub fn finish(&mut self, cx: &mut Ctx) {
        let (Some(_), Some(mut checker)) = (self.session, self.checker.take()) else { return };
        checker.finish(&mut cx.findings);
        let outcome = match checker.last_reason(&cx.turns) {
            None => Outcome::Open,
            Some("completed" | "max-tokens") => Outcome::Ok,
            Some("aborted" | "interrupted") => Outcome::Cancelled,
            Some(_) => Outcome::Error,
        };
        let end = checker.last_turn_end(&cx.turns).and_then(|r| cx.loc_of(r));
        if let Some(header) = self.header {
            cx.child_run_ends.insert(header, (end, outcome));
        }
    }
}

pub fn is_placeholder(id: &str) -> bool {
    id.starts_with("{{") && id.ends_with("}}")
}

/// Once every file is read: hang `dsh-session` children under their headers' parents, then
/// compare header depths with the tree.
pub fn link_headers(cx: &mut Ctx) {
    let links = std::mem::take(&mut cx.header_links);
    let mut ancestry = Ancestry::default();
    for (child, parent, at) in links {
        let (cn, pn) = (cx.ids.name(child).to_owned(), cx.ids.name(parent).to_owned());
        if child == parent && is_placeholder(&cn) {
            // A normalized snapshot: both ids were replaced by the same placeholder, so the link
            // says nothing (placeholder-ids already tells the user).
            continue;
        }
        if ancestry.would_cycle(child, parent) {
            cx.findings.add(
                Code::AncestryCycle,
                at,
                Some(child),
                format!("the header of `{cn}` names `{pn}` as its parent, which makes `{cn}` its own ancestor"),
            );
        } else if !cx.graph.contains(parent) {
            cx.findings.add(
                Code::MissingParentSession,
                at,
                Some(child),
                format!("the header's parentSession `{pn}` names no loaded session"),
            );
        }
        if child != parent {
            ancestry.set_parent(child, parent);
        }
        let (end, outcome) = cx.child_run_ends.get(&at).copied().unwrap_or((None, Outcome::Open));
        let run = cx.graph.open_run(child, Some(parent), Some(at), false);
        let node = cx.graph.session(child);
        node.runs[run].end = end;
        node.runs[run].outcome = outcome;
    }
    let placements = cx.graph.placements();
    let mut mismatches = Vec::new();
    for node in cx.graph.nodes() {
        if let (Some((d, at)), Some(p)) = (cx.graph.header_depth(node.id), placements.get(&node.id)) {
            if let Some(depth) = p.depth {
                if d != depth as i64 {
                    mismatches.push((node.id, d, depth, at));
                }
            }
        }
    }
    for (s, d, depth, at) in mismatches {
        let name = cx.ids.name(s).to_owned();
        cx.findings.add(
            Code::DelegationDepthMismatch,
            at,
            Some(s),
            format!("the header of `{name}` says delegationDepth {d}, but it sits at depth {depth} in the tree"),
        );
    }
}
