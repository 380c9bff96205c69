//! NetInterface: the sans-IO endpoint that owns every connection of one UDP port. It
//! answers handshake packets (statelessly until a valid connect request), routes connected
//! packets to their NetConnection, and hands out datagrams, events and timeouts.

use crate::addr_limit::{AddrBudget, addr_group};
use crate::connect_token::{ConnectToken, IssuedToken};
use crate::connection::{Arrival, NetConnection, Served};
use crate::error::{NetError, Result};
use crate::event::{ConnectionId, NetEvent, NetEventClass};
use crate::ghost::{
    GhostClassRegistry, GhostClassRegistryBuilder, GhostClientWorld, GhostConfig, GhostManager,
    GhostReceiver, GhostWorld, ObjectId,
};
use crate::handshake::{Handshake, TokenError, TokenMinter};
use crate::log_limit::LogLimiter;
use crate::rate::RateConfig;
use crate::registry::NetClassRegistry;
use crate::secure::{Encryption, KeyContext, KeyExchange};
use crate::strings::NetStringTable;
use bytes::Bytes;
use chacha20::ChaCha20Rng;
use hashbrown::HashMap;
use rand_core::{Rng, SeedableRng};
use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::Arc;
use tracing::{debug, info, warn};
use v12_notify_protocol::ProtocolConfig;

mod pass;
pub use pass::{AWAKE_ROUNDS, Awake, PacketThreads, YIELD_EVERY};
mod serve;
mod turn;
pub use turn::ConnectionTurn;

/// Settings of a [`NetInterface`].
#[derive(Clone, Debug)]
pub struct InterfaceConfig {
    /// Application protocol version; a client with another version is refused.
    pub protocol_version: u32,
    /// Answer challenge and connect requests (a server).
    pub accept_connections: bool,
    /// Most live connections accepted; beyond it connect requests get "server full".
    pub max_connections: usize,
    /// Most live connections from one IP address; beyond it connect requests are refused
    /// ("too many connections from your address"), so one host cannot take every slot. An
    /// IPv6 address counts as its /64 ([`crate::addr_group`]).
    pub max_connections_per_ip: usize,
    /// Most connections in negotiation at once (accepted but not yet heard from, plus our
    /// own outgoing attempts); beyond it connect requests get "server busy".
    pub max_pending: usize,
    /// Most of those negotiating connections from one IP address, so one host cannot hold
    /// every negotiation slot ("server busy" for everyone else). Below `max_pending` it is
    /// capped at a quarter of it, so two addresses can never hold them all; set it to
    /// `max_pending` or more when every client runs on one host (tests, local demos).
    pub max_pending_per_ip: usize,
    /// An accepted connection the client has not confirmed (no packet of the connection from
    /// it) is dropped after this long (ms), whatever connect requests it repeats: a half-open
    /// handshake cannot hold a negotiation slot for ever.
    pub negotiation_timeout_ms: u64,
    /// Connections one address may open at once (each a key exchange when encrypted) ...
    pub connect_burst_per_ip: u32,
    /// ... and on average per second after that; beyond it "server busy; try again".
    pub connects_per_ip_per_s: u32,
    /// Time between handshake retries (ms).
    pub connect_retry_ms: u64,
    /// Sends of each handshake step before giving up.
    pub connect_tries: u32,
    /// Challenge-secret rotation period (ms); a token lives one to two periods.
    pub token_epoch_ms: u64,
    /// Rate for connections this side accepts.
    pub server_rate: RateConfig,
    /// Rate for connections this side initiates.
    pub client_rate: RateConfig,
    /// Notify protocol settings (prefix and initial sequences are set per connection).
    pub protocol: ProtocolConfig,
    /// Ghosting settings of every accepted connection.
    pub ghost: GhostConfig,
    /// Whether connections are encrypted (X25519 key exchange, ChaCha20-Poly1305 packets).
    pub encryption: Encryption,
    /// Server side: the key shared with a matchmaker; when set, a connect request must carry
    /// a valid connect token ([`ConnectToken`]) and the connection is encrypted.
    pub connect_token_key: Option<[u8; 32]>,
}

impl Default for InterfaceConfig {
    fn default() -> Self {
        Self {
            protocol_version: 1,
            accept_connections: false,
            max_connections: 128,
            max_connections_per_ip: 16,
            max_pending: 64,
            max_pending_per_ip: 8,
            negotiation_timeout_ms: 15_000,
            connect_burst_per_ip: 64,
            connects_per_ip_per_s: 32,
            connect_retry_ms: 2500,
            connect_tries: 4,
            token_epoch_ms: 15_000,
            server_rate: RateConfig::SERVER,
            client_rate: RateConfig::CLIENT,
            protocol: ProtocolConfig::default(),
            ghost: GhostConfig::default(),
            encryption: Encryption::Off,
            connect_token_key: None,
        }
    }
}

/// What the interface reports to its driver.
#[derive(Debug)]
pub enum InterfaceEvent {
    /// A connection is up. On the server, `connect_data` is what the client sent.
    Connected { connection: ConnectionId, addr: SocketAddr, is_server: bool, connect_data: Bytes },
    /// Our connection attempt ended without a connection.
    ConnectFailed { connection: ConnectionId, addr: SocketAddr, reason: String },
    /// A connection ended; `by_peer` when the other side said so.
    Disconnected { connection: ConnectionId, addr: SocketAddr, reason: String, by_peer: bool },
    /// An event arrived and is ready to process (ordered events in order). Call
    /// [`NetEvent::process`] on it with the application's state.
    EventReceived { connection: ConnectionId, event: Box<dyn NetEvent> },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PendingStep {
    Challenge,
    Connect { epoch: u32, token: u64 },
}

#[derive(Debug)]
struct Pending {
    id: ConnectionId,
    nonce: u64,
    step: PendingStep,
    tries: u32,
    next_retry: u64,
    connect_data: Bytes,
    /// Times the server said "busy" and we backed off.
    busy_retries: u32,
    /// Times the server said our challenge token had expired and we asked for a fresh one.
    stale_restarts: u32,
    /// Our key pair when we ask for encryption.
    key: Option<KeyExchange>,
    /// The matchmaker's token we present.
    token: Option<IssuedToken>,
}

/// A server that answers "busy" is asked again after 1, 2, then 4 s before the attempt fails.
pub const BUSY_RETRIES: u32 = 3;
/// The first back-off after "busy" (ms), doubling each time.
pub const BUSY_BACKOFF_MS: u64 = 1_000;

/// A client whose challenge token expired before its connect request got through (a long
/// loss burst in the connect step) starts over with a fresh challenge this many times.
pub const STALE_TOKEN_RESTARTS: u32 = 3;

/// Address groups whose connect budget is tracked at once; when all are still refilling, a new
/// group is told "server busy" until one has.
pub const MAX_TRACKED_ADDRESSES: usize = 16_384;

/// Join and leave log lines one address group may write each 10 s; the rest are counted and
/// the next line says how many were left out (`suppressed`).
pub const JOIN_LOG_LINES: u32 = 20;

/// The reject reason for a connect request whose challenge token is too old.
const STALE_TOKEN_REASON: &str = "challenge token expired; try again";

/// A check the application runs on each valid connect request: `Err(reason)` refuses it.
pub type ConnectFilter = Box<dyn FnMut(SocketAddr, &[u8]) -> std::result::Result<(), String> + Send>;

/// Handshake counters.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct InterfaceStats {
    /// Challenge responses sent.
    pub challenges_answered: u64,
    /// Connect requests refused (any reason).
    pub connects_rejected: u64,
    /// Connections accepted.
    pub connects_accepted: u64,
    /// Datagrams that parsed as nothing.
    pub garbage: u64,
    /// Info packets dropped because the host had [`MAX_QUEUED_INFO_PACKETS`] unread.
    pub info_dropped: u64,
    /// Connect requests refused because their address had used its connect budget.
    pub connects_rate_limited: u64,
    /// Accepted connections dropped because the client never confirmed them in time.
    pub negotiations_timed_out: u64,
    /// Datagrams read on the packet threads ([`NetInterface::handle_datagrams`]).
    pub datagrams_in_parallel: u64,
}

