//! The container database (V12 reference page SimDB): objects with world boxes and type masks in a
//! uniform grid of bins over x/y (wrapping, like V12's SceneContainer), plus an overflow
//! list for objects too large for the grid. Insert, remove, move; ray cast, box and radius
//! queries. Results come in a deterministic order: by id for boxes, by distance then id for
//! radius searches, nearest hit (ties by id) for rays.
//!
//! The script functions (`containerRayCast`, `initContainerRadiusSearch`,
//! `containerSearchNext`, ...) are registered by [`register_container_functions`].

use glam::Vec3;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use v12_console_vm::{Console, Value};

/// Object ids in the container.
pub type ContainerId = u32;

/// An axis-aligned box.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Aabb {
    pub min: Vec3,
    pub max: Vec3,
}

impl Aabb {
    /// A box from two corners (sorted per axis).
    pub fn new(a: Vec3, b: Vec3) -> Self {
        Self { min: a.min(b), max: a.max(b) }
    }
    /// A box of half-size `half` around `c`.
    pub fn around(c: Vec3, half: Vec3) -> Self {
        Self::new(c - half, c + half)
    }
    /// Do the boxes overlap (touching counts)?
    pub fn overlaps(&self, o: &Aabb) -> bool {
        self.min.cmple(o.max).all() && o.min.cmple(self.max).all()
    }
    /// The point of the box nearest `p`.
    pub fn closest_point(&self, p: Vec3) -> Vec3 {
        p.clamp(self.min, self.max)
    }
    /// Distance from `p` to the box (0 inside).
    pub fn distance_to(&self, p: Vec3) -> f32 {
        self.closest_point(p).distance(p)
    }
    /// Centre.
    pub fn center(&self) -> Vec3 {
        (self.min + self.max) * 0.5
    }
    /// Slab test of the segment `start + t (end - start)`, `t` in [0, 1]: the entry `t`.
    pub fn intersect_segment(&self, start: Vec3, end: Vec3) -> Option<f32> {
        let d = end - start;
        let mut t0 = 0.0f32;
        let mut t1 = 1.0f32;
        for i in 0..3 {
            if d[i].abs() < 1e-12 {
                if start[i] < self.min[i] || start[i] > self.max[i] {
                    return None;
                }
            } else {
                let inv = 1.0 / d[i];
                let (mut a, mut b) = ((self.min[i] - start[i]) * inv, (self.max[i] - start[i]) * inv);
                if a > b {
                    std::mem::swap(&mut a, &mut b);
                }
                t0 = t0.max(a);
                t1 = t1.min(b);
                if t0 > t1 {
                    return None;
                }
            }
        }
        Some(t0)
    }
    /// [`Self::intersect_segment`] with the unit normal of the face entered (for a segment
    /// that starts inside, the reverse of its direction).
    pub fn intersect_segment_normal(&self, start: Vec3, end: Vec3) -> Option<(f32, Vec3)> {
        let t = self.intersect_segment(start, end)?;
        let d = end - start;
        if t <= 0.0 {
            return Some((0.0, (-d).normalize_or(Vec3::Z)));
        }
        let p = start + d * t;
        let mut best = (f32::MAX, Vec3::Z);
        for i in 0..3 {
            for (face, sign) in [(self.min[i], -1.0), (self.max[i], 1.0)] {
                let gap = (p[i] - face).abs();
                if gap < best.0 && d[i] * sign < 0.0 {
                    let mut n = Vec3::ZERO;
                    n[i] = sign;
                    best = (gap, n);
                }
            }
        }
        Some((t, best.1))
    }
    fn is_valid(&self) -> bool {
        self.min.is_finite() && self.max.is_finite()
    }
}

/// World geometry that is not a box (the terrain, interiors): the container asks it where a
/// segment meets it. Implemented by the world layer, which knows the shapes.
pub trait StaticGeometry: std::fmt::Debug {
    /// The first point where the segment `start..end` meets the geometry: the fraction along
    /// it (0..=1) and the unit surface normal there.
    fn cast_ray(&self, start: Vec3, end: Vec3) -> Option<(f32, Vec3)>;

    /// How far (0..=1) an axis-aligned box of half-size `half` centred at `center` moves by
    /// `delta` before it meets the geometry, and the surface normal there. The default is
    /// `None`: geometry that only answers rays does not block boxes.
    fn sweep_box(&self, center: Vec3, half: Vec3, delta: Vec3) -> Option<(f32, Vec3)> {
        let _ = (center, half, delta);
        None
    }
}

/// Static geometry with moving boxes on top: what a walking object collides with in one
/// tick (V12's Player collides with other players and shapes through the container). The
/// boxes are the other objects where they stand at the start of the tick; one of them, the
/// mover itself, is exempt. A box the mover already overlaps does not block it, so two
/// objects that spawned inside each other walk apart.
#[derive(Clone, Debug, Default)]
pub struct Obstacles {
    /// The world underneath (terrain, interiors).
    pub ground: Option<std::rc::Rc<dyn StaticGeometry>>,
    /// Each box with its owner and whether it is a player's (see [`Self::set_players`]),
    /// kept in order of the boxes' low x (then low y and z): a sweep looks only at the run of
    /// boxes whose x span can meet its own.
    boxes: Vec<(u32, Aabb, bool)>,
    /// The widest box's x extent (how far before a sweep's low x a box may start).
    widest: f32,
    exempt: std::cell::Cell<Option<u32>>,
    players: std::cell::Cell<bool>,
}

