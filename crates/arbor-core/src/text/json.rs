//! JSON string text, in one place: escaping a string as serde_json writes it (`escape_into`),
//! decoding one as serde_json reads it (`push_json_string`, `decode_json_string`), and the scan
//! for the bytes that end a run of plain text in either (`string_special`). The line parser
//! (`scan`), the formats' own readers and the report writer all use these; the `parse_line`
//! fuzz target and the scanner's tests hold them to serde_json.

/// The index of the first `"`, `\` or control character at or after `i`, or the length: 16
/// bytes at a time with SSE2 (part of every x86_64), then 8 at a time.
#[cfg(target_arch = "x86_64")]
#[inline]
pub fn string_special(b: &[u8], i: usize) -> usize {
    // SAFETY: SSE2 is part of x86_64, so every x86_64 CPU has it.
    unsafe { string_special_sse2(b, i) }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
#[inline]
fn string_special_sse2(b: &[u8], mut i: usize) -> usize {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8, _mm_setzero_si128,
        _mm_subs_epu8,
    };
    let (quote, slash, control, zero) =
        (_mm_set1_epi8(b'"' as i8), _mm_set1_epi8(b'\\' as i8), _mm_set1_epi8(0x1f), _mm_setzero_si128());
    while let Some(chunk) = b.get(i..i + 16) {
        // SAFETY: an unaligned load of the 16 bytes of `chunk`.
        let v = unsafe { _mm_loadu_si128(chunk.as_ptr().cast::<__m128i>()) };
        // A control character is one that 0x1f saturates to zero.
        let hit = _mm_or_si128(
            _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, slash)),
            _mm_cmpeq_epi8(_mm_subs_epu8(v, control), zero),
        );
        let mask = _mm_movemask_epi8(hit);
        if mask != 0 {
            return i + mask.trailing_zeros() as usize;
        }
        i += 16;
    }
    string_special_swar(b, i)
}

#[cfg(not(target_arch = "x86_64"))]
#[inline]
pub fn string_special(b: &[u8], i: usize) -> usize {
    string_special_swar(b, i)
}

/// `string_special` as every CPU without SSE2 runs it (aarch64, Apple Silicon among them): 8
/// bytes at a time in a word. Public for the bench that measures the two side by side
/// (`arbor-gen`'s `engine` bench, `string_scan`); the engine calls `string_special`.
#[doc(hidden)]
pub fn string_special_portable(b: &[u8], i: usize) -> usize {
    string_special_swar(b, i)
}

