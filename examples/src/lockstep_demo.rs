//! `cargo xtask demo --lockstep relay|p2p [--inject-desync]`: four bot players of the RTS
//! on real loopback UDP, each socket behind the link conditioner, lockstep messages as
//! guaranteed-ordered NetEvents. Prints turns per second, time in the delay state, command
//! latency and whether every player ended with the same checksum.

use crate::net_loop::entropy;
use std::io;
use std::net::SocketAddr;
use std::time::{Duration, Instant};
use v12_netobject::ghost::{GhostArena, NoObjects};

use crate::rts::RtsGame;
use v12_lockstep::net::{PeerNode, RelayClientNode, RelayServerNode};
use v12_lockstep::*;
use v12_platform::{ConditionerConfig, Datagram, LinkConditioner, NetAddress, Transport, UdpTransport};

/// Which lockstep mode the demo runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LockstepMode {
    /// Server-relayed (relayed lockstep).
    Relay,
    /// Peer-to-peer with a master peer (Robo Cat RTS).
    P2p,
}

/// Demo settings.
#[derive(Clone, Debug)]
pub struct LockstepDemoConfig {
    /// Mode.
    pub mode: LockstepMode,
    /// Bot players.
    pub players: usize,
    /// Game time to run (s), after everyone is connected.
    pub seconds: f64,
    /// Change one cat on one player halfway through.
    pub inject_desync: bool,
    /// Conditioner on every socket.
    pub link: ConditionerConfig,
    /// Seed for the game, the bots and the conditioners.
    pub seed: u64,
    /// Where each player's replay and any desync report are written (None: nowhere).
    pub log_dir: Option<std::path::PathBuf>,
}

impl Default for LockstepDemoConfig {
    fn default() -> Self {
        Self {
            mode: LockstepMode::Relay,
            players: 4,
            seconds: 10.0,
            inject_desync: false,
            link: ConditionerConfig::average(),
            seed: 1,
            log_dir: None,
        }
    }
}

/// What the demo measured.
#[derive(Clone, Debug, Default)]
pub struct LockstepReport {
    /// Mode run.
    pub mode: String,
    /// Players at the start.
    pub players: usize,
    /// Wall time of the game phase (s).
    pub seconds: f64,
    /// NWFs (relay) or turns (p2p) run per second, mean over players.
    pub turns_per_second: f64,
    /// GFs / sub-turns run per second, mean over players.
    pub frames_per_second: f64,
    /// Mean share of the time spent in the delay state.
    pub delay_share: f64,
    /// Own commands issued → executed.
    pub latency: LatencyStats,
    /// Lower bound of that latency with a perfect network (ms).
    pub latency_floor_ms: f64,
    /// (player, frames run, checksum at the last common frame).
    pub checksums: Vec<(PlayerId, usize, u32)>,
    /// All players still in agree on every common frame.
    pub agree: bool,
    /// What happened (desync detection, drops, kicks).
    pub log: Vec<String>,
    /// UDP bytes sent per player per second (mean).
    pub bytes_per_player_second: f64,
    /// Files written (replays, desync reports).
    pub files: Vec<std::path::PathBuf>,
}

impl LockstepReport {
    /// A printable summary.
    pub fn render(&self) -> String {
        let mut s = format!(
            "lockstep {} — {} bot players, {:.1} s on loopback UDP\n\
             turns/s {:.2} (frames/s {:.1}), delay state {:.1} % of the time\n\
             command latency issued→executed: mean {:.0} ms, p50 {} ms, p95 {} ms, min {} ms, max {} ms \
             ({} commands; floor with a perfect network {:.0} ms)\n\
             UDP bytes per player per second: {:.0}\n",
            self.mode,
            self.players,
            self.seconds,
            self.turns_per_second,
            self.frames_per_second,
            self.delay_share * 100.0,
            self.latency.mean(),
            self.latency.quantile(0.5),
            self.latency.quantile(0.95),
            self.latency.min,
            self.latency.max,
            self.latency.count,
            self.latency_floor_ms,
            self.bytes_per_player_second,
        );
        for (p, n, c) in &self.checksums {
            s.push_str(&format!(
                "  player {p}: {n} frames recorded, checksum at last common frame {c:#010x}\n"
            ));
        }
        s.push_str(if self.agree {
            "final checksums: all players agree\n"
        } else {
            "final checksums: DISAGREE\n"
        });
        for l in &self.log {
            s.push_str(&format!("  {l}\n"));
        }
        for f in &self.files {
            s.push_str(&format!("  wrote {}\n", f.display()));
        }
        s
    }
}

