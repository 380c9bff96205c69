//! The projectile family's flight models, with V12's class names: linear shots
//! (`LinearProjectile`, `LinearFlareProjectile`, `TracerProjectile`, `EnergyProjectile`: straight
//! at `dryVelocity`), grenades (`GrenadeProjectile`, `FlareProjectile`: falling at `gravityMod`
//! times gravity and bouncing off the world by `grenadeElasticity` and `grenadeFriction`, a
//! grenade exploding on a shape once armed after `armingDelayMS`; `BombProjectile`: falling,
//! exploding on contact), seekers (`SeekerProjectile`: homing on `setObjectTarget` /
//! `setPositionTarget` at `turningSpeed` degrees a second, accelerating to `maxVelocity`,
//! exploding within `proximityRadius`), the instant sniper shot (`SniperProjectile`: one ray of
//! `maxRifleRange`), and the contact beams held from the firer's muzzle
//! (`ELFProjectile` drains `drainEnergy` a tick from what it holds, `RepairProjectile` repairs
//! `repairAmount` a tick, `TargetProjectile` marks a point; each calls
//! `%data.zapTarget(%proj, %target, %source)` and `unzapTarget` as it takes and loses a
//! target; `ShockLanceProjectile` strikes once along `boltLength`).
//!
//! Water changes a straight shot's speed (`wetVelocity`) and slows a grenade (`crate::liquid`).
//!
//! Shots collide through the container with terrain, interiors, force fields, static shapes,
//! turrets, vehicles, players and damageable items; the `sourceObject` is exempt for its
//! first [`SOURCE_EXEMPT_TICKS`] ticks (V12's), so a shot does not hit its firer as it
//! leaves the muzzle.

pub use crate::flight::{BeamKind, Flight, FlightKind, SeekTarget, kind_of_class};
use crate::state::{GameClass, Shared};
use glam::Vec3;
use v12_console_vm::{Console, ObjectId};
use v12_sim::container::type_masks as tm;
use v12_sim::scene::TICK_SECONDS;

/// Ticks a shot ignores its source after launch (V12's `SourceIdTimeoutTicks`).
pub const SOURCE_EXEMPT_TICKS: u32 = 7;

/// What a shot hits (V12's projectile collision masks).
pub const HIT_MASK: u32 = tm::TERRAIN
    | tm::INTERIOR
    | tm::FORCE_FIELD
    | tm::STATIC_SHAPE
    | tm::TURRET
    | tm::VEHICLE
    | tm::PLAYER
    | tm::DAMAGABLE_ITEM;

/// Reads a new projectile's flight from its class and datablock; returns its start
/// velocity when V12's `initialDirection` (scaled by `dryVelocity`, or `muzzleVelocity`) gave
/// it rather than `initialVelocity`.
pub(crate) fn setup(con: &Console, class: &str, datablock: ObjectId, flight: &mut Flight) {
    let num = |name: &str, d: f64| crate::classes::num_field(con, datablock, name).unwrap_or(d) as f32;
    flight.kind = kind_of_class(class);
    // Only the fields its flight model uses (a shot is made for every trigger pull).
    match flight.kind {
        FlightKind::Linear => {
            // Its speeds in the air and in water (`crate::liquid`).
            flight.dry_velocity = launch_speed(con, datablock);
            flight.wet_velocity = num("wetVelocity", -1.0);
        }
        FlightKind::Grenade { .. } => {
            flight.elasticity = num("grenadeElasticity", 0.35);
            flight.friction = num("grenadeFriction", 0.2);
            flight.arming_ticks =
                (num("armingDelayMS", 0.0) / v12_sim::process::TICK_MS as f32).ceil() as u32;
        }
        FlightKind::Seeker => {
            flight.turn_rate = num("turningSpeed", 90.0).to_radians() * TICK_SECONDS;
            flight.accel = num("acceleration", 20.0) * TICK_SECONDS;
            flight.max_speed = num("maxVelocity", 100.0);
            flight.proximity = num("proximityRadius", 2.0);
        }
        FlightKind::Sniper | FlightKind::Beam(BeamKind::Target) => {
            flight.range = num("maxRifleRange", 1000.0)
        }
        FlightKind::Beam(BeamKind::Elf) => {
            flight.range = num("beamRange", 40.0);
            flight.drain_energy = num("drainEnergy", 1.0);
            flight.drain_health = num("drainHealth", 0.0);
        }
        FlightKind::Beam(BeamKind::Repair) => {
            flight.range = num("beamRange", 10.0);
            flight.repair = num("repairAmount", 0.01);
        }
        FlightKind::ShockLance => flight.range = num("boltLength", 14.0),
    }
}

