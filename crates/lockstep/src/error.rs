//! The lockstep error type: why a message or a replay was refused.

use std::fmt;
use v12_bitstream::BitStreamError;

/// Everything that can go wrong in the lockstep module. Errors caused by remote bytes
/// never panic; the session that received them logs and drops the message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LockstepError {
    /// A read ran past the message or found a value out of range.
    Malformed(BitStreamError),
    /// A message kind this side does not know.
    UnknownKind(u32),
    /// A count or length beyond what the protocol allows.
    TooLong { what: &'static str, len: usize, max: usize },
    /// A value that cannot be right (zero frame length, unknown player, ...).
    Invalid(&'static str),
}

impl fmt::Display for LockstepError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Malformed(e) => write!(f, "malformed lockstep message: {e}"),
            Self::UnknownKind(k) => write!(f, "unknown lockstep message kind {k}"),
            Self::TooLong { what, len, max } => write!(f, "{what} count {len} exceeds {max}"),
            Self::Invalid(why) => write!(f, "invalid lockstep value: {why}"),
        }
    }
}

impl std::error::Error for LockstepError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Malformed(e) => Some(e),
            _ => None,
        }
    }
}

impl From<BitStreamError> for LockstepError {
    fn from(e: BitStreamError) -> Self {
        Self::Malformed(e)
    }
}

/// Result with [`LockstepError`].
pub type Result<T> = std::result::Result<T, LockstepError>;
