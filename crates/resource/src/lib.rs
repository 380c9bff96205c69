#![doc = include_str!("../README.md")]

#[cfg(feature = "bitmap")]
pub mod bitmap;
mod error;
mod manager;
pub mod path;
mod search;

#[cfg(feature = "bitmap")]
pub use bitmap::{Bitmap, BitmapError, BitmapFormat, MaterialList};
pub use error::{ErrorKind, ResourceError};
pub use manager::{Resource, ResourceManager};
pub use search::{MAX_FILE_BYTES, MAX_FILES_PER_MOD, SearchPath};
