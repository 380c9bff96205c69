//! A deterministic in-memory harness: lockstep endpoints on the one network emulator's
//! harness (`v12_netsim::Harness`: a simulated millisecond clock that jumps to the next
//! wake-up, seeded links between the nodes). The relay mode gets a reliable ordered channel
//! with variable latency (what NetConnection's guaranteed-ordered events give: a lost packet
//! shows up as a retransmission delay, never as a gap); the peer-to-peer mode gets a raw
//! datagram link that loses, delays, reorders and duplicates. Each simulated millisecond a
//! bot (the test's player) may act on every running endpoint, as a game's input would.

use crate::game::LockstepGame;
use crate::peer::{Peer, PeerConfig};
use crate::relay_client::{RelayClient, RelayClientConfig};
use crate::relay_msg::ClientMessage;
use crate::relay_server::{RelayConfig, RelayServer};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use v12_netsim::{Endpoint, Harness, Network};
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

impl LinkConfig {
    /// The one network emulator's description of this link: latency in
    /// `latency_ms..=latency_ms + jitter_ms` (netsim's jitter is `±`, so the centre moves up).
    /// A reliable link resends a lost datagram one retransmission timeout (about an RTT) later.
    fn emulated(&self, reliable: bool) -> v12_netsim::LinkConfig {
        let half = u32::try_from(self.jitter_ms / 2).unwrap_or(u32::MAX);
        let base = u32::try_from(self.latency_ms).unwrap_or(u32::MAX).saturating_add(half);
        let rto = 2 * self.latency_ms + self.jitter_ms + 20;
        v12_netsim::LinkConfig {
            latency_ms: base,
            jitter_ms: half,
            duplicate_chance: if reliable { 0.0 } else { self.duplicate },
            retransmit_ms: reliable.then(|| u32::try_from(rto).unwrap_or(u32::MAX)),
            ..v12_netsim::LinkConfig::default()
        }
        .with_loss(if reliable { self.loss.min(0.9) } else { self.loss })
    }
}

impl From<v12_netsim::LinkConfig> for LinkConfig {
    /// One of netsim's presets (`good`, `average`, `poor`) as a lockstep link: the same delay
    /// range and uniform loss (a bursty loss model counts as its mean rate).
    fn from(c: v12_netsim::LinkConfig) -> Self {
        let loss = match c.loss {
            v12_netsim::LossModel::None => 0.0,
            v12_netsim::LossModel::Uniform(p) => p,
            v12_netsim::LossModel::GilbertElliott(ge) => ge.mean_loss_rate(),
        };
        Self {
            latency_ms: u64::from(c.latency_ms.saturating_sub(c.jitter_ms)),
            jitter_ms: 2 * u64::from(c.jitter_ms),
            loss,
            duplicate: c.duplicate_chance,
        }
    }
}

/// A node of the relay world: the server (node 0) or client `index` (node `index + 1`).
#[derive(Debug)]
pub enum RelayNode<G: LockstepGame> {
    Server(RelayServer),
    Client {
        index: usize,
        client: RelayClient<G>,
        /// A frozen client neither runs nor sends nor receives (a hung or lagging machine).
        frozen: bool,
    },
}

impl<G: LockstepGame> Endpoint for RelayNode<G> {
    type Addr = usize;

    fn addr(&self) -> usize {
        match self {
            RelayNode::Server(_) => 0,
            RelayNode::Client { index, .. } => index + 1,
        }
    }

    fn handle_datagram(&mut self, now: u64, from: usize, data: &[u8]) {
        match self {
            // A frozen machine's messages already in flight still arrive.
            RelayNode::Server(s) => s.handle_datagram(now, u8::try_from(from).unwrap_or(u8::MAX), data),
            RelayNode::Client { client, frozen: false, .. } => client.handle_datagram(now, data),
            RelayNode::Client { .. } => {}
        }
    }

    fn poll_transmit(&mut self, _now: u64) -> Option<(usize, Vec<u8>)> {
        match self {
            RelayNode::Server(s) => s.poll_transmit().map(|(to, msg)| (usize::from(to), msg.encode())),
            RelayNode::Client { client, frozen: false, .. } => {
                client.poll_transmit().map(|m| (0, m.encode()))
            }
            RelayNode::Client { .. } => None,
        }
    }

    fn poll_timeout(&self) -> Option<u64> {
        match self {
            RelayNode::Server(s) => s.next_wakeup(),
            RelayNode::Client { client, frozen: false, .. } => client.next_wakeup(),
            RelayNode::Client { .. } => None,
        }
    }

    fn handle_timeout(&mut self, now: u64) {
        match self {
            RelayNode::Server(s) => s.handle_timeout(now),
            RelayNode::Client { client, frozen: false, .. } => client.poll(now),
            RelayNode::Client { .. } => {}
        }
    }
}

