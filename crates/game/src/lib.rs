//! V12's engine layer (V12's `engine/game`): the main loop over platform events in
//! V12's ControlFlow order ([`host`]), the server session ([`server`]) and the one client
//! session ([`client::session`]) that headless bots, the window client and the screenshot all
//! run, the game object classes scripts create ([`objects`]: `new Player()`, `new Item()`, ...),
//! the world's mission objects on the network ([`mission`]), and the console bindings of
//! the layers below: mods and volumes ([`mod_files`]), encryption and connect tokens
//! ([`net_security`]), the master server and the browser ([`browser`]).
//!
//! Drawing (the game view, the HUD, the headless screenshot) is the `render` feature and the
//! window client the `window` feature, so a dedicated server builds without GL or winit.
//! A game's rules and scripts live in its mod folder (the example game: `examples/game`).

pub mod audio;
pub mod browser;
pub mod classes;
pub mod client;
pub mod damage;
mod debug_pause;
pub mod effects;
#[cfg(test)]
mod effects_tests;
mod fields;
pub mod file_object;
pub mod flight;
mod handles;
pub mod host;
pub mod images;
mod impacts;
pub mod input_devices;
pub mod journal;
pub mod liquid;
pub mod material_map;
pub mod mission;
pub mod mod_files;
pub mod mount;
pub mod net_security;
pub mod objects;
mod owners;
pub mod placement;
pub mod projectiles;
pub mod sensors;
pub mod server;
mod shape_base;
mod shape_changes;
pub mod state;
pub mod stdin_console;
#[cfg(test)]
mod toolbox_tests;
pub mod turrets;
pub mod vehicles;
pub mod voice;
pub mod weapons;

use std::rc::Rc;
use std::sync::Arc;
use v12_console_vm::Console;
use v12_netobject::ghost::{GhostClassRegistry, GhostClassRegistryBuilder};
use v12_netobject::{NetClassRegistry, NetClassRegistryBuilder, RateConfig};
use v12_sim::container::StaticGeometry;
use v12_sim::datablock::{DataBlockEvent, DataBlocksAckEvent, DataBlocksDoneEvent};
use v12_sim::game_connection as gc;
use v12_sim::remote_command::RemoteCommandEvent;
use v12_sim::scene::{Motion, SceneObject};

pub use host::{HostConfig, link_preset, no_report, run};

/// Flag bit: the object is hidden (dead player, taken item).
pub const HIDDEN: u8 = 1;

/// A session's datagram port: UDP behind the link conditioner (a clean link passes straight
/// through), the short-circuit link of a listen server's own client, or both (the listen
/// server's [`server::listen::ListenPort`]).
pub type Port = Box<dyn v12_platform::Transport>;

/// A network driver the host shares with the script debugger's idle hook, which keeps its
/// connections alive while a script is stopped (`NetDriver::keep_alive`).
pub(crate) type SharedDriver = std::rc::Rc<std::cell::RefCell<v12_services::driver::NetDriver<Port>>>;

