//! Wire shapes: lenient, borrowed views of one JSON line of any supported format.
//!
//! A line is parsed once, in one pass, into `Line` (a superset of every format's fields, nested
//! payloads included). Field types are lenient: a field of an unexpected type reads as absent
//! instead of failing the whole line, because "a JSON object with a surprising field" is a
//! different fact from "not JSON" and must not hide the rest. Since every field is lenient, a
//! nested object is read in place without buffering.

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use std::borrow::Cow;
use std::fmt;

/// A string field: present even when its value is not a string (then `as_str` is `None`).
///
/// 24 bytes, where a flag beside an `Option<Cow<str>>` took 32: lines are parsed on one core and
/// routed on another, so every byte of a parsed line is memory traffic.
#[derive(Default, Clone)]
pub enum Str<'a> {
    #[default]
    Absent,
    /// Present, but not a string.
    Other,
    Borrowed(&'a str),
    /// A string with escapes, decoded.
    Owned(Box<str>),
}

impl<'a> Str<'a> {
    /// A string value: borrowed from the line, or decoded from its escapes.
    pub fn text(s: Cow<'a, str>) -> Self {
        match s {
            Cow::Borrowed(s) => Str::Borrowed(s),
            Cow::Owned(s) => Str::Owned(s.into_boxed_str()),
        }
    }
    /// Whether the field is in the line, whatever its value.
    pub fn present(&self) -> bool {
        !matches!(self, Str::Absent)
    }
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Str::Borrowed(s) => Some(s),
            Str::Owned(s) => Some(s),
            Str::Absent | Str::Other => None,
        }
    }
    /// A non-empty string, or `None`.
    pub fn non_empty(&self) -> Option<&str> {
        self.as_str().filter(|s| !s.is_empty())
    }
}

/// As the struct it was (`present` and the string), which the differential tests print.
impl fmt::Debug for Str<'_> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.debug_struct("Str").field("present", &self.present()).field("s", &self.as_str()).finish()
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Str<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Str<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any value")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Str::Borrowed(v))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Str::Owned(v.into()))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(Str::Owned(v.into_boxed_str()))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(Str::Other)
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(Str::Other)
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(Str::Other)
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(Str::Other)
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Str::Other)
            }
            fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Str::Other)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
                while a.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Str::Other)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
                while a.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Str::Other)
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// A number field; anything else reads as `None`. 8 bytes: JSON has no NaN, so NaN is "none".
#[derive(Clone, Copy)]
pub struct Num(f64);

impl Default for Num {
    fn default() -> Self {
        Num(f64::NAN)
    }
}

impl Num {
    pub fn new(v: Option<f64>) -> Self {
        Num(v.unwrap_or(f64::NAN))
    }
    pub fn get(self) -> Option<f64> {
        Some(self.0).filter(|v| !v.is_nan())
    }
    /// The value as a whole number, when it is one.
    pub fn int(self) -> Option<i64> {
        self.get().filter(|v| v.fract() == 0.0 && v.abs() < 9.0e15).map(|v| v as i64)
    }
}

/// As the `Option` it was, which the differential tests print.
impl fmt::Debug for Num {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.debug_tuple("Num").field(&self.get()).finish()
    }
}

