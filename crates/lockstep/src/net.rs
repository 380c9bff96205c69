//! Lockstep over `NetConnection`: every lockstep message travels as one [`NetEvent`]. The
//! relay mode's are guaranteed-ordered, so it gets reliable ordered delivery from the
//! existing notify protocol rather than from a second protocol, and its per-NWF messages
//! (the server's NWF-done, a client's commands) are also repeated unguaranteed so a lost
//! packet costs no round trip ([`RelayNwfEvent`], [`RelayCommandsEvent`]); the peer-to-peer turn
//! messages and RTT probes are unguaranteed ([`PeerTurnEvent`]: their redundancy replaces
//! resending), its control messages guaranteed-ordered. Each node below is still sans-IO:
//! datagrams in and out through its [`NetInterface`], time as an argument.

use crate::game::{LockstepGame, PlayerId};
use crate::peer::Peer;
use crate::peer_msg::PeerMessage;
use crate::relay_client::RelayClient;
use crate::relay_msg::{ClientMessage, ServerMessage};
use crate::relay_server::RelayServer;
use crate::wire::{read_blob, write_blob};
use bytes::Bytes;
use std::collections::{BTreeMap, VecDeque};
use std::net::SocketAddr;
use std::sync::Arc;
use tracing::{debug, info, warn};
use v12_bitstream::{BitReader, BitWriter};
use v12_netobject::{
    ConnectionId, EventDirection, InterfaceConfig, InterfaceEvent, NetClassRegistry, NetClassRegistryBuilder,
    NetError, NetEvent, NetEventClass, NetInterface, PackContext, UnpackContext,
};

/// Largest lockstep message carried in one event (bytes).
pub const MAX_EVENT_BYTES: usize = 1200;

fn unpack_bytes(r: &mut BitReader<'_>) -> v12_netobject::Result<Vec<u8>> {
    let b = read_blob(r).map_err(|e| NetError::BadEvent(e.to_string()))?;
    if b.len() > MAX_EVENT_BYTES {
        return Err(NetError::TooLong { what: "lockstep message", len: b.len(), max: MAX_EVENT_BYTES });
    }
    Ok(b)
}

