//! `NetInterface::serve` on the packet threads is `serve` on one thread: the same datagrams
//! in the same order, the same events and closes, through joins, a steady stream of events
//! both ways, loss, a client that leaves (its goodbye closes it mid-batch), clients that go
//! silent (timed out), and a connection that never confirms (half-open); with the events
//! coming out of the interface in arrival order, or staying with their connections
//! (`set_events_by_connection`, read in `for_each_connection`'s turns). And `serve`, whose
//! pass skips the connections with nothing due, is `handle_datagrams`, `handle_timeout` and
//! `poll_transmit` one after another, which visit every connection.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use v12_bitstream::{BitReader, BitWriter};
use v12_netobject::ghost::{GhostArena, GhostWorld, NetObject, ObjectId};
use v12_netobject::*;

/// A note either way: who wrote it and its number.
#[derive(Debug)]
struct Note(u32, u32);

impl NetEvent for Note {
    fn guarantee(&self) -> Guarantee {
        Guarantee::Unguaranteed
    }
    fn pack(&self, w: &mut BitWriter, _: &mut PackContext<'_>) {
        w.write_int(self.0, 16);
        w.write_int(self.1, 32);
    }
}

impl NetEventClass for Note {
    const NAME: &'static str = "Note";
    fn unpack(r: &mut BitReader<'_>, _: &mut UnpackContext<'_>) -> Result<Self> {
        Ok(Self(r.read_int(16)?, r.read_int(32)?))
    }
}

/// A world with no objects that may be shared between threads (so the pool is used).
struct Shared;

impl GhostWorld for Shared {
    fn object(&self, _: ObjectId) -> Option<&dyn NetObject> {
        None
    }
    fn as_sync(&self) -> Option<&(dyn GhostWorld + Sync)> {
        Some(self)
    }
}

fn addr(i: usize) -> SocketAddr {
    SocketAddr::from(([10, 0, (i / 250) as u8, (i % 250) as u8 + 1], 28_000))
}

/// Everything the server did: its datagrams, its events, its connections' events.
#[derive(Debug, Default)]
struct Log {
    sent: Vec<(SocketAddr, Vec<u8>)>,
    events: Vec<String>,
    by_connection: BTreeMap<u32, Vec<String>>,
    /// Datagrams read on the packet threads (not compared).
    in_parallel: u64,
}

/// How the server takes each pump.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Loop {
    /// `serve` with this many packet threads (its pass skips connections with nothing due).
    Serve(usize),
    /// `handle_datagrams`, `handle_timeout`, `poll_transmit` until `None`: every connection
    /// visited every pump, what `serve` must equal.
    Steps,
}

