//! The transcript's words (SPEC 5 Transcript): what a row's parts are (`PartKind`), a part as a
//! format reads it from a line (`Draft`), and the rows and pages the app and `arbor transcript`
//! get. How they are read back from the files is `outputs::transcript`.

use crate::report::{Place, Usage};

/// What a part of a row is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, ts_rs::TS)]
#[serde(rename_all = "kebab-case")]
pub enum PartKind {
    /// A user's (or a parent's) prompt to the session.
    Prompt,
    /// Assistant text (markdown).
    Text,
    /// Assistant reasoning.
    Reasoning,
    /// A tool call: `tool` named, its arguments as `text` (JSON when `json`).
    ToolCall,
    /// A tool's result: `is_error` when the tool failed.
    ToolResult,
    /// A sub-agent spawned: the task as `text`, the child as `child` where it is known.
    Spawn,
    /// What the session received from a child it spawned (`child`).
    Received,
    /// The context was compacted here.
    Compaction,
    /// A system notice (an error, a warning, an info line of the harness).
    Notice,
    /// A model call's tokens (`usage`) and `model`, where the log records them on a line of their
    /// own (Codex), rather than on the message the call produced.
    Usage,
    /// An image (or another attachment) in a message or a tool result: its `media` (type and
    /// size), `text` its address when it is not inline. The data are read back only when shown
    /// (`Analysis::transcript_media`).
    Image,
}

/// What an image part holds, without its data.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, ts_rs::TS)]
pub struct Media {
    /// The media type the log gives (`image/png`), when it gives one.
    pub media_type: Option<String>,
    /// The decoded size of inline data, in bytes.
    #[ts(type = "number | null")]
    pub bytes: Option<u64>,
}

impl Media {
    /// An inline image's media type and size from its base64 `data`.
    pub fn inline(media_type: Option<&str>, data: &str) -> Media {
        let data = data.trim_end();
        let pad = data.bytes().rev().take_while(|&b| b == b'=').count();
        let bytes = (data.len() / 4 * 3 + (data.len() % 4).saturating_sub(1)).saturating_sub(pad.min(2));
        Media { media_type: media_type.filter(|m| !m.is_empty()).map(str::to_owned), bytes: Some(bytes as u64) }
    }

    /// Whether an image element may draw data of this type from a `data:` URL: an `image/` type
    /// of plain characters only (a type from the log never breaks out of the URL).
    pub fn drawable(&self) -> bool {
        self.media_type.as_deref().is_some_and(|m| {
            m.starts_with("image/") && m.bytes().all(|c| c.is_ascii_alphanumeric() || b"/+.-".contains(&c))
        })
    }

    /// A `data:<type>;base64,<data>` URL's media type and size; `None` for any other address.
    pub fn of_data_url(url: &str) -> Option<Media> {
        let rest = url.strip_prefix("data:")?;
        let (head, data) = rest.split_once(',')?;
        let media_type = head.strip_suffix(";base64")?;
        Some(Media::inline(Some(media_type), data))
    }
}

/// One part of a row, as a format reads it from the row's line (`Format::transcript`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Draft {
    pub kind: Option<PartKind>,
    pub text: String,
    /// `text` is JSON (tool arguments and results): the app shows it as collapsible JSON.
    pub json: bool,
    pub tool: Option<String>,
    pub call_id: Option<String>,
    pub is_error: Option<bool>,
    /// The session this part names: the child a spawn started, or the one a reply came from,
    /// when the line says it; else the engine finds it from the call id (`Ctx::spawns`).
    pub child: Option<String>,
    pub model: Option<String>,
    /// The API message this line belongs to, when several lines share one (its tokens count once).
    pub message: Option<String>,
    /// The tokens of the message, when its line records them.
    pub usage: Option<Usage>,
    /// A tool result that only acknowledges a spawn (a background launch, Codex's `spawn_agent`
    /// output): the child's reply comes later, on a line of its own, so this is shown as the
    /// tool result it is, never as what the parent received from the child.
    pub acknowledges: bool,
    /// An image part's type and size.
    pub media: Option<Media>,
    /// An image part's data as a `data:` URL, when it is inline: kept out of pages, read back
    /// one part at a time when the part is shown.
    pub data_url: Option<String>,
    /// What a comparison fingerprints of the part (`crate::print`), when its reader made it as
    /// it read the line: the text may then be left out (a comparison's reading of a reply).
    pub print: Option<u64>,
}

impl Draft {
    pub fn new(kind: PartKind, text: impl Into<String>) -> Self {
        Draft { kind: Some(kind), text: text.into(), ..Draft::default() }
    }
}

/// One part of a transcript row, as the app and `arbor transcript --json` get it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, ts_rs::TS)]
pub struct Part {
    pub kind: PartKind,
    /// The text, cut to the page's budget (`cut`), whose whole length is `text_len` characters.
    pub text: String,
    #[ts(type = "number")]
    pub text_len: u64,
    pub cut: bool,
    pub json: bool,
    pub tool: Option<String>,
    pub call_id: Option<String>,
    pub is_error: Option<bool>,
    pub child: Option<String>,
    pub model: Option<String>,
    /// Tokens of the message, shown on the first line of a message that spans several.
    pub usage: Option<Usage>,
    /// An image part's type and size (its data: `transcript_media`).
    pub media: Option<Media>,
}

/// One row of a session's transcript: a record and what it says.
#[derive(Debug, Clone, PartialEq, serde::Serialize, ts_rs::TS)]
pub struct Row {
    /// The row's number in the session's transcript (0-based).
    pub row: u32,
    /// The record's index in the analysis (the inspector's `index`).
    #[ts(type = "number")]
    pub record: usize,
    pub at: Place,
    /// What the record is (the inspector's kind).
    pub kind: &'static str,
    pub time: Option<f64>,
    /// The turn the row is in (a number, a turn id, or null).
    #[ts(type = "number | string | null")]
    pub turn: serde_json::Value,
    pub step: Option<u32>,
    pub parts: Vec<Part>,
}

/// A page of a session's transcript.
#[derive(Debug, Clone, PartialEq, serde::Serialize, ts_rs::TS)]
pub struct Page {
    pub session: String,
    /// Rows in the session's whole transcript.
    pub total: u32,
    pub from: u32,
    pub rows: Vec<Row>,
}

/// A transcript item for scripts (`arbor transcript --json`): one part, with its row's place,
/// turn and step.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Item<'a> {
    pub session: &'a str,
    pub row: u32,
    pub at: &'a Place,
    pub time: Option<f64>,
    pub turn: &'a serde_json::Value,
    pub step: Option<u32>,
    #[serde(flatten)]
    pub part: &'a Part,
}

/// Which rows of a transcript a filter keeps (the app's transcript filter).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Show {
    /// Every row.
    #[default]
    All,
    /// What was said: prompts, assistant text and what came back from sub-agents.
    Talk,
    /// Rows with a failed tool result or a notice.
    Errors,
    /// Every row but those that are only tool results.
    NoResults,
}

impl Show {
    /// Whether a row of these parts is kept.
    pub fn keeps(self, parts: &[Part]) -> bool {
        use PartKind as K;
        match self {
            Show::All => true,
            Show::Talk => parts.iter().any(|p| matches!(p.kind, K::Prompt | K::Text | K::Received)),
            Show::Errors => parts.iter().any(|p| p.is_error == Some(true) || p.kind == K::Notice),
            Show::NoResults => parts.iter().any(|p| p.kind != K::ToolResult),
        }
    }
}
