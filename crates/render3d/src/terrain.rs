//! Terrain level of detail (geomipmapping): the repeating block is drawn as square patches of
//! [`PATCH_SQUARES`] squares a side around the camera; each patch takes a level by its
//! distance (level `l` samples every 2^l-th grid point), and skirts (a strip hanging down
//! from every patch edge) hide the cracks where patches of different levels meet.
//!
//! Materials are blended on the GPU: each vertex carries the weight of every material among
//! the four squares around its grid point (the block's first [`MAX_LAYERS`] materials; a
//! higher index wraps), the renderer's fragment shader mixes the material textures by the
//! interpolated weights, and the vertex colour is the light (one directional light per
//! triangle). V12's Blender mixed the textures on the CPU into cached square textures;
//! see render-gl's `shader` module for why that moved.

use glam::{Vec2, Vec3};
use v12_render_gl::{MAX_LAYERS, TexVertex3};
use v12_world::TerrainBlock;

/// Squares a patch side.
pub const PATCH_SQUARES: i64 = 16;
/// Levels of detail: level 4 draws a patch as one quad.
pub const LEVELS: u32 = 5;
/// How far the skirts hang below a patch edge (metres).
const SKIRT_DEPTH: f32 = 4.0;

/// How the terrain is drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TerrainDrawConfig {
    /// Patches whose nearest point is farther than this are not drawn (the view distance).
    pub visible_distance: f32,
    /// A patch takes level `l` from `lod_distance × 2^(l-1)` away (level 0 nearer).
    pub lod_distance: f32,
    /// Full detail everywhere, no culling by direction: the baseline to compare against.
    pub no_lod: bool,
    /// Direction the light travels.
    pub light_dir: Vec3,
    /// Brightness of faces turned away from the light, 0..=1.
    pub ambient: f32,
}

impl Default for TerrainDrawConfig {
    fn default() -> Self {
        TerrainDrawConfig {
            visible_distance: 600.0,
            lod_distance: 48.0,
            no_lod: false,
            light_dir: Vec3::new(-0.4, 0.6, -1.0),
            ambient: 0.35,
        }
    }
}

/// What one build drew.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TerrainDrawStats {
    pub patches: u32,
    pub triangles: u32,
    /// Patches at each level.
    pub per_level: [u32; LEVELS as usize],
}

/// The level of a patch whose nearest point is `d` metres from the camera.
pub fn level_for_distance(d: f32, lod_distance: f32) -> u32 {
    if lod_distance <= 0.0 || d < lod_distance {
        return 0;
    }
    ((d / lod_distance).log2().floor() as u32 + 1).min(LEVELS - 1)
}

/// Metres of ground one repeat of a material texture covers.
pub const TEXTURE_METRES: f32 = 16.0;

/// The material weights of grid point (i, j): the share of each material among the four
/// squares that meet there, summing to 255.
pub fn point_weights(t: &TerrainBlock, i: i64, j: i64) -> [u8; MAX_LAYERS] {
    let mut count = [0u16; MAX_LAYERS];
    for (di, dj) in [(-1, -1), (0, -1), (-1, 0), (0, 0)] {
        count[usize::from(t.material(i + di, j + dj)) % MAX_LAYERS] += 1;
    }
    let mut w = count.map(|c| (c * 255 / 4) as u8);
    let short = 255 - w.iter().map(|&x| u16::from(x)).sum::<u16>();
    if let Some(top) = (0..MAX_LAYERS).max_by_key(|&k| count[k]) {
        w[top] += short as u8;
    }
    w
}

/// The terrain's triangles around the camera, in batches by the materials they blend: a
/// patch of one material is drawn sampling one texture, a patch where two meet two, and so
/// on (llvmpipe, like any GPU, pays per texture sample per pixel).
#[derive(Debug, Default, Clone)]
pub struct TerrainMesh {
    pub batches: Vec<TerrainBatch>,
}

/// Triangles whose weights refer to `materials` (the block's material indices, in layer
/// order).
#[derive(Debug, Default, Clone)]
pub struct TerrainBatch {
    pub materials: Vec<usize>,
    pub triangles: Vec<TexVertex3>,
}

impl TerrainMesh {
    /// Every vertex.
    pub fn vertices(&self) -> impl Iterator<Item = &TexVertex3> {
        self.batches.iter().flat_map(|b| &b.triangles)
    }

    /// One textured shape a batch, its layers the bitmaps of the block's `materials` (from
    /// `world::materials::find_materials`; one past them names nothing and draws white).
    pub fn into_shapes(self, materials: &[v12_world::WorldMaterial]) -> Vec<v12_render_gl::Shape> {
        let texture = |m: usize| std::sync::Arc::from(materials.get(m).map_or("", |m| m.texture.as_str()));
        self.batches
            .into_iter()
            .map(|b| v12_render_gl::Shape::Textured {
                layers: b.materials.iter().map(|&m| texture(m)).collect(),
                triangles: std::sync::Arc::new(b.triangles),
                translucent: false,
            })
            .collect()
    }

