//! NetConnection: one connected peer. It owns the notify protocol endpoint, writes a data
//! packet whenever its rate allows and something wants sending, and keeps a record of what
//! went into each packet until the protocol says it was delivered or dropped.
//!
//! Data packet payload (after the protocol header):
//! `ack-request:1  rate?:1 [recv-period:10 recv-size:11]  events...  ghosts`
//! (the ghost section only in server → client packets; see [`crate::ghost::GhostManager`]).

use crate::connect_token::ConnectToken;
use crate::error::NetError;
use crate::event::{ConnectionId, NetEvent};
use crate::event_manager::{EventManager, EventRecord, EventStats};
use crate::ghost::{
    GhostClassRegistry, GhostClientWorld, GhostConfig, GhostManager, GhostReceiver, GhostRecord, GhostWorld,
    ObjectId,
};
use crate::rate::RateConfig;
use crate::registry::NetClassRegistry;
use crate::secure::{PacketCrypto, SEAL_OVERHEAD};
use crate::simnet::SimulatedNet;
use crate::strings::{SentString, StringReceiver, StringSender};
use bytes::{Bytes, BytesMut};
use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::Arc;
use tracing::{debug, trace};
use v12_bitstream::{BitReader, BitWriter};
use v12_notify_protocol::{ConnectionProtocol, ProtocolConfig, ProtocolError, Received};

/// Room of a connection's packet slab: the largest packet ([`crate::rate::MAX_PACKET_SIZE`])
/// fits, so the slab never grows.
const SLAB_BYTES: usize = crate::rate::MAX_PACKET_SIZE as usize + 1;
/// Bytes a connection's kept packet writer has room for from the start: twice the default
/// packet (a larger negotiated size grows it once).
const WRITER_ROOM: usize = 1024;

/// What went into one data packet (V12's `PacketNotify`).
#[derive(Debug)]
struct PacketRecord {
    seq: u32,
    sent_at: u64,
    rate: bool,
    elicits_ack: bool,
    events: EventRecord,
    strings: Vec<SentString>,
    ghosts: Option<GhostRecord>,
}

/// What one connected datagram did ([`NetConnection::arrive`]), for the interface to act on.
#[derive(Debug, Default)]
pub(crate) struct Arrival {
    /// Events it made ready (taken with `pop_ready`).
    pub(crate) events: usize,
    /// The connect token's client id, when this packet established the connection.
    pub(crate) claimed: Option<u64>,
    /// The connection ends.
    pub(crate) close: Option<Closing>,
}

/// What a connection's turn in the interface's one-pass pump
/// ([`crate::NetInterface::serve`]) left for the interface to do on its own thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Served {
    /// Nothing: no datagram due (or a datagram of the batch ends the connection, which the
    /// interface sees in its arrivals).
    Nothing,
    /// Datagrams prepared ([`NetConnection::take_prepared`]) or a reason to close
    /// ([`NetConnection::take_failure`]).
    Packets,
    /// Its protocol timed out: the interface closes it ("timed out").
    TimedOut,
    /// Not confirmed by the client within the negotiation timeout: the interface closes it.
    HalfOpen,
    /// Unconfirmed and holding a connect token: a datagram of the same batch may make it a
    /// rival of the token's owner, closed before its timers run, so its timers and packets
    /// wait for the interface (after the batch's arrivals), as one by one.
    Deferred,
}

/// Why and how a connection ends after a datagram.
#[derive(Debug)]
pub(crate) struct Closing {
    pub(crate) reason: String,
    pub(crate) tell_peer: bool,
    pub(crate) by_peer: bool,
}

/// Counters of one connection.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct ConnectionStats {
    /// Smoothed round-trip time (ms).
    pub rtt_ms: f32,
    /// Datagrams handed out (data, ack and ping; after simulated loss).
    pub packets_sent: u64,
    /// Bytes handed out.
    pub bytes_sent: u64,
    /// Datagrams received for this connection.
    pub packets_received: u64,
    /// Bytes received.
    pub bytes_received: u64,
    /// Data packets the peer acknowledged.
    pub data_delivered: u64,
    /// Data packets reported lost.
    pub data_dropped: u64,
    /// Datagrams dropped by the simulated network.
    pub simulated_drops: u64,
    /// Encrypted connections: datagrams from the peer's address that did not open (forged,
    /// corrupted or replayed), dropped without effect.
    pub unopened_dropped: u64,
    /// Event counters.
    pub events: EventStats,
    /// Tagged strings written with their text (not as an id alone).
    pub string_texts_sent: u64,
    /// Current send period (ms) after negotiation.
    pub send_period_ms: u32,
    /// Current maximum packet size (bytes).
    pub send_size: u32,
}

