//! One session file's state machine: the producer's replay of the file (a message rewritten
//! under its id replaces it in place, `$rewindTo` cuts the history, `$set.messages` replaces
//! it), then, at the file's end, the session's turns, replies and tokens from the history as it
//! stands, and the facts `settle` links across files.

use crate::ctx::{Ctx, Kind};
use crate::finding::{Code, Loc};
use crate::formats::Machine;
use crate::intern::{HashMap, Sym};
use crate::report::Usage;
use crate::text::time::Rfc3339;
use crate::turns::{TurnId, TurnRec};

use super::lines::*;
use super::links::{Call, Facts, Files};
use super::reply;

/// What a message is, for turns and the transcript.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Role {
    /// A `user` message that is a prompt: it starts a turn.
    Prompt,
    /// A `user` message made only of `functionResponse` parts.
    ToolAnswer,
    /// A `user` message that is only the session's context (`lines::is_session_context`): the
    /// environment the CLI sets up, no turn.
    Context,
    /// A `gemini` message: one model call.
    Reply,
    /// `info`, `warning`, `error`.
    Notice,
}

impl Role {
    fn of(line: &Line) -> Role {
        match line.kind_of.as_str() {
            Some("user") if line.content.only_function_responses() => Role::ToolAnswer,
            Some("user") if line.content.only_context() => Role::Context,
            Some("user") => Role::Prompt,
            Some("gemini") => Role::Reply,
            _ => Role::Notice,
        }
    }

    fn kind(self) -> Kind {
        match self {
            Role::Prompt => Kind::UserMessage,
            Role::ToolAnswer => Kind::ToolResult,
            Role::Reply => Kind::AssistantMessage,
            Role::Notice | Role::Context => Kind::Notice,
        }
    }
}

/// A message of the history, in its last form.
#[derive(Debug, Clone)]
pub(super) struct Msg {
    id: Box<str>,
    record: u32,
    role: Role,
    text: bool,
    error: bool,
    tokens: Option<Usage>,
    model: Option<Box<str>>,
    calls: Vec<Call>,
    /// A `complete_task` call is among its calls: the sub-agent ends with what it submitted.
    ends: bool,
    /// What it replies, as a loose hash (`reply`): what its `complete_task` submitted, else its
    /// text.
    said: Option<u64>,
}

/// The state of one session file.
#[derive(Debug, Clone)]
pub(super) struct SessionFile {
    stem: String,
    /// The folder the file is in, when it is a sub-agent folder (`chats/<root session id>/`).
    folder: Option<String>,
    session: Option<Sym>,
    subagent: bool,
    first: Option<(Loc, Option<f64>)>,
    last: Option<(Loc, Option<f64>)>,
    messages: Vec<Msg>,
    index: HashMap<Box<str>, usize>,
    /// Tokens of model calls the history no longer shows (rewound or replaced): billed all the same.
    billed: Vec<(Usage, Option<Box<str>>)>,
    /// Calls of messages that left the history: the sub-agents they ran ran all the same.
    gone_calls: Vec<Call>,
    rewritten: (u64, Option<Loc>),
    rewound: (u64, Option<Loc>),
    clock: Rfc3339,
}

impl Machine for SessionFile {
    type Shape = GeminiShape;

    fn line(&mut self, cx: &mut Ctx, line: &Line, at: Loc, offset: u64) {
        SessionFile::line(self, cx, line, at, offset)
    }

    fn finish(&mut self, cx: &mut Ctx) {
        SessionFile::finish(self, cx)
    }
}

impl SessionFile {
    pub(super) fn new(stem: String, folder: Option<String>) -> Self {
        SessionFile {
            stem,
            folder,
            session: None,
            subagent: false,
            first: None,
            last: None,
            messages: Vec::new(),
            index: HashMap::default(),
            billed: Vec::new(),
            gone_calls: Vec::new(),
            rewritten: (0, None),
            rewound: (0, None),
            clock: Rfc3339::default(),
        }
    }

    fn session(&mut self, cx: &mut Ctx, at: Loc) -> Sym {
        match self.session {
            Some(s) => s,
            None => {
                // A file without its metadata line: its name stands for the session.
                let s = cx.sym(&self.stem.clone(), at);
                cx.graph.session(s);
                self.session = Some(s);
                s
            }
        }
    }