/// First byte of an out-of-band "info packet" (TNL's `handleInfoPacket`): a handshake-style
/// byte (low bit 0) with the handshake kind 7, which the handshake never uses. The interface
/// hands such datagrams to the host ([`NetInterface::poll_info_packet`]) untouched: server
/// browser pings, master-server traffic, LAN discovery.
pub const INFO_PACKET_PREFIX: u8 = 0x0E;
/// Smallest batch of datagrams [`NetInterface::handle_datagrams`] reads on the packet
/// threads (a smaller one is not worth a fork and a join).
const PARALLEL_BATCH: usize = 32;

/// A datagram a connection's turn of [`NetInterface::serve`] built: its connection, its
/// place among that connection's datagrams of the turn, where it goes, its bytes.
type Outgoing = (ConnectionId, u32, SocketAddr, Bytes);
/// Fewest datagrams of a batch a packet thread looks up at once when routing it
/// ([`NetInterface::route_batch`]).
const ROUTE_GRAIN: usize = 64;
/// Most info packets waiting for the host; more are dropped and counted.
pub const MAX_QUEUED_INFO_PACKETS: usize = 256;

/// The sans-IO network interface: many connections over one datagram socket.
pub struct NetInterface {
    config: InterfaceConfig,
    registry: Arc<NetClassRegistry>,
    ghost_classes: Arc<GhostClassRegistry>,
    /// Ghost tables of client connections that closed while no client world was at hand;
    /// [`NetInterface::release_ghosts`] removes their ghosts.
    orphaned: Vec<GhostReceiver>,
    /// Recordings of client connections that closed before `stop_recording`.
    finished_demos: HashMap<ConnectionId, Vec<u8>>,
    strings: NetStringTable,
    minter: TokenMinter,
    /// Nonces, simulation seeds and key material: a cryptographic generator, so nothing it
    /// hands out in the clear tells anything about the keys.
    rng: ChaCha20Rng,
    /// Unix time (s) for connect-token expiry, kept by the driver ([`Self::set_wall_clock`]).
    wall_clock_s: u64,
    next_id: u32,
    connections: HashMap<ConnectionId, NetConnection>,
    by_addr: HashMap<SocketAddr, ConnectionId>,
    pending: HashMap<SocketAddr, Pending>,
    used_tokens: HashMap<u64, u64>,
    transmits: VecDeque<(SocketAddr, Bytes)>,
    events: VecDeque<InterfaceEvent>,
    /// Out-of-band datagrams for the host ([`INFO_PACKET_PREFIX`]), bounded.
    info_packets: VecDeque<(SocketAddr, Bytes)>,
    filter: Option<ConnectFilter>,
    stats: InterfaceStats,
    /// Scratch list of connection ids (reused).
    order: Vec<ConnectionId>,
    /// Every connection's id, in increasing order: kept as connections open and close, so
    /// the one-thread passes ([`Self::for_each_connection`], `fill_transmits`) visit them in
    /// id order without sorting the ids each time.
    sorted_ids: Vec<ConnectionId>,
    /// [`Self::handle_datagrams`]: the connection of each datagram of the batch, and the same
    /// as (connection, index in the batch) sorted, each connection's datagrams together
    /// (found by a binary search in its turn on the pool).
    route: Vec<ConnectionId>,
    inboxes: Vec<(ConnectionId, u32)>,
    /// [`Self::route_batch`] on the packet threads: each datagram's connection, or `None`
    /// when the batch cannot be routed (reused).
    looked_up: Vec<Option<ConnectionId>>,
    /// The established server-side connections, whose data a batch may route to the pool
    /// without touching them ([`Self::route_batch`]).
    routable: hashbrown::HashSet<ConnectionId>,
    /// [`Self::serve`]: the connections its pass left something for this thread (reused).
    served: Vec<(ConnectionId, Served)>,
    /// [`Self::serve`]: the datagrams its pass's turns built, each with its connection, its
    /// place among that connection's datagrams and its address (reused; queued in that order
    /// after the pass without visiting the connections again).
    outgoing: Vec<Outgoing>,
    /// The room of the packet threads' list of connections (`interface/pass.rs`).
    pass_room: pass::PassRoom,
    /// Received events stay with their connection ([`Self::set_events_by_connection`]).
    events_by_connection: bool,
    /// Builds the connections' packets in parallel ([`Self::set_transmit_threads`]).
    transmit_pool: Option<Arc<rayon::ThreadPool>>,
    /// Connections each address group may still open ([`InterfaceConfig::connects_per_ip_per_s`]).
    connect_budget: AddrBudget,
    /// Join and leave lines per address group ([`JOIN_LOG_LINES`] each 10 s, then counted).
    join_log: LogLimiter<std::net::IpAddr>,
    /// The time (ms) of the last call that told it.
    clock: u64,
}

impl std::fmt::Debug for NetInterface {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NetInterface")
            .field("connections", &self.connections.len())
            .field("pending", &self.pending.len())
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

impl NetInterface {
    /// A new interface. `entropy` must be unpredictable in production (it keys the challenge
    /// tokens and seeds nonces); tests pass a fixed value for replayable runs.
    pub fn new(config: InterfaceConfig, registry: Arc<NetClassRegistry>, entropy: [u8; 32]) -> Self {
        let word = |i: usize| u64::from_le_bytes(entropy[i * 8..i * 8 + 8].try_into().unwrap_or_default());
        let minter = TokenMinter::new((word(0), word(1)), config.token_epoch_ms);
        let mut seed = [0u8; 32];
        seed[..16].copy_from_slice(&entropy[16..]);
        seed[16..].copy_from_slice(&(word(0) ^ 0x9E37_79B9_7F4A_7C15).to_le_bytes().repeat(2));
        let connect_budget =
            AddrBudget::new(config.connect_burst_per_ip, config.connects_per_ip_per_s, MAX_TRACKED_ADDRESSES);
        Self {
            config,
            registry,
            ghost_classes: Arc::new(
                GhostClassRegistryBuilder::new()
                    .build()
                    .unwrap_or_else(|_| unreachable!("an empty ghost registry has no duplicate names")),
            ),
            orphaned: Vec::new(),
            finished_demos: HashMap::new(),
            strings: NetStringTable::new(),
            minter,
            rng: ChaCha20Rng::from_seed(seed),
            wall_clock_s: 0,
            next_id: 1,
            connections: HashMap::new(),
            by_addr: HashMap::new(),
            pending: HashMap::new(),
            used_tokens: HashMap::new(),
            transmits: VecDeque::new(),
            events: VecDeque::new(),
            info_packets: VecDeque::new(),
            filter: None,
            stats: InterfaceStats::default(),
            order: Vec::new(),
            sorted_ids: Vec::new(),
            route: Vec::new(),
            inboxes: Vec::new(),
            looked_up: Vec::new(),
            routable: hashbrown::HashSet::new(),
            served: Vec::new(),
            outgoing: Vec::new(),
            pass_room: pass::PassRoom::default(),
            events_by_connection: false,
            transmit_pool: None,
            connect_budget,
            join_log: LogLimiter::new(JOIN_LOG_LINES, 10_000, MAX_TRACKED_ADDRESSES),
            clock: 0,
        }
    }

    /// The settings.
    pub fn config(&self) -> &InterfaceConfig {
        &self.config
    }
    /// Starts or stops answering connection requests.
    pub fn set_accept_connections(&mut self, accept: bool) {
        self.config.accept_connections = accept;
    }
    /// Tells the interface the Unix time (s), for connect-token expiry; a driver calls it
    /// every pump (the interface itself reads no clock).
    pub fn set_wall_clock(&mut self, unix_s: u64) {
        self.wall_clock_s = unix_s;
    }

