//! The server's game state that script functions and the loop share: the scene, who controls
//! what, the script-created game objects, and the match's end. Script functions hold it in an
//! `Rc<RefCell<..>>` and borrow it only between script calls.

use glam::Vec3;
use std::collections::{BTreeMap, BTreeSet};
use v12_console_vm::ObjectId;
use v12_sim::scene::SceneWorld;

/// Lists a server tick fills and empties (`server::world_tick`), kept so that a steady
/// tick does not allocate them anew.
#[derive(Default)]
pub(crate) struct TickScratch {
    /// Visible players where they stand.
    pub(crate) players: Vec<(u32, Vec3)>,
    /// Visible items, with who may not touch them yet.
    pub(crate) items: Vec<(u32, Vec3, Option<CollisionTimeout>)>,
    /// The boxes of the players on foot.
    pub(crate) walkers: Vec<(u32, v12_sim::container::Aabb)>,
    /// The boxes of the vehicles.
    pub(crate) vehicles: Vec<(u32, v12_sim::container::Aabb)>,
    /// What one trigger holds now (console ids).
    pub(crate) inside: Vec<u32>,
}

/// Shared between script functions and the loop.
#[derive(Default)]
pub(crate) struct Shared {
    pub(crate) world: Option<SceneWorld>,
    /// Scene object → the client (console object) controlling it (`setControlObject`).
    pub(crate) control: BTreeMap<u32, u32>,
    /// `setControlObject` or a removal changed who controls what: the host hands it to the
    /// connections.
    pub(crate) control_dirty: bool,
    /// Script-created game objects by scene id (`crate::objects`).
    pub(crate) objects: BTreeMap<u32, GameObject>,
    /// Console id → scene id of each game object.
    pub(crate) by_console: BTreeMap<u32, u32>,
    /// Trigger volumes by console id.
    pub(crate) triggers: BTreeMap<ObjectId, TriggerVolume>,
    /// Control objects the script moved (their client needs the full state).
    pub(crate) moved: Vec<u32>,
    /// The match is over and the world settled (`freezeWorld()`).
    pub(crate) frozen: bool,
    /// `ghostCheck()` waits for every client to hold the settled world, until this time.
    pub(crate) ghost_check_by: Option<u64>,
    /// Since when no ghost change has been in flight (while a check waits).
    pub(crate) ghost_settled_since: Option<u64>,
    /// Who owns which object (the owned-object model; `setOwner`), by scene id.
    pub(crate) owned: v12_netobject::owned::OwnedObjects,
    /// Each connected client's console object → its connection.
    pub(crate) client_conns: BTreeMap<u32, v12_netobject::ConnectionId>,
    /// The callback names a tick calls, interned once (set when the classes are registered).
    pub(crate) names: Option<CallbackNames>,
    /// The server's container: every game object in it with its type mask
    /// (`crate::placement`), so `containerRayCast` and the searches see them.
    pub(crate) container: Option<v12_sim::container::ContainerHandle>,
    /// The server's network driver while a server runs (`%client.getGhostID(%obj)` asks its
    /// ghost managers).
    pub(crate) driver: Option<crate::SharedDriver>,
    /// Console ids of the game objects in the container now.
    pub(crate) placed: BTreeSet<ObjectId>,
    /// The lists a server tick fills and empties, kept from tick to tick.
    pub(crate) tick_scratch: TickScratch,
    /// Damage a tick dealt outside a script call (an ELF beam), applied with its callbacks
    /// after the tick: (scene id, amount).
    pub(crate) pending_damage: Vec<(u32, f32)>,
    /// The server's process list: every game object, ticked once a tick in its order (a
    /// rider after its mount: `crate::mount` sets `process_after`).
    pub(crate) process: ServerProcess,
    /// Objects whose first image slots their controlling client's moves stepped this tick
    /// (`crate::weapons::hand_in`): the world's tick leaves those slots alone.
    pub(crate) images_by_moves: BTreeSet<u32>,
    /// The mission's water as the server sees it (`crate::liquid`).
    /// Shared with the players' walk (`Motion::liquid`) during the tick.
    pub(crate) water: std::rc::Rc<crate::liquid::ServerWater>,
    /// Voice chat's relay: each sender's flood cap and who listens to whom (`crate::voice`).
    pub(crate) voice: crate::voice::VoiceRelay,
    /// The server's sound lookups made once ([`ServerSounds`]).
    pub(crate) sounds: ServerSounds,
}

