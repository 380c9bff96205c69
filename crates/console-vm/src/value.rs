//! Console values: numbers stay numbers until something reads them as text.

/// The longest string a script can make (16 MiB). Concatenation past it stops the script
/// with an error; `setWord`/`setField`/`setRecord` and `strreplace` refuse with an error and
/// return their input unchanged. It bounds what one call can allocate.
pub const MAX_STRING_LEN: usize = 16 * 1024 * 1024;
use std::fmt::Write as _;
use std::rc::Rc;

/// Whether an integer result of `+ - *` or a step may stay a [`Value::Int`]: its magnitude
/// is below 10^6, where a whole double prints as the integer does (`format_g`'s fast path:
/// `1000000` as a double prints `1e+06`) and indexes an array the same way. V12 computes
/// those operators in doubles; below this bound the integer is that double, exactly.
#[inline(always)]
pub fn keeps_int(r: i64) -> bool {
    r.wrapping_add(999_999) as u64 <= 1_999_998
}

/// A number read from a value for arithmetic: an integer as it is, anything else as its
/// double.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Num {
    /// A [`Value::Int`].
    Int(i64),
    /// Any other value, read as a double.
    Float(f64),
}

impl Num {
    /// The number of `v` (`None`: an unset slot, `0`).
    #[inline(always)]
    pub fn of(v: Option<&Value>) -> Num {
        // A double, then an integer, each one compare-and-branch; text out of line (as
        // `Value::to_f64`).
        match v {
            Some(Value::Float(f)) => Num::Float(*f),
            Some(Value::Int(i)) => Num::Int(*i),
            Some(v) => Num::Float(v.to_f64_other()),
            None => Num::Float(0.0),
        }
    }

    /// The number as a double.
    #[inline(always)]
    pub fn to_f64(self) -> f64 {
        match self {
            Num::Int(i) => i as f64,
            Num::Float(f) => f,
        }
    }
}

/// A console value. Every value can be read as text; numbers are formatted only when that happens.
///
/// Strings are `Rc<String>` (not `Rc<str>`) so that `%s = %s @ x` can append in place when the
/// variable holds the only reference, which makes string building linear instead of quadratic.
#[derive(Clone, Debug, Default)]
pub enum Value {
    /// The empty string (an unset variable).
    #[default]
    Empty,
    /// An integer (literals, ids, results of `% & | ^ << >> ~ !` and comparisons, and the
    /// fast loop's `+ - *` and steps of integers while [`keeps_int`] holds).
    Int(i64),
    /// A double (results of `+ - * /` otherwise), printed with C `%g`.
    Float(f64),
    /// Text.
    Str(Rc<String>),
}

impl Value {
    /// A string value.
    pub fn str(s: impl Into<String>) -> Self {
        let s = s.into();
        if s.is_empty() { Value::Empty } else { Value::Str(Rc::new(s)) }
    }

    /// Reads the value as a double (C `atof` for text).
    #[inline]
    pub fn to_f64(&self) -> f64 {
        // A double as one compare-and-branch; everything else out of line, so the VM's hot
        // path does not become a jump table on the tag.
        // An integer (a literal, an argument, a comparison's result) also inline: out of
        // line it was 5 % of the sieve (its bound is an integer argument).
        if let Value::Float(f) = self {
            *f
        } else if let Value::Int(i) = self {
            *i as f64
        } else {
            self.to_f64_other()
        }
    }

    #[inline(never)]
    fn to_f64_other(&self) -> f64 {
        match self {
            Value::Float(f) => *f,
            Value::Int(i) => *i as f64,
            Value::Str(s) => atof(s),
            Value::Empty => 0.0,
        }
    }

    /// Overwrites the value with a double. A string being replaced is dropped out of line,
    /// so no call sits on the path of a number (which would make the compiler keep the
    /// number in memory across it: the VM's arithmetic paths).
    #[inline(always)]
    pub fn set_f64(&mut self, x: f64) {
        if let Value::Str(_) = self {
            replace_cold(self, Value::Float(x));
        } else {
            std::mem::forget(std::mem::replace(self, Value::Float(x)));
        }
    }

    /// [`Value::set_f64`] for a slot that usually holds a double already (a local in a
    /// numeric loop): then only the number is written.
    #[inline(always)]
    pub fn store_f64(&mut self, x: f64) {
        if let Value::Float(f) = self { *f = x } else { self.set_f64(x) }
    }

    /// Replaces the value, read as a double, by `f` of it and returns the result: a double is
    /// updated in place with its tag checked once (a local in a numeric loop).
    #[inline(always)]
    pub fn update_f64(&mut self, f: impl FnOnce(f64) -> f64) -> f64 {
        if let Value::Float(x) = self {
            *x = f(*x);
            *x
        } else {
            let r = f(self.to_f64_other());
            self.set_f64(r);
            r
        }
    }

