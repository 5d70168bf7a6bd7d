//! One rollout's state machine: its session, turns, steps, replies, token usage, a fork's
//! replayed history, and the evidence it leaves for `settle`.

use crate::formats::Machine;
use crate::ctx::{Ctx, Kind, LooseReply, TextRef};
use crate::finding::{Code, Loc};
use crate::intern::{HashSet, Sym};
use crate::report::Outcome;
use crate::turns::{StepSpan, TurnId, TurnRec};
use crate::text::time::Rfc3339;

use super::lines::*;
use super::links::*;

/// A fork's copy of its parent's history, from the second `session_meta` up to its own history.
#[derive(Debug, Default, Clone)]
pub(super) struct Replay {
    pub(super) active: bool,
    pub(super) at: Option<Loc>,
    pub(super) records: u64,
    /// The fork instant's second (`YYYY-MM-DDTHH:MM:SS`) the copied records are stamped with.
    pub(super) second: Option<[u8; 19]>,
    /// A copied turn is open (the parent forked mid-turn).
    pub(super) open_turn: bool,
}

#[derive(Debug, Clone)]
pub(super) struct OpenTurn {
    pub(super) ix: usize,
    pub(super) id: Option<Sym>,
    /// The open step's index among the turn's spans, its last model output, and whether input
    /// (a tool's output, a message to the model) came after it: the next output is a new call.
    pub(super) step: Option<usize>,
    pub(super) last_output: u32,
    pub(super) fed: bool,
    pub(super) implicit: bool,
    /// A `task_complete.last_agent_message` is the reply (an assistant message then is not).
    pub(super) final_reply: bool,
}

/// The state of one rollout file.
#[derive(Debug, Clone)]
pub(super) struct Rollout {
    pub(super) stem: String,
    pub(super) session: Option<Sym>,
    pub(super) metas: u32,
    /// `subagent_history_start_ordinal` of the first `session_meta`: copied records come before it.
    pub(super) history_start: Option<f64>,
    pub(super) replay: Replay,
    pub(super) turn: Option<OpenTurn>,
    /// A `task_started` was seen: user messages open no turns.
    pub(super) explicit: bool,
    pub(super) implicit_n: i64,
    pub(super) model: Option<Box<str>>,
    /// The last cumulative count (`total_token_usage`) and its components.
    pub(super) last_total: Option<[u64; 5]>,
    pub(super) usage_records: bool,
    pub(super) responses: HashSet<u64>,
    /// The last record of the rollout's own (not copied) history, and the one before it (where
    /// an implicit turn ends when the next user message opens another).
    pub(super) last_own: Option<u32>,
    pub(super) prev_own: Option<u32>,
    pub(super) last_turn: Option<usize>,
    pub(super) reply_hash: Option<u64>,
    pub(super) loose: Option<usize>,
    pub(super) thread: Option<Thread>,
    pub(super) clock: Rfc3339,
}

impl Machine for Rollout {
    type Shape = CodexShape;

    fn line(&mut self, cx: &mut Ctx, line: &Line, at: Loc, offset: u64) {
        Rollout::line(self, cx, line, at, offset)
    }

    fn finish(&mut self, cx: &mut Ctx) {
        Rollout::finish(self, cx)
    }
}

pub(super) const MODEL_OUTPUT: &[&str] = &[
    "reasoning",
    "function_call",
    "custom_tool_call",
    "local_shell_call",
    "web_search_call",
    "tool_search_call",
    "image_generation_call",
];

pub(super) fn record_kind(envelope: &str, p: &Payload) -> Kind {
    let t = p.kind.as_str().unwrap_or("");
    match envelope {
        "session_meta" => Kind::Header,
        "compacted" => Kind::Compaction,
        "turn_context" | "world_state" | "token_usage_record" => Kind::Other,
        "response_item" => match t {
            "message" => match p.role.as_str() {
                Some("assistant") => Kind::AssistantMessage,
                Some("user") => Kind::UserMessage,
                _ => Kind::Other,
            },
            "reasoning" => Kind::Reasoning,
            "function_call_output" | "custom_tool_call_output" | "local_shell_call_output" | "tool_search_output" => {
                Kind::ToolResult
            }
            "agent_message" => Kind::Lifecycle,
            t if MODEL_OUTPUT.contains(&t) => Kind::ToolCall,
            _ => Kind::Other,
        },
        "event_msg" => match t {
            "task_started" | "turn_started" => Kind::TurnStart,
            "task_complete" | "turn_complete" | "turn_aborted" => Kind::TurnEnd,
            "context_compacted" => Kind::Compaction,
            "error" | "stream_error" => Kind::Error,
            "sub_agent_activity" | "entered_review_mode" | "exited_review_mode" | "patch_apply_end" => Kind::Lifecycle,
            "item_completed" => match p.item.0.as_ref().and_then(|i| i.kind.as_str()) {
                Some("SubAgentActivity") => Kind::Lifecycle,
                Some("ContextCompaction") => Kind::Compaction,
                _ => Kind::Other,
            },
            "agent_reasoning" | "agent_reasoning_raw_content" => Kind::Reasoning,
            _ => Kind::Other,
        },
        _ => Kind::Other,
    }
}

