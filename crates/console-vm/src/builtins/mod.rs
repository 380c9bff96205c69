//! Built-in console functions and the SimObject/SimSet methods, with their V12 behaviour.

use crate::console::{CallArgs, Console, ConsoleConfig};
use crate::object::{ClassKind, ObjectId};
use crate::output::Level;
use crate::scheduler::MAX_SCHEDULED_EVENTS;
use crate::units::{FIELD_SEP, RECORD_SEP, WORD_SEP, get_unit, get_units, remove_unit, set_unit, unit_count};
use crate::value::Value;

/// Registers a global function whose body reads only its arguments (`|_c, a| body`, as
/// `register_function` takes it, with the console unused) as pure: the fast loop calls it in
/// place (see `Console::register_pure`).
macro_rules! pure_fn {
    ($c:expr, $name:expr, $min:expr, $max:expr, $usage:expr, |_c, $a:ident| $body:expr) => {
        $c.register_pure($name, $min, $max, $usage, |_w, argv| {
            let $a = &CallArgs { this: None, argv };
            Value::from($body)
        })
    };
}

mod files;
mod math;
mod objects;
mod output;
mod strings;
mod time;
mod words;

impl Console {
    // ---- tagged strings ----

    /// Registers `text` in the string table and returns its tag value (byte 0x01 then the number).
    pub fn add_tagged_string(&mut self, text: &str) -> Value {
        self.add_tagged_string_new(text).0
    }

    /// [`Self::add_tagged_string`], also saying whether this call made the tag (its id), so
    /// a host can free what one connection added when it goes.
    pub fn add_tagged_string_new(&mut self, text: &str) -> (Value, Option<u32>) {
        let (id, new) = self.tags.add(text);
        (Value::str(format!("\u{1}{id}")), new.then_some(id))
    }

    /// Frees a tag (`removeTaggedString`): its text leaves the table and the id may be
    /// reused. False when the id is not in use.
    pub fn remove_tagged_string(&mut self, id: u32) -> bool {
        self.tags.remove(id)
    }

    /// Tags in use.
    pub fn tagged_string_count(&self) -> usize {
        self.tags.len()
    }

