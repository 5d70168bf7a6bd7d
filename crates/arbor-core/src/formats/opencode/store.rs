//! What OpenCode's records say once they are all read: sessions and their runs, turns, steps,
//! replies and tokens (SPEC 2.7).
//!
//! A record is a row of the store (a session, a message, a part) or one JSON file of the older
//! `storage/` tree; they come in any order (the database's tables one after another, the tree's
//! folders in path order), and a part says its message but not its role. So the machine of a file
//! only records each row where it is, with the few facts the rules need (`Facts`), in the
//! context's slot (`Rows`); `settle` joins them: messages by session in OpenCode's own order
//! (creation time, then id), parts by message in id order, as `MessageV2` reads them back.

use crate::ctx::{Ctx, Kind, ReceivedRec, TextRef};
use crate::finding::{Code, Loc};
use crate::formats::Machine;
use crate::intern::{HashMap, HashSet, Sym};
use crate::report::{Link, Outcome, Usage};
use crate::turns::{StepSpan, TurnId, TurnRec};
use crate::usage::Counts;

use super::reply;
use super::row::{Row, RowShape, What};
use crate::text::loose;

/// The columns each table must have for its rows to be read (the store's schema since its first
/// migration, `20260127222353`); a store without them is of a schema this reader does not know.
const NEEDED: &[(&str, &[&str])] = &[
    ("session", &["id", "parent_id", "title", "directory", "time_created"]),
    ("message", &["id", "session_id", "time_created", "data"]),
    ("part", &["id", "message_id", "session_id", "time_created", "data"]),
];

/// One file's machine: it records each row and keeps its facts for `settle`. A file of a
/// `storage/` tree knows the ids its folders give (a part's message, a message's session), for
/// a document that does not repeat them.
#[derive(Debug, Clone, Default)]
pub(super) struct Reader {
    folder_session: Option<Box<str>>,
    folder_message: Option<Box<str>>,
}

impl Reader {
    pub(super) fn at(place: Option<(&str, &str, Option<&str>)>) -> Reader {
        match place {
            Some((_, "message", Some(session))) => Reader { folder_session: Some(session.into()), folder_message: None },
            Some((_, "part", Some(message))) => Reader { folder_session: None, folder_message: Some(message.into()) },
            _ => Reader::default(),
        }
    }
}

/// Every OpenCode record read, across files (`Ctx::ext`).
#[derive(Debug, Clone, Default)]
pub(super) struct Rows {
    sessions: Vec<SessionFacts>,
    messages: Vec<MessageFacts>,
    parts: Vec<PartFacts>,
    /// The messages' own tokens (`MessageFacts::tokens`); a step-finish part's are noted in the
    /// usage book where it is read (`UsageBook::note_call`).
    tokens: Vec<Counts>,
    /// What `task` tool calls say (`PartFacts::more`).
    tasks: Vec<TaskFacts>,
    /// Text parts' texts as loose hashes (`PartFacts::more`).
    said: Vec<u64>,
    /// Each id and name the facts hold, once: a store's rows repeat their message's and
    /// session's ids, tool names and states.
    names: Names,
    /// The messages' ids (`MessageFacts::id`, `PartFacts::message`), apart from `names`: one a
    /// message, they join parts to messages and order a session's messages, and go once those
    /// are done (half the names' bytes and map of a 1 GiB store, held through `settle`).
    message_ids: Names,
    /// The parts' own ids, end to end (`PartFacts::id`): each is said once, so a map to hold it
    /// once would cost more than the text.
    part_ids: Vec<u8>,
    settled: bool,
}

/// A name held in `Names`; `Nm::NONE` for none (an absent or empty one).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Nm(u32);

impl Nm {
    const NONE: Nm = Nm(0);

    fn is_some(self) -> bool {
        self != Nm::NONE
    }
}

/// The names the facts hold, each once, named by a 4-byte `Nm` (a part's five names as shared
/// pointers were 80 bytes of its facts).
#[derive(Debug, Clone)]
struct Names(crate::intern::Interner);

impl Default for Names {
    fn default() -> Self {
        let mut names = crate::intern::Interner::default();
        // Symbol 0 is the empty name: `Nm::NONE`.
        names.intern("");
        Names(names)
    }
}

impl Names {
    fn put(&mut self, s: Option<&str>) -> Nm {
        match s {
            Some(s) if !s.is_empty() => Nm(self.0.intern(s).0),
            _ => Nm::NONE,
        }
    }

    fn get(&self, n: Nm) -> Option<&str> {
        n.is_some().then(|| self.0.name(Sym(n.0)))
    }
}

#[derive(Debug, Clone)]
struct SessionFacts {
    id: Sym,
    at: Loc,
    parent: Nm,
}

/// One message's facts (its place is its record's: `Ctx::loc_of`).
#[derive(Debug, Clone)]
struct MessageFacts {
    id: Nm,
    session: Nm,
    rec: u32,
    user: bool,
    completed: bool,
    created: f64,
    model: Nm,
    agent: Nm,
    finish: Nm,
    error: Nm,
    /// Its own `tokens` (`Rows::tokens`), `NONE` for none.
    tokens: u32,
}

/// No entry of `Rows::tokens` or `Rows::tasks`.
const NONE: u32 = u32::MAX;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PartKind {
    Text,
    Reasoning,
    Tool,
    StepStart,
    StepFinish,
    Compaction,
    Subtask,
    File,
    Retry,
    Other,
}

