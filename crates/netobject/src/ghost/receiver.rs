//! The client side of ghosting: reads ghost sections, creating, updating and deleting
//! ghosts in the client's world. Anything inconsistent is an error that ends the connection.

use crate::ghost::class::GhostClassRegistry;
use crate::ghost::context::GhostUnpackContext;
use crate::ghost::error::GhostError;
use crate::ghost::ids::{MAX_GHOST_ID_BITS, ObjectId};
use crate::ghost::world::GhostClientWorld;
use hashbrown::HashMap;
use std::sync::Arc;
use v12_bitstream::{BitReader, CompressionPoint};

/// Ghost counters on the client.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReceiverStats {
    /// Ghosts created.
    pub creates: u64,
    /// Updates applied.
    pub updates: u64,
    /// Ghosts killed.
    pub kills: u64,
    /// Ghosting resets (every ghost dropped).
    pub resets: u64,
}

/// The client's half of one connection's ghosting: the ghost id to object table.
pub struct GhostReceiver {
    classes: Arc<GhostClassRegistry>,
    ghosts: HashMap<u32, ObjectId>,
    by_object: HashMap<ObjectId, u32>,
    stats: ReceiverStats,
}

impl std::fmt::Debug for GhostReceiver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GhostReceiver")
            .field("ghosts", &self.ghosts.len())
            .field("stats", &self.stats)
            .finish()
    }
}

impl GhostReceiver {
    /// A receiver holding no ghosts.
    pub fn new(classes: Arc<GhostClassRegistry>) -> Self {
        Self { classes, ghosts: HashMap::new(), by_object: HashMap::new(), stats: ReceiverStats::default() }
    }

    /// Counters so far.
    pub fn stats(&self) -> ReceiverStats {
        self.stats
    }

    /// Ghosts held.
    pub fn len(&self) -> usize {
        self.ghosts.len()
    }

    /// True with no ghosts.
    pub fn is_empty(&self) -> bool {
        self.ghosts.is_empty()
    }

    /// The client object of ghost id `ghost`.
    pub fn object_of(&self, ghost: u32) -> Option<ObjectId> {
        self.ghosts.get(&ghost).copied()
    }

    /// The ghost id of a client object.
    pub fn ghost_id_of(&self, object: ObjectId) -> Option<u32> {
        self.by_object.get(&object).copied()
    }

    /// Every (ghost id, client object) pair, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (u32, ObjectId)> + '_ {
        self.ghosts.iter().map(|(g, o)| (*g, *o))
    }

    /// Removes every ghost from `world` (ghosting reset, or the connection ended).
    pub fn clear(&mut self, world: &mut (impl GhostClientWorld + ?Sized)) {
        let mut all: Vec<(u32, ObjectId)> = self.ghosts.drain().collect();
        all.sort_unstable();
        self.by_object.clear();
        for (_, id) in all {
            if let Some(g) = world.ghost_mut(id) {
                g.on_ghost_remove();
            }
            world.remove_ghost(id);
        }
    }

    /// Restores a ghost from a demo's start block: class `class_id`, full state `state`
    /// (made by [`super::pack_state`]).
    pub(crate) fn restore(
        &mut self,
        world: &mut (impl GhostClientWorld + ?Sized),
        ghost: u32,
        class_id: u32,
        state: &[u8],
    ) -> Result<(), GhostError> {
        if self.ghosts.contains_key(&ghost) {
            return Err(GhostError::GhostExists(ghost));
        }
        let mut obj = self.classes.create(class_id).ok_or(GhostError::UnknownClass(class_id))?;
        super::unpack_state(&mut *obj, state)?;
        if !obj.on_ghost_add() {
            return Err(GhostError::AddRefused(ghost));
        }
        let object = world.add_ghost(obj);
        self.ghosts.insert(ghost, object);
        self.by_object.insert(object, ghost);
        Ok(())
    }

    /// Reads one packet's ghost section (written by `GhostManager::write_packet`).
    /// On error the connection must be dropped; the ghosts already applied stay.
    pub fn read_packet(
        &mut self,
        world: &mut (impl GhostClientWorld + ?Sized),
        r: &mut BitReader<'_>,
    ) -> Result<(), GhostError> {
        if !r.read_flag()? {
            return Ok(());
        }
        if r.read_flag()? {
            self.stats.resets += 1;
            self.clear(world);
            return Ok(());
        }
        if !r.read_flag()? {
            return Ok(());
        }
        let id_bits = r.read_ranged(1, MAX_GHOST_ID_BITS)?;
        let origin = [r.read_f32()?, r.read_f32()?, r.read_f32()?];
        let compression = CompressionPoint::new(origin.into());
        let class_bits = self.classes.id_bits();
        while r.read_flag()? {
            let ghost = r.read_int(id_bits)?;
            if !r.read_flag()? {
                let &object = self.ghosts.get(&ghost).ok_or(GhostError::UnknownGhost(ghost))?;
                let obj = world.ghost_mut(object).ok_or(GhostError::UnknownGhost(ghost))?;
                let mut ctx =
                    GhostUnpackContext { compression, ghosts: &self.ghosts, id_bits, initial: false };
                obj.unpack_update(&mut ctx, r)?;
                self.stats.updates += 1;
            } else if r.read_flag()? {
                let object = self.ghosts.remove(&ghost).ok_or(GhostError::UnknownGhost(ghost))?;
                self.by_object.remove(&object);
                if let Some(g) = world.ghost_mut(object) {
                    g.on_ghost_remove();
                }
                world.remove_ghost(object);
                self.stats.kills += 1;
            } else {
                let class_id = r.read_int(class_bits)?;
                if self.ghosts.contains_key(&ghost) {
                    return Err(GhostError::GhostExists(ghost));
                }
                let mut obj = self.classes.create(class_id).ok_or(GhostError::UnknownClass(class_id))?;
                let mut ctx =
                    GhostUnpackContext { compression, ghosts: &self.ghosts, id_bits, initial: true };
                obj.unpack_update(&mut ctx, r)?;
                if !obj.on_ghost_add() {
                    return Err(GhostError::AddRefused(ghost));
                }
                let object = world.add_ghost(obj);
                self.ghosts.insert(ghost, object);
                self.by_object.insert(object, ghost);
                self.stats.creates += 1;
            }
        }
        Ok(())
    }
}
