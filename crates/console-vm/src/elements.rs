//! Array variables without a string per access (issue 32).
//!
//! In V12 `$s[%i]` is the variable whose name is the text `s` followed by the index's text, so
//! `$s[12]`, `$s @ 12` (looked up by text), `$s1[2]` and `$s12` all name one variable. Here a
//! name that ends in decimal digits is kept as an *element*: a base name and an integer, split
//! from the text by one rule ([`split_elem`]) so that every spelling of one text gives the same
//! pair. `$s[%i]` with a numeric index makes the pair from the base and the number directly
//! (no text, no hashing of text); the text is built only when something names the variable
//! by text, and then split by the same rule.
//!
//! The rule: the index is the longest suffix of the name's trailing digits that has no leading
//! zero (`0` itself is one) and at most [`MAX_INDEX_DIGITS`] digits; the rest is the base,
//! which must not be empty. `s12` → (`s`, 12); `s05` → (`s0`, 5); `s00` → (`s0`, 0);
//! `x1234567890` → (`x1`, 234567890); `s-1` → (`s-`, 1); `12` and `foo` are plain names.

use crate::intern::{FastBuild, Name};
use crate::value::Value;
use hashbrown::HashMap;
use std::cell::Cell;

/// Most digits an element's index has (so it fits a `u32`).
pub(crate) const MAX_INDEX_DIGITS: usize = 9;

/// Splits a variable name into its element base and index (see the module's rule), or `None`
/// for a plain name.
pub(crate) fn split_elem(name: &str) -> Option<(&str, u32)> {
    let b = name.as_bytes();
    let digits = b.iter().rev().take_while(|c| c.is_ascii_digit()).count();
    if digits == 0 {
        return None;
    }
    // The longest suffix of at most MAX_INDEX_DIGITS digits without a leading zero.
    let mut start = b.len() - digits.min(MAX_INDEX_DIGITS);
    while start < b.len() - 1 && b[start] == b'0' {
        start += 1;
    }
    if start == 0 {
        return None;
    }
    let mut idx: u32 = 0;
    for &c in &b[start..] {
        idx = idx * 10 + u32::from(c - b'0');
    }
    Some((&name[..start], idx))
}

/// True when a base name can take a numeric index directly: `base` followed by an index's
/// digits splits back into `base` and that index (the base is not empty and does not end in
/// a digit).
pub(crate) fn direct_base(base: &str) -> bool {
    base.as_bytes().last().is_some_and(|c| !c.is_ascii_digit())
}

/// The index a value names when it follows a [`direct_base`]: a whole number in
/// `0..10^MAX_INDEX_DIGITS` whose text is its plain digits (a double prints so below 10^6:
/// `%g`), or text that is such digits. `None` for anything else (the text path handles it).
#[inline]
pub(crate) fn direct_index(v: &Value) -> Option<u32> {
    // A double (a `for` counter) and an integer inline, one compare-and-branch each; text
    // and `""` out of line. A `match` on the four tags was a jump table, a second indirect
    // jump in every element access besides the dispatch (docs/PERFORMANCE.md, issue 32,
    // eighth pass).
    if let Value::Float(f) = v {
        let f = *f;
        // Not negative (nor -0, which prints `-0`) and below 10^6 (NaN is not). Adding 2^52
        // rounds to a whole number, kept in the low bits of the sum: the number is whole
        // when taking 2^52 off gives it back. Cheaper than a checked conversion and back
        // (which clamps: 20 instructions per index; `fract` is a libm call).
        const TWO_52: f64 = 4_503_599_627_370_496.0;
        if f.is_sign_positive() && f < 1e6 {
            let t = f + TWO_52;
            if t - TWO_52 == f {
                return Some(t.to_bits() as u32);
            }
        }
        None
    } else if let Value::Int(i) = v {
        if (0..1_000_000_000).contains(i) { Some(*i as u32) } else { None }
    } else {
        direct_index_text(v)
    }
}

/// [`direct_index`] of text (its plain digits) or `""` (none).
#[inline(never)]
fn direct_index_text(v: &Value) -> Option<u32> {
    let Value::Str(s) = v else { return None };
    let b = s.as_bytes();
    if b.is_empty() || b.len() > MAX_INDEX_DIGITS || (b[0] == b'0' && b.len() > 1) {
        return None;
    }
    let mut idx: u32 = 0;
    for &c in b {
        if !c.is_ascii_digit() {
            return None;
        }
        idx = idx * 10 + u32::from(c - b'0');
    }
    Some(idx)
}

