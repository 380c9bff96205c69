//! The crowd: one process drives N light bot clients, each on its own real UDP socket on
//! 127.0.0.1, against the game's dedicated server (`v12 --dedicated`, a child process), for a
//! bounded time; then the match's ghost-state check (every bot's hash of the ghosts it holds
//! against the server's `GHOSTHASH` for it) and a summary.
//!
//! Separate `v12` processes (the [`super::bot_match`]) are too many for hundreds of clients on
//! a small machine, so a crowd bot is only the engine's network client: the handshake (with
//! the game's encryption), the datablock phase (it counts them and acknowledges), its ghosts
//! in a [`ClientScene`] of its own (world ghosts beside it), moves at 32 a second through
//! [`ClientGameConnection`], and the three remote commands of the match's end (`Freeze`,
//! `GhostCheck`, `MatchOver`). No script runs on the bots' side.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{self, BufRead, BufReader};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use v12_netobject::ghost::{GhostClientWorld, NetObject, NoObjects, ObjectId};
use v12_netobject::{ConnectionId, Encryption, InterfaceConfig, InterfaceEvent, NetInterface, RateConfig};
use v12_platform::{NetAddress, UdpTransport};
use v12_services::NetDriver;
use v12_sim::datablock::{DataBlockEvent, DataBlocksAckEvent, DataBlocksDoneEvent};
use v12_sim::game_connection::{self as gc, ClientGameConnection, ConnectAcceptedEvent};
use v12_sim::moves::Move;
use v12_sim::process::TICK_MS;
use v12_sim::remote_command::{RemoteArg, RemoteCommandEvent};
use v12_sim::scene::{ClientScene, Motion, UpdateCoverage, settled_state_hash};
use v12_world::mission::WorldObjectGhost;

/// How many of the nearest players the coverage figure watches (as the `v12` client does).
const NEAREST_PLAYERS: usize = 8;
/// Local ids of world ghosts (terrain, buildings) start here, apart from the scene's.
const WORLD_IDS: u32 = 1 << 30;
/// The server's handshake limits from one address: a burst, then so many a second
/// (`InterfaceConfig`'s defaults); the crowd joins a little below them.
const JOIN_BURST: usize = 48;
const JOINS_PER_S: f64 = 24.0;
/// A refused or timed-out join is tried again after this long (ms), at most so many times.
const JOIN_RETRY_MS: u64 = 1000;
const JOIN_TRIES: u32 = 4;
/// Play is counted from when every bot is in, or this long after the joining's estimate.
const JOIN_SLACK_S: u64 = 2;
/// Every bot's turn comes round this often (ms), or as soon as the last pass ends.
const PASS_MS: u64 = 5;
/// Coverage and bandwidth are counted from this long after every bot joined (ms).
const WARMUP_MS: u64 = 3000;

/// What to run.
#[derive(Debug, Clone)]
pub struct CrowdConfig {
    /// Bot clients, each with its own UDP socket.
    pub clients: usize,
    /// Play time (s) once every bot joined; the server's match also covers the joining.
    pub seconds: u64,
    /// The `v12` binary; `None`: beside the current executable.
    pub v12: Option<PathBuf>,
    /// The mod folder (default `examples/game`).
    pub mod_dir: PathBuf,
    /// `$Pref::Net::Encryption` of the server and the bots (`off`, `on`, `required`).
    pub encryption: String,
    /// The server's packet threads (`-packet-threads`, `$Pref::Server::PacketThreads`; 0 or
    /// 1: its clients' packets built on its main thread).
    pub packet_threads: usize,
}

impl Default for CrowdConfig {
    fn default() -> Self {
        Self {
            clients: 256,
            seconds: 10,
            v12: None,
            mod_dir: PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/game")),
            encryption: "required".into(),
            packet_threads: 0,
        }
    }
}

