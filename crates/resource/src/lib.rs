#![doc = include_str!("../README.md")]

mod error;
mod manager;
pub mod path;
mod search;

pub use error::{ErrorKind, ResourceError};
pub use manager::{Resource, ResourceManager};
pub use search::{MAX_FILE_BYTES, MAX_FILES_PER_MOD, SearchPath};
