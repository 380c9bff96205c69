//! The relay server of server-relayed lockstep (relayed lockstep): starts the game, collects every
//! client's command message per NWF, adds the AI players' commands, and sends one NWF-done
//! message per NWF to everyone. It waits for, warns and kicks lagging players, compares
//! checksums every NWF, and handles an async (pause, log both states, drop or vote).
//! Sans-IO: messages in and out, time as an argument.

use crate::game::{PlayerId, empty_batch};
use crate::relay_msg::*;
use std::collections::{BTreeMap, VecDeque};
use tracing::{info, warn};

/// What to do with players whose checksum differs from the majority's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AsyncAction {
    /// Drop them (their units stay, idle).
    Drop,
    /// Ask the other players; a majority of "drop" drops them, otherwise the game ends.
    Vote,
}

/// Relay settings.
#[derive(Clone, Debug)]
pub struct RelayConfig {
    /// GF length (ms).
    pub gf_ms: u32,
    /// Commands sent at NWF `k` run at NWF `k + command_delay`.
    pub command_delay: u32,
    /// Shortest NWF (GFs), whatever the pings.
    pub min_nwf_len: u32,
    /// Longest NWF (GFs).
    pub max_nwf_len: u32,
    /// Tell everyone a player lags after waiting this long (ms).
    pub lag_warn_ms: u64,
    /// Kick a lagging player after waiting this long (ms).
    pub lag_kick_ms: u64,
    /// Drop or vote on an async.
    pub async_action: AsyncAction,
    /// How long to wait for state dumps (and votes) after an async (ms).
    pub async_timeout_ms: u64,
    /// First GF number.
    pub first_gf: u32,
    /// Lengthen the NWF on its own when the slowest ping outgrows it.
    pub adapt_nwf: bool,
    /// Also follow the waits the clients see: lengthen the NWF by a quarter (at least one
    /// GF) when `LATE_LIMIT` of the last `LATE_WINDOW` NWFs came late (lost and resent commands
    /// on a lossy link), and shorten it again, down to the ping's length, after
    /// `CALM_NWFS` NWFs on time.
    pub adapt_to_waits: bool,
}

/// NWFs the lateness rule looks back over.
pub const LATE_WINDOW: usize = 10;
/// Late NWFs in the window that lengthen the NWF.
pub const LATE_LIMIT: usize = 2;
/// NWFs on time in a row before the NWF shortens by one GF.
pub const CALM_NWFS: u32 = 200;

impl Default for RelayConfig {
    fn default() -> Self {
        Self {
            gf_ms: 50,
            command_delay: 2,
            min_nwf_len: 1,
            max_nwf_len: 20,
            lag_warn_ms: 1_000,
            lag_kick_ms: 5_000,
            async_action: AsyncAction::Drop,
            async_timeout_ms: 2_000,
            first_gf: 0,
            adapt_nwf: true,
            adapt_to_waits: true,
        }
    }
}

/// What the server tells its host.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RelayServerEvent {
    /// The server waits for these players (once per NWF, at `lag_warn_ms`).
    Lagging { nwf: u32, players: Vec<PlayerId> },
    /// A player left and is now an idle AI.
    PlayerLeft { player: PlayerId, nwf: u32, reason: LeaveReason },
    /// Checksums differed at NWF `nwf`.
    AsyncDetected { nwf: u32, diverging: Vec<PlayerId> },
    /// The async log is complete (dumps of every player that answered).
    AsyncLogged { nwf: u32 },
    /// A vote kept the diverging players: the game is over.
    GameOver,
}

/// The record of one async: every checksum and every state dump received.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AsyncLog {
    /// NWF at which the checksums differed.
    pub nwf: u32,
    /// Players not in the majority.
    pub diverging: Vec<PlayerId>,
    /// Every player's checksum at that NWF.
    pub checksums: BTreeMap<PlayerId, u32>,
    /// Every player's saved state at that NWF (complete dumps only).
    pub dumps: BTreeMap<PlayerId, Vec<u8>>,
}

/// Server counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RelayStats {
    /// NWF-done messages sent (to all).
    pub nwfs: u64,
    /// Messages sent.
    pub messages_out: u64,
    /// Bytes sent.
    pub bytes_out: u64,
    /// Client messages refused (undecodable or out of place).
    pub rejected: u64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Kind {
    Human,
    Ai,
    Gone(LeaveReason),
}

#[derive(Debug)]
struct Slot {
    name: String,
    kind: Kind,
    rtt_ms: u32,
}

