//! Sensors (Tribes 2's `SensorData`): which objects each sensor group sees.
//!
//! Every game object belongs to a sensor group (`%obj.setSensorGroup(n)`, 0 to
//! [`MAX_SENSOR_GROUPS`] − 1; by default its `team`, else 0). An object whose datablock names
//! a `sensorData` is a sensor of its group while it is enabled and not hidden: every
//! [`SENSOR_TICKS`] ticks it detects the other groups' players, vehicles and turrets within
//! its `detectRadius` that move at least `detectMinVelocity`, are not cloaked (unless it
//! `detectsCloaked`), and, when it `detectsUsingLOS`, that a ray from its top to the target's
//! middle reaches through terrain, interiors and shapes. What a group detects, and its own
//! members, it sees: `%obj.isDetectedBy(group)`, `%obj.getDetectedMask()` (a bit per group),
//! `%sensor.getDetectedCount()`. The turrets and the HUD's radar read it.

pub use crate::state::Sensor;
use crate::state::{DamageState, GameObject, Shared};
use glam::Vec3;
use std::cell::RefCell;
use std::rc::Rc;
use v12_console_vm::{Console, ObjectId, Value};
use v12_sim::container::type_masks as tm;

/// Sensor groups (a 32-bit mask of them per object).
pub const MAX_SENSOR_GROUPS: u32 = 32;
/// Ticks between sensor sweeps (about a quarter second).
pub const SENSOR_TICKS: u64 = 8;
/// The most objects one sensor detects in a sweep (the nearest first).
const MAX_DETECTED: usize = 256;

/// An object's sensor, from its datablock's `sensorData` (none, or a SensorData with no
/// radius: `None`). A `sensorData` naming something else is a console warning.
pub(crate) fn of_datablock(c: &mut Console, datablock: ObjectId, what: &str) -> Option<Sensor> {
    let name = c.get_field(datablock, "sensorData");
    if name.as_text().trim().is_empty() {
        return None;
    }
    let Some(db) = c.find_object(&name).filter(|&d| crate::classes::is_a(c, d, "SensorData")) else {
        c.warn(&format!(
            "{what}: sensorData \"{}\" is not a SensorData datablock; no sensor",
            name.as_text()
        ));
        return None;
    };
    let num = |f: &str| crate::classes::num_field(c, db, f).unwrap_or(0.0) as f32;
    let radius = num("detectRadius");
    (radius > 0.0).then(|| Sensor {
        radius,
        line_of_sight: crate::classes::bool_field(c, db, "detectsUsingLOS"),
        min_speed: num("detectMinVelocity"),
        cloaked: crate::classes::bool_field(c, db, "detectsCloaked"),
    })
}

/// An object's group bit.
fn bit(group: u32) -> u32 {
    1u32 << group.min(MAX_SENSOR_GROUPS - 1)
}

/// The sweep, every [`SENSOR_TICKS`] ticks of the server (tick number `tick`): each object's
/// detected mask from scratch, its own group's bit and those of the groups whose sensors
/// see it.
pub(crate) fn sweep(s: &mut Shared, tick: u64) {
    if !tick.is_multiple_of(SENSOR_TICKS) {
        return;
    }
    let Some(world) = s.world.as_ref() else { return };
    let pos = |id: u32| world.get(id).map(|o| o.state);
    let live = |g: &GameObject, id: u32| {
        g.damage_state == DamageState::Enabled && world.get(id).is_some_and(|o| o.flags & crate::HIDDEN == 0)
    };
    let sensors: Vec<(u32, Sensor, u32, Vec3, ObjectId)> = s
        .objects
        .iter()
        .filter_map(|(&id, g)| {
            let sensor = g.sensor.filter(|_| live(g, id))?;
            let eye = pos(id)?.pos + Vec3::Z * (2.0 * g.half_extents.z);
            Some((id, sensor, g.sensor_group, eye, g.console))
        })
        .collect();
    // (target, the group that saw it), applied once the container is let go.
    let mut seen: Vec<(u32, u32)> = Vec::new();
    let mut counts = Vec::with_capacity(sensors.len());
    if let Some(h) = s.container.as_ref() {
        let mut h = h.borrow_mut();
        let kinds = tm::PLAYER | tm::VEHICLE | tm::TURRET;
        for &(id, sensor, group, eye, console) in &sensors {
            let mut count = 0u32;
            for (target_console, _) in
                h.container.find_radius(eye, sensor.radius, kinds).into_iter().take(MAX_DETECTED)
            {
                let Some(&target) = s.by_console.get(&target_console) else { continue };
                let (Some(g), Some(st)) = (s.objects.get(&target), pos(target)) else { continue };
                if g.sensor_group == group
                    || (g.looks.cloaked && !sensor.cloaked)
                    || st.vel.length() < sensor.min_speed
                    || world.get(target).is_some_and(|o| o.flags & crate::HIDDEN != 0)
                {
                    continue;
                }
                let middle = st.pos + Vec3::Z * g.half_extents.z;
                if sensor.line_of_sight {
                    let walls = tm::TERRAIN | tm::INTERIOR | tm::STATIC_SHAPE | tm::FORCE_FIELD;
                    let hit = h.container.cast_ray(eye, middle, walls, Some(console));
                    if hit.is_some_and(|hit| hit.id != target_console) {
                        continue;
                    }
                }
                seen.push((target, bit(group)));
                count += 1;
            }
            counts.push((id, count));
        }
    }
    for g in s.objects.values_mut() {
        g.detected = bit(g.sensor_group);
        g.detects = 0;
    }
    for (target, group) in seen {
        if let Some(g) = s.objects.get_mut(&target) {
            g.detected |= group;
        }
    }
    for (id, n) in counts {
        if let Some(g) = s.objects.get_mut(&id) {
            g.detects = n;
        }
    }
}

