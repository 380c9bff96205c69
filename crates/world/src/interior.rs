//! Interiors (V12: InteriorResource, InteriorInstance, built by `map2dif` from Quake-style
//! `.map` brush files): convex brushes become the collision hulls, their faces are clipped
//! against each other so no face inside a solid remains (CSG), and the empty space inside is
//! divided into zones by portal brushes.
//!
//! Conventions, as map2dif's: coordinates are divided by the worldspawn key
//! `geometry_scale` (default 32 units a metre). A **portal** is a brush in an entity whose
//! `classname` is `portal`, or a brush all of whose faces carry the texture `PORTAL`; it is
//! not solid and not drawn, and it separates two zones (fill a doorway with one, at least
//! 0.5 m thick). A brush of a `portal` entity whose faces carry a material (not `PORTAL`) is
//! a **window**: a portal one sees through into the zone behind, but solid and drawn with its
//! material (glass; its faces are translucent when the material's bitmap is). Faces textured
//! `NULL` are solid but not drawn. Brushes of every other entity are solid.
//!
//! Zones are found on a voxel grid over the interior (cells of [`Interior::voxel_size`],
//! 0.25 m unless the interior is so large that 160 cells a side need larger ones): the empty
//! cells connected to the grid's border are the outside (zone 0); every other connected set
//! of empty cells is a zone, numbered from 1 in the order their first cell is met. Walls must
//! be thicker than two cells for the fill not to leak through them.

use crate::map_file::{MapBrush, MapEntity};
use glam::{DVec3, Vec3};

/// Plane tolerance (metres) for classifying points in the CSG.
const EPS: f64 = 1e-4;

/// A plane `n · p = d`; a brush is the set of points behind all of its planes (`n · p <= d`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Plane {
    pub normal: DVec3,
    pub dist: f64,
}

impl Plane {
    fn from_points(a: DVec3, b: DVec3, c: DVec3) -> Option<Plane> {
        let n = (a - b).cross(c - b);
        let len = n.length();
        (len > 1e-9).then(|| {
            let normal = n / len;
            Plane { normal, dist: normal.dot(a) }
        })
    }

    #[inline]
    fn side(&self, p: DVec3) -> f64 {
        self.normal.dot(p) - self.dist
    }

    fn flipped(self) -> Plane {
        Plane { normal: -self.normal, dist: -self.dist }
    }
}

/// What a brush is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BrushKind {
    /// Collides and is drawn.
    Solid,
    /// Separates zones; neither collides nor is drawn.
    Portal,
    /// A portal filled with glass: separates zones (seen through), collides and is drawn.
    Window,
}

impl BrushKind {
    /// Stops rays and boxes, and cuts away the faces of other brushes pressed against it.
    pub fn is_solid(self) -> bool {
        matches!(self, BrushKind::Solid | BrushKind::Window)
    }

    /// Joins two zones.
    pub fn is_portal(self) -> bool {
        matches!(self, BrushKind::Portal | BrushKind::Window)
    }
}

/// A convex brush in metres.
#[derive(Clone, Debug)]
pub struct Brush {
    pub kind: BrushKind,
    pub planes: Vec<Plane>,
    /// The material index of each plane's face (`None`: not drawn).
    pub materials: Vec<Option<u16>>,
    pub min: DVec3,
    pub max: DVec3,
}

impl Brush {
    /// True when `p` is inside (or within `slack` of) the brush.
    pub fn contains(&self, p: DVec3, slack: f64) -> bool {
        self.planes.iter().all(|pl| pl.side(p) <= slack)
    }
}

/// A drawn face after CSG: a convex polygon, its plane, its material.
#[derive(Clone, Debug, PartialEq)]
pub struct Face {
    pub points: Vec<DVec3>,
    pub normal: DVec3,
    pub material: u16,
    /// The brush it came from.
    pub brush: usize,
}

