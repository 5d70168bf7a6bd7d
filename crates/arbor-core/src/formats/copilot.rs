//! The Copilot formats: `copilot-events` (a saved `events.jsonl`) and `copilot-rpc` (SDK
//! recordings of `session.event` notifications wrapping the same envelope). SPEC 2.2.
//!
//! This module owns the root-agent gate (which events are the root agent's), the sub-agent tree,
//! per-agent turns and replies, both waiters (the correct one, and the naive one that ignores
//! `agentId`, so the report can show where they part) and the tokens.
//!
//! **Usage.** Two sources, counted so that nothing counts twice:
//! - `assistant.message` `data.outputTokens`: the message's output, in its agent's open turn
//!   (else in no turn), under its `model`, else the session's (`session.start` `selectedModel`,
//!   the latest `session.model_change` `newModel`).
//! - `session.shutdown` `data.modelMetrics` (`{model: {requests: {count, cost}, usage:
//!   {inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens, reasoningTokens}}}`): the
//!   whole runtime's tokens per model, the sub-agents' included, input counting its cache reads
//!   and writes in (reported without them, as everywhere). What they hold beyond what the
//!   messages since the previous shutdown with metrics counted (input and cache always, outputs
//!   that no message carried) is the root session's own, in no turn: a session's tokens may so
//!   exceed the sum of its turns', and its subtree's tokens are the metrics' whole. Copilot CLIs
//!   wrote the metrics per runtime (reset on resume: 0.0.4xx, early 1.0) and later as the
//!   session's running total (restored on resume: 1.0.80 continues `totalNanoAiu` from the
//!   previous shutdown): a shutdown whose metrics cover the previous one's (every model, every
//!   count at least as large) is read as a running total and only what grew counts; one whose
//!   metrics shrank is its runtime's alone (`shutdown_share`). A runtime that ended without a
//!   shutdown (a crash, `/new`) has only its messages' outputs. A shutdown that repeats the last
//!   counts (a session opened and closed to be looked at) adds nothing.
//! - `session.usage_checkpoint` carries no token counts (`totalNanoAiu` and
//!   `totalPremiumRequests`, running totals in Copilot's own units, and cache expiry per model):
//!   nothing of it is counted.

use super::{routed, FileStart, FormatInfo, HeadLine, Machine, Routed};
use crate::ctx::{Ctx, Kind, LooseReply, NaiveRec, TextRef, WaitRec};
use crate::finding::{Code, Loc};
use crate::intern::Sym;
use crate::intern::{HashMap, HashSet};
use crate::report::{Link, Outcome, Usage, WaitOutcome};
use crate::turns::{TurnId, TurnRec};
use crate::scan::parse_line;
use crate::wire::{Data, Line, Params};

pub const EVENTS: FormatInfo =
    FormatInfo { id: "copilot-events", description: "GitHub Copilot CLI events.jsonl", reader: &CopilotEvents };

pub const RPC: FormatInfo =
    FormatInfo { id: "copilot-rpc", description: "GitHub Copilot SDK JSON-RPC recording", reader: &CopilotRpc };

#[derive(Debug)]
struct CopilotEvents;

#[derive(Debug)]
struct CopilotRpc;

impl super::Format for CopilotEvents {
    fn id_space(&self) -> Option<&'static str> {
        Some("copilot")
    }

    /// An envelope: a dotted event type with a `timestamp` or an `id`, and no JSON-RPC method.
    fn vote(&self, head: &HeadLine) -> bool {
        let Some(line) = head.wire() else { return false };
        if line.method.as_str().is_some() {
            return false;
        }
        let Some(t) = line.kind.as_str() else { return false };
        super::copilot_like_type(t) && (line.timestamp.present() || line.id.present())
    }

    fn machine(&self, file: &FileStart<'_>) -> Box<dyn Routed> {
        let root = events_root_id(file.head, file.display);
        let mut state = Copilot::events(root);
        state.detached_from = detached_parent(file.head);
        routed(state)
    }

    /// A session whose `session.start` names the session it was detached from hangs under that
    /// session when its `events.jsonl` is loaded too.
    fn settle(&self, cx: &mut Ctx) {
        let Detached(runs) = std::mem::take(cx.ext::<Detached>());
        let mut ancestry = crate::graph::Ancestry::default();
        for run in runs {
            let parent = cx.sym(&run.parent, run.start);
            if parent == run.child || !cx.graph.contains(parent) || ancestry.would_cycle(run.child, parent) {
                continue;
            }
            ancestry.set_parent(run.child, parent);
            // The closest link value: the session's opening record names its parent.
            let i = cx.graph.open_run(run.child, Some(parent), Some(run.start), Link::Header);
            let node = cx.graph.session(run.child);
            node.runs[i].end = run.end;
            node.runs[i].outcome = if run.shut_down { Outcome::Ok } else { Outcome::Open };
        }
    }

    /// The root's id comes from a `session.start` among the first lines, else the file's name.
    fn head_settled(&self, head: super::Head<'_>) -> bool {
        head.lines().filter_map(parse_line).any(|l| l.kind.as_str() == Some("session.start"))
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

    /// A `user.message`'s content (a session folder's summary is in its `workspace.yaml`, beside
    /// the log).
    fn about(&self, line: &[u8]) -> Option<super::About> {
        let v: serde_json::Value = serde_json::from_slice(line).ok()?;
        (v.get("type")?.as_str()? == "user.message")
            .then(|| super::about_str(&v, "/data/content"))?
            .map(super::About::Prompt)
    }
}