    /// The Unix time (s) connect tokens are checked against ([`Self::set_wall_clock`]).
    pub fn wall_clock(&self) -> u64 {
        self.wall_clock_s
    }
    /// Installs an application check run on every valid connect request.
    pub fn set_connect_filter(&mut self, filter: ConnectFilter) {
        self.filter = Some(filter);
    }
    /// The class registry shared by every connection.
    pub fn registry(&self) -> &Arc<NetClassRegistry> {
        &self.registry
    }
    /// Sets the ghost classes (before connecting: their digest is checked in the handshake,
    /// and a mismatch is refused with "ghost class mismatch"). Without it the registry is empty.
    pub fn set_ghost_classes(&mut self, classes: Arc<GhostClassRegistry>) {
        self.ghost_classes = classes;
    }
    /// The ghost classes shared by every connection.
    pub fn ghost_classes(&self) -> &Arc<GhostClassRegistry> {
        &self.ghost_classes
    }

    fn ghost_mut(&mut self, id: ConnectionId) -> Result<&mut GhostManager> {
        self.connections
            .get_mut(&id)
            .and_then(NetConnection::ghost_manager_mut)
            .ok_or(NetError::NoSuchConnection)
    }
    /// Server side: this connection is the listen server's own client (the short-circuit
    /// link): objects flagged `SCOPE_LOCAL` are ghosted to it and to no one else.
    pub fn set_local_connection(&mut self, id: ConnectionId) -> Result<()> {
        self.ghost_mut(id)?.set_local(true);
        Ok(())
    }
    /// Server side: begins ghosting to this client (once it is ready, e.g. has the mission).
    /// Ghost sections are written by [`Self::poll_transmit`].
    pub fn start_ghosting(&mut self, id: ConnectionId) -> Result<()> {
        self.ghost_mut(id)?.start_ghosting();
        Ok(())
    }
    /// Server side: stops ghosting; the client drops every ghost.
    pub fn stop_ghosting(&mut self, id: ConnectionId) -> Result<()> {
        self.ghost_mut(id)?.stop_ghosting();
        Ok(())
    }
    /// Server side, mission change: the client drops every ghost, then ghosting starts over.
    pub fn reset_ghosting(&mut self, id: ConnectionId) -> Result<()> {
        self.ghost_mut(id)?.reset();
        Ok(())
    }
    /// Server side: the object whose camera query scopes this client (`None`: only
    /// always-scoped objects).
    pub fn set_scope_object(&mut self, id: ConnectionId, object: Option<ObjectId>) -> Result<()> {
        let c = self.connections.get_mut(&id).ok_or(NetError::NoSuchConnection)?;
        c.set_scope_object(object);
        Ok(())
    }
    /// Server side: a connection's ghost manager.
    pub fn ghost_manager(&self, id: ConnectionId) -> Option<&GhostManager> {
        self.connections.get(&id)?.ghost_manager()
    }
    /// Client side: a connection's ghost table.
    pub fn ghost_receiver(&self, id: ConnectionId) -> Option<&GhostReceiver> {
        self.connections.get(&id)?.ghost_receiver()
    }
    /// Client side: removes from `world` the ghosts of connections that closed while no
    /// world was passed in (the drivers call this after every pump).
    pub fn release_ghosts(&mut self, world: &mut dyn GhostClientWorld) {
        for mut rx in self.orphaned.drain(..) {
            rx.clear(world);
        }
    }

    /// Client side: starts recording what connection `id` receives (a demo). `world` is the
    /// client world holding the connection's ghosts, whose state goes in the start block.
    pub fn start_recording(&mut self, id: ConnectionId, world: &mut dyn GhostClientWorld) -> Result<()> {
        let version = self.config.protocol_version;
        let c = self.connections.get_mut(&id).ok_or(NetError::NoSuchConnection)?;
        if c.is_server() {
            return Err(NetError::BadEvent("demos record client connections".into()));
        }
        let rec = crate::demo::DemoRecorder::start(
            version,
            &self.registry,
            &self.ghost_classes,
            c.events(),
            c.strings_rx(),
            c.ghost_receiver(),
            world,
        );
        c.recorder = Some(rec);
        Ok(())
    }

    /// Ends a recording and returns the demo file's bytes (also after the connection closed).
    pub fn stop_recording(&mut self, id: ConnectionId) -> Option<Vec<u8>> {
        if let Some(done) = self.finished_demos.remove(&id) {
            return Some(done);
        }
        self.connections.get_mut(&id)?.recorder.take().map(crate::demo::DemoRecorder::finish)
    }

    /// The interface-wide tagged-string table (`addTaggedString`/`removeTaggedString`).
    pub fn strings(&mut self) -> &mut NetStringTable {
        &mut self.strings
    }
    /// Handshake counters.
    pub fn stats(&self) -> InterfaceStats {
        self.stats
    }
    /// A live connection.
    pub fn connection(&self, id: ConnectionId) -> Option<&NetConnection> {
        self.connections.get(&id)
    }
    /// Ids of the live connections, oldest first.
    pub fn connection_ids(&self) -> Vec<ConnectionId> {
        let mut v: Vec<_> = self.connections.keys().copied().collect();
        v.sort();
        v
    }
    /// Live connections.
    pub fn connection_count(&self) -> usize {
        self.connections.len()
    }
    /// Our own connection attempts still negotiating.
    pub fn pending_count(&self) -> usize {
        self.pending.len()
    }
    /// Replay-protection entries (tokens already used, until they expire).
    pub fn used_token_count(&self) -> usize {
        self.used_tokens.len()
    }
    /// Address groups whose connect budget is being tracked (at most [`MAX_TRACKED_ADDRESSES`]).
    pub fn tracked_address_count(&self) -> usize {
        self.connect_budget.tracked()
    }

    fn alloc_id(&mut self) -> ConnectionId {
        let id = ConnectionId(self.next_id);
        self.next_id = self.next_id.wrapping_add(1);
        id
    }

    fn negotiating(&self) -> usize {
        self.pending.len() + self.connections.values().filter(|c| !c.established).count()
    }

    /// Starts connecting to a server (`connect()` in the console). Progress arrives as
    /// [`InterfaceEvent::Connected`] or [`InterfaceEvent::ConnectFailed`].
    pub fn connect(&mut self, now: u64, addr: SocketAddr, connect_data: Bytes) -> ConnectionId {
        self.connect_inner(now, addr, connect_data, None)
    }

    /// [`Self::connect`] presenting a matchmaker's connect token (the connection is
    /// encrypted with the token's key mixed in, whatever [`InterfaceConfig::encryption`] says).
    pub fn connect_with_token(
        &mut self,
        now: u64,
        addr: SocketAddr,
        connect_data: Bytes,
        token: IssuedToken,
    ) -> ConnectionId {
        self.connect_inner(now, addr, connect_data, Some(token))
    }

    fn new_key(&mut self) -> KeyExchange {
        let mut b = [0u8; 32];
        self.rng.fill_bytes(&mut b);
        KeyExchange::from_random(b)
    }

    fn connect_inner(
        &mut self,
        now: u64,
        addr: SocketAddr,
        connect_data: Bytes,
        token: Option<IssuedToken>,
    ) -> ConnectionId {
        let id = self.alloc_id();
        let nonce = self.rng.next_u64();
        let data = connect_data.slice(..connect_data.len().min(crate::handshake::MAX_CONNECT_DATA));
        if self.by_addr.contains_key(&addr) || self.pending.contains_key(&addr) {
            self.events.push_back(InterfaceEvent::ConnectFailed {
                connection: id,
                addr,
                reason: "already connected or connecting to that address".into(),
            });
            return id;
        }
        let p = Pending {
            id,
            nonce,
            step: PendingStep::Challenge,
            tries: 1,
            next_retry: now + self.config.connect_retry_ms,
            connect_data: data,
            busy_retries: 0,
            stale_restarts: 0,
            key: (self.config.encryption != Encryption::Off || token.is_some()).then(|| self.new_key()),
            token,
        };
        self.transmits.push_back((addr, Handshake::ChallengeRequest { client_nonce: nonce }.encode()));
        self.pending.insert(addr, p);
        id
    }

