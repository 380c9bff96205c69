//! The rest of V12's ShapeBase and SceneObject script methods that Tribes 2's scripts lean on:
//! the boxes (`getWorldBox`, `getWorldBoxCenter`, `getObjectBox`), `getEyeTransform`, the
//! look of an object (`setDamageFlash` / `getDamageFlash`, `setWhiteOut` / `getWhiteOut`,
//! `setCloaked` / `isCloaked`, `startFade` / `isFaded`, `setInvincibleMode`, `setSkinName` /
//! `getSkinName`, `setShapeName` / `getShapeName`), Player's `setActionThread` and
//! `setArmThread` (script threads 0 and 1), and the global `calcExplosionCoverage(pos, obj,
//! mask)` that radius damage scales by: the share of the object's box a blast at `pos` sees
//! past what `mask` names (Tribes 2's `RadiusExplosion`).

use crate::handles::{Method, number_arg, parse_vec3, scene_of, vec_text};
use crate::state::{Looks, Shared};
use glam::Vec3;
use std::cell::RefCell;
use std::rc::Rc;
use v12_console_vm::{CallArgs, Console, Value};
use v12_sim::scene::ScriptThread;

/// The world box of the object behind `%this` (min, max) and where the object stands.
fn world_box(
    c: &mut Console,
    sh: &Rc<RefCell<Shared>>,
    a: &CallArgs<'_>,
    method: &str,
) -> Option<(Vec3, Vec3, Vec3)> {
    let scene = scene_of(c, sh, a, method)?;
    let s = sh.borrow();
    let g = s.objects.get(&scene)?;
    let pos = s.world.as_ref()?.get(scene)?.state.pos;
    let b = crate::placement::world_box(g, pos);
    Some((b.min, b.max, pos))
}

/// Changes the looks of the object behind `%this`.
fn set_looks(
    c: &mut Console,
    sh: &Rc<RefCell<Shared>>,
    a: &CallArgs<'_>,
    method: &str,
    f: impl FnOnce(&mut Looks),
) -> Value {
    let Some(scene) = scene_of(c, sh, a, method) else { return Value::from(false) };
    match sh.borrow_mut().objects.get_mut(&scene) {
        Some(g) => {
            f(&mut g.looks);
            Value::from(true)
        }
        None => Value::from(false),
    }
}

/// Reads the looks of the object behind `%this`.
fn get_looks(
    c: &mut Console,
    sh: &Rc<RefCell<Shared>>,
    a: &CallArgs<'_>,
    method: &str,
    f: impl FnOnce(&Looks) -> Value,
) -> Value {
    let Some(scene) = scene_of(c, sh, a, method) else { return Value::Empty };
    sh.borrow().objects.get(&scene).map_or(Value::Empty, |g| f(&g.looks))
}

/// Plays `a.str(1)` on script thread `slot` (V12's Player action and arm threads).
fn play_on(c: &mut Console, sh: &Rc<RefCell<Shared>>, a: &CallArgs<'_>, slot: usize, method: &str) -> Value {
    let Some(scene) = scene_of(c, sh, a, method) else { return Value::from(false) };
    let name = a.str(1).trim().to_string();
    if name.is_empty() {
        c.error(&format!("{method}: no sequence name"));
        return Value::from(false);
    }
    let thread = ScriptThread { sequence: name, playing: true, forward: true };
    let set = sh
        .borrow_mut()
        .world
        .as_mut()
        .and_then(|w| w.get_mut(scene))
        .is_some_and(|o| o.set_thread(slot, Some(thread)));
    Value::from(set)
}