macro_rules! lockstep_event {
    ($(#[$doc:meta])* $name:ident, $class:literal, $dir:expr) => {
        lockstep_event!($(#[$doc])* $name, $class, $dir, v12_netobject::Guarantee::GuaranteedOrdered);
    };
    ($(#[$doc:meta])* $name:ident, $class:literal, $dir:expr, $guarantee:expr) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq)]
        pub struct $name(pub Vec<u8>);
        impl NetEvent for $name {
            fn guarantee(&self) -> v12_netobject::Guarantee {
                $guarantee
            }
            fn pack(&self, w: &mut BitWriter, _: &mut PackContext<'_>) {
                write_blob(w, &self.0);
            }
        }
        impl NetEventClass for $name {
            const NAME: &'static str = $class;
            const DIRECTION: EventDirection = $dir;
            fn unpack(r: &mut BitReader<'_>, _: &mut UnpackContext<'_>) -> v12_netobject::Result<Self> {
                Ok(Self(unpack_bytes(r)?))
            }
        }
    };
}

lockstep_event!(
    /// A relay client's message to the server ([`ClientMessage`] bytes).
    RelayToServerEvent, "LockstepRelayToServerEvent", EventDirection::ClientToServer
);
lockstep_event!(
    /// The relay server's message to a client ([`crate::ServerMessage`] bytes).
    RelayToClientEvent, "LockstepRelayToClientEvent", EventDirection::ServerToClient
);
lockstep_event!(
    /// A peer-to-peer message ([`PeerMessage`] bytes).
    PeerMessageEvent, "LockstepPeerMessageEvent", EventDirection::Any
);

lockstep_event!(
    /// A peer-to-peer turn message or RTT probe ([`PeerMessage`] bytes), sent *unguaranteed*:
    /// every turn message repeats the previous turns' data and is sent again each sub-turn,
    /// so a lost one is made good by the next without waiting for a resend, and nothing
    /// queues behind a lost packet (a guaranteed-ordered stream would hold every later turn
    /// back). The master's start message goes this way too: it is repeated until
    /// acknowledged, and each copy carries the countdown left when it was sent, which a
    /// copy held back behind a lost packet would make stale.
    PeerTurnEvent, "LockstepPeerTurnEvent", EventDirection::Any, v12_netobject::Guarantee::Unguaranteed
);

lockstep_event!(
    /// A copy of the relay server's latest NWF-done ([`crate::ServerMessage`]
    /// bytes), sent *unguaranteed* every GF until the next one: the guaranteed-ordered copy
    /// holds back behind any lost packet for a round trip, and a client runs the NWF from
    /// whichever copy comes first (later copies are ignored).
    RelayNwfEvent, "LockstepRelayNwfEvent", EventDirection::ServerToClient, v12_netobject::Guarantee::Unguaranteed
);

lockstep_event!(
    /// A copy of a relay client's latest commands ([`ClientMessage`] bytes), sent
    /// *unguaranteed* a few times a GF apart after the guaranteed-ordered original: the
    /// server runs an NWF only once every client's commands for it are in, and the
    /// original can be held back a round trip behind a lost packet. The server takes
    /// whichever copy comes first and ignores the rest.
    RelayCommandsEvent, "LockstepRelayCommandsEvent", EventDirection::ClientToServer, v12_netobject::Guarantee::Unguaranteed
);

/// How many unguaranteed copies of a client's commands follow the original.
pub const COMMAND_COPIES: u8 = 2;

/// The registry with the six lockstep event classes.
pub fn lockstep_registry() -> Arc<NetClassRegistry> {
    let mut b = NetClassRegistryBuilder::new();
    b.register::<RelayToServerEvent>()
        .register::<RelayToClientEvent>()
        .register::<PeerMessageEvent>()
        .register::<PeerTurnEvent>()
        .register::<RelayNwfEvent>()
        .register::<RelayCommandsEvent>();
    // Registering six distinct classes cannot fail.
    Arc::new(b.build().unwrap_or_else(|_| unreachable!("six distinct lockstep classes")))
}

/// Interface settings for lockstep nodes: larger packets (a whole NWF fits) every 16 ms, and
/// quick handshake retries.
pub fn interface_config(accept: bool) -> InterfaceConfig {
    let rate = v12_netobject::RateConfig {
        send_period_ms: 16,
        send_size: 1400,
        recv_period_ms: 16,
        recv_size: 1400,
    };
    InterfaceConfig {
        accept_connections: accept,
        server_rate: rate,
        client_rate: rate,
        // A game cannot start until every connection is up: a lost handshake packet is
        // retried after half a second rather than Torque's 2.5 s (for as long in all).
        connect_retry_ms: 500,
        connect_tries: 20,
        ..InterfaceConfig::default()
    }
}

/// A relay server behind a NetInterface: clients connect (connect data = their name).
#[derive(Debug)]
pub struct RelayServerNode {
    /// The lockstep server.
    pub server: RelayServer,
    /// Its interface.
    pub interface: NetInterface,
    by_conn: BTreeMap<ConnectionId, PlayerId>,
    by_player: BTreeMap<PlayerId, ConnectionId>,
    /// The latest NWF-done (encoded) and when its unguaranteed copy last went out.
    latest_done: Option<(Vec<u8>, u64)>,
}

impl RelayServerNode {
    /// A node for `server`; `entropy` seeds the handshake secrets.
    pub fn new(server: RelayServer, entropy: [u8; 32]) -> Self {
        Self {
            server,
            interface: NetInterface::new(interface_config(true), lockstep_registry(), entropy),
            by_conn: BTreeMap::new(),
            by_player: BTreeMap::new(),
            latest_done: None,
        }
    }

    /// Players connected so far.
    pub fn connected(&self) -> usize {
        self.by_conn.len()
    }

    /// Processes interface events and moves the server's messages into events. Call after
    /// feeding datagrams and before draining `interface.poll_transmit`.
    pub fn update(&mut self, now: u64) {
        self.interface.handle_timeout(now);
        while let Some(ev) = self.interface.poll_event() {
            match ev {
                InterfaceEvent::Connected { connection, connect_data, .. } => {
                    let name = String::from_utf8_lossy(&connect_data).into_owned();
                    match self.server.add_player(&name) {
                        Some(p) => {
                            info!(player = p, %name, "relay node: player connected");
                            self.by_conn.insert(connection, p);
                            self.by_player.insert(p, connection);
                        }
                        None => self.interface.disconnect(connection, "game full or started"),
                    }
                }
                InterfaceEvent::Disconnected { connection, reason, .. } => {
                    if let Some(p) = self.by_conn.remove(&connection) {
                        debug!(player = p, %reason, "relay node: player disconnected");
                        self.by_player.remove(&p);
                        self.server.player_disconnected(now, p);
                    }
                }
                InterfaceEvent::EventReceived { connection, event } => {
                    let Some(p) = self.by_conn.get(&connection).copied() else { continue };
                    if let Some(e) = event.downcast_ref::<RelayToServerEvent>() {
                        self.server.handle_datagram(now, p, &e.0);
                    } else if let Some(e) = event.downcast_ref::<RelayCommandsEvent>() {
                        self.server.handle_datagram(now, p, &e.0);
                    }
                }
                InterfaceEvent::ConnectFailed { .. } => {}
            }
        }
        for (p, c) in &self.by_player {
            if let Some(conn) = self.interface.connection(*c) {
                self.server.set_rtt(*p, conn.rtt_ms() as u32);
            }
        }
        self.server.handle_timeout(now);
        while let Some((to, msg)) = self.server.poll_transmit() {
            let bytes = msg.encode();
            if matches!(msg, ServerMessage::NwfDone(_)) {
                // Every client gets the same NWF-done: one copy to repeat for all.
                self.latest_done = Some((bytes.clone(), 0));
            }
            if let Some(c) = self.by_player.get(&to)
                && let Err(e) = self.interface.post_event(*c, Box::new(RelayToClientEvent(bytes)))
            {
                warn!(player = to, error = %e, "relay node: cannot post");
            }
        }
        let every = u64::from(self.server.gf_ms()).max(10);
        if let Some((bytes, last)) = self.latest_done.as_mut()
            && now >= *last + every
        {
            *last = now;
            for c in self.by_player.values() {
                let _ = self.interface.post_event(*c, Box::new(RelayNwfEvent(bytes.clone())));
            }
        }
    }
}

/// A relay client behind a NetInterface, connected to the server.
#[derive(Debug)]
pub struct RelayClientNode<G: LockstepGame> {
    /// The lockstep client.
    pub client: RelayClient<G>,
    /// Its interface.
    pub interface: NetInterface,
    connection: ConnectionId,
    connected: bool,
    outbox: VecDeque<ClientMessage>,
    /// The latest commands (encoded), when the next copy goes, and how many copies are left.
    repeat: Option<(Vec<u8>, u64, u8)>,
}

impl<G: LockstepGame> RelayClientNode<G> {
    /// Connects to `server` as `name`.
    pub fn connect(
        client: RelayClient<G>,
        now: u64,
        server: SocketAddr,
        name: &str,
        entropy: [u8; 32],
    ) -> Self {
        let mut interface = NetInterface::new(interface_config(false), lockstep_registry(), entropy);
        let connection = interface.connect(now, server, Bytes::copy_from_slice(name.as_bytes()));
        Self { client, interface, connection, connected: false, outbox: VecDeque::new(), repeat: None }
    }

    /// Connected to the server.
    pub fn is_connected(&self) -> bool {
        self.connected
    }

    /// The connection's RTT (ms).
    pub fn rtt_ms(&self) -> f32 {
        self.interface.connection(self.connection).map_or(0.0, |c| c.rtt_ms())
    }

    /// Processes interface events, runs due GFs and posts the client's messages.
    pub fn update(&mut self, now: u64) {
        self.interface.handle_timeout(now);
        while let Some(ev) = self.interface.poll_event() {
            match ev {
                InterfaceEvent::Connected { .. } => self.connected = true,
                InterfaceEvent::EventReceived { event, .. } => {
                    if let Some(e) = event.downcast_ref::<RelayNwfEvent>() {
                        self.client.handle_datagram(now, &e.0);
                    } else if let Some(e) = event.downcast_ref::<RelayToClientEvent>() {
                        self.client.handle_datagram(now, &e.0);
                    }
                }
                InterfaceEvent::Disconnected { reason, .. }
                | InterfaceEvent::ConnectFailed { reason, .. } => {
                    warn!(%reason, "relay client node: connection ended");
                    self.connected = false;
                }
            }
        }
        self.client.poll(now);
        while let Some(m) = self.client.poll_transmit() {
            self.outbox.push_back(m);
        }
        let every = u64::from(self.client.gf_ms()).max(10);
        while self.connected {
            let Some(m) = self.outbox.pop_front() else { break };
            let bytes = m.encode();
            if COMMAND_COPIES > 0 && matches!(m, ClientMessage::Commands { .. }) {
                self.repeat = Some((bytes.clone(), now + every, COMMAND_COPIES));
            }
            if let Err(e) = self.interface.post_event(self.connection, Box::new(RelayToServerEvent(bytes))) {
                warn!(error = %e, "relay client node: cannot post");
                break;
            }
        }
        if self.connected
            && let Some((bytes, at, left)) = self.repeat.as_mut()
            && now >= *at
        {
            let _ = self.interface.post_event(self.connection, Box::new(RelayCommandsEvent(bytes.clone())));
            *at = now + every;
            *left -= 1;
            if *left == 0 {
                self.repeat = None;
            }
        }
    }
}

/// A peer behind one NetInterface that both accepts and connects. A connection is made
/// by whoever speaks first (the joiner: HELO to the master, INTR to the others), so two
/// peers never dial each other at once.
#[derive(Debug)]
pub struct PeerNode<G: LockstepGame> {
    /// The lockstep peer.
    pub peer: Peer<G>,
    /// Its interface.
    pub interface: NetInterface,
    by_addr: BTreeMap<SocketAddr, ConnectionId>,
    live: BTreeMap<ConnectionId, SocketAddr>,
    waiting: BTreeMap<SocketAddr, Vec<PeerMessage>>,
}

impl<G: LockstepGame> PeerNode<G> {
    /// A node for `peer`.
    pub fn new(peer: Peer<G>, entropy: [u8; 32]) -> Self {
        Self {
            peer,
            interface: NetInterface::new(interface_config(true), lockstep_registry(), entropy),
            by_addr: BTreeMap::new(),
            live: BTreeMap::new(),
            waiting: BTreeMap::new(),
        }
    }

    /// Processes interface events, runs due sub-turns and posts the peer's messages,
    /// connecting to peers it has not spoken to yet.
    pub fn update(&mut self, now: u64) {
        self.interface.handle_timeout(now);
        while let Some(ev) = self.interface.poll_event() {
            match ev {
                InterfaceEvent::Connected { connection, addr, .. } => {
                    self.by_addr.insert(addr, connection);
                    self.live.insert(connection, addr);
                }
                InterfaceEvent::EventReceived { connection, event } => {
                    let Some(addr) = self.live.get(&connection).copied() else { continue };
                    if let Some(e) = event.downcast_ref::<PeerMessageEvent>() {
                        self.peer.handle_datagram(now, addr, &e.0);
                    } else if let Some(e) = event.downcast_ref::<PeerTurnEvent>() {
                        self.peer.handle_datagram(now, addr, &e.0);
                    }
                }
                InterfaceEvent::Disconnected { connection, addr, .. } => {
                    self.live.remove(&connection);
                    self.by_addr.remove(&addr);
                }
                InterfaceEvent::ConnectFailed { addr, .. } => {
                    self.by_addr.remove(&addr);
                    self.waiting.remove(&addr);
                }
            }
        }
        self.peer.poll(now);
        while let Some((to, msg)) = self.peer.poll_transmit() {
            self.waiting.entry(to).or_default().push(msg);
        }
        let addrs: Vec<SocketAddr> = self.waiting.keys().copied().collect();
        for addr in addrs {
            match self.by_addr.get(&addr).copied() {
                Some(c) if self.live.contains_key(&c) => {
                    for m in self.waiting.remove(&addr).unwrap_or_default() {
                        let ev: Box<dyn NetEvent> = match m {
                            PeerMessage::Turn { .. }
                            | PeerMessage::Ping { .. }
                            | PeerMessage::Pong { .. }
                            | PeerMessage::Strt { .. }
                            | PeerMessage::StrtAck => Box::new(PeerTurnEvent(m.encode())),
                            _ => Box::new(PeerMessageEvent(m.encode())),
                        };
                        if let Err(e) = self.interface.post_event(c, ev) {
                            warn!(%addr, error = %e, "peer node: cannot post");
                        }
                    }
                }
                Some(_) => {}
                // Only the newer peer (higher id, or not yet welcomed) dials, so two peers
                // never connect to each other at once; the other side's messages wait.
                None if self.peer.id() != 0 && self.peer.id_at(addr).is_some_and(|p| p > self.peer.id()) => {}
                None => {
                    let c = self.interface.connect(now, addr, Bytes::new());
                    self.by_addr.insert(addr, c);
                }
            }
        }
        // Messages to a connection still being made wait; keep the queue short. A ping would
        // be stale by then (its round trip would count the handshake), so it does not wait.
        for q in self.waiting.values_mut() {
            q.retain(|m| !matches!(m, PeerMessage::Ping { .. }));
            if q.len() > 64 {
                q.drain(..q.len() - 64);
            }
        }
    }
}
