//! The analysis context: everything the format modules write into while they read.
//!
//! One `Ctx` per analysis. Format modules own their per-file state machines; what outlives a file
//! (the graph, findings, turns, waits, the record index) lives here.

use crate::finding::{Code, Findings, Loc};
use crate::graph::SessionGraph;
use crate::intern::{HashMap, HashSet};
use crate::intern::{Interner, Sym};
use crate::report::WaitOutcome;
use crate::turns::Turns;

/// What a record is, in one byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Kind {
    Header,
    Request,
    Response,
    Status,
    SubagentStarted,
    SubagentFinished,
    TurnStart,
    TurnEnd,
    StepStart,
    StepEnd,
    UserMessage,
    AssistantMessage,
    Chunk,
    ToolCall,
    ToolResult,
    Idle,
    Error,
    Lifecycle,
    Other,
    Compaction,
    Reasoning,
    Notice,
    /// A model call's tokens, on a line of its own (Codex's `token_count`), where it counted.
    Usage,
}

impl Kind {
    /// Every kind, in declaration order (`ALL[k as usize] == k`).
    pub const ALL: [Kind; 23] = [
        Kind::Header,
        Kind::Request,
        Kind::Response,
        Kind::Status,
        Kind::SubagentStarted,
        Kind::SubagentFinished,
        Kind::TurnStart,
        Kind::TurnEnd,
        Kind::StepStart,
        Kind::StepEnd,
        Kind::UserMessage,
        Kind::AssistantMessage,
        Kind::Chunk,
        Kind::ToolCall,
        Kind::ToolResult,
        Kind::Idle,
        Kind::Error,
        Kind::Lifecycle,
        Kind::Other,
        Kind::Compaction,
        Kind::Reasoning,
        Kind::Notice,
        Kind::Usage,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Header => "header",
            Kind::Request => "request",
            Kind::Response => "response",
            Kind::Status => "status",
            Kind::SubagentStarted => "subagent.started",
            Kind::SubagentFinished => "subagent.finished",
            Kind::TurnStart => "turn/start",
            Kind::TurnEnd => "turn/end",
            Kind::StepStart => "step/start",
            Kind::StepEnd => "step/end",
            Kind::UserMessage => "user message",
            Kind::AssistantMessage => "assistant message",
            Kind::Chunk => "chunk",
            Kind::ToolCall => "tool call",
            Kind::ToolResult => "tool result",
            Kind::Idle => "idle",
            Kind::Error => "error",
            Kind::Lifecycle => "lifecycle",
            Kind::Other => "event",
            Kind::Compaction => "compaction",
            Kind::Reasoning => "reasoning",
            Kind::Notice => "notice",
            Kind::Usage => "usage",
        }
    }
}

/// One record of the index: where it is and what it is. The line's text stays in the file.
///
/// 24 bytes: a 1 GiB Copilot log has 2.7 M of them. The file is not kept per record (records are
/// in file order: `Ctx::file_of` finds it from where each file's records begin), and the kind
/// shares a word with the byte offset.
#[derive(Debug, Clone, Copy)]
pub struct Record {
    /// The byte offset of the line (low 56 bits) and the kind (top 8 bits).
    pos: u64,
    pub line: u32,
    /// The session or agent it belongs to (`u32::MAX` for none).
    pub session: u32,
    /// Wire time in epoch milliseconds, or NaN when the log has no clock.
    pub time: f64,
}

const OFFSET_BITS: u32 = 56;
const OFFSET_MASK: u64 = (1 << OFFSET_BITS) - 1;

impl Record {
    /// The byte offset of the line in its file. Offsets past 2^56 (64 PiB) are kept as that.
    pub fn offset(&self) -> u64 {
        self.pos & OFFSET_MASK
    }

    pub fn kind(&self) -> Kind {
        Kind::ALL.get((self.pos >> OFFSET_BITS) as usize).copied().unwrap_or(Kind::Other)
    }
}

pub const NO_SESSION: u32 = u32::MAX;

/// Records in a full chunk (1.5 MiB of them).
const CHUNK_BITS: u32 = 16;
const CHUNK: usize = 1 << CHUNK_BITS;

