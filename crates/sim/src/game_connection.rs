//! GameConnection (V12 reference section NetGameConnection): the control object, moves, client-side
//! prediction and server correction, plus connection scripting with the Torque names.
//!
//! **How moves travel.** `NetConnection` has no game-specific packet section, so moves ride
//! in an *unguaranteed* [`MoveEvent`] that the client posts once per tick (its packet
//! period is one tick) carrying *every* unacknowledged move. A lost packet costs nothing:
//! the next one carries the same moves again until the server's acknowledgement arrives —
//! V12's "guaranteed quickest" data without any resend timer. The server answers in
//! an unguaranteed [`ControlEvent`] once per server packet period: the id of the last move
//! it processed and, only when a move's checksum did not match the server's control object
//! (or the control object changed), the object's full state. The client then sets its
//! prediction to that state and replays its unacknowledged moves on top; the visible jump
//! is spread over a few ticks by a decaying offset.

use crate::SimError;
use crate::image_machine::Effect;
use crate::moves::{ClientMoveList, MAX_MOVE_LIST, Move, ServerMoveList};
use crate::remote_command::RemoteCommands;
use crate::scene::{ControlState, Motion, SceneObjects, SceneWorld};
use glam::Vec3;
use v12_bitstream::{BitReader, BitWriter};
use v12_console_vm::{Console, ObjectId as SimObjectId, Value};
use v12_netobject::ghost::{MAX_GHOST_ID_BITS, ObjectId};
use v12_netobject::{
    ConnectionId, ConnectionTurn, EventDirection, Guarantee, NetClassRegistryBuilder, NetError, NetEvent,
    NetEventClass, NetInterface, PackContext, UnpackContext,
};

/// Corrections larger than this (metres) snap instead of easing (a respawn, a teleport).
pub const SNAP_DISTANCE: f32 = 5.0;
/// Fraction of the correction offset left after each tick (about four ticks to fade).
pub const CORRECTION_DECAY: f32 = 0.5;

/// The client's unacknowledged moves, oldest first (client to server, unguaranteed).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MoveEvent {
    /// Moves with their ids and checksums.
    pub moves: Vec<Move>,
    /// The last correction the client applied (the server's count, wrapping): moves checked
    /// against a later correction than this were predicted before the client saw it.
    pub epoch: u8,
}

impl NetEvent for MoveEvent {
    fn guarantee(&self) -> Guarantee {
        Guarantee::Unguaranteed
    }
    fn pack(&self, w: &mut BitWriter, _: &mut PackContext<'_>) {
        let moves = &self.moves[..self.moves.len().min(MAX_MOVE_LIST)];
        w.write_int(moves.first().map_or(0, |m| m.id), 32);
        w.write_int(u32::from(self.epoch), 8);
        w.write_ranged(moves.len() as u32, 0, MAX_MOVE_LIST as u32);
        let mut prev: Option<&Move> = None;
        for m in moves {
            m.pack(w, prev);
            w.write_int(u32::from(m.checksum), 16);
            prev = Some(m);
        }
    }
}

impl NetEventClass for MoveEvent {
    const NAME: &'static str = "MoveEvent";
    const DIRECTION: EventDirection = EventDirection::ClientToServer;
    fn unpack(r: &mut BitReader<'_>, _: &mut UnpackContext<'_>) -> v12_netobject::Result<Self> {
        let first = r.read_int(32)?;
        let epoch = r.read_int(8)? as u8;
        let count = r.read_ranged(0, MAX_MOVE_LIST as u32)?;
        let mut moves: Vec<Move> = Vec::with_capacity(count as usize);
        for i in 0..count {
            let mut m = Move::unpack(r, moves.last()).map_err(|e| NetError::BadEvent(e.to_string()))?;
            m.id = first.wrapping_add(i);
            m.checksum = r.read_int(16)? as u16;
            moves.push(m);
        }
        Ok(Self { moves, epoch })
    }
    const RECYCLE: bool = true;
    /// Into the list of a finished event: a client's stream of moves allocates nothing.
    fn unpack_in_place(
        &mut self,
        r: &mut BitReader<'_>,
        _: &mut UnpackContext<'_>,
    ) -> v12_netobject::Result<()> {
        let first = r.read_int(32)?;
        self.epoch = r.read_int(8)? as u8;
        let count = r.read_ranged(0, MAX_MOVE_LIST as u32)?;
        self.moves.clear();
        for i in 0..count {
            let mut m = Move::unpack(r, self.moves.last()).map_err(|e| NetError::BadEvent(e.to_string()))?;
            m.id = first.wrapping_add(i);
            m.checksum = r.read_int(16)? as u16;
            self.moves.push(m);
        }
        Ok(())
    }
}

