//! The server's game objects in the container database, as V12's SceneObjects are: each
//! with its world box and type mask (`$TypeMasks::PlayerObjectType`, `ItemObjectType`,
//! `ProjectileObjectType`, ...), kept where the object is after every change a script makes
//! and after every tick, so `containerRayCast`, `initContainerRadiusSearch` and the other
//! container functions find players, items, shots and vehicles. A hidden object is out of
//! the container (V12 takes it out of the scene); a dead player is a corpse
//! (`CorpseObjectType` instead of `PlayerObjectType`). Container ids are console ids.

use crate::HIDDEN;
use crate::state::{DamageState, GameClass, GameObject, Shared};
use glam::Vec3;
use std::cell::RefCell;
use std::rc::Rc;
use v12_console_vm::{Console, ObjectId};
use v12_sim::container::{Aabb, type_masks as tm};

/// The type mask of a game object now.
pub fn type_mask(g: &GameObject) -> u32 {
    class_mask(g.class, g.damage_state == DamageState::Enabled)
}

/// The type mask of an object of `class` (a player that is not `alive` is a corpse).
pub fn class_mask(class: GameClass, alive: bool) -> u32 {
    let shape = tm::GAME_BASE | tm::SHAPE_BASE;
    match class {
        GameClass::Player if !alive => shape | tm::CORPSE,
        GameClass::Player => shape | tm::PLAYER,
        GameClass::Item => shape | tm::ITEM,
        GameClass::StaticShape => shape | tm::STATIC_SHAPE | tm::STATIC_TS,
        GameClass::Turret => shape | tm::STATIC_SHAPE | tm::TURRET,
        GameClass::Vehicle => shape | tm::VEHICLE,
        GameClass::Projectile => tm::GAME_BASE | tm::PROJECTILE,
        GameClass::Camera => tm::GAME_BASE | tm::CAMERA,
        GameClass::ForceField => tm::GAME_BASE | tm::FORCE_FIELD | tm::STATIC,
        GameClass::Trigger => tm::TRIGGER,
    }
}

/// The world box of a game object at `pos`: a projectile's box is around its centre, every
/// other object stands on its box's bottom face.
pub fn world_box(g: &GameObject, pos: Vec3) -> Aabb {
    box_at(g.class, g.half_extents, pos)
}

/// The world box of an object of `class` with these half extents at `pos`.
pub fn box_at(class: GameClass, half: Vec3, pos: Vec3) -> Aabb {
    match class {
        GameClass::Projectile => Aabb::around(pos, half),
        _ => Aabb::around(pos + Vec3::Z * half.z, half),
    }
}

/// The box (half extents) of an object of `class` with datablock `db`: the datablock's
/// `boundingBox` for shapes, turrets, vehicles and force fields, else the class's default.
/// A junk `boundingBox` is `Err` with the default and the text, for the caller to report.
pub fn half_extents(con: &Console, class: GameClass, db: ObjectId) -> Result<Vec3, (Vec3, String)> {
    let default = match class {
        GameClass::Vehicle => crate::vehicles::default_box(con, db),
        _ => crate::default_half_extents(class),
    };
    if !matches!(
        class,
        GameClass::StaticShape | GameClass::Turret | GameClass::Vehicle | GameClass::ForceField
    ) {
        return Ok(default);
    }
    match crate::shape_half_extents(con, db) {
        Ok(h) => Ok(h.unwrap_or(default)),
        Err(junk) => Err((default, junk)),
    }
}

/// Puts scene object `scene` where it is now (or takes it out, hidden or gone).
pub(crate) fn place(sh: &Rc<RefCell<Shared>>, scene: u32) {
    place_in(&mut sh.borrow_mut(), scene);
}

/// [`place`] on a borrowed state.
pub(crate) fn place_in(s: &mut Shared, scene: u32) {
    let Some(handle) = s.container.clone() else { return };
    let Shared { objects, world, placed, .. } = s;
    let Some(g) = objects.get_mut(&scene) else { return };
    let at = world.as_ref().and_then(|w| w.get(scene));
    place_one(&mut handle.borrow_mut().container, placed, g, at);
}

/// Every game object where it is now (after a tick moved them).
pub(crate) fn place_all(s: &mut Shared) {
    let Some(handle) = s.container.clone() else { return };
    let c = &mut handle.borrow_mut().container;
    let Shared { objects, world, placed, .. } = s;
    for (&scene, g) in objects.iter_mut() {
        place_one(c, placed, g, world.as_ref().and_then(|w| w.get(scene)));
    }
}

/// Puts game object `g` (scene object `at`) where it is, or takes it out (hidden or gone);
/// an object whose box and mask are as last placed is left alone.
fn place_one(
    c: &mut v12_sim::container::Container,
    placed: &mut std::collections::BTreeSet<ObjectId>,
    g: &mut GameObject,
    at: Option<&v12_sim::scene::SceneObject>,
) {
    match at.filter(|o| o.flags & HIDDEN == 0).map(|o| o.state.pos) {
        Some(pos) => {
            let now = (world_box(g, pos), type_mask(g));
            if g.placed_as == Some(now) {
                return;
            }
            // Only a first placing adds to `placed` (every id in the container is in it).
            match c.place(g.console, now.0, now.1) {
                Ok(first) => {
                    g.placed_as = Some(now);
                    if first {
                        placed.insert(g.console);
                    }
                }
                Err(e) => tracing::warn!(%e, "game object not placed in the container"),
            }
        }
        None => {
            g.placed_as = None;
            if placed.remove(&g.console) {
                let _ = c.remove(g.console);
            }
        }
    }
}

/// Takes the object with console id `console` out of the container (it was deleted).
pub(crate) fn remove(s: &mut Shared, console: u32) {
    if let Some(g) = s.by_console.get(&console).and_then(|scene| s.objects.get_mut(scene)) {
        g.placed_as = None;
    }
    if s.placed.remove(&console)
        && let Some(h) = &s.container
    {
        let _ = h.borrow_mut().container.remove(console);
    }
}

/// Takes every game object out (the server went away).
pub(crate) fn clear(s: &mut Shared) {
    if let Some(h) = &s.container {
        let mut h = h.borrow_mut();
        for id in std::mem::take(&mut s.placed) {
            let _ = h.container.remove(id);
        }
        for g in s.objects.values_mut() {
            g.placed_as = None;
        }
    }
}
