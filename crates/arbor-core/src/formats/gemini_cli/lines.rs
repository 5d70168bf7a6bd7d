//! The Gemini CLI line shape: one lenient serde struct for every kind of line a session file
//! holds (the metadata line, a message, `{"$set": …}`, `{"$rewindTo": …}`, and the older
//! whole-file document), borrowed from the line. Message texts are not kept here; a message's
//! `content` is only classified and its text hashed (`ContentInfo`), on the worker threads, and
//! a call's `result` and `args` are kept raw, for the few calls that ran a sub-agent or ended one.

use crate::report::Usage;
use crate::scan::{field, FieldBit, Scanner, R};
use crate::text::loose::Loose;
use crate::wire::{List, Num, Obj, Raw, Str};
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use std::fmt;

/// The line shape: each line read into `Line`.
pub struct GeminiShape;

crate::formats::line_shape!(GeminiShape, gemini_cells, Line, parse_into, no_prefetch);

fn no_prefetch(_: &Line<'_>) {}

/// Read `text` into `out` (a default line) in one pass with the engine's scanner, in its place.
fn parse_into<'a>(text: &'a str, _arena: &'a bumpalo::Bump, out: &mut Line<'a>) -> bool {
    out.text = text;
    Scanner::whole(text, None, |p| read_line(p, out))
}

/// A line as the shape reads it: `None` when it is not a JSON object the shape reads.
pub fn parse(text: &str) -> Option<Line<'_>> {
    let mut line = Line { text, ..Line::default() };
    Scanner::whole(text, None, |p| read_line(p, &mut line)).then_some(line)
}

/// `parse` through serde_json and the derived shapes: the reference the one-pass reading is held
/// to (`tests/scan.rs`).
pub fn parse_serde(text: &str) -> Option<Line<'_>> {
    if text.trim_start().as_bytes().first() != Some(&b'{') {
        return None;
    }
    let mut line: Line = serde_json::from_str(text).ok()?;
    line.text = text;
    Some(line)
}

// The one-pass reading: each field as the derived shapes read it (a field twice refused), a
// message's content counted and hashed as `ContentInfo`'s visitor does.

fn read_line<'a>(p: &mut Scanner<'a>, l: &mut Line<'a>) -> R<()> {
    let mut seen: FieldBit = 0;
    p.object(|p, key| {
        let seen = &mut seen;
        match key {
            "sessionId" => field!(seen, 0, l.session_id, p.str_field()),
            "projectHash" => field!(seen, 1, l.project_hash, p.str_field()),
            "kind" => field!(seen, 2, l.kind, p.str_field()),
            "startTime" => field!(seen, 3, l.start_time, p.str_field()),
            "lastUpdated" => field!(seen, 4, l.last_updated, p.str_field()),
            "summary" => field!(seen, 5, l.summary, p.str_field()),
            "messages" => field!(seen, 6, l.messages, read_raws(p)),
            "id" => field!(seen, 7, l.id, p.str_field()),
            "timestamp" => field!(seen, 8, l.timestamp, p.str_field()),
            "type" => field!(seen, 9, l.kind_of, p.str_field()),
            "model" => field!(seen, 10, l.model, p.str_field()),
            "tokens" => field!(seen, 11, l.tokens, p.obj_field(read_tokens)),
            "content" => field!(seen, 12, l.content, read_content(p)),
            "toolCalls" => field!(seen, 13, l.tool_calls, p.list_field(read_call)),
            "$set" => field!(seen, 14, l.set, p.obj_field(read_set)),
            "$rewindTo" => field!(seen, 15, l.rewind_to, p.str_field()),
            _ => p.skip(),
        }
    })
}

/// `Option<Raws>`: `null` is none; a list's elements kept raw; anything else an empty list.
fn read_raws<'a>(p: &mut Scanner<'a>) -> R<Option<Raws<'a>>> {
    match p.peek() {
        Some(b'n') => p.raw_field().map(|_| None),
        Some(b'[') => {
            let mut out = Vec::new();
            p.array(|p| {
                let start = p.pos();
                p.skip()?;
                out.push(Raw(p.since(start)));
                Ok(())
            })?;
            Ok(Some(Raws(out)))
        }
        // A string is decoded, as serde_json does for a visitor that takes one.
        Some(b'"') => p.str_field().map(|_| Some(Raws::default())),
        _ => p.decline().map(|()| Some(Raws::default())),
    }
}

