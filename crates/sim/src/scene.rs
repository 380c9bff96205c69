//! Scene objects on the network (the seed's GameBase / SceneObject joined with NetObject):
//! a position, velocity, rotation (yaw) and a datablock id, ghosted to clients in scope.
//!
//! The server owns its objects in a [`SceneWorld`] (the ghost manager reaches them through
//! [`GhostWorld`]); a client owns its ghosts in a [`ClientScene`]. Default scoping is by
//! distance from the control object: the scene object is the camera, and
//! [`GhostWorld::objects_in_radius`] answers from the world.
//!
//! The movement of a controlled object is [`ControlState::apply_move`]: one function run by
//! the server on the real object and by the client on its prediction, so both sides compute
//! bit-identical results from the same quantised moves.

use crate::moves::{Move, control_checksum};
use glam::Vec3;
use std::collections::{BTreeMap, BTreeSet};
use v12_bitstream::{BitReader, BitStreamError, BitWriter};
use v12_netobject::ghost::{
    GhostClientWorld, GhostError, GhostPackContext, GhostUnpackContext, GhostWorld, NetObject,
    NetObjectClass, ObjectId, Point3, StateMask,
};

/// Mask bit: the datablock (sent with the create and when it changes).
pub const DATABLOCK_MASK: u32 = 1 << 0;
/// Mask bit: position, velocity and rotation.
pub const MOVE_MASK: u32 = 1 << 1;
/// Mask bit: health and flags.
pub const STATE_MASK: u32 = 1 << 2;

/// Seconds in one tick.
pub const TICK_SECONDS: f32 = crate::process::TICK_MS as f32 / 1000.0;

/// Largest speed a ghost update can express (m/s); faster is clamped.
pub const MAX_NET_SPEED: f32 = 64.0;

const VEL_BITS: u32 = 12;
const YAW_BITS: u32 = 10;
const HEALTH_BITS: u32 = 8;
const FLAG_BITS: u32 = 4;

/// How a controlled object moves (the datablock's physical properties).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Motion {
    /// Walking speed at full input (m/s).
    pub max_speed: f32,
    /// Fraction of external velocity kept per tick (impulses die away).
    pub damping: f32,
    /// Half the side of the square arena; positions are clamped to it.
    pub arena_half: f32,
}

impl Default for Motion {
    fn default() -> Self {
        Self { max_speed: 10.0, damping: 0.85, arena_half: 100.0 }
    }
}

/// What prediction needs of a controlled object: the seed's `writePacketData` state.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ControlState {
    /// Position.
    pub pos: Vec3,
    /// External velocity (impulses), decaying by [`Motion::damping`].
    pub vel: Vec3,
    /// Heading in radians, kept in [-π, π).
    pub yaw: f32,
}

fn wrap_angle(a: f32) -> f32 {
    let t = std::f32::consts::TAU;
    let w = a - t * ((a + std::f32::consts::PI) / t).floor();
    if w.is_finite() { w } else { 0.0 }
}

impl ControlState {
    /// One 32 ms tick under move `mv`: turn by the move's yaw, walk along the heading by
    /// its x (strafe) and y (forward), then add the external velocity. Pure: same inputs,
    /// same bits on both sides.
    pub fn apply_move(&mut self, mv: &Move, motion: &Motion) {
        self.yaw = wrap_angle(self.yaw + mv.yaw());
        let (s, c) = self.yaw.sin_cos();
        let forward = Vec3::new(-s, c, 0.0);
        let right = Vec3::new(c, s, 0.0);
        let walk = (forward * mv.y() + right * mv.x()) * motion.max_speed;
        let mut pos = self.pos + (walk + self.vel) * TICK_SECONDS;
        let h = motion.arena_half;
        pos.x = pos.x.clamp(-h, h);
        pos.y = pos.y.clamp(-h, h);
        self.pos = pos;
        self.vel *= motion.damping;
        if self.vel.length_squared() < 1e-4 {
            self.vel = Vec3::ZERO;
        }
    }

    /// The 16-bit checksum sent with each move (over the exact bits of the state).
    pub fn checksum(&self) -> u16 {
        let mut b = [0u8; 28];
        let vals = [self.pos.x, self.pos.y, self.pos.z, self.vel.x, self.vel.y, self.vel.z, self.yaw];
        for (i, v) in vals.iter().enumerate() {
            b[i * 4..i * 4 + 4].copy_from_slice(&v.to_bits().to_le_bytes());
        }
        control_checksum(&b)
    }

