//! The performance figures of issue 7 in simulated time: command latency (issued →
//! executed) of both modes with 8 players at 50, 100 and 200 ms RTT against the
//! theoretical floor, and the payload bytes per second per player. Seeded links, simulated
//! clock: the table printed with `--nocapture` is the same on every machine. Only things
//! that must hold are asserted (no sample under the floor, every player agrees).

mod support;

use std::cell::Cell;
use std::rc::Rc;
use support::{COMMAND_ODDS, bot_command, p2p_world};
use v12_lockstep::harness::{LinkConfig, RelayWorld};
use v12_lockstep::toy::ToyGame;
use v12_lockstep::*;

const PLAYERS: usize = 8;
/// Simulated game time measured per run (ms), after the game started.
const MEASURE_MS: u64 = 60_000;
const RTTS: [u64; 3] = [50, 100, 200];

/// One measured run.
struct Figures {
    mode: &'static str,
    rtt: u64,
    /// Frame length (NWF or turn) in ms.
    frame_ms: u64,
    /// Latency floor on a perfect link (ms).
    floor_ms: u64,
    latency: LatencyStats,
    /// Payload bytes per second each player sends (mean over players).
    up_bps: f64,
    /// Payload bytes per second each player receives (mean over players).
    down_bps: f64,
    frames_run: usize,
    /// Largest share of the measured window any player spent waiting in the delay state.
    delay_share: f64,
}

fn assert_replays_agree(replays: &[&Replay], step_gfs: u32) -> usize {
    let first = replays[0];
    assert!(first.frames.len() > 100, "too few frames ran: {}", first.frames.len());
    for w in first.frames.windows(2) {
        assert_eq!(w[1].gf - w[0].gf, step_gfs, "a frame was skipped");
    }
    for (i, r) in replays.iter().enumerate().skip(1) {
        let n = r.frames.len().min(first.frames.len());
        assert!(n + 3 >= r.frames.len().max(first.frames.len()), "player {i} drifted apart");
        assert_eq!(r.frames[..n], first.frames[..n], "player {i} ran other commands or got another state");
    }
    first.frames.len()
}

fn relay_run(rtt: u64, seed: u64) -> Figures {
    let config = RelayConfig::default();
    let gf_ms = u64::from(config.gf_ms);
    let delay = u64::from(config.command_delay);
    let mut w =
        RelayWorld::<ToyGame>::new(config, RelayClientConfig::default(), PLAYERS, LinkConfig::rtt(rtt), seed);
    w.start();
    let nwf_len = w.server().nwf_len();
    let frame_ms = u64::from(nwf_len) * gf_ms;
    // Commands only in the measured window: one issued while a client waits for the first
    // NWF runs after it caught up on the missed GFs, sooner than the floor after issue.
    let issue_from = Cell::new(u64::MAX);
    let mut bot = |now: u64, i: usize, c: &mut RelayClient<ToyGame>| {
        if now >= issue_from.get()
            && let Some(p) = c.player()
            && let Some(cmd) = bot_command(now, i, p, seed)
        {
            c.issue(now, cmd);
        }
    };
    // One second to settle (start message, first NWFs), then the measured window.
    w.run_for(1_000, &mut bot);
    issue_from.set(w.now() + 1);
    let sent_before = w.sent_bytes();
    let delay_before: Vec<u64> = w.clients().map(|c| c.stats().delay_ms).collect();
    w.run_for(MEASURE_MS, &mut bot);
    assert_eq!(w.server().nwf_len(), nwf_len, "clean links: the NWF length stays put");
    let secs = MEASURE_MS as f64 / 1000.0;
    let sent: Vec<u64> = w.sent_bytes().iter().zip(&sent_before).map(|(a, b)| a - b).collect();
    let up_bps = sent[1..].iter().sum::<u64>() as f64 / PLAYERS as f64 / secs;
    let down_bps = sent[0] as f64 / PLAYERS as f64 / secs;
    let mut latency = LatencyStats::default();
    let mut delay_ms = 0;
    for (c, before) in w.clients().zip(delay_before) {
        assert!(!c.is_out(), "nobody left");
        latency.merge(&c.stats().latency);
        delay_ms = delay_ms.max(c.stats().delay_ms - before);
    }
    let replays: Vec<&Replay> = w.clients().map(|c| c.replay().expect("started")).collect();
    let frames_run = assert_replays_agree(&replays, nwf_len);
    Figures {
        mode: "relay",
        rtt,
        frame_ms,
        floor_ms: delay * frame_ms,
        latency,
        up_bps,
        down_bps,
        frames_run,
        delay_share: delay_ms as f64 / MEASURE_MS as f64,
    }
}

