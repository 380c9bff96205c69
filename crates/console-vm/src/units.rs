//! Words, fields and records: V12's unit functions over separator sets (`getWord`,
//! `getField`, `getRecord` and their `set`/`remove`/`Count` forms).

use crate::value::Value;
use std::rc::Rc;

/// Remembers where the last `getWord`-style walk stopped so a loop over the words of one string
/// is linear, not quadratic, and the words it made of that string from its second call on
/// it (the first [`MADE_MAX`]),
/// so a loop reading the same words again (`getWord(%rec, %w)` in a loop over records)
/// shares them instead of allocating each again. Holding the `Rc` keeps the address from
/// being reused, and keeps the text from being appended to in place (`%s = %s @ x` appends
/// only to a string no one else holds).
#[derive(Debug, Default)]
pub(crate) struct WordCache {
    text: Option<Rc<String>>,
    set: &'static str,
    index: usize,
    offset: usize,
    /// Unit `i` of `text` as made before, at `i` (`None`: not made yet).
    made: Vec<Option<Value>>,
}

/// How many units of one text [`WordCache`] keeps.
const MADE_MAX: usize = 32;

pub(crate) const WORD_SEP: &str = " \t\n";
pub(crate) const FIELD_SEP: &str = "\t\n";
pub(crate) const RECORD_SEP: &str = "\n";

/// A test for the separators of `set`: a bit mask for the bytes below 64 (every separator
/// set V12 has: space, tab, newline), a search of `set` for the others only when it has any.
#[inline(always)]
fn sep_test(set: &str) -> impl Fn(u8) -> bool + '_ {
    let mut mask = 0u64;
    let mut low = true;
    for &c in set.as_bytes() {
        if c < 64 {
            mask |= 1 << c;
        } else {
            low = false;
        }
    }
    move |b| if b < 64 { mask >> b & 1 != 0 } else { !low && set.as_bytes().contains(&b) }
}

/// Byte offset where unit `index` starts, or None when there are fewer units.
fn unit_start(s: &str, set: &str, mut index: usize, mut from: usize) -> Option<usize> {
    let is_sep = sep_test(set);
    let b = s.as_bytes();
    while index > 0 {
        let mut i = from;
        while i < b.len() && !is_sep(b[i]) {
            i += 1;
        }
        if i >= b.len() {
            return None;
        }
        from = i + 1;
        index -= 1;
    }
    Some(from)
}

fn unit_end(s: &str, set: &str, from: usize) -> usize {
    let is_sep = sep_test(set);
    let b = s.as_bytes();
    let mut i = from;
    while i < b.len() && !is_sep(b[i]) {
        i += 1;
    }
    i
}

/// V12 `getUnitCount`: every separator character ends a unit; a trailing one adds none.
pub fn unit_count(s: &str, set: &str) -> usize {
    let is_sep = sep_test(set);
    let mut count = 0;
    let mut last_non_sep = false;
    for &c in s.as_bytes() {
        if is_sep(c) {
            count += 1;
            last_non_sep = false;
        } else {
            last_non_sep = true;
        }
    }
    if last_non_sep { count + 1 } else { count }
}

/// V12 `getUnit`.
pub fn get_unit<'a>(s: &'a str, index: usize, set: &str) -> &'a str {
    match unit_start(s, set, index, 0) {
        Some(st) => &s[st..unit_end(s, set, st)],
        None => "",
    }
}

/// V12 `getUnits(s, start, end)` (inclusive).
pub fn get_units<'a>(s: &'a str, start: usize, end: usize, set: &str) -> &'a str {
    if end < start {
        return "";
    }
    let Some(st) = unit_start(s, set, start, 0) else { return "" };
    let mut e = unit_end(s, set, st);
    for _ in start..end {
        if e >= s.len() {
            break;
        }
        e = unit_end(s, set, e + 1);
    }
    &s[st..e]
}

/// Splits into units (keeping empty ones), for set/remove operations.
fn units(s: &str, set: &str) -> Vec<String> {
    if s.is_empty() {
        return Vec::new();
    }
    let n = unit_count(s, set);
    (0..n).map(|i| get_unit(s, i, set).to_string()).collect()
}

fn sep_char(set: &str) -> char {
    set.chars().next().unwrap_or(' ')
}

/// V12 `setUnit`: replaces unit `index`, padding with empty units.
pub fn set_unit(s: &str, index: usize, value: &str, set: &str) -> String {
    let mut u = units(s, set);
    while u.len() <= index {
        u.push(String::new());
    }
    u[index] = value.to_string();
    u.join(&sep_char(set).to_string())
}

/// V12 `removeUnit`.
pub fn remove_unit(s: &str, index: usize, set: &str) -> String {
    let mut u = units(s, set);
    if index < u.len() {
        u.remove(index);
    }
    u.join(&sep_char(set).to_string())
}

impl WordCache {
    /// Unit `index` of `v`, continuing from the last walk over the same string.
    pub(crate) fn word(&mut self, v: &Value, index: usize, set: &'static str) -> Value {
        let Value::Str(rc) = v else {
            let t = v.to_string();
            return Value::str(get_unit(&t, index, set));
        };
        let s: &str = rc;
        let wc = self;
        let same = wc.text.as_ref().is_some_and(|t| Rc::ptr_eq(t, rc))
            && (std::ptr::eq(wc.set, set) || wc.set == set);
        if same && let Some(Some(w)) = wc.made.get(index) {
            return w.clone();
        }
        let (from_idx, from_off) = if same && wc.index <= index { (wc.index, wc.offset) } else { (0, 0) };
        match unit_start(s, set, index - from_idx, from_off) {
            Some(st) => {
                if !same {
                    wc.text = Some(rc.clone());
                    wc.set = set;
                    wc.made.clear();
                }
                wc.index = index;
                wc.offset = st;
                let w = Value::str(&s[st..unit_end(s, set, st)]);
                // Kept from the second call on one text (a text read once, as a vector's
                // component is, pays no copy into the cache).
                if same && index < MADE_MAX {
                    if wc.made.len() <= index {
                        wc.made.resize(index + 1, None);
                    }
                    if let Some(slot) = wc.made.get_mut(index) {
                        *slot = Some(w.clone());
                    }
                }
                w
            }
            None => Value::Empty,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_follow_v12() {
        assert_eq!(unit_count("a  b", WORD_SEP), 3);
        assert_eq!(unit_count("a b ", WORD_SEP), 2);
        assert_eq!(unit_count("", WORD_SEP), 0);
        assert_eq!(get_unit("a b c", 1, WORD_SEP), "b");
        assert_eq!(get_unit("a b c", 5, WORD_SEP), "");
        assert_eq!(get_units("a b c d", 1, 2, WORD_SEP), "b c");
        assert_eq!(set_unit("a b c", 1, "x", WORD_SEP), "a x c");
        assert_eq!(set_unit("a", 2, "x", WORD_SEP), "a  x");
        assert_eq!(remove_unit("a b c", 0, WORD_SEP), "b c");
    }
}
