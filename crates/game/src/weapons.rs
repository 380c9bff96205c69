//! The script side of images (`crate::images`): ShapeBase's `mountImage(image, slot
//! [, loaded])`, `unmountImage(slot)`, `getMountedImage(slot)`, `getMountSlot(image)`,
//! `setImageTrigger(slot, down)`, `getImageTrigger(slot)`, `setImageAmmo(slot, ammo)`,
//! `getImageAmmo(slot)`, `setImageLoaded`, `getImageLoaded`, `getImageState(slot)`,
//! `isImageFiring(slot)`, `getMuzzlePoint(slot)`, `getMuzzleVector(slot)`, `getEyePoint()`,
//! `getEyeVector()`; the tick that runs every mounted image's state machine; and the shot an
//! image fires by itself when its fire state names no script (its datablock's `projectile`,
//! of class `projectileType`, from the muzzle).
//!
//! A state's `stateSequence` plays on the shape's image thread (script thread
//! [`IMAGE_THREAD`]), so every client that has the shape in scope sees the weapon fire.
//! Image slot 0 follows the controlling client's fire trigger (move trigger 0), as V12's
//! Player does.

use crate::images::{
    Effect, IMAGE_THREAD, ImageRun, MAX_IMAGES, MountedImage, PREDICTED_IMAGES, PredictedImage, Slot,
};
use crate::state::Shared;
use glam::Vec3;
use std::cell::RefCell;
use std::rc::Rc;
use v12_console_vm::{CallArgs, Console, ObjectId, Value};
use v12_sim::scene::ScriptThread;

/// How high a shape's eye is over its feet, as a share of its height.
const EYE_HEIGHT: f32 = 0.9;

/// An effect an image's state asked for, to run with the console.
#[derive(Debug)]
pub(crate) struct ImageEffect {
    pub obj: u32,
    pub slot: usize,
    pub effect: Effect,
    /// Stepped by its controlling client's moves (predicted there): the move already spent
    /// the shot's `fireEnergy`, and that client plays the state's sound itself.
    pub predicted: bool,
}

/// Where object `scene` looks from and which way (unit vector): its eye, facing its yaw.
pub(crate) fn eye(s: &Shared, scene: u32) -> Option<(Vec3, Vec3)> {
    let o = s.world.as_ref()?.get(scene)?;
    let g = s.objects.get(&scene)?;
    let (sin, cos) = o.state.yaw.sin_cos();
    let forward = Vec3::new(-sin, cos, 0.0);
    Some((o.state.pos + Vec3::Z * (2.0 * g.half_extents.z * EYE_HEIGHT), forward))
}

/// The muzzle of the image in `slot` of object `scene`: in front of the eye by the shape's
/// half width and the image's `offset` (x right, y forward, z up, turned with the shape).
pub(crate) fn muzzle(s: &Shared, scene: u32, slot: usize) -> Option<(Vec3, Vec3)> {
    let (eye, forward) = eye(s, scene)?;
    let g = s.objects.get(&scene)?;
    let offset = g.images.get(slot).and_then(|i| i.as_ref()).map_or(Vec3::ZERO, |i| i.offset);
    let right = Vec3::new(forward.y, -forward.x, 0.0);
    let reach = g.half_extents.x.max(g.half_extents.y) + 0.3;
    Some((eye + forward * (reach + offset.y) + right * offset.x + Vec3::Z * offset.z, forward))
}

/// How far from its position an object's muzzle may be (m): an object farther than this from
/// the box around all water has only dry images.
const MUZZLE_REACH: f32 = 16.0;

/// Sets the `wet` input of object `id`'s images in `slots` from where their muzzles are (in
/// the server's water, `crate::liquid`): nothing to do without water or images; an object far
/// from all water has its images dry without a muzzle worked out.
fn wet_images(s: &mut Shared, id: u32, slots: std::ops::Range<usize>) {
    let Some((lo, hi)) = s.water.bounds() else { return };
    let Some(g) = s.objects.get(&id) else { return };
    if g.images.iter().all(Option::is_none) {
        return;
    }
    let near = s.world.as_ref().and_then(|w| w.get(id)).is_some_and(|o| {
        let p = o.state.pos;
        p.cmpge(lo - MUZZLE_REACH).all() && p.cmple(hi + MUZZLE_REACH).all()
    });
    let mut wet = [false; MAX_IMAGES];
    if near {
        for slot in slots.clone().filter(|slot| g.images[*slot].is_some()) {
            wet[slot] = muzzle(s, id, slot).is_some_and(|(p, _)| s.water.is_wet(p));
        }
    }
    let changed =
        slots.clone().any(|slot| g.images[slot].as_ref().is_some_and(|i| i.image.run.wet != wet[slot]));
    if changed && let Some(g) = s.objects.get_mut(&id) {
        for slot in slots {
            if let Some(img) = g.images[slot].as_mut() {
                img.image.run.wet = wet[slot];
            }
        }
    }
}

