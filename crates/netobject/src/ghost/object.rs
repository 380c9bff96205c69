//! The NetObject trait: what an object must do to be ghosted (V12 reference page NetGhost).

use crate::ghost::context::{GhostPackContext, GhostUnpackContext};
use crate::ghost::error::GhostError;
use crate::ghost::ids::ObjectId;
use std::any::Any;
use v12_bitstream::{BitReader, BitWriter};

/// A point or direction in world space (x, y, z). Plain arrays keep this crate free of a
/// maths library; `glam::Vec3` converts both ways with `.into()` for the bitstream helpers.
pub type Point3 = [f32; 3];

/// Every state-mask bit set: what a new ghost needs (V12: "initially all 1's").
pub const ALL_MASK_BITS: u32 = u32::MAX;

/// V12's `mNetFlags` as far as ghosting cares.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct NetFlags(u8);

impl NetFlags {
    /// No flags: the object is never ghosted.
    pub const NONE: Self = Self(0);
    /// The object may be ghosted at all.
    pub const GHOSTABLE: Self = Self(1);
    /// Scoped on every connection whatever the camera sees.
    pub const SCOPE_ALWAYS: Self = Self(2);
    /// Ghosted only to the local (listen-server) connection.
    pub const SCOPE_LOCAL: Self = Self(4);

    /// True when every flag of `other` is set.
    pub const fn contains(self, other: Self) -> bool {
        self.0 & other.0 == other.0
    }
    /// Both sets of flags.
    #[must_use]
    pub const fn union(self, other: Self) -> Self {
        Self(self.0 | other.0)
    }
}

impl std::ops::BitOr for NetFlags {
    type Output = Self;
    fn bitor(self, rhs: Self) -> Self {
        self.union(rhs)
    }
}

/// An object's dirty state bits, stamped with a change counter.
///
/// V12's `setMaskBits` walks every connection's ghost of the object; with thousands
/// of clients that is O(objects × clients) per tick. Instead each object stamps the bits
/// it changed, and each ghost manager asks "what changed since the stamp I last saw"
/// only for the ghosts it holds: O(ghosts in scope) per packet.
#[derive(Clone, Debug, Default)]
pub struct StateMask {
    version: u64,
    /// Every bit ever set: [`Self::changed_since`] looks at these alone (an object uses a
    /// handful of its 32 groups).
    used: u32,
    bit_version: [u64; 32],
}

impl StateMask {
    /// A mask with nothing changed yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Marks state groups as changed: every connection ghosting the object will send them.
    pub fn set_mask_bits(&mut self, bits: u32) {
        if bits == 0 {
            return;
        }
        self.version += 1;
        self.used |= bits;
        let mut b = bits;
        while b != 0 {
            let i = b.trailing_zeros() as usize;
            self.bit_version[i] = self.version;
            b &= b - 1;
        }
    }

    /// The stamps a ghost frame keeps of this mask.
    pub fn stamps(&self) -> MaskStamps {
        let kept = (self.used.count_ones() as usize).min(MaskStamps::GROUPS + 1) as u8;
        let mut m = MaskStamps { version: self.version, used: self.used, kept, ..MaskStamps::default() };
        let mut b = self.used;
        let mut k = 0;
        while b != 0 && k < MaskStamps::GROUPS {
            let i = b.trailing_zeros();
            m.bits[k] = i as u8;
            m.stamps[k] = self.bit_version[i as usize];
            b &= b - 1;
            k += 1;
        }
        m
    }

    /// The change counter: bumped by every non-empty [`Self::set_mask_bits`].
    pub fn version(&self) -> u64 {
        self.version
    }

    /// The bits changed after counter value `version`.
    pub fn changed_since(&self, version: u64) -> u32 {
        if self.version <= version {
            return 0;
        }
        let mut mask = 0;
        let mut b = self.used;
        while b != 0 {
            let i = b.trailing_zeros();
            if self.bit_version[i as usize] > version {
                mask |= 1 << i;
            }
            b &= b - 1;
        }
        mask
    }
}

