//! What both styles of an export share: a session's heading (`Head`), the elements a style
//! writes (`Render`), the writer with a budget (`Out`), and the words and numbers both show
//! (tokens, durations, outcomes, a tool call's main argument).

use std::io::{self, Write};

use crate::outputs::report_parts::DiagnosticRef;
use crate::report::{Outcome, Usage};
use crate::transcript::{Part, PartKind, Row};

/// What a session's heading says.
pub(crate) struct Head {
    pub id: String,
    /// A root's title, else the sub-agent's label (its type or description).
    pub title: Option<String>,
    pub label: Option<String>,
    pub format: Option<&'static str>,
    pub parent: Option<String>,
    pub depth: u32,
    pub start: Option<f64>,
    pub end: Option<f64>,
    pub outcome: Option<Outcome>,
    pub usage: Option<Usage>,
    /// The subtree's tokens, when the session has sub-agents.
    pub subtree: Option<Usage>,
    pub sub_agents: u32,
    pub rows: u32,
    /// The file its first row is in.
    pub file: Option<String>,
}

/// What a style writes, element by element. Every text is the log's: a style escapes it.
pub(crate) trait Render {
    fn begin(&mut self, o: &mut Out, title: &str) -> io::Result<()>;
    fn head(&mut self, o: &mut Out, h: &Head) -> io::Result<()>;
    fn part(&mut self, o: &mut Out, row: &Row, part: &Part, depth: u32) -> io::Result<()>;
    /// A sub-agent written inline: opened before its heading, closed after its findings.
    fn child_open(&mut self, o: &mut Out, h: &Head) -> io::Result<()>;
    fn child_close(&mut self, o: &mut Out, h: &Head) -> io::Result<()>;
    /// A sub-agent summarized at its spawn (the task is the spawn's text, the reply the part
    /// received after it); `file` names its own file when it has one.
    fn child_summary(&mut self, o: &mut Out, h: &Head, file: Option<&str>) -> io::Result<()>;
    /// The heading above the sub-agents no spawn of the transcript names.
    fn loose_children(&mut self, o: &mut Out, depth: u32) -> io::Result<()>;
    fn findings(&mut self, o: &mut Out, list: &[DiagnosticRef<'_>], depth: u32) -> io::Result<()>;
    fn end(&mut self, o: &mut Out, footer: &str) -> io::Result<()>;
}

/// A writer with a budget of bytes: past it, writing stops with `Out::CUT`.
pub(crate) struct Out<'w> {
    pub w: &'w mut dyn Write,
    pub left: u64,
}

impl Out<'_> {
    pub const CUT: &'static str = "arbor: the export's budget is spent";

    pub fn str(&mut self, s: &str) -> io::Result<()> {
        let n = s.len() as u64;
        if n > self.left {
            // Cut on a character, so that a preview is still text.
            let mut end = self.left as usize;
            while !s.is_char_boundary(end) {
                end -= 1;
            }
            self.w.write_all(&s.as_bytes()[..end])?;
            self.left = 0;
            return Err(io::Error::other(Self::CUT));
        }
        self.left -= n;
        self.w.write_all(s.as_bytes())
    }
}

/// Tokens as a person reads them: `1.2M`, `34.5k`, `812`.
pub(crate) fn tokens(n: u64) -> String {
    match n {
        0..=999 => n.to_string(),
        1_000..=999_999 => format!("{:.1}k", n as f64 / 1e3),
        _ => format!("{:.2}M", n as f64 / 1e6),
    }
}

/// A count of tokens in words: `in 1.2k · out 340 · cache read 12k · $0.42`.
pub(crate) fn usage_line(u: &Usage) -> String {
    let mut s = format!("in {} · out {}", tokens(u.input), tokens(u.output));
    if u.cache_read > 0 {
        s.push_str(&format!(" · cache read {}", tokens(u.cache_read)));
    }
    if u.cache_write > 0 {
        s.push_str(&format!(" · cache write {}", tokens(u.cache_write)));
    }
    if let Some(c) = u.cost {
        s.push_str(&format!(" · ${c:.2}"));
    }
    if let Some(un) = &u.unpriced {
        s.push_str(&format!(" + {} tokens unpriced", tokens(un.tokens)));
    }
    s
}

/// A span of time in words: `42 s`, `3 min 05 s`, `2 h 07 min`.
pub(crate) fn duration(ms: f64) -> String {
    let s = (ms / 1000.0).round() as u64;
    match s {
        0..=59 => format!("{s} s"),
        60..=3599 => format!("{} min {:02} s", s / 60, s % 60),
        _ => format!("{} h {:02} min", s / 3600, s / 60 % 60),
    }
}

pub(crate) fn outcome(o: Outcome) -> &'static str {
    match o {
        Outcome::Ok => "ok",
        Outcome::Error => "error",
        Outcome::Cancelled => "cancelled",
        Outcome::Open => "open (no end recorded)",
    }
}

