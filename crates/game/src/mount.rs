//! Mounting, as V12's ShapeBase: `%vehicle.mountObject(%obj, %node)` seats `%obj` at one of
//! the mount's nodes, where it rides (its position and heading follow the mount's every
//! tick); `unmountObject(%obj)`, `unmount()`, `getObjectMount()`, `getMountNodeObject(%node)`,
//! `getMountedObjectCount()`, `getMountedObject(%i)`, `getMountedObjectNode(%i)`,
//! `isMounted()`; `%data.onMount(%obj, %mount, %node)` and `onUnmount` on the rider's
//! datablock. Mounting an object on itself, or on something mounted on it, is refused.
//!
//! Nodes: a shape's `mount0` … `mount31`. Shapes are not loaded on the server, so a node's
//! place comes from its datablock's `mountPoint<N>` field ("x y z" from the shape's origin,
//! turned with it) when set, else a default: node 0 at the top of the box's front half
//! (the pilot's seat), each later node a metre further back.
//!
//! `%obj.setControlObject(%vehicle)` (V12's ShapeBase control object) hands what the
//! object's client sends to the vehicle: its moves drive it and it is the client's predicted
//! object. A rider seated at node 0 of a vehicle drives it without being told.

use crate::state::{GameClass, Shared};
use glam::Vec3;
use std::cell::RefCell;
use std::rc::Rc;
use v12_console_vm::{CallArgs, Console, Value};
use v12_netobject::ghost::ObjectId;
use v12_sim::scene::{ControlState, Mount};

/// The highest mount node (V12's `ShapeBaseData::NumMountPoints` is 32).
pub const MAX_NODE: u32 = 31;

/// Why a mount is refused.
fn refusal(s: &Shared, mount: u32, rider: u32) -> Option<&'static str> {
    if mount == rider {
        return Some("an object cannot be mounted on itself");
    }
    // Walk up from the mount: the rider must not be one of its mounts (a cycle).
    let mut at = Some(mount);
    for _ in 0..64 {
        let m = at?;
        if m == rider {
            return Some("the object carries the mount (a cycle)");
        }
        at = s.objects.get(&m).and_then(|g| g.mount).map(|(p, _)| p);
    }
    Some("the mounts are nested too deep")
}

/// Where node `node` of `mount` is, from the mount's feet, unturned.
pub(crate) fn node_offset(con: &Console, s: &Shared, mount: u32, node: u32) -> Vec3 {
    let Some(g) = s.objects.get(&mount) else { return Vec3::ZERO };
    let field = con.get_field(g.datablock, &format!("mountPoint{node}"));
    let text = field.as_text();
    if !text.trim().is_empty() {
        return crate::handles::parse_vec3(&text);
    }
    let h = g.half_extents;
    Vec3::new(0.0, h.y * 0.5 - node as f32, h.z * 2.0)
}

/// Seats `rider` on `mount` at `node` (scene ids), unseating it from wherever it was.
pub(crate) fn mount(
    c: &mut Console,
    sh: &Rc<RefCell<Shared>>,
    mount: u32,
    rider: u32,
    node: u32,
) -> Result<(), String> {
    if let Some(why) = refusal(&sh.borrow(), mount, rider) {
        return Err(why.to_string());
    }
    if node > MAX_NODE {
        return Err(format!("node {node} is not 0 to {MAX_NODE}"));
    }
    if sh
        .borrow()
        .objects
        .get(&mount)
        .is_some_and(|g| g.mounted.iter().any(|(r, n)| *n == node && *r != rider))
    {
        return Err(format!("node {node} is taken"));
    }
    unmount(c, sh, rider);
    let offset = node_offset(c, &sh.borrow(), mount, node);
    let (data, rider_console, mount_console) = {
        let mut s = sh.borrow_mut();
        let Some(m) = s.objects.get_mut(&mount) else { return Err("no mount".into()) };
        m.mounted.push((rider, node));
        let (mount_console, is_vehicle) = (m.console, m.class == GameClass::Vehicle);
        let Some(r) = s.objects.get_mut(&rider) else { return Err("no rider".into()) };
        r.mount = Some((mount, node));
        r.mount_offset = offset;
        if is_vehicle && node == 0 {
            r.drives = Some(mount);
            s.control_dirty = true;
        }
        seat_ghost(&mut s, rider, Some((mount, node)));
        // The rider ticks after its mount (V12's `processAfter`); `refusal` ruled out cycles.
        if let Err(e) = s.process.0.process_after(rider, mount) {
            tracing::warn!("mount: {e}");
        }
        let r = &s.objects[&rider];
        (r.datablock, r.console, mount_console)
    };
    follow_one(&mut sh.borrow_mut(), rider);
    c.call_method_if_exists(
        data,
        "onMount",
        &[Value::from(rider_console), Value::from(mount_console), Value::from(node)],
    );
    Ok(())
}