/// The server's sound lookups, made once rather than once per client: each AudioProfile
/// datablock's reach (its description's `maxDistance`; a server's datablocks do not change
/// while it runs, and their ids are never reused), and the last `play3D` call's arguments
/// resolved (a script's `serverPlay3D` calls it once per client with the same profile and
/// transform: the later calls compare two strings, then look nothing up and parse nothing).
#[derive(Debug, Default)]
pub(crate) struct ServerSounds {
    pub(crate) reach: BTreeMap<ObjectId, f32>,
    pub(crate) last_play3d: Option<(String, String, ObjectId, [f32; 3])>,
    /// Each `stateSound` name an image state played, resolved: its AudioProfile and reach.
    pub(crate) named: std::collections::HashMap<String, (ObjectId, f32)>,
    /// Projectile datablocks whose explosion's `soundProfile` was checked (clients play it).
    pub(crate) explosions_checked: BTreeSet<ObjectId>,
}

/// The server's [`ProcessList`](v12_sim::process::ProcessList) (its own type so that
/// [`Shared`] keeps its `Default`).
#[derive(Debug, Clone)]
pub(crate) struct ServerProcess(pub(crate) v12_sim::process::ProcessList);

impl Default for ServerProcess {
    fn default() -> Self {
        Self(v12_sim::process::ProcessList::server())
    }
}

/// The datablock callbacks the engine calls every tick, interned once in the console.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CallbackNames {
    pub(crate) on_trigger: v12_console_vm::Name,
    pub(crate) on_collision: v12_console_vm::Name,
    pub(crate) on_explode: v12_console_vm::Name,
    pub(crate) on_enter_trigger: v12_console_vm::Name,
    pub(crate) on_leave_trigger: v12_console_vm::Name,
    pub(crate) on_tick_trigger: v12_console_vm::Name,
}

impl CallbackNames {
    pub(crate) fn new(con: &mut v12_console_vm::Console) -> Self {
        CallbackNames {
            on_trigger: con.intern("onTrigger"),
            on_collision: con.intern("onCollision"),
            on_explode: con.intern("onExplode"),
            on_enter_trigger: con.intern("onEnterTrigger"),
            on_leave_trigger: con.intern("onLeaveTrigger"),
            on_tick_trigger: con.intern("onTickTrigger"),
        }
    }
}

/// Which engine class an object is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GameClass {
    Player,
    Item,
    StaticShape,
    /// Flies straight from `initialPosition` at `initialVelocity` until it hits or expires.
    Projectile,
    /// A volume, not a scene object (see [`TriggerVolume`]).
    Trigger,
    /// Flies freely under its client's moves, or orbits an object (`setOrbitMode`).
    Camera,
    /// A vehicle (`WheeledVehicle`, `HoverVehicle`, `FlyingVehicle`), driven by its pilot's
    /// moves (`crate::vehicles`).
    Vehicle,
    /// A `Turret`: a static shape whose barrel image aims at targets in range.
    Turret,
    /// A `ForceFieldBare`: a wall that some teams may pass.
    ForceField,
}

