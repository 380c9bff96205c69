//! `FileObject`, V12's line-by-line file access from script: `openForRead(file)`,
//! `openForWrite(file)`, `openForAppend(file)`, `readLine()`, `writeLine(text)`, `isEOF()`,
//! `close()`. Reads go through the console's file source (the resource manager: the mods'
//! folders and volumes); writes go to the mod folder the console was given. A path that
//! climbs out of it (`..`, a root) is refused with a console error, as every file function's.
//! An open file is read whole (reads are capped by the resource manager); a write file is
//! kept in memory and written on `close()` or when the object is deleted, at most
//! [`MAX_WRITE`] bytes.

use v12_console_vm::{CallArgs, Console, FieldType, Value};

/// The most a FileObject writes into one file (bytes).
pub const MAX_WRITE: usize = 16 << 20;

/// What a FileObject has open.
#[derive(Debug, Default)]
enum Open {
    #[default]
    Closed,
    Reading {
        lines: Vec<String>,
        next: usize,
    },
    Writing {
        path: std::path::PathBuf,
        text: String,
        append: bool,
    },
}

/// A FileObject's host data.
#[derive(Debug, Default)]
pub struct FileState {
    open: Open,
}

fn state<'a>(c: &'a mut Console, a: &CallArgs<'_>) -> Option<&'a mut FileState> {
    let id = a.this?;
    if c.object_data::<FileState>(id).is_none() {
        c.set_object_data(id, Box::new(FileState::default()));
    }
    c.object_data_mut::<FileState>(id)
}

/// Writes out a file open for writing; false (with a console error) when it failed.
fn flush(c: &mut Console, open: Open) -> bool {
    let Open::Writing { path, text, append } = open else { return true };
    let result = if append {
        use std::io::Write;
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .and_then(|mut f| f.write_all(text.as_bytes()))
    } else {
        path.parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| std::fs::write(&path, text.as_bytes()))
    };
    match result {
        Ok(()) => true,
        Err(e) => {
            c.error(&format!("FileObject: cannot write {}: {e}", path.display()));
            false
        }
    }
}

fn open_write(c: &mut Console, a: &CallArgs<'_>, append: bool, method: &str) -> Value {
    let name = a.str(1).into_owned();
    let Some(path) = c.resolve_path(&name) else {
        c.error(&format!("{method}: {name} is outside the mod folder"));
        return Value::from(false);
    };
    let Some(st) = state(c, a) else { return Value::from(false) };
    let old = std::mem::replace(&mut st.open, Open::Writing { path, text: String::new(), append });
    flush(c, old);
    Value::from(true)
}

pub(crate) fn register(con: &mut Console) {
    let _ = con.register_class("FileObject", "SimObject");
    con.add_field("FileObject", "fileName", FieldType::String, Value::Empty);
    con.register_method(
        "FileObject",
        "openForRead",
        3,
        3,
        "openForRead(file) - true when it opened",
        |c, a| {
            let name = a.str(1).into_owned();
            let text = match c.read_file_text(&name) {
                Ok(t) => t,
                Err(e) => {
                    c.warn(&format!("openForRead: {e}"));
                    if let Some(st) = state(c, a) {
                        st.open = Open::Closed;
                    }
                    return Value::from(false);
                }
            };
            let lines = text.lines().map(str::to_string).collect();
            let Some(st) = state(c, a) else { return Value::from(false) };
            let old = std::mem::replace(&mut st.open, Open::Reading { lines, next: 0 });
            flush(c, old);
            Value::from(true)
        },
    );
    con.register_method(
        "FileObject",
        "openForWrite",
        3,
        3,
        "openForWrite(file) - in the mod folder",
        |c, a| open_write(c, a, false, "openForWrite"),
    );
    con.register_method(
        "FileObject",
        "openForAppend",
        3,
        3,
        "openForAppend(file) - in the mod folder",
        |c, a| open_write(c, a, true, "openForAppend"),
    );
    con.register_method(
        "FileObject",
        "readLine",
        2,
        2,
        "readLine() - the next line, \"\" at the end",
        |c, a| {
            let Some(st) = state(c, a) else { return Value::Empty };
            match &mut st.open {
                Open::Reading { lines, next } => {
                    let line = lines.get(*next).cloned().unwrap_or_default();
                    *next = (*next + 1).min(lines.len());
                    Value::from(line)
                }
                _ => Value::Empty,
            }
        },
    );
    con.register_method(
        "FileObject",
        "isEOF",
        2,
        2,
        "isEOF() - no more lines (or nothing open for reading)",
        |c, a| {
            let Some(st) = state(c, a) else { return Value::from(true) };
            Value::from(match &st.open {
                Open::Reading { lines, next } => *next >= lines.len(),
                _ => true,
            })
        },
    );
    con.register_method("FileObject", "writeLine", 3, 3, "writeLine(text)", |c, a| {
        let line = a.str(1).into_owned();
        let Some(st) = state(c, a) else { return Value::from(false) };
        let ok = match &mut st.open {
            Open::Writing { text, .. } if text.len() + line.len() < MAX_WRITE => {
                text.push_str(&line);
                text.push('\n');
                true
            }
            Open::Writing { .. } => false,
            _ => false,
        };
        if !ok {
            c.error("writeLine: no file open for writing, or the file would pass 16 MiB");
        }
        Value::from(ok)
    });
    con.register_method("FileObject", "close", 2, 2, "close()", |c, a| {
        let Some(st) = state(c, a) else { return Value::Empty };
        let old = std::mem::take(&mut st.open);
        flush(c, old);
        Value::Empty
    });
    con.register_method(
        "FileObject",
        "onRemove",
        2,
        2,
        "onRemove() - a file still open for writing is written",
        |c, a| {
            if let Some(st) = state(c, a) {
                let old = std::mem::take(&mut st.open);
                flush(c, old);
            }
            Value::Empty
        },
    );
}
