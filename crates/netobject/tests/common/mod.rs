//! Deterministic test harness: one server and N clients (sans-IO interfaces), a simulated
//! clock that jumps to the next wakeup, and the one network emulator's seeded lossy /
//! bursty / duplicating / jittery link (`v12-netsim`) between them.

#![allow(dead_code)]

use bytes::Bytes;
use std::net::SocketAddr;
use std::sync::Arc;
use v12_bitstream::{BitReader, BitWriter};
use v12_netobject::*;

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

/// A datagram the link hands out.
pub struct InFlight {
    pub to: usize,
    pub from: SocketAddr,
    pub data: Vec<u8>,
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

/// The seeded link between every pair of endpoints: `v12-netsim`'s link with the test's
/// parameters (which a test may change between steps).
pub struct Link {
    pub params: LinkParams,
    link: v12_netsim::Link<(usize, SocketAddr)>,
    applied: Option<LinkParams>,
    pub sent: u64,
    pub dropped: u64,
}

impl Link {
    pub fn new(params: LinkParams, seed: u64) -> Self {
        Self {
            params,
            link: v12_netsim::Link::new(params.to_netsim(), seed),
            applied: Some(params),
            sent: 0,
            dropped: 0,
        }
    }

    pub fn send(&mut self, now: u64, from: SocketAddr, to: usize, data: Bytes) {
        if self.applied != Some(self.params) {
            self.link.set_config(self.params.to_netsim());
            self.applied = Some(self.params);
        }
        self.link.send(now, (to, from), &data);
        let st = self.link.stats();
        self.sent = st.sent;
        self.dropped = st.dropped();
    }

    pub fn next_at(&self) -> Option<u64> {
        self.link.next_release()
    }

    fn pop_due(&mut self, now: u64) -> Option<InFlight> {
        self.link.pop_due(now).map(|((to, from), data)| InFlight { to, from, data })
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
}

/// Endpoint 0 is the server, 1..=N the clients.
pub struct World {
    pub now: u64,
    pub nodes: Vec<NetInterface>,
    pub seen: Vec<Seen>,
    pub link: Link,
    pub delivered: u64,
    /// Nodes cut off from the network (their datagrams vanish both ways).
    pub mute: Vec<bool>,
    /// Nodes whose received events are kept whole in `raw` instead of being recorded.
    pub keep_raw: Vec<bool>,
    pub raw: Vec<(usize, ConnectionId, Box<dyn NetEvent>)>,
    /// Ghost arenas of the nodes a test gives none (ghosts they receive land here).
    pub spare: Vec<ghost::GhostArena>,
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
        let reg = server_reg;
        let mut nodes = vec![NetInterface::new(
            InterfaceConfig { accept_connections: true, ..server_cfg },
            reg.clone(),
            entropy(seed),
        )];
        for i in 0..clients {
            nodes.push(NetInterface::new(
                client_cfg.clone(),
                client_reg.clone(),
                entropy(seed ^ ((i as u64 + 1) * 0x1234_5678)),
            ));
        }
        let seen = (0..=clients).map(|_| Seen::default()).collect();
        Self {
            now: 0,
            nodes,
            seen,
            link: Link::new(link, seed ^ 0xABCD),
            delivered: 0,
            mute: vec![false; clients + 1],
            keep_raw: vec![false; clients + 1],
            raw: Vec::new(),
            spare: (0..=clients).map(|_| ghost::GhostArena::new()).collect(),
        }
    }

    fn index_of(&self, a: SocketAddr) -> Option<usize> {
        (0..self.nodes.len()).find(|&i| addr(i) == a)
    }

    /// Connect every client to the server.
    pub fn connect_all(&mut self) {
        for i in 1..self.nodes.len() {
            self.nodes[i].connect(self.now, addr(0), Bytes::from(format!("client{i}")));
        }
    }

    /// Moves datagrams, events and timers at the current time until nothing more happens now.
    pub fn pump(&mut self) {
        self.pump_with(None, &mut []);
    }

    /// [`Self::pump`] with ghosting: the server writes ghosts of `server` and client `i`
    /// applies them to `clients[i - 1]` (clients beyond the slice get none).
    pub fn pump_with(&mut self, server: Option<&dyn ghost::GhostWorld>, clients: &mut [ghost::GhostArena]) {
        for _ in 0..10_000 {
            let mut progress = false;
            for i in 0..self.nodes.len() {
                self.nodes[i].handle_timeout(self.now);
                loop {
                    let objects = match server {
                        Some(w) if i == 0 => w,
                        _ => &ghost::NoObjects,
                    };
                    let next = self.nodes[i].poll_transmit(self.now, objects);
                    let Some((to, data)) = next else { break };
                    progress = true;
                    if let Some(j) = self.index_of(to)
                        && !self.mute[i]
                        && !self.mute[j]
                    {
                        self.link.send(self.now, addr(i), j, data);
                    }
                }
                while let Some(ev) = self.nodes[i].poll_event() {
                    progress = true;
                    if self.keep_raw[i]
                        && let InterfaceEvent::EventReceived { connection, event } = ev
                    {
                        self.raw.push((i, connection, event));
                        continue;
                    }
                    record(&mut self.seen[i], ev, self.now);
                }
            }
            while let Some(f) = self.link.pop_due(self.now) {
                progress = true;
                self.delivered += 1;
                let world = match clients.get_mut(f.to.wrapping_sub(1)) {
                    Some(world) if f.to > 0 => world,
                    _ => &mut self.spare[f.to],
                };
                self.nodes[f.to].handle_datagram(self.now, f.from, &f.data, world);
            }
            if !progress {
                return;
            }
        }
        panic!("no quiescence at t={}", self.now);
    }

    /// Jumps to the next wakeup (or `until`) and pumps.
    pub fn step(&mut self, until: u64) {
        self.step_with(until, None, &mut []);
    }

    /// [`Self::step`] with ghosting (see [`Self::pump_with`]).
    pub fn step_with(
        &mut self,
        until: u64,
        server: Option<&dyn ghost::GhostWorld>,
        clients: &mut [ghost::GhostArena],
    ) {
        self.pump_with(server, clients);
        let mut next = self.link.next_at();
        for n in &self.nodes {
            if let Some(t) = n.poll_timeout(self.now) {
                next = Some(next.map_or(t, |x| x.min(t)));
            }
        }
        let next = next.unwrap_or(until).min(until).max(self.now + 1);
        self.now = next;
        self.pump_with(server, clients);
    }

    pub fn run_until(&mut self, t: u64) {
        while self.now < t {
            self.step(t);
        }
    }

    pub fn run_until_cond(&mut self, limit: u64, mut cond: impl FnMut(&World) -> bool) -> bool {
        while self.now < limit {
            if cond(self) {
                return true;
            }
            self.step(limit);
        }
        cond(self)
    }

    pub fn client_conn(&self, i: usize) -> Option<ConnectionId> {
        self.seen[i].connected.first().copied()
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
