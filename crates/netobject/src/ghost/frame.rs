//! The ghost frame: what every connection's scoping and priority pass needs of the world's
//! objects, taken once per tick and shared read-only by all of them.
//!
//! Without a frame each connection, for each packet, asks the world for every object in its
//! scope (a radius query, an id lookup and a call through `dyn NetObject` each) and weighs
//! each one through [`NetObject::get_update_priority`]: with a thousand clients that all see
//! hundreds of the same objects, the same object facts are fetched hundreds of times a tick
//! from objects scattered over memory. The frame keeps them in one dense array in id order
//! (position, change stamps, priority terms, flags) with a uniform grid over it, so a
//! connection's pass reads compact shared data, which stays in cache from one connection to
//! the next.
//!
//! A world offers its frame through [`crate::ghost::GhostWorld::frame`]; it must describe
//! the world as it is when the managers use it (rebuild it after objects move or change).

use crate::ghost::ids::ObjectId;
use crate::ghost::object::{MaskStamps, NetFlags, NetObject, Point3, PreparedQuery, PriorityTerms, dot, sub};
use std::sync::atomic::{AtomicU64, Ordering};

/// Bins per axis of the frame's grid (a power of two; cells wrap, which only adds
/// candidates the distance test drops).
const BINS: usize = 64;

const HAS_POSITION: u8 = 1;
const HAS_DEPENDENCIES: u8 = 2;
/// The object has priority terms ([`FrameDetail::terms`]).
const HAS_TERMS: u8 = 4;
/// Its terms' position is its scope position ([`FrameObject::position`]), so its near ring
/// is tested from this record alone.
const RING_HERE: u8 = 8;
/// The object is in the grid (ghostable, with a position).
const IN_GRID: u8 = 16;

/// What every connection's scoping and listing pass reads of one object: 32 bytes, two to
/// a cache line (the rest, read only for the objects a packet weighs or picks changes up
/// from, is in [`FrameDetail`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct FrameObject {
    pub(crate) position: Point3,
    /// The near ring of its terms (with `RING_HERE`).
    pub(crate) near_ring: f32,
    /// Its change counter ([`MaskStamps::version`]).
    version: u64,
    flags: u8,
}

const _: () = assert!(std::mem::size_of::<FrameObject>() == 32);

/// The rest of one object's facts in a frame.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FrameDetail {
    pub(crate) stamps: MaskStamps,
    /// `None`: ask the object for its priority.
    pub(crate) terms: Option<PriorityTerms>,
}

impl FrameObject {
    #[inline]
    pub(crate) fn has_dependencies(&self) -> bool {
        self.flags & HAS_DEPENDENCIES != 0
    }
    /// The squared distance from `center` that the scope test ([`Self::within_at`]) and the
    /// near-ring test ([`Self::outside_near_ring`]) compute (the same operations, so the
    /// same value).
    #[inline(always)]
    pub(crate) fn squared_distance(&self, center: Point3) -> f32 {
        let d = sub(self.position, center);
        dot(d, d)
    }
    /// True when the object has a position within `radius` of the point it is at squared
    /// distance `d2` from ([`Self::squared_distance`]).
    #[inline(always)]
    pub(crate) fn within_at(&self, d2: f32, radius: f32) -> bool {
        self.flags & HAS_POSITION != 0 && radius >= 0.0 && d2 <= radius * radius
    }
    /// Its near ring is tested from this record ([`Self::outside_near_ring`] answers).
    #[inline]
    pub(crate) fn ring_here(&self) -> bool {
        self.flags & RING_HERE != 0
    }
    /// The object's change counter.
    #[inline]
    pub(crate) fn version(&self) -> u64 {
        self.version
    }
    /// The object has priority terms (else it is asked for its priority).
    #[inline]
    pub(crate) fn has_terms(&self) -> bool {
        self.flags & HAS_TERMS != 0
    }
    /// [`PriorityTerms::outside_near_ring`] of its terms, when this record can tell (`None`:
    /// ask the terms in its [`FrameDetail`]).
    #[inline(always)]
    pub(crate) fn outside_near_ring(&self, q: &PreparedQuery) -> Option<bool> {
        (self.flags & RING_HERE != 0)
            .then(|| PriorityTerms::outside_ring_at(self.position, self.near_ring, q))
    }
    /// [`Self::outside_near_ring`] given the squared distance `d2` from the query's
    /// position ([`Self::squared_distance`]).
    #[inline(always)]
    pub(crate) fn outside_near_ring_at(&self, d2: f32, q: &PreparedQuery) -> Option<bool> {
        (self.flags & RING_HERE != 0).then(|| PriorityTerms::outside_ring_at_d2(d2, self.near_ring, q))
    }
}

