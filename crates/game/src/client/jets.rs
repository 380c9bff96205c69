//! Vehicles' jets (issue 35), drawn on the client only from the vehicle datablock's jet
//! fields, deterministic from the particle system's seed and capped with the other emitters
//! (`client::movers` carries them for each vehicle in view).
//!
//! - **Which jets** (V12's fields, on any vehicle datablock): `forwardJetEmitter` (else the
//!   older `jetEmitter`) while the pilot thrusts forwards (the move's y > 0), blowing
//!   backwards from the rear nozzles; `backwardJetEmitter` while it thrusts backwards, from
//!   the front; `downJetEmitter` and `floatJetEmitter` while it boosts (trigger 3, V12's
//!   jetting), blowing down from under the hull; `trailEmitter` while its speed along its
//!   heading is over `minTrailSpeed` (default 1 m/s), from its wing tips. Its `jetEffect`,
//!   a JetEffectData (Tribes 2's exhaust flame), burns at the rear nozzles with the forward
//!   jets: particles of its `texture`, from `hotColor` to `coolColor`, `width` wide
//!   (`stretch` times longer in the middle of their life), thrown back at `speed` so the
//!   flame is `length` long, `yOffset` behind the nozzle; it lights `activateTime` seconds
//!   after the thrust starts and goes out `deactivateTime` after it ends.
//! - **The moves**: the controlled vehicle's come from its client's last move
//!   ([`Thrust::of_move`]); other vehicles' moves are not ghosted, so their thrust is read
//!   from their motion ([`Thrust::seen`]: speeding up or holding speed along the heading is
//!   forward thrust, braking or reversing backward, climbing faster than 2 m/s² a boost),
//!   held for [`HOLD_MS`] so a ghost's updates between packets do not flicker it.
//! - **The nodes**: vehicles are drawn from their box (`client::view`), so the jets' nozzles
//!   are points of that box ([`nodes`]), the same points the drawn engines sit on.
//! - **Caps**: at most [`MAX_NODES`] nozzles per jet and [`MAX_JET_EMITTERS`] jet emitters
//!   in all (the rest leave room for explosions and trails: the particle system's own
//!   caps still hold).
//! - **Bad references**: a jet field naming no ParticleEmitterData (or one whose
//!   `particles` name no ParticleData), or a `jetEffect` naming no JetEffectData, is one
//!   console warning naming the datablock and the field ([`VehicleJets::take_warnings`]);
//!   that jet is left out.

use crate::client::particle_data::{color_field, emitter_desc, find_of};
use glam::{Quat, Vec3, Vec4};
use std::collections::HashMap;
use std::sync::Arc;
use v12_console_vm::{Console, ObjectId};
use v12_render3d::{EmitterDesc, EmitterId, ParticleDesc, ParticleSystem};
use v12_sim::moves::Move;

/// Most nozzles one jet fires from.
pub const MAX_NODES: usize = 4;
/// Most jet emitters alive at once, over all vehicles.
pub const MAX_JET_EMITTERS: usize = 192;
/// How long a thrust read from a ghost's motion is held (ms).
pub const HOLD_MS: u32 = 250;
/// The move's forward axis beyond which the pilot thrusts.
const DEAD_ZONE: f32 = 0.1;

/// A vehicle's jets, by V12's fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Jet {
    /// `forwardJetEmitter`: thrusting forwards, from the rear.
    Forward,
    /// `backwardJetEmitter`: thrusting backwards, from the front.
    Backward,
    /// `downJetEmitter`: boosting, from under the hull.
    Down,
    /// `floatJetEmitter`: boosting, from under the hull.
    Float,
    /// `trailEmitter`: faster than `minTrailSpeed`, from the wing tips.
    Trail,
    /// `jetEffect` (a JetEffectData): the flame at the rear nozzles with the forward jets.
    Flame,
}

impl Jet {
    pub const ALL: [Jet; 6] = [Jet::Forward, Jet::Backward, Jet::Down, Jet::Float, Jet::Trail, Jet::Flame];

    /// The datablock fields that name its emitter, the first set one wins.
    fn fields(self) -> &'static [&'static str] {
        match self {
            Jet::Forward => &["forwardJetEmitter", "jetEmitter"],
            Jet::Backward => &["backwardJetEmitter"],
            Jet::Down => &["downJetEmitter"],
            Jet::Float => &["floatJetEmitter"],
            Jet::Trail => &["trailEmitter"],
            Jet::Flame => &["jetEffect"],
        }
    }
}

