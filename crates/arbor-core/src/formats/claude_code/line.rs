//! The line shape of Claude Code transcripts: what one JSON line is parsed into on the worker
//! threads, and the small text tools the state machine reads it with.
//!
//! Fields are the lenient ones of `wire` (a field of a surprising type reads as absent); texts
//! stay as raw JSON strings borrowed from the chunk (`Raw`), so a 100 MB message is skipped in
//! place and hashed later only where a link or a reply needs it. Nothing here knows sessions.
//!
//! A line is read in one pass by `crate::scan`'s parts (`read_line` below), straight into its
//! place; the serde shapes are the reference it is held to (`parse_serde`: the differential
//! tests in `tests/scan.rs` compare the two on every shipped line and on broken ones).

use crate::scan::{field, FieldBit, Scanner, R};
use crate::wire::{Flag, List, Num, Obj, Raw, Str};
use serde::de::IgnoredAny;
use serde::Deserialize;

/// The line shape: each line read into `Line` in its place.
pub struct ClaudeShape;

crate::formats::line_shape!(ClaudeShape, claude_cells, Line, parse_into, no_prefetch);

/// Parse `text` into `out` (a default line); `false` when it is not a JSON object the shape reads
/// (a duplicate field, a number out of range, an array line).
fn parse_into<'a>(text: &'a str, _arena: &'a bumpalo::Bump, out: &mut Line<'a>) -> bool {
    Scanner::whole(text, None, |p| read_line(p, out))
}

/// A line of text as the shape reads it: `None` when it is not a JSON object.
pub fn parse(text: &str) -> Option<Line<'_>> {
    let mut line = Line::default();
    Scanner::whole(text, None, |p| read_line(p, &mut line)).then_some(line)
}

/// `parse` through serde_json and the derived shapes: the reference the one-pass reading is
/// held to.
pub fn parse_serde(text: &str) -> Option<Line<'_>> {
    if text.trim_start_matches([' ', '\t', '\r', '\n']).as_bytes().first() != Some(&b'{') {
        return None;
    }
    serde_json::from_str(text).ok()
}

/// A line's fields (at its `{`), read as the derived `Deserialize` of `Line` reads them: each
/// known key once (twice is an error), the others skipped.
fn read_line<'a>(p: &mut Scanner<'a>, l: &mut Line<'a>) -> R<()> {
    let mut seen: FieldBit = 0;
    p.object(|p, key| {
        let seen = &mut seen;
        match key {
            "type" => field!(seen, 0, l.kind, p.str_field()),
            "subtype" => field!(seen, 1, l.subtype, p.str_field()),
            "uuid" => field!(seen, 2, l.uuid, p.str_field()),
            "parentUuid" => field!(seen, 3, l.parent_uuid, p.str_field()),
            "sessionId" => field!(seen, 4, l.session_id, p.str_field()),
            "agentId" => field!(seen, 5, l.agent_id, p.str_field()),
            "isSidechain" => field!(seen, 6, l.is_sidechain, p.flag_field()),
            "isMeta" => field!(seen, 7, l.is_meta, p.flag_field()),
            "isCompactSummary" => field!(seen, 8, l.is_compact_summary, p.flag_field()),
            "timestamp" => field!(seen, 9, l.timestamp, p.str_field()),
            "requestId" => field!(seen, 10, l.request_id, p.str_field()),
            "forkedFrom" => field!(seen, 11, l.forked_from, p.present_field()),
            "message" => crate::scan::field_in!(seen, 12, {
                let start = p.pos();
                p.obj_in(&mut l.message, read_message)?;
                if let Some(m) = l.message.0.as_mut() {
                    m.raw = Some(Raw(p.since(start)));
                }
                Ok(())
            }),
            "toolUseResult" => field!(seen, 13, l.tool_use_result, p.obj_field(read_tool_use_result)),
            "content" => field!(seen, 14, l.content, p.raw_field()),
            "attachment" => field!(seen, 15, l.attachment, p.obj_field(read_attachment)),
            "agentType" => field!(seen, 16, l.agent_type, p.str_field()),
            "description" => field!(seen, 17, l.description, p.str_field()),
            "toolUseId" => field!(seen, 18, l.tool_use_id, p.str_field()),
            "spawnDepth" => field!(seen, 19, l.spawn_depth, p.num_field()),
            "parentAgentId" => field!(seen, 20, l.parent_agent_id, p.str_field()),
            _ => p.skip(),
        }
    })
}

