//! Water drawn (V12's WaterBlock render): the wet cells of a block's seed fill
//! ([`v12_world::WaterCoverage`]) as a translucent surface, tessellated by distance.
//!
//! The surface is cut into tiles of [`TILE`] cells. Each tile is drawn at a level chosen by
//! its distance from the eye: near tiles split every cell into 4×4 quads (so waves have
//! vertices to move), middle ones into 2×2, far ones one quad a cell. A still surface
//! (`waveMagnitude` 0) lives on the GPU: each tile at each level is built once and drawn as
//! a resident mesh, so a steady frame uploads nothing. With waves, the near tiles are built
//! each frame with their vertices raised by the waves (streamed), the rest stay resident.
//!
//! Under the surface the view is the liquid's: [`WaterSurface::underwater_sky`] turns the
//! sky into a short fog of the liquid's colour.

use glam::{Vec2, Vec3};
use std::collections::HashMap;
use std::sync::Arc;
use v12_render_gl::{ColorI, Layers, MAX_LAYERS, MeshKey, ResidentMesh, Shape, Sky, TexVertex3};
use v12_world::{WaterBlock, WaterCoverage};

/// Cells a side of a tile.
pub const TILE: usize = 16;
/// Metres of water one repeat of the surface texture covers.
pub const TEXTURE_METRES: f32 = 8.0;
/// Beyond these distances (m) a tile's cells are split less: 4×4 nearer than the first,
/// 2×2 nearer than the second, else whole.
pub const LEVEL_DISTANCES: [f32; 2] = [60.0, 160.0];

/// What one frame of water drew.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct WaterDrawStats {
    /// Tiles drawn, and of them the ones built this frame (waves, or new).
    pub tiles: usize,
    pub tiles_built: usize,
    pub triangles: usize,
}

/// A block of water ready to draw: its fields, its wet cells and its tiles' meshes.
#[derive(Debug)]
pub struct WaterSurface {
    pub block: WaterBlock,
    pub coverage: WaterCoverage,
    base: MeshKey,
    /// Resident tiles by (tile x, tile y, cells split a side).
    built: HashMap<(usize, usize, usize), Option<ResidentMesh>>,
}

impl WaterSurface {
    /// The block over ground `height(x, y)`: its seed fill is found once here.
    pub fn new(block: WaterBlock, height: impl Fn(f32, f32) -> f32) -> WaterSurface {
        let block = block.clamped();
        let coverage = block.coverage(height);
        WaterSurface { block, coverage, base: MeshKey::unique(), built: HashMap::new() }
    }

    /// The surface's colour per vertex: the liquid's colour (lightened under a texture,
    /// which carries the detail) with the surface's opacity.
    fn color(&self) -> [u8; 4] {
        let c = if self.block.surface_texture.is_empty() {
            self.block.color
        } else {
            self.block.color * 0.5 + Vec3::splat(0.5)
        };
        let u = |v: f32| (v * 255.0).round().clamp(0.0, 255.0) as u8;
        [u(c.x), u(c.y), u(c.z), u(self.block.surface_opacity)]
    }

    fn layers(&self) -> Layers {
        if self.block.surface_texture.is_empty() {
            Vec::new().into()
        } else {
            vec![Arc::<str>::from(self.block.surface_texture.as_str())].into()
        }
    }

    /// The wave height at (x, y) after `t` seconds (0 for a still surface).
    pub fn wave(&self, p: Vec2, t: f32) -> f32 {
        let m = self.block.wave_magnitude;
        if m <= 0.0 {
            return 0.0;
        }
        let a = (p.x * 0.21 + p.y * 0.13 + t * 1.7).sin();
        let b = (p.x * -0.11 + p.y * 0.27 + t * 1.1).sin();
        m * 0.5 * (a + b) * 0.5
    }

