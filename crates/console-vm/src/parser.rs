//! Recursive-descent parser for the V12 grammar (plus `do`/`while`, block comments,
//! `(Name : Parent)` datablocks and `.5` floats).

use crate::ast::*;
use crate::intern::FastBuild;
use crate::lexer::{Kw, Scanner, Span, Tok, Token, unescape};
use hashbrown::HashMap;
use std::fmt;
use std::rc::Rc;

/// A syntax error: where, and what was expected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxError {
    /// File name as given to the parser.
    pub file: String,
    /// Line, from 1.
    pub line: u32,
    /// Column, from 1.
    pub col: u32,
    /// `expected X, found Y` or a scanner message.
    pub message: String,
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}: {}", self.file, self.line, self.col, self.message)
    }
}

impl std::error::Error for SyntaxError {}

/// Sets of the parser's caches (two entries each).
const SHORT_SETS: usize = 128;
const SHORT_SLOTS: usize = SHORT_SETS * 2;

/// A name of 1 to 15 bytes packed into two words: its first eight bytes and its length, or
/// for a name of 9 or more bytes the rest with the length in the top byte; `None` for other
/// names. `src` is the source the name is most likely a slice of: a word lying inside it is
/// read in one load and masked to the name (the bytes are the name's own, the addresses being
/// the same); elsewhere byte by byte.
#[inline(always)]
fn short_key(src: &[u8], s: &str) -> Option<(u64, u64)> {
    let b = s.as_bytes();
    let n = b.len();
    if n == 0 || n > 15 {
        return None;
    }
    let at = (b.as_ptr() as usize).wrapping_sub(src.as_ptr() as usize);
    // The `len` (1 to 8) bytes from `from`.
    let word = |from: usize, len: usize| -> u64 {
        if let Some(c) = at.checked_add(from).and_then(|i| src.get(i..i.checked_add(8)?)) {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            return u64::from_le_bytes(w) & (u64::MAX >> (64 - 8 * len));
        }
        // Byte by byte: a `copy_from_slice` of a variable length is a `memcpy` call.
        let mut w = 0u64;
        for (i, &c) in b.iter().skip(from).take(len).enumerate() {
            w |= u64::from(c) << (8 * i);
        }
        w
    };
    if n <= 8 {
        return Some((word(0, n), n as u64));
    }
    Some((word(0, 8), word(8, n - 8) | (n as u64) << 56))
}

/// The first of the two cache entries (a set) where a [`short_key`] may be.
#[inline(always)]
fn short_slot((a, b): (u64, u64)) -> usize {
    (((a ^ b.rotate_left(29)).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 56) as usize % SHORT_SETS) * 2
}

/// A two-way cache entry: a [`short_key`] and its value.
type ShortEntry<T> = (u64, u64, Option<T>);

/// The value cached for `key` in the set at `set`, made the set's first (most recently used).
/// Two ways: direct-mapped, two names used in turn whose keys met in one slot missed on every
/// use.
#[inline(always)]
fn short_get<T: Clone>(cache: &mut [ShortEntry<T>], set: usize, key: (u64, u64)) -> Option<T> {
    let [(a0, b0, v0), (a1, b1, v1)] = cache.get(set..set + 2)? else { return None };
    if (*a0, *b0) == key {
        return v0.clone();
    }
    if (*a1, *b1) == key && v1.is_some() {
        let v = v1.clone();
        cache.swap(set, set + 1);
        return v;
    }
    None
}

/// Puts `key` and its value first in the set at `set`, the first entry moving second.
fn short_put<T>(cache: &mut [ShortEntry<T>], set: usize, (k0, k1): (u64, u64), v: T) {
    if let Some(ways) = cache.get_mut(set..set + 2) {
        ways.swap(0, 1);
        ways[0] = (k0, k1, Some(v));
    }
}

/// A name written with blanks around its `::` (`Foo :: bar`), without them.
fn compact_name(s: &str) -> String {
    s.chars().filter(|c| *c != ' ' && *c != '\t').collect()
}

/// How deeply expressions and statements may nest before the parser gives up (keeps the stack bounded).
const MAX_DEPTH: u32 = 128;
/// How deep an expression tree may grow, counting the links of left-associative chains
/// (`1 + 1 + …`, `a @ b @ …`, `%o.a.a…`) as well as nesting: the parser builds chains in a
/// loop, but the compiler walks the tree recursively, so a 100,000-term chain would overflow
/// the native stack. Past it the parse fails with a clear error.
pub const MAX_EXPR_DEPTH: u32 = 1000;

