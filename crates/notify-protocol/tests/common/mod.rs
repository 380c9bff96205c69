//! Deterministic test harness: two sans-IO endpoints on the one network emulator's harness
//! (`v12_netsim::Harness`: seeded lossy links, a simulated clock that jumps straight to the
//! next wake-up). Every invariant of the notify guarantee is checked after each step against
//! the ground truth (which data packets the peer really accepted).
#![allow(dead_code)]

use std::collections::{HashSet, VecDeque};

use v12_bitstream::{BitReader, BitWriter};
use v12_netsim::{Harness, LinkConfig};
use v12_notify_protocol::{ConnectionProtocol, Notify, ProtocolConfig, ProtocolError, Received};

/// Conditions of one direction of the link.
#[derive(Clone, Debug, Default)]
pub struct LinkParams {
    pub latency_ms: u64,
    /// Uniform extra delay 0..=jitter_ms (reorders packets closer than the jitter).
    pub jitter_ms: u64,
    /// Loss probability outside a burst.
    pub loss: f64,
    /// Per-packet probability of entering a loss burst (Gilbert–Elliott).
    pub burst_enter: f64,
    /// Per-packet probability of leaving a burst.
    pub burst_exit: f64,
    /// Loss probability inside a burst.
    pub burst_loss: f64,
    /// Probability a packet is sent twice (the copy with its own delay).
    pub duplicate: f64,
    /// Probability a packet is held back by up to `reorder_extra_ms`.
    pub reorder: f64,
    pub reorder_extra_ms: u64,
}

impl LinkParams {
    pub fn clean(latency_ms: u64) -> Self {
        Self { latency_ms, ..Self::default() }
    }

    /// The parameters as netsim's: jitter `0..=j` as `±j/2` around `latency + j/2`, the burst
    /// as the Gilbert–Elliott bad state, reordering as a fixed extra hold.
    fn to_netsim(&self) -> LinkConfig {
        let loss = if self.burst_enter > 0.0 {
            v12_netsim::LossModel::GilbertElliott(v12_netsim::GilbertElliott {
                p_good_to_bad: self.burst_enter,
                p_bad_to_good: self.burst_exit,
                loss_in_good: self.loss,
                loss_in_bad: self.burst_loss,
            })
        } else if self.loss > 0.0 {
            v12_netsim::LossModel::Uniform(self.loss)
        } else {
            v12_netsim::LossModel::None
        };
        LinkConfig {
            loss,
            latency_ms: (self.latency_ms + self.jitter_ms / 2) as u32,
            jitter_ms: (self.jitter_ms / 2) as u32,
            duplicate_chance: self.duplicate,
            reorder_chance: self.reorder,
            reorder_delay_ms: self.reorder_extra_ms as u32,
            ..LinkConfig::default()
        }
    }
}

/// One endpoint (node 0 or 1 of the harness) and the ground truth around it.
#[derive(Debug)]
pub struct Endpoint {
    index: usize,
    pub proto: ConnectionProtocol,
    /// Data sequences in send order.
    pub sent: Vec<u32>,
    pub notified: Vec<Notify>,
    /// Data sequences accepted from the peer, in acceptance order.
    pub accepted: Vec<u32>,
    pub accepted_set: HashSet<u32>,
    pub sending: bool,
    pub send_interval: u64,
    pub next_send: u64,
    pub rejected: Vec<ProtocolError>,
    /// (header bits, TNL-equivalent header bits) per data packet sent.
    pub header_bits: Vec<(u32, u32)>,
    pub timed_out_at: Option<u64>,
    pub window_full_skips: u64,
    outbox: VecDeque<Vec<u8>>,
}

impl Endpoint {
    fn new(index: usize, config: ProtocolConfig, send_interval: u64, now: u64) -> Self {
        Self {
            index,
            proto: ConnectionProtocol::new(config, now),
            sent: Vec::new(),
            notified: Vec::new(),
            accepted: Vec::new(),
            accepted_set: HashSet::new(),
            sending: true,
            send_interval,
            next_send: now,
            rejected: Vec::new(),
            header_bits: Vec::new(),
            timed_out_at: None,
            window_full_skips: 0,
            outbox: VecDeque::new(),
        }
    }

    fn streaming(&self) -> bool {
        self.sending && !self.proto.is_timed_out()
    }

    fn send_data(&mut self, now: u64) {
        let span = self.proto.pending_ack_span();
        let mut w = BitWriter::with_budget_bytes(508);
        let seq = self.proto.begin_data_packet(now, &mut w);
        let header = w.bit_position() as u32;
        w.write_int(seq, 32);
        self.header_bits.push((header, tnl_header_bits(span)));
        self.sent.push(seq);
        self.outbox.push_back(w.into_bytes().to_vec());
    }

    /// Moves notifies out (checking their order) and queues the protocol's control packets.
    fn drain(&mut self, now: u64) {
        while let Some(n) = self.proto.poll_notify() {
            let k = self.notified.len();
            assert!(k < self.sent.len(), "notify {n:?} for a packet never sent");
            assert_eq!(n.seq, self.sent[k], "notify out of send order");
            self.notified.push(n);
        }
        while let Some(bytes) = self.proto.poll_transmit(now) {
            self.outbox.push_back(bytes.to_vec());
        }
    }
}

impl v12_netsim::Endpoint for Endpoint {
    type Addr = usize;

    fn addr(&self) -> usize {
        self.index
    }

