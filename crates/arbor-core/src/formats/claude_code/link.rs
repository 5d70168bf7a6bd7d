//! The evidence that ties Claude Code sub-agents to their parents, gathered while the files are
//! read (`State`, the format's slot in the context), and `settle`, which links every sub-agent
//! once all files are read (SPEC 2.4): strongest evidence first (`meta`, `tool-result`,
//! `result-text`, `parent-uuid`, `prompt`, else `inferred`), each run keeping how it was linked,
//! with what the parent received from it and the findings of links that disagree or are missing.
//!
//! Settling never consumes the evidence: it can run again after more lines are read (a log
//! being followed), replacing what it wrote the time before (its findings, what parents
//! received, each sub-agent's one run) instead of adding to it.

use super::line::TextHash;
use crate::ctx::{Ctx, ReceivedRec, TextRef};
use crate::finding::{Code, Loc};
use crate::graph::Ancestry;
use crate::intern::{HashMap, HashSet, Interner, Sym};
use crate::report::{Link, Outcome};

/// What the files leave for `settle`, and what settling wrote.
#[derive(Default, Clone)]
pub(super) struct State {
    hasher: ahash::RandomState,
    /// Every line's `uuid` (hashed) → its record (which says its session and file).
    pub lines: LineIndex,
    /// The (session, `(message.id, requestId)`) pairs whose tokens are counted.
    pub counted: HashSet<u64>,
    /// `parentUuid`s that named no line read before them, and where: checked again in `settle`.
    pub pending_parents: Vec<(u64, Loc)>,
    /// Every `Task`/`Agent` call, and each by its id.
    pub spawns: Vec<Spawn>,
    pub spawn_ix: HashMap<Box<str>, u32>,
    /// Sub-agents: their transcripts (files and inline chains) and sidecars.
    pub agents: Vec<AgentRec>,
    pub sidecars: Vec<Sidecar>,
    /// `<task-notification>`s, by `t:<tool use id>` and `a:<task id>`.
    pub notices: HashMap<Box<str>, NoticeRec>,
    /// Root sessions read (a session file's own session).
    pub roots: HashSet<Sym>,
    pub models: Interner,
    /// The findings the last settle added (indices into `Findings::list`), and the sub-agents
    /// whose received texts it added: a settle that runs again removes them first.
    settled_findings: Vec<usize>,
    settled_agents: HashSet<Sym>,
    /// The spawn calls it registered in `Ctx::spawns` (parent, call id).
    settled_spawns: Vec<(Sym, std::sync::Arc<str>)>,
}

impl std::fmt::Debug for State {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("claude_code::State").field("lines", &self.lines.len()).finish_non_exhaustive()
    }
}

impl State {
    pub fn hash(&self, s: &str) -> u64 {
        self.hasher.hash_one(s)
    }

    pub fn hash_pair(&self, a: &str, b: &str) -> u64 {
        self.hasher.hash_one((a, b))
    }

    /// What makes a line the same line as another with its `uuid` (SPEC 2.4 Chains): its `type`,
    /// `timestamp`, `parentUuid` and `message` (else `content`) as written. `sessionId` and the
    /// resume's own fields (`cwd`, `version`, `gitBranch`, `slug`) are left out: a resume changes
    /// them on the lines it replays. Never 0, which marks a record with no uuid.
    pub fn sameness(&self, l: &super::line::Line) -> u64 {
        let body = l.message.0.as_ref().and_then(|m| m.raw).or(l.content).map(|r| r.0);
        let h = self.hasher.hash_one((l.kind.as_str(), l.timestamp.as_str(), l.parent_uuid.as_str(), body));
        h.max(1)
    }

    /// Whether a message's tokens are still to be counted in `session`: once per session and
    /// `(message.id, requestId)` (`key`), however many lines or files repeat it.
    pub fn count_once(&mut self, session: Sym, key: u64) -> bool {
        let k = self.hasher.hash_one((session, key));
        self.counted.insert(k)
    }

