//! A peer of peer-to-peer lockstep with a master peer (Robo Cat RTS), improved
//! where the book's sample is not: lost turn data is recovered (every turn message repeats
//! the previous two turns, and a peer in the delay state asks for what it misses), a
//! silent peer is dropped at a turn every survivor agrees on, the master role passes on,
//! turn 0 is processed, and on a desync the majority plays on.

use crate::desync::{CommandLine, DesyncReport, REPORT_FRAMES};
use crate::game::{GameSetup, LockstepGame, PlayerId, decode_batch, encode_batch, take_batch};
use crate::peer_msg::*;
use crate::replay::{Replay, ReplayFrame};
use crate::stats::LatencyStats;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use tracing::{debug, info, warn};

/// Peer settings.
#[derive(Clone, Debug)]
pub struct PeerConfig {
    /// Turn length (ms).
    pub turn_ms: u64,
    /// Sub-turns (simulation steps) per turn.
    pub sub_turns: u32,
    /// Commands issued in turn `x` run in turn `x + turn_delay`: the delay at the start, and
    /// the least the adaptation goes down to.
    pub turn_delay: i32,
    /// Adapt the turn delay to the measured links (see [`Peer::turn_delay`]); `false` keeps
    /// `turn_delay` for the whole game.
    pub adaptive: bool,
    /// Most turns of delay the adaptation goes up to.
    pub max_turn_delay: i32,
    /// Most peers the master admits.
    pub max_players: usize,
    /// Start countdown (ms).
    pub countdown_ms: u32,
    /// Drop a peer not heard from for this long (ms).
    pub drop_after_ms: u64,
    /// In the delay state, ask for missing turn data after this long, and again each time (ms).
    pub resend_after_ms: u64,
    /// Handshake and control message retry period (ms).
    pub retry_ms: u64,
    /// RTT probe period (ms).
    pub ping_ms: u64,
    /// Most encoded command bytes per turn; more wait for the next turn.
    pub max_batch_bytes: usize,
}

impl Default for PeerConfig {
    fn default() -> Self {
        Self {
            turn_ms: 100,
            sub_turns: 3,
            turn_delay: 2,
            max_players: 8,
            countdown_ms: 3000,
            drop_after_ms: 3000,
            resend_after_ms: 60,
            retry_ms: 200,
            ping_ms: 250,
            max_batch_bytes: 120,
            adaptive: true,
            max_turn_delay: 10,
        }
    }
}

/// Where a peer is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PeerPhase {
    /// Saying HELO until welcomed.
    Joining,
    /// Welcomed; waiting for STRT.
    Lobby,
    /// Counting down to the start.
    Countdown,
    /// In the game.
    Playing,
    /// Refused, dropped, or on the losing side of a desync.
    Out,
}

/// What a peer tells its host.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PeerEvent {
    /// Welcomed into the game.
    Welcomed { you: PlayerId, master: PlayerId },
    /// The master refused.
    Refused { reason: JoinRefusal },
    /// A peer joined.
    PeerJoined { id: PlayerId },
    /// The countdown started.
    Countdown { start_at: u64 },
    /// Turn -2 began.
    Started,
    /// A peer was dropped (silent) from turn `from_turn` on.
    PeerDropped { id: PlayerId, from_turn: i32 },
    /// The master role passed on.
    MasterChanged { master: PlayerId },
    /// Sync values differed for the state at the end of `state_turn` (seen when entering
    /// `state_turn + 2`); `dropped` is the minority, which may include this peer.
    Desync { state_turn: i32, dropped: Vec<PlayerId>, me_dropped: bool },
}

/// Peer counters.
#[derive(Clone, Debug, Default)]
pub struct PeerStats {
    /// Turns run (from turn 0).
    pub turns: u64,
    /// Sub-turns run.
    pub sub_turns: u64,
    /// Time in the delay state (ms).
    pub delay_ms: u64,
    /// Own commands, issued → executed (ms).
    pub latency: LatencyStats,
    /// Resend requests sent.
    pub resend_requests: u64,
    /// Messages refused.
    pub rejected: u64,
    /// Times the turn delay changed.
    pub delay_changes: u64,
}

#[derive(Debug)]
struct Remote {
    addr: SocketAddr,
    name: String,
    last_heard: u64,
    rtt_ms: Option<u64>,
    /// The last [`RTT_WINDOW`] RTT samples of the game (ms): the delay vote takes the
    /// largest, so jitter counts and one old outlier ages out.
    recent_rtts: VecDeque<u64>,
    intr_acked: bool,
    strt_acked: bool,
    /// Not required for turns >= this.
    gone_from: Option<i32>,
}

#[derive(Debug, Default)]
struct Dropping {
    seen: BTreeSet<PlayerId>,
    last_sent: u64,
}

