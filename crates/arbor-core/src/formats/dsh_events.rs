//! What the two deepseek-harness formats share: the durable event vocabulary, the view of one
//! durable event, and the boundary checker (SPEC 2.3), the harness's own invariant oracle over one
//! session's durable events.
//!
//! A `Checker` sees one session's events in order and owns its open turn and step. Each event gets
//! at most one boundary finding (plus `seq-not-increasing`); a violation is reported and the event
//! is taken as the new truth, so one fault does not cascade. Turns, their steps and the last reply
//! of each turn are written to `Turns` as they happen. Not a format of its own: `dsh_rpc` and
//! `dsh_session` feed it.

use crate::ctx::Kind;
use crate::finding::{Code, Findings, Loc};
use crate::intern::Sym;
use crate::turns::{StepSpan, TurnId, TurnRec, Turns, NO_RECORD};
use crate::wire::{Block, Content, Data, Line};

/// The kind of a durable event type, for the record index.
pub fn event_kind(t: &str) -> Kind {
    match t {
        "turn/start" => Kind::TurnStart,
        "turn/end" => Kind::TurnEnd,
        "step/start" => Kind::StepStart,
        "step/end" => Kind::StepEnd,
        // The older harness's steering message (a user's word mid-turn, or a coordinator's relay)
        // is a message to the session as `user/message` is: a transcript row.
        "user/message" | "steering/message" => Kind::UserMessage,
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

/// The tokens of an `assistant/message` and its model, when the log records them.
pub fn message_usage<'v>(view: &'v EventView<'v>) -> Option<(crate::report::Usage, Option<&'v str>)> {
    if view.kind != "assistant/message" {
        return None;
    }
    let rare = view.data.rare.get()?;
    Some((rare.usage.clone()?, rare.dsh_model()))
}

pub fn label_from(view: &EventView) -> Option<String> {
    (view.kind == "subagent/descriptor").then(|| view.data.label.non_empty().map(str::to_owned)).flatten()
}

/// The durable vocabulary (SPEC 1): anything else without `ignorable: true` is unknown.
/// `request/header-delta` and `bash/sandbox-mode`, seen in logs of mid-2026, are refused by
/// today's harness, so they stay out.
pub const KNOWN_TYPES: &[&str] = &[
    "turn/start",
    "turn/end",
    "step/start",
    "step/end",
    "user/message",
    "assistant/chunk",
    "assistant/message",
    "tool/call",
    "tool/result",
    "text-chunks",
    "reasoning-chunks",
    "tool-call-chunks",
    "todo/write",
    "request/header",
    "request/context",
    "session/end-seed",
    "agent/inbox/spliced",
    "agent-preset/selected",
    "approval/asked",
    "approval/decided",
    "approval/policy",
    "command/run",
    "command/done",
    "compaction/start",
    "compaction/end",
    "compaction/prune",
    "compaction/summary",
    "feedback/record",
    "goal/change",
    "hook/invoked",
    "hook/result",
    "llm/retry",
    "llm/retry-started",
    "permission/preset",
    "plan/mode",
    "sandbox/mode",
    "schedule/change",
    "session/title",
    "session/title-llm-request",
    "subagent/descriptor",
    "team/member",
    "team/message/queued",
    "team/message/delivered",
    "team/task",
    "tool/code-dispatch",
    "tool/code-dispatch-start",
    "tool-workflow/run-start",
    "tool-workflow/run-end",
    "tool-workflow/agent-start",
    "tool-workflow/agent-end",
    "web/deepseek-search-llm-request",
    "steering/message",
    "context/message",
    // The harness's version-4 logs (header `"version":4`, `session.v4.jsonl`).
    "system/message",
    "developer/message",
    "subagent/catalog",
    "subagent/model-selection-policy",
    "assistant/attempt",
    "image/offload",
    "model/selection",
    "working-directory/change",
    "workspace/changes",
    "tool/ptc-dispatch",
    "tool/ptc-dispatch-start",
    "deliverables/presented",
    "feedback/message-put",
    "feedback/message-delete",
    "session-log-deepseek/delivery-accepted",
];

pub const MIRROR_TYPES: &[&str] = &["agent/turn-start", "agent/turn-end", "agent/step-start", "agent/step-end"];

/// One durable event, as the checker needs it.
pub struct EventView<'a> {
    pub kind: &'a str,
    pub seq: Option<i64>,
    /// How many events the line stands for (packed chunk rows stand for several).
    pub count: u64,
    pub time: Option<f64>,
    pub ignorable: bool,
    pub data: &'a Data<'a>,
}