    pub fn add_spawn(&mut self, spawn: Spawn) {
        let ix = self.spawns.len() as u32;
        self.spawn_ix.entry(spawn.id.clone()).or_insert(ix);
        self.spawns.push(spawn);
    }

    /// A notification seen at `at`; a copy (queue-operation, attachment) counts only until the
    /// `user` line that delivers it is read.
    pub fn notice(&mut self, n: super::line::Notice, at: TextRef, copy: bool) {
        let rec = NoticeRec { at, status: n.status, result: n.result, copy };
        let keys = [n.tool_use_id.map(|t| format!("t:{t}")), n.task_id.map(|t| format!("a:{t}"))];
        for key in keys.into_iter().flatten() {
            match self.notices.get(key.as_str()) {
                Some(old) if !old.copy || copy => {}
                _ => {
                    self.notices.insert(key.into(), rec.clone());
                }
            }
        }
    }
}

/// Lines by their hashed `uuid`, for every line of every file (a 1 GiB project has 670 k). The
/// table holds record indices, 4 bytes a slot, and each indexed record's hash is kept beside it
/// by record index, 8 bytes a record: a map of hash → record took 12 bytes a slot, 13.6 MB for
/// that project's million slots, where these take 10.6. The keys are random-seeded hashes
/// already, so they are not hashed again.
#[derive(Default, Clone)]
pub(super) struct LineIndex {
    table: hashbrown::HashTable<u32>,
    /// By record index: the hash of the uuid its line was indexed by (0 for a line that was not).
    hashes: Vec<u64>,
    /// By record index: the hash of what makes a line the same line (`Line::sameness`), which
    /// tells a resume's replay from another line that reuses the uuid.
    same: Vec<u64>,
}

impl LineIndex {
    /// The record of the line with this uuid, read first.
    pub fn get(&self, h: u64) -> Option<u32> {
        self.table.find(h, |&r| self.hashes[r as usize] == h).copied()
    }

    pub fn contains(&self, h: u64) -> bool {
        self.get(h).is_some()
    }

    /// The sameness hash of the line first read with this uuid.
    pub fn same_of(&self, record: u32) -> u64 {
        self.same.get(record as usize).copied().unwrap_or(0)
    }

    /// Keeps the first record of a uuid, and what its line is (`same`); a record is indexed by
    /// its own line's uuid only.
    pub fn insert_first(&mut self, h: u64, record: u32, same: u64) {
        let i = record as usize;
        if self.hashes.len() <= i {
            self.hashes.resize(i + 1, 0);
            self.same.resize(i + 1, 0);
        }
        self.same[i] = same;
        debug_assert!(self.hashes[i] == 0 || self.hashes[i] == h, "one uuid a record");
        // Set before the record is in the table (a record that is not put in is never looked at).
        self.hashes[i] = h;
        let hashes = &self.hashes;
        self.table.entry(h, |&r| hashes[r as usize] == h, |&r| hashes[r as usize]).or_insert(record);
    }

    pub fn len(&self) -> usize {
        self.table.len()
    }
}

/// A `Task`/`Agent` call.
#[derive(Clone)]
pub(super) struct Spawn {
    pub id: Box<str>,
    /// The session that made it.
    pub session: Sym,
    pub at: Loc,
    /// The exact hash of `input.prompt`.
    pub prompt: Option<TextHash>,
    pub background: bool,
    pub label: Option<Box<str>>,
    pub result: Option<SpawnResult>,
}

/// The `tool_result` that answers a spawn call.
#[derive(Clone)]
pub(super) struct SpawnResult {
    pub at: TextRef,
    pub is_error: bool,
    /// `toolUseResult.agentId`.
    pub agent: Option<Sym>,
    /// `agentId: <id>` in its text.
    pub text_agent: Option<Sym>,
    /// A background spawn's immediate answer (`status: "async_launched"`).
    pub launched: bool,
    pub received: Option<TextHash>,
}