/// The sans-IO peer, owning its copy of the game.
#[derive(Debug)]
pub struct Peer<G: LockstepGame> {
    config: PeerConfig,
    name: String,
    phase: PeerPhase,
    you: PlayerId,
    master: PlayerId,
    master_addr: Option<SocketAddr>,
    /// Every other peer.
    peers: BTreeMap<PlayerId, Remote>,
    /// Ourselves: not required for turns >= this (a desync minority).
    next_id: PlayerId,
    seed: u64,
    start_at: u64,
    /// The turn delay the game starts with: the master's choice from the lobby's round trips,
    /// sent in the start message so every peer starts with the same one.
    start_delay: i32,
    /// When the host asked the master to start, and with which seed (the links are being
    /// measured).
    start_asked: Option<(u64, u64)>,
    game: Option<G>,
    replay: Option<Replay>,
    turn: i32,
    sub: u32,
    sub_index: u64,
    sent_for_turn: bool,
    gf: u32,
    turn_data: BTreeMap<i32, BTreeMap<PlayerId, TurnData>>,
    pending: VecDeque<(u64, G::Command)>,
    in_flight: BTreeMap<i32, Vec<u64>>,
    dropping: BTreeMap<PlayerId, Dropping>,
    delay_since: Option<u64>,
    last_resend: u64,
    last_retry: u64,
    last_ping: u64,
    out: VecDeque<(SocketAddr, PeerMessage)>,
    events: VecDeque<PeerEvent>,
    stats: PeerStats,
    /// The turn delay in force: data sent at the end of turn `t` is for turn `t + delay`.
    delay: i32,
    /// The newest turn this peer sent data for.
    last_target: i32,
    /// Turns left without data by a delay increase: they run with no commands.
    empty_turns: BTreeSet<i32>,
    /// Consecutive turns whose votes all asked for less delay than is in force.
    lower_votes: u32,
    /// The largest vote of those turns: what the delay shrinks to.
    lower_max: i32,
    /// Own data: the turn it was sent at, by target turn (for the desync report).
    sent_at: BTreeMap<i32, i32>,
    /// Own state when each recent turn's data was sent: (GF, saved game), by target turn.
    sent_states: BTreeMap<i32, (u32, Vec<u8>)>,
    /// The last [`REPORT_FRAMES`] turns run: (turn, what ran), the per-turn command log.
    history: VecDeque<(i32, ReplayFrame)>,
    /// Desync reports for the host to write.
    reports: VecDeque<DesyncReport>,
}

/// RTT samples a delay vote looks at, per peer (pings go every 250 ms: two seconds).
const RTT_WINDOW: usize = 8;
/// Pings every peer must have answered before an adaptive master starts the countdown.
pub const START_SAMPLES: usize = 3;
/// Longest an adaptive master measures its links before the countdown (ms).
pub const START_MEASURE_MS: u64 = 2_000;

/// A link's typical round trip: the median of its recent samples (the smoothed value
/// before any).
fn typical_rtt(r: &Remote) -> u64 {
    let mut v: Vec<u64> = r.recent_rtts.iter().copied().collect();
    v.sort_unstable();
    v.get(v.len() / 2).copied().or(r.rtt_ms).unwrap_or(0)
}

/// A delay vote leaves this much room beyond the one-way time and one resend (ms).
const VOTE_MARGIN_MS: u64 = 5;
/// Turns of unanimous lower votes before the delay shrinks by one.
const SHRINK_AFTER_TURNS: u32 = 20;

const UNKNOWN_ADDR: SocketAddr = SocketAddr::new(IpAddr::V4(Ipv4Addr::UNSPECIFIED), 0);

impl<G: LockstepGame> Peer<G> {
    fn blank(config: PeerConfig, name: &str, phase: PeerPhase) -> Self {
        Self {
            start_delay: config.turn_delay,
            start_asked: None,
            config,
            name: name.into(),
            phase,
            you: 0,
            master: 0,
            master_addr: None,
            peers: BTreeMap::new(),
            next_id: 2,
            seed: 0,
            start_at: 0,
            game: None,
            replay: None,
            turn: -2,
            sub: 0,
            sub_index: 0,
            sent_for_turn: false,
            gf: 0,
            turn_data: BTreeMap::new(),
            pending: VecDeque::new(),
            in_flight: BTreeMap::new(),
            dropping: BTreeMap::new(),
            delay_since: None,
            last_resend: 0,
            last_retry: 0,
            last_ping: 0,
            out: VecDeque::new(),
            events: VecDeque::new(),
            stats: PeerStats::default(),
            delay: 0,
            last_target: i32::MIN,
            empty_turns: BTreeSet::new(),
            lower_votes: 0,
            lower_max: 0,
            sent_at: BTreeMap::new(),
            sent_states: BTreeMap::new(),
            history: VecDeque::new(),
            reports: VecDeque::new(),
        }
    }

    /// The master peer of a new game (player 1), in the lobby.
    pub fn new_master(config: PeerConfig, name: &str) -> Self {
        let mut p = Self::blank(config, name, PeerPhase::Lobby);
        p.you = 1;
        p.master = 1;
        p
    }

    /// A peer joining through the peer at `addr` (the master, or any peer, which answers NOMP).
    pub fn join(config: PeerConfig, name: &str, addr: SocketAddr, now: u64) -> Self {
        let mut p = Self::blank(config, name, PeerPhase::Joining);
        p.master_addr = Some(addr);
        p.out.push_back((addr, PeerMessage::Helo { name: name.into() }));
        p.last_retry = now;
        p
    }