/// A snapshot of the world's objects for one tick (see the module docs). Rebuilding reuses
/// its buffers: a steady world allocates nothing.
#[derive(Debug, Default)]
pub struct GhostFrame {
    stamp: u64,
    /// Changes when a rebuild changes which objects there are, their order, flags or near
    /// rings, and differs between frames: while it holds, a dense index names the same
    /// object with the same flags (see [`Self::travel`]).
    layout: u64,
    /// The sum, over the rebuilds since the layout last changed, of the farthest any object
    /// moved in each: no object moved farther than this since then.
    travel: f64,
    ids: Vec<ObjectId>,
    /// The previous rebuild's ids and records (their buffers reused).
    prev_ids: Vec<ObjectId>,
    prev_objects: Vec<FrameObject>,
    /// Object id → dense index + 1 (0: absent), while ids are compact enough.
    direct: Vec<u32>,
    objects: Vec<FrameObject>,
    details: Vec<FrameDetail>,
    cell: f32,
    /// Start of each bin's entries in `entries` (`BINS * BINS + 1` prefix sums).
    starts: Vec<u32>,
    /// Dense indices, bin by bin.
    entries: Vec<u32>,
    scratch_bins: Vec<u32>,
    scratch_deps: Vec<ObjectId>,
}

static NEXT_STAMP: AtomicU64 = AtomicU64::new(1);

impl GhostFrame {
    /// An empty frame.
    pub fn new() -> Self {
        Self::default()
    }