/// A sub-agent's transcript: a file of its own, or an inline sidechain.
#[derive(Clone)]
pub(super) struct AgentRec {
    pub id: Sym,
    pub first: Loc,
    pub last: Loc,
    pub first_parent: Option<u64>,
    pub prompt: Option<TextHash>,
    /// The `sessionId` its lines carry.
    pub session_hint: Option<Sym>,
    /// The session its place names: `<sessionId>/subagents/`, or the file of an inline chain.
    pub path_root: Option<Sym>,
    pub stopped: bool,
    pub reply: Option<TextHash>,
    pub compaction: bool,
}

#[derive(Clone)]
pub(super) struct Sidecar {
    pub agent: Sym,
    pub at: Loc,
    pub tool_use_id: Option<Box<str>>,
    pub parent_agent: Option<Sym>,
    pub label: Option<Box<str>>,
}

#[derive(Clone)]
pub(super) struct NoticeRec {
    pub at: TextRef,
    pub status: Option<Box<str>>,
    pub result: Option<TextHash>,
    pub copy: bool,
}

/// One kind of evidence for a sub-agent's parent.
#[derive(Clone, Copy)]
struct Evidence {
    link: Link,
    parent: Sym,
    /// The spawn call it names, when it names one.
    call: Option<u32>,
    /// Where it is.
    at: Loc,
}

/// Once every file is read: link each sub-agent to its parent, open its run, and report what
/// disagrees, what is missing and what dangles.
pub(super) fn settle(cx: &mut Ctx) {
    let mut st = std::mem::take(cx.ext::<State>());
    undo(cx, &mut st);
    let before = cx.findings.list.len();
    link_agents(cx, &mut st);
    dangling(cx, &st);
    st.settled_findings = (before..cx.findings.list.len()).collect();
    *cx.ext::<State>() = st;
}

/// Remove what the last settle wrote (findings, received texts), so that settling again after
/// more lines were read replaces it.
fn undo(cx: &mut Ctx, st: &mut State) {
    for &i in st.settled_findings.iter().rev() {
        if i < cx.findings.list.len() {
            cx.findings.list.remove(i);
        }
    }
    st.settled_findings.clear();
    let mine = std::mem::take(&mut st.settled_agents);
    cx.received.retain(|r| !mine.contains(&r.session));
    for key in st.settled_spawns.drain(..) {
        cx.spawns.remove(&key);
    }
}

