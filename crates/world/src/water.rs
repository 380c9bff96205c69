//! Water (V12's WaterBlock): a rectangular block of liquid whose surface is the top of its
//! box, and which of the block's cells hold water.
//!
//! The block is placed as Tribes 2's missions place it: `position` is its lower corner
//! (x, y, and the floor z), `scale` its size (x, y) and depth (z), so the surface lies at
//! `position.z + scale.z`. With `floodFill` on, the water is a seed fill from `seedPoints`
//! (fractions of the block, "0 0 1 0 1 1 0 1" its four corners): from the cell of each
//! seed point it spreads to neighbouring cells where the ground is below the surface, so water
//! poured into a crater fills the crater and stops at its rim, even where the ground
//! outside the rim is lower again. Without it every cell of the block is wet (the terrain
//! above the surface hides it).
//!
//! Cells are square: 2 m, or coarser for a big block so that a side has at most
//! [`MAX_CELLS_A_SIDE`] of them (a 2,048 m ocean block has 8 m cells).

use glam::{Vec2, Vec3};

/// Most cells along one side of a block's grid.
pub const MAX_CELLS_A_SIDE: usize = 256;
/// Most seed points read from `seedPoints`.
pub const MAX_SEEDS: usize = 16;
/// The finest cell (m).
pub const MIN_CELL: f32 = 2.0;

/// A block of water's fields (the ones that shape and colour it).
#[derive(Debug, Clone, PartialEq)]
pub struct WaterBlock {
    /// The block's lower corner: x, y and its floor.
    pub position: Vec3,
    /// Its size in x and y and its depth (each at least 0.1 m).
    pub scale: Vec3,
    /// Fill from the seeds (`floodFill`), or wet everywhere.
    pub flood_fill: bool,
    /// The seeds, as fractions of the block (0..=1 each way).
    pub seed_points: Vec<Vec2>,
    /// The surface's texture (`surfaceTexture`; empty: none) and its opacity (0..=1).
    pub surface_texture: String,
    pub surface_opacity: f32,
    /// The liquid's colour (0..=1 channels): the surface's tint and the fog under it.
    pub color: Vec3,
    /// The waves' height (m, `waveMagnitude`; 0: a still surface).
    pub wave_magnitude: f32,
    /// The liquid (`liquidType`: "Water", "OceanWater", "Lava", ...).
    pub liquid_type: String,
    /// The liquid's own `density` (water 1; 0.1..=10) and `viscosity` (0..=100), when the
    /// block sets them (`None`: its liquid type's). What lifts and slows bodies in it, on the
    /// server and on the clients predicting their players alike.
    pub density: Option<f32>,
    pub viscosity: Option<f32>,
}

impl Default for WaterBlock {
    fn default() -> Self {
        WaterBlock {
            position: Vec3::ZERO,
            scale: Vec3::new(100.0, 100.0, 10.0),
            flood_fill: true,
            seed_points: vec![Vec2::ZERO, Vec2::X, Vec2::ONE, Vec2::Y],
            surface_texture: String::new(),
            surface_opacity: 0.75,
            color: Vec3::new(0.15, 0.3, 0.45),
            wave_magnitude: 0.0,
            liquid_type: "Water".into(),
            density: None,
            viscosity: None,
        }
    }
}

/// Which cells of a block hold water.
#[derive(Debug, Clone, PartialEq)]
pub struct WaterCoverage {
    /// The block's lower corner (x, y) and the surface's height.
    pub origin: Vec2,
    pub surface_z: f32,
    /// The cell's side (m) and the grid's size in cells.
    pub cell: f32,
    pub nx: usize,
    pub ny: usize,
    /// `ny` rows of `nx`: true where there is water.
    pub wet: Vec<bool>,
}

impl WaterCoverage {
    pub fn is_wet_cell(&self, i: usize, j: usize) -> bool {
        i < self.nx && j < self.ny && self.wet[j * self.nx + i]
    }

    /// Whether world point (x, y) is over a wet cell.
    pub fn is_wet_at(&self, x: f32, y: f32) -> bool {
        let (u, v) = ((x - self.origin.x) / self.cell, (y - self.origin.y) / self.cell);
        u >= 0.0 && v >= 0.0 && self.is_wet_cell(u as usize, v as usize)
    }