/// An index at most this far past the dense part's end grows it; a larger one goes to the
/// sparse map. Growth follows writes one by one (a script cannot make a huge list with a few
/// far writes: `$a[63]`, `$a[127]`, `$a[255]`, ... stay in the map).
const DENSE_SLACK: usize = 64;

/// The elements of one base: a dense part for small indexes filled from 0 and a map for
/// the rest. An index below `dense.len()` is only ever in the dense part.
#[derive(Debug, Default, Clone)]
pub(crate) struct ElemSet {
    dense: Vec<Value>,
    sparse: HashMap<u32, Value, FastBuild>,
}

impl ElemSet {
    #[inline]
    pub(crate) fn get(&self, i: u32) -> Value {
        match self.dense.get(i as usize) {
            Some(v) => v.clone(),
            None => self.sparse_get(i),
        }
    }

    /// Element `i`, by reference (`None` when unset).
    #[inline]
    pub(crate) fn get_ref(&self, i: u32) -> Option<&Value> {
        match self.dense.get(i as usize) {
            Some(v) => Some(v),
            None => self.sparse.get(&i),
        }
    }

    #[inline(never)]
    fn sparse_get(&self, i: u32) -> Value {
        if self.sparse.is_empty() {
            return Value::Empty;
        }
        self.sparse.get(&i).cloned().unwrap_or_default()
    }

    /// Writes element `i` (`""` unsets it).
    #[inline]
    pub(crate) fn set(&mut self, i: u32, v: Value) {
        let i = i as usize;
        if let Some(slot) = self.dense.get_mut(i) {
            crate::value::move_into(slot, &mut { v });
        } else {
            self.set_other(i, v);
        }
    }

    /// Writes element `i` with the value moved out of `src` (left `Empty`), field by field.
    #[inline]
    pub(crate) fn set_from(&mut self, i: u32, src: &mut Value) {
        match self.dense.get_mut(i as usize) {
            Some(slot) => crate::value::move_into(slot, src),
            None => self.set_other(i as usize, crate::value::take(src)),
        }
    }

    #[inline(never)]
    fn set_other(&mut self, i: usize, v: Value) {
        let len = self.dense.len();
        if i < len + DENSE_SLACK {
            if v.is_empty() && !self.sparse.contains_key(&(i as u32)) {
                return;
            }
            // Grow the dense part to cover `i`, taking over what the map held below it.
            let new_len = (i + 1).max(len + len / 2);
            self.dense.resize(new_len, Value::Empty);
            if !self.sparse.is_empty() {
                let moved: Vec<u32> =
                    self.sparse.keys().copied().filter(|&k| (k as usize) < new_len).collect();
                for k in moved {
                    if let Some(x) = self.sparse.remove(&k) {
                        self.dense[k as usize] = x;
                    }
                }
            }
            self.dense[i] = v;
        } else if v.is_empty() {
            self.sparse.remove(&(i as u32));
        } else {
            self.sparse.insert(i as u32, v);
        }
    }

    /// The set elements, `(index, value)`, in no particular order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (u32, &Value)> {
        self.dense
            .iter()
            .enumerate()
            .map(|(i, v)| (i as u32, v))
            .chain(self.sparse.iter().map(|(&i, v)| (i, v)))
            .filter(|(_, v)| !v.is_empty())
    }

    /// Unsets the elements for which `f` says so.
    pub(crate) fn clear_where(&mut self, mut f: impl FnMut(u32) -> bool) {
        for (i, v) in self.dense.iter_mut().enumerate() {
            if !v.is_empty() && f(i as u32) {
                *v = Value::Empty;
            }
        }
        self.sparse.retain(|&i, _| !f(i));
    }
}

/// Elements by base name (the globals' arrays, a frame's): the sets in a list, found through
/// a map by base, with the last base used remembered (a loop over one array finds it without
/// hashing).
#[derive(Debug, Default, Clone)]
pub(crate) struct ElemStore {
    sets: Vec<(Name, ElemSet)>,
    by_base: HashMap<Name, u32, FastBuild>,
    /// `(base.0, position in sets)` of the last base found (meaningless while `sets` is empty).
    last: std::cell::Cell<(u32, u32)>,
}

impl ElemStore {
    #[inline]
    fn find(&self, base: Name) -> Option<usize> {
        let (b, i) = self.last.get();
        if b == base.0 && (i as usize) < self.sets.len() {
            return Some(i as usize);
        }
        self.find_other(base)
    }