fn link_agents(cx: &mut Ctx, st: &mut State) {
    // One record per sub-agent (the first, should one appear in two files), in id order: what
    // settles does not depend on the order the files were read in.
    let mut agents: Vec<&AgentRec> = Vec::new();
    let mut seen = HashSet::default();
    let mut order: Vec<&AgentRec> = st.agents.iter().collect();
    order.sort_by(|a, b| cx.ids.name(a.id).cmp(cx.ids.name(b.id)).then(a.first.cmp(&b.first)));
    for a in order {
        if seen.insert(a.id) {
            agents.push(a);
        }
    }
    let mut sidecar_of: HashMap<Sym, &Sidecar> = HashMap::default();
    for s in &st.sidecars {
        sidecar_of.entry(s.agent).or_insert(s);
    }
    let call_name = |c: u32| -> &str { &st.spawns[c as usize].id };
    let mut by_result: HashMap<Sym, u32> = HashMap::default();
    let mut by_text: HashMap<Sym, u32> = HashMap::default();
    let mut by_prompt: HashMap<TextHash, Vec<u32>> = HashMap::default();
    for (i, s) in st.spawns.iter().enumerate() {
        let i = i as u32;
        if let Some(r) = &s.result {
            for (map, who) in [(&mut by_result, r.agent), (&mut by_text, r.text_agent)] {
                if let Some(a) = who {
                    let e = map.entry(a).or_insert(i);
                    if call_name(i) < call_name(*e) {
                        *e = i;
                    }
                }
            }
        }
        if let Some(p) = s.prompt {
            by_prompt.entry(p).or_default().push(i);
        }
    }

    // The evidence stronger than a prompt, for every sub-agent; the calls those links claim.
    let mut found: Vec<Vec<Evidence>> = Vec::with_capacity(agents.len());
    let mut claimed: HashSet<u32> = HashSet::default();
    let mut meta_conflicts = Vec::new();
    for a in &agents {
        let mut evs = Vec::new();
        if let Some(s) = sidecar_of.get(&a.id) {
            match s.tool_use_id.as_deref().and_then(|t| st.spawn_ix.get(t)) {
                Some(&c) => {
                    let parent = st.spawns[c as usize].session;
                    evs.push(Evidence { link: Link::Meta, parent, call: Some(c), at: s.at });
                    if let Some(pa) = s.parent_agent.filter(|&pa| pa != parent) {
                        meta_conflicts.push((a.id, s.at, pa, parent));
                    }
                }
                None => {
                    if let Some(pa) = s.parent_agent.filter(|&pa| cx.graph.contains(pa)) {
                        evs.push(Evidence { link: Link::Meta, parent: pa, call: None, at: s.at });
                    }
                }
            }
        }
        for (map, link) in [(&by_result, Link::ToolResult), (&by_text, Link::ResultText)] {
            if let Some(&c) = map.get(&a.id) {
                let s = &st.spawns[c as usize];
                let at = s.result.as_ref().map_or(s.at, |r| r.at.at);
                evs.push(Evidence { link, parent: s.session, call: Some(c), at });
            }
        }
        let named = a.first_parent.and_then(|p| st.lines.get(p)).and_then(|r| cx.records.get(r as usize));
        if let Some(sym) = named.map(|r| r.session).filter(|&s| s != crate::ctx::NO_SESSION).map(Sym) {
            if sym != a.id && cx.graph.contains(sym) {
                evs.push(Evidence { link: Link::ParentUuid, parent: sym, call: None, at: a.first });
            }
        }
        if let Some(c) = evs.first().and_then(|e| e.call) {
            claimed.insert(c);
        }
        found.push(evs);
    }
    // A prompt links to exactly one call that no stronger link claims for another sub-agent.
    for (a, evs) in agents.iter().zip(&mut found) {
        let own = evs.first().and_then(|e| e.call);
        let Some(calls) = a.prompt.and_then(|p| by_prompt.get(&p)) else { continue };
        let open: Vec<u32> = calls.iter().copied().filter(|c| !claimed.contains(c) || own == Some(*c)).collect();
        if let [c] = open[..] {
            evs.push(Evidence { link: Link::Prompt, parent: st.spawns[c as usize].session, call: Some(c), at: a.first });
        }
    }

    for (id, at, pa, parent) in meta_conflicts {
        let (n, p, q) = (cx.ids.name(id).to_owned(), cx.ids.name(pa).to_owned(), cx.ids.name(parent).to_owned());
        cx.findings.add(
            Code::SubagentLinksDisagree,
            at,
            Some(id),
            format!("the sidecar of `{n}` names parentAgentId `{p}`, but its toolUseId names a call of `{q}`: the call stands"),
        );
    }

    let mut ancestry = Ancestry::default();
    // The calls some evidence ties a loaded sub-agent to, the weaker evidence of a disagreement
    // included; and per parent, how many sub-agents hang under it by inference alone.
    let mut linked: HashSet<u32> = found.iter().flatten().filter_map(|e| e.call).collect();
    let mut inferred_under: HashMap<Sym, u32> = HashMap::default();
    for (a, evs) in agents.iter().zip(&found) {
        let name = cx.ids.name(a.id).to_owned();
        let winner = evs.first().copied();
        if let Some(w) = winner {
            for e in &evs[1..] {
                let differs = match (e.call, w.call) {
                    (Some(x), Some(y)) => x != y,
                    _ => e.parent != w.parent,
                };
                if differs {
                    let what = |e: &Evidence| match e.call {
                        Some(c) => format!("call `{}` of `{}`", call_name(c), cx.ids.name(e.parent)),
                        None => format!("`{}`", cx.ids.name(e.parent)),
                    };
                    let msg = format!(
                        "{} evidence ties `{name}` to {}, but {} evidence ties it to {}: the {} link stands",
                        e.link.as_str(),
                        what(e),
                        w.link.as_str(),
                        what(&w),
                        w.link.as_str()
                    );
                    cx.findings.add(Code::SubagentLinksDisagree, e.at, Some(a.id), msg);
                }
            }
        }
        let (parent, link, at) = match winner {
            Some(w) => (Some(w.parent), w.link, w.at),
            None => {
                let parent = inferred_parent(cx, a, &name);
                if let Some(p) = parent {
                    *inferred_under.entry(p).or_default() += 1;
                }
                (parent, Link::Inferred, a.first)
            }
        };
        if let Some(p) = parent {
            if ancestry.would_cycle(a.id, p) {
                let pn = cx.ids.name(p).to_owned();
                cx.findings.add(
                    Code::AncestryCycle,
                    at,
                    Some(a.id),
                    format!("the {} link makes `{pn}` the parent of `{name}`, which makes `{name}` its own ancestor", link.as_str()),
                );
            }
            if p != a.id {
                ancestry.set_parent(a.id, p);
            }
        }
        let spawn = winner.and_then(|w| w.call).map(|c| &st.spawns[c as usize]);
        if let Some(c) = winner.and_then(|w| w.call) {
            linked.insert(c);
            // The transcript finds the child of a spawn call, and of its result, here.
            let key = (st.spawns[c as usize].session, std::sync::Arc::from(&*st.spawns[c as usize].id));
            cx.spawns.insert(key.clone(), a.id);
            st.settled_spawns.push(key);
        }
        let (end, outcome, received) = run_end(st, a, &name, spawn);
        let node = cx.graph.session(a.id);
        if node.runs.is_empty() {
            cx.graph.open_run(a.id, parent, Some(a.first), link);
        }
        let node = cx.graph.session(a.id);
        node.parent = parent;
        node.inferred_parent = link == Link::Inferred;
        if let Some(run) = node.runs.first_mut() {
            (run.parent, run.start, run.end, run.outcome, run.link) = (parent, Some(a.first), Some(end), outcome, link);
        }
        let label = sidecar_of
            .get(&a.id)
            .and_then(|s| s.label.as_deref())
            .or(spawn.and_then(|s| s.label.as_deref()))
            .or(a.compaction.then_some("compaction"));
        if let Some(l) = label {
            cx.graph.set_label(a.id, l);
        }
        if let (Some(s), Some((at, hash))) = (spawn, received) {
            cx.received.push(ReceivedRec { session: a.id, run: 0, at, key: Some(s.id.clone()) });
            st.settled_agents.insert(a.id);
            if let (Some(got), Some(reply)) = (hash, a.reply) {
                if got != reply {
                    cx.findings.add(
                        Code::SubagentReplyDiffers,
                        at.at,
                        Some(a.id),
                        format!("what the parent received from `{name}` differs from the sub-agent's last reply (whitespace and the appended agentId and usage lines aside)"),
                    );
                }
            }
        }
    }

    // A call no evidence links is answered by a sub-agent hung under its session by inference,
    // when there is one left (the first such calls, in the order they were made); the others
    // have no transcript among the loaded files.
    for (i, s) in st.spawns.iter().enumerate() {
        if linked.contains(&(i as u32)) || s.result.as_ref().is_some_and(|r| r.is_error) {
            continue;
        }
        if let Some(n) = inferred_under.get_mut(&s.session).filter(|n| **n > 0) {
            *n -= 1;
            continue;
        }
        cx.findings.add(
            Code::SubagentTranscriptMissing,
            s.at,
            Some(s.session),
            format!("the spawn call `{}` has no sub-agent transcript among the loaded files", s.id),
        );
    }
}

