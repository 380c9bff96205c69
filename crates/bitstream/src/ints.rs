//! Signed and ranged integers: V12's `writeSignedInt` and `writeRangedU32`.
//!
//! Signed ints are two's complement (not V12's sign + magnitude) so that `bits` bits
//! hold one more value and there is no "minus zero" for a reader to puzzle over.

use crate::core::{BitReader, BitWriter};
use crate::error::{BitStreamError, Result};

/// Bits needed to send any value in `0..=span` (0 for a span of 0: the value is implied).
#[inline]
pub const fn bits_for_span(span: u32) -> u32 {
    32 - span.leading_zeros()
}

/// The range of a two's complement integer of `bits` bits (1..=32).
#[inline]
pub const fn signed_int_range(bits: u32) -> (i32, i32) {
    let bits = if bits < 1 {
        1
    } else if bits > 32 {
        32
    } else {
        bits
    };
    let hi = ((1i64 << (bits - 1)) - 1) as i32;
    (-hi - 1, hi)
}

/// Sign-extends the low `bits` bits of `raw` (1..=64).
#[inline]
pub(crate) fn sign_extend(raw: u64, bits: u32) -> i64 {
    let shift = 64 - bits;
    ((raw << shift) as i64) >> shift
}

impl BitWriter {
    /// Writes `value` as a two's complement integer of `bits` bits (clamped to 1..=32).
    ///
    /// Range: `-2^(bits-1) ..= 2^(bits-1) - 1` (see [`signed_int_range`]); a value outside
    /// it saturates to the nearest end rather than wrapping into a wrong sign.
    #[inline]
    pub fn write_signed_int(&mut self, value: i32, bits: u32) {
        let bits = bits.clamp(1, 32);
        let (lo, hi) = signed_int_range(bits);
        self.write_bits(u64::from(value.clamp(lo, hi) as u32), bits);
    }

    /// Writes `value` in `min..=max` using [`bits_for_span`]`(max - min)` bits.
    ///
    /// A value outside the range is clamped into it. `max < min` is treated as the
    /// one-value range `min..=min` (zero bits), so a bad range never panics.
    #[inline]
    pub fn write_ranged(&mut self, value: u32, min: u32, max: u32) {
        let max = max.max(min);
        self.write_bits(u64::from(value.clamp(min, max) - min), bits_for_span(max - min));
    }
}

impl BitReader<'_> {
    /// Reads a two's complement integer of `bits` bits (clamped to 1..=32).
    #[inline]
    pub fn read_signed_int(&mut self, bits: u32) -> Result<i32> {
        let bits = bits.clamp(1, 32);
        Ok(sign_extend(self.read_bits(bits)?, bits) as i32)
    }

    /// Reads a value written by [`BitWriter::write_ranged`] with the same `min` and `max`.
    ///
    /// Bits that decode past `max` are [`BitStreamError::OutOfRange`] (the writer never
    /// produces them), with `max` in the error being the span `max - min`.
    #[inline]
    pub fn read_ranged(&mut self, min: u32, max: u32) -> Result<u32> {
        let max = max.max(min);
        let span = max - min;
        let at = self.bit_position();
        let raw = self.read_bits(bits_for_span(span))?;
        if raw > u64::from(span) {
            return Err(BitStreamError::OutOfRange { at, value: raw, max: u64::from(span) });
        }
        Ok(min + raw as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signed_edges_and_saturation() {
        let mut w = BitWriter::new();
        w.write_signed_int(i32::MIN, 32);
        w.write_signed_int(i32::MAX, 32);
        w.write_signed_int(-1, 1);
        w.write_signed_int(0, 1);
        w.write_signed_int(1000, 8);
        w.write_signed_int(-1000, 8);
        let bytes = w.into_bytes();
        let mut r = BitReader::new(&bytes);
        assert_eq!(r.read_signed_int(32).unwrap(), i32::MIN);
        assert_eq!(r.read_signed_int(32).unwrap(), i32::MAX);
        assert_eq!(r.read_signed_int(1).unwrap(), -1);
        assert_eq!(r.read_signed_int(1).unwrap(), 0);
        assert_eq!(r.read_signed_int(8).unwrap(), 127);
        assert_eq!(r.read_signed_int(8).unwrap(), -128);
    }

    #[test]
    fn ranged_sizes_and_out_of_range() {
        assert_eq!(bits_for_span(0), 0);
        assert_eq!(bits_for_span(1), 1);
        assert_eq!(bits_for_span(5), 3);
        assert_eq!(bits_for_span(u32::MAX), 32);
        let mut w = BitWriter::new();
        w.write_ranged(7, 7, 7);
        assert_eq!(w.bit_position(), 0);
        w.write_ranged(12, 10, 15);
        w.write_ranged(u32::MAX, 0, u32::MAX);
        w.write_ranged(3, 9, 2);
        let bytes = w.into_bytes();
        let mut r = BitReader::new(&bytes);
        assert_eq!(r.read_ranged(7, 7).unwrap(), 7);
        assert_eq!(r.read_ranged(10, 15).unwrap(), 12);
        assert_eq!(r.read_ranged(0, u32::MAX).unwrap(), u32::MAX);
        assert_eq!(r.read_ranged(9, 2).unwrap(), 9);

        // 3 bits hold 7, but the range 0..=4 stops at 4.
        let mut w = BitWriter::new();
        w.write_int(7, 3);
        let bytes = w.into_bytes();
        let err = BitReader::new(&bytes).read_ranged(100, 104).unwrap_err();
        assert_eq!(err, BitStreamError::OutOfRange { at: 0, value: 7, max: 4 });
    }
}
