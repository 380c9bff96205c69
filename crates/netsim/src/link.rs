//! One direction of an emulated link: what happens to each datagram sent through it.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rand_core::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

use crate::Millis;

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

/// The Gilbert–Elliott two-state loss model. The chain is in the good or bad state; each
/// datagram is lost with that state's loss probability, then the state may change. The mean
/// time spent in the bad state is `1 / p_bad_to_good` datagrams.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GilbertElliott {
    pub p_good_to_bad: f64,
    pub p_bad_to_good: f64,
    pub loss_in_good: f64,
    pub loss_in_bad: f64,
}

impl GilbertElliott {
    /// The classic Gilbert model: no loss in the good state, all datagrams lost in the bad one,
    /// chosen so the long-run loss rate is `loss_rate` and losses come in bursts of `mean_burst`
    /// datagrams on average.
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

/// What a link does to each datagram. Latency is one way: a round trip over two links with the
/// same config takes twice the latency.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkConfig {
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
    /// A reliable ordered channel instead of datagrams (what guaranteed-ordered events over a
    /// lossy link give): a datagram the loss model drops is sent again this many ms later (up
    /// to 64 sends, each counted in `resent`), nothing is duplicated or reordered, and the
    /// link delivers in send order, so a loss shows as a late arrival, never as a gap.
    /// `None`: a datagram link.
    pub retransmit_ms: Option<u32>,
}

impl Default for LinkConfig {
    /// A perfect link: nothing lost, delayed or changed.
    fn default() -> Self {
        LinkConfig {
            mtu: None,
            loss: LossModel::None,
            latency_ms: 0,
            jitter_ms: 0,
            duplicate_chance: 0.0,
            reorder_chance: 0.0,
            reorder_delay_ms: 0,
            retransmit_ms: None,
        }
    }
}

impl LinkConfig {
    /// No loss, a fixed one-way latency.
    pub fn clean(latency_ms: u32) -> Self {
        LinkConfig { latency_ms, ..Self::default() }
    }

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

    /// A preset by name (`clean`, `good`, `average`, `poor`), for command lines.
    pub fn named(name: &str) -> Option<Self> {
        match name {
            "clean" | "lan" => Some(Self::default()),
            "good" => Some(Self::good()),
            "average" => Some(Self::average()),
            "poor" => Some(Self::poor()),
            _ => None,
        }
    }

    /// This config with uniform loss `p` instead of its own loss model.
    pub fn with_loss(self, p: f64) -> Self {
        LinkConfig { loss: if p > 0.0 { LossModel::Uniform(p) } else { LossModel::None }, ..self }
    }

    fn preset(latency_ms: u32, jitter_ms: u32, loss: f64) -> Self {
        LinkConfig { latency_ms, jitter_ms, loss: LossModel::Uniform(loss), ..Self::default() }
    }
}

/// What a link did. `sent` counts datagrams offered; every one is either dropped (loss, MTU or
/// cut) or delivered, plus one extra delivery per duplicate once the queue has drained:
/// `sent + duplicated = dropped_loss + dropped_mtu + dropped_cut + delivered + queued`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkStats {
    pub sent: u64,
    pub sent_bytes: u64,
    /// Released to the receiver.
    pub delivered: u64,
    pub delivered_bytes: u64,
    pub dropped_loss: u64,
    pub dropped_mtu: u64,
    /// Dropped because the link was cut.
    pub dropped_cut: u64,
    /// Extra copies made.
    pub duplicated: u64,
    /// Delivered after a datagram sent later than it.
    pub reordered: u64,
    /// Datagrams held for a later time (rather than due at once).
    pub delayed: u64,
    pub delayed_bytes: u64,
    /// Reliable links: sends again after a loss (and their bytes).
    pub resent: u64,
    pub resent_bytes: u64,
}

impl LinkStats {
    /// Datagrams lost for any reason.
    pub fn dropped(&self) -> u64 {
        self.dropped_loss + self.dropped_mtu + self.dropped_cut
    }

    /// Bytes put on the wire: first sends and resends.
    pub fn wire_bytes(&self) -> u64 {
        self.sent_bytes + self.resent_bytes
    }

    /// These counts and `other`'s together.
    pub fn add(&mut self, other: &LinkStats) {
        self.sent += other.sent;
        self.sent_bytes += other.sent_bytes;
        self.delivered += other.delivered;
        self.delivered_bytes += other.delivered_bytes;
        self.dropped_loss += other.dropped_loss;
        self.dropped_mtu += other.dropped_mtu;
        self.dropped_cut += other.dropped_cut;
        self.duplicated += other.duplicated;
        self.reordered += other.reordered;
        self.delayed += other.delayed;
        self.delayed_bytes += other.delayed_bytes;
        self.resent += other.resent;
        self.resent_bytes += other.resent_bytes;
    }
}

