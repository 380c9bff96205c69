//! Vehicles, as Tribes 2's three classes: `WheeledVehicle`, `HoverVehicle` and
//! `FlyingVehicle`, each with its datablock (`WheeledVehicleData`, `HoverVehicleData`,
//! `FlyingVehicleData`). A vehicle is a shape that a pilot seated at mount node 0 drives:
//! the pilot's client's moves move the vehicle and its client predicts it
//! (`crate::mount`), through the same movement function as a player's, whose vehicle step
//! (`v12_sim::vehicle_motion`) is the class's model from its datablock ([`dynamics`]): a
//! wheeled vehicle accelerates, brakes, grips with its tires and rides its springs; a hover
//! vehicle thrusts, strafes, drifts and floats on its stabiliser; a flying vehicle needs
//! speed for lift and climbs and dives on the move's z. All collide with the terrain,
//! interiors and the shapes players walk into, and take impact damage (`crate::impacts`).
//!
//! A datablock without a `shapeFile` gets a default box of the class's usual size
//! ([`default_box`]) and default mount nodes, so a script-only mod needs no art.

use crate::state::Shared;
use glam::Vec3;
use std::cell::RefCell;
use std::rc::Rc;
use v12_console_vm::{Console, ObjectId, Value};
use v12_sim::vehicle_motion::{VehicleDynamics, VehicleKind};

/// The box (half extents) of a vehicle datablock's class when it sets no `boundingBox`.
pub fn default_box(con: &Console, db: ObjectId) -> Vec3 {
    if crate::classes::is_a(con, db, "FlyingVehicleData") {
        Vec3::new(3.0, 4.0, 1.2)
    } else if crate::classes::is_a(con, db, "HoverVehicleData") {
        Vec3::new(1.5, 2.5, 0.8)
    } else {
        Vec3::new(1.5, 3.0, 1.2)
    }
}

/// How a vehicle datablock moves its vehicle.
pub fn tuning(con: &Console, db: ObjectId) -> crate::PlayerTuning {
    let speed = crate::classes::num_field(con, db, "maxForwardSpeed").filter(|v| *v > 0.0).unwrap_or(20.0);
    let half = crate::shape_half_extents(con, db).ok().flatten().unwrap_or_else(|| default_box(con, db));
    crate::PlayerTuning {
        max_speed: (speed as f32).clamp(0.1, 120.0),
        jump_speed: 0.0,
        run_accel: 0.0,
        collide: true,
        flies: crate::classes::is_a(con, db, "FlyingVehicleData"),
        half_extents: half,
        energy: None,
        vehicle: Some(dynamics(con, db)),
        ..crate::PlayerTuning::default()
    }
}

