//! Simulated network conditions on one connection's outgoing datagrams
//! (Torque's `setSimulatedNetParams`), with a seeded RNG so every run can be replayed.

use bytes::Bytes;
use rand_core::{Rng, SeedableRng};
use rand_pcg::Pcg32;
use std::collections::VecDeque;

/// Loss and latency applied before a datagram leaves the connection.
#[derive(Debug)]
pub struct SimulatedNet {
    loss: f32,
    latency_ms: u64,
    rng: Pcg32,
    delayed: VecDeque<(u64, Bytes)>,
    /// Datagrams the simulation dropped.
    pub dropped: u64,
}

impl SimulatedNet {
    /// No loss, no latency.
    pub fn new(seed: u64) -> Self {
        Self {
            loss: 0.0,
            latency_ms: 0,
            rng: Pcg32::seed_from_u64(seed),
            delayed: VecDeque::new(),
            dropped: 0,
        }
    }

    /// Sets the loss probability (0..=1) and the added one-way latency.
    pub fn set_params(&mut self, loss: f32, latency_ms: u64) {
        self.loss = if loss.is_finite() { loss.clamp(0.0, 1.0) } else { 0.0 };
        self.latency_ms = latency_ms;
    }

    /// Passes a datagram through: `Some` to send now, `None` if dropped or delayed.
    pub fn send(&mut self, now: u64, bytes: Bytes) -> Option<Bytes> {
        if self.loss > 0.0 && (self.rng.next_u32() as f32 / u32::MAX as f32) < self.loss {
            self.dropped += 1;
            return None;
        }
        if self.latency_ms == 0 && self.delayed.is_empty() {
            return Some(bytes);
        }
        self.delayed.push_back((now + self.latency_ms, bytes));
        None
    }

    /// The next delayed datagram due by `now`.
    pub fn release(&mut self, now: u64) -> Option<Bytes> {
        if self.delayed.front().is_some_and(|(t, _)| *t <= now) {
            return self.delayed.pop_front().map(|(_, b)| b);
        }
        None
    }

    /// When the next delayed datagram is due.
    pub fn next_release(&self) -> Option<u64> {
        self.delayed.front().map(|(t, _)| *t)
    }
}