/// How a Player's datablock makes it move, from the PlayerData fields with V12's names:
/// `maxForwardSpeed` (m/s), `runForce` (how fast the running speed builds: `runForce / mass`
/// m/s² on the ground), `jumpForce` (the jump's impulse: its speed is `jumpForce / mass`),
/// and its energy: `maxEnergy`, `rechargeRate`, `jumpEnergyDrain`, `jetForce`,
/// `jetEnergyDrain`, `minJetEnergy`, `maxJetHorizontalPercentage` (jets on trigger 3). The server and the controlling client read the same datablock, so prediction
/// agrees.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlayerTuning {
    /// Running speed at full input (m/s).
    pub max_speed: f32,
    /// Upward speed of a jump (m/s).
    pub jump_speed: f32,
    /// How fast the running speed builds on the ground (m/s²: `runForce / mass`); 0: at once.
    pub run_accel: f32,
    /// Walks into other players (`playerCollisions`, default true, as V12's players). The
    /// controlling client predicts the collision with the other players where it last saw
    /// them, which over a laggy link disagrees with the server whenever players crowd: a game
    /// whose players mostly crowd may prefer to let them pass.
    pub collide: bool,
    /// Flies (a flying vehicle): the move's z climbs and sinks, no gravity.
    pub flies: bool,
    /// The box it moves as (half extents; its feet at its position).
    pub half_extents: glam::Vec3,
    /// Energy, the jump's cost and the jets (`maxEnergy` > 0 gives a player energy).
    pub energy: Option<v12_sim::scene::EnergyUse>,
    /// A vehicle's model (`crate::vehicles::dynamics`); `None` walks.
    pub vehicle: Option<v12_sim::vehicle_motion::VehicleDynamics>,
    /// The body's density against water's 1 (`density`, V12's; default 1): what the water
    /// lifts (`v12_sim::liquid`).
    pub density: f32,
    /// The running speed in water (`maxUnderwaterForwardSpeed`; default half the running
    /// speed).
    pub swim_speed: f32,
}

impl Default for PlayerTuning {
    fn default() -> Self {
        PlayerTuning {
            max_speed: 8.0,
            jump_speed: 8.0,
            run_accel: 0.0,
            collide: true,
            flies: false,
            half_extents: Motion::default().half_extents,
            energy: None,
            vehicle: None,
            density: 1.0,
            swim_speed: 4.0,
        }
    }
}

impl PlayerTuning {
    /// The tuning of datablock `db` (unset or junk fields keep the defaults; speeds are
    /// clamped to what the network can carry).
    pub fn of_datablock(con: &Console, db: v12_console_vm::ObjectId) -> Self {
        if classes::is_a(con, db, "VehicleData") {
            return vehicles::tuning(con, db);
        }
        let num = |field: &str| {
            let v = con.get_field(db, field);
            let f = v.to_f64();
            (!v.as_text().trim().is_empty() && f.is_finite() && f > 0.0).then_some(f as f32)
        };
        let d = PlayerTuning::default();
        let max_speed = num("maxForwardSpeed").map_or(d.max_speed, |s| s.clamp(0.1, 50.0));
        PlayerTuning {
            max_speed,
            density: num("density").map_or(d.density, |x| x.clamp(0.01, 100.0)),
            swim_speed: num("maxUnderwaterForwardSpeed").map_or(max_speed * 0.5, |s| s.clamp(0.1, 50.0)),
            jump_speed: match (num("jumpForce"), num("mass")) {
                (Some(j), Some(m)) => (j / m).clamp(0.0, 30.0),
                _ => d.jump_speed,
            },
            run_accel: match (num("runForce"), num("mass")) {
                (Some(f), Some(m)) => (f / m).clamp(0.0, 1000.0),
                _ => d.run_accel,
            },
            collide: {
                let v = con.get_field(db, "playerCollisions");
                if v.as_text().trim().is_empty() { d.collide } else { v.truthy() }
            },
            energy: player_energy(con, db),
            ..d
        }
    }
}

/// A PlayerData's energy use, when it has energy (`maxEnergy` > 0). Fields out of range
/// were reported when the datablock loaded and read as their defaults here
/// (`classes::num_field`); `rechargeRate` is per tick, as V12's.
fn player_energy(con: &Console, db: v12_console_vm::ObjectId) -> Option<v12_sim::scene::EnergyUse> {
    let num = |field: &str| classes::num_field(con, db, field).map_or(0.0, |x| x as f32);
    let max_energy = num("maxEnergy").min(1.0e6);
    if max_energy <= 0.0 {
        return None;
    }
    let mass = num("mass");
    Some(v12_sim::scene::EnergyUse {
        max_energy,
        recharge: num("rechargeRate").clamp(-max_energy, max_energy),
        jump_drain: num("jumpEnergyDrain").max(0.0),
        jet_accel: if mass > 0.0 { (num("jetForce") / mass).clamp(0.0, 200.0) } else { 0.0 },
        jet_drain: num("jetEnergyDrain").max(0.0),
        min_jet_energy: num("minJetEnergy").max(0.0),
        max_jet_horizontal: num("maxJetHorizontalPercentage").clamp(0.0, 1.0),
    })
}