/// One connection (client or server side).
#[derive(Debug)]
pub struct NetConnection {
    id: ConnectionId,
    addr: SocketAddr,
    is_server: bool,
    pub(crate) nonce: u64,
    pub(crate) established: bool,
    /// When the connection was made (ms): a server-side one not established by
    /// `InterfaceConfig::negotiation_timeout_ms` later is dropped.
    pub(crate) created_at: u64,
    connect_data: Bytes,
    protocol: ConnectionProtocol,
    events: EventManager,
    strings_tx: StringSender,
    strings_rx: StringReceiver,
    records: VecDeque<PacketRecord>,
    /// The data packet's writer, kept between packets (its buffer is reused).
    writer: BitWriter,
    /// Where the packets leave from: each is split off as `Bytes`, and the slab reclaims its
    /// room when they are dropped (one allocation for the connection, not one a packet).
    slab: BytesMut,
    local_rate: RateConfig,
    peer_rate: Option<(u32, u32)>,
    rate_confirmed: bool,
    rate_in_flight: u32,
    next_send_at: u64,
    last_elicit_at: u64,
    eliciting_in_flight: u32,
    owe_ack: bool,
    sim: SimulatedNet,
    out: VecDeque<Bytes>,
    /// Datagrams built by [`Self::prepare_transmits`] on a packet thread, for the
    /// interface to queue in connection order, and the reason to close found meanwhile.
    prepared: VecDeque<Bytes>,
    failure: Option<String>,
    /// What each of a batch's datagrams read on a packet thread ([`Self::read_inbox`]) did,
    /// for the interface in batch order.
    arrivals: VecDeque<Arrival>,
    stats: ConnectionStats,
    /// Server side: this client's ghosting.
    ghosts: Option<GhostManager>,
    /// Server side: the object whose camera scopes this client (`None`: only always-scoped).
    scope_object: Option<ObjectId>,
    /// Client side: the ghosts the server sent.
    ghost_rx: Option<GhostReceiver>,
    /// Client side: a copy of every accepted data payload for a demo recording.
    pub(crate) recorder: Option<crate::demo::DemoRecorder>,
    /// The packet ciphers of an encrypted connection.
    pub(crate) crypto: Option<PacketCrypto>,
    /// Server side: the accept datagram, sent again if the client's request is repeated.
    pub(crate) accept_packet: Bytes,
    /// Server side: the matchmaker's token the client presented.
    pub(crate) connect_token: Option<ConnectToken>,
    /// The `connection` tracing span (id, peer address, side): the interface enters it while
    /// it works on this connection, so every log line says whose it is.
    span: tracing::Span,
    /// Until when a turn of [`Self::serve`] without datagrams has nothing to do (its timers,
    /// its next packet: [`Self::next_due`]), so the pass skips it; 0 (due now) after anything
    /// but a turn changes the connection ([`Self::touch`]).
    due_at: u64,
}

