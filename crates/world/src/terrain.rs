//! The terrain (V12: TerrainBlock, TerrainFile): a 256×256 heightfield that repeats without
//! end in x and y, with a square size and a material per square.
//!
//! Heights are stored as `u16` in units of 1/32 m (0 to 2,048 m), as Torque's terrain
//! stored its 11.5 fixed-point heights. Grid point (i, j) sits at (i × square size, j × square
//! size); indices wrap modulo 256, so the block tiles the plane. Each square is two triangles;
//! the diagonal alternates like a checkerboard (squares with an even `i + j` split from
//! (i, j) to (i+1, j+1), odd ones from (i+1, j) to (i, j+1)), so slopes do not all lean the
//! same way.

use glam::{Vec2, Vec3};

/// Grid points a side.
pub const BLOCK_SIZE: usize = 256;
/// Height units a metre.
pub const HEIGHT_UNITS_PER_METRE: f32 = 32.0;
/// The highest height, in metres.
pub const MAX_HEIGHT: f32 = u16::MAX as f32 / HEIGHT_UNITS_PER_METRE;

/// Where a ray met the terrain.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TerrainHit {
    /// Fraction of the segment, 0..=1.
    pub t: f32,
    pub point: Vec3,
    /// The unit normal of the triangle hit (pointing up).
    pub normal: Vec3,
    /// The material of the square hit.
    pub material: u8,
}

/// One terrain block.
#[derive(Clone, PartialEq)]
pub struct TerrainBlock {
    square_size: f32,
    heights: Vec<u16>,
    materials: Vec<u8>,
    /// Material names (the material index of a square is an index into these).
    pub material_names: Vec<String>,
}

impl std::fmt::Debug for TerrainBlock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TerrainBlock")
            .field("square_size", &self.square_size)
            .field("materials", &self.material_names)
            .finish_non_exhaustive()
    }
}

/// The grid index of a coordinate, wrapped into the block.
#[inline]
fn wrap(i: i64) -> usize {
    i.rem_euclid(BLOCK_SIZE as i64) as usize
}

impl TerrainBlock {
    /// A flat block at `height` metres with squares `square_size` metres wide, all material 0.
    ///
    /// # Panics
    /// Never: a square size that is not positive and finite becomes 8 (Tribes 2's usual).
    pub fn flat(square_size: f32, height: f32) -> Self {
        let h = (height.clamp(0.0, MAX_HEIGHT) * HEIGHT_UNITS_PER_METRE).round() as u16;
        TerrainBlock {
            square_size: if square_size.is_finite() && square_size > 0.0 { square_size } else { 8.0 },
            heights: vec![h; BLOCK_SIZE * BLOCK_SIZE],
            materials: vec![0; BLOCK_SIZE * BLOCK_SIZE],
            material_names: vec!["Default".into()],
        }
    }

    /// A block from raw heights (height units, row-major by `j` then `i`) and materials.
    pub fn from_parts(
        square_size: f32,
        heights: Vec<u16>,
        materials: Vec<u8>,
        material_names: Vec<String>,
    ) -> Result<Self, String> {
        if !(square_size.is_finite() && square_size > 0.0 && square_size <= 1024.0) {
            return Err(format!("square size {square_size} is not in (0, 1024] metres"));
        }
        let n = BLOCK_SIZE * BLOCK_SIZE;
        if heights.len() != n || materials.len() != n {
            return Err(format!(
                "a block holds {n} heights and materials, not {} and {}",
                heights.len(),
                materials.len()
            ));
        }
        if let Some(m) = materials.iter().find(|&&m| usize::from(m) >= material_names.len().max(1)) {
            return Err(format!("material {m} is past the {} material names", material_names.len()));
        }
        Ok(TerrainBlock { square_size, heights, materials, material_names })
    }

    /// Metres a square.
    pub fn square_size(&self) -> f32 {
        self.square_size
    }

    /// The raw height of grid point (i, j) (wrapped), in height units.
    #[inline]
    pub fn raw_height(&self, i: i64, j: i64) -> u16 {
        self.heights[wrap(j) * BLOCK_SIZE + wrap(i)]
    }

    /// The height of grid point (i, j) in metres.
    #[inline]
    pub fn point_height(&self, i: i64, j: i64) -> f32 {
        f32::from(self.raw_height(i, j)) / HEIGHT_UNITS_PER_METRE
    }

    /// Sets grid point (i, j) (wrapped) to `metres` (clamped to 0..=[`MAX_HEIGHT`]).
    pub fn set_height(&mut self, i: i64, j: i64, metres: f32) {
        let h = (metres.clamp(0.0, MAX_HEIGHT) * HEIGHT_UNITS_PER_METRE).round() as u16;
        self.heights[wrap(j) * BLOCK_SIZE + wrap(i)] = h;
    }

