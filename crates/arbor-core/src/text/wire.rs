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
                push_json_string(&mut out, json.as_bytes());
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
#[derive(Debug, Default, Clone, Copy)]
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

/// Append the value of a JSON string, given as its text with the quotes, decoded as serde_json
/// decodes a string it keeps; `false`, appending nothing, when the text is not such a string.
/// Reply texts are read back with it (a few hundred thousand in a large log): it decodes in
/// place, where serde_json would first build a `String` of its own.
pub fn push_json_string(out: &mut String, json: &[u8]) -> bool {
    let Some(body) = json.strip_prefix(b"\"").and_then(|b| b.strip_suffix(b"\"")) else { return false };
    let Ok(body) = simdutf8::basic::from_utf8(body) else { return false };
    let start = out.len();
    let decoded = decode_json_string(body, Some(&mut *out));
    if !decoded {
        out.truncate(start);
    }
    decoded
}

/// `push_json_string` of a string's text between its quotes, onto `out`; with no `out`, only
/// whether it decodes (a string kept escaped is checked so, to be refused where serde_json
/// would refuse to decode it).
pub(crate) fn decode_json_string(body: &str, mut out: Option<&mut String>) -> bool {
    let b = body.as_bytes();
    let hex = |at: usize| {
        b.get(at..at + 4)
            .filter(|h| h.iter().all(u8::is_ascii_hexdigit))
            .map(|h| h.iter().fold(0u32, |n, &c| n * 16 + (c as char).to_digit(16).unwrap_or(0)))
    };
    let mut i = 0;
    loop {
        // Up to the next quote, backslash or control character: an ASCII byte, so a character
        // boundary.
        let j = crate::scan::string_special(b, i);
        if let Some(out) = out.as_deref_mut() {
            out.push_str(&body[i..j]);
        }
        match b.get(j) {
            None => return true,
            Some(b'\\') => {}
            Some(_) => return false,
        }
        let (c, len) = match b.get(j + 1) {
            Some(b'"') => ('"', 2),
            Some(b'\\') => ('\\', 2),
            Some(b'/') => ('/', 2),
            Some(b'b') => ('\u{8}', 2),
            Some(b'f') => ('\u{c}', 2),
            Some(b'n') => ('\n', 2),
            Some(b'r') => ('\r', 2),
            Some(b't') => ('\t', 2),
            Some(b'u') => match hex(j + 2) {
                // A leading surrogate must be followed at once by an escaped trailing one.
                Some(hi @ 0xD800..=0xDBFF) => match (b.get(j + 6..j + 8), hex(j + 8)) {
                    (Some(b"\\u"), Some(lo @ 0xDC00..=0xDFFF)) => {
                        match char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)) {
                            Some(c) => (c, 12),
                            None => return false,
                        }
                    }
                    _ => return false,
                },
                Some(n) => match char::from_u32(n) {
                    Some(c) => (c, 6),
                    // A trailing surrogate alone.
                    None => return false,
                },
                None => return false,
            },
            _ => return false,
        };
        if let Some(out) = out.as_deref_mut() {
            out.push(c);
        }
        i = j + len;
    }
}

/// Parse a line already known to be valid UTF-8: `None` when it is not a JSON object.
pub fn parse_line_str(text: &str) -> Option<Line<'_>> {
    crate::scan::line(text, None)
}

/// As `parse_line_str`, with the line's boxed parts (`params`, its `event`) in `arena`, as the
/// engine parses each chunk's lines.
pub fn parse_line_in<'a>(text: &'a str, arena: &'a bumpalo::Bump) -> Option<Line<'a>> {
    crate::scan::line(text, Some(arena))
}

/// Parse a line: `None` when it is not a JSON object in valid UTF-8 (anywhere in the line).
pub fn parse_line(bytes: &[u8]) -> Option<Line<'_>> {
    parse_line_str(std::str::from_utf8(bytes).ok()?)
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

/// Epoch milliseconds of an RFC 3339 timestamp (`2026-09-12T00:00:05.250Z`, `…+02:00`), or `None`
/// when the text is not one. Pure arithmetic on the log's own text: the engine reads no clock.
pub fn rfc3339_ms(s: &str) -> Option<f64> {
    let b = s.as_bytes();
    let secs = civil_seconds(b)?;
    after_seconds(b, secs)
}

