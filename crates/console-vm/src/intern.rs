//! Case-insensitive interned names: every variable, function, namespace, field and object name
//! becomes a dense `Name` id once, so the VM compares and indexes integers.

use hashbrown::DefaultHashBuilder;
use hashbrown::HashTable;
use std::hash::{BuildHasher, Hasher};
use std::rc::Rc;

/// An interned, case-insensitive name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Name(pub u32);

/// Hashes the lower-case form of `s` without allocating.
fn ci_hash(hasher: &DefaultHashBuilder, s: &str) -> u64 {
    let mut h = hasher.build_hasher();
    let mut buf = [0u8; 32];
    for chunk in s.as_bytes().chunks(32) {
        for (d, c) in buf.iter_mut().zip(chunk) {
            *d = c.to_ascii_lowercase();
        }
        h.write(&buf[..chunk.len()]);
    }
    h.write_u8(0xff);
    h.finish()
}

/// The name table.
#[derive(Debug, Default)]
pub struct Interner {
    names: Vec<Rc<str>>,
    table: HashTable<u32>,
    hasher: DefaultHashBuilder,
}

impl Interner {
    fn hash(&self, s: &str) -> u64 {
        ci_hash(&self.hasher, s)
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
        let hasher = &self.hasher;
        self.table.insert_unique(h, id, |&id| ci_hash(hasher, &names[id as usize]));
        Name(id)
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
}