/// A server taking its pumps as `how` with `CLIENTS` clients, run for 9 s of 8 ms pumps.
fn run(how: Loop, by_connection: bool) -> Log {
    const CLIENTS: usize = 40;
    let mut b = NetClassRegistryBuilder::new();
    b.register::<Note>();
    let registry = Arc::new(b.build().unwrap());
    let protocol = ProtocolConfig { timeout_ms: 2_000, ..ProtocolConfig::default() };
    let mut server = NetInterface::new(
        InterfaceConfig {
            accept_connections: true,
            max_connections: 256,
            max_connections_per_ip: 256,
            max_pending: 256,
            max_pending_per_ip: 256,
            connect_burst_per_ip: 256,
            negotiation_timeout_ms: 1_500,
            protocol: protocol.clone(),
            ..InterfaceConfig::default()
        },
        registry.clone(),
        [9; 32],
    );
    server.set_transmit_threads(match how {
        Loop::Serve(threads) => threads,
        Loop::Steps => 1,
    });
    server.set_events_by_connection(by_connection);
    let server_addr = addr(999);
    let mut clients: Vec<NetInterface> = (0..CLIENTS)
        .map(|i| {
            let cfg = InterfaceConfig { protocol: protocol.clone(), ..InterfaceConfig::default() };
            NetInterface::new(cfg, registry.clone(), [i as u8 + 1; 32])
        })
        .collect();
    let mut ids: Vec<Option<ConnectionId>> = vec![None; CLIENTS];
    let mut log = Log::default();
    let mut to_server: Vec<(SocketAddr, Vec<u8>)> = Vec::new();
    let mut to_clients: Vec<Vec<Vec<u8>>> = vec![Vec::new(); CLIENTS];
    let turns = Mutex::new(BTreeMap::<u32, Vec<String>>::new());
    let mut n = 0u32;
    for step in 0..1_125u64 {
        let now = step * 8;
        // The clients: the last two go silent after 3 s (the server times them out), the
        // third-last leaves at 4 s, the fourth-last never confirms its connection (its
        // datagrams to the server are all lost).
        for (i, c) in clients.iter_mut().enumerate() {
            let silent = i >= CLIENTS - 2 && now >= 3_000;
            if silent {
                continue;
            }
            if step == 0 {
                ids[i] = Some(c.connect(now, server_addr, bytes::Bytes::new()));
            }
            for d in to_clients[i].drain(..) {
                c.handle_datagram(now, server_addr, &d, &mut GhostArena::new());
            }
            while c.poll_event().is_some() {}
            c.handle_timeout(now);
            if let Some(id) = ids[i] {
                if i == CLIENTS - 3 && now == 4_000 {
                    c.disconnect(id, "bye");
                } else if step % 4 == 0 {
                    n += 1;
                    let _ = c.post_event(id, Box::new(Note(i as u32, n)));
                }
            }
            while let Some((_, d)) = c.poll_transmit(now, &Shared) {
                // Loss: every 11th datagram of the stream, and all of the unconfirmed one's
                // but its handshake.
                let lost = (step as usize + i).is_multiple_of(11) && d[0] & 1 == 1;
                let never = i == CLIENTS - 4 && d[0] & 1 == 1;
                if !lost && !never {
                    to_server.push((addr(i), d.to_vec()));
                }
            }
        }
        let mut sent = Vec::new();
        if how == Loop::Steps {
            server.handle_datagrams(now, &to_server, |(a, d)| (*a, &d[..]), &mut GhostArena::new());
            server.handle_timeout(now);
            while let Some(t) = server.poll_transmit(now, &Shared) {
                sent.push(t);
            }
        } else {
            server.serve(now, &to_server, |(a, d)| (*a, &d[..]), &mut GhostArena::new(), &Shared);
            while let Some(t) = server.take_transmit() {
                sent.push(t);
            }
        }
        to_server.clear();
        for (to, d) in sent {
            log.sent.push((to, d.to_vec()));
            if let Some(i) = (0..CLIENTS).find(|&i| addr(i) == to) {
                to_clients[i].push(d.to_vec());
            }
        }
        while let Some(ev) = server.poll_event() {
            if let InterfaceEvent::EventReceived { connection, event } = &ev {
                log.events.push(format!("{connection} {event:?}"));
            } else {
                log.events.push(format!("{ev:?}"));
            }
            if let InterfaceEvent::Connected { connection, .. }
            | InterfaceEvent::EventReceived { connection, .. } = ev
            {
                // An answer to every client on every pump that heard from it.
                let _ = server.post_event(connection, Box::new(Note(999, connection.0)));
            }
        }
        if by_connection && step % 4 == 2 {
            server.for_each_connection(|turn| {
                let mut got = Vec::new();
                while let Some(ev) = turn.poll_event() {
                    got.push(format!("{now} {ev:?}"));
                    turn.recycle_event(ev);
                }
                if !got.is_empty() {
                    let id = turn.id();
                    let _ = turn.post_event_reusing(Note(999, id.0));
                    turns.lock().unwrap().entry(id.0).or_default().extend(got);
                }
            });
        }
    }
    log.by_connection = turns.into_inner().unwrap();
    log.in_parallel = server.stats().datagrams_in_parallel;
    log
}

#[test]
fn the_pass_on_threads_is_the_pass_on_one() {
    for by_connection in [false, true] {
        let one = run(Loop::Serve(1), by_connection);
        let three = run(Loop::Serve(3), by_connection);
        let steps = run(Loop::Steps, by_connection);
        assert!(one.sent.len() > 2_000, "{} datagrams", one.sent.len());
        let joined = one.events.iter().filter(|e| e.starts_with("Connected")).count();
        assert_eq!(joined, 40, "every client joined");
        let left = one.events.iter().filter(|e| e.starts_with("Disconnected")).collect::<Vec<_>>();
        assert_eq!(left.len(), 4, "{left:?}");
        assert!(left.iter().any(|e| e.contains("timed out")), "{left:?}");
        assert!(left.iter().any(|e| e.contains("handshake not completed")), "{left:?}");
        assert!(left.iter().any(|e| e.contains("by_peer: true")), "{left:?}");
        if by_connection {
            assert!(!one.events.iter().any(|e| e.contains("Note")), "events stay with their connections");
            assert!(one.by_connection.values().map(Vec::len).sum::<usize>() > 5_000);
        } else {
            assert!(one.events.len() > 5_000);
        }
        assert_eq!(one.sent.len(), three.sent.len(), "by connection: {by_connection}");
        assert!(
            one.sent == three.sent,
            "the same datagrams in the same order (by connection: {by_connection})"
        );
        assert_eq!(one.events, three.events);
        assert_eq!(one.by_connection, three.by_connection);
        // The pass that skips connections with nothing due is the steps that visit them all.
        assert!(one.sent == steps.sent, "serve is the steps (by connection: {by_connection})");
        assert_eq!(one.events, steps.events);
        assert_eq!(one.by_connection, steps.by_connection);
        assert_eq!(one.in_parallel, 0);
        assert!(three.in_parallel > 5_000, "batches read on the pool: {}", three.in_parallel);
    }
}