    /// Queues an event on a connection.
    pub fn post_event(&mut self, id: ConnectionId, event: Box<dyn NetEvent>) -> Result<()> {
        let c = self.connections.get_mut(&id).ok_or(NetError::NoSuchConnection)?;
        c.post_event(&self.registry, event)
    }

    /// Queues `event` on a connection in the box of a finished event of its class when the
    /// connection keeps one ([`crate::NetEventClass::RECYCLE`]; a new box otherwise), so a
    /// steady stream of posts allocates nothing.
    pub fn post_event_reusing<E: NetEventClass>(&mut self, id: ConnectionId, event: E) -> Result<()> {
        let c = self.connections.get_mut(&id).ok_or(NetError::NoSuchConnection)?;
        let boxed = match c.events_mut().take_spare::<E>() {
            Some(mut b) => {
                *b = event;
                b
            }
            None => Box::new(event),
        };
        c.post_event(&self.registry, boxed)
    }

    /// A finished event of class `E` kept by a connection ([`crate::NetEventClass::RECYCLE`]),
    /// to fill in place and post (its heap contents, a list, reused too).
    pub fn spare_event<E: NetEventClass>(&mut self, id: ConnectionId) -> Option<Box<E>> {
        self.connections.get_mut(&id)?.events_mut().take_spare::<E>()
    }

    /// Hands back an event received on `id` once processed: a recycling class's box is kept
    /// for the connection's next event of its class (read in place, no allocation); others,
    /// and events of a connection that is gone, are dropped.
    pub fn recycle_event(&mut self, id: ConnectionId, event: Box<dyn NetEvent>) {
        if let Some(c) = self.connections.get_mut(&id) {
            c.events_mut().recycle(&self.registry, event);
        }
    }

    /// Simulated loss (0..=1) and one-way latency on a connection's outgoing datagrams.
    pub fn set_simulated_net_params(&mut self, id: ConnectionId, loss: f32, latency_ms: u64) -> Result<()> {
        let c = self.connections.get_mut(&id).ok_or(NetError::NoSuchConnection)?;
        c.set_simulated_net_params(loss, latency_ms);
        Ok(())
    }

    /// Changes a connection's rate wishes; the new offer goes in-band.
    pub fn set_rate(&mut self, id: ConnectionId, rate: RateConfig) -> Result<()> {
        let c = self.connections.get_mut(&id).ok_or(NetError::NoSuchConnection)?;
        c.set_rate(rate);
        Ok(())
    }

    /// Ends a connection (or an attempt), telling the peer why.
    pub fn disconnect(&mut self, id: ConnectionId, reason: &str) {
        if let Some(addr) = self.pending.iter().find(|(_, p)| p.id == id).map(|(a, _)| *a) {
            self.pending.remove(&addr);
            self.events.push_back(InterfaceEvent::ConnectFailed {
                connection: id,
                addr,
                reason: reason.into(),
            });
            return;
        }
        self.close(id, reason, true, false);
    }

    /// Closes the unconfirmed connections presenting the connect token of `client_id` other
    /// than `owner` (replays of a token seen in the clear, which never hold its key).
    fn drop_token_rivals(&mut self, owner: ConnectionId, client_id: u64) {
        let mut rivals: Vec<ConnectionId> = self
            .connections
            .iter()
            .filter(|(id, c)| {
                **id != owner
                    && !c.established
                    && c.connect_token.as_ref().is_some_and(|t| t.client_id == client_id)
            })
            .map(|(id, _)| *id)
            .collect();
        rivals.sort_unstable();
        for id in rivals {
            self.close(id, "connect token claimed by another connection", true, false);
        }
    }

    fn close(&mut self, id: ConnectionId, reason: &str, tell_peer: bool, by_peer: bool) {
        let Some(mut c) = self.connections.remove(&id) else { return };
        if let Ok(at) = self.sorted_ids.binary_search(&id) {
            self.sorted_ids.remove(at);
        }
        self.by_addr.remove(&c.remote_addr());
        self.routable.remove(&id);
        // After a crowd leaves, give its tables' memory back (all of it once nobody is left).
        if self.connections.is_empty() || self.connections.capacity() > 4 * self.connections.len() + 8 {
            self.connections.shrink_to_fit();
            self.by_addr.shrink_to_fit();
            self.routable.shrink_to_fit();
            self.order = Vec::new();
            self.sorted_ids.shrink_to_fit();
        }
        c.close();
        if let Some(rec) = c.recorder.take() {
            self.finished_demos.insert(id, rec.finish());
        }
        if let Some(rx) = c.take_ghost_receiver()
            && !rx.is_empty()
        {
            self.orphaned.push(rx);
        }
        if tell_peer {
            let pkt = Handshake::Disconnect { client_nonce: c.nonce, reason: reason.into() }.encode();
            // On an encrypted connection the goodbye is sealed too: a plain one is ignored.
            if let Ok(pkt) = c.seal(pkt) {
                self.transmits.push_back((c.remote_addr(), pkt));
            }
        }
        let (clock, group) = (self.clock, addr_group(c.remote_addr().ip()));
        if let Some(suppressed) = self.join_log.check(&group, clock) {
            c.span().in_scope(|| info!(reason, by_peer, suppressed, "disconnected"));
        }
        self.events.push_back(InterfaceEvent::Disconnected {
            connection: id,
            addr: c.remote_addr(),
            reason: reason.into(),
            by_peer,
        });
    }

    /// A datagram from `from`. Never panics, whatever the bytes. Ghosts the server sends
    /// go into `world` (the client's objects; an endpoint that never receives ghosts can pass
    /// an empty [`crate::ghost::GhostArena`]); if the connection ends, its ghosts leave
    /// `world` at once.
    pub fn handle_datagram(
        &mut self,
        now: u64,
        from: SocketAddr,
        data: &[u8],
        world: &mut dyn GhostClientWorld,
    ) {
        self.clock = now;
        self.handle_datagram_inner(now, from, data, &mut *world);
        self.release_ghosts(world);
    }

    fn handle_datagram_inner(
        &mut self,
        now: u64,
        from: SocketAddr,
        data: &[u8],
        world: &mut dyn GhostClientWorld,
    ) {
        let Some(&first) = data.first() else {
            self.stats.garbage += 1;
            return;
        };
        if first & 1 == 1 {
            let Some(&id) = self.by_addr.get(&from) else {
                self.stats.garbage += 1;
                return;
            };
            let Some(c) = self.connections.get_mut(&id) else { return };
            let arrival = c.arrive(now, data, &self.registry, world);
            if c.is_server() && c.established && !self.routable.contains(&id) {
                self.routable.insert(id);
            }
            self.after_arrival(id, arrival);
            return;
        }
        if first == INFO_PACKET_PREFIX {
            if self.info_packets.len() >= MAX_QUEUED_INFO_PACKETS {
                self.stats.info_dropped += 1;
            } else {
                self.info_packets.push_back((from, Bytes::copy_from_slice(data)));
            }
            return;
        }
        match Handshake::decode(data) {
            Ok(h) => self.handle_handshake(now, from, h),
            Err(_) => self.stats.garbage += 1,
        }
    }

    /// What the interface does after a connected datagram ([`NetConnection::arrive`]): its
    /// events are queued, a claimed connect token drops its rivals, and a goodbye, a bad
    /// packet or a timeout closes the connection.
    fn after_arrival(&mut self, id: ConnectionId, arrival: Arrival) {
        if !self.events_by_connection
            && let Some(c) = self.connections.get_mut(&id)
        {
            queue_events(&mut self.events, id, c, arrival.events);
        }
        self.after_events(id, arrival);
    }