/// Most sends of one datagram on a reliable link: a link losing 90 % still delivers, late.
const MAX_RELIABLE_SENDS: u32 = 64;

#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Held<A> {
    release: Millis,
    /// Send order; breaks ties so equal release times keep send order.
    seq: u64,
    to: A,
    data: Vec<u8>,
}

/// One direction of a link: decides each datagram's fate from one seeded PCG stream and holds
/// it until its release time. `A` is whatever the caller addresses datagrams to; the link only
/// carries it.
#[derive(Debug)]
pub struct Link<A> {
    config: LinkConfig,
    rng: Pcg64Mcg,
    ge_bad: bool,
    cut: bool,
    queue: BinaryHeap<Reverse<Held<A>>>,
    next_seq: u64,
    /// Reliable links: the release time of the last datagram sent (later ones wait for it).
    last_release: Millis,
    highest_delivered: Option<u64>,
    stats: LinkStats,
}

impl<A: Ord> Link<A> {
    /// A link that behaves as `config` says, with random choices from `seed`.
    pub fn new(config: LinkConfig, seed: u64) -> Self {
        Link {
            config,
            rng: Pcg64Mcg::seed_from_u64(seed),
            ge_bad: false,
            cut: false,
            queue: BinaryHeap::new(),
            next_seq: 0,
            last_release: 0,
            highest_delivered: None,
            stats: LinkStats::default(),
        }
    }

    pub fn config(&self) -> &LinkConfig {
        &self.config
    }

    /// Change the conditions from now on (datagrams already held keep their times).
    pub fn set_config(&mut self, config: LinkConfig) {
        self.config = config;
    }

    /// Cut the link (everything sent is dropped, a silent peer) or restore it.
    pub fn set_cut(&mut self, cut: bool) {
        self.cut = cut;
    }

    pub fn is_cut(&self) -> bool {
        self.cut
    }

    pub fn stats(&self) -> LinkStats {
        self.stats
    }

    /// Datagrams held for later release.
    pub fn queued(&self) -> usize {
        self.queue.len()
    }

    /// When the next held datagram is due, if any.
    pub fn next_release(&self) -> Option<Millis> {
        self.queue.peek().map(|Reverse(h)| h.release)
    }

    /// Offer one datagram at `now`. It is dropped, or held (once or twice) until its release
    /// time; [`pop_due`](Link::pop_due) hands it out then.
    pub fn send(&mut self, now: Millis, to: A, data: &[u8])
    where
        A: Clone,
    {
        self.stats.sent += 1;
        self.stats.sent_bytes += data.len() as u64;
        if self.cut {
            self.stats.dropped_cut += 1;
            return;
        }
        if self.config.mtu.is_some_and(|mtu| data.len() > mtu) {
            self.stats.dropped_mtu += 1;
            return;
        }
        if let Some(rto) = self.config.retransmit_ms {
            self.send_reliable(now, rto, to, data);
            return;
        }
        if self.lose() {
            self.stats.dropped_loss += 1;
            return;
        }
        let copies = if self.chance(self.config.duplicate_chance) {
            self.stats.duplicated += 1;
            2
        } else {
            1
        };
        for _ in 0..copies {
            let release = now.saturating_add(self.delay());
            let seq = self.next_seq;
            self.next_seq += 1;
            if release > now {
                self.stats.delayed += 1;
                self.stats.delayed_bytes += data.len() as u64;
            }
            self.queue.push(Reverse(Held { release, seq, to: to.clone(), data: data.to_vec() }));
        }
    }

