//! Peer-to-peer lockstep with a master peer on the simulated clock: joining, turn 0,
//! agreement under loss/jitter/duplication, recovery of lost turn data, silent peers,
//! the master leaving, desync with majority and minority.

use v12_lockstep::harness::{LinkConfig, PeerWorld, peer_addr};
use v12_lockstep::toy::{TOKENS_PER_PLAYER, ToyCommand, ToyGame};
use v12_lockstep::*;

fn bot(now: u64, i: usize, p: &mut Peer<ToyGame>) {
    if p.phase() == PeerPhase::Lobby && p.id() == 1 && p.players().len() == 4 {
        p.start(now, 0xC0FFEE);
    }
    if p.phase() != PeerPhase::Playing {
        return;
    }
    let h = now.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(i as u32 * 11 + 5);
    if h.is_multiple_of(89) {
        let token = (usize::from(p.id()) - 1) * TOKENS_PER_PLAYER + (h as usize >> 9) % TOKENS_PER_PLAYER;
        p.issue(now, ToyCommand { token: token as u16, x: (h >> 21) as i16 % 80, y: (h >> 37) as i16 % 80 });
    }
}

fn config() -> PeerConfig {
    PeerConfig { countdown_ms: 1000, drop_after_ms: 2000, ..PeerConfig::default() }
}

fn assert_agree(w: &PeerWorld<ToyGame>, who: &[usize]) -> usize {
    let first = w.peer(who[0]).replay().expect("started");
    // Turn 0 was processed at GF 0, and every turn after it 3 GFs later.
    assert_eq!(first.frames[0].gf, 0, "turn 0 ran");
    for f in first.frames.windows(2) {
        assert_eq!(f[1].gf - f[0].gf, 3, "no turn or sub-turn skipped");
    }
    for &i in &who[1..] {
        let r = w.peer(i).replay().expect("started");
        let n = r.frames.len().min(first.frames.len());
        assert!(n + 3 >= r.frames.len().max(first.frames.len()), "peers drifted apart");
        assert_eq!(r.frames[..n], first.frames[..n], "peer {i} ran other commands or got another state");
    }
    first.frames.len()
}

#[test]
fn join_handshake_assigns_ids_and_everyone_knows_everyone() {
    let mut w = PeerWorld::<ToyGame>::new(config(), 4, LinkConfig::rtt(60), 1);
    w.run_for(800, &mut |_, _, _| {});
    for p in w.peers() {
        assert_eq!(p.phase(), PeerPhase::Lobby);
        assert_eq!(p.master(), 1);
        assert_eq!(p.players(), vec![1, 2, 3, 4]);
    }
    let mut ids: Vec<PlayerId> = w.peers().map(Peer::id).collect();
    ids.sort_unstable();
    assert_eq!(ids, vec![1, 2, 3, 4]);
}

#[test]
fn nojn_when_started_and_nomp_from_a_non_master() {
    let mut w = PeerWorld::<ToyGame>::new(config(), 3, LinkConfig::rtt(40), 2);
    // Long enough for the master to have measured its links (it starts at once then).
    w.run_for(1_000, &mut |_, _, _| {});
    // A late peer asks peer 2 (not the master): NOMP sends it to the master, which has started.
    let now = w.now();
    w.peer_mut(0).start(now, 5);
    w.run_for(200, &mut |_, _, _| {});
    let now = w.now();
    w.add_peer(Peer::join(config(), "late", peer_addr(1), now), LinkConfig::rtt(40));
    w.run_for(500, &mut |_, _, _| {});
    let mut refused = None;
    while let Some(e) = w.peer_mut(3).poll_event() {
        if let PeerEvent::Refused { reason } = e {
            refused = Some(reason);
        }
    }
    assert_eq!(refused, Some(JoinRefusal::Started));
    assert_eq!(w.peer(3).phase(), PeerPhase::Out);
}

#[test]
fn full_game_refuses() {
    let cfg = PeerConfig { max_players: 2, ..config() };
    let mut w = PeerWorld::<ToyGame>::new(cfg, 3, LinkConfig::rtt(40), 3);
    w.run_for(500, &mut |_, _, _| {});
    let out: Vec<PeerPhase> = w.peers().map(Peer::phase).collect();
    assert_eq!(out.iter().filter(|p| **p == PeerPhase::Out).count(), 1, "{out:?}");
}