fn p2p_run(rtt: u64, seed: u64) -> Figures {
    let config = PeerConfig { countdown_ms: 1_000, ..PeerConfig::default() };
    let frame_ms = config.turn_ms;
    let sub_turns = config.sub_turns;
    // Join, lobby and countdown, then a settling second as in the relay run.
    let issue_from = Rc::new(Cell::new(u64::MAX));
    let (mut w, mut bot) = p2p_world(config, PLAYERS, LinkConfig::rtt(rtt), seed, issue_from.clone());
    w.run_for(1_000, &mut bot);
    issue_from.set(w.now() + 1);
    let sent_before = w.sent_bytes();
    let delay_before: Vec<u64> = w.peers().map(|p| p.stats().delay_ms).collect();
    w.run_for(MEASURE_MS, &mut bot);
    let secs = MEASURE_MS as f64 / 1000.0;
    let sent: u64 = w.sent_bytes().iter().zip(&sent_before).map(|(a, b)| a - b).sum();
    // Lossless symmetric links: every byte sent is received by another peer.
    let up_bps = sent as f64 / PLAYERS as f64 / secs;
    let mut latency = LatencyStats::default();
    let mut delay_ms = 0;
    for (p, before) in w.peers().zip(delay_before) {
        assert_eq!(p.phase(), PeerPhase::Playing, "nobody dropped");
        latency.merge(&p.stats().latency);
        delay_ms = delay_ms.max(p.stats().delay_ms - before);
    }
    // Data for turn T + delay leaves at the end of turn T and runs on entering T + delay,
    // which is delay - 1 turns later: a command issued just before a turn ends waits that long.
    // The delay is the adapted one (every peer holds the same).
    let delay = u64::try_from(w.peer(0).turn_delay()).expect("a positive delay");
    let floor_ms = (delay - 1) * frame_ms;
    let replays: Vec<&Replay> = w.peers().map(|p| p.replay().expect("started")).collect();
    let frames_run = assert_replays_agree(&replays, sub_turns);
    Figures {
        mode: "p2p",
        rtt,
        frame_ms,
        floor_ms,
        latency,
        up_bps,
        down_bps: up_bps,
        frames_run,
        delay_share: delay_ms as f64 / MEASURE_MS as f64,
    }
}

#[test]
fn latency_and_bandwidth_tables_at_50_100_200_ms_rtt() {
    let mut runs = Vec::new();
    for (k, &rtt) in RTTS.iter().enumerate() {
        runs.push(relay_run(rtt, 0x7E1A_0000 + k as u64));
        runs.push(p2p_run(rtt, 0x9EE2_0000 + k as u64));
    }
    println!(
        "\n{PLAYERS} players, clean links (no jitter, no loss), {} s simulated per run, \
         ~{} commands/s/player",
        MEASURE_MS / 1000,
        1000 / COMMAND_ODDS
    );
    println!(
        "| mode | RTT (ms) | frame (ms) | floor (ms) | ideal mean: floor + ½ frame (ms) | samples | mean / p50 / p95 / max (ms) | mean ÷ floor \
         | p95 ÷ floor | frames run | delay state (worst player) |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    for f in &runs {
        let l = &f.latency;
        println!(
            "| {} | {} | {} | {} | {} | {} | {:.0} / {} / {} / {} | {:.2} | {:.2} | {} | {:.0} % |",
            f.mode,
            f.rtt,
            f.frame_ms,
            f.floor_ms,
            f.floor_ms + f.frame_ms / 2,
            l.count,
            l.mean(),
            l.quantile(0.5),
            l.quantile(0.95),
            l.max,
            l.mean() / f.floor_ms as f64,
            l.quantile(0.95) as f64 / f.floor_ms as f64,
            f.frames_run,
            f.delay_share * 100.0,
        );
    }
    println!("\n| mode | RTT (ms) | payload bytes/s sent per player | payload bytes/s received per player |");
    println!("| --- | --- | --- | --- |");
    for f in &runs {
        println!("| {} | {} | {:.0} | {:.0} |", f.mode, f.rtt, f.up_bps, f.down_bps);
    }
    for f in &runs {
        let l = &f.latency;
        assert!(l.count > 1_000, "{} at {} ms: only {} commands measured", f.mode, f.rtt, l.count);
        assert!(
            l.min >= f.floor_ms,
            "{} at {} ms: {} ms beats the floor {}",
            f.mode,
            f.rtt,
            l.min,
            f.floor_ms
        );
        // Issued uniformly within a frame: the mean cannot be under floor + a few ms.
        assert!(l.mean() >= f.floor_ms as f64, "{} at {} ms: mean under the floor", f.mode, f.rtt);
        assert!(f.up_bps > 0.0 && f.down_bps > 0.0);
    }
}
