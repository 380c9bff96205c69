//! Connection settings; both ends of a connection must agree on the initial sequences and prefix.

/// Settings of one [`crate::ConnectionProtocol`].
#[derive(Clone, Debug, PartialEq)]
pub struct ProtocolConfig {
    /// `window_full()` is true from this many unacknowledged data packets (at most [`crate::WINDOW`]).
    /// The default 30 leaves two packets of slack below the hard limit.
    pub max_in_flight: u32,
    /// Ping when nothing was heard from the peer for this long.
    pub ping_interval_ms: u64,
    /// Ping again this often while the window is full, so a stalled window gets its acks
    /// even when the peer has nothing to send.
    pub stall_ping_ms: u64,
    /// The connection times out when nothing was heard for this long (several pings unanswered).
    pub timeout_ms: u64,
    /// Queue an ack-only packet once this many data packets arrived since this side last sent
    /// anything. A received ping is always answered at once.
    pub ack_after_received: u32,
    /// RTT reported before the first sample.
    pub initial_rtt_ms: f32,
    /// The sequence "before" our first data packet (the first one is this + 1). A handshake may
    /// pick it at random; the peer must use it as its `initial_recv_seq`.
    pub initial_send_seq: u32,
    /// The peer's `initial_send_seq`.
    pub initial_recv_seq: u32,
    /// Bits `(value, count)` written before every header, e.g. a 1-bit "connected packet" mark that
    /// tells the layer above this is not a handshake packet. `handle_packet` checks them.
    pub prefix: (u32, u32),
}

impl Default for ProtocolConfig {
    fn default() -> Self {
        Self {
            max_in_flight: 30,
            ping_interval_ms: 1000,
            stall_ping_ms: 250,
            timeout_ms: 5000,
            ack_after_received: 8,
            initial_rtt_ms: 100.0,
            initial_send_seq: 0,
            initial_recv_seq: 0,
            prefix: (0, 0),
        }
    }
}

impl ProtocolConfig {
    /// The peer's view of this config: initial sequences swapped.
    pub fn mirrored(&self) -> Self {
        Self {
            initial_send_seq: self.initial_recv_seq,
            initial_recv_seq: self.initial_send_seq,
            ..self.clone()
        }
    }
}
