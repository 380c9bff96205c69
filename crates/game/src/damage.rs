//! ShapeBase's damage model and energy, as V12's: a damage level from 0 to the datablock's
//! `maxDamage`; damage states `Enabled`, `Disabled` (at `disabledLevel`, default
//! `maxDamage`) and `Destroyed` (at `destroyedLevel`, when the datablock sets one), each
//! change calling `%data.onDisabled(%obj, %lastState)`, `onDestroyed` or `onEnabled`, and
//! every change of level `%data.onDamage(%obj, %delta)`; repair through a reserve spent at
//! `repairRate` a tick (`applyRepair`); energy from 0 to `maxEnergy`, recharged by
//! `rechargeRate` a tick.

use crate::handles::number_arg as number;
use crate::state::{DamageState, GameObject, Shared};
use std::cell::RefCell;
use std::rc::Rc;
use v12_console_vm::{CallArgs, Console, ObjectId, Value};

/// Reads an object's damage and energy settings from its datablock (at `onAdd`).
pub(crate) fn init(con: &Console, obj: &mut GameObject, datablock: ObjectId) {
    let num = |name: &str| crate::classes::num_field(con, datablock, name);
    obj.max_damage = finite_or(con.get_field(datablock, "maxDamage").to_f64(), 100.0).max(0.0);
    obj.disabled_level = num("disabledLevel").filter(|v| *v >= 0.0).map_or(obj.max_damage, |v| v as f32);
    obj.destroyed_level = num("destroyedLevel").filter(|v| *v >= 0.0).map(|v| v as f32);
    obj.repair_rate = num("repairRate").unwrap_or(0.0033) as f32;
    obj.max_energy = num("maxEnergy").unwrap_or(0.0).max(0.0) as f32;
    obj.recharge_rate = num("rechargeRate").unwrap_or(0.0) as f32;
    // V12 starts a shape with full energy only when the script says so; players in V12's
    // games are given it in `onAdd`. Starting full is what a script-only mod expects.
    obj.energy = obj.max_energy;
}

fn finite_or(v: f64, default: f32) -> f32 {
    if v.is_finite() { v as f32 } else { default }
}

/// The damage state a level gives.
pub(crate) fn state_for(obj: &GameObject, level: f32) -> DamageState {
    if obj.destroyed_level.is_some_and(|d| level >= d) {
        DamageState::Destroyed
    } else if level >= obj.disabled_level && obj.max_damage > 0.0 {
        DamageState::Disabled
    } else {
        DamageState::Enabled
    }
}

/// Sets the damage level (clamped to 0..=maxDamage), updates the health the clients see,
/// calls `%data.onDamage(%obj, %delta)` and the damage state's callbacks (V12 passes the
/// state left behind: `onDisabled(%obj, "Enabled")`). A shape destroyed from Enabled is
/// disabled on the way, as in V12.
pub(crate) fn set_damage(c: &mut Console, sh: &Rc<RefCell<Shared>>, scene: u32, level: f32) {
    let (delta, before, after, datablock, console) = {
        let mut s = sh.borrow_mut();
        let Some(g) = s.objects.get_mut(&scene) else { return };
        let before = g.damage;
        if level.is_finite() {
            g.damage = level.clamp(0.0, g.max_damage.max(0.0));
        }
        let (old_state, new_state) = (g.damage_state, state_for(g, g.damage));
        g.damage_state = new_state;
        let health = g.health();
        let (delta, db, console) = (g.damage - before, g.datablock, g.console);
        if let Some(o) = s.world.as_mut().and_then(|w| w.get_mut(scene)) {
            let f = o.flags;
            o.set_health_flags(health, f);
        }
        (delta, old_state, new_state, db, console)
    };
    if delta != 0.0 {
        c.call_method_if_exists(
            datablock,
            "onDamage",
            &[Value::from(console), Value::Float(f64::from(delta))],
        );
    }
    crate::placement::place(sh, scene);
    damage_state_callbacks(c, sh, datablock, console, before, after);
}

/// `setDamageState`'s callbacks from `before` to `after`, each once, in V12's order.
fn damage_state_callbacks(
    c: &mut Console,
    sh: &Rc<RefCell<Shared>>,
    datablock: ObjectId,
    console: ObjectId,
    before: DamageState,
    after: DamageState,
) {
    let mut last = before;
    let mut step = |c: &mut Console, to: DamageState, callback: &str| {
        if !sh.borrow().by_console.contains_key(&console) {
            return; // a callback deleted it
        }
        c.call_method_if_exists(datablock, callback, &[Value::from(console), Value::from(last.name())]);
        last = to;
    };
    match (before, after) {
        (a, b) if a == b => {}
        (DamageState::Enabled, DamageState::Destroyed) => {
            step(c, DamageState::Disabled, "onDisabled");
            step(c, DamageState::Destroyed, "onDestroyed");
        }
        (_, DamageState::Destroyed) => step(c, DamageState::Destroyed, "onDestroyed"),
        (_, DamageState::Disabled) => step(c, DamageState::Disabled, "onDisabled"),
        (_, DamageState::Enabled) => step(c, DamageState::Enabled, "onEnabled"),
    }
}

