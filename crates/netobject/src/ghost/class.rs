//! The ghost class registry: dense class ids by sorted name, a digest for the handshake,
//! and the factory the client uses to make an empty ghost from a class id.

use crate::error::Result;
use crate::ghost::object::{NetObject, NetObjectClass};
use hashbrown::HashMap;
use std::any::TypeId;

type CreateFn = fn() -> Box<dyn NetObject>;

fn create_boxed<T: NetObjectClass>() -> Box<dyn NetObject> {
    Box::new(T::create_ghost())
}

#[derive(Clone, Copy)]
struct ClassEntry {
    name: &'static str,
    version: u32,
    type_id: TypeId,
    create: CreateFn,
}

/// Collects ghost classes; [`GhostClassRegistryBuilder::build`] freezes them.
#[derive(Default)]
pub struct GhostClassRegistryBuilder {
    classes: Vec<ClassEntry>,
}

impl std::fmt::Debug for GhostClassRegistryBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.classes.iter().map(|c| c.name)).finish()
    }
}

impl GhostClassRegistryBuilder {
    /// An empty builder.
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers ghost class `T`.
    pub fn register<T: NetObjectClass>(&mut self) -> &mut Self {
        self.classes.push(ClassEntry {
            name: T::NAME,
            version: T::VERSION,
            type_id: TypeId::of::<T>(),
            create: create_boxed::<T>,
        });
        self
    }

    /// Assigns ids by sorting names; a name or type registered twice is an error.
    pub fn build(&mut self) -> Result<GhostClassRegistry> {
        let mut classes = std::mem::take(&mut self.classes);
        let (by_type, digest) = crate::registry::index_classes(
            &mut classes,
            |c| (c.name, c.version, c.type_id),
            (0x5631_3220_6768_6f73, 0x7420_636c_6173_7365),
            "ghost class",
        )?;
        let id_bits = crate::wire::bits_for_count(classes.len());
        Ok(GhostClassRegistry { classes, by_type, id_bits, digest })
    }
}

/// The frozen ghost class table, shared by every connection (wrap it in an `Arc`).
pub struct GhostClassRegistry {
    classes: Vec<ClassEntry>,
    by_type: HashMap<TypeId, u32>,
    id_bits: u32,
    digest: u64,
}

impl std::fmt::Debug for GhostClassRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GhostClassRegistry")
            .field("classes", &self.classes.iter().map(|c| c.name).collect::<Vec<_>>())
            .field("digest", &self.digest)
            .finish()
    }
}

impl GhostClassRegistry {
    /// Bits a class id takes on the wire.
    pub fn id_bits(&self) -> u32 {
        self.id_bits
    }
    /// Digest of the sorted (name, version) list; both ends must agree.
    pub fn digest(&self) -> u64 {
        self.digest
    }
    /// Number of classes.
    pub fn len(&self) -> usize {
        self.classes.len()
    }
    /// True with no classes.
    pub fn is_empty(&self) -> bool {
        self.classes.is_empty()
    }
    /// The name of class `id`.
    pub fn name(&self, id: u32) -> Option<&'static str> {
        self.classes.get(id as usize).map(|c| c.name)
    }
    /// The class id of an object (by its concrete type).
    pub fn id_of(&self, object: &dyn NetObject) -> Option<u32> {
        let any: &dyn std::any::Any = object;
        self.by_type.get(&any.type_id()).copied()
    }
    /// The class id of a class name.
    pub fn id_of_name(&self, name: &str) -> Option<u32> {
        self.classes.binary_search_by(|c| c.name.cmp(name)).ok().map(|i| i as u32)
    }
    /// A new empty ghost of class `id`.
    pub fn create(&self, id: u32) -> Option<Box<dyn NetObject>> {
        self.classes.get(id as usize).map(|c| (c.create)())
    }
}
