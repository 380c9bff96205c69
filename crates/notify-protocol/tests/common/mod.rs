//! Deterministic test harness: two sans-IO endpoints, a seeded lossy link each way (the one
//! network emulator, `v12-netsim`), and a
//! simulated clock that jumps straight to the next wakeup (a send timer, a link delivery or an
//! endpoint's `poll_timeout`). Every invariant of the notify guarantee is checked as it happens
//! against the harness's ground truth (which data packets the peer really accepted).
#![allow(dead_code)]

use std::collections::HashSet;

use v12_bitstream::{BitReader, BitWriter};
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
}

/// One direction of a seeded unreliable link: `v12-netsim`'s link (the one network
/// emulator) with the test's parameters.
#[derive(Debug)]
pub struct Link {
    pub params: LinkParams,
    /// When set, the link delivers everything with the base latency (the "loss stops" phase).
    pub lossless: bool,
    /// When set, nothing gets through at all (a silent peer).
    pub cut: bool,
    link: v12_netsim::Link<()>,
    applied: Option<(bool, bool)>,
    pub sent: u64,
    pub lost: u64,
}

impl Link {
    pub fn new(params: LinkParams, seed: u64) -> Self {
        let link = v12_netsim::Link::new(v12_netsim::LinkConfig::default(), seed);
        Self { params, lossless: false, cut: false, link, applied: None, sent: 0, lost: 0 }
    }

    /// The parameters as netsim's: jitter `0..=j` as `±j/2` around `latency + j/2`, the burst
    /// as the Gilbert–Elliott bad state, reordering as a fixed extra hold.
    fn config(&self) -> v12_netsim::LinkConfig {
        let p = &self.params;
        if self.lossless {
            return v12_netsim::LinkConfig::clean(p.latency_ms as u32);
        }
        let loss = if p.burst_enter > 0.0 {
            v12_netsim::LossModel::GilbertElliott(v12_netsim::GilbertElliott {
                p_good_to_bad: p.burst_enter,
                p_bad_to_good: p.burst_exit,
                loss_in_good: p.loss,
                loss_in_bad: p.burst_loss,
            })
        } else if p.loss > 0.0 {
            v12_netsim::LossModel::Uniform(p.loss)
        } else {
            v12_netsim::LossModel::None
        };
        v12_netsim::LinkConfig {
            loss,
            latency_ms: (p.latency_ms + p.jitter_ms / 2) as u32,
            jitter_ms: (p.jitter_ms / 2) as u32,
            duplicate_chance: p.duplicate,
            reorder_chance: p.reorder,
            reorder_delay_ms: p.reorder_extra_ms as u32,
            ..v12_netsim::LinkConfig::default()
        }
    }

    pub fn send(&mut self, now: u64, bytes: &[u8]) {
        if self.applied != Some((self.lossless, self.cut)) {
            let config = self.config();
            self.link.set_config(config);
            self.link.set_cut(self.cut);
            self.applied = Some((self.lossless, self.cut));
        }
        self.link.send(now, (), bytes);
        let st = self.link.stats();
        self.sent = st.sent;
        self.lost = st.dropped();
    }

    pub fn next_delivery(&self) -> Option<u64> {
        self.link.next_release()
    }

    pub fn pop_due(&mut self, now: u64) -> Option<Vec<u8>> {
        self.link.pop_due(now).map(|((), b)| b)
    }
}

/// One endpoint and the ground truth around it.
#[derive(Debug)]
pub struct Endpoint {
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
}

impl Endpoint {
    fn new(config: ProtocolConfig, send_interval: u64, now: u64) -> Self {
        Self {
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
        }
    }
}

/// TNL's header for the same state: 3 bytes, 3 bits of ack-byte count, the ack bytes and an
/// 8-bit send delay (`NetConnection::writePacketHeader` in the Torque Network Library,
/// OpenTNL's `tnl/netConnection.cpp`).
pub fn tnl_header_bits(ack_span: u32) -> u32 {
    24 + 3 + 8 * ack_span.div_ceil(8) + 8
}

/// Two endpoints and a link each way.
#[derive(Debug)]
pub struct Sim {
    pub now: u64,
    pub ep: [Endpoint; 2],
    /// `links[i]` carries packets from `ep[i]` to the other endpoint.
    pub links: [Link; 2],
    pub steps: u64,
}

impl Sim {
    pub fn new(config: ProtocolConfig, params: LinkParams, intervals: [u64; 2], seed: u64) -> Self {
        let start = 1_000;
        let peer = config.mirrored();
        Self {
            now: start,
            ep: [Endpoint::new(config, intervals[0], start), Endpoint::new(peer, intervals[1], start)],
            links: [Link::new(params.clone(), seed), Link::new(params, seed ^ 0x9E37_79B9_7F4A_7C15)],
            steps: 0,
        }
    }

    /// Runs until simulated time `end`, checking every invariant as it goes.
    pub fn run_until(&mut self, end: u64) {
        loop {
            let next = self.next_wakeup();
            if next > end {
                self.now = end;
                return;
            }
            self.now = self.now.max(next);
            self.step();
        }
    }