/// How scripts asked an object to look, as V12's ShapeBase keeps it: the damage flash and
/// white-out levels, cloak, fade, invincibility, skin and shape name. Kept on the server and
/// read back by scripts; the clients draw none of it yet.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Looks {
    pub damage_flash: f32,
    pub white_out: f32,
    pub cloaked: bool,
    /// `startFade(ms, delay, fadeOut)`: faded out (or fading).
    pub faded: bool,
    /// `setInvincibleMode(time, speed)`.
    pub invincible: (f32, f32),
    pub skin: String,
    pub shape_name: String,
}

/// What a sensor object's `SensorData` lets it see (`crate::sensors`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sensor {
    /// `detectRadius` (metres).
    pub radius: f32,
    /// `detectsUsingLOS`.
    pub line_of_sight: bool,
    /// `detectMinVelocity` (m/s): slower objects hide from it.
    pub min_speed: f32,
    /// `detectsCloaked`.
    pub cloaked: bool,
}

/// An object (scene id) that does not touch an item until a tick.
pub type CollisionTimeout = (u32, u64);

/// What the engine keeps for one script-created object, beside its scene object.
///
/// `repr(C)`: the fields the tick reads of every object lie first, in this order (a tick
/// after the server's sleep finds most of them outside the cache).
#[derive(Debug, Clone, PartialEq)]
#[repr(C)]
pub struct GameObject {
    // Read by the tick's passes over every object (`crate::server`, `crate::placement`):
    // together at the front (`repr(C)` keeps this order) so that a pass touches one or two
    // cache lines of each object, not one per field.
    pub class: GameClass,
    /// `Enabled`, `Disabled` or `Destroyed` (`crate::damage`).
    pub damage_state: DamageState,
    /// Items with `static = false`: they fall onto the ground.
    pub falls: bool,
    /// Projectiles: it hit or expired this tick; its callbacks run and then it is deleted.
    pub exploded: bool,
    /// Vehicles: `setFrozenState(true)` makes it ignore its pilot's moves.
    pub frozen: bool,
    /// Force fields: who may pass (`teamPermiable`, `otherPermiable`).
    pub permeable: (bool, bool),
    /// The console object.
    pub console: ObjectId,
    /// The datablock's console id.
    pub datablock: ObjectId,
    /// What it is mounted on (scene id) and at which node (`crate::mount`).
    pub mount: Option<(u32, u32)>,
    /// The object its controlling client's moves drive instead of it (V12's
    /// `ShapeBase::setControlObject`: a pilot drives its vehicle), by scene id.
    pub drives: Option<u32>,
    /// The box it fills (half extents; its feet at its position, a projectile's centre):
    /// what players walk into and what the container's queries meet.
    pub half_extents: glam::Vec3,
    /// Projectiles: the object that fired it (scene id; it is not hit by its own shot).
    pub source: Option<u32>,
    /// Projectiles: ticks of lifetime left.
    pub ticks_left: u32,
    /// The images in its slots (`crate::images`), each boxed: the eight slots share one
    /// cache line, so the tick's look for an object's images costs one line, not eight.
    pub images: [Option<Box<crate::images::Slot>>; crate::images::MAX_IMAGES],
    /// Items: an object (scene id) that does not touch it until a tick (`setCollisionTimeout`).
    pub collision_timeout: Option<CollisionTimeout>,
    /// Server: its box and type mask in the container as last placed (`crate::placement`),
    /// so an object that did not move is not looked up again; none while out of it.
    pub placed_as: Option<(v12_sim::container::Aabb, u32)>,
    // Read by an object's own tick (damage, energy, impacts, sensors, mounts).
    /// Energy, 0..=`max_energy`, recharged by `recharge_rate` a tick.
    pub energy: f32,
    pub max_energy: f32,
    pub recharge_rate: f32,
    /// `getDamageLevel()`: 0 is unhurt; at `max_damage` the object is disabled.
    pub damage: f32,
    /// The datablock's `maxDamage` (default 100).
    pub max_damage: f32,
    /// Damage still to be repaired (`applyRepair`), spent at `repair_rate` a tick.
    pub repair_reserve: f32,
    pub repair_rate: f32,
    /// The datablock's `disabledLevel` (default `maxDamage`) and `destroyedLevel` (none:
    /// never destroyed).
    pub disabled_level: f32,
    pub destroyed_level: Option<f32>,
    /// Its velocity at the end of the last tick (a sudden stop is an impact).
    pub last_vel: glam::Vec3,
    /// The datablock's `minImpactSpeed` (m/s; default 25): a sharper change is an impact.
    pub min_impact: f32,
    /// The datablock's `mass` (default 9), for `applyImpulse`.
    pub mass: f32,
    /// Projectiles: downward acceleration (m/s²): 0 flies straight; a ballistic one
    /// (`isBallistic`) falls at the world's gravity times its datablock's `gravityMod`.
    pub gravity: f32,
    /// Cameras in orbit mode: the object orbited (scene id) and the distance (m).
    pub orbit: Option<(u32, f32)>,
    /// The object's `team` field (0 or unset: none); turrets spare their team, force fields
    /// let it through when `teamPermiable`.
    pub team: Option<u32>,
    /// Its sensor group (`setSensorGroup`; by default its team, else 0).
    pub sensor_group: u32,
    /// A bit for each sensor group that saw it in the last sweep (its own group's always).
    pub detected: u32,
    /// What its sensor detected in the last sweep.
    pub detects: u32,
    /// What is mounted on it: (scene id, node), in mount order.
    pub mounted: Vec<(u32, u32)>,
    /// Where its seat is on its mount (from the mount's feet, unturned).
    pub mount_offset: glam::Vec3,
    // Read when a class needs them.
    /// Players: how the datablock makes it run and jump.
    pub tuning: crate::PlayerTuning,
    /// Turrets: how the barrel aims (`crate::turrets`), once one is mounted.
    pub aim: Option<crate::images::TurretAim>,
    /// Projectiles: how it flies (`crate::projectiles`).
    pub flight: crate::flight::Flight,
    /// What scripts set for how the object looks (`crate::shape_base`).
    pub looks: Looks,
    /// Its sensor, from its datablock's `sensorData` (`crate::sensors`).
    pub sensor: Option<Sensor>,
}

