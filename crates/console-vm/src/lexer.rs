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

/// Token kinds.
#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    /// Identifier, possibly with `::` inside (`Foo::bar`).
    Ident(String),
    /// `$name`.
    Global(String),
    /// `%name`.
    Local(String),
    /// Integer literal.
    Int(i64),
    /// Float literal.
    Float(f64),
    /// `"..."` with escapes processed.
    Str(String),
    /// `'...'` with escapes processed.
    Tagged(String),
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
        Some(match w {
            "if" => Kw::If,
            "else" => Kw::Else,
            "while" => Kw::While,
            "for" => Kw::For,
            "do" => Kw::Do,
            "switch" => Kw::Switch,
            "case" => Kw::Case,
            "default" => Kw::Default,
            "break" => Kw::Break,
            "continue" => Kw::Continue,
            "return" => Kw::Return,
            "function" => Kw::Function,
            "package" => Kw::Package,
            "datablock" => Kw::Datablock,
            "new" => Kw::New,
            "true" => Kw::True,
            "false" => Kw::False,
            "SPC" => Kw::Spc,
            "TAB" => Kw::Tab,
            "NL" => Kw::Nl,
            _ => return None,
        })
    }
}

impl fmt::Display for Tok {
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
#[derive(Clone, Debug)]
pub struct Token {
    /// The token.
    pub tok: Tok,
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

const OPS: [&str; 47] = [
    "<<=", ">>=", "!$=", "::", "==", "!=", "<=", ">=", "&&", "||", "<<", ">>", "++", "--", "+=", "-=", "*=",
    "/=", "%=", "&=", "|=", "^=", "$=", "@", "+", "-", "*", "/", "%", "<", ">", "=", "!", "~", "&", "|", "^",
    "?", ":", ";", ",", ".", "(", ")", "{", "}", "[",
];

/// Scans the whole source into tokens (ending with `Eof`).
pub fn tokenize(src: &str) -> Result<Vec<Token>, LexError> {
    let chars: Vec<char> = src.chars().collect();
    let mut out = Vec::with_capacity(chars.len() / 4 + 1);
    let mut i = 0usize;
    let mut line = 1u32;
    let mut col = 1u32;
    macro_rules! adv {
        () => {{
            if chars[i] == '\n' {
                line += 1;
                col = 1;
            } else {
                col += 1;
            }
            i += 1;
        }};
    }
    while i < chars.len() {
        let c = chars[i];
        let span = Span { line, col };
        if c.is_whitespace() {
            adv!();
            continue;
        }
        if c == '/' && chars.get(i + 1) == Some(&'/') {
            while i < chars.len() && chars[i] != '\n' {
                adv!();
            }
            continue;
        }
        if c == '/' && chars.get(i + 1) == Some(&'*') {
            adv!();
            adv!();
            loop {
                if i >= chars.len() {
                    return Err(LexError { span, message: "unterminated block comment".into() });
                }
                if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    adv!();
                    adv!();
                    break;
                }
                adv!();
            }
            continue;
        }
        if (c == '$' || c == '%')
            && let Some(&n) = chars.get(i + 1)
            && (n.is_ascii_alphabetic() || n == '_')
        {
            adv!();
            let name = scan_name(&chars, &mut i, &mut col);
            out.push(Token { tok: if c == '$' { Tok::Global(name) } else { Tok::Local(name) }, span });
            continue;
        }
        if c.is_ascii_alphabetic() || c == '_' {
            let name = scan_name(&chars, &mut i, &mut col);
            if name == "switch" && chars.get(i) == Some(&'$') {
                adv!();
                out.push(Token { tok: Tok::Kw(Kw::SwitchStr), span });
                continue;
            }
            let tok = match Kw::from_word(&name) {
                Some(k) => Tok::Kw(k),
                None => Tok::Ident(name),
            };
            out.push(Token { tok, span });
            continue;
        }
        if c.is_ascii_digit() || (c == '.' && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit())) {
            let tok = scan_number(&chars, &mut i, &mut col, span)?;
            out.push(Token { tok, span });
            continue;
        }
        if c == '"' || c == '\'' {
            adv!();
            let mut s = String::new();
            loop {
                if i >= chars.len() || chars[i] == '\n' {
                    return Err(LexError { span, message: "unterminated string".into() });
                }
                let ch = chars[i];
                if ch == c {
                    adv!();
                    break;
                }
                if ch == '\\' {
                    adv!();
                    if i >= chars.len() {
                        return Err(LexError { span, message: "unterminated string".into() });
                    }
                    let e = chars[i];
                    adv!();
                    match e {
                        'n' => s.push('\n'),
                        't' => s.push('\t'),
                        'r' => s.push('\r'),
                        'x' => {
                            let mut v = 0u32;
                            let mut n = 0;
                            while n < 2 && i < chars.len() && chars[i].is_ascii_hexdigit() {
                                v = v * 16 + chars[i].to_digit(16).unwrap_or(0);
                                adv!();
                                n += 1;
                            }
                            if n == 0 {
                                s.push('x');
                            } else {
                                s.push(char::from_u32(v).unwrap_or('?'));
                            }
                        }
                        'c' => {
                            let code = chars.get(i).copied();
                            let byte = match code {
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
                                    adv!();
                                    s.push(char::from_u32(b).unwrap_or('?'));
                                }
                                None => s.push('c'),
                            }
                        }
                        other => s.push(other),
                    }
                    continue;
                }
                s.push(ch);
                adv!();
            }
            out.push(Token { tok: if c == '"' { Tok::Str(s) } else { Tok::Tagged(s) }, span });
            continue;
        }
        let mut matched = None;
        for op in OPS {
            let n = op.chars().count();
            if i + n <= chars.len() && chars[i..i + n].iter().copied().eq(op.chars()) {
                matched = Some(op);
                break;
            }
        }
        let op = match matched {
            Some(op) => op,
            None if c == ']' => "]",
            None => {
                return Err(LexError {
                    span,
                    message: format!("unexpected character `{}`", c.escape_debug()),
                });
            }
        };
        for _ in 0..op.len() {
            adv!();
        }
        out.push(Token { tok: Tok::Op(op), span });
    }
    out.push(Token { tok: Tok::Eof, span: Span { line, col } });
    Ok(out)
}