impl Obstacles {
    /// Obstacles over `ground` with no boxes yet.
    pub fn new(ground: Option<std::rc::Rc<dyn StaticGeometry>>) -> Self {
        Obstacles {
            ground,
            boxes: Vec::new(),
            widest: 0.0,
            exempt: std::cell::Cell::new(None),
            players: std::cell::Cell::new(true),
        }
    }

    /// Adds object `id`'s box: its bottom centre (feet) at `feet`, half extents `half`.
    pub fn add_box(&mut self, id: u32, feet: Vec3, half: Vec3) {
        self.insert_box(id, Aabb::around(feet + Vec3::Z * half.z, half), false);
    }

    /// Adds player `id`'s box, which blocks only while [`Self::set_players`] is on: one set
    /// serves the movers that walk into players and those that walk through them.
    pub fn add_player_box(&mut self, id: u32, feet: Vec3, half: Vec3) {
        self.insert_box(id, Aabb::around(feet + Vec3::Z * half.z, half), true);
    }

    /// Inserts a box in its place in the x order (a non-finite box is left out).
    fn insert_box(&mut self, id: u32, b: Aabb, player: bool) {
        if !(b.min.is_finite() && b.max.is_finite()) {
            return;
        }
        let key = |a: &Aabb| (a.min.x, a.min.y, a.min.z);
        let at = self.boxes.partition_point(|(other, o, _)| {
            key(o).partial_cmp(&key(&b)).is_some_and(|c| c.then(other.cmp(&id)).is_lt())
        });
        self.boxes.insert(at, (id, b, player));
        self.widest = self.widest.max(b.max.x - b.min.x);
    }

    /// Whether players' boxes block the object now moving (on when made).
    pub fn set_players(&self, on: bool) {
        self.players.set(on);
    }

    /// Drops every box, keeping the ground and the allocation (a set rebuilt each tick).
    pub fn clear_boxes(&mut self) {
        self.boxes.clear();
        self.widest = 0.0;
    }

    /// The object now moving: its own box does not block it.
    pub fn set_exempt(&self, id: Option<u32>) {
        self.exempt.set(id);
    }

    /// Boxes held.
    pub fn len(&self) -> usize {
        self.boxes.len()
    }

    /// True with no boxes.
    pub fn is_empty(&self) -> bool {
        self.boxes.is_empty()
    }
}

impl Obstacles {
    /// The nearest box (the mover's own aside) the segment `start..start + delta` enters,
    /// each box grown by `grow`. A box the segment starts inside does not count.
    fn nearest_box(&self, start: Vec3, delta: Vec3, grow: Vec3) -> Option<(f32, Vec3)> {
        let (exempt, players) = (self.exempt.get(), self.players.get());
        // The swept path's bounds: a box wholly outside them cannot be met (the cheap test
        // first, as most boxes are far away).
        let end = start + delta;
        let (lo, hi) = (start.min(end) - grow, start.max(end) + grow);
        let mut best: Option<(f32, Vec3)> = None;
        // The boxes that start after `hi.x` are past; those that start before `lo.x` less the
        // widest box's extent end before `lo.x`.
        let first = self.boxes.partition_point(|(_, b, _)| b.min.x < lo.x - self.widest);
        let run = self.boxes[first..].iter().take_while(|(_, b, _)| b.min.x <= hi.x);
        for &(id, b, player) in run {
            if (player && !players) || Some(id) == exempt || b.max.cmplt(lo).any() || b.min.cmpgt(hi).any() {
                continue;
            }
            let grown = Aabb { min: b.min - grow, max: b.max + grow };
            if start.cmpgt(grown.min).all() && start.cmplt(grown.max).all() {
                continue;
            }
            if let Some(hit) = grown.intersect_segment_normal(start, start + delta)
                && best.is_none_or(|b| hit.0 < b.0)
            {
                best = Some(hit);
            }
        }
        best
    }
}

/// The nearer of two hits.
fn nearer(a: Option<(f32, Vec3)>, b: Option<(f32, Vec3)>) -> Option<(f32, Vec3)> {
    match (a, b) {
        (Some(x), Some(y)) => Some(if y.0 < x.0 { y } else { x }),
        (x, y) => x.or(y),
    }
}

impl StaticGeometry for Obstacles {
    fn cast_ray(&self, start: Vec3, end: Vec3) -> Option<(f32, Vec3)> {
        let ground = self.ground.as_ref().and_then(|g| g.cast_ray(start, end));
        nearer(ground, self.nearest_box(start, end - start, Vec3::ZERO))
    }

    fn sweep_box(&self, center: Vec3, half: Vec3, delta: Vec3) -> Option<(f32, Vec3)> {
        // The moving box against a box is its centre against that box grown by it.
        let ground = self.ground.as_ref().and_then(|g| g.sweep_box(center, half, delta));
        nearer(ground, self.nearest_box(center, delta, half))
    }
}