/// The server's answer (server to client, unguaranteed): last move processed, the ghost id
/// of the control object, and its full state only when the client is out of sync.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ControlEvent {
    /// Last move id the server applied.
    pub ack: u32,
    /// Ghost id of the control object on this connection, once the client has the ghost.
    pub control_ghost: Option<u32>,
    /// The control object's state after move `ack` (a correction), if needed.
    pub state: Option<ControlState>,
    /// With a state: which correction this is (the server's count, wrapping).
    pub epoch: u8,
}

impl NetEvent for ControlEvent {
    fn guarantee(&self) -> Guarantee {
        Guarantee::Unguaranteed
    }
    fn pack(&self, w: &mut BitWriter, _: &mut PackContext<'_>) {
        w.write_int(self.ack, 32);
        if let Some(g) = self.control_ghost {
            w.write_flag(true);
            w.write_int(g, MAX_GHOST_ID_BITS);
        } else {
            w.write_flag(false);
        }
        if let Some(s) = &self.state {
            w.write_flag(true);
            s.write(w);
            w.write_int(u32::from(self.epoch), 8);
        } else {
            w.write_flag(false);
        }
    }
}

impl NetEventClass for ControlEvent {
    const NAME: &'static str = "ControlEvent";
    const DIRECTION: EventDirection = EventDirection::ServerToClient;
    fn unpack(r: &mut BitReader<'_>, _: &mut UnpackContext<'_>) -> v12_netobject::Result<Self> {
        let ack = r.read_int(32)?;
        let control_ghost = if r.read_flag()? { Some(r.read_int(MAX_GHOST_ID_BITS)?) } else { None };
        let (state, epoch) =
            if r.read_flag()? { (Some(ControlState::read(r)?), r.read_int(8)? as u8) } else { (None, 0) };
        Ok(Self { ack, control_ghost, state, epoch })
    }
    const RECYCLE: bool = true;
}

/// The server's script accepted the connection (`GameConnection::onConnectRequest` returned
/// ""): the client calls `ServerConnection.onConnectionAccepted()`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConnectAcceptedEvent;

impl NetEvent for ConnectAcceptedEvent {
    fn pack(&self, _: &mut BitWriter, _: &mut PackContext<'_>) {}
}

impl NetEventClass for ConnectAcceptedEvent {
    const NAME: &'static str = "ConnectAcceptedEvent";
    const DIRECTION: EventDirection = EventDirection::ServerToClient;
    fn unpack(_: &mut BitReader<'_>, _: &mut UnpackContext<'_>) -> v12_netobject::Result<Self> {
        Ok(Self)
    }
}

/// Registers the GameConnection events (both ends must).
pub fn register_events(b: &mut NetClassRegistryBuilder) -> &mut NetClassRegistryBuilder {
    b.register::<MoveEvent>().register::<ControlEvent>().register::<ConnectAcceptedEvent>()
}

/// Counters of one server-side connection.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ServerGameStats {
    /// Moves applied.
    pub moves_processed: u64,
    /// Moves whose checksum disagreed with the server's control object.
    pub mismatches: u64,
    /// Full control-object states sent.
    pub corrections_sent: u64,
}

