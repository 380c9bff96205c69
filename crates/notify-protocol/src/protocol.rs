//! The ConnectionProtocol state machine: sequences, acks, notifies, keep-alive, RTT.
//!
//! Two rules make the notify guarantee exact without loss timers:
//! - a data packet is accepted only if its sequence is newer than every packet accepted
//!   before, so once a sequence is behind the receiver's newest it can never be accepted;
//! - when the peer's highest-ack moves forward, every sequence up to it is decided by the
//!   ack mask, walked in order: bit set → delivered, clear → dropped.

use std::collections::VecDeque;

use bytes::Bytes;
use tracing::{debug, trace};
use v12_bitstream::{BitReader, BitWriter};

use crate::config::ProtocolConfig;
use crate::error::ProtocolError;
use crate::header::{AckMask, DELAY_MAX_UNITS, DELAY_STEP_MS, PacketKind, SEQ_MASK, WINDOW, WireHeader};
use crate::header::{SEQ_BITS, delay_units};

/// Distances at or beyond half the wire space read as "behind", below it as "ahead".
const HALF: u32 = 1 << (SEQ_BITS - 1);

/// The fate of one data packet, reported exactly once and in send order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Notify {
    /// The packet's sequence number (as returned by `begin_data_packet`).
    pub seq: u32,
    /// True: the peer accepted it. False: the peer never will (or the connection timed out).
    pub delivered: bool,
}

/// What `handle_packet` found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Received {
    /// A new data packet; the reader is left at its payload.
    Data { seq: u32 },
    /// A keep-alive; an ack-only answer is queued for `poll_transmit`.
    Ping,
    /// An ack-only packet.
    Ack,
}

/// Counters for diagnostics and the overhead figures.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    pub data_sent: u64,
    pub data_received: u64,
    pub delivered: u64,
    pub dropped: u64,
    pub pings_sent: u64,
    pub acks_sent: u64,
    /// Packets refused by `handle_packet`.
    pub rejected: u64,
    /// Header bits of data packets, prefix included.
    pub header_bits_sent: u64,
    /// Whole ping and ack-only datagrams, in bytes.
    pub control_bytes_sent: u64,
}

/// What we remember about one data packet until it is notified.
#[derive(Clone, Copy, Debug, Default)]
struct SentRecord {
    sent_at: u64,
    /// Our highest received sequence written into that packet: once the peer has it,
    /// the peer knows our acks up to here and we may stop repeating them.
    ack_at_send: u32,
}

/// A sans-IO notify protocol endpoint (one side of one connection).
#[derive(Debug)]
pub struct ConnectionProtocol {
    config: ProtocolConfig,
    // Send side.
    last_send_seq: u32,
    highest_acked: u32,
    sent: [SentRecord; WINDOW as usize],
    // Receive side.
    last_recv_seq: u32,
    /// Bit i: data packet `last_recv_seq - i` was accepted.
    recv_mask: u32,
    last_recv_seq_at: u64,
    /// The peer surely knows our acks up to here: the ack mask need not go further back.
    ack_ack: u32,
    unacked_received: u32,
    // Keep-alive.
    last_heard: u64,
    next_ping_at: u64,
    last_ping_at: Option<u64>,
    ack_pending: bool,
    ping_pending: bool,
    timed_out: bool,
    rtt: f32,
    has_rtt: bool,
    notifies: VecDeque<Notify>,
    stats: Stats,
}

/// `a` is at or after `b` in a window that may wrap u32.
fn seq_ge(a: u32, b: u32) -> bool {
    a.wrapping_sub(b) < 1 << 31
}

impl ConnectionProtocol {
    /// A fresh endpoint; `now` starts the keep-alive and timeout clocks.
    pub fn new(mut config: ProtocolConfig, now: u64) -> Self {
        config.max_in_flight = config.max_in_flight.clamp(1, WINDOW);
        let next_ping_at = now.saturating_add(config.ping_interval_ms);
        Self {
            last_send_seq: config.initial_send_seq,
            highest_acked: config.initial_send_seq,
            sent: [SentRecord::default(); WINDOW as usize],
            last_recv_seq: config.initial_recv_seq,
            recv_mask: 0,
            last_recv_seq_at: now,
            ack_ack: config.initial_recv_seq,
            unacked_received: 0,
            last_heard: now,
            next_ping_at,
            last_ping_at: None,
            ack_pending: false,
            ping_pending: false,
            timed_out: false,
            rtt: config.initial_rtt_ms,
            has_rtt: false,
            notifies: VecDeque::new(),
            stats: Stats::default(),
            config,
        }
    }

