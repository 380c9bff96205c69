//! The syntax tree, and a printer that writes it back as source the parser reads to the same tree.

use crate::lexer::Span;
use std::fmt::Write as _;
use std::rc::Rc;

/// A name in the tree. Shared: the parser makes one per distinct spelling in a file, so a
/// name used a thousand times is allocated (and freed) once.
pub type Ident = Rc<str>;

/// A string literal's text (escapes resolved). Shared, and of the type the compiler's constants
/// hold: the parser makes one per distinct literal in a file, and the compiler takes it as its
/// constant without copying it.
pub type Text = Rc<String>;

/// Binary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    StrEq,
    StrNe,
    Cat,
    CatSpc,
    CatTab,
    CatNl,
    And,
    Or,
}

impl BinOp {
    /// Source spelling.
    pub fn text(self) -> &'static str {
        use BinOp::*;
        match self {
            Add => "+",
            Sub => "-",
            Mul => "*",
            Div => "/",
            Mod => "%",
            BitAnd => "&",
            BitOr => "|",
            BitXor => "^",
            Shl => "<<",
            Shr => ">>",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            Ge => ">=",
            Eq => "==",
            Ne => "!=",
            StrEq => "$=",
            StrNe => "!$=",
            Cat => "@",
            CatSpc => "SPC",
            CatTab => "TAB",
            CatNl => "NL",
            And => "&&",
            Or => "||",
        }
    }
}

/// Unary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum UnOp {
    Neg,
    Not,
    BitNot,
}

/// Variable scope.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// `$name`
    Global,
    /// `%name`
    Local,
}

/// Something that can be assigned.
#[derive(Clone, Debug, PartialEq)]
pub enum LValue {
    /// `$a`, `%a`, `$a[i, j]`.
    Var {
        /// Global or local.
        scope: Scope,
        /// Base name.
        name: Ident,
        /// Index expressions (empty for a plain variable).
        index: Vec<Expr>,
    },
    /// `obj.field`, `obj.field[i]`.
    Field {
        /// The object expression.
        object: Box<Expr>,
        /// Field base name.
        name: Ident,
        /// Index expressions.
        index: Vec<Expr>,
    },
}

/// Expressions.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// Integer literal (also `true`/`false`).
    Int(i64),
    /// Float literal.
    Float(f64),
    /// String literal.
    Str(Text),
    /// Tagged string literal.
    Tagged(Text),
    /// A bare identifier used as a value (its own name as text).
    Ident(Ident),
    /// A variable or field read.
    Load(LValue),
    /// Assignment, possibly compound (`op` is `Some` for `+=` etc.).
    Assign(LValue, Option<BinOp>, Box<Expr>),
    /// `x++` / `x--` (yields the new value, as in V12).
    PostInc(LValue, bool),
    /// Binary operation (both operands in one allocation).
    Bin(BinOp, Box<(Expr, Expr)>),
    /// Unary operation.
    Un(UnOp, Box<Expr>),
    /// `c ? a : b`.
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `f(args)`, `Ns::f(args)` (namespace is `Some`), `Parent::f(args)`.
    Call {
        /// Namespace part, if any.
        ns: Option<Ident>,
        /// Function name.
        name: Ident,
        /// Arguments.
        args: Vec<Expr>,
        /// Where.
        span: Span,
    },
    /// `obj.m(args)`.
    Method {
        /// The object.
        object: Box<Expr>,
        /// Method name.
        name: Ident,
        /// Arguments.
        args: Vec<Expr>,
        /// Where.
        span: Span,
    },
    /// `new Class(name, args) { ... }`.
    New(Box<ObjectDecl>),
}

/// The class part of `new`: a name, or `(expr)`.
#[derive(Clone, Debug, PartialEq)]
pub enum ClassName {
    /// A literal class name.
    Name(Ident),
    /// `new (expr)(...)`.
    Expr(Expr),
}