fn read_message<'a>(p: &mut Scanner<'a>, t: &mut Message<'a>, seen: &mut FieldBit, key: &str) -> R<()> {
    match key {
        "id" => field!(seen, 0, t.id, p.str_field()),
        "model" => field!(seen, 1, t.model, p.str_field()),
        "content" => field!(seen, 2, t.content, read_content(p)),
        "usage" => field!(seen, 3, t.usage, p.obj_field(read_token_counts)),
        "stop_reason" => field!(seen, 4, t.stop_reason, p.str_field()),
        _ => p.skip(),
    }
}

/// As `Content`'s `Deserialize`: a string's hashes, a list's blocks, nothing for anything else.
fn read_content<'a>(p: &mut Scanner<'a>) -> R<Content<'a>> {
    match p.peek() {
        Some(b'"') => {
            let (text, escaped) = p.string()?;
            Ok(Content::Text(TextInfo::of(&p.decoded(text, escaped)?)))
        }
        Some(b'[') => p.list_field(read_block).map(|l| Content::Blocks(l.0)),
        _ => p.decline().map(|()| Content::None),
    }
}

fn read_token_counts(p: &mut Scanner<'_>, t: &mut TokenCounts, seen: &mut FieldBit, key: &str) -> R<()> {
    match key {
        "input_tokens" => field!(seen, 0, t.input_tokens, p.num_field()),
        "output_tokens" => field!(seen, 1, t.output_tokens, p.num_field()),
        "cache_creation_input_tokens" => field!(seen, 2, t.cache_creation_input_tokens, p.num_field()),
        "cache_read_input_tokens" => field!(seen, 3, t.cache_read_input_tokens, p.num_field()),
        _ => p.skip(),
    }
}

fn read_block<'a>(p: &mut Scanner<'a>, t: &mut Block<'a>, seen: &mut FieldBit, key: &str) -> R<()> {
    match key {
        "type" => field!(seen, 0, t.kind, p.str_field()),
        "text" => field!(seen, 1, t.text, p.raw_field()),
        "id" => field!(seen, 2, t.id, p.str_field()),
        "name" => field!(seen, 3, t.name, p.str_field()),
        "input" => field!(seen, 4, t.input, p.obj_field(read_spawn_input)),
        "tool_use_id" => field!(seen, 5, t.tool_use_id, p.str_field()),
        "content" => field!(seen, 6, t.content, p.raw_field()),
        "is_error" => field!(seen, 7, t.is_error, p.flag_field()),
        _ => p.skip(),
    }
}

fn read_spawn_input<'a>(p: &mut Scanner<'a>, t: &mut SpawnInput<'a>, seen: &mut FieldBit, key: &str) -> R<()> {
    match key {
        "prompt" => field!(seen, 0, t.prompt, p.raw_field()),
        "run_in_background" => field!(seen, 1, t.run_in_background, p.flag_field()),
        "description" => field!(seen, 2, t.description, p.str_field()),
        "subagent_type" => field!(seen, 3, t.subagent_type, p.str_field()),
        _ => p.skip(),
    }
}

fn read_tool_use_result<'a>(p: &mut Scanner<'a>, t: &mut ToolUseResult<'a>, seen: &mut FieldBit, key: &str) -> R<()> {
    match key {
        "agentId" => field!(seen, 0, t.agent_id, p.str_field()),
        "status" => field!(seen, 1, t.status, p.str_field()),
        "isAsync" => field!(seen, 2, t.is_async, p.flag_field()),
        _ => p.skip(),
    }
}

