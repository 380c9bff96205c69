//! Server-relayed lockstep on the simulated clock: agreement under loss and jitter, lag
//! handling, desync detection, pause, speed change and clean exit.

use v12_lockstep::harness::{LinkConfig, RelayWorld};
use v12_lockstep::toy::{TOKENS_PER_PLAYER, ToyCommand, ToyGame};
use v12_lockstep::*;

fn bot(seed: u64) -> impl FnMut(u64, usize, &mut RelayClient<ToyGame>) {
    move |now, i, c| {
        let Some(p) = c.player() else { return };
        // Each bot issues a command now and then, at times that depend on the seed.
        let h = (now ^ seed).wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(i as u32 * 7 + 3);
        if h % 97 < 1 {
            let token = (usize::from(p) - 1) * TOKENS_PER_PLAYER + (h as usize >> 8) % TOKENS_PER_PLAYER;
            let cmd = ToyCommand { token: token as u16, x: (h >> 20) as i16 % 90, y: (h >> 36) as i16 % 90 };
            c.issue(now, cmd);
        }
    }
}

fn lossy(loss: f64) -> LinkConfig {
    LinkConfig { latency_ms: 40, jitter_ms: 30, loss, duplicate: 0.0 }
}

fn assert_same_history(world: &RelayWorld<ToyGame>, nwf_len: u32) {
    let first = world.client(0).replay().expect("started");
    assert!(first.frames.len() > 10, "too few NWFs ran: {}", first.frames.len());
    // NWF 0 ran at the first GF, and no NWF or GF was skipped.
    assert_eq!(first.frames[0].gf, 0);
    // NWFs last at least the first length; on lossy links the server lengthens them when
    // clients wait (RelayConfig::adapt_to_waits), never by more than one GF at a time.
    for w in first.frames.windows(2) {
        let gap = w[1].gf - w[0].gf;
        assert!(gap >= nwf_len && gap <= nwf_len + 10, "GF gap between NWFs: {gap}");
    }
    for c in world.clients().skip(1) {
        let r = c.replay().expect("started");
        let n = r.frames.len().min(first.frames.len());
        assert!(n + 3 >= first.frames.len().max(r.frames.len()), "clients drifted apart");
        assert_eq!(r.frames[..n], first.frames[..n], "same commands on the same GFs with the same checksums");
    }
}

#[test]
fn four_players_agree_under_20_percent_loss_and_jitter() {
    v12_netsim::for_each_seed([11, 110, 1100], |seed| {
        let config = RelayConfig { gf_ms: 50, command_delay: 2, ..RelayConfig::default() };
        let mut w = RelayWorld::<ToyGame>::new(config, RelayClientConfig::default(), 4, lossy(0.2), seed);
        w.start();
        let nwf_len = w.server().nwf_len();
        assert_eq!(nwf_len, nwf_len_for(50, 110, 1, 20), "NWF lasts at least the slowest ping");
        w.run_for(30_000, &mut bot(1));
        assert_same_history(&w, nwf_len);
        let executed: usize = w
            .client_mut(0)
            .replay()
            .unwrap()
            .frames
            .iter()
            .flat_map(|f| &f.batches)
            .map(|(_, b)| b[0] as usize)
            .sum();
        assert!(executed > 100, "bots' commands ran: {executed}");
        for c in w.clients() {
            assert!(c.stats().latency.count > 20);
            assert!(!c.is_out());
        }
        // The replay of any client verifies.
        let summary = w.client(2).replay().unwrap().verify::<ToyGame>().expect("replay verifies");
        assert!(summary.commands > 100);
    });
}

#[test]
fn lagging_player_makes_others_wait_then_is_kicked() {
    let config = RelayConfig { lag_warn_ms: 500, lag_kick_ms: 2_000, ..RelayConfig::default() };
    let mut w = RelayWorld::<ToyGame>::new(config, RelayClientConfig::default(), 3, LinkConfig::rtt(60), 5);
    w.start();
    let mut b = bot(2);
    w.run_for(3_000, &mut b);
    let before = w.client(0).gf();
    w.freeze(2, true);
    // Wait less than the kick timeout: the others stop at the next NWFs.
    w.run_for(1_500, &mut b);
    let waiting = w.client(0).gf();
    assert!(w.client(0).in_delay(), "player 1 waits for player 3");
    assert!(waiting - before <= 3 * w.server().nwf_len() + 1, "ran {} GFs while waiting", waiting - before);
    let mut lagging = false;
    let mut kicked = false;
    while let Some(e) = w.server_mut().poll_event() {
        lagging |= matches!(e, RelayServerEvent::Lagging { ref players, .. } if players == &[3]);
    }
    assert!(lagging, "the server warned about player 3");
    w.run_for(2_000, &mut b);
    while let Some(e) = w.server_mut().poll_event() {
        kicked |= matches!(e, RelayServerEvent::PlayerLeft { player: 3, reason: LeaveReason::Lagging, .. });
    }
    assert!(kicked, "player 3 kicked after the timeout");
    assert!(!w.client(0).in_delay());
    let resumed = w.client(0).gf();
    w.run_for(2_000, &mut b);
    assert!(w.client(0).gf() > resumed + 30, "the others go on");
    assert_eq!(w.server().active_humans(), vec![1, 2]);
    let mut saw_left = false;
    while let Some(e) = w.client_mut(1).poll_event() {
        saw_left |= e == RelayClientEvent::PlayerLeft { player: 3, reason: LeaveReason::Lagging };
    }
    assert!(saw_left);
    assert_eq!(w.client(0).replay().unwrap().frames, w.client(1).replay().unwrap().frames);
}