    #[inline(never)]
    fn find_other(&self, base: Name) -> Option<usize> {
        let i = *self.by_base.get(&base)?;
        self.last.set((base.0, i));
        Some(i as usize)
    }

    /// Element `i` of `base` in place, when `base` is the base last found and `i` is in its
    /// dense part (`None` otherwise, with nothing looked up: the caller goes the general way).
    #[inline(always)]
    pub(crate) fn dense_ref(&self, base: Name, i: u32) -> Option<&Value> {
        let (b, s) = self.last.get();
        if b != base.0 {
            return None;
        }
        self.sets.get(s as usize).and_then(|(_, set)| set.dense.get(i as usize))
    }

    /// [`ElemStore::dense_ref`] for any base (found by its name when it is not the base found
    /// last, which it then becomes): `run_tight`'s wide copy, where a loop reads two rows in
    /// turn (`$a[%i, %j] += $a[%i - 1, %j - 1]`).
    #[inline]
    pub(crate) fn dense_ref_any(&self, base: Name, i: u32) -> Option<&Value> {
        let s = self.find(base)?;
        self.sets.get(s).and_then(|(_, set)| set.dense.get(i as usize))
    }

    /// [`ElemStore::dense_ref_any`] to write.
    #[inline]
    pub(crate) fn dense_mut_any(&mut self, base: Name, i: u32) -> Option<&mut Value> {
        let s = self.find(base)?;
        self.sets.get_mut(s).and_then(|(_, set)| set.dense.get_mut(i as usize))
    }

    /// [`ElemStore::dense_ref`] to write.
    #[inline(always)]
    pub(crate) fn dense_mut(&mut self, base: Name, i: u32) -> Option<&mut Value> {
        let (b, s) = self.last.get();
        if b != base.0 {
            return None;
        }
        self.sets.get_mut(s as usize).and_then(|(_, set)| set.dense.get_mut(i as usize))
    }

    /// Element `i` of `base` (`""` when unset).
    #[inline]
    pub(crate) fn get(&self, base: Name, i: u32) -> Value {
        match self.find(base).and_then(|s| self.sets.get(s)) {
            Some((_, set)) => set.get(i),
            None => Value::Empty,
        }
    }

    /// Element `i` of `base`, by reference (`None` when unset).
    #[inline]
    pub(crate) fn get_ref(&self, base: Name, i: u32) -> Option<&Value> {
        self.find(base).and_then(|s| self.sets.get(s)).and_then(|(_, set)| set.get_ref(i))
    }

    /// Writes element `i` of `base` (`""` unsets it).
    #[inline]
    pub(crate) fn set(&mut self, base: Name, i: u32, v: Value) {
        match self.find(base) {
            Some(s) => {
                if let Some((_, set)) = self.sets.get_mut(s) {
                    set.set(i, v);
                }
            }
            None => self.set_new(base, i, v),
        }
    }

    /// [`ElemStore::set`] with the value moved out of `src` (left `Empty`), field by field:
    /// inline when `base` is the base last found and `i` is in its dense part (as
    /// [`ElemStore::set_int`]), out of line otherwise (it was a call for every store:
    /// `%a[%i] = v`, `$grid[%i, %j] = v`).
    #[inline(always)]
    pub(crate) fn set_from(&mut self, base: Name, i: u32, src: &mut Value) {
        let (b, s) = self.last.get();
        if b == base.0
            && let Some((_, set)) = self.sets.get_mut(s as usize)
            && let Some(slot) = set.dense.get_mut(i as usize)
        {
            crate::value::move_into(slot, src);
        } else {
            self.set_from_other(base, i, src);
        }
    }

    #[inline(never)]
    fn set_from_other(&mut self, base: Name, i: u32, src: &mut Value) {
        match self.find(base) {
            Some(s) => {
                if let Some((_, set)) = self.sets.get_mut(s) {
                    set.set_from(i, src);
                }
            }
            None => self.set_new(base, i, crate::value::take(src)),
        }
    }

