//! Effects of things that move (issue 35), drawn on the client only: vehicles' jets and
//! players' jets and footsteps, from the datablocks the server sent, deterministic from the
//! particle system's seed and capped.
//!
//! - **Vehicle jets**: `client::jets` (the forward, backward, down, float and trail
//!   emitters and the JetEffectData flame, from the vehicle's moves and speed).
//! - **Player jets**: a player in the air whose fall is slower than half of gravity (its
//!   jets push it) carries its PlayerData's `jetEmitter` under its feet. The jets are not
//!   ghosted, so the client reads them from the motion.
//! - **Footsteps**: a player on the ground puffs its PlayerData's `footPuffEmitter`,
//!   `footPuffNumParts` particles (default 6, at most 32) within `footPuffRadius` (default
//!   0.25 m) of its feet, once every [`STRIDE`] metres walked.
//!
//! At most [`MAX_MOVERS`] objects carry effects at once (those with the lowest ids).

use crate::client::jets::{self, Thrust, VehicleJets};
use crate::client::particle_data::{emitter_desc, find_of};
use glam::Vec3;
use std::collections::HashMap;
use std::sync::Arc;
use v12_console_vm::{Console, ObjectId};
use v12_render3d::{EmitterDesc, EmitterId, ParticleSystem};

/// Most objects with jets or footsteps at once.
pub const MAX_MOVERS: usize = 128;
/// Metres a player walks between footstep puffs.
pub const STRIDE: f32 = 1.6;
/// Most particles in one footstep puff.
pub const MAX_PUFF: u32 = 32;
/// Gravity (m/s²) a player's fall is measured against.
const GRAVITY: f32 = crate::WORLD_GRAVITY;

/// What moves: a player or a vehicle ghost this frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Mover {
    pub id: u32,
    pub vehicle: bool,
    /// Its feet (bottom centre), velocity and heading (radians, 0 facing +y).
    pub pos: Vec3,
    pub vel: Vec3,
    pub yaw: f32,
    /// How high its feet are over the ground under it (m).
    pub above_ground: f32,
    /// The client's copy of its datablock.
    pub datablock: ObjectId,
    /// Its box's half extents (a vehicle's jets sit on it).
    pub half_extents: Vec3,
    /// A vehicle's pilot's move, where this client has it (the vehicle it drives).
    pub thrust: Option<Thrust>,
}

#[derive(Debug)]
struct Track {
    last_vel: Vec3,
    /// Metres walked since the last puff.
    walked: f32,
    jet: Option<EmitterId>,
    /// A vehicle's jets.
    vehicle: jets::Track,
}

/// The jets and footsteps of the objects in view.
#[derive(Debug, Default)]
pub struct MoverEffects {
    tracks: HashMap<u32, Track>,
    emitters: HashMap<(ObjectId, &'static str), Option<Arc<EmitterDesc>>>,
    /// Vehicles' jets.
    pub vehicles: VehicleJets,
    /// Footstep puffs made over its life.
    pub puffs: u64,
}

impl MoverEffects {
    /// One frame `dt_ms` after the last: jets start, follow and stop, and footsteps puff,
    /// into `system` (before it advances).
    pub fn update(&mut self, con: &Console, system: &mut ParticleSystem, movers: &[Mover], dt_ms: u64) {
        let dt = (dt_ms.min(1000) as f32 / 1000.0).max(1e-3);
        let mut order: Vec<&Mover> =
            movers.iter().filter(|m| m.pos.is_finite() && m.vel.is_finite()).collect();
        order.sort_by_key(|m| m.id);
        order.truncate(MAX_MOVERS);
        let mut seen = HashMap::with_capacity(order.len());
        for m in order {
            let mut t = self.tracks.remove(&m.id).unwrap_or(Track {
                last_vel: m.vel,
                walked: 0.0,
                jet: None,
                vehicle: jets::Track::default(),
            });
            if m.vehicle {
                let frame = jets::Frame {
                    datablock: m.datablock,
                    pos: m.pos,
                    vel: m.vel,
                    yaw: m.yaw,
                    half_extents: m.half_extents,
                    thrust: m.thrust,
                };
                self.vehicles.update(con, system, &mut t.vehicle, &frame, (dt * 1000.0) as u32);
            } else {
                let falling_slowly = (m.vel.z - t.last_vel.z) / dt > -0.5 * GRAVITY;
                let on = m.above_ground > 0.5 && falling_slowly;
                let want = on.then(|| self.emitter(con, m.datablock, &["jetEmitter"])).flatten();
                match (t.jet, want) {
                    (Some(j), Some(_)) => system.move_emitter(j, m.pos, m.vel),
                    (Some(j), None) => {
                        system.remove_emitter(j);
                        t.jet = None;
                    }
                    (None, Some(e)) => t.jet = system.add_emitter(e, m.pos, -Vec3::Z, None),
                    (None, None) => {}
                }
            }
            if !m.vehicle && m.above_ground < 0.2 {
                t.walked += Vec3::new(m.vel.x, m.vel.y, 0.0).length() * dt;
                if t.walked >= STRIDE {
                    t.walked = 0.0;
                    self.puff(con, system, m);
                }
            } else {
                t.walked = 0.0;
            }
            t.last_vel = m.vel;
            seen.insert(m.id, t);
        }
        for (_, gone) in std::mem::replace(&mut self.tracks, seen) {
            if let Some(j) = gone.jet {
                system.remove_emitter(j);
            }
            self.vehicles.end(system, gone.vehicle);
        }
    }

