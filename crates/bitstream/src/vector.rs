//! glam vectors: raw `Vec3`/`Quat`, and vectors as magnitude plus direction (V12
//! engine's `writeVector`, used for velocities).

use glam::{Quat, Vec3};

use crate::core::{BitReader, BitWriter};
use crate::error::Result;

impl BitWriter {
    /// Writes three raw f32 (96 bits, exact).
    #[inline]
    pub fn write_vec3(&mut self, v: Vec3) {
        self.write_f32(v.x);
        self.write_f32(v.y);
        self.write_f32(v.z);
    }

    /// Writes four raw f32 (128 bits, exact).
    #[inline]
    pub fn write_quat_raw(&mut self, q: Quat) {
        for c in q.to_array() {
            self.write_f32(c);
        }
    }

    /// Writes `v` as a flag (non-zero), then a flag (magnitude below `max_mag`) and the
    /// magnitude as a `mag_bits` float of `max_mag` (or a raw f32 when at or above it),
    /// then the direction as a [`BitWriter::write_normal`] of `normal_bits`.
    ///
    /// Size: 1 bit for zero, else `2 + mag_bits + 2 * normal_bits + 1` (or 32 instead of
    /// `mag_bits`). Magnitude error at most `max_mag * float_max_error(mag_bits)`.
    /// A non-finite or non-positive `max_mag` always sends the raw magnitude;
    /// a NaN vector is sent as zero.
    pub fn write_vector(&mut self, v: Vec3, max_mag: f32, mag_bits: u32, normal_bits: u32) {
        let mag = v.length();
        if !self.write_flag(mag > 0.0) {
            return;
        }
        if self.write_flag(max_mag.is_finite() && mag < max_mag) {
            self.write_float(mag / max_mag, mag_bits);
        } else {
            self.write_f32(mag);
        }
        self.write_normal(v / mag, normal_bits);
    }
}

impl BitReader<'_> {
    /// Reads three raw f32.
    #[inline]
    pub fn read_vec3(&mut self) -> Result<Vec3> {
        Ok(Vec3::new(self.read_f32()?, self.read_f32()?, self.read_f32()?))
    }

    /// Reads four raw f32 (x, y, z, w), not normalised.
    #[inline]
    pub fn read_quat_raw(&mut self) -> Result<Quat> {
        Ok(Quat::from_xyzw(self.read_f32()?, self.read_f32()?, self.read_f32()?, self.read_f32()?))
    }

    /// Reads a vector written by [`BitWriter::write_vector`] with the same parameters.
    pub fn read_vector(&mut self, max_mag: f32, mag_bits: u32, normal_bits: u32) -> Result<Vec3> {
        if !self.read_flag()? {
            return Ok(Vec3::ZERO);
        }
        let mag = if self.read_flag()? { self.read_float(mag_bits)? * max_mag } else { self.read_f32()? };
        Ok(self.read_normal(normal_bits)? * mag)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vector_zero_small_and_large() {
        let mut w = BitWriter::new();
        w.write_vector(Vec3::ZERO, 50.0, 13, 10);
        assert_eq!(w.bit_position(), 1);
        w.write_vector(Vec3::new(3.0, -4.0, 0.0), 50.0, 13, 10);
        w.write_vector(Vec3::new(0.0, 0.0, -400.0), 50.0, 13, 10);
        w.write_vector(Vec3::NAN, 50.0, 13, 10);
        w.write_vec3(Vec3::new(1.5, f32::MAX, -0.0));
        w.write_quat_raw(Quat::from_xyzw(1.0, 2.0, 3.0, 4.0));
        let bytes = w.into_bytes();
        let mut r = BitReader::new(&bytes);
        assert_eq!(r.read_vector(50.0, 13, 10).unwrap(), Vec3::ZERO);
        assert!(r.read_vector(50.0, 13, 10).unwrap().distance(Vec3::new(3.0, -4.0, 0.0)) < 0.02);
        assert!(r.read_vector(50.0, 13, 10).unwrap().distance(Vec3::new(0.0, 0.0, -400.0)) < 1e-3);
        assert_eq!(r.read_vector(50.0, 13, 10).unwrap(), Vec3::ZERO);
        assert_eq!(r.read_vec3().unwrap(), Vec3::new(1.5, f32::MAX, -0.0));
        assert_eq!(r.read_quat_raw().unwrap(), Quat::from_xyzw(1.0, 2.0, 3.0, 4.0));
    }
}
