//! What can go wrong, always naming the thing.

use std::fmt;

/// A sound error: the file, device or object it is about, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AudioError {
    /// The bytes are not a sound this crate reads (unknown format, corrupt header, bad data).
    Decode {
        /// The file (or the caller's name for the bytes).
        what: String,
        /// Why.
        why: String,
    },
    /// The resource manager could not give the file (missing, outside the search path, too large).
    Resource(String),
    /// The sound device failed (open, write, finish).
    Device(String),
    /// Voice: the codec refused a frame or a packet.
    Voice(String),
}

impl AudioError {
    pub(crate) fn decode(what: &str, why: impl fmt::Display) -> Self {
        Self::Decode { what: what.to_string(), why: why.to_string() }
    }
}

impl fmt::Display for AudioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Decode { what, why } => write!(f, "{what}: {why}"),
            Self::Resource(why) => write!(f, "{why}"),
            Self::Device(why) => write!(f, "sound device: {why}"),
            Self::Voice(why) => write!(f, "voice: {why}"),
        }
    }
}

impl std::error::Error for AudioError {}