/// The record index, in chunks that copies of a context share: a followed log's snapshot copies
/// the chunk being filled and a pointer to each full one, where copying the index was most of
/// copying the context (68 MB and 45 ms of a 1 GiB log's 60 ms), and it cost the records twice
/// over for as long as the snapshot was shown. A full chunk is copied only when a record in it
/// is changed while shared (`get_mut`).
#[derive(Debug, Clone, Default)]
pub struct Records {
    full: Vec<std::sync::Arc<Vec<Record>>>,
    /// The chunk being filled (grown as a `Vec` is while it is the first, so that a small log's
    /// index is no larger than it needs).
    tail: Vec<Record>,
}

impl Records {
    pub fn len(&self) -> usize {
        self.full.len() * CHUNK + self.tail.len()
    }

    pub fn is_empty(&self) -> bool {
        self.full.is_empty() && self.tail.is_empty()
    }

    pub fn get(&self, index: usize) -> Option<&Record> {
        match self.full.get(index >> CHUNK_BITS) {
            Some(chunk) => chunk.get(index & (CHUNK - 1)),
            None => self.tail.get(index.checked_sub(self.full.len() * CHUNK)?),
        }
    }

    /// A record to change; a full chunk shared with a copy is copied first.
    pub fn get_mut(&mut self, index: usize) -> Option<&mut Record> {
        let full = self.full.len() * CHUNK;
        match self.full.get_mut(index >> CHUNK_BITS) {
            Some(chunk) => std::sync::Arc::make_mut(chunk).get_mut(index & (CHUNK - 1)),
            None => self.tail.get_mut(index.checked_sub(full)?),
        }
    }

    pub fn push(&mut self, record: Record) {
        if self.tail.len() == CHUNK {
            let next = Vec::with_capacity(CHUNK);
            self.full.push(std::sync::Arc::new(std::mem::replace(&mut self.tail, next)));
        }
        self.tail.push(record);
    }

    pub fn iter(&self) -> impl Iterator<Item = &Record> + '_ {
        self.full.iter().flat_map(|c| c.iter()).chain(&self.tail)
    }

    /// Gives back what the chunk being filled grew by and did not use.
    pub fn shrink_to_fit(&mut self) {
        self.tail.shrink_to_fit();
    }

    /// The first index of `range` whose record does not satisfy `pred` (which holds for a
    /// prefix of the range), as `slice::partition_point`.
    pub fn partition_point(&self, range: std::ops::Range<usize>, pred: impl Fn(&Record) -> bool) -> usize {
        let (mut lo, mut hi) = (range.start, range.end.min(self.len()));
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.get(mid).is_some_and(&pred) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }
}

impl std::ops::Index<usize> for Records {
    type Output = Record;

    fn index(&self, index: usize) -> &Record {
        self.get(index).expect("a record index within the records")
    }
}

/// Where a reply's text is: its place and its byte offset. The text stays in the file and is read
/// back when the report is built, so memory does not grow with the content of messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TextRef {
    pub at: Loc,
    pub offset: u64,
}

/// A wait (Copilot) or a root turn (dsh-rpc), as found.
#[derive(Debug, Clone)]
pub struct WaitRec {
    pub root: Sym,
    pub start: Option<Loc>,
    pub end: Option<Loc>,
    pub outcome: WaitOutcome,
    pub reply: Option<TextRef>,
    pub finish_reason: Option<String>,
    pub notifications: Option<u64>,
    pub events: Option<u64>,
    pub naive: NaiveRec,
    /// dsh-rpc only: the records of the notifications of this root turn that the naive reading
    /// drops (those attributed to the root through a descendant).
    pub dropped: IndexList,
}

/// Record indices in increasing order, each kept as its distance from the one before in LEB128:
/// one byte a record while they are fewer than 128 apart. A root turn's dropped notifications can
/// be most of a huge log, so this costs about a byte for each of them, not four or eight.
#[derive(Debug, Clone, Default)]
pub struct IndexList {
    bytes: Vec<u8>,
    len: usize,
    last: Option<u32>,
}

