//! Connection negotiation: stateless challenges, token checks, version and class checks,
//! limits, timeouts and disconnect reasons.

mod common;

use bytes::Bytes;
use common::*;
use std::net::SocketAddr;
use std::sync::Arc;
use v12_bitstream::{BitReader, BitWriter};
use v12_netobject::*;

fn server() -> NetInterface {
    NetInterface::new(
        InterfaceConfig { accept_connections: true, ..InterfaceConfig::default() },
        registry(),
        entropy(99),
    )
}

fn drain(s: &mut NetInterface, now: u64) -> Vec<(SocketAddr, Handshake)> {
    let mut out = Vec::new();
    while let Some((to, b)) = s.poll_transmit(now, &v12_netobject::ghost::NoObjects) {
        if let Ok(h) = Handshake::decode(&b) {
            out.push((to, h));
        }
    }
    out
}

fn challenge(s: &mut NetInterface, now: u64, from: SocketAddr, nonce: u64) -> (u32, u64) {
    s.handle_datagram(
        now,
        from,
        &Handshake::ChallengeRequest { client_nonce: nonce }.encode(),
        &mut v12_netobject::ghost::GhostArena::new(),
    );
    match drain(s, now).pop() {
        Some((to, Handshake::ChallengeResponse { client_nonce, epoch, token })) => {
            assert_eq!((to, client_nonce), (from, nonce));
            (epoch, token)
        }
        other => panic!("expected a challenge response, got {other:?}"),
    }
}

fn request(s: &NetInterface, nonce: u64, epoch: u32, token: u64) -> Bytes {
    Handshake::ConnectRequest {
        client_nonce: nonce,
        epoch,
        token,
        protocol_version: s.config().protocol_version,
        class_digest: s.registry().digest(),
        ghost_digest: s.ghost_classes().digest(),
        connect_data: Bytes::from_static(b"hello"),
        public_key: None,
        connect_token: Bytes::new(),
    }
    .encode()
}

fn reject_reason(out: &[(SocketAddr, Handshake)]) -> Option<&str> {
    out.iter().find_map(|(_, h)| match h {
        Handshake::ConnectReject { reason, .. } => Some(reason.as_str()),
        _ => None,
    })
}

#[test]
fn spoofed_challenge_flood_allocates_nothing() {
    let mut s = server();
    let mut responses = 0;
    for i in 0..100_000u64 {
        let from = SocketAddr::from((
            [172, 16, (i % 10_000 / 256) as u8, (i % 256) as u8],
            1000 + (i % 10_000) as u16,
        ));
        s.handle_datagram(
            i / 10,
            from,
            &Handshake::ChallengeRequest { client_nonce: i.wrapping_mul(0x9E37) }.encode(),
            &mut v12_netobject::ghost::GhostArena::new(),
        );
        while let Some((to, b)) = s.poll_transmit(i / 10, &v12_netobject::ghost::NoObjects) {
            assert_eq!(to, from);
            assert!(b.len() <= CHALLENGE_REQUEST_BYTES, "no amplification");
            responses += 1;
        }
        if i % 10_000 == 0 {
            assert_eq!((s.connection_count(), s.pending_count(), s.used_token_count()), (0, 0, 0));
        }
    }
    assert_eq!(responses, 100_000);
    assert_eq!(s.stats().challenges_answered, 100_000);
    assert_eq!((s.connection_count(), s.pending_count(), s.used_token_count()), (0, 0, 0));
    assert_eq!(s.poll_timeout(10_000), None, "no timers: no per-client state");
    // Forged connect requests from the same flood: all refused, still nothing allocated.
    for i in 0..10_000u64 {
        let from = SocketAddr::from(([172, 16, (i / 256) as u8, (i % 256) as u8], 1000 + i as u16));
        s.handle_datagram(
            10_000,
            from,
            &request(&s, i, 0, i.wrapping_mul(31)),
            &mut v12_netobject::ghost::GhostArena::new(),
        );
        assert_eq!(reject_reason(&drain(&mut s, 10_000)), Some("invalid challenge token"));
    }
    assert_eq!((s.connection_count(), s.pending_count(), s.used_token_count()), (0, 0, 0));
    // Short (unpadded) challenge requests get no answer at all.
    let short = &Handshake::ChallengeRequest { client_nonce: 1 }.encode()[..12];
    s.handle_datagram(10_000, addr(1), short, &mut v12_netobject::ghost::GhostArena::new());
    assert!(s.poll_transmit(10_000, &v12_netobject::ghost::NoObjects).is_none());
}