/// Where a jet's nozzles are on a vehicle whose box has half extents `h` (its frame: x
/// right, y forward, z up from the bottom of the box), and the way they blow.
pub fn nodes(jet: Jet, h: Vec3) -> (Vec<Vec3>, Vec3) {
    let h = h.clamp(Vec3::splat(0.05), Vec3::splat(500.0));
    let pair = |x: f32, y: f32, z: f32| vec![Vec3::new(-x, y, z), Vec3::new(x, y, z)];
    match jet {
        Jet::Forward | Jet::Flame => (pair(h.x * 0.45, -h.y * 1.05, h.z * 0.6), -Vec3::Y),
        Jet::Backward => (pair(h.x * 0.45, h.y * 0.95, h.z * 0.5), Vec3::Y),
        Jet::Down | Jet::Float => {
            let mut n = pair(h.x * 0.6, h.y * 0.5, h.z * 0.1);
            n.extend(pair(h.x * 0.6, -h.y * 0.5, h.z * 0.1));
            (n, -Vec3::Z)
        }
        Jet::Trail => (pair(h.x * 1.1, -h.y * 0.6, h.z * 0.7), -Vec3::Y),
    }
}

/// What a vehicle's pilot asks of it: the move's forward axis (-1..1) and its boost
/// (trigger 3, V12's jetting).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Thrust {
    pub forward: f32,
    pub boost: bool,
}

impl Thrust {
    /// The thrust of a move.
    pub fn of_move(mv: &Move) -> Thrust {
        Thrust { forward: mv.y(), boost: mv.triggers.get(3).copied().unwrap_or(false) }
    }

    /// The thrust a ghost's motion shows: `along` its heading now and `last_along` `dt`
    /// seconds before (m/s), its vertical acceleration `climb` (m/s²).
    pub fn seen(along: f32, last_along: f32, climb: f32, dt: f32) -> Thrust {
        let accel = (along - last_along) / dt.max(1e-3);
        let forward = if accel > 1.0 || (along > 1.0 && accel > -0.5) {
            1.0
        } else if accel < -1.0 || (along < -1.0 && accel < 0.5) {
            -1.0
        } else {
            0.0
        };
        Thrust { forward, boost: climb > 2.0 }
    }

    fn fires(self, jet: Jet, along: f32, min_trail: f32) -> bool {
        match jet {
            Jet::Forward | Jet::Flame => self.forward > DEAD_ZONE,
            Jet::Backward => self.forward < -DEAD_ZONE,
            Jet::Down | Jet::Float => self.boost,
            Jet::Trail => along.abs() > min_trail,
        }
    }
}

/// A vehicle datablock's jets, read once.
#[derive(Debug, Default)]
struct Kinds {
    emitters: Vec<(Jet, Arc<EmitterDesc>)>,
    min_trail: f32,
    /// The flame's (activate, deactivate) times (ms).
    flame_times: (u32, u32),
}

/// One vehicle's jets now.
#[derive(Debug, Default)]
pub struct Track {
    on: HashMap<Jet, Vec<EmitterId>>,
    last_vel: Option<Vec3>,
    held: Thrust,
    held_ms: u32,
    /// How long the forward jets have been on / off (ms), for the flame.
    thrusting_ms: u32,
    idle_ms: u32,
}

/// The jets of every vehicle in view.
#[derive(Debug, Default)]
pub struct VehicleJets {
    kinds: HashMap<ObjectId, Arc<Kinds>>,
    warnings: Vec<String>,
    alive: usize,
}

/// One vehicle this frame, as `client::movers` sees it.
#[derive(Debug, Clone, Copy)]
pub struct Frame {
    pub datablock: ObjectId,
    pub pos: Vec3,
    pub vel: Vec3,
    pub yaw: f32,
    pub half_extents: Vec3,
    /// Its pilot's move, where this client has it.
    pub thrust: Option<Thrust>,
}

