//! A projectile's flight as data: its kind (from its class), its arming, bounce, homing and
//! beam settings and where it stands (`crate::projectiles` flies it).

use glam::Vec3;
use v12_console_vm::ObjectId;

/// How a projectile flies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum FlightKind {
    /// Straight, or falling when `isBallistic` (the base `Projectile` and the linear family).
    #[default]
    Linear,
    /// Falls and bounces; explodes on a shape once armed (`bomb`: on any contact).
    Grenade { bomb: bool, flare: bool },
    /// Homes on a target.
    Seeker,
    /// One ray at launch.
    Sniper,
    /// A beam from the firer's muzzle each tick.
    Beam(BeamKind),
    /// One strike along its bolt.
    ShockLance,
}

/// The contact beams.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BeamKind {
    Elf,
    Repair,
    Target,
}

/// Where a seeker is going.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub enum SeekTarget {
    #[default]
    None,
    /// A game object (scene id).
    Object(u32),
    Position(Vec3),
}

/// A projectile's flight, from its class and datablock.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Flight {
    pub kind: FlightKind,
    /// Ticks flown.
    pub age: u32,
    /// Grenades: ticks until armed.
    pub arming_ticks: u32,
    pub elasticity: f32,
    pub friction: f32,
    /// Seekers.
    pub target: SeekTarget,
    /// Radians a tick.
    pub turn_rate: f32,
    /// m/s gained a tick, and the top speed.
    pub accel: f32,
    pub max_speed: f32,
    pub proximity: f32,
    /// Beams and rays: reach (m).
    pub range: f32,
    /// Beams: what it holds now (console id), and the point it reaches.
    pub holding: Option<ObjectId>,
    pub beam_end: Vec3,
    /// ELF: energy and damage a tick; repair: damage repaired a tick.
    pub drain_energy: f32,
    pub drain_health: f32,
    pub repair: f32,
    /// The firer's image slot (beams follow that muzzle).
    pub source_slot: usize,
    /// Straight shots: the speed in the air (`dryVelocity`) and in water (`wetVelocity`;
    /// negative: the shot ends at the surface) (`crate::liquid`).
    pub dry_velocity: f32,
    pub wet_velocity: f32,
}

/// The flight kind of a projectile class.
pub fn kind_of_class(class: &str) -> FlightKind {
    match class {
        "GrenadeProjectile" => FlightKind::Grenade { bomb: false, flare: false },
        "FlareProjectile" => FlightKind::Grenade { bomb: false, flare: true },
        "BombProjectile" => FlightKind::Grenade { bomb: true, flare: false },
        "SeekerProjectile" => FlightKind::Seeker,
        "SniperProjectile" => FlightKind::Sniper,
        "ELFProjectile" => FlightKind::Beam(BeamKind::Elf),
        "RepairProjectile" => FlightKind::Beam(BeamKind::Repair),
        "TargetProjectile" => FlightKind::Beam(BeamKind::Target),
        "ShockLanceProjectile" => FlightKind::ShockLance,
        _ => FlightKind::Linear,
    }
}