    /// [`Self::after_arrival`] once the datagram's events are queued.
    fn after_events(&mut self, id: ConnectionId, arrival: Arrival) {
        if let Some(client_id) = arrival.claimed {
            self.drop_token_rivals(id, client_id);
        }
        if let Some(end) = arrival.close {
            self.close(id, &end.reason, end.tell_peer, end.by_peer);
        }
    }

    /// A batch of datagrams, as [`Self::handle_datagram`] one after another would handle
    /// them (the same events in the same order, the same closes), `parts` giving each one's
    /// sender and bytes. With packet threads ([`Self::set_transmit_threads`]) and a batch
    /// of at least 32 datagrams, all data for established server-side connections, each
    /// connection reads its own datagrams on the pool (a connection's packets touch only its
    /// own state and the class registry) and the interface then queues what they yielded in
    /// the batch's order; any other batch (a handshake, a client's ghosts, an unknown sender,
    /// a few datagrams not worth a fork and a join) goes one by one.
    pub fn handle_datagrams<D: Sync>(
        &mut self,
        now: u64,
        batch: &[D],
        parts: impl Fn(&D) -> (SocketAddr, &[u8]) + Sync,
        world: &mut dyn GhostClientWorld,
    ) {
        let pool = self.transmit_pool.clone();
        let parallel = batch.len() >= PARALLEL_BATCH;
        let Some(pool) = pool.filter(|p| parallel && self.route_batch(batch, &parts, p)) else {
            for d in batch {
                let (from, data) = parts(d);
                self.handle_datagram(now, from, data, world);
            }
            return;
        };
        self.clock = now;
        self.stats.datagrams_in_parallel += batch.len() as u64;
        let registry = &*self.registry;
        let inboxes = &self.inboxes[..];
        self.pass_room.for_each(&pool, &mut self.connections, |c| {
            let mine = inbox_of(inboxes, c.id());
            if !mine.is_empty() {
                c.read_inbox(now, registry, mine, |i| batch.get(i).map(|d| parts(d).1));
            }
        });
        self.merge_arrivals();
        self.release_ghosts(world);
    }

    /// After a routed batch was read on the pool: in the batch's order, each datagram's events
    /// queued and any close it asked for made. A connection closed by an earlier datagram has
    /// no arrival for its later ones (they count as garbage, as one by one); one still here
    /// with none left had nothing for the interface ([`Self::serve`] keeps only those that
    /// have, when events stay with their connections).
    fn merge_arrivals(&mut self) {
        for i in 0..self.route.len() {
            let id = self.route[i];
            let Some(c) = self.connections.get_mut(&id) else {
                self.stats.garbage += 1;
                continue;
            };
            let Some(arrival) = c.take_arrival() else { continue };
            if !self.events_by_connection {
                queue_events(&mut self.events, id, c, arrival.events);
            }
            if arrival.claimed.is_some() || arrival.close.is_some() {
                self.after_events(id, arrival);
            }
        }
        self.route.clear();
        self.inboxes.clear();
    }

    /// Routes a batch for [`Self::handle_datagrams`]: true (the connection of each datagram
    /// in `route`, and each connection's datagrams together in `inboxes`) when every datagram
    /// is data from the address of an established server-side connection (`routable`: no
    /// connection is touched on this thread); false (nothing routed) otherwise. The lookups
    /// (an address and a set lookup per datagram, and its first byte, which the socket
    /// wrote last) are made on `pool` in pieces of [`ROUTE_GRAIN`]; the lists are then
    /// filled and sorted on this thread.
    fn route_batch<D: Sync>(
        &mut self,
        batch: &[D],
        parts: &(impl Fn(&D) -> (SocketAddr, &[u8]) + Sync),
        pool: &rayon::ThreadPool,
    ) -> bool {
        use rayon::prelude::*;
        self.route.clear();
        self.inboxes.clear();
        let (by_addr, routable) = (&self.by_addr, &self.routable);
        let lookup = |d: &D| {
            let (from, data) = parts(d);
            match (data.first(), by_addr.get(&from)) {
                (Some(b), Some(&id)) if b & 1 == 1 && routable.contains(&id) => Some(id),
                _ => None,
            }
        };
        let looked_up = &mut self.looked_up;
        pool.install(|| batch.par_iter().with_min_len(ROUTE_GRAIN).map(lookup).collect_into_vec(looked_up));
        for (i, id) in self.looked_up.iter().enumerate() {
            // Not all of it: the batch goes one by one.
            let Some(id) = *id else {
                self.route.clear();
                self.inboxes.clear();
                return false;
            };
            self.route.push(id);
            self.inboxes.push((id, i as u32));
        }
        // Each connection's datagrams together, in the batch's order (indices grow).
        self.inboxes.sort_unstable();
        true
    }

    fn reject(&mut self, to: SocketAddr, client_nonce: u64, reason: String) {
        self.stats.connects_rejected += 1;
        debug!(%to, %reason, "connect request rejected");
        self.transmits.push_back((to, Handshake::ConnectReject { client_nonce, reason }.encode()));
    }

    fn handle_handshake(&mut self, now: u64, from: SocketAddr, h: Handshake) {
        match h {
            Handshake::ChallengeRequest { client_nonce } => {
                if !self.config.accept_connections {
                    return;
                }
                // Stateless: nothing is stored, whoever the source claims to be.
                let epoch = self.minter.epoch(now);
                let token = self.minter.token(epoch, from, client_nonce);
                self.stats.challenges_answered += 1;
                self.transmits
                    .push_back((from, Handshake::ChallengeResponse { client_nonce, epoch, token }.encode()));
            }
            Handshake::ConnectRequest {
                client_nonce,
                epoch,
                token,
                protocol_version,
                class_digest,
                ghost_digest,
                connect_data,
                public_key,
                connect_token,
            } => {
                if !self.config.accept_connections {
                    return;
                }
                self.handle_connect_request(
                    now,
                    from,
                    client_nonce,
                    epoch,
                    token,
                    protocol_version,
                    (class_digest, ghost_digest),
                    connect_data,
                    (public_key, connect_token),
                );
            }
            Handshake::ChallengeResponse { client_nonce, epoch, token } => {
                let Some(p) = self.pending.get_mut(&from) else { return };
                if p.nonce != client_nonce || p.step != PendingStep::Challenge {
                    return;
                }
                p.step = PendingStep::Connect { epoch, token };
                p.tries = 1;
                p.next_retry = now + self.config.connect_retry_ms;
                if let Some(p) = self.pending.get(&from) {
                    let pkt = self.connect_request(p);
                    self.transmits.push_back((from, pkt));
                }
            }
            Handshake::ConnectAccept { client_nonce, public_key } => {
                let Some(p) = self.pending.get(&from) else { return };
                if p.nonce != client_nonce || p.step == PendingStep::Challenge {
                    return;
                }
                let Some(p) = self.pending.remove(&from) else { return };
                let must_encrypt = self.config.encryption == Encryption::Required || p.token.is_some();
                let crypto = match (&p.key, public_key) {
                    (Some(key), Some(server_public)) => {
                        let ctx = KeyContext {
                            client_nonce,
                            token_key: p.token.as_ref().map(|t| &t.key),
                            client_public: key.public(),
                            server_public,
                        };
                        key.finish(server_public, false, &ctx)
                    }
                    _ => None,
                };
                if crypto.is_none() && (must_encrypt || public_key.is_some()) {
                    let reason = if public_key.is_some() {
                        "the server's key exchange failed"
                    } else {
                        "the server does not encrypt; this client requires it"
                    };
                    // The server thinks we are connected: tell it, then give up.
                    let bye = Handshake::Disconnect { client_nonce, reason: reason.into() }.encode();
                    self.transmits.push_back((from, bye));
                    self.events.push_back(InterfaceEvent::ConnectFailed {
                        connection: p.id,
                        addr: from,
                        reason: reason.into(),
                    });
                    return;
                }
                let seed = self.rng.next_u64();
                let mut c = NetConnection::new(
                    p.id,
                    from,
                    false,
                    p.nonce,
                    Bytes::new(),
                    self.config.client_rate,
                    self.config.protocol.clone(),
                    seed,
                    now,
                    &self.ghost_classes,
                    self.config.ghost,
                );
                c.crypto = crypto;
                c.span().in_scope(|| info!(encrypted = c.is_encrypted(), "connected to server"));
                self.by_addr.insert(from, p.id);
                self.insert_connection(p.id, c);
                self.events.push_back(InterfaceEvent::Connected {
                    connection: p.id,
                    addr: from,
                    is_server: false,
                    connect_data: Bytes::new(),
                });
            }
            Handshake::ConnectReject { client_nonce, reason } => {
                if reason.starts_with("server busy")
                    && let Some(p) = self.pending.get_mut(&from).filter(|p| p.nonce == client_nonce)
                    && p.busy_retries < BUSY_RETRIES
                {
                    // Back off and start over with a fresh challenge.
                    let wait = BUSY_BACKOFF_MS << p.busy_retries;
                    p.busy_retries += 1;
                    p.step = PendingStep::Challenge;
                    p.tries = 0;
                    p.next_retry = now + wait;
                    debug!(%from, wait, "server busy; trying again later");
                    return;
                }
                if reason.starts_with(STALE_TOKEN_REASON)
                    && let Some(p) = self.pending.get_mut(&from).filter(|p| p.nonce == client_nonce)
                    && matches!(p.step, PendingStep::Connect { .. })
                    && p.stale_restarts < STALE_TOKEN_RESTARTS
                {
                    // Our token outlived its epochs while our requests were being lost: the
                    // server is there, so ask for a fresh challenge at once instead of giving up.
                    p.stale_restarts += 1;
                    p.step = PendingStep::Challenge;
                    p.tries = 1;
                    p.next_retry = now + self.config.connect_retry_ms;
                    let pkt = Handshake::ChallengeRequest { client_nonce }.encode();
                    self.transmits.push_back((from, pkt));
                    debug!(%from, "challenge token expired; asking for a fresh one");
                    return;
                }
                if self.pending.get(&from).is_some_and(|p| p.nonce == client_nonce)
                    && let Some(p) = self.pending.remove(&from)
                {
                    self.events.push_back(InterfaceEvent::ConnectFailed {
                        connection: p.id,
                        addr: from,
                        reason,
                    });
                }
            }
            Handshake::Disconnect { client_nonce, reason } => {
                // A plain goodbye for an encrypted connection is ignored: anyone can forge one.
                if let Some(&id) = self.by_addr.get(&from)
                    && self.connections.get(&id).is_some_and(|c| c.nonce == client_nonce && !c.is_encrypted())
                {
                    self.close(id, &reason, false, true);
                }
            }
        }
    }

