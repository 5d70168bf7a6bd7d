//! A text's loose hash: two texts that differ only in whitespace hash alike. It is what
//! `subagent-reply-differs` compares for the formats whose lines are not hashed otherwise (SPEC
//! 2.6, 2.7): a child's last reply and what its parent received, each hashed where it is read,
//! so that no text is held until the files are settled.

/// FNV-1a over the UTF-8 bytes of the text's non-whitespace characters, fed in pieces (the
/// pieces' cuts do not matter, whitespace is dropped wherever it is).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Loose(u64);

impl Default for Loose {
    fn default() -> Self {
        Loose(0xcbf2_9ce4_8422_2325)
    }
}

impl Loose {
    pub fn feed(&mut self, text: &str) {
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            if b.is_ascii() {
                // As `char::is_whitespace` says of ASCII: ASCII, the most of it, byte by byte.
                if !matches!(b, b' ' | b'\t'..=b'\r') {
                    self.byte(b);
                }
                i += 1;
                continue;
            }
            let c = text[i..].chars().next().unwrap_or('\u{fffd}');
            if !c.is_whitespace() {
                let mut buf = [0u8; 4];
                for &b in c.encode_utf8(&mut buf).as_bytes() {
                    self.byte(b);
                }
            }
            i += c.len_utf8();
        }
    }

    #[inline]
    fn byte(&mut self, b: u8) {
        self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }

    pub fn finish(self) -> u64 {
        self.0
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
            let mut h = Loose::default();
            for c in slow.bytes() {
                h.byte(c);
            }
            assert_eq!(hash(text), h.finish(), "{text:?}");
        }
        let mut h = Loose::default();
        h.feed("do");
        h.feed("ne");
        assert_eq!(h.finish(), hash("done"));
    }
}