    /// Adds a patch's triangles (weights by block material) to the batch of the materials
    /// they use, with the weights renumbered to that batch's layers.
    fn add_patch(&mut self, tris: Vec<TexVertex3>) {
        let (used, tris) = renumber(tris);
        match self.batches.iter_mut().find(|b| b.materials == used) {
            Some(b) => b.triangles.extend(tris),
            None => self.batches.push(TerrainBatch { materials: used, triangles: tris }),
        }
    }
}

/// A patch's triangles with weights by block material renumbered to the materials they use
/// (in layer order), and those materials.
fn renumber(mut tris: Vec<TexVertex3>) -> (Vec<usize>, Vec<TexVertex3>) {
    let used: Vec<usize> = (0..MAX_LAYERS).filter(|&k| tris.iter().any(|v| v.weights[k] > 0)).collect();
    for v in &mut tris {
        let mut w = [0u8; MAX_LAYERS];
        for (slot, &m) in used.iter().enumerate() {
            w[slot] = v.weights[m];
        }
        v.weights = w;
    }
    (used, tris)
}

/// Calls `visit(px, py, level)` for each patch drawn around `camera` (the patches and levels
/// [`build_terrain_mesh`] draws).
fn for_each_patch(
    terrain: &TerrainBlock,
    camera: Vec3,
    cfg: &TerrainDrawConfig,
    mut visit: impl FnMut(i64, i64, u32),
) {
    let patch_size = terrain.square_size() * PATCH_SQUARES as f32;
    let reach = (cfg.visible_distance / patch_size).ceil() as i64 + 1;
    let (cx, cy) = ((camera.x / patch_size).floor() as i64, (camera.y / patch_size).floor() as i64);
    for py in cy - reach..=cy + reach {
        for px in cx - reach..=cx + reach {
            let lo = Vec2::new(px as f32, py as f32) * patch_size;
            let hi = lo + Vec2::splat(patch_size);
            let nearest = Vec2::new(camera.x, camera.y).clamp(lo, hi);
            let d = nearest.distance(Vec2::new(camera.x, camera.y));
            if d > cfg.visible_distance {
                continue;
            }
            let level = if cfg.no_lod { 0 } else { level_for_distance(d, cfg.lod_distance) };
            visit(px, py, level);
        }
    }
}

/// Most patches [`TerrainPatches`] keeps built (about 60 KB each at full detail); past it the
/// cache starts again.
pub const MAX_CACHED_PATCHES: usize = 4096;

/// The terrain as patches that live on the GPU: each patch at each level is built once (lit,
/// weighted) and drawn as a [`v12_render_gl::ResidentMesh`] under its own key, so a steady
/// frame builds and uploads nothing; the renderer frees patches no longer drawn. The cache
/// starts again (new keys) when the terrain, its materials or the light change.
#[derive(Debug)]
pub struct TerrainPatches {
    base: v12_render_gl::MeshKey,
    /// What the built patches were built from: the terrain's address, the light, the ambient.
    source: Option<(usize, [u32; 4])>,
    built: std::collections::HashMap<(i64, i64, u32), v12_render_gl::ResidentMesh>,
    /// Patches built (not found in the cache) over the cache's life.
    pub patches_built: u64,
}

impl Default for TerrainPatches {
    fn default() -> Self {
        Self::new()
    }
}

impl TerrainPatches {
    pub fn new() -> Self {
        TerrainPatches {
            base: v12_render_gl::MeshKey::unique(),
            source: None,
            built: std::collections::HashMap::new(),
            patches_built: 0,
        }
    }

    /// Forgets every patch (the next frame builds them again under new keys).
    pub fn clear(&mut self) {
        self.built.clear();
        self.source = None;
        self.base = v12_render_gl::MeshKey::unique();
    }

    /// The resident patches around `camera` (the ones [`build_terrain_mesh`] would build,
    /// at the same levels), appended to `out`; textures from `materials` as
    /// [`TerrainMesh::into_shapes`]. `terrain` is known by its address: a different block
    /// (or a different light) starts the cache again.
    pub fn shapes(
        &mut self,
        terrain: &TerrainBlock,
        camera: Vec3,
        cfg: &TerrainDrawConfig,
        materials: &[v12_world::WorldMaterial],
        out: &mut Vec<v12_render_gl::Shape>,
    ) -> TerrainDrawStats {
        let l = cfg.light_dir;
        let source = (std::ptr::from_ref(terrain) as usize, [l.x, l.y, l.z, cfg.ambient].map(f32::to_bits));
        if self.source != Some(source) || self.built.len() > MAX_CACHED_PATCHES {
            self.clear();
            self.source = Some(source);
        }
        let to_light = -cfg.light_dir.try_normalize().unwrap_or(Vec3::NEG_Z);
        let ambient = cfg.ambient.clamp(0.0, 1.0);
        let mut stats = TerrainDrawStats::default();
        let texture = |m: usize| std::sync::Arc::from(materials.get(m).map_or("", |m| m.texture.as_str()));
        for_each_patch(terrain, camera, cfg, |px, py, level| {
            let mesh = self.built.entry((px, py, level)).or_insert_with(|| {
                let mut tris = Vec::new();
                patch(terrain, px * PATCH_SQUARES, py * PATCH_SQUARES, level, to_light, ambient, &mut tris);
                let (used, tris) = renumber(tris);
                self.patches_built += 1;
                v12_render_gl::ResidentMesh {
                    key: self.base.derive(&[px as u64, py as u64, u64::from(level)]),
                    version: 0,
                    layers: used.iter().map(|&m| texture(m)).collect(),
                    triangles: std::sync::Arc::new(tris),
                    translucent: false,
                }
            });
            stats.patches += 1;
            stats.per_level[level as usize] += 1;
            stats.triangles += (mesh.triangles.len() / 3) as u32;
            out.push(v12_render_gl::Shape::Resident(mesh.clone()));
        });
        stats
    }
}