/// Registers the methods on GameBase (boxes), ShapeBase (looks, eye) and Player (threads),
/// and `calcExplosionCoverage`.
pub(crate) fn register(con: &mut Console, shared: &Rc<RefCell<Shared>>) {
    let boxes: &[(&str, u32, u32, &str, Method)] = &[
        ("getWorldBox", 2, 2, "getWorldBox() - \"minX minY minZ maxX maxY maxZ\"", |c, sh, a| {
            world_box(c, sh, a, "getWorldBox")
                .map_or(Value::Empty, |(lo, hi, _)| Value::from(format!("{} {}", vec_text(lo), vec_text(hi))))
        }),
        ("getWorldBoxCenter", 2, 2, "getWorldBoxCenter() - the middle of the world box", |c, sh, a| {
            world_box(c, sh, a, "getWorldBoxCenter")
                .map_or(Value::Empty, |(lo, hi, _)| Value::from(vec_text((lo + hi) * 0.5)))
        }),
        ("getObjectBox", 2, 2, "getObjectBox() - the box in the object's own space", |c, sh, a| {
            let Some((lo, hi, pos)) = world_box(c, sh, a, "getObjectBox") else { return Value::Empty };
            Value::from(format!("{} {}", vec_text(lo - pos), vec_text(hi - pos)))
        }),
    ];
    crate::handles::register_all(con, shared, "GameBase", boxes);
    let looks: &[(&str, u32, u32, &str, Method)] = &[
        (
            "getEyeTransform",
            2,
            2,
            "getEyeTransform() - the eye point and the object's heading",
            |c, sh, a| {
                let Some(scene) = scene_of(c, sh, a, "getEyeTransform") else { return Value::Empty };
                let s = sh.borrow();
                let Some((p, _)) = crate::weapons::eye(&s, scene) else { return Value::Empty };
                let yaw = s.world.as_ref().and_then(|w| w.get(scene)).map_or(0.0, |o| o.state.yaw);
                Value::from(format!("{} 0 0 1 {yaw}", vec_text(p)))
            },
        ),
        ("setDamageFlash", 3, 3, "setDamageFlash(level) - 0 to 1", |c, sh, a| {
            let Some(v) = number_arg(c, a, 1, "setDamageFlash") else { return Value::from(false) };
            set_looks(c, sh, a, "setDamageFlash", |l| l.damage_flash = v.clamp(0.0, 1.0))
        }),
        ("getDamageFlash", 2, 2, "getDamageFlash()", |c, sh, a| {
            get_looks(c, sh, a, "getDamageFlash", |l| Value::Float(f64::from(l.damage_flash)))
        }),
        ("setWhiteOut", 3, 3, "setWhiteOut(level) - 0 to 1", |c, sh, a| {
            let Some(v) = number_arg(c, a, 1, "setWhiteOut") else { return Value::from(false) };
            set_looks(c, sh, a, "setWhiteOut", |l| l.white_out = v.clamp(0.0, 1.0))
        }),
        ("getWhiteOut", 2, 2, "getWhiteOut()", |c, sh, a| {
            get_looks(c, sh, a, "getWhiteOut", |l| Value::Float(f64::from(l.white_out)))
        }),
        ("setCloaked", 3, 3, "setCloaked(bool)", |c, sh, a| {
            let on = a.bool(1);
            set_looks(c, sh, a, "setCloaked", |l| l.cloaked = on)
        }),
        ("isCloaked", 2, 2, "isCloaked()", |c, sh, a| {
            get_looks(c, sh, a, "isCloaked", |l| Value::from(l.cloaked))
        }),
        ("startFade", 5, 5, "startFade(ms, delayMs, fadeOut)", |c, sh, a| {
            let (Some(_), Some(_)) = (number_arg(c, a, 1, "startFade"), number_arg(c, a, 2, "startFade"))
            else {
                return Value::from(false);
            };
            let out = a.bool(3);
            set_looks(c, sh, a, "startFade", |l| l.faded = out)
        }),
        ("isFaded", 2, 2, "isFaded()", |c, sh, a| get_looks(c, sh, a, "isFaded", |l| Value::from(l.faded))),
        ("setInvincibleMode", 4, 4, "setInvincibleMode(seconds, speed)", |c, sh, a| {
            let (Some(t), Some(s)) =
                (number_arg(c, a, 1, "setInvincibleMode"), number_arg(c, a, 2, "setInvincibleMode"))
            else {
                return Value::from(false);
            };
            set_looks(c, sh, a, "setInvincibleMode", |l| l.invincible = (t.max(0.0), s))
        }),
        ("setSkinName", 3, 3, "setSkinName(name)", |c, sh, a| {
            let name: String = a.str(1).chars().take(64).collect();
            set_looks(c, sh, a, "setSkinName", |l| l.skin = name)
        }),
        ("getSkinName", 2, 2, "getSkinName()", |c, sh, a| {
            get_looks(c, sh, a, "getSkinName", |l| Value::from(l.skin.clone()))
        }),
        ("setShapeName", 3, 3, "setShapeName(name)", |c, sh, a| {
            let name: String = a.str(1).chars().take(64).collect();
            set_looks(c, sh, a, "setShapeName", |l| l.shape_name = name)
        }),
        ("getShapeName", 2, 2, "getShapeName()", |c, sh, a| {
            get_looks(c, sh, a, "getShapeName", |l| Value::from(l.shape_name.clone()))
        }),
    ];
    crate::handles::register_all(con, shared, "ShapeBase", looks);
    let threads: &[(&str, u32, u32, &str, Method)] = &[
        (
            "setActionThread",
            3,
            5,
            "setActionThread(sequence [, hold, wait]) - on script thread 0",
            |c, sh, a| play_on(c, sh, a, 0, "setActionThread"),
        ),
        ("setArmThread", 3, 3, "setArmThread(sequence) - on script thread 1", |c, sh, a| {
            play_on(c, sh, a, 1, "setArmThread")
        }),
    ];
    crate::handles::register_all(con, shared, "Player", threads);
    let sh = shared.clone();
    con.register_function(
        "calcExplosionCoverage",
        4,
        4,
        "calcExplosionCoverage(pos, obj, mask) - the share (0 to 1) of obj's box a blast at pos sees past mask",
        move |c, a| {
            let pos = parse_vec3(&a.str(0));
            let target = a.str(1).trim().parse::<u32>().ok().or_else(|| c.find_object_str(a.str(1).trim()));
            let mask = a.f64(2);
            let mask = if mask.is_finite() && mask >= 0.0 { mask.min(f64::from(u32::MAX)) as u32 } else { 0 };
            let Some(target) = target else {
                c.error(&format!("calcExplosionCoverage: no object \"{}\"", a.str(1)));
                return Value::from(0);
            };
            Value::Float(coverage(&sh.borrow(), pos, target, mask))
        },
    );
}