/// Bin indices covering an unwrapped range of a grid of `n` by `n` bins, each once (the range
/// is clipped to one wrap).
fn for_bins(n: u32, (x0, y0, x1, y1): (i64, i64, i64, i64), mut f: impl FnMut(usize)) {
    let n = i64::from(n);
    let x1 = x1.min(x0 + n - 1);
    let y1 = y1.min(y0 + n - 1);
    for y in y0..=y1 {
        let row = y.rem_euclid(n) * n;
        for x in x0..=x1 {
            f((row + x.rem_euclid(n)) as usize);
        }
    }
}

/// Type masks (V12's `SimObjectTypes`, the `$TypeMasks::...ObjectType` globals).
pub mod type_masks {
    pub const STATIC: u32 = 1 << 0;
    pub const ENVIRONMENT: u32 = 1 << 1;
    pub const TERRAIN: u32 = 1 << 2;
    pub const INTERIOR: u32 = 1 << 3;
    pub const WATER: u32 = 1 << 4;
    pub const TRIGGER: u32 = 1 << 5;
    pub const MARKER: u32 = 1 << 6;
    pub const FORCE_FIELD: u32 = 1 << 8;
    pub const GAME_BASE: u32 = 1 << 10;
    pub const SHAPE_BASE: u32 = 1 << 11;
    pub const CAMERA: u32 = 1 << 12;
    pub const STATIC_SHAPE: u32 = 1 << 13;
    pub const PLAYER: u32 = 1 << 14;
    pub const ITEM: u32 = 1 << 15;
    pub const VEHICLE: u32 = 1 << 16;
    pub const VEHICLE_BLOCKER: u32 = 1 << 17;
    pub const PROJECTILE: u32 = 1 << 18;
    pub const EXPLOSION: u32 = 1 << 19;
    pub const CORPSE: u32 = 1 << 20;
    pub const TURRET: u32 = 1 << 21;
    pub const DEBRIS: u32 = 1 << 22;
    pub const PHYSICAL_ZONE: u32 = 1 << 23;
    pub const STATIC_TS: u32 = 1 << 24;
    pub const STATIC_RENDERED: u32 = 1 << 26;
    pub const DAMAGABLE_ITEM: u32 = 1 << 27;
    pub const SENSOR: u32 = 1 << 28;
    pub const STATION: u32 = 1 << 29;
    pub const GENERATOR: u32 = 1 << 30;

    /// Every mask with its script name (`$TypeMasks::<name>`).
    pub const ALL: &[(&str, u32)] = &[
        ("StaticObjectType", STATIC),
        ("EnvironmentObjectType", ENVIRONMENT),
        ("TerrainObjectType", TERRAIN),
        ("InteriorObjectType", INTERIOR),
        ("WaterObjectType", WATER),
        ("TriggerObjectType", TRIGGER),
        ("MarkerObjectType", MARKER),
        ("ForceFieldObjectType", FORCE_FIELD),
        ("GameBaseObjectType", GAME_BASE),
        ("ShapeBaseObjectType", SHAPE_BASE),
        ("CameraObjectType", CAMERA),
        ("StaticShapeObjectType", STATIC_SHAPE),
        ("PlayerObjectType", PLAYER),
        ("ItemObjectType", ITEM),
        ("VehicleObjectType", VEHICLE),
        ("VehicleBlockerObjectType", VEHICLE_BLOCKER),
        ("ProjectileObjectType", PROJECTILE),
        ("ExplosionObjectType", EXPLOSION),
        ("CorpseObjectType", CORPSE),
        ("TurretObjectType", TURRET),
        ("DebrisObjectType", DEBRIS),
        ("PhysicalZoneObjectType", PHYSICAL_ZONE),
        ("StaticTSObjectType", STATIC_TS),
        ("StaticRenderedObjectType", STATIC_RENDERED),
        ("DamagableItemObjectType", DAMAGABLE_ITEM),
        ("SensorObjectType", SENSOR),
        ("StationObjectType", STATION),
        ("GeneratorObjectType", GENERATOR),
    ];
}

/// A ray-cast hit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayHit {
    pub id: ContainerId,
    /// Fraction along the segment (0 = start).
    pub t: f32,
    pub point: Vec3,
    /// The unit normal of the surface hit (a box's face, the terrain's triangle).
    pub normal: Vec3,
}

/// Grid parameters.
#[derive(Clone, Copy, Debug)]
pub struct ContainerConfig {
    /// Bin edge length in metres.
    pub bin_size: f32,
    /// Bins per axis (the grid wraps around).
    pub bins_per_axis: u32,
    /// Objects spanning more bins than this per axis go to the overflow list.
    pub max_bins_spanned: u32,
}

impl Default for ContainerConfig {
    fn default() -> Self {
        Self { bin_size: 16.0, bins_per_axis: 64, max_bins_spanned: 8 }
    }
}

/// Errors of container edits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ContainerError {
    /// The id is already in the container.
    Duplicate(ContainerId),
    /// Not in the container.
    Unknown(ContainerId),
    /// A box with NaN or infinite corners.
    BadBox(ContainerId),
}

