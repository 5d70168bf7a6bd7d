//! `codex`: Codex CLI rollouts (SPEC 2.5), one thread a file
//! (`~/.codex/sessions/YYYY/MM/DD/rollout-<local time>-<thread id>.jsonl`), each line a
//! `{timestamp, type, payload}` envelope.
//!
//! This module owns its line shape (`Line`, lenient serde structs that borrow from the line and
//! keep texts raw), each rollout's state machine (its session, turns, steps, replies, token
//! usage, a fork's replayed history) and the evidence that links threads across files, which it
//! resolves in `settle` because a child's rollout and its parent's come in any order. It does not
//! read files itself: reply texts are read back by the driver (`reply_text`, `received_text`);
//! what `settle` compares (a child's reply against what its parent received) is a hash of each
//! text's words, taken on the worker threads while lines are parsed.
//!
//! **Steps.** A Codex turn is a loop of model calls: the model streams output items (reasoning,
//! a message, tool calls), the harness records the call's tokens in a `token_count` (newer
//! builds: a `token_usage_record` with its `response_id`), then runs the tools and calls the
//! model again. A step is one model call: it opens at the turn's first model output item after
//! the turn's start or the previous step, and ends at the usage record that counts that call
//! (or at the turn's end). Tool outputs, user input and context records open no step.
//!
//! **Turns without `task_started`.** Rollouts of builds that did not persist `task_started`
//! (0.66 and earlier) have no turn boundaries; there, each `event_msg user_message` opens a turn
//! numbered 1, 2, … that lasts until the next one (reason null), so that those rollouts still
//! show turns and replies. A rollout that has a `task_started` before its first `user_message`
//! never does this.
//!
//! **Usage.** Per model call, once: `info.last_token_usage` of a `token_count` whose
//! `info.total_token_usage` moved (builds repeat the last count, unchanged, after each
//! `turn_context`; a repeat is not a new call); a count with only the cumulative total adds the
//! difference from the previous total; once a rollout has `token_usage_record` lines (one per
//! response), those are counted, by `response_id`, and its `token_count`s are not. Input is
//! reported without its cached part (`cache_read`) and cache writes (`cache_write`), as the
//! other formats do; reasoning tokens are part of `output_tokens` and counted there.
//!
//! **Re-running `settle`.** The evidence is kept, not consumed: settling again (a followed log
//! that grew, a rollout that appeared) extends the runs it made before and tells no finding
//! twice; a child whose parent changes (its parent's rollout appeared) gets a new run under it,
//! since runs are never rewritten, and what was told of the old link stays told.

use super::{routed, FileStart, FormatInfo, HeadLine, Machine, Routed};
use crate::ctx::{Ctx, Kind, LooseReply, ReceivedRec, TextRef};
use crate::finding::{Code, Loc};
use crate::graph::Ancestry;
use crate::intern::{HashMap, HashSet, Sym};
use crate::report::{Link, Outcome, Usage};
use crate::turns::{StepSpan, TurnId, TurnRec};
use crate::text::time::Rfc3339;
use crate::wire::{List, Num, Obj, Raw, Str};
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::Deserialize;
use std::borrow::Cow;
use std::fmt;

pub const FORMAT: FormatInfo =
    FormatInfo { id: "codex", description: "Codex CLI rollouts (~/.codex/sessions)", reader: &CodexFormat };

#[derive(Debug, Clone)]
struct CodexFormat;

/// The envelope types a rollout line has: those SPEC 2.5 names, and those newer builds add.
const ENVELOPE_TYPES: &[&str] = &[
    "session_meta",
    "response_item",
    "event_msg",
    "turn_context",
    "compacted",
    "world_state",
    "inter_agent_communication",
    "inter_agent_communication_metadata",
    "token_usage_record",
    "retained_context",
    "security_risk_score",
];

/// How long after an `entered_review_mode` a review sub-agent may start and still be its child.
const REVIEW_WINDOW_MS: f64 = 1000.0;

impl super::Format for CodexFormat {
    /// The envelope: a known `type` and an object `payload`. No other format's lines have a
    /// `payload`, and none of theirs uses these types.
    fn vote(&self, head: &HeadLine) -> bool {
        #[derive(Deserialize, Default)]
        #[serde(default)]
        struct Head<'a> {
            #[serde(borrow, rename = "type")]
            kind: Str<'a>,
            payload: Obj<Empty>,
        }
        let Ok(text) = std::str::from_utf8(head.bytes()) else { return false };
        if !starts_object(text) {
            return false;
        }
        let Ok(h) = serde_json::from_str::<Head>(text) else { return false };
        h.payload.0.is_some() && h.kind.as_str().is_some_and(|t| ENVELOPE_TYPES.contains(&t))
    }

    fn machine(&self, file: &FileStart<'_>) -> Box<dyn Routed> {
        routed(Rollout::new(super::stem(file.display)))
    }

    fn settle(&self, cx: &mut Ctx) {
        settle(cx);
    }

    /// The first `user_message` event's text (the `response_item` user messages also carry the
    /// harness's context blocks); an older rollout's user `message` item serves too.
    fn about(&self, line: &[u8]) -> Option<super::About> {
        let v: serde_json::Value = serde_json::from_slice(line).ok()?;
        let payload = v.get("payload")?;
        let text = match (v.get("type")?.as_str()?, payload.get("type").and_then(|t| t.as_str())) {
            ("event_msg", Some("user_message")) => super::about_str(payload, "/message"),
            ("response_item", Some("message")) if payload.get("role").and_then(|r| r.as_str()) == Some("user") => {
                super::about_str(payload, "/content/0/text")
            }
            _ => None,
        };
        text.map(super::About::Prompt)
    }

    fn parse_ahead(&self) -> Option<crate::formats::ParseAhead> {
        Some(crate::formats::ahead::<CodexShape>)
    }

    /// A turn's reply: `task_complete.last_agent_message`, or an assistant message's text.
    fn reply_text(&self, line: &[u8]) -> String {
        let Some(l) = parse_bytes(line) else { return String::new() };
        let Some(p) = l.payload() else { return String::new() };
        if let Some(raw) = p.last_agent_message {
            return decode_raw(raw).map(Cow::into_owned).unwrap_or_default();
        }
        blocks_text(&p.content.0)
    }

    /// What a parent received from a child: a `FINAL_ANSWER` agent message's payload, or the
    /// status text of an older `<subagent_notification>`.
    fn received_text(&self, line: &[u8], _key: Option<&str>) -> String {
        let Some(l) = parse_bytes(line) else { return String::new() };
        let Some(p) = l.payload() else { return String::new() };
        let text = blocks_text(&p.content.0);
        if let Some(answer) = final_answer(&text) {
            return answer.to_owned();
        }
        notification(&text).map(|(_, t)| t).unwrap_or_default()
    }

    fn transcript(&self, line: &[u8], out: &mut Vec<crate::vocab::transcript::Draft>) {
        transcript::line(line, out);
    }
}

/// The methods of a lenient visitor for what is not an object: the value is skipped and reads
/// as `$none` (a string too, unless the visitor reads strings itself: `no str`).
macro_rules! not_an_object {
    ($none:expr) => {
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Ok($none)
        }
        not_an_object!($none, no str);
    };
    ($none:expr, no str) => {
        fn visit_seq<A: de::SeqAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
            while a.next_element::<IgnoredAny>()?.is_some() {}
            Ok($none)
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok($none)
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok($none)
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok($none)
        }
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok($none)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok($none)
        }
    };
}

// ---------------------------------------------------------------------------------------------
// The line shape.

/// An object whose fields are not read.
#[derive(Deserialize, Default, Debug, Clone)]
struct Empty {}

/// One rollout line, lenient: a field of a surprising type reads as absent. Texts stay raw.
/// Parsed in place (`parse_into`): a line is a kilobyte of fields, and moving it cost more than
/// reading it.
#[derive(Debug, Default, Clone)]
pub struct Line<'a> {
    timestamp: Str<'a>,
    kind: Str<'a>,
    ordinal: Num,
    payload: Payload<'a>,
    /// `payload` was an object.
    has_payload: bool,
    /// The words of the line's text, hashed on the worker thread (`text_hash`).
    text_hash: Option<u64>,
    /// Where a reply's text is in the line when it is one JSON string (start, length, quotes
    /// included): the report then reads back just that (`Ctx::text_spans`).
    text_span: Option<(u32, u32)>,
}

impl<'a> Line<'a> {
    fn payload(&self) -> Option<&Payload<'a>> {
        self.has_payload.then_some(&self.payload)
    }
}

/// A line's `payload`: the union of the fields the reader uses, read in place (`PayloadSeed`).
#[derive(Debug, Default, Clone)]
struct Payload<'a> {
    kind: Str<'a>,
    // session_meta
    id: Str<'a>,
    timestamp: Str<'a>,
    parent_thread_id: Str<'a>,
    agent_nickname: Str<'a>,
    agent_path: Str<'a>,
    source: Obj<SourceObj<'a>>,
    thread_source: Str<'a>,
    subagent_history_start_ordinal: Num,
    // turns
    turn_id: Str<'a>,
    last_agent_message: Option<Raw<'a>>,
    // usage
    info: Obj<Info>,
    response_id: Str<'a>,
    usage: Obj<Tokens>,
    // sub-agents
    event_id: Str<'a>,
    agent_thread_id: Str<'a>,
    /// `sub_agent_activity.kind`: started, interacted, interrupted, completed.
    activity: Str<'a>,
    item: Obj<Item<'a>>,
    /// `collab_agent_spawn_end`: the spawn call and the thread it started.
    call_id: Str<'a>,
    new_thread_id: Str<'a>,
    // response items
    role: Str<'a>,
    content: List<Block<'a>>,
    author: Str<'a>,
    // turn_context
    model: Str<'a>,
}

