//! The Lua bridge: Lua calls console functions and object methods, and a Lua function registered
//! as a console function is called from script, all in one console.
#![cfg(feature = "lua")]

use mlua::Lua;
use std::rc::Rc;
use v12_console_vm::lua::{register_lua_function, run_lua};
use v12_console_vm::{BufferSink, Console, Value};

fn console() -> (Console, BufferSink) {
    let mut con = Console::new();
    let out = BufferSink::new();
    con.set_output(Box::new(out.clone()));
    con.eval(
        r#"
        function twice(%x) { return %x * 2; }
        function Counter::add(%this, %n) { %this.total += %n; return %this.total; }
        new ScriptObject(Tally) { class = Counter; total = 10; };
    "#,
    )
    .expect("setup script");
    (con, out)
}

#[test]
fn lua_calls_console_functions_and_methods() {
    let (mut con, out) = console();
    let lua = Lua::new();
    run_lua(
        &mut con,
        &lua,
        r#"
        result_fn = console.call("twice", 21)
        console.method("Tally", "add", 5)
        result_method = console.method("Tally", "add", 2.5)
        result_eval = console.eval("return strupr(\"abc\");")
        console.call("echo", "from lua ", result_fn)
    "#,
    )
    .expect("lua chunk");
    let g = lua.globals();
    assert_eq!(g.get::<f64>("result_fn").expect("fn"), 42.0);
    assert_eq!(g.get::<f64>("result_method").expect("method"), 17.5);
    assert_eq!(g.get::<String>("result_eval").expect("eval"), "ABC");
    assert_eq!(out.stdout(), "from lua 42\n");
    // The method changed the object's field in the console.
    assert_eq!(con.eval("return Tally.total;").expect("field"), Value::from("17.5"));
}

#[test]
fn lua_function_registered_as_console_function() {
    let (mut con, out) = console();
    let lua = Rc::new(Lua::new());
    lua.load("function lua_join(a, b) return a .. '+' .. b end\nfunction lua_fail() error('boom') end")
        .exec()
        .expect("lua defs");
    register_lua_function(&mut con, lua.clone(), "luaJoin", "lua_join").expect("register");
    register_lua_function(&mut con, lua.clone(), "luaFail", "lua_fail").expect("register");
    con.eval(r#"echo(luaJoin("x", twice(4))); $r = luaFail();"#).expect("script");
    assert_eq!(out.stdout(), "x+8\n");
    // A Lua error becomes a console error, and the script goes on.
    assert!(out.stderr().contains("boom"), "{}", out.stderr());
    assert_eq!(con.get_global("r"), Value::Empty);
    // Lua → console → Lua: the registered function is reachable through the bridge too.
    run_lua(&mut con, &lua, r#"joined = console.call("luaJoin", "a", "b")"#).expect("nested");
    assert_eq!(lua.globals().get::<String>("joined").expect("joined"), "a+b");
}

#[test]
fn lua_errors_are_results_not_panics() {
    let (mut con, _out) = console();
    let lua = Lua::new();
    assert!(run_lua(&mut con, &lua, "this is not lua").is_err());
    assert!(run_lua(&mut con, &lua, "console.eval('function broken( {')").is_err());
    // Unknown console function: a console warning and an empty result, not an error.
    run_lua(&mut con, &lua, "v = console.call('noSuchFunction')").expect("unknown function");
    assert_eq!(lua.globals().get::<String>("v").expect("v"), "");
}
