//! Datagrams per second through `UdpTransport` on loopback, against a bare
//! socket2 send/receive loop measured in the same run (`baseline_socket2`).

use std::hint::black_box;
use std::mem::MaybeUninit;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use socket2::{Domain, Protocol, SockAddr, Socket, Type};
use v12_platform::{ConditionerConfig, Datagram, LinkConditioner, NetAddress, Transport, UdpTransport};

/// Datagrams per iteration: sent, then all received in batches.
const BATCH: usize = 64;
/// Sizes cycled through, the game's range (508 is the server's packet cap).
const SIZES: [usize; 4] = [64, 128, 256, 508];
const BUFFER: usize = 1 << 20;
/// Give up on a datagram after this many empty receive calls (loopback does
/// not lose them unless a buffer overflows; never hang the bench).
const EMPTY_POLLS: usize = 100_000;

fn transport_round(
    tx: &mut impl Transport,
    rx: &mut impl Transport,
    to: NetAddress,
    out: &mut Vec<Datagram>,
) {
    let payload = [0xa5u8; 508];
    for i in 0..BATCH {
        tx.send_to(0, to, &payload[..SIZES[i % SIZES.len()]]).unwrap();
    }
    let (mut got, mut empty) = (0, 0);
    while got < BATCH && empty < EMPTY_POLLS {
        out.clear();
        match rx.recv_batch(0, out).unwrap() {
            0 => empty += 1,
            n => got += n,
        }
        black_box(&out);
    }
}

fn socket2_pair() -> (Socket, Socket, SockAddr) {
    let make = || {
        let s = Socket::new(Domain::IPV4, Type::DGRAM, Some(Protocol::UDP)).unwrap();
        s.set_recv_buffer_size(BUFFER).unwrap();
        s.set_send_buffer_size(BUFFER).unwrap();
        s.set_nonblocking(true).unwrap();
        s.bind(&NetAddress::localhost(0).socket_addr().into()).unwrap();
        s
    };
    let (tx, rx) = (make(), make());
    let to = rx.local_addr().unwrap();
    (tx, rx, to)
}

fn bench_udp(c: &mut Criterion) {
    let mut group = c.benchmark_group("udp_loopback");
    group.throughput(Throughput::Elements(BATCH as u64));
    group.measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_secs(1)).sample_size(30);

    let (stx, srx, sto) = socket2_pair();
    let mut buf = vec![MaybeUninit::<u8>::uninit(); 2048];
    let payload = [0xa5u8; 508];
    group.bench_function("baseline_socket2", |b| {
        b.iter(|| {
            for i in 0..BATCH {
                stx.send_to(&payload[..SIZES[i % SIZES.len()]], &sto).unwrap();
            }
            let (mut got, mut empty) = (0, 0);
            while got < BATCH && empty < EMPTY_POLLS {
                match srx.recv_from(&mut buf) {
                    Ok((n, from)) => {
                        black_box((n, from));
                        got += 1;
                    }
                    Err(_) => empty += 1,
                }
            }
        })
    });

    let mut tx = UdpTransport::bind(NetAddress::localhost(0)).unwrap();
    let mut rx = UdpTransport::bind(NetAddress::localhost(0)).unwrap();
    let to = rx.local_addr();
    let mut out = Vec::with_capacity(256);
    group.bench_function("udp_transport", |b| b.iter(|| transport_round(&mut tx, &mut rx, to, &mut out)));

    let mut ctx = LinkConditioner::new(tx, ConditionerConfig::default(), 1);
    group.bench_function("udp_transport_conditioner_passthrough", |b| {
        b.iter(|| transport_round(&mut ctx, &mut rx, to, &mut out))
    });
    group.finish();
}

criterion_group!(benches, bench_udp);
criterion_main!(benches);
