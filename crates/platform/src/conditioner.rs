//! A link conditioner: bad networks on demand, reproducibly.
//!
//! It wraps any [`Transport`] and applies, to every datagram sent through it,
//! an MTU check, loss (uniform or bursty Gilbert–Elliott), duplication,
//! latency with jitter, and extra delay for reordering. Everything random
//! comes from one seeded PCG stream, and time comes only from the `now`
//! arguments, so the same seed and the same calls give the same output
//! byte for byte; a failing test replays from its seed.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io;

use bytes::Bytes;
use rand_core::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

use crate::address::NetAddress;
use crate::time::Millis;
use crate::transport::{Datagram, Transport};

/// How datagrams are lost.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LossModel {
    /// Nothing is lost.
    None,
    /// Each datagram is lost independently with this probability.
    Uniform(f64),
    /// Bursty loss: a two-state (good/bad) Markov chain stepped once per datagram.
    GilbertElliott(GilbertElliott),
}

/// The Gilbert–Elliott two-state loss model. The chain is in the good or
/// bad state; each datagram is lost with that state's loss probability, then
/// the state may change. The mean time spent in the bad state is
/// `1 / p_bad_to_good` datagrams.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GilbertElliott {
    pub p_good_to_bad: f64,
    pub p_bad_to_good: f64,
    pub loss_in_good: f64,
    pub loss_in_bad: f64,
}

impl GilbertElliott {
    /// The classic Gilbert model: no loss in the good state, all datagrams lost
    /// in the bad one, chosen so the long-run loss rate is `loss_rate` and
    /// losses come in bursts of `mean_burst` datagrams on average.
    pub fn from_rate_and_burst(loss_rate: f64, mean_burst: f64) -> Self {
        let loss_rate = loss_rate.clamp(0.0, 0.999);
        let p_bad_to_good = 1.0 / mean_burst.max(1.0);
        // Stationary share of the bad state: p_gb / (p_gb + p_bg) = loss_rate.
        let p_good_to_bad = loss_rate * p_bad_to_good / (1.0 - loss_rate);
        GilbertElliott { p_good_to_bad, p_bad_to_good, loss_in_good: 0.0, loss_in_bad: 1.0 }
    }

    /// The long-run loss rate this model gives.
    pub fn mean_loss_rate(&self) -> f64 {
        let total = self.p_good_to_bad + self.p_bad_to_good;
        if total <= 0.0 {
            return self.loss_in_good;
        }
        let bad = self.p_good_to_bad / total;
        bad * self.loss_in_bad + (1.0 - bad) * self.loss_in_good
    }
}

/// What the conditioner does to each datagram. Latency is one way: condition
/// both ends of a link to get a round trip of twice the latency.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ConditionerConfig {
    /// Datagrams longer than this are dropped (counted in `dropped_mtu`).
    pub mtu: Option<usize>,
    pub loss: LossModel,
    /// Base one-way delay.
    pub latency_ms: u32,
    /// Each datagram's delay is `latency ± jitter`, uniform (never below zero).
    pub jitter_ms: u32,
    /// Chance that a datagram is sent twice (each copy with its own delay).
    pub duplicate_chance: f64,
    /// Chance that a datagram is held back `reorder_delay_ms` longer, so later ones pass it.
    pub reorder_chance: f64,
    pub reorder_delay_ms: u32,
}

impl Default for ConditionerConfig {
    /// A perfect link: nothing lost, delayed or changed.
    fn default() -> Self {
        ConditionerConfig {
            mtu: None,
            loss: LossModel::None,
            latency_ms: 0,
            jitter_ms: 0,
            duplicate_chance: 0.0,
            reorder_chance: 0.0,
            reorder_delay_ms: 0,
        }
    }
}

impl ConditionerConfig {
    /// The peers' "good" preset: 40 ms, 10 ms jitter, 0.2 % loss.
    pub fn good() -> Self {
        Self::preset(40, 10, 0.002)
    }

    /// The peers' "average" preset: 100 ms, 25 ms jitter, 2 % loss.
    pub fn average() -> Self {
        Self::preset(100, 25, 0.02)
    }

    /// The peers' "poor" preset: 200 ms, 50 ms jitter, 6 % loss.
    pub fn poor() -> Self {
        Self::preset(200, 50, 0.06)
    }

    fn preset(latency_ms: u32, jitter_ms: u32, loss: f64) -> Self {
        ConditionerConfig { latency_ms, jitter_ms, loss: LossModel::Uniform(loss), ..Self::default() }
    }
}