/// What the scoping object sees: filled by [`NetObject::on_camera_scope_query`] and used
/// to scope objects and to weigh their updates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CameraScopeQuery {
    /// The scoping object (usually the client's control object).
    pub scope_object: Option<ObjectId>,
    /// Camera position.
    pub position: Point3,
    /// Unit view direction (a zero vector means "looks everywhere").
    pub view_dir: Point3,
    /// Full field-of-view angle in radians.
    pub fov: f32,
    /// Objects farther than this are out of scope (plus hysteresis for ghosts already sent).
    pub visible_distance: f32,
}

impl Default for CameraScopeQuery {
    fn default() -> Self {
        Self {
            scope_object: None,
            position: [0.0; 3],
            view_dir: [0.0, 1.0, 0.0],
            fov: std::f32::consts::FRAC_PI_2,
            visible_distance: 500.0,
        }
    }
}

pub(crate) fn sub(a: Point3, b: Point3) -> Point3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
pub(crate) fn dot(a: Point3, b: Point3) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
pub(crate) fn length(a: Point3) -> f32 {
    dot(a, a).sqrt()
}

/// Torque3D's update weights (`GameBase::getUpdatePriority`), and the near ring.
pub mod weights {
    /// Inside the field of view.
    pub const FOV: f32 = 1.0;
    /// Nearness: 1 at the camera, 0 at the visible distance.
    pub const DISTANCE: f32 = 0.4;
    /// Speed across the view, saturating at [`SPEED_FULL`] m/s.
    pub const SPEED: f32 = 0.4;
    /// Per skipped update: after a few packets a starved object outranks any fresh one.
    pub const SKIPS: f32 = 0.2;
    /// Speed at which the speed term is full.
    pub const SPEED_FULL: f32 = 20.0;
    /// Added to an object inside its near ring ([`super::PriorityTerms::near_ring`]): above
    /// anything outside the ring, however long that waited.
    pub const NEAR: f32 = 100.0;
    /// Nearness inside the near ring: 4 at the camera, 0 at the ring's edge. Twenty skips'
    /// worth, so in a crowd the players closest to the camera go in every packet and the
    /// skip term shares the rest of the packet out among the ring's outer part.
    pub const NEAR_DISTANCE: f32 = 4.0;
}

/// A [`CameraScopeQuery`] made ready for many priorities (the view direction's length
/// and the field of view's cosine taken once): what a connection computes once per packet.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PreparedQuery {
    position: Point3,
    /// Unit view direction, or zero ("looks everywhere").
    view: Point3,
    cos_half_fov: f32,
    visible_distance: f32,
}

impl PreparedQuery {
    /// Prepares `query`.
    pub fn new(query: &CameraScopeQuery) -> Self {
        let len = length(query.view_dir);
        let view = if len >= 1e-6 && len.is_finite() { query.view_dir.map(|c| c / len) } else { [0.0; 3] };
        Self {
            position: query.position,
            view,
            cos_half_fov: (query.fov * 0.5).cos(),
            visible_distance: query.visible_distance,
        }
    }
}

/// The camera-independent inputs of an object's update priority: taken once per tick and
/// shared by every connection that sees the object (see [`crate::ghost::GhostFrame`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PriorityTerms {
    /// Where the object is (`None`: a constant 1.0 plus skips, as in V12).
    pub position: Option<Point3>,
    /// How fast it moves.
    pub velocity: Option<Point3>,
    /// The near ring, as a fraction of the visible distance (0: none). Inside it the object
    /// gets [`weights::NEAR`] plus [`weights::NEAR_DISTANCE`] for nearness within the ring,
    /// speed and skips, looking all around (a player right behind the camera counts as
    /// much as one in front); outside it, the default priority capped below the ring's.
    pub near_ring: f32,
}

impl PriorityTerms {
    /// True when the object has a near ring and is outside it for camera `q`: its priority
    /// is then below [`weights::NEAR`] - 1, under that of anything inside a ring.
    pub fn outside_near_ring(&self, q: &PreparedQuery) -> bool {
        let Some(p) = self.position else { return false };
        Self::outside_ring_at(p, self.near_ring, q)
    }