impl std::fmt::Display for ContainerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Duplicate(id) => write!(f, "object {id} is already in the container"),
            Self::Unknown(id) => write!(f, "object {id} is not in the container"),
            Self::BadBox(id) => write!(f, "object {id} has a non-finite box"),
        }
    }
}

impl std::error::Error for ContainerError {}

#[derive(Debug, Clone)]
struct Entry {
    id: ContainerId,
    bounds: Aabb,
    mask: u32,
    /// Bin range covered (x0, y0, x1, y1 in unwrapped bin coordinates); None = overflow.
    bins: Option<(i64, i64, i64, i64)>,
    stamp: u32,
    live: bool,
}

/// The container database.
#[derive(Debug, Clone)]
pub struct Container {
    cfg: ContainerConfig,
    entries: Vec<Entry>,
    free: Vec<u32>,
    by_id: HashMap<ContainerId, u32>,
    bins: Vec<Vec<u32>>,
    overflow: Vec<u32>,
    stamp: u32,
    /// Geometry that is not a box, tested by every ray cast its mask allows.
    statics: Vec<(ContainerId, u32, Rc<dyn StaticGeometry>)>,
}

impl Default for Container {
    fn default() -> Self {
        Self::new(ContainerConfig::default())
    }
}

impl Container {
    /// An empty container.
    pub fn new(mut cfg: ContainerConfig) -> Self {
        cfg.bins_per_axis = cfg.bins_per_axis.clamp(1, 1024);
        if !(cfg.bin_size.is_finite() && cfg.bin_size > 0.0) {
            cfg.bin_size = 16.0;
        }
        let n = (cfg.bins_per_axis * cfg.bins_per_axis) as usize;
        Self {
            cfg,
            entries: Vec::new(),
            free: Vec::new(),
            by_id: HashMap::new(),
            bins: vec![Vec::new(); n],
            overflow: Vec::new(),
            stamp: 0,
            statics: Vec::new(),
        }
    }

    /// Number of objects.
    pub fn len(&self) -> usize {
        self.by_id.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }

    /// The box and mask of an object.
    pub fn get(&self, id: ContainerId) -> Option<(Aabb, u32)> {
        let e = &self.entries[*self.by_id.get(&id)? as usize];
        Some((e.bounds, e.mask))
    }

    fn bin_range(&self, b: &Aabb) -> Option<(i64, i64, i64, i64)> {
        let s = self.cfg.bin_size;
        let f = |v: f32| (v / s).floor().clamp(-1e12, 1e12) as i64;
        let (x0, y0, x1, y1) = (f(b.min.x), f(b.min.y), f(b.max.x), f(b.max.y));
        let span = i64::from(self.cfg.max_bins_spanned);
        (x1 - x0 < span && y1 - y0 < span).then_some((x0, y0, x1, y1))
    }

    /// V12's `Container::addObject`.
    pub fn insert(&mut self, id: ContainerId, bounds: Aabb, mask: u32) -> Result<(), ContainerError> {
        if self.by_id.contains_key(&id) {
            return Err(ContainerError::Duplicate(id));
        }
        if !bounds.is_valid() {
            return Err(ContainerError::BadBox(id));
        }
        let bins = self.bin_range(&bounds);
        let e = Entry { id, bounds, mask, bins, stamp: 0, live: true };
        let slot = match self.free.pop() {
            Some(s) => {
                self.entries[s as usize] = e;
                s
            }
            None => {
                self.entries.push(e);
                (self.entries.len() - 1) as u32
            }
        };
        self.by_id.insert(id, slot);
        self.link(slot);
        Ok(())
    }

    fn link(&mut self, slot: u32) {
        match self.entries[slot as usize].bins {
            Some(r) => for_bins(self.cfg.bins_per_axis, r, |b| self.bins[b].push(slot)),
            None => self.overflow.push(slot),
        }
    }

    fn unlink(&mut self, slot: u32) {
        match self.entries[slot as usize].bins {
            Some(r) => for_bins(self.cfg.bins_per_axis, r, |b| {
                let bin = &mut self.bins[b];
                if let Some(p) = bin.iter().position(|&s| s == slot) {
                    bin.swap_remove(p);
                }
            }),
            None => {
                if let Some(p) = self.overflow.iter().position(|&s| s == slot) {
                    self.overflow.swap_remove(p);
                }
            }
        }
    }

    /// V12's `Container::removeObject`.
    pub fn remove(&mut self, id: ContainerId) -> Result<(), ContainerError> {
        let slot = self.by_id.remove(&id).ok_or(ContainerError::Unknown(id))?;
        self.unlink(slot);
        self.entries[slot as usize].live = false;
        self.free.push(slot);
        Ok(())
    }

    /// V12's `Container::checkBins`: the object moved; rebin only when its bin range changed.
    pub fn update(&mut self, id: ContainerId, bounds: Aabb) -> Result<(), ContainerError> {
        let slot = *self.by_id.get(&id).ok_or(ContainerError::Unknown(id))?;
        if !bounds.is_valid() {
            return Err(ContainerError::BadBox(id));
        }
        self.move_slot(slot, bounds);
        Ok(())
    }