/// Sessions of saved `events.jsonl` files whose `session.start` names the session they were
/// detached from (`data.detachedFromSpawningParentSessionId`, a headless run launched as its
/// parent shut down), for `settle`.
#[derive(Debug, Default, Clone)]
struct Detached(Vec<DetachedRun>);

#[derive(Debug, Clone)]
struct DetachedRun {
    child: Sym,
    parent: String,
    start: Loc,
    end: Option<Loc>,
    shut_down: bool,
}

/// The session a saved log's `session.start` says it was detached from. Read from the line
/// itself, once a file: no other line has the field, so the shared line shape does not carry it.
fn detached_parent(head: super::Head<'_>) -> Option<String> {
    let bytes = head.lines().find(|b| parse_line(b).is_some_and(|l| l.kind.as_str() == Some("session.start")))?;
    let v: serde_json::Value = serde_json::from_slice(bytes).ok()?;
    let id = v.get("data")?.get("detachedFromSpawningParentSessionId")?.as_str()?;
    (!id.is_empty()).then(|| id.to_owned())
}

impl super::Format for CopilotRpc {
    fn id_space(&self) -> Option<&'static str> {
        Some("copilot")
    }

    /// A `session.event` notification whose event is an envelope (a dotted type or a `timestamp`).
    fn vote(&self, head: &HeadLine) -> bool {
        let Some(line) = head.wire() else { return false };
        if line.method.as_str() != Some("session.event") {
            return false;
        }
        let Some(event) = line.params.0.as_ref().and_then(|p| p.event.0.as_deref()) else { return false };
        let Some(t) = event.kind.as_str() else { return false };
        super::copilot_like_type(t) || event.timestamp.present()
    }

    fn machine(&self, _file: &FileStart<'_>) -> Box<dyn Routed> {
        routed(Copilot::rpc())
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
}

impl Machine for Copilot {
    type Shape = crate::scan::WireShape;

    fn line(&mut self, cx: &mut Ctx, line: &Line, at: Loc, offset: u64) {
        Copilot::line(self, cx, line, at, offset)
    }

    fn finish(&mut self, cx: &mut Ctx) {
        Copilot::finish(self, cx)
    }

    /// The end reads only the waits and the detached run: the tool calls and agents known, the
    /// most of a large log's state, are not copied for it.
    fn finish_copy(&self, cx: &mut Ctx) {
        Copilot::finish(self, cx)
    }
}

const LIFECYCLE: &[&str] = &["subagent.started", "subagent.configured", "subagent.completed", "subagent.failed"];

#[derive(Debug, Default, Clone)]
struct Waiter {
    done: bool,
    /// The runtime it waited on shut down (SPEC 2.2 "Shutdown and resume"): it sees nothing
    /// more, and ends as a wait does at the end of the log.
    stopped: bool,
    end: Option<Loc>,
    outcome: Option<WaitOutcome>,
    /// Where the reply is, and whether a sub-agent wrote it.
    reply: Option<(TextRef, bool)>,
    /// The last event this waiter would have seen, for an inferred end.
    last: Option<Loc>,
}

impl Waiter {
    fn see(&mut self, kind: &str, text: TextRef, from_sub: bool) {
        let at = text.at;
        if self.done || self.stopped {
            return;
        }
        self.last = Some(at);
        match kind {
            "assistant.message" => self.reply = Some((text, from_sub)),
            "session.idle" => {
                self.done = true;
                self.end = Some(at);
                self.outcome = Some(WaitOutcome::Idle);
            }
            "session.error" => {
                self.done = true;
                self.end = Some(at);
                self.outcome = Some(WaitOutcome::Error);
                self.reply = None;
            }
            _ => {}
        }
    }