impl CrowdConfig {
    /// Seconds the joining takes at the server's handshake rate.
    fn join_seconds(&self) -> u64 {
        (self.clients.saturating_sub(JOIN_BURST) as f64 / JOINS_PER_S).ceil() as u64 + 2
    }
}

/// What happened.
#[derive(Debug, Clone, Default)]
pub struct CrowdReport {
    /// Bots started.
    pub clients: usize,
    /// Play time (s) after the joining.
    pub seconds: u64,
    /// Bots whose connection came up, and those the game accepted.
    pub connected: usize,
    pub accepted: usize,
    /// Joins the server refused for the moment and the bot tried again.
    pub join_retries: u64,
    /// Seconds from the first join to the last bot's acceptance.
    pub join_s: f64,
    /// Ghosts created on all bots together, and the mean held at the ghost check.
    pub ghosts_received: u64,
    pub ghosts_held_mean: f64,
    /// Bytes a bot received per second during play (mean over bots).
    pub bytes_per_s_per_client: f64,
    /// The server's own figures from its last `STATUS` line during play: players, its tick's
    /// mean cost since it started (µs, wall clock), send rate per client (kbit/s, that second).
    pub server_players: usize,
    pub server_tick_us: f64,
    pub server_kbps_per_client: f64,
    /// Network pumps whose packets the server built on its packet threads, so far.
    pub server_parallel_pumps: u64,
    /// CPU time of the server and of this process during play (share of one core).
    pub server_cpu: f64,
    pub driver_cpu: f64,
    /// Of the server packets a bot received, the share that updated each of its nearest 8
    /// players (percent: lowest bot, mean).
    pub nearby_min_pct: f64,
    pub nearby_mean_pct: f64,
    /// The ghost-state check: the server's `GHOSTHASH` per name, and each bot's.
    pub server_ghost_hashes: BTreeMap<String, String>,
    pub client_ghost_hashes: Vec<Option<String>>,
    /// The first reason a bot's connection failed or ended, if any did.
    pub first_ending: Option<String>,
}

impl CrowdReport {
    /// Bots whose ghost-state hash (and ghost count) equals the server's for them.
    pub fn ghost_states_agree(&self) -> usize {
        self.client_ghost_hashes
            .iter()
            .enumerate()
            .filter(|(i, h)| {
                h.as_ref().is_some_and(|h| self.server_ghost_hashes.get(&bot_name(*i)) == Some(h))
            })
            .count()
    }

    /// Every bot joined, was played with, and holds the ghosts the server says it sent.
    pub fn ok(&self) -> bool {
        self.accepted == self.clients && self.ghost_states_agree() == self.clients
    }

    /// A human summary.
    pub fn render(&self) -> String {
        format!(
            "crowd: {} bots (one process, one UDP socket each on 127.0.0.1) against v12 --dedicated, {} s of play\n  \
             connected {}/{}, accepted {}/{} (joins retried {}; all in after {:.1} s)\n  \
             ghosts received {} (mean held {:.0}), {:.0} B/s per client received, nearest {} updated in {:.1} % of packets (lowest bot; mean {:.1} %)\n  \
             server: {} players, tick {:.0} µs (mean since its start), {:.1} kbit/s per client, {} pumps on packet threads; CPU in play: server {:.0} %, bot driver {:.0} % of a core\n  \
             ghost states agree (hash of every ghost's settled state, bot vs server): {}/{}{}\n",
            self.clients,
            self.seconds,
            self.connected,
            self.clients,
            self.accepted,
            self.clients,
            self.join_retries,
            self.join_s,
            self.ghosts_received,
            self.ghosts_held_mean,
            self.bytes_per_s_per_client,
            NEAREST_PLAYERS,
            self.nearby_min_pct,
            self.nearby_mean_pct,
            self.server_players,
            self.server_tick_us,
            self.server_kbps_per_client,
            self.server_parallel_pumps,
            self.server_cpu * 100.0,
            self.driver_cpu * 100.0,
            self.ghost_states_agree(),
            self.clients,
            self.first_ending.as_ref().map_or(String::new(), |e| format!("\n  first connection ending: {e}")),
        )
    }
}