#[test]
fn four_peers_agree_under_20_percent_loss_jitter_and_duplicates() {
    v12_netsim::for_each_seed([7, 70, 700], |seed| {
        let link = LinkConfig { latency_ms: 30, jitter_ms: 40, loss: 0.2, duplicate: 0.05 };
        // A fixed delay, so lost data is asked for again (the adaptive delay and the sub-turn
        // resends absorb most loss without asking: tests/lockstep_adapt.rs).
        let mut w = PeerWorld::<ToyGame>::new(PeerConfig { adaptive: false, ..config() }, 4, link, seed);
        w.run_for(30_000, &mut bot);
        for p in w.peers() {
            assert_eq!(p.phase(), PeerPhase::Playing, "nobody dropped");
            assert!(p.stats().turns > 100, "turns {}", p.stats().turns);
            assert!(p.stats().latency.count > 20);
        }
        let turns = assert_agree(&w, &[0, 1, 2, 3]);
        assert!(turns > 100);
        let recovered: u64 = w.peers().map(|p| p.stats().resend_requests).sum();
        assert!(recovered > 0, "lost turn data was asked for again");
        w.peer(1).replay().unwrap().verify::<ToyGame>().expect("replay verifies");
    });
}

#[test]
fn countdown_is_corrected_by_half_the_rtt() {
    let mut w = PeerWorld::<ToyGame>::new(config(), 2, LinkConfig::rtt(200), 4);
    w.run_for(1_500, &mut |_, _, _| {});
    let now = w.now();
    w.peer_mut(0).start(now, 1);
    let mut starts = [0u64; 2];
    w.run_for(2_000, &mut |now, i, p| {
        while let Some(e) = p.poll_event() {
            if e == PeerEvent::Started {
                starts[i] = now;
            }
        }
    });
    // The STRT takes 100 ms to arrive; the joiner takes 100 ms off the countdown.
    assert!(starts[0] > 0 && starts[1] > 0);
    assert!(starts[1].abs_diff(starts[0]) <= 10, "{starts:?}");
}

#[test]
fn silent_peer_is_dropped_and_the_rest_go_on() {
    let mut w =
        PeerWorld::<ToyGame>::new(config(), 4, LinkConfig { jitter_ms: 20, ..LinkConfig::rtt(60) }, 8);
    w.run_for(5_000, &mut bot);
    w.silence(2, true);
    let gone = w.peer(2).id();
    let rest: Vec<PlayerId> = (1..=4).filter(|p| *p != gone).collect();
    w.run_for(1_000, &mut bot);
    let stuck = w.peer(0).turn();
    assert!(w.peer(0).in_delay(), "the others wait for the silent peer");
    w.run_for(4_000, &mut bot);
    assert!(w.peer(0).turn() > stuck + 10, "went on after dropping the silent peer");
    let mut dropped_from = Vec::new();
    for i in [0, 1, 3] {
        assert_eq!(w.peer(i).players(), rest);
        while let Some(e) = w.peer_mut(i).poll_event() {
            if let PeerEvent::PeerDropped { id, from_turn } = e
                && id == gone
            {
                dropped_from.push(from_turn);
            }
        }
    }
    assert_eq!(dropped_from.len(), 3);
    assert!(dropped_from.windows(2).all(|w| w[0] == w[1]), "every survivor drops it at the same turn");
    assert_agree(&w, &[0, 1, 3]);
}

#[test]
fn master_leaving_passes_the_role_on() {
    let mut w = PeerWorld::<ToyGame>::new(config(), 3, LinkConfig::rtt(50), 9);
    w.run_for(500, &mut |_, _, _| {});
    let now = w.now();
    w.peer_mut(0).start(now, 3);
    w.run_for(3_000, &mut bot);
    w.silence(0, true);
    w.run_for(5_000, &mut bot);
    for i in [1, 2] {
        assert_eq!(w.peer(i).master(), 2, "the lowest remaining id is the master");
        assert_eq!(w.peer(i).players(), vec![2, 3]);
    }
    assert_agree(&w, &[1, 2]);
}

#[test]
fn desync_is_detected_at_its_turn_and_the_minority_is_dropped() {
    let mut w =
        PeerWorld::<ToyGame>::new(config(), 4, LinkConfig { jitter_ms: 20, ..LinkConfig::rtt(40) }, 10);
    w.run_for(4_000, &mut bot);
    // Change a token on peer 4 in the middle of a turn.
    while w.peer(3).gf() % 3 != 1 {
        w.step(&mut bot);
    }
    let turn = w.peer(3).turn();
    let odd = w.peer(3).id();
    w.peer_mut(3).game_mut().unwrap().tokens[0].y += 3;
    w.run_for(3_000, &mut bot);
    for i in 0..4 {
        let mut seen = None;
        while let Some(e) = w.peer_mut(i).poll_event() {
            if let PeerEvent::Desync { state_turn, dropped, me_dropped } = e {
                seen = Some((state_turn, dropped, me_dropped));
            }
        }
        assert_eq!(seen, Some((turn, vec![odd], i == 3)), "peer {i}");
    }
    assert_eq!(w.peer(3).phase(), PeerPhase::Out);
    assert_eq!(w.peer(0).players(), (1..=4).filter(|p| *p != odd).collect::<Vec<_>>());
    let t = w.peer(0).turn();
    w.run_for(2_000, &mut bot);
    assert!(w.peer(0).turn() > t + 10, "the majority plays on");
    assert_agree(&w, &[0, 1, 2]);
}