    /// The settings in use.
    pub fn config(&self) -> &ProtocolConfig {
        &self.config
    }

    /// Data packets sent and not yet notified.
    pub fn in_flight(&self) -> u32 {
        self.last_send_seq.wrapping_sub(self.highest_acked)
    }

    /// True when `max_in_flight` data packets are unacknowledged: the layer above holds data back.
    pub fn window_full(&self) -> bool {
        self.in_flight() >= self.config.max_in_flight
    }

    /// Sequence of the last data packet sent.
    pub fn last_send_seq(&self) -> u32 {
        self.last_send_seq
    }

    /// Newest sequence seen from the peer.
    pub fn last_received_seq(&self) -> u32 {
        self.last_recv_seq
    }

    /// How many received sequences the next header's acks must cover (at most [`WINDOW`]).
    pub fn pending_ack_span(&self) -> u32 {
        self.last_recv_seq.wrapping_sub(self.ack_ack)
    }

    /// Counters since creation.
    pub fn stats(&self) -> Stats {
        self.stats
    }

    /// Smoothed round-trip time in milliseconds, corrected by the peer's send delay.
    pub fn rtt_ms(&self) -> f32 {
        self.rtt
    }

    /// True once the peer was silent for `timeout_ms`; the connection should be dropped.
    pub fn is_timed_out(&self) -> bool {
        self.timed_out
    }

    /// Starts a data packet: writes the prefix and header into `w` and returns its sequence.
    /// The payload follows in the same writer.
    ///
    /// After a timeout the packet is still written but notified as dropped at once.
    ///
    /// # Panics
    /// If [`WINDOW`] packets are already in flight: the caller ignored [`Self::window_full`]
    /// by more than the slack. [`Self::try_begin_data_packet`] returns an error instead.
    pub fn begin_data_packet(&mut self, now: u64, w: &mut BitWriter) -> u32 {
        match self.try_begin_data_packet(now, w) {
            Ok(seq) => seq,
            Err(e) => panic!("begin_data_packet: {e} (check window_full before sending)"),
        }
    }

    /// As [`Self::begin_data_packet`], but refuses with [`ProtocolError::WindowFull`] when
    /// [`WINDOW`] packets are in flight (the ack mask could not cover another one).
    pub fn try_begin_data_packet(&mut self, now: u64, w: &mut BitWriter) -> Result<u32, ProtocolError> {
        if self.in_flight() >= WINDOW {
            return Err(ProtocolError::WindowFull);
        }
        self.last_send_seq = self.last_send_seq.wrapping_add(1);
        let seq = self.last_send_seq;
        self.sent[(seq % WINDOW) as usize] = SentRecord { sent_at: now, ack_at_send: self.last_recv_seq };
        let start = w.bit_position();
        self.write_header(now, PacketKind::Data, w);
        self.stats.data_sent += 1;
        self.stats.header_bits_sent += (w.bit_position() - start) as u64;
        if self.timed_out {
            self.notify(seq, false);
            self.highest_acked = seq;
        }
        trace!(seq, "data packet");
        Ok(seq)
    }

    /// Writes the prefix and a header for the current state; any packet carries our acks.
    fn write_header(&mut self, now: u64, kind: PacketKind, w: &mut BitWriter) {
        let (prefix, prefix_bits) = self.config.prefix;
        w.write_int(prefix, prefix_bits);
        let span = self.pending_ack_span().min(WINDOW);
        let covered = if span >= 32 { u32::MAX } else { (1u32 << span) - 1 };
        let missing = !self.recv_mask & covered;
        let acks = if missing == 0 {
            AckMask::AllReceived
        } else {
            // Cover back to the oldest missing sequence; older ones were all received.
            let oldest = 31 - missing.leading_zeros();
            let bytes = (oldest / 8 + 1) as u8;
            let keep = if bytes == 4 { u32::MAX } else { (1u32 << (u32::from(bytes) * 8)) - 1 };
            AckMask::Explicit { bytes, mask: self.recv_mask & keep }
        };
        let header = WireHeader {
            kind,
            seq: self.last_send_seq,
            ack: self.last_recv_seq,
            acks,
            delay: delay_units(now.saturating_sub(self.last_recv_seq_at)),
        };
        header.write(w);
        self.unacked_received = 0;
        self.ack_pending = false;
    }

