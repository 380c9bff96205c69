#![doc = include_str!("../README.md")]

mod blob;
mod core;
mod error;
mod floats;
mod huffman;
mod ints;
mod normal;
mod point;
mod quat;
mod sentinel;
mod string;
mod tag;
mod vector;

pub use crate::blob::{BYTE_SLICE_LEN_BITS, MAX_BYTE_SLICE_LEN};
pub use crate::core::{BitReader, BitWriter};
pub use crate::error::{BitStreamError, Result};
pub use crate::floats::{float_max_error, signed_float_max_error};
pub use crate::huffman::huffman_bits;
pub use crate::ints::{bits_for_span, signed_int_range};
pub use crate::normal::{NORMAL_BITS_RANGE, normal_max_error, normal_total_bits};
pub use crate::point::{CompressionPoint, POINT_PRECISION_BITS, PointPrecision};
pub use crate::quat::{QUAT_BITS_RANGE, quat_max_error, quat_total_bits};
pub use crate::sentinel::{SENTINEL_BITS, SENTINELS_ENABLED, sentinel_value};
pub use crate::string::{
    LONG_STRING_LEN_BITS, MAX_LONG_STRING_LEN, MAX_STRING_LEN, STRING_LEN_BITS, string_bits,
};
pub use crate::tag::{STRING_TAG_BITS, StringOrTag, StringTag};
