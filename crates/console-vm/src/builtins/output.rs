//! Built-ins: output and control: echo, warn, error, quit, eval, exec, call, isFunction, trace and friends.

use super::*;

pub(super) fn register(c: &mut Console) {
    // ---- output and control ----
    c.register_function("echo", 1, 0, "echo(text, ...)", |c, a| {
        let s: String = a.argv.iter().map(|v| v.to_string()).collect();
        c.print(Level::Normal, &s);
    });
    c.register_function("warn", 1, 0, "warn(text, ...)", |c, a| {
        let s: String = a.argv.iter().map(|v| v.to_string()).collect();
        c.print(Level::Warning, &s);
    });
    c.register_function("error", 1, 0, "error(text, ...)", |c, a| {
        let s: String = a.argv.iter().map(|v| v.to_string()).collect();
        c.print(Level::Error, &s);
    });
    c.register_function("eval", 2, 2, "eval(script)", |c, a| {
        let src = a.str(0).into_owned();
        c.eval_in_caller(&src)
    });
    c.register_function("exec", 2, 4, "exec(fileName)", |c, a| {
        let f = a.str(0).into_owned();
        match c.exec_file(&f) {
            Ok(_) => true,
            Err(crate::console::ConsoleError::Syntax(_)) => false,
            Err(e) => {
                let loc = c.location();
                c.error(&format!("{loc}{e}"));
                false
            }
        }
    });
    c.register_function("call", 2, 0, "call(funcName, args...)", |c, a| {
        let f = a.str(0).into_owned();
        c.call_function(&f, &a.argv[1..])
    });
    c.register_function("trace", 2, 2, "trace(bool)", |c, a| {
        c.set_trace(a.bool(0));
        c.echo(&format!("Console trace is {}", if c.trace { "on" } else { "off" }));
    });
    register_profiler(c);
    c.register_function("tree", 1, 2, "tree([object])", |c, a| {
        let root = if a.is_empty() { Some(crate::object::ROOT_GROUP_ID) } else { c.find_object(&a.get(0)) };
        if let Some(r) = root {
            for l in c.tree_lines(r) {
                c.echo(&l);
            }
        }
    });
    c.register_function("quit", 1, 1, "quit()", |c, _a| {
        c.quit = true;
    });
    c.register_function("isObject", 2, 2, "isObject(object)", |c, a| c.find_object(&a.get(0)).is_some());
    c.register_function("nameToID", 2, 2, "nameToID(objectName)", |c, a| match c.find_object(&a.get(0)) {
        Some(id) => Value::Int(i64::from(id)),
        None => Value::Int(-1),
    });
    c.register_function("isFunction", 2, 2, "isFunction(funcName)", |c, a| {
        let f = a.str(0).into_owned();
        c.is_function(&f)
    });
    c.register_function("isPackage", 2, 2, "isPackage(packageName)", |c, a| c.is_package(&a.str(0)));
    c.register_function("activatePackage", 2, 2, "activatePackage(packageName)", |c, a| {
        let p = a.str(0).into_owned();
        c.activate_package(&p);
    });
    c.register_function("deactivatePackage", 2, 2, "deactivatePackage(packageName)", |c, a| {
        let p = a.str(0).into_owned();
        c.deactivate_package(&p);
    });
    c.register_function("deleteVariables", 2, 2, "deleteVariables(wildCard)", |c, a| {
        let pat = a.str(0).trim_start_matches('$').to_string();
        for i in 0..c.globals.len() {
            if !c.globals[i].is_empty() && wildcard(&pat, c.names.text(crate::intern::Name(i as u32))) {
                c.globals[i] = Value::Empty;
            }
        }
        let names = &c.names;
        c.elems.clear_where(|b, i| wildcard(&pat, &crate::elements::elem_text(names.text(b), i)));
    });
    c.register_function("export", 2, 4, "export(searchString [, fileName [, append]])", |c, a| {
        let pat = a.str(0).trim_start_matches('$').to_string();
        let mut lines: Vec<String> = Vec::new();
        for i in 0..c.globals.len() {
            let n = c.names.text(crate::intern::Name(i as u32));
            if !c.globals[i].is_empty() && wildcard(&pat, n) {
                let mut q = String::new();
                crate::ast::quote(&c.globals[i].as_text(), '"', &mut q);
                lines.push(format!("${n} = {q};"));
            }
        }
        for (b, i, v) in c.elems.iter() {
            let n = crate::elements::elem_text(c.names.text(b), i);
            if wildcard(&pat, &n) {
                let mut q = String::new();
                crate::ast::quote(&v.as_text(), '"', &mut q);
                lines.push(format!("${n} = {q};"));
            }
        }
        lines.sort_by_key(|l| l.to_ascii_lowercase());
        if a.len() >= 2 && !a.str(1).is_empty() {
            let f = a.str(1).into_owned();
            let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
            let ok = c.write_file(&f, &text, a.bool(2));
            if !ok {
                c.error(&format!("export: unable to write {f}"));
            }
        } else {
            for l in lines {
                c.echo(&l);
            }
        }
    });
}

/// The profiler's functions (V12's `profilerEnable`, `profilerDump`, `profilerDumpToFile`,
/// `profilerReset`).
fn register_profiler(c: &mut Console) {
    c.register_function("profilerEnable", 2, 2, "profilerEnable(bool) - time the engine's zones", |c, a| {
        c.set_profiler_enabled(a.bool(0));
    });
    c.register_function("profilerReset", 1, 1, "profilerReset() - forget the profiler's figures", |c, _a| {
        c.profiler_reset();
    });
    c.register_function("profilerDump", 1, 1, "profilerDump() - print the profiler's zone tree", |c, _a| {
        let text = c.profiler_dump();
        for line in text.lines() {
            c.echo(line);
        }
    });
    c.register_function(
        "profilerDumpToFile",
        2,
        2,
        "profilerDumpToFile(file) - write the profiler's zone tree to a file in the mod folder",
        |c, a| {
            let file = a.str(0).into_owned();
            if c.resolve_path(&file).is_none() {
                c.error(&format!("profilerDumpToFile: {file} is outside the mod folder"));
                return false;
            }
            let text = c.profiler_dump();
            let ok = c.write_file(&file, &text, false);
            if !ok {
                c.error(&format!("profilerDumpToFile: cannot write {file}"));
            }
            ok
        },
    );
}
