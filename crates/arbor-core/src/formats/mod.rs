//! The formats Arbor reads: one module per input dialect, each behind the same small interface.
//!
//! A format owns its **vote** (does one of a file's first lines look like mine?), its **line
//! shape** (what a line is parsed into, on the worker threads), its **state machine** (what a
//! file's lines mean, in wire order, written into the analysis `Ctx`), what it **settles** once
//! every file is read (links that cross files), and how a reply's text is **read back** from its
//! line. The driver (`analysis`) knows formats only through `Format` and `Machine`; the graph,
//! report and UI know them only by their `FormatInfo`. Adding a format is a module here and one
//! line in `registry!` below, and nothing else in the engine.
//!
//! The four harness formats of the JSON-RPC and event-envelope family (dsh-rpc, dsh-session,
//! copilot-events, copilot-rpc) share one line shape, `wire::WireShape` (the union of their
//! fields, read by the hand-tuned `scan`): their lines share one vocabulary and splitting the
//! scanner would only duplicate it. A format with lines of another shape declares its own with
//! `line_shape!`.

use crate::ctx::Ctx;
use crate::finding::{Code, Loc};
use crate::reader::{Block, InputFile};

pub(crate) use crate::text::shape::{erase, line_shape, take_ahead};
pub use crate::text::shape::{ahead, AheadParsed, ChunkArena, ParseAhead, Shape};

pub use crate::analysis::Reading;

/// The formats, in the order they vote: the first whose vote is yes names a line's format.
/// Each entry is `module: [its FormatInfo constants]`.
macro_rules! registry {
    ($($module:ident: [$($format:ident),+],)+) => {
        $(mod $module;)+
        /// Every format the engine reads, in voting order.
        pub const FORMATS: &[FormatInfo] = &[$($($module::$format,)+)+];
    };
}

mod dsh_events;
mod wire_transcript;

#[doc(hidden)]
pub use claude_code::line_readings as claude_code_line_readings;

registry! {
    dsh_rpc: [FORMAT],
    dsh_session: [FORMAT],
    copilot: [EVENTS, RPC],
    codex: [FORMAT],
    claude_code: [FORMAT],
}

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

    /// Read one file in this format: make its state machine and hand it to `file.route`, which
    /// routes every line through it in wire order. `false` when the reading was cancelled.
    fn read(&self, file: Reading<'_>) -> bool;

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

    /// Whether more first lines could change how this file is read (`read` looked at `head`, which
    /// had fewer than `DETECT_LINES` lines): a followed file that grows is then read again whole.
    fn head_settled(&self, _head: Head<'_>) -> bool {
        true
    }

    /// A recording whose turns, replies and boundary findings give way to a durable log of the
    /// same session, when one is loaded too (SPEC 2.3).
    fn defers_to_durable(&self) -> bool {
        false
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

/// How much of a log's head `about_head` is given to read.
const ABOUT_HEAD: usize = 64 * 1024;
/// A title is cut to this many characters.
const ABOUT_CHARS: usize = 120;

/// What a log is about, from its head (its first `ABOUT_HEAD` bytes): the first title or summary
/// line, else the first prompt the user typed (not a harness's context block, which starts with
/// `<`), on one line and cut to a list's width. `format` reads the lines; with `None` every format
/// is asked (a list of logs not yet detected).
pub fn about_head(head: &[u8], format: Option<&FormatInfo>) -> Option<String> {
    let ask = |line: &[u8]| match format {
        Some(f) => f.reader.about(line),
        None => FORMATS.iter().find_map(|f| f.reader.about(line)),
    };
    let mut prompt = None;
    for line in head.split(|&b| b == b'\n') {
        match ask(line) {
            Some(About::Title(t)) => {
                if let Some(t) = about_line(&t) {
                    return Some(t);
                }
            }
            Some(About::Prompt(p)) if prompt.is_none() && !p.trim_start().starts_with('<') => prompt = about_line(&p),
            _ => {}
        }
    }
    prompt
}

/// What the log at `path` is about: `about_head` over its first `ABOUT_HEAD` bytes. `None` for a
/// compressed log (its head is not decompressed for a title) or one that cannot be read.
pub fn about_file(path: &std::path::Path, format: Option<&FormatInfo>) -> Option<String> {
    use std::io::Read;
    if path.extension().is_some_and(|e| e == "zst") {
        return None;
    }
    let mut head = Vec::new();
    std::fs::File::open(path).ok()?.take(ABOUT_HEAD as u64).read_to_end(&mut head).ok()?;
    about_head(&head, format)
}

/// `text` on one line (runs of whitespace made one space), cut to `ABOUT_CHARS` characters;
/// `None` when nothing is left.
pub fn about_line(text: &str) -> Option<String> {
    let mut out = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if out.chars().count() > ABOUT_CHARS {
        out = out.chars().take(ABOUT_CHARS - 1).collect::<String>() + "…";
    }
    (!out.is_empty()).then_some(out)
}

/// A JSON line's string at `pointer`, for `Format::about` (a head is small: a `Value` will do).
fn about_str(line: &serde_json::Value, pointer: &str) -> Option<String> {
    line.pointer(pointer).and_then(|v| v.as_str()).map(str::to_owned)
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

/// The format of one line: the first format in registry order whose vote is yes.
pub fn vote(bytes: &[u8]) -> Option<&'static FormatInfo> {
    let head = HeadLine::new(bytes);
    FORMATS.iter().find(|f| f.reader.vote(&head))
}

/// The format of a file, from its first lines (SPEC 1: from content, never from the name): the
/// first line with a vote decides.
pub fn detect<'a>(lines: impl IntoIterator<Item = &'a [u8]>) -> Option<&'static FormatInfo> {
    lines.into_iter().take(DETECT_LINES).find_map(vote)
}