/// One part's facts: 20 bytes (a store is mostly parts; its place is its record's,
/// `Ctx::loc_of`, its session its record's), what only a text part or a `task` call says in
/// `Rows` (`more`), a step-finish's tokens in the usage book.
#[derive(Debug, Clone)]
struct PartFacts {
    /// Its id: where it starts in `Rows::part_ids`, and its length (the first 65,535 bytes of
    /// a longer one; none past the first 4 GiB of ids, which then order by their records).
    id_at: u32,
    id_len: u16,
    kind: PartKind,
    /// `SYNTHETIC`, `HAS_TEXT`, `HAS_SESSION`.
    flags: u8,
    message: Nm,
    rec: u32,
    /// A text part's hash (`Rows::said`), a `task` tool call's facts (`Rows::tasks`), else
    /// `NONE`.
    more: u32,
}

/// `message-tokens-last-step`'s words: a count of messages, the session, the tokens missed.
static TOKENS_LAST_STEP: crate::finding::Template = crate::finding::Template(&[
    "",
    " assistant message(s) of `",
    "` made several model calls, and each message's `tokens` are only its last call's: a reader that adds up messages' tokens misses ",
    " tokens (Arbor counts each call's step-finish)",
]);

/// Text that only the harness wrote (a synthetic or ignored text part).
const SYNTHETIC: u8 = 1;
/// A text that is not only whitespace.
const HAS_TEXT: u8 = 2;
/// Its row named its session (else it takes its message's).
const HAS_SESSION: u8 = 4;
/// Its id is OpenCode's own shape, held packed (`put_id`).
const PACKED_ID: u8 = 8;

/// Puts a part's id at the end of `out`: an id as OpenCode makes them (`prt_`, 12 lowercase hex
/// digits of its time and counter, then 14 random characters: 30 bytes) in 20, the prefix left
/// out and the hex digits two to a byte, which order as the digits do (the ids are only for
/// ordering a message's parts, and a 1 GiB store's 1.75 M of them were 52 MB at the read's end,
/// its peak); an id of another shape as it is. True when it was packed.
fn put_id(id: &[u8], out: &mut Vec<u8>) -> bool {
    let digit = |c: u8| match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    };
    let mut packed = [0u8; 6];
    let hex = id.strip_prefix(b"prt_").and_then(|rest| rest.get(..12));
    let is_packed = hex.is_some_and(|hex| {
        hex.chunks(2).zip(&mut packed).all(|(pair, byte)| match (digit(pair[0]), digit(pair[1])) {
            (Some(high), Some(low)) => {
                *byte = high << 4 | low;
                true
            }
            _ => false,
        })
    });
    if is_packed {
        out.extend_from_slice(&packed);
        out.extend_from_slice(&id[16..]);
    } else {
        out.extend_from_slice(id);
    }
    is_packed
}

/// A packed id (`put_id`) as it was.
fn unpack_id(packed: &[u8]) -> Vec<u8> {
    let (hex, rest) = packed.split_at(packed.len().min(6));
    let mut id = b"prt_".to_vec();
    for b in hex {
        id.extend_from_slice(format!("{b:02x}").as_bytes());
    }
    id.extend_from_slice(rest);
    id
}

#[derive(Debug, Clone)]
struct TaskFacts {
    call: Nm,
    status: Status,
    /// Its child session: `state.metadata.sessionId`, else the `task_id:` its output starts with.
    child: Nm,
    /// The child's agent (`state.input.subagent_type`).
    agent: Nm,
    /// The calling session: its row's, else its message's (`settle`).
    session: Nm,
    /// When the call ended (`state.time.end`): the child's reply then is what it returned.
    end: Option<f64>,
    /// What a completed call received (its output, the producer's lines aside), as a loose hash.
    said: Option<u64>,
}

/// A tool call's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Status {
    None,
    Completed,
    Error,
    Other,
}

impl PartFacts {
    fn id<'a>(&self, ids: &'a [u8]) -> &'a [u8] {
        ids.get(self.id_at as usize..self.id_at as usize + self.id_len as usize).unwrap_or_default()
    }

    /// Its id against `other`'s, as the ids' bytes order (a packed id, `put_id`, as it was).
    fn cmp_id(&self, other: &PartFacts, ids: &[u8]) -> std::cmp::Ordering {
        let (x, y) = (self.id(ids), other.id(ids));
        match (self.flags & PACKED_ID != 0, other.flags & PACKED_ID != 0) {
            // Both packed: the same prefix, then the digits (as their bytes order), then the rest.
            (true, true) | (false, false) => x.cmp(y),
            (true, false) => unpack_id(x).as_slice().cmp(y),
            (false, true) => x.cmp(unpack_id(y).as_slice()),
        }
    }
}

/// What `settle` reads of a part once each message's parts are in order: its facts but its id
/// and message.
#[derive(Debug, Clone, Copy)]
struct Part {
    rec: u32,
    more: u32,
    kind: PartKind,
    flags: u8,
}

impl Part {
    fn of(p: PartFacts) -> Part {
        Part { rec: p.rec, more: p.more, kind: p.kind, flags: p.flags }
    }

    /// A text part's text, as a loose hash.
    fn said(&self, said: &[u64]) -> Option<u64> {
        (self.kind == PartKind::Text).then(|| said.get(self.more as usize).copied()).flatten()
    }

    fn synthetic(&self) -> bool {
        self.flags & SYNTHETIC != 0
    }

    fn has_text(&self) -> bool {
        self.flags & HAS_TEXT != 0
    }

