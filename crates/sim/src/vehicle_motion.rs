//! How Tribes 2's three vehicle classes move under their pilot's moves: a wheeled vehicle
//! rides on sprung wheels and grips the ground through its tires, a hover vehicle floats on
//! a stabiliser spring and drifts, a flying vehicle is held up by the lift its speed makes.
//! One deterministic step a tick, part of [`ControlState::apply_move`], so the server and
//! the pilot's client (which predicts the vehicle) move it the same way.
//!
//! The model is a rigid box with a heading, not V12's full rigid body with wheel contact
//! points: enough for vehicles that accelerate, brake, steer, bounce on their springs,
//! slide, climb and dive, collide with terrain and interiors, and stay predictable.

use crate::container::StaticGeometry;
use crate::moves::Move;
use crate::scene::{ControlModel, ControlState, JET_TRIGGER, Motion, TICK_SECONDS};
use glam::Vec3;

/// Which of the three models moves the vehicle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VehicleKind {
    /// `WheeledVehicle`: engine, brakes, tires (grip) and springs (ride height).
    Wheeled,
    /// `HoverVehicle`: thrust and strafe, floats on its stabiliser, little grip.
    Hover,
    /// `FlyingVehicle`: thrust, lift from forward speed, the move's z climbs and dives.
    Flying,
}

/// A vehicle's physical properties, from its datablock and, for a wheeled vehicle, its
/// tire and spring datablocks (all in SI units per the tick's second).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VehicleDynamics {
    /// The model.
    pub kind: VehicleKind,
    /// Forward acceleration at full throttle (m/s²: engine torque or main thrust over mass).
    pub accel: f32,
    /// Braking (and reversing) deceleration (m/s²).
    pub brake: f32,
    /// Top speed along the heading (m/s).
    pub max_speed: f32,
    /// Share (0..=1) of the sideways velocity the tires or stabilisers take away each tick.
    pub grip: f32,
    /// Share of the horizontal speed lost each second to drag.
    pub drag: f32,
    /// Height of the body's bottom above the ground where the springs rest (m).
    pub ride_height: f32,
    /// Spring stiffness (m/s² per metre of compression).
    pub spring: f32,
    /// Spring damping (m/s² per m/s of vertical speed).
    pub damping: f32,
    /// Flying: upward acceleration per m/s of forward speed (lift).
    pub lift: f32,
    /// Jets (trigger 3): extra forward acceleration (m/s²), and for a flying vehicle lift.
    pub jet_accel: f32,
}

impl VehicleDynamics {
    /// Defaults for `kind` (a datablock that sets nothing still drives sensibly).
    pub fn new(kind: VehicleKind) -> Self {
        let base = Self {
            kind,
            accel: 12.0,
            brake: 20.0,
            max_speed: 20.0,
            grip: 0.6,
            drag: 0.3,
            ride_height: 0.5,
            spring: 60.0,
            damping: 9.0,
            lift: 0.0,
            jet_accel: 0.0,
        };
        match kind {
            VehicleKind::Wheeled => base,
            VehicleKind::Hover => {
                Self { grip: 0.08, drag: 0.5, ride_height: 1.0, spring: 30.0, damping: 6.0, ..base }
            }
            VehicleKind::Flying => Self { grip: 0.2, drag: 0.2, max_speed: 60.0, lift: 0.5, ..base },
        }
    }
}