/// Renders a report (same as [`LockstepReport::render`]).
pub fn render(report: &LockstepReport) -> String {
    report.render()
}

type Link = LinkConditioner<UdpTransport>;

fn socket(link: &ConditionerConfig, seed: u64) -> io::Result<Link> {
    let udp = UdpTransport::bind(NetAddress::localhost(0))?;
    Ok(LinkConditioner::new(udp, *link, seed))
}

/// Moves datagrams between a transport and a NetInterface-owning node.
fn pump_in(
    t: &mut Link,
    now: u64,
    inbox: &mut Vec<Datagram>,
    mut f: impl FnMut(SocketAddr, &[u8]),
) -> io::Result<()> {
    t.poll(now)?;
    inbox.clear();
    t.recv_batch(now, inbox)?;
    for d in inbox.drain(..) {
        f(d.from.socket_addr(), &d.data);
    }
    Ok(())
}

fn pump_out(t: &mut Link, now: u64, iface: &mut v12_netobject::NetInterface, bytes: &mut u64) {
    // Lockstep ghosts nothing.
    while let Some((to, data)) = iface.poll_transmit(now, &NoObjects) {
        *bytes += data.len() as u64;
        // A refused send is a lost datagram; the notify protocol resends what matters.
        let _ = t.send_to(now, to.into(), &data);
    }
}

fn agree(replays: &[(PlayerId, &Replay)]) -> (bool, Vec<(PlayerId, usize, u32)>) {
    let common = replays.iter().map(|(_, r)| r.frames.len()).min().unwrap_or(0);
    let mut ok = common > 0;
    let mut sums = Vec::new();
    for (p, r) in replays {
        ok &= r.frames[..common] == replays[0].1.frames[..common];
        sums.push((*p, r.frames.len(), r.frames.get(common.wrapping_sub(1)).map_or(0, |f| f.checksum)));
    }
    (ok, sums)
}

/// Writes each player's replay (`replay-<mode>-player<P>.v12r`) and the desync reports
/// into `dir`, next to each other; the paths written.
fn write_logs(
    dir: &std::path::Path,
    mode: &str,
    replays: &[(PlayerId, &Replay)],
    reports: &[DesyncReport],
) -> io::Result<Vec<std::path::PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let mut files = Vec::new();
    for (p, r) in replays {
        let path = dir.join(format!("replay-{mode}-player{p}.v12r"));
        std::fs::write(&path, r.encode())?;
        files.push(path);
    }
    for r in reports {
        files.push(r.write_to(dir)?);
    }
    Ok(files)
}

/// Runs the demo.
pub fn run(config: &LockstepDemoConfig) -> io::Result<LockstepReport> {
    match config.mode {
        LockstepMode::Relay => run_relay(config),
        LockstepMode::P2p => run_p2p(config),
    }
}

