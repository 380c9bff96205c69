//! An object's whole state as bytes, outside any connection: what a client create or sync
//! carries (owned objects) and what a demo recording stores for each ghost in scope.

use super::context::{GhostPackContext, GhostUnpackContext, NoGhosts};
use super::{ALL_MASK_BITS, GhostError, NetObject};
use hashbrown::HashMap;
use v12_bitstream::{BitReader, BitWriter, CompressionPoint};

/// An object's full state as bytes (its `pack_update` with every bit, positions against
/// the origin), for a client create or sync.
pub fn pack_state(object: &dyn NetObject) -> Vec<u8> {
    let mut w = BitWriter::new();
    let mut ctx = GhostPackContext {
        compression: CompressionPoint::new([0.0; 3].into()),
        lookup: &NoGhosts,
        id_bits: 1,
        initial: true,
    };
    object.pack_update(&mut ctx, ALL_MASK_BITS, &mut w);
    w.into_bytes().to_vec()
}

/// Applies bytes made by [`pack_state`] to an object.
pub fn unpack_state(object: &mut dyn NetObject, state: &[u8]) -> std::result::Result<(), GhostError> {
    let ghosts = HashMap::new();
    let mut ctx = GhostUnpackContext {
        compression: CompressionPoint::new([0.0; 3].into()),
        ghosts: &ghosts,
        id_bits: 1,
        initial: true,
    };
    object.unpack_update(&mut ctx, &mut BitReader::new(state))
}