    /// Reads a packet's prefix and header, processes its acks (drain [`Self::poll_notify`]
    /// next) and, for [`Received::Data`], leaves the reader at the payload.
    ///
    /// An error means the packet is to be ignored (the state did not change), except
    /// [`ProtocolError::TimedOut`], which means the connection is dead.
    pub fn handle_packet(&mut self, now: u64, r: &mut BitReader<'_>) -> Result<Received, ProtocolError> {
        let result = self.read_packet(now, r);
        if let Err(e) = &result {
            self.stats.rejected += 1;
            debug!(error = %e, "packet rejected");
        }
        result
    }

    fn read_packet(&mut self, now: u64, r: &mut BitReader<'_>) -> Result<Received, ProtocolError> {
        if self.timed_out {
            return Err(ProtocolError::TimedOut);
        }
        let (prefix, prefix_bits) = self.config.prefix;
        let found = r.read_int(prefix_bits)?;
        let want = if prefix_bits >= 32 { prefix } else { prefix & ((1u32 << prefix_bits) - 1) };
        if found != want {
            return Err(ProtocolError::WrongPrefix { found });
        }
        let h = WireHeader::read(r)?;

        // Validate everything before changing any state.
        let ahead = h.seq.wrapping_sub(self.last_recv_seq) & SEQ_MASK;
        let seq = self.last_recv_seq.wrapping_add(ahead);
        if ahead == 0 {
            if h.kind == PacketKind::Data {
                return Err(if self.recv_mask & 1 == 1 {
                    ProtocolError::Duplicate { seq }
                } else {
                    // A ping with this sequence arrived first: the data packet counts as lost.
                    ProtocolError::Stale { seq }
                });
            }
        } else if ahead >= HALF {
            return Err(ProtocolError::Stale { seq: self.last_recv_seq.wrapping_sub(SEQ_MASK + 1 - ahead) });
        } else if ahead > WINDOW {
            return Err(ProtocolError::TooFarAhead { delta: ahead });
        }
        let advance = h.ack.wrapping_sub(self.highest_acked) & SEQ_MASK;
        let advance = if advance <= self.in_flight() {
            advance
        } else if advance >= HALF {
            // Older ack info than we hold. A packet newer than all before it cannot carry that.
            if ahead > 0 {
                return Err(ProtocolError::Stale { seq });
            }
            0
        } else {
            return Err(ProtocolError::BadAck);
        };

        // Accepted.
        self.last_heard = now;
        self.next_ping_at = now.saturating_add(self.config.ping_interval_ms);
        if ahead > 0 {
            self.recv_mask = self.recv_mask.checked_shl(ahead).unwrap_or(0);
            self.last_recv_seq = seq;
            self.last_recv_seq_at = now;
        }
        if h.kind == PacketKind::Data {
            self.recv_mask |= 1;
            self.unacked_received += 1;
            self.stats.data_received += 1;
        }
        self.process_acks(now, advance, h.acks, h.delay);
        // The peer cannot have sent past our window, so older sequences are settled for it.
        if self.pending_ack_span() > WINDOW {
            self.ack_ack = self.last_recv_seq.wrapping_sub(WINDOW);
        }
        match h.kind {
            PacketKind::Ping => self.ack_pending = true,
            _ if self.unacked_received >= self.config.ack_after_received => self.ack_pending = true,
            _ => {}
        }
        Ok(match h.kind {
            PacketKind::Data => Received::Data { seq },
            PacketKind::Ping => Received::Ping,
            PacketKind::Ack => Received::Ack,
        })
    }

    /// Walks every sequence up to the new highest-ack in order and notifies it.
    fn process_acks(&mut self, now: u64, advance: u32, acks: AckMask, delay: u8) {
        let new_ack = self.highest_acked.wrapping_add(advance);
        for back in (0..advance).rev() {
            let seq = new_ack.wrapping_sub(back);
            let delivered = acks.received(back);
            let record = self.sent[(seq % WINDOW) as usize];
            if delivered {
                // The peer read that packet, so it knows our acks up to what it carried.
                if seq_ge(record.ack_at_send, self.ack_ack) {
                    self.ack_ack = record.ack_at_send;
                }
                if back == 0 && delay < DELAY_MAX_UNITS {
                    let held = u64::from(delay) * DELAY_STEP_MS;
                    let sample = now.saturating_sub(record.sent_at).saturating_sub(held) as f32;
                    self.rtt = if self.has_rtt { self.rtt * 0.9 + sample * 0.1 } else { sample };
                    self.has_rtt = true;
                }
            }
            self.notify(seq, delivered);
        }
        self.highest_acked = new_ack;
    }