    fn line(&mut self, cx: &mut Ctx, line: &Line, at: Loc, offset: u64) {
        let time = line.timestamp.as_str().or(line.start_time.as_str()).and_then(|t| self.clock.ms(t));
        if line.is_metadata() && self.session.is_none() {
            if let Some(id) = line.session_id.non_empty() {
                let s = cx.sym(id, at);
                cx.graph.session(s);
                self.session = Some(s);
            }
        }
        let s = self.session(cx, at);
        if line.is_metadata() {
            self.subagent |= line.kind.as_str() == Some("subagent");
            cx.record(at, offset, Some(s), Kind::Header, time);
            self.mark(at, time);
            if let Some(list) = &line.messages {
                // The older whole-file document (or the metadata line of a file migrated on one
                // line): each message is a record at the line where its object starts.
                self.messages_in(cx, s, line, list, at, offset);
            }
            return;
        }
        if let Some(to) = line.rewind_to.as_str() {
            cx.record(at, offset, Some(s), Kind::Other, time);
            self.mark(at, time);
            self.rewind(cx, to, at);
            return;
        }
        if let Some(set) = &line.set.0 {
            cx.record(at, offset, Some(s), Kind::Other, time);
            self.mark(at, time);
            if let Some(list) = &set.messages {
                // A checkpoint: the history is replaced by the messages the line holds, each a
                // record at the line (read back at its own offset in it).
                let kept: Vec<Box<str>> = list
                    .0
                    .iter()
                    .filter_map(|m| parse(m.0))
                    .filter_map(|m| m.id.as_str().map(Box::from))
                    .collect();
                self.drop_history(cx, at, |id| !kept.iter().any(|k| &**k == id));
                self.messages_in(cx, s, line, list, at, offset);
            }
            return;
        }
        if line.is_message() {
            self.message(cx, s, line, at, offset);
            return;
        }
        cx.record(at, offset, Some(s), Kind::Other, time);
        self.mark(at, time);
    }

    fn mark(&mut self, at: Loc, time: Option<f64>) {
        if self.first.is_none() {
            self.first = Some((at, time));
        }
        if time.is_some() || self.last.is_none_or(|(_, t)| t.is_none()) {
            self.last = Some((at, time.or(self.last.and_then(|l| l.1))));
        } else if let Some(l) = self.last.as_mut() {
            l.0 = at;
        }
    }

    /// A message line: a new message, or a message written before under its id (replaced in
    /// place: the producer rewrites a message as it grows).
    fn message(&mut self, cx: &mut Ctx, s: Sym, line: &Line, at: Loc, offset: u64) {
        let time = line.timestamp.as_str().and_then(|t| self.clock.ms(t));
        let role = Role::of(line);
        cx.record(at, offset, Some(s), role.kind(), time);
        self.mark(at, time);
        let record = cx.last_record();
        let id: Box<str> = line.id.as_str().unwrap_or_default().into();
        let done = line.tool_calls.0.iter().find(|c| c.name.as_str() == Some(reply::COMPLETE_TASK));
        let said = match done {
            Some(c) => c.args.as_ref().and_then(|a| reply::submitted_hash(a.0)),
            None => (role == Role::Reply && line.content.text).then(|| line.content.text_hash.finish()),
        };
        let msg = Msg {
            id: id.clone(),
            record,
            role,
            text: line.content.text,
            error: line.kind_of.as_str() == Some("error"),
            tokens: line.tokens.0.map(|t| t.usage()).filter(|u| !u.is_zero()),
            model: line.model.non_empty().map(Box::from),
            calls: line
                .tool_calls
                .0
                .iter()
                .map(|c| Call {
                    id: c.id.as_str().unwrap_or_default().into(),
                    name: c.name.as_str().unwrap_or_default().into(),
                    label: c.display_name.non_empty().or(c.name.non_empty()).map(Box::from),
                    status: c.status.non_empty().map(Box::from),
                    agent: c.agent_id.non_empty().map(Box::from),
                    received: c.agent_id.non_empty().and(c.result.as_ref()).and_then(|r| reply::received_hash(r.0)),
                    at,
                    record,
                })
                .collect(),
            ends: role == Role::Reply && done.is_some(),
            said,
        };
        match self.index.get(&id) {
            Some(&i) => {
                let old = std::mem::replace(&mut self.messages[i], msg);
                // The earlier form is shown no more: it is the same message.
                cx.set_kind(old.record, Kind::Other);
                self.rewritten.0 += 1;
                self.rewritten.1.get_or_insert(at);
            }
            None => {
                self.index.insert(id, self.messages.len());
                self.messages.push(msg);
            }
        }
    }

    /// `$rewindTo`: the message named and every one after it leave the history (all of it when
    /// the id is not there, as the producer's reader does).
    fn rewind(&mut self, cx: &mut Ctx, to: &str, at: Loc) {
        let from = self.index.get(to).copied().unwrap_or(0);
        let n = self.messages.len() - from;
        self.cut(cx, from);
        if n > 0 {
            self.rewound.0 += n as u64;
            self.rewound.1.get_or_insert(at);
        }
    }

