//! The scanner: source text to tokens with line/column positions.

use std::fmt;

/// A source position (1-based line and column).
#[derive(Clone, Copy, Debug, Default, Eq)]
pub struct Span {
    /// Line, from 1.
    pub line: u32,
    /// Column, from 1 (in characters).
    pub col: u32,
}

impl PartialEq for Span {
    /// Positions never make two trees different: an AST printed and parsed again is "the same".
    fn eq(&self, _other: &Self) -> bool {
        true
    }
}

/// Token kinds. Names and string bodies are slices of the source, so scanning allocates
/// nothing per token and tokens are `Copy`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Tok<'a> {
    /// Identifier, possibly with `::` inside (`Foo::bar`).
    Ident(&'a str),
    /// `$name`.
    Global(&'a str),
    /// `%name`.
    Local(&'a str),
    /// Integer literal.
    Int(i64),
    /// Float literal.
    Float(f64),
    /// `"..."`, the raw text between the quotes (escapes still in; see [`unescape`]).
    Str(&'a str),
    /// `'...'`, raw like `Str`.
    Tagged(&'a str),
    /// A keyword.
    Kw(Kw),
    /// Punctuation or operator.
    Op(&'static str),
    /// End of input.
    Eof,
}

/// Keywords (lower case only, as in V12's scanner).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum Kw {
    If,
    Else,
    While,
    For,
    Do,
    Switch,
    SwitchStr,
    Case,
    Default,
    Break,
    Continue,
    Return,
    Function,
    Package,
    Datablock,
    New,
    True,
    False,
    Spc,
    Tab,
    Nl,
}

impl Kw {
    /// The keyword's spelling.
    pub fn text(self) -> &'static str {
        match self {
            Kw::If => "if",
            Kw::Else => "else",
            Kw::While => "while",
            Kw::For => "for",
            Kw::Do => "do",
            Kw::Switch => "switch",
            Kw::SwitchStr => "switch$",
            Kw::Case => "case",
            Kw::Default => "default",
            Kw::Break => "break",
            Kw::Continue => "continue",
            Kw::Return => "return",
            Kw::Function => "function",
            Kw::Package => "package",
            Kw::Datablock => "datablock",
            Kw::New => "new",
            Kw::True => "true",
            Kw::False => "false",
            Kw::Spc => "SPC",
            Kw::Tab => "TAB",
            Kw::Nl => "NL",
        }
    }

    fn from_word(w: &str) -> Option<Kw> {
        // Dispatch on length and first byte so ordinary names cost a compare or two; each arm
        // compares with a literal of known length (inlined, no `memcmp` call).
        let b = w.as_bytes();
        let k = match (b.len(), *b.first()?) {
            (2, b'i') if b == b"if" => Kw::If,
            (2, b'd') if b == b"do" => Kw::Do,
            (2, b'N') if b == b"NL" => Kw::Nl,
            (3, b'f') if b == b"for" => Kw::For,
            (3, b'n') if b == b"new" => Kw::New,
            (3, b'S') if b == b"SPC" => Kw::Spc,
            (3, b'T') if b == b"TAB" => Kw::Tab,
            (4, b'e') if b == b"else" => Kw::Else,
            (4, b'c') if b == b"case" => Kw::Case,
            (4, b't') if b == b"true" => Kw::True,
            (5, b'w') if b == b"while" => Kw::While,
            (5, b'b') if b == b"break" => Kw::Break,
            (5, b'f') if b == b"false" => Kw::False,
            (6, b's') if b == b"switch" => Kw::Switch,
            (6, b'r') if b == b"return" => Kw::Return,
            (7, b'd') if b == b"default" => Kw::Default,
            (7, b'p') if b == b"package" => Kw::Package,
            (8, b'c') if b == b"continue" => Kw::Continue,
            (8, b'f') if b == b"function" => Kw::Function,
            (9, b'd') if b == b"datablock" => Kw::Datablock,
            _ => return None,
        };
        Some(k)
    }
}

impl fmt::Display for Tok<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Ident(s) => write!(f, "identifier `{s}`"),
            Tok::Global(s) => write!(f, "`${s}`"),
            Tok::Local(s) => write!(f, "`%{s}`"),
            Tok::Int(i) => write!(f, "number `{i}`"),
            Tok::Float(x) => write!(f, "number `{x}`"),
            Tok::Str(_) => write!(f, "string"),
            Tok::Tagged(_) => write!(f, "tagged string"),
            Tok::Kw(k) => write!(f, "`{}`", k.text()),
            Tok::Op(o) => write!(f, "`{o}`"),
            Tok::Eof => write!(f, "end of file"),
        }
    }
}

