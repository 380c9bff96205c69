//! Built-ins: the SimObject and SimSet / SimGroup methods.

use super::*;

pub(super) fn register(c: &mut Console) {
    // ---- SimObject methods ----
    c.register_method("SimObject", "getId", 2, 2, "obj.getId()", |_c, a| Value::Int(i64::from(this_id(a))));
    c.register_method("SimObject", "getName", 2, 2, "obj.getName()", |c, a| c.object_name(this_id(a)));
    c.register_method("SimObject", "setName", 3, 3, "obj.setName(newName)", |c, a| {
        let n = a.str(1).into_owned();
        c.set_object_name(this_id(a), &n);
    });
    c.register_method("SimObject", "getClassName", 2, 2, "obj.getClassName()", |c, a| {
        c.class_name_of(this_id(a))
    });
    c.register_method("SimObject", "getGroup", 2, 2, "obj.getGroup()", |c, a| {
        match c.object(this_id(a)).and_then(|o| o.group) {
            Some(g) => Value::Int(i64::from(g)),
            None => Value::Int(-1),
        }
    });
    c.register_method("SimObject", "delete", 2, 2, "obj.delete()", |c, a| {
        c.delete_object(this_id(a));
    });
    c.register_method("SimObject", "dump", 2, 2, "obj.dump()", |c, a| {
        for l in c.dump_lines(this_id(a)) {
            c.echo(&l);
        }
    });
    c.register_method("SimObject", "save", 3, 3, "obj.save(fileName)", |c, a| {
        let depth = c.group_nesting(this_id(a));
        if depth > crate::object::MAX_SAVE_NESTING {
            c.error(&format!(
                "save: groups nested {depth} deep; exec reads back at most {} (nothing written)",
                crate::object::MAX_SAVE_NESTING
            ));
            return Value::from(false);
        }
        let f = a.str(1).into_owned();
        if c.resolve_path(&f).is_none() {
            c.error(&format!("save: {f} is outside the mod's folder (nothing written)"));
            return Value::from(false);
        }
        let text = c.save_object_text(this_id(a));
        let ok = c.write_file(&f, &text, false);
        if !ok {
            c.error(&format!("save: could not write {f}"));
        }
        Value::from(ok)
    });
    c.register_method("SimObject", "isMethod", 3, 3, "obj.isMethod(name)", |c, a| {
        let id = this_id(a);
        let n = c.names.intern(&a.str(1));
        let ns = c.object(id).map(|o| o.ns);
        ns.is_some_and(|ns| c.ns.resolve(ns, n).is_some())
    });
    c.register_method("SimObject", "call", 3, 0, "obj.call(methodName, args...)", |c, a| {
        let m = a.str(1).into_owned();
        c.call_method(&a.get(0), &m, &a.argv[2..])
    });
    c.register_method("SimObject", "schedule", 4, 0, "obj.schedule(time, command, <arg1...argN>)", |c, a| {
        let delay = a.f64(1).max(0.0) as u64;
        let m = a.str(2).into_owned();
        let args = a.argv[3..].to_vec();
        Value::Int(i64::from(c.schedule_event(delay, Some(this_id(a)), &m, args, true)))
    });

    // ---- SimSet / SimGroup methods ----
    c.register_method("SimSet", "add", 3, 0, "set.add(obj1,...)", |c, a| {
        for v in &a.argv[1..] {
            match c.find_object(v) {
                Some(o) => {
                    c.set_add(this_id(a), o);
                }
                None => {
                    let loc = c.location();
                    c.warn(&format!("{loc}Set::add: Object \"{v}\" doesn't exist"));
                }
            }
        }
    });
    c.register_method("SimSet", "remove", 3, 0, "set.remove(obj1,...)", |c, a| {
        for v in &a.argv[1..] {
            if let Some(o) = c.find_object(v)
                && !c.set_remove(this_id(a), o)
            {
                let loc = c.location();
                c.warn(&format!("{loc}Set::remove: Object \"{v}\" does not exist in set"));
            }
        }
    });
    c.register_method("SimSet", "getCount", 2, 2, "set.getCount()", |c, a| {
        Value::Int(c.object(this_id(a)).map(|o| o.members.len()).unwrap_or(0) as i64)
    });
    c.register_method("SimSet", "getObject", 3, 3, "set.getObject(objIndex)", |c, a| {
        let i = a.i32(1);
        let m = c
            .object(this_id(a))
            .and_then(|o| usize::try_from(i).ok().and_then(|i| o.members.get(i).copied()));
        match m {
            Some(id) => Value::Int(i64::from(id)),
            None => {
                let loc = c.location();
                c.warn(&format!("{loc}Set::getObject - index out of range."));
                Value::Int(-1)
            }
        }
    });
    c.register_method("SimSet", "isMember", 3, 3, "set.isMember(object)", |c, a| {
        let o = c.find_object(&a.get(1));
        o.is_some_and(|o| c.object(this_id(a)).is_some_and(|s| s.members.contains(&o)))
    });
    c.register_method("SimSet", "clear", 2, 2, "set.clear()", |c, a| {
        let id = this_id(a);
        let members = c.object(id).map(|o| o.members.clone()).unwrap_or_default();
        let group =
            c.object(id).is_some_and(|o| c.objects.classes[o.class as usize].kind == ClassKind::Group);
        for m in members {
            if group {
                c.delete_object(m);
            } else {
                c.set_remove(id, m);
            }
        }
    });
    c.register_method("SimSet", "listObjects", 2, 2, "set.listObjects()", |c, a| {
        let members = c.object(this_id(a)).map(|o| o.members.clone()).unwrap_or_default();
        for m in members {
            let line = format!("   {m},\"{}\": {}", c.object_name(m), c.class_name_of(m));
            c.echo(&line);
        }
    });
    c.register_method("SimSet", "bringToFront", 3, 3, "set.bringToFront(object)", |c, a| {
        if let Some(o) = c.find_object(&a.get(1))
            && let Some(s) = c.object_mut(this_id(a))
            && let Some(p) = s.members.iter().position(|&m| m == o)
        {
            s.members.remove(p);
            s.members.insert(0, o);
        }
    });
    c.register_method("SimSet", "pushToBack", 3, 3, "set.pushToBack(object)", |c, a| {
        if let Some(o) = c.find_object(&a.get(1))
            && let Some(s) = c.object_mut(this_id(a))
            && let Some(p) = s.members.iter().position(|&m| m == o)
        {
            s.members.remove(p);
            s.members.push(o);
        }
    });
}
