//! Per-address rate limits: a token bucket per source IP, in a table of bounded size.
//!
//! When the table is full, idle entries are pruned; if it is still full, unknown addresses
//! are refused until entries age out, so a flood of spoofed sources costs bounded memory.

use std::collections::HashMap;
use std::net::IpAddr;

/// Limits for one source address.
#[derive(Debug, Clone, Copy)]
pub struct RateConfig {
    /// Datagrams a sender may send at once.
    pub burst: u32,
    /// Datagrams per second it may send on average.
    pub per_second: u32,
    /// Most addresses tracked at once.
    pub max_tracked: usize,
}

impl Default for RateConfig {
    fn default() -> Self {
        Self { burst: 40, per_second: 20, max_tracked: 65_536 }
    }
}

#[derive(Debug, Clone, Copy)]
struct Bucket {
    /// Tokens, in thousandths of a datagram.
    milli: u64,
    last_ms: u64,
}

/// The table of buckets.
#[derive(Debug)]
pub struct RateLimiter {
    config: RateConfig,
    buckets: HashMap<IpAddr, Bucket>,
}

impl RateLimiter {
    pub fn new(config: RateConfig) -> Self {
        Self { config, buckets: HashMap::new() }
    }

    /// Addresses tracked now.
    pub fn tracked(&self) -> usize {
        self.buckets.len()
    }

    fn full_bucket(&self, now_ms: u64) -> Bucket {
        Bucket { milli: u64::from(self.config.burst) * 1000, last_ms: now_ms }
    }

    /// May `ip` send one more datagram at `now_ms`?
    pub fn allow(&mut self, ip: IpAddr, now_ms: u64) -> bool {
        if !self.buckets.contains_key(&ip) && self.buckets.len() >= self.config.max_tracked {
            self.prune(now_ms);
            if self.buckets.len() >= self.config.max_tracked {
                return false;
            }
        }
        let full = self.full_bucket(now_ms);
        let cap = full.milli;
        let rate = u64::from(self.config.per_second);
        let b = self.buckets.entry(ip).or_insert(full);
        let elapsed = now_ms.saturating_sub(b.last_ms);
        b.milli = (b.milli + elapsed * rate).min(cap);
        b.last_ms = now_ms;
        if b.milli >= 1000 {
            b.milli -= 1000;
            true
        } else {
            false
        }
    }

    /// Forgets addresses whose bucket has refilled (they are as good as new).
    pub fn prune(&mut self, now_ms: u64) {
        let rate = u64::from(self.config.per_second).max(1);
        let cap = u64::from(self.config.burst) * 1000;
        self.buckets.retain(|_, b| b.milli + now_ms.saturating_sub(b.last_ms) * rate < cap);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_then_the_average_rate() {
        let mut r = RateLimiter::new(RateConfig { burst: 5, per_second: 10, max_tracked: 4 });
        let ip: IpAddr = "10.0.0.1".parse().unwrap();
        assert_eq!((0..10).filter(|_| r.allow(ip, 0)).count(), 5);
        assert!(!r.allow(ip, 50));
        assert!(r.allow(ip, 100), "10/s refills one in 100 ms");
    }

    #[test]
    fn the_table_is_bounded_and_idle_entries_make_room() {
        let mut r = RateLimiter::new(RateConfig { burst: 2, per_second: 1, max_tracked: 3 });
        for i in 0..3u8 {
            assert!(r.allow(IpAddr::from([10, 0, 0, i]), 0));
        }
        assert!(!r.allow(IpAddr::from([10, 0, 0, 9]), 0), "full table: a new address waits");
        assert_eq!(r.tracked(), 3);
        assert!(r.allow(IpAddr::from([10, 0, 0, 9]), 10_000), "old entries refilled and were pruned");
        assert!(r.tracked() <= 3);
    }
}