    /// [`ElemStore::set`] of the integer `k` (`$s[%i] = 1`): when `base` is the base last
    /// found and `i` is in its dense part, the number is written in place, inline; anything
    /// else goes the general way, out of line. (Through [`ElemStore::set_from`] the store
    /// built the value aside and called out of line for every element: 40 instructions a
    /// store, most of the sieve's time outside the loop; docs/PERFORMANCE.md, seventh pass.)
    #[inline(always)]
    pub(crate) fn set_int(&mut self, base: Name, i: u32, k: i64) {
        let (b, s) = self.last.get();
        if b == base.0
            && let Some((_, set)) = self.sets.get_mut(s as usize)
            && let Some(slot) = set.dense.get_mut(i as usize)
        {
            slot.set_int(k);
        } else {
            self.set_int_other(base, i, k);
        }
    }

    #[inline(never)]
    fn set_int_other(&mut self, base: Name, i: u32, k: i64) {
        self.set(base, i, Value::Int(k));
    }

    #[inline(never)]
    fn set_new(&mut self, base: Name, i: u32, v: Value) {
        if v.is_empty() {
            return;
        }
        let s = self.sets.len() as u32;
        let mut set = ElemSet::default();
        set.set(i, v);
        self.sets.push((base, set));
        self.by_base.insert(base, s);
        self.last.set((base.0, s));
    }

    /// Every set element, `(base, index, value)`.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (Name, u32, &Value)> {
        self.sets.iter().flat_map(|(b, set)| set.iter().map(move |(i, v)| (*b, i, v)))
    }

    /// Unsets the elements for which `f(base, index)` says so.
    pub(crate) fn clear_where(&mut self, mut f: impl FnMut(Name, u32) -> bool) {
        for (b, set) in self.sets.iter_mut() {
            let b = *b;
            set.clear_where(|i| f(b, i));
        }
    }
}

/// Most indexes [`ElemNames`] remembers per base.
const MAX_NAMED_INDEX: u32 = 1 << 20;

/// `(base, i)` → the interned name `base` + `i` (fields named with an index, `%obj.v[%i]`,
/// are fields of that name): one list per base, indexed by `i`, so a loop over an array of
/// fields reads the list in order. The base found last is remembered beside the map, so a
/// loop over one field array finds its list without hashing the base (the map's probe was
/// a fifth of a `%obj.v[%i]` access; docs/PERFORMANCE.md, eleventh pass).
#[derive(Debug, Default)]
pub(crate) struct ElemNames {
    /// Base → its list's place in `lists`.
    by_base: HashMap<Name, u32, FastBuild>,
    lists: Vec<Vec<Option<Name>>>,
    /// The base found last and its list's place.
    last: Cell<Option<(Name, u32)>>,
}

impl ElemNames {
    /// The name remembered for `(base, i)`.
    #[inline]
    pub(crate) fn get(&self, base: Name, i: u32) -> Option<Name> {
        let at = match self.last.get() {
            Some((b, at)) if b == base => at,
            _ => {
                let at = *self.by_base.get(&base)?;
                self.last.set(Some((base, at)));
                at
            }
        };
        self.lists.get(at as usize)?.get(i as usize).copied().flatten()
    }

    /// Remembers `name` for `(base, i)`. Only near the list's end (as [`ElemSet`] grows) and
    /// below [`MAX_NAMED_INDEX`]: a far index is not kept, so one access cannot make a long
    /// list.
    pub(crate) fn insert(&mut self, base: Name, i: u32, name: Name) {
        if i >= MAX_NAMED_INDEX {
            return;
        }
        let at = match self.by_base.get(&base) {
            Some(&at) => at,
            None => {
                let Ok(at) = u32::try_from(self.lists.len()) else { return };
                self.lists.push(Vec::new());
                self.by_base.insert(base, at);
                at
            }
        };
        let Some(list) = self.lists.get_mut(at as usize) else { return };
        if i as usize >= list.len() + DENSE_SLACK {
            return;
        }
        if list.len() <= i as usize {
            list.resize(i as usize + 1, None);
        }
        if let Some(slot) = list.get_mut(i as usize) {
            *slot = Some(name);
        }
    }
}

/// The text name of element `i` of `base`.
pub(crate) fn elem_text(base: &str, i: u32) -> String {
    let mut s = String::with_capacity(base.len() + 10);
    s.push_str(base);
    let _ = std::fmt::Write::write_fmt(&mut s, format_args!("{i}"));
    s
}