/// An object declaration (`new` or `datablock`).
#[derive(Clone, Debug, PartialEq)]
pub struct ObjectDecl {
    /// Class.
    pub class: ClassName,
    /// Name expression (None for `()`).
    pub name: Option<Expr>,
    /// Parent object to copy fields from (`: Parent`).
    pub parent: Option<Ident>,
    /// Extra constructor arguments.
    pub args: Vec<Expr>,
    /// Field assignments `field[index] = value`.
    pub fields: Vec<(Ident, Vec<Expr>, Expr)>,
    /// Nested objects.
    pub children: Vec<ObjectDecl>,
    /// True for `datablock`.
    pub datablock: bool,
    /// Where.
    pub span: Span,
}

/// One `case` arm.
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    /// Values joined by `or`.
    pub values: Vec<Expr>,
    /// Body.
    pub body: Vec<Stmt>,
}

/// Statements.
#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// Expression statement.
    Expr(Expr, Span),
    /// `if`.
    If(Expr, Box<Stmt>, Option<Box<Stmt>>, Span),
    /// `while`.
    While(Expr, Box<Stmt>, Span),
    /// `do {} while ();`.
    DoWhile(Box<Stmt>, Expr, Span),
    /// `for`: init, test and step in one box (keeps every statement small).
    For(Box<[Option<Expr>; 3]>, Box<Stmt>, Span),
    /// `switch` (`string` for `switch$`).
    Switch {
        /// Subject (boxed: keeps every statement small).
        subject: Box<Expr>,
        /// `switch$`.
        string: bool,
        /// Arms.
        cases: Vec<Case>,
        /// `default:` body.
        default: Option<Vec<Stmt>>,
        /// Where.
        span: Span,
    },
    /// `break;`
    Break(Span),
    /// `continue;`
    Continue(Span),
    /// `return [e];`
    Return(Option<Expr>, Span),
    /// `{ ... }`
    Block(Vec<Stmt>),
    /// `datablock ...;`
    Datablock(Box<ObjectDecl>),
    /// A function declaration (top level or in a package).
    Function(Box<FunctionDecl>),
    /// `package Name { functions };`
    Package(Ident, Vec<FunctionDecl>, Span),
}

/// `function [Ns::]name(%a, %b) { body }`.
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionDecl {
    /// Namespace, if any.
    pub ns: Option<Ident>,
    /// Name.
    pub name: Ident,
    /// Parameter names (without `%`).
    pub params: Vec<Ident>,
    /// Body.
    pub body: Vec<Stmt>,
    /// Where.
    pub span: Span,
}

/// Prints statements as source.
pub fn print_program(stmts: &[Stmt]) -> String {
    let mut out = String::new();
    for s in stmts {
        print_stmt(s, 0, &mut out);
    }
    out
}

fn indent(n: usize, out: &mut String) {
    for _ in 0..n {
        out.push_str("   ");
    }
}

fn print_block(stmts: &[Stmt], depth: usize, out: &mut String) {
    out.push_str("{\n");
    for s in stmts {
        print_stmt(s, depth + 1, out);
    }
    indent(depth, out);
    out.push('}');
}

fn print_function(f: &FunctionDecl, depth: usize, out: &mut String) {
    indent(depth, out);
    out.push_str("function ");
    if let Some(ns) = &f.ns {
        out.push_str(ns);
        out.push_str("::");
    }
    out.push_str(&f.name);
    out.push('(');
    for (i, p) in f.params.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push('%');
        out.push_str(p);
    }
    out.push_str(")\n");
    indent(depth, out);
    print_block(&f.body, depth, out);
    out.push('\n');
}

