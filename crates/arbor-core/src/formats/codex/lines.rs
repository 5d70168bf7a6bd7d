//! The rollout line shape: lenient serde structs that borrow from the line and keep texts raw,
//! read in place (`CodexShape`), and what is read of a line's texts on the worker threads (the
//! words hashes `settle` compares).

use crate::report::Usage;
use crate::scan::{field, FieldBit, Scanner, R};
use crate::wire::{List, Num, Obj, Raw, Str};
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::Deserialize;
use std::borrow::Cow;
use std::fmt;


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
pub(super) struct Empty {}

/// One rollout line, lenient: a field of a surprising type reads as absent. Texts stay raw.
/// Parsed in place (`parse_into`): a line is a kilobyte of fields, and moving it cost more than
/// reading it.
#[derive(Debug, Default, Clone)]
pub struct Line<'a> {
    pub(super) timestamp: Str<'a>,
    pub(super) kind: Str<'a>,
    pub(super) ordinal: Num,
    pub(super) payload: Payload<'a>,
    /// `payload` was an object.
    pub(super) has_payload: bool,
    /// The words of the line's text, hashed on the worker thread (`text_hash`).
    pub(super) text_hash: Option<u64>,
    /// Where a reply's text is in the line when it is one JSON string (start, length, quotes
    /// included): the report then reads back just that (`Ctx::text_spans`).
    pub(super) text_span: Option<(u32, u32)>,
}

impl<'a> Line<'a> {
    pub(super) fn payload(&self) -> Option<&Payload<'a>> {
        self.has_payload.then_some(&self.payload)
    }
}

/// A line's `payload`: the union of the fields the reader uses, read in place (`PayloadSeed`).
#[derive(Debug, Default, Clone)]
pub(super) struct Payload<'a> {
    pub(super) kind: Str<'a>,
    // session_meta
    pub(super) id: Str<'a>,
    pub(super) timestamp: Str<'a>,
    pub(super) parent_thread_id: Str<'a>,
    pub(super) agent_nickname: Str<'a>,
    pub(super) agent_path: Str<'a>,
    pub(super) source: Obj<SourceObj<'a>>,
    pub(super) thread_source: Str<'a>,
    pub(super) subagent_history_start_ordinal: Num,
    // turns
    pub(super) turn_id: Str<'a>,
    pub(super) last_agent_message: Option<Raw<'a>>,
    // usage
    pub(super) info: Obj<Info<'a>>,
    pub(super) response_id: Str<'a>,
    pub(super) usage: Obj<Tokens>,
    // sub-agents
    pub(super) event_id: Str<'a>,
    pub(super) agent_thread_id: Str<'a>,
    /// `sub_agent_activity.kind`: started, interacted, interrupted, completed.
    pub(super) activity: Str<'a>,
    pub(super) item: Obj<Item<'a>>,
    /// `collab_agent_spawn_end`: the spawn call and the thread it started.
    pub(super) call_id: Str<'a>,
    pub(super) new_thread_id: Str<'a>,
    // response items
    pub(super) role: Str<'a>,
    pub(super) content: List<Block<'a>>,
    pub(super) author: Str<'a>,
    // turn_context
    pub(super) model: Str<'a>,
}

/// What a `session_meta` says of its thread's place among threads (SPEC 2.5's `thread-spawn`),
/// read once for the machine (`Rollout::meta`) and the library's grouping (`thread_head`).
pub(super) struct Source<'p, 'a> {
    /// Any `source.subagent`, or `thread_source: "subagent"`.
    pub(super) subagent: bool,
    /// `source.subagent` is `"review"`.
    pub(super) review: bool,
    /// `source.subagent`'s name, when it is one.
    pub(super) named: Option<&'p str>,
    pub(super) spawn: Option<&'p ThreadSpawn<'a>>,
    /// The parent `thread_spawn` names, and the one it names else (`parent_thread_id`).
    pub(super) spawn_parent: Option<&'p str>,
    pub(super) parent: Option<&'p str>,
}