    /// Close the waiter: a log with `session.idle` leaves an unresolved wait open; one without
    /// ends it at the last event it saw.
    fn settle(&mut self, log_has_idle: bool) {
        if self.done {
            return;
        }
        self.done = true;
        if log_has_idle {
            self.outcome = Some(WaitOutcome::Open);
            self.end = None;
        } else {
            self.outcome = Some(WaitOutcome::Inferred);
            self.end = self.last;
        }
    }
}

#[derive(Debug, Clone)]
struct WaitState {
    start: Loc,
    correct: Waiter,
    naive: Waiter,
}

/// One root agent's state.
#[derive(Debug, Clone)]
struct Root {
    id: Sym,
    /// Sub-agent ids learned from lifecycle events; never forgotten.
    known: HashSet<Sym>,
    told: HashSet<(Sym, Code)>,
    /// `toolCallId` → the agent that issued the tool call, and the sub-agent it spawned once
    /// that sub-agent's `subagent.started` names it.
    tool_calls: HashMap<String, (Sym, Option<Sym>)>,
    /// Per agent, its open turn: the turn id (in `Turns::ids`) and the turn's index.
    open_turns: HashMap<Sym, (Sym, usize)>,
    waits: Vec<WaitState>,
    has_idle: bool,
    /// Replies outside any turn, keyed by agent, wait number and runtime.
    loose: HashMap<(Sym, usize, u32), usize>,
    /// Runtimes ended by a shutdown or a resume so far.
    runtimes: u32,
    /// The session's model as `session.start` or the latest `session.model_change` names it.
    model: Option<Box<str>>,
    /// What the messages counted since the last `session.shutdown` that carried
    /// `modelMetrics`, by model (`model_key`): what that runtime's metrics already include.
    since_metrics: HashMap<Box<str>, Usage>,
    /// The `modelMetrics` of the last shutdown that had them, by model (`model_key`).
    last_metrics: Option<Vec<(Box<str>, Usage)>>,
}

impl Root {
    /// A shutdown's `modelMetrics` (SPEC 2.2 usage, `shutdown_share`): what its messages did
    /// not count, the session's own, in no turn.
    fn count_metrics(&mut self, cx: &mut Ctx, data: &Data) {
        let Some(metrics) = data.rare.get().and_then(|r| r.model_metrics) else { return };
        let now: Vec<(Box<str>, Usage)> = metrics.iter().map(|(m, u)| (model_key(Some(m)).into(), u.clone())).collect();
        for (i, u) in shutdown_share(self.last_metrics.as_deref(), &now, &self.since_metrics) {
            // Named as the metrics name it, so that it meets the messages' share of the same
            // model in the summary.
            cx.usage.add(self.id, None, Some(metrics[i].0), u);
        }
        self.since_metrics.clear();
        self.last_metrics = Some(now);
    }

    fn new(id: Sym) -> Self {
        Root {
            id,
            known: HashSet::default(),
            told: HashSet::default(),
            tool_calls: HashMap::default(),
            open_turns: HashMap::default(),
            waits: Vec::new(),
            has_idle: false,
            loose: HashMap::default(),
            runtimes: 0,
            model: None,
            since_metrics: HashMap::default(),
            last_metrics: None,
        }
    }
}

/// The state of one Copilot file.
#[derive(Debug, Clone)]
struct Copilot {
    rpc: bool,
    /// `copilot-events`: the root agent's id, known before the first event.
    events_root: Option<String>,
    /// Its index in `roots`, once the first event has made it.
    events_root_ix: Option<usize>,
    roots: Vec<Root>,
    root_ix: HashMap<Sym, usize>,
    /// Reads the events' timestamps, the date worked out once a second.
    clock: crate::text::time::Rfc3339,
    /// `copilot-events`: the session this one was detached from, and the run under it so far
    /// (from its `session.start`; its last event; whether it shut down).
    detached_from: Option<String>,
    detached_run: Option<(Loc, Loc, bool)>,
}

/// The root agent of a saved `events.jsonl`: `session.start.data.sessionId`, else the folder name
/// of an `events.jsonl`, else the file stem.
fn events_root_id(head: super::Head<'_>, display: &str) -> String {
    for bytes in head.lines() {
        if let Some(l) = parse_line(bytes) {
            if l.kind.as_str() == Some("session.start") {
                if let Some(id) = l.data.0.as_ref().and_then(|d| d.session_id.non_empty()) {
                    return id.to_owned();
                }
            }
        }
    }
    let parts: Vec<&str> = display.split('/').collect();
    let name = parts.last().copied().unwrap_or(display);
    if name.starts_with("events.jsonl") && parts.len() >= 2 {
        return parts[parts.len() - 2].to_owned();
    }
    name.split('.').next().unwrap_or(name).to_owned()
}

