//! A link conditioner: bad networks on demand, reproducibly, in front of any transport.
//!
//! It wraps a [`Transport`] and passes every datagram sent through it over one
//! [`v12_netsim::Link`], the project's one network emulator: an MTU check, loss (uniform or
//! bursty Gilbert–Elliott), duplication, latency with jitter, and extra delay for reordering.
//! Everything random comes from one seeded PCG stream, and time comes only from the `now`
//! arguments, so the same seed and the same calls give the same output byte for byte; a failing
//! test replays from its seed.

use std::io;

use v12_netsim::Link;
pub use v12_netsim::{GilbertElliott, LinkConfig as ConditionerConfig, LossModel};

use crate::address::NetAddress;
use crate::time::Millis;
use crate::transport::{Datagram, Transport};

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

/// Wraps a transport and conditions what it sends. Received datagrams pass
/// through untouched: condition both ends for a two-way link.
#[derive(Debug)]
pub struct LinkConditioner<T: Transport> {
    inner: T,
    link: Link<NetAddress>,
    inner_errors: u64,
}

impl<T: Transport> LinkConditioner<T> {
    /// Condition `inner` as `config` says, with random choices from `seed`.
    pub fn new(inner: T, config: ConditionerConfig, seed: u64) -> Self {
        LinkConditioner { inner, link: Link::new(config, seed), inner_errors: 0 }
    }

    pub fn config(&self) -> &ConditionerConfig {
        self.link.config()
    }

    /// Change the conditions from now on (datagrams already held keep their times).
    pub fn set_config(&mut self, config: ConditionerConfig) {
        self.link.set_config(config);
    }

    pub fn stats(&self) -> ConditionerStats {
        let s = self.link.stats();
        ConditionerStats {
            sent: s.sent,
            sent_bytes: s.sent_bytes,
            delivered: s.delivered - self.inner_errors,
            delivered_bytes: s.delivered_bytes,
            dropped_loss: s.dropped_loss,
            dropped_mtu: s.dropped_mtu,
            duplicated: s.duplicated,
            reordered: s.reordered,
            delayed: s.delayed,
            delayed_bytes: s.delayed_bytes,
            inner_errors: self.inner_errors,
        }
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
        self.link.queued()
    }

    /// When the next held datagram is due, if any.
    pub fn next_release(&self) -> Option<Millis> {
        self.link.next_release()
    }

    /// Hand every held datagram due by `now` to the inner transport, in release order.
    fn release_due(&mut self, now: Millis) {
        while let Some((to, data)) = self.link.pop_due(now) {
            if let Err(e) = self.inner.send_to(now, to, &data) {
                // The datagram was the conditioner's to deliver; its loss is what
                // an unreliable link does. Count it rather than fail a later call.
                self.inner_errors += 1;
                tracing::debug!(to = %to, error = %e, "conditioner: inner send failed");
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
        self.link.send(now, to, data);
        // A copy with no delay goes out now.
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
    use bytes::Bytes;

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
}
