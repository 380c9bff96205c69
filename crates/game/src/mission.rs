//! The game on its mission: the server's terrain and building (from `missions/arena.mis`),
//! ghosted to clients beside the scene objects, and the ground players move on.
//!
//! Ghost ids: the server's world objects use ids from [`WORLD_ID_BASE`] up, far above the
//! scene's; a client's world ghosts count down from the top of the id space (see
//! `WorldGhosts`), far above its scene ghosts.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use v12_console_vm::Console;
use v12_netobject::ConnectionId;
use v12_netobject::ghost::{GhostClientWorld, GhostFrame, GhostWorld, NetObject, ObjectId, Point3};
use v12_resource::ResourceManager;
use v12_sim::container::{ScriptContainer, StaticGeometry};
use v12_sim::scene::{ClientScene, SceneWorld};
use v12_world::mission::{WorldGhosts, WorldObjectGhost};
use v12_world::{MissionHandle, MissionWorld, SceneGraph, register_mission_classes};

/// First server object id of a world object (terrain block, interior) on the network.
pub const WORLD_ID_BASE: u32 = 0x4000_0000;

/// A client's world ghosts are at or above this id (they count down from `u32::MAX`).
const CLIENT_WORLD_IDS: u32 = 0xF000_0000;

/// Gives the console the mission classes over `resources`; returns the world they build.
pub fn install(con: &mut Console, resources: Rc<ResourceManager>) -> MissionHandle {
    // The world's container answers the scripts' `containerRayCast` and radius searches.
    let container = Rc::new(RefCell::new(ScriptContainer::default()));
    v12_sim::container::register_container_functions(con, container.clone());
    let world = MissionWorld::new(resources, container);
    register_mission_classes(con, world.clone());
    world
}

/// How many world objects the server ghosts (terrain blocks, interiors, skies and water blocks).
pub fn ghost_count(world: &MissionHandle) -> usize {
    let w = world.borrow();
    w.terrains.len() + w.interiors.len() + w.skies.len() + w.waters.len()
}

/// How many terrain blocks and interiors the world holds.
pub fn object_count(world: &MissionHandle) -> usize {
    let w = world.borrow();
    w.terrains.len() + w.interiors.len()
}

/// `ground` once the world has something to stand on; `None` while it is empty (a client
/// before the server's world arrived plays on the flat arena, without gravity).
pub fn loaded_ground(
    world: &MissionHandle,
    ground: &Rc<dyn StaticGeometry>,
) -> Option<Rc<dyn StaticGeometry>> {
    (object_count(world) > 0).then(|| ground.clone())
}

/// The height of the ground under (x, y): the highest surface (a roof before the floor under
/// it), or 0 with no ground.
pub fn ground_height(ground: Option<&Rc<dyn StaticGeometry>>, x: f32, y: f32) -> f32 {
    let (top, bottom) = (glam::Vec3::new(x, y, 1000.0), glam::Vec3::new(x, y, -1000.0));
    ground.and_then(|g| g.cast_ray(top, bottom)).map_or(0.0, |(t, _)| top.z + (bottom.z - top.z) * t)
}

/// The server's world objects as ghosts, in a stable order (by console id).
pub fn world_ghosts(world: &MissionHandle) -> Vec<WorldObjectGhost> {
    let w = world.borrow();
    let mut ids: Vec<u32> = w
        .terrains
        .keys()
        .chain(w.interiors.keys())
        .chain(w.skies.keys())
        .chain(w.waters.keys())
        .copied()
        .collect();
    ids.sort_unstable();
    ids.into_iter().filter_map(|id| w.ghost_of(id)).collect()
}

/// What the server ghosts: its scene objects and its world objects. With `zones`, a scene
/// object is in a client's scope only if it stands in a zone the client's camera sees
/// through the portals (V12's `SceneGraph::scopeScene`), within the distance limit.
#[derive(Debug)]
pub struct ServerObjects<'a> {
    pub scene: &'a SceneWorld,
    pub world: &'a [WorldObjectGhost],
    pub zones: Option<&'a SceneGraph>,
}

/// Half size of the box a scene object's zones are found with (a player's).
const OBJECT_HALF: glam::Vec3 = glam::Vec3::new(0.4, 0.4, 0.9);