impl Face {
    /// The polygon's area.
    pub fn area(&self) -> f64 {
        polygon_area(&self.points)
    }
}

/// A portal between two zones.
#[derive(Clone, Debug, PartialEq)]
pub struct Portal {
    /// The portal brush's index in [`Interior::brushes`].
    pub brush: usize,
    /// The two zones it joins (the lower first; 0 is the outside).
    pub zones: (u16, u16),
    /// The portal's opening: its brush's largest face (for clipping a view to it).
    pub polygon: Vec<DVec3>,
    /// The opening's plane, facing `zones.1`: a camera sees from zone `zones.0` into
    /// `zones.1` only from behind this plane, and the other way only from in front of it.
    pub plane: Plane,
}

/// Where a segment met an interior.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct InteriorHit {
    /// Fraction along the segment.
    pub t: f32,
    pub normal: Vec3,
    /// The brush hit.
    pub brush: usize,
}

/// An interior as loaded (V12's InteriorResource), shared by every instance of it.
#[derive(Clone, Debug)]
pub struct Interior {
    pub brushes: Vec<Brush>,
    pub faces: Vec<Face>,
    pub portals: Vec<Portal>,
    /// Material names (a face's material indexes this), in first-use order.
    pub materials: Vec<String>,
    /// Zones inside (the outside, zone 0, not counted).
    pub zone_count: u16,
    /// Edge of a zone cell in metres.
    pub voxel_size: f64,
    /// What the import noticed but could build around (a portal joining one zone, ...).
    pub problems: Vec<String>,
    /// The zone in front of each face (a wall's outer face is the outside's, its inner face
    /// the room's); `None` for a face that looks into a brush. Drawing by zone reads it.
    pub face_zones: Vec<Option<u16>>,
    /// The map's point lights (`light` entities), in the interior's metres.
    pub lights: Vec<crate::lightmap::InteriorLight>,
    /// The lights baked into lightmaps at load (with shadows), shared by every instance;
    /// `None` when the map has no lights.
    pub lightmaps: Option<std::sync::Arc<crate::lightmap::Lightmaps>>,
    grid: ZoneGrid,
    /// Every brush's box together (found when built; [`Interior::bounds`]), so a sweep far
    /// from the interior is refused without looking at each brush.
    extent: (DVec3, DVec3),
}

/// Zone of each cell of the grid; `SOLID` for cells inside solid or portal brushes.
#[derive(Clone, Debug, Default)]
struct ZoneGrid {
    origin: DVec3,
    size: f64,
    dims: [usize; 3],
    cells: Vec<u16>,
}

const SOLID: u16 = u16::MAX;
const UNSET: u16 = u16::MAX - 1;
/// Most cells a side of the zone grid.
const MAX_CELLS_PER_AXIS: f64 = 160.0;

impl ZoneGrid {
    fn index(&self, c: [usize; 3]) -> usize {
        (c[2] * self.dims[1] + c[1]) * self.dims[0] + c[0]
    }

    fn center(&self, c: [usize; 3]) -> DVec3 {
        self.origin + (DVec3::new(c[0] as f64, c[1] as f64, c[2] as f64) + 0.5) * self.size
    }

    /// The cell holding `p`, if inside the grid.
    fn cell(&self, p: DVec3) -> Option<[usize; 3]> {
        let g = (p - self.origin) / self.size;
        let c = [g.x.floor(), g.y.floor(), g.z.floor()];
        if c.iter().zip(self.dims).all(|(&v, d)| v >= 0.0 && v < d as f64) {
            Some([c[0] as usize, c[1] as usize, c[2] as usize])
        } else {
            None
        }
    }

    fn neighbours(&self, c: [usize; 3]) -> impl Iterator<Item = [usize; 3]> + '_ {
        (0..3).flat_map(move |axis| {
            [-1i64, 1].into_iter().filter_map(move |step| {
                let v = c[axis] as i64 + step;
                (v >= 0 && (v as usize) < self.dims[axis]).then(|| {
                    let mut n = c;
                    n[axis] = v as usize;
                    n
                })
            })
        })
    }
}