    /// This peer's id (0 until welcomed).
    pub fn id(&self) -> PlayerId {
        self.you
    }
    /// The master's id.
    pub fn master(&self) -> PlayerId {
        self.master
    }
    /// Where this peer is.
    pub fn phase(&self) -> PeerPhase {
        self.phase
    }
    /// Current turn (-2 and -1 before the first commands run).
    pub fn turn(&self) -> i32 {
        self.turn
    }
    /// Next GF (sub-turn) to run.
    pub fn gf(&self) -> u32 {
        self.gf
    }
    /// The turn delay in force: commands sent at the end of turn `t` run in turn `t + delay`.
    ///
    /// With [`PeerConfig::adaptive`], every peer votes in each turn's data for the delay its
    /// links need (the slowest peer's one-way time, half the largest recent round trip, plus one sub-turn
    /// for a lost message's resend, rounded up to whole turns); on entering a turn, every peer
    /// takes the largest vote of that turn's data. Every peer holds the same data for a turn,
    /// so all switch at the same turn. A larger delay takes effect at once (the turns it skips
    /// run empty); a smaller one only after `SHRINK_AFTER_TURNS` turns of lower votes, to
    /// the largest of them (the turns until then send nothing new).
    pub fn turn_delay(&self) -> i32 {
        self.delay
    }
    /// Waiting for turn data.
    pub fn in_delay(&self) -> bool {
        self.delay_since.is_some()
    }
    /// Ids of every peer still in the game, this one included.
    pub fn players(&self) -> Vec<PlayerId> {
        let mut v: Vec<PlayerId> =
            self.peers.iter().filter(|(_, r)| r.gone_from.is_none()).map(|(i, _)| *i).collect();
        if self.phase != PeerPhase::Out && self.you != 0 {
            v.push(self.you);
        }
        v.sort_unstable();
        v
    }
    /// The game once started.
    pub fn game(&self) -> Option<&G> {
        self.game.as_ref()
    }
    /// The game, mutably (tests and the desync demo change it behind lockstep's back).
    pub fn game_mut(&mut self) -> Option<&mut G> {
        self.game.as_mut()
    }
    /// The replay so far.
    pub fn replay(&self) -> Option<&Replay> {
        self.replay.as_ref()
    }
    /// Counters.
    pub fn stats(&self) -> &PeerStats {
        &self.stats
    }
    /// RTT to a peer (ms), once measured.
    pub fn rtt_to(&self, id: PlayerId) -> Option<u64> {
        self.peers.get(&id).and_then(|r| r.rtt_ms)
    }

    /// Queues a command for the next turn message.
    pub fn issue(&mut self, now: u64, command: G::Command) {
        if self.phase != PeerPhase::Out {
            self.pending.push_back((now, command));
        }
    }

    /// The master starts the countdown with a seed. An adaptive master first measures its
    /// links (until every peer has answered `START_SAMPLES` pings, at most
    /// `START_MEASURE_MS`), so the game starts with the turn delay they need; the
    /// countdown then begins by itself.
    pub fn start(&mut self, now: u64, seed: u64) {
        if self.you != self.master || self.phase != PeerPhase::Lobby {
            return;
        }
        let asked = *self.start_asked.get_or_insert((now, seed));
        let measured = self.peers.values().all(|r| r.recent_rtts.len() >= START_SAMPLES);
        if self.config.adaptive && !measured && now < asked.0 + START_MEASURE_MS {
            return;
        }
        let seed = asked.1;
        self.seed = seed;
        self.start_at = now + u64::from(self.config.countdown_ms);
        self.start_delay = self.lobby_vote();
        self.phase = PeerPhase::Countdown;
        info!(seed, players = self.peers.len() + 1, "p2p: master starts the countdown");
        self.events.push_back(PeerEvent::Countdown { start_at: self.start_at });
        self.send_strt(now);
    }

    fn roster(&self) -> Vec<PeerInfo> {
        let mut v: Vec<PeerInfo> = self
            .peers
            .iter()
            .map(|(id, r)| PeerInfo { id: *id, addr: r.addr, name: r.name.clone() })
            .collect();
        v.push(PeerInfo { id: self.you, addr: UNKNOWN_ADDR, name: self.name.clone() });
        v.sort_by_key(|p| p.id);
        v
    }

    fn send_strt(&mut self, now: u64) {
        let countdown_ms = self.start_at.saturating_sub(now) as u32;
        let turn_delay = self.start_delay.clamp(0, i32::from(u8::MAX)) as u8;
        let msg = PeerMessage::Strt { seed: self.seed, countdown_ms, turn_delay, peers: self.roster() };
        let to: Vec<SocketAddr> = self.peers.values().filter(|r| !r.strt_acked).map(|r| r.addr).collect();
        for a in to {
            self.out.push_back((a, msg.clone()));
        }
    }

    /// The player at `addr`, if known.
    pub fn id_at(&self, addr: SocketAddr) -> Option<PlayerId> {
        self.id_of(addr)
    }

    fn id_of(&self, addr: SocketAddr) -> Option<PlayerId> {
        self.peers.iter().find(|(_, r)| r.addr == addr).map(|(i, _)| *i)
    }

    /// Bytes from `from`.
    pub fn handle_datagram(&mut self, now: u64, from: SocketAddr, bytes: &[u8]) {
        match PeerMessage::decode(bytes) {
            Ok(m) => self.handle_message(now, from, m),
            Err(e) => {
                self.stats.rejected += 1;
                debug!(%from, error = %e, "p2p: bad message");
            }
        }
    }

