//! Finding what a script's arguments name: the game object behind a method's `%this`
//! ([`scene_of`]), a vector as V12 reads it ([`parse_vec3`]) and writes it ([`vec_text`]), and a
//! number argument that refuses junk ([`number_arg`]). Every game class's methods use these,
//! so they sit below all of them.

use crate::state::{GhostState, Shared};
use glam::Vec3;
use std::cell::RefCell;
use std::rc::Rc;
use v12_console_vm::{CallArgs, Console, Value};

/// `"x y z"` as V12 reads it (the mission's `vec3`: junk and missing words are 0), with
/// non-finite values 0 too, so no script can put an infinity into the simulation.
pub fn parse_vec3(text: &str) -> Vec3 {
    let v = v12_world::mission::vec3(text);
    Vec3::select(v.is_finite_mask(), v, Vec3::ZERO)
}

/// A vector as scripts read it: `"x y z"`.
pub fn vec_text(v: Vec3) -> String {
    format!("{} {} {}", v.x, v.y, v.z)
}

/// Number argument `i`, or `None` (with a console error naming the method) for junk: text
/// that is not a finite number (V12 would read it as 0 and, say, heal a shape completely).
pub(crate) fn number_arg(c: &mut Console, a: &CallArgs<'_>, i: usize, method: &str) -> Option<f32> {
    let v = a.str(i).trim().parse::<f64>().ok().filter(|v| v.is_finite());
    if v.is_none() {
        c.error(&format!("{method}: \"{}\" is not a number", a.str(i)));
    }
    v.map(|v| v as f32)
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

/// A script method of the game classes: the console, the shared game state, the arguments.
pub(crate) type Method = fn(&mut Console, &Rc<RefCell<Shared>>, &CallArgs<'_>) -> Value;

/// Registers `methods` (name, least and most arguments, usage, body) on console class `class`,
/// each holding the shared game state.
pub(crate) fn register_all(
    con: &mut Console,
    shared: &Rc<RefCell<Shared>>,
    class: &str,
    methods: &[(&str, u32, u32, &str, Method)],
) {
    for &(name, min, max, usage, f) in methods {
        let sh = shared.clone();
        con.register_method(class, name, min, max, usage, move |c, a| f(c, &sh, a));
    }
}