/// The polygon of `plane` inside the box `[lo, hi]`'s bounding sphere: a large square on the
/// plane, wound counter-clockwise seen from the front.
fn base_winding(plane: &Plane, radius: f64) -> Vec<DVec3> {
    let n = plane.normal;
    let up = if n.z.abs() < 0.9 { DVec3::Z } else { DVec3::X };
    let u = up.cross(n).normalize() * radius;
    let v = n.cross(u);
    let c = n * plane.dist;
    vec![c - u - v, c + u - v, c + u + v, c - u + v]
}

/// Splits a convex polygon by a plane into the parts in front of and behind it (either may
/// be empty). Points within `EPS` of the plane go to both.
fn split(points: &[DVec3], plane: &Plane) -> (Vec<DVec3>, Vec<DVec3>) {
    let mut front = Vec::new();
    let mut back = Vec::new();
    let n = points.len();
    for i in 0..n {
        let (a, b) = (points[i], points[(i + 1) % n]);
        let (sa, sb) = (plane.side(a), plane.side(b));
        if sa >= -EPS {
            front.push(a);
        }
        if sa <= EPS {
            back.push(a);
        }
        if (sa > EPS && sb < -EPS) || (sa < -EPS && sb > EPS) {
            let m = a + (b - a) * (sa / (sa - sb));
            front.push(m);
            back.push(m);
        }
    }
    let clean = |v: Vec<DVec3>| if v.len() >= 3 && polygon_area(&v) > 1e-8 { v } else { Vec::new() };
    (clean(front), clean(back))
}

fn polygon_area(points: &[DVec3]) -> f64 {
    let mut sum = DVec3::ZERO;
    for i in 1..points.len().saturating_sub(1) {
        sum += (points[i] - points[0]).cross(points[i + 1] - points[0]);
    }
    sum.length() * 0.5
}

/// The polygon of each of a brush's planes (empty for a plane that does not bound it).
fn windings(planes: &[Plane], radius: f64) -> Vec<Vec<DVec3>> {
    planes
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let mut w = base_winding(p, radius);
            for (j, q) in planes.iter().enumerate() {
                if i != j && !w.is_empty() {
                    w = split(&w, q).1;
                }
            }
            w
        })
        .collect()
}

fn is_portal_texture(t: &str) -> bool {
    t.eq_ignore_ascii_case("PORTAL")
}