    /// Writes a number (see [`Value::set_int`] and [`Value::store_f64`]).
    #[inline(always)]
    pub fn set_num(&mut self, n: Num) {
        match n {
            Num::Int(i) => self.set_int(i),
            Num::Float(f) => self.store_f64(f),
        }
    }

    /// Adds the step `d` to the value read as a number (`%i++`, `%i += 2`) and returns the
    /// result as a double. An integer stays an integer while [`keeps_int`] holds (V12 steps
    /// in doubles: below that bound the integer is the same number), a double is updated in
    /// place, anything else becomes a double.
    #[inline(always)]
    pub fn step(&mut self, d: i32) -> f64 {
        if let Value::Int(n) = self {
            let m = n.wrapping_add(i64::from(d));
            if keeps_int(m) {
                *n = m;
                return m as f64;
            }
        }
        self.update_f64(|x| x + f64::from(d))
    }

    /// Overwrites the value with an integer (see [`Value::set_f64`]). Written out rather than
    /// shared with `set_f64` through a helper taking a `Value`: that helper built the value
    /// aside and copied it, which doubled the 1M-iteration loop's time (measured).
    #[inline(always)]
    pub fn set_int(&mut self, i: i64) {
        if let Value::Str(_) = self {
            replace_cold(self, Value::Int(i));
        } else {
            std::mem::forget(std::mem::replace(self, Value::Int(i)));
        }
    }

    /// Reads the value as a 32-bit integer, the way V12's integer operators do.
    #[inline]
    pub fn to_i32(&self) -> i32 {
        // An integer and a double inline, one compare-and-branch each, text out of line (as
        // `to_f64`): a `match` on all four tags made a jump table, a second indirect jump in
        // every integer operator besides the dispatch.
        if let Value::Int(i) = self {
            *i as i32
        } else if let Value::Float(f) = self {
            float_to_i32(*f)
        } else {
            self.to_i32_other()
        }
    }

    #[inline(never)]
    fn to_i32_other(&self) -> i32 {
        match self {
            Value::Empty => 0,
            Value::Int(i) => *i as i32,
            Value::Float(f) => float_to_i32(*f),
            Value::Str(s) => atoi(s) as i32,
        }
    }

    /// Reads the value as a 64-bit integer (used for ids and counts).
    pub fn to_i64(&self) -> i64 {
        match self {
            Value::Empty => 0,
            Value::Int(i) => *i,
            Value::Float(f) => {
                if f.is_finite() {
                    *f as i64
                } else {
                    0
                }
            }
            Value::Str(s) => atoi(s),
        }
    }

    /// Truth as a condition sees it: a non-zero number.
    #[inline]
    pub fn truthy(&self) -> bool {
        match self {
            Value::Empty => false,
            Value::Int(i) => *i != 0,
            Value::Float(f) => *f != 0.0,
            Value::Str(s) => atof(s) != 0.0,
        }
    }

    /// True for the empty string.
    pub fn is_empty(&self) -> bool {
        match self {
            Value::Empty => true,
            Value::Str(s) => s.is_empty(),
            _ => false,
        }
    }
    /// The length of this value as text, exactly for strings and at most 32 for numbers
    /// (used to refuse a concatenation past [`MAX_STRING_LEN`] before allocating).
    pub fn text_len_hint(&self) -> usize {
        match self {
            Value::Str(s) => s.len(),
            Value::Empty => 0,
            _ => 32,
        }
    }

    /// Appends the text form of the value to `out`.
    pub fn write_to(&self, out: &mut String) {
        match self {
            Value::Empty => {}
            Value::Int(i) => write_int(*i, out),
            Value::Float(f) => format_g(*f, out),
            Value::Str(s) => out.push_str(s),
        }
    }

    /// The text form. Borrowed when the value is already text.
    pub fn as_text(&self) -> std::borrow::Cow<'_, str> {
        match self {
            Value::Empty => std::borrow::Cow::Borrowed(""),
            Value::Str(s) => std::borrow::Cow::Borrowed(s.as_str()),
            other => {
                let mut s = String::new();
                other.write_to(&mut s);
                std::borrow::Cow::Owned(s)
            }
        }
    }
}

impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.as_text())
    }
}

