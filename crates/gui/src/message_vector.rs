//! MessageVector (V12's chat and HUD message store): lines of text with a tag each, pushed
//! and popped at either end. Tribes 2's scripts make them on the server as well as the client
//! (`new MessageVector(HudMessageVector);`), so the class and its methods need no drawing.

use std::collections::VecDeque;
use v12_console_vm::{CallArgs, Console, ConsoleError, ObjectId, Value};

/// Most lines one vector keeps: past it the oldest line goes.
pub const MAX_LINES: usize = 10_000;

#[derive(Debug, Default)]
struct Lines(VecDeque<(String, i32)>);

fn this(a: &CallArgs<'_>) -> ObjectId {
    a.this.unwrap_or(0)
}

fn lines_mut(con: &mut Console, id: ObjectId) -> Option<&mut Lines> {
    if con.object_data::<Lines>(id).is_none() {
        con.set_object_data(id, Box::new(Lines::default()));
    }
    con.object_data_mut::<Lines>(id)
}

fn lines(con: &Console, id: ObjectId) -> Option<&Lines> {
    con.object_data::<Lines>(id)
}

fn index(a: &CallArgs<'_>, i: usize) -> Option<usize> {
    usize::try_from(a.i32(i)).ok()
}

/// Registers the class and its methods.
pub fn register(con: &mut Console) -> Result<(), ConsoleError> {
    let m = "MessageVector";
    con.register_class(m, "SimObject")?;
    con.register_method(m, "pushBackLine", 3, 4, "(text, tag)", |c, a| {
        let line = (a.str(1).into_owned(), if a.len() > 2 { a.i32(2) } else { 0 });
        if let Some(l) = lines_mut(c, this(a)) {
            if l.0.len() >= MAX_LINES {
                l.0.pop_front();
            }
            l.0.push_back(line);
        }
    });
    con.register_method(m, "pushFrontLine", 3, 4, "(text, tag)", |c, a| {
        let line = (a.str(1).into_owned(), if a.len() > 2 { a.i32(2) } else { 0 });
        if let Some(l) = lines_mut(c, this(a)) {
            if l.0.len() >= MAX_LINES {
                l.0.pop_back();
            }
            l.0.push_front(line);
        }
    });
    con.register_method(m, "popBackLine", 2, 2, "()", |c, a| {
        lines_mut(c, this(a)).and_then(|l| l.0.pop_back()).is_some()
    });
    con.register_method(m, "popFrontLine", 2, 2, "()", |c, a| {
        lines_mut(c, this(a)).and_then(|l| l.0.pop_front()).is_some()
    });
    con.register_method(m, "insertLine", 4, 5, "(pos, text, tag)", |c, a| {
        let (pos, text, tag) = (index(a, 1), a.str(2).into_owned(), if a.len() > 3 { a.i32(3) } else { 0 });
        match (pos, lines_mut(c, this(a))) {
            (Some(p), Some(l)) if p <= l.0.len() && l.0.len() < MAX_LINES => {
                l.0.insert(p, (text, tag));
                true
            }
            _ => false,
        }
    });
    con.register_method(m, "deleteLine", 3, 3, "(pos)", |c, a| {
        let pos = index(a, 1);
        pos.and_then(|p| lines_mut(c, this(a)).and_then(|l| l.0.remove(p))).is_some()
    });
    con.register_method(m, "clear", 2, 2, "()", |c, a| {
        if let Some(l) = lines_mut(c, this(a)) {
            l.0.clear();
        }
    });
    con.register_method(m, "getNumLines", 2, 2, "()", |c, a| {
        Value::Int(lines(c, this(a)).map_or(0, |l| l.0.len()) as i64)
    });
    con.register_method(m, "getLineText", 3, 3, "(pos)", |c, a| {
        let pos = index(a, 1);
        Value::from(pos.and_then(|p| lines(c, this(a))?.0.get(p).map(|l| l.0.clone())).unwrap_or_default())
    });
    con.register_method(m, "getLineTag", 3, 3, "(pos)", |c, a| {
        let pos = index(a, 1);
        Value::Int(i64::from(pos.and_then(|p| lines(c, this(a))?.0.get(p).map(|l| l.1)).unwrap_or(0)))
    });
    con.register_method(m, "getLineIndexByTag", 3, 3, "(tag)", |c, a| {
        let tag = a.i32(1);
        let at = lines(c, this(a)).and_then(|l| l.0.iter().position(|x| x.1 == tag));
        Value::Int(at.map_or(-1, |p| p as i64))
    });
    con.register_method(m, "getLineTextByTag", 3, 3, "(tag)", |c, a| {
        let tag = a.i32(1);
        let t = lines(c, this(a)).and_then(|l| l.0.iter().find(|x| x.1 == tag).map(|x| x.0.clone()));
        Value::from(t.unwrap_or_default())
    });
    Ok(())
}