/// `rfc3339_ms` for a stream of timestamps, remembering the last whole second: a log's events
/// come many to a second, and the date arithmetic is then done once for all of them.
#[derive(Debug, Default, Clone)]
pub struct Rfc3339 {
    /// The first 19 bytes of the last timestamp read (`2026-09-12T00:00:05`), and their seconds.
    last: Option<([u8; 19], i64)>,
}

impl Rfc3339 {
    /// The same value as `rfc3339_ms(s)`.
    pub fn ms(&mut self, s: &str) -> Option<f64> {
        let b = s.as_bytes();
        let key: [u8; 19] = b.get(..19)?.try_into().ok()?;
        let secs = match self.last {
            Some((k, secs)) if k == key => secs,
            _ => {
                let secs = civil_seconds(b)?;
                self.last = Some((key, secs));
                secs
            }
        };
        after_seconds(b, secs)
    }
}

/// The decimal number written in `b[r]`, when every byte there is a digit.
fn digits(b: &[u8], r: std::ops::Range<usize>) -> Option<i64> {
    b.get(r)?.iter().try_fold(0i64, |acc, &c| c.is_ascii_digit().then(|| acc * 10 + i64::from(c - b'0')))
}

/// The seconds since the epoch of a timestamp's first 19 bytes (`YYYY-MM-DDTHH:MM:SS`) read as
/// UTC, or `None` when they are not a date and time.
fn civil_seconds(b: &[u8]) -> Option<i64> {
    let num = |r: std::ops::Range<usize>| digits(b, r);
    if b.len() < 19
        || b[4] != b'-'
        || b[7] != b'-'
        || !matches!(b[10], b'T' | b't' | b' ')
        || b[13] != b':'
        || b[16] != b':'
    {
        return None;
    }
    let (y, mo, d, h, mi, se) = (num(0..4)?, num(5..7)?, num(8..10)?, num(11..13)?, num(14..16)?, num(17..19)?);
    let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
    let month_days = [31, if leap { 29 } else { 28 }, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    if !(1..=12).contains(&mo) || d < 1 || d > month_days[(mo - 1) as usize] || h > 23 || mi > 59 || se > 60 {
        return None;
    }
    // Days from the civil date (Howard Hinnant's algorithm).
    let yy = if mo <= 2 { y - 1 } else { y };
    let era = yy.div_euclid(400);
    let yoe = yy - era * 400;
    let mp = (mo + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(days * 86_400 + h * 3600 + mi * 60 + se)
}

/// The epoch milliseconds of a timestamp whose first 19 bytes are `secs` (see `civil_seconds`):
/// its fraction and its offset read from the rest.
fn after_seconds(b: &[u8], secs: i64) -> Option<f64> {
    let num = |r: std::ops::Range<usize>| digits(b, r);
    let mut i = 19;
    // Whole milliseconds are kept as an integer so that they stay exact; only digits past the
    // third are a fraction of a millisecond. Digits are read in place: this runs on every event.
    let (mut millis, mut sub_ms) = (0i64, 0.0f64);
    if b.get(i) == Some(&b'.') {
        i += 1;
        let (mut n, mut scale) = (0usize, 0.1f64);
        while let Some(&c) = b.get(i).filter(|c| c.is_ascii_digit()) {
            let digit = i64::from(c - b'0');
            if n < 3 {
                millis = millis * 10 + digit;
            } else {
                sub_ms += digit as f64 * scale;
                scale /= 10.0;
            }
            n += 1;
            i += 1;
        }
        if n == 0 {
            return None;
        }
        for _ in n..3 {
            millis *= 10;
        }
    }
    let offset_min = match b.get(i) {
        Some(b'Z' | b'z') if i + 1 == b.len() => 0,
        Some(sign @ (b'+' | b'-')) if i + 6 == b.len() && b[i + 3] == b':' => {
            let (oh, om) = (num(i + 1..i + 3)?, num(i + 4..i + 6)?);
            if oh > 23 || om > 59 {
                return None;
            }
            let m = oh * 60 + om;
            if *sign == b'+' {
                m
            } else {
                -m
            }
        }
        _ => return None,
    };
    Some(((secs - offset_min * 60) * 1000 + millis) as f64 + sub_ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_timestamps_become_epoch_milliseconds() {
        assert_eq!(rfc3339_ms("1970-01-01T00:00:00Z"), Some(0.0));
        assert_eq!(rfc3339_ms("2026-10-01T10:00:05Z"), Some(1_790_848_805_000.0));
        assert_eq!(rfc3339_ms("2026-10-01T12:00:05.250+02:00"), Some(1_790_848_805_250.0));
        assert_eq!(rfc3339_ms("2000-02-29T00:00:00Z"), Some(951_782_400_000.0));
        for bad in [
            "",
            "yesterday",
            "2026-13-01T00:00:00Z",
            "2026-10-01T10:00:05",
            "2026-10-01T10:00:05Zjunk",
            "２０２６-10-01T10:00:05Z",
        ] {
            assert_eq!(rfc3339_ms(bad), None, "{bad}");
        }
    }

    #[test]
    fn rfc3339_keeps_whole_milliseconds_exact_and_rejects_impossible_dates() {
        assert_eq!(rfc3339_ms("2038-01-19T03:15:00.055Z"), Some(2_147_483_700_055.0));
        assert_eq!(rfc3339_ms("2026-10-01T10:00:05.5Z"), Some(1_790_848_805_500.0));
        for bad in
            ["2026-02-29T00:00:00Z", "2026-04-31T00:00:00Z", "2026-01-01T00:00:00+99:99", "2026-01-01T00:00:00.Z"]
        {
            assert_eq!(rfc3339_ms(bad), None, "{bad}");
        }
    }

    #[test]
    fn surprising_field_types_read_as_absent_not_as_a_broken_line() {
        let l = parse_line(br#"{"method":7,"params":"x","type":["a"],"seq":"1","data":{"turn":"one","message":5}}"#)
            .unwrap();
        assert!(l.method.present() && l.method.as_str().is_none());
        assert!(l.params.0.is_none());
        assert!(l.seq.get().is_none());
        let d = l.data.0.unwrap();
        assert!(d.turn.get().is_none() && d.message.0.is_none());
        assert!(parse_line(b"[1]").is_none());
        assert!(parse_line(b"{\"a\":").is_none());
    }
}

/// The line shape of the harness family (dsh-rpc, dsh-session, copilot-events, copilot-rpc):
/// each line parsed by `scan` into a `Line`, its boxed parts in the chunk's arena.
pub struct WireShape;

crate::formats::line_shape!(WireShape, wire_cells, Line, parse_into, prefetch_line);

/// Parse `text` into `out` in place; `false` when it is not a JSON object the shapes read.
fn parse_into<'a>(text: &'a str, arena: &'a bumpalo::Bump, out: &mut Line<'a>) -> bool {
    crate::scan::line_into(text, Some(arena), out)
}

/// Ask for a parsed line, and its boxed payloads, to be brought into this core's cache. A worker
/// wrote them on the other core, and the router's first read of each was a cache miss: 60 % of
/// Copilot routing's own time was spent on the first loads of `data` fields.
#[inline(always)]
fn prefetch_line(line: &Line) {
    prefetch(line);
    if let Some(p) = line.params.0.as_deref() {
        prefetch(p);
        if let Some(e) = p.event.0.as_deref() {
            prefetch(e);
        }
    }
}

/// Prefetch every cache line of `value` (a hint: nothing is read, and nothing on other CPUs).
#[inline(always)]
fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let base = (value as *const T).cast::<i8>();
        for off in (0..std::mem::size_of::<T>()).step_by(64) {
            // SAFETY: a prefetch is a hint that never faults and reads nothing into the program;
            // the address is inside `value`, which is borrowed for the call.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(base.add(off)) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

/// A reply's text from its line: the text blocks of a dsh `assistant/message` (`""` when it has
/// none), or a Copilot `assistant.message`'s content; the event may be wrapped in an RPC
/// notification's `params.event`.
pub fn reply_text(bytes: &[u8]) -> String {
    let Some(line) = parse_line(bytes) else { return String::new() };
    let event = line.params.0.as_deref().and_then(|p| p.event.0.as_deref()).unwrap_or(&line);
    let Some(data) = event.data.0.as_ref() else { return String::new() };
    match &data.message.0 {
        Some(m) => text_of(&m.content.0),
        None => data.content.text().unwrap_or_default(),
    }
}
