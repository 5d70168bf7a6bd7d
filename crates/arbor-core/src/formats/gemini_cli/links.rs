//! The links between session files, settled once all are read (SPEC 2.6): a sub-agent's
//! session id is the `agentId` its parent's tool call records (`tool-call`, the direct parent);
//! else the folder it lies in (`chats/<root session id>/`) names the root (`folder`); else
//! nothing does (`inferred`: files of 2026-02/03 lie flat): it hangs under the main session of
//! its folder that was running when it started, or stands alone. A child linked by its call
//! whose last reply differs from what that call received is `subagent-reply-differs` (`reply`).

use crate::ctx::{Ctx, ReceivedRec};
use crate::finding::{Code, Loc, Template};
use crate::intern::{HashMap, HashSet, Sym};
use crate::report::{Link, Outcome};

/// A tool call of a `gemini` message, as `settle` needs it.
#[derive(Debug, Clone)]
pub(super) struct Call {
    pub(super) id: Box<str>,
    pub(super) name: Box<str>,
    pub(super) label: Option<Box<str>>,
    pub(super) status: Option<Box<str>>,
    /// The sub-agent it ran.
    pub(super) agent: Option<Box<str>>,
    /// What it received from that sub-agent, the producer's lines aside, as a loose hash.
    pub(super) received: Option<u64>,
    pub(super) at: Loc,
    pub(super) record: u32,
}

/// What one session file leaves for `settle`.
#[derive(Debug, Clone)]
pub(super) struct Facts {
    pub(super) session: Sym,
    /// Its last reply, as a loose hash (`reply`).
    pub(super) reply: Option<u64>,
    pub(super) subagent: bool,
    /// The folder it lies in (`Files::folders`): a tree's files share their root's.
    pub(super) folder: Option<Sym>,
    pub(super) first: Option<Loc>,
    pub(super) last: Option<Loc>,
    /// Its first and last times, NaN for none.
    pub(super) start: f64,
    pub(super) end: f64,
    /// How its history ends, when it says (a last reply without calls, an error notice).
    pub(super) outcome: Option<Outcome>,
    /// Its tool calls that ran a sub-agent (`agent`).
    pub(super) calls: Vec<Call>,
    /// Read again since (its file grew): these facts are stale, and go at the next `settle`.
    pub(super) gone: bool,
}

/// Every Gemini CLI session read, and what settling told already.
#[derive(Debug, Clone, Default)]
pub(super) struct Files {
    /// Each session's facts in the order its file was (last) read.
    list: Vec<Facts>,
    /// The folders the files lie in, each once.
    pub(super) folders: crate::intern::Interner,
    /// Where each session's live facts are in `list`, and how many there are stale.
    at: HashMap<Sym, usize>,
    stale: usize,
    linked: HashMap<Sym, (Option<Sym>, Link, usize)>,
    /// Findings told already, as a hash of their code, session, place and message (a settle
    /// again after more was read tells each once; the message itself is in the findings, not
    /// again here; 8 bytes a finding where the tuple with the message's hash took 32).
    told: HashSet<u64>,
}

impl Files {
    /// A session's facts, in place of what it said before: they go last, as a session read again
    /// is. In constant time (a tree of 200,000 session files read in quadratic time before: 134 s
    /// for 1 GiB).
    pub(super) fn put(&mut self, facts: Facts) {
        if let Some(i) = self.at.insert(facts.session, self.list.len()) {
            self.list[i].gone = true;
            self.stale += 1;
        }
        self.list.push(facts);
    }

    /// Drops the stale facts (keeping the order of the others).
    fn compact(&mut self) {
        if self.stale > 0 {
            self.list.retain(|f| !f.gone);
            self.at = self.list.iter().enumerate().map(|(i, f)| (f.session, i)).collect();
            self.stale = 0;
        }
    }

    /// A finding told once a settle (`told`), its message `template`'s words with `fill`'s:
    /// a tree tells most of these of every sub-agent, so only their own words are kept.
    fn tell(&mut self, cx: &mut Ctx, code: Code, at: Loc, session: Sym, template: &'static Template, fill: &[&str]) {
        let said = {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            (code as u32, session, at, std::ptr::from_ref(template), fill).hash(&mut h);
            h.finish()
        };
        if self.told.insert(said) {
            cx.findings.add_filled(code, at, Some(session), template, fill);
        }
    }
}

