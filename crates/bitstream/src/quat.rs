//! Rotations as "smallest three": the index of the largest quaternion component (2 bits)
//! and the other three, each in `[-1/sqrt 2, 1/sqrt 2]`, as signed quantised floats.
//!
//! The largest component is rebuilt from the unit length, so a rotation costs
//! `2 + 3 * bits` bits (29 at the usual 9 bits) instead of 128.

use glam::Quat;

use crate::core::{BitReader, BitWriter};
use crate::error::Result;
use crate::floats::{dequantize_signed, quantize_signed};
use std::f32::consts::{FRAC_1_SQRT_2, SQRT_2};

/// Smallest and largest bits per component accepted (other values are clamped).
pub const QUAT_BITS_RANGE: (u32, u32) = (2, 16);

#[inline]
fn clamp_bits(bits: u32) -> u32 {
    bits.clamp(QUAT_BITS_RANGE.0, QUAT_BITS_RANGE.1)
}

/// Bits of a quaternion written with `bits` per component: `2 + 3 * bits`.
pub const fn quat_total_bits(bits: u32) -> u32 {
    let b = if bits < QUAT_BITS_RANGE.0 {
        QUAT_BITS_RANGE.0
    } else if bits > QUAT_BITS_RANGE.1 {
        QUAT_BITS_RANGE.1
    } else {
        bits
    };
    2 + 3 * b
}

/// Worst rotation angle in radians between a rotation and its decoded value at `bits` bits a
/// component: `7d + 8d²` with `d = (1/sqrt 2) * 0.5 / (2^(bits-1) - 1)`, the per-component
/// error. (Three sent components off by `d`, the rebuilt one off by at most `3d` to first
/// order: `|dq| <= sqrt 12 d`, and the angle is at most twice that. The second-order term
/// matters only at 3 bits, where a search found 0.899 rad against the first-order 0.825.)
/// At 9 bits: 0.0097 rad, 0.56 degrees.
pub fn quat_max_error(bits: u32) -> f32 {
    let bits = clamp_bits(bits);
    let d = FRAC_1_SQRT_2 * 0.5 / ((1u64 << (bits - 1)) - 1) as f32;
    (7.0 * d + 8.0 * d * d).min(std::f32::consts::PI)
}

impl BitWriter {
    /// Writes the rotation `q` in `2 + 3 * bits` bits (`bits` clamped to 2..=16).
    ///
    /// `q` need not be normalised; a zero or non-finite quaternion is sent as the identity.
    /// Error at most [`quat_max_error`]`(bits)` radians of rotation.
    #[inline]
    pub fn write_quat(&mut self, q: Quat, bits: u32) {
        let bits = clamp_bits(bits);
        let len = q.length();
        let q = if len.is_finite() && len > 0.0 { q / len } else { Quat::IDENTITY };
        let c = q.to_array();
        let mut largest = 0;
        for i in 1..4 {
            if c[i].abs() > c[largest].abs() {
                largest = i;
            }
        }
        // q and -q are the same rotation: make the dropped component positive.
        let sign = if c[largest] < 0.0 { -SQRT_2 } else { SQRT_2 };
        self.write_bits(largest as u64, 2);
        for (i, &v) in c.iter().enumerate() {
            if i != largest {
                self.write_bits(quantize_signed(v * sign, bits), bits);
            }
        }
    }
}

impl BitReader<'_> {
    /// Reads a rotation written by [`BitWriter::write_quat`] with the same `bits`.
    /// Any bits decode to a unit quaternion.
    #[inline]
    pub fn read_quat(&mut self, bits: u32) -> Result<Quat> {
        let bits = clamp_bits(bits);
        let largest = self.read_bits(2)? as usize;
        let mut c = [0.0f32; 4];
        let mut sum = 0.0;
        for (i, slot) in c.iter_mut().enumerate() {
            if i != largest {
                let v = dequantize_signed(self.read_bits(bits)?, bits) as f32 * FRAC_1_SQRT_2;
                *slot = v;
                sum += v * v;
            }
        }
        c[largest] = (1.0 - sum).max(0.0).sqrt();
        // Three components of at most 1/sqrt 2 each: the length is never zero.
        Ok(Quat::from_array(c).normalize())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;

    #[test]
    fn identity_degenerate_and_negated() {
        let r = Quat::from_axis_angle(Vec3::new(1.0, 2.0, 3.0).normalize(), 2.5);
        let cases = [
            (Quat::IDENTITY, Quat::IDENTITY),
            (Quat::from_xyzw(0.0, 0.0, 0.0, 0.0), Quat::IDENTITY),
            (Quat::from_xyzw(f32::NAN, 0.0, 0.0, 1.0), Quat::IDENTITY),
            (-r, r),
            (r * 3.0, r),
        ];
        for (q, want) in cases {
            let mut w = BitWriter::new();
            w.write_quat(q, 9);
            assert_eq!(w.bit_position(), quat_total_bits(9) as usize);
            let bytes = w.into_bytes();
            let got = BitReader::new(&bytes).read_quat(9).unwrap();
            assert!(got.angle_between(want) <= quat_max_error(9), "{q} -> {got}");
        }
    }

    #[test]
    fn all_ones_decodes_to_a_unit_quaternion() {
        let bytes = [0xFF; 8];
        let q = BitReader::new(&bytes).read_quat(9).unwrap();
        assert!(q.is_finite() && (q.length() - 1.0).abs() < 1e-5);
    }
}