    /// The triangles of tile (tx, ty) with each cell split `split`×`split`, raised by the
    /// waves at time `t` when `t` is given.
    fn tile_triangles(&self, tx: usize, ty: usize, split: usize, t: Option<f32>) -> Vec<TexVertex3> {
        let c = &self.coverage;
        let color = self.color();
        let mut weights = [0u8; MAX_LAYERS];
        if !self.block.surface_texture.is_empty() {
            weights[0] = 255;
        }
        let step = c.cell / split as f32;
        let z = c.surface_z;
        let vertex = |p: Vec2| TexVertex3 {
            pos: [p.x, p.y, z + t.map_or(0.0, |t| self.wave(p, t))],
            uv: (p / TEXTURE_METRES).to_array(),
            color,
            weights,
        };
        let mut out = Vec::new();
        for j in ty * TILE..((ty + 1) * TILE).min(c.ny) {
            for i in tx * TILE..((tx + 1) * TILE).min(c.nx) {
                if !c.is_wet_cell(i, j) {
                    continue;
                }
                let o = c.cell_origin(i, j);
                for b in 0..split {
                    for a in 0..split {
                        let p0 = o + Vec2::new(a as f32, b as f32) * step;
                        let [v0, v1, v2, v3] = [
                            p0,
                            p0 + Vec2::new(step, 0.0),
                            p0 + Vec2::splat(step),
                            p0 + Vec2::new(0.0, step),
                        ]
                        .map(vertex);
                        out.extend([v0, v1, v2, v0, v2, v3]);
                    }
                }
            }
        }
        out
    }

    /// The cells split a side for a tile centred `d` metres from the eye.
    pub fn split_for_distance(d: f32) -> usize {
        if d < LEVEL_DISTANCES[0] {
            4
        } else if d < LEVEL_DISTANCES[1] {
            2
        } else {
            1
        }
    }

    /// The surface as seen from `eye` at time `t_s` (seconds; moves the waves), appended to
    /// `out`; tiles farther than `visible_distance` are left out.
    pub fn shapes(
        &mut self,
        eye: Vec3,
        t_s: f32,
        visible_distance: f32,
        out: &mut Vec<Shape>,
    ) -> WaterDrawStats {
        let mut stats = WaterDrawStats::default();
        let c = &self.coverage;
        let (ntx, nty) = (c.nx.div_ceil(TILE), c.ny.div_ceil(TILE));
        let span = c.cell * TILE as f32;
        let layers = self.layers();
        for ty in 0..nty {
            for tx in 0..ntx {
                let lo = self.coverage.origin + Vec2::new(tx as f32, ty as f32) * span;
                let nearest = eye.truncate().clamp(lo, lo + Vec2::splat(span));
                let d = Vec3::new(nearest.x, nearest.y, self.coverage.surface_z).distance(eye);
                if d > visible_distance {
                    continue;
                }
                let split = Self::split_for_distance(d);
                if self.block.wave_magnitude > 0.0 && split == 4 {
                    let tris = self.tile_triangles(tx, ty, split, Some(t_s));
                    if tris.is_empty() {
                        continue;
                    }
                    stats.tiles += 1;
                    stats.tiles_built += 1;
                    stats.triangles += tris.len() / 3;
                    out.push(Shape::Textured {
                        layers: layers.clone(),
                        triangles: Arc::new(tris),
                        translucent: true,
                    });
                    continue;
                }
                let key = (tx, ty, split);
                if !self.built.contains_key(&key) {
                    stats.tiles_built += 1;
                    let tris = self.tile_triangles(tx, ty, split, None);
                    let mesh = (!tris.is_empty()).then(|| ResidentMesh {
                        key: self.base.derive(&[tx as u64, ty as u64, split as u64]),
                        version: 0,
                        layers: layers.clone(),
                        triangles: Arc::new(tris),
                        translucent: true,
                    });
                    self.built.insert(key, mesh);
                }
                if let Some(Some(m)) = self.built.get(&key) {
                    stats.tiles += 1;
                    stats.triangles += m.triangles.len() / 3;
                    out.push(Shape::Resident(m.clone()));
                }
            }
        }
        stats
    }

