//! Vehicles, as Tribes 2's three classes: `WheeledVehicle`, `HoverVehicle` and
//! `FlyingVehicle`, each with its datablock (`WheeledVehicleData`, `HoverVehicleData`,
//! `FlyingVehicleData`). A vehicle is a shape that a pilot seated at mount node 0 drives:
//! the pilot's client's moves move the vehicle and its client predicts it
//! (`crate::mount`), through the same movement function as a player's. Wheeled and hover
//! vehicles run on the ground at the datablock's `maxForwardSpeed` (default 20 m/s);
//! flying vehicles fly (the move's z climbs and sinks). All collide with the terrain,
//! interiors and the shapes players walk into, and take impact damage
//! (`crate::impacts`).
//!
//! A datablock without a `shapeFile` gets a default box of the class's usual size
//! ([`default_box`]) and default mount nodes, so a script-only mod needs no art.

use crate::state::Shared;
use glam::Vec3;
use std::cell::RefCell;
use std::rc::Rc;
use v12_console_vm::{Console, ObjectId, Value};

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
        collide: true,
        flies: crate::classes::is_a(con, db, "FlyingVehicleData"),
        half_extents: half,
        energy: None,
    }
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
