//! Finding what a script's arguments name: the game object behind a method's `%this`
//! ([`scene_of`]) and a vector as V12 reads it ([`parse_vec3`]). Every game class's methods
//! use these, so they sit below all of them.

use crate::state::{GhostState, Shared};
use glam::Vec3;
use std::cell::RefCell;
use std::rc::Rc;
use v12_console_vm::{CallArgs, Console};

/// `"x y z"` as V12 reads it (the mission's `vec3`: junk and missing words are 0), with
/// non-finite values 0 too, so no script can put an infinity into the simulation.
pub fn parse_vec3(text: &str) -> Vec3 {
    let v = v12_world::mission::vec3(text);
    Vec3::select(v.is_finite_mask(), v, Vec3::ZERO)
}

/// The scene object behind `a.this`, or a console error naming the method.
pub(crate) fn scene_of(
    c: &mut Console,
    sh: &Rc<RefCell<Shared>>,
    a: &CallArgs<'_>,
    method: &str,
) -> Option<u32> {
    let id = a.this?;
    let scene = sh.borrow().by_console.get(&id).copied();
    if scene.is_none() {
        if c.object_data::<GhostState>(id).is_some() {
            c.error(&format!("{method}: object {id} is a client's ghost; change it on the server"));
        } else {
            c.error(&format!("{method}: object {id} is not in the game world"));
        }
    }
    scene
}
