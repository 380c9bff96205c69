//! Byte slices with a 16-bit length prefix.

use crate::core::{BitReader, BitWriter};
use crate::error::{BitStreamError, Result};

/// Bits of the length prefix of a byte slice.
pub const BYTE_SLICE_LEN_BITS: u32 = 16;

/// Longest byte slice [`BitWriter::write_byte_slice`] accepts: 65535 bytes.
pub const MAX_BYTE_SLICE_LEN: usize = (1 << BYTE_SLICE_LEN_BITS) - 1;

impl BitWriter {
    /// Writes a 16-bit length and the bytes (`16 + 8 * len` bits, not byte-aligned).
    /// A slice longer than [`MAX_BYTE_SLICE_LEN`] is [`BitStreamError::TooLong`] and writes nothing.
    pub fn write_byte_slice(&mut self, data: &[u8]) -> Result<()> {
        if data.len() > MAX_BYTE_SLICE_LEN {
            return Err(BitStreamError::TooLong {
                at: self.bit_position(),
                len: data.len(),
                max: MAX_BYTE_SLICE_LEN,
            });
        }
        self.write_bits(data.len() as u64, BYTE_SLICE_LEN_BITS);
        self.write_bytes(data);
        Ok(())
    }
}

impl BitReader<'_> {
    /// Reads a slice written by [`BitWriter::write_byte_slice`]. The length is checked
    /// against the bits left before anything is allocated.
    pub fn read_byte_slice(&mut self) -> Result<Vec<u8>> {
        let len = self.read_bits(BYTE_SLICE_LEN_BITS)? as usize;
        if len * 8 > self.bits_left() {
            return Err(BitStreamError::EndOfStream { at: self.bit_position(), wanted: len * 8 });
        }
        let mut out = vec![0; len];
        self.read_bytes(&mut out)?;
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_and_truncation() {
        let mut w = BitWriter::new();
        w.write_flag(true);
        w.write_byte_slice(&[]).unwrap();
        w.write_byte_slice(&[1, 2, 3, 4, 5, 6, 7, 8, 9]).unwrap();
        let big = vec![7u8; MAX_BYTE_SLICE_LEN];
        w.write_byte_slice(&big).unwrap();
        let at = w.bit_position();
        let err = w.write_byte_slice(&vec![0; MAX_BYTE_SLICE_LEN + 1]).unwrap_err();
        assert_eq!(err, BitStreamError::TooLong { at, len: MAX_BYTE_SLICE_LEN + 1, max: MAX_BYTE_SLICE_LEN });
        assert_eq!(w.bit_position(), at);
        let bytes = w.into_bytes();
        let mut r = BitReader::new(&bytes);
        assert!(r.read_flag().unwrap());
        assert_eq!(r.read_byte_slice().unwrap(), Vec::<u8>::new());
        assert_eq!(r.read_byte_slice().unwrap(), [1, 2, 3, 4, 5, 6, 7, 8, 9]);
        assert_eq!(r.read_byte_slice().unwrap(), big);

        // A length that promises more than the packet holds.
        let mut r = BitReader::new(&[0xFF, 0xFF, 1, 2]);
        assert_eq!(r.read_byte_slice(), Err(BitStreamError::EndOfStream { at: 16, wanted: 65535 * 8 }));
    }
}
