//! The World Editor's mouse and keys, as its EditTSCtrl callbacks deliver them (points in the
//! view's own pixels). A press takes a gizmo handle, or picks an object (selecting it) and
//! starts a drag over the terrain, or (terrain mode) starts a brush stroke; the drag changes
//! the fields; the release records the change for undo.

use crate::Handle;
use crate::commands::{self, selection_changed};
use crate::gizmo::{self, AXES};
use crate::objects::{scale_of, set_position, set_scale, set_yaw_degrees, sync, yaw_degrees};
use crate::pick::{Picked, pick, terrain_point, to_screen};
use crate::state::{Drag, DragKind, Mode, snap};
use crate::undo::{self, Action};
use glam::{Vec2, Vec3};
use std::rc::Rc;
use v12_console_vm::{Console, ObjectId};
use v12_gui::keys::*;
use v12_render_gl::RectI;

/// Degrees a rotate drag turns per pixel, and the step it snaps to.
const DEGREES_PER_PIXEL: f32 = 0.5;
const ROTATE_STEP: f32 = 15.0;
/// How near (pixels) to the gizmo's origin a press starts a rotate or scale drag.
const ORIGIN_PIXELS: f32 = 12.0;

/// The grid (`gridSize`) and whether a moved object stands on the terrain (`snapToTerrain`).
pub fn snapping(con: &Console, ctl: ObjectId) -> (f32, bool) {
    let g = con.get_field(ctl, "gridSize").to_f64() as f32;
    (if g.is_finite() { g.max(0.0) } else { 0.0 }, con.get_field(ctl, "snapToTerrain").truthy())
}

/// The view's size now and the objects as they are now.
fn refresh(con: &Console, ed: &Handle, ctl: ObjectId) {
    let r = v12_gui::screen_rect(con, ctl);
    let mut e = ed.borrow_mut();
    e.view = RectI::new(0, 0, r.w.max(1), r.h.max(1));
    sync(con, &mut e);
}

/// A press; `add` (Shift or Ctrl held) adds the object under the cursor to the selection or
/// takes it out.
pub fn mouse_down(con: &mut Console, ed: &Handle, ctl: ObjectId, pt: Vec2, add: bool) {
    refresh(con, ed, ctl);
    let mode = ed.borrow().mode;
    if mode == Mode::Terrain {
        brush_down(ed, pt);
        return;
    }
    if let Some(kind) = gizmo_press(ed, mode, pt) {
        start(con, ed, kind);
        return;
    }
    let hit = pick(&ed.borrow(), pt, true);
    let Some(Picked::Object(id, _)) = hit else {
        if !add {
            commands::select(con, ed, ctl, Vec::new());
        }
        return;
    };
    let mut sel = ed.borrow().selection.clone();
    if add {
        match sel.iter().position(|&s| s == id) {
            Some(i) => {
                sel.remove(i);
                commands::select(con, ed, ctl, sel);
                return;
            }
            None => sel.push(id),
        }
        commands::select(con, ed, ctl, sel);
    } else if !sel.contains(&id) {
        commands::select(con, ed, ctl, vec![id]);
    }
    let kind = {
        let e = ed.borrow();
        let pos = |s: ObjectId| e.object(s).map_or(Vec3::ZERO, |o| o.pos);
        let base = pos(id);
        match mode {
            Mode::Move => DragKind::Ground {
                grabbed: id,
                offsets: e.selection.iter().map(|&s| (s, pos(s) - base)).collect(),
            },
            Mode::Rotate => DragKind::Rotate {
                start: pt,
                from: e.selection.iter().map(|&s| (s, yaw_degrees(con, s))).collect(),
            },
            _ => DragKind::Scale {
                start: pt,
                from: e.selection.iter().map(|&s| (s, scale_of(con, s))).collect(),
            },
        }
    };
    start(con, ed, kind);
}