impl Interior {
    /// Builds an interior from a parsed `.map` file.
    pub fn from_map(entities: &[MapEntity]) -> Result<Interior, String> {
        let scale = entities
            .iter()
            .find(|e| e.get("classname").is_some_and(|c| c.eq_ignore_ascii_case("worldspawn")))
            .and_then(|e| e.get("geometry_scale"))
            .and_then(|v| v.parse::<f64>().ok())
            .filter(|s| s.is_finite() && *s > 0.0)
            .unwrap_or(32.0);
        let mut materials: Vec<String> = Vec::new();
        let mut brushes = Vec::new();
        let (mut lights, mut light_problems) = (Vec::new(), Vec::new());
        for ent in
            entities.iter().filter(|e| e.get("classname").is_some_and(|c| c.eq_ignore_ascii_case("light")))
        {
            let (light, problems) =
                crate::lightmap::InteriorLight::from_entity(|k| ent.get(k).map(str::to_string), scale);
            light_problems.extend(problems);
            if lights.len() < crate::lightmap::MAX_LIGHTS {
                lights.push(light);
            } else {
                light_problems.push("more lights than an interior bakes; the rest are left out".into());
            }
        }
        for ent in entities {
            let portal_entity = ent.get("classname").is_some_and(|c| c.eq_ignore_ascii_case("portal"));
            for mb in &ent.brushes {
                let drawn = |t: &str| !is_portal_texture(t) && !t.eq_ignore_ascii_case("NULL");
                let kind = if mb.faces.iter().all(|f| is_portal_texture(&f.texture)) {
                    BrushKind::Portal
                } else if portal_entity && mb.faces.iter().any(|f| drawn(&f.texture)) {
                    BrushKind::Window
                } else if portal_entity {
                    BrushKind::Portal
                } else {
                    BrushKind::Solid
                };
                brushes.push(brush_from_map(mb, scale, kind, &mut materials)?);
            }
        }
        if brushes.is_empty() {
            return Err("the map has no brushes".into());
        }
        let faces = csg_faces(&brushes);
        let mut interior = Interior {
            faces,
            portals: Vec::new(),
            materials,
            zone_count: 0,
            voxel_size: 0.25,
            problems: light_problems,
            face_zones: Vec::new(),
            lights,
            lightmaps: None,
            grid: ZoneGrid::default(),
            extent: brushes_extent(&brushes),
            brushes,
        };
        interior.find_zones();
        interior.face_zones = interior
            .faces
            .iter()
            .map(|f| {
                let centre = f.points.iter().copied().sum::<DVec3>() / f.points.len().max(1) as f64;
                interior.find_zone(centre + f.normal * 0.05)
            })
            .collect();
        if !interior.lights.is_empty() {
            let (maps, problems) = crate::lightmap::bake(&interior, &interior.lights);
            interior.problems.extend(problems);
            interior.lightmaps = Some(std::sync::Arc::new(maps));
        }
        Ok(interior)
    }

    /// Parses and builds a `.map` file's text.
    pub fn from_map_text(text: &str) -> Result<Interior, String> {
        Interior::from_map(&crate::map_file::parse(text)?)
    }

    /// The box around every brush, in metres (as built).
    pub fn bounds(&self) -> (DVec3, DVec3) {
        self.extent
    }

    /// The zone holding `p` (interior space, metres): 0 outside, 1.. inside, `None` inside a
    /// solid or portal brush.
    pub fn find_zone(&self, p: DVec3) -> Option<u16> {
        match self.grid.cell(p) {
            None => Some(0),
            Some(c) => match self.grid.cells[self.grid.index(c)] {
                SOLID => None,
                z => Some(z),
            },
        }
    }

    /// Every zone a box (interior space) overlaps, ascending (V12's `rezoneObject`).
    pub fn zones_touching(&self, lo: DVec3, hi: DVec3) -> Vec<u16> {
        let g = &self.grid;
        let to_cell = |p: DVec3| ((p - g.origin) / g.size).floor();
        let (a, b) = (to_cell(lo), to_cell(hi));
        let mut out = Vec::new();
        let outside_grid = (0..3).any(|i| a[i] < 0.0 || b[i] >= g.dims[i] as f64);
        if outside_grid {
            out.push(0);
        }
        let clamp = |v: f64, d: usize| v.clamp(0.0, d as f64 - 1.0) as usize;
        for z in clamp(a.z, g.dims[2])..=clamp(b.z, g.dims[2]) {
            for y in clamp(a.y, g.dims[1])..=clamp(b.y, g.dims[1]) {
                for x in clamp(a.x, g.dims[0])..=clamp(b.x, g.dims[0]) {
                    let v = g.cells[g.index([x, y, z])];
                    if v != SOLID && !out.contains(&v) {
                        out.push(v);
                    }
                }
            }
        }
        out.sort_unstable();
        out
    }

