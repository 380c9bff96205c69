//! The narrow traits through which ghosting reaches objects it does not own.

use crate::ghost::frame::GhostFrame;
use crate::ghost::ids::ObjectId;
use crate::ghost::object::{NetObject, Point3};
use hashbrown::HashMap;

/// The server's object arena as the ghost manager sees it. The owner (the Sim) keeps the
/// objects; the manager only keeps [`ObjectId`]s and asks here.
pub trait GhostWorld {
    /// The object with this id, or `None` once it is deleted (its ghosts are then killed).
    fn object(&self, id: ObjectId) -> Option<&dyn NetObject>;

    /// Calls `f` for every object flagged `SCOPE_ALWAYS`.
    fn for_each_scope_always(&self, f: &mut dyn FnMut(ObjectId)) {
        let _ = f;
    }

    /// Calls `f(id, distance)` for the objects within `radius` of `center`. Use a spatial
    /// index: this runs for every client packet. Extra objects beyond `radius` are fine
    /// (the manager checks the distance it is given).
    fn objects_in_radius(&self, center: Point3, radius: f32, f: &mut dyn FnMut(ObjectId, f32)) {
        let _ = (center, radius, f);
    }

    /// This tick's [`GhostFrame`] of the world's objects, if the world keeps one: the
    /// managers then scope and weigh from it (and ask [`Self::objects_in_radius`] nothing).
    /// It must hold every object [`Self::object`] knows as it is now, and its radius answers
    /// must be what [`Self::objects_in_radius`] would give. `None` (the default): the
    /// managers ask the world object by object.
    fn frame(&self) -> Option<&GhostFrame> {
        None
    }

    /// This world, if it can be read from several threads at once: a server with a transmit
    /// pool ([`crate::NetInterface::set_transmit_threads`]) then builds its connections'
    /// packets in parallel. `None` (the default): one after another.
    fn as_sync(&self) -> Option<&(dyn GhostWorld + Sync)> {
        None
    }

    /// False keeps `object` off `connection` whatever its scope: a client-created object
    /// (the owned-object model, security off) is not ghosted back to the client that owns the
    /// original.
    fn is_ghosted_to(&self, object: ObjectId, connection: crate::ConnectionId) -> bool {
        let _ = (object, connection);
        true
    }
}

/// A world with no objects, for an endpoint that ghosts nothing (a chat server, a tool).
#[derive(Debug, Default, Clone, Copy)]
pub struct NoObjects;

impl GhostWorld for NoObjects {
    fn object(&self, _id: ObjectId) -> Option<&dyn NetObject> {
        None
    }
}

/// The client's arena as the ghost receiver sees it.
pub trait GhostClientWorld {
    /// Takes a new ghost (already given its first update) and names it.
    fn add_ghost(&mut self, ghost: Box<dyn NetObject>) -> ObjectId;
    /// The ghost with this id.
    fn ghost_mut(&mut self, id: ObjectId) -> Option<&mut dyn NetObject>;
    /// Deletes a ghost (its `on_ghost_remove` has already run).
    fn remove_ghost(&mut self, id: ObjectId);
}

/// A minimal client arena: enough for tests, tools and demo playback.
#[derive(Default)]
pub struct GhostArena {
    next: u32,
    ghosts: HashMap<ObjectId, Box<dyn NetObject>>,
}

impl std::fmt::Debug for GhostArena {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GhostArena").field("ghosts", &self.ghosts.len()).finish()
    }
}

impl GhostArena {
    /// An empty arena.
    pub fn new() -> Self {
        Self::default()
    }
    /// Number of ghosts.
    pub fn len(&self) -> usize {
        self.ghosts.len()
    }
    /// True with no ghosts.
    pub fn is_empty(&self) -> bool {
        self.ghosts.is_empty()
    }
    /// The ghost with this id.
    pub fn get(&self, id: ObjectId) -> Option<&dyn NetObject> {
        self.ghosts.get(&id).map(|b| &**b)
    }
    /// Every ghost, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (ObjectId, &dyn NetObject)> {
        self.ghosts.iter().map(|(id, b)| (*id, &**b))
    }
}

impl GhostClientWorld for GhostArena {
    fn add_ghost(&mut self, ghost: Box<dyn NetObject>) -> ObjectId {
        let id = ObjectId(self.next);
        self.next = self.next.wrapping_add(1);
        self.ghosts.insert(id, ghost);
        id
    }
    fn ghost_mut(&mut self, id: ObjectId) -> Option<&mut dyn NetObject> {
        self.ghosts.get_mut(&id).map(|b| &mut **b)
    }
    fn remove_ghost(&mut self, id: ObjectId) {
        self.ghosts.remove(&id);
    }
}