/// The format whose id this is.
pub fn by_id(id: &str) -> Option<&'static FormatInfo> {
    FORMATS.iter().find(|f| f.id == id)
}

/// A dsh event type looks like `turn/start` or `text-chunks`.
fn dsh_like_type(t: &str) -> bool {
    t.contains('/') || t.ends_with("-chunks")
}

/// A Copilot event type looks like `assistant.message`.
fn copilot_like_type(t: &str) -> bool {
    t.contains('.') && !t.contains('/')
}

/// A file's stem: its name up to the first dot.
fn stem(display: &str) -> String {
    let name = display.rsplit('/').next().unwrap_or(display);
    name.split('.').next().unwrap_or(name).to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(lines: &[&str]) -> Option<&'static str> {
        detect(lines.iter().map(|l| l.as_bytes())).map(|f| f.id)
    }

    #[test]
    fn each_format_is_recognised_by_its_first_decisive_line() {
        assert_eq!(
            of(&[
                r#"{"method":"session.event","params":{"sessionId":"s","event":{"type":"turn/start","seq":1,"data":{}}}}"#
            ]),
            Some("dsh-rpc")
        );
        assert_eq!(
            of(&[r#"{"jsonrpc":"2.0","id":1,"result":{}}"#, r#"{"method":"subagent.started","params":{}}"#]),
            Some("dsh-rpc")
        );
        assert_eq!(of(&[r#"{"type":"session","version":0,"id":"c1","parentSession":"s1"}"#]), Some("dsh-session"));
        assert_eq!(
            of(&[
                r#"{"type":"assistant.message","data":{"content":"x"},"id":"e5","timestamp":"2026-09-12T00:00:05Z"}"#
            ]),
            Some("copilot-events")
        );
        assert_eq!(
            of(&[
                r#"{"jsonrpc":"2.0","method":"session.event","params":{"sessionId":"s1","event":{"type":"user.message","id":"e1","timestamp":"t"}}}"#
            ]),
            Some("copilot-rpc")
        );
    }

    #[test]
    fn foreign_and_ambiguous_lines_do_not_vote() {
        assert_eq!(of(&[r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"x"}}"#]), None);
        assert_eq!(of(&[r#"{"type":"user","message":{"role":"user"}}"#, "not json", "[1,2]"]), None);
        // A JSON-RPC line is never a durable or envelope line, whatever its `type`.
        assert_eq!(of(&[r#"{"method":"session/update","type":"turn/start","data":{}}"#]), None);
        // A dotted type that also ends like a packed row: a durable log when it has data or seq,
        // else an envelope (the dsh vote comes first).
        assert_eq!(of(&[r#"{"type":"a.text-chunks","seq":1,"id":"e"}"#]), Some("dsh-session"));
        assert_eq!(of(&[r#"{"type":"a.text-chunks","id":"e"}"#]), Some("copilot-events"));
    }

    #[test]
    fn every_format_has_a_distinct_id() {
        let mut ids: Vec<&str> = FORMATS.iter().map(|f| f.id).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), FORMATS.len());
        assert!(FORMATS.iter().all(|f| by_id(f.id) == Some(f)));
    }
}
