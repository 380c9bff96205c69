//! The packet header on the wire, as raw field values (no connection state).
//!
//! Kept apart from the state machine so the codec can be round-trip tested and fuzzed alone.
//! The bit layout is documented in the crate README ("Wire format").

use v12_bitstream::{BitReader, BitStreamError, BitWriter};

/// Ack mask size and hard limit of unacknowledged data packets.
pub const WINDOW: u32 = 32;
/// Bits of the sequence and highest-ack fields; both are written mod 2^SEQ_BITS.
pub const SEQ_BITS: u32 = 10;
/// `2^SEQ_BITS - 1`.
pub(crate) const SEQ_MASK: u32 = (1 << SEQ_BITS) - 1;
/// Send-delay unit: the field counts steps of this many milliseconds.
pub const DELAY_STEP_MS: u64 = 4;
/// Largest send-delay value (in steps); it means "at least this long", and gives no RTT sample.
pub(crate) const DELAY_MAX_UNITS: u8 = u8::MAX;
/// Delays below this many steps use the short form.
const DELAY_SHORT_LIMIT: u8 = 8;

/// What a packet is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PacketKind {
    /// Carries a payload and consumes a sequence number; it will be notified.
    Data,
    /// Keep-alive asking the peer for an ack-only answer.
    Ping,
    /// Carries only acknowledgements.
    Ack,
}

/// Which of the up-to-32 sequences ending at the highest-ack were received.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckMask {
    /// Every sequence the peer may still be unsure about was received.
    AllReceived,
    /// Bit `i` of `mask` covers `highest_ack - i` for `i < 8 * bytes`; older ones were all received.
    Explicit { bytes: u8, mask: u32 },
}

impl AckMask {
    /// Whether the sequence `back` steps before the highest-ack was received.
    pub(crate) fn received(self, back: u32) -> bool {
        match self {
            Self::AllReceived => true,
            Self::Explicit { bytes, mask } => back >= u32::from(bytes) * 8 || (mask >> back) & 1 == 1,
        }
    }
}

/// One header with its fields as they appear on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WireHeader {
    pub kind: PacketKind,
    /// Sender's sequence mod 2^SEQ_BITS (for Ping/Ack: its last data sequence).
    pub seq: u32,
    /// Highest sequence received from the peer, mod 2^SEQ_BITS.
    pub ack: u32,
    pub acks: AckMask,
    /// How long the sender held the packet named by `ack`, in DELAY_STEP_MS steps.
    pub delay: u8,
}

impl WireHeader {
    /// Writes the header; fields are masked to their widths.
    pub fn write(&self, w: &mut BitWriter) {
        match self.kind {
            PacketKind::Data => {
                w.write_flag(true);
            }
            PacketKind::Ping | PacketKind::Ack => {
                w.write_flag(false);
                w.write_flag(self.kind == PacketKind::Ping);
            }
        }
        w.write_int(self.seq & SEQ_MASK, SEQ_BITS);
        w.write_int(self.ack & SEQ_MASK, SEQ_BITS);
        match self.acks {
            AckMask::AllReceived => {
                w.write_flag(true);
            }
            AckMask::Explicit { bytes, mask } => {
                let bytes = bytes.clamp(1, 4);
                w.write_flag(false);
                w.write_int(u32::from(bytes - 1), 2);
                w.write_bits(u64::from(mask), u32::from(bytes) * 8);
            }
        }
        if w.write_flag(self.delay >= DELAY_SHORT_LIMIT) {
            w.write_int(u32::from(self.delay), 8);
        } else {
            w.write_int(u32::from(self.delay), 3);
        }
    }

