//! Interned ids: every session, agent and file name is stored once and named by a `Sym` after.
//!
//! Logs repeat the same few ids millions of times; the record index holds 4-byte symbols instead.

/// Hash maps and sets of the engine: ahash, randomly seeded, so ids crafted to collide cannot
/// make lookups quadratic, and several times faster than SipHash on short ids.
pub type HashMap<K, V> = std::collections::HashMap<K, V, ahash::RandomState>;
pub type HashSet<K> = std::collections::HashSet<K, ahash::RandomState>;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Sym(pub u32);

/// Each name is stored once, in one buffer: a 1 GiB Copilot log has 244 k agent ids, and a
/// `Box<str>` in the map plus another in a list (two heap blocks of ~48 bytes and two 16-byte
/// handles an id) cost twice the ids' own bytes.
#[derive(Debug, Default)]
pub struct Interner {
    hasher: ahash::RandomState,
    /// A name's hash → the latest symbol with that hash; `chain` leads to earlier ones.
    map: HashMap<u64, u32>,
    chain: Vec<u32>,
    text: String,
    /// Where each name ends in `text` (it starts where the one before ends).
    ends: Vec<usize>,
}

const END_OF_CHAIN: u32 = u32::MAX;

impl Interner {
    pub fn intern(&mut self, s: &str) -> Sym {
        let hash = self.hasher.hash_one(s);
        if let Some(sym) = self.find(hash, s) {
            return sym;
        }
        let sym = Sym(self.ends.len() as u32);
        self.text.push_str(s);
        self.ends.push(self.text.len());
        let before = self.map.insert(hash, sym.0).unwrap_or(END_OF_CHAIN);
        self.chain.push(before);
        sym
    }

    fn find(&self, hash: u64, s: &str) -> Option<Sym> {
        let mut at = *self.map.get(&hash)?;
        while at != END_OF_CHAIN {
            if self.name(Sym(at)) == s {
                return Some(Sym(at));
            }
            at = self.chain[at as usize];
        }
        None
    }

    pub fn get(&self, s: &str) -> Option<Sym> {
        self.find(self.hasher.hash_one(s), s)
    }

    pub fn name(&self, sym: Sym) -> &str {
        let i = sym.0 as usize;
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.text[start..self.ends[i]]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every interner keys its map afresh (see `tests/hostile.rs` for the maps and the keys' source).
    #[test]
    fn two_interners_hash_an_id_differently() {
        let (a, b) = (Interner::default(), Interner::default());
        let [x, y] = [&a, &b].map(|i| i.hasher.hash_one("session-1"));
        assert_ne!(x, y);
    }

    #[test]
    fn names_come_back_and_collisions_are_told_apart() {
        let mut i = Interner::default();
        let a = i.intern("a");
        let e = i.intern("");
        let b = i.intern("bé");
        assert_eq!((i.intern("a"), i.intern(""), i.get("bé"), i.get("c")), (a, e, Some(b), None));
        assert_eq!((i.name(a), i.name(e), i.name(b)), ("a", "", "bé"));
        // Two names under one hash: both found through the chain.
        let h = i.hasher.hash_one("a");
        let c = Sym(i.ends.len() as u32);
        i.text.push('z');
        i.ends.push(i.text.len());
        i.chain.push(i.map.insert(h, c.0).unwrap_or(END_OF_CHAIN));
        assert_eq!((i.get("a"), i.find(h, "z")), (Some(a), Some(c)));
    }
}
