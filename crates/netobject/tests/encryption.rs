//! Encrypted connections and connect tokens: the key exchange in the handshake, sealed
//! packets over a lossy link, refusals that name their cause, and the attack a plain
//! connection cannot survive: blind datagrams spoofed with a player's address.

mod common;

use bytes::Bytes;
use chacha20::ChaCha20Rng;
use common::*;
use rand_core::{Rng, SeedableRng};
use v12_netobject::*;

fn config(encryption: Encryption) -> InterfaceConfig {
    InterfaceConfig { encryption, ..InterfaceConfig::default() }
}

fn world(server: InterfaceConfig, client: InterfaceConfig, link: LinkParams, seed: u64) -> World {
    let mut w = World::new(2, server, client, link, seed);
    w.connect_all();
    // Handshake retries cover loss; stop once both are in (or every attempt ended).
    w.run_until_cond(20_000, |w| {
        w.node(0).connection_count() == 2 || w.seen(1).failed.len() + w.seen(2).failed.len() == 2
    });
    let t = w.now();
    w.run_until(t + 500);
    w
}

/// Every client posts an ordered event `n`; returns how many the server received.
fn deliver(w: &mut World, n: u32) -> usize {
    for i in 1..w.len() {
        if let Some(c) = w.client_conn(i).filter(|c| w.node(i).connection(*c).is_some()) {
            w.node_mut(i).post_event(c, Ordered::new(i as u32, n, None)).unwrap();
        }
    }
    let t = w.now();
    w.run_until(t + 3000);
    w.seen(0).events.iter().filter(|e| e.3 == n).count()
}

#[test]
fn encrypted_connections_carry_events_over_a_lossy_link() {
    let mut w = world(config(Encryption::On), config(Encryption::On), LinkParams::lossy(0.1), 1);
    assert_eq!(w.node(0).connection_count(), 2);
    for id in w.node(0).connection_ids() {
        assert!(w.node(0).connection(id).unwrap().is_encrypted());
    }
    let c = w.client_conn(1).unwrap();
    assert!(w.node(1).connection(c).unwrap().is_encrypted());
    for n in 0..20 {
        assert_eq!(deliver(&mut w, 100 + n), 2, "event {n}");
    }
    // A sealed packet is the plain one plus the header and tag, and never over the budget.
    let stats = w.node(1).connection(c).unwrap().stats();
    assert!(stats.bytes_sent > 0 && stats.unopened_dropped == 0);
    // The goodbye is sealed too, and reaches the server with its reason.
    w.node_mut(1).disconnect(c, "going home");
    let t = w.now();
    w.run_until(t + 500);
    assert!(w.seen(0).disconnected.iter().any(|(_, r, by_peer)| r == "going home" && *by_peer));
}

#[test]
fn a_plain_client_meets_an_encrypting_server_as_configured() {
    // On: a client that offers no key still gets a plain connection.
    let w = world(config(Encryption::On), config(Encryption::Off), LinkParams::CLEAN, 2);
    let id = w.node(0).connection_ids()[0];
    assert!(!w.node(0).connection(id).unwrap().is_encrypted());
    // Required: refused, with the reason.
    let w = world(config(Encryption::Required), config(Encryption::Off), LinkParams::CLEAN, 3);
    assert_eq!(w.node(0).connection_count(), 0);
    assert!(w.seen(1).failed.iter().any(|r| r == "this server requires an encrypted connection"));
    // A client that requires encryption leaves a server that does not encrypt.
    let mut w = world(config(Encryption::Off), config(Encryption::Required), LinkParams::CLEAN, 4);
    assert!(w.seen(1).failed.iter().any(|r| r.contains("does not encrypt")), "{:?}", w.seen(1).failed);
    w.run_until(4000);
    assert_eq!(w.node(0).connection_count(), 0, "the server was told");
}