fn read_attachment<'a>(p: &mut Scanner<'a>, t: &mut Attachment<'a>, seen: &mut FieldBit, key: &str) -> R<()> {
    match key {
        "prompt" => field!(seen, 0, t.prompt, p.raw_field()),
        "content" => field!(seen, 1, t.content, p.raw_field()),
        _ => p.skip(),
    }
}

/// Lines are small and routed soon after they are parsed; nothing is worth fetching ahead.
#[inline(always)]
fn no_prefetch(_line: &Line) {}

/// One transcript line (any `type`), or a sidecar (`agent-<id>.meta.json`, one object).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Line<'a> {
    #[serde(borrow, rename = "type")]
    pub kind: Str<'a>,
    #[serde(borrow)]
    pub subtype: Str<'a>,
    #[serde(borrow)]
    pub uuid: Str<'a>,
    #[serde(borrow, rename = "parentUuid")]
    pub parent_uuid: Str<'a>,
    #[serde(borrow, rename = "sessionId")]
    pub session_id: Str<'a>,
    #[serde(borrow, rename = "agentId")]
    pub agent_id: Str<'a>,
    #[serde(rename = "isSidechain")]
    pub is_sidechain: Flag,
    #[serde(rename = "isMeta")]
    pub is_meta: Flag,
    #[serde(rename = "isCompactSummary")]
    pub is_compact_summary: Flag,
    #[serde(borrow)]
    pub timestamp: Str<'a>,
    #[serde(borrow, rename = "requestId")]
    pub request_id: Str<'a>,
    /// A forked child's copy of a line of its parent's history (`{sessionId, messageUuid}`).
    #[serde(rename = "forkedFrom")]
    pub forked_from: Option<IgnoredAny>,
    #[serde(borrow, deserialize_with = "message_with_raw")]
    pub message: Obj<Message<'a>>,
    #[serde(borrow, rename = "toolUseResult")]
    pub tool_use_result: Obj<ToolUseResult<'a>>,
    /// A `queue-operation`'s queued text (a `<task-notification>` copy among others).
    #[serde(borrow)]
    pub content: Option<Raw<'a>>,
    #[serde(borrow)]
    pub attachment: Obj<Attachment<'a>>,
    // A sidecar's fields.
    #[serde(borrow, rename = "agentType")]
    pub agent_type: Str<'a>,
    #[serde(borrow)]
    pub description: Str<'a>,
    #[serde(borrow, rename = "toolUseId")]
    pub tool_use_id: Str<'a>,
    #[serde(rename = "spawnDepth")]
    pub spawn_depth: Num,
    #[serde(borrow, rename = "parentAgentId")]
    pub parent_agent_id: Str<'a>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Message<'a> {
    #[serde(borrow)]
    pub id: Str<'a>,
    #[serde(borrow)]
    pub model: Str<'a>,
    #[serde(borrow)]
    pub content: Content<'a>,
    pub usage: Obj<TokenCounts>,
    #[serde(borrow)]
    pub stop_reason: Str<'a>,
    /// The message object's text as written: what tells a resume's replay (the same line) from
    /// another line that reuses its `uuid`.
    #[serde(skip)]
    pub raw: Option<Raw<'a>>,
}

/// `message` as `Obj<Message>` reads it, with the object's own text kept beside it.
fn message_with_raw<'de: 'a, 'a, D: serde::Deserializer<'de>>(d: D) -> Result<Obj<Message<'a>>, D::Error> {
    let raw = <&'a serde_json::value::RawValue>::deserialize(d)?;
    let mut m: Obj<Message<'a>> = serde_json::from_str(raw.get()).map_err(serde::de::Error::custom)?;
    if let Some(m) = m.0.as_mut() {
        m.raw = Some(Raw(raw.get()));
    }
    Ok(m)
}

/// `message.usage` as the API reports it.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct TokenCounts {
    pub input_tokens: Num,
    pub output_tokens: Num,
    pub cache_creation_input_tokens: Num,
    pub cache_read_input_tokens: Num,
}

