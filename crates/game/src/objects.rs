//! The engine's game object classes, created from script as in V12: `new Player() {
//! dataBlock = LightMale; position = "0 0 10"; };` makes a ghosted scene object on the
//! server, and its methods (`getPosition`, `setTransform`, `applyDamage`, ...) act on it.
//!
//! Classes: `GameBase` (a scene object with a datablock) → `ShapeBase` (damage, hiding) →
//! `Player` (moved by its client's moves), `Item` (reported to players that touch it),
//! `StaticShape`; datablocks `GameBaseData` → `ShapeBaseData` → `PlayerData`, `ItemData`,
//! `StaticShapeData`. Callbacks go to the datablock's namespace, as in V12: `onAdd(%data,
//! %obj)`, `onRemove(%data, %obj)`, `onCollision(%data, %obj, %col)` (a player touching an
//! item, on the player's datablock), `onDamage(%data, %obj, %delta)`, `onDisabled(%data,
//! %obj, %state)`. `%client.setControlObject(%obj)` gives a client its player.
//!
//! A change made from script (a transform, a damage level, hiding) sets the scene object's
//! dirty mask, so it reaches the clients that have it in scope. The `position` field is what
//! the object was created with; `getPosition()` is where it is now.

use crate::HIDDEN;
use crate::WORLD_GRAVITY;
pub use crate::handles::parse_vec3;
use crate::handles::{register_all, scene_of};
use crate::state::{ClientGhostIndex, GameClass, GameObject, GhostState, Shared, TriggerVolume};
use glam::Vec3;
use std::cell::RefCell;
use std::rc::Rc;
use v12_console_vm::{CallArgs, Console, FieldType, ObjectId, Value};
use v12_sim::scene::{ControlState, MAX_SCRIPT_THREADS, SceneObject, ScriptThread};

/// V12's default trigger shape: a unit box from the origin along +X, -Y and +Z (scaled by the
/// object's `scale`).
pub const DEFAULT_POLYHEDRON: &str = "0 0 0 1 0 0 0 -1 0 0 0 1";

/// A transform `"x y z ax ay az angle"` as a position and a yaw (only the turn about Z counts:
/// the game's objects stand upright).
pub fn parse_transform(text: &str) -> (Vec3, f32) {
    let words: Vec<f32> = text
        .split_whitespace()
        .map(|s| s.parse::<f32>().ok().filter(|v| v.is_finite()).unwrap_or(0.0))
        .collect();
    let at = |i: usize| words.get(i).copied().unwrap_or(0.0);
    let pos = Vec3::new(at(0), at(1), at(2));
    let yaw = if at(5) < 0.0 { -at(6) } else { at(6) };
    (pos, if words.len() >= 7 { yaw } else { 0.0 })
}

/// Registers the classes, their fields and methods, and `GameConnection::setControlObject`.
pub(crate) fn register(con: &mut Console, shared: &Rc<RefCell<Shared>>) {
    shared.borrow_mut().names = Some(crate::state::CallbackNames::new(con));
    for (class, parent) in [
        ("GameBaseData", "SimDataBlock"),
        ("ShapeBaseData", "GameBaseData"),
        ("PlayerData", "ShapeBaseData"),
        ("ItemData", "ShapeBaseData"),
        ("StaticShapeData", "ShapeBaseData"),
        ("GameBase", "SceneObject"),
        ("ShapeBase", "GameBase"),
        ("Player", "ShapeBase"),
        ("Item", "ShapeBase"),
        ("StaticShape", "ShapeBase"),
        ("ProjectileData", "GameBaseData"),
        ("Projectile", "GameBase"),
        ("TriggerData", "GameBaseData"),
        ("Trigger", "GameBase"),
        ("CameraData", "GameBaseData"),
        ("Camera", "GameBase"),
    ] {
        let _ = con.register_class(class, parent);
    }
    con.add_field("GameBase", "dataBlock", FieldType::String, Value::Empty);
    con.add_field("ShapeBaseData", "maxDamage", FieldType::Float, Value::Float(100.0));
    con.add_field("ShapeBaseData", "mass", FieldType::Float, Value::Float(9.0));
    // How a Player runs and jumps (see `PlayerTuning`): unset keeps the game's 8 m/s.
    // Typed as the checked fields are, so an inspector edit is refused when junk.
    use crate::fields::{BIG, Kind, field_type};
    let speed = field_type(con, Kind::Num { min: 0.0, max: 1000.0, default: 8.0 });
    let force = field_type(con, Kind::Num { min: 0.0, max: BIG, default: 0.0 });
    let flag = field_type(con, Kind::Bool(true));
    con.add_field("PlayerData", "maxForwardSpeed", speed, Value::Empty);
    con.add_field("PlayerData", "jumpForce", force, Value::Empty);
    con.add_field("PlayerData", "playerCollisions", flag, Value::Empty);
    // Lifetime in ms (40 ticks by default); velocity at the muzzle (scripts use it).
    con.add_field("ProjectileData", "lifetime", FieldType::Float, Value::Float(1280.0));
    con.add_field("ProjectileData", "muzzleVelocity", FieldType::Float, Value::Float(25.0));
    // V12's ballistic projectiles: `isBallistic` makes it fall, at the world's gravity times
    // `gravityMod`.
    con.add_field("ProjectileData", "isBallistic", FieldType::Bool, Value::from(false));
    con.add_field("ProjectileData", "gravityMod", FieldType::Float, Value::Float(1.0));
    for field in ["initialPosition", "initialVelocity", "initialDirection", "sourceObject", "sourceSlot"] {
        con.add_field("Projectile", field, FieldType::String, Value::Empty);
    }
    // An Item is `static` (stays where it is put) unless told otherwise; `static = false`
    // makes it fall onto the ground.
    con.add_field("Item", "static", FieldType::Bool, Value::from(true));
    // V12's ItemData `rotate`: the item turns in place on clients (a pickup, not a flag).
    con.add_field("ItemData", "rotate", FieldType::Bool, Value::from(false));
    con.add_field("TriggerData", "tickPeriodMS", FieldType::Float, Value::Float(100.0));
    con.add_field("Trigger", "polyhedron", FieldType::String, Value::from(DEFAULT_POLYHEDRON));
    // Tribes 2's other engine classes, after their parents' fields (a class copies its
    // parent's fields when it is registered).
    crate::classes::register(con);
    con.set_preload(Box::new(crate::classes::preload));

    let sh = shared.clone();
    con.register_method("GameBase", "onAdd", 2, 2, "onAdd()", move |c, a| {
        if let Some(id) = a.this {
            on_add(c, &sh, id);
        }
        Value::Empty
    });
    let sh = shared.clone();
    con.register_method("GameBase", "onRemove", 2, 2, "onRemove()", move |c, a| {
        if let Some(id) = a.this {
            on_remove(c, &sh, id);
        }
        Value::Empty
    });
    register_transform_methods(con, shared);
    register_thread_methods(con, shared);
    register_shape_methods(con, shared);
    crate::damage::register(con, shared);
    crate::weapons::register(con, shared);
    crate::mount::register(con, shared);
    crate::vehicles::register(con, shared);
    crate::projectiles::register(con, shared);
    crate::turrets::register(con, shared);
    crate::sensors::register(con, shared);
    crate::shape_changes::register(con, shared);
    crate::shape_base::register(con, shared);
    crate::file_object::register(con);
    crate::material_map::register(con);
    // Tribes 2's scripts ask whether they run in its demo build (a smaller game): never here.
    con.register_function("isDemo", 1, 1, "isDemo() - false: this is no demo build", |_, _| false);
    crate::audio::register_net_methods(con, shared);
    register_trigger_methods(con, shared);
    register_camera_methods(con, shared);
    register_client_methods(con, shared);
    crate::owners::register_server_methods(con, shared);
    let sh = shared.clone();
    con.register_method(
        "GameConnection",
        "setControlObject",
        3,
        3,
        "setControlObject(obj) - the object this client's moves drive",
        move |c, a| {
            let Some(client) = a.this else { return false };
            let Some(obj) = c.find_object(&a.get(1)) else {
                c.error(&format!("setControlObject: no object {}", a.str(1)));
                return false;
            };
            let mut s = sh.borrow_mut();
            let Some(scene) = s.by_console.get(&obj).copied() else {
                drop(s);
                c.error(&format!("setControlObject: object {obj} is not a game object"));
                return false;
            };
            s.control.retain(|_, cl| *cl != client);
            s.control.insert(scene, client);
            s.control_dirty = true;
            true
        },
    );
    let sh = shared.clone();
    con.register_method("GameConnection", "getControlObject", 2, 2, "getControlObject()", move |c, a| {
        let Some(client) = a.this else { return Value::from(0) };
        if let Some(ix) = c.object_data::<ClientGhostIndex>(client) {
            return Value::from(ix.control.unwrap_or(0)); // a client's ServerConnection
        }
        let s = sh.borrow();
        let scene = s.control.iter().find(|(_, cl)| **cl == client).map(|(o, _)| *o);
        Value::from(scene.and_then(|o| s.objects.get(&o)).map_or(0, |g| g.console))
    });
}