pub(super) fn source_of<'p, 'a>(p: &'p Payload<'a>) -> Source<'p, 'a> {
    let (mut subagent, mut review, mut named, mut spawn) = (false, false, None, None);
    match p.source.0.as_ref().map(|s| &s.subagent) {
        Some(Subagent::Named(name)) => {
            subagent = true;
            review = name.as_str() == Some("review");
            named = name.non_empty();
        }
        Some(Subagent::Spawn(s)) => {
            subagent = true;
            spawn = s.as_ref();
        }
        Some(Subagent::None) | None => {}
    }
    subagent |= p.thread_source.as_str() == Some("subagent");
    let spawn_parent = spawn.and_then(|s| s.parent_thread_id.non_empty());
    Source { subagent, review, named, spawn, spawn_parent, parent: spawn_parent.or(p.parent_thread_id.non_empty()) }
}

/// A parent's line naming a sub-agent thread: a `sub_agent_activity` event, or a paginated
/// `item_completed` whose item is a `SubAgentActivity`.
pub(super) struct SubActivity<'p> {
    pub(super) child: &'p str,
    /// `started`, `completed`, … (`links::activity_kind`).
    pub(super) kind: Option<&'p str>,
    pub(super) path: Option<&'p str>,
}

/// The sub-agent activity an `event_msg` of type `t` carries, if any.
pub(super) fn sub_activity<'p>(t: &str, p: &'p Payload<'_>) -> Option<SubActivity<'p>> {
    match t {
        "sub_agent_activity" => Some(SubActivity {
            child: p.agent_thread_id.non_empty()?,
            kind: p.activity.as_str(),
            path: p.agent_path.non_empty(),
        }),
        "item_completed" => {
            let item = p.item.0.as_ref().filter(|i| i.kind.as_str() == Some("SubAgentActivity"))?;
            Some(SubActivity {
                child: item.agent_thread_id.non_empty()?,
                kind: item.activity.as_str(),
                path: item.agent_path.non_empty(),
            })
        }
        _ => None,
    }
}

/// `source` when it is an object (`{"subagent": …}`); a string source (`"cli"`) reads as absent.
#[derive(Debug, Default, Deserialize, Clone)]
#[serde(default)]
pub(super) struct SourceObj<'a> {
    #[serde(borrow)]
    pub(super) subagent: Subagent<'a>,
}

/// `source.subagent`: a name (`"review"`) or `{"thread_spawn": {…}}`.
#[derive(Debug, Default, Clone)]
pub(super) enum Subagent<'a> {
    #[default]
    None,
    Named(Str<'a>),
    Spawn(Option<ThreadSpawn<'a>>),
}

#[derive(Debug, Default, Deserialize, Clone)]
#[serde(default)]
pub(super) struct SpawnObj<'a> {
    #[serde(borrow)]
    pub(super) thread_spawn: Obj<ThreadSpawn<'a>>,
}

#[derive(Debug, Default, Deserialize, Clone)]
#[serde(default)]
pub(super) struct ThreadSpawn<'a> {
    #[serde(borrow)]
    pub(super) parent_thread_id: Str<'a>,
    #[serde(borrow)]
    pub(super) agent_path: Str<'a>,
    #[serde(borrow)]
    pub(super) agent_nickname: Str<'a>,
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
pub(super) struct Info<'a> {
    /// The model the call was made to, when the count names it (newer versions).
    #[serde(borrow)]
    pub(super) model: Str<'a>,
    pub(super) total_token_usage: Obj<Tokens>,
    pub(super) last_token_usage: Obj<Tokens>,
}

#[derive(Debug, Default, Clone, Copy, Deserialize)]
#[serde(default)]
pub(super) struct Tokens {
    pub(super) input_tokens: Num,
    pub(super) cached_input_tokens: Num,
    pub(super) cache_write_input_tokens: Num,
    pub(super) output_tokens: Num,
    pub(super) total_tokens: Num,
}

impl Tokens {
    pub(super) fn counts(&self) -> [u64; 4] {
        let n = |v: Num| v.int().map_or(0, |i| i.max(0) as u64);
        [n(self.input_tokens), n(self.cached_input_tokens), n(self.cache_write_input_tokens), n(self.output_tokens)]
    }

    /// The counter as a whole, to tell a repeat from a new count.
    pub(super) fn key(&self) -> [u64; 5] {
        let [a, b, c, d] = self.counts();
        [a, b, c, d, self.total_tokens.int().map_or(0, |i| i.max(0) as u64)]
    }
}