    /// A `task` tool call's facts.
    fn task<'a>(&self, tasks: &'a [TaskFacts]) -> Option<&'a TaskFacts> {
        (self.kind == PartKind::Tool).then(|| tasks.get(self.more as usize)).flatten()
    }
}

fn count(n: crate::wire::Num) -> u64 {
    n.get().filter(|v| *v > 0.0 && v.is_finite()).map_or(0, |v| v as u64)
}

/// A call's (or a message's) tokens as SPEC 4 counts them: input without the cache, output with
/// the reasoning; its recorded cost, where it is one (OpenCode records 0 for a model it has no
/// price for: the price table then prices it).
fn usage_of(t: &super::row::Tokens, cost: crate::wire::Num) -> Usage {
    let cache = t.cache.0.as_ref();
    Usage {
        input: count(t.input),
        output: count(t.output).saturating_add(count(t.reasoning)),
        cache_read: cache.map_or(0, |c| count(c.read)),
        cache_write: cache.map_or(0, |c| count(c.write)),
        cost: cost.get().filter(|c| *c > 0.0 && c.is_finite()),
        unpriced: None,
    }
}

/// The child a task call names in its output (`task_id: <id> (for resuming …)`).
fn task_id(output: &str) -> Option<&str> {
    let rest = output.trim_start().strip_prefix("task_id:")?.trim_start();
    let id = rest.split(|c: char| c.is_whitespace()).next()?;
    (!id.is_empty()).then_some(id)
}

impl Machine for Reader {
    type Shape = RowShape;

    fn line(&mut self, cx: &mut Ctx, row: &Row<'_>, at: Loc, offset: u64) {
        let what = row.what();
        let doc = row.doc();
        let created = row
            .time_created
            .get()
            .or_else(|| doc.time.0.as_ref().and_then(|t| t.created.get().or(t.start.get())))
            .or_else(|| row.doc.time.0.as_ref().and_then(|t| t.created.get()));
        match what {
            What::Header => {
                cx.record(at, offset, None, Kind::Header, None);
                let missing = missing_columns(row);
                if !missing.is_empty() {
                    cx.findings.add(
                        Code::UnknownSchema,
                        at,
                        None,
                        format!(
                            "the store's schema is not one this reader knows: it has no {}; its rows are read as far as they can be",
                            missing.join(", ")
                        ),
                    );
                }
            }
            What::Session => {
                let Some(id) = row.id() else {
                    cx.record(at, offset, None, Kind::Other, created);
                    return;
                };
                let s = cx.sym(id, at);
                cx.graph.session(s);
                cx.record(at, offset, Some(s), Kind::Header, created);
                let rows = cx.ext::<Rows>();
                let parent = rows.names.put(row.parent_id.non_empty().or(row.doc.parent_id.non_empty()));
                rows.sessions.push(SessionFacts { id: s, at, parent });
            }
            What::Message => {
                let session = row.session().or(self.folder_session.as_deref());
                let s = session.map(|id| session_at(cx, id, at));
                cx.record(at, offset, s, Kind::Other, created);
                let rec = cx.last_record();
                let Some(id) = row.id().or(row.doc().id.non_empty()) else { return };
                let model = doc.model_id.non_empty().or_else(|| doc.model.0.as_ref().and_then(|m| m.model_id.non_empty()));
                let tokens = doc.tokens.0.as_ref().map(|t| usage_of(t, doc.cost));
                let rows = cx.ext::<Rows>();
                let tokens = tokens.map_or(NONE, |u| {
                    rows.tokens.push(Counts::of(&u));
                    (rows.tokens.len() - 1) as u32
                });
                let id = rows.message_ids.put(Some(id));
                let n = &mut rows.names;
                let m = MessageFacts {
                    id,
                    session: n.put(session),
                    rec,
                    user: doc.role.as_str() == Some("user"),
                    completed: doc.time.0.as_ref().is_some_and(|t| t.completed.get().is_some()),
                    created: created.unwrap_or(f64::NAN),
                    model: n.put(model),
                    agent: n.put(doc.agent.as_str()),
                    finish: n.put(doc.finish.as_str()),
                    error: doc.error.0.as_ref().map_or(Nm::NONE, |e| n.put(Some(e.name.as_str().unwrap_or("error")))),
                    tokens,
                };
                rows.messages.push(m);
            }
            What::Part => {
                let session = row.session();
                let s = session.map(|id| session_at(cx, id, at));
                let time = doc.time.0.as_ref().and_then(|t| t.start.get()).or(created);
                cx.record(at, offset, s, Kind::Other, time);
                let rec = cx.last_record();
                let kind = match doc.kind.as_str().unwrap_or("") {
                    "text" => PartKind::Text,
                    "reasoning" => PartKind::Reasoning,
                    "tool" => PartKind::Tool,
                    "step-start" => PartKind::StepStart,
                    "step-finish" => PartKind::StepFinish,
                    "compaction" => PartKind::Compaction,
                    "subtask" => PartKind::Subtask,
                    "file" => PartKind::File,
                    "retry" => PartKind::Retry,
                    _ => PartKind::Other,
                };
                let state = doc.state.0.as_ref();
                let task = (kind == PartKind::Tool && doc.tool.non_empty() == Some("task")).then_some(state);
                let rows = cx.ext::<Rows>();
                let n = &mut rows.names;
                let task = task.map(|state| {
                    let status = match state.and_then(|s| s.status.as_str()) {
                        None | Some("") => Status::None,
                        Some("completed") => Status::Completed,
                        Some("error") => Status::Error,
                        Some(_) => Status::Other,
                    };
                    let child = state.and_then(|st| {
                        st.metadata.0.as_ref().and_then(|m| m.session_id.non_empty()).or_else(|| st.output.as_str().and_then(task_id))
                    });
                    TaskFacts {
                        session: n.put(session),
                        call: n.put(doc.call_id.as_str()),
                        status,
                        child: n.put(child),
                        agent: n.put(state.and_then(|s| s.input.0.as_ref()).and_then(|i| i.subagent_type.as_str())),
                        end: state.and_then(|s| s.time.0.as_ref()).and_then(|t| t.end.get()),
                        said: (status == Status::Completed)
                            .then(|| state.and_then(|s| s.output.as_str()).and_then(reply::unwrapped).map(loose::hash))
                            .flatten(),
                    }
                });
                let id = row.id().or(doc.id.non_empty()).unwrap_or("").as_bytes();
                let id = &id[..id.len().min(u16::MAX as usize)];
                let mut flags = 0;
                let (id_at, id_len) = match u32::try_from(rows.part_ids.len() + id.len()) {
                    Ok(_) => {
                        let at = rows.part_ids.len();
                        if put_id(id, &mut rows.part_ids) {
                            flags |= PACKED_ID;
                        }
                        (at as u32, (rows.part_ids.len() - at) as u16)
                    }
                    Err(_) => (0, 0),
                };
                if doc.synthetic.0 == Some(true) || doc.ignored.0 == Some(true) {
                    flags |= SYNTHETIC;
                }
                if doc.text.as_str().is_some_and(|t| !t.trim().is_empty()) {
                    flags |= HAS_TEXT;
                }
                if session.is_some() {
                    flags |= HAS_SESSION;
                }
                let more = match (kind, task) {
                    (PartKind::Text, _) => match doc.text.as_str() {
                        Some(text) => {
                            rows.said.push(loose::hash(text));
                            (rows.said.len() - 1) as u32
                        }
                        None => NONE,
                    },
                    (PartKind::Tool, Some(t)) => {
                        rows.tasks.push(t);
                        (rows.tasks.len() - 1) as u32
                    }
                    _ => NONE,
                };
                let message = rows.message_ids.put(row.message().or(self.folder_message.as_deref()));
                rows.parts.push(PartFacts { id_at, id_len, kind, flags, message, rec, more });
                if kind == PartKind::StepFinish {
                    let u = doc.tokens.0.as_ref().map(|t| usage_of(t, doc.cost)).unwrap_or_default();
                    cx.usage.note_call(rec, u);
                }
            }
            What::Other => cx.record(at, offset, None, Kind::Other, created),
        }
    }

