//! The crate's error type, for callers that want one `?` across its parts.

use std::fmt;
use std::io;

use crate::address::AddressError;
use crate::journal::JournalError;

/// Any error this crate returns.
#[derive(Debug)]
pub enum PlatformError {
    Address(AddressError),
    Journal(JournalError),
    Io(io::Error),
}

impl fmt::Display for PlatformError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlatformError::Address(e) => e.fmt(f),
            PlatformError::Journal(e) => e.fmt(f),
            PlatformError::Io(e) => write!(f, "network I/O error: {e}"),
        }
    }
}

impl std::error::Error for PlatformError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            PlatformError::Address(e) => Some(e),
            PlatformError::Journal(e) => Some(e),
            PlatformError::Io(e) => Some(e),
        }
    }
}

impl From<AddressError> for PlatformError {
    fn from(e: AddressError) -> Self {
        PlatformError::Address(e)
    }
}

impl From<JournalError> for PlatformError {
    fn from(e: JournalError) -> Self {
        PlatformError::Journal(e)
    }
}

impl From<io::Error> for PlatformError {
    fn from(e: io::Error) -> Self {
        PlatformError::Io(e)
    }
}