fn run_relay(config: &LockstepDemoConfig) -> io::Result<LockstepReport> {
    let clock = Instant::now();
    let now_ms = || clock.elapsed().as_millis() as u64;
    let mut server_sock = socket(&config.link, config.seed)?;
    let server_addr = server_sock.local_addr().socket_addr();
    let relay = RelayServer::new(RelayConfig { lag_kick_ms: 8_000, ..RelayConfig::default() }, config.seed);
    let mut server = RelayServerNode::new(relay, entropy(config.seed, 0));
    let mut socks = Vec::new();
    let mut clients = Vec::new();
    for i in 0..config.players {
        socks.push(socket(&config.link, config.seed + 1 + i as u64)?);
        let c = RelayClient::<RtsGame>::new(RelayClientConfig::default());
        clients.push(RelayClientNode::connect(
            c,
            now_ms(),
            server_addr,
            &format!("bot{}", i + 1),
            entropy(config.seed, i as u64 + 1),
        ));
    }
    let mut bots: Vec<DetRng> =
        (0..config.players).map(|i| DetRng::new(config.seed ^ (i as u64 + 77))).collect();
    let mut inbox = Vec::new();
    let mut bytes = vec![0u64; config.players + 1];
    let mut log = Vec::new();
    let mut started_at = None;
    let mut all_connected_at = None;
    let mut injected = false;
    // Lockstep is sent no ghosts.
    let mut no_ghosts = GhostArena::new();
    let connect_deadline = now_ms() + 10_000;
    loop {
        let now = now_ms();
        pump_in(&mut server_sock, now, &mut inbox, |from, d| {
            server.interface.handle_datagram(now, from, d, &mut no_ghosts)
        })?;
        server.update(now);
        pump_out(&mut server_sock, now, &mut server.interface, &mut bytes[0]);
        for (i, (c, s)) in clients.iter_mut().zip(socks.iter_mut()).enumerate() {
            pump_in(s, now, &mut inbox, |from, d| c.interface.handle_datagram(now, from, d, &mut no_ghosts))?;
            if started_at.is_some()
                && bots[i].below(1000) < 4
                && let Some(p) = c.client.player()
                && let Some(cmd) = c.client.game().and_then(|g| g.bot_command(p, &mut bots[i]))
            {
                c.client.issue(now, cmd);
            }
            c.update(now);
            pump_out(s, now, &mut c.interface, &mut bytes[i + 1]);
        }
        match started_at {
            None if server.connected() == config.players && all_connected_at.is_none() => {
                all_connected_at = Some(now);
            }
            // A second of traffic first, so the NWF length comes from measured pings.
            None if all_connected_at.is_some_and(|t| now >= t + 1_000) => {
                server.server.start(now);
                started_at = Some(now);
                log.push(format!(
                    "started: NWF length {} GFs of {} ms",
                    server.server.nwf_len(),
                    server.server.gf_ms()
                ));
            }
            None if now > connect_deadline => return Err(io::Error::other("clients did not connect")),
            Some(t0) => {
                let elapsed = (now - t0) as f64 / 1000.0;
                if config.inject_desync && !injected && elapsed >= config.seconds / 2.0 {
                    injected = true;
                    if let Some(c) = clients.last_mut() {
                        let id = c.client.player().unwrap_or(0);
                        if let Some(g) = c.client.game_mut() {
                            g.cats[0].x += 512;
                            log.push(format!("injected: moved cat 0 on player {id} behind lockstep's back"));
                        }
                    }
                }
                if elapsed >= config.seconds {
                    break;
                }
            }
            None => {}
        }
        while let Some(e) = server.server.poll_event() {
            log.push(format!("server: {e:?}"));
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    let secs = config.seconds;
    let mut latency = LatencyStats::default();
    let (mut nwfs, mut gfs, mut delay) = (0.0, 0.0, 0.0);
    let mut replays = Vec::new();
    for c in &clients {
        let s = c.client.stats();
        latency.merge(&s.latency);
        nwfs += s.nwfs as f64;
        gfs += s.gfs as f64;
        delay += s.delay_ms as f64 / 1000.0 / secs;
        if !c.client.is_out()
            && let (Some(p), Some(r)) = (c.client.player(), c.client.replay())
        {
            replays.push((p, r));
        }
    }
    let n = clients.len() as f64;
    let (ok, checksums) = agree(&replays);
    let floor =
        f64::from(server.server.gf_ms() * server.server.nwf_len() * RelayConfig::default().command_delay);
    let frames = replays.first().map_or(&[][..], |(_, r)| &r.frames[..]);
    let reports: Vec<DesyncReport> = server
        .server
        .async_logs()
        .iter()
        .map(|l| DesyncReport::from_async_log::<RtsGame>(l, frames))
        .collect();
    let files = match &config.log_dir {
        Some(dir) => write_logs(dir, "relay", &replays, &reports)?,
        None => Vec::new(),
    };
    Ok(LockstepReport {
        mode: "relay".into(),
        players: config.players,
        seconds: secs,
        turns_per_second: nwfs / n / secs,
        frames_per_second: gfs / n / secs,
        delay_share: delay / n,
        latency,
        latency_floor_ms: floor,
        checksums,
        agree: ok,
        log,
        bytes_per_player_second: bytes[1..].iter().sum::<u64>() as f64 / n / secs,
        files,
    })
}

fn run_p2p(config: &LockstepDemoConfig) -> io::Result<LockstepReport> {
    let clock = Instant::now();
    let now_ms = || clock.elapsed().as_millis() as u64;
    let mut socks = Vec::new();
    let mut nodes: Vec<PeerNode<RtsGame>> = Vec::new();
    let pc = PeerConfig { countdown_ms: 1_000, ..PeerConfig::default() };
    for i in 0..config.players {
        socks.push(socket(&config.link, config.seed + 1 + i as u64)?);
        let peer = if i == 0 {
            Peer::new_master(pc.clone(), "bot1")
        } else {
            Peer::join(pc.clone(), &format!("bot{}", i + 1), socks[0].local_addr().socket_addr(), now_ms())
        };
        nodes.push(PeerNode::new(peer, entropy(config.seed, i as u64)));
    }
    let mut bots: Vec<DetRng> =
        (0..config.players).map(|i| DetRng::new(config.seed ^ (i as u64 + 99))).collect();
    let mut inbox = Vec::new();
    let mut bytes = vec![0u64; config.players];
    let mut log = Vec::new();
    let mut started_at = None;
    let mut injected = false;
    let mut no_ghosts = GhostArena::new();
    let deadline = now_ms() + 15_000;
    loop {
        let now = now_ms();
        for (i, (n, s)) in nodes.iter_mut().zip(socks.iter_mut()).enumerate() {
            pump_in(s, now, &mut inbox, |from, d| n.interface.handle_datagram(now, from, d, &mut no_ghosts))?;
            if n.peer.phase() == PeerPhase::Playing
                && bots[i].below(1000) < 4
                && let Some(cmd) = n.peer.game().and_then(|g| g.bot_command(n.peer.id(), &mut bots[i]))
            {
                n.peer.issue(now, cmd);
            }
            n.update(now);
            pump_out(s, now, &mut n.interface, &mut bytes[i]);
            while let Some(e) = n.peer.poll_event() {
                match e {
                    PeerEvent::PeerJoined { .. } | PeerEvent::Countdown { .. } => {}
                    PeerEvent::Started if i == 0 => {
                        started_at = Some(now);
                        log.push("game started (turn -2)".into());
                    }
                    PeerEvent::Started => {}
                    other => log.push(format!("peer {}: {other:?}", n.peer.id())),
                }
            }
        }
        if nodes[0].peer.phase() == PeerPhase::Lobby && nodes[0].peer.players().len() == config.players {
            nodes[0].peer.start(now, config.seed);
        }
        match started_at {
            None if now > deadline => return Err(io::Error::other("peers did not start")),
            Some(t0) => {
                let elapsed = (now - t0) as f64 / 1000.0;
                if config.inject_desync && !injected && elapsed >= config.seconds / 2.0 {
                    injected = true;
                    if let Some(n) = nodes.last_mut() {
                        let id = n.peer.id();
                        if let Some(g) = n.peer.game_mut() {
                            g.cats[0].x += 512;
                            log.push(format!("injected: moved cat 0 on peer {id} behind lockstep's back"));
                        }
                    }
                }
                if elapsed >= config.seconds {
                    break;
                }
            }
            None => {}
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    let secs = config.seconds;
    let mut latency = LatencyStats::default();
    let (mut turns, mut subs, mut delay) = (0.0, 0.0, 0.0);
    let mut replays = Vec::new();
    for n in &nodes {
        let s = n.peer.stats();
        latency.merge(&s.latency);
        turns += s.turns as f64;
        subs += s.sub_turns as f64;
        delay += s.delay_ms as f64 / 1000.0 / secs;
        if n.peer.phase() == PeerPhase::Playing
            && let Some(r) = n.peer.replay()
        {
            replays.push((n.peer.id(), r));
        }
    }
    let k = nodes.len() as f64;
    let (ok, checksums) = agree(&replays);
    // The adapted floor: data sent at a turn's end runs delay - 1 turns later.
    let turn_delay = nodes[0].peer.turn_delay().max(1);
    let floor = (turn_delay - 1) as f64 * pc.turn_ms as f64;
    log.push(format!("turn delay at the end: {turn_delay} turns of {} ms", pc.turn_ms));
    let mut reports = Vec::new();
    for n in &mut nodes {
        while let Some(r) = n.peer.poll_desync_report() {
            reports.push(r);
        }
    }
    let all: Vec<(PlayerId, &Replay)> =
        nodes.iter().filter_map(|n| Some((n.peer.id(), n.peer.replay()?))).collect();
    let files = match &config.log_dir {
        Some(dir) => write_logs(dir, "p2p", &all, &reports)?,
        None => Vec::new(),
    };
    Ok(LockstepReport {
        mode: "p2p".into(),
        players: config.players,
        seconds: secs,
        // Turns are counted from turn 0, two turns after the start (turns -2 and -1 only
        // lead in); sub-turns from the start.
        turns_per_second: turns / k / (secs - 2.0 * pc.turn_ms as f64 / 1000.0),
        frames_per_second: subs / k / secs,
        delay_share: delay / k,
        latency,
        latency_floor_ms: floor,
        checksums,
        agree: ok,
        log,
        bytes_per_player_second: bytes.iter().sum::<u64>() as f64 / k / secs,
        files,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn demo(mode: LockstepMode, inject_desync: bool) -> LockstepReport {
        let dir = std::env::temp_dir()
            .join(format!("v12-lockstep-{}-{mode:?}-{inject_desync}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let config = LockstepDemoConfig {
            mode,
            seconds: 4.0,
            inject_desync,
            log_dir: Some(dir),
            ..LockstepDemoConfig::default()
        };
        let report = run(&config).expect("demo runs on loopback");
        println!("{}", report.render());
        report
    }

    #[test]
    fn relay_and_p2p_agree_on_loopback() {
        for mode in [LockstepMode::Relay, LockstepMode::P2p] {
            let r = demo(mode, false);
            assert!(r.agree, "{mode:?}");
            assert_eq!(r.checksums.len(), 4);
            assert!(r.latency.count > 0);
        }
    }

    #[test]
    fn injected_desync_is_detected_and_the_odd_player_dropped() {
        let r = demo(LockstepMode::Relay, true);
        assert!(r.log.iter().any(|l| l.contains("AsyncDetected")), "{:?}", r.log);
        assert!(r.agree);
        assert_eq!(r.checksums.len(), 3);
        assert_report(&r, "relay");
        let r = demo(LockstepMode::P2p, true);
        assert!(r.log.iter().any(|l| l.contains("Desync")), "{:?}", r.log);
        assert!(r.agree);
        assert_eq!(r.checksums.len(), 3);
        assert_report(&r, "p2p");
    }

    /// A readable report next to the replays names the player changed and a frame,
    /// and carries every checksum, the commands before it and a state dump.
    fn assert_report(r: &LockstepReport, mode: &str) {
        let report = r
            .files
            .iter()
            .find(|f| {
                f.file_name().is_some_and(|n| n.to_string_lossy().starts_with(&format!("desync-{mode}-")))
            })
            .unwrap_or_else(|| panic!("no desync report among {:?}", r.files));
        assert!(
            r.files
                .iter()
                .any(|f| f.extension().is_some_and(|e| e == "v12r") && f.parent() == report.parent())
        );
        let text = std::fs::read_to_string(report).unwrap();
        assert!(
            text.starts_with(&format!("# V12 lockstep desync report 1\nmode: {mode}\nframe: ")),
            "{text}"
        );
        // The player changed (ids follow the order the connections came in).
        let changed = r
            .log
            .iter()
            .find_map(|l| l.split("moved cat 0 on ").nth(1)?.split_whitespace().nth(1)?.parse::<u8>().ok())
            .expect("the injection is logged");
        assert!(text.contains(&format!("\ndiverging: {changed}\n")), "{text}");
        assert!(text.lines().filter(|l| l.starts_with("checksum: ")).count() >= 3, "{text}");
        assert!(text.contains("# commands, oldest first\nframe "), "{text}");
        assert!(text.contains("# state of player "), "{text}");
    }
}
