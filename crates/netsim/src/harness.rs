//! N sans-IO endpoints over a [`Network`] on a simulated clock that jumps to the next wake-up.

use std::collections::BTreeMap;
use std::fmt;

use crate::Millis;
use crate::link::LinkConfig;
use crate::network::Network;

/// A sans-IO participant: a protocol state machine that takes time and bytes as arguments and
/// hands bytes back, as quinn-proto's `Connection` does. Tests wrap their protocol value (a
/// `ConnectionProtocol`, a `NetInterface` with its game world, a lockstep peer) in a small
/// struct that implements this.
pub trait Endpoint {
    /// How nodes are addressed (a `SocketAddr`, a node number, ...).
    type Addr: Ord + Clone + fmt::Debug;

    /// This node's address; datagrams sent to it are handed to it.
    fn addr(&self) -> Self::Addr;

    /// One datagram arrived at `now`.
    fn handle_datagram(&mut self, now: Millis, from: Self::Addr, data: &[u8]);

    /// The next datagram to send at `now`, if any. Called until it returns `None`.
    fn poll_transmit(&mut self, now: Millis) -> Option<(Self::Addr, Vec<u8>)>;

    /// When this node next needs [`handle_timeout`](Endpoint::handle_timeout) (a send timer,
    /// a tick, a resend); `None` when only a datagram can wake it.
    fn poll_timeout(&self) -> Option<Millis>;

    /// Do the time-driven work due at `now`.
    fn handle_timeout(&mut self, now: Millis);
}

/// Steps at one instant without the clock moving before the harness calls a run stuck (an
/// endpoint whose timeout never moves past `now`).
const MAX_STEPS_AT_ONE_INSTANT: u32 = 100_000;

/// Drives endpoints over an emulated network. Each step sends what every node has to send,
/// jumps the clock to the earliest delivery or timeout, hands out the datagrams due (earliest
/// first), then runs the timeouts due, node by node in the order they were added.
pub struct Harness<E: Endpoint> {
    nodes: Vec<E>,
    index: BTreeMap<E::Addr, usize>,
    network: Network<E::Addr>,
    now: Millis,
    steps_at_now: u32,
    undeliverable: u64,
}

impl<E: Endpoint> fmt::Debug for Harness<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Harness")
            .field("nodes", &self.nodes.len())
            .field("now", &self.now)
            .field("network", &self.network)
            .finish()
    }
}

impl<E: Endpoint> Harness<E> {
    /// The nodes, joined by links that behave as `config` (change them through
    /// [`network_mut`](Harness::network_mut)), with every random choice from `seed`. The clock
    /// starts at 0.
    pub fn new(nodes: Vec<E>, config: LinkConfig, seed: u64) -> Self {
        let mut h = Harness {
            nodes: Vec::new(),
            index: BTreeMap::new(),
            network: Network::new(config, seed),
            now: 0,
            steps_at_now: 0,
            undeliverable: 0,
        };
        for n in nodes {
            h.add_node(n);
        }
        h
    }

    /// Start the clock at `now` instead of 0 (before the first step).
    pub fn with_start(mut self, now: Millis) -> Self {
        self.now = now;
        self
    }

    /// Add a node; returns its index. Its address must be new.
    ///
    /// # Panics
    /// If another node already has the address (a test bug).
    pub fn add_node(&mut self, node: E) -> usize {
        let i = self.nodes.len();
        let prev = self.index.insert(node.addr(), i);
        assert!(prev.is_none(), "netsim: two nodes with the address {:?}", node.addr());
        self.nodes.push(node);
        i
    }

    pub fn now(&self) -> Millis {
        self.now
    }

    pub fn node(&self, i: usize) -> &E {
        &self.nodes[i]
    }

    pub fn node_mut(&mut self, i: usize) -> &mut E {
        &mut self.nodes[i]
    }

    pub fn nodes(&self) -> &[E] {
        &self.nodes
    }

    pub fn nodes_mut(&mut self) -> &mut [E] {
        &mut self.nodes
    }

    /// The nodes, taken out of the harness (in the order they were added).
    pub fn into_nodes(self) -> Vec<E> {
        self.nodes
    }

    /// The node with this address.
    pub fn node_at(&self, addr: &E::Addr) -> Option<&E> {
        self.index.get(addr).map(|&i| &self.nodes[i])
    }

    pub fn network(&self) -> &Network<E::Addr> {
        &self.network
    }

    /// To change links, cut them or isolate a node mid-run.
    pub fn network_mut(&mut self) -> &mut Network<E::Addr> {
        &mut self.network
    }

    /// Datagrams that arrived for an address no node has.
    pub fn undeliverable(&self) -> u64 {
        self.undeliverable
    }

    /// Send everything every node has to send now.
    pub fn flush(&mut self) {
        let now = self.now;
        for node in &mut self.nodes {
            let from = node.addr();
            while let Some((to, data)) = node.poll_transmit(now) {
                self.network.send(now, from.clone(), to, &data);
            }
        }
    }