    /// Objects carrying jets now (a player's jet, or any of a vehicle's).
    pub fn jets(&self) -> usize {
        self.tracks
            .values()
            .filter(|t| t.jet.is_some() || !VehicleJets::firing(&t.vehicle).is_empty())
            .count()
    }

    /// The jets of object `id` firing now (a vehicle's).
    pub fn vehicle_jets(&self, id: u32) -> Vec<jets::Jet> {
        self.tracks.get(&id).map_or_else(Vec::new, |t| VehicleJets::firing(&t.vehicle))
    }

    fn puff(&mut self, con: &Console, system: &mut ParticleSystem, m: &Mover) {
        let Some(e) = self.emitter(con, m.datablock, &["footPuffEmitter"]) else { return };
        let n = num(con, m.datablock, "footPuffNumParts", 6.0).clamp(0.0, MAX_PUFF as f32) as u32;
        let r = num(con, m.datablock, "footPuffRadius", 0.25).clamp(0.0, 5.0);
        // Left foot, right foot, by the puffs made so far (no random numbers here).
        let side = if self.puffs.is_multiple_of(2) { 1.0 } else { -1.0 };
        let right = Vec3::new(m.yaw.cos(), m.yaw.sin(), 0.0);
        system.burst(&e, m.pos + right * (r * side), Vec3::Z, n);
        self.puffs += 1;
    }