    /// The material of square (i, j) (wrapped).
    pub fn material(&self, i: i64, j: i64) -> u8 {
        self.materials[wrap(j) * BLOCK_SIZE + wrap(i)]
    }

    /// Sets the material of square (i, j); false when `m` names no material.
    pub fn set_material(&mut self, i: i64, j: i64, m: u8) -> bool {
        if usize::from(m) >= self.material_names.len() {
            return false;
        }
        self.materials[wrap(j) * BLOCK_SIZE + wrap(i)] = m;
        true
    }

    /// The raw heights, row-major (for the file format).
    pub fn heights(&self) -> &[u16] {
        &self.heights
    }

    /// The materials, row-major (for the file format).
    pub fn materials(&self) -> &[u8] {
        &self.materials
    }

    /// The two triangles of square (i, j), as world-space corners (counter-clockwise seen from
    /// above, so their normals point up).
    pub fn square_triangles(&self, i: i64, j: i64) -> [[Vec3; 3]; 2] {
        let s = self.square_size;
        let p = |a: i64, b: i64| Vec3::new(a as f32 * s, b as f32 * s, self.point_height(a, b));
        let (p00, p10, p01, p11) = (p(i, j), p(i + 1, j), p(i, j + 1), p(i + 1, j + 1));
        if (i + j).rem_euclid(2) == 0 {
            [[p00, p10, p11], [p00, p11, p01]]
        } else {
            [[p00, p10, p01], [p10, p11, p01]]
        }
    }

    /// The square (i, j) containing (x, y) and the position inside it, each in 0..1.
    fn locate(&self, x: f32, y: f32) -> (i64, i64, f32, f32) {
        let (gx, gy) = (x / self.square_size, y / self.square_size);
        let (i, j) = (gx.floor(), gy.floor());
        (i as i64, j as i64, gx - i, gy - j)
    }

    /// The terrain's height and unit normal at (x, y), anywhere on the plane.
    pub fn height_and_normal(&self, x: f32, y: f32) -> (f32, Vec3) {
        if !(x.is_finite() && y.is_finite()) {
            return (0.0, Vec3::Z);
        }
        let (i, j, fx, fy) = self.locate(x, y);
        let [a, b] = self.square_triangles(i, j);
        let even = (i + j).rem_euclid(2) == 0;
        // Which triangle holds the point: even squares split on fy = fx, odd ones on fx + fy = 1.
        let tri = if even {
            if fx >= fy { a } else { b }
        } else if fx + fy <= 1.0 {
            a
        } else {
            b
        };
        let n = (tri[1] - tri[0]).cross(tri[2] - tri[0]).normalize_or(Vec3::Z);
        // The plane through the triangle: n · (p - tri[0]) = 0, solved for z.
        let z = if n.z.abs() > 1e-6 {
            tri[0].z - (n.x * (x - tri[0].x) + n.y * (y - tri[0].y)) / n.z
        } else {
            tri[0].z
        };
        (z, n)
    }

    /// The height at (x, y).
    pub fn height(&self, x: f32, y: f32) -> f32 {
        self.height_and_normal(x, y).0
    }

    /// The nearest point where the segment `start..end` enters the terrain from above,
    /// walking only the squares under the segment (a 2D grid walk). Segments that start
    /// below the surface hit nothing at their start (like a ray leaving from inside).
    pub fn cast_ray(&self, start: Vec3, end: Vec3) -> Option<TerrainHit> {
        if !(start.is_finite() && end.is_finite()) {
            return None;
        }
        let s = self.square_size;
        let (a, b) = (Vec2::new(start.x, start.y) / s, Vec2::new(end.x, end.y) / s);
        let d = b - a;
        let (mut i, mut j) = (a.x.floor() as i64, a.y.floor() as i64);
        let (end_i, end_j) = (b.x.floor() as i64, b.y.floor() as i64);
        let step_i = if d.x > 0.0 { 1 } else { -1 };
        let step_j = if d.y > 0.0 { 1 } else { -1 };
        // Segment fractions at which the walk crosses the next vertical / horizontal grid line.
        let next_line =
            |p: f32, cell: i64, dir: f32| if dir > 0.0 { (cell + 1) as f32 - p } else { p - cell as f32 };
        let inv = |v: f32| if v.abs() > 1e-12 { 1.0 / v.abs() } else { f32::INFINITY };
        let mut t_max_x = next_line(a.x, i, d.x) * inv(d.x);
        let mut t_max_y = next_line(a.y, j, d.y) * inv(d.y);
        let (t_dx, t_dy) = (inv(d.x), inv(d.y));
        // A segment crosses at most this many squares; the bound also stops a walk that
        // rounding would otherwise keep going.
        let max_cells = (end_i - i).unsigned_abs() + (end_j - j).unsigned_abs() + 2;
        let mut t_enter = 0.0f32;
        for _ in 0..max_cells {
            let t_exit = t_max_x.min(t_max_y).min(1.0);
            if let Some(hit) = self.hit_square(i, j, start, end, t_enter, t_exit) {
                return Some(hit);
            }
            if t_exit >= 1.0 || (i == end_i && j == end_j) {
                break;
            }
            t_enter = t_exit;
            if t_max_x < t_max_y {
                i += step_i;
                t_max_x += t_dx;
            } else {
                j += step_j;
                t_max_y += t_dy;
            }
        }
        None
    }

