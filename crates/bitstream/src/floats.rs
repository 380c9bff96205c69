//! Floats: raw IEEE bits, and V12's quantised `writeFloat` / `writeSignedFloat`.
//!
//! Quantised floats round to the nearest step (V12 truncates), so the worst error is
//! half a step. The arithmetic is done in f64 with `+`, `*`, `/` only, which IEEE makes
//! identical on every platform: both ends of a connection agree bit for bit.

use crate::core::{BitReader, BitWriter};
use crate::error::Result;
use crate::ints::sign_extend;

/// floor(x + 0.5) for |x| < 2^52, without a libm call (x86-64 baseline has no `roundsd`).
#[inline]
pub(crate) fn round_half_up(x: f64) -> i64 {
    let t = x + 0.5;
    let i = t as i64;
    if (i as f64) > t { i - 1 } else { i }
}

/// Largest code of an unsigned quantised float of `bits` bits.
#[inline]
fn unit_steps(bits: u32) -> f64 {
    ((1u64 << bits) - 1) as f64
}

/// Largest magnitude code of a signed quantised float of `bits` bits.
#[inline]
fn signed_steps(bits: u32) -> f64 {
    ((1u64 << (bits - 1)) - 1) as f64
}

/// Worst absolute error of [`BitWriter::write_float`] at `bits` bits: `0.5 / (2^bits - 1)`.
pub fn float_max_error(bits: u32) -> f32 {
    (0.5 / unit_steps(bits.clamp(1, 32))) as f32
}

/// Worst absolute error of [`BitWriter::write_signed_float`] at `bits` bits: `0.5 / (2^(bits-1) - 1)`.
pub fn signed_float_max_error(bits: u32) -> f32 {
    (0.5 / signed_steps(bits.clamp(2, 32))) as f32
}

/// The code of `f` in `[0, 1]` at `bits` bits (NaN is 0, out-of-range values clamp).
#[inline]
pub(crate) fn quantize_unit(f: f32, bits: u32) -> u64 {
    let f = if f.is_nan() { 0.0 } else { f64::from(f).clamp(0.0, 1.0) };
    round_half_up(f * unit_steps(bits)) as u64
}

/// The two's complement code of `f` in `[-1, 1]` at `bits` bits (NaN is 0, out-of-range clamps).
#[inline]
pub(crate) fn quantize_signed(f: f32, bits: u32) -> u64 {
    let f = if f.is_nan() { 0.0 } else { f64::from(f).clamp(-1.0, 1.0) };
    round_half_up(f * signed_steps(bits)) as u64
}

/// The value of a signed code; the one code the writer never makes (`-2^(bits-1)`) reads as -1.
#[inline]
pub(crate) fn dequantize_signed(raw: u64, bits: u32) -> f64 {
    let steps = signed_steps(bits);
    (sign_extend(raw, bits) as f64).max(-steps) / steps
}

impl BitWriter {
    /// Writes the 32 IEEE bits of `f` unchanged (NaN payloads and infinities included).
    #[inline]
    pub fn write_f32(&mut self, f: f32) {
        self.write_bits(u64::from(f.to_bits()), 32);
    }

    /// Writes the 64 IEEE bits of `f` unchanged.
    #[inline]
    pub fn write_f64(&mut self, f: f64) {
        self.write_bits(f.to_bits(), 64);
    }

    /// Writes `f` in `[0, 1]` as `bits` bits (clamped to 1..=32), rounded to the nearest of
    /// `2^bits - 1` equal steps. Out-of-range values and infinities clamp; NaN sends 0.
    /// Error at most [`float_max_error`]`(bits)`; 0 and 1 are exact.
    #[inline]
    pub fn write_float(&mut self, f: f32, bits: u32) {
        let bits = bits.clamp(1, 32);
        self.write_bits(quantize_unit(f, bits), bits);
    }

    /// Writes `f` in `[-1, 1]` as a `bits`-bit (clamped to 2..=32) two's complement code of
    /// `2^(bits-1) - 1` steps each side. Out-of-range values clamp; NaN sends 0.
    /// Error at most [`signed_float_max_error`]`(bits)`; -1, 0 and 1 are exact.
    #[inline]
    pub fn write_signed_float(&mut self, f: f32, bits: u32) {
        let bits = bits.clamp(2, 32);
        self.write_bits(quantize_signed(f, bits), bits);
    }
}

impl BitReader<'_> {
    /// Reads 32 raw IEEE bits.
    #[inline]
    pub fn read_f32(&mut self) -> Result<f32> {
        Ok(f32::from_bits(self.read_bits(32)? as u32))
    }

    /// Reads 64 raw IEEE bits.
    #[inline]
    pub fn read_f64(&mut self) -> Result<f64> {
        Ok(f64::from_bits(self.read_bits(64)?))
    }

    /// Reads a float written by [`BitWriter::write_float`]; always in `[0, 1]`.
    #[inline]
    pub fn read_float(&mut self, bits: u32) -> Result<f32> {
        let bits = bits.clamp(1, 32);
        Ok((self.read_bits(bits)? as f64 / unit_steps(bits)) as f32)
    }

    /// Reads a float written by [`BitWriter::write_signed_float`]; always in `[-1, 1]`.
    #[inline]
    pub fn read_signed_float(&mut self, bits: u32) -> Result<f32> {
        let bits = bits.clamp(2, 32);
        Ok(dequantize_signed(self.read_bits(bits)?, bits) as f32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_helper() {
        assert_eq!(round_half_up(0.49), 0);
        assert_eq!(round_half_up(0.5), 1);
        assert_eq!(round_half_up(-0.5), 0);
        assert_eq!(round_half_up(-0.51), -1);
        assert_eq!(round_half_up(-2.0), -2);
        assert_eq!(round_half_up(1e9 + 0.7), 1_000_000_001);
    }

    #[test]
    fn edge_values_nan_and_infinity() {
        let mut w = BitWriter::new();
        for f in [0.0, 1.0, f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -0.0, 2.0] {
            w.write_float(f, 8);
        }
        for f in [-1.0, 0.0, 1.0, f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
            w.write_signed_float(f, 8);
        }
        w.write_f32(f32::NAN);
        w.write_f64(f64::NEG_INFINITY);
        let bytes = w.into_bytes();
        let mut r = BitReader::new(&bytes);
        let unit: Vec<f32> = (0..7).map(|_| r.read_float(8).unwrap()).collect();
        assert_eq!(unit, [0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 1.0]);
        let signed: Vec<f32> = (0..6).map(|_| r.read_signed_float(8).unwrap()).collect();
        assert_eq!(signed, [-1.0, 0.0, 1.0, 0.0, 1.0, -1.0]);
        assert!(r.read_f32().unwrap().is_nan());
        assert_eq!(r.read_f64().unwrap(), f64::NEG_INFINITY);
    }

    #[test]
    fn the_unused_signed_code_reads_as_minus_one() {
        let mut w = BitWriter::new();
        w.write_int(0b100, 3);
        let bytes = w.into_bytes();
        assert_eq!(BitReader::new(&bytes).read_signed_float(3).unwrap(), -1.0);
    }
}