/// `string_special`, 8 bytes at a time in a word.
#[inline]
fn string_special_swar(b: &[u8], mut i: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    while let Some(chunk) = b.get(i..i + 8) {
        let w = u64::from_le_bytes(chunk.try_into().unwrap_or_default());
        let quote = w ^ (ONES * u64::from(b'"'));
        let slash = w ^ (ONES * u64::from(b'\\'));
        // A byte's high bit is set where it is zero (after the xor) or below 0x20; the lowest
        // such byte is exact (borrows only reach the bytes above it).
        let hit = (quote.wrapping_sub(ONES) & !quote)
            | (slash.wrapping_sub(ONES) & !slash)
            | (w.wrapping_sub(ONES * 0x20) & !w);
        let hit = hit & HIGH;
        if hit != 0 {
            return i + (hit.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < b.len() && !matches!(b[i], b'"' | b'\\' | 0..=0x1f) {
        i += 1;
    }
    i
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

/// Where a decoded JSON string goes, a run of plain text and an escaped character at a time.
pub trait Sink {
    fn text(&mut self, text: &str);
    fn char(&mut self, c: char);
}

impl Sink for String {
    #[inline]
    fn text(&mut self, text: &str) {
        self.push_str(text);
    }

    #[inline]
    fn char(&mut self, c: char) {
        self.push(c);
    }
}

/// Nowhere: the string is only checked.
impl Sink for () {
    #[inline]
    fn text(&mut self, _: &str) {}

    #[inline]
    fn char(&mut self, _: char) {}
}

/// `push_json_string` of a string's text between its quotes, onto `out`; with no `out`, only
/// whether it decodes (a string kept escaped is checked so, to be refused where serde_json
/// would refuse to decode it).
pub(crate) fn decode_json_string(body: &str, out: Option<&mut String>) -> bool {
    match out {
        Some(out) => decode_strict(body, out),
        None => decode_strict(body, &mut ()),
    }
}

/// Decode the text between a JSON string's quotes as serde_json does, into `out`: `false` at the
/// first thing serde_json refuses (a quote or control character, a broken escape, a surrogate
/// alone), with what came before it already given to `out`.
#[inline]
pub fn decode_strict(body: &str, out: &mut impl Sink) -> bool {
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
        let j = string_special(b, i);
        out.text(&body[i..j]);
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
        out.char(c);
        i = j + len;
    }
}

/// Decode the text between a JSON string's quotes (or a part of it that does not cut an escape)
/// whatever it holds: a broken escape reads as U+FFFD (over its two bytes, or its six for a
/// `\\u` whose surrogate has no partner), a backslash before a non-ASCII character as U+FFFD
/// alone. For text compared loosely (Claude Code's message hashes), never for text shown.
#[inline]
pub fn decode_lenient(body: &str, out: &mut impl Sink) {
    let b = body.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let j = memchr::memchr(b'\\', &b[i..]).map_or(b.len(), |k| i + k);
        out.text(&body[i..j]);
        if j >= b.len() {
            break;
        }
        let (c, len) = unescape_lenient(b, j);
        out.char(c);
        i = j + len;
    }
}

/// The character of the escape at `b[at]` (a backslash) and the escape's length, as
/// `decode_lenient` reads it.
fn unescape_lenient(b: &[u8], at: usize) -> (char, usize) {
    let hex = |from: usize| -> Option<u32> {
        let h = b.get(from..from + 4)?;
        std::str::from_utf8(h).ok().and_then(|h| u32::from_str_radix(h, 16).ok())
    };
    match b.get(at + 1) {
        Some(b'n') => ('\n', 2),
        Some(b't') => ('\t', 2),
        Some(b'r') => ('\r', 2),
        Some(b'b') => ('\u{8}', 2),
        Some(b'f') => ('\u{c}', 2),
        Some(b'u') => match hex(at + 2) {
            Some(hi @ 0xD800..=0xDBFF) => match (b.get(at + 6..at + 8), hex(at + 8)) {
                (Some(b"\\u"), Some(lo @ 0xDC00..=0xDFFF)) => {
                    (char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)).unwrap_or('\u{fffd}'), 12)
                }
                _ => ('\u{fffd}', 6),
            },
            Some(n) => (char::from_u32(n).unwrap_or('\u{fffd}'), 6),
            None => ('\u{fffd}', 2),
        },
        Some(&c) if c.is_ascii() => (c as char, 2),
        _ => ('\u{fffd}', 1),
    }
}

/// A JSON string, escaped as serde_json escapes it: `"` and `\`, the short escapes for backspace,
/// form feed, newline, carriage return and tab, `\u00XX` (lowercase hex) for other control
/// characters; everything else as it is.
pub fn escape_into(out: &mut Vec<u8>, s: &str) {
    let b = s.as_bytes();
    out.reserve(b.len() + 2);
    out.push(b'"');
    let mut start = 0;
    loop {
        let i = string_special(b, start);
        out.extend_from_slice(&b[start..i]);
        let Some(&c) = b.get(i) else { break };
        match c {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x0c => out.extend_from_slice(b"\\f"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            _ => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.extend_from_slice(&[b'\\', b'u', b'0', b'0', HEX[(c >> 4) as usize], HEX[(c & 0xf) as usize]]);
            }
        }
        start = i + 1;
    }
    out.push(b'"');
}
