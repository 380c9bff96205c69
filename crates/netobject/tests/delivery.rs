//! Event guarantees and string tags over a seeded lossy, bursty, duplicating, jittery link.

mod common;

use bytes::Bytes;
use common::*;
use proptest::prelude::*;
use std::collections::{HashMap, HashSet};
use v12_netobject::*;

fn patient(mut cfg: InterfaceConfig) -> InterfaceConfig {
    cfg.connect_retry_ms = 300;
    cfg.connect_tries = 60;
    cfg.protocol.timeout_ms = 60_000;
    // Longer than the clients' 18 s of retries, so the server keeps an accepted connection
    // for as long as its client may still be asking.
    cfg.negotiation_timeout_ms = 60_000;
    cfg
}

const TAGS: [&str; 5] =
    ["Got Milk?", "SuperDood", "the dude of super", "Role Model", "slow at writing documentation"];

fn tag_text(n: u32) -> &'static str {
    TAGS[n as usize % TAGS.len()]
}

/// Connects every client, each trying again (as a player would) when its attempt gives up.
///
/// "Every attempt connects" is not a property of a lossy link: a loss burst is a run of
/// datagrams (Gilbert–Elliott, stepped per datagram, geometric in length with no upper bound),
/// and a link that carries nothing but handshake retries sends few of them, so a burst of mean
/// length 7 on it can last longer than the whole retry window (the case in
/// `delivery.proptest-regressions`: the server's first 30 answers were all lost, 18 s of
/// outage). What must hold, and is checked, is that an attempt gives up only when nothing it
/// was waiting for reached it during its last step: "no response from server" only if no
/// challenge answer with its nonce arrived in the last `tries × retry` ms, "server did not
/// accept" only if no accept or refusal did; and that every client is in by `limit_ms`.
fn connect_everyone(world: &mut World, limit_ms: u64) {
    world.connect_all();
    let clients = world.len() - 1;
    let cfg = world.node(1).config().clone();
    let window = cfg.connect_retry_ms * u64::from(cfg.connect_tries);
    let mut failures = vec![0usize; clients + 1];
    let limit = world.now() + limit_ms;
    while world.now() < limit {
        // The server counts live connections: one it accepted for an attempt that gave up
        // (every accept lost) is closed when that client tries again from the same address.
        if (1..=clients).all(|i| world.client_conn(i).is_some())
            && world.node(0).connection_count() == clients
        {
            return;
        }
        world.step(limit);
        for (i, handled) in failures.iter_mut().enumerate().skip(1) {
            let seen = world.seen(i);
            let Some(reason) = seen.failed.get(*handled).cloned() else { continue };
            *handled += 1;
            let now = world.now();
            let nonce = seen.sent_nonce.expect("a client that failed had sent a handshake");
            let heard = |want: fn(&Handshake) -> bool| {
                seen.handshakes.iter().any(|(t, n, h)| *n == nonce && *t + window >= now && want(h))
            };
            match reason.as_str() {
                "no response from server" => assert!(
                    !heard(|h| matches!(h, Handshake::ChallengeResponse { .. })),
                    "client {i} gave up at {now} ms although a challenge answer reached it"
                ),
                "server did not accept the connection" => assert!(
                    !heard(|h| matches!(
                        h,
                        Handshake::ConnectAccept { .. } | Handshake::ConnectReject { .. }
                    )),
                    "client {i} gave up at {now} ms although the server's answer reached it"
                ),
                other => panic!("client {i}: connect failed: {other}"),
            }
            world.node_mut(i).connect(now, addr(0), Bytes::from(format!("client{i}")));
        }
    }
    panic!(
        "all clients connect by {} ms (failed: {:?})",
        world.now(),
        world.seen_all().map(|s| &s.failed).collect::<Vec<_>>()
    );
}

/// Posts `per_kind` events of each guarantee from every client to the server and from the
/// server to every client (ordered ones with tagged strings), spread over simulated time,
/// runs the world, and checks every guarantee. Returns the world for further checks.
fn exercise(world: &mut World, per_kind: u32, spread_ms: u64, limit_ms: u64) {
    let clients = world.len() - 1;
    connect_everyone(world, 300_000);
    let server_conns = world.node(0).connection_ids();
    let start = world.now();
    for n in 0..per_kind {
        let t = start + spread_ms * u64::from(n) / u64::from(per_kind.max(1));
        world.run_until(t);
        for i in 1..=clients {
            let c = world.client_conn(i).unwrap();
            let tag = world.node_mut(i).strings().add_tagged_string(tag_text(n));
            world.node_mut(i).post_event(c, Ordered::new(i as u32, n, Some(tag))).unwrap();
            world.node_mut(i).post_event(c, Reliable::new(i as u32, n, None)).unwrap();
            world.node_mut(i).post_event(c, Unreliable::new(i as u32, n, None)).unwrap();
        }
        for &sc in &server_conns {
            let tag = world.node_mut(0).strings().add_tagged_string(tag_text(n + 1));
            world.node_mut(0).post_event(sc, Ordered::new(0, n, Some(tag))).unwrap();
            world.node_mut(0).post_event(sc, Reliable::new(0, n, None)).unwrap();
        }
    }
    let expect = per_kind as usize;
    let done = world.run_until_cond(world.now() + limit_ms, |w| {
        let s = &w.seen(0).events;
        let server_ok = s.iter().filter(|e| e.1 == 2).count() == expect * clients
            && s.iter().filter(|e| e.1 == 1).count() == expect * clients;
        server_ok && (1..=clients).all(|i| w.seen(i).events.iter().filter(|e| e.1 != 0).count() == 2 * expect)
    });
    assert!(
        done,
        "all guaranteed events delivered by t={} (link dropped {} of {})",
        world.now(),
        world.link_stats().dropped(),
        world.link_stats().sent
    );
    // Let duplicates or stragglers show up if there are any.
    world.run_until(world.now() + 3000);
    check(world, per_kind);
}