impl<'de> Deserialize<'de> for Num {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Num;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any value")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Num, E> {
                Ok(Num::new(Some(v as f64)))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Num, E> {
                Ok(Num::new(Some(v as f64)))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Num, E> {
                Ok(Num::new(Some(v)))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Num, E> {
                Ok(Num::default())
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Num, E> {
                Ok(Num::default())
            }
            fn visit_unit<E: de::Error>(self) -> Result<Num, E> {
                Ok(Num::default())
            }
            fn visit_none<E: de::Error>(self) -> Result<Num, E> {
                Ok(Num::default())
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Num, A::Error> {
                while a.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Num::default())
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Num, A::Error> {
                while a.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Num::default())
            }
        }
        d.deserialize_any(V)
    }
}

/// A boolean field; anything else reads as `None`.
#[derive(Debug, Default, Clone, Copy)]
pub struct Flag(pub Option<bool>);

impl<'de> Deserialize<'de> for Flag {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Flag;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any value")
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Flag, E> {
                Ok(Flag(Some(v)))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Flag, E> {
                Ok(Flag(None))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Flag, E> {
                Ok(Flag(None))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Flag, E> {
                Ok(Flag(None))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Flag, E> {
                Ok(Flag(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Flag, E> {
                Ok(Flag(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Flag, A::Error> {
                while a.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Flag(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Flag, A::Error> {
                while a.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Flag(None))
            }
        }
        d.deserialize_any(V)
    }
}

/// A list of values of `T`, or nothing when the field is not a list; elements that do not fit are
/// skipped.
#[derive(Debug, Clone)]
pub struct List<T>(pub Vec<T>);

impl<T> Default for List<T> {
    fn default() -> Self {
        List(Vec::new())
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for List<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = List<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any value")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<List<T>, A::Error> {
                let mut out = Vec::new();
                while let Some(Obj(v)) = a.next_element::<Obj<T>>()? {
                    out.extend(v);
                }
                Ok(List(out))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<List<T>, A::Error> {
                while a.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(List(Vec::new()))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<List<T>, E> {
                Ok(List(Vec::new()))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<List<T>, E> {
                Ok(List(Vec::new()))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<List<T>, E> {
                Ok(List(Vec::new()))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<List<T>, E> {
                Ok(List(Vec::new()))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<List<T>, E> {
                Ok(List(Vec::new()))
            }
            fn visit_unit<E: de::Error>(self) -> Result<List<T>, E> {
                Ok(List(Vec::new()))
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// The number of elements of a list field (packed rows' `dt`), without keeping them.
#[derive(Debug, Default, Clone, Copy)]
pub struct Count(pub Option<u64>);

impl<'de> Deserialize<'de> for Count {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Count;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a list")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Count, A::Error> {
                let mut n = 0;
                while a.next_element::<IgnoredAny>()?.is_some() {
                    n += 1;
                }
                Ok(Count(Some(n)))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Count, A::Error> {
                while a.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Count(None))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Count, E> {
                Ok(Count(None))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Count, E> {
                Ok(Count(None))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Count, E> {
                Ok(Count(None))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Count, E> {
                Ok(Count(None))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Count, E> {
                Ok(Count(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Count, E> {
                Ok(Count(None))
            }
        }
        d.deserialize_any(V)
    }
}

/// An optional nested object, lenient: anything that is not an object of that shape is `None`.
#[derive(Debug, Clone)]
pub struct Obj<T>(pub Option<T>);

impl<T> Default for Obj<T> {
    fn default() -> Self {
        Obj(None)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Obj<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = Obj<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any value")
            }
            // Every field of the shapes below is lenient, so reading the object in place cannot
            // fail on a surprising field: one pass, no buffering.
            fn visit_map<A: MapAccess<'de>>(self, a: A) -> Result<Obj<T>, A::Error> {
                T::deserialize(de::value::MapAccessDeserializer::new(a)).map(|t| Obj(Some(t)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Obj<T>, A::Error> {
                while a.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Obj(None))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Obj<T>, E> {
                Ok(Obj(None))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Obj<T>, E> {
                Ok(Obj(None))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Obj<T>, E> {
                Ok(Obj(None))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Obj<T>, E> {
                Ok(Obj(None))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Obj<T>, E> {
                Ok(Obj(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Obj<T>, E> {
                Ok(Obj(None))
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// A nested object of a line that is boxed (`params`, its `event`: a line holds a line): in its
/// chunk's arena when the engine read the line, in a heap box of its own when the serde
/// reference did. An RPC line has two; in the arena they cost no `malloc` and no `free`.
pub enum Nest<'a, T> {
    Heap(Box<T>),
    Arena(bumpalo::boxed::Box<'a, T>),
}

impl<T> std::ops::Deref for Nest<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        match self {
            Nest::Heap(b) => b,
            Nest::Arena(b) => b,
        }
    }
}

impl<T> std::ops::DerefMut for Nest<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        match self {
            Nest::Heap(b) => b,
            Nest::Arena(b) => b,
        }
    }
}

/// As the box it was, which the differential tests print.
impl<T: fmt::Debug> fmt::Debug for Nest<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Nest<'_, T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Box::<T>::deserialize(d).map(Nest::Heap)
    }
}

/// A value's raw JSON text, kept unread (`Option<Raw>`: `null` reads as absent).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Raw<'a>(pub &'a str);

impl<'de: 'a, 'a> Deserialize<'de> for Raw<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        <&'a serde_json::value::RawValue>::deserialize(d).map(|raw| Raw(raw.get()))
    }
}

/// A string value that is decoded only when it is asked for: message texts are long, often hold
/// escapes, and routing never reads them (a reply's text is read back from its line for the
/// report).
#[derive(Clone)]
pub enum Text<'a> {
    /// Without escapes: the value itself.
    Plain(&'a str),
    /// The JSON string, quotes included, whose escapes were checked to decode.
    Escaped(&'a str),
    /// Decoded already (the serde reference reading).
    Owned(String),
}

impl<'a> Text<'a> {
    /// The value, decoded.
    pub fn decode(&self) -> Cow<'a, str> {
        match self {
            Text::Plain(s) => Cow::Borrowed(s),
            // Checked when the line was read, so this cannot fail; "" if it ever did.
            Text::Escaped(json) => {
                let mut out = String::with_capacity(json.len());
                crate::text::json::push_json_string(&mut out, json.as_bytes());
                Cow::Owned(out)
            }
            Text::Owned(s) => Cow::Owned(s.clone()),
        }
    }
}

/// As the string it was decoded into before it was lazy, which the differential tests print.
impl fmt::Debug for Text<'_> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        fmt::Debug::fmt(&*self.decode(), f)
    }
}

/// A `content` field: a string (Copilot messages) or a list of blocks (older dsh tool results).
#[derive(Debug, Default)]
pub enum Content<'a> {
    #[default]
    None,
    Text(Text<'a>),
    Blocks(Vec<Block<'a>>),
}

impl<'a> Content<'a> {
    /// The text: the string itself, or the text blocks concatenated.
    pub fn text(&self) -> Option<String> {
        match self {
            Content::None => None,
            Content::Text(t) => Some(t.decode().into_owned()),
            Content::Blocks(b) => Some(text_of(b)),
        }
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Content<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Content<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any value")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Content::Text(Text::Plain(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Content::Text(Text::Owned(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(Content::Text(Text::Owned(v)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, a: A) -> Result<Self::Value, A::Error> {
                let list: List<Block<'a>> = Deserialize::deserialize(de::value::SeqAccessDeserializer::new(a))?;
                Ok(Content::Blocks(list.0))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
                while a.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Content::None)
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(Content::None)
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(Content::None)
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(Content::None)
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(Content::None)
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Content::None)
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// One line of any format: the union of the top-level fields they use.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Line<'a> {
    #[serde(borrow)]
    pub method: Str<'a>,
    #[serde(borrow)]
    pub id: Str<'a>,
    #[serde(borrow)]
    pub params: Obj<Nest<'a, Params<'a>>>,
    pub result: Option<IgnoredAny>,
    pub error: Option<IgnoredAny>,
    #[serde(borrow, rename = "type")]
    pub kind: Str<'a>,
    pub seq: Num,
    pub time: Num,
    pub seq0: Num,
    pub time0: Num,
    /// In place, not boxed: nearly every line of a Copilot log has one, and a box each was a
    /// `malloc` and a `free` per line.
    #[serde(borrow)]
    pub data: Obj<Data<'a>>,
    pub ignorable: Flag,
    // dsh-session header
    #[serde(borrow, rename = "parentSession")]
    pub parent_session: Str<'a>,
    #[serde(rename = "delegationDepth")]
    pub delegation_depth: Num,
    pub version: Num,
    // Copilot envelope
    #[serde(borrow, rename = "agentId")]
    pub agent_id: Str<'a>,
    #[serde(borrow)]
    pub timestamp: Str<'a>,
}

/// `params` of a JSON-RPC notification, any format.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Params<'a> {
    #[serde(borrow, rename = "sessionId")]
    pub session_id: Str<'a>,
    #[serde(borrow)]
    pub event: Obj<Nest<'a, Line<'a>>>,
    #[serde(borrow)]
    pub status: Str<'a>,
    #[serde(borrow, rename = "parentSessionId")]
    pub parent_session_id: Str<'a>,
    #[serde(borrow, rename = "childSessionId")]
    pub child_session_id: Str<'a>,
    #[serde(borrow, rename = "stopReason")]
    pub stop_reason: Str<'a>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Block<'a> {
    #[serde(borrow, rename = "type")]
    pub kind: Str<'a>,
    /// Kept raw (skipped, not decoded) until asked for: reasoning blocks can be long and are
    /// never shown in a reply.
    #[serde(borrow)]
    pub text: Option<Raw<'a>>,
    #[serde(borrow, rename = "toolCallId")]
    pub tool_call_id: Str<'a>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Source<'a> {
    #[serde(borrow, rename = "callId")]
    pub call_id: Str<'a>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Message<'a> {
    #[serde(borrow)]
    pub content: List<Block<'a>>,
    #[serde(borrow)]
    pub source: Obj<Source<'a>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Reason<'a> {
    #[serde(borrow)]
    pub kind: Str<'a>,
}

/// `data` of an event, any format: the union of the fields the analyses read.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Data<'a> {
    pub turn: Num,
    pub step: Num,
    #[serde(borrow)]
    pub reason: Obj<Reason<'a>>,
    #[serde(borrow)]
    pub message: Obj<Message<'a>>,
    #[serde(borrow, rename = "callId")]
    pub call_id: Str<'a>,
    #[serde(borrow)]
    pub label: Str<'a>,
    pub dt: Count,
    // Copilot
    #[serde(borrow, rename = "sessionId")]
    pub session_id: Str<'a>,
    #[serde(borrow, rename = "toolCallId")]
    pub tool_call_id: Str<'a>,
    #[serde(borrow, rename = "agentName")]
    pub agent_name: Str<'a>,
    #[serde(borrow, rename = "agentDisplayName")]
    pub agent_display_name: Str<'a>,
    #[serde(borrow, rename = "parentId")]
    pub parent_id: Str<'a>,
    pub cancelled: Flag,
    #[serde(borrow, rename = "turnId")]
    pub turn_id: Str<'a>,
    /// The `toolCallId` of the sub-agent an event is from, on Copilot CLIs before 1.0.32, which
    /// stamp no `agentId` (SPEC 2.2).
    #[serde(borrow, rename = "parentToolCallId")]
    pub parent_tool_call_id: Str<'a>,
    /// A string (Copilot messages) or a list of blocks (older dsh tool results).
    #[serde(borrow)]
    pub content: Content<'a>,
    /// Where a string `content` is in the line, quotes included, so that a reply's text can be
    /// read back without parsing its line again. Only the scanner sets it.
    #[serde(skip)]
    pub content_at: Spot,
    /// Token counts and model names, which few lines have. Only the scanner reads them, into the
    /// chunk's arena (the serde reference reads their keys as unknown, so the two readings agree
    /// on everything else): a line without them pays one pointer.
    #[serde(skip)]
    pub rare: Rare<'a>,
}

/// `Data`'s rare fields, in the chunk's arena, when the line has any.
#[derive(Default, Clone, Copy)]
pub struct Rare<'a>(pub Option<&'a RareFields<'a>>);

/// Not printed, like `Spot`: the serde reference reading has none.
impl fmt::Debug for Rare<'_> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("Rare")
    }
}

impl<'a> Rare<'a> {
    pub fn get(&self) -> Option<&'a RareFields<'a>> {
        self.0
    }
}

/// Token counts and model names as the harness family writes them: dsh's `usage`
/// (`inputTokens`, `outputTokens`, `cacheReadTokens`, `cacheWriteTokens`) and the model of its
/// message's `source` or its `provenance`; Copilot's `outputTokens`, `model`, `selectedModel`
/// (`session.start`), `newModel` (`session.model_change`) and `modelMetrics` (`session.shutdown`).
#[derive(Debug, Default, Clone)]
pub struct RareFields<'a> {
    pub usage: Option<crate::report::Usage>,
    /// Copilot's `session.shutdown` `data.modelMetrics`: per model (by name order) its
    /// `usage` counts as the log gives them (`input` is `inputTokens`, cache reads and writes
    /// included: the format takes them out when it counts).
    pub model_metrics: Option<&'a [(&'a str, crate::report::Usage)]>,
    pub output_tokens: Option<u64>,
    pub model: Option<&'a str>,
    pub selected_model: Option<&'a str>,
    pub new_model: Option<&'a str>,
    /// dsh: `message.source.model`, or `provenance.model`.
    pub message_model: Option<&'a str>,
}

impl<'a> RareFields<'a> {
    /// A dsh message's model.
    pub fn dsh_model(&self) -> Option<&'a str> {
        self.message_model.filter(|m| !m.is_empty())
    }
}

/// A span of a line: its start and length in bytes. Not printed: the serde reference reading
/// has no positions, and the differential tests compare what the two readings print.
#[derive(Default, Clone, Copy, PartialEq, Eq)]
pub struct Spot(pub Option<(u32, u32)>);

impl fmt::Debug for Spot {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("Spot")
    }
}

impl Data<'static> {
    /// The data of an event that has none.
    pub fn empty() -> &'static Data<'static> {
        static EMPTY: std::sync::LazyLock<Data<'static>> = std::sync::LazyLock::new(Data::default);
        &EMPTY
    }
}

/// The text blocks of a content list, concatenated without a separator.
pub fn text_of(blocks: &[Block]) -> String {
    let mut out = String::new();
    for b in blocks {
        if b.kind.as_str() == Some("text") {
            if let Some(Ok(t)) = b.text.map(|raw| serde_json::from_str::<Cow<str>>(raw.0)) {
                out.push_str(&t);
            }
        }
    }
    out
}

/// The reference reading of a line of text: serde_json into the lenient shapes above, which say
/// what each field takes. `parse_line_str` reads every line the same way in one pass of its own
/// (`scan`); the tests and the `parse_line` fuzz target hold the two to the same result. (A line
/// that is not UTF-8 is refused before either reads it: serde_json alone would let invalid bytes
/// pass inside a string it skips.)
pub fn parse_line_serde(text: &str) -> Option<Line<'_>> {
    if text.trim_start_matches([' ', '\t', '\r', '\n']).as_bytes().first() != Some(&b'{') {
        return None;
    }
    serde_json::from_str(text).ok()
}