/// A token and where it starts.
#[derive(Clone, Copy, Debug)]
pub struct Token<'a> {
    /// The token.
    pub tok: Tok<'a>,
    /// Where it starts.
    pub span: Span,
}

/// A scan error: an unterminated string or a stray character.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LexError {
    /// Where.
    pub span: Span,
    /// What.
    pub message: String,
}

/// The longest operator starting at `b[i]` (the first byte is known to exist). Dispatched on
/// the first byte; the next bytes are read only for the operators that may go on.
#[inline(always)]
fn op_at(b: &[u8], i: usize) -> Option<&'static str> {
    let n1 = || b.get(i + 1).copied().unwrap_or(0);
    let n2 = || b.get(i + 2).copied().unwrap_or(0);
    // `x` alone, or `x=` when `=` follows.
    let or_eq = |one: &'static str, two: &'static str| if n1() == b'=' { two } else { one };
    Some(match b[i] {
        b'(' => "(",
        b')' => ")",
        b';' => ";",
        b',' => ",",
        b'.' => ".",
        b'{' => "{",
        b'}' => "}",
        b'[' => "[",
        b']' => "]",
        b'@' => "@",
        b'?' => "?",
        b'~' => "~",
        b'=' => or_eq("=", "=="),
        b'*' => or_eq("*", "*="),
        b'/' => or_eq("/", "/="),
        b'%' => or_eq("%", "%="),
        b'^' => or_eq("^", "^="),
        b'+' => match n1() {
            b'+' => "++",
            b'=' => "+=",
            _ => "+",
        },
        b'-' => match n1() {
            b'-' => "--",
            b'=' => "-=",
            _ => "-",
        },
        b'<' => match n1() {
            b'<' if n2() == b'=' => "<<=",
            b'<' => "<<",
            b'=' => "<=",
            _ => "<",
        },
        b'>' => match n1() {
            b'>' if n2() == b'=' => ">>=",
            b'>' => ">>",
            b'=' => ">=",
            _ => ">",
        },
        b'!' => match n1() {
            b'$' if n2() == b'=' => "!$=",
            b'=' => "!=",
            _ => "!",
        },
        b'&' => match n1() {
            b'&' => "&&",
            b'=' => "&=",
            _ => "&",
        },
        b'|' => match n1() {
            b'|' => "||",
            b'=' => "|=",
            _ => "|",
        },
        b':' => {
            if n1() == b':' {
                "::"
            } else {
                ":"
            }
        }
        b'$' if n1() == b'=' => "$=",
        _ => return None,
    })
}

/// Byte classes for the scanner's hot loops (one table load instead of range tests).
const NAME_START: u8 = 1;
const NAME_CHAR: u8 = 2;
const SPACE: u8 = 4;
static CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        if b.is_ascii_alphabetic() || b == b'_' {
            t[c] = NAME_START | NAME_CHAR;
        } else if b.is_ascii_digit() {
            t[c] = NAME_CHAR;
        } else if matches!(b, b' ' | b'\t' | b'\r' | 0x0B | 0x0C) {
            t[c] = SPACE;
        }
        c += 1;
    }
    t
};

#[inline]
fn is_name_start(c: u8) -> bool {
    CLASS[c as usize] & NAME_START != 0
}

#[inline]
fn is_name_char(c: u8) -> bool {
    CLASS[c as usize] & NAME_CHAR != 0
}

const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;

/// The bytes of `w` (eight, little-endian) that are not `[A-Za-z0-9_]`: the high bit of each
/// such byte set, the rest clear. Ranges are tested eight bytes at once on the low seven bits
/// (`x + (0x80 - lo)` has its high bit set when `x >= lo`; no byte carries into the next), and
/// a byte with its high bit set is never a name byte.
#[inline(always)]
fn non_name_bytes(w: u64) -> u64 {
    let x = w & !HI;
    let ge = |v: u64, lo: u8| v + (0x80 - u64::from(lo)) * LO;
    let gt = |v: u64, hi: u8| v + (0x7F - u64::from(hi)) * LO;
    let lower = x | (0x20 * LO);
    let alpha = ge(lower, b'a') & !gt(lower, b'z');
    let digit = ge(x, b'0') & !gt(x, b'9');
    let under = ge(x, b'_') & !gt(x, b'_');
    !((alpha | digit | under) & !w) & HI
}