/// The server half of a GameConnection.
#[derive(Debug)]
pub struct ServerGameConnection {
    /// The network connection.
    pub connection: ConnectionId,
    control: Option<u32>,
    control_changed: bool,
    moves: ServerMoveList,
    last_post_ms: Option<u64>,
    /// The client acknowledged its datablocks (a step that happens once per connection).
    datablocks_acked: bool,
    /// Corrections sent (wrapping), and the last one the client says it applied: until they
    /// agree, the client's moves were predicted from a state the server has since corrected,
    /// so their checksums are not compared (one warp, not one correction per move in flight).
    epoch: u8,
    client_epoch: u8,
    /// Counters.
    pub stats: ServerGameStats,
    /// What the control object's images asked for under the moves of the last
    /// [`Self::process_tick`] (slot, effect), for the game to carry out.
    pub image_effects: Vec<(usize, Effect)>,
}

impl ServerGameConnection {
    /// The client's `DataBlocksAck`: the datablock phase is over and the game may spawn its
    /// player. A connection does this once; a second ack is a protocol error for this
    /// connection only (a hostile client repeating it spawned a player each time).
    pub fn accept_datablocks_ack(&mut self) -> Result<(), &'static str> {
        if self.datablocks_acked {
            return Err("protocol error: datablocks acknowledged twice");
        }
        self.datablocks_acked = true;
        Ok(())
    }

    /// A connection with no control object yet.
    pub fn new(connection: ConnectionId) -> Self {
        Self {
            connection,
            control: None,
            control_changed: false,
            moves: ServerMoveList::new(),
            last_post_ms: None,
            datablocks_acked: false,
            epoch: 0,
            client_epoch: 0,
            stats: ServerGameStats::default(),
            image_effects: Vec::new(),
        }
    }

    /// Sets the object this client controls (a scene object id); its full state goes out
    /// with the next control event, and it becomes the scoping object.
    pub fn set_control_object(&mut self, object: Option<u32>) {
        if object != self.control {
            self.control = object;
            self.control_changed = true;
        }
    }

    /// The control object.
    pub fn control_object(&self) -> Option<u32> {
        self.control
    }

    /// Forces the full state out with the next control event (the server moved the object
    /// itself, e.g. a respawn; the checksums would catch it anyway, a tick later).
    pub fn force_state(&mut self) {
        self.control_changed = true;
    }

    /// Takes a [`MoveEvent`]; returns false for other events.
    pub fn handle_event(&mut self, event: &dyn NetEvent) -> bool {
        let Some(ev) = event.downcast_ref::<MoveEvent>() else { return false };
        self.moves.receive(&ev.moves);
        self.client_epoch = ev.epoch;
        true
    }

    /// The server's `processTick` for this client: applies the queued moves the move clock
    /// allows to the control object (one a tick, more to catch up after a late packet, up to
    /// [`crate::moves::MAX_MOVE_CREDIT`]) and checks each move's checksum. Returns the moves
    /// applied, for the game to read triggers.
    pub fn process_tick(&mut self, world: &mut SceneWorld, motion: &Motion) -> Vec<Move> {
        let mut applied = Vec::new();
        self.process_tick_into(world, motion, &mut applied);
        applied
    }

    /// [`Self::process_tick`], the moves applied appended to `applied` (a list the caller
    /// keeps: a tick that allocates nothing).
    pub fn process_tick_into(&mut self, world: &mut SceneWorld, motion: &Motion, applied: &mut Vec<Move>) {
        self.image_effects.clear();
        // The move clock: one tick's worth more; a client cannot outrun real time.
        self.moves.tick();
        while let Some(mv) = self.moves.next_move_in_time() {
            self.stats.moves_processed += 1;
            if let Some(obj) = self.control.and_then(|id| world.get_mut(id)) {
                let mut s = obj.state;
                s.apply_move_with(&mv, motion, &mut self.image_effects);
                obj.set_state(s);
                if self.client_epoch == self.epoch && !self.moves.check(&mv, s.checksum()) {
                    self.stats.mismatches += 1;
                }
            }
            applied.push(mv);
        }
    }

    /// [`Self::process_tick_into`] without touching the world, for a pass over the
    /// connections on several threads: the queued moves the move clock allows are applied to
    /// a copy of the control object's state (read from `objects`) and checked, and the state
    /// they lead to is the answer (`None`: no move applied to an object), for the caller to
    /// set afterwards ([`SceneWorld::set_states`]) before the packets are built. The same
    /// moves, checks and end state as `process_tick_into`, as long as no other connection
    /// moves this control object in the same tick.
    pub fn plan_tick(
        &mut self,
        objects: SceneObjects<'_>,
        motion: &Motion,
        applied: &mut Vec<Move>,
    ) -> Option<ControlState> {
        self.image_effects.clear();
        self.moves.tick();
        let mut state = self.control.and_then(|id| objects.get(id)).map(|o| o.state);
        let mut moved = false;
        while let Some(mv) = self.moves.next_move_in_time() {
            self.stats.moves_processed += 1;
            if let Some(s) = state.as_mut() {
                s.apply_move_with(&mv, motion, &mut self.image_effects);
                moved = true;
                if self.client_epoch == self.epoch && !self.moves.check(&mv, s.checksum()) {
                    self.stats.mismatches += 1;
                }
            }
            applied.push(mv);
        }
        state.filter(|_| moved)
    }

    /// The control event due at `now` given the send period (`None`: a period has not
    /// passed since the last), with the control object's state as it is now, and whether
    /// the scoping object must be set first.
    fn next_control(
        &mut self,
        now: u64,
        period: u64,
        current: Option<ControlState>,
    ) -> Option<(bool, ControlEvent)> {
        if self.last_post_ms.is_some_and(|t| now < t + period) {
            return None;
        }
        self.last_post_ms = Some(now);
        let rescope = self.control_changed;
        let mismatch = self.moves.take_mismatch();
        // A new correction, or the last one not yet confirmed by the client's moves (it may
        // have been lost): the state goes out, the current one, under the same number.
        let new_correction = current.is_some() && (mismatch || self.control_changed);
        if new_correction {
            self.stats.corrections_sent += 1;
            self.epoch = self.epoch.wrapping_add(1);
        }
        let state = current.filter(|_| new_correction || self.client_epoch != self.epoch);
        self.control_changed = false;
        Some((
            rescope,
            ControlEvent { ack: self.moves.ack_id(), control_ghost: None, state, epoch: self.epoch },
        ))
    }

    /// Posts the control event when a server packet period has passed since the last one.
    /// Also keeps the connection's scoping object on the control object.
    pub fn post_control(
        &mut self,
        now: u64,
        iface: &mut NetInterface,
        world: &SceneWorld,
    ) -> Result<bool, SimError> {
        let period = iface
            .connection(self.connection)
            .map(|c| u64::from(c.send_period_ms().max(1)))
            .ok_or(SimError::Net(NetError::NoSuchConnection))?;
        let current = self.control.and_then(|id| world.get(id)).map(|o| o.state);
        let Some((rescope, mut ev)) = self.next_control(now, period, current) else { return Ok(false) };
        if rescope {
            iface.set_scope_object(self.connection, self.control.map(ObjectId))?;
        }
        ev.control_ghost = self
            .control
            .and_then(|id| iface.ghost_manager(self.connection).and_then(|g| g.ghost_id_of(ObjectId(id))));
        iface.post_event_reusing(self.connection, ev)?;
        Ok(true)
    }

    /// [`Self::post_control`] in this connection's turn of a pass over the connections
    /// ([`NetInterface::for_each_connection`]), the control object's state given
    /// (`current`: what [`Self::plan_tick`] led to, or the object's state when no move
    /// applied; `None` without a control object).
    pub fn post_control_in_turn(
        &mut self,
        now: u64,
        turn: &mut ConnectionTurn<'_>,
        current: Option<ControlState>,
    ) -> Result<bool, SimError> {
        let period = u64::from(turn.connection().send_period_ms().max(1));
        let Some((rescope, mut ev)) = self.next_control(now, period, current) else { return Ok(false) };
        if rescope {
            turn.set_scope_object(self.control.map(ObjectId));
        }
        ev.control_ghost = self
            .control
            .and_then(|id| turn.connection().ghost_manager().and_then(|g| g.ghost_id_of(ObjectId(id))));
        turn.post_event_reusing(ev)?;
        Ok(true)
    }
}

