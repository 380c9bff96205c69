//! A deterministic in-memory harness: a simulated millisecond clock and seeded links (the one
//! network emulator, `v12-netsim`) between sans-IO lockstep endpoints. The relay mode gets a reliable ordered channel with
//! variable latency (what NetConnection's guaranteed-ordered events give: a lost packet
//! shows up as a retransmission delay, never as a gap); the peer-to-peer mode gets a raw
//! datagram link that loses, delays, reorders and duplicates.

use crate::game::LockstepGame;
use crate::peer::{Peer, PeerConfig};
use crate::relay_client::{RelayClient, RelayClientConfig};
use crate::relay_msg::ClientMessage;
use crate::relay_server::{RelayConfig, RelayServer};
use std::collections::{BTreeMap, VecDeque};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use v12_netsim::Network;

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
    fn emulated(&self, reliable: bool) -> v12_netsim::LinkConfig {
        let half = u32::try_from(self.jitter_ms / 2).unwrap_or(u32::MAX);
        let base = u32::try_from(self.latency_ms).unwrap_or(u32::MAX).saturating_add(half);
        v12_netsim::LinkConfig {
            latency_ms: base,
            jitter_ms: half,
            duplicate_chance: if reliable { 0.0 } else { self.duplicate },
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

/// Seeded links between numbered endpoints, over the one network emulator
/// ([`v12_netsim::Network`]). In the reliable model a lost datagram is sent again one
/// retransmission timeout (about an RTT) later and each direction delivers in send order,
/// as NetConnection's guaranteed-ordered events do.
#[derive(Debug)]
pub struct Links {
    network: Network<usize>,
    reliable: bool,
    /// Reliable model: the next sequence number to send and to deliver on each direction,
    /// and what arrived ahead of its turn.
    next_send: BTreeMap<(usize, usize), u64>,
    next_deliver: BTreeMap<(usize, usize), u64>,
    early: BTreeMap<(usize, usize, u64), Vec<u8>>,
    ready: VecDeque<(usize, usize, Vec<u8>)>,
    /// Bytes handed to the net by each endpoint (retransmissions included on reliable links).
    pub sent_bytes: Vec<u64>,
    /// Messages each endpoint sent.
    pub sent_messages: Vec<u64>,
}

/// Most sends of one reliable message (a link losing 90 % still delivers, late).
const MAX_ATTEMPTS: u32 = 64;

impl Links {
    /// `endpoints` endpoints; `reliable` for the ordered-channel model.
    pub fn new(endpoints: usize, reliable: bool, seed: u64) -> Self {
        Self {
            network: Network::new(v12_netsim::LinkConfig::default(), seed),
            reliable,
            next_send: BTreeMap::new(),
            next_deliver: BTreeMap::new(),
            early: BTreeMap::new(),
            ready: VecDeque::new(),
            sent_bytes: vec![0; endpoints],
            sent_messages: vec![0; endpoints],
        }
    }

    /// The emulated network (its per-link statistics).
    pub fn network(&self) -> &Network<usize> {
        &self.network
    }

    /// Sends `bytes` from `from` to `to` at `now` over `link`.
    pub fn send(&mut self, now: u64, from: usize, to: usize, bytes: Vec<u8>, link: &LinkConfig) {
        if from >= self.sent_bytes.len() {
            return;
        }
        self.sent_messages[from] += 1;
        self.sent_bytes[from] += bytes.len() as u64;
        self.network.set_link(from, to, link.emulated(self.reliable));
        if !self.reliable {
            self.network.send(now, from, to, &bytes);
            return;
        }
        let seq = self.next_send.entry((from, to)).or_insert(0);
        let mut framed = seq.to_le_bytes().to_vec();
        *seq += 1;
        framed.extend_from_slice(&bytes);
        let rto = 2 * link.latency_ms + link.jitter_ms + 20;
        let mut at = now;
        for _ in 0..MAX_ATTEMPTS {
            let lost_before = self.network.stats(&from, &to).dropped();
            self.network.send(at, from, to, &framed);
            if self.network.stats(&from, &to).dropped() == lost_before {
                return;
            }
            at += rto;
            self.sent_bytes[from] += bytes.len() as u64;
        }
        // Past the cap the message goes through unconditioned (a link that bad is a bug in
        // the test's setup, not something to hang on).
        self.network.set_link(from, to, v12_netsim::LinkConfig::clean(0));
        self.network.send(at, from, to, &framed);
    }

    /// The next delivery due at or before `now`: (from, to, bytes).
    pub fn deliver(&mut self, now: u64) -> Option<(usize, usize, Vec<u8>)> {
        loop {
            if let Some(d) = self.ready.pop_front() {
                return Some(d);
            }
            let (from, to, data) = self.network.pop_due(now)?;
            if !self.reliable {
                return Some((from, to, data));
            }
            let Some((head, body)) = data.split_first_chunk::<8>() else { continue };
            self.early.insert((from, to, u64::from_le_bytes(*head)), body.to_vec());
            let next = self.next_deliver.entry((from, to)).or_insert(0);
            while let Some(body) = self.early.remove(&(from, to, *next)) {
                self.ready.push_back((from, to, body));
                *next += 1;
            }
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
    pub net: Links,
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
            net: Links::new(humans + 1, true, seed ^ 0x5EED),
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
            } else if let Some(c) = self.clients.get_mut(to - 1)
                && !self.frozen[to - 1]
            {
                c.handle_datagram(now, &bytes);
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
    pub net: Links,
}

impl<G: LockstepGame> PeerWorld<G> {
    /// A master and `n - 1` joiners, all saying HELO to the master at time 0.
    pub fn new(config: PeerConfig, n: usize, link: LinkConfig, seed: u64) -> Self {
        let mut peers = vec![Peer::new_master(config.clone(), "peer1")];
        for i in 1..n {
            peers.push(Peer::join(config.clone(), &format!("peer{}", i + 1), peer_addr(0), 0));
        }
        Self { now: 0, peers, links: vec![link; n], silent: vec![false; n], net: Links::new(n, false, seed) }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reliable_model_delivers_everything_in_order_and_counts_resends() {
        let link = LinkConfig { latency_ms: 20, jitter_ms: 30, loss: 0.3, duplicate: 0.0 };
        let mut links = Links::new(2, true, 5);
        for i in 0..200u32 {
            links.send(u64::from(i), 0, 1, i.to_le_bytes().to_vec(), &link);
        }
        let mut got = Vec::new();
        for now in 0..100_000 {
            while let Some((from, to, bytes)) = links.deliver(now) {
                assert_eq!((from, to), (0, 1));
                got.push(u32::from_le_bytes(bytes.try_into().unwrap()));
            }
        }
        assert_eq!(got, (0..200).collect::<Vec<_>>());
        assert!(links.sent_bytes[0] > 200 * 4, "losses cost resends");
        assert_eq!(links.sent_messages[0], 200);
    }

    #[test]
    fn the_datagram_model_loses_and_keeps_the_delay_range() {
        let link = LinkConfig { latency_ms: 40, jitter_ms: 20, loss: 0.5, duplicate: 0.0 };
        let mut links = Links::new(2, false, 6);
        for i in 0..400u32 {
            links.send(0, 1, 0, i.to_le_bytes().to_vec(), &link);
        }
        assert_eq!(links.deliver(39), None, "nothing arrives before the latency");
        let mut n = 0;
        for now in 40..=60 {
            while links.deliver(now).is_some() {
                n += 1;
            }
        }
        assert!((100..300).contains(&n), "{n} of 400 through a 50 % loss");
        assert_eq!(links.network().queued(), 0, "everything is due by latency + jitter");
    }
}