    fn connect_request(&self, p: &Pending) -> Bytes {
        let PendingStep::Connect { epoch, token } = p.step else {
            return Handshake::ChallengeRequest { client_nonce: p.nonce }.encode();
        };
        Handshake::ConnectRequest {
            client_nonce: p.nonce,
            epoch,
            token,
            protocol_version: self.config.protocol_version,
            class_digest: self.registry.digest(),
            ghost_digest: self.ghost_classes.digest(),
            connect_data: p.connect_data.clone(),
            public_key: p.key.as_ref().map(KeyExchange::public),
            connect_token: p.token.as_ref().map(|t| t.sealed.clone()).unwrap_or_default(),
        }
        .encode()
    }

    #[allow(clippy::too_many_arguments)]
    fn handle_connect_request(
        &mut self,
        now: u64,
        from: SocketAddr,
        client_nonce: u64,
        epoch: u32,
        token: u64,
        protocol_version: u32,
        (class_digest, ghost_digest): (u64, u64),
        connect_data: Bytes,
        (public_key, connect_token): (Option<[u8; 32]>, Bytes),
    ) {
        if let Err(e) = self.minter.check(now, epoch, from, client_nonce, token) {
            let reason = match e {
                TokenError::Invalid => "invalid challenge token",
                TokenError::Stale => STALE_TOKEN_REASON,
            };
            self.reject(from, client_nonce, reason.into());
            return;
        }
        // A retry of a request we accepted (our accept was lost): accept again.
        if let Some(&id) = self.by_addr.get(&from) {
            if let Some(c) = self.connections.get_mut(&id).filter(|c| c.nonce == client_nonce) {
                // The client is alive, still waiting for the accept: it must not time out
                // here while its retries are all it can send.
                c.peer_heard(now);
                self.transmits.push_back((from, c.accept_packet.clone()));
                return;
            }
            // The same address with a fresh challenge: the client restarted.
            self.close(id, "reconnected from the same address", true, false);
        }
        if self.used_tokens.contains_key(&token) {
            self.reject(from, client_nonce, "challenge token already used".into());
            return;
        }
        if protocol_version != self.config.protocol_version {
            let reason = format!(
                "protocol version mismatch: server {}, client {protocol_version}",
                self.config.protocol_version
            );
            self.reject(from, client_nonce, reason);
            return;
        }
        if class_digest != self.registry.digest() {
            self.reject(from, client_nonce, "network class mismatch: client and server builds differ".into());
            return;
        }
        if ghost_digest != self.ghost_classes.digest() {
            self.reject(from, client_nonce, "ghost class mismatch: client and server builds differ".into());
            return;
        }
        if self.connections.len() >= self.config.max_connections {
            self.reject(from, client_nonce, "server full".into());
            return;
        }
        let group = addr_group(from.ip());
        let same_ip = self.connections.values().filter(|c| addr_group(c.remote_addr().ip()) == group).count();
        if same_ip >= self.config.max_connections_per_ip {
            self.reject(from, client_nonce, "too many connections from your address".into());
            return;
        }
        let negotiating_here = self
            .connections
            .values()
            .filter(|c| !c.established && addr_group(c.remote_addr().ip()) == group)
            .count();
        // One address holds at most a quarter of the negotiation slots, so two cannot hold them
        // all, unless the operator let one address have every slot (every client on one host).
        let (per_ip, all) = (self.config.max_pending_per_ip, self.config.max_pending);
        let pending_cap = if per_ip >= all { per_ip } else { per_ip.min((all / 4).max(1)) };
        if self.negotiating() >= self.config.max_pending || negotiating_here >= pending_cap {
            self.reject(from, client_nonce, "server busy; try again".into());
            return;
        }
        // Each connection made costs a key exchange and a join: one address may make so many
        // a second (retries of a request already accepted came back above and cost nothing).
        if !self.connect_budget.allow(from.ip(), now) {
            self.stats.connects_rate_limited += 1;
            self.reject(from, client_nonce, "server busy; try again".into());
            return;
        }
        // The matchmaker's connect token, when this server requires one.
        let mut claims = None;
        if let Some(server_key) = self.config.connect_token_key {
            match ConnectToken::open(&server_key, &connect_token, self.wall_clock_s) {
                Ok(opened) => claims = Some(opened),
                Err(e) => {
                    self.reject(from, client_nonce, e.to_string());
                    return;
                }
            }
            // A token crosses in the clear, so anyone on the path can present it too; only the
            // client holding its key can finish the encrypted handshake. A connection that has
            // done so owns the token; until one has, every claimant may try (as many as the
            // negotiation limits let in), and the first to prove the key keeps the token
            // ([`Self::drop_token_rivals`]): a replay cannot lock the owner out.
            let id = claims.as_ref().map(|(t, _)| t.client_id);
            if self
                .connections
                .values()
                .any(|c| c.established && c.connect_token.as_ref().map(|t| t.client_id) == id)
            {
                self.reject(from, client_nonce, "connect token already in use".into());
                return;
            }
        }
        let must_encrypt = self.config.encryption == Encryption::Required || claims.is_some();
        let encrypt = public_key.is_some() && (self.config.encryption != Encryption::Off || claims.is_some());
        if must_encrypt && !encrypt {
            self.reject(from, client_nonce, "this server requires an encrypted connection".into());
            return;
        }
        if let Some(f) = self.filter.as_mut()
            && let Err(reason) = f(from, &connect_data)
        {
            self.reject(from, client_nonce, reason);
            return;
        }
        let (crypto, server_public) = match public_key.filter(|_| encrypt) {
            Some(client_public) => {
                let key = self.new_key();
                let ctx = KeyContext {
                    client_nonce,
                    token_key: claims.as_ref().map(|(_, k)| k),
                    client_public,
                    server_public: key.public(),
                };
                match key.finish(client_public, true, &ctx) {
                    Some(c) => (Some(c), Some(key.public())),
                    None => {
                        self.reject(from, client_nonce, "bad key exchange".into());
                        return;
                    }
                }
            }
            None => (None, None),
        };
        self.used_tokens.insert(token, self.minter.expiry(epoch));
        let id = self.alloc_id();
        let seed = self.rng.next_u64();
        let mut c = NetConnection::new(
            id,
            from,
            true,
            client_nonce,
            connect_data.clone(),
            self.config.server_rate,
            self.config.protocol.clone(),
            seed,
            now,
            &self.ghost_classes,
            self.config.ghost,
        );
        c.crypto = crypto;
        c.connect_token = claims.map(|(t, _)| t);
        c.accept_packet = Handshake::ConnectAccept { client_nonce, public_key: server_public }.encode();
        if let Some(suppressed) = self.join_log.check(&addr_group(from.ip()), now) {
            c.span().in_scope(|| info!(encrypted = c.is_encrypted(), suppressed, "client connected"));
        }
        self.transmits.push_back((from, c.accept_packet.clone()));
        self.by_addr.insert(from, id);
        self.insert_connection(id, c);
        self.stats.connects_accepted += 1;
        self.events.push_back(InterfaceEvent::Connected {
            connection: id,
            addr: from,
            is_server: true,
            connect_data,
        });
    }

