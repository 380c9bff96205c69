//! Deterministic test harness: one server and N clients (sans-IO interfaces) as endpoints of
//! the one network emulator's harness (`v12_netsim::Harness`: a simulated clock that jumps to
//! the next wake-up, seeded lossy / bursty / duplicating / jittery links between them).

#![allow(dead_code)]

use bytes::Bytes;
use std::net::SocketAddr;
use std::sync::Arc;
use v12_bitstream::{BitReader, BitWriter};
use v12_netobject::ghost::{GhostArena, GhostWorld, NoObjects};
use v12_netobject::*;
use v12_netsim::{Harness, LinkStats};

/// Link behaviour, the same both ways.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkParams {
    pub latency_ms: u64,
    pub jitter_ms: u64,
    pub loss: f64,
    /// Chance per datagram to enter a loss burst, and the burst length in datagrams.
    pub burst_chance: f64,
    pub burst_len: u32,
    pub duplicate: f64,
}

impl LinkParams {
    pub const CLEAN: Self =
        Self { latency_ms: 20, jitter_ms: 0, loss: 0.0, burst_chance: 0.0, burst_len: 0, duplicate: 0.0 };
    pub fn lossy(loss: f64) -> Self {
        Self { loss, ..Self::CLEAN }
    }
}

impl LinkParams {
    /// The same link on the one network emulator: jitter `0..=j` as netsim's `±j/2` around
    /// `latency + j/2`; a loss burst as the Gilbert–Elliott bad state (every datagram lost,
    /// left with chance `1 / burst_len`), uniform loss in the good state.
    pub fn to_netsim(self) -> v12_netsim::LinkConfig {
        let loss = if self.burst_chance > 0.0 && self.burst_len > 0 {
            v12_netsim::LossModel::GilbertElliott(v12_netsim::GilbertElliott {
                p_good_to_bad: self.burst_chance,
                p_bad_to_good: 1.0 / f64::from(self.burst_len),
                loss_in_good: self.loss,
                loss_in_bad: 1.0,
            })
        } else if self.loss > 0.0 {
            v12_netsim::LossModel::Uniform(self.loss)
        } else {
            v12_netsim::LossModel::None
        };
        v12_netsim::LinkConfig {
            loss,
            latency_ms: (self.latency_ms + self.jitter_ms / 2) as u32,
            jitter_ms: (self.jitter_ms / 2) as u32,
            duplicate_chance: self.duplicate,
            ..v12_netsim::LinkConfig::default()
        }
    }
}

/// A test event: who sent it, its number, and optionally a tagged string.
#[derive(Debug)]
pub struct Msg<const K: u8> {
    pub sender: u32,
    pub n: u32,
    pub tag: Option<StringHandle>,
    pub text: Option<Arc<str>>,
}

impl<const K: u8> Msg<K> {
    pub fn new(sender: u32, n: u32, tag: Option<StringHandle>) -> Box<Self> {
        Box::new(Self { sender, n, tag, text: None })
    }
}

impl<const K: u8> NetEvent for Msg<K> {
    fn guarantee(&self) -> Guarantee {
        match K {
            0 => Guarantee::Unguaranteed,
            1 => Guarantee::Guaranteed,
            _ => Guarantee::GuaranteedOrdered,
        }
    }
    fn pack(&self, w: &mut BitWriter, ctx: &mut PackContext<'_>) {
        w.write_int(self.sender, 16);
        w.write_int(self.n, 32);
        if let Some(tag) = &self.tag {
            w.write_flag(true);
            ctx.write_string_tag(w, tag);
        } else {
            w.write_flag(false);
        }
    }
}

impl<const K: u8> NetEventClass for Msg<K> {
    const NAME: &'static str = match K {
        0 => "UnguaranteedMsg",
        1 => "GuaranteedMsg",
        _ => "OrderedMsg",
    };
    fn unpack(r: &mut BitReader<'_>, ctx: &mut UnpackContext<'_>) -> v12_netobject::Result<Self> {
        let sender = r.read_int(16)?;
        let n = r.read_int(32)?;
        let text = if r.read_flag()? { Some(ctx.read_string_tag(r)?) } else { None };
        Ok(Self { sender, n, tag: None, text })
    }
}

pub type Unreliable = Msg<0>;
pub type Reliable = Msg<1>;
pub type Ordered = Msg<2>;