/// A shape's collision box as half extents, from its datablock's `boundingBox` ("x y z", the
/// full size in metres, the field PlayerData has in V12; V12 took a static shape's box from its
/// shape file, which this engine does not load on the server). Unset: `Ok(None)` (the class's
/// default box, [`default_half_extents`]). Junk (not three positive numbers): `Err` with the
/// text, for the caller to report.
pub fn shape_half_extents(con: &Console, db: v12_console_vm::ObjectId) -> Result<Option<glam::Vec3>, String> {
    let v = con.get_field(db, "boundingBox");
    let text = v.as_text();
    if text.trim().is_empty() {
        return Ok(None);
    }
    let size: Vec<f32> = text
        .split_whitespace()
        .filter_map(|w| w.parse::<f32>().ok().filter(|f| f.is_finite() && *f > 0.0))
        .collect();
    match size[..] {
        [x, y, z] => {
            Ok(Some(glam::Vec3::new(x, y, z).clamp(glam::Vec3::splat(0.05), glam::Vec3::splat(500.0)) / 2.0))
        }
        _ => Err(text.into_owned()),
    }
}

/// The box (half extents) of a class's objects when their datablock sets none: a player's
/// 0.8 × 0.8 × 1.8 m, an item's 0.7 m cube, a shot's 0.2 m, a 1 m cube for shapes, a
/// vehicle's 3 × 6 × 2.4 m (its datablock class refines it, `vehicles::default_box`).
pub fn default_half_extents(class: state::GameClass) -> glam::Vec3 {
    use state::GameClass as C;
    match class {
        C::Player => Motion::default().half_extents,
        C::Item => glam::Vec3::splat(0.35),
        C::Projectile => glam::Vec3::splat(0.1),
        C::Camera => glam::Vec3::splat(0.25),
        C::Vehicle => glam::Vec3::new(1.5, 3.0, 1.2),
        C::ForceField => glam::Vec3::new(2.0, 0.25, 2.0),
        C::StaticShape | C::Turret | C::Trigger => glam::Vec3::splat(0.5),
    }
}

/// The world's downward acceleration (m/s²): players, falling items and ballistic shots.
pub const WORLD_GRAVITY: f32 = 20.0;

/// The game's movement rules, shared by the server, the bots' prediction and the window client:
/// on the mission's ground with gravity once there is one (`None` before a client has the
/// world: the flat arena), at the speeds of the player's datablock.
pub fn motion(ground: Option<Rc<dyn StaticGeometry>>, tuning: PlayerTuning) -> Motion {
    let gravity = if ground.is_some() && !tuning.flies { WORLD_GRAVITY } else { 0.0 };
    Motion {
        max_speed: tuning.max_speed,
        damping: 0.8,
        arena_half: if tuning.flies { 2048.0 } else { 50.0 },
        gravity,
        ground,
        jump_speed: tuning.jump_speed,
        run_accel: tuning.run_accel,
        half_extents: tuning.half_extents,
        fly: tuning.flies,
        energy: tuning.energy,
        vehicle: tuning.vehicle.map(|v| Rc::new(v) as Rc<dyn v12_sim::scene::ControlModel>),
        // The images' models are the object's, not its datablock's: the server and the
        // client add them (`crate::weapons::predicted_models`, the client's image cache).
        images: Default::default(),
        // The water is the mission's: the server and the client add it (`with_water`).
        liquid: None,
        density: tuning.density,
        swim_speed: tuning.swim_speed,
    }
}

