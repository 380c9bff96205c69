//! A deterministic in-memory harness: a simulated millisecond clock and seeded links
//! between sans-IO lockstep endpoints. The relay mode gets a reliable ordered channel with
//! variable latency (what NetConnection's guaranteed-ordered events give: a lost packet
//! shows up as a retransmission delay, never as a gap); the peer-to-peer mode gets a raw
//! datagram link that loses, delays, reorders and duplicates.

use crate::game::LockstepGame;
use crate::peer::{Peer, PeerConfig};
use crate::relay_client::{RelayClient, RelayClientConfig};
use crate::relay_msg::ClientMessage;
use crate::relay_server::{RelayConfig, RelayServer};
use rand_core::{Rng, SeedableRng};
use rand_pcg::Pcg32;
use std::collections::BinaryHeap;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};

/// One direction of a simulated link.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkConfig {
    /// One-way latency (ms).
    pub latency_ms: u64,
    /// Extra random latency, uniform in `0..=jitter_ms`.
    pub jitter_ms: u64,
    /// Loss probability of each send (0..1).
    pub loss: f64,
    /// Duplication probability (datagram links only).
    pub duplicate: f64,
}

impl LinkConfig {
    /// A link with a round-trip time of `rtt_ms` and nothing else.
    pub fn rtt(rtt_ms: u64) -> Self {
        Self { latency_ms: rtt_ms / 2, jitter_ms: 0, loss: 0.0, duplicate: 0.0 }
    }
}

#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
struct InFlight {
    at: std::cmp::Reverse<(u64, u64)>,
    from: usize,
    to: usize,
    bytes: Vec<u8>,
}

/// Seeded links between numbered endpoints.
#[derive(Debug)]
pub struct SimNet {
    rng: Pcg32,
    seq: u64,
    queue: BinaryHeap<InFlight>,
    reliable: bool,
    last: std::collections::BTreeMap<(usize, usize), u64>,
    /// Bytes handed to the net by each endpoint (retransmissions included on reliable links).
    pub sent_bytes: Vec<u64>,
    /// Messages each endpoint sent.
    pub sent_messages: Vec<u64>,
}

impl SimNet {
    /// `endpoints` endpoints; `reliable` for the ordered-channel model.
    pub fn new(endpoints: usize, reliable: bool, seed: u64) -> Self {
        Self {
            rng: Pcg32::seed_from_u64(seed),
            seq: 0,
            queue: BinaryHeap::new(),
            reliable,
            last: Default::default(),
            sent_bytes: vec![0; endpoints],
            sent_messages: vec![0; endpoints],
        }
    }

    fn chance(&mut self, p: f64) -> bool {
        p > 0.0 && (f64::from(self.rng.next_u32()) / f64::from(u32::MAX)) < p
    }

    fn delay(&mut self, link: &LinkConfig) -> u64 {
        let j = if link.jitter_ms > 0 { u64::from(self.rng.next_u32()) % (link.jitter_ms + 1) } else { 0 };
        link.latency_ms + j
    }

    /// Sends `bytes` from `from` to `to` at `now` over `link`.
    pub fn send(&mut self, now: u64, from: usize, to: usize, bytes: Vec<u8>, link: &LinkConfig) {
        if from >= self.sent_bytes.len() {
            return;
        }
        self.sent_messages[from] += 1;
        self.sent_bytes[from] += bytes.len() as u64;
        let mut copies = Vec::new();
        if self.reliable {
            // Every loss costs one retransmission timeout (about an RTT) and the bytes again.
            let mut at = now + self.delay(link);
            while self.chance(link.loss.min(0.9)) {
                at += 2 * link.latency_ms + link.jitter_ms + 20;
                self.sent_bytes[from] += bytes.len() as u64;
            }
            let last = self.last.entry((from, to)).or_insert(0);
            at = at.max(*last);
            *last = at;
            copies.push(at);
        } else {
            if self.chance(link.loss) {
                return;
            }
            copies.push(now + self.delay(link));
            if self.chance(link.duplicate) {
                copies.push(now + self.delay(link));
            }
        }
        for at in copies {
            self.seq += 1;
            self.queue.push(InFlight {
                at: std::cmp::Reverse((at, self.seq)),
                from,
                to,
                bytes: bytes.clone(),
            });
        }
    }

    /// The next delivery due at or before `now`: (from, to, bytes).
    pub fn deliver(&mut self, now: u64) -> Option<(usize, usize, Vec<u8>)> {
        if self.queue.peek().is_some_and(|m| m.at.0.0 <= now) {
            self.queue.pop().map(|m| (m.from, m.to, m.bytes))
        } else {
            None
        }
    }
}

/// A relay server (endpoint 0) and its clients (endpoints 1..), on a simulated clock.
#[derive(Debug)]
pub struct RelayWorld<G: LockstepGame> {
    /// Simulated time (ms).
    pub now: u64,
    /// The server.
    pub server: RelayServer,
    /// Client `i` is player `i + 1` and endpoint `i + 1`.
    pub clients: Vec<RelayClient<G>>,
    /// Link of each client (both directions).
    pub links: Vec<LinkConfig>,
    /// A frozen client neither runs nor sends nor receives (a hung or lagging machine).
    pub frozen: Vec<bool>,
    /// The links.
    pub net: SimNet,
}

