//! The interface between a format and the rest of the engine: what a format is (`FormatInfo`,
//! `Format`), what it is shown (`Plan`, `HeadLine`, `Head`, `FileStart`), and the state machine
//! it returns for a file (`Machine`, boxed as `Routed` for the driver, which owns the loop).

use crate::ctx::Ctx;
use crate::finding::{Code, Loc};
use crate::reader::{self, Block, InputFile, LineEnd};
use crate::text::shape::{ahead, with_shape, AheadParsed, ChunkArena, ParseAhead, Shape};

/// A format the engine reads: its id (as reports name it), a sentence for people, and its reader.
#[derive(Debug, Clone, Copy, serde::Serialize, ts_rs::TS)]
pub struct FormatInfo {
    pub id: &'static str,
    pub description: &'static str,
    #[serde(skip)]
    #[ts(skip)]
    pub reader: &'static dyn Format,
}

impl PartialEq for FormatInfo {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
    }
}

impl Eq for FormatInfo {}

/// The interface between a format and the driver.
pub trait Format: Sync + std::fmt::Debug {
    /// Before anything is read: add the files that come with an opened one (a session's own
    /// sub-agent transcripts beside it), order them, or set aside files this format must not
    /// read (an older generation of a session file), each with the finding that says why.
    /// Formats are asked in registry order; most leave the plan as it is.
    fn plan(&self, _plan: &mut Plan) {}

    /// Whether one of a file's first lines is in this format. Votes are asked in registry order
    /// and the first yes decides, so a vote says yes only to what is unmistakably its own.
    fn vote(&self, line: &HeadLine) -> bool;

    /// The state machine that reads one file in this format, made from what the file starts
    /// with (`routed(MyMachine::new(..))`); the driver routes every line through it in wire order.
    fn machine(&self, file: &FileStart<'_>) -> Box<dyn Routed>;

    /// Once every file is read: settle what crosses files (a child whose parent's file came later).
    fn settle(&self, _cx: &mut Ctx) {}

    /// The text of the reply whose record is this line (SPEC 4 `replies`), read back when the
    /// report is built: the record index never holds texts.
    fn reply_text(&self, line: &[u8]) -> String;

    /// The text a parent received from a child at this line (`Ctx::received`); `key` picks one
    /// result out of a line that holds several.
    fn received_text(&self, line: &[u8], _key: Option<&str>) -> String {
        self.reply_text(line)
    }

    /// What one line says, as transcript parts (SPEC 5 Transcript), read back a page at a time:
    /// nothing for a line a reader does not need (boundaries, chunks, bookkeeping).
    fn transcript(&self, _line: &[u8], _out: &mut Vec<crate::vocab::transcript::Draft>) {}

    /// `transcript_as`, for a comparison: of the records `may_compare` keeps, every part in order,
    /// where only prompts, replies, tool calls and spawns need their text (a format may read them
    /// faster than a page does).
    fn compared_parts(&self, line: &[u8], kind: crate::ctx::Kind, out: &mut Vec<crate::vocab::transcript::Draft>) {
        self.transcript_as(line, kind, out)
    }

    /// Whether a record of this kind may hold a part a comparison compares (a prompt, a reply, a
    /// tool call or spawn: SPEC 6.3): a comparison reads back only those. `false` only for a kind
    /// whose lines `transcript` never gives such a part.
    fn may_compare(&self, _kind: crate::ctx::Kind) -> bool {
        true
    }

    /// `transcript`, for a format whose line alone does not say what it is: its record's kind,
    /// as the format settled it, tells (an OpenCode text part is a prompt or a reply by its
    /// message's role, which is another record).
    fn transcript_as(&self, line: &[u8], _kind: crate::ctx::Kind, out: &mut Vec<crate::vocab::transcript::Draft>) {
        self.transcript(line, out)
    }

    /// Whether more first lines could change how this file is read (`machine` looked at `head`, which
    /// had fewer than `DETECT_LINES` lines): a followed file that grows is then read again whole.
    fn head_settled(&self, _head: Head<'_>) -> bool {
        true
    }

    /// A recording whose turns, replies and boundary findings give way to a durable log of the
    /// same session, when one is loaded too (SPEC 2.3).
    fn defers_to_durable(&self) -> bool {
        false
    }

    /// The space its session ids are named in, shared with the formats of the same harness
    /// (`dsh-rpc` and `dsh-session` name one session by one id: the recording gives way to the
    /// durable log, SPEC 2.3); `None`: its own, its format id. An id two spaces use names two
    /// sessions (`Ctx::scoped`), each reported as `id@space`.
    fn id_space(&self) -> Option<&'static str> {
        None
    }