/// Rays from `pos` to the middle and eight inner corners of `target`'s box (console id): the
/// share that reach it without meeting anything else of `mask`.
pub(crate) fn coverage(s: &Shared, pos: Vec3, target: u32, mask: u32) -> f64 {
    let Some(&scene) = s.by_console.get(&target) else { return 0.0 };
    let (Some(g), Some(handle)) = (s.objects.get(&scene), s.container.as_ref()) else { return 0.0 };
    let Some(at) = s.world.as_ref().and_then(|w| w.get(scene)).map(|o| o.state.pos) else { return 0.0 };
    let b = crate::placement::world_box(g, at);
    let (mid, half) = ((b.min + b.max) * 0.5, (b.max - b.min) * 0.45);
    let mut points = vec![mid];
    for i in 0..8 {
        let sign = |bit: u32| if i & bit == 0 { -1.0 } else { 1.0 };
        points.push(mid + half * Vec3::new(sign(1), sign(2), sign(4)));
    }
    let mut h = handle.borrow_mut();
    let seen = points
        .iter()
        .filter(|p| match h.container.cast_ray(pos, **p, mask, None) {
            Some(hit) => hit.id == target || hit.t >= 0.999,
            None => true,
        })
        .count();
    seen as f64 / points.len() as f64
}