/// Blind datagrams with the victim's source address: random bytes, forged goodbyes, and
/// bit-flipped copies of the victim's own packets. Returns whether the victim is still
/// connected to the server afterwards.
fn spoof_victim(encryption: Encryption, datagrams: usize, seed: u64) -> (World, bool) {
    let mut w = world(config(encryption), config(encryption), LinkParams::CLEAN, seed);
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let victim = addr(1);
    // The victim's real packets, to flip and replay.
    let mut captured = Vec::new();
    let c = w.client_conn(1).unwrap();
    w.node_mut(1).post_event(c, Ordered::new(1, 5, None)).unwrap();
    // Driven by hand, off the harness (nothing the victim writes here reaches the server).
    let mut now = w.now();
    while captured.len() < 8 {
        now += 32;
        w.node_mut(1).handle_timeout(now);
        while let Some((_, d)) = w.node_mut(1).poll_transmit(now, &v12_netobject::ghost::NoObjects) {
            captured.push(d.to_vec());
        }
    }
    for k in 0..datagrams {
        let data: Vec<u8> = match k % 3 {
            0 => {
                let mut d = vec![0u8; 1 + (rng.next_u32() % 120) as usize];
                rng.fill_bytes(&mut d);
                d[0] |= 1;
                d
            }
            1 => Handshake::Disconnect { client_nonce: rng.next_u64(), reason: "spoofed".into() }
                .encode()
                .to_vec(),
            _ => {
                let mut d = captured[k % captured.len()].clone();
                let bit = rng.next_u32() as usize % (d.len() * 8);
                d[bit / 8] ^= 1 << (bit % 8);
                d
            }
        };
        if k % 1000 == 0 {
            now += 1;
            w.node_mut(0).handle_timeout(now);
        }
        w.node_mut(0).handle_datagram(now, victim, &data, &mut v12_netobject::ghost::GhostArena::new());
        while w.node_mut(0).poll_transmit(now, &v12_netobject::ghost::NoObjects).is_some() {}
    }
    w.skip_to(now);
    let alive = w.node(0).connection_count() == 2;
    (w, alive)
}

#[test]
fn spoofed_datagrams_never_drop_an_encrypted_player() {
    let (mut w, alive) = spoof_victim(Encryption::Required, 60_000, 5);
    assert!(alive, "the victim was dropped: {:?}", w.seen(0).disconnected);
    let id = w.node(0).connection_ids()[0];
    let dropped = w.node(0).connection(id).unwrap().stats().unopened_dropped;
    assert!(dropped >= 39_000, "random and flipped datagrams are dropped unopened ({dropped})");
    // Both players still deliver.
    let t = w.now();
    w.run_until(t + 100);
    assert_eq!(deliver(&mut w, 900), 2);
    // The same attack on a plain connection drops the victim: what encryption is for.
    let (_, plain_alive) = spoof_victim(Encryption::Off, 60_000, 5);
    assert!(!plain_alive, "a plain connection has no defence against spoofed packets");
}

fn token_server(key: [u8; 32]) -> InterfaceConfig {
    InterfaceConfig { connect_token_key: Some(key), ..InterfaceConfig::default() }
}

fn issue(key: &[u8; 32], client_id: u64, expires: u64, seed: u64) -> IssuedToken {
    let t = ConnectToken { client_id, expires_unix_s: expires, user_data: b"team=blue".to_vec() };
    t.issue(key, &mut ChaCha20Rng::seed_from_u64(seed))
}

/// A world whose clients present the given tokens (`None`: a plain connect).
fn token_world(tokens: Vec<Option<IssuedToken>>, now_unix: u64, seed: u64) -> World {
    let key = [42; 32];
    let mut w =
        World::new(tokens.len(), token_server(key), InterfaceConfig::default(), LinkParams::CLEAN, seed);
    w.node_mut(0).set_wall_clock(now_unix);
    for (i, t) in tokens.into_iter().enumerate() {
        let data = Bytes::from(format!("client{}", i + 1));
        match t {
            Some(t) => w.node_mut(i + 1).connect_with_token(0, addr(0), data, t),
            None => w.node_mut(i + 1).connect(0, addr(0), data),
        };
    }
    w.run_until(3000);
    w
}