    /// What this line says its session is about, for a viewer's lists and tree (never the
    /// report, whose `label` is the SPEC's): a title or summary, or a prompt the user typed.
    fn about(&self, _line: &[u8]) -> Option<About> {
        None
    }

    /// How a small file of this format may be parsed ahead, on another thread, while the file
    /// before it is routed (a folder of many small files; `ahead::<MyShape>`): the shape its
    /// machine reads. `None`: parsed where it is routed.
    fn parse_ahead(&self) -> Option<ParseAhead> {
        None
    }
}

/// What a format is shown of a file to make its machine (`Format::machine`).
pub struct FileStart<'a> {
    /// The file's name as the report shows it.
    pub display: &'a str,
    /// Where the file is.
    pub path: &'a std::path::Path,
    /// The file's first lines (those detection read).
    pub head: Head<'a>,
}

impl FileStart<'_> {
    /// `head`, a line at a time.
    pub fn head_lines(&self) -> impl Iterator<Item = &[u8]> + '_ {
        self.head.lines()
    }
}

/// A file's state machine as the driver holds it, its line shape forgotten: the driver owns the
/// loop (reading, parse workers, order, progress, cancelling, keeping a followed file's machine)
/// and hands it parsed chunks; the work per line stays `Machine` code, monomorphised in `Held`.
pub trait Routed: Send {
    /// How this machine's lines are parsed (on any thread): `ahead::<its Shape>`.
    fn parse(&self) -> ParseAhead;

    /// Route one parsed chunk's lines through the machine in wire order, counting them into
    /// `counts`. The chunk is given back (to be freed where it was made). With `hold_tail`, a
    /// last line with no newline (a log still being written) is not routed but given back too,
    /// alone in a block of its own. A chunk parsed as another shape is parsed again as this one.
    fn route(
        &mut self,
        cx: &mut Ctx,
        counts: &mut LineCounts,
        file: u32,
        parsed: Box<dyn AheadParsed>,
        hold_tail: bool,
    ) -> (Box<dyn AheadParsed>, Option<Block>);

    /// Parse a block of whole lines here and route them (what is appended to a followed file);
    /// the block is given back to be filled again.
    fn feed(&mut self, cx: &mut Ctx, counts: &mut LineCounts, file: u32, block: Block) -> Block;

    /// `Machine::finish`.
    fn finish(&mut self, cx: &mut Ctx);

    /// `Machine::finish_copy`.
    fn finish_copy(&self, cx: &mut Ctx);

    fn clone_box(&self) -> Box<dyn Routed>;
}

/// A file's lines as routing counted them: records (lines that parsed, or the records a line
/// that holds several was indexed as) and bad lines.
#[derive(Debug, Default, Clone, Copy)]
pub struct LineCounts {
    pub records: u64,
    pub bad_lines: u64,
}

/// A machine, boxed for the driver (`Format::machine`).
pub fn routed<M: Machine>(machine: M) -> Box<dyn Routed> {
    Box::new(Held(machine))
}

struct Held<M>(M);

impl<M: Machine> Routed for Held<M> {
    fn parse(&self) -> ParseAhead {
        ahead::<M::Shape>
    }

    fn route(
        &mut self,
        cx: &mut Ctx,
        counts: &mut LineCounts,
        file: u32,
        parsed: Box<dyn AheadParsed>,
        hold_tail: bool,
    ) -> (Box<dyn AheadParsed>, Option<Block>) {
        with_shape::<M::Shape, _>(parsed, |p| {
            let chunk = &M::Shape::owner(p).chunk;
            route_lines(&mut self.0, cx, counts, file, chunk, M::Shape::lines(p), hold_tail)
        })
    }