/// The drag a press on the selection's gizmo starts, if it is on one.
fn gizmo_press(ed: &Handle, mode: Mode, pt: Vec2) -> Option<DragKind> {
    let e = ed.borrow();
    let origin = e.gizmo_origin()?;
    let cam = e.camera.camera();
    let pos = |s: ObjectId| e.object(s).map_or(Vec3::ZERO, |o| o.pos);
    match mode {
        Mode::Move => {
            let (i, a, b) = gizmo::hit_axis(&cam, e.view, origin, pt)?;
            let from = e.selection.iter().map(|&s| (s, pos(s))).collect();
            Some(DragKind::Axis {
                axis: AXES[i],
                start: pt,
                handle: b - a,
                len: gizmo::handle_len(&cam, origin),
                from,
            })
        }
        Mode::Rotate | Mode::Scale => {
            let o = to_screen(&cam, e.view, origin)?;
            (o.distance(pt) <= ORIGIN_PIXELS).then_some(())?;
            let from_rot = || {
                e.selection.iter().map(|&s| (s, e.object(s).map_or(0.0, |o| o.yaw.to_degrees()))).collect()
            };
            Some(if mode == Mode::Rotate {
                DragKind::Rotate { start: pt, from: from_rot() }
            } else {
                DragKind::Scale { start: pt, from: Vec::new() }
            })
        }
        Mode::Terrain => None,
    }
}

fn start(con: &Console, ed: &Handle, mut kind: DragKind) {
    let sel = ed.borrow().selection.clone();
    if let DragKind::Scale { from, .. } = &mut kind
        && from.is_empty()
    {
        *from = sel.iter().map(|&s| (s, scale_of(con, s))).collect();
    }
    let before = sel.iter().map(|&s| undo::snapshot(con, s)).collect();
    ed.borrow_mut().drag = Some(Drag { kind, before });
}

fn brush_down(ed: &Handle, pt: Vec2) {
    let p = terrain_point(&ed.borrow(), pt);
    let Some(p) = p else { return };
    let mut e = ed.borrow_mut();
    let Some(t) = &e.terrain else { return };
    let before = t.data();
    let level = t.block.height(p.x, p.y);
    e.drag = Some(Drag { kind: DragKind::Brush { before, level }, before: Vec::new() });
    drop(e);
    brush_step(ed, p, level);
}

fn brush_step(ed: &Handle, at: Vec3, level: f32) {
    let mut e = ed.borrow_mut();
    let brush = e.brush;
    e.cursor = Some(at);
    if let Some(t) = &mut e.terrain
        && crate::brush::apply(Rc::make_mut(&mut t.block), &brush, at, level) > 0
    {
        t.dirty = true;
    }
}

pub fn mouse_dragged(con: &mut Console, ed: &Handle, ctl: ObjectId, pt: Vec2) {
    let Some(drag) = ed.borrow().drag.clone() else { return };
    let (grid, on_terrain) = snapping(con, ctl);
    let height =
        |ed: &Handle, p: Vec3| ed.borrow().terrain.as_ref().map_or(p.z, |t| t.block.height(p.x, p.y));
    match drag.kind {
        DragKind::Axis { axis, start, handle, len, from } => {
            let d = gizmo::axis_delta(start, pt, handle, len);
            for (id, p) in from {
                let n = p + axis * d;
                let s = |v: f32, a: f32| if a != 0.0 { snap(v, grid) } else { v };
                set_position(con, id, Vec3::new(s(n.x, axis.x), s(n.y, axis.y), s(n.z, axis.z)));
            }
        }
        DragKind::Ground { grabbed, offsets } => {
            let Some(p) = terrain_point(&ed.borrow(), pt) else { return };
            let base = Vec3::new(snap(p.x, grid), snap(p.y, grid), p.z);
            let z0 = offsets.iter().find(|o| o.0 == grabbed).map_or(0.0, |_| base.z);
            for (id, off) in offsets {
                let q = base + off;
                let z = if on_terrain { height(ed, q) } else { z0 + off.z };
                set_position(con, id, Vec3::new(q.x, q.y, z));
            }
        }
        DragKind::Rotate { start, from } => {
            let turn = (pt.x - start.x) * DEGREES_PER_PIXEL;
            for (id, deg) in from {
                set_yaw_degrees(con, id, snap(deg + turn, ROTATE_STEP));
            }
        }
        DragKind::Scale { start, from } => {
            let f = (1.0 - (pt.y - start.y) * 0.01).max(0.05);
            for (id, s) in from {
                let v = (s * f).map(|c| snap(c, 0.1).max(0.1));
                set_scale(con, id, v);
            }
        }
        DragKind::Brush { level, .. } => {
            let p = terrain_point(&ed.borrow(), pt);
            if let Some(p) = p {
                brush_step(ed, p, level);
            }
        }
    }
    sync(con, &mut ed.borrow_mut());
}