    /// Whether `p` is in the liquid: over a wet cell, between the block's floor and its
    /// surface.
    pub fn contains(&self, p: Vec3) -> bool {
        p.z < self.coverage.surface_z && p.z >= self.block.position.z && self.coverage.is_wet_at(p.x, p.y)
    }

    /// The sky seen from under the surface: a fog of the liquid's colour that hides
    /// everything beyond a few metres (the clearer the liquid, the farther), no clouds, and
    /// no fog layers. `sky` keeps its zenith.
    pub fn underwater_sky(&self, sky: Option<&Sky>) -> Sky {
        let u = |v: f32| (v * 255.0).round().clamp(0.0, 255.0) as u8;
        let c = self.block.color;
        let fog = ColorI::rgb(u(c.x), u(c.y), u(c.z));
        let reach = 8.0 + 60.0 * (1.0 - self.block.surface_opacity);
        Sky {
            zenith: sky.map_or(fog, |s| s.zenith),
            fog_color: fog,
            fog_distance: 0.0,
            visible_distance: reach,
            clouds: None,
            fog_layers: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bowl(x: f32, y: f32) -> f32 {
        let r = Vec2::new(x - 32.0, y - 32.0).length();
        if r < 20.0 { r * 0.4 - 8.0 } else { 4.0 }
    }

    fn block() -> WaterBlock {
        WaterBlock {
            position: Vec3::new(0.0, 0.0, -10.0),
            scale: Vec3::new(64.0, 64.0, 10.0),
            seed_points: vec![Vec2::splat(0.5)],
            ..WaterBlock::default()
        }
    }

    #[test]
    fn a_still_surface_is_built_once_and_resident() {
        let mut w = WaterSurface::new(block(), bowl);
        let mut out = Vec::new();
        let eye = Vec3::new(32.0, -20.0, 10.0);
        let first = w.shapes(eye, 0.0, 500.0, &mut out);
        assert!(first.tiles > 0 && first.tiles_built >= first.tiles);
        out.clear();
        let again = w.shapes(eye, 1.0, 500.0, &mut out);
        assert_eq!(again.tiles_built, 0, "a steady frame builds nothing");
        assert!(out.iter().all(|s| matches!(s, Shape::Resident(m) if m.translucent)));
        // Every vertex is at the surface and over the bowl, not past its rim.
        for s in &out {
            let Shape::Resident(m) = s else { continue };
            for v in m.triangles.iter() {
                assert_eq!(v.pos[2], 0.0);
                assert!(Vec2::new(v.pos[0] - 32.0, v.pos[1] - 32.0).length() < 24.0);
            }
        }
        assert!(w.contains(Vec3::new(32.0, 32.0, -1.0)));
        assert!(!w.contains(Vec3::new(32.0, 32.0, 1.0)));
        assert!(!w.contains(Vec3::new(2.0, 2.0, -1.0)), "outside the rim is dry");
    }

    #[test]
    fn near_tiles_are_finer_and_waves_move_them() {
        assert_eq!(WaterSurface::split_for_distance(10.0), 4);
        assert_eq!(WaterSurface::split_for_distance(100.0), 2);
        assert_eq!(WaterSurface::split_for_distance(1000.0), 1);
        let mut w = WaterSurface::new(WaterBlock { wave_magnitude: 0.5, ..block() }, bowl);
        let (mut a, mut b) = (Vec::new(), Vec::new());
        let eye = Vec3::new(32.0, 32.0, 5.0);
        let s = w.shapes(eye, 0.0, 500.0, &mut a);
        w.shapes(eye, 0.7, 500.0, &mut b);
        assert!(s.tiles_built > 0);
        assert_ne!(a, b, "the waves move");
        assert!(matches!(a[0], Shape::Textured { translucent: true, .. }));
    }
}