    /// Reads a header; every bit pattern long enough is a valid header.
    pub fn read(r: &mut BitReader<'_>) -> Result<Self, BitStreamError> {
        let kind = if r.read_flag()? {
            PacketKind::Data
        } else if r.read_flag()? {
            PacketKind::Ping
        } else {
            PacketKind::Ack
        };
        let seq = r.read_int(SEQ_BITS)?;
        let ack = r.read_int(SEQ_BITS)?;
        let acks = if r.read_flag()? {
            AckMask::AllReceived
        } else {
            let bytes = r.read_int(2)? as u8 + 1;
            let mask = r.read_bits(u32::from(bytes) * 8)? as u32;
            AckMask::Explicit { bytes, mask }
        };
        let delay = if r.read_flag()? { r.read_int(8)? as u8 } else { r.read_int(3)? as u8 };
        Ok(Self { kind, seq, ack, acks, delay })
    }

    /// Size of this header in bits.
    pub fn bits(&self) -> u32 {
        let kind = if self.kind == PacketKind::Data { 1 } else { 2 };
        let acks = match self.acks {
            AckMask::AllReceived => 1,
            AckMask::Explicit { bytes, .. } => 3 + u32::from(bytes.clamp(1, 4)) * 8,
        };
        let delay = if self.delay >= DELAY_SHORT_LIMIT { 9 } else { 4 };
        kind + 2 * SEQ_BITS + acks + delay
    }
}

/// Encodes a hold time in milliseconds as delay steps (rounded, saturating).
pub(crate) fn delay_units(held_ms: u64) -> u8 {
    let units = held_ms.saturating_add(DELAY_STEP_MS / 2) / DELAY_STEP_MS;
    units.min(u64::from(DELAY_MAX_UNITS)) as u8
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn header() -> impl Strategy<Value = WireHeader> {
        let kind = prop_oneof![Just(PacketKind::Data), Just(PacketKind::Ping), Just(PacketKind::Ack)];
        let acks = prop_oneof![
            Just(AckMask::AllReceived),
            (1u8..=4, any::<u32>()).prop_map(|(bytes, mask)| {
                let keep = if bytes == 4 { u32::MAX } else { (1u32 << (bytes * 8)) - 1 };
                AckMask::Explicit { bytes, mask: mask & keep }
            }),
        ];
        (kind, 0..=SEQ_MASK, 0..=SEQ_MASK, acks, any::<u8>())
            .prop_map(|(kind, seq, ack, acks, delay)| WireHeader { kind, seq, ack, acks, delay })
    }

    proptest! {
        #[test]
        fn header_round_trips_at_its_stated_size(h in header(), lead in 0u32..8) {
            let mut w = BitWriter::new();
            w.write_int(0, lead);
            h.write(&mut w);
            prop_assert_eq!(w.bit_position() as u32, lead + h.bits());
            let bytes = w.into_bytes();
            let mut r = BitReader::new(&bytes);
            r.read_int(lead).unwrap();
            prop_assert_eq!(WireHeader::read(&mut r).unwrap(), h);
        }

        #[test]
        fn arbitrary_bytes_read_or_error(data in proptest::collection::vec(any::<u8>(), 0..12)) {
            let mut r = BitReader::new(&data);
            if let Ok(h) = WireHeader::read(&mut r) {
                prop_assert!(h.bits() as usize <= data.len() * 8);
            }
        }
    }

    #[test]
    fn common_data_header_is_26_bits() {
        let h = WireHeader { kind: PacketKind::Data, seq: 5, ack: 9, acks: AckMask::AllReceived, delay: 3 };
        assert_eq!(h.bits(), 26);
    }

    #[test]
    fn delay_rounds_and_saturates() {
        assert_eq!(delay_units(0), 0);
        assert_eq!(delay_units(1), 0);
        assert_eq!(delay_units(2), 1);
        assert_eq!(delay_units(31), 8);
        assert_eq!(delay_units(u64::MAX), DELAY_MAX_UNITS);
    }

    #[test]
    fn explicit_mask_treats_older_sequences_as_received() {
        let m = AckMask::Explicit { bytes: 1, mask: 0b1111_1101 };
        assert!(m.received(0));
        assert!(!m.received(1));
        assert!(m.received(8));
        assert!(m.received(31));
        assert!(AckMask::AllReceived.received(3));
    }
}
