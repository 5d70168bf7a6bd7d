//! A comparison's fingerprints of what a part says (SPEC 6.3): a text with its whitespace folded,
//! and a JSON value with its objects' keys in order, each hashed. A format's reader may make a
//! part's print while it reads the line (`Draft::print`), so that a comparison need not copy the
//! text; every print is made by these functions, so a part fingerprinted there and one
//! fingerprinted from its text compare alike.
//!
//! The hasher is fast and seeded at random once a process: both sides of a comparison are read in
//! one process, and a log cannot aim at a seed it does not know.

use std::hash::{BuildHasher, Hash, Hasher};
use std::sync::LazyLock;

static SEED: LazyLock<ahash::RandomState> = LazyLock::new(ahash::RandomState::new);

/// A hasher of this process' prints.
fn hasher() -> ahash::AHasher {
    SEED.build_hasher()
}

/// The print of a value (a tool's name).
pub fn of(x: &impl Hash) -> u64 {
    let mut h = hasher();
    x.hash(&mut h);
    h.finish()
}

/// The print of a text with its whitespace folded (its words, one space between): two runs
/// that wrap a text otherwise say the same. The folded text is made in a buffer of the thread's
/// and hashed whole (as a `str` is: its bytes, then `0xff`).
pub fn folded(text: &str) -> u64 {
    thread_local!(static FOLDED: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) });
    FOLDED.with_borrow_mut(|buf| {
        buf.clear();
        fold_into(text, buf);
        let mut h = hasher();
        h.write(buf);
        h.write_u8(0xff);
        // A long text's buffer is not kept.
        if buf.capacity() > 1 << 20 {
            *buf = Vec::new();
        }
        h.finish()
    })
}

/// Whitespace among the ASCII characters, as `char::is_whitespace` says it.
const ASCII_SPACE: [bool; 128] = {
    let mut t = [false; 128];
    let mut c = 0;
    while c < 128 {
        t[c] = (c as u8 as char).is_whitespace();
        c += 1;
    }
    t
};

/// Appends the words of `text` to `out` (empty), one space between (`split_whitespace` joined
/// by a space): the text copied whole, then its words moved down over the whitespace, a byte
/// at a time where it is ASCII.
fn fold_into(text: &str, out: &mut Vec<u8>) {
    let base = out.len();
    out.extend_from_slice(text.as_bytes());
    let b = &mut out[base..];
    // Written up to `w`, read up to `r`: `w <= r`, as a run of whitespace becomes one space.
    let (mut w, mut r, mut gap) = (0, 0, false);
    while r < b.len() {
        // ASCII first, without `space_at`'s checks: most of a reply is.
        let c = b[r];
        let space = if c < 0x80 { usize::from(ASCII_SPACE[c as usize]) } else { space_at(text, r) };
        if space > 0 {
            gap = true;
            r += space;
            continue;
        }
        let n = char_len(c);
        if gap && w > 0 {
            b[w] = b' ';
            w += 1;
        }
        gap = false;
        if n == 1 {
            b[w] = c;
        } else {
            b.copy_within(r..r + n, w);
        }
        w += n;
        r += n;
    }
    out.truncate(base + w);
}

/// The words of a text, as `str::split_whitespace` gives them (whitespace as Unicode says it),
/// a byte at a time where the text is ASCII: a comparison folds every reply of both runs.
pub fn words(text: &str) -> impl Iterator<Item = &str> + '_ {
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < text.len() {
            match space_at(text, i) {
                0 => break,
                n => i += n,
            }
        }
        if i == text.len() {
            return None;
        }
        let start = i;
        while i < text.len() && space_at(text, i) == 0 {
            i += char_len(text.as_bytes()[i]);
        }
        Some(&text[start..i])
    })
}

/// The length of the whitespace character at byte `i` of `text` (a character's start), or 0 when
/// it is not whitespace (`char::is_whitespace`).
#[inline]
fn space_at(text: &str, i: usize) -> usize {
    match text.as_bytes()[i] {
        c if c < 0x80 => usize::from(ASCII_SPACE[c as usize]),
        _ => match text.get(i..).and_then(|t| t.chars().next()) {
            Some(c) if c.is_whitespace() => c.len_utf8(),
            _ => 0,
        },
    }
}

