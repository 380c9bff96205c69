//! What an object may use while packing or unpacking a ghost update: the compression
//! point positions are sent against, and the ghost ids of other objects.

use crate::ghost::ids::ObjectId;
use hashbrown::HashMap;
use v12_bitstream::CompressionPoint;

/// Looks up the ghost id of an object whose ghost the client is known to hold.
pub(crate) trait GhostLookup {
    fn known_ghost(&self, object: ObjectId) -> Option<u32>;
}

/// Knows no ghost: packing outside a connection.
pub(crate) struct NoGhosts;
impl GhostLookup for NoGhosts {
    fn known_ghost(&self, _: ObjectId) -> Option<u32> {
        None
    }
}

/// Handed to [`crate::ghost::NetObject::pack_update`] on the server.
pub struct GhostPackContext<'a> {
    pub(crate) compression: CompressionPoint,
    pub(crate) lookup: &'a dyn GhostLookup,
    pub(crate) id_bits: u32,
    pub(crate) initial: bool,
}

impl std::fmt::Debug for GhostPackContext<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GhostPackContext")
            .field("compression", &self.compression)
            .field("id_bits", &self.id_bits)
            .field("initial", &self.initial)
            .finish()
    }
}

impl GhostPackContext<'static> {
    /// A context outside any connection (tests, tools, a state snapshot): positions against
    /// `compression`, no other ghost known to the client, 1-bit ghost ids.
    pub fn detached(compression: CompressionPoint, initial: bool) -> Self {
        Self { compression, lookup: &NoGhosts, id_bits: 1, initial }
    }
}

impl GhostPackContext<'_> {
    /// The point this packet's positions are sent relative to (the camera position);
    /// use it with `BitWriter::write_compressed_point`.
    pub fn compression_point(&self) -> &CompressionPoint {
        &self.compression
    }
    /// True for the create's full update.
    pub fn is_initial(&self) -> bool {
        self.initial
    }
    /// The ghost id of `object` if the client is known to hold its ghost (its create was
    /// acknowledged), to send a reference to it; write it in [`Self::ghost_id_bits`] bits.
    pub fn ghost_id_of(&self, object: ObjectId) -> Option<u32> {
        self.lookup.known_ghost(object)
    }
    /// Width of ghost ids in this packet.
    pub fn ghost_id_bits(&self) -> u32 {
        self.id_bits
    }
}

/// Handed to [`crate::ghost::NetObject::unpack_update`] on the client.
#[derive(Debug)]
pub struct GhostUnpackContext<'a> {
    pub(crate) compression: CompressionPoint,
    pub(crate) ghosts: &'a HashMap<u32, ObjectId>,
    pub(crate) id_bits: u32,
    pub(crate) initial: bool,
}

/// No ghosts: what a detached unpack context resolves references against.
static NO_GHOSTS: std::sync::LazyLock<HashMap<u32, ObjectId>> = std::sync::LazyLock::new(HashMap::new);

impl GhostUnpackContext<'static> {
    /// The reading side of [`GhostPackContext::detached`]: no ghost references resolve.
    pub fn detached(compression: CompressionPoint, initial: bool) -> Self {
        Self { compression, ghosts: &NO_GHOSTS, id_bits: 1, initial }
    }
}

impl GhostUnpackContext<'_> {
    /// The compression point the server used for this packet.
    pub fn compression_point(&self) -> &CompressionPoint {
        &self.compression
    }
    /// True for the create's full update.
    pub fn is_initial(&self) -> bool {
        self.initial
    }
    /// The client object of ghost `ghost`, to resolve a reference the server sent.
    pub fn object_of(&self, ghost: u32) -> Option<ObjectId> {
        self.ghosts.get(&ghost).copied()
    }
    /// Width of ghost ids in this packet.
    pub fn ghost_id_bits(&self) -> u32 {
        self.id_bits
    }
}