impl Rollout {
    pub(super) fn new(stem: String) -> Self {
        Rollout {
            stem,
            session: None,
            metas: 0,
            history_start: None,
            replay: Replay::default(),
            turn: None,
            explicit: false,
            implicit_n: 0,
            model: None,
            last_total: None,
            usage_records: false,
            responses: HashSet::default(),
            last_own: None,
            prev_own: None,
            last_turn: None,
            reply_hash: None,
            loose: None,
            thread: None,
            clock: Rfc3339::default(),
        }
    }

    pub(super) fn line(&mut self, cx: &mut Ctx, line: &Line, at: Loc, offset: u64) {
        let empty = Payload::default();
        let p = line.payload().unwrap_or(&empty);
        let envelope = line.kind.as_str().unwrap_or("");
        let t = p.kind.as_str().unwrap_or("");
        let time = line.timestamp.as_str().and_then(|s| self.clock.ms(s));
        let kind = record_kind(envelope, p);
        if envelope == "session_meta" {
            self.metas += 1;
            if self.session.is_none() {
                if let Some(id) = p.id.non_empty() {
                    self.meta(cx, p, id, at, time);
                }
            } else if self.metas >= 2 && !self.replay.active && self.replay.at.is_none() {
                // A fork's copy of its parent's history begins here.
                self.replay.active = true;
                self.replay.at = Some(at);
                self.replay.second = line.timestamp.as_str().and_then(|s| s.as_bytes().get(..19)?.try_into().ok());
            }
        }
        let s = match self.session {
            Some(s) => s,
            None => {
                // A rollout without a `session_meta`: its file's stem names the session.
                let s = cx.sym(&self.stem.clone(), at);
                cx.graph.session(s);
                self.session = Some(s);
                self.thread = Some(thread(s, at, time));
                s
            }
        };
        if self.replay.active && self.replay_ends(line, envelope, t) {
            self.replay.active = false;
        }
        cx.record(at, offset, Some(s), kind, time);
        let rec = cx.last_record();
        if self.replay.active {
            // Shown, but not the child's own: not counted as its events, turns, tokens or reply.
            if let Some(node) = cx.graph.get_mut(s) {
                node.events = node.events.saturating_sub(1);
            }
            self.replay.records += 1;
            match t {
                "task_started" | "turn_started" if envelope == "event_msg" => self.replay.open_turn = true,
                "task_complete" | "turn_complete" | "turn_aborted" if envelope == "event_msg" => {
                    self.replay.open_turn = false
                }
                _ => {}
            }
            return;
        }
        self.prev_own = self.last_own;
        self.last_own = Some(rec);
        if let Some(th) = self.thread.as_mut() {
            th.last = at;
        }
        match (envelope, t) {
            ("turn_context", _) => {
                if let Some(m) = p.model.non_empty() {
                    if self.model.as_deref() != Some(m) {
                        self.model = Some(m.into());
                    }
                }
            }
            ("event_msg", "task_started" | "turn_started") => {
                self.explicit = true;
                self.close_turn(cx, None, None);
                let id = p.turn_id.as_str().map(|id| cx.turns.ids.intern(id));
                let turn_id = id.map_or(TurnId::Num(0), TurnId::Text);
                cx.turns.list.push(TurnRec::new(s, None, turn_id, Some(rec), None));
                self.open(cx.turns.list.len() - 1, id, false);
            }
            ("event_msg", "task_complete" | "turn_complete" | "turn_aborted") => {
                let id = p.turn_id.as_str().map(|id| cx.turns.ids.intern(id));
                let reason = if t == "turn_aborted" { "aborted" } else { "completed" };
                let reply = (t != "turn_aborted" && p.last_agent_message.is_some_and(|r| r.0 != "null"))
                    .then_some((rec, line.text_hash));
                let matches = self.turn.as_ref().is_some_and(|o| !o.implicit && (id.is_none() || o.id == id));
                if matches {
                    if let (Some((r, hash)), Some(o)) = (reply, self.turn.as_mut()) {
                        cx.turns.list[o.ix].set_reply(r);
                        cx.text_spans.extend(line.text_span.map(|span| (r, span)));
                        o.final_reply = true;
                        self.reply_hash = hash;
                    }
                    self.close_turn(cx, Some(rec), Some(reason));
                } else {
                    // An end without its start (a rollout cut at its head).
                    self.close_turn(cx, None, None);
                    let turn_id = id.map_or(TurnId::Num(0), TurnId::Text);
                    let mut t = TurnRec::new(s, None, turn_id, None, Some(rec));
                    if let Some((r, hash)) = reply {
                        t.set_reply(r);
                        cx.text_spans.extend(line.text_span.map(|span| (r, span)));
                        self.reply_hash = hash;
                    }
                    cx.turns.list.push(t);
                    let ix = cx.turns.list.len() - 1;
                    cx.turns.set_reason(ix, Some(reason));
                    self.last_turn = Some(ix);
                }
            }
            ("event_msg", "user_message") if !self.explicit => {
                self.close_turn(cx, None, None);
                self.implicit_n += 1;
                cx.turns.list.push(TurnRec::new(s, None, TurnId::Num(self.implicit_n), Some(rec), None));
                self.open(cx.turns.list.len() - 1, None, true);
            }
            ("event_msg", "token_count") => self.token_count(cx, s, p, rec),
            ("token_usage_record", _) => self.usage_record(cx, s, p, rec),
            ("event_msg", "sub_agent_activity" | "item_completed") => {
                if let Some(a) = sub_activity(t, p) {
                    let child = cx.sym(a.child, at);
                    let (started, outcome) = activity_kind(a.kind);
                    let path = a.path.map(|x| cx.scoped(x, at.file));
                    // The spawn call a `sub_agent_activity` answers (its `event_id`), for the
                    // transcript: the call line does not name the child.
                    if let Some(call) = p.event_id.non_empty().filter(|_| started && t == "sub_agent_activity") {
                        cx.spawns.insert((s, call.into()), child);
                    }
                    cx.ext::<Rollouts>().activities.push(Activity { parent: s, child, at, time, started, outcome, path });
                }
            }
            // The child a spawn call started, for the transcript (the call line does not name it).
            // Interned without `cx.sym` (scoped as it does): the report does not see this, so it tells
            // nothing.
            ("event_msg", "collab_agent_spawn_end") => {
                if let (Some(call), Some(child)) = (p.call_id.non_empty(), p.new_thread_id.non_empty()) {
                    let child = cx.scoped(child, at.file);
                    cx.spawns.insert((s, call.into()), child);
                }
            }
            ("event_msg", "entered_review_mode") => {
                if let Some(ms) = time {
                    cx.ext::<Rollouts>().reviews.push((s, ms, at));
                }
            }
            ("response_item", "agent_message") if line.text_hash.is_some() => {
                if let Some(author) = p.author.non_empty() {
                    let author = cx.scoped(author, at.file);
                    let got = Received { parent: s, author, at: TextRef { at, offset }, time, hash: line.text_hash };
                    cx.ext::<Rollouts>().received.push(got);
                }
            }
            ("response_item", "message") if kind == Kind::UserMessage && line.text_hash.is_some() => {
                // An older child's reply: `<subagent_notification>` names the child's thread.
                let text = blocks_text(&p.content.0);
                if let Some((path, _)) = notification(&text) {
                    let author = cx.scoped(&path, at.file);
                    let got = Received { parent: s, author, at: TextRef { at, offset }, time, hash: line.text_hash };
                    cx.ext::<Rollouts>().received.push(got);
                }
            }
            ("response_item", "message") if kind == Kind::AssistantMessage => {
                cx.text_spans.extend(line.text_span.map(|span| (rec, span)));
                match self.turn.as_mut() {
                    Some(o) => {
                        if !o.final_reply {
                            cx.turns.list[o.ix].set_reply(rec);
                            self.reply_hash = line.text_hash;
                        }
                    }
                    None => {
                        let reply = LooseReply { session: s, text: TextRef { at, offset } };
                        match self.loose {
                            Some(i) => cx.loose_replies[i] = reply,
                            None => {
                                cx.loose_replies.push(reply);
                                self.loose = Some(cx.loose_replies.len() - 1);
                            }
                        }
                        self.reply_hash = line.text_hash;
                    }
                }
            }
            _ => {}
        }
        if envelope == "response_item" && (kind == Kind::AssistantMessage || MODEL_OUTPUT.contains(&t)) {
            self.step_output(cx, rec);
        } else if envelope == "response_item" && (matches!(kind, Kind::ToolResult | Kind::UserMessage) || t == "agent_message") {
            if let Some(o) = self.turn.as_mut().filter(|o| o.step.is_some()) {
                o.fed = true;
            }
        }
    }