    fn finish(&mut self, _cx: &mut Ctx) {}
}

/// The session a row names, made where it first appears (its records are its events).
fn session_at(cx: &mut Ctx, id: &str, at: Loc) -> Sym {
    let s = cx.sym(id, at);
    cx.graph.session(s);
    s
}

/// The columns the header's tables lack, as `table.column`.
fn missing_columns(row: &Row<'_>) -> Vec<String> {
    let Some(t) = row.tables.0.as_ref() else { return vec!["tables".into()] };
    let mut out = Vec::new();
    for (table, cols) in NEEDED {
        let have = match *table {
            "session" => &t.session,
            "message" => &t.message,
            _ => &t.part,
        };
        if have.0.is_empty() {
            out.push(format!("table `{table}`"));
            continue;
        }
        for c in *cols {
            if !have.0.iter().any(|x| x.as_str() == Some(c)) {
                out.push(format!("column `{table}.{c}`"));
            }
        }
    }
    out
}

/// One session's turn as it is being made.
struct Open {
    ix: usize,
    step: Option<usize>,
    last: u32,
}

pub(super) fn settle(cx: &mut Ctx) {
    let rows = cx.ext::<Rows>();
    if rows.settled || (rows.sessions.is_empty() && rows.messages.is_empty() && rows.parts.is_empty()) {
        return;
    }
    rows.settled = true;
    // The facts are used up here: a settled context is not settled again (`settled`), and a
    // followed store's next snapshot is read afresh, so nothing is kept (a copy of every row's
    // facts was half of the peak memory).
    let Rows { sessions, messages, parts, tokens, mut tasks, said: part_said, names, message_ids, part_ids, .. } =
        std::mem::take(rows);
    // A record's place (the facts do not keep it: 16 bytes a part).
    let loc = |cx: &Ctx, rec: u32| cx.loc_of(rec).unwrap_or(Loc { file: 0, line: 0 });

    // Each session once: the first row that names it.
    let mut seen = HashSet::default();
    let sessions: Vec<SessionFacts> = sessions.into_iter().filter(|s| seen.insert(s.id)).collect();
    let session_of: HashMap<Sym, usize> = sessions.iter().enumerate().map(|(i, s)| (s.id, i)).collect();

    // Messages by id (the last message of an id, as a map's insert), by a list indexed by name;
    // a part without its session takes its message's.
    let mut message_ix = vec![NONE; message_ids.0.len()];
    for (i, m) in messages.iter().enumerate() {
        message_ix[m.id.0 as usize] = i as u32;
    }
    let message_of = |p: &PartFacts| -> Option<usize> {
        let mi = *message_ix.get(p.message.0 as usize).filter(|_| p.message.is_some())?;
        (mi != NONE).then_some(mi as usize)
    };
    let mut orphans = (0u64, None::<Loc>, 0u64, None::<Loc>);
    for p in &parts {
        match message_of(p) {
            Some(mi) => {
                if p.flags & HAS_SESSION == 0 {
                    let session = messages[mi].session;
                    if p.kind == PartKind::Tool {
                        if let Some(t) = tasks.get_mut(p.more as usize) {
                            t.session = session;
                        }
                    }
                    if let Some(id) = names.get(session) {
                        let s = cx.scoped(id, loc(cx, p.rec).file);
                        if let Some(r) = cx.records.get_mut(p.rec as usize) {
                            r.session = s.0;
                        }
                        if let Some(node) = cx.graph.get_mut(s) {
                            node.events += 1;
                        }
                    }
                }
            }
            None => {
                orphans.0 += 1;
                orphans.1 = orphans.1.or(Some(loc(cx, p.rec)));
            }
        }
    }
    for m in &messages {
        let known = names.get(m.session).is_some_and(|id| cx.ids.get(id).is_some_and(|s| session_of.contains_key(&s)));
        if !known {
            orphans.2 += 1;
            orphans.3 = orphans.3.or(Some(loc(cx, m.rec)));
        }
    }
    if let Some(at) = orphans.1 {
        cx.findings.add(
            Code::OrphanRecord,
            at,
            None,
            format!("{} part(s) name no loaded message: they are shown in their session where they name one, and belong to no turn", orphans.0),
        );
    }
    if let Some(at) = orphans.3 {
        cx.findings.add(
            Code::OrphanRecord,
            at,
            None,
            format!("{} message(s) name no loaded session: their session is made from the id they name, with no title or parent", orphans.2),
        );
    }
    // Sessions only messages or parts name are sessions too.
    for m in &messages {
        if let Some(id) = names.get(m.session) {
            let at = loc(cx, m.rec);
            let s = cx.scoped(id, at.file);
            cx.graph.set_place(at);
            cx.graph.session(s);
        }
    }

    // Parts by message, in id order (`by_message`: each message's parts a range of one list,
    // where a list a message took 8 bytes a part and a map of lists).
    let by_message = Groups::of(messages.len(), parts.iter().map(message_of), |list| {
        list.sort_unstable_by(|&a, &b| {
            let (x, y) = (&parts[a as usize], &parts[b as usize]);
            x.cmp_id(y, &part_ids).then(x.rec.cmp(&y.rec))
        })
    });
    drop(message_ix);
    // The ids were only for that order; what the rest reads of a part is `Part` (12 bytes of
    // its 20: a 1 GiB store's 1.75 M parts held 14 MB less through the rest of `settle`, where
    // its peak is).
    drop(part_ids);
    let mut parts: Vec<Part> = parts.into_iter().map(Part::of).collect();
    // Made in the facts' own allocation: what it does not hold now goes back.
    parts.shrink_to_fit();
    // Messages by session, by creation time then id (a stable sort of each session's messages
    // in the order read, as before).
    let mut session_ix = vec![NONE; names.0.len()];
    let mut session_nm: Vec<Nm> = Vec::new();
    for m in &messages {
        if m.session.is_some() && session_ix[m.session.0 as usize] == NONE {
            session_ix[m.session.0 as usize] = session_nm.len() as u32;
            session_nm.push(m.session);
        }
    }
    let by_session = Groups::of(
        session_nm.len(),
        messages.iter().map(|m| m.session.is_some().then(|| session_ix[m.session.0 as usize] as usize)),
        |list| {
            list.sort_by(|&a, &b| {
                let (x, y) = (&messages[a as usize], &messages[b as usize]);
                x.created.partial_cmp(&y.created).unwrap_or(std::cmp::Ordering::Equal).then(message_ids.get(x.id).cmp(&message_ids.get(y.id)))
            })
        },
    );
    drop(session_ix);
    // The messages' ids were only for joining and that order.
    drop(message_ids);

    // Turns, steps, replies, kinds and tokens, session by session (in the order sessions were
    // first seen, so that the report's turns are in a stable order).
    let mut session_ids: Vec<usize> = (0..session_nm.len()).collect();
    session_ids.sort_by_key(|&g| by_session.get(g).first().map_or(u32::MAX, |&m| messages[m as usize].rec));
    // Per session: its last record, and the outcome of its last assistant message.
    let mut last_rec: HashMap<Sym, u32> = HashMap::default();
    let mut first_rec: HashMap<Sym, u32> = HashMap::default();
    let mut last_outcome: HashMap<Sym, Outcome> = HashMap::default();
    let mut first_message_agent: HashMap<Sym, Nm> = HashMap::default();
    let mut partial_tokens: HashMap<Sym, (u64, u64, Loc)> = HashMap::default();
    // Per session, each assistant message's reply in order: (its creation time, its hash).
    let mut said: HashMap<Sym, Vec<(f64, Option<u64>)>> = HashMap::default();
    // The step-finish parts counted (their tokens were noted as they were read): the others
    // (a part no message of a session has) count for nothing.
    let mut counted = vec![false; parts.len()];
    for &g in &session_ids {
        let list = by_session.get(g);
        let Some(&first) = list.first() else { continue };
        let s = cx.scoped(names.get(session_nm[g]).unwrap_or_default(), loc(cx, messages[first as usize].rec).file);
        let mut turn: Option<Open> = None;
        let mut n = 0i64;
        for &mi in list {
            let mi = mi as usize;
            let m = &messages[mi];
            let plist = by_message.get(mi);
            let first_rec_ix = plist.first().map_or(m.rec, |&p| parts[p as usize].rec);
            let last = plist.last().map_or(m.rec, |&p| parts[p as usize].rec);
            let e = last_rec.entry(s).or_insert(last);
            *e = (*e).max(last);
            let e = first_rec.entry(s).or_insert(first_rec_ix);
            *e = (*e).min(first_rec_ix);
            if m.user {
                if m.agent.is_some() {
                    first_message_agent.entry(s).or_insert(m.agent);
                }
                // A user message opens a turn (one made only of harness text, a compaction or a
                // subtask too: it is marked in the transcript, not a prompt).
                if let Some(o) = turn.take() {
                    close(cx, &o);
                }
                n += 1;
                cx.turns.list.push(TurnRec::new(s, None, TurnId::Num(n), Some(first_rec_ix), Some(last)));
                turn = Some(Open { ix: cx.turns.list.len() - 1, step: None, last });
                for &p in plist {
                    let p = p as usize;
                    let kind = match parts[p].kind {
                        PartKind::Text if parts[p].synthetic() => Kind::Notice,
                        PartKind::Text => Kind::UserMessage,
                        PartKind::Compaction => Kind::Compaction,
                        PartKind::Subtask | PartKind::File => Kind::UserMessage,
                        _ => Kind::Other,
                    };
                    cx.set_kind(parts[p].rec, kind);
                }
                continue;
            }
            // An assistant message: a reply, each step-start…step-finish one model call. Its
            // error is its turn's reason (the message's row is in the store's message table, away
            // from its parts: a transcript row there would stand before the conversation).
            let ix = turn.as_ref().map(|o| o.ix);
            let mut calls = 0u32;
            let mut summed = Usage::default();
            let mut reply = None;
            let mut reply_said = None;
            for &p in plist {
                let part = &parts[p as usize];
                let kind = match part.kind {
                    PartKind::Text if part.synthetic() => Kind::Notice,
                    PartKind::Text => Kind::AssistantMessage,
                    PartKind::Reasoning => Kind::Reasoning,
                    PartKind::Tool => Kind::ToolCall,
                    PartKind::StepStart => Kind::StepStart,
                    PartKind::StepFinish => Kind::Usage,
                    PartKind::Compaction => Kind::Compaction,
                    PartKind::Retry => Kind::Notice,
                    PartKind::File => Kind::AssistantMessage,
                    _ => Kind::Other,
                };
                cx.set_kind(part.rec, kind);
                if part.kind == PartKind::Text && !part.synthetic() && part.has_text() {
                    reply = Some(part.rec);
                    reply_said = part.said(&part_said);
                }
                match (part.kind, turn.as_mut()) {
                    (PartKind::StepStart, Some(o)) => {
                        if let Some(step) = o.step.take() {
                            if let Some(span) = cx.turns.span_mut(o.ix, step) {
                                span.set_end(Some(part.rec));
                            }
                        }
                        let k = cx.turns.list[o.ix].steps + 1;
                        cx.turns.list[o.ix].steps = k;
                        o.step = Some(cx.turns.push_span(o.ix, StepSpan::open(k, part.rec)));
                    }
                    (PartKind::StepFinish, Some(o)) => {
                        if let Some(step) = o.step.take() {
                            if let Some(span) = cx.turns.span_mut(o.ix, step) {
                                span.set_end(Some(part.rec));
                            }
                        }
                    }
                    _ => {}
                }
                if part.kind == PartKind::StepFinish {
                    if let Some(u) = cx.usage.count_call(part.rec, s, ix, names.get(m.model)) {
                        calls += 1;
                        summed.add_costed(&u);
                        counted[p as usize] = true;
                    }
                }
            }
            // A message with no step-finish part (older versions) counts its own tokens once.
            let own = tokens.get(m.tokens as usize).map(Counts::usage);
            if calls == 0 {
                if let Some(u) = own {
                    cx.usage.add(s, ix, names.get(m.model), u);
                }
            } else if calls > 1 {
                // Its `tokens` are only its last step's: a reader that adds up messages misses
                // the others.
                if let Some(u) = own {
                    let missed = summed.tokens().saturating_sub(u.tokens());
                    if missed > 0 {
                        let e = partial_tokens.entry(s).or_insert((0, 0, loc(cx, m.rec)));
                        e.0 += 1;
                        e.1 += missed;
                    }
                }
            }
            if let Some(r) = reply {
                if let Some(o) = &turn {
                    cx.turns.list[o.ix].set_reply(r);
                }
                said.entry(s).or_default().push((m.created, reply_said));
            }
            if let Some(o) = turn.as_mut() {
                o.last = o.last.max(last);
                cx.turns.list[o.ix].set_end(o.last);
                let reason = match names.get(m.error) {
                    Some("MessageAbortedError") => Some("aborted"),
                    Some(_) => Some("error"),
                    None => names.get(m.finish),
                };
                cx.turns.set_reason(o.ix, reason);
            }
            let outcome = match names.get(m.error) {
                Some("MessageAbortedError") => Outcome::Cancelled,
                Some(_) => Outcome::Error,
                None if m.completed || names.get(m.finish).is_some_and(|f| f != "tool-calls" && f != "unknown") => {
                    Outcome::Ok
                }
                None => Outcome::Open,
            };
            last_outcome.insert(s, outcome);
        }
        if let Some(o) = turn.take() {
            close(cx, &o);
        }
    }
    let mut uncounted: Vec<u32> =
        parts.iter().zip(&counted).filter(|(p, c)| p.kind == PartKind::StepFinish && !**c).map(|(p, _)| p.rec).collect();
    uncounted.sort_unstable();
    cx.usage.forget_calls(&uncounted);
    drop(counted);
    for (s, (count, missed, at)) in partial_tokens {
        let (count, missed) = (count.to_string(), missed.to_string());
        // Told of each session whose messages made several calls: only its words are kept.
        let fill = [count.as_str(), cx.ids.name(s), missed.as_str()];
        cx.findings.add_filled(Code::MessageTokensLastStep, at, Some(s), &TOKENS_LAST_STEP, &fill);
    }

    // Runs: each task call that names a child is a run of it under the calling session
    // (`tool-call`; a resumed task is another run of the same child); a child no call names
    // hangs under its `parentID` (`parent-id`).
    let mut calls_of: HashMap<&str, Vec<usize>> = HashMap::default();
    for (i, p) in parts.iter().enumerate() {
        if let Some(t) = p.task(&tasks) {
            if let Some(c) = names.get(t.child) {
                calls_of.entry(c).or_default().push(i);
            }
        }
    }
    for list in calls_of.values_mut() {
        list.sort_by_key(|&i| parts[i].rec);
    }
    // Children in the order their sessions were first seen.
    // (A set beside the list: a list's own `contains` made this messages × sessions, most of
    // `settle`'s time on a large store.)
    let mut order: Vec<Sym> = sessions.iter().map(|s| s.id).collect();
    let mut in_order: HashSet<Sym> = order.iter().copied().collect();
    for m in &messages {
        if let Some(id) = names.get(m.session) {
            let s = cx.scoped(id, loc(cx, m.rec).file);
            if in_order.insert(s) {
                order.push(s);
            }
        }
    }
    let mut spawned = HashSet::default();
    for s in order {
        let name = cx.ids.name(s).to_owned();
        let facts = session_of.get(&s).map(|&i| &sessions[i]);
        let parent_id = facts.and_then(|f| names.get(f.parent));
        let calls: Vec<usize> = calls_of.get(name.as_str()).cloned().unwrap_or_default();
        let end_at = last_rec.get(&s).map(|&r| loc(cx, r));
        let outcome = last_outcome.get(&s).copied().unwrap_or(Outcome::Open);
        if let Some(label) = calls
            .last()
            .and_then(|&c| parts[c].task(&tasks).and_then(|t| names.get(t.agent)))
            .or_else(|| parent_id.is_some().then(|| first_message_agent.get(&s).and_then(|a| names.get(*a))).flatten())
        {
            if parent_id.is_some() || !calls.is_empty() {
                cx.graph.set_label(s, label);
            }
        }
        if calls.is_empty() {
            let Some(p) = parent_id else { continue };
            let at = facts.map_or(Loc { file: 0, line: 0 }, |f| f.at);
            let parent = cx.scoped(p, at.file);
            if !cx.graph.contains(parent) {
                cx.findings.add(
                    Code::MissingParentSession,
                    at,
                    Some(s),
                    format!("the parentID `{p}` of `{name}` names no loaded session"),
                );
            }
            // The run starts where the child's records do (the session row is a summary, kept
            // after the conversation in the store).
            let start = first_rec.get(&s).map_or(at, |&r| loc(cx, r));
            cx.graph.set_place(at);
            let run = cx.graph.open_run(s, Some(parent), Some(start), Link::ParentId);
            let known = cx.graph.contains(parent);
            let node = cx.graph.session(s);
            node.unknown_parent = !known;
            node.runs[run].end = end_at;
            node.runs[run].outcome = outcome;
            continue;
        }
        for (k, &c) in calls.iter().enumerate() {
            let call = &parts[c];
            let Some(task) = call.task(&tasks) else { continue };
            let call_id = names.get(task.call);
            let call_at = loc(cx, call.rec);
            let Some(caller) = names.get(task.session).map(|id| cx.scoped(id, call_at.file)) else { continue };
            if let Some(p) = parent_id {
                if cx.ids.name(caller) != p {
                    let caller_name = cx.ids.name(caller).to_owned();
                    cx.findings.add(
                        Code::SubagentLinksDisagree,
                        call_at,
                        Some(s),
                        format!("the task call `{}` of `{caller_name}` names `{name}`, whose parentID is `{p}`: the run is the caller's, the session's parent stays `{p}` for a reader of parentID", call_id.unwrap_or("")),
                    );
                }
            }
            if let Some(id) = call_id {
                cx.spawns.insert((caller, std::sync::Arc::from(id)), s);
            }
            spawned.insert(c);
            cx.graph.set_place(call_at);
            let run = cx.graph.open_run(s, Some(caller), Some(call_at), Link::ToolCall);
            // A run ends at the child's last record before the next call that resumes it (its
            // whole life for the last call): a background call ends before its child.
            let next = calls.get(k + 1).map(|&n| parts[n].rec);
            let end_at = match next {
                Some(nx) => records_before(cx, s, nx).or(end_at),
                None => end_at,
            };
            let call_outcome = match task.status {
                Status::Completed => Outcome::Ok,
                Status::Error => Outcome::Error,
                Status::None | Status::Other => Outcome::Open,
            };
            let node = cx.graph.session(s);
            node.runs[run].end = end_at.or(Some(call_at));
            node.runs[run].outcome = if next.is_none() && call_outcome == Outcome::Open { outcome } else { call_outcome };
            // What the call received, against the child's reply when the run ended: its last
            // reply made before the call ended (a resumed task's earlier call, too), or, with no
            // end recorded, its last one for the last call.
            let replies = said.get(&s).map_or(&[][..], Vec::as_slice);
            let then = match task.end {
                Some(end) => replies.iter().rev().find(|(made, _)| *made <= end),
                None if next.is_none() => replies.last(),
                None => None,
            };
            if let (Some(got), Some(&(_, Some(reply)))) = (task.said, then) {
                if got != reply {
                    let caller_name = cx.ids.name(caller).to_owned();
                    cx.findings.add(
                        Code::SubagentReplyDiffers,
                        call_at,
                        Some(s),
                        format!("what `{caller_name}` received from sub-agent `{name}` (task call `{}`) differs from the sub-agent's reply when that run ended (whitespace and the task wrapper the harness adds aside)", call_id.unwrap_or("")),
                    );
                }
            }
            // A background task's call that ended while its child still ran received a notice,
            // not the child's reply (`reply::unwrapped`): nothing was received from the child.
            let notice = task.status == Status::Completed && task.said.is_none();
            if !notice {
                cx.received.push(ReceivedRec {
                    session: s,
                    run: run as u32,
                    at: TextRef { at: call_at, offset: cx.records.get(call.rec as usize).map_or(0, |r| r.offset()) },
                    key: call_id.map(Box::from),
                });
            }
        }
    }
    // Task calls whose child is not loaded.
    for (i, p) in parts.iter().enumerate() {
        let Some(task) = p.task(&tasks) else { continue };
        if spawned.contains(&i) {
            continue;
        }
        let p_at = loc(cx, p.rec);
        let Some(caller) = names.get(task.session).map(|id| cx.scoped(id, p_at.file)) else { continue };
        let child = names.get(task.child);
        let what = match child {
            Some(c) => format!("names the child session `{c}`, which is not loaded"),
            None => "names no child session yet (its state has no `metadata.sessionId`)".to_owned(),
        };
        if child.is_some() || task.status == Status::Completed {
            cx.findings.add(
                Code::SubagentTranscriptMissing,
                p_at,
                Some(caller),
                format!("the task call `{}` {what}", names.get(task.call).unwrap_or("")),
            );
        }
    }
    cx.ext::<Rows>().settled = true;
}

