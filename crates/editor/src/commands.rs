//! What the editor's buttons, keys and script methods do to the mission: load it, select,
//! delete, copy and paste, create from the palette, undo and redo, save.

use crate::Handle;
use crate::objects::{MISSION_GROUP, mission_tree, placed, set_position, sync};
use crate::state::{EditTerrain, snap, vec_text};
use crate::undo::{self, Action, Placed, TerrainData};
use glam::Vec3;
use std::rc::Rc;
use v12_console_vm::{Console, ObjectId, Value};
use v12_world::TerrainBlock;

/// Tells the GUI the selection changed (`onSelectionChanged(%this, %first)`: the inspector
/// and the tree follow it).
pub fn selection_changed(con: &mut Console, ed: &Handle, ctl: ObjectId) {
    sync(con, &mut ed.borrow_mut());
    let first = ed.borrow().selection.first().copied().unwrap_or(0);
    v12_gui::callback(con, ctl, "onSelectionChanged", &[Value::Int(i64::from(first))]);
}

/// The mission changed (objects made or removed): the tree is filled again.
pub fn mission_changed(con: &mut Console, ed: &Handle, ctl: ObjectId) {
    v12_gui::callback(con, ctl, "onMissionChanged", &[]);
    selection_changed(con, ed, ctl);
}

pub fn select(con: &mut Console, ed: &Handle, ctl: ObjectId, ids: Vec<ObjectId>) {
    let ids: Vec<ObjectId> = ids.into_iter().filter(|&id| placed(con, id)).collect();
    ed.borrow_mut().selection = ids;
    selection_changed(con, ed, ctl);
}

/// Runs the mission file when no `MissionGroup` exists yet, then reads its terrain.
pub fn load_mission(con: &mut Console, ed: &Handle, file: &str) -> bool {
    if con.find_object_str(MISSION_GROUP).is_none() {
        if con.resolve_path(file).is_none() {
            con.error(&format!("WorldEditor: {file} is outside the mod's folder"));
            return false;
        }
        if let Err(e) = con.exec_file(file) {
            con.error(&format!("WorldEditor: cannot load {file}: {e}"));
            return false;
        }
    }
    let ok = con.find_object_str(MISSION_GROUP).is_some();
    if ok {
        load_terrain(con, ed);
    }
    ok
}

/// The mission's first TerrainBlock, read from its `terrainFile` into a copy the brushes edit.
pub fn load_terrain(con: &mut Console, ed: &Handle) {
    let Some(id) =
        mission_tree(con).into_iter().map(|(id, _)| id).find(|&id| con.class_name_of(id) == "TerrainBlock")
    else {
        ed.borrow_mut().terrain = None;
        return;
    };
    let file = con.get_field(id, "terrainFile").as_text().into_owned();
    let res = ed.borrow().resources.clone();
    match res.load::<TerrainBlock>(&file) {
        Ok(block) => {
            let materials = v12_world::materials::find_materials(&res, &block.material_names, &file);
            let block = Rc::new((*block.to_rc()).clone());
            ed.borrow_mut().terrain = Some(EditTerrain { object: id, file, block, materials, dirty: false });
        }
        Err(e) => con.error(&format!("WorldEditor: the terrain {file}: {e}")),
    }
}

pub fn delete_selection(con: &mut Console, ed: &Handle, ctl: ObjectId) -> bool {
    let sel = std::mem::take(&mut ed.borrow_mut().selection);
    let gone: Vec<Placed> =
        sel.iter().filter(|&&id| con.object(id).is_some()).map(|&id| undo::place(con, id)).collect();
    for p in &gone {
        con.delete_object(p.id);
    }
    let any = !gone.is_empty();
    if any {
        ed.borrow_mut().undo.push(Action::Delete(gone));
    }
    mission_changed(con, ed, ctl);
    any
}

pub fn copy_selection(con: &Console, ed: &Handle) -> usize {
    let texts: Vec<String> = ed.borrow().selection.iter().map(|&id| con.save_object_text(id)).collect();
    let n = texts.len();
    if n > 0 {
        ed.borrow_mut().clipboard = texts;
    }
    n
}

/// The copied objects again, without their names, one grid step (or a metre) east of the
/// originals; they become the selection.
pub fn paste(con: &mut Console, ed: &Handle, ctl: ObjectId, grid: f32) -> usize {
    let Some(group) = con.find_object_str(MISSION_GROUP) else { return 0 };
    let texts = ed.borrow().clipboard.clone();
    let mut made = Vec::new();
    for t in texts {
        let Some(id) = undo::recreate(con, &undo::unnamed(&t), group) else { continue };
        let p = v12_world::mission::vec3(&con.get_field(id, "position").as_text());
        set_position(con, id, p + Vec3::X * if grid > 0.0 { grid } else { 1.0 });
        made.push(undo::place(con, id));
    }
    let ids: Vec<ObjectId> = made.iter().map(|p| p.id).collect();
    if !made.is_empty() {
        ed.borrow_mut().undo.push(Action::Create(made));
    }
    ed.borrow_mut().selection = ids.clone();
    mission_changed(con, ed, ctl);
    ids.len()
}