impl TokenCounts {
    pub fn usage(&self) -> crate::report::Usage {
        let n = |v: Num| v.get().filter(|v| *v >= 0.0).map_or(0, |v| v.min(u64::MAX as f64) as u64);
        crate::report::Usage {
            input: n(self.input_tokens),
            output: n(self.output_tokens),
            cache_read: n(self.cache_read_input_tokens),
            cache_write: n(self.cache_creation_input_tokens),
            cost: None,
            unpriced: None,
        }
    }
}

/// `message.content`: a string (a typed prompt) or a list of blocks.
#[derive(Debug, Default)]
pub enum Content<'a> {
    #[default]
    None,
    /// A string: what routing needs of it, worked out here on the worker thread (the string
    /// itself may be a decoded copy that does not outlive the parse).
    Text(TextInfo),
    Blocks(Vec<Block<'a>>),
}

/// What is kept of a string content: its hashes, and the notification it is, if it is one.
#[derive(Debug, Default)]
pub struct TextInfo {
    pub exact: TextHash,
    pub loose: TextHash,
    pub notice: Option<Box<Notice>>,
}

impl TextInfo {
    fn of(s: &str) -> Self {
        let (mut exact, mut loose) = (TextHash::default(), TextHash::default());
        exact.text(s, false);
        loose.text(s, true);
        TextInfo { exact, loose, notice: Notice::of(s).map(Box::new) }
    }
}

/// A `<task-notification>`: a background task's end, as the harness tells its parent.
#[derive(Debug, Default, Clone)]
pub struct Notice {
    pub tool_use_id: Option<Box<str>>,
    pub task_id: Option<Box<str>>,
    pub status: Option<Box<str>>,
    /// The `<result>` text, whitespace ignored.
    pub result: Option<TextHash>,
}

impl Notice {
    /// The notification a decoded text is, when it starts with `<task-notification>`.
    pub fn of(s: &str) -> Option<Notice> {
        if !s.trim_start().starts_with("<task-notification>") {
            return None;
        }
        let field = |name: &str| tag(s, name).map(|v| v.trim().into());
        let result = tag_last(s, "result").map(|r| {
            let mut h = TextHash::default();
            h.text(r, true);
            h
        });
        Some(Notice { tool_use_id: field("tool-use-id"), task_id: field("task-id"), status: field("status"), result })
    }

    /// The notification a raw JSON string is (decoded only when it is one).
    pub fn of_raw(raw: &str) -> Option<Notice> {
        if !is_task_notification(raw) {
            return None;
        }
        let text = serde_json::from_str::<std::borrow::Cow<str>>(raw).ok()?;
        Notice::of(&text)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Content<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> serde::de::Visitor<'de> for V<'a> {
            type Value = Content<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("any value")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Content::Text(TextInfo::of(v)))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, a: A) -> Result<Self::Value, A::Error> {
                let list: List<Block<'a>> = Deserialize::deserialize(serde::de::value::SeqAccessDeserializer::new(a))?;
                Ok(Content::Blocks(list.0))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
                while a.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Content::None)
            }
            fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(Content::None)
            }
            fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(Content::None)
            }
            fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(Content::None)
            }
            fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(Content::None)
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
                Ok(Content::None)
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

impl<'a> Content<'a> {
    pub fn blocks(&self) -> &[Block<'a>] {
        match self {
            Content::Blocks(b) => b,
            _ => &[],
        }
    }

    /// The text blocks' raw strings.
    pub fn text_blocks(&self) -> impl Iterator<Item = Raw<'a>> + '_ {
        self.blocks().iter().filter(|b| b.kind.as_str() == Some("text")).filter_map(|b| b.text)
    }

    /// Whether any of it is text (a string, or a text block).
    pub fn has_text(&self) -> bool {
        matches!(self, Content::Text(_)) || self.text_blocks().next().is_some()
    }

