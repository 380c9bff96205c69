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
    // An unknown console function is a Lua error (caught here), not a panic.
    run_lua(&mut con, &lua, "ok, err = pcall(console.call, 'noSuchFunction'); err = tostring(err)")
        .expect("pcall");
    assert!(!lua.globals().get::<bool>("ok").expect("ok"));
    assert!(lua.globals().get::<String>("err").expect("err").contains("noSuchFunction"));
}

#[test]
fn lua_creates_finds_and_deletes_objects_and_reads_and_writes_fields() {
    let (mut con, _out) = console();
    let lua = Lua::new();
    run_lua(
        &mut con,
        &lua,
        r#"
        local id = console.new("ScriptObject", "FromLua")
        console.set(id, "score", 7)
        found = console.find("FromLua") == id
        score = console.get("FromLua", "score")
        tally = console.get("Tally", "total")
        gone = console.delete(id)
        missing = console.find("FromLua") == nil
    "#,
    )
    .expect("lua chunk");
    let g = lua.globals();
    assert!(g.get::<bool>("found").unwrap());
    assert_eq!(g.get::<i64>("score").unwrap(), 7);
    assert_eq!(g.get::<i64>("tally").unwrap(), 10);
    assert!(g.get::<bool>("gone").unwrap());
    assert!(g.get::<bool>("missing").unwrap());
    assert!(con.find_object_str("FromLua").is_none());
}

#[test]
fn the_console_is_reachable_inside_a_lua_function_and_errors_cross_both_ways() {
    let (mut con, out) = console();
    let lua = Rc::new(Lua::new());
    lua.load(
        r#"
        function lua_total(obj) return console.get(obj, "total") + console.call("twice", 1) end
        function lua_bad() return console.call("nope") end
    "#,
    )
    .exec()
    .expect("lua defs");
    register_lua_function(&mut con, lua.clone(), "luaTotal", "lua_total").expect("register");
    register_lua_function(&mut con, lua.clone(), "luaBad", "lua_bad").expect("register");
    assert_eq!(con.eval("return luaTotal(Tally);").unwrap().as_text(), "12");
    // A console error inside a Lua function is a Lua error, which becomes a console error.
    con.eval("luaBad();").expect("script goes on");
    assert!(out.stderr().contains("unknown function nope"), "{}", out.stderr());
    // Lua → console errors: unknown functions and objects, bad script.
    let e = run_lua(&mut con, &lua, "console.call('noSuchFunction')").unwrap_err().to_string();
    assert!(e.contains("unknown function noSuchFunction"), "{e}");
    let e = run_lua(&mut con, &lua, "console.method('Nobody', 'x')").unwrap_err().to_string();
    assert!(e.contains("no object Nobody"), "{e}");
    let e = run_lua(&mut con, &lua, "console.new('NoClass')").unwrap_err().to_string();
    assert!(e.contains("NoClass"), "{e}");
    // After a lend ends, `console` is what it was (nothing) again.
    lua.load("after = console").exec().unwrap();
    assert!(lua.globals().get::<mlua::Value>("after").unwrap().is_nil());
}