/// The sub-agent an event without `agentId` is from, on Copilot CLIs before 1.0.32 (SPEC 2.2
/// "Sub-agents marked without agentId"): a lifecycle event names it by its `toolCallId`, any
/// other event by `parentToolCallId`. `None`: the root agent's.
fn unstamped_agent(cx: &mut Ctx, root: &mut Root, kind: &str, lifecycle: bool, data: &Data, at: Loc) -> Option<Sym> {
    if lifecycle {
        // Registered before it is judged, as a stamped lifecycle event is.
        let a = cx.sym(data.tool_call_id.non_empty()?, at);
        root.known.insert(a);
        return Some(a);
    }
    let call = data.parent_tool_call_id.non_empty()?;
    let agent = match root.tool_calls.get(call) {
        // The sub-agent that call spawned, stamped or not, while its call is open.
        Some(&(_, Some(sub))) => sub,
        _ => {
            let a = cx.sym(call, at);
            if !(root.known.contains(&a) || root.known.is_empty()) {
                return None;
            }
            a
        }
    };
    if root.told.insert((agent, Code::UnstampedSubagentEvent)) {
        let name = cx.ids.name(agent).to_owned();
        cx.findings.add(Code::UnstampedSubagentEvent, at, Some(agent), format!("this `{kind}` is sub-agent `{name}`'s, marked only by parentToolCallId: a gate that looks at agentId alone takes it for the root agent's"));
    }
    Some(agent)
}

impl Copilot {
    fn events(root: String) -> Self {
        Copilot {
            rpc: false,
            events_root: Some(root),
            events_root_ix: None,
            roots: Vec::new(),
            root_ix: HashMap::default(),
            clock: Default::default(),
            detached_from: None,
            detached_run: None,
        }
    }

    fn rpc() -> Self {
        Copilot {
            rpc: true,
            events_root: None,
            events_root_ix: None,
            roots: Vec::new(),
            root_ix: HashMap::default(),
            clock: Default::default(),
            detached_from: None,
            detached_run: None,
        }
    }

    fn root(&mut self, cx: &mut Ctx, id: &str, at: Loc) -> usize {
        let s = cx.sym(id, at);
        if let Some(&i) = self.root_ix.get(&s) {
            return i;
        }
        cx.graph.session(s);
        self.roots.push(Root::new(s));
        self.root_ix.insert(s, self.roots.len() - 1);
        self.roots.len() - 1
    }

    fn line(&mut self, cx: &mut Ctx, line: &Line, at: Loc, offset: u64) {
        if self.rpc {
            let empty = Params::default();
            let params = line.params.0.as_deref().unwrap_or(&empty);
            match (line.method.as_str(), params.session_id.non_empty(), params.event.0.as_deref()) {
                (Some("session.event"), Some(sid), Some(ev)) => {
                    let r = self.root(cx, sid, at);
                    self.event(cx, r, ev, at, offset);
                }
                _ => {
                    let kind = if line.method.present() { Kind::Request } else { Kind::Response };
                    cx.record(at, offset, None, kind, None);
                }
            }
        } else {
            // The root is the same for every event of the file: made (and its id checked) once.
            let r = match self.events_root_ix {
                Some(r) => r,
                None => {
                    let id = self.events_root.clone().unwrap_or_default();
                    let r = self.root(cx, &id, at);
                    self.events_root_ix = Some(r);
                    r
                }
            };
            if self.detached_from.is_some() {
                let kind = line.kind.as_str();
                match &mut self.detached_run {
                    None if kind == Some("session.start") => self.detached_run = Some((at, at, false)),
                    Some((_, end, shut_down)) => {
                        *end = at;
                        *shut_down |= kind == Some("session.shutdown");
                    }
                    None => {}
                }
            }
            self.event(cx, r, line, at, offset);
        }
    }