impl VehicleJets {
    /// One frame `dt_ms` after the last for vehicle `v` with its `track`.
    pub fn update(
        &mut self,
        con: &Console,
        system: &mut ParticleSystem,
        track: &mut Track,
        v: &Frame,
        dt_ms: u32,
    ) {
        let kinds = self.kinds(con, v.datablock);
        let turn = Quat::from_rotation_z(v.yaw);
        let fwd = turn * Vec3::Y;
        let along = v.vel.dot(fwd);
        let last = track.last_vel.unwrap_or(v.vel);
        track.last_vel = Some(v.vel);
        let thrust = v.thrust.unwrap_or_else(|| {
            let dt = dt_ms as f32 / 1000.0;
            let seen = Thrust::seen(along, last.dot(fwd), (v.vel.z - last.z) / dt.max(1e-3), dt);
            if seen != Thrust::default() {
                track.held = seen;
                track.held_ms = 0;
            } else {
                track.held_ms = track.held_ms.saturating_add(dt_ms);
                if track.held_ms > HOLD_MS {
                    track.held = Thrust::default();
                }
            }
            track.held
        });
        if thrust.fires(Jet::Forward, along, kinds.min_trail) {
            (track.thrusting_ms, track.idle_ms) = (track.thrusting_ms.saturating_add(dt_ms), 0);
        } else {
            (track.thrusting_ms, track.idle_ms) = (0, track.idle_ms.saturating_add(dt_ms));
        }
        for (jet, desc) in &kinds.emitters {
            let want = match jet {
                Jet::Flame => {
                    let lit = track.on.contains_key(&Jet::Flame);
                    let (activate, deactivate) = kinds.flame_times;
                    if lit { track.idle_ms <= deactivate } else { track.thrusting_ms >= activate.max(1) }
                }
                _ => thrust.fires(*jet, along, kinds.min_trail),
            };
            let (points, dir) = nodes(*jet, v.half_extents);
            let dir = turn * dir;
            match (track.on.get(jet), want) {
                (Some(ids), true) => {
                    for (id, p) in ids.iter().zip(&points) {
                        system.move_emitter(*id, v.pos + turn * *p, v.vel);
                        system.aim_emitter(*id, dir);
                    }
                }
                (Some(_), false) => {
                    for id in track.on.remove(jet).unwrap_or_default() {
                        system.remove_emitter(id);
                        self.alive = self.alive.saturating_sub(1);
                    }
                }
                (None, true) => {
                    let mut ids = Vec::new();
                    for p in points.iter().take(MAX_NODES) {
                        if self.alive >= MAX_JET_EMITTERS {
                            tracing::debug!("vehicle jet not started: {MAX_JET_EMITTERS} alive");
                            break;
                        }
                        if let Some(id) = system.add_emitter(desc.clone(), v.pos + turn * *p, dir, None) {
                            system.move_emitter(id, v.pos + turn * *p, v.vel);
                            ids.push(id);
                            self.alive += 1;
                        }
                    }
                    if !ids.is_empty() {
                        track.on.insert(*jet, ids);
                    }
                }
                (None, false) => {}
            }
        }
    }

    /// Ends a vehicle's jets (it left the view).
    pub fn end(&mut self, system: &mut ParticleSystem, track: Track) {
        for id in track.on.into_values().flatten() {
            system.remove_emitter(id);
            self.alive = self.alive.saturating_sub(1);
        }
    }

    /// Jets firing on `track` now.
    pub fn firing(track: &Track) -> Vec<Jet> {
        let mut on: Vec<Jet> = track.on.keys().copied().collect();
        on.sort();
        on
    }

    /// Jet emitters alive over all vehicles.
    pub fn alive(&self) -> usize {
        self.alive
    }

    /// The warnings about bad jet references not yet printed (each once).
    pub fn take_warnings(&mut self) -> Vec<String> {
        std::mem::take(&mut self.warnings)
    }

