//! Property tests: the parser never panics; print → parse gives the same tree; arithmetic and
//! comparisons agree with a reference evaluator written directly in Rust.

use proptest::prelude::*;
use v12_console_vm::ast::{BinOp, Expr, LValue, Scope, Stmt, UnOp, print_program};
use v12_console_vm::value::{float_to_i32, fmt_num};
use v12_console_vm::{BufferSink, Console, Value, parse};

fn ident() -> impl Strategy<Value = std::rc::Rc<str>> {
    "[a-zA-Z_][a-zA-Z0-9_]{0,6}"
        .prop_filter("not a keyword", |s| {
            ![
                "if",
                "else",
                "while",
                "for",
                "do",
                "switch",
                "case",
                "default",
                "break",
                "continue",
                "return",
                "function",
                "package",
                "datablock",
                "new",
                "true",
                "false",
                "or",
            ]
            .contains(&s.as_str())
                && !["SPC", "TAB", "NL"].contains(&s.as_str())
        })
        .prop_map(std::rc::Rc::from)
}

fn binop() -> impl Strategy<Value = BinOp> {
    use BinOp::*;
    prop::sample::select(vec![
        Add, Sub, Mul, Div, Mod, BitAnd, BitOr, BitXor, Shl, Shr, Lt, Le, Gt, Ge, Eq, Ne, StrEq, StrNe, Cat,
        CatSpc, CatTab, CatNl, And, Or,
    ])
}

fn lvalue(e: BoxedStrategy<Expr>) -> impl Strategy<Value = LValue> {
    prop_oneof![
        (any::<bool>(), ident(), prop::collection::vec(e.clone(), 0..2)).prop_map(|(g, name, index)| {
            LValue::Var { scope: if g { Scope::Global } else { Scope::Local }, name, index }
        }),
        (e, ident()).prop_map(|(o, name)| LValue::Field { object: Box::new(o), name, index: vec![] }),
    ]
}