/// The facts of a heading, as (name, value) pairs, in the order both styles show them.
pub(crate) fn facts(h: &Head) -> Vec<(&'static str, String)> {
    let mut f = vec![("session", h.id.clone())];
    if let (Some(l), Some(_)) = (&h.label, &h.parent) {
        f.push(("agent", l.clone()));
    }
    if let Some(p) = &h.parent {
        f.push(("parent", p.clone()));
    }
    if let Some(x) = h.format {
        f.push(("format", x.to_owned()));
    }
    if let Some(file) = &h.file {
        f.push(("file", file.clone()));
    }
    if let Some(t) = h.start.and_then(crate::text::time::ms_rfc3339) {
        f.push(("started", t));
    }
    if let (Some(s), Some(e)) = (h.start, h.end) {
        if e >= s {
            f.push(("duration", duration(e - s)));
        }
    }
    if let Some(o) = h.outcome {
        f.push(("outcome", outcome(o).to_owned()));
    }
    f.push(("items", h.rows.to_string()));
    if let Some(u) = &h.usage {
        f.push(("tokens", usage_line(u)));
    }
    if let Some(u) = &h.subtree {
        f.push((
            if h.sub_agents == 1 { "with its sub-agent" } else { "with its sub-agents" },
            format!("{} ({} sessions)", usage_line(u), h.sub_agents + 1),
        ));
    }
    f
}

/// A row's time of day by the log's clock (UTC), `HH:MM:SS`.
pub(crate) fn clock(time: Option<f64>) -> Option<String> {
    let t = crate::text::time::ms_rfc3339(time?)?;
    Some(t.get(11..19)?.to_owned())
}

/// What a part is called in an export.
pub(crate) fn kind_name(k: PartKind) -> &'static str {
    match k {
        PartKind::Prompt => "Prompt",
        PartKind::Text => "Assistant",
        PartKind::Reasoning => "Reasoning",
        PartKind::ToolCall => "Tool call",
        PartKind::ToolResult => "Tool result",
        PartKind::Spawn => "Spawned a sub-agent",
        PartKind::Received => "Received from the sub-agent",
        PartKind::Compaction => "Context compacted",
        PartKind::Notice => "Notice",
        PartKind::Usage => "Model call",
        PartKind::Image => "Image",
    }
}

/// A tool call's main argument on one line (`Bash: cargo test`, `Edit: src/x.rs`): the first of
/// the arguments people name a call by, else none.
pub(crate) fn main_argument(part: &Part) -> Option<String> {
    const KEYS: [&str; 12] = [
        "command",
        "cmd",
        "file_path",
        "path",
        "notebook_path",
        "pattern",
        "url",
        "query",
        "description",
        "subagent_type",
        "prompt",
        "message",
    ];
    let v: serde_json::Value = serde_json::from_str(&part.text).ok()?;
    let obj = v.as_object()?;
    let text = KEYS.iter().find_map(|k| match obj.get(*k)? {
        serde_json::Value::String(s) => Some(s.clone()),
        serde_json::Value::Array(a) => {
            let words: Vec<&str> = a.iter().filter_map(|x| x.as_str()).collect();
            (!words.is_empty()).then(|| words.join(" "))
        }
        _ => None,
    })?;
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let short: String = line.chars().take(160).collect();
    Some(if short.len() < line.len() { short + "…" } else { short })
}

/// A part's text as shown: JSON pretty-printed, else as it is.
pub(crate) fn shown_text(part: &Part) -> String {
    if part.json {
        if let Ok(v) = serde_json::from_str::<serde_json::Value>(&part.text) {
            if let Ok(s) = serde_json::to_string_pretty(&v) {
                return s;
            }
        }
    }
    part.text.clone()
}

pub(crate) fn severity(s: crate::report::Severity) -> &'static str {
    match s {
        crate::report::Severity::Error => "error",
        crate::report::Severity::Warning => "warning",
        crate::report::Severity::Info => "info",
    }
}

/// What the line above an item says, in the order both styles show it: what it is, the name it
/// is about (a tool, a child, a model, an image's type), its size, whether it failed, a tool
/// call's main argument, its place, its time of day and its tokens.
pub(crate) struct Meta {
    pub who: &'static str,
    pub name: Option<String>,
    pub bytes: Option<u64>,
    pub error: bool,
    pub argument: Option<String>,
    pub place: String,
    pub time: Option<String>,
    pub tokens: Option<String>,
}

impl Meta {
    pub fn of(row: &Row, part: &Part) -> Meta {
        let name = match part.kind {
            PartKind::ToolCall | PartKind::ToolResult => part.tool.clone(),
            PartKind::Spawn | PartKind::Received => part.child.clone(),
            PartKind::Usage => part.model.clone(),
            PartKind::Image => {
                part.media.as_ref().map(|m| m.media_type.clone().unwrap_or_else(|| "type unknown".to_owned()))
            }
            _ => None,
        };
        Meta {
            who: kind_name(part.kind),
            name,
            bytes: part.media.as_ref().and_then(|m| m.bytes).filter(|_| part.kind == PartKind::Image),
            error: part.is_error == Some(true),
            argument: (part.kind == PartKind::ToolCall).then(|| main_argument(part)).flatten(),
            place: format!("{}:{}", row.at.file, row.at.line),
            time: clock(row.time),
            tokens: part.usage.as_ref().map(usage_line),
        }
    }
}