    /// The next datagram to send, if any is due at `now`. `world` holds the objects this
    /// endpoint ghosts to its clients (an endpoint with none passes
    /// [`crate::ghost::NoObjects`]): each client packet gets a scoping pass and a ghost
    /// section filling what the events left of the packet.
    pub fn poll_transmit(&mut self, now: u64, world: &dyn GhostWorld) -> Option<(SocketAddr, Bytes)> {
        self.clock = now;
        if let Some(t) = self.transmits.pop_front() {
            return Some(t);
        }
        // One pass over every connection fills the queue; later calls drain it.
        self.fill_transmits(now, world);
        self.transmits.pop_front()
    }

    /// The next datagram already queued (by [`Self::serve`], a handshake answer, a goodbye),
    /// without building any: after `serve`, draining this sends what `poll_transmit` until
    /// `None` would, without a second pass over the connections that finds nothing.
    pub fn take_transmit(&mut self) -> Option<(SocketAddr, Bytes)> {
        self.transmits.pop_front()
    }

    /// Every connection's datagrams due at `now`, queued in connection-id order (on the
    /// pool when there is one and the world can be shared).
    fn fill_transmits(&mut self, now: u64, world: &dyn GhostWorld) {
        if let (Some(pool), Some(world)) = (self.transmit_pool.clone(), world.as_sync()) {
            self.fill_transmits_parallel(now, world, &pool);
            return;
        }
        debug_assert_eq!(self.sorted_ids.len(), self.connections.len());
        let mut failed = Vec::new();
        for id in &self.sorted_ids {
            let Some(c) = self.connections.get_mut(id) else { continue };
            let _span = c.span().clone().entered();
            loop {
                match c.poll_transmit(now, &self.registry, world) {
                    Ok(Some(b)) => self.transmits.push_back((c.remote_addr(), b)),
                    Ok(None) => break,
                    Err(reason) => {
                        failed.push((*id, reason));
                        break;
                    }
                }
            }
        }
        for (id, reason) in failed {
            self.close(id, &reason, true, false);
        }
    }

    /// Builds the connections' packets on `pool` (see [`Self::set_transmit_threads`]), each
    /// into its own queue, then queues them in connection-id order, as the one-thread pass
    /// does. Nothing is allocated for the pass itself.
    fn fill_transmits_parallel(
        &mut self,
        now: u64,
        world: &(dyn GhostWorld + Sync),
        pool: &rayon::ThreadPool,
    ) {
        let registry = &*self.registry;
        self.pass_room.for_each(pool, &mut self.connections, |c| c.prepare_transmits(now, registry, world));
        let mut order = std::mem::take(&mut self.order);
        order.clear();
        order.extend_from_slice(&self.sorted_ids);
        self.queue_prepared(&order, &mut Vec::new());
        self.order = order;
    }

    /// Queues the datagrams the connections `ids` (in increasing order) prepared on the pool,
    /// and those of `carried` (taken from their connections in their turns: sorted here by
    /// connection and place), all in connection-id order; then closes those of `ids` that
    /// found a reason to, as the one-thread pass does. `carried` is left empty.
    fn queue_prepared(&mut self, ids: &[ConnectionId], carried: &mut Vec<Outgoing>) {
        carried.sort_unstable_by_key(|&(id, place, ..)| (id, place));
        let mut carried = carried.drain(..).peekable();
        let mut failed = Vec::new();
        for id in ids {
            // A connection's carried datagrams (a failed one may have some) before its own;
            // none of one closed since its turn (as its prepared ones would go with it).
            while let Some((from, _, to, b)) = carried.next_if(|o| o.0 <= *id) {
                if self.sorted_ids.binary_search(&from).is_ok() {
                    self.transmits.push_back((to, b));
                }
            }
            let Some(c) = self.connections.get_mut(id) else { continue };
            let addr = c.remote_addr();
            while let Some(b) = c.take_prepared() {
                self.transmits.push_back((addr, b));
            }
            if let Some(reason) = c.take_failure() {
                failed.push((*id, reason));
            }
        }
        for (from, _, to, b) in carried {
            if self.sorted_ids.binary_search(&from).is_ok() {
                self.transmits.push_back((to, b));
            }
        }
        for (id, reason) in failed {
            self.close(id, &reason, true, false);
        }
    }

    /// Adds a connection, keeping [`Self::sorted_ids`] in order (new ids are the largest:
    /// usually a push).
    fn insert_connection(&mut self, id: ConnectionId, c: NetConnection) {
        if self.connections.insert(id, c).is_none() {
            let at = self.sorted_ids.partition_point(|x| *x < id);
            self.sorted_ids.insert(at, id);
        }
    }

    /// Server side: builds the connections' packets on `threads` threads (a pool of its
    /// own) when the world allows it ([`GhostWorld::as_sync`]); 0 or 1 (the default) builds
    /// them one after another. Either way the datagrams are the same and queue in the same
    /// order: each connection's packet reads only its own state, the class registry and the
    /// world, all shared read-only while the packets are built (docs/ARCHITECTURE.md).
    pub fn set_transmit_threads(&mut self, threads: usize) {
        self.build_transmit_pool(threads, false);
    }

    /// [`Self::set_transmit_threads`], each packet thread bound to a core of its own: the
    /// `i`-th of the cores this process may run on (its affinity mask, as `taskset` set it),
    /// on Linux when there are at least `threads` of them (otherwise, and elsewhere, the
    /// threads are not bound). A pass wakes the other packet threads when it starts; in a
    /// virtual machine the scheduler often queued a woken thread on the core of the thread
    /// that woke it (the other core, halted, did not count as idle), where it waited for
    /// that thread's time slice to end, and a tick's passes ran on one thread
    /// (docs/PERFORMANCE.md, issue 33's thirteenth pass); bound, it wakes on its own core.
    /// For a server that has the cores to itself: two servers bound to the same cores share
    /// them. The datagrams are the same either way.
    pub fn set_transmit_threads_pinned(&mut self, threads: usize) {
        self.build_transmit_pool(threads, true);
    }

