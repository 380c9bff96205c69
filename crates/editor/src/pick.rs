//! Picking: the ray from the camera through a point of the 3D view, cast through a container
//! holding the mission objects' boxes and the terrain (V12's `castRay`), so the nearest thing
//! under the cursor wins and a hill hides what is behind it.

use crate::state::WorldEditor;
use glam::{Vec2, Vec3};
use v12_console_vm::ObjectId;
use v12_render_gl::{Camera, RectI};
use v12_sim::container::{Aabb, Container, ContainerId};

/// How far a pick ray reaches (metres).
pub const PICK_RANGE: f32 = 2000.0;
/// The terrain's id in the pick container (no console object has it).
const TERRAIN: ContainerId = ContainerId::MAX;
const OBJECT_MASK: u32 = 1;
const TERRAIN_MASK: u32 = 2;

/// What a pick ray met.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Picked {
    Object(ObjectId, Vec3),
    Terrain(Vec3),
}

/// The ray through pixel `pt` of `view` (its own coordinates): start on the near plane and
/// unit direction.
pub fn screen_ray(cam: &Camera, view: RectI, pt: Vec2) -> (Vec3, Vec3) {
    let vp = RectI::new(0, 0, view.w.max(1), view.h.max(1));
    let nx = 2.0 * pt.x / vp.w as f32 - 1.0;
    let ny = 1.0 - 2.0 * pt.y / vp.h as f32;
    let inv = cam.view_projection(vp).inverse();
    let a = inv.project_point3(Vec3::new(nx, ny, -1.0));
    let b = inv.project_point3(Vec3::new(nx, ny, 1.0));
    (a, (b - a).try_normalize().unwrap_or(cam.forward()))
}

/// Where a world point is in the view (its own coordinates).
pub fn to_screen(cam: &Camera, view: RectI, p: Vec3) -> Option<Vec2> {
    cam.point_to_screen(p, RectI::new(0, 0, view.w.max(1), view.h.max(1)))
}

/// The nearest object or terrain under pixel `pt`; `objects: false` sees only the terrain.
pub fn pick(ed: &WorldEditor, pt: Vec2, objects: bool) -> Option<Picked> {
    let cam = ed.camera.camera();
    let (start, dir) = screen_ray(&cam, ed.view, pt);
    let end = start + dir * PICK_RANGE;
    let mut c = Container::default();
    if objects {
        for o in &ed.objects {
            let _ = c.insert(o.id, Aabb::around(o.center, o.half), OBJECT_MASK);
        }
    }
    if let Some(t) = &ed.terrain {
        c.insert_static(TERRAIN, TERRAIN_MASK, t.block.clone());
    }
    let hit = c.cast_ray(start, end, OBJECT_MASK | TERRAIN_MASK, None)?;
    Some(if hit.id == TERRAIN { Picked::Terrain(hit.point) } else { Picked::Object(hit.id, hit.point) })
}

/// The terrain point under pixel `pt`, if the ray meets the terrain.
pub fn terrain_point(ed: &WorldEditor, pt: Vec2) -> Option<Vec3> {
    match pick(ed, pt, false) {
        Some(Picked::Terrain(p)) => Some(p),
        _ => None,
    }
}