/// Counters of the client half.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ClientGameStats {
    /// Ticks predicted.
    pub ticks: u64,
    /// Ticks with no move collected because 30 moves were unacknowledged.
    pub stalls: u64,
    /// Full states received that differed from the prediction.
    pub corrections: u64,
    /// Full states received in all.
    pub states_received: u64,
    /// Largest position error corrected (metres).
    pub max_error: f32,
}

/// The client half of a GameConnection: moves, prediction and smoothing.
#[derive(Debug, Default)]
pub struct ClientGameConnection {
    moves: ClientMoveList,
    predicted: Option<ControlState>,
    control_ghost: Option<u32>,
    offset: Vec3,
    /// The last correction applied (see [`MoveEvent::epoch`]).
    epoch: u8,
    /// Counters.
    pub stats: ClientGameStats,
    /// What the predicted images asked for in the last [`Self::process_tick`] (slot,
    /// effect): the controlling client plays them at once (a replay after a correction adds
    /// none: they were played when first predicted).
    pub image_effects: Vec<(usize, Effect)>,
}

impl ClientGameConnection {
    /// A connection with nothing predicted yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// One client tick: collects `input` as the next move, applies it to the prediction
    /// and records the checksum the server will compare. Returns the move (None on stall).
    pub fn process_tick(&mut self, input: Move, motion: &Motion) -> Option<Move> {
        self.image_effects.clear();
        self.offset *= CORRECTION_DECAY;
        if self.offset.length_squared() < 1e-6 {
            self.offset = Vec3::ZERO;
        }
        let Some(id) = self.moves.collect(input) else {
            self.stats.stalls += 1;
            return None;
        };
        let mv = self.moves.next_move()?;
        self.stats.ticks += 1;
        if let Some(s) = &mut self.predicted {
            s.apply_move_with(&mv, motion, &mut self.image_effects);
            let sum = s.checksum();
            self.moves.set_checksum(id, sum);
        }
        Some(mv)
    }