/// One tick of an object's mounted images' state machines (energy drained by states, ammo
/// of energy weapons from the energy level), except the slots its controlling client's moves
/// stepped this tick ([`hand_in`]). Effects come back for the console.
pub(crate) fn tick_one(s: &mut Shared, id: u32) -> Vec<ImageEffect> {
    let mut out = Vec::new();
    let by_moves = s.images_by_moves.contains(&id);
    // The slots the moves stepped were made wet or dry before them ([`hand_in`]), and are
    // again before the next moves: only the others are looked at here.
    let from = if by_moves { PREDICTED_IMAGES } else { 0 };
    wet_images(s, id, from..MAX_IMAGES);
    let Some(g) = s.objects.get_mut(&id) else { return out };
    let mut effects = Vec::new();
    for slot in from..MAX_IMAGES {
        let Some(img) = g.images[slot].as_mut() else { continue };
        let mut energy = g.energy;
        // Outside the moves a shot's fireEnergy is taken when it is launched (`run_effects`).
        let trigger = img.image.run.trigger;
        img.model.step_charging(&mut img.image.run, trigger, &mut energy, false, &mut effects);
        if energy != g.energy {
            g.energy = energy.clamp(0.0, g.max_energy.max(0.0));
        }
        out.extend(effects.drain(..).map(|effect| ImageEffect { obj: id, slot, effect, predicted: false }));
    }
    out
}

/// The models of the images a controlled object's moves step (its first
/// [`PREDICTED_IMAGES`] slots), for its [`Motion`](v12_sim::scene::Motion).
pub(crate) fn predicted_models(s: &Shared, id: u32) -> [Option<Rc<PredictedImage>>; PREDICTED_IMAGES] {
    let mut m: [Option<Rc<PredictedImage>>; PREDICTED_IMAGES] = Default::default();
    if let Some(g) = s.objects.get(&id) {
        for (slot, out) in m.iter_mut().enumerate() {
            *out = g.images[slot].as_ref().map(|i| i.model.clone());
        }
    }
    m
}

/// Before a controlled object's moves: its images' runs and its energy go into its
/// predicted state, where the moves step them.
pub(crate) fn hand_in(s: &mut Shared, id: u32) {
    wet_images(s, id, 0..PREDICTED_IMAGES);
    let Some(g) = s.objects.get(&id) else { return };
    let Some(o) = s.world.as_mut().and_then(|w| w.get_mut(id)) else { return };
    let mut st = o.state;
    st.energy = g.energy;
    for (slot, run) in st.images.iter_mut().enumerate() {
        *run = g.images[slot]
            .as_ref()
            .map_or_else(Default::default, |i| ImageRun { image: i.image.data, ..i.image.run });
    }
    o.state = st;
    s.images_by_moves.insert(id);
}

/// After the moves: what they left of the images' runs and the energy comes back.
pub(crate) fn take_out(s: &mut Shared, id: u32) {
    let Some(st) = s.world.as_ref().and_then(|w| w.get(id)).map(|o| o.state) else { return };
    let Some(g) = s.objects.get_mut(&id) else { return };
    g.energy = st.energy;
    for (slot, run) in st.images.iter().enumerate() {
        if let Some(i) = g.images[slot].as_mut() {
            i.image.run = *run;
        }
    }
}

/// What a controlled object's moves need of image datablock `db` (its states, `usesEnergy`,
/// `minEnergy`, `fireEnergy`): read alike by the server when it mounts the image and by the
/// controlling client from its copy of the datablock.
pub(crate) fn model_of(con: &Console, db: ObjectId) -> PredictedImage {
    PredictedImage::new(
        // Its problems were reported when it was defined.
        Rc::new(crate::images::parse_states_lenient(con, db).0),
        crate::classes::bool_field(con, db, "usesEnergy"),
        crate::classes::num_field(con, db, "minEnergy").unwrap_or(2.0) as f32,
        crate::classes::num_field(con, db, "fireEnergy").unwrap_or(0.0) as f32,
    )
}