/// Ghost indices on a connection, as V12's NetConnection: on a client's `ServerConnection`,
/// `resolveGhostID(index)` is the client's ghost object with that index; on the server's
/// connection to a client, `getGhostID(obj)` is the index the object has on that client
/// (-1 while it has none) and `resolveObjectFromGhostIndex(index)` the server object behind
/// an index the client names (0 for none).
fn register_client_methods(con: &mut Console, shared: &Rc<RefCell<Shared>>) {
    let sh = shared.clone();
    con.register_method(
        "GameConnection",
        "resolveGhostID",
        3,
        3,
        "resolveGhostID(ghostId) - the client's ghost object with that index, or 0",
        move |c, a| {
            let g = a.f64(1);
            if !(g >= 0.0 && g <= f64::from(u32::MAX)) {
                return Value::from(0);
            }
            if let Some(ix) = a.this.and_then(|id| c.object_data::<ClientGhostIndex>(id)) {
                return Value::from(ix.by_ghost.get(&(g as u32)).copied().unwrap_or(0));
            }
            Value::from(server_object_of_ghost(&sh, a.this, g as u32))
        },
    );
    let sh = shared.clone();
    con.register_method(
        "GameConnection",
        "resolveObjectFromGhostIndex",
        3,
        3,
        "resolveObjectFromGhostIndex(ghostId) - the server object behind a client's ghost index, or 0",
        move |_c, a| {
            let g = a.f64(1);
            if !(g >= 0.0 && g <= f64::from(u32::MAX)) {
                return Value::from(0);
            }
            Value::from(server_object_of_ghost(&sh, a.this, g as u32))
        },
    );
    let sh = shared.clone();
    con.register_method(
        "GameConnection",
        "getGhostID",
        3,
        3,
        "getGhostID(obj) - the object's ghost index on this client, or -1",
        move |c, a| {
            let obj = c.find_object(&a.get(1));
            let s = sh.borrow();
            let scene = obj.and_then(|o| s.by_console.get(&o).copied());
            let conn = a.this.and_then(|cl| s.client_conns.get(&cl).copied());
            let (Some(scene), Some(conn), Some(driver)) = (scene, conn, s.driver.as_ref()) else {
                return Value::from(-1);
            };
            let Ok(d) = driver.try_borrow() else { return Value::from(-1) };
            let id = d
                .interface
                .ghost_manager(conn)
                .and_then(|gm| gm.ghost_id_of(v12_netobject::ghost::ObjectId(scene)));
            Value::from(id.map_or(-1, i64::from))
        },
    );
}

/// The console id of the server object that has ghost index `ghost` on client `client`'s
/// connection, or 0.
fn server_object_of_ghost(sh: &Rc<RefCell<Shared>>, client: Option<ObjectId>, ghost: u32) -> u32 {
    let s = sh.borrow();
    let conn = client.and_then(|cl| s.client_conns.get(&cl).copied());
    let (Some(conn), Some(driver)) = (conn, s.driver.as_ref()) else { return 0 };
    let Ok(d) = driver.try_borrow() else { return 0 };
    let scene = d.interface.ghost_manager(conn).and_then(|gm| gm.object_of(ghost));
    scene.and_then(|o| s.objects.get(&o.0)).map_or(0, |g| g.console)
}

/// `GameBase::onAdd`: the datablock, the scene object (or, for a `Trigger`, the volume), then
/// `%data.onAdd(%obj)`. Without a datablock of the right kind, or without a running server,
/// the object is not added (`new` returns 0), with the reason on the console.
fn on_add(c: &mut Console, sh: &Rc<RefCell<Shared>>, id: ObjectId) {
    if c.object_data::<GhostState>(id).is_some() {
        return; // a client's ghost: the server's object lives on the server
    }
    let class_name = c.class_name_of(id);
    let Some((class, want)) = crate::classes::class_of(c, id) else {
        // GameBase or ShapeBase themselves: abstract, as in V12.
        c.error(&format!(
            "{class_name} {id}: abstract class; create a Player, Item, StaticShape, Projectile, Trigger or Camera"
        ));
        c.delete_object(id);
        return;
    };
    let db_name = c.get_field(id, "dataBlock");
    let datablock =
        c.find_object(&db_name).filter(|d| c.object(*d).is_some_and(|o| c.class_is(o.class, want)));
    let Some(datablock) = datablock else {
        c.error(&format!(
            "{class_name} {id}: no {want} datablock named \"{}\"; object not added",
            db_name.as_text()
        ));
        c.delete_object(id);
        return;
    };
    if sh.borrow().world.is_none() {
        c.error(&format!("{class_name} {id}: no server is running; object not added"));
        c.delete_object(id);
        return;
    }
    let field = |c: &Console, name: &str| c.get_field(id, name).as_text().into_owned();
    if class == GameClass::Trigger {
        let volume = TriggerVolume::new(
            datablock,
            parse_vec3(&field(c, "position")),
            &field(c, "scale"),
            &field(c, "polyhedron"),
            c.get_field(datablock, "tickPeriodMS").to_f64(),
        );
        sh.borrow_mut().triggers.insert(id, volume);
        c.call_method_if_exists(datablock, "onAdd", &[Value::from(id)]);
        return;
    }
    let mut obj = GameObject::new(id, class, datablock);
    crate::shape_changes::read_datablock(c, &mut obj, datablock);
    obj.falls = class == GameClass::Item && !c.get_field(id, "static").truthy();
    let mut o = SceneObject::new(datablock, parse_vec3(&field(c, "position")));
    // The `rotation` field is "ax ay az degrees", as the mission's objects read it.
    let (axis, angle) = v12_world::mission::rotation(&field(c, "rotation")).to_axis_angle();
    o.state.yaw = if axis.z < 0.0 { -angle } else { angle };
    o.health = 100;
    if class == GameClass::Projectile {
        // V12's projectile fields: where it starts, its velocity (or Tribes 2's direction,
        // at the datablock's `dryVelocity`), who fired it and from which image slot.
        o.state.pos = parse_vec3(&field(c, "initialPosition"));
        crate::projectiles::setup(c, &class_name, datablock, &mut obj.flight);
        let direction = field(c, "initialDirection");
        o.state.vel = if field(c, "initialVelocity").trim().is_empty() && !direction.trim().is_empty() {
            parse_vec3(&direction).normalize_or_zero() * crate::projectiles::launch_speed(c, datablock)
        } else {
            parse_vec3(&field(c, "initialVelocity"))
        };
        obj.flight.source_slot = (c.get_field(id, "sourceSlot").to_f64().clamp(0.0, 7.0)) as usize;
        o.state.yaw = (-o.state.vel.x).atan2(o.state.vel.y);
        let lifetime_ms = crate::classes::num_field(c, datablock, "lifetimeMS")
            .filter(|v| *v >= 0.0)
            .unwrap_or_else(|| c.get_field(datablock, "lifetime").to_f64())
            .clamp(0.0, 600_000.0);
        obj.ticks_left = (lifetime_ms / f64::from(v12_sim::process::TICK_MS)).ceil().max(1.0) as u32;
        let grenade = matches!(obj.flight.kind, crate::projectiles::FlightKind::Grenade { .. });
        if grenade || c.get_field(datablock, "isBallistic").truthy() {
            let modifier = c.get_field(datablock, "gravityMod").to_f64() as f32;
            obj.gravity =
                if modifier.is_finite() { WORLD_GRAVITY * modifier.clamp(-10.0, 10.0) } else { 0.0 };
        }
        let source = c.find_object(&c.get_field(id, "sourceObject"));
        obj.source = source.and_then(|s| sh.borrow().by_console.get(&s).copied());
        if let Some(src) = obj.source {
            // V12's `velInheritFactor`: the shot carries some of its firer's velocity.
            let inherit = crate::classes::num_field(c, datablock, "velInheritFactor").unwrap_or(1.0) as f32;
            let src_vel = sh.borrow().world.as_ref().and_then(|w| w.get(src)).map(|o| o.state.vel);
            if !field(c, "initialDirection").trim().is_empty()
                && field(c, "initialVelocity").trim().is_empty()
            {
                o.state.vel += src_vel.unwrap_or(Vec3::ZERO) * inherit;
            }
        }
    }
    if class == GameClass::Vehicle {
        obj.tuning = crate::vehicles::tuning(c, datablock);
    }
    let team = c.get_field(id, "team").to_f64();
    obj.team = (team.is_finite() && team >= 1.0).then_some(team as u32);
    obj.sensor_group = obj.team.unwrap_or(0).min(crate::sensors::MAX_SENSOR_GROUPS - 1);
    obj.sensor = crate::sensors::of_datablock(c, datablock, &format!("{class_name} {id}"));
    if class == GameClass::ForceField {
        obj.permeable = (
            crate::classes::bool_field(c, datablock, "teamPermiable"),
            crate::classes::bool_field(c, datablock, "otherPermiable"),
        );
    }
    {
        let mut s = sh.borrow_mut();
        let Some(world) = s.world.as_mut() else { return };
        let scene = world.add(o);
        s.by_console.insert(id, scene);
        s.objects.insert(scene, obj);
        s.process.0.add(scene);
        crate::placement::place_in(&mut s, scene);
    }
    c.call_method_if_exists(datablock, "onAdd", &[Value::from(id)]);
}

