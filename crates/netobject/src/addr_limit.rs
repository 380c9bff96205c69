//! Per-address limits of the handshake. Addresses are grouped as one holder gets them (an
//! IPv4 address; an IPv6 /64, since one host is usually given a whole /64 and could otherwise
//! count as 2^64 addresses), and each group has a bounded token bucket for the connections
//! it may open: one address cannot churn connections (each a key exchange, a join and a leave
//! in the log) faster than the bucket refills.

use hashbrown::HashMap;
use std::net::IpAddr;

/// The group `ip` is counted in by the per-address limits: an IPv4 address itself, the /64
/// of an IPv6 address, and an IPv4-mapped IPv6 address as its IPv4 address.
pub fn addr_group(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let bits = u128::from(v6) & !((1u128 << 64) - 1);
                IpAddr::V6(bits.into())
            }
        },
    }
}

/// A token bucket per address group, in a table of bounded size.
#[derive(Debug)]
pub(crate) struct AddrBudget {
    burst: u32,
    per_second: u32,
    max_tracked: usize,
    /// Tokens in thousandths, and when they were last topped up.
    buckets: HashMap<IpAddr, (u64, u64)>,
}

impl AddrBudget {
    pub(crate) fn new(burst: u32, per_second: u32, max_tracked: usize) -> Self {
        Self { burst: burst.max(1), per_second, max_tracked: max_tracked.max(1), buckets: HashMap::new() }
    }

    /// Spends one token of `ip`'s group at `now` (ms); false when there is none. When the
    /// table is full of groups still refilling, a new group is refused until one has.
    pub(crate) fn allow(&mut self, ip: IpAddr, now: u64) -> bool {
        let group = addr_group(ip);
        if !self.buckets.contains_key(&group) && self.buckets.len() >= self.max_tracked {
            self.prune(now);
            if self.buckets.len() >= self.max_tracked {
                return false;
            }
        }
        let cap = u64::from(self.burst) * 1000;
        let rate = u64::from(self.per_second);
        let (milli, last) = self.buckets.entry(group).or_insert((cap, now));
        *milli = (*milli + now.saturating_sub(*last) * rate).min(cap);
        *last = now;
        if *milli >= 1000 {
            *milli -= 1000;
            true
        } else {
            false
        }
    }

    /// Forgets groups whose bucket has refilled (they are as good as new).
    pub(crate) fn prune(&mut self, now: u64) {
        let cap = u64::from(self.burst) * 1000;
        let rate = u64::from(self.per_second);
        self.buckets.retain(|_, (milli, last)| *milli + now.saturating_sub(*last) * rate < cap);
        if self.buckets.capacity() > 4 * self.buckets.len() + 64 {
            self.buckets.shrink_to_fit();
        }
    }

    pub(crate) fn tracked(&self) -> usize {
        self.buckets.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ipv6_groups_by_64_and_mapped_ipv4_by_address() {
        let a: IpAddr = "2001:db8:1:2:aaaa::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:2:bbbb::9".parse().unwrap();
        let c: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert_eq!(addr_group(a), addr_group(b));
        assert_ne!(addr_group(a), addr_group(c));
        let mapped: IpAddr = "::ffff:192.0.2.7".parse().unwrap();
        assert_eq!(addr_group(mapped), "192.0.2.7".parse::<IpAddr>().unwrap());
        assert_eq!(addr_group("::1".parse().unwrap()), "::".parse::<IpAddr>().unwrap());
    }

    #[test]
    fn a_burst_then_the_refill_rate_and_a_bounded_table() {
        let mut b = AddrBudget::new(4, 10, 2);
        let ip: IpAddr = "192.0.2.1".parse().unwrap();
        assert_eq!((0..10).filter(|_| b.allow(ip, 0)).count(), 4);
        assert!(!b.allow(ip, 50));
        assert!(b.allow(ip, 100), "10/s: one more each 100 ms");
        assert!(b.allow("192.0.2.2".parse().unwrap(), 100));
        assert!(!b.allow("192.0.2.3".parse().unwrap(), 100), "a full table refuses a new group");
        assert!(b.allow("192.0.2.3".parse().unwrap(), 10_000), "refilled groups make room");
        assert!(b.tracked() <= 2);
    }
}
