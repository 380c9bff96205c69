//! The programs of `benches/scripts_vs_lua.rs` timed in this thread's CPU time
//! (`CLOCK_THREAD_CPUTIME_ID`), TorqueScript and Lua 5.4 alternating, for a machine too
//! loaded for criterion's wall-clock times: time the thread spends waiting for a core is not
//! counted. `cargo run --release --example ratios -- [ROUNDS] [FILTER]` prints, per program,
//! the fastest of ROUNDS runs on each side (default 7) and their ratio.
use std::hint::black_box;
use v12_console_vm::{BufferSink, Console, Value};

const TS: &str = include_str!("../benches/programs/scripts.cs");
const LUA: &str = include_str!("../benches/programs/scripts.lua");

include!("../benches/programs/t2_source.rs");

/// `(bench id, function, argument, passes the object, fresh console per run)`, as in the bench.
const PROGS: &[(&str, &str, i64, bool, bool)] = &[
    ("shape_fib25", "fib", 25, false, false),
    ("shape_primes30k", "primes", 30_000, false, false),
    ("shape_sieve300k_cold", "sieve", 300_000, false, true),
    ("shape_sieve300k_warm", "sieve", 300_000, false, false),
    ("shape_methods200k", "methods", 200_000, true, false),
    ("shape_concat100k", "concat", 100_000, false, false),
    ("suite_str_index100k", "strIndex", 100_000, false, false),
    ("suite_local_array100k", "localArray", 100_000, false, false),
    ("suite_grid300_cold", "grid", 300, false, true),
    ("suite_field_array100k", "fieldArray", 100_000, true, false),
    ("suite_int_ops500k", "intOps", 500_000, false, false),
    ("suite_build50k", "build", 50_000, false, false),
    ("suite_words20k", "words", 20_000, false, false),
    ("suite_switch200k", "commands", 200_000, false, false),
    ("suite_ticks100x200", "ticks", 200, false, false),
];

/// This thread's CPU time so far, in nanoseconds.
fn cpu_ns() -> u64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    u64::try_from(t.tv_sec).unwrap_or(0) * 1_000_000_000 + u64::try_from(t.tv_nsec).unwrap_or(0)
}

fn console() -> (Console, Value) {
    let mut con = Console::new();
    con.set_output(Box::new(BufferSink::new()));
    con.set_instruction_budget(u64::MAX);
    con.eval(TS).expect("bench script");
    con.eval("makePlayers(100);").expect("players");
    let obj = con.eval("return new ScriptObject(Holder) { class = Counter; };").expect("object");
    (con, obj)
}

fn main() {
    let rounds: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(7);
    let filter = std::env::args().nth(2).unwrap_or_default();
    let (mut con, obj) = console();
    let lua = mlua::Lua::new();
    let progs: mlua::Table = lua.load(LUA).eval().expect("lua programs");
    let make: mlua::Function = progs.get("makePlayers").expect("makePlayers");
    make.call::<()>(100).expect("lua players");
    println!("| program | tscript ms | Lua ms | tscript / Lua |");
    println!("| --- | --- | --- | --- |");
    for &(id, func, arg, pass_obj, cold) in PROGS {
        if !id.contains(&filter) {
            continue;
        }
        let f: mlua::Function = progs.get(func).expect("lua function");
        let mut args = Vec::new();
        if pass_obj {
            args.push(obj.clone());
        }
        args.push(Value::Int(arg));
        let ours = con.call_function(func, &args).to_f64();
        let theirs = f.call::<f64>(arg).expect("lua call");
        assert_eq!(ours, theirs, "{id}: tscript and Lua disagree");
        let (mut best_ts, mut best_lua) = (u64::MAX, u64::MAX);
        for _ in 0..rounds {
            let t = if cold {
                let (mut fresh, _) = console();
                let t0 = cpu_ns();
                black_box(fresh.call_function(func, &args));
                cpu_ns() - t0
            } else {
                let t0 = cpu_ns();
                black_box(con.call_function(func, &args));
                cpu_ns() - t0
            };
            best_ts = best_ts.min(t);
            let t0 = cpu_ns();
            black_box(f.call::<f64>(arg).expect("lua"));
            best_lua = best_lua.min(cpu_ns() - t0);
        }
        row(id, best_ts, best_lua);
    }
    if "parse_compile_1mb".contains(&filter) {
        parse_compile(&lua, rounds);
    }
}

fn row(id: &str, ts: u64, lua: u64) {
    let ms = |ns: u64| ns as f64 / 1e6;
    println!("| `{id}` | {:.2} | {:.2} | **{:.2}×** |", ms(ts), ms(lua), ts as f64 / lua.max(1) as f64);
}

/// Parse + compile of a Tribes 2-sized script set (`t2_source.rs`, 1 MB) against Lua's `load`
/// of the same program: a fresh name table each run, as a console loading its scripts has.
fn parse_compile(lua: &mlua::Lua, rounds: usize) {
    let (ts_src, lua_src) = t2_sources(1 << 20);
    let (mut best_ts, mut best_lua) = (u64::MAX, u64::MAX);
    for _ in 0..rounds {
        let mut names = v12_console_vm::intern::Interner::default();
        let t0 = cpu_ns();
        let code = v12_console_vm::compiler::compile_source(&ts_src, "t2.cs", &mut names);
        best_ts = best_ts.min(cpu_ns() - t0);
        black_box(code.expect("the T2-sized source parses"));
        let t0 = cpu_ns();
        let f = lua.load(lua_src.as_str()).into_function();
        best_lua = best_lua.min(cpu_ns() - t0);
        black_box(f.expect("the Lua source loads"));
    }
    row("parse_compile_1mb", best_ts, best_lua);
}
