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

/// A connect request asking for encryption with a client public key.
fn keyed_request(s: &NetInterface, nonce: u64, epoch: u32, token: u64, key: u8) -> Bytes {
    let mut k = [key; 32];
    k[0] = 9;
    let Handshake::ConnectRequest {
        client_nonce,
        protocol_version,
        class_digest,
        ghost_digest,
        connect_data,
        connect_token,
        ..
    } = Handshake::decode(&request(s, nonce, epoch, token)).unwrap()
    else {
        unreachable!()
    };
    Handshake::ConnectRequest {
        client_nonce,
        epoch,
        token,
        protocol_version,
        class_digest,
        ghost_digest,
        connect_data,
        public_key: Some(k),
        connect_token,
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
fn a_token_that_expires_in_a_long_loss_burst_is_renewed_not_given_up() {
    // Tokens live one to two 1 s epochs; the client's connect requests are lost for 5 s after
    // its challenge was answered (a long burst), so the first one to arrive is stale. The
    // server is plainly there: the client asks for a fresh challenge instead of failing.
    let server = InterfaceConfig { token_epoch_ms: 1000, ..InterfaceConfig::default() };
    let client = InterfaceConfig { connect_retry_ms: 300, connect_tries: 60, ..InterfaceConfig::default() };
    let mut w = World::new(1, server, client, LinkParams::CLEAN, 12);
    w.connect_all();
    // The challenge request arrives at 20 ms, its answer at 40 ms: cut in between.
    w.run_until(30);
    w.cut(1, 0, true);
    w.run_until(5_000);
    w.cut(1, 0, false);
    assert!(w.run_until_cond(20_000, |w| w.client_conn(1).is_some() || !w.seen(1).failed.is_empty()));
    assert_eq!(w.seen(1).failed, Vec::<String>::new(), "the client connects after renewing its token");
    assert!(w.client_conn(1).is_some());
    assert_eq!(w.node(0).stats().connects_rejected, 1, "the stale request was refused once");
    assert_eq!(w.node(0).stats().challenges_answered, 2);
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

/// Counts (accepts, refusals by reason) in what the server sent.
fn answers(out: &[(SocketAddr, Handshake)]) -> (usize, Vec<String>) {
    let mut accepted = 0;
    let mut refused = Vec::new();
    for (_, h) in out {
        match h {
            Handshake::ConnectAccept { .. } => accepted += 1,
            Handshake::ConnectReject { reason, .. } => refused.push(reason.clone()),
            _ => {}
        }
    }
    (accepted, refused)
}

/// The third probe's first finding: half-open encrypted handshakes from two addresses, 32
/// sockets each, re-sending their connect request every second, held every negotiation slot
/// of a server with the game's limits (64 in all, 32 per address). Now one address holds at
/// most a quarter of them, a resend no longer keeps a half-open connection past the
/// negotiation deadline, and a player from a third address gets in throughout.
#[test]
fn half_open_encrypted_handshakes_from_two_addresses_leave_room_for_players() {
    let cfg = InterfaceConfig {
        accept_connections: true,
        max_connections: 2048,
        max_connections_per_ip: 256,
        max_pending: 64,
        max_pending_per_ip: 32,
        encryption: Encryption::Required,
        ..InterfaceConfig::default()
    };
    let deadline = cfg.negotiation_timeout_ms;
    let mut s = NetInterface::new(cfg, registry(), entropy(31));
    let arena = &mut v12_netobject::ghost::GhostArena::new();
    let attackers: Vec<SocketAddr> =
        (0..64u16).map(|i| SocketAddr::from(([198, 51, 100, 1 + (i / 32) as u8], 40_000 + i))).collect();
    let mut held = Vec::new();
    for (i, a) in attackers.iter().enumerate() {
        let nonce = 1000 + i as u64;
        let (e, t) = challenge(&mut s, 0, *a, nonce);
        held.push((*a, nonce, e, t));
    }
    let mut players = 0;
    let mut most_held = 0;
    for second in 0..40u64 {
        let now = second * 1000;
        // Every attacking socket repeats its connect request (never speaking on the connection).
        let mut accepted = 0;
        for (a, nonce, e, t) in &held {
            s.handle_datagram(now, *a, &keyed_request(&s, *nonce, *e, *t, 7), arena);
            accepted += answers(&drain(&mut s, now)).0;
        }
        s.handle_timeout(now);
        drain(&mut s, now);
        most_held = most_held.max(s.connection_count());
        assert!(accepted <= 32, "second {second}: {accepted} accepts for two addresses");
        // A player from elsewhere connects (and speaks, so it is not half-open).
        let p = SocketAddr::from(([203, 0, 113, 9], 1000 + second as u16));
        let (e, t) = challenge(&mut s, now, p, 5000 + second);
        s.handle_datagram(now, p, &keyed_request(&s, 5000 + second, e, t, 3), arena);
        let (ok, refused) = answers(&drain(&mut s, now));
        assert_eq!((ok, refused), (1, vec![]), "second {second}: a player is let in");
        players += 1;
        s.disconnect(s.connection_ids().into_iter().last().unwrap(), "done");
        drain(&mut s, now);
    }
    assert_eq!(players, 40);
    assert!(most_held <= 32, "the two addresses held {most_held} negotiation slots");
    assert!(
        s.stats().negotiations_timed_out >= 32,
        "resending kept half-open connections alive past {deadline} ms: {:?}",
        s.stats()
    );
}

/// The third probe's fifth finding: one address churned 2,605 accepted connections a second
/// (each a key exchange, a join and a leave). Now each address has a connect budget: a burst,
/// then a steady rate; the rest are told the server is busy.
#[test]
fn one_address_cannot_churn_connections_or_key_exchanges() {
    let cfg = InterfaceConfig {
        accept_connections: true,
        max_connections: 4096,
        max_connections_per_ip: 4096,
        max_pending: 4096,
        max_pending_per_ip: 4096,
        encryption: Encryption::Required,
        ..InterfaceConfig::default()
    };
    let (burst, rate) = (cfg.connect_burst_per_ip as usize, cfg.connects_per_ip_per_s as usize);
    let mut s = NetInterface::new(cfg, registry(), entropy(32));
    let arena = &mut v12_netobject::ghost::GhostArena::new();
    let mut accepted_by_second = Vec::new();
    let mut nonce = 0;
    for second in 0..5u64 {
        let mut accepted = 0;
        for i in 0..1000u16 {
            let now = second * 1000 + u64::from(i);
            nonce += 1;
            let a = SocketAddr::from(([198, 51, 100, 7], 1024 + (nonce % 60_000) as u16));
            let (e, t) = challenge(&mut s, now, a, nonce);
            s.handle_datagram(now, a, &keyed_request(&s, nonce, e, t, 5), arena);
            let (ok, refused) = answers(&drain(&mut s, now));
            accepted += ok;
            assert!(refused.iter().all(|r| r == "server busy; try again"), "{refused:?}");
            // The churner leaves at once, so no connection or negotiation limit is reached.
            for id in s.connection_ids() {
                s.disconnect(id, "churn");
            }
            drain(&mut s, now);
        }
        accepted_by_second.push(accepted);
    }
    assert!(accepted_by_second[0] <= burst + rate, "{accepted_by_second:?}");
    for n in &accepted_by_second[1..] {
        assert!(*n <= rate + 1, "{accepted_by_second:?}");
    }
    assert!(s.stats().connects_rate_limited >= 4500, "{:?}", s.stats());
    // Another address is not affected.
    let b = SocketAddr::from(([198, 51, 100, 8], 1));
    let (e, t) = challenge(&mut s, 5000, b, 1);
    s.handle_datagram(5000, b, &keyed_request(&s, 1, e, t, 5), arena);
    assert_eq!(answers(&drain(&mut s, 5000)).0, 1);
}

/// Per-address caps count an IPv6 /64 as one address (a host usually gets a whole /64):
/// addresses of one /64 share `max_connections_per_ip`, another /64 has its own.
#[test]
fn ipv6_addresses_are_limited_per_64() {
    let cfg = InterfaceConfig {
        accept_connections: true,
        max_connections_per_ip: 3,
        max_pending_per_ip: 64,
        max_pending: 256,
        ..InterfaceConfig::default()
    };
    let mut s = NetInterface::new(cfg, registry(), entropy(33));
    let arena = &mut v12_netobject::ghost::GhostArena::new();
    let mut try_from = |s: &mut NetInterface, ip: &str, nonce: u64| {
        let a = SocketAddr::new(ip.parse().unwrap(), 28000);
        let (e, t) = challenge(s, 0, a, nonce);
        s.handle_datagram(0, a, &request(s, nonce, e, t), arena);
        answers(&drain(s, 0))
    };
    for (i, host) in
        ["2001:db8:7:1::1", "2001:db8:7:1::2", "2001:db8:7:1:ffff:ffff:ffff:ffff"].iter().enumerate()
    {
        assert_eq!(try_from(&mut s, host, i as u64 + 1).0, 1, "{host}");
    }
    assert_eq!(
        try_from(&mut s, "2001:db8:7:1:1234::99", 9).1,
        ["too many connections from your address"],
        "a fourth address of the same /64"
    );
    assert_eq!(try_from(&mut s, "2001:db8:7:2::1", 10).0, 1, "the next /64 is another address");
    assert_eq!(try_from(&mut s, "::1", 11).0, 1, "the IPv6 loopback");
}
