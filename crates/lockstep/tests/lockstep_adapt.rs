//! Lockstep on real links (issue 19): the peer-to-peer turn delay follows the measured
//! links, every peer switches at the same turn, and the replays still replay exactly; and
//! the table of both modes on the good / average / poor presets, before (fixed delay) and
//! after (adaptive), in one run (`cargo test --release -p v12-lockstep --features test-support --test lockstep_adapt --
//! --ignored --nocapture`). Simulated time, seeded links: the same on every machine.

mod support;

use std::cell::Cell;
use std::rc::Rc;
use support::{bot_command, p2p_world};
use v12_lockstep::harness::{LinkConfig, PeerWorld, RelayWorld};
use v12_lockstep::toy::ToyGame;
use v12_lockstep::*;

fn link(latency_ms: u64, jitter_ms: u64, loss: f64) -> LinkConfig {
    LinkConfig { latency_ms, jitter_ms, loss, duplicate: 0.0 }
}

fn replays(w: &PeerWorld<ToyGame>) -> Vec<&Replay> {
    w.peers().map(|p| p.replay().expect("started")).collect()
}

/// Every peer ran the same turns with the same delay, commands and checksums.
fn assert_same_history(w: &PeerWorld<ToyGame>) {
    let r = replays(w);
    for (i, other) in r.iter().enumerate().skip(1) {
        let n = other.frames.len().min(r[0].frames.len());
        assert!(n > 50, "too few turns: {n}");
        assert_eq!(other.frames[..n], r[0].frames[..n], "peer {} differs from peer 1", i + 1);
    }
}

#[test]
fn a_slow_link_is_measured_before_the_start_so_the_game_does_not_begin_by_stalling() {
    v12_netsim::for_each_seed([0x57A7, 0x57A8], |seed| {
        let config = PeerConfig { countdown_ms: 500, ..PeerConfig::default() };
        let (mut w, mut bot) = p2p_world(config, 4, link(130, 0, 0.0), seed, Rc::new(Cell::new(0)));
        // Every peer starts with the master's measured delay: 130 ms one way needs 3 turns.
        assert!(
            w.peers().all(|p| p.turn_delay() == 3),
            "{:?}",
            w.peers().map(Peer::turn_delay).collect::<Vec<_>>()
        );
        w.run_for(8_000, &mut bot);
        for p in w.peers() {
            assert_eq!(p.stats().delay_changes, 0, "peer {} changed its delay", p.id());
            assert!(p.stats().delay_ms < 150, "peer {} waited {} ms", p.id(), p.stats().delay_ms);
        }
        assert_same_history(&w);
        let replay = w.peer(0).replay().unwrap();
        assert_eq!(replay.frames[0].turn_delay, 3, "the replay records the starting delay");
        replay.verify::<ToyGame>().expect("replays exactly");
    });
}

#[test]
fn a_latency_step_changes_the_turn_delay_on_every_peer_at_the_same_turn_and_back() {
    v12_netsim::for_each_seed([0xADA9, 0xADA8, 0xADA7], |seed| {
        let config = PeerConfig { countdown_ms: 500, ..PeerConfig::default() };
        let (mut w, mut bot) = p2p_world(config, 4, link(20, 0, 0.0), seed, Rc::new(Cell::new(0)));
        w.run_for(5_000, &mut bot);
        assert!(w.peers().all(|p| p.turn_delay() == 2), "20 ms links need the least delay");

        // 20 ms → 150 ms one way: every peer moves to a longer delay within a few turns.
        let step_turn = w.peer(0).turn();
        w.set_links(link(150, 0, 0.0));
        w.run_for(10_000, &mut bot);
        let grown: Vec<i32> = w.peers().map(Peer::turn_delay).collect();
        assert!(grown.iter().all(|d| *d >= 3), "{grown:?}");
        assert!(grown.windows(2).all(|p| p[0] == p[1]), "{grown:?}");
        let r = replays(&w);
        let first_change = r[0].frames.iter().position(|f| f.turn_delay > 2).expect("the delay grew");
        let turns_to_adapt = first_change as i32 - (step_turn + 2);
        assert!(turns_to_adapt <= 10, "the delay grew {turns_to_adapt} turns after the step");
        assert_same_history(&w);
        // At 150 ms with a delay of 3 (200 ms of room) play goes on at the nominal rate.
        let before = w.peer(0).stats().turns;
        let delay_before = w.peer(0).stats().delay_ms;
        w.run_for(10_000, &mut bot);
        assert!(w.peer(0).stats().turns - before >= 95, "{} turns in 10 s", w.peer(0).stats().turns - before);
        assert!(w.peer(0).stats().delay_ms - delay_before < 1_000);

        // And back: the delay shrinks again once the links are quick.
        w.set_links(link(20, 0, 0.0));
        w.run_for(30_000, &mut bot);
        assert!(
            w.peers().all(|p| p.turn_delay() == 2),
            "{:?}",
            w.peers().map(Peer::turn_delay).collect::<Vec<_>>()
        );
        assert_same_history(&w);

        // The replay (with its delays) replays exactly and survives a file round trip.
        let replay = w.peer(0).replay().unwrap();
        let summary = replay.verify::<ToyGame>().expect("replays exactly");
        assert!(summary.commands > 100);
        let back = Replay::decode(&replay.encode()).unwrap();
        assert_eq!(&back, replay);
        assert!(back.frames.iter().any(|f| f.turn_delay >= 3) && back.frames.last().unwrap().turn_delay == 2);
    });
}

