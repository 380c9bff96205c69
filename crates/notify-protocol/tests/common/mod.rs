//! Deterministic test harness: two sans-IO endpoints, a seeded lossy link each way, and a
//! simulated clock that jumps straight to the next wakeup (a send timer, a link delivery or an
//! endpoint's `poll_timeout`). Every invariant of the notify guarantee is checked as it happens
//! against the harness's ground truth (which data packets the peer really accepted).
#![allow(dead_code)]

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashSet};

use rand_core::{Rng, SeedableRng};
use rand_pcg::Pcg32;
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

/// One direction of a seeded unreliable link.
#[derive(Debug)]
pub struct Link {
    pub params: LinkParams,
    /// When set, the link delivers everything with the base latency (the "loss stops" phase).
    pub lossless: bool,
    /// When set, nothing gets through at all (a silent peer).
    pub cut: bool,
    rng: Pcg32,
    in_burst: bool,
    order: u64,
    queue: BinaryHeap<Reverse<(u64, u64, Vec<u8>)>>,
    pub sent: u64,
    pub lost: u64,
}

impl Link {
    pub fn new(params: LinkParams, seed: u64) -> Self {
        Self {
            params,
            lossless: false,
            cut: false,
            rng: Pcg32::seed_from_u64(seed),
            in_burst: false,
            order: 0,
            queue: BinaryHeap::new(),
            sent: 0,
            lost: 0,
        }
    }

    fn chance(&mut self, p: f64) -> bool {
        p > 0.0 && (f64::from(self.rng.next_u32()) / 4_294_967_296.0) < p
    }

    fn upto(&mut self, max: u64) -> u64 {
        if max == 0 { 0 } else { u64::from(self.rng.next_u32()) % (max + 1) }
    }

    pub fn send(&mut self, now: u64, bytes: &[u8]) {
        self.sent += 1;
        if self.cut {
            self.lost += 1;
            return;
        }
        if self.lossless {
            self.push(now + self.params.latency_ms, bytes);
            return;
        }
        let p = self.params.clone();
        if self.in_burst {
            if self.chance(p.burst_exit) {
                self.in_burst = false;
            }
        } else if self.chance(p.burst_enter) {
            self.in_burst = true;
        }
        let loss = if self.in_burst { p.burst_loss } else { p.loss };
        if self.chance(loss) {
            self.lost += 1;
            return;
        }
        let copies = if self.chance(p.duplicate) { 2 } else { 1 };
        for _ in 0..copies {
            let mut at = now + p.latency_ms + self.upto(p.jitter_ms);
            if self.chance(p.reorder) {
                at += self.upto(p.reorder_extra_ms);
            }
            self.push(at, bytes);
        }
    }

    fn push(&mut self, at: u64, bytes: &[u8]) {
        self.order += 1;
        self.queue.push(Reverse((at, self.order, bytes.to_vec())));
    }

    pub fn next_delivery(&self) -> Option<u64> {
        self.queue.peek().map(|Reverse((at, _, _))| *at)
    }

    pub fn pop_due(&mut self, now: u64) -> Option<Vec<u8>> {
        if self.next_delivery()? <= now { self.queue.pop().map(|Reverse((_, _, b))| b) } else { None }
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
/// 8-bit send delay (`../shared/NETWORK.md`).
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