/// `GameBase::onRemove`: `%data.onRemove(%obj)`, then the scene object goes (its ghosts are
/// killed on every client), no client controls it and no trigger holds it any more.
fn on_remove(c: &mut Console, sh: &Rc<RefCell<Shared>>, id: ObjectId) {
    let scene = sh.borrow().by_console.get(&id).copied();
    let datablock = match scene {
        Some(scene) => sh.borrow().objects.get(&scene).map(|g| g.datablock),
        None => sh.borrow().triggers.get(&id).map(|t| t.datablock),
    };
    if let Some(d) = datablock {
        c.call_method_if_exists(d, "onRemove", &[Value::from(id)]);
    }
    if let Some(scene) = scene {
        crate::mount::object_removed(c, sh, scene);
    }
    let mut s = sh.borrow_mut();
    crate::placement::remove(&mut s, id);
    s.triggers.remove(&id);
    for t in s.triggers.values_mut() {
        t.inside.remove(&id);
    }
    let Some(scene) = scene else { return };
    s.by_console.remove(&id);
    s.objects.remove(&scene);
    s.process.0.remove(scene);
    crate::owners::object_removed(&mut s, scene);
    if s.control.remove(&scene).is_some() {
        s.control_dirty = true;
    }
    if let Some(w) = s.world.as_mut() {
        w.remove(scene);
    }
}

/// What the read-only methods report of an object: a client's ghost from its mirrored
/// [`GhostState`], a server object from the scene.
struct View {
    pos: Vec3,
    vel: Vec3,
    yaw: f32,
    datablock: ObjectId,
    hidden: bool,
}

fn view(c: &mut Console, sh: &Rc<RefCell<Shared>>, a: &CallArgs<'_>, method: &str) -> Option<View> {
    let id = a.this?;
    if let Some(g) = c.object_data::<GhostState>(id) {
        return Some(View { pos: g.pos, vel: g.vel, yaw: g.yaw, datablock: g.datablock, hidden: g.hidden });
    }
    let scene = scene_of(c, sh, a, method)?;
    let s = sh.borrow();
    let (o, g) = (s.world.as_ref()?.get(scene)?, s.objects.get(&scene)?);
    Some(View {
        pos: o.state.pos,
        vel: o.state.vel,
        yaw: o.state.yaw,
        datablock: g.datablock,
        hidden: o.flags & HIDDEN != 0,
    })
}

/// Changes the script thread in `slot` of object `o` (scene id) with `f`; false with a
/// console error for a slot out of 0..4.
fn edit_thread(
    c: &mut Console,
    sh: &Rc<RefCell<Shared>>,
    o: u32,
    slot: i32,
    method: &str,
    f: impl FnOnce(Option<ScriptThread>) -> Option<ScriptThread>,
) -> Value {
    let Some(slot) = usize::try_from(slot).ok().filter(|&s| s < MAX_SCRIPT_THREADS) else {
        c.error(&format!("{method}: thread slot {slot} is not 0 to {}", MAX_SCRIPT_THREADS - 1));
        return Value::from(false);
    };
    let mut shared = sh.borrow_mut();
    let Some(obj) = shared.world.as_mut().and_then(|w| w.get_mut(o)) else { return Value::from(false) };
    let next = f(obj.threads[slot].clone());
    Value::from(obj.set_thread(slot, next))
}

/// ShapeBase's animation threads, as V12's: `playThread(slot, sequence)`, `stopThread(slot)`,
/// `pauseThread(slot)`, `setThreadDir(slot, forward)`. The clients play them.
fn register_thread_methods(con: &mut Console, shared: &Rc<RefCell<Shared>>) {
    register_all(
        con,
        shared,
        "ShapeBase",
        &[
            (
                "playThread",
                3,
                4,
                "playThread(slot [, sequence]) - plays (or resumes) a sequence",
                |c, sh, a| {
                    let Some(o) = scene_of(c, sh, a, "playThread") else { return Value::from(false) };
                    let name = a.str(2).into_owned();
                    if a.len() > 2 && name.trim().is_empty() {
                        c.error("playThread: no sequence name");
                        return Value::from(false);
                    }
                    edit_thread(c, sh, o, a.i32(1), "playThread", |t| match (t, a.len() > 2) {
                        (_, true) => Some(ScriptThread { sequence: name, playing: true, forward: true }),
                        (Some(t), false) => Some(ScriptThread { playing: true, ..t }),
                        (None, false) => None,
                    })
                },
            ),
            ("stopThread", 3, 3, "stopThread(slot)", |c, sh, a| {
                let Some(o) = scene_of(c, sh, a, "stopThread") else { return Value::from(false) };
                edit_thread(c, sh, o, a.i32(1), "stopThread", |_| None)
            }),
            ("pauseThread", 3, 3, "pauseThread(slot)", |c, sh, a| {
                let Some(o) = scene_of(c, sh, a, "pauseThread") else { return Value::from(false) };
                edit_thread(c, sh, o, a.i32(1), "pauseThread", |t| {
                    t.map(|t| ScriptThread { playing: false, ..t })
                })
            }),
            ("setThreadDir", 4, 4, "setThreadDir(slot, forward)", |c, sh, a| {
                let Some(o) = scene_of(c, sh, a, "setThreadDir") else { return Value::from(false) };
                let forward = a.bool(2);
                edit_thread(c, sh, o, a.i32(1), "setThreadDir", |t| t.map(|t| ScriptThread { forward, ..t }))
            }),
        ],
    );
}