/// A character's length in UTF-8 from its first byte.
#[inline]
fn char_len(first: u8) -> usize {
    match first {
        c if c < 0x80 => 1,
        c if c >= 0xf0 => 4,
        c if c >= 0xe0 => 3,
        _ => 2,
    }
}

/// The print of a JSON value, its objects' keys in order whatever order the log wrote them in.
pub fn json(v: &serde_json::Value) -> u64 {
    let mut h = hasher();
    hash_json(v, &mut h);
    h.finish()
}

fn hash_json(v: &serde_json::Value, h: &mut impl Hasher) {
    use serde_json::Value;
    match v {
        Value::Null => 0u8.hash(h),
        Value::Bool(b) => (1u8, b).hash(h),
        Value::Number(n) => (2u8, n.to_string()).hash(h),
        Value::String(s) => (3u8, s).hash(h),
        Value::Array(a) => {
            (4u8, a.len()).hash(h);
            a.iter().for_each(|x| hash_json(x, h));
        }
        Value::Object(o) => {
            (5u8, o.len()).hash(h);
            let mut keys: Vec<&String> = o.keys().collect();
            keys.sort_unstable();
            for k in keys {
                k.hash(h);
                hash_json(&o[k], h);
            }
        }
    }
}

/// The print of a part's text as its reader says it: JSON (`json`) compared as the value it
/// holds, any other text as its folded words. (A prompt's context blocks are left out before
/// this, by the comparison.)
pub fn text(text: &str, json: bool) -> u64 {
    if json {
        if let Ok(v) = serde_json::from_str::<serde_json::Value>(text) {
            return self::json(&v);
        }
    }
    folded(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folded_copy(text: &str) -> String {
        text.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    #[test]
    fn a_text_hashes_as_its_folded_copy_does_and_no_other() {
        let texts = [
            "",
            " ",
            "one",
            "a b",
            "é ü",
            "a  b",
            " a",
            "a ",
            "  two  words\n",
            "a\tb",
            "a\u{a0}b",
            "a\u{85}b",
            "a\u{3000}b",
            "a\u{2028}",
            "é ü\r\nx",
            "x\u{1f}y",
        ];
        for t in texts.iter().copied().chain([&*"long word ".repeat(50), &*"long word".repeat(50)]) {
            assert_eq!(folded(t), folded(&folded_copy(t)), "{t:?}");
            let mut buf = Vec::new();
            fold_into(t, &mut buf);
            assert_eq!(buf, folded_copy(t).into_bytes(), "{t:?}");
            assert_eq!(words(t).collect::<Vec<_>>(), t.split_whitespace().collect::<Vec<_>>(), "{t:?}");
        }
        assert_ne!(folded("two words"), folded("two wordz"));
        // Every whitespace character Unicode knows, between and around words of every width.
        let spaces: Vec<char> = (0..=0x3000u32).filter_map(char::from_u32).filter(|c| c.is_whitespace()).collect();
        assert!(spaces.len() > 20);
        for sp in &spaces {
            for t in [format!("a{sp}b"), format!("{sp}é{sp}{sp}ü\u{1f600}{sp}"), format!("x\u{85}{sp}\u{2029}y{sp}")]
            {
                assert_eq!(words(&t).collect::<Vec<_>>(), t.split_whitespace().collect::<Vec<_>>(), "{t:?}");
                let mut buf = Vec::new();
                fold_into(&t, &mut buf);
                assert_eq!(buf, folded_copy(&t).into_bytes(), "{t:?}");
            }
        }
        assert_ne!(folded("ab"), folded("a b"));
        assert_ne!(folded(""), folded(" a"));
    }

    #[test]
    fn json_compares_whatever_the_order_of_its_keys() {
        assert_eq!(text(r#"{"a":1,"b":[true,"x"]}"#, true), text(r#"{ "b": [true, "x"], "a": 1 }"#, true));
        assert_ne!(text(r#"{"a":1}"#, true), text(r#"{"a":2}"#, true));
        assert_ne!(text(r#"{"a":[1,2]}"#, true), text(r#"{"a":[2,1]}"#, true));
        // Not JSON after all: its words.
        assert_eq!(text("not  json", true), folded("not json"));
        let v: serde_json::Value = serde_json::from_str(r#"{"q": [1, 2.5, null]}"#).unwrap();
        assert_eq!(json(&v), text(&serde_json::to_string_pretty(&v).unwrap(), true));
    }
}