    /// The text of a tag value (or the value itself when it is not a tag).
    pub fn tagged_string(&self, v: &str) -> String {
        match v.strip_prefix('\u{1}') {
            Some(num) => self.tags.text(crate::value::atoi(num)).to_string(),
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
        let f = self.names.intern(func);
        match self.scheduler.schedule(delay_ms, object, f, args, method) {
            Some(id) => id,
            None => {
                self.error(&format!(
                    "schedule: {MAX_SCHEDULED_EVENTS} events are already queued; {func} not scheduled"
                ));
                0
            }
        }
    }

    /// Cancels a scheduled event.
    pub fn cancel_event(&mut self, id: u32) -> bool {
        self.scheduler.cancel(id)
    }

    /// True while the event has not fired or been cancelled.
    pub fn is_event_pending(&self, id: u32) -> bool {
        self.scheduler.is_pending(id)
    }

    /// Simulated time in milliseconds.
    pub fn sim_time(&self) -> u64 {
        self.scheduler.now()
    }

    /// When the next event is due, if any.
    pub fn next_event_time(&self) -> Option<u64> {
        self.scheduler.next_time()
    }

    /// Advances the simulated clock, firing due events in time order. Returns how many fired.
    pub fn advance_time(&mut self, ms: u64) -> usize {
        // The script debugger's commands (set breakpoints, ...) are served once a frame.
        self.debugger_poll();
        let target = self.scheduler.now().saturating_add(ms);
        let mut fired = 0;
        // Only what was queued before this call: an event scheduled while events fire (even
        // `schedule(0, 0, f)` from inside `f`) waits for the next frame, so a script cannot
        // keep the frame from ending.
        for key in self.scheduler.due_by(target) {
            if self.quit {
                break;
            }
            let Some(ev) = self.scheduler.take(key) else { continue };
            fired += 1;
            let fname = self.names.text(ev.func).to_string();
            if ev.method {
                if let Some(obj) = ev.object {
                    let this = Value::Int(i64::from(obj));
                    self.run_callback(&fname, |c| c.call_method(&this, &fname, &ev.args));
                }
            } else {
                if let Some(obj) = ev.object
                    && !self.objects.contains(obj)
                {
                    continue;
                }
                self.run_callback(&fname, |c| c.call_function(&fname, &ev.args));
            }
        }
        if !self.quit {
            self.scheduler.set_now(target);
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

/// The first three words of `s` as numbers (a missing word is 0), in one pass: each word's
/// number read in place (`atof_len`, which stops where the number does), then the rest of
/// the word skipped.
fn vec3(s: &str) -> [f64; 3] {
    let is_sep = |b: &u8| matches!(b, b' ' | b'\t' | b'\n');
    let mut out = [0.0; 3];
    let mut from = 0;
    for slot in out.iter_mut() {
        let rest = s.get(from..).unwrap_or_default();
        let read = match rest.as_bytes().first() {
            // `atof` skips white space, separators included: a word of its own first.
            Some(b'\r') => {
                let len = rest.bytes().position(|b| is_sep(&b)).unwrap_or(rest.len());
                *slot = crate::value::atof(rest.get(..len).unwrap_or_default());
                len
            }
            Some(b) if is_sep(b) => 0,
            _ => {
                let (v, used) = crate::value::atof_len(rest);
                *slot = v;
                used
            }
        };
        let tail = rest.as_bytes().get(read..).unwrap_or_default();
        let len = read + tail.iter().position(is_sep).unwrap_or(tail.len());
        if len >= rest.len() {
            break;
        }
        from += len + 1;
    }
    out
}

/// A vector's text: its three numbers as V12 prints them, between spaces.
fn vec_text(v: [f64; 3]) -> String {
    let mut s = String::with_capacity(32);
    crate::value::format_g(v[0], &mut s);
    s.push(' ');
    crate::value::format_g(v[1], &mut s);
    s.push(' ');
    crate::value::format_g(v[2], &mut s);
    s
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

impl Console {
    /// A console with the built-in classes and functions, printing to stdout/stderr.
    pub fn new() -> Self {
        Self::with_config(ConsoleConfig::default())
    }

    /// A console with explicit settings. Built here, above the core and its library, so the
    /// core (`Console::bare`) does not depend on the functions registered into it.
    pub fn with_config(config: ConsoleConfig) -> Self {
        let mut c = Console::bare(config);
        crate::sim_manager::register_builtin_classes(&mut c);
        register(&mut c);
        c
    }
}

impl Default for Console {
    fn default() -> Self {
        Self::new()
    }
}

/// Registers every built-in function and method, topic by topic.
fn register(c: &mut Console) {
    output::register(c);
    time::register(c);
    strings::register(c);
    words::register(c);
    math::register(c);
    files::register(c);
    objects::register(c);
    crate::debugger::register(c);
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
    pub(crate) fn set_caller_local(&mut self, name: crate::intern::Name, v: Value) {
        let t = self.names.text(name).to_string();
        self.store_local_text(&t, v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `vec3` reads the words `get_unit` finds (empty words, missing ones and words with
    /// text after the number read as `atof` reads them), and `vec_text` prints each number
    /// as `fmt_num` does.
    #[test]
    fn vectors_read_and_print_as_units_and_numbers_do() {
        for s in [
            "1 2 3",
            "1  2 3",
            "1 2",
            "",
            " 1 2 3",
            "1\t2\n3 4",
            "1.5e2 -0.25 7x",
            "a b c",
            "1 2 ",
            "-0 +5 .5",
            "\r 5 6",
            "1\r 2\r3 4",
            "1e 2e+ 3e-x",
            "x1 2x3",
        ] {
            let want: Vec<f64> = (0..3).map(|i| crate::value::atof(get_unit(s, i, WORD_SEP))).collect();
            assert_eq!(vec3(s).to_vec(), want, "{s:?}");
        }
        let v = [1234.5, -0.000_012_5, 1e21];
        let want = format!(
            "{} {} {}",
            crate::value::fmt_num(v[0]),
            crate::value::fmt_num(v[1]),
            crate::value::fmt_num(v[2])
        );
        assert_eq!(vec_text(v), want);
    }
}