/// The place of session `s`'s last record before record `before`.
fn records_before(cx: &Ctx, s: Sym, before: u32) -> Option<Loc> {
    let mut i = before as usize;
    while i > 0 {
        i -= 1;
        let r = cx.records.get(i)?;
        if r.session == s.0 {
            return cx.loc_of(i as u32);
        }
    }
    None
}

fn close(cx: &mut Ctx, o: &Open) {
    if let Some(step) = o.step {
        if let Some(span) = cx.turns.span_mut(o.ix, step) {
            if span.end().is_none() {
                span.set_end(Some(o.last));
            }
        }
    }
}

/// Items grouped by a key in `0..n` (a part's message, a message's session): each group's items
/// a range of one list, in the order given, then ordered within each group by `sort`.
struct Groups {
    starts: Vec<u32>,
    items: Vec<u32>,
}

impl Groups {
    fn of<I>(n: usize, keys: I, mut sort: impl FnMut(&mut [u32])) -> Groups
    where
        I: Iterator<Item = Option<usize>> + Clone,
    {
        let mut starts = vec![0u32; n + 1];
        for k in keys.clone().flatten() {
            starts[k + 1] += 1;
        }
        for g in 0..n {
            starts[g + 1] += starts[g];
        }
        let mut next = starts[..n].to_vec();
        let mut items = vec![0u32; starts[n] as usize];
        for (i, k) in keys.enumerate() {
            if let Some(k) = k {
                items[next[k] as usize] = i as u32;
                next[k] += 1;
            }
        }
        for g in 0..n {
            sort(&mut items[starts[g] as usize..starts[g + 1] as usize]);
        }
        Groups { starts, items }
    }