    /// Does `line` begin the fork's own history (SPEC 2.5: its own first turn)? Past the first
    /// `session_meta`'s `subagent_history_start_ordinal` when it gives one; else a turn that
    /// starts while a copied turn is open (the parent forked mid-turn), or one stamped later than
    /// the fork instant's second (copied records carry the fork instant).
    pub(super) fn replay_ends(&self, line: &Line, envelope: &str, t: &str) -> bool {
        if self.replay.at.is_none() {
            return false;
        }
        if let (Some(start), Some(o)) = (self.history_start, line.ordinal.get()) {
            return o >= start;
        }
        if envelope != "event_msg" || !matches!(t, "task_started" | "turn_started") {
            return false;
        }
        let later = match (self.replay.second, line.timestamp.as_str().and_then(|s| s.as_bytes().get(..19))) {
            (Some(fork), Some(here)) => here != fork,
            _ => false,
        };
        self.replay.open_turn || later
    }

    pub(super) fn meta(&mut self, cx: &mut Ctx, p: &Payload, id: &str, at: Loc, time: Option<f64>) {
        let s = cx.sym(id, at);
        cx.graph.session(s);
        self.session = Some(s);
        self.history_start = p.subagent_history_start_ordinal.get();
        let mut th = thread(s, at, time.or_else(|| p.timestamp.as_str().and_then(crate::text::time::rfc3339_ms)));
        let src = source_of(p);
        (th.subagent, th.review) = (src.subagent, src.review);
        if let Some(n) = src.named {
            cx.graph.set_label(s, n);
        }
        let nickname = p.agent_nickname.non_empty().or(src.spawn.and_then(|sp| sp.agent_nickname.non_empty()));
        let path = p.agent_path.non_empty().or(src.spawn.and_then(|sp| sp.agent_path.non_empty()));
        let (spawn_parent, parent) = (src.spawn_parent, src.parent);
        if let (Some(a), Some(b)) = (spawn_parent, p.parent_thread_id.non_empty()) {
            if a != b {
                cx.findings.add(
                    Code::SubagentLinksDisagree,
                    at,
                    Some(s),
                    format!("source.subagent.thread_spawn names `{a}` as the parent, but parent_thread_id names `{b}`: the thread_spawn stands"),
                );
            }
        }
        th.spawn_parent = parent.map(|p| cx.sym(p, at));
        th.agent_path = path.map(|p| cx.scoped(p, at.file));
        if let Some(label) = nickname.or_else(|| path.map(|p| p.rsplit('/').next().unwrap_or(p))).filter(|l| !l.is_empty())
        {
            cx.graph.set_label(s, label);
        }
        self.thread = Some(th);
    }