impl NetConnection {
    /// This connection's tracing span (`connection{id=.. peer=.. side=..}`); a host can enter
    /// it around its own work for the connection.
    pub fn span(&self) -> &tracing::Span {
        &self.span
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        id: ConnectionId,
        addr: SocketAddr,
        is_server: bool,
        nonce: u64,
        connect_data: Bytes,
        rate: RateConfig,
        mut protocol: ProtocolConfig,
        sim_seed: u64,
        now: u64,
        ghost_classes: &Arc<GhostClassRegistry>,
        ghost_config: GhostConfig,
    ) -> Self {
        // Both ends derive the initial sequences from the client's secret nonce, so a blind
        // spoofer cannot guess them.
        let (client_seq, server_seq) = (nonce as u32, (nonce >> 32) as u32);
        let (send, recv) = if is_server { (server_seq, client_seq) } else { (client_seq, server_seq) };
        protocol.initial_send_seq = send;
        protocol.initial_recv_seq = recv;
        protocol.prefix = (1, 1);
        let side = if is_server { "server" } else { "client" };
        Self {
            span: tracing::info_span!("connection", id = %id, peer = %addr, side),
            id,
            addr,
            is_server,
            nonce,
            established: !is_server,
            created_at: now,
            connect_data,
            protocol: ConnectionProtocol::new(protocol, now),
            events: EventManager::new(id, is_server),
            strings_tx: StringSender::default(),
            strings_rx: StringReceiver::default(),
            records: VecDeque::new(),
            // Room for a packet and an entry tried past its end, so the kept writer does not
            // grow (allocate) as bigger entries come along mid-match.
            writer: BitWriter::with_budget_bytes(WRITER_ROOM),
            slab: BytesMut::new(),
            local_rate: rate.clamped(),
            peer_rate: None,
            rate_confirmed: false,
            rate_in_flight: 0,
            next_send_at: now,
            last_elicit_at: now,
            eliciting_in_flight: 0,
            owe_ack: false,
            sim: SimulatedNet::new(sim_seed),
            out: VecDeque::new(),
            prepared: VecDeque::new(),
            failure: None,
            arrivals: VecDeque::new(),
            stats: ConnectionStats::default(),
            ghosts: is_server.then(|| {
                let mut m = GhostManager::new(ghost_config, ghost_classes.clone());
                m.set_connection(id);
                m
            }),
            scope_object: None,
            ghost_rx: (!is_server).then(|| GhostReceiver::new(ghost_classes.clone())),
            recorder: None,
            crypto: None,
            accept_packet: Bytes::new(),
            connect_token: None,
            due_at: 0,
        }
    }

    /// Something changed this connection outside its turn of [`Self::serve`] (an event
    /// posted, a datagram read, its ghosting or rate changed, its timers run): its next turn
    /// must run whatever [`Self::next_due`] said.
    fn touch(&mut self) {
        self.due_at = 0;
    }

    /// True when the packets are encrypted ([`crate::Encryption`]).
    pub fn is_encrypted(&self) -> bool {
        self.crypto.is_some()
    }
    /// Server side: the connect token the client presented, when the server requires them.
    pub fn connect_token(&self) -> Option<&ConnectToken> {
        self.connect_token.as_ref()
    }

    /// Opens a datagram of an encrypted connection: the plain packet, or `None` (dropped and
    /// counted) when it does not open (or the connection is plain).
    pub(crate) fn open(&mut self, data: &[u8]) -> Option<Vec<u8>> {
        match self.crypto.as_mut()?.open(data) {
            Ok(plain) => {
                self.stats.bytes_received += SEAL_OVERHEAD as u64;
                Some(plain)
            }
            Err(e) => {
                self.stats.unopened_dropped += 1;
                tracing::trace!(?e, "dropped a datagram that does not open");
                None
            }
        }
    }

    /// Seals a datagram for the peer on an encrypted connection (plain ones pass through);
    /// `Err` when the key is used up.
    pub(crate) fn seal(&mut self, plain: Bytes) -> Result<Bytes, String> {
        match self.crypto.as_mut() {
            None => Ok(plain),
            Some(c) => c.seal(&plain).ok_or_else(|| "packet counter exhausted; reconnect".to_string()),
        }
    }

    /// Server side: this client's ghost manager (start, stop, reset, statistics).
    pub fn ghost_manager(&self) -> Option<&GhostManager> {
        self.ghosts.as_ref()
    }
    pub(crate) fn ghost_manager_mut(&mut self) -> Option<&mut GhostManager> {
        self.touch();
        self.ghosts.as_mut()
    }
    /// Client side: the ghost id ↔ client object table.
    pub fn ghost_receiver(&self) -> Option<&GhostReceiver> {
        self.ghost_rx.as_ref()
    }
    pub(crate) fn take_ghost_receiver(&mut self) -> Option<GhostReceiver> {
        self.touch();
        self.ghost_rx.take()
    }
    /// Server side: the object whose camera scopes this client's ghosts.
    pub fn scope_object(&self) -> Option<ObjectId> {
        self.scope_object
    }
    pub(crate) fn set_scope_object(&mut self, object: Option<ObjectId>) {
        self.touch();
        self.scope_object = object;
    }
    pub(crate) fn strings_rx(&self) -> &StringReceiver {
        &self.strings_rx
    }
    /// The receiving side of the events (a demo's start block records its state).
    pub(crate) fn events(&self) -> &crate::event_manager::EventManager {
        &self.events
    }
    pub(crate) fn events_mut(&mut self) -> &mut EventManager {
        self.touch();
        &mut self.events
    }

