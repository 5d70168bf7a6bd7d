//! One Claude Code file's state machine: which session each line is, turns and steps, replies,
//! usage, replayed history, and the evidence of parent links it leaves in `link::State` for
//! `settle`. A file is a session transcript (with inline sidechains in 1.0), a sub-agent
//! transcript, or a sidecar.

use super::line::{self, ClaudeShape, Content, Line, Notice, TextHash};
use super::link::{AgentRec, Sidecar, Spawn, SpawnResult, State};
use crate::ctx::{Ctx, Kind, TextRef};
use crate::finding::{Code, Loc};
use crate::formats::Machine;
use crate::intern::{HashMap, Sym};
use crate::report::Usage;
use crate::turns::{StepSpan, TurnId, TurnRec};

/// The state of one file.
#[derive(Clone)]
pub(super) struct ClaudeFile {
    /// The agent id the file's name gives (`agent-<id>.jsonl`, `agent-<id>.meta.json`).
    name_agent: Option<String>,
    /// The `<sessionId>` of a `<sessionId>/subagents/…` path.
    path_session: Option<String>,
    stem: String,
    /// From the first lines: the first `sessionId` and `agentId`, and whether the first line with
    /// a `uuid` is a sidechain's.
    head_session: Option<String>,
    head_agent: Option<String>,
    head_sidechain: bool,
    /// The file's own session (index into `sessions`), made at its first transcript line.
    main: Option<usize>,
    sessions: Vec<SessionState>,
    by_sym: HashMap<Sym, usize>,
    /// The line before was a `compact_boundary`: compaction starts a chain again.
    after_boundary: bool,
    /// The (hashed) `uuid` of the last line read that had one.
    last_uuid: Option<u64>,
    /// Lines read before in another file, and forked copies: how many, and the first.
    replayed: (u64, Option<Loc>),
    /// Lines whose `uuid` another file's different line has: how many, and the first.
    duplicates: (u64, Option<Loc>),
    forked: (u64, Option<Loc>),
    clock: crate::text::time::Rfc3339,
}

/// What a file knows of one session it holds (its own, or an inline sidechain's).
#[derive(Clone)]
struct SessionState {
    sym: Sym,
    /// A sub-agent (a sub-agent file's own session, or an inline sidechain).
    agent: bool,
    inline: bool,
    first: Option<Loc>,
    last: Option<Loc>,
    /// The `parentUuid` of its first line that has a `uuid`, once that line is read.
    first_parent: Option<Option<u64>>,
    /// The exact hash of its first prompt's text (a sub-agent's task).
    prompt: Option<TextHash>,
    /// The open turn (index into `Turns::list`) and the number of turns so far.
    turn: Option<usize>,
    turns: i64,
    /// The current API message: its `message.id` hash (`None`: a line without one), its step
    /// span in the turn, its last line with text, and (sub-agents) the hash of its text.
    msg: Option<Option<u64>>,
    span: Option<usize>,
    steps: u32,
    reply_rec: Option<u32>,
    text: TextHash,
    /// Sub-agents: the loose hash of the last message's text.
    last_reply: Option<TextHash>,
    /// The last assistant line had a `stop_reason`.
    stopped: bool,
    pending: Option<PendingUsage>,
    /// The `sessionId` its lines carry (a sub-agent's root).
    session_hint: Option<Sym>,
}

/// One API message's tokens while its lines are read: a split message repeats its usage on
/// every line, as a snapshot that grows (output tokens 8, 8, 436): the largest of each count is
/// the message's, added once when the message ends.
#[derive(Clone)]
struct PendingUsage {
    key: Option<u64>,
    usage: Usage,
    model: Option<Sym>,
    turn: Option<usize>,
}

/// What a line is, for its record and for what routing does with it.
#[derive(Clone)]
enum Role {
    Prompt,
    Results,
    Notice(Notice),
    Assistant,
    Boundary,
    Other,
}

