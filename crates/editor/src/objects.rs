//! The mission's objects as the editor sees them: the members of `MissionGroup` (nested
//! groups included) that stand somewhere, with the box each fills, and their transform fields.

use crate::state::{EditObject, WorldEditor, num, vec_text};
use glam::{EulerRot, Vec3};
use v12_console_vm::{Console, ObjectId, Value};

/// The group the editor edits and saves.
pub const MISSION_GROUP: &str = "MissionGroup";

/// Classes in the mission that are not objects in the view (the terrain is edited by the
/// brushes; a sky and a sun are everywhere).
const NOT_PLACED: [&str; 3] = ["TerrainBlock", "Sky", "Sun"];

/// Every object under `MissionGroup`, depth first, with its depth (the mission tree).
pub fn mission_tree(con: &Console) -> Vec<(ObjectId, usize)> {
    let mut out = Vec::new();
    let Some(root) = con.find_object_str(MISSION_GROUP) else { return out };
    let mut todo = vec![(root, 0usize)];
    while let Some((id, depth)) = todo.pop() {
        out.push((id, depth));
        if out.len() > 100_000 {
            break;
        }
        if let Some(o) = con.object(id) {
            todo.extend(o.members.iter().rev().map(|&m| (m, depth + 1)));
        }
    }
    out
}

/// Whether the editor places, draws and picks `id`.
pub fn placed(con: &Console, id: ObjectId) -> bool {
    let Some(o) = con.object(id) else { return false };
    con.class_is(o.class, "SceneObject") && !NOT_PLACED.iter().any(|c| con.class_is(o.class, c))
}

/// Reads the mission's objects again (after every event and before every frame).
pub fn sync(con: &Console, ed: &mut WorldEditor) {
    let ids: Vec<ObjectId> =
        mission_tree(con).into_iter().map(|(id, _)| id).filter(|&id| placed(con, id)).collect();
    let mut objects = Vec::with_capacity(ids.len());
    for id in ids {
        let class = con.class_name_of(id);
        let pos = v12_world::mission::vec3(&con.get_field(id, "position").as_text());
        let turn = v12_world::mission::rotation(&con.get_field(id, "rotation").as_text());
        let yaw = turn.to_euler(EulerRot::ZYX).0;
        let scale = scale_of(con, id);
        let (center, half) = match class.as_str() {
            "InteriorInstance" => {
                let file = con.get_field(id, "interiorFile").as_text().into_owned();
                let (lo, hi) = interior_box(ed, &file);
                let c = turn * ((lo + hi) * 0.5);
                let h = (hi - lo) * 0.5;
                let h = (turn * h).abs().max(h.abs().min(Vec3::splat(0.5)));
                (pos + c, h)
            }
            // A water block's scale is its size; its position a corner.
            "WaterBlock" => (pos + scale * 0.5, (scale * 0.5).abs()),
            _ => {
                let h = (Vec3::new(1.0, 1.0, 1.0) * scale).abs().max(Vec3::splat(0.1));
                (pos + Vec3::Z * h.z, h)
            }
        };
        objects.push(EditObject { id, class, pos, yaw, center, half });
    }
    ed.objects = objects;
    ed.selection.retain(|&s| con.object(s).is_some());
}

/// The `scale` field (1 1 1 when empty).
pub fn scale_of(con: &Console, id: ObjectId) -> Vec3 {
    let t = con.get_field(id, "scale").as_text().into_owned();
    if t.trim().is_empty() { Vec3::ONE } else { v12_world::mission::vec3(&t) }
}

/// The turn about +Z in degrees, from `rotation`.
pub fn yaw_degrees(con: &Console, id: ObjectId) -> f32 {
    let turn = v12_world::mission::rotation(&con.get_field(id, "rotation").as_text());
    turn.to_euler(EulerRot::ZYX).0.to_degrees()
}

pub fn set_position(con: &mut Console, id: ObjectId, p: Vec3) {
    con.set_field(id, "position", Value::from(vec_text(p)));
}

pub fn set_yaw_degrees(con: &mut Console, id: ObjectId, deg: f32) {
    let deg = deg.rem_euclid(360.0);
    con.set_field(id, "rotation", Value::from(format!("0 0 1 {}", num(deg))));
}

pub fn set_scale(con: &mut Console, id: ObjectId, s: Vec3) {
    con.set_field(id, "scale", Value::from(vec_text(s)));
}

/// An interior file's box in its own space (a 4 m cube when it cannot be read).
fn interior_box(ed: &mut WorldEditor, file: &str) -> (Vec3, Vec3) {
    if let Some(b) = ed.interior_boxes.get(file) {
        return *b;
    }
    let b = match ed.resources.load_shared::<v12_world::Interior>(file) {
        Ok(i) => {
            let (lo, hi) = i.bounds();
            (lo.as_vec3(), hi.as_vec3())
        }
        Err(_) => (Vec3::splat(-2.0), Vec3::splat(2.0)),
    };
    ed.interior_boxes.insert(file.to_string(), b);
    b
}