fn read_set<'a>(p: &mut Scanner<'a>, s: &mut Set<'a>, seen: &mut FieldBit, key: &str) -> R<()> {
    match key {
        "messages" => field!(seen, 0, s.messages, read_raws(p)),
        "summary" => field!(seen, 1, s.summary, p.str_field()),
        _ => p.skip(),
    }
}

fn read_tokens(p: &mut Scanner<'_>, t: &mut Tokens, seen: &mut FieldBit, key: &str) -> R<()> {
    match key {
        "input" => field!(seen, 0, t.input, p.num_field()),
        "output" => field!(seen, 1, t.output, p.num_field()),
        "cached" => field!(seen, 2, t.cached, p.num_field()),
        "thoughts" => field!(seen, 3, t.thoughts, p.num_field()),
        "tool" => field!(seen, 4, t.tool, p.num_field()),
        "total" => field!(seen, 5, t.total, p.num_field()),
        _ => p.skip(),
    }
}

fn read_call<'a>(p: &mut Scanner<'a>, c: &mut Call<'a>, seen: &mut FieldBit, key: &str) -> R<()> {
    match key {
        "id" => field!(seen, 0, c.id, p.str_field()),
        "name" => field!(seen, 1, c.name, p.str_field()),
        "status" => field!(seen, 2, c.status, p.str_field()),
        "agentId" => field!(seen, 3, c.agent_id, p.str_field()),
        "displayName" => field!(seen, 4, c.display_name, p.str_field()),
        "result" => field!(seen, 5, c.result, p.raw_field()),
        "args" => field!(seen, 6, c.args, p.raw_field()),
        _ => p.skip(),
    }
}

/// A message's `content` as `ContentInfo`'s visitor reads it: a string, a part, a list of parts.
fn read_content(p: &mut Scanner<'_>) -> R<ContentInfo> {
    let mut c = ContentInfo::default();
    match p.peek() {
        // A string alone is one part, counted as a list's string is.
        Some(b'"') => read_text_part(p, &mut c)?,
        Some(b'{') => read_part(p, &mut c)?,
        Some(b'[') => p.array(|p| match p.peek() {
            Some(b'{') => read_part(p, &mut c),
            Some(b'"') => read_text_part(p, &mut c),
            // A list in the list: its elements skipped (serde's `IgnoredAny` for each).
            Some(b'[') => p.count_field().map(drop),
            _ => p.decline(),
        })?,
        _ => p.decline()?,
    }
    Ok(c)
}

/// A part that is a string (at its `"`), counted into `c`.
fn read_text_part(p: &mut Scanner<'_>, c: &mut ContentInfo) -> R<()> {
    let text = p.str_field()?;
    let s = text.as_str().unwrap_or_default();
    c.parts += 1;
    c.context += u32::from(is_session_context(s));
    c.text |= !s.trim().is_empty();
    c.text_hash.feed(s);
    Ok(())
}

/// One part object (at its `{`), counted into `c`; its keys may repeat (each is read).
fn read_part(p: &mut Scanner<'_>, c: &mut ContentInfo) -> R<()> {
    c.parts += 1;
    p.object(|p, key| match key {
        "text" => {
            let t = p.str_field()?;
            c.text |= t.as_str().is_some_and(|t| !t.trim().is_empty());
            if let Some(t) = t.as_str() {
                c.text_hash.feed(t);
                c.context += u32::from(is_session_context(t));
            }
            Ok(())
        }
        "functionResponse" => {
            c.function_responses += 1;
            p.skip()
        }
        _ => p.skip(),
    })
}

/// The first JSON value of `bytes`, whatever follows it: a message read back at its offset
/// inside a document (what follows is the rest of the document when it is on one line).
pub fn first_value<'a, T: Deserialize<'a>>(bytes: &'a [u8]) -> Option<T> {
    serde_json::Deserializer::from_slice(bytes).into_iter::<T>().next()?.ok()
}