/// Carries out image effects: sequences on the image thread, scripts on the image's
/// datablock, shots for fire states with no script (and energy for `fireEnergy`).
pub(crate) fn run_effects(c: &mut Console, sh: &Rc<RefCell<Shared>>, effects: Vec<ImageEffect>) {
    for e in effects {
        let (console, data) = {
            let s = sh.borrow();
            let Some(g) = s.objects.get(&e.obj) else { continue };
            let Some(img) = g.images[e.slot].as_ref() else { continue };
            (g.console, img.image.data)
        };
        match e.effect {
            Effect::Sequence(seq) => {
                let mut s = sh.borrow_mut();
                if let Some(o) = s.world.as_mut().and_then(|w| w.get_mut(e.obj)) {
                    let t = seq.map(|sequence| ScriptThread { sequence, playing: true, forward: true });
                    o.set_thread(IMAGE_THREAD, t);
                }
            }
            Effect::Sound(profile) => crate::audio::play_at_object(c, sh, e.obj, &profile, e.predicted),
            Effect::Script(name) => {
                c.call_method_if_exists(data, &name, &[Value::from(console), Value::from(e.slot as u32)]);
            }
            Effect::Fire { scripted } => {
                let fire_energy = crate::classes::num_field(c, data, "fireEnergy").unwrap_or(0.0) as f32;
                if fire_energy > 0.0
                    && !e.predicted
                    && let Some(g) = sh.borrow_mut().objects.get_mut(&e.obj)
                {
                    g.energy = (g.energy - fire_energy).max(0.0);
                }
                if !scripted {
                    launch(c, sh, e.obj, e.slot, data);
                }
            }
        }
    }
}

/// The image's own shot: `new <projectileType>() { dataBlock = <projectile>; ... }` from
/// the muzzle of `slot`, its source the firer.
fn launch(c: &mut Console, sh: &Rc<RefCell<Shared>>, obj: u32, slot: usize, image: ObjectId) {
    let Some(projectile) = c.find_object(&c.get_field(image, "projectile")) else { return };
    let class = c.get_field(image, "projectileType").as_text().trim().to_string();
    let class = if class.is_empty() { "Projectile".to_string() } else { class };
    let known = c.class_id(&class).is_some_and(|id| c.class_is(id, "Projectile"));
    if !known || !class.chars().all(|ch| ch.is_ascii_alphanumeric() || ch == '_') {
        c.warn(&format!(
            "image {image}: projectileType \"{class}\" is not a projectile class; nothing fired"
        ));
        return;
    }
    let (Some((at, dir)), console) = ({
        let s = sh.borrow();
        (muzzle(&s, obj, slot), s.objects.get(&obj).map_or(0, |g| g.console))
    }) else {
        return;
    };
    let v = |p: Vec3| format!("{} {} {}", p.x, p.y, p.z);
    let src = format!(
        "return new {class}() {{ dataBlock = {projectile}; initialPosition = \"{}\"; initialDirection = \"{}\"; sourceObject = {console}; sourceSlot = {slot}; }};",
        v(at),
        v(dir)
    );
    if let Err(e) = c.eval(&src) {
        c.warn(&format!("image {image}: firing failed: {e}"));
    }
}

/// Enters state `state` of the image in `slot` now (a mount, a script's change), running
/// its effects.
fn enter_now(c: &mut Console, sh: &Rc<RefCell<Shared>>, scene: u32, slot: usize, state: usize) {
    let mut effects = Vec::new();
    if let Some(img) = sh.borrow_mut().objects.get_mut(&scene).and_then(|g| g.images[slot].as_mut()) {
        img.image.enter(state, &mut effects);
    }
    let effects = effects
        .into_iter()
        .map(|effect| ImageEffect { obj: scene, slot, effect, predicted: false })
        .collect();
    run_effects(c, sh, effects);
}

/// A slot argument, or `None` with a console error.
pub(crate) fn slot_arg(c: &mut Console, a: &CallArgs<'_>, i: usize, method: &str) -> Option<usize> {
    let v = a.f64(i);
    if v >= 0.0 && v < MAX_IMAGES as f64 && v.fract() == 0.0 {
        Some(v as usize)
    } else {
        c.error(&format!("{method}: image slot \"{}\" is not 0 to {}", a.str(i), MAX_IMAGES - 1));
        None
    }
}