#[test]
fn forged_stale_and_replayed_tokens_are_rejected() {
    let mut s = server();
    let a = addr(1);
    let (epoch, token) = challenge(&mut s, 1000, a, 42);

    s.handle_datagram(
        1000,
        a,
        &request(&s, 42, epoch, token ^ 0x10),
        &mut v12_netobject::ghost::GhostArena::new(),
    );
    assert_eq!(reject_reason(&drain(&mut s, 1000)), Some("invalid challenge token"));
    // A token is bound to the address that asked for it and to its nonce.
    s.handle_datagram(
        1000,
        addr(2),
        &request(&s, 42, epoch, token),
        &mut v12_netobject::ghost::GhostArena::new(),
    );
    assert_eq!(reject_reason(&drain(&mut s, 1000)), Some("invalid challenge token"));
    s.handle_datagram(1000, a, &request(&s, 43, epoch, token), &mut v12_netobject::ghost::GhostArena::new());
    assert_eq!(reject_reason(&drain(&mut s, 1000)), Some("invalid challenge token"));
    // Stale: two epochs later.
    let later = 1000 + 2 * s.config().token_epoch_ms;
    s.handle_datagram(later, a, &request(&s, 42, epoch, token), &mut v12_netobject::ghost::GhostArena::new());
    assert_eq!(reject_reason(&drain(&mut s, later)), Some("challenge token expired; try again"));
    assert_eq!(s.connection_count(), 0);

    // Valid: accepted once; a retry of the same request gets the accept again, no new connection.
    s.handle_datagram(2000, a, &request(&s, 42, epoch, token), &mut v12_netobject::ghost::GhostArena::new());
    let out = drain(&mut s, 2000);
    assert!(out.iter().any(|(_, h)| matches!(h, Handshake::ConnectAccept { client_nonce: 42, .. })));
    assert_eq!(s.connection_count(), 1);
    s.handle_datagram(2100, a, &request(&s, 42, epoch, token), &mut v12_netobject::ghost::GhostArena::new());
    assert!(drain(&mut s, 2100).iter().any(|(_, h)| matches!(h, Handshake::ConnectAccept { .. })));
    assert_eq!(s.connection_count(), 1);
    let id = s.connection_ids()[0];
    assert_eq!(&s.connection(id).unwrap().connect_data()[..], b"hello");

    // Replayed after the connection ended: refused.
    s.disconnect(id, "kicked");
    drain(&mut s, 2200);
    s.handle_datagram(2200, a, &request(&s, 42, epoch, token), &mut v12_netobject::ghost::GhostArena::new());
    assert_eq!(reject_reason(&drain(&mut s, 2200)), Some("challenge token already used"));
    assert_eq!(s.connection_count(), 0);
    // The replay memory expires with the token.
    s.handle_timeout(1000 + 3 * s.config().token_epoch_ms);
    assert_eq!(s.used_token_count(), 0);
}

#[test]
fn version_mismatch_is_rejected_with_a_reason() {
    let client_cfg = InterfaceConfig { protocol_version: 2, ..InterfaceConfig::default() };
    let mut w = World::new(1, InterfaceConfig::default(), client_cfg, LinkParams::CLEAN, 5);
    w.connect_all();
    w.run_until(3000);
    assert_eq!(w.seen(1).failed, vec!["protocol version mismatch: server 1, client 2".to_string()]);
    assert_eq!(w.node(0).connection_count(), 0);
    assert!(w.seen(1).connected.is_empty());
}