    /// A message from `from`.
    pub fn handle_message(&mut self, now: u64, from: SocketAddr, msg: PeerMessage) {
        if self.phase == PeerPhase::Out {
            return;
        }
        let sender = self.id_of(from);
        if let Some(id) = sender {
            if self.dropping.contains_key(&id) || self.peers.get(&id).is_some_and(|r| r.gone_from.is_some()) {
                // A peer being dropped is not listened to, so every survivor decides on
                // the same data.
                return;
            }
            if let Some(r) = self.peers.get_mut(&id) {
                r.last_heard = now;
            }
        }
        match msg {
            PeerMessage::Helo { name } => self.on_helo(now, from, name),
            PeerMessage::Wlcm { you, master, peers } => {
                if self.phase != PeerPhase::Joining {
                    return;
                }
                self.you = you;
                self.master = master;
                self.master_addr = Some(from);
                self.add_peer(now, master, from, String::new(), true);
                for p in peers {
                    if p.id != you && p.id != master {
                        self.add_peer(now, p.id, p.addr, p.name, false);
                    }
                }
                self.phase = PeerPhase::Lobby;
                info!(you, master, "p2p: welcomed");
                self.events.push_back(PeerEvent::Welcomed { you, master });
                self.send_intrs();
            }
            PeerMessage::Nojn { reason } => {
                if self.phase == PeerPhase::Joining {
                    self.phase = PeerPhase::Out;
                    self.events.push_back(PeerEvent::Refused { reason });
                }
            }
            PeerMessage::Nomp { master } => {
                if self.phase == PeerPhase::Joining && self.master_addr != Some(master) {
                    self.master_addr = Some(master);
                    self.out.push_back((master, PeerMessage::Helo { name: self.name.clone() }));
                }
            }
            PeerMessage::Intr { id, name } => {
                if matches!(self.phase, PeerPhase::Lobby | PeerPhase::Countdown) && id != self.you {
                    if !self.peers.contains_key(&id) {
                        self.add_peer(now, id, from, name, true);
                    }
                    self.out.push_back((from, PeerMessage::IntrAck { id: self.you }));
                }
            }
            PeerMessage::IntrAck { id } => {
                if let Some(r) = self.peers.get_mut(&id).filter(|r| r.addr == from) {
                    r.intr_acked = true;
                }
            }
            PeerMessage::Strt { seed, countdown_ms, turn_delay, peers } => {
                self.on_strt(now, from, (seed, countdown_ms, turn_delay), peers)
            }
            PeerMessage::StrtAck => {
                if let Some(id) = sender
                    && let Some(r) = self.peers.get_mut(&id)
                {
                    r.strt_acked = true;
                }
            }
            PeerMessage::Turn { data } => {
                let Some(id) = sender else { return };
                for d in data {
                    if d.player == id {
                        self.store(d);
                    }
                }
            }
            PeerMessage::Resend { turn } => {
                if sender.is_some() {
                    let mine: Vec<TurnData> = self
                        .turn_data
                        .range(turn..)
                        .filter_map(|(_, m)| m.get(&self.you).cloned())
                        .take(MAX_TURN_DATA)
                        .collect();
                    if !mine.is_empty() {
                        self.out.push_back((from, PeerMessage::Turn { data: mine }));
                    }
                }
            }
            PeerMessage::Drop { player, data, seen } => {
                let Some(id) = sender else { return };
                if player == self.you {
                    return;
                }
                for d in data {
                    if d.player == player {
                        self.store(d);
                    }
                }
                if !self.dropping.contains_key(&player)
                    && self.peers.get(&player).is_some_and(|r| r.gone_from.is_none())
                {
                    self.begin_drop(now, player);
                }
                if let Some(dr) = self.dropping.get_mut(&player) {
                    dr.seen.insert(id);
                    if !seen.contains(&self.you) {
                        let msg = self.drop_message(player);
                        self.out.push_back((from, msg));
                    }
                }
                self.try_finish_drops();
            }
            PeerMessage::Ping { time } => self.out.push_back((from, PeerMessage::Pong { time })),
            PeerMessage::Pong { time } => {
                if let Some(r) = sender.and_then(|id| self.peers.get_mut(&id)) {
                    let sample = now.saturating_sub(time);
                    r.rtt_ms = Some(r.rtt_ms.map_or(sample, |old| (old * 7 + sample) / 8));
                    r.recent_rtts.push_back(sample);
                    if r.recent_rtts.len() > RTT_WINDOW {
                        r.recent_rtts.pop_front();
                    }
                }
            }
        }
    }

    fn add_peer(&mut self, now: u64, id: PlayerId, addr: SocketAddr, name: String, intr_acked: bool) {
        self.peers.insert(
            id,
            Remote {
                addr,
                name,
                last_heard: now,
                rtt_ms: None,
                recent_rtts: VecDeque::new(),
                intr_acked,
                strt_acked: false,
                gone_from: None,
            },
        );
        self.next_id = self.next_id.max(id.saturating_add(1));
        self.events.push_back(PeerEvent::PeerJoined { id });
    }

    fn on_helo(&mut self, now: u64, from: SocketAddr, name: String) {
        if self.you != self.master {
            if let Some(m) = self.peers.get(&self.master) {
                self.out.push_back((from, PeerMessage::Nomp { master: m.addr }));
            }
            return;
        }
        if let Some(id) = self.id_of(from) {
            // A repeated HELO: the welcome was lost. During the countdown too: the STRT
            // retries then reach it, so a lost welcome on a lossy link costs no player.
            if matches!(self.phase, PeerPhase::Lobby | PeerPhase::Countdown) {
                let msg = self.welcome_for(id);
                self.out.push_back((from, msg));
            }
            return;
        }
        if self.phase != PeerPhase::Lobby {
            self.out.push_back((from, PeerMessage::Nojn { reason: JoinRefusal::Started }));
            return;
        }
        if self.peers.len() + 1 >= self.config.max_players || self.next_id == PlayerId::MAX {
            self.out.push_back((from, PeerMessage::Nojn { reason: JoinRefusal::Full }));
            return;
        }
        let id = self.next_id;
        self.add_peer(now, id, from, name, true);
        let msg = self.welcome_for(id);
        self.out.push_back((from, msg));
    }

    fn welcome_for(&self, id: PlayerId) -> PeerMessage {
        let peers = self
            .peers
            .iter()
            .filter(|(i, _)| **i != id)
            .map(|(i, r)| PeerInfo { id: *i, addr: r.addr, name: r.name.clone() })
            .collect();
        PeerMessage::Wlcm { you: id, master: self.you, peers }
    }

