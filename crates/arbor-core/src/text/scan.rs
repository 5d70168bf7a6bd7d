//! The line parser: one pass over a line's text straight into `wire::Line`, validating the whole
//! line as JSON as it goes.
//!
//! It reads a line exactly as the lenient serde shapes in `wire` do (`wire::parse_line_serde`, the
//! reference: the tests and the `parse_line` fuzz target compare the two on every input), without
//! serde's per-field machinery: no default-initialised payloads for absent fields, no moves of
//! large values into boxes, strings borrowed unless they hold escapes, and skipped values checked
//! by a scan that looks at eight bytes at a time. Its parts (`Scanner`'s `pub(crate)` readers and
//! the `field!` macros) also make the Claude Code reader (`formats::claude_code::line`), held to
//! its own serde shapes the same way.
//!
//! Reading exactly as serde_json does means keeping its distinctions:
//! - A value read into a field ("typed") has its numbers converted (one out of `f64`'s range
//!   makes the line invalid) and, when it is an object, its keys decoded (an invalid `\u` escape
//!   makes the line invalid); every container it opens counts toward serde_json's nesting limit
//!   of 127.
//! - A value skipped (an unknown field, the inside of a value a field does not take) is only
//!   checked for its grammar, at any depth.
//! - A field given twice in an object read into a struct makes the line invalid.

use crate::text::json::string_special;
use crate::wire::{
    Block, Content, Count, Data, Flag, Line, List, Message, Nest, Num, Obj, Params, Rare, RareFields, Raw, Reason,
    Source, Spot, Str, Text,
};
use std::borrow::Cow;

/// Not valid JSON, or not readable as the lenient shapes read it.
pub(crate) struct Invalid;

pub(crate) type R<T> = Result<T, Invalid>;

/// serde_json's nesting limit: a typed container at this depth is an error.
const MAX_DEPTH: u32 = 128;

/// Parse a line of text: `None` when it is not a JSON object (or not one the shapes can read).
pub(crate) fn line<'a>(text: &'a str, arena: Option<&'a bumpalo::Bump>) -> Option<Line<'a>> {
    let mut l = Line::default();
    line_into(text, arena, &mut l).then_some(l)
}

/// As `line`, into a default `Line` in its place (a line is hundreds of bytes: building it where
/// it stays saves moving it), its boxed parts in `arena` when there is one; `false` when the line
/// is not a JSON object, leaving `out` partly filled.
pub(crate) fn line_into<'a>(text: &'a str, arena: Option<&'a bumpalo::Bump>, out: &mut Line<'a>) -> bool {
    Scanner::whole(text, arena, |p| p.line(out))
}

/// A pass over one line's text. The readers of other shapes (`formats::claude_code::line`) are
/// built of its `pub(crate)` parts: each reads a value exactly as the lenient serde shapes of
/// `wire` read it.
pub(crate) struct Scanner<'a> {
    s: &'a str,
    b: &'a [u8],
    i: usize,
    /// Typed containers open.
    depth: u32,
    /// Where boxed parts go; the heap when `None`.
    arena: Option<&'a bumpalo::Bump>,
    /// The rare fields of the `data` being read (`Data::rare`), moved into the arena when it ends.
    pending: Option<RareFields<'a>>,
}

/// The fields of a struct seen so far, a bit each.
pub(crate) type FieldBit = u32;

/// Read a field's value into its place, once: a field given twice makes the line invalid (as
/// serde's derived readers do).
macro_rules! field {
    ($seen:expr, $bit:expr, $place:expr, $read:expr) => {
        $crate::scan::field_in!($seen, $bit, $read.map(|v| $place = v))
    };
}
pub(crate) use field;

/// As `field!`, for a reader that fills the field's place itself.
macro_rules! field_in {
    ($seen:expr, $bit:expr, $read:expr) => {{
        let bit: $crate::scan::FieldBit = 1 << $bit;
        if *$seen & bit != 0 {
            return Err($crate::scan::Invalid);
        }
        *$seen |= bit;
        $read
    }};
}
pub(crate) use field_in;