#[derive(Debug)]
struct AsyncState {
    log: AsyncLog,
    deadline: u64,
    chunks: BTreeMap<PlayerId, BTreeMap<u32, Vec<u8>>>,
    chunk_totals: BTreeMap<PlayerId, u32>,
    votes: Option<BTreeMap<PlayerId, bool>>,
}

/// Produces an AI player's batch for an NWF (encoded with [`crate::encode_batch`]).
pub type AiFn = Box<dyn FnMut(PlayerId, u32) -> Vec<u8> + Send>;

/// The sans-IO relay server.
pub struct RelayServer {
    config: RelayConfig,
    seed: u64,
    players: BTreeMap<PlayerId, Slot>,
    started: bool,
    nwf_len: u32,
    gf_ms: u32,
    /// Next NWF to send a done message for, and its GF.
    next_nwf: u32,
    next_gf: u32,
    batches: BTreeMap<u32, BTreeMap<PlayerId, Vec<u8>>>,
    checksums: BTreeMap<u32, BTreeMap<PlayerId, u32>>,
    waiting_since: Option<u64>,
    /// When a client starts the last NWF sent, in the server's time (see
    /// [`RelayServer::observe_lateness`]).
    last_done_at: Option<u64>,
    /// Whether each of the last [`LATE_WINDOW`] NWF-dones came later than that.
    late: std::collections::VecDeque<bool>,
    /// NWF-dones on time in a row.
    calm: u32,
    /// A client reported waiting since the last NWF-done (the server cannot see a
    /// held-back NWF-done on its way to a client).
    reported_wait: bool,
    warned: bool,
    pending_left: Vec<(PlayerId, LeaveReason)>,
    pending_control: Option<Control>,
    paused: bool,
    over: bool,
    async_state: Option<AsyncState>,
    async_logs: Vec<AsyncLog>,
    ai: Option<AiFn>,
    out: VecDeque<(PlayerId, ServerMessage)>,
    events: VecDeque<RelayServerEvent>,
    stats: RelayStats,
}

impl std::fmt::Debug for RelayServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RelayServer")
            .field("players", &self.players.len())
            .field("next_nwf", &self.next_nwf)
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

/// NWF length in GFs so that one NWF lasts at least the slowest player's ping.
pub fn nwf_len_for(gf_ms: u32, max_rtt_ms: u32, min: u32, max: u32) -> u32 {
    max_rtt_ms.div_ceil(gf_ms.max(1)).clamp(min.max(1), max.max(min.max(1)))
}

impl RelayServer {
    /// A server for a game with PRNG seed `seed`.
    pub fn new(config: RelayConfig, seed: u64) -> Self {
        Self {
            nwf_len: config.min_nwf_len.max(1),
            gf_ms: config.gf_ms.max(1),
            next_gf: config.first_gf,
            config,
            seed,
            players: BTreeMap::new(),
            started: false,
            next_nwf: 0,
            batches: BTreeMap::new(),
            checksums: BTreeMap::new(),
            waiting_since: None,
            last_done_at: None,
            late: std::collections::VecDeque::new(),
            calm: 0,
            reported_wait: false,
            warned: false,
            pending_left: Vec::new(),
            pending_control: None,
            paused: false,
            over: false,
            async_state: None,
            async_logs: Vec::new(),
            ai: None,
            out: VecDeque::new(),
            events: VecDeque::new(),
            stats: RelayStats::default(),
        }
    }

    /// Adds a human player before the start; returns its id (`None` when full or started).
    pub fn add_player(&mut self, name: &str) -> Option<PlayerId> {
        self.add(name, Kind::Human)
    }

    /// Adds an AI player, whose commands come from the function given to [`Self::set_ai`].
    pub fn add_ai(&mut self, name: &str) -> Option<PlayerId> {
        self.add(name, Kind::Ai)
    }

    fn add(&mut self, name: &str, kind: Kind) -> Option<PlayerId> {
        if self.started || self.players.len() >= MAX_PLAYERS {
            return None;
        }
        let id = self.players.len() as PlayerId + 1;
        self.players.insert(id, Slot { name: name.into(), kind, rtt_ms: 0 });
        Some(id)
    }

    /// Sets the function producing AI batches.
    pub fn set_ai(&mut self, ai: AiFn) {
        self.ai = Some(ai);
    }

    /// The host's latest RTT measure for a player (from its NetConnection).
    pub fn set_rtt(&mut self, player: PlayerId, rtt_ms: u32) {
        if let Some(s) = self.players.get_mut(&player) {
            s.rtt_ms = rtt_ms;
        }
    }