    /// How deep under the surface world point `p` is, when it is in the water (over a wet
    /// cell and below the surface): what an image's `stateTransitionOnWet` and a
    /// projectile's `wetVelocity` ask of a point. `None` in the air, over a dry cell,
    /// outside the block, or for a point that is not finite.
    pub fn depth_at(&self, p: Vec3) -> Option<f32> {
        (p.is_finite() && p.z < self.surface_z && self.is_wet_at(p.x, p.y)).then_some(self.surface_z - p.z)
    }

    /// How many cells are wet.
    pub fn wet_cells(&self) -> usize {
        self.wet.iter().filter(|w| **w).count()
    }

    /// The lower corner of cell (i, j) in world x, y.
    pub fn cell_origin(&self, i: usize, j: usize) -> Vec2 {
        self.origin + Vec2::new(i as f32, j as f32) * self.cell
    }
}

impl WaterBlock {
    /// The height of the surface (the top of the block).
    pub fn surface_z(&self) -> f32 {
        self.position.z + self.scale.z
    }

    /// The block with its values in range: sizes at least 0.1 m, opacity and colour 0..=1,
    /// density 0.1..=10 and viscosity 0..=100 (not finite: unset),
    /// seeds inside the block and at most [`MAX_SEEDS`], non-finite values at the defaults.
    pub fn clamped(mut self) -> WaterBlock {
        let d = WaterBlock::default();
        let fin = |v: Vec3, or: Vec3| if v.is_finite() { v } else { or };
        self.position = fin(self.position, d.position);
        self.scale = fin(self.scale, d.scale).max(Vec3::splat(0.1)).min(Vec3::splat(100_000.0));
        self.surface_opacity =
            if self.surface_opacity.is_finite() { self.surface_opacity.clamp(0.0, 1.0) } else { 1.0 };
        self.color = fin(self.color, d.color).clamp(Vec3::ZERO, Vec3::ONE);
        self.wave_magnitude =
            if self.wave_magnitude.is_finite() { self.wave_magnitude.clamp(0.0, 100.0) } else { 0.0 };
        self.density = self.density.filter(|d| d.is_finite()).map(|d| d.clamp(0.1, 10.0));
        self.viscosity = self.viscosity.filter(|v| v.is_finite()).map(|v| v.clamp(0.0, 100.0));
        self.seed_points.retain(|p| p.is_finite());
        self.seed_points.truncate(MAX_SEEDS);
        for p in &mut self.seed_points {
            *p = p.clamp(Vec2::ZERO, Vec2::ONE);
        }
        self
    }

    /// Which cells hold water over ground `height(x, y)` (the terrain's, or anything's).
    /// A cell is low enough when the ground at any of its corners or its centre is under the
    /// surface; the seed fill spreads through low cells that share a side.
    pub fn coverage(&self, height: impl Fn(f32, f32) -> f32) -> WaterCoverage {
        let b = self.clone().clamped();
        let cell = MIN_CELL.max(b.scale.x.max(b.scale.y) / MAX_CELLS_A_SIDE as f32);
        let nx = ((b.scale.x / cell).ceil() as usize).clamp(1, MAX_CELLS_A_SIDE);
        let ny = ((b.scale.y / cell).ceil() as usize).clamp(1, MAX_CELLS_A_SIDE);
        let origin = b.position.truncate();
        let surface_z = b.surface_z();
        let mut out = WaterCoverage { origin, surface_z, cell, nx, ny, wet: vec![false; nx * ny] };
        if !b.flood_fill {
            out.wet.iter_mut().for_each(|w| *w = true);
            return out;
        }
        // Ground height at each grid corner, read once.
        let corner: Vec<f32> = (0..=ny)
            .flat_map(|j| (0..=nx).map(move |i| (i, j)))
            .map(|(i, j)| height(origin.x + i as f32 * cell, origin.y + j as f32 * cell))
            .collect();
        let low = |i: usize, j: usize| {
            let at = |di: usize, dj: usize| corner[(j + dj) * (nx + 1) + i + di];
            let c = origin + Vec2::new(i as f32 + 0.5, j as f32 + 0.5) * cell;
            [at(0, 0), at(1, 0), at(0, 1), at(1, 1), height(c.x, c.y)].iter().any(|h| *h < surface_z)
        };
        let mut stack = Vec::new();
        for s in &b.seed_points {
            let i = ((s.x * nx as f32) as usize).min(nx - 1);
            let j = ((s.y * ny as f32) as usize).min(ny - 1);
            stack.push((i, j));
        }
        let mut seen = vec![false; nx * ny];
        while let Some((i, j)) = stack.pop() {
            if seen[j * nx + i] {
                continue;
            }
            seen[j * nx + i] = true;
            if !low(i, j) {
                continue;
            }
            out.wet[j * nx + i] = true;
            if i > 0 {
                stack.push((i - 1, j));
            }
            if i + 1 < nx {
                stack.push((i + 1, j));
            }
            if j > 0 {
                stack.push((i, j - 1));
            }
            if j + 1 < ny {
                stack.push((i, j + 1));
            }
        }
        out
    }
}

