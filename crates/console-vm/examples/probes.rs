//! Probes of hidden shapes (issue 32): the programs of `benches/programs/probes.cs` (the
//! suite's shapes written the other ways a Tribes 2-era script author writes them) against
//! their idiomatic Lua 5.4 twins in `probes.lua`, timed as `ratios` times its programs: this
//! thread's CPU time, the two sides alternating. `cargo run --release --example probes --
//! [ROUNDS] [FILTER]` prints, per probe, the fastest of ROUNDS runs on each side (default 7)
//! and their ratio. `loopbench probe FUNCTION ARG` runs one probe for callgrind.
use std::hint::black_box;
use v12_console_vm::{BufferSink, Console, Value};

const TS: &str = include_str!("../benches/programs/probes.cs");
const LUA: &str = include_str!("../benches/programs/probes.lua");

/// `(probe id, function, argument)`; every probe runs in one console made by `console()`.
const PROBES: &[(&str, &str, i64)] = &[
    ("primes_while_30k", "pPrimesWhile", 30_000),
    ("sieve_local_100k", "pSieveLocal", 100_000),
    ("sieve_global_100k", "pSieveGlobal", 100_000),
    ("fib_iter_5k", "pFibIter", 5_000),
    ("fib_ternary_22", "pFibT", 22),
    ("global_counters_200k", "pGlobals", 200_000),
    ("grid2_while_200", "pGrid2", 200),
    ("str_keys_100k", "pStrKeys", 100_000),
    ("sort_local_1500", "pSortLocal", 1_500),
    ("obj_array_100k", "pObjArray", 100_000),
    ("method_args_50k", "pMethodArgs", 50_000),
    ("parent_calls_100k", "pParent", 100_000),
    ("datablock_reads_50k", "pDataBlock", 50_000),
    ("field_counters_200k", "pFieldCount", 200_000),
    ("bits_if_chain_200k", "pBits", 200_000),
    ("collatz_3k", "pCollatz", 3_000),
    ("switch_num_200k", "pSwitch", 200_000),
    ("switch_str_words_100k", "pSwitchStr", 100_000),
    ("strings_50k", "pStrings", 50_000),
    ("word_scan_20k", "pWordScan", 20_000),
    ("float_math_100k", "pFloat", 100_000),
    ("vector_50k", "pVector", 50_000),
    ("calls3_200k", "pCalls3", 200_000),
    ("fib_else_22", "pFibElse", 22),
    ("primes_sqrt_60k", "pPrimesSqrt", 60_000),
    ("sieve_bool_100k", "pSieveBool", 100_000),
    ("methods2_100k", "pMethods2", 100_000),
    ("concat2_100k", "pConcat2", 100_000),
];

/// This thread's CPU time so far, in nanoseconds.
fn cpu_ns() -> u64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    u64::try_from(t.tv_sec).unwrap_or(0) * 1_000_000_000 + u64::try_from(t.tv_nsec).unwrap_or(0)
}

fn console() -> Console {
    let mut con = Console::new();
    con.set_output(Box::new(BufferSink::new()));
    con.set_instruction_budget(u64::MAX);
    con.eval(TS).expect("probe script");
    con.eval("probeSetup();").expect("probe objects");
    con
}

fn main() {
    let rounds: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(7);
    let filter = std::env::args().nth(2).unwrap_or_default();
    let mut con = console();
    let lua = mlua::Lua::new();
    let progs: mlua::Table = lua.load(LUA).eval().expect("lua probes");
    let setup: mlua::Function = progs.get("probeSetup").expect("probeSetup");
    setup.call::<()>(()).expect("lua probe objects");
    println!("| probe | tscript ms | Lua ms | tscript / Lua |");
    println!("| --- | --- | --- | --- |");
    for &(id, func, arg) in PROBES {
        if !id.contains(&filter) {
            continue;
        }
        let f: mlua::Function = progs.get(func).expect("lua function");
        let args = [Value::Int(arg)];
        let ours = con.call_function(func, &args).to_f64();
        let theirs = f.call::<f64>(arg).expect("lua call");
        assert_eq!(ours, theirs, "{id}: tscript and Lua disagree");
        let (mut best_ts, mut best_lua) = (u64::MAX, u64::MAX);
        for _ in 0..rounds {
            let t0 = cpu_ns();
            black_box(con.call_function(func, &args));
            best_ts = best_ts.min(cpu_ns() - t0);
            let t0 = cpu_ns();
            black_box(f.call::<f64>(arg).expect("lua"));
            best_lua = best_lua.min(cpu_ns() - t0);
        }
        let ms = |ns: u64| ns as f64 / 1e6;
        let ratio = best_ts as f64 / best_lua.max(1) as f64;
        println!("| `{id}` | {:.2} | {:.2} | **{ratio:.2}×** |", ms(best_ts), ms(best_lua));
    }
}