    pub(super) fn open(&mut self, ix: usize, id: Option<Sym>, implicit: bool) {
        self.turn = Some(OpenTurn { ix, id, step: None, last_output: 0, fed: false, implicit, final_reply: false });
        self.last_turn = Some(ix);
        self.reply_hash = None;
    }

    /// Close the open turn at `end` (an implicit turn, or one cut by the next start, ends at the
    /// last record before it: `end` none).
    pub(super) fn close_turn(&mut self, cx: &mut Ctx, end: Option<u32>, reason: Option<&str>) {
        let Some(o) = self.turn.take() else { return };
        let end = end.or(if o.implicit { self.prev_own } else { None });
        if let (Some(step), Some(e)) = (o.step, end) {
            if let Some(span) = cx.turns.span_mut(o.ix, step) {
                span.set_end(Some(e));
            }
        }
        if let Some(e) = end {
            cx.turns.list[o.ix].set_end(e);
        }
        cx.turns.set_reason(o.ix, reason);
        if end.is_none() && !o.implicit {
            if let Some(start) = cx.turns.list[o.ix].start().and_then(|r| cx.loc_of(r)) {
                let s = cx.turns.list[o.ix].session;
                cx.findings.add(
                    Code::UnclosedAtEnd,
                    start,
                    Some(s),
                    "this turn has no task_complete or turn_aborted: the rollout ends, or the next turn starts, while it is open",
                );
            }
        }
    }