impl<'a> Scanner<'a> {
    /// Reads `text` as one JSON object with `read` (called at its `{`, boxed parts in `arena`
    /// when there is one): whether it read, with nothing but whitespace after it.
    pub(crate) fn whole(
        text: &'a str,
        arena: Option<&'a bumpalo::Bump>,
        read: impl FnOnce(&mut Scanner<'a>) -> R<()>,
    ) -> bool {
        let mut p = Scanner { s: text, b: text.as_bytes(), i: 0, depth: 0, arena, pending: None };
        p.ws();
        if p.peek() != Some(b'{') || read(&mut p).is_err() {
            return false;
        }
        p.ws();
        p.i == p.b.len()
    }

    /// Reads `text` as one JSON value of any kind with `read` (called at its first byte): whether
    /// it read, with nothing but whitespace after it.
    pub(crate) fn value(text: &'a str, read: impl FnOnce(&mut Scanner<'a>) -> R<()>) -> bool {
        let mut p = Scanner { s: text, b: text.as_bytes(), i: 0, depth: 0, arena: None, pending: None };
        p.ws();
        if p.peek().is_none() || read(&mut p).is_err() {
            return false;
        }
        p.ws();
        p.i == p.b.len()
    }

    /// Reads the JSON object `text` starts with (after whitespace) with `read`, whatever follows
    /// it (a message read back at its offset inside a document): whether it read.
    pub(crate) fn first(text: &'a str, read: impl FnOnce(&mut Scanner<'a>) -> R<()>) -> bool {
        let mut p = Scanner { s: text, b: text.as_bytes(), i: 0, depth: 0, arena: None, pending: None };
        p.ws();
        p.peek() == Some(b'{') && read(&mut p).is_ok()
    }

    /// Where the scanner is: with `since`, the raw text of a value it has read.
    #[inline]
    pub(crate) fn pos(&self) -> usize {
        self.i
    }

    /// The text from `start` (a `pos`) to where the scanner is.
    #[inline]
    pub(crate) fn since(&self, start: usize) -> &'a str {
        &self.s[start..self.i]
    }

    #[inline]
    pub(crate) fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    #[inline]
    fn ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\t' | b'\r') = self.peek() {
            self.i += 1;
        }
    }

    #[inline]
    fn eat(&mut self, c: u8) -> R<()> {
        self.ws();
        if self.peek() == Some(c) {
            self.i += 1;
            Ok(())
        } else {
            Err(Invalid)
        }
    }

    fn literal(&mut self, word: &[u8]) -> R<()> {
        if self.b[self.i..].starts_with(word) {
            self.i += word.len();
            Ok(())
        } else {
            Err(Invalid)
        }
    }

    /// Past a string's closing quote, from its opening one; returns its text between the quotes
    /// and whether it holds escapes. Escapes are checked for their form only (as serde_json does
    /// for a string it skips); `decode` checks what they stand for.
    pub(crate) fn string(&mut self) -> R<(&'a str, bool)> {
        let start = self.i + 1;
        let mut i = start;
        let mut escaped = false;
        loop {
            i = string_special(self.b, i);
            match self.b.get(i) {
                Some(b'"') => {
                    self.i = i + 1;
                    return Ok((&self.s[start..i], escaped));
                }
                Some(b'\\') => {
                    escaped = true;
                    match self.b.get(i + 1) {
                        Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => i += 2,
                        Some(b'u') => {
                            let hex = self.b.get(i + 2..i + 6).ok_or(Invalid)?;
                            if !hex.iter().all(u8::is_ascii_hexdigit) {
                                return Err(Invalid);
                            }
                            i += 6;
                        }
                        _ => return Err(Invalid),
                    }
                }
                _ => return Err(Invalid), // a control character, or the end of the line
            }
        }
    }

    /// A string's value: borrowed when it has no escapes, decoded (and checked, as serde_json
    /// decodes a string it keeps) when it has.
    pub(crate) fn decoded(&self, text: &'a str, escaped: bool) -> R<Cow<'a, str>> {
        if !escaped {
            return Ok(Cow::Borrowed(text));
        }
        let mut out = String::with_capacity(text.len());
        if !crate::text::json::decode_json_string(text, Some(&mut out)) {
            return Err(Invalid);
        }
        Ok(Cow::Owned(out))
    }

    /// A number's text, checked for its form.
    fn number(&mut self) -> R<&'a str> {
        let start = self.i;
        let b = self.b;
        let mut i = self.i;
        if b.get(i) == Some(&b'-') {
            i += 1;
        }
        match b.get(i) {
            Some(b'0') => i += 1,
            Some(b'1'..=b'9') => {
                while b.get(i).is_some_and(u8::is_ascii_digit) {
                    i += 1;
                }
            }
            _ => return Err(Invalid),
        }
        if b.get(i) == Some(&b'.') {
            i += 1;
            let digits = i;
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            if i == digits {
                return Err(Invalid);
            }
        }
        if let Some(b'e' | b'E') = b.get(i) {
            i += 1;
            if let Some(b'+' | b'-') = b.get(i) {
                i += 1;
            }
            let digits = i;
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            if i == digits {
                return Err(Invalid);
            }
        }
        self.i = i;
        Ok(&self.s[start..i])
    }

    /// A number read into a field: its value as serde_json gives it (an error when out of range).
    fn number_value(&mut self) -> R<f64> {
        let text = self.number()?;
        let (neg, digits) = match text.strip_prefix('-') {
            Some(d) => (true, d),
            None => (false, text),
        };
        if digits.len() <= 15 && digits.bytes().all(|c| c.is_ascii_digit()) {
            let n = digits.bytes().fold(0i64, |n, c| n * 10 + i64::from(c - b'0')) as f64;
            // Negated as a float, so that `-0` is -0.0 as serde_json reads it (found by the
            // parse_line fuzz target: an integer negated first gave 0.0).
            return Ok(if neg { -n } else { n });
        }
        serde_json::from_str::<f64>(text).map_err(|_| Invalid)
    }

    /// Skip any value, checking only its grammar, at any depth (serde_json's `ignore_value`).
    pub(crate) fn skip(&mut self) -> R<()> {
        // Per open container: true for an object.
        let mut open: Vec<bool> = Vec::new();
        loop {
            self.ws();
            match self.peek().ok_or(Invalid)? {
                b'{' => {
                    self.i += 1;
                    self.ws();
                    if self.peek() == Some(b'}') {
                        self.i += 1;
                    } else {
                        open.push(true);
                        self.skip_key()?;
                        continue;
                    }
                }
                b'[' => {
                    self.i += 1;
                    self.ws();
                    if self.peek() == Some(b']') {
                        self.i += 1;
                    } else {
                        open.push(false);
                        continue;
                    }
                }
                b'"' => {
                    self.string()?;
                }
                b't' => self.literal(b"true")?,
                b'f' => self.literal(b"false")?,
                b'n' => self.literal(b"null")?,
                _ => {
                    self.number()?;
                }
            }
            // A value ended: close what it ends, or go on to the next element.
            loop {
                let Some(&object) = open.last() else { return Ok(()) };
                self.ws();
                match self.peek() {
                    Some(b',') => {
                        self.i += 1;
                        if object {
                            self.skip_key()?;
                        }
                        break;
                    }
                    Some(b'}') if object => {
                        self.i += 1;
                        open.pop();
                    }
                    Some(b']') if !object => {
                        self.i += 1;
                        open.pop();
                    }
                    _ => return Err(Invalid),
                }
            }
        }
    }

    /// A key and its colon, in a skipped object.
    fn skip_key(&mut self) -> R<()> {
        self.ws();
        if self.peek() != Some(b'"') {
            return Err(Invalid);
        }
        self.string()?;
        self.eat(b':')
    }

    /// Open a typed container (the caller has seen its bracket).
    fn enter(&mut self) -> R<()> {
        self.depth += 1;
        if self.depth >= MAX_DEPTH {
            return Err(Invalid);
        }
        self.i += 1;
        Ok(())
    }

    /// A typed object's entries: `field` reads each value after its key (decoded, as serde_json
    /// decodes the keys of an object it reads). At the `{`.
    pub(crate) fn object(&mut self, mut field: impl FnMut(&mut Self, &str) -> R<()>) -> R<()> {
        self.enter()?;
        self.ws();
        if self.peek() == Some(b'}') {
            self.i += 1;
            self.depth -= 1;
            return Ok(());
        }
        loop {
            self.ws();
            if self.peek() != Some(b'"') {
                return Err(Invalid);
            }
            let (key, escaped) = self.string()?;
            let key = self.decoded(key, escaped)?;
            self.eat(b':')?;
            self.ws();
            field(self, &key)?;
            self.ws();
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b'}') => {
                    self.i += 1;
                    self.depth -= 1;
                    return Ok(());
                }
                _ => return Err(Invalid),
            }
        }
    }

    /// A typed array's elements, each read by `element`. At the `[`.
    pub(crate) fn array(&mut self, mut element: impl FnMut(&mut Self) -> R<()>) -> R<()> {
        self.enter()?;
        self.ws();
        if self.peek() == Some(b']') {
            self.i += 1;
            self.depth -= 1;
            return Ok(());
        }
        loop {
            self.ws();
            element(self)?;
            self.ws();
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b']') => {
                    self.i += 1;
                    self.depth -= 1;
                    return Ok(());
                }
                _ => return Err(Invalid),
            }
        }
    }

    /// Any value read whole, as serde_json reads one it keeps for later (a `flatten`ed struct's
    /// buffer): numbers converted, strings and keys decoded, every container counted toward the
    /// nesting limit.
    pub(crate) fn typed(&mut self) -> R<()> {
        match self.peek().ok_or(Invalid)? {
            b'{' => self.object(|p, _| p.typed()),
            b'[' => self.array(|p| p.typed()),
            b'"' => {
                let (text, escaped) = self.string()?;
                self.decoded(text, escaped).map(drop)
            }
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'n' => self.literal(b"null"),
            _ => self.number_value().map(drop),
        }
    }

    /// Back to `to` (a `pos` of this line), to read a value again.
    pub(crate) fn rewind(&mut self, to: usize) {
        self.i = to;
    }

    /// A value that a field does not take: read as serde_json reads it for a visitor that
    /// declines it (numbers converted, an object's keys decoded, the inside skipped).
    pub(crate) fn decline(&mut self) -> R<()> {
        match self.peek().ok_or(Invalid)? {
            b'{' => self.object(|p, _| p.skip()),
            b'[' => self.array(|p| p.skip()),
            b'"' => self.string().map(drop),
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'n' => self.literal(b"null"),
            _ => self.number_value().map(drop),
        }
    }

    pub(crate) fn str_field(&mut self) -> R<Str<'a>> {
        if self.peek() == Some(b'"') {
            let (text, escaped) = self.string()?;
            return Ok(Str::text(self.decoded(text, escaped)?));
        }
        self.decline()?;
        Ok(Str::Other)
    }

    pub(crate) fn num_field(&mut self) -> R<Num> {
        match self.peek() {
            Some(b'-' | b'0'..=b'9') => self.number_value().map(|v| Num::new(Some(v))),
            _ => self.decline().map(|()| Num::default()),
        }
    }

    pub(crate) fn flag_field(&mut self) -> R<Flag> {
        match self.peek() {
            Some(b't') => self.literal(b"true").map(|()| Flag(Some(true))),
            Some(b'f') => self.literal(b"false").map(|()| Flag(Some(false))),
            _ => self.decline().map(|()| Flag(None)),
        }
    }

    pub(crate) fn count_field(&mut self) -> R<Count> {
        if self.peek() == Some(b'[') {
            let mut n = 0;
            self.array(|p| {
                n += 1;
                p.skip()
            })?;
            return Ok(Count(Some(n)));
        }
        self.decline().map(|()| Count(None))
    }

    /// `null` reads as absent; anything else is skipped and present (`Option<IgnoredAny>`).
    pub(crate) fn present_field(&mut self) -> R<Option<serde::de::IgnoredAny>> {
        if self.peek() == Some(b'n') {
            return self.literal(b"null").map(|()| None);
        }
        self.skip().map(|()| Some(serde::de::IgnoredAny))
    }

    /// A value's raw text, `null` read as absent (`Option<&RawValue>`).
    pub(crate) fn raw_field(&mut self) -> R<Option<Raw<'a>>> {
        if self.peek() == Some(b'n') {
            return self.literal(b"null").map(|()| None);
        }
        let start = self.i;
        self.skip()?;
        Ok(Some(Raw(&self.s[start..self.i])))
    }

    /// An object read into `T` with `fill`, or `None` for any other value.
    pub(crate) fn obj_field<T: Default>(
        &mut self,
        fill: impl Fn(&mut Self, &mut T, &mut FieldBit, &str) -> R<()>,
    ) -> R<Obj<T>> {
        if self.peek() != Some(b'{') {
            return self.decline().map(|()| Obj(None));
        }
        let (mut t, mut seen) = (T::default(), 0);
        self.object(|p, key| fill(p, &mut t, &mut seen, key))?;
        Ok(Obj(Some(t)))
    }

    /// As `obj_field`, built in its place (a large value is not moved).
    pub(crate) fn obj_in<T: Default>(
        &mut self,
        place: &mut Obj<T>,
        fill: impl Fn(&mut Self, &mut T, &mut FieldBit, &str) -> R<()>,
    ) -> R<()> {
        if self.peek() != Some(b'{') {
            *place = Obj(None);
            return self.decline();
        }
        let (t, mut seen) = (place.0.insert(T::default()), 0);
        self.object(|p, key| fill(p, t, &mut seen, key))
    }

    /// A default `T` in a box: in the arena when there is one.
    fn nest<T: Default + 'a>(&self) -> Nest<'a, T> {
        match self.arena {
            Some(arena) => Nest::Arena(bumpalo::boxed::Box::new_in(T::default(), arena)),
            None => Nest::Heap(Box::default()),
        }
    }

    /// As `obj_field`, boxed: the value is built in its box.
    fn boxed_field<T: Default + 'a>(
        &mut self,
        fill: impl Fn(&mut Self, &mut T, &mut FieldBit, &str) -> R<()>,
    ) -> R<Obj<Nest<'a, T>>> {
        if self.peek() != Some(b'{') {
            return self.decline().map(|()| Obj(None));
        }
        let (mut t, mut seen) = (self.nest::<T>(), 0);
        self.object(|p, key| fill(p, &mut t, &mut seen, key))?;
        Ok(Obj(Some(t)))
    }

    /// The objects of a list read into `T`; other elements are read and dropped; a value that is
    /// not a list reads as an empty one.
    pub(crate) fn list_field<T: Default>(
        &mut self,
        fill: impl Fn(&mut Self, &mut T, &mut FieldBit, &str) -> R<()>,
    ) -> R<List<T>> {
        if self.peek() != Some(b'[') {
            return self.decline().map(|()| List(Vec::new()));
        }
        let mut out = Vec::new();
        self.array(|p| {
            if let Obj(Some(t)) = p.obj_field(&fill)? {
                out.push(t);
            }
            Ok(())
        })?;
        Ok(List(out))
    }
    fn content_field(&mut self) -> R<Content<'a>> {
        match self.peek() {
            Some(b'"') => {
                let start = self.i;
                let (text, escaped) = self.string()?;
                if !escaped {
                    return Ok(Content::Text(Text::Plain(text)));
                }
                // Kept escaped, decoded when asked for: checked now to decode as serde_json
                // decodes a string it keeps.
                if !crate::text::json::decode_json_string(text, None) {
                    return Err(Invalid);
                }
                Ok(Content::Text(Text::Escaped(&self.s[start..self.i])))
            }
            Some(b'[') => self.list_field(Self::block).map(|l| Content::Blocks(l.0)),
            _ => self.decline().map(|()| Content::None),
        }
    }

    /// A line's fields, into a default `Line`.
    fn line(&mut self, l: &mut Line<'a>) -> R<()> {
        let mut seen = 0;
        self.object(|p, key| {
            let seen = &mut seen;
            match key {
                "method" => field!(seen, 0, l.method, p.str_field()),
                "id" => field!(seen, 1, l.id, p.str_field()),
                "params" => field!(seen, 2, l.params, p.boxed_field(Self::params)),
                "result" => field!(seen, 3, l.result, p.present_field()),
                "error" => field!(seen, 4, l.error, p.present_field()),
                "type" => field!(seen, 5, l.kind, p.str_field()),
                "seq" => field!(seen, 6, l.seq, p.num_field()),
                "time" => field!(seen, 7, l.time, p.num_field()),
                "seq0" => field!(seen, 8, l.seq0, p.num_field()),
                "time0" => field!(seen, 9, l.time0, p.num_field()),
                "data" => field_in!(seen, 10, {
                    p.pending = None;
                    let read = p.obj_in(&mut l.data, Self::data);
                    if let (Some(rare), Some(arena), Some(d)) = (p.pending.take(), p.arena, l.data.0.as_mut()) {
                        d.rare = Rare(Some(arena.alloc(rare)));
                    }
                    read
                }),
                "ignorable" => field!(seen, 11, l.ignorable, p.flag_field()),
                "parentSession" => field!(seen, 12, l.parent_session, p.str_field()),
                "delegationDepth" => field!(seen, 13, l.delegation_depth, p.num_field()),
                "version" => field!(seen, 14, l.version, p.num_field()),
                "agentId" => field!(seen, 15, l.agent_id, p.str_field()),
                "timestamp" => field!(seen, 16, l.timestamp, p.str_field()),
                _ => p.skip(),
            }
        })
    }

    fn params(&mut self, t: &mut Params<'a>, seen: &mut FieldBit, key: &str) -> R<()> {
        match key {
            "sessionId" => field!(seen, 0, t.session_id, self.str_field()),
            "event" => field!(seen, 1, t.event, self.event()),
            "status" => field!(seen, 2, t.status, self.str_field()),
            "parentSessionId" => field!(seen, 3, t.parent_session_id, self.str_field()),
            "childSessionId" => field!(seen, 4, t.child_session_id, self.str_field()),
            "stopReason" => field!(seen, 5, t.stop_reason, self.str_field()),
            _ => self.skip(),
        }
    }

    /// A notification's event: a line of its own, built in its box.
    fn event(&mut self) -> R<Obj<Nest<'a, Line<'a>>>> {
        if self.peek() != Some(b'{') {
            return self.decline().map(|()| Obj(None));
        }
        let mut event = self.nest::<Line<'a>>();
        self.line(&mut event)?;
        Ok(Obj(Some(event)))
    }

    fn block(&mut self, t: &mut Block<'a>, seen: &mut FieldBit, key: &str) -> R<()> {
        match key {
            "type" => field!(seen, 0, t.kind, self.str_field()),
            "text" => field!(seen, 1, t.text, self.raw_field()),
            "toolCallId" => field!(seen, 2, t.tool_call_id, self.str_field()),
            _ => self.skip(),
        }
    }

    fn source(&mut self, t: &mut Source<'a>, seen: &mut FieldBit, key: &str) -> R<()> {
        match key {
            "callId" => field!(seen, 0, t.call_id, self.str_field()),
            "model" if self.arena.is_some() => {
                let v = self.skipped()?;
                if let Some(m) = self.arena_str(v) {
                    self.pending.get_or_insert_default().message_model = Some(m);
                }
                Ok(())
            }
            _ => self.skip(),
        }
    }

    /// Skip a value as an unknown key's (`skip`: what serde's reading checks), and give its text.
    fn skipped(&mut self) -> R<&'a str> {
        self.ws();
        let start = self.i;
        self.skip()?;
        Ok(&self.s[start..self.i])
    }

    /// A JSON string's value (`text` is the value's JSON), in the arena; `None` for another value.
    fn arena_str(&self, text: &'a str) -> Option<&'a str> {
        let arena = self.arena?;
        let v: Cow<'a, str> = serde_json::from_str(text).ok()?;
        Some(match v {
            Cow::Borrowed(s) => s,
            Cow::Owned(s) => arena.alloc_str(&s),
        })
    }

    /// The rare fields of the `data` being read.
    fn rare(&mut self) -> &mut RareFields<'a> {
        self.pending.get_or_insert_default()
    }

    /// A rare key of `data`: its value skipped as serde skips an unknown key's, then read.
    fn rare_field(&mut self, key: &str) -> R<()> {
        let text = self.skipped()?;
        if self.arena.is_none() {
            return Ok(());
        }
        let str_of = |s: &Self| s.arena_str(text);
        match key {
            "usage" => {
                #[derive(serde::Deserialize)]
                struct Counts {
                    #[serde(rename = "inputTokens")]
                    input: Option<serde_json::Value>,
                    #[serde(rename = "outputTokens")]
                    output: Option<serde_json::Value>,
                    #[serde(rename = "cacheReadTokens")]
                    cache_read: Option<serde_json::Value>,
                    #[serde(rename = "cacheWriteTokens")]
                    cache_write: Option<serde_json::Value>,
                }
                if let Ok(c) = serde_json::from_str::<Counts>(text) {
                    let n = |v: &Option<serde_json::Value>| v.as_ref().and_then(serde_json::Value::as_u64).unwrap_or(0);
                    let usage = crate::report::Usage {
                        input: n(&c.input),
                        output: n(&c.output),
                        cache_read: n(&c.cache_read),
                        cache_write: n(&c.cache_write),
                        cost: None,
                        unpriced: None,
                    };
                    self.rare().usage = Some(usage);
                }
            }
            "modelMetrics" => {
                if let (Some(metrics), Some(arena)) = (model_metrics(text), self.arena) {
                    let list =
                        arena.alloc_slice_fill_iter(metrics.into_iter().map(|(m, u)| (&*arena.alloc_str(&m), u)));
                    self.rare().model_metrics = Some(list);
                }
            }
            "outputTokens" => {
                if let Ok(n) = text.trim().parse::<u64>() {
                    self.rare().output_tokens = Some(n);
                }
            }
            "provenance" => {
                #[derive(serde::Deserialize)]
                struct Provenance<'p> {
                    #[serde(borrow)]
                    model: Option<Cow<'p, str>>,
                }
                if let Ok(Provenance { model: Some(m) }) = serde_json::from_str::<Provenance>(text) {
                    let m = match (m, self.arena) {
                        (Cow::Borrowed(s), _) => Some(s),
                        (Cow::Owned(s), Some(a)) => Some(&*a.alloc_str(&s)),
                        (Cow::Owned(_), None) => None,
                    };
                    if let Some(m) = m {
                        self.rare().message_model.get_or_insert(m);
                    }
                }
            }
            _ => {
                if let Some(v) = str_of(self) {
                    let r = self.rare();
                    match key {
                        "model" => r.model = Some(v),
                        "selectedModel" => r.selected_model = Some(v),
                        _ => r.new_model = Some(v),
                    }
                }
            }
        }
        Ok(())
    }

    fn message(&mut self, t: &mut Message<'a>, seen: &mut FieldBit, key: &str) -> R<()> {
        match key {
            "content" => field!(seen, 0, t.content, self.list_field(Self::block)),
            "source" => field!(seen, 1, t.source, self.obj_field(Self::source)),
            _ => self.skip(),
        }
    }

    fn reason(&mut self, t: &mut Reason<'a>, seen: &mut FieldBit, key: &str) -> R<()> {
        match key {
            "kind" => field!(seen, 0, t.kind, self.str_field()),
            _ => self.skip(),
        }
    }

    fn data(&mut self, t: &mut Data<'a>, seen: &mut FieldBit, key: &str) -> R<()> {
        match key {
            "turn" => field!(seen, 0, t.turn, self.num_field()),
            "step" => field!(seen, 1, t.step, self.num_field()),
            "reason" => field!(seen, 2, t.reason, self.obj_field(Self::reason)),
            "message" => field!(seen, 3, t.message, self.obj_field(Self::message)),
            "callId" => field!(seen, 4, t.call_id, self.str_field()),
            "label" => field!(seen, 5, t.label, self.str_field()),
            "dt" => field!(seen, 6, t.dt, self.count_field()),
            "sessionId" => field!(seen, 7, t.session_id, self.str_field()),
            "toolCallId" => field!(seen, 8, t.tool_call_id, self.str_field()),
            "agentName" => field!(seen, 9, t.agent_name, self.str_field()),
            "agentDisplayName" => field!(seen, 10, t.agent_display_name, self.str_field()),
            "parentId" => field!(seen, 11, t.parent_id, self.str_field()),
            "cancelled" => field!(seen, 12, t.cancelled, self.flag_field()),
            "turnId" => field!(seen, 13, t.turn_id, self.str_field()),
            "parentToolCallId" => field!(seen, 15, t.parent_tool_call_id, self.str_field()),
            // Keys serde's reading does not know (so never "given twice"): read by the scanner
            // alone, into the arena.
            "usage" | "outputTokens" | "model" | "selectedModel" | "newModel" | "provenance" | "modelMetrics" => {
                self.rare_field(key)
            }
            "content" => {
                let start = self.i;
                field!(seen, 14, t.content, self.content_field())?;
                if let (Content::Text(_), Ok(start), Ok(len)) =
                    (&t.content, u32::try_from(start), u32::try_from(self.i - start))
                {
                    t.content_at = Spot(Some((start, len)));
                }
                Ok(())
            }
            _ => self.skip(),
        }
    }
}