fn register_transform_methods(con: &mut Console, shared: &Rc<RefCell<Shared>>) {
    register_all(
        con,
        shared,
        "GameBase",
        &[
            ("getPosition", 2, 2, "getPosition() - \"x y z\"", |c, sh, a| {
                view(c, sh, a, "getPosition").map_or(Value::Empty, |v| crate::handles::vec_text(v.pos).into())
            }),
            ("getTransform", 2, 2, "getTransform() - \"x y z ax ay az angle\"", |c, sh, a| {
                view(c, sh, a, "getTransform").map_or(Value::Empty, |v| {
                    format!("{} 0 0 1 {}", crate::handles::vec_text(v.pos), v.yaw).into()
                })
            }),
            ("setTransform", 3, 3, "setTransform(\"x y z ax ay az angle\")", |c, sh, a| {
                let Some(o) = scene_of(c, sh, a, "setTransform") else { return Value::from(false) };
                let (pos, yaw) = parse_transform(&a.str(1));
                update_state(sh, o, |st| ControlState { pos, yaw, vel: Vec3::ZERO, grounded: false, ..*st });
                Value::from(true)
            }),
            ("getVelocity", 2, 2, "getVelocity() - \"x y z\"", |c, sh, a| {
                view(c, sh, a, "getVelocity").map_or(Value::Empty, |v| crate::handles::vec_text(v.vel).into())
            }),
            ("setVelocity", 3, 3, "setVelocity(\"x y z\")", |c, sh, a| {
                let Some(o) = scene_of(c, sh, a, "setVelocity") else { return Value::from(false) };
                let vel = parse_vec3(&a.str(1));
                update_state(sh, o, |st| ControlState { vel, ..*st });
                Value::from(true)
            }),
            (
                "applyImpulse",
                4,
                4,
                "applyImpulse(pos, \"x y z\") - velocity += impulse / mass",
                |c, sh, a| {
                    let Some(o) = scene_of(c, sh, a, "applyImpulse") else { return Value::from(false) };
                    let mass = sh.borrow().objects.get(&o).map_or(1.0, |g| g.mass);
                    let dv = parse_vec3(&a.str(2)) / mass;
                    update_state(sh, o, |st| ControlState { vel: st.vel + dv, ..*st });
                    Value::from(true)
                },
            ),
            ("getForwardVector", 2, 2, "getForwardVector() - the unit vector it faces", |c, sh, a| {
                let Some(v) = view(c, sh, a, "getForwardVector") else { return Value::Empty };
                let (s, co) = v.yaw.sin_cos();
                crate::handles::vec_text(Vec3::new(-s, co, 0.0)).into()
            }),
            ("setScopeAlways", 2, 2, "setScopeAlways() - every client has it, however far", |c, sh, a| {
                let Some(o) = scene_of(c, sh, a, "setScopeAlways") else { return Value::from(false) };
                Value::from(sh.borrow_mut().world.as_mut().is_some_and(|w| w.set_scope_always(o, true)))
            }),
            ("clearScopeAlways", 2, 2, "clearScopeAlways() - scoped by distance again", |c, sh, a| {
                let Some(o) = scene_of(c, sh, a, "clearScopeAlways") else { return Value::from(false) };
                Value::from(sh.borrow_mut().world.as_mut().is_some_and(|w| w.set_scope_always(o, false)))
            }),
            ("getDataBlock", 2, 2, "getDataBlock() - the datablock's id", |c, sh, a| {
                Value::from(view(c, sh, a, "getDataBlock").map_or(0, |v| v.datablock))
            }),
            (
                "getGhostID",
                2,
                2,
                "getGhostID() - a client's ghost: its index on the connection; else -1",
                |c, _sh, a| {
                    let ghost = a.this.and_then(|id| c.object_data::<GhostState>(id)).map(|g| g.ghost_id);
                    Value::from(ghost.map_or(-1, i64::from))
                },
            ),
            ("getType", 2, 2, "getType() - its $TypeMasks bits", |c, sh, a| {
                let Some(o) = scene_of(c, sh, a, "getType") else { return Value::from(0) };
                let mask = sh.borrow().objects.get(&o).map_or(0, crate::placement::type_mask);
                Value::from(i64::from(mask))
            }),
            (
                "getControllingClient",
                2,
                2,
                "getControllingClient() - the client controlling it, or 0",
                |c, sh, a| {
                    let Some(o) = scene_of(c, sh, a, "getControllingClient") else { return Value::from(0) };
                    Value::from(sh.borrow().control.get(&o).copied().unwrap_or(0))
                },
            ),
        ],
    );
}

fn register_shape_methods(con: &mut Console, shared: &Rc<RefCell<Shared>>) {
    register_all(
        con,
        shared,
        "ShapeBase",
        &[
            (
                "setHidden",
                3,
                3,
                "setHidden(bool) - a hidden object is not drawn and not touched",
                |c, sh, a| {
                    let Some(o) = scene_of(c, sh, a, "setHidden") else { return Value::from(false) };
                    let hide = a.bool(1);
                    let mut s = sh.borrow_mut();
                    let Some(g) = s.world.as_mut().and_then(|w| w.get_mut(o)) else {
                        return Value::from(false);
                    };
                    let flags = if hide { g.flags | HIDDEN } else { g.flags & !HIDDEN };
                    let h = g.health;
                    g.set_health_flags(h, flags);
                    crate::placement::place_in(&mut s, o);
                    Value::from(true)
                },
            ),
            ("isHidden", 2, 2, "isHidden()", |c, sh, a| {
                Value::from(view(c, sh, a, "isHidden").is_some_and(|v| v.hidden))
            }),
        ],
    );
}

fn register_trigger_methods(con: &mut Console, shared: &Rc<RefCell<Shared>>) {
    register_all(
        con,
        shared,
        "Trigger",
        &[
            ("getNumObjects", 2, 2, "getNumObjects() - how many objects are inside", |_c, sh, a| {
                let n = a.this.and_then(|t| sh.borrow().triggers.get(&t).map(|t| t.inside.len()));
                Value::from(n.unwrap_or(0) as i64)
            }),
            ("getObject", 3, 3, "getObject(i) - the i-th object inside (by id), or -1", |_c, sh, a| {
                let i = a.f64(1);
                let s = sh.borrow();
                let t = a.this.and_then(|t| s.triggers.get(&t));
                let found = t.filter(|_| i >= 0.0).and_then(|t| t.inside.iter().nth(i as usize).copied());
                Value::from(found.map_or(-1, i64::from))
            }),
        ],
    );
}

fn register_camera_methods(con: &mut Console, shared: &Rc<RefCell<Shared>>) {
    register_all(
        con,
        shared,
        "Camera",
        &[
            ("setFlyMode", 2, 2, "setFlyMode() - its client's moves fly it", |c, sh, a| {
                let Some(o) = scene_of(c, sh, a, "setFlyMode") else { return Value::from(false) };
                if let Some(g) = sh.borrow_mut().objects.get_mut(&o) {
                    g.orbit = None;
                }
                Value::from(true)
            }),
            (
                "setOrbitMode",
                4,
                8,
                "setOrbitMode(obj, transform, [minDist, maxDist, curDist]) - circle obj at curDist (its client turns it)",
                |c, sh, a| {
                    let Some(o) = scene_of(c, sh, a, "setOrbitMode") else { return Value::from(false) };
                    let target =
                        c.find_object(&a.get(1)).and_then(|t| sh.borrow().by_console.get(&t).copied());
                    let Some(target) = target else {
                        c.error(&format!("setOrbitMode: {} is not a game object", a.str(1)));
                        return Value::from(false);
                    };
                    let num = |i: usize, d: f64| if a.len() > i { a.f64(i) } else { d };
                    let (min, max) = (num(3, 1.0).max(0.0), num(4, 20.0));
                    let dist = num(5, 8.0).clamp(min, max.max(min)) as f32;
                    if let Some(g) = sh.borrow_mut().objects.get_mut(&o) {
                        g.orbit = Some((target, dist));
                    }
                    Value::from(true)
                },
            ),
        ],
    );
}