fn check(world: &World, per_kind: u32) {
    for (node, seen) in world.seen_all().enumerate() {
        let mut ordered: HashMap<(ConnectionId, u32), Vec<u32>> = HashMap::new();
        let mut reliable: HashMap<(ConnectionId, u32), Vec<u32>> = HashMap::new();
        let mut unreliable: HashSet<(ConnectionId, u32, u32)> = HashSet::new();
        for (conn, kind, sender, n, text) in &seen.events {
            match kind {
                2 => {
                    let want = if *sender == 0 { tag_text(n + 1) } else { tag_text(*n) };
                    assert_eq!(
                        text.as_deref(),
                        Some(want),
                        "node {node}: tag of ordered event {n} resolves to its text"
                    );
                    ordered.entry((*conn, *sender)).or_default().push(*n);
                }
                1 => reliable.entry((*conn, *sender)).or_default().push(*n),
                _ => assert!(
                    unreliable.insert((*conn, *sender, *n)),
                    "node {node}: unguaranteed event {n} processed twice"
                ),
            }
        }
        for (k, v) in &ordered {
            let want: Vec<u32> = (0..per_kind).collect();
            assert_eq!(v, &want, "node {node} from {k:?}: ordered events exactly once, in order");
        }
        for (k, v) in &reliable {
            let mut s = v.clone();
            s.sort_unstable();
            let want: Vec<u32> = (0..per_kind).collect();
            assert_eq!(s, want, "node {node} from {k:?}: guaranteed events exactly once");
        }
    }
}

#[test]
fn clean_link_delivers_everything_in_order() {
    let mut w = World::new(3, InterfaceConfig::default(), InterfaceConfig::default(), LinkParams::CLEAN, 1);
    exercise(&mut w, 200, 2000, 30_000);
    // Unguaranteed events on a clean link all arrive too.
    assert_eq!(w.seen(0).events.iter().filter(|e| e.1 == 0).count(), 600);
    let c = w.client_conn(1).unwrap();
    let stats = w.node(1).connection(c).unwrap().stats();
    assert_eq!(stats.send_period_ms, 32);
    let sc = w.seen(0).connected[0];
    assert_eq!(w.node(0).connection(sc).unwrap().stats().send_period_ms, 100);
}

#[test]
fn thirty_percent_loss_with_jitter_and_duplicates() {
    let link = LinkParams {
        latency_ms: 40,
        jitter_ms: 60,
        loss: 0.3,
        burst_chance: 0.02,
        burst_len: 5,
        duplicate: 0.1,
    };
    let mut w =
        World::new(2, patient(InterfaceConfig::default()), patient(InterfaceConfig::default()), link, 7);
    exercise(&mut w, 300, 3000, 300_000);
    let c = w.client_conn(1).unwrap();
    let st = w.node(1).connection(c).unwrap().stats();
    assert!(st.events.resent > 0, "losses caused resends: {st:?}");
    assert!(st.data_dropped > 0);
}

#[test]
fn more_than_126_ordered_events_queue_behind_the_window() {
    let mut w = World::new(
        1,
        InterfaceConfig::default(),
        InterfaceConfig::default(),
        LinkParams { latency_ms: 150, ..LinkParams::CLEAN },
        3,
    );
    // All 1000 posted at once: at most 126 may be in flight, the rest wait.
    exercise(&mut w, 1000, 0, 120_000);
}

/// The case proptest found on a loaded machine (kept in `delivery.proptest-regressions` too):
/// the server's link to the client enters a loss burst at its first datagram and stays in it
/// for more than 60 (every answer to two whole attempts, 36 s), so those attempts hear nothing
/// and give up; a later one gets in.
#[test]
fn a_burst_longer_than_the_retry_window_costs_attempts_not_the_connection() {
    let link = LinkParams {
        latency_ms: 1,
        jitter_ms: 0,
        loss: 0.418_223_424_612_132_7,
        burst_chance: 0.028_987_945_659_599,
        burst_len: 7,
        duplicate: 0.0,
    };
    let mut w = World::new(
        1,
        patient(InterfaceConfig::default()),
        patient(InterfaceConfig::default()),
        link,
        3_906_133_728_381_937_477,
    );
    exercise(&mut w, 1, 1500, 600_000);
    let failed = &w.seen(1).failed;
    assert!(!failed.is_empty(), "the burst outlasts the first attempt");
    assert!(failed.iter().all(|r| r == "no response from server"), "{failed:?}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]
    #[test]
    fn guarantees_hold_under_random_link_schedules(
        seed in any::<u64>(),
        loss in 0.0f64..0.5,
        burst_chance in 0.0f64..0.05,
        burst_len in 1u32..8,
        duplicate in 0.0f64..0.2,
        latency_ms in 1u64..150,
        jitter_ms in 0u64..120,
        clients in 1usize..4,
        per_kind in 1u32..120,
    ) {
        let link = LinkParams { latency_ms, jitter_ms, loss, burst_chance, burst_len, duplicate };
        let mut w = World::new(clients, patient(InterfaceConfig::default()), patient(InterfaceConfig::default()), link, seed);
        exercise(&mut w, per_kind, 1500, 600_000);
    }
}