    fn next_wakeup(&self) -> u64 {
        let mut next = u64::MAX;
        for i in 0..2 {
            if let Some(t) = self.links[i].next_delivery() {
                next = next.min(t);
            }
            if let Some(t) = self.ep[i].proto.poll_timeout() {
                next = next.min(t);
            }
            if self.ep[i].sending && !self.ep[i].proto.is_timed_out() {
                next = next.min(self.ep[i].next_send);
            }
        }
        next
    }

    fn step(&mut self) {
        self.steps += 1;
        let now = self.now;
        for from in 0..2 {
            while let Some(bytes) = self.links[from].pop_due(now) {
                self.deliver(1 - from, &bytes);
            }
        }
        for i in 0..2 {
            if self.ep[i].proto.poll_timeout().is_some_and(|t| t <= now) {
                self.ep[i].proto.handle_timeout(now);
                if self.ep[i].proto.is_timed_out() && self.ep[i].timed_out_at.is_none() {
                    self.ep[i].timed_out_at = Some(now);
                }
                self.drain(i);
            }
            if self.ep[i].sending && !self.ep[i].proto.is_timed_out() && self.ep[i].next_send <= now {
                self.ep[i].next_send = now + self.ep[i].send_interval;
                if self.ep[i].proto.window_full() {
                    self.ep[i].window_full_skips += 1;
                } else {
                    self.send_data(i);
                }
            }
            self.drain(i);
        }
    }

    fn send_data(&mut self, i: usize) {
        let ep = &mut self.ep[i];
        let span = ep.proto.pending_ack_span();
        let mut w = BitWriter::with_budget_bytes(508);
        let seq = ep.proto.begin_data_packet(self.now, &mut w);
        let header = w.bit_position() as u32;
        w.write_int(seq, 32);
        ep.header_bits.push((header, tnl_header_bits(span)));
        ep.sent.push(seq);
        let bytes = w.into_bytes();
        self.links[i].send(self.now, &bytes);
    }

    fn deliver(&mut self, to: usize, bytes: &[u8]) {
        let now = self.now;
        let mut r = BitReader::new(bytes);
        match self.ep[to].proto.handle_packet(now, &mut r) {
            Ok(Received::Data { seq }) => {
                let payload = r.read_int(32).expect("payload present");
                assert_eq!(payload, seq, "receiver reconstructed the wrong sequence");
                let ep = &mut self.ep[to];
                assert!(ep.accepted_set.insert(seq), "data packet {seq} accepted twice");
                if let Some(&last) = ep.accepted.last() {
                    assert!(seq.wrapping_sub(last) as i32 > 0, "accepted {seq} after {last}");
                }
                ep.accepted.push(seq);
                let peer = &self.ep[1 - to].sent;
                let first = peer.first().copied().unwrap_or(seq.wrapping_add(1));
                // Data sequences are consecutive, so "was sent" is a range check.
                assert!((seq.wrapping_sub(first) as usize) < peer.len(), "accepted {seq} never sent");
            }
            Ok(Received::Ping | Received::Ack) => {}
            Err(e) => self.ep[to].rejected.push(e),
        }
        self.drain(to);
    }

    /// Moves notifies out (checking order and truth) and transmits queued control packets.
    fn drain(&mut self, i: usize) {
        while let Some(n) = self.ep[i].proto.poll_notify() {
            let ep = &self.ep[i];
            let k = ep.notified.len();
            assert!(k < ep.sent.len(), "notify {n:?} for a packet never sent");
            assert_eq!(n.seq, ep.sent[k], "notify out of send order");
            if n.delivered {
                assert!(
                    self.ep[1 - i].accepted_set.contains(&n.seq),
                    "packet {} notified delivered but the peer never accepted it",
                    n.seq
                );
            }
            self.ep[i].notified.push(n);
        }
        while let Some(bytes) = self.ep[i].proto.poll_transmit(self.now) {
            self.links[i].send(self.now, &bytes);
        }
    }

    /// Checks that no packet notified dropped was accepted by the peer (unless the sender timed out).
    pub fn check_drops_were_real(&self) {
        for i in 0..2 {
            if self.ep[i].proto.is_timed_out() {
                continue;
            }
            for n in &self.ep[i].notified {
                if !n.delivered {
                    assert!(
                        !self.ep[1 - i].accepted_set.contains(&n.seq),
                        "packet {} notified dropped but the peer accepted it",
                        n.seq
                    );
                }
            }
        }
    }

    /// Stops both data streams, heals the link and lets pings/acks settle every packet.
    pub fn quiesce(&mut self, settle_ms: u64) {
        for i in 0..2 {
            self.links[i].lossless = true;
            self.ep[i].sending = false;
        }
        self.run_until(self.now + settle_ms);
    }

    pub fn assert_all_notified(&self) {
        for i in 0..2 {
            let ep = &self.ep[i];
            assert_eq!(ep.notified.len(), ep.sent.len(), "endpoint {i}: notifies missing");
            assert_eq!(ep.proto.in_flight(), 0, "endpoint {i}: still in flight");
        }
    }
}