    fn find_zones(&mut self) {
        let (lo, hi) = self.bounds();
        let extent = hi - lo;
        let size = (extent.max_element() / (MAX_CELLS_PER_AXIS - 2.0)).max(0.25);
        self.voxel_size = size;
        let origin = lo - DVec3::splat(size);
        let dims = [0, 1, 2].map(|i| ((extent[i] / size).ceil() as usize + 2).max(1));
        let mut grid = ZoneGrid { origin, size, dims, cells: vec![UNSET; dims[0] * dims[1] * dims[2]] };
        let mut portal_cells: Vec<Vec<[usize; 3]>> = vec![Vec::new(); self.brushes.len()];
        // Each brush marks the cells whose centres it holds (only the cells under its box).
        for (i, b) in self.brushes.iter().enumerate() {
            let first = ((b.min - origin) / size - 0.5).ceil().max(DVec3::ZERO);
            let last = ((b.max - origin) / size - 0.5).floor();
            let range =
                |axis: usize| first[axis] as usize..=(last[axis].max(0.0) as usize).min(dims[axis] - 1);
            for z in range(2) {
                for y in range(1) {
                    for x in range(0) {
                        let c = [x, y, z];
                        if b.contains(grid.center(c), EPS) {
                            let idx = grid.index(c);
                            grid.cells[idx] = SOLID;
                            if b.kind.is_portal() {
                                portal_cells[i].push(c);
                            }
                        }
                    }
                }
            }
        }
        // Flood fill: the outside from the corner cell (never in a brush: the grid has a
        // margin), then each remaining empty region in cell order.
        let mut next_zone = 1u16;
        for start_index in std::iter::once(0).chain(0..grid.cells.len()) {
            if grid.cells[start_index] != UNSET {
                continue;
            }
            let start =
                [start_index % dims[0], (start_index / dims[0]) % dims[1], start_index / (dims[0] * dims[1])];
            let zone = if start_index == 0 { 0 } else { next_zone };
            if zone != 0 {
                if next_zone >= UNSET - 1 {
                    self.problems.push("more zones than can be numbered".into());
                }
                next_zone = next_zone.saturating_add(1).min(UNSET - 1);
            }
            let mut todo = vec![start];
            grid.cells[start_index] = zone;
            while let Some(c) = todo.pop() {
                for n in grid.neighbours(c).collect::<Vec<_>>() {
                    let i = grid.index(n);
                    if grid.cells[i] == UNSET {
                        grid.cells[i] = zone;
                        todo.push(n);
                    }
                }
            }
        }
        self.zone_count = next_zone - 1;
        // Each portal joins the zones of the empty cells next to it.
        for (i, cells) in portal_cells.iter().enumerate() {
            if !self.brushes[i].kind.is_portal() {
                continue;
            }
            let mut zones: Vec<u16> = cells
                .iter()
                .flat_map(|&c| grid.neighbours(c).map(|n| grid.cells[grid.index(n)]).collect::<Vec<_>>())
                .filter(|&z| z != SOLID)
                .collect();
            zones.sort_unstable();
            zones.dedup();
            if zones.len() != 2 {
                self.problems.push(format!("portal brush {i} touches zones {zones:?}, not two"));
            }
            if zones.len() >= 2 {
                let b = &self.brushes[i];
                let (k, polygon) = windings(&b.planes, 1e4)
                    .into_iter()
                    .enumerate()
                    .max_by(|(_, a), (_, b)| polygon_area(a).total_cmp(&polygon_area(b)))
                    .unwrap_or_default();
                // Which zone lies in front of the opening's face: step out past the brush.
                let mut plane = b.planes.get(k).copied().unwrap_or(Plane { normal: DVec3::X, dist: 0.0 });
                let centre = polygon.iter().copied().sum::<DVec3>() / polygon.len().max(1) as f64;
                let probe = centre + plane.normal * (2.0 * size);
                // Past the grid's edge is the outside.
                let in_front = grid.cell(probe).map_or(0, |c| grid.cells[grid.index(c)]);
                if in_front == zones[0] {
                    plane = plane.flipped();
                }
                self.portals.push(Portal { brush: i, zones: (zones[0], zones[1]), polygon, plane });
            }
        }
        self.grid = grid;
    }