/// A relay server (endpoint 0) and its clients (endpoints 1..), on a simulated clock.
#[derive(Debug)]
pub struct RelayWorld<G: LockstepGame> {
    h: Harness<RelayNode<G>>,
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
        for index in 0..humans {
            if let Some(p) = server.add_player(&format!("player{}", index + 1)) {
                server.set_rtt(p, (2 * link.latency_ms + link.jitter_ms) as u32);
            }
            clients.push(RelayNode::Client {
                index,
                client: RelayClient::new(client.clone()),
                frozen: false,
            });
        }
        let nodes = std::iter::once(RelayNode::Server(server)).chain(clients).collect();
        let h = Harness::new(nodes, v12_netsim::LinkConfig::default(), seed ^ 0x5EED);
        let mut w = Self { h };
        w.set_links(link);
        w
    }

    /// Simulated time (ms).
    pub fn now(&self) -> u64 {
        self.h.now()
    }

    pub fn server(&self) -> &RelayServer {
        match self.h.node(0) {
            RelayNode::Server(s) => s,
            RelayNode::Client { .. } => unreachable!("node 0 is the server"),
        }
    }

    pub fn server_mut(&mut self) -> &mut RelayServer {
        match self.h.node_mut(0) {
            RelayNode::Server(s) => s,
            RelayNode::Client { .. } => unreachable!("node 0 is the server"),
        }
    }

    /// Client `i` is player `i + 1`.
    pub fn client(&self, i: usize) -> &RelayClient<G> {
        match self.h.node(i + 1) {
            RelayNode::Client { client, .. } => client,
            RelayNode::Server(_) => unreachable!("nodes 1.. are clients"),
        }
    }

    pub fn client_mut(&mut self, i: usize) -> &mut RelayClient<G> {
        match self.h.node_mut(i + 1) {
            RelayNode::Client { client, .. } => client,
            RelayNode::Server(_) => unreachable!("nodes 1.. are clients"),
        }
    }

    /// Every client, player 1 first.
    pub fn clients(&self) -> impl Iterator<Item = &RelayClient<G>> {
        self.h.nodes().iter().filter_map(|n| match n {
            RelayNode::Client { client, .. } => Some(client),
            RelayNode::Server(_) => None,
        })
    }

    /// Freeze (or thaw) client `i`.
    pub fn freeze(&mut self, i: usize, frozen: bool) {
        if let RelayNode::Client { frozen: f, .. } = self.h.node_mut(i + 1) {
            *f = frozen;
        }
    }

    /// Every client's link (both directions) behaves as `link` from now on.
    pub fn set_links(&mut self, link: LinkConfig) {
        for i in 1..self.h.nodes().len() {
            self.h.network_mut().set_both(0, i, link.emulated(true));
        }
    }

    /// Payload bytes each endpoint (server first) handed to its links, resends included.
    pub fn sent_bytes(&self) -> Vec<u64> {
        sent_bytes(self.h.network(), self.h.nodes().len())
    }

    /// The emulated network (its per-link statistics).
    pub fn network(&self) -> &Network<usize> {
        self.h.network()
    }

    /// Starts the game.
    pub fn start(&mut self) {
        let now = self.now();
        self.server_mut().start(now);
        self.h.flush();
    }

    /// Advances one millisecond: `bot` may issue commands on each running client (input is
    /// read at the start of the millisecond, so a command issued on a GF boundary makes that
    /// GF), then the deliveries and timers due run and every running client runs its GFs.
    pub fn step(&mut self, bot: &mut dyn FnMut(u64, usize, &mut RelayClient<G>)) {
        let now = self.now() + 1;
        for node in self.h.nodes_mut() {
            if let RelayNode::Client { index, client, frozen: false } = node {
                bot(now, *index, client);
            }
        }
        self.h.run_until(now);
        for node in self.h.nodes_mut() {
            if let RelayNode::Client { client, frozen: false, .. } = node {
                client.poll(now);
            }
        }
        self.h.flush();
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

/// Bytes each of `nodes` endpoints put on its links, resends included.
fn sent_bytes(network: &Network<usize>, nodes: usize) -> Vec<u64> {
    (0..nodes).map(|i| network.stats_from(&i).wire_bytes()).collect()
}

/// The simulated address of peer endpoint `i`.
pub fn peer_addr(i: usize) -> SocketAddr {
    SocketAddr::new(IpAddr::V4(Ipv4Addr::new(10, 0, 0, (i + 1) as u8)), 7000)
}

/// The endpoint behind a [`peer_addr`].
fn peer_index(addr: SocketAddr) -> Option<usize> {
    match addr.ip() {
        IpAddr::V4(v4) if addr.port() == 7000 => (v4.octets()[3] as usize).checked_sub(1),
        _ => None,
    }
}

/// A peer of the peer-to-peer world (endpoint `index`, at [`peer_addr`]`(index)`).
#[derive(Debug)]
pub struct PeerNode<G: LockstepGame> {
    index: usize,
    pub peer: Peer<G>,
    /// A silent peer neither runs, sends nor receives.
    pub silent: bool,
}

impl<G: LockstepGame> Endpoint for PeerNode<G> {
    type Addr = usize;

    fn addr(&self) -> usize {
        self.index
    }

    fn handle_datagram(&mut self, now: u64, from: usize, data: &[u8]) {
        if !self.silent {
            self.peer.handle_datagram(now, peer_addr(from), data);
        }
    }

    fn poll_transmit(&mut self, _now: u64) -> Option<(usize, Vec<u8>)> {
        if self.silent {
            return None;
        }
        loop {
            let (to, msg) = self.peer.poll_transmit()?;
            if let Some(j) = peer_index(to) {
                return Some((j, msg.encode()));
            }
        }
    }

    fn poll_timeout(&self) -> Option<u64> {
        if self.silent { None } else { self.peer.next_wakeup() }
    }

    fn handle_timeout(&mut self, now: u64) {
        if !self.silent {
            self.peer.poll(now);
        }
    }
}

/// Peers on datagram links (endpoint `i` at [`peer_addr`]`(i)`); peer 0 is the master.
#[derive(Debug)]
pub struct PeerWorld<G: LockstepGame> {
    h: Harness<PeerNode<G>>,
    /// Link from each peer (outgoing).
    links: Vec<LinkConfig>,
}

impl<G: LockstepGame> PeerWorld<G> {
    /// A master and `n - 1` joiners, all saying HELO to the master at time 0.
    pub fn new(config: PeerConfig, n: usize, link: LinkConfig, seed: u64) -> Self {
        let mut peers = vec![Peer::new_master(config.clone(), "peer1")];
        for i in 1..n {
            peers.push(Peer::join(config.clone(), &format!("peer{}", i + 1), peer_addr(0), 0));
        }
        let nodes =
            peers.into_iter().enumerate().map(|(index, peer)| PeerNode { index, peer, silent: false });
        let h = Harness::new(nodes.collect(), v12_netsim::LinkConfig::default(), seed);
        let mut w = Self { h, links: Vec::new() };
        w.set_links(link);
        w
    }

    /// Simulated time (ms).
    pub fn now(&self) -> u64 {
        self.h.now()
    }

    pub fn peer(&self, i: usize) -> &Peer<G> {
        &self.h.node(i).peer
    }

    pub fn peer_mut(&mut self, i: usize) -> &mut Peer<G> {
        &mut self.h.node_mut(i).peer
    }

    /// Every peer, the master first.
    pub fn peers(&self) -> impl Iterator<Item = &Peer<G>> {
        self.h.nodes().iter().map(|n| &n.peer)
    }

    pub fn len(&self) -> usize {
        self.h.nodes().len()
    }

    pub fn is_empty(&self) -> bool {
        self.h.nodes().is_empty()
    }

    /// Silence (or wake) peer `i`.
    pub fn silence(&mut self, i: usize, silent: bool) {
        self.h.node_mut(i).silent = silent;
    }

    /// Another peer (a late joiner) behind `link`; returns its endpoint.
    pub fn add_peer(&mut self, peer: Peer<G>, link: LinkConfig) -> usize {
        let index = self.len();
        self.h.add_node(PeerNode { index, peer, silent: false });
        self.links.push(link);
        self.apply_links();
        index
    }

    /// Every peer's outgoing link behaves as `link` from now on.
    pub fn set_links(&mut self, link: LinkConfig) {
        self.links = vec![link; self.len()];
        self.apply_links();
    }

    fn apply_links(&mut self) {
        for (from, link) in self.links.iter().enumerate() {
            for to in (0..self.links.len()).filter(|&to| to != from) {
                self.h.network_mut().set_link(from, to, link.emulated(false));
            }
        }
    }

    /// Payload bytes each peer handed to its links.
    pub fn sent_bytes(&self) -> Vec<u64> {
        sent_bytes(self.h.network(), self.len())
    }

    /// The emulated network (its per-link statistics).
    pub fn network(&self) -> &Network<usize> {
        self.h.network()
    }

    /// Advances one millisecond: `bot` may act on each running peer (input first, as in
    /// [`RelayWorld::step`]), then the deliveries and timers due run and every running peer
    /// runs its sub-turns.
    pub fn step(&mut self, bot: &mut dyn FnMut(u64, usize, &mut Peer<G>)) {
        let now = self.now() + 1;
        for node in self.h.nodes_mut().iter_mut().filter(|n| !n.silent) {
            bot(now, node.index, &mut node.peer);
        }
        self.h.run_until(now);
        for node in self.h.nodes_mut().iter_mut().filter(|n| !n.silent) {
            node.peer.poll(now);
        }
        self.h.flush();
    }

    /// Runs for `ms` simulated milliseconds.
    pub fn run_for(&mut self, ms: u64, bot: &mut dyn FnMut(u64, usize, &mut Peer<G>)) {
        for _ in 0..ms {
            self.step(bot);
        }
    }
}