/// Changes a scene object's state from script: its dirty mask is set, a controlled object's
/// client gets the full state, and after the match (a frozen world) it settles on the grid.
fn update_state(sh: &Rc<RefCell<Shared>>, scene: u32, f: impl FnOnce(&ControlState) -> ControlState) {
    let mut s = sh.borrow_mut();
    let frozen = s.frozen;
    let Some(g) = s.world.as_mut().and_then(|w| w.get_mut(scene)) else { return };
    let st = f(&g.state);
    g.set_state(st);
    if frozen {
        g.settle();
    }
    if let Some(o) = s.objects.get_mut(&scene) {
        o.last_vel = st.vel;
    }
    s.moved.push(scene);
    // Its riders move with it now.
    crate::mount::follow_riders(&mut s, scene);
    crate::placement::place_in(&mut s, scene);
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn transforms_read_position_and_the_turn_about_z() {
        let (p, yaw) = parse_transform("1 2 3 0 0 1 0.5");
        assert_eq!(p, Vec3::new(1.0, 2.0, 3.0));
        assert!((yaw - 0.5).abs() < 1e-6);
        let (_, yaw) = parse_transform("0 0 0 0 0 -1 0.5");
        assert!((yaw + 0.5).abs() < 1e-6);
        assert_eq!(parse_transform("4 5"), (Vec3::new(4.0, 5.0, 0.0), 0.0));
        assert_eq!(parse_transform("junk nan inf"), (Vec3::ZERO, 0.0));
    }

    #[test]
    fn vectors_read_like_sscanf() {
        assert_eq!(parse_vec3("1 2 3"), Vec3::new(1.0, 2.0, 3.0));
        assert_eq!(parse_vec3("1 x"), Vec3::new(1.0, 0.0, 0.0));
        assert_eq!(parse_vec3(""), Vec3::ZERO);
    }

    #[test]
    fn health_follows_damage() {
        let mut g = GameObject::new(1, GameClass::Player, 2);
        assert_eq!((g.health(), g.state()), (100, "Enabled"));
        g.damage = 34.0;
        assert_eq!(g.health(), 66);
        g.damage = 100.0;
        g.damage_state = crate::damage::state_for(&g, g.damage);
        assert_eq!((g.health(), g.state()), (0, "Disabled"));
    }

    /// A console with the classes registered and a server world, its output captured.
    pub(crate) fn game_console() -> (Console, Rc<RefCell<Shared>>, v12_console_vm::BufferSink) {
        let mut con = Console::new();
        let out = v12_console_vm::BufferSink::new();
        con.set_output(Box::new(out.clone()));
        let _ = con.register_class("SceneObject", "SimObject");
        con.add_field("SceneObject", "position", FieldType::String, Value::Empty);
        con.add_field("SceneObject", "rotation", FieldType::String, Value::Empty);
        let _ = con.register_class("GameConnection", "SimObject");
        let shared = Rc::new(RefCell::new(Shared::default()));
        shared.borrow_mut().world = Some(v12_sim::scene::SceneWorld::new(60.0));
        let container = Rc::new(RefCell::new(v12_sim::container::ScriptContainer::default()));
        v12_sim::container::register_container_functions(&mut con, container.clone());
        shared.borrow_mut().container = Some(container);
        register(&mut con, &shared);
        con.eval(
            "datablock PlayerData(LightMale) { maxDamage = 100; mass = 90; };\n\
             datablock ItemData(Coin) { score = 1; };",
        )
        .unwrap();
        (con, shared, out)
    }

    pub(crate) fn eval(con: &mut Console, src: &str) -> String {
        con.eval(src).unwrap().as_text().into_owned()
    }

    /// Players walk at their datablock's speed, jump at jumpForce / mass, and stop against
    /// each other (the obstacles the server's tick walks them through).
    #[test]
    fn players_move_by_their_datablock_and_block_each_other() {
        use v12_sim::container::StaticGeometry;
        use v12_sim::moves::Move;
        use v12_sim::scene::ControlState;
        let (mut con, shared, _) = game_console();
        eval(
            &mut con,
            "datablock PlayerData(Scout) { mass = 50; maxForwardSpeed = 16; jumpForce = 500; };\n\
             $a = new Player() { dataBlock = Scout; position = \"0 0 0\"; };\n\
             $b = new Player() { dataBlock = LightMale; position = \"0 3 0\"; };",
        );
        let sh = shared.borrow();
        let scene = |v: &str| sh.by_console[&v.parse::<u32>().unwrap()];
        let (a, b) = (scene(&eval_ro(&mut con, "$a")), scene(&eval_ro(&mut con, "$b")));
        let scout = sh.objects[&a].tuning;
        assert_eq!(
            scout,
            // Swimming at half its running speed (no maxUnderwaterForwardSpeed).
            crate::PlayerTuning {
                max_speed: 16.0,
                jump_speed: 10.0,
                collide: true,
                swim_speed: 8.0,
                ..Default::default()
            }
        );
        assert_eq!(sh.objects[&b].tuning, crate::PlayerTuning::default(), "unset fields keep the defaults");
        let floor = floor();
        let obstacles = crate::server::player_obstacles(&sh, &floor, true);
        assert_eq!(obstacles.len(), 2);
        obstacles.set_exempt(Some(a));
        let m = crate::motion(Some(obstacles.clone() as Rc<dyn StaticGeometry>), scout);
        // Full forward (+y) for a second: A runs into B (3 m ahead) and stops touching it.
        let forward = Move::from_input(0.0, 1.0, 0.0, 0.0, 0.0, 0.0, [false; 6]);
        let mut st = ControlState { pos: Vec3::ZERO, ..Default::default() };
        for _ in 0..31 {
            st.apply_move(&forward, &m);
        }
        assert!(st.pos.y <= 3.0 - 0.8 && st.pos.y > 3.0 - 0.83, "stopped a skin short of B: {}", st.pos.y);
        // Without B in the way it would have run 16 m/s.
        obstacles.set_exempt(None);
        let open = crate::motion(Some(floor.clone()), scout);
        let mut free = ControlState { pos: Vec3::ZERO, ..Default::default() };
        free.apply_move(&forward, &open);
        assert!((free.pos.y - 16.0 * 0.032).abs() < 1e-4, "{}", free.pos.y);
        // A jump leaves the floor at jumpForce / mass.
        let jump = Move::from_input(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, [false, false, true, false, false, false]);
        let mut j = ControlState { pos: Vec3::ZERO, ..Default::default() };
        j.apply_move(&jump, &open);
        assert!((j.vel.z - (10.0 - 20.0 * 0.032)).abs() < 1e-4, "{}", j.vel.z);
    }

    /// A flat floor at z = 0.
    fn floor() -> Rc<dyn v12_sim::container::StaticGeometry> {
        #[derive(Debug)]
        struct Floor;
        impl v12_sim::container::StaticGeometry for Floor {
            fn cast_ray(&self, s: Vec3, e: Vec3) -> Option<(f32, Vec3)> {
                (s.z >= 0.0 && e.z < 0.0).then(|| (s.z / (s.z - e.z), Vec3::Z))
            }
            fn sweep_box(&self, c: Vec3, half: Vec3, d: Vec3) -> Option<(f32, Vec3)> {
                let bottom = c.z - half.z;
                (d.z < 0.0 && bottom >= -1e-4 && bottom + d.z < 0.0)
                    .then(|| ((bottom / -d.z).max(0.0), Vec3::Z))
            }
        }
        Rc::new(Floor)
    }

    /// A StaticShape blocks every player, one that does not collide with players too, at the
    /// box its datablock's `boundingBox` gives (a 1 m cube when unset or junk).
    #[test]
    fn static_shapes_block_players_at_their_bounding_box() {
        use v12_sim::moves::Move;
        use v12_sim::scene::ControlState;
        let (mut con, shared, out) = game_console();
        eval(
            &mut con,
            "datablock PlayerData(Ghostly) { playerCollisions = false; };\n\
             datablock StaticShapeData(Generator) { boundingBox = \"2 2 3\"; };\n\
             datablock StaticShapeData(Crate) { boundingBox = \"big\"; };\n\
             $p = new Player() { dataBlock = Ghostly; position = \"0 0 0\"; };\n\
             $other = new Player() { dataBlock = Ghostly; position = \"4 0 0\"; };\n\
             $gen = new StaticShape() { dataBlock = Generator; position = \"0 5 0\"; };\n\
             $crate = new StaticShape() { dataBlock = Crate; position = \"-5 0 0\"; };",
        );
        let sh = shared.borrow();
        let mut scene = |v: &str| sh.by_console[&eval_ro(&mut con, v).parse::<u32>().unwrap()];
        let (p, gen_id, crate_id) = (scene("$p"), scene("$gen"), scene("$crate"));
        assert_eq!(sh.objects[&gen_id].half_extents, Vec3::new(1.0, 1.0, 1.5));
        assert_eq!(sh.objects[&crate_id].half_extents, Vec3::splat(0.5), "junk: a 1 m cube");
        assert!(out.all().contains("boundingBox \"big\" is not \"x y z\""), "{}", out.all());
        let shapes = crate::server::player_obstacles(&sh, &floor(), false);
        assert_eq!(shapes.len(), 2, "the shapes, not the players");
        let tuning = sh.objects[&p].tuning;
        assert!(!tuning.collide);
        let m = crate::motion(Some(shapes as Rc<dyn v12_sim::container::StaticGeometry>), tuning);
        let run = |fx: f32, fy: f32| {
            let mv = Move::from_input(fx, fy, 0.0, 0.0, 0.0, 0.0, [false; 6]);
            let mut st = ControlState { pos: Vec3::ZERO, ..Default::default() };
            for _ in 0..60 {
                st.apply_move(&mv, &m);
            }
            st.pos
        };
        // North into the generator (its face at y = 4): stopped a player's half-width short.
        let north = run(0.0, 1.0);
        assert!(north.y < 4.0 - 0.34 && north.y > 4.0 - 0.45, "{north}");
        // East through where the other player stands: players do not block a Ghostly.
        assert!(run(1.0, 0.0).x > 6.0);
        // West into the crate (its face at x = -4.5).
        let west = run(-1.0, 0.0);
        assert!(west.x > -4.5 + 0.34 && west.x < -4.5 + 0.45, "{west}");
    }

    /// playThread, pauseThread, setThreadDir and stopThread set the object's script threads
    /// (what the clients play); a bad slot or no name is a console error.
    #[test]
    fn scripts_play_threads_on_shapes() {
        let (mut con, shared, out) = game_console();
        let p = eval(&mut con, "$p = new Player() { dataBlock = LightMale; }; return $p;");
        let scene = shared.borrow().by_console[&p.parse::<u32>().unwrap()];
        let thread =
            |slot: usize| shared.borrow().world.as_ref().unwrap().get(scene).unwrap().threads[slot].clone();
        assert_eq!(eval(&mut con, "return $p.playThread(0, \"run\");"), "1");
        assert_eq!(thread(0), Some(ScriptThread { sequence: "run".into(), playing: true, forward: true }));
        eval(&mut con, "$p.setThreadDir(0, false); $p.pauseThread(0);");
        assert_eq!(thread(0), Some(ScriptThread { sequence: "run".into(), playing: false, forward: false }));
        eval(&mut con, "$p.playThread(0);");
        assert!(thread(0).unwrap().playing, "playThread(slot) resumes");
        eval(&mut con, "$p.stopThread(0);");
        assert_eq!(thread(0), None);
        assert_eq!(eval(&mut con, "return $p.playThread(7, \"run\");"), "0");
        assert_eq!(eval(&mut con, "return $p.playThread(1, \"\");"), "0");
        let text = out.all();
        assert!(text.contains("playThread: thread slot 7 is not 0 to 3"), "{text}");
        assert!(text.contains("playThread: no sequence name"), "{text}");
    }

    fn eval_ro(con: &mut Console, var: &str) -> String {
        eval(con, &format!("return {var};"))
    }

    #[test]
    fn scripts_create_players_that_the_world_holds_and_move_them() {
        let (mut con, shared, _) = game_console();
        let p = eval(
            &mut con,
            "$p = new Player(Bob) { dataBlock = LightMale; position = \"1 2 3\"; }; return $p;",
        );
        let id: u32 = p.parse().unwrap();
        assert!(id > 0);
        assert_eq!(shared.borrow().world.as_ref().unwrap().len(), 1);
        assert_eq!(eval(&mut con, "return Bob.getPosition();"), "1 2 3");
        assert_eq!(eval(&mut con, "return $p.getDataBlock() == LightMale.getId();"), "1");
        assert_eq!(eval(&mut con, "return $p.getClassName();"), "Player");
        // The `rotation` field is in degrees, as the mission's objects read it.
        eval(&mut con, "$turned = new Player() { dataBlock = LightMale; rotation = \"0 0 1 90\"; };");
        let yaw: f32 = eval(&mut con, "return getWord($turned.getTransform(), 6);").parse().unwrap();
        assert!((yaw - std::f32::consts::FRAC_PI_2).abs() < 1e-5, "yaw {yaw}");
        eval(&mut con, "$turned.delete();");
        let scene = shared.borrow().by_console[&id];
        let version = {
            use v12_netobject::ghost::NetObject;
            shared.borrow().world.as_ref().unwrap().get(scene).unwrap().state_mask().version()
        };
        eval(&mut con, "$p.setTransform(\"4 5 6 0 0 1 1.5\");");
        assert_eq!(eval(&mut con, "return $p.getTransform();"), "4 5 6 0 0 1 1.5");
        eval(&mut con, "$p.setVelocity(\"1 0 0\"); $p.applyImpulse(\"0 0 0\", \"0 90 0\");");
        assert_eq!(eval(&mut con, "return $p.getVelocity();"), "1 1 0");
        // A script change marks the scene object dirty, so it reaches the clients.
        use v12_netobject::ghost::NetObject;
        let s = shared.borrow();
        let o = s.world.as_ref().unwrap().get(scene).unwrap();
        assert_ne!(o.state_mask().changed_since(version), 0, "the change is sent");
        assert!(s.moved.contains(&scene));
    }

    #[test]
    fn damage_calls_the_datablock_and_disables_at_the_maximum() {
        let (mut con, shared, out) = game_console();
        eval(
            &mut con,
            "function LightMale::onAdd(%data, %obj) { echo(\"added \" @ %obj.getClassName()); }\n\
             function LightMale::onDamage(%data, %obj, %d) { echo(\"damage \" @ %d); }\n\
             function LightMale::onDisabled(%data, %obj, %state) { echo(\"state \" @ %state); }\n\
             function LightMale::onEnabled(%data, %obj, %state) { echo(\"back \" @ %state); }\n\
             $p = new Player() { dataBlock = LightMale; };",
        );
        eval(&mut con, "$p.applyDamage(34); $p.applyDamage(34);");
        assert_eq!(eval(&mut con, "return $p.getState();"), "Enabled");
        eval(&mut con, "$p.applyDamage(50);");
        assert_eq!(eval(&mut con, "return $p.getState() SPC $p.getDamageLevel();"), "Disabled 100");
        let scene = shared.borrow().by_console[&eval(&mut con, "return $p;").parse::<u32>().unwrap()];
        assert_eq!(shared.borrow().world.as_ref().unwrap().get(scene).unwrap().health, 0);
        eval(&mut con, "$p.setDamageLevel(0);");
        assert_eq!(
            out.stdout(),
            // V12 passes the state left behind.
            "added Player\ndamage 34\ndamage 34\ndamage 32\nstate Enabled\ndamage -100\nback Disabled\n"
        );
        eval(&mut con, "$p.setHidden(1);");
        assert_eq!(eval(&mut con, "return $p.isHidden();"), "1");
    }

    #[test]
    fn control_objects_are_set_on_the_client_and_forgotten_on_delete() {
        let (mut con, shared, _) = game_console();
        eval(&mut con, "new GameConnection(C1); $p = new Player() { dataBlock = LightMale; };");
        assert_eq!(eval(&mut con, "return C1.setControlObject($p);"), "1");
        assert_eq!(eval(&mut con, "return C1.getControlObject() == $p;"), "1");
        assert_eq!(eval(&mut con, "return $p.getControllingClient() == C1.getId();"), "1");
        assert!(std::mem::take(&mut shared.borrow_mut().control_dirty));
        eval(&mut con, "$p.delete();");
        let s = shared.borrow();
        assert!(s.control.is_empty() && s.objects.is_empty() && s.by_console.is_empty());
        assert!(s.control_dirty, "the connection is told");
        assert_eq!(s.world.as_ref().unwrap().len(), 0, "the ghost goes");
    }

    #[test]
    fn bad_input_is_a_console_error_and_nothing_is_added() {
        let (mut con, shared, out) = game_console();
        assert_eq!(eval(&mut con, "return new Player() { dataBlock = Nope; };"), "0");
        assert!(out.stderr().contains("no PlayerData datablock named \"Nope\""), "{}", out.stderr());
        // The wrong kind of datablock.
        assert_eq!(eval(&mut con, "return new Player() { dataBlock = Coin; };"), "0");
        assert_eq!(eval(&mut con, "return new ShapeBase() { dataBlock = LightMale; };"), "0");
        assert_eq!(shared.borrow().world.as_ref().unwrap().len(), 0);
        // Junk fields read as V12's sscanf reads them.
        eval(&mut con, "$i = new Item() { dataBlock = Coin; position = \"x 2 junk\"; };");
        assert_eq!(eval(&mut con, "return $i.getPosition();"), "0 2 0");
        eval(&mut con, "$i.setTransform(\"nan\"); $i.applyDamage(\"abc\");");
        // A method on a deleted object.
        eval(&mut con, "$i.delete(); $i.getPosition(); C9.setControlObject($i);");
        // With no server the object is refused.
        shared.borrow_mut().world = None;
        assert_eq!(eval(&mut con, "return new Item() { dataBlock = Coin; };"), "0");
        assert!(out.stderr().contains("no server is running"));
    }

    /// Runs `ticks` world ticks (no clients) over an empty mission's ground, with callbacks.
    pub(crate) fn run_ticks(con: &mut Console, shared: &Rc<RefCell<Shared>>, ticks: u32) {
        run_ticks_on(con, shared, ticks, None);
    }

    /// [`run_ticks`] over a flat terrain at `height`, or nothing.
    pub(crate) fn run_ticks_on(
        con: &mut Console,
        shared: &Rc<RefCell<Shared>>,
        ticks: u32,
        height: Option<f32>,
    ) {
        let res = Rc::new(v12_resource::ResourceManager::new());
        let container = shared.borrow().container.clone().unwrap();
        let world = v12_world::MissionWorld::new(res, container.clone());
        if let Some(h) = height {
            let block = Rc::new(v12_world::TerrainBlock::flat(8.0, h));
            world.borrow_mut().terrains.insert(1, block.clone());
            v12_world::add_terrain_to_container(&mut container.borrow_mut().container, 1, block);
        }
        let ground = v12_world::MissionWorld::ground(&world);
        for _ in 0..ticks {
            let mut events = Vec::new();
            crate::server::world_tick(&mut shared.borrow_mut(), &ground, &mut events);
            crate::server::run_game_events(con, shared, &events);
        }
    }

    #[test]
    fn projectiles_fly_hit_players_other_than_their_source_and_are_deleted() {
        let (mut con, shared, out) = game_console();
        eval(
            &mut con,
            "datablock ProjectileData(Ball) { lifetime = 320; };\n\
             function Ball::onCollision(%data, %proj, %col, %fade, %pos) { echo(\"hit \" @ (%col == $target) @ \" from \" @ (%proj.sourceObject == $shooter)); }\n\
             function Ball::onExplode(%data, %proj, %pos) { echo(\"explode\"); }\n\
             $shooter = new Player() { dataBlock = LightMale; position = \"0 0 0\"; };\n\
             $target = new Player() { dataBlock = LightMale; position = \"0 5 0\"; };\n\
             $ball = new Projectile() { dataBlock = Ball; initialPosition = \"0 0.5 0\"; initialVelocity = \"0 25 0\"; sourceObject = $shooter; };",
        );
        assert_eq!(shared.borrow().world.as_ref().unwrap().len(), 3);
        run_ticks(&mut con, &shared, 8);
        assert_eq!(out.stdout(), "hit 1 from 1\nexplode\n");
        assert_eq!(eval(&mut con, "return isObject($ball);"), "0", "deleted after its callbacks");
        assert_eq!(shared.borrow().world.as_ref().unwrap().len(), 2);
        // A shot at nobody expires after its lifetime (320 ms: 10 ticks).
        out.clear();
        eval(
            &mut con,
            "$ball = new Projectile() { dataBlock = Ball; initialPosition = \"0 0 0\"; initialVelocity = \"1 0 0\"; sourceObject = $shooter; };",
        );
        run_ticks(&mut con, &shared, 9);
        assert_eq!(eval(&mut con, "return isObject($ball);"), "1");
        run_ticks(&mut con, &shared, 1);
        assert_eq!(out.stdout(), "explode\n");
        assert_eq!(eval(&mut con, "return isObject($ball);"), "0");
    }

    /// A pond for the water tests (`crate::liquid`): a 100 m block whose surface is at 5 m,
    /// wet everywhere over flat ground at 0.
    fn pond(liquid: &str) -> crate::liquid::ServerWater {
        let block = v12_world::WaterBlock {
            scale: glam::Vec3::new(100.0, 100.0, 5.0),
            flood_fill: false,
            liquid_type: liquid.into(),
            ..v12_world::WaterBlock::default()
        };
        let profile = crate::liquid::LiquidProfile::of(liquid, None, None);
        crate::liquid::ServerWater::from_blocks(&[(block, profile)], |_, _| 0.0)
    }

    /// Through the server's tick: a shot with no `wetVelocity` ends (explodes) where it meets
    /// the pond's surface; one with `wetVelocity = 10` goes on under water at 10 m/s.
    #[test]
    fn shots_meet_the_water_in_the_servers_tick() {
        let (mut con, shared, out) = game_console();
        eval(
            &mut con,
            "datablock LinearProjectileData(Dart) { lifetime = 3000; dryVelocity = 40; };\n\
             datablock LinearProjectileData(Swim) { lifetime = 3000; dryVelocity = 40; wetVelocity = 10; };\n\
             function Dart::onExplode(%data, %proj, %pos) { echo(\"explode \" @ %pos); }\n\
             $a = new Projectile() { dataBlock = Dart; initialPosition = \"50 50 8\"; initialVelocity = \"0 0 -40\"; };\n\
             $b = new Projectile() { dataBlock = Swim; initialPosition = \"56 50 8\"; initialVelocity = \"0 0 -40\"; };",
        );
        shared.borrow_mut().water = std::rc::Rc::new(pond("Water"));
        run_ticks(&mut con, &shared, 6);
        let said = out.stdout();
        let z: f32 = said.trim().rsplit(' ').next().unwrap().parse().unwrap();
        assert!(said.starts_with("explode 50 50 ") && (z - 5.0).abs() < 0.01, "{said}");
        let bz: f32 = eval(&mut con, "return getWord($b.getPosition(), 2);").parse().unwrap();
        // Dry all the way it would be at 8 - 6 × 1.28 = 0.32 m; at 10 m/s under water it is
        // still above 4 m.
        assert!(bz > 4.0 && bz < 5.0, "{bz}");
    }

    /// Through the server's tick: an image whose muzzle is under the pond goes wet
    /// (`stateTransitionOnWet`), and dry again (`stateTransitionOnNotWet`) once its holder
    /// stands far from all water.
    #[test]
    fn images_go_wet_under_water_and_dry_far_from_it() {
        let (mut con, shared, _) = game_console();
        eval(
            &mut con,
            "datablock ShapeBaseImageData(Gun) {\n\
               stateName[0] = \"Dry\"; stateTransitionOnWet[0] = \"Wet\";\n\
               stateName[1] = \"Wet\"; stateTransitionOnNotWet[1] = \"Dry\"; };\n\
             $p = new Player() { dataBlock = LightMale; position = \"50 50 0\"; };\n\
             $p.mountImage(Gun, 0);",
        );
        shared.borrow_mut().water = std::rc::Rc::new(pond("Water"));
        run_ticks(&mut con, &shared, 2);
        assert_eq!(eval(&mut con, "return $p.getImageState(0);"), "Wet");
        eval(&mut con, "$p.setTransform(\"400 400 0 0 0 1 0\");");
        run_ticks(&mut con, &shared, 2);
        assert_eq!(eval(&mut con, "return $p.getImageState(0);"), "Dry");
    }

    /// Lava burns a player standing in it (a quarter of its maxDamage a second), not one
    /// beside it; water burns nobody.
    #[test]
    fn lava_burns_the_players_standing_in_it() {
        let (mut con, shared, _) = game_console();
        eval(
            &mut con,
            "$in = new Player() { dataBlock = LightMale; position = \"50 50 0\"; };\n\
             $out = new Player() { dataBlock = LightMale; position = \"150 50 0\"; };",
        );
        shared.borrow_mut().water = std::rc::Rc::new(pond("Lava"));
        for _ in 0..31 {
            crate::damage::burn_in_lava(&mut shared.borrow_mut());
            run_ticks_on(&mut con, &shared, 1, Some(0.0));
        }
        let level = |con: &mut Console, v: &str| -> f32 {
            eval(con, &format!("return {v}.getDamageLevel();")).parse().unwrap()
        };
        let burnt = level(&mut con, "$in");
        // 31 ticks of 32 ms ≈ 1 s at 25 % of maxDamage (100) a second.
        assert!((burnt - 24.8).abs() < 0.5, "{burnt}");
        assert_eq!(level(&mut con, "$out"), 0.0);
        shared.borrow_mut().water = std::rc::Rc::new(pond("Water"));
        crate::damage::burn_in_lava(&mut shared.borrow_mut());
        run_ticks_on(&mut con, &shared, 1, Some(0.0));
        assert_eq!(level(&mut con, "$in"), burnt);
    }

    /// A ballistic shot (`isBallistic`, `gravityMod`) falls; a plain one flies straight.
    #[test]
    fn ballistic_projectiles_fall_by_their_gravity_mod() {
        let (mut con, shared, _) = game_console();
        eval(
            &mut con,
            "datablock ProjectileData(Mortar) { lifetime = 3000; isBallistic = true; gravityMod = 0.5; };\n\
             datablock ProjectileData(Dart) { lifetime = 3000; };\n\
             $m = new Projectile() { dataBlock = Mortar; initialPosition = \"0 0 50\"; initialVelocity = \"10 0 0\"; };\n\
             $d = new Projectile() { dataBlock = Dart; initialPosition = \"0 5 50\"; initialVelocity = \"10 0 0\"; };",
        );
        run_ticks(&mut con, &shared, 25);
        let z = |con: &mut Console, v: &str| -> f32 {
            eval(con, &format!("return getWord({v}.getPosition(), 2);")).parse().unwrap()
        };
        let x = |con: &mut Console, v: &str| -> f32 {
            eval(con, &format!("return getWord({v}.getPosition(), 0);")).parse().unwrap()
        };
        // 25 ticks of 32 ms at 10 m/s²: about half g t², a little more for the steps.
        let t = 25.0 * 0.032;
        let fall = 50.0 - z(&mut con, "$m");
        assert!((fall - 0.5 * 10.0 * t * t).abs() < 0.2, "fell {fall}");
        assert!((x(&mut con, "$m") - 10.0 * t).abs() < 1e-3);
        assert_eq!(z(&mut con, "$d"), 50.0, "a plain shot flies straight");
    }

    #[test]
    fn triggers_report_what_enters_ticks_and_leaves() {
        let (mut con, shared, out) = game_console();
        con.add_field("SceneObject", "scale", FieldType::String, Value::Empty);
        eval(
            &mut con,
            "datablock TriggerData(Zone) { tickPeriodMS = 64; };\n\
             function Zone::onEnterTrigger(%data, %trig, %obj) { echo(\"enter \" @ (%obj == $p) @ \" \" @ %trig.getNumObjects()); }\n\
             function Zone::onLeaveTrigger(%data, %trig, %obj) { echo(\"leave \" @ (%obj == $p)); }\n\
             function Zone::onTickTrigger(%data, %trig) { echo(\"tick \" @ (%trig.getObject(0) == $p)); }\n\
             $t = new Trigger() { dataBlock = Zone; position = \"10 10 0\"; scale = \"4 4 4\"; polyhedron = \"0 0 0 1 0 0 0 -1 0 0 0 1\"; };\n\
             $p = new Player() { dataBlock = LightMale; position = \"0 0 0\"; };",
        );
        assert_eq!(shared.borrow().world.as_ref().unwrap().len(), 1, "a trigger is not a scene object");
        run_ticks(&mut con, &shared, 1);
        assert_eq!(out.stdout(), "");
        eval(&mut con, "$p.setTransform(\"12 8 1\");");
        run_ticks(&mut con, &shared, 2);
        assert_eq!(out.stdout(), "enter 1 1\ntick 1\n");
        out.clear();
        eval(&mut con, "$p.setTransform(\"30 30 0\");");
        run_ticks(&mut con, &shared, 2);
        assert_eq!(out.stdout(), "leave 1\n");
        // Deleted inside: no leave for an object that is gone, and the trigger forgets it.
        out.clear();
        eval(&mut con, "$p.setTransform(\"12 8 1\");");
        run_ticks(&mut con, &shared, 1);
        eval(&mut con, "$p.delete();");
        run_ticks(&mut con, &shared, 3);
        assert_eq!(out.stdout(), "enter 1 1\n");
        assert_eq!(eval(&mut con, "return $t.getNumObjects() SPC $t.getObject(0);"), "0 -1");
    }

    #[test]
    fn trigger_boxes_follow_the_polyhedron_scale_and_position() {
        let t = TriggerVolume::new(1, Vec3::new(10.0, 10.0, 0.0), "4 4 4", DEFAULT_POLYHEDRON, 100.0);
        assert_eq!((t.min, t.max), (Vec3::new(10.0, 6.0, 0.0), Vec3::new(14.0, 10.0, 4.0)));
        assert!(t.contains(Vec3::new(12.0, 8.0, 1.0)) && !t.contains(Vec3::new(9.0, 8.0, 1.0)));
        // Junk reads as the default unit box.
        let j = TriggerVolume::new(1, Vec3::ZERO, "x", "1 2", f64::NAN);
        assert_eq!((j.min, j.max), (Vec3::new(0.0, -1.0, 0.0), Vec3::new(1.0, 0.0, 1.0)));
    }

    #[test]
    fn cameras_fly_under_moves_and_orbit_their_object() {
        let (mut con, shared, _) = game_console();
        eval(
            &mut con,
            "datablock CameraData(Observer) {};\n\
             $p = new Player() { dataBlock = LightMale; position = \"10 0 0\"; };\n\
             $c = new Camera() { dataBlock = Observer; position = \"0 0 5\"; };",
        );
        assert_eq!(eval(&mut con, "return $c.getClassName() SPC isObject($c);"), "Camera 1");
        // Free flight: up and forward, no gravity, no ground.
        let mut st = ControlState { pos: Vec3::new(0.0, 0.0, 5.0), ..ControlState::default() };
        let up = v12_sim::moves::Move::from_input(0.0, 1.0, 1.0, 0.0, 0.0, 0.0, [false; 6]);
        for _ in 0..10 {
            st.apply_move(&up, &crate::camera_motion());
        }
        assert!(st.pos.z > 5.0 + 5.0 && st.pos.y > 5.0, "{st:?}");
        // Orbit: 8 m behind the player, 1.5 m up, facing it (yaw 0 looks down +Y).
        assert_eq!(eval(&mut con, "return $c.setOrbitMode($p, \"\", 2, 20, 8);"), "1");
        run_ticks(&mut con, &shared, 1);
        assert_eq!(eval(&mut con, "return $c.getPosition();"), "10 -8 1.5");
        eval(&mut con, "$p.setTransform(\"20 0 0\");");
        run_ticks(&mut con, &shared, 1);
        assert_eq!(eval(&mut con, "return $c.getPosition();"), "20 -8 1.5");
        eval(&mut con, "$c.setFlyMode(); $p.setTransform(\"30 0 0\");");
        run_ticks(&mut con, &shared, 1);
        assert_eq!(eval(&mut con, "return $c.getPosition();"), "20 -8 1.5", "flying: it stays");
        assert_eq!(eval(&mut con, "return $c.setOrbitMode(Nothing, \"\");"), "0");
    }

    #[test]
    fn items_stay_put_unless_not_static_then_fall_and_rest() {
        use v12_netobject::ghost::NetObject;
        let (mut con, shared, _) = game_console();
        eval(
            &mut con,
            "$stays = new Item() { dataBlock = Coin; position = \"0 0 10\"; };\n\
             $falls = new Item() { dataBlock = Coin; position = \"4 0 10\"; static = false; };",
        );
        run_ticks_on(&mut con, &shared, 100, Some(2.0));
        assert_eq!(eval(&mut con, "return $stays.getPosition();"), "0 0 10");
        let z: f32 = eval(&mut con, "return getWord($falls.getPosition(), 2);").parse().unwrap();
        assert!((2.0..2.1).contains(&z), "rests on the ground at 2 m: {z}");
        // At rest it changes nothing, so nothing is sent.
        let scene = shared.borrow().by_console[&eval(&mut con, "return $falls;").parse::<u32>().unwrap()];
        let version = shared.borrow().world.as_ref().unwrap().get(scene).unwrap().state_mask().version();
        run_ticks_on(&mut con, &shared, 30, Some(2.0));
        assert_eq!(
            shared.borrow().world.as_ref().unwrap().get(scene).unwrap().state_mask().version(),
            version
        );
    }
}