    fn send_intrs(&mut self) {
        let to: Vec<SocketAddr> = self.peers.values().filter(|r| !r.intr_acked).map(|r| r.addr).collect();
        for a in to {
            self.out.push_back((a, PeerMessage::Intr { id: self.you, name: self.name.clone() }));
        }
    }

    fn on_strt(&mut self, now: u64, from: SocketAddr, start: (u64, u32, u8), roster: Vec<PeerInfo>) {
        let (seed, countdown_ms, turn_delay) = start;
        let Some(master) = self.peers.get(&self.master) else { return };
        if from != master.addr {
            return;
        }
        // Copies come unguaranteed, each with the countdown left when it was sent: the
        // earliest start any copy gives is the one least held up on the way.
        let estimate = (now + u64::from(countdown_ms)).saturating_sub(typical_rtt(master) / 2).max(now);
        self.out.push_back((from, PeerMessage::StrtAck));
        if self.phase == PeerPhase::Countdown && self.you != self.master && estimate < self.start_at {
            self.start_at = estimate;
        }
        if self.phase != PeerPhase::Lobby {
            return;
        }
        // The roster is the master's: anyone it lists that we have not met yet is added.
        for p in roster {
            if p.id != self.you && p.id != self.master && !self.peers.contains_key(&p.id) {
                self.add_peer(now, p.id, p.addr, p.name, true);
            }
        }
        self.seed = seed;
        self.start_delay = i32::from(turn_delay).clamp(self.config.turn_delay, self.config.max_turn_delay);
        self.start_at = estimate;
        self.phase = PeerPhase::Countdown;
        self.events.push_back(PeerEvent::Countdown { start_at: self.start_at });
    }

    /// Round trips measured before the game, while connections were still being made
    /// (messages queued behind a handshake, in the lobby and in the countdown while the
    /// peers introduce themselves), would ask for far too much delay; the game's own pings
    /// (every 250 ms) measure the links as they are.
    fn forget_setup_rtts(&mut self) {
        for r in self.peers.values_mut() {
            r.recent_rtts.clear();
        }
    }

    fn begin_game(&mut self) {
        let setup = GameSetup { seed: self.seed, players: self.players() };
        self.game = Some(G::new(&setup));
        self.replay = Some(Replay::new(setup, 0));
        self.phase = PeerPhase::Playing;
        self.turn = -2;
        self.sub = 0;
        self.sub_index = 0;
        self.sent_for_turn = false;
        self.delay = self.start_delay;
        self.last_target = i32::MIN;
        self.forget_setup_rtts();
        // Silence counts from the start: on a lossy link the last connections between
        // joiners can still be being made during the countdown.
        for r in self.peers.values_mut() {
            r.last_heard = r.last_heard.max(self.start_at);
        }
        self.empty_turns.clear();
        // The first data goes out at the end of turn -2, for turn `delay - 2`: with a
        // longer starting delay the turns before it run empty, as after a growth.
        self.empty_turns.extend(0..self.delay - 2);
        self.lower_votes = 0;
        info!(
            delay = self.delay,
            you = self.you,
            players = self.peers.len() + 1,
            "p2p: game starts at turn -2"
        );
        self.events.push_back(PeerEvent::Started);
    }

    fn store(&mut self, d: TurnData) {
        // Old turns are history; far-future ones are not plausible.
        if d.turn < self.turn - 8 || d.turn > self.turn + 2 * self.config.max_turn_delay.max(self.delay) + 8 {
            return;
        }
        self.turn_data.entry(d.turn).or_default().entry(d.player).or_insert(d);
    }

    /// Who must have sent data for `turn`.
    fn required(&self, turn: i32) -> Vec<PlayerId> {
        let mut v: Vec<PlayerId> = self
            .peers
            .iter()
            .filter(|(_, r)| r.gone_from.is_none_or(|g| turn < g))
            .map(|(i, _)| *i)
            .collect();
        v.push(self.you);
        v.sort_unstable();
        v
    }

    /// When the host should call [`Self::poll`] next.
    pub fn next_wakeup(&self) -> Option<u64> {
        match self.phase {
            PeerPhase::Out => None,
            PeerPhase::Joining | PeerPhase::Lobby => Some(self.last_retry + self.config.retry_ms),
            PeerPhase::Countdown => Some(self.start_at.min(self.last_retry + self.config.retry_ms)),
            PeerPhase::Playing => {
                let next_sub =
                    self.start_at + self.sub_index * self.config.turn_ms / u64::from(self.config.sub_turns);
                let t = if self.delay_since.is_some() {
                    self.last_resend + self.config.resend_after_ms
                } else {
                    next_sub
                };
                Some(t.min(self.last_ping + self.config.ping_ms))
            }
        }
    }

    /// Runs timers and every sub-turn due at `now`.
    pub fn poll(&mut self, now: u64) {
        if now >= self.last_retry + self.config.retry_ms {
            self.last_retry = now;
            match self.phase {
                PeerPhase::Joining => {
                    if let Some(a) = self.master_addr {
                        self.out.push_back((a, PeerMessage::Helo { name: self.name.clone() }));
                    }
                }
                PeerPhase::Lobby => {
                    self.send_intrs();
                    if let Some((_, seed)) = self.start_asked {
                        self.start(now, seed);
                    }
                }
                PeerPhase::Countdown if self.you == self.master => self.send_strt(now),
                _ => {}
            }
        }
        if matches!(self.phase, PeerPhase::Lobby | PeerPhase::Countdown | PeerPhase::Playing)
            && now >= self.last_ping + self.config.ping_ms
        {
            self.last_ping = now;
            let to: Vec<SocketAddr> =
                self.peers.values().filter(|r| r.gone_from.is_none()).map(|r| r.addr).collect();
            for a in to {
                self.out.push_back((a, PeerMessage::Ping { time: now }));
            }
        }
        if self.phase == PeerPhase::Countdown && now >= self.start_at {
            self.begin_game();
        }
        if self.phase != PeerPhase::Playing {
            return;
        }
        self.check_silence(now);
        self.resend_drops(now);
        self.run_turns(now);
    }