    fn kinds(&mut self, con: &Console, db: ObjectId) -> Arc<Kinds> {
        if let Some(k) = self.kinds.get(&db) {
            return k.clone();
        }
        let mut k = Kinds {
            min_trail: crate::classes::num_field(con, db, "minTrailSpeed")
                .filter(|v| v.is_finite())
                .map_or(1.0, |v| v as f32),
            ..Kinds::default()
        };
        let block = match con.object_name(db) {
            n if n.is_empty() => db.to_string(),
            n => n,
        };
        for jet in Jet::ALL {
            let Some((field, name)) = jet.fields().iter().find_map(|f| {
                let name = con.get_field(db, f).as_text().trim().to_string();
                (!name.is_empty()).then_some((*f, name))
            }) else {
                continue;
            };
            let desc = if jet == Jet::Flame {
                find_of(con, &name, "JetEffectData").map(|e| {
                    k.flame_times =
                        (secs_ms(con, e, "activateTime", 0.0), secs_ms(con, e, "deactivateTime", 0.0));
                    flame_desc(con, e)
                })
            } else {
                find_of(con, &name, "ParticleEmitterData").and_then(|e| emitter_desc(con, e))
            };
            match desc {
                Some(d) => k.emitters.push((jet, d)),
                None => {
                    let class = if jet == Jet::Flame { "JetEffectData" } else { "ParticleEmitterData" };
                    self.warnings.push(format!(
                        "{block}.{field}: \"{name}\" is not a {class} with particles; that jet is not drawn"
                    ));
                }
            }
        }
        let k = Arc::new(k);
        self.kinds.insert(db, k.clone());
        k
    }
}

fn secs_ms(con: &Console, db: ObjectId, field: &str, default: f64) -> u32 {
    let s = crate::classes::num_field(con, db, field).filter(|v| v.is_finite()).unwrap_or(default);
    (s.clamp(0.0, 60.0) * 1000.0) as u32
}