    /// The earliest delivery or timeout, if anything is pending.
    pub fn next_wakeup(&self) -> Option<Millis> {
        let timeouts = self.nodes.iter().filter_map(Endpoint::poll_timeout).min();
        match (self.network.next_delivery(), timeouts) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// One step, if something is due by `limit`: returns false (with the clock moved to
    /// `limit`) when nothing is.
    ///
    /// # Panics
    /// If the clock has not moved for 100,000 steps: an endpoint asks for a timeout at `now`
    /// again and again without doing anything (a bug in the endpoint, reported with the seed).
    pub fn step(&mut self, limit: Millis) -> bool {
        self.flush();
        let Some(next) = self.next_wakeup().filter(|&t| t <= limit) else {
            self.now = self.now.max(limit);
            self.steps_at_now = 0;
            return false;
        };
        if next > self.now {
            self.now = next;
            self.steps_at_now = 0;
        } else {
            self.steps_at_now += 1;
            assert!(
                self.steps_at_now < MAX_STEPS_AT_ONE_INSTANT,
                "netsim: the clock is stuck at {} ms (an endpoint's timeout does not move; seed {})",
                self.now,
                self.network.seed()
            );
        }
        let now = self.now;
        while let Some((from, to, data)) = self.network.pop_due(now) {
            match self.index.get(&to) {
                Some(&i) => self.nodes[i].handle_datagram(now, from, &data),
                None => self.undeliverable += 1,
            }
        }
        for node in &mut self.nodes {
            if node.poll_timeout().is_some_and(|t| t <= now) {
                node.handle_timeout(now);
            }
        }
        self.flush();
        true
    }

    /// Move the clock forward to `t` without handling anything: for a test that drives a
    /// node by hand for a while (feeding it forged datagrams, say) and then lets the harness
    /// go on from the time it reached. Never moves the clock back.
    pub fn skip_to(&mut self, t: Millis) {
        if t > self.now {
            self.now = t;
            self.steps_at_now = 0;
        }
    }

    /// Run until the clock reaches `t` (every wake-up up to and including `t` is handled).
    pub fn run_until(&mut self, t: Millis) {
        while self.step(t) {}
    }

    /// Run for `dt` more milliseconds.
    pub fn run_for(&mut self, dt: Millis) {
        self.run_until(self.now.saturating_add(dt));
    }

    /// Run until `done` holds (checked before each step) or the clock reaches `limit`; returns
    /// whether `done` held.
    pub fn run_until_cond(&mut self, limit: Millis, mut done: impl FnMut(&Self) -> bool) -> bool {
        loop {
            if done(self) {
                return true;
            }
            if !self.step(limit) {
                return done(self);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sends a numbered datagram to its peer every `period` ms and counts what arrives.
    struct Ticker {
        addr: u8,
        peer: u8,
        period: Millis,
        next: Millis,
        sent: u32,
        got: Vec<(Millis, u32)>,
        pending: Option<u32>,
    }

    impl Ticker {
        fn new(addr: u8, peer: u8, period: Millis) -> Self {
            Ticker { addr, peer, period, next: 0, sent: 0, got: Vec::new(), pending: None }
        }
    }

    impl Endpoint for Ticker {
        type Addr = u8;
        fn addr(&self) -> u8 {
            self.addr
        }
        fn handle_datagram(&mut self, now: Millis, _from: u8, data: &[u8]) {
            let n = u32::from_le_bytes(data.try_into().expect("4 bytes"));
            self.got.push((now, n));
        }
        fn poll_transmit(&mut self, _now: Millis) -> Option<(u8, Vec<u8>)> {
            self.pending.take().map(|n| (self.peer, n.to_le_bytes().to_vec()))
        }
        fn poll_timeout(&self) -> Option<Millis> {
            Some(self.next)
        }
        fn handle_timeout(&mut self, now: Millis) {
            self.pending = Some(self.sent);
            self.sent += 1;
            self.next = now + self.period;
        }
    }

    #[test]
    fn clock_jumps_and_latency_is_applied() {
        let mut h =
            Harness::new(vec![Ticker::new(0, 1, 100), Ticker::new(1, 0, 1000)], LinkConfig::clean(30), 1);
        h.run_until(1000);
        assert_eq!(h.now(), 1000);
        // Node 0 sent at 0, 100, ..., 1000; arrivals 30 ms later up to 1000.
        let got = &h.node(1).got;
        assert_eq!(got.len(), 10);
        assert_eq!(got[0], (30, 0));
        assert_eq!(got[9], (930, 9));
    }

    #[test]
    fn same_seed_same_run() {
        let run = |seed| {
            let mut h =
                Harness::new(vec![Ticker::new(0, 1, 7), Ticker::new(1, 0, 11)], LinkConfig::poor(), seed);
            h.run_until(20_000);
            (h.node(0).got.clone(), h.node(1).got.clone())
        };
        assert_eq!(run(4), run(4));
        assert_ne!(run(4), run(5));
    }

    #[test]
    fn run_until_cond_stops_early() {
        let mut h = Harness::new(vec![Ticker::new(0, 1, 10), Ticker::new(1, 0, 10)], LinkConfig::clean(5), 1);
        assert!(h.run_until_cond(10_000, |h| h.node(1).got.len() >= 3));
        assert_eq!(h.now(), 25);
    }
}