/// V12's damage states.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DamageState {
    #[default]
    Enabled,
    Disabled,
    Destroyed,
}

impl DamageState {
    /// The name scripts see (`getDamageState()`).
    pub fn name(self) -> &'static str {
        match self {
            DamageState::Enabled => "Enabled",
            DamageState::Disabled => "Disabled",
            DamageState::Destroyed => "Destroyed",
        }
    }
}

impl GameObject {
    /// A new object of `class` with `datablock`, unhurt.
    pub fn new(console: ObjectId, class: GameClass, datablock: ObjectId) -> Self {
        GameObject {
            console,
            class,
            datablock,
            damage: 0.0,
            max_damage: 100.0,
            mass: 9.0,
            source: None,
            ticks_left: 0,
            exploded: false,
            orbit: None,
            falls: false,
            tuning: crate::PlayerTuning::default(),
            gravity: 0.0,
            half_extents: glam::Vec3::splat(0.5),
            damage_state: DamageState::Enabled,
            disabled_level: 100.0,
            destroyed_level: None,
            repair_reserve: 0.0,
            repair_rate: 0.0,
            energy: 0.0,
            max_energy: 0.0,
            recharge_rate: 0.0,
            images: Default::default(),
            mount: None,
            mount_offset: glam::Vec3::ZERO,
            mounted: Vec::new(),
            drives: None,
            frozen: false,
            min_impact: 25.0,
            collision_timeout: None,
            last_vel: glam::Vec3::ZERO,
            placed_as: None,
            aim: None,
            team: None,
            permeable: (false, false),
            flight: crate::flight::Flight::default(),
            looks: Looks::default(),
            sensor: None,
            sensor_group: 0,
            detected: 0,
            detects: 0,
        }
    }

