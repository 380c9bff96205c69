//! The gizmos: in move mode three axis handles from the selection's origin (X red, Y green,
//! Z blue) with a knob at each tip; in rotate mode a ring about +Z; in scale mode the axes
//! with boxes at their tips. Handles keep one size on screen (their length grows with the
//! distance). A press within a few pixels of a handle drags along its axis.

use crate::pick::to_screen;
use crate::state::Mode;
use glam::{Vec2, Vec3};
use v12_render_gl::{Camera, ColorI, RectI, Shape};

/// The world axes, in handle order.
pub const AXES: [Vec3; 3] = [Vec3::X, Vec3::Y, Vec3::Z];
/// How near (pixels) a press must be to a handle to take it.
pub const HIT_PIXELS: f32 = 7.0;
/// A handle's length as a share of its distance from the camera.
const HANDLE_SHARE: f32 = 0.16;

pub fn axis_color(axis: usize, active: bool) -> ColorI {
    if active {
        return ColorI::rgb(255, 230, 40);
    }
    match axis {
        0 => ColorI::rgb(230, 50, 50),
        1 => ColorI::rgb(50, 210, 60),
        _ => ColorI::rgb(60, 110, 255),
    }
}

/// How long (metres) the handles at `origin` are.
pub fn handle_len(cam: &Camera, origin: Vec3) -> f32 {
    ((origin - cam.position()).length() * HANDLE_SHARE).max(0.5)
}

/// The distance from `p` to the segment `a..b`.
fn segment_distance(p: Vec2, a: Vec2, b: Vec2) -> f32 {
    let ab = b - a;
    let t =
        if ab.length_squared() > 0.0 { ((p - a).dot(ab) / ab.length_squared()).clamp(0.0, 1.0) } else { 0.0 };
    (a + ab * t).distance(p)
}

/// The axis handle under `pt` (the nearest within [`HIT_PIXELS`]), with its start and end on
/// screen.
pub fn hit_axis(cam: &Camera, view: RectI, origin: Vec3, pt: Vec2) -> Option<(usize, Vec2, Vec2)> {
    let len = handle_len(cam, origin);
    let a = to_screen(cam, view, origin)?;
    let mut best: Option<(f32, usize, Vec2)> = None;
    for (i, axis) in AXES.iter().enumerate() {
        let Some(b) = to_screen(cam, view, origin + *axis * len) else { continue };
        let d = segment_distance(pt, a, b);
        if d <= HIT_PIXELS && best.is_none_or(|(bd, ..)| d < bd) {
            best = Some((d, i, b));
        }
    }
    best.map(|(_, i, b)| (i, a, b))
}

/// How far (metres) a drag from `start` to `pt` moves along a handle drawn from `a` to `b`
/// on screen, `len` metres long.
pub fn axis_delta(start: Vec2, pt: Vec2, handle: Vec2, len: f32) -> f32 {
    let l2 = handle.length_squared();
    if l2 < 1.0 {
        return 0.0;
    }
    (pt - start).dot(handle) / l2 * len
}

/// The gizmo's lines and knobs for `mode` at `origin`; `active` is the axis being dragged.
pub fn shapes(mode: Mode, cam: &Camera, origin: Vec3, active: Option<usize>) -> Vec<Shape> {
    let len = handle_len(cam, origin);
    let mut out = Vec::new();
    match mode {
        Mode::Move | Mode::Scale => {
            for (i, axis) in AXES.iter().enumerate() {
                let color = axis_color(i, active == Some(i));
                let tip = origin + *axis * len;
                out.push(Shape::Line { from: origin, to: tip, color });
                let knob = if mode == Mode::Scale { 0.07 } else { 0.045 } * len;
                out.push(Shape::Box { center: tip, half_extents: Vec3::splat(knob), rotation_z: 0.0, color });
            }
        }
        Mode::Rotate => {
            let color = ColorI::rgb(255, 210, 60);
            let n = 40;
            let at = |k: i32| {
                let a = k as f32 / n as f32 * std::f32::consts::TAU;
                origin + Vec3::new(a.cos(), a.sin(), 0.0) * len
            };
            for k in 0..n {
                out.push(Shape::Line { from: at(k), to: at(k + 1), color });
            }
            out.push(Shape::Line { from: origin, to: origin + Vec3::Z * len, color: axis_color(2, false) });
        }
        Mode::Terrain => {}
    }
    out
}

/// A box's twelve edges as lines (the selection's outline).
pub fn outline(center: Vec3, half: Vec3, color: ColorI) -> Vec<Shape> {
    let c = |x: f32, y: f32, z: f32| center + half * Vec3::new(x, y, z);
    let mut out = Vec::with_capacity(12);
    for (a, b) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)].iter().zip([
        (1.0, -1.0),
        (1.0, 1.0),
        (-1.0, 1.0),
        (-1.0, -1.0),
    ]) {
        out.push(Shape::Line { from: c(a.0, a.1, -1.0), to: c(b.0, b.1, -1.0), color });
        out.push(Shape::Line { from: c(a.0, a.1, 1.0), to: c(b.0, b.1, 1.0), color });
        out.push(Shape::Line { from: c(a.0, a.1, -1.0), to: c(a.0, a.1, 1.0), color });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_press_on_a_handle_takes_its_axis_and_a_drag_along_it_moves_its_length() {
        let cam = Camera::look_at(Vec3::new(20.0, -30.0, 25.0), Vec3::ZERO, 1.2, 0.5, 500.0);
        let view = RectI::new(0, 0, 640, 480);
        let len = handle_len(&cam, Vec3::ZERO);
        for (i, axis) in AXES.iter().enumerate() {
            let a = to_screen(&cam, view, Vec3::ZERO).unwrap();
            let b = to_screen(&cam, view, *axis * len).unwrap();
            let mid = (a + b) * 0.5;
            assert_eq!(hit_axis(&cam, view, Vec3::ZERO, mid).map(|h| h.0), Some(i));
            assert!((axis_delta(mid, mid + (b - a), b - a, len) - len).abs() < 1e-3);
        }
        assert!(hit_axis(&cam, view, Vec3::ZERO, Vec2::new(5.0, 5.0)).is_none());
    }
}