/// The rider's scene object rides `mount` (scene ids) too: its ghost names the mount and is
/// ghosted after it (`NetObject::dependencies`, the owned-object model's rule).
fn seat_ghost(s: &mut Shared, rider: u32, mount: Option<(u32, u32)>) {
    if let Some(w) = s.world.as_mut() {
        w.set_mount(rider, mount.map(|(m, node)| Mount { object: ObjectId(m), node }));
    }
}

/// Unseats `rider` (scene id) if it rides anything; calls `onUnmount`. True when it did.
pub(crate) fn unmount(c: &mut Console, sh: &Rc<RefCell<Shared>>, rider: u32) -> bool {
    let (data, rider_console, mount_console, node) = {
        let mut s = sh.borrow_mut();
        let Some((mount, node)) = s.objects.get_mut(&rider).and_then(|g| g.mount.take()) else {
            return false;
        };
        seat_ghost(&mut s, rider, None);
        s.process.0.clear_process_after(rider);
        if let Some(g) = s.objects.get_mut(&rider)
            && g.drives == Some(mount)
        {
            g.drives = None;
            s.control_dirty = true;
        }
        let mount_console = match s.objects.get_mut(&mount) {
            Some(m) => {
                m.mounted.retain(|(r, _)| *r != rider);
                m.console
            }
            None => 0,
        };
        let r = &s.objects[&rider];
        (r.datablock, r.console, mount_console, node)
    };
    c.call_method_if_exists(
        data,
        "onUnmount",
        &[Value::from(rider_console), Value::from(mount_console), Value::from(node)],
    );
    true
}

/// An object is going: everything it carries gets off, and it gets off what carries it.
pub(crate) fn object_removed(c: &mut Console, sh: &Rc<RefCell<Shared>>, scene: u32) {
    let riders: Vec<u32> = sh
        .borrow()
        .objects
        .get(&scene)
        .map(|g| g.mounted.iter().map(|(r, _)| *r).collect())
        .unwrap_or_default();
    for r in riders {
        unmount(c, sh, r);
    }
    unmount(c, sh, scene);
    let mut s = sh.borrow_mut();
    for g in s.objects.values_mut() {
        if g.drives == Some(scene) {
            g.drives = None;
        }
    }
}

/// A rider to its seat: the mount's position plus the node turned with the mount, the
/// mount's heading and velocity. The process list ticks riders after their mounts, so the
/// seat is where the mount stands after this tick.
pub(crate) fn follow_one(s: &mut Shared, rider: u32) {
    let Some((mount, offset)) = s.objects.get(&rider).and_then(|g| Some((g.mount?.0, g.mount_offset))) else {
        return;
    };
    let Some(world) = s.world.as_mut() else { return };
    let Some(m) = world.get(mount).map(|o| o.state) else { return };
    let (sin, cos) = m.yaw.sin_cos();
    let turned = Vec3::new(offset.x * cos - offset.y * sin, offset.x * sin + offset.y * cos, offset.z);
    let Some(o) = world.get_mut(rider) else { return };
    let seat = ControlState { pos: m.pos + turned, vel: m.vel, yaw: m.yaw, ..o.state };
    if o.state != seat {
        o.set_state(seat);
    }
}

/// Everything `mount` carries, and what that carries, to its seat (after a script moved it).
pub(crate) fn follow_riders(s: &mut Shared, mount: u32) {
    let mut stack = vec![mount];
    let mut seated = 0;
    while let Some(m) = stack.pop() {
        let riders: Vec<u32> =
            s.objects.get(&m).map(|g| g.mounted.iter().map(|(r, _)| *r).collect()).unwrap_or_default();
        for r in riders {
            follow_one(s, r);
            stack.push(r);
        }
        // Mounting refuses cycles; the cap is a second guard.
        seated += 1;
        if seated > 4096 {
            break;
        }
    }
}

