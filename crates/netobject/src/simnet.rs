//! Simulated network conditions on one connection's outgoing datagrams (Torque's
//! `setSimulatedNetParams`): loss and added latency through the one network emulator
//! (`v12-netsim`'s seeded [`Link`]), so every run can be replayed.

use bytes::Bytes;
use v12_netsim::{Link, LinkConfig, LossModel};

/// Loss and latency applied before a datagram leaves the connection.
#[derive(Debug)]
pub struct SimulatedNet {
    link: Link<()>,
    /// Nothing simulated and nothing held: datagrams pass straight through, uncopied.
    clean: bool,
    /// Datagrams the simulation dropped.
    pub dropped: u64,
}

impl SimulatedNet {
    /// No loss, no latency.
    pub fn new(seed: u64) -> Self {
        Self { link: Link::new(LinkConfig::default(), seed), clean: true, dropped: 0 }
    }

    /// Sets the loss probability (0..=1) and the added one-way latency.
    pub fn set_params(&mut self, loss: f32, latency_ms: u64) {
        let loss = if loss.is_finite() { f64::from(loss.clamp(0.0, 1.0)) } else { 0.0 };
        let latency_ms = u32::try_from(latency_ms).unwrap_or(u32::MAX);
        self.clean = loss == 0.0 && latency_ms == 0;
        let loss = if loss > 0.0 { LossModel::Uniform(loss) } else { LossModel::None };
        self.link.set_config(LinkConfig { loss, latency_ms, ..LinkConfig::default() });
    }

    /// Passes a datagram through: `Some` to send now, `None` if dropped or delayed.
    pub fn send(&mut self, now: u64, bytes: Bytes) -> Option<Bytes> {
        if self.clean && self.link.queued() == 0 {
            return Some(bytes);
        }
        let before = self.link.stats().dropped();
        self.link.send(now, (), &bytes);
        self.dropped += self.link.stats().dropped() - before;
        None
    }

    /// The next delayed datagram due by `now`.
    pub fn release(&mut self, now: u64) -> Option<Bytes> {
        self.link.pop_due(now).map(|((), data)| Bytes::from(data))
    }

    /// When the next delayed datagram is due.
    pub fn next_release(&self) -> Option<u64> {
        self.link.next_release()
    }
}
