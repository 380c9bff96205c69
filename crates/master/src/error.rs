//! Why a directory datagram was refused.

use std::fmt;
use v12_bitstream::BitStreamError;

/// Why a datagram was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WireError {
    /// Not a directory datagram (wrong first byte).
    NotOurs,
    /// Unknown kind byte.
    UnknownKind(u8),
    /// Shorter than its kind requires.
    Short { kind: u8, len: usize, min: usize },
    /// A string over its limit.
    TooLong { what: &'static str, len: usize, max: usize },
    /// A read past the end, or another bit-level error.
    Bits(String),
}

impl fmt::Display for WireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotOurs => write!(f, "not a directory datagram"),
            Self::UnknownKind(k) => write!(f, "unknown message kind {k}"),
            Self::Short { kind, len, min } => write!(f, "kind {kind}: {len} bytes, at least {min} needed"),
            Self::TooLong { what, len, max } => write!(f, "{what} of {len} bytes (at most {max})"),
            Self::Bits(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for WireError {}

impl From<BitStreamError> for WireError {
    fn from(e: BitStreamError) -> Self {
        Self::Bits(e.to_string())
    }
}