#[test]
fn loss_is_absorbed_without_asking_again() {
    v12_netsim::for_each_seed([0x1055, 0x1056, 0x1057], |seed| {
        // 2 % loss at 60 ms: the redundant copies sent every sub-turn arrive in time.
        let config = PeerConfig { countdown_ms: 500, ..PeerConfig::default() };
        let (mut w, mut bot) = p2p_world(config, 4, link(60, 10, 0.02), seed, Rc::new(Cell::new(0)));
        w.run_for(20_000, &mut bot);
        let resends: u64 = w.peers().map(|p| p.stats().resend_requests).sum();
        let delay_ms = w.peers().map(|p| p.stats().delay_ms).max().unwrap();
        assert!(delay_ms < 1_000, "{delay_ms} ms in the delay state");
        assert!(resends < 20, "{resends} resend requests");
        assert_same_history(&w);
    });
}

/// One measured run of either mode on a preset.
struct Row {
    mode: &'static str,
    preset: &'static str,
    nominal_per_s: f64,
    per_s: f64,
    delay_share: f64,
    latency: LatencyStats,
    floor_ms: f64,
    note: String,
}

const MEASURE_MS: u64 = 60_000;
const PLAYERS: usize = 8;

fn p2p_row(preset: &'static str, l: LinkConfig, adaptive: bool, seed: u64) -> Row {
    let config = PeerConfig { countdown_ms: 500, adaptive, ..PeerConfig::default() };
    let turn_ms = config.turn_ms;
    // Commands only in the measured window, after 10 s of settling (links measured, the
    // delay agreed), as in the relay rows.
    let issue_from = Rc::new(Cell::new(u64::MAX));
    let (mut w, mut bot) = p2p_world(config, PLAYERS, l, seed, issue_from.clone());
    w.run_for(10_000, &mut bot);
    issue_from.set(w.now() + 1);
    let before: Vec<(u64, u64)> = w.peers().map(|p| (p.stats().turns, p.stats().delay_ms)).collect();
    w.run_for(MEASURE_MS, &mut bot);
    let secs = MEASURE_MS as f64 / 1000.0;
    let mut latency = LatencyStats::default();
    let (mut turns, mut delay) = (0.0, 0.0);
    for (p, (t0, d0)) in w.peers().zip(&before) {
        turns += (p.stats().turns - t0) as f64;
        delay += (p.stats().delay_ms - d0) as f64;
        latency.merge(&p.stats().latency);
    }
    let n = w.len() as f64;
    // The floor is that of the delay in force at the end: data sent at a turn's end runs
    // delay - 1 turns later.
    let d = w.peer(0).turn_delay();
    assert_same_history(&w);
    Row {
        mode: if adaptive { "p2p, adaptive (after)" } else { "p2p, fixed delay 2 (before)" },
        preset,
        nominal_per_s: 1000.0 / turn_ms as f64,
        per_s: turns / n / secs,
        delay_share: delay / n / MEASURE_MS as f64,
        latency,
        floor_ms: ((d - 1) as u64 * turn_ms) as f64,
        note: format!("delay {d} turns at the end, {} changes", w.peer(0).stats().delay_changes),
    }
}