pub fn mouse_up(con: &mut Console, ed: &Handle, ctl: ObjectId) {
    let drag = ed.borrow_mut().drag.take();
    match drag {
        Some(Drag { kind: DragKind::Brush { before, .. }, .. }) => {
            let after = ed.borrow().terrain.as_ref().map(|t| t.data());
            if let Some(after) = after.filter(|a| *a != before) {
                ed.borrow_mut().undo.push(Action::Terrain { before, after });
            }
        }
        Some(d) => {
            let after: Vec<undo::Snapshot> = d.before.iter().map(|s| undo::snapshot(con, s.id)).collect();
            if after != d.before {
                ed.borrow_mut().undo.push(Action::Fields { before: d.before, after });
            }
        }
        None => return,
    }
    selection_changed(con, ed, ctl);
}

/// In terrain mode the brush's ring follows the cursor.
pub fn mouse_move(con: &Console, ed: &Handle, ctl: ObjectId, pt: Vec2) {
    if ed.borrow().mode != Mode::Terrain {
        return;
    }
    refresh(con, ed, ctl);
    let p = terrain_point(&ed.borrow(), pt);
    ed.borrow_mut().cursor = p;
}

/// The wheel flies the camera forward or back.
pub fn wheel(ed: &Handle, v: f32) {
    let mut e = ed.borrow_mut();
    let f = e.camera.forward();
    e.camera.eye += f * 6.0 * v.signum();
}

/// Keys: 1–4 pick the mode; Delete deletes; Ctrl+Z undoes, Ctrl+Y (or Ctrl+Shift+Z) redoes;
/// Ctrl+C copies, Ctrl+V pastes, Ctrl+S saves; Escape drops the selection; G turns the grid
/// on or off, T snapping to the terrain; the arrows, Page Up/Down, Q and E fly the camera.
pub fn key_down(con: &mut Console, ed: &Handle, ctl: ObjectId, key: u16, mods: &str) {
    let ctrl = mods.contains("ctrl");
    let shift = mods.contains("shift");
    let (grid, _) = snapping(con, ctl);
    let letter = |c: u8| u16::from(c);
    match key {
        k if ctrl && k == letter(b'Z') => {
            commands::undo_redo(con, ed, ctl, shift);
        }
        k if ctrl && k == letter(b'Y') => {
            commands::undo_redo(con, ed, ctl, true);
        }
        k if ctrl && k == letter(b'C') => {
            commands::copy_selection(con, ed);
        }
        k if ctrl && k == letter(b'V') => {
            commands::paste(con, ed, ctl, grid);
        }
        k if ctrl && k == letter(b'S') => {
            let file = con.get_field(ctl, "missionFile").as_text().into_owned();
            commands::save_mission(con, ed, &file);
        }
        KEY_DELETE | KEY_BACKSPACE => {
            commands::delete_selection(con, ed, ctl);
        }
        KEY_ESCAPE => commands::select(con, ed, ctl, Vec::new()),
        // G: the grid on (2 m) or off; T: moved objects stand on the terrain or keep their height.
        k if k == letter(b'G') => {
            let g = if grid > 0.0 { 0.0 } else { 2.0 };
            con.set_field(ctl, "gridSize", v12_console_vm::Value::Float(g));
        }
        k if k == letter(b'T') => {
            let on = con.get_field(ctl, "snapToTerrain").truthy();
            con.set_field(ctl, "snapToTerrain", v12_console_vm::Value::Int(i64::from(!on)));
        }
        k if (KEY_0 + 1..=KEY_0 + 4).contains(&k) => {
            let mode = [Mode::Move, Mode::Rotate, Mode::Scale, Mode::Terrain][usize::from(k - KEY_0 - 1)];
            ed.borrow_mut().mode = mode;
            v12_gui::callback(con, ctl, "onModeChanged", &[mode.name().into()]);
        }
        _ => fly(ed, key),
    }
}

fn fly(ed: &Handle, key: u16) {
    let mut e = ed.borrow_mut();
    let c = &mut e.camera;
    let flat = Vec3::new(c.yaw.sin(), c.yaw.cos(), 0.0);
    match key {
        KEY_UP => c.eye += flat * 4.0,
        KEY_DOWN => c.eye -= flat * 4.0,
        KEY_LEFT => c.yaw -= 0.08,
        KEY_RIGHT => c.yaw += 0.08,
        KEY_PAGE_UP => c.pitch = (c.pitch + 0.05).min(1.5),
        KEY_PAGE_DOWN => c.pitch = (c.pitch - 0.05).max(-1.5),
        k if k == u16::from(b'Q') => c.eye.z += 2.0,
        k if k == u16::from(b'E') => c.eye.z -= 2.0,
        _ => {}
    }
}