/// Where the run of name bytes (`[A-Za-z0-9_]`) from `i` ends: eight bytes at a time while
/// eight remain, then byte by byte.
#[inline(always)]
fn name_end(b: &[u8], mut i: usize) -> usize {
    while let Some(chunk) = b.get(i..i + 8) {
        let mut w = [0u8; 8];
        w.copy_from_slice(chunk);
        let m = non_name_bytes(u64::from_le_bytes(w));
        if m != 0 {
            return i + (m.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < b.len() && is_name_char(b[i]) {
        i += 1;
    }
    i
}

/// The high bit of each byte of `w` equal to `c`, at least for the lowest such byte (a byte
/// above a match may be flagged too: only the lowest flag is to be read).
#[inline(always)]
fn bytes_eq(w: u64, c: u8) -> u64 {
    let v = w ^ (u64::from(c) * LO);
    v.wrapping_sub(LO) & !v & HI
}

/// Whether `b` holds a backslash: eight bytes at a time, then byte by byte (string bodies are
/// short: `contains` went through a `memchr` call).
#[inline]
fn has_backslash(b: &[u8]) -> bool {
    let mut chunks = b.chunks_exact(8);
    for c in &mut chunks {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        if bytes_eq(u64::from_le_bytes(w), b'\\') != 0 {
            return true;
        }
    }
    chunks.remainder().contains(&b'\\')
}

/// The first byte from `i` that is the quote `q`, a backslash or a newline (or `b.len()`):
/// eight bytes at a time while eight remain.
#[inline(always)]
fn string_stop(b: &[u8], mut i: usize, q: u8) -> usize {
    while let Some(chunk) = b.get(i..i + 8) {
        let mut w = [0u8; 8];
        w.copy_from_slice(chunk);
        let w = u64::from_le_bytes(w);
        let m = bytes_eq(w, q) | bytes_eq(w, b'\\') | bytes_eq(w, b'\n');
        if m != 0 {
            return i + (m.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < b.len() && b[i] != q && b[i] != b'\\' && b[i] != b'\n' {
        i += 1;
    }
    i
}

/// Powers of ten up to 10^15 (every one exact in an `f64`).
const POW10: [f64; 16] =
    [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15];
const POW10_INT: [u64; 16] = {
    let mut t = [1u64; 16];
    let mut k = 1;
    while k < 16 {
        t[k] = t[k - 1] * 10;
        k += 1;
    }
    t
};

/// Byte scanner state. Columns count characters: they are brought up to date lazily at each
/// token start (`col_pos` is the byte the current `col` belongs to), so the hot loops only move
/// a byte index.
pub(crate) struct Scanner<'a> {
    src: &'a str,
    b: &'a [u8],
    /// The whole source is ASCII: a column is a byte distance.
    ascii: bool,
    i: usize,
    line: u32,
    col: u32,
    col_pos: usize,
    /// The scan error, if any (tokens are returned without a `Result`: fewer moves per token).
    pub(crate) error: Option<LexError>,
}

/// `src[start..end]`, both ends at ASCII bytes (char boundaries) as the scanner cuts them;
/// `""` otherwise. Inlined (indexing a `str` by a range called an out-of-line check on every
/// token: 1.4 % of parse and compile).
#[inline(always)]
fn cut(src: &str, start: usize, end: usize) -> &str {
    src.split_at_checked(end).and_then(|(head, _)| head.split_at_checked(start)).map_or("", |(_, s)| s)
}

impl<'a> Scanner<'a> {
    /// The position of byte `self.i` (which must not be inside a line already passed).
    #[inline(always)]
    fn span(&mut self) -> Span {
        let run = &self.b[self.col_pos..self.i];
        let chars = if self.ascii { run.len() } else { run.iter().filter(|&&c| (c & 0xC0) != 0x80).count() };
        self.col += chars as u32;
        self.col_pos = self.i;
        Span { line: self.line, col: self.col }
    }

    /// Records a newline at byte `at`.
    fn newline(&mut self, at: usize) {
        self.line += 1;
        self.col = 1;
        self.col_pos = at + 1;
    }

    /// `[A-Za-z_][A-Za-z0-9_]*` with inner `::`, blanks around it allowed (a trailing `:` is
    /// not part of the name).
    #[inline(always)]
    fn name(&mut self) -> &'a str {
        let b = self.b;
        let start = self.i;
        let mut i = name_end(b, self.i + 1);
        // Most names end at a byte that cannot go on into `::` (a blank then something else
        // than a blank or `:` included: `x = 1`).
        match b.get(i) {
            Some(b':') => i = self.name_more(i),
            Some(b' ' | b'\t') if matches!(b.get(i + 1), Some(b' ' | b'\t' | b':')) => i = self.name_more(i),
            _ => {}
        }
        self.i = i;
        cut(self.src, start, i)
    }

    /// The rest of a name whose run of name bytes stopped at `i`, a `:` or a blank: inner
    /// `::`, with blanks around it allowed. Returns where the name ends.
    #[cold]
    #[inline(never)]
    fn name_more(&self, mut i: usize) -> usize {
        let b = self.b;
        loop {
            if i + 2 < b.len() && b[i] == b':' && b[i + 1] == b':' && is_name_start(b[i + 2]) {
                i = name_end(b, i + 2);
                continue;
            }
            // V12 allows blanks around `::` (`Parent:: onAdd(%this)`); the parser trims them.
            let blank = |mut j: usize| {
                while j < b.len() && (b[j] == b' ' || b[j] == b'\t') {
                    j += 1;
                }
                j
            };
            let j = blank(i);
            if j + 1 < b.len() && b[j] == b':' && b[j + 1] == b':' {
                let k = blank(j + 2);
                if k < b.len() && is_name_start(b[k]) && (j > i || k > j + 2) {
                    i = name_end(b, k);
                    continue;
                }
            }
            return i;
        }
    }

    fn number(&mut self, span: Span) -> Result<Tok<'a>, LexError> {
        let b = self.b;
        let start = self.i;
        let mut i = self.i;
        if b[i] == b'0' && matches!(b.get(i + 1), Some(b'x') | Some(b'X')) {
            i += 2;
            let hs = i;
            while i < b.len() && b[i].is_ascii_hexdigit() {
                i += 1;
            }
            self.i = i;
            return match i64::from_str_radix(&self.src[hs..i], 16) {
                Ok(v) => Ok(Tok::Int(v & 0xFFFF_FFFF)),
                Err(_) => Err(LexError { span, message: "malformed hex number".into() }),
            };
        }
        let mut is_float = false;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        // Where the fraction's digits start (`.5`, `0.25`), when there is one.
        let mut frac = None;
        if i < b.len() && b[i] == b'.' && b.get(i + 1).is_some_and(|d| d.is_ascii_digit()) {
            is_float = true;
            i += 1;
            frac = Some(i);
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
        }
        if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
            let mut j = i + 1;
            if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
                j += 1;
            }
            if j < b.len() && b[j].is_ascii_digit() {
                is_float = true;
                frac = None;
                i = j;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
            }
        }
        self.i = i;
        let text = cut(self.src, start, i);
        if !is_float {
            // Up to 18 digits cannot overflow: no need for the general parser.
            if text.len() <= 18 {
                let v = text.bytes().fold(0i64, |v, d| v * 10 + i64::from(d - b'0'));
                return Ok(Tok::Int(v));
            }
            if let Ok(v) = text.parse::<i64>() {
                return Ok(Tok::Int(v));
            }
        }
        // `digits.digits` with at most 15 digits in all and no exponent: the digits as an
        // integer (below 2^53, exact) divided by a power of ten (exact up to 10^22) is the
        // correctly rounded value, as the general parser gives it (Clinger's fast path).
        if let Some(f) = frac
            && i - start <= 16
        {
            let digits = |r: &[u8]| r.iter().fold(0u64, |v, &d| v * 10 + u64::from(d - b'0'));
            let whole = &b[start..f - 1];
            let fraction = &b[f..i];
            let m = digits(whole) * POW10_INT[fraction.len()] + digits(fraction);
            return Ok(Tok::Float(m as f64 / POW10[fraction.len()]));
        }
        match text.parse::<f64>() {
            Ok(v) => Ok(Tok::Float(v)),
            Err(_) => Err(LexError { span, message: "malformed number".into() }),
        }
    }

    /// A quoted string starting at the quote `q`; returns the raw body, or `None` when the
    /// string is not closed on its line (the caller reports it: no error travels back).
    #[inline(always)]
    fn string(&mut self, q: u8) -> Option<&'a str> {
        let b = self.b;
        let start = self.i + 1;
        let mut i = start;
        loop {
            i = string_stop(b, i, q);
            let c = *b.get(i)?;
            if c == q {
                self.i = i + 1;
                return Some(cut(self.src, start, i));
            }
            match c {
                b'\n' => return None,
                b'\\' => {
                    let e = *b.get(i + 1)?;
                    if e == b'\n' {
                        // An escaped newline is kept in the string (as V12's scanner did).
                        self.newline(i + 1);
                    }
                    i += 2;
                }
                _ => i += 1,
            }
        }
    }
}

