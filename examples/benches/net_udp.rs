//! NetInterface over real loopback UDP against a bare socket2 loop, measured in the same run.
//!
//! Every iteration is one 32 ms client tick in *simulated* time (the sans-IO interface takes
//! `now` from us), carried by real sockets: each of N connected clients posts one unguaranteed
//! event and sends its data packet; the server reads them all, handles headers, acks and events,
//! and writes what it owes. The baseline sends and receives the same number of datagrams of the
//! same size through bare socket2 calls: the physical limit of this machine's loopback.

// Chat-style endpoints: nothing ghosted either way.
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use v12_netobject::ghost::{GhostArena, NoObjects};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use socket2::{Domain, Socket, Type};
use v12_examples::chat::{VoiceFrame, registry};
use v12_netobject::{InterfaceConfig, InterfaceEvent, NetInterface};
use v12_platform::{NetAddress, Transport, UdpTransport};
use v12_services::NetDriver;

const CLIENTS: usize = 200;

struct Rig {
    server: NetDriver<UdpTransport>,
    clients: Vec<(NetDriver<UdpTransport>, v12_netobject::ConnectionId)>,
    now: u64,
    datagram_bytes: usize,
}

/// Pumps the server until `want` more datagrams arrived (bounded, never spins forever).
fn server_take(server: &mut NetDriver<UdpTransport>, now: u64, want: u64) {
    let target = server.stats().datagrams_in + want;
    for _ in 0..10_000 {
        server.pump(now, &NoObjects, &mut GhostArena::new()).expect("server pump");
        while server.interface.poll_event().is_some() {}
        if server.stats().datagrams_in >= target {
            return;
        }
        let _ = server.transport.wait_readable(Duration::from_millis(1));
    }
    panic!("server never received its datagrams");
}

fn rig() -> Rig {
    let reg = registry();
    let cfg = InterfaceConfig {
        accept_connections: true,
        max_connections: CLIENTS,
        max_connections_per_ip: CLIENTS,
        max_pending: CLIENTS,
        max_pending_per_ip: CLIENTS,
        connect_burst_per_ip: CLIENTS as u32,
        ..Default::default()
    };
    let mut server = NetDriver::new(
        NetInterface::new(cfg, Arc::clone(&reg), [3; 32]),
        UdpTransport::bind(NetAddress::localhost(0)).unwrap(),
    );
    let server_addr = server.transport.local_addr().socket_addr();
    let mut clients = Vec::new();
    let mut now = 0;
    for i in 0..CLIENTS {
        let mut c = NetDriver::new(
            NetInterface::new(InterfaceConfig::default(), Arc::clone(&reg), [i as u8; 32]),
            UdpTransport::bind(NetAddress::localhost(0)).unwrap(),
        );
        let id = c.interface.connect(now, server_addr, bytes::Bytes::new());
        clients.push((c, id));
    }
    // Handshake over real loopback; simulated time advances 10 ms a round.
    for _ in 0..200 {
        now += 10;
        for (c, _) in &mut clients {
            c.pump(now, &NoObjects, &mut GhostArena::new()).unwrap();
        }
        std::thread::sleep(Duration::from_millis(1));
        server.pump(now, &NoObjects, &mut GhostArena::new()).unwrap();
        while server.interface.poll_event().is_some() {}
        if server.interface.connection_count() == CLIENTS {
            break;
        }
    }
    assert_eq!(server.interface.connection_count(), CLIENTS, "all clients connect");
    for (c, _) in &mut clients {
        std::thread::sleep(Duration::from_micros(50));
        c.pump(now, &NoObjects, &mut GhostArena::new()).unwrap();
        while let Some(e) = c.interface.poll_event() {
            assert!(!matches!(e, InterfaceEvent::ConnectFailed { .. }));
        }
    }
    Rig { server, clients, now, datagram_bytes: 0 }
}

impl Rig {
    /// One simulated 32 ms tick over real sockets.
    fn tick(&mut self) {
        self.now += 32;
        let before = self.clients.iter().map(|(c, _)| c.stats().bytes_out).sum::<u64>();
        let mut sent = 0;
        for (c, id) in &mut self.clients {
            let frame = VoiceFrame { seq: (self.now & 0xFFFF) as u32, samples: vec![7; 30] };
            c.interface.post_event(*id, Box::new(frame)).unwrap();
            let out = c.stats().datagrams_out;
            c.pump(self.now, &NoObjects, &mut GhostArena::new()).unwrap();
            sent += c.stats().datagrams_out - out;
        }
        let after = self.clients.iter().map(|(c, _)| c.stats().bytes_out).sum::<u64>();
        self.datagram_bytes = ((after - before) / sent.max(1)) as usize;
        server_take(&mut self.server, self.now, sent);
    }
}

fn bare_pair() -> (Socket, Socket, SocketAddr) {
    let open = || {
        let s = Socket::new(Domain::IPV4, Type::DGRAM, None).unwrap();
        s.set_recv_buffer_size(1 << 20).unwrap();
        s.set_send_buffer_size(1 << 20).unwrap();
        s.bind(&"127.0.0.1:0".parse::<SocketAddr>().unwrap().into()).unwrap();
        s
    };
    let (a, b) = (open(), open());
    b.set_read_timeout(Some(Duration::from_secs(1))).unwrap();
    let to = b.local_addr().unwrap().as_socket().unwrap();
    (a, b, to)
}

fn bench(c: &mut Criterion) {
    let mut rig = rig();
    rig.tick();
    let size = rig.datagram_bytes.max(1);
    let mut g = c.benchmark_group("netinterface_udp_200_clients");
    g.throughput(Throughput::Elements(CLIENTS as u64));
    g.measurement_time(Duration::from_secs(3)).sample_size(20);
    g.bench_function("netinterface_over_udp", |b| b.iter(|| rig.tick()));
    let (tx, rx, to) = bare_pair();
    let payload = vec![1u8; size];
    let mut buf = [std::mem::MaybeUninit::<u8>::uninit(); 2048];
    g.bench_function("baseline_bare_socket2", |b| {
        b.iter(|| {
            for _ in 0..CLIENTS {
                tx.send_to(&payload, &to.into()).unwrap();
            }
            for _ in 0..CLIENTS {
                rx.recv_from(&mut buf).unwrap();
            }
        })
    });
    g.finish();
    eprintln!("mean client datagram: {size} bytes");
}

criterion_group!(benches, bench);
criterion_main!(benches);
