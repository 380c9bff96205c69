//! The NetObject trait: what an object must do to be ghosted (seed page NetGhost).

use crate::ghost::context::{GhostPackContext, GhostUnpackContext};
use crate::ghost::error::GhostError;
use crate::ghost::ids::ObjectId;
use std::any::Any;
use v12_bitstream::{BitReader, BitWriter};

/// A point or direction in world space (x, y, z). Plain arrays keep this crate free of a
/// maths library; `glam::Vec3` converts both ways with `.into()` for the bitstream helpers.
pub type Point3 = [f32; 3];

/// Every state-mask bit set: what a new ghost needs (the seed: "initially all 1's").
pub const ALL_MASK_BITS: u32 = u32::MAX;

/// The seed's `mNetFlags` as far as ghosting cares.
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
/// The seed's `setMaskBits` walks every connection's ghost of the object; with thousands
/// of clients that is O(objects × clients) per tick. Instead each object stamps the bits
/// it changed, and each ghost manager asks "what changed since the stamp I last saw"
/// only for the ghosts it holds: O(ghosts in scope) per packet.
#[derive(Clone, Debug, Default)]
pub struct StateMask {
    version: u64,
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
        let mut b = bits;
        while b != 0 {
            let i = b.trailing_zeros() as usize;
            self.bit_version[i] = self.version;
            b &= b - 1;
        }
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
        for (i, &v) in self.bit_version.iter().enumerate() {
            if v > version {
                mask |= 1 << i;
            }
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

/// Torque3D's update weights (`GameBase::getUpdatePriority`).
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
}

/// The default update priority: field of view 1.0, distance 0.4, speed 0.4, skips 0.2
/// each. Without a position the object gets a constant 1.0 (plus skips), as in the seed.
pub fn default_update_priority(
    position: Option<Point3>,
    velocity: Option<Point3>,
    query: &CameraScopeQuery,
    skips: u32,
) -> f32 {
    let skip_term = weights::SKIPS * skips as f32;
    let Some(p) = position else {
        return 1.0 + skip_term;
    };
    let d = sub(p, query.position);
    let dist = length(d);
    let view_len = length(query.view_dir);
    let fov = if dist < 1e-3 || view_len < 1e-6 {
        1.0
    } else {
        let cos = dot(d, query.view_dir) / (dist * view_len);
        if cos >= (query.fov * 0.5).cos() { 1.0 } else { 0.0 }
    };
    let near = if query.visible_distance > 0.0 {
        (1.0 - dist / query.visible_distance).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let speed = match velocity {
        Some(v) if view_len >= 1e-6 => {
            let along = dot(v, query.view_dir) / view_len;
            let across = (dot(v, v) - along * along).max(0.0).sqrt();
            (across / weights::SPEED_FULL).clamp(0.0, 1.0)
        }
        Some(v) => (length(v) / weights::SPEED_FULL).clamp(0.0, 1.0),
        None => 0.0,
    };
    let p = weights::FOV * fov + weights::DISTANCE * near + weights::SPEED * speed + skip_term;
    if p.is_finite() { p } else { skip_term }
}

/// An object that can replicate itself to clients (the seed's NetObject).
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
    /// The mask itself is not on the wire: write a flag per group, as the seed does.
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

    /// Objects that must exist on the client before this one is created there (seed 003's
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