    /// Moves the entry in `slot` to (valid) `bounds`, relinking it when its bins change.
    fn move_slot(&mut self, slot: u32, bounds: Aabb) {
        let bins = self.bin_range(&bounds);
        if bins != self.entries[slot as usize].bins {
            self.unlink(slot);
            self.entries[slot as usize].bins = bins;
            self.link(slot);
        }
        self.entries[slot as usize].bounds = bounds;
    }

    /// Puts `id` at `bounds` with `mask`: moves and re-masks it when it is in already (one
    /// look-up; an unchanged box touches nothing), inserts it otherwise. True when inserted.
    pub fn place(&mut self, id: ContainerId, bounds: Aabb, mask: u32) -> Result<bool, ContainerError> {
        let Some(&slot) = self.by_id.get(&id) else {
            return self.insert(id, bounds, mask).map(|()| true);
        };
        if self.entries[slot as usize].bounds != bounds {
            if !bounds.is_valid() {
                return Err(ContainerError::BadBox(id));
            }
            self.move_slot(slot, bounds);
        }
        self.entries[slot as usize].mask = mask;
        Ok(false)
    }

    /// Changes an object's type mask.
    pub fn set_mask(&mut self, id: ContainerId, mask: u32) -> Result<(), ContainerError> {
        let slot = *self.by_id.get(&id).ok_or(ContainerError::Unknown(id))?;
        self.entries[slot as usize].mask = mask;
        Ok(())
    }

    /// Calls `f` once for every live entry whose bins touch `area` and whose mask matches.
    fn candidates(&mut self, area: &Aabb, mask: u32, mut f: impl FnMut(&Entry)) {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            for e in &mut self.entries {
                e.stamp = 0;
            }
            self.stamp = 1;
        }
        let stamp = self.stamp;
        let range = match self.bin_range(area) {
            Some(r) => r,
            // A huge query: every bin once.
            None => {
                let n = i64::from(self.cfg.bins_per_axis);
                (0, 0, n - 1, n - 1)
            }
        };
        let entries = &mut self.entries;
        for_bins(self.cfg.bins_per_axis, range, |b| {
            for &s in &self.bins[b] {
                let e = &mut entries[s as usize];
                if e.stamp != stamp {
                    e.stamp = stamp;
                    if e.mask & mask != 0 {
                        f(e);
                    }
                }
            }
        });
        for &s in &self.overflow {
            let e = &entries[s as usize];
            if e.mask & mask != 0 {
                f(e);
            }
        }
    }

    /// Objects whose box overlaps `area` and whose type mask shares a bit with `mask`,
    /// sorted by id (V12's `findObjects`).
    pub fn find_box(&mut self, area: &Aabb, mask: u32) -> Vec<ContainerId> {
        let mut out = Vec::new();
        self.candidates(area, mask, |e| {
            if e.bounds.overlaps(area) {
                out.push(e.id);
            }
        });
        out.sort_unstable();
        out
    }

    /// Objects within `radius` of `center` (distance to their box), nearest first, ties by id.
    pub fn find_radius(&mut self, center: Vec3, radius: f32, mask: u32) -> Vec<(ContainerId, f32)> {
        let mut out = Vec::new();
        if !(center.is_finite() && radius.is_finite() && radius >= 0.0) {
            return out;
        }
        let area = Aabb::around(center, Vec3::splat(radius));
        self.candidates(&area, mask, |e| {
            let d = e.bounds.distance_to(center);
            if d <= radius {
                out.push((e.id, d));
            }
        });
        out.sort_unstable_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
        out
    }

    /// Adds geometry that is not a box (a terrain block, an interior) under `id`: every ray
    /// cast whose mask shares a bit with `mask` tests it. A second add under the same id
    /// replaces the first.
    pub fn insert_static(&mut self, id: ContainerId, mask: u32, geometry: Rc<dyn StaticGeometry>) {
        self.statics.retain(|(s, _, _)| *s != id);
        self.statics.push((id, mask, geometry));
    }

    /// Removes the geometry added under `id`; false when there was none.
    pub fn remove_static(&mut self, id: ContainerId) -> bool {
        let before = self.statics.len();
        self.statics.retain(|(s, _, _)| *s != id);
        self.statics.len() != before
    }

    /// The nearest object whose box (or static geometry) the segment `start..end` hits (V12's
    /// `castRay`), skipping `exclude` (the caster). Ties go to the lower id.
    pub fn cast_ray(
        &mut self,
        start: Vec3,
        end: Vec3,
        mask: u32,
        exclude: Option<ContainerId>,
    ) -> Option<RayHit> {
        if !(start.is_finite() && end.is_finite()) {
            return None;
        }
        let area = Aabb::new(start, end);
        let mut best: Option<(f32, ContainerId, Vec3)> = None;
        let better = |best: &Option<(f32, ContainerId, Vec3)>, t: f32, id: ContainerId| match best {
            None => true,
            Some((bt, bid, _)) => t < *bt || (t == *bt && id < *bid),
        };
        self.candidates(&area, mask, |e| {
            // A segment that starts inside a box does not hit it (as a ray cast against a
            // shape's convex hull: it never enters it), so a shot leaving its firer's box
            // and a search from an object's centre skip that object.
            let inside = start.cmpge(e.bounds.min).all() && start.cmple(e.bounds.max).all();
            if Some(e.id) == exclude || inside {
                return;
            }
            if let Some((t, n)) = e.bounds.intersect_segment_normal(start, end)
                && better(&best, t, e.id)
            {
                best = Some((t, e.id, n));
            }
        });
        for (id, m, geometry) in &self.statics {
            if m & mask == 0 || Some(*id) == exclude {
                continue;
            }
            if let Some((t, n)) = geometry.cast_ray(start, end)
                && better(&best, t, *id)
            {
                best = Some((t, *id, n));
            }
        }
        best.map(|(t, id, normal)| RayHit { id, t, point: start + (end - start) * t, normal })
    }

    /// Every object whose type mask shares a bit with `mask`, by id (`initContainerTypeSearch`).
    pub fn find_type(&self, mask: u32) -> Vec<ContainerId> {
        let mut out: Vec<ContainerId> =
            self.entries.iter().filter(|e| e.live && e.mask & mask != 0).map(|e| e.id).collect();
        out.sort_unstable();
        out
    }

    /// Reference implementation for tests and benches: a scan of every object.
    pub fn find_radius_brute_force(&self, center: Vec3, radius: f32, mask: u32) -> Vec<(ContainerId, f32)> {
        let mut out: Vec<(ContainerId, f32)> = self
            .entries
            .iter()
            .filter(|e| e.live && e.mask & mask != 0)
            .map(|e| (e.id, e.bounds.distance_to(center)))
            .filter(|&(_, d)| d <= radius)
            .collect();
        out.sort_unstable_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
        out
    }
}