#[derive(Debug)]
struct Extra;
impl NetEvent for Extra {
    fn pack(&self, _: &mut BitWriter, _: &mut PackContext<'_>) {}
}
impl NetEventClass for Extra {
    const NAME: &'static str = "Extra";
    fn unpack(_: &mut BitReader<'_>, _: &mut UnpackContext<'_>) -> v12_netobject::Result<Self> {
        Ok(Self)
    }
}

#[test]
fn class_mismatch_is_rejected_with_a_reason() {
    let other = Arc::new(
        NetClassRegistryBuilder::new()
            .register::<Unreliable>()
            .register::<Reliable>()
            .register::<Ordered>()
            .register::<ServerOnly>()
            .register::<Poison>()
            .register::<Extra>()
            .build()
            .unwrap(),
    );
    let cfg = InterfaceConfig::default();
    let mut w = World::with_registries(1, cfg.clone(), cfg, LinkParams::CLEAN, 6, registry(), other);
    w.connect_all();
    w.run_until(3000);
    assert_eq!(w.seen(1).failed, vec!["network class mismatch: client and server builds differ".to_string()]);
    assert_eq!(w.node(0).connection_count(), 0);
}

#[test]
fn server_full_and_timed_out_connection_frees_its_slot() {
    let server_cfg = InterfaceConfig { max_connections: 2, ..InterfaceConfig::default() };
    let mut w = World::new(3, server_cfg, InterfaceConfig::default(), LinkParams::CLEAN, 8);
    for i in 1..=2 {
        w.node_mut(i).connect(0, addr(0), Bytes::new());
    }
    w.run_until(1000);
    assert_eq!(w.node(0).connection_count(), 2);
    let now = w.now();
    w.node_mut(3).connect(now, addr(0), Bytes::new());
    w.run_until(2000);
    assert_eq!(w.seen(3).failed, vec!["server full".to_string()]);

    // Client 1 vanishes; the server times it out and frees the slot.
    w.mute(1, true);
    let t0 = w.now();
    assert!(w.run_until_cond(t0 + 20_000, |w| !w.seen(0).disconnected.is_empty()));
    assert_eq!(w.seen(0).disconnected[0].1, "timed out");
    assert!(w.now() - t0 >= 4000, "timeout after ~5 s of silence, was {}", w.now() - t0);
    assert_eq!(w.node(0).connection_count(), 1);
    let now = w.now();
    w.node_mut(3).connect(now, addr(0), Bytes::new());
    let t1 = w.now();
    w.run_until(t1 + 2000);
    assert_eq!(w.seen(3).connected.len(), 1, "the freed slot is reused");
    assert_eq!(w.node(0).connection_count(), 2);
}

/// The server's accept is lost again and again: the client's retried requests keep the
/// server's half-open connection alive, and the accept sent again gets through once the
/// link heals (before, the server timed the connection out while the client was retrying,
/// then refused its next retry as a reused token).
#[test]
fn a_client_retrying_for_its_lost_accept_is_not_timed_out() {
    let mut w = World::new(1, InterfaceConfig::default(), InterfaceConfig::default(), LinkParams::CLEAN, 12);
    w.connect_all();
    // The challenge round trip is done by 40 ms; the accept leaves the server at 60 ms.
    w.run_until(50);
    w.cut(0, 1, true);
    w.run_until(6_000);
    assert!(w.seen(0).disconnected.is_empty(), "{:?}", w.seen(0).disconnected);
    assert!(w.seen(1).connected.is_empty() && w.seen(1).failed.is_empty());
    w.cut(0, 1, false);
    assert!(w.run_until_cond(9_000, |w| w.client_conn(1).is_some()), "{:?}", w.seen(1).failed);
    assert_eq!(w.node(0).connection_count(), 1);
    assert!(w.seen(0).disconnected.is_empty());
}

#[test]
fn no_server_means_connect_failed_after_retries() {
    let server_cfg = InterfaceConfig { accept_connections: false, ..InterfaceConfig::default() };
    let mut w = World::new(1, server_cfg, InterfaceConfig::default(), LinkParams::CLEAN, 9);
    // World::new forces accept on; turn it off again.
    w.node_mut(0).set_accept_connections(false);
    w.connect_all();
    assert!(w.run_until_cond(60_000, |w| !w.seen(1).failed.is_empty()));
    assert_eq!(w.seen(1).failed, vec!["no response from server".to_string()]);
    let cfg = InterfaceConfig::default();
    let expected = cfg.connect_retry_ms * u64::from(cfg.connect_tries);
    assert!(w.now() >= expected && w.now() < expected + 100, "gave up after {} ms", w.now());
    assert_eq!(w.node(1).pending_count(), 0);
}

#[test]
fn handshake_survives_loss_by_retrying() {
    let cfg = InterfaceConfig { connect_retry_ms: 200, connect_tries: 40, ..InterfaceConfig::default() };
    let mut w = World::new(4, cfg.clone(), cfg, LinkParams::lossy(0.4), 10);
    w.connect_all();
    assert!(w.run_until_cond(60_000, |w| (1..=4).all(|i| w.client_conn(i).is_some())));
    assert!(w.run_until_cond(60_000, |w| w.node(0).connection_count() == 4));
}

#[test]
fn connect_filter_rejects_with_application_reason() {
    let mut w = World::new(1, InterfaceConfig::default(), InterfaceConfig::default(), LinkParams::CLEAN, 11);
    w.node_mut(0).set_connect_filter(Box::new(|_, data| {
        if data == b"client1" { Err("wrong password".into()) } else { Ok(()) }
    }));
    w.connect_all();
    w.run_until(2000);
    assert_eq!(w.seen(1).failed, vec!["wrong password".to_string()]);
}

#[test]
fn disconnect_reason_travels_both_ways() {
    let mut w = World::new(2, InterfaceConfig::default(), InterfaceConfig::default(), LinkParams::CLEAN, 12);
    w.connect_all();
    w.run_until(1000);
    let c1 = w.client_conn(1).unwrap();
    w.node_mut(1).disconnect(c1, "gone fishing");
    w.run_until(2000);
    assert!(w.seen(0).disconnected.iter().any(|(_, r, by_peer)| r == "gone fishing" && *by_peer));
    assert_eq!(w.seen(1).disconnected, vec![(c1, "gone fishing".to_string(), false)]);

    let sc = w.node(0).connection_ids()[0];
    w.node_mut(0).disconnect(sc, "mission over");
    w.run_until(3000);
    let c2 = w.client_conn(2).unwrap();
    assert_eq!(w.seen(2).disconnected, vec![(c2, "mission over".to_string(), true)]);
    assert_eq!(w.node(0).connection_count(), 0);
    assert_eq!(w.node(2).connection_count(), 0);
}

#[test]
fn max_pending_limits_connections_still_negotiating() {
    let cfg = InterfaceConfig { accept_connections: true, max_pending: 1, ..InterfaceConfig::default() };
    let mut s = NetInterface::new(cfg, registry(), entropy(5));
    let (e1, t1) = challenge(&mut s, 100, addr(1), 1);
    let (e2, t2) = challenge(&mut s, 100, addr(2), 2);
    s.handle_datagram(100, addr(1), &request(&s, 1, e1, t1), &mut v12_netobject::ghost::GhostArena::new());
    assert!(drain(&mut s, 100).iter().any(|(_, h)| matches!(h, Handshake::ConnectAccept { .. })));
    // Client 1 has not spoken on its connection yet: it still counts as negotiating.
    s.handle_datagram(100, addr(2), &request(&s, 2, e2, t2), &mut v12_netobject::ghost::GhostArena::new());
    assert_eq!(reject_reason(&drain(&mut s, 100)), Some("server busy; try again"));
    assert_eq!(s.connection_count(), 1);
    // A negotiating connection that never speaks times out and frees its place.
    let mut t = 100;
    while s.connection_count() > 0 && t < 20_000 {
        t = s.poll_timeout(t).unwrap_or(t + 100).max(t + 1);
        s.handle_timeout(t);
        drain(&mut s, t);
    }
    assert_eq!(s.connection_count(), 0);
    assert!(matches!(s.poll_event(), Some(InterfaceEvent::Connected { .. })));
    assert!(
        matches!(s.poll_event(), Some(InterfaceEvent::Disconnected { reason, .. }) if reason == "timed out")
    );
}

/// One host cannot hold every negotiation slot (issue 17): past `max_pending_per_ip`
/// connections still negotiating, its requests get "server busy", and a player from
/// another address still gets in.
#[test]
fn one_address_cannot_hold_every_negotiation_slot() {
    let cfg = InterfaceConfig {
        accept_connections: true,
        max_pending: 16,
        max_pending_per_ip: 4,
        ..InterfaceConfig::default()
    };
    let mut s = NetInterface::new(cfg, registry(), entropy(6));
    let (mut accepted, mut busy) = (0, 0);
    for i in 0..20u16 {
        let a = SocketAddr::from(([10, 9, 9, 9], 5000 + i));
        let nonce = u64::from(i) + 1;
        let (e, t) = challenge(&mut s, 100, a, nonce);
        s.handle_datagram(100, a, &request(&s, nonce, e, t), &mut v12_netobject::ghost::GhostArena::new());
        for (_, h) in drain(&mut s, 100) {
            match h {
                Handshake::ConnectAccept { .. } => accepted += 1,
                Handshake::ConnectReject { reason, .. } => {
                    assert_eq!(reason, "server busy; try again");
                    busy += 1;
                }
                _ => {}
            }
        }
    }
    assert_eq!((accepted, busy), (4, 16));
    let (e, t) = challenge(&mut s, 100, addr(3), 99);
    s.handle_datagram(100, addr(3), &request(&s, 99, e, t), &mut v12_netobject::ghost::GhostArena::new());
    assert!(drain(&mut s, 100).iter().any(|(_, h)| matches!(h, Handshake::ConnectAccept { .. })));
}