    /// Messages from `from` on leave the history; their calls were billed.
    fn cut(&mut self, cx: &mut Ctx, from: usize) {
        for m in self.messages.drain(from..) {
            self.index.remove(&m.id);
            cx.set_kind(m.record, Kind::Other);
            if let Some(u) = m.tokens {
                self.billed.push((u, m.model));
            }
            self.gone_calls.extend(m.calls);
        }
    }

    /// The history is replaced: the messages `gone` says are not kept leave it (billed).
    fn drop_history(&mut self, cx: &mut Ctx, at: Loc, gone: impl Fn(&str) -> bool) {
        let old = std::mem::take(&mut self.messages);
        self.index.clear();
        let mut n = 0;
        for m in old {
            cx.set_kind(m.record, Kind::Other);
            if gone(&m.id) {
                n += 1;
                if let Some(u) = m.tokens {
                    self.billed.push((u, m.model));
                }
                self.gone_calls.extend(m.calls);
            }
        }
        if n > 0 {
            self.rewound.0 += n;
            self.rewound.1.get_or_insert(at);
        }
    }

    /// The messages a line holds (a whole-file document's, a `$set.messages`): each a record
    /// at the line where its object starts, read back at its own offset.
    fn messages_in(&mut self, cx: &mut Ctx, s: Sym, line: &Line, list: &Raws, at: Loc, offset: u64) {
        for raw in &list.0 {
            let Some(m) = parse(raw.0).filter(Line::is_message) else { continue };
            let (within, lines) = line.place_of(raw.0);
            let here = Loc { file: at.file, line: at.line + lines };
            cx.graph.set_place(here);
            self.message(cx, s, &m, here, offset + within);
        }
    }

    fn finish(&mut self, cx: &mut Ctx) {
        let Some(s) = self.session else { return };
        // Turns: each prompt starts one, up to the next; its steps are its model calls.
        let mut turn: Option<usize> = None;
        let mut n = 0;
        for m in &self.messages {
            if m.role == Role::Prompt {
                n += 1;
                cx.turns.list.push(TurnRec::new(s, None, TurnId::Num(n), Some(m.record), Some(m.record)));
                turn = Some(cx.turns.list.len() - 1);
            }
            if let Some(t) = turn.and_then(|t| cx.turns.list.get_mut(t)) {
                t.set_end(m.record);
                if m.role == Role::Reply {
                    t.steps += 1;
                    if m.text {
                        t.set_reply(m.record);
                    }
                }
            }
            if let Some(u) = &m.tokens {
                cx.usage.add(s, turn, m.model.as_deref(), u.clone());
            }
        }
        for (u, model) in &self.billed {
            cx.usage.add(s, None, model.as_deref(), u.clone());
        }
        if let Some((n, Some(at))) = Some(self.rewritten).filter(|r| r.0 > 0) {
            cx.findings.add(
                Code::MessageRewritten,
                at,
                Some(s),
                format!("{n} line(s) rewrite a message written before under the same id: each message is read once, in its last form (a reader that sums lines counts its tokens again)"),
            );
        }
        if let Some((n, Some(at))) = Some(self.rewound).filter(|r| r.0 > 0) {
            cx.findings.add(
                Code::HistoryRewound,
                at,
                Some(s),
                format!("{n} message(s) were rewound out of the history: the transcript no longer shows them, their model calls still count in the session's tokens"),
            );
        }
        let last_reply = self.messages.iter().rev().find(|m| !matches!(m.role, Role::Notice | Role::Context) || m.error);
        let outcome = match last_reply {
            Some(m) if m.error => Some(crate::report::Outcome::Error),
            Some(m) if m.role == Role::Reply && m.calls.is_empty() => Some(crate::report::Outcome::Ok),
            _ => None,
        };
        // Its reply to a parent: its last `gemini` message that ends the run or has text.
        let reply = self
            .messages
            .iter()
            .rev()
            .filter(|m| m.role == Role::Reply)
            .find(|m| m.ends || m.said.is_some())
            .and_then(|m| m.said);
        let facts = Facts {
            session: s,
            reply,
            subagent: self.subagent,
            folder: None,
            first: self.first.map(|f| f.0),
            last: self.last.map(|l| l.0),
            start: self.first.and_then(|f| f.1).unwrap_or(f64::NAN),
            end: self.last.and_then(|l| l.1).unwrap_or(f64::NAN),
            outcome,
            // Only the calls that ran a sub-agent link anything (most calls run none).
            calls: self
                .messages
                .iter()
                .flat_map(|m| m.calls.iter())
                .chain(self.gone_calls.iter())
                .filter(|c| c.agent.is_some())
                .cloned()
                .collect(),
            gone: false,
        };
        let files = cx.ext::<Files>();
        let folder = self.folder.as_deref().map(|d| files.folders.intern(d));
        files.put(Facts { folder, ..facts });
    }
}