/// The name bot `i` plays under.
fn bot_name(i: usize) -> String {
    format!("Crowd{i:04}")
}

/// A bot's ghosts: the scene's objects in its [`ClientScene`], world ghosts (terrain,
/// buildings) beside it, unused but kept so their updates have somewhere to go.
struct BotGhosts<'a> {
    scene: &'a mut ClientScene,
    world: &'a mut BTreeMap<u32, Box<dyn NetObject>>,
    next_world: &'a mut u32,
}

impl GhostClientWorld for BotGhosts<'_> {
    fn add_ghost(&mut self, ghost: Box<dyn NetObject>) -> ObjectId {
        if ghost.downcast_ref::<WorldObjectGhost>().is_some() {
            let id = WORLD_IDS + *self.next_world;
            *self.next_world = self.next_world.wrapping_add(1) % WORLD_IDS;
            self.world.insert(id, ghost);
            ObjectId(id)
        } else {
            self.scene.add_ghost(ghost)
        }
    }
    fn ghost_mut(&mut self, id: ObjectId) -> Option<&mut dyn NetObject> {
        if id.0 >= WORLD_IDS {
            self.world.get_mut(&id.0).map(|g| &mut **g as &mut dyn NetObject)
        } else {
            self.scene.ghost_mut(id)
        }
    }
    fn remove_ghost(&mut self, id: ObjectId) {
        if id.0 >= WORLD_IDS {
            self.world.remove(&id.0);
        } else {
            self.scene.remove_ghost(id);
        }
    }
}

/// One light bot client.
struct Bot {
    name: String,
    driver: NetDriver<UdpTransport>,
    server: ConnectionId,
    scene: ClientScene,
    world: BTreeMap<u32, Box<dyn NetObject>>,
    next_world: u32,
    gcon: ClientGameConnection,
    /// Server ids of the `PlayerData` datablocks (for the coverage figure).
    player_blocks: BTreeSet<u32>,
    datablocks: u32,
    connected: bool,
    accepted: bool,
    /// Why the connection ended; a refusal to try again is not an ending.
    ended: Option<String>,
    frozen: bool,
    over: bool,
    time_ms: u64,
    tick: u64,
    /// Its walk: which way it turns, and how sharply.
    turn: f32,
    coverage: UpdateCoverage,
    data_seen: u64,
    bytes_at_play: Option<u64>,
    hash: Option<String>,
    /// Ghosts it held at the ghost check.
    held: usize,
    /// Joins tried (a handshake that timed out or was refused is tried again).
    tries: u32,
}

/// Packet rates of the example game (`$Pref::Net::*` defaults): 32 moves packets a second
/// to the server, 10 a second back, 508 bytes.
fn client_rate() -> RateConfig {
    RateConfig { send_period_ms: 1000 / 32, send_size: 508, recv_period_ms: 100, recv_size: 508 }
}

fn encryption(pref: &str) -> io::Result<Encryption> {
    match pref {
        "off" => Ok(Encryption::Off),
        "on" => Ok(Encryption::On),
        "required" => Ok(Encryption::Required),
        other => Err(io::Error::other(format!("encryption '{other}' is not off, on or required"))),
    }
}