/// One shape's repair and recharge in a tick: a repair reserve is spent at `repairRate` a
/// tick; energy recharges by `rechargeRate` a tick, within 0..=maxEnergy. Returns the new
/// damage level when the repair changed it.
pub(crate) fn tick_one(sh: &mut Shared, id: u32) -> Option<f32> {
    // A controlled player recharges in its moves (predicted by its client), not here.
    let by_moves = sh.control.contains_key(&id);
    let g = sh.objects.get_mut(&id)?;
    if g.max_energy > 0.0 && g.recharge_rate != 0.0 && !(by_moves && g.tuning.energy.is_some()) {
        g.energy = (g.energy + g.recharge_rate).clamp(0.0, g.max_energy);
    }
    if g.repair_reserve > 0.0 {
        let step = g.repair_rate.max(0.0).min(g.repair_reserve);
        g.repair_reserve -= step;
        if step > 0.0 {
            return Some(g.damage - step);
        }
    }
    None
}

/// The game object behind `a.this` on the server, with `f` applied; `None` (and a console
/// error naming the method) for anything else.
fn with_obj<T>(
    c: &mut Console,
    sh: &Rc<RefCell<Shared>>,
    a: &CallArgs<'_>,
    method: &str,
    f: impl FnOnce(&mut GameObject) -> T,
) -> Option<T> {
    let scene = crate::handles::scene_of(c, sh, a, method)?;
    sh.borrow_mut().objects.get_mut(&scene).map(f)
}

/// Lava's burn this tick (`crate::liquid`) on every living player whose feet are in it, into
/// the tick's pending damage; nothing to do without a burning liquid (no object is touched
/// then: this runs every tick).
pub(crate) fn burn_in_lava(sh: &mut Shared) {
    let Some(scene) = sh.world.as_ref().filter(|_| sh.water.burns()) else { return };
    let dt = v12_sim::scene::TICK_SECONDS;
    for (id, g) in &sh.objects {
        if g.class != crate::state::GameClass::Player || g.damage >= g.max_damage {
            continue;
        }
        let Some(o) = scene.get(*id) else { continue };
        if let Some((_, liquid)) = sh.water.at(o.state.pos + glam::Vec3::Z * 0.1)
            && liquid.burn > 0.0
        {
            sh.pending_damage.push((*id, liquid.burn * g.max_damage * dt));
        }
    }
}

