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
use v12_sim::scene::{ClientScene, SceneObjects, SceneWorld};
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
///
/// Every answer comes from one read-only view of the scene's objects (their ghost frame's
/// grid for radius queries), the world objects and the scene graph, all `Sync`: the same
/// view the server's packet threads share ([`GhostWorld::as_sync`]), so a connection's
/// packets are the same bytes on one thread or on several.
#[derive(Debug)]
pub struct ServerObjects<'a> {
    pub scene: &'a SceneWorld,
    pub world: &'a [WorldObjectGhost],
    pub zones: Option<&'a SceneGraph>,
    /// The view every answer comes from: the scene's shared objects, or (should the scene
    /// have no shared view) the scene itself, for one thread.
    view: Either<'a>,
}

#[derive(Debug)]
enum Either<'a> {
    Shared(View<'a, dyn GhostWorld + Sync + 'a>),
    Serial(View<'a, SceneWorld>),
}

impl<'a> ServerObjects<'a> {
    pub fn new(scene: &'a SceneWorld, world: &'a [WorldObjectGhost], zones: Option<&'a SceneGraph>) -> Self {
        // A graph without interiors hides nothing: the portal test is left out.
        let portals = zones.filter(|g| g.interiors().next().is_some());
        let objects = scene.objects();
        let view = match scene.as_sync() {
            Some(shared) => Either::Shared(View { scene: shared, objects, world, portals }),
            None => Either::Serial(View { scene, objects, world, portals }),
        };
        ServerObjects { scene, world, zones, view }
    }

    fn view(&self) -> &dyn GhostWorld {
        match &self.view {
            Either::Shared(v) => v,
            Either::Serial(v) => v,
        }
    }
}

/// [`ServerObjects`]' answers, from `scene` (the scene's objects as the packet threads share
/// them, without its container grid, which is not `Sync`; or the scene itself), the world
/// objects and the portals of the mission's interiors.
struct View<'a, S: ?Sized> {
    scene: &'a S,
    /// The scene's objects, for their positions (the zones they stand in).
    objects: SceneObjects<'a>,
    world: &'a [WorldObjectGhost],
    /// The scene graph, when it has interiors whose zones may hide objects.
    portals: Option<&'a SceneGraph>,
}

impl<S: ?Sized> std::fmt::Debug for View<'_, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("View")
            .field("world", &self.world.len())
            .field("portals", &self.portals.is_some())
            .finish_non_exhaustive()
    }
}

/// Half size of the box a scene object's zones are found with (a player's).
const OBJECT_HALF: glam::Vec3 = glam::Vec3::new(0.4, 0.4, 0.9);

impl<S: GhostWorld + ?Sized> GhostWorld for View<'_, S> {
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
    /// Through the portals: the objects within `radius` nearest first (ties by id), those
    /// standing in a zone the camera at `center` sees.
    fn objects_in_radius(&self, center: Point3, radius: f32, f: &mut dyn FnMut(ObjectId, f32)) {
        let Some(graph) = self.portals else {
            self.scene.objects_in_radius(center, radius, f);
            return;
        };
        let visible = graph.visible_zones(glam::Vec3::from(center));
        let mut found: Vec<(f32, ObjectId)> = Vec::new();
        self.scene.objects_in_radius(center, radius, &mut |id, d| found.push((d, id)));
        found.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        for (d, id) in found {
            let Some(o) = self.objects.get(id.0) else { continue };
            let p = o.state.pos + glam::Vec3::Z * OBJECT_HALF.z;
            if graph.zones_of_box(p - OBJECT_HALF, p + OBJECT_HALF).iter().any(|z| visible.contains(z)) {
                f(id, d);
            }
        }
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
        if self.portals.is_some() {
            return None;
        }
        self.scene.frame()
    }
}

impl GhostWorld for ServerObjects<'_> {
    fn object(&self, id: ObjectId) -> Option<&dyn NetObject> {
        self.view().object(id)
    }
    fn for_each_scope_always(&self, f: &mut dyn FnMut(ObjectId)) {
        self.view().for_each_scope_always(f);
    }
    fn objects_in_radius(&self, center: Point3, radius: f32, f: &mut dyn FnMut(ObjectId, f32)) {
        self.view().objects_in_radius(center, radius, f);
    }
    fn is_ghosted_to(&self, object: ObjectId, connection: ConnectionId) -> bool {
        self.view().is_ghosted_to(object, connection)
    }
    fn frame(&self) -> Option<&GhostFrame> {
        self.view().frame()
    }
    /// The same view, to the packet threads: interiors and all (the scene graph is `Sync`).
    fn as_sync(&self) -> Option<&(dyn GhostWorld + Sync)> {
        match &self.view {
            Either::Shared(v) => Some(v),
            Either::Serial(_) => None,
        }
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
            let objects = ServerObjects::new(&scene, &[], zones);
            assert_eq!(objects.frame().map(GhostFrame::len), Some(1));
        }
    }

    /// With an interior the portal test scopes object by object, and the packet threads get
    /// it too: the shared view is there and answers what the server's own does (it is the
    /// same view), hiding the rooms a camera cannot see into.
    #[test]
    fn with_interiors_the_packet_threads_share_the_portal_test() {
        let map = include_str!("../../world/data/two_rooms.map");
        let interior = std::sync::Arc::new(v12_world::Interior::from_map_text(map).expect("the map"));
        let mut graph = SceneGraph::new();
        let inst = v12_world::InteriorInstance::new(interior, glam::Vec3::ZERO, glam::Quat::IDENTITY);
        graph.add_interior(1, std::sync::Arc::new(inst));
        let mut scene = SceneWorld::new(60.0);
        // Room 1, room 2, and outside beyond each of the building's ends.
        for (x, y) in [(5.0, 4.0), (15.0, 4.0), (40.0, 4.0), (-30.0, 4.0)] {
            scene.add(v12_sim::scene::SceneObject::new(1, glam::Vec3::new(x, y, 0.5)));
        }
        let objects = ServerObjects::new(&scene, &[], Some(&graph));
        assert!(objects.frame().is_none(), "scoped object by object");
        let shared = objects.as_sync().expect("the packet threads may share it");
        let near = |w: &dyn GhostWorld, eye: [f32; 3]| {
            let mut found = Vec::new();
            w.objects_in_radius(eye, 100.0, &mut |id, d| found.push((id, d)));
            found
        };
        for eye in [[5.0, 4.0, 1.5], [15.0, 4.0, 1.5], [40.0, 4.0, 1.5], [-30.0, 4.0, 1.5]] {
            let own = near(&objects, eye);
            assert_eq!(own, near(shared, eye), "camera at {eye:?}");
            assert!(own.windows(2).all(|p| p[0].1 <= p[1].1), "nearest first: {own:?}");
        }
        // Behind the building (no door on that side) the rooms are hidden.
        assert_eq!(near(&objects, [-30.0, 4.0, 1.5]).len(), 2);
    }
}