    fn event(&mut self, cx: &mut Ctx, r: usize, ev: &Line, at: Loc, offset: u64) {
        let kind = ev.kind.as_str().unwrap_or("");
        let data = ev.data.0.as_ref().unwrap_or(Data::empty());
        let root_id = self.roots[r].id;
        let stamp = ev.agent_id.non_empty().map(|a| cx.sym(a, at));
        let lifecycle = LIFECYCLE.contains(&kind);
        let root = &mut self.roots[r];
        // Lifecycle events register their agent before they are judged.
        if let (true, Some(a)) = (lifecycle, stamp) {
            root.known.insert(a);
        }
        let agent = match stamp {
            None => unstamped_agent(cx, root, kind, lifecycle, data, at).unwrap_or(root_id),
            Some(a) if root.known.contains(&a) => a,
            Some(a) if root.known.is_empty() => {
                if root.told.insert((a, Code::StampedEventBeforeAnySubagent)) {
                    let name = cx.ids.name(a).to_owned();
                    cx.findings.add(Code::StampedEventBeforeAnySubagent, at, Some(a), format!("`{name}` stamps this event before any sub-agent is known: taken as a sub-agent's (a resumed session may meet a child it never saw start)"));
                }
                a
            }
            Some(a) => {
                if root.told.insert((a, Code::UnannouncedAgentId)) {
                    let name = cx.ids.name(a).to_owned();
                    cx.findings.add(Code::UnannouncedAgentId, at, Some(a), format!("`{name}` was never announced by a lifecycle event while other sub-agents were: its events are taken as the root agent's"));
                }
                root_id
            }
        };
        let is_sub = agent != root_id;
        if is_sub && !cx.graph.contains(agent) {
            let node = cx.graph.session(agent);
            node.parent = Some(root_id);
            node.inferred_parent = true;
        }
        let rec_kind = match kind {
            "user.message" => Kind::UserMessage,
            "assistant.message" => Kind::AssistantMessage,
            "assistant.turn_start" => Kind::TurnStart,
            "assistant.turn_end" => Kind::TurnEnd,
            "session.idle" => Kind::Idle,
            "session.error" => Kind::Error,
            "tool.execution_start" => Kind::ToolCall,
            "tool.execution_complete" => Kind::ToolResult,
            k if LIFECYCLE.contains(&k) => Kind::Lifecycle,
            _ => Kind::Other,
        };
        let time = ev.timestamp.as_str().and_then(|t| self.clock.ms(t));
        cx.record(at, offset, Some(agent), rec_kind, time);
        let rec = cx.last_record();
        // A message's text is its string `content` (reply_text): kept where it is in the line.
        if let (Kind::AssistantMessage, None, Some(span)) = (rec_kind, &data.message.0, data.content_at.0) {
            cx.text_spans.push((rec, span));
        }

        match kind {
            "subagent.started" if is_sub => {
                // A sub-agent known by its toolCallId alone is linked by it (SPEC 4).
                let by_call = if stamp.is_some() { Link::ToolCall } else { Link::ParentToolCallId };
                let call = data.tool_call_id.non_empty().and_then(|t| root.tool_calls.get_mut(t));
                let issuer = call.map(|c| {
                    c.1 = Some(agent);
                    c.0
                });
                let parent = data
                    .parent_id
                    .non_empty()
                    .map(|p| (cx.sym(p, at), Link::AgentId))
                    .or(issuer.map(|p| (p, by_call)))
                    .unwrap_or((root_id, Link::Inferred));
                cx.graph.open_run(agent, Some(parent.0), Some(at), parent.1);
                if let Some(call) = data.tool_call_id.non_empty() {
                    cx.spawns.insert((parent.0, call.into()), agent);
                }
                if let Some(label) = data.agent_display_name.non_empty().or(data.agent_name.non_empty()) {
                    cx.graph.set_label(agent, label);
                }
            }
            "subagent.completed" | "subagent.failed" if is_sub => {
                let outcome = match (kind, data.cancelled.0) {
                    ("subagent.failed", _) => Outcome::Error,
                    (_, Some(true)) => Outcome::Cancelled,
                    _ => Outcome::Ok,
                };
                let node = cx.graph.session(agent);
                match node.runs.iter_mut().rev().find(|r| r.outcome == Outcome::Open) {
                    Some(run) => {
                        run.end = Some(at);
                        run.outcome = outcome;
                    }
                    None => {
                        // No start names the parent: keep what was known, inference included.
                        let (parent, link) = match node.parent {
                            Some(p) if !node.inferred_parent => {
                                (Some(p), node.runs.last().map_or(Link::Inferred, |r| r.link))
                            }
                            Some(p) => (Some(p), Link::Inferred),
                            None => (Some(root_id), Link::Inferred),
                        };
                        let run = cx.graph.open_run(agent, parent, None, link);
                        let node = cx.graph.session(agent);
                        node.runs[run].end = Some(at);
                        node.runs[run].outcome = outcome;
                    }
                }
            }
            "tool.execution_start" => {
                if let Some(t) = data.tool_call_id.non_empty() {
                    root.tool_calls.insert(t.to_owned(), (agent, None));
                }
            }
            // A finished tool call spawns nothing more: forget it, so memory does not keep every
            // call of the log (a sub-agent's start comes before its task call completes).
            "tool.execution_complete" => {
                if let Some(t) = data.tool_call_id.non_empty() {
                    root.tool_calls.remove(t);
                }
            }
            "assistant.turn_start" => {
                let id = cx.turns.ids.intern(data.turn_id.as_str().unwrap_or_default());
                cx.turns.list.push(TurnRec::new(agent, None, TurnId::Text(id), Some(rec), None));
                root.open_turns.insert(agent, (id, cx.turns.list.len() - 1));
            }
            "assistant.turn_end" => {
                let id = cx.turns.ids.intern(data.turn_id.as_str().unwrap_or_default());
                match root.open_turns.get(&agent) {
                    Some(&(open, ix)) if open == id => {
                        cx.turns.list[ix].set_end(rec);
                        root.open_turns.remove(&agent);
                    }
                    _ => cx.turns.list.push(TurnRec::new(agent, None, TurnId::Text(id), None, Some(rec))),
                }
            }
            "session.idle" => root.has_idle = true,
            // The runtime that was waiting is gone: its wait ends here, as at the end of the log,
            // and its open turns with it (a resume with no shutdown before it is a runtime that
            // died without one).
            "session.shutdown" | "session.resume" if !is_sub => {
                if let Some(w) = root.waits.last_mut() {
                    w.correct.stopped = true;
                    w.naive.stopped = true;
                }
                root.open_turns.clear();
                root.runtimes += 1;
                if kind == "session.shutdown" {
                    root.count_metrics(cx, data);
                }
            }
            _ => {}
        }

        // Waits: a root `user.message` starts one; both waiters see what follows.
        if kind == "user.message" && !is_sub {
            root.waits.push(WaitState {
                start: at,
                correct: Waiter { last: Some(at), ..Waiter::default() },
                naive: Waiter { last: Some(at), ..Waiter::default() },
            });
            return;
        }
        let here = TextRef { at, offset };
        if let Some(w) = root.waits.last_mut() {
            if !w.correct.done && is_sub {
                let name = cx.ids.name(agent).to_owned();
                match kind {
                    "session.idle" => cx.findings.add(Code::ChildIdleWouldResolveWait, at, Some(agent), format!("sub-agent `{name}` goes idle while the root's wait is open: a waiter that ignores agentId would resolve here")),
                    "session.error" => cx.findings.add(Code::ChildErrorWouldFailWait, at, Some(agent), format!("sub-agent `{name}` reports an error while the root's wait is open: a waiter that ignores agentId would fail here")),
                    _ => {}
                }
            }
            if !is_sub {
                w.correct.see(kind, here, false);
            }
            w.naive.see(kind, here, is_sub);
        }
        match kind {
            "session.start" | "session.resume" => {
                if let Some(m) = data.rare.get().and_then(|r| r.selected_model.or(r.model)).filter(|m| !m.is_empty()) {
                    root.model = Some(m.into());
                }
            }
            "session.model_change" => {
                if let Some(m) = data.rare.get().and_then(|r| r.new_model).filter(|m| !m.is_empty()) {
                    root.model = Some(m.into());
                }
            }
            _ => {}
        }
        if kind == "assistant.message" {
            // What the message produced, counted once, in its agent's open turn.
            if let Some(rare) = data.rare.get() {
                if let Some(n) = rare.output_tokens.filter(|&n| n > 0) {
                    let usage = Usage { output: n, ..Default::default() };
                    let turn = root.open_turns.get(&agent).map(|&(_, ix)| ix);
                    let model = rare.model.filter(|m| !m.is_empty()).or(root.model.as_deref());
                    cx.usage.add(agent, turn, model, usage.clone());
                    // Looked up before it is made: this runs once a message.
                    match root.since_metrics.get_mut(model_key(model)) {
                        Some(u) => u.add(&usage),
                        None => _ = root.since_metrics.insert(model_key(model).into(), usage),
                    }
                }
            }
            let text = here;
            match root.open_turns.get(&agent) {
                Some(&(_, ix)) => cx.turns.list[ix].set_reply(rec),
                None => {
                    let key = (agent, root.waits.len(), root.runtimes);
                    match root.loose.get(&key) {
                        Some(&i) => cx.loose_replies[i] = LooseReply { session: agent, text },
                        None => {
                            cx.loose_replies.push(LooseReply { session: agent, text });
                            root.loose.insert(key, cx.loose_replies.len() - 1);
                        }
                    }
                }
            }
        }
    }

