//! The send rate holds when the host polls only on its ticks: a 100 ms period polled every
//! 32 ms must give 10 packets a second, not 1000 / 128 (issue 17: `next_send_at = now +
//! period` dropped the lateness of each send).

mod common;

use common::*;
use v12_netobject::{InterfaceConfig, InterfaceEvent, NetInterface};

#[test]
fn a_100_ms_period_polled_on_32_ms_ticks_sends_10_packets_a_second() {
    let reg = registry();
    let mut server = NetInterface::new(
        InterfaceConfig { accept_connections: true, ..InterfaceConfig::default() },
        reg.clone(),
        entropy(1),
    );
    let mut client = NetInterface::new(InterfaceConfig::default(), reg, entropy(2));
    let (sa, ca) = (addr(0), addr(1));
    client.connect(0, sa, bytes::Bytes::new());
    let mut conn = None;
    let (mut counting, mut counted) = (false, 0u32);
    let mut t = 0u64;
    while t <= 13_000 {
        // One host tick: timers, the server's game posts an event, then everything the two
        // send is delivered at once (a zero-latency link).
        for _ in 0..4 {
            server.handle_timeout(t);
            client.handle_timeout(t);
            if let Some(c) = conn {
                let _ = server.post_event(c, Unreliable::new(0, (t / 32) as u32, None));
            }
            while let Some((_, d)) = client.poll_transmit(t, &v12_netobject::ghost::NoObjects) {
                server.handle_datagram(t, ca, &d, &mut v12_netobject::ghost::GhostArena::new());
            }
            while let Some((_, d)) = server.poll_transmit(t, &v12_netobject::ghost::NoObjects) {
                if counting {
                    counted += 1;
                }
                client.handle_datagram(t, sa, &d, &mut v12_netobject::ghost::GhostArena::new());
            }
            while let Some(ev) = server.poll_event() {
                if let InterfaceEvent::Connected { connection, .. } = ev {
                    conn = Some(connection);
                }
            }
            while client.poll_event().is_some() {}
        }
        t += 32;
        counting = (3_000..13_000).contains(&t);
    }
    assert!(conn.is_some(), "connected");
    // 10 s at the default 100 ms server period.
    assert!((98..=102).contains(&counted), "{counted} server packets in 10 s");
}

/// A peer that does not keep up cannot make this side queue events without bound: past
/// `MAX_QUEUED_GUARANTEED` the post fails and the connection closes with the reason
/// (a chat-relay flood grew a server from 5 to 506 MB before).
#[test]
fn a_guaranteed_event_backlog_is_capped_and_the_connection_closed() {
    let reg = registry();
    let mut server = NetInterface::new(
        InterfaceConfig { accept_connections: true, ..InterfaceConfig::default() },
        reg.clone(),
        entropy(3),
    );
    let mut client = NetInterface::new(InterfaceConfig::default(), reg, entropy(4));
    let (sa, ca) = (addr(0), addr(1));
    client.connect(0, sa, bytes::Bytes::new());
    let mut conn = None;
    let mut t = 0;
    while conn.is_none() && t < 2_000 {
        t += 16;
        server.handle_timeout(t);
        client.handle_timeout(t);
        while let Some((_, d)) = client.poll_transmit(t, &v12_netobject::ghost::NoObjects) {
            server.handle_datagram(t, ca, &d, &mut v12_netobject::ghost::GhostArena::new());
        }
        while let Some((_, d)) = server.poll_transmit(t, &v12_netobject::ghost::NoObjects) {
            client.handle_datagram(t, sa, &d, &mut v12_netobject::ghost::GhostArena::new());
        }
        while let Some(ev) = server.poll_event() {
            if let InterfaceEvent::Connected { connection, .. } = ev {
                conn = Some(connection);
            }
        }
    }
    let conn = conn.expect("connected");
    // The client stops reading: nothing the server sends is acknowledged any more.
    let mut refused = 0;
    for n in 0..(v12_netobject::MAX_QUEUED_GUARANTEED as u32 + 100) {
        if server.post_event(conn, Ordered::new(0, n, None)).is_err() {
            refused += 1;
        }
    }
    assert_eq!(refused, 100, "every post past the cap is refused");
    let mut closed = None;
    for _ in 0..100 {
        t += 16;
        server.handle_timeout(t);
        while server.poll_transmit(t, &v12_netobject::ghost::NoObjects).is_some() {}
        while let Some(ev) = server.poll_event() {
            if let InterfaceEvent::Disconnected { reason, .. } = ev {
                closed = Some(reason);
            }
        }
    }
    let reason = closed.expect("the connection is closed");
    assert!(reason.contains("backlog"), "{reason}");
}