/// A server-to-client only event, to test direction checks.
#[derive(Debug)]
pub struct ServerOnly;
impl NetEvent for ServerOnly {
    fn pack(&self, _: &mut BitWriter, _: &mut PackContext<'_>) {}
}
impl NetEventClass for ServerOnly {
    const NAME: &'static str = "ServerOnly";
    const DIRECTION: EventDirection = EventDirection::ServerToClient;
    fn unpack(_: &mut BitReader<'_>, _: &mut UnpackContext<'_>) -> v12_netobject::Result<Self> {
        Ok(Self)
    }
}

/// An event whose body its reader refuses (a "malformed" event from a buggy client).
#[derive(Debug)]
pub struct Poison;
impl NetEvent for Poison {
    fn pack(&self, w: &mut BitWriter, _: &mut PackContext<'_>) {
        w.write_int(0xBAD, 12);
    }
}
impl NetEventClass for Poison {
    const NAME: &'static str = "Poison";
    fn unpack(r: &mut BitReader<'_>, _: &mut UnpackContext<'_>) -> v12_netobject::Result<Self> {
        let v = r.read_int(12)?;
        Err(NetError::BadEvent(format!("poison value {v:#x}")))
    }
}

pub fn registry() -> Arc<NetClassRegistry> {
    Arc::new(
        NetClassRegistryBuilder::new()
            .register::<Unreliable>()
            .register::<Reliable>()
            .register::<Ordered>()
            .register::<ServerOnly>()
            .register::<Poison>()
            .build()
            .expect("registry"),
    )
}

pub fn addr(i: usize) -> SocketAddr {
    SocketAddr::from(([10, 0, (i >> 8) as u8, i as u8], 28000))
}

/// The node index behind an address made by [`addr`].
pub fn node_index(a: SocketAddr) -> usize {
    match a.ip() {
        std::net::IpAddr::V4(v4) => usize::from(v4.octets()[2]) * 256 + usize::from(v4.octets()[3]),
        std::net::IpAddr::V6(_) => usize::MAX,
    }
}

pub fn entropy(seed: u64) -> [u8; 32] {
    let mut e = [0u8; 32];
    for (i, b) in e.iter_mut().enumerate() {
        *b = (seed.rotate_left(i as u32 * 7) as u8) ^ (i as u8).wrapping_mul(31);
    }
    e
}

/// A received test event: (connection, kind, sender, n, tag text).
pub type SeenEvent = (ConnectionId, u8, u32, u32, Option<Arc<str>>);

/// What one endpoint saw.
#[derive(Default, Debug)]
pub struct Seen {
    pub connected: Vec<ConnectionId>,
    pub failed: Vec<String>,
    pub disconnected: Vec<(ConnectionId, String, bool)>,
    /// (connection, kind, sender, n, text)
    pub events: Vec<SeenEvent>,
    /// Simulated time each entry of `events` was received.
    pub times: Vec<u64>,
    /// Handshake answers received: (time, client nonce, the handshake itself).
    pub handshakes: Vec<(u64, u64, Handshake)>,
    /// The client nonce of the last handshake datagram this endpoint sent.
    pub sent_nonce: Option<u64>,
}

/// The client nonce a handshake datagram carries.
pub fn handshake_nonce(h: &Handshake) -> u64 {
    match h {
        Handshake::ChallengeRequest { client_nonce }
        | Handshake::ChallengeResponse { client_nonce, .. }
        | Handshake::ConnectRequest { client_nonce, .. }
        | Handshake::ConnectAccept { client_nonce, .. }
        | Handshake::ConnectReject { client_nonce, .. }
        | Handshake::Disconnect { client_nonce, .. } => *client_nonce,
    }
}

/// One endpoint: a NetInterface, what it saw, the ghosts it receives and (the server) the
/// objects it ghosts.
pub struct Node<G> {
    index: usize,
    /// The clock at the last call (`poll_timeout` takes none).
    now: u64,
    pub iface: NetInterface,
    pub seen: Seen,
    /// Ghosts this node receives.
    pub arena: GhostArena,
    /// Objects this node ghosts (the server's world; `None` ghosts nothing).
    pub objects: Option<G>,
    /// Keep received events whole in `raw` instead of recording them in `seen`.
    pub keep_raw: bool,
    pub raw: Vec<(ConnectionId, Box<dyn NetEvent>)>,
}

impl<G: GhostWorld> Node<G> {
    fn drain_events(&mut self) {
        while let Some(ev) = self.iface.poll_event() {
            if self.keep_raw
                && let InterfaceEvent::EventReceived { connection, event } = ev
            {
                self.raw.push((connection, event));
                continue;
            }
            record(&mut self.seen, ev, self.now);
        }
    }
}

impl<G: GhostWorld> v12_netsim::Endpoint for Node<G> {
    type Addr = SocketAddr;

