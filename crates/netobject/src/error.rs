//! The crate error type: why a packet was refused or a connection dropped.

use std::fmt;
use v12_bitstream::BitStreamError;

/// Everything that can go wrong in this crate. Errors caused by a peer end that
/// peer's connection (with the error text as the reason); no other connection is touched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NetError {
    /// A read ran past the packet or found a value out of range.
    Malformed(BitStreamError),
    /// An event class id that the registry does not know.
    UnknownClass(u32),
    /// An event arrived travelling against its class direction.
    WrongDirection(&'static str),
    /// An event type was posted that was never registered.
    UnregisteredEvent,
    /// A guaranteed-ordered sequence number outside the 126-event window, or a duplicate.
    BadEventSequence(u32),
    /// A string tag id that this side never received text for.
    UnknownStringTag(u32),
    /// A length or count beyond what the protocol allows.
    TooLong { what: &'static str, len: usize, max: usize },
    /// An event too large to fit in an empty packet.
    EventTooLarge { class: &'static str, bits: usize },
    /// No connection with this id.
    NoSuchConnection,
    /// A registered event body failed its own validation.
    BadEvent(String),
}

impl fmt::Display for NetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Malformed(e) => write!(f, "malformed packet: {e}"),
            Self::UnknownClass(id) => write!(f, "unknown event class id {id}"),
            Self::WrongDirection(name) => write!(f, "event {name} sent against its direction"),
            Self::UnregisteredEvent => write!(f, "event type is not registered"),
            Self::BadEventSequence(s) => write!(f, "ordered event sequence {s} outside the window"),
            Self::UnknownStringTag(id) => write!(f, "string tag {id} was never defined"),
            Self::TooLong { what, len, max } => write!(f, "{what} length {len} exceeds {max}"),
            Self::EventTooLarge { class, bits } => {
                write!(f, "event {class} needs {bits} bits, more than a whole packet")
            }
            Self::NoSuchConnection => write!(f, "no such connection"),
            Self::BadEvent(why) => write!(f, "bad event: {why}"),
        }
    }
}

impl std::error::Error for NetError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Malformed(e) => Some(e),
            _ => None,
        }
    }
}

impl From<BitStreamError> for NetError {
    fn from(e: BitStreamError) -> Self {
        Self::Malformed(e)
    }
}

/// Result with [`NetError`].
pub type Result<T> = std::result::Result<T, NetError>;
