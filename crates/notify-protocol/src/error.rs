//! Why a packet was not accepted. Every variant but `TimedOut` means "ignore this packet":
//! the connection state did not change and the connection goes on.

use std::fmt;
use v12_bitstream::BitStreamError;

/// A packet the protocol refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProtocolError {
    /// The header was cut short.
    Malformed(BitStreamError),
    /// The configured prefix bits did not match (`found` is what was read).
    WrongPrefix { found: u32 },
    /// This data packet was already accepted.
    Duplicate { seq: u32 },
    /// Older than the newest packet seen (late or reordered); it will never be accepted.
    Stale { seq: u32 },
    /// Further ahead of the newest packet seen than the window allows.
    TooFarAhead { delta: u32 },
    /// Acknowledges a sequence this side never sent.
    BadAck,
    /// More than [`crate::WINDOW`] data packets are unacknowledged (the caller ignored `window_full`).
    WindowFull,
    /// The connection has timed out; drop it.
    TimedOut,
}

impl fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Malformed(e) => write!(f, "malformed packet header: {e}"),
            Self::WrongPrefix { found } => write!(f, "packet prefix {found:#x} does not match"),
            Self::Duplicate { seq } => write!(f, "duplicate data packet {seq}"),
            Self::Stale { seq } => write!(f, "stale packet {seq}"),
            Self::TooFarAhead { delta } => write!(f, "packet {delta} sequences ahead, past the window"),
            Self::BadAck => write!(f, "packet acknowledges a sequence never sent"),
            Self::WindowFull => write!(f, "send window full"),
            Self::TimedOut => write!(f, "connection timed out"),
        }
    }
}

impl std::error::Error for ProtocolError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Malformed(e) => Some(e),
            _ => None,
        }
    }
}

impl From<BitStreamError> for ProtocolError {
    fn from(e: BitStreamError) -> Self {
        Self::Malformed(e)
    }
}
