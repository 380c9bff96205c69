//! More of V12's ShapeBase, Item, Player and GameConnection methods that Tribes 2's game
//! scripts call: `setDataBlock` (an armour change), `hide`, `setEnergyPercentage`,
//! `getSlotTransform`, Item's `setCollisionTimeout` (a thrown flag is not picked up again at
//! once by its thrower) and `isStatic`, Player's `getDamageLocation` (head shots), and
//! `GameConnection::isAIControlled`.

use crate::handles::{Method, number_arg, parse_vec3, scene_of, vec_text};
use crate::state::{GameClass, GameObject, Shared};
use std::cell::RefCell;
use std::rc::Rc;
use v12_console_vm::{CallArgs, Console, ObjectId, Value};

/// Ticks an item ignores the object named by `setCollisionTimeout` (V12's Item: 15).
pub(crate) const COLLISION_TIMEOUT_TICKS: u64 = 15;

/// `setDataBlock(db)`: the object takes a new datablock of its class's kind; its damage
/// level and energy stay (clamped to the new limits), its ghosts learn the new one.
fn set_data_block(c: &mut Console, sh: &Rc<RefCell<Shared>>, a: &CallArgs<'_>) -> Value {
    let Some(scene) = scene_of(c, sh, a, "setDataBlock") else { return Value::from(false) };
    let Some(this) = a.this else { return Value::from(false) };
    let want = crate::classes::class_of(c, this).map(|(_, want)| want).unwrap_or("GameBaseData");
    let Some(db) = c.find_object(&a.get(1)).filter(|d| crate::classes::is_a(c, *d, want)) else {
        c.error(&format!("setDataBlock: \"{}\" is not a {want}", a.str(1)));
        return Value::from(false);
    };
    let Some(mut g) = sh.borrow_mut().objects.remove(&scene) else { return Value::from(false) };
    let (damage, energy) = (g.damage, g.energy);
    read_datablock(c, &mut g, db);
    g.damage = damage.min(g.max_damage);
    g.energy = energy.min(g.max_energy);
    sh.borrow_mut().objects.insert(scene, g);
    if let Some(o) = sh.borrow_mut().world.as_mut().and_then(|w| w.get_mut(scene)) {
        o.datablock = db;
        o.set_mask_bits(v12_sim::scene::DATABLOCK_MASK);
    }
    c.set_field(this, "dataBlock", Value::from(db));
    crate::placement::place(sh, scene);
    Value::from(true)
}

/// `getDamageLocation(pos)`: where on a player a hit at `pos` lands, as V12 names it: "legs",
/// "torso" or "head" by height in its box (the datablock's `boxHeadPercentage` and
/// `boxTorsoPercentage`), then the quadrant seen from the player ("front_left", ... for the
/// body, "left_back" ... "right_front" for the head).
fn damage_location(c: &mut Console, sh: &Rc<RefCell<Shared>>, a: &CallArgs<'_>) -> Value {
    let Some(scene) = scene_of(c, sh, a, "getDamageLocation") else { return Value::Empty };
    let hit = parse_vec3(&a.str(1));
    let s = sh.borrow();
    let (Some(g), Some(o)) = (s.objects.get(&scene), s.world.as_ref().and_then(|w| w.get(scene))) else {
        return Value::Empty;
    };
    let frac = |name: &str, default: f64| {
        crate::classes::num_field(c, g.datablock, name).filter(|v| (0.0..=1.0).contains(v)).unwrap_or(default)
            as f32
    };
    let (head, torso) = (frac("boxHeadPercentage", 0.85), frac("boxTorsoPercentage", 0.55));
    let height = (g.half_extents.z * 2.0).max(0.01);
    let up = ((hit.z - o.state.pos.z) / height).clamp(0.0, 1.0);
    // Into the player's own frame: +y ahead, +x to its right.
    let d = hit - o.state.pos;
    let (sin, cos) = o.state.yaw.sin_cos();
    let (right, ahead) = (d.x * cos + d.y * sin, -d.x * sin + d.y * cos);
    let side = if right < 0.0 { "left" } else { "right" };
    let text = if up >= head {
        let third = g.half_extents.x.max(0.01) / 3.0;
        let across = if right < -third {
            "left"
        } else if right > third {
            "right"
        } else {
            "middle"
        };
        let along = if ahead < -third {
            "back"
        } else if ahead > third {
            "front"
        } else {
            "middle"
        };
        format!("head {across}_{along}")
    } else {
        let region = if up >= torso { "torso" } else { "legs" };
        let face = if ahead < 0.0 { "back" } else { "front" };
        format!("{region} {face}_{side}")
    };
    Value::from(text)
}