/// `m` in `water` (none while there is none: a mission without water asks nothing of it).
pub fn with_water(m: Motion, water: &Rc<liquid::ServerWater>) -> Motion {
    if water.is_empty() {
        return m;
    }
    Motion { liquid: Some(water.clone() as Rc<dyn v12_sim::liquid::Liquids>), ..m }
}

/// How a `Camera` moves when a client controls it: free flight at 20 m/s, through
/// everything, anywhere on the map.
pub fn camera_motion() -> Motion {
    Motion { max_speed: 20.0, damping: 0.8, arena_half: 2048.0, fly: true, ..Motion::default() }
}

/// The game's event and ghost classes, in the order every endpoint must register them.
pub fn registries() -> (Arc<NetClassRegistry>, Arc<GhostClassRegistry>) {
    let mut b = NetClassRegistryBuilder::new();
    gc::register_events(&mut b);
    // The owned-object model's events: control messages from an object's owner (and the
    // client-made objects every game class refuses).
    v12_netobject::owned::register_events(&mut b);
    b.register::<DataBlockEvent>()
        .register::<DataBlocksDoneEvent>()
        .register::<DataBlocksAckEvent>()
        .register::<RemoteCommandEvent>()
        .register::<audio::AudioEvent>()
        .register::<voice::VoiceUp>()
        .register::<voice::VoiceDown>();
    let reg = Arc::new(b.build().expect("game event registry"));
    let ghosts = Arc::new(
        GhostClassRegistryBuilder::new()
            .register::<SceneObject>()
            .register::<v12_world::mission::WorldObjectGhost>()
            .build()
            .expect("ghost classes"),
    );
    (reg, ghosts)
}

pub(crate) fn pref_u32(con: &Console, name: &str, default: u32, min: u32, max: u32) -> u32 {
    let v = con.get_global(name);
    if v.is_empty() { default } else { (v.to_f64().max(0.0) as u32).clamp(min, max) }
}

/// `$Pref::Net::PacketRateToClient` (packets/s), `$Pref::Net::PacketRateToServer`,
/// `$Pref::Net::PacketSize` (bytes).
pub fn rate_from_prefs(con: &Console, to_client: bool) -> RateConfig {
    let to_c = pref_u32(con, "Pref::Net::PacketRateToClient", 10, 1, 128);
    let to_s = pref_u32(con, "Pref::Net::PacketRateToServer", 32, 1, 128);
    let size = pref_u32(con, "Pref::Net::PacketSize", 508, 100, 1400);
    let (send, recv) = if to_client { (to_c, to_s) } else { (to_s, to_c) };
    RateConfig { send_period_ms: 1000 / send, send_size: size, recv_period_ms: 1000 / recv, recv_size: size }
}

/// Key material for a `NetInterface`: the challenge-token MAC key and the nonce seed. On a real
/// server they must be unpredictable, so they come from the operating system's random source
/// (`getrandom`). `seed` and `who` are mixed in only if the OS has none (then the process's
/// random hasher keys stand in, with a warning).
pub fn entropy(seed: u64, who: u64) -> [u8; 32] {
    let mut out = [0u8; 32];
    if getrandom::fill(&mut out).is_ok() {
        return out;
    }
    tracing::warn!("no OS random source: deriving the handshake keys from hasher seeds");
    use std::hash::{BuildHasher, Hasher};
    for (i, chunk) in out.chunks_mut(8).enumerate() {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u64(seed ^ who.rotate_left(17) ^ i as u64);
        chunk.copy_from_slice(&h.finish().to_le_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn handshake_keys_come_from_the_os_and_differ_every_time() {
        let (a, b) = (super::entropy(1, 1), super::entropy(1, 1));
        assert_ne!(a, b, "same seed, different keys: they are not derived from the seed");
        assert_ne!(a, [0u8; 32]);
    }
}