    /// Posts every unacknowledged move to the server (call once per tick).
    pub fn post_moves(&mut self, iface: &mut NetInterface, server: ConnectionId) -> Result<(), SimError> {
        if self.moves.is_empty() {
            return Ok(());
        }
        // In the box (and list) of a finished move event when the connection keeps one.
        let mut ev = iface.spare_event::<MoveEvent>(server).unwrap_or_default();
        ev.moves.clear();
        ev.moves.extend(self.moves.unacknowledged().copied());
        ev.epoch = self.epoch;
        iface.post_event(server, ev)?;
        Ok(())
    }

    /// Takes a [`ControlEvent`]; returns false for other events.
    pub fn handle_event(&mut self, event: &dyn NetEvent, motion: &Motion) -> bool {
        let Some(ev) = event.downcast_ref::<ControlEvent>() else { return false };
        self.moves.acknowledge(ev.ack);
        if ev.control_ghost.is_some() {
            self.control_ghost = ev.control_ghost;
        }
        if let Some(state) = ev.state {
            self.stats.states_received += 1;
            self.epoch = ev.epoch;
            let mut s = state;
            for mv in self.moves.replay_moves() {
                s.apply_move(&mv, motion);
                self.moves.set_checksum(mv.id, s.checksum());
            }
            if let Some(before) = self.predicted
                && before != s
            {
                self.stats.corrections += 1;
                let err = before.pos - s.pos;
                self.stats.max_error = self.stats.max_error.max(err.length());
                self.offset = if err.length() > SNAP_DISTANCE { Vec3::ZERO } else { self.offset + err };
            }
            self.predicted = Some(s);
        }
        true
    }