    /// The segment against the two triangles of square (i, j), for the part of it between
    /// `t0` and `t1` that lies over the square (with a little slack for the edges).
    fn hit_square(&self, i: i64, j: i64, start: Vec3, end: Vec3, t0: f32, t1: f32) -> Option<TerrainHit> {
        // Quick reject: the segment over this square is entirely above its highest corner.
        let zmax = [(i, j), (i + 1, j), (i, j + 1), (i + 1, j + 1)]
            .iter()
            .map(|&(a, b)| self.point_height(a, b))
            .fold(f32::MIN, f32::max);
        let dz = end.z - start.z;
        if start.z + dz * t0 > zmax + 1e-3 && start.z + dz * t1 > zmax + 1e-3 {
            return None;
        }
        let mut best = None;
        self.segment_vs_square(i, j, start, end, &mut best);
        best
    }

    /// Keeps in `best` the nearer of it and the segment's hit on square (i, j)'s triangles.
    fn segment_vs_square(&self, i: i64, j: i64, start: Vec3, end: Vec3, best: &mut Option<TerrainHit>) {
        for tri in self.square_triangles(i, j) {
            if let Some((t, n)) = segment_triangle(start, end, &tri)
                && best.is_none_or(|b| t < b.t)
            {
                *best = Some(TerrainHit {
                    t,
                    point: start + (end - start) * t,
                    normal: n,
                    material: self.material(i, j),
                });
            }
        }
    }

    /// Reference ray cast for tests and benchmarks: every triangle of every square under the
    /// segment's bounding box, no grid walk.
    pub fn cast_ray_brute_force(&self, start: Vec3, end: Vec3) -> Option<TerrainHit> {
        if !(start.is_finite() && end.is_finite()) {
            return None;
        }
        let s = self.square_size;
        let (lo, hi) = (start.min(end), start.max(end));
        let mut best: Option<TerrainHit> = None;
        for j in (lo.y / s).floor() as i64..=(hi.y / s).floor() as i64 {
            for i in (lo.x / s).floor() as i64..=(hi.x / s).floor() as i64 {
                self.segment_vs_square(i, j, start, end, &mut best);
            }
        }
        best
    }

    /// How far (0..=1) a box of half-size `half` centred at `center` can move by `delta`
    /// before its bottom face meets the terrain, with the terrain's normal there. The bottom
    /// face is tested at its corners, its centre and a grid no coarser than a square, and
    /// the terrain's grid points under the face are tested against it, so a peak between
    /// samples is not missed. The sides are not tested: this is the sweep for objects that
    /// stand on the ground (players, items), not for walls of terrain.
    pub fn sweep_box(&self, center: Vec3, half: Vec3, delta: Vec3) -> Option<(f32, Vec3)> {
        if !(center.is_finite() && half.is_finite() && delta.is_finite()) {
            return None;
        }
        let bottom = center - Vec3::new(0.0, 0.0, half.z);
        match self.sweep_box_quick(bottom, half, delta) {
            Some(quick) => quick,
            None => self.sweep_box_sampled(center, half, delta),
        }
    }