#[cfg(test)]
mod tests {
    /// `set_int` (the inline store of `$s[%i] = k`) does what `set` of the same integer does:
    /// over a string, a number and an unset element, in the dense part and past it, on the
    /// base last found and on another one.
    #[test]
    fn set_int_is_set_of_an_int() {
        use super::ElemStore;
        use crate::intern::Name;
        use crate::value::Value;
        let (a, b) = (Name(1), Name(2));
        let mut fast = ElemStore::default();
        let mut slow = ElemStore::default();
        let steps: [(Name, u32, Option<i64>); 12] = [
            (a, 0, Some(5)),
            (a, 1, None),
            (a, 1, Some(7)),
            (b, 3, Some(1)),
            (a, 0, Some(-2)),
            (a, 500, Some(9)),
            (a, 2, None),
            (a, 2, Some(0)),
            (b, 3, Some(4)),
            (a, 500, Some(3)),
            (a, 70, Some(6)),
            (b, 0, Some(8)),
        ];
        for (base, i, k) in steps {
            match k {
                Some(k) => {
                    fast.set_int(base, i, k);
                    slow.set(base, i, Value::Int(k));
                }
                None => {
                    fast.set(base, i, Value::str("text"));
                    slow.set(base, i, Value::str("text"));
                }
            }
        }
        for base in [a, b] {
            for i in [0, 1, 2, 3, 70, 500, 501] {
                assert_eq!(fast.get(base, i), slow.get(base, i), "{base:?}[{i}]");
            }
        }
        assert_eq!(fast.get(a, 1), Value::Int(7));
    }

