//! NetInterface benchmarks: stateless challenge responses per second, and packets per
//! second one core handles for 1,000 connected clients each sending every 32 ms (sans-IO).

#[path = "../tests/common/mod.rs"]
mod common;

use common::*;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use siphasher::sip::SipHasher24;
use std::hash::Hasher;
use std::hint::black_box;
use std::net::SocketAddr;
use std::time::{Duration, Instant};
use v12_bitstream::{BitReader, BitWriter};
use v12_netobject::*;
use v12_notify_protocol::{ConnectionProtocol, ProtocolConfig};

fn handshake(c: &mut Criterion) {
    let mut g = c.benchmark_group("handshake");
    g.measurement_time(Duration::from_secs(2)).warm_up_time(Duration::from_millis(500));
    g.throughput(Throughput::Elements(1));
    let mut server = NetInterface::new(
        InterfaceConfig { accept_connections: true, ..InterfaceConfig::default() },
        registry(),
        entropy(1),
    );
    let packets: Vec<(SocketAddr, bytes::Bytes)> = (0..4096u64)
        .map(|i| {
            let from = SocketAddr::from(([172, 16, (i >> 8) as u8, i as u8], 2000 + i as u16));
            (from, Handshake::ChallengeRequest { client_nonce: i * 7919 }.encode())
        })
        .collect();
    let mut i = 0usize;
    g.bench_function("challenge_response", |b| {
        b.iter(|| {
            let (from, pkt) = &packets[i & 4095];
            i += 1;
            server.handle_datagram(1000, *from, pkt, &mut v12_netobject::ghost::GhostArena::new());
            black_box(server.poll_transmit(1000, &v12_netobject::ghost::NoObjects))
        })
    });
    // The floor: the keyed hash (token MAC) alone, over the same 30 input bytes.
    let mut n = 0u64;
    g.bench_function("baseline_siphash_mac_only", |b| {
        b.iter(|| {
            n += 1;
            let mut h = SipHasher24::new_with_keys(1, 2);
            h.write(&[0u8; 16]);
            h.write_u16(2000);
            h.write_u64(black_box(n));
            h.write_u32(0);
            black_box(h.finish())
        })
    });
    g.finish();
}

const CLIENTS: usize = 1000;

/// A 1,000-client world on a zero-latency link, every client connected.
fn big_world(encryption: Encryption) -> World {
    let server_cfg = InterfaceConfig {
        max_connections: CLIENTS,
        max_connections_per_ip: CLIENTS,
        max_pending: CLIENTS,
        encryption,
        ..InterfaceConfig::default()
    };
    let link = LinkParams { latency_ms: 0, ..LinkParams::CLEAN };
    let client_cfg = InterfaceConfig { encryption, ..InterfaceConfig::default() };
    let mut w = World::new(CLIENTS, server_cfg, client_cfg, link, 77);
    w.connect_all();
    w.run_until(2000);
    assert_eq!(w.node(0).connection_count(), CLIENTS);
    w
}

/// One 32 ms tick: every client posts a small unguaranteed event and sends its packet
/// (untimed); the server handles the 1,000 packets and sends what it owes (timed).
fn server_tick(w: &mut World) -> Duration {
    let now = w.now() + 32;
    w.skip_to(now);
    let mut inbound = Vec::with_capacity(CLIENTS);
    for i in 1..=CLIENTS {
        let c = w.client_conn(i).expect("connected");
        let node = w.node_mut(i);
        node.handle_timeout(now);
        let _ = node.post_event(c, Unreliable::new(i as u32, now as u32, None));
        while let Some((_, b)) = node.poll_transmit(now, &v12_netobject::ghost::NoObjects) {
            inbound.push((addr(i), b));
        }
    }
    let start = Instant::now();
    let server = w.node_mut(0);
    for (from, b) in &inbound {
        server.handle_datagram(now, *from, b, &mut v12_netobject::ghost::GhostArena::new());
    }
    while server.poll_event().is_some() {}
    server.handle_timeout(now);
    let mut outbound = Vec::new();
    while let Some(t) = server.poll_transmit(now, &v12_netobject::ghost::NoObjects) {
        outbound.push(t);
    }
    let took = start.elapsed();
    for (to, b) in outbound {
        let j = node_index(to);
        if j < w.len() {
            w.node_mut(j).handle_datagram(now, addr(0), &b, &mut v12_netobject::ghost::GhostArena::new());
            while w.node_mut(j).poll_event().is_some() {}
        }
    }
    took
}

