//! Lua 5.4 bridge (feature `lua`): Lua code calls console functions and object methods, and Lua
//! functions become console functions, in the same console.
//!
//! The console is not `Send`/`'static`-borrowable from Lua, so calls are made inside
//! [`run_lua`], which lends the console to Lua for the duration of one chunk.

use crate::{Console, Value};
use mlua::{Lua, MultiValue, Variadic};
use std::cell::RefCell;
use std::rc::Rc;

fn to_lua(lua: &Lua, v: &Value) -> mlua::Result<mlua::Value> {
    Ok(match v {
        Value::Empty => mlua::Value::String(lua.create_string("")?),
        Value::Int(i) => mlua::Value::Integer(*i),
        // A whole double goes over as a Lua integer: its console text is "8", and Lua would
        // print the float as "8.0".
        Value::Float(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => mlua::Value::Integer(*f as i64),
        Value::Float(f) => mlua::Value::Number(*f),
        Value::Str(s) => mlua::Value::String(lua.create_string(s.as_bytes())?),
    })
}

fn from_lua(v: &mlua::Value) -> Value {
    match v {
        mlua::Value::Nil => Value::Empty,
        mlua::Value::Boolean(b) => Value::from(*b),
        mlua::Value::Integer(i) => Value::Int(*i),
        mlua::Value::Number(n) => Value::Float(*n),
        mlua::Value::String(s) => Value::str(s.to_string_lossy()),
        _ => Value::Empty,
    }
}

/// Runs a Lua chunk with two globals: `console.call(name, ...)` (a console function) and
/// `console.method(object, name, ...)` (a method), plus `console.eval(src)`.
pub fn run_lua(con: &mut Console, lua: &Lua, chunk: &str) -> mlua::Result<()> {
    // Lend the console to Lua for the duration of this chunk through a raw cell that is only
    // reachable inside the scope.
    let cell = RefCell::new(con);
    lua.scope(|scope| {
        let t = lua.create_table()?;
        t.set(
            "call",
            scope.create_function(|lua, (name, args): (String, Variadic<mlua::Value>)| {
                let a: Vec<Value> = args.iter().map(from_lua).collect();
                let mut c = cell.try_borrow_mut().map_err(mlua::Error::external)?;
                let r = c.call_function(&name, &a);
                to_lua(lua, &r)
            })?,
        )?;
        t.set(
            "method",
            scope.create_function(
                |lua, (obj, name, args): (mlua::Value, String, Variadic<mlua::Value>)| {
                    let a: Vec<Value> = args.iter().map(from_lua).collect();
                    let mut c = cell.try_borrow_mut().map_err(mlua::Error::external)?;
                    let r = c.call_method(&from_lua(&obj), &name, &a);
                    to_lua(lua, &r)
                },
            )?,
        )?;
        t.set(
            "eval",
            scope.create_function(|lua, src: String| {
                let mut c = cell.try_borrow_mut().map_err(mlua::Error::external)?;
                let r = c.eval(&src).map_err(mlua::Error::external)?;
                to_lua(lua, &r)
            })?,
        )?;
        lua.globals().set("console", t)?;
        lua.load(chunk).exec()
    })
}

/// Registers the Lua global function `lua_name` as the console function `name`.
/// The Lua state is shared (`Rc`) so the console can call it later.
pub fn register_lua_function(
    con: &mut Console,
    lua: Rc<Lua>,
    name: &str,
    lua_name: &str,
) -> mlua::Result<()> {
    let f: mlua::Function = lua.globals().get(lua_name)?;
    con.register_function(name, 1, 0, &format!("{name}(...)"), move |c, a| {
        let args: MultiValue = match a.argv.iter().map(|v| to_lua(&lua, v)).collect::<mlua::Result<_>>() {
            Ok(v) => v,
            Err(e) => {
                c.error(&format!("lua: {e}"));
                return Value::Empty;
            }
        };
        match f.call::<mlua::Value>(args) {
            Ok(v) => from_lua(&v),
            Err(e) => {
                c.error(&format!("lua: {e}"));
                Value::Empty
            }
        }
    });
    Ok(())
}
