//! Case-insensitive interned names: every variable, function, namespace, field and object name
//! becomes a dense `Name` id once, so the VM compares and indexes integers.

use hashbrown::HashTable;
use std::rc::Rc;

/// An interned, case-insensitive name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Name(pub u32);

const K: u64 = 0xf135_7aea_2e62_a9c5;
/// Setting bit 5 of every byte maps `A-Z` onto `a-z` (and other bytes onto themselves
/// consistently), so names equal ignoring ASCII case hash equal; equality is still checked
/// exactly with `eq_ignore_ascii_case`.
const FOLD: u64 = 0x2020_2020_2020_2020;

#[inline]
fn mix(h: u64, w: u64) -> u64 {
    (h ^ w).wrapping_mul(K).rotate_left(26)
}

/// Case-insensitive hash of `s`, 8 bytes at a time, without allocating (an FxHash-style
/// multiply-rotate; names are short and the table checks equality, so speed beats quality).
fn ci_hash(s: &str) -> u64 {
    let b = s.as_bytes();
    let mut h = (b.len() as u64).wrapping_mul(K);
    let mut chunks = b.chunks_exact(8);
    for c in &mut chunks {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        h = mix(h, u64::from_le_bytes(w) | FOLD);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        // Byte by byte: a `copy_from_slice` of a variable length is a `memcpy` call.
        let mut w = 0u64;
        for (i, &c) in rest.iter().enumerate() {
            w |= u64::from(c) << (8 * i);
        }
        h = mix(h, w | FOLD);
    }
    // Spread the high bits down: hashbrown takes the bucket from the low bits and a tag from
    // the top seven.
    h ^ (h >> 29)
}

/// A multiply-rotate hasher for the compiler's own tables (keys are short names and small
/// integers the compiler made, so hash flooding is not a concern there; speed is).
#[derive(Debug, Default, Clone, Copy)]
pub struct FastHasher(u64);

impl std::hash::Hasher for FastHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.0 = mix(self.0, u64::from_le_bytes(w));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            // Byte by byte: a `copy_from_slice` of a variable length is a `memcpy` call.
            let mut w = 0u64;
            for (i, &c) in rest.iter().enumerate() {
                w |= u64::from(c) << (8 * i);
            }
            self.0 = mix(self.0, w ^ ((rest.len() as u64) << 59));
        }
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.0 = mix(self.0, u64::from(i));
    }
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.0 = mix(self.0, u64::from(i));
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.0 = mix(self.0, i);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.0 = mix(self.0, i as u64);
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.0 ^ (self.0 >> 29)
    }
}

/// Builds [`FastHasher`]s.
pub type FastBuild = std::hash::BuildHasherDefault<FastHasher>;

/// The name table.
#[derive(Debug, Default)]
pub struct Interner {
    names: Vec<Rc<str>>,
    table: HashTable<u32>,
    /// Two-way cache from a shared string's address to its name, for the compiler's
    /// syntax-tree names (one `Rc` per spelling per file): a hit skips hashing the text. Each
    /// entry holds its `Rc`, so an address in the cache cannot be reused by another string.
    by_ptr: Vec<(usize, Option<Rc<str>>, Name)>,
}

/// Sets of the address cache (two entries each).
const BY_PTR_SETS: usize = 512;

impl Interner {
    fn hash(&self, s: &str) -> u64 {
        ci_hash(s)
    }

    /// The id of `s` (the first spelling seen is kept for display).
    pub fn intern(&mut self, s: &str) -> Name {
        let h = self.hash(s);
        let names = &self.names;
        if let Some(&id) = self.table.find(h, |&id| names[id as usize].eq_ignore_ascii_case(s)) {
            return Name(id);
        }
        let id = self.names.len() as u32;
        self.names.push(Rc::from(s));
        let names = &self.names;
        self.table.insert_unique(h, id, |&id| ci_hash(&names[id as usize]));
        Name(id)
    }

    /// Makes room for `extra` more names without growing the table.
    pub(crate) fn reserve(&mut self, extra: usize) {
        self.names.reserve(extra);
        let names = &self.names;
        self.table.reserve(extra, |&id| ci_hash(&names[id as usize]));
    }

