//! Property tests: the parser never panics; print → parse gives the same tree; arithmetic and
//! comparisons agree with a reference evaluator written directly in Rust.

use proptest::prelude::*;
use v12_console_vm::ast::{BinOp, Expr, LValue, Scope, Stmt, UnOp, print_program};
use v12_console_vm::value::{float_to_i32, fmt_num};
use v12_console_vm::{BufferSink, Console, parse};

fn ident() -> impl Strategy<Value = String> {
    "[a-zA-Z_][a-zA-Z0-9_]{0,6}".prop_filter("not a keyword", |s| {
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
        "[ -~]{0,8}".prop_map(Expr::Str),
        ident().prop_map(Expr::Ident),
        (any::<bool>(), ident()).prop_map(|(g, name)| Expr::Load(LValue::Var {
            scope: if g { Scope::Global } else { Scope::Local },
            name,
            index: vec![]
        })),
    ];
    leaf.prop_recursive(4, 32, 3, |inner| {
        prop_oneof![
            (binop(), inner.clone(), inner.clone()).prop_map(|(o, a, b)| Expr::Bin(
                o,
                Box::new(a),
                Box::new(b)
            )),
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
}
