//! Property tests: generated logs, each checked against a small reference model written from
//! SPEC.md, and against the count that says nothing is lost.
//!
//! - `dsh-rpc` recordings: 2.1 routing, root turns and runs, and 2.3 the boundary checker;
//! - `dsh-session` folders: 2.3 headers, the session tree, child runs, and the checker per file;
//! - Copilot logs (`copilot-events` and `copilot-rpc`): 2.2 the root-agent gate, both waiters,
//!   each sub-agent's parent and runs;
//! - Copilot timestamps: `time::rfc3339_ms` against a day count done the long way.
//!
//! The generators draw ids from a tiny alphabet so that reuse, re-parenting and cycles happen
//! often, mix in garbage, blank lines, requests and `initialize`, and write mostly well-formed turns
//! with faults among them (`Ev::Auto`). Every recording and Copilot log must also read the same with
//! CRLF endings and as zstd. The models are deliberately naive (linear walks, no caches): they are
//! the spec read aloud, not a second engine. An input a property once failed on is kept below it as
//! a plain test.
//!
//! `PROPTEST_CASES` raises the case count (the default is 256, to keep the suite fast).

use arbor_core::report::{Outcome, Report, WaitOutcome};
use proptest::prelude::*;
use proptest::test_runner::Config;
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

fn config() -> Config {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(256);
    Config { cases, failure_persistence: None, ..Config::default() }
}

/// Write `bytes` to `name` in a new temporary folder and analyze it.
fn analyze_bytes(name: &str, bytes: &[u8]) -> (Report, u64) {
    let dir = tempfile::tempdir().unwrap();
    let path: PathBuf = dir.path().join(name);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(&path, bytes).unwrap();
    let a = arbor_core::analyze(&[path], &mut ());
    (a.report(), a.records().len() as u64)
}

/// Lines the reader counts: split on `\n`, a `\r` before it dropped, all-whitespace lines blank.
fn non_blank_lines(bytes: &[u8]) -> u64 {
    let mut parts: Vec<&[u8]> = bytes.split(|b| *b == b'\n').collect();
    if bytes.ends_with(b"\n") {
        parts.pop();
    }
    parts.iter().filter(|l| !l.iter().all(|b| b.is_ascii_whitespace())).count() as u64
}

/// "Nothing is lost": every non-blank line is a record or a bad line, and the record index holds
/// exactly the records the inputs count.
fn assert_counts(r: &Report, records: u64, bytes: &[u8]) {
    assert_eq!(r.inputs.len(), 1);
    let i = &r.inputs[0];
    assert_ne!(i.format, "unknown", "the generator always starts with a decisive line");
    assert_eq!(i.records + i.bad_lines, non_blank_lines(bytes), "lines lost");
    assert_eq!(records, i.records, "record index and input counts disagree");
    let bad = r.diagnostics.iter().filter(|d| d.code == "malformed-line" || d.code == "truncated-final-line").count();
    assert_eq!(bad as u64, i.bad_lines);
}

// ---------------------------------------------------------------------------------------------
// dsh-rpc: generator
// ---------------------------------------------------------------------------------------------

const IDS: &[&str] = &["a", "b", "c", "d"];

/// An id in a lifecycle notification: a session, or one of the ways to get it wrong.
#[derive(Debug, Clone, Copy, PartialEq)]
enum EdgeId {
    Ok(usize),
    Empty,
    Missing,
    Number,
}

