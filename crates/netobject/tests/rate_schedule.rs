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
            while let Some((_, d)) = client.poll_transmit(t) {
                server.handle_datagram(t, ca, &d);
            }
            while let Some((_, d)) = server.poll_transmit(t) {
                if counting {
                    counted += 1;
                }
                client.handle_datagram(t, sa, &d);
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
        while let Some((_, d)) = client.poll_transmit(t) {
            server.handle_datagram(t, ca, &d);
        }
        while let Some((_, d)) = server.poll_transmit(t) {
            client.handle_datagram(t, sa, &d);
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
        while server.poll_transmit(t).is_some() {}
        while let Some(ev) = server.poll_event() {
            if let InterfaceEvent::Disconnected { reason, .. } = ev {
                closed = Some(reason);
            }
        }
    }
    let reason = closed.expect("the connection is closed");
    assert!(reason.contains("backlog"), "{reason}");
}
