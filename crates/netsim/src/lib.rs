#![doc = include_str!("../README.md")]

mod harness;
mod link;
mod network;
mod seeds;

pub use harness::{Endpoint, Harness};
pub use link::{GilbertElliott, Link, LinkConfig, LinkStats, LossModel};
pub use network::Network;
pub use seeds::{SEED_ENV, for_each_seed, mix_seed};

/// Simulated time in milliseconds. Nothing in this crate reads a clock.
pub type Millis = u64;