/// Processes the escapes of a raw string body (`\n \t \r \xHH \cN`, anything else stands for
/// itself).
pub fn unescape(raw: &str) -> String {
    if !has_backslash(raw.as_bytes()) {
        return raw.to_string();
    }
    let mut s = String::with_capacity(raw.len());
    let mut it = raw.chars().peekable();
    while let Some(ch) = it.next() {
        if ch != '\\' {
            s.push(ch);
            continue;
        }
        let Some(e) = it.next() else { break };
        match e {
            'n' => s.push('\n'),
            't' => s.push('\t'),
            'r' => s.push('\r'),
            'x' => {
                let mut v = 0u32;
                let mut n = 0;
                while n < 2
                    && let Some(d) = it.peek().and_then(|c| c.to_digit(16))
                {
                    v = v * 16 + d;
                    it.next();
                    n += 1;
                }
                if n == 0 {
                    s.push('x');
                } else {
                    s.push(char::from_u32(v).unwrap_or('?'));
                }
            }
            'c' => {
                let byte = match it.peek().copied() {
                    Some(d @ '0'..='6') => Some(2 + (d as u32 - '0' as u32)),
                    Some('7') => Some(0x0B),
                    Some('8') => Some(0x0C),
                    Some('9') => Some(0x0E),
                    Some('r') => Some(0x0F),
                    Some('p') => Some(0x10),
                    Some('o') => Some(0x11),
                    _ => None,
                };
                match byte {
                    Some(b) => {
                        it.next();
                        s.push(char::from_u32(b).unwrap_or('?'));
                    }
                    None => s.push('c'),
                }
            }
            other => s.push(other),
        }
    }
    s
}

