//! Packet rate and size per direction, negotiated in-band.
//!
//! Each side states the fastest period and largest packet it is willing to *receive*;
//! a sender uses the slower period and the smaller size of its own wish and the peer's
//! limit (TNL's `setFixedRateParameters`). The offer rides in every data packet until a
//! packet carrying it is acknowledged.

use crate::error::Result;
use v12_bitstream::{BitReader, BitWriter};

const PERIOD_BITS: u32 = 10;
const SIZE_BITS: u32 = 11;
/// Smallest packet size a peer may impose (the header must always fit).
pub const MIN_PACKET_SIZE: u32 = 64;
/// Largest packet size on the wire.
pub const MAX_PACKET_SIZE: u32 = (1 << SIZE_BITS) - 1;

/// One side's packet-rate wishes and limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateConfig {
    /// Send a data packet at most this often (ms).
    pub send_period_ms: u32,
    /// Largest data packet to send (bytes).
    pub send_size: u32,
    /// The peer may send to us at most this often (ms).
    pub recv_period_ms: u32,
    /// The peer may send us packets of at most this many bytes.
    pub recv_size: u32,
}

impl RateConfig {
    /// Torque3D client defaults: a packet every 32 ms, at most 508 bytes.
    pub const CLIENT: Self = Self { send_period_ms: 32, send_size: 508, recv_period_ms: 32, recv_size: 508 };
    /// Torque3D server defaults: a packet every 100 ms (rate 10) to each client.
    pub const SERVER: Self = Self { send_period_ms: 100, send_size: 508, recv_period_ms: 32, recv_size: 508 };
    /// Client and server in one process: rate 128, larger packets.
    pub const LOCAL: Self = Self { send_period_ms: 8, send_size: 1024, recv_period_ms: 8, recv_size: 1024 };

    pub(crate) fn clamped(self) -> Self {
        Self {
            send_period_ms: self.send_period_ms.clamp(1, (1 << PERIOD_BITS) - 1),
            send_size: self.send_size.clamp(MIN_PACKET_SIZE, MAX_PACKET_SIZE),
            recv_period_ms: self.recv_period_ms.clamp(1, (1 << PERIOD_BITS) - 1),
            recv_size: self.recv_size.clamp(MIN_PACKET_SIZE, MAX_PACKET_SIZE),
        }
    }

    pub(crate) fn write_offer(&self, w: &mut BitWriter) {
        w.write_int(self.recv_period_ms, PERIOD_BITS);
        w.write_int(self.recv_size, SIZE_BITS);
    }

    /// Reads a peer's offer: (period, size), clamped to sane values.
    pub(crate) fn read_offer(r: &mut BitReader<'_>) -> Result<(u32, u32)> {
        let period = r.read_int(PERIOD_BITS)?.max(1);
        let size = r.read_int(SIZE_BITS)?.max(MIN_PACKET_SIZE);
        Ok((period, size))
    }

    /// Effective (period, size) for sending, given the peer's offer if known.
    pub(crate) fn effective(&self, peer: Option<(u32, u32)>) -> (u32, u32) {
        match peer {
            Some((p, s)) => (self.send_period_ms.max(p), self.send_size.min(s)),
            None => (self.send_period_ms, self.send_size.min(508)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slower_period_and_smaller_size_win() {
        let client = RateConfig::CLIENT;
        let server = RateConfig::SERVER;
        assert_eq!(client.effective(Some((server.recv_period_ms, server.recv_size))), (32, 508));
        assert_eq!(server.effective(Some((client.recv_period_ms, client.recv_size))), (100, 508));
        let slow = RateConfig { recv_period_ms: 200, recv_size: 200, ..RateConfig::CLIENT };
        assert_eq!(server.effective(Some((slow.recv_period_ms, slow.recv_size))), (200, 200));
        let mut w = BitWriter::new();
        slow.write_offer(&mut w);
        let b = w.into_bytes();
        assert_eq!(RateConfig::read_offer(&mut BitReader::new(&b)).unwrap(), (200, 200));
    }
}