fn expr() -> BoxedStrategy<Expr> {
    let leaf = prop_oneof![
        (0i64..100000).prop_map(Expr::Int),
        (0.0f64..1e6).prop_map(Expr::Float),
        "[ -~]{0,8}".prop_map(|s| Expr::Str(std::rc::Rc::new(s))),
        ident().prop_map(Expr::Ident),
        (any::<bool>(), ident()).prop_map(|(g, name)| Expr::Load(LValue::Var {
            scope: if g { Scope::Global } else { Scope::Local },
            name,
            index: vec![]
        })),
    ];
    leaf.prop_recursive(4, 32, 3, |inner| {
        prop_oneof![
            (binop(), inner.clone(), inner.clone()).prop_map(|(o, a, b)| Expr::Bin(o, Box::new((a, b)))),
            (prop::sample::select(vec![UnOp::Neg, UnOp::Not, UnOp::BitNot]), inner.clone())
                .prop_map(|(o, a)| Expr::Un(o, Box::new(a))),
            (inner.clone(), inner.clone(), inner.clone()).prop_map(|(c, a, b)| Expr::Cond(
                Box::new(c),
                Box::new(a),
                Box::new(b)
            )),
            (lvalue(inner.clone()), inner.clone()).prop_map(|(l, v)| Expr::Assign(l, None, Box::new(v))),
            (ident(), prop::collection::vec(inner.clone(), 0..3)).prop_map(|(name, args)| Expr::Call {
                ns: None,
                name,
                args,
                span: Default::default()
            }),
            (inner.clone(), ident(), prop::collection::vec(inner.clone(), 0..2)).prop_map(
                |(o, name, args)| {
                    Expr::Method { object: Box::new(o), name, args, span: Default::default() }
                }
            ),
            lvalue(inner).prop_map(Expr::Load),
        ]
    })
    .boxed()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn parser_never_panics(src in "\\PC{0,200}") {
        let _ = parse(&src, "fuzz");
    }

    #[test]
    fn parser_never_panics_on_token_soup(
        toks in prop::collection::vec(prop::sample::select(vec![
            "(", ")", "{", "}", "[", "]", ";", ",", ".", ":", "::", "?", "=", "+=", "++", "@", "SPC", "$=",
            "new", "function", "package", "datablock", "if", "else", "switch$", "case", "or", "default",
            "return", "%a", "$b", "x", "1", ".5", "\"s\"", "'t'", "do", "while", "for",
        ]), 0..60)
    ) {
        let _ = parse(&toks.join(" "), "fuzz");
    }

    #[test]
    fn print_parse_round_trip(es in prop::collection::vec(expr(), 1..4)) {
        let prog: Vec<Stmt> = es.into_iter().map(|e| Stmt::Expr(e, Default::default())).collect();
        let text = print_program(&prog);
        let back = parse(&text, "rt").map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(back, prog, "{}", text);
    }

    #[test]
    fn arithmetic_matches_reference(a in -1000i32..1000, b in -1000i32..1000, fa in -1e4f64..1e4, fb in -1e4f64..1e4) {
        let mut con = Console::new();
        con.set_output(Box::new(BufferSink::new()));
        let ai = i64::from(a);
        let bi = i64::from(b);
        let checks: Vec<(String, String)> = vec![
            (format!("({a}) + ({b})"), fmt_num(f64::from(a) + f64::from(b))),
            (format!("({a}) - ({b})"), fmt_num(f64::from(a) - f64::from(b))),
            (format!("({a}) * ({b})"), fmt_num(f64::from(a) * f64::from(b))),
            (format!("({fa:?}) * ({fb:?})"), fmt_num(fa * fb)),
            (format!("({fa:?}) - ({fb:?})"), fmt_num(fa - fb)),
            (format!("({a}) % ({b})"), if b == 0 { "0".into() } else { (a.wrapping_rem(b)).to_string() }),
            (format!("({a}) & ({b})"), (a & b).to_string()),
            (format!("({a}) | ({b})"), (a | b).to_string()),
            (format!("({a}) ^ ({b})"), (a ^ b).to_string()),
            (format!("({a}) < ({b})"), i32::from(ai < bi).to_string()),
            (format!("({a}) >= ({b})"), i32::from(ai >= bi).to_string()),
            (format!("({fa:?}) <= ({fb:?})"), i32::from(fa <= fb).to_string()),
            (format!("({a}) == ({b})"), i32::from(a == b).to_string()),
            (format!("({a}) != ({b})"), i32::from(a != b).to_string()),
            (format!("\"{a}\" $= \"{b}\""), i32::from(a == b).to_string()),
            (format!("({fa:?}) % 7"), (float_to_i32(fa) % 7).to_string()),
            (format!("-({fa:?})"), fmt_num(-fa)),
            (format!("({a}) @ ({b})"), format!("{a}{b}")),
        ];
        for (src, want) in checks {
            let got = con.eval(&format!("return {src};")).map(|v| v.to_string());
            prop_assert_eq!(got, Ok(want), "{}", src);
        }
    }

    #[test]
    fn random_programs_never_hang(body in prop::collection::vec(expr(), 0..6)) {
        let prog: Vec<Stmt> = body.into_iter().map(|e| Stmt::Expr(e, Default::default())).collect();
        let text = format!("function f(%a, %b) {{ {} }} f(1, 2); while (1) {{ $n++; }}", print_program(&prog));
        let mut con = Console::new();
        con.set_output(Box::new(BufferSink::new()));
        con.set_instruction_budget(20_000);
        let _ = con.eval(&text);
    }

    /// The compiler fuses local-slot sequences into super-instructions; the same code over
    /// globals is not fused, so both must agree on every operand kind (numbers, text, empty).
    #[test]
    fn fused_local_ops_match_unfused_globals(
        a in operand(), b in operand(), k in -50i32..50,
        op in prop::sample::select(vec!["+", "-", "*", "/"]),
        op2 in prop::sample::select(vec!["+", "-", "*", "/"]),
        cmp in prop::sample::select(vec!["<", "<=", ">", ">=", "==", "!="]),
    ) {
        let bodies = [
            format!("return %a {op} %b;"),
            format!("return %a {op} {k};"),
            format!("return (%a {op} %b) {op2} %a;"),
            format!("return %b {op2} (%a {op} {k});"),
            format!("return %a {op} (%b {op2} 3);"),
            format!("%c = %a {op} %b; return %c;"),
            format!("%c = %a {op} {k}; return %c;"),
            format!("%c = %b; %c = %c {op} (%a {op2} 2); return %c;"),
            format!("%d = %b {op} (%a {op2} {k}); return %d;"),
            format!("%s = %b; for (%i = 0; %i < 5; %i++) %s = %s {op} %i {op2} {k}; return %s;"),
            format!("%c = %a; %c = %a {op} $g; return %c;"),
            format!("if (%a {cmp} %b) return 1; return 0;"),
            format!("if (%a {cmp} {k}) return 1; return 0;"),
            format!("if ((%a {op} 1) {cmp} %b) return 1; return 0;"),
            format!("return %a {cmp} %b || %b {cmp} {k};"),
            format!("%n = 0; for (%i = %a; %i {cmp} {k} && %n < 20; %i++) %n++; return %n @ \"/\" @ %i;"),
            format!("%n = 0; while (%n < 5 && %a {cmp} %b) {{ %a = %a {op} 2; %n++; }} return %a;"),
            format!("switch (%a) {{ case {k}: return \"k\"; case 1: return \"one\"; default: return %b; }}"),
        ];
        for body in bodies {
            let mut con = Console::new();
            con.set_output(Box::new(BufferSink::new()));
            con.set_instruction_budget(100_000);
            con.set_global("g", "2.5");
            con.eval(&format!("function t(%a, %b) {{ {body} }}")).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let fused = con.call_function("t", &[Value::from(a.as_str()), Value::from(b.as_str())]).to_string();
            let globals = body.replace('%', "$");
            con.set_global("a", a.as_str());
            con.set_global("b", b.as_str());
            let plain = con.eval(&globals).map(|v| v.to_string()).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(fused, plain, "{} with a={:?} b={:?}", body, a, b);
        }
    }
}

fn operand() -> impl Strategy<Value = String> {
    prop_oneof![
        (-20i32..20).prop_map(|i| i.to_string()),
        (-100.0f64..100.0).prop_map(|f| format!("{f:.3}")),
        Just(String::new()),
        Just("3abc".to_string()),
        Just("x".to_string()),
        Just(" 1e2".to_string()),
    ]
}

/// Found by the `parse` fuzz target: a 70-deep `~~~…x` chain parsed, but its printed form put
/// each operator in its own parentheses, doubling the nesting past the parser's limit.
#[test]
fn deep_unary_chain_prints_and_parses_back() {
    let src = format!("l0;y;{}y;z;", "~".repeat(70));
    let ast = parse(&src, "deep").expect("parses");
    let text = print_program(&ast);
    assert_eq!(parse(&text, "printed").expect("printed parses"), ast);
}
