//! Runs one benchmark program a few times, for profiling (`callgrind`) and quick timings:
//! `cargo run --release --example loopbench -- [loop|fib|calls|words|parse]`, or
//! `... -- script FUNCTION ARG` for a program of `benches/programs/scripts.cs` (issue 32);
//! `... -- probe FUNCTION ARG` for one of `benches/programs/probes.cs`;
//! `t2` compiles `ratios`' Tribes 2-sized source (`benches/programs/t2_source.rs`) 20 times.
use v12_console_vm::{BufferSink, Console, Value};

include!("../benches/programs/t2_source.rs");

const TS: &str = include_str!("../benches/programs/bench.cs");

fn main() {
    let which = std::env::args().nth(1).unwrap_or_else(|| "loop".to_string());
    if which == "script" || which == "probe" {
        return script(&which);
    }
    let mut con = Console::new();
    con.set_output(Box::new(BufferSink::new()));
    con.set_instruction_budget(u64::MAX);
    con.eval(TS).expect("bench script");
    let obj = con.eval("return new ScriptObject() { class = C; superClass = B; };").expect("object");
    let mut src = String::new();
    let mut i = 0;
    if which == "t2" {
        src = t2_sources(1 << 20).0;
    }
    while src.len() < 1 << 20 {
        src.push_str(&format!(
            "function f{i}(%a, %b)\n{{\n   %c = %a * 2 + %b;\n   if (%c > 10)\n      $g[{i}] = %c @ \" items\";\n   for (%j = 0; %j < %a; %j++)\n      %c = %c + getWord(%b, %j);\n   return %c;\n}}\n"
        ));
        i += 1;
    }
    // One interner for every run, as the criterion bench has.
    let mut names = v12_console_vm::intern::Interner::default();
    let t = std::time::Instant::now();
    let runs = if matches!(which.as_str(), "parse" | "t2") { 20 } else { 5 };
    for _ in 0..runs {
        match which.as_str() {
            "fib" => drop(std::hint::black_box(con.call_function("fib", &[Value::Int(25)]))),
            "calls" => drop(std::hint::black_box(con.call_function("calls", std::slice::from_ref(&obj)))),
            "words" => drop(std::hint::black_box(con.call_function("words", &[]))),
            "parse" | "t2" => {
                let code = v12_console_vm::compiler::compile_source(&src, "big.cs", &mut names);
                std::hint::black_box(code.expect("parse"));
            }
            _ => drop(std::hint::black_box(con.call_function("loop1m", &[]))),
        }
    }
    println!("{which}: {:?} per run", t.elapsed() / runs);
}

/// One program of `scripts.cs` (`script`) or of `probes.cs` (`probe`), five runs in one console.
fn script(which: &str) {
    let f = std::env::args().nth(2).unwrap_or_else(|| "fib".to_string());
    let arg: i64 = std::env::args().nth(3).and_then(|a| a.parse().ok()).unwrap_or(20);
    let mut con = Console::new();
    con.set_output(Box::new(BufferSink::new()));
    con.set_instruction_budget(u64::MAX);
    if which == "probe" {
        con.eval(include_str!("../benches/programs/probes.cs")).expect("probes");
        con.eval("probeSetup();").expect("probe objects");
        let args = [Value::Int(arg)];
        let t = std::time::Instant::now();
        let mut last = Value::Empty;
        for _ in 0..5 {
            last = std::hint::black_box(con.call_function(&f, &args));
        }
        println!("{f}({arg}) = {last}: {:?} per run", t.elapsed() / 5);
        return;
    }
    con.eval(include_str!("../benches/programs/scripts.cs")).expect("scripts");
    con.eval("makePlayers(100);").expect("players");
    let obj = con.eval("return new ScriptObject(Holder) { class = Counter; };").expect("object");
    let args = if matches!(f.as_str(), "methods" | "fieldArray") {
        vec![obj, Value::Int(arg)]
    } else {
        vec![Value::Int(arg)]
    };
    let t = std::time::Instant::now();
    let mut last = Value::Empty;
    for _ in 0..5 {
        last = std::hint::black_box(con.call_function(&f, &args));
    }
    println!("{f}({arg}) = {last}: {:?} per run", t.elapsed() / 5);
}