    /// The exact hash of its text (the string, or the text blocks concatenated).
    pub fn exact_hash(&self) -> Option<TextHash> {
        match self {
            Content::Text(t) => Some(t.exact),
            Content::Blocks(_) => {
                let mut h = TextHash::default();
                let mut any = false;
                for t in self.text_blocks() {
                    h.json(t.0, false);
                    any = true;
                }
                any.then_some(h)
            }
            Content::None => None,
        }
    }

    /// The notification it is: a string, or a first text block, that is one.
    pub fn notice(&self) -> Option<Notice> {
        match self {
            Content::Text(t) => t.notice.as_deref().cloned(),
            Content::Blocks(_) => self.text_blocks().next().and_then(|t| Notice::of_raw(t.0)),
            Content::None => None,
        }
    }
}

/// A content block: `text`, `thinking`, `tool_use {id, name, input}`, `tool_result {tool_use_id,
/// content, is_error}`, `image`, … Everything else in it is skipped unread.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Block<'a> {
    #[serde(borrow, rename = "type")]
    pub kind: Str<'a>,
    #[serde(borrow)]
    pub text: Option<Raw<'a>>,
    #[serde(borrow)]
    pub id: Str<'a>,
    #[serde(borrow)]
    pub name: Str<'a>,
    #[serde(borrow)]
    pub input: Obj<SpawnInput<'a>>,
    #[serde(borrow)]
    pub tool_use_id: Str<'a>,
    /// A tool result's content (a string or a list of blocks), raw: read again only for the
    /// result of a spawn call.
    #[serde(borrow)]
    pub content: Option<Raw<'a>>,
    pub is_error: Flag,
}

/// The input of a `Task`/`Agent` call, as far as linking needs it.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct SpawnInput<'a> {
    #[serde(borrow)]
    pub prompt: Option<Raw<'a>>,
    pub run_in_background: Flag,
    #[serde(borrow)]
    pub description: Str<'a>,
    #[serde(borrow)]
    pub subagent_type: Str<'a>,
}

/// A tool result line's `toolUseResult`, as far as linking needs it.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct ToolUseResult<'a> {
    #[serde(borrow, rename = "agentId")]
    pub agent_id: Str<'a>,
    #[serde(borrow)]
    pub status: Str<'a>,
    #[serde(rename = "isAsync")]
    pub is_async: Flag,
}

/// An `attachment` line's payload (a queued command is a `<task-notification>` copy).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Attachment<'a> {
    #[serde(borrow)]
    pub prompt: Option<Raw<'a>>,
    #[serde(borrow)]
    pub content: Option<Raw<'a>>,
}

/// The spawn tool's names: `Task` up to 2.0, `Agent` since (FIELD-NOTES 1).
pub fn is_spawn_tool(name: &str) -> bool {
    name == "Task" || name == "Agent"
}

pub use crate::text::loose::TextHash;

/// The value of the first `<name>…</name>` in a text.
pub fn tag<'a>(text: &'a str, name: &str) -> Option<&'a str> {
    let open = format!("<{name}>");
    let close = format!("</{name}>");
    let start = memchr::memmem::find(text.as_bytes(), open.as_bytes())? + open.len();
    let len = memchr::memmem::find(&text.as_bytes()[start..], close.as_bytes())?;
    Some(&text[start..start + len])
}

/// From the first `<name>` to the last `</name>`: a result body may quote tags of its own.
fn tag_last<'a>(text: &'a str, name: &str) -> Option<&'a str> {
    let open = format!("<{name}>");
    let close = format!("</{name}>");
    let start = memchr::memmem::find(text.as_bytes(), open.as_bytes())? + open.len();
    let end = memchr::memmem::rfind(&text.as_bytes()[start..], close.as_bytes())? + start;
    Some(&text[start..end])
}

/// Whether a raw JSON string is a `<task-notification>` (after leading whitespace).
pub fn is_task_notification(raw: &str) -> bool {
    let body = raw.strip_prefix('"').unwrap_or(raw);
    let mut rest = body;
    loop {
        let t = rest.trim_start_matches([' ', '\t']);
        match t.strip_prefix("\\n").or_else(|| t.strip_prefix("\\r")).or_else(|| t.strip_prefix("\\t")) {
            Some(r) => rest = r,
            None => return t.starts_with("<task-notification>"),
        }
    }
}

