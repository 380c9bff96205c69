//! Small shared wire helpers: length-prefixed text and the packet kinds.

use crate::error::{NetError, Result};
use v12_bitstream::{BitReader, BitWriter};

/// Writes UTF-8 text (Huffman-coded when smaller): a flag for "long", then the
/// bitstream's short (8-bit length) or long (16-bit length) string. Text beyond 65535
/// bytes is cut at a character boundary.
pub fn write_str(w: &mut BitWriter, s: &str) {
    let mut end = s.len().min(u16::MAX as usize);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    let s = &s[..end];
    // Both writes are within their length limits, so they cannot fail.
    let _ = if w.write_flag(s.len() > 255) { w.write_long_string(s) } else { w.write_string(s) };
}

/// Reads text written by [`write_str`], refusing more than `max` bytes.
pub fn read_str(r: &mut BitReader<'_>, max: usize) -> Result<String> {
    let s = if r.read_flag()? { r.read_long_string()? } else { r.read_string()? };
    if s.len() > max {
        return Err(NetError::TooLong { what: "string", len: s.len(), max });
    }
    Ok(s)
}

/// Bits needed to write any value in `0..count` (0 when there is at most one value).
pub fn bits_for_count(count: usize) -> u32 {
    if count <= 1 { 0 } else { usize::BITS - (count - 1).leading_zeros() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_round_trip_and_limits() {
        let long = "x".repeat(300);
        let mut w = BitWriter::new();
        w.write_flag(true);
        write_str(&mut w, "héllo");
        write_str(&mut w, &long);
        let b = w.into_bytes();
        let mut r = BitReader::new(&b);
        assert!(r.read_flag().unwrap());
        assert_eq!(read_str(&mut r, 100).unwrap(), "héllo");
        assert!(matches!(read_str(&mut r, 100), Err(NetError::TooLong { len: 300, .. })));
    }

    #[test]
    fn count_bits() {
        assert_eq!(bits_for_count(0), 0);
        assert_eq!(bits_for_count(1), 0);
        assert_eq!(bits_for_count(2), 1);
        assert_eq!(bits_for_count(3), 2);
        assert_eq!(bits_for_count(4), 2);
        assert_eq!(bits_for_count(5), 3);
        assert_eq!(bits_for_count(1024), 10);
    }
}