    /// The nearest solid brush the segment `start..end` (interior space, metres) enters.
    pub fn cast_ray(&self, start: Vec3, end: Vec3) -> Option<InteriorHit> {
        self.sweep(start.as_dvec3(), end.as_dvec3(), DVec3::ZERO)
    }

    /// How far (0..=1) an axis-aligned box of half-size `half` centred at `center` moves by
    /// `delta` before it meets a solid brush, with the normal there: each brush grown by the
    /// box (its planes pushed out by the box's extent along their normals, plus the brush's
    /// own box as bevel planes, as Quake's collision did), then a ray from the centre.
    pub fn sweep_box(&self, center: Vec3, half: Vec3, delta: Vec3) -> Option<InteriorHit> {
        let c = center.as_dvec3();
        self.sweep(c, c + delta.as_dvec3(), half.as_dvec3().abs())
    }

    fn sweep(&self, start: DVec3, end: DVec3, half: DVec3) -> Option<InteriorHit> {
        if !(start.is_finite() && end.is_finite() && half.is_finite()) {
            return None;
        }
        let (lo, hi) = (start.min(end) - half, start.max(end) + half);
        if (self.extent.0 - EPS).cmpgt(hi).any() || (self.extent.1 + EPS).cmplt(lo).any() {
            return None;
        }
        let d = end - start;
        let mut best: Option<InteriorHit> = None;
        for (i, b) in self.brushes.iter().enumerate() {
            if !b.kind.is_solid() || (b.min - EPS).cmpgt(hi).any() || (b.max + EPS).cmplt(lo).any() {
                continue;
            }
            let grow = |pl: &Plane| Plane { normal: pl.normal, dist: pl.dist + pl.normal.abs().dot(half) };
            let bevels = [
                Plane { normal: DVec3::X, dist: b.max.x },
                Plane { normal: -DVec3::X, dist: -b.min.x },
                Plane { normal: DVec3::Y, dist: b.max.y },
                Plane { normal: -DVec3::Y, dist: -b.min.y },
                Plane { normal: DVec3::Z, dist: b.max.z },
                Plane { normal: -DVec3::Z, dist: -b.min.z },
            ];
            let planes =
                b.planes.iter().chain(if half == DVec3::ZERO { &bevels[..0] } else { &bevels[..] }).map(grow);
            let (mut t0, mut t1, mut n0) = (-1.0f64, 1.0f64, DVec3::ZERO);
            let mut missed = false;
            for pl in planes {
                let (s, e) = (pl.side(start), pl.normal.dot(d));
                if e.abs() < 1e-12 {
                    if s > EPS {
                        missed = true;
                        break;
                    }
                    continue;
                }
                let t = -s / e;
                if e < 0.0 {
                    if t > t0 {
                        t0 = t;
                        n0 = pl.normal;
                    }
                } else if t < t1 {
                    t1 = t;
                }
                if t0 > t1 {
                    missed = true;
                    break;
                }
            }
            if missed || t0 > t1 || t0 > 1.0 || t1 < 0.0 {
                continue;
            }
            // Starting inside (no plane entered ahead): touching now.
            let (t, n) = if t0 < 0.0 { (0.0, (-d).normalize_or(DVec3::Z)) } else { (t0, n0) };
            if best.is_none_or(|h| (t as f32) < h.t) {
                best = Some(InteriorHit { t: t as f32, normal: n.as_vec3(), brush: i });
            }
        }
        best
    }
}

