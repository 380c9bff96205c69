//! Points relative to a compression point: the V12 engine's `writeCompressedPoint`.
//!
//! Ghost positions are sent as an offset from a point both ends know (usually the
//! client's control object), in steps of `scale` metres. Near points need few bits;
//! points too far away (or not finite) fall back to three raw f32.

use glam::Vec3;

use crate::core::{BitReader, BitWriter};
use crate::error::Result;
use crate::floats::round_half_up;
use crate::ints::sign_extend;

/// Bits of the precision code in front of every compressed point.
pub const POINT_PRECISION_BITS: u32 = 2;

/// How a compressed point was sent: the first 2 bits of the field say which.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PointPrecision {
    /// 16-bit signed steps per axis (2 + 48 bits).
    Bits16,
    /// 18-bit signed steps per axis (2 + 54 bits).
    Bits18,
    /// 20-bit signed steps per axis (2 + 60 bits).
    Bits20,
    /// Three raw f32 (2 + 96 bits): out of range, or not finite.
    Full,
}

impl PointPrecision {
    /// Bits per axis of this precision (32 for [`PointPrecision::Full`]).
    pub const fn bits_per_axis(self) -> u32 {
        match self {
            Self::Bits16 => 16,
            Self::Bits18 => 18,
            Self::Bits20 => 20,
            Self::Full => 32,
        }
    }

    /// Total bits of a point sent at this precision, code included.
    pub const fn total_bits(self) -> u32 {
        POINT_PRECISION_BITS + 3 * self.bits_per_axis()
    }

    const fn code(self) -> u64 {
        match self {
            Self::Bits16 => 0,
            Self::Bits18 => 1,
            Self::Bits20 => 2,
            Self::Full => 3,
        }
    }

    const fn from_code(code: u64) -> Self {
        match code & 3 {
            0 => Self::Bits16,
            1 => Self::Bits18,
            2 => Self::Bits20,
            _ => Self::Full,
        }
    }
}

/// The point positions are sent relative to, and the size of one step.
///
/// Per-axis range with the default 1 cm step: ±327.67 m at 16 bits, ±1310.71 m at 18,
/// ±5242.87 m at 20 (`(2^(bits-1) - 1) * scale`). Error inside the range: at most
/// `scale / 2` per axis, plus the f32 rounding of the result. Full floats are exact.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CompressionPoint {
    origin: Vec3,
    scale: f32,
    /// `1 / scale`, so quantising multiplies instead of dividing.
    inv_scale: f64,
}

impl Default for CompressionPoint {
    fn default() -> Self {
        Self::new(Vec3::ZERO)
    }
}

impl CompressionPoint {
    /// The default step: 1 cm, the V12 engine's value.
    pub const DEFAULT_SCALE: f32 = 0.01;

    /// A compression point at `origin` with 1 cm steps.
    pub const fn new(origin: Vec3) -> Self {
        Self { origin, scale: Self::DEFAULT_SCALE, inv_scale: 1.0 / Self::DEFAULT_SCALE as f64 }
    }

    /// A compression point with steps of `scale` metres. A scale that is not finite and
    /// positive (0, negative, NaN) is replaced by [`Self::DEFAULT_SCALE`], so both ends
    /// always quantise the same way.
    pub fn with_scale(origin: Vec3, scale: f32) -> Self {
        let scale = if scale.is_finite() && scale > 0.0 { scale } else { Self::DEFAULT_SCALE };
        Self { origin, scale, inv_scale: 1.0 / f64::from(scale) }
    }

    /// The point offsets are measured from.
    pub const fn origin(&self) -> Vec3 {
        self.origin
    }

    /// The size of one step in metres.
    pub const fn scale(&self) -> f32 {
        self.scale
    }

    /// The largest offset per axis that `precision` can send (infinite for `Full`).
    pub fn range(&self, precision: PointPrecision) -> f32 {
        match precision {
            PointPrecision::Full => f32::INFINITY,
            p => ((1i64 << (p.bits_per_axis() - 1)) - 1) as f32 * self.scale,
        }
    }