/// The index of the record of the event being checked (it was just added).
fn current(records: usize) -> u32 {
    records.saturating_sub(1).min(NO_RECORD as usize - 1) as u32
}

#[derive(Debug, Clone)]
struct Call {
    id: Option<String>,
    turn: i64,
    step: i64,
    answered: bool,
}

#[derive(Debug, Clone)]
pub struct Checker {
    session: Sym,
    run: Option<u32>,
    last_seq: Option<i64>,
    /// The open turn: its number and its record in `Turns`.
    turn: Option<(i64, usize)>,
    /// Where the latest turn started.
    turn_at: Option<Loc>,
    /// The open step: turn, step, where it opened, and its span index in the turn record.
    step: Option<(i64, i64, Loc, Option<usize>)>,
    next_turn: i64,
    next_step: i64,
    calls: Vec<Call>,
    /// The session's latest turn record (for a reply that arrives after its turn closed).
    last_turn: Option<usize>,
}

fn num(v: crate::wire::Num) -> Option<i64> {
    v.int()
}

impl Checker {
    pub fn set_run(&mut self, run: Option<u32>) {
        self.run = run;
    }

    pub fn new(session: Sym, run: Option<u32>) -> Self {
        Checker {
            session,
            run,
            last_seq: None,
            turn: None,
            turn_at: None,
            step: None,
            next_turn: 1,
            next_step: 1,
            calls: Vec::new(),
            last_turn: None,
        }
    }

    /// The turn an `assistant/message` just checked belongs to (the open one, else the latest):
    /// an index into `Turns::list`.
    pub fn message_turn(&self) -> Option<usize> {
        self.turn.map(|t| t.1).or(self.last_turn)
    }