/// Nothing links the sub-agent: its parent is the root its place or its lines name, when that
/// session is loaded. Otherwise it keeps that parent (not loaded: no root, no depth).
fn inferred_parent(cx: &mut Ctx, a: &AgentRec, name: &str) -> Option<Sym> {
    let loaded = |s: &Option<Sym>| s.filter(|&s| s != a.id && cx.graph.contains(s));
    match loaded(&a.path_root).or(loaded(&a.session_hint)) {
        Some(root) => {
            let rn = cx.ids.name(root).to_owned();
            cx.findings.add(
                Code::SubagentLinkInferred,
                a.first,
                Some(a.id),
                format!("no sidecar, tool result, agentId text, parentUuid or prompt links `{name}` to a spawn call: hung under the root `{rn}`"),
            );
            Some(root)
        }
        None => {
            let missing = a.path_root.or(a.session_hint).filter(|&s| s != a.id);
            match missing {
                Some(m) => {
                    let mn = cx.ids.name(m).to_owned();
                    cx.findings.add(
                        Code::MissingParentSession,
                        a.first,
                        Some(a.id),
                        format!("the session `{mn}` that sub-agent `{name}` belongs to is not loaded: its parent is unknown"),
                    );
                }
                None => cx.findings.add(
                    Code::SubagentLinkInferred,
                    a.first,
                    Some(a.id),
                    format!("nothing links `{name}` to a parent, and no root is known: it stands alone"),
                ),
            }
            missing
        }
    }
}