    fn build_transmit_pool(&mut self, threads: usize, pinned: bool) {
        self.transmit_pool = None;
        if threads <= 1 {
            return;
        }
        let mut builder =
            rayon::ThreadPoolBuilder::new().num_threads(threads).thread_name(|i| format!("v12-transmit-{i}"));
        if pinned && let Some(cores) = pass::own_cores(threads) {
            builder = builder.start_handler(move |i| pass::bind_to_core(cores.get(i).copied()));
        }
        match builder.build() {
            Ok(pool) => self.transmit_pool = Some(Arc::new(pool)),
            Err(e) => warn!(threads, error = %e, "no transmit pool; building packets on one thread"),
        }
    }

    /// The packet threads, when there are some ([`Self::set_transmit_threads`]): a server
    /// loop run on them ([`PacketThreads::run`]) makes each pass ([`Self::serve`],
    /// [`Self::for_each_connection`]) without a thread outside the pool sleeping through it.
    pub fn packet_threads(&self) -> Option<PacketThreads> {
        self.transmit_pool.clone().map(PacketThreads)
    }

    /// Keep-alive pings for every connection, for a host that cannot serve its connections
    /// for a while (a script stopped in the debugger): the peers hear from us and do not time
    /// us out, and no timer runs here meanwhile. Nothing is read and no data is sent; the
    /// next [`Self::handle_datagram`]s and [`Self::poll_transmit`] carry on where they were.
    pub fn keepalive_packets(&mut self, now: u64) -> Vec<(SocketAddr, Bytes)> {
        let mut out = Vec::new();
        let mut failed = Vec::new();
        let mut ids: Vec<ConnectionId> = self.connections.keys().copied().collect();
        ids.sort_unstable();
        for id in ids {
            let Some(c) = self.connections.get_mut(&id) else { continue };
            match c.keepalive(now) {
                Ok(Some(b)) => out.push((c.remote_addr(), b)),
                Ok(None) => {}
                Err(reason) => failed.push((id, reason)),
            }
        }
        for (id, reason) in failed {
            self.close(id, &reason, true, false);
        }
        out
    }

    /// The next out-of-band info packet (first byte [`INFO_PACKET_PREFIX`]) and its sender.
    pub fn poll_info_packet(&mut self) -> Option<(SocketAddr, Bytes)> {
        self.info_packets.pop_front()
    }

    /// Queues an out-of-band datagram to send from this interface's socket (an info
    /// answer, a heartbeat to a master server).
    pub fn send_info_packet(&mut self, to: SocketAddr, data: Bytes) {
        self.transmits.push_back((to, data));
    }

    /// The next interface event.
    pub fn poll_event(&mut self) -> Option<InterfaceEvent> {
        self.events.pop_front()
    }

    /// When [`Self::handle_timeout`] (and then [`Self::poll_transmit`]) should next run.
    pub fn poll_timeout(&self, now: u64) -> Option<u64> {
        let mut at: Option<u64> = None;
        let mut consider = |t: u64| at = Some(at.map_or(t, |a| a.min(t)));
        if !self.transmits.is_empty() {
            consider(now);
        }
        for p in self.pending.values() {
            consider(p.next_retry);
        }
        for c in self.connections.values() {
            if let Some(t) = c.poll_timeout(now) {
                consider(t);
            }
            if !c.established {
                consider(c.created_at.saturating_add(self.config.negotiation_timeout_ms));
            }
        }
        if let Some(min_expiry) = self.used_tokens.values().min() {
            consider(*min_expiry);
        }
        at
    }

    /// Runs every timer due at `now`: handshake retries, keep-alives, timeouts.
    pub fn handle_timeout(&mut self, now: u64) {
        self.clock = now;
        self.pending_timers(now);
        let mut dead = Vec::new();
        let mut half_open = Vec::new();
        let deadline = self.config.negotiation_timeout_ms;
        for c in self.connections.values_mut() {
            let _span = c.span().clone().entered();
            c.handle_timeout(now);
        }
        for (id, c) in &self.connections {
            match c.expired(now, deadline) {
                Some(Served::TimedOut) => dead.push(*id),
                Some(_) => half_open.push(*id),
                None => {}
            }
        }
        self.close_expired(&mut dead, &mut half_open);
        self.housekeeping(now);
    }

    /// Our own connection attempts' timers: handshake retries, and attempts given up.
    fn pending_timers(&mut self, now: u64) {
        let mut failed = Vec::new();
        let mut resend = Vec::new();
        for (addr, p) in self.pending.iter_mut() {
            if now < p.next_retry {
                continue;
            }
            if p.tries >= self.config.connect_tries {
                let reason = match p.step {
                    PendingStep::Challenge => "no response from server",
                    PendingStep::Connect { .. } => "server did not accept the connection",
                };
                failed.push((*addr, p.id, reason));
            } else {
                p.tries += 1;
                p.next_retry = now + self.config.connect_retry_ms;
                resend.push(*addr);
            }
        }
        for addr in resend {
            if let Some(p) = self.pending.get(&addr) {
                let pkt = self.connect_request(p);
                self.transmits.push_back((addr, pkt));
            }
        }
        for (addr, id, reason) in failed {
            self.pending.remove(&addr);
            self.events.push_back(InterfaceEvent::ConnectFailed {
                connection: id,
                addr,
                reason: reason.into(),
            });
        }
    }

    /// Closes the connections whose timers ended them: timed out, then not confirmed in
    /// time, each in id order.
    fn close_expired(&mut self, dead: &mut [ConnectionId], half_open: &mut [ConnectionId]) {
        dead.sort_unstable();
        for id in dead.iter() {
            self.close(*id, "timed out", false, false);
        }
        half_open.sort_unstable();
        for id in half_open.iter() {
            self.stats.negotiations_timed_out += 1;
            self.close(*id, "handshake not completed in time", true, false);
        }
    }

    /// The timers' bookkeeping once the connections' have run: address budgets, log
    /// limits, used tokens, and queues a crowd grew giving their memory back.
    fn housekeeping(&mut self, now: u64) {
        self.connect_budget.prune(now);
        for (group, suppressed) in self.join_log.drain_suppressed(now) {
            info!(address = %group, suppressed, "join and leave lines suppressed");
        }
        self.used_tokens.retain(|_, expiry| *expiry > now);
        if self.used_tokens.capacity() > 4 * self.used_tokens.len() + 64 {
            self.used_tokens.shrink_to_fit();
        }
        // Queues that a crowd grew (a connect storm, a mass leave) give their memory back,
        // down to what the connections still here use in a tick (a datagram or two out and
        // a few events in each): a queue drained every tick is empty when this runs, and
        // shrinking it to nothing would make every tick grow it again.
        let keep = 256 + 4 * self.connections.len();
        fn trim<T>(q: &mut VecDeque<T>, keep: usize) {
            if q.capacity() > 2 * keep && q.len() < q.capacity() / 8 {
                q.shrink_to((q.len() * 2).max(keep));
            }
        }
        trim(&mut self.transmits, keep);
        trim(&mut self.events, keep);
        trim(&mut self.info_packets, keep);
    }
}

/// Queues the `count` events a connection's datagram made ready, in order.
fn queue_events(
    events: &mut VecDeque<InterfaceEvent>,
    id: ConnectionId,
    c: &mut NetConnection,
    count: usize,
) {
    for _ in 0..count {
        let Some(event) = c.pop_ready() else { break };
        events.push_back(InterfaceEvent::EventReceived { connection: id, event });
    }
}

/// A connection's datagrams in a routed batch: its run of `(connection, index)` entries in
/// the sorted list (empty when it has none).
fn inbox_of(inboxes: &[(ConnectionId, u32)], id: ConnectionId) -> &[(ConnectionId, u32)] {
    let from = inboxes.partition_point(|(c, _)| *c < id);
    // Its run is short (a datagram or two a batch): counted, not searched for.
    let to = from + inboxes[from..].iter().take_while(|(c, _)| *c == id).count();
    &inboxes[from..to]
}