impl<'a> Scanner<'a> {
    /// A scanner at the start of `src`.
    pub(crate) fn new(src: &'a str) -> Self {
        Scanner {
            src,
            b: src.as_bytes(),
            ascii: src.is_ascii(),
            i: 0,
            line: 1,
            col: 1,
            col_pos: 0,
            error: None,
        }
    }

    /// The source's bytes.
    #[inline(always)]
    pub(crate) fn bytes(&self) -> &'a [u8] {
        self.b
    }

    /// Records a scan error and ends the input: nothing after it is read. The error's token is
    /// an `Eof` at the error's position.
    #[cold]
    #[inline(never)]
    fn fail(&mut self, e: LexError) -> Token<'a> {
        self.i = self.b.len();
        self.col_pos = self.i;
        let span = e.span;
        self.error.get_or_insert(e);
        Token { tok: Tok::Eof, span }
    }

    /// The next token (`Eof` at the end, and again on every later call; `Eof` too on a scan
    /// error, which is then in `self.error`).
    pub(crate) fn next_token(&mut self) -> Token<'a> {
        let mut t = Token { tok: Tok::Eof, span: Span::default() };
        self.next_token_into(&mut t);
        t
    }

    /// Scans the next token into `out`, its fields written in place (a token built aside and
    /// copied cost a copy per token and stalled on store forwarding; docs/PERFORMANCE.md).
    pub(crate) fn next_token_into(&mut self, out: &mut Token<'a>) {
        macro_rules! give {
            ($tok:expr, $span:expr) => {{
                out.tok = $tok;
                out.span = $span;
                return;
            }};
        }
        // A scan error: recorded, and `Eof` handed out.
        macro_rules! fail {
            ($e:expr) => {{
                *out = self.fail($e);
                return;
            }};
        }
        let b = self.b;
        let src = self.src;
        while self.i < b.len() {
            // Runs of blanks in a register, not through `self`.
            let mut i = self.i;
            while i < b.len() && CLASS[b[i] as usize] & SPACE != 0 {
                i += 1;
            }
            self.i = i;
            let Some(&c) = b.get(i) else { break };
            match c {
                b'\n' => {
                    // A newline and the next line's indentation in one go.
                    self.newline(i);
                    i += 1;
                    while i < b.len() && CLASS[b[i] as usize] & SPACE != 0 {
                        i += 1;
                    }
                    self.i = i;
                    continue;
                }
                b'/' if b.get(i + 1) == Some(&b'/') => {
                    let mut j = i + 2;
                    while j < b.len() && b[j] != b'\n' {
                        j += 1;
                    }
                    self.i = j;
                    continue;
                }
                b'/' if b.get(i + 1) == Some(&b'*') => {
                    let span = self.span();
                    let mut j = i + 2;
                    loop {
                        if j + 1 >= b.len() {
                            fail!(LexError { span, message: "unterminated block comment".into() });
                        }
                        if b[j] == b'*' && b[j + 1] == b'/' {
                            break;
                        }
                        if b[j] == b'\n' {
                            self.newline(j);
                        }
                        j += 1;
                    }
                    self.i = j + 2;
                    continue;
                }
                0x80.. => {
                    // Non-ASCII: only Unicode white space is allowed outside strings and comments.
                    let ch = src[i..].chars().next().unwrap_or('\u{FFFD}');
                    if ch.is_whitespace() {
                        self.i += ch.len_utf8();
                        continue;
                    }
                    let span = self.span();
                    fail!(LexError {
                        span,
                        message: format!("unexpected character `{}`", ch.escape_debug())
                    });
                }
                _ => {}
            }
            let span = self.span();
            if (c == b'$' || c == b'%') && b.get(i + 1).is_some_and(|&n| is_name_start(n)) {
                self.i += 1;
                let name = self.name();
                give!(if c == b'$' { Tok::Global(name) } else { Tok::Local(name) }, span);
            }
            if is_name_start(c) {
                let name = self.name();
                if name == "switch" && b.get(self.i) == Some(&b'$') {
                    self.i += 1;
                    give!(Tok::Kw(Kw::SwitchStr), span);
                }
                give!(
                    match Kw::from_word(name) {
                        Some(k) => Tok::Kw(k),
                        None => Tok::Ident(name),
                    },
                    span
                );
            }
            if c.is_ascii_digit() || (c == b'.' && b.get(i + 1).is_some_and(|d| d.is_ascii_digit())) {
                match self.number(span) {
                    Ok(tok) => give!(tok, span),
                    Err(e) => fail!(e),
                }
            }
            if c == b'"' || c == b'\'' {
                match self.string(c) {
                    Some(raw) => give!(if c == b'"' { Tok::Str(raw) } else { Tok::Tagged(raw) }, span),
                    None => fail!(LexError { span, message: "unterminated string".into() }),
                }
            }
            match op_at(b, i) {
                Some(op) => {
                    self.i += op.len();
                    give!(Tok::Op(op), span);
                }
                None => fail!(LexError {
                    span,
                    message: format!("unexpected character `{}`", (c as char).escape_debug()),
                }),
            }
        }
        let span = self.span();
        give!(Tok::Eof, span);
    }
}