    fn check_silence(&mut self, now: u64) {
        let silent: Vec<PlayerId> = self
            .peers
            .iter()
            .filter(|(i, r)| {
                r.gone_from.is_none()
                    && !self.dropping.contains_key(i)
                    && now.saturating_sub(r.last_heard) >= self.config.drop_after_ms
            })
            .map(|(i, _)| *i)
            .collect();
        for p in silent {
            warn!(peer = p, "p2p: peer silent, dropping it");
            self.begin_drop(now, p);
        }
        self.try_finish_drops();
    }

    fn drop_message(&self, player: PlayerId) -> PeerMessage {
        let data: Vec<TurnData> = self
            .turn_data
            .range(self.turn - 6..)
            .filter_map(|(_, m)| m.get(&player).cloned())
            .take(MAX_TURN_DATA)
            .collect();
        let seen = self.dropping.get(&player).map(|d| d.seen.iter().copied().collect()).unwrap_or_default();
        PeerMessage::Drop { player, data, seen }
    }

    fn begin_drop(&mut self, now: u64, player: PlayerId) {
        self.dropping.insert(player, Dropping { seen: BTreeSet::new(), last_sent: now });
        let msg = self.drop_message(player);
        let to: Vec<SocketAddr> = self
            .peers
            .iter()
            .filter(|(i, r)| **i != player && r.gone_from.is_none() && !self.dropping.contains_key(i))
            .map(|(_, r)| r.addr)
            .collect();
        for a in to {
            self.out.push_back((a, msg.clone()));
        }
    }

    fn resend_drops(&mut self, now: u64) {
        let due: Vec<PlayerId> = self
            .dropping
            .iter()
            .filter(|(_, d)| now >= d.last_sent + self.config.retry_ms)
            .map(|(p, _)| *p)
            .collect();
        for p in due {
            let msg = self.drop_message(p);
            let seen = self.dropping.get(&p).map(|d| d.seen.clone()).unwrap_or_default();
            let to: Vec<SocketAddr> = self
                .peers
                .iter()
                .filter(|(i, r)| {
                    **i != p && r.gone_from.is_none() && !self.dropping.contains_key(i) && !seen.contains(i)
                })
                .map(|(_, r)| r.addr)
                .collect();
            for a in to {
                self.out.push_back((a, msg.clone()));
            }
            if let Some(d) = self.dropping.get_mut(&p) {
                d.last_sent = now;
            }
        }
    }

    /// A drop completes once every other survivor's notice is in: all then hold the same
    /// turn data of the dropped peer, so all drop it from the same turn.
    fn try_finish_drops(&mut self) {
        let pending: Vec<PlayerId> = self.dropping.keys().copied().collect();
        for p in pending {
            let survivors: Vec<PlayerId> = self
                .peers
                .iter()
                .filter(|(i, r)| **i != p && r.gone_from.is_none() && !self.dropping.contains_key(i))
                .map(|(i, _)| *i)
                .collect();
            let Some(d) = self.dropping.get(&p) else { continue };
            if !survivors.iter().all(|s| d.seen.contains(s)) {
                continue;
            }
            let last = self.turn_data.iter().rev().find(|(_, m)| m.contains_key(&p)).map(|(t, _)| *t);
            let from_turn = last.map_or(self.turn + 1, |t| t + 1).max(0);
            self.dropping.remove(&p);
            if let Some(r) = self.peers.get_mut(&p) {
                r.gone_from = Some(from_turn);
            }
            info!(peer = p, from_turn, "p2p: peer dropped");
            self.events.push_back(PeerEvent::PeerDropped { id: p, from_turn });
            self.pass_master_role(p);
        }
    }

    fn pass_master_role(&mut self, gone: PlayerId) {
        if gone == self.master {
            self.master = self.players().first().copied().unwrap_or(self.you);
            info!(master = self.master, "p2p: master role passes on");
            self.events.push_back(PeerEvent::MasterChanged { master: self.master });
        }
    }

    fn sub_due(&self) -> u64 {
        self.start_at + self.sub_index * self.config.turn_ms / u64::from(self.config.sub_turns.max(1))
    }

    fn run_turns(&mut self, now: u64) {
        let mut budget = 256;
        while budget > 0 && self.phase == PeerPhase::Playing && now >= self.sub_due() {
            budget -= 1;
            if self.sub == self.config.sub_turns.max(1) {
                if !self.sent_for_turn {
                    self.end_turn(now);
                    self.sent_for_turn = true;
                }
                if !self.try_advance(now) {
                    if self.delay_since.is_none() {
                        self.delay_since = Some(now);
                        self.last_resend = now;
                    } else if now >= self.last_resend + self.config.resend_after_ms {
                        self.request_missing(now);
                    }
                    return;
                }
                if let Some(s) = self.delay_since.take() {
                    debug!(
                        you = self.you,
                        turn = self.turn,
                        waited_ms = now - s,
                        "p2p: waited for turn data"
                    );
                    self.stats.delay_ms += now - s;
                    if self.config.adaptive {
                        // Waiting means this peer's turns run ahead of the slowest peer's
                        // (a start offset, or a peer that fell behind): move the schedule
                        // by the wait instead of racing to catch up, so the peers' turn
                        // ends line up and the next turn has the whole delay's room.
                        self.start_at += now - s;
                    }
                }
                if self.phase != PeerPhase::Playing {
                    return;
                }
            }
            if self.turn >= 0
                && let Some(g) = self.game.as_mut()
            {
                g.step();
                self.gf += 1;
            }
            self.sub += 1;
            self.sub_index += 1;
            self.stats.sub_turns += 1;
            if self.config.adaptive && self.sub < self.config.sub_turns.max(1) {
                // Between turn ends too, so a lost message is made good a sub-turn later.
                self.send_recent();
            }
        }
    }