    /// The end of the log: the detached run, and every wait settled (the machine is left as it
    /// was, for a followed log's snapshot).
    fn finish(&self, cx: &mut Ctx) {
        if let (Some(parent), Some((start, end, shut_down)), Some(r)) =
            (self.detached_from.clone(), self.detached_run, self.events_root_ix)
        {
            let child = self.roots[r].id;
            cx.ext::<Detached>().0.push(DetachedRun { child, parent, start, end: Some(end), shut_down });
        }
        for root in &self.roots {
            for mut w in root.waits.iter().cloned() {
                w.correct.settle(root.has_idle);
                w.naive.settle(root.has_idle);
                if let (Some(WaitOutcome::Idle | WaitOutcome::Inferred), Some((TextRef { at, .. }, true))) =
                    (w.naive.outcome, w.naive.reply)
                {
                    cx.findings.add(
                        Code::ChildReplyWouldReplaceRootReply,
                        at,
                        None,
                        "a waiter that ignores agentId would return this sub-agent's message as the root's reply",
                    );
                }
                let correct_reply =
                    if w.correct.outcome == Some(WaitOutcome::Error) { None } else { w.correct.reply.map(|r| r.0) };
                let naive_reply =
                    if w.naive.outcome == Some(WaitOutcome::Error) { None } else { w.naive.reply.map(|r| r.0) };
                cx.waits.push(WaitRec {
                    root: root.id,
                    start: Some(w.start),
                    end: w.correct.end,
                    outcome: w.correct.outcome.unwrap_or(WaitOutcome::Open),
                    reply: correct_reply,
                    finish_reason: None,
                    notifications: None,
                    events: None,
                    naive: NaiveRec {
                        end: Some(w.naive.end),
                        outcome: w.naive.outcome,
                        reply: Some(naive_reply),
                        notifications: None,
                    },
                    dropped: Default::default(),
                });
            }
        }
    }
}