    /// `direct_index` on doubles: whole numbers in `0..10^6` and nothing else.
    #[test]
    fn direct_index_of_doubles() {
        use super::direct_index;
        use crate::value::Value;
        let mut x = 0x9e37_79b9_7f4a_7c15_u64;
        let mut cases = vec![
            0.0,
            -0.0,
            0.5,
            1.0,
            1.5,
            2.0,
            999_999.0,
            999_999.5,
            1e6,
            1e6 + 1.0,
            -1.0,
            1e-300,
            4.9e-324,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            4_503_599_627_370_496.0,
            0.999_999_999_999,
        ];
        for _ in 0..5000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            cases.push((x % 2_100_000) as f64 / 2.0 - 50_000.0);
            cases.push(f64::from_bits(x));
        }
        for f in cases {
            let want = if (0.0..1e6).contains(&f) && f.fract() == 0.0 && f.is_sign_positive() {
                Some(f as u32)
            } else {
                None
            };
            assert_eq!(direct_index(&Value::Float(f)), want, "{f:e}");
        }
    }

    use super::*;

    #[test]
    fn split_rule() {
        assert_eq!(split_elem("s12"), Some(("s", 12)));
        assert_eq!(split_elem("s0"), Some(("s", 0)));
        assert_eq!(split_elem("s05"), Some(("s0", 5)));
        assert_eq!(split_elem("s00"), Some(("s0", 0)));
        assert_eq!(split_elem("s100"), Some(("s", 100)));
        assert_eq!(split_elem("x1234567890"), Some(("x1", 234567890)));
        assert_eq!(split_elem("x1000000000"), Some(("x100000000", 0)));
        assert_eq!(split_elem("s-1"), Some(("s-", 1)));
        assert_eq!(split_elem("a3_4"), Some(("a3_", 4)));
        assert_eq!(split_elem("12"), None);
        assert_eq!(split_elem("012"), Some(("0", 12)));
        assert_eq!(split_elem("foo"), None);
        assert_eq!(split_elem(""), None);
    }

    #[test]
    fn direct_forms_split_back() {
        // A direct base and a direct index always split back into themselves.
        for base in ["s", "a3_", "Foo::bar_", "x."] {
            assert!(direct_base(base));
            for i in [0u32, 1, 9, 10, 99, 100, 12345, 999_999_999] {
                let t = elem_text(base, i);
                assert_eq!(split_elem(&t), Some((base, i)), "{t}");
            }
        }
        assert!(!direct_base("s1"));
        assert!(!direct_base(""));
        assert_eq!(direct_index(&Value::Float(5.0)), Some(5));
        assert_eq!(direct_index(&Value::Float(-0.0)), None);
        assert_eq!(direct_index(&Value::Float(1e6)), None);
        assert_eq!(direct_index(&Value::Float(0.5)), None);
        assert_eq!(direct_index(&Value::Int(-1)), None);
        assert_eq!(direct_index(&Value::from("007")), None);
        assert_eq!(direct_index(&Value::from("0")), Some(0));
        assert_eq!(direct_index(&Value::from("70")), Some(70));
        assert_eq!(direct_index(&Value::from("7a")), None);
        assert_eq!(direct_index(&Value::Empty), None);
        assert_eq!(direct_index(&Value::Int(999_999_999)), Some(999_999_999));
        assert_eq!(direct_index(&Value::Int(1_000_000_000)), None);
    }

    #[test]
    fn set_from_in_place_and_the_other_way() {
        // `set_from` writes in place only for the base last found and an index in its dense
        // part; another base, an index past the dense part, a new base and `""` (unset) go
        // the general way, with the same result.
        let mut names = crate::intern::Interner::default();
        let (a, b) = (names.intern("a"), names.intern("b"));
        let mut st = ElemStore::default();
        for i in 0..100u32 {
            for base in [a, b] {
                let mut v = if i % 3 == 0 { Value::str(format!("t{i}")) } else { Value::Int(i64::from(i)) };
                st.set_from(base, i, &mut v);
                assert!(v.is_empty(), "the value moved out");
            }
        }
        let mut far = Value::Float(2.5);
        st.set_from(a, 100_000, &mut far);
        let mut gone = Value::Empty;
        st.set_from(b, 3, &mut gone);
        assert_eq!(st.get(a, 3).to_string(), "t3");
        assert_eq!(st.get(b, 3).to_string(), "");
        assert_eq!(st.get(b, 98).to_string(), "98");
        assert_eq!(st.get(a, 100_000).to_string(), "2.5");
        assert_eq!(st.iter().count(), 200, "199 set in the two bases and one far one");
    }

    #[test]
    fn far_writes_stay_sparse() {
        // Doubling indexes must not double the dense list each time (memory from a script).
        let mut s = ElemSet::default();
        let mut i = 63u32;
        while i < 1 << 29 {
            s.set(i, Value::Int(1));
            i = i * 2 + 1;
        }
        assert!(s.dense.len() <= 2 * DENSE_SLACK, "dense part grew to {}", s.dense.len());
        assert_eq!(s.get(1023).to_string(), "1");
        // Filling from 0 up grows the dense part and takes over what the map held.
        for k in 0..2000 {
            s.set(k, Value::Int(2));
        }
        assert!(s.dense.len() >= 2000);
        assert_eq!(s.get(1023).to_string(), "2");
        assert_eq!(s.get(2047).to_string(), "1");
        let mut n = ElemNames::default();
        n.insert(Name(1), 999_999, Name(7));
        assert_eq!(n.get(Name(1), 999_999), None);
        n.insert(Name(1), 3, Name(8));
        assert_eq!(n.get(Name(1), 3), Some(Name(8)));
        assert!(n.lists[n.by_base[&Name(1)] as usize].len() <= 4);
        // The base found last: other bases, a base not made yet, then made, in turn.
        n.insert(Name(2), 0, Name(20));
        for _ in 0..3 {
            assert_eq!(n.get(Name(1), 3), Some(Name(8)));
            assert_eq!(n.get(Name(2), 0), Some(Name(20)));
            assert_eq!(n.get(Name(3), 0), None);
            assert_eq!(n.get(Name(2), 1), None);
        }
        n.insert(Name(3), 0, Name(30));
        assert_eq!(n.get(Name(3), 0), Some(Name(30)));
        assert_eq!(n.get(Name(1), 3), Some(Name(8)));
        n.insert(Name(1), 4, Name(9));
        assert_eq!(n.get(Name(1), 4), Some(Name(9)));
        assert_eq!(n.get(Name(3), 0), Some(Name(30)));
    }

    #[test]
    fn dense_and_sparse() {
        let mut s = ElemSet::default();
        s.set(1_000_000, Value::Int(1));
        s.set(3, Value::Int(3));
        assert_eq!(s.get(1_000_000).to_string(), "1");
        assert_eq!(s.get(3).to_string(), "3");
        assert_eq!(s.get(4).to_string(), "");
        s.set(200, Value::Int(200));
        s.set(100, Value::Int(100));
        assert_eq!(s.get(100).to_string(), "100");
        assert_eq!(s.get(200).to_string(), "200");
        let mut all: Vec<u32> = s.iter().map(|(i, _)| i).collect();
        all.sort_unstable();
        assert_eq!(all, vec![3, 100, 200, 1_000_000]);
        s.clear_where(|i| i >= 200);
        assert_eq!(s.get(200).to_string(), "");
        assert_eq!(s.get(1_000_000).to_string(), "");
        assert_eq!(s.get(100).to_string(), "100");
    }
}