/// `mountImage(image, slot [, loaded = true])`: unmounts what the slot held (its
/// `onUnmount`), checks and mounts the image, calls `%image.onMount(%obj, %slot)` and
/// enters its first state.
fn mount_image(
    c: &mut Console,
    sh: &Rc<RefCell<Shared>>,
    scene: u32,
    image: ObjectId,
    slot: usize,
    loaded: bool,
) -> bool {
    let model = Rc::new(model_of(c, image));
    let states = model.states.clone();
    unmount_image(c, sh, scene, slot);
    let offset = crate::handles::parse_vec3(&c.get_field(image, "offset").as_text());
    let aim = crate::turrets::aim_of(c, image);
    let console = {
        let mut s = sh.borrow_mut();
        let Some(g) = s.objects.get_mut(&scene) else { return false };
        g.images[slot] =
            Some(Box::new(Slot { image: MountedImage::new(image, states, loaded), offset, model }));
        // A turret's barrel aims by itself (`crate::turrets`).
        if slot == 0 && g.class == crate::state::GameClass::Turret {
            g.aim = Some(aim);
        }
        g.console
    };
    c.call_method_if_exists(image, "onMount", &[Value::from(console), Value::from(slot as u32)]);
    enter_now(c, sh, scene, slot, 0);
    true
}

/// Empties `slot` (calling `%image.onUnmount(%obj, %slot)`); false when it was empty.
fn unmount_image(c: &mut Console, sh: &Rc<RefCell<Shared>>, scene: u32, slot: usize) -> bool {
    let (old, console) = {
        let mut s = sh.borrow_mut();
        let Some(g) = s.objects.get_mut(&scene) else { return false };
        (g.images[slot].take(), g.console)
    };
    let Some(old) = old else { return false };
    if let Some(o) = sh.borrow_mut().world.as_mut().and_then(|w| w.get_mut(scene)) {
        o.set_thread(IMAGE_THREAD, None);
    }
    c.call_method_if_exists(old.image.data, "onUnmount", &[Value::from(console), Value::from(slot as u32)]);
    true
}

/// The slot of the image in `slot` of `a.this`, read with `f`.
fn read_slot(
    c: &mut Console,
    sh: &Rc<RefCell<Shared>>,
    a: &CallArgs<'_>,
    method: &str,
    f: impl FnOnce(Option<&Slot>) -> Value,
) -> Value {
    let Some(scene) = crate::handles::scene_of(c, sh, a, method) else { return Value::from(0) };
    let Some(slot) = slot_arg(c, a, 1, method) else { return Value::from(0) };
    let s = sh.borrow();
    f(s.objects.get(&scene).and_then(|g| g.images[slot].as_deref()))
}

/// Changes a condition of the image in `slot` of `a.this`.
fn write_slot(
    c: &mut Console,
    sh: &Rc<RefCell<Shared>>,
    a: &CallArgs<'_>,
    method: &str,
    f: impl FnOnce(&mut Slot),
) -> Value {
    let Some(scene) = crate::handles::scene_of(c, sh, a, method) else { return Value::from(false) };
    let Some(slot) = slot_arg(c, a, 1, method) else { return Value::from(false) };
    let mut s = sh.borrow_mut();
    match s.objects.get_mut(&scene).and_then(|g| g.images[slot].as_mut()) {
        Some(img) => {
            f(img);
            Value::from(true)
        }
        None => Value::from(false),
    }
}