/// Tokens are scanned on demand (one token of lookahead past the current one), so the
/// parser never holds the whole token list.
struct Parser<'a> {
    sc: Scanner<'a>,
    cur: Token<'a>,
    next: Token<'a>,
    file: &'a str,
    depth: u32,
    /// Links of the left-associative chains open now (see [`MAX_EXPR_DEPTH`]).
    links: u32,
    /// One shared `Ident` per distinct spelling in this file.
    names: HashMap<&'a str, Ident, FastBuild>,
    /// A two-way cache in front of `names` for names of up to 15 bytes (most names),
    /// keyed by the bytes themselves: a hit is two loads, a multiply and two compares.
    short: Vec<ShortEntry<Ident>>,
    /// One shared [`Text`] per distinct string literal in this file, keyed by its source
    /// spelling (escapes unresolved): a literal used again is neither unescaped nor copied,
    /// and the compiler takes the shared text as its constant.
    strs: HashMap<&'a str, Text, FastBuild>,
    /// A two-way cache in front of `strs` for spellings of up to 15 bytes, as `short`.
    short_strs: Vec<ShortEntry<Text>>,
}

/// The parser's result: the error boxed, so a parsed expression travels up the descent levels
/// in a result no wider than itself (measured: the unboxed error made every level copy it).
type PResult<T> = Result<T, Box<SyntaxError>>;

/// Parses a whole file.
pub fn parse(src: &str, file: &str) -> Result<Vec<Stmt>, SyntaxError> {
    let mut out = Vec::new();
    parse_each(src, file, |s| out.push(s))?;
    Ok(out)
}

/// Parses a file, handing each top-level statement to `each` as soon as it is parsed (so a
/// caller can compile and drop it). On an error, the statements already handed over are
/// those before it; the error is the one [`parse`] reports.
pub(crate) fn parse_each(src: &str, file: &str, mut each: impl FnMut(Stmt)) -> Result<(), SyntaxError> {
    let eof = Token { tok: Tok::Eof, span: Span::default() };
    let mut p = Parser {
        sc: Scanner::new(src),
        cur: eof,
        next: eof,
        file,
        depth: 0,
        links: 0,
        // Sized for the file (about one distinct name per 128 bytes of script, as the game's
        // scripts have them): no rehash while the table fills.
        names: HashMap::with_capacity_and_hasher(src.len() / 128, FastBuild::default()),
        short: vec![(0, 0, None); SHORT_SLOTS],
        strs: HashMap::with_capacity_and_hasher(src.len() / 256, FastBuild::default()),
        short_strs: vec![(0, 0, None); SHORT_SLOTS],
    };
    p.cur = p.scan();
    p.next = p.scan();
    let mut result = Ok(());
    while !p.at_eof() {
        match p.top_stmt() {
            Ok(s) => each(s),
            Err(e) => {
                result = Err(*e);
                break;
            }
        }
    }
    // A scan error anywhere in the file wins over a syntax error (as when the whole file was
    // scanned first).
    while p.sc.error.is_none() && p.next.tok != Tok::Eof {
        p.next = p.scan();
    }
    if let Some(e) = p.sc.error.take() {
        return Err(SyntaxError {
            file: file.to_string(),
            line: e.span.line,
            col: e.span.col,
            message: e.message,
        });
    }
    result
}