impl ClaudeFile {
    pub(super) fn new<'h>(display: &str, head: impl Iterator<Item = &'h [u8]>) -> Self {
        let parts: Vec<&str> = display.split('/').collect();
        let name = parts.last().copied().unwrap_or(display);
        let name_agent = name
            .strip_prefix("agent-")
            .and_then(|rest| rest.split('.').next())
            .filter(|id| !id.is_empty())
            .map(str::to_owned);
        let path_session = match parts.len() {
            n if n >= 3 && parts[n - 2] == "subagents" => Some(parts[n - 3].to_owned()),
            // Workflow steps: `<sessionId>/subagents/workflows/wf_<id>/agent-<id>.jsonl`.
            n if n >= 5 && parts[n - 3] == "workflows" && parts[n - 4] == "subagents" => Some(parts[n - 5].to_owned()),
            _ => None,
        };
        let mut f = ClaudeFile {
            name_agent,
            path_session,
            stem: super::super::stem(display),
            head_session: None,
            head_agent: None,
            head_sidechain: false,
            main: None,
            sessions: Vec::new(),
            by_sym: HashMap::default(),
            after_boundary: false,
            last_uuid: None,
            replayed: (0, None),
            duplicates: (0, None),
            forked: (0, None),
            clock: Default::default(),
        };
        let mut seen_uuid = false;
        for bytes in head {
            // Read only as far as these are known: a small file's head is all of it.
            if f.head_session.is_some() && seen_uuid && (!f.head_sidechain || f.head_agent.is_some()) {
                break;
            }
            let Some(l) = std::str::from_utf8(bytes).ok().and_then(line::parse) else { continue };
            if f.head_session.is_none() {
                f.head_session = l.session_id.non_empty().map(str::to_owned);
            }
            if f.head_agent.is_none() {
                f.head_agent = l.agent_id.non_empty().map(str::to_owned);
            }
            if !seen_uuid && l.uuid.non_empty().is_some() {
                seen_uuid = true;
                f.head_sidechain = l.is_sidechain.0 == Some(true);
            }
        }
        f
    }

    /// A sub-agent's transcript: named `agent-<id>.jsonl`, or its lines are a sidechain's with an
    /// `agentId`.
    fn is_agent_file(&self) -> bool {
        self.name_agent.is_some() || (self.head_sidechain && self.head_agent.is_some())
    }

    fn add_session(&mut self, cx: &mut Ctx, sym: Sym, agent: bool, inline: bool) -> usize {
        if let Some(&i) = self.by_sym.get(&sym) {
            return i;
        }
        cx.graph.session(sym);
        if !agent {
            cx.ext::<State>().roots.insert(sym);
        }
        self.sessions.push(SessionState {
            sym,
            agent,
            inline,
            first: None,
            last: None,
            first_parent: None,
            prompt: None,
            turn: None,
            turns: 0,
            msg: None,
            span: None,
            steps: 0,
            reply_rec: None,
            text: TextHash::default(),
            last_reply: None,
            stopped: false,
            pending: None,
            session_hint: None,
        });
        self.by_sym.insert(sym, self.sessions.len() - 1);
        self.sessions.len() - 1
    }

    /// The file's own session, made at its first transcript line.
    fn main(&mut self, cx: &mut Ctx, at: Loc) -> usize {
        if let Some(m) = self.main {
            return m;
        }
        let m = if self.is_agent_file() {
            let id = self.head_agent.clone().or_else(|| self.name_agent.clone()).unwrap_or_else(|| self.stem.clone());
            let sym = cx.sym(&id, at);
            let m = self.add_session(cx, sym, true, false);
            self.sessions[m].session_hint = self.head_session.clone().map(|s| cx.sym(&s, at));
            m
        } else {
            let id = self.head_session.clone().unwrap_or_else(|| self.stem.clone());
            let sym = cx.sym(&id, at);
            self.add_session(cx, sym, false, false)
        };
        self.main = Some(m);
        m
    }

    /// The session of a transcript line: the file's own, or (in a session file) the inline
    /// sidechain its `parentUuid` continues, or a new one when it starts a chain.
    fn session_of(&mut self, cx: &mut Ctx, l: &Line, at: Loc) -> usize {
        let main = self.main(cx, at);
        if self.sessions[main].agent || l.is_sidechain.0 != Some(true) {
            return main;
        }
        if let Some(p) = l.parent_uuid.non_empty() {
            let st = cx.ext::<State>();
            let h = st.hash(p);
            if let Some(rec) = st.lines.get(h) {
                if cx.file_of(rec as usize) == Some(at.file) {
                    let sym = Sym(cx.records[rec as usize].session);
                    if let Some(&i) = self.by_sym.get(&sym).filter(|&&i| self.sessions[i].inline) {
                        return i;
                    }
                }
            }
        }
        let id = match (l.agent_id.non_empty(), l.uuid.non_empty()) {
            (Some(a), _) => a.to_owned(),
            (None, Some(u)) => format!("sidechain-{u}"),
            (None, None) => format!("{}-sidechain-{}", self.stem, at.line),
        };
        let sym = cx.sym(&id, at);
        let i = self.add_session(cx, sym, true, true);
        let root = self.sessions[main].sym;
        self.sessions[i].session_hint = Some(root);
        i
    }

    fn sidecar(&mut self, cx: &mut Ctx, l: &Line, at: Loc, offset: u64) {
        let agent = self.name_agent.as_deref().map(|a| cx.sym(a, at));
        cx.record(at, offset, agent, Kind::Header, None);
        let Some(agent) = agent else { return };
        let parent_agent = l.parent_agent_id.non_empty().map(|p| cx.sym(p, at));
        let rec = Sidecar {
            agent,
            at,
            tool_use_id: l.tool_use_id.non_empty().map(Into::into),
            parent_agent,
            label: l.description.non_empty().or(l.agent_type.non_empty()).map(Into::into),
        };
        cx.ext::<State>().sidecars.push(rec);
    }

    /// The end of a message in session `i`: its tokens are added, once per session and
    /// `(message.id, requestId)` across every file.
    fn commit_usage(&mut self, cx: &mut Ctx, i: usize) {
        let Some(p) = self.sessions[i].pending.take() else { return };
        let sym = self.sessions[i].sym;
        let st = cx.ext::<State>();
        if let Some(key) = p.key {
            if !st.count_once(sym, key) {
                return;
            }
        }
        let model = p.model.map(|m| st.models.name(m).to_owned());
        cx.usage.add(sym, p.turn, model.as_deref(), p.usage);
    }

    // A line's place comes as the driver gives it (`at`, `offset`) beside the record made of it.
    #[allow(clippy::too_many_arguments)]
    fn user(&mut self, cx: &mut Ctx, i: usize, l: &Line, role: Role, at: Loc, offset: u64, rec: u32) {
        let content = l.message.0.as_ref().map(|m| &m.content);
        match role {
            Role::Notice(n) => {
                let here = TextRef { at, offset };
                cx.ext::<State>().notice(n, here, false);
            }
            Role::Prompt => {
                let s = &mut self.sessions[i];
                if s.agent && s.prompt.is_none() {
                    s.prompt = content.and_then(Content::exact_hash);
                }
                s.turns += 1;
                cx.turns.list.push(TurnRec::new(s.sym, None, TurnId::Num(s.turns), Some(rec), Some(rec)));
                s.turn = Some(cx.turns.list.len() - 1);
                (s.msg, s.span, s.steps, s.reply_rec) = (None, None, 0, None);
            }
            _ => {}
        }
        let blocks = content.map_or(&[][..], Content::blocks);
        let results = blocks.iter().filter(|b| b.kind.as_str() == Some("tool_result")).count();
        for b in blocks.iter().filter(|b| b.kind.as_str() == Some("tool_result")) {
            let Some(call) = b.tool_use_id.non_empty() else { continue };
            let Some(&ix) = cx.ext::<State>().spawn_ix.get(call) else { continue };
            let tur = l.tool_use_result.0.as_ref();
            // A line's toolUseResult describes its result only when it holds one.
            let agent = tur.filter(|_| results == 1).and_then(|t| t.agent_id.non_empty()).map(|a| cx.sym(a, at));
            let raw = b.content.map_or("", |c| c.0);
            let text_agent = line::agent_id_in_text(raw).map(|a| cx.sym(a, at));
            let result = SpawnResult {
                at: TextRef { at, offset },
                is_error: b.is_error.0 == Some(true),
                agent,
                text_agent,
                launched: tur.is_some_and(|t| t.status.as_str() == Some("async_launched") || t.is_async.0 == Some(true)),
                received: line::received_hash(raw),
            };
            let spawn = &mut cx.ext::<State>().spawns[ix as usize];
            if spawn.result.is_none() {
                spawn.result = Some(result);
            }
        }
    }

    fn assistant(&mut self, cx: &mut Ctx, i: usize, l: &Line, rec: u32) {
        let Some(m) = l.message.0.as_ref() else { return };
        let key = m.id.non_empty().map(|id| cx.ext::<State>().hash_pair(id, l.request_id.as_str().unwrap_or("")));
        let msg_key = m.id.non_empty().map(|id| cx.ext::<State>().hash(id));
        if msg_key.is_none() || self.sessions[i].msg != Some(msg_key) {
            self.commit_usage(cx, i);
            let s = &mut self.sessions[i];
            s.msg = Some(msg_key);
            (s.reply_rec, s.text, s.span) = (None, TextHash::default(), None);
            if let Some(t) = s.turn {
                s.steps += 1;
                cx.turns.list[t].steps = s.steps;
                s.span = Some(cx.turns.push_span(t, StepSpan::open(s.steps, rec)));
                // A turn's reason is its last message's stop_reason.
                cx.turns.set_reason(t, None);
            }
        }
        let s = &mut self.sessions[i];
        if let (Some(t), Some(span)) = (s.turn, s.span) {
            if let Some(sp) = cx.turns.span_mut(t, span) {
                sp.set_end(Some(rec));
            }
        }
        if m.content.has_text() {
            s.reply_rec = Some(rec);
            if s.agent {
                match &m.content {
                    Content::Text(t) => s.text = s.text.then(t.loose),
                    _ => m.content.text_blocks().for_each(|t| s.text.json(t.0, true)),
                }
            }
        }
        if s.agent {
            s.last_reply = Some(s.text);
        }
        s.stopped = m.stop_reason.non_empty().is_some();
        if let Some(t) = s.turn {
            cx.turns.list[t].set_reply(s.reply_rec.unwrap_or(rec));
            if let Some(stop) = m.stop_reason.non_empty() {
                cx.turns.set_reason(t, Some(stop));
            }
        }
        if let Some(u) = m.usage.0.as_ref() {
            let usage = u.usage();
            let turn = s.turn;
            let model = m.model.non_empty().map(|name| cx.ext::<State>().models.intern(name));
            let s = &mut self.sessions[i];
            match &mut s.pending {
                Some(p) if p.key.is_some() && p.key == key => {
                    p.usage = max_usage(&p.usage, &usage);
                    p.model = p.model.or(model);
                }
                _ => {
                    // Another request for the same message counts again: the key is the pair.
                    self.commit_usage(cx, i);
                    self.sessions[i].pending = Some(PendingUsage { key, usage, model, turn });
                }
            }
            if key.is_none() {
                self.commit_usage(cx, i);
            }
        }
        let sym = self.sessions[i].sym;
        let at = cx.loc_of(rec);
        for (n, b) in m.content.blocks().iter().enumerate() {
            if b.kind.as_str() != Some("tool_use") || !b.name.as_str().is_some_and(line::is_spawn_tool) {
                continue;
            }
            let Some(at) = at else { continue };
            let input = b.input.0.as_ref();
            let id: Box<str> = match b.id.non_empty() {
                Some(id) => id.into(),
                // A call without an id can be linked by its prompt only.
                None => format!("(call at line {} #{n})", at.line).into(),
            };
            let prompt = input.and_then(|i| i.prompt).map(|p| {
                let mut h = TextHash::default();
                h.json(p.0, false);
                h
            });
            let spawn = Spawn {
                id,
                session: sym,
                at,
                prompt,
                background: input.is_some_and(|i| i.run_in_background.0 == Some(true)),
                label: input.and_then(|i| i.description.non_empty().or(i.subagent_type.non_empty())).map(Into::into),
                result: None,
            };
            cx.ext::<State>().add_spawn(spawn);
        }
    }
}

