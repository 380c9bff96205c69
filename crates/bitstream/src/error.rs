//! The one error type of the crate: every read that can fail says where and why.

use std::fmt;

/// Why a read failed, and at which bit of the stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BitStreamError {
    /// The reader wanted `wanted` more bits at bit `at`, past the end of the data.
    EndOfStream { at: usize, wanted: usize },
    /// A ranged or enumerated value was outside the range its writer promised.
    OutOfRange { at: usize, value: u64, max: u64 },
    /// A length prefix is longer than the limit for that kind of field.
    TooLong { at: usize, len: usize, max: usize },
    /// Text that must be UTF-8 was not.
    InvalidUtf8 { at: usize },
    /// A bad Huffman code or a code for no symbol.
    BadHuffman { at: usize },
    /// (feature `debug-sentinel`) the reader and the writer disagree about where a section ends.
    SentinelMismatch { at: usize, expected: u32, found: u32, label: &'static str },
}

impl fmt::Display for BitStreamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::EndOfStream { at, wanted } => {
                write!(f, "bit {at}: wanted {wanted} more bits, past the end of the packet")
            }
            Self::OutOfRange { at, value, max } => {
                write!(f, "bit {at}: value {value} out of range (max {max})")
            }
            Self::TooLong { at, len, max } => write!(f, "bit {at}: length {len} exceeds the limit {max}"),
            Self::InvalidUtf8 { at } => write!(f, "bit {at}: text is not valid UTF-8"),
            Self::BadHuffman { at } => write!(f, "bit {at}: invalid Huffman code"),
            Self::SentinelMismatch { at, expected, found, label } => write!(
                f,
                "bit {at}: reader and writer disagree after `{label}`: sentinel {found:#x}, expected {expected:#x}"
            ),
        }
    }
}

impl std::error::Error for BitStreamError {}

/// Result of every read.
pub type Result<T> = std::result::Result<T, BitStreamError>;
