//! Text hashes that ignore whitespace or not (`TextHash`), and `Loose`, the whitespace-free form
//! fed piece by piece. `subagent-reply-differs` compares a child's last reply with what its parent
//! received by these hashes, each taken where its text is read, so that no text is held until the
//! files are settled (SPEC 2.4–2.7); Claude Code also compares prompts by them.

/// A text hash that ignores whitespace or not, over the decoded characters of one or more JSON
/// strings read in order: `h = h·B + byte`, wrapping. Two texts that differ only in whitespace
/// hash alike in the loose form. It decides only `subagent-reply-differs` (info) and prompt
/// equality, so a 64-bit polynomial hash is enough; nothing is ever decoded into memory.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct TextHash {
    pub h: u64,
    pub len: u64,
}

const BASE: u64 = 0x100_0000_01b3;

impl TextHash {
    /// The hash of this text followed by `next`'s.
    pub fn then(self, next: TextHash) -> TextHash {
        let (mut pow, mut base, mut e) = (1u64, BASE, next.len);
        while e > 0 {
            if e & 1 == 1 {
                pow = pow.wrapping_mul(base);
            }
            base = base.wrapping_mul(base);
            e >>= 1;
        }
        TextHash { h: self.h.wrapping_mul(pow).wrapping_add(next.h), len: self.len + next.len }
    }

    #[inline]
    fn byte(&mut self, b: u8) {
        self.h = self.h.wrapping_mul(BASE).wrapping_add(u64::from(b) + 1);
        self.len += 1;
    }

    fn char(&mut self, c: char, loose: bool) {
        if loose && c.is_whitespace() {
            return;
        }
        let mut buf = [0u8; 4];
        for &b in c.encode_utf8(&mut buf).as_bytes() {
            self.byte(b);
        }
    }

    /// Add a decoded text. The hash is over its UTF-8 bytes (in the loose form, without the
    /// whitespace characters): ASCII, the most of it, is hashed byte by byte.
    pub fn text(&mut self, s: &str, loose: bool) {
        if !loose {
            for &b in s.as_bytes() {
                self.byte(b);
            }
            return;
        }
        let bytes = s.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            if b.is_ascii() {
                // As `char::is_whitespace` says of ASCII (vertical tab included).
                if !matches!(b, b' ' | b'\t'..=b'\r') {
                    self.byte(b);
                }
                i += 1;
            } else {
                let c = s[i..].chars().next().unwrap_or('\u{fffd}');
                self.char(c, true);
                i += c.len_utf8();
            }
        }
    }

    /// Add the value of a raw JSON string (quotes included), decoding its escapes as it goes;
    /// a raw value that is not a string adds nothing.
    pub fn json(&mut self, raw: &str, loose: bool) {
        let Some(body) = raw.strip_prefix('"').and_then(|b| b.strip_suffix('"')) else { return };
        self.json_body(body, loose);
    }

    /// As `json`, for the text between a string's quotes (or a part of it that does not cut an
    /// escape).
    pub fn json_body(&mut self, body: &str, loose: bool) {
        crate::text::json::decode_lenient(body, &mut Fed { hash: self, loose });
    }
}

/// A hash fed a decoded string (`TextHash::json_body`).
struct Fed<'h> {
    hash: &'h mut TextHash,
    loose: bool,
}

impl crate::text::json::Sink for Fed<'_> {
    #[inline]
    fn text(&mut self, text: &str) {
        self.hash.text(text, self.loose);
    }

    #[inline]
    fn char(&mut self, c: char) {
        self.hash.char(c, self.loose);
    }
}

/// A text's loose hash (`TextHash` without whitespace), fed in pieces: the pieces' cuts do not
/// matter, whitespace is dropped wherever it is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Loose(TextHash);

impl Loose {
    pub fn feed(&mut self, text: &str) {
        self.0.text(text, true);
    }

    pub fn finish(self) -> u64 {
        self.0.h
    }
}

/// The loose hash of one text.
pub fn hash(text: &str) -> u64 {
    let mut h = Loose::default();
    h.feed(text);
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whitespace_aside_texts_hash_alike() {
        assert_eq!(hash("done: 3 files\n"), hash("  done:\t3\n\nfiles"));
        assert_ne!(hash("done: 3 files"), hash("done: 4 files"));
        // Whitespace beyond ASCII is whitespace too; other characters are hashed whole.
        assert_eq!(hash("a\u{a0}b\u{3000}c"), hash("abc"));
        assert_ne!(hash("é"), hash("e"));
        for text in ["x\u{b}y\u{c}z", "naïve – text"] {
            let slow: String = text.chars().filter(|c| !c.is_whitespace()).collect();
            let mut h = TextHash::default();
            for c in slow.bytes() {
                h.byte(c);
            }
            assert_eq!(hash(text), h.h, "{text:?}");
        }
        let mut h = Loose::default();
        h.feed("do");
        h.feed("ne");
        assert_eq!(h.finish(), hash("done"));
    }
}