fn max_usage(a: &Usage, b: &Usage) -> Usage {
    Usage {
        input: a.input.max(b.input),
        output: a.output.max(b.output),
        cache_read: a.cache_read.max(b.cache_read),
        cache_write: a.cache_write.max(b.cache_write),
        cost: None,
        unpriced: None,
    }
}

/// A line's role and its record's kind.
fn classify(l: &Line) -> (Role, Kind) {
    let content = l.message.0.as_ref().map(|m| &m.content);
    match l.kind.as_str() {
        Some("user") => {
            if let Some(n) = content.and_then(Content::notice) {
                return (Role::Notice(n), Kind::Notice);
            }
            let text = content.is_some_and(Content::has_text);
            if text && l.is_meta.0 != Some(true) && l.is_compact_summary.0 != Some(true) {
                (Role::Prompt, Kind::UserMessage)
            } else if content.is_some_and(|c| c.blocks().iter().any(|b| b.kind.as_str() == Some("tool_result"))) {
                (Role::Results, Kind::ToolResult)
            } else {
                (Role::Other, Kind::UserMessage)
            }
        }
        Some("assistant") => {
            let blocks = content.map_or(&[][..], Content::blocks);
            let has = |t: &str| blocks.iter().any(|b| b.kind.as_str() == Some(t));
            let kind = if has("tool_use") {
                Kind::ToolCall
            } else if content.is_some_and(Content::has_text) {
                Kind::AssistantMessage
            } else if has("thinking") || has("redacted_thinking") {
                Kind::Reasoning
            } else {
                Kind::AssistantMessage
            };
            (Role::Assistant, kind)
        }
        Some("system") if l.subtype.as_str() == Some("compact_boundary") => (Role::Boundary, Kind::Compaction),
        Some("system") => (Role::Other, Kind::Notice),
        _ => (Role::Other, Kind::Other),
    }
}