impl PartialEq for Value {
    /// Values are equal when their texts are equal (case-sensitive).
    fn eq(&self, other: &Self) -> bool {
        self.as_text() == other.as_text()
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Value::str(s)
    }
}
impl From<String> for Value {
    fn from(s: String) -> Self {
        Value::str(s)
    }
}
impl From<i32> for Value {
    fn from(i: i32) -> Self {
        Value::Int(i64::from(i))
    }
}
impl From<u32> for Value {
    fn from(i: u32) -> Self {
        Value::Int(i64::from(i))
    }
}
impl From<i64> for Value {
    fn from(i: i64) -> Self {
        Value::Int(i)
    }
}
impl From<f64> for Value {
    fn from(f: f64) -> Self {
        Value::Float(f)
    }
}
impl From<f32> for Value {
    fn from(f: f32) -> Self {
        Value::Float(f64::from(f))
    }
}
impl From<bool> for Value {
    fn from(b: bool) -> Self {
        Value::Int(i64::from(b))
    }
}
impl From<()> for Value {
    fn from(_: ()) -> Self {
        Value::Empty
    }
}

/// Appends the decimal form of `i` (what `write!(out, "{i}")` writes, without the formatting
/// machinery: `"word" @ %i` spent more in `fmt` than in the rest of the concatenation).
#[inline]
pub(crate) fn write_int(i: i64, out: &mut String) {
    let mut buf = [0u8; 20];
    let mut at = buf.len();
    let mut n = i.unsigned_abs();
    loop {
        at -= 1;
        if let Some(d) = buf.get_mut(at) {
            *d = b'0' + (n % 10) as u8;
        }
        n /= 10;
        if n == 0 || at == 0 {
            break;
        }
    }
    if i < 0 {
        out.push('-');
    }
    out.push_str(ascii_digits(buf.get(at..).unwrap_or_default()));
}

/// Text of a buffer of ASCII digits, without `str::from_utf8`'s check (about 57 instructions
/// for a short buffer: a third of a small number's formatting).
#[inline(always)]
fn ascii_digits(digits: &[u8]) -> &str {
    debug_assert!(digits.iter().all(u8::is_ascii_digit), "only ASCII digits");
    // SAFETY: every caller fills the buffer with `b'0' + (n % 10) as u8` only (ASCII digits,
    // asserted in debug builds and by `write_int_matches_fmt` and the %g tests): valid UTF-8.
    #[allow(unsafe_code)]
    unsafe {
        std::str::from_utf8_unchecked(digits)
    }
}

/// Converts a double to a 32-bit integer like a C cast, saturating instead of being undefined.
#[inline]
pub fn float_to_i32(f: f64) -> i32 {
    // One conversion to 64 bits (saturating, NaN to 0) and two integer compares; the common
    // case (the value fits) is a truncation. Values in 2^31..2^32 wrap as V12's conversion
    // through U32 does; past that, `i32::MAX`; below -2^31, `i32::MIN` (`float_to_i32_edges`
    // checks it against the branchy form it replaced).
    let i = f as i64;
    if i < i64::from(i32::MIN) {
        i32::MIN
    } else if i >= 1 << 32 {
        i32::MAX
    } else {
        i as i32
    }
}

// ---- numbers read and written with no call (the tight loop, `stack_ops::run_tight`) ----
//
// Each tests an integer, then a double, one compare-and-branch each, and gives up on
// anything else (`""` too: a third test made the chain a jump table on the tag).

/// The number arithmetic reads from `v`, `None` for anything but a number (text would need
/// `atof`: the caller leaves the instruction to the general path).
#[inline(always)]
pub(crate) fn num_fast(v: &Value) -> Option<Num> {
    if let Value::Int(i) = v {
        Some(Num::Int(*i))
    } else if let Value::Float(f) = v {
        Some(Num::Float(*f))
    } else {
        None
    }
}

/// [`Value::to_f64`] of a number (see [`num_fast`]).
#[inline(always)]
pub(crate) fn f64_fast(v: &Value) -> Option<f64> {
    if let Value::Int(i) = v {
        Some(*i as f64)
    } else if let Value::Float(f) = v {
        Some(*f)
    } else {
        None
    }
}

/// [`Value::to_i32`] of a number (see [`num_fast`]).
#[inline(always)]
pub(crate) fn i32_fast(v: &Value) -> Option<i32> {
    if let Value::Int(i) = v {
        Some(*i as i32)
    } else if let Value::Float(f) = v {
        Some(float_to_i32(*f))
    } else {
        None
    }
}

/// [`Value::truthy`] of a number (see [`num_fast`]).
#[inline(always)]
pub(crate) fn truthy_fast(v: &Value) -> Option<bool> {
    if let Value::Int(i) = v {
        Some(*i != 0)
    } else if let Value::Float(f) = v {
        Some(*f != 0.0)
    } else {
        None
    }
}