/// The scene id of the game object named by argument `i`, or a console error.
fn object_arg(
    c: &mut Console,
    sh: &Rc<RefCell<Shared>>,
    a: &CallArgs<'_>,
    i: usize,
    method: &str,
) -> Option<u32> {
    let found = c.find_object(&a.get(i)).and_then(|id| sh.borrow().by_console.get(&id).copied());
    if found.is_none() {
        c.error(&format!("{method}: \"{}\" is not a game object", a.str(i)));
    }
    found
}

/// The console id of a scene object.
fn console_of(sh: &Rc<RefCell<Shared>>, scene: u32) -> u32 {
    sh.borrow().objects.get(&scene).map_or(0, |g| g.console)
}

pub(crate) fn register(con: &mut Console, shared: &Rc<RefCell<Shared>>) {
    let methods: &[(&str, u32, u32, &str, crate::handles::Method)] = &[
        ("mountObject", 4, 4, "mountObject(obj, node) - seats obj at this shape's mount node", |c, sh, a| {
            let Some(m) = crate::handles::scene_of(c, sh, a, "mountObject") else {
                return Value::from(false);
            };
            let Some(r) = object_arg(c, sh, a, 1, "mountObject") else { return Value::from(false) };
            let node = a.f64(2);
            let node = if node >= 0.0 && node <= f64::from(MAX_NODE) { node as u32 } else { MAX_NODE + 1 };
            match mount(c, sh, m, r, node) {
                Ok(()) => Value::from(true),
                Err(why) => {
                    c.error(&format!("mountObject: {why}; not mounted"));
                    Value::from(false)
                }
            }
        }),
        ("unmountObject", 3, 3, "unmountObject(obj) - unseats obj from this shape", |c, sh, a| {
            let Some(m) = crate::handles::scene_of(c, sh, a, "unmountObject") else {
                return Value::from(false);
            };
            let Some(r) = object_arg(c, sh, a, 1, "unmountObject") else { return Value::from(false) };
            let rides_here = sh.borrow().objects.get(&r).and_then(|g| g.mount).is_some_and(|(p, _)| p == m);
            Value::from(rides_here && unmount(c, sh, r))
        }),
        ("unmount", 2, 2, "unmount() - gets off whatever carries it", |c, sh, a| {
            let Some(r) = crate::handles::scene_of(c, sh, a, "unmount") else { return Value::from(false) };
            Value::from(unmount(c, sh, r))
        }),
        ("getObjectMount", 2, 2, "getObjectMount() - what carries it, or 0", |c, sh, a| {
            let Some(r) = crate::handles::scene_of(c, sh, a, "getObjectMount") else { return Value::from(0) };
            let m = sh.borrow().objects.get(&r).and_then(|g| g.mount).map(|(m, _)| m);
            Value::from(m.map_or(0, |m| console_of(sh, m)))
        }),
        ("isMounted", 2, 2, "isMounted()", |c, sh, a| {
            let Some(r) = crate::handles::scene_of(c, sh, a, "isMounted") else { return Value::from(false) };
            Value::from(sh.borrow().objects.get(&r).is_some_and(|g| g.mount.is_some()))
        }),
        ("getMountNode", 2, 2, "getMountNode() - the node it rides at, or -1", |c, sh, a| {
            let Some(r) = crate::handles::scene_of(c, sh, a, "getMountNode") else { return Value::from(-1) };
            let n = sh.borrow().objects.get(&r).and_then(|g| g.mount).map(|(_, n)| i64::from(n));
            Value::from(n.unwrap_or(-1))
        }),
        (
            "getMountNodeObject",
            3,
            3,
            "getMountNodeObject(node) - what rides at that node, or 0",
            |c, sh, a| {
                let Some(m) = crate::handles::scene_of(c, sh, a, "getMountNodeObject") else {
                    return Value::from(0);
                };
                let node = a.f64(1);
                let r = sh
                    .borrow()
                    .objects
                    .get(&m)
                    .and_then(|g| g.mounted.iter().find(|(_, n)| f64::from(*n) == node).map(|(r, _)| *r));
                Value::from(r.map_or(0, |r| console_of(sh, r)))
            },
        ),
        ("getMountedObjectCount", 2, 2, "getMountedObjectCount()", |c, sh, a| {
            let Some(m) = crate::handles::scene_of(c, sh, a, "getMountedObjectCount") else {
                return Value::from(0);
            };
            Value::from(sh.borrow().objects.get(&m).map_or(0, |g| g.mounted.len() as i64))
        }),
        ("getMountedObject", 3, 3, "getMountedObject(i) - the i-th rider, or 0", |c, sh, a| {
            let Some(m) = crate::handles::scene_of(c, sh, a, "getMountedObject") else {
                return Value::from(0);
            };
            let i = a.f64(1);
            let r = sh
                .borrow()
                .objects
                .get(&m)
                .and_then(|g| (i >= 0.0).then(|| g.mounted.get(i as usize)).flatten().map(|(r, _)| *r));
            Value::from(r.map_or(0, |r| console_of(sh, r)))
        }),
        (
            "getMountedObjectNode",
            3,
            3,
            "getMountedObjectNode(i) - the i-th rider's node, or -1",
            |c, sh, a| {
                let Some(m) = crate::handles::scene_of(c, sh, a, "getMountedObjectNode") else {
                    return Value::from(-1);
                };
                let i = a.f64(1);
                let n =
                    sh.borrow().objects.get(&m).and_then(|g| {
                        (i >= 0.0).then(|| g.mounted.get(i as usize)).flatten().map(|(_, n)| *n)
                    });
                Value::from(n.map_or(-1, i64::from))
            },
        ),
        (
            "setControlObject",
            3,
            3,
            "setControlObject(obj) - its client's moves drive obj (0: itself again)",
            |c, sh, a| {
                let Some(me) = crate::handles::scene_of(c, sh, a, "setControlObject") else {
                    return Value::from(false);
                };
                let target = if a.f64(1) == 0.0 && c.find_object(&a.get(1)).is_none() {
                    None
                } else {
                    let Some(t) = object_arg(c, sh, a, 1, "setControlObject") else {
                        return Value::from(false);
                    };
                    (t != me).then_some(t)
                };
                let mut s = sh.borrow_mut();
                if let Some(g) = s.objects.get_mut(&me) {
                    g.drives = target;
                }
                s.control_dirty = true;
                Value::from(true)
            },
        ),
        ("getControlObject", 2, 2, "getControlObject() - what its client's moves drive, or 0", |c, sh, a| {
            let Some(me) = crate::handles::scene_of(c, sh, a, "getControlObject") else {
                return Value::from(0);
            };
            let t = sh.borrow().objects.get(&me).and_then(|g| g.drives);
            Value::from(t.map_or(0, |t| console_of(sh, t)))
        }),
    ];
    crate::handles::register_all(con, shared, "ShapeBase", methods);
}