    fn addr(&self) -> SocketAddr {
        addr(self.index)
    }

    fn handle_datagram(&mut self, now: u64, from: SocketAddr, data: &[u8]) {
        self.now = now;
        if data.first().is_some_and(|b| b & 1 == 0)
            && let Ok(h) = Handshake::decode(data)
        {
            self.seen.handshakes.push((now, handshake_nonce(&h), h));
        }
        self.iface.handle_datagram(now, from, data, &mut self.arena);
        self.drain_events();
    }

    fn poll_transmit(&mut self, now: u64) -> Option<(SocketAddr, Vec<u8>)> {
        self.now = now;
        let objects: &dyn GhostWorld = match &self.objects {
            Some(o) => o,
            None => &NoObjects,
        };
        let sent = self.iface.poll_transmit(now, objects).map(|(to, data)| (to, data.to_vec()));
        if let Some((_, data)) = &sent
            && data.first().is_some_and(|b| b & 1 == 0)
            && let Ok(h) = Handshake::decode(data)
        {
            self.seen.sent_nonce = Some(handshake_nonce(&h));
        }
        if sent.is_none() {
            self.drain_events();
        }
        sent
    }

    fn poll_timeout(&self) -> Option<u64> {
        self.iface.poll_timeout(self.now)
    }

    fn handle_timeout(&mut self, now: u64) {
        self.now = now;
        self.iface.handle_timeout(now);
        self.drain_events();
    }
}

/// Endpoint 0 is the server (ghosting `G`), 1..=N the clients.
pub struct World<G: GhostWorld = NoObjects> {
    h: Harness<Node<G>>,
}

impl World {
    pub fn new(
        clients: usize,
        server_cfg: InterfaceConfig,
        client_cfg: InterfaceConfig,
        link: LinkParams,
        seed: u64,
    ) -> Self {
        Self::with_registries(clients, server_cfg, client_cfg, link, seed, registry(), registry())
    }

    pub fn with_registries(
        clients: usize,
        server_cfg: InterfaceConfig,
        client_cfg: InterfaceConfig,
        link: LinkParams,
        seed: u64,
        server_reg: Arc<NetClassRegistry>,
        client_reg: Arc<NetClassRegistry>,
    ) -> Self {
        World::build(None, clients, [server_cfg, client_cfg], link, seed, [server_reg, client_reg])
    }
}

impl<G: GhostWorld> World<G> {
    /// A world whose server ghosts `objects` (reach them with [`World::objects_mut`]).
    pub fn serving(
        objects: G,
        clients: usize,
        link: LinkParams,
        seed: u64,
        registries: Arc<NetClassRegistry>,
    ) -> Self {
        let cfg = InterfaceConfig::default();
        World::build(Some(objects), clients, [cfg.clone(), cfg], link, seed, [registries.clone(), registries])
    }

    fn build(
        objects: Option<G>,
        clients: usize,
        [server_cfg, client_cfg]: [InterfaceConfig; 2],
        link: LinkParams,
        seed: u64,
        [server_reg, client_reg]: [Arc<NetClassRegistry>; 2],
    ) -> Self {
        let node = |index: usize, iface: NetInterface, objects: Option<G>| Node {
            index,
            now: 0,
            iface,
            seen: Seen::default(),
            arena: GhostArena::new(),
            objects,
            keep_raw: false,
            raw: Vec::new(),
        };
        let server_cfg = InterfaceConfig { accept_connections: true, ..server_cfg };
        let mut nodes = vec![node(0, NetInterface::new(server_cfg, server_reg, entropy(seed)), objects)];
        for i in 1..=clients {
            let entropy = entropy(seed ^ (i as u64 * 0x1234_5678));
            nodes.push(node(i, NetInterface::new(client_cfg.clone(), client_reg.clone(), entropy), None));
        }
        Self { h: Harness::new(nodes, link.to_netsim(), seed ^ 0xABCD) }
    }

    pub fn now(&self) -> u64 {
        self.h.now()
    }