    /// [`Self::outside_near_ring`] of terms at `position` with this `near_ring`.
    #[inline(always)]
    pub(crate) fn outside_ring_at(position: Point3, near_ring: f32, q: &PreparedQuery) -> bool {
        let d = sub(position, q.position);
        Self::outside_ring_at_d2(dot(d, d), near_ring, q)
    }

    /// [`Self::outside_ring_at`] given the squared distance `d2` from the camera.
    #[inline(always)]
    pub(crate) fn outside_ring_at_d2(d2: f32, near_ring: f32, q: &PreparedQuery) -> bool {
        let ring = q.visible_distance * near_ring;
        near_ring > 0.0 && !(ring >= 0.0 && d2 <= ring * ring)
    }

    /// Inside the near ring, at squared distance `d2` from the camera (no square root: the
    /// test [`Self::outside_near_ring`] makes for every far candidate of every packet).
    fn in_ring(&self, d2: f32, q: &PreparedQuery) -> bool {
        let ring = q.visible_distance * self.near_ring;
        self.near_ring > 0.0 && ring >= 0.0 && d2 <= ring * ring
    }

    /// The update priority of an object with these terms for the camera `q`, after `skips`
    /// skipped packets: field of view 1.0, distance 0.4, speed 0.4, skips 0.2 each, and
    /// the near ring when [`Self::near_ring`] is set.
    pub fn priority(&self, q: &PreparedQuery, skips: u32) -> f32 {
        let skip_term = weights::SKIPS * skips as f32;
        let Some(p) = self.position else {
            return 1.0 + skip_term;
        };
        let d = sub(p, q.position);
        let d2 = dot(d, d);
        let dist = d2.sqrt();
        let has_view = q.view != [0.0; 3];
        let speed = match self.velocity {
            Some(v) if has_view => {
                let along = dot(v, q.view);
                let across = (dot(v, v) - along * along).max(0.0).sqrt();
                (across / weights::SPEED_FULL).clamp(0.0, 1.0)
            }
            Some(v) => (length(v) / weights::SPEED_FULL).clamp(0.0, 1.0),
            None => 0.0,
        };
        let ring = q.visible_distance * self.near_ring;
        if self.in_ring(d2, q) {
            let near = if ring > 0.0 { 1.0 - dist / ring } else { 1.0 };
            let p = weights::NEAR + weights::NEAR_DISTANCE * near + weights::SPEED * speed + skip_term;
            return if p.is_finite() { p } else { weights::NEAR + skip_term };
        }
        let in_view = dist < 1e-3 || !has_view || dot(d, q.view) / dist >= q.cos_half_fov;
        let fov = if in_view { 1.0 } else { 0.0 };
        let near =
            if q.visible_distance > 0.0 { (1.0 - dist / q.visible_distance).clamp(0.0, 1.0) } else { 0.0 };
        let p = weights::FOV * fov + weights::DISTANCE * near + weights::SPEED * speed + skip_term;
        let p = if p.is_finite() { p } else { skip_term };
        if self.near_ring > 0.0 { p.min(weights::NEAR - 1.0) } else { p }
    }
}

/// The default update priority: field of view 1.0, distance 0.4, speed 0.4, skips 0.2
/// each. Without a position the object gets a constant 1.0 (plus skips), as in V12.
pub fn default_update_priority(
    position: Option<Point3>,
    velocity: Option<Point3>,
    query: &CameraScopeQuery,
    skips: u32,
) -> f32 {
    PriorityTerms { position, velocity, near_ring: 0.0 }.priority(&PreparedQuery::new(query), skips)
}

/// The state bits an object changed, as a ghost frame keeps them: the stamps of the first
/// few groups the object ever used, enough to answer [`StateMask::changed_since`] without
/// reaching the object.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MaskStamps {
    version: u64,
    used: u32,
    /// Groups kept in `bits` and `stamps`, or `GROUPS + 1` when the object used more.
    kept: u8,
    bits: [u8; MaskStamps::GROUPS],
    stamps: [u64; MaskStamps::GROUPS],
}

impl MaskStamps {
    const GROUPS: usize = 4;

    /// The change counter ([`StateMask::version`]).
    pub fn version(&self) -> u64 {
        self.version
    }

