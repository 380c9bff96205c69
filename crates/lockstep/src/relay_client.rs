//! The client of server-relayed lockstep (relayed lockstep). It runs GFs on its own clock; at each
//! NWF it waits for the server's NWF-done message (the delay state), runs every player's
//! commands, records them with the checksum in its replay, and sends the commands it
//! collected (even none) for NWF + command delay, with its checksum.

use crate::game::{GameSetup, LockstepGame, PlayerId, decode_batch, encode_batch, take_batch};
use crate::relay_msg::*;
use crate::replay::{Replay, ReplayFrame};
use crate::stats::LatencyStats;
use std::collections::{BTreeMap, VecDeque};
use tracing::{debug, warn};

/// Client settings.
#[derive(Clone, Debug)]
pub struct RelayClientConfig {
    /// Saved states kept for async logs (one per NWF; 0 keeps none).
    pub snapshots: usize,
    /// Most encoded command bytes per NWF; more wait for the next NWF.
    pub max_batch_bytes: usize,
    /// The answer this client gives to a drop vote (bots vote automatically).
    pub auto_vote: Option<bool>,
    /// Most GFs run in one `poll` when catching up.
    pub max_catch_up: u32,
}

impl Default for RelayClientConfig {
    fn default() -> Self {
        Self { snapshots: 4, max_batch_bytes: 120, auto_vote: Some(true), max_catch_up: 64 }
    }
}

/// What a client tells its host.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RelayClientEvent {
    /// The game started.
    Started { you: PlayerId },
    /// The server waits for these players.
    Lagging { players: Vec<PlayerId> },
    /// A player left (its units now idle).
    PlayerLeft { player: PlayerId, reason: LeaveReason },
    /// Checksums differed at NWF `nwf`; the game is paused.
    Async { nwf: u32, diverging: Vec<PlayerId> },
    /// Asked to vote on dropping players.
    VoteRequested { nwf: u32, players: Vec<PlayerId> },
    /// Paused by the server.
    Paused,
    /// Resumed.
    Resumed,
    /// This client was removed.
    Kicked { reason: LeaveReason },
    /// The game ended.
    GameOver,
}

/// Client counters.
#[derive(Clone, Debug, Default)]
pub struct RelayClientStats {
    /// GFs run.
    pub gfs: u64,
    /// NWFs run.
    pub nwfs: u64,
    /// Time spent waiting for an NWF-done message (ms).
    pub delay_ms: u64,
    /// Own commands, issued → executed (ms).
    pub latency: LatencyStats,
    /// Messages refused.
    pub rejected: u64,
}

#[derive(Debug)]
struct Running<G> {
    you: PlayerId,
    game: G,
    gf: u32,
    gf_ms: u32,
    nwf_len: u32,
    delay: u32,
    nwf: u32,
    boundary_gf: u32,
    next_gf_at: u64,
    replay: Replay,
}

/// The sans-IO relay client, owning its copy of the game.
#[derive(Debug)]
pub struct RelayClient<G: LockstepGame> {
    config: RelayClientConfig,
    run: Option<Running<G>>,
    done: BTreeMap<u32, NwfDone>,
    pending: VecDeque<(u64, G::Command)>,
    in_flight: BTreeMap<u32, Vec<u64>>,
    snapshots: VecDeque<(u32, Vec<u8>)>,
    delay_since: Option<u64>,
    paused: bool,
    out_of_game: bool,
    out: VecDeque<ClientMessage>,
    events: VecDeque<RelayClientEvent>,
    stats: RelayClientStats,
}

impl<G: LockstepGame> RelayClient<G> {
    /// A client waiting for the start message.
    pub fn new(config: RelayClientConfig) -> Self {
        Self {
            config,
            run: None,
            done: BTreeMap::new(),
            pending: VecDeque::new(),
            in_flight: BTreeMap::new(),
            snapshots: VecDeque::new(),
            delay_since: None,
            paused: false,
            out_of_game: false,
            out: VecDeque::new(),
            events: VecDeque::new(),
            stats: RelayClientStats::default(),
        }
    }