/// A container plus the scripts' search cursors, shared by the host and the console functions.
#[derive(Debug, Default)]
pub struct ScriptContainer {
    pub container: Container,
    /// `initContainerRadiusSearch` / `initContainerTypeSearch`: what `containerSearchNext`
    /// walks, and the point distances are measured from.
    search: Vec<(ContainerId, f32)>,
    cursor: usize,
    reference: Option<Vec3>,
    current: Option<ContainerId>,
    /// `ContainerFindFirst` / `ContainerFindNext`: the box query's results.
    found: Vec<ContainerId>,
    found_cursor: usize,
    /// The container of this process's client ghosts (V12's client container; the host links
    /// it while a client session runs), answering queries that pass `useClientContainer`.
    pub client: Option<ContainerHandle>,
    /// Queries without `useClientContainer` go to [`Self::client`] too: a process that runs
    /// no server has nothing else to ask.
    pub prefer_client: bool,
    /// The client container when the current radius or type search ran there.
    search_in: Option<ContainerHandle>,
    /// The client container when the current `ContainerFindFirst` ran there.
    found_in: Option<ContainerHandle>,
}

impl ScriptContainer {
    /// The client container a query goes to, or `None` for this one: `use_client` is the
    /// script's `useClientContainer` argument (absent: [`Self::prefer_client`]).
    fn client_for(&self, use_client: Option<bool>) -> Option<ContainerHandle> {
        if use_client.unwrap_or(self.prefer_client) { self.client.clone() } else { None }
    }

    /// The box and mask of `id` in the container a query ran in (`client`, or this one).
    fn entry_in(&self, client: Option<&ContainerHandle>, id: ContainerId) -> Option<(Aabb, u32)> {
        match client {
            Some(c) => c.try_borrow().ok()?.container.get(id),
            None => self.container.get(id),
        }
    }

    /// The next object of the current search still in its container (removed ones are
    /// skipped), or `None` at the end.
    fn search_next(&mut self) -> Option<ContainerId> {
        while self.cursor < self.search.len() {
            let (id, _) = self.search[self.cursor];
            self.cursor += 1;
            if self.entry_in(self.search_in.as_ref(), id).is_some() {
                self.current = Some(id);
                return Some(id);
            }
        }
        self.current = None;
        None
    }

    /// V12's `containerSearchCurrDist`: from the search's point to the centre of the current
    /// object's box; with `damage`, `containerSearchCurrRadDamageDist`: less the radius of the
    /// box's bounding sphere, never below 0 (so a large object is hurt as if nearer).
    fn current_dist(&self, damage: bool) -> f32 {
        let (Some(id), Some(p)) = (self.current, self.reference) else { return 0.0 };
        let Some((b, _)) = self.entry_in(self.search_in.as_ref(), id) else { return 0.0 };
        let d = b.center().distance(p);
        if damage { (d - (b.max - b.min).length() * 0.5).max(0.0) } else { d }
    }
}

/// Runs `f` on the container a script's query goes to: the client container linked to
/// `handle` when `use_client` (or the preference) says so, else `handle`'s own. Also returns
/// the client container it used, for searches that walk their results later.
fn query<R>(
    handle: &ContainerHandle,
    use_client: Option<bool>,
    f: impl FnOnce(&mut Container) -> R,
) -> (R, Option<ContainerHandle>) {
    let client = handle.borrow().client_for(use_client).filter(|c| !Rc::ptr_eq(c, handle));
    match client {
        Some(c) => {
            let r = f(&mut c.borrow_mut().container);
            (r, Some(c))
        }
        None => (f(&mut handle.borrow_mut().container), None),
    }
}