    /// The bits changed after `version`, or `None` when the object uses more groups than
    /// are kept here (ask its [`StateMask`]).
    pub fn changed_since(&self, version: u64) -> Option<u32> {
        if self.version <= version {
            return Some(0);
        }
        let n = usize::from(self.kept);
        if n > Self::GROUPS {
            return None;
        }
        let mut mask = 0;
        for k in 0..n {
            if self.stamps[k] > version {
                mask |= 1 << self.bits[k];
            }
        }
        Some(mask)
    }
}

/// An object that can replicate itself to clients (V12's NetObject).
///
/// The same type serves on both ends: the server packs it, the client's ghost unpacks.
/// `pack_update` and `unpack_update` must read exactly what the other writes; a
/// mismatch is a malformed packet and drops the connection.
pub trait NetObject: Any {
    /// Ghosting flags. Without [`NetFlags::GHOSTABLE`] the object is never sent.
    fn net_flags(&self) -> NetFlags {
        NetFlags::GHOSTABLE
    }

    /// The object's change stamps; mutate it with [`StateMask::set_mask_bits`].
    fn state_mask(&self) -> &StateMask;

    /// Writes the state groups in `mask` and returns the bits still to send (usually 0).
    /// The mask itself is not on the wire: write a flag per group, as V12 does.
    /// A create calls this with [`ALL_MASK_BITS`] and [`GhostPackContext::is_initial`].
    fn pack_update(&self, ctx: &mut GhostPackContext<'_>, mask: u32, w: &mut BitWriter) -> u32;

    /// Reads what [`Self::pack_update`] wrote, on the client's ghost.
    fn unpack_update(
        &mut self,
        ctx: &mut GhostUnpackContext<'_>,
        r: &mut BitReader<'_>,
    ) -> Result<(), GhostError>;

    /// Where the object is, for scoping by distance and the default priority.
    fn scope_position(&self) -> Option<Point3> {
        None
    }

    /// How fast it moves, for the default priority.
    fn scope_velocity(&self) -> Option<Point3> {
        None
    }

    /// On the scoping object: fills the camera query. The default puts the camera at
    /// [`Self::scope_position`] and keeps the query's other defaults.
    fn on_camera_scope_query(&self, query: &mut CameraScopeQuery) {
        if let Some(p) = self.scope_position() {
            query.position = p;
        }
    }

    /// How urgent an update is; higher goes first. `skips` counts packets this ghost
    /// wanted to be in and was not.
    fn get_update_priority(&self, query: &CameraScopeQuery, mask: u32, skips: u32) -> f32 {
        let _ = mask;
        default_update_priority(self.scope_position(), self.scope_velocity(), query, skips)
    }

    /// The camera-independent inputs of [`Self::get_update_priority`], for a server that
    /// takes them once per tick in a [`crate::ghost::GhostFrame`] and computes every
    /// connection's priorities from them without reaching the object. Return `Some` only
    /// when `get_update_priority(q, mask, skips)` equals
    /// `terms.priority(&PreparedQuery::new(q), skips)` for every query, mask and skip count;
    /// the default `None` has the manager ask [`Self::get_update_priority`] each packet.
    fn priority_terms(&self) -> Option<PriorityTerms> {
        None
    }

    /// Objects that must exist on the client before this one is created there (the owned-object
    /// model's
    /// `clear_to_transmit`: the horse before its rider). They are scoped along with it.
    fn dependencies(&self, out: &mut Vec<ObjectId>) {
        let _ = out;
    }

    /// On the client, after the ghost's first update and before it joins the world.
    /// Returning false refuses the ghost and drops the connection.
    fn on_ghost_add(&mut self) -> bool {
        true
    }

    /// On the client, just before the ghost leaves the world (kill or ghosting reset).
    fn on_ghost_remove(&mut self) {}
}

impl dyn NetObject {
    /// The concrete object, if it is a `T`.
    pub fn downcast_ref<T: NetObject>(&self) -> Option<&T> {
        (self as &dyn Any).downcast_ref()
    }
    /// The concrete object, mutably, if it is a `T`.
    pub fn downcast_mut<T: NetObject>(&mut self) -> Option<&mut T> {
        (self as &mut dyn Any).downcast_mut()
    }
}

/// The static side of a ghost class: its name (ids are assigned by sorting names),
/// version, and how the client makes an empty ghost (`IMPLEMENT_CO_NETOBJECT_V1`).
pub trait NetObjectClass: NetObject + Sized {
    /// Class name.
    const NAME: &'static str;
    /// Class version; part of the registry digest.
    const VERSION: u32 = 1;
    /// An empty ghost; the create's full update fills it in.
    fn create_ghost() -> Self;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_mask_reports_bits_changed_since_a_stamp() {
        let mut m = StateMask::new();
        assert_eq!(m.changed_since(0), 0);
        m.set_mask_bits(0b101);
        let v1 = m.version();
        m.set_mask_bits(1 << 31);
        assert_eq!(m.changed_since(0), 0b101 | 1 << 31);
        assert_eq!(m.changed_since(v1), 1 << 31);
        assert_eq!(m.changed_since(m.version()), 0);
        m.set_mask_bits(0);
        assert_eq!(m.changed_since(m.version()), 0);
    }