    /// A reliable link's send: every loss costs one retransmission delay (past the cap the
    /// datagram goes through: a link that bad is a mistake in the test's setup, not something
    /// to hang on), and it is released no earlier than the one sent before it.
    fn send_reliable(&mut self, now: Millis, rto: u32, to: A, data: &[u8]) {
        let mut at = now;
        let mut sends = 1;
        while sends < MAX_RELIABLE_SENDS && self.lose() {
            self.stats.resent += 1;
            self.stats.resent_bytes += data.len() as u64;
            at = at.saturating_add(Millis::from(rto));
            sends += 1;
        }
        let release = at.saturating_add(self.delay()).max(self.last_release);
        self.last_release = release;
        if release > now {
            self.stats.delayed += 1;
            self.stats.delayed_bytes += data.len() as u64;
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        self.queue.push(Reverse(Held { release, seq, to, data: data.to_vec() }));
    }

    /// The next held datagram due by `now`, in release order (send order on ties).
    pub fn pop_due(&mut self, now: Millis) -> Option<(A, Vec<u8>)> {
        if self.queue.peek().is_none_or(|Reverse(h)| h.release > now) {
            return None;
        }
        let Reverse(h) = self.queue.pop()?;
        match self.highest_delivered {
            Some(high) if h.seq < high => self.stats.reordered += 1,
            _ => self.highest_delivered = Some(h.seq),
        }
        self.stats.delivered += 1;
        self.stats.delivered_bytes += h.data.len() as u64;
        Some((h.to, h.data))
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
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drain(link: &mut Link<u8>, now: Millis) -> Vec<Vec<u8>> {
        std::iter::from_fn(|| link.pop_due(now)).map(|(_, d)| d).collect()
    }

    #[test]
    fn default_config_passes_straight_through_in_order() {
        let mut link = Link::new(LinkConfig::default(), 1);
        for i in 0..100u8 {
            link.send(0, 0, &[i]);
        }
        let got: Vec<u8> = drain(&mut link, 0).iter().map(|d| d[0]).collect();
        assert_eq!(got, (0..100).collect::<Vec<u8>>());
        assert_eq!(link.stats().delivered, 100);
        assert_eq!(link.next_release(), None);
    }

    #[test]
    fn latency_holds_until_release_time() {
        let mut link = Link::new(LinkConfig::clean(50), 1);
        link.send(1000, 0u8, b"x");
        assert_eq!(link.next_release(), Some(1050));
        assert!(drain(&mut link, 1049).is_empty());
        assert_eq!(drain(&mut link, 1050).len(), 1);
        assert_eq!(link.stats().delayed_bytes, 1);
    }

    #[test]
    fn reorder_delay_lets_later_datagrams_pass() {
        let cfg = LinkConfig { reorder_chance: 1.0, reorder_delay_ms: 10, ..Default::default() };
        let mut link = Link::new(cfg, 1);
        link.send(0, 0u8, b"first");
        link.set_config(LinkConfig::default());
        link.send(1, 0u8, b"second");
        assert_eq!(drain(&mut link, 20), vec![b"second".to_vec(), b"first".to_vec()]);
        assert_eq!(link.stats().reordered, 1);
    }

    #[test]
    fn a_cut_link_drops_everything() {
        let mut link = Link::new(LinkConfig::default(), 1);
        link.set_cut(true);
        link.send(0, 0u8, b"x");
        assert!(drain(&mut link, 100).is_empty());
        assert_eq!(link.stats().dropped_cut, 1);
    }

    #[test]
    fn same_seed_same_fate() {
        let run = |seed| {
            let mut link = Link::new(LinkConfig::poor(), seed);
            for i in 0..500u32 {
                link.send(u64::from(i), 0u8, &i.to_le_bytes());
            }
            drain(&mut link, u64::MAX)
        };
        assert_eq!(run(9), run(9));
        assert_ne!(run(9), run(10));
    }

    #[test]
    fn gilbert_elliott_parameters_give_the_asked_rate() {
        let ge = GilbertElliott::from_rate_and_burst(0.05, 4.0);
        assert!((ge.mean_loss_rate() - 0.05).abs() < 1e-12);
        assert!((ge.p_bad_to_good - 0.25).abs() < 1e-12);
    }

    #[test]
    fn a_reliable_link_delivers_everything_in_order_and_counts_resends() {
        let config = LinkConfig {
            latency_ms: 35,
            jitter_ms: 15,
            retransmit_ms: Some(90),
            ..LinkConfig::default().with_loss(0.3)
        };
        let mut link = Link::new(config, 5);
        for i in 0..200u32 {
            link.send(Millis::from(i), 1, &i.to_le_bytes());
        }
        let got: Vec<u32> = drain(&mut link, 1_000_000)
            .into_iter()
            .map(|d| u32::from_le_bytes(d.try_into().unwrap()))
            .collect();
        assert_eq!(got, (0..200).collect::<Vec<_>>());
        let st = link.stats();
        assert!(st.resent > 30 && st.resent_bytes == st.resent * 4, "{st:?}");
        assert_eq!((st.dropped(), st.reordered, st.duplicated), (0, 0, 0));
    }
}