/// Copilot's `modelMetrics` (`{model: {requests, usage: {inputTokens, outputTokens,
/// cacheReadTokens, cacheWriteTokens, reasoningTokens}}}`), by model name order: each model's
/// counts as the log gives them (`input` is `inputTokens`, which counts the cache reads and
/// writes in); a model whose `usage` is not an object is left out, and `None` when the value is
/// not an object.
fn model_metrics(text: &str) -> Option<Vec<(String, crate::report::Usage)>> {
    #[derive(serde::Deserialize)]
    struct Metrics {
        usage: Option<serde_json::Value>,
    }
    let map: std::collections::BTreeMap<String, serde_json::Value> = serde_json::from_str(text).ok()?;
    let n = |u: &serde_json::Value, k: &str| u.get(k).and_then(serde_json::Value::as_u64).unwrap_or(0);
    let list = map
        .into_iter()
        .filter_map(|(model, v)| {
            let u = serde_json::from_value::<Metrics>(v).ok()?.usage.filter(serde_json::Value::is_object)?;
            let usage = crate::report::Usage {
                input: n(&u, "inputTokens"),
                output: n(&u, "outputTokens"),
                cache_read: n(&u, "cacheReadTokens"),
                cache_write: n(&u, "cacheWriteTokens"),
                cost: None,
                unpriced: None,
            };
            Some((model, usage))
        })
        .collect();
    Some(list)
}