/// `[A-Za-z_][A-Za-z0-9_]*` with inner `::` (a trailing `:` is not part of the name).
fn scan_name(chars: &[char], i: &mut usize, col: &mut u32) -> String {
    let mut s = String::new();
    loop {
        while *i < chars.len() && (chars[*i].is_ascii_alphanumeric() || chars[*i] == '_') {
            s.push(chars[*i]);
            *i += 1;
            *col += 1;
        }
        if *i + 2 < chars.len()
            && chars[*i] == ':'
            && chars[*i + 1] == ':'
            && (chars[*i + 2].is_ascii_alphabetic() || chars[*i + 2] == '_')
        {
            s.push_str("::");
            *i += 2;
            *col += 2;
            continue;
        }
        return s;
    }
}

fn scan_number(chars: &[char], i: &mut usize, col: &mut u32, span: Span) -> Result<Tok, LexError> {
    let start = *i;
    let bump = |i: &mut usize, col: &mut u32| {
        *i += 1;
        *col += 1;
    };
    if chars[*i] == '0' && matches!(chars.get(*i + 1), Some('x') | Some('X')) {
        bump(i, col);
        bump(i, col);
        let hs = *i;
        while *i < chars.len() && chars[*i].is_ascii_hexdigit() {
            bump(i, col);
        }
        let text: String = chars[hs..*i].iter().collect();
        return match i64::from_str_radix(&text, 16) {
            Ok(v) => Ok(Tok::Int(v & 0xFFFF_FFFF)),
            Err(_) => Err(LexError { span, message: "malformed hex number".into() }),
        };
    }
    let mut is_float = false;
    while *i < chars.len() && chars[*i].is_ascii_digit() {
        bump(i, col);
    }
    if *i < chars.len() && chars[*i] == '.' && chars.get(*i + 1).is_some_and(|d| d.is_ascii_digit()) {
        is_float = true;
        bump(i, col);
        while *i < chars.len() && chars[*i].is_ascii_digit() {
            bump(i, col);
        }
    }
    if *i < chars.len() && (chars[*i] == 'e' || chars[*i] == 'E') {
        let mut j = *i + 1;
        if j < chars.len() && (chars[j] == '+' || chars[j] == '-') {
            j += 1;
        }
        if j < chars.len() && chars[j].is_ascii_digit() {
            is_float = true;
            while *i < j {
                bump(i, col);
            }
            while *i < chars.len() && chars[*i].is_ascii_digit() {
                bump(i, col);
            }
        }
    }
    let text: String = chars[start..*i].iter().collect();
    if !is_float && let Ok(v) = text.parse::<i64>() {
        return Ok(Tok::Int(v));
    }
    match text.parse::<f64>() {
        Ok(v) => Ok(Tok::Float(v)),
        Err(_) => Err(LexError { span, message: "malformed number".into() }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok> {
        tokenize(s).unwrap().into_iter().map(|t| t.tok).collect()
    }

    #[test]
    fn scans_names_numbers_strings() {
        assert_eq!(
            toks("$Pref::Net::Size %a Foo::bar .5 0x10 1e3 \"a\\c0\\n\" switch$"),
            vec![
                Tok::Global("Pref::Net::Size".into()),
                Tok::Local("a".into()),
                Tok::Ident("Foo::bar".into()),
                Tok::Float(0.5),
                Tok::Int(16),
                Tok::Float(1000.0),
                Tok::Str("a\u{2}\n".into()),
                Tok::Kw(Kw::SwitchStr),
                Tok::Eof
            ]
        );
        assert_eq!(toks("1234.foo")[..3], [Tok::Int(1234), Tok::Op("."), Tok::Ident("foo".into())]);
        assert_eq!(toks("a: b")[..2], [Tok::Ident("a".into()), Tok::Op(":")]);
    }

    #[test]
    fn spans_are_line_col() {
        let t = tokenize("a\n  b").unwrap();
        assert_eq!((t[1].span.line, t[1].span.col), (2, 3));
    }
}
