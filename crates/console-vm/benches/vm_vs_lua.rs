//! The same programs in TorqueScript (this VM) and Lua 5.4 (mlua), measured in the same run.
//! Ids starting with `baseline` are Lua.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use std::time::Duration;
use v12_console_vm::{BufferSink, Console, Value};

const TS: &str = include_str!("programs/bench.cs");

const LUA: &str = r#"
function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end
function loop1m() local s = 0 for i = 0, 999999 do s = s + i * 2 end return s end
function words()
  local parts = {"w"}
  for i = 0, 99999 do parts[#parts + 1] = tostring(i) end
  local s = table.concat(parts, " ")
  local t = 0
  for w in string.gmatch(s, "%S+") do t = t + #w end
  return t
end
local ScriptObject = {}
ScriptObject.__index = ScriptObject
function ScriptObject.inc(self, x) return x + 1 end
local B = setmetatable({}, ScriptObject); B.__index = B
local C = setmetatable({}, B); C.__index = C
obj = setmetatable({}, C)
function calls(o) local v = 0 for i = 1, 100000 do v = o:inc(v) end return v end
"#;

fn console() -> (Console, Value) {
    let mut con = Console::new();
    con.set_output(Box::new(BufferSink::new()));
    con.set_instruction_budget(u64::MAX);
    con.eval(TS).expect("bench script");
    let obj = con.eval("return new ScriptObject() { class = C; superClass = B; };").expect("object");
    (con, obj)
}

fn lua() -> mlua::Lua {
    let lua = mlua::Lua::new();
    lua.load(LUA).exec().expect("lua script");
    lua
}

fn bench(c: &mut Criterion) {
    let (mut con, obj) = console();
    let lua = lua();
    let call = |lua: &mlua::Lua, f: &str| -> f64 {
        let func: mlua::Function = lua.globals().get(f).expect("fn");
        func.call::<f64>(()).expect("call")
    };
    assert_eq!(con.call_function("fib", &[Value::Int(20)]).to_string(), "6765");
    assert_eq!(con.call_function("calls", std::slice::from_ref(&obj)).to_string(), "100000");

    let mut g = c.benchmark_group("fib25");
    g.sample_size(10).measurement_time(Duration::from_secs(3));
    g.bench_function("tscript", |b| b.iter(|| black_box(con.call_function("fib", &[Value::Int(25)]))));
    g.bench_function("baseline_lua54", |b| {
        let f: mlua::Function = lua.globals().get("fib").expect("fib");
        b.iter(|| black_box(f.call::<f64>(25).expect("fib")))
    });
    g.finish();

    let mut g = c.benchmark_group("loop_1m");
    g.sample_size(10).measurement_time(Duration::from_secs(3)).throughput(Throughput::Elements(1_000_000));
    g.bench_function("tscript", |b| b.iter(|| black_box(con.call_function("loop1m", &[]))));
    g.bench_function("baseline_lua54", |b| b.iter(|| black_box(call(&lua, "loop1m"))));
    g.finish();

    let mut g = c.benchmark_group("words_100k");
    g.sample_size(10).measurement_time(Duration::from_secs(3)).throughput(Throughput::Elements(100_000));
    g.bench_function("tscript", |b| b.iter(|| black_box(con.call_function("words", &[]))));
    g.bench_function("baseline_lua54", |b| b.iter(|| black_box(call(&lua, "words"))));
    g.finish();

    let mut g = c.benchmark_group("method_calls_100k");
    g.sample_size(10).measurement_time(Duration::from_secs(3)).throughput(Throughput::Elements(100_000));
    g.bench_function("tscript", |b| {
        b.iter(|| black_box(con.call_function("calls", std::slice::from_ref(&obj))))
    });
    g.bench_function("baseline_lua54", |b| {
        let f: mlua::Function = lua.globals().get("calls").expect("calls");
        let o: mlua::Value = lua.globals().get("obj").expect("obj");
        b.iter(|| black_box(f.call::<f64>(o.clone()).expect("calls")))
    });
    g.finish();

    // ~1 MB of script in each language.
    let mut ts_src = String::new();
    let mut lua_src = String::new();
    let mut i = 0;
    while ts_src.len() < 1 << 20 {
        ts_src.push_str(&format!(
            "function f{i}(%a, %b)\n{{\n   %c = %a * 2 + %b;\n   if (%c > 10)\n      $g[{i}] = %c @ \" items\";\n   for (%j = 0; %j < %a; %j++)\n      %c = %c + getWord(%b, %j);\n   return %c;\n}}\n"
        ));
        lua_src.push_str(&format!(
            "function f{i}(a, b)\n   local c = a * 2 + b\n   if c > 10 then\n      g[{i}] = c .. \" items\"\n   end\n   for j = 0, a - 1 do\n      c = c + getWord(b, j)\n   end\n   return c\nend\n"
        ));
        i += 1;
    }
    let mut g = c.benchmark_group("parse_compile_1mb");
    g.sample_size(10)
        .measurement_time(Duration::from_secs(3))
        .throughput(Throughput::Bytes(ts_src.len() as u64));
    g.bench_function("tscript", |b| {
        let mut names = v12_console_vm::intern::Interner::default();
        b.iter(|| {
            let code = v12_console_vm::compiler::compile_source(&ts_src, "big.cs", &mut names);
            black_box(code.expect("parse"))
        })
    });
    g.bench_function("baseline_lua54", |b| {
        b.iter(|| black_box(lua.load(lua_src.as_str()).into_function().expect("lua compile")))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