/// A JetEffectData (Tribes 2's exhaust flame) as an emitter: a stream of additive particles
/// from `hotColor` to `coolColor`, `width` wide and `stretch` times that in mid-life, thrown
/// back at `speed` (m/s, either sign) so that they die `length` metres behind the nozzle,
/// starting `yOffset` behind it.
pub fn flame_desc(con: &Console, db: ObjectId) -> Arc<EmitterDesc> {
    let num = |f: &str, default: f32| {
        crate::classes::num_field(con, db, f).filter(|v| v.is_finite()).map_or(default, |v| v as f32)
    };
    let color =
        |f: &str, default: Vec4| color_field(con, db, f).map_or(default, |c| c.clamp(Vec4::ZERO, Vec4::ONE));
    let hot = color("hotColor", Vec4::new(1.0, 0.8, 0.4, 1.0));
    let cool = color("coolColor", Vec4::new(0.3, 0.3, 1.0, 1.0));
    let speed = num("speed", 10.0).abs().clamp(0.5, 100.0);
    let length = num("length", 1.0).clamp(0.05, 50.0);
    let width = num("width", 0.3).clamp(0.01, 20.0);
    let stretch = num("stretch", 1.0).clamp(0.1, 10.0);
    let texture = con.get_field(db, "texture").as_text().trim().replace('\\', "/");
    let particle = ParticleDesc {
        lifetime_ms: ((length / speed) * 1000.0).clamp(20.0, 5000.0) as u32,
        colors: [hot, hot.lerp(cool, 0.5), cool, cool * Vec4::new(1.0, 1.0, 1.0, 0.0)],
        sizes: [width, width * stretch, width * 0.8, width * 0.4],
        times: [0.0, 0.3, 0.7, 1.0],
        texture: (!texture.is_empty()).then(|| Arc::from(texture.as_str())),
        additive: true,
        ..ParticleDesc::default()
    };
    Arc::new(EmitterDesc {
        period_ms: 12,
        period_variance_ms: 0,
        velocity: speed,
        velocity_variance: speed * 0.1,
        offset: num("yOffset", 0.0).clamp(-10.0, 10.0),
        theta_min: 0.0,
        theta_max: 4.0,
        phi_reference_vel: 0.0,
        phi_variance: 360.0,
        particles: vec![Arc::new(particle)],
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use v12_render_gl::Camera;

    fn console() -> Console {
        crate::client::particle_data::datablock_console(
            r#"
            datablock ParticleData(Spark) { lifetimeMS = 400; sizes[0] = 0.4; };
            datablock ParticleEmitterData(Push) { ejectionPeriodMS = 10; particles = "Spark"; };
            datablock ParticleEmitterData(Empty) { ejectionPeriodMS = 10; particles = "Nothing"; };
            datablock JetEffectData(Exhaust) { texture = "special/jetExhaust02"; hotColor = "1 0.8 0.3 1";
               coolColor = "0.2 0.3 1 1"; length = 2; width = 0.5; speed = -20; stretch = 2; yOffset = 0.2;
               activateTime = 0.1; deactivateTime = 0.2; };
            datablock FlyingVehicleData(Flyer) { forwardJetEmitter = Push; backwardJetEmitter = Push;
               downJetEmitter = Push; trailEmitter = Push; minTrailSpeed = 15; jetEffect = Exhaust; };
            datablock HoverVehicleData(Skim) { forwardJetEmitter = Push; floatJetEmitter = Push; };
            datablock HoverVehicleData(Broken) { forwardJetEmitter = Spark; floatJetEmitter = NoSuchThing;
               trailEmitter = Empty; jetEffect = Push; backwardJetEmitter = Push; };
            "#,
        )
    }

    struct Rig {
        jets: VehicleJets,
        track: Track,
        system: ParticleSystem,
    }

    impl Rig {
        fn new(seed: u64) -> Rig {
            Rig { jets: VehicleJets::default(), track: Track::default(), system: ParticleSystem::new(seed) }
        }

        /// One 32 ms frame: the jets firing after it.
        fn frame(&mut self, con: &Console, v: &Frame) -> Vec<Jet> {
            self.jets.update(con, &mut self.system, &mut self.track, v, 32);
            self.system.advance(32);
            VehicleJets::firing(&self.track)
        }
    }

    fn vehicle(con: &Console, db: &str, vel: Vec3, thrust: Option<Thrust>) -> Frame {
        Frame {
            datablock: con.find_object_str(db).unwrap(),
            pos: Vec3::new(10.0, 20.0, 5.0),
            vel,
            yaw: 0.5,
            half_extents: Vec3::new(3.0, 4.0, 1.2),
            thrust,
        }
    }

    fn thrust(forward: f32, boost: bool) -> Option<Thrust> {
        Some(Thrust { forward, boost })
    }

    /// A flyer's moves pick its jets: forwards fires the forward jets (and, after its
    /// activateTime, the JetEffectData's flame, which outlasts the thrust by its
    /// deactivateTime), backwards the backward ones, a boost the down jets; its contrail
    /// only over minTrailSpeed. Each jet fires from its nozzles (two, four under the hull).
    #[test]
    fn a_flyers_moves_pick_its_jets() {
        let con = console();
        let mut rig = Rig::new(1);
        let slow = Vec3::new(0.0, 5.0, 0.0);
        assert_eq!(rig.frame(&con, &vehicle(&con, "Flyer", slow, thrust(1.0, false))), [Jet::Forward]);
        for _ in 0..3 {
            rig.frame(&con, &vehicle(&con, "Flyer", slow, thrust(1.0, false)));
        }
        assert_eq!(
            rig.frame(&con, &vehicle(&con, "Flyer", slow, thrust(1.0, false))),
            [Jet::Forward, Jet::Flame]
        );
        assert_eq!(rig.jets.alive(), 4, "two nozzles each");
        assert!(!rig.system.is_empty());
        let idle = vehicle(&con, "Flyer", slow, thrust(0.0, false));
        assert_eq!(rig.frame(&con, &idle), [Jet::Flame], "the flame dies down after the thrust");
        for _ in 0..6 {
            rig.frame(&con, &idle);
        }
        assert_eq!(rig.frame(&con, &idle), []);
        assert_eq!(rig.frame(&con, &vehicle(&con, "Flyer", slow, thrust(-1.0, false))), [Jet::Backward]);
        assert_eq!(rig.frame(&con, &vehicle(&con, "Flyer", slow, thrust(0.0, true))), [Jet::Down]);
        assert_eq!(rig.jets.alive(), 4, "four nozzles under the hull");
        let fast = Vec3::new(-20.0f32 * 0.5f32.sin(), 20.0 * 0.5f32.cos(), 0.0);
        assert_eq!(rig.frame(&con, &vehicle(&con, "Flyer", fast, thrust(0.0, false))), [Jet::Trail]);
        rig.jets.end(&mut rig.system, std::mem::take(&mut rig.track));
        assert_eq!(rig.jets.alive(), 0);
        assert_eq!(rig.system.emitters(), 0);
    }

    /// A hover vehicle's float jets fire on its boost. A vehicle whose moves this client
    /// does not have: speeding up or holding speed along its heading is forward thrust;
    /// stopped, its jets go out after HOLD_MS.
    #[test]
    fn other_vehicles_thrust_is_read_from_their_motion() {
        let con = console();
        let mut rig = Rig::new(2);
        assert_eq!(rig.frame(&con, &vehicle(&con, "Skim", Vec3::ZERO, thrust(0.0, true))), [Jet::Float]);
        let mut rig = Rig::new(2);
        let heading = Vec3::new(-0.5f32.sin(), 0.5f32.cos(), 0.0);
        let mut fired = Vec::new();
        for k in 0..10 {
            fired.push(rig.frame(&con, &vehicle(&con, "Skim", heading * k as f32, None)));
        }
        assert!(fired[1..].iter().all(|f| f == &[Jet::Forward]), "speeding up: {fired:?}");
        let cruising = vehicle(&con, "Skim", heading * 10.0, None);
        assert_eq!(rig.frame(&con, &cruising), [Jet::Forward]);
        let stopped = vehicle(&con, "Skim", Vec3::ZERO, None);
        rig.frame(&con, &stopped);
        let mut off = 0;
        while !rig.frame(&con, &stopped).is_empty() {
            off += 32;
            assert!(off <= HOLD_MS + 64, "the jets go out");
        }
        assert_eq!(Thrust::seen(0.0, 0.0, 3.0, 0.032), Thrust { forward: 0.0, boost: true }, "climbing");
    }

    /// A jet field naming no ParticleEmitterData (or one with no particles), or a jetEffect
    /// naming no JetEffectData, is one console warning naming the datablock and field; that
    /// jet is not drawn and the good ones are.
    #[test]
    fn bad_jet_references_are_warnings() {
        let con = console();
        let mut rig = Rig::new(3);
        let v = vehicle(&con, "Broken", Vec3::ZERO, thrust(-1.0, true));
        assert_eq!(rig.frame(&con, &v), [Jet::Backward]);
        let mut w = rig.jets.take_warnings();
        w.sort();
        assert_eq!(w.len(), 4, "{w:?}");
        assert!(
            w[0].starts_with("Broken.floatJetEmitter: \"NoSuchThing\" is not a ParticleEmitterData"),
            "{w:?}"
        );
        assert!(w[1].starts_with("Broken.forwardJetEmitter: \"Spark\""), "{w:?}");
        assert!(w[2].starts_with("Broken.jetEffect: \"Push\" is not a JetEffectData"), "{w:?}");
        assert!(w[3].starts_with("Broken.trailEmitter: \"Empty\""), "{w:?}");
        rig.frame(&con, &v);
        assert!(rig.jets.take_warnings().is_empty(), "each once");
        let junk = Frame { pos: Vec3::splat(1e30), vel: Vec3::splat(-1e30), yaw: f32::MAX, ..v };
        rig.frame(&con, &junk);
    }

    /// The same seed and moves draw the same particles; the flame's particles are its
    /// JetEffectData's (additive, its texture, width and length).
    #[test]
    fn jets_are_deterministic() {
        let con = console();
        let run = || {
            let mut rig = Rig::new(9);
            for k in 0..30 {
                let t = thrust(if k % 10 < 6 { 1.0 } else { -1.0 }, k % 7 == 0);
                rig.frame(&con, &vehicle(&con, "Flyer", Vec3::Y * k as f32, t));
            }
            let cam =
                Camera::look_at(Vec3::new(10.0, 0.0, 10.0), Vec3::new(10.0, 20.0, 5.0), 1.2, 0.1, 500.0);
            let mut out = Vec::new();
            rig.system.billboards(&cam, &mut out);
            out
        };
        let a = run();
        assert!(!a.is_empty());
        assert_eq!(a, run());
        let flame = flame_desc(&con, con.find_object_str("Exhaust").unwrap());
        let p = &flame.particles[0];
        assert!(p.additive);
        assert_eq!(p.texture.as_deref(), Some("special/jetExhaust02"));
        assert_eq!((p.lifetime_ms, p.sizes[0], p.sizes[1]), (100, 0.5, 1.0));
        assert_eq!((flame.velocity, flame.offset), (20.0, 0.2));
    }
}