impl<'a> Parser<'a> {
    #[inline]
    fn peek(&self) -> Tok<'a> {
        self.cur.tok
    }
    fn peek_next(&self) -> Tok<'a> {
        self.next.tok
    }
    /// The next token from the scanner (`Eof` once a scan error was recorded).
    #[inline]
    fn scan(&mut self) -> Token<'a> {
        self.sc.next_token()
    }
    fn span(&self) -> Span {
        self.cur.span
    }
    fn at_eof(&self) -> bool {
        matches!(self.peek(), Tok::Eof)
    }
    #[inline]
    fn bump(&mut self) -> Tok<'a> {
        let t = self.cur.tok;
        if t != Tok::Eof {
            self.cur = self.next;
            self.sc.next_token_into(&mut self.next);
        }
        t
    }
    #[cold]
    fn err<T>(&self, expected: &str) -> PResult<T> {
        let sp = self.span();
        Err(Box::new(SyntaxError {
            file: self.file.to_string(),
            line: sp.line,
            col: sp.col,
            message: format!("expected {expected}, found {}", self.peek()),
        }))
    }
    // Inlined where called with a literal, so the comparison is of a byte or two, not a call.
    #[inline(always)]
    fn is_op(&self, op: &str) -> bool {
        matches!(self.peek(), Tok::Op(o) if o == op)
    }
    #[inline(always)]
    fn eat_op(&mut self, op: &str) -> bool {
        if self.is_op(op) {
            self.bump();
            true
        } else {
            false
        }
    }
    #[inline]
    fn expect_op(&mut self, op: &str) -> PResult<()> {
        if self.eat_op(op) { Ok(()) } else { self.op_err(op) }
    }
    #[cold]
    #[inline(never)]
    fn op_err(&self, op: &str) -> PResult<()> {
        self.err(&format!("`{op}`"))
    }
    #[inline]
    fn is_kw(&self, k: Kw) -> bool {
        matches!(self.peek(), Tok::Kw(x) if x == k)
    }
    #[inline]
    fn eat_kw(&mut self, k: Kw) -> bool {
        if self.is_kw(k) {
            self.bump();
            true
        } else {
            false
        }
    }
    /// The shared tree name for `s`.
    /// Inlined: a hit in the cache is a handful of instructions; the rest is out of line
    /// (out of line, the function cost more: measured).
    #[inline(always)]
    fn name(&mut self, s: &'a str) -> Ident {
        let key = short_key(self.sc.bytes(), s);
        let slot = key.map_or(0, short_slot);
        if let Some(key) = key
            && let Some(n) = short_get(&mut self.short, slot, key)
        {
            return n;
        }
        self.name_miss(s, key, slot)
    }

    /// [`Self::name`] past the cache: the file's table, and the cache slot filled.
    #[inline(never)]
    fn name_miss(&mut self, s: &'a str, key: Option<(u64, u64)>, slot: usize) -> Ident {
        let n = match self.names.get(s) {
            Some(n) => n.clone(),
            None => {
                let n: Ident = Rc::from(s);
                self.names.insert(s, n.clone());
                n
            }
        };
        if let Some(key) = key {
            short_put(&mut self.short, slot, key, n.clone());
        }
        n
    }
    /// The shared text of the string literal spelled `raw` (between its quotes).
    #[inline(always)]
    fn text(&mut self, raw: &'a str) -> Text {
        let key = short_key(self.sc.bytes(), raw);
        let slot = key.map_or(0, short_slot);
        if let Some(key) = key
            && let Some(t) = short_get(&mut self.short_strs, slot, key)
        {
            return t;
        }
        self.text_miss(raw, key, slot)
    }

    /// [`Self::text`] past the cache: the file's table, and the cache slot filled.
    #[inline(never)]
    fn text_miss(&mut self, raw: &'a str, key: Option<(u64, u64)>, slot: usize) -> Text {
        let t = match self.strs.get(raw) {
            Some(t) => t.clone(),
            None => {
                let t = Rc::new(unescape(raw));
                self.strs.insert(raw, t.clone());
                t
            }
        };
        if let Some(key) = key {
            short_put(&mut self.short_strs, slot, key, t.clone());
        }
        t
    }

    /// `Foo::bar` → (Some("Foo"), "bar"); the last `::` splits.
    fn split_ns(&mut self, full: &'a str) -> (Option<Ident>, Ident) {
        // The scanner only puts `:` into a name as `::` (with blanks around it allowed), so
        // the last `:` ends the last `::`.
        match full.bytes().rposition(|c| c == b':') {
            Some(i) if i >= 1 => {
                let ns = full[..i - 1].trim_end();
                let ns = if ns.contains([' ', '\t']) {
                    Rc::from(compact_name(ns).as_str())
                } else {
                    self.name(ns)
                };
                (Some(ns), self.name(full[i + 1..].trim_start()))
            }
            _ => (None, self.name(full)),
        }
    }
    fn ident(&mut self, what: &str) -> PResult<Ident> {
        let s = self.ident_str(what)?;
        Ok(self.name(s))
    }
    fn ident_str(&mut self, what: &str) -> PResult<&'a str> {
        match self.peek() {
            Tok::Ident(s) => {
                self.bump();
                Ok(s)
            }
            _ => self.err(what),
        }
    }
    /// A field or method name: identifiers and keywords both work (`datablock = x;`).
    fn member_name(&mut self) -> PResult<Ident> {
        match self.peek() {
            Tok::Ident(s) => {
                self.bump();
                Ok(self.name(s))
            }
            Tok::Kw(k) => {
                self.bump();
                Ok(self.name(k.text()))
            }
            _ => self.err("a field or method name"),
        }
    }
    fn enter(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH { self.err("less deeply nested code") } else { Ok(()) }
    }

    fn top_stmt(&mut self) -> PResult<Stmt> {
        if self.is_kw(Kw::Function) {
            return Ok(Stmt::Function(Box::new(self.function()?)));
        }
        if self.is_kw(Kw::Package) {
            let span = self.span();
            self.bump();
            let name = self.ident("a package name")?;
            self.expect_op("{")?;
            let mut fs = Vec::new();
            while !self.eat_op("}") {
                if !self.is_kw(Kw::Function) {
                    return self.err("`function` or `}`");
                }
                fs.push(self.function()?);
            }
            self.eat_op(";");
            return Ok(Stmt::Package(name, fs, span));
        }
        self.stmt()
    }

    fn function(&mut self) -> PResult<FunctionDecl> {
        let span = self.span();
        self.bump();
        let full = self.ident_str("a function name")?;
        let (ns, name) = self.split_ns(full);
        self.expect_op("(")?;
        let mut params = Vec::new();
        if !self.eat_op(")") {
            loop {
                match self.peek() {
                    Tok::Local(n) => {
                        self.bump();
                        let n = self.name(n);
                        params.push(n)
                    }
                    _ => return self.err("a parameter `%name`"),
                }
                if self.eat_op(")") {
                    break;
                }
                self.expect_op(",")?;
            }
        }
        self.expect_op("{")?;
        let body = self.block_rest_in(Vec::with_capacity(8))?;
        Ok(FunctionDecl { ns, name, params, body, span })
    }

    /// Statements up to and including the closing `}`.
    fn block_rest(&mut self) -> PResult<Vec<Stmt>> {
        self.block_rest_in(Vec::new())
    }

    /// [`Self::block_rest`] into `out` (a function's body comes with room for a few statements:
    /// one allocation instead of a first and a regrowth).
    fn block_rest_in(&mut self, mut out: Vec<Stmt>) -> PResult<Vec<Stmt>> {
        while !self.eat_op("}") {
            if self.at_eof() {
                return self.err("`}`");
            }
            out.push(self.stmt()?);
        }
        Ok(out)
    }

    fn stmt(&mut self) -> PResult<Stmt> {
        self.enter()?;
        let r = self.stmt_inner();
        self.depth -= 1;
        r
    }

    fn stmt_inner(&mut self) -> PResult<Stmt> {
        let span = self.span();
        match self.peek() {
            Tok::Op("{") => {
                self.bump();
                Ok(Stmt::Block(self.block_rest()?))
            }
            Tok::Op(";") => {
                self.bump();
                Ok(Stmt::Block(Vec::new()))
            }
            Tok::Kw(Kw::If) => {
                self.bump();
                self.expect_op("(")?;
                let c = self.expr()?;
                self.expect_op(")")?;
                let t = self.stmt()?;
                let e = if self.eat_kw(Kw::Else) { Some(Box::new(self.stmt()?)) } else { None };
                Ok(Stmt::If(c, Box::new(t), e, span))
            }
            Tok::Kw(Kw::While) => {
                self.bump();
                self.expect_op("(")?;
                let c = self.expr()?;
                self.expect_op(")")?;
                Ok(Stmt::While(c, Box::new(self.stmt()?), span))
            }
            Tok::Kw(Kw::Do) => {
                self.bump();
                let body = self.stmt()?;
                if !self.eat_kw(Kw::While) {
                    return self.err("`while`");
                }
                self.expect_op("(")?;
                let c = self.expr()?;
                self.expect_op(")")?;
                self.expect_op(";")?;
                Ok(Stmt::DoWhile(Box::new(body), c, span))
            }
            Tok::Kw(Kw::For) => {
                self.bump();
                self.expect_op("(")?;
                let a = if self.is_op(";") { None } else { Some(self.expr()?) };
                self.expect_op(";")?;
                let b = if self.is_op(";") { None } else { Some(self.expr()?) };
                self.expect_op(";")?;
                let c = if self.is_op(")") { None } else { Some(self.expr()?) };
                self.expect_op(")")?;
                Ok(Stmt::For(Box::new([a, b, c]), Box::new(self.stmt()?), span))
            }
            Tok::Kw(k @ (Kw::Switch | Kw::SwitchStr)) => {
                self.bump();
                self.expect_op("(")?;
                let subject = Box::new(self.expr()?);
                self.expect_op(")")?;
                self.expect_op("{")?;
                let mut cases = Vec::new();
                let mut default = None;
                loop {
                    if self.eat_op("}") {
                        break;
                    }
                    if self.eat_kw(Kw::Case) {
                        let mut values = vec![self.expr()?];
                        while matches!(self.peek(), Tok::Ident("or")) {
                            self.bump();
                            values.push(self.expr()?);
                        }
                        self.expect_op(":")?;
                        let body = self.case_body()?;
                        cases.push(Case { values, body });
                    } else if self.eat_kw(Kw::Default) {
                        self.expect_op(":")?;
                        default = Some(self.case_body()?);
                    } else {
                        return self.err("`case`, `default` or `}`");
                    }
                }
                Ok(Stmt::Switch { subject, string: k == Kw::SwitchStr, cases, default, span })
            }
            Tok::Kw(Kw::Break) => {
                self.bump();
                self.expect_op(";")?;
                Ok(Stmt::Break(span))
            }
            Tok::Kw(Kw::Continue) => {
                self.bump();
                self.expect_op(";")?;
                Ok(Stmt::Continue(span))
            }
            Tok::Kw(Kw::Return) => {
                self.bump();
                let e = if self.is_op(";") { None } else { Some(self.expr()?) };
                self.expect_op(";")?;
                Ok(Stmt::Return(e, span))
            }
            Tok::Kw(Kw::Datablock) => {
                let d = self.object_decl(true)?;
                self.expect_op(";")?;
                Ok(Stmt::Datablock(Box::new(d)))
            }
            Tok::Kw(Kw::Function) => self.err("a statement (functions are declared at file level)"),
            _ => {
                let e = self.expr()?;
                self.expect_op(";")?;
                Ok(Stmt::Expr(e, span))
            }
        }
    }

    fn case_body(&mut self) -> PResult<Vec<Stmt>> {
        let mut out = Vec::new();
        while !self.is_kw(Kw::Case) && !self.is_kw(Kw::Default) && !self.is_op("}") {
            if self.at_eof() {
                return self.err("`}`");
            }
            out.push(self.stmt()?);
        }
        Ok(out)
    }

    /// `new`/`datablock` declaration (the keyword is the current token).
    fn object_decl(&mut self, datablock: bool) -> PResult<ObjectDecl> {
        self.enter()?;
        let r = self.object_decl_inner(datablock);
        self.depth -= 1;
        r
    }

    fn object_decl_inner(&mut self, datablock: bool) -> PResult<ObjectDecl> {
        let span = self.span();
        self.bump();
        let class = if self.eat_op("(") {
            let e = self.expr()?;
            self.expect_op(")")?;
            ClassName::Expr(e)
        } else {
            ClassName::Name(self.ident("a class name")?)
        };
        self.expect_op("(")?;
        let mut name = None;
        let mut parent = None;
        let mut args = Vec::new();
        if !self.eat_op(")") {
            if !self.is_op(",") && !self.is_op(":") {
                name = Some(self.ternary()?);
            }
            if self.eat_op(":") {
                parent = Some(self.ident("a parent name")?);
            }
            while self.eat_op(",") {
                args.push(self.expr()?);
            }
            self.expect_op(")")?;
        }
        if parent.is_none() && self.eat_op(":") {
            parent = Some(self.ident("a parent name")?);
        }
        let mut fields = Vec::new();
        let mut children = Vec::new();
        if self.eat_op("{") {
            // Room for a typical object's fields (a datablock has a dozen or more): one
            // allocation instead of two or three as the list grows.
            fields.reserve_exact(if datablock { 16 } else { 8 });
            while !self.eat_op("}") {
                let next_is_assign = matches!(self.peek_next(), Tok::Op("=") | Tok::Op("["));
                if (self.is_kw(Kw::New) || self.is_kw(Kw::Datablock)) && !next_is_assign {
                    let dat = self.is_kw(Kw::Datablock);
                    children.push(self.object_decl(dat)?);
                    self.expect_op(";")?;
                    continue;
                }
                if self.at_eof() {
                    return self.err("`}`");
                }
                let fname = self.member_name()?;
                let index = self.index_list()?;
                self.expect_op("=")?;
                let v = self.expr()?;
                self.expect_op(";")?;
                fields.push((fname, index, v));
            }
        } else if datablock {
            return self.err("`{`");
        }
        Ok(ObjectDecl { class, name, parent, args, fields, children, datablock, span })
    }

    /// `[i, j]` after a name, if there (most names have none: checked before any call).
    #[inline(always)]
    fn index_list(&mut self) -> PResult<Vec<Expr>> {
        if self.is_op("[") { self.index_list_rest() } else { Ok(Vec::new()) }
    }

    /// The index list once `[` is seen.
    fn index_list_rest(&mut self) -> PResult<Vec<Expr>> {
        self.bump();
        let mut out = Vec::new();
        loop {
            out.push(self.expr()?);
            if self.eat_op("]") {
                return Ok(out);
            }
            self.expect_op(",")?;
        }
    }

    fn expr(&mut self) -> PResult<Expr> {
        self.enter()?;
        let r = self.assign();
        self.depth -= 1;
        r
    }

    // Here and below a result is handed on as it came unless there is more to parse: unwrapping
    // and rewrapping it copied a just-built value, which stalls on store forwarding.
    #[inline]
    fn assign(&mut self) -> PResult<Expr> {
        let lhs = self.ternary();
        match self.assign_op() {
            Some(op) => self.assign_to(lhs?, op),
            None => lhs,
        }
    }

    /// The assignment operator at the current token: `Some(None)` for `=`, `Some(Some(op))` for
    /// `op=`. An assignment is an expression wherever one may stand (V12's grammar): the operand
    /// of `!`, `-`, `~`, the right operand of a binary operator — `"x =" SPC %a = 5`,
    /// `if (!%n = getCount())`.
    #[inline(always)]
    fn assign_op(&self) -> Option<Option<BinOp>> {
        Some(match self.peek() {
            Tok::Op("=") => None,
            Tok::Op("+=") => Some(BinOp::Add),
            Tok::Op("-=") => Some(BinOp::Sub),
            Tok::Op("*=") => Some(BinOp::Mul),
            Tok::Op("/=") => Some(BinOp::Div),
            Tok::Op("%=") => Some(BinOp::Mod),
            Tok::Op("&=") => Some(BinOp::BitAnd),
            Tok::Op("|=") => Some(BinOp::BitOr),
            Tok::Op("^=") => Some(BinOp::BitXor),
            Tok::Op("<<=") => Some(BinOp::Shl),
            Tok::Op(">>=") => Some(BinOp::Shr),
            _ => return None,
        })
    }

    /// `lhs op= ...`, the operator `op` seen (and not yet consumed).
    fn assign_to(&mut self, lhs: Expr, op: Option<BinOp>) -> PResult<Expr> {
        let lv = match lhs {
            Expr::Load(lv) => lv,
            _ => return self.err("a variable or field before the assignment"),
        };
        self.bump();
        let rhs = self.expr()?;
        Ok(Expr::Assign(lv, op, Box::new(rhs)))
    }

    #[inline]
    fn ternary(&mut self) -> PResult<Expr> {
        let c = self.binary(0);
        if self.is_op("?") {
            let c = c?;
            self.bump();
            let a = self.expr()?;
            self.expect_op(":")?;
            let b = self.expr()?;
            return Ok(Expr::Cond(Box::new(c), Box::new(a), Box::new(b)));
        }
        c
    }

    #[inline(always)]
    fn peek_binop(&self) -> Option<BinOp> {
        let op = match self.peek() {
            Tok::Op(o) => match o.as_bytes() {
                [b'|', b'|'] => BinOp::Or,
                [b'&', b'&'] => BinOp::And,
                [b'|'] => BinOp::BitOr,
                [b'^'] => BinOp::BitXor,
                [b'&'] => BinOp::BitAnd,
                [b'=', b'='] => BinOp::Eq,
                [b'!', b'='] => BinOp::Ne,
                [b'<'] => BinOp::Lt,
                [b'<', b'='] => BinOp::Le,
                [b'>'] => BinOp::Gt,
                [b'>', b'='] => BinOp::Ge,
                [b'@'] => BinOp::Cat,
                [b'$', b'='] => BinOp::StrEq,
                [b'!', b'$', b'='] => BinOp::StrNe,
                [b'<', b'<'] => BinOp::Shl,
                [b'>', b'>'] => BinOp::Shr,
                [b'+'] => BinOp::Add,
                [b'-'] => BinOp::Sub,
                [b'*'] => BinOp::Mul,
                [b'/'] => BinOp::Div,
                [b'%'] => BinOp::Mod,
                _ => return None,
            },
            Tok::Kw(Kw::Spc) => BinOp::CatSpc,
            Tok::Kw(Kw::Tab) => BinOp::CatTab,
            Tok::Kw(Kw::Nl) => BinOp::CatNl,
            _ => return None,
        };
        Some(op)
    }

    /// Precedence climbing over the left-associative levels 0 (`||`) to 10 (`* / %`).
    fn binary(&mut self, min: usize) -> PResult<Expr> {
        let first = self.unary();
        // Most operands stand alone: hand the result on as it is (unwrapping and rewrapping it
        // copied a value just written, which stalls on store forwarding).
        match self.peek_binop() {
            Some(op) if prec(op) >= min => {}
            _ => return first,
        }
        let mut lhs = first?;
        let mut links = 0;
        while let Some(op) = self.peek_binop() {
            let p = prec(op);
            if p < min {
                break;
            }
            self.bump();
            self.link()?;
            links += 1;
            let rhs = self.binary(p + 1);
            let rhs = match self.assign_op() {
                Some(aop) if matches!(rhs, Ok(Expr::Load(_))) => self.assign_to(rhs?, aop)?,
                _ => rhs?,
            };
            lhs = Expr::Bin(op, Box::new((lhs, rhs)));
        }
        self.links -= links;
        Ok(lhs)
    }

    /// One more link of a left-associative chain (each one deepens the tree by one).
    fn link(&mut self) -> PResult<()> {
        self.links += 1;
        if self.depth + self.links > MAX_EXPR_DEPTH {
            self.err(&format!("a shorter expression (at most {MAX_EXPR_DEPTH} operators or members deep)"))
        } else {
            Ok(())
        }
    }

    // The descent from `binary` to `primary` is inlined into one function so an expression is
    // built where it ends up instead of being copied up through each level (the copies of
    // values just written stalled on store forwarding; docs/PERFORMANCE.md).
    #[inline(always)]
    fn unary(&mut self) -> PResult<Expr> {
        let op = match self.peek() {
            Tok::Op("-") => UnOp::Neg,
            Tok::Op("!") => UnOp::Not,
            Tok::Op("~") => UnOp::BitNot,
            _ => return self.postfix_incdec(),
        };
        self.unary_op(op)
    }

    fn unary_op(&mut self, op: UnOp) -> PResult<Expr> {
        self.bump();
        self.enter()?;
        let e = self.unary();
        let e = match self.assign_op() {
            Some(aop) if matches!(e, Ok(Expr::Load(_))) => self.assign_to(e?, aop),
            _ => e,
        };
        self.depth -= 1;
        Ok(Expr::Un(op, Box::new(e?)))
    }

    #[inline(always)]
    fn postfix_incdec(&mut self) -> PResult<Expr> {
        let e = self.primary();
        let up = if self.is_op("++") {
            true
        } else if self.is_op("--") {
            false
        } else {
            return e;
        };
        match e? {
            Expr::Load(lv) => {
                self.bump();
                Ok(Expr::PostInc(lv, up))
            }
            _ => self.err("a variable or field before `++`/`--`"),
        }
    }

    fn args(&mut self) -> PResult<Vec<Expr>> {
        if self.eat_op(")") {
            return Ok(Vec::new());
        }
        // The room the first push would make (four), allocated here rather than through its
        // out-of-line growth.
        let mut out = Vec::with_capacity(4);
        loop {
            out.push(self.expr()?);
            if self.eat_op(")") {
                return Ok(out);
            }
            self.expect_op(",")?;
        }
    }

    /// Each arm hands its expression straight to the result (or to the member chain after it):
    /// built in a variable and moved out at the end, the just-written value was copied again
    /// and the copy stalled on store forwarding.
    #[inline(always)]
    fn primary(&mut self) -> PResult<Expr> {
        macro_rules! done {
            ($e:expr) => {
                return if self.is_op(".") { self.members($e) } else { Ok($e) }
            };
        }
        let span = self.span();
        match self.peek() {
            Tok::Int(i) => {
                self.bump();
                done!(Expr::Int(i))
            }
            Tok::Float(f) => {
                self.bump();
                done!(Expr::Float(f))
            }
            Tok::Str(s) => {
                self.bump();
                let s = self.text(s);
                done!(Expr::Str(s))
            }
            Tok::Tagged(s) => {
                self.bump();
                let s = self.text(s);
                done!(Expr::Tagged(s))
            }
            Tok::Kw(Kw::True) => {
                self.bump();
                done!(Expr::Int(1))
            }
            Tok::Kw(Kw::False) => {
                self.bump();
                done!(Expr::Int(0))
            }
            Tok::Kw(Kw::New) => {
                let d = Box::new(self.object_decl(false)?);
                done!(Expr::New(d))
            }
            Tok::Global(n) | Tok::Local(n) => {
                let scope = if matches!(self.peek(), Tok::Global(_)) { Scope::Global } else { Scope::Local };
                self.bump();
                let name = self.name(n);
                if !self.is_op("[") {
                    done!(Expr::Load(LValue::Var { scope, name, index: Vec::new() }))
                }
                let index = self.index_list_rest()?;
                done!(Expr::Load(LValue::Var { scope, name, index }))
            }
            Tok::Ident(n) => {
                self.bump();
                if self.eat_op("(") {
                    let args = self.args()?;
                    let (ns, name) = self.split_ns(n);
                    done!(Expr::Call { ns, name, args, span })
                } else if n.contains([' ', '\t']) {
                    let name = Rc::from(compact_name(n).as_str());
                    done!(Expr::Ident(name))
                } else {
                    let name = self.name(n);
                    done!(Expr::Ident(name))
                }
            }
            Tok::Op("(") => {
                self.bump();
                let e = self.expr()?;
                self.expect_op(")")?;
                done!(e)
            }
            _ => self.err("an expression"),
        }
    }

    /// `e.name`, `e.name[i]`, `e.name(args)`, repeated.
    fn members(&mut self, mut e: Expr) -> PResult<Expr> {
        let mut links = 0;
        while self.is_op(".") {
            self.bump();
            self.link()?;
            links += 1;
            let mspan = self.span();
            let name = self.member_name()?;
            if self.eat_op("(") {
                let args = self.args()?;
                e = Expr::Method { object: Box::new(e), name, args, span: mspan };
            } else {
                let index = self.index_list()?;
                e = Expr::Load(LValue::Field { object: Box::new(e), name, index });
            }
        }
        self.links -= links;
        Ok(e)
    }
}