/// What an object takes from its datablock `datablock`: damage and energy limits (full
/// energy), mass, movement, impact speed and box (a junk `boundingBox` is a warning).
pub(crate) fn read_datablock(c: &mut Console, obj: &mut GameObject, datablock: ObjectId) {
    obj.datablock = datablock;
    // A shot is a GameBase, not a ShapeBase (no damage, energy, mass or movement of its own,
    // `crate::projectiles` reads its flight), and one is made for every trigger pull.
    if obj.class != GameClass::Projectile {
        crate::damage::init(c, obj, datablock);
        let mass = c.get_field(datablock, "mass").to_f64() as f32;
        obj.mass = if mass.is_finite() { mass.max(0.001) } else { 9.0 };
        obj.tuning = crate::PlayerTuning::of_datablock(c, datablock);
        obj.min_impact = crate::classes::num_field(c, datablock, "minImpactSpeed").unwrap_or(25.0) as f32;
    }
    let id = obj.console;
    obj.half_extents =
        crate::placement::half_extents(c, obj.class, datablock).unwrap_or_else(|(default, junk)| {
            let name = c.class_name_of(id);
            c.warn(&format!(
                "{name} {id}: boundingBox \"{junk}\" is not \"x y z\" in metres; the default box"
            ));
            default
        });
}

/// Registers the methods.
pub(crate) fn register(con: &mut Console, shared: &Rc<RefCell<Shared>>) {
    let shape: &[(&str, u32, u32, &str, Method)] = &[
        ("setDataBlock", 3, 3, "setDataBlock(datablock) - of its class's kind", set_data_block),
        ("hide", 3, 3, "hide(bool) - setHidden", |c, _sh, a| {
            let Some(this) = a.this else { return Value::from(false) };
            c.call_method(&Value::from(this), "setHidden", &[a.get(1)])
        }),
        ("setEnergyPercentage", 3, 3, "setEnergyPercentage(0..1) - of maxEnergy", |c, sh, a| {
            let Some(scene) = scene_of(c, sh, a, "setEnergyPercentage") else { return Value::from(false) };
            let Some(p) = number_arg(c, a, 1, "setEnergyPercentage") else { return Value::from(false) };
            if let Some(g) = sh.borrow_mut().objects.get_mut(&scene) {
                g.energy = g.max_energy * p.clamp(0.0, 1.0);
            }
            Value::from(true)
        }),
        (
            "getSlotTransform",
            3,
            3,
            "getSlotTransform(slot) - the image slot's muzzle point and the object's heading",
            |c, sh, a| {
                let Some(scene) = scene_of(c, sh, a, "getSlotTransform") else { return Value::Empty };
                let Some(slot) = crate::weapons::slot_arg(c, a, 1, "getSlotTransform") else {
                    return Value::Empty;
                };
                let s = sh.borrow();
                let Some((p, _)) = crate::weapons::muzzle(&s, scene, slot) else { return Value::Empty };
                let yaw = s.world.as_ref().and_then(|w| w.get(scene)).map_or(0.0, |o| o.state.yaw);
                Value::from(format!("{} 0 0 1 {yaw}", vec_text(p)))
            },
        ),
    ];
    crate::handles::register_all(con, shared, "ShapeBase", shape);
    let item: &[(&str, u32, u32, &str, Method)] = &[
        (
            "setCollisionTimeout",
            3,
            3,
            "setCollisionTimeout(obj) - obj does not touch this item for 15 ticks",
            |c, sh, a| {
                let Some(scene) = scene_of(c, sh, a, "setCollisionTimeout") else {
                    return Value::from(false);
                };
                let Some(other) = c.find_object(&a.get(1)) else {
                    c.error(&format!("setCollisionTimeout: no object \"{}\"", a.str(1)));
                    return Value::from(false);
                };
                let mut s = sh.borrow_mut();
                let Some(&other) = s.by_console.get(&other) else { return Value::from(false) };
                let until = s.process.0.ticks() + COLLISION_TIMEOUT_TICKS;
                match s.objects.get_mut(&scene) {
                    Some(g) if g.class == GameClass::Item => {
                        g.collision_timeout = Some((other, until));
                        Value::from(true)
                    }
                    _ => Value::from(false),
                }
            },
        ),
        ("isStatic", 2, 2, "isStatic() - it stays where it is put", |c, sh, a| {
            let Some(scene) = scene_of(c, sh, a, "isStatic") else { return Value::from(false) };
            Value::from(sh.borrow().objects.get(&scene).is_some_and(|g| !g.falls))
        }),
    ];
    crate::handles::register_all(con, shared, "Item", item);
    crate::handles::register_all(
        con,
        shared,
        "Player",
        &[("getDamageLocation", 3, 3, "getDamageLocation(pos) - \"region quadrant\"", damage_location)],
    );
    // Every client of this engine is a real connection (its bots too).
    con.register_method(
        "GameConnection",
        "isAIControlled",
        2,
        2,
        "isAIControlled() - false: a player or a bot on its own connection",
        |_c, _a| Value::from(false),
    );
}