#[cfg(test)]
mod tests {
    use crate::objects::tests::{eval, game_console};
    use v12_netobject::ghost::ObjectId;
    use v12_sim::scene::Mount;

    /// The rider's scene object rides what the script mounted it on (so its ghost follows
    /// the vehicle's), and gets off on unmount and when the vehicle is deleted.
    #[test]
    fn the_riders_scene_object_rides_its_mount() {
        let (mut con, shared, _) = game_console();
        eval(
            &mut con,
            r#"datablock HoverVehicleData(Scout) { maxDamage = 50; };
            $v = new HoverVehicle() { dataBlock = Scout; position = "10 10 0"; };
            $p = new Player() { dataBlock = LightMale; position = "0 0 0"; };"#,
        );
        let scene = |con: &mut v12_console_vm::Console, var: &str| {
            let name = v12_console_vm::Value::from(eval(con, &format!("return {var};")));
            let id = con.find_object(&name).unwrap();
            shared.borrow().by_console[&id]
        };
        let (v, p) = (scene(&mut con, "$v"), scene(&mut con, "$p"));
        let mount_of = |p: u32| shared.borrow().world.as_ref().unwrap().get(p).unwrap().mount();
        assert_eq!(eval(&mut con, "return $v.mountObject($p, 1);"), "1");
        assert_eq!(mount_of(p), Some(Mount { object: ObjectId(v), node: 1 }));
        eval(&mut con, "$v.unmountObject($p);");
        assert_eq!(mount_of(p), None);
        assert_eq!(eval(&mut con, "return $v.mountObject($p, 0);"), "1");
        assert_eq!(mount_of(p), Some(Mount { object: ObjectId(v), node: 0 }));
        eval(&mut con, "$v.delete();");
        assert_eq!(mount_of(p), None);
    }
}
