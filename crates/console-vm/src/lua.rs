//! Lua 5.4 bridge (feature `lua`): Lua code calls console functions and object methods,
//! creates, finds and deletes objects and reads and writes their fields; Lua functions become
//! console functions, and the console stays reachable from inside them. An error on either
//! side crosses as an error with its message.
//!
//! The console is not `'static`, so Lua reaches it through a `console` table that exists only
//! while the console is lent: for one chunk in [`run_lua`], and for one call of a Lua function
//! registered with [`register_lua_function`]. The table:
//!
//! | Lua | console |
//! | --- | --- |
//! | `console.call(name, ...)` | call a function (an unknown one is an error) |
//! | `console.method(obj, name, ...)` | call a method (an unknown object is an error) |
//! | `console.eval(src)` | evaluate script (a syntax error is an error) |
//! | `console.new(class [, name])` | create an object, its id |
//! | `console.find(name_or_id)` | an object's id, or nil |
//! | `console.delete(obj)` | delete an object, true if it existed |
//! | `console.get(obj, field)` / `console.set(obj, field, value)` | read and write a field |

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

fn error(text: String) -> mlua::Error {
    mlua::Error::RuntimeError(text)
}

/// The object a Lua value names (an id or a name), or a Lua error.
fn object(c: &Console, v: &mlua::Value) -> mlua::Result<crate::object::ObjectId> {
    let v = from_lua(v);
    c.find_object(&v).ok_or_else(|| error(format!("console: no object {}", v.as_text())))
}

/// Runs `body` with the global `console` table lending `con` to Lua, then puts back whatever
/// `console` was before (a nested lend, from a Lua function the console called, ends there).
fn with_console<R>(
    lua: &Lua,
    con: &mut Console,
    body: impl FnOnce(&Lua) -> mlua::Result<R>,
) -> mlua::Result<R> {
    let cell = RefCell::new(con);
    let before: mlua::Value = lua.globals().get("console")?;
    let result = lua.scope(|scope| {
        let t = lua.create_table()?;
        t.set(
            "call",
            scope.create_function(|lua, (name, args): (String, Variadic<mlua::Value>)| {
                let a: Vec<Value> = args.iter().map(from_lua).collect();
                let mut c = cell.try_borrow_mut().map_err(mlua::Error::external)?;
                if !c.is_function(&name) {
                    return Err(error(format!("console: unknown function {name}")));
                }
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
                    let id = object(&c, &obj)?;
                    let r = c.call_method(&Value::Int(i64::from(id)), &name, &a);
                    to_lua(lua, &r)
                },
            )?,
        )?;
        t.set(
            "eval",
            scope.create_function(|lua, src: String| {
                let mut c = cell.try_borrow_mut().map_err(mlua::Error::external)?;
                let r = c.eval(&src).map_err(|e| error(format!("console: {e}")))?;
                to_lua(lua, &r)
            })?,
        )?;
        t.set(
            "new",
            scope.create_function(|_, (class, name): (String, Option<String>)| {
                let mut c = cell.try_borrow_mut().map_err(mlua::Error::external)?;
                let id =
                    c.create_object(&class, name.as_deref()).map_err(|e| error(format!("console: {e}")))?;
                Ok(i64::from(id))
            })?,
        )?;
        t.set(
            "find",
            scope.create_function(|_, v: mlua::Value| {
                let c = cell.try_borrow().map_err(mlua::Error::external)?;
                Ok(c.find_object(&from_lua(&v)).map(i64::from))
            })?,
        )?;
        t.set(
            "delete",
            scope.create_function(|_, v: mlua::Value| {
                let mut c = cell.try_borrow_mut().map_err(mlua::Error::external)?;
                Ok(match c.find_object(&from_lua(&v)) {
                    Some(id) => c.delete_object(id),
                    None => false,
                })
            })?,
        )?;
        t.set(
            "get",
            scope.create_function(|lua, (obj, field): (mlua::Value, String)| {
                let c = cell.try_borrow().map_err(mlua::Error::external)?;
                let id = object(&c, &obj)?;
                to_lua(lua, &c.get_field(id, &field))
            })?,
        )?;
        t.set(
            "set",
            scope.create_function(|_, (obj, field, value): (mlua::Value, String, mlua::Value)| {
                let mut c = cell.try_borrow_mut().map_err(mlua::Error::external)?;
                let id = object(&c, &obj)?;
                c.set_field(id, &field, from_lua(&value));
                Ok(())
            })?,
        )?;
        lua.globals().set("console", t)?;
        body(lua)
    });
    lua.globals().set("console", before)?;
    result
}

/// Runs a Lua chunk with the `console` table (see the module documentation).
pub fn run_lua(con: &mut Console, lua: &Lua, chunk: &str) -> mlua::Result<()> {
    with_console(lua, con, |lua| lua.load(chunk).exec())
}

/// Registers the Lua global function `lua_name` as the console function `name`. The Lua state
/// is shared (`Rc`) so the console can call it later; inside the call the `console` table
/// reaches the console that called. A Lua error becomes a console error with its message.
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
        match with_console(&lua, c, |_| f.call::<mlua::Value>(args)) {
            Ok(v) => from_lua(&v),
            Err(e) => {
                c.error(&format!("lua: {e}"));
                Value::Empty
            }
        }
    });
    Ok(())
}