    /// This player's id once started.
    pub fn player(&self) -> Option<PlayerId> {
        self.run.as_ref().map(|r| r.you)
    }
    /// The game, once started.
    pub fn game(&self) -> Option<&G> {
        self.run.as_ref().map(|r| &r.game)
    }
    /// The game, mutably (tests and the desync demo change it behind lockstep's back).
    pub fn game_mut(&mut self) -> Option<&mut G> {
        self.run.as_mut().map(|r| &mut r.game)
    }
    /// Next GF to run.
    pub fn gf(&self) -> u32 {
        self.run.as_ref().map_or(0, |r| r.gf)
    }
    /// The GF length in force (ms; 50 before the start).
    pub fn gf_ms(&self) -> u32 {
        self.run.as_ref().map_or(50, |r| r.gf_ms)
    }
    /// Next NWF to run.
    pub fn nwf(&self) -> u32 {
        self.run.as_ref().map_or(0, |r| r.nwf)
    }
    /// Waiting for the server's NWF-done message.
    pub fn in_delay(&self) -> bool {
        self.delay_since.is_some()
    }
    /// Paused or out of the game.
    pub fn is_stopped(&self) -> bool {
        self.paused || self.out_of_game
    }
    /// Removed from the game (kicked, dropped, left or game over).
    pub fn is_out(&self) -> bool {
        self.out_of_game
    }
    /// The replay so far.
    pub fn replay(&self) -> Option<&Replay> {
        self.run.as_ref().map(|r| &r.replay)
    }
    /// Counters.
    pub fn stats(&self) -> &RelayClientStats {
        &self.stats
    }

    /// Queues a command for the next NWF message.
    pub fn issue(&mut self, now: u64, command: G::Command) {
        if !self.out_of_game {
            self.pending.push_back((now, command));
        }
    }

    /// Clean exit: the server replaces this player by an idle AI.
    pub fn leave(&mut self) {
        if !self.out_of_game {
            self.out.push_back(ClientMessage::Leave);
            self.out_of_game = true;
        }
    }

    /// Answers a vote request.
    pub fn vote(&mut self, nwf: u32, drop: bool) {
        self.out.push_back(ClientMessage::Vote { nwf, drop });
    }

    /// Bytes from the server.
    pub fn handle_datagram(&mut self, now: u64, bytes: &[u8]) {
        match ServerMessage::decode(bytes) {
            Ok(m) => self.handle_message(now, m),
            Err(e) => {
                self.stats.rejected += 1;
                warn!(error = %e, "relay client: bad server message");
            }
        }
    }

    /// A message from the server.
    pub fn handle_message(&mut self, now: u64, msg: ServerMessage) {
        match msg {
            ServerMessage::Start(s) => self.start(now, s),
            ServerMessage::NwfDone(d) => {
                let next = self.run.as_ref().map_or(0, |r| r.nwf);
                if d.nwf >= next && self.run.is_some() {
                    self.done.insert(d.nwf, d);
                } else if self.run.is_none() {
                    self.stats.rejected += 1;
                }
                // An NWF already run: a redundant copy (the unguaranteed and the ordered
                // stream both carry it), ignored.
            }
            ServerMessage::Lagging { players, .. } => {
                self.events.push_back(RelayClientEvent::Lagging { players })
            }
            ServerMessage::Async { nwf, diverging, .. } => {
                self.paused = true;
                self.events.push_back(RelayClientEvent::Async { nwf, diverging });
                self.send_dump(nwf);
            }
            ServerMessage::VoteRequest { nwf, players } => {
                self.events.push_back(RelayClientEvent::VoteRequested { nwf, players });
                if let Some(v) = self.config.auto_vote {
                    self.vote(nwf, v);
                }
            }
            ServerMessage::Resume => {
                if self.paused {
                    self.paused = false;
                    if let Some(r) = self.run.as_mut() {
                        r.next_gf_at = r.next_gf_at.max(now);
                    }
                    self.delay_since = None;
                    self.events.push_back(RelayClientEvent::Resumed);
                }
            }
            ServerMessage::Kicked { reason } => {
                self.out_of_game = true;
                self.events.push_back(RelayClientEvent::Kicked { reason });
            }
            ServerMessage::GameOver => {
                self.out_of_game = true;
                self.events.push_back(RelayClientEvent::GameOver);
            }
        }
    }

    fn start(&mut self, now: u64, s: StartInfo) {
        if self.run.is_some() {
            self.stats.rejected += 1;
            return;
        }
        let setup = GameSetup { seed: s.seed, players: s.players.iter().map(|p| p.id).collect() };
        let game = G::new(&setup);
        self.run = Some(Running {
            you: s.you,
            game,
            gf: s.first_gf,
            gf_ms: s.gf_ms,
            nwf_len: s.nwf_len,
            delay: s.command_delay,
            nwf: 0,
            boundary_gf: s.first_gf,
            next_gf_at: now,
            replay: Replay::new(setup, s.first_gf),
        });
        // The first `command_delay` NWFs have no commands: the server sends them with the
        // start, so the game begins without waiting a round trip for empty batches.
        self.events.push_back(RelayClientEvent::Started { you: s.you });
    }