/// [`Value::step`] of a number (`None`, nothing changed, for text and `""`).
#[inline(always)]
pub(crate) fn step_fast(v: &mut Value, d: i32) -> Option<f64> {
    if let Value::Int(n) = v {
        let m = n.wrapping_add(i64::from(d));
        if keeps_int(m) {
            *n = m;
            return Some(m as f64);
        }
        let x = *n as f64 + f64::from(d);
        put_raw(v, Value::Float(x));
        Some(x)
    } else if let Value::Float(x) = v {
        *x += f64::from(d);
        Some(*x)
    } else {
        None
    }
}

/// Writes the number `n` over `dst`, which the caller saw is not text (see [`put_raw`]), tag
/// and payload in place (a value built aside and copied whole stalled store forwarding).
#[inline(always)]
pub(crate) fn put_num_raw(dst: &mut Value, n: Num) {
    match n {
        Num::Int(i) => put_raw(dst, Value::Int(i)),
        Num::Float(f) => put_raw(dst, Value::Float(f)),
    }
}

/// Writes `v` over `dst`, which the caller saw is not text (so nothing is dropped: no
/// drop glue, no call). Over text it would leak the string, never more.
#[inline(always)]
pub(crate) fn put_raw(dst: &mut Value, v: Value) {
    debug_assert!(!matches!(dst, Value::Str(_)), "a plain write over text");
    std::mem::forget(std::mem::replace(dst, v));
}

// ---- moving values field by field (the VM's stores; see `stack::OperandStack`) ----

/// Takes the value out of `slot`, leaving it `Empty`; a number is read field by field (a
/// 16-byte load of a value just written as tag and payload stalls store forwarding).
#[inline(always)]
pub(crate) fn take(slot: &mut Value) -> Value {
    match *slot {
        Value::Float(f) => {
            std::mem::forget(std::mem::replace(slot, Value::Empty));
            Value::Float(f)
        }
        Value::Int(n) => {
            std::mem::forget(std::mem::replace(slot, Value::Empty));
            Value::Int(n)
        }
        Value::Empty => Value::Empty,
        Value::Str(_) => std::mem::take(slot),
    }
}

/// `*dst = src.clone()`, a number written field by field and a string replaced out of line.
#[inline(always)]
pub(crate) fn assign(dst: &mut Value, src: &Value) {
    // Numbers first, one compare-and-branch each (a `match` made a jump table on the tag).
    if let Value::Float(f) = src {
        dst.set_f64(*f);
    } else if let Value::Int(n) = src {
        dst.set_int(*n);
    } else if let Value::Str(s) = src {
        assign_str(dst, Value::Str(s.clone()));
    } else {
        clear_slot(dst);
    }
}

/// `*dst = src.clone()` over a `dst` the caller saw is not text (see [`put_raw`]): nothing
/// dropped, so no call on the path (the VM's field fast paths, which keep it free of calls
/// that are not their last act, so they save few registers).
#[inline(always)]
pub(crate) fn assign_plain(dst: &mut Value, src: &Value) {
    if let Value::Float(f) = src {
        put_raw(dst, Value::Float(*f));
    } else if let Value::Int(n) = src {
        put_raw(dst, Value::Int(*n));
    } else if let Value::Str(s) = src {
        put_raw(dst, Value::Str(s.clone()));
    } else {
        put_raw(dst, Value::Empty);
    }
}

/// `*dst = take(src)` (see [`assign`]).
#[inline(always)]
pub(crate) fn move_into(dst: &mut Value, src: &mut Value) {
    // Numbers first, one compare-and-branch each (a `match` made a jump table on the tag).
    if let Value::Float(f) = *src {
        dst.set_f64(f);
        std::mem::forget(std::mem::replace(src, Value::Empty));
    } else if let Value::Int(n) = *src {
        dst.set_int(n);
        std::mem::forget(std::mem::replace(src, Value::Empty));
    } else if let Value::Str(_) = src {
        assign_str(dst, std::mem::take(src));
    } else {
        clear_slot(dst);
    }
}

#[inline(never)]
fn assign_str(dst: &mut Value, v: Value) {
    *dst = v;
}

/// Empties a slot, dropping a string out of line.
#[inline(always)]
fn clear_slot(slot: &mut Value) {
    if let Value::Str(_) = slot {
        replace_cold(slot, Value::Empty);
    } else {
        std::mem::forget(std::mem::replace(slot, Value::Empty));
    }
}

#[cold]
#[inline(never)]
fn replace_cold(slot: &mut Value, v: Value) {
    *slot = v;
}

