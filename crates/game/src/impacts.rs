//! Impacts: a player or vehicle whose velocity changes by more than its datablock's
//! `minImpactSpeed` in one tick beyond what gravity and drag explain (a fall onto the
//! ground, a wall at speed) has hit something. V12 calls `%data.onImpact(%obj, %col, %vec,
//! %speed)`; when the datablock's namespace has no `onImpact`, the engine applies
//! `(speed - minImpactSpeed) * speedDamageScale` damage itself, so falling hurts in a game
//! that writes no script for it.

use crate::state::{GameClass, Shared};
use glam::Vec3;
use std::cell::RefCell;
use std::rc::Rc;
use v12_console_vm::{Console, Value};
use v12_sim::scene::TICK_SECONDS;

/// One impact found in a tick: scene id, the velocity change and its size.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Impact {
    pub obj: u32,
    pub change: Vec3,
    pub speed: f32,
}

/// Compares every player's and vehicle's velocity with the last tick's (mounted riders and
/// hidden objects aside) and records this tick's for the next.
pub(crate) fn find(s: &mut Shared) -> Vec<Impact> {
    let mut out = Vec::new();
    let Some(world) = s.world.as_ref() else { return out };
    for (&id, g) in s.objects.iter_mut() {
        if !matches!(g.class, GameClass::Player | GameClass::Vehicle) {
            continue;
        }
        let Some(o) = world.get(id) else { continue };
        let vel = o.state.vel;
        let last = g.last_vel;
        g.last_vel = vel;
        if g.mount.is_some() || o.flags & crate::HIDDEN != 0 {
            continue;
        }
        let gravity = if g.tuning.flies { 0.0 } else { crate::WORLD_GRAVITY };
        let expected = Vec3::new(last.x * 0.8, last.y * 0.8, last.z - gravity * TICK_SECONDS);
        let change = vel - expected;
        let speed = change.length();
        if speed > g.min_impact {
            out.push(Impact { obj: id, change, speed });
        }
    }
    out
}

/// Calls `onImpact` (or applies the engine's damage) for each impact.
pub(crate) fn run(c: &mut Console, sh: &Rc<RefCell<Shared>>, impacts: &[Impact]) {
    for i in impacts {
        let Some((data, console)) = sh.borrow().objects.get(&i.obj).map(|g| (g.datablock, g.console)) else {
            continue;
        };
        let vec = Value::from(format!("{} {} {}", i.change.x, i.change.y, i.change.z));
        let args = [Value::from(console), Value::from(0), vec, Value::Float(f64::from(i.speed))];
        if c.call_method_if_exists(data, "onImpact", &args).is_none() {
            let min = crate::classes::num_field(c, data, "minImpactSpeed").unwrap_or(25.0) as f32;
            let scale = crate::classes::num_field(c, data, "speedDamageScale").unwrap_or(0.0) as f32;
            let amount = (i.speed - min).max(0.0) * scale;
            let before = sh.borrow().objects.get(&i.obj).map(|g| g.damage);
            if amount > 0.0
                && let Some(before) = before
            {
                crate::damage::set_damage(c, sh, i.obj, before + amount);
            }
        }
    }
}
