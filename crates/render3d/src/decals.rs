//! Decals (V12's DecalManager with DecalData): scorch marks and footprints laid on the
//! terrain, capped (the oldest goes when a new one would pass the cap) and aged (each fades
//! over the last quarter of its life, then goes).
//!
//! A decal is a square grid of [`GRID`]×[`GRID`] cells draped over the terrain's surface (each
//! grid point at the terrain's height, lifted [`LIFT`] metres against depth fighting), drawn
//! as a translucent textured batch, so it follows hills. Interiors are not decalled yet.

use glam::{Vec2, Vec3};
use std::collections::VecDeque;
use std::sync::Arc;
use v12_render_gl::{MAX_LAYERS, Shape, TexVertex3};
use v12_world::TerrainBlock;

/// Cells a side of a decal's draped grid.
pub const GRID: usize = 4;
/// Metres a decal floats above the surface.
pub const LIFT: f32 = 0.08;
/// The most decals a manager keeps, whatever it is asked.
pub const MAX_DECALS: usize = 1024;

/// One kind of decal (V12's DecalData), checked.
#[derive(Debug, Clone, PartialEq)]
pub struct DecalDesc {
    /// Metres across (x, y).
    pub size: Vec2,
    /// The texture (`None`: the renderer's soft round spot, tinted dark).
    pub texture: Option<Arc<str>>,
    pub life_ms: u32,
}

#[derive(Debug, Clone)]
struct Decal {
    desc: Arc<DecalDesc>,
    at: Vec2,
    /// Turn about +Z (radians).
    angle: f32,
    born_ms: u64,
}

/// The decals laid so far.
#[derive(Debug, Clone)]
pub struct DecalManager {
    decals: VecDeque<Decal>,
    cap: usize,
}

impl DecalManager {
    /// A manager keeping at most `cap` decals (at most [`MAX_DECALS`]).
    pub fn new(cap: usize) -> Self {
        DecalManager { decals: VecDeque::new(), cap: cap.clamp(1, MAX_DECALS) }
    }

    pub fn len(&self) -> usize {
        self.decals.len()
    }

    pub fn is_empty(&self) -> bool {
        self.decals.is_empty()
    }

    /// Lays a decal centred on `at` (its x, y), turned `angle` radians, at `now_ms`.
    pub fn add(&mut self, desc: Arc<DecalDesc>, at: Vec3, angle: f32, now_ms: u64) {
        if !at.is_finite() {
            return;
        }
        if self.decals.len() >= self.cap {
            self.decals.pop_front();
        }
        self.decals.push_back(Decal { desc, at: at.truncate(), angle, born_ms: now_ms });
    }

    /// Drops the decals older than their life at `now_ms`, and appends the rest draped over
    /// `terrain` to `out` (one translucent batch a texture).
    pub fn shapes(&mut self, terrain: &TerrainBlock, now_ms: u64, out: &mut Vec<Shape>) {
        self.decals.retain(|d| now_ms.saturating_sub(d.born_ms) < u64::from(d.desc.life_ms));
        let mut batches: Vec<(Option<Arc<str>>, Vec<TexVertex3>)> = Vec::new();
        let mut weights = [0u8; MAX_LAYERS];
        weights[0] = 255;
        for d in &self.decals {
            let age = now_ms.saturating_sub(d.born_ms) as f32 / d.desc.life_ms.max(1) as f32;
            let alpha = ((1.0 - age) * 4.0).clamp(0.0, 1.0);
            let tint = if d.desc.texture.is_some() { [255, 255, 255] } else { [20, 16, 12] };
            let color = [tint[0], tint[1], tint[2], (alpha * 255.0).round() as u8];
            let (s, c) = d.angle.sin_cos();
            let point = |i: usize, j: usize| {
                let (u, v) = (i as f32 / GRID as f32, j as f32 / GRID as f32);
                let local = (Vec2::new(u, v) - 0.5) * d.desc.size;
                let p = d.at + Vec2::new(local.x * c - local.y * s, local.x * s + local.y * c);
                TexVertex3 {
                    pos: [p.x, p.y, terrain.height(p.x, p.y) + LIFT],
                    uv: [u, 1.0 - v],
                    color,
                    weights,
                }
            };
            let mut tris = Vec::with_capacity(GRID * GRID * 6);
            for j in 0..GRID {
                for i in 0..GRID {
                    let (a, b, cc, dd) = (point(i, j), point(i + 1, j), point(i + 1, j + 1), point(i, j + 1));
                    tris.extend([a, b, cc, a, cc, dd]);
                }
            }
            match batches.iter_mut().find(|b| b.0 == d.desc.texture) {
                Some(b) => b.1.extend(tris),
                None => batches.push((d.desc.texture.clone(), tris)),
            }
        }
        for (texture, tris) in batches {
            let name = texture.unwrap_or_else(|| Arc::from(v12_render_gl::PARTICLE_SPOT));
            out.push(Shape::Textured {
                layers: vec![name].into(),
                triangles: Arc::new(tris),
                translucent: true,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decals_are_capped_aged_and_draped() {
        let mut t = TerrainBlock::flat(8.0, 10.0);
        t.set_height(1, 1, 14.0);
        let scorch = Arc::new(DecalDesc { size: Vec2::splat(4.0), texture: None, life_ms: 1000 });
        let mut m = DecalManager::new(3);
        for k in 0..5 {
            m.add(scorch.clone(), Vec3::new(8.0, 8.0 + k as f32, 0.0), 0.0, k * 100);
        }
        assert_eq!(m.len(), 3, "capped: the oldest went");
        let mut out = Vec::new();
        m.shapes(&t, 1250, &mut out);
        assert_eq!(m.len(), 2, "aged: laid at 200 ms, gone by 1,250");
        let Shape::Textured { triangles, translucent, .. } = &out[0] else { panic!("a batch") };
        assert!(*translucent);
        assert_eq!(triangles.len(), 2 * GRID * GRID * 6);
        for v in triangles.iter() {
            let surface = t.height(v.pos[0], v.pos[1]);
            assert!((v.pos[2] - surface - LIFT).abs() < 1e-3, "draped");
        }
        assert!(triangles.iter().any(|v| v.pos[2] > 10.5), "over the bump");
        m.add(scorch, Vec3::new(f32::NAN, 0.0, 0.0), 0.0, 0);
        assert_eq!(m.len(), 2, "a NaN place is ignored");
    }
}