/// The id after `agentId: ` in a raw JSON text (a tool result's `agentId: <id> (use SendMessage
/// …)` tail), when there is one.
pub fn agent_id_in_text(raw: &str) -> Option<&str> {
    let at = memchr::memmem::find(raw.as_bytes(), b"agentId: ")? + "agentId: ".len();
    let rest = &raw[at..];
    let len = rest.bytes().take_while(|b| b.is_ascii_alphanumeric() || *b == b'-' || *b == b'_').count();
    (len > 0).then(|| &rest[..len])
}

/// What a parent received in a tool result, as `subagent-reply-differs` compares it (SPEC 2.4):
/// the text blocks, without those the harness appends (`agentId: …`, `<usage>…</usage>`) and
/// without the same lines at the end of the text, whitespace ignored. `None` when the content
/// holds no text.
pub fn received_hash(content: &str) -> Option<TextHash> {
    /// Texts longer than this are hashed whole, never decoded into memory to cut their tail.
    const CUT_LIMIT: usize = 8 << 20;
    #[derive(Deserialize)]
    struct TextBlock<'a> {
        #[serde(borrow, rename = "type", default)]
        kind: Str<'a>,
        #[serde(borrow, default)]
        text: Option<Raw<'a>>,
    }
    let pieces: Vec<&str> = match content.as_bytes().first() {
        Some(b'"') => vec![content],
        Some(b'[') => serde_json::from_str::<List<TextBlock>>(content)
            .ok()?
            .0
            .into_iter()
            .filter(|b| b.kind.as_str() == Some("text"))
            .filter_map(|b| b.text.map(|t| t.0))
            .collect(),
        _ => return None,
    };
    if pieces.is_empty() {
        return None;
    }
    let mut h = TextHash::default();
    if pieces.iter().map(|p| p.len()).sum::<usize>() > CUT_LIMIT {
        for p in pieces {
            h.json(p, true);
        }
        return Some(h);
    }
    let mut text = String::new();
    for p in pieces {
        let Ok(t) = serde_json::from_str::<std::borrow::Cow<str>>(p) else { continue };
        if t.trim_start().starts_with("agentId:") {
            continue;
        }
        text.push_str(&t);
    }
    h.text(cut_appended(&text), true);
    Some(h)
}

/// `text` without the `<usage>…</usage>` block and `agentId:` lines the harness appends at its end.
pub fn cut_appended(text: &str) -> &str {
    let mut t = text.trim_end();
    loop {
        if t.ends_with("</usage>") {
            if let Some(i) = t.rfind("<usage>") {
                t = t[..i].trim_end();
                continue;
            }
        }
        let line_start = t.rfind('\n').map_or(0, |i| i + 1);
        if t[line_start..].trim_start().starts_with("agentId:") {
            t = t[..line_start].trim_end();
            continue;
        }
        return t;
    }
}

/// The line types of a transcript (SPEC 1's detection line).
/// What a message's text blocks are joined by: kept apart, never glued (SPEC 2.4 Text).
pub const BLOCK_SEPARATOR: &str = "\n\n";

pub const TYPES: &[&str] =
    &["user", "assistant", "system", "summary", "progress", "attachment", "queue-operation", "file-history-snapshot"];

/// A sidecar's one object: no `type`, and the fields only a sidecar has.
pub fn is_sidecar(l: &Line) -> bool {
    !l.kind.present()
        && !l.uuid.present()
        && (l.tool_use_id.as_str().is_some()
            || (l.agent_type.as_str().is_some() && (l.spawn_depth.get().is_some() || l.description.present())))
}