/// The words of what `settle` tells, each with a place for the log's own between two.
static REPLY_DIFFERS: Template = Template(&[
    "what `",
    "` received from sub-agent `",
    "` (call `",
    "`) differs from the sub-agent's last reply (whitespace and the lines the harness puts before it aside)",
]);
static FOLDER_NAMES_ROOT: Template = Template(&[
    "sub-agent `",
    "` lies in the folder of `",
    "`, the root, but its parent is `",
    "` (the call that ran it): a reader that takes the folder for the parent hangs it one level too high",
]);
static HUNG_UNDER_HOST: Template = Template(&[
    "no tool call names sub-agent `",
    "` and its file lies in no folder of a loaded session: hung under `",
    "`, the main session running when it started",
]);
static STANDS_ALONE: Template =
    Template(&["no tool call or folder links sub-agent `", "` to its parent: it stands alone"]);
static NOT_LOADED: Template =
    Template(&["`", "` ran sub-agent `", "` (call `", "`, tool `", "`), whose session file is not loaded"]);

fn outcome_of(status: Option<&str>) -> Outcome {
    match status {
        Some("success") => Outcome::Ok,
        Some("cancelled") => Outcome::Cancelled,
        Some("error") => Outcome::Error,
        _ => Outcome::Open,
    }
}

pub(super) fn settle(cx: &mut Ctx) {
    let mut st = std::mem::take(cx.ext::<Files>());
    st.compact();
    // What is received already (a settle again after more was read): each call once. A settle
    // links each session once, so what it adds needs no place here.
    let received: HashSet<(Sym, Option<Box<str>>)> = cx.received.iter().map(|r| (r.session, r.key.clone())).collect();
    // Which file links to which, and the calls whose sub-agent's file is not loaded: each call as
    // (its file, its place in the file's calls), made into a `Call` one at a time below (the
    // links of a tree of 200,000 sub-agents held a copy of every call that ran one at once).
    let mut links = Vec::new();
    let mut missing: Vec<(usize, usize)> = Vec::new();
    {
        let by_name: HashMap<&str, usize> =
            st.list.iter().enumerate().map(|(i, f)| (cx.ids.name(f.session), i)).collect();
        // agentId → (the file whose call ran it, the call).
        let mut ran: HashMap<&str, (usize, usize)> = HashMap::default();
        for (i, f) in st.list.iter().enumerate() {
            for (k, c) in f.calls.iter().enumerate() {
                if let Some(a) = c.agent.as_deref() {
                    ran.entry(a).or_insert((i, k));
                }
            }
        }
        for (i, f) in st.list.iter().enumerate() {
            let call = ran.get(cx.ids.name(f.session)).filter(|(p, _)| *p != i).copied();
            let folder_root = f.folder.and_then(|d| by_name.get(st.folders.name(d))).copied().filter(|&r| r != i);
            if call.is_none() && !f.subagent && folder_root.is_none() {
                continue;
            }
            let (parent, link) = match (call, folder_root) {
                (Some((p, _)), _) => (Some(p), Link::ToolCall),
                (None, Some(r)) => (Some(r), Link::Folder),
                (None, None) => {
                    // A flat sub-agent file: the main session running when it started, if one is.
                    let t = Some(f.start).filter(|t| !t.is_nan());
                    let host = st.list.iter().position(|m| {
                        !m.subagent
                            && m.session != f.session
                            && t.is_some_and(|t| m.start <= t && t <= m.end)
                    });
                    (host, Link::Inferred)
                }
            };
            links.push(Found::of(i, parent, link, call, folder_root));
        }
        for (i, f) in st.list.iter().enumerate() {
            for (k, c) in f.calls.iter().enumerate() {
                if c.agent.as_deref().is_some_and(|a| !by_name.contains_key(a)) {
                    missing.push((i, k));
                }
            }
        }
    }
    /// What the linking below reads of a file's facts (a copy of them all was made for each).
    struct Linked {
        session: Sym,
        first: Option<Loc>,
        last: Option<Loc>,
        outcome: Option<Outcome>,
        reply: Option<u64>,
    }
    for found in links {
        let (i, parent, link, call, folder_root) = (found.file as usize, found.parent(), found.link, found.call(), found.folder_root());
        let f = &st.list[i];
        let f = Linked { session: f.session, first: f.first, last: f.last, outcome: f.outcome, reply: f.reply };
        let call = call.map(|(p, k)| st.list[p].calls[k].clone());
        let parent_sym = parent.map(|p| st.list[p].session);
        let run = match st.linked.get(&f.session) {
            Some(&(p, l, run)) if p == parent_sym && l == link => run,
            _ => cx.graph.open_run(f.session, parent_sym, f.first, link),
        };
        st.linked.insert(f.session, (parent_sym, link, run));
        let outcome = match &call {
            Some(c) => outcome_of(c.status.as_deref()),
            None => f.outcome.unwrap_or(Outcome::Open),
        };
        let node = cx.graph.session(f.session);
        if let Some(r) = node.runs.get_mut(run) {
            r.end = f.last;
            r.outcome = outcome;
        }
        let child = cx.ids.name(f.session).to_owned();
        let at = f.first.unwrap_or(Loc { file: 0, line: 1 });
        match (&call, parent_sym) {
            (Some(c), Some(p)) => {
                if let Some(l) = &c.label {
                    cx.graph.set_label(f.session, l);
                }
                cx.spawns.insert((p, std::sync::Arc::from(&*c.id)), f.session);
                if let Some(text) = cx.text_ref(c.record) {
                    let rec = ReceivedRec { session: f.session, run: run as u32, at: text, key: Some(c.id.clone()) };
                    if received.is_empty() || !received.contains(&(rec.session, rec.key.clone())) {
                        cx.received.push(rec);
                    }
                }
                if let (Some(got), Some(said)) = (c.received, f.reply) {
                    if got != said {
                        let parent = cx.ids.name(p).to_owned();
                        st.tell(cx, Code::SubagentReplyDiffers, c.at, f.session, &REPLY_DIFFERS, &[&parent, &child, &c.id]);
                    }
                }
                if let Some(r) = folder_root.filter(|&r| Some(r) != parent) {
                    let (root, parent) = (cx.ids.name(st.list[r].session).to_owned(), cx.ids.name(p).to_owned());
                    st.tell(cx, Code::FolderNamesRoot, at, f.session, &FOLDER_NAMES_ROOT, &[&child, &root, &parent]);
                }
            }
            (None, _) if link == Link::Inferred => match parent_sym {
                Some(p) => {
                    let host = cx.ids.name(p).to_owned();
                    st.tell(cx, Code::SubagentLinkInferred, at, f.session, &HUNG_UNDER_HOST, &[&child, &host]);
                }
                None => st.tell(cx, Code::SubagentLinkInferred, at, f.session, &STANDS_ALONE, &[&child]),
            },
            _ => {}
        }
    }
    for (i, k) in missing {
        let s = st.list[i].session;
        let c = st.list[i].calls[k].clone();
        let a = c.agent.as_deref().unwrap_or_default();
        let caller = cx.ids.name(s).to_owned();
        st.tell(cx, Code::SubagentTranscriptMissing, c.at, s, &NOT_LOADED, &[&caller, a, &c.id, &c.name]);
    }
    *cx.ext::<Files>() = st;
}