/// C `atof`: the longest numeric prefix after leading white space, else 0.
///
/// A prefix of at most 19 digits whose value is below 2^53, with a power of ten of at most
/// 22 either way (`-12.25`, `0.5`, `1e3`: what scripts write), is the digits as an integer
/// times or over an exact power of ten: one correctly rounded operation on exact values,
/// the double the full parse gives (Clinger's fast path); the rest goes to the full parse.
pub fn atof(s: &str) -> f64 {
    atof_len(s).0
}

/// [`atof`], and where the number it read ends in `s` (0 when it read none).
pub(crate) fn atof_len(s: &str) -> (f64, usize) {
    let b = s.as_bytes();
    let mut rest = b;
    while let [b' ' | b'\t' | b'\n' | b'\r', tail @ ..] = rest {
        rest = tail;
    }
    let start = b.len() - rest.len();
    let neg = matches!(rest, [b'-', ..]);
    if let [b'+' | b'-', tail @ ..] = rest {
        rest = tail;
    }
    let mut digits = 0u32;
    let mut m: u64 = 0;
    while let [c @ b'0'..=b'9', tail @ ..] = rest {
        m = m.wrapping_mul(10).wrapping_add(u64::from(c - b'0'));
        digits += 1;
        rest = tail;
    }
    let mut frac = 0i32;
    if let [b'.', tail @ ..] = rest {
        rest = tail;
        while let [c @ b'0'..=b'9', tail @ ..] = rest {
            m = m.wrapping_mul(10).wrapping_add(u64::from(c - b'0'));
            digits += 1;
            frac += 1;
            rest = tail;
        }
    }
    if digits == 0 {
        return (0.0, 0);
    }
    let mut exp = 0i32;
    if let [b'e' | b'E', tail @ ..] = rest {
        let mut r = tail;
        let eneg = matches!(r, [b'-', ..]);
        if let [b'+' | b'-', t @ ..] = r {
            r = t;
        }
        let before = r.len();
        while let [c @ b'0'..=b'9', t @ ..] = r {
            exp = exp.saturating_mul(10).saturating_add(i32::from(c - b'0'));
            r = t;
        }
        if r.len() < before {
            rest = r;
            if eneg {
                exp = -exp;
            }
        } else {
            exp = 0;
        }
    }
    let end = b.len() - rest.len();
    let e = exp.saturating_sub(frac);
    if digits <= 19 && m < 1 << 53 && (-22..=22).contains(&e) {
        let pow = POW10[e.unsigned_abs() as usize];
        let v = if e >= 0 { m as f64 * pow } else { m as f64 / pow };
        return (if neg { -v } else { v }, end);
    }
    (s.get(start..end).and_then(|t| t.parse::<f64>().ok()).unwrap_or(0.0), end)
}

/// C `atoi`: leading white space, optional sign, decimal digits.
pub fn atoi(s: &str) -> i64 {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() && (b[i] == b' ' || b[i] == b'\t' || b[i] == b'\n' || b[i] == b'\r') {
        i += 1;
    }
    let mut neg = false;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        neg = b[i] == b'-';
        i += 1;
    }
    let mut v: i64 = 0;
    while i < b.len() && b[i].is_ascii_digit() {
        v = v.wrapping_mul(10).wrapping_add(i64::from(b[i] - b'0'));
        i += 1;
    }
    if neg { -v } else { v }
}

/// C `printf("%g")` with 6 significant digits, V12's number-to-text rule.
pub fn format_g(v: f64, out: &mut String) {
    format_g_prec(v, 6, out);
}

/// For a plain decimal `s` (as f64's `Display` writes: no exponent), the decimal exponent of
/// its first significant digit when it has at most `p` significant digits.
fn shortest_fits(s: &str, p: usize) -> Option<i32> {
    let digits = s.trim_start_matches('-');
    let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
    let int = int.trim_start_matches('0');
    let (exp, significant) = if int.is_empty() {
        let lead = frac.len() - frac.trim_start_matches('0').len();
        (-(lead as i32) - 1, frac.trim_start_matches('0').trim_end_matches('0').len())
    } else {
        let all = format!("{int}{frac}");
        (int.len() as i32 - 1, all.trim_end_matches('0').len())
    };
    (significant > 0 && significant <= p).then_some(exp)
}