    fn feed(&mut self, cx: &mut Ctx, counts: &mut LineCounts, file: u32, block: Block) -> Block {
        let parsed = M::Shape::parse(ChunkArena { chunk: block, arena: bumpalo::Bump::new() });
        route_lines(&mut self.0, cx, counts, file, &M::Shape::owner(&parsed).chunk, M::Shape::lines(&parsed), false);
        M::Shape::into_owner(parsed).chunk
    }

    fn finish(&mut self, cx: &mut Ctx) {
        self.0.finish(cx)
    }

    fn finish_copy(&self, cx: &mut Ctx) {
        self.0.finish_copy(cx)
    }

    fn clone_box(&self) -> Box<dyn Routed> {
        Box::new(Held(self.0.clone()))
    }
}

/// Lines ahead of the one being routed whose payloads are fetched into the cache.
const PREFETCH: usize = 4;

/// Route one chunk's lines through `state`: each line that parsed, in order; a finding for each
/// that did not. With `hold_tail`, a last line with no newline (a log still being written) is
/// not routed but given back, alone in a block of its own, to be routed once it is finished.
#[inline]
fn route_lines<M: Machine>(
    state: &mut M,
    cx: &mut Ctx,
    counts: &mut LineCounts,
    file: u32,
    chunk: &Block,
    parsed: &[Option<<M::Shape as Shape>::Line<'_>>],
    hold_tail: bool,
) -> Option<Block> {
    for (i, (&span, line)) in chunk.lines.iter().zip(parsed).enumerate() {
        let reader::Span { number, offset, start, end, how } = span;
        if let Some(Some(ahead)) = parsed.get(i + PREFETCH) {
            M::Shape::prefetch(ahead);
        }
        let bytes = &chunk.bytes[start..end];
        if hold_tail && how == LineEnd::EndOfFile {
            return Some(Block {
                bytes: bytes.to_vec(),
                lines: vec![reader::Span { number, offset, start: 0, end: bytes.len(), how }],
                read_to: offset + bytes.len() as u64,
            });
        }
        if hold_tail && how == LineEnd::OverlongAtEnd {
            // Held with none of its bytes: what is appended is skipped from its start again.
            return Some(Block {
                bytes: Vec::new(),
                lines: vec![reader::Span { number, offset, start: 0, end: 0, how }],
                read_to: chunk.read_to,
            });
        }
        let at = Loc { file, line: number };
        match line {
            Some(line) => {
                let before = cx.records.len();
                cx.graph.set_place(at);
                state.line(cx, line, at, offset);
                // A line is a record; one that holds several (a whole-file document's messages,
                // each indexed at its own line) counts each, as the record index holds them.
                counts.records += (cx.records.len() - before).max(1) as u64;
            }
            None if !how.overlong() && bytes.iter().all(|b| b.is_ascii_whitespace()) => {}
            None if how.overlong() => {
                counts.bad_lines += 1;
                cx.findings.add(
                    Code::MalformedLine,
                    at,
                    None,
                    format!("the line is longer than {} MiB: skipped without reading it", reader::MAX_LINE >> 20),
                );
            }
            None => {
                counts.bad_lines += 1;
                if how == LineEnd::Newline {
                    cx.findings.add(Code::MalformedLine, at, None, malformed_why(bytes));
                } else {
                    cx.findings.add(
                        Code::TruncatedFinalLine,
                        at,
                        None,
                        "the last line has no final newline and does not parse: the log was still being written",
                    );
                }
            }
        }
    }
    None
}

/// Why a line that did not parse did not.
fn malformed_why(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Err(e) => format!("the line is not valid UTF-8 (at byte {})", e.valid_up_to()),
        Ok(s) => match serde_json::from_str::<serde::de::IgnoredAny>(s) {
            Err(e) => format!("the line is not JSON: {e}"),
            // An object the shapes refuse: a repeated field, a number out of range or a broken
            // escape in a field, nesting past 127 levels; serde_json's reading says which.
            Ok(_) if s.trim_start().starts_with('{') => match serde_json::from_str::<crate::wire::Line>(s) {
                Err(e) => format!("the line is a JSON object that cannot be read: {e}"),
                Ok(_) => "the line is a JSON object that could not be read".to_owned(),
            },
            Ok(_) => "the line is JSON but not an object".to_owned(),
        },
    }
}