    fn humans(&self) -> impl Iterator<Item = PlayerId> + '_ {
        self.players.iter().filter(|(_, s)| s.kind == Kind::Human).map(|(id, _)| *id)
    }

    fn chosen_nwf_len(&self, gf_ms: u32) -> u32 {
        let max_rtt = self.humans().filter_map(|p| self.players.get(&p)).map(|s| s.rtt_ms).max().unwrap_or(0);
        nwf_len_for(gf_ms, max_rtt, self.config.min_nwf_len, self.config.max_nwf_len)
    }

    /// Sends the start message to every human player.
    pub fn start(&mut self, now: u64) {
        if self.started {
            return;
        }
        self.started = true;
        self.nwf_len = self.chosen_nwf_len(self.gf_ms);
        let players: Vec<PlayerInfo> = self
            .players
            .iter()
            .map(|(id, s)| PlayerInfo { id: *id, name: s.name.clone(), ai: s.kind == Kind::Ai })
            .collect();
        info!(players = players.len(), nwf_len = self.nwf_len, gf_ms = self.gf_ms, "relay: start");
        for p in self.humans().collect::<Vec<_>>() {
            let info = StartInfo {
                you: p,
                seed: self.seed,
                first_gf: self.config.first_gf,
                gf_ms: self.gf_ms,
                nwf_len: self.nwf_len,
                command_delay: self.config.command_delay.max(1),
                players: players.clone(),
            };
            self.send(p, ServerMessage::Start(info));
        }
        // Nobody can have commands for the first `command_delay` NWFs (commands issued in
        // NWF 0 run in NWF `command_delay`): they go out at once, empty, with the start.
        let humans: Vec<PlayerId> = self.humans().collect();
        for t in self.next_nwf..self.config.command_delay.max(1) {
            let b = self.batches.entry(t).or_default();
            for p in &humans {
                b.insert(*p, empty_batch());
            }
        }
        self.try_advance(now);
    }

    /// Pauses the game after the next NWF sent.
    pub fn pause(&mut self) {
        if !self.paused {
            self.pending_control = Some(Control::Pause);
        }
    }

    /// Ends a pause.
    pub fn resume(&mut self, now: u64) {
        if self.paused && self.async_state.is_none() && !self.over {
            self.paused = false;
            self.broadcast(ServerMessage::Resume);
            self.try_advance(now);
        }
    }

    /// Changes the GF length; the NWF length is chosen again from the pings.
    pub fn set_speed(&mut self, gf_ms: u32) {
        let gf_ms = gf_ms.max(1);
        let nwf_len = self.chosen_nwf_len(gf_ms);
        self.pending_control = Some(Control::Speed { gf_ms, nwf_len });
    }

    /// The transport lost a player's connection.
    pub fn player_disconnected(&mut self, now: u64, player: PlayerId) {
        self.remove(player, LeaveReason::Disconnected, false);
        self.try_advance(now);
    }

    /// Current NWF length (GFs).
    pub fn nwf_len(&self) -> u32 {
        self.nwf_len
    }
    /// Current GF length (ms).
    pub fn gf_ms(&self) -> u32 {
        self.gf_ms
    }
    /// Next NWF the server will send a done message for.
    pub fn next_nwf(&self) -> u32 {
        self.next_nwf
    }
    /// Paused (by request or by an async).
    pub fn is_paused(&self) -> bool {
        self.paused || self.async_state.is_some()
    }
    /// Every async logged so far.
    pub fn async_logs(&self) -> &[AsyncLog] {
        &self.async_logs
    }
    /// Counters.
    pub fn stats(&self) -> RelayStats {
        self.stats
    }
    /// Players still in the game as humans.
    pub fn active_humans(&self) -> Vec<PlayerId> {
        self.humans().collect()
    }

    /// Bytes from a player's connection.
    pub fn handle_datagram(&mut self, now: u64, from: PlayerId, bytes: &[u8]) {
        match ClientMessage::decode(bytes) {
            Ok(m) => self.handle_message(now, from, m),
            Err(e) => {
                self.stats.rejected += 1;
                warn!(player = from, error = %e, "relay: bad client message");
            }
        }
    }

    /// A message from a player.
    pub fn handle_message(&mut self, now: u64, from: PlayerId, msg: ClientMessage) {
        if !self.players.get(&from).is_some_and(|s| s.kind == Kind::Human) {
            self.stats.rejected += 1;
            return;
        }
        match msg {
            ClientMessage::Commands { nwf, checksum, batch } => {
                // Too old, or absurdly far ahead: refuse rather than store.
                let horizon = self.next_nwf + 4 * self.config.command_delay.max(1) + 16;
                if nwf < self.next_nwf && self.next_nwf - nwf <= 4 {
                    // A late copy of commands already run (the node repeats them).
                    return;
                }
                if nwf < self.next_nwf || nwf > horizon {
                    self.stats.rejected += 1;
                    return;
                }
                let delay = self.config.command_delay.max(1);
                if let (Some(c), Some(at)) = (checksum, nwf.checked_sub(delay)) {
                    self.checksums.entry(at).or_default().insert(from, c);
                }
                self.batches.entry(nwf).or_default().insert(from, batch);
                if nwf == self.next_nwf && self.waiting_since.is_none() {
                    self.waiting_since = Some(now);
                }
                self.try_advance(now);
            }
            ClientMessage::Leave => {
                self.remove(from, LeaveReason::Quit, false);
                self.try_advance(now);
            }
            ClientMessage::Waited { ms, .. } => {
                if u64::from(ms) > u64::from(self.gf_ms / 2) {
                    self.reported_wait = true;
                }
            }
            ClientMessage::StateDump { nwf, chunk, chunks, bytes } => {
                if let Some(a) = self.async_state.as_mut().filter(|a| a.log.nwf == nwf) {
                    a.chunk_totals.insert(from, chunks);
                    a.chunks.entry(from).or_default().insert(chunk, bytes);
                    if a.chunks.get(&from).map(BTreeMap::len) == Some(chunks as usize) {
                        let whole: Vec<u8> =
                            a.chunks.remove(&from).unwrap_or_default().into_values().flatten().collect();
                        a.log.dumps.insert(from, whole);
                    }
                }
                self.check_async(now);
            }
            ClientMessage::Vote { nwf, drop } => {
                if let Some(a) = self.async_state.as_mut().filter(|a| a.log.nwf == nwf)
                    && let Some(v) = a.votes.as_mut()
                    && !a.log.diverging.contains(&from)
                {
                    v.insert(from, drop);
                }
                self.check_async(now);
            }
        }
    }

    /// Runs timers: lag warnings and kicks, async deadlines.
    pub fn handle_timeout(&mut self, now: u64) {
        if self.async_state.is_some() {
            self.check_async(now);
            return;
        }
        let Some(since) = self.waiting_since else { return };
        if self.paused || self.over {
            return;
        }
        let waited = now.saturating_sub(since);
        let have = self.batches.get(&self.next_nwf);
        let missing: Vec<PlayerId> =
            self.humans().filter(|p| !have.is_some_and(|b| b.contains_key(p))).collect();
        if missing.is_empty() {
            return;
        }
        if waited >= self.config.lag_kick_ms {
            for p in missing {
                warn!(player = p, nwf = self.next_nwf, waited, "relay: kicking lagging player");
                self.remove(p, LeaveReason::Lagging, true);
            }
            self.try_advance(now);
        } else if waited >= self.config.lag_warn_ms && !self.warned {
            self.warned = true;
            warn!(players = ?missing, nwf = self.next_nwf, "relay: waiting for lagging players");
            self.events.push_back(RelayServerEvent::Lagging { nwf: self.next_nwf, players: missing.clone() });
            self.broadcast(ServerMessage::Lagging { players: missing, waited_ms: waited as u32 });
        }
    }

    /// When [`Self::handle_timeout`] next wants to run.
    pub fn next_wakeup(&self) -> Option<u64> {
        if let Some(a) = &self.async_state {
            return Some(a.deadline);
        }
        let since = self.waiting_since?;
        if self.paused || self.over {
            return None;
        }
        Some(if self.warned { since + self.config.lag_kick_ms } else { since + self.config.lag_warn_ms })
    }

    /// The next message to send, with its addressee.
    pub fn poll_transmit(&mut self) -> Option<(PlayerId, ServerMessage)> {
        self.out.pop_front()
    }

    /// The next event for the host.
    pub fn poll_event(&mut self) -> Option<RelayServerEvent> {
        self.events.pop_front()
    }

    fn send(&mut self, to: PlayerId, msg: ServerMessage) {
        self.stats.messages_out += 1;
        self.out.push_back((to, msg));
    }

    fn broadcast(&mut self, msg: ServerMessage) {
        let humans: Vec<PlayerId> = self.humans().collect();
        for p in humans {
            self.send(p, msg.clone());
        }
    }

    fn remove(&mut self, player: PlayerId, reason: LeaveReason, tell: bool) {
        let Some(slot) = self.players.get_mut(&player) else { return };
        if slot.kind != Kind::Human {
            return;
        }
        slot.kind = Kind::Gone(reason);
        info!(player, ?reason, "relay: player leaves, replaced by an idle AI");
        self.pending_left.push((player, reason));
        self.events.push_back(RelayServerEvent::PlayerLeft { player, nwf: self.next_nwf, reason });
        if tell {
            self.send(player, ServerMessage::Kicked { reason });
        }
    }

    /// Sends every NWF whose batches are all in, comparing checksums first.
    fn try_advance(&mut self, now: u64) {
        while self.started && !self.paused && !self.over && self.async_state.is_none() {
            let t = self.next_nwf;
            let humans: Vec<PlayerId> = self.humans().collect();
            let have = self.batches.get(&t);
            // With no human left, nothing paces the game: stop rather than spin.
            if humans.is_empty() || !humans.iter().all(|p| have.is_some_and(|b| b.contains_key(p))) {
                return;
            }
            if let Some(c) = t.checked_sub(self.config.command_delay.max(1))
                && self.compare_checksums(now, c, &humans)
            {
                return;
            }
            let mut got = self.batches.remove(&t).unwrap_or_default();
            let mut batches = Vec::with_capacity(self.players.len());
            let ids: Vec<(PlayerId, Kind)> = self.players.iter().map(|(i, s)| (*i, s.kind.clone())).collect();
            for (id, kind) in ids {
                match kind {
                    Kind::Human => batches.push((id, got.remove(&id).unwrap_or_default())),
                    Kind::Ai => {
                        let b = self.ai.as_mut().map(|f| f(id, t)).unwrap_or_default();
                        if !b.is_empty() {
                            batches.push((id, b));
                        }
                    }
                    Kind::Gone(_) => {}
                }
            }
            self.observe_lateness(now);
            if self.pending_control.is_none() && self.config.adapt_nwf {
                let want = self.chosen_nwf_len(self.gf_ms);
                if want > self.nwf_len {
                    info!(from = self.nwf_len, to = want, "relay: pings grew, longer NWF");
                    self.pending_control = Some(Control::Speed { gf_ms: self.gf_ms, nwf_len: want });
                } else if self.config.adapt_to_waits {
                    let late = self.late.iter().filter(|l| **l).count();
                    let to = if late >= LATE_LIMIT {
                        // A quarter longer (at least a GF): a wait costs a round trip.
                        (self.nwf_len + (self.nwf_len / 4).max(1)).min(self.config.max_nwf_len.max(1))
                    } else if self.calm >= CALM_NWFS && self.nwf_len > want {
                        self.nwf_len - 1
                    } else {
                        self.nwf_len
                    };
                    if to != self.nwf_len {
                        info!(from = self.nwf_len, to, late, "relay: clients waited, NWF length follows");
                        self.pending_control = Some(Control::Speed { gf_ms: self.gf_ms, nwf_len: to });
                        self.late.clear();
                        self.calm = 0;
                    }
                }
            }
            let control = self.pending_control.take();
            let done = NwfDone {
                nwf: t,
                gf: self.next_gf,
                batches,
                left: std::mem::take(&mut self.pending_left),
                control,
            };
            let msg = ServerMessage::NwfDone(done);
            self.stats.nwfs += 1;
            let size = msg.encode().len() as u64;
            self.stats.bytes_out += size * humans.len() as u64;
            self.broadcast(msg);
            match control {
                Some(Control::Pause) => self.paused = true,
                Some(Control::Speed { gf_ms, nwf_len }) => {
                    self.gf_ms = gf_ms;
                    self.nwf_len = nwf_len;
                }
                None => {}
            }
            self.next_gf = self.next_gf.wrapping_add(self.nwf_len);
            self.next_nwf += 1;
            self.checksums.retain(|k, _| *k + 1 > t.saturating_sub(self.config.command_delay));
            self.warned = false;
            self.waiting_since = self.batches.get(&self.next_nwf).filter(|b| !b.is_empty()).map(|_| now);
        }
    }

    /// Notes whether a client waits for this NWF-done. A client starts NWF `t` when both
    /// its NWF-done has come and NWF `t - 1` has run (an NWF long), so early NWF-dones
    /// build up slack that absorbs late ones; the server follows that schedule, relative to
    /// its own send times (every client is the same one-way time further on).
    fn observe_lateness(&mut self, now: u64) {
        let nwf_ms = u64::from(self.nwf_len) * u64::from(self.gf_ms);
        let start = match self.last_done_at {
            Some(prev_start) => {
                let due = prev_start + nwf_ms;
                let late = now > due + u64::from(self.gf_ms) / 2 || std::mem::take(&mut self.reported_wait);
                self.late.push_back(late);
                if self.late.len() > LATE_WINDOW {
                    self.late.pop_front();
                }
                self.calm = if late { 0 } else { self.calm.saturating_add(1) };
                now.max(due)
            }
            None => now,
        };
        self.last_done_at = Some(start);
    }

    /// Compares the checksums at NWF `c`; on a mismatch starts the async handling and
    /// returns true.
    fn compare_checksums(&mut self, now: u64, c: u32, humans: &[PlayerId]) -> bool {
        let Some(sums) = self.checksums.get(&c) else { return false };
        let sums: BTreeMap<PlayerId, u32> =
            humans.iter().filter_map(|p| sums.get(p).map(|s| (*p, *s))).collect();
        let mut groups: BTreeMap<u32, Vec<PlayerId>> = BTreeMap::new();
        for (p, s) in &sums {
            groups.entry(*s).or_default().push(*p);
        }
        if groups.len() <= 1 {
            return false;
        }
        // Largest group wins; a tie goes to the group with the lowest player id.
        let keep = groups
            .values()
            .max_by(|a, b| a.len().cmp(&b.len()).then(b[0].cmp(&a[0])))
            .cloned()
            .unwrap_or_default();
        let diverging: Vec<PlayerId> = sums.keys().filter(|p| !keep.contains(p)).copied().collect();
        warn!(nwf = c, ?diverging, ?sums, "relay: async detected, pausing");
        self.events.push_back(RelayServerEvent::AsyncDetected { nwf: c, diverging: diverging.clone() });
        self.broadcast(ServerMessage::Async {
            nwf: c,
            diverging: diverging.clone(),
            checksums: sums.iter().map(|(p, s)| (*p, *s)).collect(),
        });
        self.async_state = Some(AsyncState {
            log: AsyncLog { nwf: c, diverging, checksums: sums, dumps: BTreeMap::new() },
            deadline: now + self.config.async_timeout_ms,
            chunks: BTreeMap::new(),
            chunk_totals: BTreeMap::new(),
            votes: None,
        });
        true
    }

    fn check_async(&mut self, now: u64) {
        let humans: Vec<PlayerId> = self.humans().collect();
        let Some(a) = self.async_state.as_mut() else { return };
        let timed_out = now >= a.deadline;
        if a.votes.is_none() {
            let all_dumps = humans.iter().all(|p| a.log.dumps.contains_key(p));
            if !(all_dumps || timed_out) {
                return;
            }
            let nwf = a.log.nwf;
            self.async_logs.push(a.log.clone());
            self.events.push_back(RelayServerEvent::AsyncLogged { nwf });
            if self.config.async_action == AsyncAction::Vote {
                a.votes = Some(BTreeMap::new());
                a.deadline = now + self.config.async_timeout_ms;
                let msg = ServerMessage::VoteRequest { nwf, players: a.log.diverging.clone() };
                let voters: Vec<PlayerId> =
                    humans.iter().filter(|p| !a.log.diverging.contains(p)).copied().collect();
                for v in voters {
                    self.send(v, msg.clone());
                }
                return;
            }
            self.finish_async(now, true);
            return;
        }
        let votes = a.votes.clone().unwrap_or_default();
        let voters = humans.iter().filter(|p| !a.log.diverging.contains(p)).count();
        if votes.len() < voters && !timed_out {
            return;
        }
        let yes = votes.values().filter(|v| **v).count();
        let no = votes.len() - yes;
        self.finish_async(now, yes > no);
    }

    fn finish_async(&mut self, now: u64, drop: bool) {
        let Some(a) = self.async_state.take() else { return };
        if drop {
            for p in &a.log.diverging {
                self.remove(*p, LeaveReason::Desync, true);
            }
            // The checksums of the dropped players are history now.
            self.checksums.remove(&a.log.nwf);
            self.broadcast(ServerMessage::Resume);
            self.try_advance(now);
        } else {
            self.over = true;
            self.events.push_back(RelayServerEvent::GameOver);
            self.broadcast(ServerMessage::GameOver);
        }
    }
}