/// The tokens of one model call as the report counts them (`counts()` order).
pub(super) fn usage_of(c: [u64; 4]) -> Usage {
    let [input, cached, write, output] = c;
    Usage {
        input: input.saturating_sub(cached).saturating_sub(write),
        output,
        cache_read: cached,
        cache_write: write,
        cost: None,
        unpriced: None,
    }
}

/// `item` of a paginated rollout's `item_completed`.
#[derive(Debug, Default, Deserialize, Clone)]
#[serde(default)]
pub(super) struct Item<'a> {
    #[serde(borrow, rename = "type")]
    pub(super) kind: Str<'a>,
    #[serde(borrow)]
    pub(super) id: Str<'a>,
    #[serde(borrow)]
    pub(super) agent_thread_id: Str<'a>,
    #[serde(borrow)]
    pub(super) agent_path: Str<'a>,
    #[serde(borrow, rename = "kind")]
    pub(super) activity: Str<'a>,
}

/// A content block; its text stays raw (unread) until it is asked for.
#[derive(Debug, Default, Deserialize, Clone)]
#[serde(default)]
pub(super) struct Block<'a> {
    #[serde(borrow, rename = "type")]
    pub(super) kind: Str<'a>,
    #[serde(borrow)]
    pub(super) text: Option<Raw<'a>>,
}

/// The line shape of `codex`: serde into `Line`, then the words of a reply's text hashed.
pub struct CodexShape;

crate::formats::line_shape!(CodexShape, codex_cells, Line, parse_into, prefetch_line);

pub(super) fn starts_object(text: &str) -> bool {
    text.trim_start_matches([' ', '\t', '\r', '\n']).as_bytes().first() == Some(&b'{')
}

/// Parse one line (a JSON object the shape reads), hashing its reply text when it has one.
pub fn parse_line(text: &str) -> Option<Line<'_>> {
    let mut line = Line::default();
    parse_in_place(text, &mut line).then_some(line)
}

pub(super) fn parse_bytes(bytes: &[u8]) -> Option<Line<'_>> {
    parse_line(std::str::from_utf8(bytes).ok()?)
}

pub(super) fn parse_into<'a>(text: &'a str, _arena: &'a bumpalo::Bump, out: &mut Line<'a>) -> bool {
    parse_in_place(text, out)
}

/// Read `text` into `out` (a default line) in one pass with the engine's scanner (`scan`), as
/// the serde reading below reads it (`parse_serde`, the reference: `tests/scan.rs` compares the
/// two); `false` when it is not a JSON object the shape reads.
pub(super) fn parse_in_place<'a>(text: &'a str, out: &mut Line<'a>) -> bool {
    if !Scanner::whole(text, None, |p| read_line(p, out)) {
        return false;
    }
    out.text_hash = text_hash(out);
    out.text_span = text_span(text, out);
    true
}

/// `parse_line` through serde_json and the seeds below: the reference the scanner is held to.
pub fn parse_serde(text: &str) -> Option<Line<'_>> {
    let mut out = Line::default();
    if !starts_object(text) {
        return None;
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let read = de::DeserializeSeed::deserialize(LineSeed(&mut out), &mut de).is_ok_and(|object| object);
    if !read || de.end().is_err() {
        return None;
    }
    out.text_hash = text_hash(&out);
    out.text_span = text_span(text, &out);
    Some(out)
}

// The one-pass reading. The line and its payload take a field given twice (the later one wins,
// a payload read again over the earlier one), as the seeds do; the derived shapes inside refuse
// it (`field!`).

fn read_line<'a>(p: &mut Scanner<'a>, l: &mut Line<'a>) -> R<()> {
    p.object(|p, key| {
        match key {
            "timestamp" => l.timestamp = p.str_field()?,
            "type" => l.kind = p.str_field()?,
            "ordinal" => l.ordinal = p.num_field()?,
            "payload" => {
                l.has_payload = p.peek() == Some(b'{');
                if l.has_payload {
                    let payload = &mut l.payload;
                    p.object(|p, key| read_payload(p, payload, key))?;
                } else if p.peek() == Some(b'"') {
                    // The seed takes a string (and declines it): decoded, as serde_json does.
                    p.str_field()?;
                } else {
                    p.decline()?;
                }
            }
            _ => p.skip()?,
        }
        Ok(())
    })
}

