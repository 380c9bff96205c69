//! Why a ghost section was refused. Any of these ends the connection that sent it.

use crate::error::NetError;
use std::fmt;
use v12_bitstream::BitStreamError;

/// A ghost section the client cannot apply: the server is broken or hostile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GhostError {
    /// A read ran past the packet or found a value out of range.
    Malformed(BitStreamError),
    /// A create named a ghost class this build does not have.
    UnknownClass(u32),
    /// An update or kill named a ghost id the client does not hold.
    UnknownGhost(u32),
    /// A create named a ghost id the client already holds.
    GhostExists(u32),
    /// The new ghost refused to be added (its `on_ghost_add` returned false).
    AddRefused(u32),
    /// An object's `unpack_update` found a value it cannot accept.
    BadUpdate(String),
}

impl fmt::Display for GhostError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Malformed(e) => write!(f, "malformed ghost section: {e}"),
            Self::UnknownClass(id) => write!(f, "unknown ghost class id {id}"),
            Self::UnknownGhost(id) => write!(f, "ghost id {id} is not held"),
            Self::GhostExists(id) => write!(f, "ghost id {id} created twice"),
            Self::AddRefused(id) => write!(f, "ghost {id} refused to be added"),
            Self::BadUpdate(why) => write!(f, "bad ghost update: {why}"),
        }
    }
}

impl std::error::Error for GhostError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Malformed(e) => Some(e),
            _ => None,
        }
    }
}

impl From<BitStreamError> for GhostError {
    fn from(e: BitStreamError) -> Self {
        Self::Malformed(e)
    }
}

/// So a connection can `?` a ghost read into its own error and drop the peer.
impl From<GhostError> for NetError {
    fn from(e: GhostError) -> Self {
        match e {
            GhostError::Malformed(b) => NetError::Malformed(b),
            GhostError::UnknownClass(id) => NetError::UnknownClass(id),
            other => NetError::BadEvent(other.to_string()),
        }
    }
}