/// C `%.<prec>g`.
pub fn format_g_prec(v: f64, prec: usize, out: &mut String) {
    if v.is_nan() {
        out.push_str(if v.is_sign_negative() { "-nan" } else { "nan" });
        return;
    }
    if v.is_infinite() {
        out.push_str(if v < 0.0 { "-inf" } else { "inf" });
        return;
    }
    if v == 0.0 {
        out.push_str(if v.is_sign_negative() { "-0" } else { "0" });
        return;
    }
    let p = prec.max(1);
    // Fast path: small integers print exactly.
    // (Wholeness tested by a round trip through an integer: `f64::fract` is a libm call on the
    // baseline target; below 1e6 the conversion is exact.)
    let int_bound = if p < 6 { POW10[p] } else { 1e6 };
    if v.abs() < int_bound && (v as i64) as f64 == v {
        write_int(v as i64, out);
        return;
    }
    // Fast path: the digits rounded to `p` from one scaling by an exact power of ten (see
    // `g_digits`), written from a buffer on the stack.
    if p <= 15
        && let Some((digits, x)) = g_digits(v.abs(), p)
    {
        if v < 0.0 {
            out.push('-');
        }
        write_g_digits(digits, x, p, out);
        return;
    }
    // Near a half, where the scaling's error could decide the rounding: when the shortest
    // decimal that reads back as `v` has at most `p` significant digits, rounding `v` to `p`
    // digits gives exactly those digits (the difference between them is under half an ulp,
    // far below the p-th digit), so %g prints them as they are; only its exponent range
    // needs checking. Still much cheaper than the exact formatting below.
    if p <= 15 {
        let mut short = String::new();
        let _ = write!(short, "{v}");
        if let Some(x) = shortest_fits(&short, p)
            && (-4..p as i32).contains(&x)
        {
            out.push_str(&short);
            return;
        }
    }
    format_g_exact(v, p, out);
}

/// Powers of ten that doubles hold exactly.
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18,
    1e19, 1e20, 1e21, 1e22,
];

/// `a` (finite, positive) rounded to `p` (1 to 15) significant digits: the digits as an
/// integer of exactly `p` digits and the decimal exponent of the first, from one scaling
/// by an exact power of ten (a single rounding, at most half an ulp of the scaled value).
/// `None` when that error could decide the rounding (the scaled value is within two ulps
/// of a half) or the power is not exact: the caller formats exactly then.
fn g_digits(a: f64, p: usize) -> Option<(u64, i32)> {
    let (lo, hi) = (POW10[p - 1], POW10[p]);
    // The decimal exponent from the binary one: floor(e2 * log10 2) (78913 / 2^18), off by
    // at most one, which the loop below corrects (no `log10`, a libm call).
    let e2 = ((a.to_bits() >> 52) & 0x7ff) as i32 - 1023;
    let mut x = (e2 * 78913) >> 18;
    for _ in 0..3 {
        let k = p as i32 - 1 - x;
        let pow = *POW10.get(k.unsigned_abs() as usize)?;
        let scaled = if k >= 0 { a * pow } else { a / pow };
        if scaled < lo {
            x -= 1;
            continue;
        }
        if scaled >= hi {
            x += 1;
            continue;
        }
        // `scaled` is positive and below 10^15: truncation is its floor (`f64::floor` is a
        // libm call on the baseline target).
        let whole = (scaled as u64) as f64;
        let frac = scaled - whole;
        if (frac - 0.5).abs() <= 2.0 * scaled * f64::EPSILON {
            return None;
        }
        let mut d = (if frac > 0.5 { whole + 1.0 } else { whole }) as u64;
        if d as f64 >= hi {
            d /= 10;
            x += 1;
        }
        return Some((d, x));
    }
    None
}

/// %g's text of `digits` (exactly `p` digits) times 10^(`x` - `p` + 1): exponential when
/// `x` < -4 or `x` >= `p`, else fixed; trailing zeros dropped.
fn write_g_digits(digits: u64, x: i32, p: usize, out: &mut String) {
    // The digits (at most 20) from the right end of a buffer on the stack, as text.
    let mut buf = [b'0'; 20];
    let mut at = buf.len();
    let mut d = digits;
    loop {
        at -= 1;
        if let Some(c) = buf.get_mut(at) {
            *c = b'0' + (d % 10) as u8;
        }
        d /= 10;
        if d == 0 || at == 0 {
            break;
        }
    }
    let text = ascii_digits(buf.get(at..).unwrap_or_default());
    let n = text.len();
    // Without the trailing zeros (at least the first digit stays).
    let sig = text.trim_end_matches('0').len().max(1);
    if x < -4 || x >= p as i32 {
        out.push_str(text.get(..1).unwrap_or_default());
        if sig > 1 {
            out.push('.');
            out.push_str(text.get(1..sig).unwrap_or_default());
        }
        out.push('e');
        out.push(if x < 0 { '-' } else { '+' });
        let _ = write!(out, "{:02}", x.unsigned_abs());
        return;
    }
    if x < 0 {
        out.push_str("0.");
        for _ in 0..(-x - 1) {
            out.push('0');
        }
        out.push_str(text.get(..sig).unwrap_or_default());
        return;
    }
    let int_len = (x as usize + 1).min(n);
    out.push_str(text.get(..int_len).unwrap_or_default());
    if sig > int_len {
        out.push('.');
        out.push_str(text.get(int_len..sig).unwrap_or_default());
    }
}