/// The optional trailing `useClientContainer` argument at index `i`.
fn use_client_arg(a: &v12_console_vm::CallArgs<'_>, i: usize) -> Option<bool> {
    (a.len() > i).then(|| a.bool(i))
}

/// The shared handle the console functions hold.
pub type ContainerHandle = Rc<RefCell<ScriptContainer>>;

/// The console object that holds the container functions' handle.
const HOST_OBJECT: &str = "ContainerSystem";

/// The container the console's container functions query (from
/// [`register_container_functions`]), if any.
pub fn script_container(con: &Console) -> Option<ContainerHandle> {
    let id = con.find_object_str(HOST_OBJECT)?;
    con.object_data::<ContainerHandle>(id).cloned()
}

/// Runs `f` on the console's script container, if there is one and no query holds it.
fn with_script_container(con: &Console, f: impl FnOnce(&mut ScriptContainer)) {
    if let Some(h) = script_container(con)
        && let Ok(mut s) = h.try_borrow_mut()
    {
        f(&mut s);
    }
}

/// Links `client` (a client session's container of its ghosts) to the console's container
/// functions: `useClientContainer` queries go there.
pub fn link_client_container(con: &Console, client: &ContainerHandle) {
    with_script_container(con, |s| s.client = Some(client.clone()));
}

/// Unlinks `client` if it is the one linked (its session ended).
pub fn unlink_client_container(con: &Console, client: &ContainerHandle) {
    with_script_container(con, |s| {
        if s.client.as_ref().is_some_and(|c| Rc::ptr_eq(c, client)) {
            s.client = None;
        }
    });
}

/// Whether queries that do not say `useClientContainer` go to the client container too (a
/// process that runs no server has nothing else to ask).
pub fn prefer_client_container(con: &Console, prefer: bool) {
    with_script_container(con, |s| s.prefer_client = prefer);
}

/// A coordinate as the console prints numbers.
fn fmt(v: f32) -> String {
    v12_console_vm::value::fmt_num(f64::from(v))
}

fn parse_point(s: &str) -> Vec3 {
    let mut it = s.split_whitespace().map(|w| v12_console_vm::value::atof(w) as f32);
    let v = Vec3::new(it.next().unwrap_or(0.0), it.next().unwrap_or(0.0), it.next().unwrap_or(0.0));
    Vec3::select(v.is_finite_mask(), v, Vec3::ZERO)
}

/// A script's type mask argument (`$TypeMasks::PlayerObjectType | ...`; -1 is every type).
fn mask_arg(v: f64) -> u32 {
    if v.is_finite() { v as i64 as u32 } else { 0 }
}

/// A half size from script (a radius): finite, not negative, at most 10 km.
fn radius_arg(v: f64) -> f32 {
    if v.is_finite() { (v as f32).clamp(0.0, 10_000.0) } else { 0.0 }
}