    /// Writes the full state at full precision (the correction must be exact for the
    /// client's replay to land on the server's result).
    pub fn write(&self, w: &mut BitWriter) {
        for v in [self.pos.x, self.pos.y, self.pos.z, self.vel.x, self.vel.y, self.vel.z, self.yaw] {
            w.write_f32(v);
        }
    }

    /// Reads what [`Self::write`] wrote; non-finite values are refused.
    pub fn read(r: &mut BitReader<'_>) -> Result<Self, BitStreamError> {
        let mut v = [0f32; 7];
        for x in &mut v {
            let f = r.read_f32()?;
            *x = if f.is_finite() { f } else { 0.0 };
        }
        Ok(Self { pos: Vec3::new(v[0], v[1], v[2]), vel: Vec3::new(v[3], v[4], v[5]), yaw: wrap_angle(v[6]) })
    }
}

/// A scene object: both the server's object and the client's ghost of it.
#[derive(Debug, Clone, Default)]
pub struct SceneObject {
    /// Position, velocity and heading (authoritative on the server).
    pub state: ControlState,
    /// Server-side id of the datablock (what the client maps to its own copy).
    pub datablock: u32,
    /// 0..=255, game-defined (players: health).
    pub health: u8,
    /// Four game-defined bits (e.g. hidden while respawning).
    pub flags: u8,
    mask: StateMask,
    /// Client: the smoothed position shown (interpolated between updates).
    pub render_pos: Vec3,
    /// Client: where the last update plus dead reckoning says the object is.
    target_pos: Vec3,
    /// Client: updates received.
    pub updates: u32,
    /// Client: ms since the last update (staleness).
    pub since_update_ms: u32,
}

impl SceneObject {
    /// A new server object.
    pub fn new(datablock: u32, pos: Vec3) -> Self {
        let mut o =
            Self { datablock, state: ControlState { pos, ..ControlState::default() }, ..Self::default() };
        o.render_pos = pos;
        o.target_pos = pos;
        o
    }

    /// Marks state groups dirty so they are sent again.
    pub fn set_mask_bits(&mut self, bits: u32) {
        self.mask.set_mask_bits(bits);
    }

    /// Server: moves the object and marks it dirty.
    pub fn set_state(&mut self, state: ControlState) {
        if state != self.state {
            self.state = state;
            self.mask.set_mask_bits(MOVE_MASK);
        }
    }

    /// Server: sets health and flags, marking them dirty when they change.
    pub fn set_health_flags(&mut self, health: u8, flags: u8) {
        if (health, flags) != (self.health, self.flags) {
            self.health = health;
            self.flags = flags & 0xF;
            self.mask.set_mask_bits(STATE_MASK);
        }
    }

    /// Client: advances the ghost's interpolation by `dt_ms` — dead reckoning of the last
    /// update's velocity, and the shown position easing towards it (about 100 ms), so a
    /// ghost glides between the server's 10 updates a second instead of stepping.
    pub fn interpolate(&mut self, dt_ms: u32) {
        let dt = dt_ms as f32 / 1000.0;
        self.target_pos += self.state.vel * dt;
        let k = (dt / 0.1).min(1.0);
        self.render_pos += (self.target_pos - self.render_pos) * k;
        self.since_update_ms = self.since_update_ms.saturating_add(dt_ms);
    }
}

impl NetObject for SceneObject {
    fn state_mask(&self) -> &StateMask {
        &self.mask
    }

    fn pack_update(&self, ctx: &mut GhostPackContext<'_>, mask: u32, w: &mut BitWriter) -> u32 {
        if w.write_flag(mask & DATABLOCK_MASK != 0 || ctx.is_initial()) {
            w.write_int(self.datablock, 32);
        }
        if w.write_flag(mask & MOVE_MASK != 0) {
            w.write_compressed_point(self.state.pos, ctx.compression_point());
            if w.write_flag(self.state.vel != Vec3::ZERO) {
                w.write_signed_float(self.state.vel.x / MAX_NET_SPEED, VEL_BITS);
                w.write_signed_float(self.state.vel.y / MAX_NET_SPEED, VEL_BITS);
            }
            w.write_float((self.state.yaw / std::f32::consts::TAU) + 0.5, YAW_BITS);
        }
        if w.write_flag(mask & STATE_MASK != 0) {
            w.write_int(u32::from(self.health), HEALTH_BITS);
            w.write_int(u32::from(self.flags & 0xF), FLAG_BITS);
        }
        0
    }