/// A new object of `class` (with `dataBlock` when given) on the terrain where the view's
/// centre looks, snapped to the grid, added to `MissionGroup` and selected.
pub fn create(
    con: &mut Console,
    ed: &Handle,
    ctl: ObjectId,
    class: &str,
    datablock: &str,
    grid: f32,
) -> ObjectId {
    let Some(group) = con.find_object_str(MISSION_GROUP) else {
        con.error("WorldEditor: no MissionGroup to add to");
        return 0;
    };
    let mission_class = |k: u32| {
        con.class_is(k, "SceneObject") || (con.class_is(k, "SimGroup") && !con.class_is(k, "GuiControl"))
    };
    if con.class_id(class).is_none_or(|k| !mission_class(k)) {
        con.error(&format!("WorldEditor: {class} is not a mission object class"));
        return 0;
    }
    let at = {
        let e = ed.borrow();
        let centre = glam::Vec2::new(e.view.w as f32 * 0.5, e.view.h as f32 * 0.5);
        let ahead = e.camera.eye + e.camera.forward() * 30.0;
        let p = crate::pick::terrain_point(&e, centre).unwrap_or(ahead);
        let p = Vec3::new(snap(p.x, grid), snap(p.y, grid), p.z);
        match &e.terrain {
            Some(t) => Vec3::new(p.x, p.y, t.block.height(p.x, p.y)),
            None => p,
        }
    };
    let mut fields = vec![("position", Value::from(vec_text(at))), ("rotation", Value::from("0 0 1 0"))];
    if !datablock.is_empty() {
        fields.push(("dataBlock", Value::from(datablock)));
    }
    let Ok(id) = con.create_object_with_fields(class, None, &fields) else {
        con.error(&format!("WorldEditor: cannot make a {class}"));
        return 0;
    };
    con.set_add(group, id);
    let p = undo::place(con, id);
    ed.borrow_mut().undo.push(Action::Create(vec![p]));
    ed.borrow_mut().selection = vec![id];
    mission_changed(con, ed, ctl);
    id
}

/// Undoes (`redo` false) or redoes the last action; false when there is none.
pub fn undo_redo(con: &mut Console, ed: &Handle, ctl: ObjectId, redo: bool) -> bool {
    let a = {
        let mut e = ed.borrow_mut();
        if redo { e.undo.undone.pop() } else { e.undo.done.pop() }
    };
    let Some(a) = a else { return false };
    let done = apply(con, ed, a, redo);
    {
        let mut e = ed.borrow_mut();
        if redo { e.undo.done.push(done) } else { e.undo.undone.push(done) }
    }
    mission_changed(con, ed, ctl);
    true
}

/// Applies one side of `a` (the later side when `forward`): the action as it now stands
/// (ids of objects made again are new).
fn apply(con: &mut Console, ed: &Handle, a: Action, forward: bool) -> Action {
    match a {
        Action::Fields { before, after } => {
            for s in if forward { &after } else { &before } {
                undo::restore(con, s);
            }
            Action::Fields { before, after }
        }
        Action::Create(list) => Action::Create(make_or_remove(con, ed, list, forward)),
        Action::Delete(list) => Action::Delete(make_or_remove(con, ed, list, !forward)),
        Action::Terrain { before, after } => {
            set_terrain(ed, if forward { &after } else { &before });
            Action::Terrain { before, after }
        }
    }
}

/// Makes the objects again (`make`) or removes them; ids that change are renamed in the stack.
fn make_or_remove(con: &mut Console, ed: &Handle, list: Vec<Placed>, make: bool) -> Vec<Placed> {
    let mut out = Vec::with_capacity(list.len());
    for mut p in list {
        if make {
            if let Some(id) = undo::recreate(con, &p.text, p.group) {
                ed.borrow_mut().undo.remap(p.id, id);
                p.id = id;
            }
        } else {
            p = Placed { text: con.save_object_text(p.id), ..p };
            con.delete_object(p.id);
        }
        out.push(p);
    }
    if make {
        ed.borrow_mut().selection = out.iter().map(|p| p.id).collect();
    } else {
        ed.borrow_mut().selection.clear();
    }
    out
}

/// Puts heights and materials into the edited terrain.
pub fn set_terrain(ed: &Handle, d: &TerrainData) {
    let mut e = ed.borrow_mut();
    let Some(t) = &mut e.terrain else { return };
    let names = t.block.material_names.clone();
    if let Ok(b) =
        TerrainBlock::from_parts(t.block.square_size(), d.heights.clone(), d.materials.clone(), names)
    {
        t.block = Rc::new(b);
        t.dirty = true;
    }
}

/// Saves `MissionGroup` to `file` with `SimObject::save` (and an edited terrain to its
/// `terrainFile`); refuses a path outside the mod's folder or not ending in `.mis`.
pub fn save_mission(con: &mut Console, ed: &Handle, file: &str) -> bool {
    if !file.to_ascii_lowercase().ends_with(".mis") {
        con.error(&format!("WorldEditor: {file}: a mission file ends in .mis"));
        return false;
    }
    if con.resolve_path(file).is_none() {
        con.error(&format!("WorldEditor: cannot save {file}: it is outside the mod's folder"));
        return false;
    }
    let Some(group) = con.find_object_str(MISSION_GROUP) else {
        con.error("WorldEditor: no MissionGroup to save");
        return false;
    };
    if !save_terrain(con, ed) {
        return false;
    }
    con.call_method(&Value::Int(i64::from(group)), "save", &[Value::from(file)]).truthy()
}

fn save_terrain(con: &mut Console, ed: &Handle) -> bool {
    let Some(t) = ed.borrow().terrain.clone().filter(|t| t.dirty) else { return true };
    let Some(path) = con.resolve_path(&t.file) else {
        con.error(&format!("WorldEditor: cannot save the terrain {}: outside the mod's folder", t.file));
        return false;
    };
    let written = path
        .parent()
        .map_or(Ok(()), std::fs::create_dir_all)
        .and_then(|()| std::fs::write(&path, v12_world::terrain_file::write(&t.block)));
    match written {
        Ok(()) => {
            if let Some(t) = &mut ed.borrow_mut().terrain {
                t.dirty = false;
            }
            true
        }
        Err(e) => {
            con.error(&format!("WorldEditor: cannot write {}: {e}", path.display()));
            false
        }
    }
}
