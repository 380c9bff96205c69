//! Master-server costs, each against a bare echo measured in the same run:
//! - sans-IO: a verified heartbeat (refresh) and a query (every page, or filtered) against
//!   10,000 registered servers, vs copying the datagram into an answer (`echo`);
//! - loopback UDP: a heartbeat round trip through the real driver vs a bare UDP echo;
//! - memory per registered server (RSS growth over 100,000 registrations), printed first.

use criterion::{Criterion, criterion_group};
use std::hint::black_box;
use std::net::{SocketAddr, UdpSocket};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use v12_master::info::ServerInfo;
use v12_master::token::TokenMinter;
use v12_master::wire::{ALL_PAGES, Message};
use v12_master::{Filter, MasterConfig, MasterServer, ServerStore};

const KEY: [u8; 16] = [9; 16];

fn addr(i: u32) -> SocketAddr {
    SocketAddr::from(([10, (i >> 16) as u8, (i >> 8) as u8, i as u8], 28001))
}

fn info(i: u32) -> ServerInfo {
    ServerInfo {
        name: format!("Tribes server number {i}"),
        mission: "Katabatic".into(),
        game_type: if i.is_multiple_of(3) { "CTF".into() } else { "DM".into() },
        players: (i % 17) as u16,
        max_players: 16,
        bots: 0,
        version: 7,
        password: false,
        dedicated: true,
        region: (i % 4) as u8,
    }
}

fn config(n: usize) -> MasterConfig {
    let mut c = MasterConfig { max_servers: n + 1, ..MasterConfig::default() };
    c.rate.per_second = u32::MAX / 2000;
    c.rate.burst = u32::MAX / 2000;
    c.rate.max_tracked = n + 1;
    c.verified_rate = c.rate;
    c
}

fn filled(n: u32) -> MasterServer {
    let minter = TokenMinter::with_key(KEY);
    let mut m = MasterServer::new(config(n as usize), TokenMinter::with_key(KEY));
    for i in 0..n {
        let a = addr(i);
        let hb = Message::Heartbeat { nonce: 1, token: minter.token(a, 0), info: info(i) }.encode();
        m.handle_datagram(0, a, &hb);
        while m.poll_transmit().is_some() {}
    }
    assert_eq!(m.store().len(), n as usize);
    m
}

fn rss_bytes() -> usize {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: usize = statm.split_whitespace().nth(1).and_then(|p| p.parse().ok()).unwrap_or(0);
    pages * 4096
}

/// RSS growth of the store holding 100,000 servers (the rate limiter's table is not counted:
/// its entries are pruned once a sender has been quiet for a burst's refill time).
fn memory_report() {
    use v12_master::MemoryStore;
    let before = rss_bytes();
    let mut store = MemoryStore::new();
    for i in 0..100_000 {
        store.upsert(addr(i), info(i), 0, usize::MAX, usize::MAX);
    }
    let after = rss_bytes();
    println!(
        "memory: {} servers registered, RSS +{:.1} MiB, {:.0} bytes per server",
        store.len(),
        (after - before) as f64 / (1 << 20) as f64,
        (after - before) as f64 / 100_000.0
    );
}