/// One line of a session file: the union of the fields its kinds of line have.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Line<'a> {
    /// The line's text (where its messages' places are found).
    #[serde(skip)]
    pub text: &'a str,
    // The metadata line (and the older whole-file document).
    #[serde(borrow, rename = "sessionId")]
    pub session_id: Str<'a>,
    #[serde(borrow, rename = "projectHash")]
    pub project_hash: Str<'a>,
    #[serde(borrow)]
    pub kind: Str<'a>,
    #[serde(borrow, rename = "startTime")]
    pub start_time: Str<'a>,
    #[serde(borrow, rename = "lastUpdated")]
    pub last_updated: Str<'a>,
    #[serde(borrow)]
    pub summary: Str<'a>,
    #[serde(borrow)]
    pub messages: Option<Raws<'a>>,
    // A message.
    #[serde(borrow)]
    pub id: Str<'a>,
    #[serde(borrow)]
    pub timestamp: Str<'a>,
    #[serde(borrow, rename = "type")]
    pub kind_of: Str<'a>,
    #[serde(borrow)]
    pub model: Str<'a>,
    pub tokens: Obj<Tokens>,
    pub content: ContentInfo,
    #[serde(borrow, rename = "toolCalls")]
    pub tool_calls: List<Call<'a>>,
    // Replay.
    #[serde(borrow, rename = "$set")]
    pub set: Obj<Set<'a>>,
    #[serde(borrow, rename = "$rewindTo")]
    pub rewind_to: Str<'a>,
}

impl Line<'_> {
    /// The metadata line (or whole document): string `sessionId` and `projectHash`, no `type`.
    pub fn is_metadata(&self) -> bool {
        self.session_id.as_str().is_some() && self.project_hash.as_str().is_some() && !self.kind_of.present()
    }

    /// Where `raw` (a value inside this line) starts: its byte offset in the line, and the lines
    /// before it there.
    pub fn place_of(&self, raw: &str) -> (u64, u64) {
        let within = (raw.as_ptr() as usize).saturating_sub(self.text.as_ptr() as usize).min(self.text.len());
        let lines = memchr::memchr_iter(b'\n', &self.text.as_bytes()[..within]).count();
        (within as u64, lines as u64)
    }

    /// A message: a string `id` (what the producer's reader asks).
    pub fn is_message(&self) -> bool {
        self.id.as_str().is_some() && !self.is_metadata()
    }
}

/// A list of values kept raw (a document's `messages`); anything but a list reads as empty.
#[derive(Debug, Default)]
pub struct Raws<'a>(pub Vec<Raw<'a>>);

impl<'de: 'a, 'a> Deserialize<'de> for Raws<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Raws<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a list")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Raws<'a>, A::Error> {
                let mut out = Vec::new();
                while let Some(r) = a.next_element::<Raw<'a>>()? {
                    out.push(r);
                }
                Ok(Raws(out))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Raws<'a>, A::Error> {
                while a.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Raws::default())
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Raws<'a>, E> {
                Ok(Raws::default())
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Raws<'a>, E> {
                Ok(Raws::default())
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Raws<'a>, E> {
                Ok(Raws::default())
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Raws<'a>, E> {
                Ok(Raws::default())
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Raws<'a>, E> {
                Ok(Raws::default())
            }
            fn visit_unit<E: de::Error>(self) -> Result<Raws<'a>, E> {
                Ok(Raws::default())
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// `{"$set": {...}}`: metadata patched, or (`messages`) the history replaced.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Set<'a> {
    #[serde(borrow)]
    pub messages: Option<Raws<'a>>,
    #[serde(borrow)]
    pub summary: Str<'a>,
}

/// A `gemini` message's `tokens` (one model call's `usageMetadata`).
#[derive(Debug, Default, Deserialize, Clone, Copy)]
#[serde(default)]
pub struct Tokens {
    pub input: Num,
    pub output: Num,
    pub cached: Num,
    pub thoughts: Num,
    pub tool: Num,
    pub total: Num,
}

impl Tokens {
    /// SPEC 2.6: `input` includes `cached` (input is the rest, cache read is `cached`); output
    /// is `output` plus `thoughts`. `tool` (tool-use prompt tokens) is not counted (the SPEC
    /// names it nowhere; the producer writes 0 in every file seen).
    pub fn usage(&self) -> Usage {
        let n = |v: Num| v.get().filter(|x| x.is_finite() && *x > 0.0).map_or(0, |x| x as u64);
        let cached = n(self.cached);
        Usage {
            input: n(self.input).saturating_sub(cached),
            output: n(self.output) + n(self.thoughts),
            cache_read: cached,
            ..Usage::default()
        }
    }
}

/// One of a `gemini` message's `toolCalls`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Call<'a> {
    #[serde(borrow)]
    pub id: Str<'a>,
    #[serde(borrow)]
    pub name: Str<'a>,
    #[serde(borrow)]
    pub status: Str<'a>,
    /// The sub-agent this call ran (its session id), since 2026-04-10.
    #[serde(borrow, rename = "agentId")]
    pub agent_id: Str<'a>,
    #[serde(borrow, rename = "displayName")]
    pub display_name: Str<'a>,
    /// What the call returned (`functionResponse` parts), kept raw: read only for a call that
    /// ran a sub-agent.
    #[serde(borrow)]
    pub result: Option<Raw<'a>>,
    /// The call's arguments, kept raw: read only for a sub-agent's `complete_task`.
    #[serde(borrow)]
    pub args: Option<Raw<'a>>,
}