fn relay_row(preset: &'static str, l: LinkConfig, adapt_to_waits: bool, seed: u64) -> Row {
    let config = RelayConfig { adapt_to_waits, ..RelayConfig::default() };
    let (gf_ms, cmd_delay) = (u64::from(config.gf_ms), u64::from(config.command_delay));
    let mut w = RelayWorld::<ToyGame>::new(config, RelayClientConfig::default(), PLAYERS, l, seed);
    w.start();
    let go = Cell::new(false);
    let mut bot = |now: u64, i: usize, c: &mut RelayClient<ToyGame>| {
        if go.get()
            && let Some(p) = c.player()
            && let Some(cmd) = bot_command(now, i, p, seed)
        {
            c.issue(now, cmd);
        }
    };
    w.run_for(10_000, &mut bot);
    go.set(true);
    let before: Vec<(u64, u64)> = w.clients().map(|c| (c.stats().nwfs, c.stats().delay_ms)).collect();
    w.run_for(MEASURE_MS, &mut bot);
    let secs = MEASURE_MS as f64 / 1000.0;
    let mut latency = LatencyStats::default();
    let (mut nwfs, mut delay) = (0.0, 0.0);
    for (c, (n0, d0)) in w.clients().zip(&before) {
        nwfs += (c.stats().nwfs - n0) as f64;
        delay += (c.stats().delay_ms - d0) as f64;
        latency.merge(&c.stats().latency);
    }
    let n = w.clients().count() as f64;
    let frame_ms = u64::from(w.server().nwf_len()) * gf_ms;
    Row {
        mode: if adapt_to_waits {
            "relay, NWF follows waits (after)"
        } else {
            "relay, NWF from pings (before)"
        },
        preset,
        nominal_per_s: 1000.0 / frame_ms as f64,
        per_s: nwfs / n / secs,
        delay_share: delay / n / MEASURE_MS as f64,
        latency,
        floor_ms: (cmd_delay * frame_ms) as f64,
        note: format!("NWF {frame_ms} ms at the end"),
    }
}

#[test]
#[ignore = "prints the figures table (a minute of simulated play per row); run with --ignored --nocapture"]
fn figures_on_the_presets_before_and_after() {
    let presets =
        [("good", link(40, 10, 0.002)), ("average", link(100, 25, 0.02)), ("poor", link(200, 50, 0.06))];
    let mut rows = Vec::new();
    for (k, (name, l)) in presets.iter().enumerate() {
        rows.push(p2p_row(name, *l, false, 0x19_0000 + k as u64));
        rows.push(p2p_row(name, *l, true, 0x19_0000 + k as u64));
        rows.push(relay_row(name, *l, false, 0x19_1000 + k as u64));
        rows.push(relay_row(name, *l, true, 0x19_1000 + k as u64));
    }
    println!("\n{PLAYERS} players, {} s simulated per row, ~4 commands/s/player", MEASURE_MS / 1000);
    println!(
        "| preset | mode | rate / nominal | delay state | latency mean / p95 (ms) | floor (ms) | mean ÷ floor | |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- | --- |");
    for r in &rows {
        println!(
            "| {} | {} | {:.2} / {:.1} per s ({:.0} %) | {:.1} % | {:.0} / {} | {:.0} | {:.2} | {} |",
            r.preset,
            r.mode,
            r.per_s,
            r.nominal_per_s,
            r.per_s / r.nominal_per_s * 100.0,
            r.delay_share * 100.0,
            r.latency.mean(),
            r.latency.quantile(0.95),
            r.floor_ms,
            r.latency.mean() / r.floor_ms,
            r.note
        );
    }
}

/// Total time the relay clients spent waiting for NWF-dones over `ms` of play.
fn relay_waits(server: RelayConfig, client: RelayClientConfig, l: LinkConfig, ms: u64, seed: u64) -> u64 {
    let mut w = RelayWorld::<ToyGame>::new(server, client, 4, l, seed);
    w.start();
    let mut bot = |now: u64, i: usize, c: &mut RelayClient<ToyGame>| {
        if let Some(p) = c.player()
            && let Some(cmd) = bot_command(now, i, p, seed)
        {
            c.issue(now, cmd);
        }
    };
    w.run_for(ms, &mut bot);
    assert!(w.clients().all(|c| c.nwf() > 5), "the relay game ran");
    w.clients().map(|c| c.stats().delay_ms).sum()
}

#[test]
fn the_relay_game_starts_without_waiting_a_round_trip_for_empty_batches() {
    // The first NWFs (no commands can be in them yet) come with the start.
    let waited =
        relay_waits(RelayConfig::default(), RelayClientConfig::default(), link(100, 0, 0.0), 2_000, 0x5747);
    assert_eq!(waited, 0, "the clients waited {waited} ms in the first 2 s");
}