impl Bot {
    fn join(i: usize, server: SocketAddr, enc: Encryption, now: u64) -> io::Result<Self> {
        let (reg, ghosts) = v12_game::registries();
        let mut iface = NetInterface::new(
            InterfaceConfig { client_rate: client_rate(), encryption: enc, ..Default::default() },
            reg,
            v12_game::entropy(i as u64, 0x55),
        );
        iface.set_ghost_classes(ghosts);
        let name = bot_name(i);
        let server_conn =
            iface.connect(now, server, gc::encode_connect_args(std::slice::from_ref(&name)).into());
        let udp = UdpTransport::bind(NetAddress::new(std::net::Ipv4Addr::LOCALHOST.into(), 0))?;
        // Bots turn one way or the other, some sharply, so the crowd mixes.
        let h = (i as u32).wrapping_mul(2_654_435_761);
        let turn = (f32::from((h >> 8) as u8) / 255.0 - 0.5) * 0.12;
        Ok(Bot {
            name,
            driver: NetDriver::new(iface, udp),
            server: server_conn,
            scene: ClientScene::new(),
            world: BTreeMap::new(),
            next_world: 0,
            gcon: ClientGameConnection::new(),
            player_blocks: BTreeSet::new(),
            datablocks: 0,
            connected: false,
            accepted: false,
            ended: None,
            frozen: false,
            over: false,
            time_ms: now,
            tick: 0,
            turn,
            coverage: UpdateCoverage::new(),
            data_seen: 0,
            bytes_at_play: None,
            hash: None,
            held: 0,
            tries: 1,
        })
    }

    /// The local id of the ghost this bot controls.
    fn control_local(&self) -> Option<ObjectId> {
        let g = self.gcon.control_ghost()?;
        self.driver.interface.ghost_receiver(self.server)?.object_of(g)
    }

    /// This tick's move: walking, turning a little (a circle of its own), still once frozen.
    fn next_move(&self) -> Move {
        if self.frozen {
            return Move::from_input(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, [false; 6]);
        }
        // Every 10 s the other way round, so no bot sticks to a wall for long.
        let sign = if (self.tick / 312).is_multiple_of(2) { 1.0 } else { -1.0 };
        Move::from_input(0.0, 1.0, 0.0, self.turn * sign, 0.0, 0.0, [false; 6])
    }

    /// Its ticks up to `now`, then its network turn.
    fn step(&mut self, now: u64, motion: &Motion, counting: bool) -> io::Result<()> {
        while self.time_ms + u64::from(TICK_MS) <= now {
            self.time_ms += u64::from(TICK_MS);
            self.tick += 1;
            let mv = self.next_move();
            self.gcon.process_tick(mv, motion);
            if self.connected {
                let _ = self.gcon.post_moves(&mut self.driver.interface, self.server);
            }
        }
        let mut ghosts =
            BotGhosts { scene: &mut self.scene, world: &mut self.world, next_world: &mut self.next_world };
        self.driver.pump(now, &NoObjects, &mut ghosts)?;
        self.observe_coverage(counting && !self.frozen);
        while let Some(ev) = self.driver.interface.poll_event() {
            self.net_event(ev, motion);
        }
        Ok(())
    }

    fn observe_coverage(&mut self, counting: bool) {
        let Some(k) = self.driver.interface.connection(self.server) else { return };
        let data = k.protocol().stats().data_received;
        let fresh = if counting { data.saturating_sub(self.data_seen) } else { 0 };
        self.data_seen = data;
        let Some(me) = self.gcon.predicted().map(|s| s.pos) else { return };
        let skip = self.control_local();
        let players = &self.player_blocks;
        self.coverage.observe(&self.scene, me, NEAREST_PLAYERS, fresh, |id, g| {
            Some(id) != skip && g.flags & v12_game::HIDDEN == 0 && players.contains(&g.datablock)
        });
    }