pub(crate) fn register(con: &mut Console, shared: &Rc<RefCell<Shared>>) {
    let methods: &[(&str, u32, u32, &str, crate::handles::Method)] = &[
        (
            "mountImage",
            4,
            6,
            "mountImage(image, slot [, loaded = true, skin]) - mounts a ShapeBaseImageData",
            |c, sh, a| {
                let Some(scene) = crate::handles::scene_of(c, sh, a, "mountImage") else {
                    return Value::from(false);
                };
                let image =
                    c.find_object(&a.get(1)).filter(|i| crate::classes::is_a(c, *i, "ShapeBaseImageData"));
                let Some(image) = image else {
                    c.error(&format!("mountImage: \"{}\" is not a ShapeBaseImageData", a.str(1)));
                    return Value::from(false);
                };
                let Some(slot) = slot_arg(c, a, 2, "mountImage") else { return Value::from(false) };
                let loaded = a.len() <= 3 || a.bool(3);
                Value::from(mount_image(c, sh, scene, image, slot, loaded))
            },
        ),
        ("unmountImage", 3, 3, "unmountImage(slot)", |c, sh, a| {
            let Some(scene) = crate::handles::scene_of(c, sh, a, "unmountImage") else {
                return Value::from(false);
            };
            let Some(slot) = slot_arg(c, a, 1, "unmountImage") else { return Value::from(false) };
            Value::from(unmount_image(c, sh, scene, slot))
        }),
        ("getMountedImage", 3, 3, "getMountedImage(slot) - the image datablock, or 0", |c, sh, a| {
            read_slot(c, sh, a, "getMountedImage", |s| Value::from(s.map_or(0, |s| s.image.data)))
        }),
        ("getMountSlot", 3, 3, "getMountSlot(image) - the slot holding that image, or -1", |c, sh, a| {
            let Some(scene) = crate::handles::scene_of(c, sh, a, "getMountSlot") else {
                return Value::from(-1);
            };
            let image = c.find_object(&a.get(1));
            let s = sh.borrow();
            let slot = s.objects.get(&scene).and_then(|g| {
                g.images.iter().position(|i| i.as_ref().is_some_and(|i| Some(i.image.data) == image))
            });
            Value::from(slot.map_or(-1, |s| s as i64))
        }),
        ("setImageTrigger", 4, 4, "setImageTrigger(slot, down)", |c, sh, a| {
            let down = a.bool(2);
            write_slot(c, sh, a, "setImageTrigger", |s| s.image.run.trigger = down)
        }),
        ("getImageTrigger", 3, 3, "getImageTrigger(slot)", |c, sh, a| {
            read_slot(c, sh, a, "getImageTrigger", |s| Value::from(s.is_some_and(|s| s.image.run.trigger)))
        }),
        ("setImageAmmo", 4, 4, "setImageAmmo(slot, hasAmmo)", |c, sh, a| {
            let ammo = a.bool(2);
            write_slot(c, sh, a, "setImageAmmo", |s| s.image.run.ammo = ammo)
        }),
        ("getImageAmmo", 3, 3, "getImageAmmo(slot)", |c, sh, a| {
            read_slot(c, sh, a, "getImageAmmo", |s| Value::from(s.is_some_and(|s| s.image.run.ammo)))
        }),
        ("setImageLoaded", 4, 4, "setImageLoaded(slot, loaded)", |c, sh, a| {
            let loaded = a.bool(2);
            write_slot(c, sh, a, "setImageLoaded", |s| s.image.run.loaded = loaded)
        }),
        ("getImageLoaded", 3, 3, "getImageLoaded(slot)", |c, sh, a| {
            read_slot(c, sh, a, "getImageLoaded", |s| Value::from(s.is_some_and(|s| s.image.run.loaded)))
        }),
        ("setImageTarget", 4, 4, "setImageTarget(slot, hasTarget)", |c, sh, a| {
            let target = a.bool(2);
            write_slot(c, sh, a, "setImageTarget", |s| s.image.run.target = target)
        }),
        (
            "getImageState",
            3,
            3,
            "getImageState(slot) - the state's name, or \"Error\" for an empty slot",
            |c, sh, a| {
                read_slot(c, sh, a, "getImageState", |s| {
                    Value::from(s.map_or("Error", |s| s.image.state_name()).to_string())
                })
            },
        ),
        ("isImageFiring", 3, 3, "isImageFiring(slot) - in a stateFire state", |c, sh, a| {
            read_slot(c, sh, a, "isImageFiring", |s| {
                Value::from(s.is_some_and(|s| s.image.run.firing(&s.image.states)))
            })
        }),
        ("getMuzzlePoint", 3, 3, "getMuzzlePoint(slot) - where the image's shots start", |c, sh, a| {
            let Some(scene) = crate::handles::scene_of(c, sh, a, "getMuzzlePoint") else {
                return Value::Empty;
            };
            let Some(slot) = slot_arg(c, a, 1, "getMuzzlePoint") else { return Value::Empty };
            muzzle(&sh.borrow(), scene, slot)
                .map_or(Value::Empty, |(p, _)| Value::from(crate::handles::vec_text(p)))
        }),
        ("getMuzzleVector", 3, 3, "getMuzzleVector(slot) - the unit vector shots leave along", |c, sh, a| {
            let Some(scene) = crate::handles::scene_of(c, sh, a, "getMuzzleVector") else {
                return Value::Empty;
            };
            let Some(slot) = slot_arg(c, a, 1, "getMuzzleVector") else { return Value::Empty };
            muzzle(&sh.borrow(), scene, slot)
                .map_or(Value::Empty, |(_, d)| Value::from(crate::handles::vec_text(d)))
        }),
        ("getEyePoint", 2, 2, "getEyePoint()", |c, sh, a| {
            let Some(scene) = crate::handles::scene_of(c, sh, a, "getEyePoint") else { return Value::Empty };
            eye(&sh.borrow(), scene).map_or(Value::Empty, |(p, _)| Value::from(crate::handles::vec_text(p)))
        }),
        ("getEyeVector", 2, 2, "getEyeVector()", |c, sh, a| {
            let Some(scene) = crate::handles::scene_of(c, sh, a, "getEyeVector") else { return Value::Empty };
            eye(&sh.borrow(), scene).map_or(Value::Empty, |(_, d)| Value::from(crate::handles::vec_text(d)))
        }),
    ];
    crate::handles::register_all(con, shared, "ShapeBase", methods);
}