    /// [`Self::sweep_box`] always by sampling the bottom face: the reference the quick
    /// answers are tested against.
    pub fn sweep_box_sampled(&self, center: Vec3, half: Vec3, delta: Vec3) -> Option<(f32, Vec3)> {
        if !(center.is_finite() && half.is_finite() && delta.is_finite()) {
            return None;
        }
        let bottom = center - Vec3::new(0.0, 0.0, half.z);
        let mut best: Option<(f32, Vec3)> = None;
        let mut take = |t: f32, n: Vec3| {
            if best.is_none_or(|(bt, _)| t < bt) {
                best = Some((t, n));
            }
        };
        // Samples of the bottom face.
        let steps = |extent: f32| ((2.0 * extent / self.square_size).ceil() as i32).clamp(1, 64);
        let (nx, ny) = (steps(half.x), steps(half.y));
        for sy in 0..=ny {
            for sx in 0..=nx {
                let off = Vec3::new(
                    -half.x + 2.0 * half.x * sx as f32 / nx as f32,
                    -half.y + 2.0 * half.y * sy as f32 / ny as f32,
                    0.0,
                );
                let p = bottom + off;
                let (h, n) = self.height_and_normal(p.x, p.y);
                if p.z < h - 1e-3 {
                    // Already below the surface at the start: touching now.
                    take(0.0, n);
                } else if let Some(hit) = self.cast_ray(p, p + delta) {
                    take(hit.t, hit.normal);
                }
            }
        }
        // Grid points under the face (swept), against the face moving down onto them.
        if delta.z < 0.0 {
            let s = self.square_size;
            let lo = bottom.min(bottom + delta) - half;
            let hi = bottom.max(bottom + delta) + half;
            for j in (lo.y / s).ceil() as i64..=(hi.y / s).floor() as i64 {
                for i in (lo.x / s).ceil() as i64..=(hi.x / s).floor() as i64 {
                    let g = Vec3::new(i as f32 * s, j as f32 * s, self.point_height(i, j));
                    let t = (g.z - bottom.z) / delta.z;
                    if !(0.0..=1.0).contains(&t) {
                        continue;
                    }
                    let c = bottom + delta * t;
                    if (g.x - c.x).abs() <= half.x && (g.y - c.y).abs() <= half.y {
                        take(t, self.height_and_normal(g.x, g.y).1);
                    }
                }
            }
        }
        best
    }

    /// [`Self::sweep_box`]'s answer without sampling, when the ground under the swept
    /// bottom face is simple (most of a tick's sweeps: players standing and walking on flat
    /// ground): the face stays above every grid point there (no hit), or those grid points
    /// are all at one height (a plane: the face meets it where it crosses it). `None` when
    /// the sampling must decide. Same answers as the sampling (a test checks).
    fn sweep_box_quick(&self, bottom: Vec3, half: Vec3, delta: Vec3) -> Option<Option<(f32, Vec3)>> {
        let s = self.square_size;
        let (lo, hi) = ((bottom.min(bottom + delta) - half) / s, (bottom.max(bottom + delta) + half) / s);
        let (i0, j0, i1, j1) =
            (lo.x.floor() as i64, lo.y.floor() as i64, hi.x.floor() as i64 + 1, hi.y.floor() as i64 + 1);
        if (i1 - i0 + 1) * (j1 - j0 + 1) > 36 {
            return None;
        }
        let (mut zmin, mut zmax) = (f32::MAX, f32::MIN);
        for j in j0..=j1 {
            for i in i0..=i1 {
                let h = self.point_height(i, j);
                zmin = zmin.min(h);
                zmax = zmax.max(h);
            }
        }
        let z_low = bottom.z.min(bottom.z + delta.z);
        if z_low > zmax + 1e-3 {
            return Some(None);
        }
        if zmin != zmax {
            return None;
        }
        // One plane at height `zmax`, facing up.
        let hit = if bottom.z < zmax - 1e-3 {
            Some((0.0, Vec3::Z))
        } else if delta.z < 0.0 && bottom.z >= zmax && bottom.z + delta.z <= zmax {
            Some((((zmax - bottom.z) / delta.z).clamp(0.0, 1.0), Vec3::Z))
        } else {
            None
        };
        Some(hit)
    }
}

/// The segment `start..end` against a triangle (Möller–Trumbore), from the side the normal
/// points to only: the entry fraction and the unit normal.
fn segment_triangle(start: Vec3, end: Vec3, tri: &[Vec3; 3]) -> Option<(f32, Vec3)> {
    let d = end - start;
    let e1 = tri[1] - tri[0];
    let e2 = tri[2] - tri[0];
    let n = e1.cross(e2);
    if n.dot(d) >= 0.0 {
        return None; // parallel, or coming from below
    }
    let p = d.cross(e2);
    let det = e1.dot(p);
    if det.abs() < 1e-12 {
        return None;
    }
    let inv = 1.0 / det;
    let s = start - tri[0];
    let u = s.dot(p) * inv;
    const EPS: f32 = 1e-5;
    if !(-EPS..=1.0 + EPS).contains(&u) {
        return None;
    }
    let q = s.cross(e1);
    let v = d.dot(q) * inv;
    if v < -EPS || u + v > 1.0 + EPS {
        return None;
    }
    let t = e2.dot(q) * inv;
    if !(0.0..=1.0).contains(&t) {
        return None;
    }
    Some((t, n.normalize_or(Vec3::Z)))
}