fn prec(op: BinOp) -> usize {
    use BinOp::*;
    match op {
        Or => 0,
        And => 1,
        BitOr => 2,
        BitXor => 3,
        BitAnd => 4,
        Eq | Ne => 5,
        Lt | Le | Gt | Ge => 6,
        Cat | StrEq | StrNe | CatSpc | CatTab | CatNl => 7,
        Shl | Shr => 8,
        Add | Sub => 9,
        Mul | Div | Mod => 10,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precedence_of_cat_over_eq() {
        let p = parse("%a == %b @ \"x\";", "t").unwrap();
        match &p[0] {
            Stmt::Expr(Expr::Bin(BinOp::Eq, ab), _) => assert!(matches!(ab.1, Expr::Bin(BinOp::Cat, _))),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn error_names_position_and_expectation() {
        let e = parse("function f() {\n  %x = ;\n}", "a.cs").unwrap_err();
        assert_eq!(e.to_string(), "a.cs:2:8: expected an expression, found `;`");
    }

    #[test]
    fn a_scan_error_later_in_the_file_wins_over_a_syntax_error() {
        let e = parse("%x = ;\n%y = \"open;\n", "a.cs").unwrap_err();
        assert_eq!(e.to_string(), "a.cs:2:6: unterminated string");
        let e = parse("function f(%a, 3) {}", "a.cs").unwrap_err();
        assert_eq!(e.to_string(), "a.cs:1:16: expected a parameter `%name`, found number `3`");
        match &parse("Foo::Bar::baz();", "t").unwrap()[0] {
            Stmt::Expr(Expr::Call { ns, name, .. }, _) => {
                assert_eq!((ns.as_deref(), &**name), (Some("Foo::Bar"), "baz"))
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn datablock_forms() {
        let src = "datablock A(B) : C { x = 1; };\ndatablock A(D : C) { datablock = 2; };";
        let p = parse(src, "t").unwrap();
        assert_eq!(p.len(), 2);
        for s in &p {
            match s {
                Stmt::Datablock(d) => assert_eq!(d.parent.as_deref(), Some("C")),
                other => panic!("{other:?}"),
            }
        }
    }

    #[test]
    fn names_and_strings_through_the_caches() {
        // More distinct names and literals than the caches hold, each used again later, and a
        // literal with an escape: every one reads back as written, and equal spellings share.
        let mut src = String::new();
        for round in 0..2 {
            for k in 0..700 {
                src.push_str(&format!("%v{k} = \"s{k}\\t\" @ 'g{}';\n", k % 300 + round));
            }
        }
        let p = parse(&src, "t").unwrap();
        assert_eq!(p.len(), 1400);
        for (i, s) in p.iter().enumerate() {
            let (k, round) = (i % 700, i / 700);
            match s {
                Stmt::Expr(Expr::Assign(LValue::Var { name, .. }, None, v), _) => {
                    assert_eq!(&**name, format!("v{k}"));
                    match &**v {
                        Expr::Bin(BinOp::Cat, ab) => match &**ab {
                            (Expr::Str(a), Expr::Tagged(b)) => {
                                assert_eq!(a.as_str(), format!("s{k}\t"));
                                assert_eq!(b.as_str(), format!("g{}", k % 300 + round));
                            }
                            other => panic!("{other:?}"),
                        },
                        other => panic!("{other:?}"),
                    }
                }
                other => panic!("{other:?}"),
            }
        }
        let text = |i: usize| match &p[i] {
            Stmt::Expr(Expr::Assign(_, _, v), _) => match &**v {
                Expr::Bin(_, ab) => match &ab.0 {
                    Expr::Str(t) => t.clone(),
                    _ => unreachable!(),
                },
                _ => unreachable!(),
            },
            _ => unreachable!(),
        };
        assert!(Rc::ptr_eq(&text(3), &text(703)));
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let src = "(".repeat(10000);
        assert!(parse(&src, "t").is_err());
    }
}