/// `source` when it is an object (`{"subagent": …}`); a string source (`"cli"`) reads as absent.
#[derive(Debug, Default, Deserialize, Clone)]
#[serde(default)]
struct SourceObj<'a> {
    #[serde(borrow)]
    subagent: Subagent<'a>,
}

/// `source.subagent`: a name (`"review"`) or `{"thread_spawn": {…}}`.
#[derive(Debug, Default, Clone)]
enum Subagent<'a> {
    #[default]
    None,
    Named(Str<'a>),
    Spawn(Option<ThreadSpawn<'a>>),
}

#[derive(Debug, Default, Deserialize, Clone)]
#[serde(default)]
struct SpawnObj<'a> {
    #[serde(borrow)]
    thread_spawn: Obj<ThreadSpawn<'a>>,
}

#[derive(Debug, Default, Deserialize, Clone)]
#[serde(default)]
struct ThreadSpawn<'a> {
    #[serde(borrow)]
    parent_thread_id: Str<'a>,
    #[serde(borrow)]
    agent_path: Str<'a>,
    #[serde(borrow)]
    agent_nickname: Str<'a>,
}

impl<'de: 'a, 'a> Deserialize<'de> for Subagent<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Subagent<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any value")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Subagent::Named(Str::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Subagent::Named(Str::Owned(v.into())))
            }
            fn visit_map<A: MapAccess<'de>>(self, a: A) -> Result<Self::Value, A::Error> {
                let s = SpawnObj::deserialize(de::value::MapAccessDeserializer::new(a))?;
                Ok(Subagent::Spawn(s.thread_spawn.0))
            }
            not_an_object!(Subagent::None, no str);
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

#[derive(Debug, Default, Deserialize, Clone)]
#[serde(default)]
struct Info {
    total_token_usage: Obj<Tokens>,
    last_token_usage: Obj<Tokens>,
}

#[derive(Debug, Default, Clone, Copy, Deserialize)]
#[serde(default)]
struct Tokens {
    input_tokens: Num,
    cached_input_tokens: Num,
    cache_write_input_tokens: Num,
    output_tokens: Num,
    total_tokens: Num,
}

impl Tokens {
    fn counts(&self) -> [u64; 4] {
        let n = |v: Num| v.int().map_or(0, |i| i.max(0) as u64);
        [n(self.input_tokens), n(self.cached_input_tokens), n(self.cache_write_input_tokens), n(self.output_tokens)]
    }

    /// The counter as a whole, to tell a repeat from a new count.
    fn key(&self) -> [u64; 5] {
        let [a, b, c, d] = self.counts();
        [a, b, c, d, self.total_tokens.int().map_or(0, |i| i.max(0) as u64)]
    }
}

/// The tokens of one model call as the report counts them (`counts()` order).
fn usage_of(c: [u64; 4]) -> Usage {
    let [input, cached, write, output] = c;
    Usage {
        input: input.saturating_sub(cached).saturating_sub(write),
        output,
        cache_read: cached,
        cache_write: write,
        cost: None,
    }
}

/// `item` of a paginated rollout's `item_completed`.
#[derive(Debug, Default, Deserialize, Clone)]
#[serde(default)]
struct Item<'a> {
    #[serde(borrow, rename = "type")]
    kind: Str<'a>,
    #[serde(borrow)]
    id: Str<'a>,
    #[serde(borrow)]
    agent_thread_id: Str<'a>,
    #[serde(borrow)]
    agent_path: Str<'a>,
    #[serde(borrow, rename = "kind")]
    activity: Str<'a>,
}

/// A content block; its text stays raw (unread) until it is asked for.
#[derive(Debug, Default, Deserialize, Clone)]
#[serde(default)]
struct Block<'a> {
    #[serde(borrow, rename = "type")]
    kind: Str<'a>,
    #[serde(borrow)]
    text: Option<Raw<'a>>,
}

/// The line shape of `codex`: serde into `Line`, then the words of a reply's text hashed.
pub struct CodexShape;

super::line_shape!(CodexShape, codex_cells, Line, parse_into, prefetch_line);

fn starts_object(text: &str) -> bool {
    text.trim_start_matches([' ', '\t', '\r', '\n']).as_bytes().first() == Some(&b'{')
}

/// Parse one line (a JSON object the shape reads), hashing its reply text when it has one.
pub fn parse_line(text: &str) -> Option<Line<'_>> {
    let mut line = Line::default();
    parse_in_place(text, &mut line).then_some(line)
}

fn parse_bytes(bytes: &[u8]) -> Option<Line<'_>> {
    parse_line(std::str::from_utf8(bytes).ok()?)
}

fn parse_into<'a>(text: &'a str, _arena: &'a bumpalo::Bump, out: &mut Line<'a>) -> bool {
    parse_in_place(text, out)
}

/// Read `text` into `out` (a default line); `false` when it is not a JSON object the shape reads.
fn parse_in_place<'a>(text: &'a str, out: &mut Line<'a>) -> bool {
    if !starts_object(text) {
        return false;
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let read = de::DeserializeSeed::deserialize(LineSeed(out), &mut de).is_ok_and(|object| object);
    if !read || de.end().is_err() {
        return false;
    }
    out.text_hash = text_hash(out);
    out.text_span = text_span(text, out);
    true
}

/// The place of a reply's text in `text`: a `task_complete`'s `last_agent_message`, or the one
/// text block of an assistant message.
fn text_span(text: &str, line: &Line) -> Option<(u32, u32)> {
    let p = line.payload()?;
    let raw = match (line.kind.as_str()?, p.kind.as_str()?) {
        ("event_msg", "task_complete" | "turn_complete") => p.last_agent_message?,
        ("response_item", "message") if p.role.as_str() == Some("assistant") => match &p.content.0[..] {
            [one] if matches!(one.kind.as_str(), Some("output_text" | "text")) => one.text?,
            _ => return None,
        },
        _ => return None,
    };
    if !raw.0.starts_with('"') {
        return None;
    }
    let start = (raw.0.as_ptr() as usize).checked_sub(text.as_ptr() as usize)?;
    Some((u32::try_from(start).ok()?, u32::try_from(raw.0.len()).ok()?))
}

/// Reads a line's envelope into a `Line` in place; its value says whether it was an object.
struct LineSeed<'p, 'a>(&'p mut Line<'a>);