fn thousand_clients(c: &mut Criterion) {
    let mut g = c.benchmark_group("server_1000_clients");
    g.sample_size(10).measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_millis(500));
    g.throughput(Throughput::Elements(CLIENTS as u64));
    let mut w = big_world(Encryption::Off);
    g.bench_function("netinterface_tick", |b| {
        b.iter_custom(|iters| (0..iters).map(|_| server_tick(&mut w)).sum())
    });
    // The same tick with every connection encrypted (ChaCha20-Poly1305 both ways).
    let mut w = big_world(Encryption::Required);
    assert!(w.node(0).connection_ids().iter().all(|&id| w.node(0).connection(id).unwrap().is_encrypted()));
    g.bench_function("netinterface_tick_encrypted", |b| {
        b.iter_custom(|iters| (0..iters).map(|_| server_tick(&mut w)).sum())
    });

    // The same packet count through bare notify-protocol endpoints: the floor under NetConnection.
    let cfg = ProtocolConfig::default();
    let mut pairs: Vec<(ConnectionProtocol, ConnectionProtocol)> = (0..CLIENTS)
        .map(|_| (ConnectionProtocol::new(cfg.clone(), 0), ConnectionProtocol::new(cfg.mirrored(), 0)))
        .collect();
    let mut now = 0u64;
    g.bench_function("baseline_notify_protocol_only", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                now += 32;
                let packets: Vec<_> = pairs
                    .iter_mut()
                    .map(|(client, _)| {
                        while client.poll_notify().is_some() {}
                        let mut w = BitWriter::with_budget_bytes(508);
                        if !client.window_full() {
                            client.begin_data_packet(now, &mut w);
                            w.write_int(0xABCD, 16);
                            w.write_bits(u64::from(now as u32), 32);
                        }
                        w.into_bytes()
                    })
                    .collect();
                let start = Instant::now();
                let mut acks = Vec::new();
                for (i, ((_, server), p)) in pairs.iter_mut().zip(&packets).enumerate() {
                    let _ = black_box(server.handle_packet(now, &mut BitReader::new(p)));
                    while server.poll_notify().is_some() {}
                    if let Some(ack) = server.poll_transmit(now) {
                        acks.push((i, ack));
                    }
                }
                total += start.elapsed();
                for (i, ack) in acks {
                    let _ = pairs[i].0.handle_packet(now, &mut BitReader::new(&ack));
                }
            }
            total
        })
    });
    g.finish();
}

/// Sealing and opening one 200-byte packet, against copying it (the plain path's floor).
fn packet_crypto(c: &mut Criterion) {
    use v12_netobject::secure::{KeyContext, KeyExchange};
    let mut g = c.benchmark_group("packet_crypto_200B");
    g.measurement_time(Duration::from_secs(2)).warm_up_time(Duration::from_millis(500));
    g.throughput(Throughput::Bytes(200));
    let (ck, sk) = (KeyExchange::from_random([1; 32]), KeyExchange::from_random([2; 32]));
    let ctx = KeyContext {
        client_nonce: 1,
        token_key: None,
        client_public: ck.public(),
        server_public: sk.public(),
    };
    let mut client = ck.finish(sk.public(), false, &ctx).unwrap();
    let mut server = sk.finish(ck.public(), true, &ctx).unwrap();
    let packet = vec![0x5Au8; 200];
    g.bench_function("seal_and_open", |b| {
        b.iter(|| {
            let sealed = client.seal(black_box(&packet)).unwrap();
            black_box(server.open(&sealed).unwrap())
        })
    });
    g.bench_function("baseline_copy_twice", |b| {
        b.iter(|| {
            let copy = bytes::Bytes::copy_from_slice(black_box(&packet));
            black_box(copy.to_vec())
        })
    });
    // What a connect costs the server beyond a plain one: a key pair and a shared secret.
    g.bench_function("key_exchange_server_side", |b| {
        let mut n = 0u8;
        b.iter(|| {
            n = n.wrapping_add(1);
            let key = KeyExchange::from_random([n; 32]);
            let ctx = KeyContext { server_public: key.public(), ..ctx };
            black_box(key.finish(ck.public(), true, &ctx))
        })
    });
    g.finish();
}

criterion_group!(benches, handshake, thousand_clients, packet_crypto);
criterion_main!(benches);