fn read_payload<'a>(p: &mut Scanner<'a>, x: &mut Payload<'a>, key: &str) -> R<()> {
    match key {
        "type" => x.kind = p.str_field()?,
        "id" => x.id = p.str_field()?,
        "timestamp" => x.timestamp = p.str_field()?,
        "parent_thread_id" => x.parent_thread_id = p.str_field()?,
        "agent_nickname" => x.agent_nickname = p.str_field()?,
        "agent_path" => x.agent_path = p.str_field()?,
        "source" => x.source = p.obj_field(read_source)?,
        "thread_source" => x.thread_source = p.str_field()?,
        "subagent_history_start_ordinal" => x.subagent_history_start_ordinal = p.num_field()?,
        "turn_id" => x.turn_id = p.str_field()?,
        "last_agent_message" => x.last_agent_message = p.raw_field()?,
        "info" => x.info = p.obj_field(read_info)?,
        "response_id" => x.response_id = p.str_field()?,
        "usage" => x.usage = p.obj_field(read_tokens)?,
        "event_id" => x.event_id = p.str_field()?,
        "agent_thread_id" => x.agent_thread_id = p.str_field()?,
        "kind" => x.activity = p.str_field()?,
        "item" => x.item = p.obj_field(read_item)?,
        "role" => x.role = p.str_field()?,
        "content" => x.content = p.list_field(read_block)?,
        "author" => x.author = p.str_field()?,
        "model" => x.model = p.str_field()?,
        "call_id" => x.call_id = p.str_field()?,
        "new_thread_id" => x.new_thread_id = p.str_field()?,
        _ => p.skip()?,
    }
    Ok(())
}

fn read_source<'a>(p: &mut Scanner<'a>, s: &mut SourceObj<'a>, seen: &mut FieldBit, key: &str) -> R<()> {
    match key {
        "subagent" => field!(seen, 0, s.subagent, read_subagent(p)),
        _ => p.skip(),
    }
}

/// `source.subagent`: a name, `{"thread_spawn": {…}}`, or anything else (none).
fn read_subagent<'a>(p: &mut Scanner<'a>) -> R<Subagent<'a>> {
    match p.peek() {
        Some(b'"') => p.str_field().map(Subagent::Named),
        Some(b'{') => p.obj_field(read_spawn_obj).map(|o| Subagent::Spawn(o.0.and_then(|s| s.thread_spawn.0))),
        _ => p.decline().map(|()| Subagent::None),
    }
}

fn read_spawn_obj<'a>(p: &mut Scanner<'a>, s: &mut SpawnObj<'a>, seen: &mut FieldBit, key: &str) -> R<()> {
    match key {
        "thread_spawn" => field!(seen, 0, s.thread_spawn, p.obj_field(read_thread_spawn)),
        _ => p.skip(),
    }
}

fn read_thread_spawn<'a>(p: &mut Scanner<'a>, t: &mut ThreadSpawn<'a>, seen: &mut FieldBit, key: &str) -> R<()> {
    match key {
        "parent_thread_id" => field!(seen, 0, t.parent_thread_id, p.str_field()),
        "agent_path" => field!(seen, 1, t.agent_path, p.str_field()),
        "agent_nickname" => field!(seen, 2, t.agent_nickname, p.str_field()),
        _ => p.skip(),
    }
}

fn read_info<'a>(p: &mut Scanner<'a>, i: &mut Info<'a>, seen: &mut FieldBit, key: &str) -> R<()> {
    match key {
        "model" => field!(seen, 0, i.model, p.str_field()),
        "total_token_usage" => field!(seen, 1, i.total_token_usage, p.obj_field(read_tokens)),
        "last_token_usage" => field!(seen, 2, i.last_token_usage, p.obj_field(read_tokens)),
        _ => p.skip(),
    }
}

fn read_tokens(p: &mut Scanner<'_>, t: &mut Tokens, seen: &mut FieldBit, key: &str) -> R<()> {
    match key {
        "input_tokens" => field!(seen, 0, t.input_tokens, p.num_field()),
        "cached_input_tokens" => field!(seen, 1, t.cached_input_tokens, p.num_field()),
        "cache_write_input_tokens" => field!(seen, 2, t.cache_write_input_tokens, p.num_field()),
        "output_tokens" => field!(seen, 3, t.output_tokens, p.num_field()),
        "total_tokens" => field!(seen, 4, t.total_tokens, p.num_field()),
        _ => p.skip(),
    }
}