impl IndexList {
    /// Adds `index`, which must be greater than the last one added.
    pub fn push(&mut self, index: u32) {
        let mut gap = self.last.map_or(index, |l| index.saturating_sub(l));
        self.last = Some(index);
        self.len += 1;
        loop {
            let byte = (gap & 0x7f) as u8;
            gap >>= 7;
            if gap == 0 {
                self.bytes.push(byte);
                return;
            }
            self.bytes.push(byte | 0x80);
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Gives back the spare capacity (a finished list grows no more).
    pub fn shrink_to_fit(&mut self) {
        self.bytes.shrink_to_fit();
    }

    /// The indices, in the order they were added.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        let mut at = 0;
        let mut index = 0u32;
        let mut first = true;
        std::iter::from_fn(move || {
            let mut gap = 0u32;
            let mut shift = 0;
            loop {
                let byte = *self.bytes.get(at)?;
                at += 1;
                gap |= u32::from(byte & 0x7f) << shift;
                shift += 7;
                if byte & 0x80 == 0 {
                    break;
                }
            }
            index = if first { gap } else { index + gap };
            first = false;
            Some(index)
        })
    }
}

#[derive(Debug, Clone, Default)]
pub struct NaiveRec {
    pub end: Option<Option<Loc>>,
    pub outcome: Option<WaitOutcome>,
    pub reply: Option<Option<TextRef>>,
    pub notifications: Option<u64>,
}

/// What a parent received from one run of a child: where the text is, and, when its line holds
/// several (one tool-result line answering several calls), the key that picks it out (the call
/// id), for `Format::received_text`.
#[derive(Debug, Clone)]
pub struct ReceivedRec {
    pub session: Sym,
    pub run: u32,
    pub at: TextRef,
    pub key: Option<Box<str>>,
}

/// A reply outside any turn (Copilot messages with no open turn).
#[derive(Debug, Clone)]
pub struct LooseReply {
    pub session: Sym,
    pub text: TextRef,
}

#[derive(Debug, Default, Clone)]
pub struct Ctx {
    pub ids: Interner,
    pub graph: SessionGraph,
    pub findings: Findings,
    pub turns: Turns,
    pub waits: Vec<WaitRec>,
    pub loose_replies: Vec<LooseReply>,
    pub records: Records,
    /// Where each run of one file's records begins: (file, index of its first record), in record
    /// order. A file read at once has one; a followed file gets one more each time it grows
    /// after another file was read.
    pub file_starts: Vec<(u32, u32)>,
    /// For each file, its runs of records: indices into `file_starts`, in order.
    pub(crate) file_segments: Vec<Vec<u32>>,
    /// Each file's rank in reading order, by index, where the files were not read in that order
    /// (a followed folder where a file appeared); empty when rank and index agree.
    pub ranks: Vec<u32>,
    /// Sessions that have a durable log: their turns and replies come from it (SPEC 2.3).
    pub durable: HashSet<Sym>,
    /// Files already told they hold placeholder ids: the index of the finding that told each.
    pub placeholder_files: HashMap<u32, usize>,
    /// Spawn calls and the children they started: (parent, call id) → child, where a format
    /// knows it (the transcript links a spawn to its child and a result to its reply). The call
    /// ids are shared by the context's copies (a followed log's snapshot copies the map at every
    /// change: 27 ms of a 1 GiB Copilot log's 63 when each was a `Box<str>` copied).
    pub spawns: crate::intern::HashMap<(Sym, std::sync::Arc<str>), Sym>,
    /// Tokens, as each format counts them once.
    pub usage: crate::usage::UsageBook,
    /// What parents received from their children's runs (a spawn call's result), where a
    /// format sees it; the texts stay in the files.
    pub received: Vec<ReceivedRec>,
    /// Where the text of a reply record is in its line (`wire::Data::content_at`), by record
    /// index, ascending: its text is then read back without parsing the line again.
    pub text_spans: Vec<(u32, (u32, u32))>,
    /// The files this read planned, in plan order (`None`: set aside by a format's plan): the
    /// read-ahead threads share the list, and a format may survey the files it was opened with
    /// (dsh-session's placeholder headers) without a copy of its own.
    pub planned: std::sync::Arc<[Option<std::path::PathBuf>]>,
    /// What formats keep across files until they settle (`ext`), beginning with what they
    /// learned while planning (`Plan::ext`): the driver and this context need not know what a
    /// format links once all is read.
    pub(crate) exts: Exts,
    /// Session ids are scoped by format: the same id in a Claude Code session and a Codex
    /// rollout names two sessions, not one (`scoped`).
    pub(crate) scopes: Scopes,
}

/// Which id space (a format, or a harness's formats) each file is read in, and which space first
/// used each id: an id two spaces use is two symbols, each shown as `id@space` (SPEC 4's ids stay
/// as written whenever only one space uses them).
#[derive(Debug, Default, Clone)]
pub(crate) struct Scopes {
    /// The scopes' names (id spaces); a scope is its index here plus one, 0 none.
    names: Vec<&'static str>,
    /// Per file: its scope (0: not known, the id is not scoped).
    files: Vec<u8>,
    /// Per symbol: the scope that first used it as an id (0: none yet).
    owners: Vec<u8>,
    /// (scope, symbol another scope owns) → that scope's own symbol for the same id.
    others: HashMap<(u8, u32), Sym>,
}

/// A format's cross-file state in a context slot: any value that can be copied with the context
/// (a followed log's context is copied to be finished).
trait Ext: std::any::Any + Send + Sync + std::fmt::Debug {
    fn clone_ext(&self) -> Box<dyn Ext>;
    fn as_any_mut(&mut self) -> &mut dyn std::any::Any;
}

impl<T: std::any::Any + Clone + Send + Sync + std::fmt::Debug> Ext for T {
    fn clone_ext(&self) -> Box<dyn Ext> {
        Box::new(self.clone())
    }
    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}

impl Clone for Box<dyn Ext> {
    fn clone(&self) -> Self {
        self.as_ref().clone_ext()
    }
}

/// Typed slots, one value of each type that asks, each beside its type's id: formats ask for
/// theirs at every line, and comparing ids costs no call through the box.
#[derive(Debug, Default, Clone)]
pub struct Exts(Vec<(std::any::TypeId, Box<dyn Ext>)>);

impl Exts {
    /// The value of type `T`, made on first use. (The slot is looked at through `as_ref`: a
    /// `Box<dyn Ext>` is itself an `Ext`, and asking the box would ask the wrong value.)
    pub fn get<T: Default + Clone + Send + Sync + std::fmt::Debug + 'static>(&mut self) -> &mut T {
        let id = std::any::TypeId::of::<T>();
        let i = match self.0.iter().position(|(t, _)| *t == id) {
            Some(i) => i,
            None => {
                self.0.push((id, Box::<T>::default()));
                self.0.len() - 1
            }
        };
        self.0[i].1.as_mut().as_any_mut().downcast_mut::<T>().expect("the slot holds a T")
    }
}

