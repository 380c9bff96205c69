//! Built-in console functions and the SimObject/SimSet methods, with their V12 behaviour.

use crate::console::{CallArgs, Console, Event};
use crate::object::{ClassKind, ObjectId};
use crate::output::Level;
use crate::value::{Value, fmt_num};
use std::rc::Rc;

mod files;
mod math;
mod objects;
mod output;
mod strings;
mod time;
mod words;

/// Remembers where the last `getWord`-style walk stopped so a loop over the words of one string
/// is linear, not quadratic. Holding the `Rc` keeps the address from being reused.
#[derive(Debug, Default)]
pub(crate) struct WordCache {
    text: Option<Rc<String>>,
    set: &'static str,
    index: usize,
    offset: usize,
}

const WORD_SEP: &str = " \t\n";
const FIELD_SEP: &str = "\t\n";
const RECORD_SEP: &str = "\n";
/// Most events queued by `schedule` at once; past it `schedule` fails with an error.
pub const MAX_SCHEDULED_EVENTS: usize = 100_000;

fn is_sep(set: &str, b: u8) -> bool {
    set.as_bytes().contains(&b)
}

/// Byte offset where unit `index` starts, or None when there are fewer units.
fn unit_start(s: &str, set: &str, mut index: usize, mut from: usize) -> Option<usize> {
    let b = s.as_bytes();
    while index > 0 {
        let mut i = from;
        while i < b.len() && !is_sep(set, b[i]) {
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
    let b = s.as_bytes();
    let mut i = from;
    while i < b.len() && !is_sep(set, b[i]) {
        i += 1;
    }
    i
}

/// V12 `getUnitCount`: every separator character ends a unit; a trailing one adds none.
pub fn unit_count(s: &str, set: &str) -> usize {
    let mut count = 0;
    let mut last_non_sep = false;
    for &c in s.as_bytes() {
        if is_sep(set, c) {
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

impl Console {
    fn cached_word(&mut self, v: &Value, index: usize, set: &'static str) -> Value {
        let Value::Str(rc) = v else {
            let t = v.to_string();
            return Value::str(get_unit(&t, index, set));
        };
        let s: &str = rc;
        let wc = &mut self.word_cache;
        let (from_idx, from_off) = match &wc.text {
            Some(t) if Rc::ptr_eq(t, rc) && wc.set == set && wc.index <= index => (wc.index, wc.offset),
            _ => (0, 0),
        };
        match unit_start(s, set, index - from_idx, from_off) {
            Some(st) => {
                wc.text = Some(rc.clone());
                wc.set = set;
                wc.index = index;
                wc.offset = st;
                Value::str(&s[st..unit_end(s, set, st)])
            }
            None => Value::Empty,
        }
    }

    // ---- tagged strings ----

    /// Registers `text` in the string table and returns its tag value (byte 0x01 then the number).
    pub fn add_tagged_string(&mut self, text: &str) -> Value {
        self.add_tagged_string_new(text).0
    }

    /// [`Self::add_tagged_string`], also saying whether this call made the tag (its id), so
    /// a host can free what one connection added when it goes.
    pub fn add_tagged_string_new(&mut self, text: &str) -> (Value, Option<u32>) {
        let (id, new) = match self.tag_by_text.get(text) {
            Some(&id) => (id, false),
            None => {
                let id = match self.free_tags.pop() {
                    Some(id) => {
                        self.tags[id as usize - 1] = text.to_string();
                        id
                    }
                    None => {
                        self.tags.push(text.to_string());
                        self.tags.len() as u32
                    }
                };
                self.tag_by_text.insert(text.to_string(), id);
                (id, true)
            }
        };
        (Value::str(format!("\u{1}{id}")), new.then_some(id))
    }

    /// Frees a tag (`removeTaggedString`): its text leaves the table and the id may be
    /// reused. False when the id is not in use.
    pub fn remove_tagged_string(&mut self, id: u32) -> bool {
        let Some(slot) =
            usize::try_from(id).ok().and_then(|i| i.checked_sub(1)).and_then(|i| self.tags.get_mut(i))
        else {
            return false;
        };
        if self.tag_by_text.get(slot.as_str()) != Some(&id) {
            return false;
        }
        self.tag_by_text.remove(slot.as_str());
        *slot = String::new();
        self.free_tags.push(id);
        true
    }

    /// Tags in use.
    pub fn tagged_string_count(&self) -> usize {
        self.tag_by_text.len()
    }

    /// The text of a tag value (or the value itself when it is not a tag).
    pub fn tagged_string(&self, v: &str) -> String {
        match v.strip_prefix('\u{1}') {
            Some(num) => {
                let id = crate::value::atoi(num);
                usize::try_from(id - 1).ok().and_then(|i| self.tags.get(i)).cloned().unwrap_or_default()
            }
            None => v.to_string(),
        }
    }

    // ---- scheduler ----

    /// Schedules a call `delay_ms` from now; `method` calls `func` on `object`.
    pub fn schedule_event(
        &mut self,
        delay_ms: u64,
        object: Option<ObjectId>,
        func: &str,
        args: Vec<Value>,
        method: bool,
    ) -> u32 {
        if self.events.len() >= MAX_SCHEDULED_EVENTS {
            self.error(&format!(
                "schedule: {MAX_SCHEDULED_EVENTS} events are already queued; {func} not scheduled"
            ));
            return 0;
        }
        let id = self.next_event_id;
        self.next_event_id = self.next_event_id.wrapping_add(1).max(1);
        let key = (self.sim_time.saturating_add(delay_ms), self.event_seq);
        self.event_seq += 1;
        let f = self.names.intern(func);
        self.events.insert(key, Event { id, object, func: f, args, method });
        self.event_index.insert(id, key);
        id
    }

    /// Cancels a scheduled event.
    pub fn cancel_event(&mut self, id: u32) -> bool {
        match self.event_index.remove(&id) {
            Some(k) => self.events.remove(&k).is_some(),
            None => false,
        }
    }

    /// True while the event has not fired or been cancelled.
    pub fn is_event_pending(&self, id: u32) -> bool {
        self.event_index.contains_key(&id)
    }

    /// Simulated time in milliseconds.
    pub fn sim_time(&self) -> u64 {
        self.sim_time
    }

    /// When the next event is due, if any.
    pub fn next_event_time(&self) -> Option<u64> {
        self.events.keys().next().map(|k| k.0)
    }

    pub(crate) fn cancel_events_of(&mut self, obj: ObjectId) {
        let ids: Vec<u32> = self.events.values().filter(|e| e.object == Some(obj)).map(|e| e.id).collect();
        for id in ids {
            self.cancel_event(id);
        }
    }

    /// Advances the simulated clock, firing due events in time order. Returns how many fired.
    pub fn advance_time(&mut self, ms: u64) -> usize {
        let target = self.sim_time.saturating_add(ms);
        let mut fired = 0;
        // Only what was queued before this call: an event scheduled while events fire (even
        // `schedule(0, 0, f)` from inside `f`) waits for the next frame, so a script cannot
        // keep the frame from ending.
        let due: Vec<(u64, u64)> = self.events.range(..=(target, u64::MAX)).map(|(k, _)| *k).collect();
        for key in due {
            if self.quit {
                break;
            }
            let Some(ev) = self.events.remove(&key) else { continue };
            self.event_index.remove(&ev.id);
            self.sim_time = key.0;
            fired += 1;
            let fname = self.names.text(ev.func).to_string();
            if ev.method {
                if let Some(obj) = ev.object {
                    let this = Value::Int(i64::from(obj));
                    self.run_callback(&fname, |c| c.call_method(&this, &fname, &ev.args));
                }
            } else {
                if let Some(obj) = ev.object
                    && !self.objects.contains_key(&obj)
                {
                    continue;
                }
                self.run_callback(&fname, |c| c.call_function(&fname, &ev.args));
            }
        }
        if !self.quit {
            self.sim_time = target;
        }
        fired
    }

    fn next_random(&mut self) -> u32 {
        // PCG-XSH-RR 64/32: small, seedable, deterministic.
        let old = self.rng_state;
        self.rng_state = old.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let xorshifted = (((old >> 18) ^ old) >> 27) as u32;
        let rot = (old >> 59) as u32;
        xorshifted.rotate_right(rot)
    }

    /// Seeds `getRandom`.
    pub fn set_random_seed(&mut self, seed: u64) {
        self.rng_state = seed.wrapping_mul(2862933555777941757).wrapping_add(3037000493);
        self.next_random();
    }
}

fn this_id(a: &CallArgs<'_>) -> ObjectId {
    a.this.unwrap_or(0)
}

fn vec3(s: &str) -> [f64; 3] {
    let mut out = [0.0; 3];
    for (i, slot) in out.iter_mut().enumerate() {
        *slot = crate::value::atof(get_unit(s, i, WORD_SEP));
    }
    out
}

fn vec_text(v: [f64; 3]) -> String {
    format!("{} {} {}", fmt_num(v[0]), fmt_num(v[1]), fmt_num(v[2]))
}

use crate::files::wildcard;

/// Expands `\n`, `\t`, `\\`, `\xHH` and colour codes in text (`collapseEscape`).
pub fn collapse_escape(s: &str) -> String {
    let mut out = String::new();
    let mut it = s.chars().peekable();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('x') => {
                let mut v = 0u32;
                let mut n = 0;
                while n < 2 {
                    match it.peek().and_then(|c| c.to_digit(16)) {
                        Some(d) => {
                            v = v * 16 + d;
                            it.next();
                            n += 1;
                        }
                        None => break,
                    }
                }
                out.push(char::from_u32(v).unwrap_or('?'));
            }
            Some('c') => match it.next() {
                Some(d @ '0'..='6') => out.push(char::from_u32(2 + (d as u32 - '0' as u32)).unwrap_or('?')),
                Some('7') => out.push('\u{b}'),
                Some('8') => out.push('\u{c}'),
                Some('9') => out.push('\u{e}'),
                Some('r') => out.push('\u{f}'),
                Some('p') => out.push('\u{10}'),
                Some('o') => out.push('\u{11}'),
                Some(o) => {
                    out.push('c');
                    out.push(o);
                }
                None => out.push('c'),
            },
            Some(o) => out.push(o),
            None => out.push('\\'),
        }
    }
    out
}

/// The inverse of [`collapse_escape`] (`expandEscape`).
pub fn expand_escape(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\'' => out.push_str("\\'"),
            c if (c as u32) < 0x20 => {
                let code = match c as u32 {
                    v @ 2..=8 => Some(char::from_digit(v - 2, 10).unwrap_or('0')),
                    0x0B => Some('7'),
                    0x0C => Some('8'),
                    0x0E => Some('9'),
                    0x0F => Some('r'),
                    0x10 => Some('p'),
                    0x11 => Some('o'),
                    _ => None,
                };
                match code {
                    Some(d) => {
                        out.push_str("\\c");
                        out.push(d);
                    }
                    None => out.push_str(&format!("\\x{:02x}", c as u32)),
                }
            }
            c => out.push(c),
        }
    }
    out
}

fn substr(s: &str, start: i64, len: i64) -> String {
    let b = s.as_bytes();
    let st = start.clamp(0, b.len() as i64) as usize;
    let l = len.max(0) as usize;
    let en = st.saturating_add(l).min(b.len());
    String::from_utf8_lossy(&b[st..en]).into_owned()
}

fn find_bytes(h: &[u8], n: &[u8], from: usize) -> Option<usize> {
    if n.is_empty() {
        return (from <= h.len()).then_some(from);
    }
    if from > h.len() {
        return None;
    }
    h[from..].windows(n.len()).position(|w| w == n).map(|p| p + from)
}

/// Registers every built-in function and method, topic by topic.
pub(crate) fn register(c: &mut Console) {
    output::register(c);
    time::register(c);
    strings::register(c);
    words::register(c);
    math::register(c);
    files::register(c);
    objects::register(c);
}

impl Console {
    /// Writes a file inside the file root.
    pub(crate) fn write_file(&mut self, path: &str, text: &str, append: bool) -> bool {
        let Some(full) = self.resolve_path(path) else { return false };
        if let Some(dir) = full.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        if append {
            use std::io::Write;
            match std::fs::OpenOptions::new().append(true).create(true).open(&full) {
                Ok(mut f) => f.write_all(text.as_bytes()).is_ok(),
                Err(_) => false,
            }
        } else {
            std::fs::write(&full, text).is_ok()
        }
    }

    /// Sets a local variable of the calling script function (for `nextToken`).
    pub(crate) fn set_caller_local(&mut self, name: crate::Name, v: Value) {
        let Some(top) = self.frames.len().checked_sub(1) else { return };
        let f = &self.frames[top];
        let fi = if f.func.toplevel { f.eval_scope } else { Some(top) };
        let Some(fi) = fi else {
            let t = self.names.text(name).to_string();
            self.error(&format!("nextToken: local variable %{t} used outside a function"));
            return;
        };
        let f = &mut self.frames[fi];
        if let Some(&slot) = f.func.local_slots.get(&name) {
            if let Some(s) = self.stack.get_mut(f.base + slot as usize) {
                *s = v;
            }
        } else {
            f.dyn_locals.get_or_insert_with(Default::default).insert(name, v);
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
        assert!(wildcard("pref*", "Pref::Foo"));
        assert!(!wildcard("a?c", "abd"));
    }
}