fn brush_from_map(
    mb: &MapBrush,
    scale: f64,
    kind: BrushKind,
    materials: &mut Vec<String>,
) -> Result<Brush, String> {
    let mut planes = Vec::with_capacity(mb.faces.len());
    let mut mats = Vec::with_capacity(mb.faces.len());
    for f in &mb.faces {
        let [a, b, c] = f.points.map(|p| p / scale);
        let plane = Plane::from_points(a, b, c)
            .ok_or_else(|| format!("line {}: a face whose three points are on one line", mb.line))?;
        planes.push(plane);
        let t = f.texture.as_str();
        mats.push(if kind == BrushKind::Portal || t.eq_ignore_ascii_case("NULL") || is_portal_texture(t) {
            None
        } else {
            let i = materials.iter().position(|m| m.eq_ignore_ascii_case(t)).unwrap_or_else(|| {
                materials.push(t.to_string());
                materials.len() - 1
            });
            Some(i as u16)
        });
    }
    let radius =
        mb.faces.iter().flat_map(|f| f.points).map(|p| (p / scale).length()).fold(1.0, f64::max) * 4.0;
    let mut w = windings(&planes, radius);
    if w.iter().all(Vec::is_empty) {
        // The other winding order: the planes face inward.
        planes = planes.into_iter().map(Plane::flipped).collect();
        w = windings(&planes, radius);
    }
    let points: Vec<DVec3> = w.iter().flatten().copied().collect();
    if points.len() < 4 {
        return Err(format!("line {}: the brush encloses no space", mb.line));
    }
    let (min, max) = points
        .iter()
        .fold((DVec3::splat(f64::MAX), DVec3::splat(f64::MIN)), |(lo, hi), p| (lo.min(*p), hi.max(*p)));
    if (max - min).min_element() < 1e-6 {
        return Err(format!("line {}: the brush is flat", mb.line));
    }
    Ok(Brush { kind, planes, materials: mats, min, max })
}

/// The box around every brush.
fn brushes_extent(brushes: &[Brush]) -> (DVec3, DVec3) {
    brushes
        .iter()
        .fold((DVec3::splat(f64::MAX), DVec3::splat(f64::MIN)), |(lo, hi), b| (lo.min(b.min), hi.max(b.max)))
}

/// Every drawn face of every solid brush with the parts inside other solid brushes cut away.
/// Where two brushes' faces lie on one plane facing the same way, the earlier brush keeps
/// it; faces pressed back to back disappear.
fn csg_faces(brushes: &[Brush]) -> Vec<Face> {
    let mut out = Vec::new();
    for (i, b) in brushes.iter().enumerate() {
        if !b.kind.is_solid() {
            continue;
        }
        let radius = b.min.abs().max(b.max.abs()).length() * 4.0 + 1.0;
        for (k, w) in windings(&b.planes, radius).into_iter().enumerate() {
            let Some(material) = b.materials[k] else { continue };
            if w.is_empty() {
                continue;
            }
            let normal = b.planes[k].normal;
            let mut pieces = vec![w];
            for (j, other) in brushes.iter().enumerate() {
                if j == i || !other.kind.is_solid() || pieces.is_empty() {
                    continue;
                }
                if (other.min - EPS).cmpgt(b.max).any() || (other.max + EPS).cmplt(b.min).any() {
                    continue;
                }
                pieces = pieces.into_iter().flat_map(|p| clip_outside(p, other, normal, j < i)).collect();
            }
            out.extend(pieces.into_iter().map(|points| Face { points, normal, material, brush: i }));
        }
    }
    out
}

/// The parts of polygon `p` (facing `normal`) outside brush `other`. On one of `other`'s
/// planes, a polygon facing the other way is inside (hidden), and one facing the same way is
/// inside only when `other_first` (the earlier brush keeps the face).
fn clip_outside(p: Vec<DVec3>, other: &Brush, normal: DVec3, other_first: bool) -> Vec<Vec<DVec3>> {
    let mut outside = Vec::new();
    let mut rest = p;
    for pl in &other.planes {
        let on_plane = rest.iter().all(|&q| pl.side(q).abs() <= EPS);
        if on_plane {
            let same = pl.normal.dot(normal) > 0.0;
            if same && !other_first {
                outside.push(rest);
                return outside;
            }
            continue;
        }
        let (front, back) = split(&rest, pl);
        if !front.is_empty() {
            outside.push(front);
        }
        if back.is_empty() {
            return outside;
        }
        rest = back;
    }
    outside
}