    fn handle_datagram(&mut self, now: u64, _from: usize, data: &[u8]) {
        let mut r = BitReader::new(data);
        match self.proto.handle_packet(now, &mut r) {
            Ok(Received::Data { seq }) => {
                let payload = r.read_int(32).expect("payload present");
                assert_eq!(payload, seq, "receiver reconstructed the wrong sequence");
                assert!(self.accepted_set.insert(seq), "data packet {seq} accepted twice");
                if let Some(&last) = self.accepted.last() {
                    assert!(seq.wrapping_sub(last) as i32 > 0, "accepted {seq} after {last}");
                }
                self.accepted.push(seq);
            }
            Ok(Received::Ping | Received::Ack) => {}
            Err(e) => self.rejected.push(e),
        }
        self.drain(now);
    }

    fn poll_transmit(&mut self, _now: u64) -> Option<(usize, Vec<u8>)> {
        self.outbox.pop_front().map(|b| (1 - self.index, b))
    }

    fn poll_timeout(&self) -> Option<u64> {
        let send = self.streaming().then_some(self.next_send);
        match (self.proto.poll_timeout(), send) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn handle_timeout(&mut self, now: u64) {
        if self.proto.poll_timeout().is_some_and(|t| t <= now) {
            self.proto.handle_timeout(now);
            if self.proto.is_timed_out() && self.timed_out_at.is_none() {
                self.timed_out_at = Some(now);
            }
            self.drain(now);
        }
        if self.streaming() && self.next_send <= now {
            self.next_send = now + self.send_interval;
            if self.proto.window_full() {
                self.window_full_skips += 1;
            } else {
                self.send_data(now);
            }
        }
        self.drain(now);
    }
}

/// TNL's header for the same state: 3 bytes, 3 bits of ack-byte count, the ack bytes and an
/// 8-bit send delay (`NetConnection::writePacketHeader` in the Torque Network Library,
/// OpenTNL's `tnl/netConnection.cpp`).
pub fn tnl_header_bits(ack_span: u32) -> u32 {
    24 + 3 + 8 * ack_span.div_ceil(8) + 8
}

/// Two endpoints with a link each way, on the network emulator's harness.
pub struct Sim {
    h: Harness<Endpoint>,
    params: LinkParams,
    /// How many of each endpoint's notifies and acceptances were checked against the peer.
    checked: [(usize, usize); 2],
}

impl Sim {
    pub fn new(config: ProtocolConfig, params: LinkParams, intervals: [u64; 2], seed: u64) -> Self {
        let start = 1_000;
        let peer = config.mirrored();
        let nodes =
            vec![Endpoint::new(0, config, intervals[0], start), Endpoint::new(1, peer, intervals[1], start)];
        let h = Harness::new(nodes, params.to_netsim(), seed).with_start(start);
        Self { h, params, checked: [(0, 0); 2] }
    }

    pub fn now(&self) -> u64 {
        self.h.now()
    }

    pub fn ep(&self, i: usize) -> &Endpoint {
        self.h.node(i)
    }

    pub fn ep_mut(&mut self, i: usize) -> &mut Endpoint {
        self.h.node_mut(i)
    }

    pub fn eps(&self) -> &[Endpoint] {
        self.h.nodes()
    }

    /// Cut (or restore) the link out of endpoint `from`: nothing it sends arrives.
    pub fn cut(&mut self, from: usize, cut: bool) {
        self.h.network_mut().set_cut(from, 1 - from, cut);
    }

    /// The loss stops: both links deliver everything with the base latency.
    pub fn heal(&mut self) {
        self.h.network_mut().set_default(LinkConfig::clean(self.params.latency_ms as u32));
    }

    /// Runs until simulated time `end`, checking every invariant after each step.
    pub fn run_until(&mut self, end: u64) {
        while self.h.step(end) {
            self.check_against_peers();
        }
    }

    /// Every new "delivered" notice names a packet the peer accepted, and every newly accepted
    /// packet was sent by the peer.
    fn check_against_peers(&mut self) {
        for i in 0..2 {
            let (ep, peer) = (self.h.node(i), self.h.node(1 - i));
            let (notified, accepted) = self.checked[i];
            for n in &ep.notified[notified..] {
                assert!(
                    !n.delivered || peer.accepted_set.contains(&n.seq),
                    "packet {} notified delivered but the peer never accepted it (seed {})",
                    n.seq,
                    self.h.network().seed()
                );
            }
            let first = peer.sent.first().copied();
            for &seq in &ep.accepted[accepted..] {
                // Data sequences are consecutive, so "was sent" is a range check.
                let sent = first.is_some_and(|f| (seq.wrapping_sub(f) as usize) < peer.sent.len());
                assert!(sent, "accepted {seq} never sent");
            }
            self.checked[i] = (ep.notified.len(), ep.accepted.len());
        }
    }

    /// Checks that no packet notified dropped was accepted by the peer (unless the sender timed out).
    pub fn check_drops_were_real(&self) {
        for i in 0..2 {
            let (ep, peer) = (self.ep(i), self.ep(1 - i));
            if ep.proto.is_timed_out() {
                continue;
            }
            for n in ep.notified.iter().filter(|n| !n.delivered) {
                assert!(
                    !peer.accepted_set.contains(&n.seq),
                    "packet {} notified dropped but the peer accepted it",
                    n.seq
                );
            }
        }
    }

    /// Stops both data streams, heals the link and lets pings/acks settle every packet.
    pub fn quiesce(&mut self, settle_ms: u64) {
        self.heal();
        for i in 0..2 {
            self.ep_mut(i).sending = false;
        }
        self.run_until(self.now() + settle_ms);
    }

    pub fn assert_all_notified(&self) {
        for (i, ep) in self.eps().iter().enumerate() {
            assert_eq!(ep.notified.len(), ep.sent.len(), "endpoint {i}: notifies missing");
            assert_eq!(ep.proto.in_flight(), 0, "endpoint {i}: still in flight");
        }
    }
}