    fn net_event(&mut self, ev: InterfaceEvent, motion: &Motion) {
        match ev {
            InterfaceEvent::Connected { .. } => self.connected = true,
            InterfaceEvent::ConnectFailed { reason, .. } | InterfaceEvent::Disconnected { reason, .. } => {
                self.ended = Some(reason);
            }
            InterfaceEvent::EventReceived { event, .. } => {
                if self.gcon.handle_event(&*event, motion) {
                    return;
                }
                if event.downcast_ref::<ConnectAcceptedEvent>().is_some() {
                    self.accepted = true;
                } else if let Some(b) = event.downcast_ref::<DataBlockEvent>() {
                    self.datablocks += 1;
                    self.scene.known_datablocks.insert(b.id);
                    if b.class.text() == "PlayerData" {
                        self.player_blocks.insert(b.id);
                    }
                } else if let Some(done) = event.downcast_ref::<DataBlocksDoneEvent>() {
                    if done.count == self.datablocks {
                        let ack = Box::new(DataBlocksAckEvent { count: done.count });
                        let _ = self.driver.interface.post_event(self.server, ack);
                    } else {
                        tracing::warn!(bot = %self.name, "server sent {} datablocks, {} arrived", done.count, self.datablocks);
                    }
                } else if let Some(cmd) = event.downcast_ref::<RemoteCommandEvent>() {
                    self.remote_command(cmd);
                }
            }
        }
    }

    /// The match's end, as the game's client scripts play it: stand still, then the ghost
    /// check, then done. Other commands (the scoreboard, chat) are not the crowd's business.
    fn remote_command(&mut self, cmd: &RemoteCommandEvent) {
        let name = match cmd.args.first() {
            Some(RemoteArg::TagText(t)) => &**t,
            Some(RemoteArg::Str(t)) => t.as_str(),
            _ => return,
        };
        match name {
            "Freeze" => self.frozen = true,
            "GhostCheck" => {
                let skip = self.control_local();
                let (hash, n) =
                    settled_state_hash(self.scene.iter().filter(|(id, _)| Some(*id) != skip).map(|(_, g)| g));
                self.hash = Some(format!("{hash:016x}/{n}"));
                self.held = self.scene.len();
            }
            "MatchOver" => self.over = true,
            _ => {}
        }
    }
}

/// CPU time (user + system, seconds) of a process: Linux `/proc`; `None` elsewhere.
fn cpu_seconds(pid: &str) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name (which may hold spaces) start at ") ".
    let rest = stat.rsplit_once(") ")?.1;
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    // The kernel's clock tick is 100 Hz on every Linux this runs on (USER_HZ).
    Some(ticks / 100.0)
}

fn field(line: &str, key: &str) -> Option<f64> {
    line.split_whitespace().find_map(|w| w.strip_prefix(key)?.strip_prefix('=')?.parse().ok())
}

fn text_field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    line.split_whitespace().find_map(|w| w.strip_prefix(key)?.strip_prefix('='))
}

/// The dedicated server: `v12 --dedicated` with the example game, room for the crowd from
/// one address, a match long enough for the joining and the play. Its stdout lines arrive
/// on the channel; returns it and its address.
fn start_server(
    cfg: &CrowdConfig,
    tx: mpsc::Sender<String>,
    rx: &mpsc::Receiver<String>,
) -> io::Result<(Child, SocketAddr)> {
    let path = match &cfg.v12 {
        Some(p) => p.clone(),
        None => super::bot_match::v12_program()?,
    };
    // Joining (and its slack), the warm-up, then the play measured.
    let match_s = cfg.join_seconds() + JOIN_SLACK_S + WARMUP_MS / 1000 + cfg.seconds;
    let mut child = Command::new(path)
        .arg("--dedicated")
        .arg("--mod")
        .arg(&cfg.mod_dir)
        .args(["--", "-port", "0", "-seconds", &match_s.to_string(), "-encryption", &cfg.encryption])
        .args(["-max-per-ip", &(cfg.clients + 8).to_string()])
        .args(["-packet-threads", &cfg.packet_threads.to_string()])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .stdin(Stdio::null())
        .spawn()?;
    let out = child.stdout.take().ok_or_else(|| io::Error::other("no stdout"))?;
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let addr = loop {
        match rx.recv_timeout(Duration::from_secs(20)) {
            Ok(line) => {
                if let Some(a) = line.strip_prefix("LISTENING ") {
                    break a.trim().parse().map_err(|_| io::Error::other(format!("bad address {a}")))?;
                }
            }
            Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(io::Error::other("the server did not start"));
            }
        }
    };
    Ok((child, addr))
}