/// The triangles of the terrain around `camera`, lit, with material weights (in batches by
/// the materials they blend), and what was drawn.
pub fn build_terrain_mesh(
    terrain: &TerrainBlock,
    camera: Vec3,
    cfg: &TerrainDrawConfig,
) -> (TerrainMesh, TerrainDrawStats) {
    let mut mesh = TerrainMesh::default();
    let mut out = Vec::new();
    let mut stats = TerrainDrawStats::default();
    let to_light = -cfg.light_dir.try_normalize().unwrap_or(Vec3::NEG_Z);
    let ambient = cfg.ambient.clamp(0.0, 1.0);
    for_each_patch(terrain, camera, cfg, |px, py, level| {
        out.clear();
        patch(terrain, px * PATCH_SQUARES, py * PATCH_SQUARES, level, to_light, ambient, &mut out);
        stats.patches += 1;
        stats.per_level[level as usize] += 1;
        stats.triangles += (out.len() / 3) as u32;
        mesh.add_patch(std::mem::take(&mut out));
    });
    (mesh, stats)
}

/// One patch from grid point (i0, j0) at `level`, with its skirts.
fn patch(
    t: &TerrainBlock,
    i0: i64,
    j0: i64,
    level: u32,
    to_light: Vec3,
    ambient: f32,
    out: &mut Vec<TexVertex3>,
) {
    let step = 1i64 << level;
    let s = t.square_size();
    let n = PATCH_SQUARES / step;
    // A grid point: its position and its material weights.
    let point = |i: i64, j: i64| {
        (Vec3::new(i as f32 * s, j as f32 * s, t.point_height(i, j)), point_weights(t, i, j))
    };
    let tri = |a: (Vec3, [u8; MAX_LAYERS]),
               b: (Vec3, [u8; MAX_LAYERS]),
               c: (Vec3, [u8; MAX_LAYERS]),
               out: &mut Vec<TexVertex3>| {
        let normal = (b.0 - a.0).cross(c.0 - a.0).try_normalize().unwrap_or(Vec3::Z);
        let k = ambient + (1.0 - ambient) * normal.dot(to_light).max(0.0);
        let l = (255.0 * k).round().clamp(0.0, 255.0) as u8;
        for (p, weights) in [a, b, c] {
            out.push(TexVertex3 {
                pos: p.to_array(),
                uv: [p.x / TEXTURE_METRES, p.y / TEXTURE_METRES],
                color: [l, l, l, 255],
                weights,
            });
        }
    };
    for gy in 0..n {
        for gx in 0..n {
            let (i, j) = (i0 + gx * step, j0 + gy * step);
            let (p00, p10, p01, p11) =
                (point(i, j), point(i + step, j), point(i, j + step), point(i + step, j + step));
            // The block's own diagonal where the cell is one square; alternating above that.
            if (i / step + j / step).rem_euclid(2) == 0 {
                tri(p00, p10, p11, out);
                tri(p00, p11, p01, out);
            } else {
                tri(p00, p10, p01, out);
                tri(p10, p11, p01, out);
            }
        }
    }
    // Skirts: along each edge, a wall from the edge down by SKIRT_DEPTH.
    let down = |(p, w): (Vec3, [u8; MAX_LAYERS])| (p - Vec3::new(0.0, 0.0, SKIRT_DEPTH), w);
    for k in 0..n {
        let edges = [
            (point(i0 + k * step, j0), point(i0 + (k + 1) * step, j0)),
            (point(i0 + PATCH_SQUARES, j0 + k * step), point(i0 + PATCH_SQUARES, j0 + (k + 1) * step)),
            (point(i0 + (k + 1) * step, j0 + PATCH_SQUARES), point(i0 + k * step, j0 + PATCH_SQUARES)),
            (point(i0, j0 + (k + 1) * step), point(i0, j0 + k * step)),
        ];
        for (a, b) in edges {
            tri(a, down(a), down(b), out);
            tri(a, down(b), b, out);
        }
    }
}