    /// The predicted control-object state.
    pub fn predicted(&self) -> Option<&ControlState> {
        self.predicted.as_ref()
    }

    /// Where to show the control object: the prediction plus the fading correction offset.
    pub fn render_position(&self) -> Option<Vec3> {
        self.predicted.map(|s| s.pos + self.offset)
    }

    /// The control object's ghost id, once the server said.
    pub fn control_ghost(&self) -> Option<u32> {
        self.control_ghost
    }

    /// Moves not yet acknowledged.
    pub fn unacknowledged(&self) -> usize {
        self.moves.len()
    }
}

// ---- Connection scripting -------------------------------------------------------------

/// Splits connect data into the script arguments of `connect(address, args...)`.
pub fn decode_connect_args(data: &[u8]) -> Vec<String> {
    if data.is_empty() {
        return Vec::new();
    }
    String::from_utf8_lossy(data).split('\t').map(str::to_string).collect()
}

/// Joins `connect(address, args...)` arguments into connect data.
pub fn encode_connect_args(args: &[String]) -> Vec<u8> {
    args.iter().map(|a| a.replace('\t', " ")).collect::<Vec<_>>().join("\t").into_bytes()
}

/// Prefix of the disconnect reason a script rejection is sent with.
pub const REJECT_PREFIX: &str = "REJECTED:";

/// Server: a transport connection arrived. Creates the `%client` GameConnection (in
/// `ClientGroup`), asks `GameConnection::onConnectRequest(%client, %address, args...)`;
/// a non-empty answer rejects (the object is deleted, the peer is dropped with the reason
/// and its script hears `onConnectionRejected`). Otherwise calls
/// `GameConnection::onConnect(%client, args...)` and tells the client it was accepted.
pub fn server_connection_arrived(
    con: &mut Console,
    remote: &RemoteCommands,
    iface: &mut NetInterface,
    conn: ConnectionId,
    address: &str,
    args: &[String],
) -> Result<Option<SimObjectId>, SimError> {
    let client = remote.add_client(con, conn)?;
    let mut req = vec![Value::str(address)];
    req.extend(args.iter().map(|a| Value::str(a.as_str())));
    let answer = con.call_method_callback(client, "onConnectRequest", &req).unwrap_or(Value::Empty);
    let reason = answer.as_text().into_owned();
    if !reason.is_empty() {
        remote.remove_client(con, conn);
        iface.disconnect(conn, &format!("{REJECT_PREFIX}{reason}"));
        return Ok(None);
    }
    iface.post_event(conn, Box::new(ConnectAcceptedEvent))?;
    let a: Vec<Value> = args.iter().map(|a| Value::str(a.as_str())).collect();
    con.call_method_callback(client, "onConnect", &a);
    Ok(Some(client))
}

/// Server: a client left (`GameConnection::onDrop(%client, %reason)`), its object is deleted.
pub fn server_connection_dropped(
    con: &mut Console,
    remote: &RemoteCommands,
    conn: ConnectionId,
    reason: &str,
) {
    if let Some(client) = remote.client_object(conn) {
        con.call_method_callback(client, "onDrop", &[Value::str(reason)]);
    }
    remote.remove_client(con, conn);
}

/// Client: creates the connection object `ServerConnection` (a GameConnection), replacing
/// an old one.
pub fn client_create_server_connection(con: &mut Console) -> Result<SimObjectId, SimError> {
    if let Some(old) = con.find_object_str("ServerConnection") {
        con.delete_object(old);
    }
    Ok(con.create_object("GameConnection", Some("ServerConnection"))?)
}

/// Client: the server accepted (`ServerConnection.onConnectionAccepted()`).
pub fn client_connection_accepted(con: &mut Console) {
    if let Some(sc) = con.find_object_str("ServerConnection") {
        con.call_method_callback(sc, "onConnectionAccepted", &[]);
    }
}