/// Prints one statement at an indentation depth.
pub fn print_stmt(s: &Stmt, depth: usize, out: &mut String) {
    indent(depth, out);
    match s {
        Stmt::Expr(e, _) => {
            print_expr(e, out);
            out.push_str(";\n");
        }
        Stmt::If(c, t, e, _) => {
            out.push_str("if (");
            print_expr(c, out);
            out.push_str(")\n");
            print_body(t, depth, out);
            if let Some(e) = e {
                indent(depth, out);
                out.push_str("else\n");
                print_body(e, depth, out);
            }
        }
        Stmt::While(c, b, _) => {
            out.push_str("while (");
            print_expr(c, out);
            out.push_str(")\n");
            print_body(b, depth, out);
        }
        Stmt::DoWhile(b, c, _) => {
            out.push_str("do\n");
            print_body(b, depth, out);
            indent(depth, out);
            out.push_str("while (");
            print_expr(c, out);
            out.push_str(");\n");
        }
        Stmt::For(head, body, _) => {
            let [a, b, c] = &**head;
            out.push_str("for (");
            if let Some(a) = a {
                print_expr(a, out);
            }
            out.push_str("; ");
            if let Some(b) = b {
                print_expr(b, out);
            }
            out.push_str("; ");
            if let Some(c) = c {
                print_expr(c, out);
            }
            out.push_str(")\n");
            print_body(body, depth, out);
        }
        Stmt::Switch { subject, string, cases, default, .. } => {
            out.push_str(if *string { "switch$ (" } else { "switch (" });
            print_expr(subject, out);
            out.push_str(")\n");
            indent(depth, out);
            out.push_str("{\n");
            for c in cases {
                indent(depth + 1, out);
                out.push_str("case ");
                for (i, v) in c.values.iter().enumerate() {
                    if i > 0 {
                        out.push_str(" or ");
                    }
                    print_expr(v, out);
                }
                out.push_str(":\n");
                for s in &c.body {
                    print_stmt(s, depth + 2, out);
                }
            }
            if let Some(d) = default {
                indent(depth + 1, out);
                out.push_str("default:\n");
                for s in d {
                    print_stmt(s, depth + 2, out);
                }
            }
            indent(depth, out);
            out.push_str("}\n");
        }
        Stmt::Break(_) => out.push_str("break;\n"),
        Stmt::Continue(_) => out.push_str("continue;\n"),
        Stmt::Return(e, _) => {
            out.push_str("return");
            if let Some(e) = e {
                out.push(' ');
                print_expr(e, out);
            }
            out.push_str(";\n");
        }
        Stmt::Block(b) => {
            print_block(b, depth, out);
            out.push('\n');
        }
        Stmt::Datablock(d) => {
            print_object(d, depth, out);
            out.push_str(";\n");
        }
        Stmt::Function(f) => {
            out.truncate(out.len() - depth * 3);
            print_function(f, depth, out);
        }
        Stmt::Package(name, fs, _) => {
            out.push_str("package ");
            out.push_str(name);
            out.push_str("\n{\n");
            for f in fs {
                print_function(f, depth + 1, out);
            }
            indent(depth, out);
            out.push_str("};\n");
        }
    }
}

fn print_body(s: &Stmt, depth: usize, out: &mut String) {
    match s {
        Stmt::Block(_) => print_stmt(s, depth, out),
        _ => print_stmt(s, depth + 1, out),
    }
}

fn print_index(index: &[Expr], out: &mut String) {
    if index.is_empty() {
        return;
    }
    out.push('[');
    for (i, e) in index.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        print_expr(e, out);
    }
    out.push(']');
}

fn print_lvalue(lv: &LValue, out: &mut String) {
    match lv {
        LValue::Var { scope, name, index } => {
            out.push(if *scope == Scope::Global { '$' } else { '%' });
            out.push_str(name);
            print_index(index, out);
        }
        LValue::Field { object, name, index } => {
            print_postfix_operand(object, out);
            out.push('.');
            out.push_str(name);
            print_index(index, out);
        }
    }
}

/// Objects of `.field`/`.method` must be primaries; anything else gets parentheses.
fn print_postfix_operand(e: &Expr, out: &mut String) {
    match e {
        Expr::Load(_) | Expr::Ident(_) | Expr::Str(_) | Expr::Call { .. } | Expr::Method { .. } => {
            print_expr(e, out)
        }
        _ => {
            out.push('(');
            print_expr(e, out);
            out.push(')');
        }
    }
}

