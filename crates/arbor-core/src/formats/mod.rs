//! The formats Arbor reads: one module per input dialect, each behind the same small interface.
//!
//! A format owns its **vote** (does one of a file's first lines look like mine?), its **line
//! shape** (what a line is parsed into, on the worker threads), its **state machine** (what a
//! file's lines mean, in wire order, written into the analysis `Ctx`), what it **settles** once
//! every file is read (links that cross files), and how a reply's text is **read back** from its
//! line. The driver (`analysis`) knows formats only through `Format` and the `Routed` machine a
//! format returns for each file; the graph,
//! report and UI know them only by their `FormatInfo`. Adding a format is a module here and one
//! line in `registry!` below, and nothing else in the engine.
//!
//! The four harness formats of the JSON-RPC and event-envelope family (dsh-rpc, dsh-session,
//! copilot-events, copilot-rpc) share one line shape, `wire::WireShape` (the union of their
//! fields, read by the hand-tuned `scan`): their lines share one vocabulary and splitting the
//! scanner would only duplicate it. A format with lines of another shape declares its own with
//! `line_shape!`.

mod common;
mod format;

pub(crate) use crate::text::shape::line_shape;
pub use crate::text::shape::{ahead, AheadParsed, ChunkArena, ParseAhead, Shape};
pub(crate) use common::{about_str, copilot_like_type, dsh_like_type, stem, without_context};
pub use format::{
    routed, About, FileStart, Format, FormatInfo, Head, HeadLine, LineCounts, Machine, Plan, Planned, Routed, Skip,
    DETECT_LINES,
};

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
pub use codex::line_readings as codex_line_readings;
/// A Codex rollout's links to other threads, read without analysing it (the library's grouping).
pub use codex::{thread_body_line, thread_head, ThreadBody, ThreadHead, THREAD_BODY_MARKERS, THREAD_REVIEW_WINDOW_MS};
pub use gemini_cli::line_readings as gemini_cli_line_readings;
pub use gemini_cli::received_readings as gemini_cli_received_readings;
/// OpenCode's placeholder title (a session no model named yet).
pub use opencode::is_default_title as opencode_default_title;
pub use opencode::row_readings as opencode_row_readings;

registry! {
    dsh_rpc: [FORMAT],
    dsh_session: [FORMAT],
    copilot: [EVENTS, RPC],
    codex: [FORMAT],
    claude_code: [FORMAT],
    gemini_cli: [FORMAT],
    opencode: [FORMAT],
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
    // Line 1 as the reader gives it: a byte-order mark before it is not part of it. A multi-line
    // value (a whole-file JSON document) is asked whole, as the reader gives it, when it closes
    // within the head.
    let head = crate::reader::without_bom(head);
    let mut rest = head;
    while !rest.is_empty() {
        let end = memchr::memchr(b'\n', rest).map_or(rest.len(), |i| i + 1);
        let mut len = end;
        if rest[..end].ends_with(b"\n") && crate::reader::opens_value(&rest[..end]) {
            let mut framing = crate::reader::Framing::default();
            framing.feed(&rest[..end]);
            while !framing.closed() && len < rest.len() {
                let next = memchr::memchr(b'\n', &rest[len..]).map_or(rest.len(), |i| len + i + 1);
                framing.feed(&rest[len..next]);
                len = next;
            }
            if !framing.closed() {
                len = end;
            }
        }
        let line = rest[..len].strip_suffix(b"\n").unwrap_or(&rest[..len]);
        rest = &rest[len..];
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
