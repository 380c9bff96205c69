//! Turrets (V12's `Turret` with its `TurretData`): a static shape whose barrel, a
//! `TurretImageData` mounted in image slot 0, aims by itself. Every `thinkTimeMS` it picks the
//! nearest player in `attackRadius` that it can see (a ray through the container to the
//! target's chest meets no terrain, interior or other shape first), turns towards it at
//! `degPerSecTheta`, and holds the barrel's trigger while it points within a few degrees;
//! the image's state machine does the firing (its `onFire`, or the image's own shot). A
//! disabled turret, or one whose `team` field matches the target's, does not fire at it.
//! `%turret.setTargetObject(%obj)` / `clearTarget()` / `getTargetObject()` steer it from
//! script.

pub use crate::images::TurretAim;
use crate::state::{DamageState, Shared};
use glam::Vec3;
use std::cell::RefCell;
use std::rc::Rc;
use v12_console_vm::{Console, Value};
use v12_sim::container::type_masks as tm;
use v12_sim::scene::TICK_SECONDS;

/// Aimed this close (radians) the turret fires.
const FIRE_CONE: f32 = 0.08;

/// Reads the barrel's aim settings (`attackRadius`, `degPerSecTheta`, `thinkTimeMS`).
pub(crate) fn aim_of(con: &Console, barrel: v12_console_vm::ObjectId) -> TurretAim {
    let num = |f: &str, d: f64| crate::classes::num_field(con, barrel, f).unwrap_or(d) as f32;
    TurretAim {
        radius: num("attackRadius", 100.0),
        turn: num("degPerSecTheta", 360.0).to_radians() * TICK_SECONDS,
        think_ticks: ((num("thinkTimeMS", 200.0) / v12_sim::process::TICK_MS as f32).ceil() as u32).max(1),
        wait: 0,
        target: None,
        forced: false,
    }
}

/// One tick of every turret: look for targets, turn, hold or release the barrel's trigger.
/// One turret's tick: pick a target in range, turn the barrel, hold the trigger.
pub(crate) fn think(s: &mut Shared, id: u32) {
    let Some(g) = s.objects.get(&id) else { return };
    let Some(mut aim) = g.aim else { return };
    let enabled = g.damage_state == DamageState::Enabled;
    let team = g.team;
    let Some(me) = s.world.as_ref().and_then(|w| w.get(id)).map(|o| o.state) else { return };
    let eye = me.pos + Vec3::Z * (2.0 * g.half_extents.z);
    let alive = |s: &Shared, t: u32| {
        s.objects
            .get(&t)
            .is_some_and(|o| o.damage_state == DamageState::Enabled && (team.is_none() || o.team != team))
            && s.world.as_ref().and_then(|w| w.get(t)).is_some_and(|o| o.flags & crate::HIDDEN == 0)
    };
    if aim.target.is_some_and(|t| !alive(s, t)) {
        aim.target = None;
        aim.forced = false;
    }
    if aim.wait == 0 {
        aim.wait = aim.think_ticks;
        if !aim.forced {
            aim.target = pick(s, id, eye, aim.radius, &alive);
        }
    }
    aim.wait -= 1;
    let mut fire = false;
    let mut yaw = me.yaw;
    if let Some(t) = aim.target.and_then(|t| s.world.as_ref().and_then(|w| w.get(t))).map(|o| o.state.pos) {
        let d = t - me.pos;
        let want = (-d.x).atan2(d.y);
        let off = wrap(want - yaw);
        yaw = wrap(yaw + off.clamp(-aim.turn, aim.turn));
        fire = enabled && wrap(want - yaw).abs() < FIRE_CONE;
    }
    if let Some(g) = s.objects.get_mut(&id) {
        g.aim = Some(aim);
        if let Some(img) = g.images[0].as_mut() {
            img.image.run.trigger = fire;
            img.image.run.target = aim.target.is_some();
        }
    }
    if let Some(o) = s.world.as_mut().and_then(|w| w.get_mut(id))
        && o.state.yaw != yaw
    {
        let mut st = o.state;
        st.yaw = yaw;
        o.set_state(st);
    }
}

/// The nearest live player in range the turret can see.
fn pick(s: &Shared, me: u32, eye: Vec3, radius: f32, alive: &dyn Fn(&Shared, u32) -> bool) -> Option<u32> {
    let h = s.container.as_ref()?;
    let mut h = h.borrow_mut();
    let me_console = s.objects.get(&me)?.console;
    for (console, _) in h.container.find_radius(eye, radius, tm::PLAYER) {
        let Some(&scene) = s.by_console.get(&console) else { continue };
        if !alive(s, scene) {
            continue;
        }
        let Some(chest) = s.world.as_ref().and_then(|w| w.get(scene)).map(|o| o.state.pos + Vec3::Z) else {
            continue;
        };
        let blocked = h.container.cast_ray(
            eye,
            chest,
            tm::TERRAIN | tm::INTERIOR | tm::STATIC_SHAPE | tm::FORCE_FIELD,
            Some(me_console),
        );
        if blocked.is_none_or(|hit| hit.id == console) {
            return Some(scene);
        }
    }
    None
}

fn wrap(mut a: f32) -> f32 {
    while a > std::f32::consts::PI {
        a -= std::f32::consts::TAU;
    }
    while a < -std::f32::consts::PI {
        a += std::f32::consts::TAU;
    }
    a
}

/// `setTargetObject(obj)`, `clearTarget()`, `getTargetObject()` on Turret.
pub(crate) fn register(con: &mut Console, shared: &Rc<RefCell<Shared>>) {
    let sh = shared.clone();
    con.register_method(
        "Turret",
        "setTargetObject",
        3,
        3,
        "setTargetObject(obj) - aims at obj while it lives",
        move |c, a| {
            let Some(me) = crate::handles::scene_of(c, &sh, a, "setTargetObject") else {
                return Value::from(false);
            };
            let t = c.find_object(&a.get(1)).and_then(|t| sh.borrow().by_console.get(&t).copied());
            let mut s = sh.borrow_mut();
            match (t, s.objects.get_mut(&me).and_then(|g| g.aim.as_mut())) {
                (Some(t), Some(aim)) => {
                    aim.target = Some(t);
                    aim.forced = true;
                    Value::from(true)
                }
                _ => Value::from(false),
            }
        },
    );
    let sh = shared.clone();
    con.register_method(
        "Turret",
        "clearTarget",
        2,
        2,
        "clearTarget() - looks for targets itself again",
        move |c, a| {
            let Some(me) = crate::handles::scene_of(c, &sh, a, "clearTarget") else {
                return Value::from(false);
            };
            if let Some(aim) = sh.borrow_mut().objects.get_mut(&me).and_then(|g| g.aim.as_mut()) {
                aim.target = None;
                aim.forced = false;
            }
            Value::from(true)
        },
    );
    let sh = shared.clone();
    con.register_method(
        "Turret",
        "getTargetObject",
        2,
        2,
        "getTargetObject() - what it aims at, or 0",
        move |c, a| {
            let Some(me) = crate::handles::scene_of(c, &sh, a, "getTargetObject") else {
                return Value::from(0);
            };
            let s = sh.borrow();
            let t = s.objects.get(&me).and_then(|g| g.aim).and_then(|a| a.target);
            Value::from(t.and_then(|t| s.objects.get(&t)).map_or(0, |g| g.console))
        },
    );
}