impl GhostWorld for ServerObjects<'_> {
    fn object(&self, id: ObjectId) -> Option<&dyn NetObject> {
        match id.0.checked_sub(WORLD_ID_BASE) {
            Some(i) => self.world.get(i as usize).map(|g| g as &dyn NetObject),
            None => self.scene.object(id),
        }
    }
    fn for_each_scope_always(&self, f: &mut dyn FnMut(ObjectId)) {
        self.scene.for_each_scope_always(f);
        for i in 0..self.world.len() {
            f(ObjectId(WORLD_ID_BASE + i as u32));
        }
    }
    fn objects_in_radius(&self, center: Point3, radius: f32, f: &mut dyn FnMut(ObjectId, f32)) {
        let Some(graph) = self.zones else {
            self.scene.objects_in_radius(center, radius, f);
            return;
        };
        let visible = graph.visible_zones(glam::Vec3::from(center));
        self.scene.objects_in_radius(center, radius, &mut |id, d| {
            let Some(o) = self.scene.get(id.0) else { return };
            let p = o.state.pos + glam::Vec3::Z * OBJECT_HALF.z;
            if graph.zones_of_box(p - OBJECT_HALF, p + OBJECT_HALF).iter().any(|z| visible.contains(z)) {
                f(id, d);
            }
        });
    }
    fn is_ghosted_to(&self, object: ObjectId, connection: ConnectionId) -> bool {
        object.0 >= WORLD_ID_BASE || self.scene.is_ghosted_to(object, connection)
    }
    /// The scene's ghost frame (its objects' positions and change stamps taken once a tick,
    /// shared by every connection's scoping and priorities) while the zones hide nothing: a
    /// mission without interiors is all outside, the zone test passes every object and the
    /// frame's radius answers are the scene's. With interiors, scoping asks object by object
    /// through the portals. The world objects (terrain, interiors, sky) are always in scope
    /// and outside the frame.
    fn frame(&self) -> Option<&GhostFrame> {
        if self.zones.is_some_and(|g| g.interiors().next().is_some()) {
            return None;
        }
        self.scene.frame()
    }
}

/// Where a client's ghosts go: world objects into its mission world, the rest into its scene.
#[derive(Debug)]
pub struct ClientGhosts<'a> {
    pub scene: &'a mut ClientScene,
    pub world: &'a mut WorldGhosts,
}

impl GhostClientWorld for ClientGhosts<'_> {
    fn add_ghost(&mut self, ghost: Box<dyn NetObject>) -> ObjectId {
        if ghost.downcast_ref::<WorldObjectGhost>().is_some() {
            self.world.add_ghost(ghost)
        } else {
            self.scene.add_ghost(ghost)
        }
    }
    fn ghost_mut(&mut self, id: ObjectId) -> Option<&mut dyn NetObject> {
        if id.0 >= CLIENT_WORLD_IDS { self.world.ghost_mut(id) } else { self.scene.ghost_mut(id) }
    }
    fn remove_ghost(&mut self, id: ObjectId) {
        if id.0 >= CLIENT_WORLD_IDS { self.world.remove_ghost(id) } else { self.scene.remove_ghost(id) }
    }
}

/// The world's terrain block (the lowest id's, if several), for drawing.
pub fn first_terrain(world: &MissionHandle) -> Option<Rc<v12_world::TerrainBlock>> {
    let w = world.borrow();
    w.terrains.keys().min().map(|id| w.terrains[id].clone())
}

/// The materials of every terrain and interior of a world, by object id (each found once,
/// when the object was added).
pub fn world_materials(world: &MissionHandle) -> HashMap<u32, Rc<[v12_world::WorldMaterial]>> {
    let w = world.borrow();
    w.terrains.keys().chain(w.interiors.keys()).map(|&id| (id, w.materials(id))).collect()
}

/// The solid brushes of every interior of a world as world-space boxes (centre, half size),
/// for a view that draws boxes.
pub fn interior_boxes(world: &MissionHandle) -> Vec<(glam::Vec3, glam::Vec3)> {
    let w = world.borrow();
    let mut ids: Vec<&u32> = w.interiors.keys().collect();
    ids.sort_unstable();
    let mut out = Vec::new();
    for id in ids {
        let inst = &w.interiors[id];
        for b in inst.interior.brushes.iter().filter(|b| b.kind.is_solid()) {
            let (lo, hi) = (b.min.as_vec3(), b.max.as_vec3());
            let (a, c) = (inst.to_world_point(lo), inst.to_world_point(hi));
            let (lo, hi) = (a.min(c), a.max(c));
            out.push(((lo + hi) * 0.5, (hi - lo) * 0.5));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The managers get the scene's frame while the zones hide nothing (no graph, or one
    /// with no interiors), and the frame holds the scene's objects, not the world objects
    /// (those are always in scope).
    #[test]
    fn the_frame_is_the_scenes_while_no_interior_hides_anything() {
        let mut scene = SceneWorld::new(60.0);
        scene.add(v12_sim::scene::SceneObject::new(1, glam::Vec3::ZERO));
        let graph = SceneGraph::new();
        for zones in [None, Some(&graph)] {
            let objects = ServerObjects { scene: &scene, world: &[], zones };
            assert_eq!(objects.frame().map(GhostFrame::len), Some(1));
        }
    }
}