    /// Milliseconds between this connection's packets, as both ends' rates agree (what
    /// `stats().send_period_ms` says, without building the whole record).
    pub fn send_period_ms(&self) -> u32 {
        self.local_rate.effective(self.peer_rate).0
    }

    /// This connection's id.
    pub fn id(&self) -> ConnectionId {
        self.id
    }
    /// The peer's address.
    pub fn remote_addr(&self) -> SocketAddr {
        self.addr
    }
    /// True on the accepting (server) side.
    pub fn is_server(&self) -> bool {
        self.is_server
    }
    /// The application data the client sent with its connect request (server side).
    pub fn connect_data(&self) -> &Bytes {
        &self.connect_data
    }
    /// Smoothed round-trip time in ms.
    pub fn rtt_ms(&self) -> f32 {
        self.protocol.rtt_ms()
    }
    /// Counters so far.
    pub fn stats(&self) -> ConnectionStats {
        let (send_period_ms, send_size) = self.local_rate.effective(self.peer_rate);
        ConnectionStats {
            rtt_ms: self.protocol.rtt_ms(),
            events: self.events.stats(),
            simulated_drops: self.sim.dropped,
            string_texts_sent: self.strings_tx.texts_sent,
            send_period_ms,
            send_size,
            ..self.stats
        }
    }
    /// Events queued or in flight and not yet acknowledged.
    pub fn pending_events(&self) -> usize {
        self.events.queued_len()
            + self.records.iter().map(|r| usize::from(!r.events.is_empty())).sum::<usize>()
    }
    /// Guaranteed-ordered events received early, held until their predecessors arrive.
    pub fn held_events(&self) -> usize {
        self.events.held_len()
    }
    /// True once the peer is known to have the text of this tagged string.
    pub fn string_confirmed(&self, handle: &crate::StringHandle) -> bool {
        self.strings_tx.is_confirmed(handle)
    }
    /// The notify protocol endpoint (read-only: RTT, window, header statistics).
    pub fn protocol(&self) -> &ConnectionProtocol {
        &self.protocol
    }

    /// The peer retried its connect request (our accept was lost): it is alive.
    pub(crate) fn peer_heard(&mut self, now: u64) {
        self.touch();
        self.protocol.peer_heard(now);
    }

    pub(crate) fn post_event(
        &mut self,
        registry: &NetClassRegistry,
        event: Box<dyn NetEvent>,
    ) -> crate::Result<()> {
        self.touch();
        self.events.post(registry, event)
    }

    pub(crate) fn set_simulated_net_params(&mut self, loss: f32, latency_ms: u64) {
        self.touch();
        self.sim.set_params(loss, latency_ms);
    }

    pub(crate) fn set_rate(&mut self, rate: RateConfig) {
        self.touch();
        self.local_rate = rate.clamped();
        self.rate_confirmed = false;
    }

    pub(crate) fn pop_ready(&mut self) -> Option<Box<dyn NetEvent>> {
        self.events.pop_ready()
    }

    pub(crate) fn close(&mut self) {
        self.touch();
        self.events.close();
    }

    pub(crate) fn is_timed_out(&self) -> bool {
        self.protocol.is_timed_out()
    }