/// The speed a shot leaves the muzzle at: `dryVelocity`, else `muzzleVelocity`.
pub(crate) fn launch_speed(con: &Console, datablock: ObjectId) -> f32 {
    crate::classes::num_field(con, datablock, "dryVelocity")
        .filter(|v| *v >= 0.0)
        .unwrap_or_else(|| con.get_field(datablock, "muzzleVelocity").to_f64()) as f32
}

/// What a tick of flight produced.
#[derive(Debug, PartialEq)]
pub(crate) enum Outcome {
    /// It hit `col` (a console id: a shape, the terrain, an interior) at `pos` with `normal`,
    /// or expired (`col` none), and explodes.
    Explode { col: Option<ObjectId>, pos: Vec3, normal: Vec3 },
    /// A beam took or lost a target.
    Zap { target: ObjectId, on: bool },
}

/// Casts `from..to` through the container for what a shot hits (or the ground alone when
/// there is no container), the source exempt while `exempt` holds one.
fn cast(
    s: &Shared,
    ground: &dyn v12_sim::container::StaticGeometry,
    from: Vec3,
    to: Vec3,
    exempt: Option<ObjectId>,
) -> Option<(Option<ObjectId>, Vec3, Vec3)> {
    match &s.container {
        Some(h) => h
            .borrow_mut()
            .container
            .cast_ray(from, to, HIT_MASK, exempt)
            .map(|hit| (Some(hit.id), hit.point, hit.normal)),
        None => ground.cast_ray(from, to).map(|(t, n)| (None, from.lerp(to, t), n)),
    }
}

/// Is console object `id` a shape a grenade explodes on (not the world)?
fn is_shape(s: &Shared, id: ObjectId) -> bool {
    s.by_console.get(&id).and_then(|sc| s.objects.get(sc)).is_some_and(|g| {
        matches!(
            g.class,
            GameClass::Player
                | GameClass::Vehicle
                | GameClass::Turret
                | GameClass::StaticShape
                | GameClass::Item
        )
    })
}

/// One projectile's tick in flight (a beam follows its firer's muzzle).
pub(crate) fn step_one(
    s: &mut Shared,
    ground: &dyn v12_sim::container::StaticGeometry,
    id: u32,
) -> Vec<(u32, Outcome)> {
    let mut out = Vec::new();
    step(s, ground, id, &mut out);
    out
}