/// What a message's `content` (a string, a part, or a list of parts) holds, in counts, and the
/// loose hash of its text parts (a sub-agent's reply, as `subagent-reply-differs` compares it).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct ContentInfo {
    pub parts: u32,
    pub function_responses: u32,
    /// Text parts that are only the session's context (`is_session_context`).
    pub context: u32,
    /// Some text that is not blank.
    pub text: bool,
    pub text_hash: Loose,
}

impl ContentInfo {
    /// Only `functionResponse` parts: a tool's answer sent back to the model, not a prompt.
    pub fn only_function_responses(&self) -> bool {
        self.parts > 0 && self.function_responses == self.parts
    }

    /// Only the session's context: what the CLI sets up as the chat's first message, not a
    /// prompt anyone typed.
    pub fn only_context(&self) -> bool {
        self.parts > 0 && self.context == self.parts
    }
}

/// The environment the CLI writes as a chat's first `user` message (the date, the OS, the
/// workspace's folders and their tree), one `<session_context>` block: the history's context,
/// not a prompt. Seen in a real session file's first `$set.messages` (2026-07) and made by the
/// producer's `getEnvironmentContext`.
pub fn is_session_context(text: &str) -> bool {
    let t = text.trim();
    t.starts_with("<session_context>") && t.ends_with("</session_context>")
}

impl<'de> Deserialize<'de> for ContentInfo {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ContentInfo;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a message's content")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<ContentInfo, E> {
                let mut text_hash = Loose::default();
                text_hash.feed(s);
                let context = u32::from(is_session_context(s));
                Ok(ContentInfo { parts: 1, function_responses: 0, context, text: !s.trim().is_empty(), text_hash })
            }
            fn visit_map<A: MapAccess<'de>>(self, a: A) -> Result<ContentInfo, A::Error> {
                let mut c = ContentInfo::default();
                part(a, &mut c)?;
                Ok(c)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<ContentInfo, A::Error> {
                let mut c = ContentInfo::default();
                while a.next_element_seed(PartSeed(&mut c))?.is_some() {}
                Ok(c)
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<ContentInfo, E> {
                Ok(ContentInfo::default())
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<ContentInfo, E> {
                Ok(ContentInfo::default())
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<ContentInfo, E> {
                Ok(ContentInfo::default())
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<ContentInfo, E> {
                Ok(ContentInfo::default())
            }
            fn visit_unit<E: de::Error>(self) -> Result<ContentInfo, E> {
                Ok(ContentInfo::default())
            }
        }
        d.deserialize_any(V)
    }
}

/// One part of a list, counted into the content it is part of (an object, or a string).
struct PartSeed<'c>(&'c mut ContentInfo);

impl<'de> de::DeserializeSeed<'de> for PartSeed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for PartSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a part")
    }
    fn visit_map<A: MapAccess<'de>>(self, a: A) -> Result<(), A::Error> {
        part(a, self.0)
    }
    fn visit_str<E: de::Error>(self, s: &str) -> Result<(), E> {
        self.0.parts += 1;
        self.0.context += u32::from(is_session_context(s));
        self.0.text |= !s.trim().is_empty();
        self.0.text_hash.feed(s);
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<(), A::Error> {
        while a.next_element::<IgnoredAny>()?.is_some() {}
        Ok(())
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
}

/// A part object's keys: one part, counted into `c`.
fn part<'de, A: MapAccess<'de>>(mut a: A, c: &mut ContentInfo) -> Result<(), A::Error> {
    c.parts += 1;
    while let Some(key) = a.next_key::<std::borrow::Cow<'de, str>>()? {
        match &*key {
            "text" => {
                let t = a.next_value::<Str>()?;
                c.text |= t.as_str().is_some_and(|t| !t.trim().is_empty());
                if let Some(t) = t.as_str() {
                    c.text_hash.feed(t);
                    c.context += u32::from(is_session_context(t));
                }
            }
            "functionResponse" => {
                a.next_value::<IgnoredAny>()?;
                c.function_responses += 1;
            }
            _ => {
                a.next_value::<IgnoredAny>()?;
            }
        }
    }
    Ok(())
}