    /// A datagram from the peer's address with the connected-packet bit: opened (on an
    /// encrypted connection), read, and what the interface must do next.
    pub(crate) fn arrive(
        &mut self,
        now: u64,
        data: &[u8],
        registry: &NetClassRegistry,
        world: &mut dyn GhostClientWorld,
    ) -> Arrival {
        self.touch();
        let _span = self.span.clone().entered();
        let opened;
        let data = if self.is_encrypted() {
            let Some(plain) = self.open(data) else { return Arrival::default() };
            opened = plain;
            if opened.first().is_some_and(|b| b & 1 == 0) {
                // A sealed goodbye.
                if let Ok(crate::handshake::Handshake::Disconnect { client_nonce, reason }) =
                    crate::handshake::Handshake::decode(&opened)
                    && client_nonce == self.nonce
                {
                    let close = Some(Closing { reason, tell_peer: false, by_peer: true });
                    return Arrival { close, ..Arrival::default() };
                }
                return Arrival::default();
            }
            &opened[..]
        } else {
            data
        };
        let was_established = self.established;
        let ready_before = self.events.ready_len();
        let result = self.handle_packet(now, data, registry, world);
        // The first authenticated packet proves the client holds the connect token's key:
        // the token is this connection's now, and replays of it elsewhere are dropped.
        let claimed =
            self.connect_token.as_ref().filter(|_| self.established && !was_established).map(|t| t.client_id);
        let close = match result {
            Err(e) => {
                debug!(connection = %self.id, error = %e, "dropping connection after a bad packet");
                Some(Closing { reason: format!("protocol error: {e}"), tell_peer: true, by_peer: false })
            }
            Ok(()) if self.is_timed_out() => {
                Some(Closing { reason: "timed out".into(), tell_peer: false, by_peer: false })
            }
            Ok(()) => None,
        };
        Arrival { events: self.events.ready_len() - ready_before, claimed, close }
    }

