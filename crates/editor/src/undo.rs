//! The World Editor's undo and redo: every change is an [`Action`] that knows both sides.
//! Objects are kept as their fields (a field change) or as the script `save` writes (a
//! creation or deletion), so a deleted object comes back with every field and member; it
//! gets a new id, and the stack's entries are renamed to it ([`UndoStack::remap`]).

use v12_console_vm::{Console, ObjectId, Value};

/// Most actions kept.
pub const MAX_ACTIONS: usize = 64;

/// An object's fields (registered and dynamic) as text.
#[derive(Clone, Debug, PartialEq)]
pub struct Snapshot {
    pub id: ObjectId,
    pub fields: Vec<(String, String)>,
}

/// An object as `save` writes it, and the group it was in.
#[derive(Clone, Debug, PartialEq)]
pub struct Placed {
    pub id: ObjectId,
    pub group: ObjectId,
    pub text: String,
}

/// The terrain's heights and materials.
#[derive(Clone, Debug, PartialEq)]
pub struct TerrainData {
    pub heights: Vec<u16>,
    pub materials: Vec<u8>,
}

/// One change, both ways.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    Fields { before: Vec<Snapshot>, after: Vec<Snapshot> },
    Create(Vec<Placed>),
    Delete(Vec<Placed>),
    Terrain { before: TerrainData, after: TerrainData },
}

/// Done and undone actions.
#[derive(Clone, Debug, Default)]
pub struct UndoStack {
    pub done: Vec<Action>,
    pub undone: Vec<Action>,
}

impl UndoStack {
    /// A new change: it can be undone; nothing can be redone any more.
    pub fn push(&mut self, a: Action) {
        self.undone.clear();
        self.done.push(a);
        if self.done.len() > MAX_ACTIONS {
            self.done.remove(0);
        }
    }

    /// An object that came back under a new id: every entry naming the old one names it.
    pub fn remap(&mut self, old: ObjectId, new: ObjectId) {
        let fix = |id: &mut ObjectId| {
            if *id == old {
                *id = new;
            }
        };
        for a in self.done.iter_mut().chain(self.undone.iter_mut()) {
            match a {
                Action::Fields { before, after } => {
                    before.iter_mut().chain(after).for_each(|s| fix(&mut s.id))
                }
                Action::Create(p) | Action::Delete(p) => p.iter_mut().for_each(|p| {
                    fix(&mut p.id);
                    fix(&mut p.group);
                }),
                Action::Terrain { .. } => {}
            }
        }
    }
}

/// The fields of `id` now.
pub fn snapshot(con: &Console, id: ObjectId) -> Snapshot {
    Snapshot { id, fields: con.field_rows(id).into_iter().map(|r| (r.name, r.value)).collect() }
}

/// Puts the fields back (only those that differ).
pub fn restore(con: &mut Console, s: &Snapshot) {
    if con.object(s.id).is_none() {
        return;
    }
    let now = snapshot(con, s.id);
    for (name, value) in &s.fields {
        if now.fields.iter().any(|(n, v)| n == name && v == value) {
            continue;
        }
        con.set_field(s.id, name, Value::from(value.as_str()));
    }
}

/// `id` as `save` writes it, in its group.
pub fn place(con: &Console, id: ObjectId) -> Placed {
    let group = con.object(id).and_then(|o| o.group).unwrap_or(0);
    Placed { id, group, text: con.save_object_text(id) }
}

/// Makes the object `text` describes again and adds it to `group`: its new id.
pub fn recreate(con: &mut Console, text: &str, group: ObjectId) -> Option<ObjectId> {
    let body: String =
        text.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n");
    let body = body.trim().trim_end_matches(';');
    if !body.starts_with("new ") {
        return None;
    }
    let v = match con.eval(&format!("return {body};")) {
        Ok(v) => v,
        Err(e) => {
            con.error(&format!("WorldEditor: cannot make the object again: {e}"));
            return None;
        }
    };
    let id = con.find_object(&v).filter(|&id| id != 0)?;
    if con.object(group).is_some() {
        con.set_add(group, id);
    }
    Some(id)
}

/// The text with the object's own name taken out (a pasted copy must not take the
/// original's name).
pub fn unnamed(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut done = false;
    for line in text.lines() {
        let t = line.trim_start();
        if !done
            && t.starts_with("new ")
            && let (Some(a), Some(b)) = (line.find('('), line.find(')'))
            && a < b
        {
            out.push_str(&line[..=a]);
            out.push_str(&line[b..]);
            done = true;
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unnamed_drops_only_the_outer_name() {
        let t = "//--- OBJECT WRITE BEGIN ---\nnew SimGroup(A) {\n   new Item(B) {\n   };\n};\n";
        assert_eq!(
            unnamed(t),
            "//--- OBJECT WRITE BEGIN ---\nnew SimGroup() {\n   new Item(B) {\n   };\n};\n"
        );
    }

    #[test]
    fn the_stack_forgets_redo_on_a_new_action_and_remaps_ids() {
        let mut u = UndoStack::default();
        u.push(Action::Create(vec![Placed { id: 5, group: 2, text: String::new() }]));
        u.undone.push(Action::Delete(vec![]));
        u.push(Action::Fields { before: vec![Snapshot { id: 5, fields: vec![] }], after: vec![] });
        assert!(u.undone.is_empty());
        u.remap(5, 9);
        assert!(matches!(&u.done[0], Action::Create(p) if p[0].id == 9));
        assert!(matches!(&u.done[1], Action::Fields { before, .. } if before[0].id == 9));
    }
}