impl Ctx {
    /// A format's own cross-file state of type `T`, made on first use.
    pub fn ext<T: Default + Clone + Send + Sync + std::fmt::Debug + 'static>(&mut self) -> &mut T {
        self.exts.get::<T>()
    }

    /// The file of the record at `index`.
    pub fn file_of(&self, index: usize) -> Option<u32> {
        if index >= self.records.len() {
            return None;
        }
        let i = self.file_starts.partition_point(|&(_, first)| first as usize <= index);
        Some(self.file_starts.get(i.checked_sub(1)?)?.0)
    }

    /// The records of `file`: ranges of indices, in the file's line order (one range unless the
    /// file grew after others were read).
    pub fn records_of(&self, file: u32) -> impl Iterator<Item = std::ops::Range<usize>> + '_ {
        self.file_segments.get(file as usize).into_iter().flatten().map(|&seg| {
            let seg = seg as usize;
            let first = self.file_starts[seg].1 as usize;
            let end = self.file_starts.get(seg + 1).map_or(self.records.len(), |&(_, n)| n as usize);
            first..end
        })
    }

    /// A file's rank in reading order (its index unless files were read out of order).
    pub fn rank(&self, file: u32) -> u32 {
        self.ranks.get(file as usize).copied().unwrap_or(file)
    }

    /// A place's sort key: by the rank of its file, then its line.
    pub fn place_key(&self, at: Loc) -> (u32, u64) {
        (self.rank(at.file), at.line)
    }

    /// Whether the record at `index` has a place (`loc_of` is `Some`), without finding it.
    pub fn is_placed(&self, index: u32) -> bool {
        (index as usize) < self.records.len() && self.file_starts.first().is_some_and(|&(_, first)| first <= index)
    }

    /// The place of the record at `index`.
    pub fn loc_of(&self, index: u32) -> Option<Loc> {
        let r = self.records.get(index as usize)?;
        Some(Loc { file: self.file_of(index as usize)?, line: r.line as u64 })
    }

    /// Where the text of the record at `index` is.
    pub fn text_ref(&self, index: u32) -> Option<TextRef> {
        let r = self.records.get(index as usize)?;
        Some(TextRef { at: self.loc_of(index)?, offset: r.offset() })
    }

    /// Where the texts of `file`'s replies are in their lines, as routing saw them, from the
    /// line at byte offset `from` on: (byte offset of the line, start and length of the text's
    /// JSON string, quotes included), ascending. Found by a binary search in each run of the
    /// file's records, where the reply texts of a gigabyte log read back a window at a time
    /// walked past every span before the window's first (`Analysis::texts_of`).
    pub fn text_spans_from(&self, file: u32, from: u64) -> impl Iterator<Item = (u64, (u32, u32))> + '_ {
        self.records_of(file).flat_map(move |range| {
            let start = self.text_spans.partition_point(|&(r, _)| (r as usize) < range.start);
            let end = self.text_spans.partition_point(|&(r, _)| (r as usize) < range.end);
            let spans = &self.text_spans[start..end];
            let skip = spans.partition_point(|&(r, _)| self.records[r as usize].offset() < from);
            spans[skip..].iter().map(|&(r, span)| (self.records[r as usize].offset(), span))
        })
    }

    /// The wire time of the record at `index`, when it has one.
    pub fn time_of(&self, index: u32) -> Option<f64> {
        self.records.get(index as usize).map(|r| r.time).filter(|t| !t.is_nan())
    }

    /// The index of the last record added (the one being routed).
    pub fn last_record(&self) -> u32 {
        self.records.len().saturating_sub(1).min(u32::MAX as usize - 1) as u32
    }

    /// The record at a place: looked for first where its line number puts it when no line
    /// before it in its file was left out (a blank or broken line), then by a binary search
    /// within its file's records.
    pub fn find_record(&self, at: Loc) -> Option<usize> {
        // The run of the file's records whose lines reach this one (a file's runs are in line
        // order).
        let range = self
            .records_of(at.file)
            .take_while(|r| self.records.get(r.start).is_some_and(|first| u64::from(first.line) <= at.line))
            .last()?;
        let first = self.records.get(range.start)?;
        let guess = usize::try_from(at.line.checked_sub(u64::from(first.line))?).ok()?;
        let at_line = |i: usize| self.records.get(i).is_some_and(|r| u64::from(r.line) == at.line);
        if guess < range.len() && at_line(range.start + guess) {
            return Some(range.start + guess);
        }
        let i = self.records.partition_point(range.clone(), |r| u64::from(r.line) < at.line);
        (i < range.end && at_line(i)).then_some(i)
    }

    /// File `file` is read in the id space `format` (its format's id, or the space it shares
    /// with its harness's other formats, `Format::id_space`): the ids it names are that space's.
    pub fn set_file_scope(&mut self, file: u32, format: &'static str) {
        let sc = &mut self.scopes;
        let scope = match sc.names.iter().position(|&n| n == format) {
            Some(i) => i + 1,
            None => {
                sc.names.push(format);
                sc.names.len()
            }
        };
        let f = file as usize;
        if sc.files.len() <= f {
            sc.files.resize(f + 1, 0);
        }
        sc.files[f] = u8::try_from(scope).unwrap_or(0);
    }

    /// The symbol of id `s` as named in `file`: scoped by the file's format, so that two formats
    /// that use one id name two sessions. The first format to use an id gets its plain symbol;
    /// once another uses it too, each format's symbol is shown as `id@format`, whichever came
    /// first (a report does not depend on the order files were read in).
    pub fn scoped(&mut self, s: &str, file: u32) -> Sym {
        let raw = self.ids.intern(s);
        let sc = &mut self.scopes;
        let scope = sc.files.get(file as usize).copied().unwrap_or(0);
        if scope == 0 {
            return raw;
        }
        let i = raw.0 as usize;
        if sc.owners.len() <= i {
            sc.owners.resize(i + 1, 0);
        }
        match sc.owners[i] {
            0 => {
                sc.owners[i] = scope;
                raw
            }
            owner if owner == scope => raw,
            owner => self.scope_shared(s, raw, owner, scope),
        }
    }

    /// Id `s` (symbol `raw`, first used by scope `owner`) used by another format's file too.
    #[cold]
    fn scope_shared(&mut self, s: &str, raw: Sym, owner: u8, scope: u8) -> Sym {
        if let Some(&sym) = self.scopes.others.get(&(scope, raw.0)) {
            return sym;
        }
        let name = |sc: &Scopes, k: u8| sc.names[usize::from(k) - 1];
        let owner_shown = format!("{s}@{}", name(&self.scopes, owner));
        if self.ids.name(raw) != owner_shown {
            self.ids.show_as(raw, &owner_shown);
        }
        let sym = self.ids.alias(s, &format!("{s}@{}", name(&self.scopes, scope)));
        self.scopes.others.insert((scope, raw.0), sym);
        sym
    }

    pub fn sym(&mut self, s: &str, at: Loc) -> Sym {
        self.note_placeholder(s, at);
        self.scoped(s, at.file)
    }

    /// The file's `placeholder-ids` finding, once, when `s` is a placeholder (SPEC 1.1).
    pub fn note_placeholder(&mut self, s: &str, at: Loc) {
        if is_placeholder(s) && !self.placeholder_files.contains_key(&at.file) {
            self.placeholder_files.insert(at.file, self.findings.list.len());
            self.findings.add(
                Code::PlaceholderIds,
                at,
                None,
                format!("ids in this file are placeholders such as `{s}` (a normalized snapshot)"),
            );
        }
    }

    #[cold]
    fn start_segment(&mut self, file: u32) {
        let f = file as usize;
        if self.file_segments.len() <= f {
            self.file_segments.resize(f + 1, Vec::new());
        }
        self.file_segments[f].push(self.file_starts.len() as u32);
        self.file_starts.push((file, self.records.len().min(u32::MAX as usize) as u32));
    }

    /// `placeholder` stands for several sessions of `file` or of its folder (SPEC 1.1): the
    /// file's `placeholder-ids` finding says that they cannot be told apart by id.
    pub fn placeholder_shared(&mut self, file: u32, placeholder: &str) {
        if let Some(f) = self.placeholder_files.get(&file).and_then(|&i| self.findings.list.get_mut(i)) {
            f.message = format!("ids in this file are placeholders such as `{placeholder}` (a normalized snapshot): `{placeholder}` stands for several sessions, which their ids cannot tell apart (Arbor keeps them apart by file or by nesting)").into();
        }
    }

    /// Say what a record is once its format knows more than when it was made (a usage line
    /// that turned out to count a model call).
    pub fn set_kind(&mut self, record: u32, kind: Kind) {
        if let Some(r) = self.records.get_mut(record as usize) {
            r.pos = (r.pos & OFFSET_MASK) | (kind as u64) << OFFSET_BITS;
        }
    }

    pub fn record(&mut self, at: Loc, offset: u64, session: Option<Sym>, kind: Kind, time: Option<f64>) {
        if self.file_starts.last().is_none_or(|&(f, _)| f != at.file) {
            self.start_segment(at.file);
        }
        self.records.push(Record {
            pos: offset.min(OFFSET_MASK) | (kind as u64) << OFFSET_BITS,
            line: at.line.min(u32::MAX as u64) as u32,
            session: session.map_or(NO_SESSION, |s| s.0),
            time: time.unwrap_or(f64::NAN),
        });
        // Counting never makes a session: only what SPEC 2.1 names a session is one.
        if let Some(node) = session.and_then(|s| self.graph.get_mut(s)) {
            node.events += 1;
        }
    }
}