    /// Outcome of the last turn: its `reason.kind`, or `None` while it is open or when there is none.
    pub fn last_reason<'t>(&self, turns: &'t Turns) -> Option<&'t str> {
        if self.turn.is_some() {
            return None;
        }
        self.last_turn.and_then(|i| turns.reason(&turns.list[i]))
    }

    /// The record of the last turn's end.
    pub fn last_turn_end(&self, turns: &Turns) -> Option<u32> {
        if self.turn.is_some() {
            return None;
        }
        self.last_turn.and_then(|i| turns.list[i].end())
    }

    fn close_step(&mut self, turns: &mut Turns, end: Option<u32>) {
        if let Some((_, _, _, Some(span))) = self.step.take() {
            if let Some((_, ti)) = self.turn {
                if let Some(s) = turns.span_mut(ti, span) {
                    s.set_end(end);
                }
            }
        }
    }

    /// Checks one event; `records` is the length of the record index, whose last record is this
    /// event's.
    pub fn event(&mut self, ev: &EventView, at: Loc, records: usize, turns: &mut Turns, findings: &mut Findings) {
        let rec = current(records);
        let s = Some(self.session);
        if let Some(seq) = ev.seq {
            if let Some(last) = self.last_seq {
                if seq <= last {
                    findings.add(
                        Code::SeqNotIncreasing,
                        at,
                        s,
                        format!("seq {seq} does not increase (the previous event had {last})"),
                    );
                }
            }
            self.last_seq = Some(seq + ev.count.saturating_sub(1) as i64);
        }
        let d = ev.data;
        let (dt, ds) = (num(d.turn), num(d.step));
        match ev.kind {
            k if MIRROR_TYPES.contains(&k) => {
                findings.add(
                    Code::BoundaryMirrorEvent,
                    at,
                    s,
                    format!("`{k}` is a live boundary mirror; boundaries belong to the durable log only"),
                );
            }
            "turn/start" => {
                let n = dt.unwrap_or(self.next_turn);
                if let Some((open, _)) = self.turn {
                    findings.add(
                        Code::TurnStartWhileOpen,
                        at,
                        s,
                        format!("turn {n} starts while turn {open} is still open"),
                    );
                } else if n != self.next_turn {
                    findings.add(
                        Code::TurnNumberSkipped,
                        at,
                        s,
                        format!("turn {n} starts where turn {} was expected", self.next_turn),
                    );
                }
                self.close_step(turns, None);
                self.turn = None;
                turns.list.push(TurnRec::new(self.session, self.run, TurnId::Num(n), Some(rec), None));
                let ix = turns.list.len() - 1;
                self.turn = Some((n, ix));
                self.turn_at = Some(at);
                self.last_turn = Some(ix);
                self.next_turn = n + 1;
                self.next_step = 1;
                self.calls.clear();
            }
            "turn/end" => {
                let reason = d.reason.0.as_ref().and_then(|r| r.kind.as_str());
                match self.turn {
                    Some((open, _)) if dt.is_some_and(|n| n != open) => {
                        findings.add(
                            Code::BoundaryMismatch,
                            at,
                            s,
                            format!("turn/end names turn {} but turn {open} is open", dt.unwrap_or_default()),
                        );
                    }
                    None => {
                        findings.add(
                            Code::BoundaryMismatch,
                            at,
                            s,
                            format!("turn/end for turn {} while no turn is open", dt.unwrap_or_default()),
                        );
                    }
                    Some(_) if self.step.is_some() => {
                        let (t, st, ..) = self.step.unwrap();
                        findings.add(
                            Code::TurnEndWithOpenStep,
                            at,
                            s,
                            format!("turn/end while step {st} of turn {t} is still open"),
                        );
                    }
                    Some(_) => {}
                }
                self.close_step(turns, None);
                match self.turn.take() {
                    Some((_, ix)) => {
                        turns.list[ix].set_end(rec);
                        turns.set_reason(ix, reason);
                    }
                    None => {
                        let turn = TurnId::Num(dt.unwrap_or(0));
                        turns.list.push(TurnRec::new(self.session, self.run, turn, None, Some(rec)));
                        turns.set_reason(turns.list.len() - 1, reason);
                        self.last_turn = Some(turns.list.len() - 1);
                    }
                }
            }
            "step/start" => {
                let n = ds.unwrap_or(self.next_step);
                let in_turn = matches!(self.turn, Some((open, _)) if dt.is_none_or(|t| t == open));
                if !in_turn {
                    findings.add(
                        Code::StepOutsideTurn,
                        at,
                        s,
                        format!("step {n} of turn {} starts outside that turn", dt.unwrap_or_default()),
                    );
                } else if let Some((t, st, ..)) = self.step {
                    findings.add(
                        Code::StepStartWhileOpen,
                        at,
                        s,
                        format!("step {n} starts while step {st} of turn {t} is still open"),
                    );
                } else if n != self.next_step {
                    findings.add(
                        Code::StepNumberSkipped,
                        at,
                        s,
                        format!("step {n} starts where step {} was expected", self.next_step),
                    );
                }
                self.close_step(turns, None);
                let turn_no = dt.or(self.turn.map(|t| t.0)).unwrap_or(0);
                let span = self.turn.map(|(_, ix)| {
                    turns.list[ix].steps += 1;
                    turns.push_span(ix, StepSpan::open(n.max(0) as u32, rec))
                });
                self.step = Some((turn_no, n, at, span));
                self.next_step = n + 1;
            }
            "step/end" => {
                match self.step {
                    Some((t, st, ..)) if dt.is_none_or(|x| x == t) && ds.is_none_or(|x| x == st) => {}
                    Some((t, st, ..)) => findings.add(
                        Code::BoundaryMismatch,
                        at,
                        s,
                        format!(
                            "step/end names step {} of turn {} but step {st} of turn {t} is open",
                            ds.unwrap_or_default(),
                            dt.unwrap_or_default()
                        ),
                    ),
                    None => findings.add(
                        Code::BoundaryMismatch,
                        at,
                        s,
                        format!("step/end for step {} while no step is open", ds.unwrap_or_default()),
                    ),
                }
                self.close_step(turns, Some(rec));
            }
            "assistant/chunk" | "text-chunks" | "reasoning-chunks" | "tool-call-chunks" | "assistant/message"
            | "tool/call" => {
                if dt.is_some() || ds.is_some() {
                    let names_open = matches!(self.step, Some((t, st, ..)) if dt.is_none_or(|x| x == t) && ds.is_none_or(|x| x == st));
                    if !names_open {
                        let open = match self.step {
                            Some((t, st, ..)) => format!("step {st} of turn {t} is open"),
                            None => "no step is open".to_owned(),
                        };
                        findings.add(
                            Code::EventOutsideStep,
                            at,
                            s,
                            format!(
                                "{} names step {} of turn {}, but {open}",
                                ev.kind,
                                ds.unwrap_or_default(),
                                dt.unwrap_or_default()
                            ),
                        );
                    }
                }
                if ev.kind == "tool/call" {
                    self.calls.push(Call {
                        id: d.call_id.as_str().map(str::to_owned),
                        turn: dt.unwrap_or(0),
                        step: ds.unwrap_or(0),
                        answered: false,
                    });
                }
                if ev.kind == "assistant/message" {
                    let target = self
                        .turn
                        .map(|t| t.1)
                        .or(self.last_turn.filter(|&i| dt.is_none_or(|x| turns.list[i].turn == TurnId::Num(x))));
                    if let Some(ix) = target {
                        turns.list[ix].set_reply(rec);
                    }
                }
            }
            "tool/result" => {
                let named = tool_result_call_id(d);
                let turn = dt.or(self.turn.map(|t| t.0));
                let found = self.calls.iter_mut().find(|c| {
                    !c.answered
                        && turn.is_none_or(|t| t == c.turn)
                        && match &named {
                            Some(id) => c.id.as_deref() == Some(id.as_str()),
                            None => ds.is_none_or(|st| st == c.step),
                        }
                });
                match found {
                    Some(c) => c.answered = true,
                    None => {
                        let what = match &named {
                            Some(id) => format!("call `{id}`"),
                            None => "any call of its step".to_owned(),
                        };
                        findings.add(
                            Code::ToolResultWithoutCall,
                            at,
                            s,
                            format!("tool/result answers {what}, but no unanswered tool/call of this turn matches"),
                        );
                    }
                }
            }
            k if KNOWN_TYPES.contains(&k) || ev.ignorable => {}
            k => {
                findings.add(Code::UnknownEventType, at, s, format!("event type `{k}` is not in the durable vocabulary and is not marked ignorable; the harness would refuse this log"));
            }
        }
    }

    /// Whether a turn or a step is open (what `finish` reports).
    pub fn is_open(&self) -> bool {
        self.turn.is_some() || self.step.is_some()
    }

    /// The end of the log: report what is still open, at the line that opened it.
    pub fn finish(&self, findings: &mut Findings) {
        if let Some((t, _)) = self.turn {
            if let Some(at) = self.turn_at {
                findings.add(
                    Code::UnclosedAtEnd,
                    at,
                    Some(self.session),
                    format!("turn {t} is still open when the log ends"),
                );
            }
        }
        if let Some((t, st, at, _)) = self.step {
            findings.add(
                Code::UnclosedAtEnd,
                at,
                Some(self.session),
                format!("step {st} of turn {t} is still open when the log ends"),
            );
        }
    }
}

/// The call a tool result names: `message.source.callId`, a `tool-result` block's `toolCallId`,
/// or (older logs) `data.callId` / a block in `data.content`.
fn tool_result_call_id(d: &Data) -> Option<String> {
    if let Some(m) = &d.message.0 {
        if let Some(id) = m.source.0.as_ref().and_then(|s| s.call_id.non_empty()) {
            return Some(id.to_owned());
        }
        if let Some(id) = block_call_id(&m.content.0) {
            return Some(id);
        }
    }
    if let Some(id) = d.call_id.non_empty() {
        return Some(id.to_owned());
    }
    match &d.content {
        Content::Blocks(b) => block_call_id(b),
        _ => None,
    }
}

fn block_call_id(blocks: &[Block]) -> Option<String> {
    blocks
        .iter()
        .find(|b| b.kind.as_str() == Some("tool-result"))
        .and_then(|b| b.tool_call_id.non_empty())
        .map(str::to_owned)
}