impl<'de: 'a, 'a> de::DeserializeSeed<'de> for LineSeed<'_, 'a> {
    type Value = bool;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de: 'a, 'a> Visitor<'de> for LineSeed<'_, 'a> {
    type Value = bool;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<bool, A::Error> {
        let l = self.0;
        // A key is borrowed from the line (`Str`), decoded only when it has escapes.
        while let Some(k) = a.next_key::<Str>()? {
            match k.as_str().unwrap_or("") {
                "timestamp" => l.timestamp = a.next_value()?,
                "type" => l.kind = a.next_value()?,
                "ordinal" => l.ordinal = a.next_value()?,
                "payload" => l.has_payload = a.next_value_seed(PayloadSeed(&mut l.payload))?,
                _ => {
                    a.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(true)
    }
    not_an_object!(false);
}

/// Reads a `payload` object into a `Payload` in place; its value says whether it was an object
/// (anything else reads as no payload, as `Obj` does).
struct PayloadSeed<'p, 'a>(&'p mut Payload<'a>);

impl<'de: 'a, 'a> de::DeserializeSeed<'de> for PayloadSeed<'_, 'a> {
    type Value = bool;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de: 'a, 'a> Visitor<'de> for PayloadSeed<'_, 'a> {
    type Value = bool;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any value")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<bool, A::Error> {
        let p = self.0;
        while let Some(k) = a.next_key::<Str>()? {
            match k.as_str().unwrap_or("") {
                "type" => p.kind = a.next_value()?,
                "id" => p.id = a.next_value()?,
                "timestamp" => p.timestamp = a.next_value()?,
                "parent_thread_id" => p.parent_thread_id = a.next_value()?,
                "agent_nickname" => p.agent_nickname = a.next_value()?,
                "agent_path" => p.agent_path = a.next_value()?,
                "source" => p.source = a.next_value()?,
                "thread_source" => p.thread_source = a.next_value()?,
                "subagent_history_start_ordinal" => p.subagent_history_start_ordinal = a.next_value()?,
                "turn_id" => p.turn_id = a.next_value()?,
                "last_agent_message" => p.last_agent_message = a.next_value()?,
                "info" => p.info = a.next_value()?,
                "response_id" => p.response_id = a.next_value()?,
                "usage" => p.usage = a.next_value()?,
                "event_id" => p.event_id = a.next_value()?,
                "agent_thread_id" => p.agent_thread_id = a.next_value()?,
                "kind" => p.activity = a.next_value()?,
                "item" => p.item = a.next_value()?,
                "role" => p.role = a.next_value()?,
                "content" => p.content = a.next_value()?,
                "author" => p.author = a.next_value()?,
                "model" => p.model = a.next_value()?,
                "call_id" => p.call_id = a.next_value()?,
                "new_thread_id" => p.new_thread_id = a.next_value()?,
                _ => {
                    a.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(true)
    }
    not_an_object!(false);
}

fn prefetch_line(_line: &Line) {}

/// A raw JSON string's value (`None` when the value is not a string), borrowed when it has no
/// escapes.
fn decode_raw(raw: Raw<'_>) -> Option<Cow<'_, str>> {
    match serde_json::from_str::<Str>(raw.0).ok()? {
        Str::Borrowed(s) => Some(Cow::Borrowed(s)),
        Str::Owned(s) => Some(Cow::Owned(s.into())),
        Str::Absent | Str::Other => None,
    }
}

/// The text blocks of a content list, concatenated without a separator.
fn blocks_text(blocks: &[Block]) -> String {
    let mut out = String::new();
    for b in blocks {
        if matches!(b.kind.as_str(), Some("output_text" | "input_text" | "text")) {
            if let Some(t) = b.text.and_then(decode_raw) {
                out.push_str(&t);
            }
        }
    }
    out
}

/// Whether a content list's first text starts with `prefix`, ASCII case aside (read from the raw
/// string, so that nothing is decoded for the many messages that do not).
fn starts_with(blocks: &[Block], prefix: &str) -> bool {
    blocks.iter().find_map(|b| b.text).is_some_and(|r| {
        r.0.strip_prefix('"').and_then(|s| s.get(..prefix.len())).is_some_and(|s| s.eq_ignore_ascii_case(prefix))
    })
}

/// The reply inside a child's `FINAL_ANSWER` agent message: what follows its `Payload:` line.
fn final_answer(text: &str) -> Option<&str> {
    let rest = text.strip_prefix("Message Type: FINAL_ANSWER")?;
    Some(match rest.find("\nPayload:") {
        Some(i) => rest[i + "\nPayload:".len()..].strip_prefix('\n').unwrap_or(&rest[i + "\nPayload:".len()..]),
        None => rest.split_once('\n').map_or("", |(_, r)| r),
    })
}

/// An older `<subagent_notification>{"agent_path": …, "status": {"completed": …}}` (the tag in
/// any case; `agent_id` in some builds): the agent it names and the status text.
fn notification(text: &str) -> Option<(String, String)> {
    const OPEN: &str = "<subagent_notification>";
    const CLOSE: &str = "</subagent_notification>";
    let text = text.trim();
    let body = text.get(OPEN.len()..).filter(|_| text[..OPEN.len()].eq_ignore_ascii_case(OPEN))?;
    let body = match body.len().checked_sub(CLOSE.len()) {
        Some(i) if body.get(i..).is_some_and(|c| c.eq_ignore_ascii_case(CLOSE)) => &body[..i],
        _ => body,
    }
    .trim();
    let v: serde_json::Value = serde_json::from_str(body).ok()?;
    let path = v.get("agent_path").or_else(|| v.get("agent_id")).and_then(|p| p.as_str())?.to_owned();
    let status = v.get("status");
    let text = match status {
        Some(serde_json::Value::Object(m)) => {
            m.get("completed").or_else(|| m.values().next()).and_then(|t| t.as_str()).unwrap_or("").to_owned()
        }
        Some(serde_json::Value::String(s)) => s.clone(),
        _ => String::new(),
    };
    Some((path, text))
}

/// The hash of a text's words: two texts that differ only in (ASCII) whitespace hash alike
/// (SPEC 2.4). Bytes, not characters: this runs on every assistant message.
pub fn words_hash(text: &str) -> u64 {
    let mut h = Words::default();
    h.feed(text.as_bytes());
    h.finish()
}

/// Hashes words fed in pieces (a word may run on from one piece into the next): FNV-1a over
/// each word's bytes and a separator after it, byte by byte, so that the pieces' cuts do not
/// matter, only where the words break.
struct Words {
    h: u64,
    in_word: bool,
}

impl Default for Words {
    fn default() -> Self {
        Words { h: 0xcbf2_9ce4_8422_2325, in_word: false }
    }
}

impl Words {
    fn byte(&mut self, b: u8) {
        self.h = (self.h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }

    fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if b.is_ascii_whitespace() {
                if self.in_word {
                    self.byte(0xff);
                    self.in_word = false;
                }
            } else {
                self.in_word = true;
                self.byte(b);
            }
        }
    }

    /// A raw JSON string's value, decoded as it is fed (a message's text is never held twice);
    /// `false` when it is not a string whose escapes decode.
    fn feed_raw(&mut self, raw: Raw<'_>) -> bool {
        let Some(body) = raw.0.strip_prefix('"').and_then(|b| b.strip_suffix('"')) else { return false };
        crate::text::json::decode_strict(body, self)
    }

    fn finish(mut self) -> u64 {
        if self.in_word {
            self.byte(0xff);
        }
        self.h
    }
}

impl crate::text::json::Sink for Words {
    #[inline]
    fn text(&mut self, text: &str) {
        self.feed(text.as_bytes());
    }

    #[inline]
    fn char(&mut self, c: char) {
        let mut buf = [0u8; 4];
        self.feed(c.encode_utf8(&mut buf).as_bytes());
    }
}

/// The words hash of a content list's text blocks, concatenated, decoded as they are fed.
fn blocks_hash(blocks: &[Block]) -> u64 {
    let mut h = Words::default();
    for b in blocks {
        if matches!(b.kind.as_str(), Some("output_text" | "input_text" | "text")) {
            if let Some(raw) = b.text {
                h.feed_raw(raw);
            }
        }
    }
    h.finish()
}

/// On the worker thread: the hash of the text `settle` compares, for the lines that hold one (a
/// turn's final message, an assistant message, what a parent received from a child).
fn text_hash(line: &Line) -> Option<u64> {
    let p = line.payload()?;
    match (line.kind.as_str()?, p.kind.as_str()?) {
        ("event_msg", "task_complete" | "turn_complete") => {
            let mut h = Words::default();
            h.feed_raw(p.last_agent_message?).then(|| h.finish())
        }
        ("response_item", "message") if p.role.as_str() == Some("assistant") => Some(blocks_hash(&p.content.0)),
        ("response_item", "agent_message") if starts_with(&p.content.0, "Message Type: FINAL_ANSWER") => {
            Some(words_hash(final_answer(&blocks_text(&p.content.0))?))
        }
        ("response_item", "message")
            if p.role.as_str() == Some("user") && starts_with(&p.content.0, "<subagent_notification>") =>
        {
            Some(words_hash(&notification(&blocks_text(&p.content.0))?.1))
        }
        _ => None,
    }
}

// ---------------------------------------------------------------------------------------------
// What crosses files, settled once all are read.

/// A rollout, as its file left it for `settle`.
#[derive(Debug, Clone)]
struct Thread {
    session: Sym,
    /// Its first `session_meta` (the run's start), and its last record (the run's end).
    first: Loc,
    last: Loc,
    start_time: Option<f64>,
    /// The parent its own `session_meta` names (`thread-spawn`), where.
    spawn_parent: Option<Sym>,
    /// `source.subagent` is `"review"`.
    review: bool,
    /// It says it is a sub-agent (any `source.subagent`, or `thread_source: "subagent"`).
    subagent: bool,
    agent_path: Option<Sym>,
    /// From its last turn; `None` when it has no turn (its parent's activities may then say).
    outcome: Option<Outcome>,
    /// The hash of its last reply.
    reply: Option<u64>,
}

/// A parent's `sub_agent_activity` naming a child thread.
#[derive(Debug, Clone, Copy)]
struct Activity {
    parent: Sym,
    child: Sym,
    at: Loc,
    time: Option<f64>,
    started: bool,
    /// What the activity says of the child's run (`completed`, `interrupted`), if anything.
    outcome: Option<Outcome>,
    /// The child's agent path, as its parent names it (`FINAL_ANSWER`s are signed with it).
    path: Option<Sym>,
}

/// A `sub_agent_activity` kind: whether it starts the child, and what it says of its run.
fn activity_kind(kind: Option<&str>) -> (bool, Option<Outcome>) {
    match kind {
        None | Some("started") => (true, None),
        Some("completed") => (false, Some(Outcome::Ok)),
        Some("interrupted") => (false, Some(Outcome::Cancelled)),
        Some("errored" | "failed") => (false, Some(Outcome::Error)),
        Some(_) => (false, None),
    }
}

/// What a parent received from a child (`FINAL_ANSWER`, `<subagent_notification>`).
#[derive(Debug, Clone, Copy)]
struct Received {
    parent: Sym,
    /// The child's agent path (or, in older notifications, its thread id), interned.
    author: Sym,
    at: TextRef,
    time: Option<f64>,
    hash: Option<u64>,
}

/// The evidence of every rollout read, and what settling has done with it.
#[derive(Debug, Default, Clone)]
struct Rollouts {
    threads: Vec<Thread>,
    activities: Vec<Activity>,
    /// `entered_review_mode`: the rollout, and when.
    reviews: Vec<(Sym, f64, Loc)>,
    received: Vec<Received>,
    /// Settled runs: child → (parent, link, run index), so that settling again extends them.
    linked: HashMap<Sym, (Option<Sym>, Link, usize)>,
    told: HashSet<(Code, Loc, Option<Sym>)>,
    received_done: HashSet<Sym>,
    /// `received` by parent, and how many of `received` it covers.
    received_index: (HashMap<Sym, Vec<usize>>, usize),
}

impl Rollouts {
    /// What `parent` received, through an index made on first use (and again when more came).
    fn received_by_parent(&mut self, parent: Sym) -> impl Iterator<Item = &Received> + '_ {
        if self.received_index.1 != self.received.len() {
            let mut index: HashMap<Sym, Vec<usize>> = HashMap::default();
            for (i, r) in self.received.iter().enumerate() {
                index.entry(r.parent).or_default().push(i);
            }
            self.received_index = (index, self.received.len());
        }
        let list = self.received_index.0.get(&parent).map_or(&[][..], Vec::as_slice);
        list.iter().map(|&i| &self.received[i])
    }

    fn tell(&mut self, cx: &mut Ctx, code: Code, at: Loc, session: Option<Sym>, message: String) {
        if self.told.insert((code, at, session)) {
            cx.findings.add(code, at, session, message);
        }
    }
}

/// One piece of evidence for a child's parent, strongest first by `Link` rank.
#[derive(Debug, Clone, Copy)]
struct Evidence {
    link: Link,
    parent: Sym,
    at: Loc,
    time: Option<f64>,
}

fn rank(link: Link) -> u8 {
    match link {
        Link::ThreadSpawn => 0,
        Link::Activity => 1,
        Link::TimeWindow => 2,
        _ => 3,
    }
}

/// Once every rollout is read: link each child to its parent by the strongest evidence, report
/// what disagrees or is missing, and attach what each parent received.
fn settle(cx: &mut Ctx) {
    let mut st = std::mem::take(cx.ext::<Rollouts>());
    settle_with(cx, &mut st);
    *cx.ext::<Rollouts>() = st;
}

fn settle_with(cx: &mut Ctx, st: &mut Rollouts) {
    let loaded: HashMap<Sym, usize> = st.threads.iter().enumerate().map(|(i, t)| (t.session, i)).collect();
    // A name sorts the threads, so that the result does not depend on the order files came in.
    let mut order: Vec<usize> = (0..st.threads.len()).collect();
    order.sort_by(|&a, &b| cx.ids.name(st.threads[a].session).cmp(cx.ids.name(st.threads[b].session)));
    let by_name = |cx: &Ctx, s: Sym| cx.ids.name(s).to_owned();
    // Indexes, so that settling is linear in the evidence.
    let mut acts: HashMap<Sym, Vec<usize>> = HashMap::default();
    for (i, a) in st.activities.iter().enumerate() {
        acts.entry(a.child).or_default().push(i);
    }
    let mut reviews: Vec<(f64, Sym, Loc)> = st.reviews.iter().map(|&(p, ms, at)| (ms, p, at)).collect();
    reviews.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut ancestry = Ancestry::default();
    let mut missing_children: Vec<Activity> = Vec::new();
    for a in &st.activities {
        if a.started && !loaded.contains_key(&a.child) {
            missing_children.push(*a);
        }
    }
    for i in order {
        let t = st.threads[i].clone();
        let mut evidence: Vec<Evidence> = Vec::new();
        if let Some(p) = t.spawn_parent {
            evidence.push(Evidence { link: Link::ThreadSpawn, parent: p, at: t.first, time: t.start_time });
        }
        // Only a start ties a child to its parent: any thread may interact with any other (a
        // child messaging `/root` writes an activity naming the root).
        let own: Vec<Activity> = acts.get(&t.session).map_or(Vec::new(), |v| v.iter().map(|&i| st.activities[i]).collect());
        for a in own.iter().filter(|a| a.started && a.parent != t.session) {
            evidence.push(Evidence { link: Link::Activity, parent: a.parent, at: a.at, time: a.time });
        }
        let mut windowed: Vec<(Sym, f64, Loc)> = Vec::new();
        if t.review {
            if let Some(start) = t.start_time {
                let from = reviews.partition_point(|r| r.0 < start - REVIEW_WINDOW_MS);
                let to = reviews.partition_point(|r| r.0 <= start);
                for &(at_ms, p, at) in &reviews[from..to.max(from)] {
                    if p != t.session {
                        windowed.push((p, at_ms, at));
                    }
                }
            }
            let mut parents: Vec<Sym> = windowed.iter().map(|w| w.0).collect();
            parents.sort_unstable();
            parents.dedup();
            if parents.len() == 1 {
                // The last `entered_review_mode` before the child's start is the one it answers.
                let w = windowed.iter().max_by(|a, b| a.1.total_cmp(&b.1)).copied().expect("one at least");
                evidence.push(Evidence { link: Link::TimeWindow, parent: w.0, at: w.2, time: Some(w.1) });
            }
        }
        let is_child = t.subagent || !evidence.is_empty();
        if !is_child {
            continue;
        }
        // Strongest first; within a kind, the earliest, then by name: whatever the file order.
        evidence.sort_by(|a, b| {
            rank(a.link)
                .cmp(&rank(b.link))
                .then(a.time.unwrap_or(f64::INFINITY).total_cmp(&b.time.unwrap_or(f64::INFINITY)))
                .then_with(|| cx.ids.name(a.parent).cmp(cx.ids.name(b.parent)))
        });
        let child_name = by_name(cx, t.session);
        let chosen = evidence.first().copied();
        if let Some(c) = chosen {
            for e in evidence.iter().skip(1).filter(|e| e.parent != c.parent) {
                let msg = format!(
                    "{} names `{}` as the parent of `{child_name}`, but the stronger {} names `{}`: the {} stands",
                    e.link.as_str(),
                    by_name(cx, e.parent),
                    c.link.as_str(),
                    by_name(cx, c.parent),
                    c.link.as_str()
                );
                st.tell(cx, Code::SubagentLinksDisagree, e.at, Some(t.session), msg);
            }
        } else {
            let why = if windowed.is_empty() {
                "no thread-spawn parent, no parent's sub_agent_activity and no review window links it"
            } else {
                "its start lies in the review windows of several rollouts, so none is known to be its parent"
            };
            let msg = format!(
                "sub-agent `{child_name}`: {why}; it stands as its own root (a reader that pairs rollouts by time or position may pair it wrong)"
            );
            st.tell(cx, Code::SubagentLinkInferred, t.first, Some(t.session), msg);
        }
        let (parent, link) = match chosen {
            Some(c) if c.parent == t.session => {
                let msg = format!("`{child_name}` names itself as its parent");
                st.tell(cx, Code::AncestryCycle, c.at, Some(t.session), msg);
                (None, Link::Inferred)
            }
            Some(c) => {
                if ancestry.would_cycle(t.session, c.parent) {
                    let msg = format!(
                        "`{child_name}` names `{}` as its parent, which makes `{child_name}` its own ancestor",
                        by_name(cx, c.parent)
                    );
                    st.tell(cx, Code::AncestryCycle, c.at, Some(t.session), msg);
                }
                ancestry.set_parent(t.session, c.parent);
                if !loaded.contains_key(&c.parent) {
                    let msg = format!(
                        "the parent thread `{}` of `{child_name}` is not among the loaded rollouts",
                        by_name(cx, c.parent)
                    );
                    st.tell(cx, Code::MissingParentSession, c.at, Some(t.session), msg);
                }
                (Some(c.parent), c.link)
            }
            None => (None, Link::Inferred),
        };
        let run = match st.linked.get(&t.session) {
            Some(&(p, l, run)) if p == parent && l == link => run,
            _ => cx.graph.open_run(t.session, parent, Some(t.first), link),
        };
        st.linked.insert(t.session, (parent, link, run));
        // A child without turns: its parent's last activity that says how it ended, if any.
        let outcome = t.outcome.or_else(|| {
            own.iter()
                .filter(|a| Some(a.parent) == parent && a.outcome.is_some())
                .max_by(|a, b| a.time.unwrap_or(f64::NEG_INFINITY).total_cmp(&b.time.unwrap_or(f64::NEG_INFINITY)))
                .and_then(|a| a.outcome)
        });
        let node = cx.graph.session(t.session);
        if let Some(r) = node.runs.get_mut(run) {
            r.end = Some(t.last);
            r.outcome = outcome.unwrap_or(Outcome::Open);
        }
        if let Some(p) = parent {
            let mut authors: Vec<Sym> = own.iter().filter(|a| a.parent == p).filter_map(|a| a.path).collect();
            authors.extend(t.agent_path);
            authors.push(t.session);
            attach_received(cx, st, &t, p, &authors, run);
        }
    }
    for a in missing_children {
        let msg = format!(
            "`{}` started sub-agent thread `{}`, whose rollout is not loaded",
            by_name(cx, a.parent),
            by_name(cx, a.child)
        );
        st.tell(cx, Code::SubagentTranscriptMissing, a.at, Some(a.parent), msg);
    }
}

/// What `parent` received from the child `t` (its last `FINAL_ANSWER` or notification), compared
/// with the child's own last reply.
fn attach_received(cx: &mut Ctx, st: &mut Rollouts, t: &Thread, parent: Sym, authors: &[Sym], run: usize) {
    if st.received_done.contains(&t.session) {
        return;
    }
    let got = st
        .received_by_parent(parent)
        .filter(|r| authors.contains(&r.author))
        .max_by(|a, b| a.time.unwrap_or(f64::NEG_INFINITY).total_cmp(&b.time.unwrap_or(f64::NEG_INFINITY)))
        .copied();
    let Some(got) = got else { return };
    st.received_done.insert(t.session);
    cx.received.push(ReceivedRec { session: t.session, run: run as u32, at: got.at, key: None });
    if let (Some(a), Some(b)) = (got.hash, t.reply) {
        if a != b {
            let msg = format!(
                "what `{}` received from `{}` differs from the child's own last reply",
                cx.ids.name(parent),
                cx.ids.name(t.session)
            );
            st.tell(cx, Code::SubagentReplyDiffers, got.at.at, Some(t.session), msg);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// One rollout.

/// A fork's copy of its parent's history, from the second `session_meta` up to its own history.
#[derive(Debug, Default, Clone)]
struct Replay {
    active: bool,
    at: Option<Loc>,
    records: u64,
    /// The fork instant's second (`YYYY-MM-DDTHH:MM:SS`) the copied records are stamped with.
    second: Option<[u8; 19]>,
    /// A copied turn is open (the parent forked mid-turn).
    open_turn: bool,
}

#[derive(Debug, Clone)]
struct OpenTurn {
    ix: usize,
    id: Option<Sym>,
    /// The open step's index among the turn's spans, its last model output, and whether input
    /// (a tool's output, a message to the model) came after it: the next output is a new call.
    step: Option<usize>,
    last_output: u32,
    fed: bool,
    implicit: bool,
    /// A `task_complete.last_agent_message` is the reply (an assistant message then is not).
    final_reply: bool,
}

/// The state of one rollout file.
#[derive(Debug, Clone)]
struct Rollout {
    stem: String,
    session: Option<Sym>,
    metas: u32,
    /// `subagent_history_start_ordinal` of the first `session_meta`: copied records come before it.
    history_start: Option<f64>,
    replay: Replay,
    turn: Option<OpenTurn>,
    /// A `task_started` was seen: user messages open no turns.
    explicit: bool,
    implicit_n: i64,
    model: Option<Box<str>>,
    /// The last cumulative count (`total_token_usage`) and its components.
    last_total: Option<[u64; 5]>,
    usage_records: bool,
    responses: HashSet<u64>,
    /// The last record of the rollout's own (not copied) history, and the one before it (where
    /// an implicit turn ends when the next user message opens another).
    last_own: Option<u32>,
    prev_own: Option<u32>,
    last_turn: Option<usize>,
    reply_hash: Option<u64>,
    loose: Option<usize>,
    thread: Option<Thread>,
    clock: Rfc3339,
}

impl Machine for Rollout {
    type Shape = CodexShape;

    fn line(&mut self, cx: &mut Ctx, line: &Line, at: Loc, offset: u64) {
        Rollout::line(self, cx, line, at, offset)
    }

    fn finish(&mut self, cx: &mut Ctx) {
        Rollout::finish(self, cx)
    }
}

const MODEL_OUTPUT: &[&str] = &[
    "reasoning",
    "function_call",
    "custom_tool_call",
    "local_shell_call",
    "web_search_call",
    "tool_search_call",
    "image_generation_call",
];

fn record_kind(envelope: &str, p: &Payload) -> Kind {
    let t = p.kind.as_str().unwrap_or("");
    match envelope {
        "session_meta" => Kind::Header,
        "compacted" => Kind::Compaction,
        "turn_context" | "world_state" | "token_usage_record" => Kind::Other,
        "response_item" => match t {
            "message" => match p.role.as_str() {
                Some("assistant") => Kind::AssistantMessage,
                Some("user") => Kind::UserMessage,
                _ => Kind::Other,
            },
            "reasoning" => Kind::Reasoning,
            "function_call_output" | "custom_tool_call_output" | "local_shell_call_output" | "tool_search_output" => {
                Kind::ToolResult
            }
            "agent_message" => Kind::Lifecycle,
            t if MODEL_OUTPUT.contains(&t) => Kind::ToolCall,
            _ => Kind::Other,
        },
        "event_msg" => match t {
            "task_started" | "turn_started" => Kind::TurnStart,
            "task_complete" | "turn_complete" | "turn_aborted" => Kind::TurnEnd,
            "context_compacted" => Kind::Compaction,
            "error" | "stream_error" => Kind::Error,
            "sub_agent_activity" | "entered_review_mode" | "exited_review_mode" => Kind::Lifecycle,
            "item_completed" => match p.item.0.as_ref().and_then(|i| i.kind.as_str()) {
                Some("SubAgentActivity") => Kind::Lifecycle,
                Some("ContextCompaction") => Kind::Compaction,
                _ => Kind::Other,
            },
            "agent_reasoning" | "agent_reasoning_raw_content" => Kind::Reasoning,
            _ => Kind::Other,
        },
        _ => Kind::Other,
    }
}

impl Rollout {
    fn new(stem: String) -> Self {
        Rollout {
            stem,
            session: None,
            metas: 0,
            history_start: None,
            replay: Replay::default(),
            turn: None,
            explicit: false,
            implicit_n: 0,
            model: None,
            last_total: None,
            usage_records: false,
            responses: HashSet::default(),
            last_own: None,
            prev_own: None,
            last_turn: None,
            reply_hash: None,
            loose: None,
            thread: None,
            clock: Rfc3339::default(),
        }
    }

    fn line(&mut self, cx: &mut Ctx, line: &Line, at: Loc, offset: u64) {
        let empty = Payload::default();
        let p = line.payload().unwrap_or(&empty);
        let envelope = line.kind.as_str().unwrap_or("");
        let t = p.kind.as_str().unwrap_or("");
        let time = line.timestamp.as_str().and_then(|s| self.clock.ms(s));
        let kind = record_kind(envelope, p);
        if envelope == "session_meta" {
            self.metas += 1;
            if self.session.is_none() {
                if let Some(id) = p.id.non_empty() {
                    self.meta(cx, p, id, at, time);
                }
            } else if self.metas >= 2 && !self.replay.active && self.replay.at.is_none() {
                // A fork's copy of its parent's history begins here.
                self.replay.active = true;
                self.replay.at = Some(at);
                self.replay.second = line.timestamp.as_str().and_then(|s| s.as_bytes().get(..19)?.try_into().ok());
            }
        }
        let s = match self.session {
            Some(s) => s,
            None => {
                // A rollout without a `session_meta`: its file's stem names the session.
                let s = cx.sym(&self.stem.clone(), at);
                cx.graph.session(s);
                self.session = Some(s);
                self.thread = Some(thread(s, at, time));
                s
            }
        };
        if self.replay.active && self.replay_ends(line, envelope, t) {
            self.replay.active = false;
        }
        cx.record(at, offset, Some(s), kind, time);
        let rec = cx.last_record();
        if self.replay.active {
            // Shown, but not the child's own: not counted as its events, turns, tokens or reply.
            if let Some(node) = cx.graph.get_mut(s) {
                node.events = node.events.saturating_sub(1);
            }
            self.replay.records += 1;
            match t {
                "task_started" | "turn_started" if envelope == "event_msg" => self.replay.open_turn = true,
                "task_complete" | "turn_complete" | "turn_aborted" if envelope == "event_msg" => {
                    self.replay.open_turn = false
                }
                _ => {}
            }
            return;
        }
        self.prev_own = self.last_own;
        self.last_own = Some(rec);
        if let Some(th) = self.thread.as_mut() {
            th.last = at;
        }
        match (envelope, t) {
            ("turn_context", _) => {
                if let Some(m) = p.model.non_empty() {
                    if self.model.as_deref() != Some(m) {
                        self.model = Some(m.into());
                    }
                }
            }
            ("event_msg", "task_started" | "turn_started") => {
                self.explicit = true;
                self.close_turn(cx, None, None);
                let id = p.turn_id.as_str().map(|id| cx.turns.ids.intern(id));
                let turn_id = id.map_or(TurnId::Num(0), TurnId::Text);
                cx.turns.list.push(TurnRec::new(s, None, turn_id, Some(rec), None));
                self.open(cx.turns.list.len() - 1, id, false);
            }
            ("event_msg", "task_complete" | "turn_complete" | "turn_aborted") => {
                let id = p.turn_id.as_str().map(|id| cx.turns.ids.intern(id));
                let reason = if t == "turn_aborted" { "aborted" } else { "completed" };
                let reply = (t != "turn_aborted" && p.last_agent_message.is_some_and(|r| r.0 != "null"))
                    .then_some((rec, line.text_hash));
                let matches = self.turn.as_ref().is_some_and(|o| !o.implicit && (id.is_none() || o.id == id));
                if matches {
                    if let (Some((r, hash)), Some(o)) = (reply, self.turn.as_mut()) {
                        cx.turns.list[o.ix].set_reply(r);
                        cx.text_spans.extend(line.text_span.map(|span| (r, span)));
                        o.final_reply = true;
                        self.reply_hash = hash;
                    }
                    self.close_turn(cx, Some(rec), Some(reason));
                } else {
                    // An end without its start (a rollout cut at its head).
                    self.close_turn(cx, None, None);
                    let turn_id = id.map_or(TurnId::Num(0), TurnId::Text);
                    let mut t = TurnRec::new(s, None, turn_id, None, Some(rec));
                    if let Some((r, hash)) = reply {
                        t.set_reply(r);
                        cx.text_spans.extend(line.text_span.map(|span| (r, span)));
                        self.reply_hash = hash;
                    }
                    cx.turns.list.push(t);
                    let ix = cx.turns.list.len() - 1;
                    cx.turns.set_reason(ix, Some(reason));
                    self.last_turn = Some(ix);
                }
            }
            ("event_msg", "user_message") if !self.explicit => {
                self.close_turn(cx, None, None);
                self.implicit_n += 1;
                cx.turns.list.push(TurnRec::new(s, None, TurnId::Num(self.implicit_n), Some(rec), None));
                self.open(cx.turns.list.len() - 1, None, true);
            }
            ("event_msg", "token_count") => self.token_count(cx, s, p, rec),
            ("token_usage_record", _) => self.usage_record(cx, s, p, rec),
            ("event_msg", "sub_agent_activity") => {
                if let Some(child) = p.agent_thread_id.non_empty() {
                    let child = cx.sym(child, at);
                    let (started, outcome) = activity_kind(p.activity.as_str());
                    let path = p.agent_path.non_empty().map(|x| cx.ids.intern(x));
                    // The spawn call this activity answers (its `event_id`), for the transcript:
                    // the call line does not name the child.
                    if let Some(call) = p.event_id.non_empty().filter(|_| started) {
                        cx.spawns.insert((s, call.into()), child);
                    }
                    cx.ext::<Rollouts>().activities.push(Activity { parent: s, child, at, time, started, outcome, path });
                }
            }
            // The child a spawn call started, for the transcript (the call line does not name it).
            // Interned without `cx.sym`: the report does not see this, so it tells nothing.
            ("event_msg", "collab_agent_spawn_end") => {
                if let (Some(call), Some(child)) = (p.call_id.non_empty(), p.new_thread_id.non_empty()) {
                    let child = cx.ids.intern(child);
                    cx.spawns.insert((s, call.into()), child);
                }
            }
            ("event_msg", "item_completed") => {
                if let Some(item) = p.item.0.as_ref().filter(|i| i.kind.as_str() == Some("SubAgentActivity")) {
                    if let Some(child) = item.agent_thread_id.non_empty() {
                        let child = cx.sym(child, at);
                        let (started, outcome) = activity_kind(item.activity.as_str());
                        let path = item.agent_path.non_empty().map(|x| cx.ids.intern(x));
                        cx.ext::<Rollouts>().activities.push(Activity { parent: s, child, at, time, started, outcome, path });
                    }
                }
            }
            ("event_msg", "entered_review_mode") => {
                if let Some(ms) = time {
                    cx.ext::<Rollouts>().reviews.push((s, ms, at));
                }
            }
            ("response_item", "agent_message") if line.text_hash.is_some() => {
                if let Some(author) = p.author.non_empty() {
                    let author = cx.ids.intern(author);
                    let got = Received { parent: s, author, at: TextRef { at, offset }, time, hash: line.text_hash };
                    cx.ext::<Rollouts>().received.push(got);
                }
            }
            ("response_item", "message") if kind == Kind::UserMessage && line.text_hash.is_some() => {
                // An older child's reply: `<subagent_notification>` names the child's thread.
                let text = blocks_text(&p.content.0);
                if let Some((path, _)) = notification(&text) {
                    let author = cx.ids.intern(&path);
                    let got = Received { parent: s, author, at: TextRef { at, offset }, time, hash: line.text_hash };
                    cx.ext::<Rollouts>().received.push(got);
                }
            }
            ("response_item", "message") if kind == Kind::AssistantMessage => {
                cx.text_spans.extend(line.text_span.map(|span| (rec, span)));
                match self.turn.as_mut() {
                    Some(o) => {
                        if !o.final_reply {
                            cx.turns.list[o.ix].set_reply(rec);
                            self.reply_hash = line.text_hash;
                        }
                    }
                    None => {
                        let reply = LooseReply { session: s, text: TextRef { at, offset } };
                        match self.loose {
                            Some(i) => cx.loose_replies[i] = reply,
                            None => {
                                cx.loose_replies.push(reply);
                                self.loose = Some(cx.loose_replies.len() - 1);
                            }
                        }
                        self.reply_hash = line.text_hash;
                    }
                }
            }
            _ => {}
        }
        if envelope == "response_item" && (kind == Kind::AssistantMessage || MODEL_OUTPUT.contains(&t)) {
            self.step_output(cx, rec);
        } else if envelope == "response_item" && (matches!(kind, Kind::ToolResult | Kind::UserMessage) || t == "agent_message") {
            if let Some(o) = self.turn.as_mut().filter(|o| o.step.is_some()) {
                o.fed = true;
            }
        }
    }

    /// Does `line` begin the fork's own history (SPEC 2.5: its own first turn)? Past the first
    /// `session_meta`'s `subagent_history_start_ordinal` when it gives one; else a turn that
    /// starts while a copied turn is open (the parent forked mid-turn), or one stamped later than
    /// the fork instant's second (copied records carry the fork instant).
    fn replay_ends(&self, line: &Line, envelope: &str, t: &str) -> bool {
        if self.replay.at.is_none() {
            return false;
        }
        if let (Some(start), Some(o)) = (self.history_start, line.ordinal.get()) {
            return o >= start;
        }
        if envelope != "event_msg" || !matches!(t, "task_started" | "turn_started") {
            return false;
        }
        let later = match (self.replay.second, line.timestamp.as_str().and_then(|s| s.as_bytes().get(..19))) {
            (Some(fork), Some(here)) => here != fork,
            _ => false,
        };
        self.replay.open_turn || later
    }

    fn meta(&mut self, cx: &mut Ctx, p: &Payload, id: &str, at: Loc, time: Option<f64>) {
        let s = cx.sym(id, at);
        cx.graph.session(s);
        self.session = Some(s);
        self.history_start = p.subagent_history_start_ordinal.get();
        let mut th = thread(s, at, time.or_else(|| p.timestamp.as_str().and_then(crate::text::time::rfc3339_ms)));
        let (mut nickname, mut path, mut spawn_parent) = (p.agent_nickname.non_empty(), p.agent_path.non_empty(), None);
        match p.source.0.as_ref().map(|s| &s.subagent) {
            Some(Subagent::Named(name)) => {
                th.subagent = true;
                th.review = name.as_str() == Some("review");
                if let Some(n) = name.non_empty() {
                    cx.graph.set_label(s, n);
                }
            }
            Some(Subagent::Spawn(spawn)) => {
                th.subagent = true;
                if let Some(sp) = spawn {
                    spawn_parent = sp.parent_thread_id.non_empty();
                    nickname = nickname.or(sp.agent_nickname.non_empty());
                    path = path.or(sp.agent_path.non_empty());
                }
            }
            _ => {}
        }
        th.subagent |= p.thread_source.as_str() == Some("subagent");
        let parent = spawn_parent.or(p.parent_thread_id.non_empty());
        if let (Some(a), Some(b)) = (spawn_parent, p.parent_thread_id.non_empty()) {
            if a != b {
                cx.findings.add(
                    Code::SubagentLinksDisagree,
                    at,
                    Some(s),
                    format!("source.subagent.thread_spawn names `{a}` as the parent, but parent_thread_id names `{b}`: the thread_spawn stands"),
                );
            }
        }
        th.spawn_parent = parent.map(|p| cx.sym(p, at));
        th.agent_path = path.map(|p| cx.ids.intern(p));
        if let Some(label) = nickname.or_else(|| path.map(|p| p.rsplit('/').next().unwrap_or(p))).filter(|l| !l.is_empty())
        {
            cx.graph.set_label(s, label);
        }
        self.thread = Some(th);
    }

    fn open(&mut self, ix: usize, id: Option<Sym>, implicit: bool) {
        self.turn = Some(OpenTurn { ix, id, step: None, last_output: 0, fed: false, implicit, final_reply: false });
        self.last_turn = Some(ix);
        self.reply_hash = None;
    }

    /// Close the open turn at `end` (an implicit turn, or one cut by the next start, ends at the
    /// last record before it: `end` none).
    fn close_turn(&mut self, cx: &mut Ctx, end: Option<u32>, reason: Option<&str>) {
        let Some(o) = self.turn.take() else { return };
        let end = end.or(if o.implicit { self.prev_own } else { None });
        if let (Some(step), Some(e)) = (o.step, end) {
            if let Some(span) = cx.turns.span_mut(o.ix, step) {
                span.set_end(Some(e));
            }
        }
        if let Some(e) = end {
            cx.turns.list[o.ix].set_end(e);
        }
        cx.turns.set_reason(o.ix, reason);
        if end.is_none() && !o.implicit {
            if let Some(start) = cx.turns.list[o.ix].start().and_then(|r| cx.loc_of(r)) {
                let s = cx.turns.list[o.ix].session;
                cx.findings.add(
                    Code::UnclosedAtEnd,
                    start,
                    Some(s),
                    "this turn has no task_complete or turn_aborted: the rollout ends, or the next turn starts, while it is open",
                );
            }
        }
    }

    /// A model output item: it opens a step when none is open, or when input came since the open
    /// step's last output (the model was called again; its usage was not recorded).
    fn step_output(&mut self, cx: &mut Ctx, rec: u32) {
        let Some(o) = self.turn.as_mut() else { return };
        if let (Some(step), true) = (o.step, o.fed) {
            if let Some(span) = cx.turns.span_mut(o.ix, step) {
                span.set_end(Some(o.last_output));
            }
            o.step = None;
        }
        o.last_output = rec;
        o.fed = false;
        if o.step.is_some() {
            return;
        }
        let n = cx.turns.list[o.ix].steps + 1;
        cx.turns.list[o.ix].steps = n;
        o.step = Some(cx.turns.push_span(o.ix, StepSpan::open(n, rec)));
    }

    /// A usage record that counts a model call: it ends the open step.
    fn step_counted(&mut self, cx: &mut Ctx, rec: u32) {
        let Some(o) = self.turn.as_mut() else { return };
        if let Some(step) = o.step.take() {
            if let Some(span) = cx.turns.span_mut(o.ix, step) {
                span.set_end(Some(rec));
            }
        }
    }

    fn add_usage(&mut self, cx: &mut Ctx, s: Sym, c: [u64; 4], rec: u32) {
        let turn = self.turn.as_ref().map(|o| o.ix);
        cx.usage.add_call(rec, s, turn, self.model.as_deref(), usage_of(c));
        // The call's line is a transcript row, with the tokens it counted.
        cx.set_kind(rec, Kind::Usage);
        self.step_counted(cx, rec);
    }

    fn token_count(&mut self, cx: &mut Ctx, s: Sym, p: &Payload, rec: u32) {
        let Some(info) = p.info.0.as_ref() else { return };
        let total = info.total_token_usage.0;
        if self.usage_records {
            // Counted already, by response, in the rollout's `token_usage_record`s.
            self.last_total = total.map(|t| t.key()).or(self.last_total);
            return;
        }
        if let Some(t) = total {
            if self.last_total == Some(t.key()) {
                // The last count, repeated: no new model call.
                return;
            }
        }
        let counts = match (info.last_token_usage.0, total) {
            (Some(last), _) => Some(last.counts()),
            (None, Some(t)) => {
                let [a, b, c, d, _] = t.key();
                let [pa, pb, pc, pd, _] = self.last_total.unwrap_or_default();
                Some([a.saturating_sub(pa), b.saturating_sub(pb), c.saturating_sub(pc), d.saturating_sub(pd)])
            }
            (None, None) => None,
        };
        if let Some(t) = total {
            self.last_total = Some(t.key());
        }
        if let Some(c) = counts {
            self.add_usage(cx, s, c, rec);
        }
    }

    fn usage_record(&mut self, cx: &mut Ctx, s: Sym, p: &Payload, rec: u32) {
        let Some(u) = p.usage.0 else { return };
        self.usage_records = true;
        if let Some(id) = p.response_id.non_empty() {
            if !self.responses.insert(words_hash(id)) {
                return;
            }
        }
        self.add_usage(cx, s, u.counts(), rec);
    }

    fn finish(&mut self, cx: &mut Ctx) {
        // An implicit turn ends with the rollout; an explicit one still open is reported.
        if self.turn.as_ref().is_some_and(|o| o.implicit) {
            self.prev_own = self.last_own;
        }
        self.close_turn(cx, None, None);
        if let (Some(at), n @ 1..) = (self.replay.at, self.replay.records) {
            cx.findings.add(
                Code::ReplayedHistory,
                at,
                self.session,
                format!("{n} records from this second session_meta on are a fork's copy of its parent's history: shown, but not counted as this thread's events, turns, tokens or reply"),
            );
        }
        let Some(mut th) = self.thread.take() else { return };
        th.reply = self.reply_hash;
        th.outcome = self.last_turn.map(|ix| &cx.turns.list[ix]).map(|t| match cx.turns.reason(t) {
            _ if t.end().is_none() => Outcome::Open,
            Some("completed") => Outcome::Ok,
            Some("aborted") => Outcome::Cancelled,
            _ => Outcome::Open,
        });
        cx.ext::<Rollouts>().threads.push(th);
    }
}

fn thread(s: Sym, at: Loc, time: Option<f64>) -> Thread {
    Thread {
        session: s,
        first: at,
        last: at,
        start_time: time,
        spawn_parent: None,
        review: false,
        subagent: false,
        agent_path: None,
        outcome: None,
        reply: None,
    }
}

/// What a rollout line says, as transcript parts (SPEC 5 Transcript), read back a page at a
/// time with serde_json rather than through the scanner's shape.
///
/// **One source for each thing said.** A rollout records the model's output twice: as
/// `response_item`s (what the model was sent and produced, which the reader's turns, steps and
/// replies are made of) and as `event_msg`s for the UI (`user_message`, `agent_message`,
/// `agent_reasoning`, `context_compacted`). The transcript shows the `response_item`s and the
/// `compacted` line (which carries the summary); the UI echoes give nothing. Token counts are
/// their own lines: a `token_count` or `token_usage_record` that the reader counted is a row of
/// its own (the reader made its record a `Kind::Usage`; a repeat or a fork's copy stays none), a
/// `usage` part to which the engine gives the tokens and model the reader counted there
/// (`UsageBook::call`: a count with only the running total counts a difference no line holds),
/// so a turn's usage parts add up to the turn's usage in the report.
mod transcript {
    use crate::vocab::transcript::{Draft, PartKind};
    use serde_json::Value;

    /// User-role messages the harness writes (context, instructions), not the user.
    const HARNESS_PREFIXES: &[&str] = &[
        "<environment_context>",
        "<user_instructions>",
        "# AGENTS.md instructions",
        "<permissions instructions>",
        "<turn_aborted>",
        "<user_shell_command>",
    ];

    pub(super) fn line(line: &[u8], out: &mut Vec<Draft>) {
        let Ok(v) = serde_json::from_slice::<Value>(line) else { return };
        let Some(p) = v.get("payload").filter(|p| p.is_object()) else { return };
        let t = str_at(p, "type").unwrap_or("");
        match v.get("type").and_then(Value::as_str) {
            Some("response_item") => item(p, t, out),
            Some("compacted") => out.push(Draft::new(PartKind::Compaction, str_at(p, "message").unwrap_or(""))),
            Some("event_msg") if t == "token_count" => out.push(Draft::new(PartKind::Usage, "")),
            Some("event_msg") => event(p, t, out),
            Some("token_usage_record") => out.push(Draft::new(PartKind::Usage, "")),
            _ => {}
        }
    }

    fn str_at<'v>(v: &'v Value, key: &str) -> Option<&'v str> {
        v.get(key).and_then(Value::as_str)
    }

    /// The texts of a content list (or a plain string), joined without a separator.
    fn content_text(content: Option<&Value>) -> String {
        match content {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Array(blocks)) => blocks
                .iter()
                .filter(|b| matches!(str_at(b, "type"), Some("input_text" | "output_text" | "text") | None))
                .filter_map(|b| str_at(b, "text"))
                .collect(),
            _ => String::new(),
        }
    }

    use super::super::wire_transcript::json_text;

    /// The payload without its `type`, as JSON: the arguments of a call whose fields are its
    /// arguments (`local_shell_call`, `web_search_call`, …).
    fn fields_text(p: &Value) -> String {
        let mut m = p.as_object().cloned().unwrap_or_default();
        for k in ["type", "id", "call_id", "status"] {
            m.remove(k);
        }
        serde_json::to_string_pretty(&Value::Object(m)).unwrap_or_default()
    }

    fn item(p: &Value, t: &str, out: &mut Vec<Draft>) {
        match t {
            "message" => {
                let text = content_text(p.get("content"));
                match str_at(p, "role") {
                    Some("assistant") => out.push(Draft::new(PartKind::Text, text)),
                    Some("user") => out.push(user_message(text)),
                    _ => {}
                }
            }
            "reasoning" => {
                // The summary the model shows; the raw reasoning when a build records only that.
                let summary = p.get("summary").and_then(Value::as_array).into_iter().flatten();
                let mut parts: Vec<&str> = summary.filter_map(|b| str_at(b, "text")).collect();
                if parts.is_empty() {
                    let content = p.get("content").and_then(Value::as_array).into_iter().flatten();
                    parts = content.filter_map(|b| str_at(b, "text")).collect();
                }
                out.push(Draft::new(PartKind::Reasoning, parts.join("\n\n")));
            }
            "function_call" | "custom_tool_call" => {
                let name = str_at(p, "name");
                let args = if t == "function_call" { p.get("arguments") } else { p.get("input") };
                let (text, json) = json_text(args);
                let mut d = Draft::new(PartKind::ToolCall, text);
                d.json = json;
                if name == Some("spawn_agent") {
                    // The task, when the arguments name one; else the arguments as they are.
                    let task = args.and_then(Value::as_str).and_then(|a| serde_json::from_str::<Value>(a).ok());
                    let task = task.as_ref().and_then(|a| ["message", "prompt", "task"].iter().find_map(|k| str_at(a, k)));
                    if let Some(task) = task {
                        d.text = task.to_owned();
                        d.json = false;
                    }
                    d.kind = Some(PartKind::Spawn);
                }
                d.tool = name.map(str::to_owned);
                d.call_id = str_at(p, "call_id").map(str::to_owned);
                out.push(d);
            }
            "local_shell_call" | "web_search_call" | "tool_search_call" | "image_generation_call" => {
                let mut d = Draft::new(PartKind::ToolCall, fields_text(p));
                d.json = true;
                d.tool = Some(t.trim_end_matches("_call").to_owned());
                d.call_id = str_at(p, "call_id").map(str::to_owned);
                out.push(d);
            }
            "function_call_output" | "custom_tool_call_output" | "local_shell_call_output" | "tool_search_output" => {
                out.push(tool_result(p));
            }
            "agent_message" => {
                let text = content_text(p.get("content"));
                match super::final_answer(&text) {
                    Some(answer) => {
                        let mut d = Draft::new(PartKind::Received, answer);
                        d.child = str_at(p, "author").and_then(thread_id).map(str::to_owned);
                        out.push(d);
                    }
                    // Another agent's message to this one: an input, as a prompt is.
                    None => out.push(Draft::new(PartKind::Prompt, text)),
                }
            }
            _ => {}
        }
    }

    /// A child named by its thread id rather than its agent path (`/root/…`), which is no session's id.
    fn thread_id(name: &str) -> Option<&str> {
        (!name.is_empty() && !name.starts_with('/')).then_some(name)
    }

    /// A user-role message: the user's prompt, an older child's notification, or the harness.
    fn user_message(text: String) -> Draft {
        if let Some((agent, status)) = super::notification(&text) {
            let mut d = Draft::new(PartKind::Received, status);
            d.child = thread_id(&agent).map(str::to_owned);
            return d;
        }
        let start = text.trim_start();
        let kind = if HARNESS_PREFIXES.iter().any(|h| start.starts_with(h)) { PartKind::Notice } else { PartKind::Prompt };
        Draft::new(kind, text)
    }

    /// A tool's output: a string (JSON or text), or `{content, success}`; it failed when it says
    /// `success: false` or a non-zero `metadata.exit_code`, or (the text newer shell tools
    /// return) starts `Exit code: N` with N not 0.
    fn tool_result(p: &Value) -> Draft {
        let output = p.get("output");
        let exit = output.and_then(Value::as_str).and_then(|s| s.strip_prefix("Exit code: "));
        let exit = exit.and_then(|s| s.split(|c: char| !c.is_ascii_digit() && c != '-').next()?.parse::<i64>().ok());
        let parsed = output.and_then(Value::as_str).and_then(|s| serde_json::from_str::<Value>(s).ok());
        let obj = parsed.as_ref().or(output).filter(|o| o.is_object());
        let failed = obj.and_then(|o| {
            let success = o.get("success").and_then(Value::as_bool).map(|ok| !ok);
            success.or_else(|| o.pointer("/metadata/exit_code").and_then(Value::as_i64).map(|c| c != 0))
        });
        let (text, json) = match obj.and_then(|o| o.get("content").or(o.get("output"))).and_then(Value::as_str) {
            Some(s) if obj.is_some_and(|o| o.get("agent_id").is_none()) => (s.to_owned(), false),
            _ => json_text(output),
        };
        let mut d = Draft::new(PartKind::ToolResult, text);
        d.json = json;
        // A `spawn_agent` call's output only names the child it started (its id, nickname or
        // task path); what the parent received is the child's `FINAL_ANSWER` message, later.
        d.acknowledges = true;
        d.is_error = Some(failed.or(exit.map(|c| c != 0)).unwrap_or(false));
        d.call_id = str_at(p, "call_id").map(str::to_owned);
        d
    }

    fn event(p: &Value, t: &str, out: &mut Vec<Draft>) {
        match t {
            "error" | "stream_error" => {
                // `message`, or (some builds) an `error` object with its `message`.
                let message = str_at(p, "message").or(p.pointer("/error/message").and_then(Value::as_str));
                let mut d = Draft::new(PartKind::Notice, message.unwrap_or(""));
                d.is_error = Some(t == "error");
                out.push(d);
            }
            "sub_agent_activity" => out.push(activity(p)),
            "item_completed" => {
                if let Some(item) = p.get("item").filter(|i| str_at(i, "type") == Some("SubAgentActivity")) {
                    out.push(activity(item));
                }
            }
            "entered_review_mode" => {
                let hint = str_at(p, "user_facing_hint").map(str::to_owned);
                out.push(Draft::new(PartKind::Notice, format!("Entered review mode: {}", hint.unwrap_or_else(|| fields_text(p)))));
            }
            "exited_review_mode" => {
                let said = p.pointer("/review_output/overall_explanation").and_then(Value::as_str);
                out.push(Draft::new(PartKind::Notice, format!("Exited review mode: {}", said.unwrap_or(""))));
            }
            _ => {}
        }
    }

    /// A parent's note of what a child it spawned is doing (started, completed, …).
    fn activity(p: &Value) -> Draft {
        let who = str_at(p, "agent_path").or(str_at(p, "agent_thread_id")).unwrap_or("sub-agent");
        let mut d = Draft::new(PartKind::Notice, format!("{who}: {}", str_at(p, "kind").unwrap_or("started")));
        d.child = str_at(p, "agent_thread_id").map(str::to_owned);
        d
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_final_answer_is_its_payload_and_a_notification_its_status() {
        let t = "Message Type: FINAL_ANSWER\nTask name: /root\nSender: /root/x\nPayload:\nBANANA";
        assert_eq!(final_answer(t), Some("BANANA"));
        assert_eq!(final_answer("Message Type: NEW_TASK\nPayload:\nx"), None);
        let n = r#"<subagent_notification>{"agent_path":"abc","status":{"completed":"done."}}</subagent_notification>"#;
        assert_eq!(notification(n), Some(("abc".to_owned(), "done.".to_owned())));
        let n = r#"<SUBAGENT_NOTIFICATION>{"agent_id":"a1","status":{"completed":"ok"}}</subagent_notification>"#;
        assert_eq!(notification(n), Some(("a1".to_owned(), "ok".to_owned())));
        assert_eq!(notification("<subagent_notification>done</subagent_notification>"), None);
        assert_eq!(words_hash("a  b\n"), words_hash(" a b"));
        assert_ne!(words_hash("ab"), words_hash("a b"));
        // Fed raw and in pieces, a text hashes as its decoded whole does.
        let mut h = Words::default();
        assert!(h.feed_raw(Raw(r#""caf\u00e9 \ud83d\ude00\nfo""#)) && h.feed_raw(Raw(r#""o\tbar \"q\"""#)));
        assert_eq!(h.finish(), words_hash("café 😀\nfoo\tbar \"q\""));
        assert!(!Words::default().feed_raw(Raw(r#""bad \x""#)));
    }

    /// Settling again (a followed log that grew) keeps each run and tells no finding twice; a
    /// parent that arrives later is linked then.
    #[test]
    fn settling_again_extends_what_it_made_and_repeats_nothing() {
        let mut cx = Ctx::default();
        let at = |file, line| Loc { file, line };
        let (root, child, orphan) = (cx.ids.intern("root"), cx.ids.intern("child"), cx.ids.intern("orphan"));
        for s in [root, child, orphan] {
            cx.graph.session(s);
        }
        let mut c = thread(child, at(1, 1), Some(0.0));
        c.spawn_parent = Some(root);
        c.subagent = true;
        let mut o = thread(orphan, at(2, 1), Some(0.0));
        o.subagent = true;
        cx.ext::<Rollouts>().threads.extend([thread(root, at(0, 1), Some(0.0)), c, o]);
        settle(&mut cx);
        let findings = cx.findings.list.len();
        cx.ext::<Rollouts>().threads[1].last = at(1, 9);
        settle(&mut cx);
        assert_eq!(cx.findings.list.len(), findings, "no finding twice");
        let runs = &cx.graph.get(child).unwrap().runs;
        assert_eq!((runs.len(), runs[0].end), (1, Some(at(1, 9))), "the run is extended, not made again");
        assert_eq!(cx.graph.get(orphan).unwrap().runs.len(), 1);
        // The orphan's parent shows up: it gets a run under it, beside the inferred one.
        cx.ext::<Rollouts>().activities.push(Activity {
            parent: root,
            child: orphan,
            at: at(0, 5),
            time: Some(1.0),
            started: true,
            outcome: None,
            path: None,
        });
        settle(&mut cx);
        let runs = &cx.graph.get(orphan).unwrap().runs;
        assert_eq!(runs.iter().map(|r| (r.parent, r.link)).collect::<Vec<_>>(), [(None, Link::Inferred), (Some(root), Link::Activity)]);
    }

    #[test]
    fn a_malformed_or_surprising_line_says_nothing_in_the_transcript() {
        use super::super::Format;
        let lines: &[&[u8]] = &[
            b"not json",
            b"{\"type\":\"response_item\",\"payload\":7}",
            b"{\"type\":\"response_item\",\"payload\":{\"type\":\"message\",\"role\":7}}",
            b"{\"type\":\"event_msg\",\"payload\":{\"type\":\"agent_message\",\"message\":\"echo\"}}",
            b"\xff\xfe",
        ];
        for line in lines {
            let mut out = Vec::new();
            CodexFormat.transcript(line, &mut out);
            assert!(out.is_empty(), "{:?}: {out:?}", String::from_utf8_lossy(line));
        }
        // A call whose fields are of surprising types is still a call, with what can be read.
        let mut out = Vec::new();
        CodexFormat.transcript(br#"{"type":"response_item","payload":{"type":"function_call","name":1,"arguments":[1],"call_id":null}}"#, &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!((out[0].tool.as_deref(), out[0].call_id.as_deref(), out[0].json), (None, None, true));
    }

    #[test]
    fn surprising_field_types_read_as_absent() {
        let l = parse_line(r#"{"type":"session_meta","payload":{"id":5,"source":["x"],"parent_thread_id":{}}}"#)
            .expect("an object");
        let p = l.payload().unwrap();
        assert!(p.id.present() && p.id.as_str().is_none());
        assert!(p.source.0.is_none());
        assert!(parse_line("[1]").is_none());
        assert!(parse_line(r#"{"type":"event_msg","payload":"x"}"#).unwrap().payload().is_none());
    }
}