/// One host cannot take every connection slot (issue 17: 1,200 sockets from one IP locked
/// new players out): past `max_connections_per_ip` its requests are refused with a reason,
/// and a player from another address still gets in.
#[test]
fn one_address_gets_at_most_its_share_of_the_connection_slots() {
    use std::net::SocketAddr;
    let reg = registry();
    let cfg =
        InterfaceConfig { accept_connections: true, max_connections_per_ip: 4, ..InterfaceConfig::default() };
    let mut server = NetInterface::new(cfg, reg.clone(), entropy(5));
    let sa = addr(0);
    // Twenty sockets on one host, then one player elsewhere.
    let mut clients: Vec<(SocketAddr, NetInterface)> = (0..21)
        .map(|i| {
            let a = if i < 20 { SocketAddr::from(([10, 0, 0, 9], 5000 + i as u16)) } else { addr(7) };
            let mut c = NetInterface::new(InterfaceConfig::default(), reg.clone(), entropy(100 + i as u64));
            c.connect(0, sa, bytes::Bytes::new());
            (a, c)
        })
        .collect();
    let (mut connected, mut refused) = (Vec::new(), Vec::new());
    for t in (0..3_000).step_by(16) {
        server.handle_timeout(t);
        for (a, c) in clients.iter_mut() {
            c.handle_timeout(t);
            while let Some((_, d)) = c.poll_transmit(t, &v12_netobject::ghost::NoObjects) {
                server.handle_datagram(t, *a, &d, &mut v12_netobject::ghost::GhostArena::new());
            }
        }
        while let Some((to, d)) = server.poll_transmit(t, &v12_netobject::ghost::NoObjects) {
            if let Some((_, c)) = clients.iter_mut().find(|(a, _)| *a == to) {
                c.handle_datagram(t, sa, &d, &mut v12_netobject::ghost::GhostArena::new());
            }
        }
        for (a, c) in clients.iter_mut() {
            while let Some(ev) = c.poll_event() {
                match ev {
                    InterfaceEvent::Connected { .. } => connected.push(*a),
                    InterfaceEvent::ConnectFailed { reason, .. } => refused.push((*a, reason)),
                    _ => {}
                }
            }
        }
        while server.poll_event().is_some() {}
    }
    assert_eq!(connected.iter().filter(|a| a.ip() == std::net::IpAddr::from([10, 0, 0, 9])).count(), 4);
    assert!(connected.contains(&addr(7)), "a player from another address gets in");
    assert_eq!(refused.len(), 16, "{refused:?}");
    assert!(refused.iter().all(|(_, r)| r.contains("too many connections from your address")), "{refused:?}");
}

/// A client told "server busy" backs off and tries again instead of failing (issue 17).
#[test]
fn a_client_told_busy_backs_off_and_gets_in() {
    use std::net::SocketAddr;
    let reg = registry();
    let cfg = InterfaceConfig { accept_connections: true, max_pending: 1, ..InterfaceConfig::default() };
    let mut server = NetInterface::new(cfg, reg.clone(), entropy(9));
    let sa = addr(0);
    let mut clients: Vec<(SocketAddr, NetInterface, Vec<String>)> = (1..=3)
        .map(|i| {
            let mut c = NetInterface::new(InterfaceConfig::default(), reg.clone(), entropy(200 + i as u64));
            c.connect(0, sa, bytes::Bytes::new());
            (addr(i), c, Vec::new())
        })
        .collect();
    let mut busy_seen = 0;
    for t in (0..20_000).step_by(16) {
        server.handle_timeout(t);
        for (a, c, _) in clients.iter_mut() {
            c.handle_timeout(t);
            while let Some((_, d)) = c.poll_transmit(t, &v12_netobject::ghost::NoObjects) {
                server.handle_datagram(t, *a, &d, &mut v12_netobject::ghost::GhostArena::new());
            }
        }
        while let Some((to, d)) = server.poll_transmit(t, &v12_netobject::ghost::NoObjects) {
            if let Ok(v12_netobject::Handshake::ConnectReject { reason, .. }) =
                v12_netobject::Handshake::decode(&d)
            {
                busy_seen += usize::from(reason.starts_with("server busy"));
            }
            if let Some((_, c, _)) = clients.iter_mut().find(|(a, _, _)| *a == to) {
                c.handle_datagram(t, sa, &d, &mut v12_netobject::ghost::GhostArena::new());
            }
        }
        for (_, c, log) in clients.iter_mut() {
            while let Some(ev) = c.poll_event() {
                match ev {
                    InterfaceEvent::Connected { .. } => log.push("connected".into()),
                    InterfaceEvent::ConnectFailed { reason, .. } => log.push(reason),
                    _ => {}
                }
            }
        }
        while server.poll_event().is_some() {}
    }
    assert!(busy_seen > 0, "the server was busy at first");
    for (a, _, log) in &clients {
        assert_eq!(log, &["connected"], "{a}");
    }
}