/// The play so far: when every bot was in, CPU readings at that moment.
struct Phase {
    start: Instant,
    all_in: Option<(Instant, f64, f64)>,
    server_pid: String,
}

impl Phase {
    fn cpu(&self) -> (f64, f64) {
        (cpu_seconds(&self.server_pid).unwrap_or(0.0), cpu_seconds("self").unwrap_or(0.0))
    }
}

/// A server `STATUS` or `GHOSTHASH` line into the report (status only while playing).
fn server_line(report: &mut CrowdReport, line: &str, playing: bool) {
    if line.starts_with("STATUS ") && playing {
        report.server_players = field(line, "players").unwrap_or(0.0) as usize;
        report.server_tick_us = field(line, "tick_us").unwrap_or(0.0);
        report.server_kbps_per_client = field(line, "kbps_per_client").unwrap_or(0.0);
        report.server_parallel_pumps = field(line, "parallel_pumps").unwrap_or(0.0) as u64;
    } else if line.starts_with("GHOSTHASH ") {
        let name = text_field(line, "name").unwrap_or("").to_string();
        let hash = format!(
            "{}/{}",
            text_field(line, "hash").unwrap_or(""),
            text_field(line, "ghosts").unwrap_or("")
        );
        report.server_ghost_hashes.insert(name, hash);
    }
}

/// Runs the crowd and returns the report (a server that does not start is an error; bots
/// that do not join or disagree are in [`CrowdReport::ok`]).
pub fn run(cfg: &CrowdConfig) -> io::Result<CrowdReport> {
    let enc = encryption(&cfg.encryption)?;
    let (tx, rx) = mpsc::channel::<String>();
    let (mut server, addr) = start_server(cfg, tx, &rx)?;
    let result = drive(cfg, enc, addr, &rx, server.id());
    let _ = server.kill();
    let _ = server.wait();
    result
}