fn read_item<'a>(p: &mut Scanner<'a>, i: &mut Item<'a>, seen: &mut FieldBit, key: &str) -> R<()> {
    match key {
        "type" => field!(seen, 0, i.kind, p.str_field()),
        "id" => field!(seen, 1, i.id, p.str_field()),
        "agent_thread_id" => field!(seen, 2, i.agent_thread_id, p.str_field()),
        "agent_path" => field!(seen, 3, i.agent_path, p.str_field()),
        "kind" => field!(seen, 4, i.activity, p.str_field()),
        _ => p.skip(),
    }
}

fn read_block<'a>(p: &mut Scanner<'a>, b: &mut Block<'a>, seen: &mut FieldBit, key: &str) -> R<()> {
    match key {
        "type" => field!(seen, 0, b.kind, p.str_field()),
        "text" => field!(seen, 1, b.text, p.raw_field()),
        _ => p.skip(),
    }
}

/// The place of a reply's text in `text`: a `task_complete`'s `last_agent_message`, or the one
/// text block of an assistant message.
pub(super) fn text_span(text: &str, line: &Line) -> Option<(u32, u32)> {
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
pub(super) struct LineSeed<'p, 'a>(&'p mut Line<'a>);

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
pub(super) struct PayloadSeed<'p, 'a>(&'p mut Payload<'a>);

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

pub(super) fn prefetch_line(_line: &Line) {}

/// A raw JSON string's value (`None` when the value is not a string), borrowed when it has no
/// escapes.
pub(super) fn decode_raw(raw: Raw<'_>) -> Option<Cow<'_, str>> {
    match serde_json::from_str::<Str>(raw.0).ok()? {
        Str::Borrowed(s) => Some(Cow::Borrowed(s)),
        Str::Owned(s) => Some(Cow::Owned(s.into())),
        Str::Absent | Str::Other => None,
    }
}

/// The text blocks of a content list, concatenated without a separator.
pub(super) fn blocks_text(blocks: &[Block]) -> String {
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
pub(super) fn starts_with(blocks: &[Block], prefix: &str) -> bool {
    blocks.iter().find_map(|b| b.text).is_some_and(|r| {
        r.0.strip_prefix('"').and_then(|s| s.get(..prefix.len())).is_some_and(|s| s.eq_ignore_ascii_case(prefix))
    })
}

/// The reply inside a child's `FINAL_ANSWER` agent message: what follows its `Payload:` line.
pub(super) fn final_answer(text: &str) -> Option<&str> {
    let rest = text.strip_prefix("Message Type: FINAL_ANSWER")?;
    Some(match rest.find("\nPayload:") {
        Some(i) => rest[i + "\nPayload:".len()..].strip_prefix('\n').unwrap_or(&rest[i + "\nPayload:".len()..]),
        None => rest.split_once('\n').map_or("", |(_, r)| r),
    })
}

/// An older `<subagent_notification>{"agent_path": …, "status": {"completed": …}}` (the tag in
/// any case; `agent_id` in some builds): the agent it names and the status text.
pub(super) fn notification(text: &str) -> Option<(String, String)> {
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
pub(super) struct Words {
    pub(super) h: u64,
    pub(super) in_word: bool,
}

impl Default for Words {
    fn default() -> Self {
        Words { h: 0xcbf2_9ce4_8422_2325, in_word: false }
    }
}

impl Words {
    pub(super) fn byte(&mut self, b: u8) {
        self.h = (self.h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }

    pub(super) fn feed(&mut self, bytes: &[u8]) {
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
    pub(super) fn feed_raw(&mut self, raw: Raw<'_>) -> bool {
        let Some(body) = raw.0.strip_prefix('"').and_then(|b| b.strip_suffix('"')) else { return false };
        crate::text::json::decode_strict(body, self)
    }

    pub(super) fn finish(mut self) -> u64 {
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
pub(super) fn blocks_hash(blocks: &[Block]) -> u64 {
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
pub(super) fn text_hash(line: &Line) -> Option<u64> {
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