/// Client: the connection ended or never came up. Picks the callback from the reason:
/// a script rejection → `onConnectionRejected`, a timeout → `onConnectionTimedOut`,
/// anything else → `onConnectionDropped` (after acceptance) or `onConnectionRejected`.
pub fn client_connection_ended(con: &mut Console, reason: &str, was_accepted: bool) {
    let Some(sc) = con.find_object_str("ServerConnection") else { return };
    if let Some(r) = reason.strip_prefix(REJECT_PREFIX) {
        con.call_method_callback(sc, "onConnectionRejected", &[Value::str(r)]);
    } else if reason.contains("timed out") {
        con.call_method_callback(sc, "onConnectionTimedOut", &[]);
    } else if was_accepted {
        con.call_method_callback(sc, "onConnectionDropped", &[Value::str(reason)]);
    } else {
        con.call_method_callback(sc, "onConnectionRejected", &[Value::str(reason)]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Planning a tick on a copy of the state and setting it afterwards is processing it in
    /// place: the same states tick by tick, the same moves applied, the same counters
    /// (checksum mismatches included), through late moves and bursts.
    #[test]
    fn a_planned_tick_is_the_processed_tick() {
        use crate::scene::SceneObject;
        let motion = Motion { max_speed: 8.0, damping: 0.8, arena_half: 30.0, ..Motion::default() };
        let mut worlds = [SceneWorld::new(60.0), SceneWorld::new(60.0)];
        let ids = worlds.each_mut().map(|w| w.add(SceneObject::new(1, Vec3::new(1.0, 2.0, 0.0))));
        assert_eq!(ids[0], ids[1]);
        let mut games =
            [ServerGameConnection::new(ConnectionId(1)), ServerGameConnection::new(ConnectionId(1))];
        for g in &mut games {
            g.set_control_object(Some(ids[0]));
        }
        let mut next_id = 1u32;
        for tick in 0..120u32 {
            // Moves arrive in bursts of 0 to 3 (a late packet, then a catch-up), with a
            // checksum that is not the state's (each counted as a mismatch, on both).
            let burst = [1, 1, 0, 3, 1, 2, 0, 1][tick as usize % 8];
            let moves: Vec<Move> = (0..burst)
                .map(|k| {
                    let turn = if (tick + k) % 10 < 5 { 0.3 } else { -0.3 };
                    let mut m = Move::from_input(0.5, 1.0, 0.0, turn, 0.0, 0.0, [false; 6]);
                    m.id = next_id + k;
                    m.checksum = 0xDEAD;
                    m
                })
                .collect();
            next_id += burst;
            let ev = MoveEvent { moves, epoch: 0 };
            let (mut a, mut b) = (Vec::new(), Vec::new());
            for g in &mut games {
                g.handle_event(&ev);
            }
            let [wa, wb] = &mut worlds;
            let [ga, gb] = &mut games;
            ga.process_tick_into(wa, &motion, &mut a);
            let planned = gb.plan_tick(wb.objects(), &motion, &mut b);
            wb.set_states(planned.map(|s| (ids[0], s)));
            assert_eq!(a, b, "tick {tick}");
            assert_eq!(wa.get(ids[0]).map(|o| o.state), wb.get(ids[0]).map(|o| o.state), "tick {tick}");
            assert_eq!(ga.stats, gb.stats, "tick {tick}");
            assert_eq!(ga.image_effects, gb.image_effects);
        }
        assert!(
            games[0].stats.moves_processed > 100 && games[0].stats.mismatches > 0,
            "{:?}",
            games[0].stats
        );
    }

    #[test]
    fn connect_args_round_trip() {
        let a = vec!["Dood".to_string(), "red team".to_string()];
        assert_eq!(decode_connect_args(&encode_connect_args(&a)), a);
        assert!(decode_connect_args(b"").is_empty());
    }
}