    /// The first of `fields` of datablock `db` that names a ParticleEmitterData, read once.
    fn emitter(&mut self, con: &Console, db: ObjectId, fields: &[&'static str]) -> Option<Arc<EmitterDesc>> {
        let key = (db, fields[0]);
        if let Some(e) = self.emitters.get(&key) {
            return e.clone();
        }
        let e = fields.iter().find_map(|f| {
            let id = find_of(con, &con.get_field(db, f).as_text(), "ParticleEmitterData")?;
            emitter_desc(con, id)
        });
        if e.is_none() {
            tracing::debug!(datablock = db, field = fields[0], "no emitter");
        }
        self.emitters.insert(key, e.clone());
        e
    }
}

fn num(con: &Console, db: ObjectId, field: &str, default: f32) -> f32 {
    crate::classes::num_field(con, db, field).map_or(default, |v| v as f32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use v12_render_gl::Camera;

    fn console() -> Console {
        crate::client::particle_data::datablock_console(
            r#"
            datablock ParticleData(Dust) { lifetimeMS = 600; sizes[0] = 0.3; };
            datablock ParticleEmitterData(DustEmitter) { ejectionPeriodMS = 20; particles = "Dust"; };
            datablock ParticleEmitterData(JetFlame) { ejectionPeriodMS = 10; particles = "Dust"; };
            datablock PlayerData(Walker) { footPuffEmitter = DustEmitter; footPuffNumParts = 5; footPuffRadius = 0.3;
               jetEmitter = JetFlame; };
            datablock PlayerData(Plain) { };
            datablock HoverVehicleData(Skim) { forwardJetEmitter = JetFlame; minTrailSpeed = 2; };
            "#,
        )
    }

    fn mover(con: &Console, id: u32, db: &str, vehicle: bool, pos: Vec3, vel: Vec3, above: f32) -> Mover {
        let datablock = con.find_object_str(db).unwrap();
        Mover {
            id,
            vehicle,
            pos,
            vel,
            yaw: 0.0,
            above_ground: above,
            datablock,
            half_extents: Vec3::new(1.5, 2.5, 0.8),
            thrust: None,
        }
    }

    /// The effects and their particle system, frame by frame as the client runs them.
    struct Rig {
        fx: MoverEffects,
        system: ParticleSystem,
        last: u64,
    }

    impl Rig {
        fn new(seed: u64) -> Rig {
            Rig { fx: MoverEffects::default(), system: ParticleSystem::new(seed), last: 0 }
        }

        /// One frame at `t` ms: the jets carried and the particles alive after it.
        fn frame(&mut self, con: &Console, movers: &[Mover], t: u64) -> (usize, usize) {
            let dt = t.saturating_sub(self.last);
            self.last = t;
            self.fx.update(con, &mut self.system, movers, dt);
            self.system.advance(dt as u32);
            (self.fx.jets(), self.system.len())
        }
    }

    /// A second of a player walking at 4 m/s puffs every 1.6 m (twice, five particles each);
    /// one without a footPuffEmitter puffs nothing.
    #[test]
    fn walking_players_puff_at_every_stride() {
        let con = console();
        let mut rig = Rig::new(3);
        for k in 0..=25u64 {
            let p = Vec3::new(0.0, 0.16 * k as f32, 0.0);
            let walker = mover(&con, 1, "Walker", false, p, Vec3::Y * 4.0, 0.0);
            let plain = mover(&con, 2, "Plain", false, p + Vec3::X * 5.0, Vec3::Y * 4.0, 0.0);
            assert_eq!(rig.frame(&con, &[walker, plain], k * 40).0, 0);
        }
        assert_eq!(rig.fx.puffs, 2);
        assert!(rig.system.len() <= 10);
    }

    /// A skimmer thrusting forwards carries its jet; coasting, or gone from view, it does
    /// not. A player in the air falling slower than gravity (jetting) carries its jet;
    /// falling freely, or on the ground, it does not.
    #[test]
    fn jets_follow_vehicles_and_jetting_players() {
        let con = console();
        let mut rig = Rig::new(4);
        let thrust = Some(Thrust { forward: 1.0, boost: false });
        let fast = Mover { thrust, ..mover(&con, 7, "Skim", true, Vec3::ZERO, Vec3::Y * 10.0, 0.5) };
        assert_eq!(rig.frame(&con, &[fast], 0).0, 1);
        assert!(rig.frame(&con, &[fast], 40).1 > 0, "the jet emits");
        let coasting = Mover { vel: Vec3::Y, thrust: Some(Thrust::default()), ..fast };
        assert_eq!(rig.frame(&con, &[coasting], 80).0, 0);
        let up = mover(&con, 9, "Walker", false, Vec3::Z * 5.0, Vec3::Z * 2.0, 5.0);
        assert_eq!(rig.frame(&con, &[up], 120).0, 1, "rising in the air: jets on");
        assert_eq!(rig.frame(&con, &[Mover { vel: Vec3::Z * 2.1, ..up }], 160).0, 1);
        let falling = Mover { vel: Vec3::Z * 1.3, ..up };
        assert_eq!(rig.frame(&con, &[falling], 200).0, 0, "falling at gravity: jets off");
        assert_eq!(rig.frame(&con, &[Mover { above_ground: 0.0, ..falling }], 240).0, 0, "on the ground");
        assert_eq!(rig.frame(&con, &[], 280).0, 0);
    }

    /// The same seed and frames give the same particles; junk positions are skipped; at
    /// most MAX_MOVERS objects carry effects.
    #[test]
    fn movers_are_deterministic_and_capped() {
        let con = console();
        let run = || {
            let mut rig = Rig::new(11);
            for k in 0..20u64 {
                let ms: Vec<Mover> = (0..(MAX_MOVERS as u32 + 20))
                    .map(|i| mover(&con, i, "Skim", true, Vec3::X * i as f32, Vec3::Y * 10.0, 0.5))
                    .chain([mover(&con, 999, "Walker", false, Vec3::NAN, Vec3::Y, 0.0)])
                    .collect();
                rig.frame(&con, &ms, k * 40);
            }
            // Each skimmer's forward jet has two nozzles: the jet emitters' cap stops them
            // before the movers' cap does.
            assert_eq!(rig.fx.vehicles.alive(), jets::MAX_JET_EMITTERS);
            assert_eq!(rig.fx.jets(), jets::MAX_JET_EMITTERS / 2);
            let cam = Camera::look_at(Vec3::new(0.0, -10.0, 3.0), Vec3::ZERO, 1.2, 0.1, 500.0);
            let mut out = Vec::new();
            rig.system.billboards(&cam, &mut out);
            out
        };
        assert_eq!(run(), run());
    }
}