/// One file's link as `settle` found it: the file, its parent's file, the call that ran it (its
/// file and its place in that file's calls), the root its folder names (indices into
/// `Files::list`, `NO` for none): 24 bytes, where a tuple of `usize`s and options took 72 (a tree
/// of 200,000 sub-agents links each).
struct Found {
    file: u32,
    parent: u32,
    call: (u32, u32),
    folder_root: u32,
    link: Link,
}

const NO: u32 = u32::MAX;

impl Found {
    fn of(file: usize, parent: Option<usize>, link: Link, call: Option<(usize, usize)>, folder_root: Option<usize>) -> Found {
        let ix = |i: usize| u32::try_from(i).unwrap_or(NO);
        Found {
            file: ix(file),
            parent: parent.map_or(NO, ix),
            call: call.map_or((NO, NO), |(p, k)| (ix(p), ix(k))),
            folder_root: folder_root.map_or(NO, ix),
            link,
        }
    }

    fn parent(&self) -> Option<usize> {
        index(self.parent)
    }

    fn call(&self) -> Option<(usize, usize)> {
        index(self.call.0).zip(index(self.call.1))
    }

    fn folder_root(&self) -> Option<usize> {
        index(self.folder_root)
    }
}

fn index(i: u32) -> Option<usize> {
    (i != NO).then_some(i as usize)
}