fn desync_at(action: AsyncAction, vote: Option<bool>) -> (RelayWorld<ToyGame>, u32) {
    let config = RelayConfig { async_action: action, ..RelayConfig::default() };
    let cc = RelayClientConfig { auto_vote: vote, ..RelayClientConfig::default() };
    let mut w = RelayWorld::<ToyGame>::new(config, cc, 4, lossy(0.05), 21);
    w.start();
    let mut b = bot(3);
    w.run_for(2_000, &mut b);
    // Step until client 4 is mid-NWF, then move one of its tokens behind lockstep's back.
    let nwf_len = w.server().nwf_len();
    while w.client(3).gf().is_multiple_of(nwf_len) {
        w.step(&mut b);
    }
    let nwf_of_change = w.client(3).nwf(); // the next boundary is the first state that differs
    w.client_mut(3).game_mut().unwrap().tokens[0].x += 5;
    w.run_for(3_000, &mut b);
    (w, nwf_of_change)
}

#[test]
fn desync_is_detected_in_its_nwf_logged_and_the_minority_dropped() {
    let (mut w, nwf) = desync_at(AsyncAction::Drop, None);
    let mut detected = None;
    let mut dropped = false;
    while let Some(e) = w.server_mut().poll_event() {
        match e {
            RelayServerEvent::AsyncDetected { nwf, diverging } => detected = Some((nwf, diverging)),
            RelayServerEvent::PlayerLeft { player: 4, reason: LeaveReason::Desync, .. } => dropped = true,
            _ => {}
        }
    }
    assert_eq!(detected, Some((nwf, vec![4])), "detected at the first NWF after the change");
    assert!(dropped);
    let log = &w.server().async_logs()[0];
    assert_eq!(log.nwf, nwf);
    assert_eq!(log.dumps.len(), 4, "both states logged (every player's)");
    let theirs = ToyGame::load(&log.dumps[&4]).unwrap();
    let ours = ToyGame::load(&log.dumps[&1]).unwrap();
    assert_eq!(theirs.tokens[0].x, ours.tokens[0].x + 5);
    assert!(w.client(3).is_out());
    let gf = w.client(0).gf();
    w.run_for(2_000, &mut bot(3));
    assert!(w.client(0).gf() > gf + 20, "the majority plays on");
    // Same history; one may be an NWF ahead at the moment the test looks.
    let (a, b) = (&w.client(0).replay().unwrap().frames, &w.client(2).replay().unwrap().frames);
    let n = a.len().min(b.len());
    assert!(a.len().abs_diff(b.len()) <= 1 && n > 20);
    assert_eq!(a[..n], b[..n]);
}

#[test]
fn desync_vote_no_ends_the_game() {
    let (mut w, _) = desync_at(AsyncAction::Vote, Some(false));
    let mut over = false;
    while let Some(e) = w.server_mut().poll_event() {
        over |= e == RelayServerEvent::GameOver;
    }
    assert!(over);
    assert!(w.clients().all(|c| c.is_out()));
}

#[test]
fn desync_vote_yes_drops() {
    let (w, _) = desync_at(AsyncAction::Vote, Some(true));
    assert_eq!(w.server().active_humans(), vec![1, 2, 3]);
}

#[test]
fn pause_speed_change_and_clean_exit() {
    let mut w = RelayWorld::<ToyGame>::new(
        RelayConfig::default(),
        RelayClientConfig::default(),
        3,
        LinkConfig::rtt(80),
        9,
    );
    w.start();
    let mut b = bot(4);
    w.run_for(1_000, &mut b);
    w.server_mut().pause();
    w.run_for(500, &mut b);
    let paused_at = w.client(0).gf();
    assert!(w.clients().all(|c| c.is_stopped()));
    w.run_for(2_000, &mut b);
    assert_eq!(w.client(0).gf(), paused_at, "nothing runs while paused");
    let now = w.now();
    w.server_mut().resume(now);
    w.run_for(1_000, &mut b);
    assert!(w.client(0).gf() > paused_at + 10);
    // Faster GFs; the NWF length is chosen again for the pings.
    for p in 1..=3 {
        w.server_mut().set_rtt(p, 200);
    }
    w.server_mut().set_speed(25);
    w.run_for(2_000, &mut b);
    assert_eq!(w.server().gf_ms(), 25);
    assert_eq!(w.server().nwf_len(), 8);
    // Player 2 leaves cleanly; the others go on without it.
    w.client_mut(1).leave();
    let gf = w.client(0).gf();
    w.run_for(2_000, &mut b);
    assert!(w.client(0).gf() > gf + 40);
    assert_eq!(w.server().active_humans(), vec![1, 3]);
    let (a, c) = (w.client(0).replay().unwrap(), w.client(2).replay().unwrap());
    let n = a.frames.len().min(c.frames.len());
    assert_eq!(a.frames[..n], c.frames[..n]);
    a.verify::<ToyGame>().expect("replay across pause and speed change verifies");
}