/// What the conditioner did. `sent` counts calls to `send_to`; every sent
/// datagram is either dropped (loss or MTU) or delivered, plus one extra
/// delivery per duplicate once the queue has drained:
/// `sent + duplicated = dropped_loss + dropped_mtu + delivered + queued`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ConditionerStats {
    pub sent: u64,
    pub sent_bytes: u64,
    /// Handed to the inner transport.
    pub delivered: u64,
    pub delivered_bytes: u64,
    pub dropped_loss: u64,
    pub dropped_mtu: u64,
    /// Extra copies made.
    pub duplicated: u64,
    /// Delivered after a datagram sent later than it.
    pub reordered: u64,
    /// Datagrams held in the delay queue (rather than passed straight through).
    pub delayed: u64,
    pub delayed_bytes: u64,
    /// The inner transport refused a delayed datagram when it was released.
    pub inner_errors: u64,
}

#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Held {
    release: Millis,
    /// Send order; breaks ties so equal release times keep send order.
    seq: u64,
    to: NetAddress,
    data: Bytes,
}

/// Wraps a transport and conditions what it sends. Received datagrams pass
/// through untouched: condition both ends for a two-way link.
#[derive(Debug)]
pub struct LinkConditioner<T: Transport> {
    inner: T,
    config: ConditionerConfig,
    rng: Pcg64Mcg,
    ge_bad: bool,
    queue: BinaryHeap<Reverse<Held>>,
    next_seq: u64,
    highest_delivered: Option<u64>,
    stats: ConditionerStats,
}

impl<T: Transport> LinkConditioner<T> {
    /// Condition `inner` as `config` says, with random choices from `seed`.
    pub fn new(inner: T, config: ConditionerConfig, seed: u64) -> Self {
        LinkConditioner {
            inner,
            config,
            rng: Pcg64Mcg::seed_from_u64(seed),
            ge_bad: false,
            queue: BinaryHeap::new(),
            next_seq: 0,
            highest_delivered: None,
            stats: ConditionerStats::default(),
        }
    }

    pub fn config(&self) -> &ConditionerConfig {
        &self.config
    }

    /// Change the conditions from now on (datagrams already held keep their times).
    pub fn set_config(&mut self, config: ConditionerConfig) {
        self.config = config;
    }

    pub fn stats(&self) -> ConditionerStats {
        self.stats
    }

    pub fn inner(&self) -> &T {
        &self.inner
    }

    pub fn inner_mut(&mut self) -> &mut T {
        &mut self.inner
    }

    pub fn into_inner(self) -> T {
        self.inner
    }

    /// Datagrams held for later release.
    pub fn queued(&self) -> usize {
        self.queue.len()
    }

    /// When the next held datagram is due, if any.
    pub fn next_release(&self) -> Option<Millis> {
        self.queue.peek().map(|Reverse(h)| h.release)
    }

