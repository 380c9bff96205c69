//! The network class registry: dense class ids in a deterministic order, and a digest
//! both ends compare in the handshake so mismatched builds are refused.

use crate::error::{NetError, Result};
use crate::event::{EventDirection, NetEvent, NetEventClass, UnpackContext};
use crate::wire::bits_for_count;
use hashbrown::HashMap;
use std::any::TypeId;
use std::hash::Hasher;
use v12_bitstream::BitReader;

type UnpackFn =
    fn(&mut BitReader<'_>, &mut UnpackContext<'_>, Option<Box<dyn NetEvent>>) -> Result<Box<dyn NetEvent>>;

fn unpack_boxed<E: NetEventClass>(
    r: &mut BitReader<'_>,
    ctx: &mut UnpackContext<'_>,
    spare: Option<Box<dyn NetEvent>>,
) -> Result<Box<dyn NetEvent>> {
    match spare.and_then(|b| downcast_box::<E>(b).ok()) {
        Some(mut b) => {
            b.unpack_in_place(r, ctx)?;
            Ok(b)
        }
        None => Ok(Box::new(E::unpack(r, ctx)?)),
    }
}

/// The concrete event in a box, or the box back when it holds another class.
pub(crate) fn downcast_box<E: NetEvent>(
    b: Box<dyn NetEvent>,
) -> std::result::Result<Box<E>, Box<dyn NetEvent>> {
    if (*b).type_id() == TypeId::of::<E>() {
        let any: Box<dyn std::any::Any> = b;
        any.downcast::<E>().map_err(|_| unreachable!("the type id was checked"))
    } else {
        Err(b)
    }
}

/// One registered event class.
#[derive(Clone, Copy)]
pub struct NetClassInfo {
    /// Class name.
    pub name: &'static str,
    /// Class version.
    pub version: u32,
    /// Allowed direction.
    pub direction: EventDirection,
    type_id: TypeId,
    /// [`NetEventClass::RECYCLE`].
    recycle: bool,
    unpack: UnpackFn,
}

impl std::fmt::Debug for NetClassInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NetClassInfo")
            .field("name", &self.name)
            .field("version", &self.version)
            .field("direction", &self.direction)
            .finish()
    }
}

impl NetClassInfo {
    /// Reads an event of this class, into `spare` when it is a finished one of this class.
    pub(crate) fn unpack(
        &self,
        r: &mut BitReader<'_>,
        ctx: &mut UnpackContext<'_>,
        spare: Option<Box<dyn NetEvent>>,
    ) -> Result<Box<dyn NetEvent>> {
        (self.unpack)(r, ctx, spare)
    }

    /// The type of this class's events.
    pub(crate) fn type_id(&self) -> TypeId {
        self.type_id
    }

    /// Finished events of this class are kept for reuse ([`NetEventClass::RECYCLE`]).
    pub fn recycles(&self) -> bool {
        self.recycle
    }
}

/// Collects event classes; [`NetClassRegistryBuilder::build`] freezes them.
#[derive(Debug, Default)]
pub struct NetClassRegistryBuilder {
    classes: Vec<NetClassInfo>,
}

impl NetClassRegistryBuilder {
    /// An empty builder.
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers event class `E` (`IMPLEMENT_CO_NETEVENT_V1`).
    pub fn register<E: NetEventClass>(&mut self) -> &mut Self {
        self.classes.push(NetClassInfo {
            name: E::NAME,
            version: E::VERSION,
            direction: E::DIRECTION,
            type_id: TypeId::of::<E>(),
            recycle: E::RECYCLE,
            unpack: unpack_boxed::<E>,
        });
        self
    }

    /// Assigns ids by sorting names. Two classes with one name, or one type
    /// registered twice, is an error.
    pub fn build(&mut self) -> Result<NetClassRegistry> {
        let mut classes = std::mem::take(&mut self.classes);
        let (by_type, digest) = index_classes(
            &mut classes,
            |c| (c.name, c.version, c.type_id),
            (0x5631_3220_6e65_7463, 0x6c61_7373_6573_2121),
            "class",
        )?;
        Ok(NetClassRegistry { id_bits: bits_for_count(classes.len()), classes, by_type, digest })
    }
}