impl ControlModel for VehicleDynamics {
    /// One tick of the vehicle under `mv` (yaw turns it; y is throttle and brake; x strafes a
    /// hover vehicle; z climbs and dives a flying one).
    fn step(&self, st: &mut ControlState, mv: &Move, motion: &Motion) {
        let dt = TICK_SECONDS;
        st.yaw = crate::scene::wrap_angle(st.yaw + mv.yaw());
        let (s, c) = st.yaw.sin_cos();
        let forward = Vec3::new(-s, c, 0.0);
        let right = Vec3::new(c, s, 0.0);
        let mut v = st.vel;
        // Throttle, or brakes when the stick is against the motion.
        let along = v.dot(forward);
        let throttle = mv.y();
        if throttle * along < 0.0 {
            let slow = (self.brake * throttle.abs() * dt).min(along.abs());
            v -= forward * along.signum() * slow;
        } else {
            let boost = if mv.triggers[JET_TRIGGER] { self.jet_accel } else { 0.0 };
            let push = (self.accel * throttle + boost) * dt;
            let room = (self.max_speed - along * throttle.signum()).max(0.0);
            v += forward * push.clamp(-room, room);
        }
        if self.kind == VehicleKind::Hover {
            v += right * mv.x() * self.accel * 0.5 * dt;
        }
        // Tires (stabilisers, wings) take away the sideways slide; drag slows everything.
        v -= right * v.dot(right) * self.grip.clamp(0.0, 1.0);
        let keep = (1.0 - self.drag.max(0.0) * dt).max(0.0);
        v.x *= keep;
        v.y *= keep;
        // Up and down: springs over the ground, or the lift of the wings.
        let ground = motion.ground.as_deref();
        match self.kind {
            VehicleKind::Flying => {
                let speed = v.dot(forward).max(0.0);
                let climb = mv.z() * self.accel;
                v.z += (self.lift * speed + climb - motion.gravity) * dt;
                v.z *= keep;
            }
            VehicleKind::Wheeled | VehicleKind::Hover => {
                let reach = self.ride_height * 2.0;
                let above = ground.and_then(|g| height_above(g, st.pos, motion.half_extents, reach));
                // A hover vehicle's stabiliser holds it over water as over the ground (a body
                // sunk deeper than its reach comes up on the spring).
                let over_water = motion
                    .liquid
                    .as_deref()
                    .filter(|_| self.kind == VehicleKind::Hover)
                    .and_then(|l| l.surface(st.pos.x, st.pos.y))
                    .map(|s| (st.pos.z - s).max(-reach))
                    .filter(|h| *h < reach);
                let height = match (above, over_water) {
                    (Some(a), Some(w)) => Some(a.min(w)),
                    (a, w) => a.or(w),
                };
                match height {
                    Some(h) => {
                        // The springs carry the weight at the ride height and push only.
                        let support = (self.spring * (self.ride_height - h) + motion.gravity).max(0.0);
                        v.z += (support - self.damping * v.z - motion.gravity) * dt;
                    }
                    None => v.z -= motion.gravity * dt,
                }
            }
        }
        let h = motion.arena_half;
        let mut pos = match ground {
            None => st.pos + v * dt,
            Some(g) => {
                let (pos, floor, wall) = crate::scene::slide(g, st.pos, motion.half_extents, v * dt);
                if floor.is_some() {
                    v.z = v.z.max(0.0);
                }
                if let Some(n) = wall {
                    v -= n * v.dot(n).min(0.0);
                }
                pos
            }
        };
        pos.x = pos.x.clamp(-h, h);
        pos.y = pos.y.clamp(-h, h);
        if !v.is_finite() || !pos.is_finite() {
            v = Vec3::ZERO;
            pos = st.pos;
        }
        if v.length_squared() < 1e-6 {
            v = Vec3::ZERO;
        }
        st.pos = pos;
        st.vel = v;
    }
}

