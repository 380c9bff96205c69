//! What can go wrong, always naming the file.

use std::fmt;

/// A resource error: the path as asked for, and the cause.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceError {
    /// The path as the caller gave it.
    pub path: String,
    /// What went wrong.
    pub kind: ErrorKind,
}

/// Why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ErrorKind {
    /// Absolute, or climbing out of the search path with `..`.
    OutsideRoot,
    /// In no mod and no volume.
    NotFound,
    /// Larger than [`crate::MAX_FILE_BYTES`] (declared or read).
    TooLarge(u64),
    /// A volume that is not a readable zip archive, or an entry that does not inflate.
    BadVolume(String),
    /// The operating system refused (permissions, a vanished file).
    Io(String),
    /// No loader for this extension and type.
    NoLoader,
    /// The loader refused the bytes.
    Load(String),
}

impl ResourceError {
    pub(crate) fn new(path: &str, kind: ErrorKind) -> Self {
        Self { path: path.to_string(), kind }
    }
}

impl fmt::Display for ResourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = &self.path;
        match &self.kind {
            ErrorKind::OutsideRoot => write!(f, "{p}: the path leaves the search path"),
            ErrorKind::NotFound => write!(f, "{p}: not found in any mod or volume"),
            ErrorKind::TooLarge(n) => {
                write!(f, "{p}: {n} bytes is over the {} byte limit", crate::MAX_FILE_BYTES)
            }
            ErrorKind::BadVolume(why) => write!(f, "{p}: bad volume: {why}"),
            ErrorKind::Io(why) => write!(f, "{p}: {why}"),
            ErrorKind::NoLoader => write!(f, "{p}: no loader for this kind of file"),
            ErrorKind::Load(why) => write!(f, "{p}: {why}"),
        }
    }
}

impl std::error::Error for ResourceError {}