    /// Endpoints, the server included.
    pub fn len(&self) -> usize {
        self.h.nodes().len()
    }

    pub fn node(&self, i: usize) -> &NetInterface {
        &self.h.node(i).iface
    }

    pub fn node_mut(&mut self, i: usize) -> &mut NetInterface {
        &mut self.h.node_mut(i).iface
    }

    /// The whole endpoint (its arena, objects and raw events beside the interface).
    pub fn endpoint_mut(&mut self, i: usize) -> &mut Node<G> {
        self.h.node_mut(i)
    }

    pub fn seen(&self, i: usize) -> &Seen {
        &self.h.node(i).seen
    }

    /// What every endpoint saw, the server first.
    pub fn seen_all(&self) -> impl Iterator<Item = &Seen> {
        self.h.nodes().iter().map(|n| &n.seen)
    }

    /// The ghosts node `i` received.
    pub fn arena(&self, i: usize) -> &GhostArena {
        &self.h.node(i).arena
    }

    /// The server's ghosted objects.
    pub fn objects(&self) -> &G {
        self.h.node(0).objects.as_ref().expect("a world built with objects")
    }

    pub fn objects_mut(&mut self) -> &mut G {
        self.h.node_mut(0).objects.as_mut().expect("a world built with objects")
    }

    /// Every link behaves as `link` from now on.
    pub fn set_link(&mut self, link: LinkParams) {
        self.h.network_mut().set_default(link.to_netsim());
    }

    /// Cut node `i` off (its datagrams vanish both ways) or let it back.
    pub fn mute(&mut self, i: usize, mute: bool) {
        self.h.network_mut().isolate(addr(i), mute);
    }

    /// Cut (or restore) the one-way link from node `from` to node `to`.
    pub fn cut(&mut self, from: usize, to: usize, cut: bool) {
        self.h.network_mut().set_cut(addr(from), addr(to), cut);
    }

    /// Every link's counts together.
    pub fn link_stats(&self) -> LinkStats {
        self.h.network().total_stats()
    }

    /// Move the clock to `t` without running anything, for tests that drive a node by hand.
    pub fn skip_to(&mut self, t: u64) {
        self.h.skip_to(t);
    }

    /// The server's interface, every other endpoint dropped.
    pub fn into_server(self) -> NetInterface {
        self.h.into_nodes().swap_remove(0).iface
    }

    /// Connect every client to the server.
    pub fn connect_all(&mut self) {
        let now = self.now();
        for i in 1..self.len() {
            self.node_mut(i).connect(now, addr(0), Bytes::from(format!("client{i}")));
        }
    }

    /// Handles the next wake-up due by `until`, or moves the clock to `until`.
    pub fn step(&mut self, until: u64) {
        self.h.step(until);
    }

    pub fn run_until(&mut self, t: u64) {
        self.h.run_until(t);
    }

    pub fn run_until_cond(&mut self, limit: u64, mut cond: impl FnMut(&World<G>) -> bool) -> bool {
        while self.now() < limit {
            if cond(self) {
                return true;
            }
            self.step(limit);
        }
        cond(self)
    }

    pub fn client_conn(&self, i: usize) -> Option<ConnectionId> {
        self.seen(i).connected.first().copied()
    }
}

fn record(seen: &mut Seen, ev: InterfaceEvent, now: u64) {
    match ev {
        InterfaceEvent::Connected { connection, .. } => seen.connected.push(connection),
        InterfaceEvent::ConnectFailed { reason, .. } => seen.failed.push(reason),
        InterfaceEvent::Disconnected { connection, reason, by_peer, .. } => {
            seen.disconnected.push((connection, reason, by_peer))
        }
        InterfaceEvent::EventReceived { connection, mut event } => {
            let mut sink: Vec<u32> = Vec::new();
            event.process(connection, &mut sink);
            if let Some(m) = event.downcast_ref::<Unreliable>() {
                seen.events.push((connection, 0, m.sender, m.n, m.text.clone()));
            } else if let Some(m) = event.downcast_ref::<Reliable>() {
                seen.events.push((connection, 1, m.sender, m.n, m.text.clone()));
            } else if let Some(m) = event.downcast_ref::<Ordered>() {
                seen.events.push((connection, 2, m.sender, m.n, m.text.clone()));
            }
            seen.times.resize(seen.events.len(), now);
        }
    }
}