/// Quotes a string with the escapes the scanner reads back.
pub fn quote(s: &str, q: char, out: &mut String) {
    out.push(q);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '"' => out.push_str("\\\""),
            '\'' => out.push_str("\\'"),
            c if (c as u32) < 0x20 || (0x7f..=0xff).contains(&(c as u32)) => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push(q);
}

fn print_args(args: &[Expr], out: &mut String) {
    out.push('(');
    for (i, a) in args.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        print_expr(a, out);
    }
    out.push(')');
}

fn print_object(d: &ObjectDecl, depth: usize, out: &mut String) {
    out.push_str(if d.datablock { "datablock " } else { "new " });
    match &d.class {
        ClassName::Name(n) => out.push_str(n),
        ClassName::Expr(e) => {
            out.push('(');
            print_expr(e, out);
            out.push(')');
        }
    }
    out.push('(');
    if let Some(n) = &d.name {
        print_expr(n, out);
    }
    if let Some(p) = &d.parent {
        out.push_str(" : ");
        out.push_str(p);
    }
    for a in &d.args {
        out.push_str(", ");
        print_expr(a, out);
    }
    out.push(')');
    if d.fields.is_empty() && d.children.is_empty() && !d.datablock {
        return;
    }
    out.push_str(" {\n");
    for (name, index, value) in &d.fields {
        indent(depth + 1, out);
        out.push_str(name);
        print_index(index, out);
        out.push_str(" = ");
        print_expr(value, out);
        out.push_str(";\n");
    }
    for c in &d.children {
        indent(depth + 1, out);
        print_object(c, depth + 1, out);
        out.push_str(";\n");
    }
    indent(depth, out);
    out.push('}');
}

/// Prints an expression, fully parenthesised.
pub fn print_expr(e: &Expr, out: &mut String) {
    match e {
        Expr::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Expr::Float(f) => {
            if f.is_finite() {
                let _ = write!(out, "{f:?}");
            } else {
                out.push_str("1e999");
            }
        }
        Expr::Str(s) => quote(s, '"', out),
        Expr::Tagged(s) => quote(s, '\'', out),
        Expr::Ident(s) => out.push_str(s),
        Expr::Load(lv) => print_lvalue(lv, out),
        Expr::Assign(lv, op, v) => {
            out.push('(');
            print_lvalue(lv, out);
            out.push(' ');
            if let Some(op) = op {
                out.push_str(op.text());
            }
            out.push_str("= ");
            print_expr(v, out);
            out.push(')');
        }
        Expr::PostInc(lv, up) => {
            out.push('(');
            print_lvalue(lv, out);
            out.push_str(if *up { "++" } else { "--" });
            out.push(')');
        }
        Expr::Bin(op, ab) => {
            let (a, b) = &**ab;
            out.push('(');
            print_expr(a, out);
            out.push(' ');
            out.push_str(op.text());
            out.push(' ');
            print_expr(b, out);
            out.push(')');
        }
        Expr::Un(..) => {
            // A chain of unary operators shares one pair of parentheses, so printing never
            // nests deeper than the parsed source did (the parser bounds nesting).
            out.push('(');
            let mut e = e;
            while let Expr::Un(op, a) = e {
                out.push_str(match op {
                    UnOp::Neg => "- ",
                    UnOp::Not => "! ",
                    UnOp::BitNot => "~ ",
                });
                e = a;
            }
            print_expr(e, out);
            out.push(')');
        }
        Expr::Cond(c, a, b) => {
            out.push('(');
            print_expr(c, out);
            out.push_str(" ? ");
            print_expr(a, out);
            out.push_str(" : ");
            print_expr(b, out);
            out.push(')');
        }
        Expr::Call { ns, name, args, .. } => {
            if let Some(ns) = ns {
                out.push_str(ns);
                out.push_str("::");
            }
            out.push_str(name);
            print_args(args, out);
        }
        Expr::Method { object, name, args, .. } => {
            print_postfix_operand(object, out);
            out.push('.');
            out.push_str(name);
            print_args(args, out);
        }
        Expr::New(d) => {
            out.push('(');
            print_object(d, 0, out);
            out.push(')');
        }
    }
}
