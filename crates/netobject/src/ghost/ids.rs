//! Ids on both ends of a ghost: the server's object id and the wire ghost id.

use std::fmt;

/// An object in a world arena (the server's Sim dictionary or the client's ghost arena).
///
/// The ghost manager holds these, never pointers; the owner hands out `&dyn NetObject`
/// through [`crate::ghost::GhostWorld`]. An id must not be reused while a ghost manager
/// still refers to it (generational or monotonic ids both satisfy this).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjectId(pub u32);

impl fmt::Display for ObjectId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}

/// Widest ghost id on the wire (Torque3D: 18 bits, 262,144 ghosts per connection).
pub const MAX_GHOST_ID_BITS: u32 = 18;
/// Most ghosts one connection can hold at once.
pub const MAX_GHOSTS: u32 = 1 << MAX_GHOST_ID_BITS;

/// Bits a ghost id takes in a packet while ids `0..count` may be in use (at least 1).
/// Each packet writes this width, so a connection with few ghosts pays few bits.
pub fn ghost_id_bits(count: usize) -> u32 {
    let bits = if count <= 1 { 1 } else { usize::BITS - (count - 1).leading_zeros() };
    bits.clamp(1, MAX_GHOST_ID_BITS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn id_width_grows_with_count() {
        assert_eq!(ghost_id_bits(0), 1);
        assert_eq!(ghost_id_bits(2), 1);
        assert_eq!(ghost_id_bits(3), 2);
        assert_eq!(ghost_id_bits(256), 8);
        assert_eq!(ghost_id_bits(257), 9);
        assert_eq!(ghost_id_bits(MAX_GHOSTS as usize), 18);
        assert_eq!(ghost_id_bits(usize::MAX), 18);
    }
}