    /// Reads this connection's datagrams of a batch (`mine`: their indices in the batch, in
    /// order; `data(index)` gives each one's bytes) on a packet thread; stops at one that
    /// ends the connection.
    pub(crate) fn read_inbox<'b>(
        &mut self,
        now: u64,
        registry: &NetClassRegistry,
        mine: &[(ConnectionId, u32)],
        data: impl Fn(usize) -> Option<&'b [u8]>,
    ) {
        // A server-side connection receives no ghosts: nothing goes into this world.
        let mut no_ghosts = crate::ghost::GhostArena::new();
        for &(_, i) in mine {
            let Some(bytes) = data(i as usize) else { continue };
            let arrival = self.arrive(now, bytes, registry, &mut no_ghosts);
            let ends = arrival.close.is_some();
            self.arrivals.push_back(arrival);
            if ends {
                break;
            }
        }
    }

    /// This connection's turn in [`crate::NetInterface::serve`]'s pass, on a packet thread:
    /// its datagrams of the batch (`mine`, when the batch was routed), its timers, and every
    /// datagram due at `now`, in the order the interface's one-thread steps take them
    /// (`handle_datagrams`, `handle_timeout`, `poll_transmit`). A connection that the batch
    /// or its timers end prepares nothing; what the interface must do is the answer. With
    /// `events_stay` (the events remain in this connection's queue, not the interface's)
    /// only the arrivals the interface must act on are kept (a claimed token, a close).
    pub(crate) fn serve<'b>(
        &mut self,
        now: u64,
        registry: &NetClassRegistry,
        world: &dyn GhostWorld,
        (mine, data): (&[(ConnectionId, u32)], impl Fn(usize) -> Option<&'b [u8]>),
        (negotiation_timeout_ms, events_stay): (u64, bool),
    ) -> Served {
        if mine.is_empty() && now < self.due_at {
            // Nothing due and nothing arrived: the turn would find nothing to do.
            return Served::Nothing;
        }
        self.touch();
        if !mine.is_empty() {
            self.read_inbox(now, registry, mine, data);
            if events_stay {
                self.arrivals.retain(|a| a.claimed.is_some() || a.close.is_some());
            }
            if self.arrivals.back().is_some_and(|a| a.close.is_some()) {
                return Served::Nothing;
            }
        }
        if !self.established && self.connect_token.is_some() {
            return Served::Deferred;
        }
        {
            let _span = self.span.clone().entered();
            self.handle_timeout(now);
        }
        if let Some(expired) = self.expired(now, negotiation_timeout_ms) {
            return expired;
        }
        self.prepare_transmits(now, registry, world);
        self.due_at = self.next_due(now, negotiation_timeout_ms);
        if self.prepared.is_empty() && self.failure.is_none() { Served::Nothing } else { Served::Packets }
    }

    /// After a turn of [`Self::serve`] at `now`: the earliest time a turn without datagrams
    /// could do anything (run a timer, close, send), [`Self::poll_timeout`]'s answer, or
    /// the negotiation deadline of an unconfirmed connection. Everything it reads changes
    /// only in a turn or through a method that calls [`Self::touch`]; the ghost manager's
    /// wish to send (the world's changes are seen only when a packet is written) is in it
    /// as "ghosting", which only the manager's own methods change.
    fn next_due(&self, now: u64, negotiation_timeout_ms: u64) -> u64 {
        if self.failure.is_some()
            || !self.arrivals.is_empty()
            || (self.connect_token.is_some() && !self.established)
        {
            return 0;
        }
        let mut at = self.poll_timeout(now).unwrap_or(u64::MAX);
        if !self.established {
            at = at.min(self.created_at.saturating_add(negotiation_timeout_ms));
        }
        at
    }

    /// After its timers: whether the interface must close this connection (timed out, or
    /// not confirmed within the negotiation timeout).
    pub(crate) fn expired(&self, now: u64, negotiation_timeout_ms: u64) -> Option<Served> {
        if self.is_timed_out() {
            Some(Served::TimedOut)
        } else if !self.established && now >= self.created_at.saturating_add(negotiation_timeout_ms) {
            Some(Served::HalfOpen)
        } else {
            None
        }
    }

    /// True while [`Self::read_inbox`]'s arrivals wait for the interface.
    pub(crate) fn has_arrivals(&self) -> bool {
        !self.arrivals.is_empty()
    }

    /// The next arrival [`Self::read_inbox`] recorded.
    pub(crate) fn take_arrival(&mut self) -> Option<Arrival> {
        self.arrivals.pop_front()
    }

    /// A connected datagram from the peer. `Err` carries the reason to drop the connection.
    pub(crate) fn handle_packet(
        &mut self,
        now: u64,
        data: &[u8],
        registry: &NetClassRegistry,
        world: &mut dyn GhostClientWorld,
    ) -> Result<(), NetError> {
        self.touch();
        self.stats.packets_received += 1;
        self.stats.bytes_received += data.len() as u64;
        let mut r = BitReader::new(data);
        let received = self.protocol.handle_packet(now, &mut r);
        self.drain_notifies();
        match received {
            Ok(Received::Data { .. }) => {
                self.established = true;
                if let Some(rec) = self.recorder.as_mut() {
                    rec.packet(now, data, r.bit_position());
                }
                self.read_payload(&mut r, registry, world)
            }
            Ok(Received::Ping | Received::Ack) => {
                self.established = true;
                Ok(())
            }
            Err(ProtocolError::TimedOut) => Ok(()),
            Err(e) => {
                trace!(connection = %self.id, error = ?e, "packet ignored");
                Ok(())
            }
        }
    }

    fn read_payload(
        &mut self,
        r: &mut BitReader<'_>,
        registry: &NetClassRegistry,
        world: &mut dyn GhostClientWorld,
    ) -> Result<(), NetError> {
        if r.read_flag()? {
            self.owe_ack = true;
        }
        if r.read_flag()? {
            let offer = RateConfig::read_offer(r)?;
            if self.peer_rate != Some(offer) {
                debug!(connection = %self.id, period = offer.0, size = offer.1, "peer rate offer");
                self.peer_rate = Some(offer);
            }
        }
        self.events.read_packet(r, registry, &mut self.strings_rx)?;
        let Some(rx) = self.ghost_rx.as_mut() else { return Ok(()) };
        rx.read_packet(world, r)?;
        Ok(())
    }

    fn drain_notifies(&mut self) {
        while let Some(n) = self.protocol.poll_notify() {
            let Some(rec) = self.records.pop_front() else {
                debug!(connection = %self.id, seq = n.seq, "notify without a record");
                continue;
            };
            debug_assert_eq!(rec.seq, n.seq, "notifies arrive in send order");
            if rec.rate {
                self.rate_in_flight -= 1;
            }
            if rec.elicits_ack {
                self.eliciting_in_flight -= 1;
            }
            if n.delivered {
                self.stats.data_delivered += 1;
                if rec.rate {
                    self.rate_confirmed = true;
                }
                self.strings_tx.delivered(&rec.strings);
                self.events.packet_delivered(rec.events);
                if let (Some(g), Some(m)) = (rec.ghosts, self.ghosts.as_mut()) {
                    m.packet_delivered(g);
                }
            } else {
                self.stats.data_dropped += 1;
                self.events.packet_dropped(rec.events);
                if let (Some(g), Some(m)) = (rec.ghosts, self.ghosts.as_mut()) {
                    m.packet_dropped(g);
                }
            }
        }
    }

    fn probe_delay(&self) -> u64 {
        let (period, _) = self.local_rate.effective(self.peer_rate);
        let rtt = self.protocol.rtt_ms().max(1.0) as u64;
        (2 * rtt + 100).max(4 * u64::from(period))
    }

    /// Why this side would send a data packet now, ignoring the rate timer.
    fn data_wanted(&self, now: u64) -> Option<bool> {
        if self.protocol.window_full() || !self.established {
            return None;
        }
        let rate = !self.rate_confirmed && self.rate_in_flight == 0;
        let probe = self.eliciting_in_flight > 0 && now >= self.last_elicit_at + self.probe_delay();
        // While ghosting, the server sends every period: object changes live in the world,
        // which is only seen when a packet is written.
        let ghosting = self.ghosts.as_ref().is_some_and(|g| g.is_ghosting() || g.has_data_to_send());
        if self.events.has_data_to_send() || rate || probe {
            Some(true)
        } else if self.owe_ack || ghosting {
            Some(false)
        } else {
            None
        }
    }

    fn push_out(&mut self, now: u64, bytes: Bytes) {
        if let Some(b) = self.sim.send(now, bytes) {
            self.out.push_back(b);
        }
    }

    /// The next datagram for the peer, if one is due. `Err` carries a reason to close.
    pub(crate) fn poll_transmit(
        &mut self,
        now: u64,
        registry: &NetClassRegistry,
        world: &dyn GhostWorld,
    ) -> Result<Option<Bytes>, String> {
        self.touch();
        // A fatal event state (a backlog over its cap) closes the connection even when no
        // packet can go out (an unacknowledging peer fills the send window).
        if let Some(reason) = self.events.take_fatal() {
            return Err(reason);
        }
        if self.out.is_empty() {
            if let Some(b) = self.protocol.poll_transmit(now) {
                self.owe_ack = false;
                self.push_out(now, b);
            }
            if now >= self.next_send_at
                && let Some(elicit) = self.data_wanted(now)
            {
                let bytes = self.write_data_packet(now, registry, elicit, world)?;
                self.push_out(now, bytes);
            }
            while let Some(b) = self.sim.release(now) {
                self.out.push_back(b);
            }
        }
        let Some(b) = self.out.pop_front() else { return Ok(None) };
        let b = self.seal(b)?;
        self.stats.packets_sent += 1;
        self.stats.bytes_sent += b.len() as u64;
        Ok(Some(b))
    }

    /// Every datagram due at `now`, built into this connection's own queue (on a packet
    /// thread: it reads only this connection, the registry and the world); the interface
    /// takes them with [`Self::take_prepared`] and any reason to close with
    /// [`Self::take_failure`].
    pub(crate) fn prepare_transmits(
        &mut self,
        now: u64,
        registry: &NetClassRegistry,
        world: &dyn GhostWorld,
    ) {
        let _span = self.span.clone().entered();
        loop {
            match self.poll_transmit(now, registry, world) {
                Ok(Some(b)) => self.prepared.push_back(b),
                Ok(None) => break,
                Err(reason) => {
                    self.failure = Some(reason);
                    break;
                }
            }
        }
    }

    pub(crate) fn take_prepared(&mut self) -> Option<Bytes> {
        self.prepared.pop_front()
    }

    /// Whether a turn left a reason to close ([`Self::take_failure`]).
    pub(crate) fn has_failure(&self) -> bool {
        self.failure.is_some()
    }

    pub(crate) fn take_failure(&mut self) -> Option<String> {
        self.failure.take()
    }

    /// A keep-alive ping while the host cannot serve this connection (see
    /// `NotifyProtocol::keepalive_ping`). `Err` carries a reason to close.
    pub(crate) fn keepalive(&mut self, now: u64) -> Result<Option<Bytes>, String> {
        self.touch();
        let Some(b) = self.protocol.keepalive_ping(now) else { return Ok(None) };
        let b = self.seal(b)?;
        self.stats.packets_sent += 1;
        self.stats.bytes_sent += b.len() as u64;
        Ok(Some(b))
    }

    fn write_data_packet(
        &mut self,
        now: u64,
        registry: &NetClassRegistry,
        elicit: bool,
        world: &dyn GhostWorld,
    ) -> Result<Bytes, String> {
        let (period, size) = self.local_rate.effective(self.peer_rate);
        // An encrypted packet keeps within the negotiated size, header and tag included.
        let reserve = if self.crypto.is_some() { SEAL_OVERHEAD } else { 0 };
        let w = &mut self.writer;
        w.clear();
        w.set_budget_bits((size as usize).saturating_sub(reserve).max(64) * 8);
        let seq =
            self.protocol.try_begin_data_packet(now, w).map_err(|e| format!("notify protocol: {e:?}"))?;
        w.write_flag(elicit);
        let rate = !self.rate_confirmed;
        if w.write_flag(rate) {
            self.local_rate.write_offer(w);
        }
        // Two end flags for the event sections, one for an empty ghost section.
        let reserve = 2 + usize::from(self.is_server);
        let capacity = (size as usize * 8).saturating_sub(w.bit_position() + reserve);
        let mut strings = Vec::new();
        let events = self.events.write_packet(w, registry, &mut self.strings_tx, &mut strings, capacity);
        if let Some(reason) = self.events.take_fatal() {
            return Err(reason);
        }
        let mut ghosts = None;
        if self.is_server {
            match self.ghosts.as_mut() {
                Some(m) => match self.scope_object {
                    Some(scope) => ghosts = Some(m.scope_and_write_packet(world, scope, w)),
                    None => {
                        m.begin_scope(crate::ghost::CameraScopeQuery::default());
                        let mut always = Vec::new();
                        world.for_each_scope_always(&mut |id| always.push(id));
                        for id in always {
                            m.object_in_scope(world, id);
                        }
                        m.end_scope();
                        ghosts = Some(m.write_packet(world, w));
                    }
                },
                None => {
                    w.write_flag(false);
                }
            }
        }
        let ghost_ack = ghosts.as_ref().is_some_and(|g| !g.is_empty());
        let elicits_ack = elicit || !events.is_empty() || rate || ghost_ack;
        if elicits_ack {
            self.eliciting_in_flight += 1;
            self.last_elicit_at = now;
        }
        if rate {
            self.rate_in_flight += 1;
        }
        self.records.push_back(PacketRecord {
            seq,
            sent_at: now,
            rate,
            elicits_ack,
            events,
            strings,
            ghosts,
        });
        // On the schedule, not from `now`: a host that polls on its 32 ms ticks sends a
        // 100 ms period's packet up to a tick late, and `now + period` made every period
        // 128 ms. Late by a whole period or more (the connection was idle), start afresh.
        let due = self.next_send_at + u64::from(period);
        self.next_send_at = if due > now { due } else { now + u64::from(period) };
        self.owe_ack = false;
        trace!(connection = %self.id, seq, bits = w.bit_position(), "data packet");
        // Into the connection's slab: once the last packet has been sent and dropped, the
        // slab takes its room back, so a packet allocates nothing.
        // (While earlier packets are still held, by a simulated latency, a new slab starts and
        // the old one goes with its last packet.)
        let bytes = w.as_bytes();
        if self.slab.capacity() < bytes.len() && !self.slab.try_reclaim(bytes.len()) {
            self.slab = BytesMut::with_capacity(bytes.len().max(SLAB_BYTES));
        }
        self.slab.extend_from_slice(bytes);
        Ok(self.slab.split().freeze())
    }

    /// When this connection next needs [`Self::handle_timeout`] or a transmit poll.
    pub(crate) fn poll_timeout(&self, now: u64) -> Option<u64> {
        let mut at = self.protocol.poll_timeout();
        let mut consider = |t: u64| at = Some(at.map_or(t, |a| a.min(t)));
        if let Some(t) = self.sim.next_release() {
            consider(t);
        }
        if !self.out.is_empty() {
            consider(now);
        }
        if self.data_wanted(now).is_some() {
            consider(self.next_send_at.max(now));
        } else if self.eliciting_in_flight > 0 && !self.protocol.window_full() && self.established {
            consider((self.last_elicit_at + self.probe_delay()).max(self.next_send_at));
        }
        at
    }

    pub(crate) fn handle_timeout(&mut self, now: u64) {
        self.touch();
        self.protocol.handle_timeout(now);
        self.drain_notifies();
    }

    /// Oldest data packet still waiting for its notify, as (seq, sent_at).
    pub fn oldest_in_flight(&self) -> Option<(u32, u64)> {
        self.records.front().map(|r| (r.seq, r.sent_at))
    }
}