    /// Quantised offsets of `p` and the smallest precision that holds them.
    #[inline]
    fn quantize(&self, p: Vec3) -> ([i64; 3], PointPrecision) {
        let inv = self.inv_scale;
        let axis = |v: f32, o: f32| (f64::from(v) - f64::from(o)) * inv;
        let d = [axis(p.x, self.origin.x), axis(p.y, self.origin.y), axis(p.z, self.origin.z)];
        // `!(x < limit)` also catches NaN; 2^19 is the 20-bit limit, checked after rounding.
        const LIMIT: f64 = (1u64 << 19) as f64;
        if !(d[0].abs() < LIMIT && d[1].abs() < LIMIT && d[2].abs() < LIMIT) {
            return ([0; 3], PointPrecision::Full);
        }
        let q = [round_half_up(d[0]), round_half_up(d[1]), round_half_up(d[2])];
        // Fits n bits when -2^(n-1) <= q <= 2^(n-1)-1, i.e. max(q, -q-1) < 2^(n-1).
        let m = q.iter().map(|&v| v.max(-v - 1)).max().unwrap_or(0);
        let precision = if m < 1 << 15 {
            PointPrecision::Bits16
        } else if m < 1 << 17 {
            PointPrecision::Bits18
        } else if m < 1 << 19 {
            PointPrecision::Bits20
        } else {
            PointPrecision::Full
        };
        (q, precision)
    }

    /// The precision [`BitWriter::write_compressed_point`] would choose for `p`.
    pub fn precision_for(&self, p: Vec3) -> PointPrecision {
        self.quantize(p).1
    }
}

impl BitWriter {
    /// Writes `p` relative to `cp`: 2 bits of [`PointPrecision`], then three signed
    /// step counts of 16, 18 or 20 bits, or three raw f32 when out of range or not finite.
    /// Returns the precision used.
    #[inline]
    pub fn write_compressed_point(&mut self, p: Vec3, cp: &CompressionPoint) -> PointPrecision {
        let (q, precision) = cp.quantize(p);
        self.write_bits(precision.code(), POINT_PRECISION_BITS);
        if precision == PointPrecision::Full {
            self.write_f32(p.x);
            self.write_f32(p.y);
            self.write_f32(p.z);
        } else {
            let bits = precision.bits_per_axis();
            for v in q {
                self.write_bits(v as u64, bits);
            }
        }
        precision
    }
}

impl BitReader<'_> {
    /// Reads a point written by [`BitWriter::write_compressed_point`] with the same `cp`.
    #[inline]
    pub fn read_compressed_point(&mut self, cp: &CompressionPoint) -> Result<Vec3> {
        let precision = PointPrecision::from_code(self.read_bits(POINT_PRECISION_BITS)?);
        if precision == PointPrecision::Full {
            return Ok(Vec3::new(self.read_f32()?, self.read_f32()?, self.read_f32()?));
        }
        let bits = precision.bits_per_axis();
        let scale = f64::from(cp.scale);
        let mut axis = |o: f32| -> Result<f32> {
            Ok((f64::from(o) + sign_extend(self.read_bits(bits)?, bits) as f64 * scale) as f32)
        };
        Ok(Vec3::new(axis(cp.origin.x)?, axis(cp.origin.y)?, axis(cp.origin.z)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precision_steps_with_distance() {
        let cp = CompressionPoint::new(Vec3::new(100.0, -50.0, 10.0));
        let cases = [
            (Vec3::new(100.0, -50.0, 10.0), PointPrecision::Bits16),
            (Vec3::new(100.0 + 327.0, -50.0, 10.0), PointPrecision::Bits16),
            (Vec3::new(100.0, -50.0 - 328.0, 10.0), PointPrecision::Bits18),
            (Vec3::new(100.0, -50.0, 10.0 + 5000.0), PointPrecision::Bits20),
            (Vec3::new(100.0 + 6000.0, -50.0, 10.0), PointPrecision::Full),
            (Vec3::new(f32::NAN, 0.0, 0.0), PointPrecision::Full),
            (Vec3::new(f32::INFINITY, 0.0, 0.0), PointPrecision::Full),
        ];
        for (p, want) in cases {
            let mut w = BitWriter::new();
            assert_eq!(w.write_compressed_point(p, &cp), want, "{p}");
            assert_eq!(w.bit_position(), want.total_bits() as usize);
            let bytes = w.into_bytes();
            let back = BitReader::new(&bytes).read_compressed_point(&cp).unwrap();
            if want == PointPrecision::Full {
                assert_eq!(back.x.to_bits(), p.x.to_bits());
            } else {
                assert!((back - p).abs().max_element() <= 0.005 + 1e-4, "{p} -> {back}");
            }
        }
    }

    #[test]
    fn bad_scale_falls_back_to_default() {
        for s in [0.0, -1.0, f32::NAN, f32::INFINITY] {
            assert_eq!(CompressionPoint::with_scale(Vec3::ZERO, s).scale(), CompressionPoint::DEFAULT_SCALE);
        }
        let cp = CompressionPoint::default();
        assert!((cp.range(PointPrecision::Bits16) - 327.67).abs() < 1e-3);
    }
}