    /// A frame's stamps answer as the mask does while the object uses at most four groups,
    /// and send the question back to the mask beyond.
    #[test]
    fn mask_stamps_agree_with_the_mask() {
        let mut m = StateMask::new();
        let mut versions = vec![0];
        for bits in [0b1, 0b100, 0b101, 1 << 30, 0b100, 1 << 30] {
            m.set_mask_bits(bits);
            versions.push(m.version());
        }
        let st = m.stamps();
        for &v in &versions {
            assert_eq!(st.changed_since(v), Some(m.changed_since(v)), "since {v}");
        }
        m.set_mask_bits(0b1000_0000);
        m.set_mask_bits(0b10);
        assert_eq!(m.stamps().changed_since(0), None, "six groups: ask the mask");
        assert_eq!(m.stamps().changed_since(m.version()), Some(0));
    }

    /// Inside the near ring the nearest object goes first whatever its direction, and an
    /// object at the ring's edge needs many skips to pass it; nothing outside the ring
    /// passes anything inside.
    #[test]
    fn near_ring_prefers_the_nearest_all_around() {
        let q =
            PreparedQuery::new(&CameraScopeQuery { visible_distance: 60.0, ..CameraScopeQuery::default() });
        let at = |p: Point3| PriorityTerms { position: Some(p), velocity: None, near_ring: 0.25 };
        let behind_close = at([0.0, -2.0, 0.0]).priority(&q, 0);
        let ahead_edge = at([0.0, 14.0, 0.0]).priority(&q, 0);
        assert!(behind_close > ahead_edge);
        assert!(behind_close > at([0.0, 14.0, 0.0]).priority(&q, 10));
        assert!(at([0.0, 14.0, 0.0]).priority(&q, 20) > behind_close);
        assert!(at([0.0, 16.0, 0.0]).priority(&q, 10_000) < ahead_edge);
        let plain = PriorityTerms { near_ring: 0.0, ..at([3.0, 20.0, 0.0]) };
        let cq = CameraScopeQuery { visible_distance: 60.0, ..CameraScopeQuery::default() };
        assert_eq!(plain.priority(&q, 3), default_update_priority(plain.position, None, &cq, 3));
    }

    #[test]
    fn default_priority_prefers_visible_near_fast_and_starved() {
        let q = CameraScopeQuery { visible_distance: 100.0, ..CameraScopeQuery::default() };
        let ahead_near = default_update_priority(Some([0.0, 10.0, 0.0]), None, &q, 0);
        let ahead_far = default_update_priority(Some([0.0, 90.0, 0.0]), None, &q, 0);
        let behind = default_update_priority(Some([0.0, -10.0, 0.0]), None, &q, 0);
        let fast = default_update_priority(Some([0.0, 90.0, 0.0]), Some([20.0, 0.0, 0.0]), &q, 0);
        assert!(ahead_near > ahead_far && ahead_far > behind);
        assert!(fast > ahead_far);
        assert!(default_update_priority(Some([0.0, -90.0, 0.0]), None, &q, 10) > ahead_near);
        assert_eq!(default_update_priority(None, None, &q, 5), 2.0);
    }
}
