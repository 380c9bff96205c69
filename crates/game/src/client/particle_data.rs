//! The particle datablocks as the particle system's descriptions (issue 35): ParticleData
//! and ParticleEmitterData read from the client's copies, for the effects of shots and
//! explosions (`client::effects`) and of things that move (`client::movers`).

use glam::Vec4;
use std::sync::Arc;
use v12_console_vm::{Console, ObjectId};
use v12_render3d::{EmitterDesc, ParticleDesc};

/// Most particle kinds an emitter names.
const MAX_KINDS: usize = 8;

/// The datablock `name` names when it is a `class`.
pub(crate) fn find_of(con: &Console, name: &str, class: &str) -> Option<ObjectId> {
    let name = name.trim();
    if name.is_empty() {
        return None;
    }
    let found = con.find_object_str(name).filter(|&id| crate::classes::is_a(con, id, class));
    if found.is_none() {
        tracing::debug!(name, class, "effect names no datablock of its class");
    }
    found
}

/// A console with the game's object classes and the datablocks `script` declares (the
/// effect tests' common start).
#[cfg(test)]
pub(crate) fn datablock_console(script: &str) -> Console {
    let mut con = Console::new();
    con.set_output(Box::new(v12_console_vm::BufferSink::new()));
    let _ = con.register_class("SceneObject", "SimObject");
    let _ = con.register_class("GameConnection", "SimObject");
    let shared = std::rc::Rc::new(std::cell::RefCell::new(crate::state::Shared::default()));
    crate::objects::register(&mut con, &shared);
    con.eval(script).unwrap();
    con
}

/// A colour field ("r g b" or "r g b a"; alpha 1 when left out), `None` when it is not one.
pub(crate) fn color_field(con: &Console, db: ObjectId, field: &str) -> Option<Vec4> {
    let text = con.get_field(db, field).as_text().to_string();
    let w: Vec<f32> = text.split_whitespace().filter_map(|x| x.parse().ok()).collect();
    match w.as_slice() {
        [r, g, b] => Some(Vec4::new(*r, *g, *b, 1.0)),
        [r, g, b, a] => Some(Vec4::new(*r, *g, *b, *a)),
        _ => None,
    }
}

/// A ParticleData datablock as the particle system's description.
pub fn particle_desc(con: &Console, db: ObjectId) -> ParticleDesc {
    let num = |f: &str, default: f32| crate::classes::num_field(con, db, f).map_or(default, |v| v as f32);
    let d = ParticleDesc::default();
    let mut colors = d.colors;
    let mut sizes = d.sizes;
    let mut times = d.times;
    for k in 0..4 {
        colors[k] = color_field(con, db, &format!("colors{k}")).unwrap_or(colors[k]);
        sizes[k] = num(&format!("sizes{k}"), sizes[k]);
        times[k] = num(&format!("times{k}"), times[k]);
    }
    let texture = con.get_field(db, "textureName").as_text().trim().to_string();
    ParticleDesc {
        lifetime_ms: num("lifetimeMS", 1000.0).max(1.0) as u32,
        lifetime_variance_ms: num("lifetimeVarianceMS", 0.0).max(0.0) as u32,
        drag: num("dragCoefficient", 0.0),
        gravity: num("gravityCoefficient", 0.0),
        inherited_velocity: num("inheritedVelFactor", 0.0),
        constant_acceleration: num("constantAcceleration", 0.0),
        spin_speed: num("spinSpeed", 0.0),
        spin_random_min: num("spinRandomMin", 0.0),
        spin_random_max: num("spinRandomMax", 0.0),
        colors,
        sizes,
        times,
        texture: (!texture.is_empty()).then(|| Arc::from(texture.replace('\\', "/"))),
        additive: !crate::classes::bool_field(con, db, "useInvAlpha"),
    }
}

/// A ParticleEmitterData datablock as the particle system's description (`None` when its
/// `particles` name no ParticleData).
pub fn emitter_desc(con: &Console, db: ObjectId) -> Option<Arc<EmitterDesc>> {
    let num = |f: &str, default: f32| crate::classes::num_field(con, db, f).map_or(default, |v| v as f32);
    let names = con.get_field(db, "particles").as_text().to_string();
    let particles: Vec<Arc<ParticleDesc>> = names
        .split(|c: char| c.is_whitespace())
        .filter_map(|n| find_of(con, n, "ParticleData"))
        .take(MAX_KINDS)
        .map(|p| Arc::new(particle_desc(con, p)))
        .collect();
    if particles.is_empty() {
        return None;
    }
    Some(Arc::new(EmitterDesc {
        period_ms: num("ejectionPeriodMS", 100.0).max(1.0) as u32,
        period_variance_ms: num("periodVarianceMS", 0.0).max(0.0) as u32,
        velocity: num("ejectionVelocity", 2.0),
        velocity_variance: num("velocityVariance", 1.0),
        offset: num("ejectionOffset", 0.0),
        theta_min: num("thetaMin", 0.0),
        theta_max: num("thetaMax", 90.0),
        phi_reference_vel: num("phiReferenceVel", 0.0),
        phi_variance: num("phiVariance", 360.0),
        particles,
    }))
}