    /// A model output item: it opens a step when none is open, or when input came since the open
    /// step's last output (the model was called again; its usage was not recorded).
    pub(super) fn step_output(&mut self, cx: &mut Ctx, rec: u32) {
        let Some(o) = self.turn.as_mut() else { return };
        if let (Some(step), true) = (o.step, o.fed) {
            if let Some(span) = cx.turns.span_mut(o.ix, step) {
                span.set_end(Some(o.last_output));
            }
            o.step = None;
        }
        o.last_output = rec;
        o.fed = false;
        if o.step.is_some() {
            return;
        }
        let n = cx.turns.list[o.ix].steps + 1;
        cx.turns.list[o.ix].steps = n;
        o.step = Some(cx.turns.push_span(o.ix, StepSpan::open(n, rec)));
    }

    /// A usage record that counts a model call: it ends the open step.
    pub(super) fn step_counted(&mut self, cx: &mut Ctx, rec: u32) {
        let Some(o) = self.turn.as_mut() else { return };
        if let Some(step) = o.step.take() {
            if let Some(span) = cx.turns.span_mut(o.ix, step) {
                span.set_end(Some(rec));
            }
        }
    }

    /// A model call's tokens, booked to `model` (the one its record names), else to the model of
    /// the latest `turn_context`: a turn that switches models books each call at its own price.
    pub(super) fn add_usage(&mut self, cx: &mut Ctx, s: Sym, model: Option<&str>, c: [u64; 4], rec: u32) {
        let turn = self.turn.as_ref().map(|o| o.ix);
        cx.usage.add_call(rec, s, turn, model.or(self.model.as_deref()), usage_of(c));
        // The call's line is a transcript row, with the tokens it counted.
        cx.set_kind(rec, Kind::Usage);
        self.step_counted(cx, rec);
    }

    pub(super) fn token_count(&mut self, cx: &mut Ctx, s: Sym, p: &Payload, rec: u32) {
        let Some(info) = p.info.0.as_ref() else { return };
        let total = info.total_token_usage.0;
        if self.usage_records {
            // Counted already, by response, in the rollout's `token_usage_record`s.
            self.last_total = total.map(|t| t.key()).or(self.last_total);
            return;
        }
        if let Some(t) = total {
            if self.last_total == Some(t.key()) {
                // The last count, repeated: no new model call.
                return;
            }
        }
        let counts = match (info.last_token_usage.0, total) {
            (Some(last), _) => Some(last.counts()),
            (None, Some(t)) => {
                let [a, b, c, d, _] = t.key();
                let [pa, pb, pc, pd, _] = self.last_total.unwrap_or_default();
                Some([a.saturating_sub(pa), b.saturating_sub(pb), c.saturating_sub(pc), d.saturating_sub(pd)])
            }
            (None, None) => None,
        };
        if let Some(t) = total {
            self.last_total = Some(t.key());
        }
        if let Some(c) = counts {
            let model = info.model.non_empty().or(p.model.non_empty());
            self.add_usage(cx, s, model, c, rec);
        }
    }

    pub(super) fn usage_record(&mut self, cx: &mut Ctx, s: Sym, p: &Payload, rec: u32) {
        let Some(u) = p.usage.0 else { return };
        self.usage_records = true;
        if let Some(id) = p.response_id.non_empty() {
            if !self.responses.insert(words_hash(id)) {
                return;
            }
        }
        self.add_usage(cx, s, p.model.non_empty(), u.counts(), rec);
    }

    pub(super) fn finish(&mut self, cx: &mut Ctx) {
        // An implicit turn ends with the rollout; an explicit one still open is reported.
        if self.turn.as_ref().is_some_and(|o| o.implicit) {
            self.prev_own = self.last_own;
        }
        self.close_turn(cx, None, None);
        if let (Some(at), n @ 1..) = (self.replay.at, self.replay.records) {
            cx.findings.add(
                Code::ReplayedHistory,
                at,
                self.session,
                format!("{n} records from this second session_meta on are a fork's copy of its parent's history: shown, but not counted as this thread's events, turns, tokens or reply"),
            );
        }
        let Some(mut th) = self.thread.take() else { return };
        th.reply = self.reply_hash;
        th.outcome = self.last_turn.map(|ix| &cx.turns.list[ix]).map(|t| match cx.turns.reason(t) {
            _ if t.end().is_none() => Outcome::Open,
            Some("completed") => Outcome::Ok,
            Some("aborted") => Outcome::Cancelled,
            _ => Outcome::Open,
        });
        cx.ext::<Rollouts>().threads.push(th);
    }
}