/// A normalized snapshot's id: `{{sessionId}}`, `{{session:1}}` (SPEC 1.1).
pub fn is_placeholder(id: &str) -> bool {
    id.starts_with("{{") && id.ends_with("}}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(line: u32) -> Record {
        Record { pos: u64::from(line) * 10, line, session: NO_SESSION, time: f64::NAN }
    }

    fn filled(n: u32) -> Records {
        let mut r = Records::default();
        for line in 0..n {
            r.push(rec(line));
        }
        r
    }

    #[test]
    fn records_read_back_across_chunks_in_order() {
        let n = (2 * CHUNK + 5) as u32;
        let r = filled(n);
        assert_eq!(r.len(), n as usize);
        for i in [0, CHUNK - 1, CHUNK, CHUNK + 1, 2 * CHUNK, n as usize - 1] {
            assert_eq!(r[i].line, i as u32, "record {i}");
        }
        assert!(r.get(n as usize).is_none());
        assert!(r.iter().map(|x| x.line).eq(0..n));
        assert_eq!(r.partition_point(0..n as usize, |x| x.line < 70_000), 70_000);
        assert_eq!(r.partition_point(CHUNK..CHUNK + 3, |x| x.line < 10), CHUNK);
    }

    /// A copy shares the full chunks: changing or adding records on either side leaves the
    /// other as it was.
    #[test]
    fn a_copy_of_the_records_is_not_changed_by_the_original() {
        let mut live = filled(CHUNK as u32 + 3);
        let snapshot = live.clone();
        live.get_mut(1).unwrap().line = 99;
        live.get_mut(CHUNK + 1).unwrap().line = 98;
        live.push(rec(7));
        assert_eq!((live[1].line, live[CHUNK + 1].line, live.len()), (99, 98, CHUNK + 4));
        assert_eq!((snapshot[1].line, snapshot[CHUNK + 1].line, snapshot.len()), (1, CHUNK as u32 + 1, CHUNK + 3));
    }

    /// `is_placed` says what `loc_of` finds, without finding it: files read in turn, and indices
    /// past the records.
    #[test]
    fn a_record_is_placed_where_loc_of_finds_it() {
        let mut cx = Ctx::default();
        for (file, line) in [(0, 1), (0, 2), (1, 1), (0, 3), (2, 1), (1, 2)] {
            cx.record(Loc { file, line }, line, None, Kind::Other, None);
        }
        for i in 0..9 {
            assert_eq!(cx.is_placed(i), cx.loc_of(i).is_some(), "record {i}");
        }
        assert!(!Ctx::default().is_placed(0));
    }

    #[test]
    fn a_record_is_found_by_its_line_in_a_file_with_lines_left_out() {
        let mut cx = Ctx::default();
        // Lines 1, 3, 4, …: line 2 was blank, so each later record is one place before its line.
        for line in (1..=(CHUNK as u64 + 10)).filter(|&l| l != 2) {
            cx.record(Loc { file: 0, line }, line, None, Kind::Other, None);
        }
        assert_eq!(cx.find_record(Loc { file: 0, line: 1 }), Some(0));
        assert_eq!(cx.find_record(Loc { file: 0, line: 2 }), None);
        assert_eq!(cx.find_record(Loc { file: 0, line: 3 }), Some(1));
        let far = CHUNK as u64 + 5;
        assert_eq!(cx.find_record(Loc { file: 0, line: far }), Some(far as usize - 2));
        assert_eq!(cx.find_record(Loc { file: 0, line: CHUNK as u64 + 11 }), None);
    }
}