    fn unpack_update(
        &mut self,
        ctx: &mut GhostUnpackContext<'_>,
        r: &mut BitReader<'_>,
    ) -> Result<(), GhostError> {
        if r.read_flag()? {
            self.datablock = r.read_int(32)?;
        }
        if r.read_flag()? {
            let pos = r.read_compressed_point(ctx.compression_point())?;
            let vel = if r.read_flag()? {
                let x = r.read_signed_float(VEL_BITS)? * MAX_NET_SPEED;
                let y = r.read_signed_float(VEL_BITS)? * MAX_NET_SPEED;
                Vec3::new(x, y, 0.0)
            } else {
                Vec3::ZERO
            };
            let yaw = (r.read_float(YAW_BITS)? - 0.5) * std::f32::consts::TAU;
            self.state = ControlState { pos, vel, yaw: wrap_angle(yaw) };
            if self.updates == 0 || ctx.is_initial() {
                self.render_pos = pos;
            }
            self.target_pos = pos;
            self.updates = self.updates.saturating_add(1);
            self.since_update_ms = 0;
        }
        if r.read_flag()? {
            self.health = r.read_int(HEALTH_BITS)? as u8;
            self.flags = r.read_int(FLAG_BITS)? as u8;
        }
        Ok(())
    }

    fn scope_position(&self) -> Option<Point3> {
        Some(self.state.pos.into())
    }

    fn scope_velocity(&self) -> Option<Point3> {
        Some(self.state.vel.into())
    }
}

impl NetObjectClass for SceneObject {
    const NAME: &'static str = "SceneObject";
    fn create_ghost() -> Self {
        Self::default()
    }
}

/// The server's scene: objects by id (ordered, so iteration is deterministic) and the
/// distance scoping the ghost managers ask for.
#[derive(Debug, Default)]
pub struct SceneWorld {
    objects: BTreeMap<u32, SceneObject>,
    next_id: u32,
    /// How far a client sees (scope radius), metres.
    pub visible_distance: f32,
}

impl SceneWorld {
    /// An empty scene that scopes within `visible_distance` metres of each camera.
    pub fn new(visible_distance: f32) -> Self {
        Self { objects: BTreeMap::new(), next_id: 1, visible_distance }
    }
    /// Adds an object and returns its id.
    pub fn add(&mut self, obj: SceneObject) -> u32 {
        let id = self.next_id;
        self.next_id = self.next_id.wrapping_add(1).max(1);
        self.objects.insert(id, obj);
        id
    }
    /// Removes an object (its ghosts are killed on the next packets).
    pub fn remove(&mut self, id: u32) -> Option<SceneObject> {
        self.objects.remove(&id)
    }
    /// The object with id `id`.
    pub fn get(&self, id: u32) -> Option<&SceneObject> {
        self.objects.get(&id)
    }
    /// The object with id `id`, mutably.
    pub fn get_mut(&mut self, id: u32) -> Option<&mut SceneObject> {
        self.objects.get_mut(&id)
    }
    /// Every object in id order.
    pub fn iter(&self) -> impl Iterator<Item = (u32, &SceneObject)> {
        self.objects.iter().map(|(k, v)| (*k, v))
    }
    /// Every object in id order, mutably.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (u32, &mut SceneObject)> {
        self.objects.iter_mut().map(|(k, v)| (*k, v))
    }
    /// Number of objects.
    pub fn len(&self) -> usize {
        self.objects.len()
    }
    /// True with no objects.
    pub fn is_empty(&self) -> bool {
        self.objects.is_empty()
    }
}

impl GhostWorld for SceneWorld {
    fn object(&self, id: ObjectId) -> Option<&dyn NetObject> {
        self.objects.get(&id.0).map(|o| o as &dyn NetObject)
    }

    fn objects_in_radius(&self, center: Point3, radius: f32, f: &mut dyn FnMut(ObjectId, f32)) {
        let c = Vec3::from(center);
        let r2 = radius * radius;
        for (id, o) in &self.objects {
            let d2 = o.state.pos.distance_squared(c);
            if d2 <= r2 {
                f(ObjectId(*id), d2.sqrt());
            }
        }
    }
}