impl Machine for ClaudeFile {
    type Shape = ClaudeShape;

    fn line(&mut self, cx: &mut Ctx, l: &Line<'_>, at: Loc, offset: u64) {
        if line::is_sidecar(l) {
            self.sidecar(cx, l, at, offset);
            return;
        }
        let time = l.timestamp.as_str().and_then(|t| self.clock.ms(t));
        let uuid = l.uuid.non_empty().map(|u| cx.ext::<State>().hash(u));
        let same = if uuid.is_some() { cx.ext::<State>().sameness(l) } else { 0 };
        // A line read before in another file (a resumed session replays its prefix) is read
        // once; another line that reuses its uuid is read in its own session, and counted.
        if let Some(h) = uuid {
            let first = cx.ext::<State>().lines.get(h);
            if let Some(r) = first.filter(|&r| cx.file_of(r as usize) != Some(at.file)) {
                if cx.ext::<State>().lines.same_of(r) == same {
                    self.main(cx, at);
                    cx.record(at, offset, None, classify(l).1, time);
                    self.replayed.0 += 1;
                    self.replayed.1.get_or_insert(at);
                    return;
                }
                self.duplicates.0 += 1;
                self.duplicates.1.get_or_insert(at);
            }
        }
        // A forked child's copy of its parent's history: shown, not counted as the child's.
        if l.forked_from.is_some() {
            self.main(cx, at);
            cx.record(at, offset, None, classify(l).1, time);
            let rec = cx.last_record();
            if let Some(h) = uuid {
                cx.ext::<State>().lines.insert_first(h, rec, same);
            }
            self.forked.0 += 1;
            self.forked.1.get_or_insert(at);
            self.after_boundary = false;
            return;
        }
        let i = self.session_of(cx, l, at);
        let (role, kind) = classify(l);
        cx.record(at, offset, Some(self.sessions[i].sym), kind, time);
        let rec = cx.last_record();
        
        let parent = l.parent_uuid.non_empty().map(|p| cx.ext::<State>().hash(p));
        {
            let st = cx.ext::<State>();
            if let Some(h) = uuid {
                st.lines.insert_first(h, rec, same);
            }
            // Most lines continue the line before them in their file: no look-up for those.
            if let Some(p) = parent.filter(|&p| Some(p) != self.last_uuid) {
                if !self.after_boundary && !st.lines.contains(p) {
                    st.pending_parents.push((p, at));
                }
            }
        }
        self.last_uuid = uuid.or(self.last_uuid);
        let s = &mut self.sessions[i];
        s.first.get_or_insert(at);
        s.last = Some(at);
        if uuid.is_some() && s.first_parent.is_none() {
            s.first_parent = Some(parent);
        }
        // A turn lasts until the next prompt, which opens the next one.
        if let (Some(t), false) = (s.turn, matches!(role, Role::Prompt)) {
            cx.turns.list[t].set_end(rec);
        }
        self.after_boundary = matches!(role, Role::Boundary);
        match role {
            Role::Assistant => self.assistant(cx, i, l, rec),
            Role::Prompt | Role::Results | Role::Notice(_) => self.user(cx, i, l, role, at, offset, rec),
            Role::Boundary => {}
            Role::Other => {
                if l.kind.as_str() == Some("user") {
                    self.user(cx, i, l, role, at, offset, rec);
                }
                // Copies of a notification (queue-operation, attachment) are the same one.
                let copies = [l.content, l.attachment.0.as_ref().and_then(|a| a.prompt.or(a.content))];
                for raw in copies.into_iter().flatten() {
                    if let Some(n) = Notice::of_raw(raw.0) {
                        cx.ext::<State>().notice(n, TextRef { at, offset }, true);
                    }
                }
            }
        }
    }