    fn get(&self, g: usize) -> &[u32] {
        &self.items[self.starts[g] as usize..self.starts[g + 1] as usize]
    }
}

#[cfg(test)]
mod id_tests {
    use super::*;

    /// Packed or not, part ids order as their bytes do.
    #[test]
    fn part_ids_order_as_their_bytes_packed_or_not() {
        let ids: [&[u8]; 12] = [
            b"prt_1a092e9f429003d0d1848ecc96cd",
            b"prt_1a092e9f429003d0d1848ecc96cc",
            b"prt_1a092e9f4290",
            b"prt_1a092e9f42900",
            b"prt_1a092e9f4291",
            b"prt_1A092e9f429003d0d1848ecc96cd",
            b"prt_1a092e9f429",
            b"prt_ffffffffffffzz",
            b"prt_000000000000",
            b"part-1",
            b"prt_1a092e9f4290\xff",
            b"",
        ];
        let mut buf = Vec::new();
        let parts: Vec<PartFacts> = ids
            .iter()
            .map(|id| {
                let at = buf.len();
                let flags = if put_id(id, &mut buf) { PACKED_ID } else { 0 };
                PartFacts { id_at: at as u32, id_len: (buf.len() - at) as u16, kind: PartKind::Other, flags, message: Nm::NONE, rec: 0, more: NONE }
            })
            .collect();
        assert_eq!(parts.iter().filter(|p| p.flags & PACKED_ID != 0).count(), 8, "OpenCode's shape is packed");
        assert!(parts[0].id_len < ids[0].len() as u16);
        for (i, x) in parts.iter().enumerate() {
            for (j, y) in parts.iter().enumerate() {
                assert_eq!(x.cmp_id(y, &buf), ids[i].cmp(ids[j]), "{:?} against {:?}", ids[i], ids[j]);
            }
        }
    }
}
