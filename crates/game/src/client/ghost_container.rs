//! The client's ghosts in its container (V12's client container): each ghost's console
//! object with its world box and type mask, moved to where the ghost is drawn after every
//! frame, so a client script's `containerRayCast` and searches find the players, items, shots
//! and vehicles that client sees. The box and mask come from the ghost's datablock, as the
//! server's objects' do (`crate::placement`); terrain and interiors are in the same
//! container already (the world's ghosts put them there).

use crate::state::GameClass;
use glam::Vec3;
use std::collections::{BTreeMap, BTreeSet};
use v12_console_vm::{Console, ObjectId};
use v12_sim::container::{Container, ContainerHandle};

/// What the client knows of one ghost to place it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct GhostPlace {
    pub object: ObjectId,
    /// The ghost's datablock (server id) and its local copy.
    pub datablock: u32,
    pub local_datablock: Option<ObjectId>,
    pub pos: Vec3,
    pub alive: bool,
    pub hidden: bool,
}

/// The ghosts placed in one client container.
#[derive(Debug, Default)]
pub(crate) struct GhostContainer {
    /// Each datablock's (server id) class and box, read once.
    kinds: BTreeMap<u32, Option<(GameClass, Vec3)>>,
    placed: BTreeSet<ObjectId>,
}

/// The engine class a ghost of datablock class `engine_class` stands for (`None`: not a scene
/// object, as a trigger's).
fn ghost_class(con: &Console, db: Option<ObjectId>, engine_class: &str) -> Option<GameClass> {
    if db.is_some_and(|d| crate::classes::is_a(con, d, "TurretData")) {
        return Some(GameClass::Turret);
    }
    Some(match engine_class {
        "PlayerData" => GameClass::Player,
        "ItemData" => GameClass::Item,
        "StaticShapeData" => GameClass::StaticShape,
        "ProjectileData" => GameClass::Projectile,
        "CameraData" => GameClass::Camera,
        "VehicleData" => GameClass::Vehicle,
        "ForceFieldBareData" => GameClass::ForceField,
        _ => return None,
    })
}

impl GhostContainer {
    /// Puts ghost `g` (of datablock class `engine_class`) where it is, or takes it out when
    /// hidden or not a scene object.
    pub fn place(&mut self, con: &Console, handle: &ContainerHandle, g: GhostPlace, engine_class: &str) {
        let kind = *self.kinds.entry(g.datablock).or_insert_with(|| {
            let db = g.local_datablock?;
            let class = ghost_class(con, Some(db), engine_class)?;
            // The server warned about a junk box already; the same default here.
            let half = crate::placement::half_extents(con, class, db).unwrap_or_else(|(d, _)| d);
            Some((class, half))
        });
        let Ok(mut h) = handle.try_borrow_mut() else { return };
        let c = &mut h.container;
        match kind.filter(|_| !g.hidden) {
            Some((class, half)) => {
                let bounds = crate::placement::box_at(class, half, g.pos);
                match c.place(g.object, bounds, crate::placement::class_mask(class, g.alive)) {
                    Ok(true) => {
                        self.placed.insert(g.object);
                    }
                    Ok(false) => {}
                    Err(e) => tracing::warn!(%e, "ghost not placed in the client container"),
                }
            }
            None => Self::take_out(&mut self.placed, c, g.object),
        }
    }

    /// Takes ghost object `object` out (its ghost went).
    pub fn remove(&mut self, handle: &ContainerHandle, object: ObjectId) {
        if let Ok(mut h) = handle.try_borrow_mut() {
            Self::take_out(&mut self.placed, &mut h.container, object);
        }
    }

    /// Takes every ghost out (the connection ended).
    pub fn clear(&mut self, handle: &ContainerHandle) {
        if let Ok(mut h) = handle.try_borrow_mut() {
            for id in std::mem::take(&mut self.placed) {
                let _ = h.container.remove(id);
            }
        }
    }

    fn take_out(placed: &mut BTreeSet<ObjectId>, c: &mut Container, object: ObjectId) {
        if placed.remove(&object) {
            let _ = c.remove(object);
        }
    }
}