    /// A uniform number in [0, 1) with 53 random bits.
    fn unit(&mut self) -> f64 {
        (self.rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    fn chance(&mut self, p: f64) -> bool {
        p > 0.0 && self.unit() < p
    }

    fn lose(&mut self) -> bool {
        match self.config.loss {
            LossModel::None => false,
            LossModel::Uniform(p) => self.chance(p),
            LossModel::GilbertElliott(ge) => {
                let p = if self.ge_bad { ge.loss_in_bad } else { ge.loss_in_good };
                let lost = self.chance(p);
                let flip = if self.ge_bad { ge.p_bad_to_good } else { ge.p_good_to_bad };
                if self.chance(flip) {
                    self.ge_bad = !self.ge_bad;
                }
                lost
            }
        }
    }

    fn delay(&mut self) -> Millis {
        let c = self.config;
        let mut d = i64::from(c.latency_ms);
        if c.jitter_ms > 0 {
            let span = 2 * u64::from(c.jitter_ms) + 1;
            d += (self.rng.next_u64() % span) as i64 - i64::from(c.jitter_ms);
        }
        if self.chance(c.reorder_chance) {
            d += i64::from(c.reorder_delay_ms);
        }
        d.max(0) as Millis
    }

    fn deliver(&mut self, now: Millis, seq: u64, to: NetAddress, data: &[u8]) -> io::Result<()> {
        match self.highest_delivered {
            Some(h) if seq < h => self.stats.reordered += 1,
            _ => self.highest_delivered = Some(seq),
        }
        self.inner.send_to(now, to, data)?;
        self.stats.delivered += 1;
        self.stats.delivered_bytes += data.len() as u64;
        Ok(())
    }

    /// Queue a copy for `release`, or pass it straight on when it is due and
    /// nothing is waiting ahead of it.
    fn schedule(&mut self, now: Millis, to: NetAddress, data: &[u8]) -> io::Result<()> {
        let release = now.saturating_add(self.delay());
        let seq = self.next_seq;
        self.next_seq += 1;
        if release <= now && self.queue.is_empty() {
            return self.deliver(now, seq, to, data);
        }
        self.stats.delayed += 1;
        self.stats.delayed_bytes += data.len() as u64;
        self.queue.push(Reverse(Held { release, seq, to, data: Bytes::copy_from_slice(data) }));
        Ok(())
    }

    /// Hand every held datagram due by `now` to the inner transport, in
    /// release order.
    fn release_due(&mut self, now: Millis) {
        while self.queue.peek().is_some_and(|Reverse(h)| h.release <= now) {
            let Some(Reverse(h)) = self.queue.pop() else { break };
            if let Err(e) = self.deliver(now, h.seq, h.to, &h.data) {
                // The datagram was the conditioner's to deliver; its loss is what
                // an unreliable link does. Count it rather than fail a later call.
                self.stats.inner_errors += 1;
                tracing::debug!(to = %h.to, error = %e, "conditioner: inner send failed");
            }
        }
    }
}

impl<T: Transport> Transport for LinkConditioner<T> {
    fn local_addr(&self) -> NetAddress {
        self.inner.local_addr()
    }

    fn send_to(&mut self, now: Millis, to: NetAddress, data: &[u8]) -> io::Result<()> {
        self.release_due(now);
        self.stats.sent += 1;
        self.stats.sent_bytes += data.len() as u64;
        if self.config.mtu.is_some_and(|mtu| data.len() > mtu) {
            self.stats.dropped_mtu += 1;
            return Ok(());
        }
        if self.lose() {
            self.stats.dropped_loss += 1;
            return Ok(());
        }
        let copies = if self.chance(self.config.duplicate_chance) {
            self.stats.duplicated += 1;
            2
        } else {
            1
        };
        for _ in 0..copies {
            self.schedule(now, to, data)?;
        }
        // A copy with no delay that had to queue behind others goes out now.
        self.release_due(now);
        Ok(())
    }

    fn recv_batch(&mut self, now: Millis, out: &mut Vec<Datagram>) -> io::Result<usize> {
        self.release_due(now);
        self.inner.recv_batch(now, out)
    }

    fn poll(&mut self, now: Millis) -> io::Result<()> {
        self.release_due(now);
        self.inner.poll(now)
    }

    fn next_wakeup(&self) -> Option<Millis> {
        match (self.next_release(), self.inner.next_wakeup()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::LoopbackTransport;

    fn drain(t: &mut LoopbackTransport) -> Vec<Datagram> {
        let mut v = Vec::new();
        t.recv_batch(0, &mut v).unwrap();
        v
    }

    #[test]
    fn default_config_passes_straight_through() {
        let (a, mut b) = LoopbackTransport::pair();
        let to = b.local_addr();
        let mut c = LinkConditioner::new(a, ConditionerConfig::default(), 1);
        for i in 0..100u8 {
            c.send_to(0, to, &[i]).unwrap();
        }
        let got = drain(&mut b);
        assert_eq!(got.iter().map(|d| d.data[0]).collect::<Vec<_>>(), (0..100).collect::<Vec<u8>>());
        assert_eq!(c.stats().delivered, 100);
        assert_eq!(c.stats().delayed, 0);
        assert_eq!(c.next_wakeup(), None);
    }

    #[test]
    fn latency_holds_until_release_time() {
        let (a, mut b) = LoopbackTransport::pair();
        let to = b.local_addr();
        let cfg = ConditionerConfig { latency_ms: 50, ..Default::default() };
        let mut c = LinkConditioner::new(a, cfg, 1);
        c.send_to(1000, to, b"x").unwrap();
        assert_eq!(c.next_release(), Some(1050));
        c.poll(1049).unwrap();
        assert!(drain(&mut b).is_empty());
        c.poll(1050).unwrap();
        assert_eq!(drain(&mut b).len(), 1);
        assert_eq!(c.queued(), 0);
        assert_eq!(c.stats().delayed_bytes, 1);
    }

    #[test]
    fn reorder_delay_lets_later_datagrams_pass() {
        let (a, mut b) = LoopbackTransport::pair();
        let to = b.local_addr();
        let cfg = ConditionerConfig { reorder_chance: 1.0, reorder_delay_ms: 10, ..Default::default() };
        let mut c = LinkConditioner::new(a, cfg, 1);
        c.send_to(0, to, b"first").unwrap();
        c.set_config(ConditionerConfig::default());
        c.send_to(1, to, b"second").unwrap();
        c.poll(20).unwrap();
        let got = drain(&mut b);
        assert_eq!(got[0].data, Bytes::from_static(b"second"));
        assert_eq!(got[1].data, Bytes::from_static(b"first"));
        assert_eq!(c.stats().reordered, 1);
    }

    #[test]
    fn gilbert_elliott_parameters_give_the_asked_rate() {
        let ge = GilbertElliott::from_rate_and_burst(0.05, 4.0);
        assert!((ge.mean_loss_rate() - 0.05).abs() < 1e-12);
        assert!((ge.p_bad_to_good - 0.25).abs() < 1e-12);
    }
}