/// What a line says a session is about (`Format::about`).
#[derive(Debug, Clone, PartialEq)]
pub enum About {
    /// A title or summary the harness wrote: it wins over any prompt.
    Title(String),
    /// A prompt the user typed: the first one serves when no title comes.
    Prompt(String),
}

/// A file's first lines, those detection read (at most `DETECT_LINES`), where they lie: in the
/// blocks read ahead, which wait to be routed (or, parsed ahead, in their parsed chunks).
#[derive(Clone, Copy)]
pub struct Head<'a> {
    pub(crate) chunks: &'a std::collections::VecDeque<Block>,
    pub(crate) parsed: &'a std::collections::VecDeque<Box<dyn AheadParsed>>,
    pub(crate) len: usize,
}

impl<'a> Head<'a> {
    pub fn lines(self) -> impl Iterator<Item = &'a [u8]> + 'a {
        let parsed = self.parsed.iter().map(|p| &p.owner().chunk);
        self.chunks
            .iter()
            .chain(parsed)
            .flat_map(|c| c.lines.iter().map(move |l| &c.bytes[l.start..l.end]))
            .take(self.len)
    }

    pub fn len(self) -> usize {
        self.len
    }

    pub fn is_empty(self) -> bool {
        self.len == 0
    }
}

/// The files an analysis will read, in order, as the formats plan them (`Format::plan`).
#[derive(Debug, Default)]
pub struct Plan {
    pub files: Vec<Planned>,
    /// What formats learned while planning, handed to the reading as the context's slots.
    pub(crate) exts: crate::ctx::Exts,
}

impl Plan {
    /// A format's own slot of type `T`, which its reading finds again as `Ctx::ext::<T>()`.
    pub fn ext<T: Default + Clone + Send + Sync + std::fmt::Debug + 'static>(&mut self) -> &mut T {
        self.exts.get::<T>()
    }
}

/// One file of a plan.
#[derive(Debug)]
pub struct Planned {
    pub input: InputFile,
    /// Set aside by a format: the file is listed in the report as that format, with no records,
    /// and the finding is reported at its line 1.
    pub skip: Option<Skip>,
    /// Claimed by a format that knows the file by its place beside files of its own (a Claude
    /// Code sidecar beside its transcript): read as that format without detection, so that a
    /// line that does not parse is that format's `malformed-line`, not an `unknown-format` file.
    pub format: Option<&'static FormatInfo>,
}

#[derive(Debug)]
pub struct Skip {
    pub format: &'static FormatInfo,
    pub code: Code,
    pub message: String,
}

/// The state machine of one file: it sees the file's parsed lines in wire order. It can be kept
/// and copied (a followed log is fed what is appended, and copies of it are finished to show it).
pub trait Machine: Clone + Send + 'static {
    type Shape: Shape;

    /// One line that parsed, at its place and byte offset.
    fn line(&mut self, cx: &mut Ctx, line: &<Self::Shape as Shape>::Line<'_>, at: Loc, offset: u64);

    /// The end of the file.
    fn finish(&mut self, cx: &mut Ctx);

    /// What `finish` would add to `cx`, the machine left as it is (a followed log's snapshot,
    /// made again at every change). A machine that holds much its end does not touch says so
    /// without copying it all.
    fn finish_copy(&self, cx: &mut Ctx) {
        self.clone().finish(cx)
    }
}

/// One of a file's first lines, as detection shows it to each format's vote: its bytes, and its
/// reading in the harness family's shape when it has one.
pub struct HeadLine<'a> {
    bytes: &'a [u8],
    wire: Option<crate::wire::Line<'a>>,
}

impl<'a> HeadLine<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        HeadLine { bytes, wire: crate::scan::parse_line(bytes) }
    }

    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The line in the harness family's shape, when it is a JSON object that shape reads.
    pub fn wire(&self) -> Option<&crate::wire::Line<'a>> {
        self.wire.as_ref()
    }
}

/// How many lines detection looks at before it gives up.
pub const DETECT_LINES: usize = 200;