fn step(
    s: &mut Shared,
    ground: &dyn v12_sim::container::StaticGeometry,
    id: u32,
    out: &mut Vec<(u32, Outcome)>,
) {
    let Some(g) = s.objects.get(&id) else { return };
    let (kind, age, source, gravity) = (g.flight.kind, g.flight.age, g.source, g.gravity);
    let exempt_console =
        source.filter(|_| age < SOURCE_EXEMPT_TICKS).and_then(|src| s.objects.get(&src)).map(|o| o.console);
    let Some(o) = s.world.as_ref().and_then(|w| w.get(id)) else { return };
    let (pos, mut vel) = (o.state.pos, o.state.vel);
    let explode = |col: Option<ObjectId>, at: Vec3, n: Vec3, out: &mut Vec<(u32, Outcome)>| {
        out.push((id, Outcome::Explode { col, pos: at, normal: n }));
    };
    match kind {
        FlightKind::Sniper | FlightKind::ShockLance => {
            // One ray at launch, then it is done.
            let dir = vel.normalize_or(Vec3::Y);
            let end = pos + dir * g.flight.range;
            match cast(s, ground, pos, end, exempt_console) {
                Some((col, at, n)) => explode(col, at, n, out),
                None => explode(None, end, -dir, out),
            }
        }
        FlightKind::Beam(beam) => {
            let Some((from, dir)) =
                source.and_then(|src| crate::weapons::muzzle(s, src, g.flight.source_slot))
            else {
                explode(None, pos, Vec3::Z, out);
                return finish(s, id, None);
            };
            let end = from + dir * g.flight.range;
            let hit =
                cast(s, ground, from, end, source.and_then(|src| s.objects.get(&src)).map(|o| o.console));
            let held = hit.and_then(|(col, _, _)| col).filter(|c| is_shape(s, *c));
            let beam_end = hit.map_or(end, |(_, at, _)| at);
            let before = s.objects.get(&id).and_then(|g| g.flight.holding);
            if before != held {
                if let Some(t) = before {
                    out.push((id, Outcome::Zap { target: t, on: false }));
                }
                if let Some(t) = held {
                    out.push((id, Outcome::Zap { target: t, on: true }));
                }
            }
            if let Some(t) = held.and_then(|c| s.by_console.get(&c).copied()) {
                let (drain, hurt, fix) = {
                    let f = &s.objects[&id].flight;
                    (f.drain_energy, f.drain_health, f.repair)
                };
                if let Some(tg) = s.objects.get_mut(&t) {
                    match beam {
                        BeamKind::Elf => {
                            tg.energy = (tg.energy - drain).max(0.0);
                            if hurt > 0.0 {
                                tg.repair_reserve = 0.0;
                                s.pending_damage.push((t, hurt));
                            }
                        }
                        BeamKind::Repair => tg.repair_reserve = (tg.repair_reserve + fix).min(tg.damage),
                        BeamKind::Target => {}
                    }
                }
            }
            if let Some(g) = s.objects.get_mut(&id) {
                g.flight.holding = held;
                g.flight.beam_end = beam_end;
            }
            // The beam's own position follows the muzzle (what clients draw from).
            if let Some(o) = s.world.as_mut().and_then(|w| w.get_mut(id))
                && o.state.pos != from
            {
                let mut st = o.state;
                st.pos = from;
                st.vel = Vec3::ZERO;
                o.set_state(st);
            }
            return finish(s, id, None);
        }
        FlightKind::Seeker => {
            let target = match g.flight.target {
                SeekTarget::Object(t) => {
                    s.world.as_ref().and_then(|w| w.get(t)).map(|o| o.state.pos + Vec3::Z * 1.0)
                }
                SeekTarget::Position(p) => Some(p),
                SeekTarget::None => None,
            };
            let speed = (vel.length() + g.flight.accel).min(g.flight.max_speed.max(0.1));
            let mut dir = vel.normalize_or(Vec3::Y);
            if let Some(t) = target {
                if t.distance(pos) <= g.flight.proximity {
                    explode(None, pos, -dir, out);
                    return finish(s, id, None);
                }
                let want = (t - pos).normalize_or(dir);
                let angle = dir.angle_between(want);
                if angle > 1e-5 {
                    let turn = (g.flight.turn_rate / angle).min(1.0);
                    dir = dir.slerp(want, turn).normalize_or(want);
                }
            }
            vel = dir * speed;
        }
        FlightKind::Linear | FlightKind::Grenade { .. } => {
            vel.z -= gravity * TICK_SECONDS;
        }
    }
    if matches!(kind, FlightKind::Sniper | FlightKind::ShockLance) {
        return finish(s, id, None);
    }
    if matches!(kind, FlightKind::Linear | FlightKind::Grenade { .. }) {
        let speeds = (g.flight.dry_velocity, g.flight.wet_velocity);
        let linear = kind == FlightKind::Linear;
        match crate::liquid::shot(&s.water, linear, speeds, pos, vel, gravity) {
            crate::liquid::ShotInWater::Dry => {}
            crate::liquid::ShotInWater::Goes(v) => vel = v,
            crate::liquid::ShotInWater::Ends(at) => {
                explode(None, at, Vec3::Z, out);
                return finish(s, id, None);
            }
        }
    }
    let next = pos + vel * TICK_SECONDS;
    let hit = cast(s, ground, pos, next, exempt_console);
    let mut new_state = None;
    match (kind, hit) {
        (_, None) => new_state = Some((next, vel)),
        (FlightKind::Grenade { bomb, flare }, Some((col, at, n))) => {
            let armed = age >= g.flight.arming_ticks;
            if bomb || (!flare && armed && col.is_some_and(|c| is_shape(s, c))) {
                explode(col, at, n, out);
            } else {
                // Bounce: the normal part reversed and scaled by the elasticity, the rest
                // slowed by the friction.
                let into = n * vel.dot(n);
                let along = vel - into;
                let bounced = along * (1.0 - g.flight.friction) - into * g.flight.elasticity;
                new_state = Some((at + n * 0.05, bounced));
            }
        }
        (_, Some((col, at, n))) => explode(col, at, n, out),
    }
    finish(s, id, new_state);
}