/// Registers V12's container functions and the `$TypeMasks::...ObjectType` globals:
/// `containerRayCast(%start, %end, %mask [, %exempt])` ("id x y z nx ny nz" of the nearest
/// hit, or 0); `initContainerRadiusSearch(%pos, %radius, %mask)` and
/// `initContainerTypeSearch(%mask)`, walked by `containerSearchNext()` (the next id, nearest
/// first for a radius search, by id for a type search, 0 at the end) with
/// `containerSearchCurrDist()` and `containerSearchCurrRadDamageDist()`;
/// `containerBoxEmpty(%mask, %center, %xRadius [, %yRadius, %zRadius])`; and
/// `ContainerFindFirst(%mask, %point, %x, %y, %z)` / `ContainerFindNext()` (the objects whose
/// boxes overlap the box of those half sizes around the point, by id).
///
/// The ray cast, the searches and `containerBoxEmpty` take a trailing `useClientContainer`
/// (as Torque's later engines): true asks the container of this process's client ghosts
/// ([`ScriptContainer::client`]) instead of the server's; without it a process that runs no
/// server asks its client's ([`ScriptContainer::prefer_client`]).
pub fn register_container_functions(con: &mut Console, handle: ContainerHandle) {
    // The handle stays findable (`script_container`), so a client session started later can
    // link its ghosts' container to these functions.
    let _ = con.register_class(HOST_OBJECT, "SimObject");
    match con.find_object_str(HOST_OBJECT) {
        Some(id) => con.set_object_data(id, Box::new(handle.clone())),
        None => {
            if let Err(e) =
                con.create_object_with_data(HOST_OBJECT, Some(HOST_OBJECT), Box::new(handle.clone()))
            {
                tracing::warn!("{HOST_OBJECT}: {e}");
            }
        }
    }
    for (name, bits) in type_masks::ALL {
        con.set_global(&format!("TypeMasks::{name}"), i64::from(*bits));
    }
    let h = handle.clone();
    con.register_function(
        "containerRayCast",
        4,
        6,
        "containerRayCast(start, end, mask [, exempt, useClientContainer])",
        move |c, a| {
            let (start, end) = (parse_point(&a.str(0)), parse_point(&a.str(1)));
            let mask = mask_arg(a.f64(2));
            let exempt = if a.len() > 3 { c.find_object(&a.get(3)) } else { None };
            let (hit, _) = query(&h, use_client_arg(a, 4), |c| c.cast_ray(start, end, mask, exempt));
            match hit {
                Some(hit) => Value::str(format!(
                    "{} {} {} {} {} {} {}",
                    hit.id,
                    fmt(hit.point.x),
                    fmt(hit.point.y),
                    fmt(hit.point.z),
                    fmt(hit.normal.x),
                    fmt(hit.normal.y),
                    fmt(hit.normal.z)
                )),
                None => Value::Int(0),
            }
        },
    );
    let h = handle.clone();
    con.register_function(
        "initContainerRadiusSearch",
        4,
        5,
        "initContainerRadiusSearch(pos, radius, mask [, useClientContainer])",
        move |_c, a| {
            let pos = parse_point(&a.str(0));
            let (radius, mask) = (radius_arg(a.f64(1)), mask_arg(a.f64(2)));
            let (found, client) = query(&h, use_client_arg(a, 3), |c| c.find_radius(pos, radius, mask));
            let mut s = h.borrow_mut();
            s.search = found;
            s.search_in = client;
            s.cursor = 0;
            s.reference = Some(pos);
            s.current = None;
            Value::Empty
        },
    );
    let h = handle.clone();
    con.register_function(
        "initContainerTypeSearch",
        2,
        3,
        "initContainerTypeSearch(mask [, useClientContainer]) - every object of those types, by id",
        move |_c, a| {
            let mask = mask_arg(a.f64(0));
            let (found, client) = query(&h, use_client_arg(a, 1), |c| c.find_type(mask));
            let mut s = h.borrow_mut();
            s.search = found.into_iter().map(|id| (id, 0.0)).collect();
            s.search_in = client;
            s.cursor = 0;
            s.reference = None;
            s.current = None;
            Value::Empty
        },
    );
    let h = handle.clone();
    con.register_function("containerSearchNext", 1, 1, "containerSearchNext()", move |_c, _a| {
        Value::Int(h.borrow_mut().search_next().map_or(0, i64::from))
    });
    let h = handle.clone();
    con.register_function(
        "containerSearchCurrDist",
        1,
        1,
        "containerSearchCurrDist() - from the search's point to the current object's centre",
        move |_c, _a| Value::Float(f64::from(h.borrow().current_dist(false))),
    );
    let h = handle.clone();
    con.register_function(
        "containerSearchCurrRadDamageDist",
        1,
        1,
        "containerSearchCurrRadDamageDist() - containerSearchCurrDist less the object's radius",
        move |_c, _a| Value::Float(f64::from(h.borrow().current_dist(true))),
    );
    let h = handle.clone();
    con.register_function(
        "containerBoxEmpty",
        4,
        7,
        "containerBoxEmpty(mask, center, xRadius [, yRadius, zRadius, useClientContainer]) - true when no object of those types is in the box",
        move |_c, a| {
            // V12 reads a negative y or z radius as "the x radius".
            let x = radius_arg(a.f64(2));
            let y = if a.len() > 3 && a.f64(3) >= 0.0 { radius_arg(a.f64(3)) } else { x };
            let z = if a.len() > 4 && a.f64(4) >= 0.0 { radius_arg(a.f64(4)) } else { x };
            let area = Aabb::around(parse_point(&a.str(1)), Vec3::new(x, y, z));
            let mask = mask_arg(a.f64(0));
            Value::from(query(&h, use_client_arg(a, 5), |c| c.find_box(&area, mask).is_empty()).0)
        },
    );
    let h = handle.clone();
    con.register_function(
        "ContainerFindFirst",
        6,
        6,
        "ContainerFindFirst(mask, point, x, y, z) - the first object whose box meets that box, or 0",
        move |_c, a| {
            let half = Vec3::new(radius_arg(a.f64(2)), radius_arg(a.f64(3)), radius_arg(a.f64(4)));
            let area = Aabb::around(parse_point(&a.str(1)), half);
            let mask = mask_arg(a.f64(0));
            let (found, client) = query(&h, None, |c| c.find_box(&area, mask));
            let mut s = h.borrow_mut();
            s.found = found;
            s.found_in = client;
            s.found_cursor = 0;
            Value::Int(find_next(&mut s))
        },
    );
    con.register_function(
        "ContainerFindNext",
        1,
        1,
        "ContainerFindNext() - the next one, or 0",
        move |_c, _a| Value::Int(find_next(&mut handle.borrow_mut())),
    );
}

/// The next object of `ContainerFindFirst`'s query still in the container, or 0.
fn find_next(s: &mut ScriptContainer) -> i64 {
    while s.found_cursor < s.found.len() {
        let id = s.found[s.found_cursor];
        s.found_cursor += 1;
        if s.entry_in(s.found_in.as_ref(), id).is_some() {
            return i64::from(id);
        }
    }
    0
}