/// %g by exact formatting: `v` finite and non-zero, `p` at least 1.
fn format_g_exact(v: f64, p: usize, out: &mut String) {
    let e_form = format!("{:.*e}", p - 1, v);
    let (mant, exp) = match e_form.split_once('e') {
        Some(pair) => pair,
        None => {
            out.push_str(&e_form);
            return;
        }
    };
    let x: i32 = exp.parse().unwrap_or(0);
    if x < -4 || x >= p as i32 {
        let m = strip_zeros(mant);
        out.push_str(m);
        out.push('e');
        out.push(if x < 0 { '-' } else { '+' });
        let _ = write!(out, "{:02}", x.unsigned_abs());
    } else {
        let decimals = (p as i32 - 1 - x).max(0) as usize;
        let f = format!("{:.*}", decimals, v);
        out.push_str(strip_zeros(&f));
    }
}

fn strip_zeros(s: &str) -> &str {
    if s.contains('.') {
        let t = s.trim_end_matches('0');
        t.strip_suffix('.').unwrap_or(t)
    } else {
        s
    }
}

/// Formats a double as V12 text.
pub fn fmt_num(v: f64) -> String {
    let mut s = String::new();
    format_g(v, &mut s);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `float_to_i32` gives what the branchy form it replaced gave, at the edges and between.
    #[test]
    fn float_to_i32_edges() {
        fn old(f: f64) -> i32 {
            if f.is_nan() {
                0
            } else if f >= 2147483648.0 {
                if f < 4294967296.0 { (f as u32) as i32 } else { i32::MAX }
            } else {
                f as i32
            }
        }
        let mut cases = vec![
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.0,
            -1.0,
            2147483647.0,
            2147483647.9,
            2147483648.0,
            2147483648.5,
            3e9,
            4294967295.0,
            4294967295.9,
            4294967296.0,
            4294967297.0,
            1e19,
            -2147483648.0,
            -2147483648.9,
            -2147483649.0,
            -1e19,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MAX,
            f64::MIN,
            f64::MIN_POSITIVE,
        ];
        let mut next = xorshift(0x2545_f491_4f6c_dd1d);
        for _ in 0..4000 {
            let scale = [1.0, 1e3, 1e6, 3e9, 5e9, 1e12][(next() % 6) as usize];
            cases.push(((next() % 2_000_001) as f64 / 1e6 - 1.0) * scale);
            cases.push(f64::from_bits(next()));
        }
        for f in cases {
            assert_eq!(float_to_i32(f), old(f), "{f:e}");
        }
    }

    /// `write_int` writes what `{}` formatting writes, at the edges and between.
    #[test]
    fn write_int_matches_fmt() {
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
        let mut cases =
            vec![0, 1, -1, 9, 10, -10, 99, 100, 999_999, 1_000_000, i64::MAX, i64::MIN, i64::MIN + 1];
        for _ in 0..2000 {
            let x = next() as i64;
            cases.push(x);
            cases.push(x >> (next() % 64));
        }
        for i in cases {
            let mut s = String::from("w");
            write_int(i, &mut s);
            assert_eq!(s, format!("w{i}"));
        }
    }

    /// A seeded xorshift sequence of bit patterns.
    fn xorshift(mut x: u64) -> impl FnMut() -> u64 {
        move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        }
    }

    /// The scaled-digits fast path prints exactly what exact %g formatting prints, for
    /// every precision, random doubles of every magnitude, positions and distances with
    /// many digits, and halves (where the rounding is decided exactly).
    #[test]
    fn the_g_digits_path_agrees_with_exact_formatting() {
        let mut next = xorshift(0x2545_F491_4F6C_DD1Du64);
        let mut values: Vec<f64> = (0..50_000).map(|_| f64::from_bits(next())).collect();
        values.extend((0..50_000).map(|_| (next() % 2_000_000_000) as f64 / 7919.0 - 100_000.0));
        values.extend((0..20_000).map(|k| k as f64 * 0.5 + 0.000_005));
        values.extend([
            0.5,
            1.5,
            2.5,
            999_999.5,
            9.999_995,
            0.000_123_456_5,
            123_456.5,
            1e21,
            1e-5,
            99_999.95,
        ]);
        let (mut tried, mut fast_ones) = (0, 0);
        for v in values.into_iter().filter(|v| v.is_finite() && *v != 0.0) {
            for p in 1..=15 {
                let (mut fast, mut exact) = (String::new(), String::new());
                tried += 1;
                if let Some((d, e)) = g_digits(v.abs(), p) {
                    fast_ones += 1;
                    if v < 0.0 {
                        fast.push('-');
                    }
                    write_g_digits(d, e, p, &mut fast);
                    format_g_exact(v, p, &mut exact);
                    assert_eq!(fast, exact, "{v:e} at %.{p}g");
                }
            }
        }
        // Most values take the fast path (the random bit patterns outside 1e±22 do not).
        assert!(fast_ones * 2 > tried, "{fast_ones} of {tried}");
    }

    /// The shortest-digits fast path prints exactly what exact %g formatting prints, for
    /// random doubles of every magnitude and for the short decimals scripts make.
    #[test]
    fn the_g_fast_path_agrees_with_exact_formatting() {
        let mut next = xorshift(0x9E37_79B9_7F4A_7C15u64);
        let mut values: Vec<f64> = (0..100_000).map(|_| f64::from_bits(next())).collect();
        values.extend((0..100_000).map(|k| (k as f64 - 50_000.0) * 0.1));
        values.extend(
            (0..50_000).map(|k| (next() % 2_000_000) as f64 / 1000.0 * if k % 2 == 0 { 1.0 } else { -1.0 }),
        );
        values.extend([
            0.6,
            1.2 * 0.5,
            12.5,
            1e-4,
            9.9999e-5,
            123456.0,
            1234567.0,
            0.1 + 0.2,
            1.0 / 3.0,
            5e-324,
        ]);
        for v in values.into_iter().filter(|v| v.is_finite() && *v != 0.0) {
            for p in [1, 6, 9, 15] {
                let (mut fast, mut exact) = (String::new(), String::new());
                format_g_prec(v, p, &mut fast);
                format_g_exact(v, p, &mut exact);
                if v.fract() != 0.0 || v.abs() >= 1e6_f64.min(10f64.powi(p as i32)) {
                    assert_eq!(fast, exact, "{v:e} at %.{p}g");
                }
            }
        }
    }

    #[test]
    fn g_format_matches_c() {
        let cases = [
            (10.0 / 3.0, "3.33333"),
            (0.25, "0.25"),
            (1000.0, "1000"),
            (6.0, "6"),
            (1e6, "1e+06"),
            (123456.0, "123456"),
            (1234567.0, "1.23457e+06"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (-2.5, "-2.5"),
            (1e100, "1e+100"),
            (999999.5, "1e+06"),
            (0.1 + 0.2, "0.3"),
        ];
        for (v, want) in cases {
            assert_eq!(fmt_num(v), want, "{v}");
        }
    }

    /// `atof`'s fast path gives the double the full parse gives: short decimals of every
    /// length and sign, with and without exponents, and the edges of the fast path's range.
    #[test]
    fn atof_fast_path_is_the_full_parse() {
        let mut next = xorshift(0x1234_5678_9abc_def1);
        let mut cases: Vec<String> = vec![
            "0".into(),
            "-0".into(),
            "+0.5".into(),
            "9007199254740991".into(),
            "9007199254740993".into(),
            "18446744073709551615".into(),
            "1e22".into(),
            "1e23".into(),
            "1.5e-22".into(),
            "123456789012345678e-22".into(),
            "0.1".into(),
            "-1.25".into(),
            "1e-3".into(),
            "5.".into(),
            ".25e+2".into(),
        ];
        for _ in 0..20_000 {
            let int = next() % 10u64.pow((next() % 12) as u32 + 1);
            let fd = (next() % 10) as usize;
            let frac = next() % 10u64.pow(fd as u32);
            let sign = ["", "-", "+"][(next() % 3) as usize];
            let mut t = if fd > 0 { format!("{sign}{int}.{frac:0fd$}") } else { format!("{sign}{int}") };
            if next().is_multiple_of(4) {
                t.push_str(&format!("e{}", (next() % 50) as i64 - 25));
            }
            cases.push(t);
        }
        for t in cases {
            let want: f64 = t.parse().expect("a number");
            let got = atof(&t);
            assert_eq!(got.to_bits(), want.to_bits(), "{t}");
        }
    }

    #[test]
    fn atof_prefix() {
        assert_eq!(atof("12abc"), 12.0);
        assert_eq!(atof("  -1.5e2x"), -150.0);
        assert_eq!(atof("abc"), 0.0);
        assert_eq!(atof(".5"), 0.5);
        assert_eq!(atof("1e"), 1.0);
        assert_eq!(atoi("42.9"), 42);
        assert_eq!(atoi("-7 8"), -7);
    }
}