/// A model's name as messages and metrics are matched on: without a vendor prefix
/// (`openai/gpt-5.4` is `gpt-5.4`); the empty name when a message names none.
fn model_key(model: Option<&str>) -> &str {
    let m = model.unwrap_or("");
    m.rsplit_once('/').map_or(m, |(_, name)| name)
}

/// Whether every count of `a` is at least `b`'s.
fn covers(a: &Usage, b: &Usage) -> bool {
    a.input >= b.input && a.output >= b.output && a.cache_read >= b.cache_read && a.cache_write >= b.cache_write
}

/// `a - b`, each count at zero at least.
fn minus(a: &Usage, b: &Usage) -> Usage {
    Usage {
        input: a.input.saturating_sub(b.input),
        output: a.output.saturating_sub(b.output),
        cache_read: a.cache_read.saturating_sub(b.cache_read),
        cache_write: a.cache_write.saturating_sub(b.cache_write),
        cost: None,
        unpriced: None,
    }
}

/// What a `session.shutdown`'s `modelMetrics` (`now`, by model, counts as the log gives them:
/// input with its cache reads and writes) add to the session beyond what
/// its messages counted since the last shutdown that had metrics (`counted`): per model (an
/// index into `now`), the counts no message carried (input and cache always, outputs that
/// no `outputTokens` gave).
///
/// Copilot CLIs wrote these metrics two ways: per runtime (reset when a session is resumed) and,
/// later, as the session's running total (restored on resume). They are read as a running total
/// when they cover the previous shutdown's (`prev`: every model it had, each count at least as
/// large), so only what grew counts; else as this runtime's alone. Either way nothing is counted
/// twice: a running total never shrinks, and one read as a runtime's that was in fact a running
/// total could only have been larger. What the messages counted comes off each model's share,
/// and what they counted beyond a model's (a message filed under the session's model that
/// another model wrote) comes off the other models' shares, in name order.
fn shutdown_share(
    prev: Option<&[(Box<str>, Usage)]>,
    now: &[(Box<str>, Usage)],
    counted: &HashMap<Box<str>, Usage>,
) -> Vec<(usize, Usage)> {
    fn find(list: &[(Box<str>, Usage)], m: &str) -> Option<Usage> {
        list.iter().find(|(k, _)| &**k == m).map(|(_, u)| u.clone())
    }
    let running = prev.is_some_and(|p| p.iter().all(|(m, u)| find(now, m).is_some_and(|n| covers(&n, u))));
    let mut leftover = Usage::default();
    let mut share: Vec<(usize, Usage)> = now
        .iter()
        .enumerate()
        .map(|(i, (m, u))| {
            let grew = match prev.filter(|_| running).and_then(|p| find(p, m)) {
                Some(before) => minus(u, &before),
                None => u.clone(),
            };
            // Input without the cache reads and writes `inputTokens` counts in, as everywhere.
            let grew = Usage { input: grew.input.saturating_sub(grew.cache_read).saturating_sub(grew.cache_write), ..grew };
            let by_messages = counted.get(m).cloned().unwrap_or_default();
            leftover.add(&minus(&by_messages, &grew));
            (i, minus(&grew, &by_messages))
        })
        .collect();
    let mut unmatched: Vec<(&Box<str>, &Usage)> =
        counted.iter().filter(|(m, _)| find(now, m).is_none()).collect();
    unmatched.sort_unstable_by_key(|(m, _)| *m);
    for (_, u) in unmatched {
        leftover.add(u);
    }
    for (_, u) in &mut share {
        let taken = Usage {
            input: u.input.min(leftover.input),
            output: u.output.min(leftover.output),
            cache_read: u.cache_read.min(leftover.cache_read),
            cache_write: u.cache_write.min(leftover.cache_write),
            cost: None,
            unpriced: None,
        };
        *u = minus(u, &taken);
        leftover = minus(&leftover, &taken);
    }
    share.retain(|(_, u)| !u.is_zero());
    share
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(input: u64, output: u64, cache_read: u64) -> Usage {
        Usage { input, output, cache_read, cache_write: 0, cost: None, unpriced: None }
    }

    fn metrics(list: &[(&str, Usage)]) -> Vec<(Box<str>, Usage)> {
        list.iter().map(|(m, u)| (Box::from(*m), u.clone())).collect()
    }

    fn counted(list: &[(&str, Usage)]) -> HashMap<Box<str>, Usage> {
        list.iter().map(|(m, u)| (Box::from(*m), u.clone())).collect()
    }

    #[test]
    fn the_first_shutdown_adds_what_its_messages_did_not_count() {
        // inputTokens 140 counts the 40 cache reads in.
        let now = metrics(&[("gpt-5", u(140, 30, 40))]);
        let share = shutdown_share(None, &now, &counted(&[("gpt-5", u(0, 20, 0))]));
        assert_eq!(share, [(0, u(100, 10, 40))]);
    }

    #[test]
    fn a_running_total_adds_only_what_grew() {
        let prev = metrics(&[("gpt-5", u(140, 30, 40))]);
        let now = metrics(&[("gpt-5", u(210, 45, 60)), ("haiku", u(5, 1, 0))]);
        let share = shutdown_share(Some(&prev), &now, &counted(&[("gpt-5", u(0, 15, 0))]));
        assert_eq!(share, [(0, u(50, 0, 20)), (1, u(5, 1, 0))]);
        // Its input without cache may shrink (the cache grew more): still a running total.
        let now = metrics(&[("gpt-5", u(150, 30, 100))]);
        assert_eq!(shutdown_share(Some(&prev), &now, &counted(&[])), [(0, u(0, 0, 60))]);
    }

    #[test]
    fn metrics_that_shrank_are_the_new_runtimes_alone() {
        let prev = metrics(&[("gpt-5", u(140, 30, 40))]);
        let now = metrics(&[("gpt-5", u(20, 5, 0))]);
        assert_eq!(shutdown_share(Some(&prev), &now, &counted(&[])), [(0, u(20, 5, 0))]);
        // A model the previous shutdown had and this one lacks: a reset too.
        let now = metrics(&[("haiku", u(250, 50, 50))]);
        assert_eq!(shutdown_share(Some(&prev), &now, &counted(&[])), [(0, u(200, 50, 50))]);
    }

    #[test]
    fn outputs_filed_under_another_model_come_off_the_other_models() {
        let now = metrics(&[("gpt-5", u(10, 100, 0)), ("haiku", u(10, 50, 0))]);
        // The sub-agent's 50 were filed under the session's model, and one under no model.
        let share = shutdown_share(None, &now, &counted(&[("gpt-5", u(0, 150, 0)), ("", u(0, 1, 0))]));
        assert_eq!(share, [(0, u(10, 0, 0)), (1, u(10, 0, 0))]);
    }

    #[test]
    fn a_shutdown_that_repeats_the_last_counts_adds_nothing() {
        let prev = metrics(&[("gpt-5", u(100, 30, 40))]);
        assert_eq!(shutdown_share(Some(&prev), &prev, &counted(&[])), Vec::new());
    }

    #[test]
    fn model_names_lose_their_vendor() {
        assert_eq!(model_key(Some("openai/gpt-5.4")), "gpt-5.4");
        assert_eq!(model_key(Some("claude-haiku-4.5")), "claude-haiku-4.5");
        assert_eq!(model_key(None), "");
    }
}