fn drive(
    cfg: &CrowdConfig,
    enc: Encryption,
    addr: SocketAddr,
    rx: &mpsc::Receiver<String>,
    server_pid: u32,
) -> io::Result<CrowdReport> {
    let clock = Instant::now();
    let now_ms = || clock.elapsed().as_millis() as u64;
    let motion = v12_game::motion(None, v12_game::PlayerTuning::default());
    let mut report = CrowdReport { clients: cfg.clients, seconds: cfg.seconds, ..CrowdReport::default() };
    let mut bots: Vec<Bot> = Vec::with_capacity(cfg.clients);
    let mut retry: Vec<(usize, u64)> = Vec::new();
    let mut phase = Phase { start: Instant::now(), all_in: None, server_pid: server_pid.to_string() };
    // Joining, play, the match's end (freeze, check, 3 s to quit), and some slack.
    let deadline = phase.start + Duration::from_secs(cfg.join_seconds() * 2 + cfg.seconds + 20);
    loop {
        let now = now_ms();
        // Joins paced below the server's handshake limits; a refused one again a little later.
        let due = JOIN_BURST + (phase.start.elapsed().as_secs_f64() * JOINS_PER_S) as usize;
        while bots.len() < cfg.clients.min(due) {
            bots.push(Bot::join(bots.len(), addr, enc, now)?);
        }
        retry.retain(|&(i, at)| {
            if now < at {
                return true;
            }
            let tries = bots[i].tries + 1;
            if let Ok(b) = Bot::join(i, addr, enc, now) {
                bots[i] = Bot { tries, ..b };
            }
            false
        });
        let counting = phase.all_in.is_some_and(|(t, _, _)| t.elapsed() >= Duration::from_millis(WARMUP_MS));
        for (i, b) in bots.iter_mut().enumerate() {
            b.step(now, &motion, counting)?;
            // "Server busy" (the handshake limits) or a handshake that timed out: this bot
            // joins again a little later.
            if !b.accepted && b.tries < JOIN_TRIES && b.ended.take().is_some() {
                report.join_retries += 1;
                retry.push((i, now + JOIN_RETRY_MS));
            }
        }
        let accepted = bots.iter().filter(|b| b.accepted).count();
        // Play is counted once every bot is in, or once the joining had its time.
        let joining_over = phase.start.elapsed() >= Duration::from_secs(cfg.join_seconds() + JOIN_SLACK_S);
        if phase.all_in.is_none() && (accepted == cfg.clients || joining_over) {
            let (s, d) = phase.cpu();
            phase.all_in = Some((Instant::now(), s, d));
            report.join_s = phase.start.elapsed().as_secs_f64();
        }
        if counting {
            for b in bots.iter_mut().filter(|b| b.bytes_at_play.is_none()) {
                b.bytes_at_play = Some(b.driver.stats().bytes_in);
            }
        }
        let playing = counting && !bots.iter().any(|b| b.frozen);
        while let Ok(line) = rx.try_recv() {
            tracing::debug!(target: "crowd_server", "{line}");
            server_line(&mut report, &line, playing);
        }
        if playing {
            stamp_play(&mut report, &bots, &phase);
        }
        let done =
            bots.len() == cfg.clients && bots.iter().all(|b| b.over || b.ended.is_some()) && retry.is_empty();
        if done || Instant::now() > deadline {
            break;
        }
        let spent = now_ms().saturating_sub(now);
        std::thread::sleep(Duration::from_millis(PASS_MS.saturating_sub(spent).max(1)));
    }
    // The server's last lines (its GHOSTHASH lines came before MatchOver).
    while let Ok(line) = rx.recv_timeout(Duration::from_millis(200)) {
        server_line(&mut report, &line, false);
    }
    finish(&mut report, &bots);
    Ok(report)
}

/// The per-client rate and the CPU shares so far in play (updated every pass, so the last
/// values are those of the whole play).
fn stamp_play(report: &mut CrowdReport, bots: &[Bot], phase: &Phase) {
    let Some((t, s0, d0)) = phase.all_in else { return };
    let secs = t.elapsed().as_secs_f64() - WARMUP_MS as f64 / 1000.0;
    if secs <= 0.5 {
        return;
    }
    let bytes: u64 =
        bots.iter().map(|b| b.driver.stats().bytes_in.saturating_sub(b.bytes_at_play.unwrap_or(0))).sum();
    report.bytes_per_s_per_client = bytes as f64 / bots.len().max(1) as f64 / secs;
    let all = t.elapsed().as_secs_f64();
    let (s, d) = phase.cpu();
    report.server_cpu = (s - s0) / all;
    report.driver_cpu = (d - d0) / all;
}

fn finish(report: &mut CrowdReport, bots: &[Bot]) {
    report.connected = bots.iter().filter(|b| b.connected || b.accepted).count();
    report.accepted = bots.iter().filter(|b| b.accepted).count();
    report.ghosts_received = bots.iter().map(|b| b.scene.ghosts_added).sum();
    report.ghosts_held_mean = bots.iter().map(|b| b.held as f64).sum::<f64>() / bots.len().max(1) as f64;
    let cov: Vec<f64> =
        bots.iter().filter(|b| b.coverage.packets > 0).map(|b| b.coverage.ratio() * 100.0).collect();
    report.nearby_min_pct = cov.iter().copied().fold(100.0, f64::min);
    report.nearby_mean_pct = if cov.is_empty() { 100.0 } else { cov.iter().sum::<f64>() / cov.len() as f64 };
    report.client_ghost_hashes = bots.iter().map(|b| b.hash.clone()).collect();
    // The server's quit after the match is the normal end; any other ending is news.
    report.first_ending = bots.iter().filter(|b| !b.over).find_map(|b| b.ended.clone());
}