pub(crate) fn register(con: &mut Console, shared: &Rc<RefCell<Shared>>) {
    let methods: &[(&str, u32, u32, &str, crate::handles::Method)] = &[
        ("getDamageLevel", 2, 2, "getDamageLevel() - 0 (unhurt) to maxDamage", |c, sh, a| {
            if let Some(g) = a.this.and_then(|id| c.object_data::<crate::state::GhostState>(id)) {
                return Value::Float(f64::from(100 - g.health.min(100)) / 100.0);
            }
            with_obj(c, sh, a, "getDamageLevel", |g| Value::Float(f64::from(g.damage)))
                .unwrap_or(Value::from(0))
        }),
        (
            "getDamagePercent",
            2,
            2,
            "getDamagePercent() - the damage level over maxDamage, 0 to 1",
            |c, sh, a| {
                if let Some(g) = a.this.and_then(|id| c.object_data::<crate::state::GhostState>(id)) {
                    return Value::Float(f64::from(100 - g.health.min(100)) / 100.0);
                }
                with_obj(c, sh, a, "getDamagePercent", |g| {
                    Value::Float(if g.max_damage > 0.0 { f64::from(g.damage / g.max_damage) } else { 0.0 })
                })
                .unwrap_or(Value::from(0))
            },
        ),
        ("setDamageLevel", 3, 3, "setDamageLevel(level)", |c, sh, a| {
            let Some(scene) = crate::handles::scene_of(c, sh, a, "setDamageLevel") else {
                return Value::from(false);
            };
            let Some(level) = number(c, a, 1, "setDamageLevel") else { return Value::from(false) };
            set_damage(c, sh, scene, level);
            Value::from(true)
        }),
        (
            "applyDamage",
            3,
            3,
            "applyDamage(amount) - adds to the damage level (onDamage, and the damage state's callbacks)",
            |c, sh, a| {
                let Some(scene) = crate::handles::scene_of(c, sh, a, "applyDamage") else {
                    return Value::from(false);
                };
                let Some(amount) = number(c, a, 1, "applyDamage") else { return Value::from(false) };
                let Some(before) = sh.borrow().objects.get(&scene).map(|g| g.damage) else {
                    return Value::from(false);
                };
                set_damage(c, sh, scene, before + amount);
                Value::from(true)
            },
        ),
        (
            "applyRepair",
            3,
            3,
            "applyRepair(amount) - repaired at the datablock's repairRate a tick",
            |c, sh, a| {
                let Some(amount) = number(c, a, 1, "applyRepair") else { return Value::from(false) };
                with_obj(c, sh, a, "applyRepair", |g| {
                    if amount > 0.0 {
                        g.repair_reserve = (g.repair_reserve + amount).min(g.damage);
                    }
                    Value::from(true)
                })
                .unwrap_or(Value::from(false))
            },
        ),
        ("getRepairRate", 2, 2, "getRepairRate() - damage repaired a tick", |c, sh, a| {
            with_obj(c, sh, a, "getRepairRate", |g| Value::Float(f64::from(g.repair_rate)))
                .unwrap_or(Value::from(0))
        }),
        ("setRepairRate", 3, 3, "setRepairRate(rate) - damage repaired a tick", |c, sh, a| {
            let Some(rate) = number(c, a, 1, "setRepairRate") else { return Value::from(false) };
            with_obj(c, sh, a, "setRepairRate", |g| g.repair_rate = rate.max(0.0));
            Value::from(true)
        }),
        ("getState", 2, 2, "getState() - the damage state: Enabled, Disabled or Destroyed", |c, sh, a| {
            with_obj(c, sh, a, "getState", |g| Value::from(g.damage_state.name())).unwrap_or(Value::Empty)
        }),
        (
            "setDamageState",
            3,
            3,
            "setDamageState(state) - Enabled, Disabled or Destroyed, with its callbacks",
            |c, sh, a| {
                let Some(scene) = crate::handles::scene_of(c, sh, a, "setDamageState") else {
                    return Value::from(false);
                };
                let to = match a.str(1).to_ascii_lowercase().as_str() {
                    "enabled" => DamageState::Enabled,
                    "disabled" => DamageState::Disabled,
                    "destroyed" => DamageState::Destroyed,
                    other => {
                        c.error(&format!(
                            "setDamageState: \"{other}\" is not Enabled, Disabled or Destroyed"
                        ));
                        return Value::from(false);
                    }
                };
                let Some((before, data, console)) = sh.borrow_mut().objects.get_mut(&scene).map(|g| {
                    let before = g.damage_state;
                    g.damage_state = to;
                    (before, g.datablock, g.console)
                }) else {
                    return Value::from(false);
                };
                crate::placement::place(sh, scene);
                damage_state_callbacks(c, sh, data, console, before, to);
                Value::from(true)
            },
        ),
        ("getDamageState", 2, 2, "getDamageState() - Enabled, Disabled or Destroyed", |c, sh, a| {
            with_obj(c, sh, a, "getDamageState", |g| Value::from(g.damage_state.name()))
                .unwrap_or(Value::Empty)
        }),
        ("isEnabled", 2, 2, "isEnabled()", |c, sh, a| {
            Value::from(
                with_obj(c, sh, a, "isEnabled", |g| g.damage_state == DamageState::Enabled).unwrap_or(false),
            )
        }),
        ("isDisabled", 2, 2, "isDisabled() - disabled or destroyed", |c, sh, a| {
            Value::from(
                with_obj(c, sh, a, "isDisabled", |g| g.damage_state != DamageState::Enabled).unwrap_or(false),
            )
        }),
        ("isDestroyed", 2, 2, "isDestroyed()", |c, sh, a| {
            Value::from(
                with_obj(c, sh, a, "isDestroyed", |g| g.damage_state == DamageState::Destroyed)
                    .unwrap_or(false),
            )
        }),
        ("getEnergyLevel", 2, 2, "getEnergyLevel() - 0 to maxEnergy", |c, sh, a| {
            with_obj(c, sh, a, "getEnergyLevel", |g| Value::Float(f64::from(g.energy)))
                .unwrap_or(Value::from(0))
        }),
        ("setEnergyLevel", 3, 3, "setEnergyLevel(level) - clamped to 0..maxEnergy", |c, sh, a| {
            let Some(level) = number(c, a, 1, "setEnergyLevel") else { return Value::from(false) };
            with_obj(c, sh, a, "setEnergyLevel", |g| g.energy = level.clamp(0.0, g.max_energy));
            Value::from(true)
        }),
        ("getEnergyPercent", 2, 2, "getEnergyPercent() - energy over maxEnergy, 0 to 1", |c, sh, a| {
            with_obj(c, sh, a, "getEnergyPercent", |g| {
                Value::Float(if g.max_energy > 0.0 { f64::from(g.energy / g.max_energy) } else { 0.0 })
            })
            .unwrap_or(Value::from(0))
        }),
        ("getRechargeRate", 2, 2, "getRechargeRate() - energy a tick", |c, sh, a| {
            with_obj(c, sh, a, "getRechargeRate", |g| Value::Float(f64::from(g.recharge_rate)))
                .unwrap_or(Value::from(0))
        }),
        ("setRechargeRate", 3, 3, "setRechargeRate(rate) - energy a tick", |c, sh, a| {
            let Some(rate) = number(c, a, 1, "setRechargeRate") else { return Value::from(false) };
            with_obj(c, sh, a, "setRechargeRate", |g| g.recharge_rate = rate);
            Value::from(true)
        }),
    ];
    crate::handles::register_all(con, shared, "ShapeBase", methods);
}