/// Ages the shot, moves it, and ends it at the end of its life.
fn finish(s: &mut Shared, id: u32, moved: Option<(Vec3, Vec3)>) {
    let Some(g) = s.objects.get_mut(&id) else { return };
    g.flight.age = g.flight.age.saturating_add(1);
    g.ticks_left = g.ticks_left.saturating_sub(1);
    let linear_unbent = g.flight.kind == FlightKind::Linear && g.gravity == 0.0;
    if let (Some((pos, vel)), Some(o)) = (moved, s.world.as_mut().and_then(|w| w.get_mut(id))) {
        if linear_unbent && vel == o.state.vel {
            // Clients extrapolate a straight shot from its create: nothing is re-sent.
            o.advance_unsent(TICK_SECONDS);
        } else {
            let mut st = o.state;
            st.pos = pos;
            st.vel = vel;
            o.set_state(st);
        }
    }
}

/// The seeker's methods: `setObjectTarget(obj)`, `setPositionTarget(pos)`, `setNoTarget()`,
/// `getTargetObject()`.
pub(crate) fn register(con: &mut Console, shared: &std::rc::Rc<std::cell::RefCell<Shared>>) {
    use v12_console_vm::Value;
    let sh = shared.clone();
    con.register_method(
        "SeekerProjectile",
        "setObjectTarget",
        3,
        3,
        "setObjectTarget(obj) - homes on obj",
        move |c, a| {
            let Some(me) = crate::handles::scene_of(c, &sh, a, "setObjectTarget") else {
                return Value::from(false);
            };
            let target = c.find_object(&a.get(1)).and_then(|t| sh.borrow().by_console.get(&t).copied());
            let Some(target) = target else {
                c.error(&format!("setObjectTarget: \"{}\" is not a game object", a.str(1)));
                return Value::from(false);
            };
            if let Some(g) = sh.borrow_mut().objects.get_mut(&me) {
                g.flight.target = SeekTarget::Object(target);
            }
            Value::from(true)
        },
    );
    let sh = shared.clone();
    con.register_method(
        "SeekerProjectile",
        "setPositionTarget",
        3,
        3,
        "setPositionTarget(\"x y z\") - homes on a point",
        move |c, a| {
            let Some(me) = crate::handles::scene_of(c, &sh, a, "setPositionTarget") else {
                return Value::from(false);
            };
            let p = crate::handles::parse_vec3(&a.str(1));
            if let Some(g) = sh.borrow_mut().objects.get_mut(&me) {
                g.flight.target = SeekTarget::Position(p);
            }
            Value::from(true)
        },
    );
    let sh = shared.clone();
    con.register_method(
        "SeekerProjectile",
        "setNoTarget",
        2,
        2,
        "setNoTarget() - flies straight on",
        move |c, a| {
            let Some(me) = crate::handles::scene_of(c, &sh, a, "setNoTarget") else {
                return Value::from(false);
            };
            if let Some(g) = sh.borrow_mut().objects.get_mut(&me) {
                g.flight.target = SeekTarget::None;
            }
            Value::from(true)
        },
    );
    let sh = shared.clone();
    con.register_method(
        "SeekerProjectile",
        "getTargetObject",
        2,
        2,
        "getTargetObject() - the object it homes on, or 0",
        move |c, a| {
            let Some(me) = crate::handles::scene_of(c, &sh, a, "getTargetObject") else {
                return Value::from(0);
            };
            let s = sh.borrow();
            let t = match s.objects.get(&me).map(|g| g.flight.target) {
                Some(SeekTarget::Object(t)) => s.objects.get(&t).map_or(0, |g| g.console),
                _ => 0,
            };
            Value::from(t)
        },
    );
}
