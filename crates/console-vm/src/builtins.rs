//! Built-in console functions and the SimObject/SimSet methods, with their V12 behaviour.

use crate::console::{CallArgs, Console, Event};
use crate::object::{ClassKind, ObjectId};
use crate::output::Level;
use crate::value::{Value, fmt_num, format_g};
use std::rc::Rc;

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

fn wildcard(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.to_ascii_lowercase().chars().collect();
    let t: Vec<char> = text.to_ascii_lowercase().chars().collect();
    let (mut pi, mut ti, mut star, mut mark) = (0, 0, None, 0);
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    while pi < p.len() && p[pi] == '*' {
        pi += 1;
    }
    pi == p.len()
}

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

#[allow(clippy::too_many_lines)]
pub(crate) fn register(c: &mut Console) {
    // ---- output and control ----
    c.register_function("echo", 1, 0, "echo(text, ...)", |c, a| {
        let s: String = a.argv.iter().map(|v| v.to_string()).collect();
        c.print(Level::Normal, &s);
    });
    c.register_function("warn", 1, 0, "warn(text, ...)", |c, a| {
        let s: String = a.argv.iter().map(|v| v.to_string()).collect();
        c.print(Level::Warning, &s);
    });
    c.register_function("error", 1, 0, "error(text, ...)", |c, a| {
        let s: String = a.argv.iter().map(|v| v.to_string()).collect();
        c.print(Level::Error, &s);
    });
    c.register_function("eval", 2, 2, "eval(script)", |c, a| {
        let src = a.str(0).into_owned();
        c.eval_in_caller(&src)
    });
    c.register_function("exec", 2, 4, "exec(fileName)", |c, a| {
        let f = a.str(0).into_owned();
        match c.exec_file(&f) {
            Ok(_) => true,
            Err(crate::ConsoleError::Syntax(_)) => false,
            Err(e) => {
                let loc = c.location();
                c.error(&format!("{loc}{e}"));
                false
            }
        }
    });
    c.register_function("call", 2, 0, "call(funcName, args...)", |c, a| {
        let f = a.str(0).into_owned();
        c.call_function(&f, &a.argv[1..])
    });
    c.register_function("trace", 2, 2, "trace(bool)", |c, a| {
        c.trace = a.bool(0);
        c.echo(&format!("Console trace is {}", if c.trace { "on" } else { "off" }));
    });
    c.register_function("tree", 1, 2, "tree([object])", |c, a| {
        let root = if a.is_empty() { Some(crate::object::ROOT_GROUP_ID) } else { c.find_object(&a.get(0)) };
        if let Some(r) = root {
            for l in c.tree_lines(r) {
                c.echo(&l);
            }
        }
    });
    c.register_function("quit", 1, 1, "quit()", |c, _a| {
        c.quit = true;
    });
    c.register_function("isObject", 2, 2, "isObject(object)", |c, a| c.find_object(&a.get(0)).is_some());
    c.register_function("nameToID", 2, 2, "nameToID(objectName)", |c, a| match c.find_object(&a.get(0)) {
        Some(id) => Value::Int(i64::from(id)),
        None => Value::Int(-1),
    });
    c.register_function("isFunction", 2, 2, "isFunction(funcName)", |c, a| {
        let f = a.str(0).into_owned();
        c.is_function(&f)
    });
    c.register_function("isPackage", 2, 2, "isPackage(packageName)", |c, a| c.is_package(&a.str(0)));
    c.register_function("activatePackage", 2, 2, "activatePackage(packageName)", |c, a| {
        let p = a.str(0).into_owned();
        c.activate_package(&p);
    });
    c.register_function("deactivatePackage", 2, 2, "deactivatePackage(packageName)", |c, a| {
        let p = a.str(0).into_owned();
        c.deactivate_package(&p);
    });
    c.register_function("deleteVariables", 2, 2, "deleteVariables(wildCard)", |c, a| {
        let pat = a.str(0).trim_start_matches('$').to_string();
        for i in 0..c.globals.len() {
            if !c.globals[i].is_empty() && wildcard(&pat, c.names.text(crate::Name(i as u32))) {
                c.globals[i] = Value::Empty;
            }
        }
    });
    c.register_function("export", 2, 4, "export(searchString [, fileName [, append]])", |c, a| {
        let pat = a.str(0).trim_start_matches('$').to_string();
        let mut lines: Vec<String> = Vec::new();
        for i in 0..c.globals.len() {
            let n = c.names.text(crate::Name(i as u32));
            if !c.globals[i].is_empty() && wildcard(&pat, n) {
                let mut q = String::new();
                crate::ast::quote(&c.globals[i].as_text(), '"', &mut q);
                lines.push(format!("${n} = {q};"));
            }
        }
        lines.sort_by_key(|l| l.to_ascii_lowercase());
        if a.len() >= 2 && !a.str(1).is_empty() {
            let f = a.str(1).into_owned();
            let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
            let ok = c.write_file(&f, &text, a.bool(2));
            if !ok {
                c.error(&format!("export: unable to write {f}"));
            }
        } else {
            for l in lines {
                c.echo(&l);
            }
        }
    });

    // ---- scheduler ----
    c.register_function("schedule", 4, 0, "schedule(time, refobject|0, command, <arg1...argN>)", |c, a| {
        let delay = a.f64(0).max(0.0) as u64;
        let obj = c.find_object(&a.get(1));
        let f = a.str(2).into_owned();
        let args = a.argv[3..].to_vec();
        Value::Int(i64::from(c.schedule_event(delay, obj, &f, args, false)))
    });
    c.register_function("cancel", 2, 2, "cancel(eventId)", |c, a| {
        c.cancel_event(a.i32(0) as u32);
    });
    c.register_function("isEventPending", 2, 2, "isEventPending(eventId)", |c, a| {
        c.is_event_pending(a.i32(0) as u32)
    });
    c.register_function("getSimTime", 1, 1, "getSimTime()", |c, _a| Value::Int(c.sim_time as i64));
    c.register_function("getRandom", 1, 3, "getRandom([min,] [max])", |c, a| {
        let r = c.next_random();
        match a.len() {
            0 => Value::Float(f64::from(r) / 4294967296.0),
            n => {
                let (lo, hi) = if n == 1 { (0, a.i32(0)) } else { (a.i32(0), a.i32(1)) };
                let (lo, hi) = (i64::from(lo.min(hi)), i64::from(lo.max(hi)));
                let span = (hi - lo + 1) as u64;
                Value::Int(lo + (u64::from(r) % span) as i64)
            }
        }
    });
    c.register_function("setRandomSeed", 1, 2, "setRandomSeed([seed])", |c, a| {
        let seed = if a.is_empty() { 0 } else { a.get(0).to_i64() as u64 };
        c.set_random_seed(seed);
    });

    // ---- strings ----
    c.register_function("strlen", 2, 2, "strlen(string)", |_c, a| Value::Int(a.str(0).len() as i64));
    c.register_function("strupr", 2, 2, "strupr(string)", |_c, a| a.str(0).to_ascii_uppercase());
    c.register_function("strlwr", 2, 2, "strlwr(string)", |_c, a| a.str(0).to_ascii_lowercase());
    c.register_function("strcmp", 3, 3, "strcmp(string one, string two)", |_c, a| {
        Value::Int(a.str(0).cmp(&a.str(1)) as i64)
    });
    c.register_function("stricmp", 3, 3, "stricmp(string one, string two)", |_c, a| {
        Value::Int(a.str(0).to_ascii_lowercase().cmp(&a.str(1).to_ascii_lowercase()) as i64)
    });
    c.register_function("strstr", 3, 3, "strstr(string one, string two)", |_c, a| {
        match find_bytes(a.str(0).as_bytes(), a.str(1).as_bytes(), 0) {
            Some(i) => Value::Int(i as i64),
            None => Value::Int(-1),
        }
    });
    c.register_function("strpos", 3, 4, "strpos(string haystack, string needle, [int offset])", |_c, a| {
        let off = a.i32(2).max(0) as usize;
        match find_bytes(a.str(0).as_bytes(), a.str(1).as_bytes(), off) {
            Some(i) => Value::Int(i as i64),
            None => Value::Int(-1),
        }
    });
    c.register_function("strchr", 3, 3, "strchr(string, char)", |_c, a| {
        let s = a.str(0);
        let ch = a.str(1).chars().next();
        match ch.and_then(|ch| s.find(ch)) {
            Some(i) => Value::str(&s[i..]),
            None => Value::Empty,
        }
    });
    c.register_function("strreplace", 4, 4, "strreplace(source, from, to)", |c, a| {
        let (src, from, to) = (a.str(0), a.str(1), a.str(2));
        if from.is_empty() {
            return a.get(0);
        }
        if to.len() > from.len() {
            let n = src.matches(&*from).count();
            if src.len().saturating_add(n.saturating_mul(to.len() - from.len()))
                > crate::value::MAX_STRING_LEN
            {
                c.error(&format!(
                    "strreplace: the result would be over {} bytes; unchanged",
                    crate::value::MAX_STRING_LEN
                ));
                return a.get(0);
            }
        }
        Value::str(src.replace(&*from, &to))
    });
    c.register_function("getSubStr", 4, 4, "getSubStr(string, start, numChars)", |_c, a| {
        substr(&a.str(0), i64::from(a.i32(1)), i64::from(a.i32(2)))
    });
    c.register_function("trim", 2, 2, "trim(string)", |_c, a| {
        a.str(0).trim_matches([' ', '\t', '\n', '\r']).to_string()
    });
    c.register_function("ltrim", 2, 2, "ltrim(string)", |_c, a| {
        a.str(0).trim_start_matches([' ', '\t', '\n', '\r']).to_string()
    });
    c.register_function("rtrim", 2, 2, "rtrim(string)", |_c, a| {
        a.str(0).trim_end_matches([' ', '\t', '\n', '\r']).to_string()
    });
    c.register_function("stripChars", 3, 3, "stripChars(string, chars)", |_c, a| {
        let chars = a.str(1);
        a.str(0).chars().filter(|c| !chars.contains(*c)).collect::<String>()
    });
    c.register_function("collapseEscape", 2, 2, "collapseEscape(text)", |_c, a| collapse_escape(&a.str(0)));
    c.register_function("expandEscape", 2, 2, "expandEscape(text)", |_c, a| expand_escape(&a.str(0)));
    c.register_function("addTaggedString", 2, 2, "addTaggedString(string)", |c, a| {
        let s = a.str(0).into_owned();
        c.add_tagged_string(&s)
    });
    c.register_function("getTaggedString", 2, 2, "getTaggedString(tag)", |c, a| c.tagged_string(&a.str(0)));
    c.register_function("removeTaggedString", 2, 2, "removeTaggedString(tag)", |c, a| {
        let t = a.str(0);
        let id = crate::value::atoi(t.strip_prefix('\u{1}').unwrap_or(&t));
        c.remove_tagged_string(u32::try_from(id).unwrap_or(0))
    });
    c.register_function("detag", 2, 2, "detag(string)", |c, a| c.tagged_string(&a.str(0)));
    c.register_function("nextToken", 4, 4, "nextToken(str, tokenVar, delim)", |c, a| {
        let s = a.str(0).into_owned();
        let delim = a.str(2).into_owned();
        let is_d = |ch: char| delim.contains(ch);
        let rest = s.trim_start_matches(is_d);
        let end = rest.find(is_d).unwrap_or(rest.len());
        let token = rest[..end].to_string();
        let remain = rest[end..].trim_start_matches(is_d).to_string();
        let var = a.str(1).trim_start_matches('%').to_string();
        let n = c.names.intern(&var);
        c.set_caller_local(n, Value::str(token));
        remain
    });

    // Words, fields and records.
    for (kind, set) in [("Word", WORD_SEP), ("Field", FIELD_SEP), ("Record", RECORD_SEP)] {
        c.register_function(&format!("get{kind}"), 3, 3, &format!("get{kind}(text, index)"), move |c, a| {
            let i = a.i32(1);
            if i < 0 { Value::Empty } else { c.cached_word(&a.get(0), i as usize, set) }
        });
        c.register_function(
            &format!("get{kind}s"),
            3,
            4,
            &format!("get{kind}s(text, index [, endIndex])"),
            move |_c, a| {
                let st = a.i32(1).max(0) as usize;
                let en = if a.len() > 2 { a.i32(2).max(-1) } else { i32::MAX };
                if en < 0 {
                    return String::new();
                }
                get_units(&a.str(0), st, en as usize, set).to_string()
            },
        );
        c.register_function(
            &format!("get{kind}Count"),
            2,
            2,
            &format!("get{kind}Count(text)"),
            move |_c, a| Value::Int(unit_count(&a.str(0), set) as i64),
        );
        c.register_function(
            &format!("set{kind}"),
            4,
            4,
            &format!("set{kind}(text, index, replace)"),
            move |c, a| {
                let (text, index, value) = (a.str(0), a.i32(1).max(0) as usize, a.str(2));
                // Missing units are padded with one separator each: bound the result first.
                let grows = index.saturating_sub(unit_count(&text, set));
                if text.len().saturating_add(grows).saturating_add(value.len()) > crate::value::MAX_STRING_LEN
                {
                    c.error(&format!(
                        "set{kind}: index {index} would make a string over {} bytes; unchanged",
                        crate::value::MAX_STRING_LEN
                    ));
                    return a.get(0);
                }
                Value::str(set_unit(&text, index, &value, set))
            },
        );
        c.register_function(
            &format!("remove{kind}"),
            3,
            3,
            &format!("remove{kind}(text, index)"),
            move |_c, a| {
                if a.i32(1) < 0 {
                    a.get(0)
                } else {
                    Value::str(remove_unit(&a.str(0), a.i32(1) as usize, set))
                }
            },
        );
    }
    c.register_function("firstWord", 2, 2, "firstWord(text)", |_c, a| {
        get_unit(&a.str(0), 0, WORD_SEP).to_string()
    });
    c.register_function("restWords", 2, 2, "restWords(text)", |_c, a| {
        let s = a.str(0);
        match s.find([' ', '\t', '\n']) {
            Some(i) => s[i + 1..].to_string(),
            None => String::new(),
        }
    });

    // ---- math ----
    c.register_function("mFloor", 2, 2, "mFloor(float)", |_c, a| Value::Int(a.f64(0).floor() as i64));
    c.register_function("mCeil", 2, 2, "mCeil(float)", |_c, a| Value::Int(a.f64(0).ceil() as i64));
    c.register_function("mAbs", 2, 2, "mAbs(float)", |_c, a| a.f64(0).abs());
    c.register_function("mSqrt", 2, 2, "mSqrt(float)", |_c, a| a.f64(0).sqrt());
    c.register_function("mPow", 3, 3, "mPow(float, float)", |_c, a| a.f64(0).powf(a.f64(1)));
    c.register_function("mLog", 2, 2, "mLog(float)", |_c, a| a.f64(0).ln());
    c.register_function("mSin", 2, 2, "mSin(radians)", |_c, a| a.f64(0).sin());
    c.register_function("mCos", 2, 2, "mCos(radians)", |_c, a| a.f64(0).cos());
    c.register_function("mTan", 2, 2, "mTan(radians)", |_c, a| a.f64(0).tan());
    c.register_function("mAsin", 2, 2, "mAsin(float)", |_c, a| a.f64(0).asin());
    c.register_function("mAcos", 2, 2, "mAcos(float)", |_c, a| a.f64(0).acos());
    c.register_function("mAtan", 3, 3, "mAtan(y, x)", |_c, a| a.f64(0).atan2(a.f64(1)));
    c.register_function("mDegToRad", 2, 2, "mDegToRad(degrees)", |_c, a| a.f64(0).to_radians());
    c.register_function("mRadToDeg", 2, 2, "mRadToDeg(radians)", |_c, a| a.f64(0).to_degrees());
    c.register_function("mFloatLength", 3, 3, "mFloatLength(float, numDecimals)", |_c, a| {
        let n = a.i32(1).clamp(0, 9) as usize;
        format!("{:.*}", n, a.f64(0))
    });

    // ---- vectors ----
    c.register_function("VectorAdd", 3, 3, "VectorAdd(a, b)", |_c, a| {
        let (x, y) = (vec3(&a.str(0)), vec3(&a.str(1)));
        vec_text([x[0] + y[0], x[1] + y[1], x[2] + y[2]])
    });
    c.register_function("VectorSub", 3, 3, "VectorSub(a, b)", |_c, a| {
        let (x, y) = (vec3(&a.str(0)), vec3(&a.str(1)));
        vec_text([x[0] - y[0], x[1] - y[1], x[2] - y[2]])
    });
    c.register_function("VectorScale", 3, 3, "VectorScale(a, scalar)", |_c, a| {
        let (x, s) = (vec3(&a.str(0)), a.f64(1));
        vec_text([x[0] * s, x[1] * s, x[2] * s])
    });
    c.register_function("VectorDot", 3, 3, "VectorDot(a, b)", |_c, a| {
        let (x, y) = (vec3(&a.str(0)), vec3(&a.str(1)));
        x[0] * y[0] + x[1] * y[1] + x[2] * y[2]
    });
    c.register_function("VectorCross", 3, 3, "VectorCross(a, b)", |_c, a| {
        let (x, y) = (vec3(&a.str(0)), vec3(&a.str(1)));
        vec_text([x[1] * y[2] - x[2] * y[1], x[2] * y[0] - x[0] * y[2], x[0] * y[1] - x[1] * y[0]])
    });
    c.register_function("VectorLen", 2, 2, "VectorLen(a)", |_c, a| {
        let x = vec3(&a.str(0));
        (x[0] * x[0] + x[1] * x[1] + x[2] * x[2]).sqrt()
    });
    c.register_function("VectorDist", 3, 3, "VectorDist(a, b)", |_c, a| {
        let (x, y) = (vec3(&a.str(0)), vec3(&a.str(1)));
        let d = [x[0] - y[0], x[1] - y[1], x[2] - y[2]];
        (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt()
    });
    c.register_function("VectorNormalize", 2, 2, "VectorNormalize(a)", |_c, a| {
        let x = vec3(&a.str(0));
        let l = (x[0] * x[0] + x[1] * x[1] + x[2] * x[2]).sqrt();
        if l == 0.0 { vec_text([0.0, 0.0, 1.0]) } else { vec_text([x[0] / l, x[1] / l, x[2] / l]) }
    });

    // ---- files (confined to the file root) ----
    c.register_function("isFile", 2, 2, "isFile(fileName)", |c, a| {
        c.resolve_path(&a.str(0)).is_some_and(|p| p.is_file())
    });
    c.register_function("fileBase", 2, 2, "fileBase(fileName)", |_c, a| {
        let s = a.str(0);
        let name = s.rsplit(['/', '\\']).next().unwrap_or("");
        match name.rfind('.') {
            Some(i) => name[..i].to_string(),
            None => name.to_string(),
        }
    });
    c.register_function("fileName", 2, 2, "fileName(fileName)", |_c, a| {
        a.str(0).rsplit(['/', '\\']).next().unwrap_or("").to_string()
    });
    c.register_function("fileExt", 2, 2, "fileExt(fileName)", |_c, a| {
        let s = a.str(0);
        let name = s.rsplit(['/', '\\']).next().unwrap_or("");
        match name.rfind('.') {
            Some(i) => name[i..].to_string(),
            None => String::new(),
        }
    });
    c.register_function("filePath", 2, 2, "filePath(fileName)", |_c, a| {
        let s = a.str(0);
        match s.rfind(['/', '\\']) {
            Some(i) => s[..i].to_string(),
            None => String::new(),
        }
    });
    c.register_function("expandFilename", 2, 2, "expandFilename(fileName)", |c, a| {
        let s = a.str(0).into_owned();
        let s = s.strip_prefix("~/").map(|r| r.to_string()).unwrap_or(s);
        if let Some(rest) = s.strip_prefix("./") {
            let dir = c
                .file_stack
                .last()
                .and_then(|p| p.parent())
                .and_then(|d| c.file_root.as_ref().and_then(|r| d.strip_prefix(r).ok()))
                .map(|d| d.to_string_lossy().into_owned())
                .unwrap_or_default();
            if dir.is_empty() { rest.to_string() } else { format!("{dir}/{rest}") }
        } else {
            s
        }
    });

    // ---- SimObject methods ----
    c.register_method("SimObject", "getId", 2, 2, "obj.getId()", |_c, a| Value::Int(i64::from(this_id(a))));
    c.register_method("SimObject", "getName", 2, 2, "obj.getName()", |c, a| c.object_name(this_id(a)));
    c.register_method("SimObject", "setName", 3, 3, "obj.setName(newName)", |c, a| {
        let n = a.str(1).into_owned();
        c.set_object_name(this_id(a), &n);
    });
    c.register_method("SimObject", "getClassName", 2, 2, "obj.getClassName()", |c, a| {
        c.class_name_of(this_id(a))
    });
    c.register_method("SimObject", "getGroup", 2, 2, "obj.getGroup()", |c, a| {
        match c.object(this_id(a)).and_then(|o| o.group) {
            Some(g) => Value::Int(i64::from(g)),
            None => Value::Int(-1),
        }
    });
    c.register_method("SimObject", "delete", 2, 2, "obj.delete()", |c, a| {
        c.delete_object(this_id(a));
    });
    c.register_method("SimObject", "dump", 2, 2, "obj.dump()", |c, a| {
        for l in c.dump_lines(this_id(a)) {
            c.echo(&l);
        }
    });
    c.register_method("SimObject", "save", 3, 3, "obj.save(fileName)", |c, a| {
        let depth = c.group_nesting(this_id(a));
        if depth > crate::object::MAX_SAVE_NESTING {
            c.error(&format!(
                "save: groups nested {depth} deep; exec reads back at most {} (nothing written)",
                crate::object::MAX_SAVE_NESTING
            ));
            return Value::from(false);
        }
        let text = c.save_object_text(this_id(a));
        let f = a.str(1).into_owned();
        Value::from(c.write_file(&f, &text, false))
    });
    c.register_method("SimObject", "isMethod", 3, 3, "obj.isMethod(name)", |c, a| {
        let id = this_id(a);
        let n = c.names.intern(&a.str(1));
        let ns = c.object(id).map(|o| o.ns);
        ns.is_some_and(|ns| c.resolve(ns, n).is_some())
    });
    c.register_method("SimObject", "call", 3, 0, "obj.call(methodName, args...)", |c, a| {
        let m = a.str(1).into_owned();
        c.call_method(&a.get(0), &m, &a.argv[2..])
    });
    c.register_method("SimObject", "schedule", 4, 0, "obj.schedule(time, command, <arg1...argN>)", |c, a| {
        let delay = a.f64(1).max(0.0) as u64;
        let m = a.str(2).into_owned();
        let args = a.argv[3..].to_vec();
        Value::Int(i64::from(c.schedule_event(delay, Some(this_id(a)), &m, args, true)))
    });

    // ---- SimSet / SimGroup methods ----
    c.register_method("SimSet", "add", 3, 0, "set.add(obj1,...)", |c, a| {
        for v in &a.argv[1..] {
            match c.find_object(v) {
                Some(o) => {
                    c.set_add(this_id(a), o);
                }
                None => {
                    let loc = c.location();
                    c.warn(&format!("{loc}Set::add: Object \"{v}\" doesn't exist"));
                }
            }
        }
    });
    c.register_method("SimSet", "remove", 3, 0, "set.remove(obj1,...)", |c, a| {
        for v in &a.argv[1..] {
            if let Some(o) = c.find_object(v)
                && !c.set_remove(this_id(a), o)
            {
                let loc = c.location();
                c.warn(&format!("{loc}Set::remove: Object \"{v}\" does not exist in set"));
            }
        }
    });
    c.register_method("SimSet", "getCount", 2, 2, "set.getCount()", |c, a| {
        Value::Int(c.object(this_id(a)).map(|o| o.members.len()).unwrap_or(0) as i64)
    });
    c.register_method("SimSet", "getObject", 3, 3, "set.getObject(objIndex)", |c, a| {
        let i = a.i32(1);
        let m = c
            .object(this_id(a))
            .and_then(|o| usize::try_from(i).ok().and_then(|i| o.members.get(i).copied()));
        match m {
            Some(id) => Value::Int(i64::from(id)),
            None => {
                let loc = c.location();
                c.warn(&format!("{loc}Set::getObject - index out of range."));
                Value::Int(-1)
            }
        }
    });
    c.register_method("SimSet", "isMember", 3, 3, "set.isMember(object)", |c, a| {
        let o = c.find_object(&a.get(1));
        o.is_some_and(|o| c.object(this_id(a)).is_some_and(|s| s.members.contains(&o)))
    });
    c.register_method("SimSet", "clear", 2, 2, "set.clear()", |c, a| {
        let id = this_id(a);
        let members = c.object(id).map(|o| o.members.clone()).unwrap_or_default();
        let group = c.object(id).is_some_and(|o| c.classes[o.class as usize].kind == ClassKind::Group);
        for m in members {
            if group {
                c.delete_object(m);
            } else {
                c.set_remove(id, m);
            }
        }
    });
    c.register_method("SimSet", "listObjects", 2, 2, "set.listObjects()", |c, a| {
        let members = c.object(this_id(a)).map(|o| o.members.clone()).unwrap_or_default();
        for m in members {
            let line = format!("   {m},\"{}\": {}", c.object_name(m), c.class_name_of(m));
            c.echo(&line);
        }
    });
    c.register_method("SimSet", "bringToFront", 3, 3, "set.bringToFront(object)", |c, a| {
        if let Some(o) = c.find_object(&a.get(1))
            && let Some(s) = c.object_mut(this_id(a))
            && let Some(p) = s.members.iter().position(|&m| m == o)
        {
            s.members.remove(p);
            s.members.insert(0, o);
        }
    });
    c.register_method("SimSet", "pushToBack", 3, 3, "set.pushToBack(object)", |c, a| {
        if let Some(o) = c.find_object(&a.get(1))
            && let Some(s) = c.object_mut(this_id(a))
            && let Some(p) = s.members.iter().position(|&m| m == o)
        {
            s.members.remove(p);
            s.members.push(o);
        }
    });
    let _ = format_g;
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