/// The frozen class table shared by every connection of an interface.
#[derive(Debug)]
pub struct NetClassRegistry {
    classes: Vec<NetClassInfo>,
    by_type: HashMap<TypeId, u32>,
    id_bits: u32,
    digest: u64,
}

impl NetClassRegistry {
    /// Bits a class id takes on the wire.
    pub fn id_bits(&self) -> u32 {
        self.id_bits
    }
    /// Digest of the sorted (name, version) list, compared in the handshake.
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
    /// The class with this id.
    pub fn class(&self, id: u32) -> Option<&NetClassInfo> {
        self.classes.get(id as usize)
    }
    /// The id of a registered type.
    pub fn id_of_type(&self, t: TypeId) -> Option<u32> {
        self.by_type.get(&t).copied()
    }
    /// The id of a class name.
    pub fn id_of_name(&self, name: &str) -> Option<u32> {
        self.classes.binary_search_by(|c| c.name.cmp(name)).ok().map(|i| i as u32)
    }
}

/// What both class registries (events and ghosts) do on `build`: sort the classes by name so
/// ids are the same in every build, refuse a name or a type registered twice, and digest the
/// (name, version) list under `keys` for the handshake. Returns the type → id map and digest.
pub(crate) fn index_classes<C>(
    classes: &mut [C],
    key: impl Fn(&C) -> (&'static str, u32, TypeId),
    keys: (u64, u64),
    what: &str,
) -> Result<(HashMap<TypeId, u32>, u64)> {
    classes.sort_by(|a, b| key(a).0.cmp(key(b).0));
    let mut by_type = HashMap::new();
    let mut h = siphasher::sip::SipHasher24::new_with_keys(keys.0, keys.1);
    for (i, c) in classes.iter().enumerate() {
        let (name, version, type_id) = key(c);
        if i > 0 && key(&classes[i - 1]).0 == name {
            return Err(NetError::BadEvent(format!("{what} {name} registered twice")));
        }
        if by_type.insert(type_id, i as u32).is_some() {
            return Err(NetError::BadEvent(format!("type of {what} {name} registered twice")));
        }
        h.write(name.as_bytes());
        h.write_u8(0);
        h.write_u32(version);
    }
    Ok((by_type, h.finish()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::PackContext;
    use v12_bitstream::BitWriter;

    macro_rules! ev {
        ($t:ident, $name:literal, $v:literal) => {
            #[derive(Debug)]
            struct $t;
            impl NetEvent for $t {
                fn pack(&self, _: &mut BitWriter, _: &mut PackContext<'_>) {}
            }
            impl NetEventClass for $t {
                const NAME: &'static str = $name;
                const VERSION: u32 = $v;
                fn unpack(_: &mut BitReader<'_>, _: &mut UnpackContext<'_>) -> Result<Self> {
                    Ok($t)
                }
            }
        };
    }
    ev!(Zed, "Zed", 1);
    ev!(Alpha, "Alpha", 1);
    ev!(Mid, "Mid", 1);
    ev!(Mid2, "Mid", 2);

    #[test]
    fn ids_sorted_by_name_whatever_the_order() {
        let a = NetClassRegistryBuilder::new()
            .register::<Zed>()
            .register::<Alpha>()
            .register::<Mid>()
            .build()
            .unwrap();
        let b = NetClassRegistryBuilder::new()
            .register::<Mid>()
            .register::<Zed>()
            .register::<Alpha>()
            .build()
            .unwrap();
        assert_eq!(a.digest(), b.digest());
        assert_eq!(a.id_of_name("Alpha"), Some(0));
        assert_eq!(a.id_of_type(TypeId::of::<Zed>()), Some(2));
        assert_eq!(a.id_bits(), 2);
        assert_eq!(b.class(1).unwrap().name, "Mid");
    }

    #[test]
    fn version_changes_digest_and_duplicates_refused() {
        let a = NetClassRegistryBuilder::new().register::<Alpha>().register::<Mid>().build().unwrap();
        let b = NetClassRegistryBuilder::new().register::<Alpha>().register::<Mid2>().build().unwrap();
        assert_ne!(a.digest(), b.digest());
        assert!(NetClassRegistryBuilder::new().register::<Mid>().register::<Mid2>().build().is_err());
        assert!(NetClassRegistryBuilder::new().register::<Alpha>().register::<Alpha>().build().is_err());
    }
}
