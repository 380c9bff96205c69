//! Programs shaped like game scripts (issue 32), in TorqueScript (this VM) and idiomatic Lua
//! 5.4 (mlua: `local` functions, plain tables), measured in the same run. Ids starting with
//! `baseline` are Lua. `programs/scripts.cs` and `programs/scripts.lua` hold the programs; each
//! pair is checked to compute the same result before it is timed.
//!
//! `cargo bench -p v12-console-vm --bench scripts_vs_lua --features lua [-- FILTER]`;
//! `BENCH_SECS=1` shortens each measurement (default 2 s).

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::time::Duration;
use v12_console_vm::{BufferSink, Console, Value};

const TS: &str = include_str!("programs/scripts.cs");
const LUA: &str = include_str!("programs/scripts.lua");

/// One program: its bench id, the TorqueScript function and the Lua one, one numeric argument.
struct Prog {
    id: &'static str,
    func: &'static str,
    arg: i64,
    /// Passes the bench object (`Counter`/`Holder`) first.
    obj: bool,
    /// A fresh console for every run (state a whole run of `tscript` would start without).
    cold: bool,
}

const PROGS: &[Prog] = &[
    Prog { id: "shape_fib25", func: "fib", arg: 25, obj: false, cold: false },
    Prog { id: "shape_primes30k", func: "primes", arg: 30_000, obj: false, cold: false },
    Prog { id: "shape_sieve300k_cold", func: "sieve", arg: 300_000, obj: false, cold: true },
    Prog { id: "shape_sieve300k_warm", func: "sieve", arg: 300_000, obj: false, cold: false },
    Prog { id: "shape_methods200k", func: "methods", arg: 200_000, obj: true, cold: false },
    Prog { id: "shape_concat100k", func: "concat", arg: 100_000, obj: false, cold: false },
    Prog { id: "suite_str_index100k", func: "strIndex", arg: 100_000, obj: false, cold: false },
    Prog { id: "suite_local_array100k", func: "localArray", arg: 100_000, obj: false, cold: false },
    Prog { id: "suite_grid300_cold", func: "grid", arg: 300, obj: false, cold: true },
    Prog { id: "suite_field_array100k", func: "fieldArray", arg: 100_000, obj: true, cold: false },
    Prog { id: "suite_int_ops500k", func: "intOps", arg: 500_000, obj: false, cold: false },
    Prog { id: "suite_build50k", func: "build", arg: 50_000, obj: false, cold: false },
    Prog { id: "suite_words20k", func: "words", arg: 20_000, obj: false, cold: false },
    Prog { id: "suite_switch200k", func: "commands", arg: 200_000, obj: false, cold: false },
    Prog { id: "suite_ticks100x200", func: "ticks", arg: 200, obj: false, cold: false },
];

fn console() -> (Console, Value) {
    let mut con = Console::new();
    con.set_output(Box::new(BufferSink::new()));
    con.set_instruction_budget(u64::MAX);
    con.eval(TS).expect("bench script");
    con.eval("makePlayers(100);").expect("players");
    let obj = con.eval("return new ScriptObject(Holder) { class = Counter; };").expect("object");
    (con, obj)
}

fn ts_args(p: &Prog, obj: &Value) -> Vec<Value> {
    let mut v = Vec::new();
    if p.obj {
        v.push(obj.clone());
    }
    v.push(Value::Int(p.arg));
    v
}

fn bench(c: &mut Criterion) {
    let secs = std::env::var("BENCH_SECS").ok().and_then(|s| s.parse().ok()).unwrap_or(2.0);
    let (mut con, obj) = console();
    let lua = mlua::Lua::new();
    let progs: mlua::Table = lua.load(LUA).eval().expect("lua programs");
    let make: mlua::Function = progs.get("makePlayers").expect("makePlayers");
    make.call::<()>(100).expect("lua players");

    for p in PROGS {
        let f: mlua::Function = progs.get(p.func).expect("lua function");
        let args = ts_args(p, &obj);
        // Same answer on both sides before timing.
        let ours = con.call_function(p.func, &args).to_f64();
        let theirs = f.call::<f64>(p.arg).expect("lua call");
        assert_eq!(ours, theirs, "{}: tscript and Lua disagree", p.id);

        let mut g = c.benchmark_group(p.id);
        g.sample_size(10)
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs_f64(secs));
        if p.cold {
            g.bench_function("tscript", |b| {
                b.iter_batched(
                    console,
                    |(mut con, _)| black_box(con.call_function(p.func, &args)),
                    BatchSize::PerIteration,
                )
            });
        } else {
            g.bench_function("tscript", |b| b.iter(|| black_box(con.call_function(p.func, &args))));
        }
        g.bench_function("baseline_lua54", |b| b.iter(|| black_box(f.call::<f64>(p.arg).expect("lua"))));
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