    fn send_dump(&mut self, nwf: u32) {
        let Some((_, state)) = self.snapshots.iter().find(|(n, _)| *n == nwf) else {
            debug!(nwf, "relay client: no snapshot for the async log");
            return;
        };
        let chunks: Vec<Vec<u8>> = state.chunks(DUMP_CHUNK).map(<[u8]>::to_vec).collect();
        let total = chunks.len().max(1) as u32;
        if chunks.is_empty() {
            self.out.push_back(ClientMessage::StateDump { nwf, chunk: 0, chunks: 1, bytes: Vec::new() });
        }
        for (i, bytes) in chunks.into_iter().enumerate() {
            self.out.push_back(ClientMessage::StateDump { nwf, chunk: i as u32, chunks: total, bytes });
        }
    }

    /// When the next GF is due (None when stopped or waiting for a message).
    pub fn next_wakeup(&self) -> Option<u64> {
        let r = self.run.as_ref()?;
        if self.is_stopped() || self.delay_since.is_some() {
            return None;
        }
        Some(r.next_gf_at)
    }

    /// Runs every GF due at `now` (catching up after a wait), stopping at an NWF whose
    /// done message has not arrived.
    pub fn poll(&mut self, now: u64) {
        let mut budget = self.config.max_catch_up;
        while budget > 0 && !self.is_stopped() {
            let Some(r) = self.run.as_ref() else { return };
            if now < r.next_gf_at {
                return;
            }
            if r.gf == r.boundary_gf {
                let nwf = r.nwf;
                let Some(done) = self.done.remove(&nwf) else {
                    self.delay_since.get_or_insert(now);
                    return;
                };
                if let Some(since) = self.delay_since.take() {
                    let waited = now - since;
                    self.stats.delay_ms += waited;
                    let late_ms = u64::from(r.gf_ms / 2);
                    debug!(nwf, waited_ms = waited, "relay client: waited for an NWF-done");
                    // Tell the server, which sees only its own side of the link.
                    if waited > late_ms {
                        self.out.push_back(ClientMessage::Waited {
                            nwf,
                            ms: waited.min(u64::from(u32::MAX)) as u32,
                        });
                    }
                }
                self.run_nwf(now, done);
                if self.is_stopped() {
                    return;
                }
            }
            let Some(r) = self.run.as_mut() else { return };
            r.game.step();
            r.gf = r.gf.wrapping_add(1);
            r.next_gf_at += u64::from(r.gf_ms);
            self.stats.gfs += 1;
            budget -= 1;
        }
    }

    fn run_nwf(&mut self, now: u64, done: NwfDone) {
        let Some(r) = self.run.as_mut() else { return };
        if done.gf != r.gf {
            warn!(
                expected = r.gf,
                server = done.gf,
                nwf = done.nwf,
                "relay client: NWF starts at another GF"
            );
        }
        for (player, batch) in &done.batches {
            match decode_batch::<G>(batch) {
                Ok(cmds) => {
                    for c in &cmds {
                        r.game.apply_command(*player, c);
                    }
                }
                Err(e) => warn!(player, error = %e, "relay client: skipping an undecodable batch"),
            }
        }
        if let Some(issued) = self.in_flight.remove(&done.nwf) {
            for t in issued {
                self.stats.latency.record(now.saturating_sub(t));
            }
        }
        let checksum = r.game.checksum();
        r.replay.frames.push(ReplayFrame { gf: r.gf, batches: done.batches, checksum, turn_delay: 0 });
        if self.config.snapshots > 0 {
            if self.snapshots.len() >= self.config.snapshots {
                self.snapshots.pop_front();
            }
            self.snapshots.push_back((done.nwf, r.game.save()));
        }
        for (player, reason) in &done.left {
            self.events.push_back(RelayClientEvent::PlayerLeft { player: *player, reason: *reason });
        }
        match done.control {
            Some(Control::Pause) => {
                self.paused = true;
                self.events.push_back(RelayClientEvent::Paused);
            }
            Some(Control::Speed { gf_ms, nwf_len }) => {
                r.gf_ms = gf_ms;
                r.nwf_len = nwf_len;
            }
            None => {}
        }
        // This NWF's message: the commands collected so far, for NWF + delay.
        let target = done.nwf + r.delay;
        let (taken, issued) = take_batch::<G>(&mut self.pending, self.config.max_batch_bytes);
        let batch = encode_batch::<G>(&taken);
        if !issued.is_empty() {
            self.in_flight.insert(target, issued);
        }
        if !self.out_of_game {
            self.out.push_back(ClientMessage::Commands { nwf: target, checksum: Some(checksum), batch });
        }
        r.nwf += 1;
        r.boundary_gf = r.gf.wrapping_add(r.nwf_len);
        self.stats.nwfs += 1;
    }

    /// The next message for the server.
    pub fn poll_transmit(&mut self) -> Option<ClientMessage> {
        self.out.pop_front()
    }

    /// The next event for the host.
    pub fn poll_event(&mut self) -> Option<RelayClientEvent> {
        self.events.pop_front()
    }
}