    /// Takes the objects anew: `objects` in increasing id order (an id out of order is
    /// dropped), `cell` the grid's bin size in metres (about half the scope radius).
    pub fn rebuild<'a>(&mut self, cell: f32, objects: impl Iterator<Item = (ObjectId, &'a dyn NetObject)>) {
        self.stamp = NEXT_STAMP.fetch_add(1, Ordering::Relaxed);
        self.cell = if cell.is_finite() && cell > 0.0 { cell } else { 64.0 };
        std::mem::swap(&mut self.ids, &mut self.prev_ids);
        std::mem::swap(&mut self.objects, &mut self.prev_objects);
        self.ids.clear();
        self.objects.clear();
        self.details.clear();
        self.scratch_bins.clear();
        let mut deps = std::mem::take(&mut self.scratch_deps);
        for (id, obj) in objects {
            if self.ids.last().is_some_and(|&last| last >= id) {
                continue;
            }
            let mut flags = 0;
            let position = match obj.scope_position() {
                Some(p) if p.iter().all(|c| c.is_finite()) => {
                    flags |= HAS_POSITION;
                    p
                }
                _ => [0.0; 3],
            };
            deps.clear();
            obj.dependencies(&mut deps);
            if !deps.is_empty() {
                flags |= HAS_DEPENDENCIES;
            }
            // Only ghostable objects are found by distance (no connection would scope others).
            let ghostable = obj.net_flags().contains(NetFlags::GHOSTABLE);
            let bin = if ghostable && flags & HAS_POSITION != 0 {
                flags |= IN_GRID;
                self.bin_of(position)
            } else {
                u32::MAX
            };
            self.scratch_bins.push(bin);
            self.ids.push(id);
            let stamps = obj.state_mask().stamps();
            let terms = obj.priority_terms();
            let mut near_ring = 0.0;
            if let Some(t) = terms {
                flags |= HAS_TERMS;
                if flags & HAS_POSITION != 0 && t.position == Some(position) {
                    flags |= RING_HERE;
                    near_ring = t.near_ring;
                }
            }
            self.objects.push(FrameObject { position, near_ring, version: stamps.version(), flags });
            self.details.push(FrameDetail { stamps, terms });
        }
        self.scratch_deps = deps;
        self.note_travel();
        // Direct id table while the ids are compact (a world that numbers from 1 up).
        self.direct.clear();
        if let Some(&ObjectId(max)) = self.ids.last()
            && (max as usize) <= 4 * self.ids.len() + 1024
        {
            self.direct.resize(max as usize + 1, 0);
            for (i, id) in self.ids.iter().enumerate() {
                self.direct[id.0 as usize] = i as u32 + 1;
            }
        }
        // Counting sort of the dense indices by bin.
        self.starts.clear();
        self.starts.resize(BINS * BINS + 1, 0);
        for &b in &self.scratch_bins {
            if b != u32::MAX {
                self.starts[b as usize + 1] += 1;
            }
        }
        for i in 0..BINS * BINS {
            self.starts[i + 1] += self.starts[i];
        }
        let placed = self.starts[BINS * BINS] as usize;
        self.entries.clear();
        self.entries.resize(placed, 0);
        // `scratch_bins` becomes each bin's fill pointer in turn.
        let mut fill: Vec<u32> = std::mem::take(&mut self.scratch_bins);
        for (i, b) in fill.iter_mut().enumerate() {
            if *b != u32::MAX {
                let at = &mut self.starts[*b as usize];
                self.entries[*at as usize] = i as u32;
                *at += 1;
            }
        }
        // The fill moved each start to the next bin's: shift back.
        for i in (1..=BINS * BINS).rev() {
            self.starts[i] = self.starts[i - 1];
        }
        self.starts[0] = 0;
        fill.clear();
        self.scratch_bins = fill;
    }

    /// A number that differs between any two rebuilds (of any frame).
    pub fn stamp(&self) -> u64 {
        self.stamp
    }

    /// Against the previous rebuild: the same layout, and how far its objects moved at most
    /// (added to `travel`); else a new layout.
    fn note_travel(&mut self) {
        let same = self.ids == self.prev_ids
            && self
                .objects
                .iter()
                .zip(&self.prev_objects)
                .all(|(a, b)| a.flags == b.flags && a.near_ring.to_bits() == b.near_ring.to_bits());
        let farthest = if same {
            self.objects
                .iter()
                .zip(&self.prev_objects)
                .map(|(a, b)| {
                    let d = sub(a.position, b.position);
                    dot(d, d)
                })
                .fold(0.0f32, f32::max)
                .sqrt()
        } else {
            f32::INFINITY
        };
        if farthest.is_finite() {
            self.travel += f64::from(farthest);
        } else {
            self.layout = NEXT_STAMP.fetch_add(1, Ordering::Relaxed);
            self.travel = 0.0;
        }
    }

    /// The layout stamp (see [`Self::travel`]).
    #[inline]
    pub(crate) fn layout(&self) -> u64 {
        self.layout
    }

    /// While [`Self::layout`] holds, no object moved farther than the difference of this
    /// figure between then and now (a bound from the rebuilds' farthest moves).
    #[inline]
    pub(crate) fn travel(&self) -> f64 {
        self.travel
    }

    /// Objects in the frame.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// True with no objects.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The dense index of `id`.
    #[inline(always)]
    pub(crate) fn index_of(&self, id: ObjectId) -> Option<usize> {
        if !self.direct.is_empty() {
            return match self.direct.get(id.0 as usize) {
                Some(&i) if i > 0 => Some(i as usize - 1),
                _ => None,
            };
        }
        self.ids.binary_search(&id).ok()
    }

    pub(crate) fn id(&self, index: usize) -> ObjectId {
        self.ids[index]
    }

    #[inline]
    pub(crate) fn object(&self, index: usize) -> &FrameObject {
        &self.objects[index]
    }

    #[inline]
    pub(crate) fn detail(&self, index: usize) -> &FrameDetail {
        &self.details[index]
    }

    /// [`PriorityTerms::outside_near_ring`] of the object's terms (false without terms),
    /// from its compact record when that can tell.
    #[inline(always)]
    pub(crate) fn outside_near_ring(&self, index: usize, q: &PreparedQuery) -> bool {
        let o = &self.objects[index];
        o.has_terms()
            && o.outside_near_ring(q)
                .unwrap_or_else(|| self.details[index].terms.is_some_and(|t| t.outside_near_ring(q)))
    }

    /// [`PriorityTerms::priority`] of the object's terms (V12's constant without terms).
    #[inline(always)]
    pub(crate) fn priority(&self, index: usize, q: &PreparedQuery, skips: u32) -> f32 {
        self.details[index].terms.unwrap_or_default().priority(q, skips)
    }

    fn cell_of(&self, v: f32) -> i64 {
        (v / self.cell).floor() as i64
    }

    fn bin_of(&self, p: Point3) -> u32 {
        let x = self.cell_of(p[0]).rem_euclid(BINS as i64) as usize;
        let y = self.cell_of(p[1]).rem_euclid(BINS as i64) as usize;
        (y * BINS + x) as u32
    }

    /// Calls `f(id, distance)` for every ghostable object with a position within `radius`
    /// of `center` (in no particular order): [`crate::ghost::GhostWorld::objects_in_radius`]
    /// answered from the frame.
    pub fn objects_in_radius(&self, center: Point3, radius: f32, f: &mut dyn FnMut(ObjectId, f32)) {
        self.for_each_in_radius(center, radius, |i, d| f(self.ids[i], d));
    }

    /// Calls `f(dense index, distance)` for every ghostable object with a position within `radius`
    /// of `center`, bin by bin (a fixed order for a given frame and query).
    pub(crate) fn for_each_in_radius(&self, center: Point3, radius: f32, f: impl FnMut(usize, f32)) {
        self.for_each_in_radius_except(center, radius, |_| false, f);
    }

    /// [`Self::for_each_in_radius_except`] without the objects whose bits are set in `held`
    /// (a bit per dense index), by whichever is shorter: the grid's entries in the bins the
    /// radius spans, or the objects not in `held` (a connection that holds nearly every
    /// object in range, as in a crowd, has few of those). In no particular order.
    pub(crate) fn for_each_in_radius_unheld(
        &self,
        center: Point3,
        radius: f32,
        held: &[u64],
        mut f: impl FnMut(usize, f32),
    ) {
        let is_held = |i: usize| held.get(i / 64).is_some_and(|w| w & (1 << (i % 64)) != 0);
        if self.entries.is_empty() || radius.is_nan() || radius < 0.0 || !center.iter().all(|c| c.is_finite())
        {
            return;
        }
        let words = self.len().div_ceil(64);
        let held_count: usize = held.iter().take(words).map(|w| w.count_ones() as usize).sum();
        let unheld = self.len().saturating_sub(held_count);
        let r = radius.min(1e30);
        if unheld >= self.entries_in_span(center, r) {
            self.for_each_in_radius_except(center, radius, is_held, f);
            return;
        }
        let r2 = r * r;
        for w in 0..words {
            let mut rest = !held.get(w).copied().unwrap_or(0);
            if (w + 1) * 64 > self.len() {
                rest &= (1u64 << (self.len() % 64)) - 1;
            }
            while rest != 0 {
                let i = w * 64 + rest.trailing_zeros() as usize;
                rest &= rest - 1;
                let o = &self.objects[i];
                if o.flags & IN_GRID == 0 {
                    continue;
                }
                let d = sub(o.position, center);
                let d2 = dot(d, d);
                if d2 <= r2 {
                    f(i, d2.sqrt());
                }
            }
        }
    }

    /// The grid's entries in the bins a query at `center` with radius `r` visits.
    fn entries_in_span(&self, center: Point3, r: f32) -> usize {
        let (x0, x1) = self.span(center[0], r);
        let (y0, y1) = self.span(center[1], r);
        let mut n = 0;
        for y in y0..=y1 {
            let by = y.rem_euclid(BINS as i64) as usize;
            for x in x0..=x1 {
                let b = by * BINS + x.rem_euclid(BINS as i64) as usize;
                n += (self.starts[b + 1] - self.starts[b]) as usize;
            }
        }
        n
    }

    /// The cells a query spans along one axis (all of them once it wraps).
    fn span(&self, c: f32, r: f32) -> (i64, i64) {
        let (lo, hi) = (self.cell_of(c - r), self.cell_of(c + r));
        if hi - lo + 1 >= BINS as i64 { (0, BINS as i64 - 1) } else { (lo, hi) }
    }

    /// [`Self::for_each_in_radius`] without the objects `skip` names (asked first, before
    /// the object's position is read: a connection passes the ones it already holds).
    pub(crate) fn for_each_in_radius_except(
        &self,
        center: Point3,
        radius: f32,
        skip: impl Fn(usize) -> bool,
        mut f: impl FnMut(usize, f32),
    ) {
        if self.entries.is_empty() || radius.is_nan() || radius < 0.0 || !center.iter().all(|c| c.is_finite())
        {
            return;
        }
        let r = radius.min(1e30);
        let (x0, x1) = self.span(center[0], r);
        let (y0, y1) = self.span(center[1], r);
        let r2 = r * r;
        for y in y0..=y1 {
            let by = y.rem_euclid(BINS as i64) as usize;
            for x in x0..=x1 {
                let b = by * BINS + x.rem_euclid(BINS as i64) as usize;
                let (s, e) = (self.starts[b] as usize, self.starts[b + 1] as usize);
                for &i in &self.entries[s..e] {
                    if skip(i as usize) {
                        continue;
                    }
                    let o = &self.objects[i as usize];
                    let d = sub(o.position, center);
                    let d2 = dot(d, d);
                    if d2 <= r2 {
                        f(i as usize, d2.sqrt());
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ghost::context::{GhostPackContext, GhostUnpackContext};
    use crate::ghost::error::GhostError;
    use crate::ghost::object::StateMask;
    use v12_bitstream::{BitReader, BitWriter};

    struct Dot {
        pos: Option<Point3>,
        mask: StateMask,
    }
    impl NetObject for Dot {
        fn state_mask(&self) -> &StateMask {
            &self.mask
        }
        fn pack_update(&self, _: &mut GhostPackContext<'_>, _: u32, _: &mut BitWriter) -> u32 {
            0
        }
        fn unpack_update(
            &mut self,
            _: &mut GhostUnpackContext<'_>,
            _: &mut BitReader<'_>,
        ) -> Result<(), GhostError> {
            Ok(())
        }
        fn scope_position(&self) -> Option<Point3> {
            self.pos
        }
    }

    /// The grid finds exactly what a scan finds, for sparse and compact ids, far and
    /// near queries (the wrapped bins included), and objects without a position.
    #[test]
    fn radius_query_matches_a_scan() {
        let mut x = 7u32;
        let mut rnd = move || {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            (x % 40_000) as f32 / 10.0 - 2000.0
        };
        for sparse in [false, true] {
            let objs: Vec<(ObjectId, Dot)> = (0..500u32)
                .map(|i| {
                    let pos = (i % 37 != 0).then(|| [rnd(), rnd(), rnd() * 0.01]);
                    let id = if sparse { i * 100_003 + 5 } else { i + 1 };
                    (ObjectId(id), Dot { pos, mask: StateMask::new() })
                })
                .collect();
            let mut frame = GhostFrame::new();
            for cell in [10.0, 30.0] {
                frame.rebuild(cell, objs.iter().map(|(id, o)| (*id, o as &dyn NetObject)));
                assert_eq!(frame.len(), objs.len());
                for q in 0..50 {
                    let c = [rnd(), rnd(), 0.0];
                    let r = [0.0, 5.0, 60.0, 400.0, 5000.0][q % 5];
                    let mut got = Vec::new();
                    frame.for_each_in_radius(c, r, |i, d| got.push((frame.id(i), d)));
                    got.sort_by_key(|e| e.0);
                    let want: Vec<(ObjectId, f32)> = objs
                        .iter()
                        .filter_map(|(id, o)| {
                            let d = sub(o.pos?, c);
                            let d2 = dot(d, d);
                            (d2 <= r * r).then(|| (*id, d2.sqrt()))
                        })
                        .collect();
                    assert_eq!(got, want, "cell {cell} query {q}");
                    // Without a held set: all of it, none of it, or some, by either walk.
                    for keep in [0u32, 1, 3, 64] {
                        let held: Vec<u64> = (0..frame.len().div_ceil(64))
                            .map(|w| match keep {
                                0 => 0,
                                64 => u64::MAX,
                                k => (0..64)
                                    .filter(|b| !(w as u32 * 64 + b).is_multiple_of(k + 1))
                                    .fold(0, |m, b| m | 1 << b),
                            })
                            .collect();
                        let is_held = |i: usize| held[i / 64] & (1 << (i % 64)) != 0;
                        let mut a = Vec::new();
                        frame.for_each_in_radius_unheld(c, r, &held, |i, d| a.push((frame.id(i), d)));
                        a.sort_by_key(|e| e.0);
                        let mut b = Vec::new();
                        frame.for_each_in_radius_except(c, r, is_held, |i, d| b.push((frame.id(i), d)));
                        b.sort_by_key(|e| e.0);
                        assert_eq!(a, b, "cell {cell} query {q} held {keep}");
                    }
                }
                for (id, _) in &objs {
                    assert_eq!(frame.index_of(*id).map(|i| frame.id(i)), Some(*id));
                }
                assert_eq!(frame.index_of(ObjectId(u32::MAX - 1)), None);
                assert_eq!(frame.index_of(ObjectId(if sparse { 6 } else { 501 })), None);
            }
        }
    }
}