fn sans_io(c: &mut Criterion) {
    let mut m = filled(10_000);
    let minter = TokenMinter::with_key(KEY);
    let me: SocketAddr = "192.0.2.1:5000".parse().unwrap();
    let token = minter.token(me, 0);
    let query = Message::Query { nonce: 1, token, filter: Filter::default(), page: ALL_PAGES }.encode();
    let filtered = Filter { game_type: "CTF".into(), not_full: true, region: 1, ..Filter::default() };
    let query_f = Message::Query { nonce: 1, token, filter: filtered, page: ALL_PAGES }.encode();
    let server = addr(77);
    let hb = Message::Heartbeat { nonce: 1, token: minter.token(server, 0), info: info(77) }.encode();
    let mut g = c.benchmark_group("master_10k");
    g.bench_function("echo (baseline)", |b| {
        let mut out = std::collections::VecDeque::new();
        b.iter(|| {
            out.push_back((me, black_box(&hb).to_vec()));
            black_box(out.pop_front())
        })
    });
    g.bench_function("heartbeat", |b| {
        // The clock moves 1 ms a call (within the token's bucket), so the sender's rate
        // bucket refills and every call takes the full path, not the rate-limited one.
        let mut t = 0u64;
        b.iter(|| {
            t = t % 50_000 + 1;
            m.handle_datagram(t, server, black_box(&hb));
            let ack = m.poll_transmit();
            assert!(ack.is_some(), "a verified heartbeat is acknowledged");
            black_box(ack)
        })
    });
    g.bench_function("query all pages", |b| {
        b.iter(|| {
            m.handle_datagram(1, me, black_box(&query));
            let mut n = 0;
            while let Some(p) = m.poll_transmit() {
                n += black_box(p).1.len();
            }
            n
        })
    });
    g.bench_function("query filtered", |b| {
        b.iter(|| {
            m.handle_datagram(1, me, black_box(&query_f));
            let mut n = 0;
            while let Some(p) = m.poll_transmit() {
                n += black_box(p).1.len();
            }
            n
        })
    });
    // One simulated second of a 10,000-server directory: every server heart-beats once per
    // 30 s (333 heartbeats), while browsers ask 111 filtered and 11 whole-list queries.
    let heartbeats: Vec<(SocketAddr, Vec<u8>)> = (0..333u32)
        .map(|k| {
            let i = k * 30;
            let a = addr(i);
            (a, Message::Heartbeat { nonce: 1, token: minter.token(a, 0), info: info(i) }.encode())
        })
        .collect();
    let n_datagrams = heartbeats.len() + heartbeats.len().div_ceil(3) + heartbeats.len().div_ceil(33);
    g.bench_function("one second of load, echo (baseline)", |b| {
        let mut out = std::collections::VecDeque::new();
        b.iter(|| {
            for _ in 0..n_datagrams {
                out.push_back((me, black_box(&hb).to_vec()));
                black_box(out.pop_front());
            }
        })
    });
    g.bench_function("one second of load", |b| {
        let mut t = 0u64;
        b.iter(|| {
            t = t % 50_000 + 1;
            for (k, (a, d)) in heartbeats.iter().enumerate() {
                m.handle_datagram(t, *a, d);
                if k % 3 == 0 {
                    m.handle_datagram(t, me, &query_f);
                }
                if k % 33 == 0 {
                    m.handle_datagram(t, me, &query);
                }
                while let Some(p) = m.poll_transmit() {
                    black_box(p);
                }
            }
        })
    });
    g.finish();
}

/// A server thread answering on loopback until told to stop.
fn spawn(
    f: impl FnOnce(UdpSocket, Arc<AtomicBool>) + Send + 'static,
) -> (SocketAddr, Arc<AtomicBool>, std::thread::JoinHandle<()>) {
    let s = UdpSocket::bind("127.0.0.1:0").unwrap();
    let a = s.local_addr().unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let st = stop.clone();
    (a, stop, std::thread::spawn(move || f(s, st)))
}

fn loopback(c: &mut Criterion) {
    let (echo_addr, echo_stop, echo) = spawn(|s, stop| {
        s.set_read_timeout(Some(std::time::Duration::from_millis(50))).unwrap();
        let mut buf = [0u8; 2048];
        while !stop.load(Ordering::Relaxed) {
            if let Ok((n, from)) = s.recv_from(&mut buf) {
                let _ = s.send_to(&buf[..n], from);
            }
        }
    });
    let (master_addr, master_stop, master) = spawn(|s, stop| {
        let mut m = filled(10_000);
        let _ = v12_master::udp::serve(&s, &mut m, &stop);
    });
    let client = UdpSocket::bind("127.0.0.1:0").unwrap();
    client.set_read_timeout(Some(std::time::Duration::from_secs(2))).unwrap();
    // The driver's clock starts near 0 ms, so a bucket-0 token is valid for a minute.
    let token = TokenMinter::with_key(KEY).token(client.local_addr().unwrap(), 0);
    let hb = Message::Heartbeat { nonce: 1, token, info: info(1) }.encode();
    let query = Message::Query {
        nonce: 1,
        token,
        filter: Filter { game_type: "CTF".into(), ..Filter::default() },
        page: 0,
    }
    .encode();
    let mut buf = [0u8; 2048];
    let mut g = c.benchmark_group("master_udp_loopback");
    g.bench_function("udp echo (baseline)", |b| {
        b.iter(|| {
            client.send_to(&hb, echo_addr).unwrap();
            client.recv_from(&mut buf).unwrap().0
        })
    });
    g.bench_function("heartbeat round trip", |b| {
        b.iter(|| {
            client.send_to(&hb, master_addr).unwrap();
            client.recv_from(&mut buf).unwrap().0
        })
    });
    g.bench_function("query one page round trip", |b| {
        b.iter(|| {
            client.send_to(&query, master_addr).unwrap();
            client.recv_from(&mut buf).unwrap().0
        })
    });
    g.finish();
    echo_stop.store(true, Ordering::Relaxed);
    master_stop.store(true, Ordering::Relaxed);
    let _ = echo.join();
    let _ = master.join();
}

criterion_group!(benches, sans_io, loopback);

fn main() {
    memory_report();
    benches();
    criterion::Criterion::default().configure_from_args().final_summary();
}