/// Where a sub-agent's run ends, its outcome, and what its parent received (where, and the
/// text's hash): a background spawn ends at its `<task-notification>`; any other at its last
/// line, `ok` unless the spawn's result is an error, and with no result `ok` only when its last
/// assistant line stopped.
fn run_end(
    st: &State,
    a: &AgentRec,
    name: &str,
    spawn: Option<&Spawn>,
) -> (Loc, Outcome, Option<(TextRef, Option<TextHash>)>) {
    let result = spawn.and_then(|s| s.result.as_ref());
    let background = spawn.is_some_and(|s| s.background) || result.is_some_and(|r| r.launched);
    if background {
        let by_call = spawn.and_then(|s| st.notices.get(format!("t:{}", s.id).as_str()));
        // The task id of an agent's notification is its agentId.
        let by_task = || st.notices.get(format!("a:{name}").as_str());
        return match by_call.or_else(by_task) {
            Some(n) => {
                let outcome = match n.status.as_deref() {
                    Some("failed" | "error") => Outcome::Error,
                    Some("killed" | "cancelled" | "stopped") => Outcome::Cancelled,
                    _ => Outcome::Ok,
                };
                (n.at.at, outcome, Some((n.at, n.result)))
            }
            None => (a.last, Outcome::Open, result.map(|r| (r.at, None))),
        };
    }
    let outcome = match result {
        Some(r) if r.is_error => Outcome::Error,
        Some(_) => Outcome::Ok,
        None if a.stopped => Outcome::Ok,
        None => Outcome::Open,
    };
    (a.last, outcome, result.map(|r| (r.at, if r.is_error { None } else { r.received })))
}

/// `parentUuid`s that name no line of the loaded files: once per file, with the count.
fn dangling(cx: &mut Ctx, st: &State) {
    let mut per_file: std::collections::BTreeMap<u32, (u64, Loc)> = Default::default();
    for &(p, at) in &st.pending_parents {
        if st.lines.contains(p) {
            continue;
        }
        let e = per_file.entry(at.file).or_insert((0, at));
        e.0 += 1;
        e.1 = e.1.min(at);
    }
    for (_, (n, at)) in per_file {
        let session = cx.find_record(at).map(|i| cx.records[i].session).filter(|&s| s != crate::ctx::NO_SESSION);
        let lines = if n == 1 { "line names".to_owned() } else { format!("{n} lines name") };
        cx.findings.add(
            Code::DanglingParentUuid,
            at,
            session.map(Sym),
            format!("{lines} a parentUuid that is no line of the loaded files (a file is missing, or was cut)"),
        );
    }
}