    /// Forgets the names interned after `mark` (so a file that fails to parse leaves no trace).
    pub(crate) fn truncate(&mut self, mark: usize) {
        self.by_ptr.clear();
        while self.names.len() > mark {
            let id = (self.names.len() - 1) as u32;
            let h = ci_hash(&self.names[id as usize]);
            if let Ok(e) = self.table.find_entry(h, |&x| x == id) {
                e.remove();
            }
            self.names.pop();
        }
    }

    /// The id of a shared string (as [`Interner::intern`]; a new name keeps this `Rc`).
    pub(crate) fn intern_rc(&mut self, s: &Rc<str>) -> Name {
        let key = Rc::as_ptr(s) as *const u8 as usize;
        // Two ways per set: the most recently used first. Direct-mapped, two names used
        // in turn whose addresses met in one slot missed on every use (about a third of the
        // compiler's lookups in `loopbench t2`).
        let set = (((key as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 55) as usize % BY_PTR_SETS) * 2;
        if let Some([(k0, Some(_), n0), (k1, Some(_), n1)]) = self.by_ptr.get(set..set + 2) {
            if *k0 == key {
                return *n0;
            }
            if *k1 == key {
                let n = *n1;
                self.by_ptr.swap(set, set + 1);
                return n;
            }
        }
        self.intern_rc_miss(s, key, set)
    }

    /// [`Self::intern_rc`] past the cache: the table, and the entry made the set's first.
    #[inline(never)]
    fn intern_rc_miss(&mut self, s: &Rc<str>, key: usize, set: usize) -> Name {
        let h = self.hash(s);
        let names = &self.names;
        let n = match self.table.find(h, |&id| names[id as usize].eq_ignore_ascii_case(s)) {
            Some(&id) => Name(id),
            None => {
                let id = self.names.len() as u32;
                self.names.push(s.clone());
                let names = &self.names;
                self.table.insert_unique(h, id, |&id| ci_hash(&names[id as usize]));
                Name(id)
            }
        };
        if self.by_ptr.is_empty() {
            self.by_ptr = vec![(0, None, Name(0)); BY_PTR_SETS * 2];
        }
        if let Some(ways) = self.by_ptr.get_mut(set..set + 2) {
            ways.swap(0, 1);
            ways[0] = (key, Some(s.clone()), n);
        }
        n
    }

    /// The id of `s` if it was ever interned.
    pub fn lookup(&self, s: &str) -> Option<Name> {
        let h = self.hash(s);
        self.table.find(h, |&id| self.names[id as usize].eq_ignore_ascii_case(s)).map(|&id| Name(id))
    }

    /// The spelling of a name.
    pub fn text(&self, n: Name) -> &str {
        self.names.get(n.0 as usize).map(|s| &**s).unwrap_or("")
    }

    /// The spelling as a shared string.
    pub fn rc(&self, n: Name) -> Rc<str> {
        self.names.get(n.0 as usize).cloned().unwrap_or_else(|| Rc::from(""))
    }

    /// How many names exist.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// True when no name was interned.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn case_insensitive() {
        let mut i = Interner::default();
        let a = i.intern("FooBar");
        assert_eq!(i.intern("foobar"), a);
        assert_eq!(i.lookup("FOOBAR"), Some(a));
        assert_ne!(i.intern("foobaz"), a);
        assert_eq!(i.text(a), "FooBar");
        let long = "x".repeat(100);
        let l = i.intern(&long);
        assert_eq!(i.intern(&long.to_uppercase()), l);
    }

    #[test]
    fn shared_strings_keep_their_names_through_the_address_cache() {
        // More shared strings than the cache holds, used in turn and in runs: every lookup,
        // hit or miss (and whichever way of a set it hits), gives the text's name.
        let mut i = Interner::default();
        let rcs: Vec<Rc<str>> = (0..3 * BY_PTR_SETS).map(|k| Rc::from(format!("n{}", k % 1500))).collect();
        for round in 0..3 {
            for (k, rc) in rcs.iter().enumerate() {
                let n = i.intern_rc(rc);
                assert_eq!(i.text(n), format!("n{}", k % 1500), "round {round}");
                assert_eq!(i.intern_rc(rc), n);
                assert_eq!(i.intern_rc(&rcs[k / 2]), i.intern(&format!("N{}", (k / 2) % 1500)));
            }
        }
        assert_eq!(i.len(), 1500);
    }
}