    fn notify(&mut self, seq: u32, delivered: bool) {
        if delivered {
            self.stats.delivered += 1;
        } else {
            self.stats.dropped += 1;
        }
        self.notifies.push_back(Notify { seq, delivered });
    }

    /// The next delivered/dropped notice: exactly one per data packet, in send order.
    pub fn poll_notify(&mut self) -> Option<Notify> {
        self.notifies.pop_front()
    }

    /// A ping or ack-only datagram the protocol wants sent now (prefix included).
    pub fn poll_transmit(&mut self, now: u64) -> Option<Bytes> {
        if self.timed_out {
            return None;
        }
        let kind = if self.ping_pending {
            PacketKind::Ping
        } else if self.ack_pending {
            PacketKind::Ack
        } else {
            return None;
        };
        let mut w = BitWriter::new();
        self.write_header(now, kind, &mut w);
        if kind == PacketKind::Ping {
            self.ping_pending = false;
            self.last_ping_at = Some(now);
            self.stats.pings_sent += 1;
        } else {
            self.stats.acks_sent += 1;
        }
        let bytes = w.into_bytes();
        self.stats.control_bytes_sent += bytes.len() as u64;
        Some(bytes)
    }

    /// The peer showed it is alive outside this protocol (it retried its connect request
    /// because our accept was lost): its silence clock restarts. Does nothing once timed out.
    pub fn peer_heard(&mut self, now: u64) {
        if !self.timed_out {
            self.last_heard = self.last_heard.max(now);
        }
    }

    /// A ping for a peer this endpoint cannot serve for a while (its host is stopped in the
    /// script debugger): it tells the peer we are alive, so the peer does not time us out.
    /// No timer runs meanwhile, and our own silence clock restarts, so the pause times
    /// nothing out on either side. `None` once timed out.
    pub fn keepalive_ping(&mut self, now: u64) -> Option<Bytes> {
        if self.timed_out {
            return None;
        }
        self.last_heard = self.last_heard.max(now);
        let mut w = BitWriter::new();
        self.write_header(now, PacketKind::Ping, &mut w);
        self.last_ping_at = Some(now);
        self.stats.pings_sent += 1;
        let bytes = w.into_bytes();
        self.stats.control_bytes_sent += bytes.len() as u64;
        Some(bytes)
    }

    /// When [`Self::handle_timeout`] should next be called; `None` once timed out.
    pub fn poll_timeout(&self) -> Option<u64> {
        if self.timed_out {
            return None;
        }
        let mut at = self.next_ping_at.min(self.last_heard.saturating_add(self.config.timeout_ms));
        if self.window_full() {
            at = at.min(self.stall_ping_at());
        }
        Some(at)
    }

    fn stall_ping_at(&self) -> u64 {
        self.last_ping_at.map_or(0, |t| t.saturating_add(self.config.stall_ping_ms))
    }

    /// Advances the timers: queues pings and ends a silent connection.
    pub fn handle_timeout(&mut self, now: u64) {
        if self.timed_out {
            return;
        }
        if now >= self.last_heard.saturating_add(self.config.timeout_ms) {
            debug!(silent_ms = now - self.last_heard, "connection timed out");
            self.timed_out = true;
            self.ack_pending = false;
            self.ping_pending = false;
            // Keep the one-notify-per-packet promise for what is still in flight.
            let outstanding = self.in_flight();
            for _ in 0..outstanding {
                let seq = self.highest_acked.wrapping_add(1);
                self.highest_acked = seq;
                self.notify(seq, false);
            }
            return;
        }
        if now >= self.next_ping_at {
            self.ping_pending = true;
            self.next_ping_at = now.saturating_add(self.config.ping_interval_ms);
        } else if self.window_full() && now >= self.stall_ping_at() {
            self.ping_pending = true;
            self.last_ping_at = Some(now);
        }
    }
}
