//! Unit normals as two angles: the V12 engine's `writeNormalVector`.
//!
//! A direction is sent as its azimuth `phi = atan2(x, y)` in `bits + 1` bits and its
//! elevation `theta = atan2(z, |xy|)` in `bits` bits, both as signed quantised floats.
//! Elevation needs half the range of azimuth, hence one bit less.

use glam::Vec3;

use crate::core::{BitReader, BitWriter};
use crate::error::Result;
use crate::floats::{dequantize_signed, quantize_signed};
use std::f32::consts::{FRAC_PI_2, PI};

/// Smallest and largest `bits` accepted by the normal functions (other values are clamped).
pub const NORMAL_BITS_RANGE: (u32, u32) = (2, 16);

#[inline]
fn clamp_bits(bits: u32) -> u32 {
    bits.clamp(NORMAL_BITS_RANGE.0, NORMAL_BITS_RANGE.1)
}

/// Bits of a normal written with `bits`: `2 * bits + 1`.
pub const fn normal_total_bits(bits: u32) -> u32 {
    let b = if bits < NORMAL_BITS_RANGE.0 {
        NORMAL_BITS_RANGE.0
    } else if bits > NORMAL_BITS_RANGE.1 {
        NORMAL_BITS_RANGE.1
    } else {
        bits
    };
    2 * b + 1
}

/// Worst angle in radians between a unit vector and its decoded normal at `bits`:
/// half an elevation step and half an azimuth step, combined,
/// `sqrt((pi/2 * e(bits))^2 + (pi * e(bits + 1))^2)` with `e(n) = 0.5 / (2^(n-1) - 1)`.
/// At 8 bits that is about 0.50 degrees.
pub fn normal_max_error(bits: u32) -> f32 {
    let bits = clamp_bits(bits);
    let e = |n: u32| 0.5 / ((1u64 << (n - 1)) - 1) as f32;
    let theta = FRAC_PI_2 * e(bits);
    let phi = PI * e(bits + 1);
    (theta * theta + phi * phi).sqrt()
}

impl BitWriter {
    /// Writes the direction of `v` in `2 * bits + 1` bits (`bits` clamped to 2..=16).
    ///
    /// `v` need not be unit length. A zero or non-finite vector decodes as +Y.
    /// Error at most [`normal_max_error`]`(bits)` radians.
    #[inline]
    pub fn write_normal(&mut self, v: Vec3, bits: u32) {
        let bits = clamp_bits(bits);
        let phi = v.x.atan2(v.y) / PI;
        let theta = v.z.atan2((v.x * v.x + v.y * v.y).sqrt()) / FRAC_PI_2;
        self.write_bits(quantize_signed(phi, bits + 1), bits + 1);
        self.write_bits(quantize_signed(theta, bits), bits);
    }
}

impl BitReader<'_> {
    /// Reads a unit vector written by [`BitWriter::write_normal`] with the same `bits`.
    /// Any bits decode to a unit vector.
    #[inline]
    pub fn read_normal(&mut self, bits: u32) -> Result<Vec3> {
        let bits = clamp_bits(bits);
        let phi = dequantize_signed(self.read_bits(bits + 1)?, bits + 1) as f32 * PI;
        let theta = dequantize_signed(self.read_bits(bits)?, bits) as f32 * FRAC_PI_2;
        let (sp, cp) = phi.sin_cos();
        let (st, ct) = theta.sin_cos();
        Ok(Vec3::new(sp * ct, cp * ct, st))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axes_and_degenerate_vectors() {
        let cases = [
            (Vec3::X, Vec3::X),
            (Vec3::NEG_Y, Vec3::NEG_Y),
            (Vec3::Z * 5.0, Vec3::Z),
            (Vec3::NEG_Z, Vec3::NEG_Z),
            (Vec3::ZERO, Vec3::Y),
            (Vec3::NAN, Vec3::Y),
        ];
        for (v, want) in cases {
            let mut w = BitWriter::new();
            w.write_normal(v, 8);
            assert_eq!(w.bit_position(), normal_total_bits(8) as usize);
            let bytes = w.into_bytes();
            let got = BitReader::new(&bytes).read_normal(8).unwrap();
            assert!(got.angle_between(want) <= normal_max_error(8) + 1e-5, "{v} -> {got}");
        }
        assert!((normal_max_error(8).to_degrees() - 0.50).abs() < 0.01);
    }
}