/// The `<result>` of a notification's text, trimmed; the whole text when it has none.
pub fn notice_result(text: &str) -> &str {
    let open = "<result>";
    match (text.find(open), text.rfind("</result>")) {
        (Some(a), Some(b)) if b >= a + open.len() => text[a + open.len()..b].trim(),
        _ => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loose_hashes_ignore_whitespace_and_escapes_decode() {
        let mut a = TextHash::default();
        a.json(r#""BANANA\n é\u00e9 \ud83d\ude00""#, true);
        let mut b = TextHash::default();
        b.text("BANANA éé😀", true);
        assert_eq!(a, b);
        let (mut v1, mut v2) = (TextHash::default(), TextHash::default());
        v1.text("a\u{b}b\u{a0}c", true);
        v2.json(r#""a\u000bb\u00a0c""#, true);
        assert_eq!(v1, v2, "decoded and escaped whitespace are the same whitespace");
        let mut c = TextHash::default();
        c.text("BANANAS", true);
        assert_ne!(a, c);
        let (mut e1, mut e2) = (TextHash::default(), TextHash::default());
        e1.json(r#""a b""#, false);
        e2.json(r#""ab""#, false);
        assert_ne!(e1, e2, "the exact form keeps whitespace");
        let (mut x, mut y, mut xy) = (TextHash::default(), TextHash::default(), TextHash::default());
        x.text("héllo ", false);
        y.text("wörld", false);
        xy.text("héllo wörld", false);
        assert_eq!(x.then(y), xy);
    }

    #[test]
    fn the_appended_agent_id_and_usage_are_not_part_of_what_was_received() {
        let two_blocks = r#"[{"type":"text","text":"BANANA"},{"type":"text","text":"agentId: aa2 (use SendMessage with to: 'aa2')\n<usage>subagent_tokens: 26678\ntool_uses: 0</usage>"}]"#;
        let one_string = r#""BANANA\n\nagentId: aa2 (use SendMessage)\n<usage>total_tokens: 5</usage>""#;
        let mut want = TextHash::default();
        want.text("BANANA", true);
        assert_eq!(received_hash(two_blocks), Some(want));
        assert_eq!(received_hash(one_string), Some(want));
        assert_eq!(received_hash(r#"[{"type":"image"}]"#), None);
        assert_eq!(agent_id_in_text(two_blocks), Some("aa2"));
        assert_eq!(cut_appended("x\nagentId: 1\n<usage>a\nb</usage>\n"), "x");
    }

    #[test]
    fn notifications_and_their_tags_are_found_in_the_text() {
        let raw = r#""\n<task-notification>\n<task-id>a8b</task-id>\n<tool-use-id>toolu_9</tool-use-id><status>completed</status><result>done <status>x</status> \"ok\"</result></task-notification>""#;
        assert!(is_task_notification(raw));
        assert!(!is_task_notification(r#""hello <task-notification>""#));
        let n = Notice::of_raw(raw).unwrap();
        assert_eq!(n.tool_use_id.as_deref(), Some("toolu_9"));
        assert_eq!((n.task_id.as_deref(), n.status.as_deref()), (Some("a8b"), Some("completed")));
        let mut want = TextHash::default();
        want.text("done <status>x</status> \"ok\"", true);
        assert_eq!(n.result, Some(want));
    }

    #[test]
    fn a_line_of_surprising_types_still_reads() {
        let l = parse(r#"{"type":"user","uuid":5,"message":{"content":7,"usage":"x"},"isSidechain":"yes"}"#).unwrap();
        assert_eq!(l.kind.as_str(), Some("user"));
        assert!(l.uuid.as_str().is_none() && l.is_sidechain.0.is_none());
        assert!(matches!(l.message.0.unwrap().content, Content::None));
        let l = parse(r#"{"type":"user","message":{"content":"a\nb"}}"#).unwrap();
        let mut h = TextHash::default();
        h.text("a\nb", false);
        assert_eq!(l.message.0.unwrap().content.exact_hash(), Some(h));
        assert!(parse("[1,2]").is_none());
        assert!(parse(r#"{"type":"a","type":"b"}"#).is_none());
    }
}