/// Parses `seedPoints` ("x0 y0 x1 y1 ..."): pairs of numbers; junk words end the list.
pub fn parse_seed_points(s: &str) -> Vec<Vec2> {
    let nums: Vec<f32> = s.split_whitespace().map_while(|w| w.parse::<f32>().ok()).collect();
    nums.chunks_exact(2).take(MAX_SEEDS).map(|p| Vec2::new(p[0], p[1])).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A crater: ground at 10 m with a ring-shaped rim 20 m high at radius 20 around (50,
    /// 50), the bowl inside at 0 m, and a trench outside the rim at 0 m too.
    fn crater(x: f32, y: f32) -> f32 {
        let r = Vec2::new(x - 50.0, y - 50.0).length();
        if r < 16.0 {
            0.0
        } else if r < 24.0 {
            20.0
        } else if x > 80.0 {
            0.0
        } else {
            10.0
        }
    }

    #[test]
    fn a_seed_fill_fills_the_crater_and_not_the_low_ground_outside() {
        let block = WaterBlock {
            position: Vec3::new(0.0, 0.0, 0.0),
            scale: Vec3::new(100.0, 100.0, 5.0),
            seed_points: vec![Vec2::splat(0.5)],
            ..WaterBlock::default()
        };
        let c = block.coverage(crater);
        assert!(c.is_wet_at(50.0, 50.0));
        assert!(c.is_wet_at(40.0, 50.0));
        assert!(!c.is_wet_at(50.0, 80.0), "the rim and beyond are dry");
        assert!(!c.is_wet_at(90.0, 50.0), "the trench outside is below the surface but not reached");
        let surface = c.surface_z;
        assert_eq!(
            c.depth_at(Vec3::new(50.0, 50.0, surface - 1.5)),
            Some(1.5),
            "under the surface in the crater"
        );
        assert_eq!(c.depth_at(Vec3::new(50.0, 50.0, surface + 0.5)), None, "above the surface");
        assert_eq!(c.depth_at(Vec3::new(90.0, 50.0, surface - 1.0)), None, "the dry trench");
        assert_eq!(c.depth_at(Vec3::new(f32::NAN, 50.0, 0.0)), None);
        assert_eq!(c.depth_at(Vec3::new(-500.0, 50.0, 0.0)), None, "outside the block");
        // Everywhere the fill reached is inside the rim.
        for j in 0..c.ny {
            for i in 0..c.nx {
                if c.is_wet_cell(i, j) {
                    let p = c.cell_origin(i, j) + Vec2::splat(c.cell / 2.0);
                    assert!(p.distance(Vec2::splat(50.0)) < 25.0, "{p}");
                }
            }
        }
        let all = WaterBlock { flood_fill: false, ..block };
        assert_eq!(all.coverage(crater).wet_cells(), 50 * 50);
    }

    #[test]
    fn junk_fields_are_kept_in_range() {
        let b = WaterBlock {
            scale: Vec3::new(f32::NAN, -4.0, 1e12),
            surface_opacity: f32::INFINITY,
            seed_points: vec![Vec2::new(f32::NAN, 0.0), Vec2::new(7.0, -3.0)],
            ..WaterBlock::default()
        }
        .clamped();
        assert!(b.scale.is_finite() && b.scale.min_element() >= 0.1);
        assert_eq!(b.seed_points, vec![Vec2::new(1.0, 0.0)]);
        assert_eq!(b.surface_opacity, 1.0);
        let huge = WaterBlock { scale: Vec3::new(1e9, 1e9, 1.0), ..WaterBlock::default() };
        let c = huge.coverage(|_, _| 0.0);
        assert!(c.nx <= MAX_CELLS_A_SIDE && c.ny <= MAX_CELLS_A_SIDE);
        assert_eq!(parse_seed_points("0 0 1 0 1 x 1"), vec![Vec2::ZERO, Vec2::X]);
    }
}