/// The script methods: `setSensorGroup`, `getSensorGroup`, `isDetectedBy`,
/// `getDetectedMask`, `getDetectedCount`.
pub(crate) fn register(con: &mut Console, shared: &Rc<RefCell<Shared>>) {
    let methods: &[(&str, u32, u32, &str, crate::handles::Method)] = &[
        ("setSensorGroup", 3, 3, "setSensorGroup(group) - 0 to 31", |c, sh, a| {
            let Some(scene) = crate::handles::scene_of(c, sh, a, "setSensorGroup") else {
                return Value::from(false);
            };
            let Some(group) = crate::handles::number_arg(c, a, 1, "setSensorGroup") else {
                return Value::from(false);
            };
            if !((0.0..MAX_SENSOR_GROUPS as f32).contains(&group) && group.fract() == 0.0) {
                c.error(&format!(
                    "setSensorGroup: group \"{}\" is not 0 to {}",
                    a.str(1),
                    MAX_SENSOR_GROUPS - 1
                ));
                return Value::from(false);
            }
            if let Some(g) = sh.borrow_mut().objects.get_mut(&scene) {
                g.sensor_group = group as u32;
            }
            Value::from(true)
        }),
        ("getSensorGroup", 2, 2, "getSensorGroup() - the object's sensor group", |c, sh, a| {
            read(c, sh, a, "getSensorGroup", |g| g.sensor_group)
        }),
        (
            "isDetectedBy",
            3,
            3,
            "isDetectedBy(group) - a sensor of the group (or the group itself) sees it",
            |c, sh, a| {
                let group = a.f64(1);
                let known = (0.0..f64::from(MAX_SENSOR_GROUPS)).contains(&group);
                let mask = read(c, sh, a, "isDetectedBy", |g| g.detected).to_f64() as u32;
                Value::from(known && mask & bit(group as u32) != 0)
            },
        ),
        (
            "getDetectedMask",
            2,
            2,
            "getDetectedMask() - a bit for each sensor group that sees it",
            |c, sh, a| read(c, sh, a, "getDetectedMask", |g| g.detected),
        ),
        (
            "getDetectedCount",
            2,
            2,
            "getDetectedCount() - what this sensor detected in its last sweep",
            |c, sh, a| read(c, sh, a, "getDetectedCount", |g| g.detects),
        ),
    ];
    crate::handles::register_all(con, shared, "ShapeBase", methods);
}

/// A number of the game object `a.this`, or 0 with a console error.
fn read(
    c: &mut Console,
    sh: &Rc<RefCell<Shared>>,
    a: &v12_console_vm::CallArgs<'_>,
    method: &str,
    f: fn(&GameObject) -> u32,
) -> Value {
    let Some(scene) = crate::handles::scene_of(c, sh, a, method) else { return Value::from(0) };
    Value::from(sh.borrow().objects.get(&scene).map_or(0, f))
}