/// How far the bottom of the box at `feet` is above the ground, looking at most `reach` down.
fn height_above(ground: &dyn StaticGeometry, feet: Vec3, half: Vec3, reach: f32) -> Option<f32> {
    let center = feet + Vec3::Z * half.z;
    ground.sweep_box(center, half, Vec3::new(0.0, 0.0, -reach)).map(|(t, _)| t * reach)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::container::Aabb;
    use crate::moves::{Move, NULL_MOVE};

    /// A floor at z = 0 and a wall across +Y at y = 60 (for x from 100 to 500).
    #[derive(Debug)]
    struct Floor;
    impl StaticGeometry for Floor {
        fn cast_ray(&self, start: Vec3, end: Vec3) -> Option<(f32, Vec3)> {
            (start.z >= 0.0 && end.z < 0.0).then(|| (start.z / (start.z - end.z), Vec3::Z))
        }
        fn sweep_box(&self, center: Vec3, half: Vec3, delta: Vec3) -> Option<(f32, Vec3)> {
            let boxes = [
                Aabb::new(Vec3::new(-500.0, -500.0, -10.0), Vec3::new(500.0, 500.0, 0.0)),
                Aabb::new(Vec3::new(100.0, 60.0, 0.0), Vec3::new(500.0, 61.0, 20.0)),
            ];
            boxes
                .iter()
                .filter_map(|b| {
                    Aabb::new(b.min - half, b.max + half).intersect_segment_normal(center, center + delta)
                })
                .min_by(|a, b| a.0.total_cmp(&b.0))
        }
    }

    fn motion(kind: VehicleKind) -> (Motion, VehicleDynamics) {
        let m = Motion {
            gravity: 20.0,
            arena_half: 1000.0,
            half_extents: Vec3::new(1.5, 2.5, 0.8),
            ground: Some(std::rc::Rc::new(Floor)),
            ..Motion::default()
        };
        (m, VehicleDynamics::new(kind))
    }

    fn drive(y: f32, x: f32, z: f32) -> Move {
        Move::from_input(x, y, z, 0.0, 0.0, 0.0, [false; 6])
    }

    #[test]
    fn a_wheeled_vehicle_settles_on_its_springs_accelerates_to_top_speed_and_brakes() {
        let (m, d) = motion(VehicleKind::Wheeled);
        let mut st = ControlState { pos: Vec3::new(0.0, 0.0, 3.0), ..ControlState::default() };
        for _ in 0..150 {
            d.step(&mut st, &NULL_MOVE, &m);
        }
        assert!((st.pos.z - d.ride_height).abs() < 0.1, "rests on its springs: {}", st.pos);
        for _ in 0..150 {
            d.step(&mut st, &drive(1.0, 0.0, 0.0), &m);
        }
        let speed = st.vel.y;
        assert!(speed > 0.8 * d.max_speed && speed <= d.max_speed + 1e-3, "top speed {speed}");
        let y = st.pos.y;
        let mut ticks = 0;
        while st.vel.y > 0.0 {
            d.step(&mut st, &drive(-1.0, 0.0, 0.0), &m);
            ticks += 1;
            assert!(ticks < 100, "never stopped");
        }
        assert!(ticks < 40 && st.pos.y - y < 15.0, "brakes in {ticks} ticks, {} m", st.pos.y - y);
    }

    #[test]
    fn tires_grip_and_a_hover_vehicle_drifts() {
        for (kind, kept) in [(VehicleKind::Wheeled, 0.01), (VehicleKind::Hover, 0.3)] {
            let (m, d) = motion(kind);
            let mut st = ControlState {
                pos: Vec3::new(0.0, 0.0, d.ride_height),
                vel: Vec3::new(10.0, 0.0, 0.0),
                ..ControlState::default()
            };
            for _ in 0..10 {
                d.step(&mut st, &NULL_MOVE, &m);
            }
            // Facing +Y, so +X is sideways.
            let left = st.vel.x / 10.0;
            if kind == VehicleKind::Wheeled {
                assert!(left < kept, "{kind:?} kept {left} of its slide");
            } else {
                assert!(left > kept, "{kind:?} kept only {left} of its slide");
            }
        }
    }

    #[test]
    fn a_flying_vehicle_needs_speed_to_stay_up_and_climbs_on_z() {
        let (m, d) = motion(VehicleKind::Flying);
        let start = ControlState { pos: Vec3::new(0.0, 0.0, 50.0), ..ControlState::default() };
        let mut still = start;
        for _ in 0..30 {
            d.step(&mut still, &NULL_MOVE, &m);
        }
        assert!(still.pos.z < 45.0, "without speed it falls: {}", still.pos);
        let mut flying = start;
        for _ in 0..200 {
            d.step(&mut flying, &drive(1.0, 0.0, 0.0), &m);
        }
        let mut climbing = flying;
        for _ in 0..30 {
            d.step(&mut flying, &drive(1.0, 0.0, 0.0), &m);
            d.step(&mut climbing, &drive(1.0, 0.0, 1.0), &m);
        }
        assert!(flying.vel.y > 30.0, "flies forward: {}", flying.vel);
        assert!(climbing.pos.z > flying.pos.z + 1.0, "climbs on z: {} vs {}", climbing.pos, flying.pos);
    }

    #[test]
    fn vehicles_stop_at_walls() {
        let (m, d) = motion(VehicleKind::Wheeled);
        let mut st = ControlState { pos: Vec3::new(200.0, 0.0, d.ride_height), ..ControlState::default() };
        for _ in 0..400 {
            d.step(&mut st, &drive(1.0, 0.0, 0.0), &m);
        }
        assert!(st.pos.y <= 60.0 - 2.5 + 1e-3, "through the wall: {}", st.pos);
        assert!(st.pos.y > 57.0, "never reached the wall: {}", st.pos);
    }

    /// Water over the whole floor, its surface 1 m up.
    #[derive(Debug)]
    struct Lake;
    impl crate::liquid::Liquids for Lake {
        fn immersion(&self, feet: Vec3, half: Vec3) -> Option<crate::liquid::Immersion> {
            let coverage = ((1.0 - feet.z) / (2.0 * half.z)).clamp(0.0, 1.0);
            (coverage > 0.0).then_some(crate::liquid::Immersion { coverage, density: 1.0, viscosity: 15.0 })
        }
        fn surface(&self, _: f32, _: f32) -> Option<f32> {
            Some(1.0)
        }
    }

    /// A hover vehicle over water floats on its stabiliser at its ride height over the
    /// surface, not over the bottom; a wheeled one drives along the bottom.
    #[test]
    fn a_hover_vehicle_skims_over_water() {
        for (kind, rest) in [(VehicleKind::Hover, 1.0), (VehicleKind::Wheeled, 0.0)] {
            let (m, d) = motion(kind);
            let m = Motion { liquid: Some(std::rc::Rc::new(Lake)), ..m };
            let mut st = ControlState { pos: Vec3::new(0.0, 0.0, 3.0), ..ControlState::default() };
            for _ in 0..200 {
                d.step(&mut st, &NULL_MOVE, &m);
            }
            let want = rest + d.ride_height;
            assert!((st.pos.z - want).abs() < 0.15, "{kind:?} rests at {}, not {want}", st.pos.z);
        }
    }
}