impl EdgeId {
    fn get(self) -> Option<usize> {
        match self {
            EdgeId::Ok(i) => Some(i),
            _ => None,
        }
    }
    fn json(self, key: &str) -> String {
        match self {
            EdgeId::Ok(i) => format!(r#","{key}":"{}""#, IDS[i]),
            EdgeId::Empty => format!(r#","{key}":"""#),
            EdgeId::Missing => String::new(),
            EdgeId::Number => format!(r#","{key}":5"#),
        }
    }
}

#[derive(Debug, Clone)]
enum Ev {
    TurnStart(i64),
    TurnEnd(i64, Option<&'static str>),
    StepStart(i64, i64),
    StepEnd(i64, i64),
    Chunk(i64, i64),
    /// A packed `text-chunks` row standing for `n` chunks.
    Packed(i64, i64, u8),
    /// `assistant/message` with (is-text, text) blocks.
    Message(i64, i64, Vec<(bool, &'static str)>),
    ToolCall(i64, i64, Option<u8>),
    ToolResult(i64, i64, Option<u8>),
    Known(&'static str),
    Mirror(&'static str),
    Unknown(bool),
    /// The next well-formed event for the session's state (see `resolve`), so that long balanced
    /// turns happen, with faults among them rather than instead of them.
    Auto(u8),
}

#[derive(Debug, Clone, Copy)]
enum Seq {
    None,
    /// Ten times the line number: increases along the file.
    Rising,
    Fixed(i64),
}

#[derive(Debug, Clone)]
enum Op {
    Event {
        sid: usize,
        ev: Ev,
        seq: Seq,
        jsonrpc: bool,
    },
    Status {
        sid: usize,
        idle: bool,
    },
    Started {
        parent: EdgeId,
        child: EdgeId,
    },
    Finished {
        parent: EdgeId,
        child: EdgeId,
        ok: bool,
        aborted: bool,
    },
    Initialize,
    /// A recorded client request that is not `initialize` (not a notification).
    Prompt(usize),
    Response,
    /// A JSON object that is a record of nothing in particular.
    Odd(usize),
    Garbage(usize),
    Blank(usize),
}

const ODD: &[&str] = &[r#"{}"#, r#"{"method":5,"params":[]}"#, r#"{"method":"session.event","params":{"event":{}}}"#];

const GARBAGE: &[&[u8]] = &[
    b"not json",
    b"[1,2,3]",
    b"{\"method\":",
    b"{\"method\":\"session.status\",\"params\":{\"sessionId\":\"\xff\xfe\"}}",
    b"\"just a string\"",
    b"{} trailing",
    b"\x00\x00\x00\x00",
    b"{\"a\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
];

const BLANK: &[&[u8]] = &[b"", b"   ", b"\t", b"\r", b" \r"];

fn turn_no() -> impl Strategy<Value = i64> {
    prop_oneof![6 => 1i64..3, 1 => 0i64..5]
}

fn ev() -> impl Strategy<Value = Ev> {
    prop_oneof![1 => any_ev(), 4 => any::<u8>().prop_map(Ev::Auto)]
}

fn any_ev() -> impl Strategy<Value = Ev> {
    let texts =
        prop::collection::vec((any::<bool>(), prop::sample::select(vec!["", "hi", "child answer", " 42."])), 0..3);
    prop_oneof![
        4 => turn_no().prop_map(Ev::TurnStart),
        4 => (turn_no(), prop::option::of(prop::sample::select(vec!["completed", "aborted", "error"])))
            .prop_map(|(t, r)| Ev::TurnEnd(t, r)),
        4 => (turn_no(), turn_no()).prop_map(|(t, s)| Ev::StepStart(t, s)),
        4 => (turn_no(), turn_no()).prop_map(|(t, s)| Ev::StepEnd(t, s)),
        2 => (turn_no(), turn_no()).prop_map(|(t, s)| Ev::Chunk(t, s)),
        1 => (turn_no(), turn_no(), 1u8..4).prop_map(|(t, s, n)| Ev::Packed(t, s, n)),
        3 => (turn_no(), turn_no(), texts).prop_map(|(t, s, b)| Ev::Message(t, s, b)),
        2 => (turn_no(), turn_no(), prop::option::of(0u8..3)).prop_map(|(t, s, c)| Ev::ToolCall(t, s, c)),
        2 => (turn_no(), turn_no(), prop::option::of(0u8..3)).prop_map(|(t, s, c)| Ev::ToolResult(t, s, c)),
        1 => prop::sample::select(vec!["user/message", "session/title", "todo/write"]).prop_map(Ev::Known),
        1 => prop::sample::select(vec!["agent/turn-start", "agent/step-end"]).prop_map(Ev::Mirror),
        1 => any::<bool>().prop_map(Ev::Unknown),
    ]
}

/// A session id for an event or status: skewed, so that one session writes long balanced turns.
fn sid() -> impl Strategy<Value = usize> {
    prop_oneof![4 => Just(0), 2 => Just(1), 1 => Just(2), 1 => Just(3)]
}

fn seq() -> impl Strategy<Value = Seq> {
    prop_oneof![8 => Just(Seq::Rising), 1 => Just(Seq::None), 1 => (0i64..200).prop_map(Seq::Fixed)]
}

fn edge_id() -> impl Strategy<Value = EdgeId> {
    prop_oneof![
        12 => (0..IDS.len()).prop_map(EdgeId::Ok),
        1 => Just(EdgeId::Empty),
        1 => Just(EdgeId::Missing),
        1 => Just(EdgeId::Number),
    ]
}

fn decisive_op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0..IDS.len(), any::<bool>()).prop_map(|(sid, idle)| Op::Status { sid, idle }),
        (sid(), ev(), seq(), any::<bool>()).prop_map(|(sid, ev, seq, jsonrpc)| Op::Event { sid, ev, seq, jsonrpc }),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        12 => (sid(), ev(), seq(), any::<bool>()).prop_map(|(sid, ev, seq, jsonrpc)| Op::Event { sid, ev, seq, jsonrpc }),
        4 => (sid(), prop::bool::weighted(0.6)).prop_map(|(sid, idle)| Op::Status { sid, idle }),
        4 => (edge_id(), edge_id()).prop_map(|(parent, child)| Op::Started { parent, child }),
        3 => (edge_id(), edge_id(), any::<bool>(), any::<bool>())
            .prop_map(|(parent, child, ok, aborted)| Op::Finished { parent, child, ok, aborted }),
        1 => Just(Op::Initialize),
        1 => (0..IDS.len()).prop_map(Op::Prompt),
        1 => Just(Op::Response),
        1 => (0..ODD.len()).prop_map(Op::Odd),
        1 => (0..GARBAGE.len()).prop_map(Op::Garbage),
        1 => (0..BLANK.len()).prop_map(Op::Blank),
    ]
}

fn recording() -> impl Strategy<Value = (Vec<Op>, bool)> {
    (decisive_op(), prop::collection::vec(op(), 0..100), prop::bool::weighted(0.9)).prop_map(|(first, mut rest, nl)| {
        rest.insert(0, first);
        (rest, nl)
    })
}

/// Replace each `Ev::Auto` by the event a well-behaved harness would write next for that session,
/// tracking its turn and step naively (a reused id's fresh start is not tracked, which only adds
/// faults).
fn resolve(ops: &[Op]) -> Vec<Op> {
    #[derive(Default, Clone, Copy)]
    struct S {
        next_turn: i64,
        turn: Option<i64>,
        step: Option<i64>,
        next_step: i64,
        calls: u8,
    }
    let mut state = [S { next_turn: 1, next_step: 1, ..S::default() }; 4];
    ops.iter()
        .map(|op| {
            let Op::Event { sid, ev, seq, jsonrpc } = op else { return op.clone() };
            let st = &mut state[*sid];
            let ev = match ev {
                Ev::Auto(k) => match (st.turn, st.step) {
                    (None, _) => Ev::TurnStart(st.next_turn),
                    (Some(t), None) if k % 3 == 0 => Ev::TurnEnd(t, Some("completed")),
                    (Some(t), None) => Ev::StepStart(t, st.next_step),
                    (Some(t), Some(s)) => match k % 6 {
                        0 | 5 => Ev::StepEnd(t, s),
                        1 | 2 => Ev::Message(t, s, vec![(true, "root says"), (false, "thinking"), (true, " 42.")]),
                        3 => Ev::ToolCall(t, s, Some(st.calls % 3)),
                        4 if k & 8 == 0 => Ev::ToolResult(t, s, Some(st.calls.wrapping_sub(1) % 3)),
                        _ => Ev::Packed(t, s, 1 + k % 3),
                    },
                },
                other => other.clone(),
            };
            match &ev {
                Ev::TurnStart(n) => {
                    *st = S { next_turn: n + 1, turn: Some(*n), step: None, next_step: 1, calls: st.calls };
                }
                Ev::TurnEnd(..) => {
                    st.turn = None;
                    st.step = None;
                }
                Ev::StepStart(_, s) => {
                    st.step = Some(*s);
                    st.next_step = s + 1;
                }
                Ev::StepEnd(..) => st.step = None,
                Ev::ToolCall(..) => st.calls = st.calls.wrapping_add(1),
                _ => {}
            }
            Op::Event { sid: *sid, ev, seq: *seq, jsonrpc: *jsonrpc }
        })
        .collect()
}

fn render_ev(ev: &Ev, seq: Seq, line: u64) -> String {
    let seq = match (seq, ev) {
        (Seq::None, _) => String::new(),
        (Seq::Rising, Ev::Packed(..)) => format!(r#","seq0":{}"#, line * 10),
        (Seq::Fixed(n), Ev::Packed(..)) => format!(r#","seq0":{n}"#),
        (Seq::Rising, _) => format!(r#","seq":{}"#, line * 10),
        (Seq::Fixed(n), _) => format!(r#","seq":{n}"#),
    };
    let (kind, data, extra) = match ev {
        Ev::TurnStart(t) => ("turn/start".to_owned(), format!(r#"{{"turn":{t}}}"#), ""),
        Ev::TurnEnd(t, r) => (
            "turn/end".to_owned(),
            match r {
                Some(r) => format!(r#"{{"turn":{t},"reason":{{"kind":"{r}"}}}}"#),
                None => format!(r#"{{"turn":{t}}}"#),
            },
            "",
        ),
        Ev::StepStart(t, s) => ("step/start".to_owned(), format!(r#"{{"turn":{t},"step":{s}}}"#), ""),
        Ev::StepEnd(t, s) => ("step/end".to_owned(), format!(r#"{{"turn":{t},"step":{s}}}"#), ""),
        Ev::Chunk(t, s) => ("assistant/chunk".to_owned(), format!(r#"{{"turn":{t},"step":{s},"chunk":"x"}}"#), ""),
        Ev::Packed(t, s, n) => {
            let dt: Vec<String> = (0..*n).map(|i| i.to_string()).collect();
            let texts: Vec<String> = (0..*n).map(|_| "\"x\"".to_owned()).collect();
            (
                "text-chunks".to_owned(),
                format!(r#"{{"turn":{t},"step":{s},"index":0,"dt":[{}],"texts":[{}]}}"#, dt.join(","), texts.join(",")),
                "",
            )
        }
        Ev::Message(t, s, blocks) => {
            let b: Vec<String> = blocks
                .iter()
                .map(|(text, s)| {
                    let kind = if *text { "text" } else { "reasoning" };
                    format!(r#"{{"type":"{kind}","text":"{s}"}}"#)
                })
                .collect();
            (
                "assistant/message".to_owned(),
                format!(r#"{{"turn":{t},"step":{s},"message":{{"role":"assistant","content":[{}]}}}}"#, b.join(",")),
                "",
            )
        }
        Ev::ToolCall(t, s, c) => (
            "tool/call".to_owned(),
            match c {
                Some(c) => format!(r#"{{"turn":{t},"step":{s},"callId":"k{c}","name":"f","arguments":{{}}}}"#),
                None => format!(r#"{{"turn":{t},"step":{s},"name":"f","arguments":{{}}}}"#),
            },
            "",
        ),
        Ev::ToolResult(t, s, c) => (
            "tool/result".to_owned(),
            match c {
                Some(c) => format!(
                    r#"{{"turn":{t},"step":{s},"message":{{"role":"tool","content":[],"source":{{"callId":"k{c}"}}}}}}"#
                ),
                None => format!(r#"{{"turn":{t},"step":{s},"message":{{"role":"tool","content":[]}}}}"#),
            },
            "",
        ),
        Ev::Known(k) => ((*k).to_owned(), "{}".to_owned(), ""),
        Ev::Mirror(k) => ((*k).to_owned(), "{}".to_owned(), ""),
        Ev::Unknown(ign) => ("bogus/kind".to_owned(), "{}".to_owned(), if *ign { r#","ignorable":true"# } else { "" }),
        Ev::Auto(_) => unreachable!("resolved before rendering"),
    };
    format!(r#"{{"type":"{kind}"{seq},"time":{line},"data":{data}{extra}}}"#)
}

fn render(ops: &[Op], final_newline: bool) -> Vec<u8> {
    let mut out = Vec::new();
    for (i, op) in ops.iter().enumerate() {
        let line = i as u64 + 1;
        let text: Vec<u8> = match op {
            Op::Event { sid, ev, seq, jsonrpc } => format!(
                r#"{{{}"method":"session.event","params":{{"sessionId":"{}","event":{}}}}}"#,
                if *jsonrpc { r#""jsonrpc":"2.0","# } else { "" },
                IDS[*sid],
                render_ev(ev, *seq, line)
            )
            .into_bytes(),
            Op::Status { sid, idle } => format!(
                r#"{{"jsonrpc":"2.0","method":"session.status","params":{{"sessionId":"{}","status":"{}"}}}}"#,
                IDS[*sid],
                if *idle { "idle" } else { "running" }
            )
            .into_bytes(),
            Op::Started { parent, child } => format!(
                r#"{{"jsonrpc":"2.0","method":"subagent.started","params":{{"x":0{}{}}}}}"#,
                parent.json("parentSessionId"),
                child.json("childSessionId")
            )
            .into_bytes(),
            Op::Finished { parent, child, ok, aborted } => format!(
                r#"{{"jsonrpc":"2.0","method":"subagent.finished","params":{{"provider":"p","agentId":"g"{}{},"status":"{}","stopReason":"{}"}}}}"#,
                parent.json("parentSessionId"),
                child.json("childSessionId"),
                if *ok { "ok" } else { "error" },
                if *aborted { "aborted" } else { "end_turn" }
            )
            .into_bytes(),
            Op::Initialize => {
                br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}"#.to_vec()
            }
            Op::Prompt(sid) => format!(
                r#"{{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{{"sessionId":"{}","contentBlocks":[]}}}}"#,
                IDS[*sid]
            )
            .into_bytes(),
            Op::Response => br#"{"jsonrpc":"2.0","id":1,"result":{}}"#.to_vec(),
            Op::Odd(i) => ODD[*i].as_bytes().to_vec(),
            Op::Garbage(i) => GARBAGE[*i].to_vec(),
            Op::Blank(i) => BLANK[*i].to_vec(),
        };
        out.extend_from_slice(&text);
        if final_newline || i + 1 < ops.len() {
            out.push(b'\n');
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// SPEC 2.3: the boundary checker, read aloud
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq)]
struct TurnM {
    session: String,
    run: Option<u32>,
    turn: i64,
    start: Option<u64>,
    end: Option<u64>,
    reason: Option<String>,
    steps: u32,
}

/// (code, line, session)
type FindingM = (String, u64, String);

#[derive(Debug)]
struct CheckerM {
    session: String,
    run: Option<u32>,
    last_seq: Option<i64>,
    turn: Option<(i64, usize)>,
    step: Option<(i64, i64, u64)>,
    next_turn: i64,
    next_step: i64,
    /// (callId, turn, step, answered)
    calls: Vec<(Option<u8>, i64, i64, bool)>,
}

impl CheckerM {
    fn new(session: &str, run: Option<u32>) -> Self {
        CheckerM {
            session: session.to_owned(),
            run,
            last_seq: None,
            turn: None,
            step: None,
            next_turn: 1,
            next_step: 1,
            calls: Vec::new(),
        }
    }

    fn event(&mut self, ev: &Ev, seq: Option<i64>, line: u64, turns: &mut Vec<TurnM>, f: &mut Vec<FindingM>) {
        let session = self.session.clone();
        let mut add = |code: &str| f.push((code.to_owned(), line, session.clone()));
        if let Some(q) = seq {
            if self.last_seq.is_some_and(|last| q <= last) {
                add("seq-not-increasing");
            }
            let count = if let Ev::Packed(_, _, n) = ev { *n as i64 } else { 1 };
            self.last_seq = Some(q + count - 1);
        }
        let names_open_step =
            |step: Option<(i64, i64, u64)>, t: i64, s: i64| step.is_some_and(|(ot, os, _)| ot == t && os == s);
        match ev {
            Ev::TurnStart(n) => {
                if self.turn.is_some() {
                    add("turn-start-while-open");
                } else if *n != self.next_turn {
                    add("turn-number-skipped");
                }
                self.step = None;
                turns.push(TurnM {
                    session: self.session.clone(),
                    run: self.run,
                    turn: *n,
                    start: Some(line),
                    end: None,
                    reason: None,
                    steps: 0,
                });
                self.turn = Some((*n, turns.len() - 1));
                self.next_turn = n + 1;
                self.next_step = 1;
                self.calls.clear();
            }
            Ev::TurnEnd(n, reason) => {
                match self.turn {
                    Some((open, _)) if open != *n => add("boundary-mismatch"),
                    None => add("boundary-mismatch"),
                    Some(_) if self.step.is_some() => add("turn-end-with-open-step"),
                    Some(_) => {}
                }
                self.step = None;
                let reason = reason.map(str::to_owned);
                match self.turn.take() {
                    Some((_, ix)) => {
                        turns[ix].end = Some(line);
                        turns[ix].reason = reason;
                    }
                    None => turns.push(TurnM {
                        session: self.session.clone(),
                        run: self.run,
                        turn: *n,
                        start: None,
                        end: Some(line),
                        reason,
                        steps: 0,
                    }),
                }
            }
            Ev::StepStart(t, s) => {
                if self.turn.is_none_or(|(open, _)| open != *t) {
                    add("step-outside-turn");
                } else if self.step.is_some() {
                    add("step-start-while-open");
                } else if *s != self.next_step {
                    add("step-number-skipped");
                }
                if let Some((_, ix)) = self.turn {
                    turns[ix].steps += 1;
                }
                self.step = Some((*t, *s, line));
                self.next_step = s + 1;
            }
            Ev::StepEnd(t, s) => {
                if !names_open_step(self.step, *t, *s) {
                    add("boundary-mismatch");
                }
                self.step = None;
            }
            Ev::Chunk(t, s) | Ev::Packed(t, s, _) | Ev::Message(t, s, _) => {
                if !names_open_step(self.step, *t, *s) {
                    add("event-outside-step");
                }
            }
            Ev::ToolCall(t, s, c) => {
                if !names_open_step(self.step, *t, *s) {
                    add("event-outside-step");
                }
                self.calls.push((*c, *t, *s, false));
            }
            Ev::ToolResult(t, s, c) => {
                let found = self.calls.iter_mut().find(|(id, ct, cs, answered)| {
                    !*answered
                        && ct == t
                        && match c {
                            Some(c) => *id == Some(*c),
                            None => cs == s,
                        }
                });
                match found {
                    Some(call) => call.3 = true,
                    None => add("tool-result-without-call"),
                }
            }
            Ev::Known(_) => {}
            Ev::Mirror(_) => add("boundary-mirror-event"),
            Ev::Unknown(ignorable) => {
                if !ignorable {
                    add("unknown-event-type");
                }
            }
            Ev::Auto(_) => unreachable!("resolved before the model runs"),
        }
    }

    fn finish(&self, turns: &[TurnM], f: &mut Vec<FindingM>) {
        if let Some((_, ix)) = self.turn {
            f.push(("unclosed-at-end".into(), turns[ix].start.unwrap(), self.session.clone()));
        }
        if let Some((_, _, line)) = self.step {
            f.push(("unclosed-at-end".into(), line, self.session.clone()));
        }
    }
}

const BOUNDARY_CODES: &[&str] = &[
    "seq-not-increasing",
    "turn-start-while-open",
    "turn-number-skipped",
    "step-number-skipped",
    "step-outside-turn",
    "step-start-while-open",
    "boundary-mismatch",
    "event-outside-step",
    "tool-result-without-call",
    "turn-end-with-open-step",
    "unclosed-at-end",
    "boundary-mirror-event",
    "unknown-event-type",
];

// ---------------------------------------------------------------------------------------------
// SPEC 2.1: routing, root turns and runs, read aloud
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq)]
struct RunM {
    parent: String,
    start: u64,
    end: Option<u64>,
    outcome: Outcome,
}

#[derive(Debug, Clone, PartialEq)]
struct WaitM {
    root: String,
    start: u64,
    end: Option<u64>,
    outcome: WaitOutcome,
    reply: Option<String>,
    finish_reason: Option<String>,
    notifications: u64,
    events: u64,
    naive: u64,
}

#[derive(Debug, Default)]
struct RpcModel {
    /// Current parents, for one runtime.
    parent: HashMap<usize, usize>,
    /// Sessions in first-appearance order.
    sessions: Vec<usize>,
    last_parent: HashMap<usize, usize>,
    runs: HashMap<usize, Vec<RunM>>,
    open: HashMap<usize, WaitM>,
    waits: Vec<WaitM>,
    early: HashMap<usize, u64>,
    edged: HashSet<usize>,
    /// Routing findings: (code, line).
    findings: Vec<(String, u64)>,
    checkers: HashMap<usize, CheckerM>,
    turns: Vec<TurnM>,
    boundary: Vec<FindingM>,
    /// Lines that are `subagent.finished` notifications.
    finished_lines: HashSet<u64>,
}

impl RpcModel {
    fn session(&mut self, s: usize) {
        if !self.sessions.contains(&s) {
            self.sessions.push(s);
        }
    }

    /// The walk over current parents; `None` when it meets a cycle.
    fn root(&self, s: usize) -> Option<usize> {
        let mut seen = HashSet::new();
        let mut cur = s;
        loop {
            if !seen.insert(cur) {
                return None;
            }
            match self.parent.get(&cur) {
                Some(&p) => cur = p,
                None => return Some(cur),
            }
        }
    }

    fn attribute(&mut self, root: usize, naive: bool, line: u64) -> &mut WaitM {
        let w = self.open.entry(root).or_insert_with(|| WaitM {
            root: IDS[root].to_owned(),
            start: line,
            end: None,
            outcome: WaitOutcome::Open,
            reply: None,
            finish_reason: None,
            notifications: 0,
            events: 0,
            naive: 0,
        });
        w.notifications += 1;
        if naive {
            w.naive += 1;
        }
        w
    }

    fn end_open(&mut self, root: usize) {
        if let Some(w) = self.open.remove(&root) {
            self.waits.push(w);
        }
    }

    fn run(ops: &[Op]) -> RpcModel {
        let mut m = RpcModel::default();
        for (i, op) in ops.iter().enumerate() {
            let line = i as u64 + 1;
            match op {
                Op::Initialize => {
                    for r in 0..IDS.len() {
                        m.end_open(r);
                    }
                    m.parent.clear();
                    m.early.clear();
                    m.edged.clear();
                }
                Op::Started { parent, child } => {
                    let (Some(p), Some(c)) = (parent.get(), child.get()) else {
                        m.findings.push(("invalid-start-edge".into(), line));
                        continue;
                    };
                    if p == c {
                        m.findings.push(("invalid-start-edge".into(), line));
                        continue;
                    }
                    m.session(p);
                    m.session(c);
                    let reused = m.runs.get(&c).is_some_and(|r| !r.is_empty());
                    // A cycle: the walk up from the new parent reaches the child.
                    let cycle = {
                        let mut seen = HashSet::new();
                        let mut cur = p;
                        loop {
                            if cur == c {
                                break true;
                            }
                            if !seen.insert(cur) {
                                break false;
                            }
                            match m.parent.get(&cur) {
                                Some(&q) => cur = q,
                                None => break false,
                            }
                        }
                    };
                    m.end_open(c);
                    if reused {
                        m.findings.push(("child-id-reused".into(), line));
                    }
                    let runs = m.runs.entry(c).or_default();
                    runs.push(RunM { parent: IDS[p].to_owned(), start: line, end: None, outcome: Outcome::Open });
                    let run = runs.len() as u32 - 1;
                    m.last_parent.insert(c, p);
                    m.parent.insert(c, p);
                    if reused {
                        m.checkers.insert(c, CheckerM::new(IDS[c], Some(run)));
                    } else if let Some(ch) = m.checkers.get_mut(&c) {
                        ch.run = Some(run);
                    }
                    if let Some(first) = m.early.remove(&c) {
                        m.findings.push(("event-before-start-edge".into(), first));
                    }
                    m.edged.insert(c);
                    if cycle {
                        m.findings.push(("ancestry-cycle".into(), line));
                    }
                    if let Some(r) = m.root(p) {
                        m.attribute(r, r == p, line);
                    }
                }
                Op::Finished { parent, child, ok, aborted } => {
                    m.finished_lines.insert(line);
                    let outcome = match (ok, aborted) {
                        (true, _) => Outcome::Ok,
                        (false, true) => Outcome::Cancelled,
                        (false, false) => Outcome::Error,
                    };
                    let mut settled = false;
                    if let (Some(p), Some(c)) = (parent.get(), child.get()) {
                        if let Some(runs) = m.runs.get_mut(&c) {
                            let last = runs.len() - 1;
                            if let Some((i, run)) = runs
                                .iter_mut()
                                .enumerate()
                                .find(|(_, r)| r.outcome == Outcome::Open && r.parent == IDS[p])
                            {
                                run.end = Some(line);
                                run.outcome = outcome;
                                settled = true;
                                if i != last {
                                    m.findings.push(("stale-run-settled".into(), line));
                                }
                            }
                        }
                    }
                    if !settled {
                        m.findings.push(("finished-without-start".into(), line));
                    }
                    // Attributed through its own parentSessionId, when that names a session.
                    if let Some(p) = parent.get().filter(|p| m.sessions.contains(p)) {
                        if let Some(r) = m.root(p) {
                            m.attribute(r, r == p, line);
                        }
                    }
                }
                Op::Event { sid, .. } | Op::Status { sid, .. } => {
                    let s = *sid;
                    m.session(s);
                    if !m.edged.contains(&s) {
                        m.early.entry(s).or_insert(line);
                    }
                    if let Some(r) = m.root(s) {
                        let own = r == s;
                        let w = m.attribute(r, own, line);
                        if own {
                            match op {
                                Op::Event { ev, .. } => {
                                    w.events += 1;
                                    match ev {
                                        Ev::Message(_, _, blocks) => {
                                            w.reply = Some(
                                                blocks.iter().filter(|(t, _)| *t).map(|(_, s)| *s).collect::<String>(),
                                            )
                                        }
                                        Ev::TurnEnd(_, reason) => w.finish_reason = reason.map(str::to_owned),
                                        _ => {}
                                    }
                                }
                                Op::Status { idle: true, .. } => {
                                    let mut w = m.open.remove(&r).unwrap();
                                    w.end = Some(line);
                                    w.outcome = WaitOutcome::Idle;
                                    m.waits.push(w);
                                }
                                _ => {}
                            }
                        }
                    }
                    if let Op::Event { ev, seq, .. } = op {
                        let seq = match seq {
                            Seq::None => None,
                            Seq::Rising => Some(line as i64 * 10),
                            Seq::Fixed(n) => Some(*n),
                        };
                        let run = m.runs.get(&s).and_then(|r| r.len().checked_sub(1)).map(|r| r as u32);
                        let checker = m.checkers.entry(s).or_insert_with(|| CheckerM::new(IDS[s], run));
                        checker.event(ev, seq, line, &mut m.turns, &mut m.boundary);
                    }
                }
                Op::Prompt(_) | Op::Response | Op::Odd(_) | Op::Garbage(_) | Op::Blank(_) => {}
            }
        }
        for r in 0..IDS.len() {
            m.end_open(r);
        }
        for c in m.checkers.values() {
            c.finish(&m.turns, &mut m.boundary);
        }
        m.waits.sort_by_key(|w| w.start);
        m
    }

    /// Root and depth by the last parent each session had; `None` on a cycle.
    fn placement(&self, s: usize) -> (Option<usize>, Option<u32>) {
        let mut seen = HashSet::new();
        let mut cur = s;
        let mut depth = 0;
        loop {
            if !seen.insert(cur) {
                return (None, None);
            }
            match self.last_parent.get(&cur) {
                Some(&p) => {
                    cur = p;
                    depth += 1;
                }
                None => return (Some(cur), Some(depth)),
            }
        }
    }
}

fn place_line(p: &Option<arbor_core::report::Place>) -> Option<u64> {
    p.as_ref().map(|p| p.line)
}

/// The same log with CRLF line endings, and compressed as zstd, gives the same report (but for the
/// file's name and decompressed size).
fn assert_same_as_crlf_and_zstd(r: &Report, bytes: &[u8]) {
    let normal = |r: &Report| {
        let mut r = r.clone();
        let file = format!("\"{}\"", r.inputs[0].file);
        r.inputs[0].bytes = 0;
        serde_json::to_string(&r).unwrap().replace(&file, "\"F\"")
    };
    let mut crlf = Vec::with_capacity(bytes.len() * 2);
    for &b in bytes {
        if b == b'\n' {
            crlf.push(b'\r');
        }
        crlf.push(b);
    }
    let (rc, _) = analyze_bytes("run.jsonl", &crlf);
    assert_eq!(normal(&rc), normal(r), "CRLF");
    let (rz, _) = analyze_bytes("run.jsonl.zst", &zstd::encode_all(bytes, 1).unwrap());
    assert_eq!(normal(&rz), normal(r), "zstd");
}

fn check_recording(ops: &[Op], final_newline: bool) {
    let ops = &resolve(ops);
    let bytes = render(ops, final_newline);
    let (r, records) = analyze_bytes("run.jsonl", &bytes);
    assert_counts(&r, records, &bytes);
    assert_eq!(r.inputs[0].format, "dsh-rpc");
    assert_same_as_crlf_and_zstd(&r, &bytes);
    let m = RpcModel::run(ops);

    // Root turns (2.1): the same turns, the same counts, the same final responses.
    let got: Vec<WaitM> = r
        .waits
        .iter()
        .map(|w| WaitM {
            root: w.root.clone(),
            start: place_line(&w.start).unwrap(),
            end: place_line(&w.end),
            outcome: w.outcome,
            reply: w.reply.clone(),
            finish_reason: w.finish_reason.clone(),
            notifications: w.notifications.unwrap(),
            events: w.events.unwrap(),
            naive: w.naive.notifications.unwrap(),
        })
        .collect();
    assert_eq!(got, m.waits, "root turns");
    for w in &r.waits {
        assert_eq!(w.end.is_none(), w.outcome == WaitOutcome::Open);
    }

    // Sessions: the same set, each with its last parent, its place in the tree and its runs.
    let mut got_ids: Vec<&str> = r.sessions.iter().map(|s| s.id.as_str()).collect();
    let mut want_ids: Vec<&str> = m.sessions.iter().map(|&s| IDS[s]).collect();
    got_ids.sort();
    want_ids.sort();
    assert_eq!(got_ids, want_ids, "sessions");
    for s in &r.sessions {
        let i = IDS.iter().position(|x| *x == s.id).unwrap();
        assert_eq!(s.parent.as_deref(), m.last_parent.get(&i).map(|&p| IDS[p]), "parent of {}", s.id);
        let (root, depth) = m.placement(i);
        assert_eq!((s.root.as_deref(), s.depth), (root.map(|r| IDS[r]), depth), "placement of {}", s.id);
        // The ancestry walk ends on a cycle, and a cycle's members have neither root nor depth.
        assert_eq!(s.root.is_none(), s.depth.is_none());
        let runs: Vec<RunM> = s
            .runs
            .iter()
            .map(|run| RunM {
                parent: run.parent.clone().unwrap(),
                start: place_line(&run.start).unwrap(),
                end: place_line(&run.end),
                outcome: run.outcome,
            })
            .collect();
        assert_eq!(runs, m.runs.get(&i).cloned().unwrap_or_default(), "runs of {}", s.id);
    }
    // Every run is settled at most once, by a `subagent.finished`, and no finish settles two runs.
    let mut ends = HashSet::new();
    for s in &r.sessions {
        for run in &s.runs {
            assert_eq!(run.end.is_none(), run.outcome == Outcome::Open);
            if let Some(end) = &run.end {
                assert!(m.finished_lines.contains(&end.line), "run of {} ends at a non-finish line {}", s.id, end.line);
                assert!(ends.insert(end.line), "line {} settles two runs", end.line);
            }
        }
    }

    // Routing findings.
    let routing = [
        "invalid-start-edge",
        "child-id-reused",
        "stale-run-settled",
        "finished-without-start",
        "ancestry-cycle",
        "event-before-start-edge",
    ];
    let mut got: Vec<(String, u64)> = r
        .diagnostics
        .iter()
        .filter(|d| routing.contains(&d.code.as_str()))
        .map(|d| (d.code.clone(), d.at.line))
        .collect();
    let mut want = m.findings.clone();
    got.sort();
    want.sort();
    assert_eq!(got, want, "routing findings");

    // Boundaries (2.3): turns and findings after recovery.
    let multi_run = |s: &str| m.runs.get(&IDS.iter().position(|x| *x == s).unwrap()).is_some_and(|r| r.len() > 1);
    let want_turns: Vec<TurnM> =
        m.turns.iter().map(|t| TurnM { run: t.run.filter(|_| multi_run(&t.session)), ..t.clone() }).collect();
    let got_turns: Vec<TurnM> = r
        .turns
        .iter()
        .map(|t| TurnM {
            session: t.session.clone(),
            run: t.run,
            turn: t.turn.as_i64().unwrap(),
            start: place_line(&t.start),
            end: place_line(&t.end),
            reason: t.reason.clone(),
            steps: t.steps,
        })
        .collect();
    assert_eq!(got_turns, want_turns, "turns");
    let mut got: Vec<FindingM> = r
        .diagnostics
        .iter()
        .filter(|d| BOUNDARY_CODES.contains(&d.code.as_str()))
        .map(|d| (d.code.clone(), d.at.line, d.session.clone().unwrap()))
        .collect();
    let mut want = m.boundary.clone();
    got.sort();
    want.sort();
    assert_eq!(got, want, "boundary findings");
}

// ---------------------------------------------------------------------------------------------
// Copilot: generator and the 2.2 model
// ---------------------------------------------------------------------------------------------

const AGENTS: &[&str] = &["x", "y", "z"];

#[derive(Debug, Clone, Copy, PartialEq)]
enum Stamp {
    Root,
    /// `"agentId": ""`: also the root's.
    Empty,
    Agent(usize),
    /// No `agentId`, as Copilot CLIs before 1.0.32 write a sub-agent's events: `toolCallId`
    /// `t{n}` on a lifecycle event, `parentToolCallId` `t{n}` on any other.
    Call(u8),
}

#[derive(Debug, Clone)]
enum CEv {
    User,
    Assistant(&'static str),
    Idle,
    Error,
    Started { tool_call: Option<u8>, parent: Option<usize> },
    Configured,
    Completed { cancelled: bool },
    Failed,
    TurnStart(u8),
    TurnEnd(u8),
    ToolStart(u8),
    Other,
    Shutdown,
    Resume,
}

#[derive(Debug, Clone)]
enum COp {
    Ev(Stamp, CEv),
    Garbage(usize),
    Blank(usize),
}

const LIFECYCLE: &[&str] = &["subagent.started", "subagent.configured", "subagent.completed", "subagent.failed"];

impl CEv {
    fn kind(&self) -> &'static str {
        match self {
            CEv::User => "user.message",
            CEv::Assistant(_) => "assistant.message",
            CEv::Idle => "session.idle",
            CEv::Error => "session.error",
            CEv::Started { .. } => "subagent.started",
            CEv::Configured => "subagent.configured",
            CEv::Completed { .. } => "subagent.completed",
            CEv::Failed => "subagent.failed",
            CEv::TurnStart(_) => "assistant.turn_start",
            CEv::TurnEnd(_) => "assistant.turn_end",
            CEv::ToolStart(_) => "tool.execution_start",
            CEv::Other => "tool.execution_complete",
            CEv::Shutdown => "session.shutdown",
            CEv::Resume => "session.resume",
        }
    }
}

fn stamp() -> impl Strategy<Value = Stamp> {
    prop_oneof![
        6 => Just(Stamp::Root),
        1 => Just(Stamp::Empty),
        5 => (0..AGENTS.len()).prop_map(Stamp::Agent),
        2 => (0u8..3).prop_map(Stamp::Call),
    ]
}

fn cev() -> impl Strategy<Value = CEv> {
    prop_oneof![
        3 => Just(CEv::User),
        4 => prop::sample::select(vec!["", "root says", "child says"]).prop_map(CEv::Assistant),
        3 => Just(CEv::Idle),
        1 => Just(CEv::Error),
        2 => (prop::option::of(0u8..3), prop::option::of(0..AGENTS.len()))
            .prop_map(|(tool_call, parent)| CEv::Started { tool_call, parent }),
        1 => Just(CEv::Configured),
        2 => any::<bool>().prop_map(|cancelled| CEv::Completed { cancelled }),
        1 => Just(CEv::Failed),
        1 => (0u8..3).prop_map(CEv::TurnStart),
        1 => (0u8..3).prop_map(CEv::TurnEnd),
        1 => (0u8..3).prop_map(CEv::ToolStart),
        1 => Just(CEv::Other),
        1 => Just(CEv::Shutdown),
        1 => Just(CEv::Resume),
    ]
}

fn copilot_log() -> impl Strategy<Value = (Vec<COp>, bool)> {
    let op = prop_oneof![
        20 => (stamp(), cev()).prop_map(|(s, e)| COp::Ev(s, e)),
        1 => (0..GARBAGE.len()).prop_map(COp::Garbage),
        1 => (0..BLANK.len()).prop_map(COp::Blank),
    ];
    (prop::collection::vec(op, 0..60), any::<bool>())
}

fn render_copilot(ops: &[COp], rpc: bool) -> Vec<u8> {
    let mut out = Vec::new();
    let start = r#"{"type":"session.start","data":{"sessionId":"R"},"id":"e0","timestamp":"2026-01-01T00:00:00Z","parentId":null}"#;
    let wrap = |env: &str| {
        if rpc {
            format!(r#"{{"jsonrpc":"2.0","method":"session.event","params":{{"sessionId":"R","event":{env}}}}}"#)
        } else {
            env.to_owned()
        }
    };
    out.extend_from_slice(wrap(start).as_bytes());
    out.push(b'\n');
    for (i, op) in ops.iter().enumerate() {
        let line = i + 2;
        match op {
            COp::Ev(stamp, ev) => {
                let agent = match stamp {
                    Stamp::Root | Stamp::Call(_) => String::new(),
                    Stamp::Empty => r#","agentId":"""#.to_owned(),
                    Stamp::Agent(a) => format!(r#","agentId":"{}""#, AGENTS[*a]),
                };
                let lifecycle = LIFECYCLE.contains(&ev.kind());
                let mark = match stamp {
                    Stamp::Call(t) if lifecycle => format!(r#""toolCallId":"t{t}""#),
                    Stamp::Call(t) => format!(r#""parentToolCallId":"t{t}""#),
                    _ => String::new(),
                };
                let data = match ev {
                    CEv::User => r#"{"content":"go"}"#.to_owned(),
                    CEv::Assistant(t) => format!(r#"{{"content":"{t}"}}"#),
                    CEv::Error => r#"{"errorType":"x","message":"boom"}"#.to_owned(),
                    CEv::Started { tool_call, parent } => {
                        let mut d = r#"{"agentName":"n","agentDisplayName":"N""#.to_owned();
                        // A sub-agent marked by its call names no other.
                        if let (Some(t), false) = (tool_call, matches!(stamp, Stamp::Call(_))) {
                            d.push_str(&format!(r#","toolCallId":"t{t}""#));
                        }
                        if let Some(p) = parent {
                            d.push_str(&format!(r#","parentId":"{}""#, AGENTS[*p]));
                        }
                        d + "}"
                    }
                    CEv::Completed { cancelled } => format!(r#"{{"cancelled":{cancelled}}}"#),
                    CEv::Failed => r#"{"error":"e"}"#.to_owned(),
                    CEv::TurnStart(t) | CEv::TurnEnd(t) => format!(r#"{{"turnId":"{t}"}}"#),
                    CEv::ToolStart(t) => format!(r#"{{"toolCallId":"t{t}","toolName":"task"}}"#),
                    _ => "{}".to_owned(),
                };
                let data = match (mark.is_empty(), data.strip_suffix('}')) {
                    (true, _) | (_, None) => data,
                    (false, Some("{")) => format!("{{{mark}}}"),
                    (false, Some(d)) => format!("{d},{mark}}}"),
                };
                let env = format!(
                    r#"{{"type":"{}","data":{data},"id":"e{line}","timestamp":"2026-01-01T00:00:{:02}Z","parentId":"e{}"{agent}}}"#,
                    ev.kind(),
                    line % 60,
                    line - 1
                );
                out.extend_from_slice(wrap(&env).as_bytes());
            }
            COp::Garbage(g) => out.extend_from_slice(GARBAGE[*g]),
            COp::Blank(b) => out.extend_from_slice(BLANK[*b]),
        }
        out.push(b'\n');
    }
    out
}

#[derive(Debug, Clone, PartialEq)]
struct CWaitM {
    start: u64,
    end: Option<u64>,
    outcome: WaitOutcome,
    reply: Option<String>,
    naive_end: Option<u64>,
    naive_outcome: WaitOutcome,
    naive_reply: Option<String>,
}

#[derive(Debug, Default, Clone)]
struct WaiterM {
    done: Option<(u64, WaitOutcome)>,
    reply: Option<(String, u64, bool)>,
    last: u64,
    /// Its runtime shut down (or was resumed): it sees nothing more.
    stopped: bool,
}

impl WaiterM {
    fn see(&mut self, ev: &CEv, line: u64, from_sub: bool) {
        if self.done.is_some() || self.stopped {
            return;
        }
        self.last = line;
        match ev {
            CEv::Assistant(t) => self.reply = Some(((*t).to_owned(), line, from_sub)),
            CEv::Idle => self.done = Some((line, WaitOutcome::Idle)),
            CEv::Error => {
                self.done = Some((line, WaitOutcome::Error));
                self.reply = None;
            }
            _ => {}
        }
    }

    fn settle(&self, has_idle: bool) -> (Option<u64>, WaitOutcome) {
        match self.done {
            Some((line, o)) => (Some(line), o),
            None if has_idle => (None, WaitOutcome::Open),
            None => (Some(self.last), WaitOutcome::Inferred),
        }
    }
}

/// A sub-agent's run: (parent, start line, end line, outcome).
type CRun = (String, Option<u64>, Option<u64>, Outcome);

struct CopilotModel {
    waits: Vec<CWaitM>,
    /// (agent, code, line) for the gate's findings.
    gate: Vec<(String, String, u64)>,
    child_reply_lines: Vec<u64>,
    child_signal_lines: Vec<(String, u64)>,
    /// Which agents are sub-agents in the tree, by id (`x`, or `t0` for one known by its call).
    subs: HashSet<String>,
    /// Lines of each agent's lifecycle ends, and of its starts.
    ends: HashMap<String, HashSet<u64>>,
    starts: HashMap<String, HashSet<u64>>,
    /// Each sub-agent's parent (an agent id, or `R`) and whether the link was inferred.
    parent: HashMap<String, (String, bool)>,
    /// Each sub-agent's runs: (parent, start, end, outcome). A completion settles the agent's
    /// newest open run (SPEC 2.2 does not say which; a Copilot agentId is one spawn).
    runs: HashMap<String, Vec<CRun>>,
}

impl CopilotModel {
    fn run(ops: &[COp]) -> CopilotModel {
        let mut known: HashSet<String> = HashSet::new();
        let mut told: HashSet<(String, &str)> = HashSet::new();
        let mut gate = Vec::new();
        let mut waits: Vec<(u64, WaiterM, WaiterM)> = Vec::new();
        let mut child_signal_lines = Vec::new();
        let mut subs = HashSet::new();
        let mut ends: HashMap<String, HashSet<u64>> = HashMap::new();
        let mut starts: HashMap<String, HashSet<u64>> = HashMap::new();
        let mut parent: HashMap<String, (String, bool)> = HashMap::new();
        let mut runs: HashMap<String, Vec<CRun>> = HashMap::new();
        // A call's issuer, and the sub-agent whose start named it.
        let mut tool_calls: HashMap<u8, (String, Option<String>)> = HashMap::new();
        let has_idle = ops.iter().any(|o| matches!(o, COp::Ev(_, CEv::Idle)));
        let call = |t: u8| format!("t{t}");
        for (i, op) in ops.iter().enumerate() {
            let line = i as u64 + 2;
            let COp::Ev(stamp, ev) = op else { continue };
            let lifecycle = LIFECYCLE.contains(&ev.kind());
            // The `toolCallId` the event's data carries.
            let data_call = match (stamp, ev) {
                (Stamp::Call(t), _) if lifecycle => Some(*t),
                (_, CEv::Started { tool_call, .. }) => *tool_call,
                _ => None,
            };
            let stamped = match stamp {
                Stamp::Agent(a) => Some(AGENTS[*a].to_owned()),
                _ => None,
            };
            if let (true, Some(a)) = (lifecycle, &stamped) {
                known.insert(a.clone());
            }
            let sub = match (stamped, stamp) {
                (Some(a), _) if known.contains(&a) => Some(a),
                (Some(a), _) if known.is_empty() => {
                    if told.insert((a.clone(), "stamped-event-before-any-subagent")) {
                        gate.push((a.clone(), "stamped-event-before-any-subagent".to_owned(), line));
                    }
                    Some(a)
                }
                (Some(a), _) => {
                    if told.insert((a.clone(), "unannounced-agent-id")) {
                        gate.push((a, "unannounced-agent-id".to_owned(), line));
                    }
                    None
                }
                // Unstamped lifecycle events name their sub-agent by its call, and register it.
                (None, _) if lifecycle => data_call.map(|t| {
                    known.insert(call(t));
                    call(t)
                }),
                (None, Stamp::Call(t)) => {
                    let a = match tool_calls.get(t) {
                        Some((_, Some(sub))) => Some(sub.clone()),
                        _ => Some(call(*t)).filter(|c| known.contains(c) || known.is_empty()),
                    };
                    if let Some(a) = &a {
                        if told.insert((a.clone(), "unstamped-subagent-event")) {
                            gate.push((a.clone(), "unstamped-subagent-event".to_owned(), line));
                        }
                    }
                    a
                }
                (None, _) => None,
            };
            if let Some(a) = &sub {
                subs.insert(a.clone());
                // An agent judged a sub-agent's is a node under the root, inferred.
                parent.entry(a.clone()).or_insert(("R".to_owned(), true));
                match ev {
                    CEv::Started { parent: named, .. } => {
                        starts.entry(a.clone()).or_default().insert(line);
                        let issuer = data_call.and_then(|t| tool_calls.get_mut(&t)).map(|c| {
                            c.1 = Some(a.clone());
                            c.0.clone()
                        });
                        let p = match (named, issuer) {
                            (Some(p), _) => (AGENTS[*p].to_owned(), false),
                            (None, Some(issuer)) => (issuer, false),
                            (None, None) => ("R".to_owned(), true),
                        };
                        runs.entry(a.clone()).or_default().push((p.0.clone(), Some(line), None, Outcome::Open));
                        parent.insert(a.clone(), p);
                    }
                    CEv::Completed { .. } | CEv::Failed => {
                        ends.entry(a.clone()).or_default().insert(line);
                        let outcome = match ev {
                            CEv::Failed => Outcome::Error,
                            CEv::Completed { cancelled: true } => Outcome::Cancelled,
                            _ => Outcome::Ok,
                        };
                        let list = runs.entry(a.clone()).or_default();
                        match list.iter_mut().rev().find(|r| r.3 == Outcome::Open) {
                            Some(run) => {
                                run.2 = Some(line);
                                run.3 = outcome;
                            }
                            None => list.push((parent[a].0.clone(), None, Some(line), outcome)),
                        }
                    }
                    _ => {}
                }
            }
            if let CEv::ToolStart(t) = ev {
                tool_calls.insert(*t, (sub.clone().unwrap_or_else(|| "R".to_owned()), None));
            }
            if matches!(ev, CEv::User) && sub.is_none() {
                let w = WaiterM { last: line, ..WaiterM::default() };
                waits.push((line, w.clone(), w));
                continue;
            }
            // A root shutdown or resume ends the runtime that was waiting (2.2).
            if matches!(ev, CEv::Shutdown | CEv::Resume) && sub.is_none() {
                if let Some((_, correct, naive)) = waits.last_mut() {
                    correct.stopped = true;
                    naive.stopped = true;
                }
            }
            if let Some((_, correct, naive)) = waits.last_mut() {
                if sub.is_some() {
                    if correct.done.is_none() {
                        match ev {
                            CEv::Idle => child_signal_lines.push(("child-idle-would-resolve-wait".to_owned(), line)),
                            CEv::Error => child_signal_lines.push(("child-error-would-fail-wait".to_owned(), line)),
                            _ => {}
                        }
                    }
                } else {
                    correct.see(ev, line, false);
                }
                naive.see(ev, line, sub.is_some());
            }
        }
        let mut child_reply_lines = Vec::new();
        let waits = waits
            .into_iter()
            .map(|(start, correct, naive)| {
                let (end, outcome) = correct.settle(has_idle);
                let (naive_end, naive_outcome) = naive.settle(has_idle);
                if matches!(naive_outcome, WaitOutcome::Idle | WaitOutcome::Inferred) {
                    if let Some((_, at, true)) = &naive.reply {
                        child_reply_lines.push(*at);
                    }
                }
                CWaitM {
                    start,
                    end,
                    outcome,
                    reply: correct.reply.map(|r| r.0),
                    naive_end,
                    naive_outcome,
                    naive_reply: naive.reply.map(|r| r.0),
                }
            })
            .collect();
        CopilotModel { waits, gate, child_reply_lines, child_signal_lines, subs, ends, starts, parent, runs }
    }
}

fn check_copilot(ops: &[COp], rpc: bool) {
    let bytes = render_copilot(ops, rpc);
    let name = if rpc { "rec.jsonl" } else { "R/events.jsonl" };
    let (r, records) = analyze_bytes(name, &bytes);
    assert_counts(&r, records, &bytes);
    assert_eq!(r.inputs[0].format, if rpc { "copilot-rpc" } else { "copilot-events" });
    assert_same_as_crlf_and_zstd(&r, &bytes);
    let m = CopilotModel::run(ops);

    // Both waiters (2.2).
    let got: Vec<CWaitM> = r
        .waits
        .iter()
        .map(|w| {
            assert_eq!(w.root, "R");
            CWaitM {
                start: place_line(&w.start).unwrap(),
                end: place_line(&w.end),
                outcome: w.outcome,
                reply: w.reply.clone(),
                naive_end: w.naive.end.clone().unwrap().map(|p| p.line),
                naive_outcome: w.naive.outcome.unwrap(),
                naive_reply: w.naive.reply.clone().unwrap(),
            }
        })
        .collect();
    assert_eq!(got, m.waits, "waits");

    // The gate's findings, once per id, at the first such event.
    let mut got: Vec<(String, String, u64)> = r
        .diagnostics
        .iter()
        .filter(|d| {
            ["stamped-event-before-any-subagent", "unannounced-agent-id", "unstamped-subagent-event"]
                .contains(&d.code.as_str())
        })
        .map(|d| (d.session.clone().unwrap(), d.code.clone(), d.at.line))
        .collect();
    let mut want = m.gate.clone();
    got.sort();
    want.sort();
    assert_eq!(got, want, "gate findings");
    let mut got: Vec<u64> =
        r.diagnostics.iter().filter(|d| d.code == "child-reply-would-replace-root-reply").map(|d| d.at.line).collect();
    let mut want = m.child_reply_lines.clone();
    got.sort();
    want.sort();
    assert_eq!(got, want, "child-reply-would-replace-root-reply");
    let mut got: Vec<(String, u64)> = r
        .diagnostics
        .iter()
        .filter(|d| d.code == "child-idle-would-resolve-wait" || d.code == "child-error-would-fail-wait")
        .map(|d| (d.code.clone(), d.at.line))
        .collect();
    let mut want = m.child_signal_lines.clone();
    got.sort();
    want.sort();
    assert_eq!(got, want, "child signals");

    // The tree: the root, and exactly the agents judged sub-agents; runs settled once each.
    let mut ids: Vec<&str> = r.sessions.iter().map(|s| s.id.as_str()).collect();
    ids.sort();
    let mut want: Vec<&str> = m.subs.iter().map(String::as_str).chain(["R"]).collect();
    want.sort();
    assert_eq!(ids, want, "agents");
    let mut ends = HashSet::new();
    for s in &r.sessions {
        assert_eq!(s.root.is_none(), s.depth.is_none());
        if s.id == "R" {
            assert!(s.runs.is_empty() && s.parent.is_none());
            continue;
        }
        let a = &s.id;
        for run in &s.runs {
            assert_eq!(run.end.is_none(), run.outcome == Outcome::Open);
            if let Some(start) = &run.start {
                assert!(
                    m.starts.get(a).is_some_and(|l| l.contains(&start.line)),
                    "{} run starts at {}",
                    s.id,
                    start.line
                );
            }
            if let Some(end) = &run.end {
                assert!(m.ends.get(a).is_some_and(|l| l.contains(&end.line)), "{} run ends at {}", s.id, end.line);
                assert!(ends.insert(end.line), "line {} settles two runs", end.line);
            }
        }
        // The parent (2.2: `parentId`, else the `task` call's issuer, else the root, inferred), and
        // the runs.
        let (p, inferred) = &m.parent[a];
        assert_eq!((s.parent.as_deref(), s.inferred_parent), (Some(p.as_str()), *inferred), "parent of {}", s.id);
        let runs: Vec<CRun> = s
            .runs
            .iter()
            .map(|r| (r.parent.clone().unwrap(), place_line(&r.start), place_line(&r.end), r.outcome))
            .collect();
        assert_eq!(&runs, m.runs.get(a).unwrap_or(&Vec::new()), "runs of {}", s.id);
        let n_starts = m.starts.get(a).map_or(0, |l| l.len());
        assert_eq!(s.runs.iter().filter(|r| r.start.is_some()).count(), n_starts, "runs of {}", s.id);
        let n_ends = m.ends.get(a).map_or(0, |l| l.len());
        assert_eq!(s.runs.iter().filter(|r| r.end.is_some()).count(), n_ends, "settled runs of {}", s.id);
    }
}

// ---------------------------------------------------------------------------------------------
// dsh-session folders: headers, the session tree and child runs (SPEC 2.3), read aloud
// ---------------------------------------------------------------------------------------------

const SIDS: &[&str] = &["r", "c1", "c2", "c3"];

#[derive(Debug, Clone)]
struct Header {
    id: usize,
    parent: Option<usize>,
    depth: Option<i64>,
}

#[derive(Debug, Clone)]
struct SessionFile {
    /// `None`: a log without a header, named by its file stem.
    header: Option<Header>,
    events: Vec<(Ev, Seq)>,
    /// A garbage line after this many events, if any.
    garbage: Option<(usize, usize)>,
}

fn session_file(id: usize) -> impl Strategy<Value = SessionFile> {
    let header = (prop::option::of(0..SIDS.len()), prop::option::of(0i64..3)).prop_map(move |(parent, depth)| Header {
        id,
        parent,
        depth,
    });
    (
        prop::option::weighted(0.9, header),
        prop::collection::vec((ev(), seq()), 1..25),
        prop::option::of((0usize..25, 0..GARBAGE.len())),
    )
        .prop_map(|(header, events, garbage)| SessionFile { header, events, garbage })
}

fn session_folder() -> impl Strategy<Value = Vec<SessionFile>> {
    // Ids may repeat across files: each file is still its own run (SPEC 2.3).
    prop::collection::vec(0..SIDS.len(), 1..5)
        .prop_flat_map(|ids| ids.into_iter().map(session_file).collect::<Vec<_>>())
        .prop_map(|files| {
            // Each file's events are its one session's: resolve `Ev::Auto` per file.
            files
                .into_iter()
                .map(|mut f| {
                    let ops: Vec<Op> = f
                        .events
                        .iter()
                        .map(|(ev, seq)| Op::Event { sid: 0, ev: ev.clone(), seq: *seq, jsonrpc: false })
                        .collect();
                    f.events = resolve(&ops)
                        .into_iter()
                        .map(|op| match op {
                            Op::Event { ev, seq, .. } => (ev, seq),
                            _ => unreachable!(),
                        })
                        .collect();
                    f
                })
                .collect()
        })
}

fn file_name(i: usize) -> String {
    format!("f{i}.jsonl")
}

/// The file's lines: the header (if any), then events; the garbage line, if any, after an event.
fn render_session_file(f: &SessionFile) -> (Vec<u8>, Vec<Option<usize>>) {
    let mut out = Vec::new();
    // For each line, the index of the event on it (None for the header and garbage).
    let mut line_event = Vec::new();
    if let Some(h) = &f.header {
        let mut line = format!(r#"{{"type":"session","version":0,"id":"{}""#, SIDS[h.id]);
        if let Some(p) = h.parent {
            line.push_str(&format!(r#","parentSession":"{}","origin":"subagent""#, SIDS[p]));
        }
        if let Some(d) = h.depth {
            line.push_str(&format!(r#","delegationDepth":{d}"#));
        }
        line.push('}');
        out.extend_from_slice(line.as_bytes());
        out.push(b'\n');
        line_event.push(None);
    }
    for (i, (ev, seq)) in f.events.iter().enumerate() {
        let number = line_event.len() as u64 + 1;
        out.extend_from_slice(render_ev(ev, *seq, number).as_bytes());
        out.push(b'\n');
        line_event.push(Some(i));
        if let Some((after, g)) = f.garbage {
            if after == i && i > 0 {
                out.extend_from_slice(GARBAGE[g]);
                out.push(b'\n');
                line_event.push(None);
            }
        }
    }
    (out, line_event)
}

/// (code, file, line)
type PlacedFinding = (String, String, u64);

/// A file and a line.
type Place = (String, u64);

#[derive(Debug, Clone, PartialEq)]
struct FolderTurn {
    session: String,
    turn: i64,
    start: Option<(String, u64)>,
    end: Option<(String, u64)>,
    reason: Option<String>,
    steps: u32,
}

#[derive(Debug, Clone, PartialEq)]
struct FolderRun {
    parent: String,
    start: (String, u64),
    end: Option<(String, u64)>,
    /// `None` where SPEC 2.3 does not say: the last turn ended without a `reason`.
    outcome: Option<Outcome>,
}

fn check_session_folder(files: &[SessionFile]) {
    let dir = tempfile::tempdir().unwrap();
    let mut rendered = Vec::new();
    for (i, f) in files.iter().enumerate() {
        let (bytes, line_event) = render_session_file(f);
        std::fs::write(dir.path().join(file_name(i)), &bytes).unwrap();
        rendered.push((bytes, line_event));
    }
    let a = arbor_core::analyze(&[dir.path().to_path_buf()], &mut ());
    let r = a.report();
    assert_eq!(r.inputs.len(), files.len());
    for (input, (bytes, _)) in r.inputs.iter().zip(&rendered) {
        assert_eq!(input.format, "dsh-session", "{}", input.file);
        assert_eq!(input.records + input.bad_lines, non_blank_lines(bytes), "{}: lines lost", input.file);
    }
    assert_eq!(a.records().len() as u64, r.inputs.iter().map(|i| i.records).sum::<u64>());

    // Per file: the session, its checks, its turns, and its run's end.
    let mut sessions: Vec<String> = Vec::new();
    let mut turns: Vec<TurnM> = Vec::new();
    let mut turn_file: Vec<String> = Vec::new();
    let mut boundary: Vec<(String, String, u64, String)> = Vec::new();
    let mut run_end: Vec<(Option<Place>, Option<Outcome>)> = Vec::new();
    for (i, (f, (_, line_event))) in files.iter().zip(&rendered).enumerate() {
        let name = file_name(i);
        let session = f.header.as_ref().map_or(format!("f{i}"), |h| SIDS[h.id].to_owned());
        if !sessions.contains(&session) {
            sessions.push(session.clone());
        }
        let mut checker = CheckerM::new(&session, None);
        let mut found = Vec::new();
        let first_turn = turns.len();
        for (n, ev) in line_event.iter().enumerate() {
            let Some(e) = ev else { continue };
            let line = n as u64 + 1;
            let (ev, seq) = &f.events[*e];
            let seq = match seq {
                Seq::None => None,
                Seq::Rising => Some(line as i64 * 10),
                Seq::Fixed(k) => Some(*k),
            };
            checker.event(ev, seq, line, &mut turns, &mut found);
        }
        checker.finish(&turns, &mut found);
        boundary.extend(found.into_iter().map(|(code, line, s)| (code, name.clone(), line, s)));
        turn_file.extend(std::iter::repeat_n(name.clone(), turns.len() - first_turn));
        let last = turns[first_turn..].last();
        run_end.push(match (checker.turn, last) {
            (Some(_), _) | (None, None) => (None, Some(Outcome::Open)),
            (None, Some(t)) => (
                t.end.map(|l| (name.clone(), l)),
                match t.reason.as_deref() {
                    Some("completed" | "max-tokens") => Some(Outcome::Ok),
                    Some("aborted" | "interrupted") => Some(Outcome::Cancelled),
                    Some(_) => Some(Outcome::Error),
                    None => None,
                },
            ),
        });
    }

    // Headers in file order: cycles, missing parents, runs.
    let mut parent_of: HashMap<String, String> = HashMap::new();
    let mut tree: Vec<PlacedFinding> = Vec::new();
    let mut runs: HashMap<String, Vec<FolderRun>> = HashMap::new();
    let mut last_parent: HashMap<String, String> = HashMap::new();
    let mut header_depth: HashMap<String, (i64, String)> = HashMap::new();
    for (i, f) in files.iter().enumerate() {
        let Some(h) = &f.header else { continue };
        let (child, name) = (SIDS[h.id].to_owned(), file_name(i));
        if let Some(d) = h.depth {
            header_depth.insert(child.clone(), (d, name.clone()));
        }
        let Some(p) = h.parent else { continue };
        let parent = SIDS[p].to_owned();
        let cycle = {
            let mut cur = parent.clone();
            let mut seen = HashSet::new();
            loop {
                if cur == child {
                    break true;
                }
                if !seen.insert(cur.clone()) {
                    break false;
                }
                match parent_of.get(&cur) {
                    Some(q) => cur = q.clone(),
                    None => break false,
                }
            }
        };
        if cycle {
            tree.push(("ancestry-cycle".into(), name.clone(), 1));
        } else if !sessions.contains(&parent) {
            tree.push(("missing-parent-session".into(), name.clone(), 1));
        }
        if child != parent {
            parent_of.insert(child.clone(), parent.clone());
        }
        last_parent.insert(child.clone(), parent.clone());
        let (end, outcome) = run_end[i].clone();
        runs.entry(child).or_default().push(FolderRun { parent, start: (name, 1), end, outcome });
    }
    let placement = |s: &str| -> (Option<String>, Option<u32>) {
        let (mut cur, mut depth, mut seen) = (s.to_owned(), 0, HashSet::new());
        loop {
            if !seen.insert(cur.clone()) {
                return (None, None);
            }
            match last_parent.get(&cur) {
                Some(p) if !sessions.contains(p) => return (None, None),
                Some(p) => {
                    cur = p.clone();
                    depth += 1;
                }
                None => return (Some(cur), Some(depth)),
            }
        }
    };
    for s in &sessions {
        if let (Some((d, file)), (_, Some(depth))) = (header_depth.get(s), placement(s)) {
            if *d != depth as i64 {
                tree.push(("delegation-depth-mismatch".into(), file.clone(), 1));
            }
        }
    }

    // Compare: sessions, their tree and runs.
    let mut got: Vec<&str> = r.sessions.iter().map(|s| s.id.as_str()).collect();
    let mut want: Vec<&str> = sessions.iter().map(String::as_str).collect();
    got.sort();
    want.sort();
    assert_eq!(got, want, "sessions");
    for s in &r.sessions {
        assert_eq!(s.parent.as_ref(), last_parent.get(&s.id), "parent of {}", s.id);
        assert_eq!((s.root.clone(), s.depth), placement(&s.id), "placement of {}", s.id);
        let got: Vec<FolderRun> = s
            .runs
            .iter()
            .map(|run| FolderRun {
                parent: run.parent.clone().unwrap(),
                start: run.start.as_ref().map(|p| (p.file.clone(), p.line)).unwrap(),
                end: run.end.as_ref().map(|p| (p.file.clone(), p.line)),
                outcome: Some(run.outcome),
            })
            .collect();
        let want = runs.get(&s.id).cloned().unwrap_or_default();
        assert_eq!(got.len(), want.len(), "runs of {}", s.id);
        for (g, w) in got.iter().zip(&want) {
            assert_eq!((&g.parent, &g.start, &g.end), (&w.parent, &w.start, &w.end), "run of {}", s.id);
            if w.outcome.is_some() {
                assert_eq!(g.outcome, w.outcome, "run outcome of {}", s.id);
            }
        }
    }
    let mut got: Vec<PlacedFinding> = r
        .diagnostics
        .iter()
        .filter(|d| {
            ["ancestry-cycle", "missing-parent-session", "delegation-depth-mismatch"].contains(&d.code.as_str())
        })
        .map(|d| (d.code.clone(), d.at.file.clone(), d.at.line))
        .collect();
    got.sort();
    tree.sort();
    assert_eq!(got, tree, "tree findings");

    // Boundaries, per file.
    let mut got: Vec<(String, String, u64, String)> = r
        .diagnostics
        .iter()
        .filter(|d| BOUNDARY_CODES.contains(&d.code.as_str()))
        .map(|d| (d.code.clone(), d.at.file.clone(), d.at.line, d.session.clone().unwrap()))
        .collect();
    got.sort();
    boundary.sort();
    assert_eq!(got, boundary, "boundary findings");
    let want: Vec<FolderTurn> = turns
        .iter()
        .zip(&turn_file)
        .map(|(t, file)| FolderTurn {
            session: t.session.clone(),
            turn: t.turn,
            start: t.start.map(|l| (file.clone(), l)),
            end: t.end.map(|l| (file.clone(), l)),
            reason: t.reason.clone(),
            steps: t.steps,
        })
        .collect();
    let got: Vec<FolderTurn> = r
        .turns
        .iter()
        .map(|t| FolderTurn {
            session: t.session.clone(),
            turn: t.turn.as_i64().unwrap(),
            start: t.start.as_ref().map(|p| (p.file.clone(), p.line)),
            end: t.end.as_ref().map(|p| (p.file.clone(), p.line)),
            reason: t.reason.clone(),
            steps: t.steps,
        })
        .collect();
    assert_eq!(got, want, "turns");
}

// ---------------------------------------------------------------------------------------------
// Copilot timestamps: `time::rfc3339_ms` against a day count done the long way
// ---------------------------------------------------------------------------------------------

fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if is_leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days from 1970-01-01 to `y-m-d`, counted year by year and month by month.
fn days_since_epoch(y: i64, m: i64, d: i64) -> i64 {
    let mut days = 0;
    if y >= 1970 {
        for yy in 1970..y {
            days += if is_leap(yy) { 366 } else { 365 };
        }
    } else {
        for yy in y..1970 {
            days -= if is_leap(yy) { 366 } else { 365 };
        }
    }
    for mm in 1..m {
        days += days_in_month(y, mm);
    }
    days + d - 1
}

/// A valid RFC 3339 timestamp and its epoch milliseconds, the long way.
fn timestamp() -> impl Strategy<Value = (String, f64)> {
    (
        0i64..10_000,
        1i64..=12,
        0i64..31,
        0i64..24,
        0i64..60,
        0i64..=60,
        prop::option::of(0u32..1000),
        prop::option::of((any::<bool>(), 0i64..24, 0i64..60)),
        any::<bool>(),
    )
        .prop_map(|(y, mo, d, h, mi, se, frac, offset, space)| {
            let d = 1 + d % days_in_month(y, mo);
            let mut text = format!("{y:04}-{mo:02}-{d:02}{}{h:02}:{mi:02}:{se:02}", if space { ' ' } else { 'T' });
            let mut ms = (days_since_epoch(y, mo, d) * 86_400 + h * 3600 + mi * 60 + se) as f64 * 1000.0;
            if let Some(f) = frac {
                text.push_str(&format!(".{f:03}"));
                ms += f as f64;
            }
            match offset {
                None => text.push('Z'),
                Some((plus, oh, om)) => {
                    text.push_str(&format!("{}{oh:02}:{om:02}", if plus { '+' } else { '-' }));
                    let off = (oh * 3600 + om * 60) as f64 * 1000.0;
                    ms += if plus { -off } else { off };
                }
            }
            (text, ms)
        })
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn dsh_rpc_recordings_match_the_spec_model((ops, nl) in recording()) {
        check_recording(&ops, nl);
    }

    #[test]
    fn copilot_events_match_the_spec_model((ops, rpc) in copilot_log()) {
        check_copilot(&ops, rpc);
    }

    #[test]
    fn dsh_session_folders_match_the_spec_model(files in session_folder()) {
        check_session_folder(&files);
    }

    #[test]
    fn timestamps_become_the_epoch_milliseconds_a_day_count_gives((text, ms) in timestamp()) {
        let got = arbor_core::text::time::rfc3339_ms(&text);
        // Within a tenth of a millisecond; exactness is `millisecond_timestamps_are_exact` below.
        prop_assert!(got.is_some_and(|g| (g - ms).abs() <= 0.1), "{text}: got {got:?}, want {ms}");
    }

    /// The router reads timestamps through `time::Rfc3339`, which remembers the last second:
    /// each must read as it reads alone, whether it shares the second before it (with another
    /// fraction, offset or junk after it) or not.
    #[test]
    fn remembered_seconds_read_as_each_timestamp_alone(
        stamps in prop::collection::vec((timestamp(), ".{0,8}", 0u32..1000), 1..30)
    ) {
        let mut memo = arbor_core::text::time::Rfc3339::default();
        for ((text, _), junk, ms) in stamps {
            let second = text.get(..19).unwrap_or(&text).to_owned();
            for t in [text.clone(), format!("{second}.{ms:03}Z"), format!("{second}{junk}"), junk.clone(), text] {
                prop_assert_eq!(memo.ms(&t), arbor_core::text::time::rfc3339_ms(&t), "{}", t);
            }
        }
    }

    #[test]
    fn any_text_is_a_timestamp_or_none(text in ".{0,40}", cut in 0usize..40) {
        let _ = arbor_core::text::time::rfc3339_ms(&text);
        // Cut a valid timestamp anywhere (on a character boundary): no panic.
        let t = "2026-10-01T12:00:05.250+02:00";
        let _ = arbor_core::text::time::rfc3339_ms(&t[..cut.min(t.len())]);
    }
}

/// The minimal input the property once failed on: `b` appears only as the `parentSessionId` of a
/// finish, which made it a session with a root turn of its own.
#[test]
fn a_finish_names_no_new_session() {
    let log = concat!(
        r#"{"jsonrpc":"2.0","method":"session.status","params":{"sessionId":"a","status":"running"}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","method":"subagent.finished","params":{"provider":"p","agentId":"g","parentSessionId":"b","childSessionId":"a","status":"error","stopReason":"end_turn"}}"#,
        "\n",
    );
    let (r, _) = analyze_bytes("run.jsonl", log.as_bytes());
    let ids: Vec<&str> = r.sessions.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, ["a"], "`b` is not a session (SPEC 2.1)");
    let roots: Vec<&str> = r.waits.iter().map(|w| w.root.as_str()).collect();
    assert_eq!(roots, ["a"], "no root turn for `b`");
    let codes: Vec<&str> = r.diagnostics.iter().map(|d| d.code.as_str()).collect();
    assert_eq!(codes, ["finished-without-start"]);
}

/// The minimal input the property once failed on: an agent whose only event is its completion
/// hangs under the root by inference, and the report must say so.
#[test]
fn a_completion_without_start_keeps_the_inferred_parent() {
    let log = concat!(
        r#"{"type":"session.start","data":{"sessionId":"R"},"id":"e0","timestamp":"2026-01-01T00:00:00Z","parentId":null}"#,
        "\n",
        r#"{"type":"subagent.completed","data":{},"id":"e1","timestamp":"2026-01-01T00:00:01Z","parentId":"e0","agentId":"x"}"#,
        "\n",
    );
    let (r, _) = analyze_bytes("R/events.jsonl", log.as_bytes());
    let x = r.sessions.iter().find(|s| s.id == "x").unwrap();
    assert_eq!(x.parent.as_deref(), Some("R"));
    assert!(x.inferred_parent, "no start names x's parent: the link to the root is inferred");
    assert_eq!(x.runs.len(), 1);
    assert!(x.runs[0].start.is_none());
}

/// A timestamp with whole milliseconds is a whole number of epoch milliseconds. The engine
/// computes `(secs as f64 + fraction) * 1000.0`, which rounds once seconds pass 2^31 (2038):
/// the property found `2038-01-19T03:15:00.055Z` -> 2147483700054.9998. Scaling the seconds and
/// the fraction's digits separately (`secs * 1000 + ms`) is exact.
#[test]
fn millisecond_timestamps_are_exact() {
    for (text, ms) in [
        ("2038-01-19T03:15:00.055Z", 2_147_483_700_055.0),
        ("2026-09-12T00:00:05.143Z", 1_789_171_205_143.0),
        ("6325-04-09T03:00:00.342Z", 137_438_996_400_342.0),
    ] {
        assert_eq!(arbor_core::text::time::rfc3339_ms(text), Some(ms), "{text}");
    }
}
