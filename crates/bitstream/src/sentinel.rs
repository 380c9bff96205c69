//! The debug sentinel (V12's DEBUG_NET): a 32-bit marker after each event or object
//! update, so a reader that read more or fewer bits than its writer wrote fails right
//! there, with the name of the section, instead of misreading the rest of the packet.
//!
//! [`BitWriter::write_sentinel`] / [`BitReader::read_sentinel`] are no-ops (zero bits)
//! unless the crate feature `debug-sentinel` is on; both ends must be built the same way.
//! [`BitWriter::write_marker`] / [`BitReader::read_marker`] always write and check.

use crate::core::{BitReader, BitWriter};
use crate::error::{BitStreamError, Result};

/// Bits of a marker.
pub const SENTINEL_BITS: u32 = 32;

/// True when this build writes sentinels (feature `debug-sentinel`).
pub const SENTINELS_ENABLED: bool = cfg!(feature = "debug-sentinel");

/// The marker of a label: FNV-1a of its bytes, so sections with different labels also differ.
pub const fn sentinel_value(label: &str) -> u32 {
    let bytes = label.as_bytes();
    let mut h: u32 = 0x811C_9DC5;
    let mut i = 0;
    while i < bytes.len() {
        h ^= bytes[i] as u32;
        h = h.wrapping_mul(0x0100_0193);
        i += 1;
    }
    h
}

impl BitWriter {
    /// Writes the 32-bit marker of `label`, whatever the features.
    #[inline]
    pub fn write_marker(&mut self, label: &'static str) {
        self.write_bits(u64::from(sentinel_value(label)), SENTINEL_BITS);
    }

    /// Writes the marker of `label` with feature `debug-sentinel`; nothing without it.
    #[inline]
    pub fn write_sentinel(&mut self, label: &'static str) {
        if SENTINELS_ENABLED {
            self.write_marker(label);
        }
    }
}

impl BitReader<'_> {
    /// Reads a marker and checks it is the one of `label`. Any other bits, or the end of
    /// the data, are [`BitStreamError::SentinelMismatch`] naming `label` and the bit where
    /// the marker was expected (missing bits read as zero in `found`).
    pub fn read_marker(&mut self, label: &'static str) -> Result<()> {
        let at = self.bit_position();
        let expected = sentinel_value(label);
        let have = self.bits_left().min(SENTINEL_BITS as usize) as u32;
        let found = self.read_bits(have)? as u32;
        if have == SENTINEL_BITS && found == expected {
            Ok(())
        } else {
            Err(BitStreamError::SentinelMismatch { at, expected, found, label })
        }
    }

    /// Checks the marker of `label` with feature `debug-sentinel`; always `Ok` without it.
    #[inline]
    pub fn read_sentinel(&mut self, label: &'static str) -> Result<()> {
        if SENTINELS_ENABLED { self.read_marker(label) } else { Ok(()) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marker_names_the_place_of_disagreement() {
        let mut w = BitWriter::new();
        w.write_int(5, 7);
        w.write_marker("event A");
        w.write_int(9, 6);
        w.write_marker("event B");
        let bytes = w.into_bytes();

        let mut r = BitReader::new(&bytes);
        r.read_int(7).unwrap();
        r.read_marker("event A").unwrap();
        // The reader of event B reads one bit too many.
        r.read_int(7).unwrap();
        let err = r.read_marker("event B").unwrap_err();
        assert!(matches!(err, BitStreamError::SentinelMismatch { at: 46, label: "event B", .. }), "{err}");
        assert!(err.to_string().contains("event B"));

        // Running off the end is a mismatch too, not a bare end-of-stream.
        let mut r = BitReader::new(&bytes[..2]);
        r.read_int(7).unwrap();
        assert!(matches!(r.read_marker("event A"), Err(BitStreamError::SentinelMismatch { at: 7, .. })));
    }

    #[test]
    fn sentinel_follows_the_feature() {
        let mut w = BitWriter::new();
        w.write_sentinel("update");
        assert_eq!(w.bit_position(), if SENTINELS_ENABLED { 32 } else { 0 });
        w.write_flag(true);
        let bytes = w.into_bytes();
        let mut r = BitReader::new(&bytes);
        r.read_sentinel("update").unwrap();
        assert!(r.read_flag().unwrap());
        // A sentinel the writer never wrote is caught only when sentinels are on.
        let mut r = BitReader::new(&[0xFF; 8]);
        assert_eq!(r.read_sentinel("update").is_err(), SENTINELS_ENABLED);
    }
}