/// A client's ghosts. Ghosts whose datablock the client does not know yet are counted in
/// [`ClientScene::datablock_misses`] (the server must send datablocks first).
#[derive(Debug, Default)]
pub struct ClientScene {
    ghosts: BTreeMap<u32, SceneObject>,
    next: u32,
    /// Datablock ids (server ids) the client has received.
    pub known_datablocks: BTreeSet<u32>,
    /// Ghosts that arrived referring to a datablock not yet received.
    pub datablock_misses: u64,
    /// Ghosts created so far.
    pub ghosts_added: u64,
}

impl ClientScene {
    /// An empty scene.
    pub fn new() -> Self {
        Self::default()
    }
    /// The ghost with local id `id`.
    pub fn get(&self, id: ObjectId) -> Option<&SceneObject> {
        self.ghosts.get(&id.0)
    }
    /// The ghost with local id `id`, mutably.
    pub fn get_mut(&mut self, id: ObjectId) -> Option<&mut SceneObject> {
        self.ghosts.get_mut(&id.0)
    }
    /// Every ghost in id order.
    pub fn iter(&self) -> impl Iterator<Item = (ObjectId, &SceneObject)> {
        self.ghosts.iter().map(|(k, v)| (ObjectId(*k), v))
    }
    /// Number of ghosts.
    pub fn len(&self) -> usize {
        self.ghosts.len()
    }
    /// True with no ghosts.
    pub fn is_empty(&self) -> bool {
        self.ghosts.is_empty()
    }
    /// Advances every ghost's interpolation except `skip` (the predicted control object).
    pub fn interpolate(&mut self, dt_ms: u32, skip: Option<ObjectId>) {
        for (id, g) in &mut self.ghosts {
            if Some(ObjectId(*id)) != skip {
                g.interpolate(dt_ms);
            }
        }
    }
    /// The longest time any ghost went without an update (ms).
    pub fn worst_staleness_ms(&self, skip: Option<ObjectId>) -> u32 {
        self.ghosts
            .iter()
            .filter(|(id, _)| Some(ObjectId(**id)) != skip)
            .map(|(_, g)| g.since_update_ms)
            .max()
            .unwrap_or(0)
    }
}

impl GhostClientWorld for ClientScene {
    fn add_ghost(&mut self, ghost: Box<dyn NetObject>) -> ObjectId {
        let id = self.next;
        self.next = self.next.wrapping_add(1);
        let obj = match (ghost as Box<dyn std::any::Any>).downcast::<SceneObject>() {
            Ok(o) => *o,
            Err(_) => {
                tracing::warn!("ghost of an unknown class kept empty");
                SceneObject::default()
            }
        };
        if !self.known_datablocks.contains(&obj.datablock) {
            self.datablock_misses += 1;
        }
        self.ghosts_added += 1;
        self.ghosts.insert(id, obj);
        ObjectId(id)
    }
    fn ghost_mut(&mut self, id: ObjectId) -> Option<&mut dyn NetObject> {
        self.ghosts.get_mut(&id.0).map(|g| g as &mut dyn NetObject)
    }
    fn remove_ghost(&mut self, id: ObjectId) {
        self.ghosts.remove(&id.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_moves_same_bits_and_checksum() {
        let m = Motion::default();
        let mut a = ControlState::default();
        let mut b = ControlState::default();
        for i in 0..100 {
            let mv = Move::from_input(0.5, 1.0, 0.0, 0.01 * i as f32, 0.0, 0.0, [false; 6]);
            a.apply_move(&mv, &m);
            b.apply_move(&mv, &m);
        }
        assert_eq!(a.checksum(), b.checksum());
        assert!(a.pos.length() > 1.0);
        let mut w = BitWriter::new();
        a.write(&mut w);
        let bytes = w.into_bytes();
        let back = ControlState::read(&mut BitReader::new(&bytes)).unwrap();
        assert_eq!(back, a);
    }

    #[test]
    fn impulse_decays_and_changes_checksum() {
        let m = Motion::default();
        let mut a = ControlState::default();
        let c0 = a.checksum();
        a.vel = Vec3::new(20.0, 0.0, 0.0);
        assert_ne!(a.checksum(), c0);
        for _ in 0..200 {
            a.apply_move(&crate::moves::NULL_MOVE, &m);
        }
        assert_eq!(a.vel, Vec3::ZERO);
    }
}