    /// Sends this peer's data for `turn + delay`: the commands collected and the sync values.
    fn end_turn(&mut self, now: u64) {
        let _ = now;
        let target = self.turn + self.delay;
        if target <= self.last_target {
            // The delay just shrank: this slot was sent already; the commands wait a turn.
            self.send_recent();
            return;
        }
        let (taken, issued) = take_batch::<G>(&mut self.pending, self.config.max_batch_bytes);
        if !issued.is_empty() {
            self.in_flight.insert(target, issued);
        }
        let Some(g) = self.game.as_ref() else { return };
        let random = g.random_value();
        let crc = g.checksum();
        let vote = self.vote().clamp(0, i32::from(u8::MAX)) as u8;
        let mine = TurnData {
            turn: target,
            player: self.you,
            commands: encode_batch::<G>(&taken),
            random,
            crc,
            vote,
        };
        self.turn_data.entry(target).or_default().insert(self.you, mine);
        self.last_target = target;
        self.sent_at.insert(target, self.turn);
        self.sent_states.insert(target, (self.gf, g.save()));
        let keep = self.turn - 16;
        self.sent_at.retain(|t, _| *t >= keep);
        self.sent_states.retain(|t, _| *t >= keep);
        self.send_recent();
    }

    /// Sends this peer's newest data and the two before it to every live peer, so one lost
    /// message costs nothing: the next one carries the same data.
    fn send_recent(&mut self) {
        if self.last_target == i32::MIN {
            return;
        }
        let t = self.last_target;
        let data: Vec<TurnData> = (t - 2..=t)
            .filter_map(|t| self.turn_data.get(&t).and_then(|m| m.get(&self.you)).cloned())
            .collect();
        if data.is_empty() {
            return;
        }
        let to: Vec<SocketAddr> = self
            .peers
            .iter()
            .filter(|(i, r)| r.gone_from.is_none() && !self.dropping.contains_key(i))
            .map(|(_, r)| r.addr)
            .collect();
        for a in to {
            self.out.push_back((a, PeerMessage::Turn { data: data.clone() }));
        }
    }

    /// The turn delay this peer's links need: the slowest live peer's one-way time
    /// (half the largest of its last [`RTT_WINDOW`] round trips in the game, so jitter
    /// counts), one sub-turn for a lost message's resend and a margin,
    /// in whole turns, plus the turn the data waits to be sent. Without measurements: the
    /// delay in force.
    fn vote(&self) -> i32 {
        if !self.config.adaptive {
            return self.config.turn_delay;
        }
        let one_way = self
            .peers
            .values()
            .filter(|r| r.gone_from.is_none())
            .filter_map(|r| r.recent_rtts.iter().max().map(|rtt| rtt.div_ceil(2)))
            .max();
        let Some(one_way) = one_way else { return self.delay };
        self.delay_for(one_way)
    }

    /// The master's choice of the starting delay: [`Self::vote`]'s rule over the lobby's
    /// round trips, each link's median (its first pings can be held up while connections
    /// are made), so a game on a slow link does not begin by stalling.
    fn lobby_vote(&self) -> i32 {
        if !self.config.adaptive {
            return self.config.turn_delay;
        }
        let one_way = self
            .peers
            .values()
            .filter(|r| !r.recent_rtts.is_empty())
            .map(|r| typical_rtt(r).div_ceil(2))
            .max();
        match one_way {
            Some(one_way) => self.delay_for(one_way),
            None => self.config.turn_delay,
        }
    }

    /// The delay, in turns, that data needs to arrive in time over a link of this one-way time.
    fn delay_for(&self, one_way: u64) -> i32 {
        let turn_ms = self.config.turn_ms.max(1);
        let sub_ms = turn_ms / u64::from(self.config.sub_turns.max(1));
        let need = (one_way + sub_ms + VOTE_MARGIN_MS).div_ceil(turn_ms);
        (1 + need.min(1000) as i32).clamp(self.config.turn_delay, self.config.max_turn_delay)
    }

    /// Takes the turn's votes (every peer holds the same data for `turn`, so every peer
    /// decides the same at the same turn).
    fn adapt(&mut self, turn: i32, datas: &[TurnData]) {
        if !self.config.adaptive {
            return;
        }
        let Some(v) = datas.iter().map(|d| i32::from(d.vote)).max() else { return };
        let v = v.clamp(self.config.turn_delay, self.config.max_turn_delay);
        if v > self.delay {
            // Data up to `turn - 1 + delay` is out; the end of `turn` sends for `turn + v`.
            for t in turn + self.delay..turn + v {
                self.empty_turns.insert(t);
            }
            info!(turn, from = self.delay, to = v, "p2p: turn delay grows");
            self.delay = v;
            self.lower_votes = 0;
            self.stats.delay_changes += 1;
        } else if v < self.delay {
            self.lower_max = if self.lower_votes == 0 { v } else { self.lower_max.max(v) };
            self.lower_votes += 1;
            if self.lower_votes >= SHRINK_AFTER_TURNS {
                // To the largest vote of those turns: the turns in between send nothing new
                // (their slots are filled), so no peer waits.
                info!(turn, from = self.delay, to = self.lower_max, "p2p: turn delay shrinks");
                self.delay = self.lower_max;
                self.lower_votes = 0;
                self.stats.delay_changes += 1;
            }
        } else {
            self.lower_votes = 0;
        }
    }