#[test]
fn connect_tokens_let_in_only_whom_the_matchmaker_vouched_for() {
    let key = [42; 32];
    let now = 1_800_000_000;
    let good = issue(&key, 7, now + 30, 1);
    let expired = issue(&key, 8, now - 1, 2);
    let forged = issue(&[1; 32], 9, now + 30, 3);
    let w = token_world(vec![Some(good.clone()), None, Some(expired), Some(forged)], now, 6);
    assert_eq!(w.node(0).connection_count(), 1);
    let id = w.node(0).connection_ids()[0];
    let conn = w.node(0).connection(id).unwrap();
    assert!(conn.is_encrypted(), "a token connection is encrypted");
    let claims = conn.connect_token().unwrap();
    assert_eq!((claims.client_id, claims.user_data.as_slice()), (7, &b"team=blue"[..]));
    assert_eq!(w.seen(2).failed, ["connect token invalid"], "no token");
    assert_eq!(w.seen(3).failed, ["connect token expired"]);
    assert_eq!(w.seen(4).failed, ["connect token invalid"], "sealed with another key");
    // One live connection per token: of two clients holding it, the first to prove its key
    // keeps it and the other is told so.
    let w = token_world(vec![Some(good.clone()), Some(good.clone())], now, 7);
    assert_eq!(w.node(0).connection_count(), 1);
    let told =
        |s: &&Seen| s.disconnected.iter().any(|d| d.1 == "connect token claimed by another connection");
    assert_eq!(w.seen_all().skip(1).filter(told).count(), 1, "{:?}", w.seen_all().collect::<Vec<_>>());
    // Once a connection owns the token, a later claimant is refused outright.
    let mut w = token_world(vec![Some(good.clone()), None], now, 9);
    w.node_mut(2).connect_with_token(3000, addr(0), Bytes::from_static(b"late"), good);
    w.run_until(6000);
    assert_eq!(w.seen(2).failed.last().map(String::as_str), Some("connect token already in use"));
}

/// A sealed token crosses in the clear (finding 2 of the third probe): replayed from another
/// address before its owner connects, it must not take the token's place. The thief cannot
/// open a packet (it lacks the token's key), the owner proves the key, keeps the token, and
/// the thief's half-open connection is dropped.
#[test]
fn a_replayed_token_cannot_lock_its_owner_out() {
    let key = [42; 32];
    let now = 1_800_000_000;
    let good = issue(&key, 7, now + 60, 1);
    let mut seen_in_clear = good.clone();
    seen_in_clear.key = [0; 32];
    let mut w = World::new(2, token_server(key), InterfaceConfig::default(), LinkParams::CLEAN, 10);
    w.node_mut(0).set_wall_clock(now);
    w.node_mut(1).connect_with_token(0, addr(0), Bytes::from_static(b"thief"), seen_in_clear);
    w.run_until(500);
    assert_eq!(w.node(0).connection_count(), 1, "the replay's handshake passes");
    w.node_mut(2).connect_with_token(500, addr(0), Bytes::from_static(b"owner"), good);
    w.run_until(3000);
    assert!(w.client_conn(2).is_some(), "the owner gets in: {:?}", w.seen(2).failed);
    assert_eq!(w.node(0).connection_count(), 1);
    let id = w.node(0).connection_ids()[0];
    assert_eq!(w.node(0).connection(id).unwrap().remote_addr(), addr(2));
    assert!(
        w.seen(0).disconnected.iter().any(|d| d.1 == "connect token claimed by another connection"),
        "{:?}",
        w.seen(0).disconnected
    );
}

#[test]
fn a_stolen_sealed_token_without_its_key_holds_no_connection() {
    let key = [42; 32];
    let now = 1_800_000_000;
    let mut stolen = issue(&key, 7, now + 60, 1);
    stolen.key = [0; 32];
    let mut w = token_world(vec![Some(stolen)], now, 8);
    // The handshake passes (the sealed token is genuine), but no packet opens either way.
    let t = w.now();
    w.run_until(t + 40_000);
    assert_eq!(w.node(0).connection_count(), 0, "the server timed the thief out");
    assert!(w.seen(0).events.is_empty());
}
