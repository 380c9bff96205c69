//! Any number of addressed nodes joined by one emulated [`Link`] per ordered pair.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use crate::Millis;
use crate::link::{Link, LinkConfig, LinkStats};
use crate::seeds::mix_seed;

/// The links between nodes addressed by `A`. A pair's link is created the first time something
/// is sent over it, with the pair's override config (or the default) and its own seed derived
/// from the network's seed and the order links were created in, so a run is replayed exactly
/// from the network's seed.
pub struct Network<A> {
    seed: u64,
    default: LinkConfig,
    overrides: BTreeMap<(A, A), LinkConfig>,
    cut: BTreeSet<(A, A)>,
    isolated: BTreeSet<A>,
    links: BTreeMap<(A, A), Link<A>>,
}

impl<A: fmt::Debug> fmt::Debug for Network<A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Network").field("seed", &self.seed).field("links", &self.links.len()).finish()
    }
}

impl<A: Ord + Clone> Network<A> {
    /// Every link behaves as `default` unless overridden; random choices come from `seed`.
    pub fn new(default: LinkConfig, seed: u64) -> Self {
        Network {
            seed,
            default,
            overrides: BTreeMap::new(),
            cut: BTreeSet::new(),
            isolated: BTreeSet::new(),
            links: BTreeMap::new(),
        }
    }

    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Change every link without an override, now and for links made later.
    pub fn set_default(&mut self, config: LinkConfig) {
        self.default = config;
        for (pair, link) in &mut self.links {
            if !self.overrides.contains_key(pair) {
                link.set_config(config);
            }
        }
    }

    /// Change the one-way link `from → to` from now on.
    pub fn set_link(&mut self, from: A, to: A, config: LinkConfig) {
        if let Some(link) = self.links.get_mut(&(from.clone(), to.clone())) {
            link.set_config(config);
        }
        self.overrides.insert((from, to), config);
    }

    /// Change both directions between `a` and `b`.
    pub fn set_both(&mut self, a: A, b: A, config: LinkConfig) {
        self.set_link(a.clone(), b.clone(), config);
        self.set_link(b, a, config);
    }

    /// Cut (or restore) the one-way link `from → to`: what is sent over it from now on is
    /// dropped (datagrams already in flight still arrive).
    pub fn set_cut(&mut self, from: A, to: A, cut: bool) {
        if cut {
            self.cut.insert((from, to));
        } else {
            self.cut.remove(&(from, to));
        }
    }

    /// Cut (or restore) every link into and out of `node`: it falls silent.
    pub fn isolate(&mut self, node: A, isolated: bool) {
        if isolated {
            self.isolated.insert(node);
        } else {
            self.isolated.remove(&node);
        }
    }

    /// Offer a datagram from `from` to `to` at `now`.
    pub fn send(&mut self, now: Millis, from: A, to: A, data: &[u8]) {
        let cut = self.isolated.contains(&from)
            || self.isolated.contains(&to)
            || self.cut.contains(&(from.clone(), to.clone()));
        let link = self.link_mut(from, to.clone());
        link.set_cut(cut);
        link.send(now, to, data);
    }

    /// The earliest time a held datagram is due anywhere.
    pub fn next_delivery(&self) -> Option<Millis> {
        self.links.values().filter_map(Link::next_release).min()
    }

    /// The next datagram due by `now` as `(from, to, bytes)`: earliest release first, then
    /// the links in address order, so the order is deterministic.
    pub fn pop_due(&mut self, now: Millis) -> Option<(A, A, Vec<u8>)> {
        let (pair, _) = self
            .links
            .iter()
            .filter_map(|(pair, link)| link.next_release().filter(|&t| t <= now).map(|t| (pair, t)))
            .min_by_key(|&(_, t)| t)?;
        let pair = pair.clone();
        let (to, data) = self.links.get_mut(&pair)?.pop_due(now)?;
        Some((pair.0, to, data))
    }

    /// What the one-way link `from → to` did so far (zeros if it was never used).
    pub fn stats(&self, from: &A, to: &A) -> LinkStats {
        self.links.get(&(from.clone(), to.clone())).map(Link::stats).unwrap_or_default()
    }

    /// The sum over every link.
    pub fn total_stats(&self) -> LinkStats {
        let mut t = LinkStats::default();
        self.links.values().for_each(|l| t.add(&l.stats()));
        t
    }

    /// The sum over every link out of `node`: what it sent.
    pub fn stats_from(&self, node: &A) -> LinkStats {
        let mut t = LinkStats::default();
        self.links.iter().filter(|((from, _), _)| from == node).for_each(|(_, l)| t.add(&l.stats()));
        t
    }

    /// Datagrams held anywhere.
    pub fn queued(&self) -> usize {
        self.links.values().map(Link::queued).sum()
    }

    fn link_mut(&mut self, from: A, to: A) -> &mut Link<A> {
        let n = self.links.len() as u64;
        let config = *self.overrides.get(&(from.clone(), to.clone())).unwrap_or(&self.default);
        let seed = mix_seed(self.seed, n);
        self.links.entry((from, to)).or_insert_with(|| Link::new(config, seed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_pair_has_its_own_conditions() {
        let mut net = Network::new(LinkConfig::clean(10), 3);
        net.set_link(0u8, 1u8, LinkConfig::clean(100));
        net.send(0, 0, 1, b"slow");
        net.send(0, 1, 0, b"fast");
        assert_eq!(net.next_delivery(), Some(10));
        assert_eq!(net.pop_due(10), Some((1, 0, b"fast".to_vec())));
        assert_eq!(net.pop_due(99), None);
        assert_eq!(net.pop_due(100), Some((0, 1, b"slow".to_vec())));
        assert_eq!(net.stats(&0, &1).delivered, 1);
    }

    #[test]
    fn deliveries_come_out_in_time_order_across_links() {
        let mut net = Network::new(LinkConfig::default(), 3);
        net.set_link(2u8, 0u8, LinkConfig::clean(5));
        net.set_link(1u8, 0u8, LinkConfig::clean(7));
        net.send(0, 1, 0, b"b");
        net.send(0, 2, 0, b"a");
        let order: Vec<_> = std::iter::from_fn(|| net.pop_due(100)).map(|(from, _, _)| from).collect();
        assert_eq!(order, vec![2, 1]);
    }

    #[test]
    fn an_isolated_node_neither_sends_nor_receives() {
        let mut net = Network::new(LinkConfig::default(), 3);
        net.isolate(1u8, true);
        net.send(0, 0, 1, b"in");
        net.send(0, 1, 0, b"out");
        net.send(0, 0, 2, b"other");
        assert_eq!(net.pop_due(0), Some((0, 2, b"other".to_vec())));
        assert_eq!(net.pop_due(0), None);
        assert_eq!(net.total_stats().dropped_cut, 2);
        net.isolate(1, false);
        net.send(1, 0, 1, b"again");
        assert_eq!(net.pop_due(1), Some((0, 1, b"again".to_vec())));
    }
}