/// Scans the whole source into tokens (ending with `Eof`).
pub fn tokenize(src: &str) -> Result<Vec<Token<'_>>, LexError> {
    let mut sc = Scanner::new(src);
    let mut out = Vec::new();
    loop {
        let t = sc.next_token();
        if let Some(e) = sc.error.take() {
            return Err(e);
        }
        out.push(t);
        if t.tok == Tok::Eof {
            return Ok(out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok<'_>> {
        tokenize(s).unwrap().into_iter().map(|t| t.tok).collect()
    }

    #[test]
    fn scans_names_numbers_strings() {
        assert_eq!(
            toks("$Pref::Net::Size %a Foo::bar .5 0x10 1e3 \"a\\c0\\n\" switch$"),
            vec![
                Tok::Global("Pref::Net::Size"),
                Tok::Local("a"),
                Tok::Ident("Foo::bar"),
                Tok::Float(0.5),
                Tok::Int(16),
                Tok::Float(1000.0),
                Tok::Str("a\\c0\\n"),
                Tok::Kw(Kw::SwitchStr),
                Tok::Eof
            ]
        );
        assert_eq!(toks("1234.foo")[..3], [Tok::Int(1234), Tok::Op("."), Tok::Ident("foo")]);
        assert_eq!(toks("a: b")[..2], [Tok::Ident("a"), Tok::Op(":")]);
    }

    #[test]
    fn every_keyword_and_only_keywords() {
        use Kw::*;
        let all = [
            If, Else, While, For, Do, Switch, Case, Default, Break, Continue, Return, Function, Package,
            Datablock, New, True, False, Spc, Tab, Nl,
        ];
        for k in all {
            assert_eq!(Kw::from_word(k.text()), Some(k));
            assert_eq!(Kw::from_word(&k.text().to_ascii_uppercase()[..1]), None);
        }
        for w in ["If", "spc", "fo", "forx", "functio", "dataBlock", "", "f", "newx"] {
            assert_eq!(Kw::from_word(w), None, "{w}");
        }
    }

    #[test]
    fn unescapes_like_v12() {
        assert_eq!(unescape("a\\c0\\n\\x41\\xg\\q"), "a\u{2}\nAxgq");
        assert_eq!(unescape("\\c"), "c");
    }

    #[test]
    fn spans_count_characters_and_lines() {
        let t = tokenize("\"é\" x /* a\nb */ y\n  'z\\\nq' w").unwrap();
        let pos: Vec<_> = t.iter().map(|t| (t.span.line, t.span.col)).collect();
        assert_eq!(pos, vec![(1, 1), (1, 5), (2, 6), (3, 3), (4, 4), (4, 5)]);
        assert!(tokenize("a\n  \u{3000}b #").is_err_and(|e| e.span.line == 2 && e.span.col == 6));
    }

    #[test]
    fn eight_byte_scans_agree_with_byte_by_byte() {
        // Every byte value at every position of a window, after name bytes and in a string.
        for c in 0..=255u8 {
            for pos in 0..12 {
                let mut b = vec![b'a'; 12];
                b[pos] = c;
                let want = b.iter().position(|&x| !is_name_char(x)).unwrap_or(b.len());
                assert_eq!(name_end(&b, 0), want, "byte {c:#x} at {pos}");
                let want = b.iter().position(|&x| matches!(x, b'"' | b'\\' | b'\n')).unwrap_or(b.len());
                assert_eq!(string_stop(&b, 0, b'"'), want, "byte {c:#x} at {pos}");
                // Two stops: the first is found.
                let mut b2 = b.clone();
                b2[11] = b'"';
                let want = b2.iter().position(|&x| matches!(x, b'"' | b'\\' | b'\n')).unwrap_or(b2.len());
                assert_eq!(string_stop(&b2, 0, b'"'), want, "byte {c:#x} at {pos}");
            }
        }
    }

    #[test]
    fn decimal_literals_read_as_the_general_parser_reads_them() {
        let texts = [
            "0.1",
            "0.3",
            "1.5",
            ".5",
            "0.6",
            "123456.789012345",
            "99999999999999.9",
            "9.99999999999999",
            "0.000000000000001",
            "1234567890.12345",
            "3.14159265358979",
            "12345678901234.56",
            "0.1e3",
            "1.5E-2",
            "7.0",
            "00.5",
        ];
        for t in texts {
            let want: f64 = t.parse().unwrap();
            match toks(t)[0] {
                Tok::Float(v) => assert_eq!(v.to_bits(), want.to_bits(), "{t}"),
                ref other => panic!("{t}: {other:?}"),
            }
        }
    }

    #[test]
    fn spans_are_line_col() {
        let t = tokenize("a\n  b").unwrap();
        assert_eq!((t[1].span.line, t[1].span.col), (2, 3));
    }
}