    /// `getState()`: the damage state's name.
    pub fn state(&self) -> &'static str {
        self.damage_state.name()
    }

    /// The health the clients see (0..=100, the HUD's bar).
    pub(crate) fn health(&self) -> u8 {
        if self.max_damage <= 0.0 {
            return 100;
        }
        (100.0 * (1.0 - self.damage / self.max_damage)).clamp(0.0, 100.0).round() as u8
    }
}

/// A `Trigger`: an axis-aligned box (its polyhedron's corners, scaled and placed), the
/// objects inside it now, and the time towards its next `onTickTrigger`.
#[derive(Debug, Clone, PartialEq)]
pub struct TriggerVolume {
    pub datablock: ObjectId,
    pub min: Vec3,
    pub max: Vec3,
    /// Console ids of the game objects inside.
    pub inside: BTreeSet<ObjectId>,
    /// `TriggerData.tickPeriodMS`: how often `onTickTrigger` runs while it is occupied.
    pub tick_period_ms: u32,
    pub since_tick_ms: u32,
}

impl TriggerVolume {
    /// The box of V12's `polyhedron` ("origin, then three edge vectors"; twelve numbers)
    /// scaled by `scale` and moved to `position`. Junk reads as V12's default box.
    pub fn new(
        datablock: ObjectId,
        position: Vec3,
        scale: &str,
        polyhedron: &str,
        tick_period_ms: f64,
    ) -> Self {
        let nums: Vec<f32> = polyhedron.split_whitespace().filter_map(|w| w.parse().ok()).collect();
        let nums: Vec<f32> = if nums.len() == 12 && nums.iter().all(|v| v.is_finite()) {
            nums
        } else {
            vec![0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, -1.0, 0.0, 0.0, 0.0, 1.0]
        };
        let v = |i: usize| Vec3::new(nums[i], nums[i + 1], nums[i + 2]);
        let scale = {
            let s: Vec<f32> = scale.split_whitespace().filter_map(|w| w.parse().ok()).collect();
            match s.as_slice() {
                [x, y, z] if [x, y, z].iter().all(|v| v.is_finite()) => Vec3::new(*x, *y, *z),
                _ => Vec3::ONE,
            }
        };
        let (origin, a, b, c) = (v(0), v(3), v(6), v(9));
        let (mut min, mut max) = (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN));
        for i in 0..8 {
            let mut p = origin;
            if i & 1 != 0 {
                p += a;
            }
            if i & 2 != 0 {
                p += b;
            }
            if i & 4 != 0 {
                p += c;
            }
            let p = position + p * scale;
            min = min.min(p);
            max = max.max(p);
        }
        TriggerVolume {
            datablock,
            min,
            max,
            inside: BTreeSet::new(),
            tick_period_ms: tick_period_ms.clamp(32.0, 3_600_000.0) as u32,
            since_tick_ms: 0,
        }
    }

    /// Is `p` inside the box?
    pub fn contains(&self, p: Vec3) -> bool {
        p.cmpge(self.min).all() && p.cmple(self.max).all()
    }
}

/// A client's console object for a ghost (in the session's ghost group), attached as its host
/// data: what its methods read, refreshed by the client session every frame.
#[derive(Debug, Clone, PartialEq)]
pub struct GhostState {
    /// The ghost's index on the connection (`getGhostID()`).
    pub ghost_id: u32,
    pub pos: Vec3,
    pub vel: Vec3,
    pub yaw: f32,
    /// The client's copy of its datablock (console id; 0 while unknown).
    pub datablock: ObjectId,
    pub health: u8,
    pub hidden: bool,
}

/// Host data of a client's `ServerConnection`: its ghosts' console objects by ghost index
/// (`resolveGhostID`) and the one it controls (`getControlObject`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ClientGhostIndex {
    pub by_ghost: BTreeMap<u32, ObjectId>,
    pub control: Option<ObjectId>,
}