/// Parse a line already known to be valid UTF-8: `None` when it is not a JSON object.
pub fn parse_line_str(text: &str) -> Option<Line<'_>> {
    line(text, None)
}

/// As `parse_line_str`, with the line's boxed parts (`params`, its `event`) in `arena`, as the
/// engine parses each chunk's lines.
pub fn parse_line_in<'a>(text: &'a str, arena: &'a bumpalo::Bump) -> Option<Line<'a>> {
    line(text, Some(arena))
}

/// Parse a line: `None` when it is not a JSON object in valid UTF-8 (anywhere in the line).
pub fn parse_line(bytes: &[u8]) -> Option<Line<'_>> {
    parse_line_str(std::str::from_utf8(bytes).ok()?)
}

/// The line shape of the harness family (dsh-rpc, dsh-session, copilot-events, copilot-rpc):
/// each line parsed by `scan` into a `Line`, its boxed parts in the chunk's arena.
pub struct WireShape;

crate::text::shape::line_shape!(WireShape, wire_cells, Line, parse_into, prefetch_line);

/// Parse `text` into `out` in place; `false` when it is not a JSON object the shapes read.
fn parse_into<'a>(text: &'a str, arena: &'a bumpalo::Bump, out: &mut Line<'a>) -> bool {
    line_into(text, Some(arena), out)
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
        Some(m) => crate::wire::text_of(&m.content.0),
        None => data.content.text().unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