    fn finish(&mut self, cx: &mut Ctx) {
        for i in 0..self.sessions.len() {
            self.commit_usage(cx, i);
        }
        let file_root = self.main.map(|m| self.sessions[m].sym);
        let path_root = self.path_session.clone();
        let compaction = self.name_agent.as_deref().is_some_and(|a| a.starts_with("acompact"));
        for s in &self.sessions {
            let (Some(first), Some(last), true) = (s.first, s.last, s.agent) else { continue };
            let path_root = path_root.as_deref().map(|p| cx.sym(p, first));
            let rec = AgentRec {
                id: s.sym,
                first,
                last,
                first_parent: s.first_parent.flatten(),
                prompt: s.prompt,
                session_hint: s.session_hint,
                path_root: if s.inline { file_root } else { path_root },
                stopped: s.stopped,
                reply: s.last_reply,
                compaction: compaction && !s.inline,
            };
            cx.ext::<State>().agents.push(rec);
        }
        if let (n, Some(at)) = self.duplicates {
            cx.findings.add(
                Code::DuplicateUuid,
                at,
                file_root,
                format!(
                    "{n} line{} share{} a uuid with a different line of another file: not a resume's replay, read in {} own session",
                    if n == 1 { "" } else { "s" },
                    if n == 1 { "s" } else { "" },
                    if n == 1 { "its" } else { "their" },
                ),
            );
        }
        let (replayed, forked) = (self.replayed, self.forked);
        if replayed.0 + forked.0 > 0 {
            let at = [replayed.1, forked.1].into_iter().flatten().min().expect("one of them is set");
            let mut what = Vec::new();
            if replayed.0 > 0 {
                what.push(format!("{} lines read before in another file (a resumed session's replayed prefix)", replayed.0));
            }
            if forked.0 > 0 {
                what.push(format!("{} lines marked forkedFrom (a forked child's copy of its parent's history)", forked.0));
            }
            cx.findings.add(
                Code::ReplayedHistory,
                at,
                file_root,
                format!("{}: shown once, not counted as this file's events, tokens or replies", what.join(" and ")),
            );
        }
    }
}
