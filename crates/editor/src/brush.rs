//! The terrain brushes (V12's TerrainEditor actions): each step changes the grid points
//! within the brush's radius of the point under the cursor, weighted by a linear falloff
//! from its centre. Raise and lower add or take away up to the strength, smooth pulls each
//! point towards its four neighbours' mean, flatten towards the height where the stroke
//! began, and paint sets the material of the squares under it.

use crate::state::{Brush, BrushKind};
use glam::Vec3;
use v12_world::TerrainBlock;

/// Most grid points a side a brush reaches (a radius past this is cut to it).
pub const MAX_SPAN: i64 = 64;

/// One step of `brush` centred at `at` (world metres); `level` is flatten's height. Returns
/// how many grid points (or squares) it changed.
pub fn apply(t: &mut TerrainBlock, brush: &Brush, at: Vec3, level: f32) -> usize {
    let s = t.square_size();
    if !(s > 0.0 && at.is_finite() && brush.radius > 0.0 && brush.radius.is_finite()) {
        return 0;
    }
    let span = ((brush.radius / s).ceil() as i64).clamp(1, MAX_SPAN);
    let (ci, cj) = ((at.x / s).round() as i64, (at.y / s).round() as i64);
    let mut changed = 0;
    // Smoothing reads the heights from before this step, so its result does not depend on
    // the order the points are visited.
    let before = (brush.kind == BrushKind::Smooth).then(|| t.clone());
    for j in cj - span..=cj + span {
        for i in ci - span..=ci + span {
            let d = Vec3::new(i as f32 * s - at.x, j as f32 * s - at.y, 0.0).length();
            if d > brush.radius {
                continue;
            }
            let f = 1.0 - d / brush.radius;
            let h = t.point_height(i, j);
            let new = match brush.kind {
                BrushKind::Raise => h + brush.strength * f,
                BrushKind::Lower => h - brush.strength * f,
                BrushKind::Smooth => {
                    let b = before.as_ref().unwrap_or(t);
                    let mean = (b.point_height(i - 1, j)
                        + b.point_height(i + 1, j)
                        + b.point_height(i, j - 1)
                        + b.point_height(i, j + 1))
                        / 4.0;
                    h + (mean - h) * f * 0.5
                }
                BrushKind::Flatten => h + (level - h) * f,
                BrushKind::Paint => {
                    if t.set_material(i, j, brush.material) {
                        changed += 1;
                    }
                    continue;
                }
            };
            if (new - h).abs() > 1e-6 {
                t.set_height(i, j, new);
                changed += 1;
            }
        }
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;

    fn brush(kind: BrushKind) -> Brush {
        Brush { kind, radius: 16.0, strength: 2.0, material: 1 }
    }

    #[test]
    fn raise_lower_flatten_smooth_and_paint() {
        let flat = TerrainBlock::flat(8.0, 10.0);
        let names = vec!["Grass".to_string(), "Rock".to_string()];
        let mut t =
            TerrainBlock::from_parts(8.0, flat.heights().to_vec(), flat.materials().to_vec(), names).unwrap();
        apply(&mut t, &brush(BrushKind::Raise), Vec3::new(16.0, 16.0, 10.0), 0.0);
        assert!((t.point_height(2, 2) - 12.0).abs() < 0.05, "{}", t.point_height(2, 2));
        assert!((t.point_height(3, 2) - 11.0).abs() < 0.05, "half way out: half the strength");
        assert!((t.point_height(5, 2) - 10.0).abs() < 0.05, "outside the radius");
        let peak = t.point_height(2, 2);
        apply(&mut t, &brush(BrushKind::Smooth), Vec3::new(16.0, 16.0, 0.0), 0.0);
        assert!(t.point_height(2, 2) < peak, "smoothing lowers the peak");
        apply(&mut t, &brush(BrushKind::Flatten), Vec3::new(16.0, 16.0, 0.0), 10.0);
        assert!((t.point_height(2, 2) - 10.0).abs() < 0.05, "the centre reaches the level");
        apply(&mut t, &brush(BrushKind::Lower), Vec3::new(16.0, 16.0, 0.0), 0.0);
        assert!(t.point_height(2, 2) < 8.1);
        assert!(apply(&mut t, &brush(BrushKind::Paint), Vec3::new(16.0, 16.0, 0.0), 0.0) > 0);
        assert_eq!(t.material(2, 2), 1);
        assert_eq!(t.material(6, 2), 0);
    }
}
