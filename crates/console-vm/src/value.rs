//! Console values: numbers stay numbers until something reads them as text.

/// The longest string a script can make (16 MiB). Concatenation past it stops the script
/// with an error; `setWord`/`setField`/`setRecord` and `strreplace` refuse with an error and
/// return their input unchanged. It bounds what one call can allocate.
pub const MAX_STRING_LEN: usize = 16 * 1024 * 1024;
use std::fmt::Write as _;
use std::rc::Rc;

/// A console value. Every value can be read as text; numbers are formatted only when that happens.
///
/// Strings are `Rc<String>` (not `Rc<str>`) so that `%s = %s @ x` can append in place when the
/// variable holds the only reference, which makes string building linear instead of quadratic.
#[derive(Clone, Debug, Default)]
pub enum Value {
    /// The empty string (an unset variable).
    #[default]
    Empty,
    /// An integer (literals, ids, results of `% & | ^ << >> ~ !` and comparisons).
    Int(i64),
    /// A double (results of `+ - * /`), printed with C `%g`.
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
        // Numbers first, as a compare-and-branch rather than a jump table: the VM's hot path.
        if let Value::Float(f) = self {
            return *f;
        }
        match self {
            Value::Int(i) => *i as f64,
            Value::Str(s) => atof(s),
            _ => 0.0,
        }
    }

    /// Reads the value as a 32-bit integer, the way V12's integer operators do.
    #[inline]
    pub fn to_i32(&self) -> i32 {
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
            Value::Int(i) => {
                let _ = write!(out, "{i}");
            }
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

/// Converts a double to a 32-bit integer like a C cast, saturating instead of being undefined.
#[inline]
pub fn float_to_i32(f: f64) -> i32 {
    if f.is_nan() {
        0
    } else if f >= 2147483648.0 {
        // V12 goes through U32 for large values; wrap like the C conversion through unsigned.
        if f < 4294967296.0 { (f as u32) as i32 } else { i32::MAX }
    } else {
        f as i32
    }
}

/// C `atof`: the longest numeric prefix after leading white space, else 0.
pub fn atof(s: &str) -> f64 {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() && (b[i] == b' ' || b[i] == b'\t' || b[i] == b'\n' || b[i] == b'\r') {
        i += 1;
    }
    let start = i;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        i += 1;
    }
    let mut digits = 0;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
        digits += 1;
    }
    if i < b.len() && b[i] == b'.' {
        i += 1;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
            digits += 1;
        }
    }
    if digits == 0 {
        return 0.0;
    }
    let mut end = i;
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        let mut j = i + 1;
        if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
            j += 1;
        }
        let exp_start = j;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        if j > exp_start {
            end = j;
        }
    }
    s[start..end].parse::<f64>().unwrap_or(0.0)
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
    if v.fract() == 0.0 && v.abs() < 1e6_f64.min(10f64.powi(p as i32)) {
        let _ = write!(out, "{}", v as i64);
        return;
    }
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