/// The vehicle's model from its datablock, V12's fields over its `mass` (default 200):
/// wheeled — `engineTorque` (acceleration), `brakeTorque`, `maxWheelSpeed` (else
/// `maxForwardSpeed`), and the datablock's `tire` (a WheeledVehicleTire: `kineticFriction`,
/// the grip) and `spring` (a WheeledVehicleSpring: `length`, `force`, `damping`); hover —
/// `mainThrustForce`, `stabLenMin` (ride height), `stabSpringConstant`,
/// `stabDampingConstant`, `dragForce`; flying — `maneuveringForce`,
/// `horizontalSurfaceForce` (lift), `minDrag`, `maxAutoSpeed`. All take `jetForce` as a
/// boost on trigger 3. Unset fields keep the class's defaults
/// ([`VehicleDynamics::new`]); every figure is clamped to a sane range.
pub fn dynamics(con: &Console, db: ObjectId) -> VehicleDynamics {
    let is = |class: &str| crate::classes::is_a(con, db, class);
    let kind = if is("FlyingVehicleData") {
        VehicleKind::Flying
    } else if is("HoverVehicleData") {
        VehicleKind::Hover
    } else {
        VehicleKind::Wheeled
    };
    let mut d = VehicleDynamics::new(kind);
    let num = |obj: ObjectId, field: &str| {
        crate::classes::num_field(con, obj, field).filter(|x| x.is_finite() && *x > 0.0).map(|x| x as f32)
    };
    let mass = num(db, "mass").unwrap_or(200.0).max(1.0);
    let per_mass = |obj: ObjectId, field: &str, max: f32| num(obj, field).map(|f| (f / mass).min(max));
    if let Some(s) = num(db, "maxForwardSpeed") {
        d.max_speed = s.min(120.0);
    }
    d.jet_accel = per_mass(db, "jetForce", 100.0).unwrap_or(0.0);
    match kind {
        VehicleKind::Wheeled => {
            d.accel = per_mass(db, "engineTorque", 100.0).unwrap_or(d.accel);
            d.brake = per_mass(db, "brakeTorque", 200.0).unwrap_or(d.brake);
            if let Some(s) = num(db, "maxWheelSpeed") {
                d.max_speed = s.min(120.0);
            }
            let named = |field: &str| {
                let value = con.get_field(db, field);
                let name = value.as_text();
                con.find_object_str(name.trim()).filter(|_| !name.trim().is_empty())
            };
            if let Some(tire) = named("tire") {
                d.grip = num(tire, "kineticFriction").map_or(d.grip, |f| (f / 2.0).clamp(0.05, 1.0));
            }
            if let Some(spring) = named("spring") {
                d.ride_height = num(spring, "length").map_or(d.ride_height, |l| l.min(5.0));
                d.spring = per_mass(spring, "force", 500.0).unwrap_or(d.spring);
                d.damping = per_mass(spring, "damping", 100.0).unwrap_or(d.damping);
            }
        }
        VehicleKind::Hover => {
            d.accel = per_mass(db, "mainThrustForce", 100.0).unwrap_or(d.accel);
            d.ride_height = num(db, "stabLenMin").map_or(d.ride_height, |l| l.min(10.0));
            d.spring = per_mass(db, "stabSpringConstant", 500.0).unwrap_or(d.spring);
            d.damping = per_mass(db, "stabDampingConstant", 100.0).unwrap_or(d.damping);
            d.drag = per_mass(db, "dragForce", 10.0).unwrap_or(d.drag);
        }
        VehicleKind::Flying => {
            d.accel = per_mass(db, "maneuveringForce", 100.0).unwrap_or(d.accel);
            d.lift = per_mass(db, "horizontalSurfaceForce", 10.0).unwrap_or(d.lift);
            d.drag = num(db, "minDrag").map_or(d.drag, |x| (x / mass).min(10.0));
            if let Some(s) = num(db, "maxAutoSpeed") {
                d.max_speed = s.min(200.0);
            }
        }
    }
    d
}

/// Vehicle script methods: `getPilot()` (what rides at node 0, or 0) and `setFrozenState`
/// (a frozen vehicle ignores its pilot's moves).
pub(crate) fn register(con: &mut Console, shared: &Rc<RefCell<Shared>>) {
    let sh = shared.clone();
    con.register_method(
        "Vehicle",
        "getPilot",
        2,
        2,
        "getPilot() - the object at mount node 0, or 0",
        move |c, a| {
            let Some(v) = crate::handles::scene_of(c, &sh, a, "getPilot") else { return Value::from(0) };
            let s = sh.borrow();
            let pilot =
                s.objects.get(&v).and_then(|g| g.mounted.iter().find(|(_, n)| *n == 0).map(|(r, _)| *r));
            Value::from(pilot.and_then(|p| s.objects.get(&p)).map_or(0, |g| g.console))
        },
    );
    let sh = shared.clone();
    con.register_method(
        "Vehicle",
        "setFrozenState",
        3,
        3,
        "setFrozenState(frozen) - ignores its pilot while frozen",
        move |c, a| {
            let Some(v) = crate::handles::scene_of(c, &sh, a, "setFrozenState") else {
                return Value::from(false);
            };
            let frozen = a.bool(1);
            if let Some(g) = sh.borrow_mut().objects.get_mut(&v) {
                g.frozen = frozen;
            }
            Value::from(true)
        },
    );
}