    fn request_missing(&mut self, now: u64) {
        self.last_resend = now;
        let next = self.turn + 1;
        let have = self.turn_data.get(&next);
        let missing: Vec<SocketAddr> = self
            .required(next)
            .into_iter()
            .filter(|p| {
                *p != self.you && !self.dropping.contains_key(p) && !have.is_some_and(|m| m.contains_key(p))
            })
            .filter_map(|p| self.peers.get(&p).map(|r| r.addr))
            .collect();
        for a in missing {
            self.stats.resend_requests += 1;
            self.out.push_back((a, PeerMessage::Resend { turn: next }));
        }
    }

    /// Enters the next turn if every required peer's data for it is in (the book's
    /// TryAdvanceTurn), runs its commands and checks sync.
    fn try_advance(&mut self, now: u64) -> bool {
        let next = self.turn + 1;
        let empty = self.empty_turns.contains(&next);
        if next >= 0 && !empty {
            let need = self.required(next);
            let have = self.turn_data.get(&next);
            if !need.iter().all(|p| have.is_some_and(|m| m.contains_key(p))) {
                return false;
            }
        }
        self.turn = next;
        self.sub = 0;
        self.sent_for_turn = false;
        if next < 0 {
            return true;
        }
        let need = if empty { Vec::new() } else { self.required(next) };
        let datas: Vec<TurnData> =
            need.iter().filter_map(|p| self.turn_data.get(&next).and_then(|m| m.get(p)).cloned()).collect();
        self.empty_turns.retain(|t| *t > next);
        let Some(g) = self.game.as_mut() else { return true };
        let mut batches = Vec::with_capacity(datas.len());
        for d in &datas {
            match decode_batch::<G>(&d.commands) {
                Ok(cmds) => {
                    for c in &cmds {
                        g.apply_command(d.player, c);
                    }
                }
                Err(e) => warn!(player = d.player, error = %e, "p2p: skipping an undecodable batch"),
            }
            batches.push((d.player, d.commands.clone()));
        }
        let checksum = g.checksum();
        let frame =
            ReplayFrame { gf: self.gf, batches, checksum, turn_delay: self.delay.clamp(0, 255) as u8 };
        self.history.push_back((next, frame.clone()));
        if self.history.len() > REPORT_FRAMES {
            self.history.pop_front();
        }
        if let Some(r) = self.replay.as_mut() {
            r.frames.push(frame);
        }
        if let Some(issued) = self.in_flight.remove(&next) {
            for t in issued {
                self.stats.latency.record(now.saturating_sub(t));
            }
        }
        self.stats.turns += 1;
        self.check_sync(next, &datas);
        if self.phase == PeerPhase::Playing {
            self.adapt(next, &datas);
        }
        let keep_from = self.turn - 8;
        self.turn_data.retain(|t, _| *t >= keep_from);
        true
    }

    /// The book's CheckSync: every peer's random value and CRC must agree. The largest
    /// group (ties: the one with the lowest id) plays on; the others are dropped.
    fn check_sync(&mut self, turn: i32, datas: &[TurnData]) {
        let mut groups: BTreeMap<(u32, u32), Vec<PlayerId>> = BTreeMap::new();
        for d in datas {
            groups.entry((d.crc, d.random)).or_default().push(d.player);
        }
        if groups.len() <= 1 {
            return;
        }
        let keep = groups
            .values()
            .max_by(|a, b| a.len().cmp(&b.len()).then(b[0].cmp(&a[0])))
            .cloned()
            .unwrap_or_default();
        let dropped: Vec<PlayerId> = datas.iter().map(|d| d.player).filter(|p| !keep.contains(p)).collect();
        let me_dropped = dropped.contains(&self.you);
        let state_turn = self.sent_at.get(&turn).copied().unwrap_or(turn - self.delay);
        warn!(state_turn, ?dropped, me_dropped, "p2p: desync");
        let (gf, dump) = self.sent_states.get(&turn).cloned().unwrap_or_default();
        self.reports.push_back(DesyncReport {
            mode: "p2p".into(),
            frame: i64::from(state_turn),
            gf,
            reporter: self.you,
            diverging: dropped.clone(),
            checksums: datas.iter().map(|d| (d.player, d.crc)).collect(),
            commands: self
                .history
                .iter()
                .filter(|(t, _)| *t <= state_turn)
                .map(|(t, f)| CommandLine::from_frame::<G>(i64::from(*t), f))
                .collect(),
            dumps: vec![(self.you, dump)],
        });
        self.events.push_back(PeerEvent::Desync { state_turn, dropped: dropped.clone(), me_dropped });
        if me_dropped {
            self.phase = PeerPhase::Out;
            return;
        }
        for p in dropped {
            self.dropping.remove(&p);
            if let Some(r) = self.peers.get_mut(&p) {
                r.gone_from = Some(turn + 1);
            }
            self.pass_master_role(p);
        }
    }

    /// The next message to send, with its address.
    pub fn poll_transmit(&mut self) -> Option<(SocketAddr, PeerMessage)> {
        self.out.pop_front()
    }

    /// The next desync report (one per desync this peer saw), for the host to write next to
    /// the replay ([`DesyncReport::write_to`]).
    pub fn poll_desync_report(&mut self) -> Option<DesyncReport> {
        self.reports.pop_front()
    }

    /// The next event for the host.
    pub fn poll_event(&mut self) -> Option<PeerEvent> {
        self.events.pop_front()
    }
}