impl<G: LockstepGame> RelayWorld<G> {
    /// `humans` clients behind `link`, started at time 0.
    pub fn new(
        config: RelayConfig,
        client: RelayClientConfig,
        humans: usize,
        link: LinkConfig,
        seed: u64,
    ) -> Self {
        let mut server = RelayServer::new(config, seed);
        let mut clients = Vec::new();
        for i in 0..humans {
            if let Some(p) = server.add_player(&format!("player{}", i + 1)) {
                server.set_rtt(p, (2 * link.latency_ms + link.jitter_ms) as u32);
            }
            clients.push(RelayClient::new(client.clone()));
        }
        Self {
            now: 0,
            server,
            clients,
            links: vec![link; humans],
            frozen: vec![false; humans],
            net: SimNet::new(humans + 1, true, seed ^ 0x5EED),
        }
    }

    /// Starts the game.
    pub fn start(&mut self) {
        self.server.start(self.now);
        self.flush();
    }

    fn flush(&mut self) {
        while let Some((to, msg)) = self.server.poll_transmit() {
            let i = usize::from(to) - 1;
            if let Some(link) = self.links.get(i).copied() {
                self.net.send(self.now, 0, i + 1, msg.encode(), &link);
            }
        }
        for i in 0..self.clients.len() {
            if self.frozen[i] {
                continue;
            }
            while let Some(msg) = self.clients[i].poll_transmit() {
                let link = self.links[i];
                self.net.send(self.now, i + 1, 0, msg.encode(), &link);
            }
        }
    }

    /// Advances one millisecond: deliveries, timers, GFs; `bot` may issue commands.
    pub fn step(&mut self, bot: &mut dyn FnMut(u64, usize, &mut RelayClient<G>)) {
        self.now += 1;
        let now = self.now;
        while let Some((from, to, bytes)) = self.net.deliver(now) {
            if to == 0 {
                // A frozen machine's messages already in flight still arrive.
                self.server.handle_datagram(now, from as u8, &bytes);
            } else if let Some(c) = self.clients.get_mut(to - 1) {
                if !self.frozen[to - 1] {
                    c.handle_datagram(now, &bytes);
                }
            }
        }
        self.server.handle_timeout(now);
        for (i, c) in self.clients.iter_mut().enumerate() {
            if self.frozen[i] {
                continue;
            }
            bot(now, i, c);
            c.poll(now);
        }
        self.flush();
    }

    /// Runs for `ms` simulated milliseconds.
    pub fn run_for(&mut self, ms: u64, bot: &mut dyn FnMut(u64, usize, &mut RelayClient<G>)) {
        for _ in 0..ms {
            self.step(bot);
        }
    }

    /// Decodes a client message (for inspection in tests).
    pub fn decode_client(bytes: &[u8]) -> Option<ClientMessage> {
        ClientMessage::decode(bytes).ok()
    }
}

/// The simulated address of peer endpoint `i`.
pub fn peer_addr(i: usize) -> SocketAddr {
    SocketAddr::new(IpAddr::V4(Ipv4Addr::new(10, 0, 0, (i + 1) as u8)), 7000)
}

/// Peers on datagram links (endpoint `i` at [`peer_addr`]`(i)`); peer 0 is the master.
#[derive(Debug)]
pub struct PeerWorld<G: LockstepGame> {
    /// Simulated time (ms).
    pub now: u64,
    /// The peers.
    pub peers: Vec<Peer<G>>,
    /// Link from each peer (outgoing).
    pub links: Vec<LinkConfig>,
    /// A silent peer neither runs, sends nor receives.
    pub silent: Vec<bool>,
    /// The links.
    pub net: SimNet,
}

impl<G: LockstepGame> PeerWorld<G> {
    /// A master and `n - 1` joiners, all saying HELO to the master at time 0.
    pub fn new(config: PeerConfig, n: usize, link: LinkConfig, seed: u64) -> Self {
        let mut peers = vec![Peer::new_master(config.clone(), "peer1")];
        for i in 1..n {
            peers.push(Peer::join(config.clone(), &format!("peer{}", i + 1), peer_addr(0), 0));
        }
        Self { now: 0, peers, links: vec![link; n], silent: vec![false; n], net: SimNet::new(n, false, seed) }
    }

    fn index_of(addr: SocketAddr) -> Option<usize> {
        match addr.ip() {
            IpAddr::V4(v4) if addr.port() == 7000 => (v4.octets()[3] as usize).checked_sub(1),
            _ => None,
        }
    }

    /// Advances one millisecond; `bot` may issue commands.
    pub fn step(&mut self, bot: &mut dyn FnMut(u64, usize, &mut Peer<G>)) {
        self.now += 1;
        let now = self.now;
        while let Some((from, to, bytes)) = self.net.deliver(now) {
            if let Some(p) = self.peers.get_mut(to)
                && !self.silent[to]
            {
                p.handle_datagram(now, peer_addr(from), &bytes);
            }
        }
        for i in 0..self.peers.len() {
            if self.silent[i] {
                continue;
            }
            bot(now, i, &mut self.peers[i]);
            self.peers[i].poll(now);
            while let Some((to, msg)) = self.peers[i].poll_transmit() {
                if let Some(j) = Self::index_of(to) {
                    let link = self.links[i];
                    self.net.send(now, i, j, msg.encode(), &link);
                }
            }
        }
    }

    /// Runs for `ms` simulated milliseconds.
    pub fn run_for(&mut self, ms: u64, bot: &mut dyn FnMut(u64, usize, &mut Peer<G>)) {
        for _ in 0..ms {
            self.step(bot);
        }
    }
}
