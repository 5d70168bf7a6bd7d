//! Interned ids: every session, agent and file name is stored once and named by a `Sym` after.
//!
//! Logs repeat the same few ids millions of times; the record index holds 4-byte symbols instead.

/// Hash maps and sets of the engine: ahash, randomly seeded, so ids crafted to collide cannot
/// make lookups quadratic, and several times faster than SipHash on short ids.
pub type HashMap<K, V> = std::collections::HashMap<K, V, ahash::RandomState>;
pub type HashSet<K> = std::collections::HashSet<K, ahash::RandomState>;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Sym(pub u32);

#[derive(Debug, Default)]
pub struct Interner {
    map: HashMap<Box<str>, Sym>,
    names: Vec<Box<str>>,
}

impl Interner {
    pub fn intern(&mut self, s: &str) -> Sym {
        if let Some(&sym) = self.map.get(s) {
            return sym;
        }
        let sym = Sym(self.names.len() as u32);
        self.names.push(s.into());
        self.map.insert(s.into(), sym);
        sym
    }

    pub fn get(&self, s: &str) -> Option<Sym> {
        self.map.get(s).copied()
    }

    pub fn name(&self, sym: Sym) -> &str {
        &self.names[sym.0 as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every interner keys its map afresh (see `tests/hostile.rs` for the maps and the keys' source).
    #[test]
    fn two_interners_hash_an_id_differently() {
        let (a, b) = (Interner::default(), Interner::default());
        let [x, y] = [&a, &b].map(|i| i.map.hasher().hash_one("session-1"));
        assert_ne!(x, y);
    }
}
