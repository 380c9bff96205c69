#![doc = include_str!("../README.md")]

mod core;
mod error;

pub use crate::core::{BitReader, BitWriter};
pub use crate::error::{BitStreamError, Result};
