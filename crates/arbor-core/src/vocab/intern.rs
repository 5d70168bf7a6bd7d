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
#[derive(Debug, Default, Clone)]
pub struct Interner {
    hasher: ahash::RandomState,
    /// A name's hash → the latest symbol with that hash; `chain` leads to earlier ones.
    map: HashMap<u64, u32>,
    chain: Vec<u32>,
    text: String,
    /// Where each name ends in `text` (it starts where the one before ends).
    ends: Vec<usize>,
    recent: Recent,
    /// Symbols shown under another name than the one they hold (a session id that two formats
    /// use is shown as `id@format`, `Ctx::scoped`): symbol → the name shown. Rare, so kept
    /// apart; lookups by name (`intern`, `get`) still find a symbol by the name it holds.
    shown: HashMap<u32, Box<str>>,
    /// The same, by the name shown (`get` finds a symbol by the name a report gave it).
    shown_by: HashMap<Box<str>, u32>,
}

/// Names interned lately, by the low bits of their hash, with their bytes: most ids a router
/// interns were seen a few events before (8 of 10 in a generated Copilot log), and these 4 KiB
/// stay in the core's cache where the map, `ends` and `text` of 244 k ids cost a miss each.
#[derive(Clone)]
struct Recent(Box<[RecentName]>);

#[derive(Clone, Copy)]
struct RecentName {
    hash: u64,
    sym: u32,
    /// The name's length; `u8::MAX` for an empty slot.
    len: u8,
    bytes: [u8; RECENT_LEN],
}

/// The longest name kept in `Recent` (a slot is then 64 bytes); longer ones are always looked up.
const RECENT_LEN: usize = 51;
const RECENT_SLOTS: usize = 64;

impl Default for Recent {
    fn default() -> Self {
        Recent(vec![RecentName { hash: 0, sym: 0, len: u8::MAX, bytes: [0; RECENT_LEN] }; RECENT_SLOTS].into())
    }
}

impl std::fmt::Debug for Recent {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("Recent")
    }
}

impl Recent {
    fn get(&self, hash: u64, s: &str) -> Option<Sym> {
        let slot = &self.0[hash as usize % RECENT_SLOTS];
        (slot.hash == hash && usize::from(slot.len) == s.len() && slot.bytes.get(..s.len()) == Some(s.as_bytes()))
            .then_some(Sym(slot.sym))
    }

    fn put(&mut self, hash: u64, s: &str, sym: Sym) {
        if s.len() <= RECENT_LEN {
            let slot = &mut self.0[hash as usize % RECENT_SLOTS];
            (slot.hash, slot.sym, slot.len) = (hash, sym.0, s.len() as u8);
            slot.bytes[..s.len()].copy_from_slice(s.as_bytes());
        }
    }
}

const END_OF_CHAIN: u32 = u32::MAX;

impl Interner {
    pub fn intern(&mut self, s: &str) -> Sym {
        let hash = self.hasher.hash_one(s);
        if let Some(sym) = self.recent.get(hash, s) {
            return sym;
        }
        let sym = match self.find(hash, s) {
            Some(sym) => sym,
            None => {
                let sym = Sym(self.ends.len() as u32);
                self.text.push_str(s);
                self.ends.push(self.text.len());
                let before = self.map.insert(hash, sym.0).unwrap_or(END_OF_CHAIN);
                self.chain.push(before);
                sym
            }
        };
        self.recent.put(hash, s, sym);
        sym
    }

    fn find(&self, hash: u64, s: &str) -> Option<Sym> {
        let mut at = *self.map.get(&hash)?;
        while at != END_OF_CHAIN {
            if self.held(Sym(at)) == s {
                return Some(Sym(at));
            }
            at = self.chain[at as usize];
        }
        None
    }

    /// How many names it holds (symbols are `0..len`).
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The symbol of a name: the one shown under it (`show_as`), else the one interned by it.
    pub fn get(&self, s: &str) -> Option<Sym> {
        if let Some(&sym) = self.shown_by.get(s) {
            return Some(Sym(sym));
        }
        self.find(self.hasher.hash_one(s), s)
    }

    /// The name a symbol is shown by: the one it was interned by, unless `show_as` gave it
    /// another.
    pub fn name(&self, sym: Sym) -> &str {
        if !self.shown.is_empty() {
            if let Some(n) = self.shown.get(&sym.0) {
                return n;
            }
        }
        self.held(sym)
    }

    /// The name a symbol was interned by.
    fn held(&self, sym: Sym) -> &str {
        let i = sym.0 as usize;
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.text[start..self.ends[i]]
    }

    /// A new symbol for `s` that `intern` and `get` never give for `s` (another scope's use of
    /// the same id), shown as `shown`.
    pub fn alias(&mut self, s: &str, shown: &str) -> Sym {
        let sym = Sym(self.ends.len() as u32);
        self.text.push_str(s);
        self.ends.push(self.text.len());
        self.chain.push(END_OF_CHAIN);
        self.show_as(sym, shown);
        sym
    }

    /// Show `sym` as `shown` from now on (in every name a report gives it).
    pub fn show_as(&mut self, sym: Sym, shown: &str) {
        if let Some(before) = self.shown.insert(sym.0, shown.into()) {
            self.shown_by.remove(&before);
        }
        self.shown_by.insert(shown.into(), sym.0);
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

    /// A symbol shown under another name is found by that name, and by the one it holds only
    /// through `intern`/`get` as before; an alias is never what `intern` gives for its name.
    #[test]
    fn a_name_shown_apart_and_an_alias_keep_their_symbols() {
        let mut i = Interner::default();
        let raw = i.intern("s-u");
        let other = i.alias("s-u", "s-u@codex");
        i.show_as(raw, "s-u@claude-code");
        assert_ne!(raw, other);
        assert_eq!((i.intern("s-u"), i.get("s-u@codex"), i.get("s-u@claude-code")), (raw, Some(other), Some(raw)));
        assert_eq!((i.name(raw), i.name(other)), ("s-u@claude-code", "s-u@codex"));
        assert_eq!(i.intern("next"), Sym(2));
    }

    /// Through the recent names and past them: every name keeps the symbol it was first given,
    /// whatever its length (longer ones than a slot holds, the empty one) and however often
    /// others take its slot.
    #[test]
    fn recent_names_give_the_symbols_names_were_first_given() {
        let mut i = Interner::default();
        let names: Vec<String> = (0..500)
            .map(|n| match n % 5 {
                0 => String::new(),
                1 => format!("{n:0>60}"),
                2 => format!("{:0>51}", n),
                3 => format!("agent-{n}"),
                _ => format!("{:x}", n * 7919),
            })
            .collect();
        let mut first: std::collections::HashMap<String, Sym> = std::collections::HashMap::new();
        for round in 0..3 {
            for (k, n) in names.iter().enumerate() {
                // Each round in another order, with a name seen just before now and then.
                let n = if (k + round) % 3 == 0 { &names[k.saturating_sub(1)] } else { n };
                let sym = i.intern(n);
                assert_eq!(*first.entry(n.clone()).or_insert(sym), sym, "{n}");
                assert_eq!(i.name(sym), n);
            }
        }
        assert_eq!(i.ends.len(), first.len());
        // A slot answers only for its own name, even under the same hash.
        let mut r = Recent::default();
        r.put(7, "ab", Sym(3));
        assert_eq!(
            (r.get(7, "ab"), r.get(7, "ac"), r.get(7, "a"), r.get(7, ""), r.get(7 + 64, "ab")),
            (Some(Sym(3)), None, None, None, None)
        );
        assert_eq!(Recent::default().get(0, ""), None);
    }
}
